"""Chapter 10 exercise checks: right answers in every form pass, wrong ones get a hint naming the slip.

Hypothesis generates whole families of wrong update rules (other coefficients, other
betas, wrong limits by any factor, junk) and each must be refused without raising.
"""

import math

import numpy as np
import pytest
from hints import hint_of
from hypothesis import assume, given
from hypothesis import strategies as st
from junk import PLAIN as JUNK  # values of every kind a half-finished cell might hold

from micrograd_lesson.exercises import check_adam_step, check_momentum_step, check_stability_limit
from micrograd_lesson.exercises._core import SOLUTIONS

# ---- ch10.momentum_step ----


def momentum(a=1.0, b=1.0, c=1.0, new_first=True):
    """v = a*mu*v + b*g; p -= c*lr*(new v, or the old one)."""

    def step(p, v, g, lr, mu):
        new_v = a * mu * v + b * g
        return p - c * lr * (new_v if new_first else v), new_v

    return step


@pytest.mark.parametrize(
    "answer, words",
    [
        (lambda p, v, g, lr, mu: (p - lr * (mu * v + (1 - mu) * g), mu * v + (1 - mu) * g), "(1 - mu)"),
        (momentum(new_first=False), "NEW velocity"),
        (momentum(c=-1.0), "uphill"),
        (lambda p, v, g, lr, mu: (p - lr * g, mu * v + g), "raw gradient"),
        (lambda p, v, g, lr, mu: (mu * v + g, p - lr * (mu * v + g)), "swapped"),
        (lambda p, v, g, lr, mu: p, "two numbers"),
        (lambda p, v, g, lr, mu: (p - lr * g, v), "new_v should be 1, got 0"),
        (lambda p, v, g, lr, mu: (p + mu * v - lr * g, mu * v - lr * g), "step itself"),
        (lambda p, v, g, lr, mu: (p - lr * (g + mu * (mu * v + g)), mu * v + g), "Nesterov"),
    ],
)
def test_momentum_wrong_answers(answer, words):
    assert words in hint_of(check_momentum_step, answer)


def test_momentum_accepts_numpy_numbers_and_lists():
    def numpy_form(p, v, g, lr, mu):
        v = np.float64(mu) * v + g
        return [np.float64(p - lr * v), v]

    assert check_momentum_step(numpy_form)


@given(
    a=st.floats(0, 2),
    b=st.floats(-2, 2),
    c=st.floats(-2, 2),
    new_first=st.booleans(),
)
def test_momentum_refuses_every_other_coefficient(a, b, c, new_first):
    assume(not (all(math.isclose(x, 1.0, rel_tol=1e-6) for x in (a, b, c)) and new_first))
    hint_of(check_momentum_step, momentum(a, b, c, new_first))


# ---- ch10.stability_limit ----


@pytest.mark.parametrize(
    "answer, words",
    [
        (lambda lam, mu: 2 * (1 + mu) / lam, "PyTorch's form"),
        (lambda lam, mu: 2 / lam, "plain descent's limit"),
        (lambda lam, mu: 2 / ((1 - mu) * lam), "factor (1 + mu)"),
        (lambda lam, mu: (1 - mu) * lam / (2 * (1 + mu)), "reciprocal"),
        (lambda lam, mu: 1 / lam, "should be"),
    ],
)
def test_stability_limit_wrong_answers(answer, words):
    assert words in hint_of(check_stability_limit, answer)


def test_stability_limit_in_other_correct_forms_passes():
    assert check_stability_limit(lambda lam, mu: (2 + 2 * mu) / (lam - mu * lam))
    assert check_stability_limit(lambda lam, mu: np.float64(2 * (1 + mu)) / ((1 - mu) * lam))


@given(factor=st.floats(0.01, 100))
def test_stability_limit_refuses_any_other_multiple(factor):
    assume(not math.isclose(factor, 1.0, rel_tol=1e-6))
    hint_of(check_stability_limit, lambda lam, mu: factor * 2 * (1 + mu) / ((1 - mu) * lam))


