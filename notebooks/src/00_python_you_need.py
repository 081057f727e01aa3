# %% [markdown]
# # Chapter 0 — The Python you need
#
# This course builds an automatic-differentiation engine, the machine inside PyTorch's
# `loss.backward()`, from nothing. The engine itself turns out to be short: about a
# hundred lines. What makes those lines short is a handful of Python features that let
# an ordinary object behave like a number, remember things, and be called like a
# function.
#
# This chapter shows each of those features once, with the tiny example that later
# chapters lean on. If you already write Python classes with `__add__` and closures,
# skim it and run the environment check at the end: it tells you whether your machine
# can draw the computation graphs the rest of the course is full of.
#
# Run the cells in order, top to bottom (in JupyterLab: *Run → Run All Cells*). Every
# notebook in the course starts with a cell like the next one: imports and a fixed
# random seed, so the numbers you see are the numbers written in the text.

# %%
import random
import shutil
import subprocess
import sys

random.seed(0)

# %% [markdown]
# ## 1. Operator overloading: teaching `+` to a new type
#
# When Python evaluates `a + b`, it does not know what "plus" means for your objects.
# It asks: it calls `a.__add__(b)`. If you define that method, your class takes part
# in ordinary arithmetic. The engine's `Value` does exactly this: `a + b` on two
# `Value`s builds a new `Value` *and* remembers that it came from an addition.
#
# Here is the smallest version: a number in a box, `Num`, that knows how to add.


# %%
class Num:
    def __init__(self, value):
        self.value = value

    def __add__(self, other):
        return Num(self.value + other.value)

    def __repr__(self):  # what Python shows when it prints a Num
        return f"Num({self.value})"


Num(2) + Num(3)

# %% [markdown]
# `Num(2) + Num(3)` printed `Num(5)`: Python turned the `+` into
# `Num(2).__add__(Num(3))`, and `__repr__` decided how the answer looks.
#
# Now try something a learner writes within minutes: adding a plain number.
# `Num(2) + 1` fails, because our `__add__` reaches for `other.value` and the integer
# `1` has no `.value`. Here is the error, caught so that the notebook keeps running:

# %%
try:
    Num(2) + 1
except AttributeError as e:
    print(f"{type(e).__name__}: {e}")

# %% [markdown]
# ## 2. `isinstance`: accept plain numbers too
#
# The fix is to look at what we were given. `isinstance(other, Num)` is `True` for a
# `Num` and `False` for an `int`; when it is false, we wrap the number in a `Num`
# first. The engine does the same with `Value`, which is why `a * 2` works there.


# %%
class Num:
    def __init__(self, value):
        self.value = value

    def __add__(self, other):
        other = other if isinstance(other, Num) else Num(other)
        return Num(self.value + other.value)

    def __repr__(self):
        return f"Num({self.value})"


print(Num(2) + 1)
print("int's own answer:", (1).__add__(Num(2)))
try:
    1 + Num(2)
except TypeError as e:
    print(f"1 + Num(2) -> {type(e).__name__}: {e}")
try:
    sum([Num(1), Num(2)])
except TypeError as e:
    print(f"sum([Num(1), Num(2)]) -> {type(e).__name__}: {e}")

# %% [markdown]
# `Num(2) + 1` now gives `Num(3)`. But `1 + Num(2)` still fails, with a `TypeError`,
# and so does `sum` over a list of `Num`s. The order matters: for `1 + Num(2)` Python
# first asks the *integer* `1` to add a `Num`, and `int.__add__` has never heard of our
# class, so it says "not my job": the second line shows it returning the special value
# `NotImplemented`.
#
# ## 3. Reflected operators: `__radd__`
#
# When the left operand gives up, Python gives the right operand a chance: it calls
# `Num(2).__radd__(1)`, the *reflected* add. Addition does not care about order, so
# `__radd__` can simply reuse `__add__`. (For subtraction and division the order *does*
# matter; exercise 0.1 shows what happens when that is forgotten.)


# %%
class Num:
    def __init__(self, value):
        self.value = value

    def __add__(self, other):
        other = other if isinstance(other, Num) else Num(other)
        return Num(self.value + other.value)

    def __radd__(self, other):  # called for `other + self` when other gives up
        return self + other

    def __repr__(self):
        return f"Num({self.value})"


print(1 + Num(2))
print(sum([Num(1), Num(2), Num(3)]))

