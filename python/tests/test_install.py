"""scripts/install-python: the package copied with the library's absolute path recorded, importable from
any directory by Debian's interpreter, and a library of another version refused on import."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def installed(tmp_path):
    dest = tmp_path / "dist-packages"
    subprocess.run([os.path.join(ROOT, "scripts", "install-python"), str(dest), os.environ["PENLIM_LIBRARY"]],
                   check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PENLIM_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(dest)
    return dest, env


def test_installed_package_loads_its_recorded_library(tmp_path):
    dest, env = installed(tmp_path)
    r = subprocess.run(["/usr/bin/python3", "-c", "import penlim; print(penlim.library_path); "
                        "print(penlim.limit('bouncing_ball').events[0]['t'])"],
                       cwd="/", env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lib, t1 = r.stdout.split()
    assert lib == os.environ["PENLIM_LIBRARY"] and float(t1) == pytest.approx((2 / 9.81) ** 0.5, rel=1e-12)


def test_version_mismatch_is_an_import_error(tmp_path):
    dest, env = installed(tmp_path)
    config = dest / "penlim" / "_config.py"
    config.write_text(config.read_text().replace('VERSION = "0.2.0"', 'VERSION = "9.9.9"'))
    r = subprocess.run(["/usr/bin/python3", "-c", "import penlim"], cwd="/", env=env, capture_output=True, text=True)
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError:") and "9.9.9" in last and "0.2.0" in last


def test_relative_library_path_refused(tmp_path):
    r = subprocess.run([os.path.join(ROOT, "scripts", "install-python"), str(tmp_path), "libpenlim.so"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "absolute path" in r.stderr


def test_the_source_copy_names_the_installed_one(tmp_path):
    """Python run in the checkout's python/ directory imports the source copy, which records no library:
    the error names the installed package to import and its library."""
    dest, env = installed(tmp_path)
    r = subprocess.run(["/usr/bin/python3", "-c", "import penlim"], cwd=os.path.join(ROOT, "python"), env=env,
                       capture_output=True, text=True)
    last = r.stderr.strip().splitlines()[-1]
    assert r.returncode != 0 and last.startswith("ImportError:") and "source copy" in last
    assert str(dest / "penlim") in last and os.environ["PENLIM_LIBRARY"] in last
    env["PYTHONPATH"] = os.path.join(ROOT, "python")  # -S: without site's directories, where one may be installed
    r = subprocess.run(["/usr/bin/python3", "-S", "-c", "import penlim"], cwd="/", env=env, capture_output=True,
                       text=True)
    last = r.stderr.strip().splitlines()[-1]
    assert r.returncode != 0 and "no installed copy" in last and "scripts/setup" in last
