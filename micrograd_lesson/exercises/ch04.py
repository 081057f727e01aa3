"""Chapter 4 exercises: automating the backward pass.

The graphs the checks run on share an intermediate node (u in u = 3x,
L = u + tanh(2u)), once with L's inputs in each order, so a backward pass that
fires nodes breadth-first or in a depth-first pre-order (either input first)
gives a wrong gradient and is refused; a plain chain 5,000 deep catches recursion.
"""

import math

from ..engine import Value
from ._core import (
    Verdict,
    as_number,
    attempt,
    call_or_value,
    check,
    close,
    first,
    not_a_function,
    solution,
)

# ---- graphs the checks run on (fresh ones every time: backward() changes grads) ----


def _named(value, label):
    value.label = label
    return value


def _single_leaf():
    return {"x": Value(2.0, label="x")}, "x"


def _z_graph():
    """z = x*y + x: a leaf used on two paths."""
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    p = _named(x * y, "p")
    z = _named(p + x, "z")
    return {"x": x, "y": y, "p": p, "z": z}, "z"


def _shared_u(x0=0.5):
    """u = 3x, L = u + tanh(2u): the intermediate node u is used twice.

    Breadth-first from L fires u before tanh(2u) has sent u its share, so x.grad
    comes out 3.0 instead of 3 + 6 (1 - tanh(3)^2) = 3.0592 at x = 0.5.
    """
    x = Value(x0, label="x")
    u = _named(x * 3.0, "u")
    m = _named(u * 2.0, "2u")
    t = _named(m.tanh(), "t")
    L = _named(u + t, "L")
    return {"x": x, "u": u, "2u": m, "t": t, "L": L}, "L"


def _shared_u_mirrored(x0=0.5):
    """M = tanh(2u) + u: the same graph with M's inputs the other way round.

    A walk that happens to reach tanh(2u) before u on L (a depth-first pre-order
    that visits the last input first) reaches u first here, and fires it too early.
    """
    x = Value(x0, label="x")
    u = _named(x * 3.0, "u")
    m = _named(u * 2.0, "2u")
    t = _named(m.tanh(), "t")
    M = _named(t + u, "M")
    return {"x": x, "u": u, "2u": m, "t": t, "M": M}, "M"


def _two_paths():
    """g = tanh(0.1 * d * e) with d = a*b and e = a + b: shared leaves and a chain on top."""
    a, b = Value(-2.0, label="a"), Value(3.0, label="b")
    d = _named(a * b, "d")
    e = _named(a + b, "e")
    f = _named(d * e, "f")
    g = _named((f * 0.1).tanh(), "g")
    return {"a": a, "b": b, "d": d, "e": e, "f": f, "g": g}, "g"


def _chain(steps=5000):
    """y = x + x + ... + x, built one + at a time: a graph `steps` deep."""
    x = Value(1.0, label="x")
    y = x
    for _ in range(steps):
        y = y + x
    y.label = "y"
    return {"x": x, "y": y}, "y"


GRAPH_TEXT = {  # how a hint names each graph, by its root
    "x": "a graph that is a single leaf x",
    "z": "z = x*y + x",
    "L": "u = 3x, t = tanh(2u), L = u + t",
    "M": "u = 3x, t = tanh(2u), M = t + u",
    "g": "d = a*b, e = a + b, f = d*e, g = tanh(0.1 f)",
    "y": "y = x + x + ... + x (5,000 additions)",
}
ORDER_GRAPHS = (_single_leaf, _z_graph, _shared_u, _shared_u_mirrored, _two_paths, _chain)
BACKWARD_GRAPHS = (_z_graph, _shared_u, _shared_u_mirrored, _two_paths, _chain)
RECURSION_HINT = (
    "a 5,000-deep chain hits Python's recursion limit: keep your own stack (or queue) in a list "
    "instead of a function that calls itself"
)


