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
# - **L2 regularisation**, a small extra cost on large weights;
# - a **decaying learning rate**, big steps early, small steps late.
#
# And we *watch* the classifier learn: the boundary it draws, snapshots of that boundary
# during training, a slider to move through them, and what single hidden neurons
# respond to. The chapter ends with three experiments a practitioner runs on any
# classifier: training on mini-batches instead of all the data, overfitting a small
# noisy data set on purpose, and measuring what the L2 term does about it.

# %% tags=["claim-setup"]
import gc
import math
import random
import time

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

# %% tags=["claim-setup"]
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
        f"score {score}: margin {margin.data:.1f}, loss {point_loss.data:.4f}, d loss / d",
        f"score = {s.grad:+.4f}",
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
ax.plot(
    margins,
    np.maximum(0, 1 - margins),
    color="#2e5cb8",
    linewidth=2,
    label="hinge: max(0, 1 - y·s)",
)
ax.plot(
    margins,
    (margins - 1) ** 2,
    color="#999999",
    linestyle="--",
    label="squared error: (y·s - 1)²",
)
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
# weight only stays large if the data keep asking for it. $\alpha = 10^{-4}$ is the
# value the original micrograd demo used; on these clean moons it is too small to change
# anything we can measure, and we make no claim for it here. The section "Overfitting on
# purpose" at the end shows a data set where a penalty does matter, and measures it. The
# `loss_fn` below returns the loss and,
# as extras for `fit` to record, the accuracy: the fraction of points whose score has
# the sign of their label.

# %% tags=["claim-setup"]
ALPHA = 1e-4


def loss_fn():
    scores = [model(x) for x in xs]  # 100 forward passes: one new graph
    data_loss = sum((1 - label * s).relu() for s, label in zip(scores, ys)) * (1.0 / len(ys))
    reg_loss = ALPHA * sum(p * p for p in params)
    accuracy = sum((s.data > 0) == (label > 0) for s, label in zip(scores, ys)) / len(ys)
    return data_loss + reg_loss, {"accuracy": accuracy, "data loss": data_loss.data}


loss, extras = loss_fn()
print(
    f"loss at the start: {loss.data:.4f} (hinge {extras['data loss']:.4f} + L2",
    f"{loss.data - extras['data loss']:.4f})",
)
nodes = loss.topological_order()
existing = set(params)  # the parameters existed before the pass
new = [n for n in nodes if n not in existing]
held = {
    id(r) for n in new for r in gc.get_referents(n) if gc.is_tracked(r) and type(r) not in (Value, type)
}
print(f"nodes in one graph: {len(nodes)}, of which new: {len(new)}")
print(
    f"tracked by the collector: {sum(gc.is_tracked(n) for n in new)}; other tracked objects they refer "
    f"to: {len(held)}"
)

# %% [markdown]
# The starting loss is 0.9474, almost all of it hinge loss (0.9375); the L2 term adds
# only 0.0099. The graph behind this one number has 68,818 nodes, and `backward()` has to
# visit every one of them on every step. That is why this chapter's training is the
# slowest code in the course so far.
#
# <!-- claim: ch09-one-object-per-node -->
# All but the 337 parameters are new, 68,481 nodes, each one object that Python's garbage
# collector tracks, and between them they refer to only 4 other tracked objects: the
# derivative rules of the operations they use (`*`, `+`, `-` and `ReLU`), shared by every graph. One object per
# node, then (as in chapter 7): a node keeps its inputs and their local derivatives in its
# own fields, so no lists or tuples come with it.
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
# One practical trick makes the run faster. Every step creates tens of thousands of
# Python objects, one per new node (counted above). Python's *cycle collector*, the part of its memory management that hunts for objects
# referring to each other in a loop, wakes up after every 700 new objects (its default
# threshold) and scans them, now and then everything alive, including the half-built
# graph. Our graphs contain no loops (a node points only to its inputs), so plain
# reference counting frees each one as soon as the step is over, and those scans should
# find nothing. An experiment checks both halves of that claim on two training steps
# with the collector on and two with it off, alternating: how many objects the
# collector freed, and how long a step took (the times go in a plot, since they differ
# from machine to machine). Chapter 12 looks at this cost and others like it.


