"""Chapter 7 exercises: neurons, layers and MLPs."""

import math
import random

from ..engine import Value
from ..nn import MLP, Module
from ._core import Verdict, as_number, attempt, close, not_a_function, solution

__all__ = ["check_count_parameters", "check_leaky_neuron", "check_count_loss_nodes"]


# ---- 1. count an MLP's parameters with a formula ----

_ARCHITECTURES = [(3, [4, 4, 1]), (2, [16, 16, 1]), (1, [1]), (5, [3]), (4, [10, 10, 10, 2])]


def _true_parameter_count(nin, nouts):
    sizes = [nin] + list(nouts)
    return sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))


def check_count_parameters(count_parameters):
    """count_parameters(nin, nouts) returns len(MLP(nin, nouts).parameters())."""
    wrong = not_a_function(count_parameters, "count_parameters")
    if wrong is not None:
        return wrong
    for nin, nouts in _ARCHITECTURES:
        got, error = attempt(count_parameters, nin, list(nouts))
        if error:
            return Verdict(False, f"count_parameters({nin}, {nouts}) failed: {error}")
        expected = _true_parameter_count(nin, nouts)
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return Verdict(False, f"count_parameters({nin}, {nouts}) should return a number, got {got!r}")
        if got == expected:
            continue
        sizes = [nin] + list(nouts)
        weights_only = sum(a * b for a, b in zip(sizes, sizes[1:]))
        bias_per_input = sum(a * (b + 1) for a, b in zip(sizes, sizes[1:]))
        hidden_only = _true_parameter_count(nouts[0], nouts[1:]) if len(nouts) > 1 else 0
        if got == weights_only:
            hint = "you counted the weights but not the biases: every neuron has one bias as well"
        elif got == bias_per_input:
            hint = "one bias per neuron (nout of them), not one per input: a layer has (nin + 1) * nout"
        elif got == hidden_only:
            hint = "the first layer's neurons each read the nin inputs: count that layer too"
        else:
            hint = (
                "a layer of nout neurons reading nin inputs has (nin + 1) * nout parameters; add the layers"
            )
        return Verdict(False, f"count_parameters({nin}, {nouts}) gave {got!r}, expected {expected}: {hint}")
    return Verdict(True)


@solution("ch07.count_parameters", check=check_count_parameters)
def count_parameters(nin, nouts):
    sizes = [nin] + nouts  # the width of every layer boundary, inputs first
    # Each neuron has one weight per input plus one bias.
    return sum((n_in + 1) * n_out for n_in, n_out in zip(sizes, sizes[1:]))


# ---- 2. a neuron with a leaky ReLU ----


def check_leaky_neuron(LeakyNeuron):
    """LeakyNeuron(nin): out = a if a > 0 else 0.01 * a, where a = w . x + b."""
    if not isinstance(LeakyNeuron, type):
        return Verdict(False, "pass the class itself: check_leaky_neuron(LeakyNeuron)")
    neuron, error = attempt(LeakyNeuron, 3)
    if error:
        return Verdict(False, f"LeakyNeuron(3) failed: {error}")
    if not isinstance(neuron, Module):
        return Verdict(False, "make LeakyNeuron a subclass of Module, so it gets zero_grad() for free")
    params, error = attempt(neuron.parameters)
    if error:
        return Verdict(False, f"parameters() failed: {error}")
    if not isinstance(params, list) or len(params) != 4 or not all(isinstance(p, Value) for p in params):
        return Verdict(False, f"LeakyNeuron(3).parameters() should be a list of 4 Values, got {params!r}")
    for p, v in zip(params, [0.5, -1.0, 2.0, 0.1]):  # w1, w2, w3, then b
        p.data = v

    for x, a in [([1.0, 2.0, 3.0], 4.6), ([-1.0, 2.0, -1.0], -4.4)]:
        out, error = attempt(neuron, x)
        if error:
            return Verdict(False, f"calling the neuron on {x} failed: {error}")
        if not isinstance(out, Value):
            return Verdict(False, f"the neuron should return a Value, got {type(out).__name__}")
        expected = a if a > 0 else 0.01 * a
        if close(out.data, expected, rel=1e-9, abs_tol=1e-12):
            continue
        if a < 0 and out.data == 0:
            hint = "that is a plain ReLU: a leaky one lets 0.01 * a through when a < 0"
        elif close(out.data, a, rel=1e-9):
            hint = "a negative pre-activation must be scaled by 0.01"
        elif close(out.data, math.tanh(a), rel=1e-9):
            hint = "no tanh here: positive pre-activations pass through unchanged"
        else:
            hint = "compute a = w . x + b (parameters() lists w1, w2, w3, then b), then apply the leak"
        return Verdict(
            False,
            f"with w = [0.5, -1, 2], b = 0.1 and x = {x}: got {out.data:.4f}, "
            f"expected {expected:.4f}; {hint}",
        )

    # The gradient must reach the weights: d(out)/dw_i = 0.01 * x_i on the leaky side.
    _, error = attempt(neuron.zero_grad)
    if error:
        return Verdict(False, f"zero_grad() failed: {error}")
    out, _ = attempt(neuron, [-1.0, 2.0, -1.0])
    _, error = attempt(out.backward)
    if error:
        return Verdict(False, f"out.backward() failed: {error}")
    grads = [p.grad for p in params]
    expected = [-0.01, 0.02, -0.01, 0.01]
    if all(g == 0 for g in grads):
        return Verdict(
            False,
            "no gradient reached the weights: build the output from Value operations "
            "(not from .data or float(...)) so backward() can follow it",
        )
    if not all(close(g, e, rel=1e-9) for g, e in zip(grads, expected)):
        got = ", ".join(f"{g:.4f}" for g in grads)
        return Verdict(
            False,
            f"gradients on the leaky side should be 0.01 * x = [-0.01, 0.02, -0.01] and "
            f"0.01 for b; got [{got}]",
        )
    return Verdict(True)


