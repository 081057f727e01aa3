# %% [markdown]
# # Chapter 4 — Automating the backward pass
#
# In chapter 3 we computed every gradient of a small graph by hand. We started at the
# output, where the gradient is 1, and walked back one node at a time, multiplying the
# gradient arriving from above by each node's *local* derivative. It worked, and it was
# tedious: one line of arithmetic per edge, written in the right order by a careful human.
#
# This chapter hands that walk to the computer. It takes two ideas:
#
# 1. **Each operation leaves a note.** When `a * b` runs, it already knows what its
#    backward step will need: the local derivatives are `b` and `a`. So it writes a tiny
#    function, kept on the result, that will pass gradients back later.
# 2. **A topological order.** A node may pass its gradient on only once that gradient is
#    complete, that is, after every node that uses it. Sorting the graph once gives an
#    order in which a plain `for` loop can run all the notes.
#
# Together they give a method `backward()`: one call fills in every gradient. On the way
# we meet a bug that is easy to write and gives no warning (`=` where `+=` belongs), a shortcut
# that skips the sort, what a graph does with an `if`, a graph deep enough to crash a
# recursive function, and how the course's package stores the same idea.

# %%
import gc
import random
import sys
import weakref

from IPython.display import display

from micrograd_lesson import describe_figure, draw_dot, engine

random.seed(0)

# %% [markdown]
# ## 1. Each operation leaves a note for the backward pass
#
# Recall the rule from chapter 3 in words: *the gradient of an input is the gradient of
# the output times the local derivative of the output with respect to that input.* For
# the three operations we have, the local derivatives are:
#
# | operation | forward | local derivatives |
# |---|---|---|
# | addition | $c = a + b$ | $\partial c/\partial a = 1$, $\partial c/\partial b = 1$ |
# | multiplication | $c = a b$ | $\partial c/\partial a = b$, $\partial c/\partial b = a$ |
# | tanh | $t = \tanh(n)$ | $\partial t/\partial n = 1 - t^2$ |
#
# Every number in the right-hand column is known the moment the forward operation runs.
# So the operation can prepare its half of the backward pass right away: a small
# function, a *closure*, that remembers its inputs and its output and, when called, pushes
# `out.grad` back to them. We store that function on the output as `out._backward`. A
# leaf, which no operation produced, gets a function that does nothing.
#
# Here is the `Value` class from chapters 2 and 3 with those notes added. Look at the
# closures: they **assign** each input's gradient with `=`. That seems natural, since in
# chapter 3 we wrote each gradient down once. Keep an eye on it; section 4 shows where it
# goes wrong.

# %% tags=["defines-value"]
import math


class Value:
    """A number that remembers how it was made, and how to pass gradients back."""

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(_children)
        self._op = _op
        self.label = label
        self._backward = lambda: None  # a leaf has nothing to pass on

    def __repr__(self):
        return f"Value(data={self.data:.4f}, grad={self.grad:.4f})"

    def __add__(self, other):
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad = 1.0 * out.grad  # first attempt: assign (section 4 fixes this)
            other.grad = 1.0 * out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad = other.data * out.grad
            other.grad = self.data * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad = (1 - t**2) * out.grad

        out._backward = _backward
        return out


# %% [markdown]
# Nothing about the forward pass has changed: `a * b` still makes a new `Value` whose
# `_prev` lists `a` and `b`. The only addition is the closure. Inside `__mul__`, the
# function `_backward` mentions `self`, `other` and `out`; Python keeps those three objects
# alive inside the function, and calling `out._backward()` much later still reaches them.
#
# ## 2. Running the notes by hand, in the right order
#
# Let us rebuild chapter 3's neuron, $o = \tanh(x_1 w_1 + x_2 w_2 + b)$ at $x_1 = 2$,
# $x_2 = 0$, $w_1 = -3$, $w_2 = 1$ and $b = 6.8813735870195432$. This time we compute no
# derivative ourselves: we set the output's gradient to 1 and call each node's note,
# starting at the output and moving towards the inputs.


# %%
def make_neuron(V):
    """Chapter 3's neuron, built from the class V; returns its named values."""
    x1, x2 = V(2.0, label="x1"), V(0.0, label="x2")
    w1, w2 = V(-3.0, label="w1"), V(1.0, label="w2")
    b = V(6.8813735870195432, label="b")
    x1w1 = x1 * w1
    x1w1.label = "x1*w1"
    x2w2 = x2 * w2
    x2w2.label = "x2*w2"
    s = x1w1 + x2w2
    s.label = "x1w1+x2w2"
    n = s + b
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    return dict(x1=x1, x2=x2, w1=w1, w2=w2, b=b, x1w1=x1w1, x2w2=x2w2, s=s, n=n, o=o)


def show_grads(nodes, names=("x1", "w1", "x2", "w2", "b")):
    # (+ 0.0 turns a "negative zero", -3 * 0.0 = -0.0, into a plain 0.0 for printing)
    print("  ".join(f"do/d{k} = {nodes[k].grad + 0.0:7.4f}" for k in names))


g = make_neuron(Value)
g["o"].grad = 1.0  # do/do = 1
for name in ["o", "n", "s", "x2w2", "x1w1"]:  # output first, inputs last
    g[name]._backward()
