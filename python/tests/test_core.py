"""cases, laws, solvers, model, run, limit and Solution on the ball and the wedge: the closed forms,
the arrays and files of the program to the last bit, and the errors of bad input."""
import math
import os
import threading
import time
import sys

import numpy as np
import pytest

import penlim
from conftest import directory_differences, read_csv, same_bits, without_wall_seconds


def test_version_is_the_library_s():
    assert penlim.__version__ == "0.2.0"
    assert os.path.realpath(penlim.library_path) == os.path.realpath(os.environ["PENLIM_LIBRARY"])


def test_registry():
    cases = penlim.cases()
    ball = cases["bouncing_ball"]
    assert (ball.ndof, ball.ncon) == (1, 1) and set(ball.parameters) == {"g", "h0", "v0"}
    assert ball.parameters["g"].default == 9.81 and ball.parameters["g"].min == 0
    assert "e" in ball.law_defaults and "wedge" in cases and cases["wedge"].ndof == 2
    laws = penlim.laws()
    assert list(laws)[0] == "kelvin_voigt" and set(laws["kelvin_voigt"].parameters) >= {"k", "e", "xi"}
    assert "hunt_crossley" in laws and laws["kelvin_voigt"].parameters["xi"].derived
    solvers = penlim.solvers()
    assert list(solvers) == ["penalty", "limit", "moreau_jean", "paoli", "maury"]
    assert "mu" in solvers["penalty"].options and "h" in solvers["moreau_jean"].options
    assert solvers["penalty"].options["mu"].min_open


def ball_closed_forms(g, h0, v0, e):
    """First impact time and speed of a ball thrown up at v0 from h0 under g, and its Zeno time: the
    flights after the impacts last 2 e^k v1/g, a geometric series."""
    v1 = math.sqrt(v0 * v0 + 2 * g * h0)
    t1 = (v0 + v1) / g
    return t1, v1, t1 + 2 * v1 / g * e / (1 - e)


def test_ball_limit_closed_forms():
    g, h0, v0, e = 3.7, 2.3, 0.7, 0.6
    t1, v1, t_zeno = ball_closed_forms(g, h0, v0, e)
    s = penlim.limit("bouncing_ball", g=g, h0=h0, v0=v0, e=e, t_end=8)
    first = s.events[0]
    assert first["kind"] == "impact" and first["constraint"] == 0
    assert first["t"] == pytest.approx(t1, rel=1e-12)
    assert first["v_before"][0] == pytest.approx(-v1, rel=1e-12)
    assert first["v_after"][0] == pytest.approx(e * v1, rel=1e-12)
    assert s.analysis["first_impact_time"] == pytest.approx(t1, rel=1e-12)
    assert s.analysis["restitution_first"] == pytest.approx(e, rel=1e-12)
    zeno = [ev for ev in s.events if ev["kind"] == "zeno"]
    assert len(zeno) == 1 and zeno[0]["t"] == pytest.approx(t_zeno, rel=1e-9)
    # at rest on the floor after the Zeno point
    assert s.final["t"] == 8 and abs(s.final["q"][0]) < 1e-12 and s.final["v"][0] == 0


def test_ball_penalty_converges():
    g, h0, v0, e = 3.7, 2.3, 0.7, 0.6
    t1, _, _ = ball_closed_forms(g, h0, v0, e)
    s = penlim.run("bouncing_ball", mu=1e8, g=g, h0=h0, v0=v0, e=e, t_end=3)
    # Kelvin-Voigt at mu: a contact lasts ~ pi/sqrt(mu), its restitution is e exactly (paper 004, eq. (4))
    assert s.analysis["first_impact_time"] == pytest.approx(t1, abs=1e-3)
    assert s.analysis["restitution_first"] == pytest.approx(e, abs=2e-3)
    ep = s.episodes[0]
    assert ep["constraint"] == 0 and ep["t_in"] == pytest.approx(t1, abs=1e-9) and ep["t_out"] > ep["t_in"]
    assert s.stats["steps"] > 0 and s.stats["rhs_evals"] > s.stats["steps"]
    assert s.columns == ["t", "gamma", "q1", "v1", "G1", "force1"]
    assert s.q.shape == (len(s.t), 1) and s.G.shape == (len(s.t), 1) and s.force.shape == (len(s.t), 1)
    assert np.all(np.diff(s.t) >= 0) and s.t[0] == 0 and s.t[-1] == 3
    assert not s.t.flags.writeable  # a view of the solution's one copy


