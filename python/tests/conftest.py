"""The package of this checkout (PYTHONPATH=python) over the build tree's library (PENLIM_LIBRARY) and
program (PENLIM_PROGRAM): set by ctest (tests/CMakeLists.txt, test_python)."""
import os
import subprocess

import numpy as np
import pytest


@pytest.fixture(scope="session")
def program():
    path = os.environ.get("PENLIM_PROGRAM")
    if not path:
        pytest.fail("PENLIM_PROGRAM is not set: run these tests through ctest (test_python)")
    return path


@pytest.fixture
def cli(program, tmp_path):
    """Run `penlim ARGS` in tmp_path; its exit status must be 0."""
    def run(*args):
        r = subprocess.run([program, *map(str, args)], cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 0, f"penlim {' '.join(map(str, args))}: {r.stderr}"
        return tmp_path
    return run


def read_csv(path):
    """A CSV file of the program's: its header's names and its rows, the numbers parsed exactly (each is
    written in its shortest form that reads back to the same double)."""
    with open(path) as f:
        names = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return names, data


def same_bits(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def without_wall_seconds(text):
    """A file's text without the times each run took, the values a second run does not repeat: the
    columns of a CSV table and the members of JSON named *seconds*."""
    lines = text.splitlines()
    if lines and "seconds" in lines[0] and not lines[0].lstrip().startswith("{"):
        keep = [j for j, name in enumerate(lines[0].split(",")) if "seconds" not in name]
        return "\n".join(",".join(f for j, f in enumerate(line.split(",")) if j in keep) for line in lines)
    return "\n".join(line for line in lines if 'seconds":' not in line)


def json_without_wall_seconds(doc):
    """A JSON document without its members named *seconds* or *wall* (at any depth)."""
    if isinstance(doc, dict):
        return {k: json_without_wall_seconds(v) for k, v in doc.items() if "seconds" not in k and "wall" not in k}
    if isinstance(doc, list):
        return [json_without_wall_seconds(v) for v in doc]
    return doc


def directory_differences(a, b, images=False):
    """How two results directories differ, apart from the times the runs took (CSV columns and JSON
    members named *seconds* or *wall*) and the manifest's record of how they were written (its content
    hashes, which cover those times, and the model's origin): a list of the files that differ or are in
    one only (empty: the same).  Figures (.png, .pdf) and gnuplot's log are left out unless images."""
    import json

    def files(root):
        out = set()
        for d, _, names in os.walk(root):
            for n in names:
                if images or not (n.endswith((".png", ".pdf")) or n == "gnuplot.log"):
                    out.add(os.path.relpath(os.path.join(d, n), root))
        return out
    fa, fb = files(a), files(b)
    diffs = sorted(f"only in one: {f}" for f in fa ^ fb)
    for rel in sorted(fa & fb):
        pa, pb = os.path.join(a, rel), os.path.join(b, rel)
        if rel.endswith(".json"):
            with open(pa) as f:
                ja = json.load(f)
            with open(pb) as f:
                jb = json.load(f)
            if rel == "manifest.json":
                for j in (ja, jb):
                    j.pop("content_hashes", None)
                    j.pop("model", None)
            same = json_without_wall_seconds(ja) == json_without_wall_seconds(jb)
        elif rel.endswith(".csv"):
            with open(pa) as f:
                ta = f.read()
            with open(pb) as f:
                tb = f.read()
            same = _csv_without_wall(ta) == _csv_without_wall(tb)
        else:
            with open(pa, "rb") as f:
                ba = f.read()
            with open(pb, "rb") as f:
                bb = f.read()
            same = ba == bb
        if not same:
            diffs.append(rel)
    return diffs


def _csv_without_wall(text):
    lines = text.splitlines()
    if not lines:
        return lines
    import csv
    rows = list(csv.reader(lines))
    keep = [j for j, name in enumerate(rows[0]) if "seconds" not in name and "wall" not in name]
    return [[r[j] for j in keep if j < len(r)] for r in rows]
