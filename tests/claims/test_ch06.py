"""Chapter 6's verdicts, re-run on held-out draws of inputs, networks, data and bug sizes.

Every draw comes from `held_out_seeds` (CLAIMS_SEED), never from the seeds the notebook shows.
"""

import math
import random
import statistics

import numpy as np
import pytest
from claimlib import (
    POWER,
    RATIO_OFF,
    chapter_namespace,
    claim,
    fraction_test,
    held_out_seeds,
    median_power,
    power,
)

from micrograd_lesson import MLP, Value, four_examples, gradcheck, make_moons
from micrograd_lesson.gradcheck import gradcheck_parameters

try:
    from micrograd.engine import Value as MicrogradValue
except ImportError:
    MicrogradValue = None

BEHIND_TANH_SMALL, BEHIND_TANH_BIG = (
    36,
    320,
)  # rows of MLP(3, [4, 4, 1]) and MLP(2, [16, 16, 1]) before the output neuron


@pytest.fixture(scope="module")
def ch06():
    return chapter_namespace("06")


def allowed(nudge):
    """gradcheck's rule: a row passes when |engine - nudge| <= 1e-6 + 1e-4 |nudge|."""
    return 1e-6 + 1e-4 * abs(nudge)


def log_with_derivative(derivative):
    """log, with `derivative(x)` as its local derivative."""

    def log(x):
        return Value(math.log(x.data), (x,), "log", _local_grads=(derivative(x.data),))

    return log


@claim("ch06-tolerance-blind-spot")
def test_the_check_catches_a_mistake_exactly_where_it_exceeds_the_rule(ch06):
    """Prose measured on the notebook's x = 2, 0.5, 0.05; the rule re-run at held-out x from 1e-2 to 1e7,
    with mistakes planted 1.25 times below and above the line.

    Power 1 against a line 1.5 times higher or lower than the sentence's: each of the 100 draws then
    has a planted mistake on the wrong side of it (the 1.25 times larger one would pass, or the
    1.25 times smaller one fail), and any one fails the test."""
    log_slightly_off = ch06["log_slightly_off"]
    assert gradcheck(log_slightly_off, [2.0])  # the notebook's miss ...
    assert not gradcheck(log_slightly_off, [0.5]) and not gradcheck(
        log_slightly_off, [0.05]
    )  # ... and catches
    gradients = []
    for seed in held_out_seeds(100, "ch06-tolerance-blind-spot"):
        rng = random.Random(seed)
        x = 10 ** rng.uniform(-2, 7)  # true gradients 1/x from 1e-7 to 1e2: both terms of the rule decide
        gradients.append(1 / x)
        sign = rng.choice([-1, 1])
        for factor, caught in ((1 / 1.25, False), (1.25, True)):  # inside a line 1.5 times off
            wrong = log_with_derivative(lambda x, f=factor, s=sign: 1 / x + s * f * allowed(1 / x))
            assert bool(gradcheck(wrong, [x])) != caught, (x, factor, sign)
    assert min(gradients) < 1e-6 and max(gradients) > 10  # both regimes were tried