@pytest.mark.parametrize("case,solver,args", [
    ("bouncing_ball", "penalty", {"mu": 3e5, "e": 0.7}),
    ("bouncing_ball", "limit", {"e": 0.7}),
    ("wedge", "penalty", {"mu": 1e6, "m": 0.3, "e": 0.5}),
    ("wedge", "limit", {"m": 0.3, "e": 0.5}),
    ("wedge", "moreau_jean", {"h": 1e-3, "m": 0.3}),
])
def test_arrays_and_files_are_the_program_s(cli, tmp_path, case, solver, args):
    s = penlim.run(case, solver, **args)
    cmd = ["run", case] if solver != "limit" else ["limit", case]
    if solver == "moreau_jean":
        cmd += ["--scheme", solver]
    for name, value in args.items():
        cmd += [f"--{name}", value] if name in ("mu", "h") else ["--set", f"{name}={value}"]
    cli(*cmd, "--out", "cli", "--quiet")
    names, data = read_csv(tmp_path / "cli" / "trajectory.csv")
    assert names == s.columns
    assert same_bits(data, s.table), "the arrays are the file's to the last bit"
    s.write(tmp_path / "lib")
    for f in ("trajectory.csv", "trajectory_s.csv", "summary.json"):
        a, b = (tmp_path / d / f for d in ("cli", "lib"))
        assert without_wall_seconds(a.read_text()) == without_wall_seconds(b.read_text()), f
    # the whole directory, manifest.json included (but its hashes of the files holding the times)
    assert directory_differences(tmp_path / "cli", tmp_path / "lib") == []


def test_sparse_contacts():
    s = penlim.run("bouncing_ball", "limit", sparse_contacts=1, e=0.5)
    assert s.sparse_contacts and s.G is None and s.columns == ["t", "gamma", "q1", "v1"]
    c = s.contacts
    assert len(c["row"]) > 0 and np.all(c["constraint"] == 0) and np.all(c["G"] <= 1e-12)


def test_model_objects():
    m = penlim.model("wedge", m=0.3, law="hunt_crossley", params={"c": 0.2})
    assert (m.n, m.m, m.law) == (2, 2, "hunt_crossley") and m.parameters["m"] == 0.3
    assert m.law_parameters["c"] == 0.2
    s = penlim.run(m, mu=1e5)
    assert s.model is m and s.final["t"] == 3
    with pytest.raises(penlim.InputError, match="parameters fixed"):
        penlim.run(m, mu=1e5, params={"m": 0.1})


BAD = [
    (lambda: penlim.run("no_such_case"), "unknown case 'no_such_case'"),
    (lambda: penlim.run("bouncing_ball", "no_such_solver"), "unknown solver 'no_such_solver'"),
    (lambda: penlim.run("bouncing_ball", mu=1e6, bogus=1), "unknown parameter 'bogus'.*accepts: g, h0, v0"),
    (lambda: penlim.run("bouncing_ball", mu=-1), "mu = -1 is out of range"),
    (lambda: penlim.run("bouncing_ball", "limit", max_steps=0), "max_steps"),
    (lambda: penlim.run("bouncing_ball", "limit", samples=0.5), "samples must be a whole number"),
    # the value as given: %g printed 3.0000001 as 3 next to "must be a whole number"
    (lambda: penlim.run("bouncing_ball", "limit", samples=3.0000001), r"whole number in \[0, 1e7\] \(got 3.0000001\)"),
    (lambda: penlim.run("bouncing_ball", "limit", t_end=9.9999999e-13), r"\(got 9.9999999e-13\)"),
    (lambda: penlim.run("bouncing_ball", "limit", e=1.5), "out of range"),
    (lambda: penlim.run("bouncing_ball", "limit", t_end=-1), "t"),
    (lambda: penlim.run("bouncing_ball", "limit", law="no_law"), "unknown contact law 'no_law'"),
    (lambda: penlim.run("bouncing_ball", "limit", e=0.5, xi=0.1), ""),
    (lambda: penlim.model("bouncing_ball", c=0.2), "unknown parameter 'c'"),
    (lambda: penlim.run("wedge", "limit", m=1.0), "out of range"),
    (lambda: penlim.model("./no/such/model.so"), "does not exist"),
]


