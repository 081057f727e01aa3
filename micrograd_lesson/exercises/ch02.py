"""Chapter 2 exercises: a Value that remembers its inputs and operation."""

from .. import graph
from ..engine import Value  # the solutions run on the chapter's own Value too (tests/test_exercises_ch02.py)
from ._core import as_number, attempt, check, close, first, known_mistake, shown, solution


def _is_node(obj):
    return all(attempt(getattr, obj, attr)[1] is None for attr in ("data", "_prev", "_op"))


@check("ch02.subtraction", takes="class")
def check_subtraction(ValueWithSub):
    """ValueWithSub: your Value class (or subclass) with a __sub__ method."""
    made, error = attempt(lambda: [ValueWithSub(v) for v in (5.0, 3.0, 1.0)])
    if error:
        return f"making a {ValueWithSub.__name__} from a number failed: {error}"
    x, y, one = made
    z, error = attempt(lambda: x - y)
    if error:
        return f"x - y failed: {error} (Python calls x.__sub__(y) for x - y)"
    if not _is_node(z) or z is x or z is y:
        return f"x - y should return a NEW Value, got {shown(z, 60)}"
    if not (close(x.data, 5.0) and close(y.data, 3.0)):
        return "x - y changed x or y: leave the inputs as they are and put the answer in a NEW Value"
    if not close(z.data, 2.0):
        mistakes = [
            (8.0, "5 - 3 gave 8: that is addition; use self.data - other.data"),
            (-2.0, "5 - 3 gave -2: the order is self.data - other.data (self is the left operand)"),
        ]
        return known_mistake(z.data, mistakes) or f"5 - 3 should hold data 2.0, got {shown(z.data, 60)}"
    inputs = None if isinstance(z._prev, (set, frozenset)) else first(z._prev, 3)
    if inputs is None or len(inputs) != 2:
        return f"_prev should remember both inputs as a tuple, (self, other); got {shown(z._prev, 60)}"
    if not (inputs[0] is x and inputs[1] is y):
        if inputs[0] is y and inputs[1] is x:
            return (
                "the inputs are in the wrong order: remember the tuple (self, other), left first (not a set)"
            )
        return "_prev should hold the two Value objects themselves, (self, other)"
    if z._op != "-":
        return f'the operation should be recorded as "-", got {shown(z._op, 60)}'
    if attempt(lambda: len(tuple((x - x)._prev)))[0] != 2:
        return "x - x should remember x twice: the tuple (x, x) (a set keeps one copy)"
    chain, error = attempt(lambda: (x - y) - one)
    if error:
        why = "What class is x - y, and does that class have __sub__? Make the result the same class as self"
        return f"x - y works, but (x - y) - z failed: {error.removeprefix('your function raised ')}. {why}"
    # (x - y) - z as [its data, its first input's data, its second input]: [1.0, 2.0, z] if it remembers x - y
    kept, _ = attempt(lambda: [chain.data, *(v if v is one else v.data for v in first(chain._prev, 3))])
    if not (kept and len(kept) == 3 and close(kept[0], 1.0) and close(kept[1], 2.0) and kept[2] is one):
        return "(5 - 3) - 1 should hold 1.0 and remember (x - y, z), the first result included"
    back, error = attempt(lambda: (y - x).data)
    if error or not close(back, -2.0):
        return f"3 - 5 should hold -2.0, got {error or shown(back, 60)}: a difference keeps its sign (no abs)"
    return True


@solution("ch02.subtraction")
class ValueWithSub(Value):
    def __sub__(self, other):
        # type(self), not Value: the result must be able to subtract again, as in (x - y) - z.
        return type(self)(self.data - other.data, (self, other), "-")


COUNTS = {  # a prediction (values, operations), or a count of values alone -> True if right, else the hint
    (7, 4): True,
    (0, 0): "replace (0, 0) with your prediction, (values, operations)",
    (4, 7): "the pair is the wrong way round: (values, operations)",
    **dict.fromkeys([8, 9], "a and c each appear twice but are one value each: count each value once"),
    **dict.fromkeys([3, 4], "that counts only the leaves (or only the results); values include both"),
    11: "you counted the operations as values too; the ovals are not values",
    7: "operations: count each * and each + written in the formula; every one runs once",
}


@check("ch02.node_count", takes="value")
def check_node_count(prediction):
    """prediction: (values, operations) for the graph of q (or a function returning the pair)."""
    counts = tuple(as_number(n) for n in first(prediction, 3) or ())
    if len(counts) != 2 or not all(n is not None and n.is_integer() for n in counts):
        return f"answer with a pair of whole numbers, (values, operations); got {shown(prediction)}"
    hint = COUNTS.get(counts) or COUNTS.get(counts[0])  # 7.0 == 7: float counts find int keys
    return hint or "values: the three leaves a, b, c, plus one new value made by each operation"


@solution("ch02.node_count")
def predict_q_graph():
    leaves = 3  # a, b and c: each made once, however often it is used
    operations = 4  # a*b, (a*b) + c, a + c, and the final *: each one makes one new value
    return leaves + operations, operations


@check("ch02.q", takes="value")
def check_q(q):
    """q: the root of (a*b + c) * (a + c) at a = 2, b = -3, c = 10 (or a function returning it)."""
    if not _is_node(q):
        return f"pass the root Value of your expression, got {shown(q, 60)}"
    nodes, error = attempt(graph.reachable, q)  # each distinct value once, as draw_dot(q) shows them
    if error or not all(_is_node(v) for v in nodes):
        return "walking back along _prev failed: every _prev should be a tuple of Values"
    if not q._prev:
        return "q has no inputs: build it from the leaves a, b and c with * and +, not as one Value"
    leaves = [as_number(v.data) for v in nodes if not v._prev]
    if None in leaves:
        return "every leaf's data should be a number"
    if sorted(leaves) != [-3.0, 2.0, 10.0]:
        return f"leaves should be a = 2, b = -3, c = 10, each made once and reused; yours: {sorted(leaves)}"
    if not close(q.data, 48.0):
        return f"q should be (2*-3 + 10) * (2 + 10) = 4 * 12; yours is {shown(q.data, 60)}"
    ops = sorted(str(v._op) for v in nodes if v._prev)
    if ops != ["*", "*", "+", "+"] or str(q._op) != "*":
        return f"expected two * and two +, with * last; your graph has {ops}, last {shown(q._op)}"
    return True


@solution("ch02.q")
def build_q():
    a, b, c = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
    q = (a * b + c) * (a + c)
    q.label = "q"
    return q
