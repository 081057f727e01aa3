"""Walking a computation graph: the one walker the whole package uses.

A node is anything with `_prev`, its inputs: the package's `Value` and
`Tensor`, micrograd's `Value`, and the small classes early chapters build
on screen. `backward()`, `draw_dot` and `step_through` all visit nodes in
the order given here, so a drawing, a step-through and the engine agree.

`backward_pass` is the chain rule over that order for every engine: each node
says what it sends to its inputs for a given gradient (its `chain_rule`
method), and the walker adds up what each node receives.
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
    kind = slotted = None
    while stack:
        node = stack[-1]
        if type(node) is not kind:  # a graph is nearly always one kind of node: asked once
            kind = type(node)
            slotted = hasattr(kind, "_a")  # the engine's Value keeps its inputs in two slots
        if slotted:  # reading them beats building _prev
            a, b = node._a, node._b
        else:  # any other node: its first input not met yet, in a's place
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


# ---- the chain rule over a graph ----


def backward_pass(output, grads, create_graph=False):
    """The chain rule from output back to its leaves, on the gradients in `grads`: {node: grad}.

    `grads` starts with the output's own gradient ({output: 1.0}) and collects every
    node's; no node's `.grad` is changed. Each node is asked, after every node that uses
    it, what it sends to its inputs. Yields (node, its gradient, sends) per node reached,
    in that order, where sends are [(input, local derivative or None, amount)], then adds
    them in. A node no gradient reaches (a tensor that needs none) is skipped.
    create_graph: ask for the amounts as Values, so that they form a graph too.
    """
    for node in reversed(topological_order(output)):
        g = grads.get(node)
        if g is None:
            continue
        chain_rule = getattr(node, "chain_rule", None)  # the package's Value and Tensor answer themselves
        sends = chain_rule(g, create_graph) if chain_rule is not None else NotImplemented
        if sends is NotImplemented:  # a node built on screen
            sends = _on_screen(node, g, grads, create_graph)
        yield node, g, sends
        for child, _, amount in sends:
            before = grads.get(child)  # a first share is kept as it is: no array copied, no `0 +` node
            grads[child] = amount if before is None else before + amount


def _on_screen(node, g, grads, create_graph):
    """What a node built on screen sends to each input for its gradient g, as chain_rule says it:
    from its `_local_grads`, or through the closure adapter below."""
    if "_backward" in getattr(node, "__dict__", ()):  # a closure set on screen, micrograd style
        return _replay(node, g, grads, create_graph)
    children = inputs(node)
    local = getattr(node, "_local_grads", ())
    if len(local) == len(children):
        _refuse_create_graph(node, create_graph and children)
        return [(child, slope, slope * g + 0.0) for child, slope in zip(children, local)]  # + 0.0: see Value
    if callable(getattr(node, "_backward", None)):
        return _replay(node, g, grads, create_graph)
    raise TypeError(
        f"cannot tell what {_name(node)} sends back: its class has neither _local_grads nor a "
        f"_backward function. Build the graph with micrograd_lesson.Value instead."
    )


def _replay(node, g, grads, create_graph):
    """The closure adapter: run node's `_backward` with the pass's gradients in place, see what it
    added, put them back. In place, as backward() runs it, so a closure's bug (= for +=) shows."""
    children = inputs(node)
    _refuse_create_graph(node, create_graph and children)
    distinct = list({id(c): c for c in children}.values())  # an input used twice: one send, its total
    saved = [(v, v.grad) for v in [node, *distinct]]
    try:
        node.grad = g
        for child in distinct:
            child.grad = grads.get(child, 0.0)
        try:
            node._backward()
        except Exception as e:
            raise RuntimeError(
                f"the backward function of {_name(node)} raised {type(e).__name__}: {e}"
            ) from e
        return [(child, None, float(child.grad) - grads.get(child, 0.0)) for child in distinct]
    finally:
        for v, before in saved:
            v.grad = before


def _refuse_create_graph(node, refuse):
    if refuse:
        raise NotImplementedError(
            f"grad(create_graph=True) cannot differentiate through {_name(node)}: it has no derivative "
            f"rule written in Values (only the engine's own operations have one)"
        )


def _name(node):
    """How an error names a node: its label, else its operation."""
    label = getattr(node, "label", "")
    return f"{label!r} ({node._op})" if label else f"the {node._op!r} node"


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
