"""Chapter 9's verdicts, re-run on other draws of the moons."""

import gc

from claimlib import chapter_namespace, claim

from micrograd_lesson import make_moons


@claim("ch09-one-object-per-node")
def test_one_forward_pass_makes_one_tracked_object_per_new_node():
    ch = chapter_namespace("09")
    for seed, n in [(1, 30), (2, 50), (3, 20)]:
        X, y = make_moons(n, noise=0.1, seed=seed)
        ch["xs"], ch["ys"] = X.tolist(), y.tolist()
        loss = None  # free the last graph before counting
        gc.collect()
        gc.disable()
        try:
            before = len(gc.get_objects())
            loss, _ = ch["loss_fn"]()
            made = len(gc.get_objects()) - before
        finally:
            gc.enable()
        new_nodes = len(loss.topological_order()) - len(ch["params"])
        assert made == new_nodes, f"{n} points (seed {seed}): {made} new objects for {new_nodes} new nodes"
