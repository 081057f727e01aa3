# %% [markdown]
# # Chapter 1 — Derivatives by nudging
#
# Training a network comes down to one question, asked millions of times: *if I turn this
# knob a little, does the loss go up or down, and by how much?* The answer is a
# **derivative**. This chapter finds derivatives by nudging, sees how accurate that is and
# why it is too slow for a network, and ends with the three ways to get a derivative.

# %% tags=["claim-setup"]
import math
import random

import matplotlib.pyplot as plt
import numpy as np

from micrograd_lesson import Value, central_difference, describe_figure, forward_difference
from micrograd_lesson.exercises import (
    check_best_h,
    check_numerical_gradient,
    check_slope,
    reveal,
)

random.seed(0)
rng = np.random.default_rng(0)

# %% [markdown]
# ## A function of one number
#
# Start with a parabola, $f(x) = 3x^2 - 4x + 5$: one number in, one number out.


# %%
def f(x):
    return 3 * x**2 - 4 * x + 5


print(f"f(3) = {f(3.0):.4f}")
print(f"f(0) = {f(0.0):.4f}")
print(f"f(-1) = {f(-1.0):.4f}")

# %% [markdown]
# So $f(3) = 20$, $f(0) = 5$ and $f(-1) = 12$. In the plot, the orange dashed line touches
# the curve at $x = 3$: it is the **tangent**, and its steepness is the derivative of $f$
# at 3. The green dotted tangent, at the bottom of the bowl, is flat.

# %%
xs = np.linspace(-2, 4, 200)
x0, x_min = 3.0, 2 / 3
slope_at_3 = 6 * x0 - 4  # the exact slope; we will recover it by nudging below

fig, ax = plt.subplots(figsize=(7, 4.2))
ax.plot(xs, f(xs), label="$f(x) = 3x^2 - 4x + 5$", linewidth=2)
ax.plot(xs, f(x0) + slope_at_3 * (xs - x0), "--", label="tangent at x = 3 (slope 14)")
ax.plot(xs, np.full_like(xs, f(x_min)), ":", label="tangent at x = 2/3 (slope 0)")
ax.plot([x0, x_min], [f(x0), f(x_min)], "ko")
ax.set_ylim(-5, 45)
ax.set_xlabel("x")
ax.set_ylabel("f(x)")
ax.set_title("A parabola and two of its tangent lines")
ax.legend()
ax.grid(True, alpha=0.3)
describe_figure(
    fig,
    "The parabola is lowest at x = 2/3; the tangent at x = 3 climbs with slope 14, the "
    "tangent at x = 2/3 is flat.",
)
plt.show()

# %% [markdown]
# ## The slope, by nudging
#
# How steep is the curve at $x = 3$, without calculus? Nudge the input by a small $h$, see
# how far the output moves, and divide: *rise over run*, for a very short run.
#
# $$\text{slope} \approx \frac{f(x + h) - f(x)}{h}.$$

# %%
x = 3.0
for h in [0.1, 0.01, 0.001, 0.0001]:
    slope = (f(x + h) - f(x)) / h
    print(f"h = {h:<7} f(x + h) - f(x) = {f(x + h) - f(x):.8f}   slope = {slope:.4f}")

# %% [markdown]
# The estimates 14.3, 14.03, 14.003, 14.0003 close in on **14**: a tenfold smaller $h$, a
# tenfold smaller error. Calculus agrees: $f'(x) = 6x - 4$, and $6 \cdot 3 - 4 = 14$.
#
# The sign matters as much as the size. At $x = -1$ the slope is negative (downhill), and at
# $x = 2/3$ it is zero: the bottom of the bowl. Finding where the slope is zero is what
# training does, in many dimensions at once.

# %%
h = 1e-6
for x in [-1.0, 2 / 3, 3.0]:
    slope = (f(x + h) - f(x)) / h
    print(f"x = {x:.4f}   slope by nudging = {slope:.4f}   exact 6x - 4 = {6 * x - 4:.4f}")

# %% [markdown]
# The nudge gives $-10$, $0$ and $14$, matching $6x - 4$ to four decimals.
#
# ## Several inputs: one nudge each
#
# A loss depends on many numbers. We nudge them **one at a time**, the others held fixed, and
# get one slope per input: the *partial derivatives*. Take $d = a \cdot b + c$ at $a = 2$,
# $b = -3$, $c = 10$.