@claim("ch06-tolerance-small-gradients")
def test_the_tanh_without_its_square_passes_above_about_7_25_and_fails_below(ch06):
    """Prose measured at x = 1, 5, 8 (the notebook) and by solving t(1 - t) = 1e-6 + 1e-4 (1 - t**2) for
    t = tanh x: a grid of step 0.001 over [6.9, 7.6] finds the one crossing at 7.255. "Every x above": up
    to 1000 too, where tanh x rounds to 1 and both gradients are 0.

    Power against a threshold 1.5 times higher or lower than 7.25, from the draws themselves (claimlib.
    power): 1.00 either way on the default block; asserted >= POWER on every block."""
    tanh_forgot_square = ch06["tanh_forgot_square"]
    aboves, belows = [], []
    for seed in held_out_seeds(60, "ch06-tolerance-small-gradients"):
        rng = random.Random(seed)
        far = 10 ** rng.uniform(math.log10(15.0), 3.0)  # 15 to 1000
        above, below = rng.choice([rng.uniform(7.3, 15.0), far]), rng.uniform(0.1, 7.2)
        aboves.append(above)
        belows.append(below)
        missed = gradcheck(tanh_forgot_square, [above])
        assert missed, above
        if above < 9:  # beyond, the gradient is below 1e-7 and the nudge itself measures it only roughly
            assert 0.49 < missed.autograd[0] / missed.numeric[0] < 0.51, above  # wrong by a factor near 2
        assert not gradcheck(tanh_forgot_square, [below]), below
    line = 7.255
    # A threshold RATIO_OFF times higher would fail the draws above between 7.255 and 1.5 x 7.255; one
    # RATIO_OFF times lower would let through the draws below between 7.255 / 1.5 and 7.255.
    still_right_if_higher = sum(x >= line * RATIO_OFF for x in aboves) / len(aboves)
    still_right_if_lower = sum(x <= line / RATIO_OFF for x in belows) / len(belows)
    powers = [
        power(len(aboves), len(aboves), still_right_if_higher),
        power(len(belows), len(belows), still_right_if_lower),
    ]
    assert min(powers) >= POWER, powers


@claim("ch06-every-operation-passes")
def test_every_operation_passes_on_held_out_draws(ch06):
    """Prose measured on seeds 1000-10999: every operation passed every time, largest error below 1e-8 on
    96.7 % (never above 1.3e-7), and the worst operation a ** 3 on 69 % of draws (re-measured on
    5,000,000-5,002,999: 97.0 % and 69 %).

    "Every operation passes again": all 300 draws, power 1.00 against 90 % of draws. The note's 96.7 %:
    fraction_test(0.96, 300), power 1.00 against 86 %; "not always" below 1e-8: at least one of 300
    above it (a true rate of 3.3 % fails that with probability 4e-5)."""
    largest, worst = [], []
    for seed in held_out_seeds(300, "ch06-every-operation-passes"):
        max_errors, passed = ch06["check_every_operation"](seed)
        assert all(passed.values()), (seed, passed)
        largest.append(max(max_errors.values()))
        worst.append(max(max_errors, key=max_errors.get))
    assert max(largest) < 1e-6, max(largest)  # under the line
    below = sum(e < 1e-8 for e in largest)
    fraction_test(0.96, len(largest)).check(below, "draws with every error below 1e-8")
    assert below < len(largest), sorted(largest)[-5:]  # ... not always
    most_often = max(set(worst), key=worst.count)
    assert most_often == "a ** 3", {name: worst.count(name) for name in set(worst)}


def small_network_check(seed, tanh=None):
    """The chapter's 41-parameter check on the four examples, with the real tanh or with `tanh`."""
    xs4, ys4 = four_examples()
    random.seed(seed)
    net = MLP(3, [4, 4, 1], activation="tanh")

    def loss():
        return sum((net(x) - y) ** 2 for x, y in zip(xs4, ys4))

    real_tanh = Value.tanh
    Value.tanh = tanh or real_tanh
    try:
        return gradcheck_parameters(loss, net.parameters())
    finally:
        Value.tanh = real_tanh


@claim("ch06-whole-network-passes")
@pytest.mark.slow
def test_the_whole_network_check_passes_on_held_out_networks(ch06):
    """Prose measured on seeds 1000-1599: every row passed, largest relative error below 1e-6 on 98.3 %; on
    the others the worst row's gradient was a few thousandths or less (re-measured on 5,100,000-5,100,999:
    97.9 %, worst rows' gradients at most 7.4e-4).

    "Pass every row too": all 120 networks, power 1.00 against 90 % of networks. The note's 98.3 %:
    fraction_test(0.98, 120), power 0.96 against 88 %."""
    below = 0
    seeds = held_out_seeds(120, "ch06-whole-network-passes")
    test = fraction_test(0.98, len(seeds))
    for seed in seeds:
        right = small_network_check(seed)
        assert right.ok, (seed, right.max_rel_error)
        below += right.max_rel_error < 1e-6
        if right.max_rel_error >= 1e-6:  # the worst row is a small gradient: "a few thousandths or less"
            worst = right.rel_errors.index(right.max_rel_error)
            assert abs(right.numeric[worst]) < 5e-3, (seed, right.numeric[worst])
    test.check(below, "networks with every relative error below 1e-6")


