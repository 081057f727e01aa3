# %% [markdown]
# # Chapter 7 — Neurons, layers, MLPs
#
# The engine is finished: any formula built from `Value`s can be differentiated with one
# call to `backward()`. A neural network is just a large formula of that kind, with many
# knobs. This chapter builds the three small classes that write such formulas for us —
# `Neuron`, `Layer` and `MLP` — and the one shared habit they have: every one of them can
# list its knobs (`parameters()`) and reset their gradients (`zero_grad()`).
#
# We build each class on screen first, in a few lines, then switch to the package's
# version in `micrograd_lesson.nn` and prove the two compute the same numbers. After that
# we look inside: a single neuron's graph drawn node by node, how many parameters a
# network has and why, and how many nodes one forward pass creates.

# %% tags=["claim-setup"]
import random
import textwrap
from collections import Counter

import matplotlib.pyplot as plt

from micrograd_lesson import Value, describe_figure, draw_dot, four_examples, nn

random.seed(0)

# %% [markdown]
# ## A neuron: a weighted vote, then a squash
#
# A neuron takes a list of inputs $x_1, \dots, x_n$, multiplies each by its own weight
# $w_i$, adds a bias $b$, and passes the total through an *activation function*:
#
# $$\text{out} = \tanh\Big(\sum_{i=1}^{n} w_i x_i + b\Big)$$
#
# In words: each input gets a say in proportion to its weight, the bias shifts the total
# up or down, and tanh squashes the result into the range −1 to 1. Without the squash,
# layers of weighted sums add up to one weighted sum of the inputs (plus a constant),
# however many layers there are; chapter 8 takes the tanh out of a network on the XOR
# problem and watches it fail.
#
# The weights and the bias are the neuron's **parameters**: the numbers training will
# adjust. They must be `Value`s so that `backward()` reaches them. Weights start at
# random numbers between −1 and 1 (if they all started equal, every neuron in a layer
# would compute the same thing and receive the same gradient, forever: a section below
# shows it); the bias starts at 0.
#
# Every class below shares one small parent, `Module`, which knows how to reset the
# gradients of whatever `parameters()` returns.


# %%
class Module:
    def parameters(self):
        return []

    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0


class Neuron(Module):
    def __init__(self, nin, nonlin=True):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin  # the last layer of a network skips tanh

    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)  # w . x + b
        return act.tanh() if self.nonlin else act

    def parameters(self):
        return self.w + [self.b]


# %% [markdown]
# `__call__` is what lets us write `neuron(x)` as if the object were a function. The sum
# starts at `self.b` rather than at 0: the bias is the running total's first term.
#
# ## A layer: several neurons reading the same inputs
#
# A layer is a list of independent neurons that all look at the same inputs; its output
# is the list of their outputs. A layer of one neuron returns that neuron's output on
# its own rather than a one-element list, which makes the last layer of a network
# convenient to use.


# %%
class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]


# %% [markdown]
# ## An MLP: layers in a chain
#
# A multi-layer perceptron feeds each layer's outputs to the next. `MLP(3, [4, 4, 1])`
# means 3 inputs, then a layer of 4 neurons, another of 4, and a final layer of 1. The
# last layer is left *linear* (no tanh) so the network's output can be any number, not
# only one between −1 and 1.


