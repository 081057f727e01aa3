"""Chapter 6 exercise checks: every right answer passes, wrong ones (hand-picked and generated) get a hint."""

import itertools
import math
import sys

import pytest
from hints import Hostile, failed_with, hint_of
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from micrograd_lesson import Value, gradcheck
from micrograd_lesson.exercises import SOLUTIONS, check_central_h, check_find_bugs, check_grad_check
from micrograd_lesson.exercises.ch06 import (
    _SECRET,
    CENTRAL_MISTAKES,
    SUSPECTS,
    _buggy,
    central_h,
)

CENTRAL_H = central_h()  # the worked solution: the check keeps no copy of it
_SUSPECTS_BUGGY, _SECRET_BUGGY = _buggy()["SUSPECTS"], _buggy()["the secret set"]  # the planted bugs

# ---- 6.1 predict the central difference's best h ----


def test_central_h_accepts_the_balance_and_a_calculation():
    assert check_central_h(CENTRAL_H)
    assert check_central_h(lambda: (sys.float_info.epsilon * 8) ** (1 / 3))
    assert check_central_h(1.2e-5)


@pytest.mark.parametrize("wrong, words", [(m, h.split(":")[0][:30]) for m, h in CENTRAL_MISTAKES])
def test_central_h_names_each_known_mistake(wrong, words):
    assert words in hint_of(check_central_h, wrong)


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=1e-12, max_value=1e-1))
def test_central_h_refuses_every_h_more_than_a_factor_of_two_off(h):
    assume(not CENTRAL_H / 2 <= h <= 2 * CENTRAL_H)
    hint = hint_of(check_central_h, h)
    assert "Balance" in hint or any(m[1][:20] in hint for m in CENTRAL_MISTAKES)


def _measured_error(h):  # the central difference of x**3 at 2, against the true 12
    return abs(((2 + h) ** 3 - (2 - h) ** 3) / (2 * h) - 12.0)


def _not_known(h):  # an h that no known mistake's hint explains
    return not any(math.isclose(h, wrong, rel_tol=0.05) for wrong, _ in CENTRAL_MISTAKES)


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=1e-12, max_value=CENTRAL_H / 1.62))
def test_an_h_too_small_is_told_it_is_too_small_and_why(h):
    assume(_not_known(h))
    hint = hint_of(check_central_h, h)
    assert f"h = {h:.1e} is too small: there the round-off error" in hint, hint
    assert "too large" not in hint and "off by" not in hint


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=CENTRAL_H * 1.62, max_value=1e-1))
def test_an_h_too_large_is_told_it_is_too_large_and_why(h):
    assume(_not_known(h))
    hint = hint_of(check_central_h, h)
    assert f"h = {h:.1e} is too large: there the truncation error" in hint, hint
    assert "too small" not in hint and "by luck" not in hint  # a large h's error is its truncation


