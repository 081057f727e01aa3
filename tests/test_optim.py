"""Tests for micrograd_lesson.optim: SGD (with momentum), Adagrad, RMSprop, Adam and AdamW.

Expected values are computed here from the update formulas, step by step,
so a test reads as the rule it checks.
"""

import math

import numpy as np
import pytest

from micrograd_lesson import MLP, SGD, Adam, Optimizer, Tensor, Value
from micrograd_lesson.nn import Module
from micrograd_lesson.optim import Adagrad, AdamW, RMSprop

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def quadratic_loss(w1, w2):
    """0.5 * ((w1 - 1)**2 + 10 * (w2 + 2)**2): gradients w1 - 1 and 10 * (w2 + 2)."""
    return 0.5 * ((w1 - 1) ** 2 + 10 * (w2 + 2) ** 2)


def grad_of(x1, x2):
    return [x1 - 1, 10 * (x2 + 2)]


def run(opt, params, steps):
    """Take `steps` optimiser steps on quadratic_loss; return the data after each."""
    history = []
    for _ in range(steps):
        opt.zero_grad()
        quadratic_loss(*params).backward()
        opt.step()
        history.append([p.data for p in params])
    return history


def test_plain_sgd_steps_against_the_gradient():
    params = [Value(3.0), Value(0.5)]
    history = run(SGD(params, lr=0.05), params, 4)
    x = [3.0, 0.5]
    for got in history:
        g = grad_of(*x)
        x = [xi - 0.05 * gi for xi, gi in zip(x, g)]
        assert got == pytest.approx(x, rel=1e-12)


def test_sgd_momentum_matches_pytorch_convention():
    # PyTorch's rule: v = mu * v + g (no (1 - mu) factor); p -= lr * v.
    lr, mu = 0.05, 0.9
    params = [Value(3.0), Value(0.5)]
    history = run(SGD(params, lr=lr, momentum=mu), params, 5)
    x, v = [3.0, 0.5], [0.0, 0.0]
    for got in history:
        g = grad_of(*x)
        v = [mu * vi + gi for vi, gi in zip(v, g)]
        x = [xi - lr * vi for xi, vi in zip(x, v)]
        assert got == pytest.approx(x, rel=1e-12)


def test_first_momentum_step_equals_plain_step():
    a, b = [Value(3.0), Value(0.5)], [Value(3.0), Value(0.5)]
    run(SGD(a, lr=0.1, momentum=0.9), a, 1)
    run(SGD(b, lr=0.1), b, 1)
    assert [p.data for p in a] == [p.data for p in b]


def test_momentum_velocity_grows_under_a_constant_gradient():
    # With g constant, v after t steps is g * (1 + mu + ... + mu**(t-1)).
    p = Value(0.0)
    opt = SGD([p], lr=1.0, momentum=0.5)
    for t in range(1, 6):
        p.grad = 2.0
        opt.step()
        assert opt.velocity[0] == pytest.approx(2.0 * (1 - 0.5**t) / (1 - 0.5))


def test_adam_steps_with_bias_correction():
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    params = [Value(3.0), Value(0.5)]
    history = run(Adam(params, lr=lr, betas=(b1, b2), eps=eps), params, 5)
    x, m, v = [3.0, 0.5], [0.0, 0.0], [0.0, 0.0]
    for t, got in enumerate(history, start=1):
        g = grad_of(*x)
        m = [b1 * mi + (1 - b1) * gi for mi, gi in zip(m, g)]
        v = [b2 * vi + (1 - b2) * gi**2 for vi, gi in zip(v, g)]
        m_hat = [mi / (1 - b1**t) for mi in m]
        v_hat = [vi / (1 - b2**t) for vi in v]
        x = [xi - lr * mh / (math.sqrt(vh) + eps) for xi, mh, vh in zip(x, m_hat, v_hat)]
        assert got == pytest.approx(x, rel=1e-12)


def test_adam_first_step_is_lr_times_sign_of_gradient():
    # With bias correction, m_hat = g and v_hat = g**2 at t = 1: the step is lr * g / |g|.
    params = [Value(3.0), Value(0.5)]  # gradients 2 and 25: very different sizes
    run(Adam(params, lr=0.1), params, 1)
    assert params[0].data == pytest.approx(3.0 - 0.1, abs=1e-8)
    assert params[1].data == pytest.approx(0.5 - 0.1, abs=1e-8)