# %%
def one_step():
    """The forward and backward work of one training step; no update, so the weights stay put."""
    loss, _ = loss_fn()
    for p in params:
        p.grad = 0.0
    loss.backward()


freed, seconds = {"on": [], "off": []}, {"on": [], "off": []}
gc.collect()  # start from a clean slate
for _ in range(2):
    for mode in ("on", "off"):
        if mode == "on":
            gc.enable()
        else:
            gc.disable()
        before = sum(generation["collected"] for generation in gc.get_stats())
        start = time.perf_counter()
        one_step()
        seconds[mode].append(time.perf_counter() - start)
        freed[mode].append(sum(generation["collected"] for generation in gc.get_stats()) - before)
gc.enable()
print(f"objects the cycle collector freed during the 2 steps with it on: {sum(freed['on'])}")

fig, ax = plt.subplots(figsize=(5.5, 2.6))
ax.barh(
    ["collector on", "collector off"],
    [np.mean(seconds["on"]), np.mean(seconds["off"])],
    color=["#c0392b", "#2e8b57"],
)
ax.set_xlabel("seconds per training step (this machine, mean of 2)")
ax.invert_yaxis()
ax.set_title("The same step with and without the cycle collector")
plt.tight_layout()
plt.show()

# %% [markdown]
# <!-- claim: ch09-collector-frees-nothing -->
# The collector freed 0 objects: all its scanning found nothing to do, and the bars show
# what that scanning costs per step. So the training run below pauses the collector with
# `gc.disable()` and restores it with `gc.enable()` when it ends (inside `finally`, so
# even an error cannot leave it off).

# %%
SNAPSHOT_STEPS = [0, 2, 4, 6, 8, 10, 15, 20, 30, 40, 50, 60, 70, 80, 90, 100]
snapshots = {0: [p.data for p in params]}  # the parameters before any update


def take_snapshot(step, history):
    """Called by fit after every update; step = updates made so far."""
    if step in SNAPSHOT_STEPS:
        snapshots[step] = [p.data for p in params]


def schedule(k):
    return 1.0 - 0.9 * k / 100


gc.disable()  # pause the cycle collector while training (measured above)
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
# locations and draws the data on top. Blue regions are where the network would say +1,
# red where it would say −1; the boundary is the line where the score crosses 0.
#
# A fine grid needs many forward passes: 400 × 400 is 160,000 of them, far too many for
# the scalar engine. But drawing needs no gradients, so we can do the same arithmetic in
# NumPy, all the points at once: each layer is a matrix product, add the biases, apply
# ReLU. (Chapter 11 builds a proper tensor engine on the same idea.) Parameters come out
# of `model.parameters()` layer by layer and, within a layer, neuron by neuron: its
# weights, then its bias. First, a check that the NumPy copy computes exactly what the
# network computes:

# %% tags=["claim-setup"]
SIZES = [2, 16, 16, 1]


def numpy_layers(weights, points):
    """Every layer's outputs for many points at once, from a list of parameter values."""
    a = np.asarray(points, dtype=float)
    outputs, start = [], 0
    for layer, (nin, nout) in enumerate(zip(SIZES, SIZES[1:])):
        block = np.array(weights[start : start + nout * (nin + 1)]).reshape(nout, nin + 1)
        start += nout * (nin + 1)
        a = a @ block[:, :nin].T + block[:, nin]  # every neuron: w . x + b
        if layer < len(SIZES) - 2:
            a = np.maximum(a, 0.0)  # ReLU on the hidden layers only
        outputs.append(a)
    return outputs


def numpy_scores(weights, points):
    """The network's scores: the last layer's single output."""
    return numpy_layers(weights, points)[-1][:, 0]


fast = numpy_scores([p.data for p in params], X)
slow = np.array([model(x).data for x in xs])
print(
    "NumPy and Value scores agree to 1e-9 on all 100 points:",
    f"{bool(np.allclose(fast, slow, atol=1e-9))}",
)

# %% [markdown]
# Now the trained network's boundary twice: on a coarse 30 × 30 grid (900 points, what
# the scalar engine can afford in a few seconds) and on a 400 × 400 grid.

