"""Chapter 13's verdicts, re-run with the chapter's own code at other sizes, starts and seeds."""

import math
import random

import pytest
from claimlib import chapter_namespace, claim

from micrograd_lesson import MLP, make_moons


@pytest.fixture(scope="module")
def ch13():
    return chapter_namespace("13")


@claim("ch13-mode-counts")
def test_counts_reverse_wins_by_n_for_one_output_and_forward_wins_for_one_input(ch13):
    for size in (3, 16, 100, 256):
        many, one = ch13["costs"](size)
        assert many["forward"] == size * many["reverse"]  # forward grows like n^2, reverse like n
        assert one["reverse"] > one["forward"]  # one input: forward mode needs fewer steps
    ratios = [ch13["costs"](size)[1]["reverse"] / ch13["costs"](size)[1]["forward"] for size in (8, 32, 128)]
    assert ratios == sorted(ratios) and ratios[-1] > 4 * ratios[0]  # and the gap keeps growing with m


@pytest.mark.slow
@claim("ch13-mode-timings")
def test_the_mode_the_count_names_is_more_than_ten_times_faster_at_128(ch13):
    xs = [math.sin(k) for k in range(1, 129)]
    forward, reverse = (
        ch13["seconds"](ch13[name], xs) for name in ("forward_mode_gradient", "reverse_mode_gradient")
    )
    assert forward > 10 * reverse  # R^128 -> R: reverse mode
    forward, reverse = (
        ch13["seconds"](ch13[name], 0.7, 128)
        for name in ("forward_mode_jacobian_column", "reverse_mode_jacobian_column")
    )
    assert reverse > 10 * forward  # R -> R^128: forward mode


def newton_steps(ch13, x0):
    return next(i for i, x in enumerate(ch13["newton"](x0, 30)) if abs(x - 1) < 1e-10)


@pytest.mark.slow
@claim("ch13-newton-beats-descent")
def test_newton_beats_each_starts_fastest_rate_and_a_shared_rate_crawls(ch13):
    starts, rates = (1.75, 2.25, 2.75, 3.25), [k / 1000 for k in range(1, 251)]
    per_start = {x0: ch13["steps_to_reach_one"](x0, rates, steps=200) for x0 in starts}
    newton = {x0: newton_steps(ch13, x0) for x0 in starts}
    for x0, reached in per_start.items():
        assert newton[x0] < min(reached.values()), x0  # fewer steps than the start's fastest rate
    shared = [lr for lr in rates if all(lr in reached for reached in per_start.values())]
    slowest = min(max(reached[lr] for reached in per_start.values()) for lr in shared)
    assert slowest > 5 * max(newton.values())  # one rate for every start crawls


@claim("ch13-newton-quadratic")
@pytest.mark.parametrize("x0", [0.8, 1.5, 2.5, 3.0, 5.0])
def test_newton_error_ratio_settles_near_one_and_a_half(ch13, x0):
    errors = [abs(x - 1) for x in ch13["newton"](x0, 30)]
    assert errors[-1] < 1e-15  # it reached the minimum at 1
    ratios = [now / before**2 for before, now in zip(errors, errors[1:]) if now and before]
    assert any(abs(r - 1.5) < 0.05 for r in ratios[-3:]), ratios  # error ~ 1.5 * previous error squared


@pytest.mark.slow
@claim("ch13-no-grad-memory")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_grad_keeps_a_hundred_times_less_memory(ch13, seed):
    random.seed(seed)
    ch13["model"] = MLP(2, [16, 16, 1])
    ch13["X"], _ = make_moons(50, noise=0.1, seed=seed)
    with_graph, kept = ch13["held_after"](ch13["predictions"])
    without_graph, plain = ch13["held_after"](ch13["predictions_without_graph"])
    assert [p.data for p in kept] == [p.data for p in plain]
    assert with_graph > 100 * without_graph


@claim("ch13-lucky-window-unsettled")
@pytest.mark.parametrize("points", [120, 150, 200, 250, 300])
def test_every_finer_window_of_lucky_rates_finds_a_faster_one(ch13, points):
    steps = [n for n, _ in ch13["zoom_in"](2.0, 0.150, 0.170, points=points)]
    assert steps[-1] < min(steps[:-1]), (
        f"{points} rates a window: the last window is not the fastest, {steps}"
    )
    assert steps[-1] <= steps[0] - 4, f"{points} rates a window: the fastest barely improves, {steps}"
