"""Chapter 1's verdicts, re-run on held-out draws, other sizes and finer grids.

Every random point, weight and network here comes from `held_out_seeds` (all >= 1,000,000), never
from the seeds the notebook shows (0 and 1) nor the seeds its prose was measured on (1000-1199 and
310,000-310,999).
"""

import math
import random

import numpy as np
import pytest
from claimlib import (
    POWER,
    chapter_namespace,
    claim,
    fraction_test,
    held_out_seeds,
    least_count,
    power,
    range_power,
)

from micrograd_lesson import MLP, Value, central_difference, forward_difference


@pytest.fixture(scope="module")
def ch01():
    return chapter_namespace("01")


@claim("ch01-expression-swell")
def test_the_derivative_formula_outgrows_the_program(ch01):
    program_and_derivative = ch01["program_and_derivative"]
    operations_in = ch01["operations_in"]
    sizes = [operations_in(program_and_derivative(n)[1]) for n in range(1, 15)]
    # every line at least doubles the written-out derivative; the program adds 3 operations
    assert all(later >= 2 * earlier for earlier, later in zip(sizes, sizes[1:])), sizes
    growth = [later / earlier for earlier, later in zip(sizes, sizes[1:])]
    assert all(a > b for a, b in zip(growth[1:], growth[2:])) and growth[-1] < 2.2, growth  # settles to 2
    assert 3000 * 36 < sizes[11] < 5000 * 36  # at 12 lines: about 4,000 times the 36 of the program
    # the counted formula is the derivative, and the record is the program, at held-out points
    for seed in held_out_seeds(3, "ch01-expression-swell"):
        for x in np.random.default_rng(seed).uniform(0.05, 0.95, size=3).tolist():
            for n in (3, 6):
                recorded, grad = ch01["recorded_operations"](n, x)
                assert recorded == 3 * n
                assert math.isclose(
                    eval(program_and_derivative(n)[1], {"x": x}), grad, rel_tol=1e-9, abs_tol=1e-12
                )
    # multiplied out (exact integer coefficients), y has degree 2**n: Horner's form of dy/dx costs
    # 2 * (2**n - 1) operations, fewer than the blind formula but doubling with every line
    coefficients = [0, 1]  # y = x
    for n in range(1, 9):
        one_minus = [1 - coefficients[0]] + [-c for c in coefficients[1:]]
        product = [0] * (len(coefficients) + len(one_minus) - 1)
        for i, u in enumerate(coefficients):
            for j, v in enumerate(one_minus):
                product[i + j] += 4 * u * v
        coefficients = product
        assert len(coefficients) - 1 == 2**n and coefficients[-1] != 0
    horner = 2 * (2**12 - 1)
    assert 17 <= sizes[11] / horner < 18 and 220 < horner / 36 < 240
    # and it is not special to this program: another nested product, y = y * (y + x)
    y, dy = "x", "1"
    sizes = []
    for _ in range(12):
        y, dy = f"{y}*({y} + x)", f"{dy}*({y} + x) + {y}*({dy} + 1)"
        sizes.append(sum(dy.count(op) for op in "*-+"))
    assert all(later >= 2 * earlier for earlier, later in zip(sizes, sizes[1:])), sizes