# %%
final_weights = [p.data for p in params]
fig, axes = plt.subplots(1, 2, figsize=(10.5, 4.0))
for ax, steps in zip(axes, (30, 400)):
    plot_decision_boundary(lambda points: numpy_scores(final_weights, points), X, y, ax=ax, steps=steps)
    ax.set_title(f"{steps} x {steps} grid")
    ax.set_xlabel("x1")
    ax.set_ylabel("x2")
fig.legend(*axes[1].get_legend_handles_labels(), loc="lower center", ncol=2, frameon=False)
plt.tight_layout(rect=(0, 0.07, 1, 1))  # room below the plots for the legend, off the boundary
plt.show()

# %% [markdown]
# On the coarse grid the boundary is a staircase, and every stair is one grid cell:
# the plotting routine can only draw the boundary between cells whose centres it has
# scored, so the corners come from the 30 × 30 grid, not from the network. On the
# 400 × 400 grid the stairs are gone and the network's real shape shows: long straight
# stretches meeting at a few corners, curling under the tip of the upper moon and over
# the tip of the lower one. Those few corners are real. Every hidden neuron is a ReLU of
# a straight-line function, so the score is made of flat pieces and the boundary of
# straight segments, but there are far fewer of them than the coarse picture suggests.
#
# ## What the hidden neurons respond to
#
# Each neuron of the first hidden layer computes relu($w_1 x_1 + w_2 x_2 + b$): zero on
# one side of a straight line, rising evenly on the other. Each neuron of the second
# layer adds up 16 of those and applies ReLU again, so it can respond to a bent region.
# The pictures show each neuron's output over the plane (white is 0, darker is larger),
# the first layer on the top two rows and the second on the bottom two, with the data as
# small dots:

# %%
xx, yy = np.meshgrid(np.linspace(-1.6, 2.6, 120), np.linspace(-1.2, 1.7, 90))
grid = np.column_stack([xx.ravel(), yy.ravel()])
hidden1, hidden2, _ = numpy_layers(final_weights, grid)
fig, axes = plt.subplots(4, 8, figsize=(10.5, 4.6))
for k, ax in enumerate(axes.flat):
    layer, neuron = (hidden1, k) if k < 16 else (hidden2, k - 16)
    ax.imshow(
        layer[:, neuron].reshape(xx.shape),
        origin="lower",
        cmap="Greys",
        extent=(-1.6, 2.6, -1.2, 1.7),
    )
    ax.scatter(*X.T, c=np.where(y > 0, "#2e5cb8", "#c0392b"), s=2)
    ax.set_title(f"layer {1 if k < 16 else 2}, neuron {neuron + 1}", fontsize=8)
    ax.set_xticks([])
    ax.set_yticks([])
plt.tight_layout()
plt.show()
for number, layer in enumerate((hidden1, hidden2), start=1):
    silent = [k + 1 for k in range(16) if layer[:, k].max() == 0]
    print(f"layer {number}: neurons that output 0 everywhere in this picture: {silent}")

# %% [markdown]
# The first layer's neurons are ramps: each is 0 on one side of a straight line and
# grows evenly on the other, in its own direction (neuron 8 rises towards the bottom,
# neuron 10 towards the top). The second layer's neurons add those ramps up and cut them
# at 0 again, so their active regions have bent edges; a few light up mainly around the
# inner tips of the moons, where the boundary has to bend (layer 2, neurons 10 and 13).
# The printed lists name the neurons that output 0 everywhere in the picture: a ReLU
# that is 0 for every training point also passes back a gradient of 0 from the loss, so
# its weights feel only the penalty's small pull towards 0. In the first layer, whose
# inputs are the fixed points, such a "dead" neuron stays dead; one in the second layer
# can come back only if the first layer's changes move its inputs. (Each panel is shaded
# on its own scale, white for 0.)
#
# ## Watching the boundary form
#
# The NumPy copy makes drawing the boundary at every snapshot cheap:


# %%
def accuracy_at(step):
    return np.mean((numpy_scores(snapshots[step], X) > 0) == (y > 0))


