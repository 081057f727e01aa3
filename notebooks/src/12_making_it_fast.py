# %% [markdown]
# # Chapter 12 — Making it fast
#
# Chapter 9 trained `MLP(2, [16, 16, 1])` on 100 moons with the scalar engine, and every
# step took a noticeable fraction of a second. Chapter 11 built a tensor engine that
# computes the same gradients with 45 graph nodes instead of 68,818. This chapter
# measures where the time goes and what the change of engine buys:
#
# 1. **a profile** of one scalar training step: which functions run, how often;
# 2. **the garbage collector**: what Python's cycle collector costs in a plain training
#    loop, why, and an experiment that changes one setting to show it;
# 3. **scalar against tensor engine** on the same training run, same losses, on a log
#    scale;
# 4. **a real data set**: 1,797 handwritten digits, a classifier trained in a few
#    seconds that reads at least 97 % of the digits it has never seen, on each of ten
#    different splits of the data.
#
# Timings differ from machine to machine and from run to run, so they appear only in
# plots (pictures are not compared when the notebook is checked) and in one printed
# line, in a cell whose output is not compared either; everything else the notebook prints (call counts, losses, accuracies) is
# the same on every run.

# %% tags=["claim-setup"]
import cProfile
import gc
import pstats
import random
import time

import matplotlib.pyplot as plt
import numpy as np

from micrograd_lesson import SGD, load_digits, make_moons, nn
from micrograd_lesson.engine import RULES
from micrograd_lesson.tensor_nn import MLP, cross_entropy

SEED = 0
random.seed(SEED)  # the scalar network's starting weights
X, y = make_moons(100, noise=0.1, seed=SEED)
xs, ys = X.tolist(), y.tolist()  # plain lists for the scalar engine

# %% [markdown]
# ## The workload
#
# One training step of chapter 9: 100 forward passes, the mean hinge loss plus
# $10^{-4}$ times the sum of squared parameters, `backward()`, and a gradient step with
# the learning rate $1.0 - 0.9 k / 100$ at step $k$. The loop is written the way a
# learner writes it: the collector left at its default settings, and the previous
# step's `loss` (with its whole graph) still alive while the next graph is built.

# %% tags=["claim-setup"]
scalar_model = nn.MLP(2, [16, 16, 1])
start_weights = [p.data for p in scalar_model.parameters()]


def scalar_step(model, k):
    params = model.parameters()
    scores = [model(x) for x in xs]
    data_loss = sum((1 - label * s).relu() for s, label in zip(scores, ys)) * (1.0 / len(ys))
    loss = data_loss + 1e-4 * sum(p * p for p in params)
    model.zero_grad()
    loss.backward()
    lr = 1.0 - 0.9 * k / 100
    for p in params:
        p.data -= lr * p.grad
    return loss


def reset(model):
    """Put the chapter's starting weights back, so every experiment starts alike."""
    for p, w in zip(model.parameters(), start_weights):
        p.data = w


# %% [markdown]
# ## Where a scalar step's time goes
#
# `cProfile` records every Python function call in one step. The call counts are
# exact and the same on every run; they say how much work the engine does. Here are the
# package's and the notebook's functions with the most calls (Python's built-ins, such
# as `list.append`, are left out):


# %%
def profile_step(k, collector=True):
    """Profile one scalar step; collector=False switches the cycle collector off for it."""
    profiler = cProfile.Profile()
    if not collector:
        gc.disable()
    try:
        profiler.enable()
        step_loss = scalar_step(scalar_model, k)
        profiler.disable()
    finally:
        gc.enable()
    return step_loss, pstats.Stats(profiler).stats  # (file, line, name) -> (calls, ..., own time, ...)


loss = scalar_step(scalar_model, 0)  # as in any training loop, the previous step's graph is alive
loss, stats = profile_step(1)
ours = {key: v for key, v in stats.items() if key[0] != "~"}  # "~" marks Python's built-ins
# The derivative rules are lambdas in engine.RULES: name each one by its entry in the table.
rule_names = {
    (r.__code__.co_filename, r.__code__.co_firstlineno): f"RULES[{op!r}]" for op, r in RULES.items()
}
rows = sorted(ours.items(), key=lambda item: (-item[1][1], item[0][2]))[:8]
print(f"{'calls':>9}  function")
for (filename, line, name), (_, calls, _, _, _) in rows:
    print(f"{calls:>9,d}  {filename.rsplit('/', 1)[-1]}:{rule_names.get((filename, line), name)}")
