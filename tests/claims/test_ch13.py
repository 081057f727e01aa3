"""Chapter 13's verdicts, re-run with the chapter's own code on held-out draws (claimlib.held_out_seeds):
other sizes, inputs, starts, window sizes and seeds than the notebook shows or the prose was written from.
Each test's docstring says what the prose's margins were measured on (seeds below 1,000,000).
"""

import json
import random

import pytest
from claimlib import chapter_namespace, claim, fraction_test, held_out_seeds, in_fresh_interpreter

from micrograd_lesson import MLP, make_moons


@pytest.fixture(scope="module")
def ch13():
    return chapter_namespace("13")


@claim("ch13-modes-agree")
def test_forward_and_reverse_mode_agree_to_rounding_on_both_shapes(ch13):
    """Held-out draws of the size (2 to 128), the inputs (-2 to 2) and t (-1.5 to 1.5). The difference
    is measured against the size of the derivatives, max|p - q| <= 1e-14 * max(1, max|q|), as the
    prose says: near t = +-1 they reach about 7. Prose measured on seeds 1000-1099, the same ranges:
    at most 1.3e-15 of the largest derivative, and 1.5e-15 at t = +-1 (the prose: "a few units in the
    last place", the note: below 1e-14). Every draw, a rate of 1 on 20 draws: power 0.88 against a
    truth of 90 %."""

    def largest_difference(p, q):  # relative to the largest derivative, or 1 if that is smaller
        return max(abs(a - b) for a, b in zip(p, q)) / max(1.0, max(abs(b) for b in q))

    seeds = held_out_seeds(20, "ch13-modes-agree")
    agree = []
    for seed in seeds:
        rng = random.Random(seed)
        n = rng.randint(2, 128)
        xs, t = [rng.uniform(-2, 2) for _ in range(n)], rng.uniform(-1.5, 1.5)
        gradient = ch13["forward_mode_gradient"](xs), ch13["reverse_mode_gradient"](xs)
        column = ch13["forward_mode_jacobian_column"](t, n), ch13["reverse_mode_jacobian_column"](t, n)
        agree.append(max(largest_difference(*gradient), largest_difference(*column)) <= 1e-14)
    fraction_test(1.0, len(seeds)).check(sum(agree), "draws agreeing to 1e-14 of the largest derivative")


@claim("ch13-mode-counts")
def test_counts_reverse_wins_by_n_for_one_output_and_forward_wins_for_one_input(ch13):
    """The counts are exact, so a draw is a size: forward mode's count is exactly n times reverse
    mode's for R^n -> R at every size, reverse mode's is the larger for R -> R^m, and its lead grows
    with m. The notebook shows the powers of 2 from 2 to 128. Power 1: the counts are exact, so a
    factor 1.5 times off n fails at every size."""
    sizes = sorted({random.Random(seed).randint(3, 300) for seed in held_out_seeds(6, "ch13-mode-counts")})
    leads = []
    for size in sizes:
        many, one = ch13["costs"](size)
        assert many["forward"] == size * many["reverse"], size  # forward grows like n^2, reverse like n
        assert one["reverse"] > one["forward"], size  # one input: forward mode needs fewer steps
        leads.append(one["reverse"] / one["forward"])
    assert leads == sorted(leads), list(zip(sizes, leads))  # and the gap keeps growing with m


# The timings run in a new process, as the notebook's are: its kernel is a new process, and what else a
# process holds changes them (in a test worker that had run other tests, reverse mode's lead measured
# about half what a kernel sees). argv[1] is this folder, argv[2] the seeds; the repository's root goes first
# on the path, so that the chapter and the package are this checkout's. Prints [[loss, column], ...].
MODE_TIMINGS = """
import json, random, sys
from pathlib import Path
sys.path[:0] = [sys.argv[1], str(Path(sys.argv[1]).parents[1])]
from claimlib import chapter_namespace
ch = chapter_namespace("13")
ratios = []
for seed in json.loads(sys.argv[2]):
    rng = random.Random(seed)
    xs = [rng.uniform(-1, 1) for _ in range(128)]
    t = rng.uniform(0.2, 1.2)
    loss = ch["cpu_ratio"](ch["forward_mode_gradient"], ch["reverse_mode_gradient"], (xs,))
    column = ch["cpu_ratio"](ch["reverse_mode_jacobian_column"], ch["forward_mode_jacobian_column"], (t, 128))
    ratios.append([loss, column])
print(json.dumps(ratios))
"""


