# %% [markdown]
# # Chapter 1 — Derivatives by nudging
#
# Training a neural network comes down to one question, asked millions of times:
# *if I turn this knob a little, does the loss go up or down, and by how much?*
# The answer is a **derivative**. Before we build any machinery to compute
# derivatives automatically, this chapter gets a feel for what a derivative *is*, using
# nothing but a function and a tiny nudge.
#
# By the end you will have computed slopes by nudging, seen exactly how accurate (and
# inaccurate) nudging is, counted why it is far too slow for a network, and met the
# three ways of getting a derivative side by side. The third one, automatic
# differentiation, is what the rest of the course builds.

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
# Start with an ordinary parabola, $f(x) = 3x^2 - 4x + 5$. In words: square the input,
# multiply by three, subtract four times the input, add five. It takes one number and
# returns one number, and we can evaluate it anywhere.


# %%
def f(x):
    return 3 * x**2 - 4 * x + 5


print(f"f(3) = {f(3.0):.4f}")
print(f"f(0) = {f(0.0):.4f}")
print(f"f(-1) = {f(-1.0):.4f}")

# %% [markdown]
# So $f(3) = 20$, $f(0) = 5$ and $f(-1) = 12$. The plot below shows the whole curve.
# The orange line touches the curve at $x = 3$ without crossing it: that is the
# **tangent line**, and its steepness is the derivative of $f$ at 3. The green line is
# the tangent at the bottom of the bowl, where the curve is momentarily flat.

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
# How do we measure the steepness at $x = 3$ without calculus? Nudge the input by a
# small amount $h$, see how much the output moves, and divide:
#
# $$\text{slope} \approx \frac{f(x + h) - f(x)}{h}.$$
#
# In words: *rise over run*, for a very short run. If the output moves up by 14 times
# as much as the input did, the slope is 14. The smaller $h$, the closer the straight
# line between the two points hugs the curve.

# %%
x = 3.0
for h in [0.1, 0.01, 0.001, 0.0001]:
    slope = (f(x + h) - f(x)) / h
    print(f"h = {h:<7} f(x + h) - f(x) = {f(x + h) - f(x):.8f}   slope = {slope:.4f}")

# %% [markdown]
# The estimates 14.3, 14.03, 14.003, 14.0003 close in on **14**, and each time $h$
# shrinks tenfold the error shrinks tenfold too. Calculus gives the exact answer:
# the derivative of $3x^2 - 4x + 5$ is $f'(x) = 6x - 4$, and $6 \cdot 3 - 4 = 14$.
#
# The sign matters as much as the size. At $x = -1$ the slope is negative (moving right
# goes downhill), and at $x = 2/3$ it is zero: we are at the bottom of the bowl, where a
# small nudge in either direction barely changes $f$. Finding the spot where the slope is
# zero is exactly what training a network does, in many dimensions at once.

# %%
h = 1e-6
for x in [-1.0, 2 / 3, 3.0]:
    slope = (f(x + h) - f(x)) / h
    print(f"x = {x:.4f}   slope by nudging = {slope:.4f}   exact 6x - 4 = {6 * x - 4:.4f}")

# %% [markdown]
# With $h = 10^{-6}$ the nudge gives a slope of $-10.0000$ at $x = -1$, $0.0000$ at
# $x = 2/3$ and $14.0000$ at $x = 3$, matching $6x - 4$ to four decimals.
#
# ## Several inputs: one nudge each
#
# A network's loss depends on many numbers at once. With several inputs we nudge **one
# at a time**, holding the others fixed, and get one slope per input: the *partial
# derivatives*. Take $d = a \cdot b + c$ at $a = 2$, $b = -3$, $c = 10$.


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
# Here $d = 4$, and the three partial derivatives are $\partial d/\partial a \approx -3$,
# $\partial d/\partial b \approx 2$ and $\partial d/\partial c \approx 1$. Each one makes
# sense on its own:
#
# - Nudging $a$ up adds $h$ copies of $b$ to the product, and $b = -3$, so $d$ *falls*
#   three times as fast as $a$ rises: the slope with respect to $a$ is the value of $b$.
# - By the same reasoning the slope with respect to $b$ is the value of $a$, which is 2.
# - $c$ is simply added, so whatever you add to $c$ is added to $d$: slope 1.
#
# Remember these two patterns, "a product's slope is the *other* factor" and "a sum
# passes the nudge straight through". Chapter 3 is built on them.
#
# ## Forward or central difference?
#
# So far we nudged only forwards. A **central difference** nudges both ways and divides
# by the full distance $2h$:
#
# $$\frac{f(x + h) - f(x - h)}{2h}.$$
#
# Written out, the two recipes are one line each:


# %%
def my_forward_difference(fn, x, h):
    return (fn(x + h) - fn(x)) / h


def my_central_difference(fn, x, h):
    return (fn(x + h) - fn(x - h)) / (2 * h)


for h in [0.1, 0.01]:
    fwd, cen = my_forward_difference(f, 3.0, h), my_central_difference(f, 3.0, h)
    print(f"h = {h:<5} forward = {fwd:.6f}   central = {cen:.6f}")

# %% [markdown]
# On our parabola the central difference is already spot on with a clumsy $h = 0.1$,
# while the forward one is off by $0.3$. That is no accident. A forward difference
# measures the slope of a chord that starts at $x$ and leans into the curve; the central
# one balances a chord leaning one way against one leaning the other, and for a parabola
# the two leans cancel exactly.
#
# The package `micrograd_lesson` holds the same two functions, `forward_difference` and
# `central_difference` (with a default $h = 10^{-6}$); from now on we use those.

# %%
print(f"forward_difference(f, 3.0) = {forward_difference(f, 3.0):.6f}")
print(f"central_difference(f, 3.0) = {central_difference(f, 3.0):.6f}")

# %% [markdown]
# ### How small should h be? The U-shaped error
#
# It seems we should make $h$ as tiny as possible. We cannot, because a computer stores a
# number with about 16 significant digits. The gap between $1$ and the next number a
# float can hold is called **machine epsilon**, $\varepsilon \approx 2.2 \cdot 10^{-16}$;
# near a value $y$ the gaps are about $\varepsilon \cdot |y|$ wide, and every result is
# rounded to fit. When $h$ is tiny, $f(x + h)$ and $f(x)$ agree in almost all of their
# digits, so their difference is mostly that rounding, about $\varepsilon \cdot |f(x)|$ in
# size, and dividing it by the tiny $h$ blows it up.
#
# Two errors pull against each other:
#
# - **truncation error**, from using a chord instead of the tangent, shrinks as $h$ shrinks;
# - **round-off error**, from finite precision, grows as $h$ shrinks, roughly like
#   $\varepsilon \cdot |f(x)| / h$.
#
# To see both, we need a function whose exact derivative we know and where the central
# difference is *not* exact, so we switch to $g(x) = x^3$ at $x = 2$, whose derivative is
# $3x^2 = 12$. Here $|g(2)| = 8$, so the round-off estimate is
# $8 \varepsilon / h \approx 1.8 \cdot 10^{-15} / h$. We try 57 values of $h$ from
# $10^{-1}$ down to $10^{-15}$ and plot the error of each method against $h$, with both
# axes logarithmic.


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


def bottom_median(difference, fn, x, exact_slope, h_low, h_high, points=81):
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

fig, ax = plt.subplots(figsize=(7.5, 4.5))
ax.loglog(hs, err_forward, "o-", markersize=3, label="forward difference")
ax.loglog(hs, err_central, "s-", markersize=3, label="central difference")
ax.loglog(hs, 6 * hs, ":", color="gray", label="truncation 6h (slope 1)")
ax.loglog(hs, hs**2, "--", color="gray", label="truncation h² (slope 2)")
ax.loglog(
    hs, roundoff / hs, "-.", color="#D55E00", alpha=0.7, label="round-off ε·|g(2)| / h ≈ 1.8e-15 / h"
)
ax.set_ylim(1e-13, 10)
ax.invert_xaxis()
ax.set_xlabel("nudge h (getting smaller to the right)")
ax.set_ylabel("|estimate - exact slope|")
ax.set_title("Error of g'(2) for g(x) = x³: truncation falls, round-off rises")
ax.legend(fontsize=8, loc="upper center")
ax.grid(True, which="major", alpha=0.3)
describe_figure(
    fig,
    "Read right to left along h: both errors first fall, the forward difference's along "
    "slope 1 and the central difference's along slope 2, until round-off takes over and "
    "they rise again along 1/h.",
)
plt.show()

