# %% [markdown]
# # Chapter 3 — Backpropagation by hand
#
# Chapter 2 built values that remember how they were computed and drew the graph of
#
# $$e = a \cdot b, \qquad d = e + c, \qquad L = d \cdot f$$
#
# at $a = 2$, $b = -3$, $c = 10$, $f = -2$, where $L = -8$. Every node had an empty grad
# row. This chapter fills it in.
#
# The grad of a node answers one question: *if this value were nudged up by a tiny
# amount, how fast would $L$ change?* In symbols it is the partial derivative
# $\partial L / \partial x$ for the node $x$. Chapter 1 could answer that by nudging,
# one re-run of the whole graph per node. Here we answer it for every node in a single
# sweep from $L$ back to the leaves, using one rule from calculus, the **chain rule**.
# That sweep is **backpropagation**. We do it by hand, so that when chapter 4 automates
# it, nothing about it is mysterious.

# %% tags=["claim-setup"]
import random

import matplotlib.pyplot as plt
import numpy as np

from micrograd_lesson import describe_figure, draw_dot
from micrograd_lesson.exercises import check_backprop_h, check_one_knob, check_used_twice, reveal

random.seed(0)  # seeds the network built at the end of the chapter
rng = np.random.default_rng(0)  # seeds the random directions compared with the gradient

# %%
try:
    import torch
except ImportError:
    torch = None
print("PyTorch (optional): " + (f"found, version {torch.__version__}" if torch else "not installed"))

# %% [markdown]
# ## The class grows a grad
#
# The on-screen `Value` gains one attribute, `grad`, which starts at $0$: "no influence
# on $L$ known yet". It also gains `tanh`, which we need for the neuron at the end of
# the chapter. Everything else is chapter 2's class.

# %% tags=["defines-value", "claim-setup"]
import math  # this cell must also run on its own


