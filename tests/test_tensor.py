"""The tensor engine: every operation's gradient checked by central differences and
against PyTorch (float64; skipped cleanly without it), broadcasting over random shapes,
and the scalar and tensor engines agreeing on the same network."""

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from micrograd_lesson import nn
from micrograd_lesson.datasets import make_moons
from micrograd_lesson.engine import Value
from micrograd_lesson.tensor import MLP, SGD, Linear, Tensor, cross_entropy, log_softmax

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def numerical_grads(fn, arrays, h=1e-6):
    """Central differences of the scalar fn(*arrays) with respect to every element of every array."""
    grads = []
    for a in arrays:
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            old = a[i]
            a[i] = old + h
            up = fn(*arrays)
            a[i] = old - h
            down = fn(*arrays)
            a[i] = old
            g[i] = (up - down) / (2 * h)
        grads.append(g)
    return grads


def our_grads(op, arrays, weights):
    """Gradients of sum(op(*inputs) * weights) from the tensor engine (weights make every output count)."""
    inputs = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    (op(*inputs) * weights).sum().backward()
    return [t.grad for t in inputs]


def torch_grads(op, arrays, weights):
    inputs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    (op(*inputs) * torch.tensor(weights)).sum().backward()
    return [t.grad.numpy() for t in inputs]


def positive(shape):
    return lambda rng: rng.uniform(0.5, 2.0, size=shape)


def normal(shape):
    # Away from 0, so relu's kink never sits inside a finite difference.
    return lambda rng: rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.2, 2.0, size=shape)


M = np.arange(12.0).reshape(3, 4) / 10  # a constant ndarray operand

# name: (op on our tensors and torch's alike, input makers)
OPS = {
    "add": (lambda a, b: a + b, [normal((2, 3)), normal((3,))]),
    "sub": (lambda a, b: a - b, [normal((2, 1)), normal((1, 3))]),
    "mul": (lambda a, b: a * b, [normal((2, 3)), normal((2, 1))]),
    "div": (lambda a, b: a / b, [normal((2, 3)), positive((3,))]),
    "pow 3": (lambda a: a**3, [normal((2, 3))]),
    "pow -1.5": (lambda a: a**-1.5, [positive((2, 3))]),
    "neg": (lambda a: -a, [normal((2, 3))]),
    "matmul": (lambda a, b: a @ b, [normal((2, 3)), normal((3, 4))]),
    "radd number": (lambda a: 2.5 + a, [normal((2, 3))]),
    "rsub number": (lambda a: 2.5 - a, [normal((2, 3))]),
    "rmul number": (lambda a: 2.5 * a, [normal((2, 3))]),
    "rtruediv number": (lambda a: 2.5 / a, [positive((2, 3))]),
    "add ndarray": (lambda a: a + M, [normal((3, 1))]),
    "sub ndarray": (lambda a: a - M, [normal((3, 4))]),
    "mul ndarray": (lambda a: a * M, [normal((4,))]),
    "div ndarray": (lambda a: a / (M + 1), [normal((3, 4))]),
    "matmul ndarray": (lambda a: a @ M, [normal((2, 3))]),
    "relu": (lambda a: a.relu(), [normal((2, 3))]),
    "sigmoid": (lambda a: a.sigmoid(), [normal((2, 3))]),
    "tanh": (lambda a: a.tanh(), [normal((2, 3))]),
    "exp": (lambda a: a.exp(), [normal((2, 3))]),
    "log": (lambda a: a.log(), [positive((2, 3))]),
    "sum": (lambda a: a.sum(), [normal((2, 3))]),
    "sum axis 0": (lambda a: a.sum(axis=0), [normal((2, 3))]),
    "sum axis 1 keepdims": (lambda a: a.sum(axis=1, keepdims=True), [normal((2, 3))]),
    "sum axes (0, 2)": (lambda a: a.sum(axis=(0, 2)), [normal((2, 3, 2))]),
    "mean": (lambda a: a.mean(), [normal((2, 3))]),
    "mean axis -1 keepdims": (lambda a: a.mean(axis=-1, keepdims=True), [normal((2, 3))]),
    "reshape": (lambda a: a.reshape(3, 2), [normal((2, 3))]),
    "T": (lambda a: a.T, [normal((2, 3))]),
    "shared input": (lambda a: a * a + a, [normal((2, 3))]),
}


def _torchify(name, op):
    """Torch spells a few things differently; everything else is the same expression."""
    if name == "sum axis 1 keepdims":
        return lambda a: a.sum(dim=1, keepdim=True)
    if name == "mean axis -1 keepdims":
        return lambda a: a.mean(dim=-1, keepdim=True)
    if name == "sum axes (0, 2)":
        return lambda a: a.sum(dim=(0, 2))
    if name.endswith("ndarray"):  # numpy constants as torch constants
        M_t = torch.tensor(M)
        return {
            "add ndarray": lambda a: a + M_t,
            "sub ndarray": lambda a: a - M_t,
            "mul ndarray": lambda a: a * M_t,
            "matmul ndarray": lambda a: a @ M_t,
            "div ndarray": lambda a: a / (M_t + 1),
        }[name]
    return op