# %% [markdown]
# Read the plot from left to right, as $h$ shrinks.
#
# - On the left, truncation error dominates. The forward error falls along a line of
#   slope **1** (the fit gives 1.00): ten times smaller $h$, ten times smaller error. For
#   $g(x) = x^3$ the forward error is exactly $6h + h^2$, mostly the $6h$ term.
# - The central error falls along a line of slope **2** (the fit gives 2.00): ten times
#   smaller $h$, a *hundred* times smaller error. Its error is exactly $h^2$, because the
#   first-order parts of the two leaning chords cancel and only a second-order part is
#   left.
# - These slopes are not special to $x^3$ at 2. The course's tests fit them for $x^3$,
#   $e^x$ and $1/x$ at random points between 0.5 and 3: 0.99 to 1.00 and 2.00 every
#   time. (They change only where the term they come from vanishes: where $f'' = 0$ the
#   forward error falls like $h^2$ instead.) <!-- claim: ch01-error-slopes -->
# - On the right, both curves turn around and climb, noisily, along the red line
#   $\varepsilon \cdot |g(2)| / h$. For every $h$ of $10^{-9}$ or less the measured errors
#   follow that estimate from below, or just above it: never more than 1.5 times it for
#   the forward difference and 0.75 times it for the central one (1.45 and 0.70 on the
#   plotted $h$; the course's tests refine the grid of $h$ a thousand times). Past the
#   turn, a smaller $h$ makes the estimate *worse*. That "just above" belongs to this
#   point. The course's tests measure the same ratio for $x^3$, $e^x$ and $\sin$ at five
#   random points between 0.5 and 3, on 200 draws (the prose's numbers come from seeds
#   1000 to 1199): on the plotted values of $h$, it stays under 4 at every point for $x^3$
#   and $e^x$, but for $\sin$ the worst point of a draw passes 4 on about one draw in five
#   (more often on a finer grid of $h$, which can only find larger errors), always near
#   $\pi$. The cell below looks at three points approaching $\pi$.

# %%
# the same forward differences of sin, once with h as given and once with the step the computer
# really takes: x + h is rounded, and subtracting x back is exact, so (x + h) - x is that step
small_hs = hs[hs <= 1e-9]
for x in (2.7, 3.0, 3.1):
    estimate = eps * abs(math.sin(x))  # the round-off estimate is estimate / h
    as_given = max(abs(forward_difference(math.sin, x, h) - math.cos(x)) * h for h in small_hs)
    steps = [(x + h) - x for h in small_hs]
    taken = max(abs(forward_difference(math.sin, x, t) - math.cos(x)) * t for t in steps)
    print(
        f"sin at x = {x}: worst error / estimate with h as given {as_given / estimate:5.2f}, "
        f"with the step taken {taken / estimate:.2f}"
    )

