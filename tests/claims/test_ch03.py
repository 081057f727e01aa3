"""Chapter 3's verdicts, re-run at other points, seeds and step lengths.

Every random draw here comes from `held_out_seeds` (all >= 1,000,000), never from the seed the
notebook shows (0) nor the seeds its prose was measured on (1000-1099, 2000-3999).
"""

import math
import random

import numpy as np
import pytest
from claimlib import POWER, chapter_namespace, claim, fraction_test, held_out_seeds, median_power


@pytest.fixture(scope="module")
def ch03():
    return chapter_namespace("03")


@claim("ch03-steepest-small-steps")
@pytest.mark.slow
def test_the_gradient_is_steepest_for_short_steps_only(ch03):
    """ "For the shortest steps a winner is a rare event, and at length 0.5 about 2 directions in
    1,000 win": the median count at 0.5 over 30 draws of 200,000 directions lies in 320-500
    (0.16-0.25 %). Power 1.00 against a truth 1.5 times off (median_power from the draws). The
    prose's spreads were measured on seeds 1000-1099 (at 0.5: 340 to 434, median 396.5); the
    rare-event rates by searching near the gradient: expected winners per 200,000 directions
    0.0017, 0.23, 1.9, 18, 401 and 3,614 at the six step lengths."""
    steps = [0.01, 0.05, 0.1, 0.2, 0.5, 1.0]
    seeds = held_out_seeds(30, "ch03-steepest-small-steps")
    counts = np.array([ch03["directions_beating_gradient"](steps, seed=seed) for seed in seeds])
    at_half = counts[:, 4]
    assert median_power(at_half, 320, 500) >= POWER, at_half
    assert 320 <= np.median(at_half) <= 500, at_half  # about 2 in 1,000
    pooled = counts.sum(axis=0)  # 6 million directions at each step length
    # rare: 0.05 expected at 0.01 (P(more than 2) is 2e-5) and 6.9 at 0.05 (P(more than 17) is 2e-4)
    assert pooled[0] <= 2 and pooled[1] <= 17, pooled
    assert (np.diff(pooled) >= 0).all() and pooled[2] > 0, pooled  # more winners, the longer the step


@claim("ch03-first-order-small-steps")
def test_the_first_order_prediction_fails_like_the_square_of_the_step(ch03):
    """A step ten times shorter misses about a hundred times less: the median of 20 ratios (10
    fresh points, steps 0.01 against 0.001 and 0.001 against 0.0001) lies in 80-125. Power 1.00
    against a truth 1.5 times off (median_power from the ratios). The prose measured 4,000 ratios
    at seeds 2000-3999: half in 99.95-100.05, all in 82.7-138.9; a review of 40,000 more found 3
    at 50 or below (the least 21.6), where the squared part of the miss nearly vanishes along
    the gradient and the cubed part takes over. Every ratio must pass 10: the miss falls much
    faster than the step."""
    build_graph = ch03["build_graph"]
    seeds = held_out_seeds(10, "ch03-first-order-small-steps")
    ratios = []
    for leaves in [np.random.default_rng(seed).uniform(-3, 3, size=4).tolist() for seed in seeds]:
        nodes = build_graph(*leaves)
        nodes["L"].grad = 1.0  # the chapter's hand rules, for this product-of-sums shape
        a, b, c, f, d = (nodes[k].data for k in "abcfd")
        grad = np.array([b * f, a * f, f, d])  # dL/da, dL/db, dL/dc, dL/df
        L0 = nodes["L"].data

        def miss(t, leaves=leaves, grad=grad, L0=L0):
            moved = build_graph(*(np.array(leaves) + t * grad))["L"].data
            return abs(moved - (L0 + t * grad @ grad))

        ratios += [miss(t) / miss(t / 10) for t in (1e-2, 1e-3)]
    ratios = np.array(ratios)
    assert median_power(ratios, 80, 125) >= POWER, ratios
    assert 80 <= np.median(ratios) <= 125, ratios  # about a hundred times: like the square of the step
    assert (ratios > 10).all(), ratios


@claim("ch03-zero-input-zero-grad")
def test_a_weight_with_a_zero_input_gets_exactly_zero_gradient(ch03):
    """Exact on every neuron (w2's local slope is x2 = 0): no fraction to power; 20 fresh ones."""
    Value = ch03["Value"]
    for seed in held_out_seeds(20, "ch03-zero-input-zero-grad"):
        rng = random.Random(seed)
        x1, w1, w2, b = (rng.uniform(-2, 2) for _ in range(4))
        leaves = {"x1": Value(x1), "w1": Value(w1), "x2": Value(0.0), "w2": Value(w2), "b": Value(b)}
        n = leaves["x1"] * leaves["w1"] + leaves["x2"] * leaves["w2"] + leaves["b"]
        o = n.tanh()
        # the chapter's hand sweep: through tanh, through the sums, through the products
        n_grad = 1 - o.data**2
        w2_grad = leaves["x2"].data * n_grad
        x2_grad = leaves["w2"].data * n_grad
        assert w2_grad == 0.0
        assert x2_grad != 0.0
        # and nudging w2 by any amount leaves o where it was
        for new_w2 in (w2 + 1e-6, w2 + 1.0, -10.0):
            moved = math.tanh(x1 * w1 + 0.0 * new_w2 + b)
            assert moved == o.data


@claim("ch03-winners-near-gradient")
@pytest.mark.slow
def test_every_winner_at_step_half_lies_within_26_degrees_of_the_gradient(ch03):
    """ "On every draw, every winner": the search finds a winner at 25.8 degrees and none from 26
    degrees on, and on all of 16 fresh draws of 200,000 directions every winner lies within 26
    degrees. Power 0.81 against a bound that fails on 1 draw in 10 (fraction_test(1.0, 16))."""
    build_graph = ch03["build_graph"]
    leaves = np.array([2.0, -3.0, 10.0, -2.0])
    gradient = np.array([6.0, -4.0, -2.0, 4.0])
    unit_gradient = gradient / np.linalg.norm(gradient)
    L0 = build_graph(*leaves)["L"].data
    along = build_graph(*(leaves + 0.5 * unit_gradient))["L"].data - L0
    seeds = held_out_seeds(17, "ch03-winners-near-gradient")  # one for the search, 16 draws
    assert fraction_test(1.0, len(seeds[1:])).power >= POWER

    def best_rise_at(degrees, others):
        """The largest rise over directions at this angle from the gradient, minus the gradient's."""
        theta = np.radians(degrees)
        u = np.cos(theta) * unit_gradient + np.sin(theta) * others
        return (build_graph(*(leaves + 0.5 * u).T)["L"].data - L0).max() - along

    # the search: directions at right angles to the gradient, each tilted to the angle tried
    others = np.random.default_rng(seeds[0]).normal(size=(200_000, 4))
    others -= np.outer(others @ unit_gradient, unit_gradient)
    others /= np.linalg.norm(others, axis=1, keepdims=True)
    assert best_rise_at(25.8, others) > 0  # up to 25.8 degrees some direction beats the gradient
    assert all(best_rise_at(d, others) < 0 for d in (26.0, 27.0, 30.0, 40.0, 60.0, 90.0))
    for seed in seeds[1:]:  # and on every draw, every winner lies within 26 degrees
        u = np.random.default_rng(seed).normal(size=(200_000, 4))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        winners = build_graph(*(leaves + 0.5 * u).T)["L"].data - L0 > along
        angles = np.degrees(np.arccos(np.clip(u[winners] @ unit_gradient, -1, 1)))
        assert winners.sum() > 0 and angles.max() < 26.0, (seed, angles.max())