@pytest.mark.slow
@claim("ch13-mode-timings")
def test_at_128_reverse_is_over_20_times_faster_for_a_loss_and_forward_over_150_for_one_input():
    """CPU time (time.process_time), the two modes taking turns (cpu_ratio, best of seven rounds), on
    20 held-out draws of the inputs, in a fresh interpreter as in the notebook's kernel. The prose
    says, for either Python: reverse mode more than 20 times faster for R^128 -> R, but by less than
    the count's 128; forward mode more than 150 times faster for R -> R^128. Measured in fresh
    processes on two cores shared with about eight other busy jobs, seeds 1000-1039: under 3.11
    42-62 and 247-437 times, under 3.13 31-43 and 316-390. Earlier: on a quiet machine, best of three,
    47-49 and 259-270 (3.11, seeds 1000-1039), 36-43 and 338-390 (3.13, 1000-1019); beside some twenty
    other jobs, best of seven, 45-74 and 229-376 (3.11, 7000-7039), 32-46 and 336-439 (3.13, 7000-7019). The
    bounds sit about a third below the lowest ratios measured, and 128 twice above the highest. Tested
    on every draw, a rate of 1 on 20 draws: power 0.88 against a truth of 90 %; a truth 1.5 times
    below a bound (13, 100) fails every draw."""
    seeds = held_out_seeds(20, "ch13-mode-timings")
    ratios = json.loads(in_fresh_interpreter(MODE_TIMINGS, json.dumps(seeds))[-1])
    every = fraction_test(1.0, len(seeds))
    every.check(sum(20 < loss < 128 for loss, _ in ratios), f"draws with R^128 -> R 20-128 times: {ratios}")
    every.check(sum(column > 150 for _, column in ratios), f"draws with R -> R^128 over 150 times: {ratios}")


@pytest.mark.slow
@claim("ch13-reverse-memory")
def test_forward_mode_holds_under_a_kilobyte_and_reverse_mode_grows_with_the_chain(ch13):
    """Held-out draws of t and of the chain's length (300 to 1500 links, and twice that): forward
    mode's peak under 1 KB at both lengths, reverse mode's over 100 times it and twice as large at
    twice the length. Prose measured on seeds 1000-1019 (t from 0.5 to 1.5, 500 to 3000 links and
    four times that): forward mode's peak at most 656 bytes, reverse mode's 3.99-4.09 times as large
    at four times the length, and over 420 times forward mode's. Every draw, a rate of 1 on 16 draws:
    power 0.81 against a truth of 90 %; the ratio 1.9-2.1 ("twice the links, twice the memory") fails
    on every draw for a truth 1.5 times off (3, or 1.33)."""
    seeds = held_out_seeds(16, "ch13-reverse-memory")
    held = []
    for seed in seeds:
        rng = random.Random(seed)
        t, length = rng.uniform(0.5, 1.5), rng.randint(300, 1500)
        forward = [ch13["peak_bytes"](ch13["forward_mode_derivative"], t, n) for n in (length, 2 * length)]
        reverse = [ch13["peak_bytes"](ch13["reverse_mode_derivative"], t, n) for n in (length, 2 * length)]
        ok = max(forward) < 1024 and all(r > 100 * f for r, f in zip(reverse, forward))
        held.append((ok and 1.9 < reverse[1] / reverse[0] < 2.1, seed, length, forward, reverse))
    fraction_test(1.0, len(seeds)).check(sum(ok for ok, *_ in held), f"draws: {held}")


def newton_steps(ch13, x0):
    return next(i for i, x in enumerate(ch13["newton"](x0, 30)) if abs(x - 1) < 1e-10)


def best_shared_steps(ch13, starts, rates, steps=200):
    """(steps from the slowest start, rate) of the rate that does best from all the starts at once
    within `steps` (the smaller rate on a tie). A rate is run from each start only while it can
    still win: with fewer steps than the best so far, and no further once a start misses. The
    answer is the one every rate run from every start for all the steps gives, at a fraction of
    the cost (the same descent, cut short where its end cannot change the answer)."""
    best = None
    for lr in rates:
        cap, slowest = steps if best is None else best[0] - 1, 0
        for x0 in sorted(starts, key=lambda x0: -abs(x0 - 1)):  # the farthest first: the likeliest to miss
            reached = ch13["steps_to_reach_one"](x0, [lr], steps=cap)
            if lr not in reached:
                break
            slowest = max(slowest, reached[lr])
        else:
            best = (slowest, lr)
    return best