# %%
class MLP(Module):
    def __init__(self, nin, nouts):
        sizes = [nin] + nouts
        last = len(nouts) - 1
        self.layers = [Layer(sizes[i], sizes[i + 1], nonlin=i != last) for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


# %% [markdown]
# That is the whole of it: about forty lines. The package's `micrograd_lesson.nn` holds
# the same four classes with input checks, readable `repr`s and a choice of activation
# (`activation="relu"`, the default as in the original micrograd, or `"tanh"`,
# `"sigmoid"`, `"linear"`). Building both from the same random seed draws the same
# weights, so the two networks must give identical outputs:

# %%
x = [2.0, 3.0, -1.0]

random.seed(1)
ours = MLP(3, [4, 4, 1])
random.seed(1)
package = nn.MLP(3, [4, 4, 1], activation="tanh")

print(f"on-screen MLP: {ours(x).data:.10f}")
print(f"package MLP:   {package(x).data:.10f}")
print(textwrap.fill(repr(package), 100))

# %% [markdown]
# Both print 0.0251182032 for the input [2, 3, −1], to ten decimals. The `repr` on the
# last line shows the structure: two layers of `TanhNeuron`s and a final `LinearNeuron`.
# From here on we use the package's classes, written `nn.Neuron`, `nn.Layer`, `nn.MLP`.
#
# ## One neuron, drawn
#
# A neuron's output is an ordinary `Value` at the end of an ordinary graph. Here is a
# tanh neuron with two inputs, x1 = 2 and x2 = −1, its parameters labelled, after
# `backward()`:


# %%
def fit_screen(drawing):
    """Ask Graphviz to lay a drawing out compactly, within 10 x 6.5 inches: a laptop screen."""
    drawing.graph.graph_attr.update(size="10,6.5", ranksep="0.2", nodesep="0.15")
    return drawing


random.seed(0)
neuron = nn.Neuron(2, activation="tanh")
for p, name in zip(neuron.parameters(), ["w1", "w2", "b"]):
    p.label = name
x1, x2 = Value(2.0, label="x1"), Value(-1.0, label="x2")
out = neuron([x1, x2])
out.label = "out"
out._prev[0].label = "w·x+b"  # the node tanh reads: the pre-activation
out.backward()
fit_screen(draw_dot(out, rankdir="TB"))

# %% [markdown]
# Read it top to bottom. The random weights are w1 ≈ 0.6888 and w2 ≈ 0.5159, and b = 0.
# The two products w1·x1 = 1.3777 and w2·x2 = −0.5159 are added onto b, giving the
# pre-activation 0.8618, and tanh turns that into out ≈ 0.6972.
#
# Read it bottom to top for the gradients. tanh's local derivative is $1 - \text{out}^2
# = 1 - 0.6972^2 \approx 0.5139$; every `+` node passes that on unchanged, so b's gradient
# is 0.5139. Each weight's gradient is that number times *its own input*: w1 gets
# 0.5139 × 2 = 1.0279 and w2 gets 0.5139 × (−1) = −0.5139. An input with a larger
# magnitude gives its weight more leverage over the output. The inputs get gradients too
# (0.5139 times their weight: 0.3540 and 0.2652), although training will not change them.

# %%
for p in neuron.parameters() + [x1, x2]:
    print(f"{p.label:>2}: data {p.data:7.4f}   grad {p.grad:7.4f}")

# %% [markdown]
# ## `parameters()`: the list training needs
#
# Training will nudge every parameter against its gradient, so it needs them all in one
# flat list. Each class answers by asking its parts: an MLP asks its layers, a layer asks
# its neurons, a neuron returns its weights followed by its bias.
#
# Counting them is simple arithmetic. A neuron with `nin` inputs has `nin` weights and 1
# bias; a layer of `nout` such neurons has $(\text{nin} + 1) \times \text{nout}$. For
# `MLP(3, [4, 4, 1])` that is (3 + 1)·4 + (4 + 1)·4 + (4 + 1)·1 = 16 + 20 + 5 = **41**.
# For `MLP(2, [16, 16, 1])`, the network that will learn the two-moons data in chapter 9,
# it is (2 + 1)·16 + (16 + 1)·16 + (16 + 1)·1 = 48 + 272 + 17 = **337**.

# %%
for nin, nouts in [(3, [4, 4, 1]), (2, [16, 16, 1])]:
    model = nn.MLP(nin, nouts)
    sizes = [nin] + nouts
    terms = [f"({a} + 1)*{b}" for a, b in zip(sizes, sizes[1:])]
    by_formula = sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))
    print(
        f"MLP({nin}, {nouts}): {len(model.parameters())} parameters;  "
        + " + ".join(terms)
        + f" = {by_formula}"
    )

