"""Reading the program's files back (penlim.load): CSV tables and summaries, as the objects that run,
sweep and study return."""
import csv
import math
import os
import shutil

import numpy as np


def read_table(path):
    """A CSV file whose fields are all numbers (trajectory.csv): its header and an array of its rows."""
    with open(path) as f:
        names = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    if data.size == 0:
        data = np.empty((0, len(names)))
    return names, data


def read_columns(path):
    """A CSV table with columns of numbers or words: {name: numpy array} (floats where every field is
    a number, "nan" and empty fields NAN; strings otherwise)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    names, body = rows[0], rows[1:]
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
    return pd.read_csv(path)


def copy_files(src, dst, names=None):
    """Copy the files (all, or those named that exist) of directory src into dst (created)."""
    os.makedirs(dst, exist_ok=True)
    if names is None:
        shutil.copytree(src, dst, dirs_exist_ok=True)
        return
    for name in names:
        p = os.path.join(src, name)
        if os.path.isfile(p):
            shutil.copyfile(p, os.path.join(dst, name))


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
    force = data.get("lambda", data.get("impulse"))
    return {"row": data["row"].astype(int), "constraint": data["constraint"].astype(int) - 1, "G": data["G"],
            "force": force}
