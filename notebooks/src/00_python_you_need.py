# %% [markdown]
# # Chapter 0 — The Python you need
#
# This course builds the machine inside PyTorch's `loss.backward()` from nothing: an
# automatic-differentiation engine of about a hundred lines. A few Python features keep it
# that short, by letting an object act like a number, remember things and be called like a
# function. This chapter shows each once, with the tiny example later chapters lean on. If
# you know them, skim, but run the environment check at the end.
#
# Run the cells in order (*Run → Run All Cells*). Every notebook's first cell imports and
# seeds, so the numbers you see are the numbers in the text.

# %%
import random
import shutil
import subprocess
import sys

random.seed(0)

# %% [markdown]
# ## 1. Operator overloading: teaching `+` to a new type
#
# Python does not know what "plus" means for your objects, so for `a + b` it asks `a`: it
# calls `a.__add__(b)`. Define that method and your class joins ordinary arithmetic. The
# engine's `Value` does this: `a + b` builds a new `Value` *and* remembers it came from an
# addition. Here is the smallest version, a number in a box:


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
# `Num(2) + Num(3)` printed `Num(5)`: Python ran `Num(2).__add__(Num(3))`, and `__repr__`
# chose how the answer looks.
#
# Adding a plain number fails, though: `__add__` reaches for `other.value`, and the integer
# `1` has none. (The error is caught, so the notebook keeps running.)

# %%
try:
    Num(2) + 1
except AttributeError as e:
    print(f"{type(e).__name__}: {e}")

# %% [markdown]
# ## 2. `isinstance`: accept plain numbers too
#
# The fix: look at what we were given. When `isinstance(other, Num)` is false, wrap the
# number in a `Num` first. The engine does the same with `Value`, so `a * 2` works there.


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
# `Num(2) + 1` now gives `Num(3)`. But `1 + Num(2)` still fails, and so does `sum` of a list
# of `Num`s. For `1 + Num(2)` Python asks the *left* operand first, and `int.__add__` has
# never heard of `Num`: it returns `NotImplemented` (second line), meaning "not my job".
#
# ## 3. Reflected operators: `__radd__`
#
# When the left operand gives up, Python asks the right one: it calls `Num(2).__radd__(1)`,
# the *reflected* add. Addition ignores order, so `__radd__` can reuse `__add__`.
# (Subtraction does not: exercise 0.1.)


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
# `1 + Num(2)` gives `Num(3)`, and the `sum` gives `Num(6)`. Remember the second: `sum`
# starts from `0`, so its first step, `0 + Num(1)`, is a reflected add. A neuron, later, is
# exactly such a sum.
#
# ## 4. Closures: functions that remember
#
# A function defined inside another can use the outer function's variables, and keeps them
# after the outer one has returned. A function bundled with what it remembers is a
# *closure*.


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
# `double(10)` is 20 and `triple(10)` is 30: each keeps its own `n`, in its `__closure__`.
# Strictly, a closure keeps the *variable* `n`, not a snapshot: it reads `n` at every call.
# Here that makes no difference, as each `n` never changes; exercise 0.2 is a case where it
# does.
#
# The famous micrograd lectures give every operation a closure like this: "when the
# gradient reaches me, send it to *these* inputs". Chapter 4 builds it.
#
# ## 5. Lambdas: one-line functions
#
# `lambda x: x * x` is a function without a name, written where it is used: for instance to
# hand chapter 1's helpers the function whose slope we want.

# %%
square = lambda x: x * x  # a lambda given a name, only to show the idea
print(square(4))
points = [(3, "c"), (1, "a"), (2, "b")]
print(sorted(points, key=lambda p: p[0]))

# %% [markdown]
# `square(4)` is 16, and `key=lambda p: p[0]` sorts the pairs by their first element.
#
# ## 6. Comprehensions, generator expressions and `zip`
#
# A neuron holds one weight per input. A *list comprehension*, a loop in square brackets,
# makes the weights. `zip` walks the weights and the inputs side by side, in pairs. A
# *generator expression*, the same loop in parentheses, hands `sum` one product at a time.

