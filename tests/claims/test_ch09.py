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


@claim("ch09-minibatch-wins")
def test_mini_batches_beat_full_batches_for_the_same_work_on_other_starts():
    ch = chapter_namespace("09")
    for init_seed in range(5, 10):  # starting networks the chapter does not show
        full = ch["batch_race"](init_seed, 0, 100, 20)
        for sample_seed in (2, 3):
            mini = ch["batch_race"](init_seed, sample_seed, 20, 100)
            assert mini < full, (
                f"start {init_seed}, batches {sample_seed}: mini-batches {mini:.4f}, full {full:.4f}"
            )
