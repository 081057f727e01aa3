# %% [markdown]
# # Chapter 13 — Beyond: forward mode, second derivatives, `no_grad`, and PyTorch
#
# The engine we built runs the chain rule backwards: one forward pass records the graph,
# one backward pass hands every input its gradient. That is *reverse mode*, and it is the
# right choice for training a network. It is not the only way to run the chain rule,
# though, and it is not always the cheapest. This last chapter looks past the engine in
# four directions:
#
# 1. **Forward mode**, where each number carries its derivative along with it, built on
#    screen from *dual numbers*; and a measurement of when it beats reverse mode.
# 2. **Second derivatives**: a gradient is itself computed by operations, so with a little
#    care it can be differentiated again. We use that for Newton's method.
# 3. **`no_grad()`**: switching the recording off where no gradient will be asked for,
#    and the memory that saves.
# 4. **The map to PyTorch**: every piece of our engine beside the PyTorch name for it,
#    run side by side on the same numbers.

# %% tags=["claim-setup"]
import gc
import math
import random
import textwrap
import time
import tracemalloc

import matplotlib.pyplot as plt

from micrograd_lesson import (
    MLP,
    SGD,
    Tensor,
    Value,
    describe_figure,
    draw_dot,
    grad,
    make_moons,
    no_grad,
    step_through,
)

try:  # optional: only the lines starting "PyTorch (optional):" depend on it
    import torch
except ImportError:
    torch = None
random.seed(0)  # the network of section 4
print("PyTorch (optional): " + (f"found, version {torch.__version__}" if torch else "not installed"))

# %% [markdown]
# ## 1. Forward mode: carry the derivative along
#
# Reverse mode waits until the end: first the whole forward pass, then the gradients,
# from the output back. Forward mode does the opposite. Every number travels *with its
# derivative* from the start, and each operation updates both at once. There is no graph,
# no topological sort and no second pass.
#
# The trick is a number system. A **dual number** is $a + b\,\varepsilon$, where
# $\varepsilon$ is a new symbol with one rule: $\varepsilon^2 = 0$ (but
# $\varepsilon \neq 0$). Multiply two of them and watch what the rule does:
#
# $$(a + a'\varepsilon)(b + b'\varepsilon) = ab + (a'b + ab')\,\varepsilon + a'b'\,\varepsilon^2
#   = ab + (a'b + ab')\,\varepsilon .$$
#
# The $\varepsilon$ part is exactly the product rule. In general, for any smooth $f$,
# $f(x + \varepsilon) = f(x) + f'(x)\,\varepsilon$: the Taylor series stops after one term,
# because every higher power of $\varepsilon$ is zero. So if we feed $x + 1\varepsilon$ into
# a function built from operations that obey the rule, the $\varepsilon$ part of the
# answer is $f'(x)$, exact, with no nudge and no $h$. We call the real part `val` and the
# $\varepsilon$ part `dot` (its *tangent*).


# %% tags=["claim-setup"]
class Dual:
    """val + dot·ε with ε² = 0: a value and its derivative, carried together."""

    def __init__(self, val, dot=0.0):
        self.val, self.dot = val, dot  # a plain number is a dual with tangent 0

    def __repr__(self):
        return f"Dual(val={self.val:.4f}, dot={self.dot:.4f})"

    def __add__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.val + other.val, self.dot + other.dot)

    __radd__ = __add__

    def __mul__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        # (a + a'ε)(b + b'ε) = ab + (a'b + ab')ε: the product rule falls out
        return Dual(self.val * other.val, self.dot * other.val + self.val * other.dot)

    __rmul__ = __mul__

    def __neg__(self):
        return Dual(-self.val, -self.dot)

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return -self + other

    def __truediv__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.val / other.val, (self.dot * other.val - self.val * other.dot) / other.val**2)

    def __rtruediv__(self, other):
        return Dual(other) / self

    def __pow__(self, n):  # a plain-number exponent
        return Dual(self.val**n, n * self.val ** (n - 1) * self.dot)

    def tanh(self):
        t = math.tanh(self.val)
        return Dual(t, (1 - t * t) * self.dot)


eps = Dual(0.0, 1.0)
print("ε * ε =", eps * eps)


def f(x):
    return 3 * x**2 - 4 * x + 5  # chapter 1's function


print("f(3 + ε) =", f(Dual(3.0, 1.0)))

# %% [markdown]
# $\varepsilon \cdot \varepsilon$ prints as `Dual(val=0.0000, dot=0.0000)`: the rule
# holds. And chapter 1's $f(x) = 3x^2 - 4x + 5$, evaluated once at $3 + \varepsilon$, gives
# `val` $= 20$ (which is $f(3)$) and `dot` $= 14$, which is $f'(3) = 6 \cdot 3 - 4$ exactly.
# Chapter 1 needed two evaluations and a well-chosen $h$ to get close to 14; one dual
# evaluation gets it on the nose.
#
# ### Several inputs: one pass per input
#
# A dual number carries *one* tangent, the derivative with respect to whichever input we
# seeded with $\varepsilon$. For chapter 1's $d = ab + c$ at $a = 2$, $b = -3$, $c = 10$,
# each partial derivative takes its own pass, seeding a different input:


# %%
def d_of(a, b, c):
    return a * b + c


inputs = {"a": 2.0, "b": -3.0, "c": 10.0}
for seeded in inputs:
    duals = {name: Dual(x, 1.0 if name == seeded else 0.0) for name, x in inputs.items()}
    out = d_of(**duals)
    print(f"pass seeding {seeded}: d = {out.val:.4f}, dd/d{seeded} = {out.dot:.4f}")

a, b, c = (Value(x, label=k) for k, x in inputs.items())
d = d_of(a, b, c)
d.label = "d"
d.backward()
print(f"one backward pass:  dd/da = {a.grad:.4f}, dd/db = {b.grad:.4f}, dd/dc = {c.grad:.4f}")

# %% [markdown]
# Three forward passes give $\partial d/\partial a = -3$, $\partial d/\partial b = 2$ and
# $\partial d/\partial c = 1$; one backward pass gives all three. That is the whole story
# of the two modes in miniature. Here is the graph both walk, with the tangent every node
# carries in each of the three forward passes (a column per pass), and then the reverse
# pass on the same graph, one step at a time.

# %%
e = d._prev[0]
e.label = "e"
tangents = {
    a: "tangents 1, 0, 0",
    b: "tangents 0, 1, 0",
    c: "tangents 0, 0, 1",
    e: "tangents -3, 2, 0",
    d: "tangents -3, 2, 1",
}
draw_dot(d, rankdir="TB", notes=tangents, show_grad=False)

# %% [markdown]
# Each forward pass pushes one column of numbers from the leaves to the output. The
# reverse pass below goes the other way: the output's gradient 1 is pushed back, and every
# leaf receives its share in one sweep. It opens on the last step; drag the slider back to 0
# (or press *previous*), then step forward to watch it.

# %%
step_through(d)

