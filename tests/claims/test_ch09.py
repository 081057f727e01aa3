"""Chapter 9's verdicts, re-run on other draws of the moons."""

import gc

import numpy as np
import pytest
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
        full = ch["hinge_of"](ch["batch_race"](init_seed, 0, 100, 20))
        for sample_seed in (2, 3):
            mini = ch["hinge_of"](ch["batch_race"](init_seed, sample_seed, 20, 100))
            assert mini < full, (
                f"start {init_seed}, batches {sample_seed}: mini-batches {mini:.4f}, full {full:.4f}"
            )


@pytest.mark.slow
@claim("ch09-new-points")
def test_the_trained_network_sorts_new_points_on_other_draws():
    ch = chapter_namespace("09")
    for train_seed in (0, 10, 20):  # the chapter's training set, then two others
        ch["X"], ch["y"] = make_moons(100, noise=0.1, seed=train_seed)
        net = ch["batch_race"](0, 0, 100, 100)  # the chapter's run: full batches, 100 steps, rate 1.0 -> 0.1
        assert np.mean((net(ch["X"]).data[:, 0] > 0) == (ch["y"] > 0)) == 1.0, f"training set {train_seed}"
        for seed in range(8, 13):  # new points the chapter does not show
            X_new, y_new = make_moons(200, noise=0.1, seed=seed)
            accuracy = np.mean((net(X_new).data[:, 0] > 0) == (y_new > 0))
            assert accuracy >= 0.985, f"training set {train_seed}, new points {seed}: {accuracy:.1%}"


@claim("ch09-collector-frees-nothing")
def test_the_cycle_collector_frees_nothing_during_training_steps_on_other_draws():
    ch = chapter_namespace("09")
    for seed, n in [(1, 60), (2, 40), (3, 80)]:
        X, y = make_moons(n, noise=0.1, seed=seed)
        ch["xs"], ch["ys"] = X.tolist(), y.tolist()
        gc.collect()
        before = sum(generation["collected"] for generation in gc.get_stats())
        for _ in range(2):  # the chapter's one_step: forward, zero, backward
            loss, _ = ch["loss_fn"]()
            for p in ch["params"]:
                p.grad = 0.0
            loss.backward()
        del loss
        freed = sum(generation["collected"] for generation in gc.get_stats()) - before
        assert freed == 0, f"{n} points (seed {seed}): the collector freed {freed} objects"


@pytest.mark.slow
@claim("ch09-penalty-sweep")
def test_alpha_0_01_has_the_lowest_mean_validation_loss_on_other_draws():
    ch = chapter_namespace("09")
    alphas, draws = (0.0, 0.001, 0.01, 0.1), range(5, 10)  # draws the chapter does not show
    losses = np.zeros((len(alphas), len(draws)))
    for d, draw in enumerate(draws):
        X_draw, y_draw = make_moons(20, noise=0.3, seed=draw)
        for a, alpha in enumerate(alphas):
            net = ch["train_tensor"](X_draw, y_draw, alpha)
            scores = net(ch["X_val"]).data[:, 0]
            losses[a, d] = np.mean(np.maximum(0.0, 1 - ch["y_val"] * scores))
    means = losses.mean(axis=1)
    assert int(np.argmin(means)) == alphas.index(0.01), f"mean validation losses {means.round(3)}"
    wins = int(np.sum(losses[2] < losses[0]))
    assert 3 <= wins < 5, f"alpha 0.01 beat no penalty on {wins} of 5 draws (the chapter says most, not all)"
