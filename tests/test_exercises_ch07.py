"""Chapter 7 exercise checks: right answers pass, wrong ones (hand-picked and generated) get their hint."""

import math
import random
import threading

import numpy as np
import pytest
from hints import failed_with, hint_of
from hypothesis import given, settings
from hypothesis import strategies as st
from junk import short_time_limit

from micrograd_lesson import MLP, Value, four_examples
from micrograd_lesson.exercises import (
    SOLUTIONS,
    check_count_loss_nodes,
    check_leaky_neuron,
    check_widest_hidden,
)
from micrograd_lesson.exercises.ch07 import (
    _BUDGETS,
    _LOSS_GRAPHS,
    _TOO_BIG,
    _loss_nodes,
    _parameters,
    _true_loss_node_count,
    _widest,
)
from micrograd_lesson.nn import Module

# ---- 1. widest_hidden ----


def test_the_reference_width_builds_a_network_that_fits_and_one_wider_does_not():
    for nin, budget in _BUDGETS[:5]:
        h = _widest(nin, budget)
        assert h == 0 or len(MLP(nin, [h, h, 1]).parameters()) <= budget
        assert len(MLP(nin, [h + 1, h + 1, 1]).parameters()) > budget


def _root(nin, budget):
    return (-(nin + 3) + math.sqrt((nin + 3) ** 2 - 4 * (1 - budget))) / 2


@pytest.mark.parametrize(
    "answer",
    [
        lambda nin, b: np.int64(_widest(nin, b)),  # NumPy integers are numbers too
        lambda nin, b: float(math.floor(_root(nin, b))),
        lambda nin, b: max(0, int(_root(nin, b))),
    ],
)
def test_widest_hidden_right_answers_in_any_numeric_type_pass(answer):
    assert check_widest_hidden(answer)


@pytest.mark.parametrize(
    "answer, words",
    [
        (lambda nin, b: _widest(nin, b) + 1, "one too many"),
        (lambda nin, b: _widest(nin, b, fits=int.__lt__), "<=, not <"),
        (lambda nin, b: _widest(nin, b, count=lambda n, o: sum(a * c for a, c in zip([n] + o, o))), "biases"),
        (lambda nin, b: _widest(nin, b, hidden=1), "two hidden layers"),
        (lambda nin, b: _widest(nin, b, count=lambda n, o: _parameters(n, o[:-1])), "output neuron too"),
        (lambda nin, b: _widest(nin, b, hidden=3), "then the output"),
        (lambda nin, b: math.ceil(_root(nin, b)), "not up"),
        (_root, "whole number"),
        (lambda nin, b: round(_root(nin, b)), "not to the nearest"),
        (lambda nin, b: 16, "gave 16, expected 15"),
    ],
)
def test_widest_hidden_names_the_mistake(answer, words):
    assert words in hint_of(check_widest_hidden, answer)


@settings(max_examples=40, deadline=None)
@given(st.integers(-5, 5).filter(bool), st.sampled_from(range(len(_BUDGETS))))
def test_widest_hidden_wrong_on_any_one_case_fails(offset, index):
    def answer(nin, budget):
        return _widest(nin, budget) + (offset if (nin, budget) == _BUDGETS[index] else 0)

    assert failed_with(check_widest_hidden(answer))


# ---- 2. leaky neuron ----


class _Base(Module):
    def __init__(self, nin):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
        self.calls = 0

    def parameters(self):
        return self.w + [self.b]

    def act(self, x):
        self.calls += 1
        return sum((wi * xi for wi, xi in zip(self.w, x)), self.b)


def neuron(out):
    """A LeakyNeuron class whose output is out(a, calls)."""
    return type("Neuron", (_Base,), {"__call__": lambda self, x: out(self.act(x), self.calls)})


@pytest.mark.parametrize(
    "out, words",
    [
        (lambda a, n: a.relu(), "plain ReLU"),
        (lambda a, n: a, "scaled by 0.01"),
        (lambda a, n: a.tanh(), "no tanh"),
        (lambda a, n: Value(a.data) if a.data > 0 else 0.01 * a, "positive side"),
        (lambda a, n: a if a.data > 0 else Value(0.01 * a.data), "leaky side"),
        (lambda a, n: Value(a.data if a.data > 0 else 0.01 * a.data), "no gradient reached"),
        (lambda a, n: None if n == 3 else (a if a.data > 0 else 0.01 * a), "NoneType"),
    ],
)
def test_leaky_neuron_wrong_answers(out, words):
    assert words in hint_of(check_leaky_neuron, neuron(out))


@pytest.mark.parametrize(
    "out",
    [
        lambda a, n: a if a.data > 0 else 0.01 * a,
        lambda a, n: a if a.data >= 0 else a * 0.01,  # no test input sits on the kink
        lambda a, n: a.relu() - 0.01 * (-a).relu(),
    ],
)
def test_leaky_neuron_built_any_right_way_passes(out):
    assert check_leaky_neuron(neuron(out))