def test_the_derived_limit_is_where_the_averaged_rule_starts_to_diverge():
    """The solution's limit is the real one: just below it |w| shrinks, just above it grows."""
    largest_rate = SOLUTIONS["ch10.stability_limit"][0]

    def final_size(lr, lam, mu, steps=3000):
        w, v = 1.0, 0.0
        for _ in range(steps):
            v = mu * v + (1 - mu) * lam * w
            w -= lr * v
        return abs(w)

    for lam, mu in [(100.0, 0.9), (3.0, 0.5), (1.0, 0.0)]:
        limit = largest_rate(lam, mu)
        assert final_size(0.99 * limit, lam, mu) < 1e-3
        assert final_size(1.01 * limit, lam, mu) > 1e3


# ---- ch10.adam_step ----


def adam(
    correct=True,
    shift=0,
    sqrt=True,
    sign=-1,
    b1_used=None,
    b2_used=None,
    eps_inside=False,
    no_eps=False,
    keep_max=False,
):
    def step(p, g, m, v, t, lr, b1, b2, eps):
        b1_, b2_ = b1 if b1_used is None else b1_used, b2 if b2_used is None else b2_used
        eps = 0.0 if no_eps else eps
        m = b1_ * m + (1 - b1_) * g
        v = max(v, b2_ * v + (1 - b2_) * g * g) if keep_max else b2_ * v + (1 - b2_) * g * g
        m_hat = m / (1 - b1_ ** (t + shift)) if correct else m
        v_hat = v / (1 - b2_ ** (t + shift)) if correct else v
        denom = math.sqrt(v_hat + eps) if eps_inside else (math.sqrt(v_hat) if sqrt else v_hat) + eps
        return p + sign * lr * m_hat / denom, m, v

    return step


@pytest.mark.parametrize(
    "answer, words",
    [
        (adam(correct=False), "no bias correction"),
        (adam(shift=1), "beta**(t + 1)"),
        (adam(sqrt=False), "square ROOT"),
        (adam(sign=1), "uphill"),
        (adam(eps_inside=True), "eps goes outside the root"),
        (adam(no_eps=True), "add eps"),
        (adam(keep_max=True), "no max"),
        (lambda p, g, m, v, t, lr, b1, b2, eps: (p, m, v), "m did not change"),
        (lambda p, g, m, v, t, lr, b1, b2, eps: p, "three numbers"),
        (adam(shift=-1), "ZeroDivisionError"),  # beta**0 = 1: the learner's code divides by zero at t = 1
    ],
)
def test_adam_wrong_answers(answer, words):
    assert words in hint_of(check_adam_step, answer)


def test_adam_hint_shows_enough_digits_to_see_the_difference():
    hint = hint_of(check_adam_step, adam(eps_inside=True))
    want, got = hint.split("should be ")[1].split(":")[0].split(", got ")
    assert want != got


def test_the_notebook_stub_does_not_already_update_m_and_v():
    def stub(p, g, m, v, t, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
        return p, m, v  # the notebook's stub, as written there

    assert "m did not change" in hint_of(check_adam_step, stub)


@given(b1=st.floats(0.0, 0.99), b2=st.floats(0.5, 0.9999))
def test_adam_refuses_other_betas(b1, b2):
    assume(not (math.isclose(b1, 0.9, rel_tol=1e-6) and math.isclose(b2, 0.999, rel_tol=1e-6)))
    hint_of(check_adam_step, adam(b1_used=b1, b2_used=b2))


# ---- every check, any junk ----


@pytest.mark.parametrize("check", [check_momentum_step, check_stability_limit, check_adam_step])
@given(junk=JUNK, raises=st.booleans())
def test_no_check_raises_whatever_the_function_returns(check, junk, raises):
    def answer(*args):
        if raises:
            raise ArithmeticError("learner's bug")
        return junk

    hint_of(check, answer)
    hint_of(check, junk)
