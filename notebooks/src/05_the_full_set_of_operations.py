# %% [markdown]
# # Chapter 5 — The full set of operations
#
# Chapter 4's engine can add, multiply and take a `tanh`, and one call to `backward()`
# fills in every gradient. That is enough for a single neuron, but not for the rest of
# the course. A loss needs subtraction and squaring; averaging it over a batch of
# examples divides; probabilities need `exp` and `log`; modern networks use `relu` and
# `sigmoid`.
#
# The good news is that every new operation is a small, self-contained job. The engine
# does not care what an operation computes. It only needs two facts from each one:
#
# 1. the **forward** result, a number;
# 2. the **local derivative** of that result with respect to each input, also a number,
#    known at the moment the operation runs.
#
# The chain rule, the topological sort and the accumulation with `+=` stay exactly as they
# are. Some operations do not even need fact 2 written by hand: subtraction is addition
# of a negated number, and division is multiplication by a power, so the engine can
# derive their gradients from pieces it already knows.
#
# In this chapter the on-screen class grows one operation at a time, each with its local
# derivative explained. Then we switch to the complete engine in the package, plot every
# activation function beside its derivative, test the engine against itself, and see
# what goes wrong when a number changes between the forward and the backward pass.

# %% tags=["claim-setup"]
import random
import re

import matplotlib.pyplot as plt
import numpy as np

from micrograd_lesson import describe_figure, draw_dot, engine

random.seed(0)
np.random.seed(0)

try:
    import torch
except ImportError:
    torch = None
print("PyTorch (optional): " + (f"found, version {torch.__version__}" if torch else "not installed"))


def slope(f, x, h=1e-6):
    """The derivative of a plain-number function f at x, by a central nudge (chapter 1)."""
    return (f(x + h) - f(x - h)) / (2 * h)


# %% [markdown]
# ## 1. Where we start
#
# Here is chapter 4's finished class in one cell: closures that accumulate with `+=`, and
# a `backward()` built on the stack-based topological sort.

# %% tags=["defines-value"]
import math  # the first cell that needs it: this cell must also run on its own


class Value:
    """A number that remembers how it was made, and how to pass gradients back."""

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(_children)
        self._op = _op
        self.label = label
        self._backward = lambda: None

    def __repr__(self):
        return f"Value(data={self.data:.4f}, grad={self.grad:.4f})"

    def __add__(self, other):
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        topo, visited, stack = [], set(), [(self, False)]
        while stack:
            node, inputs_done = stack.pop()
            if inputs_done:
                topo.append(node)
            elif node not in visited:
                visited.add(node)
                stack.append((node, True))
                stack.extend((child, False) for child in reversed(node._prev))
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()


# %% [markdown]
# ## 2. Plain numbers
#
# The first thing anyone types is something like `a + 1`. Our `__add__` reaches for
# `other.data`, and the integer `1` has no `.data`:

# %%
a = Value(3.0, label="a")
try:
    a + 1
except AttributeError as e:
    print(f"{type(e).__name__}: {e}")

# %% [markdown]
# The fix is to wrap a plain number in a `Value` before using it. The wrapped number
# becomes a leaf of the graph, a constant: it receives a gradient like any other leaf, and
# nobody reads it. We replace `__add__` and `__mul__` with versions that wrap. Python lets
# us assign a new method to an existing class, and every `Value`, old or new, uses it at
# once; that is how the class grows through this chapter.


# %% tags=["defines-value"]
def _wrap(x):
    """A Value stays as it is; a plain number becomes a constant leaf."""
    return x if isinstance(x, Value) else Value(x)


def __add__(self, other):
    other = _wrap(other)
    out = Value(self.data + other.data, (self, other), "+")

    def _backward():
        self.grad += 1.0 * out.grad  # d(a+b)/da = 1
        other.grad += 1.0 * out.grad  # d(a+b)/db = 1

    out._backward = _backward
    return out


def __mul__(self, other):
    other = _wrap(other)
    out = Value(self.data * other.data, (self, other), "*")

    def _backward():
        self.grad += other.data * out.grad  # d(a*b)/da = b
        other.grad += self.data * out.grad  # d(a*b)/db = a

    out._backward = _backward
    return out


Value.__add__ = __add__
Value.__mul__ = __mul__

# %%
print(f"a + 1 = {(a + 1).data:.4f}")
print(f"a * 2 = {(a * 2).data:.4f}")

# %% [markdown]
# ## 3. Reflected operators: `2 * a` and `1 + a`
#
# `a * 2` works now, but `2 * a` still does not:

# %%
try:
    2 * a
except TypeError as e:
    print(f"{type(e).__name__}: {e}")

# %% [markdown]
# For `2 * a`, Python first asks the left operand, the integer 2: `int.__mul__(2, a)`.
# An integer has never heard of our class, so it answers `NotImplemented`. Python then
# gives the right operand a chance, by calling its *reflected* method `a.__rmul__(2)`. We
# have not written one, so Python gives up with the `TypeError` above.
#
# Addition and multiplication do not care about order, so the reflected versions just
# swap the operands and reuse what we have.


# %% tags=["defines-value"]
def __radd__(self, other):  # other + self, when other does not know how
    return self + other


def __rmul__(self, other):  # other * self
    return self * other


Value.__radd__ = __radd__
Value.__rmul__ = __rmul__

# %%
print(f"2 * a = {(2 * a).data:.4f}")
print(f"1 + a = {(1 + a).data:.4f}")
print(f"sum([a, a, a]) = {sum([a, a, a]).data:.4f}")

