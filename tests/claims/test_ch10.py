"""Chapter 10's verdicts, re-run from starts and noise draws the chapter never shows.

The race verdicts are re-run by the package's race module (micrograd_lesson.race, the one the
chapter calls), from starts drawn with `held_out_seeds` by its `start_draw` (as far from the
minimum as the shown start, in a random direction), every runner tuned afresh for every start by
its `race`: the grid, then the refinement from the three best knob combinations in six rounds,
and then again with a finer refinement (seven combinations, fourteen rounds), under which every
verdict must hold too. No best grid setting may lie at an edge of its grid. The prose's numbers
were measured the same way on seeds 2000-2999 (the valleys) and 3000-3299 (the banana).

Each fraction the prose gives is tested with `claimlib.fraction_test`: it passes with probability
at least 0.999 at the rate measured (or a rate below it), and fails with probability at least 0.8
when the truth is ten points below what the sentence says. Adam's step under noise and the decay
of Adam + L2 against AdamW are re-run on the chapter's own cells (`chapter_namespace`), since the
notebook shows them as the lesson.
"""

import functools

import numpy as np
import pytest
from claimlib import (
    POWER,
    chapter_namespace,
    claim,
    fraction_test,
    held_out_seeds,
    median_power,
    power,
    range_power,
)

from micrograd_lesson.race import race, solved_from, start_draw

REFINEMENTS = {"chapter": (3, 6), "finer": (7, 14)}  # (knob combinations refined, rounds)

# "Adam solves the valley from more than four starts in five": 874 and 896 of 1,000 (seeds
# 2000-2999) under the two refinements; tested at 85 %, below both.
ADAM_SOLVES_VALLEY = fraction_test(0.85, 120, says=0.8)
VALLEY_EVERY = fraction_test(1.0, 120)  # AdaGrad and RMSProp every time, momentum never
# "momentum ahead of Adam from every start, by more than ten times from almost every start" (read
# as 95 %): ahead from 1,000 and 1,000, by more than 10 times from 999 and 985 of 1,000; tested at 97 %.
TURNED_EVERY = fraction_test(1.0, 80)
TURNED_BY_TEN = fraction_test(0.97, 80, says=0.95)
# "Adam ends ahead of momentum on the banana from most starts" (read as 50 %): from 261 and 256 of
# 300 (seeds 3000-3299) under the two refinements; tested at 75 %, below both intervals.
BANANA_MOST = fraction_test(0.75, 30, says=0.5)


@pytest.fixture(scope="module")
def ch():
    return chapter_namespace("10")


@functools.cache
def _raced(problem, method, seeds, refinement):
    starts = [start_draw(problem, seed) for seed in seeds]
    return race(problem, method, starts, *REFINEMENTS[refinement])


def scores(problem, method, seeds, refinement="chapter"):
    """Each start's refined score: below 0 when solved (step - (steps + 2)), else the worst loss
    over the last 10 steps. No start's best grid setting may lie at an edge of its grid."""
    results = _raced(problem, method, tuple(seeds), refinement)
    edges = [r["grid"] for r in results if r["at edge"]]
    assert not edges, f"{problem}, {method}, {refinement}: best grid setting at an edge: {edges}"
    return np.array([r["refined"][0] for r in results])


