"""sweep, compare, study and load on the ball, the wedge and a model written in Python: the program's
files and numbers to the last bit, the rates' closed forms, and the files read back."""
import json
import math
import os

import numpy as np
import pytest

import penlim
from conftest import directory_differences, read_csv, same_bits, without_wall_seconds
from test_python_model import Ball


def column(table, name):
    return np.asarray(table[name], dtype=float)


def test_sweep_is_the_program_s(cli, tmp_path):
    mu = [1e4, 1e5, 1e6]
    sw = penlim.sweep("bouncing_ball", mu=mu, e=0.7, jobs=2)
    assert list(sw.values) == mu and len(sw.runs) == 3 and all(r.error is None for r in sw.runs)
    assert sw.limit is not None and sw.limit.solver == "limit"
    # Kelvin-Voigt's restitution tends to e (paper 004, eq. (4)), the first impact to sqrt(2 h0 / g)
    assert np.allclose(column(sw.table, "restitution_first"), 0.7, atol=2e-2)
    assert np.allclose(column(sw.table, "first_impact_time"), math.sqrt(2 / 9.81), rtol=1e-9)
    cli("sweep", "bouncing_ball", "--mu", "1e4,1e5,1e6", "--set", "e=0.7", "--no-plots", "--out", "cli", "--quiet")
    sw.write(tmp_path / "lib")
    for f in ("sweep.csv", "sweep.json", "episodes.csv", "impact_errors.csv", "limit/trajectory.csv"):
        a, b = ((tmp_path / d / f).read_text() for d in ("cli", "lib"))
        assert without_wall_seconds(a) == without_wall_seconds(b), f
    for k, run_dir in enumerate(sorted(os.listdir(tmp_path / "cli" / "runs"))):
        names, data = read_csv(tmp_path / "cli" / "runs" / run_dir / "trajectory.csv")
        assert names == sw.runs[k].columns and same_bits(data, sw.runs[k].table)
    t = sw.table
    assert list(column(t, "mu")) == mu and list(t["status"]) == ["ok"] * 3
    # read back: the same kind of object, the same numbers
    back = penlim.load(tmp_path / "cli")
    assert isinstance(back, penlim.Sweep) and list(back.values) == mu
    assert all(same_bits(a.table, b.table) for a, b in zip(back.runs, sw.runs))
    assert same_bits(back.limit.table, sw.limit.table)
    for q, (rate, se) in sw.rates.items():
        if q in back.rates:
            assert np.array_equal([rate, se], back.rates[q], equal_nan=True), q
    assert back.runs[0].analysis == sw.runs[0].analysis or \
        back.runs[0].analysis["first_impact_time"] == sw.runs[0].analysis["first_impact_time"]


def test_sweep_rate_of_the_penetration():
    """The wedge, and the ball's scaled penetration sqrt(mu) max|G| of the first impact: a Kelvin-Voigt
    contact's penetration is V/sqrt(mu k) times a function of xi alone as gravity's share of the contact
    force vanishes, so sqrt(mu) max|G| converges as mu grows."""
    sw = penlim.sweep("bouncing_ball", mu=[1e4, 1e6, 1e8], e=0.5, limit=False)
    p = column(sw.table, "scaled_penetration_first")
    assert abs(p[1] - p[2]) < abs(p[0] - p[2]) / 5
    w = penlim.sweep("wedge", mu=[1e4, 1e6], m=0.3, e=0.5, jobs=2)
    assert w.model.n == 2 and len(w.runs) == 2 and np.all(np.isfinite(column(w.table, "sup_q")))
    assert column(w.table, "sup_q")[1] < column(w.table, "sup_q")[0]


def test_sweep_of_a_scheme_and_of_a_python_model():
    sw = penlim.sweep("bouncing_ball", "moreau_jean", h=[1e-2, 1e-3], e=0.5)
    assert sw.refined == "h" and list(sw.values) == [1e-2, 1e-3]
    py = penlim.sweep(Ball(), mu=[1e4, 1e6], e=0.5, jobs=4)  # jobs: one at a time for a Python model
    assert np.allclose(column(py.table, "restitution_first"), 0.5, atol=2e-2)
    with pytest.raises(penlim.InputError, match="refines h"):
        penlim.sweep("bouncing_ball", "moreau_jean", mu=[1e4])
    with pytest.raises(penlim.InputError, match="unknown parameter 'zz'"):
        penlim.sweep("bouncing_ball", mu=[1e4], zz=1)