graph = loss.topological_order()
leaves = [node for node in graph if not node._prev]
print(f"graph of this step: {len(graph):,} Value nodes")
print(f"  {len(graph) - len(leaves):,} made by operations (+, *, -, relu)")
print(
    f"  {len(leaves) - len(start_weights):,} plain numbers wrapped as Values (inputs,",
    "labels, constants)",
)
print(f"  {len(start_weights)} parameters, made before the step")

# %% [markdown]
# `__mul__` and `__add__` run about 30,800 times each, and each time the operation also
# evaluates its derivative rule (`RULES['*']`, `RULES['+']`) on the numbers, so that the
# node keeps its local derivatives. With the few `-` and `relu` nodes they make the 65,077
# results of operations. `Value.__init__` runs 3,404 times, for the plain numbers that are
# wrapped in a `Value` where they meet one: each input coordinate once for every
# first-layer neuron it is multiplied in (100 × 2 × 16 = 3,200), each of the 100 labels,
# and constants such as the 1 in `1 - y * s`. The other 337 nodes are the parameters,
# made before the step. `backward()` is not in the table: it is called once, and its loop
# over the 68,818 nodes is written out inside it rather than calling a method per node.
# Each call does very little; the cost is in the number of calls, in creating the
# objects and, as we see next, in keeping track of them.
#
# Where does the *time* go? The plot shows each function's own time (without the
# functions it calls) in that step, next to a second step profiled with Python's garbage
# collector switched off, the one thing changed. The collector runs in the middle of
# whichever call happens to allocate an object, and the profiler charges its time to
# that function.

# %%
_, stats_off = profile_step(2, collector=False)
by_time = sorted(stats.items(), key=lambda item: -item[1][2])[:8]
labels = [
    name if f == "~" else f"{f.rsplit('/', 1)[-1]}:{rule_names.get((f, line), name)}"
    for (f, line, name), _ in by_time
]
ypos = np.arange(len(by_time))[::-1]  # the slowest at the top
fig, ax = plt.subplots(figsize=(8, 4))
ax.barh(
    ypos + 0.2,
    [v[2] for _, v in by_time],
    height=0.4,
    color="#c0392b",
    label="collector on (default)",
)
ax.barh(
    ypos - 0.2,
    [stats_off.get(key, (0, 0, 0.0))[2] for key, _ in by_time],
    height=0.4,
    color="#2e5cb8",
    label="collector off",
)
ax.set_yticks(ypos, labels)
ax.set_xlabel("own time in one step, seconds (this run)")
ax.set_title("Profile of one scalar training step")
ax.legend(fontsize=8, loc="lower right")
ax.grid(True, axis="x", alpha=0.3)
plt.tight_layout()
plt.show()

# %% [markdown]
# <!-- claim: ch12-profile-collector-lands -->
# The profiler charges a collection to the function that is running when it starts, and a
# collection starts while new objects are being made (on Python 3.12 and later, at the next
# point where the interpreter checks for pending work, which can also be the generator
# expression that is calling the operators). So with the collector off, the time that
# disappears is in the code that makes the nodes: mostly `__mul__` or `__add__`, now and
# then the generator expressions that call them or another function that allocates
# (`_as_value`, `__init__`). Which of them carries it changes from run to run, with where each
# collection happens to begin; rerun the two cells above to see it move. The graph walk
# (`graph.py:_depth_first`) and `backward()` make a handful of objects in a step against
# the operations' 68,000, so a collection hardly ever starts in them: their bars change
# only by the noise of the clock on a busy machine.
# The next section finds out what the collector is doing all that time.

