"""Neurons, layers and multi-layer perceptrons built from `Value`s.

Weights start uniform in [-1, 1) from Python's `random` module, so
`random.seed(...)` before building a network makes it reproducible.
`Module` is shared with the tensor layers of `tensor_nn`.
"""

import random

from .engine import Value

ACTIVATIONS = ("relu", "tanh", "sigmoid", "linear")


class Module:
    """Anything with parameters: it can list them and zero their gradients."""

    def parameters(self):
        return []

    def zero_grad(self):
        # Leaves accumulate gradients across backward() calls, so every
        # training step starts by resetting them.
        zero_grads(self.parameters())


class Neuron(Module):
    """out = activation(w . x + b), with one weight per input."""

    def __init__(self, nin, nonlin=True, activation="relu"):
        if not isinstance(nin, int) or isinstance(nin, bool) or nin < 1:
            raise ValueError(f"a Neuron needs a positive whole number of inputs, got nin={nin!r}")
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
        # `nonlin` is a plain attribute, as in micrograd: set it to False and the
        # neuron is linear. `activation` names what the neuron applies, and stays
        # in step with `nonlin` whichever of the two is set.
        self._nonlinearity = "relu" if activation == "linear" else activation
        self.nonlin = nonlin and activation != "linear"

    @property
    def activation(self):
        return self._nonlinearity if self.nonlin else "linear"

    @activation.setter
    def activation(self, name):
        if name not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}, got {name!r}")
        self.nonlin = name != "linear"
        if self.nonlin:
            self._nonlinearity = name

    def __call__(self, x):
        x = _as_list(x)
        if len(x) != len(self.w):
            raise ValueError(f"this Neuron takes {len(self.w)} inputs, got {len(x)}")
        # Start the sum at b, so the bias is added without an extra node.
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return getattr(act, self._nonlinearity)() if self.nonlin else act

    def parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        kind = {"relu": "ReLU", "tanh": "Tanh", "sigmoid": "Sigmoid", "linear": "Linear"}
        return f"{kind[self.activation]}Neuron({len(self.w)})"


class Layer(Module):
    """`nout` neurons that all read the same inputs."""

    def __init__(self, nin, nout, **kwargs):
        if not isinstance(nout, int) or isinstance(nout, bool) or nout < 1:
            raise ValueError(f"a Layer needs a positive whole number of neurons, got nout={nout!r}")
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        x = _as_list(x)  # read a generator once, not once per neuron
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """A stack of layers; every layer is nonlinear except the last."""

    def __init__(self, nin, nouts, activation="relu"):
        sizes = [nin] + list(nouts)
        self.layers = [
            Layer(sizes[i], sizes[i + 1], nonlin=i != len(nouts) - 1, activation=activation)
            for i in range(len(nouts))
        ]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


def make_copies(net):
    """Make each layer's neurons of an MLP copies of its first one, with the same weight downstream.

    Then backward() hands every copy the same gradient, so they stay copies (chapters 7 and 8).
    """
    for i, layer in enumerate(net.layers):
        first = layer.neurons[0]
        if i > 0:  # it reads a layer of copies: the same weight on each of their outputs
            for wi in first.w:
                wi.data = first.w[0].data
        for other in layer.neurons[1:]:
            for p, p_first in zip(other.parameters(), first.parameters()):
                p.data = p_first.data


def zero_grads(params):
    """Reset gradients: a Value's to 0.0, any other parameter's (a Tensor's) to None, from which
    its next backward makes a fresh array."""
    for p in params:
        p.grad = 0.0 if isinstance(p, Value) else None


def _as_list(x):
    """Inputs as a list: one number or Value (a 1-neuron layer's output) becomes [x]."""
    if isinstance(x, (Value, int, float)):
        return [x]
    return list(x)