def test_compare(tmp_path):
    lim = penlim.limit("bouncing_ball", e=0.5, t_end=3)
    c = penlim.compare("bouncing_ball", mu=[1e4, 1e8], schemes={"moreau_jean": [1e-3]},
                       external=[lim.table[:, [0, 2, 3]]], e=0.5, t_end=3)
    t = c.table
    sup_q = column(t, "sup_q")
    assert list(t["solution"]) == ["limit", "penalty", "penalty", "moreau_jean", "external"]
    assert list(c.solutions) == ["01_penalty_mu_1e4", "02_penalty_mu_1e8", "03_moreau_jean_h_0.001", "04_external"]
    assert sup_q[2] < sup_q[1] and sup_q[4] < 1e-12, "the limit solution's own rows are at distance 0"
    assert np.all(np.isfinite(sup_q))
    assert [f["solution"] for f in c.families] == ["penalty", "moreau_jean"]
    # a bad array is reported by its row and column, not by the temporary file it is handed over in
    with pytest.raises(penlim.InputError, match=r"^external\[1\] \(an array\): row 2, column 0: t = 0.2\d* decreases"):
        penlim.compare("bouncing_ball", external=[np.zeros((2, 3)) + [[0, 1, 0], [1, 1, 0]],
                                                  [[0, 1, 0], [0.5, 0.9, 0], [0.2, 1, 0]]])
    c.write(tmp_path / "cmp")
    back = penlim.load(tmp_path / "cmp")
    assert isinstance(back, penlim.Comparison) and list(back.solutions) == list(c.solutions)
    assert same_bits(back.solutions["02_penalty_mu_1e8"].table, c.solutions["02_penalty_mu_1e8"].table)
    assert same_bits(back.limit.table, c.limit.table)
    with pytest.raises(penlim.InputError, match="columns t, q1..q1, v1..v1"):
        penlim.compare("bouncing_ball", external=[np.zeros((3, 2))])
    with pytest.raises(penlim.InputError, match="unknown scheme 'zz'"):
        penlim.compare("bouncing_ball", schemes={"zz": [1e-3]})
    with pytest.raises(penlim.InputError, match="holds files penlim did not write"):
        (tmp_path / "mine").mkdir()
        (tmp_path / "mine" / "notes.txt").write_text("mine")
        c.write(tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("args", [(), ("--mu", "1e5", "--scheme", "paoli", "--h", "1e-3", "--external", "lim.csv")])
def test_compare_write_is_the_program_s(cli, tmp_path, args):
    """Comparison.write and `penlim compare --no-plots` write the same directory (but the times the
    runs took, and the manifest's hashes of the files holding them), and `penlim plot` draws the same
    figures from either."""
    lim = penlim.limit("wedge", t_end=2)
    np.savetxt(tmp_path / "lim.csv", lim.table[:, [0, 2, 3, 4, 5]], delimiter=",", header="t,q1,q2,v1,v2",
               comments="", fmt="%.17g")
    kw = {"mu": [1e5], "schemes": {"paoli": [1e-3]}, "external": [str(tmp_path / "lim.csv")]} if args else {}
    if args:
        args = args[:-1] + (str(tmp_path / "lim.csv"),)
    penlim.compare("wedge", t_end=2, **kw).write(tmp_path / "py")
    cli("compare", "wedge", "--t-end", "2", *args, "--no-plots", "--out", "cmd", "--quiet")
    assert directory_differences(tmp_path / "py", tmp_path / "cmd") == []
    py, cmd = (json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("py", "cmd"))
    assert py["command"] == "compare" and py["files"] == cmd["files"]
    timed = {f for f in cmd["files"] if "seconds" in (tmp_path / "cmd" / f).read_text()}
    assert {f for f in cmd["files"] if py["content_hashes"][f] != cmd["content_hashes"][f]} <= timed
    if args:  # the figures once (gnuplot's time)
        cli("plot", "py")
        cli("plot", "cmd")
        assert directory_differences(tmp_path / "py", tmp_path / "cmd") == []
        assert (tmp_path / "py" / "compare_work.gp").exists() and (tmp_path / "py" / "compare_work.png").exists()


def test_run_limit_and_sweep_write_are_the_program_s(cli, tmp_path):
    """Solution.write and Sweep.write write the directories of `penlim run`, `penlim limit` and `penlim
    sweep --no-plots`, manifest.json included (but the times the runs took and the manifest's hashes of
    the files holding them): penlim.load and `penlim plot` take them as the command's."""
    penlim.run("bouncing_ball", mu=3e5, e=0.7, samples=300).write(tmp_path / "run")
    cli("run", "bouncing_ball", "--mu", "3e5", "--set", "e=0.7", "--samples", "300", "--out", "run_cmd", "--quiet")
    penlim.limit("wedge", t_end=2).write(tmp_path / "limit")
    cli("limit", "wedge", "--t-end", "2", "--out", "limit_cmd", "--quiet")
    penlim.sweep("bouncing_ball", mu=[1e4, 1e6], e=0.7, max_steps=100000).write(tmp_path / "sweep")
    cli("sweep", "bouncing_ball", "--mu", "1e4,1e6", "--set", "e=0.7", "--max-steps", "100000", "--no-plots",
        "--no-isolate", "--out", "sweep_cmd", "--quiet")
    for d in ("run", "limit", "sweep"):
        assert directory_differences(tmp_path / d, tmp_path / f"{d}_cmd") == [], d
        manifest = json.loads((tmp_path / d / "manifest.json").read_text())
        assert manifest["command"] == d and manifest["model"]["file"] is None
        cli("plot", d)
        cli("plot", f"{d}_cmd")
        assert directory_differences(tmp_path / d, tmp_path / f"{d}_cmd") == [], f"{d} plotted"
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["samples"] == 300
    assert [r["status"] for r in json.loads((tmp_path / "sweep" / "manifest.json").read_text())["runs"]] == ["ok"] * 2
    assert isinstance(penlim.load(tmp_path / "sweep"), penlim.Sweep)
    assert same_bits(penlim.load(tmp_path / "limit").table, penlim.load(tmp_path / "limit_cmd").table)


def test_study_is_the_program_s(cli, tmp_path):
    st = penlim.study("bouncing_ball", {"mu": [1e4, 1e6], "e": [0.3, 0.6]}, jobs=2, directory=tmp_path / "lib")
    cli("study", "bouncing_ball", "--grid", "mu=1e4,1e6", "--grid", "e=0.3,0.6", "--no-plots", "--out", "cli",
        "--quiet")
    a, b = ((tmp_path / d / "study.csv").read_text() for d in ("cli", "lib"))
    assert without_wall_seconds(a) == without_wall_seconds(b)
    t = st.table
    assert list(column(t, "e")) == [0.3, 0.6, 0.3, 0.6]
    # each run's restitution is its e (Kelvin-Voigt: exact at every mu)
    assert np.allclose(column(t, "restitution_first"), column(t, "e"), atol=3e-2)
    assert st.value(0, "restitution_first") == column(t, "restitution_first")[0]
    back = penlim.load(tmp_path / "cli")
    assert isinstance(back, penlim.Study) and back.value(1, "e") == 0.6
    points = st.points
    assert [p["values"] for p in points] == [{"e": 0.3}, {"e": 0.6}] and points[0]["runs"] == [0, 2]
    assert points[1]["limits"]["restitution_first"] == pytest.approx(0.6, rel=1e-9)
    assert st.runs[1].analysis["restitution_first"] == column(t, "restitution_first")[1]
    lims = st.limit_solutions
    assert len(lims) == 2 and lims[1].solver == "limit" and lims[1].events[0]["v_after"][0] == pytest.approx(
        -0.6 * lims[1].events[0]["v_before"][0], rel=1e-12)
    with pytest.raises(penlim.InputError):
        penlim.study("bouncing_ball", {"nope": [1, 2]})


def test_study_write_is_the_program_s(cli, tmp_path):
    """penlim.study's directory and Study.write's copy are the directory of `penlim study --no-plots`,
    manifest.json included (but the times the runs took, the manifest's hashes of the files holding
    them, and its model), and `penlim plot` draws its figures."""
    st = penlim.study("bouncing_ball", {"mu": "1e4,1e6", "e": "0.4,0.7"}, h0=1.3, rtol=1e-7, jobs=2,
                      directory=tmp_path / "py")
    cli("study", "bouncing_ball", "--grid", "mu=1e4,1e6", "--grid", "e=0.4,0.7", "--set", "h0=1.3", "--rtol",
        "1e-7", "--no-plots", "--out", "cmd", "--quiet")
    st.write(tmp_path / "copy")
    assert directory_differences(tmp_path / "py", tmp_path / "cmd") == []
    assert directory_differences(tmp_path / "copy", tmp_path / "cmd") == []
    py, cmd = (json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("py", "cmd"))
    assert py["command"] == "study" and py["study"]["grids"] == ["mu=1e4,1e6", "e=0.4,0.7"]
    assert py["files"] == cmd["files"] and len(py["files"]) == 3 * (4 + 2) + 2
    timed = {f for f in cmd["files"] if "seconds" in (tmp_path / "cmd" / f).read_text()}
    assert {f for f in cmd["files"] if py["content_hashes"][f] != cmd["content_hashes"][f]} <= timed
    cli("plot", "copy")
    drawn = json.loads((tmp_path / "copy" / "manifest.json").read_text())["files"]
    assert "map_restitution_first.png" in drawn and "family_restitution_first.png" in drawn
    # written over a directory as the library's writers are: one holding a file penlim did not write is
    # refused and left as it was
    (tmp_path / "cmd" / "notes.txt").write_text("mine")
    with pytest.raises(penlim.InputError, match="holds files penlim did not write"):
        st.write(tmp_path / "cmd")
    assert (tmp_path / "cmd" / "notes.txt").read_text() == "mine" and (tmp_path / "cmd" / "manifest.json").is_file()
    with pytest.raises(penlim.InputError, match="holds files penlim did not write"):
        (tmp_path / "mine").mkdir()
        (tmp_path / "mine" / "notes.txt").write_text("mine")
        penlim.study("bouncing_ball", {"e": [0.5]}, mu=1e4, directory=tmp_path / "mine")
    assert os.listdir(tmp_path / "mine") == ["notes.txt"]


def test_load_a_run(cli, tmp_path):
    cli("limit", "wedge", "--set", "m=0.3", "--out", "w", "--quiet")
    s = penlim.load(tmp_path / "w")
    ref = penlim.limit("wedge", m=0.3)
    assert isinstance(s, penlim.Solution) and s.model.case == "wedge" and s.model.parameters["m"] == 0.3
    assert same_bits(s.table, ref.table) and s.columns == ref.columns
    assert [e["kind"] for e in s.events] == [e["kind"] for e in ref.events]
    assert [e["constraint"] for e in s.events] == [e["constraint"] for e in ref.events]
    assert s.analysis["first_impact_time"] == ref.analysis["first_impact_time"]
    s.write(tmp_path / "copy")
    assert (tmp_path / "copy" / "trajectory.csv").read_bytes() == (tmp_path / "w" / "trajectory.csv").read_bytes()
    with pytest.raises(penlim.InputError, match="holds no results"):
        penlim.load(tmp_path)


def test_tables_without_pandas(monkeypatch):
    sw = penlim.sweep("bouncing_ball", mu=[1e4, 1e5], e=0.5, limit=False)
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)  # as without pandas
    t = sw.table
    assert isinstance(t, dict) and list(t["mu"]) == [1e4, 1e5] and list(t["status"]) == ["ok", "ok"]


