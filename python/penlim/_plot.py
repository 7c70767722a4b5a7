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
        return axes[0].figure, list(axes)
    fig, ax = plt.subplots(npanels, 1, sharex=True, figsize=(7, max(3.0, height * npanels)), squeeze=False)
    return fig, list(ax[:, 0])


def plot_convergence(sw, axes=None):
    """`penlim sweep`'s convergence figure (plots/convergence.gp): abs(error) of each quantity with a
    rate against mu (or h), log-log, points joined, with its fitted power law dotted in the same colour;
    data convergence.csv."""
    from ._files import read_columns
    import os
    data = read_columns(os.path.join(sw._dir(), "convergence.csv"))
    fig, (ax,) = _figure(1, axes, 5.0)
    names = data.get("quantity", [])
    for k, q in enumerate(dict.fromkeys(names)):
        rows = [j for j, n in enumerate(names) if n == q]
        x = data[sw.refined][rows]
        label = f"{q}: rate {data['rate'][rows[0]]:.3f} +- {data['rate_se'][rows[0]]:.3f} ({data['reference'][rows[0]]})"
        line, = ax.plot(x, data["error"][rows], "o-", ms=3, lw=1, label=label, color=f"C{k % 10}")
        ax.plot(x, data["fit"][rows], ":", lw=1, color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(f"{sw.refined} (model units)")
    ax.set_ylabel("|error| (model units)")
    case = sw.model.case if sw.model else sw.summary.get("case", "")
    ax.set_title(f"{case}, {sw.solver}: errors against {sw.refined} (dotted: least-squares fits)")
    if names is not None and len(names):
        ax.legend(loc="best", fontsize="x-small")
    fig.tight_layout()
    return fig


def plot_trajectories(sw, axes=None):
    """`penlim sweep`'s trajectories figure (plots/trajectories.gp): every q_j, v_j and G_i against t for
    every run, the limit solution in black; the G_i only where every solution is dense."""
    runs = [r for r in sw.runs if r.error is None or len(r.t)]
    sols = runs + ([sw.limit] if sw.limit is not None else [])
    n = sols[0].q.shape[1] if sols else 0
    m = sols[0].G.shape[1] if sols and all(s.G is not None for s in sols) else 0
    panels = [("q", j) for j in range(n)] + [("v", j) for j in range(n)] + [("G", i) for i in range(m)]
    fig, axes = _figure(len(panels), axes)
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
    return name.endswith("_error") or name in ("sup_q", "sup_q_outside_zeno", "l1_v", "s_distance_q",
                                               "successive_s_distance_q", "successive_s_distance_v")


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
