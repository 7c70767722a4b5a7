#!/usr/bin/env python3
"""Instructions per right-hand side of a penalized solve, split into the engine's phases.

Usage: callgrind_phases.py RHS REPEATS CALLGRIND_OUT
  valgrind --tool=callgrind --callgrind-out-file=OUT --toggle-collect=pl_solve_model \
      build/bench/bench_engine CASE MU REPEATS
with the library built with -g (CMAKE_C_FLAGS=-g), RHS the right-hand sides of one solve (printed by
bench_engine).  Each function's own instructions (callgrind_annotate) go to the phase of its file.
"""
import re
import subprocess
import sys

LINALG = re.compile(r'(gsl_linalg|cblas_|gsl_blas|gsl_matrix|gsl_vector)')
FILES = [
    (r'src/model/|cases/|src/laws/', 'the model: gaps, mass matrix, forces (src/model, cases, laws)'),
    (r'penalty/(field|penalized)\.c|penalty/engine\.h|solvers/solution\.h|solvers/solver\.h',
     'the penalized field (field.c, penalized.c)'),
    (r'penalty/(roots|switches|crossings|lift_off|neighbours)\.c|core/rootfind',
     'events and roots (roots, switches, crossings, lift_off)'),
    (r'penalty/gamma\.c', "Gamma's quadrature (gamma.c)"),
    (r'penalty/episodes\.c|solvers/solution\.c|src/core/', 'recording and bookkeeping (episodes.c, solution.c, core)'),
    (r'penalty/weights\.c', 'error weights (weights.c)'),
    (r'penalty/(aim|gap_model)\.c', 'step control: aiming (aim.c, gap_model.c)'),
    (r'stepper_rk\.c', 'Runge-Kutta stepper (stepper_rk.c)'),
    (r'stepper_cvode\.c|cvode_driver\.c|bdf_stability', 'BDF driver (stepper_cvode.c, cvode_driver.c)'),
    (r'event_loop\.c|penalty/penalty\.c|solvers/solver\.c|registry|src/api/',
     'event loop, driver, set-up (event_loop.c, penalty.c, solver.c, api)'),
]


def phase(path, fn):
    if 'malloc' in path or fn in ('malloc', 'free', 'calloc', 'realloc'):
        return 'allocation (malloc, calloc, free)'
    if 'gsl' in path:
        return 'M(q) factored and inverted (GSL linalg)' if LINALG.match(fn) else "GSL's rk8pd and rkf45"
    if 'sundials' in path:
        return 'BDF (CVODE)'
    if path.startswith('./') or 'libm' in path or 'libc' in path:
        return 'C library (memcpy, memset, libm)'
    for pattern, name in FILES:
        if re.search(pattern, path):
            return name
    return 'other'


def main():
    rhs, repeats, out = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    text = subprocess.run(['callgrind_annotate', '--threshold=100', '--auto=no', out],
                          capture_output=True, text=True, check=True).stdout
    total = {}
    for line in text.splitlines():
        m = re.match(r'\s*([\d,]+)\s+\([^)]*\)\s+(.*?):(\S+)(?:\s+\[(.*)\])?$', line)
        if not m or m.group(2) == 'PROGRAM TOTALS':
            continue
        path = m.group(4) or '' if m.group(2) == '???' else m.group(2)
        name = phase(path, m.group(3))
        total[name] = total.get(name, 0) + int(m.group(1).replace(',', ''))
    whole = sum(total.values())
    for name, count in sorted(total.items(), key=lambda x: -x[1]):
        if count / repeats / rhs >= 0.5:
            print(f'{count / repeats / rhs:8.0f}  {100 * count / whole:5.1f}%  {name}')
    print(f'{whole / repeats / rhs:8.0f}  total per right-hand side ({whole / repeats:.0f} per solve)')


if __name__ == '__main__':
    main()
