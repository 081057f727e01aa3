"""Chapter 3 exercise checks: right answers pass, wrong ones get a hint naming the mistake, nothing raises."""

import math

import pytest
from hints import Hostile, HostileDict, hint_of
from hypothesis import given
from hypothesis import strategies as st

from micrograd_lesson import Value
from micrograd_lesson.exercises import check_backprop_h, check_one_knob, check_used_twice

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=5),
    st.lists(st.floats(), max_size=3),
    st.floats(),
    st.dictionaries(st.text(max_size=2), st.one_of(st.floats(), st.text(max_size=2)), max_size=6),
    st.just(lambda: 1 / 0),
    st.just(float("nan")),
    st.just({"a": float("inf"), "b": 1.0, "u": 1.0}),
    st.builds(Hostile),
    st.just(lambda: Hostile()),
    st.builds(lambda: dict.fromkeys("abcdeu", Hostile())),
    st.builds(lambda: HostileDict.fromkeys("abcdeu", 1.0)),
)


def away(x, by):
    """x moved by at least 0.01 (well outside the tolerance for rounded hand work)."""
    return x + math.copysign(max(abs(by), 0.01), by)


# ---- 1. g = (a + b) * c, h = g * d + e ------------------------------------------------------------

RIGHT_H = {"a": -12.0, "b": -12.0, "c": 9.0, "d": -12.0, "e": 1.0}


def test_backprop_h_accepts_the_right_numbers_rounded_or_as_values():
    assert check_backprop_h(RIGHT_H)
    assert check_backprop_h({k: round(v + 0.0004, 4) for k, v in RIGHT_H.items()})
    assert check_backprop_h({k: Value(0.0) for k in RIGHT_H} | {k: _with_grad(v) for k, v in RIGHT_H.items()})
    assert check_backprop_h(lambda: RIGHT_H)


def _with_grad(g):
    v = Value(0.0)
    v.grad = g
    return v


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"e": 0.0}, "dh/de"),
        ({"d": 3.0}, "OTHER factor"),
        ({"d": 1.0}, "multiplied"),
        ({"c": -9.0}, "wrong sign"),
        ({"c": 3.0}, "multiply by g's grad"),
        ({"a": -4.0}, "dh/dg = d = 3"),
        ({"b": 1.0}, "+ node's local slope"),
        ({"a": 12.0}, "wrong sign"),
        ({"b": 5.0}, "1 × c × d"),
    ],
)
def test_backprop_h_names_the_wrong_gradient(changes, words):
    hint = hint_of(check_backprop_h, {**RIGHT_H, **changes})
    assert words in hint
    assert f"dh/d{next(iter(changes))}" in hint


@given(key=st.sampled_from(sorted(RIGHT_H)), by=st.floats(-100, 100))
def test_backprop_h_rejects_any_perturbed_gradient_and_names_it(key, by):
    hint = hint_of(check_backprop_h, {**RIGHT_H, key: away(RIGHT_H[key], by)})
    assert f"dh/d{key}" in hint


def test_backprop_h_rejects_bad_shapes():
    assert "missing 'e'" in hint_of(check_backprop_h, {k: v for k, v in RIGHT_H.items() if k != "e"})
    assert "dict" in hint_of(check_backprop_h, [-12.0, -12.0, 9.0, -12.0, 1.0])
    assert "number" in hint_of(check_backprop_h, {**RIGHT_H, "a": "minus twelve"})


# ---- 2. values used twice -----------------------------------------------------------------------

RIGHT_TWICE = {"a": 12.0, "b": -27.0, "u": -9.0}


def nudged_h(a=3.0, b=-2.0, du=0.0, h=1e-6):
    u = a * b + du
    return (u + a) * u


def test_used_twice_truth_agrees_with_nudging():
    h = 1e-6
    by_nudge = {
        "a": (nudged_h(a=3.0 + h) - nudged_h(a=3.0 - h)) / (2 * h),
        "b": (nudged_h(b=-2.0 + h) - nudged_h(b=-2.0 - h)) / (2 * h),
        "u": (nudged_h(du=h) - nudged_h(du=-h)) / (2 * h),
    }
    assert by_nudge == pytest.approx(RIGHT_TWICE, abs=1e-5)
    assert check_used_twice(by_nudge)  # a careful nudger is right too


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"u": -3.0}, "counts only the path u -> h"),  # u's use in v forgotten
        ({"u": -6.0}, "sum of its two uses"),
        ({"a": 18.0}, "through u only"),
        ({"a": -6.0}, "through v only"),
        ({"a": 30.0}, "dh/da"),
        ({"b": -9.0}, "u's full grad"),
        ({"b": 27.0}, "dh/db"),
    ],
)
def test_used_twice_names_the_missing_contribution(changes, words):
    assert words in hint_of(check_used_twice, {**RIGHT_TWICE, **changes})


