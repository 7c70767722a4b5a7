"""Reading the program's files back (penlim.load): CSV tables and summaries, as the objects that run,
sweep and study return."""
import csv
import math
import os
import re

import numpy as np


# The names of version 0.2 (docs/formats.md, "One vocabulary"), read back under today's so that code
# written against one vocabulary reads directories of either, as the program's own readers do.  The
# renaming is simultaneous: 0.2's s_distance_q (to the next run) is today's successive_s_distance_q, and
# today's s_distance_q (to the limit) was 0.2's limit_s_distance.  A table or JSON file is of 0.2 when it
# names limit_sup_q, which every 0.2 sweep and study wrote and no later one does.
_RENAMED = {"limit_sup_q": "sup_q", "limit_sup_q_outside_zeno": "sup_q_outside_zeno", "limit_l1_v": "l1_v",
            "limit_s_distance": "s_distance_q", "s_distance_q": "successive_s_distance_q",
            "s_distance_v": "successive_s_distance_v", "s_distance": "successive_s_distance"}
_OLD_MARK = "limit_sup_q"


def current_names(names):
    """Column names of a file of any version, in today's vocabulary (lambdaK, lambda: forceK, force)."""
    names = [re.sub(r"^lambda(\d*)$", r"force\1", n) for n in names]
    if _OLD_MARK in names:
        names = [_RENAMED.get(n, n) for n in names]
    return names


def current_json(doc):
    """sweep.json or study.json of any version, in today's vocabulary: the keys of its convergence
    objects (the quantities) and sweep.json's distance between successive runs."""
    def rename(conv):
        return {_RENAMED.get(k, k): v for k, v in conv.items()} if _OLD_MARK in conv else conv
    if isinstance(doc.get("convergence"), dict) and _OLD_MARK in doc["convergence"]:
        doc["convergence"] = rename(doc["convergence"])
        if "s_distance" in doc and "successive_s_distance" not in doc:
            doc["successive_s_distance"] = doc.pop("s_distance")
    for p in doc.get("points", []) if isinstance(doc.get("points"), list) else []:
        if isinstance(p, dict) and isinstance(p.get("convergence"), dict):
            p["convergence"] = rename(p["convergence"])
    return doc


def read_table(path):
    """A CSV file whose fields are all numbers (trajectory.csv): its header and an array of its rows."""
    with open(path) as f:
        names = current_names(f.readline().strip().split(","))
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    if data.size == 0:
        data = np.empty((0, len(names)))
    return names, data


def read_columns(path):
    """A CSV table with columns of numbers or words: {name: numpy array} (floats where every field is
    a number, "nan" and empty fields NAN; strings otherwise)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    names, body = current_names(rows[0]), rows[1:]
    out = {}
    for j, name in enumerate(names):
        values = [r[j] if j < len(r) else "" for r in body]
        try:
            out[name] = np.array([float(v) if v != "" else math.nan for v in values], dtype=float)
        except ValueError:
            out[name] = np.array(values, dtype=object)
    return out


def table(path):
    """A CSV table as a pandas DataFrame when pandas is installed, else as read_columns."""
    try:
        import pandas as pd
    except ImportError:
        return read_columns(path)
    t = pd.read_csv(path, float_precision="round_trip")  # the numbers to the last bit, as written
    t.columns = current_names(t.columns)
    return t


def copy_results(src, sub, dst):
    """Copy results directory src (sub: one solution's directory in it) into dst through the library's
    writer (pl_results_copy): the files its manifest lists, each checked, into a directory of penlim's."""
    from ctypes import byref
    from . import _lib
    from ._core import _error
    err = _lib.pl_error()
    status = _lib.lib.pl_results_copy(os.fspath(src).encode(), sub.encode() if sub else None,
                                      os.fspath(dst).encode(), byref(err))
    if status != _lib.PL_OK:
        raise _error(status, err.text())


def copy_new(src, dst):
    """Copy directory src, which has no manifest to say which files are penlim's (a study the library
    ran), into dst, which must not exist or be empty: every regular file, no link followed, made in a
    temporary directory beside dst and renamed into place (complete or absent)."""
    import shutil
    import tempfile
    from . import _lib
    from ._core import InputError
    dst = os.path.abspath(os.fspath(dst))
    if os.path.islink(dst) or (os.path.lexists(dst) and (not os.path.isdir(dst) or os.listdir(dst))):
        raise InputError(f"{dst} exists and is not an empty directory: a study without manifest.json is copied "
                         "into a new directory only", _lib.PL_ERR_INPUT)
    parent = os.path.dirname(dst)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".penlim-copy-", dir=parent)
    try:
        for root, dirs, names in os.walk(src):  # os.walk follows no link to a directory
            rel = os.path.relpath(root, src)
            for d in dirs:
                if not os.path.islink(os.path.join(root, d)):
                    os.makedirs(os.path.join(tmp, rel, d), exist_ok=True)
            for n in names:
                p = os.path.join(root, n)
                if os.path.isfile(p) and not os.path.islink(p):
                    shutil.copyfile(p, os.path.join(tmp, rel, n), follow_symlinks=False)
        os.chmod(tmp, 0o755)
        if os.path.isdir(dst):
            os.rmdir(dst)
        os.rename(tmp, dst)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def model_of_summary(summary):
    """The penlim.Model a summary describes, when its case is built in (None for a model compiled
    apart or written in Python, which the files cannot recreate)."""
    from ._core import cases, laws, model
    name = summary.get("case")
    if name not in cases():
        return None
    law = summary.get("law", "kelvin_voigt")
    law_params = summary.get("law_parameters", {})
    derived = {p for p, info in laws().get(law, laws()["kelvin_voigt"]).parameters.items() if info.derived}
    params = {k: v for k, v in summary.get("parameters", {}).items() if k not in law_params}
    params.update({k: v for k, v in law_params.items() if k not in derived and v is not None})
    try:
        return model(name, law=law, params=params)
    except Exception:
        return None


def read_contacts(sol):
    if sol.G is not None:
        rows, cons = np.nonzero((sol.G <= 0) | (sol.force != 0))
        return {"row": rows, "constraint": cons, "G": sol.G[rows, cons], "force": sol.force[rows, cons]}
    data = read_columns(os.path.join(sol._directory, "contacts.csv"))
    force = data.get("force", data.get("impulse"))  # 0.2's lambda is read as force
    return {"row": data["row"].astype(int), "constraint": data["constraint"].astype(int) - 1, "G": data["G"],
            "force": force}
