"""Sweeps (mu -> infinity, h -> 0), comparisons against the limit solution, parameter studies, and the
program's directories read back."""
import ctypes
import json
import math
import os
import shutil
import tempfile
import weakref
from ctypes import byref, c_double, c_size_t, c_void_p

import numpy as np

from . import _lib
from ._core import (InputError, Model, Solution, SolverError, _call, _error, _model_for, _own, _split_options, lib, model,
                    run)
from ._files import copy_files, current_json, read_columns, table

# pl_sweep_quantity_get's names (include/penlim/study.h), the quantities of sweep.json.
SWEEP_QUANTITIES = ("first_impact_time", "restitution_first", "scaled_penetration_first", "capture_time",
                    "accumulation_estimate", "lift_off_first", "sliding_force_error", "successive_s_distance",
                    "sup_q", "sup_q_outside_zeno", "l1_v", "s_distance_q", "impact_time_error",
                    "impact_velocity_error")

DEFAULT_MU = tuple(10.0 ** k for k in range(2, 11))  # penlim sweep's default, 1e2:1e10:9


class _Files:
    """What sweeps and studies share: a directory of the program's files (written lazily for one
    computed here) read as tables and JSON."""

    def _dir(self):
        raise NotImplementedError

    def _json(self, name):
        with open(os.path.join(self._dir(), name)) as f:
            return current_json(json.load(f))

    def _table(self, name):
        return table(os.path.join(self._dir(), name))


class Sweep(_Files):
    """A refinement sweep: one run per value of mu (penalty) or h (a scheme), each measured against the
    limit solution, and the convergence of the limit quantities with their fitted rates.

    values: the refined values in the order of refinement; runs: their Solutions (a failed run's
    error says why); limit: the limit solution (None without); table: sweep.csv; convergence and
    summary: sweep.json's; rates: {quantity: (rate, standard error)}; write(dir): `penlim sweep
    --no-plots`'s files."""

    def __init__(self):
        self._handle = None
        self._directory = None
        self._tmp = None

    @classmethod
    def _own(cls, handle, m, solver, options):
        sw = cls()
        sw._handle = handle
        sw._finalizer = _own(sw, "sweep", lib.pl_sweep_destroy, handle)
        sw.model, sw.solver, sw.options = m, solver, dict(options)
        n = lib.pl_sweep_runs(handle)
        sw.values = np.empty(n)
        sw.runs = []
        value, sol, err = c_double(), c_void_p(), _lib.pl_error()
        for k in range(n):
            status = lib.pl_sweep_run_result(handle, k, byref(value), byref(sol), byref(err))
            sw.values[k] = value.value
            sw.runs.append(Solution(sol.value, m, solver, dict(options, **{sw.refined: value.value}), owner=sw,
                                    error=err.text() if status else None))
        limit = lib.pl_sweep_limit(handle)
        sw.limit = Solution(limit, m, "limit", {}, owner=sw) if limit else None
        sw._rates = {}
        r, se, lim = c_double(), c_double(), c_double()
        for q in SWEEP_QUANTITIES:
            if lib.pl_sweep_quantity_get(handle, q.encode(), None, byref(lim), byref(r), byref(se), byref(err)) == 0:
                sw._rates[q] = {"limit": lim.value, "rate": r.value, "rate_se": se.value}
        return sw

    @classmethod
    def _load(cls, directory):
        sw = cls()
        sw._directory = os.fspath(directory)
        summary = sw.summary
        sw.solver = summary.get("solver")
        sw.values = np.array(summary.get(summary.get("refined", "mu"), []), dtype=float)
        sw.runs = [Solution._load(os.path.join(directory, r["directory"])) for r in summary.get("runs", [])]
        for r, info in zip(sw.runs, summary.get("runs", [])):
            if info.get("status") != "ok":
                r.error = info.get("error", "failed")
        sw.model = sw.runs[0].model if sw.runs else None
        sw.options = {}
        lim = os.path.join(directory, "limit")
        sw.limit = Solution._load(lim) if os.path.isfile(os.path.join(lim, "summary.json")) else None
        conv = summary.get("convergence", {})
        nan = lambda x: math.nan if x is None else x  # noqa: E731
        sw._rates = {q: {"limit": nan(c.get("limit")), "rate": nan(c.get("rate")), "rate_se": nan(c.get("rate_se"))}
                     for q, c in conv.items()}
        return sw

    @property
    def refined(self):
        return "mu" if self.solver == "penalty" else "h"

    def _dir(self):
        if self._directory is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="penlim-sweep-")
            self._write_library(self._tmp.name)
            self._directory = self._tmp.name
        return self._directory

    def _write_library(self, directory):
        err = _lib.pl_error()
        status = lib.pl_sweep_write(self.model._handle, self._handle, os.fspath(directory).encode(), byref(err))
        if status:
            raise _error(status, err.text())

    @property
    def summary(self):
        """sweep.json, as a dict."""
        return self._json("sweep.json")

    @property
    def table(self):
        """sweep.csv: one row per run (pandas DataFrame, or {column: numpy array} without pandas)."""
        return self._table("sweep.csv")

    @property
    def convergence(self):
        return self.summary.get("convergence", {})

    @property
    def rates(self):
        """{quantity: (rate, standard error)} of its error ~ C value^(-rate) (NAN where not meaningful)."""
        return {q: (v["rate"], v["rate_se"]) for q, v in self._rates.items()}

    @property
    def limits(self):
        """{quantity: its limit value} (closed form, limit solution or extrapolated)."""
        return {q: v["limit"] for q, v in self._rates.items()}

    def write(self, directory):
        """The files of `penlim sweep --no-plots` (without its manifest.json) into directory."""
        if self._handle is None:
            copy_files(self._directory, directory)
        else:
            self._write_library(directory)
        return directory

    def plot(self, figure="convergence", axes=None):
        """A figure of `penlim sweep` with matplotlib: "convergence" (abs(error) of each quantity against
        mu or h with its fitted power law) or "trajectories" (q, v, G against t for every run and the
        limit solution in black)."""
        from ._plot import plot_convergence, plot_trajectories
        figures = {"convergence": plot_convergence, "trajectories": plot_trajectories}
        if figure not in figures:
            raise InputError(f"unknown figure {figure!r} of a sweep ({', '.join(figures)})", _lib.PL_ERR_INPUT)
        return figures[figure](self, axes)

    def __repr__(self):
        return f"penlim.Sweep({self.solver!r}, {self.refined}={list(self.values)})"


