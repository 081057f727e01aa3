"""A tensor reverse-mode autodiff engine: the `Value` idea over NumPy arrays.

A `Tensor` holds a float64 array. Every operation makes a new `Tensor` that
remembers its inputs (`_prev`) and a `_backward` function that applies the
chain rule for that operation to whole arrays at once:

    input.grad += (how the output depends on input)^T applied to output.grad

Two rules are new compared with scalars:

- a matrix product's gradients need transposes (`dA = dC @ B.T`, `dB = A.T @ dC`);
- when NumPy *broadcasts* an input (stretches it along an axis, or adds axes in
  front), the input was used many times, so its gradient is the sum over the
  stretched axes, brought back to the input's own shape.

Chapter 11 builds this class on screen; chapter 12 races it against the scalar
engine and trains a digit classifier with it.
"""

import math
import numbers

import numpy as np


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

    def __init__(self, data, requires_grad=False, _children=(), _op=""):
        self.data = _as_array(data)
        if not _children and self.data is data:  # a leaf gets its own copy: training must not
            self.data = data.copy()  # change the caller's array behind their back
        self.grad = None  # d(output)/d(self), the shape of data, filled in by backward()
        self.requires_grad = bool(requires_grad)
        self._prev = tuple(_children)
        self._op = _op
        self._backward = _nothing

    @property
    def shape(self):
        return self.data.shape

    def __repr__(self):
        flag = ", requires_grad=True" if self.requires_grad else ""
        return f"Tensor(shape={self.shape}{flag})"

    # ---- making results and passing gradients ----

    def _result(self, data, children, op):
        """A new tensor computed from `children`; it needs a gradient if any child does."""
        return Tensor(data, any(c.requires_grad for c in children), children, op)

    def _accumulate(self, grad):
        """Add a gradient contribution, summed back to this tensor's shape."""
        if not self.requires_grad:
            return
        grad = _unbroadcast(grad, self.shape)
        # A fresh array the first time, so no two tensors ever share one grad array.
        self.grad = np.array(grad) if self.grad is None else self.grad + grad

    # ---- elementwise arithmetic, with broadcasting ----

    def __add__(self, other):
        other = _as_tensor(other)
        out = self._result(_broadcast("add", self, other, np.add), (self, other), "+")

        def _backward():
            self._accumulate(out.grad)
            other._accumulate(out.grad)

        out._backward = _backward
        return out

    def __sub__(self, other):
        other = _as_tensor(other)
        out = self._result(_broadcast("subtract", self, other, np.subtract), (self, other), "-")

        def _backward():
            self._accumulate(out.grad)
            other._accumulate(-out.grad)

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = _as_tensor(other)
        out = self._result(_broadcast("multiply", self, other, np.multiply), (self, other), "*")

        def _backward():
            self._accumulate(other.data * out.grad)
            other._accumulate(self.data * out.grad)

        out._backward = _backward
        return out

    def __truediv__(self, other):
        other = _as_tensor(other)
        out = self._result(_broadcast("divide", self, other, np.divide), (self, other), "/")

        def _backward():
            self._accumulate(out.grad / other.data)
            other._accumulate(-out.grad * self.data / other.data**2)

        out._backward = _backward
        return out

    def __pow__(self, exponent):
        if not isinstance(exponent, numbers.Real) or isinstance(exponent, bool):
            raise TypeError(f"Tensor ** n needs a real number n, got {type(exponent).__name__}: {exponent!r}")
        if exponent != int(exponent) and np.any(self.data < 0):
            raise ValueError(
                f"Tensor ** {exponent:g} of a negative number is not real; min is {self.data.min():g}"
            )
        out = self._result(self.data**exponent, (self,), f"**{exponent:g}")

        def _backward():
            # n * x**(n-1); for n = 0 that is 0 everywhere (0 * 0**-1 would make nan at x = 0)
            slope = exponent * self.data ** (exponent - 1) if exponent else np.zeros_like(self.data)
            self._accumulate(slope * out.grad)

        out._backward = _backward
        return out

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

    # ---- the matrix product ----

    def __matmul__(self, other):
        other = _as_tensor(other)
        if self.data.ndim != 2 or other.data.ndim != 2 or self.shape[1] != other.shape[0]:
            raise ValueError(
                f"matmul (@) needs matrices (m, n) @ (n, p), got shapes {self.shape} and {other.shape}"
            )
        out = self._result(self.data @ other.data, (self, other), "@")

        def _backward():
            # C = A @ B: each C[i, j] used row i of A and column j of B.
            self._accumulate(out.grad @ other.data.T)  # (m, p) @ (p, n) -> (m, n), A's shape
            other._accumulate(self.data.T @ out.grad)  # (n, m) @ (m, p) -> (n, p), B's shape

        out._backward = _backward
        return out

    def __rmatmul__(self, other):
        return _as_tensor(other) @ self

    # ---- elementwise functions ----

    def relu(self):
        out = self._result(np.maximum(self.data, 0.0), (self,), "relu")

        def _backward():
            self._accumulate((self.data > 0) * out.grad)  # slope 1 right of 0, else 0

        out._backward = _backward
        return out

    def sigmoid(self):
        # 1 / (1 + e^-x) written as (1 + tanh(x / 2)) / 2, which never overflows.
        out = self._result(0.5 * (1.0 + np.tanh(0.5 * self.data)), (self,), "sigmoid")

        def _backward():
            self._accumulate(out.data * (1.0 - out.data) * out.grad)

        out._backward = _backward
        return out

    def tanh(self):
        out = self._result(np.tanh(self.data), (self,), "tanh")

        def _backward():
            self._accumulate((1.0 - out.data**2) * out.grad)

        out._backward = _backward
        return out

    def exp(self):
        out = self._result(np.exp(self.data), (self,), "exp")

        def _backward():
            self._accumulate(out.data * out.grad)  # e^x is its own derivative

        out._backward = _backward
        return out

    def log(self):
        if np.any(self.data <= 0):
            raise ValueError(f"log needs positive numbers; this {self.shape} tensor has {self.data.min():g}")
        out = self._result(np.log(self.data), (self,), "log")

        def _backward():
            self._accumulate(out.grad / self.data)

        out._backward = _backward
        return out

    # ---- reductions and shapes ----

    def sum(self, axis=None, keepdims=False):
        out = self._result(self.data.sum(axis=axis, keepdims=keepdims), (self,), "sum")

        def _backward():
            # Every summed element gets the whole gradient of its sum: put the
            # summed axes back (length 1), then stretch them to the input's shape.
            grad = out.grad if keepdims or axis is None else np.expand_dims(out.grad, axis)
            self._accumulate(np.broadcast_to(grad, self.shape))

        out._backward = _backward
        return out

    def mean(self, axis=None, keepdims=False):
        total = self.sum(axis=axis, keepdims=keepdims)
        return total * (total.data.size / self.data.size)  # divide by how many were summed

    def reshape(self, *shape):
        out = self._result(self.data.reshape(*shape), (self,), "reshape")

        def _backward():
            self._accumulate(out.grad.reshape(self.shape))

        out._backward = _backward
        return out

    @property
    def T(self):
        out = self._result(self.data.T, (self,), "T")

        def _backward():
            self._accumulate(out.grad.T)  # transposing twice gives the original layout

        out._backward = _backward
        return out

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
        gradient = _as_array(gradient)
        if gradient.shape != self.shape:
            raise ValueError(f"backward(gradient) needs shape {self.shape}, got {gradient.shape}")
        order = self.topological_order()
        for node in order:
            if node._prev:
                node.grad = None
        self._accumulate(gradient)
        for node in reversed(order):
            if node.grad is not None:
                node._backward()

    def topological_order(self):
        """Every tensor of the graph, each one after all of its inputs (iterative, no recursion)."""
        order, visited = [], set()
        stack = [(self, False)]
        while stack:
            node, inputs_done = stack.pop()
            if inputs_done:
                order.append(node)
            elif node not in visited:
                visited.add(node)
                stack.append((node, True))
                stack.extend((child, False) for child in reversed(node._prev) if child not in visited)
        return order


