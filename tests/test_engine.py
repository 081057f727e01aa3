"""The engine: every operation's gradient, the rules of backward(), bad input."""

import gc
import math
import sys
import tracemalloc
import weakref

import pytest
from expressions import FloatBackend, OutOfDomain, ValueBackend, evaluate, inputs, numeric_gradient, trees
from hypothesis import assume, given

from micrograd_lesson.autograd import grad
from micrograd_lesson.engine import Value, no_grad


def central(f, x, h=1e-6):
    """A central difference written here, independent of the package's gradcheck."""
    return (f(x + h) - f(x - h)) / (2 * h)


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


# ---- one input: (name, op on a Value, op on a float, analytic derivative, points) ----

UNARY = [
    ("neg", lambda a: -a, lambda x: -x, lambda x: -1.0, [-1.5, 0.3, 2.0]),
    ("exp", lambda a: a.exp(), math.exp, math.exp, [-2.0, 0.0, 1.5]),
    ("log", lambda a: a.log(), math.log, lambda x: 1 / x, [0.2, 1.0, 7.5]),
    ("tanh", lambda a: a.tanh(), math.tanh, lambda x: 1 / math.cosh(x) ** 2, [-1.2, 0.0, 0.7]),
    (
        "sigmoid",
        lambda a: a.sigmoid(),
        sigmoid,
        lambda x: math.exp(-x) / (1 + math.exp(-x)) ** 2,
        [-3.0, 0.0, 2.5],
    ),
    ("relu", lambda a: a.relu(), lambda x: max(x, 0.0), lambda x: 1.0 if x > 0 else 0.0, [-1.0, 0.5, 3.0]),
    ("pow int", lambda a: a**3, lambda x: x**3, lambda x: 3 * x**2, [-1.5, 0.5, 2.0]),
    ("pow negative", lambda a: a**-2, lambda x: x**-2, lambda x: -2 / x**3, [-1.5, 0.5, 2.0]),
    ("pow fraction", lambda a: a**0.5, math.sqrt, lambda x: 0.5 / math.sqrt(x), [0.25, 1.0, 9.0]),
    ("radd", lambda a: 2.5 + a, lambda x: 2.5 + x, lambda x: 1.0, [-1.0, 4.0]),
    ("rsub", lambda a: 2.5 - a, lambda x: 2.5 - x, lambda x: -1.0, [-1.0, 4.0]),
    ("rmul", lambda a: -3 * a, lambda x: -3 * x, lambda x: -3.0, [-1.0, 4.0]),
    ("rtruediv", lambda a: 3 / a, lambda x: 3 / x, lambda x: -3 / x**2, [-1.5, 0.5, 4.0]),
    ("rpow", lambda a: 2**a, lambda x: 2**x, lambda x: 2**x * math.log(2), [-1.0, 0.0, 3.0]),
]


@pytest.mark.parametrize("name, op, f, df, points", UNARY, ids=[u[0] for u in UNARY])
def test_unary_gradients(name, op, f, df, points):
    for x in points:
        a = Value(x)
        out = op(a)
        out.backward()
        assert out.data == pytest.approx(f(x), rel=1e-12)
        assert a.grad == pytest.approx(df(x), rel=1e-12, abs=1e-15)
        # ...and the analytic derivative above agrees with nudging the input.
        assert a.grad == pytest.approx(central(f, x), rel=1e-6, abs=1e-8)


# ---- two inputs: (name, op, analytic d/da, analytic d/db, points) ----

BINARY = [
    ("add", lambda a, b: a + b, lambda x, y: 1.0, lambda x, y: 1.0),
    ("sub", lambda a, b: a - b, lambda x, y: 1.0, lambda x, y: -1.0),
    ("mul", lambda a, b: a * b, lambda x, y: y, lambda x, y: x),
    ("truediv", lambda a, b: a / b, lambda x, y: 1 / y, lambda x, y: -x / y**2),
    ("pow Value", lambda a, b: a**b, lambda x, y: y * x ** (y - 1), lambda x, y: x**y * math.log(x)),
]
POINTS = [(2.0, -3.0), (0.5, 1.5), (3.0, 0.25)]


