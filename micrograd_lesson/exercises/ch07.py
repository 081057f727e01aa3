"""Chapter 7 exercises: a parameter budget, a leaky-ReLU neuron, the size of a loss's graph."""

import itertools
import math
import random
import threading
from functools import partial

from ..engine import Value
from ..nn import MLP, Module
from ._core import attempt, check, recorded, recorder, reference, shown, solution
from ._shared import all_exact, exact, judge, numbers, run_cases


def _parameters(nin, nouts, biases=True):
    return sum((a + biases) * b for a, b in zip([nin] + list(nouts), nouts))


def _judged(fn, name, cases, exercise, hints):  # judged against the recorded outputs (see _core.recorded)
    records = recorded(exercise)
    want, mistakes = records["want"], [(records[label], hint) for label, hint in hints.items()]

    def gave(i):  # a wrong answer no mistake explains: what case i gave, and should give
        shown = f"{got[i]:.0f}" if float(got[i]).is_integer() else f"{got[i]:g}"  # 1e11 in full
        return f"{name}{cases[i]} gave {shown}, expected {want[i]}"

    return judge(got := run_cases(fn, name, cases), cases, want, mistakes, otherwise=gave)


def _record(cases, reference, rules):  # {"want": the reference's outputs, label: each rule's}
    return {"want": [reference(*c) for c in cases]} | {
        k: [rule(*c) for c in cases] for k, rule in rules.items()
    }


# ---- 1. the widest network a parameter budget allows ----
@reference
def _widest(nin, budget, count=_parameters, hidden=2, fits=int.__le__):  # the largest h that fits, by search
    return next(h for h in itertools.count() if not fits(count(nin, [h + 1] * hidden + [1]), budget))


def _root(nin, budget):  # the real h at which h**2 + (nin + 3)h + 1 parameters reach the budget
    return (math.sqrt((nin + 3) ** 2 - 4 * (1 - budget)) - nin - 3) / 2


# 7, 41, 337 are exact counts (<= or <?), 336 one short of h = 16; (3, 60) tells rounding from biases;
# (2, 140) = 10**2 + 4 * 10 tells a forgotten output neuron from a forgotten first-layer bias
_BUDGETS = [(2, 337), (2, 336), (3, 41), (2, 7), (5, 3), (10, 5000), (784, 100000), (3, 60), (2, 140)]
_WIDTH_HINTS = {
    "one more": "that width is one too many: the first that does NOT fit",
    "<": "a network that uses the whole budget fits: <=, not <",
    "no biases": "count biases: k inputs, k + 1 parameters",
    "one hidden": "there are two hidden layers of width h: [h, h, 1]",
    "three hidden": "there are two hidden layers of width h, then the output: [h, h, 1]",
    "no output": "count the output neuron too: h weights and a bias",
    "root": "a width is a whole number: round the root of the quadratic down",
    "rounded root": "round the root down, not to the nearest whole number",
    "ceil root": "round the root down, not up: the next width up does not fit",
}


@recorder("ch07.widest_hidden")
def _record_widest():
    rules = {
        "one more": lambda nin, b: _widest(nin, b) + 1,
        "<": partial(_widest, fits=int.__lt__),
        "no biases": partial(_widest, count=partial(_parameters, biases=False)),
        "one hidden": partial(_widest, hidden=1),
        "three hidden": partial(_widest, hidden=3),
        "no output": partial(_widest, count=lambda nin, nouts: _parameters(nin, nouts[:-1])),
        "root": _root,
        "rounded root": lambda nin, b: round(_root(nin, b)),
        "ceil root": lambda nin, b: math.ceil(_root(nin, b)),
    }
    return _record(_BUDGETS, _widest, rules)


WIDTH_BUILT_HINT = (
    "your function builds networks to count their parameters, and the exercise asks you not to. Write the "
    "count as a formula in h first (a layer of m neurons reading k inputs holds (k + 1) * m parameters), "
    "then solve it or search with the formula"
)


@check("ch07.widest_hidden")
def check_widest_hidden(widest_hidden):
    """widest_hidden(nin, budget): the largest h with len(MLP(nin, [h, h, 1]).parameters()) <= budget,
    found without building a network (a function that builds Values is refused)."""
    guarded, tried = predicting(widest_hidden) if callable(widest_hidden) else (widest_hidden, [])
    verdict = _judged(guarded, "widest_hidden", _BUDGETS, "ch07.widest_hidden", _WIDTH_HINTS)
    return WIDTH_BUILT_HINT if tried else verdict


@solution("ch07.widest_hidden")
def widest_hidden(nin, budget):
    # (nin + 1)h + (h + 1)h + (h + 1) = h**2 + (nin + 3)h + 1 parameters: grow h while it fits.
    h = 0
    while (h + 1) ** 2 + (nin + 3) * (h + 1) + 1 <= budget:
        h += 1
    return h


