"""Chapter 2 exercises: a Value that remembers its inputs and operation."""

from ._core import attempt, solution, verdict

__all__ = ["check_subtraction", "check_q", "check_node_count"]


class Value:
    """The chapter's on-screen class, so the worked solutions run outside the notebook."""

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self._prev = tuple(_children)
        self._op = _op
        self.label = label

    def __repr__(self):
        return f"Value(data={self.data}, label={self.label!r})" if self.label else f"Value(data={self.data})"

    def __add__(self, other):
        return Value(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        return Value(self.data * other.data, (self, other), "*")


def _is_node(obj):
    return all(hasattr(obj, attr) for attr in ("data", "_prev", "_op"))


def all_values(root):
    """Every distinct value that `root` was computed from, root included (as in the chapter)."""
    found, todo = [], [root]
    while todo:
        v = todo.pop()
        if not any(v is seen for seen in found):
            found.append(v)
            todo.extend(v._prev)
    return found


# ---- 1. subtraction ----------------------------------------------------------------------------


def check_subtraction(cls):
    """cls: your Value class (or subclass) with a __sub__ method."""
    if not isinstance(cls, type):
        return verdict(False, f"pass the class itself, e.g. check_subtraction(ValueWithSub); got {cls!r}")
    x, err = attempt(cls, 5.0)
    if err:
        return verdict(False, f"making {cls.__name__}(5.0) failed: {err}")
    y, _ = attempt(cls, 3.0)
    if not hasattr(cls, "__sub__"):
        return verdict(False, "the class has no __sub__ method; Python calls x.__sub__(y) for x - y")
    z, err = attempt(lambda: x - y)
    if err:
        return verdict(False, f"x - y failed: {err}")
    if z is None or not _is_node(z):
        return verdict(False, f"x - y should return a new Value, got {z!r}")
    if z is x or z is y:
        return verdict(False, "x - y changed and returned one of its inputs; return a NEW Value")
    if z.data == 8.0:
        return verdict(False, "5 - 3 gave 8: that is addition; use self.data - other.data")
    if z.data == -2.0:
        return verdict(False, "5 - 3 gave -2: the order is self.data - other.data (self is the left operand)")
    if z.data != 2.0:
        return verdict(False, f"5 - 3 should hold data 2.0, got {z.data!r}")
    if isinstance(z._prev, (set, frozenset)):
        return verdict(False, "store the inputs as a tuple (self, other), not a set: order matters")
    prev = tuple(z._prev)
    if len(prev) != 2:
        return verdict(False, f"the result should remember both inputs (self, other); _prev has {len(prev)}")
    if prev[0] is y and prev[1] is x:
        return verdict(False, "the inputs are in the wrong order: remember (self, other), left operand first")
    if not (prev[0] is x and prev[1] is y):
        return verdict(False, "_prev should hold the two Value objects themselves, (self, other)")
    if z._op != "-":
        return verdict(False, f'the operation should be recorded as "-", got {z._op!r}')
    w, err = attempt(lambda: x - x)
    if err or w is None or len(tuple(w._prev)) != 2:
        return verdict(False, "x - x should remember x twice, (x, x)")
    return verdict(True)


@solution("ch02.subtraction", check=check_subtraction)
class ValueWithSub(Value):
    def __sub__(self, other):
        return Value(self.data - other.data, (self, other), "-")


# ---- 2. build q = (a*b + c) * (a + c) ------------------------------------------------------------


def check_q(q):
    """q: the root of (a*b + c) * (a + c) at a = 2, b = -3, c = 10 (or a function returning it)."""
    if callable(q) and not _is_node(q):
        q, err = attempt(q)
        if err:
            return verdict(False, err)
    if q is None or not _is_node(q):
        return verdict(False, f"pass the root Value of your expression, got {q!r}")
    nodes = all_values(q)
    leaves = [v for v in nodes if not v._prev]
    ops = sorted(v._op for v in nodes if v._prev)
    if not q._prev:
        return verdict(
            False, "q has no inputs: build it from the leaves a, b and c with * and +, not as one Value"
        )
    leaf_data = sorted(v.data for v in leaves)
    if leaf_data == [-3.0, 2.0, 2.0, 10.0, 10.0]:
        return verdict(
            False, "your graph has 5 leaves: a and c were made twice; make each leaf once and reuse it"
        )
    if leaf_data in ([-3.0, 2.0, 2.0, 10.0], [-3.0, 2.0, 10.0, 10.0]):
        return verdict(False, "your graph has 4 leaves: one of a, c was made twice; reuse the same object")
    if leaf_data != [-3.0, 2.0, 10.0]:
        return verdict(False, f"the leaves should be a = 2, b = -3, c = 10; yours hold {leaf_data}")
    if q.data != 48.0:
        return verdict(False, f"q should be (2*-3 + 10) * (2 + 10) = 4 * 12; yours is {q.data}")
    if ops != ["*", "*", "+", "+"] or q._op != "*":
        return verdict(False, f"expected two * and two +, with * last; your graph has {ops}, last {q._op!r}")
    return verdict(True)


@solution("ch02.q", check=check_q)
def build_q():
    a = Value(2.0, label="a")
    b = Value(-3.0, label="b")
    c = Value(10.0, label="c")
    q = (a * b + c) * (a + c)
    q.label = "q"
    return q


# ---- 3. count the nodes of q ---------------------------------------------------------------------


def check_node_count(answer):
    """answer: (values, operations) for the graph of q (or a function returning the pair)."""
    if callable(answer):
        answer, err = attempt(answer)
        if err:
            return verdict(False, err)
    try:
        n_values, n_ops = (int(n) for n in answer)
    except (TypeError, ValueError):
        return verdict(False, f"answer with a pair of whole numbers, (values, operations); got {answer!r}")
    if (n_values, n_ops) == (7, 4):
        return verdict(True)
    if (n_values, n_ops) == (4, 7):
        return verdict(False, "the pair is the wrong way round: (values, operations)")
    if n_values == 9:
        return verdict(False, "a and c are used twice but are still one value each; count each object once")
    if n_values == 11:
        return verdict(False, "the ovals are operations, not values; count only the rectangles")
    if n_values in (3, 4):
        return verdict(False, "that counts only the leaves (or the results); values include both")
    if n_values != 7:
        return verdict(False, "count the rectangles in draw_dot(q): three leaves plus one per operation")
    return verdict(False, "count the ovals in draw_dot(q): each * and each + is one operation")


@solution("ch02.node_count", check=check_node_count)
def count_q_nodes():
    a = Value(2.0, label="a")
    b = Value(-3.0, label="b")
    c = Value(10.0, label="c")
    q = (a * b + c) * (a + c)
    values = all_values(q)  # every distinct value, found by walking back along _prev
    return len(values), sum(1 for v in values if v._op)