# %%
def d_of(a, b, c):
    return a * b + c


a, b, c = 2.0, -3.0, 10.0
h = 1e-4
d = d_of(a, b, c)
print(f"d = {d:.4f}")
print(f"dd/da ~ {(d_of(a + h, b, c) - d) / h:.4f}")
print(f"dd/db ~ {(d_of(a, b + h, c) - d) / h:.4f}")
print(f"dd/dc ~ {(d_of(a, b, c + h) - d) / h:.4f}")

# %% [markdown]
# Here $d = 4$, $\partial d/\partial a \approx -3$, $\partial d/\partial b \approx 2$ and
# $\partial d/\partial c \approx 1$. Each makes sense:
#
# - Nudging $a$ by $h$ adds $h$ copies of $b = -3$ to the product: the slope for $a$ is $b$.
# - Likewise the slope for $b$ is $a$, which is 2.
# - $c$ is simply added: slope 1.
#
# Remember the two patterns, "a product's slope is the *other* factor" and "a sum passes the
# nudge straight through": chapter 3 is built on them.
#
# ## Forward or central difference?
#
# So far we nudged forwards. A **central difference** nudges both ways and divides by $2h$:
#
# $$\frac{f(x + h) - f(x - h)}{2h}.$$


# %%
def my_forward_difference(fn, x, h):
    return (fn(x + h) - fn(x)) / h


def my_central_difference(fn, x, h):
    return (fn(x + h) - fn(x - h)) / (2 * h)


for h in [0.1, 0.01]:
    fwd, cen = my_forward_difference(f, 3.0, h), my_central_difference(f, 3.0, h)
    print(f"h = {h:<5} forward = {fwd:.6f}   central = {cen:.6f}")

# %% [markdown]
# With a clumsy $h = 0.1$ the central difference is already exact, the forward one off by
# $0.3$. The forward chord leans into the curve; the central one balances a lean one way
# against a lean the other, and on a parabola the two cancel exactly.
#
# From now on we use the package's `forward_difference` and `central_difference` (default
# $h = 10^{-6}$).

# %%
print(f"forward_difference(f, 3.0) = {forward_difference(f, 3.0):.6f}")
print(f"central_difference(f, 3.0) = {central_difference(f, 3.0):.6f}")

# %% [markdown]
# ### How small should h be?
#
# Why not make $h$ tiny? A computer keeps about 16 significant digits. When $h$ is tiny,
# $f(x + h)$ and $f(x)$ agree in almost every digit, so their difference is mostly rounding,
# which dividing by the tiny $h$ blows up. Two errors pull against each other:
#
# - **truncation error**, from using a chord instead of the tangent, shrinks with $h$;
# - **round-off error** grows as $h$ shrinks, roughly like $\varepsilon \cdot |f(x)| / h$,
#   where $\varepsilon \approx 2.2 \cdot 10^{-16}$ (**machine epsilon**) is the relative
#   size of one rounding step.
#
# To see both, take $g(x) = x^3$ at $x = 2$ (slope 12), where the central difference is not
# exact. The cell plots each method's error for 57 values of $h$, on logarithmic axes.


# %% tags=["claim-setup"]
def g(x):
    return x * x * x


exact = 12.0
eps = np.finfo(float).eps
roundoff = eps * abs(g(2.0))  # the round-off estimate is roundoff / h
print(f"machine epsilon = {eps:.2e}; eps * |g(2)| = {roundoff:.2e}")

hs = np.logspace(-1, -15, 57)
err_forward = np.array([abs(forward_difference(g, 2.0, h) - exact) for h in hs])
err_central = np.array([abs(central_difference(g, 2.0, h) - exact) for h in hs])

fig, ax = plt.subplots(figsize=(7.5, 4.5))
ax.loglog(hs, err_forward, "o-", markersize=3, label="forward difference")
ax.loglog(hs, err_central, "s-", markersize=3, label="central difference")
ax.loglog(hs, 6 * hs, ":", color="gray", label="truncation 6h (slope 1)")
ax.loglog(hs, hs**2, "--", color="gray", label="truncation h² (slope 2)")
ax.loglog(hs, roundoff / hs, "-.", color="#CC79A7", label="round-off ε·|g(2)| / h ≈ 1.8e-15 / h")
ax.set_ylim(1e-13, 10)
ax.invert_xaxis()
ax.set_xlabel("nudge h (getting smaller to the right)")
ax.set_ylabel("|estimate - exact slope|")
ax.set_title("Error of g'(2) for g(x) = x³: truncation falls, round-off rises")
ax.legend(fontsize=8, loc="upper center")
ax.grid(True, which="major", alpha=0.3)
describe_figure(
    fig,
    "Read left to right, as h shrinks: both errors first fall, the forward difference's "
    "along slope 1 and the central difference's along slope 2, until round-off takes over "
    "and they rise again along the dash-dotted line, ε·|g(2)| / h.",
)
plt.show()