def _nothing():
    """The backward of a leaf: it has no inputs to pass a gradient to."""


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


# ---- building blocks for networks ----


class Linear:
    """x @ W + b for a batch of rows x: W has shape (nin, nout), b has shape (nout,)."""

    def __init__(self, nin, nout, rng=None):
        for name, n in (("nin", nin), ("nout", nout)):
            if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
                raise ValueError(f"Linear needs a positive whole number {name}, got {n!r}")
        rng = np.random.default_rng(0) if rng is None else rng
        # Uniform in +-1/sqrt(nin), PyTorch's default bound: sums of nin terms stay near 1 in size.
        bound = 1.0 / math.sqrt(nin)
        self.W = Tensor(rng.uniform(-bound, bound, size=(nin, nout)), requires_grad=True)
        self.b = Tensor(np.zeros(nout), requires_grad=True)

    def __call__(self, x):
        x = _as_tensor(x)
        if x.data.ndim != 2 or x.shape[1] != self.W.shape[0]:
            nin = self.W.shape[0]
            raise ValueError(f"this Linear takes rows of {nin} numbers, shape (batch, {nin}); got {x.shape}")
        return x @ self.W + self.b  # b broadcasts over the rows

    def parameters(self):
        return [self.W, self.b]

    def __repr__(self):
        return f"Linear({self.W.shape[0]}, {self.W.shape[1]})"