@pytest.mark.parametrize("call", [
    lambda: penlim.run("bouncing_ball", mu=1e9, e=1.0, t_end=1e7, samples=0, max_output=1e9),
    lambda: penlim.sweep("bouncing_ball", mu=[1e8, 1e9], e=1.0, t_end=1e7, samples=0, max_output=1e9, jobs=2),
])
def test_ctrl_c_stops_a_long_call(call):
    """SIGINT while the library works (a run or sweep of hours): the call stops at the runs' next step
    and raises KeyboardInterrupt, nothing left alive."""
    import gc
    import signal
    import threading
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        call()
    timer.join()
    gc.collect()
    assert penlim.live_handles()["sweep"] == 0 and penlim.live_handles()["solution"] == 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_stops_the_runs_of_a_study(tmp_path):
    """SIGINT during a study: its runs under way stop at their next step (the study's cancel hook reaches
    each solve), and none is written as a failed run: a resumed study solves it again."""
    import signal
    import threading
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):  # max_steps: a bound on the test if the runs went on
        penlim.study("bouncing_ball", {"mu": [1e8, 1e9]}, e=1.0, t_end=1e7, samples=0, max_output=1e9, max_steps=2e6,
                     directory=tmp_path / "st", jobs=2)
    timer.join()
    written = [d for sub in ("runs", "limits") if (tmp_path / "st" / sub).is_dir()
               for d in os.listdir(tmp_path / "st" / sub) if (tmp_path / "st" / sub / d / "summary.json").exists()]
    assert written == []