@given(key=st.sampled_from(sorted(RIGHT_TWICE)), by=st.floats(-100, 100))
def test_used_twice_rejects_any_perturbation_and_names_the_value(key, by):
    hint = hint_of(check_used_twice, {**RIGHT_TWICE, key: away(RIGHT_TWICE[key], by)})
    assert f"dh/d{key}" in hint or "dict" in hint


# ---- 3. one knob, a budget of 0.1 -----------------------------------------------------------------


def test_one_knob_accepts_a_down_by_the_whole_budget():
    assert check_one_knob({"a": -0.1})
    assert check_one_knob(lambda: {"a": -0.1})


def test_one_knob_names_the_mistake():
    assert "raises L" in hint_of(check_one_knob, {"a": 0.1})  # the wrong way
    assert "largest in size" in hint_of(check_one_knob, {"b": 0.1})  # a smaller gradient
    assert "largest in size" in hint_of(check_one_knob, {"f": -0.1})
    assert "budget unused" in hint_of(check_one_knob, {"a": -0.05})
    assert "too large" in hint_of(check_one_knob, {"a": -0.2})
    assert "ONE leaf" in hint_of(check_one_knob, {"a": -0.1, "b": 0.1})
    assert "ONE leaf" in hint_of(check_one_knob, -8.6)  # the new L instead of the move
    assert "one of a, b, c, f" in hint_of(check_one_knob, {"L": -0.1})


@given(leaf=st.sampled_from("abcf"), by=st.floats(-0.1, 0.1))
def test_one_knob_refuses_every_other_move(leaf, by):
    if leaf == "a" and math.isclose(by, -0.1, rel_tol=0, abs_tol=1e-6):
        assert check_one_knob({leaf: by})
    else:
        assert not check_one_knob({leaf: by})


# ---- every check, whatever it is given --------------------------------------------------------------


@pytest.mark.parametrize("check", [check_backprop_h, check_used_twice, check_one_knob])
@given(junk=JUNK)
def test_checks_never_raise_and_refuse_junk(check, junk):
    result = check(junk)
    assert not result
    assert result.hint


def test_right_numbers_in_a_values_data_are_told_a_value_counts_by_its_grad():
    from micrograd_lesson.exercises import check_used_twice

    answer = {"a": Value(12.0), "b": Value(-27.0), "u": Value(-9.0)}  # .grad is 0 in each
    assert "counts by its .grad" in hint_of(check_used_twice, answer)


# ---- hints a learner can act on, for slips found by reading the checks as a learner ---------------


def test_backprop_h_wrong_keys_get_told_which_keys():
    """Keys named after the derivative ("dh/da") or in capitals are not 'missing e': the hint says
    which keys the dict needs and which it has."""
    for keys in ({f"dh/d{k}": v for k, v in RIGHT_H.items()}, {k.upper(): v for k, v in RIGHT_H.items()}):
        hint = hint_of(check_backprop_h, keys)
        assert "'a', 'b', 'c', 'd', 'e'" in hint and repr(next(iter(keys))) in hint


@pytest.mark.parametrize("changes", [{"a": 30.0, "b": -54.0}, {"a": 30.0}, {"b": -54.0}, {"b": -36.0}])
def test_used_twice_names_a_shared_node_passed_on_twice(changes):
    """A walk that pushes u's grad on every time u is reached (recursing into shared nodes) gives
    a = 30 and b = -54 (v first), or b = -36 (u first, its half-finished -3, then -9): the hint
    says u passed its grad on twice."""
    hint = hint_of(check_used_twice, {**RIGHT_TWICE, **changes})
    assert "twice" in hint and "once" in hint


@pytest.mark.parametrize("move", [{"a": 1.9}, {"b": -2.9}, {"f": -2.1}, {"c": 9.9}])
def test_one_knob_new_value_in_place_of_the_change_is_told_so(move):
    assert "the change" in hint_of(check_one_knob, move)