# %% [markdown]
# `2 * a` is 6.0000 and `1 + a` is 4.0000. A bonus: Python's `sum` starts from the
# integer 0 and computes `0 + a` first, so `sum([a, a, a])` (9.0000) needs `__radd__`
# too. Chapter 7 adds up a neuron's weighted inputs with exactly this.
#
# ## 4. Negation and subtraction
#
# Negation has the local derivative $\partial(-a)/\partial a = -1$: nudge $a$ up, and
# $-a$ goes down by the same amount. Subtraction has two:
# $\partial(a-b)/\partial a = 1$ and $\partial(a-b)/\partial b = -1$.
#
# We do not have to write either by hand. Negation is multiplication by $-1$, and
# $a - b$ is $a + (-b)$. Both are built from operations that already pass gradients
# correctly, so the chain rule produces the $-1$ for us. `__rsub__` handles `1 - a`.


# %% tags=["defines-value"]
def __neg__(self):  # -self
    return self * -1


def __sub__(self, other):  # self - other
    return self + (-_wrap(other))


def __rsub__(self, other):  # other - self
    return _wrap(other) + (-self)


Value.__neg__ = __neg__
Value.__sub__ = __sub__
Value.__rsub__ = __rsub__

# %%
a = Value(3.0, label="a")
c = 1 - a
c.label = "c"
c.backward()
print(f"c = 1 - a = {c.data:.4f}, dc/da = {a.grad:.4f}")
describe_figure(
    draw_dot(c, rankdir="TB"),
    "One subtraction built from pieces: a times the constant -1, then plus the constant 1.",
)

# %% [markdown]
# At $a = 3$, $c = 1 - a = -2$ and $\partial c/\partial a = -1$, as promised. The drawing
# shows the price of building from pieces: one subtraction became two operations, a
# multiplication by the constant $-1$ and an addition, with two constant leaves: five
# values where a single subtraction node needs three. The package's engine gives
# subtraction and negation their own single node instead; the numbers come out the same.
#
# ## 5. Powers
#
# For $x^n$ with a constant exponent $n$, the power rule gives the local derivative
# $n x^{n-1}$: bring the exponent down, and lower it by one. It covers squares ($2x$),
# square roots ($n = 0.5$, so $0.5\,x^{-0.5}$) and reciprocals ($n = -1$, so $-x^{-2}$).


# %% tags=["defines-value"]
def __pow__(self, n):  # self ** n, for a plain number n
    assert isinstance(n, (int, float)), "only plain-number exponents: x ** 2, x ** 0.5, x ** -1"
    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += n * self.data ** (n - 1) * out.grad  # the power rule

    out._backward = _backward
    return out


Value.__pow__ = __pow__

# %%
for x0, n in [(2.0, 3), (4.0, 0.5), (4.0, -1)]:
    x = Value(x0)
    y = x**n
    y.backward()
    print(
        f"x = {x0:.1f}: x**{n} = {y.data:.4f}, engine d/dx = {x.grad:.4f}, "
        f"nudge = {slope(lambda t, n=n: t**n, x0):.4f}"
    )

# %% [markdown]
# $2^3 = 8$ with derivative $3 \cdot 2^2 = 12$; $\sqrt 4 = 2$ with derivative
# $0.5 / \sqrt 4 = 0.25$; $1/4 = 0.25$ with derivative $-1/16 = -0.0625$. The nudges agree
# with the engine in every case.
#
# ## 6. Division
#
# Division is multiplication by a reciprocal: $a / b = a \cdot b^{-1}$. With powers in
# hand it needs no new derivative. The chain rule combines the multiplication's and the
# power's to give $\partial(a/b)/\partial a = 1/b$ and
# $\partial(a/b)/\partial b = -a/b^2$: making the divisor bigger makes the result smaller.


# %% tags=["defines-value"]
def __truediv__(self, other):  # self / other
    return self * _wrap(other) ** -1


def __rtruediv__(self, other):  # other / self
    return _wrap(other) * self**-1


Value.__truediv__ = __truediv__
Value.__rtruediv__ = __rtruediv__

# %%
a, b = Value(6.0, label="a"), Value(4.0, label="b")
q = a / b
q.backward()
print(f"a / b = {q.data:.4f}")
print(f"engine:  dq/da = {a.grad:.4f}, dq/db = {b.grad:.4f}")
print(f"formula: 1/b   = {1 / 4:.4f}, -a/b**2 = {-6 / 4**2:.4f}")

# %% [markdown]
# At $a = 6$, $b = 4$: $a/b = 1.5$, $\partial/\partial a = 1/4 = 0.25$ and
# $\partial/\partial b = -6/16 = -0.375$.
#
# Where does a network's loss divide? For one, in a **mean**: a loss is averaged over
# a batch of examples, so that its size, and the size of its gradients, does not grow
# with the batch. Here are four predictions $p_i$ against their targets $y_i$, with the
# squared errors summed and then averaged.

# %%
targets = [1.0, -1.0, -1.0, 1.0]
for reduce in ("sum", "mean"):
    preds = [Value(x) for x in (0.8, -0.5, -1.2, 0.3)]
    total = sum((p - y) ** 2 for p, y in zip(preds, targets))
    loss = total / len(preds) if reduce == "mean" else total
    loss.backward()
    grads = ", ".join(f"{p.grad:+.4f}" for p in preds)
    print(f"{reduce:>4}: loss = {loss.data:.4f}, gradients of the four predictions: {grads}")

# %% [markdown]
# With the sum, prediction $p_1 = 0.8$ (target 1) gets gradient $2(p_1 - y_1) = -0.4000$;
# with the mean, every gradient is a quarter of that, $-0.1000$, because dividing the loss
# by 4 divides each path through it by 4.
#
# ## 7. `exp` and `log`
#
# The exponential is its own derivative: $\frac{d}{dx} e^x = e^x$. So the backward step
# reuses the forward result, `out.data`, without computing anything new. The natural log
# has $\frac{d}{dx} \ln x = 1/x$: it rises steeply near 0 and flattens out for large $x$.


