"""Optimisers: rules that turn gradients into parameter updates.

Shaped like PyTorch's `torch.optim`: build one from a model's parameters,
then in each training step call `zero_grad()`, run the forward pass and
`loss.backward()`, and call `step()`.

    opt = Adam(model.parameters(), lr=0.01)
    for _ in range(100):
        opt.zero_grad()
        loss = compute_loss(model)
        loss.backward()
        opt.step()

The parameters may be `Value`s or `Tensor`s: every rule below is written once,
in arithmetic that works on a float and on a NumPy array alike. Each optimiser
keeps its own per-parameter memory (a velocity, running averages) in plain
lists, index for index with `self.params`; an entry starts as 0.0 and becomes
an array after a Tensor's first step.
"""

import math
import numbers

from .engine import Value
from .nn import zero_grads

try:  # NumPy, and with it Tensor, is optional: the playground trains Values in a browser without it
    import numpy as np

    from .tensor import Tensor
except ModuleNotFoundError as missing:
    if missing.name != "numpy":
        raise
    np = Tensor = None
PARAMETER_TYPES = (Value,) if Tensor is None else (Value, Tensor)
ARRAY_TYPES = () if np is None else (np.ndarray,)  # isinstance(x, ()) is always False


class Optimizer:
    """What every optimiser shares: the parameter list, the rate, zero_grad()."""

    def __init__(self, params, lr):
        self.params = _check_params(params, type(self).__name__)
        self.lr = lr

    @property
    def lr(self):
        """The learning rate, checked wherever it is set: here, or by a schedule at every step."""
        return self._lr

    @lr.setter
    def lr(self, value):
        self._lr = _check_positive(value, "lr", type(self).__name__)

    def zero_grad(self):
        # backward() *adds* to a leaf's grad, so each step must start from 0.
        zero_grads(self.params)

    def _stepped(self):
        """(index, parameter) for every parameter with a gradient to follow.

        A Tensor the loss did not use has no gradient (None) and keeps its value.
        """
        return [(i, p) for i, p in enumerate(self.params) if p.grad is not None]

    def step(self):
        raise NotImplementedError(f"{type(self).__name__} must define step()")

    def __repr__(self):
        return f"{type(self).__name__}({len(self.params)} parameters, lr={self.lr:g})"


class SGD(Optimizer):
    """Gradient descent, optionally with momentum (the same rule as torch.optim.SGD).

    Without momentum:  p -= lr * g
    With momentum mu:  v = mu * v + g;  p -= lr * v

    The velocity v is a running sum of past gradients, each one worth mu
    times less per step of age. Where successive gradients agree, v grows
    (up to g / (1 - mu), ten times g for mu = 0.9), so momentum speeds along
    a valley. It does not necessarily damp the zig-zag across one: on a
    quadratic bowl, every direction where the rate is large enough to
    oscillate shrinks by sqrt(mu) per step, which can be slower than plain
    descent (chapter 10: 0.949 against 0.900 per step across its valley).
    """

    def __init__(self, params, lr=0.001, momentum=0.0):
        super().__init__(params, lr)
        self.momentum = _check_fraction(momentum, "momentum", "SGD")
        self.velocity = [0.0] * len(self.params)

    def step(self):
        mu = self.momentum
        for i, p in self._stepped():
            if mu:
                self.velocity[i] = _decay_and_add(self.velocity[i], mu, p.grad)
                p.data -= self.lr * self.velocity[i]
            else:  # plain descent: the velocity would be the gradient, so no copy of it is kept
                p.data -= self.lr * p.grad

    def __repr__(self):
        return f"SGD({len(self.params)} parameters, lr={self.lr:g}, momentum={self.momentum:g})"


class Adagrad(Optimizer):
    """AdaGrad (Duchi et al., 2011), the same rule as torch.optim.Adagrad.

        s = s + g**2                       every squared gradient so far, summed
        p -= lr * g / (sqrt(s) + eps)

    A parameter with large gradients gets small steps and one with small
    gradients large steps. But s only grows, so every step shrinks for ever.
    """

    def __init__(self, params, lr=0.01, eps=1e-10):
        super().__init__(params, lr)
        self.eps = _check_positive(eps, "eps", "Adagrad", allow_zero=True)
        self.sum_sq = [0.0] * len(self.params)

    def step(self):
        for i, p in self._stepped():
            self.sum_sq[i] += p.grad * p.grad
            p.data -= self.lr * p.grad / (_sqrt(self.sum_sq[i]) + self.eps)


class RMSprop(Optimizer):
    """RMSProp (Hinton, 2012), the same rule as torch.optim.RMSprop (no momentum).

        v = alpha * v + (1 - alpha) * g**2   a running mean of squared gradients
        p -= lr * g / (sqrt(v) + eps)

    AdaGrad with a memory that fades: old gradients stop counting, so the
    step size follows the gradient's recent size instead of shrinking for ever.
    """

    def __init__(self, params, lr=0.01, alpha=0.99, eps=1e-8):
        super().__init__(params, lr)
        self.alpha = _check_fraction(alpha, "alpha", "RMSprop")
        self.eps = _check_positive(eps, "eps", "RMSprop", allow_zero=True)
        self.v = [0.0] * len(self.params)

    def step(self):
        a = self.alpha
        for i, p in self._stepped():
            self.v[i] = a * self.v[i] + (1 - a) * p.grad * p.grad
            p.data -= self.lr * p.grad / (_sqrt(self.v[i]) + self.eps)