@settings(max_examples=30, deadline=None)
@given(st.floats(min_value=0.0, max_value=1.0).filter(lambda k: abs(k - 0.01) > 1e-6))
def test_leaky_neuron_with_another_slope_fails(slope):
    assert failed_with(check_leaky_neuron(neuron(lambda a, n: a if a.data > 0 else slope * a)))


def test_leaky_neuron_wants_a_module_class():
    fn, check = SOLUTIONS["ch07.leaky_neuron"]
    assert "class itself" in hint_of(check, fn(3))
    assert "subclass of Module" in hint_of(
        check, type("NotAModule", (), {"__init__": lambda self, nin: None})
    )


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
        ({"shared": False}, "appear once"),
        ({"params": False}, "count the parameters"),
        ({"wrapped": False}, "new leaf Value each time it meets a weight"),
        (
            {"summing": -1},
            "starts from 0: one more leaf, and one more +",
        ),  # sum() taken to start at the first term
        ({"summing": 0}, "one more leaf: the 0"),
        ({"tanh": False}, "tanh node"),
        ({"loss": 0}, "each example's loss adds nodes of its own"),
        ({"loss": 2}, "the target y is a float"),
        ({"out_tanh": 1}, "the output neuron is linear"),
    ],
)
def test_count_loss_nodes_names_the_mistake(kwargs, words):
    assert words in hint_of(
        check_count_loss_nodes, lambda nin, nouts, n: _loss_nodes(nin, nouts, n, **kwargs)
    )


def build_and_count(nin, nouts, n_examples):
    """What the exercise once let through: build the model and its loss, then count the nodes."""
    model = MLP(nin, nouts, activation="tanh")
    loss = sum((model([0.5] * nin) - 1.0) ** 2 for _ in range(n_examples))
    return len(loss.topological_order())


def test_building_the_graph_and_counting_it_cannot_pass():
    """A prediction exercise is answered by predicting: building and counting fails at once."""
    assert build_and_count(3, [4, 4, 1], 4) == 394  # right, where it can be built at all
    assert failed_with(check_count_loss_nodes(build_and_count), "builds Values", "predict")


def test_counting_with_the_parameters_of_a_built_model_is_building_too():
    def half_built(nin, nouts, n_examples):
        params = len(MLP(nin, nouts).parameters())
        return params + _loss_nodes(nin, nouts, n_examples, params=False)

    assert failed_with(check_count_loss_nodes(half_built), "builds Values")


def test_a_build_that_swallows_the_refusal_is_still_refused():
    def swallowed(nin, nouts, n_examples):
        try:
            return build_and_count(nin, nouts, n_examples)
        except Exception:  # noqa: BLE001 - what a learner's defensive code might do
            return _loss_nodes(nin, nouts, n_examples)

    assert failed_with(check_count_loss_nodes(swallowed), "builds Values")


def test_a_refused_build_leaves_the_engine_as_it_was():
    real = Value.__init__
    check_count_loss_nodes(build_and_count)
    with short_time_limit():
        check_count_loss_nodes(lambda nin, nouts, n: sum(1 for _ in range(10**12)))  # runs out of time
    assert Value.__init__ is real and Value(2.0).data == 2.0


def test_counting_node_by_node_runs_out_of_time_on_the_networks_too_big_to_build():
    def one_by_one(nin, nouts, n_examples):  # a loop with one step per node: a count, not a prediction
        total = _loss_nodes(nin, nouts, 0)
        for _ in range(_loss_nodes(nin, nouts, n_examples) - total):
            total += 1
        return total

    assert min(_loss_nodes(*case) for case in _TOO_BIG) > 10**11
    with short_time_limit():
        assert failed_with(check_count_loss_nodes(one_by_one), "gave up")


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 4),
    st.lists(st.integers(1, 4), min_size=0, max_size=3).map(lambda hidden: hidden + [1]),
    st.integers(1, 3),
)
def test_the_formula_is_the_count_of_the_built_graph(nin, nouts, n_examples):
    assert _loss_nodes(nin, nouts, n_examples) == _true_loss_node_count(nin, nouts, n_examples)
    solution = SOLUTIONS["ch07.count_loss_nodes"][0]
    assert solution(nin, nouts, n_examples) == _loss_nodes(nin, nouts, n_examples)


def test_count_loss_nodes_hard_coded_answer_fails():
    assert "gave 394, expected 130" in hint_of(check_count_loss_nodes, lambda nin, nouts, n: 394)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=-30, max_value=30).filter(bool))
def test_count_loss_nodes_off_by_any_amount_fails(offset):
    assert failed_with(check_count_loss_nodes(lambda nin, nouts, n: _loss_nodes(nin, nouts, n) + offset))


def test_count_loss_nodes_does_not_disturb_random_stream():
    random.seed(5)
    expected = [random.random() for _ in range(3)]
    random.seed(5)
    fn, check = SOLUTIONS["ch07.count_loss_nodes"]
    assert check(fn)
    assert [random.random() for _ in range(3)] == expected


