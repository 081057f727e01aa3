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

from micrograd_lesson.exercises import check_bce_loss, check_sample_batch, check_squared_hinge_grads
from micrograd_lesson.exercises.ch09 import _HINGE_BATCHES, _engine_grads, _squared_hinge

# ---- ch09.squared_hinge_grads ----


def grads_with(**slip):
    return lambda scores, ys: _squared_hinge(scores, ys, **slip)


def test_the_reference_is_the_engine_and_the_derived_rule():
    for scores, ys in _HINGE_BATCHES:
        assert np.allclose(_engine_grads(scores, ys), _squared_hinge(scores, ys))


@pytest.mark.parametrize(
    "answer",
    [
        grads_with(),
        lambda s, y: np.array(_squared_hinge(s, y)),  # an array is fine
        lambda s, y: [-2 * t * (1 - t * x) / len(s) if t * x <= 1 else 0 for x, t in zip(s, y)],  # <= at 1
        lambda s, y: [-2 * t * (1 - t * x) / len(s) if t * x < 1 else 0 for x, t in zip(s, y)],
    ],
)
def test_squared_hinge_right_answers_pass(answer):
    assert check_squared_hinge_grads(answer)


@pytest.mark.parametrize(
    "slip, words",
    [
        ({"factor": 1}, "factor 2"),
        ({"n": 1}, "MEAN"),  # the sum
        ({"n": 6}, "not a fixed 6"),  # the size of the batch the notebook prints
        ({"inner": False}, "chain rule"),
        ({"clip": False}, "beyond the margin"),
    ],
)
def test_squared_hinge_names_the_mistake(slip, words):
    assert words in hint_of(check_squared_hinge_grads, grads_with(**slip))


def test_squared_hinge_sign_and_plain_hinge_are_named():
    assert "sign" in hint_of(check_squared_hinge_grads, lambda s, y: [-g for g in _squared_hinge(s, y)])
    assert "plain hinge" in hint_of(
        check_squared_hinge_grads, lambda s, y: [-t / len(s) if t * x < 1 else 0.0 for x, t in zip(s, y)]
    )


@given(factor=st.floats(-5, 5).filter(lambda f: abs(f - 2) > 1e-6), n=st.booleans(), clip=st.booleans())
def test_squared_hinge_refuses_every_other_factor(factor, n, clip):
    hint_of(check_squared_hinge_grads, grads_with(factor=factor, n=n, clip=clip))


@given(index=st.integers(0, 5), nudge=st.floats(1e-6, 1.0))
def test_squared_hinge_wrong_on_one_point_is_refused(index, nudge):
    def answer(scores, ys):
        grads = _squared_hinge(scores, ys)
        if len(grads) > index:
            grads[index] += nudge
        return grads

    hint_of(check_squared_hinge_grads, answer)


# ---- ch09.sample_batch ----


def with_replacement(X, y, batch_size, rng):
    idx = rng.integers(0, len(X), size=batch_size)
    return X[idx], y[idx]


def first_rows(X, y, batch_size, rng):
    return X[:batch_size], y[:batch_size]


def a_window(X, y, batch_size, rng):
    idx = (rng.integers(len(X)) + np.arange(batch_size)) % len(X)
    return X[idx], y[idx]


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
        (first_rows, "same batch"),
        (a_window, "different batches"),  # a random window that wraps around
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


@pytest.mark.slow
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


@pytest.mark.slow
@given(left_out=st.sets(st.integers(0, 19), min_size=1, max_size=10))
def test_batches_from_any_proper_subset_of_the_rows_are_refused(left_out):
    def answer(X, y, batch_size, rng):
        allowed = np.array([i for i in range(len(X)) if i not in left_out])
        idx = rng.choice(allowed, size=batch_size, replace=False)
        return X[idx], y[idx]

    hint_of(check_sample_batch, answer)


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
        (lambda scores, ys: bce()(scores, ys) * len(ys), "the sum over the examples"),
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


def test_sample_batch_refuses_twenty_rows_written_in():
    def sample_batch(X, y, batch_size, rng):
        idx = rng.choice(20, size=batch_size, replace=False)  # the check's 20 rows, not len(X)
        return np.asarray(X)[idx], np.asarray(y)[idx]

    verdict = check_sample_batch(sample_batch)
    assert not verdict and "X of 12 rows" in verdict.hint and "out of bounds" in verdict.hint


def test_bce_loss_refuses_dividing_by_a_fixed_six():
    def bce_loss(scores, ys):
        losses = [
            -(((y + 1) / 2) * s.sigmoid().log() + (1 - (y + 1) / 2) * (1 - s.sigmoid()).log())
            for s, y in zip(scores, ys)
        ]
        return sum(losses) * (1.0 / 6)  # the check's batch size, not len(scores)

    verdict = check_bce_loss(bce_loss)
    assert not verdict and "first 3 examples" in verdict.hint and "len(scores)" in verdict.hint
