#!/usr/bin/python3
"""The cost of penlim from Python (docs/python.md, "Cost"):

1. a call: the built-in ball solved N times from Python (penlim.run) against the same call from C
   (bench_call), the difference being the package's work per call (options, the GIL released, the
   arrays copied, the handles);
2. an evaluation: the ball written in Python (force and gap in Python, difference quotients) against the
   same ball compiled apart in C without derivatives (tests/models/no_derivatives.so), as seconds per
   right-hand-side evaluation, the solves counting the same evaluations.

usage (from the build directory, the package of the checkout):
    PYTHONPATH=../python PENLIM_LIBRARY=$PWD/libpenlim.so.0.2 /usr/bin/python3 ../bench/bench_python.py \\
        bench/bench_call tests/models/no_derivatives.so"""
import math
import subprocess
import sys
import time

import penlim


class Ball(penlim.PythonModel):
    name = "pyball"
    ndof, ncon, t_end = 1, 1, 10.0
    parameters = {"g": 9.81, "h0": 1.0, "v0": 0.0}

    def initial_state(self, p):
        return [p["h0"]], [p["v0"]]

    def force(self, t, q, v, p):
        return [-p["g"]]

    def gap(self, i, t, q, p):
        return q[0]

    def scales(self, p):
        return math.sqrt(p["v0"] ** 2 + 2 * p["g"] * p["h0"]), p["g"]


def per_call_python(solver, t_end, n):
    m = penlim.model("bouncing_ball")
    t0 = time.perf_counter()
    for _ in range(n):
        s = penlim.run(m, solver, t_end=t_end, samples=0)
        s.final["q"][0]
    return (time.perf_counter() - t0) / n


def main():
    bench_call, c_model = sys.argv[1], sys.argv[2]
    print("call of the library: seconds per call, C and Python, and the difference")
    for solver, t_end, n in (("limit", 0.1, 2000), ("limit", 10.0, 300), ("penalty", 10.0, 100)):
        c = min(float(subprocess.run([bench_call, solver, str(t_end), str(n)], capture_output=True, text=True,
                                     check=True).stdout.split()[0]) for _ in range(3))
        py = min(per_call_python(solver, t_end, n) for _ in range(3))
        print(f"  ball {solver:8s} t_end {t_end:5g}: C {c * 1e6:9.1f} us, Python {py * 1e6:9.1f} us, "
              f"+{(py - c) * 1e6:7.1f} us")
    print("an evaluation of the model: seconds per right-hand-side evaluation (penalty, mu = 1e6)")
    for name, case in (("C (no_derivatives.so)", c_model), ("Python (force, gap)", Ball())):
        m = penlim.model(case, e=0.5)
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            s = penlim.run(m, mu=1e6, t_end=3, samples=0)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        print(f"  {name:24s}: {s.stats['rhs_evals']} evaluations, {best:.4f} s, "
              f"{best / s.stats['rhs_evals'] * 1e6:.2f} us each")


if __name__ == "__main__":
    main()
