#!/usr/bin/python3
"""A mu-sweep's convergence (the docs' figures/bouncing_ball_convergence.png): the bouncing ball at
mu = 1e2 ... 1e10, the errors of its limit quantities against mu on log axes with their fitted rates
(the first impact's restitution and scaled penetration converge as mu^(-1/2), paper 004).

    /usr/bin/python3 examples/python/sweep_convergence.py [OUT.png]"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import penlim

sw = penlim.sweep("bouncing_ball", mu=np.geomspace(1e2, 1e10, 9))
fig, ax = plt.subplots(figsize=(7, 4.5))
for name, conv in sw.convergence.items():
    errors = np.array([np.nan if e is None else abs(e) for e in conv.get("errors", [])], dtype=float)
    if errors.size != len(sw.values) or np.count_nonzero(errors > 1e-14) < 3:  # exact at every mu: nothing to fit
        continue
    rate, se = sw.rates.get(name, (np.nan, np.nan))
    label = name + ("" if np.isnan(rate) else f" (rate {rate:.2f} +- {se:.2f})")
    ax.loglog(sw.values, np.where(errors > 0, errors, np.nan), "o-", label=label)
ax.loglog(sw.values, sw.values ** -0.5, "k--", lw=0.8, label="mu^(-1/2)")
ax.set_xlabel("stiffness mu")
ax.set_ylabel("|error| against the limit")
ax.set_title("bouncing ball: convergence as mu -> infinity")
ax.legend(fontsize="small")
fig.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else "bouncing_ball_convergence.png"
fig.savefig(out, dpi=120)
print(f"{out}: rates", {k: round(v[0], 3) for k, v in sw.rates.items() if v[0] == v[0]})
