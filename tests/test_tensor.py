"""The tensor engine: every operation's gradient checked by central differences and
against PyTorch (float64; skipped cleanly without it), broadcasting and NumPy's `@` over
random shapes, graphs freed without the garbage collector, and gradient arrays never
shared. Layers and losses are tested in test_tensor_nn.py, the optimisers in test_optim.py."""

import gc
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from micrograd_lesson import tensor as tensor_module
from micrograd_lesson.engine import Value
from micrograd_lesson.optim import SGD
from micrograd_lesson.tensor import Tensor
from micrograd_lesson.tensor_nn import MLP

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
    "matmul matrix @ vector": (lambda a, b: a @ b, [normal((5, 4)), normal((4,))]),
    "matmul vector @ matrix": (lambda a, b: a @ b, [normal((4,)), normal((4, 3))]),
    "matmul vector @ vector": (lambda a, b: a @ b, [normal((4,)), normal((4,))]),
    "matmul stacks": (lambda a, b: a @ b, [normal((2, 3, 4)), normal((2, 4, 5))]),
    "matmul stack @ matrix": (lambda a, b: a @ b, [normal((2, 3, 4)), normal((4, 2))]),
    "matmul broadcast stacks": (lambda a, b: a @ b, [normal((2, 1, 3, 4)), normal((3, 4, 2))]),
    "matmul vector @ stack": (lambda a, b: a @ b, [normal((3,)), normal((2, 3, 4))]),
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
        (lambda: Tensor(np.ones((2, 3))) @ Tensor(np.ones((2, 3))), r"\(2, 3\) and \(2, 3\).*last axis"),
        (lambda: Tensor(np.ones(3)) @ Tensor(np.ones(4)), r"matmul.*\(3,\) and \(4,\)"),
        (lambda: Tensor(np.ones(3)) @ 2.0, r"matmul.*\(3,\) and \(\)"),
        (lambda: Tensor(np.ones((2, 3, 4))) @ np.ones((5, 4, 2)), r"stacks.*\(2,\) and \(5,\).*broadcast"),
        (lambda: Tensor([1.0, -1.0]).log(), r"log needs positive"),
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


def test_power_zero_has_slope_zero_even_at_zero():
    x = Tensor([0.0, 2.0], requires_grad=True)
    with np.errstate(all="raise"):  # no 0 * inf behind the scenes
        (x**0).sum().backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.0])


def test_ndarray_on_the_left_gives_a_tensor():
    out = np.array([1.0, 2.0]) * Tensor([3.0, 4.0], requires_grad=True)
    assert isinstance(out, Tensor)
    np.testing.assert_array_equal(out.data, [3.0, 8.0])


def test_fractional_power_of_a_negative_number_is_an_error():
    with pytest.raises(ValueError, match="not real"):
        Tensor([-1.0, 4.0]) ** 0.5
    np.testing.assert_array_equal((Tensor([-2.0]) ** 2).data, [4.0])


# ---- the matrix product follows NumPy's rules ----


@st.composite
def matmul_shapes(draw):
    """Shapes (a, b) that NumPy's @ accepts: vectors on either side, stacks of matrices that broadcast."""
    m, n, p = (draw(st.integers(1, 3)) for _ in range(3))
    batch = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3))
    kinds = st.sampled_from(["vector", "matrix", "stack"])
    kind_a, kind_b = draw(kinds), draw(kinds)
    a = {"vector": (n,), "matrix": (m, n), "stack": batch.input_shapes[0] + (m, n)}[kind_a]
    b = {"vector": (n,), "matrix": (n, p), "stack": batch.input_shapes[1] + (n, p)}[kind_b]
    return a, b