# ---- 2. a neuron with a leaky ReLU ----
def _leaky(x, slope=0.01, flows=(1, 1), tanh=False):
    """[out, then d out/d (w1, w2, w3, b)]; flows: does gradient reach them on the (positive, leaky) side?"""
    a = sum(w * xi for w, xi in zip(_WEIGHTS, x + [1.0]))
    k, flow = (1.0, flows[0]) if a > 0 else (slope, flows[1])
    out, k = (math.tanh(a), 1 - math.tanh(a) ** 2) if tanh else (a * k, k)
    return [out] + [k * xi * flow for xi in x + [1.0]]


_WEIGHTS = [0.5, -1.0, 2.0, 0.1]  # w1, w2, w3, then b
_INPUTS = [([1.0, 2.0, 3.0],), ([-1.0, 2.0, -1.0],), ([2.0, 0.0, 1.0],)]  # a = 4.6, -4.4, 3.1
_NEURON_MISTAKES = [
    (partial(_leaky, tanh=True), "no tanh here: positive pre-activations pass through unchanged"),
    (partial(_leaky, slope=0.0), "that is a plain ReLU: a leaky one lets 0.01 * a through when a < 0"),
    (partial(_leaky, slope=1.0), "a negative pre-activation must be scaled by 0.01"),
    (partial(_leaky, flows=(0, 1)), "positive side: no gradient reached the weights; return `a` itself"),
    (partial(_leaky, flows=(1, 0)), "leaky side: no gradient reached the weights; build 0.01 * a from `a`"),
    (partial(_leaky, flows=(0, 0)), "no gradient reached the weights: use Value operations on `a`"),
]


@check("ch07.leaky_neuron", takes="class")
def check_leaky_neuron(LeakyNeuron):
    """LeakyNeuron(nin): out = a if a > 0 else 0.01 * a, where a = w . x + b, built from Values."""

    def run(x):  # [out, then every parameter's gradient], from the weights set afresh
        for value, weight in zip(values, _WEIGHTS):
            value.data, value.grad = weight, 0.0
        if not isinstance(out := neuron(list(x)), Value):
            raise TypeError(f"the neuron should return a Value, got {type(out).__name__}")
        out.backward()
        return [out.data] + [value.grad for value in values]

    def off(i):  # what the neuron gave on case i, against what it should give
        (x,), got, want = _INPUTS[i], runs[i], _leaky(*_INPUTS[i])
        setup = f"on x = {x}, with w = [0.5, -1, 2] and b = 0.1 set in the order parameters() lists them"
        if not exact(got[0], want[0]):
            a = want[0] / (1 if want[0] > 0 else 0.01)
            return f"{setup}, a = w . x + b = {a:g}: your neuron gave {got[0]:.6g}, expected {want[0]:.6g}"
        return f"on x = {x} the output is right, but d out/d (w1, w2, w3, b) = {got[1:]}, expected {want[1:]}"

    for nin, count in [(2, 3), (3, 4)]:  # LeakyNeuron(2) tells a neuron that ignores nin; the cases use 3
        neuron, error = attempt(LeakyNeuron, nin)
        if error or not callable(getattr(neuron, "zero_grad", None)):  # the chapter's Module or the package's
            return f"LeakyNeuron({nin}): " + (error or "make it a subclass of Module: it gives zero_grad()")
        values, error = attempt(neuron.parameters)
        ok = isinstance(values, list) and len(values) == count and all(isinstance(v, Value) for v in values)
        if error or not ok:
            return f"LeakyNeuron({nin}).parameters(): {error or shown(values)}, not {count} Values (use nin)"
    on = lambda case: f"the neuron on x = {case[0]}"  # noqa: E731
    runs = run_cases(run, "the neuron", _INPUTS, read=numbers, want="a Value", where=on)
    return judge(runs, _INPUTS, _leaky, _NEURON_MISTAKES, same=all_exact, otherwise=off)


@solution("ch07.leaky_neuron")
class LeakyNeuron(Module):
    def __init__(self, nin):
        self.w, self.b = [Value(random.uniform(-1, 1)) for _ in range(nin)], Value(0.0)

    def __call__(self, x):
        a = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return a if a.data > 0 else 0.01 * a  # both are Value operations on a: backward() follows either

    def parameters(self):
        return self.w + [self.b]


# ---- 3. predict the size of a loss's graph ----
# A prediction, not a count: the check runs the learner's function with Value construction refused
# (building a network, or its graph, to count it fails at once with its own hint), and tries networks
# and numbers of examples far too large to build in the time limit (10**11 nodes and more).
@reference
def _true_loss_node_count(nin, nouts, n_examples):  # built on float inputs, nodes counted
    state = random.getstate()  # do not disturb the learner's random stream
    model = MLP(nin, nouts, activation="tanh")
    random.setstate(state)
    return len(sum((model([0.5] * nin) - 1.0) ** 2 for _ in range(n_examples)).topological_order())