# %% [markdown]
# Read the plot from left to right, as $h$ shrinks.
#
# On the left, truncation rules. The forward error falls along a line of slope **1**: ten
# times smaller $h$, ten times smaller error. The central error falls along slope **2**: a
# *hundred* times smaller. (For $x^3$ they are exactly $6h + h^2$ and $h^2$.)
#
# <details><summary>How we know</summary>
#
# The next cell fits the slopes: 1.00 and 2.00. For $x^3$, $e^x$ and $1/x$ at random points
# between 0.5 and 3, the fitted slopes were 0.99 to 1.00 and 2.00 every time. They change
# only where the term they come from vanishes: where $f'' = 0$ (as for $\sin$ at $\pi$) the
# forward error falls like $h^2$ instead.
#
# <!-- claim: ch01-error-slopes -->
# </details>
#
# On the right, round-off rules: both errors climb again, noisily, along the dash-dotted
# line $\varepsilon \cdot |g(2)| / h$. Past that turn, a smaller $h$ makes the estimate *worse*.
#
# <details><summary>How we know</summary>
#
# For every $h$ of $10^{-9}$ or less, the measured errors stay below 1.45 times that line
# for the forward difference and 0.70 times for the central one (next cell), and below 1.5
# and 0.75 times on a grid of $h$ a thousand times finer. Elsewhere the line is a rough
# guide: on 200 draws of five random points each (seeds 1000 to 1199), $x^3$ and $e^x$
# stayed under 4 times it at every point, but $\sin$ passed 4 times on about one draw in
# five, always near $\pi$, where $\sin x$, and so the line, is close to zero. Adding
# $\varepsilon\,|x f'(x)| / 2$ to $\varepsilon\,|f(x)|$, the size of rounding $x + h$
# itself, no case passed 1.5 times the sum.
#
# <!-- claim: ch01-roundoff-within-a-few-estimates -->
# </details>
#
# The next cell measures the slopes, and where and how low each curve bottoms out.


# %% tags=["claim-setup"]
def fitted_slope(h_values, errors, h_low, h_high):
    """Slope of log10(error) against log10(h), over h_low <= h <= h_high."""
    keep = (h_values >= h_low) & (h_values <= h_high)
    return np.polyfit(np.log10(h_values[keep]), np.log10(errors[keep]), 1)[0]


slope_fwd = fitted_slope(hs, err_forward, 1e-5, 1e-1)
slope_cen = fitted_slope(hs, err_central, 1e-4, 1e-1)
tiny = hs <= 1e-9  # where round-off is all there is
for name, errors, fit in [("forward", err_forward, slope_fwd), ("central", err_central, slope_cen)]:
    best = np.argmin(errors)
    print(
        f"{name}: error falls like h^{fit:.2f} for large h; "
        f"smallest error {errors[best]:.0e} at h = {hs[best]:.0e};\n    "
        "for h <= 1e-9, error * h / (eps * |g(2)|) is at most "
        f"{np.max(errors[tiny] * hs[tiny] / roundoff):.2f}"
    )


def bottom_median(difference, fn, x, exact_slope, h_low, h_high, points=8001):
    """Median error of `difference` over `points` values of h from h_low to h_high (log-spaced)."""
    band = np.logspace(math.log10(h_low), math.log10(h_high), points)
    return np.median([abs(difference(fn, x, h) - exact_slope) for h in band])


