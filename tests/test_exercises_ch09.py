"""Chapter 9 exercise checks: right answers in every form pass, wrong ones get a hint naming the slip.

Hand-picked slips pin the hints; hypothesis generates families of wrong answers (other margins,
other scalings, other label codings, labels that do not follow their points, junk) and every one
must be refused without raising.
"""

import math

import numpy as np
import pytest
from hints import hint_of
from hypothesis import assume, given
from hypothesis import strategies as st
from junk import PLAIN as JUNK  # values of every kind a half-finished cell might hold

from micrograd_lesson import Value
from micrograd_lesson.exercises import check_bce_loss, check_hinge_loss, check_sample_batch

# ---- ch09.hinge_loss ----


def hinge(margin=1.0, scale=1.0, sign=1.0):
    def loss(scores, ys):
        terms = [(margin - sign * y * s).relu() for s, y in zip(scores, ys)]
        return sum(terms) * (scale / len(terms))

    return loss


def test_hinge_summed_instead_of_averaged():
    assert "mean" in hint_of(check_hinge_loss, hinge(scale=6.0))


def test_hinge_without_the_relu():
    def answer(scores, ys):
        return sum(1 - y * s for s, y in zip(scores, ys)) * (1 / len(ys))

    assert "relu" in hint_of(check_hinge_loss, answer)


def test_hinge_without_the_margin_of_one():
    assert "margin is 1" in hint_of(check_hinge_loss, hinge(margin=0.0))


def test_hinge_computed_on_floats_is_not_differentiable():
    def answer(scores, ys):
        return sum(max(0, 1 - y * s.data) for s, y in zip(scores, ys)) / len(ys)

    assert "should return a Value" in hint_of(check_hinge_loss, answer)


def test_hinge_with_the_wrong_sign_is_refused():
    assert "should be 1.1333" in hint_of(check_hinge_loss, hinge(sign=-1.0))


def test_hinge_with_the_right_value_but_detached_gradients():
    def detached(scores, ys):
        return Value(sum(max(0.0, 1 - y * s.data) for s, y in zip(scores, ys)) / len(ys))

    assert "gradients are not" in hint_of(check_hinge_loss, detached)


def test_hinge_that_calls_backward_itself_is_told_so():
    def loss(scores, ys):
        out = hinge()(scores, ys)
        out.backward()
        return out

    assert "backward()" in hint_of(check_hinge_loss, loss)


def test_hinge_in_other_correct_forms_passes():
    def with_max(scores, ys):
        total = Value(0.0)
        for s, y in zip(scores, ys):
            margin = y * s
            total = total + ((1 - margin).relu())
        return total / len(ys)

    assert check_hinge_loss(with_max)
    assert check_hinge_loss(hinge())


@given(margin=st.floats(-3, 3), scale=st.floats(0.1, 10), sign=st.sampled_from([1.0, -1.0]))
def test_hinge_refuses_every_other_margin_scale_or_sign(margin, scale, sign):
    right = math.isclose(margin, 1.0, abs_tol=1e-6) and math.isclose(scale, 1.0, rel_tol=1e-6) and sign == 1
    assume(not right)
    hint_of(check_hinge_loss, hinge(margin, scale, sign))


# ---- ch09.sample_batch ----


def with_replacement(X, y, batch_size, rng):
    idx = rng.integers(0, len(X), size=batch_size)
    return X[idx], y[idx]


def first_rows(X, y, batch_size, rng):
    return X[:batch_size], y[:batch_size]


def global_random(X, y, batch_size, rng):
    idx = np.random.permutation(len(X))[:batch_size]
    return X[idx], y[idx]


def shuffled_labels(X, y, batch_size, rng):
    return X[rng.permutation(len(X))[:batch_size]], y[rng.permutation(len(X))[:batch_size]]


def only_points(X, y, batch_size, rng):
    return X[rng.permutation(len(X))[:batch_size]]


def wrong_size(X, y, batch_size, rng):
    idx = rng.permutation(len(X))[: batch_size - 1]
    return X[idx], y[idx]


@pytest.mark.parametrize(
    "answer, words",
    [
        (with_replacement, "without replacement"),
        (first_rows, "must be random"),
        (global_random, "same rng seed"),
        (shuffled_labels, "same indices"),
        (only_points, "two things"),
        (wrong_size, "shape (8, 2)"),
    ],
)
def test_plausible_wrong_batches_get_a_hint(answer, words):
    assert words in hint_of(check_sample_batch, answer)