def _lucky(low, high, count):
    """`count` h spread over [low, high] whose measured error is under 1/100 of what h predicts."""
    step = (high / low) ** (1 / 20000)
    found = [
        h
        for h in (low * step**i for i in range(20001))
        if _measured_error(h) < max(h * h, 8 * sys.float_info.epsilon / h) / 100
    ]
    return found[:: max(1, len(found) // count)][:count]


POWERS_OF_TWO = [2.0**-k for k in (18, 22, 30, 34, 38)]  # every one too small, and its error exactly 0
LUCKY = POWERS_OF_TWO + _lucky(1e-12, CENTRAL_H / 1.62, 8)  # and h at which rounding errors cancel


def test_some_wrong_h_measure_a_tiny_error_by_luck():
    assert all(_measured_error(h) == 0 for h in POWERS_OF_TWO)
    assert len(LUCKY) == 13 and all(_not_known(h) for h in LUCKY)


@pytest.mark.parametrize("h", LUCKY, ids=[f"{h:.2e}" for h in LUCKY])
def test_a_lucky_h_is_judged_by_its_two_errors_not_by_the_accident(h):
    """An h whose measured error is tiny by luck is still told which way it is off; the hint names the
    accident only to say it is one."""
    hint = hint_of(check_central_h, h)
    assert f"h = {h:.1e} is too small: there the round-off error" in hint, hint  # only a small h is lucky
    assert "by luck" in hint and "Judge h by the two terms" in hint
    assert "off by" not in hint


def test_the_predicted_h_is_near_the_measured_best():
    """The balance is a prediction; measured errors at h*, 10 h* and h* / 10 bear it out."""

    def _central_error(h):  # the central difference of x**3 at 2, against the true 12
        return abs(((2 + h) ** 3 - (2 - h) ** 3) / (2 * h) - 12.0)

    assert _central_error(CENTRAL_H) < _central_error(10 * CENTRAL_H) / 10
    assert _central_error(CENTRAL_H) < _central_error(CENTRAL_H / 10) / 2


# ---- 6.2 grad_check ----


def numeric(f, x, h=1e-6):
    return (f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)


def from_backward(f, x):
    v = Value(x)
    f(v).backward()
    return v.grad


def test_grad_check_names_the_mistake():
    assert failed_with(check_grad_check(lambda f, x: (numeric(f, x), numeric(f, x))), "backward()")
    assert failed_with(check_grad_check(lambda f, x: (from_backward(f, x),) * 2), "by nudging")
    assert failed_with(check_grad_check(lambda f, x: from_backward(f, x)), "pair")
    assert failed_with(check_grad_check(lambda f, x: (Value(x), Value(numeric(f, x)))), "plain numbers")
    assert failed_with(check_grad_check(lambda f, x: (numeric(f, x), from_backward(f, x))), "pair is swapped")
    tripled = check_grad_check(lambda f, x: (3 * from_backward(f, x), numeric(f, x)))  # (36, 12): not a swap
    assert failed_with(tripled, "first number should be backward()'s 12") and "swapped" not in tripled.hint


@settings(max_examples=20, deadline=None)
@given(st.floats(min_value=1e-7, max_value=1e-4), st.booleans())
def test_grad_check_with_a_one_sided_difference_never_passes(h, right):
    def one_sided(f, x):
        side = h if right else -h
        return from_backward(f, x), (f(Value(x + side)).data - f(Value(x)).data) / side

    result = check_grad_check(one_sided)
    assert failed_with(result)  # a large h is already too inaccurate; a small one is caught by where it looks
    assert h > 1e-6 or failed_with(result, "one side")


def test_grad_check_hints_never_paste_a_long_or_hostile_answer():
    long_hint = hint_of(check_grad_check, lambda f, x: list(range(100_000)))
    assert len(long_hint) < 200
    assert "pair" in hint_of(check_grad_check, lambda f, x: Hostile())
    assert "pair" in hint_of(check_grad_check, lambda f, x: itertools.count())


def test_grad_check_accepts_a_list_and_other_step_sizes():
    assert check_grad_check(lambda f, x: [from_backward(f, x), numeric(f, x, h=1e-4)])


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=-3, max_value=3).filter(lambda e: abs(e) > 1e-4), st.booleans())
def test_grad_check_with_either_number_off_never_passes(error, which):
    def off(f, x):
        a, n = from_backward(f, x), numeric(f, x)
        return (a * (1 + error), n) if which else (a, n * (1 + error))

    assert failed_with(check_grad_check(off))


# ---- 6.3 find_bugs ----


def test_the_suspects_are_what_the_comments_say():
    solve = SOLUTIONS["ch06.find_bugs"][0]
    assert solve(SUSPECTS) == _SUSPECTS_BUGGY
    assert solve(_SECRET) == _SECRET_BUGGY


def only_at(*xs):
    def find_bugs(suspects):
        return {name for name, op in suspects.items() if not all(gradcheck(op, [x]) for x in xs)}

    return find_bugs


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=0.5, max_value=3.0))
def test_one_test_input_is_never_enough(x):
    assert failed_with(check_find_bugs(only_at(x)), "several inputs")


def test_the_ends_of_the_range_alone_are_not_enough():
    assert failed_with(check_find_bugs(only_at(0.5, 3.0)), "secret set", "3 of the 4")


def test_inputs_spread_over_the_range_are_enough_and_their_order_does_not_matter():
    assert check_find_bugs(only_at(2.9, 0.6, 2.2, 1.1))


