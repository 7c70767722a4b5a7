"""penlim from Python: penalty approximations of mechanical systems with unilateral constraints and their
limit mu -> infinity (Miller and Bentsman, "Generalized solutions in systems with active unilateral
constraints"), over the C library libpenlim (docs/python.md)."""
from ._lib import LIBRARY as library_path, VERSION as __version__
from ._core import (COMMON_OPTIONS, CaseInfo, Error, InputError, LawInfo, Model, OutputError, Parameter,
                    Solution, SolverError, SolverInfo, cases, laws, limit, live_handles, model, run, solvers)
from ._python_model import PythonModel
from ._study import Sweep, Comparison, Study, compare, load, study, sweep

__all__ = ["cases", "laws", "solvers", "model", "run", "limit", "sweep", "compare", "study", "load",
           "Solution", "Sweep", "Comparison", "Study", "Model", "PythonModel", "Parameter", "CaseInfo",
           "LawInfo", "SolverInfo", "Error", "InputError", "SolverError", "OutputError", "live_handles",
           "COMMON_OPTIONS", "library_path", "__version__"]
