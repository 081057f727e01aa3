"""Numerical derivatives, and a check of autograd against them.

A derivative is what a small nudge does: (f(x + h) - f(x)) / h. The
*central* difference (f(x + h) - f(x - h)) / 2h is far more accurate for
the same h, so it is what the checks use.
"""

import random

from .engine import Value


def forward_difference(f, x, h=1e-6):
    """(f(x + h) - f(x)) / h: error shrinks like h."""
    return (f(x + h) - f(x)) / h


def central_difference(f, x, h=1e-6):
    """(f(x + h) - f(x - h)) / 2h: error shrinks like h squared."""
    return (f(x + h) - f(x - h)) / (2 * h)


def numerical_gradient(f, inputs, h=1e-6):
    """Central-difference partial derivatives of f(*inputs) -> float, one per input."""
    inputs = [float(x) for x in inputs]
    grads = []
    for i in range(len(inputs)):

        def f_i(xi, i=i):
            nudged = list(inputs)
            nudged[i] = xi
            return f(*nudged)

        grads.append(central_difference(f_i, inputs[i], h))
    return grads


class GradCheckResult:
    """One row per input: autograd's gradient, the numerical one, and how far apart."""

    def __init__(self, names, autograd, numeric, atol, rtol):
        self.names, self.autograd, self.numeric = names, autograd, numeric
        self.errors = [abs(a - n) for a, n in zip(autograd, numeric)]
        # |a - n| / max(|a|, |n|): scale-free, so rows of very different sizes compare;
        # the floor atol keeps a gradient of exactly 0 from dividing by zero.
        self.rel_errors = [e / max(abs(a), abs(n), atol) for e, a, n in zip(self.errors, autograd, numeric)]
        self.passed = [e <= atol + rtol * abs(n) for e, n in zip(self.errors, numeric)]
        self.ok = all(self.passed)
        self.max_error = max(self.errors, default=0.0)
        self.max_rel_error = max(self.rel_errors, default=0.0)

    def __bool__(self):
        return self.ok

    def rows(self):
        return list(zip(self.names, self.autograd, self.numeric, self.errors, self.passed))

    def __str__(self):
        lines = [f"{'input':>8} {'autograd':>12} {'numeric':>12} {'error':>9}  ok"]
        for name, a, n, e, ok in self.rows():
            lines.append(f"{name:>8} {a:12.6f} {n:12.6f} {e:9.1e}  {'yes' if ok else 'NO'}")
        return "\n".join(lines)

    def __repr__(self):
        verdict = "passed" if self.ok else "FAILED"
        inputs = f"{len(self.names)} input" + ("s" if len(self.names) != 1 else "")
        return f"<gradcheck {verdict}: {inputs}, max error {self.max_error:.1e}>"


def gradcheck(f, inputs, names=None, h=1e-6, atol=1e-6, rtol=1e-4):
    """Compare autograd with central differences for f(*Values) -> Value.

    >>> r = gradcheck(lambda a, b: a * b + a, [2.0, 3.0])
    >>> r.ok
    True
    """
    inputs = [float(x) for x in inputs]
    names = list(names) if names is not None else [f"x{i}" for i in range(len(inputs))]
    if len(names) != len(inputs):
        raise ValueError(f"got {len(names)} names for {len(inputs)} inputs")

    leaves = [Value(x, label=name) for x, name in zip(inputs, names)]
    out = f(*leaves)
    if not isinstance(out, Value):
        raise TypeError(f"gradcheck needs f to return a Value, got {type(out).__name__}")
    out.backward()
    autograd = [leaf.grad for leaf in leaves]

    numeric = numerical_gradient(lambda *xs: f(*[Value(x) for x in xs]).data, inputs, h)
    return GradCheckResult(names, autograd, numeric, atol, rtol)


def gradcheck_parameters(loss_fn, params, sample=None, seed=0, h=1e-6, atol=1e-6, rtol=1e-4):
    """Check a whole model: autograd's gradient of loss_fn() -> Value against nudging each parameter.

    `params` are the model's leaf Values (e.g. model.parameters()); each one is
    nudged in place and put back exactly. `sample` checks only that many of
    them, picked at random with `seed`, since each needs two forward passes.
    The result has one row per checked parameter, named by its index, and a
    relative error per row (`rel_errors`).
    """
    params = list(params)
    if not all(isinstance(p, Value) for p in params):
        raise TypeError("gradcheck_parameters needs a list of Values, e.g. model.parameters()")
    indices = list(range(len(params)))
    if sample is not None:
        if not 0 < sample <= len(params):
            raise ValueError(f"sample must be between 1 and {len(params)}, got {sample!r}")
        indices = sorted(random.Random(seed).sample(indices, sample))

    loss = loss_fn()
    if not isinstance(loss, Value):
        raise TypeError(f"gradcheck_parameters needs loss_fn to return a Value, got {type(loss).__name__}")
    for p in params:
        p.grad = 0.0
    loss.backward()
    autograd = [params[i].grad for i in indices]

    numeric = []
    for i in indices:
        p, original = params[i], params[i].data
        p.data = original + h
        up = loss_fn().data
        p.data = original - h
        down = loss_fn().data
        p.data = original  # put it back exactly
        numeric.append((up - down) / (2 * h))
    return GradCheckResult([f"p{i}" for i in indices], autograd, numeric, atol, rtol)