# %% tags=["defines-value"]
def exp(self):
    out = Value(math.exp(self.data), (self,), "exp")

    def _backward():
        self.grad += out.data * out.grad  # d(e^x)/dx = e^x, already computed

    out._backward = _backward
    return out


def log(self):
    out = Value(math.log(self.data), (self,), "log")

    def _backward():
        self.grad += (1 / self.data) * out.grad  # d(ln x)/dx = 1/x

    out._backward = _backward
    return out


Value.exp = exp
Value.log = log

# %%
for name, x0 in [("exp", 1.0), ("log", 2.0)]:
    x = Value(x0)
    y = getattr(x, name)()
    y.backward()
    print(f"{name}({x0:.1f}) = {y.data:.4f}, d/dx = {x.grad:.4f}")

# %% [markdown]
# $e^1 = 2.7183$ with derivative 2.7183, and $\ln 2 = 0.6931$ with derivative
# $1/2 = 0.5$.
#
# ## 8. The activation functions: sigmoid and relu
#
# A neural network needs a bend between its layers, an *activation function*. Without one,
# stacked layers collapse into one: $w_2 (w_1 x + b_1) + b_2$ is just
# $(w_2 w_1) x + (w_2 b_1 + b_2)$, another straight line. We already have $\tanh$, whose
# local derivative is $1 - t^2$ where $t$ is its output. Two more:
#
# - **Sigmoid**, $\sigma(x) = 1/(1 + e^{-x})$, squashes any number into $(0, 1)$. Its
#   derivative is, like $\tanh$'s, written with its own output: $\sigma(x)(1 - \sigma(x))$.
#   At $x = 0$ that is $0.5 \cdot 0.5 = 0.25$, the steepest it ever gets.
# - **ReLU**, $\max(0, x)$, passes positive numbers through and clips negative ones to 0.
#   Its derivative is 1 for $x > 0$ and 0 for $x < 0$. At exactly 0 there is a corner
#   and no derivative; we choose 0, as PyTorch does.


# %% tags=["defines-value"]
def sigmoid(self):
    s = 1 / (1 + math.exp(-self.data))  # section 12 improves this line
    out = Value(s, (self,), "sigmoid")

    def _backward():
        self.grad += s * (1 - s) * out.grad  # d(sigma)/dx = sigma (1 - sigma)

    out._backward = _backward
    return out


def relu(self):
    out = Value(max(0.0, self.data), (self,), "ReLU")

    def _backward():
        self.grad += (1.0 if self.data > 0 else 0.0) * out.grad  # slope 1 right of 0, else 0

    out._backward = _backward
    return out


Value.sigmoid = sigmoid
Value.relu = relu

# %%
for name, x0 in [("sigmoid", 0.0), ("relu", -2.0), ("relu", 3.0), ("relu", 0.0)]:
    x = Value(x0)
    y = getattr(x, name)()
    y.backward()
    print(f"{name}({x0:.1f}) = {y.data:.4f}, d/dx = {x.grad:.4f}")
if torch is None:
    print("PyTorch (optional): not installed, so its slope of relu at 0 is not shown")
else:
    t = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    torch.relu(t).backward()
    print(f"PyTorch (optional): torch.relu at 0 has d/dx = {t.grad.item():.4f}")

# %% [markdown]
# $\sigma(0) = 0.5$ with slope 0.25; $\text{relu}(-2) = 0$ with slope 0; $\text{relu}(3) = 3$
# with slope 1. At the corner, $\text{relu}(0) = 0$ with slope 0, our choice; with
# PyTorch installed, its `torch.relu` reports the same 0.0000 there.
#
# ## 9. The whole set, and the switch to the package
#
# That completes the operations. In one table:
#
# | operation | forward | local derivative(s) | how we built it |
# |---|---|---|---|
# | `a + b` | $a + b$ | $1$, $1$ | closure |
# | `a * b` | $ab$ | $b$, $a$ | closure |
# | `-a` | $-a$ | $-1$ | `a * -1` |
# | `a - b` | $a - b$ | $1$, $-1$ | `a + (-b)` |
# | `a ** n` | $a^n$ | $n a^{n-1}$ | closure |
# | `a / b` | $a / b$ | $1/b$, $-a/b^2$ | `a * b**-1` |
# | `a.exp()` | $e^a$ | $e^a$ | closure |
# | `a.log()` | $\ln a$ | $1/a$ | closure |
# | `a.tanh()` | $t = \tanh a$ | $1 - t^2$ | closure |
# | `a.sigmoid()` | $s = \sigma(a)$ | $s(1 - s)$ | closure |
# | `a.relu()` | $\max(0, a)$ | 1 if $a > 0$ else 0 | closure |
#
# The package's `micrograd_lesson.Value` has all of these, with the same names and the
# same numbers. It differs in the details a finished tool needs: every operation is a
# single node that stores its local derivatives as numbers (chapter 4 explained why), it
# stops a few inputs that have no real answer with a message that names them (below), and
# it is careful with very large inputs (section 12). Before switching, let us check that the
# class we just built and the package agree, on expressions that use every operation.

# %% tags=["claim-setup"]
expressions = {
    "a*b + c": lambda a, b, c: a * b + c,
    "(a - b) / c": lambda a, b, c: (a - b) / c,
    "2*a - 1/b + c**2": lambda a, b, c: 2 * a - 1 / b + c**2,
    "exp(a/4) * log(c)": lambda a, b, c: (a / 4).exp() * c.log(),
    "tanh(a + b) + sigmoid(c)": lambda a, b, c: (a + b).tanh() + c.sigmoid(),
    "relu(a + c) * relu(c - b)": lambda a, b, c: (a + c).relu() * (c - b).relu(),
}