@settings(max_examples=60, deadline=None)
@given(shapes=matmul_shapes(), seed=st.integers(0, 2**16))
def test_matmul_matches_numpy_and_its_gradients_match_central_differences_and_pytorch(shapes, seed):
    rng = np.random.default_rng(seed)
    a, b = (rng.normal(size=shape) for shape in shapes)
    out = Tensor(a) @ Tensor(b)
    np.testing.assert_allclose(out.data, a @ b, rtol=1e-12, atol=1e-12)
    assert out.shape == np.matmul(a, b).shape
    weights = rng.normal(size=out.shape)
    ga, gb = our_grads(lambda x, y: x @ y, [a, b], weights)
    assert ga.shape == a.shape and gb.shape == b.shape
    na, nb = numerical_grads(lambda x, y: float(((x @ y) * weights).sum()), [a, b])
    np.testing.assert_allclose(ga, na, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, nb, rtol=1e-6, atol=1e-8)
    if torch is not None:
        ta, tb = torch_grads(lambda x, y: x @ y, [a, b], weights)
        np.testing.assert_allclose(ga, ta, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gb, tb, rtol=1e-10, atol=1e-12)


def test_matrix_times_vector_no_longer_raises():
    W = Tensor(np.arange(20.0).reshape(5, 4), requires_grad=True)
    v = Tensor([1.0, 0.0, -1.0, 2.0], requires_grad=True)
    out = W @ v
    np.testing.assert_array_equal(out.data, W.data @ v.data)
    out.sum().backward()
    np.testing.assert_array_equal(W.grad, np.tile(v.data, (5, 1)))  # d(sum W v)/dW[i, j] = v[j]
    np.testing.assert_array_equal(v.grad, W.data.sum(axis=0))  # d(sum W v)/dv[j] = sum_i W[i, j]


# ---- no reference cycles: reference counting frees a graph ----


def training_step(model, opt, X, targets):
    loss = (1 - targets * model(X)).relu().mean() + 1e-4 * sum((p * p).sum() for p in model.parameters())
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def test_the_collector_finds_nothing_after_a_training_step():
    rng = np.random.default_rng(0)
    X, targets = rng.normal(size=(50, 2)), rng.choice([-1.0, 1.0], size=(50, 1))
    model = MLP(2, [16, 16, 1], seed=0)
    opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()  # only gc.collect() below may collect
    try:
        for _ in range(3):
            loss = training_step(model, opt, X, targets)
        del loss
        assert gc.collect() == 0  # every graph was already freed by reference counting
    finally:
        if was_enabled:
            gc.enable()


def test_a_graph_is_freed_the_moment_it_is_dropped():
    was_enabled = gc.isenabled()
    gc.disable()  # a reference cycle would now keep the graph alive
    try:
        a = Tensor(np.ones((3, 2)), requires_grad=True)
        b = Tensor(np.full((2, 4), 0.5), requires_grad=True)
        out = ((a @ b).tanh() * 2.0 + (a.T.reshape(6) ** 2).sum()).sigmoid().exp().log().mean()
        out.backward()
        refs = [weakref.ref(t) for t in out.topological_order() if t._prev]
        del out
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        if was_enabled:
            gc.enable()


# ---- gradients are not copied needlessly, and never shared ----


PASS_THROUGH = {  # operations whose rule hands an input the output's gradient (or a view of it)
    "a + b": lambda a, b: a + b,
    "a - b": lambda a, b: a - b,
    "reshape": lambda a, b: a.reshape(2, 3) + b.reshape(2, 3),
    "T": lambda a, b: a.T + b.T,
    "sum": lambda a, b: (a.sum(axis=0) + b.sum(axis=0)) * 1.0,
    "a + a": lambda a, b: (a + a) + b,
}


@pytest.mark.parametrize("name", PASS_THROUGH)
def test_no_two_tensors_share_a_gradient_array_that_an_in_place_update_could_corrupt(name):
    a = Tensor(np.ones((3, 2)), requires_grad=True)
    b = Tensor(np.ones((3, 2)), requires_grad=True)
    out = PASS_THROUGH[name](a, b)
    out.sum().backward()
    nodes = [t for t in out.topological_order() if t.grad is not None]
    for i, s in enumerate(nodes):
        for t in nodes[i + 1 :]:
            if np.shares_memory(s.grad, t.grad):  # only inner tensors share, and only read-only
                assert s._prev and t._prev and not s.grad.flags.writeable and not t.grad.flags.writeable
    for leaf in (a, b):
        assert leaf.grad.flags.writeable
    expected = {"a": np.array(a.grad), "b": np.array(b.grad)}
    a.grad += 100.0  # an in-place update of one leaf's gradient ...
    np.testing.assert_array_equal(b.grad, expected["b"])  # ... leaves every other alone
    a.grad -= 100.0
    out.sum().backward()  # and accumulating again gives exactly twice
    np.testing.assert_array_equal(a.grad, 2 * expected["a"])
    np.testing.assert_array_equal(b.grad, 2 * expected["b"])


