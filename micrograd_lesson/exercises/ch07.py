"""Chapter 7 exercises: neurons, layers and MLPs."""

import math
import random

from ..engine import Value
from ..nn import MLP, Module
from ._core import attempt, solution, verdict

__all__ = ["check_count_parameters", "check_leaky_neuron", "check_count_graph_nodes"]


# ---- 1. count an MLP's parameters with a formula ----

_ARCHITECTURES = [(3, [4, 4, 1]), (2, [16, 16, 1]), (1, [1]), (5, [3]), (4, [10, 10, 10, 2])]


def _true_parameter_count(nin, nouts):
    sizes = [nin] + list(nouts)
    return sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))


def check_count_parameters(count_parameters):
    """count_parameters(nin, nouts) returns len(MLP(nin, nouts).parameters())."""
    if not callable(count_parameters):
        return verdict(False, "pass your function itself: check_count_parameters(count_parameters)")
    for nin, nouts in _ARCHITECTURES:
        got, error = attempt(count_parameters, nin, list(nouts))
        if error:
            return verdict(False, f"count_parameters({nin}, {nouts}) failed: {error}")
        expected = _true_parameter_count(nin, nouts)
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return verdict(False, f"count_parameters({nin}, {nouts}) should return a number, got {got!r}")
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
        return verdict(False, f"count_parameters({nin}, {nouts}) gave {got!r}, expected {expected}: {hint}")
    return verdict(True)


@solution("ch07.count_parameters", check=check_count_parameters)
def count_parameters(nin, nouts):
    sizes = [nin] + nouts  # the width of every layer boundary, inputs first
    # Each neuron has one weight per input plus one bias.
    return sum((n_in + 1) * n_out for n_in, n_out in zip(sizes, sizes[1:]))


# ---- 2. a neuron with a leaky ReLU ----


def check_leaky_neuron(LeakyNeuron):
    """LeakyNeuron(nin): out = a if a > 0 else 0.01 * a, where a = w . x + b."""
    if not isinstance(LeakyNeuron, type):
        return verdict(False, "pass the class itself: check_leaky_neuron(LeakyNeuron)")
    neuron, error = attempt(LeakyNeuron, 3)
    if error:
        return verdict(False, f"LeakyNeuron(3) failed: {error}")
    if not isinstance(neuron, Module):
        return verdict(False, "make LeakyNeuron a subclass of Module, so it gets zero_grad() for free")
    params, error = attempt(neuron.parameters)
    if error:
        return verdict(False, f"parameters() failed: {error}")
    if not isinstance(params, list) or len(params) != 4 or not all(isinstance(p, Value) for p in params):
        return verdict(False, f"LeakyNeuron(3).parameters() should be a list of 4 Values, got {params!r}")
    for p, v in zip(params, [0.5, -1.0, 2.0, 0.1]):  # w1, w2, w3, then b
        p.data = v

    for x, a in [([1.0, 2.0, 3.0], 4.6), ([-1.0, 2.0, -1.0], -4.4)]:
        out, error = attempt(neuron, x)
        if error:
            return verdict(False, f"calling the neuron on {x} failed: {error}")
        if not isinstance(out, Value):
            return verdict(False, f"the neuron should return a Value, got {type(out).__name__}")
        expected = a if a > 0 else 0.01 * a
        if math.isclose(out.data, expected, rel_tol=1e-9, abs_tol=1e-12):
            continue
        if a < 0 and out.data == 0:
            hint = "that is a plain ReLU: a leaky one lets 0.01 * a through when a < 0"
        elif math.isclose(out.data, a, rel_tol=1e-9):
            hint = "a negative pre-activation must be scaled by 0.01"
        elif math.isclose(out.data, math.tanh(a), rel_tol=1e-9):
            hint = "no tanh here: positive pre-activations pass through unchanged"
        else:
            hint = "compute a = w . x + b (parameters() lists w1, w2, w3, then b), then apply the leak"
        return verdict(
            False,
            f"with w = [0.5, -1, 2], b = 0.1 and x = {x}: got {out.data:.4f}, "
            f"expected {expected:.4f}; {hint}",
        )

    # The gradient must reach the weights: d(out)/dw_i = 0.01 * x_i on the leaky side.
    _, error = attempt(neuron.zero_grad)
    if error:
        return verdict(False, f"zero_grad() failed: {error}")
    out, _ = attempt(neuron, [-1.0, 2.0, -1.0])
    _, error = attempt(out.backward)
    if error:
        return verdict(False, f"out.backward() failed: {error}")
    grads = [p.grad for p in params]
    expected = [-0.01, 0.02, -0.01, 0.01]
    if all(g == 0 for g in grads):
        return verdict(
            False,
            "no gradient reached the weights: build the output from Value operations "
            "(not from .data or float(...)) so backward() can follow it",
        )
    if not all(math.isclose(g, e, rel_tol=1e-9) for g, e in zip(grads, expected)):
        got = ", ".join(f"{g:.4f}" for g in grads)
        return verdict(
            False,
            f"gradients on the leaky side should be 0.01 * x = [-0.01, 0.02, -0.01] and "
            f"0.01 for b; got [{got}]",
        )
    return verdict(True)


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