# %% [markdown]
# ## 2. Which mode wins? The shape of the Jacobian decides
#
# For a function $F:\mathbb{R}^n \to \mathbb{R}^m$, all the first derivatives form the
# $m \times n$ **Jacobian** matrix $J_{ij} = \partial F_i / \partial x_j$.
#
# - One **forward** pass, seeded with $\varepsilon$ on input $j$, produces column $j$: the
#   derivatives of *every output* with respect to that one input. A full Jacobian takes
#   $n$ passes.
# - One **reverse** pass, seeded with 1 on output $i$, produces row $i$: the derivatives of
#   that one output with respect to *every input*. A full Jacobian takes $m$ passes.
#
# Each pass costs a small constant times one evaluation of $F$. So forward mode costs about
# $n$ evaluations and reverse mode about $m$; whichever dimension is smaller wins. A loss
# function has $m = 1$ output and, in a network, thousands or billions of inputs: reverse
# mode, by a factor of $n$. That is why every deep-learning library is built around it.
#
# Let us measure it rather than take it on trust. Two families of functions:
#
# - `many_to_one(xs)`, $\mathbb{R}^n \to \mathbb{R}$: a sum of $\tanh(x_i x_{i+1})$ around
#   a ring, so every input matters;
# - `one_to_many(t, m)`, $\mathbb{R} \to \mathbb{R}^m$: a chain $h_1 = \tanh(t)$,
#   $h_{k+1} = \tanh(h_k \cdot t)$, whose $m$ outputs are $h_1, \dots, h_m$.
#
# Both are written once and run on `Dual` and on `Value` alike.


# %% tags=["claim-setup"]
def many_to_one(xs):
    """R^n -> R: tanh(x1 x2) + tanh(x2 x3) + ... + tanh(xn x1)."""
    total = 0.0
    for left, right in zip(xs, xs[1:] + xs[:1]):
        total = total + (left * right).tanh()
    return total


def one_to_many(t, m):
    """R -> R^m: h1 = tanh(t), h(k+1) = tanh(hk * t); returns [h1, ..., hm]."""
    hs = [t.tanh()]
    for _ in range(m - 1):
        hs.append((hs[-1] * t).tanh())
    return hs


def forward_mode_gradient(xs):
    """n passes: pass j seeds input j and reads one column of the Jacobian."""
    columns = []
    for j in range(len(xs)):
        duals = [Dual(x, 1.0 if i == j else 0.0) for i, x in enumerate(xs)]
        columns.append(many_to_one(duals).dot)
    return columns


def reverse_mode_gradient(xs):
    """One forward pass that records the graph, one backward pass."""
    leaves = [Value(x) for x in xs]
    many_to_one(leaves).backward()
    return [v.grad for v in leaves]


def forward_mode_jacobian_column(t, m):
    """One pass seeded on t gives all m derivatives."""
    return [h.dot for h in one_to_many(Dual(t, 1.0), m)]


def reverse_mode_jacobian_column(t, m):
    """m backward passes, one per output (grad() keeps each pass's result apart)."""
    leaf = Value(t)
    outputs = one_to_many(leaf, m)
    return [grad(h, [leaf])[0] for h in outputs]


xs = [math.sin(k) for k in range(1, 9)]
fwd, rev = forward_mode_gradient(xs), reverse_mode_gradient(xs)
print(
    "R^8 -> R, gradient: largest difference between the modes",
    f"{max(abs(p - q) for p, q in zip(fwd, rev)):.1e}",
)
fwd, rev = forward_mode_jacobian_column(0.7, 8), reverse_mode_jacobian_column(0.7, 8)
print(
    "R -> R^8, Jacobian: largest difference between the modes",
    f"{max(abs(p - q) for p, q in zip(fwd, rev)):.1e}",
)

# %% [markdown]
# Both modes agree on both shapes to rounding: differences of 0 and $3.3 \times 10^{-16}$
# here. On other inputs, sizes and values of $t$ they agree as closely, to a few units in
# the last place of the largest derivative.
#
# <details><summary>How we know</summary>
#
# Rounding scales with the numbers, and the derivatives of the chain reach about 7 near
# $t = \pm 1$, so we measured the largest difference against the largest derivative (or 1,
# if that is smaller). On 100 other draws of the inputs, sizes up to 128 and $t$ from $-1.5$
# to $1.5$ (seeds 1000 to 1099, not shown), it was at most $1.3 \times 10^{-15}$ of that,
# and $1.5 \times 10^{-15}$ at $t = \pm 1$ itself. A claims test draws 20 more and checks
# that on every one the difference is below $10^{-14}$ times the largest derivative.
#
# <!-- claim: ch13-modes-agree -->
# </details>
#
# Now the cost. A fair count counts the same work for both
# modes, so we count two kinds of step: **computing a value**, and **applying a derivative
# rule**. A dual operation does one of each (its `val` and its `dot`), so a forward-mode
# pass costs 2 steps per operation of the function. Reverse mode computes each value once,
# in the recorded forward pass, and then applies one backward rule for every operation
# each backward pass reaches. Counts are exact and the same on every machine.


# %% tags=["claim-setup"]
def operations(root):
    """Operations in root's graph: the nodes that have inputs."""
    return sum(1 for v in root.topological_order() if v._prev)


def costs(size):
    """Steps (values computed + derivative rules applied) for a full gradient / Jacobian, both shapes."""
    xs = [Value(math.sin(k)) for k in range(1, size + 1)]
    ops = operations(many_to_one(xs))
    # forward: n passes of 2 steps per operation; reverse: ops values, then ops backward rules
    many = {"forward": size * 2 * ops, "reverse": ops + ops}
    t = Value(0.7)
    outputs = one_to_many(t, size)
    ops = operations(outputs[-1])  # the last output's graph holds every operation
    backward = sum(operations(h) for h in outputs)  # one backward pass per output
    one = {"forward": 2 * ops, "reverse": ops + backward}
    return many, one


def cpu_seconds(fn, *args, number=1):
    """CPU time of one call of fn(*args), averaged over `number` calls. CPU time, not wall time:
    the time the machine spends on other programs is not counted (though they can still slow this
    one down a little, which is why cpu_ratio takes the best of several rounds)."""
    start = time.process_time()
    for _ in range(number):
        fn(*args)
    return (time.process_time() - start) / number


def cpu_ratio(slower, faster, args, rounds=7, number=5):
    """CPU time of slower(*args) over faster(*args): the best of `rounds` rounds, in which the two
    take turns; the faster one runs `number` times a round, so that its time is not lost in the
    clock's tick. Seven rounds, not three: beside other busy programs, three rounds too often found
    no quiet moment, and the ratio came out low (the note below the timings says by how much)."""
    best_slower = best_faster = math.inf
    for _ in range(rounds):
        best_slower = min(best_slower, cpu_seconds(slower, *args))
        best_faster = min(best_faster, cpu_seconds(faster, *args, number=number))
    return best_slower / best_faster


