# %% [markdown]
# # Chapter 2 — A value that remembers
#
# Chapter 1 ended with a cost problem: nudging needs one extra run of the whole
# computation for every input. Nudging is expensive because it treats the function as a
# sealed box: all it can do is feed numbers in and watch what comes out.
#
# Automatic differentiation opens the box. If every number knew *how it was computed*
# (from which other numbers, by which operation), we could walk back through that
# record and work out each input's influence directly, without re-running anything.
# This chapter builds that record: a small `Value` class whose objects remember their
# inputs and their operation. Together those memories form a **computation graph**, and
# we will draw it.

# %% tags=["claim-setup"]
import inspect
import subprocess
import sys

import micrograd_lesson as mg
from micrograd_lesson import draw_dot
from micrograd_lesson.exercises import check_node_count, check_q, check_subtraction, reveal

# Nothing in this chapter is random, so there is nothing to seed.

# %% [markdown]
# ## Step 1: a number in a box
#
# We start with the smallest useful thing: an object that holds one number in `data`,
# prints itself readably, and supports `+` and `*`. Python calls `a.__add__(b)` when you
# write `a + b` and `a.__mul__(b)` for `a * b` (chapter 0 showed this), so those two
# methods are all we need for arithmetic.


# %% tags=["defines-value"]
class Value:
    """A number in a box. It can add and multiply, but forgets how it was made."""

    def __init__(self, data):
        self.data = data

    def __repr__(self):
        return f"Value(data={self.data})"

    def __add__(self, other):
        return Value(self.data + other.data)

    def __mul__(self, other):
        return Value(self.data * other.data)


# %%
a = Value(2.0)
b = Value(-3.0)
print(a + b)
print(a * b)

# %% [markdown]
# Adding gives `Value(data=-1.0)` and multiplying gives `Value(data=-6.0)`, as they
# should. But look at what the product is: just a box holding $-6$. Nothing in it says
# that it came from $2$ times $-3$. That is exactly the information the backward pass
# will need, so the box must keep it.
#
# ## Step 2: remember the inputs and the operation
#
# Every `Value` now gets three more attributes:
#
# - `_prev`: the values it was computed from, its **inputs** (empty for a value we typed
#   in ourselves);
# - `_op`: the operation that produced it, `"+"` or `"*"` (empty for typed-in values);
# - `label`: a name such as `"a"`, only so that drawings are readable.
#
# The constructor takes the inputs and the operation as optional arguments, and
# `__add__` and `__mul__` pass them in when they build their result. We name the
# argument `_children`, as micrograd does (below we run micrograd and see its
# constructor), so that code written for micrograd runs here. The word comes from
# picturing an expression as a tree hanging down from its result: $L$ at the top, the
# values it was made from below it as its children. Our drawings point the other way,
# with arrows running *from* the children *into* the result, because that is the way
# the numbers flow. Same links, two ways of looking at them.