class Adam(Optimizer):
    """Adam (Kingma and Ba, 2015), the same rule as torch.optim.Adam.

    For every parameter it keeps two running averages:
        m = beta1 * m + (1 - beta1) * g        the mean gradient (direction)
        v = beta2 * v + (1 - beta2) * g**2     the mean squared gradient (size)
    and steps by  lr * m_hat / (sqrt(v_hat) + eps).

    Dividing by sqrt(v) makes the step about lr in size whatever the
    gradient's scale, so a parameter with tiny gradients moves as fast as
    one with huge gradients. m and v start at 0, which biases them towards
    0 early on; dividing by (1 - beta**t) after t steps removes that bias.

    weight_decay adds weight_decay * p to the gradient (an L2 term in the
    loss), as torch.optim.Adam does; that pull then gets divided by sqrt(v)
    like the rest of the gradient. AdamW below decays the weights directly.
    """

    def __init__(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, lr)
        who = type(self).__name__
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise ValueError(f"{who} needs betas as a pair (beta1, beta2), got {betas!r}")
        self.beta1 = _check_fraction(betas[0], "betas[0]", who)
        self.beta2 = _check_fraction(betas[1], "betas[1]", who)
        self.eps = _check_positive(eps, "eps", who, allow_zero=True)
        self.weight_decay = _check_positive(weight_decay, "weight_decay", who, allow_zero=True)
        self.t = 0  # steps taken so far, for the bias correction
        self.m = [0.0] * len(self.params)
        self.v = [0.0] * len(self.params)

    def _gradient(self, p):
        """The gradient Adam averages: with L2, the loss's gradient plus weight_decay * p."""
        return p.grad + self.weight_decay * p.data

    def step(self):
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        # After t steps, m is (1 - b1**t) times too small on average: undo it.
        correction1 = 1 - b1**self.t
        correction2 = 1 - b2**self.t
        for i, p in self._stepped():
            g = self._gradient(p)
            self.m[i] = b1 * self.m[i] + (1 - b1) * g
            self.v[i] = b2 * self.v[i] + (1 - b2) * g * g
            m_hat = self.m[i] / correction1
            v_hat = self.v[i] / correction2
            # eps keeps the division finite when a gradient has been 0 throughout.
            p.data -= self.lr * m_hat / (_sqrt(v_hat) + self.eps)

    def __repr__(self):
        decay = f", weight_decay={self.weight_decay:g}" if self.weight_decay else ""
        return (
            f"{type(self).__name__}({len(self.params)} parameters, lr={self.lr:g}, "
            f"betas=({self.beta1:g}, {self.beta2:g}), eps={self.eps:g}{decay})"
        )


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov and Hutter, 2019), as torch.optim.AdamW.

    Before the Adam step every weight shrinks by the factor (1 - lr * weight_decay),
    whatever its gradient history: the decay is not divided by sqrt(v), so
    every weight is pulled towards 0 at the same relative speed.
    """

    def __init__(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        super().__init__(params, lr, betas, eps, weight_decay)

    def _gradient(self, p):
        return p.grad  # the decay is applied to the weight itself, in step()

    def step(self):
        for _, p in self._stepped():
            p.data *= 1 - self.lr * self.weight_decay
        super().step()


def _decay_and_add(memory, decay, new):
    """decay * memory + new: in place once memory is an array (no new array every step)."""
    if isinstance(memory, ARRAY_TYPES):
        memory *= decay
        memory += new
        return memory
    return decay * memory + new  # a float; or, at a Tensor's first step, a new array of its own


def _sqrt(x):
    """The square root of a float (math's, as the scalar rules always took) or of an array."""
    return np.sqrt(x) if isinstance(x, ARRAY_TYPES) else math.sqrt(x)


# ---- input checks: a wrong argument should say what was wrong ----


def _check_params(params, who):
    if isinstance(params, PARAMETER_TYPES):
        kind = type(params).__name__
        raise TypeError(f"{who} needs a list of parameters, got a single {kind}; pass [p] instead")
    if hasattr(params, "parameters") and not isinstance(params, (list, tuple)):
        raise TypeError(
            f"{who} needs a list of parameters, but got the {type(params).__name__} itself; "
            f"pass model.parameters() instead"
        )
    try:
        params = list(params)
    except TypeError:
        raise TypeError(
            f"{who} needs a list of Value or Tensor parameters, got {type(params).__name__}: {params!r}"
        ) from None
    if not params:
        raise ValueError(f"{who} got an empty parameter list: there is nothing to optimise")
    seen = set()
    for i, p in enumerate(params):
        if not isinstance(p, PARAMETER_TYPES):
            raise TypeError(
                f"{who} needs Value or Tensor parameters, but item {i} is {type(p).__name__}: {p!r} "
                f"(only those have a .grad to follow)"
            )
        if not isinstance(p, Value) and not p.requires_grad:  # a Tensor
            raise TypeError(f"{who} needs tensors with requires_grad=True; item {i}, {p!r}, is not")
        if id(p) in seen:
            raise ValueError(f"{who}: item {i} ({p!r}) appears twice; it would be updated twice per step")
        seen.add(id(p))
    return params


def _is_real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _check_positive(x, name, who, allow_zero=False):
    ok = _is_real(x) and (x >= 0 if allow_zero else x > 0)
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{who} needs {name} {bound} (a finite number), got {type(x).__name__}: {x!r}")
    return float(x)


def _check_fraction(x, name, who):
    if not (_is_real(x) and 0 <= x < 1):
        raise ValueError(f"{who} needs 0 <= {name} < 1, got {type(x).__name__}: {x!r}")
    return float(x)