@claim("ch06-bug-first-digit")
@pytest.mark.slow
def test_how_many_rows_the_bug_gets_wrong_in_the_first_digit(ch06):
    """Prose measured on seeds 1000-1599: between 10 and 30 rows above 0.5 on 95.7 % of them, median 21.5
    (half of them between 17 and 25).

    fraction_test(0.95, 160): power 0.89 against 85 %. The median, asserted in [16, 26]: power against a
    typical count 1.5 times larger or smaller (median_power on the draws themselves) 1.00 on the default
    block, asserted >= POWER on every block."""
    seeds = held_out_seeds(160, "ch06-bug-first-digit")
    test = fraction_test(0.95, len(seeds))
    counts = []
    for seed in seeds:
        broken = small_network_check(seed, ch06["tanh_forgot_square"])
        counts.append(sum(r > 0.5 for r in broken.rel_errors))
    test.check(sum(10 <= c <= 30 for c in counts), "networks with 10 to 30 rows wrong in the first digit")
    assert 16 <= statistics.median(counts) <= 26, sorted(counts)
    assert median_power(counts, 16, 26) >= POWER, sorted(counts)


@claim("ch06-bug-behind-every-tanh")
@pytest.mark.slow
def test_the_tanh_bug_fails_exactly_the_parameters_behind_a_tanh(ch06):
    """Prose measured on seeds 300000-301499: the same 36 failed on 1,498 of 1,500 (on 300764 row 27 passed,
    on 301366 row 23), and no output row ever failed (re-measured on 5,100,000-5,100,999: 999 of 1,000).

    "Only they": every one of 80 networks, power 1.00 against 90 %. "The same 36, almost every time":
    fraction_test(0.998, 80), power 0.99 against 89.8 %."""
    seeds = held_out_seeds(80, "ch06-bug-behind-every-tanh")
    test = fraction_test(0.998, len(seeds))
    exact = 0
    for seed in seeds:
        broken = small_network_check(seed, ch06["tanh_forgot_square"])
        failing = [i for i, ok in enumerate(broken.passed) if not ok]
        assert all(i < BEHIND_TANH_SMALL for i in failing), (seed, failing)  # "and only they": every draw
        exact += failing == list(range(BEHIND_TANH_SMALL))
    test.check(exact, "networks on which exactly the 36 rows behind a tanh failed")


def big_network(seed):
    """The chapter's 337-parameter network on 10 two-moons points, both drawn from `seed`."""
    X, y = make_moons(n_samples=10, noise=0.1, seed=seed)
    random.seed(seed)
    return MLP(2, [16, 16, 1], activation="tanh"), list(zip(X.tolist(), y.tolist()))


def rows_that_pass(loss_fn, params, tanh):
    """Which rows of gradcheck_parameters(loss_fn, params) pass with `tanh` swapped in.

    The bug leaves the forward pass alone, so each row's nudge is the real engine's gradient to within
    about 1e-9 (ch06-whole-network-passes); rows whose verdict that could change, within 1e-7 of the
    line, are nudged for real. Two backward passes instead of 2 x 337 forward passes per loss.
    """

    def grads(swap):
        real_tanh = Value.tanh
        Value.tanh = swap or real_tanh
        try:
            for p in params:
                p.grad = 0.0
            loss_fn().backward()
            return [p.grad for p in params]
        finally:
            Value.tanh = real_tanh

    buggy, true = grads(tanh), grads(None)
    passed = []
    for p, b, n in zip(params, buggy, true):
        if abs(abs(b - n) - allowed(n)) < 1e-7:  # too close to call without the nudge itself
            real_tanh = Value.tanh
            Value.tanh = tanh
            try:
                passed.append(gradcheck_parameters(loss_fn, [p]).ok)
            finally:
                Value.tanh = real_tanh
        else:
            passed.append(abs(b - n) <= allowed(n))
    return passed