# %%
sizes = [2, 4, 8, 16, 32, 64, 128]
counts = {size: costs(size) for size in sizes}
print(
    f"{'size':>5} | {'R^n -> R: forward':>18} {'reverse':>8} |",
    f"{'R -> R^m: forward':>18} {'reverse':>8}",
)
for size in sizes:
    many, one = counts[size]
    print(
        f"{size:5d} | {many['forward']:18d} {many['reverse']:8d} | {one['forward']:18d}",
        f"{one['reverse']:8d}",
    )

fig, ax = plt.subplots(figsize=(7, 4.2))
styles = {  # Okabe-Ito colours, and a line style and marker for each shape
    ("many", "forward"): ("R^n → R, forward mode", "#D55E00", "-o"),
    ("many", "reverse"): ("R^n → R, reverse mode", "#0072B2", "-s"),
    ("one", "forward"): ("R → R^m, forward mode", "#D55E00", "--^"),
    ("one", "reverse"): ("R → R^m, reverse mode", "#0072B2", "--D"),
}
for (shape, mode), (label, colour, style) in styles.items():
    which = 0 if shape == "many" else 1
    ax.plot(sizes, [counts[s][which][mode] for s in sizes], style, color=colour, label=label)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("n (inputs) or m (outputs)")
ax.set_ylabel("steps (values + derivative rules)")
ax.set_title("Steps for the full derivative, both modes, both shapes")
ax.grid(True, which="major", alpha=0.3)
ax.legend(fontsize=9)
fig.tight_layout()
describe_figure(
    fig,
    "Log-log: for R^n -> R reverse mode's steps grow like n and forward mode's like n "
    "squared; for R -> R^m the roles swap.",
)
plt.show()

# %% [markdown]
# Read the plot along one line at a time. For $f:\mathbb{R}^n \to \mathbb{R}$ (solid
# lines) reverse mode's count grows like $n$ (one evaluation's worth, twice), while
# forward mode's grows like $n^2$: $n$ passes, each as long as the function. At $n = 128$
# that is 98304 steps against 768, a factor of exactly 128, which is $n$. For
# $g:\mathbb{R} \to \mathbb{R}^m$ (dashed lines) the roles swap: forward mode needs one
# pass, 510 steps at $m = 128$, while reverse mode needs one backward pass per output,
# 16639 steps, a factor of 33. (Less than $m$, because the outputs early in the chain have
# small graphs, so their backward passes are short; but there are $m$ passes, and the
# count grows much faster than forward mode's. Exercise 13.4 asks you to work out exactly
# how fast.)
#
# <details><summary>How we know</summary>
#
# The counts are exact. A claims test counts six other sizes, from 3 to 300: forward mode's
# count is exactly $n$ times reverse mode's for $\mathbb{R}^n \to \mathbb{R}$ at each, and
# for $\mathbb{R} \to \mathbb{R}^m$ reverse mode's is the larger, by more at every larger $m$.
#
# <!-- claim: ch13-mode-counts -->
# </details>
#
# Counts are the same on every machine; seconds are not. The next cell times both modes at
# 128 on the machine running it, in CPU time, the two modes taking turns, best of seven.
# Its output is not compared when the notebook is checked, because it differs from
# machine to machine and from run to run.

# %% tags=["nbval-ignore-output"]
xs = [math.sin(k) for k in range(1, 129)]
loss_case = cpu_ratio(forward_mode_gradient, reverse_mode_gradient, (xs,))
column_case = cpu_ratio(reverse_mode_jacobian_column, forward_mode_jacobian_column, (0.7, 128))
print(f"R^128 -> R (like a loss): reverse mode {loss_case:.0f} times faster than forward mode")
print(f"R -> R^128:               forward mode {column_case:.0f} times faster than reverse mode")

# %% [markdown]
# At 128 the mode the count names wins, by a wide margin: reverse mode is **more than 20
# times** faster for the loss, and forward mode **more than 150 times** faster for the other
# shape. The margins are not the count's, though: smaller than its 128 for the loss, far
# larger than its 33 for the other shape. (The count leaves things out, among them the
# topological sort that each of reverse mode's 128 `grad()` calls runs before its backward
# pass; we have not measured which of them makes the difference.)
#
# <details><summary>How we know</summary>
#
# Seconds depend on the machine, on the Python, and on what else the process holds, so we
# timed the way this notebook runs: in a fresh process, as a kernel is, in CPU time, on
# 40 draws of the inputs (seeds 1000 to 1039), on a machine whose two cores were shared with
# about eight other busy jobs. Under Python 3.11 reverse mode was 42 to 62 times faster for
# the loss and forward mode 247 to 437 times faster for the other shape; under Python 3.13,
# 31 to 43 and 316 to 390 times. Earlier measurements on the same machine, quiet or busier,
# gave 32 to 74 and 229 to 439 times; there, the best of three rounds instead of seven had
# put forward mode's lead at only 184 and 198 times on 2 draws in 20. Inside a test process
# that had run other tests first, Python 3.13 measured only 19 times for the loss, on all 20
# draws: what else a process holds changes the figure. So the claims test times 20 fresh
# draws in a new process, as a kernel is, and checks on every one that reverse mode is more
# than 20 and less than 128 times faster for the loss, and forward mode more than 150 times
# faster for the other shape.
#
# <!-- claim: ch13-mode-timings -->
# </details>
#
# ### What reverse mode pays in memory
#
# Steps are not the whole cost. Reverse mode cannot run a single backward rule until the
# forward pass has ended, so it keeps the whole graph, every intermediate value, alive
# until then. Forward mode keeps nothing: each `Dual` carries its tangent forward, and
# once the next operation has used it, it can go. The next cell runs one chain of
# `length` links, $x \leftarrow \tanh(x \cdot t)$, from $\mathbb{R}$ to $\mathbb{R}$
# (one input and one output: each mode needs one pass), and measures with `tracemalloc`
# the most memory each mode held at any moment.


# %% tags=["claim-setup"]
def deep_chain(t, length):
    """R -> R: x = t, then `length` times x = tanh(x * t)."""
    x = t
    for _ in range(length):
        x = (x * t).tanh()
    return x


def forward_mode_derivative(t, length):
    return deep_chain(Dual(t, 1.0), length).dot


def reverse_mode_derivative(t, length):
    leaf = Value(t)
    deep_chain(leaf, length).backward()
    return leaf.grad


def peak_bytes(fn, *args, rounds=3):
    """The most memory fn(*args) held at any moment, in bytes (the least of `rounds` runs)."""
    peaks = []
    gc.collect()  # once: garbage left from before is not fn's
    for _ in range(rounds):
        tracemalloc.start()
        fn(*args)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return min(peaks)


# %%
print("links   forward mode's peak   reverse mode's peak, against its peak at 1000 links")
forward_peaks, reverse_peaks = {}, {}
for length in (1000, 2000, 4000):
    forward_peaks[length] = peak_bytes(forward_mode_derivative, 1.2, length)
    reverse_peaks[length] = peak_bytes(reverse_mode_derivative, 1.2, length)
    small = "under 1 KB" if forward_peaks[length] < 1024 else "1 KB or more"
    print(f"{length:5d}   {small:>21}   {reverse_peaks[length] / reverse_peaks[1000]:.1f} times")