# each V's bottom: two decades of h around the h where its truncation and round-off lines meet
meet_fwd = math.sqrt(roundoff / 6)  # 6h = roundoff / h
meet_cen = roundoff ** (1 / 3)  # h**2 = roundoff / h
bottom_fwd = bottom_median(forward_difference, g, 2.0, exact, 1e-9, 1e-7)
bottom_cen = bottom_median(central_difference, g, 2.0, exact, 1e-6, 1e-4)
best = np.argmin(err_central)
print(
    f"central: its two neighbours' errors are {err_central[best - 1] / err_central[best]:.0f} and "
    f"{err_central[best + 1] / err_central[best]:.0f} times its smallest"
)
for name, meet, bottom, band in [
    ("forward", meet_fwd, bottom_fwd, "1e-9 <= h <= 1e-7"),
    ("central", meet_cen, bottom_cen, "1e-6 <= h <= 1e-4"),
]:
    print(f"{name}: the lines meet at h = {meet:.1e}; median error for {band}: {bottom:.0e}")
print(f"the central difference's bottom is {bottom_fwd / bottom_cen:.0f} times below the forward one's")

# %% [markdown]
# On these log-log axes each curve is a V, and its bottom, the best $h$, lies near where the
# truncation and round-off lines meet: at $h \approx 1.7 \cdot 10^{-8}$ for the forward
# difference, and sooner and lower, at $h \approx 1.2 \cdot 10^{-5}$, for the central one.
# Around its bottom the central difference is several hundred times more accurate: 729
# times, median error against median error.
#
# <details><summary>How we know</summary>
#
# Single points near a bottom are partly luck: a rounding error can cancel part of the
# truncation error. The central difference's smallest error, $2 \cdot 10^{-11}$, has
# neighbours 4 and 44 times worse, and a finer grid of $h$ finds luckier points still. So
# the cell compares medians over 8,001 values of $h$ in each band: $3 \cdot 10^{-7}$ against
# $4 \cdot 10^{-10}$. With 81 to 80,001 values per band, and each band moved a tenth of a
# decade either way, the factor was 597 to 766; unmoved, it settles near 740 as the grid is
# refined.
#
# <!-- claim: ch01-central-bottom-lower -->
# </details>
#
# ### Is central always better?
#
# That factor belongs to one function at one point. The cell below repeats the comparison
# on 20 cases: $x^3$, $\sin$, $e^x$ and $1/x$, each at five random points between 0.5 and 3.


# %% tags=["claim-setup"]
def central_vs_forward(seed, points_per_function=5, points=81):
    """For random points: (forward's median error / central's, each over two decades of h around
    its V's bottom; forward error / central error, both at h = 1e-6)."""
    cases = [
        (g, lambda t: 3 * t * t),
        (math.sin, math.cos),
        (math.exp, math.exp),
        (lambda t: 1 / t, lambda t: -1 / t**2),
    ]
    xs_all = np.random.default_rng(seed).uniform(0.5, 3.0, size=(len(cases), points_per_function))
    bottoms, at_1e6 = [], []
    for (fn, derivative), xs_here in zip(cases, xs_all):
        for x in xs_here.tolist():
            exact_here = derivative(x)
            forward_bottom = bottom_median(forward_difference, fn, x, exact_here, 1e-9, 1e-7, points)
            central_bottom = bottom_median(central_difference, fn, x, exact_here, 1e-6, 1e-4, points)
            bottoms.append(forward_bottom / central_bottom)
            fwd_error = abs(forward_difference(fn, x, 1e-6) - exact_here)
            at_1e6.append(fwd_error / max(abs(central_difference(fn, x, 1e-6) - exact_here), 1e-300))
    return np.array(bottoms), np.array(at_1e6)


# %%
bottoms, at_1e6 = central_vs_forward(seed=1)
print(
    f"{len(at_1e6)} cases: forward's median / central's median, each around its V's bottom: "
    f"{bottoms.min():,.0f} to {bottoms.max():,.0f} times"
)
print(
    f"{len(at_1e6)} cases: forward error / central error, both at h = 1e-6: "
    f"{at_1e6.min():,.0f} to {at_1e6.max():,.0f} times"
)

# %% [markdown]
# The central difference wins all 20 cases: by at least 200 times around the bottoms, and
# 1,617 times at the same $h = 10^{-6}$. On other draws of the points it wins every case
# too. So chapter 6 checks gradients with `central_difference` at $h = 10^{-6}$.
#
# <details><summary>How we know</summary>
#
# On 200 other draws of the points (seeds 1000 to 1199, 4,000 cases), bottom against bottom,
# the central difference won every case by more than 62 times, and by more than 100 times in
# 98.5 % of them; at $h = 10^{-6}$ it won every case by more than 495 times, and by more than
# 1,000 times in 98.9 %. Fresh draws that no page shows check that it wins every case by
# more than 40 and 100 times, and by more than 100 and 1,000 times in at least 98 % of cases.
#
# <!-- claim: ch01-central-at-1e-6 -->
# </details>
#
# ## Why nudging does not scale
#
# Nudging works on any function we can call, so why not train with it? Count the cost: one
# evaluation at the start plus one per input, $n + 1$ for $n$ inputs ($2n$ with central
# differences).
#
# Let us count on a network with **41 parameters** (chapter 7 explains it; here it is just
# a function of 41 numbers), scored on four examples. A counter records every evaluation.