def test_adam_without_gradient_does_not_move():
    p = Value(1.5)
    opt = Adam([p], lr=0.1)
    for _ in range(3):
        p.grad = 0.0
        opt.step()
    assert p.data == 1.5


def test_zero_grad_resets_every_parameter():
    model = MLP(3, [4, 1])
    opt = SGD(model.parameters(), lr=0.1)
    model([1.0, -2.0, 0.5]).backward()
    assert any(p.grad != 0 for p in model.parameters())
    opt.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())


def test_accepts_a_generator_and_trains_a_model():
    model = MLP(2, [3, 1])
    opt = Adam((p for p in model.parameters()), lr=0.05)
    assert len(opt.params) == (2 * 3 + 3) + (3 * 1 + 1)

    def loss():
        return (model([1.0, 2.0]) - 1.0) ** 2

    before = loss().data
    for _ in range(20):
        opt.zero_grad()
        loss().backward()
        opt.step()
    assert loss().data < before


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"lr": 0}, "lr > 0"),
        ({"lr": -0.1}, "got float: -0.1"),
        ({"lr": "0.1"}, "got str: '0.1'"),
        ({"lr": float("nan")}, "finite"),
        ({"lr": True}, "got bool"),
        ({"lr": 0.1, "momentum": -0.5}, "0 <= momentum < 1"),
        ({"lr": 0.1, "momentum": 1.0}, "got float: 1.0"),
    ],
)
def test_sgd_rejects_bad_settings(kwargs, message):
    with pytest.raises(ValueError, match="SGD") as info:
        SGD([Value(1.0)], **kwargs)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"lr": 0.0}, "lr > 0"),
        ({"betas": (0.9,)}, "pair"),
        ({"betas": (1.0, 0.999)}, "betas[0]"),
        ({"betas": (0.9, -0.1)}, "betas[1]"),
        ({"eps": -1e-8}, "eps >= 0"),
    ],
)
def test_adam_rejects_bad_settings(kwargs, message):
    with pytest.raises(ValueError, match="Adam") as info:
        Adam([Value(1.0)], **kwargs)
    assert message in str(info.value)


def test_adagrad_divides_by_the_root_of_the_summed_squares():
    w = [Value(3.0), Value(0.0)]
    opt = Adagrad(w, lr=0.5, eps=0.0)
    sums = [0.0, 0.0]
    for _ in range(3):
        x = [p.data for p in w]
        grads = grad_of(*x)
        opt.zero_grad()
        quadratic_loss(*w).backward()
        opt.step()
        for i in range(2):
            sums[i] += grads[i] ** 2
            assert w[i].data == pytest.approx(x[i] - 0.5 * grads[i] / math.sqrt(sums[i]), rel=1e-12)


def test_rmsprop_forgets_old_gradients():
    p = Value(0.0)
    opt = RMSprop([p], lr=0.1, alpha=0.5, eps=0.0)
    for g in (4.0, 1.0):  # v = 0.5 * 16 = 8, then 0.5 * 8 + 0.5 * 1 = 4.5
        p.grad = g
        opt.step()
    assert opt.v[0] == pytest.approx(4.5)
    assert p.data == pytest.approx(-0.1 * 4 / math.sqrt(8) - 0.1 * 1 / math.sqrt(4.5))


def test_adam_weight_decay_is_an_l2_gradient_and_adamw_shrinks_the_weight():
    # With a zero loss gradient, Adam's L2 term makes g = wd * p, so the first step is lr * sign(p);
    # AdamW instead multiplies p by (1 - lr * wd) and then takes an Adam step with g = 0 (no move).
    a, b = Value(2.0), Value(2.0)
    adam, adamw = Adam([a], lr=0.1, weight_decay=0.5), AdamW([b], lr=0.1, weight_decay=0.5)
    adam.step()
    adamw.step()
    assert a.data == pytest.approx(2.0 - 0.1, rel=1e-6)
    assert b.data == pytest.approx(2.0 * (1 - 0.1 * 0.5))


@pytest.mark.parametrize("cls", [Adagrad, RMSprop, AdamW])
def test_new_optimisers_reject_a_negative_rate(cls):
    with pytest.raises(ValueError, match=cls.__name__):
        cls([Value(1.0)], lr=-1.0)


