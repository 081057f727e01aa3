# %% [markdown]
# # Chapter 2 — A value that remembers
#
# Nudging treats a function as a sealed box: feed numbers in, watch what comes out, once
# per input. Automatic differentiation opens the box. If every number remembered *how it
# was computed*, from which numbers and by which operation, we could walk back through that
# record and find each input's influence without re-running anything. This chapter builds
# that record, a **computation graph**, and draws it.

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
# First, a number in `data` that can add and multiply: Python turns `a + b` into
# `a.__add__(b)` and `a * b` into `a.__mul__(b)` (chapter 0).


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
# Adding gives `Value(data=-1.0)`, multiplying `Value(data=-6.0)`. But the product is just
# a box holding $-6$: nothing says it came from $2$ times $-3$, and the backward pass will
# need exactly that.
#
# ## Step 2: remember the inputs and the operation
#
# Each `Value` gets three more attributes:
#
# - `_prev`: the values it was computed from, its **inputs** (empty for a value we typed in);
# - `_op`: the operation that made it, `"+"` or `"*"`;
# - `label`: a name such as `"a"`, for readable drawings.
#
# `__add__` and `__mul__` hand the inputs and the operation to the constructor, whose
# argument is called `_children`, as in micrograd, the small library this course follows:
# code written for micrograd runs on the course's engine too.
#
# <details><summary>Why "children"?</summary>
#
# Picture an expression as a tree hanging down from its result: $L$ at the top, the values
# it was made from below it, its children. Our drawings point the other way, with arrows
# from the children into the result, because that is the way the numbers flow. Same links,
# two ways of looking at them.
# </details>


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
# micrograd keeps `_prev` in a set. We keep a tuple, for two reasons: a tuple keeps an input
# used twice, and it keeps the inputs in order.

# %%
a = Value(2.0, label="a")
s = a + a
print(f"s = a + a = {s.data}")
print(f"inputs remembered in the tuple: {len(s._prev)}")
print(f"inputs a set would keep:        {len(set(s._prev))}")

# %% [markdown]
# In $s = a + a$ the tuple keeps **2** inputs, the set only **1**. Does that cost micrograd
# half of `a`'s gradient? Run it and see: the right answer is $ds/da = 2$ (`backward()` and
# `grad` come in chapters 3 and 4).

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
# No: micrograd gets $ds/da = 2$. Its rule for `+`, printed above, names both operands, and
# in `a + a` both are `a`, so `a` receives both shares. The set only lists which values to
# visit.
#
# <details><summary>How we know</summary>
#
# Other expressions that use a value two or three times, such as $a \cdot a$ and
# $(a + a) \cdot a$, at random values: micrograd's gradients are right on every one.
#
# <!-- claim: ch02-micrograd-set-loses-nothing -->
# </details>
#
# A set does cost a design that pairs each input with its own local derivative, as this
# package's engine does (chapter 4). The cell builds that design twice, changing only the
# tuple to a set:


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
# With the set, $ds/da = 1$: it holds `a` once, so `zip` pairs it with the first local
# derivative and drops the second.
#
# <details><summary>How we know</summary>
#
# The same happens to $a \cdot a$ at random values of $a$: the set gives half the gradient.
# With two *different* inputs, as in $x - y$ with local derivatives $(1, -1)$, a set would
# have another problem: nothing would say which derivative belongs to which input.
#
# <!-- claim: ch02-set-drops-a-share -->
# </details>
#
# Order is the second reason. A set places its members by their hashes, and a `Value`'s
# hash comes from its memory address (first line below). The cell runs a small program in
# fresh Python processes: it makes `k` unrelated values, then `a` and `b`, and prints the
# order in which `(a * b)._prev` lists them.

# %% tags=["claim-setup"]
PROGRAM = """
import sys
class Value:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data, self._prev, self._op, self.label = data, KEEP(_children), _op, label
    def __mul__(self, other):
        return Value(self.data * other.data, (self, other), "*")
    OWN_HASH
made_first = [Value(0.0) for _ in range(int(sys.argv[1]))]  # k unrelated values, kept
a, b = Value(2.0, label="a"), Value(-3.0, label="b")
print(" ".join(v.label for v in (a * b)._prev))
"""


def input_order(keep, k, hash_from="address"):
    """The order of a and b in (a * b)._prev, in a fresh process that first makes k other values.
    hash_from="data": Value gets a hash made from its data instead of its memory address."""
    own_hash = "def __hash__(self): return hash(self.data)" if hash_from == "data" else ""
    code = PROGRAM.replace("KEEP", keep).replace("OWN_HASH", own_hash)
    run = subprocess.run(
        [sys.executable, "-c", code, str(k)], capture_output=True, text=True, check=True
    )
    return run.stdout.strip()


# %%
v = Value(2.0)
print(f"hash(v) == id(v) // 16: {hash(v) == id(v) // 16}")  # id(v): where v sits in memory
for keep, hash_from in [("set", "address"), ("set", "data"), ("tuple", "address")]:
    orders = {input_order(keep, k, hash_from) for k in range(20)}
    print(
        f"{keep:<5} (hash from {hash_from:<7}): k = 0 to 19 gives {len(orders)} "
        f"order{'s' * (len(orders) > 1)}: {' or '.join(sorted(orders))}"
    )

