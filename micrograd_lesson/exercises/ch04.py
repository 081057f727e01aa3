"""Chapter 4 exercises: automating the backward pass."""

import math

from ..engine import Value
from ._core import attempt, solution, verdict

__all__ = ["check_topological_order", "check_run_backward", "check_mul"]


# ---- graphs the checks run on (fresh ones every time: backward() changes grads) ----


def _single_leaf():
    return {"x": Value(2.0, label="x")}, "x"


def _z_graph():
    """z = x*y + x: x is used on two paths."""
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    p = x * y
    p.label = "p"
    z = p + x
    z.label = "z"
    return {"x": x, "y": y, "p": p, "z": z}, "z"


def _two_paths():
    """f = (a*b) * (a + b), then tanh: a diamond with a shared pair of leaves."""
    a, b = Value(-2.0, label="a"), Value(3.0, label="b")
    d = a * b
    d.label = "d"
    e = a + b
    e.label = "e"
    f = d * e
    f.label = "f"
    g = (f * 0.1).tanh()
    g.label = "g"
    return {"a": a, "b": b, "d": d, "e": e, "f": f, "g": g}, "g"


def _chain(steps=5000):
    """y = x + x + ... + x, built one + at a time: a graph `steps` deep."""
    x = Value(1.0, label="x")
    y = x
    for _ in range(steps):
        y = y + x
    y.label = "y"
    return {"x": x, "y": y}, "y"


def _all_nodes(root):
    return root.topological_order()


def _name(node):
    return node.label or f"a node with data {node.data:.4g}"


def _order_problem(order, root):
    """None if `order` is a valid topological order of root's graph, else a hint."""
    if order is None:
        return "your function returned None: did you forget `return`?"
    try:
        order = list(order)
    except TypeError:
        return f"return a list of nodes, got {type(order).__name__}"
    nodes = _all_nodes(root)
    wanted = {id(n) for n in nodes}
    seen = {}
    for i, node in enumerate(order):
        if id(node) not in wanted:
            return f"your list holds {node!r}, which is not a node of the graph (return the Value objects)"
        if id(node) in seen:
            return f"{_name(node)} appears twice: keep a `visited` set so each node is listed once"
        seen[id(node)] = i
    if len(seen) < len(nodes):
        missing = [_name(n) for n in nodes if id(n) not in seen]
        return (
            f"your list has {len(seen)} of the graph's {len(nodes)} nodes; "
            f"missing: {', '.join(missing[:4])}. "
            "Follow every node's _prev, down to the leaves, and include the leaves too"
        )
    for node in order:
        for child in node._prev:
            if seen[id(child)] > seen[id(node)]:
                if _order_problem(list(reversed(order)), root) is None:
                    return "your list is in backward order (root first): reverse it, inputs come first"
                return (
                    f"{_name(node)} comes before its input {_name(child)}: "
                    "append a node only after all of its inputs"
                )
    return None


def check_topological_order(topological_order):
    """topological_order(root) lists every node once, each after all of its inputs."""
    if not callable(topological_order):
        return verdict(False, "pass your function itself, e.g. check_topological_order(my_topological_order)")
    for build in (_single_leaf, _z_graph, _two_paths, _chain):
        nodes, root_name = build()
        root = nodes[root_name]
        order, error = attempt(topological_order, root)
        if error:
            if "recursion" in error.lower():
                return verdict(
                    False,
                    "small graphs work, but a 5,000-deep chain hits Python's recursion limit: "
                    "keep your own stack in a list instead of calling the function recursively",
                )
            return verdict(False, f"on the graph ending in {root_name}: {error}")
        problem = _order_problem(order, root)
        if problem:
            return verdict(False, f"on the graph ending in {root_name}: {problem}")
    return verdict(True)


@solution("ch04.topological_order", check=check_topological_order)
def topological_order(root):
    order, visited = [], set()
    stack = [(root, False)]  # (node, are its inputs already in `order`?)
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            order.append(node)
        elif node not in visited:
            visited.add(node)
            stack.append((node, True))  # revisit it after its inputs
            stack.extend((child, False) for child in node._prev)
    return order


class _NoShortcut(Value):
    """A root whose backward() refuses to run, so run_backward must do the walk itself."""

    def backward(self):
        raise RuntimeError("run_backward must not call root.backward(): walk the graph yourself")


def _reference_grads(build):
    nodes, root_name = build()
    nodes[root_name].backward()
    return {k: v.grad for k, v in nodes.items()}


def _forward_order_grads(build):
    """What running the steps inputs-first (not reversed) gives: a common slip."""
    nodes, root_name = build()
    root = nodes[root_name]
    root.grad = 1.0
    for node in root.topological_order():
        node._backward()
    return {k: v.grad for k, v in nodes.items()}


def _close(x, y):
    return isinstance(x, (int, float)) and math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)