# %% [markdown]
# `1 + Num(2)` gives `Num(3)`, and `sum([Num(1), Num(2), Num(3)])` gives `Num(6)`.
# The second line is the one to remember: `sum` starts from the integer `0`, so its
# very first step is `0 + Num(1)`, a reflected add. That is why `sum` failed in the
# previous section, with the same message as `1 + Num(2)`, and works now that
# `__radd__` is the only thing added. A neuron later in the course is exactly such a sum.
#
# ## 4. Closures: functions that remember
#
# A function defined inside another function can use the outer function's variables,
# and it keeps them after the outer function has returned. That bundle of a function
# and the variables it remembers is a *closure*.


# %%
def make_scaler(n):
    def scale(x):
        return n * x  # n belongs to make_scaler's call, and scale keeps it

    return scale


double = make_scaler(2)
triple = make_scaler(3)
print(double(10), triple(10))
print("double remembers n =", double.__closure__[0].cell_contents)

# %% [markdown]
# `double(10)` is 20 and `triple(10)` is 30: each function remembers its own `n`,
# which Python stores in the function's `__closure__`. Strictly, a closure remembers the
# *variable* `n`, not a snapshot of its value: it reads `n` each time it is called. Here
# that makes no difference, because each call of `make_scaler` has its own `n` that never
# changes afterwards. Exercise 0.2 is a case where it does make a difference. The famous micrograd lectures
# give every operation a closure like this: "when the gradient reaches me, send it to
# *these* inputs". Chapter 4 builds that, and then shows the small price it carries
# (each node and its closure point at each other, which keeps memory alive longer).
#
# ## 5. Lambdas: one-line functions
#
# `lambda x: x * x` is a function without a name, written where it is used. The course
# uses lambdas to hand a formula to a helper, for example "the function whose slope
# we want" in chapter 1.

# %%
square = lambda x: x * x  # a lambda given a name, only to show the idea
print(square(4))
points = [(3, "c"), (1, "a"), (2, "b")]
print(sorted(points, key=lambda p: p[0]))

# %% [markdown]
# `square(4)` is 16, and `sorted(..., key=lambda p: p[0])` orders the pairs by their
# first element.
#
# ## 6. Comprehensions, generator expressions and `zip`
#
# A neuron holds one weight per input. Making the weights is a *list comprehension*,
# a loop written inside square brackets. Combining them with the inputs needs `zip`,
# which walks two lists side by side, pairing their elements. Adding up the products
# is a *generator expression*: the same loop in parentheses, producing one product at a
# time for `sum` instead of building a list first.

# %%
weights = [round(random.uniform(-1, 1), 4) for _ in range(3)]
inputs = [1.0, 2.0, -1.0]
print("weights:", weights)
print("pairs:  ", list(zip(weights, inputs)))
activation = sum(w * x for w, x in zip(weights, inputs))
print(f"w . x = {activation:.4f}")

# %% [markdown]
# With the seed fixed to 0, the weights are 0.6888, 0.5159 and −0.1589, and the
# weighted sum `w · x` is 1.8795: 0.6888·1 + 0.5159·2 + (−0.1589)·(−1). Change the seed
# and the weights change; keep it and they never do. That is why every notebook seeds
# its random numbers in its first cell.
#
# ## 7. `__call__`: objects you call like functions
#
# In PyTorch you write `model(x)`, not `model.forward(x)`. An object can be called like
# a function if its class defines `__call__`. The course's `Neuron`, `Layer` and `MLP`
# are such objects: they hold their weights *and* you call them on inputs.


# %%
class TinyNeuron:
    def __init__(self, weights):
        self.weights = weights

    def __call__(self, xs):
        return sum(w * x for w, x in zip(self.weights, xs))


neuron = TinyNeuron(weights)
print(f"neuron(inputs) = {neuron(inputs):.4f}")

# %% [markdown]
# `neuron(inputs)` gives the same 1.8795 as before: calling the object ran `__call__`,
# which is the generator expression from section 6. Every piece of this chapter is now
# in one place: an object that holds numbers, is called like a function, pairs inputs
# with `zip`, and adds with `sum`. Swap the floats for the engine's `Value`s and this
# neuron can *learn*, which is where chapter 7 picks it up.
#
# ## 8. Check your environment
#
# The course draws computation graphs with Graphviz, a separate program called `dot`
# (the Python package `graphviz` only talks to it). The next cell checks that `dot` is
# installed, prints the versions of what the course uses, and draws a first graph. If
# `dot` is missing, it prints the command that installs it on your system; install it
# and restart the kernel (*Kernel → Restart Kernel*).

# %%
import graphviz
import matplotlib
import numpy

import micrograd_lesson
from micrograd_lesson import Value, draw_dot

print(f"Python version {sys.version.split()[0]}")
for module in (numpy, matplotlib, graphviz, micrograd_lesson):
    print(f"{module.__name__} version {module.__version__}")

