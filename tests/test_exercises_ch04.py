"""Chapter 4 exercise checks: every correct answer passes, wrong algorithms fail with a hint naming
the mistake, and no answer (random orders, junk, functions that raise or recurse) makes a check raise or hang.
"""

import itertools
import random

import pytest
from claims.claimlib import chapter_namespace
from hints import Hostile, failed_with, hint_of, hostile_value
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd_lesson import Value
from micrograd_lesson.exercises import (
    SOLUTIONS,
    check_bfs_prediction,
    check_div,
    check_run_backward,
    check_topological_order,
)
from micrograd_lesson.exercises.ch04 import DIV_MISTAKES, TRUE_X_GRAD, bfs_prediction

# ---- orders built by common (right and wrong) algorithms ----


def recursive_order(root):
    order, seen = [], set()

    def visit(v):
        if v not in seen:
            seen.add(v)
            for child in v._prev:
                visit(child)
            order.append(v)

    visit(root)
    return order


def pre_order(root, last_input_first=False):
    """Depth-first, each node listed when first met (before its inputs); first input first unless told."""
    order, seen, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            order.append(node)
            stack.extend(node._prev if last_input_first else reversed(node._prev))
    return order


def pre_order_last_input_first(root):
    return pre_order(root, last_input_first=True)


def breadth_first(root):
    order, seen, queue = [root], {root}, [root]
    while queue:
        for child in queue.pop(0)._prev:
            if child not in seen:
                seen.add(child)
                order.append(child)
                queue.append(child)
    return order


# The notebook's classmate (exercises 4.2 and 4.3), run from its own cell: fires by first-met depth.
breadth_first_backward = chapter_namespace("04", tag="classmate")["breadth_first_backward"]


def is_topological(order):
    """Every node after its inputs (inputs missing from the list are not compared)."""
    position = {id(v): i for i, v in enumerate(order)}
    return all(position.get(id(c), -1) < position[id(v)] for v in order for c in v._prev)


# ---- topological_order ----


def refusing_loops(walk):
    """walk, plus what the exercise adds: a ValueError when no order exists (a loop made by hand)."""

    def order(root):
        nodes = walk(root)
        if not is_topological(list(nodes)) or len(nodes) < len(Value.topological_order(root)):
            raise ValueError("a loop")
        return nodes

    return order


def test_topological_order_accepts_other_valid_orders():
    assert check_topological_order(SOLUTIONS["ch04.topological_order"][0])  # counting users
    assert check_topological_order(refusing_loops(lambda root: list(Value.topological_order(root))))
    # Kahn's algorithm: leaves first, then whatever has all its inputs placed; a different valid order.

    def kahn(root):
        nodes = Value.topological_order(root)
        waiting = {id(v): len(set(map(id, v._prev))) for v in nodes}
        users = {id(v): [] for v in nodes}
        for v in nodes:
            for c in set(v._prev):
                users[id(c)].append(v)
        ready = [v for v in nodes if not v._prev]
        order = []
        while ready:
            v = ready.pop()
            order.append(v)
            for u in users[id(v)]:
                waiting[id(u)] -= 1
                if waiting[id(u)] == 0:
                    ready.append(u)
        return order

    assert check_topological_order(refusing_loops(kahn))
    assert check_topological_order(refusing_loops(lambda root: tuple(Value.topological_order(root))))


# The chapter's own (node, done) stack from section 9, run from its cell: valid orders, but blind to a loop.
section_9_stack = chapter_namespace("04", tag="defines-value")["build_topo"]


def counting_without_the_loop_test(root):
    order = SOLUTIONS["ch04.topological_order"][0]
    try:
        return order(root)
    except ValueError:
        return [root]  # what counting lists when it stops early, had it not raised


def counting_from_the_root_as_ready(root):
    """Counting users, but starting from the root as if nobody used it: blind to a loop through the root."""
    users, todo = {root: 0}, [root]
    while todo:
        for child in todo.pop()._prev:
            if child not in users:
                todo.append(child)
            users[child] = users.get(child, 0) + 1
    order, ready = [], [root]
    while ready:
        node = ready.pop()
        order.append(node)
        for child in node._prev:
            users[child] -= 1
            if users[child] == 0:
                ready.append(child)
    if len(order) < len(users):
        raise ValueError("a loop")
    return order[::-1]


