"""Chapter 11's verdicts, re-run with the chapter's own code on held-out draws (claimlib.held_out_seeds).

The notebook shows seeds 0 to 5; the prose's margins were measured on seeds 1000 and up (each
test says which), and every held-out seed is 1,000,000 or more.
"""

import math
import random

import numpy as np
import pytest
from claimlib import chapter_namespace, claim, held_out_seeds, least_count

from micrograd_lesson import make_moons, nn
from micrograd_lesson.tensor_nn import MLP


@pytest.fixture(scope="module")
def ch11():
    return chapter_namespace("11")


@claim("ch11-recursion-doubles")
def test_recursion_visits_double_with_each_diamond_while_topological_grows_by_three(ch11):
    """Visits do not depend on the numbers, so each held-out draw picks the diamonds' two local
    derivatives (whole numbers, so (a + b)**k is exact) and the depth runs 1 to 14: both walks give
    (a + b)**k, the topological one in 3k + 1 visits, the recursive one in about twice as many as at
    the depth before. The notebook shows a = 2, b = 3."""
    for seed in held_out_seeds(3, "ch11-recursion-doubles"):
        rng = random.Random(seed)
        a, b = float(rng.randint(-4, 6)), float(rng.randint(1, 6))
        recursive = []
        for k in range(1, 15):
            x, out = ch11["diamonds"](k, a, b)
            visits = [0]
            ch11["recursive_backward"](out, 1.0, visits)
            assert x.grad == (a + b) ** k, (seed, a, b, k)
            recursive.append(visits[0])
            x, out = ch11["diamonds"](k, a, b)
            assert ch11["topological_backward"](out) == 3 * k + 1  # one visit per node
            assert x.grad == (a + b) ** k, (seed, a, b, k)
        ratios = np.array(recursive[1:]) / np.array(recursive[:-1])
        assert np.all(ratios > 1.9), ratios  # at least about twice as many with each diamond ...
        assert np.all(ratios[3:] < 2.1), ratios  # ... and, past the first few, not much more


@pytest.mark.slow
@claim("ch11-engines-agree")
def test_scalar_and_tensor_engines_give_the_same_loss_and_gradients(ch11):
    """Every held-out draw of the moons and the starting weights: the two losses and all 337
    gradients within 1e-14, as the prose says. Prose measured on seeds 1000-1029: the largest
    difference of loss and gradient was below 1e-15."""
    for seed in held_out_seeds(6, "ch11-engines-agree"):
        random.seed(seed)
        X, y = make_moons(100, noise=0.1, seed=seed)
        scalar_model = nn.MLP(2, [16, 16, 1])
        tensor_model = MLP.from_scalar(scalar_model)
        scalar_loss = ch11["scalar_engine_loss"](scalar_model, X, y)
        tensor_loss = ch11["tensor_engine_loss"](tensor_model, X, y)
        assert abs(scalar_loss.data - float(tensor_loss.data)) < 1e-14, seed
        assert ch11["largest_gradient_gap"](scalar_model, tensor_model) < 1e-14, seed


@pytest.mark.slow
@claim("ch11-spiral-seeds")
def test_spiral_starts_near_log_3_and_fits_every_point_between_100_and_250_on_19_seeds_in_20(ch11):
    """Prose measured on seeds 1000-1099 (100 draws): the starting loss within 0.024 of log 3 on
    all 100 (the prose says 0.04); every training point right by step 500 on all 100, first
    between steps 100 and 250 on 99 (median step 151, the slowest 299); at least 98 % of new
    points on 99 (median 99.7 %, one point missed; worst 97.0 %). Tested here: the starting loss on
    every draw; full marks by the end, full marks first between steps 100 and 250 together with
    98 % or more on new points (the prose's "so" sentence), each as a rate of 19 in 20
    (least_count); "by about step 150" as the median of the 20 between 125 and 190 and "about one
    of the 300" as a median of at most two missed (on 40 other draws the median of 20 stayed within
    those bounds on 999 resamplings in 1000)."""
    seeds = held_out_seeds(20, "ch11-spiral-seeds")
    both = fitted = 0
    firsts, news = [], []
    for seed in seeds:
        model, _, _, losses, accuracies = ch11["train_spiral"](seed)
        assert abs(losses[0] - math.log(3)) < 0.04, f"seed {seed}: starting loss {losses[0]:.4f}"
        fitted += accuracies[-1] == 1.0
        first = accuracies.index(1.0) if 1.0 in accuracies else math.inf
        new = ch11["new_point_accuracy"](model, seed)
        both += 100 <= first <= 250 and new >= 0.98
        firsts.append(first)
        news.append(new)
    need = least_count(0.95, len(seeds))
    assert fitted >= need, f"every training point right at the end on only {fitted} of {len(seeds)}"
    assert both >= need, f"all right first at steps 100-250 and 98 % new on only {both} of {len(seeds)}"
    assert 125 <= np.median(firsts) <= 190, f"median first step at 100 %: {np.median(firsts)}"
    assert np.median(news) >= 298 / 300, f"median accuracy on new points {np.median(news):.4f}"
