"""Chapter 2 exercise checks: every right answer passes, wrong ones get a hint naming the mistake."""

import types

import pytest
from hints import hint_of
from hypothesis import assume, given
from hypothesis import strategies as st
from test_value_cells_02_03 import screen_value

from micrograd_lesson import Value as PackageValue
from micrograd_lesson.exercises import check_node_count, check_q, check_subtraction
from micrograd_lesson.exercises.ch02 import ValueWithSub, build_q, predict_q_graph

ScreenValue = screen_value("02")  # the Value class chapter 2 shows, run from its cell
CHECKS = [check_subtraction, check_node_count, check_q]


def test_the_worked_solutions_pass_on_the_value_on_screen():
    """The solutions run on the package's Value; in the notebook they run on the chapter's own."""
    on_screen = type("ValueWithSub", (ScreenValue,), {"__sub__": ValueWithSub.__sub__})
    assert check_subtraction(on_screen)
    assert check_q(types.FunctionType(build_q.__code__, {**build_q.__globals__, "Value": ScreenValue}))


class Unreadable:
    """Looks like a Value from outside, but reading data, _prev or _op raises."""

    def __getattr__(self, name):
        raise ValueError(f"reading {name}")


def test_checks_never_raise_when_a_node_cannot_be_read():
    assert not check_subtraction(make_sub(lambda s, o: Unreadable()))
    assert not check_q(Unreadable())
    leaf = ScreenValue(2.0)
    assert not check_q(ScreenValue(48.0, (leaf, Unreadable()), "*"))


def test_worked_solutions_pass():
    assert check_subtraction(ValueWithSub)
    assert check_node_count(predict_q_graph) and check_node_count(predict_q_graph())
    assert check_q(build_q) and check_q(build_q())


# ---- 1. subtraction ------------------------------------------------------------------------------


def make_sub(body):
    """A subclass of the chapter's Value whose __sub__ is `body`."""
    return type("Attempt", (ScreenValue,), {"__sub__": body})


def test_subtraction_accepts_other_correct_writings():
    assert check_subtraction(make_sub(lambda s, o: type(s)(s.data + -o.data, [s, o], "-")))
    assert check_subtraction(make_sub(lambda s, o: type(s)(s.data - o.data, (s, o), "-", label="z")))


@given(data=st.floats(-1e6, 1e6, allow_nan=False), order=st.sampled_from(["so", "os", "s", "o", ""]))
def test_subtraction_rejects_any_wrong_data_or_inputs(data, order):
    pick = {"s": lambda s, o: s, "o": lambda s, o: o}
    assume(not (abs(data - 2.0) < 1e-6 and order == "so"))

    def sub(s, o):
        return ScreenValue(data, tuple(pick[c](s, o) for c in order), "-")

    assert not check_subtraction(make_sub(sub))


@given(op=st.text(max_size=3))
def test_subtraction_rejects_any_other_op_name(op):
    assume(op != "-")
    hint = hint_of(check_subtraction, make_sub(lambda s, o: ScreenValue(s.data - o.data, (s, o), op)))
    assert '"-"' in hint


def in_place_sub(self, other):
    """The right result, but it overwrites self.data on the way."""
    self.data = self.data - other.data
    return ScreenValue(self.data, (self, other), "-")


@pytest.mark.parametrize(
    "cls, words",
    [
        (make_sub(lambda s, o: ScreenValue(s.data + o.data, (s, o), "-")), "addition"),
        (make_sub(lambda s, o: ScreenValue(o.data - s.data, (o, s), "-")), "order"),
        (make_sub(lambda s, o: ScreenValue(s.data - o.data, (o, s), "-")), "wrong order"),
        (make_sub(lambda s, o: ScreenValue(s.data - o.data)), "both inputs"),
        (make_sub(lambda s, o: ScreenValue(s.data - o.data, (s, ScreenValue(o.data)), "-")), "themselves"),
        (make_sub(lambda s, o: None), "NEW Value"),
        (make_sub(lambda s, o: 1 / 0), "ZeroDivisionError"),
        (make_sub(lambda s, o: s), "NEW Value"),
        (make_sub(in_place_sub), "changed x or y"),
        (ScreenValue, "__sub__"),
        (ScreenValue(1.0), "class itself"),
    ],
)
def test_subtraction_hints(cls, words):
    assert words in hint_of(check_subtraction, cls)


def test_subtraction_refuses_a_result_that_cannot_subtract_again():
    """The classmate's version in the notebook: right once, but x - y is a plain Value."""
    assert "(x - y) - z failed" in hint_of(
        check_subtraction, make_sub(lambda s, o: ScreenValue(s.data - o.data, (s, o), "-"))
    )


def test_subtraction_refuses_a_chain_that_forgets_the_first_result():
    def forgets(s, o):
        if s.data == 2.0:  # the result of x - y, subtracting again
            return type(s)(s.data - o.data, (o,), "-")
        return type(s)(s.data - o.data, (s, o), "-")

    assert "remember (x - y, z)" in hint_of(check_subtraction, make_sub(forgets))