@pytest.mark.parametrize(
    "walk, words",
    [
        (counting_from_the_root_as_ready, ("d = 2r is a loop", "returned a list")),
        (section_9_stack, ("loop", "returned a list", "raise ValueError")),  # the cell above: not enough
        (lambda root: list(Value.topological_order(root)), ("loop", "returned a list")),
        (counting_without_the_loop_test, ("loop", "never reach 0")),
        (refusing_loops(section_9_stack), ()),  # ... with the new step, it is
    ],
)
def test_topological_order_must_notice_a_loop(walk, words):
    verdict = check_topological_order(walk)
    assert bool(verdict) == (not words)
    assert failed_with(verdict, *words) if words else verdict


def stack_with_marks(root):
    """Section 9's (node, done) stack, plus a mark on each node whose inputs are still being placed:
    meeting a marked node again means a loop. A right answer by another method, so the check accepts it
    (the exercise asks for counting, and says the check cannot tell)."""
    topo, placed, in_progress = [], set(), set()
    stack = [(root, False)]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            in_progress.discard(node)
            placed.add(node)
            topo.append(node)
        elif node in in_progress:
            raise ValueError("a loop")
        elif node not in placed:
            in_progress.add(node)
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node._prev))
    return topo


def test_topological_order_accepts_the_stack_with_in_progress_marks():
    assert check_topological_order(stack_with_marks)


def only_short_loops(longest):
    """Section 9's stack, raising only on a loop of at most `longest` nodes (a node that uses itself,
    or two that use each other): blind to a longer ring."""

    def order(root):
        nodes = section_9_stack(root)
        for node in nodes:
            if node in node._prev or (longest >= 2 and any(node in child._prev for child in node._prev)):
                raise ValueError("a loop")
        return nodes

    return order


@pytest.mark.parametrize(
    "walk, words",
    [
        (only_short_loops(1), ("d = c + x, c = 2d is a loop", "returned a list")),
        (only_short_loops(2), ("c = 2e, e = 3d is a loop", "returned a list")),
    ],
)
def test_topological_order_must_notice_every_loop_not_just_short_ones(walk, words):
    assert failed_with(check_topological_order(walk), *words)


@pytest.mark.parametrize(
    "fn, words",
    [
        (recursive_order, ("recursion", "stack")),
        (lambda root: list(reversed(Value.topological_order(root))), ("backward order", "reverse")),
        (pre_order, ("backward order",)),  # right reversed on z = x*y + x ...
        (lambda root: list(reversed(pre_order(root))), ("2u comes before its input u",)),  # ... not on L
        (lambda root: list(reversed(breadth_first(root))), ("comes before its input",)),
        (breadth_first, ("backward order",)),  # valid reversed on z = x*y + x, so that is the hint
        (lambda root: [root], ("missing",)),
        (lambda root: [v for v in Value.topological_order(root) if v._prev], ("leaves",)),
        (lambda root: Value.topological_order(root) * 2, ("twice", "visited")),
        (lambda root: None, ("return",)),
        (lambda root: 42, ("list of nodes",)),
        (lambda root: [v.data for v in Value.topological_order(root)], ("not a node",)),
        (lambda root: itertools.count(), ("return a list",)),  # an endless iterator does not hang the check
        (
            lambda root: iter(Value.topological_order(root)),
            ("not a list_iterator",),
        ),  # its ValueError would wait
        (lambda root: 1 / 0, ("ZeroDivisionError",)),
        (recursive_order(Value(1.0)), ("function itself",)),
        (lambda root: root.topological_order(), ("do not call .topological_order()",)),  # the shortcut
        (lambda root: set(Value.topological_order(root)), ("return a list, not a set",)),
    ],
)
def test_topological_order_names_the_mistake(fn, words):
    assert failed_with(check_topological_order(fn), *words)


def test_topological_order_without_visited_set():
    def no_visited_set(root):
        order = []

        def visit(v):
            for child in v._prev:
                visit(child)
            order.append(v)

        visit(root)
        return order

    assert failed_with(check_topological_order(no_visited_set), "twice", "visited")


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_topological_order_on_random_orders_is_right_exactly_when_the_order_is(seed):
    rng = random.Random(seed)
    valid = []

    def shuffled(root):
        order = Value.topological_order(root)
        if not is_topological(order):  # the loop made by hand: no order exists, and the answer says so
            raise ValueError("a loop")
        if len(order) < 50:  # the 5,000-deep chain stays valid, so the small graphs decide
            rng.shuffle(order)
        valid.append(is_topological(order))
        return order

    result = check_topological_order(shuffled)
    assert bool(result) == all(valid)
    assert result.hint or result


# ---- run_backward ----


def fire_in(order_of):
    """A run_backward that seeds the root and fires the nodes in order_of(root)."""

    def run_backward(root):
        root.grad = 1.0
        for node in order_of(root):
            node._backward()

    return run_backward