def boundary_at(step, ax, steps=200):
    plot_decision_boundary(
        lambda points: numpy_scores(snapshots[step], points),
        X,
        y,
        ax=ax,
        steps=steps,
    )
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
    fig, ax = plt.subplots(figsize=(4.6, 3.6))
    boundary_at(step, ax, steps=100)
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
more = [make_moons(200, noise=0.1, seed=seed) for seed in range(2, 8)]
others = [
    np.mean((numpy_scores([p.data for p in params], X_more) > 0) == (y_more > 0))
    for X_more, y_more in more
]
print(f"on six more draws of 200 new points (seeds 2-7): from {min(others):.1%} to {max(others):.1%}")

# %% [markdown]
# <!-- claim: ch09-new-points -->
# All 200 new points land on the right side too: 100.0 %, and on six more draws of 200
# new points the network gets 99.5 % to 100 % right. On these clean moons the boundary
# has room to spare on both sides. The last section of the chapter shows data
# where accuracy on new points falls well below training accuracy, and measures what a
# penalty on the weights does about it.
#
# ## Mini-batches: noise against cost
#
# Every step above ran all 100 points through the network: 10,000 single-point passes
# (forward and backward) for the whole run. Real data sets have millions of points, so
# each step uses a random **mini-batch** of a few dozen instead: the gradient is only an
# estimate, noisy, but a step costs a fraction as much. The fair comparison is per unit
# of work, so the plot below puts the number of points processed on the x axis. The
# mini-batch run starts from the same initial weights, draws 20 different points per
# step with a seeded NumPy generator, and takes 100 steps with a rate falling from 1.0 to
# 0.1 (2,000 points processed); after every step the NumPy copy measures the hinge loss
# on all 100 points, which is what we want to be small.

# %%
BATCH, MB_STEPS = 20, 100
random.seed(SEED)  # the same initial weights as the full-batch run
mb_model = MLP(2, [16, 16, 1])
mb_params = mb_model.parameters()
rng = np.random.default_rng(SEED)


def hinge_on_all(weights):
    return float(np.mean(np.maximum(0.0, 1 - y * numpy_scores(weights, X))))


def batch_loss(net, batch):
    idx = rng.permutation(len(xs))[:batch]  # `batch` different points, in random order
    scores = [net(xs[i]) for i in idx]
    data_loss = sum((1 - ys[i] * s).relu() for s, i in zip(scores, idx)) * (1.0 / batch)
    return data_loss + ALPHA * sum(p * p for p in net.parameters())


mb_curve = [hinge_on_all([p.data for p in mb_params])]
gc.disable()
try:
    fit(
        mb_model,
        lambda: batch_loss(mb_model, BATCH),
        steps=MB_STEPS,
        lr=lambda k: 1.0 - 0.9 * k / MB_STEPS,
        callback=lambda step, history: mb_curve.append(hinge_on_all([p.data for p in mb_params])),
    )
finally:
    gc.enable()

full_curve = history["data loss"] + [final["data loss"]]  # after 0, 1, ..., 100 full steps
for work in (500, 1000, 2000):
    print(
        f"after {work:5,d} points processed: full batch hinge {full_curve[work // 100]:.4f}, "
        f"mini-batch of {BATCH} hinge {mb_curve[work // BATCH]:.4f}"
    )
mb_accuracy = np.mean((numpy_scores([p.data for p in mb_params], X) > 0) == (y > 0))
print(f"mini-batch run after {MB_STEPS} steps: training accuracy {mb_accuracy:.0%}")

# The fair rival: full batches, the same 2,000 points of work, the same rate falling from 1.0 to 0.1.
random.seed(SEED)
rival = MLP(2, [16, 16, 1])
rival_curve = [hinge_on_all([p.data for p in rival.parameters()])]
gc.disable()
try:
    fit(
        rival,
        lambda: batch_loss(rival, len(xs)),
        steps=20,
        lr=lambda k: 1.0 - 0.9 * k / 20,
        progress=False,
        callback=lambda step, history: rival_curve.append(
            hinge_on_all([p.data for p in rival.parameters()]),
        ),
    )
finally:
    gc.enable()