def sweep(case, solver="penalty", *, values=None, mu=None, h=None, jobs=None, limit=True, law=None, params=None,
          **kwargs):
    """Solve case for each value of mu (penalty; default 1e2 ... 1e10) or h (a scheme), in parallel over
    jobs threads (default: the cores; a model written in Python runs one at a time, holding the
    interpreter's lock), each measured against the limit solution (limit=True).  Ctrl-C stops it
    (KeyboardInterrupt) once the runs under way have stopped."""
    refined = "mu" if solver == "penalty" else "h"
    given = values if values is not None else (mu if refined == "mu" else h)
    if (mu is not None and refined != "mu") or (h is not None and refined != "h"):
        raise InputError(f"the {solver} solver refines {refined}: give its values as {refined}=[...]",
                         _lib.PL_ERR_INPUT)
    if given is None:
        if refined != "mu":
            raise InputError(f"give the time steps of {solver}: h=[...]", _lib.PL_ERR_INPUT)
        given = DEFAULT_MU
    given = np.atleast_1d(np.asarray(given, dtype=float))
    options, case_params, option_names = _split_options(solver, kwargs, not isinstance(case, Model))
    m = _model_for(case, law, dict(params or {}, **case_params), option_names, solver)
    if m._bridge:
        jobs = 1  # its callbacks hold the interpreter's lock: one run at a time
        m._bridge.reset()
    jobs = jobs or os.cpu_count() or 1
    arr, n = _lib.settings(options.items())
    vals = (c_double * len(given))(*given)
    out, err = c_void_p(), _lib.pl_error()

    def work(hooks):
        return lib.pl_sweep_model_with(m._handle, solver.encode(), vals, len(given), arr, n, int(jobs), int(limit),
                                       byref(hooks), byref(out), byref(err))

    try:
        status = _call(work)
    except BaseException:  # cancelled (Ctrl-C, or another exception): nothing returned
        if out.value:
            lib.pl_sweep_destroy(out.value)
        raise
    sw = Sweep._own(out.value, m, solver, options) if out.value else None
    if m._bridge and m._bridge.error is not None:
        # the sweep records each failure and goes on: the message is the first's (the limit solution is
        # solved first; once the model has raised, every later run stops at its start with its message)
        failed = [sw.summary.get("limit", {}).get("error")] if sw and limit else []
        failed += [r.error for r in (sw.runs if sw else []) if r.error] + [err.text()]
        message = next((e for e in failed if e), "the model failed")
        raise m._bridge.error from SolverError(message, _lib.PL_ERR_SOLVER, sweep=sw)
    if status:
        raise _error(status, err.text())
    return sw


