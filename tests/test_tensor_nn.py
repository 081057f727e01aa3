"""Tests for micrograd_lesson.tensor_nn: the tensor layers and MLP as nn.Modules, the
losses (against PyTorch when installed), and the tensor MLP agreeing with the scalar one."""

import random

import numpy as np
import pytest

from micrograd_lesson import nn
from micrograd_lesson.datasets import make_moons
from micrograd_lesson.optim import SGD
from micrograd_lesson.tensor import Tensor
from micrograd_lesson.tensor_nn import MLP, Linear, cross_entropy, log_softmax

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_scalar_and_tensor_engines_give_the_same_gradients_on_the_same_mlp():
    random.seed(3)
    scalar = nn.MLP(3, [4, 4, 1])
    tensor = MLP.from_scalar(scalar)
    X = np.random.default_rng(1).normal(size=(5, 3))
    targets = np.array([1.0, -1.0, 1.0, 1.0, -1.0])

    scalar_loss = sum((scalar(list(x)) - t) ** 2 for x, t in zip(X, targets)) * (1 / len(X))
    scalar_loss.backward()
    tensor_loss = ((tensor(X) - targets.reshape(-1, 1)) ** 2).mean()
    tensor_loss.backward()

    assert tensor_loss.data == pytest.approx(scalar_loss.data, rel=1e-12)
    for s_layer, t_layer in zip(scalar.layers, tensor.layers):
        w_grads = np.array([[w.grad for w in n.w] for n in s_layer.neurons]).T
        np.testing.assert_allclose(t_layer.W.grad, w_grads, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(
            t_layer.b.grad, [n.b.grad for n in s_layer.neurons], rtol=1e-10, atol=1e-14
        )


def test_from_scalar_copies_the_activation():
    random.seed(0)
    scalar = nn.MLP(2, [3, 1], activation="tanh")
    tensor = MLP.from_scalar(scalar)
    x = np.array([[0.3, -0.7]])
    assert tensor.activation == "tanh"
    assert tensor(x).data[0, 0] == pytest.approx(scalar(list(x[0])).data, rel=1e-12)


def test_losses_need_tensor_logits():
    for loss in (lambda z: cross_entropy(z, [0, 1]), log_softmax):
        with pytest.raises(TypeError, match="needs a Tensor of logits, got ndarray"):
            loss(np.zeros((2, 3)))


def test_log_softmax_is_stable_for_huge_logits():
    logits = Tensor([[1000.0, 0.0, -1000.0]], requires_grad=True)
    out = log_softmax(logits)
    np.testing.assert_allclose(out.data, [[0.0, -1000.0, -2000.0]])
    out.sum().backward()
    assert np.all(np.isfinite(logits.grad))


@needs_torch
def test_cross_entropy_matches_pytorch():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(6, 4)) * 3
    labels = np.array([0, 3, 1, 1, 2, 0])
    ours = Tensor(logits, requires_grad=True)
    loss = cross_entropy(ours, labels)
    loss.backward()
    theirs = torch.tensor(logits, requires_grad=True)
    expected = torch.nn.functional.cross_entropy(theirs, torch.tensor(labels))
    expected.backward()
    assert loss.data == pytest.approx(expected.item(), rel=1e-12)
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_mlp_learns_the_moons():
    X, y = make_moons(100, noise=0.1, seed=0)
    model = MLP(2, [16, 16, 1], seed=0)
    opt = SGD(model.parameters(), lr=0.5, momentum=0.9)
    targets = y.reshape(-1, 1).astype(float)
    for _ in range(200):
        opt.zero_grad()
        (1 - targets * model(X)).relu().mean().backward()
        opt.step()
    assert np.mean((model(X).data[:, 0] > 0) == (y > 0)) >= 0.98


def test_linear_and_mlp_shapes():
    model = MLP(4, [5, 3])
    assert [p.shape for p in model.parameters()] == [(4, 5), (5,), (5, 3), (3,)]
    assert model(np.zeros((7, 4))).shape == (7, 3)
    with pytest.raises(ValueError, match="nout"):
        Linear(2, 0)
    with pytest.raises(ValueError, match="activation"):
        MLP(2, [1], activation="softplus")


def test_layers_and_the_mlp_are_modules_whose_zero_grad_clears_every_gradient():
    model = MLP(3, [4, 2], seed=0)
    assert isinstance(model, nn.Module) and all(isinstance(layer, nn.Module) for layer in model.layers)
    assert model.parameters() == [p for layer in model.layers for p in layer.parameters()]
    cross_entropy(model(np.ones((5, 3))), [0, 1, 1, 0, 1]).backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in model.parameters())
    model.layers[0].zero_grad()
    assert [p.grad is None for p in model.parameters()] == [True, True, False, False]
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


@pytest.mark.parametrize(
    "expr, pattern",
    [
        (lambda: Linear(3, 2)(np.ones((4, 2))), r"rows of 3 numbers.*\(4, 2\)"),
        (lambda: cross_entropy(Tensor(np.zeros((2, 3))), [0, 3]), r"labels in 0..2"),
        (lambda: cross_entropy(Tensor(np.zeros((2, 3))), [0, 1, 2]), r"logits \(2, 3\) and labels \(3,\)"),
        (lambda: cross_entropy(Tensor(np.zeros((0, 3))), []), r"batch >= 1.*logits \(0, 3\)"),
    ],
)
def test_shape_and_value_errors_name_the_problem(expr, pattern):
    with pytest.raises(ValueError, match=pattern):
        expr()
