"""ctypes declarations of include/penlim/*.h and the one loaded library.

ctypes.CDLL releases the GIL during every foreign call (a solve, a sweep), and a callback into Python takes
it back for its own duration."""
import ctypes
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_double, c_int, c_long, c_size_t,
                    c_uint, c_void_p)

from . import _config

PL_OK, PL_ERR_IO, PL_ERR_INPUT, PL_ERR_SOLVER, PL_ERR_NOMEM = 0, 1, 2, 3, 4
PL_ABI_VERSION = 5
PL_PARAM_MIN_OPEN, PL_PARAM_MAX_OPEN, PL_PARAM_DERIVED, PL_PARAM_LAW = 1, 2, 4, 8
PL_DERIVATIVES_ANALYTIC, PL_DERIVATIVES_NONE = 0, 1


class pl_error(Structure):
    _fields_ = [("status", c_int), ("message", c_char * 512)]

    def text(self):
        return self.message.decode("utf-8", "replace")


class pl_setting(Structure):
    _fields_ = [("name", c_char * 64), ("value", c_double)]


class pl_param_spec(Structure):
    _fields_ = [("name", c_char_p), ("value", c_double), ("min", c_double), ("max", c_double),
                ("flags", c_uint), ("description", c_char_p)]


class pl_gap(Structure):
    _fields_ = [("g", c_double), ("g_t", c_double), ("g_tt", c_double), ("grad", c_void_p),
                ("grad_t", c_void_p), ("hess", c_void_p), ("keep_hess", c_int),
                ("support", c_void_p), ("nsupport", c_size_t)]


# The callbacks of a model written in Python receive their arrays as addresses (c_void_p: an int), which
# the bridge views through numpy without a copy.
P = c_void_p
INITIAL_STATE = CFUNCTYPE(None, P, P, P, c_void_p)
FORCE = CFUNCTYPE(None, P, c_double, P, P, P, P, P, P, c_void_p)
GAP = CFUNCTYPE(None, P, c_size_t, c_double, P, POINTER(pl_gap), c_void_p)
SCALES = CFUNCTYPE(None, P, P, P, c_void_p)
SIZES = CFUNCTYPE(None, P, POINTER(c_size_t), POINTER(c_size_t), c_void_p)
CHECK = CFUNCTYPE(c_int, P, c_void_p, c_size_t, c_void_p)
MASS = CFUNCTYPE(None, P, P, P, c_void_p)
MASS_DQ = CFUNCTYPE(None, P, P, c_size_t, P, c_void_p)
FAILED = CFUNCTYPE(c_int, c_void_p, c_size_t, c_void_p)
CANCEL = CFUNCTYPE(c_int, c_void_p)
D = POINTER(c_double)


class pl_case(Structure):
    _fields_ = [("abi_version", c_uint), ("name", c_char_p), ("summary", c_char_p), ("ndof", c_size_t),
                ("ncon", c_size_t), ("ninput", c_size_t), ("params", POINTER(pl_param_spec)),
                ("nparams", c_size_t), ("t_end", c_double), ("derivatives", c_int), ("user", c_void_p),
                ("initial_state", INITIAL_STATE), ("accel", c_void_p), ("force", FORCE), ("gap", GAP),
                ("scales", SCALES), ("sizes", c_void_p), ("law", c_void_p), ("check", c_void_p),
                ("mass", MASS), ("mass_dq", c_void_p), ("velocity_map", c_void_p), ("input", c_void_p),
                ("limit_value", c_void_p), ("forcing_time", c_void_p), ("valid_until", c_void_p),
                ("law_at", c_void_p), ("support", c_void_p), ("candidates", c_void_p), ("gap_bounds", c_void_p),
                ("failed", FAILED)]


PROGRESS = CFUNCTYPE(None, c_void_p, c_void_p)


class pl_study_options(Structure):
    _fields_ = [("law", c_char_p), ("solver", c_char_p), ("settings", POINTER(pl_setting)), ("nsettings", c_size_t),
                ("options", POINTER(pl_setting)), ("noptions", c_size_t), ("grids", POINTER(c_char_p)),
                ("ngrids", c_size_t), ("zip", c_int), ("jobs", c_int), ("progress", c_void_p),
                ("cancel", CANCEL), ("user", c_void_p)]


