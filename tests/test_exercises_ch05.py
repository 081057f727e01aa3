"""Chapter 5 exercise checks: softsign (a classmate's op to debug) and max (a tie to judge).

Right answers in either style (closure or _local_grads) pass; plausible and randomly generated
wrong rules fail with a hint that names the mistake; nothing a learner passes makes a check raise.
"""

import math

import pytest
from hints import Hostile, failed_with, hostile_value
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd_lesson import Value
from micrograd_lesson.exercises import check_max, check_softsign


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


# ---- softsign (find the classmate's bugs) ----


def softsign(x):
    return x / (1 + abs(x))


def dsoftsign(x):
    return 1 / (1 + abs(x)) ** 2


def classmates(x):  # the notebook's starting point, with both bugs
    return (1 + x) ** -2


def test_softsign_accepts_both_styles():
    assert check_softsign(closure_op(softsign, dsoftsign))
    assert check_softsign(local_op(softsign, dsoftsign))


@pytest.mark.parametrize(
    "fn, words",
    [
        (closure_op(softsign, classmates, assign=True), ("1 + |x|",)),  # the notebook's stub
        (closure_op(softsign, dsoftsign, assign=True), ("+=",)),
        (closure_op(softsign, dsoftsign, use_out_grad=False), ("out.grad",)),
        (local_op(softsign, classmates), ("1 + |x|",)),
        (local_op(softsign, lambda x: (1 + abs(x) - x) / (1 + abs(x)) ** 2), ("sign(x)",)),
        (local_op(softsign, lambda x: -dsoftsign(x)), ("sign",)),
        (lambda x: Value(softsign(x.data)), ("remember its input",)),
        (lambda x: Value(softsign(x.data), (x,), "op"), ("_local_grads=", "out._backward")),
        (lambda x: softsign(x.data), ("Value",)),
        (lambda x: x, ("data 0.666667", "got 2.0")),  # x itself
        (local_op(lambda x: x / (1 + x), dsoftsign), ("data",)),  # right only for x > 0
        (local_op(softsign, lambda x: "d"), ("softsign",)),
        (lambda x: 1 / 0, ("ZeroDivisionError",)),
        (softsign(0.5), ("function itself",)),
    ],
)
def test_softsign_names_the_mistake(fn, words):
    assert failed_with(check_softsign(fn), *words)


@settings(max_examples=60, deadline=None)
@given(scale=st.floats(-3, 3), shift=st.floats(-1, 1), power=st.sampled_from([1, 2, 3]))
def test_softsign_refuses_every_other_local_derivative(scale, shift, power):
    """Any derivative a / (1 + |x|)**p + b other than the right one is refused."""
    right = math.isclose(scale, 1.0, abs_tol=1e-7) and math.isclose(shift, 0.0, abs_tol=1e-7) and power == 2
    result = check_softsign(local_op(softsign, lambda x: scale / (1 + abs(x)) ** power + shift))
    assert bool(result) == right


# ---- max ----


def max_rule(win, lose, tie_a, tie_b, style="local"):
    """A maximum(a, b) giving (win, lose) to the larger and smaller input, (tie_a, tie_b) at a tie."""

    def locals_(a, b):
        if a.data > b.data:
            return win, lose
        if a.data < b.data:
            return lose, win
        return tie_a, tie_b

    if style == "local":
        return lambda a, b: Value(max(a.data, b.data), (a, b), "max", _local_grads=locals_(a, b))

    def maximum(a, b):
        out = Value(max(a.data, b.data), (a, b), "max")
        ga, gb = locals_(a, b)

        def _backward():
            if style == "assign":
                a.grad = ga * out.grad
                b.grad = gb * out.grad
            elif style == "no out.grad":
                a.grad += ga
                b.grad += gb
            else:
                a.grad += ga * out.grad
                b.grad += gb * out.grad

        out._backward = _backward
        return out

    return maximum


@pytest.mark.parametrize("tie", [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (0.25, 0.75)])
@pytest.mark.parametrize("style", ["local", "closure"])
def test_max_accepts_every_valid_tie_rule_in_both_styles(tie, style):
    assert check_max(max_rule(1.0, 0.0, *tie, style=style))


def test_max_accepts_returning_the_larger_input_itself():
    assert check_max(lambda a, b: a if a.data >= b.data else b)


def test_max_agrees_with_pytorch_at_a_tie():
    torch = pytest.importorskip("torch")
    a = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    torch.maximum(a, b).backward()
    tie = (a.grad.item(), b.grad.item())
    assert tie == (0.5, 0.5)
    assert check_max(max_rule(1.0, 0.0, *tie))


