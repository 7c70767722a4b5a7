"""Sweeps (mu -> infinity, h -> 0), comparisons against the limit solution, parameter studies, and the
program's directories read back."""
import ctypes
import json
import math
import os
import shutil
import tempfile
import weakref
from ctypes import byref, c_char_p, c_double, c_size_t, c_void_p

import numpy as np

from . import _lib
from ._core import (InputError, Model, Solution, SolverError, _call, _error, _model_for, _own, _split_options, lib, model,
                    run)
from ._files import copy_new, copy_results, current_json, read_columns, table

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
        sw.runs = [Solution._load(os.path.join(directory, r["directory"]), (directory, r["directory"]))
                   for r in summary.get("runs", [])]
        for r, info in zip(sw.runs, summary.get("runs", [])):
            if info.get("status") != "ok":
                r.error = info.get("error", "failed")
        sw.model = sw.runs[0].model if sw.runs else None
        sw.options = {}
        lim = os.path.join(directory, "limit")
        sw.limit = Solution._load(lim, (directory, "limit")) if os.path.isfile(os.path.join(lim, "summary.json")) else None
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
            copy_results(self._directory, None, directory)
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


class Comparison(_Files):
    """`penlim compare`: the limit solution once, then each solution (penalized runs, schemes' runs,
    trajectories computed elsewhere) measured against it, and each solver's solutions taken as a family
    refined towards a limit.  limit; solutions ({its directory's name under solutions/: Solution}, in
    the order of the table); table: compare.csv (the limit solution's row first); summary: compare.json;
    families: its verdicts; write(dir): the directory of `penlim compare --no-plots`, manifest.json
    included (the library's writer)."""

    def __init__(self):
        self._handle = None
        self._directory = None
        self._tmp = None

    @classmethod
    def _own(cls, handle, m, options=None):
        c = cls()
        c._handle = handle
        c._finalizer = _own(c, "comparison", lib.pl_compare_destroy, handle)
        c.model = m
        err = _lib.pl_error()
        status = lib.pl_compare_limit_status(handle, byref(err))
        c.limit = Solution(lib.pl_compare_limit(handle), m, "limit", {}, owner=c, error=err.text() if status else None)
        names = [os.path.basename(d) for d in c.summary_rows("directory")]
        c.solutions = {}
        solver, value, sol, err = c_char_p(), c_double(), c_void_p(), _lib.pl_error()
        for k in range(lib.pl_compare_size(handle)):
            status = lib.pl_compare_item(handle, k, byref(solver), byref(value), byref(sol), byref(err))
            name = solver.value.decode()
            opts = {} if name == "external" else dict(options or {}, **{"mu" if name == "penalty" else "h": value.value})
            c.solutions[names[k]] = Solution(sol.value, m, name, opts, owner=c, error=err.text() if status else None)
        return c

    @classmethod
    def _load(cls, directory):
        c = cls()
        c._directory = os.fspath(directory)
        c.limit = Solution._load(os.path.join(c._directory, "limit"), (c._directory, "limit"))
        c.model = c.limit.model
        c.solutions = {}
        for info in c.summary.get("solutions", []):
            s = Solution._load(os.path.join(c._directory, info["directory"]), (c._directory, info["directory"]))
            if info.get("status") != "ok":
                s.error = info.get("error", "failed")
            c.solutions[os.path.basename(info["directory"])] = s
        return c

    def summary_rows(self, name):
        """A column of compare.csv for the solutions (the limit solution's row left out)."""
        col = read_columns(os.path.join(self._dir(), "compare.csv"))[name]
        return list(col[1:])

    def _dir(self):
        if self._directory is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="penlim-compare-")
            self._write_library(os.path.join(self._tmp.name, "compare"))
            self._directory = os.path.join(self._tmp.name, "compare")
        return self._directory

    def _write_library(self, directory):
        err = _lib.pl_error()
        status = lib.pl_compare_write(self.model._handle, self._handle, os.fspath(directory).encode(), byref(err))
        if status:
            raise _error(status, err.text())

    @property
    def table(self):
        """compare.csv: the limit solution's row, then one per solution (its distances to the limit
        solution, impacts matched, capture and lift-off errors, cost)."""
        return self._table("compare.csv")

    @property
    def summary(self):
        """compare.json, as a dict."""
        return self._json("compare.json")

    @property
    def families(self):
        """Each solver's verdict (converges to the limit solution, to another limit, or not at all) with
        its reason: compare.json's families."""
        return self.summary.get("families", [])

    def write(self, directory):
        """The directory `penlim compare --no-plots --out directory` writes, manifest.json included:
        `penlim plot directory` draws its figures."""
        if self._handle is None:
            copy_results(self._directory, None, directory)
        else:
            self._write_library(directory)
        return directory

    def __repr__(self):
        return f"penlim.Comparison({len(self.solutions)} solutions)"