@claim("ch01-central-bottom-lower")
def test_the_central_bottom_is_several_hundred_times_lower_on_every_grid(ch01):
    """Deterministic (x = 2): each band of h holds 81 to 80,001 values and is moved a tenth of a
    decade either way; the factor is 597 to 766 (605 and 729 at 81 and 8,001 values unmoved, 744
    at 80,001). "Several hundred times" is tested as 550 to 850: power 1.00 against a truth 1.5
    times larger or smaller (range_power)."""
    bottom_median, g = ch01["bottom_median"], ch01["g"]
    # the single smallest errors are luck: a ten times finer grid of h finds smaller ones
    hs = ch01["hs"]
    finer = np.logspace(-1, -15, 561)
    for difference in (forward_difference, central_difference):
        coarse_best = min(abs(difference(g, 2.0, h) - 12.0) for h in hs)
        assert min(abs(difference(g, 2.0, h) - 12.0) for h in finer) < coarse_best, difference
    factors = {}
    for points in (81, 801, 8001, 80_001):
        for shift in (-0.1, 0.0, 0.1):  # the band moved, in decades
            k = 10**shift
            forward = bottom_median(forward_difference, g, 2.0, 12.0, 1e-9 * k, 1e-7 * k, points)
            central = bottom_median(central_difference, g, 2.0, 12.0, 1e-6 * k, 1e-4 * k, points)
            factors[points, shift] = forward / central
            if shift == 0.0 and points == 8001:  # the notebook's medians, as its note gives them
                assert 2.5e-7 <= forward < 3.5e-7 and 3.5e-10 <= central < 4.5e-10, (forward, central)
    values = list(factors.values())
    assert all(550 < f < 850 for f in values), factors
    assert range_power(values, 550, 850) >= POWER, range_power(values, 550, 850)
    assert 720 < factors[80_001, 0.0] < 760, factors  # where it settles


def central_wins(central_vs_forward, seeds):
    """Both factors for the 20 cases of each seed, side by side: (bottoms, at 1e-6), 20 * len(seeds) each."""
    draws = [central_vs_forward(seed) for seed in seeds]
    return np.concatenate([b for b, _ in draws]), np.concatenate([a for _, a in draws])


@claim("ch01-central-at-1e-6")
def test_central_beats_forward_in_every_case(ch01):
    """Prose measured on seeds 1000-1199 (4,000 cases): bottoms >= 62 in every case and > 100 in
    98.5 %; at h = 1e-6 >= 495 in every case and > 1,000 in 98.9 %. Here 600 cases: "every case"
    (at least 600 of 600) has power 1.00 against 90 %; "more than 100 (1,000) times in at least
    98 %" (at least 578 of 600) has power 1.00 against 88 %."""
    seeds = held_out_seeds(30, "ch01-central-at-1e-6")
    bottoms, at_1e6 = central_wins(ch01["central_vs_forward"], seeds)
    n = len(bottoms)
    every, most = fraction_test(1.0, n), fraction_test(0.98, n)
    every.check(int((bottoms > 40).sum()), "cases more than 40 times lower, bottom against bottom")
    every.check(int((at_1e6 > 100).sum()), "cases more than 100 times lower at h = 1e-6")
    most.check(int((bottoms > 100).sum()), "cases more than 100 times lower, bottom against bottom")
    most.check(int((at_1e6 > 1000).sum()), "cases more than 1,000 times lower at h = 1e-6")
    assert every.power >= POWER and most.power >= POWER, (every, most)


def gaps_from_autodiff(loss_of, seed, h=1e-6):
    """The largest gap from autodiff over 41 random weights: forward, central, forward - h/2 L''."""
    params = np.random.default_rng(seed).uniform(-1, 1, size=41).tolist()
    values = [Value(p) for p in params]
    loss_of(values).backward()
    auto = [v.grad for v in values]
    base = loss_of(params)
    forward, central, corrected = [], [], []
    for i in range(41):

        def along(p_i, i=i):
            return loss_of(params[:i] + [p_i] + params[i + 1 :])

        forward.append((along(params[i] + h) - base) / h)
        central.append(central_difference(along, params[i], h=h))
        second = (along(params[i] + 1e-4) - 2 * base + along(params[i] - 1e-4)) / 1e-4**2
        corrected.append(forward[-1] - h / 2 * second)
    return [max(abs(u - v) for u, v in zip(nudged, auto)) for nudged in (forward, central, corrected)]