def test_study_along_a_parameter_the_defaults_derive(cli, tmp_path):
    """An axis of xi, which the ball derives from e unless set: the package sets only what its caller set
    (here h0), as the program's --set, so the study is the program's."""
    st = penlim.study("bouncing_ball", {"xi": [0.05, 0.2], "mu": [1e4, 1e6]}, h0=1.7, directory=tmp_path / "lib")
    cli("study", "bouncing_ball", "--grid", "xi=0.05,0.2", "--grid", "mu=1e4,1e6", "--set", "h0=1.7", "--no-plots",
        "--out", "cli", "--quiet")
    a, b = ((tmp_path / d / "study.csv").read_text() for d in ("cli", "lib"))
    assert without_wall_seconds(a) == without_wall_seconds(b)
    # Kelvin-Voigt with damping ratio xi: restitution exp(-pi xi / sqrt(1 - xi^2)) (paper 004, eq. (4))
    for p in st.points:
        xi = p["values"]["xi"]
        assert p["limits"]["restitution_first"] == pytest.approx(math.exp(-math.pi * xi / math.sqrt(1 - xi * xi)),
                                                                 rel=1e-6)
    assert np.allclose(column(st.table, "first_impact_time"), math.sqrt(2 * 1.7 / 9.81), rtol=1e-9)