# %% [markdown]
# ## The garbage collector
#
# CPython frees most objects by **reference counting**: the moment nothing refers to an
# object, it is gone. Objects that refer to each other in a loop never reach a count of
# zero, so a second mechanism, the **cycle collector**, looks for such loops now and
# then. It keeps the objects that can take part in a loop in three *generations*. A new
# object starts in generation 0; after 700 more allocations than deallocations (2,000 from
# Python 3.13 on) it
# scans generation 0, and moves the survivors to generation 1; every 10 scans of
# generation 0 it also scans generation 1, and every 10 of those it considers a full
# scan of everything alive (it runs it once the objects that have survived since the
# last full scan exceed a quarter of all the old ones).
#
# A training step builds a graph of tens of thousands of nodes that all stay alive until
# the step ends, while the previous step's graph is still alive too. So the collector
# runs many times during one step, and its scans of the older generations walk through
# hundreds of thousands of live objects. Our graphs hold no loops (a node refers only to
# its inputs), so those scans find nothing to free.
#
# `gc.callbacks` lets us watch: Python calls our function at the start and the end of
# every collection, with the generation it scanned and the number of objects it freed.
# The experiment runs six steps in turn under three settings, changing one thing at a
# time:
#
# - **default**: the collector as Python ships it, thresholds (700, 10, 10), or
#   (2000, 10, 10) from Python 3.13 on;
# - **no full scans**: only the third threshold raised, from 10 to 1,000, so that no
#   full scan happens during a step while the small scans go on as before;
# - **off**: `gc.disable()` for the step.
#
# The times in this section are CPU seconds of this Python process
# (`time.process_time()`), which other programs busy on the same machine disturb much
# less than the clock on the wall.


# %%
class CollectionLog:
    """Counts the cycle collector's scans by generation, and the time spent in them."""

    def __init__(self):
        self.scans, self.seconds, self.freed, self._started = [0, 0, 0], [0.0, 0.0, 0.0], 0, 0.0

    def __call__(self, phase, info):
        if phase == "start":
            self._started = time.process_time()
        else:
            self.seconds[info["generation"]] += time.process_time() - self._started
            self.scans[info["generation"]] += 1
            self.freed += info["collected"]


SETTINGS = ["default", "no full scans", "off"]
defaults = gc.get_threshold()


def timed_step(k, setting):
    """One plain-loop step under a collector setting; returns (seconds, CollectionLog)."""
    global loss  # the previous graph stays alive until this step's loss replaces it
    log = CollectionLog()
    if setting == "no full scans":
        gc.set_threshold(defaults[0], defaults[1], 1000)
    if setting == "off":
        gc.disable()
    gc.callbacks.append(log)
    try:
        started = time.process_time()
        loss = scalar_step(scalar_model, k)
        seconds = time.process_time() - started
    finally:
        gc.callbacks.remove(log)
        gc.enable()
        gc.set_threshold(*defaults)
    return seconds, log


reset(scalar_model)
runs = [(k, SETTINGS[k % 3], *timed_step(k, SETTINGS[k % 3])) for k in range(6)]
print(
    f"thresholds back at the defaults: {gc.get_threshold() == defaults}, collector",
    f"enabled: {gc.isenabled()}",
)
print(
    "objects freed by all the scans in 6 steps: fewer than 100?",
    f"{sum(log.freed for *_, log in runs) < 100}",
)
print(
    "full scans under 'no full scans':",
    f"{sum(log.scans[2] for _, s, _, log in runs if s == 'no full scans')}",
)

# %% [markdown]
# The collector is back at its defaults after the experiment, and all its scans in
# these six steps together freed next to nothing: there was no cycle to find. Each bar
# below is one step, split into the time spent outside collections, in the small scans
# (generations 0 and 1) and in full scans; the labels under the bars give the number of
# scans of each generation in that step.

# %%
fig, ax = plt.subplots(figsize=(10, 4.2))
for i, (_, _, seconds, log) in enumerate(runs):
    small, full = log.seconds[0] + log.seconds[1], log.seconds[2]
    parts = [
        (seconds - small - full, "#7fa7e0", "outside collections"),
        (small, "#e69f00", "small scans (generations 0, 1)"),
        (full, "#c0392b", "full scans"),
    ]
    bottom = 0.0
    for height, color, label in parts:
        ax.bar(i, height, bottom=bottom, color=color, label=label if i == 0 else None)
        bottom += height
