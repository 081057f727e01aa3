"""Chapter 12's verdicts, re-run with the chapter's own code on held-out draws.

Every seed comes from `held_out_seeds` (all >= 1,000,000); the notebook shows seed 0, and the
prose's margins were measured on seeds below 1,000,000 that it does not show (each test says
which). Times are CPU times of this process (`time.process_time`), the two sides alternating.
"""

import gc
import json
import os
import random
import sys
import time

import numpy as np
import pytest
from claimlib import chapter_namespace, claim, held_out_seeds, in_fresh_interpreter, least_count

from micrograd_lesson import make_moons, nn
from micrograd_lesson.tensor_nn import MLP


@pytest.fixture(scope="module")
def ch12():
    return chapter_namespace("12")


def fresh_draw(ch12, seed):
    """Point the chapter's scalar_step and tensor_step at a fresh draw of the moons (the names
    they read), and return a scalar network with fresh starting weights and its tensor twin."""
    random.seed(seed)
    X, y = make_moons(100, noise=0.1, seed=seed)
    ch12["xs"], ch12["ys"] = X.tolist(), y.tolist()
    ch12["X"], ch12["targets"] = X, y.reshape(-1, 1).astype(float)
    scalar_model = nn.MLP(2, [16, 16, 1])
    return scalar_model, MLP.from_scalar(scalar_model)


def cpu_seconds(step, *args):
    started = time.process_time()
    step(*args)
    return time.process_time() - started


# ---- the plain loop: scalar steps with the collector on and off, and tensor steps, in turn ----
PLAIN_LOOP_DRAWS = 6


@pytest.fixture(scope="module")
def plain_loop(ch12):
    """Per held-out draw: CPU seconds of scalar steps with the collector at its defaults, of
    scalar steps with it off, and of tensor steps, all taken in turn in one plain loop (the
    previous step's graph alive while the next is built, as in the chapter)."""
    runs = []
    for seed in held_out_seeds(PLAIN_LOOP_DRAWS, "ch12-plain-loop"):
        scalar_model, tensor_model = fresh_draw(ch12, seed)
        scalar_step, tensor_step = ch12["scalar_step"], ch12["tensor_step"]
        on, off, tensor = [], [], []
        loss = scalar_step(scalar_model, 0)  # a previous graph, alive, as in any loop
        for k in range(1, 5):
            tensor += [cpu_seconds(tensor_step, tensor_model, k) for _ in range(5)]
            started = time.process_time()
            if k % 2 == 0:
                gc.disable()
            try:
                loss = scalar_step(scalar_model, k)
            finally:
                gc.enable()
            (on if k % 2 else off).append(time.process_time() - started)
        del loss
        runs.append({"on": on, "off": off, "tensor": tensor})
    return runs


@pytest.mark.slow
@claim("ch12-tensor-faster")
def test_the_tensor_step_is_more_than_50_times_faster_in_cpu_time(plain_loop):
    """Prose measured on seeds 2000-2019 (Python 3.11: 270 to 640 times; 3.13: 130 to 310); with the
    machine's two cores shared by about 30 busy programs, 240 to 400 times on 3.11, 145 to 240 on 3.13."""
    for run in plain_loop:
        ratio = np.median(run["on"]) / np.median(run["tensor"])
        assert ratio > 50, f"the tensor step only {ratio:.0f} times faster in CPU time"


@pytest.mark.slow
@claim("ch12-collector-cost")
def test_switching_the_collector_off_cuts_a_plain_steps_cpu_time_by_the_stated_range(plain_loop):
    """Prose measured on seeds 2000-2019 (Python 3.11: 54 to 75 %; 3.13: 31 to 64 %); with the
    machine's two cores shared by about 30 busy programs, 56 to 75 % on 3.11, 29 to 59 % on 3.13."""
    low, high = (0.40, 0.85) if sys.version_info < (3, 12) else (0.20, 0.85)
    for run in plain_loop:
        saved = 1 - np.mean(run["off"]) / np.mean(run["on"])
        assert low <= saved <= high, f"switching the collector off saved {saved:.0%} of a step"


@pytest.mark.slow
@claim("ch12-full-scan-grows")
def test_each_graph_kept_alive_makes_a_full_collection_slower(ch12):
    """Prose measured on seeds 4000-4019 on an otherwise idle machine, and re-measured on seeds
    400000-400005 with the machine's two cores shared by about 30 busy processes: the best of three
    full collections took longer with each step graph kept alive (0, 1, 2), on every draw, on
    Python 3.11 and 3.13 (in a plain script: 97-116, 154-180 and 201-231 ms on 3.11). The tests run
    beside other jobs too, so this checks the same order, on every held-out draw."""
    for seed in held_out_seeds(4, "ch12-full-scan-grows"):
        scalar_model, _ = fresh_draw(ch12, seed)
        kept, best, walked = [], [], []
        gc.collect()
        for graphs in range(3):
            if graphs:
                kept.append(ch12["scalar_step"](scalar_model, graphs))
            walked.append(len(gc.get_objects()))
            best.append(min(cpu_seconds(gc.collect) for _ in range(3)))
        kept.clear()
        assert walked[0] < walked[1] < walked[2], f"objects tracked, 0, 1, 2 graphs alive: {walked}"
        assert best[0] < best[1] < best[2], f"best full collection, 0, 1, 2 graphs alive: {best}"


