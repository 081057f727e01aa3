"""Derivatives as values: grad(), higher-order derivatives, and no_grad().

`Value.backward()` (engine.py) stores plain floats in `.grad`. Here are the
two things PyTorch's autograd adds on top:

- `grad(output, inputs, create_graph=True)` runs the chain rule with Value
  operations, so each derivative is itself a graph that can be differentiated
  again. It evaluates the same derivative rules the engine uses (engine.RULES)
  on the nodes instead of on their numbers.
- `no_grad()` switches the recording off where no gradient will be asked for.
"""

import contextlib

from . import engine
from ._checks import no_local_derivative
from .engine import Value, _as_value
from .graph import topological_order


@contextlib.contextmanager
def no_grad():
    """Compute values without recording how: every result is a plain leaf.

    Use it where no gradient will be asked for (evaluating a trained model,
    updating weights): no inputs are kept, so each intermediate result is
    freed as soon as nothing else refers to it. Nesting works, and leaving
    the block, even by an exception, restores what was there before.
    """
    with _recording(False):
        yield


@contextlib.contextmanager
def _recording(on):
    before = engine._recording
    engine._recording = on
    try:
        yield
    finally:
        engine._recording = before


def grad(output, inputs, create_graph=False):
    """d(output)/d(input) for each of `inputs`, as a list; no `.grad` is changed.

    Modelled on torch.autograd.grad. With create_graph=False the derivatives
    are plain floats. With create_graph=True the backward pass is recorded,
    step by step, with Value operations, so each derivative is a Value whose
    graph leads back to the leaves: call grad() on it again for a second
    derivative. An input the output does not depend on gets 0.
    (backward() always stores plain floats in `.grad`.)
    """
    if not isinstance(output, Value):
        raise TypeError(f"grad() needs a Value as output, got {type(output).__name__}")
    inputs = list(inputs)
    for x in inputs:
        if not isinstance(x, Value):
            raise TypeError(f"grad() needs Values as inputs, got {type(x).__name__}: {x!r}")
    order = topological_order(output)
    if create_graph:
        with _recording(True):  # recorded even inside no_grad(), as in PyTorch
            grads = _backward_in_values(output, order)
        return [_as_value(grads.get(x, 0.0)) for x in inputs]
    # Run the ordinary backward rules (closures included) on scratch grads,
    # then put every node's `.grad` back as it was.
    saved = [node.grad for node in order]
    try:
        for node in order:
            node.grad = 0.0
        output.grad = 1.0
        for node in reversed(order):
            node._backward()
        in_graph = set(order)
        return [x.grad if x in in_graph else 0.0 for x in inputs]
    finally:
        for node, g in zip(order, saved):
            node.grad = g


def _backward_in_values(output, order):
    """The chain rule with Value operations: {node: d(output)/d(node)}."""
    grads = {output: 1.0}
    for node in reversed(order):
        g = grads.get(node)
        if g is None or not node._prev:  # no path from here to output, or a leaf
            continue
        for child, local in zip(node._prev, _local_grads_in_values(node)):
            contribution = local * g
            grads[child] = contribution if child not in grads else grads[child] + contribution
    return grads


def _local_grads_in_values(node):
    """The node's derivative rule evaluated on the nodes: Values (or constants)."""
    if node._rule is None:  # built by hand: a closure or given numbers, no rule to re-run
        if node._da is None and "_backward" not in vars(node):
            raise no_local_derivative(node)
        raise NotImplementedError(
            f"grad(create_graph=True) cannot differentiate through a {node._op!r} node: "
            f"it has no derivative rule written in Values (only the engine's own operations have one)"
        )
    if node._da is None:  # the rule found no slope (x ** n at 0)
        raise no_local_derivative(node)
    return node._rule(node, *node._prev)
