"""A model written in Python, bridged to the library through a pl_case built at run time whose callbacks
call the model's methods.

A C callback returns no status: a method that raises has its exception stored (the first one), its
outputs filled with NAN, and the case's error channel (pl_case.failed) reports it, so that the solver
stops at its next step; the package then raises the stored exception."""
import ctypes
import math

import numpy as np

from . import _lib


class PythonModel:
    """A base class for models written in Python (any object with these attributes works).

    Attributes: name, summary, ndof, ncon, t_end, parameters ({name: default} or {name: Parameter}).
    Methods (p is the dict of the parameters' values, arrays are numpy arrays):
      initial_state(p) -> (q, v)
      force(t, q, v, p) -> f                  f of M(q) v' = f, the velocity-dependent terms included
      gap(i, t, q, p) -> G_i                  constraint i (0-based), >= 0 admissible
      scales(p) -> (V, A)                     a contact speed and a bound on the free acceleration
    Optional:
      mass(q, p) -> M                          (n, n), symmetric positive definite; constant in q
      force_derivatives(t, q, v, p) -> (f_q, f_v)     both (n, n)
      gap_derivatives(i, t, q, p) -> (grad, hess)     (n,) and (n, n)
    Without both derivatives methods penlim takes difference quotients, as for a C model without them
    (PL_DERIVATIVES_NONE)."""
    name = "python_model"
    summary = "a model written in Python"
    ndof = 1
    ncon = 1
    t_end = 1.0
    parameters = {}


