"""Models written in Python: the ball and the wedge as classes, against closed forms and the built-in
cases; exceptions raised in their callbacks reach the caller."""
import math

import numpy as np
import pytest

import penlim


class Ball(penlim.PythonModel):
    name = "pyball"
    ndof, ncon, t_end = 1, 1, 3.0
    parameters = {"g": 9.81, "h0": 1.0, "v0": 0.0}

    def initial_state(self, p):
        return [p["h0"]], [p["v0"]]

    def force(self, t, q, v, p):
        return [-p["g"]]

    def gap(self, i, t, q, p):
        return q[0]

    def scales(self, p):
        return math.sqrt(p["v0"] ** 2 + 2 * p["g"] * p["h0"]), p["g"]


class BallWithDerivatives(Ball):
    def force_derivatives(self, t, q, v, p):
        return np.zeros((1, 1)), np.zeros((1, 1))

    def gap_derivatives(self, i, t, q, p):
        return [1.0], [[0.0]]


class Wedge(penlim.PythonModel):
    """The built-in wedge (penlim cases): q1, q2 >= 0 with the mass matrix [[1, m], [m, 1]]."""
    name = "pywedge"
    ndof, ncon, t_end = 2, 2, 3.0
    parameters = {"m": penlim.Parameter("m", 0.5, -0.999999, 0.999999, description="off-diagonal mass"),
                  "f1": 0.0, "f2": 0.0}

    def initial_state(self, p):
        return [1.0, 1.0], [-1.0, -1.0]

    def force(self, t, q, v, p):
        return [p["f1"], p["f2"]]

    def gap(self, i, t, q, p):
        return q[i]

    def scales(self, p):
        return 1.0, 1.0

    def mass(self, q, p):
        return [[1.0, p["m"]], [p["m"], 1.0]]


@pytest.mark.parametrize("cls", [Ball, BallWithDerivatives])
def test_python_ball_closed_forms(cls):
    g, h0, v0, e = 2.9, 0.8, 1.3, 0.45
    v1 = math.sqrt(v0 * v0 + 2 * g * h0)
    t1 = (v0 + v1) / g
    lim = penlim.limit(cls(), g=g, h0=h0, v0=v0, e=e, t_end=6)
    assert lim.events[0]["t"] == pytest.approx(t1, rel=1e-12)
    assert lim.events[0]["v_after"][0] == pytest.approx(e * v1, rel=1e-12)
    zeno = [ev["t"] for ev in lim.events if ev["kind"] == "zeno"]
    assert zeno == [pytest.approx(t1 + 2 * v1 / g * e / (1 - e), rel=1e-9)]
    pen = penlim.run(cls(), mu=1e8, g=g, h0=h0, v0=v0, e=e, t_end=2)
    assert pen.analysis["restitution_first"] == pytest.approx(e, abs=2e-3)
    assert pen.summary["solution"] == "penalty"


def test_python_ball_is_the_built_in_ball():
    args = dict(g=2.9, h0=0.8, v0=1.3, e=0.45, t_end=2)
    py, c = penlim.limit(BallWithDerivatives(), **args), penlim.limit("bouncing_ball", **args)
    assert len(py.events) == len(c.events)
    assert py.final["q"][0] == pytest.approx(c.final["q"][0], abs=1e-12)
    assert py.final["v"][0] == pytest.approx(c.final["v"][0], abs=1e-12)


def test_python_wedge_is_the_built_in_wedge():
    for solver, opts in (("limit", {}), ("penalty", {"mu": 1e6})):
        py = penlim.run(Wedge(), solver, m=0.3, e=0.4, **opts)
        c = penlim.run("wedge", solver, m=0.3, e=0.4, **opts)
        np.testing.assert_allclose(py.final["q"], c.final["q"], atol=1e-6)
        np.testing.assert_allclose(py.final["v"], c.final["v"], atol=1e-6)
        assert py.model.n == 2 and py.model.m == 2 and py.q.shape[1] == 2


def test_an_exception_in_a_callback_reaches_the_caller():
    class Fails(Ball):
        def force(self, t, q, v, p):
            if q[0] < 0.5:
                raise ZeroDivisionError(f"q = {q[0]}")
            return [-p["g"]]

    with pytest.raises(ZeroDivisionError, match="q = ") as info:
        penlim.run(Fails(), mu=1e6)
    cause = info.value.__cause__
    assert isinstance(cause, penlim.SolverError) and "the model failed at t = " in str(cause)
    assert "ZeroDivisionError" in str(cause)
    # the run up to the failure: q = 0.5 at t = sqrt(2 * 0.5 / g); a step's stages may get there first
    sol = cause.solution
    assert len(sol.t) > 0 and sol.final["t"] < math.sqrt(1 / 9.81) + 0.02
    for solver, opts in (("limit", {}), ("moreau_jean", {"h": 1e-3})):
        with pytest.raises(ZeroDivisionError):
            penlim.run(Fails(), solver, **opts)
    # the model is usable again once its error is raised
    m = penlim.model(Fails())
    with pytest.raises(ZeroDivisionError):
        penlim.run(m, "limit")
    with pytest.raises(ZeroDivisionError):
        penlim.run(m, "limit")
    assert penlim.run(m, "limit", t_end=0.2).final["t"] == 0.2