# %% [markdown]
# With $h$ as given, the worst error near $\pi$ is up to 23 times the estimate; with the
# step the computer really takes, it is under 1. So the extra error comes from rounding
# $x + h$: the estimate leaves that rounding out. It is up to about $\varepsilon |x| / 2$,
# which moves $f$ by up to about $\varepsilon\,|x f'(x)| / 2$, large next to $|f(x)|$
# near $\pi$. With that term added to the estimate,
# $\varepsilon\,(|f(x)| + |x f'(x)| / 2) / h$, no case on any of the 200 draws exceeds 1.5
# times it, and $x^3$ comes closest. <!-- claim: ch01-roundoff-within-a-few-estimates -->
#
# On ordinary axes each error curve would be a lopsided U. On these log-log axes a power
# of $h$ is a straight line, so each curve is a V: a falling line (truncation) and a
# rising one (round-off) that meet where the two errors are equal. For the forward
# difference that is where $6h = \varepsilon |g(2)| / h$, at $h \approx 1.7 \cdot 10^{-8}$:
# its best nudge is near $h = 2 \cdot 10^{-8}$. The central difference's truncation line is
# steeper, so it meets the round-off line sooner, at $h \approx 1.2 \cdot 10^{-5}$, and lower.
#
# Single points near the bottoms are partly luck: a rounding error can cancel part of the
# truncation error. The central difference's smallest error, $2 \cdot 10^{-11}$ at
# $h = 3 \cdot 10^{-6}$, has neighbours on the plot 4 and 44 times worse, and a ten times
# finer grid of $h$ finds luckier points still, for both methods. So compare the bottoms as
# a whole: over two decades of $h$ around each meeting point, the forward difference's
# median error is $3 \cdot 10^{-7}$ and the central one's $4 \cdot 10^{-10}$, about 600 times
# lower. That factor hardly moves when the 81 values of $h$ in each band become 8,001: it
# stays between 500 and 800. <!-- claim: ch01-central-bottom-lower -->
#
# That factor of about 600 belongs to this one function at this one point. Is central
# always better? The cell below repeats the comparison on 20 other cases: four functions
# ($x^3$, $\sin$, $e^x$, $1/x$), each at five random points between 0.5 and 3.


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
# Over these 20 cases the forward difference's median error around its V's bottom is 200 to
# 3,365 times the central one's. At the same, reasonable $h = 10^{-6}$ the gap is wider: the
# central error is 1,617 to 211,245 times smaller. Neither factor is special to this draw.
# On 200 other draws of the points (seeds 1000 to 1199; the course's tests re-run 30 draws
# that no page shows), bottom against bottom, the central difference wins in every
# case, by more than 40 times, and by more than 100 times in about 98 % of cases; at
# $h = 10^{-6}$ it wins in every case by more than 100 times, and by more than 1,000 times in
# about 99 % of cases. <!-- claim: ch01-central-at-1e-6 --> At $h = 10^{-6}$ the factor is
# smallest where the curve's bend, $f''$, is close to zero (here $\sin$ near 3), since that
# bend is what the forward difference gets wrong. That is why `central_difference` is the one
# we will use to check gradients in chapter 6, with $h = 10^{-6}$ as a safe middle ground.
#
# ## Why nudging does not scale
#
# Nudging is simple and works on any function we can call, so why not train networks with
# it? Count the cost. To get the slope for *every* input we need one evaluation at the
# starting point plus one nudged evaluation per input. A function of $n$ inputs costs
# $n + 1$ evaluations per gradient with forward differences (and $2n$ with central ones).
#
# Let us count for real. Below is a small network (chapter 7 explains what it is; here it
# is just a function) with **41 parameters**: 3 inputs, two hidden layers of 4 `tanh`
# units, and one output, scored on four examples. A counter records each time the loss is
# evaluated.

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
# Now the gradient by forward differences: one evaluation at the starting point, then
# one per parameter with only that parameter nudged.

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
# **42 evaluations** for one gradient of a 41-parameter function: one more than the
# number of parameters, as predicted. Training repeats that for every step.
#
# Compare what is coming. Below, the same function runs once on the package's finished
# `Value` objects, which you will build yourself over chapters 2 to 5, and a single call
# to `backward()` fills in all 41 partial derivatives.

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
# $1.3932$ and $-0.4998$. Over all 41 they differ from the nudged ones by up to
# $1.3 \cdot 10^{-5}$ (first line below). Is that gap the backward pass's fault, or the
# nudging's? Change only the nudging, from forward to central differences with the same
# $h$, and compare again (second line):


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
# With central differences the gap shrinks from below $10^{-4}$ to below $10^{-8}$ (about
# $1.3 \cdot 10^{-5}$ and 2 to $3 \cdot 10^{-9}$), with the backward pass unchanged. Was the gap
# the forward difference's own truncation error? That error is known: to first order a
# forward difference overshoots by $\frac{h}{2} \partial^2 L / \partial p_i^2$. The third
# line subtracts exactly that (with the second derivative itself estimated by nudging), and
# the gap falls below $10^{-8}$ too: nothing is left for the backward pass to be blamed for.
# The same happens for other random weights. On 1,000 other draws of the 41 weights (seeds
# 310,000 to 310,999) the forward gap was from $4 \cdot 10^{-6}$ (the median, $4.3 \cdot 10^{-6}$)
# up to $3.5 \cdot 10^{-5}$, the central one at most $1.0 \cdot 10^{-8}$, and the corrected one
# at most $1.5 \cdot 10^{-8}$ (what is left is the forward difference's round-off): always more
# than 100 times below the forward gap (at least 280 times). The course's tests check on draws
# no page shows that the three stay below $10^{-4}$, $5 \cdot 10^{-8}$ and $10^{-7}$, and the
# last two more than 100 times below the first. <!-- claim: ch01-gap-is-truncation -->
#
# For a network with a million parameters, nudging would need a million and one
# evaluations per gradient, and each evaluation itself touches all million parameters:
# about $10^{12}$ operations for a single step.
#
# What does the backward pass cost? Running `loss_of` on `Value`s recorded every
# operation it did, and the backward pass (chapter 4 builds it) visits each recorded
# operation once and does one multiply-add for each of its inputs. So we can count both
# sides on the record itself:

# %%
order = loss.topological_order()  # every value in the record, each after its inputs
operations = [v for v in order if v._prev]
arrows = sum(len(v._prev) for v in operations)
print(f"operations run by the evaluation: {len(operations)}")
print(f"most inputs of any one operation: {max(len(v._prev) for v in operations)}")
print(f"multiply-adds in the backward pass: {arrows} ({arrows / len(operations):.2f} per operation)")

# %% [markdown]
# The evaluation ran 336 operations, and the backward pass does 636 multiply-adds, 1.89
# per operation. No operation has more than 2 inputs, so the backward pass can
# never cost more than about twice the evaluation, whatever the number of parameters.
# That holds for a function with **one output**, like a loss: one backward pass gives the
# derivatives of that one number with respect to every input. A function with $m$
# outputs would need $m$ backward passes for all of their derivatives. Running the chain
# rule backwards from the output like this is called **reverse mode** (there is also a
# forward mode, which carries derivatives along with the values, one input at a time), and
# it suits training, where everything is summed into a single loss.
# <!-- claim: ch01-backward-at-most-twice -->
#
# Now the cost of one gradient at four sizes. The 41 is our network above. The 337 is the
# network chapter 9 trains to classify points in the plane: 2 inputs, two hidden layers
# of 16 units and one output, so $(2 + 1) \cdot 16 + (16 + 1) \cdot 16 + (16 + 1) = 337$
# weights and biases (chapter 7 explains the counting). The other two are round sizes
# on the way to a real network.

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
# ## Three ways to get a derivative
#
# There are three ways to get a derivative out of a computer, and it helps to see them
# side by side on our parabola.
#
# 1. **Symbolic**: apply the rules of calculus to the *formula* and write down a new
#    formula. By hand, $f'(x) = 6x - 4$. Exact, but you need the formula, and for a big
#    program the derivative formula can grow far larger than the program (the product
#    rule turns $uv$ into two terms, $u'v + uv'$, each carrying a copy of a factor).
# 2. **Numerical**: nudge and measure, as in this chapter. Needs nothing but the ability
#    to call the function, but it is approximate and costs one evaluation per input.
# 3. **Automatic**: run the program once while recording each elementary operation, then
#    apply the chain rule to the record, backwards. Exact up to rounding, and one
#    backward pass gives every partial derivative. This is what PyTorch's
#    `loss.backward()` does, and what this course builds.


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
# All three agree at every point: $-10$ at $x = -1$, $-4$ at $0$, $0$ at $2/3$ and $14$
# at $3$. The numerical column prints $-0.0000$ at $x = 2/3$: the last two lines show
# it is $-2.22 \cdot 10^{-10}$, while the other two methods give exactly zero. That is
# round-off, and its size can be read off: $f(x + h)$ and $f(x - h)$ differ by
# $-4.44 \cdot 10^{-16}$, exactly one gap between neighbouring floats near
# $f(2/3) \approx 3.67$, and dividing by $2h = 2 \cdot 10^{-6}$ gives $-2.22 \cdot 10^{-10}$.
#
# The three methods differ in what they need and what they cost:
#
# | method | needs | accuracy | cost for n inputs |
# |---|---|---|---|
# | symbolic | the formula | exact | the formula can grow far larger than the program (below) |
# | numerical | the ability to call f | approximate (the V above) | 2n evaluations with central differences (n + 1 with forward) |
# | automatic | the program, run once | exact up to rounding | 1 evaluation + 1 backward pass (for one output), and memory for the record: every value the evaluation computed (336 for our 41 weights) |
#
# Automatic differentiation buys its speed with memory: the backward pass needs every value
# the evaluation computed, so the whole record stays in memory until the backward pass has
# used it, where nudging keeps nothing between two evaluations.
#
# ### How large can the derivative formula get?
#
# The first row says the symbolic derivative "can grow far larger than the program". Here
# is a program where it does. Each of its $n$ lines is the same nested product,
# `y = 4*y*(1 - y)`, starting from `y = x`: three operations per line. Written as one
# formula, `y` contains the previous `y` twice, so the formula doubles with every line.
# Its derivative, by the product rule $(uv)' = u'v + uv'$, contains the previous `y`
# twice *and* the previous derivative twice. The cell builds both formulas as text,
# applying the rules blindly with no simplification, counts their operations, checks
# that the derivative formula really is the derivative (against `backward()` at
# $x = 0.3$), and counts the operations that `Value` records for the same program.


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
# <!-- claim: ch01-expression-swell -->
# At $n = 12$ lines the program runs 36 operations, and `Value` records exactly those 36.
# The formula for `y` written out has 12,285 operations, and the formula for its
# derivative 143,361, about 4,000 times the program. Every extra line multiplies the
# derivative formula by 2.19 to 4.20 (the factor settles towards 2), while the program
# grows by 3 operations. On the log scale the derivative formula keeps climbing, while
# the program and the `Value` record (the same 3 operations per line, drawn on top of each
# other) barely rise.
#
# Would multiplying the formula out help? It does, but not enough. Multiplied out, `y` is
# a polynomial whose degree doubles with every line ($2^n$, as the last lines print for
# $n \le 6$), so its derivative has degree $2^n - 1$. Even in Horner's form, the cheapest
# general way to evaluate a polynomial of degree $d$ ($d$ multiplications and $d$ additions), that
# is $2 \cdot (2^{12} - 1) = 8{,}190$ operations at $n = 12$: about 17 times fewer than the
# 143,361 of the blind formula, and still about 230 times the program's 36, doubling with every
# line where the program adds 3. A computer algebra system can shrink the formula further by
# spotting repeated pieces and naming them once, and naming each intermediate value once is
# exactly what the record of automatic differentiation does.
#
# The next chapter takes the first step towards automatic differentiation: a number that
# remembers how it was computed.
#
# ## Exercises
#
# ### 1. A slope to nine digits (design the nudge)
#
# Write `slope(g, x)`: the slope of any smooth function `g` at `x`, by nudging alone,
# correct to nine significant digits (within one part in $10^9$). Which difference, and
# which $h$, can reach that accuracy? The error plot above is your guide: try it first on
# $g(x) = x^3 - 2x$ at $x = 1.5$, whose slope is $3 \cdot 1.5^2 - 2 = 4.75$, and watch
# which digits stop changing as you change $h$. The check then tries your function on
# $\sin$, $\exp$ and $\log$ and at other points, so one lucky $h$ is not enough.