def by_distance(root):
    """Every node, root first, ordered by its longest distance from the root (the fixed classmate)."""
    nodes = Value.topological_order(root)
    depth = {root: 0}
    for node in reversed(nodes):
        for child in node._prev:
            depth[child] = max(depth.get(child, 0), depth[node] + 1)
    return sorted(nodes, key=depth.get)


def test_run_backward_accepts_firing_by_longest_distance():
    assert check_run_backward(SOLUTIONS["ch04.run_backward"][0])
    assert check_run_backward(fire_in(by_distance))

    def leaves_anywhere(root):  # leaves do nothing when they fire, so where they sit does not matter
        order = by_distance(root)
        leaves = [v for v in order if not v._prev]
        return leaves + [v for v in order if v._prev]

    assert check_run_backward(fire_in(leaves_anywhere))


def test_run_backward_refuses_replacing_the_classmate_by_the_chapters_own_pass():
    """Reversed depth-first order (section 9's backward(), a cell above) gets right grads; the exercise
    is to fix the pass by distance, and the graph s = b + c tells the two apart."""
    verdict = check_run_backward(fire_in(lambda root: reversed(Value.topological_order(root))))
    assert failed_with(verdict, "s = b + c", "every grad is right", "fires by distance")


@pytest.mark.parametrize(
    "fn, words",
    [
        (fire_in(breadth_first), ("u fired before 2u", "3.0000 instead of 3.0592")),
        (fire_in(pre_order), ("u fired before 2u",)),
        # right by luck on L = u + t (it reaches t before u); M = t + u catches it
        (fire_in(pre_order_last_input_first), ("M = t + u", "u fired before 2u")),
        (fire_in(lambda root: Value.topological_order(root)), ("root z fired last", "fire it first")),
        (fire_in(lambda root: list(reversed(Value.topological_order(root)))[1:]), ("root z never fired",)),
        (breadth_first_backward, ("u fired before 2u", "which distance")),  # the notebook's classmate
        (fire_in(lambda root: reversed(root.topological_order())), ("do not call",)),
        (lambda root: [n._backward() for n in reversed(Value.topological_order(root))], ("grad = 1.0",)),
        (lambda root: root.backward(), ("do not call root.backward()",)),
        (fire_in(lambda root: reversed(recursive_order(root))), ("recursion",)),
        (fire_in(lambda root: [root]), ("never fired",)),
        (fire_in(lambda root: []), ("root z never fired",)),
        (
            fire_in(lambda root: 2 * list(reversed(Value.topological_order(root)))),
            ("fired 2 times", "exactly once"),
        ),
        (lambda root: 1 / 0, ("ZeroDivisionError",)),
        ("my_run_backward", ("function itself",)),
    ],
)
def test_run_backward_names_the_mistake(fn, words):
    assert failed_with(check_run_backward(fn), *words)


def test_run_backward_push_and_recurse_is_refused():
    """The no-sort alternative: fire a node, then recurse into its inputs. It counts u's share twice."""

    def push_and_recurse(root):
        root.grad = 1.0

        def push(node):
            node._backward()
            for child in node._prev:
                push(child)

        push(root)

    assert failed_with(check_run_backward(push_and_recurse), "fired 2 times")  # u: its share counted twice


def test_run_backward_push_with_a_stack_is_refused():
    """The same shortcut with a stack instead of recursion: u fires twice, each time after its users."""

    def push_with_a_stack(root):
        root.grad = 1.0
        stack = [root]
        while stack:
            node = stack.pop()
            node._backward()
            stack.extend(node._prev)

    assert failed_with(check_run_backward(push_with_a_stack), "u fired 2 times", "exactly once")


def test_run_backward_leaves_a_usable_graph_behind():
    """The check swaps the root's class to forbid backward(); it must swap it back."""
    seen = []
    check_run_backward(lambda root: seen.append(root))
    assert type(seen[0]) is Value


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_run_backward_on_random_firing_orders_is_right_exactly_when_users_fire_first(seed):
    rng = random.Random(seed)
    valid = []

    def random_firing(root):
        order = list(reversed(Value.topological_order(root)))
        if len(order) < 50:
            rng.shuffle(order)
        interior = [v for v in order if v._prev]  # leaves fire harmlessly anywhere
        valid.append(is_topological(list(reversed(interior))))
        root.grad = 1.0
        for node in order:
            node._backward()

    result = check_run_backward(random_firing)
    assert bool(result) == all(valid)