larger = all(reverse_peaks[n] > 100 * forward_peaks[n] for n in reverse_peaks)
print(f"reverse mode's peak over 100 times forward mode's at every length: {larger}")
same = math.isclose(
    forward_mode_derivative(1.2, 4000), reverse_mode_derivative(1.2, 4000), rel_tol=1e-12
)
print(f"the same derivative from both modes: {same}")

# %% [markdown]
# Forward mode's peak stays under a kilobyte at every length: a few numbers in flight.
# Reverse mode's is, at these lengths, over a hundred times larger (a chain of a few links
# is another matter), and it grows in step with the chain, twice the links holding twice
# the memory: every link adds two nodes to the graph, and all of them are
# kept until the backward pass. (The bytes per node differ between Python
# versions, so they are not printed.) That is the price of reverse mode. For a network's
# loss it is the only affordable mode, and it keeps every intermediate value of the
# forward pass until `backward()`; section 4 measures how much that is for chapter 9's
# network.
#
# <details><summary>How we know</summary>
#
# On 20 other draws (seeds 1000 to 1019: $t$ from 0.5 to 1.5, chains of 500 to 3000 links
# and four times that), forward mode's peak was at most 656 bytes, and reverse mode's over
# 420 times it, and 3.99 to 4.09 times as large at four times the length. A claims test
# draws 16 more $t$ and lengths (300 to 1500 links, and twice that) and checks on every one:
# forward mode under 1 KB, reverse mode over a hundred times that, and 1.9 to 2.1 times as
# large at twice the length.
#
# <!-- claim: ch13-reverse-memory -->
# </details>
#
# So the rule is: **forward mode costs one pass per input, reverse mode one pass per
# output; use the mode whose count is smaller**, and remember that reverse mode stores
# the graph. A network's loss is the extreme case, $m = 1$. Forward mode earns its place
# elsewhere: a simulation with one parameter and many outputs, a Jacobian-vector product
# (one column in one pass), and in second derivatives, where the two modes are combined.

# %% [markdown]
# ## 3. Second derivatives: a gradient of a gradient
#
# The backward pass computes each gradient with ordinary arithmetic: multiply by a local
# derivative, add up contributions. If that arithmetic is itself done with `Value`s, the
# gradient comes out as a `Value` with a graph of its own, and we can differentiate *it*.
# PyTorch calls this `create_graph=True`; our engine has the same switch in
# `grad(output, inputs, create_graph=False)`, which returns the derivatives instead of
# storing them in `.grad`, like `torch.autograd.grad`.
#
# Take $f(x) = x^4 - 2x^2$. By hand, $f'(x) = 4x^3 - 4x$ and $f''(x) = 12x^2 - 4$. First,
# the ordinary backward pass at $x = 2$, one step at a time. Watch $x$: it feeds two
# operations, $x^4$ and $x^2$, so it receives two contributions.

# %%
x, two = Value(2.0, label="x"), Value(2.0, label="two")
x4, x2 = x**4, x**2
x4.label, x2.label = "x⁴", "x²"
twice = two * x2
twice.label = "2x²"
fx = x4 - twice
fx.label = "f"
step_through(fx, rankdir="TB")

# %% [markdown]
# In step 3 the $x^2$ branch sends $-2 \times 4 = -8$ to $x$ (its local derivative is
# $2x = 4$); in step 4 the $x^4$ branch sends $1 \times 32 = 32$ (the local derivative
# $4x^3 = 32$), and $x$'s grad becomes $-8 + 32 = 24$, which is $f'(2)$. Every number in
# that pass came from multiplying and adding. `grad(..., create_graph=True)` runs the same
# steps, but with `Value` operations, so the result is a `Value` with a graph of its own:

# %%
(slope,) = grad(fx, [x], create_graph=True)
(curvature,) = grad(slope, [x])
print(
    f"f(2) = {fx.data:.4f}, f'(2) = {slope.data:.4f} (a {type(slope).__name__}),",
    f"f''(2) = {curvature:.4f}",
)
print(f"by hand:         f'(2) = {4 * 2**3 - 4 * 2:.4f},           f''(2) = {12 * 2**2 - 4:.4f}")
draw_dot(slope, rankdir="TB", show_grad=False)

# %% [markdown]
# $f'(2) = 24$ and $f''(2) = 44$, as the formulas say. The drawing is the graph of $f'$:
# the backward pass you just stepped through, written down as operations. On the left,
# the $x^2$ branch: `two` times $-1$ is the $-2$ that reached $x^2$, times its local
# derivative $2x = 4$ gives $-8$. On the right, the $x^4$ branch: $4x^3 = 32$ times 1.
# At the bottom, the two contributions added: 24. It is a graph like any other, so `grad`
# can walk it backwards again.
#
# One point proves little. The next cell compares the engine's second derivatives with
# the formulas at 41 points from $-2$ to $2$, for three functions that exercise
# different operations, and also checks a mixed partial derivative,
# $\partial^2 (x^2 y + y^3) / \partial x\, \partial y = 2x$.


# %%
def second_derivative(fn, x0):
    v = Value(x0)
    (first,) = grad(fn(v), [v], create_graph=True)
    return grad(first, [v])[0]


cases = {
    "x^4 - 2x^2": (lambda v: v**4 - 2 * v**2, lambda x: 12 * x**2 - 4),
    "tanh(x)": (lambda v: v.tanh(), lambda x: -2 * math.tanh(x) * (1 - math.tanh(x) ** 2)),
    "x exp(-x)": (lambda v: v * (-v).exp(), lambda x: (x - 2) * math.exp(-x)),
}
grid = [-2 + 0.1 * k for k in range(41)]
for name, (fn, exact) in cases.items():
    worst = max(abs(second_derivative(fn, x0) - exact(x0)) for x0 in grid)
    print(f"{name:>11}: largest difference from the formula over 41 points: {worst:.1e}")

mixed = []
for x0 in grid:
    xv, yv = Value(x0), Value(0.5)
    (df_dy,) = grad(xv**2 * yv + yv**3, [yv], create_graph=True)
    mixed.append(abs(grad(df_dy, [xv])[0] - 2 * x0))
print(f"d2(x^2 y + y^3)/dx dy vs 2x: largest difference {max(mixed):.1e}")

# %% [markdown]
# All four agree with their formulas at every point: three exactly, and $x e^{-x}$ to
# within $3.6 \times 10^{-15}$, a few units in the last place.
#
# ### Newton's method
#
# Gradient descent moves against the slope by a fixed fraction $\eta$ of it. Newton's
# method also uses the curvature: near a minimum, $f$ looks like a parabola whose slope is
# $f'(x)$ and whose curvature is $f''(x)$, and that parabola's lowest point is one step
# away,
#
# $$x_{k+1} = x_k - \frac{f'(x_k)}{f''(x_k)} .$$
#
# On $f(x) = x^4 - 2x^2$ (minima at $x = \pm 1$, a hump at 0), from $x = 2$:


# %% tags=["claim-setup"]
def newton(x0, steps):
    xs = [x0]
    for _ in range(steps):
        v = Value(xs[-1])
        (first,) = grad(v**4 - 2 * v**2, [v], create_graph=True)
        xs.append(xs[-1] - first.data / grad(first, [v])[0])
    return xs


def gradient_descent(x0, lr, steps):
    xs = [x0]
    for _ in range(steps):
        v = Value(xs[-1])
        (v**4 - 2 * v**2).backward()
        xs.append(xs[-1] - lr * v.grad)
        if not abs(xs[-1]) < 1e6:
            break  # diverged
    return xs


newton_path = newton(2.0, 7)
errors = [abs(x - 1) for x in newton_path]
for k, err in enumerate(errors):
    ratio = ""
    if 0 < k and err:
        ratio = f"   error / previous error squared = {err / errors[k - 1] ** 2:.3f}"
    print(f"step {k}: x = {newton_path[k]:.15f}, error {err:.1e}{ratio}")

# %% [markdown]
# The error goes 1, 0.45, 0.15, 0.025, 0.00091, 1.2e-6, 2.3e-12 and then 0: from step 3 on
# the number of correct digits roughly **doubles** every step. That is *quadratic
# convergence*: each error is about a constant times the previous error squared, and the
# ratio in the last column settles near 1.5, which is $f'''(1) / (2 f''(1)) = 24/16$.
# The ratio depends only on $f$ at the minimum, so any start from which Newton's method
# reaches 1 ends with the same 1.5.
#
# <details><summary>How we know</summary>
#
# We ran Newton's method from 200 starts drawn at random between 0.6 and 6 (seeds 1000 to
# 1199, not shown): all reached 1, and on each one of the last three ratios was within 0.05
# of 1.5. A claims test draws 20 more starts and checks the same on every one.
#
# <!-- claim: ch13-newton-quadratic -->
# </details>
#
# Gradient descent gets a fair race: every learning rate from 0.001 to 0.250 in steps of
# 0.001, each run for up to 100 steps, and we keep the one that first gets within
# $10^{-10}$ of 1. (No rate above $2/f''(1) = 0.25$ can settle at 1: near the minimum
# each step would multiply the error by more than 1 in size.)


# %% tags=["claim-setup"]
def steps_to_reach_one(x0, rates, steps=100):
    """{rate: steps gradient descent takes from x0 to within 1e-10 of 1}, for the rates that get there."""
    finished = {}
    for lr in rates:
        hits = [i for i, x in enumerate(gradient_descent(x0, lr, steps)) if abs(x - 1) < 1e-10]
        if hits:
            finished[lr] = hits[0]
    return finished


# %%
finished = steps_to_reach_one(2.0, [k / 1000 for k in range(1, 251)])
best_lr = min(finished, key=lambda lr: (finished[lr], lr))
direct = {lr: n for lr, n in finished.items() if lr < 1 / 12}  # the first step stays right of the hump
best_direct = min(direct, key=lambda lr: (direct[lr], lr))
print(f"rates that reach x = 1: {len(finished)} of 250;", end=" ")
print(
    f"from {min(direct):.3f} to {max(direct):.3f} and from {min(set(finished) - set(direct)):.3f} to "
    f"{max(finished):.3f}"
)
print(f"the fastest below 1/12: lr = {best_direct:.3f}, {direct[best_direct]} steps;", end=" ")
print(
    f"neighbours: lr = {best_direct - 0.001:.3f} takes {direct[round(best_direct - 0.001, 3)]},", end=" "
)
print(f"lr = {best_direct + 0.001:.3f} takes {direct[round(best_direct + 0.001, 3)]}")
print(
    f"the fastest of all: lr = {best_lr:.3f}, {finished[best_lr]} steps, "
    f"by way of x = {gradient_descent(2.0, best_lr, 1)[1]:.4f} and x = "
    f"{gradient_descent(2.0, best_lr, 2)[2]:.4f}"
)
finer = steps_to_reach_one(2.0, [k / 10000 for k in range(1500, 1700)])
print(f"ten times finer around it, 0.1500 to 0.1699: the fastest takes {min(finer.values())} steps")
print(
    f"lr = 0.125 (1 / f''(1)) goes from 2 to {gradient_descent(2.0, 0.125, 1)[1]:.4f}: the other minimum"
)
newton_steps = next(i for i, x in enumerate(newton_path) if abs(x - 1) < 1e-10)
print(f"Newton: {newton_steps} steps")

# %%
fig, ax = plt.subplots(figsize=(7.5, 4))
for lr, how in ((best_direct, "best below 1/12"), (best_lr, "fastest on the grid")):
    descent = [abs(x - 1) for x in gradient_descent(2.0, lr, finished[lr])]
    ax.semilogy(
        range(len(descent)),
        [max(e, 1e-17) for e in descent],
        "-o",
        ms=3,
        label=f"gradient descent, lr = {lr:.3f} ({how})",
    )
ax.semilogy(range(len(errors)), [max(e, 1e-17) for e in errors], "-s", label="Newton's method")
ax.axhline(1e-10, color="grey", lw=0.8, ls=":")
ax.set_xlabel("step")
ax.set_ylabel("|x - 1| (0 drawn at 1e-17)")
ax.set_title("f(x) = x⁴ − 2x² from x = 2")
ax.legend()
ax.grid(True, alpha=0.3)
fig.tight_layout()
describe_figure(
    fig,
    "Newton's method's error falls ever more steeply; gradient descent's falls along "
    "straight lines on the log scale, a fixed factor per step.",
)
plt.show()

# %% [markdown]
# On this grid of 0.001 steps, two groups of rates reach $x = 1$. Rates from 0.025 to
# 0.083 walk down directly; the fastest of the grid, 0.074, needs 32 steps (its
# neighbours 0.073 and 0.075 need 33 and 32), though the grid misses $1/24$, which lands
# on 1 in one step: the fastest rate of a grid is only the fastest of that grid. Rates
# from 0.152 to 0.164 get there by luck: the first step throws $x$ over the hump to
# $-1.816$, the second throws it back to 0.838, close to 1, and the fastest of them,
# 0.159, needs 17 steps. On the log scale both runs end in straight lines, a fixed
# factor per step (linear convergence), while Newton's curve bends ever more steeply
# down.
#
# The lucky window does not settle on a finer grid: ten times finer finds 15 steps. The
# next cell keeps going: five times in a row it lays 200 rates across a window around the
# fastest rate so far, each window a tenth as wide as the one before.


# %% tags=["claim-setup"]
def zoom_in(x0, low, high, levels=5, points=200):
    """Search ever narrower windows of rates; for each level, (fewest steps to reach 1, the rate)."""
    found = []
    for _ in range(levels):
        reached = steps_to_reach_one(x0, [low + (high - low) * k / (points - 1) for k in range(points)])
        lr = min(reached, key=lambda r: (reached[r], r))
        found.append((reached[lr], lr))
        width = (high - low) / 20
        low, high = lr - width, lr + width
    return found


# %%
for level, (steps, lr) in enumerate(zoom_in(2.0, 0.150, 0.170), start=1):
    print(f"window {level}: fastest rate {lr:.9f}, {steps} steps")
