# %% [markdown]
# # Chapter 9 — A real classifier
#
# Chapter 8 trained a network to hit four target numbers. This chapter trains one to
# *classify*: to look at a point in the plane and say which of two groups it belongs to.
# The data set is the classic "two moons", two interleaved crescents that no straight
# line can separate. The network is `MLP(2, [16, 16, 1])`, 337 parameters, the same
# size the original micrograd demo used, and by the end it sorts every one of its 100
# training points correctly.
#
# Three new ideas come with the harder task:
#
# - a loss made for classification, the **max-margin** (hinge) loss, which cares about
#   being on the right side of the boundary by a safe distance, not about hitting an
#   exact number;
# - **L2 regularisation**, a small extra cost on large weights that keeps the boundary
#   smooth;
# - a **decaying learning rate**, big steps early, small steps late.
#
# And we *watch* the classifier learn: the boundary it draws, snapshots of that boundary
# during training, and a slider to move through them.

# %%
import gc
import random

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from micrograd_lesson import MLP, Value, draw_dot, fit, frame_slider, make_moons, plot_decision_boundary

SEED = 0
random.seed(SEED)  # the network's starting weights
X, y = make_moons(100, noise=0.1, seed=SEED)  # the data: NumPy, seeded separately

# %% [markdown]
# ## The data: two moons
#
# `make_moons(100, noise=0.1, seed=0)` returns 100 points: an array `X` of shape
# (100, 2), one row per point, and an array `y` of 100 labels, −1 or +1. Half the points
# lie along an upper arc (label −1, red), half along a lower arc shifted right and down
# (label +1, blue), and every point is nudged by random noise of size about 0.1. The
# two arcs hook into each other, so the boundary between the classes has to bend twice.

# %%
print(f"X has shape {X.shape}, y has shape {y.shape}")
print(f"labels: {np.sum(y == -1)} of class -1, {np.sum(y == 1)} of class +1")
for point, label in zip(X[:3], y[:3]):
    print(f"  point ({point[0]:+.4f}, {point[1]:+.4f})  label {label:+d}")

fig, ax = plt.subplots(figsize=(6, 4.2))
ax.scatter(*X[y == -1].T, c="#c0392b", edgecolors="k", s=28, label="class -1")
ax.scatter(*X[y == 1].T, c="#2e5cb8", edgecolors="k", s=28, label="class +1")
ax.set_xlabel("x1")
ax.set_ylabel("x2")
ax.set_title("make_moons(100, noise=0.1, seed=0)")
ax.legend(loc="upper right")
ax.set_aspect("equal")
plt.show()

# %% [markdown]
# ## The model and its score
#
# The network takes the two coordinates of a point and returns one number, its
# **score**. The sign of the score is the prediction: above 0 means "class +1", below 0
# means "class −1". How far the score is from 0 is the network's confidence. The hidden
# layers use ReLU, $\text{relu}(a) = \max(0, a)$, as the original micrograd demo did;
# the last layer is linear, so the score can be any number.

# %%
model = MLP(2, [16, 16, 1])  # ReLU hidden layers, linear output
params = model.parameters()
xs, ys = X.tolist(), y.tolist()  # plain Python lists for the scalar engine
print(f"layer widths {[len(layer.neurons) for layer in model.layers]}, {len(params)} parameters")
scores = [model(x) for x in xs]
correct = sum((s.data > 0) == (label > 0) for s, label in zip(scores, ys))
print(f"before training: {correct} of {len(ys)} points on the right side")

# %% [markdown]
# With its random starting weights the network puts 50 of the 100 points on the right
# side: no better than a coin.
#
# ## The max-margin loss
#
# For classification the squared error of chapter 8 is a poor fit: it would punish a
# score of +5 for a +1 point, although +5 is a confident and correct answer. The
# **max-margin** or **hinge** loss asks only for the right side, with a safety gap. For
# one point with label $y$ and score $s$, call $y \cdot s$ its **margin**: positive when
# the prediction is right, negative when wrong, and larger the more confident. The loss
# is
#
# $$\ell(s, y) = \max(0,\ 1 - y \cdot s)$$
#
# In words: a point whose margin is at least 1 costs nothing; every point with a
# smaller margin (a wrong one, or a right one too close to the boundary) costs 1 minus
# its margin. The gradient follows: $\partial \ell / \partial s = -y$ while the margin is
# below 1 and 0 after that, so training pushes only on the points still in trouble.
#
# In the engine it is one line, `(1 - y * s).relu()`, because $\max(0, a)$ is exactly
# ReLU. Here are two points drawn as graphs, after `backward()`, with their scores
# treated as inputs: a +1 point with score 0.4 (right side, but margin 0.4 < 1) and a
# +1 point with score 1.5 (margin 1.5, safe).