# %% [markdown]
# Over those twenty runs the set's order flips. Change only where the hash comes from, the
# data instead of the address, and the set keeps one order: the flips come from where `a`
# and `b` happen to sit in memory, which depends on what ran before them (in a notebook,
# every cell you happened to run). The tuple lists `a b` every time.
#
# <details><summary>How we know</summary>
#
# We ran the program for every `k` from 0 to 999 on Python 3.11 and 3.13: in every run of
# 20 consecutive `k` the set's order flips at least once. Fresh windows of 20 are checked
# again, with the tuple and with a hash from data keeping one order. The chapter's own graph
# drawn with `draw_dot` after making `k` values is the same drawing for every `k`.
# (`draw_dot` sorts a set's inputs by label, data and operation, so a micrograd graph draws
# the same on every run too, unless two inputs of one operation tie on all three.)
#
# <!-- claim: ch02-tuple-same-drawing -->
# </details>
#
# <details><summary>On Python 3.11</summary>
#
# Which order a set gives for a given `k` differs between Python versions, and on 3.11 it
# is not even fixed for one program: run again in a fresh process, the same program
# sometimes lists them the other way (we saw it for many `k` from 11 up). Whether that
# happens depends even on the environment variables the process starts with, so nothing
# here relies on it either way.
# </details>

# %% [markdown]
# ## The example graph
#
# Now an expression in three steps, at $a = 2$, $b = -3$, $c = 10$ and $f = -2$:
#
# $$e = a \cdot b, \qquad d = e + c, \qquad L = d \cdot f.$$
#
# $L$ is for **loss**, the number training makes small. Chapter 3 works on this graph too.

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
# So $e = -6$, $d = 4$ and $L = -8.0$. The last line shows the memory at work: `L` was made
# by `'*'` from `d` and `f`; `d` knows its own inputs, and so on: following `_prev` from `L`
# reaches every value that went into it.
#
# ## Drawing the graph
#
# `draw_dot` follows those links and draws them. A rectangle is a value, with its label and
# `data`; an oval is an operation, with arrows from its inputs and to its result. Read it
# left to right, the way the numbers flow.

# %%
draw_dot(L, rankdir="LR", alt="Left to right; each box shows a label and its data, no grad.")

# %% [markdown]
# Each rectangle has one row, its data: our class has no gradient yet. Check the numbers:
# $a \cdot b = -6$, $-6 + 10 = 4$, $4 \cdot (-2) = -8$.
#
# ## Leaves, root and DAG
#
# - A **leaf** is a value with no inputs, one we typed in: here $a$, $b$, $c$ and $f$. In a
#   network the leaves are the inputs and the weights.
# - The **root** is the final value: here $L$.
# - The graph is a **DAG**, a *directed acyclic graph*: every arrow points from an input to
#   a result, and no path of arrows comes back to where it started.
#
# A few lines find them, walking back from the root along `_prev`:


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
# **7 values** and **3 operations**; leaves `a`, `b`, `c` and `f`; root `L`. The drawing
# can mark them, top to bottom this time:

# %%
notes = {v: "leaf" for v in leaves}
notes[L] = "root"
draw_dot(L, rankdir="TB", notes=notes, alt="Top to bottom; a, b, c and f are noted leaf, L root.")

# %% [markdown]
# Why can there never be a cycle? A `Value` is built only from values that *already exist*,
# so every arrow points from an older value to a newer one, and no chain of "older than"
# leads back to its start.
#
# <details><summary>How we know</summary>
#
# Random expressions of 40 operations, each built from values made before it: every graph
# has an order in which all arrows point forwards.
#
# <!-- claim: ch02-never-a-cycle -->
# </details>
#
# A DAG need not be a tree: a value may feed several operations. Below, $a$ and $b$ each
# feed both $p = a \cdot b$ and $q = a + b$, which meet in $r = p \cdot q$.

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
# $p = -6$, $q = -1$, $r = 6$, in **5 values**: $a$ and $b$ each have two arrows leaving
# them. In chapter 4 a value used twice collects influence from both uses.
#
# ## What the class cannot do yet
#
# Mixing in a plain number fails: `__add__` asks `1` for a `.data` it lacks.

# %%
try:
    a + 1
except AttributeError as err:
    print(f"{type(err).__name__}: {err}")

# %% [markdown]
# Chapter 5 teaches the class to wrap plain numbers, and `1 + a` too.
#
# ## The same graph, with a grad row
#
# The package's finished `Value` remembers its inputs the same way, and also carries a
# `grad`, starting at zero. Built from it, the same expression draws with a second row:

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
draw_dot(pL, rankdir="TB", alt="Top to bottom; each box adds a grad row, 0.0000 everywhere.")

# %% [markdown]
# The data match our own class ($L = -8$), and every grad reads $0.0000$: a blank for the
# answer to *if this value were nudged up a little, how fast would $L$ change?* Chapter 3
# fills it in by hand, with the chain rule.
#
# ## Exercises
#
# ### 1. A subtraction that works once (find the bug)
#
# A classmate added `__sub__` in a subclass: `x - y` remembers `(x, y)` and `"-"`. Their
# test `x - y` passes, but `(x - y) - z` raises `TypeError`. **Before running it**, predict
# why: what class is the result of `x - y`? Then fix `ValueWithSub` so that chains of
# subtractions work.


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
# Take $q = (a \cdot b + c) \cdot (a + c)$ at $a = 2$, $b = -3$, $c = 10$. **Before** building
# it, predict its graph: how many values (rectangles) and operations (ovals)? Which values
# have two arrows leaving them? Answer with a pair `(values, operations)`.

# %%
prediction = (0, 0)  # replace: (number of values, number of operations)
check_node_count(prediction)

# %%
reveal("ch02.node_count")

# %% [markdown]
# ### 3. Build it and compare
#
# Now build $q$ with the `Value` class above, labels on the leaves, and draw it with
# `draw_dot(q)`. Does it match your prediction? Then pass `q` to the check.

# %%
q = Value(0.0)  # replace: build the expression from leaves a, b and c
check_q(q)

# %%
reveal("ch02.q")

# %% [markdown]
# Next: **chapter 3**, where we fill in every grad row by hand with the chain rule, and
# check each number by nudging.