# ---- the digits: every recipe on the same held-out splits, each training run once ----
DIGIT_SPLITS = held_out_seeds(16, "ch12-digits-97")
# The chapter keeps NumPy's matrix products on one thread, by setting OPENBLAS_NUM_THREADS before
# NumPy loads; here NumPy is loaded already, so the trainings run in a child Python set up the same
# way (a second BLAS thread would add only its waiting to the CPU time, and batches of 64 reach
# the sizes where NumPy starts one).
TRAIN = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from claimlib import chapter_namespace
import numpy as np
ch12 = chapter_namespace("12")
plain = {"hidden": 64, "epochs": 30, "shifts": [(0, 0)], "falling": False}
for seed, recipe in json.loads(sys.argv[2]):
    changes = {"this": {}, "batch 64": {"batch": 64}, "plain": plain}[recipe]
    started = time.process_time()
    model, X_test, y_test, _, _ = ch12["train_digits"](seed, **changes)
    seconds = time.process_time() - started
    print(json.dumps([seed, recipe, float(np.mean(model(X_test).data.argmax(axis=1) == y_test)), seconds]))
"""
_trained = {}


def digits(runs):
    """{(seed, recipe): (held-out accuracy, CPU seconds)} of one training on split `seed` with
    recipe "this" (the chapter's), "batch 64" or "plain"; each is trained once per session."""
    missing = [run for run in runs if run not in _trained]
    if missing:
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", OMP_NUM_THREADS="1")
        for line in in_fresh_interpreter(TRAIN, json.dumps(missing), env=env):
            seed, recipe, accuracy, seconds = json.loads(line)
            _trained[seed, recipe] = accuracy, seconds
    return {run: _trained[run] for run in runs}


@pytest.mark.slow
@claim("ch12-digits-in-seconds")
def test_the_digit_classifier_trains_in_under_10_cpu_seconds():
    """Prose measured on seeds 1000-1039 (1.2 to 1.9 CPU seconds each, on a busy machine)."""
    for (seed, _), (_, seconds) in digits([(seed, "this") for seed in DIGIT_SPLITS[:2]]).items():
        assert seconds < 10, f"split {seed} took {seconds:.1f} CPU seconds"


@pytest.mark.slow
@claim("ch12-digits-97")
def test_the_recipe_reads_98_percent_on_average_and_97_on_about_9_splits_in_10():
    """Prose measured on seeds 1000-1039: mean 98.2 %, standard deviation 0.7 points, at least
    97 % on 36 of the 40. A fresh block of 20 (seeds 5002000-5002019) gave mean 98.15 % but a
    standard deviation of 1.0 (one split at 95.0 %), so the mean of 16 fresh splits has a standard
    error of about 0.21 points (sd 0.83 over the 60): 98.2 +- 0.7 is 3.3 of them either way."""
    accuracies = np.array([acc for acc, _ in digits([(seed, "this") for seed in DIGIT_SPLITS]).values()])
    assert 0.975 <= accuracies.mean() <= 0.989, f"mean held-out accuracy {accuracies.mean():.2%}"
    at_least_97 = int(np.sum(accuracies >= 0.97))
    assert at_least_97 >= least_count(0.9, len(accuracies)), f"97 % or more on {at_least_97} splits"


@pytest.mark.slow
@claim("ch12-digits-batch")
def test_batches_of_64_read_fewer_digits_on_most_splits_and_about_97_6_percent_on_average():
    """Prose measured on seeds 1000-1029: fewer digits than batches of 32 on 25 of 30 splits
    (the same on 4), mean 97.6 % (standard deviation 0.9) instead of 98.2 %; the paired
    differences have a standard deviation of 0.6 points."""
    splits = DIGIT_SPLITS[:8]
    runs = digits([(seed, recipe) for seed in splits for recipe in ("this", "batch 64")])
    this = np.array([runs[seed, "this"][0] for seed in splits])
    batch_64 = np.array([runs[seed, "batch 64"][0] for seed in splits])
    fewer = int(np.sum(batch_64 < this))
    assert fewer >= least_count(25 / 30, len(splits)), f"fewer digits on only {fewer} of {len(splits)}"
    assert batch_64.mean() < this.mean()
    assert 0.965 <= batch_64.mean() <= 0.987, f"batches of 64: mean {batch_64.mean():.2%}"


@pytest.mark.slow
@claim("ch12-digits-plain")
def test_the_plain_recipe_is_within_2_points_of_this_recipe_on_average():
    """Prose measured on seeds 1000-1029 (plain 97.9 % on average against 98.2 %, better on 8 of 30)
    and 300000-300009 (97.67 % against 97.92 %, better on 4 of 10): 97.8 % against 98.1 % over the
    40. A block of 20 at seeds 5002000-5002019 gave 97.1 % against 98.15 % (better on 1), a gap of
    1.07 points; the paired differences have a standard deviation of about 0.9 points (0.32 for a
    mean of 8), so 2 points is 2.9 of those above even that block's gap."""
    splits = DIGIT_SPLITS[:8]
    runs = digits([(seed, recipe) for seed in splits for recipe in ("this", "plain")])
    this = np.mean([runs[seed, "this"][0] for seed in splits])
    plain = np.mean([runs[seed, "plain"][0] for seed in splits])
    assert abs(this - plain) < 0.02, f"this recipe {this:.2%}, the plain one {plain:.2%}"