class MLP:
    """Linear layers with an activation between them; the last layer is linear.

    `MLP(2, [16, 16, 1])` is the tensor twin of the scalar `nn.MLP(2, [16, 16, 1])`:
    it maps a (batch, 2) input to a (batch, 1) output.
    """

    def __init__(self, nin, nouts, activation="relu", seed=0):
        if activation not in ("relu", "tanh", "sigmoid"):
            raise ValueError(f"activation must be 'relu', 'tanh' or 'sigmoid', got {activation!r}")
        rng = np.random.default_rng(seed)
        sizes = [nin] + list(nouts)
        self.layers = [Linear(a, b, rng) for a, b in zip(sizes, sizes[1:])]
        self.activation = activation

    @classmethod
    def from_scalar(cls, model):
        """A tensor MLP with exactly the weights of a scalar `nn.MLP` (so both compute the same)."""
        nin = len(model.layers[0].neurons[0].w)
        activation = next(n.activation for n in model.layers[0].neurons)
        if activation == "linear":
            activation = "relu"  # a one-layer MLP has no hidden activation to copy
        twin = cls(nin, [len(layer.neurons) for layer in model.layers], activation=activation)
        for ours, theirs in zip(twin.layers, model.layers):
            # The scalar layer keeps one row of weights per neuron, (nout, nin); W is (nin, nout).
            ours.W.data[...] = np.array([[w.data for w in n.w] for n in theirs.neurons]).T
            ours.b.data[...] = [n.b.data for n in theirs.neurons]
        return twin

    def __call__(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = getattr(x, self.activation)()
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def __repr__(self):
        return f"MLP({', '.join(repr(layer) for layer in self.layers)}, activation={self.activation!r})"


def log_softmax(logits):
    """log of softmax along the last axis, computed without overflow (log-sum-exp).

    Subtracting each row's maximum first changes nothing mathematically
    (softmax(z) = softmax(z - c)) but keeps every exp() at most 1.
    """
    if not isinstance(logits, Tensor):
        raise TypeError(
            f"log_softmax needs a Tensor of logits, got {type(logits).__name__}; wrap it: Tensor(...)"
        )
    shifted = logits - logits.data.max(axis=-1, keepdims=True)  # a constant: no gradient through the max
    return shifted - shifted.exp().sum(axis=-1, keepdims=True).log()


def cross_entropy(logits, labels):
    """Mean softmax cross-entropy of (batch, classes) logits against integer labels 0..classes-1."""
    if not isinstance(logits, Tensor):
        raise TypeError(
            f"cross_entropy needs a Tensor of logits, got {type(logits).__name__}; wrap it: Tensor(...)"
        )
    labels = np.asarray(labels)
    if logits.data.ndim != 2 or labels.shape != (logits.shape[0],) or labels.size == 0:
        raise ValueError(
            f"cross_entropy needs logits of shape (batch, classes) and one label per row, batch >= 1; "
            f"got logits {logits.shape} and labels {labels.shape}"
        )
    if not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0 or labels.max() >= logits.shape[1]:
        raise ValueError(f"cross_entropy needs whole-number labels in 0..{logits.shape[1] - 1}, got {labels}")
    one_hot = np.eye(logits.shape[1])[labels]  # picks each row's true class out of the log-probabilities
    return -(log_softmax(logits) * one_hot).sum() * (1.0 / len(labels))


class SGD:
    """Gradient descent with momentum for tensors: the rule of `optim.SGD`, one array per parameter.

    v = momentum * v + grad;  p -= lr * v
    """

    def __init__(self, params, lr, momentum=0.0):
        self.params = list(params)
        bad = [i for i, p in enumerate(self.params) if not (isinstance(p, Tensor) and p.requires_grad)]
        if bad:
            raise TypeError(f"SGD needs tensors with requires_grad=True; item {bad[0]} is not")
        if not (isinstance(lr, numbers.Real) and lr > 0) or not (
            isinstance(momentum, numbers.Real) and 0 <= momentum < 1
        ):
            raise ValueError(f"SGD needs lr > 0 and 0 <= momentum < 1, got lr={lr!r}, momentum={momentum!r}")
        self.lr, self.momentum = lr, momentum
        self.velocity = [np.zeros_like(p.data) for p in self.params]

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        for p, v in zip(self.params, self.velocity):
            if p.grad is not None:  # a parameter the loss did not use keeps its value
                v *= self.momentum
                v += p.grad
                p.data -= self.lr * v