def _case(name, seed=0):
    op, makers = OPS[name]
    rng = np.random.default_rng(seed)
    arrays = [make(rng) for make in makers]
    out_shape = op(*[Tensor(a) for a in arrays]).shape
    weights = rng.normal(size=out_shape)
    return op, arrays, weights


@pytest.mark.parametrize("name", OPS)
def test_gradients_match_central_differences(name):
    op, arrays, weights = _case(name)
    ours = our_grads(op, arrays, weights)
    numeric = numerical_grads(lambda *xs: float((op(*[Tensor(x) for x in xs]).data * weights).sum()), arrays)
    for got, want in zip(ours, numeric):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


@needs_torch
@pytest.mark.parametrize("name", OPS)
def test_values_and_gradients_match_pytorch(name):
    op, arrays, weights = _case(name)
    torch_op = _torchify(name, op)
    ours = op(*[Tensor(a) for a in arrays]).data
    theirs = torch_op(*[torch.tensor(a) for a in arrays]).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    for got, want in zip(our_grads(op, arrays, weights), torch_grads(torch_op, arrays, weights)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


BINARY = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b}


@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
    op=st.sampled_from(sorted(BINARY)),
    seed=st.integers(0, 2**16),
)
def test_broadcast_gradients_are_summed_back_to_each_input_shape(shapes, op, seed):
    fn = BINARY[op]
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.5, 2.0, size=shapes.input_shapes[0])
    b = rng.uniform(0.5, 2.0, size=shapes.input_shapes[1])
    weights = rng.normal(size=shapes.result_shape)
    ga, gb = our_grads(fn, [a, b], weights)
    assert ga.shape == a.shape and gb.shape == b.shape
    na, nb = numerical_grads(lambda x, z: float((fn(x, z) * weights).sum()), [a, b])
    np.testing.assert_allclose(ga, na, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gb, nb, rtol=1e-5, atol=1e-7)
    if torch is not None:
        ta, tb = torch_grads(fn, [a, b], weights)
        np.testing.assert_allclose(ga, ta, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gb, tb, rtol=1e-10, atol=1e-12)


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


def test_a_tensor_used_twice_accumulates_both_contributions():
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x + x  # dy/dx = 2x + 1
    y.sum().backward()
    np.testing.assert_array_equal(x.grad, [3.0, 5.0, 7.0])


def test_leaves_accumulate_across_backward_calls_but_inner_nodes_do_not():
    x = Tensor([2.0], requires_grad=True)
    h = x * 3.0
    loss = (h * h).sum()
    loss.backward()
    loss.backward()
    np.testing.assert_array_equal(x.grad, [2 * 36.0])  # d/dx (3x)^2 = 18x = 36, twice
    np.testing.assert_array_equal(h.grad, [12.0])  # 2h, not doubled


def test_no_two_tensors_share_a_grad_array():
    a = Tensor([1.0, 2.0], requires_grad=True)
    b = Tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()
    a.grad += 10
    np.testing.assert_array_equal(b.grad, [1.0, 1.0])


def test_constants_get_no_gradient():
    x = Tensor([1.0, 2.0], requires_grad=True)
    c = Tensor([5.0, 6.0])
    (x * c).sum().backward()
    assert c.grad is None and not c.requires_grad
    np.testing.assert_array_equal(x.grad, [5.0, 6.0])


def test_backward_walks_a_long_chain_without_recursion():
    x = Tensor([1.0], requires_grad=True)
    y = x
    for _ in range(5000):
        y = y * 1.0001
    y.sum().backward()
    assert x.grad[0] == pytest.approx(1.0001**5000)


def test_topological_order_puts_every_tensor_after_its_inputs():
    a = Tensor([1.0], requires_grad=True)
    b = a * 2.0
    c = a + b
    d = b * c
    order = d.topological_order()
    position = {id(t): i for i, t in enumerate(order)}
    assert len(order) == len(position)
    for t in order:
        assert all(position[id(child)] < position[id(t)] for child in t._prev)


def test_backward_on_a_non_scalar_needs_a_gradient():
    y = Tensor([[1.0, 2.0]], requires_grad=True) * 2.0
    with pytest.raises(ValueError, match=r"one-element.*shape \(1, 2\)"):
        y.backward()
    y.backward(gradient=np.array([[1.0, -1.0]]))
    np.testing.assert_array_equal(y._prev[0].grad, [[2.0, -2.0]])
    with pytest.raises(ValueError, match=r"needs shape \(1, 2\), got \(2,\)"):
        y.backward(gradient=np.ones(2))