@claim("ch01-gap-is-truncation")
def test_the_autodiff_gap_is_the_forward_differences_truncation(ch01):
    """Prose measured on seeds 310,000-310,999: forward 4.0e-6 to 3.5e-5 (median 4.3e-6); central at
    most 1.0e-8 (the 99.9th percentile 8.4e-9: the bound of 1e-8 asserted before would fail a fresh
    block of 20 draws now and then); corrected at most 1.5e-8, and at least 280 times below the forward
    gap. Review on seeds 5,000,000-5,000,299: forward up to 3.1e-5, central up to 7.5e-9. Every one
    of 20 draws: power 0.88 against a verdict true on 90 % of draws."""
    assert fraction_test(1.0, 20).power >= POWER
    for seed in held_out_seeds(20, "ch01-gap-is-truncation"):
        forward, central, corrected = gaps_from_autodiff(ch01["loss_of"], seed)
        assert forward < 1e-4 and central < 5e-8, (seed, forward, central)
        assert central < forward / 100, (seed, forward, central)
        # minus its truncation term, only the forward difference's round-off is left
        assert corrected < 1e-7 and corrected < forward / 100, (seed, forward, corrected)


@claim("ch01-backward-at-most-twice")
def test_the_backward_pass_costs_at_most_two_multiply_adds_per_operation():
    shapes = ([4, 4, 1], [8, 8, 1], [16, 16, 1], [3, 1], [32, 1])
    for seed, sizes in zip(held_out_seeds(len(shapes), "ch01-backward-at-most-twice"), shapes):
        random.seed(seed)
        net = MLP(3, sizes, activation="tanh")
        xs = np.random.default_rng(seed).normal(size=(4, 3)).tolist()
        loss = sum((net(x) - 1.0) ** 2 for x in xs)
        operations = [v for v in loss.topological_order() if v._prev]
        multiply_adds = sum(len(v._prev) for v in operations)
        assert max(len(v._prev) for v in operations) <= 2
        assert multiply_adds <= 2 * len(operations)


@claim("ch01-error-slopes")
def test_forward_and_central_errors_fall_like_h_and_h_squared_elsewhere_too(ch01):
    """Prose measured on seeds 1000-1029: every fitted slope prints as 0.99 or 1.00, and 2.00. Every
    one of 60 points (4 draws of 5 points for 3 functions): power 1.00 against 90 %."""
    assert fraction_test(1.0, 60).power >= POWER
    hs, fitted_slope = ch01["hs"], ch01["fitted_slope"]
    cases = [
        (lambda t: t * t * t, lambda t: 3 * t * t),
        (math.exp, math.exp),
        (lambda t: 1 / t, lambda t: -1 / t**2),
    ]
    for seed in held_out_seeds(4, "ch01-error-slopes"):
        rng = np.random.default_rng(seed)
        for f, derivative in cases:
            for x in rng.uniform(0.5, 3.0, size=5).tolist():
                forward = np.array([abs(forward_difference(f, x, h) - derivative(x)) for h in hs])
                central = np.array([abs(central_difference(f, x, h) - derivative(x)) for h in hs])
                assert 0.985 <= fitted_slope(hs, forward, 1e-5, 1e-1) < 1.005, x
                assert 1.995 <= fitted_slope(hs, central, 1e-4, 1e-1) < 2.005, x
    # where f'' = 0 (sin at pi) the forward error falls like h**2 instead
    forward = np.array([abs(forward_difference(math.sin, math.pi, h) - math.cos(math.pi)) for h in hs])
    assert 1.995 <= fitted_slope(hs, forward, 1e-4, 1e-1) < 2.005


