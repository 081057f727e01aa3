"""Chapter 4 exercises: automating the backward pass, on graphs that use a node twice and a deep chain."""

import math
from collections import Counter
from collections.abc import Iterator

from .. import Value, graph
from ._core import (
    as_number,
    attempt,
    check,
    close,
    first,
    known_mistake,
    matches_number,
    number_digest,
    recorded,
    recorder,
    shown,
    solution,
)
from ._shared import all_exact


def _as(label, node):
    node.label = label
    return node


def _graphs():  # (how a hint names it, root) of each graph, built fresh: a walk changes grads
    yield "a graph that is a single leaf x", Value(2.0, label="x")
    x = Value(2.0, label="x")
    yield "z = x*y + x", _as("z", _as("p", x * Value(3.0, label="y")) + x)
    for start, root in [("u = 3x", "L"), ("u = 3x", "M"), ("x = 2s, u = 3x", "K")]:  # M: t + u; K: s below x
        x = _as("x", Value(0.25, label="s") * 2.0) if root == "K" else Value(0.5, label="x")
        u = _as("u", x * 3.0)
        t = _as("t", _as("2u", u * 2.0).tanh())
        total = "t + u" if root == "M" else "u + t"
        yield f"{start}, t = tanh(2u), {root} = {total}", _as(root, t + u if root == "M" else u + t)
    for root, product in [("r", "w * v"), ("R", "v * w")]:
        u = _as("u", Value(1.5, label="x") * 2.0)
        v, w = _as("v", u + u), _as("w", u * 3.0)
        yield f"u = 2x, v = u + u, w = 3u, {root} = {product}", _as(root, v * w if root == "R" else w * v)
    a, b = Value(-2.0, label="a"), Value(3.0, label="b")
    f = _as("f", _as("d", a * b) * _as("e", a + b))
    yield "d = a*b, e = a + b, f = d*e, g = tanh(0.1 f)", _as("g", (f * 0.1).tanh())
    x = Value(1.0, label="x")
    yield "y = x + x + ... + x (5,000 additions)", _as("y", sum([x] * 5000, x))  # ((x + x) + x) + ...
    x = Value(0.5, label="x")  # the shallow input first: a depth-first order is not an order by distance
    c = _as("c", _as("t", x.tanh()).tanh())
    yield "b = 2x, t = tanh(x), c = tanh(t), s = b + c", _as("s", _as("b", x * 2.0) + c)


def _run(fn, root):  # fn(root) -> the nodes (inputs first), their inputs, which fired, result, error
    class Watched(Value):  # refuses the package's walks; writes itself down in `fired` when it fires
        def backward(self):
            raise RuntimeError("do not call root.backward() here: walk the graph yourself")

        def topological_order(self):
            raise RuntimeError("do not call .topological_order() here: order the nodes yourself")

        def _backward(self):
            if len(fired) < 50_000:  # enough to tell the order; an endless loop grows no list
                fired.append(self)
            Value._backward(self)

    nodes, fired = graph.topological_order(root), []
    ins = {id(node): graph.inputs(node) for node in nodes}  # before the learner's code can change them
    for node in nodes:
        node.__class__ = Watched
        node.label = node.label or f"the node with data {shown(node.data)}"  # a name for the hints
    result, error = attempt(fn, root)
    for node in nodes:
        node.__class__ = Value
    if error and "recursion" in error.lower():
        error = "a 5,000-deep chain hits Python's recursion limit: keep your own stack in a list instead"
    elif error and error.startswith("your function raised ValueError"):
        error += " on a graph with no loop: do your counts take one off for every use they counted?"
    return nodes, ins, fired, result, error


def _walk_hint(fn, problem):
    for (text, root), (_, copy) in zip(_graphs(), _graphs()):
        nodes, ins, fired, result, error = _run(fn, root)
        if hint := error or problem(nodes, ins, fired, result, copy):
            return f"on {text}: {hint}"


