"""Chapter 9's verdicts, re-run on held-out draws of the moons (claimlib.held_out_seeds).

Every test draws its own seeds, all >= 1,000,000: the notebook shows seeds 0-7 and 100, and the
prose's figures were measured on seeds below 1,000,000 (240,000-240,399 and 740,000-740,399 for new
points, 250,000-250,399 for the mini-batch race, 260,000-260,199 and 760,000-760,199 for the penalty
(and 613,000-613,039 with 913,000-913,039), 270,000-270,019 for the collector; earlier, 1000-1039 and
501,000-501,039), so no block of CLAIMS_SEED can contain a seed the prose was written from. Each
fraction test states its power (claimlib).
"""

import gc
import json
import sys

import numpy as np
import pytest
from claimlib import chapter_namespace, claim, fraction_test, held_out_seeds, in_fresh_interpreter

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
    The aside says only the direction, which holds on every machine: more CPU time with the collector on
    (checked: at least 1.1 times, on both Pythons) and less with the batch of 2,000 than of 700 (checked on
    3.11: at least 1.1 times less). Its figures for one machine (shared with other programs), seeds
    270,000-270,019, one fresh interpreter per seed: on(700)/off 2.36 to 2.97 and on(2000)/off 1.18 to
    1.58 on Python 3.11, on(2000)/off 1.13 to 1.40 on 3.13; on(700)/on(2000) 1.73 to 2.37 on 3.11. An
    earlier run (seeds 2000-2005, 3000-3019, 410,000-410,019) read 1.66 to 2.38 on 3.11, another machine
    2.5 to 2.6. The aside gives these ranges as one machine's measurements, not as a claim; the claim is
    the direction, and its checks fail whenever a step costs less than a tenth more, as it would if the
    scans were free (or, on 3.11, if the larger batch saved nothing)."""
    # In a fresh interpreter, as in the notebook's fresh kernel: how much a collection costs
    # depends on what else the process holds (a test worker that has run other tests holds more).
    seeds = held_out_seeds(3, "ch09-collector-costs")
    seconds = json.loads(in_fresh_interpreter(STEP_COSTS, json.dumps(seeds))[-1])
    default_mode = "2000" if sys.version_info >= (3, 13) else "700"
    ratio = seconds[default_mode] / seconds["off"]
    assert ratio >= 1.1, f"a step with the collector on took {ratio:.2f} times the CPU time (aside: more)"
    if sys.version_info < (3, 13):
        gain = seconds["700"] / seconds["2000"]  # = (700 / off) / (2000 / off)
        assert gain >= 1.1, f"a batch of 700 cost {gain:.2f} times a batch of 2,000 (aside: more)"


@pytest.mark.slow
@claim("ch09-new-points")
def test_the_recipe_sorts_new_points_on_more_than_three_draws_in_four():
    """The whole recipe on a new draw: 100 training points, starting weights, 50 full-batch steps with the
    rate falling from 1.0 to 0.1, then 200 new points. Prose measured on 400 draws (training seeds
    240,000-240,399, new points 740,000-740,399): all training points right on 217; at least 98 % of the
    new points right on 322 (80.5 %, 95 % interval 76-84 %); training and new accuracy at most 4 points
    apart. The sentence says: not always all 100 training points; at least 98 % of the new points on more
    than 3 draws in 4 (fraction_test(0.75, 330): at least 223 of 330, power 0.82 against 65 %); new
    accuracy always close to training accuracy (checked: within 10 points on every draw; a truth where
    1 draw in 10 is farther fails with probability 1 - 0.9**330, about 1)."""
    ch = chapter_namespace("09")
    test = fraction_test(0.75, 330)
    assert test.power >= 0.8
    draws = _split(held_out_seeds(2 * test.n, "ch09-new-points"))
    all_right, new_98, gaps = 0, 0, []
    for data_seed, new_seed in draws:
        ch["X"], ch["y"] = make_moons(100, noise=0.1, seed=data_seed)
        net = ch["batch_race"](data_seed, 0, 100, ch["STEPS"])  # full batches: the chapter's run
        trained = np.mean((net(ch["X"]).data[:, 0] > 0) == (ch["y"] > 0))
        X_new, y_new = make_moons(200, noise=0.1, seed=new_seed)
        fresh = np.mean((net(X_new).data[:, 0] > 0) == (y_new > 0))
        all_right += trained == 1.0
        new_98 += fresh >= 0.98
        gaps.append(abs(trained - fresh))
    assert all_right < test.n, f"all 100 training points right on every one of {test.n} draws"
    test.check(new_98, "draws with at least 98 % of the new points right")
    assert max(gaps) <= 0.10, f"training and new accuracy {max(gaps):.1%} apart on one draw"


@pytest.mark.slow
@claim("ch09-minibatch-wins")
def test_mini_batches_end_lower_than_full_batches_for_the_same_work():
    """New moons, new starting weights, new batches on each draw; 100 mini-batches of 20 against 20 full
    batches, the rate falling from 1.0 to 0.1 in both. Prose measured on 400 draws (seeds 250,000-250,399):
    lower on 395, at least 3 times lower on 347 (86.8 %, 95 % interval 83-90 %), at least 8 times lower on
    242; factor 0.74 to over 100. The sentence says: lower almost every time (fraction_test(0.95, 300): at
    least 272 of 300, power 1.00 against 85 %) and at least 3 times lower on more than 4 draws in 5
    (fraction_test(0.8, 300): at least 218 of 300, power 0.83 against 70 %)."""
    ch = chapter_namespace("09")
    lower_test, three_test = fraction_test(0.95, 300), fraction_test(0.8, 300)
    assert min(lower_test.power, three_test.power) >= 0.8
    lower, three = 0, 0
    for seed in held_out_seeds(300, "ch09-minibatch-wins"):
        ch["X"], ch["y"] = make_moons(100, noise=0.1, seed=seed)
        full = ch["hinge_of"](ch["batch_race"](seed, 0, 100, 20))
        mini = ch["hinge_of"](ch["batch_race"](seed, seed, 20, 100))
        lower += mini < full
        three += 3 * mini <= full
    lower_test.check(lower, "draws where the mini-batches ended lower")
    three_test.check(three, "draws where the mini-batches ended at least 3 times lower")


@pytest.mark.slow
@claim("ch09-penalty-sweep")
def test_a_penalty_helps_on_most_draws_and_twice_it_keeps_most_of_the_gain():
    """Each draw: 20 training points and starting weights, its own 500 validation points; 800 steps at
    rate 0.1. Prose measured on 200 draws (seeds 260,000-260,199, validation 760,000-760,199): alpha 0.01
    below no penalty on 169 (84.5 %, 95 % interval 79-89 %); mean validation loss 0.477 without a penalty,
    0.352 / 0.366 at 0.01 / 0.02, 0.447 at 0.1; mean training loss 0.460 at 0.1.
    The sentence says: alpha 0.01 below no penalty on most draws (fraction_test(0.75, 32, says=0.5): at
    least 16 of 32, power 0.84 against 40 %); the best penalty a broad valley around 0.01 (on the grid
    0, 0.01, 0.02, 0.1 the lowest mean at 0.01 or 0.02, and twice the penalty, 0.02, keeping more than
    half of the best mean gain over no penalty: 0.89 and 0.95 of it measured; resampling 62 draws, 32
    at a time, 40,000 times, failed one of these checks on none; power 0.91 against a truth of one
    third, 1.5 times below half, from the same resampling with the 0.02 arm shifted); alpha 0.1 cannot
    fit (mean training loss above 0.4). 128 trainings (4 penalties on 32 draws; 200 before): 30-37 s
    of CPU alone on a machine loaded by other jobs (the 40-draw, 5-penalty test took 34-47 s)."""
    ch = chapter_namespace("09")
    most = fraction_test(0.75, 32, says=0.5)
    assert most.power >= 0.8
    draws = _split(held_out_seeds(2 * most.n, "ch09-penalty-sweep"))
    losses = {}  # alpha -> validation loss on each draw
    fit_loss = []  # alpha 0.1: training loss on each draw
    for alpha in (0.0, 0.01, 0.02, 0.1):
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
    assert best in (0.01, 0.02), f"lowest mean validation loss at alpha {best}: {means}"
    most.check(sum(a < b for a, b in zip(losses[0.01], losses[0.0])), "draws with alpha 0.01 below none")
    kept = (means[0.0] - means[0.02]) / (means[0.0] - means[best])  # twice 0.01: a broad valley
    assert kept > 0.5, f"alpha 0.02 keeps {kept:.0%} of the best mean gain: {means}"
    assert np.mean(fit_loss) > 0.4, f"alpha 0.1: mean training loss {np.mean(fit_loss):.3f} (cannot fit)"