# %%
inputs = (2.0, -3.0, 0.5)
print(f"{'expression':<26} {'on screen':>10} {'package':>10}   gradients (a, b, c)        same?")
for text, f in expressions.items():
    results = []
    for V in (Value, engine.Value):
        leaves = [V(x) for x in inputs]
        out = f(*leaves)
        out.backward()
        results.append((out.data, [leaf.grad for leaf in leaves]))
    (d1, g1), (d2, g2) = results
    same = math.isclose(d1, d2, abs_tol=1e-12) and all(
        math.isclose(x, y, abs_tol=1e-12) for x, y in zip(g1, g2)
    )
    grads = ", ".join(f"{g:8.4f}" for g in g2)
    print(f"{text:<26} {d1:10.4f} {d2:10.4f}   {grads}   {same}")

# %% [markdown]
# Six expressions, each value and all three gradients identical to $10^{-12}$: the class we
# built and the package agree, here and at other inputs.
#
# <details><summary>How we know</summary>
#
# The claims test repeats the six comparisons at 20 fresh inputs, $a$ drawn between $-3$
# and 3, $b$ and $c$ kept away from 0: every value and gradient agrees to $10^{-12}$ (at
# 1,000 other inputs the largest difference was $1.4 \cdot 10^{-14}$). Were they to differ
# at 1 input in 10, 20 inputs would catch it with probability 0.88. A second test runs
# every chapter's on-screen class against the package on a longer list of expressions.
#
# <!-- claim: ch05-screen-matches-package -->
# </details>
#
# From here on this notebook uses the complete engine from the package:

# %% tags=["claim-setup"]
from micrograd_lesson import Value

# %%
refused = {
    "Value(-1.0).log()": lambda: Value(-1.0).log(),
    "Value(1.0) / 0": lambda: Value(1.0) / 0,
    "Value(-8.0) ** (1 / 3)": lambda: Value(-8.0) ** (1 / 3),
    "Value(1000.0).exp()": lambda: Value(1000.0).exp(),
}
for text, attempt in refused.items():
    try:
        attempt()
    except (ValueError, ZeroDivisionError, OverflowError) as e:
        print(f"{text}\n    -> {type(e).__name__}: {e}")

# %% [markdown]
# The name `Value` now means `micrograd_lesson.Value`. It refuses a few inputs that have
# no real answer, each with a message that names the input: the logarithm of a number
# that is not positive, a division by zero (and zero to a negative power), a negative
# number to a fractional power, and an `exp` whose result would not fit in a float.
# Instead of failing somewhere deep inside `math`, or much later, the engine says which
# input was wrong.
#
# Beyond those few, like micrograd and PyTorch, it follows the floating-point rules
# for everything else, silently: a result too large for a float becomes `inf`
# (infinity), and a result with no defined value becomes `nan` ("not a number"), which
# then spreads through every operation it enters. Here are three such inputs in our
# engine, in micrograd (which has no `tanh`) and in PyTorch, when they are installed:

# %%
try:
    from micrograd.engine import Value as MicrogradValue
except ImportError:
    MicrogradValue = None
inf, nan = float("inf"), float("nan")
silent = {  # what is computed, in each engine
    "1e308 * 10": (lambda V: V(1e308) * 10, lambda t: t(1e308) * 10),
    "tanh(nan)": (lambda V: V(nan).tanh(), lambda t: t(nan).tanh()),
    "inf * 0": (lambda V: V(inf) * 0, lambda t: t(inf) * 0),
}
print(f"{'':<12} {'ours':>6} {'micrograd':>10}")
for text, (with_value, _) in silent.items():
    ours = f"{with_value(Value).data}"
    if MicrogradValue is None:
        theirs = "(absent)"
    elif text.startswith("tanh"):
        theirs = "(no tanh)"
    else:
        theirs = f"{with_value(MicrogradValue).data}"
    print(f"{text:<12} {ours:>6} {theirs:>10}")
if torch is None:
    print("PyTorch (optional): not installed")
else:
    as_tensor = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731
    results = [f"{text} = {with_tensor(as_tensor).item()}" for text, (_, with_tensor) in silent.items()]
    print("PyTorch (optional): " + ", ".join(results))

# %% [markdown]
# All three engines agree: $10^{308} \cdot 10$ is `inf`, $\tanh$ of `nan` is `nan`, and
# $\infty \cdot 0$ is `nan`, with no error. (An "(absent)" or "not installed" means that
# library is not installed here.)
#
# <details><summary>How we know</summary>
#
# The claims test multiplies 23 large numbers (20 drawn at random between $1.8 \cdot
# 10^{307}$ and $1.79 \cdot 10^{308}$) by 10 and gets `inf` for each, positive and
# negative; it takes $\tanh$ of both `nan`s and multiplies $\pm\infty$ by each kind of zero,
# in our engine, in micrograd and in PyTorch where they are installed. It also checks that
# the inputs refused above are refused, each with a message that names it.
#
# <!-- claim: ch05-silent-inf-nan -->
# </details>
#
# So a loss that prints `nan` or `inf` need not be a bug in the engine: some number
# upstream may have overflowed or been undefined, and training must look for it. Chapter 8
# meets one: a learning rate so large that the weights grow without bound.
#
# ## 10. Activation functions and their derivatives, drawn
#
# A derivative is easiest to understand as a picture: the slope of the curve at every
# point. For each activation below we ask the **engine** for the slope, by building
# `Value(x).f()` and calling `backward()` at 161 points, and draw the textbook formula on
# top as a dashed line. If the engine's local derivative were wrong anywhere, the two
# would part.