# ---- 4.1 topological_order, by counting users ----------------------------------------------------
def _order_problem(nodes, ins, fired, order, copy):  # None if every node is listed once, after its inputs
    if isinstance(order, (set, frozenset, dict, Iterator)):  # no order; or, read later, a ValueError later
        return f"return a list, not a {type(order).__name__}: the order (or the ValueError) is the answer"
    listed = first(order, 2 * len(nodes) + 1)  # enough to show a repeat; an endless iterator stops
    if listed is None:
        return f"return a list of nodes, got {shown(order)}"
    position = {}
    for i, node in enumerate(listed):
        if id(node) not in ins:
            return f"your list holds {shown(node)}, not a node of this graph: list the Values themselves"
        if position.setdefault(id(node), i) != i:  # listed before
            return f"{node.label} appears twice: keep a `visited` set so each node is listed once"
    if missing := [node.label for node in nodes if id(node) not in position]:
        return f"{', '.join(missing[:3])} missing: follow _prev down to the leaves, and list the leaves too"
    edges = [(node, child) for node in nodes for child in ins[id(node)]]
    late = [(node, child) for node, child in edges if position[id(child)] > position[id(node)]]
    if not late:
        return None
    if len(late) == len(edges):
        return "your list is in backward order (root first): reverse it, so that inputs come first"
    node, child = late[0]
    hint = f"{node.label} comes before its input {child.label}: append a node only after all of its inputs"
    if any(ins[id(user)].count(child) > 1 for user in nodes):
        hint += f". If you count users, count uses: {child.label} is used twice by one node"
    return hint


def _loops():  # (how a hint names it, root) of graphs with a loop no operation can build, made by hand
    x = Value(1.0, label="x")
    c = _as("c", x * 2.0)
    c._a = c  # c = 2c: c takes itself as an input
    yield "r = tanh(c), c = 2c", _as("r", c.tanh())
    x = Value(1.0, label="x")
    d = _as("d", _as("c", x * 2.0) + x)
    d._a._a = d  # c (d's first input) now takes d as its input, and d takes c
    yield "r = tanh(d), d = c + x, c = 2d", _as("r", d.tanh())
    x = Value(1.0, label="x")
    e = _as("e", x * 3.0)
    d = _as("d", _as("c", e * 2.0) + x)
    e._a = d  # d uses c, c uses e, and e now uses d: a loop of three
    yield "r = tanh(d), d = c + x, c = 2e, e = 3d", _as("r", d.tanh())
    x = Value(1.0, label="x")
    d = _as("d", x * 2.0)
    r = _as("r", d.tanh())
    d._a = r  # the root itself is in the loop: some node uses r
    yield "r = tanh(d), d = 2r", r


@check("ch04.topological_order", takes="function")
def check_topological_order(topological_order):
    """topological_order(root) lists every node once, each after all of its inputs; on a loop it raises."""
    if hint := _walk_hint(topological_order, _order_problem):
        return hint
    for text, root in _loops():
        _, error = attempt(topological_order, root)
        if not (error and error.startswith("your function raised ValueError")):
            what = error.replace("your function ", "") if error else "returned a list"
            return f"{text} is a loop; yours {what}: raise ValueError when some counts never reach 0"
    return True


@solution("ch04.topological_order")
def topological_order(root):
    users, todo = {root: 0}, [root]  # how many times each node is used
    while todo:
        for child in todo.pop()._prev:
            if child not in users:
                todo.append(child)
            users[child] = users.get(child, 0) + 1  # b = a + a: a is used twice by b, and counts twice
    order, ready = [], [node for node, n in users.items() if n == 0]  # the root, unless a loop uses it
    while ready:
        node = ready.pop()
        order.append(node)  # every user of node is already listed
        for child in node._prev:
            users[child] -= 1
            if users[child] == 0:
                ready.append(child)
    if len(order) < len(users):  # some count never reached 0: those nodes use each other in a loop
        raise ValueError(f"the graph has a loop: {len(users) - len(order)} nodes are never ready")
    return order[::-1]  # users first, reversed: inputs first


# ---- 4.2 predict what breadth-first firing gives; 4.3 fix it --------------------------------------
TRUE_X_GRAD = 3.0 + 6.0 * (1.0 - math.tanh(3.0) ** 2)  # 3.0592 on u = 3x, L = u + tanh(2u) at x = 0.5
BFS_TOLERANCE = 5e-4  # the check stores a digest of the answer on this grid, not the answer
BFS_ANSWERS = [  # a wrong prediction within 5e-4 of one of these gets its hint
    (TRUE_X_GRAD, "3.0592 is the true gradient: what does u.grad hold at the moment u fires?"),
    (TRUE_X_GRAD - 3.0, "0.0592 is the share that goes through tanh(2u); breadth-first loses that one"),
    (0.0, "x does receive something: u fires once, with the share L gave it"),
    (TRUE_X_GRAD / 3.0, "that is u.grad; x = u / 3 receives 3 times what u holds when u fires"),
    (1.0, "1 is what u.grad holds when u fires; x, its input through u = 3x, receives 3 × that"),
    (-3.0, "x.grad is positive here: u = 3x has local derivative 3, and u.grad is positive when u fires"),
    (2 * TRUE_X_GRAD, "that fires u twice, as push-and-recurse does; breadth-first fires each node once"),
    (3.0 + TRUE_X_GRAD, "that fires u twice (half-finished, then whole); breadth-first fires each node once"),
]