def test_a_failed_sweep_says_why_and_keeps_its_runs():
    """A sweep of a model that raises: the model's exception, chained from a SolverError whose message is
    the library's (the first failure: the limit solution's, solved first) and whose sweep holds the runs
    with their reasons."""
    class Fails(Ball):
        def gap(self, i, t, q, p):
            if t > 0.37:
                raise ZeroDivisionError(f"t = {t}")
            return q[0]

    with pytest.raises(ZeroDivisionError, match="t = ") as info:
        penlim.sweep(Fails(), mu=[1e3, 1e5])
    cause = info.value.__cause__
    assert isinstance(cause, penlim.SolverError) and "the model failed at t = " in str(cause)
    assert f"ZeroDivisionError: {info.value}" in str(cause)
    sw = cause.sweep
    assert isinstance(sw, penlim.Sweep) and list(sw.values) == [1e3, 1e5]
    assert all(r.error and "ZeroDivisionError" in r.error for r in sw.runs)
    with pytest.raises(ZeroDivisionError) as info:
        penlim.sweep(Fails(), mu=[1e3, 1e5], limit=False)
    assert "the model failed at t = " in str(info.value.__cause__) and str(info.value) in str(info.value.__cause__)


def test_an_exception_in_the_main_thread_cancels_the_call():
    """An exception raised in the main thread while the package waits for its call (a SIGALRM handler's, as
    a timeout raises): the call stops (the model's callbacks are not called any more once it is raised),
    its result is freed, and the next call runs at once."""
    import gc
    import signal
    import time

    calls = [0]

    class Counted(Ball):
        def gap(self, i, t, q, p):
            calls[0] += 1
            return q[0]

    def alarm(signum, frame):
        raise TimeoutError("alarm")

    previous = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(TimeoutError):
            penlim.run(Counted(), mu=1e8, e=1.0, t_end=1e7, samples=0, max_output=1e9)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    stopped = calls[0]
    time.sleep(0.3)  # the solve, were it going on, would call gap thousands of times meanwhile
    assert calls[0] == stopped > 0
    assert penlim.run("bouncing_ball", "limit", t_end=0.5).final["t"] == 0.5
    gc.collect()
    assert penlim.live_handles()["solution"] == 0


def test_sigint_ignored_stays_ignored():
    """A process that ignores SIGINT (SIG_IGN, as nohup sets it) keeps ignoring it during a call, which
    then goes on to its end (here: its max_steps)."""
    import os
    import signal
    import threading

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        with pytest.raises(penlim.SolverError, match="stopped after 300000 steps"):
            penlim.run("bouncing_ball", mu=1e8, e=1.0, t_end=1e7, samples=0, max_output=1e9, max_steps=3e5)
        timer.join()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_an_exception_while_the_model_is_checked():
    class BadStart(Ball):
        def initial_state(self, p):
            raise KeyError("no start")

    with pytest.raises(KeyError, match="no start") as info:
        penlim.model(BadStart())
    assert isinstance(info.value.__cause__, penlim.InputError)
    assert "the model failed: KeyError" in str(info.value.__cause__)


def test_keyboard_interrupt_in_a_callback():
    class Interrupted(Ball):
        def gap(self, i, t, q, p):
            if t > 0.3:
                raise KeyboardInterrupt
            return q[0]

    with pytest.raises(KeyboardInterrupt):
        penlim.run(Interrupted(), mu=1e6)


def test_bad_models():
    class WrongSize(Ball):
        def force(self, t, q, v, p):
            return [1.0, 2.0]

    with pytest.raises(ValueError, match="force has 2 values, 1 expected"):
        penlim.limit(WrongSize())

    class NoGap(Ball):
        gap = None

    with pytest.raises(penlim.InputError, match="no gap method"):
        penlim.model(NoGap())  # not taken for a case name: it has force
    with pytest.raises(penlim.InputError, match="unknown parameter 'zz'.*accepts: g, h0, v0"):
        penlim.model(Ball(), zz=1)
    with pytest.raises(penlim.InputError, match="m = 2 is out of range"):
        penlim.model(Wedge(), m=2)
