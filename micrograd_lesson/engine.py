"""A scalar reverse-mode autodiff engine: the `Value` class, with micrograd's API.

Each operation on a `Value` makes a new `Value` that remembers its inputs (`_prev`),
the operation (`_op`), its derivative rule, and the *local derivatives* of the result
with respect to each input (`_local_grads`). `backward()` walks the graph from the
output back to the leaves, applying the chain rule at each node:
`input.grad += local_derivative * output.grad`. `chain_rule` says what one node sends
to its inputs; graph.backward_pass walks it for grad() (autograd.py) and the
step-through, while backward() keeps the same walk written out for floats, its hot path.
`no_grad()` switches the recording off, for this engine and the tensor engine; why the
code is shaped for speed is in benchmarks/README.md.
"""

import contextlib
import functools
import math
import numbers

from ._checks import check_power, checked_exp, input_slots, no_local_derivative, real_number, short
from .graph import topological_order


class GradMode:
    """Whether operations record a graph: the one switch that every engine reads."""

    recording = True  # False inside no_grad(): every result is then a leaf


grad_mode = GradMode()


@contextlib.contextmanager
def recording(on):
    """Record operations into a graph (on=True) or not, inside a `with` block; leaving the block,
    even by an exception, restores what was there before, so blocks nest."""
    before, grad_mode.recording = grad_mode.recording, on
    try:
        yield
    finally:
        grad_mode.recording = before


def no_grad():
    """Compute values without recording how: inside `with no_grad():` every result is a leaf.

    Use it where no gradient will be asked for (evaluating a trained model, updating
    weights): no inputs are kept, so each intermediate result is freed as soon as nothing
    else refers to it. It holds for Value and Tensor alike, as torch.no_grad does.
    """
    return recording(False)


# The derivative rules, one per operation: rule(out, a) or rule(out, a, b) gives the local
# derivative of the result `out` with respect to each input. A rule uses only arithmetic,
# so it runs on floats, on Values and on NumPy arrays alike: an operation evaluates it on
# the numbers and keeps the floats for backward(); grad(create_graph=True) evaluates it on
# the nodes, so the derivative is a graph too; and the tensor engine (tensor.py) evaluates
# it on arrays, so the two engines cannot disagree about a derivative.
RULES = {
    "+": lambda out, a, b: (1.0, 1.0),
    "-": lambda out, a, b: (1.0, -1.0),
    "*": lambda out, a, b: (b, a),  # each input is scaled by the other
    "/": lambda out, a, b: (1 / b, -out / b),  # -(a/b)/b, not -a/b**2: b**2 can underflow to 0
    "**": lambda out, a, b: (b * a ** (b - 1), out * (a.log() if isinstance(a, Value) else math.log(a))),
    "neg": lambda out, a: (-1.0,),
    "exp": lambda out, a: (out,),  # e^x is its own slope
    "log": lambda out, a: (1 / a,),
    "tanh": lambda out, a: (1 - out * out,),
    "sigmoid": lambda out, a: (out * (1 - out),),
    "ReLU": lambda out, a: ((_number(a) > 0) * 1.0,),  # 1 or 0 (at exactly 0 we pick 0), arrays too
}


@functools.cache  # one rule per exponent: a node then holds no object of its own besides itself
def power_rule(n):
    """The rule of x ** n for a plain number n (the power rule, n * x**(n-1)), made once per n."""

    def rule(out, x):
        if n == 0:
            return (0.0,)  # x**0 is the constant 1
        if n < 1 and isinstance(x, (float, Value)) and _number(x) == 0:
            return (None,)  # an infinite slope (an array gets inf there, as NumPy computes it)
        return (n * x ** (n - 1),)

    return rule


def _number(x):
    """The number in x, whether x is a Value or already a float."""
    return x.data if isinstance(x, Value) else x


