"""Derivatives as values: grad(), higher-order derivatives, and the backward pass run on the side.

`Value.backward()` (engine.py) stores plain floats in `.grad`. Here is what PyTorch's
autograd adds on top:

- `grad(output, inputs)` gives derivatives without touching any `.grad`; with
  `create_graph=True` it runs the chain rule with Value operations, so each derivative
  is itself a graph that can be differentiated again. It evaluates the same derivative
  rules the engine uses (engine.RULES) on the nodes instead of on their numbers.
- `side_pass` is the backward pass that both `grad()` and the step-through
  (show/stepthrough) run: backward()'s rules, in backward()'s order, on gradients kept
  apart from the graph's own `.grad`.
"""

from ._checks import no_local_derivative
from .engine import Value, _as_value, recording
from .graph import inputs, topological_order


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
    grads = {id(output): 1.0}
    if create_graph:
        with recording(True):  # recorded even inside no_grad(), as in PyTorch
            for _ in side_pass(output, grads, local_grads=_local_grads_in_values):
                pass
        return [_as_value(grads.get(id(x), 0.0)) for x in inputs]
    for _ in side_pass(output, grads):
        pass
    return [grads.get(id(x), 0.0) for x in inputs]


def side_pass(output, grads, local_grads=None):
    """backward()'s rules over output's graph, on the gradients in `grads`: {id(node): grad}.

    `grads` starts with the output's own gradient ({id(output): 1.0}) and collects every
    node's. No node's `.grad` is changed (a micrograd-style `_backward` closure runs with
    them in place and they are put back). Yields one step per node that has inputs, in
    backward()'s order: (node, its gradient, sends), where each send is (input, position,
    local derivative or None for a closure, amount added, that input's gradient before, after).
    local_grads(node) gives a node's local derivatives; by default the numbers the engine
    stored, or for create_graph the rules evaluated on the nodes themselves (Values).
    """
    for node in reversed(topological_order(output)):
        if type(node) is Value:  # the engine's own node: inputs and slopes sit in its slots
            if node._a is None:
                continue
            children = (node._a,) if node._b is None else (node._a, node._b)
        elif not (children := inputs(node)):
            continue
        incoming = grads.get(id(node), 0.0)
        yield node, incoming, _sends(node, children, incoming, grads, local_grads)


def _sends(node, children, incoming, grads, local_grads):
    """What node's rule adds to each input, added into `grads` with the engine's own arithmetic."""
    if local_grads is not None:
        local = local_grads(node)
    elif "_backward" in getattr(node, "__dict__", ()):  # a closure set on screen, micrograd style
        return _replay(node, children, incoming, grads)
    elif type(node) is Value and node._da is not None:  # the common case: the slopes it stored
        local = (node._da,) if node._b is None else (node._da, node._db)
    elif getattr(node, "_rule", None) is not None and node._da is None:  # x ** 0.5 at 0: no slope
        raise no_local_derivative(node)
    elif len(local := getattr(node, "_local_grads", ())) != len(children):
        if callable(getattr(node, "_backward", None)):
            return _replay(node, children, incoming, grads)
        raise TypeError(
            f"cannot tell what {_name(node)} sends back: its class has neither _local_grads nor a "
            f"_backward function. Build the graph with micrograd_lesson.Value instead."
        )
    sends = []
    for position, (child, slope) in enumerate(zip(children, local)):
        if slope is None:  # the engine's mark for an infinite slope, e.g. sqrt at 0
            raise ZeroDivisionError(f"the derivative of {node._op} does not exist at {child.data}")
        amount = slope * incoming
        before = grads.get(id(child))
        if before is not None:
            after = before + amount
        elif isinstance(amount, Value):  # a derivative graph starts at its first share, no `0.0 + ...`
            before, after = 0.0, amount
        else:  # the engine's `child.grad += local * self.grad`, from 0.0
            before = 0.0
            after = before + amount
        grads[id(child)] = after
        sends.append((child, position, slope, amount, before, after))
    return sends


def _replay(node, children, incoming, grads):
    """Run a custom _backward with the pass's grads in place, record what it added, put them back."""
    distinct = list({id(c): c for c in children}.values())
    saved = [(v, v.grad) for v in [node, *distinct]]
    try:
        node.grad = incoming
        for child in distinct:
            child.grad = grads.get(id(child), 0.0)
        try:
            node._backward()
        except Exception as e:
            raise RuntimeError(
                f"the backward function of {_name(node)} raised {type(e).__name__}: {e}"
            ) from e
        after = {id(c): float(c.grad) for c in distinct}
    finally:
        for v, g in saved:
            v.grad = g
    sends = []
    for child in distinct:  # one send per distinct input: an input used twice gets its total
        before = grads.get(id(child), 0.0)
        grads[id(child)] = after[id(child)]
        position = next(i for i, c in enumerate(children) if c is child)
        sends.append((child, position, None, after[id(child)] - before, before, after[id(child)]))
    return sends


def _name(node):
    """How an error names a node: its label, else its operation."""
    label = getattr(node, "label", "")
    return f"{label!r} ({node._op})" if label else f"the {node._op!r} node"


def _local_grads_in_values(node):
    """The node's derivative rule evaluated on the nodes: Values (or constants)."""
    if getattr(node, "_rule", None) is None:  # built by hand: a closure or given numbers, no rule to re-run
        if getattr(node, "_da", None) is None and "_backward" not in vars(node):
            raise no_local_derivative(node)
        raise NotImplementedError(
            f"grad(create_graph=True) cannot differentiate through a {node._op!r} node: "
            f"it has no derivative rule written in Values (only the engine's own operations have one)"
        )
    if node._da is None:  # the rule found no slope (x ** n at 0)
        raise no_local_derivative(node)
    return node._rule(node, *node._prev)