def test_backward_without_any_requires_grad_says_so():
    with pytest.raises(RuntimeError, match="requires_grad"):
        (Tensor([1.0]) * 2.0).backward()


@pytest.mark.parametrize(
    "expr, pattern",
    [
        (lambda: Tensor(np.ones((2, 3))) + Tensor(np.ones(2)), r"cannot add .* \(2, 3\) and \(2,\)"),
        (lambda: Tensor(np.ones((2, 3))) * np.ones((4,)), r"cannot multiply .* \(2, 3\) and \(4,\)"),
        (lambda: Tensor(np.ones((2, 3))) @ Tensor(np.ones((2, 3))), r"matmul.*\(2, 3\) and \(2, 3\)"),
        (lambda: Tensor(np.ones(3)) @ Tensor(np.ones(3)), r"matmul.*\(3,\) and \(3,\)"),
        (lambda: Tensor([1.0, -1.0]).log(), r"log needs positive"),
        (lambda: Linear(3, 2)(np.ones((4, 2))), r"rows of 3 numbers.*\(4, 2\)"),
        (lambda: cross_entropy(Tensor(np.zeros((2, 3))), [0, 3]), r"labels in 0..2"),
        (lambda: cross_entropy(Tensor(np.zeros((2, 3))), [0, 1, 2]), r"logits \(2, 3\) and labels \(3,\)"),
        (lambda: cross_entropy(Tensor(np.zeros((0, 3))), []), r"batch >= 1.*logits \(0, 3\)"),
    ],
)
def test_shape_and_value_errors_name_the_problem(expr, pattern):
    with pytest.raises(ValueError, match=pattern):
        expr()


@pytest.mark.parametrize("bad", ["abc", None, {"a": 1}, Value(1.0), True, 1 + 2j, np.array([1.0, 2j])])
def test_bad_data_is_a_type_error_naming_it(bad):
    with pytest.raises(TypeError, match="Tensor"):
        Tensor(bad)


def test_power_needs_a_number_exponent():
    with pytest.raises(TypeError, match="real number n"):
        Tensor([1.0]) ** Tensor([2.0])


def test_a_leaf_never_shares_the_callers_array():
    w0 = np.ones(3)
    w = Tensor(w0, requires_grad=True)
    (w * w).sum().backward()
    SGD([w], lr=0.1).step()
    np.testing.assert_array_equal(w0, [1.0, 1.0, 1.0])  # the caller's array is untouched
    np.testing.assert_allclose(w.data, [0.8, 0.8, 0.8])


def test_losses_need_tensor_logits():
    for loss in (lambda z: cross_entropy(z, [0, 1]), log_softmax):
        with pytest.raises(TypeError, match="needs a Tensor of logits, got ndarray"):
            loss(np.zeros((2, 3)))


def test_power_zero_has_slope_zero_even_at_zero():
    x = Tensor([0.0, 2.0], requires_grad=True)
    with np.errstate(all="raise"):  # no 0 * inf behind the scenes
        (x**0).sum().backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.0])


def test_ndarray_on_the_left_gives_a_tensor():
    out = np.array([1.0, 2.0]) * Tensor([3.0, 4.0], requires_grad=True)
    assert isinstance(out, Tensor)
    np.testing.assert_array_equal(out.data, [3.0, 8.0])


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


@needs_torch
def test_sgd_with_momentum_follows_pytorch():
    rng = np.random.default_rng(0)
    start = rng.normal(size=(3, 2))
    ours = Tensor(start.copy(), requires_grad=True)
    theirs = torch.tensor(start.copy(), requires_grad=True)
    opt, topt = SGD([ours], lr=0.1, momentum=0.9), torch.optim.SGD([theirs], lr=0.1, momentum=0.9)
    for _ in range(5):
        opt.zero_grad()
        (ours**2).sum().backward()
        opt.step()
        topt.zero_grad()
        (theirs**2).sum().backward()
        topt.step()
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-12)


def test_sgd_rejects_what_has_no_gradient_and_bad_settings():
    with pytest.raises(TypeError, match="requires_grad"):
        SGD([Tensor([1.0])], lr=0.1)
    p = Tensor([1.0], requires_grad=True)
    for lr, momentum in ((0, 0.0), (-1, 0.0), ("0.1", 0.0), (0.1, 1.0), (0.1, -0.5)):
        with pytest.raises(ValueError, match="lr > 0 and 0 <= momentum < 1"):
            SGD([p], lr=lr, momentum=momentum)


def test_fractional_power_of_a_negative_number_is_an_error():
    with pytest.raises(ValueError, match="not real"):
        Tensor([-1.0, 4.0]) ** 0.5
    np.testing.assert_array_equal((Tensor([-2.0]) ** 2).data, [4.0])


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
