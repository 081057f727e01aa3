"""A scalar reverse-mode autodiff engine: the `Value` class.

Every arithmetic operation on a `Value` makes a new `Value` that remembers its
inputs (`_prev`), the operation (`_op`), the operation's derivative rule, and
the *local derivatives* of the result with respect to each input
(`_local_grads`). `backward()` then walks the graph from the output back to the
leaves, applying the chain rule at each node:

    input.grad += local_derivative * output.grad

Derivatives as Values (for second derivatives) and `no_grad()` are in
autograd.py. The API matches micrograd's, so code written for it runs here.
"""

import math
import numbers

from .graph import topological_order

_recording = True  # False inside autograd.no_grad(): operations then build no graph

# ---- the derivative rules: one per operation ----
#
# rule(out, a) or rule(out, a, b) gives the local derivative of the result `out`
# with respect to each input. A rule uses only arithmetic, so the same rule runs
# on floats and on Values: an operation evaluates it on the numbers and keeps the
# floats, for backward(); grad(create_graph=True) evaluates it on the nodes, so
# that the derivative is a graph too. A constant slope is a plain number.
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
    "ReLU": lambda out, a: (1.0 if _number(a) > 0 else 0.0,),  # at exactly 0 we pick 0
}


def power_rule(n):
    """The rule of x ** n for a plain number n (the power rule, n * x**(n-1)), made for each n."""

    def rule(out, x):
        if n == 0:
            return (0.0,)  # x**0 is the constant 1
        return (None,) if _number(x) == 0 and n < 1 else (n * x ** (n - 1),)  # None: an infinite slope

    return rule


def _number(x):
    return x.data if isinstance(x, Value) else x


class Value:
    """A scalar that remembers how it was computed, so it can backpropagate."""

    # A node keeps its (at most two) inputs and their local derivatives in fixed
    # slots, not in tuples, so it is one object for Python's garbage collector to
    # track, not three (benchmarks/README.md). "__dict__" still lets code set
    # `out._backward = ...` or a label; "__weakref__" lets a weak reference watch it.
    __slots__ = ("data", "grad", "_op", "_rule", "_a", "_b", "_da", "_db", "__dict__", "__weakref__")

    label = ""  # a class default: only a labelled node stores a label of its own

    def __init__(self, data, _children=(), _op="", label="", _local_grads=()):
        if type(data) is not float:  # float first: the common case, quick to test
            if isinstance(data, Value):
                raise TypeError("Value(data) needs a real number, got a Value; use it directly")
            if not isinstance(data, numbers.Real):
                raise TypeError(f"Value(data) needs a real number, got {type(data).__name__}: {data!r}")
            data = float(data)
        self.data = data
        self.grad = 0.0  # d(output)/d(self), filled in by backward()
        self._op = _op if _recording else ""
        if label:
            self.label = label
        self._rule = self._a = self._b = self._da = self._db = None
        if not (_children and _recording):  # a leaf; inside no_grad() every result is one
            return
        children, local_grads = tuple(_children), tuple(_local_grads)
        if len(children) > 2:
            raise ValueError(f"a Value remembers at most 2 inputs, got {len(children)} for {_op!r}: "
                             f"build it from operations with one or two inputs")  # fmt: skip
        if local_grads and len(local_grads) != len(children):  # else inputs would be dropped
            raise ValueError(
                f"a {_op!r} node has {len(children)} inputs but {len(local_grads)} local derivatives"
            )
        # In order, repeats kept: b = a + a holds `a` in both slots (so it gets both
        # contributions), and a fixed order draws the same every run.
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

    # ---- arithmetic: each operation computes its result and names its rule ----

    # The two operations a network is made of build their node inline, not through
    # _node(): a training step makes 65,000 of them, and the call costs a fifth more.
    def __add__(self, other):
        if type(other) is not Value:  # most operands are Values: test that first
            other = _as_value(other)
            if other is NotImplemented:
                return other
        out = _new(Value)
        out.data = data = self.data + other.data
        out.grad = 0.0
        if not _recording:
            return _leaf(out)
        out._op, out._rule, out._a, out._b = "+", _ADD, self, other
        out._da, out._db = _ADD(data, self.data, other.data)
        return out

    def __mul__(self, other):
        if type(other) is not Value:
            other = _as_value(other)
            if other is NotImplemented:
                return other
        out = _new(Value)
        out.data = data = self.data * other.data
        out.grad = 0.0
        if not _recording:
            return _leaf(out)
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
        x = self.data
        if isinstance(other, Value):  # the exponent's slope is x**y * log(x): it needs x > 0
            if x <= 0:
                raise ValueError(
                    f"Value ** Value needs a positive base (the exponent's gradient is x**y * log(x)); "
                    f"got base {x}. Use a plain number as the exponent instead."
                )
            return _node(x**other.data, "**", self, other)
        if not isinstance(other, numbers.Real):
            return NotImplemented
        n = float(other)
        if x < 0 and not n.is_integer():
            raise ValueError(f"({x}) ** {n} is not a real number: negative base, fractional power")
        if x == 0 and n < 0:
            raise ZeroDivisionError(f"0.0 ** {n}: a negative power of zero is infinite")
        return _node(x**n, f"**{other:g}", self, rule=power_rule(n))

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
        try:
            return _node(math.exp(self.data), "exp", self)
        except OverflowError:
            raise OverflowError(f"exp({self.data}) overflows a float (inputs above ~709.78)") from None

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

    def _backward(self):
        """Chain rule at one node: pass this node's grad on to its inputs."""
        if self._a is None:  # a leaf: nothing to pass on
            return
        if self._da is None:
            raise self._no_local_derivative()
        self._a.grad += self._da * self.grad
        if self._b is not None:
            self._b.grad += self._db * self.grad

    def _no_local_derivative(self):
        """The error for a node that has inputs but no local derivative to pass back."""
        if self._rule is not None:  # of the engine's rules only x ** n at x = 0 gives none
            x = self._a.data
            return ZeroDivisionError(
                f"the derivative of x{self._op} does not exist at x = {x} (it is infinite)"
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
        for node in reversed(order):  # node._backward(), written out: this loop is the hot path
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
    """The result of one of the engine's operations: its rule (RULES[op] unless given) runs on the numbers.

    It sets the slots directly instead of going through `Value(...)`: the
    inputs are known to be Values and `data` a float, so nothing needs checking.
    """
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    if not _recording:
        return _leaf(out)
    out._op, out._rule, out._a, out._b = op, rule or RULES[op], a, b
    if b is None:
        (out._da,), out._db = out._rule(data, a.data), None
    else:
        out._da, out._db = out._rule(data, a.data, b.data)
    return out


def _leaf(out):
    """Inside no_grad() a result is a leaf: it holds no inputs and no rule."""
    out._op, out._rule, out._a, out._b, out._da, out._db = "", None, None, None, None, None
    return out


def _as_value(x):
    """Wrap a plain number in a Value; anything else is not ours to handle."""
    if isinstance(x, Value):
        return x
    if isinstance(x, (float, int, numbers.Real)):  # float and int first: quick to test
        return Value(x)
    return NotImplemented


def _short(x):
    """x to 6 significant digits (every digit from a million up), so a repr is short and stable."""
    return repr(x) if abs(x) >= 1e6 else repr(float(f"{x:.6g}"))


from .autograd import grad, no_grad  # noqa: E402, F401  (older code imports them from here)
