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

from micrograd_lesson.exercises import check_adam_constant_step, check_momentum_step, check_stability_limit
from micrograd_lesson.exercises._core import SOLUTIONS
from micrograd_lesson.exercises.ch10 import _ADAM_CASES, _adam_change, _uncorrected

# ---- ch10.momentum_step ----


def momentum(a=1.0, b=1.0, c=1.0, new_first=True):
    """v = a*mu*v + b*g; p -= c*lr*(new v, or the old one)."""

    def step(p, v, g, lr, mu):
        new_v = a * mu * v + b * g
        return p - c * lr * (new_v if new_first else v), new_v

    return step


def stub(p, v, g, lr, mu):
    """The notebook's buggy step."""
    p = p - lr * v
    v = mu * (v + g)
    return p, v


@pytest.mark.parametrize(
    "answer, words",
    [
        (stub, "two slips"),
        (lambda p, v, g, lr, mu: (p - lr * mu * (v + g), mu * (v + g)), "mu*(v + g)"),
        (lambda p, v, g, lr, mu: (p - lr * (mu * v + (1 - mu) * g), mu * v + (1 - mu) * g), "(1 - mu)"),
        (momentum(new_first=False), "old velocity"),
        (momentum(c=-1.0), "uphill"),
        (lambda p, v, g, lr, mu: (p - lr * g, mu * v + g), "raw gradient"),
        (lambda p, v, g, lr, mu: (mu * v + g, p - lr * (mu * v + g)), "swapped"),
        (lambda p, v, g, lr, mu: p, "two numbers"),
        (lambda p, v, g, lr, mu: (p - lr * g, v), "never changes"),
        (lambda p, v, g, lr, mu: (p + mu * v - lr * g, mu * v - lr * g), "step itself"),
        (lambda p, v, g, lr, mu: (p - lr * (g + mu * (mu * v + g)), mu * v + g), "Nesterov"),
        (momentum(b=2.0), "p should be"),
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


# ---- ch10.adam_constant_step ----


def test_the_reference_is_the_derived_rule():
    for g, t, lr in _ADAM_CASES:
        assert math.isclose(_adam_change(g, t, lr), -lr * g / (abs(g) + 1e-8), rel_tol=1e-9)


@pytest.mark.parametrize(
    "answer",
    [
        lambda g, t, lr: -lr * g / (math.sqrt(g * g) + 1e-8),
        lambda g, t, lr: np.float64(-lr * np.sign(g) * abs(g) / (abs(g) + 1e-8)),
        lambda g, t, lr: -lr * (g / (1 - 0.9**t) * (1 - 0.9**t)) / (abs(g) + 1e-8),
    ],
)
def test_adam_constant_step_right_answers_pass(answer):
    assert check_adam_constant_step(answer)


@pytest.mark.parametrize(
    "answer, words",
    [
        (_uncorrected, "without bias correction"),
        (lambda g, t, lr: -lr * math.copysign(1.0, g), "ignores eps"),
        (lambda g, t, lr: -lr * g / math.sqrt(g * g + 1e-8), "eps is inside the square root"),
        (lambda g, t, lr: -lr * g / math.sqrt(g * g + 1e-16), "eps**2 inside the square root"),
        (lambda g, t, lr: -lr * g / np.sqrt(g**2 + (1e-8) ** 2), "eps**2 inside the square root"),
        (
            lambda g, t, lr: -lr * g / math.sqrt(g * g / (1 - 0.999**t) * (1 - 0.999**t) + 1e-16),
            "eps**2 inside",
        ),
        (lambda g, t, lr: lr * g / (abs(g) + 1e-8), "sign"),
        (lambda g, t, lr: -lr * g, "plain gradient descent"),
        (lambda g, t, lr: -lr * g / (g * g + 1e-8), "square ROOT"),
        (lambda g, t, lr: -lr, "Adam moves p by"),
        (lambda g, t, lr: -lr * g / (abs(g) + lr * 1e-8), "so look at eps"),  # eps scaled by the rate
        (lambda g, t, lr: -lr * g / (abs(g) + 1e-8 / math.sqrt(1 - 0.999**t)), "so look at eps"),
    ],
)
def test_adam_constant_step_wrong_answers(answer, words):
    assert words in hint_of(check_adam_constant_step, answer)


@given(b1=st.floats(0.0, 0.99), b2=st.floats(0.5, 0.9999), t_shift=st.integers(-1, 1))
def test_adam_constant_step_refuses_uncorrected_steps_with_other_betas(b1, b2, t_shift):
    def answer(g, t, lr):
        tt = max(t + t_shift, 1)
        return -lr * (1 - b1**tt) * g / (math.sqrt((1 - b2**tt) * g * g) + 1e-8)

    assume(not (b1 == 0.0 and b2 >= 0.9999))
    hint_of(check_adam_constant_step, answer)


@given(inside=st.floats(1e-24, 1e-4))
def test_adam_constant_step_refuses_any_constant_inside_the_square_root(inside):
    """sqrt(g*g + c) for any small c, not only eps or eps**2, is refused with a hint."""
    hint_of(check_adam_constant_step, lambda g, t, lr: -lr * g / math.sqrt(g * g + inside))


def test_momentum_refuses_a_fixed_mu():
    def momentum_step(p, v, g, lr, mu):
        v = 0.9 * v + g  # the check's first momentum, not mu
        return p - lr * v, v

    verdict = check_momentum_step(momentum_step)
    assert not verdict and "mu = 0.5" in verdict.hint and "use mu" in verdict.hint


def test_adam_constant_step_refuses_dividing_by_g():
    def adam_constant_step(g, t, lr):
        return -lr * (1.0 if g > 0 else -1.0) / (1 + 1e-8 / abs(g))  # the same number, except at g = 0

    verdict = check_adam_constant_step(adam_constant_step)
    assert not verdict and "adam_constant_step(0.0, 4, 0.1)" in verdict.hint
    assert "ZeroDivisionError" in verdict.hint and "eps" in verdict.hint


@pytest.mark.parametrize(
    "answer, what",
    [
        (lambda g, t, lr: -lr * g / abs(g), "ZeroDivisionError"),  # the sign of g, without eps
        (lambda g, t, lr: -lr * g / math.sqrt(g * g), "ZeroDivisionError"),
        (lambda g, t, lr: -lr / (abs(g) / g), "ZeroDivisionError"),
        (lambda g, t, lr: -lr * g / np.sqrt(np.float64(g) ** 2), "returned nan"),  # NumPy's 0/0
        (lambda g, t, lr: -lr * np.float64(lr) / np.float64(g) * g, "returned nan"),
        (lambda g, t, lr: -lr * np.float64(1.0) / g, "returned -inf"),
    ],
)
def test_an_answer_that_divides_by_zero_at_g_0_is_pointed_to_eps(answer, what):
    """-lr*g/abs(g) is Adam's step without eps: at g = 0 it raises (or NumPy gives nan or inf). The
    hint names the case and what happened, says why Adam's step is 0 there, and where eps goes."""
    hint = hint_of(check_adam_constant_step, answer)
    assert hint.startswith("not yet: adam_constant_step(0.0, 4, 0.1): ") and what in hint
    assert "never divides by zero" in hint and "eps added after the square root" in hint


def test_only_a_division_by_zero_at_g_0_gets_the_eps_hint():
    """An answer that gives 0 at g = 0 is judged on its numbers; one that gives junk there is told so."""
    assert "plain gradient descent" in hint_of(check_adam_constant_step, lambda g, t, lr: -lr * g)
    hint = hint_of(check_adam_constant_step, lambda g, t, lr: None if g == 0 else -lr * g / (abs(g) + 1e-8))
    assert hint == "not yet: adam_constant_step(0.0, 4, 0.1): return a number, got None"