# %%
xs = np.linspace(-4, 4, 161)
activations = {
    "tanh": (lambda v: v.tanh(), lambda x: 1 - np.tanh(x) ** 2, "1 - tanh(x)²"),
    "sigmoid": (lambda v: v.sigmoid(), lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2, "e⁻ˣ / (1 + e⁻ˣ)²"),
    "relu": (lambda v: v.relu(), lambda x: (x > 0).astype(float), "1 if x > 0 else 0"),
    "exp": (lambda v: v.exp(), np.exp, "eˣ"),
}
fig, axes = plt.subplots(2, 2, figsize=(10, 7))
for ax, (name, (op, formula, formula_text)) in zip(axes.flat, activations.items()):
    values, grads = [], []
    for x in xs:
        v = Value(float(x))
        out = op(v)
        out.backward()
        values.append(out.data)
        grads.append(v.grad)
    ax.plot(xs, values, color="#0072B2", linewidth=2, label=f"{name}(x)")
    ax.plot(xs, grads, color="#E69F00", linewidth=4, alpha=0.6, label="slope from backward()")
    ax.plot(xs, formula(xs), "k--", linewidth=1.2, label=f"formula: {formula_text}")
    ax.set_title(name)
    ax.set_xlabel("x")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    agree = np.allclose(grads, formula(xs), atol=1e-12)
    print(
        f"{name:>8}: slope at 0 = {grads[80]:.4f}, largest slope on [-4, 4] = {max(grads):.4f}, "
        f"matches formula: {agree}"
    )
axes[1, 1].set_ylim(-1, 20)
fig.suptitle("Each activation (blue) and its slope: engine (orange) vs formula (dashed)")
fig.tight_layout()
describe_figure(
    fig,
    "For each of tanh, sigmoid, relu and exp, the slope found by backward() (orange band) "
    "follows the formula (dashed) at every point.",
)
plt.show()

# %% [markdown]
# In every panel the dashed formula runs right down the middle of the orange band, and
# the printout confirms all 161 points match. The pictures also say something about
# training, which later chapters will feel:
#
# - **tanh** has slope 1.0000 at 0, and the slope dies away on both sides: by $|x| = 4$ it
#   is almost 0. A gradient passing back through a tanh out there is multiplied by almost
#   nothing: the neuron *saturates*.
# - **sigmoid** is never steeper than 0.2500, which it reaches at 0: its slope $s(1 - s)$
#   is largest where $s = 1/2$. Every sigmoid a gradient passes through multiplies it by
#   0.25 or less: ten in a row, with nothing in between, leave at most
#   $0.25^{10} \approx 10^{-6}$ of it.
# - **relu** has slope exactly 1 for every positive input and exactly 0 for every negative
#   one; at 0 the engine reports 0.0000, our chosen convention. A relu whose input stays
#   negative passes back no gradient at all.
# - **exp** is its own slope, so the two curves lie on top of each other (1.0000 at 0,
#   about 54.6 at 4; the panel is cut off at 20, so the curve leaves it near $x = 3$).
#
# <details><summary>How we know</summary>
#
# That the engine's sigmoid is never steeper than 0.25: the claims test asks it for the
# slope on the chapter's grid of 161 points, on one a hundred times finer (16,001 points),
# at $\pm 50$ and at 2,000 fresh points drawn between $-60$ and $60$. None is above 0.25,
# and the slope at 0 is exactly 0.25.
#
# <!-- claim: ch05-sigmoid-slope-at-most-quarter -->
# </details>

# %% [markdown]
# ## 11. A self-test: tanh rebuilt from exp
#
# Here is a way to test the engine with nothing but the engine. The hyperbolic tangent
# can be written with exponentials:
#
# $$\tanh(n) = \frac{e^{2n} - 1}{e^{2n} + 1}.$$
#
# In words: double the input, exponentiate, then divide one less than that by one more
# than that. Built this way, the gradient flows through a multiplication, an `exp`, a
# subtraction, an addition and a division, five operations whose local derivatives were
# written separately. A mistake in any of them would make the result disagree with
# `tanh`'s own one-line derivative $1 - t^2$. Let us run chapter 3's neuron both ways.


# %% tags=["claim-setup"]
def tanh_from_exp(n):
    e = (2 * n).exp()
    return (e - 1) / (e + 1)


def neuron_grads(activation, x1=2.0, w1=-3.0, x2=0.0, w2=1.0, b=6.8813735870195432):
    """Chapter 3's neuron (by default), with `activation` in place of tanh: o and do/d(each leaf)."""
    x1, x2 = Value(x1, label="x1"), Value(x2, label="x2")
    w1, w2 = Value(w1, label="w1"), Value(w2, label="w2")
    b = Value(b, label="b")
    o = activation(x1 * w1 + x2 * w2 + b)
    o.backward()
    return o.data, {v.label: v.grad for v in (x1, w1, x2, w2, b)}


# %%
o_tanh, g_tanh = neuron_grads(lambda n: n.tanh())
o_exp, g_exp = neuron_grads(tanh_from_exp)
print(f"{'':>6} {'tanh()':>9} {'from exp':>9}")
print(f"{'o':>6} {o_tanh:9.4f} {o_exp:9.4f}")
for name in g_tanh:
    print(f"{'do/d' + name:>6} {g_tanh[name] + 0.0:9.4f} {g_exp[name] + 0.0:9.4f}")
largest = max(abs(g_tanh[k] - g_exp[k]) for k in g_tanh)
print(f"largest difference between the two: below 1e-12? {largest < 1e-12}")

# %% [markdown]
# Both columns read $o = 0.7071$ and the gradients $-1.5$, $1.0$, $0.5$, $0.0$ and $0.5$
# for $x_1$, $w_1$, $x_2$, $w_2$ and $b$, and no pair differs by more than $10^{-12}$. Five
# separately written local derivatives, chained, reproduce the one-line formula, on this
# neuron and on others.
#
# <details><summary>How we know</summary>
#
# The claims test runs the comparison on 200 fresh neurons, every leaf drawn from
# $[-2, 2]$: the two columns agree to $10^{-12}$ on every one. Were they to disagree on 1
# neuron in 10, 200 neurons would catch it almost surely.
#
# <!-- claim: ch05-self-test-agrees -->
# </details>
#
# Would the test notice a mistake? Here is the same comparison with one planted on
# purpose: an `exp` whose local derivative is written as $x$ instead of $e^x$, a slip
# of the kind this chapter could have made. Everything else is unchanged.


