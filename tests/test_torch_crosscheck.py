"""Our gradients against PyTorch's (float64), when PyTorch is installed; skipped cleanly otherwise."""

import random

import pytest
from expressions import (
    BINARY,
    REFLECTED,
    UNARY,
    FloatBackend,
    OutOfDomain,
    ValueBackend,
    evaluate,
    inputs,
    trees,
)
from hypothesis import assume, given
from test_engine import SECOND, SECOND_BINARY

from micrograd_lesson.autograd import grad
from micrograd_lesson.datasets import four_examples, make_moons
from micrograd_lesson.engine import Value
from micrograd_lesson.nn import MLP

torch = pytest.importorskip("torch")


def _tensor(a):
    return a if isinstance(a, torch.Tensor) else torch.tensor(float(a), dtype=torch.float64)


class TorchBackend:
    exp = staticmethod(lambda a: torch.exp(_tensor(a)))
    log = staticmethod(lambda a: torch.log(_tensor(a)))
    tanh = staticmethod(lambda a: torch.tanh(_tensor(a)))
    sigmoid = staticmethod(lambda a: torch.sigmoid(_tensor(a)))
    relu = staticmethod(lambda a: torch.relu(_tensor(a)))

    @staticmethod
    def check(a):
        return a

    @staticmethod
    def check_divisor(a):
        pass


def ours_and_torch(tree, xs):
    """(our output, our grads, torch output, torch grads), or None if the example is out of domain."""
    try:
        evaluate(tree, xs, FloatBackend)
    except (OutOfDomain, OverflowError, ZeroDivisionError):
        return None
    leaves = [Value(x) for x in xs]
    out = evaluate(tree, leaves, ValueBackend)
    if not isinstance(out, Value):
        return None
    out.backward()
    tleaves = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    tout = _tensor(evaluate(tree, tleaves, TorchBackend))
    if tout.requires_grad:  # else the tree has only constants, and every gradient is 0
        tout.backward()
    tgrads = [0.0 if t.grad is None else t.grad.item() for t in tleaves]
    return out.data, [leaf.grad for leaf in leaves], tout.item(), tgrads


def assert_close(ours, theirs):
    scale = max([1.0] + [abs(t) for t in theirs])
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12 * scale)


SINGLE_OPS = (
    [((name, ("x", 0)), [0.7, 0.0, 0.0]) for name in UNARY]
    + [((name, ("x", 0), ("x", 1)), [0.7, -1.3, 0.0]) for name in BINARY]
    + [((name, 2.5, ("x", 0)), [0.7, 0.0, 0.0]) for name in REFLECTED]
    + [(("mul", ("x", 0), ("x", 0)), [-1.5, 0.0, 0.0]), (("relu", ("x", 0)), [-0.4, 0.0, 0.0])]
)


@pytest.mark.parametrize("tree, xs", SINGLE_OPS, ids=[f"{t[0]}-{xs[0]}" for t, xs in SINGLE_OPS])
def test_each_operation_matches_pytorch(tree, xs):
    result = ours_and_torch(tree, xs)
    assert result is not None
    data, grads, tdata, tgrads = result
    assert data == pytest.approx(tdata, rel=1e-12)
    assert_close(grads, tgrads)
    assert any(g != 0 for g in grads) or tree[0] == "relu"  # a real derivative was compared


@pytest.mark.slow
@given(trees, inputs)
def test_random_expressions_match_pytorch(tree, xs):
    result = ours_and_torch(tree, xs)
    assume(result is not None)
    data, grads, tdata, tgrads = result
    assert data == pytest.approx(tdata, rel=1e-12, abs=1e-12)
    assert_close(grads, tgrads)


def torch_mlp(model):
    """The same network in PyTorch: one weight matrix and bias vector per layer, copied from ours."""
    layers = []
    for layer in model.layers:
        W = torch.tensor(
            [[w.data for w in n.w] for n in layer.neurons], dtype=torch.float64, requires_grad=True
        )
        b = torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64, requires_grad=True)
        layers.append((W, b, layer.neurons[0].activation))

    def forward(x):
        h = torch.tensor(x, dtype=torch.float64)
        for W, b, activation in layers:
            h = W @ h + b
            if activation != "linear":
                h = getattr(torch, activation)(h)
        return h[0]

    return layers, forward