class Value:
    """A number that remembers its inputs and operation, and has room for a gradient."""

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0  # dL/d(this value); 0 until someone works it out
        self._prev = tuple(_children)
        self._op = _op
        self.label = label

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad}, label={self.label!r})"

    def __add__(self, other):
        return Value(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        return Value(self.data * other.data, (self, other), "*")

    def tanh(self):
        return Value(math.tanh(self.data), (self,), "tanh")


# %% tags=["claim-setup"]
def build_graph(a_data=2.0, b_data=-3.0, c_data=10.0, f_data=-2.0):
    """The chapter's running example; returns every node by name."""
    a = Value(a_data, label="a")
    b = Value(b_data, label="b")
    c = Value(c_data, label="c")
    f = Value(f_data, label="f")
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    L = d * f
    L.label = "L"
    return dict(a=a, b=b, c=c, f=f, e=e, d=d, L=L)


# %%
nodes = build_graph()
a, b, c, f, e, d, L = (nodes[k] for k in "abcfedL")
print(f"L = {L.data:.4f}")
describe_figure(
    draw_dot(L, rankdir="TB"),
    "Chapter 2's graph of L, with a grad row on every node; no gradient is worked out yet, "
    "so every grad reads 0.0000.",
)

# %% [markdown]
# The same graph as before, $L = -8$, now with a grad row on every node, all $0.0000$.
#
# To check each gradient we work out, we also need the slow, trustworthy method from
# chapter 1. `L_nudged(name, h)` recomputes $L$ with plain floats after adding $h$ to the
# one node called `name`, wherever it sits in the graph; `slope_by_nudging` turns that
# into rise over run.


# %%
def L_nudged(name=None, h=0.0):
    """L recomputed with h added to the node called `name` (leaf or intermediate)."""

    def bump(node_name, x):
        return x + h if node_name == name else x

    a, b, c, f = bump("a", 2.0), bump("b", -3.0), bump("c", 10.0), bump("f", -2.0)
    e = bump("e", a * b)
    d = bump("d", e + c)
    return bump("L", d * f)


def slope_by_nudging(name, h=1e-6):
    return (L_nudged(name, h) - L_nudged()) / h


print(f"L = {L_nudged():.4f}; nudging a by 0.001 gives L = {L_nudged('a', 0.001):.4f}")

# %% [markdown]
# Nudging $a$ up by $0.001$ moves $L$ from $-8$ to $-7.994$: up by six times the nudge.
# So we expect $\partial L/\partial a = 6$. Let us see where that 6 comes from.
#
# ## Start at the root
#
# The first gradient is free. How fast does $L$ change when $L$ is nudged? One for one:
# $\partial L / \partial L = 1$.

# %%
L.grad = 1.0
print(f"dL/dL: by hand {L.grad:.4f}, by nudging {slope_by_nudging('L'):.4f}")

# %% [markdown]
# ## A product: each input's slope is the other input
#
# $L = d \cdot f$. Chapter 1 found the rule for a product already: nudge $d$ and $L$
# moves by $f$ times the nudge; nudge $f$ and it moves by $d$ times. So
#
# $$\frac{\partial L}{\partial d} = f = -2, \qquad \frac{\partial L}{\partial f} = d = 4.$$
#
# We write it as *local slope times the grad of the output*. Here the output is $L$
# itself, whose grad is 1, so the factor changes nothing yet, but the habit pays off
# from the next step on.

# %%
d.grad = f.data * L.grad
f.grad = d.data * L.grad
for node in (d, f):
    print(f"dL/d{node.label}: by hand {node.grad:.4f}, by nudging {slope_by_nudging(node.label):.4f}")

# %% [markdown]
# $\partial L/\partial d = -2$ and $\partial L/\partial f = 4$, and nudging agrees.
#
# ## The chain rule
#
# Now $d = e + c$, one step further from $L$. We know two things:
#
# - **locally**, nudging $e$ by some amount nudges $d$ by the same amount (a sum passes
#   nudges straight through): $\partial d/\partial e = 1$;
# - from the step before, $d$ moves $L$ at a rate of $-2$: $\partial L/\partial d = -2$.
#
# Put together: a nudge to $e$ becomes the same nudge to $d$, which becomes $-2$ times
# that nudge to $L$. Rates along a chain **multiply**. That is the chain rule:
#
# $$\frac{\partial L}{\partial e} = \frac{\partial L}{\partial d} \cdot \frac{\partial d}{\partial e} = -2 \cdot 1 = -2.$$
#
# In words: *the grad of an input is the grad of its output times the local slope
# between them.* If a car goes twice as fast as a bicycle and the bicycle four times as
# fast as a walker, the car goes 2 × 4 = 8 times as fast as the walker. The same holds
# for $c$.

# %%
e.grad = 1.0 * d.grad  # local slope of + is 1
c.grad = 1.0 * d.grad
for node in (e, c):
    print(f"dL/d{node.label}: by hand {node.grad:.4f}, by nudging {slope_by_nudging(node.label):.4f}")

# %% [markdown]
# Both are $-2$: $\partial L/\partial e = -2$ and $\partial L/\partial c = -2$. A plus
# node simply hands its grad to each of its inputs.
#
# ## The last step: back to a and b
#
# $e = a \cdot b$, a product again, so each local slope is the other input: $b = -3$
# for $a$, and $a = 2$ for $b$. Multiply by the grad arriving from above, $-2$:
#
# $$\frac{\partial L}{\partial a} = \frac{\partial L}{\partial e} \cdot b = (-2)(-3) = 6,
# \qquad \frac{\partial L}{\partial b} = \frac{\partial L}{\partial e} \cdot a = (-2)(2) = -4.$$

# %%
a.grad = b.data * e.grad
b.grad = a.data * e.grad
for node in (a, b):
    print(f"dL/d{node.label}: by hand {node.grad:.4f}, by nudging {slope_by_nudging(node.label):.4f}")

# %% [markdown]
# There is the 6 we saw at the start, and $\partial L/\partial b = -4$.
#
# ## All the gradients, checked
#
# Every node now has its gradient, worked out by hand in one sweep from the root back
# to the leaves. Here they are beside the nudged estimates:

# %%
print(f"{'node':>5} {'by hand':>9} {'by nudge':>9}")
for name in "Ldfecab":
    print(f"{name:>5} {nodes[name].grad:9.4f} {slope_by_nudging(name):9.4f}")

# %% [markdown]
# Every row matches: $\partial L/\partial d = -2$, $\partial L/\partial f = 4$,
# $\partial L/\partial c = -2$, $\partial L/\partial e = -2$, $\partial L/\partial a = 6$
# and $\partial L/\partial b = -4$. The drawing shows the same numbers in place, with a
# note on each node saying which product produced its grad: for example the grad of
# $a$ is "b × e.grad", $(-3)(-2) = 6$.

# %%
how = {
    L: "start: 1",
    d: "f × L.grad",
    f: "d × L.grad",
    e: "1 × d.grad",
    c: "1 × d.grad",
    a: "b × e.grad",
    b: "a × e.grad",
}
describe_figure(
    draw_dot(L, rankdir="TB", notes=how),
    "The same graph with every grad worked out by hand, each node noting the product that gave "
    "its grad: a's grad is b × e.grad = (-3)(-2) = 6.",
)

# %% [markdown]
# ### The same sweep, one step at a time
#
# The course's package can replay this sweep on the drawing. It needs to know how each
# operation passes gradients back, which our small class cannot tell it yet (chapter 4
# teaches it), so we rebuild $L$ with the package's finished `Value`. In each frame the
# orange node is the one we just worked on: its grad is multiplied by each local derivative
# and sent along the red edges (the label reads "grad × local derivative = what arrives"),
# and the green cells are the grads that just arrived. Press *previous* and *next*, or drag
# the slider; it opens on the last step, with every gradient found.

# %%
from micrograd_lesson import Value as EngineValue
from micrograd_lesson import step_through

ea, eb, ec, ef = (EngineValue(x, label=k) for k, x in zip("abcf", [2.0, -3.0, 10.0, -2.0]))
ee = ea * eb
ee.label = "e"
ed = ee + ec
ed.label = "d"
eL = ed * ef
eL.label = "L"
step_through(eL)

# %% [markdown]
# Notice how little each step needed: the grad of the node just above it, and a local
# slope that depends only on the operation and its inputs' data. Nothing in the step
# for $a$ cares what happens after $e$; all of that is already summed up in $e$'s grad.
# So one sweep, one multiplication per edge, finds all seven gradients, where nudging
# needed a fresh run of the whole graph for every node it measured.
#
# ## One step along the gradient
#
# The gradients say which way to move each leaf to make $L$ **bigger**: $a$ up
# (grad $6$), $b$ down (grad $-4$), $c$ down (grad $-2$), $f$ up (grad $4$). Let us take
# one small step: add $0.01$ times its grad to every leaf, and run the graph forward again.

# %%
step = 0.01
for leaf in (a, b, c, f):
    leaf.data += step * leaf.grad

new = build_graph(a.data, b.data, c.data, f.data)
print(f"leaves now: a = {a.data:.4f}, b = {b.data:.4f}, c = {c.data:.4f}, f = {f.data:.4f}")
print(f"L before the step: {L.data:.4f}")
print(f"L after the step:  {new['L'].data:.4f}")
predicted = L.data + step * sum(leaf.grad**2 for leaf in (a, b, c, f))
print(f"first-order prediction: {L.data:.4f} + {step} × (6² + 4² + 2² + 4²) = {predicted:.4f}")

# %% [markdown]
# $L$ rose from $-8$ to about $-7.29$ ($-7.2865$ to four decimals). The gradient predicted the
# change: each leaf moved by $0.01$ times its grad, and each such move changes $L$ by
# about its grad times the move, so the total rise is about $0.01 \times (36 + 16 + 4 +
# 16) = 0.72$, predicting $-7.28$. The prediction missed by $0.0065$: $L$ is not a straight
# line in its inputs, it curves.
#
# The plot shows the curve. It moves all four leaves together by $t$ times their
# gradients and plots $L$ against $t$. The straight dashed line is the prediction from
# the gradients alone; it touches the curve at $t = 0$, like the tangent lines of
# chapter 1.

# %%
grads = {name: nodes[name].grad for name in "abcf"}
start = {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0}
ts = np.linspace(-0.1, 0.1, 81)
L_along = [build_graph(*(start[k] + t * grads[k] for k in "abcf"))["L"].data for t in ts]

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.plot(ts, L_along, label="L after moving every leaf by t × its grad", linewidth=2)
ax.plot(ts, -8.0 + 72.0 * ts, "--", label="first-order prediction: -8 + 72 t")
ax.plot([0.0, 0.01], [-8.0, new["L"].data], "ko")
ax.annotate(
    "step of 0.01: L = -7.2865",
    (0.01, new["L"].data),
    xytext=(0.02, -9.5),
    arrowprops={"arrowstyle": "->"},
)
ax.set_xlabel("t (how far along the gradient)")
ax.set_ylabel("L")
ax.set_title("Moving along the gradient raises L")
ax.legend(loc="lower right")
ax.grid(True, alpha=0.3)
describe_figure(
    fig,
    "L rises as the leaves move along their gradient: near t = 0 the curve follows the "
    "first-order prediction -8 + 72 t, and a step of 0.01 gives L = -7.2865.",
)
plt.show()

# %% [markdown]
# Near $t = 0$ the curve and the line are hard to tell apart; further out they part. How fast
# does the miss shrink as the step gets shorter? Take the same step, ten times shorter.

# %%
misses = []
for t in (0.01, 0.001):
    moved = build_graph(*(start[k] + t * grads[k] for k in "abcf"))["L"].data
    misses.append(abs(moved - (-8.0 + 72.0 * t)))
    print(f"step {t}: L = {moved:.7f}, predicted {-8.0 + 72.0 * t:.7f}, missed by {misses[-1]:.7f}")
print(f"ten times shorter, missed by {misses[0] / misses[1]:.1f} times less")

# %% [markdown]
# A step ten times shorter misses about a hundred times less: the miss shrinks like the
# *square* of the step, while the step itself shrinks only tenfold. So the shorter the step,
# the better the gradient predicts it; for long steps, the curve takes over.
#
# <details><summary>How we know</summary>
#
# We measured the same ratio at 2,000 other points (seeds 2000 to 3999, each leaf drawn
# between $-3$ and $3$), twice at each: step 0.01 against 0.001, and 0.001 against 0.0001.
# Of the 4,000 ratios, half lay between 99.95 and 100.05, and all between 82.7 and 138.9.
# A ratio far from 100 comes where the squared part of the miss nearly vanishes along the
# gradient and the cubed part takes over; a review of 40,000 more found 3 below 50 (the
# least 21.6). The claims test measures 20 ratios at fresh points and asks that their
# median lie between 80 and 125; were the truth 1.5 times off (67 or 150), it would fail
# almost surely.
#
# <!-- claim: ch03-first-order-small-steps -->
# </details>

# %% [markdown]
# ## The gradient is the steepest way up
#
# Why move every leaf by its *own* gradient? Any other mix of moves would also change
# $L$. The claim is that, among all moves of the same small length, the gradient's
# direction raises $L$ the most. Let us test it: take 2,000 random directions in the
# four-dimensional space of $(a, b, c, f)$, each scaled to length $\varepsilon = 0.01$,
# and measure how much each raises $L$. Then take one more step of the same length,
# along the gradient.

# %%
g = np.array([grads[k] for k in "abcf"])  # (6, -4, -2, 4)
x0 = np.array([start[k] for k in "abcf"])
eps = 0.01


def L_at(v):
    return build_graph(*v)["L"].data


directions = rng.normal(size=(2000, 4))
directions /= np.linalg.norm(directions, axis=1, keepdims=True)  # unit length
rises = np.array([L_at(x0 + eps * u) - L_at(x0) for u in directions])
along_gradient = L_at(x0 + eps * g / np.linalg.norm(g)) - L_at(x0)
cosines = directions @ g / np.linalg.norm(g)  # cos of the angle between each direction and g

print(f"length of the gradient |g| = {np.linalg.norm(g):.4f}")
print(
    f"rise along the gradient:         {along_gradient:.4f}   (eps × |g| = "
    f"{eps * np.linalg.norm(g):.4f})"
)
print(f"best rise of 2000 random moves:  {rises.max():.4f}")
print(f"random moves that beat the gradient: {(rises > along_gradient).sum()} of {len(rises)}")

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.scatter(cosines, rises, s=6, alpha=0.5, label="2000 random directions")
ax.plot([1.0], [along_gradient], "r*", markersize=14, label="the gradient's direction")
ax.plot(
    [-1, 1],
    [-eps * np.linalg.norm(g), eps * np.linalg.norm(g)],
    "k--",
    linewidth=1,
    zorder=3,
    label="ε |g| cos θ",
)
ax.set_xlabel("cos θ, θ = angle between the move and the gradient")
ax.set_ylabel("rise of L for a move of length 0.01")
ax.set_title("For a short step, hardly any direction raises L faster than the gradient")
ax.legend(loc="upper left")
ax.grid(True, alpha=0.3)
describe_figure(
    fig,
    "Every random direction's rise lies on the dashed line eps |g| cos(theta); the "
    "gradient's own direction, at cos(theta) = 1, rises the most.",
)
plt.show()

# %% [markdown]
# The gradient $g = (6, -4, -2, 4)$ has length $|g| = 8.4853$. A step of length $0.01$
# along it raises $L$ by $0.0848$ (the first-order prediction $\varepsilon |g|$ is
# $0.0849$); the best of 2,000 random directions manages $0.0847$, and none beats the
# gradient. The scatter shows why: every point lies on the dashed line
# $\varepsilon\,|g| \cos\theta$. To first order a move $\varepsilon u$ changes $L$ by
# $\varepsilon\, g \cdot u = \varepsilon |g| \cos\theta$, which is largest when the
# move points along $g$ ($\theta = 0$), zero at right angles to it, and most negative
# straight against it ($\theta = 180°$). The gradient is the direction of **steepest
# ascent** for small steps, and its length is the rate of that ascent.
#
# "For small steps" matters. The dashed line is a first-order prediction, and a longer
# step feels the curvature of $L$, which the gradient knows nothing about. The cell
# below repeats the race at six step lengths, with 200,000 random directions each. It
# feeds whole NumPy arrays through `build_graph` (our class only multiplies and adds
# `.data`, so it works on arrays unchanged), one array entry per direction.


# %% tags=["claim-setup"]
def directions_beating_gradient(steps, n_directions=200_000, seed=0):
    """For each step length: how many of n random unit directions raise L more than the gradient's."""
    u = np.random.default_rng(seed).normal(size=(n_directions, 4))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    leaves = np.array([2.0, -3.0, 10.0, -2.0])
    gradient = np.array([6.0, -4.0, -2.0, 4.0])
    L0 = build_graph(*leaves)["L"].data
    counts = []
    for step_length in steps:
        along = build_graph(*(leaves + step_length * gradient / np.linalg.norm(gradient)))["L"].data - L0
        rises = build_graph(*(leaves + step_length * u).T)["L"].data - L0  # one entry per direction
        counts.append(int((rises > along).sum()))
    return counts


# %%
steps = [0.01, 0.05, 0.1, 0.2, 0.5, 1.0]
beat = directions_beating_gradient(steps)
for step_length, count in zip(steps, beat):
    print(
        f"step length {step_length:4}: {count:6,} of 200,000 random directions beat the gradient "
        f"({count / 2000:.3f} %)"
    )

# where the winners are at step length 0.5: the same 200,000 directions (seed 0 again)
u = np.random.default_rng(0).normal(size=(200_000, 4))
u /= np.linalg.norm(u, axis=1, keepdims=True)
L0 = L_at(x0)
rises_half = build_graph(*(x0 + 0.5 * u).T)["L"].data - L0
along_half = L_at(x0 + 0.5 * g / np.linalg.norm(g)) - L0
cos_all = u @ g / np.linalg.norm(g)
winners = rises_half > along_half

fig, (left, right) = plt.subplots(1, 2, figsize=(8.5, 3.6))
left.scatter(cos_all[:5000], rises_half[:5000], s=3, alpha=0.3, label="5,000 of the directions")
left.scatter(
    cos_all[winners],
    rises_half[winners],
    s=14,
    marker="^",
    color="#E69F00",
    label=f"the {winners.sum()} that beat it",
)
left.axhline(along_half, color="#D55E00", linewidth=1, label="rise along the gradient")
left.set_xlabel("cos θ")
left.set_ylabel("rise of L for a move of length 0.5")
left.set_title("Step length 0.5")
left.legend(fontsize=8, loc="upper left")
left.grid(True, alpha=0.3)
right.plot(steps, [100 * count / 200_000 for count in beat], "o-")
right.set_xscale("log")
right.set_xlabel("step length")
right.set_ylabel("% of directions that beat the gradient")
right.set_title("Longer steps: the gradient can be beaten")
right.grid(True, alpha=0.3)
fig.tight_layout()
describe_figure(
    fig,
    "Left: at step length 0.5 a few directions close to the gradient's (cos(theta) near "
    "1) rise more than the gradient does. Right: the share of directions that beat the "
    "gradient grows with the step length.",
)
plt.show()
print(
    f"the {winners.sum()} winners at 0.5 have cos θ from {cos_all[winners].min():.4f} to "
    f"{cos_all[winners].max():.4f}"
)

# %% [markdown]
# At step lengths 0.01 and 0.05 none of the 200,000 directions beats the gradient. At 0.1
# a single one does, at 0.2 fourteen, at 0.5 already 411 (0.2 %) and at 1.0 3,603 (1.8 %).
# Other draws of 200,000 directions tell the same story: for the shortest steps a winner is
# a rare event, and at length 0.5 about 2 directions in 1,000 win.
#
# <details><summary>How we know</summary>
#
# We drew the 200,000 directions 100 more times (seeds 1000 to 1099). On 9 draws in 10 the
# winners numbered 0 to 4 at step length 0.1, 11 to 25 at 0.2, 360 to 445 at 0.5 (about
# 0.2 %) and 3,510 to 3,720 at 1.0 (about 1.8 %). The rarest we measured by searching near
# the gradient, where every winner lies: at 0.05 about one direction in 900,000 wins, so
# about 4 draws in 5 hold none; at 0.01 about one in 100 million, so a draw of 200,000
# almost never holds one.
#
# The claims test re-runs 30 fresh draws. The median count at 0.5 must lie between 320 and
# 500 (0.16 % to 0.25 %): were the truth 1.5 times off, it would fail almost surely. The 30
# draws together, 6 million directions, must hold at most 2 winners at 0.01 and 1 to 17 at
# 0.05, and the total must grow with the step length.
#
# <!-- claim: ch03-steepest-small-steps -->
# </details>
#
# The left panel shows where the winners are at step length 0.5: every one points near the
# gradient, with $\cos\theta$ from 0.9045 to 0.9995 (within 25.2°), where the bend of $L$
# adds a little more than it does along $g$ itself. That is not luck of this draw: on every
# draw, every winner lies within 26° of the gradient.
#
# <details><summary>How we know</summary>
#
# At each angle from the gradient we searched 200,000 directions at exactly that angle for
# one that beats the gradient: at 25.8° there is one; at 26°, 27°, 30°, 40°, 60° and 90°
# none. The claims test repeats that search, and checks on 16 fresh draws of 200,000
# directions that every winner lies within 26°: were the bound to fail on 1 draw in 10, 16
# draws would catch it with probability 0.81.
#
# <!-- claim: ch03-winners-near-gradient -->
# </details>
#
# So the gradient is the steepest way up for a short step, and only there: over a longer
# step, $L$ curves, and a direction a little off the gradient can catch a bend that the
# gradient's straight line misses.
#
# To make $L$ **smaller**, which is what training wants for a loss, step the other way:
# subtract the gradient instead of adding it. That is gradient descent, the direction of
# steepest *descent*; exercise 3 at the end of this chapter uses it to make $L$ smaller.
#
# ## A neuron
#
# Our second graph is a tiny piece of a neural network: one **neuron** with two inputs.
# It multiplies each input $x_i$ by a weight $w_i$, adds them up together with a bias
# $b$, and squashes the sum $n$ through $\tanh$:
#
# $$o = \tanh(x_1 w_1 + x_2 w_2 + b).$$
#
# $\tanh$ is an S-shaped curve that maps any number into the range $-1$ to $1$. Its slope
# has a neat formula in terms of its own output: $\frac{d}{dn}\tanh(n) = 1 - \tanh(n)^2$.
# In words: steepest (slope 1) at $0$, flattening out as the output approaches $\pm 1$.

# %%
x1, x2, w1, w2, b_ = 2.0, 0.0, -3.0, 1.0, 6.8813735870195432
n_here = x1 * w1 + x2 * w2 + b_
o_here = math.tanh(n_here)
grid = np.linspace(-4, 4, 200)

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.plot(grid, np.tanh(grid), label="tanh(n)", linewidth=2)
ax.plot(grid, 1 - np.tanh(grid) ** 2, "--", label="its slope, 1 - tanh(n)²")
ax.plot([n_here], [o_here], "ko")
ax.annotate(
    f"n = {n_here:.4f}\no = {o_here:.4f}\nslope = {1 - o_here**2:.4f}",
    (n_here, o_here),
    xytext=(-3.8, 0.3),
    arrowprops={"arrowstyle": "->"},
)
ax.set_xlabel("n")
ax.set_title("tanh squashes its input into (-1, 1)")
ax.legend(loc="lower right")
ax.grid(True, alpha=0.3)
describe_figure(
    fig,
    "tanh rises from -1 to 1 and is steepest at n = 0, where its slope is 1; the slope "
    "falls towards 0 on both sides. The marked point is n = 0.8814, o = 0.7071, where the "
    "slope is 0.5.",
)
plt.show()

# %% [markdown]
# We take $x_1 = 2$, $x_2 = 0$, $w_1 = -3$, $w_2 = 1$ and the odd-looking bias
# $b = 6.8813735870195432$. The bias is chosen so that the sum is $n = 0.8814$, where
# $\tanh(n) = 1/\sqrt{2} \approx 0.7071$ and the slope $1 - o^2$ is one half, up to
# rounding. That keeps the numbers below round.

# %%
x1 = Value(2.0, label="x1")
x2 = Value(0.0, label="x2")
w1 = Value(-3.0, label="w1")
w2 = Value(1.0, label="w2")
b = Value(6.8813735870195432, label="b")
x1w1 = x1 * w1
x1w1.label = "x1*w1"
x2w2 = x2 * w2
x2w2.label = "x2*w2"
x1w1x2w2 = x1w1 + x2w2
x1w1x2w2.label = "x1*w1 + x2*w2"
n = x1w1x2w2 + b
n.label = "n"
o = n.tanh()
o.label = "o"
print(f"n = {n.data:.4f}")
print(f"o = {o.data:.4f}")
print(f"1 - o**2 in full: {1 - o.data**2!r}")
describe_figure(
    draw_dot(o, rankdir="TB", show_grad=False),
    "The neuron before any gradient is worked out, its grad rows hidden: x1*w1 + x2*w2 + b "
    "gives n = 0.8814, and tanh gives o = 0.7071.",
)

# %% [markdown]
# Printed in full, the slope is 0.4999999999999998: one half to 15 decimal places, which is
# all that the four-decimal printouts below show.
#
# <details><summary>Why not exactly one half?</summary>
#
# A float keeps about 16 significant digits, so neither $n$ nor $o$ is exact. Here
# $o = 0.7071067811865477$, a hair above $1/\sqrt{2}$, and $1 - o^2$ lands a hair below one
# half. The squaring is not to blame: done without rounding, with `fractions.Fraction`, it
# gives the same 0.4999999999999998. Move $n$ down by the smallest step a float can take
# (`math.nextafter`) and $o = 0.7071067811865475$, a hair below $1/\sqrt{2}$, with a slope of
# 0.5000000000000001. So the last digits of $n$, set by the bias, decide which side of one
# half the slope lands on; neither side is one half exactly. To see it, run:
#
# ```python
# from fractions import Fraction
#
# for n_value in (n.data, math.nextafter(n.data, 0.0)):
#     o_value = math.tanh(n_value)
#     print(repr(o_value), repr(1 - o_value**2), repr(float(1 - Fraction(o_value) ** 2)))
# ```
# </details>
#
# The graph has ten values: five leaves, four intermediate results and the output
# $o \approx 0.7071$. (`show_grad=False` hides the grad rows while they are all zero, to
# keep the first picture simple.) Backpropagation goes exactly as before, one node at a
# time from $o$ back to the leaves, each grad being the output's grad times a local slope:
#
# 1. $\partial o/\partial o = 1$.
# 2. Through $\tanh$: the local slope is $1 - o^2 = 0.5$, so $n$'s grad is $0.5$.
# 3. Through the two plus nodes: the grad passes unchanged, so $b$, the sum
#    $x_1 w_1 + x_2 w_2$ and each of the two products get $0.5$.
# 4. Through the products: each input gets the *other* input times $0.5$.

# %%
o.grad = 1.0
n.grad = (1 - o.data**2) * o.grad  # tanh's local slope
x1w1x2w2.grad = 1.0 * n.grad
b.grad = 1.0 * n.grad
x1w1.grad = 1.0 * x1w1x2w2.grad
x2w2.grad = 1.0 * x1w1x2w2.grad
x1.grad = w1.data * x1w1.grad
w1.grad = x1.data * x1w1.grad
x2.grad = w2.data * x2w2.grad
w2.grad = x2.data * x2w2.grad


def o_nudged(name, h):
    """o recomputed with plain floats after adding h to the leaf called `name`."""
    v = {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432}
    v[name] += h
    return math.tanh(v["x1"] * v["w1"] + v["x2"] * v["w2"] + v["b"])


print(f"{'leaf':>5} {'by hand':>9} {'by nudge':>9}")
for leaf in (x1, w1, x2, w2, b):
    by_nudge = (o_nudged(leaf.label, 1e-6) - o_nudged(leaf.label, 0.0)) / 1e-6
    print(f"{leaf.label:>5} {leaf.grad:9.4f} {by_nudge:9.4f}")

# %% [markdown]
# So $\partial o/\partial x_1 = -1.5$, $\partial o/\partial w_1 = 1.0$,
# $\partial o/\partial x_2 = 0.5$, $\partial o/\partial w_2 = 0.0$ (and
# $\partial o/\partial b = 0.5$), all confirmed by nudging. The picture:

# %%
describe_figure(
    draw_dot(o, rankdir="TB"),
    "The neuron with every grad worked out by hand: 0.5 from n down to b and both products; "
    "w2's grad is exactly 0, while x2's is 0.5.",
)

# %% [markdown]
# ### Why is w2's gradient exactly zero?
#
# Because its input is zero. The weight $w_2$ enters the neuron only through the product
# $x_2 w_2$, and with $x_2 = 0$ that product is $0$ whatever $w_2$ is. Nudge $w_2$ as much
# as you like: the output does not move.

# %%
for w2_value in [1.0, 1.5, -10.0]:
    print(f"w2 = {w2_value:6.2f}: o = {o_nudged('w2', w2_value - 1.0):.4f}")

# %% [markdown]
# With $w_2 = 1$, $1.5$ or $-10$, the output is $0.7071$ every time. The chain rule says
# the same thing: the local slope of $x_2 w_2$ with respect to $w_2$ is $x_2$, which is
# $0$, and zero times anything is zero. In a network this means a weight learns nothing
# from an example whose input to it is zero.
#
# <details><summary>How we know</summary>
#
# Not only for this neuron: the claims test builds 20 neurons with $x_2 = 0$ and every other
# leaf drawn at random, runs this chapter's hand sweep on each, and finds $w_2$'s gradient
# exactly 0 (and $x_2$'s not), with $o$ unmoved by any new $w_2$.
#
# <!-- claim: ch03-zero-input-zero-grad -->
# </details>
#
# $x_2$ itself, on the other hand, has gradient $0.5$: *its* local slope is $w_2 = 1$, so
# changing the input would change the output. The gradient is about what the output
# would do if you moved that particular value, and the answer can differ between the
# two factors of one product.
#
# ## The same neuron in PyTorch
#
# PyTorch, a library widely used to train networks, does exactly this arithmetic for
# you. Each input becomes a `torch.tensor` created with `requires_grad=True`, which asks
# PyTorch to record the operations on it, much as our `Value` remembers its inputs. One
# call, `o.backward()`, then runs the chain rule from `o` back to the leaves and leaves
# each gradient in the leaf's `.grad`. (PyTorch is optional for this course; without it
# the cell says so and skips the comparison.)

# %%
ours = {leaf.label: leaf.grad for leaf in (x1, w1, x2, w2, b)}
if torch is None:
    print("PyTorch (optional): not installed, so o is not computed by PyTorch")
    print("PyTorch (optional): not installed, so its gradients are not shown")
    print("PyTorch (optional): not installed, so nothing is compared")
else:
    tx1, tx2, tw1, tw2, tb = (
        torch.tensor(value, dtype=torch.float64, requires_grad=True)  # record what is done with it
        for value in (2.0, 0.0, -3.0, 1.0, 6.8813735870195432)
    )
    o_torch = torch.tanh(tx1 * tw1 + tx2 * tw2 + tb)
    o_torch.backward()  # the chain rule, from o back to every tensor with requires_grad=True
    theirs = {k: t.grad.item() for k, t in zip(("x1", "x2", "w1", "w2", "b"), (tx1, tx2, tw1, tw2, tb))}
    print(f"PyTorch (optional): o = {o_torch.item():.4f}")
    print("PyTorch (optional): " + ", ".join(f"do/d{k} = {theirs[k] + 0.0:.4f}" for k in ours))
    agree = all(math.isclose(ours[k], theirs[k], abs_tol=1e-12) for k in ours)
    print(f"PyTorch (optional): the same as our hand-computed gradients: {agree}")

# %% [markdown]
# With PyTorch installed it prints $o = 0.7071$ and the gradients $-1.5$, $1.0$, $0.5$,
# $0.0$ and $0.5$, the same as our ten hand-written lines. (We ask for 64-bit floats,
# `dtype=torch.float64`, because Python's floats are 64-bit; PyTorch's default is 32.)
# What PyTorch adds is automation: nobody wrote a chain-rule line. How a library can do
# that is the subject of the next chapter.
#
# ## This does not scale
#
# Ten lines of hand-written chain rule for a ten-value neuron, seven for the first graph.
# Now count the values in something realistic. Our class can already build a small
# network of the kind trained in chapter 8: three inputs, two layers of four `tanh`
# neurons like the one above, and one output, 41 parameters in all. We run it forward
# once, on a single input, and count the values in its graph.


# %%
def neuron(inputs):
    """tanh(w1*x1 + ... + wn*xn + b) with random weights, from the class above."""
    weights = [Value(random.uniform(-1, 1)) for _ in inputs]
    bias = Value(0.0)
    total = weights[0] * inputs[0]
    for w, x in zip(weights[1:], inputs[1:]):
        total = total + w * x
    return (total + bias).tanh(), weights + [bias]


params = []
layer = [Value(2.0), Value(3.0), Value(-1.0)]
for n_out in [4, 4, 1]:
    outputs = []
    for _ in range(n_out):
        out, ps = neuron(layer)
        outputs.append(out)
        params += ps
    layer = outputs

seen, todo = set(), [layer[0]]
while todo:  # walk back from the output, as in chapter 2
    v = todo.pop()
    if v not in seen:
        seen.add(v)
        todo.extend(v._prev)
print(f"parameters: {len(params)}")
print(f"values in the graph of one forward pass: {len(seen)}")

# %% [markdown]
# **117 values**, each needing its own line of chain rule, for one input to a
# 41-parameter network; a real network can have millions of parameters and see many inputs
# per step. Nobody can write those lines by hand.
#
# But look back at what every line did. Each one took the grad of a node's output and
# multiplied it by a local slope that the operation alone determines: $1$ for $+$, "the
# other input" for $\times$, $1 - o^2$ for $\tanh$. The work is purely mechanical. So
# each operation could record its own local rule at the moment it runs, and a short loop
# could visit the nodes from the root back to the leaves and apply them. That is
# chapter 4: `backward()`.
#
# ## Exercises
#
# ### 1. Backpropagate through a new expression
#
# Take $g = (a + b) \cdot c$ and $h = g \cdot d + e$ at $a = 2$, $b = 1$, $c = -4$,
# $d = 3$, $e = 5$ (so $g = -12$ and $h = -31$). Work out $\partial h/\partial x$ for each
# leaf by hand, and submit a dict such as `{"a": ..., "b": ..., "c": ..., "d": ..., "e": ...}`.
# Drawing the graph first helps.

# %%
grads_h = {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.0}  # replace with your gradients
check_backprop_h(grads_h)

# %%
reveal("ch03.backprop_h")

# %% [markdown]
# ### 2. A value used twice
#
# Every value in this chapter's graphs was used exactly once. Here two are used twice:
#
# $$u = a \cdot b, \qquad v = u + a, \qquad h = v \cdot u \qquad \text{at } a = 3,\; b = -2,$$
#
# so $u = -6$, $v = -3$ and $h = 18$. The value $a$ feeds both $u$ and $v$, and $u$ feeds
# both $v$ and $h$. Nudging $a$ therefore moves $h$ along more than one path. Work out
# $\partial h/\partial u$, $\partial h/\partial a$ and $\partial h/\partial b$ by hand,
# deciding for yourself how the contributions of two paths combine, and check your rule
# by nudging (with plain floats, as `L_nudged` did). Draw the graph first.

# %%
twice_grads = {"a": 0.0, "b": 0.0, "u": 0.0}  # replace with dh/da, dh/db and dh/du
check_used_twice(twice_grads)

# %%
reveal("ch03.used_twice")

# %% [markdown]
# ### 3. One knob, a budget of 0.1 (predict, then check)
#
# Back to $L = (a \cdot b + c) \cdot f$ at $a = 2$, $b = -3$, $c = 10$, $f = -2$, where
# $L = -8$ and the gradients are $6, -4, -2, 4$ for $a, b, c, f$. This time you may move
# **one** leaf, by at most $0.1$ either way. Which leaf, and which way, makes $L$ as small
# as possible? Decide from the gradients alone, predict the new $L$, and only then
# recompute it with plain floats (fresh names: `a`, `b`, `c` and `f` above have been
# reused and moved since). Submit a dict such as `{"b": 0.1}`. Is your prediction exact,
# and why?

# %%
one_move = {}  # replace with {leaf: change}
check_one_knob(one_move)

# %%
reveal("ch03.one_knob")

# %% [markdown]
# Next: **chapter 4**, where each operation records its own local rule and one call to
# `backward()` does all of this chapter's arithmetic for us.