@claim("ch06-sampled-bug-behind-tanh")
@pytest.mark.slow
def test_the_summed_check_usually_fails_every_row_behind_a_tanh(ch06):
    """Prose measured on seeds 1000-3799 (moons and weights from the same seed): on 89 of the 2,800 some
    row behind a tanh passed the summed check (3.2 %, interval 2.6-3.9 %); the output neuron's 17 rows
    always passed. Re-measured on 400 other held-out draws: 15 (3.8 %).

    "Usually every row fails; on a small share of draws one slips through": fraction_test(0.96, 250) on
    the draws where every row fails, power 1.00 against 86 %; and at least one slip in 250 draws (a true
    rate of 3.2 % gives none with probability 3e-4). The prose once said "about 3 draws in 100": telling
    3 % from 1.5 times more or less with power 0.8 takes about 4,000 draws (110 s), so the sentence
    gives no rate and the note gives the measured one with its interval."""
    seeds = held_out_seeds(250, "ch06-sampled-bug-behind-tanh")
    test = fraction_test(0.96, len(seeds))
    all_fail = 0
    for seed in seeds:
        net, points = big_network(seed)
        passed = rows_that_pass(
            lambda net=net, points=points: sum((net(x) - t) ** 2 for x, t in points),
            net.parameters(),
            ch06["tanh_forgot_square"],
        )
        assert all(passed[BEHIND_TANH_BIG:]), seed  # the output neuron: nothing to catch
        all_fail += not any(passed[:BEHIND_TANH_BIG])
    test.check(all_fail, "draws on which every row behind a tanh failed")  # usually every row fails ...
    assert all_fail < len(seeds), all_fail  # ... not always: a small share (3.2 %) lets a row through


@claim("ch06-per-example-catches")
@pytest.mark.slow
def test_checked_one_example_at_a_time_every_row_behind_a_tanh_fails_somewhere(ch06):
    """Prose measured on seeds 1000-3799: every row behind a tanh failed on at least one point, every time;
    on 1000-1399 the output neuron's rows passed on every point.

    "On every draw": all 80, power 1.00 against 90 % of draws."""
    for seed in held_out_seeds(80, "ch06-per-example-catches"):
        net, points = big_network(seed)
        caught = [False] * len(net.parameters())
        for x, t in points:
            passed = rows_that_pass(
                lambda x=x, t=t, net=net: (net(x) - t) ** 2, net.parameters(), ch06["tanh_forgot_square"]
            )
            caught = [c or not ok for c, ok in zip(caught, passed)]
        assert all(caught[:BEHIND_TANH_BIG]), (seed, [i for i, c in enumerate(caught) if not c])
        assert not any(caught[BEHIND_TANH_BIG:]), seed  # the output neuron passes on every point


@claim("ch06-composite-property")
def test_the_composite_property_holds_on_held_out_pairs(ch06):
    """1,000 held-out pairs, every one: power 1.00 against a property that holds on 99 % of the square
    (0.99**1000 = 4e-5)."""
    composite = ch06["composite"]
    (seed,) = held_out_seeds(1, "ch06-composite-property")
    for a, b in np.random.default_rng(seed).uniform(-3, 3, size=(1000, 2)).tolist():
        assert gradcheck(composite, [a, b]), (a, b)


@claim("ch06-micrograd-compounds")
@pytest.mark.skipif(MicrogradValue is None, reason="micrograd is not installed")
def test_micrograd_compounds_a_stale_interior_gradient_on_every_call():
    """Exact values, every call at five held-out a: no fraction or range to overstate."""
    for seed in held_out_seeds(5, "ch06-micrograd-compounds"):
        a0 = random.Random(seed).uniform(-3, 3)
        a = MicrogradValue(a0)
        b = a * a
        c = b * 3
        for call in range(1, 11):
            c.backward()
            assert b.grad == 3 * call  # one more stale copy per call
            assert math.isclose(a.grad, 6 * a0 * call * (call + 1) / 2)  # 6a, 6a + 12a, ...: not 6a per call
