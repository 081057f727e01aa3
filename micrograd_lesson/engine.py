"""A scalar reverse-mode autodiff engine: the `Value` class.

Every arithmetic operation on a `Value` makes a new `Value` that remembers
its inputs (`_prev`), the operation (`_op`) and the *local derivatives* of
the result with respect to each input. `backward()` then walks the graph
from the output back to the leaves, applying the chain rule at each node:

    input.grad += local_derivative * output.grad

The API matches the well-known micrograd, so code written for it runs here.
"""

import math
import numbers


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
    """A float rounded to 6 significant digits, for stable reprs."""
    return repr(float(f"{x:.6g}"))


class Value:
    """A scalar that remembers how it was computed, so it can backpropagate."""

    # Fixed slots make a node smaller and quicker to build than a dict of attributes.
    # "__dict__" still lets micrograd-style code set `out._backward = ...` on a node;
    # "__weakref__" lets a weak reference watch a node being freed.
    __slots__ = ("data", "grad", "_prev", "_op", "label", "_local_grads", "__dict__", "__weakref__")

    def __init__(self, data, _children=(), _op="", label="", _local_grads=()):
        self.data = _check_number(data)
        self.grad = 0.0  # d(output)/d(self), filled in by backward()
        # A tuple, not a set: b = a + a must list `a` twice (so it gets both
        # contributions), and a fixed order gives the same drawing every run.
        self._prev = tuple(_children)
        self._op = _op
        self.label = label
        # d(self)/d(child) for each child, computed once, when the op runs.
        self._local_grads = tuple(_local_grads)

    def __repr__(self):
        label = f", label={self.label!r}" if self.label else ""
        return f"Value(data={_short(self.data)}, grad={_short(self.grad)}{label})"

    # ---- arithmetic: each op returns its result and its local derivatives ----

    def __add__(self, other):
        other = _as_value(other)
        if other is NotImplemented:
            return other
        # d(a+b)/da = 1 and d(a+b)/db = 1: addition passes gradients through.
        return Value(self.data + other.data, (self, other), "+", _local_grads=(1.0, 1.0))

    def __mul__(self, other):
        other = _as_value(other)
        if other is NotImplemented:
            return other
        # d(a*b)/da = b and d(a*b)/db = a: each input is scaled by the other.
        return Value(self.data * other.data, (self, other), "*", _local_grads=(other.data, self.data))

    def __sub__(self, other):
        other = _as_value(other)
        if other is NotImplemented:
            return other
        return Value(self.data - other.data, (self, other), "-", _local_grads=(1.0, -1.0))

    def __truediv__(self, other):
        other = _as_value(other)
        if other is NotImplemented:
            return other
        if other.data == 0:
            raise ZeroDivisionError(f"division by zero: {self!r} / {other!r}")
        # d(a/b)/da = 1/b and d(a/b)/db = -a/b**2.
        b = other.data
        return Value(self.data / b, (self, other), "/", _local_grads=(1 / b, -self.data / b**2))

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
        # d(x**n)/dx = n * x**(n-1): the power rule.
        return Value(x**n, (self,), f"**{other:g}", _local_grads=(n * x ** (n - 1),))

    def _pow_value(self, other):
        """x ** y where the exponent is a Value too: y needs log(x), so x > 0."""
        x, y = self.data, other.data
        if x <= 0:
            raise ValueError(
                f"Value ** Value needs a positive base (the exponent's gradient is "
                f"x**y * log(x)); got base {x}. Use a plain number as the exponent instead."
            )
        out = x**y
        return Value(out, (self, other), "**", _local_grads=(y * x ** (y - 1), out * math.log(x)))

    def __neg__(self):
        return Value(-self.data, (self,), "neg", _local_grads=(-1.0,))

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
        return Value(out, (self,), "exp", _local_grads=(out,))  # d(e^x)/dx = e^x

    def log(self):
        if self.data <= 0:
            raise ValueError(f"log needs a positive input, got {self.data}")
        return Value(math.log(self.data), (self,), "log", _local_grads=(1 / self.data,))

    def tanh(self):
        t = math.tanh(self.data)  # math.tanh never overflows: tanh(1000) is 1.0
        return Value(t, (self,), "tanh", _local_grads=(1 - t * t,))

    def sigmoid(self):
        s = _stable_sigmoid(self.data)
        return Value(s, (self,), "sigmoid", _local_grads=(s * (1 - s),))

    def relu(self):
        x = self.data
        # The slope is 1 right of zero and 0 left of it; at exactly 0 we pick 0.
        return Value(max(x, 0.0), (self,), "ReLU", _local_grads=(1.0 if x > 0 else 0.0,))

    # ---- backpropagation ----

    def _backward(self):
        """Chain rule at one node: pass this node's grad on to its inputs."""
        if len(self._local_grads) != len(self._prev):  # else zip would drop inputs silently
            raise RuntimeError(
                f"a {self._op!r} node has {len(self._prev)} inputs but {len(self._local_grads)} local "
                f"derivatives: pass _local_grads=(...) to Value, or set out._backward to a function"
            )
        for child, local in zip(self._prev, self._local_grads):
            child.grad += local * self.grad

    def backward(self):
        """Fill in `.grad` of every node in the graph: d(self)/d(node).

        Rules (the same as PyTorch's with ``retain_graph=True``):
        - Leaves (values with no inputs, such as weights) *accumulate*:
          calling backward() twice without zeroing doubles their grads,
          which is why training loops zero them before every backward().
        - Every other node's grad is recomputed from scratch on each call,
          so it never compounds.
        """
        order = self.topological_order()
        for node in order:
            if node._prev:
                node.grad = 0.0
        self.grad += 1.0  # d(self)/d(self) = 1
        for node in reversed(order):
            node._backward()

    def topological_order(self):
        """Every node of the graph, each one after all of its inputs.

        Iterative depth-first search with an explicit stack, so a chain of a
        million nodes works (a recursive version stops at Python's ~1000-deep
        recursion limit).
        """
        order, visited = [], set()
        stack = [(self, False)]
        while stack:
            node, inputs_done = stack.pop()
            if inputs_done:
                order.append(node)  # all its inputs are already in `order`
            elif node not in visited:
                visited.add(node)
                stack.append((node, True))
                for child in reversed(node._prev):
                    if child not in visited:  # skipping seen inputs early keeps the stack short
                        stack.append((child, False))
        return order


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