ax.set_xticks(
    range(6),
    [
        f"step {k}: {setting}\nscans {log.scans[0]}/{log.scans[1]}/{log.scans[2]}"
        for k, setting, _, log in runs
    ],
    fontsize=8,
)
ax.set_ylabel("CPU seconds (this run)")
ax.set_title("One scalar training step under three collector settings")
ax.legend(fontsize=8)
ax.grid(True, axis="y", alpha=0.3)
plt.tight_layout()
plt.show()

# %% [markdown]
# Read the bars from the bottom. In this run the blue part, the engine's own work, is
# about the same under every setting (it moves from run to run). With the defaults,
# one step runs many scans of generation 0 (one per 700 new objects; 2,000 on Python
# 3.13), a tenth as many of
# generation 1 and at most a few full scans, and in this run the full scans (red) take most of the collector's time: each walks every tracked object alive,
# the graph being built and the previous one, hundreds of thousands of objects. Raising
# only the third threshold removes the red part and leaves the small scans (orange),
# which look at recent objects only. With the collector off, only blue is left. (Machines
# differ in the split; run the cell again to see how much it moves.)
#
# So in this run most of the collector's cost was the full scans, and a full scan walks
# every live object. One more
# experiment checks that its time follows the number of live objects: it times one full
# collection (`gc.collect()`, the best of three) with 0, 1, 2 and then 3 step graphs kept
# alive, and changes nothing else.

# %%
loss = None  # drop the graph the experiment above left alive
kept, tracked, full_seconds = [], [], []
gc.collect()
for graphs in range(4):
    if graphs:
        kept.append(scalar_step(scalar_model, graphs))  # one more graph stays alive
    tracked.append(len(gc.get_objects()))  # objects the collector tracks, everything in this kernel
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        gc.collect()
        best = min(best, time.process_time() - started)
    full_seconds.append(best)
kept.clear()
print(f"tracked objects rose with each graph kept alive: {all(np.diff(tracked) > 0)}")

fig, ax = plt.subplots(figsize=(6, 3.4))
ax.plot(np.array(tracked) / 1000, full_seconds, "o-", color="#c0392b")
for graphs, (n, sec) in enumerate(zip(tracked, full_seconds)):
    ax.annotate(
        f"{graphs} graph{'s' if graphs != 1 else ''}",
        (n / 1000, sec),
        textcoords="offset points",
        xytext=(6, -12),
    )
ax.set_xlabel("objects tracked by the collector (thousands)")
ax.set_ylabel("CPU seconds (this run)")
ax.set_title("One full collection: time against objects alive")
ax.set_ylim(bottom=0)
ax.grid(True, alpha=0.3)
plt.tight_layout()
plt.show()

# %% [markdown]
# Each step graph kept alive adds the same block of objects (one or more per node of its
# 68,818), and in this run the time of a full scan rises with them, close to a straight
# line; with no
# graph alive what is left is the rest of the kernel (NumPy, matplotlib, the notebook). A
# tensor graph is a few dozen objects, so by this line a tensor step adds next to nothing
# to a full scan.
#
# What to do about it in your own loop: nothing is wrong with the collector, and the
# engine must not switch it off behind your back. You may pause it around a training
# run with `gc.disable()` ... `gc.enable()`, as chapter 9 did, when you know your graphs
# hold no cycles. Making fewer objects per node helps in every loop, which is what the next section does in
# the extreme.
#
# ## Scalar against tensor engine
#
# The tensor engine runs the same step on whole arrays. `MLP.from_scalar` gives it the
# same starting weights as the scalar network, so both runs should produce the same
# losses, step by step. Three scalar steps are enough to time it (each takes a good
# fraction of a second); the tensor engine runs all 100 steps of chapter 9. Both use
# the plain loop with the collector at its defaults.

# %% tags=["claim-setup"]
reset(scalar_model)
tensor_model = MLP.from_scalar(scalar_model)
targets = y.reshape(-1, 1).astype(float)


def tensor_step(model, k):
    params = model.parameters()
    loss = (1 - targets * model(X)).relu().mean() + 1e-4 * sum((p * p).sum() for p in params)
    model.zero_grad()
    loss.backward()
    lr = 1.0 - 0.9 * k / 100
    for p in params:
        p.data -= lr * p.grad
    return loss


