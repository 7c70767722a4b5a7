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
