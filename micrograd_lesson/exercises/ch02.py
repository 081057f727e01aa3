"""Chapter 2 exercises: a Value that remembers its inputs and operation."""

import operator

from ..engine import Value  # the solutions run on the chapter's own Value too (tests/test_exercises_ch02.py)
from ._core import Verdict, as_number, attempt, call_or_value, check, close, first, shown, solution


def _is_node(obj):
    """True if obj has data, _prev and _op to read."""
    return all(attempt(getattr, obj, attr)[1] is None for attr in ("data", "_prev", "_op"))


def _all_values(root):
    """Every distinct value that `root` was computed from, root included (as in the chapter)."""
    found, todo = [], [root]
    while todo:
        v = todo.pop()
        if not any(v is seen for seen in found):
            found.append(v)
            todo.extend(v._prev)
    return found


# ---- 1. debug: a subtraction that works once -----------------------------------------------------

SUB_MISTAKES = [
    (8.0, "5 - 3 gave 8: that is addition; use self.data - other.data"),
    (-2.0, "5 - 3 gave -2: the order is self.data - other.data (self is the left operand)"),
]


@check("ch02.subtraction")
def check_subtraction(cls):
    """cls: your Value class (or subclass) with a __sub__ method."""
    if not isinstance(cls, type):
        return f"pass the class itself, e.g. check_subtraction(ValueWithSub); got {shown(cls, 60)}"
    made = [attempt(cls, v) for v in (5.0, 3.0, 1.0)]
    if error := next((error for _, error in made if error), None):
        return f"making a {cls.__name__} from a number failed: {error}"
    (x, _), (y, _), (one, _) = made
    z, error = attempt(operator.sub, x, y)
    if error:
        return f"x - y failed: {error} (Python calls x.__sub__(y) for x - y)"
    if not _is_node(z) or z is x or z is y:
        return f"x - y should return a NEW Value, got {shown(z, 60)}"
    if not (close(x.data, 5.0) and close(y.data, 3.0)):
        return "x - y changed x or y: leave the inputs as they are and put the answer in a NEW Value"
    if not close(z.data, 2.0):
        hint = next((hint for wrong, hint in SUB_MISTAKES if close(z.data, wrong)), None)
        return hint or f"5 - 3 should hold data 2.0, got {shown(z.data, 60)}"
    inputs = None if isinstance(z._prev, (set, frozenset)) else first(z._prev, 3)
    if inputs is None or len(inputs) != 2:
        return f"_prev should remember both inputs as a tuple, (self, other); got {shown(z._prev, 60)}"
    if not (inputs[0] is x and inputs[1] is y):
        if inputs[0] is y and inputs[1] is x:
            return "the inputs are in the wrong order: remember the tuple (self, other), left operand first"
        return "_prev should hold the two Value objects themselves, (self, other)"
    if z._op != "-":
        return f'the operation should be recorded as "-", got {shown(z._op, 60)}'
    if attempt(lambda: len(tuple((x - x)._prev)))[0] != 2:
        return "x - x should remember x twice, (x, x)"
    chain, error = attempt(lambda: (x - y) - one)
    if error:
        return (
            f"x - y works, but (x - y) - z failed: {error.removeprefix('your function raised ')}. What class "
            "is the result of x - y, and does that class have __sub__? Make the result the same class as self"
        )

    def remembers_first_result():
        first_result, last = chain._prev
        return close(chain.data, 1.0) and last is one and close(first_result.data, 2.0)

    if not attempt(remembers_first_result)[0]:
        return "(5 - 3) - 1 should hold 1.0 and remember (x - y, z), the first result included"
    back, error = attempt(lambda: (y - x).data)
    if error or not close(back, -2.0):
        return f"3 - 5 should hold -2.0, got {error or shown(back, 60)}: a difference keeps its sign (no abs)"
    return Verdict(True)


@solution("ch02.subtraction")
class ValueWithSub(Value):
    def __sub__(self, other):
        # type(self), not Value: the result must be able to subtract again, as in (x - y) - z.
        return type(self)(self.data - other.data, (self, other), "-")


# ---- 2. predict the graph of q = (a*b + c) * (a + c) ----------------------------------------------

ONCE = "a and c are each used twice, but each is one object, so one value; count each value once"
LEAVES = "that counts only the leaves (or only the results); values include both"
COUNT_MISTAKES = {  # a mistaken (values, operations), or a mistaken count of values alone -> hint
    (0, 0): "replace (0, 0) with your prediction, (values, operations)",
    (4, 7): "the pair is the wrong way round: (values, operations)",
    **{8: ONCE, 9: ONCE, 3: LEAVES, 4: LEAVES},
    11: "you counted the operations as values too; the ovals are not values",
    7: "operations: count each * and each + written in the formula; every one runs once",
}


def _whole_number(n):
    number = as_number(n)
    return int(number) if number is not None and number.is_integer() else None


@check("ch02.node_count")
def check_node_count(answer):
    """answer: your prediction (values, operations) for the graph of q (or a function returning the pair)."""
    answer, error = call_or_value(answer)
    counts = tuple(_whole_number(n) for n in first(answer, 3) or ())
    if error or len(counts) != 2 or None in counts:
        return error or f"answer with a pair of whole numbers, (values, operations); got {shown(answer)}"
    if counts == (7, 4):
        return Verdict(True)
    hint = COUNT_MISTAKES.get(counts) or COUNT_MISTAKES.get(counts[0])
    return hint or "values: the three leaves a, b, c, plus one new value made by each operation"


@solution("ch02.node_count")
def predict_q_graph():
    leaves = 3  # a, b and c: each made once, however often it is used
    operations = 4  # a*b, (a*b) + c, a + c, and the final *: each one makes one new value
    return leaves + operations, operations


# ---- 3. build q and draw it ------------------------------------------------------------------------


@check("ch02.q")
def check_q(q):
    """q: the root of (a*b + c) * (a + c) at a = 2, b = -3, c = 10 (or a function returning it)."""
    q, error = call_or_value(q)
    if error or not _is_node(q):
        return error or f"pass the root Value of your expression, got {shown(q, 60)}"
    nodes, error = attempt(_all_values, q)
    if error or not all(_is_node(v) for v in nodes):
        return "walking back along _prev failed: every _prev should be a tuple of Values"
    if not q._prev:
        return "q has no inputs: build it from the leaves a, b and c with * and +, not as one Value"
    leaves = [as_number(v.data) for v in nodes if not v._prev]
    if None in leaves:
        return "every leaf's data should be a number"
    if sorted(leaves) != [-3.0, 2.0, 10.0]:
        return (
            f"the leaves should be a = 2, b = -3, c = 10, each made once and reused; yours: {sorted(leaves)}"
        )
    if not close(q.data, 48.0):
        return f"q should be (2*-3 + 10) * (2 + 10) = 4 * 12; yours is {shown(q.data, 60)}"
    ops = sorted(str(v._op) for v in nodes if v._prev)
    if ops != ["*", "*", "+", "+"] or str(q._op) != "*":
        return f"expected two * and two +, with * last; your graph has {ops}, last {shown(q._op)}"
    return Verdict(True)


@solution("ch02.q")
def build_q():
    a = Value(2.0, label="a")
    b = Value(-3.0, label="b")
    c = Value(10.0, label="c")
    q = (a * b + c) * (a + c)
    q.label = "q"
    return q