# %%
for score in (0.4, 1.5):
    s = Value(score, label="score s")
    label = Value(1.0, label="label y")
    margin = label * s
    margin.label = "margin y·s"
    point_loss = (Value(1.0, label="one") - margin).relu()
    point_loss.label = "loss"
    point_loss.backward()
    print(
        f"score {score}: margin {margin.data:.1f}, loss {point_loss.data:.4f}, d loss / d score = {s.grad:+.4f}"
    )
    display(draw_dot(point_loss, rankdir="TB"))

# %% [markdown]
# The first point costs 0.6000 and its score gets gradient −1.0000: a step against the
# gradient raises the score, pushing the point deeper into its own side. The second
# costs 0.0000 and gets gradient 0.0000: ReLU passes nothing back for a negative input,
# so a safe point is left alone. The plot shows the whole curve beside chapter 8's
# squared error $(s - 1)^2$ for a +1 point; only the hinge stays at zero for confident
# correct answers.

# %%
margins = np.linspace(-2, 3, 201)
fig, ax = plt.subplots(figsize=(7, 3.8))
ax.plot(margins, np.maximum(0, 1 - margins), color="#2e5cb8", linewidth=2, label="hinge: max(0, 1 - y·s)")
ax.plot(margins, (margins - 1) ** 2, color="#999999", linestyle="--", label="squared error: (y·s - 1)²")
ax.axvline(0, color="k", linewidth=0.8)
ax.axvline(1, color="#2e5cb8", linewidth=0.8, linestyle=":")
ax.annotate("wrong side", (-1.6, 3.3))
ax.annotate("right side,\ntoo close", (0.05, 3.0))
ax.annotate("safe: no loss", (1.6, 0.3))
ax.set_ylim(-0.2, 4)
ax.set_xlabel("margin y·s")
ax.set_ylabel("loss for one point")
ax.set_title("The hinge loss ignores points beyond margin 1")
ax.legend(loc="lower left")
ax.grid(True, alpha=0.3)
plt.show()

# %% [markdown]
# ## Regularisation and the full loss
#
# A network with 337 parameters can bend its boundary into any shape, including
# absurd ones that thread between individual noisy points. **L2 regularisation** adds a
# small price on large weights:
#
# $$L = \frac{1}{n}\sum_{i=1}^{n} \max(0,\ 1 - y_i s_i) \;+\; \alpha \sum_{p} p^2, \qquad \alpha = 10^{-4}$$
#
# In words: the average hinge loss over the $n = 100$ points, plus $\alpha$ times the
# sum of the squares of all 337 parameters. Its gradient, $2\alpha p$ for each
# parameter, pulls every weight a little towards 0 on every step ("weight decay"), so a
# weight only stays large if the data keep asking for it. Smaller weights mean a
# smoother score and a smoother boundary. The `loss_fn` below returns the loss and,
# as extras for `fit` to record, the accuracy: the fraction of points whose score has
# the sign of their label.

# %%
ALPHA = 1e-4


def loss_fn():
    scores = [model(x) for x in xs]  # 100 forward passes: one new graph
    data_loss = sum((1 - label * s).relu() for s, label in zip(scores, ys)) * (1.0 / len(ys))
    reg_loss = ALPHA * sum(p * p for p in params)
    accuracy = sum((s.data > 0) == (label > 0) for s, label in zip(scores, ys)) / len(ys)
    return data_loss + reg_loss, {"accuracy": accuracy, "data loss": data_loss.data}


loss, extras = loss_fn()
print(
    f"loss at the start: {loss.data:.4f} (hinge {extras['data loss']:.4f} + L2 {loss.data - extras['data loss']:.4f})"
)
print(f"nodes in one graph: {len(loss.topological_order())}")

