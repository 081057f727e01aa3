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
    """One depth-first search from root: ({node: None} in the order it meets them, finished nodes).

    The node on top of the stack goes down into its first input not met yet;
    when it has none left, it is finished, so the second list has each node
    after all of its inputs. The stack is explicit, not recursion, so a chain
    of a million nodes works (recursion stops near Python's limit of about 1000
    calls). Nodes are told apart by their default hash, which is their identity
    (a node class that defines `==` keeps it with `__hash__ = object.__hash__`).
    """
    met = {root: None}  # a dict, not a set: it keeps the order the nodes were met in
    finished, stack = [], [root]
    while stack:
        node = stack[-1]
        try:  # the engine's Value keeps its inputs in two slots; reading them beats building _prev
            a, b = node._a, node._b
        except AttributeError:  # any other node: its first input not met yet, in a's place
            a, b = next((child for child in inputs(node) if child not in met), None), None
        if a is not None and a not in met:
            met[a] = None
            stack.append(a)
        elif b is not None and b not in met:
            met[b] = None
            stack.append(b)
        else:  # every input is finished
            finished.append(stack.pop())
    return met, finished


def topological_order(root):
    """Every node reachable from root, once, each after all of its inputs (root last)."""
    return _depth_first(root)[1]


def reachable(root):
    """Every node reachable from root, once, root first, in the order depth-first search meets them."""
    return list(_depth_first(root)[0])