# %%
SCALAR_STEPS, TENSOR_STEPS = 3, 100
scalar_losses, scalar_times, tensor_losses, tensor_times = [], [], [], []
for k in range(TENSOR_STEPS):
    if k < SCALAR_STEPS:
        started = time.perf_counter()
        loss = scalar_step(scalar_model, k)
        scalar_times.append(time.perf_counter() - started)
        scalar_losses.append(loss.data)
    started = time.perf_counter()
    tensor_loss = tensor_step(tensor_model, k)
    tensor_times.append(time.perf_counter() - started)
    tensor_losses.append(float(tensor_loss.data))

for k in range(SCALAR_STEPS):
    print(f"step {k}: scalar loss {scalar_losses[k]:.10f}, tensor loss {tensor_losses[k]:.10f}")
same = np.allclose(scalar_losses, tensor_losses[:SCALAR_STEPS], rtol=1e-10, atol=0)
print(f"the same losses to 10 significant digits: {same}")
final_accuracy = np.mean((tensor_model(X).data[:, 0] > 0) == (y > 0))
print(
    f"tensor engine after {TENSOR_STEPS} steps: loss {tensor_losses[-1]:.4f},",
    f"accuracy {final_accuracy:.0%}",
)

# %% [markdown]
# The two engines agree on the first three losses (0.9474 at step 0, exactly chapter 9's
# starting loss) to ten significant digits, and the tensor engine goes on to chapter 9's
# result: 100 % of the points right after 100 steps. Now the time per step, on a log
# scale, since the two bars differ by orders of magnitude:

# %% tags=["nbval-ignore-output"]
scalar_median, tensor_median = np.median(scalar_times), np.median(tensor_times)
fig, ax = plt.subplots(figsize=(7, 3.6))
ax.bar(
    ["scalar engine (Value)", "tensor engine (Tensor)"],
    [scalar_median, tensor_median],
    color=["#c0392b", "#2e5cb8"],
)
ax.set_yscale("log")
ax.set_ylabel("median seconds per step (log scale)")
ax.set_title(
    f"Same step, same losses: the tensor engine is about {scalar_median / tensor_median:,.0f}x faster"
)
ax.grid(True, axis="y", which="both", alpha=0.3)
plt.tight_layout()
plt.show()

# %% [markdown]
# The ratio in the title is this run's, and it changes from machine to machine and from
# run to run (so this cell's output is not compared when the notebook is checked). It is
# large everywhere: hundreds to thousands on the machines we tried, and a claims test checks
# that it is above 20 on whatever machine runs it.
# <!-- claim: ch12-tensor-faster -->
# The work is the same arithmetic. What changed is who loops: the
# scalar engine runs a Python method, and creates a Python object, for each of the
# 68,818 operations, while the tensor engine makes 45 calls into NumPy, whose loops over
# the numbers run in compiled code.
#
# ## A real data set: handwritten digits
#
# `load_digits()` returns 1,797 scanned handwritten digits shipped with the package (the
# test set of the UCI "Optical Recognition of Handwritten Digits" data, CC BY 4.0; see
# `micrograd_lesson/data/README.md`). Each is an 8 × 8 image whose pixels count the ink
# in a 4 × 4 block of the original scan, 0 to 16.

# %% tags=["claim-setup"]
digits_X, digits_y = load_digits()

# %%
print(
    f"images: {digits_X.shape[0]}, each {digits_X.shape[1]} pixels; digits per class: "
    f"{np.bincount(digits_y).min()} to {np.bincount(digits_y).max()}"
)
fig, axes = plt.subplots(2, 10, figsize=(10, 2.4))
for ax, i in zip(axes.ravel(), range(20)):
    ax.imshow(digits_X[i].reshape(8, 8), cmap="gray_r", vmin=0, vmax=16)
    ax.set_title(str(digits_y[i]), fontsize=10)
    ax.axis("off")
plt.suptitle("The first 20 digits and their labels")
plt.tight_layout()
plt.show()

