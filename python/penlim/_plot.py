"""Solution.plot: the panels of `penlim plot` for one solution (positions, velocities, gaps and
contact forces against t), with matplotlib (optional)."""


def plot_solution(sol, axes=None):
    import matplotlib.pyplot as plt
    panels = [("q", sol.q, "position q_j"), ("v", sol.v, "velocity v_j")]
    if sol.G is not None:
        force = "impulse" if sol.columns[-1].startswith("impulse") else "force"
        panels += [("G", sol.G, "gap G_i"), (force, sol.force, f"contact {force}_i")]
    if axes is None:
        fig, axes = plt.subplots(len(panels), 1, sharex=True, figsize=(7, 2.2 * len(panels)), squeeze=False)
        axes = axes[:, 0]
    else:
        fig = axes[0].figure
    for ax, (name, data, label) in zip(axes, panels):
        for j in range(data.shape[1]):
            ax.plot(sol.t, data[:, j], label=f"{name}{j + 1}", lw=1)
        ax.set_ylabel(label)
        if data.shape[1] > 1:
            ax.legend(loc="best", fontsize="small")
    axes[-1].set_xlabel("time t")
    title = f"{sol.model.case if sol.model else ''} ({sol.solver}"
    title += "".join(f", {k} = {v:g}" for k, v in sol.options.items() if k in ("mu", "h")) + ")"
    axes[0].set_title(title)
    fig.tight_layout()
    return fig


def _figure(npanels, axes, height=2.2):
    import matplotlib.pyplot as plt
    if axes is not None:
        axes = list(axes)
        if len(axes) < npanels:
            raise ValueError(f"this figure has {npanels} panels: give as many axes (got {len(axes)})")
        return axes[0].figure, axes
    fig, ax = plt.subplots(npanels, 1, sharex=True, figsize=(7, max(3.0, height * npanels)), squeeze=False)
    return fig, list(ax[:, 0])


# The kind of each quantity, the panel of the convergence figure it is drawn in: q_def's fifth
# argument in plots/styles.gp (1 times, 2 velocities and restitution, 3 distances, 4 Zeno and capture;
# python/tests checks the two tables agree).  A quantity not in the table goes with the distances, as
# in plots/convergence.gp.
QUANTITY_KIND = {
    "first_impact_time": 1, "restitution_first": 2, "scaled_penetration_first": 2, "capture_time": 4,
    "accumulation_estimate": 4, "lift_off_first": 1, "sliding_force_error": 2, "successive_s_distance": 3,
    "successive_s_distance_q": 3, "successive_s_distance_v": 2, "sup_q": 3, "sup_q_outside_zeno": 3, "l1_v": 3,
    "s_distance_q": 3, "s_distance_v": 2, "impact_time_error": 1, "impact_velocity_error": 2, "capture_error": 4,
    "lift_off_error": 1, "final_q_error": 3, "final_v_error": 2, "restitution_last": 2, "contraction_ratio": 4,
    "impacts_before_capture": 4, "wall_seconds": 0, "final_t": 1, "final_q": 3, "final_v": 2, "episodes": 0,
    "impacts": 0, "steps": 0, "rhs_evals": 0,
}
KIND_TITLES = ("times", "velocities and restitution", "distances", "Zeno and capture")


def plot_convergence(sw, axes=None):
    """`penlim sweep`'s convergence figure (plots/convergence.gp): one panel per kind of quantity
    (times; velocities and restitution; distances; Zeno and capture), in each the abs(error) of its
    quantities against mu (or h), log-log, points joined, with the fitted power law as a thin line in
    the quantity's colour; data convergence.csv.  axes: one per kind present, in that order."""
    from ._files import read_columns
    import os
    data = read_columns(os.path.join(sw._dir(), "convergence.csv"))
    names = list(data.get("quantity", []))
    quantities = [q for q in dict.fromkeys(names) if q]  # (the blank lines between blocks: no name)
    kind = {q: QUANTITY_KIND.get(q, 3) or 3 for q in quantities}
    kinds = [k for k in range(1, 5) if any(kind[q] == k for q in quantities)]
    fig, panels = _figure(max(len(kinds), 1), axes, 3.6)
    if axes is None:
        fig.set_size_inches(11, fig.get_size_inches()[1])  # room for the keys, right of the panels
    for ax, g in zip(panels, kinds):
        for n, q in enumerate(quantities):
            if kind[q] != g:
                continue
            rows = [j for j, name in enumerate(names) if name == q]
            x = data[sw.refined][rows]
            label = f"{q}: rate {data['rate'][rows[0]]:.3f} +- {data['rate_se'][rows[0]]:.3f} ({data['reference'][rows[0]]})"
            line, = ax.plot(x, data["error"][rows], "o", ms=4, label=label, color=f"C{n % 10}")
            ax.plot(x, data["fit"][rows], "-", lw=0.8, color=line.get_color())
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(KIND_TITLES[g - 1])
        ax.set_ylabel("|error|")
        ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize="x-small")
    panels[-1].set_xlabel(f"{sw.refined} (model units)")
    case = sw.model.case if sw.model else sw.summary.get("case", "")
    fig.suptitle(f"{case}, {sw.solver}: errors against {sw.refined} (thin lines: least-squares fits)")
    fig.tight_layout()
    return fig