# %% tags=["claim-setup"]
XS = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
YS = [1.0, -1.0, -1.0, 1.0]
counter = {"evaluations": 0}


def tanh(z):
    return z.tanh() if isinstance(z, Value) else math.tanh(z)


def loss_of(params):
    """Squared error of a 3-4-4-1 tanh network whose 41 weights are `params`."""
    counter["evaluations"] += 1
    total = 0.0
    for inputs, target in zip(XS, YS):
        p = iter(params)  # hand out the 41 numbers in a fixed order
        layer = inputs
        for n_out, squash in [(4, True), (4, True), (1, False)]:
            # each unit: a weight per input, then a bias
            sums = [sum(next(p) * v for v in layer) + next(p) for _ in range(n_out)]
            layer = [tanh(s) for s in sums] if squash else sums
        total = total + (layer[0] - target) ** 2
    return total


params = rng.uniform(-1, 1, size=41).tolist()
print(f"parameters: {len(params)}")
print(f"loss: {loss_of(params):.4f}")

# %% [markdown]
# Now the gradient by forward differences, one parameter nudged at a time:

# %%
counter["evaluations"] = 0
h = 1e-6
base = loss_of(params)
numeric_grad = []
for i in range(len(params)):
    nudged = list(params)
    nudged[i] += h
    numeric_grad.append((loss_of(nudged) - base) / h)
print(f"evaluations for one gradient by nudging: {counter['evaluations']}")
print(f"first three partial derivatives: {', '.join(f'{g_i:.4f}' for g_i in numeric_grad[:3])}")

# %% [markdown]
# **42 evaluations** for one gradient: one more than the number of parameters. Training
# needs a gradient at every step.
#
# Compare what is coming. The same function runs once on the package's `Value` objects
# (you build them in chapters 2 to 5), and one call to `backward()` fills in all 41
# partial derivatives:

# %%
counter["evaluations"] = 0
values = [Value(p) for p in params]
loss = loss_of(values)
loss.backward()
auto_grad = [v.grad for v in values]
print(f"evaluations for one gradient by autodiff: {counter['evaluations']} (plus one backward pass)")
print(f"first three partial derivatives: {', '.join(f'{g_i:.4f}' for g_i in auto_grad[:3])}")

# %% [markdown]
# One evaluation and one backward pass give the same first three numbers, $-3.2405$,
# $1.3932$ and $-0.4998$. Over all 41, the two gradients differ by less than $10^{-4}$
# (first line below). Whose fault is that gap, the backward pass's or the nudging's? Change
# only the nudging and compare again:


# %%
def loss_along(i):
    """The loss as a function of parameter i alone, the other 40 held fixed."""
    return lambda p_i: loss_of(params[:i] + [p_i] + params[i + 1 :])


central_grad = [central_difference(loss_along(i), params[i], h=1e-6) for i in range(len(params))]
# the forward difference's truncation term, h/2 times the second derivative along each parameter
second = [
    (loss_along(i)(p + 1e-4) - 2 * base + loss_along(i)(p - 1e-4)) / 1e-4**2
    for i, p in enumerate(params)
]
corrected_grad = [u - 1e-6 / 2 * s_i for u, s_i in zip(numeric_grad, second)]
for name, nudged_grad in [
    ("forward differences", numeric_grad),
    ("central differences", central_grad),
    ("forward differences minus h/2 * L''", corrected_grad),
]:
    gap = max(abs(u - v) for u, v in zip(nudged_grad, auto_grad))
    # Printed as a power of ten: the last digits of so small a gap depend on how sum() rounds,
    # which Python 3.12 changed.
    print(f"largest difference from autodiff, {name}: below 1e{math.ceil(math.log10(gap)):03d}")

