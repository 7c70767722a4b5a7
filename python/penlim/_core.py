"""Cases, laws, solvers, models, solutions and errors over the C library (include/penlim/*.h)."""
import ctypes
import functools
import json
import math
import os
import queue
import signal
import tempfile
import threading
import weakref
from ctypes import byref, c_char_p, c_double, c_long, c_size_t, c_void_p
from dataclasses import dataclass, field

import numpy as np

from . import _lib
from ._lib import lib

# ---- errors ---------------------------------------------------------------------------------------


class Error(Exception):
    """A failure the library reported: its status and one-line message."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status
        self.message = message


class InputError(Error, ValueError):
    """Bad input (the program's exit status 2): an unknown name, a value out of range, an invalid model."""


class SolverError(Error, RuntimeError):
    """A solver failed; `solution` holds the run up to the failure (None when there is none), `sweep` a
    sweep's runs, the failed ones with their reasons (a sweep of a model written in Python that raised),
    `comparison` a comparison whose limit solution failed (its files can still be written)."""

    def __init__(self, message, status=None, solution=None, sweep=None, comparison=None):
        super().__init__(message, status)
        self.solution = solution
        self.sweep = sweep
        self.comparison = comparison


class OutputError(Error, OSError):
    """A file could not be written or read."""


def _error(status, message, solution=None):
    if status == _lib.PL_ERR_INPUT:
        return InputError(message, status)
    if status == _lib.PL_ERR_SOLVER:
        return SolverError(message, status, solution)
    if status == _lib.PL_ERR_IO:
        return OutputError(message, status)
    if status == _lib.PL_ERR_NOMEM:
        return MemoryError(message)
    return Error(message, status)


# ---- handles --------------------------------------------------------------------------------------

# The handles of the library this package holds, by kind: each is freed when its Python object is
# collected (weakref.finalize), and counted here, not in the library (which has no global state).
_live = {"model": 0, "solution": 0, "sweep": 0, "comparison": 0}
_live_lock = threading.Lock()


def _release(kind, destroy, handle):
    destroy(handle)
    with _live_lock:
        _live[kind] -= 1


def _own(obj, kind, destroy, handle):
    with _live_lock:
        _live[kind] += 1
    return weakref.finalize(obj, _release, kind, destroy, handle)


def live_handles():
    """The library's models, solutions and sweeps this process holds through the package, by kind."""
    with _live_lock:
        return dict(_live)


# ---- the registry: cases, laws, solvers --------------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """A parameter of a case or a law, or an option of a solver: its default (NAN: computed from the
    others unless set), its range and what it means."""
    name: str
    default: float
    min: float
    max: float
    min_open: bool = False
    max_open: bool = False
    derived: bool = False
    description: str = ""

    @staticmethod
    def _from_spec(s):
        return Parameter(s.name.decode(), s.value, s.min, s.max, bool(s.flags & _lib.PL_PARAM_MIN_OPEN),
                         bool(s.flags & _lib.PL_PARAM_MAX_OPEN), bool(s.flags & _lib.PL_PARAM_DERIVED),
                         (s.description or b"").decode())


@dataclass(frozen=True)
class CaseInfo:
    name: str
    summary: str
    ndof: int
    ncon: int
    t_end: float
    parameters: dict
    law_defaults: dict = field(default_factory=dict)  # the case's defaults for its contact law's parameters


@dataclass(frozen=True)
class LawInfo:
    name: str
    summary: str
    parameters: dict


@dataclass(frozen=True)
class SolverInfo:
    name: str
    summary: str
    options: dict


def _case_info(c):
    params, law = {}, {}
    for k in range(c.nparams):
        s = c.params[k]
        p = Parameter._from_spec(s)
        (law if s.flags & _lib.PL_PARAM_LAW else params)[p.name] = p
    return CaseInfo(c.name.decode(), (c.summary or b"").decode(), c.ndof, c.ncon, c.t_end, params, law)


# The registry is fixed for the library's life: read once.
@functools.lru_cache(maxsize=None)
def _cases():
    return {i.name: i for i in (_case_info(lib.pl_builtin_case_at(k).contents)
                                for k in range(lib.pl_builtin_case_count()))}


def cases():
    """The built-in cases, {name: CaseInfo} (penlim cases): sizes (0 where the parameters set them),
    default end time, parameters."""
    return dict(_cases())


def laws():
    """The contact laws, {name: LawInfo} (penlim laws)."""
    return dict(_laws())


@functools.lru_cache(maxsize=None)
def _laws():
    out = {}
    for k in range(lib.pl_law_count()):
        specs = ctypes.POINTER(_lib.pl_param_spec)()
        n = lib.pl_law_parameters(k, byref(specs))
        name = lib.pl_law_name(k).decode()
        out[name] = LawInfo(name, (lib.pl_law_summary(k) or b"").decode(),
                            {p.name: p for p in (Parameter._from_spec(specs[j]) for j in range(n))})
    return out


# What every solver takes (include/penlim/solve.h), besides its own options.
COMMON_OPTIONS = ("t_end", "samples", "max_steps", "max_seconds", "max_output", "sparse_contacts")


def solvers():
    """The solvers, {name: SolverInfo} with their own options; every solver also takes COMMON_OPTIONS."""
    return dict(_solvers())


@functools.lru_cache(maxsize=None)
def _solvers():
    out = {}
    for k in range(lib.pl_solver_count()):
        specs = ctypes.POINTER(_lib.pl_param_spec)()
        n = lib.pl_solver_options(k, byref(specs))
        name = lib.pl_solver_name(k).decode()
        out[name] = SolverInfo(name, (lib.pl_solver_summary(k) or b"").decode(),
                               {p.name: p for p in (Parameter._from_spec(specs[j]) for j in range(n))})
    return out


# ---- models -------------------------------------------------------------------------------------


class Model:
    """A case with its parameters fixed and its contact law (penlim.model): immutable."""

    def __init__(self, handle, source, bridge=None, keep=(), given=None):
        self._handle = handle
        self.given = dict(given or {})  # the parameters the caller set (the others: the case's defaults)
        self._bridge = bridge  # a model written in Python (its callbacks and their error)
        self._keep = keep      # what the library points into: the case and its tables
        self._finalizer = _own(self, "model", lib.pl_model_destroy, handle)
        c = lib.pl_model_case(handle).contents
        self.source = source
        self.case = c.name.decode()
        self.n = lib.pl_model_dof(handle)
        self.m = lib.pl_model_constraints(handle)
        self.law = lib.pl_model_law(handle).decode()
        info = _case_info(c)
        self.parameters = {name: lib.pl_model_parameter(handle, name.encode()) for name in info.parameters}
        self.law_parameters = {name: lib.pl_model_law_parameter(handle, name.encode())
                               for name in _laws()[self.law].parameters}

    def __repr__(self):
        return f"penlim.Model({self.case!r}, law={self.law!r}, n={self.n}, m={self.m})"

    def accepted(self):
        return sorted(self.parameters) + sorted(self.law_parameters)


def _is_python_model(obj):
    return hasattr(obj, "force") and hasattr(obj, "gap") and not isinstance(obj, (str, bytes, os.PathLike))


def _accepted_parameters(case_params, law_name):
    law_name = law_name or "kelvin_voigt"
    all_laws = _laws()
    if law_name not in all_laws:
        raise InputError(f"unknown contact law {law_name!r} (penlim.laws(): {', '.join(all_laws)})",
                         _lib.PL_ERR_INPUT)
    return list(case_params) + [p for p in all_laws[law_name].parameters if p not in case_params]


def _check_names(given, accepted, what):
    for name in given:
        if name not in accepted:
            raise InputError(f"unknown parameter {name!r} for {what}; it accepts: {', '.join(accepted)}",
                             _lib.PL_ERR_INPUT)


def _create(create, what, pairs, bridge=None):
    arr, n = _lib.settings(pairs)
    err = _lib.pl_error()
    if bridge:
        bridge.reset()
    handle = create(arr, n, byref(err))
    if bridge and bridge.error is not None:
        if handle:
            lib.pl_model_destroy(handle)
        raise bridge.error from _error(_lib.PL_ERR_INPUT, err.text() or "the model failed")
    if not handle:
        raise _error(err.status, err.text())
    return handle


def model(case, law=None, params=None, **kwargs):
    """A model: a built-in case by name, a model compiled apart (a path to its .so), or a model written
    in Python (an object with force and gap methods, penlim.PythonModel), with parameters of the case
    and of its contact law set by keyword (or in params, for names that are Python keywords)."""
    given = dict(params or {}, **kwargs)
    if isinstance(case, Model):
        if given or law:
            raise InputError("a penlim.Model has its parameters and law fixed: give the case instead",
                             _lib.PL_ERR_INPUT)
        return case
    law_b = law.encode() if law else None
    if _is_python_model(case):
        from ._python_model import Bridge
        bridge = Bridge(case)
        _check_names(given, _accepted_parameters(bridge.parameter_names, law), f"model {bridge.name}")
        handle = _create(lambda a, n, e: lib.pl_model_create_law(byref(bridge.case), law_b, a, n, e),
                         bridge.name, given.items(), bridge)
        return Model(handle, case, bridge, (bridge,), given)
    path = os.fspath(case)
    if path.endswith(".so") or "/" in path:
        path = os.path.abspath(path)
        handle = _create(lambda a, n, e: lib.pl_model_load(path.encode(), law_b, a, n, e), path, given.items())
        return Model(handle, path, given=given)
    c = lib.pl_builtin_case_find(path.encode())
    if not c:
        raise InputError(f"unknown case {path!r} (penlim.cases(): {', '.join(cases())})", _lib.PL_ERR_INPUT)
    info = _case_info(c.contents)
    _check_names(given, _accepted_parameters(info.parameters, law), f"case {path}")
    handle = _create(lambda a, n, e: lib.pl_model_create_law(c, law_b, a, n, e), path, given.items())
    return Model(handle, path, given=given)


# ---- cancelling: KeyboardInterrupt ----------------------------------------------------------------


class _Cancel:
    """The library's cancel hook (pl_solve_hooks): the library's own pl_cancel_when_set reads an int
    that a SIGINT (Ctrl-C) handler sets, and the call then raises KeyboardInterrupt.  The hook runs no
    Python (it would take the interpreter lock at every step); a Python signal handler runs in the main
    thread between bytecodes, which a foreign call does not execute: a call from the main thread is
    therefore made in a helper thread while the main thread waits in Python."""

    def __init__(self):
        self.flag = ctypes.c_int(0)
        hook = _lib.CANCEL(ctypes.cast(lib.pl_cancel_when_set, c_void_p).value)
        self.hooks = _lib.pl_solve_hooks(hook, ctypes.addressof(self.flag))
        self.previous = None
        self.installed = False

    def _handler(self, signum, frame):
        self.flag.value = 1

    def __enter__(self):
        # Only over a Python handler (KeyboardInterrupt's, or the program's own): a process that ignores
        # SIGINT (SIG_IGN: nohup, a background job) or left it to the system (SIG_DFL) keeps its choice.
        if threading.current_thread() is threading.main_thread() and \
                callable(signal.getsignal(signal.SIGINT)):
            try:
                self.previous = signal.signal(signal.SIGINT, self._handler)
                self.installed = True
            except ValueError:  # not the main interpreter
                pass
        return self

    def __exit__(self, *exc):
        if self.installed:
            signal.signal(signal.SIGINT, self.previous)
        if self.flag.value and exc[0] is None:
            if callable(self.previous) and self.previous is not signal.default_int_handler:
                self.previous(signal.SIGINT, None)
            raise KeyboardInterrupt
        return False


class _Worker:
    """The thread that makes the calls of the main thread (one at a time: the main thread waits for
    each), kept for the process's life: starting a thread per call cost 250 us."""

    def __init__(self):
        self.jobs = queue.SimpleQueue()
        self.thread = None

    def _loop(self):
        while True:
            function, hooks, box, done = self.jobs.get()
            try:
                box["result"] = function(hooks)
            except BaseException as e:  # re-raised in the caller's thread
                box["error"] = e
            done.set()

    def call(self, function, cancel):
        if self.thread is None or not self.thread.is_alive():  # first call, or after a fork
            self.jobs = queue.SimpleQueue()
            self.thread = threading.Thread(target=self._loop, name="penlim", daemon=True)
            self.thread.start()
        box, done = {}, threading.Event()
        self.jobs.put((function, cancel.hooks, box, done))
        try:
            while not done.wait(0.05):  # the signal handler runs between the waits
                pass
        except BaseException:
            # An exception raised in this thread while it waits (a signal handler's: a timeout's
            # SIGALRM): the call is cancelled and waited for, so that the caller frees what it made and
            # the next call does not wait behind it; then the exception goes on.
            cancel.flag.value = 1
            while True:
                try:
                    done.wait()
                    break
                except BaseException:  # another one while stopping: the first is raised
                    continue
            raise
        if "error" in box:
            raise box["error"]
        return box["result"]