# ---- 3. predict the size of a forward pass's graph ----

_GRAPHS = [(2, [1]), (3, [4, 4, 1]), (1, [3, 2]), (2, [16, 16, 1]), (4, [5])]


def _true_node_count(nin, nouts):
    """Build the network and count what one forward pass on Value inputs makes."""
    state = random.getstate()  # do not disturb the learner's random stream
    model = MLP(nin, nouts, activation="tanh")
    random.setstate(state)
    out = model([Value(1.0) for _ in range(nin)])
    outs = out if isinstance(out, list) else [out]
    seen = set()
    for o in outs:
        seen.update(o.topological_order())
    return len(seen)


def check_count_graph_nodes(count_graph_nodes):
    """count_graph_nodes(nin, nouts): Values in the graph of one forward pass (inputs included)."""
    if not callable(count_graph_nodes):
        return verdict(False, "pass your function itself: check_count_graph_nodes(count_graph_nodes)")
    for nin, nouts in _GRAPHS:
        got, error = attempt(count_graph_nodes, nin, list(nouts))
        if error:
            return verdict(False, f"count_graph_nodes({nin}, {nouts}) failed: {error}")
        expected = _true_node_count(nin, nouts)
        if got == expected:
            continue
        hidden = sum(nouts[:-1])
        if got == expected - nin:
            hint = "count the input Values too: they are leaves of the graph"
        elif got == expected + nouts[-1]:
            hint = "the last layer is linear: its neurons have no tanh node"
        elif got == expected - hidden:
            hint = "each hidden neuron ends with one tanh node"
        elif got == _true_parameter_count(nin, nouts):
            hint = "that is the number of parameters; the graph also holds inputs, products, sums and tanhs"
        else:
            hint = (
                "a tanh neuron with k inputs adds k weights, 1 bias, k products, k sums "
                "(the sum starts at b) and 1 tanh; the last layer is linear, so its neurons "
                "have no tanh"
            )
        return verdict(False, f"count_graph_nodes({nin}, {nouts}) gave {got!r}, expected {expected}: {hint}")
    return verdict(True)


@solution("ch07.count_graph_nodes", check=check_count_graph_nodes)
def count_graph_nodes(nin, nouts):
    total = nin  # the input Values
    sizes = [nin] + nouts
    for i, (k, n) in enumerate(zip(sizes, sizes[1:])):
        per_neuron = k + 1 + k + k  # weights, bias, products, running sums
        if i < len(nouts) - 1:
            per_neuron += 1  # hidden layers end in tanh; the last layer is linear
        total += n * per_neuron
    return total
