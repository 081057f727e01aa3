"""Chapter 10's race verdicts, re-run with the refinement changed (more rounds, or fewer starts).

The problems are fixed functions, so what varies is the grid: a verdict must survive a
further refinement of it."""

import math

import pytest
from claimlib import chapter_namespace, claim


@pytest.fixture(scope="module")
def ch():
    return chapter_namespace("10")


def best(ch, problem, method, starts=3, rounds=6):
    """Grid search, then the chapter's refinement from the `starts` best combinations."""
    grid = ch["tune"](problem, method)
    assert not grid[0][3], f"{method} on the {problem}: the best setting is at an edge of its grid"
    return min(
        (ch["refine"](problem, method, lr, knobs, rounds=rounds) for _, lr, knobs, _ in grid[:starts]),
        key=lambda result: result[0],
    )


@claim("ch10-valley-axes-win")
def test_per_parameter_methods_solve_the_valley_and_momentum_does_not(ch):
    for rounds in (6, 8):
        (momentum_at, _), _, _ = best(ch, "valley", "momentum", rounds=rounds)
        assert math.isinf(momentum_at), "momentum reached 1e-20 on the valley"
        for method in ("AdaGrad", "RMSProp", "Adam"):
            (solved_at, _), _, _ = best(ch, "valley", method, rounds=rounds)
            assert solved_at < 100, f"{method} did not reach 1e-20 on the valley ({rounds} rounds)"


@claim("ch10-turned-momentum-wins")
def test_momentum_beats_adam_on_the_turned_valley_by_two_to_three_orders(ch):
    for starts, rounds in ((3, 8), (1, 6)):
        (_, momentum), _, _ = best(ch, "turned valley", "momentum", starts, rounds)
        (_, adam), _, _ = best(ch, "turned valley", "Adam", starts, rounds)
        assert 10 < adam / momentum < 1e4, f"Adam {adam:.2g} against momentum {momentum:.2g}"


@pytest.mark.slow
@claim("ch10-banana-tie")
def test_momentum_and_adam_tie_on_the_banana(ch):
    for starts in (3, 1):
        (momentum, _), _, _ = best(ch, "banana", "momentum", starts)
        (adam, _), _, _ = best(ch, "banana", "Adam", starts)
        assert abs(adam - momentum) <= 0.15 * max(adam, momentum), f"Adam {adam}, momentum {momentum}"


@claim("ch10-adamw-decays-alike")
def test_adam_l2_spares_noisy_weights_and_adamw_decays_every_weight_alike(ch):
    for seed in range(6, 11):  # noise draws the chapter does not show
        a, b = ch["decay_track"](ch["DECAY_RUNS"]["Adam + L2"], seed)[-1]
        assert abs(a) < 1e-3, f"draw {seed}: under Adam + L2 weight A ends at {a:.4f}"
        assert b > 0.7, f"draw {seed}: under Adam + L2 the B weights decayed to {b:.4f}"
        a, b = ch["decay_track"](ch["DECAY_RUNS"]["AdamW"], seed)[-1]
        assert abs(a - 0.999**1000) < 1e-9, f"draw {seed}: under AdamW weight A ends at {a:.4f}"
        assert 0.2 < b < 0.55, f"draw {seed}: under AdamW the B weights end at {b:.4f} on average"


@pytest.mark.slow
@claim("ch10-staying-score-same-verdicts")
def test_scoring_the_step_a_run_stays_below_keeps_every_verdict(ch):
    for starts, rounds in ((3, 6), (3, 8)):  # the chapter's refinement, then a finer one
        (momentum_at, momentum), _, _ = ch["tuned_staying"]("valley", "momentum", starts, rounds)
        assert math.isinf(momentum_at), "momentum stays below 1e-20 on the valley"
        for method in ("AdaGrad", "RMSProp", "Adam"):
            (solved_at, _), _, _ = ch["tuned_staying"]("valley", method, starts, rounds)
            assert solved_at < 100, f"{method} does not stay below 1e-20 on the valley ({starts}, {rounds})"
        (_, momentum), _, _ = ch["tuned_staying"]("turned valley", "momentum", starts, rounds)
        (_, adam), _, _ = ch["tuned_staying"]("turned valley", "Adam", starts, rounds)
        assert 10 < adam / momentum < 1e4, f"turned valley: Adam {adam:.2g} against momentum {momentum:.2g}"
        (momentum, _), _, _ = ch["tuned_staying"]("banana", "momentum", starts, rounds)
        (adam, _), _, _ = ch["tuned_staying"]("banana", "Adam", starts, rounds)
        assert abs(adam - momentum) <= 0.15 * max(adam, momentum), f"banana: Adam {adam}, momentum {momentum}"
    # refined from only the best combination of the grid, Adam stays stuck and momentum wins
    (momentum, _), _, _ = ch["tuned_staying"]("banana", "momentum", 1, 6)
    (adam, _), _, _ = ch["tuned_staying"]("banana", "Adam", 1, 6)
    assert momentum < 0.9 * adam, f"banana from one start: Adam {adam}, momentum {momentum}"