# %% tags=["claim-setup"]
import math  # this cell also runs on its own, in the course's claims tests


def exp_with_a_bug(v):
    """e^v, with a wrong local derivative: v instead of e^v."""
    return Value(math.exp(v.data), (v,), "exp", _local_grads=(v.data,))


def tanh_from_buggy_exp(n):
    e = exp_with_a_bug(2 * n)
    return (e - 1) / (e + 1)


# %%
o_bug, g_bug = neuron_grads(tanh_from_buggy_exp)
print(f"{'':>6} {'tanh()':>9} {'bad exp':>9}")
print(f"{'o':>6} {o_tanh:9.4f} {o_bug:9.4f}")
for name in g_tanh:
    print(f"{'do/d' + name:>6} {g_tanh[name] + 0.0:9.4f} {g_bug[name] + 0.0:9.4f}")
two_n = 2 * 0.8813735870195432  # the exp's input: 2n, for chapter 3's n
ratios = [g_bug[k] / g_tanh[k] for k in g_tanh if g_tanh[k] != 0]
print(f"bad / right, each nonzero gradient: {min(ratios):.4f} to {max(ratios):.4f}")
print(f"(2n) e^(-2n) at 2n = {two_n:.4f}: {two_n * math.exp(-two_n):.4f}")

# %% [markdown]
# The output is still $o = 0.7071$, since the forward pass never reads a derivative.
# The gradients are not: $-0.4537$, $0.3024$, $0.1512$, $0.0000$ and $0.1512$ against
# $-1.5$, $1.0$, $0.5$, $0.0$ and $0.5$. The self-test catches the planted mistake, in
# every gradient but $\partial o/\partial w_2$, which is 0 either way because $x_2 = 0$
# (chapter 3): one test point can hide a wrong derivative, so chapter 6 checks many.
#
# The last two lines say by how much. Every gradient passes through the `exp`, so every one
# is multiplied by the same wrong factor: the bad local derivative $2n$ over the right one
# $e^{2n}$, that is $(2n)\,e^{-2n}$, here $0.3024$. That factor is never larger than
# $1/e \approx 0.37$ (its peak, at $2n = 1$), and for $n < 0$ it is negative. So on *any*
# neuron, every nonzero gradient the bad `exp` reports is off by at least $1 - 1/e
# \approx 63\,\%$ of its size: compared *relatively*, the self-test catches the bug on
# every neuron.
#
# Compared by absolute difference, it does not always. A check that asks every gradient to
# be within $10^{-3}$ of the right one lets about 2 neurons in 100 slip through, with every
# leaf drawn from $[-2, 2]$. They are neurons with $|o|$ above 0.999, so flat that every
# gradient, right or wrong, is below $1.6 \cdot 10^{-3}$: even off by 63 %, such a
# gradient is off by less than $10^{-3}$. (This is why chapter 6's check scales its
# tolerance with each gradient's size.)
#
# <details><summary>How we know</summary>
#
# We measured 20,000 such neurons (seeds 1000 to 20999): 438 slipped under $10^{-3}$
# (2.19 %; from 1.99 % to 2.39 % with 95 % confidence), every one with $|o|$ above 0.999
# and every gradient below $1.6 \cdot 10^{-3}$.
#
# The claims test draws 8,000 fresh neurons. On each it checks that the bad `exp` multiplies
# every gradient by $(2n)\,e^{-2n}$, never above $1/e$, so that every nonzero gradient is
# off by at least 63 %. It counts the slips: there must be 134 to 220 of them (1.7 % to
# 2.75 %), each a flat neuron. That count fails with probability 0.99 were the truth 1.33
# in 100, and 0.90 were it 3 in 100 (1.5 times off "about 2 in 100").
#
# <!-- claim: ch05-self-test-catches-bug -->
# </details>
#
# Here is the rebuilt part of the graph (with the correct `exp`), from $n$ to $o$:

# %%
n = Value(0.8813735870195432, label="n")
two_n = 2 * n
two_n.label = "2n"
e = two_n.exp()
e.label = "e"
top, bottom = e - 1, e + 1
top.label, bottom.label = "e - 1", "e + 1"
o = top / bottom
o.label = "o"
o.backward()
describe_figure(
    draw_dot(o, rankdir="TB"),
    "tanh rebuilt from exp: e feeds both e - 1 and e + 1, and n's grad is 0.5, tanh's own slope here.",
)

# %% [markdown]
# The node `e` (data 5.8284) has two arrows leaving it, into the subtraction and the
# addition, and its gradient is the sum of what both paths send back: accumulation
# from chapter 4 doing its job. The division at the bottom takes `e - 1` (4.8284) over
# `e + 1` (6.8284). At the top, `n` ends with gradient 0.5000, which is
# $1 - 0.7071^2$, the derivative `tanh` would have reported directly.
#
# Agreement between two routes through the same engine is a good sign, not proof: both
# routes could share a mistake. Chapter 6 checks the engine against an independent
# referee, the nudge.
#
# ## 12. Large inputs: keeping tanh and sigmoid finite
#
# Formulas that are equal on paper can behave very differently in floating point. A
# Python float cannot hold numbers above about $1.8 \times 10^{308}$, so $e^x$ overflows
# for any $x$ above 709.78. The textbook formulas for tanh and sigmoid both contain an
# exponential that blows up on one side:


# %%
def naive_tanh(x):
    e = math.exp(2 * x)
    return (e - 1) / (e + 1)


def naive_sigmoid(x):
    return 1 / (1 + math.exp(-x))


for f in (naive_tanh, naive_sigmoid):
    for x in (1000.0, -1000.0):
        try:
            print(f"{f.__name__}({x:.0f}) = {f(x):.4f}")
        except OverflowError as e:
            print(f"{f.__name__}({x:.0f}) -> {type(e).__name__}: {e}")