# %% [markdown]
# The counts from `parameters()` and from the formula agree: 41 and 337. Notice the
# middle term of the larger network. A layer reading 16 inputs with 16 neurons holds
# 272 of the 337 parameters, because connecting every neuron to every input grows with
# the *product* of the widths. Double the hidden width and the parameter count heads
# towards four times as many (the plot below goes from 337 at width 16 to 1,185 at
# width 32, 3.5 times).
#
# ## `zero_grad()`: why every step starts by wiping the slate
#
# Chapter 4 made gradients *accumulate* with `+=`, so that a value used twice collects
# both contributions. The price is that leaves — and parameters are leaves — keep what
# earlier `backward()` calls left in them. Run two forward-and-backward passes without
# zeroing and the first weight's gradient doubles; `zero_grad()` puts it back to 0:

# %%
random.seed(1)
model = nn.MLP(3, [4, 4, 1], activation="tanh")
w = model.parameters()[0]

model(x).backward()
print(f"after one backward:   grad {w.grad:.4f}")
model(x).backward()
print(f"after two backwards:  grad {w.grad:.4f}")
model.zero_grad()
print(f"after zero_grad():    grad {w.grad:.4f}")

# %% [markdown]
# The first backward pass leaves 0.8435 in the weight's `grad`; the second adds the same
# amount again, giving 1.6871 (twice 0.84354, rounded), a gradient twice too large that
# would push training twice too far. Every training loop in the following chapters
# therefore zeroes the gradients before each `backward()`: chapter 8 writes it as forward
# pass, `zero_grad()`, `backward()`, update.
#
# ## Why the starting weights are random
#
# Suppose the neurons of a layer start as exact copies of each other: the same weights,
# the same bias, and, in the layer after, the same weight on each of their outputs. Then
# they compute the same output, and `backward()` hands each the same gradient. Here is
# `MLP(2, [4, 1])` on the four corners of the XOR problem (chapter 8's last section),
# once from its random start and once with its four hidden neurons made into copies of
# the first, changing nothing else. We print the gradient of each hidden neuron's first
# weight, and the weights after one update of gradient descent ("after the update"):

# %%
from micrograd_lesson import xor

xor_X, xor_y = xor()

for start in ("random", "copies"):
    random.seed(0)
    net = nn.MLP(2, [4, 1], activation="tanh")
    if start == "copies":  # each hidden neuron set to the first one's weights and bias
        nn.make_copies(net)
    xor_loss = sum((net(xi) - yi) ** 2 for xi, yi in zip(xor_X.tolist(), xor_y.tolist()))
    net.zero_grad()
    xor_loss.backward()
    hidden = net.layers[0].neurons
    print(f"{start:>6} start: grads " + ", ".join(f"{n.w[0].grad:+.4f}" for n in hidden), end="")
    for p in net.parameters():  # one update of gradient descent
        p.data -= 0.05 * p.grad
    print("; after the update " + ", ".join(f"{n.w[0].data:+.4f}" for n in hidden))

# %% [markdown]
# From the random start the four gradients differ, so one update pulls the four neurons
# four different ways. From the copies all four gradients are the same number, +0.0431, so after
# the update the four weights are still equal, and the same argument holds for the next
# step, and every step after it: the copies stay copies for ever, and the layer works as
# one neuron however wide it is. Random starting weights are what makes the neurons of a
# layer differ. Chapter 8 trains both networks on XOR and measures what the copies cost.
#
# A wrong input size is caught at once, with a message that says what was expected. This
# network reads 3 inputs; here it is given 2:

# %%
try:
    model([1.0, 2.0])