def test_study_and_compare_of_a_python_model():
    st = penlim.study(Ball(), {"e": [0.3, 0.6]}, mu=1e6, jobs=2)  # jobs: one at a time for a Python model
    assert np.allclose(column(st.table, "restitution_first"), [0.3, 0.6], atol=5e-3)
    c = penlim.compare(Ball(), mu=[1e5, 1e7], e=0.5)
    sup_q = column(c.table, "sup_q")
    assert sup_q[0] == 0 and 0 < sup_q[2] < sup_q[1]  # the limit solution's row first


# Today's names as version 0.2 wrote them (docs/formats.md, "One vocabulary"), applied all at once.
V02_NAMES = {"sup_q": "limit_sup_q", "sup_q_outside_zeno": "limit_sup_q_outside_zeno", "l1_v": "limit_l1_v",
             "s_distance_q": "limit_s_distance", "successive_s_distance_q": "s_distance_q",
             "successive_s_distance_v": "s_distance_v", "successive_s_distance": "s_distance"}


def as_version_0_2(directory):
    """Rewrite a directory of today's program in 0.2's vocabulary: CSV headers (forceK as lambdaK,
    contacts.csv's force as lambda, the quantities), JSON keys (the convergence quantities, sweep.json's
    s_distance)."""
    import json
    import re
    for root, _, files in os.walk(directory):
        for name in files:
            path = os.path.join(root, name)
            text = open(path).read()
            if name.endswith(".csv"):
                head, _, body = text.partition("\n")
                cols = [re.sub(r"^force(\d*)$", r"lambda\1", c) for c in head.split(",")]
                if name in ("sweep.csv", "study.csv"):
                    cols = [V02_NAMES.get(c, c) for c in cols]
                text = ",".join(cols) + "\n" + body
            elif name in ("sweep.json", "study.json"):
                doc = json.loads(text)
                convs = [doc["convergence"]] if "convergence" in doc else [p["convergence"] for p in doc["points"]]
                for c in convs:
                    renamed = {V02_NAMES.get(k, k): v for k, v in c.items()}
                    c.clear()
                    c.update(renamed)
                if "successive_s_distance" in doc:
                    doc["s_distance"] = doc.pop("successive_s_distance")
                text = json.dumps(doc)
            open(path, "w").write(text)