_worker = _Worker()


def _call(function):
    """function(hooks) under a cancel hook: its result; KeyboardInterrupt once the call has stopped."""
    with _Cancel() as cancel:
        if not cancel.installed:
            return function(cancel.hooks)
        return _worker.call(function, cancel)


# ---- solving ------------------------------------------------------------------------------------


def _split_options(solver, kwargs, model_params_ok):
    infos = _solvers()
    if solver not in infos:
        raise InputError(f"unknown solver {solver!r} (penlim.solvers(): {', '.join(infos)})", _lib.PL_ERR_INPUT)
    option_names = list(COMMON_OPTIONS) + list(infos[solver].options)
    options, params = {}, {}
    for name, value in kwargs.items():
        if value is None:
            continue
        (options if name in option_names else params)[name] = value
    if params and not model_params_ok:
        raise InputError(f"unknown option {next(iter(params))!r} for the {solver} solver on a penlim.Model (whose "
                         f"parameters are fixed); the solver accepts: {', '.join(option_names)}", _lib.PL_ERR_INPUT)
    return options, params, option_names


def _model_for(case, law, params, option_names, solver):
    if isinstance(case, Model):
        return case
    try:
        return model(case, law=law, params=params)
    except InputError as e:
        if "unknown parameter" in str(e):
            raise InputError(f"{e}; the {solver} solver's options: {', '.join(option_names)}", e.status) from None
        raise


