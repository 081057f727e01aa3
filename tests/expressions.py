"""Random expression trees for property tests, evaluated by several backends.

A tree is a nested tuple: ("x", i) is input i, ("const", c) a number,
(op, child) a function of one input and (op, left, right) of two. The same
tree is evaluated with our `Value`s (autograd), with plain floats (for central
differences) and with PyTorch tensors (for the cross-check), so the three can
be compared.

Undefined inputs are avoided in two ways. Operations that need a positive
input get one by construction (log(1 + a*a), (1 + a*a) ** 0.5, a positive
base for a Value exponent). The float backend raises `OutOfDomain` where a
central difference would be unreliable (a divisor near 0, a relu input near
its kink, a huge intermediate); tests then discard that example.
"""

import math

from hypothesis import strategies as st

N_INPUTS = 3
UNARY = ("neg", "exp", "log", "tanh", "sigmoid", "relu", "sqrt", "square", "cube", "inverse_square")
BINARY = ("add", "sub", "mul", "div", "pow")
REFLECTED = ("radd", "rsub", "rmul", "rdiv", "rpow")  # a plain number on the left


class OutOfDomain(Exception):
    """This example is too close to a place where the expression is not smooth."""


def _tree(children):
    constants = st.floats(-3, 3, allow_nan=False, allow_infinity=False)
    return st.one_of(
        st.tuples(st.sampled_from(UNARY), children),
        st.tuples(st.sampled_from(BINARY), children, children),
        st.tuples(st.sampled_from(REFLECTED), constants, children),
    )


leaves = st.one_of(
    st.tuples(st.just("x"), st.integers(0, N_INPUTS - 1)),
    st.tuples(st.just("const"), st.floats(-3, 3, allow_nan=False, allow_infinity=False)),
)
trees = st.recursive(leaves, _tree, max_leaves=8)
inputs = st.lists(
    st.floats(-2, 2, allow_nan=False, allow_infinity=False), min_size=N_INPUTS, max_size=N_INPUTS
)


def evaluate(tree, xs, backend):
    """The tree's value; xs are the inputs, backend supplies exp, log, tanh, sigmoid, relu, check."""
    kind = tree[0]
    if kind == "x":
        return xs[tree[1]]
    if kind == "const":
        return tree[1]
    if kind in REFLECTED:
        c, a = tree[1], evaluate(tree[2], xs, backend)
        if kind == "radd":
            return c + a
        if kind == "rsub":
            return c - a
        if kind == "rmul":
            return c * a
        if kind == "rdiv":
            backend.check_divisor(a)
            return c / a
        return (abs(c) + 0.5) ** a  # rpow: a positive base
    a = evaluate(tree[1], xs, backend)
    if kind in BINARY:
        b = evaluate(tree[2], xs, backend)
        if kind == "add":
            return backend.check(a + b)
        if kind == "sub":
            return backend.check(a - b)
        if kind == "mul":
            return backend.check(a * b)
        if kind == "div":
            backend.check_divisor(b)
            return backend.check(a / b)
        return backend.check((1 + a * a) ** b)  # pow with a Value exponent: a positive base
    if kind == "neg":
        return -a
    if kind == "exp":
        return backend.check(backend.exp(a))
    if kind == "log":
        return backend.log(1 + a * a)
    if kind == "tanh":
        return backend.tanh(a)
    if kind == "sigmoid":
        return backend.sigmoid(a)
    if kind == "relu":
        return backend.relu(a)
    if kind == "sqrt":
        return (1 + a * a) ** 0.5
    if kind == "square":
        return backend.check(a**2)
    if kind == "cube":
        return backend.check(a**3)
    if kind == "inverse_square":
        backend.check_divisor(a)
        return backend.check(a**-2)
    raise ValueError(f"unknown node {kind!r}")


def _value(a):
    from micrograd_lesson.engine import Value

    return a if isinstance(a, Value) else Value(a)  # a subtree of constants is a plain float


class ValueBackend:
    """Our engine: the functions are Value methods. (Domain checks are the float backend's job.)"""

    exp = staticmethod(lambda a: _value(a).exp())
    log = staticmethod(lambda a: _value(a).log())
    tanh = staticmethod(lambda a: _value(a).tanh())
    sigmoid = staticmethod(lambda a: _value(a).sigmoid())
    relu = staticmethod(lambda a: _value(a).relu())

    @staticmethod
    def check(a):
        return a

    @staticmethod
    def check_divisor(a):
        pass


class FloatBackend:
    """Plain floats and the math module; refuses inputs where nudging is unreliable."""

    LIMIT = 1e4  # beyond this, round-off swamps a central difference with h = 1e-6
    KINK = 1e-3  # a relu input this close to 0 could cross it when nudged

    @staticmethod
    def check(a):
        if not abs(a) < FloatBackend.LIMIT:
            raise OutOfDomain(f"intermediate value {a!r} is too large")
        return a

    @staticmethod
    def check_divisor(a):
        if abs(a) < 0.1:
            raise OutOfDomain(f"divisor {a!r} is too close to 0")

    @staticmethod
    def exp(a):
        if a > 20:
            raise OutOfDomain(f"exp({a!r}) is too large")
        return math.exp(a)

    log = staticmethod(math.log)
    tanh = staticmethod(math.tanh)

    @staticmethod
    def sigmoid(a):
        return 0.5 * (1 + math.tanh(a / 2))  # an identity, so not the engine's formula

    @staticmethod
    def relu(a):
        if abs(a) < FloatBackend.KINK:
            raise OutOfDomain(f"relu input {a!r} is too close to its kink")
        return max(a, 0.0)


def numeric_gradient(tree, xs, h=1e-6):
    """Central differences of the float evaluation, one per input."""
    grads = []
    for i in range(len(xs)):
        up, down = list(xs), list(xs)
        up[i] += h
        down[i] -= h
        grads.append((evaluate(tree, up, FloatBackend) - evaluate(tree, down, FloatBackend)) / (2 * h))
    return grads