@settings(max_examples=60, deadline=None)
@given(st.sets(st.sampled_from(sorted(SUSPECTS))).filter(lambda s: s != _SUSPECTS_BUGGY))
def test_every_other_set_of_names_fails(names):
    result = check_find_bugs(lambda suspects: set(names))
    assert failed_with(result)
    assert ("correct gradients" in repr(result)) == bool(names - _SUSPECTS_BUGGY)


def test_find_bugs_names_the_mistake():
    assert failed_with(check_find_bugs(lambda s: set(s)), "correct gradients")
    assert failed_with(check_find_bugs(lambda s: set(_SUSPECTS_BUGGY)), "secret set")
    assert failed_with(check_find_bugs(lambda s: "log2"), "single string")
    assert failed_with(check_find_bugs(lambda s: dict.fromkeys(s, True)), "not a dict")
    assert failed_with(check_find_bugs(lambda s: {SUSPECTS["log2"]}), "names")
    assert failed_with(check_find_bugs(lambda s: {"relu"}), "not names of suspects")
    assert failed_with(check_find_bugs(lambda s: [{}]), "set of names")
    assert "strings" in hint_of(check_find_bugs, lambda s: {1.5, 2.0})  # not "not the functions"
    assert "functions" not in hint_of(check_find_bugs, lambda s: {1.5, 2.0})


def test_find_bugs_reads_only_a_few_items_of_an_endless_answer():
    assert "at most" in hint_of(check_find_bugs, lambda s: itertools.count())
    assert "at most" in hint_of(check_find_bugs, lambda s: (name for name in itertools.cycle(s)))

    def exact_equality(suspects):
        return {name for name, op in suspects.items() if gradcheck(op, [1.3]).max_error > 0}

    assert failed_with(check_find_bugs(exact_equality), "correct gradients")


def test_the_public_bug_hiding_places_are_where_the_comments_say():
    op = SUSPECTS["smooth_l1"]
    assert gradcheck(op, [0.7]).ok is False and gradcheck(op, [2.5]).ok
    op = SUSPECTS["clip_at_2"]
    assert gradcheck(op, [0.7]).ok and gradcheck(op, [2.5]).ok is False
    assert math.isclose(gradcheck(SUSPECTS["log2"], [1.0]).numeric[0], 1 / math.log(2), rel_tol=1e-6)


@pytest.mark.parametrize("h, size", [(1e-11, "too small"), (1e-2, "too large")])
def test_grad_check_says_which_way_h_is_off(h, size):
    def central(f, x):
        return from_backward(f, x), (f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)

    assert size in hint_of(check_grad_check, central)


def test_find_bugs_names_inverted_logic_and_a_test_that_never_fires():
    inputs = [0.6, 1.2, 1.8, 2.4, 2.9]
    inverted = hint_of(
        check_find_bugs, lambda s: {n for n, op in s.items() if all(gradcheck(op, [x]) for x in inputs)}
    )
    assert "RIGHT: flip your test" in inverted
    never = hint_of(
        check_find_bugs, lambda s: {n for n, op in s.items() if not all([gradcheck(op, [x])] for x in inputs)}
    )
    assert "found none" in never and "a bug makes it falsy" in never


@pytest.mark.parametrize(
    "sign, denominator, words",
    [(-1, 2, "the sign is flipped"), (1, 1, "divide by 2 * h")],
)
def test_grad_check_names_a_flipped_sign_and_a_missing_2(sign, denominator, words):
    def central(f, x):
        h = 1e-6
        return from_backward(f, x), sign * (f(Value(x + h)).data - f(Value(x - h)).data) / (denominator * h)

    assert words in hint_of(check_grad_check, central)


def test_find_bugs_with_a_tolerance_looser_than_gradchecks_is_told_so():
    """Inputs spread over the range, but a bug counted only when it is off by more than 0.5: smooth_l1's
    slope, off by less than that at 0.6, is missed."""

    def loose(suspects):
        inputs = [0.6, 1.2, 1.8, 2.4, 2.9]
        return {
            name
            for name, op in suspects.items()
            if any(abs(r.autograd[0] - r.numeric[0]) > 0.5 for r in (gradcheck(op, [x]) for x in inputs))
        }

    assert "looser test of your own" in hint_of(check_find_bugs, loose)