@pytest.mark.slow
@claim("ch10-valley-axes-win")
def test_per_parameter_methods_solve_the_valley_and_momentum_never_does():
    """Prose: AdaGrad and RMSProp solve the valley within six steps from every start, Adam from
    more than four starts in five, momentum never (seeds 2000-2999: AdaGrad and RMSProp from step
    5 or 6 on all 1,000, Adam on 874 and 896, momentum on none).

    Power: Adam solving at least 89 of 120 passes with probability above 0.999 at 85 % and fails
    with probability 0.81 at 70 %; "every" and "never" on 120 starts fail with probability 1.00
    if one start in ten breaks them."""
    seeds = held_out_seeds(ADAM_SOLVES_VALLEY.n, "ch10-valley-axes-win")
    for refinement in REFINEMENTS:
        for method in ("AdaGrad", "RMSProp"):
            steps = solved_from(scores("valley", method, seeds, refinement), 100)
            VALLEY_EVERY.check(int((steps <= 6).sum()), f"starts solved within 6 steps by {method}")
        momentum = scores("valley", "momentum", seeds, refinement)
        VALLEY_EVERY.check(int((momentum > 0).sum()), f"starts momentum did not solve ({refinement})")
        adam = np.isfinite(solved_from(scores("valley", "Adam", seeds, refinement), 100))
        ADAM_SOLVES_VALLEY.check(int(adam.sum()), f"starts Adam solved ({refinement} refinement)")


@pytest.mark.slow
@claim("ch10-turned-momentum-wins")
def test_turning_the_valley_and_its_start_leaves_momentum_alone_and_momentum_beats_adam():
    """Prose: plain descent and momentum tune and score exactly as on the valley; momentum ends
    ahead of Adam from every start, by more than ten times from almost every start, under both
    refinements (seeds 2000-2999: ahead from all 1,000 under both; by more than 10 times from 999
    and 985; the median factor about 290 and 340).

    Power: "every start" on 80 starts fails with probability 1.00 if one start in ten breaks it;
    "by more than ten times" needs at least 72 of 80, which passes with probability above 0.999
    at 97 % and fails with probability 0.87 at 85 %."""
    seeds = held_out_seeds(TURNED_BY_TEN.n, "ch10-turned-momentum-wins")
    for method in ("plain descent", "momentum"):
        on_valley = _raced("valley", method, tuple(seeds), "chapter")
        on_turned = _raced("turned valley", method, tuple(seeds), "chapter")
        alike = 0
        for a, b in zip(on_valley, on_turned):
            same_knobs = all(np.isclose(b["refined"][1][k], v, rtol=1e-9) for k, v in a["refined"][1].items())
            alike += bool(a["refined"][0] == b["refined"][0] and same_knobs)
        TURNED_EVERY.check(alike, f"starts where {method} tuned and scored as on the valley")
    for refinement in REFINEMENTS:
        momentum = scores("turned valley", "momentum", seeds, refinement)
        adam = scores("turned valley", "Adam", seeds, refinement)
        assert (momentum > 0).all() and (adam > 0).all(), "a runner solved the turned valley"
        TURNED_EVERY.check(int((momentum < adam).sum()), f"starts momentum was ahead ({refinement})")
        TURNED_BY_TEN.check(int((adam / momentum > 10).sum()), f"starts ahead by 10 times ({refinement})")


@pytest.mark.slow
@claim("ch10-banana-adam-ahead")
def test_adam_ends_ahead_of_momentum_on_the_banana_from_most_starts():
    """Prose: Adam ends ahead of momentum from most starts, under either refinement (seeds
    3000-3299: from 261 and 256 of 300; from 9 of them the winner changes with the refinement).
    The sentence says "most", not the measured 85 %: telling 85 % from 75 % would take about 240
    starts, some two and a half CPU minutes.

    Power: at least 15 of 30 passes with probability above 0.999 at 75 % (below the measured
    rate) and fails with probability 0.82 at 40 %."""
    seeds = held_out_seeds(BANANA_MOST.n, "ch10-banana-adam-ahead")
    for refinement in REFINEMENTS:
        adam = scores("banana", "Adam", seeds, refinement)
        momentum = scores("banana", "momentum", seeds, refinement)
        BANANA_MOST.check(int((adam < momentum).sum()), f"starts Adam was ahead ({refinement} refinement)")


