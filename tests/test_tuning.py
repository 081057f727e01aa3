"""best_rate: every runner at its own best rate, the grid widened until the best lies inside it."""

import math

import pytest

from micrograd_lesson.tuning import best_rate


def bowl(best):
    """A run whose score is lowest at rate `best` (a bowl in log-rate), recording the rates tried."""
    tried = []

    def train(rate):
        tried.append(rate)
        return [math.log(rate / best) ** 2]

    return train, tried


def test_a_best_rate_inside_the_grid_is_found_without_widening():
    train, tried = bowl(0.01)
    best, runs = best_rate(train, (0.001, 0.003, 0.01, 0.03, 0.1), lambda run: run[-1])
    assert best == 0.01
    assert sorted(runs) == sorted(tried) == [0.001, 0.003, 0.01, 0.03, 0.1]


@pytest.mark.parametrize("truth, end", [(1.0, 0.1), (1e-4, 0.001)])
def test_a_best_rate_at_an_end_widens_the_grid_past_that_end_until_it_is_inside(truth, end):
    train, tried = bowl(truth)
    best, runs = best_rate(train, (0.001, 0.01, 0.1), lambda run: run[-1], widen=2)
    grid = sorted(runs)
    assert best not in (grid[0], grid[-1]), grid
    assert abs(math.log(best / truth)) <= math.log(2), (best, grid)  # within one step of the truth
    new = [rate for rate in tried if rate not in (0.001, 0.01, 0.1)]
    assert new and all((rate > end) if truth > end else (rate < end) for rate in new), new
    assert all(rate == float(f"{rate:.2g}") for rate in new)  # two significant digits


def test_a_run_that_blew_up_never_wins():
    def train(rate):
        return [math.inf] if rate > 0.02 else [1 / rate]  # larger is better, until it blows up

    best, _ = best_rate(train, (0.001, 0.005, 0.01, 0.02, 0.05), lambda run: run[-1])
    assert best == 0.02


def test_a_grid_that_cannot_settle_is_refused_by_name():
    with pytest.raises(ValueError, match="stays at an end of the grid"):
        best_rate(lambda rate: [rate], (1.0, 2.0, 3.0), lambda run: run[-1], most=3)
    with pytest.raises(ValueError, match="every rate of the grid blew up"):
        best_rate(lambda rate: [math.inf], (1.0, 2.0, 3.0), lambda run: run[-1])
    with pytest.raises(ValueError, match="at least 3 rates"):
        best_rate(lambda rate: [rate], (1.0, 2.0), lambda run: run[-1])