def test_load_reads_version_0_2(cli, tmp_path):
    """A directory written by version 0.2 (lambda, limit_sup_q, s_distance for the successive runs' distance)
    reads back under today's names with the same numbers."""
    import shutil
    cli("sweep", "bouncing_ball", "--mu", "1e4,1e6", "--set", "e=0.6", "--t-end", "2", "--no-plots", "--out", "sw",
        "--quiet")
    cli("run", "bouncing_ball", "--mu", "1e5", "--contacts", "sparse", "--out", "sp", "--quiet")
    cli("study", "bouncing_ball", "--grid", "mu=1e4,1e6", "--grid", "e=0.5,0.8", "--t-end", "2", "--no-plots",
        "--out", "st", "--quiet")
    for d in ("sw", "sp", "st"):
        shutil.copytree(tmp_path / d, tmp_path / (d + "02"))
        as_version_0_2(tmp_path / (d + "02"))
    assert "limit_sup_q" in (tmp_path / "sw02" / "sweep.csv").read_text()
    assert "lambda1" in (tmp_path / "sw02" / "runs" / os.listdir(tmp_path / "sw02" / "runs")[0] / "trajectory.csv").read_text()
    now, old = penlim.load(tmp_path / "sw"), penlim.load(tmp_path / "sw02")
    assert list(old.table.columns) == list(now.table.columns)
    assert "sup_q" in old.rates and "limit_sup_q" not in old.rates and "successive_s_distance" in old.convergence
    for q in now.rates:
        assert np.array_equal(now.rates[q], old.rates[q], equal_nan=True), q
    assert np.array_equal(column(now.table, "s_distance_q"), column(old.table, "s_distance_q"), equal_nan=True)
    assert np.array_equal(column(now.table, "successive_s_distance_q"), column(old.table, "successive_s_distance_q"),
                          equal_nan=True)
    assert old.summary["successive_s_distance"] == now.summary["successive_s_distance"]
    assert old.runs[0].columns == now.runs[0].columns == ["t", "gamma", "q1", "v1", "G1", "force1"]
    assert same_bits(old.runs[1].force, now.runs[1].force)
    sp_now, sp_old = penlim.load(tmp_path / "sp"), penlim.load(tmp_path / "sp02")
    assert sp_now.G is None and len(sp_now.contacts["force"]) > 0
    assert same_bits(sp_now.contacts["force"], sp_old.contacts["force"])
    st_now, st_old = penlim.load(tmp_path / "st"), penlim.load(tmp_path / "st02")
    assert list(st_old.table.columns) == list(st_now.table.columns)
    assert st_old.value(1, "sup_q") == st_now.value(1, "sup_q") and math.isfinite(st_now.value(1, "sup_q"))
    assert [p["rates"].keys() for p in st_old.points] == [p["rates"].keys() for p in st_now.points]


def test_the_load_example_of_the_docs_runs(program, tmp_path, monkeypatch):
    """docs/python.md's penlim.load example, as written, in a new directory with the program on PATH."""
    import re
    text = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")).read()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "penlim.load(" in b)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", os.path.dirname(program) + os.pathsep + os.environ.get("PATH", ""))
    scope = {"penlim": penlim}
    exec(compile(block, "docs/python.md", "exec"), scope)
    assert isinstance(scope["sw"], penlim.Sweep) and list(scope["sw"].values) == [1e3, 1e4, 1e5]


