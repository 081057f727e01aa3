"""Walking a computation graph: the one walker the whole package uses.

A node is anything with `_prev`, its inputs: the package's `Value` and
`Tensor`, micrograd's `Value`, and the small classes early chapters build
on screen. `backward()`, `draw_dot` and `step_through` all visit nodes in
the order given here, so a drawing, a step-through and the engine agree.
"""


def inputs(node):
    """A node's inputs in a fixed order.

    Our nodes keep them in a tuple, in the order the operation took them.
    micrograd keeps them in a set, whose order changes from run to run, so
    they are sorted by what a learner sees (label, data, operation): then a
    drawing or an order printed in a notebook is the same every run.
    """
    prev = node._prev
    if isinstance(prev, (set, frozenset)):
        return sorted(prev, key=lambda v: (str(getattr(v, "label", "")), v.data, str(v._op)))
    return tuple(prev)


def _depth_first(root):
    """One depth-first search from root: (nodes in the order it meets them, in the order it finishes them).

    A node popped for the first time is met: it goes back on the stack with its
    inputs above it, the first on top, so it is popped again, and finished, only
    after all of them; the second list thus has each node after all of its inputs.
    An input met already is not pushed, and one pushed twice (b = a + a, or reached
    by two paths before it is met) is skipped when it is popped again. The stack is
    explicit, not recursion, so a chain of a million nodes works (recursion stops near
    Python's limit of about 1000 calls). Nodes are told apart by their default hash,
    which is their identity (a node class that defines `==` keeps it with
    `__hash__ = object.__hash__`).
    """
    met, finished = set(), set()
    met_order, finish_order, stack = [], [], [root]
    while stack:
        node = stack.pop()
        if node in met:  # popped again: its inputs are finished (or it was pushed twice)
            if node not in finished:
                finished.add(node)
                finish_order.append(node)
            continue
        met.add(node)
        met_order.append(node)
        stack.append(node)
        try:  # the engine's Value keeps its inputs in two slots; reading them beats building _prev
            a, b = node._a, node._b
        except AttributeError:  # any other node
            stack.extend(reversed([child for child in inputs(node) if child not in met]))
            continue
        if b is not None and b not in met:
            stack.append(b)
        if a is not None and a not in met:
            stack.append(a)
    return met_order, finish_order


def topological_order(root):
    """Every node reachable from root, once, each after all of its inputs (root last)."""
    return _depth_first(root)[1]


def reachable(root):
    """Every node reachable from root, once, root first, in the order depth-first search meets them."""
    return _depth_first(root)[0]