def test_leaky_neuron_must_use_nin():
    """A neuron right for 3 inputs but built with 3 weights whatever nin says is refused."""
    solution = SOLUTIONS["ch07.leaky_neuron"][0]

    class ThreeWeights(solution):
        def __init__(self, nin):
            super().__init__(3)

    assert failed_with(check_leaky_neuron(ThreeWeights), "LeakyNeuron(2)", "use nin")


@pytest.mark.parametrize("slope, words", [(0.1, ("gave -0.44", "expected -0.044")), (-0.01, ("gave 0.044",))])
def test_leaky_neuron_with_a_wrong_slope_is_shown_the_case(slope, words):
    solution = SOLUTIONS["ch07.leaky_neuron"][0]

    class Sloped(solution):
        def __call__(self, x):
            a = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
            return a if a.data > 0 else slope * a

    assert failed_with(check_leaky_neuron(Sloped), "a = w . x + b = -4.4", *words)


def test_widest_hidden_that_builds_networks_is_refused():
    """The exercise says: without building a network. A search that builds each candidate (it once
    passed, in a few seconds) and a bisection that builds a few are refused at once."""

    def builds_each(nin, budget):
        h = 0
        while len(MLP(nin, [h + 1, h + 1, 1]).parameters()) <= budget:
            h += 1
        return h

    def bisects(nin, budget):
        lo, hi = 0, 1
        while len(MLP(nin, [hi, hi, 1]).parameters()) <= budget:
            lo, hi = hi, 2 * hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if len(MLP(nin, [mid, mid, 1]).parameters()) <= budget else (lo, mid)
        return lo

    assert builds_each(2, 337) == bisects(2, 337) == 16  # right, where they can build at all
    for answer in (builds_each, bisects):
        assert failed_with(check_widest_hidden(answer), "builds networks", "formula in h")


def _in_a_new_thread(fn):
    """fn, run in a thread it starts and waits for: a build the guard of the caller's thread missed."""

    def answer(*args):
        box = []
        worker = threading.Thread(target=lambda: box.append(fn(*args)), daemon=True)
        worker.start()
        worker.join()
        return box[0]

    return answer


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the refusal
def test_a_build_in_a_thread_the_answer_starts_is_refused_too():
    """Building in a new thread once passed the check's small networks (the formula doing the big
    ones); the guard now covers every thread the answer starts."""

    def threaded(nin, nouts, n_examples):
        if nin * sum(nouts) * n_examples < 10**5:
            return _in_a_new_thread(build_and_count)(nin, nouts, n_examples)
        return _loss_nodes(nin, nouts, n_examples)

    assert failed_with(check_count_loss_nodes(threaded), "builds Values")
    assert failed_with(check_widest_hidden(_in_a_new_thread(lambda nin, b: len(MLP(nin, [1]).parameters()))))


def test_values_built_by_a_thread_that_was_running_already_are_not_the_answers():
    """A thread started before the check (another cell's work) builds Values freely meanwhile."""
    go, done, built = threading.Event(), threading.Event(), []

    def elsewhere():
        go.wait(5)
        built.append(Value(1.0).data)
        done.set()

    worker = threading.Thread(target=elsewhere, daemon=True)
    worker.start()

    def answer(nin, nouts, n_examples):
        go.set()
        done.wait(5)
        return _loss_nodes(nin, nouts, n_examples)

    assert check_count_loss_nodes(answer)
    worker.join(5)
    assert built == [1.0]


def test_one_bias_too_few_is_not_told_it_forgot_the_output_neuron():
    """Both slips give the same widths on most budgets; (2, 140) tells them apart."""
    one_bias_short = lambda nin, b: _widest(nin, b, count=lambda n, o: _parameters(n, o) - 1)  # noqa: E731
    hint = hint_of(check_widest_hidden, one_bias_short)
    assert "output neuron" not in hint and "gave 16, expected 15" in hint


def test_the_hidden_width_cases_refuse_a_build_as_the_check_does():
    from instructor.hidden.ch07 import widest_hidden_far_from_the_examples
    from micrograd_lesson.exercises.ch07 import WIDTH_BUILT_HINT

    def builds(nin, budget):
        return len(MLP(nin, [1, 1, 1]).parameters()) and _widest(nin, budget)

    verdict = widest_hidden_far_from_the_examples(builds)
    assert not verdict and verdict.hint == WIDTH_BUILT_HINT
    assert widest_hidden_far_from_the_examples(SOLUTIONS["ch07.widest_hidden"][0])


def test_a_neuron_that_raises_is_told_on_which_input():
    def raises(a, n):
        raise TypeError("'>' not supported between instances of 'Value' and 'Value'")

    assert "the neuron on x = [1.0, 2.0, 3.0]: your function raised TypeError" in hint_of(
        check_leaky_neuron, neuron(raises)
    )
