"""A tensor reverse-mode autodiff engine: the `Value` idea over NumPy arrays.

A `Tensor` holds a float64 array. Every operation makes a new `Tensor` that
remembers its inputs (`_prev`) and, for each input, a rule that turns the
output's gradient into that input's share of it (`_rules`):

    input.grad += rule(output.grad)    e.g. for a * b, a's rule is  g -> g * b

A rule keeps the input *arrays* it needs, never the output tensor, so a graph
has no reference cycle and Python frees it the moment the last reference goes.

Two rules are new compared with scalars:

- a matrix product's gradients need transposes (`dA = dC @ B.T`, `dB = A.T @ dC`);
- when NumPy *broadcasts* an input (stretches it along an axis, or adds axes in
  front), the input was used many times, so its gradient is the sum over the
  stretched axes, brought back to the input's own shape.

Chapter 11 builds this class on screen; chapter 12 races it against the scalar
engine. Layers, the tensor MLP and the losses are in `tensor_nn`; the optimisers
in `optim` serve Values and Tensors alike.
"""

import numbers

import numpy as np

from .engine import RULES, grad_mode, power_rule
from .graph import backward_pass, topological_order


def _as_array(data):
    """data as a float64 array, or a TypeError that names what was given."""
    if type(data) is np.ndarray and data.dtype == np.float64:  # every op's result: checked first, fast
        return data
    if isinstance(data, Tensor):
        raise TypeError("Tensor(data) needs numbers or an array, got a Tensor; use it directly")
    if data is None or isinstance(data, (bool, np.bool_)):  # NumPy would make them nan and 1.0
        raise TypeError(f"Tensor(data) needs real numbers, got {data!r}")
    if np.iscomplexobj(data):  # NumPy would drop the imaginary part with only a warning
        raise TypeError(f"Tensor(data) needs real numbers, got complex: {data!r}")
    try:
        array = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"Tensor(data) needs real numbers or an array of them, got {type(data).__name__}: {data!r}"
        ) from None
    return array


def _unbroadcast(grad, shape):
    """Sum `grad` back to `shape`: the gradient rule for a broadcast input."""
    if grad.shape == shape:
        return grad
    # Broadcasting put extra axes in front: the input was reused along each of them.
    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    # And it stretched axes of length 1: the input was reused along those too.
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