class pl_compare_spec(Structure):
    _fields_ = [("kind", c_int), ("value", c_double), ("name", c_char_p)]


PL_COMPARE_MU, PL_COMPARE_SCHEME, PL_COMPARE_H, PL_COMPARE_EXTERNAL = range(4)


class pl_compare_options(Structure):
    _fields_ = [("specs", POINTER(pl_compare_spec)), ("nspecs", c_size_t), ("work_precision", c_int),
                ("options", POINTER(pl_setting)), ("noptions", c_size_t), ("progress", c_void_p),
                ("cancel", CANCEL), ("user", c_void_p)]


class pl_solve_hooks(Structure):
    _fields_ = [("cancel", CANCEL), ("user", c_void_p)]


def _installed_copies():
    """The installed copies of the package on sys.path other than this one: (their directory, the library
    each records), read from their _config.py without importing them."""
    import re
    import sys
    here = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
    out = []
    for entry in sys.path:
        pkg = os.path.realpath(os.path.join(entry or os.getcwd(), "penlim"))
        try:
            with open(os.path.join(pkg, "_config.py")) as f:
                text = f.read()
        except OSError:
            continue
        m = re.search(r"^LIBRARY = (['\"].*['\"])$", text, re.M)
        if pkg != here and m and (pkg, m.group(1)) not in out:
            out.append((pkg, m.group(1)))
    return out


def _library_path():
    path = os.environ.get("PENLIM_LIBRARY") or _config.LIBRARY
    if path:
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    # The source copy (python/penlim of a checkout) records no library.  Decision: it does not borrow an
    # installed copy's library, whose package may be another version of this code: the error names the
    # installed copy to import instead.
    copies = _installed_copies()
    if copies:
        pkg, lib_text = copies[0]
        raise ImportError(f"penlim: {here} is the source copy of the package, which records no library, and "
                          f"Python found it first on sys.path (it runs from that checkout's python/ directory, "
                          f"or PYTHONPATH names it); the installed package is {pkg} (library {lib_text}): "
                          f"import penlim from another directory, or set PENLIM_LIBRARY to the path of "
                          f"libpenlim.so")
    raise ImportError(f"penlim: {here} is the source copy of the package, which records no library, and no "
                      f"installed copy is on sys.path: install it with scripts/setup, or set PENLIM_LIBRARY "
                      f"to the path of libpenlim.so")


def _load():
    path = _library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"penlim: cannot load the library {path}: {e}") from None
    lib.pl_version.restype = c_char_p
    version = lib.pl_version().decode()
    if version != _config.VERSION:
        raise ImportError(f"penlim: the package is version {_config.VERSION} but the library {path} is version "
                          f"{version}: install both from the same penlim (scripts/setup)")
    return lib, path, version


lib, LIBRARY, VERSION = _load()