def test_subtraction_set_prev_hint_even_for_a_real_set():
    class SetValue(ScreenValue):
        def __sub__(self, other):
            out = ScreenValue(self.data - other.data, (), "-")
            out._prev = {self, other}
            return out

    assert "tuple" in hint_of(check_subtraction, SetValue)


def test_subtraction_with_junk_in_prev_or_data_does_not_raise():
    class NotIterablePrev(ScreenValue):
        def __sub__(self, other):
            out = ScreenValue(self.data - other.data, (), "-")
            out._prev = 5
            return out

    class ArrayData(ScreenValue):
        def __sub__(self, other):
            import numpy as np

            return ScreenValue(np.array([2.0, 2.0]), (self, other), "-")

    assert "tuple" in hint_of(check_subtraction, NotIterablePrev)
    assert "data 2.0" in hint_of(check_subtraction, ArrayData)


# ---- 2. predict the graph --------------------------------------------------------------------------


def test_node_count_accepts_every_way_of_writing_the_pair():
    assert check_node_count((7, 4)) and check_node_count([7, 4]) and check_node_count((7.0, 4.0))


@given(values=st.integers(-50, 50), ops=st.integers(-50, 50))
def test_node_count_rejects_every_other_pair(values, ops):
    assume((values, ops) != (7, 4))
    assert not check_node_count((values, ops))


@given(values=st.floats(0, 20), ops=st.floats(0, 20))
def test_node_count_rejects_fractions(values, ops):
    assume(values != int(values) or ops != int(ops))
    assert "whole numbers" in hint_of(check_node_count, (values, ops))


@pytest.mark.parametrize(
    "answer, words",
    [
        ((9, 4), "one value"),  # a and c counted once per use
        ((8, 4), "one value"),
        ((11, 4), "operations as values"),
        ((4, 7), "wrong way round"),
        ((3, 4), "leaves"),
        ((7, 3), "each * and each +"),
        ((6, 4), "one new value made by each operation"),
        ((0, 0), "replace"),
        (7, "pair"),
        (("7", "4"), "whole numbers"),
        ((7, 4, 0), "pair"),
    ],
)
def test_node_count_hints(answer, words):
    assert words in hint_of(check_node_count, answer)


# ---- 3. build q ---------------------------------------------------------------------------------------


def leaves(cls=ScreenValue):
    return cls(2.0, label="a"), cls(-3.0, label="b"), cls(10.0, label="c")


def test_q_accepts_the_package_value_and_any_grouping():
    a, b, c = leaves(PackageValue)
    assert check_q((a * b + c) * (a + c))
    a, b, c = leaves()
    assert check_q((c + a * b) * (c + a))  # + is commutative: any order of operands is the same graph


def test_q_rejects_fresh_copies_of_a_and_c():
    a, b, c = leaves()
    assert "made once and reused; yours: [-3.0, 2.0, 2.0, 10.0, 10.0]" in hint_of(
        check_q, (a * b + c) * (ScreenValue(2.0) + ScreenValue(10.0))
    )
    assert "made once and reused; yours: [-3.0, 2.0, 2.0, 10.0]" in hint_of(
        check_q, (a * b + c) * (ScreenValue(2.0) + c)
    )


@given(
    data=st.lists(st.sampled_from([2.0, -3.0, 10.0, 1.0, 0.0]), min_size=3, max_size=3),
    shape=st.integers(0, 5),
)
def test_q_rejects_wrong_expressions(data, shape):
    a, b, c = (ScreenValue(x) for x in data)
    q = [
        lambda: (a * b + c) * (a * c),
        lambda: (a * b + c) + (a + c),
        lambda: (a * b) * (a + c),
        lambda: (a + b + c) * (a + c),
        lambda: (a * b + c) * (a + c),
        lambda: a * b * c,
    ][shape]()
    assume(not (data == [2.0, -3.0, 10.0] and shape == 4))
    assert not check_q(q)


def test_q_hints():
    a, b, c = leaves()
    assert "no inputs" in hint_of(check_q, ScreenValue(48.0))
    assert "4 * 12" in hint_of(check_q, (a * b + c) * (a * c))
    renamed = (a * b + c) * (a + c)
    renamed._op = "times"
    assert "two * and two +" in hint_of(check_q, renamed)
    assert "leaves should be" in hint_of(check_q, (a * b + c) * (a + ScreenValue(9.0)))
    assert "root Value" in hint_of(check_q, 48.0)
    broken = ScreenValue(48.0, (a, b), "*")
    broken._prev = 5
    assert "_prev" in hint_of(check_q, broken)
    assert "tuple of Values" in hint_of(check_q, ScreenValue(48.0, (a, 3.0), "*"))


def test_subtraction_refuses_a_difference_without_its_sign():
    class BySize(ScreenValue):
        def __sub__(self, other):
            return type(self)(abs(self.data - other.data), (self, other), "-")  # right when self >= other

    verdict = check_subtraction(BySize)
    assert not verdict and "3 - 5" in verdict.hint and "no abs" in verdict.hint


def test_subtraction_with_a_set_for_prev_is_told_a_set_keeps_no_order():
    hint = hint_of(check_subtraction, make_sub(lambda s, o: type(s)(s.data - o.data, {s, o}, "-")))
    assert "set" in hint