class Tensor:
    """An array that remembers how it was computed, so it can backpropagate."""

    __array_priority__ = 1000  # `ndarray + Tensor` calls our __radd__, not NumPy's elementwise loop

    def __init__(self, data, requires_grad=False, _children=(), _op="", _rules=()):
        self.data = _as_array(data)
        if not _op and self.data is data:  # a leaf gets its own copy: training must not
            self.data = data.copy()  # change the caller's array behind their back
        self.grad = None  # d(output)/d(self), the shape of data, filled in by backward()
        self.requires_grad = bool(requires_grad)
        self._prev = tuple(_children)
        self._op = _op
        self._rules = _rules  # one per input: output gradient -> that input's share

    @property
    def shape(self):
        return self.data.shape

    def __repr__(self):
        flag = ", requires_grad=True" if self.requires_grad else ""
        return f"Tensor(shape={self.shape}{flag})"

    def _result(self, data, inputs, op, *rules):
        """A new tensor computed from `inputs`, with a backward rule per input if it is recorded."""
        if not _records(inputs):
            return Tensor(data, _op=op)
        return Tensor(data, True, inputs, op, rules)

    def _elementwise(self, data, inputs, op, rule=None):
        """A result whose rules come from the scalar engine's table: input.grad += slope * g."""
        if not _records(inputs):
            return Tensor(data, _op=op)
        slopes = (rule or RULES[op])(data, *(t.data for t in inputs))
        return Tensor(data, True, inputs, op, tuple(_times(slope) for slope in slopes))

    # ---- elementwise arithmetic, with broadcasting ----

    def __add__(self, other):
        other = _as_tensor(other)
        return self._elementwise(_broadcast("add", self, other, np.add), (self, other), "+")

    def __sub__(self, other):
        other = _as_tensor(other)
        return self._elementwise(_broadcast("subtract", self, other, np.subtract), (self, other), "-")

    def __mul__(self, other):
        other = _as_tensor(other)
        return self._elementwise(_broadcast("multiply", self, other, np.multiply), (self, other), "*")

    def __truediv__(self, other):
        other = _as_tensor(other)
        return self._elementwise(_broadcast("divide", self, other, np.divide), (self, other), "/")

    def __pow__(self, exponent):
        if not isinstance(exponent, numbers.Real) or isinstance(exponent, bool):
            raise TypeError(f"Tensor ** n needs a real number n, got {type(exponent).__name__}: {exponent!r}")
        if exponent != int(exponent) and np.any(self.data < 0):
            raise ValueError(
                f"Tensor ** {exponent:g} of a negative number is not real; min is {self.data.min():g}"
            )
        return self._elementwise(self.data**exponent, (self,), f"**{exponent:g}", power_rule(float(exponent)))

    def __neg__(self):
        return self * -1.0

    def __radd__(self, other):
        return _as_tensor(other) + self

    def __rsub__(self, other):
        return _as_tensor(other) - self

    def __rmul__(self, other):
        return _as_tensor(other) * self

    def __rtruediv__(self, other):
        return _as_tensor(other) / self

    # ---- the matrix product, with NumPy's rules ----

    def __matmul__(self, other):
        """NumPy's `@`: matrices, a vector on either side, and stacks of matrices (broadcast)."""
        other = _as_tensor(other)
        a, b = self.data, other.data
        if a.ndim == 0 or b.ndim == 0:
            raise ValueError(
                f"matmul (@) needs at least one axis on each side, got shapes {a.shape} and {b.shape}"
            )
        inner, where = (b.shape[0], "only axis") if b.ndim == 1 else (b.shape[-2], "second-to-last axis")
        if a.shape[-1] != inner:
            raise ValueError(
                f"matmul (@) of shapes {a.shape} and {b.shape}: the left's last axis "
                f"({a.shape[-1]}) must match the right's {where} ({inner})"
            )
        try:
            data = a @ b
        except ValueError:
            raise ValueError(
                f"matmul (@) of shapes {self.shape} and {other.shape}: the stacks of matrices "
                f"({self.shape[:-2]} and {other.shape[:-2]}) do not broadcast"
            ) from None
        if a.ndim == 2 and b.ndim == 2:  # the common case, (m, n) @ (n, p), without reshaping
            return self._result(data, (self, other), "@", lambda g: g @ b.T, lambda g: a.T @ g)
        # A vector is a matrix with one row (on the left) or one column (on the right), whose
        # extra axis the result drops; the rules put it back, then take it away again.
        a2 = a[np.newaxis, :] if a.ndim == 1 else a
        b2 = b[:, np.newaxis] if b.ndim == 1 else b

        def as_matrices(g):
            g = g[..., np.newaxis] if b.ndim == 1 else g
            return g[..., np.newaxis, :] if a.ndim == 1 else g

        def rule_a(g):  # dA = G @ B^T for each matrix of the stack, summed over broadcast copies
            return _unbroadcast(as_matrices(g) @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)

        def rule_b(g):  # dB = A^T @ G likewise
            return _unbroadcast(np.swapaxes(a2, -1, -2) @ as_matrices(g), b2.shape).reshape(b.shape)

        return self._result(data, (self, other), "@", rule_a, rule_b)

    def __rmatmul__(self, other):
        return _as_tensor(other) @ self

    # ---- elementwise functions ----

    def relu(self):
        return self._elementwise(np.maximum(self.data, 0.0), (self,), "relu", RULES["ReLU"])

    def sigmoid(self):
        # 1 / (1 + e^-x) written as (1 + tanh(x / 2)) / 2, which never overflows.
        return self._elementwise(0.5 * (1.0 + np.tanh(0.5 * self.data)), (self,), "sigmoid")

    def tanh(self):
        return self._elementwise(np.tanh(self.data), (self,), "tanh")

    def exp(self):
        return self._elementwise(np.exp(self.data), (self,), "exp")

    def log(self):
        a = self.data
        if np.any(a <= 0):
            raise ValueError(f"log needs positive numbers; this {self.shape} tensor has {a.min():g}")
        return self._elementwise(np.log(a), (self,), "log")

    # ---- reductions and shapes ----

    def sum(self, axis=None, keepdims=False):
        shape = self.shape

        def rule(g):
            # Every summed element gets the whole gradient of its sum: put the
            # summed axes back (length 1), then stretch them to the input's shape.
            g = g if keepdims or axis is None else np.expand_dims(g, axis)
            return np.broadcast_to(g, shape)

        return self._result(self.data.sum(axis=axis, keepdims=keepdims), (self,), "sum", rule)

    def mean(self, axis=None, keepdims=False):
        total = self.sum(axis=axis, keepdims=keepdims)
        return total * (total.data.size / self.data.size)  # divide by how many were summed

    def reshape(self, *shape):
        old = self.shape
        return self._result(self.data.reshape(*shape), (self,), "reshape", lambda g: g.reshape(old))

    @property
    def T(self):
        return self._result(self.data.T, (self,), "T", _transpose)  # its rule: transpose back

    # ---- backpropagation ----

    def backward(self, gradient=None):
        """Fill in `.grad` of every tensor in the graph that requires one.

        A loss is one number, so its own gradient is 1. For a larger tensor,
        pass `gradient` (the same shape): d(some loss)/d(this tensor).
        Leaves accumulate across calls, as in PyTorch; other tensors start afresh.
        """
        if not self.requires_grad:
            raise RuntimeError("backward(): no tensor in this graph has requires_grad=True")
        if gradient is None:
            if self.data.size != 1:
                raise ValueError(
                    f"backward() without a gradient needs a one-element result such as a loss, "
                    f"but this tensor has shape {self.shape}; reduce it first (e.g. .sum()) "
                    f"or pass backward(gradient=...) of shape {self.shape}"
                )
            gradient = np.ones_like(self.data)
        else:
            gradient = np.array(_as_array(gradient))  # our own copy: the caller keeps theirs
        if gradient.shape != self.shape:
            raise ValueError(f"backward(gradient) needs shape {self.shape}, got {gradient.shape}")
        grads = {self: gradient}
        for _ in backward_pass(self, grads):
            pass
        for node, g in grads.items():
            g = g if type(g) is np.ndarray else np.array(g)  # NumPy gives a 0-d result as a scalar
            if node._prev:
                node.grad = g  # an inner tensor's gradient starts afresh
            else:
                node._accumulate(g)

    def chain_rule(self, g, create_graph=False):
        """What this tensor sends to each input that needs a gradient, for its gradient g:
        [(input, None, share)], each share summed back to the input's shape (unbroadcast)."""
        if create_graph:
            raise NotImplementedError("a Tensor's derivatives are arrays: there is no create_graph")
        sends = []
        for child, rule in zip(self._prev, self._rules):
            if child.requires_grad:
                share = _unbroadcast(rule(g), child.shape)
                if type(share) is np.ndarray and (share is g or share.base is not None):
                    share = _shared(share, g)  # g passed on as it is, or a view of it
                sends.append((child, None, share))
        return sends

    def _accumulate(self, grad):
        """Add a leaf's gradient to what it has (as in PyTorch), in an array of its own, for the
        learner to change."""
        if self.grad is None and not grad.flags.writeable:  # shared with another tensor
            grad = grad.copy()
        if self.grad is None:
            self.grad = grad  # a freshly computed array belongs to no one else: kept, no copy
        elif self.grad.flags.writeable:
            self.grad += grad  # our own array: add in place, no new one
        else:
            self.grad = self.grad + grad

    def topological_order(self):
        """Every tensor of the graph, each one after all of its inputs."""
        return topological_order(self)


