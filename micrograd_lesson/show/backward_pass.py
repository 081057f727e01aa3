"""The backward pass, recorded step by step: what the step-through shows, without pictures.

`RecordedPass(root)` runs the one backward walk (graph.backward_pass: every grad
starts at 0, the graph's own `.grad` values are left as they were) and keeps one
step per node whose rule runs: the node, its gradient then, and what it sends to each
input. Frame 0 seeds the output's gradient with 1; frame k has run k rules. The views
(the drawings, the slider, the strip of frames) are in stepthrough.py.

It works on any object with `data`, `grad`, `_prev` and `_op`: the package's `Value`
(it reads each operation's `_local_grads`) and classes written on screen whose
operations set a `_backward` function (it runs that function and records what it added).
"""

from ..graph import backward_pass, inputs, reachable
from .draw import fmt

__all__ = ["RecordedPass"]

MAX_NODES = 40  # a frame per operation: past a few dozen values nobody can follow it


class Send:
    """One edge's share of a step: `child` receives `amount` (= incoming x local, when known)."""

    def __init__(self, child, position, local, amount, before, after, incoming):
        self.child, self.position = child, position
        self.incoming, self.local, self.amount = incoming, local, amount
        self.before, self.after = before, after  # child's grad just before and after this edge

    def label(self):
        if self.local is None:  # a custom _backward: we only see what it added
            return f"adds {short(self.amount)}"
        local = short(self.local) if self.local >= 0 else f"({short(self.local)})"
        return f"{short(self.incoming)} × {local} = {short(self.amount)}"


class RecordedPass:
    """The steps of one backward pass; see the module's docstring."""

    def __init__(self, root):
        for attr in ("data", "grad", "_prev", "_op"):
            if not hasattr(root, attr):
                raise TypeError(
                    f"step_through needs an object with data, grad, _prev and _op; "
                    f"{type(root).__name__} has no {attr!r}"
                )
        self.nodes = reachable(root)
        if len(self.nodes) > MAX_NODES:
            raise ValueError(
                f"this graph has {len(self.nodes)} values; step_through draws one frame per operation "
                f"and is meant for small graphs (at most {MAX_NODES} values). Step through a smaller piece."
            )
        self.root = root
        self.names = {id(n): getattr(n, "label", "") or f"#{i}" for i, n in enumerate(self.nodes)}
        self.steps = []  # [(node, its grad when its rule runs, [Send, ...]), ...]
        grads = {root: 1.0}
        for node, incoming, sends in backward_pass(root, grads):  # yields before it adds the sends in
            if inputs(node):
                self.steps.append((node, incoming, _sends(node, incoming, sends, grads)))
        self.grads = self.state(len(self.steps))[2]  # id(node) -> its grad at the end of the pass

    def __len__(self):
        """The number of frames: the seed, then one per backward rule."""
        return len(self.steps) + 1

    def grad(self, node):
        """node's gradient at the end of the pass (what backward() gives on a fresh graph)."""
        return self.grads.get(id(node), 0.0)

    def state(self, k):
        """(firing node or None, its sends, every grad after frame k, contributions received by then)."""
        grads, counts = {id(self.root): 1.0}, {}
        for _, _, sends in self.steps[:k]:
            for send in sends:
                grads[id(send.child)] = send.after
                counts[id(send.child)] = counts.get(id(send.child), 0) + 1
        if k == 0:
            return None, [], grads, counts
        return self.steps[k - 1][0], self.steps[k - 1][2], grads, counts

    def caption(self, k):
        """One line saying what happens in frame k."""
        n, root = len(self.steps), self.names[id(self.root)]
        if k == 0:
            return f"step 0 of {n}: start at the output: {root}.grad = 1 (a nudge to {root} moves {root} 1:1)"
        node, incoming, sends = self.steps[k - 1]
        name = self.names[id(node)]
        parts = ", ".join(f"{self.names[id(s.child)]} {s.label()}" for s in sends)
        return f"step {k} of {n}: {name} ({node._op}) runs its backward rule with {name}.grad = " + (
            f"{fmt(incoming)}; it sends {parts}"
        )

    def text(self, k=None):
        """The pass as text: frame k, or every frame and then the leaves' final gradients."""
        if k is None:
            return "\n".join([self.text(i) for i in range(len(self))] + ["final: " + self.leaf_grads()])
        lines = [self.caption(k)]
        _, sends, _, counts = self.state(k)
        for child in {id(s.child): s.child for s in sends}.values():  # an input used twice: one line
            lines.append(f"    {self.names[id(child)]}.grad: {self.sum_text(child, sends, counts)}")
        return "\n".join(lines)

    def leaf_grads(self, most=None):
        leaves = [n for n in self.nodes if not inputs(n)]
        shown = ", ".join(f"{self.names[id(n)]}.grad = {fmt(self.grad(n))}" for n in leaves[:most])
        return shown + (", ..." if most and len(leaves) > most else "")

    def sum_text(self, node, sends, counts):
        """How node's grad is built in this frame: 'g' for a first contribution, 'g0 + c = g' after."""
        mine = [s for s in sends if s.child is node]
        first_ever = counts[id(node)] == len(mine)
        terms = ([] if first_ever else [mine[0].before]) + [s.amount for s in mine]
        if len(terms) == 1:
            return fmt(mine[-1].after)
        shown = [fmt(terms[0])] + [fmt(t) if t >= 0 else f"({fmt(t)})" for t in terms[1:]]
        return " + ".join(shown) + f" = {fmt(mine[-1].after)}"


def _sends(node, incoming, sends, grads):
    """The walker's sends as Sends: each with its edge's position among node's inputs, and the
    input's gradient before and after it, added as the walker adds it."""
    children, now = inputs(node), {}
    whole = len(sends) == len(children)  # else a closure's: one send per distinct input, at its first edge
    result = []
    for i, (child, local, amount) in enumerate(sends):
        before = now.get(id(child), grads.get(child))
        now[id(child)] = after = amount if before is None else before + amount  # as the walker adds
        position = i if whole else next(j for j, c in enumerate(children) if c is child)
        result.append(
            Send(child, position, local, amount, 0.0 if before is None else before, after, incoming)
        )
    return result


def short(x):
    """A number as fmt shows it, without trailing zeros: -2, 0.5, 0.7071."""
    text = fmt(x).rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