class Comparison:
    """Solutions measured against the limit solution: solutions (labels to Solutions), limit, and table
    (one row per solution: its distances sup |q - q_lim|, L1 of v - v_lim, its impacts' largest time
    and velocity errors, its cost)."""

    def __init__(self, limit, solutions, rows):
        self.limit = limit
        self.solutions = solutions
        self._rows = rows

    @property
    def table(self):
        cols = {k: [r[k] for r in self._rows] for k in self._rows[0]} if self._rows else {}
        try:
            import pandas as pd
        except ImportError:
            return {k: np.array(v, dtype=object if k in ("label", "solver", "status") else float)
                    for k, v in cols.items()}
        return pd.DataFrame(cols)

    def write(self, directory):
        """limit/ and solutions/LABEL/ (each as penlim run writes it) and table.csv (this table)."""
        self.limit.write(os.path.join(directory, "limit"))
        for label, s in self.solutions.items():
            s.write(os.path.join(directory, "solutions", label))
        with open(os.path.join(directory, "table.csv"), "w") as f:
            keys = list(self._rows[0]) if self._rows else []
            f.write(",".join(keys) + "\n")
            for r in self._rows:
                f.write(",".join(repr(r[k]) if isinstance(r[k], float) else str(r[k]) for k in keys) + "\n")
        return directory


def _external(m, source, t_end, label="external"):
    """A trajectory computed elsewhere: a CSV file (penlim compare --external's format) or an array whose
    columns are t, q1..qn, v1..vn.  An array is handed to the library as a temporary CSV file: its errors
    ("FILE:LINE:COLUMN: problem") are said of the array, by row and column (0-based, as numpy's)."""
    tmp = None
    if not isinstance(source, (str, os.PathLike)):
        a = np.asarray(source, dtype=float)
        if a.ndim != 2 or a.shape[1] != 1 + 2 * m.n:
            raise InputError(f"an external trajectory as an array has the columns t, q1..q{m.n}, v1..v{m.n} "
                             f"({1 + 2 * m.n}), not the shape {a.shape}", _lib.PL_ERR_INPUT)
        tmp = tempfile.NamedTemporaryFile("w", suffix=".csv", prefix="penlim-external-", delete=False)
        names = ["t"] + [f"q{j + 1}" for j in range(m.n)] + [f"v{j + 1}" for j in range(m.n)]
        tmp.write(",".join(names) + "\n")
        for row in a:
            tmp.write(",".join(repr(float(x)) for x in row) + "\n")
        tmp.close()
        source = tmp.name
    out, err = c_void_p(), _lib.pl_error()
    try:
        status = lib.pl_solution_read_external(m._handle, os.fspath(source).encode(),
                                               math.nan if t_end is None else t_end, byref(out), byref(err))
    finally:
        if tmp:
            os.unlink(tmp.name)
    if status:
        message = err.text()
        if tmp and message.startswith(tmp.name + ":"):
            where, _, problem = message[len(tmp.name) + 1:].partition(": ")
            line, _, col = where.partition(":")
            if line.isdigit() and int(line) >= 2:
                where = f"row {int(line) - 2}" + (f", column {int(col) - 1}" if col.isdigit() else "")
            message = f"{label} (an array): {where}: {problem}"
        raise _error(status, message)
    return Solution._own(out.value, m, "external", {"file": os.fspath(source) if not tmp else "array"})


