"""Chapter 2 exercises: a Value that remembers its inputs and operation."""

from ._core import Verdict, as_number, attempt, check, close, first, shown, solution


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
    """True if obj has data, _prev and _op. Never raises, even if reading one of them does."""
    return all(attempt(getattr, obj, attr)[1] is None for attr in ("data", "_prev", "_op"))


def all_values(root):
    """Every distinct value that `root` was computed from, root included (as in the chapter)."""
    found, todo = [], [root]
    while todo:
        v = todo.pop()
        if not any(v is seen for seen in found):
            found.append(v)
            todo.extend(v._prev)
    return found


def _graph(root):
    """(values, None) for a graph that can be walked, else (None, hint): _prev must hold values."""
    values, err = attempt(all_values, root)
    if err or not all(_is_node(v) for v in values):
        return None, "walking back along _prev failed: every _prev should be a tuple of Values"
    return values, None


# ---- 1. subtraction ----------------------------------------------------------------------------


@check("ch02.subtraction")
def check_subtraction(cls):
    """cls: your Value class (or subclass) with a __sub__ method."""
    if not isinstance(cls, type):
        return Verdict(
            False, f"pass the class itself, e.g. check_subtraction(ValueWithSub); got {shown(cls, 60)}"
        )
    x, err = attempt(cls, 5.0)
    if err:
        return Verdict(False, f"making {cls.__name__}(5.0) failed: {err}")
    y, err = attempt(cls, 3.0)
    if err:
        return Verdict(False, f"making {cls.__name__}(3.0) failed: {err}")
    if not hasattr(cls, "__sub__"):
        return Verdict(False, "the class has no __sub__ method; Python calls x.__sub__(y) for x - y")
    z, err = attempt(lambda: x - y)
    if err:
        return Verdict(False, f"x - y failed: {err.replace('your function raised ', '')}")
    if not _is_node(z):
        return Verdict(False, f"x - y should return a new Value, got {shown(z, 60)}")
    if z is x or z is y:
        return Verdict(False, "x - y returned one of its inputs itself; return a NEW Value")
    if not (close(attempt(getattr, x, "data")[0], 5.0) and close(attempt(getattr, y, "data")[0], 3.0)):
        return Verdict(
            False, "x - y changed x or y: leave the inputs as they are and put the answer in a NEW Value"
        )
    if close(z.data, 8.0):
        return Verdict(False, "5 - 3 gave 8: that is addition; use self.data - other.data")
    if close(z.data, -2.0):
        return Verdict(False, "5 - 3 gave -2: the order is self.data - other.data (self is the left operand)")
    if not close(z.data, 2.0):
        return Verdict(False, f"5 - 3 should hold data 2.0, got {shown(z.data, 60)}")
    if isinstance(z._prev, (set, frozenset)):
        return Verdict(False, "store the inputs as a tuple (self, other), not a set: order matters")
    prev, err = attempt(tuple, z._prev)
    if err:
        return Verdict(
            False, f"_prev should be a tuple of the inputs, (self, other); got {shown(z._prev, 60)}"
        )
    if len(prev) != 2:
        return Verdict(False, f"the result should remember both inputs (self, other); _prev has {len(prev)}")
    if prev[0] is y and prev[1] is x:
        return Verdict(False, "the inputs are in the wrong order: remember (self, other), left operand first")
    if not (prev[0] is x and prev[1] is y):
        return Verdict(False, "_prev should hold the two Value objects themselves, (self, other)")
    if z._op != "-":
        return Verdict(False, f'the operation should be recorded as "-", got {shown(z._op, 60)}')
    w, err = attempt(lambda: x - x)
    if err or not _is_node(w) or len(attempt(tuple, w._prev)[0] or ()) != 2:
        return Verdict(False, "x - x should remember x twice, (x, x)")
    one, err = attempt(cls, 1.0)
    chain, err = (None, err) if err else attempt(lambda: (x - y) - one)
    if err:
        return Verdict(
            False,
            f"x - y works, but (x - y) - z failed: {err.replace('your function raised ', '')}. What class is "
            "the result of x - y, and does that class have __sub__? Make the result the same class as self",
        )
    inputs = attempt(tuple, chain._prev)[0] if _is_node(chain) else None
    if not (
        close(chain.data, 1.0)
        and inputs
        and len(inputs) == 2
        and inputs[1] is one
        and close(inputs[0].data, 2.0)
    ):
        return Verdict(
            False, "(5 - 3) - 1 should hold 1.0 and remember (x - y, z), the first result included"
        )
    back, err = attempt(lambda: (y - x).data)
    if err or not close(back, -2.0):
        return Verdict(
            False,
            f"3 - 5 should hold -2.0, got {err or shown(back, 60)}: a difference keeps its sign (no abs)",
        )
    return Verdict(True)