except ValueError as e:
    print(f"{type(e).__name__}: {e}")

# %% [markdown]
# ## A whole network is one graph
#
# Layers are only a way of organising the formula. Drawn, even the smallest network is
# one graph from the input to a single output. Here is `MLP(1, [2, 1])`: one input x,
# two tanh neurons, whose outputs h1 and h2 feed one linear neuron. (One input keeps the
# drawing small enough to read on one screen; the next section counts bigger graphs
# instead of drawing them.) We call its two layers one after the other, exactly as
# `MLP.__call__` does, so that we can label the hidden outputs; the biases are labelled
# too, and the unlabelled leaves beside each `*` are weights (gradients hidden, since we
# have not run `backward()`):

# %%
random.seed(2)
tiny = nn.MLP(1, [2, 1], activation="tanh")
for i, neuron_i in enumerate(tiny.layers[0].neurons + tiny.layers[1].neurons, start=1):
    neuron_i.b.label = f"b{i}"
h = tiny.layers[0]([Value(1.0, label="x")])
h[0].label, h[1].label = "h1", "h2"
tiny_out = tiny.layers[1](h)
tiny_out.label = "out"
fit_screen(draw_dot(tiny_out, rankdir="TB", show_grad=False))

# %% [markdown]
# The input x has an arrow into *both* first-layer products — a layer's neurons all read
# the same inputs — and both tanh outputs feed the last neuron's products. Count the
# boxes: 18 values, which are 1 input, 7 parameters (a weight and a bias in each hidden
# neuron, two weights and a bias in the output neuron), 4 products, 4 sums and 2 tanh
# outputs. Count the ovals: 10 operations, one for each product, sum and tanh.
#
# ## How many nodes does one forward pass build?
#
# `backward()` visits every node of the graph once, and a training loop rebuilds the
# graph at every step, so the number of nodes measures the work of one step.
# `topological_order()` lists every node exactly once, so its length is the count. Here
# it is for one input to `MLP(3, [4, 4, 1])`, sorted by operation (an empty name is a
# leaf: a parameter or an input):

# %%
inputs = [Value(v) for v in x]
one = model(inputs)
order = one.topological_order()
print(f"one input, given as Values: {len(order)} nodes", dict(Counter(n._op for n in order)))
print(f"one input, given as floats: {len(model(x).topological_order())} nodes")

# %% [markdown]
# **116 nodes**, and every one can be predicted. A tanh neuron with $k$ inputs adds $k$
# weights, 1 bias, $k$ products, $k$ sums (the running total starts at the bias) and 1
# tanh: $3k + 2$ nodes. The first layer's four neurons each read 3 inputs (4 × 11 = 44),
# the second layer's four read 4 (4 × 14 = 56), and the linear output neuron reads 4 and
# has no tanh (13). With the 3 inputs, 3 + 44 + 56 + 13 = 116. Sorted by kind that is
# 44 leaves (41 parameters and 3 inputs), 32 products, 32 sums and 8 tanh nodes.
#
# Given plain floats instead, the count is **125**: a float is wrapped in a fresh `Value`
# each time it meets a weight, so each of the 3 inputs becomes 4 leaf nodes, one per
# first-layer neuron — 12 instead of 3.
#
# Now the loss over the four training examples of chapter 8, the squared distance from
# each prediction to its target, summed:

# %%
xs, ys = four_examples()
loss = sum((model(xi) - yi) ** 2 for xi, yi in zip(xs, ys))
order = loss.topological_order()
print(f"loss = {loss.data:.4f}: {len(order)} nodes", dict(Counter(n._op for n in order)))
n_params_in_graph = sum(1 for n in order if any(n is p for p in model.parameters()))
print(f"of which parameters: {n_params_in_graph}")