def compare(case, *, mu=(), schemes=None, external=(), law=None, params=None, t_end=None, **kwargs):
    """The limit solution once, then penalized runs at each mu, each scheme at its h ({name: [h, ...]}),
    and trajectories computed elsewhere (external: arrays t, q, v or CSV paths), each measured against
    it (pl_compare_to_limit).  A solution that fails is recorded with its reason."""
    m = model(case, law=law, params=dict(params or {}, **kwargs)) if not isinstance(case, Model) else case
    common = {} if t_end is None else {"t_end": t_end}
    lim = run(m, "limit", **common)
    items = [(f"penalty_mu_{v:g}", "penalty", {"mu": v}) for v in np.atleast_1d(mu)]
    for name, hs in (schemes or {}).items():
        items += [(f"{name}_h_{h:g}", name, {"h": h}) for h in np.atleast_1d(hs)]
    externals = external if isinstance(external, (list, tuple)) else [external]
    solutions, rows = {}, []
    for label, solver, opts in items + [(f"external_{k + 1}", "external", {}) for k in range(len(externals))]:
        try:
            if solver == "external":
                k = int(label.rsplit("_", 1)[1]) - 1
                s = _external(m, externals[k], t_end, f"external[{k}]")
            else:
                s = run(m, solver, **opts, **common)
        except Exception as e:
            if getattr(e, "solution", None) is None:
                raise
            s = e.solution
        solutions[label] = s
        sup_q, l1_v, te, ve, err = c_double(), c_double(), c_double(), c_double(), _lib.pl_error()
        st = lib.pl_compare_to_limit(m._handle, s._handle, lim._handle, byref(sup_q), byref(l1_v), byref(te),
                                     byref(ve), byref(err))
        ok = st == 0
        rows.append({"label": label, "solver": solver, "param": float(opts.get("mu", opts.get("h", math.nan))),
                     "status": "ok" if s.error is None else "failed",
                     "sup_q": sup_q.value if ok else math.nan, "l1_v": l1_v.value if ok else math.nan,
                     "impact_time_error": te.value if ok else math.nan,
                     "impact_velocity_error": ve.value if ok else math.nan,
                     "steps": float(s.stats["steps"]), "rhs_evals": float(s.stats["rhs_evals"]),
                     "wall_seconds": s.stats["wall_seconds"]})
    return Comparison(lim, solutions, rows)


class Study(_Files):
    """A parameter study (penlim study): runs over the product (or zip) of axes, each measured against
    the limit solution of its own parameters, with the rates along mu (or h) fitted per point.
    table: study.csv; summary: study.json; value(run, name); write(dir): its files."""

    def __init__(self, directory, handle=None, keep=None):
        self._directory = os.fspath(directory)
        self._handle = handle
        self._keep = keep
        if handle:
            self._finalizer = weakref.finalize(self, lib.pl_study_destroy, handle)

    def _dir(self):
        return self._directory

    @property
    def table(self):
        return self._table("study.csv")

    @property
    def summary(self):
        return self._json("study.json")

    @property
    def points(self):
        """Per point of the axes other than the refined one: its values, and the fitted rate (with its
        standard error) and limit of each quantity along mu (or h): study.json's points."""
        nan = lambda x: math.nan if x is None else x  # noqa: E731 (JSON's null)
        return [{"point": p["point"], "values": p["values"], "runs": p["runs"],
                 "rates": {q: (nan(c.get("rate")), nan(c.get("rate_se"))) for q, c in p.get("convergence", {}).items()},
                 "limits": {q: nan(c.get("limit")) for q, c in p.get("convergence", {}).items()}}
                for p in self.summary.get("points", [])]

    @property
    def runs(self):
        """Each run's Solution, read from its directory (runs/NNNNN)."""
        return [Solution._load(os.path.join(self._directory, r["directory"])) for r in self.summary.get("runs", [])]

    @property
    def limit_solutions(self):
        """The limit solution of each distinct set of parameters (limits/NNN), as Solutions."""
        return [Solution._load(os.path.join(self._directory, r["directory"])) if r.get("status") == "ok" else None
                for r in self.summary.get("limits", [])]

    def value(self, k, name):
        """Run k's value of name (a column of study.csv, or a sweep quantity)."""
        if self._handle is None:
            return float(read_columns(os.path.join(self._directory, "study.csv"))[name][k])
        v, err = c_double(), _lib.pl_error()
        st = lib.pl_study_value_get(self._handle, k, name.encode(), byref(v), byref(err))
        if st and not v.value == v.value:
            raise _error(st, err.text())
        return v.value

    def write(self, directory):
        copy_files(self._directory, directory)
        return directory

    def plot(self, quantity, x=None, axes=None):
        """`penlim study`'s line family with matplotlib: quantity (a column of study.csv) against the axis
        x (default the refined one), one line per point of the other axes."""
        from ._plot import plot_study_family
        return plot_study_family(self, quantity, x, axes)

    def __repr__(self):
        return f"penlim.Study({self._directory!r})"