print(f"o = {g['o'].data:.4f}")
show_grads(g)

# %% [markdown]
# The output is $o = 0.7071$ and the gradients are exactly chapter 3's:
# $\partial o/\partial x_1 = -1.5$, $\partial o/\partial w_1 = 1.0$,
# $\partial o/\partial x_2 = 0.5$, $\partial o/\partial w_2 = 0.0$, and
# $\partial o/\partial b = 0.5$. Five calls did the work of a page of hand arithmetic.
#
# The order mattered, though. A note can only pass on the gradient its node holds *when
# the note runs*. Here are the same five calls from the inputs' end instead:

# %%
g = make_neuron(Value)
g["o"].grad = 1.0
for name in ["x1w1", "x2w2", "s", "n", "o"]:  # wrong: inputs first
    g[name]._backward()
show_grads(g)

# %% [markdown]
# Every gradient reads 0.0000. When `x1*w1` ran its note, its own gradient was still 0,
# so it passed 0 on; only the last call, `o`'s, had anything to give, and by then nobody
# below `n` was going to run again. A node must fire only after **every node that uses
# it** has fired. Finding such an order automatically is the next step.

# %% [markdown]
# ## 3. Topological order: every node after its inputs
#
# A *topological order* of a graph lists each node after all of its inputs. Reversed, it
# lists each node before its inputs, which is exactly the order in which the notes must
# run. The classic way to build one is a depth-first search: to place a node, first place
# everything it was computed from, then append the node itself. A `visited` set makes sure
# a node used twice is listed only once.


