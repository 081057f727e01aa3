"""One backward walk: on random graphs, backward()'s float fast path, the walker (grad(),
create_graph, Tensor.backward) and PyTorch give the same derivatives.

The graphs are made from seeded random draws: each new node applies a random operation to
nodes made before it, so intermediate results are shared (used two or three times), not
only the leaves. Operations whose derivative does not exist at the drawn point are given
inputs away from it (log, a fractional power and a Value exponent of a positive number; a
divisor kept away from 0).
"""

import math
import random

import numpy as np
import pytest

from micrograd_lesson.autograd import grad
from micrograd_lesson.engine import Value
from micrograd_lesson.tensor import Tensor

torch = pytest.importorskip("torch")

UNARY = ("neg", "exp", "log", "tanh", "sigmoid", "relu", "sqrt", "square", "cube")
BINARY = ("+", "-", "*", "/", "**", "+c", "*c", "c/")


def apply(op, a, b, c, fns):
    """op on a (and b, or the constant c), with fns supplying exp/log/tanh/sigmoid/relu."""
    exp, log, tanh, sigmoid, relu = fns
    if op == "neg":
        return -a
    if op == "exp":
        return exp(tanh(a))  # bounded: no overflow however deep the graph
    if op == "log":
        return log(1 + a * a)
    if op in ("tanh", "sigmoid", "relu"):
        return {"tanh": tanh, "sigmoid": sigmoid, "relu": relu}[op](a)
    if op == "sqrt":
        return (1 + a * a) ** 0.5
    if op == "square":
        return a**2
    if op == "cube":
        return tanh(a) ** 3
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return a / (2 + tanh(b))  # a divisor between 1 and 3
    if op == "**":
        return (1 + a * a) ** tanh(b)  # a positive base, a bounded exponent
    if op == "+c":
        return a + c
    if op == "*c":
        return c * a
    return c / (2 + tanh(a))  # "c/": a constant over a Value


def random_graph(rng, leaves, fns, size):
    """The ops of a random graph over `leaves`, each on earlier nodes; its output sums the last three."""
    nodes, recipe = list(leaves), []
    for _ in range(size):
        op = rng.choice(UNARY + BINARY)
        i, j = rng.randrange(len(nodes)), rng.randrange(len(nodes))
        c = round(rng.uniform(-2, 2), 3)
        recipe.append((op, i, j, c))
        nodes.append(apply(op, nodes[i], nodes[j], c, fns))
    return nodes[-1] + nodes[-2] * nodes[-3], recipe


def replay(recipe, leaves, fns):
    nodes = list(leaves)
    for op, i, j, c in recipe:
        nodes.append(apply(op, nodes[i], nodes[j], c, fns))
    return nodes[-1] + nodes[-2] * nodes[-3]


VALUE_FNS = (Value.exp, Value.log, Value.tanh, Value.sigmoid, Value.relu)
TORCH_FNS = (torch.exp, torch.log, torch.tanh, torch.sigmoid, torch.relu)


def draw(seed):
    """A random graph of Values and the same graph in PyTorch, with their leaves."""
    rng = random.Random(seed)
    xs = [rng.uniform(-1.5, 1.5) for _ in range(rng.randint(1, 4))]
    leaves = [Value(x) for x in xs]
    out, recipe = random_graph(rng, leaves, VALUE_FNS, rng.randint(2, 12))
    theirs = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    return leaves, out, theirs, replay(recipe, theirs, TORCH_FNS)


@pytest.mark.parametrize("first", [0, 400, 800])
def test_fast_path_walker_and_pytorch_agree_on_random_graphs(first):  # 1,200 graphs
    for seed in range(first, first + 400):
        leaves, out, theirs, their_out = draw(seed)
        walked = grad(out, leaves)  # the walker over each node's chain_rule
        out.backward()  # the float fast path
        # The same arithmetic in the same order: equal to the last bit, the sign of a zero too.
        assert [(x.grad, math.copysign(1, x.grad)) for x in leaves] == [
            (g, math.copysign(1, g)) for g in walked
        ]
        expected = torch.autograd.grad(their_out, theirs, allow_unused=True)
        expected = [0.0 if e is None else e.item() for e in expected]
        assert walked == pytest.approx(expected, rel=1e-9, abs=1e-12), seed


