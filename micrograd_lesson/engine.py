"""A scalar reverse-mode autodiff engine: the `Value` class.

Every arithmetic operation on a `Value` makes a new `Value` that remembers
its inputs (`_prev`), the operation (`_op`) and the *local derivatives* of
the result with respect to each input (`_local_grads`). `backward()` then
walks the graph from the output back to the leaves, applying the chain rule
at each node:

    input.grad += local_derivative * output.grad

`grad()` does the same without touching `.grad`, and can record that walk as
a graph of its own, for second derivatives. Inside `no_grad()` operations
compute their values but record nothing.

The API matches the well-known micrograd, so code written for it runs here.
"""

import contextlib
import math
import numbers

from .graph import topological_order


def _check_number(data):
    """Reject anything that is not a real number, naming what was given."""
    if type(data) is float:  # the common case, checked first because it is fast
        return data
    if isinstance(data, Value):
        raise TypeError("Value(data) needs a real number, got a Value; use it directly")
    if not isinstance(data, numbers.Real):
        raise TypeError(
            f"Value(data) needs a real number (int or float), got {type(data).__name__}: {data!r}"
        )
    return float(data)


def _short(x):
    """x to 6 significant digits, so a repr is short and the same on every run.

    From a million up every digit is kept: rounding 123456789.0 to 123457000.0
    would show zeros that are not there.
    """
    return repr(x) if abs(x) >= 1e6 else repr(float(f"{x:.6g}"))


