"""A scalar reverse-mode autodiff engine: the `Value` class.

Every arithmetic operation on a `Value` makes a new `Value` that remembers
its inputs (`_prev`), the operation (`_op`) and the *local derivatives* of
the result with respect to each input. `backward()` then walks the graph
from the output back to the leaves, applying the chain rule at each node:

    input.grad += local_derivative * output.grad

The API matches the well-known micrograd, so code written for it runs here.
"""

import contextlib
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

    _exponent = None  # x ** n sets it to n, for its derivative rule written in Values

    def __init__(self, data, _children=(), _op="", label="", _local_grads=()):
        self.data = _check_number(data)
        self.grad = 0.0  # d(output)/d(self), filled in by backward()
        if not _recording:  # inside no_grad(): a result with no history, a leaf
            _children, _op, _local_grads = (), "", ()
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
        # d(x**n)/dx = n * x**(n-1): the power rule. x**0 is the constant 1, so its slope is 0;
        # at x = 0 a power between 0 and 1 has an infinite slope: None, and backward() says so.
        if n == 0 or (x == 0 and n < 1):
            slope = 0.0 if n == 0 else None
        else:
            slope = n * x ** (n - 1)
        out = Value(x**n, (self,), f"**{other:g}", _local_grads=(slope,))
        if out._prev:
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
            if local is None:
                raise ZeroDivisionError(
                    f"the derivative of {self._op} does not exist at {child.data} (it is infinite)"
                )
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


# ---- switching the graph off: no_grad() ----

_recording = True  # False inside no_grad(): operations then build no graph


@contextlib.contextmanager
def no_grad():
    """Compute values without recording how: every result is a plain leaf.

    Use it where no gradient will be asked for (evaluating a trained model,
    updating weights): no inputs are kept, so each step's graph can be freed
    as soon as the result is. Nesting works, and leaving the block, even by
    an exception, restores what was there before.
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
    if node._exponent is not None:  # x ** n with a plain number n
        n = node._exponent
        return (0.0,) if n == 0 else (n * node._prev[0] ** (n - 1),)
    rule = _RULES_IN_VALUES.get(node._op)
    if rule is None or "_backward" in vars(node):
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
