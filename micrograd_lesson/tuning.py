"""A fair race: every runner gets its own best learning rate from the same grid of rates.

A comparison at one rate can say anything: the rate that suits one runner may be too large or
too small for the other. So each runner is trained at every rate of a grid and judged at its
best, and a best rate at an end of the grid is not trusted: the grid is widened past that end
until the best lies inside it.
"""

import math

__all__ = ["best_rate"]


def best_rate(train, rates, score, widen=1.38, most=6):
    """The rate at which `train` does best, and every run it made: (best rate, {rate: run}).

    train: train(rate) -> a run (anything `score` reads, e.g. the list of losses).
    rates: the grid, in any order.
    score: score(run) -> a number, lower is better (math.inf for a run that blew up).
    widen: while the best rate sits at an end of the grid, one more rate `widen` times beyond
        that end (rounded to two significant digits) is tried, at most `most` times; ValueError
        if the best is still at an end after that.
    """
    runs = {rate: train(rate) for rate in sorted(set(rates))}
    if len(runs) < 3:
        raise ValueError(f"a grid needs at least 3 rates to have an inside; got {sorted(runs)}")
    for _ in range(most + 1):
        grid = sorted(runs)
        best = min(grid, key=lambda rate: score(runs[rate]))
        if best not in (grid[0], grid[-1]):
            return best, runs
        if math.isinf(score(runs[best])):
            raise ValueError("every rate of the grid blew up")
        beyond = float(f"{(grid[0] / widen if best == grid[0] else grid[-1] * widen):.2g}")
        if beyond in runs:
            raise ValueError(f"widening by {widen} from {best} rounds back to a rate of the grid")
        runs[beyond] = train(beyond)
    raise ValueError(f"the best rate stays at an end of the grid after widening it {most} times: {best}")