# %%
def slope(g, x):
    return 0.0  # replace: nudge x, and estimate g's slope at x to nine digits


check_slope(slope)

# %%
reveal("ch01.slope")

# %% [markdown]
# ### 2. Predict the best nudge
#
# Take $f(x) = x^2 + 1000$ at $x = 1$, where the slope is exactly 2, and the forward
# difference. Its truncation error is about $\frac{|f''(x)|}{2} \cdot h$ (here
# $f'' = 2$ everywhere), and its round-off error about $\varepsilon \cdot |f(x)| / h$, as in
# the plot above. *Before measuring anything*, work out the $h$ at which the two errors
# are equal: that is where their sum is smallest. Is it larger or smaller than the best
# $h$ for $x^3$ at 2, and why? Then, if you like, measure: nudge with your $h$, with ten
# times more and with ten times less, and compare the three errors.

# %%
best_nudge = None  # replace with your prediction (a number, or a calculation giving it)
check_best_h(best_nudge)

# %%
reveal("ch01.best_h")

# %% [markdown]
# ### 3. A whole gradient by nudging
#
# Write `numerical_gradient(fn, inputs)`: `fn` takes several numbers (as `fn(*inputs)`)
# and returns one; return a list with one partial derivative per input, nudging one input
# at a time. Use the central difference with $h = 10^{-6}$.


# %%
def numerical_gradient(fn, inputs):
    return [0.0 for _ in inputs]  # replace: one slope per input


check_numerical_gradient(numerical_gradient)

# %%
reveal("ch01.numerical_gradient")

# %% [markdown]
# Next: **chapter 2**, where a number learns to remember how it was computed, and we draw
# the record it keeps.