# %% [markdown]
# We hold out a fifth of the images, chosen at random with a seed: 360 digits the
# network never trains on, to measure it honestly. (The 1,797 images come from 13
# writers, so held-out digits are by people the network has seen; digits from new
# writers would be a harder test.) Pixels are divided by 16, so every input lies in
# [0, 1].
#
# The network is `MLP(64, [HIDDEN, 10])`: 64 pixels in, 128 ReLU neurons, 10 logits out,
# one per digit, trained with softmax cross-entropy from chapter 11. Two more ideas make
# it reliable:
#
# - **Shifted copies.** A digit moved by one pixel is still the same digit, so every
#   training image is also shown moved one pixel up, down, left and right (what moves in
#   is blank): 5 × 1,437 = 7,185 training images. The network learns not to depend on
#   exactly where the ink sits.
# - **A falling learning rate.** Each update uses a **mini-batch** of 32 images, with
#   momentum 0.9; the learning rate starts at 0.1 and falls along half a cosine wave to
#   0 at the last update, so the last epochs settle instead of jumping about.
#
# One pass over the training images is an **epoch**; there are 10.
#
# How was this recipe chosen? By its worst held-out accuracy over ten splits (seeds 0 to
# 9, each seed choosing the held-out fifth, the starting weights and the batch order),
# every candidate run on the same ten. We started from a plain recipe: 64 neurons, 30
# epochs at a constant rate of 0.1, no shifted copies (it is compared with the final one
# below). A falling rate, a weight penalty, 128 neurons and inputs scaled to unit
# variance, alone or in the combinations we tried, left the worst split at 96.7 % or
# below; shifted copies with a falling rate lifted it to 96.9 % with 64 neurons (15
# epochs) and to 97.2 % with 128 neurons (10 epochs), the recipe used here.

# %% tags=["claim-setup"]
HIDDEN, EPOCHS, BATCH, LR, MOMENTUM = 128, 10, 32, 0.1, 0.9
SHIFTS = [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)]  # (rows down, columns right): itself, then 4 moves


def shifted(images, rows, cols):
    """Images (one 64-pixel row each) moved by `rows` down and `cols` right; what moves in is blank."""
    square = images.reshape(-1, 8, 8)
    moved = np.zeros_like(square)
    moved[:, max(rows, 0) : 8 + min(rows, 0), max(cols, 0) : 8 + min(cols, 0)] = square[
        :, max(-rows, 0) : 8 + min(-rows, 0), max(-cols, 0) : 8 + min(-cols, 0)
    ]
    return moved.reshape(-1, 64)


def split(seed):
    """A fifth of the digits held out, chosen by seed: X_train, y_train, X_test, y_test (pixels 0 to 1)."""
    order = np.random.default_rng(seed).permutation(len(digits_y))
    test_idx, train_idx = order[:360], order[360:]
    inputs = digits_X / 16.0
    return inputs[train_idx], digits_y[train_idx], inputs[test_idx], digits_y[test_idx]