def test_other_correct_batches_pass():
    def by_permutation(X, y, batch_size, rng):
        idx = rng.permutation(len(X))[:batch_size]
        return X[idx], y[idx]

    def as_lists(X, y, batch_size, rng):
        idx = rng.choice(len(X), size=batch_size, replace=False)
        return [list(X[i]) for i in idx], [int(y[i]) for i in idx]

    assert check_sample_batch(by_permutation)
    assert check_sample_batch(as_lists)


@given(shift=st.integers(1, 19), size_change=st.integers(-3, 3))
def test_batches_whose_labels_do_not_follow_their_points_are_refused(shift, size_change):
    def answer(X, y, batch_size, rng):
        idx = rng.choice(len(X), size=batch_size + size_change, replace=False)
        return X[idx], y[(idx + shift) % len(y)]

    # X's labels repeat every 3 rows, so a shift by a multiple of 3 keeps the labels right:
    assume(shift % 3 or size_change)
    hint_of(check_sample_batch, answer)


def from_the_first_rows(X, y, batch_size, rng):
    idx = rng.permutation(2 * batch_size)[:batch_size]  # never picks the rows after 2 * batch_size
    return X[idx], y[idx]


def never_the_last_row(X, y, batch_size, rng):
    idx = rng.choice(len(X) - 1, size=batch_size, replace=False)
    return X[idx], y[idx]


@pytest.mark.parametrize("answer", [from_the_first_rows, never_the_last_row])
def test_batches_that_leave_some_rows_out_are_refused(answer):
    assert "same chance" in hint_of(check_sample_batch, answer)


@given(left_out=st.sets(st.integers(0, 19), min_size=1, max_size=10))
def test_batches_from_any_proper_subset_of_the_rows_are_refused(left_out):
    def answer(X, y, batch_size, rng):
        allowed = np.array([i for i in range(len(X)) if i not in left_out])
        idx = rng.choice(allowed, size=batch_size, replace=False)
        return X[idx], y[idx]

    hint_of(check_sample_batch, answer)


@given(junk=JUNK)
def test_sample_batch_junk_results_are_refused(junk):
    hint_of(check_sample_batch, lambda X, y, batch_size, rng: junk)


# ---- ch09.bce_loss ----


def bce(target=lambda y: (y + 1) / 2, scale=1.0, sign=1.0):
    def loss(scores, ys):
        terms = []
        for s, y in zip(scores, ys):
            p, t = s.sigmoid(), target(y)
            terms.append(-(t * p.log() + (1 - t) * (1 - p).log()) * sign)
        return sum(terms) * (scale / len(terms))

    return loss


@pytest.mark.parametrize(
    "answer, words",
    [
        (bce(target=lambda y: y), "targets 0/1"),
        (bce(scale=6.0), "divide by 6"),
        (bce(sign=-1.0), "sign is flipped"),
        (
            lambda scores, ys: sum(math.log(1 + math.exp(-y * s.data)) for s, y in zip(scores, ys)) / len(ys),
            "should return a Value",
        ),
    ],
)
def test_plausible_wrong_cross_entropy_gets_a_hint(answer, words):
    assert words in hint_of(check_bce_loss, answer)


def test_the_stable_softplus_form_is_also_right():
    def softplus_form(scores, ys):
        return sum((1 + (-y * s).exp()).log() for s, y in zip(scores, ys)) * (1 / len(ys))

    assert check_bce_loss(softplus_form)
    assert check_bce_loss(bce())


@given(scale=st.floats(0.05, 20), sign=st.sampled_from([1.0, -1.0]), flip=st.booleans())
def test_bce_refuses_other_scalings_signs_and_label_codings(scale, sign, flip):
    assume(not (math.isclose(scale, 1.0, rel_tol=1e-6) and sign == 1 and not flip))
    target = (lambda y: (1 - y) / 2) if flip else (lambda y: (y + 1) / 2)
    hint_of(check_bce_loss, bce(target=target, scale=scale, sign=sign))


# ---- every check, any junk ----


@pytest.mark.parametrize("check", [check_hinge_loss, check_sample_batch, check_bce_loss])
@given(junk=JUNK, raises=st.booleans())
def test_no_check_raises_whatever_the_function_returns(check, junk, raises):
    def answer(*args):
        if raises:
            raise ValueError("learner's bug")
        return junk

    hint_of(check, answer)
    hint_of(check, junk)  # not even a function
