"""Chapters 4-6 exercise checks: right answers pass, plausible wrong ones fail with a useful hint.

A check that cannot fail is worthless, so each one is fed the mistakes a learner is
likely to make, and the hint it gives is checked to point at that mistake.
"""

import math

import pytest
from hints import failed_with

from micrograd_lesson import Value, gradcheck
from micrograd_lesson.exercises import (
    SOLUTIONS,
    check_cos,
    check_find_bugs,
    check_grad_check,
    check_mul,
    check_numeric_derivative,
    check_run_backward,
    check_sin,
    check_sqrt,
    check_topological_order,
)
from micrograd_lesson.exercises.ch06 import SUSPECTS

# ---- chapter 4 ----


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


def test_topological_order_wrong_answers():
    assert failed_with(check_topological_order(recursive_order), "recursion", "stack")
    assert failed_with(check_topological_order(lambda root: list(reversed(recursive_order(root)))), "reverse")
    assert failed_with(check_topological_order(lambda root: [root]), "missing")

    def no_visited_set(root):
        order = []

        def visit(v):
            for child in v._prev:
                visit(child)
            order.append(v)

        visit(root)
        return order

    assert failed_with(check_topological_order(no_visited_set), "twice", "visited")

    def only_interior(root):
        return [v for v in root.topological_order() if v._prev]

    assert failed_with(check_topological_order(only_interior), "leaves")


def test_run_backward_wrong_answers():
    def forgets_the_seed(root):
        for node in reversed(root.topological_order()):
            node._backward()

    def inputs_first(root):
        root.grad = 1.0
        for node in root.topological_order():
            node._backward()

    def shortcut(root):
        root.backward()

    def recursive(root):
        root.grad = 1.0
        for node in reversed(recursive_order(root)):
            node._backward()

    assert failed_with(check_run_backward(forgets_the_seed), "grad = 1.0")
    assert failed_with(check_run_backward(inputs_first), "reversed")
    assert failed_with(check_run_backward(shortcut), "must not call")
    assert failed_with(check_run_backward(recursive), "recursion")


def test_mul_accepts_both_styles_and_rejects_mistakes():
    def with_local_grads(a, b):
        return Value(a.data * b.data, (a, b), "*", _local_grads=(b.data, a.data))

    assert check_mul(with_local_grads)
    assert check_mul(lambda a, b: a * b)  # the package's own operator is right too

    def make(update):
        def mul(a, b):
            out = Value(a.data * b.data, (a, b), "*")

            def _backward():
                update(a, b, out)

            out._backward = _backward
            return out

        return mul

    def assigns(a, b, out):
        a.grad = b.data * out.grad
        b.grad = a.data * out.grad

    def swapped(a, b, out):
        a.grad += a.data * out.grad
        b.grad += b.data * out.grad

    def ignores_out_grad(a, b, out):
        a.grad += b.data
        b.grad += a.data

    def not_attached(a, b):
        return Value(a.data * b.data, (a, b), "*")

    assert failed_with(check_mul(make(assigns)), "+=")
    assert failed_with(check_mul(make(swapped)), "swapped")
    assert failed_with(check_mul(make(ignores_out_grad)), "out.grad")
    assert failed_with(check_mul(not_attached), "out._backward")
    assert failed_with(check_mul(lambda a, b: Value(a.data * b.data)), "inputs")
    assert failed_with(check_mul(lambda a, b: a.data * b.data), "Value")


# ---- chapter 5 ----


def closure_op(f, df, assign=False, use_out_grad=True):
    def op(x):
        out = Value(f(x.data), (x,), "op")

        def _backward():
            g = df(x.data) * (out.grad if use_out_grad else 1.0)
            if assign:
                x.grad = g
            else:
                x.grad += g

        out._backward = _backward
        return out

    return op


def local_op(f, df):
    return lambda x: Value(f(x.data), (x,), "op", _local_grads=(df(x.data),))


