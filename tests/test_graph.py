"""The graph walker: inputs in a fixed order, every node once, each after its inputs."""

import random
import sys

import pytest

from micrograd_lesson import graph
from micrograd_lesson.engine import Value
from micrograd_lesson.tensor import Tensor


class SetNode:
    """A micrograd-style node: its inputs in a set, whose order varies from run to run."""

    def __init__(self, data, children=(), op="", label=""):
        self.data, self._prev, self._op, self.label = data, set(children), op, label


def random_graph(seed, make_leaf, combine, size=30):
    """A random DAG with shared nodes, built from leaves by one- and two-input operations."""
    rng = random.Random(seed)
    nodes = [make_leaf(rng.uniform(-2, 2)) for _ in range(rng.randint(1, 5))]
    for _ in range(rng.randint(1, size)):
        nodes.append(combine(rng, rng.choice(nodes), rng.choice(nodes)))
    return nodes[-1]


def value_op(rng, a, b):
    return rng.choice([lambda: a + b, lambda: a * b, lambda: -a, lambda: a.relu(), lambda: b - a])()


def recursive_order(root, inputs):
    """The textbook recursive depth-first search (fine for these small graphs)."""
    order, seen = [], set()

    def visit(node):
        if id(node) not in seen:
            seen.add(id(node))
            for child in inputs(node):
                visit(child)
            order.append(node)

    visit(root)
    return order


@pytest.mark.parametrize("seed", range(40))
def test_order_is_the_recursive_depth_first_order(seed):
    root = random_graph(seed, Value, value_op)
    order = graph.topological_order(root)
    assert order == recursive_order(root, lambda n: n._prev)
    assert root.topological_order() == order
    position = {id(n): i for i, n in enumerate(order)}
    assert len(position) == len(order)  # every node once
    assert all(position[id(c)] < position[id(n)] for n in order for c in n._prev)


@pytest.mark.parametrize("seed", range(10))
def test_reachable_meets_the_root_first_and_every_node_once(seed):
    root = random_graph(seed, Value, value_op)
    met = graph.reachable(root)
    assert met[0] is root
    assert {id(n) for n in met} == {id(n) for n in graph.topological_order(root)}
    assert len(met) == len({id(n) for n in met})


def test_inputs_keep_the_operation_order_and_repeats():
    a, b = Value(2.0), Value(3.0)
    assert graph.inputs(a - b) == (a, b)
    assert graph.inputs(b - a) == (b, a)
    assert graph.inputs(a + a) == (a, a)
    assert graph.inputs(a) == ()


def test_a_set_of_inputs_is_sorted_by_what_a_learner_sees():
    x, w, b = SetNode(2.0, label="x"), SetNode(-3.0, label="w"), SetNode(1.0, label="b")
    node = SetNode(0.0, (x, w, b), "+")
    assert [n.label for n in graph.inputs(node)] == ["b", "w", "x"]


def test_set_inputs_give_the_same_order_whatever_the_set_order():
    """Rebuilding the same micrograd-style graph (new objects, so new set orders) gives the same order."""

    def build():
        return random_graph(
            7,
            lambda d: SetNode(d),
            lambda rng, a, b: (
                SetNode(a.data + b.data, (a, b), "+") if rng.random() < 0.5 else SetNode(-a.data, (a,), "neg")
            ),
        )

    orders = {tuple((n.data, n._op) for n in graph.topological_order(build())) for _ in range(20)}
    assert len(orders) == 1


def test_micrograds_value_is_walked_when_installed():
    micrograd = pytest.importorskip("micrograd.engine")
    a, b = micrograd.Value(2.0), micrograd.Value(-3.0)
    c = a * b
    d = c + a
    order = graph.topological_order(d)
    assert order[-1] is d and len(order) == 4
    assert order.index(c) > max(order.index(a), order.index(b))


def test_a_chain_a_hundred_times_deeper_than_the_recursion_limit_needs_no_recursion():
    depth = 100_000
    assert sys.getrecursionlimit() * 100 <= depth
    x = Value(1.0)
    node = x
    for _ in range(depth):
        node = -node
    order = graph.topological_order(node)
    assert len(order) == depth + 1
    assert order[0] is x and order[-1] is node
    assert len(graph.reachable(node)) == depth + 1


def test_tensor_graphs_are_walked_the_same_way():
    a = Tensor([[1.0, 2.0]], requires_grad=True)
    b = Tensor([[3.0], [4.0]], requires_grad=True)
    c = a @ b
    d = (c + c).relu()
    order = graph.topological_order(d)
    assert order == recursive_order(d, lambda n: n._prev)
    assert order[-1] is d and {id(a), id(b)} <= {id(n) for n in order[:2]}


# ---- the graph in words (a drawing's alt text) ----


def test_formula_writes_the_graph_over_its_leaves():
    a, b, c, f = (Value(x, label=k) for k, x in zip("abcf", [2.0, -3.0, 10.0, -2.0]))
    assert graph.formula((a * b + c) * f) == "((a * b) + c) * f"
    assert graph.formula((a * 2.0 + 1.0).tanh() ** 2) == "tanh((a * 2) + 1)**2"
    assert graph.formula(a) == "a"


def test_formula_gives_up_past_its_limit():
    x = Value(1.0, label="x")
    y = x
    for _ in range(40):
        y = y * x
    assert graph.formula(y, limit=120) is None
    assert graph.formula(y, limit=10_000).count("x") == 41


def test_describe_graph_says_what_it_computes_its_output_and_after_backward_the_gradients():
    a, b, c, f = (Value(x, label=k) for k, x in zip("abcf", [2.0, -3.0, 10.0, -2.0]))
    L = (a * b + c) * f
    L.label = "L"
    before = graph.describe_graph(L)
    assert before == "Computation graph of L = ((a * b) + c) * f: 7 values, 3 operations; L = -8.0000."
    L.backward()
    after = graph.describe_graph(L)
    assert (
        after == before + " After backward, the leaves' gradients: a 6.0000, b -4.0000, c -2.0000, f 4.0000."
    )
    assert graph.describe_graph(L, grads=False) == before


def test_describe_graph_of_a_single_value_says_one_value():
    from micrograd_lesson.show.draw import draw_dot

    x = Value(3.0, label="x")
    said = graph.describe_graph(x)
    assert said.startswith("Computation graph of x from 1 input through no operations: 1 value, 0 ")
    assert "1 value," in repr(draw_dot(x))


@pytest.mark.parametrize("seed", range(5))
def test_describe_graph_of_any_graph_stays_within_its_limit(seed):
    root = random_graph(seed, lambda x: Value(x), value_op, size=300)
    root.backward()
    text = graph.describe_graph(root)
    assert len(text) <= graph.ALT_LIMIT
    assert text.startswith("Computation graph of the output") and f"= {root.data:.4f}." in text
