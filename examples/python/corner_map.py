#!/usr/bin/python3
"""The corner map of the study command (docs/studies.md, section 1, figures/studies/corner_map_final_v1.png):
the corner case over eps x mu, the final velocity v1 of each run as a colour map.  The limits
mu -> infinity and eps -> 0 do not commute: the map's columns settle to different values on either
side of eps = 0.

    /usr/bin/python3 examples/python/corner_map.py [OUT.png] [N_EPS]"""
import sys

import matplotlib
matplotlib.use("Agg")

import penlim  # noqa: E402 (after the backend is chosen)

n_eps = int(sys.argv[2]) if len(sys.argv) > 2 else 61
st = penlim.study("corner", {"eps": f"lin:-0.3:0.3:{n_eps}", "mu": "1e2:1e6:9"})
# the command's map (penlim study --map final_v1): one cell per run, its edges halfway to the
# neighbouring values (in log for mu), drawn from the study computed here by the library
fig = st.plot("final_v1", figure="map", map_axes=("eps", "mu"))
out = sys.argv[1] if len(sys.argv) > 1 else "corner_map_final_v1.png"
fig.savefig(out, dpi=120)
print(f"{out}: {len(st.table['eps'])} runs")