class Value:
    """A scalar that remembers how it was computed, so it can backpropagate."""

    # A node keeps its (at most two) inputs and their local derivatives in fixed
    # slots, not in tuples: then a node is one object, not three, for Python's
    # garbage collector to track, and a training step's graph of 65,000 nodes
    # costs the collector about a third of the work. "__dict__" still lets code set
    # `out._backward = ...` or a label on a node; "__weakref__" lets a weak
    # reference watch a node being freed.
    __slots__ = ("data", "grad", "_op", "_a", "_b", "_da", "_db", "__dict__", "__weakref__")

    label = ""  # a class default: only a labelled node stores a label of its own
    _exponent = None  # x ** n stores n, for its derivative rule written in Values

    def __init__(self, data, _children=(), _op="", label="", _local_grads=()):
        self.data = _check_number(data)
        self.grad = 0.0  # d(output)/d(self), filled in by backward()
        self._op = _op if _recording else ""
        if label:
            self.label = label
        self._a = self._b = self._da = self._db = None
        if _children and _recording:  # inside no_grad() the result is a leaf
            self._record(tuple(_children), tuple(_local_grads))

    def _record(self, children, local_grads):
        """Keep the inputs, in order, and their local derivatives (if given)."""
        if len(children) > 2:
            raise ValueError(
                f"a Value remembers at most 2 inputs, got {len(children)} for {self._op!r}: "
                f"build it from operations with one or two inputs"
            )
        if local_grads and len(local_grads) != len(children):  # else inputs would be dropped
            raise ValueError(
                f"a {self._op!r} node has {len(children)} inputs but {len(local_grads)} local derivatives"
            )
        # In order, repeats kept: b = a + a holds `a` in both slots (so it gets
        # both contributions), and a fixed order gives the same drawing every run.
        # With one input, the second slot stays None.
        self._a, self._b = (children + (None,))[:2]
        if local_grads:
            self._da, self._db = (local_grads + (None,))[:2]

    @property
    def _prev(self):
        """The inputs, in order: () for a leaf, (a,) or (a, b) for a result."""
        if self._a is None:
            return ()
        return (self._a,) if self._b is None else (self._a, self._b)

    @property
    def _local_grads(self):
        """d(self)/d(input) for each input in `_prev`; () if none was given."""
        if self._da is None:
            return ()
        return (self._da,) if self._b is None else (self._da, self._db)

    def __repr__(self):
        label = f", label={self.label!r}" if self.label else ""
        return f"Value(data={_short(self.data)}, grad={_short(self.grad)}{label})"

    # ---- arithmetic: each op returns its result and its local derivatives ----

    def __add__(self, other):
        other = _as_value(other)
        if other is NotImplemented:
            return other
        # d(a+b)/da = 1 and d(a+b)/db = 1: addition passes gradients through.
        return _result(self.data + other.data, "+", self, 1.0, other, 1.0)

    def __mul__(self, other):
        other = _as_value(other)
        if other is NotImplemented:
            return other
        # d(a*b)/da = b and d(a*b)/db = a: each input is scaled by the other.
        return _result(self.data * other.data, "*", self, other.data, other, self.data)

    def __sub__(self, other):
        other = _as_value(other)
        if other is NotImplemented:
            return other
        return _result(self.data - other.data, "-", self, 1.0, other, -1.0)

    def __truediv__(self, other):
        other = _as_value(other)
        if other is NotImplemented:
            return other
        if other.data == 0:
            raise ZeroDivisionError(f"division by zero: {self!r} / {other!r}")
        # d(a/b)/da = 1/b and d(a/b)/db = -a/b**2.
        b = other.data
        return _result(self.data / b, "/", self, 1 / b, other, -self.data / b**2)

    def __pow__(self, other):
        if isinstance(other, Value):
            return self._pow_value(other)
        if not isinstance(other, numbers.Real):
            return NotImplemented
        n, x = float(other), self.data
        if x < 0 and not n.is_integer():
            raise ValueError(f"({x}) ** {n} is not a real number: negative base, fractional power")
        if x == 0 and n < 0:
            raise ZeroDivisionError(f"0.0 ** {n}: a negative power of zero is infinite")
        # d(x**n)/dx = n * x**(n-1): the power rule. x**0 is the constant 1, so its slope is 0;
        # at x = 0 a power between 0 and 1 has an infinite slope: None, and backward() says so.
        if n == 0 or (x == 0 and n < 1):
            slope = 0.0 if n == 0 else None
        else:
            slope = n * x ** (n - 1)
        out = _result(x**n, f"**{other:g}", self, slope)
        if _recording:
            out._exponent = n
        return out

    def _pow_value(self, other):
        """x ** y where the exponent is a Value too: y needs log(x), so x > 0."""
        x, y = self.data, other.data
        if x <= 0:
            raise ValueError(
                f"Value ** Value needs a positive base (the exponent's gradient is "
                f"x**y * log(x)); got base {x}. Use a plain number as the exponent instead."
            )
        out = x**y
        return _result(out, "**", self, y * x ** (y - 1), other, out * math.log(x))

    def __neg__(self):
        return _result(-self.data, "neg", self, -1.0)

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
        try:
            out = math.exp(self.data)
        except OverflowError:
            raise OverflowError(f"exp({self.data}) overflows a float (inputs above ~709.78)") from None
        return _result(out, "exp", self, out)  # d(e^x)/dx = e^x

    def log(self):
        if self.data <= 0:
            raise ValueError(f"log needs a positive input, got {self.data}")
        return _result(math.log(self.data), "log", self, 1 / self.data)

    def tanh(self):
        t = math.tanh(self.data)  # math.tanh never overflows: tanh(1000) is 1.0
        return _result(t, "tanh", self, 1 - t * t)

    def sigmoid(self):
        s = _stable_sigmoid(self.data)
        return _result(s, "sigmoid", self, s * (1 - s))

    def relu(self):
        x = self.data
        # The slope is 1 right of zero and 0 left of it; at exactly 0 we pick 0.
        return _result(max(x, 0.0), "ReLU", self, 1.0 if x > 0 else 0.0)

    # ---- backpropagation ----

    def _backward(self):
        """Chain rule at one node: pass this node's grad on to its inputs."""
        a = self._a
        if a is None:  # a leaf: nothing to pass on
            return
        if self._da is None:
            raise self._no_local_derivative()
        a.grad += self._da * self.grad
        if self._b is not None:
            self._b.grad += self._db * self.grad

    def _no_local_derivative(self):
        """The error for a node that has inputs but no local derivative to pass back."""
        if self._exponent is not None:
            return ZeroDivisionError(
                f"the derivative of x{self._op} does not exist at x = {self._a.data} (it is infinite)"
            )
        return RuntimeError(
            f"a {self._op!r} node has {len(self._prev)} inputs but 0 local derivatives: "
            f"pass _local_grads=(...) to Value, or set out._backward to a function"
        )

    def backward(self):
        """Fill in `.grad` of every node in the graph: d(self)/d(node).

        Rules (the same as PyTorch's with ``retain_graph=True``):
        - Leaves (values with no inputs, such as weights) *accumulate*:
          calling backward() twice without zeroing doubles their grads,
          which is why training loops zero them before every backward().
        - Every other node's grad is recomputed from scratch on each call,
          so it never compounds.
        """
        order = topological_order(self)
        for node in order:
            if node._a is not None:
                node.grad = 0.0
        self.grad += 1.0  # d(self)/d(self) = 1
        for node in reversed(order):
            node._backward()

    def topological_order(self):
        """Every node of the graph, each one after all of its inputs (see graph.py)."""
        return topological_order(self)


def _result(data, op, a, da, b=None, db=None):
    """A new node made by one of the engine's own operations.

    It sets the slots directly instead of going through `Value(...)`: the
    inputs are known to be Values and `data` a float, so nothing needs checking.
    """
    out = object.__new__(Value)
    out.data = data
    out.grad = 0.0
    if _recording:
        out._op, out._a, out._da, out._b, out._db = op, a, da, b, db
    else:  # inside no_grad(): a leaf, holding nothing
        out._op, out._a, out._da, out._b, out._db = "", None, None, None, None
    return out


