"""Chapter 12's verdicts, re-run with the chapter's own code on held-out draws.

Every seed comes from `held_out_seeds` (all >= 1,000,000); the notebook shows seed 0, and the
folded notes' figures were measured on seeds below 1,000,000 (each test says which). Times are
CPU times (`time.process_time`), the two sides of a comparison taking turns.

Every experiment runs in a fresh Python (`in_fresh_interpreter`) set up as the chapter's kernel is:
NumPy on one thread, the chapter's claim-setup cells run. A test process holds every earlier
test's objects, and the cycle collector's full scans come rarer there (it runs one only when the
objects that survived since the last exceed a quarter of all the old ones), so a collector
verdict measured in it is not the one a learner's kernel meets.

Power. A sentence "every draw" is tested on 16 draws: were it true on only 90 % of draws, all 16
would pass with probability 0.9**16 = 0.19, so the test fails with probability 0.81. A sentence
"more than B" (a humble bound) is also tested against a truth 1.5 times past its bound: the
measured draws rescaled so that their median is B / 1.5 (or B * 1.5 for "under B"), of which
hardly any still clears B (`bound_power`).
"""

import json
import os

import numpy as np
import pytest
from claimlib import (
    POWER,
    bound_power,
    claim,
    fraction_test,
    held_out_seeds,
    in_fresh_interpreter,
)