def test_plots_of_a_sweep_and_a_study(tmp_path):
    """Sweep.plot and Study.plot draw the command's data: convergence.csv's errors and fits, each run's
    trajectory and the limit's, study.csv's column per point of the other axes."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from conftest import read_csv as _  # noqa: F401 (the same directory of tests)
    sw = penlim.sweep("bouncing_ball", mu=[1e3, 1e4, 1e5, 1e6], e=0.6, t_end=2, jobs=2)
    conv = penlim._files.read_columns(os.path.join(sw._dir(), "convergence.csv"))
    quantities = [q for q in dict.fromkeys(conv["quantity"]) if q]  # (no name: the blank lines between blocks)
    fig = sw.plot()
    lines = [line for ax in fig.axes for line in ax.lines]
    assert len(quantities) > 0 and len(lines) == 2 * len(quantities)
    for q in quantities:  # each quantity's points, then its fit (test_figures.py: the panels)
        (k,) = [j for j, line in enumerate(lines) if line.get_label().startswith(q + ":")]
        rows = [j for j, name in enumerate(conv["quantity"]) if name == q]
        assert np.array_equal(lines[k].get_xdata(), conv["mu"][rows])
        assert np.array_equal(lines[k].get_ydata(), conv["error"][rows])
        assert np.array_equal(lines[k + 1].get_ydata(), conv["fit"][rows])
    assert all(ax.get_xscale() == "log" and ax.get_yscale() == "log" for ax in fig.axes)
    fig = sw.plot("trajectories")
    assert [a.get_ylabel() for a in fig.axes] == ["q1", "v1", "G1"]
    assert len(fig.axes[0].lines) == 5 and fig.axes[0].lines[-1].get_color() == "black"
    assert np.array_equal(fig.axes[2].lines[1].get_ydata(), sw.runs[1].G[:, 0])
    with pytest.raises(penlim.InputError, match="unknown figure"):
        sw.plot("nope")
    st = penlim.study("bouncing_ball", {"mu": [1e4, 1e5, 1e6], "e": [0.5, 0.8]}, t_end=2, jobs=2)
    fig = st.plot("sup_q")
    ax = fig.axes[0]
    t = st.table
    assert [line.get_label() for line in ax.lines] == ["e = 0.5", "e = 0.8"]
    e8 = np.asarray(t["e"]) == 0.8
    assert np.array_equal(ax.lines[1].get_xdata(), column(t, "mu")[e8])
    assert np.array_equal(ax.lines[1].get_ydata(), np.abs(column(t, "sup_q")[e8]))
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    fig = st.plot("restitution_first", x="e")
    assert len(fig.axes[0].lines) == 3 and fig.axes[0].get_yscale() == "linear"


def test_write_of_loaded_results_follows_the_writers_rules(cli, tmp_path):
    """write() of what penlim.load read copies through the library's writer: a directory holding a
    user's file (or a link out of it) is refused and left as it was, the copy is the directory copied
    (its manifest included), a solution copied out of a comparison gets the manifest of `penlim run`,
    and a file changed since penlim wrote it is not copied."""
    cli("compare", "bouncing_ball", "--mu", "1e4", "--t-end", "2", "--no-plots", "--out", "cmp", "--quiet")
    cli("run", "bouncing_ball", "--mu", "1e4", "--t-end", "2", "--out", "run", "--quiet")
    c = penlim.load(tmp_path / "cmp")
    user = tmp_path / "user"
    user.mkdir()
    (user / "compare.csv").write_text("my own data\n")
    (tmp_path / "outside.txt").write_text("outside\n")
    os.symlink(tmp_path / "outside.txt", user / "compare.json")
    with pytest.raises(penlim.InputError, match="holds files penlim did not write"):
        c.write(user)
    assert (user / "compare.csv").read_text() == "my own data\n" and (tmp_path / "outside.txt").read_text() == "outside\n"
    c.write(tmp_path / "copy")
    assert directory_differences(tmp_path / "copy", tmp_path / "cmp") == []
    assert json.loads((tmp_path / "copy" / "manifest.json").read_text()) == json.loads(
        (tmp_path / "cmp" / "manifest.json").read_text())
    c.solutions["01_penalty_mu_1e4"].write(tmp_path / "one")
    assert directory_differences(tmp_path / "one", tmp_path / "run") == []
    assert (tmp_path / "one" / "trajectory.csv").read_bytes() == (tmp_path / "run" / "trajectory.csv").read_bytes()
    c.limit.write(tmp_path / "lim")
    assert json.loads((tmp_path / "lim" / "manifest.json").read_text())["command"] == "limit"
    with open(tmp_path / "cmp" / "limit" / "trajectory.csv", "a") as f:
        f.write("9,9,9\n")
    with pytest.raises(penlim.InputError, match="not the file penlim wrote"):
        c.write(tmp_path / "copy2")
    assert not (tmp_path / "copy2" / "limit" / "trajectory.csv").exists()


def test_a_refused_directory_is_left_as_it_was(tmp_path):
    """The library's writers check the directory before making anything: a system directory refused
    leaves no directory behind (as root, mkdir -p would succeed), and the message is the caller's, not
    the command's --out."""
    probe = "/usr/penlim-refused-probe"
    s = penlim.run("bouncing_ball", mu=1e4, t_end=0.5)
    with pytest.raises(penlim.InputError, match=r"^/usr/penlim-refused-probe/a is inside a system directory"):
        s.write(probe + "/a")
    assert not os.path.exists(probe)


