"""Chapter 12's profile: where the cycle collector's time is charged in a scalar step."""

import collections
import gc
import random
import sys

import pytest
from claimlib import chapter_namespace, claim

from micrograd_lesson import make_moons, nn

# Where a step makes nodes: the operators, and the expressions that call them (on Python 3.12+
# a collection starts at the interpreter's next check for pending work, which can be there).
BUILDERS = {"__mul__", "__add__", "<genexpr>", "<listcomp>"}
ALLOCATORS = BUILDERS | {"_node", "_as_value", "__init__", "__sub__", "relu", "__rsub__", "__instancecheck__"}
NO_GRAPH_WORK = {"_depth_first", "backward"}


@pytest.fixture(scope="module")
def ch12():
    return chapter_namespace("12")


def collection_starts(ch12, steps, seed):
    """{generation: Counter(function running when a collection of it started)} over `steps` of the
    chapter's own scalar_step, on a fresh draw of the moons (its data are the names it reads)."""
    random.seed(seed)
    X, y = make_moons(100, noise=0.1, seed=seed)
    ch12["xs"], ch12["ys"] = X.tolist(), y.tolist()
    model = nn.MLP(2, [16, 16, 1])
    starts = collections.defaultdict(collections.Counter)

    def watch(phase, info):
        if phase == "start":
            frame = sys._getframe().f_back  # the code that was allocating
            starts[info["generation"]][frame.f_code.co_name if frame else "?"] += 1

    loss = None
    gc.callbacks.append(watch)
    try:
        for k in range(steps):  # as in the chapter, the previous loss stays alive meanwhile
            loss = ch12["scalar_step"](model, k)
    finally:
        gc.callbacks.remove(watch)
    del loss
    return starts


@pytest.mark.slow
@claim("ch12-profile-collector-lands")
def test_collections_start_in_the_functions_that_make_nodes(ch12):
    for seed in range(3):
        starts = collection_starts(ch12, steps=3, seed=seed)
        every = sum(starts.values(), collections.Counter())
        total = sum(every.values())
        assert total > 100  # tens of thousands of nodes a step: many collections
        # Mostly where the nodes are made: __mul__ or __add__, or the expressions calling them ...
        assert sum(every[name] for name in BUILDERS) >= 0.9 * total, every
        assert every["__mul__"] > 0 and every["__add__"] > 0, every
        # ... every full collection in a function that allocates ...
        assert set(starts[2]) <= ALLOCATORS, starts[2]
        # ... and hardly ever in the graph walk or backward().
        assert sum(every[name] for name in NO_GRAPH_WORK) <= 0.01 * total, every
