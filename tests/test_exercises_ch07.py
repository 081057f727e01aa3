"""Chapter 7 exercise checks: every right answer passes, wrong ones (hand-picked and generated) get a hint."""

import random

import pytest
from hints import failed_with, hint_of
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd_lesson import MLP, Value, four_examples
from micrograd_lesson.exercises import (
    SOLUTIONS,
    check_count_loss_nodes,
    check_count_parameters,
    check_leaky_neuron,
)
from micrograd_lesson.exercises.ch07 import _LOSS_GRAPHS, _loss_nodes
from micrograd_lesson.nn import Module

junk = st.one_of(
    st.none(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.builds(Value, st.floats(-5, 5)),
    st.sampled_from([lambda *a: None, lambda *a: 1 / 0, lambda *a: "41", lambda *a: [41], int, object]),
)


@settings(max_examples=40, deadline=None)
@given(junk)
def test_no_check_raises_on_junk(answer):
    for check in (check_count_parameters, check_leaky_neuron, check_count_loss_nodes):
        result = check(answer)
        assert not result and repr(result).startswith("not yet:")


# ---- 1. count_parameters ----


def count(nin, nouts, weights=True, biases=True, bias_per_input=False):
    sizes = [nin] + nouts
    return sum(
        (a * b if weights else 0) + ((a * (b + 1) - a * b) if bias_per_input else (b if biases else 0))
        for a, b in zip(sizes, sizes[1:])
    )


@pytest.mark.parametrize(
    "kwargs, words",
    [({"biases": False}, "biases"), ({"bias_per_input": True}, "one bias per neuron")],
)
def test_count_parameters_names_the_mistake(kwargs, words):
    assert words in hint_of(check_count_parameters, lambda nin, nouts: count(nin, nouts, **kwargs))


def test_count_parameters_right_formula_and_float_answers_pass():
    assert check_count_parameters(lambda nin, nouts: count(nin, nouts))
    assert check_count_parameters(lambda nin, nouts: float(count(nin, nouts)))


def test_count_parameters_hard_coded_and_raising():
    assert "gave 41" in hint_of(check_count_parameters, lambda nin, nouts: 41)
    assert "ZeroDivisionError" in hint_of(check_count_parameters, lambda nin, nouts: 1 / 0)
    assert "return a number" in hint_of(check_count_parameters, lambda nin, nouts: "41")


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=-50, max_value=50).filter(lambda d: d != 0))
def test_count_parameters_off_by_any_amount_fails(offset):
    assert failed_with(check_count_parameters(lambda nin, nouts: count(nin, nouts) + offset))


# ---- 2. leaky neuron ----


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


class ViaRelu(_Base):
    """A different right answer: relu(a) - 0.01 * relu(-a)."""

    def __call__(self, x):
        a = self.act(x)
        return a.relu() - 0.01 * (-a).relu()


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


def test_leaky_neuron_built_another_way_passes():
    assert check_leaky_neuron(ViaRelu)


@settings(max_examples=30, deadline=None)
@given(st.floats(min_value=0.0, max_value=1.0).filter(lambda k: abs(k - 0.01) > 1e-6))
def test_leaky_neuron_with_another_slope_fails(slope):
    class OtherSlope(_Base):
        def __call__(self, x):
            a = self.act(x)
            return a if a.data > 0 else slope * a

    assert failed_with(check_leaky_neuron(OtherSlope))


def test_leaky_neuron_wants_the_class():
    fn, check = SOLUTIONS["ch07.leaky_neuron"]
    assert "class itself" in hint_of(check, fn(3))


# ---- 3. count_loss_nodes ----


def test_the_hidden_count_matches_the_notebook_cell():
    random.seed(1)
    model = MLP(3, [4, 4, 1], activation="tanh")
    xs, ys = four_examples()
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
    assert len(loss.topological_order()) == 394 == _loss_nodes(3, [4, 4, 1], 4)
    assert all(_loss_nodes(*g) == SOLUTIONS["ch07.count_loss_nodes"][0](*g) for g in _LOSS_GRAPHS)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"per_example_params": True}, "appear once"),
        ({"params": False}, "count the parameters"),
        ({"wrapped": False}, "new leaf Value each time it meets a weight"),
        ({"sum_zero": False}, "starts from 0"),
        ({"tanh": False}, "tanh node"),
    ],
)
def test_count_loss_nodes_names_the_mistake(kwargs, words):
    assert words in hint_of(
        check_count_loss_nodes, lambda nin, nouts, n: _loss_nodes(nin, nouts, n, **kwargs)
    )


def test_count_loss_nodes_hard_coded_answer_fails():
    assert "gave 394, expected 130" in hint_of(check_count_loss_nodes, lambda nin, nouts, n: 394)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=-30, max_value=30).filter(lambda d: d != 0))
def test_count_loss_nodes_off_by_any_amount_fails(offset):
    assert failed_with(check_count_loss_nodes(lambda nin, nouts, n: _loss_nodes(nin, nouts, n) + offset))


def test_count_loss_nodes_does_not_disturb_random_stream():
    random.seed(5)
    expected = [random.random() for _ in range(3)]
    random.seed(5)
    fn, check = SOLUTIONS["ch07.count_loss_nodes"]
    assert check(fn)
    assert [random.random() for _ in range(3)] == expected