print("the last one's path:", ", ".join(f"{x:.4f}" for x in gradient_descent(2.0, lr, 6)))

# %% [markdown]
# Each finer window finds a faster rate: 16, 15, 14, 12 and then 10 steps, at rates that
# all lie between 0.155418 and 0.155428. The last path shows why there is no end to it: it goes
# 2 → −1.73 → 0.414 → 0.627 → 0.863 → 1.0000, landing on 1 at its fifth step. Somewhere
# in the window are rates whose path lands *exactly* on 1 at some step, and a finer grid
# gets closer to one of them.
#
# <details><summary>How we know</summary>
#
# We ran the same search with 25 other numbers of rates a window, from 100 to 400: every
# time some finer window found a faster rate than the first window's, by 2 to 8 steps,
# though not always each window in turn. A claims test draws 16 more numbers of rates and
# checks the same on every one.
#
# <!-- claim: ch13-lucky-window-unsettled -->
# </details>
#
# A rate tuned that finely is tuned to this one starting point, not to the function. So
# the fair question is what one rate does from several starts. The next cell runs the
# same grid (0.001 to 0.250, now up to 200 steps) from four starting points, and then
# looks for the single rate that does best from all of them, judged by its slowest start.

# %%
starts = (1.5, 2.0, 2.5, 3.0)
rates = [k / 1000 for k in range(1, 251)]
per_start = {x0: steps_to_reach_one(x0, rates, steps=200) for x0 in starts}
print("start   fastest rate   its steps   Newton's steps")
for x0, reached in per_start.items():
    fastest = min(reached, key=lambda lr: (reached[lr], lr))
    newton_count = next(i for i, x in enumerate(newton(x0, 20)) if abs(x - 1) < 1e-10)
    print(f"{x0:5.1f}   {fastest:12.3f}   {reached[fastest]:9d}   {newton_count:14d}")
shared = [lr for lr in rates if all(lr in reached for reached in per_start.values())]
best_shared = min(shared, key=lambda lr: (max(reached[lr] for reached in per_start.values()), lr))
slowest = max(reached[best_shared] for reached in per_start.values())
print(f"one rate for all four starts: lr = {best_shared:.3f}, {slowest} steps from its slowest start")
finer_rates = [round(best_shared - 0.001 + k / 10000, 4) for k in range(21)]
per_start_finer = {x0: steps_to_reach_one(x0, finer_rates, steps=200) for x0 in starts}
shared_finer = [lr for lr in finer_rates if all(lr in reached for reached in per_start_finer.values())]
slowest_finer = min(max(reached[lr] for reached in per_start_finer.values()) for lr in shared_finer)
print(
    f"ten times finer, {finer_rates[0]:.4f} to {finer_rates[-1]:.4f}:",
    f"the best shared rate needs {slowest_finer} steps",
)

# %% [markdown]
# On this grid, Newton's method needs fewer steps from each start than that start's
# fastest rate. That comparison is the grid's doing, though: the rate
# $(x_0 - 1)/f'(x_0)$ lands on 1 in a single step (from $x_0 = 2$ it is $1/24$), so a
# fine enough grid finds, for any one start, a rate that beats Newton. One rate for all
# four starts is the fair race, and here it
# must be small enough for the steepest start, $x = 3$, where $f''(3) = 104$; then it
# crawls near the minimum: the best one, 0.028, needs 100 steps from its slowest start,
# and a grid ten times finer finds no better, against Newton's 7 at most, with no rate to
# tune. The four starts are one draw, but a typical one: move each a little at random, and
# on nineteen draws in twenty or more the best shared rate still needs **more than ten
# times** Newton's steps.
#
# <details><summary>How we know</summary>
#
# We moved each of the four starts by up to 0.1 at random and ran it all again, 1000 times
# (seeds 2000 to 2999, not shown, the rates refined to 0.0001 each time). On 995 of them the
# best shared rate needed 13 to 16 times Newton's steps from its slowest start; on the other
# 5 a larger rate, near 0.052, won, with about ten times Newton's steps or fewer. A claims
# test draws 30 more sets of starts and checks that at least 28 need more than ten times
# Newton's steps.
#
# <!-- claim: ch13-newton-beats-descent -->
# </details>
#
# Why can gradient descent not simply take the step that suits the minimum? Near $x = 1$
# the ideal rate is $1/f''(1) = 1/8$, and the printout shows what that rate does from
# $x = 2$, where the curvature is $f''(2) = 44$: one step throws $x$ to exactly $-1$, the
# *other* minimum. Any rate above $1/12$ overshoots past the hump at 0 in the same way.
# A single rate must suit both the steep start and the flat finish; Newton's step
# $1/f''(x)$ changes with $x$ and suits both. The price is the second derivative, which
# for $n$ inputs is an $n \times n$ matrix, and that is why networks with millions of
# weights use first-order methods (chapter 10) instead.

# %% [markdown]
# ## 4. `no_grad()`: no graph where none is needed
#
# Every operation on a `Value` records its inputs, so that `backward()` can find them. When
# no gradient will be asked for, that record is wasted: evaluating a trained model,
# measuring accuracy, or, in PyTorch, where a parameter is a tensor and not a plain
# float's `p.data`, the update step itself. Inside
# `with no_grad():` operations still compute their results, but each result is a plain
# leaf with no inputs. (PyTorch's `torch.no_grad()` does the same.)

# %%
x = Value(3.0, label="x")
y = x * 2 + 1
with no_grad():
    z = x * 2 + 1
print(
    f"outside: y = {y.data:.4f}, y has {len(y._prev)} inputs, its graph",
    f"{len(y.topological_order())} values",
)
print(
    f"inside:  z = {z.data:.4f}, z has {len(z._prev)} inputs, its graph",
    f"{len(z.topological_order())} value",
)
z.backward()
print(f"z.backward() reaches x? x.grad = {x.grad:.4f}")
y.backward()
print(f"y.backward() does:      x.grad = {x.grad:.4f}")
drawing = draw_dot(z)
drawing.alt = (  # in words: z is one box, a leaf
    f"z drawn alone: a single box, data {z.data:.4f} and grad {z.grad:.4f}, with no inputs and no "
    "operation: a leaf."
)
drawing

# %% [markdown]
# Same number, $z = 7 = y$, but $z$ is a lone leaf: its drawing is one box, and its
# backward pass leaves $x$'s gradient at 0, while $y$'s sends 2 to $x$. How much does that
# save? The next cell evaluates chapter 9's network, `MLP(2, [16, 16, 1])`, on 50 points of
# the two-moons data and keeps the 50 outputs, first normally, then under `no_grad()`,
# measuring the memory still held with Python's `tracemalloc`.

# %% tags=["claim-setup"]
model = MLP(2, [16, 16, 1])
X, _ = make_moons(50, noise=0.1, seed=0)


def predictions():
    return [model([float(p), float(q)]) for p, q in X]


def held_after(fn):
    """(memory still allocated after fn(), the result) in bytes, while the result is kept."""
    gc.collect()
    tracemalloc.start()
    result = fn()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return held, result