def _shared(share, g):
    """A share that is g or a view of it: both made read-only, so that no += on one tensor's
    gradient changes another's (a leaf copies it when it keeps it)."""
    if type(g) is np.ndarray:
        g.flags.writeable = False
    view = share.view()
    view.flags.writeable = False
    return view


def _records(inputs):
    """Whether a result of `inputs` is recorded: outside no_grad(), if an input needs a gradient."""
    return grad_mode.recording and any(t.requires_grad for t in inputs)


def _same(g):
    """The rule of an input that passes the gradient on unchanged (a + b, a - b for a)."""
    return g


def _times(slope):
    """The rule g -> slope * g; a constant slope of 1 or -1 passes g on, or its negative, with no product."""
    if type(slope) is float and slope in (1.0, -1.0):
        return _same if slope == 1.0 else np.negative
    return lambda g: slope * g


def _transpose(g):
    return g.T


def _as_tensor(x):
    """Wrap a number or an array as a constant tensor (no gradient wanted)."""
    return x if isinstance(x, Tensor) else Tensor(x)


def _broadcast(name, a, b, fn):
    """fn(a.data, b.data), or a ValueError that names the operation and both shapes."""
    try:
        return fn(a.data, b.data)
    except ValueError:
        raise ValueError(
            f"cannot {name} tensors of shapes {a.shape} and {b.shape}: they do not broadcast"
        ) from None