def test_compare_whose_limit_solution_fails(tmp_path):
    """The limit solution fails (5 steps): as the command exits 3, compare raises SolverError carrying
    the comparison, whose limit says failed with the library's reason, and whose files can be written."""
    with pytest.raises(penlim.SolverError, match="the limit solution failed") as e:
        penlim.compare("bouncing_ball", mu=[1e3], t_end=3, max_steps=5)
    c = e.value.comparison
    assert c.limit.status == "failed" and "steps" in c.limit.error
    assert list(c.table["status"])[0] == "failed"
    c.write(tmp_path / "cmp")
    assert penlim.load(tmp_path / "cmp").limit.status == "failed"


def test_penlim_plot_draws_what_python_wrote_for_models_not_built_in(cli, tmp_path):
    """A model loaded from a file: write() records the file and its hash as `penlim run --model` does;
    a model written in Python: "caller_defined" instead, and `penlim plot` draws either directory."""
    so = os.path.join(os.environ["PENLIM_TEST_MODELS"], "ok.so")
    penlim.run(penlim.model(so), mu=1e4, t_end=1).write(tmp_path / "so")
    cli("run", "--model", so, "--mu", "1e4", "--t-end", "1", "--out", "so_cmd", "--quiet")
    py, cmd = (json.loads((tmp_path / d / "manifest.json").read_text())["model"] for d in ("so", "so_cmd"))
    assert py == cmd and py["file"] == so and len(py["content_hash"]) == 16
    penlim.compare(Ball(), mu=[1e4], t_end=1).write(tmp_path / "py")
    assert json.loads((tmp_path / "py" / "manifest.json").read_text())["model"]["caller_defined"] is True
    cli("plot", "so")
    cli("plot", "py")
    assert (tmp_path / "so" / "run.png").exists() and (tmp_path / "py" / "compare_trajectories.png").exists()


def test_compare_s_smaller_contracts(tmp_path):
    """A solution of a comparison written alone records the options it was solved with; schemes of
    the wrong type and time steps that are not numbers are InputError."""
    c = penlim.compare("bouncing_ball", mu=[1e4], t_end=1, samples=37, max_steps=123456)
    c.solutions["01_penalty_mu_1e4"].write(tmp_path / "sol")
    m = json.loads((tmp_path / "sol" / "manifest.json").read_text())
    assert (m["samples"], m["max_steps"], m["options"]["mu"]) == (37, 123456, 1e4)
    for bad in ("moreau_jean", ["moreau_jean"], {"moreau_jean": "abc"}):
        with pytest.raises(penlim.InputError, match="schemes"):
            penlim.compare("bouncing_ball", schemes=bad)
