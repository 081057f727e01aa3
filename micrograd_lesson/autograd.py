"""Derivatives as values: grad(), and higher-order derivatives.

`Value.backward()` (engine.py) stores plain floats in `.grad`. Here is what PyTorch's
autograd adds on top: `grad(output, inputs)` gives derivatives without touching any
`.grad`; with `create_graph=True` it runs the chain rule with Value operations, so each
derivative is itself a graph that can be differentiated again. It is the one backward
walk (graph.backward_pass) over each node's chain_rule, which evaluates the same
derivative rules the engine uses (engine.RULES) on the nodes instead of on their numbers.
"""

from .engine import Value, _as_value, recording
from .graph import backward_pass


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
    grads = {output: 1.0}
    if not create_graph:
        for _ in backward_pass(output, grads):
            pass
        return [grads.get(x, 0.0) for x in inputs]
    with recording(True):  # recorded even inside no_grad(), as in PyTorch
        for _ in backward_pass(output, grads, create_graph=True):
            pass
    return [_as_value(grads.get(x, 0.0)) for x in inputs]