def test_empty_parameter_list_is_an_error():
    with pytest.raises(ValueError, match="empty parameter list"):
        SGD([], lr=0.1)


def test_non_value_parameter_names_its_type_and_value():
    with pytest.raises(TypeError, match=r"item 1 is float: 2\.5"):
        Adam([Value(1.0), 2.5])


def test_passing_the_model_instead_of_its_parameters():
    with pytest.raises(TypeError, match=r"pass model\.parameters\(\)"):
        SGD(MLP(2, [2, 1]), lr=0.1)


def test_passing_a_single_value():
    with pytest.raises(TypeError, match=r"pass \[p\]"):
        SGD(Value(1.0), lr=0.1)


def test_a_parameter_listed_twice_is_an_error():
    p = Value(1.0)
    with pytest.raises(ValueError, match="appears twice"):
        SGD([p, p], lr=0.1)


def test_base_class_step_is_abstract():
    opt = Optimizer([Value(1.0)], lr=0.1)
    with pytest.raises(NotImplementedError):
        opt.step()


def test_repr_names_the_settings():
    assert repr(SGD([Value(1.0)], lr=0.1, momentum=0.9)) == "SGD(1 parameters, lr=0.1, momentum=0.9)"
    assert "betas=(0.9, 0.999)" in repr(Adam([Value(1.0)]))


# ---- cross-check against PyTorch on the same problem ----


class TinyNet(Module):
    """y = tanh(w1 * x + b1) * w2: three parameters, easy to mirror in torch."""

    def __init__(self):
        self.w1, self.b1, self.w2 = Value(0.5), Value(-0.3), Value(0.8)

    def __call__(self, x):
        return (self.w1 * x + self.b1).tanh() * self.w2

    def parameters(self):
        return [self.w1, self.b1, self.w2]


DATA = [(-1.0, 0.5), (0.0, -0.2), (1.5, 0.9), (2.0, 0.4)]


def ours(make_opt, steps):
    net = TinyNet()
    opt = make_opt(net.parameters())
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((net(x) - y) ** 2 for x, y in DATA), Value(0.0))
        loss.backward()
        opt.step()
    return [p.data for p in net.parameters()]


def theirs(torch, make_opt, steps):
    w1, b1, w2 = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (0.5, -0.3, 0.8))
    opt = make_opt([w1, b1, w2])
    for _ in range(steps):
        opt.zero_grad()
        loss = sum((torch.tanh(w1 * x + b1) * w2 - y) ** 2 for x, y in DATA)
        loss.backward()
        opt.step()
    return [t.item() for t in (w1, b1, w2)]


@pytest.mark.parametrize(
    "name, ours_opt, torch_opt",
    [
        ("sgd", lambda p: SGD(p, lr=0.05), lambda optim, p: optim.SGD(p, lr=0.05)),
        (
            "momentum",
            lambda p: SGD(p, lr=0.05, momentum=0.9),
            lambda optim, p: optim.SGD(p, lr=0.05, momentum=0.9),
        ),
        ("adam", lambda p: Adam(p, lr=0.05), lambda optim, p: optim.Adam(p, lr=0.05)),
        ("adagrad", lambda p: Adagrad(p, lr=0.1), lambda optim, p: optim.Adagrad(p, lr=0.1)),
        (
            "rmsprop",
            lambda p: RMSprop(p, lr=0.01, alpha=0.9),
            lambda optim, p: optim.RMSprop(p, lr=0.01, alpha=0.9),
        ),
        (
            "adam-l2",
            lambda p: Adam(p, lr=0.05, weight_decay=0.3),
            lambda optim, p: optim.Adam(p, lr=0.05, weight_decay=0.3),
        ),
        (
            "adamw",
            lambda p: AdamW(p, lr=0.05, weight_decay=0.3),
            lambda optim, p: optim.AdamW(p, lr=0.05, weight_decay=0.3),
        ),
        (
            "adam-betas",
            lambda p: Adam(p, lr=0.02, betas=(0.8, 0.99), eps=1e-6),
            lambda optim, p: optim.Adam(p, lr=0.02, betas=(0.8, 0.99), eps=1e-6),
        ),
    ],
)
def test_matches_torch_optim(name, ours_opt, torch_opt):
    torch = pytest.importorskip("torch")
    steps = 25
    got = ours(ours_opt, steps)
    expected = theirs(torch, lambda p: torch_opt(torch.optim, p), steps)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), name