class Bridge:
    def __init__(self, obj):
        from ._core import Parameter  # the package's parameter type
        self.obj = obj
        self.error = None
        self.name = str(getattr(obj, "name", type(obj).__name__))
        self.n = int(getattr(obj, "ndof", 1))
        self.m = int(getattr(obj, "ncon", 1))
        for method in ("initial_state", "force", "gap", "scales"):
            if not callable(getattr(obj, method, None)):
                raise _input_error(f"model {self.name}: no {method} method (penlim.PythonModel lists what a "
                                   f"model gives)")
        self._vec = ctypes.c_double * self.n
        self._mat = ctypes.c_double * (self.n * self.n)
        params = getattr(obj, "parameters", {}) or {}
        self.parameter_names = list(params)
        specs = (_lib.pl_param_spec * max(1, len(params)))()
        self._strings = []
        for k, (pname, value) in enumerate(params.items()):
            if isinstance(value, Parameter):
                lo, hi, default, desc = value.min, value.max, value.default, value.description
            else:
                lo, hi, default, desc = -math.inf, math.inf, float(value), ""
            b, d = pname.encode(), desc.encode()
            self._strings += [b, d]
            specs[k].name, specs[k].value, specs[k].min, specs[k].max = b, default, lo, hi
            specs[k].flags, specs[k].description = 0, d
        self._specs = specs
        self._p_cache = {}
        analytic = callable(getattr(obj, "force_derivatives", None)) and \
            callable(getattr(obj, "gap_derivatives", None))
        self._analytic = analytic
        name_b, summary_b = self.name.encode(), str(getattr(obj, "summary", "")).encode() or b"-"
        self._strings += [name_b, summary_b]
        self._callbacks = [_lib.INITIAL_STATE(self._initial_state), _lib.FORCE(self._force), _lib.GAP(self._gap),
                           _lib.SCALES(self._scales), _lib.FAILED(self._failed)]
        mass = _lib.MASS(self._mass) if callable(getattr(obj, "mass", None)) else None
        if mass:
            self._callbacks.append(mass)
        self.case = _lib.pl_case(
            abi_version=_lib.PL_ABI_VERSION, name=name_b, summary=summary_b, ndof=self.n, ncon=self.m, ninput=0,
            params=specs if params else None, nparams=len(params), t_end=float(getattr(obj, "t_end", 1.0)),
            derivatives=_lib.PL_DERIVATIVES_ANALYTIC if analytic else _lib.PL_DERIVATIVES_NONE, user=None,
            initial_state=self._callbacks[0], force=self._callbacks[1], gap=self._callbacks[2],
            scales=self._callbacks[3], failed=self._callbacks[4])
        if mass:
            self.case.mass = mass

    def reset(self):
        self.error = None

    # -- views of the library's arrays --
    def _p(self, p):
        key = ctypes.string_at(p, 8 * len(self.parameter_names)) if self.parameter_names else b""
        d = self._p_cache.get(key)
        if d is None:
            values = np.frombuffer(key, dtype=float) if key else ()
            d = dict(zip(self.parameter_names, map(float, values)))
            self._p_cache[key] = d
        return d

    def _in(self, addr):
        return np.array(self._vec.from_address(addr))

    def _out(self, addr, value, shape_size, what):
        out = np.frombuffer((ctypes.c_double * shape_size).from_address(addr), dtype=float)
        arr = np.asarray(value, dtype=float).reshape(-1)
        if arr.size != shape_size:
            raise ValueError(f"model {self.name}: {what} has {arr.size} values, {shape_size} expected")
        out[:] = arr

    def _fail(self, e, *outputs):
        if self.error is None:
            self.error = e
        for addr, size in outputs:
            if addr:
                np.frombuffer((ctypes.c_double * size).from_address(addr), dtype=float)[:] = math.nan

    # -- the callbacks --
    def _initial_state(self, p, q, v, user):
        try:
            q0, v0 = self.obj.initial_state(self._p(p))
            self._out(q, q0, self.n, "initial_state's q")
            self._out(v, v0, self.n, "initial_state's v")
        except BaseException as e:
            self._fail(e, (q, self.n), (v, self.n))

    def _force(self, p, t, q, v, u, f, f_q, f_v, user):
        n = self.n
        try:
            if self.error is not None:
                raise self.error
            pd, qa, va = self._p(p), self._in(q), self._in(v)
            self._out(f, self.obj.force(t, qa, va, pd), n, "force")
            if f_q or f_v:
                fq, fv = self.obj.force_derivatives(t, qa, va, pd)
                if f_q:
                    self._out(f_q, fq, n * n, "force_derivatives' f_q")
                if f_v:
                    self._out(f_v, fv, n * n, "force_derivatives' f_v")
        except BaseException as e:
            self._fail(e, (f, n), (f_q, n * n), (f_v, n * n))

    def _gap(self, p, i, t, q, out, user):
        g = out.contents
        n = self.n
        try:
            if self.error is not None:
                raise self.error
            pd, qa = self._p(p), self._in(q)
            g.g = float(self.obj.gap(i, t, qa, pd))
            if self._analytic:
                grad, hess = self.obj.gap_derivatives(i, t, qa, pd)
                self._out(g.grad, grad, n, "gap_derivatives' grad")
                if g.keep_hess:
                    self._out(g.hess, hess, n * n, "gap_derivatives' hess")
        except BaseException as e:
            g.g = math.nan
            self._fail(e, (g.grad, n), (g.hess, n * n if g.keep_hess else 0))

    def _scales(self, p, velocity, accel, user):
        try:
            V, A = self.obj.scales(self._p(p))
            ctypes.c_double.from_address(velocity).value = float(V)
            ctypes.c_double.from_address(accel).value = float(A)
        except BaseException as e:
            self._fail(e, (velocity, 1), (accel, 1))

    def _mass(self, p, q, M, user):
        try:
            self._out(M, self.obj.mass(self._in(q), self._p(p)), self.n * self.n, "mass")
        except BaseException as e:
            self._fail(e, (M, self.n * self.n))

    def _failed(self, msg, size, user):
        e = self.error
        if e is None:
            return 0
        text = f"{type(e).__name__}: {e}".replace("\n", " ").encode("utf-8", "replace")[:max(0, size - 1)]
        ctypes.memmove(msg, text + b"\0", len(text) + 1)
        return 1


def _input_error(message):
    from ._core import InputError
    return InputError(message, _lib.PL_ERR_INPUT)