ONE_THREAD = dict(os.environ, OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", OMP_NUM_THREADS="1")
EVERY = 16  # draws for a sentence that says "every": fraction_test(1.0, 16) has power 0.81

# The start of every script: the chapter's claim-setup cells, in a fresh Python, and a fresh draw
# of the moons put where the chapter's steps read them (xs, ys, X, targets).
SETUP = """
import gc, json, random, sys, time
sys.path.insert(0, sys.argv[1])
from claimlib import chapter_namespace
ch12 = chapter_namespace("12")
import numpy as np
from micrograd_lesson import make_moons, nn
from micrograd_lesson.tensor_nn import MLP


def fresh_draw(seed):
    random.seed(seed)
    X, y = make_moons(100, noise=0.1, seed=seed)
    ch12["xs"], ch12["ys"] = X.tolist(), y.tolist()
    ch12["X"], ch12["targets"] = X, y.reshape(-1, 1).astype(float)
    return nn.MLP(2, [16, 16, 1])


def cpu_seconds(step, *args):
    started = time.process_time()
    step(*args)
    return time.process_time() - started
"""

# The plain loop of the chapter, per draw: scalar steps with the collector at its defaults (k odd)
# and off (k even), the previous step's graph alive meanwhile; between them, tensor steps, batched
# and point by point. Each takes its turn, so that whatever else the machine does slows all alike.
PLAIN_LOOP = (
    SETUP
    + """
for seed in json.loads(sys.argv[2]):
    scalar_model = fresh_draw(seed)
    batched, by_point = MLP.from_scalar(scalar_model), MLP.from_scalar(scalar_model)
    on, off, tensor, point = [], [], [], []
    loss = ch12["scalar_step"](scalar_model, 0)  # a previous graph, alive, as in any loop
    for k in range(1, 5):
        tensor += [cpu_seconds(ch12["tensor_step"], batched, k) for _ in range(5)]
        point.append(cpu_seconds(ch12["tensor_step_point_by_point"], by_point, k))
        started = time.process_time()
        if k % 2 == 0:
            gc.disable()
        try:
            loss = ch12["scalar_step"](scalar_model, k)
        finally:
            gc.enable()
        (on if k % 2 else off).append(time.process_time() - started)
    print(json.dumps({"seed": seed, "on": on, "off": off, "tensor": tensor, "point": point}))
"""
)

# One full collection (the best of three) with 0, 1 and 2 step graphs kept alive.
FULL_SCANS = (
    SETUP
    + """
for seed in json.loads(sys.argv[2]):
    scalar_model = fresh_draw(seed)
    kept, best, walked = [], [], []
    gc.collect()
    for graphs in range(3):
        if graphs:
            kept.append(ch12["scalar_step"](scalar_model, graphs))
        walked.append(len(gc.get_objects()))
        best.append(min(cpu_seconds(gc.collect) for _ in range(3)))
    kept.clear()
    print(json.dumps({"seed": seed, "walked": walked, "best": best}))
"""
)

_measured = {}


def measured(script, seeds):
    """{seed: what `script` printed for it}, each draw run once per session, in a fresh Python."""
    missing = [seed for seed in seeds if (script, seed) not in _measured]
    if missing:
        for line in in_fresh_interpreter(script, json.dumps(missing), env=ONE_THREAD):
            record = json.loads(line)
            _measured[script, record["seed"]] = record
    return {seed: _measured[script, seed] for seed in seeds}


def every_draw_clears(values, bound, above=True, what="draw"):
    """Assert a sentence "every draw is more than (less than) `bound`", with its power."""
    values = np.asarray(values, dtype=float)
    assert fraction_test(1.0, len(values)).power >= POWER
    assert bound_power(values, bound, above) >= POWER, f"{what}s {values} cannot catch 1.5x off"
    cleared = values > bound if above else values < bound
    assert cleared.all(), f"{what}s {np.round(values, 3)}: not all {'above' if above else 'below'} {bound}"


def plain_loop():
    return measured(PLAIN_LOOP, held_out_seeds(EVERY, "ch12-plain-loop")).values()


@pytest.mark.slow
@claim("ch12-collector-cost")
def test_switching_the_collector_off_cuts_the_plain_loops_cpu_time_by_at_least_a_tenth_on_most_draws():
    """ "On most draws ... by at least a tenth". Measured on seeds 2000-2039, two steps with the
    collector at its defaults and two off in turn, in a fresh Python: cut by 22-77 % on 3.11,
    23-68 % on 3.13. A step with no full scan is cut by less, and whether a full scan falls in the
    two steps measured decides a draw: CLAIMS_SEED 731846, in CI beside the browser test, had one
    draw cut by -1 % and one by 15 % (the other 14 by 22-75 %). So the sentence says "most", and
    the test asks for at least 10 of 16 draws: power 0.94 against a sentence true on only 40 % of
    draws; a true rate of 90 % fails it with probability below 0.001."""
    saved = [1 - np.mean(run["off"]) / np.mean(run["on"]) for run in plain_loop()]
    cleared = sum(cut >= 0.10 for cut in saved)
    fraction_test(0.9, len(saved), says=0.5).check(cleared, f"draws cut by at least a tenth ({saved})")


@pytest.mark.slow
@claim("ch12-tensor-faster")
def test_the_tensor_step_takes_more_than_50_times_less_cpu_time_on_every_draw():
    """Measured on seeds 2000-2039 in a fresh Python: 245-792 times on 3.11, 174-536 on 3.13. Power
    0.81 against a sentence true on 90 % of draws (16 draws); 1.00 against a true ratio of 33 (1.5
    times less)."""
    ratios = [np.median(run["on"]) / np.median(run["tensor"]) for run in plain_loop()]
    every_draw_clears(ratios, 50, what="ratio")


@pytest.mark.slow
@claim("ch12-who-loops")
def test_looping_over_the_points_in_python_makes_the_tensor_step_more_than_5_times_slower():
    """Measured on seeds 2000-2039 in a fresh Python: 28-79 times on 3.11, 23-72 on 3.13 (9-11 on
    an overloaded machine). Power 0.81 against a sentence true on 90 % of draws (16 draws); 1.00
    against a true ratio of 3.3 (1.5 times less)."""
    ratios = [np.median(run["point"]) / np.median(run["tensor"]) for run in plain_loop()]
    every_draw_clears(ratios, 5, what="ratio")


@pytest.mark.slow
@claim("ch12-full-scan-grows")
def test_each_graph_kept_alive_makes_a_full_collection_slower_on_every_draw():
    """Measured on seeds 4000-4039 in a fresh Python: ordered on all 40, on 3.11 and 3.13. It says
    that a full collection takes longer with each graph kept alive (0 < 1 < 2), on every draw:
    16 draws, power 0.81 against a truth of 90 % of draws."""
    runs = measured(FULL_SCANS, held_out_seeds(EVERY, "ch12-full-scan-grows")).values()
    test = fraction_test(1.0, len(runs))
    assert test.power >= POWER
    for run in runs:
        walked = run["walked"]
        assert walked[0] < walked[1] < walked[2], f"objects tracked, 0, 1, 2 graphs alive: {walked}"
    unordered = [run["best"] for run in runs if not run["best"][0] < run["best"][1] < run["best"][2]]
    test.check(len(runs) - len(unordered), f"draws slower with each graph (not: {unordered})")


# ---- the digits: every recipe on the same held-out splits, each training run once ----
DIGIT_SPLITS = held_out_seeds(30, "ch12-digits-97")
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
        for line in in_fresh_interpreter(TRAIN, json.dumps(missing), env=ONE_THREAD):
            seed, recipe, accuracy, seconds = json.loads(line)
            _trained[seed, recipe] = accuracy, seconds
    return {run: _trained[run] for run in runs}


def accuracies(recipe, splits):
    runs = digits([(seed, recipe) for seed in splits])
    return np.array([runs[seed, recipe][0] for seed in splits])


@pytest.mark.slow
@claim("ch12-digits-in-seconds")
def test_the_digit_classifier_trains_in_under_10_cpu_seconds_on_every_split():
    """Measured on 200 splits (seeds 1000-1039, 620000-620059 and 900000-900039 on 3.11,
    630000-630029 and 910000-910029 on 3.13): 0.7 to 1.1 CPU seconds each. Power 0.81 against a
    sentence true on 90 % of splits (16 splits); 1.00 against a true time of 15 CPU seconds (1.5
    times more)."""
    runs = digits([(seed, "this") for seed in DIGIT_SPLITS[:EVERY]])
    every_draw_clears([seconds for _, seconds in runs.values()], 10, above=False, what="CPU second")


@pytest.mark.slow
@claim("ch12-digits-97")
def test_the_recipe_reads_about_98_percent_on_average_and_97_on_most_splits():
    """Measured on the 200 splits of the test above: mean 98.2 %, standard deviation 0.6 points,
    at least 97 % on 190 (95 %; an earlier block of 12 fresh splits had 8). "Most": at least 19
    of 30 for a rate of 0.85, power 0.99 against 40 %. "About 98 %": a mean from 97.5 to 98.9 %,
    6 standard errors either side of 98.2 (0.6 / sqrt(30) = 0.11 points); any truth below 97.5 %,
    let alone 88 %, fails it."""
    held_out = accuracies("this", DIGIT_SPLITS)
    assert 0.975 <= held_out.mean() <= 0.989, f"mean held-out accuracy {held_out.mean():.2%}"
    most = fraction_test(0.85, len(held_out), says=0.5)
    most.check(int(np.sum(held_out >= 0.97)), "splits at 97 % or more")


@pytest.mark.slow
@claim("ch12-digits-batch")
def test_batches_of_64_read_fewer_digits_on_most_splits():
    """Measured on 160 of the 200 splits (all but seeds 1000-1039): fewer on 137 (86 %), the
    same on 17. "Most": at least 11 of 21 for a rate of 0.8, power 0.83 against 40 %."""
    splits = DIGIT_SPLITS[:21]
    fewer = int(np.sum(accuracies("batch 64", splits) < accuracies("this", splits)))
    fraction_test(0.8, len(splits), says=0.5).check(fewer, "splits where batches of 64 read fewer")


@pytest.mark.slow
@claim("ch12-digits-plain")
def test_the_plain_recipe_reads_fewer_digits_on_most_splits():
    """Measured on the 200 splits: the plain recipe read fewer on 150 (75 %), the same on 17 (on
    seeds 1000-1039 fewer on only 25 of 40; on an earlier block of 12 fresh splits, on all 12).
    "Most": at least 15 of 30 for a rate of 0.75, power 0.82 against 40 %."""
    fewer = int(np.sum(accuracies("plain", DIGIT_SPLITS) < accuracies("this", DIGIT_SPLITS)))
    fraction_test(0.75, len(DIGIT_SPLITS), says=0.5).check(fewer, "splits where the plain recipe read fewer")