# %% [markdown]
# With central differences the gap falls below $10^{-8}$, the backward pass unchanged. The
# third line keeps the forward difference but subtracts its known error,
# $\frac{h}{2}\,\partial^2 L / \partial p_i^2$, and the gap falls below $10^{-8}$ too. The
# gap was the nudging's error, not the backward pass's.
#
# <details><summary>How we know</summary>
#
# To first order a forward difference overshoots by $\frac{h}{2}\,\partial^2 L/\partial p_i^2$;
# the cell estimates that second derivative by nudging too. On 1,000 other draws of the 41
# weights (seeds 310,000 to 310,999) the forward gap was $4 \cdot 10^{-6}$ to
# $3.5 \cdot 10^{-5}$ (median $4.3 \cdot 10^{-6}$), the central one at most $1.0 \cdot 10^{-8}$
# and the corrected one at most $1.5 \cdot 10^{-8}$ (the forward difference's round-off),
# always at least 280 times below the forward gap. Fresh draws check that the three stay
# below $10^{-4}$, $5 \cdot 10^{-8}$ and $10^{-7}$, the last two more than 100 times below the
# first.
#
# <!-- claim: ch01-gap-is-truncation -->
# </details>
#
# What does the backward pass cost? It visits each operation the evaluation recorded once,
# with one multiply-add for each of that operation's inputs (chapter 4 builds it). So we can
# count both on the record:

# %%
order = loss.topological_order()  # every value in the record, each after its inputs
operations = [v for v in order if v._prev]
arrows = sum(len(v._prev) for v in operations)
print(f"operations run by the evaluation: {len(operations)}")
print(f"most inputs of any one operation: {max(len(v._prev) for v in operations)}")
print(f"multiply-adds in the backward pass: {arrows} ({arrows / len(operations):.2f} per operation)")

# %% [markdown]
# The evaluation ran 336 operations and the backward pass does 636 multiply-adds, 1.89 per
# operation. No operation has more than 2 inputs, so the backward pass costs at most about
# two evaluations, whatever the number of parameters. That is for one output, like a loss:
# running the chain rule backwards from it, **reverse mode**, gives the derivatives of that
# one number with respect to every input at once.
#
# <details><summary>How we know</summary>
#
# The same count on networks of five other shapes, with inputs drawn at random: no operation
# has more than 2 inputs, and there are at most 2 multiply-adds per operation. A function
# with $m$ outputs would need $m$ backward passes (chapter 13 meets forward mode, which is
# the other way round).
#
# <!-- claim: ch01-backward-at-most-twice -->
# </details>
#
# The cost of one gradient at four sizes: our 41, the 337 of chapter 9's network, and two
# round sizes on the way to a real network.

# %%
sizes = np.array([41, 337, 10_000, 1_000_000])
for n in sizes:
    print(
        f"{n:>9,} parameters: nudging needs {n + 1:>9,} evaluations (forward) or {2 * n:>9,} (central)"
    )
print("autodiff needs 1 + a backward pass, whatever the number of parameters")

fig, ax = plt.subplots(figsize=(7.5, 4.2))
n_range = np.logspace(1, 6, 50)
ax.loglog(n_range, n_range + 1, label="forward differences: n + 1 evaluations")
ax.loglog(n_range, 2 * n_range, "--", label="central differences: 2n evaluations")
ax.loglog(n_range, np.full_like(n_range, 3.0), label="autodiff, one output: ~3 (evaluation + backward)")
ax.set_xlabel("number of parameters n")
ax.set_ylabel("cost of one gradient (in evaluations)")
ax.set_title("Cost of one gradient as the model grows")
ax.legend(loc="upper left", fontsize=9)
ax.grid(True, which="major", alpha=0.3)
describe_figure(
    fig,
    "Nudging costs one or two evaluations per parameter, so its cost grows in proportion "
    "to n; autodiff's stays at about 3 evaluations whatever n is.",
)
plt.show()

# %% [markdown]
# For a million parameters, nudging needs a million and one evaluations per gradient, each
# touching all million parameters: about $10^{12}$ operations for a single step.
#
# ## Three ways to get a derivative
#
# 1. **Symbolic**: apply the rules of calculus to the *formula*, giving a new formula, here
#    $f'(x) = 6x - 4$. Exact, but it needs the formula, and the derivative formula can
#    grow far larger than the program.
# 2. **Numerical**: nudge and measure. It needs only a function we can call, but it is
#    approximate and costs an evaluation per input.
# 3. **Automatic**: run the program once, recording each operation, then apply the chain
#    rule to the record, backwards. Exact up to rounding, every partial derivative from one
#    backward pass; the price is memory for the record (336 values for our 41 weights).
#    This is PyTorch's `loss.backward()`, and what this course builds.