# %% [markdown]
# The naive tanh survives $-1000$ (where $e^{-2000}$ quietly becomes 0) but overflows at
# $+1000$, because it computes $e^{2000}$; in fact it already fails from $x \approx 355$.
# The naive sigmoid is the mirror image: fine at $+1000$, an `OverflowError` at $-1000$,
# where it computes $e^{1000}$. Both true answers are perfectly ordinary numbers, $\pm 1$
# and 0 or 1. Only the route to them is broken.
#
# The package avoids the bad route. For tanh it calls `math.tanh`, which is written to be
# safe for any input. For sigmoid it picks, by the sign of $x$, the one of two equal
# formulas whose exponential cannot blow up: $1/(1 + e^{-x})$ for $x \ge 0$, and
# $e^{x}/(1 + e^{x})$ for $x < 0$. Either way the exponent is never positive, so the
# exponential stays between 0 and 1. The local derivatives, $1 - t^2$ and $s(1 - s)$, are
# computed from those safe outputs.

# %%
for x in (1000.0, -1000.0):
    for name in ("tanh", "sigmoid"):
        v = Value(x)
        out = getattr(v, name)()
        out.backward()
        print(f"package {name}({x:+.0f}) = {out.data:+.4f}, gradient {v.grad:.4f}")

v = Value(1000.0)
try:
    tanh_from_exp(v)
except OverflowError as e:
    print(f"tanh_from_exp(1000) -> {type(e).__name__}: {e}")

# %% [markdown]
# The package gives $\tanh(\pm 1000) = \pm 1$ and $\sigma(1000) = 1$, $\sigma(-1000) = 0$,
# each with gradient 0.0000: the functions are flat out there, and the engine says so
# instead of crashing. Nor does any larger input overflow them, right up to the largest
# float.
#
# <details><summary>How we know</summary>
#
# The claims test tries 200 sizes of input spread evenly (in their logarithms) from 1 to
# $10^{308}$ and 200 more drawn at random, each positive and negative: the package's tanh
# and sigmoid and their gradients stay finite on every one.
#
# <!-- claim: ch05-stable-activations -->
# </details>
#
# Our `tanh_from_exp` from the self-test, on the other hand, inherits the naive formula's
# weakness, and the package's `exp` stops it with a message that names the limit. That is
# one reason to give common activations their own operation rather than assembling them
# from pieces.
#
# ## 13. Changing a number between the forward and the backward pass
#
# A graph is built in the forward pass and used later, in the backward pass. What if a
# value's `.data` changes in between? It happens more easily than it sounds: an update
# step `w.data -= lr * w.grad` run before a `backward()` that still needed the old graph,
# or a value reused and overwritten in a loop.
#
# Take $c = a \cdot b$ at $a = 2$, $b = 3$, so $c = 6$ and $\partial c/\partial a = b = 3$.
# After the forward pass, set `b.data = 10`, then call `backward()`. We compare two
# multiplications that differ in one thing only, *when* they read the local derivative:
# the closure of sections 1 to 8 (the lectures' style, `other.data` read when the
# closure runs) and the package's `*`, which stored the number $3$ when the
# multiplication ran.


# %% tags=["claim-setup"]
def mul_with_closure(a, b):
    """The on-screen __mul__ of this chapter, on the package's Value."""
    out = Value(a.data * b.data, (a, b), "*")

    def _backward():
        a.grad += b.data * out.grad  # b.data is read now, at backward time
        b.grad += a.data * out.grad

    out._backward = _backward
    return out


for name, mul in (("closure", mul_with_closure), ("stored at forward", lambda a, b: a * b)):
    a, b = Value(2.0), Value(3.0)
    c = mul(a, b)
    b.data = 10.0  # changed after the forward pass, before the backward pass
    c.backward()
    print(f"{name:>17}: c = {c.data:.4f}, dc/da = {a.grad:.4f}")

# %% [markdown]
# Both graphs still say $c = 6$, computed with $b = 3$. The stored local derivative gives
# $\partial c/\partial a = 3.0000$, the slope of the computation that actually happened.
# The closure gives $10.0000$, a slope that belongs to no computation: the forward pass
# used $b = 3$, the backward pass $b = 10$. Nothing warns us. The two runs differ only in
# *when* the local derivative is read, so freezing it at forward time is what protects the
# package, whatever the numbers.
#
# <details><summary>How we know</summary>
#
# The claims test repeats the two runs at 20 fresh triples of $a$, $b$ and the new $b$,
# each drawn between $-3$ and $3$: on every one the closure returns the new $b$ and the
# stored derivative the old one, exactly.
#
# <!-- claim: ch05-stored-local-grads -->
# </details>
#
# PyTorch's backward functions keep the tensors they need (here $a$ and $b$) rather than
# copies of their numbers, so PyTorch is exposed to the same mistake. Its defence is a
# version counter on every tensor: an in-place operation bumps the counter, and
# `backward()` refuses to run if a tensor it kept has changed since. Writing to `.data`
# goes around that counter. Both, run:

# %%
if torch is None:
    print("PyTorch (optional): not installed, so the in-place change through b.add_ is not tried")
    print("PyTorch (optional): not installed, so the change through b.data is not tried")
else:
    for how in ("b.add_", "b.data"):
        a = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
        b = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
        c = a * b
        if how == "b.add_":
            with torch.no_grad():
                b.add_(7.0)  # an in-place change that PyTorch tracks
        else:
            b.data += 7.0  # the escape hatch: not tracked
        try:
            c.backward()
            print(f"PyTorch (optional): through {how}: dc/da = {a.grad.item():.4f}, no error")
        except RuntimeError as e:
            print(
                f"PyTorch (optional): through {how}: RuntimeError (modified in place): "
                + re.search(r"is at version \d+; expected version \d+", str(e)).group(0)
            )