# The coordinates and gaps a trajectory figure draws at most, the first ones (max_shown of
# plots/styles.gp): a panel each, so a figure of many bodies would be thousands of inches tall.
MAX_SHOWN = 16


def plot_trajectories(sw, axes=None, max_shown=MAX_SHOWN):
    """`penlim sweep`'s trajectories figure (plots/trajectories.gp): q_j, v_j and G_i against t for every
    run, the limit solution in black; the G_i only where every solution is dense.  The first max_shown
    coordinates and constraints (None: all of them), the title saying so when there are more."""
    runs = [r for r in sw.runs if r.error is None or len(r.t)]
    sols = runs + ([sw.limit] if sw.limit is not None else [])
    n = sols[0].q.shape[1] if sols else 0
    m = sols[0].G.shape[1] if sols and all(s.G is not None for s in sols) else 0
    nq = n if max_shown is None else min(n, max_shown)
    nc = m if max_shown is None else min(m, max_shown)
    panels = [("q", j) for j in range(nq)] + [("v", j) for j in range(nq)] + [("G", i) for i in range(nc)]
    fig, axes = _figure(len(panels), axes)
    if nq < n or nc < m:
        fig.suptitle(f"the first {nq} of {n} coordinates" + (f", {nc} of {m} constraints" if nc < m else ""),
                     fontsize="small")
    for ax, (name, j) in zip(axes, panels):
        for k, (value, r) in enumerate(zip(sw.values, sw.runs)):
            if r in runs:
                ax.plot(r.t, getattr(r, name)[:, j], lw=1, color=f"C{k % 10}", label=f"{sw.refined} = {value:g}")
        if sw.limit is not None:
            ax.plot(sw.limit.t, getattr(sw.limit, name)[:, j], lw=1.2, color="black", label="limit")
        ax.set_ylabel(f"{name}{j + 1}")
    if panels:
        axes[-1].set_xlabel("time t")
        axes[0].legend(loc="best", fontsize="x-small")
    fig.tight_layout()
    return fig


# The quantities of study.csv that are errors or distances: drawn as abs(value), log scale, against a
# refined axis (plots/study_family.gp).
def _is_error(name):
    """A distance or an error, drawn on a log scale: log_quantity of src/io/study_plots.c."""
    return (name.endswith("_error") or name.startswith(("limit_", "sup_q")) or "s_distance" in name
            or name == "l1_v")


def plot_study_family(st, quantity, x=None, axes=None):
    """`penlim study`'s line family (plots/study_family.gp): quantity against the axis x (default the
    refined one, mu or h, when it is an axis, else the first), one line per point of the other axes
    (labelled by their values); log-log where x is mu, h or rtol and the quantity an error or a
    distance (abs(value); zeros not drawn); a failed run breaks its line."""
    import math
    from ._files import read_columns
    import os
    data = read_columns(os.path.join(st._dir(), "study.csv"))
    axes_names = list(st.summary.get("axes", {}))
    axes_names = [a["name"] if isinstance(a, dict) else a for a in axes_names] if axes_names else []
    if x is None:
        refined = st.summary.get("refined")
        x = refined if refined in axes_names else axes_names[0]
    if x not in data or quantity not in data:
        raise KeyError(f"study.csv has no column {x if x not in data else quantity!r}")
    others = [a for a in axes_names if a != x]
    logx = x in ("mu", "h", "rtol")
    logy = logx and _is_error(quantity)
    fig, (ax,) = _figure(1, axes, 5.0)
    keys = list(dict.fromkeys(tuple(data[a][k] for a in others) for k in range(len(data[x]))))
    for n, key in enumerate(keys):
        rows = [k for k in range(len(data[x])) if tuple(data[a][k] for a in others) == key]
        rows.sort(key=lambda k: data[x][k])
        xs = [data[x][k] for k in rows]
        ys = [data[quantity][k] if data["status"][k] == "ok" else math.nan for k in rows]
        if logy:
            ys = [abs(y) if y != 0 else math.nan for y in ys]
        label = ", ".join(f"{a} = {v:g}" for a, v in zip(others, key)) or quantity
        ax.plot(xs, ys, "o-", ms=3, lw=1, color=f"C{n % 10}", label=label)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(f"|{quantity}|" if logy else quantity)
    ax.set_title(f"{st.summary.get('case', '')}: {quantity} against {x}")
    ax.legend(loc="best", fontsize="x-small")
    fig.tight_layout()
    return fig


