"""Chapters 1-3 exercise checks: worked solutions pass, plausible wrong answers get a specific hint."""

import math

import pytest
from hints import hint_of

from micrograd_lesson.exercises import (
    check_backprop_h,
    check_central_difference,
    check_neuron_grads,
    check_node_count,
    check_numerical_gradient,
    check_q,
    check_slope,
    check_step_downhill,
    check_subtraction,
)
from micrograd_lesson.exercises.ch02 import Value as ScreenValue

# ---- chapter 1 ----------------------------------------------------------------------------------


def test_slope_accepts_numbers_and_functions():
    assert check_slope(4.75)
    assert check_slope(4.7500045)
    assert check_slope(lambda: 4.75)


@pytest.mark.parametrize(
    "answer, words",
    [
        (0.375, "height"),  # g(1.5) itself
        (6.750003, "x**3 alone"),  # the slope of the chapter's earlier g(x) = x**3
        (-4.75, "sign"),
        (4.75e-6, "divide"),  # the rise without dividing by h
        (4.9, "h is too large"),
        (0.0, "nudge"),
        ("4.75", "number"),
        (math.nan, "finite"),
        (lambda: 1 / 0, "ZeroDivisionError"),
    ],
)
def test_slope_rejects(answer, words):
    assert words in hint_of(check_slope, answer)


@pytest.mark.parametrize(
    "fn, words",
    [
        (lambda f, x, h: (f(x + h) - f(x)) / h, "forward difference"),
        (lambda f, x, h: (f(x + h) - f(x - h)) / h, "2 * h"),
        (lambda f, x, h: (f(x - h) - f(x + h)) / (2 * h), "sign"),
        (lambda f, x, h: (f(x + h) - f(x - h)) / 2 * h, "brackets"),
        (lambda f, x, h: 0.0, "exact slope"),
        (lambda f, x, h: "slope", "number"),
        (lambda f, x: 0.0, "TypeError"),
        (3.0, "function itself"),
    ],
)
def test_central_difference_rejects(fn, words):
    assert words in hint_of(check_central_difference, fn)


def forward_gradient(fn, inputs):
    h = 1e-6
    base = fn(*inputs)
    out = []
    for i in range(len(inputs)):
        nudged = list(inputs)
        nudged[i] += h
        out.append((fn(*nudged) - base) / h)
    return out


def all_at_once(fn, inputs):
    h = 1e-6
    return [(fn(*[v + h for v in inputs]) - fn(*inputs)) / h for _ in inputs]


def mutates(fn, inputs):
    for i in range(len(inputs)):
        inputs[i] += 0.0
    inputs.append(0.0)
    return [0.0] * (len(inputs) - 1)


def test_numerical_gradient_accepts_forward_differences():
    # Forward differences at h = 1e-6 are well within the tolerance: the point is nudging one at a time.
    assert check_numerical_gradient(forward_gradient)


@pytest.mark.parametrize(
    "fn, words",
    [
        (all_at_once, "ONE input at a time"),
        (lambda fn, inputs: [0.0], "partial derivatives"),
        (lambda fn, inputs: [0.0 for _ in inputs], "every partial derivative is 0"),
        (lambda fn, inputs: 0.0, "list of numbers"),
        (lambda fn, inputs: [1.0, 2.0, 3.0][: len(inputs)], "input 0"),
        (mutates, "changed the inputs"),
    ],
)
def test_numerical_gradient_rejects(fn, words):
    assert words in hint_of(check_numerical_gradient, fn)


# ---- chapter 2 ----------------------------------------------------------------------------------


def make_sub(body):
    """A subclass of the chapter's Value whose __sub__ is `body`."""
    return type("Attempt", (ScreenValue,), {"__sub__": body})


@pytest.mark.parametrize(
    "cls, words",
    [
        (make_sub(lambda s, o: ScreenValue(s.data + o.data, (s, o), "-")), "addition"),
        (make_sub(lambda s, o: ScreenValue(o.data - s.data, (o, s), "-")), "order"),
        (make_sub(lambda s, o: ScreenValue(s.data - o.data, (o, s), "-")), "wrong order"),
        (make_sub(lambda s, o: ScreenValue(s.data - o.data)), "both inputs"),
        (make_sub(lambda s, o: ScreenValue(s.data - o.data, (s, o), "+")), '"-"'),
        (make_sub(lambda s, o: None), "new Value"),
        (ScreenValue, "__sub__"),
        (ScreenValue(1.0), "class itself"),
    ],
)
def test_subtraction_rejects(cls, words):
    assert words in hint_of(check_subtraction, cls)