def predictions_without_graph():
    with no_grad():
        return predictions()


with_graph, kept = held_after(predictions)
nodes = len({id(v) for out in kept for v in out.topological_order()})
without_graph, kept_plain = held_after(predictions_without_graph)
same = all(p.data == q.data for p, q in zip(kept, kept_plain))
# Printed coarsely: Jupyter's own threads allocate a few bytes during the measurement too,
# and Python's objects shrank in 3.12 and 3.13 (about 5.0, 4.8 and 4.2 MB here), so in 2 MB steps.
print(f"with the graph:  {nodes} values kept alive, more than {2 * math.floor(with_graph / 2e6)} MB")
print(
    f"under no_grad(): {len(kept_plain)} values kept alive, less than",
    f"{math.ceil(without_graph / 1e5) / 10} MB",
)
print(
    f"more than {10 ** math.floor(math.log10(with_graph / without_graph))} times less",
    f"memory; same outputs: {same}",
)
del kept, kept_plain

# %% [markdown]
# With the graph, the 50 outputs keep every intermediate value of every forward pass
# alive (the count above: each output holds its whole graph, and the weights are shared),
# more than 4 MB. Under `no_grad()` only the 50 results remain, in less than 0.1 MB: more
# than a hundred times less, for outputs that are identical to the last bit. Training needs
# the graph; everything after training does not.
#
# <details><summary>How we know</summary>
#
# On 20 other draws of the network and the 50 points (seeds 1000 to 1019), `no_grad()` kept
# 374 to 381 times less memory under Python 3.11. In a plain Python process, outside a
# notebook, the graph held about 5.3 MB under 3.11 and 4.5 MB under 3.13, the results alone
# 13 to 14 KB. A claims test draws 16 more networks and data sets and checks on every one:
# more than 4 MB with the graph, less than 0.1 MB without, over a hundred times less.
#
# <!-- claim: ch13-no-grad-memory -->
# </details>
#
# The same switch holds for chapter 11's `Tensor`: both engines read one flag. Inside the
# block a tensor's result keeps no inputs and needs no gradient, as in PyTorch:

# %%
w = Tensor([1.0, 2.0], requires_grad=True)
with no_grad():
    doubled = w * 2
print(
    f"a Tensor inside no_grad(): {len(doubled._prev)} inputs recorded, "
    f"requires_grad={doubled.requires_grad}; outside: {len((w * 2)._prev)} inputs"
)

# %% [markdown]
# ## 5. The map from this engine to PyTorch
#
# Everything in this course has a PyTorch counterpart with the same job:
#
# | this engine | PyTorch | what it is |
# |---|---|---|
# | `Value(2.0)` | `torch.tensor(2.0, requires_grad=True)` | a leaf that wants a gradient |
# | `v.grad` | `t.grad` | $\partial(\text{output})/\partial v$, filled in by `backward()` |
# | the backward rule (`_local_grads`, `_backward`) | `t.grad_fn` | how to send a gradient to the inputs |
# | `v._prev` | `t.grad_fn.next_functions` | where it is sent |
# | `p.grad = 0.0` for each `p` (`zero_grad()`) | `optimizer.zero_grad()` | forget the last step's gradients |
# | `p.data -= lr * p.grad` (`SGD.step()`) | `optimizer.step()` | the update |
# | `grad(y, [x], create_graph=True)` | `torch.autograd.grad(y, [x], create_graph=True)` | derivatives as values |
# | `with no_grad():` (for `Value` and `Tensor`) | `with torch.no_grad():` | no graph |
#
# Below, the same neuron, $o = \tanh(w_1 x_1 + w_2 x_2 + b)$ with loss $(o - 1)^2$, built
# in both, each line of ours followed by its PyTorch twin. Every PyTorch result is printed on
# a line starting "PyTorch (optional)", so the chapter runs without it too. (PyTorch uses
# 64-bit floats here, `dtype=torch.float64`, like Python's.)

# %%
inputs = [2.0, -1.0]
start = {"w1": -0.5, "w2": 0.75, "b": 0.25}

params = {name: Value(v, label=name) for name, v in start.items()}
o = (params["w1"] * inputs[0] + params["w2"] * inputs[1] + params["b"]).tanh()
loss = (o - 1) ** 2
loss.backward()
print(
    f"ours:  loss = {loss.data:.6f};",
    ", ".join(f"{k}.grad = {p.grad:.6f}" for k, p in params.items()),
)

if torch is None:
    print("PyTorch (optional): not installed (pip install torch to run its side)")
else:
    t_params = {
        name: torch.tensor(
            v,
            dtype=torch.float64,
            requires_grad=True,
        )
        for name, v in start.items()
    }
    t_o = torch.tanh(t_params["w1"] * inputs[0] + t_params["w2"] * inputs[1] + t_params["b"])
    t_loss = (t_o - 1) ** 2
    t_loss.backward()
    print(
        f"PyTorch (optional): loss = {t_loss.item():.6f}; "
        + ", ".join(f"{k}.grad = {t.grad.item():.6f}" for k, t in t_params.items())
    )

# %% [markdown]
# `Value.grad` ↔ `tensor.grad`: the same three numbers. Next, the graph. Our `loss`
# remembers its operation (`_op`), its local derivatives and its inputs (`_prev`).
# PyTorch's tensor remembers a `grad_fn`, an object whose job is the backward rule, and
# `grad_fn.next_functions` points to the `grad_fn` of each input: the same graph, one
# level of naming removed. Walking both from the loss down:


# %%
def our_chain(v, depth=4):
    names = []
    while v._prev and depth:
        names.append(f"{v._op} (local derivatives {', '.join(f'{x:.4f}' for x in v._local_grads)})")
        v, depth = v._prev[0], depth - 1
    return names


def their_chain(fn, depth=4):
    names = []
    while fn is not None and depth:
        names.append(type(fn).__name__)
        fn, depth = fn.next_functions[0][0] if fn.next_functions else None, depth - 1
    return names


print(textwrap.fill("ours:   " + " -> ".join(our_chain(loss)), 100, subsequent_indent="        "))
if torch is None:
    print("PyTorch (optional): not installed")
else:
    print("PyTorch (optional): " + " -> ".join(their_chain(t_loss.grad_fn)))

# %% [markdown]
# Ours reads `**2`, `-`, `tanh`, `+`: the loss's square, the subtraction of the target,
# the tanh, the last addition. PyTorch's `grad_fn` chain (when installed) names the same
# four steps, `PowBackward0`, `SubBackward0`, `TanhBackward0` and `AddBackward0`: one
# backward object per operation, exactly our backward rules.
#
# Last, one training step in each. Ours uses the package's `SGD`, whose `zero_grad()` and
# `step()` mirror `torch.optim.SGD`'s.

# %%
optimizer = SGD(list(params.values()), lr=0.1)