def train_digits(seed, hidden=HIDDEN, epochs=EPOCHS, shifts=SHIFTS, falling=True):
    """Train on split(seed), starting weights and batch order from the same seed.

    Returns the model, the held-out images and labels, and per epoch the mean training loss
    over its batches and the held-out accuracy. falling=False keeps the rate at LR.
    """
    X_train, y_train, X_test, y_test = split(seed)
    X_big = np.concatenate([shifted(X_train, rows, cols) for rows, cols in shifts])
    y_big = np.tile(y_train, len(shifts))
    model = MLP(64, [hidden, 10], seed=seed)
    optimizer = SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    batch_rng = np.random.default_rng(seed)
    updates, done = epochs * -(-len(y_big) // BATCH), 0
    epoch_losses, test_accuracies = [], []
    for _ in range(epochs):
        shuffled = batch_rng.permutation(len(y_big))
        batch_losses = []
        for first in range(0, len(shuffled), BATCH):
            batch = shuffled[first : first + BATCH]
            loss = cross_entropy(model(X_big[batch]), y_big[batch])
            optimizer.zero_grad()
            loss.backward()
            if falling:
                optimizer.lr = LR * 0.5 * (1 + np.cos(np.pi * done / updates))  # from LR down to 0
            optimizer.step()
            done += 1
            batch_losses.append(float(loss.data))
        epoch_losses.append(np.mean(batch_losses))
        test_accuracies.append(np.mean(model(X_test).data.argmax(axis=1) == y_test))
    return model, X_test, y_test, epoch_losses, test_accuracies


# %%
started = time.process_time()
digit_model, X_test, y_test, epoch_losses, test_accuracies = train_digits(SEED)
training_seconds = time.process_time() - started
for epoch in range(EPOCHS):
    print(
        f"epoch {epoch + 1:2d}: training loss {epoch_losses[epoch]:.4f}, "
        f"held-out accuracy {test_accuracies[epoch]:.1%}"
    )
predictions = digit_model(X_test).data.argmax(axis=1)
accuracy = np.mean(predictions == y_test)
print(f"held-out accuracy: {accuracy:.1%} ({np.sum(predictions == y_test)} of {len(y_test)})")

# %% [markdown]
# After one epoch the network already reads 92.5 % of the held-out digits right;
# after 10 it gets 98.1 % of the 360 (353 of them). How long did that take? The exact CPU
# time differs from machine to machine (print `training_seconds` to see yours), so the
# stored notebook keeps only the verdict the course relies on:

# %%
print(f"training took {'under' if training_seconds < 10 else 'over'} 10 CPU seconds on this machine")

# %% [markdown]
# On the machines we tried it took one to a few CPU seconds (2,250 updates of 32
# images), and a claims test checks that it stays under 10 CPU seconds on whatever
# machine runs it.
# <!-- claim: ch12-digits-in-seconds -->
#
# One split is one draw. Here is the same recipe on all ten splits it was chosen on,
# with the plain recipe beside it:


# %%
def held_out_accuracy(seed, **recipe):
    model, X_held, y_held, _, _ = train_digits(seed, **recipe)
    return np.mean(model(X_held).data.argmax(axis=1) == y_held)


plain = {"hidden": 64, "epochs": 30, "shifts": [(0, 0)], "falling": False}
plain_accuracies = {seed: held_out_accuracy(seed, **plain) for seed in range(10)}
split_accuracies = {SEED: accuracy} | {seed: held_out_accuracy(seed) for seed in range(1, 10)}
print("split:          " + " ".join(f"{seed:>6d}" for seed in split_accuracies))
print("plain recipe:   " + " ".join(f"{acc:6.1%}" for acc in plain_accuracies.values()))
print("this recipe:    " + " ".join(f"{acc:6.1%}" for acc in split_accuracies.values()))
for name, accs in (("plain recipe", plain_accuracies), ("this recipe", split_accuracies)):
    low, high = min(accs.values()), max(accs.values())
    print(f"{name}: lowest {low:.1%}, highest {high:.1%}; at least 97 % on every split: {low >= 0.97}")

# %% [markdown]
# The plain recipe also gets 98.1 % on split 0, but only 95.6 % to 98.3 % over the ten;
# this recipe gets 97.2 % to 99.4 %, at least 97 % on every one. The recipe was chosen on these ten, which flatters it, so we also ran it on ten
# fresh splits (seeds 10 to 19) that played no part in the choice: every one of them
# reached 97 % too, and a claims test re-runs five of them.
# <!-- claim: ch12-digits-97 -->
# The curves of the split-0 run:

# %%
fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 3.4))
epochs = np.arange(1, EPOCHS + 1)
ax_loss.plot(epochs, epoch_losses, "o-", color="#2e5cb8", markersize=3)
ax_loss.set_yscale("log")
ax_loss.set_title("Training loss (mean over each epoch's batches)")
ax_acc.plot(epochs, np.array(test_accuracies) * 100, "o-", color="#2e8b57", markersize=3)
ax_acc.axhline(97, color="#999999", linestyle="--", label="97 %")
ax_acc.set_title("Held-out accuracy (%)")
ax_acc.legend()
for ax in (ax_loss, ax_acc):
    ax.set_xlabel("epoch")
    ax.grid(True, which="both", alpha=0.3)
plt.tight_layout()
plt.show()