dot = shutil.which("dot")
if dot is None:
    print("Graphviz dot: NOT FOUND. Install it, then restart the kernel:")
    print("  Debian/Ubuntu: sudo apt-get install graphviz")
    print("  macOS:         brew install graphviz")
    print("  conda:         conda install -c conda-forge python-graphviz")
    print("  Windows:       winget install graphviz")
else:
    # `dot -V` prints its version to stderr, e.g. "dot - graphviz version 2.43.0 (0)".
    banner = subprocess.run([dot, "-V"], capture_output=True, text=True).stderr
    print(f"Graphviz dot: found, version {banner.split('version')[-1].split()[0]}")

try:
    import torch

    print(f"PyTorch (optional): installed, version {torch.__version__}")
except ImportError:
    print("PyTorch (optional): not installed; the cells that compare with it will say so and skip")

# %% [markdown]
# You should see a version for each package and "Graphviz dot: found". PyTorch is
# optional: the chapters that compare our gradients with PyTorch's
# run that comparison when it is installed and say so when it is not.
#
# Finally, a first drawing. Below, `a` and `b` are two numbers wrapped in the engine's
# `Value`, `c` is their product, and `draw_dot` draws how `c` was computed: two boxes
# for the inputs, an oval for the `*` operation, and a box for the result, each box
# showing its data (and a gradient, which stays 0 until chapter 3 explains it). If
# you see the picture, everything the course needs is working.

# %%
a = Value(2.0, label="a")
b = Value(-3.0, label="b")
c = a * b
c.label = "c"
draw_dot(c)

# %% [markdown]
# The drawing shows `c = −6.0000`, the product of `a = 2.0000` and `b = −3.0000`.
# Chapter 2 builds this kind of `Value` from scratch, and by chapter 5 you will have
# written every operation of the one imported here yourself.
#
# ## Exercises
#
# Each exercise has a stub that runs as it is, a check that prints **correct** or a
# specific hint, and a worked solution folded away below it: click *Show the solution*
# only after trying. Edit the stub, run its cell, read the verdict. These three ask you to
# *think* before you type: each starts from code that runs but does something you might
# not expect.
#
# **Exercise 0.1: find the bug.** The class below learns subtraction the way section 3
# taught addition, reusing `__sub__` as `__rsub__`. Before you run the cell, predict what
# its two subtractions print (the stored output below the cell shows the answer, so cover
# it). `Num(10) - 3` is right, `10 - Num(3)` is not. Work out which method Python calls
# for each, with which `self` and `other`, and fix the class so that both give `Num(7)`.

# %%
from micrograd_lesson.exercises import check_rsub, check_scalers, check_zip_prediction, reveal


class Num:
    def __init__(self, value):
        self.value = value

    def __sub__(self, other):
        other = other if isinstance(other, Num) else Num(other)
        return Num(self.value - other.value)

    __rsub__ = __sub__  # reused, as __radd__ reused __add__

    def __repr__(self):
        return f"Num({self.value})"


print(Num(10) - 3, 10 - Num(3))
check_rsub(Num)

# %%
reveal("ch00.rsub")

# %% [markdown]
# **Exercise 0.2: find the bug.** The cell below is meant to make three functions that
# multiply by 1, 2 and 3, so that it prints `[10, 20, 30]`. It prints something else.
# Explain why, using what section 4 said a closure remembers, and fix the list `scalers`
# so that each function keeps its own multiplier.

# %%
scalers = [lambda x: n * x for n in (1, 2, 3)]
print([scale(10) for scale in scalers])
check_scalers(scalers)

# %%
reveal("ch00.scalers")

# %% [markdown]
# **Exercise 0.3: predict, then check.** `TinyNeuron` from section 7 has one weight per
# input. What happens if it is given fewer inputs than it has weights? Predict the value
# of `TinyNeuron([0.5, -1.0, 2.0])([4.0, 1.0])` *without running it*: a number, or, if
# you think it fails, the string `"error"`. Write your prediction in the cell, then check
# it; only then run the expression to see for yourself.

# %%
prediction = None  # replace with your prediction: a number, or "error"
check_zip_prediction(prediction)

# %%
reveal("ch00.zip_prediction")

# %% [markdown]
# The package's `Neuron`, which chapter 7 builds, checks the number of inputs for exactly
# this reason: a silent wrong number is worse than an error.

# %%
from micrograd_lesson.nn import Neuron

try:
    Neuron(3)([4.0, 1.0])
except ValueError as e:
    print(f"{type(e).__name__}: {e}")

# %% [markdown]
# Next: **chapter 1**, where a derivative turns out to be nothing more than a nudge.
