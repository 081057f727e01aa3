"""Chapter 7 and 10 exercise checks: right answers pass, plausible wrong ones get a useful hint."""

import math
import random

import pytest
from hints import hint_of

from micrograd_lesson import Value
from micrograd_lesson.exercises import (
    SOLUTIONS,
    check_adam_step,
    check_count_graph_nodes,
    check_count_parameters,
    check_leaky_neuron,
    check_momentum_step,
)
from micrograd_lesson.nn import Module

# ---- chapter 7 ----


def test_count_parameters_without_biases():
    def weights_only(nin, nouts):
        sizes = [nin] + nouts
        return sum(a * b for a, b in zip(sizes, sizes[1:]))

    assert "biases" in hint_of(check_count_parameters, weights_only)


def test_count_parameters_bias_per_input():
    def bias_per_input(nin, nouts):
        sizes = [nin] + nouts
        return sum(a * (b + 1) for a, b in zip(sizes, sizes[1:]))

    assert "one bias per neuron" in hint_of(check_count_parameters, bias_per_input)


def test_count_parameters_hard_coded_and_raising():
    assert "gave 41" in hint_of(check_count_parameters, lambda nin, nouts: 41)
    assert "ZeroDivisionError" in hint_of(check_count_parameters, lambda nin, nouts: 1 / 0)
    assert "return a number" in hint_of(check_count_parameters, lambda nin, nouts: "41")


class _Base(Module):
    def __init__(self, nin):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)

    def parameters(self):
        return self.w + [self.b]

    def act(self, x):
        return sum((wi * xi for wi, xi in zip(self.w, x)), self.b)


class PlainRelu(_Base):
    def __call__(self, x):
        return self.act(x).relu()


class NoLeak(_Base):
    def __call__(self, x):
        return self.act(x)


class Detached(_Base):
    def __call__(self, x):
        a = self.act(x).data
        return Value(a if a > 0 else 0.01 * a)


class TanhNeuron(_Base):
    def __call__(self, x):
        return self.act(x).tanh()


class NotAModule:
    def __init__(self, nin):
        pass


@pytest.mark.parametrize(
    "cls, words",
    [
        (PlainRelu, "plain ReLU"),
        (NoLeak, "scaled by 0.01"),
        (Detached, "no gradient reached"),
        (TanhNeuron, "no tanh"),
        (NotAModule, "subclass of Module"),
    ],
)
def test_leaky_neuron_wrong_answers(cls, words):
    assert words in hint_of(check_leaky_neuron, cls)


def test_leaky_neuron_wants_the_class():
    _, check = SOLUTIONS["ch07.leaky_neuron"]
    fn, _ = SOLUTIONS["ch07.leaky_neuron"]
    assert "class itself" in hint_of(check, fn(3))


def _nodes(nin, nouts, inputs=True, last_tanh=False, hidden_tanh=True):
    total = nin if inputs else 0
    sizes = [nin] + nouts
    for i, (k, n) in enumerate(zip(sizes, sizes[1:])):
        hidden = i < len(nouts) - 1
        total += n * (3 * k + 1 + ((hidden and hidden_tanh) or (not hidden and last_tanh)))
    return total


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"inputs": False}, "input Values too"),
        ({"last_tanh": True}, "last layer is linear"),
        ({"hidden_tanh": False}, "one tanh node"),
    ],
)
def test_count_graph_nodes_wrong_answers(kwargs, words):
    assert words in hint_of(check_count_graph_nodes, lambda nin, nouts: _nodes(nin, nouts, **kwargs))


def test_count_graph_nodes_right_formula_passes():
    assert check_count_graph_nodes(lambda nin, nouts: _nodes(nin, nouts))


def test_count_graph_nodes_does_not_disturb_random_stream():
    random.seed(5)
    expected = [random.random() for _ in range(3)]
    random.seed(5)
    fn, check = SOLUTIONS["ch07.count_graph_nodes"]
    check(fn)
    assert [random.random() for _ in range(3)] == expected


# ---- chapter 10 ----


def test_momentum_with_dampening():
    def damped(p, v, g, lr, mu):
        v = mu * v + (1 - mu) * g
        return p - lr * v, v

    assert "(1 - mu)" in hint_of(check_momentum_step, damped)


def test_momentum_uses_old_velocity():
    def old_v(p, v, g, lr, mu):
        return p - lr * v, mu * v + g

    assert "NEW velocity" in hint_of(check_momentum_step, old_v)


def test_momentum_uphill_and_plain():
    def uphill(p, v, g, lr, mu):
        v = mu * v + g
        return p + lr * v, v

    def plain(p, v, g, lr, mu):
        v = mu * v + g
        return p - lr * g, v

    assert "uphill" in hint_of(check_momentum_step, uphill)
    assert "raw gradient" in hint_of(check_momentum_step, plain)
    assert "two numbers" in hint_of(check_momentum_step, lambda p, v, g, lr, mu: p)


def _adam(correct=True, shift=0, sqrt=True, sign=-1):
    def step(p, g, m, v, t, lr, b1, b2, eps):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1 ** (t + shift)) if correct else m
        v_hat = v / (1 - b2 ** (t + shift)) if correct else v
        denom = math.sqrt(v_hat) if sqrt else v_hat
        return p + sign * lr * m_hat / (denom + eps), m, v

    return step


@pytest.mark.parametrize(
    "answer, words",
    [
        (_adam(correct=False), "no bias correction"),
        (_adam(shift=1), "beta**(t + 1)"),
        (_adam(sqrt=False), "square ROOT"),
        (_adam(sign=1), "uphill"),
        (lambda p, g, m, v, t, lr, b1, b2, eps: (p, m, v), "new_m should be"),
        (lambda p, g, m, v, t, lr, b1, b2, eps: p, "three numbers"),
    ],
)
def test_adam_wrong_answers(answer, words):
    assert words in hint_of(check_adam_step, answer)


def test_adam_t_from_zero():
    # Bias correction with t - 1: at t = 1 it divides by zero, which the check reports as a hint.
    out = hint_of(check_adam_step, _adam(shift=-1))
    assert "ZeroDivisionError" in out