class _NoBackward(Value):
    """A root whose backward() refuses to run, so run_backward must do the walk itself."""

    __slots__ = ()

    def backward(self):
        raise RuntimeError("do not call root.backward() here: walk the graph yourself")


class _NoShortcut(_NoBackward):
    """A node whose topological_order() refuses too, so the learner's code must walk."""

    __slots__ = ()

    def topological_order(self):
        raise RuntimeError("do not call .topological_order() here: this exercise writes it")


def _name(node):
    """A node's label, for a hint; never raises (a learner's code may have changed the node)."""
    try:
        label = node.label
        return label if isinstance(label, str) and label else f"the node with data {node.data:.4g}"
    except Exception:
        return "a node"


def _inputs(nodes):
    """{id(node): its inputs} for every node, taken before the learner's code runs and can change them."""
    return {id(n): tuple(n._prev) for n in nodes}


def _describe(x):
    """A short description of anything, for a hint; never raises."""
    try:
        text = repr(x)
    except Exception:
        text = "?"
    return f"{type(x).__name__} {text[:40]}"


def _first_out_of_order(positions, nodes, inputs):
    """The first (node, input) pair where the input comes after the node, or None."""
    for node in nodes:
        for child in inputs[id(node)]:
            if positions[id(child)] > positions[id(node)]:
                return node, child
    return None


def _order_problem(order, nodes, inputs):
    """None if `order` lists the graph of `nodes` topologically, else a hint. Never raises, never hangs."""
    if order is None:
        return "your function returned None: did you forget `return`?"
    if isinstance(order, (set, frozenset, dict)):
        return f"return a list: a {type(order).__name__} keeps no order, and the order is the answer"
    # Twice the graph's size is plenty to show duplicates; an endless iterator stops here.
    listed = first(order, 2 * len(nodes) + 1)
    if listed is None:
        return f"return a list of nodes, got {_describe(order)}"
    order = listed
    wanted = {id(n) for n in nodes}
    positions = {}
    for i, node in enumerate(order):
        if id(node) not in wanted:
            return (
                f"your list holds {_describe(node)}, which is not a node of this graph: "
                "list the Values themselves"
            )
        if id(node) in positions:
            return f"{_name(node)} appears twice: keep a `visited` set so each node is listed once"
        positions[id(node)] = i
    if len(positions) < len(nodes):
        missing = [_name(n) for n in nodes if id(n) not in positions]
        return (
            f"your list has {len(positions)} of the graph's {len(nodes)} nodes; missing: "
            f"{', '.join(missing[:4])}. Follow every node's _prev down to the leaves, and list the leaves too"
        )
    wrong = _first_out_of_order(positions, nodes, inputs)
    if wrong is None:
        return None
    reverse = {key: len(order) - 1 - i for key, i in positions.items()}
    if _first_out_of_order(reverse, nodes, inputs) is None:
        return "your list is in backward order (root first): reverse it, so that inputs come first"
    node, child = wrong
    return (
        f"{_name(node)} comes before its input {_name(child)}: append a node only after all of its "
        "inputs (a depth-first search that appends on the way back up does this)"
    )


@check("ch04.topological_order")
def check_topological_order(topological_order):
    """topological_order(root) lists every node once, each after all of its inputs."""
    hint = not_a_function(topological_order, "your topological_order function")
    if hint is not None:
        return hint
    for build in ORDER_GRAPHS:
        named, root_name = build()
        nodes = named[root_name].topological_order()
        inputs = _inputs(nodes)
        for node in nodes:
            node.__class__ = _NoShortcut
        order, error = attempt(topological_order, named[root_name])
        for node in nodes:
            node.__class__ = Value
        if error:
            if "recursion" in error.lower():
                return Verdict(False, f"small graphs work, but {RECURSION_HINT}")
            return Verdict(False, f"on {GRAPH_TEXT[root_name]}: {error}")
        problem = _order_problem(order, nodes, inputs)
        if problem:
            return Verdict(False, f"on {GRAPH_TEXT[root_name]}: {problem}")
    return Verdict(True)