def _as_value(x):
    """Wrap a plain number in a Value; anything else is not ours to handle."""
    if isinstance(x, Value):
        return x
    if isinstance(x, (float, int, numbers.Real)):  # float and int first: quick to test
        return Value(x)
    return NotImplemented


def _stable_sigmoid(x):
    """1 / (1 + e^-x), written so that e^(large) is never computed."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)  # x < 0 here, so this is at most 1
    return z / (1.0 + z)


# ---- switching the graph off: no_grad() ----

_recording = True  # False inside no_grad(): operations then build no graph


@contextlib.contextmanager
def no_grad():
    """Compute values without recording how: every result is a plain leaf.

    Use it where no gradient will be asked for (evaluating a trained model,
    updating weights): no inputs are kept, so each intermediate result is
    freed as soon as nothing else refers to it. Nesting works, and leaving
    the block, even by an exception, restores what was there before.
    """
    global _recording
    before = _recording
    _recording = False
    try:
        yield
    finally:
        _recording = before


# ---- derivatives as values: grad() ----

# Each operation's local derivatives written with Value operations, so that a
# backward pass built from them is itself a graph that can be differentiated.
# `out` is the node, `a` and `b` its inputs. A constant (a plain number) has a
# derivative of zero, which is what the slope of ReLU is on either side of 0.
_RULES_IN_VALUES = {
    "+": lambda out, a, b: (1.0, 1.0),
    "-": lambda out, a, b: (1.0, -1.0),
    "*": lambda out, a, b: (b, a),
    "/": lambda out, a, b: (1 / b, -a / b**2),
    "**": lambda out, a, b: (b * a ** (b - 1), out * a.log()),
    "neg": lambda out, a: (-1.0,),
    "exp": lambda out, a: (out,),
    "log": lambda out, a: (1 / a,),
    "tanh": lambda out, a: (1 - out * out,),
    "sigmoid": lambda out, a: (out * (1 - out),),
    "ReLU": lambda out, a: out._local_grads,
}


def _local_grads_in_values(node):
    """The node's local derivatives as Values (or constants), for create_graph."""
    own_backward = getattr(node._backward, "__func__", None) is not Value._backward
    if node._da is None and not own_backward:
        raise node._no_local_derivative()
    if node._exponent is not None:  # x ** n with a plain number n
        n = node._exponent
        return (0.0,) if n == 0 else (n * node._a ** (n - 1),)
    rule = _RULES_IN_VALUES.get(node._op)
    if rule is None or own_backward:  # a micrograd-style closure: its rule is not known
        raise NotImplementedError(
            f"grad(create_graph=True) cannot differentiate through a {node._op!r} node: "
            f"it has no derivative rule written in Values (only the engine's own operations have one)"
        )
    return rule(node, *node._prev)


def grad(output, inputs, create_graph=False):
    """d(output)/d(input) for each of `inputs`, as a list; no `.grad` is changed.

    Modelled on torch.autograd.grad. With create_graph=False the derivatives
    are plain floats. With create_graph=True the backward pass is recorded,
    step by step, with Value operations, so each derivative is a Value whose
    graph leads back to the leaves: call grad() on it again for a second
    derivative. An input the output does not depend on gets 0.
    (backward() always stores plain floats in `.grad`.)
    """
    if not isinstance(output, Value):
        raise TypeError(f"grad() needs a Value as output, got {type(output).__name__}")
    inputs = list(inputs)
    for x in inputs:
        if not isinstance(x, Value):
            raise TypeError(f"grad() needs Values as inputs, got {type(x).__name__}: {x!r}")
    order = output.topological_order()
    if create_graph:
        global _recording
        before, _recording = _recording, True  # recorded even inside no_grad(), as in PyTorch
        try:
            grads = _backward_in_values(output, order)
        finally:
            _recording = before
        return [_as_value(grads.get(x, 0.0)) for x in inputs]
    # Run the ordinary backward rules (closures included) on scratch grads,
    # then put every node's `.grad` back as it was.
    saved = [node.grad for node in order]
    try:
        for node in order:
            node.grad = 0.0
        output.grad = 1.0
        for node in reversed(order):
            node._backward()
        in_graph = set(order)
        return [x.grad if x in in_graph else 0.0 for x in inputs]
    finally:
        for node, g in zip(order, saved):
            node.grad = g


def _backward_in_values(output, order):
    """The chain rule with Value operations: {node: d(output)/d(node)}."""
    grads = {output: 1.0}
    for node in reversed(order):
        g = grads.get(node)
        if g is None or not node._prev:  # no path from here to output, or a leaf
            continue
        for child, local in zip(node._prev, _local_grads_in_values(node)):
            contribution = local * g
            grads[child] = contribution if child not in grads else grads[child] + contribution
    return grads