def study(case, axes, *, solver="penalty", law=None, params=None, directory=None, zip=False, jobs=None, **kwargs):
    """penlim study: axes {name: values} (a list, or the program's text "A:B:N", "lin:A:B:N", "a,b,c";
    NAME a parameter of the case or law, mu, h, rtol or t_end), each run measured against its limit
    solution.  Its files go to directory (a temporary one if None, kept while the Study lives)."""
    options, case_params, _ = _split_options(solver, kwargs, True)
    m = case if isinstance(case, Model) else model(case, law=law, params=dict(params or {}, **case_params))
    grids = []
    for name, values in axes.items():
        text = values if isinstance(values, str) else ",".join(repr(float(v)) for v in np.atleast_1d(values))
        grids.append(f"{'t-end' if name == 't_end' else name}={text}".encode())
    grid_arr = (ctypes.c_char_p * len(grids))(*grids)
    sets, ns = _lib.settings([(k, v) for k, v in m.given.items() if k not in axes])
    opts, no = _lib.settings(options.items())
    if m._bridge:
        jobs = 1
    o = _lib.pl_study_options(law=m.law.encode(), solver=solver.encode(), settings=sets, nsettings=ns, options=opts,
                              noptions=no, grids=grid_arr, ngrids=len(grids), zip=int(bool(zip)),
                              jobs=int(jobs or os.cpu_count() or 1), progress=None)
    tmp = None
    if directory is None:
        tmp = tempfile.TemporaryDirectory(prefix="penlim-study-")
        directory = tmp.name
    st, err = c_void_p(), _lib.pl_error()

    def work(hooks):  # the study keeps its options' cancel hook from its creation
        o.cancel, o.user = hooks.cancel, hooks.user
        status = lib.pl_study_create(lib.pl_model_case(m._handle), byref(o), byref(st), byref(err))
        return status or lib.pl_study_run(st.value, os.fspath(directory).encode(), byref(err))

    try:
        status = _call(work)
    finally:
        result = Study(directory, st.value, (tmp, m, grid_arr, sets, opts)) if st.value else None
    if m._bridge and m._bridge.error is not None:
        raise m._bridge.error from _error(status or _lib.PL_ERR_SOLVER, err.text())
    if status:
        raise _error(status, err.text())
    return result


def load(directory):
    """A directory the program wrote (run, limit, sweep, study, or write's), as the object run, sweep or
    study returns."""
    d = os.fspath(directory)
    if os.path.isfile(os.path.join(d, "sweep.json")):
        return Sweep._load(d)
    if os.path.isfile(os.path.join(d, "study.json")):
        return Study(d)
    if os.path.isfile(os.path.join(d, "summary.json")):
        return Solution._load(d)
    raise InputError(f"{d} holds no results penlim wrote (summary.json, sweep.json or study.json)",
                     _lib.PL_ERR_INPUT)
