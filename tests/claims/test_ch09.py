"""Chapter 9's verdicts, re-run on held-out draws of the moons (claimlib.held_out_seeds).

Every test draws its own seeds, all >= 1,000,000: the notebook shows seeds 0-7 and 100, and the
prose's margins were measured on seeds 1000-1039 (with 500,000 added for the points a network is
scored on), so no block of CLAIMS_SEED can contain a seed the prose was written from.
"""

import gc
import json
import sys

import numpy as np
import pytest
from claimlib import chapter_namespace, claim, held_out_seeds, in_fresh_interpreter, least_count

from micrograd_lesson import Value, make_moons


def _split(seeds):
    """Two seeds per draw: the first half for training data, the second for the points it is scored on."""
    half = len(seeds) // 2
    return list(zip(seeds[:half], seeds[half:]))


def _use_data(ch, X, y):
    """Point the chapter's scalar loss_fn at another data set."""
    ch["xs"], ch["ys"] = X.tolist(), y.tolist()


@pytest.mark.slow
@claim("ch09-one-object-per-node")
def test_one_forward_pass_makes_one_tracked_object_per_new_node():
    ch = chapter_namespace("09")
    for seed in held_out_seeds(3, "ch09-one-object-per-node"):
        n = 20 + seed % 61  # 20 to 80 points
        _use_data(ch, *make_moons(n, noise=0.1, seed=seed))
        loss = None  # free the last graph before counting
        gc.collect()
        gc.disable()
        try:
            before = len(gc.get_objects())
            loss, _ = ch["loss_fn"]()
            made = len(gc.get_objects()) - before
        finally:
            gc.enable()
        nodes = loss.topological_order()
        new = [node for node in nodes if node not in set(ch["params"])]
        assert made == len(new), f"{n} points (seed {seed}): {made} new objects for {len(new)} new nodes"
        held = {
            id(r)
            for node in new
            for r in gc.get_referents(node)
            if gc.is_tracked(r) and type(r) not in (Value, type)
        }
        assert len(held) == 4, (
            f"{n} points (seed {seed}): the nodes refer to {len(held)} other tracked objects"
        )


@pytest.mark.slow
@claim("ch09-collector-frees-nothing")
def test_the_cycle_collector_frees_nothing_during_training_steps():
    ch = chapter_namespace("09")
    for seed in held_out_seeds(3, "ch09-collector-frees-nothing"):
        n = 40 + seed % 61  # 40 to 100 points
        _use_data(ch, *make_moons(n, noise=0.1, seed=seed))
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


# CPU time of the same step with the collector scanning every 700 new objects, every 2,000, and
# off, in turn, twice per seed (the seeds in argv[2]); prints {"700": s, "2000": s, "off": s}.
STEP_COSTS = """
import gc, json, sys, time
sys.path.insert(0, sys.argv[1])
from claimlib import chapter_namespace
from micrograd_lesson import make_moons
ch = chapter_namespace("09")
modes = {"700": 700, "2000": 2000, "off": None}
seconds = dict.fromkeys(modes, 0.0)
default = gc.get_threshold()
for seed in json.loads(sys.argv[2]):
    X, y = make_moons(100, noise=0.1, seed=seed)
    ch["xs"], ch["ys"] = X.tolist(), y.tolist()
    gc.collect()
    for _ in range(2):
        for mode, threshold in modes.items():
            if threshold is None:
                gc.disable()
            else:
                gc.enable()
                gc.set_threshold(threshold, *default[1:])
            start = time.process_time()
            loss, _ = ch["loss_fn"]()
            for p in ch["params"]:
                p.grad = 0.0
            loss.backward()
            seconds[mode] += time.process_time() - start
            del loss
    gc.enable()
    gc.set_threshold(*default)
print(json.dumps(seconds))
"""


@pytest.mark.slow
@claim("ch09-collector-costs")
def test_a_step_costs_more_cpu_time_with_the_collector_on_and_less_with_a_larger_batch():
    """Collector on scanning every 700 new objects, on every 2,000, off, in turn: CPU time of the same step.
    Prose measured on seeds 2000-2005 and 3000-3019 (100 points, Python 3.11): on(700)/off 1.6 to 2.4; on
    seeds 3000-3019, on(2000)/off 1.1 to 1.5 and the ratio at 700 over the ratio at 2000 1.4 to 2.0; on
    seeds 410,000-410,019, 1.66 to 2.38, 1.01 to 1.48 and 1.44 to 1.89 (the prose: 1.6-2.4, 1.0-1.5). On
    Python 3.13 (default batch 2,000), seeds 400,000-400,019: on(2000)/off 1.10 to 1.71, median 1.28;
    this test checks >= 1.1."""
    # In a fresh interpreter, as in the notebook's fresh kernel: how much a collection costs
    # depends on what else the process holds (a test worker that has run other tests holds more).
    seeds = held_out_seeds(3, "ch09-collector-costs")
    seconds = json.loads(in_fresh_interpreter(STEP_COSTS, json.dumps(seeds))[-1])
    default_mode = "2000" if sys.version_info >= (3, 13) else "700"
    ratio = seconds[default_mode] / seconds["off"]
    least = 1.1 if sys.version_info >= (3, 13) else 1.6  # what the prose says for each Python
    assert ratio >= least, (
        f"a step with the collector on took {ratio:.2f} times the CPU time (prose: {least})"
    )
    if sys.version_info < (3, 13):
        gain = seconds["700"] / seconds["2000"]  # = (700 / off) / (2000 / off)
        assert gain >= 1.4, f"the ratio at 700 is {gain:.2f} times the ratio at 2000 (prose: 1.4)"