@pytest.mark.parametrize(
    "check, f, df",
    [
        (check_sin, math.sin, math.cos),
        (check_cos, math.cos, lambda x: -math.sin(x)),
        (check_sqrt, math.sqrt, lambda x: 0.5 / math.sqrt(x)),
    ],
    ids=["sin", "cos", "sqrt"],
)
def test_unary_checks_accept_both_styles_and_reject_mistakes(check, f, df):
    assert check(closure_op(f, df))
    assert check(local_op(f, df))
    assert failed_with(check(closure_op(f, df, assign=True)), "+=")
    assert failed_with(check(closure_op(f, df, use_out_grad=False)), "out.grad")
    assert failed_with(check(lambda x: Value(f(x.data))), "remember its input")
    # No rule at all: the engine refuses to backpropagate, and the hint passes that on.
    assert failed_with(check(lambda x: Value(f(x.data), (x,), "op")), "_local_grads=", "out._backward")
    assert failed_with(check(lambda x: f(x.data)), "Value")
    assert failed_with(check(lambda x: x), "new Value")
    assert failed_with(check(local_op(lambda x: f(x) + 1, df)), "data")


def test_sqrt_built_from_pow_is_accepted():
    assert check_sqrt(lambda x: x**0.5)


def test_unary_checks_name_the_wrong_derivative():
    assert failed_with(check_sin(local_op(math.sin, lambda x: -math.cos(x))), "sign")
    assert failed_with(check_sin(local_op(math.sin, math.sin)), "cos x")
    assert failed_with(check_cos(local_op(math.cos, math.sin)), "sign")
    assert failed_with(check_sqrt(local_op(math.sqrt, lambda x: 1 / math.sqrt(x))), "1/2")


# ---- chapter 6 ----


def test_numeric_derivative_wrong_answers():
    assert check_numeric_derivative(lambda f, x: (f(x + 1e-5) - f(x - 1e-5)) / 2e-5)
    assert failed_with(check_numeric_derivative(lambda f, x: (f(x + 1e-6) - f(x)) / 1e-6), "central")
    assert failed_with(check_numeric_derivative(lambda f, x: (f(x - 1e-6) - f(x + 1e-6)) / 2e-6), "sign")
    assert failed_with(check_numeric_derivative(lambda f, x: (f(x + 1e-6) - f(x - 1e-6)) / 1e-6), "2h")
    assert failed_with(check_numeric_derivative(lambda f, x: (f(x + 0.1) - f(x - 0.1)) / 0.2), "central")
    assert failed_with(check_numeric_derivative(lambda f, x: Value(0.0)), "plain number")


def test_grad_check_wrong_answers():
    def numeric(f, x, h=1e-6):
        return (f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)

    def from_backward(f, x):
        v = Value(x)
        f(v).backward()
        return v.grad

    assert failed_with(check_grad_check(lambda f, x: (numeric(f, x), numeric(f, x))), "backward()")
    assert failed_with(
        check_grad_check(lambda f, x: (from_backward(f, x), from_backward(f, x))), "by nudging"
    )
    assert failed_with(check_grad_check(lambda f, x: from_backward(f, x)), "pair")

    def returns_values(f, x):
        v = Value(x)
        f(v).backward()
        return v, Value(numeric(f, x))

    assert failed_with(check_grad_check(returns_values), "plain numbers")


def test_find_bugs_wrong_answers():
    def at_one_point(suspects):
        return {name for name, op in suspects.items() if not gradcheck(op, [1.0])}

    def everything(suspects):
        return set(suspects)

    def typed_in(suspects):
        return {"inverse_square", "log2", "gaussian"}

    def too_strict(suspects):
        bad = set()
        for name, op in suspects.items():
            if gradcheck(op, [1.3]).max_error > 0:
                bad.add(name)
        return bad

    assert failed_with(check_find_bugs(at_one_point), "several inputs")
    assert failed_with(check_find_bugs(everything), "correct gradients")
    assert failed_with(check_find_bugs(typed_in), "secret set")
    assert failed_with(check_find_bugs(too_strict), "correct gradients")
    assert failed_with(check_find_bugs(lambda s: "log2"), "single string")
    assert failed_with(check_find_bugs(lambda s: {SUSPECTS["log2"]}), "names")
    assert typed_in(SUSPECTS) == SOLUTIONS["ch06.find_bugs"][0](SUSPECTS)  # the public answer is right
