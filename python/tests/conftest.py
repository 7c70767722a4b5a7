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