@solution("ch04.topological_order")
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


# ---- run_backward -------------------------------------------------------------------------------


def _reference_grads(build):
    nodes, root_name = build()
    nodes[root_name].backward()
    return {k: v.grad for k, v in nodes.items()}


def _record_firing(nodes):
    """Wrap each node's _backward so that the order in which they fire is written down."""
    fired = []
    for node in nodes:
        step = node._backward

        def recorded(node=node, step=step):
            fired.append(node)
            return step()

        node._backward = recorded  # an instance attribute shadows the method
    return fired


def _fired_too_early(fired, nodes, inputs):
    """The first interior node that fired before a node using it had fired: (node, user) or None."""
    users = {id(n): [] for n in nodes}
    for n in nodes:
        for child in inputs[id(n)]:
            users[id(child)].append(n)
    done = set()
    for node in fired:
        if inputs[id(node)]:
            late = [u for u in users[id(node)] if id(u) not in done]
            if late:
                return node, late[0]
        done.add(id(node))
    return None


@check("ch04.run_backward")
def check_run_backward(run_backward):
    """run_backward(root) fills in every node's .grad, as root.backward() would."""
    hint = not_a_function(run_backward, "your run_backward function")
    if hint is not None:
        return hint
    for build in BACKWARD_GRAPHS:
        nodes, root_name = build()
        root = nodes[root_name]
        every_node = root.topological_order()
        inputs = _inputs(every_node)
        fired = _record_firing(every_node)
        root.__class__ = _NoBackward
        _, error = attempt(run_backward, root)
        root.__class__ = Value
        if error:
            if "recursion" in error.lower():
                return Verdict(False, RECURSION_HINT)
            return Verdict(False, f"on {GRAPH_TEXT[root_name]}: {error}")
        expected = _reference_grads(build)
        got = {k: v.grad for k, v in nodes.items()}
        if all(close(got[k], expected[k], rel=1e-9) for k in expected):
            continue
        where = f"on {GRAPH_TEXT[root_name]}"
        if not any(as_number(got[k]) for k in nodes):
            return Verdict(
                False,
                f"{where}: every gradient is still 0: set {root_name}.grad = 1.0 first "
                f"(d{root_name}/d{root_name} = 1), then call every node's _backward()",
            )
        if not any(f is root for f in fired):
            return Verdict(
                False,
                f"{where}: the root {root_name} never fired, so nothing reached its inputs: after "
                f"{root_name}.grad = 1.0, call _backward() on {root_name} too, first",
            )
        early = _fired_too_early(fired, every_node, inputs)
        leaves = [k for k, v in nodes.items() if not inputs[id(v)]]
        if not early and not any(as_number(got[k]) for k in leaves):
            return Verdict(
                False,
                f"{where}: the leaves' gradients are still 0: call _backward() on every node, "
                "from the root towards the leaves (reversed topological order)",
            )
        if early:
            node, user = early
            wrong = [k for k in expected if not close(got[k], expected[k], rel=1e-9)]
            k = wrong[0]
            return Verdict(
                False,
                f"{where}: {_name(node)} fired before {_name(user)}, which uses it, had sent back its share, "
                f"so {k}.grad = {as_number(got[k]) or 0.0:.4f} instead of {expected[k]:.4f}. "
                "A node may fire only after every node that uses it: loop over reversed(topological order), "
                "not breadth-first or in the order you first meet the nodes",
            )
        repeated = [n for n in every_node if inputs[id(n)] and sum(f is n for f in fired) > 1]
        if repeated:
            node = repeated[0]
            times = sum(f is node for f in fired)
            return Verdict(
                False,
                f"{where}: {_name(node)} fired {times} times, and each time it passed "
                "its whole grad on again, so its inputs counted it more than once. Call each node's "
                "_backward() exactly once, in reversed topological order",
            )
        silent = [n for n in every_node if inputs[id(n)] and not any(f is n for f in fired)]
        if fired and silent:
            return Verdict(
                False,
                f"{where}: {_name(silent[0])} never fired, so its inputs got nothing from it: "
                "call _backward() on every node of root.topological_order(), in reverse",
            )
        wrong = [
            f"{k}.grad = {_describe(got[k]) if as_number(got[k]) is None else format(got[k], '.4f')} "
            f"(expected {expected[k]:.4f})"
            for k in expected
            if not close(got[k], expected[k], rel=1e-9)
        ]
        return Verdict(
            False,
            f"{where}: {', '.join(wrong[:3])}. Seed the root with 1.0 once and call each node's "
            "_backward() exactly once",
        )
    return Verdict(True)