short_weights = [p.data for p in rival.parameters()]
short_accuracy = np.mean((numpy_scores(short_weights, X) > 0) == (y > 0))
print(
    f"full batch, 20 steps, rate 1.0 -> 0.1 (also 2,000 points): hinge {rival_curve[-1]:.4f}, "
    f"training accuracy {short_accuracy:.0%}"
)

fig, ax = plt.subplots(figsize=(8, 3.8))
ax.plot(
    np.arange(len(full_curve)) * 100,
    full_curve,
    "o-",
    ms=3,
    color="#2e5cb8",
    label="full batch: 100 points a step",
)
ax.plot(
    np.arange(len(rival_curve)) * 100,
    rival_curve,
    "s--",
    ms=3,
    color="#555555",
    label="full batch, rate 1.0 -> 0.1 over 20 steps",
)
ax.plot(
    np.arange(len(mb_curve)) * BATCH,
    mb_curve,
    color="#e69f00",
    label=f"mini-batch: {BATCH} points a step",
)
ax.set_xlim(0, 4000)
ax.set_ylim(0, 1.0)
ax.set_xlabel("points processed (forward and backward passes)")
ax.set_ylabel("hinge loss on all 100 points")
ax.set_title("Same work, more steps: mini-batches")
ax.legend()
ax.grid(True, alpha=0.3)
plt.show()

# %% [markdown]
# For the same work, the mini-batch run is ahead at every point printed: hinge 0.1880
# against 0.3301 after 500 points processed, 0.0754 against 0.1764 after 1,000, and
# 0.0064 against 0.0898 after 2,000, when it classifies all 100 points correctly. Its
# curve is jagged: each step follows one batch's gradient, which is only an estimate of
# the full one, and now and then a step makes the loss on all points worse. (The first
# steps of both runs overshoot, off the top of the plot.)
#
# That comparison changes two things, though: after 2,000 points the full-batch run's
# rate is still 0.82, while the mini-batch run's has already fallen to 0.1. So a third
# run (grey squares) changes only the batch: full batches, the same 2,000 points of work
# and the same rate falling from 1.0 to 0.1, squeezed into 20 steps. It ends at hinge
# 0.1299 with 94 % of the points correct, still far behind the mini-batches' 0.0064. Five
# noisy steps for the price of one exact step is the trade that every large-scale
# training run makes.
#
# ## Overfitting on purpose
#
# The two moons above are easy: 100 points with little noise describe the crescents
# well. Now the opposite: only 20 training points with noise 0.3, so the crescents are
# blurred and a few points sit on the wrong side. Overfitting shows most clearly in a
# long, patient training run, so the same 337-parameter network now takes 800 steps at
# a gentle constant rate of 0.1, and after every step we measure the hinge
# loss on the 20 training points and on 500 **validation** points: fresh points from the
# same noisy moons, never trained on.
#
# That is 16,000 single-point passes per run, and we want 22 runs; the scalar engine
# would need several minutes. So this section borrows the package's tensor engine,
# `micrograd_lesson.tensor`, which chapter 11 builds: the same network and the same
# arithmetic, done on whole arrays at once. `MLP.from_scalar` gives it the weights of a
# scalar network. First a check that the two engines train alike, three steps each from
# the same start:

# %% tags=["claim-setup"]
from micrograd_lesson.optim import SGD
from micrograd_lesson.tensor import Tensor
from micrograd_lesson.tensor_nn import MLP as TensorMLP

X_small, y_small = make_moons(20, noise=0.3, seed=0)
X_val, y_val = make_moons(500, noise=0.3, seed=100)


def train_tensor(X_train, y_train, alpha, steps=800, lr=0.1, measure=None):
    """Train MLP(2, [16, 16, 1]) from the seeded start on hinge + alpha * sum of squares; return it."""
    random.seed(SEED)  # the same starting weights as every network in this chapter
    net = TensorMLP.from_scalar(MLP(2, [16, 16, 1]))
    weights, targets = net.parameters(), Tensor(y_train.reshape(-1, 1).astype(float))
    opt = SGD(weights, lr=lr)
    for _ in range(steps):
        loss = (1 - targets * net(X_train)).relu().mean()
        if alpha:
            loss = loss + alpha * sum((w * w).sum() for w in weights)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if measure:
            measure(net)
    return net