# ---- the breadth-first prediction ----


def test_bfs_prediction_numbers_are_what_the_engine_gives():
    x = Value(0.5)
    u = x * 3.0
    L = u + (u * 2.0).tanh()
    fire_in(breadth_first)(L)
    assert x.grad == pytest.approx(bfs_prediction(), abs=1e-12)
    x2 = Value(0.5)
    u2 = x2 * 3.0
    (u2 + (u2 * 2.0).tanh()).backward()
    assert x2.grad == pytest.approx(TRUE_X_GRAD, abs=1e-12)
    assert round(TRUE_X_GRAD, 4) == 3.0592


@pytest.mark.parametrize(
    "answer, words",
    [
        (3.0592, "true gradient"),
        (0.0592, "through tanh(2u)"),
        (0.0, "receive"),
        (1.0197, "u.grad"),
        (2.5, "u fires"),
    ],
)
def test_bfs_prediction_hints(answer, words):
    assert failed_with(check_bfs_prediction(answer), words)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_bfs_prediction_accepts_only_three(x):
    assert bool(check_bfs_prediction(x)) == (abs(x - 3.0) <= 5e-4)


# ---- div ----


def make_div(da, db, accumulate=True, times_out_grad=True):
    def div(a, b):
        out = Value(a.data / b.data, (a, b), "/")

        def _backward():
            for node, rule in ((a, da), (b, db)):
                g = rule(a.data, b.data) * (out.grad if times_out_grad else 1.0)
                node.grad = node.grad + g if accumulate else g

        out._backward = _backward
        return out

    return div


def d_a(a, b):
    return 1 / b


def d_b(a, b):
    return -a / b**2


def test_div_accepts_the_closure_only():
    assert check_div(make_div(d_a, d_b))
    assert "attach it" in hint_of(check_div, lambda a, b: a / b)  # the package's rule: no closure
    assert "attach it" in hint_of(
        check_div,
        lambda a, b: Value(a.data / b.data, (a, b), "/", _local_grads=(1 / b.data, -a.data / b.data**2)),
    )


@pytest.mark.parametrize("wrong, words", [(w, h[:25]) for w, h in DIV_MISTAKES])
def test_div_names_each_known_mistake(wrong, words):
    (ga, gb) = wrong  # at a = 3, b = -2: rules that give exactly these numbers there
    rules = {
        (-0.5, 0.75): (d_a, lambda a, b: a / b**2),
        (-0.5, -0.25): (d_a, lambda a, b: -1 / b**2),
        (-0.5, 1.5): (d_a, lambda a, b: -a / b),
        (-2.0, 3.0): (lambda a, b: b, lambda a, b: a),
        (-0.75, -0.5): (d_b, d_a),
    }
    assert words in hint_of(check_div, make_div(*rules[wrong]))


def test_div_names_the_closure_slips():
    assert "+=" in hint_of(check_div, make_div(d_a, d_b, accumulate=False))
    assert "out.grad" in hint_of(check_div, make_div(d_a, d_b, times_out_grad=False))
    assert "data" in hint_of(check_div, lambda a, b: Value(a.data * b.data, (a, b), "/"))
    assert "Value" in hint_of(check_div, lambda a, b: a.data / b.data)


def test_div_refuses_assigning_to_a_only():
    """a.grad = ..., b.grad += ...: right on div(a, a) by luck (1/a then += -1/a), but in
    4 * div(a, b) + a it wipes out the 1 that + sent to a."""

    def div(a, b):
        out = Value(a.data / b.data, (a, b), "/")

        def _backward():
            a.grad = out.grad / b.data
            b.grad += -a.data / b.data**2 * out.grad

        out._backward = _backward
        return out

    assert "4 * div(a, b) + a" in hint_of(check_div, div)
    assert "+=" in hint_of(check_div, div)


RULES = {
    "1/b": d_a,
    "-a/b**2": d_b,
    "a/b**2": lambda a, b: a / b**2,
    "b": lambda a, b: b,
    "a": lambda a, b: a,
    "1": lambda a, b: 1.0,
    "-1/b**2": lambda a, b: -1 / b**2,
}


@settings(max_examples=80, deadline=None)
@given(
    da=st.sampled_from(sorted(RULES)),
    db=st.sampled_from(sorted(RULES)),
    accumulate=st.booleans(),
    times_out_grad=st.booleans(),
)
def test_div_random_rules_pass_only_when_right(da, db, accumulate, times_out_grad):
    result = check_div(make_div(RULES[da], RULES[db], accumulate, times_out_grad))
    assert bool(result) == (da == "1/b" and db == "-a/b**2" and accumulate and times_out_grad)
    assert result or result.hint