# %% [markdown]
# The starting loss is 0.9474, almost all of it hinge loss (0.9375); the L2 term adds
# only 0.0099. The graph behind this one number has 68,818 nodes, and `backward()` has to
# visit every one of them on every step. That is why this chapter's training is the
# slowest code in the course so far.
#
# ## A learning rate that decays
#
# Early in training the network is far from any good answer, and big steps make fast
# progress. Late in training it is close, and big steps make it bounce around the
# answer instead of settling. So the rate shrinks as training goes on:
#
# $$\eta_k = 1.0 - 0.9 \cdot \frac{k}{100}, \qquad k = 0, 1, \dots, 99$$
#
# In words: start at 1.0 and fall in a straight line, by 0.009 per step, to 0.109 at the
# last step. `fit` accepts the schedule as a function of the step number.
#
# ## Training, with progress
#
# Now 100 steps of the four-line loop: each one builds the 68,818-node graph, runs
# `backward()` through it, and updates 337 parameters. That takes a while, so `fit`
# shows a progress bar with the latest loss and accuracy while it runs (in Jupyter; a
# stored copy of the notebook keeps only a one-line note of it). Along the way a
# `callback` copies the parameters at chosen steps, so that we can redraw the boundary
# of any of those moments later without training again.
#
# One practical trick makes the run several times faster (three to four times on the
# machine that built this notebook). Every step creates a few hundred thousand Python
# objects (each `Value` plus the tuples of its inputs and local derivatives). Python's
# *cycle collector*, the part of its memory management that hunts for objects referring
# to each other in a loop, wakes up after every 700 new objects (its default threshold),
# and now and then rescans everything alive, including the half-built graph. Our graphs
# contain no loops (a node points only to its inputs), so plain reference counting frees
# each one as soon as the step is over, and those scans find nothing. `gc.disable()`
# pauses the collector for the training run and `gc.enable()` restores it. Chapter 12
# measures this cost and others like it.

# %%
SNAPSHOT_STEPS = [0, 2, 4, 6, 8, 10, 15, 20, 30, 40, 50, 60, 70, 80, 90, 100]
snapshots = {0: [p.data for p in params]}  # the parameters before any update


def take_snapshot(step, history):
    """Called by fit after every update; step = updates made so far."""
    if step in SNAPSHOT_STEPS:
        snapshots[step] = [p.data for p in params]


def schedule(k):
    return 1.0 - 0.9 * k / 100


gc.disable()  # pause the cycle collector while training (see above)
try:
    history = fit(model, loss_fn, steps=100, lr=schedule, callback=take_snapshot)
finally:
    gc.enable()

for k in range(0, 100, 10):
    print(
        f"step {k:3d}: lr {history.lr[k]:.3f}  loss {history.loss[k]:.4f}"
        f"  accuracy {history['accuracy'][k]:.0%}"
    )

# %% [markdown]
# Each line shows the rate used at that step and the loss and accuracy measured just
# before its update (so the line for step 10 describes the network after 10 updates).
# Accuracy climbs from a coin flip, 50 %, to 94 % after 10 updates, 98 % after 30, and
# 100 % by step 40. After that the loss keeps falling, from 0.0270 to about 0.011, as
# the network widens the margins of points that are already right. One more forward
# pass after the last update measures where the network ends:

# %%
final_loss, final = loss_fn()
print(f"after 100 updates: loss {final_loss.data:.4f}, training accuracy {final['accuracy']:.0%}")
wrong = [i for i, x in enumerate(xs) if (model(x).data > 0) != (ys[i] > 0)]
print(f"misclassified points: {wrong}")
safe = next(k for k, v in enumerate(history["data loss"]) if v == 0)
print(f"first step where every point has margin >= 1 (hinge part exactly 0): {safe}")
print(f"hinge part 0 on every step after that: {all(v == 0 for v in history['data loss'][safe:])}")

# %% [markdown]
# **100 % training accuracy**: every one of the 100 points is on its own side of the
# boundary, and the loss is down to 0.0114. (Training accuracy is measured on the points
# the network learned from; the real test of a classifier is new points from the same
# moons, which we try at the end of the chapter.)
#
# The curves below tell the story: the loss falls fastest in the first dozen steps,
# while the learning rate is high (after a jump at step 2, where the first big steps
# overshoot); accuracy passes 90 % within 10 steps; the last
# points to be sorted are the few nearest the other moon. The hinge part (dashed)
# keeps falling after accuracy reaches 100 %, because points that are right but within
# margin 1 still cost something, until at step 77 every point is beyond margin 1 and the
# hinge part is exactly 0 (it leaves the log-scale plot). From then on the whole loss,
# about 0.011, is the L2 term: the network is only shrinking its weights.