@pytest.mark.parametrize("call,message", BAD)
def test_bad_input(call, message):
    with pytest.raises(penlim.InputError, match=message) as info:
        call()
    assert isinstance(info.value, ValueError) and info.value.status == 2 and "\n" not in str(info.value)


def test_solver_failure_keeps_the_partial_solution():
    with pytest.raises(penlim.SolverError, match="stopped after 10 steps") as info:
        penlim.run("bouncing_ball", mu=1e6, max_steps=10)
    sol = info.value.solution
    assert isinstance(sol, penlim.Solution) and 0 < sol.final["t"] < 10 and len(sol.t) > 1


def test_write_errors(tmp_path):
    s = penlim.limit("bouncing_ball")
    (tmp_path / "file").write_text("")
    with pytest.raises(penlim.OutputError):
        s.write(tmp_path / "file" / "sub")


def test_model_file():
    models = os.environ["PENLIM_TEST_MODELS"]
    s = penlim.limit(os.path.join(models, "ok.so"), e=0.5)
    ball = penlim.limit("bouncing_ball", e=0.5, t_end=s.final["t"])
    assert s.analysis["first_impact_time"] == pytest.approx(ball.analysis["first_impact_time"], rel=1e-12)
    for bad in ("no_initial_state", "bad_abi"):
        with pytest.raises(penlim.InputError):
            penlim.model(os.path.join(models, bad + ".so"))


class _Watched:
    """The package's library with its solve call watched: `during` counts what `count` gained between
    the call's entry and return, which only another thread can have added."""

    def __init__(self, lib, count):
        self._lib, self._count, self.during = lib, count, None

    def __getattr__(self, name):
        function = getattr(self._lib, name)
        if name != "pl_solve_model_with":
            return function

        def watched(*args):
            before = self._count[0]
            status = function(*args)
            self.during = self._count[0] - before
            return status
        return watched


def test_gil_released_during_a_solve(monkeypatch):
    """A thread counts while a solve runs: it could not if the call held the interpreter's lock.  The
    switch interval is made so long that the interpreter never takes the lock from a thread: the
    counter runs only while the lock is free, and gives it up itself every 1000 counts (for the solve's
    thread to return)."""
    count, done = [0], [False]
    watched = _Watched(penlim._core.lib, count)
    monkeypatch.setattr(penlim._core, "lib", watched)

    def counter():
        while not done[0]:
            count[0] += 1
            if count[0] % 1000 == 0:
                time.sleep(0)

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    t = threading.Thread(target=counter)
    t.start()
    try:
        s = penlim.run("bouncing_ball", mu=1e10, e=1.0, t_end=2000, samples=0)
    finally:
        done[0] = True
        t.join()
        sys.setswitchinterval(old)
    assert s.stats["steps"] > 10000
    assert watched.during > 1000, f"the counter advanced {watched.during} times during {s.stats['steps']} steps"


def test_pandas_optional(monkeypatch):
    s = penlim.limit("bouncing_ball")
    try:
        import pandas  # noqa: F401
    except ImportError:
        pytest.skip("pandas is not installed")
    df = s.to_pandas()
    assert list(df.columns) == s.columns and same_bits(df["q1"].to_numpy(), s.q[:, 0])
    monkeypatch.setitem(sys.modules, "pandas", None)  # as without pandas
    with pytest.raises(ImportError):
        s.to_pandas()


def test_plot():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    fig = penlim.run("wedge", mu=1e5, m=0.3).plot()
    assert [ax.get_ylabel() for ax in fig.axes] == ["position q_j", "velocity v_j", "gap G_i", "contact force_i"]
    assert all(len(ax.lines) == 2 for ax in fig.axes)