@check("ch04.bfs_prediction", takes="number")
def check_bfs_prediction(prediction):
    """prediction: x.grad that a breadth-first backward gives on u = 3x, L = u + tanh(2u) at x = 0.5."""
    if matches_number(
        "ch04.bfs_prediction", prediction, recorded("ch04.bfs_prediction")["digest"], BFS_TOLERANCE
    ):
        return True
    verdict = known_mistake(
        prediction, BFS_ANSWERS, same=lambda got, answer: abs(got - answer) <= BFS_TOLERANCE
    )
    return verdict or "fire L, u, t, 2u, x in turn: when u fires, x gets 3 × what u.grad holds"


@solution("ch04.bfs_prediction")
def bfs_prediction():
    # Breadth-first, u fires right after L, holding only L's 1, so x gets 3 * 1: 2u's share comes too late.
    x = Value(0.5, label="x")
    u = x * 3.0
    two_u = u * 2.0
    t = two_u.tanh()
    L = u + t
    L.grad = 1.0
    for node in (L, u, t, x, two_u):  # breadth-first: the root, its inputs u and t, then theirs
        node._backward()
    return x.grad  # 3.0, where L.backward() gives 3.0592


@recorder("ch04.bfs_prediction")
def _record_bfs():
    return {"digest": number_digest("ch04.bfs_prediction", bfs_prediction(), BFS_TOLERANCE)}


def _backward_problem(nodes, ins, fired, result, copy):  # None if every grad is as backward() gives it
    want = graph.topological_order(copy)
    copy.backward()
    wrong = [(node, right.grad) for node, right in zip(nodes, want) if not close(node.grad, right.grad)]
    if not wrong:  # then the nodes that pass something on must fire by their longest distance from the root
        depth = {id(nodes[-1]): 0}
        for node in reversed(nodes):  # the root first: every user of a node is met before the node
            for child in ins[id(node)]:
                depth[id(child)] = max(depth.get(id(child), 0), depth[id(node)] + 1)
        order = [node for node in fired if ins[id(node)]]  # a leaf passes nothing on
        for before, after in zip(order, order[1:]):
            if depth[id(after)] < depth[id(before)]:
                where = f"{after.label} fired after {before.label}, farther from the root"
                return f"every grad is right, but {where}: fix the classmate's pass, which fires by distance"
        return None
    if not any(as_number(node.grad) for node in nodes):
        return f"every gradient is still 0: set {nodes[-1].label}.grad = 1.0 first, then fire the nodes"
    node, right = wrong[0]
    value = f"{node.grad:.4f}" if as_number(node.grad) is not None else shown(node.grad)
    got = f"{node.label}.grad = {value} instead of {right:.4f}"
    count = Counter(map(id, fired))
    for node in reversed(nodes):  # the root first
        if ins[id(node)] and (times := count[id(node)]) != 1:
            what = f"fired {times} times, passing on its whole grad each time" if times else "never fired"
            root = "the root " if node is nodes[-1] else ""
            return f"{got}: {root}{node.label} {what}. Fire each node exactly once, after all of its users"
    when = {id(node): i for i, node in reversed(list(enumerate(fired)))}  # backwards: the first firing wins
    for child, user in [(c, u) for u in nodes for c in ins[id(u)] if ins[id(c)]]:  # leaves fire any time
        if when.get(id(child), math.inf) < when.get(id(user), -1):  # child fired before a user of it
            if len(fired) > 1 and fired[-1] is nodes[-1]:
                return f"{got}: the root {nodes[-1].label} fired last: fire it first, then outwards from it"
            where = f"{child.label} fired before {user.label}, which uses it, had sent back its share"
            return f"{got}: {where}. Depth as first met does not ensure that: which distance does?"
    return f"{got}: seed the root with 1.0, then fire each node once"