random.seed(SEED)
scalar_net = MLP(2, [16, 16, 1])
small_xs, small_ys = X_small.tolist(), y_small.tolist()
fit(
    scalar_net,
    lambda: sum((1 - t * scalar_net(x)).relu() for x, t in zip(small_xs, small_ys)) / len(small_ys),
    steps=3,
    lr=0.1,
    progress=False,
)
tensor_net = train_tensor(X_small, y_small, alpha=0.0, steps=3)
gap = np.max(
    np.abs(numpy_scores([p.data for p in scalar_net.parameters()], X_val) - tensor_net(X_val).data[:, 0])
)
print(
    "after 3 steps, the two engines' scores on the 500 validation points agree to",
    f"1e-9: {bool(gap < 1e-9)}",
)

# %% [markdown]
# They agree. That makes it cheap to check the mini-batch race of the last section, which
# was one starting network and one sequence of batches. Here it is again on the tensor
# engine, for five starting networks (seeds 0 to 4) and two batch sequences each, with
# the same two runs as before: 100 mini-batches of 20 points, and 20 full batches, the
# rate falling from 1.0 to 0.1 in both. Each number is the hinge loss on all 100 points
# at the end.


# %% tags=["claim-setup"]
def batch_race(init_seed, sample_seed, batch, steps):
    """Train MLP(2, [16, 16, 1]) on the moons with `steps` steps of `batch` different points; return it."""
    random.seed(init_seed)
    net = TensorMLP.from_scalar(MLP(2, [16, 16, 1]))
    weights, sampler = net.parameters(), np.random.default_rng(sample_seed)
    opt = SGD(weights, lr=1.0)
    for k in range(steps):
        idx = sampler.permutation(len(X))[:batch]
        loss = (1 - Tensor(y[idx].reshape(-1, 1).astype(float)) * net(X[idx])).relu().mean()
        loss = loss + ALPHA * sum((w * w).sum() for w in weights)
        opt.lr = 1.0 - 0.9 * k / steps  # the same falling rate as before
        opt.zero_grad()
        loss.backward()
        opt.step()
    return net


def hinge_of(net):
    """The mean hinge loss of a tensor network on all 100 training points."""
    return float(np.mean(np.maximum(0.0, 1 - y * net(X).data[:, 0])))


# %%
ratios = []
for init_seed in range(5):
    full = hinge_of(
        batch_race(init_seed, 0, len(X), 20)
    )  # full batches: the sample order does not matter
    mini = [hinge_of(batch_race(init_seed, sample_seed, BATCH, MB_STEPS)) for sample_seed in (0, 1)]
    ratios += [full / m if m > 0 else math.inf for m in mini]
    print(f"start {init_seed}: full batch {full:.4f}   mini-batches {mini[0]:.4f}, {mini[1]:.4f}")
print(
    f"mini-batches end lower in {sum(r > 1 for r in ratios)} of 10 runs, by {min(ratios):.1f} times or "
    "more"
)

# %% [markdown]
# <!-- claim: ch09-minibatch-wins -->
# The first line repeats the race above to four decimals (0.1299 against 0.0064), and the
# verdict holds on every start and every batch sequence: for the same work and the same
# falling rate, the mini-batches end lower in all 10 runs, by 7.5 times or more.
#
# Now the overfitting experiment, run twice and changing one thing: without a penalty
# ($\alpha = 0$) and with $\alpha = 0.01$.


# %%
def hinge_and_accuracy(net, X_, y_):
    """The mean hinge loss and the accuracy of a tensor network on points X_ with labels y_."""
    scores = net(X_).data[:, 0]
    return float(np.mean(np.maximum(0.0, 1 - y_ * scores))), float(np.mean((scores > 0) == (y_ > 0)))


def recorder(curve):
    """A `measure` for train_tensor: after every step, append both hinge losses to `curve`."""

    def measure(net):
        curve["train"].append(hinge_and_accuracy(net, X_small, y_small)[0])
        curve["validation"].append(hinge_and_accuracy(net, X_val, y_val)[0])

    return measure