@pytest.mark.parametrize("name, op, da, db", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("x, y", POINTS)
def test_binary_gradients(name, op, da, db, x, y):
    a, b = Value(x), Value(y)
    out = op(a, b)
    out.backward()
    assert out.data == pytest.approx(op(x, y), rel=1e-12)
    assert a.grad == pytest.approx(da(x, y), rel=1e-12)
    assert b.grad == pytest.approx(db(x, y), rel=1e-12)
    assert a.grad == pytest.approx(central(lambda t: op(t, y), x), rel=1e-6)
    assert b.grad == pytest.approx(central(lambda t: op(x, t), y), rel=1e-6)


@pytest.mark.parametrize("other", [2, 2.0, True])
def test_plain_numbers_mix_with_values_on_either_side(other):
    a = Value(3.0)
    assert (a + other).data == 3.0 + other == (other + a).data
    assert (a * other).data == 3.0 * other == (other * a).data
    assert (a - other).data == 3.0 - other and (other - a).data == other - 3.0
    assert (a / other).data == 3.0 / other and (other / a).data == other / 3.0
    assert (a**other).data == 3.0**other and (other**a).data == float(other) ** 3.0


def test_integer_data_is_stored_as_float():
    v = Value(3)
    assert v.data == 3.0 and type(v.data) is float
    assert type(Value(True).data) is float


# ---- property tests: random expressions against central differences ----


def _numeric_or_reject(tree, xs):
    try:
        evaluate(tree, xs, FloatBackend)
        return numeric_gradient(tree, xs)
    except (OutOfDomain, OverflowError, ZeroDivisionError):
        assume(False)


@given(trees, inputs)
def test_random_expressions_match_central_differences(tree, xs):
    numeric = _numeric_or_reject(tree, xs)
    leaves = [Value(x) for x in xs]
    out = evaluate(tree, leaves, ValueBackend)
    assume(isinstance(out, Value))  # a tree of constants only has nothing to differentiate
    out.backward()
    assert out.data == pytest.approx(evaluate(tree, xs, FloatBackend), rel=1e-12, abs=1e-12)
    for leaf, n in zip(leaves, numeric):
        assert leaf.grad == pytest.approx(n, rel=1e-4, abs=1e-5)


@given(trees, inputs)
def test_random_expressions_backward_twice_doubles_leaves_only(tree, xs):
    _numeric_or_reject(tree, xs)
    leaves = [Value(x) for x in xs]
    out = evaluate(tree, leaves, ValueBackend)
    assume(isinstance(out, Value) and out not in leaves)
    out.backward()
    first = [leaf.grad for leaf in leaves]
    interior = {id(n): n.grad for n in out.topological_order() if n._prev}
    out.backward()
    # Doubled, up to rounding: a leaf used twice adds its two contributions in another order.
    assert [leaf.grad for leaf in leaves] == pytest.approx([2 * g for g in first], rel=1e-12, abs=1e-300)
    assert {id(n): n.grad for n in out.topological_order() if n._prev} == interior


# ---- the rules of backward() ----


def test_a_value_used_twice_gets_both_contributions():
    a = Value(3.0)
    b = a + a
    b.backward()
    assert b._prev == (a, a)
    assert a.grad == 2.0


def test_a_value_on_two_paths():
    a, b = Value(2.0), Value(-3.0)
    f = (a * b) * (a + b)  # f = a^2 b + a b^2
    f.backward()
    assert a.grad == 2 * 2.0 * -3.0 + (-3.0) ** 2  # 2ab + b^2 = -3
    assert b.grad == 2.0**2 + 2 * 2.0 * -3.0  # a^2 + 2ab = -8


def test_backward_twice_accumulates_leaves_and_recomputes_the_rest():
    a = Value(2.0)
    sq = a * a
    out = sq * 3
    out.backward()
    assert a.grad == 12.0  # d(3a^2)/da = 6a
    out.backward()
    # Like PyTorch with retain_graph=True: the leaf's grads add up (12 + 12);
    # micrograd 0.1.0 compounds through the interior nodes and reports 36.
    assert a.grad == 24.0
    assert sq.grad == 3.0 and out.grad == 1.0  # recomputed, not 6 and 2


def test_backward_on_a_leaf_accumulates_too():
    a = Value(3.0)
    a.backward()
    a.backward()
    assert a.grad == 2.0  # d(a)/d(a) = 1, added twice, as for any leaf


def test_zeroing_leaves_between_backward_calls_gives_the_same_gradient():
    a, b = Value(1.5), Value(-0.5)
    out = (a * b).tanh() + a
    out.backward()
    first = (a.grad, b.grad)
    a.grad = b.grad = 0.0
    out.backward()
    assert (a.grad, b.grad) == first


def test_relu_slope_at_zero_is_zero():
    a = Value(0.0)
    out = a.relu()
    out.backward()
    assert out.data == 0.0
    assert a.grad == 0.0


def test_prev_is_a_tuple_in_insertion_order():
    a, b = Value(1.0, label="a"), Value(2.0, label="b")
    assert isinstance((a * b)._prev, tuple)
    assert (a * b)._prev == (a, b)
    assert (b * a)._prev == (b, a)
    assert (a - b)._prev == (a, b)
    assert (a**b)._prev == (a, b)
    assert a.tanh()._prev == (a,)
    assert Value(5.0)._prev == ()


def test_topological_order_puts_inputs_first():
    a, b = Value(1.0), Value(2.0)
    c = a * b
    d = c + a
    order = d.topological_order()
    assert order[-1] is d
    assert set(map(id, order)) == {id(a), id(b), id(c), id(d)}
    position = {id(n): i for i, n in enumerate(order)}
    for node in order:
        for child in node._prev:
            assert position[id(child)] < position[id(node)]


def test_a_chain_a_hundred_times_deeper_than_the_recursion_limit_backpropagates():
    depth = 100_000
    assert sys.getrecursionlimit() * 100 <= depth
    x = Value(0.5)
    y = x
    for _ in range(depth):
        y = -y  # a chain: each node has exactly one input
    y.backward()  # a recursive topological sort would raise RecursionError here
    assert x.grad == 1.0  # an even number of negations


def test_a_sum_of_100000_terms_backpropagates():
    terms = [Value(float(i)) for i in range(100_000)]
    total = sum(terms)  # Python's sum builds a 100,000-deep chain of additions
    total.backward()
    assert total.data == sum(range(100_000))
    assert all(t.grad == 1.0 for t in terms)


def test_a_graph_is_freed_by_reference_counting_alone():
    was_enabled = gc.isenabled()
    gc.disable()  # a reference cycle would now keep the graph alive
    try:
        a, b = Value(2.0), Value(-3.0)
        mid = (a * b).tanh()
        out = (mid + a.exp() - b.sigmoid()) / (a**2 + 1) + (2 ** a.relu()).log()
        out.backward()
        refs = [weakref.ref(n) for n in out.topological_order()]
        del a, b, mid, out
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        if was_enabled:
            gc.enable()


def test_large_inputs_saturate_without_overflow():
    assert Value(1000.0).tanh().data == 1.0
    assert Value(-1000.0).tanh().data == -1.0
    assert Value(-1000.0).sigmoid().data == 0.0
    assert Value(1000.0).sigmoid().data == 1.0
    for x in (-1000.0, 1000.0):
        a = Value(x)
        a.sigmoid().backward()
        assert a.grad == 0.0


def test_a_micrograd_style_extension_still_works():
    def sin(x):  # written the way micrograd's own operations are: a closure as _backward
        out = Value(math.sin(x.data), (x,), "sin")

        def _backward():
            x.grad += math.cos(x.data) * out.grad

        out._backward = _backward
        return out

    x = Value(0.5)
    y = sin(x) * 2
    y.backward()
    assert y._prev[0]._op == "sin"
    assert x.grad == pytest.approx(2 * math.cos(0.5), rel=1e-15)
    y.backward()  # leaves accumulate, the closure's node is recomputed
    assert x.grad == pytest.approx(4 * math.cos(0.5), rel=1e-15)


def test_repr_is_short_and_stable():
    assert repr(Value(1 / 3)) == "Value(data=0.333333, grad=0.0)"
    assert repr(Value(2, label="w")) == "Value(data=2.0, grad=0.0, label='w')"


# ---- bad input ----


@pytest.mark.parametrize("bad, type_name", [("abc", "str"), (None, "NoneType"), ([1, 2], "list")])
def test_value_of_a_non_number_names_the_type(bad, type_name):
    with pytest.raises(TypeError, match=f"real number.*got {type_name}"):
        Value(bad)


def test_value_of_a_value_is_refused():
    with pytest.raises(TypeError, match="got a Value"):
        Value(Value(1.0))


def test_adding_a_string_is_a_type_error():
    with pytest.raises(TypeError, match=r"unsupported operand.*'Value' and 'str'"):
        Value(1.0) + "a"
    with pytest.raises(TypeError, match=r"unsupported operand.*'Value' and 'str'"):
        Value(1.0) / "a"
    with pytest.raises(TypeError, match=r"unsupported operand.*'str' and 'Value'"):
        "a" - Value(1.0)


@pytest.mark.parametrize("x, shown", [(0, "0.0"), (-1, "-1.0")])
def test_log_of_a_non_positive_number_names_it(x, shown):
    with pytest.raises(ValueError, match=f"log needs a positive input, got {shown}"):
        Value(x).log()


def test_division_by_zero():
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        Value(1.0) / 0
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        1 / Value(0.0)
    with pytest.raises(ZeroDivisionError, match="negative power of zero"):
        Value(0.0) ** -1


def test_exp_overflow_names_exp_and_the_input():
    with pytest.raises(OverflowError, match=r"exp\(1000(\.0)?\)"):
        Value(1000.0).exp()


def test_negative_base_to_a_fractional_power():
    with pytest.raises(ValueError, match="negative base"):
        Value(-8.0) ** (1 / 3)
    assert (Value(-2.0) ** 3).data == -8.0  # whole powers of negatives are fine


@pytest.mark.parametrize("base", [-2.0, 0.0])
def test_value_exponent_needs_a_positive_base(base):
    with pytest.raises(ValueError, match=f"positive base.*got base {base}"):
        Value(base) ** Value(2.0)
    with pytest.raises(ValueError, match="positive base"):
        base ** Value(2.0)


def test_an_op_without_local_derivatives_or_backward_rule_is_refused():
    x = Value(0.5)
    out = Value(2 * x.data, (x,), "double")  # micrograd-style, but no _backward was set
    with pytest.raises(RuntimeError, match="'double' node has 1 inputs but 0 local derivatives"):
        out.backward()


# ---- grad(): derivatives as Values, so they can be differentiated again ----

# (name, op on a Value, first derivative, second derivative, points)
SECOND = [
    ("exp", lambda a: a.exp(), math.exp, math.exp, [-1.0, 0.5]),
    ("log", lambda a: a.log(), lambda x: 1 / x, lambda x: -1 / x**2, [0.3, 2.0]),
    (
        "tanh",
        lambda a: a.tanh(),
        lambda x: 1 - math.tanh(x) ** 2,
        lambda x: -2 * math.tanh(x) * (1 - math.tanh(x) ** 2),
        [-0.7, 0.4],
    ),
    (
        "sigmoid",
        lambda a: a.sigmoid(),
        lambda x: sigmoid(x) * (1 - sigmoid(x)),
        lambda x: sigmoid(x) * (1 - sigmoid(x)) * (1 - 2 * sigmoid(x)),
        [-1.5, 0.8],
    ),
    # relu's own second derivative is 0; squared, the first derivative's relu is differentiated
    (
        "relu",
        lambda a: a.relu() * a.relu(),
        lambda x: 2 * max(x, 0.0),
        lambda x: 2.0 if x > 0 else 0.0,
        [-1.0, 1.5],
    ),
    ("pow 3", lambda a: a**3, lambda x: 3 * x**2, lambda x: 6 * x, [-1.5, 2.0]),
    ("pow -2", lambda a: a**-2, lambda x: -2 * x**-3, lambda x: 6 * x**-4, [-1.5, 0.5]),
    ("pow 0.5", lambda a: a**0.5, lambda x: 0.5 * x**-0.5, lambda x: -0.25 * x**-1.5, [0.25, 4.0]),
    ("pow 0", lambda a: a**0 * a * a, lambda x: 2 * x, lambda x: 2.0, [0.0, 3.0]),
    ("neg", lambda a: -(a * a), lambda x: -2 * x, lambda x: -2.0, [1.5]),
    ("rpow", lambda a: 2**a, lambda x: 2**x * math.log(2), lambda x: 2**x * math.log(2) ** 2, [-1.0, 1.5]),
]


def first_derivative(op, *xs, wrt=0):
    """d op / d xs[wrt] at xs, from the engine (plain floats)."""
    leaves = [Value(x) for x in xs]
    return grad(op(*leaves), [leaves[wrt]])[0]


@pytest.mark.parametrize("name, op, df, d2f, points", SECOND, ids=[s[0] for s in SECOND])
def test_second_derivatives_of_one_input_ops(name, op, df, d2f, points):
    for x in points:
        a = Value(x)
        (first,) = grad(op(a), [a], create_graph=True)
        (second,) = grad(first, [a])
        assert first.data == pytest.approx(df(x), rel=1e-12, abs=1e-15)
        assert second == pytest.approx(d2f(x), rel=1e-12, abs=1e-15)
        # ...and the analytic second derivative agrees with nudging the engine's first derivative.
        nudged = central(lambda t: first_derivative(op, t), x)
        assert second == pytest.approx(nudged, rel=1e-6, abs=1e-8)
        assert a.grad == 0.0  # grad() leaves .grad alone


# (name, op, its Hessian [d2/da2, d2/da db, d2/db2] as functions of x, y)
SECOND_BINARY = [
    ("add", lambda a, b: (a + b) * (a + b), lambda x, y: (2.0, 2.0, 2.0)),
    ("sub", lambda a, b: (a - b) * (a - b), lambda x, y: (2.0, -2.0, 2.0)),
    ("mul", lambda a, b: a * b, lambda x, y: (0.0, 1.0, 0.0)),
    ("div", lambda a, b: a / b, lambda x, y: (0.0, -1 / y**2, 2 * x / y**3)),
    (
        "pow Value",
        lambda a, b: a**b,
        lambda x, y: (
            y * (y - 1) * x ** (y - 2),
            x ** (y - 1) * (1 + y * math.log(x)),
            x**y * math.log(x) ** 2,
        ),
    ),
]


@pytest.mark.parametrize("name, op, hessian", SECOND_BINARY, ids=[s[0] for s in SECOND_BINARY])
@pytest.mark.parametrize("x, y", [(1.5, -2.0), (0.7, 2.5)])
def test_second_derivatives_of_two_input_ops(name, op, hessian, x, y):
    a, b = Value(x), Value(y)
    da, db = grad(op(a, b), [a, b], create_graph=True)
    daa, dab = grad(da, [a, b])
    dba, dbb = grad(db, [a, b])
    assert [daa, dab, dbb] == pytest.approx(hessian(x, y), rel=1e-12, abs=1e-15)
    assert dba == pytest.approx(dab, rel=1e-12, abs=1e-15)  # the mixed partials agree
    # ...and nudging the engine's first derivatives gives the same Hessian.
    nudged = [
        central(lambda t: first_derivative(op, t, y, wrt=0), x),
        central(lambda t: first_derivative(op, t, y, wrt=1), x),
        central(lambda t: first_derivative(op, x, t, wrt=1), y),
    ]
    assert [daa, dab, dbb] == pytest.approx(nudged, rel=1e-6, abs=1e-8)


def test_third_derivative_of_a_polynomial():
    x = Value(1.5)
    f = 3 * x**4 - 2 * x**3 + x - 7
    (d1,) = grad(f, [x], create_graph=True)
    (d2,) = grad(d1, [x], create_graph=True)
    (d3,) = grad(d2, [x], create_graph=True)
    (d4,) = grad(d3, [x])
    assert d1.data == pytest.approx(12 * 1.5**3 - 6 * 1.5**2 + 1, rel=1e-14)
    assert d2.data == pytest.approx(36 * 1.5**2 - 12 * 1.5, rel=1e-14)
    assert d3.data == pytest.approx(72 * 1.5 - 12, rel=1e-14)
    assert d4 == pytest.approx(72.0, rel=1e-14)


def test_newton_on_x4_minus_2x2_from_2_converges_quadratically_to_1():
    x, errors = 2.0, []
    for _ in range(6):
        v = Value(x)
        (d1,) = grad(v**4 - 2 * v**2, [v], create_graph=True)
        (d2,) = grad(d1, [v])
        x -= d1.data / d2
        errors.append(abs(x - 1))
    assert errors[-1] < 1e-11
    # Quadratic: near the root each error is about the previous one squared times
    # f'''(1) / (2 f''(1)) = 24 / 16 = 1.5.
    assert errors[-2] / errors[-3] ** 2 == pytest.approx(1.5, rel=0.01)


def test_grad_without_create_graph_gives_floats_and_leaves_grads_alone():
    a, b = Value(2.0), Value(-3.0)
    mid = a * b
    out = mid.tanh() + a
    a.grad, mid.grad = 5.0, 7.0  # whatever was there must survive
    da, db, unused = grad(out, [a, b, Value(1.0)])
    slope = 1 - math.tanh(-6.0) ** 2
    assert (da, db, unused) == pytest.approx((1 + slope * -3.0, slope * 2.0, 0.0), rel=1e-14)
    assert type(da) is float
    assert (a.grad, b.grad, mid.grad, out.grad) == (5.0, 0.0, 7.0, 0.0)


def test_grad_with_create_graph_gives_values_even_for_constant_derivatives():
    a, b = Value(2.0), Value(-3.0)
    da, db, unused = grad(a + b, [a, b, Value(1.0)], create_graph=True)
    assert all(isinstance(g, Value) for g in (da, db, unused))
    assert (da.data, db.data, unused.data) == (1.0, 1.0, 0.0)


def test_grad_runs_micrograd_style_closures_too():
    x = Value(0.5)
    out = Value(math.sin(x.data), (x,), "sin")

    def _backward():
        x.grad += math.cos(x.data) * out.grad

    out._backward = _backward
    assert grad(out * 3, [x]) == [pytest.approx(3 * math.cos(0.5), rel=1e-15)]
    with pytest.raises(NotImplementedError, match="'sin' node.*no derivative rule written in Values"):
        grad(out, [x], create_graph=True)


def test_grad_needs_values():
    with pytest.raises(TypeError, match="output, got float"):
        grad(1.0, [Value(1.0)])
    with pytest.raises(TypeError, match="inputs, got str"):
        grad(Value(1.0), ["x"])


def test_create_graph_records_even_inside_no_grad_as_torch_does():
    x = Value(2.0)
    f = x**4 - 2 * x**2  # recorded outside the block
    with no_grad():
        (slope,) = grad(f, [x], create_graph=True)
        assert (x * 3)._prev == ()  # the block is still in force after grad() returns
    assert slope.data == 24.0 and grad(slope, [x]) == [44.0]  # f''(2) = 12 * 4 - 4, not a silent 0


# ---- no_grad(): results without a history ----


def test_no_grad_builds_no_graph():
    a, b = Value(2.0), Value(-3.0)
    with no_grad():
        out = (a * b).tanh() + a**2 - b.exp() / a
    assert out.data == pytest.approx(math.tanh(-6.0) + 4.0 - math.exp(-3.0) / 2.0, rel=1e-15)
    assert out._prev == () and out._local_grads == () and out._op == ""
    out.backward()
    assert a.grad == 0.0 and b.grad == 0.0  # nothing leads back to the leaves
    assert (a * b)._prev == (a, b)  # after the block, graphs are recorded again


def test_no_grad_nests_and_restores_after_an_exception():
    a = Value(1.0)
    with no_grad():
        with no_grad():
            assert (a + 1)._prev == ()
        assert (a + 1)._prev == ()  # still off: leaving the inner block restored "off"
    assert (a + 1)._prev[0] is a
    with pytest.raises(ZeroDivisionError):
        with no_grad():
            a / 0
    assert (a * 2)._prev[0] is a


def _chain(n):
    """A chain of n multiplications, and a weak reference to its first node."""
    y = Value(0.5) * 1.0
    first = weakref.ref(y)
    for _ in range(n):
        y = y * 1.0001
    return first, y


def test_no_grad_lets_each_intermediate_be_freed_at_once():
    first, y = _chain(100)
    assert first() is not None  # recorded: the result keeps its whole history alive
    del y
    with no_grad():
        first, y = _chain(100)
    assert first() is None  # nothing refers to it any more, so it is already freed
    assert y._prev == ()


def test_no_grad_saves_memory():
    def held_by_result():
        tracemalloc.start()
        first, y = _chain(2000)
        held = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        return held

    recorded = held_by_result()
    with no_grad():
        not_recorded = held_by_result()
    assert not_recorded < recorded / 100  # one live node against a 2000-node graph


# ---- how a node is stored ----


def test_a_node_is_one_object_for_the_garbage_collector():
    # The plain training loop's speed rests on this: the collector's work grows with the
    # number of objects it tracks, and a node holds its inputs and local derivatives in
    # slots, not in tuples of its own (which would make three objects per node).
    was_enabled = gc.isenabled()
    gc.disable()  # no collection in between, so every new tracked object is counted
    try:
        before = len(gc.get_objects())
        x = Value(0.5)
        y = x
        for _ in range(10_000):
            y = (y * 1.0001).tanh()  # 3 nodes: the constant 1.0001, the product, the tanh
        tracked = len(gc.get_objects()) - before
    finally:
        if was_enabled:
            gc.enable()
    assert len(y.topological_order()) == 30_001
    assert 30_000 <= tracked < 30_100  # one per node (and a few loop objects)


def test_prev_and_local_grads_are_aligned_tuples():
    a, b = Value(2.0), Value(-3.0)
    assert (a * b)._local_grads == (-3.0, 2.0)
    assert (a - b)._local_grads == (1.0, -1.0)
    assert a.tanh()._local_grads == (pytest.approx(1 - math.tanh(2.0) ** 2),)
    assert a._prev == () and a._local_grads == ()
    custom = Value(4.0, (a,), "square", _local_grads=(4.0,))
    assert custom._prev == (a,) and custom._local_grads == (4.0,)
    custom.backward()
    assert a.grad == 4.0


def test_more_than_two_inputs_or_mismatched_local_derivatives_are_refused():
    a, b, c = Value(1.0), Value(2.0), Value(3.0)
    with pytest.raises(ValueError, match="at most 2 inputs, got 3 for 'sum3'"):
        Value(6.0, (a, b, c), "sum3")
    with pytest.raises(ValueError, match="'\\+' node has 2 inputs but 1 local derivatives"):
        Value(3.0, (a, b), "+", _local_grads=(1.0,))


# ---- what micrograd computes, we compute ----


def test_zero_to_a_power_between_0_and_1_has_a_value_but_no_derivative():
    a = Value(0.0)
    out = a**0.5
    assert out.data == 0.0  # micrograd computes it too
    with pytest.raises(ZeroDivisionError, match=r"derivative of x\*\*0.5 does not exist at x = 0.0"):
        out.backward()


def test_zero_to_the_power_zero_is_one_with_slope_zero():
    a = Value(0.0)
    out = a**0
    assert out.data == 1.0
    out.backward()
    assert a.grad == 0.0
    b = Value(0.0)
    (b**1).backward()  # the slope of x**1 is 1 everywhere, 0 included
    assert b.grad == 1.0


@pytest.mark.parametrize(
    "x, shown",
    [(123456789.0, "123456789.0"), (-2.5e20, "-2.5e+20"), (1234567.25, "1234567.25"), (float("inf"), "inf")],
)
def test_repr_of_large_numbers_keeps_every_digit(x, shown):
    assert repr(Value(x)) == f"Value(data={shown}, grad=0.0)"


def test_micrograd_readme_example_runs_unchanged():
    # The example at the top of micrograd's README, line for line.
    a = Value(-4.0)
    b = Value(2.0)
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    assert f"{g.data:.4f}" == "24.7041"  # the README's "prints 24.7041"
    g.backward()
    assert f"{a.grad:.4f}" == "138.8338"  # "prints 138.8338"
    assert f"{b.grad:.4f}" == "645.5773"  # "prints 645.5773"


def test_grad_with_create_graph_names_a_derivative_that_does_not_exist():
    a = Value(0.0)
    with pytest.raises(ZeroDivisionError, match=r"derivative of x\*\*0.5 does not exist at x = 0.0"):
        grad(a**0.5, [a], create_graph=True)


# ---- one rule per operation, and what overflows or is undefined ----


def test_dividing_by_a_tiny_number_gives_inf_with_gradient_minus_inf():
    # d(a/b)/db = -(a/b)/b: computed as -a/b**2, b**2 underflows to 0 and Python raises.
    b = Value(1e-320)
    out = 1 / b
    assert out.data == math.inf
    out.backward()
    assert b.grad == -math.inf
    assert out._local_grads[1] == -math.inf


def test_nan_and_inf_follow_micrograd():
    # 0 * inf is nan: a zero gradient passed through an infinite slope is not skipped.
    assert (Value(1e308) * 10).data == math.inf  # overflow is inf, silently
    a, b = Value(0.0), Value(math.inf)
    c = a * b
    assert math.isnan(c.data)
    d = (c * 0.0).relu()  # d's grad reaches c as 0 * (slope 0) ...
    d.backward()
    assert math.isnan(a.grad)  # ... and d(c)/d(a) = b = inf, so a.grad = 0 * inf = nan
    micrograd = pytest.importorskip("micrograd.engine")
    ma, mb = micrograd.Value(0.0), micrograd.Value(math.inf)
    (((ma * mb) * 0.0).relu()).backward()
    assert math.isnan(ma.grad)


def test_skipping_zero_gradients_changes_no_result():
    # backward() skips nodes whose gradient is 0 (and slopes finite); grad() runs every
    # node's own _backward(). Both must give the very same numbers.
    import random

    rng = random.Random(5)
    xs = [Value(rng.uniform(-1, 1)) for _ in range(6)]
    out = sum(((xs[i] * xs[(i + 1) % 6]).relu() - xs[i].tanh()) * (xs[i] - 0.3).relu() for i in range(6))
    expected = grad(out, xs)
    out.backward()
    assert [x.grad for x in xs] == expected
    assert any(node.grad == 0.0 for node in out.topological_order() if node._prev)  # something was skipped


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**", "neg", "exp", "log", "tanh", "sigmoid", "ReLU"])
def test_one_rule_gives_the_floats_backward_uses_and_the_values_grad_builds(op):
    from micrograd_lesson.engine import RULES

    a, b = Value(0.7), Value(1.3)
    node = {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b, "**": lambda: a**b,
        "neg": lambda: -a, "exp": a.exp, "log": a.log, "tanh": a.tanh, "sigmoid": a.sigmoid, "ReLU": a.relu,
    }[op]()  # fmt: skip
    assert node._op == op and node._rule is RULES[op]
    on_floats = RULES[op](node.data, *(p.data for p in node._prev))
    assert node._local_grads == on_floats  # what backward() multiplies by
    on_nodes = RULES[op](node, *node._prev)  # what grad(create_graph=True) builds on
    assert [g.data if isinstance(g, Value) else g for g in on_nodes] == pytest.approx(
        list(on_floats), rel=1e-15
    )


def test_a_power_rule_is_made_for_each_exponent():
    x = Value(2.0)
    cube, root = x**3, x**0.5
    assert cube._rule is not root._rule
    assert cube._local_grads == (12.0,) and cube._rule(cube, x)[0].data == 12.0
    assert (x**0)._local_grads == (0.0,)
    with pytest.raises(ZeroDivisionError, match=r"derivative of x\*\*0.5 does not exist at x = 0.0"):
        (Value(0.0) ** 0.5).backward()


def test_a_micrograd_style_closure_still_runs_in_backward():
    x = Value(0.5)
    out = Value(math.sin(x.data), (x,), "sin")

    def _backward():
        x.grad += math.cos(x.data) * out.grad

    out._backward = _backward
    (out * 3 + x).backward()
    assert x.grad == pytest.approx(3 * math.cos(0.5) + 1, rel=1e-15)