# %% tags=["defines-value"]
class Value:
    """A number that remembers which values it came from and by which operation."""

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self._prev = tuple(_children)  # a tuple: ordered, and may list one value twice
        self._op = _op
        self.label = label

    def __repr__(self):
        if self.label:
            return f"Value(data={self.data}, label={self.label!r})"
        return f"Value(data={self.data})"

    def __add__(self, other):
        return Value(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        return Value(self.data * other.data, (self, other), "*")


# %% [markdown]
# ### Why a tuple and not a set?
#
# The well-known micrograd keeps the inputs in a `set`. A value may use the *same* input
# twice, as in `s = a + a`, and a set collapses the two into one. Does micrograd's `a`
# then lose half of its gradient? It is installed here (`micrograd==0.1.0`), so we can run
# it and see. (`backward()` and `grad` are chapters 3 and 4; all we need now is that the
# right answer for $s = a + a$ is $ds/da = 2$.)

# %%
try:
    from micrograd.engine import Value as MicrogradValue
except ImportError:
    print("micrograd is not installed; `pip install micrograd==0.1.0` to run this cell")
else:
    print(f"micrograd's constructor: Value{inspect.signature(MicrogradValue.__init__)}")
    ma = MicrogradValue(2.0)
    ms = ma + ma
    ms.backward()
    print(f"micrograd, s = a + a: inputs kept in its set: {len(ms._prev)}; ds/da = {ma.grad:.4f}")
    print("\nmicrograd's own __add__:")
    print(inspect.getsource(MicrogradValue.__add__))

# %% [markdown]
# micrograd keeps **1** input in its set, and still gets $ds/da = 2$, the right answer.
# The set loses nothing there, because micrograd never reads its backward rule from
# `_prev`. Its source, printed above, shows why: each operation writes its rule as a small
# function `_backward` (a closure, chapter 0) that names both operands, `self.grad +=
# out.grad` and then `other.grad += out.grad`. In `a + a`, `self` and `other` are both
# `a`, so `a` receives both contributions. The set only lists which values to visit, and
# visiting `a` once is correct. (The course's tests check this on other expressions that
# use a value twice or three times, such as $a \cdot a$ and $(a + a) \cdot a$: micrograd's
# gradients are right on every one.) <!-- claim: ch02-micrograd-set-loses-nothing -->
#
# A set does lose something in a different design: one that stores, beside the inputs,
# **one local derivative per input**, and pairs them up in order. This package's engine
# works that way (chapter 4 builds it). The cell below makes that design in a few lines
# and runs its one backward step for $s = a + a$ twice, once keeping the inputs in a
# tuple and once in a set, with nothing else changed.


# %% tags=["claim-setup"]
class Node:
    """A value that keeps its inputs in `keep` (tuple or set), each with a local derivative."""

    def __init__(self, data, inputs=(), local_grads=(), keep=tuple):
        self.data = data
        self.grad = 0.0
        self.inputs = keep(inputs)
        self.local_grads = local_grads  # d(this)/d(input), in the order the inputs came


for keep in (tuple, set):
    a = Node(2.0)
    s = Node(a.data + a.data, (a, a), local_grads=(1.0, 1.0), keep=keep)  # s = a + a
    for inp, local in zip(s.inputs, s.local_grads):  # pair each input with its derivative
        inp.grad += local * 1.0  # ds/ds = 1
    print(f"inputs kept in a {keep.__name__:<5}: {len(s.inputs)}; ds/da = {a.grad:.4f}")

# %% [markdown]
# With a tuple, $ds/da = 2$. With a set, $ds/da = 1$: the set holds `a` once, so `zip`
# pairs it with the first local derivative and silently drops the second (`zip` stops at
# the shorter sequence, as exercise 0.3 of chapter 0 found). The same happens to
# $a \cdot a$ at any $a$: the set gives half the gradient (the course's tests check both
# at random values). <!-- claim: ch02-set-drops-a-share --> A set has a second problem
# for this design: it has no order, so even with two *different* inputs, as in $x - y$
# with local derivatives $(1, -1)$, nothing would say which derivative belongs to which
# input.
#
# A tuple keeps the order the inputs were given in, left operand first, so every walk over
# the graph (a drawing, and from chapter 4 the backward pass) meets them in that order, on
# every run. A set's order follows the hashes of its members, and a `Value`'s hash is
# derived from its memory address. Is that order then random from run to run? The cell
# below tests it. It runs a small program, the class above with `_prev` kept in a set or
# a tuple, in fresh Python processes, and prints the order in which `(a * b)._prev` lists
# `a` and `b`. The one thing it changes is how many other values, `k`, the program makes
# (and keeps) before it makes `a` and `b`.

# %% tags=["claim-setup"]
PROGRAM = """
import sys
class Value:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data, self._prev, self._op, self.label = data, KEEP(_children), _op, label
    def __mul__(self, other):
        return Value(self.data * other.data, (self, other), "*")
made_first = [Value(0.0) for _ in range(int(sys.argv[1]))]  # k unrelated values, kept
a, b = Value(2.0, label="a"), Value(-3.0, label="b")
print(" ".join(v.label for v in (a * b)._prev))
"""


def input_order(keep, k):
    """The order of a and b in (a * b)._prev, in a fresh process that first makes k other values."""
    code = PROGRAM.replace("KEEP", keep)
    run = subprocess.run(
        [sys.executable, "-c", code, str(k)], capture_output=True, text=True, check=True
    )
    return run.stdout.strip()


# %%
for keep in ("set", "tuple"):
    orders = {input_order(keep, k) for k in range(20)}
    print(f"{keep:<5}: k = 0 to 19 gives {len(orders)} order{'s' * (len(orders) > 1)}")
print(f"tuple's order: {input_order('tuple', 0)}")

# %% [markdown]
# Change nothing except how many unrelated values were made first, and the set's order
# flips: over $k = 0$ to 19, both orders occur. The tuple lists `a b` every time. Which
# order a set gives for a given $k$ differs between Python versions, and on Python 3.11
# it is not even fixed for one program: run again in a fresh process, the very same
# program sometimes lists them the other way (we saw it for many $k$ from 11 up; whether it
# happens depends even on the environment variables the process starts with, so the
# course's tests do not rely on it either way). Either way the order depends on
# things the program does not control, which in a notebook includes whatever cells you
# happened to run. The tests also draw the chapter's own graph with `draw_dot` after making
# $k$ values first: with a tuple the drawing is the same for every $k$. (`draw_dot` sorts a
# set's inputs by label, data and operation, so a micrograd graph draws the same on every
# run unless two inputs of one operation tie on all three.)
# <!-- claim: ch02-tuple-same-drawing --> So our `Value` keeps a
# tuple:

# %%
a = Value(2.0, label="a")
s = a + a
print(f"s = a + a = {s.data}")
print(f"inputs remembered in the tuple: {len(s._prev)}")
print(f"inputs a set would keep:        {len(set(s._prev))}")

# %% [markdown]
# The tuple keeps **2** inputs, the set only **1**.
#
# ## The example graph
#
# Now we build a small expression in three steps, at $a = 2$, $b = -3$, $c = 10$ and
# $f = -2$:
#
# $$e = a \cdot b, \qquad d = e + c, \qquad L = d \cdot f.$$
#
# In words: multiply $a$ by $b$ to get $e$, add $c$ to get $d$, multiply by $f$ to get
# $L$. We call the last one $L$ because in training the final number is the **loss**,
# the thing we want to make small. This graph is the running example of the next
# chapter too.

# %%
a = Value(2.0, label="a")
b = Value(-3.0, label="b")
c = Value(10.0, label="c")
f = Value(-2.0, label="f")
e = a * b
e.label = "e"
d = e + c
d.label = "d"
L = d * f
L.label = "L"

print(f"e = {e.data:.4f}")
print(f"d = {d.data:.4f}")
print(f"L = {L.data:.4f}")
print(f"L was made by {L._op!r} from {L._prev}")

# %% [markdown]
# So $e = -6$, $d = 4$ and $L = -8.0$. The last line shows the memory at work: `L`
# knows it was made by `'*'` from `d` (holding 4) and `f` (holding $-2$). And `d` knows
# its own inputs, and so on back to the beginning. Following `_prev` from `L` reaches
# every value that went into it.
#
# ## Drawing the graph
#
# `draw_dot` from the package follows those links and draws what it finds, with
# Graphviz. Each rectangle is a value, showing its label and its `data`. Each oval is
# an operation: arrows run from the inputs into the oval, and from the oval to the
# value it produced. Read it left to right, the way the numbers flow.

# %%
draw_dot(L, rankdir="LR")

# %% [markdown]
# Each rectangle has a single row of data, because our class has no gradient yet.
# (On a class that does have a `grad`, `show_grad=False` hides that row; we will want it
# from chapter 3 on.) You can check every number in the drawing against the printout
# above: $a \cdot b = -6$, $-6 + 10 = 4$, $4 \cdot (-2) = -8$.
#
# ## Leaves, root and why it is a DAG
#
# Some vocabulary, which the rest of the course uses constantly:
#
# - A **leaf** is a value with no inputs: one we typed in. Here $a$, $b$, $c$ and $f$.
#   In a neural network the leaves are the inputs and the weights.
# - The **root** is the final value, the one everything flows into: here $L$.
# - The whole drawing is a **DAG**, a *directed acyclic graph*: directed, because every
#   arrow points from an input to a result; acyclic, because no path of arrows ever comes
#   back to where it started.
#
# A few lines of code can find the leaves by walking back from the root along `_prev`
# and collecting every value met on the way.


# %%
def all_values(root):
    """Every distinct value that `root` was computed from, root included."""
    found, todo = [], [root]
    while todo:
        v = todo.pop()
        if not any(v is seen for seen in found):
            found.append(v)
            todo.extend(v._prev)
    return found


values = all_values(L)
leaves = [v for v in values if not v._prev]
print(f"{len(values)} values, {sum(1 for v in values if v._op)} operations")
print(f"leaves: {', '.join(sorted(v.label for v in leaves))}")
print(f"root:   {L.label}")

# %% [markdown]
# The graph holds **7 values** and **3 operations**; its leaves are `a`, `b`, `c` and `f`,
# and its root is `L`. The drawing can say the same with a note on each of those nodes:

# %%
notes = {v: "leaf" for v in leaves}
notes[L] = "root"
draw_dot(L, rankdir="TB", notes=notes)

# %% [markdown]
# This time the graph is laid out top to bottom (`rankdir="TB"`), so the leaves sit at
# the top and the root at the bottom.
#
# Why can it never contain a cycle? Because a `Value` is only ever built from values that
# *already exist*. Every arrow points from an older value to a newer one, and no chain of
# "older than" can lead back to its own start. (The course's tests build random
# expressions and confirm that each one's graph has an order with every arrow pointing
# forwards.) <!-- claim: ch02-never-a-cycle -->
#
# A DAG is not always a tree, though. A value may feed several operations. Below,
# $a$ and $b$ are each used twice: once in the product $p = a \cdot b$ and once in the
# sum $q = a + b$, and the results meet again in $r = p \cdot q$.

# %%
a = Value(2.0, label="a")
b = Value(-3.0, label="b")
p = a * b
p.label = "p"
q = a + b
q.label = "q"
r = p * q
r.label = "r"
print(f"p = {p.data:.4f}, q = {q.data:.4f}, r = {r.data:.4f}")
print(f"{len(all_values(r))} values, even though a and b are used twice")
draw_dot(r)

# %% [markdown]
# Here $p = -6$, $q = -1$ and $r = 6$, in a graph of **5 values**. Each of $a$ and $b$
# has two arrows leaving it: one value, two uses. This shape matters in chapter 4,
# where a value used twice must collect influence from both of its uses.
#
# ## What the class cannot do yet
#
# Our `Value` only knows how to combine with another `Value`. Mixing in a plain number
# fails, because `__add__` asks the number `1` for a `.data` attribute it does not have:

# %%
try:
    a + 1
except AttributeError as err:
    print(f"{type(err).__name__}: {err}")

# %% [markdown]
# The message says it exactly: `'int' object has no attribute 'data'`. Chapter 5 teaches
# the class to wrap plain numbers automatically, and adds the reflected operators so
# that `1 + a` works too.
#
# ## The same graph, with an empty grad row
#
# The package's finished `Value` (in `micrograd_lesson.engine`) remembers its inputs in
# exactly the same way, and also carries a `grad` attribute that starts at zero. Built
# from it, the same expression draws with a second row on every node. With two rows
# per node the picture gets wide, so this time we draw it top to bottom again:

# %%
pa = mg.Value(2.0, label="a")
pb = mg.Value(-3.0, label="b")
pc = mg.Value(10.0, label="c")
pf = mg.Value(-2.0, label="f")
pe = pa * pb
pe.label = "e"
pd = pe + pc
pd.label = "d"
pL = pd * pf
pL.label = "L"
print(f"L = {pL.data:.4f}, and every grad is still {pL.grad:.4f}")
draw_dot(pL, rankdir="TB")

# %% [markdown]
# The data row matches our own class ($L = -8$ again), and every grad row reads
# $0.0000$. That row is a blank waiting to be filled with an answer to the question:
# *if this value were nudged up a little, how fast would $L$ change?* Chapter 3 fills it
# in by hand, one node at a time, using nothing but the chain rule.
#
# ## Exercises
#
# ### 1. A subtraction that works once (find the bug)
#
# A classmate added `__sub__` in a subclass, so that `x - y` gives a new `Value` that
# remembers `(x, y)`, in that order, and `"-"` as its operation. Their test `x - y` passes,
# but `(x - y) - z` raises `TypeError`. **Before running it**, predict why: what class is
# the result of `x - y`, and what can that class do? Then fix `ValueWithSub` so that
# chains of subtractions work, still remembering each step's inputs.


# %%
class ValueWithSub(Value):  # the classmate's version: fix it
    def __sub__(self, other):
        return Value(self.data - other.data, (self, other), "-")


x, y, z = ValueWithSub(5.0), ValueWithSub(3.0), ValueWithSub(1.0)
print(x - y)
check_subtraction(ValueWithSub)

# %%
reveal("ch02.subtraction")

# %% [markdown]
# ### 2. Predict the graph, then draw it
#
# Take $q = (a \cdot b + c) \cdot (a + c)$ at $a = 2$, $b = -3$, $c = 10$, where $a$ and $c$
# each appear twice in the formula. **Before** building or drawing it, predict its graph:
# how many distinct values (rectangles) will it hold, and how many operations (ovals)?
# Which values will have two arrows leaving them? Answer with a pair
# `(values, operations)`.

# %%
prediction = (0, 0)  # replace: (number of values, number of operations)
check_node_count(prediction)

# %%
reveal("ch02.node_count")

# %% [markdown]
# ### 3. Build it and compare
#
# Now build $q$ with the `Value` class above, with labels on the leaves, and draw it with
# `draw_dot(q)`. Does the drawing match your prediction, including which values have two
# arrows leaving them? Then pass `q` to the check.

# %%
q = Value(0.0)  # replace: build the expression from leaves a, b and c
check_q(q)

# %%
reveal("ch02.q")

# %% [markdown]
# Next: **chapter 3**, where we fill in every grad row by hand with the chain rule, and
# check each number by nudging.