def test_subtraction_set_prev_hint_even_for_a_real_set():
    class SetValue(ScreenValue):
        def __sub__(self, other):
            out = ScreenValue(self.data - other.data, (), "-")
            out._prev = {self, other}
            return out

    assert "tuple" in hint_of(check_subtraction, SetValue)


def leaves():
    return ScreenValue(2.0, label="a"), ScreenValue(-3.0, label="b"), ScreenValue(10.0, label="c")


def test_q_rejects_fresh_copies_of_a_and_c():
    a, b, c = leaves()
    q = (a * b + c) * (ScreenValue(2.0) + ScreenValue(10.0))
    assert "5 leaves" in hint_of(check_q, q)
    q = (a * b + c) * (ScreenValue(2.0) + c)
    assert "4 leaves" in hint_of(check_q, q)


def test_q_rejects_wrong_expressions():
    a, b, c = leaves()
    assert "no inputs" in hint_of(check_q, ScreenValue(48.0))
    assert "4 * 12" in hint_of(check_q, (a * b + c) * (a * c))
    renamed = (a * b + c) * (a + c)
    renamed._op = "times"
    assert "two * and two +" in hint_of(check_q, renamed)
    assert "leaves should be" in hint_of(check_q, (a * b + c) * (a + ScreenValue(9.0)))
    assert "root Value" in hint_of(check_q, 48.0)


def test_q_accepts_the_package_value_too():
    from micrograd_lesson import Value

    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    assert check_q((a * b + c) * (a + c))


@pytest.mark.parametrize(
    "answer, words",
    [
        ((9, 4), "one value each"),
        ((11, 4), "ovals"),
        ((4, 7), "wrong way round"),
        ((3, 4), "leaves"),
        ((7, 3), "ovals"),
        ((8, 4), "rectangles"),
        (7, "pair"),
    ],
)
def test_node_count_rejects(answer, words):
    assert words in hint_of(check_node_count, answer)


# ---- chapter 3 ----------------------------------------------------------------------------------

RIGHT_H = {"a": -12.0, "b": -12.0, "c": 9.0, "d": -12.0, "e": 1.0}


def test_backprop_h_accepts_the_right_numbers():
    assert check_backprop_h(RIGHT_H)


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


def test_backprop_h_rejects_bad_shapes():
    assert "missing 'e'" in hint_of(check_backprop_h, {k: v for k, v in RIGHT_H.items() if k != "e"})
    assert "dict" in hint_of(check_backprop_h, [-12.0, -12.0, 9.0, -12.0, 1.0])
    assert "number" in hint_of(check_backprop_h, {**RIGHT_H, "a": "minus twelve"})


SLOPE = 1 - math.tanh(0.5) ** 2
RIGHT_NEURON = {"x1": 2 * SLOPE, "w1": SLOPE, "x2": -2 * SLOPE, "w2": 0.5 * SLOPE, "b": SLOPE}


def test_neuron_grads_accept_the_right_numbers():
    assert check_neuron_grads(RIGHT_NEURON)


def test_neuron_grads_hints():
    no_tanh = {k: v / SLOPE for k, v in RIGHT_NEURON.items()}
    assert "skipped the tanh step" in hint_of(check_neuron_grads, no_tanh)
    with_n = {k: v / SLOPE * 0.75 for k, v in RIGHT_NEURON.items()}
    assert "not 1 - n**2" in hint_of(check_neuron_grads, with_n)
    own_factor = {**RIGHT_NEURON, "w1": 2 * SLOPE}  # used w1 itself instead of x1
    assert "OTHER factor" in hint_of(check_neuron_grads, own_factor)
    assert "do/db" in hint_of(check_neuron_grads, {**RIGHT_NEURON, "b": 1.0 + SLOPE})
    assert "do/dx2" in hint_of(check_neuron_grads, {**RIGHT_NEURON, "x2": 7.0})


def test_step_downhill():
    assert check_step_downhill(-8.726304)
    assert "UPHILL" in hint_of(check_step_downhill, -7.286496)
    assert "has not changed" in hint_of(check_step_downhill, -8.0)
    assert "first-order" in hint_of(check_step_downhill, -8.72)
    assert "-0.01" in hint_of(check_step_downhill, -9.0)
    assert "number" in hint_of(check_step_downhill, "low")
