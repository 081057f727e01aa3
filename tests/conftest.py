"""Shared test settings: a headless matplotlib, no figure left open between tests, deterministic Hypothesis.

Hypothesis profiles: "ci" (the default) derandomizes and keeps no example
database, so every run tries the same cases; HYPOTHESIS_PROFILE=dev explores
more, with fresh random cases each run.
"""

import os
import sys
import threading

import matplotlib
import pytest

matplotlib.use("Agg")  # before anything imports pyplot: no windows, no display needed

from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, database=None, deadline=None, max_examples=150)
settings.register_profile("dev", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _no_thread_outlives_its_test():
    """End the threads a test started before the next test begins. A busy thread left running takes
    the interpreter's lock from every later test in the same process: one answer that loops
    forever, abandoned by a timed-out check, made a claims test 60 times slower inside the suite
    (where it ran after it) than alone. Endless answers stop when told (junk.STOP)."""
    import junk

    before = set(threading.enumerate())
    yield
    junk.STOP.set()
    try:
        started = [t for t in threading.enumerate() if t not in before]
        for thread in started:
            thread.join(2)
        alive = [thread.name for thread in started if thread.is_alive()]
    finally:
        junk.STOP.clear()
    assert not alive, f"the test left threads running, which slow every later test: {alive}"


@pytest.fixture(autouse=True)
def _no_figure_outlives_its_test():
    """Close the figures a test left open, so that no test sees another's (tests run in any order)."""
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