def test_a_shared_inner_gradient_refuses_an_in_place_update():
    x = Tensor(np.ones(3), requires_grad=True)
    h = x * 2.0
    s = h + 1.0  # + hands its gradient to h unchanged: h and s share it, read-only
    (s * s).sum().backward()
    assert np.shares_memory(h.grad, s.grad) and not s.grad.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        s.grad += 1.0
    np.testing.assert_array_equal(x.grad, [12.0, 12.0, 12.0])  # 2 s * 2


def test_a_second_contribution_to_a_shared_gradient_goes_to_a_new_array():
    x = Tensor(np.ones(3), requires_grad=True)
    h = x * 2.0
    s = h + 1.0
    loss = (s * s).sum() + (h * 3.0).sum()  # h gets s's gradient unchanged, and 3 more
    loss.backward()
    np.testing.assert_array_equal(s.grad, [6.0, 6.0, 6.0])  # 2 s, not corrupted by h's + 3
    np.testing.assert_array_equal(h.grad, [9.0, 9.0, 9.0])
    np.testing.assert_array_equal(x.grad, [18.0, 18.0, 18.0])


def test_a_gradient_passed_to_backward_is_copied():
    y = Tensor([[1.0, 2.0]], requires_grad=True) * 1.0
    seed = np.array([[1.0, -1.0]])
    y.backward(gradient=seed)
    y.grad += 1.0
    np.testing.assert_array_equal(seed, [[1.0, -1.0]])


def test_a_freshly_computed_gradient_is_stored_without_a_copy(monkeypatch):
    copies = []

    class CountingNumPy:  # the engine's `np`, with np.array (its one way to copy) counted
        def __getattr__(self, name):
            return getattr(np, name)

        def array(self, obj, *args, **kwargs):
            copies.append(obj.shape)
            return np.array(obj, *args, **kwargs)

    x = Tensor(np.ones((4, 3)), requires_grad=True)
    W = Tensor(np.ones((3, 2)), requires_grad=True)
    loss = ((x @ W).relu() * 2.0).sum()
    monkeypatch.setattr(tensor_module, "np", CountingNumPy())
    loss.backward()
    # Every rule here computes a new array (a product), except sum's, a broadcast view of
    # the loss's gradient, which the inner tensor `* 2.0` shares read-only: nothing is copied.
    assert copies == []


# Each elementwise operation of both engines, as (Tensor expression, Value expression).
SHARED_RULES = {
    "+": (lambda a, b: a + b, lambda a, b: a + b),
    "-": (lambda a, b: a - b, lambda a, b: a - b),
    "*": (lambda a, b: a * b, lambda a, b: a * b),
    "/": (lambda a, b: a / b, lambda a, b: a / b),
    "**3": (lambda a, b: a**3, lambda a, b: a**3),
    "**-1.5": (lambda a, b: a**-1.5, lambda a, b: a**-1.5),
    "exp": (lambda a, b: a.exp(), lambda a, b: a.exp()),
    "log": (lambda a, b: a.log(), lambda a, b: a.log()),
    "tanh": (lambda a, b: a.tanh(), lambda a, b: a.tanh()),
    "sigmoid": (lambda a, b: a.sigmoid(), lambda a, b: a.sigmoid()),
    "relu": (lambda a, b: a.relu(), lambda a, b: a.relu()),
}