def roundoff_ratios(ch01, seeds):
    """Per seed and function, the worst error * h over both differences and h <= 1e-9, divided by
    the estimate eps |f(x)| and by the fuller eps (|f(x)| + |x f'(x)| / 2), over five points."""
    hs, eps = ch01["hs"], ch01["eps"]
    cases = {
        "cube": (lambda t: t * t * t, lambda t: 3 * t * t),
        "exp": (math.exp, math.exp),
        "sin": (math.sin, math.cos),
    }
    simple = {name: [] for name in cases}
    fuller = {name: [] for name in cases}
    sin_points = []  # the x of each sin case, and its ratio to the estimate
    sin_ratios = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        for name, (f, derivative) in cases.items():
            worst_simple = worst_fuller = 0.0
            for x in rng.uniform(0.5, 3.0, size=5).tolist():
                if name == "sin":
                    sin_points.append(x)
                error = max(
                    abs(difference(f, x, h) - derivative(x)) * h
                    for difference in (forward_difference, central_difference)
                    for h in hs[hs <= 1e-9]
                )
                worst_simple = max(worst_simple, error / (eps * abs(f(x))))
                if name == "sin":
                    sin_ratios.append(error / (eps * abs(f(x))))
                worst_fuller = max(worst_fuller, error / (eps * (abs(f(x)) + abs(x * derivative(x)) / 2)))
            simple[name].append(worst_simple)
            fuller[name].append(worst_fuller)
    simple = {k: np.array(v) for k, v in simple.items()}
    return simple, {k: np.array(v) for k, v in fuller.items()}, np.array(sin_points), np.array(sin_ratios)


@claim("ch01-roundoff-within-a-few-estimates")
def test_roundoff_stays_within_a_few_estimates_and_under_the_fuller_one(ch01):
    """Prose measured on seeds 1000-1199: x^3 and e^x at most 2.8 and 1.8 (their bounds: 3.5 and
    2.5); sin's worst passes 4 on 39 of 200 draws; the fuller ratio at most 1.13 (bound 1.4).
    x^3 at 2 on a grid of h 1,000 times finer: at most 1.49987 and 0.74995 (bounds 1.5, 0.75).
    Here 300 draws: "every draw" has power 1.00 against 90 %; "about one draw in five" (40 to 82 of
    300, which a true 20 % leaves only by a 1-in-1000 fluke each side) has power 0.96 against 10 %
    and 0.83 against 30 %."""
    n = 300
    simple, fuller, sin_points, sin_ratios = roundoff_ratios(
        ch01, held_out_seeds(n, "ch01-roundoff-within-a-few-estimates")
    )
    every = fraction_test(1.0, n)
    every.check(int((np.maximum(simple["cube"], simple["exp"]) < 4).sum()), "draws with x^3 and e^x under 4")
    passes = int((simple["sin"] > 4).sum())  # about one draw in five
    low, high = least_count(0.2, n), n - least_count(0.8, n)
    assert low <= passes <= high, passes
    assert min(power(n, low, 0.1), 1 - power(n, high + 1, 0.3)) >= POWER
    assert sin_points[sin_ratios > 4].min() > 2.6, sin_points[sin_ratios > 4]  # always near pi
    every.check(int((np.maximum.reduce([fuller[k] for k in fuller]) < 1.5).sum()), "draws under 1.5")
    # x^3 at 2: never more than 1.5 and 0.75 times the estimate, on a grid of h a thousand times
    # finer than the plotted one and on 20,000 random h; 1.45 and 0.70 on the plotted h
    g, hs, eps = ch01["g"], ch01["hs"], ch01["eps"]
    plotted = hs[hs <= 1e-9]
    fine = np.logspace(-1, -15, 56_001)
    rng = np.random.default_rng(held_out_seeds(1, "ch01-roundoff-fine-h")[0])
    refined = np.concatenate([fine[fine <= 1e-9], 10 ** rng.uniform(-15, -9, 20_000)])
    for difference, bound, on_plot in ((forward_difference, 1.5, 1.45), (central_difference, 0.75, 0.70)):
        ratios = [abs(difference(g, 2.0, h) - 12.0) * h / (eps * 8.0) for h in refined]
        assert max(ratios) < bound, (difference.__name__, max(ratios))
        assert round(max(abs(difference(g, 2.0, h) - 12.0) * h / (eps * 8.0) for h in plotted), 2) == on_plot