# %%
def f_prime_symbolic(x):
    return 6 * x - 4  # derived by hand from 3x^2 - 4x + 5


def f_prime_automatic(x):
    xv = Value(x)
    y = 3 * xv**2 - 4 * xv + 5
    y.backward()
    return xv.grad


print(f"{'x':>8} {'symbolic':>10} {'numerical':>10} {'automatic':>10}")
for x in [-1.0, 0.0, 2 / 3, 3.0]:
    print(
        f"{x:8.4f} {f_prime_symbolic(x):10.4f} {central_difference(f, x):10.4f} "
        f"{f_prime_automatic(x):10.4f}"
    )
x, h = 2 / 3, 1e-6
print(
    f"\nat x = 2/3: numerical {central_difference(f, x, h):.2e}, symbolic {f_prime_symbolic(x):.2e}, "
    f"automatic {f_prime_automatic(x):.2e}"
)
print(
    f"f(x + h) - f(x - h) = {f(x + h) - f(x - h):.2e}; gap between floats near f(x) = "
    f"{np.spacing(f(x)):.2e}"
)

# %% [markdown]
# All three agree at every point: $-10$, $-4$, $0$ and $14$. (The $-0.0000$ in the
# numerical column is round-off, $-2.22 \cdot 10^{-10}$.)
#
# <details><summary>Why -0.0000?</summary>
#
# At $x = 2/3$, $f(x + h)$ and $f(x - h)$ differ by $-4.44 \cdot 10^{-16}$, exactly one gap
# between neighbouring floats near $f(2/3) \approx 3.67$ (last two lines); divided by
# $2h = 2 \cdot 10^{-6}$, that is $-2.22 \cdot 10^{-10}$. The other two methods give exactly
# zero.
# </details>
#
# ### How large can the derivative formula get?
#
# Take a program of $n$ lines, each `y = 4*y*(1 - y)`, starting from `y = x`. Written as one
# formula, each line holds the previous `y` twice; its derivative, by the product rule,
# holds the previous `y` *and* the previous derivative twice each. The cell writes both
# formulas out blindly, counts their operations, and counts what `Value` records.


# %% tags=["claim-setup"]
def program_and_derivative(n):
    """The formulas for y and dy/dx after n lines of `y = 4*y*(1 - y)`, starting from y = x."""
    y, dy = "x", "1"
    for _ in range(n):
        # product rule on 4 * y * (1 - y): 4 * (y' * (1 - y) + y * (-y'))
        y, dy = f"4*{y}*(1 - {y})", f"4*({dy}*(1 - {y}) - {y}*{dy})"
    return y, dy


def operations_in(formula):
    return sum(formula.count(op) for op in "*-+")


def recorded_operations(n, x=0.3):
    """Run the n-line program on a Value; return its operation count and dy/dx by backward()."""
    xv = Value(x)
    y = xv
    for _ in range(n):
        y = 4 * y * (1 - y)
    y.backward()
    return len([v for v in y.topological_order() if v._prev]), xv.grad


# %%
lines = list(range(1, 13))
swell = {"program": [], "y formula": [], "dy/dx formula": [], "Value record": []}
print(f"{'lines n':>7} {'program':>8} {'y formula':>10} {'dy/dx formula':>14} {'Value record':>13}")
for n in lines:
    y_formula, dy_formula = program_and_derivative(n)
    recorded, grad = recorded_operations(n)
    if n <= 8:  # the formula is the derivative: evaluate it and compare with backward()
        assert math.isclose(eval(dy_formula, {"x": 0.3}), grad, rel_tol=1e-9, abs_tol=1e-12)
    row = [3 * n, operations_in(y_formula), operations_in(dy_formula), recorded]
    for key, count in zip(swell, row):
        swell[key].append(count)
    print(f"{n:>7} {row[0]:>8,} {row[1]:>10,} {row[2]:>14,} {row[3]:>13,}")
growth = [later / earlier for earlier, later in zip(swell["dy/dx formula"], swell["dy/dx formula"][1:])]
print(f"each line multiplies the derivative formula by {min(growth):.2f} to {max(growth):.2f}")

