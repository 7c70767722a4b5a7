#!/usr/bin/python3
"""A Hunt-Crossley e(V) map (the docs' figures/impact_law_hunt_crossley.png, penlim impact-law): the
restitution of an isolated impact at speed V under the Hunt-Crossley law (lambda = -mu k delta^n (1 +
c delta')), read from penalized runs of a ball thrown at the floor (g = 0: the impact alone) at a large
mu, over c V, for several damping coefficients c: e depends on c V alone, so the curves coincide.

    /usr/bin/python3 examples/python/hunt_crossley_map.py [OUT.png]"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import penlim

speeds = np.geomspace(0.01, 10, 25)
fig, ax = plt.subplots(figsize=(7, 4.5))
for c in (0.2, 1.0, 5.0):
    st = penlim.study("bouncing_ball", {"v0": -speeds}, law="hunt_crossley", params={"c": c, "g": 0.0, "h0": 0.5},
                      mu=1e8, t_end=1.0)
    t = st.table
    V = -np.asarray(t["v0"], dtype=float)
    ax.semilogx(c * V, np.asarray(t["restitution_first"], dtype=float), "o-", ms=3, label=f"c = {c:g}")
ax.set_xlabel("c V (damping coefficient times impact speed)")
ax.set_ylabel("restitution e")
ax.set_title("Hunt-Crossley: e(V) from penalized runs at mu = 1e8")
ax.legend()
fig.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else "hunt_crossley_map.png"
fig.savefig(out, dpi=120)
print(out)