curves, nets = {}, {}
for alpha in (0.0, 0.01):
    curves[alpha] = {"train": [], "validation": []}
    nets[alpha] = train_tensor(X_small, y_small, alpha, measure=recorder(curves[alpha]))
    train_loss, train_acc = hinge_and_accuracy(nets[alpha], X_small, y_small)
    val_loss, val_acc = hinge_and_accuracy(nets[alpha], X_val, y_val)
    best = int(np.argmin(curves[alpha]["validation"]))
    squares = sum(float((w.data**2).sum()) for w in nets[alpha].parameters())
    print(
        f"alpha {alpha:<4}: after 800 steps train loss {train_loss:.3f} (accuracy {train_acc:.0%}), "
        f"validation loss {val_loss:.3f} (accuracy {val_acc:.1%});\n    lowest validation loss "
        f"{curves[alpha]['validation'][best]:.3f} at step {best + 1};  "
        f"sum of squared weights {squares:.1f}"
    )

fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.3))
for alpha, style in ((0.0, "-"), (0.01, "--")):
    axes[0].plot(
        range(1, 801), curves[alpha]["train"], style, color="#2e5cb8", label=f"train, alpha {alpha:g}"
    )
    axes[0].plot(
        range(1, 801),
        curves[alpha]["validation"],
        style,
        color="#c0392b",
        label=f"validation, alpha {alpha:g}",
    )
axes[0].set_title("Hinge loss")
axes[0].set_xlabel("step")
axes[0].set_ylim(0, 0.8)
axes[0].legend(fontsize=8)
axes[0].grid(True, alpha=0.3)
for ax, (alpha, net) in zip(axes[1:], nets.items()):
    plot_decision_boundary(
        lambda points, net=net: net(points).data[:, 0],
        X_small,
        y_small,
        ax=ax,
        steps=300,
    )
    ax.set_title(f"alpha {alpha:g}: boundary after 800 steps")
plt.tight_layout()
plt.show()

# %% [markdown]
# Without a penalty the network **overfits**. Its training loss falls all the way to
# 0.000 (all 20 points right), but its validation loss is lowest, 0.268, at step 184,
# and from there it climbs to 0.431 (82.2 % correct): the steps after 184 fit the
# training points better and new points worse. What it learned in those steps was the
# noise of these 20 points, and its boundary (middle) shows it, bending to catch single
# points.
#
# With $\alpha = 0.01$, and nothing else changed, the network cannot afford that: its
# sum of squared weights is 25.2 instead of 130.6, its training loss stays at 0.143 (95 %
# right), and its validation loss levels off, ending at 0.271 (89.0 % correct) instead
# of climbing. Its boundary
# (right) is a plainer curve between the moons.
#
# One draw of 20 points is one experiment, and a different draw could tell a different
# story. So here is the same comparison on five draws of 20 points (seeds 0 to 4), for
# four values of $\alpha$, each run 800 steps from the same starting weights, scored on
# the same 500 validation points:

# %%
ALPHAS, DRAWS = (0.0, 0.001, 0.01, 0.1), range(5)
results = np.zeros((len(ALPHAS), len(DRAWS), 3))  # train loss, validation loss, validation accuracy
for d in DRAWS:
    X_draw, y_draw = make_moons(20, noise=0.3, seed=d)
    for a, alpha in enumerate(ALPHAS):
        # draw 0 is the one trained above (X_small): reuse those two networks, not train them again
        net = nets[alpha] if d == 0 and alpha in nets else train_tensor(X_draw, y_draw, alpha)
        results[a, d] = [
            hinge_and_accuracy(net, X_draw, y_draw)[0],
            *hinge_and_accuracy(net, X_val, y_val),
        ]
print(
    "alpha   mean train loss   mean validation loss   mean validation accuracy   "
    "validation loss below alpha 0's"
)
for a, alpha in enumerate(ALPHAS):
    mean_train, mean_val, mean_acc = results[a].mean(axis=0)
    wins = int(np.sum(results[a, :, 1] < results[0, :, 1]))
    print(
        f"{alpha:<6g}  {mean_train:15.3f}   {mean_val:20.3f}   {mean_acc:23.1%}"
        + (f"   on {wins} of 5 draws" if alpha else "")
    )