@check("ch04.run_backward", takes="function")
def check_run_backward(run_backward):
    """run_backward(root) fills in every node's .grad, as root.backward() would."""
    return _walk_hint(run_backward, _backward_problem) or True


@solution("ch04.run_backward")
def run_backward(root):
    root.grad = 1.0
    depth, queue = {root: 0}, [root]
    while queue:
        node = queue.pop(0)
        for child in node._prev:
            if depth.get(child, -1) < depth[node] + 1:  # the fix: the LONGEST distance, so users fire first
                depth[child] = depth[node] + 1
                queue.append(child)
    for node in sorted(depth, key=depth.get):  # shallow first: the root, then outwards
        node._backward()


# ---- 4.4 div in the lectures' style: derive the rule for the divisor ------------------------------
DIV_MISTAKES = [  # (a.grad, b.grad) at a = 3, b = -2 from a plausible wrong rule -> hint
    ((-0.5, 0.75), "d(a/b)/db has the wrong sign: it is -a / b**2, negative whenever a > 0"),
    ((-0.5, -0.25), "d(a/b)/db is -a / b**2: you left out the a"),
    ((-0.5, 1.5), "d(a/b)/db is -a / b**2, not -a / b: the derivative of 1/b is -1/b**2"),
    ((-2.0, 3.0), "those are mul's local derivatives (b and a); for a/b they are 1/b and -a/b**2"),
    ((-0.75, -0.5), "the two local derivatives are swapped: a gets 1/b, b gets -a/b**2"),
]
ADD_UP = "a gets two shares: add each with +=, do not assign with ="
ADD_B = "b gets two shares too: add each with +=, do not assign with ="
FROM_ABOVE = "your rule ignores the gradient that arrives from above: multiply by out.grad"
REUSED = [((0.5, 0.25), FROM_ABOVE), ((-2.0, -2.0), ADD_UP), ((-2.0, -3.0), ADD_UP), ((-1.0, -3.0), ADD_B)]
DIV_CASES = [  # (y as a hint names it; a; b, None for div(a, a); known slips: (a.grad, b.grad) -> hint)
    ("div(a, b) at a = 3, b = -2", 3.0, -2.0, DIV_MISTAKES),
    ("div(a, b) at a = -1.5, b = 0.5", -1.5, 0.5, []),
    ("div(a, a) at a = 3", 3.0, None, [((-1 / 3, -1 / 3), ADD_UP), ((1 / 3, 1 / 3), ADD_UP)]),
    ("4 * div(a, b) + a + b at a = 3, b = -2", 3.0, -2.0, REUSED),  # a and b each used twice
]


@check("ch04.div", takes="function")
def check_div(div):
    """div(a, b) returns a Value a/b whose closure passes 1/b to a and -a/b**2 to b."""

    def grads(div, y, a0, b0):  # (a.grad, b.grad) after backward() from y, or what went wrong
        a = Value(a0, label="a")
        b = a if b0 is None else Value(b0, label="b")
        q, error = attempt(div, a, b)
        if error or not isinstance(q, Value) or not close(q.data, a0 / b.data):
            return error or f"return a Value with data {a0 / b.data:g}, got {shown(q)}"
        if div is not Value.__truediv__ and "_backward" not in vars(q):  # a / b: the package's rule
            return "out has no _backward of its own: write a closure and attach it, out._backward = _backward"
        _, error = attempt((q * 4.0 + a + b if y.startswith("4 *") else q).backward)
        return f"backward() through your div failed: {error}" if error else (a.grad, b.grad)

    for y, a0, b0, slips in DIV_CASES:
        got, want = grads(div, y, a0, b0), grads(Value.__truediv__, y, a0, b0)
        if isinstance(got, str) or not all_exact(got, want):
            slip = got if isinstance(got, str) else known_mistake(got, slips, same=all_exact)
            return f"{y}: {slip or f'expected a.grad, b.grad = {want[0]:g}, {want[1]:g}, got {shown(got)}'}"
    return True


@solution("ch04.div")
def div(a, b):
    out = Value(a.data / b.data, (a, b), "/")

    def _backward():
        a.grad += out.grad / b.data  # a/b grows like a, scaled by 1/b
        b.grad += -a.data / b.data**2 * out.grad  # a * (1/b), and d(1/b)/db = -1/b**2

    out._backward = _backward
    return out