@solution("ch07.leaky_neuron", check=check_leaky_neuron)
class LeakyNeuron(Module):
    def __init__(self, nin):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)

    def __call__(self, x):
        a = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        # Both branches are Value operations, so backward() follows either one.
        return a if a.data > 0 else 0.01 * a

    def parameters(self):
        return self.w + [self.b]


# ---- 3. predict the size of a loss's graph ----

_LOSS_GRAPHS = [
    (3, [4, 4, 1], 4),
    (3, [4, 4, 1], 1),
    (2, [1], 3),
    (1, [3, 2, 1], 5),
    (4, [5, 1], 2),
    (2, [16, 16, 1], 10),
]


def _true_loss_node_count(nin, nouts, n_examples):
    """Build the network and the summed squared-error loss on float inputs; count its nodes."""
    state = random.getstate()  # do not disturb the learner's random stream
    model = MLP(nin, nouts, activation="tanh")
    random.setstate(state)
    xs = [[0.5] * nin for _ in range(n_examples)]
    loss = sum((model(x) - 1.0) ** 2 for x in xs)
    return len(loss.topological_order())


def _loss_nodes(nin, nouts, n, params=True, per_example_params=False, wrapped=True, sum_zero=True, tanh=True):
    """The count, with one piece of the reasoning switchable off: what a learner may forget."""
    sizes = [nin] + list(nouts)
    layers = list(zip(sizes, sizes[1:]))
    per_example = nin * nouts[0] if wrapped else nin  # each float input is wrapped once per neuron
    per_example += sum(2 * k * m for k, m in layers)  # a product and a running sum per weight
    per_example += sum(nouts[:-1]) if tanh else 0  # a tanh per hidden neuron
    per_example += 3  # the target, the subtraction, the square
    total = n * per_example + n + (1 if sum_zero else 0)  # sum(): its 0, and one + per example
    n_params = sum((k + 1) * m for k, m in layers)
    if params:
        total += n * n_params if per_example_params else n_params
    return total


_MISTAKES = [  # (how the count is off, the hint)
    (
        {"per_example_params": True},
        "the parameters appear once, however many examples use them: all forward passes share them",
    ),
    ({"params": False}, "count the parameters too: they are leaves of the graph"),
    (
        {"wrapped": False},
        "a float input becomes a new leaf Value each time it meets a weight: once per first-layer neuron",
    ),
    ({"sum_zero": False}, "Python's sum() starts from 0: that 0 becomes a leaf, and adds one more +"),
    ({"tanh": False}, "each hidden neuron ends with a tanh node"),
]


def check_count_loss_nodes(count_loss_nodes):
    """count_loss_nodes(nin, nouts, n_examples): nodes in the graph of the summed squared-error loss."""
    wrong = not_a_function(count_loss_nodes, "count_loss_nodes")
    if wrong is not None:
        return wrong
    for nin, nouts, n in _LOSS_GRAPHS:
        got, error = attempt(count_loss_nodes, nin, list(nouts), n)
        if error:
            return Verdict(False, f"count_loss_nodes({nin}, {nouts}, {n}) failed: {error}")
        expected = _true_loss_node_count(nin, nouts, n)
        value = as_number(got)
        if value is None:
            return Verdict(
                False, f"count_loss_nodes({nin}, {nouts}, {n}) should return a number, got {got!r}"
            )
        if value == expected:
            continue
        hint = next(
            (h for kwargs, h in _MISTAKES if value == _loss_nodes(nin, nouts, n, **kwargs)),
            "count what one example adds, what all the examples share, and what the final sum adds",
        )
        return Verdict(
            False, f"count_loss_nodes({nin}, {nouts}, {n}) gave {got!r}, expected {expected}: {hint}"
        )
    return Verdict(True)


@solution("ch07.count_loss_nodes", check=check_count_loss_nodes)
def count_loss_nodes(nin, nouts, n_examples):
    sizes = [nin] + nouts
    layers = list(zip(sizes, sizes[1:]))  # (inputs, neurons) of each layer
    parameters = sum((k + 1) * m for k, m in layers)  # shared: in the graph once
    per_example = nin * nouts[0]  # each float input is wrapped once per first-layer neuron
    per_example += sum(2 * k * m for k, m in layers)  # a product and a running sum per weight
    per_example += sum(nouts[:-1])  # one tanh per hidden neuron; the output layer is linear
    per_example += 3  # (prediction - target) ** 2: the target, the subtraction, the square
    summing = 1 + n_examples  # sum() starts from a 0 and adds each example's error
    return parameters + n_examples * per_example + summing
