"""Chapter 6 exercise checks: every right answer passes, wrong ones (hand-picked and generated) get a hint."""

import math

from hints import failed_with
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd_lesson import Value, gradcheck
from micrograd_lesson.exercises import SOLUTIONS, check_find_bugs, check_grad_check, check_numeric_derivative
from micrograd_lesson.exercises.ch06 import _SECRET, _SECRET_BUGGY, _SUSPECTS_BUGGY, SUSPECTS

CHECKS = [check_numeric_derivative, check_grad_check, check_find_bugs]

junk = st.one_of(
    st.none(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=3),
    st.builds(Value, st.floats(-5, 5)),
    # functions that return junk, or raise
    st.sampled_from(
        [lambda *a: None, lambda *a: "x", lambda *a: 1 / 0, lambda *a: [1, 2, 3], lambda *a: iter(())]
    ),
)


@settings(max_examples=60, deadline=None)
@given(junk)
def test_no_check_raises_on_junk(answer):
    for check in CHECKS:
        result = check(answer)
        assert not result and repr(result).startswith("not yet:")


# ---- 6.1 numeric_derivative ----


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=1e-7, max_value=1e-3))
def test_a_central_difference_with_any_reasonable_h_passes(h):
    assert check_numeric_derivative(lambda f, x: (f(x + h) - f(x - h)) / (2 * h))


def test_a_central_difference_that_also_evaluates_f_at_x_passes():
    def with_centre(f, x, h=1e-5):
        f(x)
        return (f(x + h) - f(x - h)) / (2 * h)

    assert check_numeric_derivative(with_centre)


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=1e-9, max_value=1e-2))
def test_a_one_sided_difference_never_passes_whatever_h(h):
    forward = check_numeric_derivative(lambda f, x: (f(x + h) - f(x)) / h)
    backward = check_numeric_derivative(lambda f, x: (f(x) - f(x - h)) / h)
    assert failed_with(forward) and failed_with(backward)
    assert "one-sided" in repr(forward) or "central difference" in repr(forward)


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=-10, max_value=10).filter(lambda k: abs(k - 1) > 1e-3))
def test_a_scaled_estimate_never_passes(k):
    assert failed_with(check_numeric_derivative(lambda f, x: k * (f(x + 1e-6) - f(x - 1e-6)) / 2e-6))


def test_numeric_derivative_names_the_mistake():
    assert failed_with(check_numeric_derivative(lambda f, x: (f(x + 1e-6) - f(x)) / 1e-6), "both ways")
    assert failed_with(check_numeric_derivative(lambda f, x: (f(x - 1e-6) - f(x + 1e-6)) / 2e-6), "sign")
    assert failed_with(check_numeric_derivative(lambda f, x: (f(x + 1e-6) - f(x - 1e-6)) / 1e-6), "2h")
    assert failed_with(check_numeric_derivative(lambda f, x: (f(x + 0.1) - f(x - 0.1)) / 0.2), "small h")
    assert failed_with(check_numeric_derivative(lambda f, x: Value(0.0)), "plain number")
    assert failed_with(check_numeric_derivative(lambda f, x: 1.0), "expected")
    assert failed_with(check_numeric_derivative(1.0), "itself")  # the function was called, not passed


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
    assert failed_with(check_grad_check(lambda f, x: (numeric(f, x), from_backward(f, x))), "first number")


@settings(max_examples=20, deadline=None)
@given(st.floats(min_value=1e-7, max_value=1e-4), st.booleans())
def test_grad_check_with_a_one_sided_difference_never_passes(h, right):
    def one_sided(f, x):
        side = h if right else -h
        return from_backward(f, x), (f(Value(x + side)).data - f(Value(x)).data) / side

    result = check_grad_check(one_sided)
    assert failed_with(result)  # a large h is already too inaccurate; a small one is caught by where it looks
    assert h > 1e-6 or failed_with(result, "one side")


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
    assert failed_with(check_find_bugs(lambda s: {SUSPECTS["log2"]}), "names")
    assert failed_with(check_find_bugs(lambda s: {"relu"}), "not names of suspects")
    assert failed_with(check_find_bugs(lambda s: [{}]), "set of names")

    def exact_equality(suspects):
        return {name for name, op in suspects.items() if gradcheck(op, [1.3]).max_error > 0}

    assert failed_with(check_find_bugs(exact_equality), "correct gradients")


def test_the_public_bug_hiding_places_are_where_the_comments_say():
    op = SUSPECTS["smooth_l1"]
    assert gradcheck(op, [0.7]).ok is False and gradcheck(op, [2.5]).ok
    op = SUSPECTS["clip_at_2"]
    assert gradcheck(op, [0.7]).ok and gradcheck(op, [2.5]).ok is False
    assert math.isclose(gradcheck(SUSPECTS["log2"], [1.0]).numeric[0], 1 / math.log(2), rel_tol=1e-6)