@reference
def _loss_nodes(
    nin, nouts, n, params=True, shared=True, wrapped=True, summing=1, tanh=True, loss=3, out_tanh=0
):
    wraps = nin * nouts[0] if wrapped else nin
    tanhs = sum(nouts[:-1]) * tanh + nouts[-1] * out_tanh
    per_example = wraps + 2 * _parameters(nin, nouts, biases=False) + tanhs + loss  # loss: y, -, ** 2
    return n * (per_example + 1) + summing + params * _parameters(nin, nouts) * (1 if shared else n)


_BUILT = [(3, [4, 4, 1], 4), (3, [4, 4, 1], 1), (2, [1], 3), (1, [3, 2, 1], 5), (4, [5, 1], 2)]  # counted
_TOO_BIG = [(784, [512, 512, 1], 60000), (100, [1000, 1000, 1000, 1], 10**6)]  # 1e11 and 4e12 nodes
_LOSS_GRAPHS = _BUILT + _TOO_BIG
_NODE_HINTS = {  # the slips _loss_nodes can make (its keyword arguments) -> their hints
    "shared=False": "the parameters appear once, however many examples use them",
    "params=False": "count the parameters too: they are leaves of the graph",
    "wrapped=False": "a float input is a new leaf Value each time it meets a weight",
    "summing=-1": "Python's sum() starts from 0: one more leaf, and one more +",
    "summing=0": "one more leaf: the 0 that Python's sum() starts from",
    "tanh=False": "each hidden neuron ends with a tanh node",
    "loss=0": "each example's loss adds nodes of its own: the target (a float: a new leaf), the -, the ** 2",
    "loss=2": "the target y is a float: like an input, it becomes a new leaf Value, one per example",
    "out_tanh=1": "the output neuron is linear (MLP leaves the last layer without tanh): no tanh node there",
}
_NODE_SLIPS = {  # each hint's slip, as _loss_nodes's keyword arguments
    "shared=False": {"shared": False},
    "params=False": {"params": False},
    "wrapped=False": {"wrapped": False},
    "summing=-1": {"summing": -1},
    "summing=0": {"summing": 0},
    "tanh=False": {"tanh": False},
    "loss=0": {"loss": 0},
    "loss=2": {"loss": 2},
    "out_tanh=1": {"out_tanh": 1},
}
BUILT_HINT = (
    "your function builds Values (a network, or its graph) to count them: this exercise asks you to "
    "predict. Write the count as a formula of nin, nouts and n_examples, without building anything: "
    "the check also asks about networks far too big to build (784 inputs, 60,000 examples)"
)


@recorder("ch07.count_loss_nodes")
def _record_loss_nodes():
    rules = {label: partial(_loss_nodes, **_NODE_SLIPS[label]) for label in _NODE_HINTS}
    records = _record(_LOSS_GRAPHS, _loss_nodes, rules)
    built = [_true_loss_node_count(*case) for case in _BUILT]  # the formula, confirmed by building
    if built != records["want"][: len(_BUILT)]:
        raise AssertionError(f"the formula disagrees with the built graphs: {built}")
    return records


class _Built(Exception):
    """Raised in the learner's function when it builds a Value: exercise 3 asks for a prediction."""


def predicting(fn):
    """(fn with Value construction refused while it runs, in its thread and in any thread it starts;
    a list that gets an item if fn tried)."""
    tried = []

    def wrapped(*args):
        real = Value.__init__
        before = {t.ident for t in threading.enumerate()} - {threading.get_ident()}

        def refuse(self, *a, **k):
            if threading.get_ident() in before:  # a thread that ran before fn was called is not fn's
                return real(self, *a, **k)
            tried.append(True)
            raise _Built("this exercise asks for a formula: building Values is refused")

        Value.__init__ = refuse
        try:
            return fn(*args)
        finally:
            Value.__init__ = real

    return wrapped, tried


@check("ch07.count_loss_nodes")
def check_count_loss_nodes(count_loss_nodes):
    """count_loss_nodes(nin, nouts, n_examples): nodes in the graph of the summed squared-error loss,
    predicted from the sizes alone (a function that builds Values is refused)."""
    guarded, tried = predicting(count_loss_nodes) if callable(count_loss_nodes) else (count_loss_nodes, [])
    verdict = _judged(guarded, "count_loss_nodes", _LOSS_GRAPHS, "ch07.count_loss_nodes", _NODE_HINTS)
    return BUILT_HINT if tried else verdict


@solution("ch07.count_loss_nodes")
def count_loss_nodes(nin, nouts, n_examples):
    layers = list(zip([nin] + nouts, nouts))  # (inputs, neurons) of each layer
    parameters = sum((k + 1) * m for k, m in layers)  # shared by every example: in the graph once
    per_example = nin * nouts[0]  # each float input is wrapped once per first-layer neuron
    per_example += sum(2 * k * m for k, m in layers)  # a product and a running sum per weight
    per_example += sum(nouts[:-1]) + 3  # a tanh per hidden neuron; the target, the -, the ** 2
    return parameters + n_examples * (per_example + 1) + 1  # sum() starts from a 0, then + per example