# multiplied out, y is a polynomial in x; its degree, for the first few n
poly, degrees = np.polynomial.Polynomial([0.0, 1.0]), []  # y = x
for _ in range(6):  # n = 1 to 6
    poly = 4 * poly * (1 - poly)
    degrees.append(poly.degree())
print(f"y multiplied out, its degree for n = 1 to 6: {', '.join(map(str, degrees))}")
horner = 2 * (2**12 - 1)  # a polynomial of degree d costs d multiplications and d additions
print(f"dy/dx at n = 12 multiplied out, in Horner's form: {horner:,} operations")

fig, ax = plt.subplots(figsize=(7.5, 4.2))
for key, style in zip(swell, ["o-", "s--", "^-", "x:"]):  # the record lies on the program
    ax.semilogy(lines, swell[key], style, label=key)
ax.set_xlabel("lines n of the program  y = 4*y*(1 - y)")
ax.set_ylabel("operations (log scale)")
ax.set_title("The derivative formula more than doubles per line; the program grows by 3")
ax.legend(loc="upper left", fontsize=9)
ax.grid(True, which="major", alpha=0.3)
describe_figure(
    fig,
    "On the log scale the derivative formula's size more than doubles with each line, "
    "while the program and the Value record (on top of each other) grow by 3 operations a "
    "line.",
)
plt.show()

# %% [markdown]
# At $n = 12$ lines the program runs 36 operations, and `Value` records exactly those 36.
# The derivative formula has 143,361, about 4,000 times more, and every line more than
# doubles it. The record names each intermediate value once, so it grows with the program.
#
# <details><summary>How we know; would multiplying it out help?</summary>
#
# The cell checks that the formula is the derivative, against `backward()` at $x = 0.3$, for
# $n \le 8$; the growth factor per line falls from 4.20 to 2.19, settling towards 2.
# Multiplied out, `y` is a polynomial whose degree doubles every line ($2^n$, printed for
# $n \le 6$), so its derivative has degree $2^n - 1$. Even in Horner's form ($d$
# multiplications and $d$ additions for degree $d$) that is $2 \cdot (2^{12} - 1) = 8{,}190$
# operations at $n = 12$: 17 times fewer than the blind formula, still about 230 times the
# program, and doubling every line. A computer algebra system can shrink a formula further
# by naming repeated pieces once, which is what the record does.
#
# <!-- claim: ch01-expression-swell -->
# </details>
#
# The next chapter takes the first step towards automatic differentiation: a number that
# remembers how it was computed.
#
# ## Exercises
#
# ### 1. A slope to nine digits (design the nudge)
#
# Write `slope(g, x)`: the slope of any smooth `g` at `x` by nudging, correct to nine
# significant digits. Which difference and which $h$? The error plot is your guide. Try
# $g(x) = x^3 - 2x$ at $x = 1.5$ (slope 4.75) and watch which digits stop changing as you
# change $h$. The check tries other functions and points: one lucky $h$ is not enough.


# %%
def slope(g, x):
    return 0.0  # replace: nudge x, and estimate g's slope at x to nine digits


check_slope(slope)

# %%
reveal("ch01.slope")

# %% [markdown]
# ### 2. Predict the best nudge
#
# Take $f(x) = x^2 + 1000$ at $x = 1$ (slope 2) and the forward difference. Its truncation
# error is about $\frac{|f''(x)|}{2} \cdot h$ (here $f'' = 2$), its round-off about
# $\varepsilon \cdot |f(x)| / h$. *Before measuring*, work out the $h$ where the two are
# equal: there their sum is smallest. Is it larger or smaller than the best $h$ for $x^3$
# at 2, and why? Then measure with your $h$, ten times more and ten times less.

# %%
best_nudge = None  # replace with your prediction (a number, or a calculation giving it)
check_best_h(best_nudge)

# %%
reveal("ch01.best_h")

# %% [markdown]
# ### 3. A whole gradient by nudging
#
# Write `numerical_gradient(fn, inputs)`: `fn(*inputs)` returns one number; return one
# partial derivative per input, by central differences with $h = 10^{-6}$.


# %%
def numerical_gradient(fn, inputs):
    return [0.0 for _ in inputs]  # replace: one slope per input


check_numerical_gradient(numerical_gradient)

# %%
reveal("ch01.numerical_gradient")

# %% [markdown]
# Next: **chapter 2**, where a number learns to remember how it was computed, and we draw
# the record it keeps.