# %%
fig, (ax_loss, ax_acc, ax_lr) = plt.subplots(1, 3, figsize=(10.5, 3.2))
ax_loss.plot(history.loss, color="#2e5cb8", label="total loss")
ax_loss.plot(history["data loss"], color="#e69f00", linestyle="--", label="hinge part")
ax_loss.set_yscale("log")
ax_loss.set_title("Loss (log scale)")
ax_loss.legend()
ax_acc.plot(np.array(history["accuracy"]) * 100, color="#2e8b57")
ax_acc.set_title("Training accuracy (%)")
ax_acc.set_ylim(40, 102)
ax_lr.plot(history.lr, color="#c0392b")
ax_lr.set_title("Learning rate 1.0 - 0.9 k / 100")
ax_lr.set_ylim(0, 1.05)
for ax in (ax_loss, ax_acc, ax_lr):
    ax.set_xlabel("step")
    ax.grid(True, alpha=0.3)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## The decision boundary
#
# A classifier of points in the plane can be *seen*: colour every location by the sign
# of the score the network gives it. `plot_decision_boundary` does that on a grid of
# 30 × 30 = 900 locations, one forward pass each, and draws the data on top. Blue
# regions are where the network would say +1, red where it would say −1; the boundary is
# the line where the score crosses 0.

# %%
fig, ax = plt.subplots(figsize=(6.5, 5))
plot_decision_boundary(lambda points: [model(p) for p in points.tolist()], X, y, ax=ax, steps=30)
ax.set_title("The trained network's decision boundary (100 % of points correct)")
ax.set_xlabel("x1")
ax.set_ylabel("x2")
ax.legend(loc="upper right")
plt.show()

# %% [markdown]
# The boundary bends twice, curling under the tip of the upper moon and over the tip of
# the lower one, with every point on the right side. Its corners and straight edges
# come from ReLU: each hidden neuron's output is a function made of straight pieces, so
# the network's score is too, and the boundary is a chain of line segments.
#
# ## Watching the boundary form
#
# Drawing the boundary takes 900 forward passes, and we want it at 16 moments of
# training. With the scalar engine that would take longer than the training itself. But
# drawing needs no gradients, so we can do the same arithmetic in NumPy, all 900 points
# at once: each layer is a matrix product, add the biases, apply ReLU. (Chapter 11 builds
# a proper tensor engine on the same idea.) Parameters come out of `model.parameters()`
# layer by layer and, within a layer, neuron by neuron: its weights, then its bias. First,
# a check that the NumPy copy computes exactly what the network computes:

# %%
SIZES = [2, 16, 16, 1]


def numpy_scores(weights, points):
    """The network's scores for many points at once, from a list of parameter values."""
    a = np.asarray(points, dtype=float)
    start = 0
    for layer, (nin, nout) in enumerate(zip(SIZES, SIZES[1:])):
        block = np.array(weights[start : start + nout * (nin + 1)]).reshape(nout, nin + 1)
        start += nout * (nin + 1)
        a = a @ block[:, :nin].T + block[:, nin]  # every neuron: w . x + b
        if layer < len(SIZES) - 2:
            a = np.maximum(a, 0.0)  # ReLU on the hidden layers only
    return a[:, 0]


fast = numpy_scores([p.data for p in params], X)
slow = np.array([model(x).data for x in xs])
print(f"NumPy and Value scores agree to 1e-9 on all 100 points: {bool(np.allclose(fast, slow, atol=1e-9))}")


def accuracy_at(step):
    return np.mean((numpy_scores(snapshots[step], X) > 0) == (y > 0))


def boundary_at(step, ax):
    plot_decision_boundary(lambda points: numpy_scores(snapshots[step], points), X, y, ax=ax, steps=60)
    ax.set_title(f"step {step}: {accuracy_at(step):.0%} correct")


# %% [markdown]
# Four moments of the same training run:

# %%
for step in (0, 10, 30, 100):
    print(f"after {step:3d} updates: {accuracy_at(step):.0%} of the points correct")
fig, axes = plt.subplots(1, 4, figsize=(10.5, 2.7))
for ax, step in zip(axes, (0, 10, 30, 100)):
    boundary_at(step, ax)
    ax.set_xticks([])
    ax.set_yticks([])
plt.tight_layout()
plt.show()

# %% [markdown]
# At step 0 the random network calls almost the whole plane +1 (blue), so it gets
# exactly the blue half of the points right: 50 %. By step 10 it has found the main tilt
# and most points are on the right side (94 %). By step 30 the boundary has started to bend around the
# moons' tips (98 %), and by step 100 it wraps both tips and every point is correct.
#
# The slider below holds all 16 snapshots (when the notebook runs in Jupyter with
# ipywidgets; a stored copy shows its first picture). Drag it to watch the boundary swing
# into place: fast at first, while the learning rate is high, then fine adjustments.

# %%
frames = {}
for step in SNAPSHOT_STEPS:
    fig, ax = plt.subplots(figsize=(5, 4))
    boundary_at(step, ax)
    frames[step] = fig
