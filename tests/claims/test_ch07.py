"""Chapter 7's verdict, re-run on networks the chapter does not show: one object per node.

(The cost of a layer of copies on XOR, once tested here, is chapter 8's claim now: the chapter
that teaches the training loop trains the copies.)
"""

import gc
import random

from claimlib import claim, held_out_seeds

from micrograd_lesson import Value, four_examples, nn


@claim("ch07-one-object-per-node")
def test_a_forward_pass_makes_one_tracked_object_per_new_node():
    """Three shapes of network, each with weights drawn from a held-out seed: the collector's count
    of objects grows by exactly the number of new nodes (the chapter showed 353 for one network).

    An exact count on every shape, no fraction or range: a pass that made even one object more than
    its nodes, on any of the three, fails the test (power 1)."""
    xs, ys = four_examples()
    shapes = [[4, 4, 1], [8, 1], [5, 3, 2, 1]]
    for seed, nouts in zip(held_out_seeds(len(shapes), "ch07-one-object-per-node"), shapes):
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
        assert made == new_nodes, (
            f"MLP(3, {nouts}), seed {seed}: {made} new objects for {new_nodes} new nodes"
        )