# %% tags=["defines-value"]
def build_topo_recursive(root):
    """Every node of root's graph, each one after all of its inputs (recursive DFS)."""
    topo, visited = [], set()

    def visit(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                visit(child)
            topo.append(v)  # all of v's inputs are already in topo

    visit(root)
    return topo


# %%
g = make_neuron(Value)
order = build_topo_recursive(g["o"])
print("topological order:", ", ".join(v.label for v in order))
print("backward order:   ", ", ".join(v.label for v in reversed(order)))

# %% [markdown]
# The topological order starts at the leaves (`x1`, `w1`, …) and ends at `o`; the
# backward order is its mirror image. Leaves appear in it too. Their notes do nothing,
# so calling them is harmless and saves a special case. Here is the neuron drawn with each
# node's position in the backward order:

# %%
position = {v: f"fires #{i}" for i, v in enumerate(reversed(order), start=1)}
describe_figure(
    draw_dot(g["o"], rankdir="TB", notes=position, show_grad=False),
    "The neuron, each node marked with its place in the backward order: o fires first, the leaves last.",
)

# %% [markdown]
# Now `backward()` is three lines: sort, seed the output's gradient with 1 (because
# $\partial o/\partial o = 1$), and run every note in reverse topological order. We attach
# it to the class we already have. Python lets us add a method to a class after it is
# defined; existing objects gain it too.


# %% tags=["defines-value"]
def backward(self):
    """Fill in .grad for every node of the graph that produced self."""
    topo = build_topo_recursive(self)
    self.grad = 1.0
    for v in reversed(topo):
        v._backward()


Value.backward = backward

# %%
g = make_neuron(Value)
g["o"].backward()
show_grads(g)
describe_figure(
    draw_dot(g["o"], rankdir="TB"),
    "The neuron after one call to o.backward(): every grad filled in, as chapter 3 found by hand.",
)

# %% [markdown]
# One call, `o.backward()`, and every gradient in the drawing is filled in: the same
# $-1.5$, $1.0$, $0.5$, $0.0$ and $0.5$ as before.
#
# <details><summary>The same job in PyTorch</summary>
#
# PyTorch's `loss.backward()` does this job on tensors: it runs each operation's backward
# step once, only after every operation that used its result. Its engine finds that order
# by counting, for each operation, how many of its users have yet to run, rather than by a
# depth-first sort (exercise 4.1 writes that way); and it keeps `.grad` only on leaves
# unless asked to keep more.
# </details>
#
# The same call in slow motion: `step_through` runs the notes in the order `backward()`
# does, one per frame. The orange node is the one whose note runs; the red edges carry what
# it hands to its inputs, and the green cells are the grads that just changed. (Our closures
# keep their local derivatives to themselves, so an edge can only say what a note *adds*.)
# Step back to 0 and replay it with the buttons or the slider.

# %%
from micrograd_lesson import step_through

step_through(make_neuron(Value)["o"])

# %% [markdown]
# ## 4. The bug: `=` where `+=` belongs
#
# The neuron has a special shape: every value is used exactly once. A network's graph is
# not like that: each input feeds every neuron of the first layer. The smallest example of
# a value used twice is $b = a + a$. Since $b = 2a$, the derivative
# $\partial b/\partial a$ is 2. Let us ask our engine at $a = 3$, and check by nudging
# $a$ the way chapter 1 did.

# %%
a = Value(3.0, label="a")
b = a + a
b.label = "b"
b.backward()
h = 1e-6
print(f"engine:  db/da = {a.grad:.4f}")
print(f"nudging: db/da = {((3.0 + h) + (3.0 + h) - (3.0 + 3.0)) / h:.4f}")
describe_figure(draw_dot(b), "With the assigning engine: two arrows leave a, yet a's grad reads 1.0000.")

# %% [markdown]
# The engine says 1.0000; nudging says 2.0000. The drawing shows why: two arrows leave
# `a` and both enter the same `+`. The note of that `+` runs
# `self.grad = 1.0 * out.grad` and then `other.grad = 1.0 * out.grad`, and here `self` and
# `other` are the same object. The second assignment overwrites the first, and half the
# gradient is lost.
#
# It is not just `a + a`. Whenever a value feeds two different operations, each of them
# sends it a contribution, and the multivariable chain rule says the contributions
# **add up**. Take $d = a b$, $e = a + b$, $f = d e$ at $a = -2$, $b = 3$. By hand,
# $\partial f/\partial a = e \cdot b + d \cdot 1 = 1 \cdot 3 + (-6) = -3$ and
# $\partial f/\partial b = e \cdot a + d \cdot 1 = -2 - 6 = -8$.


# %%
def two_paths(V):
    a, b = V(-2.0, label="a"), V(3.0, label="b")
    d = a * b
    d.label = "d"
    e = a + b
    e.label = "e"
    f = d * e
    f.label = "f"
    return a, b, f


def f_of(a, b):
    return (a * b) * (a + b)


a, b, f = two_paths(Value)
f.backward()
print(f"f = {f.data:.4f}")
print(f"engine with '=':  df/da = {a.grad:.4f}, df/db = {b.grad:.4f}")
print(
    f"nudging:          df/da = {(f_of(-2 + h, 3) - f_of(-2, 3)) / h:.4f}, "
    f"df/db = {(f_of(-2, 3 + h) - f_of(-2, 3)) / h:.4f}"
)

# %% [markdown]
# The function's value is $f = -6$. With assignment the engine reports 3.0000 and
# −2.0000; nudging says −3.0000 and −8.0000. Nothing crashed, and the numbers look
# perfectly plausible: this bug does not announce itself.
#
# Where does $-3$ come from? $a$ enters $f$ twice, once inside $d = ab$ and once inside
# $e = a + b$. We can nudge those two uses *separately*, by giving each its own copy of
# $a$: `f_split(a_in_d, a_in_e)` computes $(a_{d}\, b)(a_{e} + b)$, and nudging one
# copy while holding the other still measures that path's contribution alone.


# %% tags=["claim-setup"]
def f_split(a_in_d, a_in_e, b=3.0):
    """f = d * e where d uses one copy of a and e another, so each path can be nudged alone."""
    return (a_in_d * b) * (a_in_e + b)


# %%
base = f_split(-2.0, -2.0)
via_d = (f_split(-2.0 + h, -2.0) - base) / h
via_e = (f_split(-2.0, -2.0 + h) - base) / h
both = (f_split(-2.0 + h, -2.0 + h) - base) / h
print(f"nudge only the a inside d:  slope {via_d:.4f}   (e * b = 1 * 3)")
print(f"nudge only the a inside e:  slope {via_e:.4f}   (d * 1 = -6)")
print(f"sum of the two:             {via_d + via_e:.4f}")
print(f"nudge a everywhere at once: slope {both:.4f}")

# %% [markdown]
# The path through `d` alone contributes $3.0000$ and the path through `e` alone
# $-6.0000$; nudging $a$ everywhere at once moves $f$ by $-3.0000$, their sum. That is
# the multivariable chain rule, measured: when a value feeds several operations, the
# contributions **add up**, at this point and at every other.
#
# <details><summary>How we know</summary>
#
# The claims test repeats the three nudges at 20 fresh points, $a$ and $b$ each drawn
# between $-3$ and $3$: on every one the two paths' slopes add up to the slope of nudging
# $a$ everywhere (to $10^{-6}$), and neither path's is 0. Were the sum to fail at 1 point in
# 10, 20 points would catch it with probability 0.88.
#
# <!-- claim: ch04-paths-add-up -->
# </details>
#
# The assigning engine's $3$ is the path through `d` alone: `d`'s note ran last and
# overwrote the share that `e`'s note had set.
#
# The fix is one character per line: **accumulate** with `+=`. Every gradient starts at
# 0, each path adds its share, and the total is the sum the chain rule asks for. Here is
# the corrected class, now complete with its `backward()` method:


# %% tags=["defines-value"]
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
            self.grad += 1.0 * out.grad  # += : a value used twice gets both shares
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
        topo = build_topo_recursive(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()


# %%
a = Value(3.0, label="a")
b = a + a
b.backward()
print(f"b = a + a:  db/da = {a.grad:.4f}")

a, b, f = two_paths(Value)
f.backward()
print(f"f = d * e:  df/da = {a.grad:.4f}, df/db = {b.grad:.4f}")
describe_figure(
    draw_dot(f, rankdir="TB"),
    "With the accumulating engine: a and b each feed two operations, and each grad is the sum of both "
    "shares.",
)

# %% [markdown]
# Now $b = a + a$ gives $\partial b/\partial a = 2.0000$, and the two-path graph gives
# $-3.0000$ and $-8.0000$, matching the nudges. In the drawing, `a` and `b` each have two
# outgoing arrows, and their gradients are the sums of what came back along both.
#
# ### The rule, written once
#
# Everything so far fits in one line. Write $\bar v$ for $\partial L/\partial v$, the
# gradient of the output $L$ with respect to a value $v$ (in the literature it is called
# the **adjoint** of $v$). Then
#
# $$\bar v \;=\; \sum_{w \text{ uses } v} \bar w \cdot \frac{\partial w}{\partial v},
# \qquad \bar L = 1.$$
#
# In words: a value's gradient is the sum, over every value $w$ computed from it, of
# $w$'s gradient times the local derivative of $w$ with respect to $v$. Each term is one
# note's `+=`. And the formula needs every $\bar w$ finished before $\bar v$ is used,
# which is exactly what the reversed topological order guarantees.
#
# Accumulating asks one thing of us: every gradient must start at 0. Chapter 6 calls
# `backward()` twice on the same graph and shows what happens when it does not.

# %% [markdown]
# ## 5. Watching it run: $z = x y + x$
#
# Let us slow the machine down on a graph small enough to follow completely:
# $z = x y + x$ at $x = 2$, $y = 3$. By algebra, $z = 2 \cdot 3 + 2 = 8$,
# $\partial z/\partial x = y + 1 = 4$ (because $x$ appears twice), and
# $\partial z/\partial y = x = 2$. The next cell runs the same loop as `backward()`, but
# prints what each note does to the gradients of its inputs.


# %%
def traced_backward(root):
    """backward(), printing each step: which node fires and what it adds to its inputs."""
    topo = build_topo_recursive(root)
    root.grad = 1.0
    print(f"start:  {root.label}.grad = 1.0000   (d{root.label}/d{root.label} = 1)")
    for step, v in enumerate(reversed(topo), start=1):
        if not v._prev:
            print(f"step {step}: {v.label} is a leaf: nothing to pass on; its grad is {v.grad:.4f}")
            continue
        before = [child.grad for child in v._prev]
        v._backward()
        changes = ", ".join(
            f"{c.label}.grad {old:.4f} -> {c.grad:.4f}" for c, old in zip(v._prev, before)
        )
        print(f"step {step}: {v.label} ({v._op}) fires: {changes}")


x, y = Value(2.0, label="x"), Value(3.0, label="y")
p = x * y
p.label = "p"
z = p + x
z.label = "z"
traced_backward(z)
print(f"z = {z.data:.4f}, dz/dx = {x.grad:.4f}, dz/dy = {y.grad:.4f}")

# %% [markdown]
# Read the trace from the top. The output `z` fires first: addition passes its gradient
# through unchanged, so `p` and `x` both receive 1. Then `p = x * y` fires: it sends
# $y \cdot 1 = 3$ to `x` and $x \cdot 1 = 2$ to `y`. `x` accumulates, so its gradient goes
# from 1 to 4, the sum of its two paths. The two leaves fire last and do nothing. The
# result is $z = 8$, $\partial z/\partial x = 4$ and $\partial z/\partial y = 2$, each node
# firing in this order:

# %%
fires = {z: "fires 1st", p: "fires 2nd", y: "3rd (leaf)", x: "4th (leaf)"}
describe_figure(
    draw_dot(z, rankdir="TB", notes=fires),
    "z = x*y + x, each node marked with when it fires: z first, then p, then the leaves y and x.",
)

# %% [markdown]
# ## 6. Why sort at all? The push-and-recurse shortcut
#
# The sort can look like overkill. A tempting alternative needs no order at all: start at
# the output, let each node fire its note, then recurse into its inputs and let *them*
# fire. Every note runs, from the output towards the leaves, so what could go wrong?
#
# Take $b = 2a$ and $d = b + 3b$ at $a = 1$. Then $d = 8a$, so $\partial d/\partial a = 8$.
# The value $b$ is used twice, by the `+` directly and by $3b$.


# %% tags=["claim-setup"]
def backward_no_sort(root):
    """Fire a node's note, then recurse into its inputs: no topological order."""
    root.grad = 1.0

    def push(v):
        v._backward()
        for child in v._prev:
            push(child)

    push(root)


def shared_b(V):
    a = V(1.0, label="a")
    b = V(2.0, label="2") * a
    b.label = "b"
    three_b = V(3.0, label="3") * b
    three_b.label = "3b"
    d = b + three_b
    d.label = "d"
    return a, b, d


# %%
a, b, d = shared_b(Value)
backward_no_sort(d)
print(f"push and recurse:  dd/da = {a.grad:.4f}, dd/db = {b.grad:.4f}")
a, b, d = shared_b(Value)
d.backward()
print(f"topological order: dd/da = {a.grad:.4f}, dd/db = {b.grad:.4f}")
describe_figure(
    draw_dot(d, rankdir="TB"),
    "d = b + 3b with b = 2a, after the sorted backward pass: b feeds two operations, and a's grad is 8.",
)

# %% [markdown]
# The shortcut says $\partial d/\partial a = 10$; the truth is $8$. Follow it: `d` fires
# and hands $1$ to `b` and $1$ to `3b`. The recursion goes into `b` first, which fires
# with the $1$ it holds so far and sends $2 \times 1 = 2$ to `a`. Then it goes into `3b`,
# which adds $3$ to `b`, making its total $4$ (correct), and recurses into `b` again:
# `b` fires a second time, now with its full $4$, and sends $2 \times 4 = 8$ more.
# $2 + 8 = 10$: `b`'s running total was pushed twice, once half-finished.
#
# Both print lines agree on $\partial d/\partial b = 4$; only what `b` passes *on* is
# wrong. The sort exists to make each node fire once, after its total is complete.
#
# Is the shortcut wrong on *every* graph in which an intermediate value feeds two
# operations? Not quite. A shared node fires once for every path down to it from the
# output, and an early firing passes on a half-finished total. If that total happens to be
# 0, the early firing adds nothing. In $d = b \cdot w + 3b$ with $b = 2a$, the product
# $b \cdot w$ sends `b` the share $w$, so at $w = 0$ `b`'s early firing passes on nothing.


# %% tags=["claim-setup"]
def shared_b_times_w(V, w0):
    a, w = V(1.0, label="a"), V(w0, label="w")
    b = V(2.0, label="2") * a
    return a, b * w + V(3.0, label="3") * b


# %%
for w0 in (0.0, 1.0):
    a, d = shared_b_times_w(Value, w0)
    backward_no_sort(d)
    pushed = a.grad
    a, d = shared_b_times_w(Value, w0)
    d.backward()
    print(f"d = b*w + 3b at w = {w0:.0f}: push and recurse dd/da = {pushed:.4f}, sorted {a.grad:.4f}")

# %% [markdown]
# At $w = 0$ both say $\partial d/\partial a = 2(w + 3) = 6$: the shortcut is right, by
# luck. At $w = 1$ the luck is gone: $10$ against the true $8$. Beyond such coincidences the
# rule is plain: the shortcut goes wrong whenever an intermediate value feeds two
# operations, and is right when only leaves are shared (a leaf has no note to fire) or
# every value is used once. An engine must be right on every input; firing each node once,
# in topological order, guarantees it.
#
# <details><summary>How we know</summary>
#
# The claims test builds 90 random graphs of sums and products, 8 operations each, from 30
# fresh seeds: 30 in which any value may be reused, 30 in which only leaves are, and 30 in
# which each value is used once. Every leaf is drawn between 0.5 and 1.5, so that no share
# is ever 0. The shortcut was wrong on every graph in which an intermediate value feeds two
# operations, and right on every other; the sorted `backward()` matched nudging on all 90.
# Were the rule to fail on 1 graph in 10 of any kind, 30 graphs would catch it with
# probability 0.96.
#
# <!-- claim: ch04-push-recurse-overcounts -->
# </details>
#
# ## 7. The graph records only the path the code took
#
# A graph is built by running ordinary Python, so it contains whatever the code actually
# did, and nothing else. Here is a function with an `if`: it squares positive inputs and
# flips the sign of the others.


# %%
def square_or_flip(x):
    if x.data > 0:
        return x * x
    return x * Value(-1.0, label="-1")


for start in (3.0, -2.0):
    x = Value(start, label="x")
    y = square_or_flip(x)
    y.label = "y"
    y.backward()
    inputs = " and ".join(v.label for v in y._prev)
    print(f"x = {start:+.1f}: y = {y.data:.4f}, dy/dx = {x.grad:.4f}; the graph multiplies {inputs}")
    display(describe_figure(draw_dot(y), f"At x = {start:+.0f}: only the branch the code took."))

# %% [markdown]
# At $x = 3$ the graph holds one multiplication, $x \cdot x$, and the gradient is
# $2x = 6$. At $x = -2$ it holds a different multiplication, $x \cdot (-1)$, and the
# gradient is $-1$. Neither drawing contains the `if`: the comparison `x.data > 0` works on
# a plain number and leaves no node behind, and no gradient flows through it. The backward
# pass differentiates the path the code took *this time*, and a different input can build
# a different graph, as the two drawings show. So this engine, like PyTorch, builds a
# fresh graph on every forward pass.
#
# ## 8. How each operation routes gradients: one picture
#
# Every rule in this chapter is "incoming gradient times local derivative", and the
# operations differ only in the local derivative. The drawing below shows four patterns,
# each computed by the package's engine, which has one more operation than our class:
# $\text{relu}(x) = \max(0, x)$, which chapter 5 adds to it. In each panel an output whose
# gradient is $2$ fires its note once, and each arrow (pointing the way the gradient
# travels, backwards) is labelled *incoming gradient × local derivative = what arrives*.


# %%
from micrograd_lesson.show.routing import routing_pictures


def leaf(data, label):
    return engine.Value(data, label=label)


a, b = leaf(3.0, "a"), leaf(-1.0, "b")
a2, b2 = leaf(3.0, "a"), leaf(-1.0, "b")
p, n = leaf(3.0, "p"), leaf(-1.0, "n")
shared = leaf(3.0, "a")
panels = {  # title: {label: output}; every output gets grad 2, then fires its note once
    "add copies": {"a + b": a + b},
    "mul swaps and scales": {"a * b": a2 * b2},
    "relu routes (or blocks)": {"relu(p)": p.relu(), "relu(n)": n.relu()},
    "fan-out sums": {"4a": shared * 4.0, "a + 1": shared + 1.0},
}
for picture in routing_pictures(panels, grad=2.0):  # two panels to a picture: readable labels
    display(picture)
print(f"fan-out: a receives 2 × 4 = 8 and 2 × 1 = 2, and its grad is {shared.grad:g}")

# %% [markdown]
# Panel by panel:
#
# - **add copies** the incoming $2$ to both inputs ($2 \times 1$).
# - **mul swaps and scales**: each input gets the incoming gradient times the *other*
#   input, $a$ gets $2 \times (-1) = -2$ and $b$ gets $2 \times 3 = 6$.
# - **relu routes**: the positive input $p = 3$ gets the whole $2$, the negative input
#   $n = -1$ gets $2 \times 0 = 0$. A maximum of two inputs (an exercise in chapter 5)
#   routes the same way, to the larger one.
# - **fan-out sums**: `a` feeds two operations, gets $8$ from one and $2$ from the other,
#   and its grad is their sum, $10$: the adjoint rule above.
#
# Constants receive gradients too (the `const` boxes); nobody reads them.
#
# ## 9. Deep graphs: when recursion runs out
#
# `build_topo_recursive` calls itself once per level of the graph. Python keeps every
# unfinished call on its *call stack*, and to protect itself it stops at a fixed depth,
# the recursion limit. Real graphs can be deep: an unrolled recurrent network, a long
# loop, or simply a sum of many terms built one `+` at a time.
#
# Here is such a sum: start from $y = x$ and add $x$ to it 3000 times. The result is
# $y = 3001x$, so $\partial y/\partial x = 3001$, and the graph is a chain 3000 additions
# deep.


# %% tags=["claim-setup"]
def long_sum(V, steps):
    x = V(1.0, label="x")
    y = x
    for _ in range(steps):
        y = y + x
    return x, y


# %%
print(f"Python's recursion limit: {sys.getrecursionlimit()}")
x, y = long_sum(Value, 3000)
try:
    y.backward()
except RecursionError as e:
    # Python 3.11's message goes on "... while calling a Python object"; 3.12's stops here.
    print(f"{type(e).__name__}: {str(e).partition(' while')[0]}")

# %% [markdown]
# The recursion limit is 1000, and the chain is 3000 deep, so the sort fails with a
# `RecursionError` long before it reaches `x`. Can we not just raise the limit? Let us
# set it to 5000 with `sys.setrecursionlimit` and try two chains.

# %%
default_limit = sys.getrecursionlimit()
sys.setrecursionlimit(5000)
for steps in (3000, 6000):
    x, y = long_sum(Value, steps)
    try:
        y.backward()
        print(f"limit 5000, chain {steps:,} deep: dy/dx = {x.grad:.1f}")
    except RecursionError:
        print(f"limit 5000, chain {steps:,} deep: RecursionError")
sys.setrecursionlimit(default_limit)  # back to the default for the rest of the notebook

# %% [markdown]
# With the limit at 5000 the 3,000-deep chain goes through ($\partial y/\partial x =
# 3001.0$), and a 6,000-deep one fails again. Raising the limit only moves the wall: it
# would have to be set in advance for the deepest graph anyone will ever build.
#
# <details><summary>How we know</summary>
#
# The claims test sets the limit to 2,000, 5,000 and 8,000, and to three more drawn at
# random between 1,500 and 10,000: at every limit, a chain 0.6 times the limit deep sorts
# and a chain 1.2 times the limit deep raises `RecursionError`.
#
# <!-- claim: ch04-limit-moves-wall -->
# </details>
#
# The cure is to keep the stack ourselves, in an ordinary Python list that can grow as
# long as memory allows. Each entry is a pair: a node and a flag saying whether its inputs
# have been placed yet. The first time we pop a node we push it back with the flag set,
# then push its inputs on top of it. The inputs are therefore handled first, and when the
# node surfaces again with its flag set, it is safe to append it. This is the same
# depth-first search, with the bookkeeping made visible.


# %% tags=["defines-value"]
def build_topo(root):
    """Every node of root's graph, each one after all of its inputs, without recursion."""
    topo, visited = [], set()
    stack = [(root, False)]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            topo.append(node)  # its inputs were appended before it
        elif node not in visited:
            visited.add(node)
            stack.append((node, True))  # come back to it after its inputs...
            stack.extend((child, False) for child in reversed(node._prev))  # ...handled first
    return topo


def backward(self):
    topo = build_topo(self)
    self.grad = 1.0
    for v in reversed(topo):
        v._backward()


Value.backward = backward

# %%
x, y = long_sum(Value, 3000)
y.backward()
print(f"3,000-step sum:   y = {y.data:.1f}, dy/dx = {x.grad:.1f}")

x, y = long_sum(Value, 100_000)
y.backward()
print(f"100,000-step sum: y = {y.data:.1f}, dy/dx = {x.grad:.1f}")

x, y = Value(2.0, label="x"), Value(3.0, label="y")
p = x * y
p.label = "p"
z = p + x
z.label = "z"
order = build_topo(z)
print("order for z = x*y + x:", ", ".join(v.label for v in order))
print("same as the recursive sort:", order == build_topo_recursive(z))
ok = all(order.index(c) < order.index(v) for v in order for c in v._prev)
print("every node after its inputs:", ok)

# %% [markdown]
# The 3,000-step chain now gives $\partial y/\partial x = 3001.0$, and a chain of 100,000
# steps gives 100001.0 without complaint: an explicit stack has no wall. On $z = xy + x$
# the new sort produces exactly the recursive one's order, `x, y, p, z`, and the check
# confirms every node comes after its inputs. `backward()` uses `build_topo` from now on.
#
# <details><summary>How we know</summary>
#
# The claims test sorts chains of 3,000 and 150,000 steps and one of a length drawn between
# 100,000 and 200,000, and checks that each gives $\partial y/\partial x$ = steps + 1.
#
# <!-- claim: ch04-explicit-stack-no-wall -->
# </details>
#
# ## 10. How the package stores the same idea
#
# The course's package, `micrograd_lesson`, has a `Value` with the same interface, and
# code written for the closure version runs on it unchanged. Inside, it makes one
# different choice. Instead of a closure, each operation stores its **local derivatives as
# plain numbers**, in a tuple `_local_grads` that lines up with `_prev`. For `p = x * y`
# that tuple is `(y, x)`, here `(3.0, 2.0)`. A single method, shared by every node, then
# does the chain-rule step for any operation: for each input and its local derivative,
# `child.grad += local * self.grad`. Its `backward()` uses the same stack-based sort you
# just wrote, available on every node as the method `topological_order()`.
#
# Pairing each input with its local derivative is the design chapter 2 tested with a set
# for `_prev`: in $s = a + a$ the set held `a` once, and $ds/da$ came out 1 instead of 2.
# The package keeps `_prev` as a tuple, which lists `a` twice.

# %%
px, py = engine.Value(2.0, label="x"), engine.Value(3.0, label="y")
pp = px * py
pz = pp + px
print(f"p = x*y     stores local grads {pp._local_grads}")
print(f"z = p + x   stores local grads {pz._local_grads}")
pz.backward()
print(f"package engine: z = {pz.data:.4f}, dz/dx = {px.grad:.4f}, dz/dy = {py.grad:.4f}")

# %% [markdown]
# Same answers, $z = 8$, $4$ and $2$. Why bother with numbers instead of closures? Memory.
# A closure that mentions `out`, stored on `out`, makes a loop of references:
# `out` holds `out._backward`, which holds `out`. Python frees most objects the instant
# their last reference disappears, by counting references. An object in a loop never
# reaches a count of zero; it has to wait for the *cyclic garbage collector*, which runs
# only now and then. A tuple of floats refers to nothing. We can watch the difference with
# a weak reference, which observes an object without keeping it alive (the automatic
# collector is paused so that it cannot step in).

# %%
gc.disable()
c = Value(2.0) * Value(3.0)
closure_probe = weakref.ref(c)
pc = engine.Value(2.0) * engine.Value(3.0)
package_probe = weakref.ref(pc)
cut = Value(2.0) * Value(3.0)
cut._backward = lambda: None  # the same kind of node with its closure replaced: no loop
cut_probe = weakref.ref(cut)
del c, pc, cut
print(f"closure engine: result still in memory after del: {closure_probe() is not None}")
print(f"package engine: result still in memory after del: {package_probe() is not None}")
print(f"closure engine, closure removed: still in memory after del: {cut_probe() is not None}")
gc.collect()
print(f"closure engine, after gc.collect(): still in memory: {closure_probe() is not None}")
gc.enable()

# %% [markdown]
# After `del`, the closure engine's result is still in memory (`True`) until the collector
# runs; the package's is gone immediately (`False`). The third line changes only the
# loop: the same closure-engine product, its `_backward` replaced by a function that does
# not mention `out`, is also freed at once (`False`). The loop is what kept it alive.
#
# <details><summary>How we know</summary>
#
# The claims test repeats the three probes on bigger graphs, with the collector paused: a
# neuron, a 100-step chain and three chains of lengths drawn between 50 and 500. Every
# closure-engine graph stays until `gc.collect()`, every package graph goes at once, and
# every closure-engine graph whose output's closure is replaced goes at once too.
#
# <!-- claim: ch04-closure-loop-keeps-alive -->
# </details>
#
# For a toy graph this does not matter. A training loop builds a fresh graph of
# thousands of nodes at every step, and then it does; chapter 12 measures this cost
# when it makes the engine fast.
#
# ## Summary
#
# - Each operation stores how to pass gradients back at the moment it runs: a closure
#   `_backward` in the lectures' style, a tuple of local derivatives in the package.
# - `backward()` sorts the graph so that every node comes after its inputs, sets the
#   output's gradient to 1, and runs the steps in reverse order.
# - Gradients must **accumulate** (`+=`): a value used on two paths gets the sum of both,
#   $\bar v = \sum_{w \text{ uses } v} \bar w \, \partial w/\partial v$. With `=`,
#   $b = a + a$ gives 1 instead of 2.
# - Skipping the sort does not work: pushing and recursing fires a shared node before its
#   total is complete ($\partial d/\partial a = 10$ instead of 8 on $d = b + 3b$).
# - The graph holds only the operations that ran; an `if` leaves no node and no gradient.
# - A recursive sort dies on deep graphs, and raising Python's recursion limit only moves
#   the wall; an explicit stack has none.

# %% [markdown]
# ## Exercises
#
# Each exercise has a stub that runs as it is, a check that says **correct** or gives a
# specific hint, and a worked solution folded away below it. The checks use the package's
# `Value`, whose nodes have `data`, `grad`, `_prev` and a `_backward()` method, just like
# the class above.
#
# **Exercise 4.1 (a sort the chapter only named).** PyTorch orders the backward pass by
# *counting* (section 3's note): for each node, how many times other nodes use it
# ($b = a + a$ uses $a$ twice). Write `topological_order(root)` that way, without recursion
# and without the `(node, done)` stack of section 9. First walk the graph once to count
# each node's uses. Then start from the root, which nobody uses: list a node, and for each
# of its inputs take one off that input's count; an input whose count reaches 0 is ready. Reverse the list at the end, so that
# every node comes after its inputs. The check tries a chain 5,000 nodes deep, and the
# nodes it hands you refuse `.topological_order()`.
#
# Second, a graph that has no order at all. No operation can build a loop, but a
# hand-made node can (set `c._a = d` where `d` already uses `c`). Make your function raise
# `ValueError` on such a graph instead of returning a list. Counting notices a loop without
# extra work: a node on it waits for a user that waits for it, and its count never reaches
# 0. The check builds four loops: a node that uses itself, two nodes that use each other,
# three in a ring, and a loop through the root.
#
# <details><summary>Could the stack of section 9 notice a loop too?</summary>
#
# Yes, if it also marks the nodes whose inputs it is still placing: meeting such a node
# again means a loop. The check tests what your function returns, so it accepts either;
# this exercise is about counting.
# </details>

# %%
from micrograd_lesson import Value as PValue
from micrograd_lesson.exercises import (
    check_bfs_prediction,
    check_div,
    check_run_backward,
    check_topological_order,
    reveal,
)


def my_topological_order(root):
    return [root]  # replace: count uses, then list each node once nobody is left to use it


check_topological_order(my_topological_order)

# %%
reveal("ch04.topological_order")

# %% [markdown]
# **Exercise 4.2 (predict, then check).** A classmate's backward pass skips the sort and
# fires the nodes **breadth-first** from the root: the root, then its inputs, then
# their inputs, each node once. On the graph
#
# $$u = 3x, \qquad L = u + \tanh(2u) \qquad \text{at } x = 0.5$$
#
# the true gradient is $\partial L/\partial x = 3 + 6\,(1 - \tanh^2 3) = 3.0592$. Before
# running anything, work out on paper what `x.grad` the breadth-first pass leaves behind.
# Which node fires too early, and what does it hold at that moment? Submit your number.
# Then build the graph from the package's `Value` (`PValue` below) and run the classmate's
# `breadth_first_backward` on it to see whether you were right.


# %% tags=["classmate"]
def breadth_first_backward(root):
    """The classmate's version: fire each node once, in order of the depth at which it is first met."""
    root.grad = 1.0
    depth, queue = {root: 0}, [root]
    while queue:
        node = queue.pop(0)
        for child in node._prev:
            if child not in depth:
                depth[child] = depth[node] + 1
                queue.append(child)
    for node in sorted(depth, key=depth.get):  # shallow first: the root, then outwards
        node._backward()


# %%
my_prediction = 0.0  # replace with the x.grad you predict; then run breadth_first_backward to see
check_bfs_prediction(my_prediction)

# %%
reveal("ch04.bfs_prediction")

# %% [markdown]
# **Exercise 4.3 (find the bug).** The classmate's idea, firing nodes in order of their
# depth from the root, can be rescued by changing what "depth" means. Which distance from
# the root guarantees that every node fires after all the nodes that use it? Copy
# `breadth_first_backward` into `my_run_backward` and change as little as you can. The
# nodes the check hands you refuse `.backward()` and `.topological_order()`, so the fix
# has to be in the depths: the check also watches that nodes fire by their distance.


# %%
def my_run_backward(root):
    breadth_first_backward(root)  # replace with your fixed copy


check_run_backward(my_run_backward)

# %%
reveal("ch04.run_backward")

# %% [markdown]
# **Exercise 4.4 (derive a rule).** Write `div(a, b)` for two package `Value`s in the
# lectures' style: `out = PValue(a.data / b.data, (a, b), "/")` with a closure
# `out._backward` that you write. The chapter showed the rules for `+` and `*` only, so
# derive the two local derivatives of $a/b$ yourself (nudge $b$ on paper if unsure), and
# decide what `div(a, a)`, which is always 1, must leave in `a.grad`. The check tries that
# too, and a quotient inside a bigger expression.


# %%
def my_div(a, b):
    out = PValue(a.data / b.data, (a, b), "/")
    # define _backward() here and attach it: out._backward = _backward
    return out


check_div(my_div)

# %%
reveal("ch04.div")

# %% [markdown]
# Next: **chapter 5**, where the engine learns subtraction, division, powers, `exp`,
# `log` and the activation functions, and we switch to the package's complete `Value`.
