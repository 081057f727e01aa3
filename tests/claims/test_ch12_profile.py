"""Chapter 12's profile: where the cycle collector's time is charged in a scalar step."""

import collections
import gc
import random
import sys

import pytest
from claimlib import claim

from micrograd_lesson import make_moons, nn

# Where a step makes nodes: the operators, and the expressions that call them (on Python 3.12+
# a collection starts at the interpreter's next check for pending work, which can be there).
BUILDERS = {"__mul__", "__add__", "<genexpr>", "<listcomp>"}
ALLOCATORS = BUILDERS | {"_node", "_as_value", "__init__", "__sub__", "relu", "__rsub__", "__instancecheck__"}
NO_GRAPH_WORK = {"_depth_first", "backward"}


def collection_starts(steps, seed):
    """{generation: Counter(function running when a collection of it started)} over `steps` steps."""
    random.seed(seed)
    X, y = make_moons(100, noise=0.1, seed=seed)
    xs, ys = X.tolist(), y.tolist()
    model = nn.MLP(2, [16, 16, 1])
    starts = collections.defaultdict(collections.Counter)

    def watch(phase, info):
        if phase == "start":
            frame = sys._getframe().f_back  # the code that was allocating
            starts[info["generation"]][frame.f_code.co_name if frame else "?"] += 1

    loss = None
    gc.callbacks.append(watch)
    try:
        for k in range(steps):  # the chapter's step: the previous loss stays alive meanwhile
            params = model.parameters()
            scores = [model(x) for x in xs]
            data_loss = sum((1 - label * s).relu() for s, label in zip(scores, ys)) * (1.0 / len(ys))
            loss = data_loss + 1e-4 * sum(p * p for p in params)
            model.zero_grad()
            loss.backward()
            for p in params:
                p.data -= (1.0 - 0.9 * k / 100) * p.grad
    finally:
        gc.callbacks.remove(watch)
    return starts


@pytest.mark.slow
@claim("ch12-profile-collector-lands")
def test_collections_start_in_the_functions_that_make_nodes():
    for seed in range(3):
        starts = collection_starts(steps=3, seed=seed)
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
