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


# ---- a graph in words ----

ALT_LIMIT = 400  # characters: a screen reader's description, not a listing


def formula(root, limit=120):
    """root as an expression over its leaves, e.g. "((a * b) + c) * f"; None if longer than limit.

    A leaf is its label, or its number when it has none.
    """
    memo = {}  # node -> (text, whether it needs brackets as an operand)
    for node in topological_order(root):
        children = inputs(node)
        op = str(getattr(node, "_op", "") or "")
        parts = [memo[c][0] for c in children]
        operands = [f"({t})" if bare else t for t, bare in (memo[c] for c in children)]
        if not children:
            label = str(getattr(node, "label", "") or "")
            text, bare = (label or (f"{node.data:g}" if isinstance(node.data, (int, float)) else "?")), False
        elif len(parts) == 2 and op in ("+", "*", "-", "/", "**", "@"):
            text, bare = f"{operands[0]} {op} {operands[1]}", True
        elif len(parts) == 1 and op.startswith("**"):
            text, bare = f"{operands[0]}{op}", False
        else:
            text, bare = f"{op or 'f'}({', '.join(parts)})", False
        if len(text) > limit:
            return None
        memo[node] = (text, bare)
    return memo[root][0]


def describe_graph(root, number=lambda x: f"{x:.4f}", grads=True, limit=ALT_LIMIT):
    """The graph in a few hundred characters: what it computes, its output, the leaves' gradients.

    grads: say the gradients of the leaves when backward has run (the output's grad is not 0).
    Used as the alt text of a drawing, for readers who cannot see it.
    """
    nodes = reachable(root)
    leaves = [n for n in nodes if not inputs(n)]
    n_ops = sum(1 for n in nodes if getattr(n, "_op", ""))
    name = str(getattr(root, "label", "") or "the output")
    expression = formula(root) if inputs(root) else None
    ops = sorted({str(n._op) for n in nodes if getattr(n, "_op", "")})
    if expression:
        what = f"{name} = {expression}"
    else:
        through = ", ".join(ops) or "no operations"
        what = f"{name} from {len(leaves)} input{'s' * (len(leaves) != 1)} through {through}"
    text = (
        f"Computation graph of {what}: {len(nodes)} value{'s' * (len(nodes) != 1)}, "
        f"{n_ops} operation{'s' * (n_ops != 1)}; "
        f"{name} = {number(root.data)}."
    )
    if grads and getattr(root, "grad", 0):
        named = [leaf for leaf in leaves if getattr(leaf, "label", "")]
        unnamed = [leaf for leaf in leaves if not getattr(leaf, "label", "")]
        said = []
        for leaf in named:
            item = f"{leaf.label} {number(leaf.grad)}"
            if len(text) + len(", ".join([*said, item])) + 90 > limit:
                break
            said.append(item)
        if len(said) < len(named):
            said.append(f"and {len(named) - len(said)} more")
        if unnamed:
            low, high = min(v.grad for v in unnamed), max(v.grad for v in unnamed)
            if len(unnamed) == 1:
                said.append(f"the unnamed leaf {number(unnamed[0].data)}: {number(low)}")
            else:
                said.append(f"{len(unnamed)} unnamed leaves from {number(low)} to {number(high)}")
        text += f" After backward, the leaves' gradients: {', '.join(said)}."
    return text
