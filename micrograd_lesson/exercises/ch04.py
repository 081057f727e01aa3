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
    known_mistake,
    not_a_function,
    shown,
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


def _shared_u_deep(x0=0.5):
    """K = u + tanh(2u) with u = 3x and x = 2s: the shared u has an interior input x, which must
    fire after u. A walk that raises u's depth but not x's fires x too early."""
    s = Value(x0 / 2, label="s")
    x = _named(s * 2.0, "x")
    u = _named(x * 3.0, "u")
    m = _named(u * 2.0, "2u")
    t = _named(m.tanh(), "t")
    K = _named(u + t, "K")
    return {"s": s, "x": x, "u": u, "2u": m, "t": t, "K": K}, "K"


def _doubled(mirrored=False):
    """r = (3u) * (u + u): u is used twice by v = u + u and once by w = 3u. Counting v as one user
    of u but taking one off per use lists u before w (one way round or the other)."""
    x = Value(1.5, label="x")
    u = _named(x * 2.0, "u")
    v = _named(u + u, "v")
    w = _named(u * 3.0, "w")
    root = _named(v * w if mirrored else w * v, "R" if mirrored else "r")
    return {"x": x, "u": u, "v": v, "w": w, root.label: root}, root.label


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
    "K": "x = 2s, u = 3x, t = tanh(2u), K = u + t",
    "r": "u = 2x, v = u + u, w = 3u, r = w * v",
    "R": "u = 2x, v = u + u, w = 3u, R = v * w",
    "y": "y = x + x + ... + x (5,000 additions)",
}
_DOUBLED = (_doubled, lambda: _doubled(mirrored=True))
ORDER_GRAPHS = (_single_leaf, _z_graph, _shared_u, _shared_u_mirrored, *_DOUBLED, _two_paths, _chain)
BACKWARD_GRAPHS = (_z_graph, _shared_u, _shared_u_mirrored, _shared_u_deep, *_DOUBLED, _two_paths, _chain)
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
        raise RuntimeError(
            "do not call .topological_order() here: the exercise is to order the nodes yourself"
        )


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
    return f"{type(x).__name__} {shown(x)}"


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
        if problem and root_name in "rR" and "comes before its input" in problem:
            problem += ". If you count users, count uses: v = u + u uses u twice"
        if problem:
            return Verdict(False, f"on {GRAPH_TEXT[root_name]}: {problem}")
    return Verdict(True)