def our_step():
    o = (params["w1"] * inputs[0] + params["w2"] * inputs[1] + params["b"]).tanh()
    loss = (o - 1) ** 2
    optimizer.zero_grad()  # p.grad = 0.0 for every parameter
    loss.backward()
    optimizer.step()  # p.data -= lr * p.grad
    return loss.data


losses = [our_step() for _ in range(3)]
print("ours:  losses " + ", ".join(f"{x:.6f}" for x in losses), "; w1 =", f"{params['w1'].data:.6f}")

if torch is None:
    print("PyTorch (optional): not installed")
else:
    t_params = {
        name: torch.tensor(
            v,
            dtype=torch.float64,
            requires_grad=True,
        )
        for name, v in start.items()
    }
    t_optimizer = torch.optim.SGD(list(t_params.values()), lr=0.1)

    def their_step():
        t_o = torch.tanh(t_params["w1"] * inputs[0] + t_params["w2"] * inputs[1] + t_params["b"])
        t_loss = (t_o - 1) ** 2
        t_optimizer.zero_grad()  # every .grad reset (to None, in recent versions)
        t_loss.backward()
        t_optimizer.step()  # p -= lr * p.grad, under torch.no_grad()
        return t_loss.item()

    t_losses = [their_step() for _ in range(3)]
    print(
        "PyTorch (optional): losses "
        + ", ".join(f"{x:.6f}" for x in t_losses)
        + f"; w1 = {t_params['w1'].item():.6f}"
    )

# %% [markdown]
# The three losses fall from 3.629590 to 1.659090, and $w_1$ ends at 0.373656 in both
# engines (when PyTorch is installed, its line repeats ours digit for digit). The
# update inside `step()` runs without recording a graph in both: our `SGD` changes
# `p.data`, a plain float, and PyTorch wraps its update in `torch.no_grad()`. Section 4's
# switch at work.
#
# That is the whole machine. `loss.backward()` in PyTorch does what `backward()` here does:
# sort the graph, seed the output with 1, run each node's backward rule once, in reverse
# order, accumulating into `.grad`. Everything else is tensors (chapter 11), speed
# (chapter 12) and a great many more operations.

# %% [markdown]
# ## Exercises
#
# **Exercise 13.1 (derive a rule).** `Dual.__pow__` above takes a plain-number exponent,
# so `x ** x` cannot be differentiated with it. Derive the rule for $a^b$ when *both*
# $a$ and $b$ carry a tangent (hint: $a^b = e^{b \ln a}$ for $a > 0$), and write
# `dual_pow(a, b)` returning the `Dual` $a^b$. Predict first: which two familiar rules
# must it reduce to when only $a$, or only $b$, carries a tangent? Then use it to get
# $\frac{d}{dx} x^x$ at $x = 2$ in one evaluation; by hand it is $4(1 + \ln 2)$.

# %%
from micrograd_lesson.exercises import (
    check_cheaper_mode,
    check_dual_pow,
    check_reverse_rules,
    check_safe_newton_step,
    reveal,
)


def dual_pow(a, b):
    return a**b.val  # treats the exponent as a constant: its tangent is lost


two = Dual(2.0, 1.0)
print(f"d/dx x^x at 2: {dual_pow(two, two).dot:.6f} (by hand {4 * (1 + math.log(2)):.6f})")
check_dual_pow(dual_pow)

# %%
reveal("ch13.dual_pow")

# %% [markdown]
# **Exercise 13.2 (predict first).** For $F:\mathbb{R}^n \to \mathbb{R}^m$, write
# `cheaper_mode(n, m)` returning `(mode, factor)`: the mode (`"forward"`, `"reverse"`, or
# `"either"` on a tie) that builds the full Jacobian in fewer passes, and how many times
# fewer. Before you run anything, write down your answers for three cases: the loss of
# `MLP(2, [16, 16, 1])` as a function of its 337 parameters; the position in 3-D space of a
# drone as a function of time; and a layer mapping 1000 inputs to 10 outputs. Then check:
# the check tries those three and 49 other shapes, most drawn at random.


# %%
def my_cheaper_mode(n, m):
    return "reverse", 1.0  # replace: count the passes each mode needs


print(my_cheaper_mode(337, 1), my_cheaper_mode(1, 3), my_cheaper_mode(1000, 10))
check_cheaper_mode(my_cheaper_mode)

# %%
reveal("ch13.cheaper_mode")

# %% [markdown]
# **Exercise 13.3 (predict, then design).** Newton's step goes to where the parabola
# through $x$ has zero slope. Predict: on $f(x) = x^4 - 2x^2$ from $x = 0.3$, where does
# it go, and is that a minimum? (What is the sign of $f''(0.3)$?) The cell prints
# seven Newton steps from there so you can check. Then write
# `safe_newton_step(f, x, lr)` that never heads for a hump: Newton's step where
# $f''(x) > 0$, and a gradient-descent step $x - \eta f'(x)$ of rate `lr` elsewhere,
# with both derivatives from `grad` (the check uses functions you have not seen and
# expects exact derivatives, not nudged ones).


# %%
def newton_from(x0, steps):
    path = [x0]
    for _ in range(steps):
        v = Value(path[-1])
        (slope,) = grad(v**4 - 2 * v**2, [v], create_graph=True)
        path.append(path[-1] - slope.data / grad(slope, [v])[0])
    return path


print("Newton from 0.3:", ", ".join(f"{x:.4f}" for x in newton_from(0.3, 7)))


def safe_newton_step(f, x, lr):
    return x  # replace: Newton's step where f''(x) > 0, a gradient step elsewhere


check_safe_newton_step(safe_newton_step)

# %%
reveal("ch13.safe_newton_step")

# %% [markdown]
# **Exercise 13.4 (derive, then check).** Section 2's table says reverse mode needs 16639
# steps for the Jacobian of `one_to_many(t, 128)`: 255 values in the forward pass, and the
# rest backward rules. Where does the rest come from? Draw the chain for $m = 3$ on paper
# and count the operations in each output's graph. Then take any chain of the same kind:
# the first output is $\tanh(t)$, one operation, and each later output adds `per_link`
# operations to the one before (`one_to_many` has `per_link = 2`: a product and a
# $\tanh$). Write `reverse_rules(m, per_link)`: the number of backward rules reverse mode
# applies to build the whole Jacobian (one backward pass per output), as a formula. Do not
# build graphs; derive it. The table checks one case; the check tries chains with other
# lengths and links.


# %%
def my_reverse_rules(m, per_link):
    return 0  # replace: a formula in m and per_link (one backward pass per output; how long is each?)


table = counts[128][1]["reverse"] - counts[128][1]["forward"] // 2  # the table's steps minus 255 values
print(f"m = 128: your formula says {my_reverse_rules(128, 2)} backward rules; the table counted {table}")
check_reverse_rules(my_reverse_rules)

# %%
reveal("ch13.reverse_rules")

# %% [markdown]
# That is the end of the course. You have built a reverse-mode autodiff engine, checked
# it against nudging and PyTorch, trained networks with it, carried it to tensors, made it
# fast, and now seen the roads beyond it: forward mode, higher derivatives, and the names
# PyTorch gives to the pieces you wrote yourself.