# %% [markdown]
# <!-- claim: ch09-penalty-sweep -->
# A small penalty, $\alpha = 0.001$, helps a little (mean validation loss 0.425, better
# than no penalty on 3 of 5 draws). A large one, $\alpha = 0.1$, cannot even fit the
# training points (mean training loss 0.458) and does no better on new points (0.467,
# 79.8 % correct). In between, $\alpha = 0.01$ gives the lowest mean validation loss,
# 0.371 against 0.468 without a penalty, and the best accuracy, 84.6 % against 81.4 %,
# and it beats no penalty on 4 of the 5 draws, not all. That is what regularisation offers:
# a knob between fitting the noise and fitting nothing, whose right setting is found by
# measuring on data the network did not train on. The best $\alpha$ here, 0.01, is
# inside the range tried, so the sweep found it rather than ran into the end of it.
# (The claims tests re-run this sweep on five other draws, seeds 5 to 9: $\alpha = 0.01$
# again has the lowest mean validation loss, 0.385 against 0.461, and beats no penalty on 4
# of the 5.)

# %% [markdown]
# ## Summary
#
# - A classifier's score is a number whose sign is the prediction; $y \cdot s$ is the
#   margin.
# - The hinge loss $\max(0, 1 - y s)$ is zero for points with margin at least 1 and
#   pushes (gradient $-y$) on the rest.
# - With the rate falling from 1.0 to 0.109 over 100 steps, `MLP(2, [16, 16, 1])` reaches
#   100 % training accuracy on the two moons, and classifies 200 new points correctly.
# - Drawn on a fine grid, its boundary is a chain of straight segments with a few real
#   corners; the staircase of a coarse grid is the plot's, not the network's.
# - First-layer ReLU neurons are ramps across a line; second-layer neurons respond to
#   bent regions built from them.
# - For the same number of points processed and the same falling rate, mini-batches of
#   20 took five noisy steps for every exact one and got much further.
# - On 20 noisy points the network overfits: its validation loss climbs while its
#   training loss falls. Over five draws an L2 penalty with $\alpha = 0.01$ gives the
#   lowest mean validation loss of the four values tried; $\alpha = 10^{-4}$ on the clean
#   moons claims nothing.
#
# ## Exercises
#
# **1. The squared hinge's gradient (derive).** Some libraries use the *squared* hinge,
# $\max(0,\ 1 - y s)^2$, which has no kink at margin 1. Derive, on paper, the gradient
# of its mean over a batch with respect to each score, and write
# `squared_hinge_grads(scores, ys)` returning those gradients as a list of plain floats
# (scores and labels are plain numbers here; no `Value`). Predict first, for the scores
# and labels in the stub: which points get no push at all, and which gets the largest?
# The check compares with the engine's `backward()` on several batches.


# %%
def squared_hinge_grads(scores, ys):
    return [0.0 for s in scores]  # your derivation here


print(squared_hinge_grads([2.0, -1.0, 0.5, -3.0, 0.0, 0.7], [1, -1, -1, 1, 1, 1]))

# %%
from micrograd_lesson.exercises import (
    check_bce_loss,
    check_sample_batch,
    check_squared_hinge_grads,
    reveal,
)

check_squared_hinge_grads(squared_hinge_grads)

# %%
reveal("ch09.squared_hinge_grads")

# %% [markdown]
# **2. Find the bugs (debug).** A colleague wrote this `sample_batch(X, y, batch_size, rng)`
# for the mini-batch section: it should return `batch_size` *different* points of `X`,
# chosen at random with the NumPy generator `rng` (so a seeded `rng` gives the same
# batch every time), and their labels from `y`. It runs without error, and a loss
# computed from it even falls. It has two bugs. Predict what each does to training,
# then fix them until the check says correct.


# %%
def sample_batch(X, y, batch_size, rng):
    rows = rng.integers(0, len(X), size=batch_size)
    labels = rng.integers(0, len(X), size=batch_size)
    return X[rows], y[labels]


check_sample_batch(sample_batch)

# %%
reveal("ch09.sample_batch")

# %% [markdown]
# **3. Binary cross-entropy (implement).** The other common classification loss turns the score
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