@solution("ch04.topological_order")
def topological_order(root):
    users, todo = {root: 0}, [root]  # how many nodes use each node
    while todo:
        node = todo.pop()
        for child in node._prev:
            if child not in users:
                users[child] = 0
                todo.append(child)
            users[child] += 1  # b = a + a: a is used twice by b, and counts twice
    order, ready = [], [root]  # nobody uses the root
    while ready:
        node = ready.pop()
        order.append(node)  # every user of node is already listed
        for child in node._prev:
            users[child] -= 1
            if users[child] == 0:
                ready.append(child)
    return order[::-1]  # users first, reversed: inputs first


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
        for node in every_node:  # no shortcut: neither root.backward() nor the package's sort
            node.__class__ = _NoShortcut
        _, error = attempt(run_backward, root)
        for node in every_node:
            node.__class__ = Value
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
        if fired and not any(f is root for f in fired):
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
                "from the root towards the leaves",
            )
        if early:
            node, user = early
            wrong = [k for k in expected if not close(got[k], expected[k], rel=1e-9)]
            k = wrong[0]
            return Verdict(
                False,
                f"{where}: {_name(node)} fired before {_name(user)}, which uses it, had sent back its share, "
                f"so {k}.grad = {as_number(got[k]) or 0.0:.4f} instead of {expected[k]:.4f}. "
                "A node may fire only after every node that uses it. Depth as first met breadth-first "
                "does not ensure that: which distance from the root does?",
            )
        repeated = [n for n in every_node if inputs[id(n)] and sum(f is n for f in fired) > 1]
        if repeated:
            node = repeated[0]
            times = sum(f is node for f in fired)
            return Verdict(
                False,
                f"{where}: {_name(node)} fired {times} times, and each time it passed "
                "its whole grad on again, so its inputs counted it more than once. Call each node's "
                "_backward() exactly once, after every node that uses it",
            )
        silent = [n for n in every_node if inputs[id(n)] and not any(f is n for f in fired)]
        if fired and silent:
            return Verdict(
                False,
                f"{where}: {_name(silent[0])} never fired, so its inputs got nothing from it: "
                "call _backward() on every node of the graph, each once",
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
    root.grad = 1.0
    depth, queue = {root: 0}, [root]
    while queue:
        node = queue.pop(0)
        for child in node._prev:
            # The fix: a node's depth is its LONGEST distance from the root, so every node that
            # uses it is shallower and fires first. (The first-met distance is the shortest.)
            if depth.get(child, -1) < depth[node] + 1:
                depth[child] = depth[node] + 1
                queue.append(child)
    for node in sorted(depth, key=depth.get):  # shallow first: the root, then outwards
        node._backward()


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


# ---- 4.4 div in the lectures' style: derive the rule for the divisor --------------------------------


def _grads_text(*values):
    return ", ".join(_describe(v.grad) if as_number(v.grad) is None else f"{v.grad:.4f}" for v in values)


def _div_run(div, a0, b0, then=None, same=False):
    """(a, b, hint): div applied to fresh leaves (or to one leaf twice), `then` on top, backward()."""
    a = Value(a0, label="a")
    b = a if same else Value(b0, label="b")
    call = "div(a, a)" if same else f"div(a, b) at a = {a0:g}, b = {b0:g}"
    out, error = attempt(div, a, b)
    if error:
        return a, b, f"{call}: {error}"
    if not isinstance(out, Value):
        return a, b, f"{call} should return a Value, got {_describe(out)}"
    if not close(out.data, a0 / (a0 if same else b0)):
        return a, b, f"{call} should have data {a0 / (a0 if same else b0):g}, got {_describe(out.data)}"
    if "_backward" not in vars(out):
        return (
            a,
            b,
            (
                "write the rule yourself, in the lectures' style: give out a closure, "
                "out._backward = _backward (a / b or _local_grads= uses the package's rule)"
            ),
        )
    _, error = attempt((then(out, a, b) if then else out).backward)
    if error:
        return a, b, f"backward() through your div failed: {error}"
    return a, b, None


DIV_MISTAKES = [  # (a.grad, b.grad) at a = 3, b = -2 from a plausible wrong rule -> hint
    ((-0.5, 0.75), "d(a/b)/db has the wrong sign: it is -a / b**2, negative whenever a > 0"),
    ((-0.5, -0.25), "d(a/b)/db is -a / b**2: you left out the a"),
    ((-0.5, 1.5), "d(a/b)/db is -a / b**2, not -a / b: the derivative of 1/b is -1/b**2"),
    ((-2.0, 3.0), "those are mul's local derivatives (b and a); for a/b they are 1/b and -a/b**2"),
    ((-0.75, -0.5), "the two local derivatives are swapped: a gets 1/b, b gets -a/b**2"),
]


@check("ch04.div")
def check_div(div):
    """div(a, b) returns a Value a/b whose closure passes 1/b to a and -a/b**2 to b."""
    hint = not_a_function(div, "your div function")
    if hint is not None:
        return hint
    for a0, b0 in ((3.0, -2.0), (-1.5, 0.5)):
        a, b, hint = _div_run(div, a0, b0)
        if hint:
            return Verdict(False, hint)
        want = (1 / b0, -a0 / b0**2)
        if not (close(a.grad, want[0]) and close(b.grad, want[1])):
            got = (as_number(a.grad), as_number(b.grad))
            mistake = (a0, b0) == (3.0, -2.0) and known_mistake(
                got, DIV_MISTAKES, same=lambda g, w: all(close(x, y) for x, y in zip(g, w))
            )
            return Verdict(
                False,
                mistake
                or f"at a = {a0:g}, b = {b0:g} expected a.grad = {want[0]:g}, b.grad = {want[1]:g}; "
                f"got {_grads_text(a, b)}. Nudge b a little and watch a/b",
            )
    a, _, hint = _div_run(div, 3.0, 3.0, same=True)
    if hint:
        return Verdict(False, hint)
    if not close(a.grad, 0.0):
        return Verdict(
            False,
            f"div(a, a) is always 1, so its gradient is 0; got {_grads_text(a)}: a gets both shares, "
            "1/a and -a/a**2, and they must be added with +=, not assigned",
        )
    a, b, hint = _div_run(
        div, 3.0, -2.0, then=lambda q, a, b: q * 4.0 + a
    )  # dy/da = 4/b + 1, dy/db = -4a/b**2
    if hint:
        return Verdict(False, hint)
    if not (close(a.grad, -1.0) and close(b.grad, -3.0)):
        ignored = close(a.grad, 0.5) and close(b.grad, -0.75)
        return Verdict(
            False,
            "inside 4 * div(a, b) + a your gradients ignore what arrives from above: multiply by out.grad"
            if ignored
            else f"for y = 4 * div(a, b) + a expected a.grad = -1, b.grad = -3; got {_grads_text(a, b)}",
        )
    return Verdict(True)


@solution("ch04.div")
def div(a, b):
    out = Value(a.data / b.data, (a, b), "/")

    def _backward():
        a.grad += out.grad / b.data  # a/b grows like a, scaled by 1/b
        b.grad += -a.data / b.data**2 * out.grad  # a * (1/b), and d(1/b)/db = -1/b**2

    out._backward = _backward
    return out