class Value:
    """A scalar that remembers how it was computed, so it can backpropagate."""

    # Slots, not tuples, keep a node one object for the garbage collector. "__dict__" lets
    # code set `out._backward = ...` or a label; "__weakref__" lets a weak reference watch it.
    __slots__ = ("data", "grad", "_op", "_rule", "_a", "_b", "_da", "_db", "__dict__", "__weakref__")

    label = ""  # a class default: only a labelled node stores a label of its own

    def __init__(self, data, _children=(), _op="", label="", _local_grads=()):
        self.data = data if type(data) is float else real_number(data)
        self.grad = 0.0  # d(output)/d(self), filled in by backward()
        self._op = _op
        if label:
            self.label = label
        self._rule = self._a = self._b = self._da = self._db = None
        if _children:  # a node built by hand, micrograd's way: it records the inputs it is given,
            # even inside no_grad(), which stops the engine's own operations recording (see _node)
            self._a, self._b, self._da, self._db = input_slots(_op, _children, _local_grads)

    @property
    def _prev(self):
        """The inputs, in order: () for a leaf, (a,) or (a, b) for a result."""
        return tuple(x for x in (self._a, self._b) if x is not None)

    @property
    def _local_grads(self):
        """d(self)/d(input) for each input in `_prev`; () if none was given."""
        return () if self._da is None else (self._da, self._db)[: len(self._prev)]

    def __repr__(self):
        label = f", label={self.label!r}" if self.label else ""
        return f"Value(data={short(self.data)}, grad={short(self.grad)}{label})"

    # ---- arithmetic: each operation computes its result and names its rule ----
    # + and * make nearly every node of a network: each is _node() written out, the hot path.
    def __add__(self, other):
        if type(other) is not Value and (other := _as_value(other)) is NotImplemented:
            return other
        data = self.data + other.data
        if not grad_mode.recording:  # as in _node
            return Value(data)
        out = _new(Value)
        out.data, out.grad = data, 0.0
        out._op, out._rule, out._a, out._b = "+", _ADD, self, other
        out._da, out._db = _ADD(data, self.data, other.data)
        return out

    def __mul__(self, other):
        if type(other) is not Value and (other := _as_value(other)) is NotImplemented:
            return other
        data = self.data * other.data
        if not grad_mode.recording:  # as in _node
            return Value(data)
        out = _new(Value)
        out.data, out.grad = data, 0.0
        out._op, out._rule, out._a, out._b = "*", _MUL, self, other
        out._da, out._db = _MUL(data, self.data, other.data)
        return out

    def __sub__(self, other):
        other = _as_value(other)
        return other if other is NotImplemented else _node(self.data - other.data, "-", self, other)

    def __truediv__(self, other):
        other = _as_value(other)
        if other is NotImplemented:
            return other
        if other.data == 0:
            raise ZeroDivisionError(f"division by zero: {self!r} / {other!r}")
        return _node(self.data / other.data, "/", self, other)

    def __pow__(self, other):
        if isinstance(other, Value):
            check_power(self.data, other)
            return _node(self.data**other.data, "**", self, other)
        if not isinstance(other, numbers.Real):
            return NotImplemented
        n = check_power(self.data, float(other))
        return _node(self.data**n, f"**{other:g}", self, rule=power_rule(n))

    def __neg__(self):
        return _node(-self.data, "neg", self)

    # Reflected forms, so that 2 * a, 1 - a, 1 / a and 2 ** a work too.
    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __rsub__(self, other):
        other = _as_value(other)
        return other if other is NotImplemented else other - self

    def __rtruediv__(self, other):
        other = _as_value(other)
        return other if other is NotImplemented else other / self

    def __rpow__(self, other):
        other = _as_value(other)
        return other if other is NotImplemented else other**self

    # ---- functions of one input ----
    def exp(self):
        return _node(checked_exp(self.data), "exp", self)

    def log(self):
        if self.data <= 0:
            raise ValueError(f"log needs a positive input, got {self.data}")
        return _node(math.log(self.data), "log", self)

    def tanh(self):
        return _node(math.tanh(self.data), "tanh", self)  # tanh(1000) is 1.0: no overflow

    def sigmoid(self):
        x = self.data  # 1 / (1 + e^-x), written so that e^(large) is never computed
        return _node(1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x)), "sigmoid", self)

    def relu(self):
        return _node(max(self.data, 0.0), "ReLU", self)

    # ---- backpropagation ----
    def chain_rule(self, g, create_graph=False):
        """What this node sends to each input for its gradient g: [(input, local derivative, amount)].

        The local derivatives are the numbers stored when the node was made; with
        create_graph, its rule run again on the nodes themselves, so that each amount
        is a Value whose graph can be differentiated again (autograd.grad).
        """
        if self._a is None:
            return []
        if self._da is None:  # a closure set on screen (graph.py runs it), or no number to send
            if "_backward" in self.__dict__:
                return NotImplemented
            raise no_local_derivative(self)
        if create_graph and self._rule is None:
            raise NotImplementedError(
                f"grad(create_graph=True) cannot differentiate through a {self._op!r} node: it has no "
                f"derivative rule written in Values (only the engine's own operations have one)"
            )
        if create_graph:
            return [(x, slope, slope * g) for x, slope in zip(self._prev, self._rule(self, *self._prev))]
        # + 0.0: backward() adds a first share to a grad of 0.0, which turns a -0.0 into 0.0
        return [(x, slope, slope * g + 0.0) for x, slope in zip(self._prev, self._local_grads)]

    def _backward(self):
        """Chain rule at one node: pass this node's grad on to its inputs (a leaf has none)."""
        if self._a is not None and self._da is None:
            raise no_local_derivative(self)
        for child, local in zip(self._prev, self._local_grads):
            child.grad += local * self.grad

    def backward(self):
        """Fill in `.grad` of every node in the graph: d(self)/d(node).

        As in PyTorch, leaves such as weights *accumulate* (so training loops zero them
        first); every other node's grad is recomputed from scratch.
        """
        order = topological_order(self)
        for node in order:
            if node._a is not None:
                node.grad = 0.0
        self.grad += 1.0  # d(self)/d(self) = 1
        # graph.backward_pass with each node's chain_rule, written out for floats: the hot path.
        for node in reversed(order):
            a, da = node._a, node._da
            if a is None:
                continue
            if da is None:  # a micrograd-style closure in out._backward, or no rule at all
                node._backward()
                continue
            b, db, g = node._b, node._db, node.grad
            # A zero grad passes on nothing, unless a slope is inf or nan: 0 * inf is nan,
            # as in micrograd and PyTorch. (x - x == 0 only for a finite x.)
            if g == 0.0 and da - da == 0.0 and (b is None or db - db == 0.0):
                continue
            a.grad += da * g
            if b is not None:
                b.grad += db * g

    def topological_order(self):
        """Every node of the graph, each one after all of its inputs (see graph.py)."""
        return topological_order(self)


_ADD, _MUL = RULES["+"], RULES["*"]
_new = object.__new__


def _node(data, op, a, b=None, rule=None):
    """The result of an operation: it records its inputs and its rule (RULES[op] unless given)
    run on the numbers; inside no_grad() it is a leaf. (+ and * write this out, for speed.)"""
    if not grad_mode.recording:
        return Value(data)
    out = _new(Value)
    out.data, out.grad = data, 0.0
    out._op, out._a, out._b = op, a, b
    out._rule = rule = rule or RULES[op]
    if b is None:
        (out._da,), out._db = rule(data, a.data), None
    else:
        out._da, out._db = rule(data, a.data, b.data)
    return out


def _as_value(x):
    """Wrap a plain number in a Value; anything else is not ours to handle."""
    if isinstance(x, Value):
        return x
    if isinstance(x, (float, int, numbers.Real)):  # float and int first: quick to test
        return Value(x)
    return NotImplemented