def run(case, solver="penalty", *, law=None, params=None, **kwargs):
    """Solve a case (a name, a .so path, a Python model or a penlim.Model) with any solver: "penalty"
    (option mu), "limit", or a scheme "moreau_jean", "paoli", "maury" (option h); options and the
    settings every solver takes (t_end, samples, max_steps, max_seconds, max_output, sparse_contacts)
    by keyword, the case's and law's parameters too (or in params).  Returns a Solution; a solver
    failure raises SolverError carrying the partial solution."""
    options, case_params, option_names = _split_options(solver, kwargs, not isinstance(case, Model))
    m = _model_for(case, law, dict(params or {}, **case_params), option_names, solver)
    if isinstance(case, Model) and params:
        raise InputError("a penlim.Model has its parameters fixed: give the case instead", _lib.PL_ERR_INPUT)
    arr, n = _lib.settings(options.items())
    out = c_void_p()
    err = _lib.pl_error()
    bridge = m._bridge
    if bridge:
        bridge.reset()

    def solve(hooks):
        return lib.pl_solve_model_with(m._handle, solver.encode(), arr, n, byref(hooks), byref(out), byref(err))

    try:
        status = _call(solve)
    except BaseException:  # cancelled (Ctrl-C, or another exception): the run up to there is not returned
        if out.value:
            lib.pl_solution_destroy(out.value)
        raise
    sol = Solution._own(out.value, m, solver, options, err.text() if status else None) if out.value else None
    if bridge and bridge.error is not None:
        raise bridge.error from _error(status or _lib.PL_ERR_SOLVER, err.text(), sol)
    if status != _lib.PL_OK:
        raise _error(status, err.text(), sol)
    return sol


