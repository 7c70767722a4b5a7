"""The figures of sweep and study drawn from Python: the panels and series of the command's figures
(plots/convergence.gp, plots/study_map.gp), checked by their content, not by images."""
import math
import os
import re

import numpy as np
import pytest

import penlim

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

STYLES = os.path.join(os.path.dirname(__file__), "..", "..", "plots", "styles.gp")
KIND_TITLES = {1: "times", 2: "velocities and restitution", 3: "distances", 4: "Zeno and capture"}


def styles_kinds():
    """{quantity: kind} of plots/styles.gp's table (q_def's fifth argument), read here independently."""
    kinds = {}
    for line in open(STYLES):
        m = re.match(r"q_ = q_def\('(\w+)'\s*,.*,\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(\d+)\s*,\s*(?:physical_k \? )?'", line)
        if m:
            kinds[m.group(1)] = int(m.group(4))
    return kinds


def test_the_kinds_are_those_of_the_command_s_styles():
    from penlim._plot import QUANTITY_KIND
    kinds = styles_kinds()
    assert len(kinds) > 30
    for q, k in QUANTITY_KIND.items():
        assert kinds.get(q) == k, q


def test_sweep_convergence_by_kind():
    sw = penlim.sweep("bouncing_ball", mu=[1e3, 1e4, 1e5, 1e6, 1e7], e=0.7, t_end=1.5)
    conv = sw.convergence
    fitted = [q for q in dict.fromkeys(np.asarray(sw._table("convergence.csv")["quantity"])) if isinstance(q, str) and q]
    assert len(fitted) >= 3
    kinds = styles_kinds()
    expected = [KIND_TITLES[g] for g in range(1, 5) if any((kinds.get(q) or 3) == g for q in fitted)]
    assert len(expected) >= 2, "the figure splits its quantities over panels"
    fig = sw.plot()
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == expected
    for ax in panels:
        lines = ax.get_lines()
        assert len(lines) % 2 == 0 and lines
        for points, fit in zip(lines[::2], lines[1::2]):
            assert points.get_color() == fit.get_color(), "the fitted line in its series' colour"
            q = points.get_label().split(":")[0]
            assert KIND_TITLES[kinds.get(q) or 3] == ax.get_title()
            x, y = points.get_data()
            assert np.all(y > 0) and q in conv
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    matplotlib.pyplot.close(fig)
    fig, (one,) = matplotlib.pyplot.subplots(1, 1, squeeze=False)
    with pytest.raises(ValueError, match=f"{len(expected)} panels"):
        sw.plot(axes=[one[0]])
    matplotlib.pyplot.close(fig)


def test_log_scale_quantities_are_the_command_s():
    """The quantities drawn on a log scale: those of log_quantity in src/io/study_plots.c."""
    from penlim._plot import _is_error
    logged = ["impact_time_error", "limit_sup_q", "sup_q", "sup_q_outside_zeno", "l1_v", "s_distance_q",
              "successive_s_distance", "successive_s_distance_v"]
    assert all(_is_error(q) for q in logged)
    assert not any(_is_error(q) for q in ("restitution_first", "first_impact_time", "capture_time", "mu"))


def test_study_map():
    st = penlim.study("bouncing_ball", {"mu": [1e4, 1e6], "e": [0.3, 0.6, 0.9], "h0": [1, 2]}, t_end=2)
    t = st.table

    def runs(**held):
        keep = np.ones(len(t["mu"]), dtype=bool)
        for name, v in held.items():
            keep &= np.asarray(t[name], dtype=float) == v
        return keep

    # default: restitution_first over the first two axes of more than one value (mu, e), h0 at its first
    fig = st.plot(figure="map")
    (ax,) = [a for a in fig.axes if a.get_title()]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("mu", "e") and "h0 = 1" in ax.get_title()
    assert "restitution_first" in ax.get_title() and ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    (mesh,) = ax.collections
    values = np.asarray(mesh.get_array()).reshape(3, 2)  # rows e, columns mu
    keep = runs(h0=1)
    for mu, e, v in zip(np.asarray(t["mu"])[keep], np.asarray(t["e"])[keep],
                        np.asarray(t["restitution_first"])[keep]):
        assert values[[0.3, 0.6, 0.9].index(e), [1e4, 1e6].index(mu)] == v
    assert np.allclose(values, [[0.3] * 2, [0.6] * 2, [0.9] * 2], atol=3e-2), "the ball's restitution is e"
    # two non-refined axes: mu held at its finest (the largest)
    fig = st.plot("first_impact_time", figure="map", map_axes=("e", "h0"))
    (ax,) = [a for a in fig.axes if a.get_title()]
    assert "mu = 1e+06" in ax.get_title()
    values = np.asarray(ax.collections[0].get_array()).reshape(2, 3)  # rows h0, columns e
    assert np.allclose(values, [[math.sqrt(2 / 9.81)] * 3, [math.sqrt(4 / 9.81)] * 3], rtol=1e-6)
    x_edges = ax.collections[0].get_coordinates()[0, :, 0]
    assert np.allclose(x_edges, [0.15, 0.45, 0.75, 1.05]), "cells halfway between the values"
    from penlim._plot import _edges  # not past 0 on a one-signed linear axis, as the command's map
    assert list(_edges([0.5, 2.0], False)) == [0.0, 1.25, 2.75]
    assert np.allclose(_edges([-0.5, -0.1], False), [-0.7, -0.3, 0.0]) and _edges([-0.5, -0.1], False)[-1] == 0.0
    assert list(_edges([0.0, 1.0], False)) == [0.0, 0.5, 1.5] and list(_edges([-1.0, 1.0], False)) == [-2.0, 0.0, 2.0]
    assert np.allclose(_edges([1e4, 1e6], True), [1e3, 1e5, 1e7])
    with pytest.raises(KeyError, match="not an axis"):
        st.plot(figure="map", map_axes=("e", "zz"))
    matplotlib.pyplot.close("all")


def test_trajectories_draw_the_first_16_coordinates_and_constraints():
    """As plots/trajectories.gp (max_shown of plots/styles.gp): a panel per coordinate would make a
    figure of many bodies thousands of inches tall; the title says what is left out."""
    from penlim._plot import plot_trajectories
    sw = penlim.sweep("newtons_cradle", mu=[1e4, 1e5], N=20, t_end=1.5)
    fig = sw.plot(figure="trajectories")
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert labels == [f"q{j}" for j in range(1, 17)] + [f"v{j}" for j in range(1, 17)] + [f"G{i}" for i in range(1, 17)]
    assert fig._suptitle.get_text() == "the first 16 of 20 coordinates, 16 of 19 constraints"
    matplotlib.pyplot.close(fig)
    fig = plot_trajectories(sw, max_shown=None)
    assert len(fig.axes) == 20 + 20 + 19 and fig._suptitle is None
    matplotlib.pyplot.close(fig)
