"""Layers, the tensor MLP and the losses, built from `Tensor`s: the tensor twin of `nn`.

`Linear` and `MLP` are `nn.Module`s, like the scalar `Neuron`, `Layer` and `MLP`:
`parameters()` lists their tensors and `zero_grad()` clears their gradients, so the
optimisers of `optim` train either kind of network. Weights start from NumPy's
seeded generator (`seed=`), so a network is reproducible without a global seed.
"""

import math

import numpy as np

from .nn import Module
from .tensor import Tensor, _as_tensor


class Linear(Module):
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


class MLP(Module):
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

    def __repr__(self):
        return f"MLP({', '.join(repr(layer) for layer in self.layers)}, activation={self.activation!r})"


# ---- losses ----


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