# %% [markdown]
# The training loss keeps falling on a log scale. The held-out accuracy moves by a few
# digits (each digit is 0.28 %) from epoch to epoch while the learning rate is large,
# passes the dashed 97 % line at epoch 5, and settles at 98.1 % as the rate falls to
# zero in the last epochs. Which digits does it confuse? A **confusion matrix** counts, for each
# true digit (row), how often the network said each digit (column); the diagonal holds
# the correct answers.

# %%
confusion = np.bincount(y_test * 10 + predictions, minlength=100).reshape(10, 10)
fig, ax = plt.subplots(figsize=(5.5, 5))
ax.imshow(confusion, cmap="Blues")
for i in range(10):
    for j in range(10):
        if confusion[i, j]:
            ax.text(
                j,
                i,
                confusion[i, j],
                ha="center",
                va="center",
                color="white" if confusion[i, j] > 20 else "black",
                fontsize=9,
            )
ax.set_xticks(range(10))
ax.set_yticks(range(10))
ax.set_xlabel("predicted digit")
ax.set_ylabel("true digit")
ax.set_title(f"Confusion matrix, {len(y_test)} held-out digits")
plt.tight_layout()
plt.show()
mistakes = np.flatnonzero(predictions != y_test)
misread = ", ".join(f"{y_test[i]} read as {predictions[i]}" for i in mistakes)
print(f"{len(mistakes)} mistakes: {misread}")

# %% [markdown]
# Almost everything is on the diagonal. The 7 mistakes are listed under the matrix: two
# are the network saying 1 (for a 2 and an 8), and two are 3s read as 5. Here they are as
# images, with the network's answer and the truth:

# %%
fig, axes = plt.subplots(1, len(mistakes), figsize=(min(8.5, 1.2 * len(mistakes)), 2.2))
for ax, i in zip(np.atleast_1d(axes), mistakes):
    ax.imshow(X_test[i].reshape(8, 8), cmap="gray_r", vmin=0, vmax=1)
    ax.set_title(f"said {predictions[i]}\nwas {y_test[i]}", fontsize=10)
    ax.axis("off")
plt.tight_layout()
plt.show()

# %% [markdown]
# At 8 × 8 pixels some of these are hard for a person too. A network of 9,610 parameters
# trained for a few seconds gets the rest right, and every number in this section came from
# the engine built in chapters 1 to 11.
#
# ## Exercises
#
# **1. Read a confusion matrix (predict, then implement).** Two numbers per class sum
# up a confusion matrix. A class's **recall** is the fraction of its points the network
# recognised; its **precision** is the fraction of the network's answers "this class"
# that were right. Predict first, from the digit matrix and the list of mistakes above:
# which digit has the lowest precision, and which the lowest recall? Then write
# `recall_precision(confusion)` returning `(recall, precision)`, two arrays with one
# entry per class, for any square matrix laid out as above (row: true class, column:
# prediction), and compare its answer on the digit matrix with your prediction.

# %%
from micrograd_lesson.exercises import check_cross_entropy_grad, check_recall_precision, reveal


def recall_precision(confusion):
    correct = np.diag(confusion)
    return correct / correct.sum(), correct / correct.sum()  # fix both denominators


check_recall_precision(recall_precision)

# %%
reveal("ch12.recall_precision")

# %% [markdown]
# **2. Derive the gradient of softmax cross-entropy (derive).** The tensor engine finds
# $\partial L / \partial z$ for the mean cross-entropy by running backward through
# log-sum-exp. Derive it on paper instead, from $L = \frac{1}{N} \sum_n \left(\log
# \sum_c e^{z_{nc}} - z_{n t_n}\right)$, and write `cross_entropy_grad(logits, labels)`
# with NumPy alone (no `Tensor`). The check compares it with the engine's gradient,
# including a batch whose logits are in the thousands and one whose rows are far apart.


# %%
def cross_entropy_grad(logits, labels):
    return np.zeros_like(logits)  # replace with your derivation


check_cross_entropy_grad(cross_entropy_grad)

# %%
reveal("ch12.cross_entropy_grad")

# %% [markdown]
# Next: **chapter 13**, beyond reverse mode: forward mode with dual numbers, gradients
# of gradients, and the map from this engine to PyTorch.
