"""Numerical derivatives and gradcheck: accuracy orders, passing and failing checks, the table."""

import math
import random

import pytest

from micrograd_lesson import MLP, four_examples
from micrograd_lesson.engine import Value
from micrograd_lesson.gradcheck import (
    central_difference,
    forward_difference,
    gradcheck,
    gradcheck_parameters,
    numerical_gradient,
)


def error_ratio(method, f, df, x, h):
    """How much the error shrinks when h is halved: about 2**order."""
    return abs(method(f, x, h) - df(x)) / abs(method(f, x, h / 2) - df(x))


@pytest.mark.parametrize(
    "f, df, x",
    [(math.exp, math.exp, 1.0), (math.sin, math.cos, 0.7), (lambda x: x**3, lambda x: 3 * x**2, 2.0)],
)
def test_forward_difference_is_first_order_and_central_second(f, df, x):
    # h large enough that truncation error, not round-off, dominates.
    assert error_ratio(forward_difference, f, df, x, 1e-2) == pytest.approx(2, rel=0.05)
    assert error_ratio(central_difference, f, df, x, 1e-2) == pytest.approx(4, rel=0.05)


def test_central_difference_is_far_more_accurate_at_the_same_h():
    f, x, exact = math.exp, 1.0, math.e
    assert abs(central_difference(f, x, 1e-4) - exact) < abs(forward_difference(f, x, 1e-4) - exact) / 100


def test_numerical_gradient_has_one_partial_per_input():
    grads = numerical_gradient(lambda a, b, c: a * b + c, [2.0, -3.0, 10.0])
    assert grads == pytest.approx([-3.0, 2.0, 1.0], abs=1e-8)


@pytest.mark.parametrize(
    "f, xs",
    [
        (lambda a, b, c: (a * b + c) ** 2, [2.0, 3.0, 1.0]),
        (lambda a, b: (a / b).tanh() - b.exp() * a.sigmoid(), [0.4, -1.3]),
        (lambda a, b: a**b + (a.log() - 2) ** 3, [1.7, 0.6]),
        (lambda a: (a.relu() + 1) ** -0.5, [0.8]),
    ],
)
def test_gradcheck_passes_on_correct_operations(f, xs):
    result = gradcheck(f, xs)
    assert result.ok and bool(result)
    assert all(result.passed)
    assert result.max_error < 1e-6
    assert repr(result).startswith("<gradcheck passed:")


def test_gradcheck_reports_the_autograd_values():
    result = gradcheck(lambda a, b, c: (a * b + c) ** 2, [2.0, 3.0, 1.0], names=["a", "b", "c"])
    assert [row[1] for row in result.rows()] == [42.0, 28.0, 14.0]  # 2(ab+c)·b, 2(ab+c)·a, 2(ab+c)


def wrong_sin(x):
    """A micrograd-style op whose backward uses sin instead of cos."""
    out = Value(math.sin(x.data), (x,), "sin")

    def _backward():
        x.grad += math.sin(x.data) * out.grad  # wrong: d sin(x)/dx is cos(x)

    out._backward = _backward
    return out


class WrongSquare(Value):
    """A node whose backward forgets the factor 2 of d(x^2)/dx."""

    def _backward(self):
        for child in self._prev:
            child.grad += child.data * self.grad


def wrong_square(x):
    return WrongSquare(x.data**2, (x,), "square")


@pytest.mark.parametrize("f", [lambda a, b: wrong_sin(a) * b, lambda a, b: wrong_square(a) * b])
def test_gradcheck_fails_on_a_wrong_backward(f):
    result = gradcheck(f, [0.9, 2.0], names=["a", "b"])
    assert not result.ok and not bool(result)
    assert result.passed == [False, True]  # a's gradient is wrong; b's only needs the forward value
    assert repr(result).startswith("<gradcheck FAILED:")
    assert "NO" in str(result).splitlines()[1]


def test_the_table_text():
    result = gradcheck(lambda a, b: a * b + a, [2.0, 3.0], names=["a", "b"])
    lines = str(result).splitlines()
    assert lines[0].split() == ["input", "autograd", "numeric", "error", "ok"]
    assert lines[1].split()[:3] == ["a", "4.000000", "4.000000"]
    assert lines[2].split()[:3] == ["b", "2.000000", "2.000000"]
    assert lines[1].endswith("yes") and lines[2].endswith("yes")
    assert len(lines) == 3


def test_default_names_and_bad_arguments():
    assert [row[0] for row in gradcheck(lambda a, b: a * b, [1.0, 2.0]).rows()] == ["x0", "x1"]
    with pytest.raises(ValueError, match="got 1 names for 2 inputs"):
        gradcheck(lambda a, b: a * b, [1.0, 2.0], names=["a"])
    with pytest.raises(TypeError, match="return a Value, got float"):
        gradcheck(lambda a: a.data * 2, [1.0])


# ---- a whole model: gradcheck_parameters ----


def small_model():
    random.seed(4)
    model = MLP(3, [3, 1], activation="tanh")
    xs, ys = four_examples()
    return model, lambda: sum((model(x) - y) ** 2 for x, y in zip(xs, ys))


def test_gradcheck_parameters_passes_a_correct_model_and_puts_every_parameter_back():
    model, loss_fn = small_model()
    before = [p.data for p in model.parameters()]
    result = gradcheck_parameters(loss_fn, model.parameters())
    assert result.ok and len(result.names) == len(before) == 16
    assert [p.data for p in model.parameters()] == before  # exactly, not approximately
    assert result.max_rel_error < 1e-6
    # the autograd column is what backward() gives on a fresh graph
    for p in model.parameters():
        p.grad = 0.0
    loss_fn().backward()
    assert result.autograd == [p.grad for p in model.parameters()]


def test_gradcheck_parameters_catches_a_parameter_left_out_of_the_graph():
    model, loss_fn = small_model()
    w = model.parameters()[0]

    def detached_loss():  # w's value is used, but through a fresh leaf: no gradient reaches w
        saved = model.layers[0].neurons[0].w[0]
        model.layers[0].neurons[0].w[0] = Value(saved.data)
        try:
            return loss_fn()
        finally:
            model.layers[0].neurons[0].w[0] = saved

    result = gradcheck_parameters(detached_loss, [w])
    assert not result.ok and result.autograd == [0.0] and result.rel_errors == [1.0]


def test_gradcheck_parameters_samples_reproducibly():
    model, loss_fn = small_model()
    a = gradcheck_parameters(loss_fn, model.parameters(), sample=5, seed=3)
    b = gradcheck_parameters(loss_fn, model.parameters(), sample=5, seed=3)
    assert a.names == b.names and len(a.names) == 5 and len(set(a.names)) == 5
    assert a.names == sorted(a.names, key=lambda n: int(n[1:]))


@pytest.mark.parametrize(
    "kwargs, error",
    [({"sample": 0}, ValueError), ({"sample": 17}, ValueError), ({"params": [1.0]}, TypeError)],
)
def test_gradcheck_parameters_refuses_bad_input(kwargs, error):
    model, loss_fn = small_model()
    args = {"params": model.parameters(), **kwargs}
    with pytest.raises(error):
        gradcheck_parameters(loss_fn, **args)


def test_gradcheck_parameters_needs_a_value_loss():
    model, _ = small_model()
    with pytest.raises(TypeError, match="return a Value"):
        gradcheck_parameters(lambda: 1.0, model.parameters())