def check_run_backward(run_backward):
    """run_backward(root) fills in every node's .grad, as root.backward() would."""
    if not callable(run_backward):
        return verdict(False, "pass your function itself, e.g. check_run_backward(my_run_backward)")
    for build in (_z_graph, _two_paths, _chain):
        nodes, root_name = build()
        root = nodes[root_name]
        root.__class__ = _NoShortcut
        _, error = attempt(run_backward, root)
        if error:
            if "recursion" in error.lower():
                return verdict(
                    False,
                    "a 5,000-deep chain hits Python's recursion limit: use an order built with an explicit "
                    "stack (your topological_order, or root.topological_order())",
                )
            return verdict(False, f"on the graph ending in {root_name}: {error}")
        expected = _reference_grads(build)
        got = {k: v.grad for k, v in nodes.items()}
        if all(_close(got[k], expected[k]) for k in expected):
            continue
        leaves = [k for k, v in nodes.items() if not v._prev]
        if all(got[k] == 0 for k in leaves):
            if got[root_name] == 0:
                return verdict(
                    False,
                    f"every gradient is still 0: set {root_name}.grad = 1.0 first "
                    f"(d{root_name}/d{root_name} = 1)",
                )
            return verdict(
                False,
                "the leaves' gradients are still 0: call _backward() on every node, "
                "from the root towards the leaves (reversed topological order)",
            )
        if all(_close(got[k], v) for k, v in _forward_order_grads(build).items()):
            return verdict(
                False,
                "you ran the steps inputs-first: a node must fire after every node that uses it, "
                "so loop over reversed(topological order)",
            )
        wrong = [
            f"{k}.grad = {got[k]!r} (expected {expected[k]:.4f})"
            for k in expected
            if not _close(got[k], expected[k])
        ]
        return verdict(False, f"on the graph ending in {root_name}: {', '.join(wrong[:3])}")
    return verdict(True)


@solution("ch04.run_backward", check=check_run_backward)
def run_backward(root):
    root.grad = 1.0  # d(root)/d(root)
    for node in reversed(root.topological_order()):
        node._backward()  # each node passes its grad on to its inputs


def check_mul(mul):
    """mul(a, b) returns a Value a*b that passes the right gradients back to a and b."""
    if not callable(mul):
        return verdict(False, "pass your function itself, e.g. check_mul(my_mul)")
    a, b = Value(3.0, label="a"), Value(-2.0, label="b")
    out, error = attempt(mul, a, b)
    if error:
        return verdict(False, f"mul(a, b) at a = 3, b = -2: {error}")
    if not isinstance(out, Value):
        return verdict(False, f"mul(a, b) should return a Value, got {type(out).__name__}")
    if not _close(out.data, -6.0):
        return verdict(False, f"mul(a, b) at a = 3, b = -2 should have data -6.0, got {out.data!r}")
    if a not in out._prev or b not in out._prev:
        return verdict(False, "the result must remember its inputs: pass (a, b) as its children")
    if "_backward" not in vars(out) and not out._local_grads:
        return verdict(
            False, "out has no backward rule yet: attach your closure with out._backward = _backward"
        )
    _, error = attempt(out.backward)
    if error:
        return verdict(False, f"backward() through your mul failed: {error}")
    if a.grad == 0 and b.grad == 0:
        return verdict(
            False, "a.grad and b.grad stayed 0: attach your closure with out._backward = _backward"
        )
    if _close(a.grad, 3.0) and _close(b.grad, -2.0):
        return verdict(
            False, "the local derivatives are swapped: d(a*b)/da is b.data, and d(a*b)/db is a.data"
        )
    if not (_close(a.grad, -2.0) and _close(b.grad, 3.0)):
        return verdict(
            False, f"for a*b at a = 3, b = -2 expected a.grad = -2, b.grad = 3; got {a.grad!r}, {b.grad!r}"
        )

    a = Value(3.0, label="a")
    out, error = attempt(mul, a, a)
    if error:
        return verdict(False, f"mul(a, a): {error}")
    _, error = attempt(out.backward)
    if error:
        return verdict(False, f"backward() through mul(a, a) failed: {error}")
    if _close(a.grad, 3.0):
        return verdict(
            False, "mul(a, a) at a = 3 gives a.grad = 3, not 6: accumulate with +=, do not assign with ="
        )
    if not _close(a.grad, 6.0):
        return verdict(False, f"mul(a, a) at a = 3 should give a.grad = 6 (d(a*a)/da = 2a), got {a.grad!r}")

    a, b = Value(3.0, label="a"), Value(-2.0, label="b")
    prod, error = attempt(mul, a, b)
    if error:
        return verdict(False, f"mul(a, b): {error}")
    y = prod * 4.0 + a  # dy/da = 4b + 1 = -7, dy/db = 4a = 12
    _, error = attempt(y.backward)
    if error:
        return verdict(False, f"backward() through 4 * mul(a, b) + a failed: {error}")
    if _close(a.grad, -1.0) and _close(b.grad, 3.0):
        return verdict(
            False,
            "inside 4 * mul(a, b) + a your gradients ignore what arrives from above: multiply by out.grad",
        )
    if not (_close(a.grad, -7.0) and _close(b.grad, 12.0)):
        return verdict(
            False, f"for y = 4 * mul(a, b) + a expected a.grad = -7, b.grad = 12; got {a.grad!r}, {b.grad!r}"
        )
    return verdict(True)


@solution("ch04.mul", check=check_mul)
def mul(a, b):
    out = Value(a.data * b.data, (a, b), "*")

    def _backward():
        a.grad += b.data * out.grad  # d(a*b)/da = b
        b.grad += a.data * out.grad  # d(a*b)/db = a

    out._backward = _backward
    return out
