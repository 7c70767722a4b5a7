#!/usr/bin/python3
"""The whole `penlim run` against its solve for many bodies (docs/verification.md, "The whole command
against the solve"): for each configuration, the command's wall time, the solve's
(summary.json's stats.wall_seconds), their ratio, the phases' walls as the command reports them
(analysis, files) and the command's peak resident memory.  Given several programs (a build before a
change and one after), each configuration runs them alternately, ROUNDS times, so that the walls
compare within a round on a shared machine.

usage: bench_command.py [--rounds K] [--only NAME] PENLIM [PENLIM ...]
    (NAME: one of the configurations below: disks800, disks2000, disks4000, cradle1000, cradle10000)"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

DISKS = ["spheres", "--set", "config=3", "--t-end", "0.5", "--mu", "1e6", "--max-output", "4e8", "--set"]
CRADLE = ["newtons_cradle", "--mu", "1e6", "--max-output", "2e8", "--set"]
CONFIGS = {
    "disks800": DISKS + ["N=800"],
    "disks2000": DISKS + ["N=2000"],
    "disks4000": DISKS + ["N=4000"],
    "cradle1000": CRADLE + ["N=1000"],
    "cradle10000": CRADLE + ["N=10000", "--t-end", "1.2"],
}
DEFAULT = ["disks800", "disks2000", "cradle1000", "cradle10000"]  # disks4000: 5 GB and minutes


def run(penlim, args, scratch):
    out = os.path.join(scratch, "run")
    shutil.rmtree(out, ignore_errors=True)
    start = time.monotonic()
    child = subprocess.Popen([penlim, "run", *args, "--out", out], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        return None
    solve = json.load(open(os.path.join(out, "summary.json")))["stats"]["wall_seconds"]
    phase = {p: re.findall(rf"{p}: 1/1 done, ([0-9.]+) s", err) for p in ("analysis", "files")}
    shutil.rmtree(out, ignore_errors=True)
    return wall, solve, {p: (v[-1] if v else "-") for p, v in phase.items()}, usage.ru_maxrss / 1e6


def main(argv):
    rounds, only = 1, None
    while argv and argv[0].startswith("--"):
        if argv[0] == "--rounds":
            rounds = int(argv[1])
        elif argv[0] == "--only":
            only = argv[1]
        else:
            sys.exit(f"unknown option {argv[0]}\n{__doc__}")
        argv = argv[2:]
    if not argv or (only and only not in CONFIGS):
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as scratch:
        print("configuration | program | command [s] | solve [s] | command / solve | analysis [s] | files [s] | "
              "peak resident [GB] | load")
        for name in [only] if only else DEFAULT:
            for _ in range(rounds):
                for penlim in argv:
                    r = run(penlim, CONFIGS[name], scratch)
                    load = os.getloadavg()[0]
                    if r is None:
                        print(f"{name} | {penlim} | failed")
                        continue
                    wall, solve, phase, rss = r
                    print(f"{name} | {penlim} | {wall:.2f} | {solve:.2f} | {wall / solve:.2f} | "
                          f"{phase['analysis']} | {phase['files']} | {rss:.2f} | {load:.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