@pytest.mark.parametrize("first", [10_000, 10_200])
def test_second_derivatives_agree_with_pytorch_on_random_graphs(first):  # 400 graphs
    for seed in range(first, first + 200):
        leaves, out, theirs, their_out = draw(seed)
        first = grad(out, leaves, create_graph=True)
        assert [d.data for d in first] == pytest.approx(grad(out, leaves), rel=1e-12, abs=1e-15), seed
        their_first = torch.autograd.grad(their_out, theirs, create_graph=True, allow_unused=True)
        total = sum(first, Value(0.0))  # d/dx_j of the sum of the first derivatives
        their_total = sum(d for d in their_first if d is not None and d.requires_grad)
        second = grad(total, leaves)
        if isinstance(their_total, int):  # every first derivative is a constant
            expected = [0.0] * len(leaves)
        else:
            expected = [
                0.0 if e is None else e.item()
                for e in torch.autograd.grad(their_total, theirs, allow_unused=True)
            ]
        assert second == pytest.approx(expected, rel=1e-8, abs=1e-10), seed


SHAPES = [(3, 2), (2,), (1, 2), (3, 1), ()]
ELEMENTWISE = ("+", "-", "*", "/", "neg", "tanh", "sigmoid", "relu", "exp", "log", "square")


def tensor_graph(rng, leaves, lib):
    """A random graph of arrays of shape (3, 2) and what broadcasts to it; the output a one-number loss."""
    t = lib == "torch"
    fns = (
        (torch.exp, torch.log, torch.tanh, torch.sigmoid, torch.relu)
        if t
        else (Tensor.exp, Tensor.log, Tensor.tanh, Tensor.sigmoid, Tensor.relu)
    )
    nodes = list(leaves)
    for _ in range(rng.randint(1, 8)):
        op = rng.choice(ELEMENTWISE + ("sum0", "sum1", "mean", "@", "T"))
        a, b = nodes[rng.randrange(len(nodes))], nodes[rng.randrange(len(nodes))]
        w = nodes[rng.randrange(len(nodes))]
        ndim = len(a.shape)
        if op in ELEMENTWISE:
            try:
                np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
            except ValueError:
                continue
            out = apply(op, a, b, 0.0, fns)
        elif op == "sum0":
            out = (a.sum(0, keepdim=True) if t else a.sum(axis=0, keepdims=True)) if ndim else a
        elif op == "sum1":
            out = (a.sum(-1) if t else a.sum(axis=-1)) if ndim else a
        elif op == "mean":
            out = a.mean()
        elif op == "@":  # (3, 2) @ (2, 2): a matrix product back to (3, 2)
            if tuple(a.shape) != (3, 2) or tuple(w.shape) != (3, 2):
                continue
            out = a @ (w.T @ w * 0.1)
        else:
            out = a.T if ndim == 2 else a
        nodes.append(out)
    return (nodes[-1] * nodes[-1]).sum() + nodes[0].sum()


@pytest.mark.parametrize("first", [20_000, 20_200])
def test_tensor_backward_agrees_with_pytorch_on_random_graphs(first):  # 400 graphs
    for seed in range(first, first + 200):
        rng = random.Random(seed)
        arrays = [
            np.random.default_rng(seed + k).uniform(-1.5, 1.5, rng.choice(SHAPES))
            for k in range(rng.randint(1, 3))
        ]
        ours = [Tensor(a, requires_grad=True) for a in arrays]
        theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
        state = rng.getstate()
        loss = tensor_graph(rng, ours, "ours")
        rng.setstate(state)
        their_loss = tensor_graph(rng, theirs, "torch")
        loss.backward()
        expected = torch.autograd.grad(their_loss, theirs, allow_unused=True)
        for t, e in zip(ours, expected):
            want = np.zeros(t.shape) if e is None else e.numpy()
            got = np.zeros(t.shape) if t.grad is None else t.grad
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=f"seed {seed}")


def test_the_graphs_are_not_trivial():
    """The draws above share intermediate results and reach most operations (else they test little)."""
    shared = ops = 0
    seen = set()
    for seed in range(200):
        _, out, _, _ = draw(seed)
        order = out.topological_order()
        uses = {}
        for node in order:
            seen.add(node._op)
            for child in node._prev:
                uses[child] = uses.get(child, 0) + 1
        shared += any(n > 1 and child._prev for child, n in uses.items())
        ops += len(order)
    assert shared > 50 and ops > 200 * 10
    assert {
        "+",
        "-",
        "*",
        "/",
        "**",
        "exp",
        "log",
        "tanh",
        "sigmoid",
        "ReLU",
        "neg",
        "**2",
        "**0.5",
        "**3",
    } <= seen


def test_the_sum_of_shares_is_what_a_node_receives():
    # The walker's accumulation: a node used twice gets the sum of both shares, a leaf never touched 0.
    x, unused = Value(3.0), Value(1.0)
    y = x * x
    assert grad(y + y, [x, unused]) == [12.0, 0.0]
    assert math.isclose(
        grad((x.tanh() * x).exp(), [x])[0],
        math.exp(3 * math.tanh(3)) * (3 * (1 - math.tanh(3) ** 2) + math.tanh(3)),
    )