@solution("ch02.subtraction")
class ValueWithSub(Value):
    def __sub__(self, other):
        # type(self), not Value: the result must be able to subtract again, as in (x - y) - z.
        return type(self)(self.data - other.data, (self, other), "-")


# ---- 2. predict the graph of q = (a*b + c) * (a + c) ----------------------------------------------


def _whole_number(n):
    number = None if isinstance(n, (str, bytes)) else as_number(n)
    return int(number) if number is not None and number == int(number) else None


@check("ch02.node_count")
def check_node_count(answer):
    """answer: your prediction (values, operations) for the graph of q (or a function returning the pair)."""
    if callable(answer):
        answer, err = attempt(answer)
        if err:
            return Verdict(False, err)
    pair = first(answer, 3)  # never more: an endless iterator must not hang the check
    if pair is None or len(pair) != 2 or any(_whole_number(n) is None for n in pair):
        hint = f"answer with a pair of whole numbers, (values, operations); got {shown(answer)}"
        return Verdict(False, hint)
    n_values, n_ops = (_whole_number(n) for n in pair)
    if (n_values, n_ops) == (7, 4):
        return Verdict(True)
    if (n_values, n_ops) == (0, 0):
        return Verdict(False, "replace (0, 0) with your prediction, (values, operations)")
    if (n_values, n_ops) == (4, 7):
        return Verdict(False, "the pair is the wrong way round: (values, operations)")
    if n_values in (8, 9):
        return Verdict(
            False, "a and c are each used twice, but each is one object, so one value; count each value once"
        )
    if n_values == 11:
        return Verdict(False, "you counted the operations as values too; the ovals are not values")
    if n_values in (3, 4):
        return Verdict(False, "that counts only the leaves (or only the results); values include both")
    if n_values != 7:
        return Verdict(False, "values: the three leaves a, b, c, plus one new value made by each operation")
    return Verdict(False, "operations: count each * and each + written in the formula; every one runs once")


@solution("ch02.node_count")
def predict_q_graph():
    leaves = 3  # a, b and c: each made once, however often it is used
    operations = 4  # a*b, (a*b) + c, a + c, and the final *: each one makes one new value
    return leaves + operations, operations


# ---- 3. build q and draw it ------------------------------------------------------------------------


@check("ch02.q")
def check_q(q):
    """q: the root of (a*b + c) * (a + c) at a = 2, b = -3, c = 10 (or a function returning it)."""
    if callable(q) and not _is_node(q):
        q, err = attempt(q)
        if err:
            return Verdict(False, err)
    if not _is_node(q):
        return Verdict(False, f"pass the root Value of your expression, got {shown(q, 60)}")
    nodes, hint = _graph(q)
    if hint:
        return Verdict(False, hint)
    if not nodes[0]._prev:
        return Verdict(
            False, "q has no inputs: build it from the leaves a, b and c with * and +, not as one Value"
        )
    leaves = [as_number(v.data) for v in nodes if not v._prev]
    if any(x is None for x in leaves):
        return Verdict(False, "every leaf's data should be a number")
    leaf_data = sorted(leaves)
    if leaf_data == [-3.0, 2.0, 2.0, 10.0, 10.0]:
        return Verdict(
            False, "your graph has 5 leaves: a and c were made twice; make each leaf once and reuse it"
        )
    if leaf_data in ([-3.0, 2.0, 2.0, 10.0], [-3.0, 2.0, 10.0, 10.0]):
        return Verdict(False, "your graph has 4 leaves: one of a, c was made twice; reuse the same object")
    if leaf_data != [-3.0, 2.0, 10.0]:
        return Verdict(False, f"the leaves should be a = 2, b = -3, c = 10; yours hold {leaf_data}")
    if not close(q.data, 48.0):
        return Verdict(False, f"q should be (2*-3 + 10) * (2 + 10) = 4 * 12; yours is {shown(q.data, 60)}")
    ops = sorted(v._op if isinstance(v._op, str) else shown(v._op) for v in nodes if v._prev)
    if ops != ["*", "*", "+", "+"] or not (isinstance(q._op, str) and q._op == "*"):
        return Verdict(
            False, f"expected two * and two +, with * last; your graph has {ops}, last {shown(q._op)}"
        )
    return Verdict(True)


@solution("ch02.q")
def build_q():
    a = Value(2.0, label="a")
    b = Value(-3.0, label="b")
    c = Value(10.0, label="c")
    q = (a * b + c) * (a + c)
    q.label = "q"
    return q