frame_slider(frames, description="step")

# %% [markdown]
# ## New points: the real test
#
# Every accuracy so far was measured on the 100 points the network trained on. A
# classifier is only useful if it also sorts points it has never seen. `make_moons` with
# another seed draws 200 fresh points from the same two crescents, and the NumPy copy of
# the network scores them all at once:

# %%
X_new, y_new = make_moons(200, noise=0.1, seed=1)  # a different seed: points never seen
new_scores = numpy_scores([p.data for p in params], X_new)
print(f"accuracy on 200 new points: {np.mean((new_scores > 0) == (y_new > 0)):.1%}")

# %% [markdown]
# All 200 new points land on the right side too: 100.0 %. The boundary follows the
# shape of the two crescents rather than the quirks of the 100 training points, helped by
# the L2 term that keeps it smooth. With noisier data, or a network left free to bend
# around every training point, accuracy on new points would fall below training
# accuracy, and that gap is the first thing to check in any classifier.

# %% [markdown]
# ## Summary
#
# - A classifier's score is a number whose sign is the prediction; $y \cdot s$ is the
#   margin.
# - The hinge loss $\max(0, 1 - y s)$ is zero for points with margin at least 1 and
#   pushes (gradient $-y$) on the rest.
# - L2 regularisation, $\alpha \sum p^2$ with $\alpha = 10^{-4}$, keeps weights small and
#   the boundary smooth.
# - With the rate falling from 1.0 to 0.109 over 100 steps, `MLP(2, [16, 16, 1])` reaches
#   100 % training accuracy on the two moons.
# - A boundary drawn at snapshots shows learning as it happens.
# - The trained network also classifies 200 new points from the same moons correctly.
#
# ## Exercises
#
# **1. The max-margin loss.** Write `hinge_loss(scores, ys)`: given a list of score
# `Value`s and a list of labels (−1 or +1), return the mean of $\max(0, 1 - y s)$ as a
# `Value`. The check compares the value and the gradients with the right ones.


# %%
def hinge_loss(scores, ys):
    return Value(0.0)  # your code here


# %%
from micrograd_lesson.exercises import check_bce_loss, check_hinge_loss, check_sample_batch, reveal

check_hinge_loss(hinge_loss)

# %%
reveal("ch09.hinge_loss")

# %% [markdown]
# **2. Mini-batches.** Every step above ran all 100 points through the network. Real
# data sets have millions of points, so each step uses a random **mini-batch** of a few
# dozen: the gradient is noisier, but a step costs a tiny fraction as much, and many
# noisy steps beat a few exact ones. Write `sample_batch(X, y, batch_size, rng)` that
# returns `batch_size` *different* points of `X` and their labels from `y`, chosen at
# random with the NumPy generator `rng` (so that a seeded `rng` gives the same batch
# every time).


# %%
def sample_batch(X, y, batch_size, rng):
    return X[:batch_size], y[:batch_size]  # your code here: not random yet


check_sample_batch(sample_batch)

# %%
reveal("ch09.sample_batch")

# %% [markdown]
# With it, `loss_fn` can score `sample_batch(X, y, 20, rng)` instead of all of `X`,
# making each step about five times cheaper. (Try it: the accuracy curve gets noisier
# but still climbs.)
#
# **3. Binary cross-entropy.** The other common classification loss turns the score
# into a probability, $p = \sigma(s) = 1 / (1 + e^{-s})$, the network's belief that the
# label is +1, and charges $-\log$ of the probability given to the right answer. With
# the label as a target $t = (y + 1)/2$ (1 for +1, 0 for −1):
#
# $$\ell = -\big[t \log p + (1 - t) \log(1 - p)\big]$$
#
# In words: if the answer is +1, the cost is $-\log p$; if it is −1, the cost is
# $-\log(1 - p)$; a confident right answer costs almost nothing and a confident wrong
# one costs a lot. Write `bce_loss(scores, ys)` returning the mean over the examples, as
# a `Value` built with the engine's `sigmoid()` and `log()`, so that `backward()` works.
# (Its gradient with respect to each score turns out to be simply $(p - t)/n$. For very
# large scores, $1 - p$ rounds to 0 and the log fails; the equivalent
# $\log(1 + e^{-y s})$ avoids that.)


# %%
def bce_loss(scores, ys):
    return Value(0.0)  # your code here


check_bce_loss(bce_loss)

# %%
reveal("ch09.bce_loss")

# %% [markdown]
# Next: **chapter 10**, which replaces plain gradient descent with momentum and Adam and
# races them on the same problems.