# %% [markdown]
# **394 nodes** for a 41-parameter network and four examples, and the second line
# shows the first thing to know when you count them: all 41 parameters are in the graph
# **once**, because all four forward passes share them. The graph is a DAG, not four
# copies of one. Where the other 353 come from is exercise 3: predict the count for any
# network and any number of examples, from the sizes alone.
#
# That is also the scalar engine's weakness in one number: nearly ten nodes per parameter
# for four examples, each one a Python object, all built again at every training step.
# Python's garbage collector keeps track of objects that can hold references to
# others, such as a `Value` (a plain float cannot, and is not tracked). We can ask it, for
# each new node, whether it tracks the node, and which other tracked objects the node
# refers to (anything a node kept alive per node, a list or a tuple of its own, would show
# up there):

# %%
import gc

counted = sum((model(xi) - yi) ** 2 for xi, yi in zip(xs, ys))
existing = set(model.parameters())  # the parameters existed before the pass
new = [n for n in counted.topological_order() if n not in existing]
held = {
    id(r): r
    for n in new
    for r in gc.get_referents(n)
    if gc.is_tracked(r) and type(r) not in (Value, type)
}
print(f"new nodes: {len(new)}; tracked by the collector: {sum(gc.is_tracked(n) for n in new)}")
kinds = sorted({type(r).__name__ for r in held.values()})
print(f"other tracked objects the new nodes refer to: {len(held)} ({', '.join(kinds)})")

# %% [markdown]
# 353 new nodes (394 less the 41 parameters, which existed before the pass), each one
# object the collector tracks, and between them they refer to just 5 other tracked
# objects: the derivative rules of the five operations in the graph (`*`, `+`, `tanh`,
# `-`, `**2`), functions that every graph shares. So a pass gives the collector one
# object per node to track, and nothing else: a node keeps its inputs and their local
# derivatives in its own fields, not in lists or tuples of its own (its numbers are
# floats, which the collector ignores).
#
# <details><summary>How we know</summary>
#
# Besides the 353 nodes above, we counted the collector's whole list of objects before and
# after one pass of the loss, outside the notebook, for three networks with weights
# drawn afresh (`MLP(3, [4, 4, 1])`, `MLP(3, [8, 1])` and `MLP(3, [5, 3, 2, 1])`): the list
# grew by exactly one object per new node every time.
#
# <!-- claim: ch07-one-object-per-node -->
# </details>
#
# Chapter 11 replaces these hundreds of small objects with a few arrays.
#
# ## How the graph grows with width
#
# How fast does this grow? For `MLP(2, [h, h, 1])` the parameter count is
# $(2+1)h + (h+1)h + (h+1) = h^2 + 5h + 1$, a quadratic in the width $h$, and the node
# count follows it, at roughly three nodes per parameter (a weight, its product and its
# sum):

# %%
widths = list(range(1, 33))
params, nodes = [], []
for h in widths:
    net = nn.MLP(2, [h, h, 1], activation="tanh")
    params.append(len(net.parameters()))
    nodes.append(len(net([Value(0.5), Value(-0.5)]).topological_order()))

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.plot(widths, nodes, "o-", ms=3, label="nodes in one forward pass")
ax.plot(widths, params, "s-", ms=3, label="parameters")
ax.set_xlabel("hidden width h in MLP(2, [h, h, 1])")
ax.set_ylabel("count")
ax.set_title("Graph size grows with the square of the width")
ax.grid(True, alpha=0.3)
ax.legend()
describe_figure(
    fig,
    "Both the number of nodes and the number of parameters grow with the square of the "
    "width, the nodes staying about 3 per parameter.",
)
plt.show()
print(f"h = 16: {params[15]} parameters, {nodes[15]} nodes ({nodes[15] / params[15]:.2f} per parameter)")
print(f"h = 32: {params[31]} parameters, {nodes[31]} nodes ({nodes[31] / params[31]:.2f} per parameter)")

