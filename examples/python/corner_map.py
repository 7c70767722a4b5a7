#!/usr/bin/python3
"""The corner map of the study command (docs/studies.md, section 1, figures/studies/corner_map_final_v1.png):
the corner case over eps x mu, the final velocity v1 of each run as a colour map.  The limits
mu -> infinity and eps -> 0 do not commute: the map's columns settle to different values on either
side of eps = 0.

    /usr/bin/python3 examples/python/corner_map.py [OUT.png] [N_EPS]"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import penlim

n_eps = int(sys.argv[2]) if len(sys.argv) > 2 else 61
st = penlim.study("corner", {"eps": f"lin:-0.3:0.3:{n_eps}", "mu": "1e2:1e6:9"})
t = st.table
eps = np.unique(np.asarray(t["eps"], dtype=float))
mu = np.unique(np.asarray(t["mu"], dtype=float))
v1 = np.full((len(mu), len(eps)), np.nan)
for e, m, v in zip(np.asarray(t["eps"], dtype=float), np.asarray(t["mu"], dtype=float),
                   np.asarray(t["final_v1"], dtype=float)):
    v1[np.searchsorted(mu, m), np.searchsorted(eps, e)] = v
fig, ax = plt.subplots(figsize=(7, 4))
mesh = ax.pcolormesh(eps, np.log10(mu), v1, shading="nearest", cmap="viridis")
ax.set_xlabel("corner parameter eps")
ax.set_ylabel("log10 of the stiffness mu")
ax.set_title("corner: final velocity v1 over eps x mu")
fig.colorbar(mesh, label="final v1")
fig.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else "corner_map_final_v1.png"
fig.savefig(out, dpi=120)
print(f"{out}: {len(t['eps'])} runs")