@solution("ch04.run_backward")
def run_backward(root):
    root.grad = 1.0  # d(root)/d(root)
    for node in reversed(root.topological_order()):
        node._backward()  # each node passes its grad on to its inputs


# ---- a judgement exercise: what does breadth-first firing give? ---------------------------------

SHARED_X = 0.5
TRUE_X_GRAD = 3.0 + 6.0 * (1.0 - math.tanh(6.0 * SHARED_X) ** 2)  # 3.0592
BFS_X_GRAD = 3.0  # u fires with only L's share, 1, and passes 3 * 1 to x


@check("ch04.bfs_prediction")
def check_bfs_prediction(prediction):
    """prediction: x.grad that a breadth-first backward gives on u = 3x, L = u + tanh(2u) at x = 0.5."""
    got, hint = call_or_value(prediction)
    if hint:
        return Verdict(False, hint)
    got = as_number(got)
    if got is None or not math.isfinite(got):
        return Verdict(False, f"submit your prediction as one number, got {_describe(prediction)}")
    if close(got, BFS_X_GRAD, rel=0, abs_tol=5e-4):
        return Verdict(True)
    if close(got, TRUE_X_GRAD, rel=0, abs_tol=5e-4):
        return Verdict(
            False,
            "3.0592 is the true gradient, but breadth-first firing does not reach it: write down the order "
            "(L, then its inputs u and t, then 2u, then x) and what u.grad holds at the moment u fires",
        )
    if close(got, TRUE_X_GRAD - BFS_X_GRAD, rel=0, abs_tol=5e-4):
        return Verdict(
            False,
            "0.0592 is the share that goes through tanh(2u); "
            "breadth-first loses that one, not the direct one",
        )
    if close(got, 0.0, abs_tol=1e-9):
        return Verdict(False, "x does receive something: u fires once, with the share L gave it")
    if close(got, 1.0 + 2.0 * (1.0 - math.tanh(3.0) ** 2), rel=0, abs_tol=5e-4):
        return Verdict(False, "that is u.grad; x = u / 3 receives 3 times what u holds when u fires")
    return Verdict(
        False,
        "fire the nodes breadth-first from L: L, u, t, 2u, x. When u fires it passes 3 × u.grad to x, "
        "with whatever u.grad holds at that moment",
    )


@solution("ch04.bfs_prediction")
def bfs_prediction():
    # On paper: L fires first and gives u.grad = 1 and t.grad = 1 (L = u + t).
    # Breadth-first, L's inputs come next, so u fires now, holding only that 1,
    # and x receives 3 * 1 = 3. Later 2u fires and adds 2 (1 - tanh(3)**2) to
    # u.grad, but u has already fired: x never gets that share. Prediction: 3.0.
    # Confirmed by running the classmate's pass:
    x = Value(0.5, label="x")
    u = x * 3.0
    L = u + (u * 2.0).tanh()
    L.grad = 1.0
    queue, seen = [L], {L}
    while queue:
        node = queue.pop(0)
        node._backward()
        for child in node._prev:
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return x.grad  # 3.0, where L.backward() gives 3.0592


# ---- mul in the lectures' style -----------------------------------------------------------------


def _grads_text(a, b):
    return f"{_describe(a.grad) if as_number(a.grad) is None else format(a.grad, '.4f')}, " + (
        f"{_describe(b.grad) if as_number(b.grad) is None else format(b.grad, '.4f')}"
    )