# %% [markdown]
# At h = 16 (the chapter 9 network) one input builds 979 nodes for 337 parameters, 2.91
# per parameter; at h = 32, 3,491 nodes for 1,185 parameters, 2.95 per parameter. Both
# curves bend upwards together, and the ratio creeps towards 3 as the weights (each
# with its product and its sum) outnumber everything else.
#
# ## Summary
#
# - A `Neuron` computes tanh(w·x + b) (or another activation) from `Value`s; a `Layer` is
#   neurons sharing inputs; an `MLP` chains layers and leaves the last one linear.
# - `parameters()` collects every weight and bias into one list: $(\text{nin}+1)\times
#   \text{nout}$ per layer, 41 for `MLP(3, [4, 4, 1])`, 337 for `MLP(2, [16, 16, 1])`.
# - `zero_grad()` resets those gradients, because leaves accumulate across `backward()`
#   calls.
# - One forward pass builds a graph of about three nodes per parameter; shared
#   parameters appear once however many examples use them.
#
# ## Exercises
#
# **1. The widest network a budget allows (derive).** A small device can store `budget`
# parameters. Write `widest_hidden(nin, budget)`: the largest width h such that
# `MLP(nin, [h, h, 1])` has at most `budget` parameters (0 if not even h = 1 fits),
# without building a network. First write the count as a formula in h for any `nin`
# (the width plot above did it for `nin = 2` only); then solve it or search. Before you
# check: with 337 parameters and 2 inputs the answer is 16; what is it with 336?

# %%
from micrograd_lesson.exercises import (
    check_count_loss_nodes,
    check_leaky_neuron,
    check_widest_hidden,
    reveal,
)


def widest_hidden(nin, budget):
    return 16  # right for (2, 337) only


check_widest_hidden(widest_hidden)

# %%
reveal("ch07.widest_hidden")

# %% [markdown]
# **2. A Neuron variant: leaky ReLU (implement).** ReLU outputs 0, with a gradient of 0,
# for every negative input: a neuron whose pre-activation is negative on every example
# gets no gradient from any of them. The *leaky* ReLU lets a trickle through:
# out = a when a > 0, else 0.01 · a, where a = w·x + b.
# Write `LeakyNeuron(nin)`, a subclass of `nn.Module`, whose `parameters()` returns the
# weights then the bias, and whose output is built from `Value` operations so that
# gradients flow. (Hint: you may look at `a.data` to choose a branch.)


# %%
class LeakyNeuron(nn.Module):
    def __init__(self, nin):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)

    def __call__(self, x):
        a = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return a.relu()  # change this into a leaky ReLU

    def parameters(self):
        return self.w + [self.b]


check_leaky_neuron(LeakyNeuron)

# %%
reveal("ch07.leaky_neuron")

# %% [markdown]
# **3. Predict the loss's graph (predict, do not build).** Write
# `count_loss_nodes(nin, nouts, n_examples)`: the number of nodes in the graph of the loss
# `sum((model(x) - y) ** 2 for x, y in ...)` for `model = nn.MLP(nin, nouts,
# activation="tanh")` with one output, `n_examples` inputs given as lists of plain floats
# and targets as plain floats, exactly as in the 394-node cell above. Write it as a
# formula of the sizes: which nodes does each example add, which are shared, and what
# does the loss itself add? The numbers of this chapter are your evidence (116 and 125
# for one forward pass, 394 for the loss over four examples), and your function must give
# 394 for `(3, [4, 4, 1], 4)`. The check refuses a function that builds `Value`s, and it
# also asks about networks far too big to build: `(784, [512, 512, 1], 60000)` makes
# about $10^{11}$ nodes.


# %%
def count_loss_nodes(nin, nouts, n_examples):
    return 394  # right for one network and four examples only


check_count_loss_nodes(count_loss_nodes)

# %%
reveal("ch07.count_loss_nodes")

# %% [markdown]
# Next: **chapter 8**, where these networks learn: a loss, its gradient, and the
# four-line loop that turns them into better weights.
