"""micrograd_lesson.race: chapter 10's problems, its runs many at a time, its score and its tuning.

The race's verdicts themselves are re-run in tests/claims/test_ch10.py; these tests check the
machinery: that the array rules are the package's optimisers to the last bit, that the score
means what the chapter says, and that the tuning treats every start alike.
"""

import math

import numpy as np
import pytest

from micrograd_lesson import Value
from micrograd_lesson.gradcheck import central_difference
from micrograd_lesson.race import (
    LIMITS,
    METHODS,
    MINIMA,
    PROBLEMS,
    START,
    TARGET,
    banana,
    describe,
    race,
    rate_grid,
    run,
    run_setting,
    runs,
    score,
    setting,
    solved_from,
    start_draw,
    turn,
    turned,
    valley,
)


def random_settings(problem, method, rng, count):
    """`count` settings of `method`: rates from its grid and knobs from its lists, and as many again
    off the grid (as the refinement tries them)."""
    _, knob_values = METHODS[method]
    found = []
    for _ in range(count):
        s = {"lr": float(rng.choice(rate_grid(problem, method)))}
        s |= {k: float(rng.choice(values)) for k, values in knob_values.items()}
        found.append(s)
        found.append({k: v * float(rng.uniform(0.7, 1.0)) for k, v in s.items()})
    return found


@pytest.mark.parametrize("problem", list(PROBLEMS))
@pytest.mark.parametrize("method", list(METHODS))
def test_the_array_rules_are_the_package_optimisers_to_the_last_bit(problem, method):
    """runs() carries out a whole grid at once in NumPy; each of its columns must be exactly the
    run through the package's own optimiser class (micrograd_lesson.optim), loss for loss, whether
    the run converges, stalls or blows up, and from the shown start or another."""
    rng = np.random.default_rng(3)
    settings = random_settings(problem, method, rng, 3)
    starts = [PROBLEMS[problem][2], start_draw(problem, 17)] * len(settings)
    settings = [s for s in settings for _ in range(2)]  # each setting from both starts
    many = runs(method, {k: np.array([s[k] for s in settings]) for k in settings[0]}, problem, starts)
    for column, (s, start) in enumerate(zip(settings, starts)):
        one = run_setting(problem, method, s, start)
        assert np.array_equal(one, many[:, column]), f"{method} on {problem} at {s} from {start}"


def test_a_run_that_blows_up_scores_inf_in_both():
    losses = run_setting("valley", "plain descent", {"lr": 1.0})  # far above the limit 2/100
    assert math.isinf(losses[-1]) and len(losses) == 101
    assert np.array_equal(losses, runs("plain descent", {"lr": np.array([1.0])}, "valley", [START])[:, 0])
    assert score(losses[:, None])[0] == math.inf


def test_run_sets_the_gradient_from_the_formula_and_steps_the_optimiser():
    losses, path = run(lambda p: METHODS["plain descent"][0](p, lr=0.019), *PROBLEMS["valley"])
    assert path.shape == (101, 2) and len(losses) == 101
    assert path[1][0] == -8.0 - 0.019 * -8.0 and path[1][1] == 1.0 - 0.019 * 100.0
    assert losses[1] == valley(*path[1])


# ---- the problems ----


@pytest.mark.parametrize("problem", list(PROBLEMS))
def test_each_gradient_is_its_loss_s_derivative(problem):
    grad_fn, loss_fn, start, _ = PROBLEMS[problem]
    for point in [start, (0.3, -0.7), (1.5, 2.0)]:
        for i in (0, 1):

            def along(x, i=i, point=point):
                moved = list(point)
                moved[i] = x
                return loss_fn(*moved)

            numeric = central_difference(along, point[i], 1e-5)
            assert math.isclose(grad_fn(*point)[i], numeric, rel_tol=1e-6, abs_tol=1e-6)


def test_the_valley_s_gradient_is_what_backward_gives():
    w = [Value(-3.0), Value(0.5)]
    valley(*w).backward()
    assert [p.grad for p in w] == list(PROBLEMS["valley"][0](-3.0, 0.5)) == [-3.0, 50.0]


def test_the_turned_valley_is_the_valley_turned():
    for point in [START, (0.5, -2.0), (3.0, 3.0)]:
        assert math.isclose(turned(*turn(*point)), valley(*point), rel_tol=1e-12)
    assert PROBLEMS["turned valley"][2] == turn(*START)


@pytest.mark.parametrize("problem", list(PROBLEMS))
def test_a_drawn_start_is_as_far_from_the_minimum_as_the_shown_one(problem):
    shown = math.dist(MINIMA[problem], PROBLEMS[problem][2])
    drawn = [start_draw(problem, seed) for seed in range(20)]
    assert all(math.isclose(math.dist(MINIMA[problem], s), shown, rel_tol=1e-12) for s in drawn)
    assert len(set(drawn)) == 20
    assert start_draw(problem, 5) == start_draw(problem, 5)


def test_a_drawn_turned_start_is_the_valley_s_drawn_start_turned():
    assert start_draw("turned valley", 8) == turn(*start_draw("valley", 8))


