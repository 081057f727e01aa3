"""Shared test settings: a headless matplotlib, no figure left open between tests, deterministic Hypothesis.

Hypothesis profiles: "ci" (the default) derandomizes and keeps no example
database, so every run tries the same cases; HYPOTHESIS_PROFILE=dev explores
more, with fresh random cases each run.
"""

import os
import sys

import matplotlib
import pytest

matplotlib.use("Agg")  # before anything imports pyplot: no windows, no display needed

from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, database=None, deadline=None, max_examples=150)
settings.register_profile("dev", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _no_figure_outlives_its_test():
    """Close the figures a test left open, so that no test sees another's (tests run in any order)."""
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