# %%
weights = [round(random.uniform(-1, 1), 4) for _ in range(3)]
inputs = [1.0, 2.0, -1.0]
print("weights:", weights)
print("pairs:  ", list(zip(weights, inputs)))
activation = sum(w * x for w, x in zip(weights, inputs))
print(f"w . x = {activation:.4f}")

# %% [markdown]
# With the seed at 0 the weights are 0.6888, 0.5159 and −0.1589, and the weighted sum
# `w · x` is 1.8795. Keep the seed and they never change.
#
# ## 7. `__call__`: objects you call like functions
#
# In PyTorch you write `model(x)`. An object can be called like that when its class defines
# `__call__`. The course's `Neuron`, `Layer` and `MLP` hold their weights *and* are called
# on inputs.


# %%
class TinyNeuron:
    def __init__(self, weights):
        self.weights = weights

    def __call__(self, xs):
        return sum(w * x for w, x in zip(self.weights, xs))


neuron = TinyNeuron(weights)
print(f"neuron(inputs) = {neuron(inputs):.4f}")

# %% [markdown]
# `neuron(inputs)` gives the same 1.8795: calling the object ran `__call__`. Made of the
# engine's `Value`s, this neuron can *learn* (chapter 7).
#
# ## 8. Check your environment
#
# The course draws graphs with Graphviz's program `dot`. The next cell prints the versions
# the course uses and looks for `dot`; if it is missing, the cell says how to install it
# (then restart the kernel: *Kernel → Restart Kernel*).

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
# optional: chapters that compare with it say so and skip when it is missing.
#
# Last, a first drawing: `c` is the product of two numbers in the engine's `Value`, and
# `draw_dot` draws how it was computed. Boxes are values, showing their data (and a
# gradient, 0 until chapter 3); the oval is the operation. If you see it, all is working.

# %%
a = Value(2.0, label="a")
b = Value(-3.0, label="b")
c = a * b
c.label = "c"
draw_dot(c)

# %% [markdown]
# The drawing shows `c = −6.0000`, from `a = 2.0000` times `b = −3.0000`. Chapter 2 builds
# this `Value` from scratch.
#
# ## Exercises
#
# Each exercise has a stub that runs, a check that prints **correct** or a hint, and
# a worked solution folded away below it: click *Show the solution* only after trying.
#
# **Exercise 0.1: find the bug.** This class reuses `__sub__` as `__rsub__`, the way section
# 3 reused `__add__`. Predict what its two subtractions print before running it (cover the
# stored output). `Num(10) - 3` is right, `10 - Num(3)` is not: which method runs for each,
# with which `self` and `other`? Fix the class so that both give `Num(7)`.

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
# **Exercise 0.2: find the bug.** This cell should make three functions that multiply by 1,
# 2 and 3, and print `[10, 20, 30]`. It prints something else. Explain why, with what
# section 4 said a closure keeps, and fix `scalers` so each keeps its own multiplier.

# %%
scalers = [lambda x: n * x for n in (1, 2, 3)]
print([scale(10) for scale in scalers])
check_scalers(scalers)

# %%
reveal("ch00.scalers")

# %% [markdown]
# **Exercise 0.3: predict, then check.** What does `TinyNeuron` do with fewer inputs than
# weights? Predict `TinyNeuron([0.5, -1.0, 2.0])([4.0, 1.0])` *without running it*: a
# number, or the string `"error"` if you think it fails. Check your prediction, then run it.

# %%
prediction = None  # replace with your prediction: a number, or "error"
check_zip_prediction(prediction)

# %%
reveal("ch00.zip_prediction")

# %% [markdown]
# The package's `Neuron` (chapter 7) checks the number of inputs: a silently wrong number is
# worse than an error.

# %%
from micrograd_lesson.nn import Neuron

try:
    Neuron(3)([4.0, 1.0])
except ValueError as e:
    print(f"{type(e).__name__}: {e}")

# %% [markdown]
# Next: **chapter 1**, where a derivative turns out to be nothing more than a nudge.