def test_the_banana_s_minimum_is_zero_at_one_one():
    assert banana(1.0, 1.0) == 0.0 and PROBLEMS["banana"][0](1.0, 1.0) == (0.0, 0.0)
    assert banana(-1.2, 1.0) > 0 and PROBLEMS["banana"][2:] == ((-1.2, 1.0), 1000)


# ---- the score ----


def losses_of(*columns):
    return np.array(columns, dtype=float).T


def test_a_run_that_stays_below_the_target_scores_the_step_it_got_there():
    steps = 100
    solved_at_5 = [1.0] * 5 + [1e-25] * (steps - 4)
    solved_at_90 = [1.0] * 90 + [1e-25] * (steps - 89)
    keys = score(losses_of(solved_at_5, solved_at_90))
    assert (keys < 0).all() and keys[0] < keys[1]  # earlier is better
    assert list(solved_from(keys, steps)) == [5, 90]


def test_a_dip_that_climbs_back_or_lands_late_is_not_solved():
    steps = 100
    climbs_back = [1.0] * 5 + [1e-25] * 50 + [3.1e-5] * (steps - 54)
    dips_at_the_end = [1.0] * 95 + [1e-25] * (steps - 94)  # below only from step 95: too late
    keys = score(losses_of(climbs_back, dips_at_the_end))
    assert list(keys) == [3.1e-5, 1.0]  # each scores its worst loss of the last 10 steps
    assert np.isinf(solved_from(keys, steps)).all()


def test_an_unsolved_run_scores_its_worst_late_loss_to_two_digits():
    steps = 100
    falling = list(np.geomspace(10.0, 1.234567e-3, steps + 1))
    (key,) = score(losses_of(falling))
    assert key == float(f"{max(falling[-10:]):.2g}")
    assert score(losses_of([1.0] * 50 + [math.inf] * 51))[0] == math.inf


def test_solved_always_beats_unsolved_and_the_target_is_1e_20():
    assert TARGET == 1e-20
    solved = [1.0] * 90 + [1e-21] * 11
    unsolved = [1e-19] * 101
    a, b = score(losses_of(solved, unsolved))
    assert a < 0 < b


# ---- the tuning ----


def test_the_rate_grids_are_log_spaced_with_25_rates_or_as_many_as_said():
    rates = rate_grid("valley", "Adam")
    assert len(rates) == 25 and math.isclose(rates[0], 1e-3) and math.isclose(rates[-1], 30)
    assert np.allclose(np.diff(np.log(rates)), np.log(rates[1] / rates[0]))
    assert len(rate_grid("banana", "momentum")) == 37


def test_the_refinement_s_search_space_keeps_every_knob_in_its_range():
    s = setting({"lr": np.log([0.1]), "forget": np.log([2.0]), "mu": np.array([1.5]), "b1": np.array([-0.2])})
    assert math.isclose(s["lr"][0], 0.1) and s["forget"][0] == 1.0
    assert s["mu"][0] == 0.999 and s["b1"][0] == 0.0


def test_a_knob_limit_is_tried_only_at_an_end_of_a_list():
    for method, (_, knob_values) in METHODS.items():
        for knob, values in knob_values.items():
            inside = set(values[1:-1])
            assert not inside & set(LIMITS.get(knob, ())), (method, knob)


@pytest.mark.parametrize("method", ["momentum", "RMSProp"])
def test_racing_starts_together_is_racing_each_alone(method):
    """Every start is tuned afresh: racing several at once gives each what it gets alone."""
    starts = [start_draw("valley", seed) for seed in (4, 5, 6)]
    together = race("valley", method, starts)
    for start, result in zip(starts, together):
        (alone,) = race("valley", method, [start])
        assert alone["refined"] == result["refined"] and alone["grid"] == result["grid"]
        assert alone["at edge"] == result["at edge"]


def test_the_refinement_never_scores_worse_than_the_grid():
    starts = [start_draw("turned valley", seed) for seed in (1, 2, 3)]
    for result in race("turned valley", "Adam", starts):
        assert result["refined"][0] <= result["grid"][0]


def test_the_race_from_the_valley_s_shown_start():
    """The chapter's table: AdaGrad solves the valley from step 5, inside its grid, and a rerun
    of its refined setting through the package's class scores what the race gave it."""
    (result,) = race("valley", "AdaGrad", [START])
    key, s = result["refined"]
    assert not result["at edge"] and solved_from([key], 100)[0] == 5
    assert score(run_setting("valley", "AdaGrad", s)[:, None])[0] == key
    assert describe("AdaGrad", result["refined"], 100).startswith("below 1e-20 from step    5   lr 3.48e+04")


def test_a_refined_rmsprop_setting_is_described_by_its_first_step():
    line = describe("RMSProp", (0.22, {"lr": 0.1, "forget": 0.8882}), 100)
    assert line == "worst of last 10 steps 2.2e-01   first step 0.1, forget 0.8882"


def test_an_unknown_method_is_named():
    with pytest.raises(ValueError, match="no such method 'Nesterov'"):
        runs("Nesterov", {"lr": np.array([0.1])}, "valley", [START])