def _external_file(m, source, where, k):
    """An external trajectory as a file the library reads: a path as it is, or an array (columns t,
    q1..qn, v1..vn) written into the directory where as external_K.csv."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    a = np.asarray(source, dtype=float)
    if a.ndim != 2 or a.shape[1] != 1 + 2 * m.n:
        raise InputError(f"an external trajectory as an array has the columns t, q1..q{m.n}, v1..v{m.n} "
                         f"({1 + 2 * m.n}), not the shape {a.shape}", _lib.PL_ERR_INPUT)
    path = os.path.join(where, f"external_{k + 1}.csv")
    names = ["t"] + [f"q{j + 1}" for j in range(m.n)] + [f"v{j + 1}" for j in range(m.n)]
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for row in a:
            f.write(",".join(repr(float(x)) for x in row) + "\n")
    return path


def _array_message(message, arrays):
    """The library's "FILE:LINE:COLUMN: problem" said of the array it came from, by row and column
    (0-based, numpy's)."""
    for k, path in arrays.items():
        if message.startswith(path + ":"):
            where, _, problem = message[len(path) + 1:].partition(": ")
            line, _, col = where.partition(":")
            if line.isdigit() and int(line) >= 2:
                where = f"row {int(line) - 2}" + (f", column {int(col) - 1}" if col.isdigit() else "")
            return f"external[{k}] (an array): {where}: {problem}"
    return message


def compare(case, *, mu=(), schemes=None, external=(), work_precision=False, law=None, params=None, **kwargs):
    """`penlim compare`: the limit solution once, then penalized runs at each mu, each scheme at its h
    ({name: [h, ...]}, or {name: None} for its default h), and trajectories computed elsewhere (external:
    arrays t, q, v or CSV paths), each measured against it, and each solver's family assessed.  Without
    solutions, the command's default set; work_precision: each family refined instead.  Options
    (t_end, rtol, max_seconds, ...) as for run.  A solution that fails is recorded with its reason."""
    options, case_params, option_names = _split_options("penalty", kwargs, not isinstance(case, Model))
    m = _model_for(case, law, dict(params or {}, **case_params), option_names, "penalty")
    if m._bridge:
        m._bridge.reset()
    externals = external if isinstance(external, (list, tuple)) else [external]
    specs = [(_lib.PL_COMPARE_MU, float(v), None) for v in np.atleast_1d(mu)] if len(np.atleast_1d(mu)) else []
    if schemes is not None and not isinstance(schemes, dict):
        raise InputError(f"schemes is a dict {{name: [h, ...] or None}} (got {type(schemes).__name__} {schemes!r})",
                         _lib.PL_ERR_INPUT)
    for name, hs in (schemes or {}).items():
        specs.append((_lib.PL_COMPARE_SCHEME, math.nan, name))
        try:
            specs += [(_lib.PL_COMPARE_H, float(h), None) for h in (np.atleast_1d(hs) if hs is not None else [])]
        except (TypeError, ValueError):
            raise InputError(f"schemes[{name!r}]: the time steps are numbers (got {hs!r})", _lib.PL_ERR_INPUT) from None
    with tempfile.TemporaryDirectory(prefix="penlim-external-") as where:
        arrays, paths = {}, []
        for k, source in enumerate(externals):
            paths.append(_external_file(m, source, where, k))
            if not isinstance(source, (str, os.PathLike)):
                arrays[k] = paths[-1]
        specs += [(_lib.PL_COMPARE_EXTERNAL, math.nan, p) for p in paths]
        names = [None if n is None else os.fsencode(n) for _, _, n in specs]
        arr = (_lib.pl_compare_spec * max(len(specs), 1))()
        for j, (kind, value, _) in enumerate(specs):
            arr[j].kind, arr[j].value, arr[j].name = kind, value, names[j]
        opts, no = _lib.settings(options.items())
        o = _lib.pl_compare_options(specs=arr, nspecs=len(specs), work_precision=int(bool(work_precision)),
                                    options=opts, noptions=no, progress=None)
        out, err = c_void_p(), _lib.pl_error()

        def work(hooks):
            o.cancel, o.user = hooks.cancel, hooks.user
            return lib.pl_compare_model(m._handle, byref(o), byref(out), byref(err))

        try:
            status = _call(work)
        except BaseException:
            if out.value:
                lib.pl_compare_destroy(out.value)
            raise
        c = Comparison._own(out.value, m, options) if out.value else None
        if c is not None:
            c._dir()  # its files while the arrays' files exist (compare.json names them)
    if m._bridge and m._bridge.error is not None:
        raise m._bridge.error from SolverError(err.text() or "the model failed", _lib.PL_ERR_SOLVER)
    if status and c is not None:  # the limit solution failed (or cancelled): the comparison goes with the error
        e = _error(status, err.text())
        e.comparison = c
        raise e
    if status:
        raise _error(status, _array_message(err.text(), arrays))
    return c


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
        return [Solution._load(os.path.join(self._directory, r["directory"]), (self._directory, r["directory"])) for r in self.summary.get("runs", [])]

    @property
    def limit_solutions(self):
        """The limit solution of each distinct set of parameters (limits/NNN), as Solutions."""
        return [Solution._load(os.path.join(self._directory, r["directory"]), (self._directory, r["directory"])) if r.get("status") == "ok" else None
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
        """The directory `penlim study --no-plots --out directory` writes, manifest.json included (the
        study's own, which pl_study_run wrote as the command does), copied through the library's writer
        (pl_results_copy): `penlim plot directory` draws its figures.  A study stopped before its
        manifest was written is copied into a new or empty directory only."""
        if os.path.exists(directory) and os.path.samefile(directory, self._directory):
            return directory
        if os.path.isfile(os.path.join(self._directory, "manifest.json")):
            copy_results(self._directory, None, directory)
        else:
            copy_new(self._directory, directory)
        return directory

    def plot(self, quantity=None, x=None, axes=None, figure="family", map_axes=None):
        """A figure of `penlim study` with matplotlib.  figure="family": quantity (a column of study.csv)
        against the axis x (default the refined one), one line per point of the other axes.
        figure="map": quantity (default restitution_first, as --map) over map_axes (default the first two
        axes with more than one value, as --map-axes), the other axes held at one value each (the
        refined one at its finest)."""
        from ._plot import plot_study_family, plot_study_map
        if figure == "map":
            return plot_study_map(self, quantity, map_axes, axes)
        if figure != "family":
            raise InputError(f"unknown figure {figure!r} of a study (family, map)", _lib.PL_ERR_INPUT)
        if quantity is None:
            raise InputError("the family figure needs a quantity (a column of study.csv)", _lib.PL_ERR_INPUT)
        return plot_study_family(self, quantity, x, axes)

    def __repr__(self):
        return f"penlim.Study({self._directory!r})"


def study(case, axes, *, solver="penalty", law=None, params=None, directory=None, zip=False, jobs=None, **kwargs):
    """penlim study: axes {name: values} (a list, or the program's text "A:B:N", "lin:A:B:N", "a,b,c";
    NAME a parameter of the case or law, mu, h, rtol or t_end), each run measured against its limit
    solution.  Its files go to directory (a temporary one if None, kept while the Study lives), with
    manifest.json as `penlim study --no-plots` writes them: a directory holding files penlim did not
    write is refused."""
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
    if os.path.isfile(os.path.join(d, "compare.json")):
        return Comparison._load(d)
    if os.path.isfile(os.path.join(d, "study.json")):
        return Study(d)
    if os.path.isfile(os.path.join(d, "summary.json")):
        return Solution._load(d)
    raise InputError(f"{d} holds no results penlim wrote (summary.json, sweep.json, compare.json or study.json)",
                     _lib.PL_ERR_INPUT)