_h = c_void_p  # every handle
E = POINTER(pl_error)
S = POINTER(pl_setting)
_signatures = {
    "pl_library_init": (None, []),
    "pl_model_create_law": (_h, [c_void_p, c_char_p, S, c_size_t, E]),
    "pl_model_load": (_h, [c_char_p, c_char_p, S, c_size_t, E]),
    "pl_model_destroy": (None, [_h]),
    "pl_model_case": (POINTER(pl_case), [_h]),
    "pl_model_dof": (c_size_t, [_h]),
    "pl_model_constraints": (c_size_t, [_h]),
    "pl_model_parameter": (c_double, [_h, c_char_p]),
    "pl_model_law": (c_char_p, [_h]),
    "pl_model_law_parameter": (c_double, [_h, c_char_p]),
    "pl_builtin_case_count": (c_size_t, []),
    "pl_builtin_case_at": (POINTER(pl_case), [c_size_t]),
    "pl_builtin_case_find": (POINTER(pl_case), [c_char_p]),
    "pl_law_count": (c_size_t, []),
    "pl_law_name": (c_char_p, [c_size_t]),
    "pl_law_summary": (c_char_p, [c_size_t]),
    "pl_law_parameters": (c_size_t, [c_size_t, POINTER(POINTER(pl_param_spec))]),
    "pl_solver_count": (c_size_t, []),
    "pl_solver_name": (c_char_p, [c_size_t]),
    "pl_solver_summary": (c_char_p, [c_size_t]),
    "pl_solver_options": (c_size_t, [c_size_t, POINTER(POINTER(pl_param_spec))]),
    "pl_cancel_when_set": (c_int, [c_void_p]),
    "pl_solve_model_with": (c_int, [_h, c_char_p, S, c_size_t, POINTER(pl_solve_hooks), POINTER(_h), E]),
    "pl_solution_destroy": (None, [_h]),
    "pl_solution_rows": (c_size_t, [_h]),
    "pl_solution_columns": (c_size_t, [_h]),
    "pl_solution_row": (D, [_h, c_size_t]),
    "pl_solution_column_name": (c_size_t, [_h, c_size_t, c_char_p, c_size_t]),
    "pl_solution_sparse_contacts": (c_int, [_h]),
    "pl_solution_contacts": (c_size_t, [_h, c_size_t, c_size_t, POINTER(c_size_t), D, D]),
    "pl_solution_final": (c_double, [_h, D]),
    "pl_solution_events": (c_size_t, [_h]),
    "pl_solution_event": (c_int, [_h, c_size_t, POINTER(c_char_p), D, POINTER(c_size_t), D, D]),
    "pl_solution_episodes": (c_size_t, [_h]),
    "pl_solution_episode": (c_int, [_h, c_size_t, POINTER(c_size_t), D, D, D]),
    "pl_solution_work": (None, [_h, POINTER(c_long), POINTER(c_long), D]),
    "pl_solution_write": (c_int, [_h, _h, c_char_p, E]),
    "pl_solution_write_run": (c_int, [_h, _h, S, c_size_t, c_char_p, E]),
    "pl_results_copy": (c_int, [c_char_p, c_char_p, c_char_p, E]),
    "pl_sweep_model_with": (c_int, [_h, c_char_p, D, c_size_t, S, c_size_t, c_int, c_int, POINTER(pl_solve_hooks),
                                    POINTER(_h), E]),
    "pl_sweep_destroy": (None, [_h]),
    "pl_sweep_runs": (c_size_t, [_h]),
    "pl_sweep_run_result": (c_int, [_h, c_size_t, D, POINTER(_h), E]),
    "pl_sweep_quantity_get": (c_int, [_h, c_char_p, D, D, D, D, E]),
    "pl_sweep_write": (c_int, [_h, _h, c_char_p, E]),
    "pl_sweep_limit": (_h, [_h]),
    "pl_solution_read_external": (c_int, [_h, c_char_p, c_double, POINTER(_h), E]),
    "pl_study_create": (c_int, [c_void_p, POINTER(pl_study_options), POINTER(_h), E]),
    "pl_study_size": (c_size_t, [_h, POINTER(c_size_t), POINTER(c_size_t)]),
    "pl_study_run": (c_int, [_h, c_char_p, E]),
    "pl_study_value_get": (c_int, [_h, c_size_t, c_char_p, D, E]),
    "pl_study_destroy": (None, [_h]),
    "pl_compare_to_limit": (c_int, [_h, _h, _h, D, D, D, D, E]),
    "pl_compare_model": (c_int, [_h, POINTER(pl_compare_options), POINTER(_h), E]),
    "pl_compare_destroy": (None, [_h]),
    "pl_compare_size": (c_size_t, [_h]),
    "pl_compare_item": (c_int, [_h, c_size_t, POINTER(c_char_p), D, POINTER(_h), E]),
    "pl_compare_limit": (_h, [_h]),
    "pl_compare_limit_status": (c_int, [_h, E]),
    "pl_compare_write": (c_int, [_h, _h, c_char_p, E]),
}
for _name, (_res, _args) in _signatures.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args
lib.pl_library_init()


def settings(pairs):
    """A pl_setting array of (name, value) pairs (None for none)."""
    pairs = list(pairs)
    if not pairs:
        return None, 0
    arr = (pl_setting * len(pairs))()
    for k, (name, value) in enumerate(pairs):
        b = name.encode()
        if len(b) >= 64:
            raise ValueError(f"penlim: parameter name too long: {name!r}")
        arr[k].name = b
        arr[k].value = float(value)
    return arr, len(pairs)