@pytest.mark.parametrize(
    "fn, words",
    [
        (max_rule(1.0, 0.0, 1.0, 1.0), ("add up to 2.0000", "add up to exactly 1")),
        (max_rule(1.0, 0.0, 0.0, 0.0), ("add up to 0.0000",)),
        (max_rule(1.0, 0.0, 1.5, -0.5), ("between 0 and 1",)),
        (max_rule(0.0, 1.0, 0.5, 0.5), ("SMALLER",)),
        (max_rule(1.0, 1.0, 0.5, 0.5), ("expected a.grad = 1, b.grad = 0",)),
        (max_rule(1.0, 0.0, 1.0, 0.0, style="assign"), ("+=",)),
        (max_rule(1.0, 0.0, 0.5, 0.5, style="assign"), ("+=",)),
        (max_rule(1.0, 0.0, 0.5, 0.5, style="no out.grad"), ("out.grad",)),
        (lambda a, b: Value(max(a.data, b.data)), ("remember its inputs",)),
        (lambda a, b: Value(min(a.data, b.data), (a, b), "max", _local_grads=(1.0, 0.0)), ("data",)),
        (lambda a, b: max(a.data, b.data), ("return a Value",)),
        (lambda a, b: Value(max(a.data, b.data), (a, b), "max"), ("failed",)),
        (lambda a: a, ("TypeError",)),
        (max, ("TypeError",)),  # Python's max compares Values, which they do not support
    ],
)
def test_max_names_the_mistake(fn, words):
    assert failed_with(check_max(fn), *words)


shares = st.sampled_from([0.0, 0.25, 0.5, 1.0, -0.5, 1.5])


@settings(max_examples=150, deadline=None)
@given(
    win=shares, lose=shares, tie_a=shares, tie_b=shares, style=st.sampled_from(["local", "closure", "assign"])
)
def test_max_random_rules_pass_exactly_when_they_are_subgradients(win, lose, tie_a, tie_b, style):
    valid_tie = tie_a + tie_b == 1.0 and 0.0 <= tie_a <= 1.0 and 0.0 <= tie_b <= 1.0
    right = win == 1.0 and lose == 0.0 and valid_tie
    if style == "assign":  # max(a, a) keeps only the last share, max(a, b) * a loses a's other path
        right = False
    result = check_max(max_rule(win, lose, tie_a, tie_b, style=style))
    assert bool(result) == right, repr(result)


# ---- every check, whatever it is given ----

JUNK = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=4),
    st.just(lambda *args: None),
    st.just(lambda *args: "text"),
    st.just(lambda *args: 1 / 0),
    st.just(lambda *args: Value(float("nan"))),
    st.just(lambda *args: args[0]),
    st.just(lambda *args: [args]),
    st.builds(Hostile),
    st.just(lambda *args: Hostile()),
    st.just(lambda *args: [setattr(x, "grad", Hostile()) for x in args] and args[0]),
    st.just(lambda *args: [setattr(x, "_prev", Hostile()) for x in args] and args[0]),
    st.just(lambda *args: hostile_value()),
)


@pytest.mark.parametrize("check", [check_softsign, check_max])
@given(junk=JUNK)
def test_checks_never_raise_and_refuse_junk(check, junk):
    result = check(junk)
    assert not result and result.hint


def test_softsign_refuses_a_sign_that_divides_by_zero_at_zero():
    def softsign(x):
        out = Value(x.data / (1 + abs(x.data)), (x,), "softsign")

        def _backward():
            sign = x.data / abs(x.data)  # sign(x) as x / |x|: 0 / 0 at x = 0
            x.grad += (1 + abs(x.data) - x.data * sign) / (1 + abs(x.data)) ** 2 * out.grad

        out._backward = _backward
        return out

    verdict = check_softsign(softsign)
    assert not verdict and "softsign(0.0)" in verdict.hint and "ZeroDivisionError" in verdict.hint


def test_max_refuses_routing_by_size():
    def maximum(a, b):
        a_wins = abs(a.data) >= abs(b.data)  # "larger" read as larger in size
        return Value(max(a.data, b.data), (a, b), "max", _local_grads=(float(a_wins), float(not a_wins)))

    verdict = check_max(maximum)
    assert not verdict and "a = -3, b = -1" in verdict.hint and "SMALLER input" in verdict.hint


@pytest.mark.parametrize("central", [False, True])
def test_softsign_refuses_a_nudge_in_place_of_the_derivative(central):
    def nudged(x, h=1e-6):
        return (softsign(x + h) - softsign(x - h if central else x)) / (2 * h if central else h)

    verdict = check_softsign(local_op(softsign, nudged))
    assert failed_with(verdict, "a nudge is not the derivative")


@pytest.mark.parametrize(
    "wins",
    [
        lambda a, b: a >= b - 1,  # a margin: a "wins" when it is at most 1 below b
        lambda a, b: int(a) >= int(b),  # compared as whole numbers
        lambda a, b: round(a) >= round(b),
    ],
)
def test_max_refuses_rules_right_only_on_whole_numbers_far_apart(wins):
    """The check's pairs were whole numbers at least 2 apart: a rule that routes by a margin or by
    rounded inputs passed. Pairs closer than 1 and not whole catch it."""

    def maximum(a, b):
        a_wins = wins(a.data, b.data)
        return Value(max(a.data, b.data), (a, b), "max", _local_grads=(float(a_wins), float(not a_wins)))

    verdict = check_max(maximum)
    assert not verdict and "SMALLER" in verdict.hint


@pytest.mark.parametrize(
    "derivative, words",
    [
        (lambda x: 1 / (1 + abs(x)), ("squared",)),  # the quotient rule's denominator not squared
        (lambda x: 1 - (x / (1 + abs(x))) ** 2, ("tanh's rule",)),  # tanh's 1 - out**2, borrowed
    ],
)
def test_softsign_names_more_slips(derivative, words):
    assert failed_with(check_softsign(local_op(softsign, derivative)), *words)