@pytest.mark.slow
@claim("ch13-newton-beats-descent")
def test_the_best_shared_rate_needs_over_ten_times_newtons_steps_on_19_draws_in_20(ch13):
    """Each held-out draw moves the four starts 1.5, 2, 2.5, 3 by up to 0.1 at random; the shared
    rate is searched on the 0.001 grid and then on a 0.0001 grid around the best (the winner on the
    notebook's starts stays at 100 steps on 0.001, 0.0001 and 0.00001 grids). Prose measured on
    seeds 2000-2999 (a pure-float copy of the same descent, rates refined to 0.0001): on 995 of
    1000 the best shared rate needed 13.1-15.4 times Newton's steps (the prose: 13 to 16 times, so
    more than ten); on the other 5, a rate near 0.052 needed about 9 times (the note: about ten times
    or fewer). The prose says "nineteen sets of starts in twenty or more": tested as a rate of 0.995
    on 30 draws, at least 28 (power 0.85 against 85 %). And every draw is one of the note's two
    kinds: 13 to 16 times (a truth 1.5 times off, 20 or 9, falls outside it on every draw), or a
    rate near 0.052 with about ten times or fewer (at most 11: CLAIMS_SEED 561903 drew starts where
    0.052 needed 74 steps against Newton's 7, 10.6 times, which an earlier version of this test
    wrongly held to 13-16 for being over ten)."""
    seeds = held_out_seeds(30, "ch13-newton-beats-descent")
    beaten = []
    for seed in seeds:
        rng = random.Random(seed)
        starts = [x0 + rng.uniform(-0.1, 0.1) for x0 in (1.5, 2.0, 2.5, 3.0)]
        _, coarse = best_shared_steps(ch13, starts, [k / 1000 for k in range(1, 251)])
        finer = [round(coarse - 0.001 + k / 10000, 4) for k in range(21)]
        slowest, rate = best_shared_steps(ch13, starts, finer)
        newton = max(newton_steps(ch13, x0) for x0 in starts)
        beaten.append((slowest > 10 * newton, seed, slowest, newton, rate))
    count = sum(ok for ok, *_ in beaten)
    fraction_test(0.995, len(seeds), says=0.95).check(count, f"draws over 10x Newton's steps: {beaten}")
    for _, seed, slowest, newton, rate in beaten:
        typical = 13 <= slowest / newton <= 16
        larger_rate = 0.05 <= rate <= 0.055 and slowest / newton <= 11
        assert typical or larger_rate, f"seed {seed}: rate {rate}, {slowest} steps, Newton {newton}"


@claim("ch13-newton-quadratic")
def test_newton_error_ratio_settles_near_one_and_a_half(ch13):
    """Held-out starts drawn between 0.6 and 6. Prose measured on 200 starts (seeds 1000-1199, the
    same range): every one reached 1, and one of the last three ratios was within 0.05 of 1.5. Asserted
    on every one of 20 draws: power 0.88 against a truth of 90 %; a ratio 1.5 times off (2.25, or 1)
    is far outside 1.45-1.55."""
    for seed in held_out_seeds(20, "ch13-newton-quadratic"):
        x0 = random.Random(seed).uniform(0.6, 6.0)
        errors = [abs(x - 1) for x in ch13["newton"](x0, 40)]
        assert errors[-1] < 1e-15, x0  # it reached the minimum at 1
        ratios = [now / before**2 for before, now in zip(errors, errors[1:]) if now and before]
        assert any(abs(r - 1.5) < 0.05 for r in ratios[-3:]), (x0, ratios)  # error ~ 1.5 * previous^2


@pytest.mark.slow
@claim("ch13-no-grad-memory")
def test_no_grad_keeps_a_hundred_times_less_memory(ch13):
    """Held-out draws of the network and the 50 points: more than 4 MB with the graph, less than
    0.1 MB without, over 100 times less, as the prose says. Prose measured on seeds 1000-1019: 374
    to 381 times less memory under no_grad() (3.11); in a plain process (no notebook), with the
    graph about 5.3 MB under 3.11 and 4.5 MB under 3.13, without it 13-14 KB. Every draw, a rate of 1
    on 16 draws: power 0.81 against a truth of 90 %."""
    seeds = held_out_seeds(16, "ch13-no-grad-memory")
    for seed in seeds:
        random.seed(seed)
        ch13["model"] = MLP(2, [16, 16, 1])
        ch13["X"], _ = make_moons(50, noise=0.1, seed=seed)
        with_graph, kept = ch13["held_after"](ch13["predictions"])
        without_graph, plain = ch13["held_after"](ch13["predictions_without_graph"])
        assert [p.data for p in kept] == [p.data for p in plain]
        assert with_graph > 4e6 and without_graph < 1e5, (seed, with_graph, without_graph)
        assert with_graph > 100 * without_graph, (seed, with_graph, without_graph)


@pytest.mark.slow
@claim("ch13-lucky-window-unsettled")
def test_a_finer_window_of_lucky_rates_finds_a_faster_one(ch13):
    """Each held-out draw picks the number of rates a window, 100 to 400. Prose measured on 25
    numbers from 100 to 400 (random.Random(7).sample): a finer window beat the first window's
    fastest rate every time, by 2 to 8 steps (the note states only that it was faster, and by 2 to 8
    steps on those 25). Every draw, a rate of 1 on 16 draws: power 0.81 against a truth of 90 %."""
    for seed in held_out_seeds(16, "ch13-lucky-window-unsettled"):
        points = random.Random(seed).randint(100, 400)
        steps = [n for n, _ in ch13["zoom_in"](2.0, 0.150, 0.170, points=points)]
        assert min(steps[1:]) < steps[0], f"{points} rates a window: no finer window is faster, {steps}"