def torch_grads_in_our_order(layers):
    grads = []
    for W, b, _ in layers:
        for row in range(W.shape[0]):  # ours lists each neuron's weights, then its bias
            grads.extend(W.grad[row].tolist())
            grads.append(b.grad[row].item())
    return grads


@pytest.mark.parametrize("activation", ["relu", "tanh", "sigmoid"])
def test_mlp_gradients_match_pytorch(activation):
    random.seed(7)
    model = MLP(3, [4, 4, 1], activation=activation)
    xs, ys = four_examples()
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
    model.zero_grad()
    loss.backward()

    layers, forward = torch_mlp(model)
    tloss = sum((forward(x) - y) ** 2 for x, y in zip(xs, ys))
    tloss.backward()

    assert loss.data == pytest.approx(tloss.item(), rel=1e-12)
    ours = [p.grad for p in model.parameters()]
    assert len(ours) == 41
    assert_close(ours, torch_grads_in_our_order(layers))


def test_hinge_loss_with_l2_matches_pytorch():
    """The benchmark's loss: mean(relu(1 - y * score)) + 1e-4 * sum(p * p), on a few two-moons points."""
    random.seed(0)
    model = MLP(2, [16, 16, 1])
    X, y = make_moons(12, noise=0.1, seed=3)
    scores = [model([float(a), float(b)]) for a, b in X]
    data_loss = sum((1 - float(yi) * s).relu() for yi, s in zip(y, scores)) * (1.0 / len(scores))
    loss = data_loss + 1e-4 * sum(p * p for p in model.parameters())
    loss.backward()

    layers, forward = torch_mlp(model)
    tscores = [forward([float(a), float(b)]) for a, b in X]
    tdata = sum(torch.relu(1 - float(yi) * s) for yi, s in zip(y, tscores)) * (1.0 / len(tscores))
    treg = sum((W * W).sum() + (b * b).sum() for W, b, _ in layers)
    (tdata + 1e-4 * treg).backward()

    assert loss.data == pytest.approx((tdata + 1e-4 * treg).item(), rel=1e-12)
    assert_close([p.grad for p in model.parameters()], torch_grads_in_our_order(layers))


# ---- second derivatives: grad(create_graph=True) against torch.autograd.grad ----


def _leaf(x):
    return torch.tensor(x, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("name, op, points", [(s[0], s[1], s[4]) for s in SECOND], ids=[s[0] for s in SECOND])
def test_second_derivatives_match_pytorch(name, op, points):
    for x in points:
        a, t = Value(x), _leaf(x)
        (first,) = grad(op(a), [a], create_graph=True)
        (tfirst,) = torch.autograd.grad(op(t), [t], create_graph=True)
        (tsecond,) = torch.autograd.grad(tfirst, [t], allow_unused=True)
        tsecond = 0.0 if tsecond is None else tsecond.item()
        assert_close([first.data, grad(first, [a])[0]], [tfirst.item(), tsecond])


@pytest.mark.parametrize("name, op", [s[:2] for s in SECOND_BINARY], ids=[s[0] for s in SECOND_BINARY])
def test_second_derivatives_of_two_inputs_match_pytorch(name, op):
    x, y = 0.7, 2.5
    a, b = Value(x), Value(y)
    ta, tb = _leaf(x), _leaf(y)
    ours = [g for d in grad(op(a, b), [a, b], create_graph=True) for g in grad(d, [a, b])]
    theirs = []
    for d in torch.autograd.grad(op(ta, tb), [ta, tb], create_graph=True):
        second = torch.autograd.grad(d, [ta, tb], allow_unused=True, retain_graph=True)
        theirs += [0.0 if g is None else g.item() for g in second]
    assert_close(ours, theirs)