def junk_answers():
    def hostile_grads(*args):
        for x in args:
            x.grad = Hostile()
        return args[0]

    def hostile_prev(*args):
        for x in args:
            x._prev = Hostile()
        return args[0]

    return [
        None,
        42,
        "text",
        Hostile(),
        lambda *a: Hostile(),
        lambda *a: [Hostile()],
        hostile_grads,
        hostile_prev,
        lambda *a: hostile_value(),
    ]


@pytest.mark.parametrize(
    "check", [check_topological_order, check_run_backward, check_div, check_bfs_prediction]
)
@pytest.mark.parametrize("junk", range(len(junk_answers())))
def test_checks_never_raise_on_hostile_answers(check, junk):
    result = check(junk_answers()[junk])
    assert not result and result.hint


# ---- the algorithms a learner writes for 4.1 and 4.3, right and subtly wrong ----


def depth_backward(requeue):
    """The classmate's pass with depth = the longest distance; without `requeue`, a raised depth
    is not passed on to the node's inputs."""

    def run_backward(root):
        root.grad = 1.0
        depth, queue = {root: 0}, [root]
        while queue:
            node = queue.pop(0)
            for child in node._prev:
                if depth.get(child, -1) < depth[node] + 1:
                    fresh = child not in depth
                    depth[child] = depth[node] + 1
                    if requeue or fresh:
                        queue.append(child)
        for node in sorted(depth, key=depth.get):
            node._backward()

    return run_backward


def test_run_backward_longest_depth_passes_only_when_raised_depths_are_passed_on():
    assert check_run_backward(depth_backward(requeue=True))
    assert "x fired before u" in hint_of(check_run_backward, depth_backward(requeue=False))


def counting_order(per_use):
    """Kahn's algorithm from the root; without `per_use`, a user counts once however often it uses a node."""

    def topological_order(root):
        users, todo = {root: []}, [root]
        while todo:
            node = todo.pop()
            for child in node._prev:
                if child not in users:
                    users[child] = []
                    todo.append(child)
                users[child].append(id(node))
        count = {n: len(u) if per_use else len(set(u)) for n, u in users.items()}
        order, ready = [], [root]
        while ready:
            node = ready.pop()
            order.append(node)
            for child in node._prev:
                count[child] -= 1
                if count[child] == 0:
                    ready.append(child)
        return order[::-1]

    return topological_order


def test_topological_order_by_counting_passes_only_when_every_use_counts():
    assert check_topological_order(refusing_loops(counting_order(per_use=True)))
    assert "count uses" in hint_of(check_topological_order, counting_order(per_use=False))


def test_run_backward_records_a_bounded_number_of_firings():
    """A pass that fires forever is stopped by the time limit; what it fired is not kept without end."""
    from micrograd_lesson.exercises.ch04 import _graphs, _run

    def fire_often(root):
        for _ in range(100_000):
            root._backward()

    _, _, fired, _, error = _run(fire_often, dict(_graphs())["z = x*y + x"])
    assert error is None and 0 < len(fired) <= 50_000


def test_a_missing_nodes_hint_stays_short_on_the_deep_chain():
    def loses_the_chain(root):
        order = Value.topological_order(root)
        return order if len(order) < 50 else [root]

    hint = hint_of(check_topological_order, loses_the_chain)
    assert "5,000 additions" in hint and "missing" in hint and len(hint) < 300


def test_div_refuses_assigning_to_b_before_a_adds():
    """b.grad = ... first, then a.grad += ...: div(a, a) comes out right (the += restores the total), so
    only a graph that uses b again, 4 * div(a, b) + a + b, tells it apart."""

    def div(a, b):
        out = Value(a.data / b.data, (a, b), "/")

        def _backward():
            b.grad = -a.data / b.data**2 * out.grad  # = : b's other share is lost
            a.grad += out.grad / b.data

        out._backward = _backward
        return out

    assert "b gets two shares" in hint_of(check_div, div)


@pytest.mark.parametrize(
    "answer, words",
    [
        (-3.0, "positive"),  # a sign slip
        (2 * TRUE_X_GRAD, "twice"),  # u fired twice, as push-and-recurse does
        (3.0 + TRUE_X_GRAD, "twice"),  # ... the first time half-finished
        (1.0, "3 × "),  # u's grad when it fires, not what x receives
    ],
)
def test_bfs_prediction_names_more_slips(answer, words):
    assert failed_with(check_bfs_prediction(answer), words)