DEFAULT_MAP = "restitution_first"  # penlim study --map's default (PL_STUDY_DEFAULT_MAP)


def _edges(values, log):
    """The cells' edges of sorted distinct values: halfway to the neighbours (in log10 for a log axis),
    the outer ones as far out as the inner ones (a single value: +-1/2, or a factor 10^(1/2) in log), not
    past 0 on a linear axis whose values all lie on one side of it."""
    import numpy as np
    v = np.log10(values) if log else np.asarray(values, dtype=float)
    if len(v) == 1:
        e = np.array([v[0] - 0.5, v[0] + 0.5])
    else:
        mid = (v[1:] + v[:-1]) / 2
        e = np.concatenate([[v[0] - (mid[0] - v[0])], mid, [v[-1] + (v[-1] - mid[-1])]])
    if log:
        return 10.0 ** e
    # not past 0 where every value lies on one side of it, as penlim study's map
    if v[0] >= 0 and e[0] < 0:
        e[0] = 0.0
    if v[-1] <= 0 and e[-1] > 0:
        e[-1] = 0.0
    return e


def plot_study_map(st, quantity=None, map_axes=None, axes=None):
    """`penlim study`'s map (plots/study_map.gp): quantity (default restitution_first, as --map) over two
    axes (default the first two with more than one value, as --map-axes), one cell per run with its
    edges halfway to the neighbouring values (in log for mu, h, rtol), coloured by the value (|value| on
    a log scale for an error or a distance), a failed run left white; every other axis held at one
    value (the refined one at its finest: largest mu, smallest h; any other at its first)."""
    import math
    import os

    import numpy as np
    from matplotlib.colors import LogNorm

    from ._files import read_columns
    quantity = quantity or DEFAULT_MAP
    data = read_columns(os.path.join(st._dir(), "study.csv"))
    summary = st.summary
    if summary.get("zip"):
        raise ValueError("a study of zipped axes has no map: its axes move together")
    info = [a if isinstance(a, dict) else {"name": a} for a in summary.get("axes", [])]
    names = [a["name"] for a in info]
    if quantity not in data:
        raise KeyError(f"study.csv has no quantity {quantity!r} to map")
    if map_axes is None:
        map_axes = [a["name"] for a in info if len(set(a.get("values", []))) > 1][:2]
        if len(map_axes) < 2:
            raise ValueError("the study has fewer than two axes of more than one value: no map")
    a, b = map_axes
    for name in (a, b):
        if name not in names:
            raise KeyError(f"the map's axis {name!r} is not an axis of the study ({', '.join(names)})")
    if a == b:
        raise ValueError(f"the map's two axes are one ({a!r})")
    held = {}
    for ax_info in info:
        name, values = ax_info["name"], ax_info.get("values", [])
        if name in (a, b) or not values:
            continue
        if ax_info.get("refined"):
            held[name] = min(values) if name == "h" else max(values)
        else:
            held[name] = values[0]
    xs, ys = np.unique(data[a]), np.unique(data[b])
    grid = np.full((len(ys), len(xs)), np.nan)
    log = {n: n in ("mu", "h", "rtol") for n in (a, b)}
    logc = _is_error(quantity)
    for k in range(len(data[a])):
        if any(data[n][k] != v for n, v in held.items()) or data["status"][k] != "ok":
            continue
        v = data[quantity][k]
        if logc:
            v = abs(v) if v != 0 else math.nan
        grid[np.searchsorted(ys, data[b][k]), np.searchsorted(xs, data[a][k])] = v
    fig, (ax,) = _figure(1, axes, 5.5)
    finite = grid[np.isfinite(grid)]
    norm = LogNorm(vmin=finite.min(), vmax=finite.max()) if logc and finite.size else None
    mesh = ax.pcolormesh(_edges(xs, log[a]), _edges(ys, log[b]), np.ma.masked_invalid(grid), cmap="viridis",
                         norm=norm, shading="flat")
    if log[a]:
        ax.set_xscale("log")
    if log[b]:
        ax.set_yscale("log")
    ax.set_xlabel(a)
    ax.set_ylabel(b)
    fig.colorbar(mesh, ax=ax, label=f"|{quantity}|" if logc else quantity)
    tail = ", ".join(f"{n} = {v:g}" for n, v in held.items())
    ax.set_title(f"{summary.get('case', '')} ({summary.get('solver', '')}): {quantity} over {a} and {b}"
                 + (f" ({tail})" if tail else ""))
    fig.tight_layout()
    return fig