# ---- one set of optimisers for Values and Tensors alike ----

TENSOR_OPTIMISERS = {
    "SGD": (SGD, {"lr": 0.1}),
    "SGD momentum": (SGD, {"lr": 0.1, "momentum": 0.9}),
    "Adagrad": (Adagrad, {"lr": 0.1}),
    "RMSprop": (RMSprop, {"lr": 0.01, "alpha": 0.9}),
    "Adam": (Adam, {"lr": 0.05, "weight_decay": 0.1}),
    "AdamW": (AdamW, {"lr": 0.05, "weight_decay": 0.1}),
}


def tensor_loss(w):
    """sum(w**4 / 4 - w): a gradient w**3 - 1 that differs from element to element."""
    return (w**4 * 0.25 - w).sum()


@pytest.mark.parametrize("name", TENSOR_OPTIMISERS)
def test_an_optimiser_moves_a_tensor_exactly_as_it_moves_each_of_its_elements_as_values(name):
    cls, settings = TENSOR_OPTIMISERS[name]
    start = np.random.default_rng(0).normal(size=(3, 2))
    tensor = Tensor(start, requires_grad=True)
    values = [Value(float(x)) for x in start.ravel()]
    opt_t, opt_v = cls([tensor], **settings), cls(values, **settings)
    for _ in range(6):
        opt_t.zero_grad()
        tensor_loss(tensor).backward()
        opt_t.step()
        opt_v.zero_grad()
        sum(v**4 * 0.25 - v for v in values).backward()
        opt_v.step()
        # The same rule on the same numbers: equal to the last bit, not merely close.
        assert tensor.data.ravel().tolist() == [v.data for v in values]


TORCH_OPTIMISERS = {
    "SGD": "SGD",
    "SGD momentum": "SGD",
    "Adagrad": "Adagrad",
    "RMSprop": "RMSprop",
    "Adam": "Adam",
    "AdamW": "AdamW",
}


@needs_torch
@pytest.mark.parametrize("name", TENSOR_OPTIMISERS)
def test_an_optimiser_on_tensors_follows_pytorch(name):
    cls, settings = TENSOR_OPTIMISERS[name]
    start = np.random.default_rng(1).normal(size=(4, 3))
    ours = Tensor(start, requires_grad=True)
    theirs = torch.tensor(start.copy(), requires_grad=True)
    opt = cls([ours], **settings)
    topt = getattr(torch.optim, TORCH_OPTIMISERS[name])([theirs], **settings)
    for _ in range(8):
        opt.zero_grad()
        tensor_loss(ours).backward()
        opt.step()
        topt.zero_grad()
        tensor_loss(theirs).backward()
        topt.step()
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_a_tensor_the_loss_did_not_use_keeps_its_value():
    used, unused = Tensor([1.0, 2.0], requires_grad=True), Tensor([3.0], requires_grad=True)
    for cls, settings in TENSOR_OPTIMISERS.values():
        opt = cls([used, unused], **settings)
        opt.zero_grad()
        tensor_loss(used).backward()
        opt.step()
        assert unused.grad is None
        np.testing.assert_array_equal(unused.data, [3.0])


def test_zero_grad_clears_a_tensor_gradient_to_none_and_a_value_gradient_to_zero():
    w, v = Tensor([1.0, 2.0], requires_grad=True), Value(1.0)
    (w * w).sum().backward()
    (v * v).backward()
    SGD([w, v], lr=0.1).zero_grad()
    assert w.grad is None and v.grad == 0.0


def test_tensor_parameters_need_requires_grad_and_a_list():
    with pytest.raises(TypeError, match=r"requires_grad=True; item 0"):
        SGD([Tensor([1.0])], lr=0.1)
    with pytest.raises(TypeError, match=r"single Tensor; pass \[p\]"):
        SGD(Tensor([1.0], requires_grad=True), lr=0.1)


def test_a_leaf_never_shares_the_callers_array():
    w0 = np.ones(3)
    w = Tensor(w0, requires_grad=True)
    (w * w).sum().backward()
    SGD([w], lr=0.1).step()
    np.testing.assert_array_equal(w0, [1.0, 1.0, 1.0])  # the caller's array is untouched
    np.testing.assert_allclose(w.data, [0.8, 0.8, 0.8])