@pytest.mark.slow
@claim("ch09-new-points")
def test_the_recipe_sorts_new_points_on_most_draws():
    """The whole recipe on a new draw: 100 training points, starting weights, 50 full-batch steps with the
    rate falling from 1.0 to 0.1, then 200 new points. Prose measured on seeds 1000-1039 (the new points
    on seeds 501,000-501,039): all training points right on 20 of 40, at least 98 % of the new points
    right on 32 of 40."""
    ch = chapter_namespace("09")
    draws = _split(held_out_seeds(60, "ch09-new-points"))
    all_right, new_98 = 0, 0
    for data_seed, new_seed in draws:
        ch["X"], ch["y"] = make_moons(100, noise=0.1, seed=data_seed)
        net = ch["batch_race"](data_seed, 0, 100, ch["STEPS"])  # full batches: the chapter's run
        all_right += np.mean((net(ch["X"]).data[:, 0] > 0) == (ch["y"] > 0)) == 1.0
        X_new, y_new = make_moons(200, noise=0.1, seed=new_seed)
        new_98 += np.mean((net(X_new).data[:, 0] > 0) == (y_new > 0)) >= 0.98
    n, half = len(draws), least_count(0.5, len(draws))
    assert half <= all_right <= n - half, f"all 100 training points right on {all_right} of {n} (about half)"
    assert new_98 >= least_count(0.75, n), f"at least 98 % of the new points right on {new_98} of {n}"


@pytest.mark.slow
@claim("ch09-minibatch-wins")
def test_mini_batches_end_lower_than_full_batches_for_the_same_work():
    """New moons, new starting weights, new batches on each draw; 100 mini-batches of 20 against 20 full
    batches, the rate falling from 1.0 to 0.1 in both. Prose measured on seeds 100,000 + 31 i, i = 0..199:
    lower on 197 of 200, 3 times lower or more on 175, 8 times lower or more on 136; factor 0.72 to over 100.
    """
    ch = chapter_namespace("09")
    seeds = held_out_seeds(30, "ch09-minibatch-wins")
    lower, three, eight = 0, 0, 0
    for seed in seeds:
        ch["X"], ch["y"] = make_moons(100, noise=0.1, seed=seed)
        full = ch["hinge_of"](ch["batch_race"](seed, 0, 100, 20))
        mini = ch["hinge_of"](ch["batch_race"](seed, seed, 20, 100))
        lower += mini < full
        three += 3 * mini <= full
        eight += 8 * mini <= full
    n = len(seeds)
    assert lower >= least_count(0.99, n), (
        f"mini-batches ended lower on {lower} of {n} (all but about 1 in 100)"
    )
    assert three >= least_count(0.875, n), f"3 times lower or more on {three} of {n} (7 draws in 8)"
    assert least_count(0.65, n) <= eight <= n - least_count(0.35, n), (
        f"8 times lower or more on {eight} of {n} (about 2 draws in 3)"
    )


@pytest.mark.slow
@claim("ch09-penalty-sweep")
def test_the_best_penalty_is_a_plateau_from_0_005_to_0_02_on_a_refined_grid():
    """Each draw: 20 training points, its own starting weights, its own 500 validation points; 800 steps at
    rate 0.1. The grid is refined twice; the lowest mean validation loss must stay on the plateau each
    time. Prose measured on seeds 1000-1039 (validation 501,000-501,039): mean validation loss 0.421
    without a penalty, 0.345 / 0.333 / 0.331 / 0.345 / 0.352 at 0.005 / 0.007 / 0.01 / 0.014 / 0.02,
    0.369 at 0.003 and 0.372 at 0.03, 0.445 at 0.1; alpha 0.01 below no penalty on 35 of 40; mean training
    loss 0.461 at alpha 0.1."""
    ch = chapter_namespace("09")
    draws = _split(held_out_seeds(20, "ch09-penalty-sweep"))
    grids = [(0.0, 0.01, 0.1), (0.002, 0.005, 0.02, 0.05), (0.007, 0.014)]  # each refines the last
    plateau = (0.005, 0.02)
    losses = {}  # alpha -> validation loss on each draw
    fit_loss = []  # alpha 0.1: training loss on each draw
    for grid in grids:
        for alpha in grid:
            losses[alpha] = []
            for data_seed, val_seed in draws:
                X_train, y_train = make_moons(20, noise=0.3, seed=data_seed)
                X_val, y_val = make_moons(500, noise=0.3, seed=val_seed)
                net = ch["train_tensor"](X_train, y_train, alpha, init_seed=data_seed)
                losses[alpha].append(np.mean(np.maximum(0.0, 1 - y_val * net(X_val).data[:, 0])))
                if alpha == 0.1:
                    fit_loss.append(np.mean(np.maximum(0.0, 1 - y_train * net(X_train).data[:, 0])))
        means = {alpha: float(np.mean(v)) for alpha, v in losses.items()}
        best = min(means, key=means.get)
        assert plateau[0] <= best <= plateau[1], f"grid {sorted(means)}: lowest mean at {best}: {means}"
    n = len(draws)
    for alpha in (0.007, 0.01, 0.014):  # the middle of the plateau: clearly below no penalty
        assert means[alpha] <= means[0.0] - 0.03, f"mean validation loss at {alpha}: {means}"
    wins = sum(a < b for a, b in zip(losses[0.01], losses[0.0]))
    assert wins >= least_count(0.875, n), f"alpha 0.01 below no penalty on {wins} of {n} draws (7 in 8)"
    assert np.mean(fit_loss) > 0.4, f"alpha 0.1: mean training loss {np.mean(fit_loss):.3f} (cannot fit)"