# %% [markdown]
# With PyTorch installed, the tracked change (`b.add_`) stops `backward()` with
# "one of the variables needed for gradient computation has been modified by an inplace
# operation", and the message shows the counter: $b$ is at version 1, and the
# multiplication expected version 0. The untracked change (`b.data`) gives
# $\partial c/\partial a = 10.0000$ with no error, exactly like our closure. The rule
# for every engine: do not change a value between the forward pass that used it and the
# backward pass that needs it. Training loops update the weights only *after*
# `backward()` has finished.

# %% [markdown]
# ## Summary
#
# - Every operation contributes two facts: its forward value and its local derivatives.
#   The rest of the engine is shared.
# - Subtraction, negation and division can be assembled from addition, multiplication and
#   powers, and the chain rule derives their gradients; the package gives them their own
#   nodes for compact graphs.
# - Reflected methods (`__radd__`, `__rmul__`, `__rsub__`, `__rtruediv__`) make `2 * a`,
#   `1 - a` and `sum([...])` work.
# - tanh, sigmoid and relu have derivatives $1 - t^2$, $s(1-s)$ and a 0/1 step; the
#   engine's slopes match the formulas at every point plotted.
# - tanh rebuilt from `exp` gives the same gradients as `tanh` itself, a first self-test;
#   a planted mistake in `exp`'s derivative shows up at once.
# - Equal formulas are not equally safe: the package's tanh and sigmoid stay finite at
#   $\pm 1000$ where the textbook formulas overflow.
# - A mean over a batch is where a loss divides: each gradient shrinks by the batch size.
# - A closure that reads `.data` at backward time gives a wrong gradient if the value
#   changed after the forward pass (10 instead of 3); local derivatives stored at forward
#   time do not. PyTorch refuses tracked in-place changes and misses changes to `.data`.

# %% [markdown]
# ## Exercises
#
# ### Exercise 5.1: a classmate's softsign (find the bugs)
#
# Your turn to extend the engine. Write a function that takes a package `Value` `x` and
# returns a **new** `Value` with the right `data` *and* the right gradient. There are two
# equally good ways to attach the gradient; here is $x^3$ both ways:


# %%
def cube_with_closure(x):  # the lectures' style
    out = Value(x.data**3, (x,), "cube")

    def _backward():
        x.grad += 3 * x.data**2 * out.grad  # local derivative times the gradient from above

    out._backward = _backward
    return out


def cube_with_local_grads(x):  # the package's style: hand over the local derivative
    return Value(x.data**3, (x,), "cube", _local_grads=(3 * x.data**2,))


for cube in (cube_with_closure, cube_with_local_grads):
    x = Value(2.0)
    y = cube(x)
    y.backward()
    print(f"{cube.__name__}: {y.data:.4f}, d/dx = {x.grad:.4f}")

# %% [markdown]
# Both give $2^3 = 8$ and $3 \cdot 2^2 = 12$. With `_local_grads` you only state the local
# derivative, and the engine multiplies by the incoming gradient and accumulates for you.
# With a closure you do those two things yourself, so remember `+=` and `* out.grad`.
#
# A classmate added $\operatorname{softsign}(x) = x / (1 + |x|)$, a cheap cousin of `tanh`,
# in the lectures' style. They compared its gradient with a nudge at $x = 2$, saw
# 0.1111 both times, and moved on. It has two bugs: one shows only for $x < 0$, the other
# only when `x` feeds more than one node. Find both, by reasoning and by nudging at other
# inputs, then fix `my_softsign`. Nobody gives you the derivative: the quotient rule
# needs $d|x|/dx$, which is not 1 everywhere.

# %%
from micrograd_lesson.exercises import check_max, check_softsign, reveal


def my_softsign(x):  # the classmate's version: fix it
    out = Value(x.data / (1 + abs(x.data)), (x,), "softsign")

    def _backward():
        x.grad = out.grad / (1 + x.data) ** 2

    out._backward = _backward
    return out


x = Value(2.0)
my_softsign(x).backward()
print(
    f"at x = 2: backward gives {x.grad:.4f}, the nudge gives {(2.000001 / 3.000001 - 2 / 3) / 1e-6:.4f}"
)
check_softsign(my_softsign)

# %%
reveal("ch05.softsign")

# %% [markdown]
# ### Exercise 5.2: the maximum of two values (derive the rule)
#
# `relu` is $\max(0, x)$. Generalise it: write `maximum(a, b)` for two `Value`s, with
# data $\max(a, b)$ and the right local derivatives. This time nobody gives you the
# derivative. Work it out by nudging in your head:
#
# - when $a > b$, how much does the maximum move if you nudge $a$? If you nudge $b$?
# - when $a = b$ (a tie), the maximum has a corner and no ordinary derivative. Any rule
#   you choose must still be consistent with two facts: nudging **both** inputs up by $h$
#   raises the maximum by exactly $h$, and nudging **one** input raises the maximum by $h$
#   if you nudge it up and leaves it unchanged if you nudge it down. What does that say
#   about the two local derivatives at a tie?
#
# A tempting rule gives a tie's gradient to both inputs, `1.0 if a.data >= b.data` for
# $a$ and `1.0 if b.data >= a.data` for $b$. Decide whether it is right before you write
# yours. The check tries $a > b$, $a < b$, a tie, `maximum(a, a)`, and the maximum inside
# a bigger expression.


# %%
def my_maximum(a, b):
    return Value(max(a.data, b.data))  # data is right; connect it to a and b, with local derivatives


check_max(my_maximum)

# %%
reveal("ch05.max")

# %% [markdown]
# Next: **chapter 6**, where we stop trusting the engine and start testing it: gradient
# checks against the nudge, property-based tests, and PyTorch as a second opinion.