def limit(case, *, law=None, params=None, **kwargs):
    """The limit solution mu -> infinity (run(case, "limit", ...))."""
    return run(case, "limit", law=law, params=params, **kwargs)


class Solution:
    """A solution: the trajectory as numpy arrays (copied once from the library), its columns, events,
    episodes, analysis (the program's summary.json), work, and the files of `penlim run`."""

    def __init__(self, handle, model, solver, options, owner=None, error=None):
        self._handle = handle
        self._owner = owner  # a sweep whose solution this is (it frees it), else None
        self._directory = None  # a solution read back (penlim.load): its files
        self._within = None  # read back from a sweep or comparison: (its directory, this one's in it)
        self.model = model
        self.solver = solver
        self.options = dict(options)
        self.error = error  # why it failed (its message), None if it did not
        if handle is None:
            return
        rows, cols = lib.pl_solution_rows(handle), lib.pl_solution_columns(handle)
        table = np.empty((rows, cols))
        if rows:
            ctypes.memmove(table.ctypes.data, lib.pl_solution_row(handle, 0), table.nbytes)
        table.setflags(write=False)
        self.table = table
        buf = ctypes.create_string_buffer(256)
        self.columns = []
        for k in range(cols):
            lib.pl_solution_column_name(handle, k, buf, len(buf))
            self.columns.append(buf.value.decode())
        n, m = model.n, model.m
        self.sparse_contacts = bool(lib.pl_solution_sparse_contacts(handle))
        self.t, self.gamma = table[:, 0], table[:, 1]
        self.q, self.v = table[:, 2:2 + n], table[:, 2 + n:2 + 2 * n]
        if self.sparse_contacts:
            self.G = self.force = None
        else:
            self.G, self.force = table[:, 2 + 2 * n:2 + 2 * n + m], table[:, 2 + 2 * n + m:2 + 2 * n + 2 * m]
        qv = (c_double * (2 * n))()
        t_final = lib.pl_solution_final(handle, qv)
        self.final = {"t": t_final, "q": np.array(qv[:n]), "v": np.array(qv[n:])}
        self.events = []
        kind, te, con = c_char_p(), c_double(), c_size_t()
        vb, va = (c_double * n)(), (c_double * n)()
        for k in range(lib.pl_solution_events(handle)):
            lib.pl_solution_event(handle, k, byref(kind), byref(te), byref(con), vb, va)
            self.events.append({"kind": kind.value.decode(), "t": te.value, "constraint": con.value,
                                "v_before": np.array(vb[:]), "v_after": np.array(va[:])})
        self.episodes = []
        t_in, t_out, e = c_double(), c_double(), c_double()
        for k in range(lib.pl_solution_episodes(handle)):
            lib.pl_solution_episode(handle, k, byref(con), byref(t_in), byref(t_out), byref(e))
            self.episodes.append({"constraint": con.value, "t_in": t_in.value, "t_out": t_out.value,
                                  "restitution": e.value})
        steps, rhs, secs = c_long(), c_long(), c_double()
        lib.pl_solution_work(handle, byref(steps), byref(rhs), byref(secs))
        self.stats = {"steps": steps.value, "rhs_evals": rhs.value, "wall_seconds": secs.value}
        self._summary = None

    @classmethod
    def _own(cls, handle, model, solver, options, error=None):
        sol = cls(handle, model, solver, options, error=error)
        sol._finalizer = _own(sol, "solution", lib.pl_solution_destroy, handle)
        return sol

    @classmethod
    def _load(cls, directory, within=None):
        """A solution the program (or write) wrote into directory: trajectory.csv and summary.json;
        within: (the results directory, the solution's directory in it) for one of a sweep's or
        comparison's."""
        from ._files import read_table, model_of_summary
        with open(os.path.join(directory, "summary.json")) as f:
            summary = json.load(f)
        solver = summary.get("solution")
        options = {k: summary[k] for k in ("mu", "h", "rtol", "theta", "gamma", "t_end") if k in summary}
        sol = cls(None, model_of_summary(summary), solver, options, error=summary.get("error"))
        sol._directory = os.fspath(directory)
        sol._within = (os.fspath(within[0]), within[1]) if within else None
        sol._summary = summary
        names, table = read_table(os.path.join(directory, "trajectory.csv"))
        table.setflags(write=False)
        sol.table, sol.columns = table, names
        n = sum(1 for c in names if c.startswith("q") and c[1:].isdigit())
        m = sum(1 for c in names if c.startswith("G") and c[1:].isdigit())
        sol.sparse_contacts = summary.get("contacts") == "sparse"
        sol.t, sol.gamma = table[:, 0], table[:, 1]
        sol.q, sol.v = table[:, 2:2 + n], table[:, 2 + n:2 + 2 * n]
        sol.G = table[:, 2 + 2 * n:2 + 2 * n + m] if m else None
        sol.force = table[:, 2 + 2 * n + m:2 + 2 * n + 2 * m] if m else None
        fin = summary.get("final", {})
        sol.final = {"t": fin.get("t"), "q": np.array(fin.get("q", []), dtype=float),
                     "v": np.array(fin.get("v", []), dtype=float)}
        nan = lambda x: math.nan if x is None else x  # noqa: E731 (JSON's null)
        sol.events = [{"kind": e["kind"], "t": e["t"], "constraint": e["constraint"] - 1,
                       "v_before": np.array(e.get("v_before", []), dtype=float),
                       "v_after": np.array(e.get("v_after", []), dtype=float)} for e in summary.get("events", [])]
        sol.episodes = [{"constraint": e["constraint"] - 1, "t_in": nan(e["t_in"]), "t_out": nan(e.get("t_out")),
                         "restitution": nan(e.get("restitution"))} for e in summary.get("episodes", [])]
        st = summary.get("stats", {})
        sol.stats = {"steps": st.get("steps"), "rhs_evals": st.get("rhs_evals"), "wall_seconds": st.get("wall_seconds")}
        return sol

    def __repr__(self):
        return (f"penlim.Solution({self.model.case!r}, solver={self.solver!r}, rows={len(self.t)}, "
                f"t_final={self.final['t']:.6g})")

    @property
    def contacts(self):
        """The constraints in contact at each row, in either storage: arrays row, constraint, G, force."""
        if self._handle is None:
            from ._files import read_contacts
            return read_contacts(self)
        rows, cons, gs, fs = [], [], [], []
        m = self.model.m
        idx, g, f = (c_size_t * m)(), (c_double * m)(), (c_double * m)()
        for r in range(len(self.t)):
            k = lib.pl_solution_contacts(self._handle, r, m, idx, g, f)
            rows += [r] * k
            cons += idx[:k]
            gs += g[:k]
            fs += f[:k]
        return {"row": np.array(rows, dtype=int), "constraint": np.array(cons, dtype=int), "G": np.array(gs),
                "force": np.array(fs)}

    def write(self, directory):
        """Write trajectory.csv, trajectory_s.csv, summary.json (and contacts.csv) and manifest.json into
        directory, the bytes `penlim run` (`penlim limit`) writes for the same solve (but the wall_seconds
        each took, and the manifest's hashes of the files that hold them)."""
        if self._handle is None:  # read back: its files as they are, through the library's writer
            from ._files import copy_results
            root, sub = self._within or (self._directory, None)
            copy_results(root, sub, directory)
            return directory
        err = _lib.pl_error()
        infos = _solvers()
        own = infos[self.solver].options if self.solver in infos else {}
        recorded = {k: v for k, v in self.options.items() if k in COMMON_OPTIONS or k in own}
        arr, n = _lib.settings(recorded.items())
        status = lib.pl_solution_write_run(self.model._handle, self._handle, arr, n, os.fspath(directory).encode(),
                                           byref(err))
        if status != _lib.PL_OK:
            raise _error(status, err.text())
        return directory

    @property
    def summary(self):
        """The program's summary.json of this solution, as a dict."""
        if self._summary is None:
            with tempfile.TemporaryDirectory(prefix="penlim-") as d:
                self.write(d)
                with open(os.path.join(d, "summary.json")) as f:
                    self._summary = json.load(f)
        return self._summary

    @property
    def analysis(self):
        """The limit objects the analysis found (first impact time, restitution, capture time, ...):
        summary.json's "analysis"."""
        return self.summary.get("analysis", {})

    @property
    def status(self):
        """"ok", or "failed" (the reason in error)."""
        return "ok" if self.error is None else "failed"

    def to_pandas(self):
        """The trajectory as a pandas DataFrame with the file's column names (pandas required)."""
        import pandas as pd
        return pd.DataFrame(self.table, columns=self.columns)

    def plot(self, axes=None):
        """The panels of `penlim plot` (q, v and G, the forces against t) with matplotlib."""
        from ._plot import plot_solution
        return plot_solution(self, axes)