@claim("ch10-adam-step-size")
def test_adam_steps_by_the_rate_under_a_steady_gradient_and_by_a_fifth_of_it_under_noise(ch):
    """Prose: steady gradients give steps of exactly the rate at both sizes; pure noise a mean step
    of about 0.19 of it, the same at both sizes (seeds 1000-1029: 0.191 on average, from 0.17 to
    0.22; the average of one block of 30 draws varies by about 0.002).

    Power: the average is asserted to lie in [0.175, 0.205]; a truth 1.5 times off (0.13 or 0.29)
    puts it outside, so the test fails with probability 1.00 (range_power, asserted below)."""
    for size in (0.01, 1.0):
        steady = ch["adam_step_sizes"](np.full(1000, size))
        assert np.allclose(steady, 1.0, rtol=1e-5), f"steady gradients of size {size}: {steady.min()}"
    means = []
    for seed in held_out_seeds(30, "ch10-adam-step-size"):
        noise = np.random.default_rng(seed).normal(size=1000)
        small, large = (ch["adam_step_sizes"](size * noise).mean() for size in (0.01, 1.0))
        assert np.isclose(small, large, rtol=1e-4), f"draw {seed}: {small:.5f} and {large:.5f}"
        assert large < 1 / 3, f"draw {seed}: a mean step of {large:.3f} of the rate under noise"
        means.append(large)
    assert 0.175 <= np.mean(means) <= 0.205, f"mean step under noise {np.mean(means):.4f} of the rate"
    assert range_power([np.mean(means)], 0.175, 0.205) >= POWER


@pytest.mark.slow
@claim("ch10-adamw-decays-alike")
def test_adam_l2_spares_noisy_weights_and_adamw_decays_every_weight_alike(ch):
    """Prose: under Adam + L2, A ends at 0 and the B weights hardly decay (the mean of B above 0.6
    on every draw); under AdamW, A ends at 0.999**1000 on every draw and the B weights near it,
    about 0.37 on a typical draw (the median of the means of B between 0.28 and 0.46). Seeds
    1000-1029: 0.76 to 1.04, and 0.25 to 0.46 with the median 0.36; seeds 5000-5199: 0.72 to
    1.09, and 0.25 to 0.50 with the median 0.37. Over 60 blocks of 20 draws (CLAIMS_SEED
    900001-900060) the median of the 20 ranged from 0.337 to 0.397 (sd 0.013): 0.28 and 0.46 are
    more than 6 sd away, so a true sentence passes with probability far above 0.999.

    Power, from the draws themselves (asserted below): the means of B 1.5 times lower under
    Adam + L2 would leave some of the 20 below 0.6 (power 1.00 on the default block); a median
    1.5 times off either way under AdamW would leave [0.28, 0.46] (median_power at least 0.947 on
    each of those 60 blocks). The upper bound was 0.5 until CLAIMS_SEED 47391 drew a block whose
    power against a median 1.5 times larger was 0.75: 0.37 x 1.5 is too close to 0.5."""
    l2, w = [], []
    for seed in held_out_seeds(20, "ch10-adamw-decays-alike"):
        a, b = ch["decay_track"](ch["DECAY_RUNS"]["Adam + L2"], seed)[-1]
        assert abs(a) < 1e-3, f"draw {seed}: under Adam + L2 weight A ends at {a:.4f}"
        assert b > 0.6, f"draw {seed}: under Adam + L2 the B weights decayed to {b:.4f}"
        l2.append(b)
        a, b = ch["decay_track"](ch["DECAY_RUNS"]["AdamW"], seed)[-1]
        assert abs(a - 0.999**1000) < 1e-9, f"draw {seed}: under AdamW weight A ends at {a:.4f}"
        w.append(b)
    assert 0.28 <= np.median(w) <= 0.46, f"under AdamW the means of B: {np.round(sorted(w), 3)}"
    # "hardly decay" is overstated only by a truth lower than said: 1.5 times lower, how many stay above
    lower = power(len(l2), len(l2), sum(b / 1.5 > 0.6 for b in l2) / len(l2))
    assert lower >= POWER, f"Adam + L2: power {lower:.2f}"
    assert median_power(w, 0.28, 0.46) >= POWER, f"AdamW: power {median_power(w, 0.28, 0.46):.2f}"