def _mul_and_backward(mul, a, b, then=None):
    """Run mul(a, b) (and `then` on its result), then backward(); returns a hint or None."""
    out, error = attempt(mul, a, b)
    if error:
        return f"mul({_name(a)}, {_name(b)}): {error}"
    if not isinstance(out, Value):
        return f"mul(a, b) should return a Value, got {_describe(out)}"
    top = then(out) if then else out
    _, error = attempt(top.backward)
    if error:
        return f"backward() through your mul failed: {error}"
    return None


@check("ch04.mul")
def check_mul(mul):
    """mul(a, b) returns a Value a*b that passes the right gradients back to a and b."""
    hint = not_a_function(mul, "your mul function")
    if hint is not None:
        return hint
    a, b = Value(3.0, label="a"), Value(-2.0, label="b")
    out, error = attempt(mul, a, b)
    if error:
        return Verdict(False, f"mul(a, b) at a = 3, b = -2: {error}")
    if not isinstance(out, Value):
        return Verdict(False, f"mul(a, b) should return a Value, got {_describe(out)}")
    if not close(out.data, -6.0):
        return Verdict(False, f"mul(a, b) at a = 3, b = -2 should have data -6.0, got {out.data!r}")
    if not any(c is a for c in out._prev) or not any(c is b for c in out._prev):
        return Verdict(False, "the result must remember its inputs: pass (a, b) as its children")
    if "_backward" not in vars(out) and not out._local_grads:
        return Verdict(
            False, "out has no backward rule yet: attach your closure with out._backward = _backward"
        )
    _, error = attempt(out.backward)
    if error:
        return Verdict(False, f"backward() through your mul failed: {error}")
    if close(a.grad, 0.0) and close(b.grad, 0.0):
        return Verdict(
            False, "a.grad and b.grad stayed 0: attach your closure with out._backward = _backward"
        )
    if close(a.grad, 3.0) and close(b.grad, -2.0):
        return Verdict(
            False, "the local derivatives are swapped: d(a*b)/da is b.data, and d(a*b)/db is a.data"
        )
    if not (close(a.grad, -2.0) and close(b.grad, 3.0)):
        return Verdict(
            False, f"for a*b at a = 3, b = -2 expected a.grad = -2, b.grad = 3; got {_grads_text(a, b)}"
        )

    a = Value(3.0, label="a")
    hint = _mul_and_backward(mul, a, a)
    if hint:
        return Verdict(False, hint)
    if close(a.grad, 3.0):
        return Verdict(
            False, "mul(a, a) at a = 3 gives a.grad = 3, not 6: accumulate with +=, do not assign with ="
        )
    if not close(a.grad, 6.0):
        return Verdict(
            False, f"mul(a, a) at a = 3 should give a.grad = 6 (d(a*a)/da = 2a), got {_grads_text(a, a)}"
        )

    a, b = Value(3.0, label="a"), Value(-2.0, label="b")
    hint = _mul_and_backward(mul, a, b, then=lambda p: p * 4.0 + a)  # dy/da = 4b + 1 = -7, dy/db = 4a = 12
    if hint:
        return Verdict(False, hint)
    if close(a.grad, -1.0) and close(b.grad, 3.0):
        return Verdict(
            False,
            "inside 4 * mul(a, b) + a your gradients ignore what arrives from above: multiply by out.grad",
        )
    if not (close(a.grad, -7.0) and close(b.grad, 12.0)):
        return Verdict(
            False, f"for y = 4 * mul(a, b) + a expected a.grad = -7, b.grad = 12; got {_grads_text(a, b)}"
        )
    return Verdict(True)


@solution("ch04.mul")
def mul(a, b):
    out = Value(a.data * b.data, (a, b), "*")

    def _backward():
        a.grad += b.data * out.grad  # d(a*b)/da = b
        b.grad += a.data * out.grad  # d(a*b)/db = a

    out._backward = _backward
    return out
