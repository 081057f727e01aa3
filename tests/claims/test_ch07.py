"""Chapter 7's verdicts, re-run: what a layer of copies costs on XOR, and one object per node."""

import gc
import random

import pytest
from claimlib import chapter_namespace, claim

from micrograd_lesson import Value, four_examples, nn


@pytest.mark.slow
@claim("ch07-copies-cost-xor")
def test_copies_are_stuck_where_random_starts_solve_xor():
    ch = chapter_namespace("07")
    for seed in range(10, 15):  # seeds the chapter does not show
        net, copies = ch["train_xor"](seed, "copies")
        first = [n.w[0].data for n in net.layers[0].neurons]
        assert max(first) == min(first), f"seed {seed}: the copies came apart"
        assert copies > 2.6, f"seed {seed}: a layer of copies reached {copies:.4f} on XOR"
        _, random_start = ch["train_xor"](seed, "random")
        assert random_start < 1e-3, f"seed {seed}: a random start ended at {random_start:.4f}"
        _, one_neuron = ch["train_xor"](seed, "random", width=1)
        assert one_neuron > 2.6, f"seed {seed}: one hidden neuron reached {one_neuron:.4f}"


@claim("ch07-one-object-per-node")
def test_a_forward_pass_makes_one_tracked_object_per_new_node():
    xs, ys = four_examples()
    for seed, nouts in [(1, [4, 4, 1]), (2, [8, 1]), (3, [5, 3, 2, 1])]:
        random.seed(seed)
        model = nn.MLP(3, nouts, activation="tanh")
        loss = None  # free the last graph before counting
        Value(1.0) ** 2  # the rule of `** 2` is made once, the first time that exponent is used
        gc.collect()
        gc.disable()
        try:
            before = len(gc.get_objects())
            loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
            made = len(gc.get_objects()) - before
        finally:
            gc.enable()
        new_nodes = len(loss.topological_order()) - len(model.parameters())
        assert made == new_nodes, f"MLP(3, {nouts}): {made} new objects for {new_nodes} new nodes"