@pytest.mark.parametrize("name", SHARED_RULES)
def test_the_two_engines_give_the_same_gradients_bit_for_bit(name):
    """Tensor and Value run one rule table, so they agree exactly, even where a rewritten
    formula would not: d(a/b)/db at a = b = 1e-200 is -1e200 in both (-a/b**2 gives -inf)."""
    tensor_fn, value_fn = SHARED_RULES[name]
    xs = np.array([1e-200, 0.3, 1.7, 2.5, 1e150])
    ys = np.array([1e-200, -0.8, 0.6, 3.0, 1e150])
    if name.startswith("**") or name == "exp":
        xs, ys = xs[1:4], ys[1:4]  # finite results only
    a, b = Tensor(xs, requires_grad=True), Tensor(ys, requires_grad=True)
    tensor_fn(a, b).sum().backward()
    used = [t for t in (a, b) if t.grad is not None]  # a function of one input leaves b alone
    for i, (x, y) in enumerate(zip(xs, ys)):
        va, vb = Value(float(x)), Value(float(y))
        value_fn(va, vb).backward()
        ours, theirs = [t.grad[i] for t in used], [va.grad, vb.grad][: len(used)]
        if name == "sigmoid":  # the forward formulas differ (tanh form, exp form) in the last digits
            np.testing.assert_allclose(ours, theirs, rtol=1e-14)
        else:
            assert ours == theirs, (name, x, y)


def test_no_grad_stops_a_tensor_recording_as_it_stops_pytorchs():
    torch = pytest.importorskip("torch")
    from micrograd_lesson.engine import no_grad

    x = Tensor([[1.0, -2.0]], requires_grad=True)
    tx = torch.tensor([[1.0, -2.0]], dtype=torch.float64, requires_grad=True)
    operations = {
        "*": lambda x: x * 2.0, "+": lambda x: x + x, "@": lambda x: x @ x.T, "sum": lambda x: x.sum(),
        "mean": lambda x: x.mean(), "relu": lambda x: x.relu(), "exp": lambda x: x.exp(),
        "**": lambda x: x**2,
    }  # fmt: skip
    # (PyTorch's reshape and .T under no_grad give views that still say requires_grad=True,
    # with no grad_fn: nothing is recorded. Ours are no views: they simply record nothing.)
    with no_grad(), torch.no_grad():
        ours = {name: f(x) for name, f in operations.items()}
        theirs = {name: f(tx) for name, f in operations.items()}
        made_inside, their_made_inside = Tensor([1.0], requires_grad=True), torch.ones(1, requires_grad=True)
    for name in operations:
        assert ours[name].requires_grad is theirs[name].requires_grad is False, name
        assert ours[name]._prev == () and theirs[name].grad_fn is None, name  # no inputs kept
        np.testing.assert_array_equal(ours[name].data, theirs[name].numpy())  # still computed
    assert made_inside.requires_grad is their_made_inside.requires_grad is True  # a leaf asked for keeps it
    with no_grad():
        assert all(not t.requires_grad and t._prev == () for t in (x.reshape(2), x.T))
    for loss, their_loss in ((ours["sum"], theirs["sum"]), (ours["mean"], theirs["mean"])):
        with pytest.raises(RuntimeError):
            their_loss.backward()
        with pytest.raises(RuntimeError, match="requires_grad"):
            loss.backward()
    assert x.grad is None and tx.grad is None
    assert (x * 2.0).requires_grad and (x * 2.0)._prev  # recording again after the block


def test_no_grad_for_tensors_nests_and_is_restored_after_an_exception():
    from micrograd_lesson.engine import no_grad, recording

    x = Tensor([1.0], requires_grad=True)
    with pytest.raises(ZeroDivisionError), no_grad():
        with recording(True):  # what grad(create_graph=True) does inside no_grad()
            assert (x * 2.0).requires_grad and (Value(1.0) * 2)._prev
        assert not (x * 2.0).requires_grad and not (Value(1.0) * 2)._prev  # one switch for both engines
        raise ZeroDivisionError("an error inside the block")
    assert (x * 2.0).requires_grad
