"""Chapter 8 and 9 exercise checks: right answers pass, plausible wrong ones get a specific hint."""

import numpy as np
import pytest
from hints import hint_of

from micrograd_lesson.exercises import (
    check_bce_loss,
    check_clip_gradients,
    check_hinge_loss,
    check_learning_rate,
    check_sample_batch,
    check_train_step,
)


def squared_error(model, xs, ys):
    return sum((model(x) - y) ** 2 for x, y in zip(xs, ys))


# ---- ch08.train_step ----


def test_train_step_without_zeroing_is_caught_on_the_second_step():
    def forgets_to_zero(model, xs, ys, lr):
        loss = squared_error(model, xs, ys)
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        return loss.data

    assert "zero the gradients" in hint_of(check_train_step, forgets_to_zero)


def test_train_step_that_climbs_uphill():
    def uphill(model, xs, ys, lr):
        loss = squared_error(model, xs, ys)
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data += lr * p.grad
        return loss.data

    assert "uphill" in hint_of(check_train_step, uphill)


def test_train_step_that_never_updates():
    def no_update(model, xs, ys, lr):
        loss = squared_error(model, xs, ys)
        model.zero_grad()
        loss.backward()
        return loss.data

    assert "did not change" in hint_of(check_train_step, no_update)


def test_train_step_returning_the_loss_after_the_update():
    def loss_after(model, xs, ys, lr):
        loss = squared_error(model, xs, ys)
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        return squared_error(model, xs, ys).data

    assert "before" in hint_of(check_train_step, loss_after)


def test_train_step_returning_nothing():
    def returns_none(model, xs, ys, lr):
        loss = squared_error(model, xs, ys)
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad

    assert "as a number" in hint_of(check_train_step, returns_none)


def test_train_step_may_return_the_loss_value_itself():
    def returns_value(model, xs, ys, lr):
        loss = squared_error(model, xs, ys)
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        return loss

    assert check_train_step(returns_value)


def test_train_step_that_raises_gets_the_error_as_a_hint():
    def broken(model, xs, ys, lr):
        raise RuntimeError("oops")

    assert "RuntimeError: oops" in hint_of(check_train_step, broken)


# ---- ch08.learning_rate ----


@pytest.mark.parametrize("lr", [1.0, 0.8, 1.2, lambda: 1.0])
def test_rates_near_one_empty_the_bowl_in_five_steps(lr):
    assert check_learning_rate(lr)


@pytest.mark.parametrize(
    "lr, words",
    [
        (0.5, "too cautious"),
        (0.05, "too cautious"),
        (1.5, "overshooting"),
        (2.0, "grows"),
        (3.0, "grows"),
        (0.0, "positive"),
        (-1.0, "positive"),
        ("1", "as a number"),
        (float("nan"), "as a number"),
        (True, "as a number"),
    ],
)
def test_wrong_rates_get_a_hint(lr, words):
    assert words in hint_of(check_learning_rate, lr)


def test_a_huge_rate_overflowing_does_not_raise():
    assert "grows" in hint_of(check_learning_rate, 1e200)


# ---- ch08.clip_gradients ----


def clip_each(params, max_norm):
    norm = sum(p.grad**2 for p in params) ** 0.5
    for p in params:
        p.grad = max(-max_norm, min(max_norm, p.grad))
    return norm


def clip_always(params, max_norm):
    norm = sum(p.grad**2 for p in params) ** 0.5
    for p in params:
        p.grad *= max_norm / norm
    return norm


def clip_to_unit(params, max_norm):
    norm = sum(p.grad**2 for p in params) ** 0.5
    if norm > max_norm:
        for p in params:
            p.grad /= norm
    return norm


def clip_returns_new_norm(params, max_norm):
    norm = sum(p.grad**2 for p in params) ** 0.5
    if norm > max_norm:
        for p in params:
            p.grad *= max_norm / norm
    return min(norm, max_norm)


def clip_the_data(params, max_norm):
    norm = sum(p.grad**2 for p in params) ** 0.5
    if norm > max_norm:
        for p in params:
            p.data *= max_norm / norm
    return norm


@pytest.mark.parametrize(
    "answer, words",
    [
        (clip_each, "on its own"),
        (clip_always, "leave the grads alone"),
        (clip_to_unit, "exactly max_norm"),
        (clip_returns_new_norm, "before clipping"),
        (clip_the_data, "only p.grad"),
    ],
)
def test_plausible_wrong_clipping_gets_a_hint(answer, words):
    assert words in hint_of(check_clip_gradients, answer)


# ---- ch09.hinge_loss ----


def test_hinge_summed_instead_of_averaged():
    answer = lambda scores, ys: sum((1 - y * s).relu() for s, y in zip(scores, ys))  # noqa: E731
    assert "mean" in hint_of(check_hinge_loss, answer)


def test_hinge_without_the_relu():
    answer = lambda scores, ys: sum(1 - y * s for s, y in zip(scores, ys)) * (1 / len(ys))  # noqa: E731
    assert "relu" in hint_of(check_hinge_loss, answer)


def test_hinge_without_the_margin_of_one():
    answer = lambda scores, ys: sum((-y * s).relu() for s, y in zip(scores, ys)) * (1 / len(ys))  # noqa: E731
    assert "margin is 1" in hint_of(check_hinge_loss, answer)


def test_hinge_computed_on_floats_is_not_differentiable():
    answer = lambda scores, ys: sum(max(0, 1 - y * s.data) for s, y in zip(scores, ys)) / len(ys)  # noqa: E731
    assert "should return a Value" in hint_of(check_hinge_loss, answer)


def test_hinge_with_the_wrong_sign_is_refused():
    answer = lambda scores, ys: sum((1 + y * s).relu() for s, y in zip(scores, ys)) * (1 / len(ys))  # noqa: E731
    assert "should be 1.1333" in hint_of(check_hinge_loss, answer)


def test_hinge_with_the_right_value_but_detached_gradients():
    from micrograd_lesson import Value

    def detached(scores, ys):
        total = sum(max(0.0, 1 - y * s.data) for s, y in zip(scores, ys)) / len(ys)
        return Value(total)

    assert "gradients are not" in hint_of(check_hinge_loss, detached)


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


def test_a_permutation_based_batch_is_also_right():
    def by_permutation(X, y, batch_size, rng):
        idx = rng.permutation(len(X))[:batch_size]
        return X[idx], y[idx]

    assert check_sample_batch(by_permutation)


# ---- ch09.bce_loss ----


def bce_with_raw_labels(scores, ys):
    losses = [-(y * s.sigmoid().log() + (1 - y) * (1 - s.sigmoid()).log()) for s, y in zip(scores, ys)]
    return sum(losses) * (1 / len(losses))


def bce_summed(scores, ys):
    losses = []
    for s, y in zip(scores, ys):
        p, t = s.sigmoid(), (y + 1) / 2
        losses.append(-(t * p.log() + (1 - t) * (1 - p).log()))
    return sum(losses)


def bce_sign_flipped(scores, ys):
    losses = []
    for s, y in zip(scores, ys):
        p, t = s.sigmoid(), (y + 1) / 2
        losses.append(t * p.log() + (1 - t) * (1 - p).log())
    return sum(losses) * (1 / len(losses))


def bce_on_floats(scores, ys):
    import math

    return sum(math.log(1 + math.exp(-y * s.data)) for s, y in zip(scores, ys)) / len(ys)


@pytest.mark.parametrize(
    "answer, words",
    [
        (bce_with_raw_labels, "targets 0/1"),
        (bce_summed, "divide by 6"),
        (bce_sign_flipped, "sign is flipped"),
        (bce_on_floats, "should return a Value"),
    ],
)
def test_plausible_wrong_cross_entropy_gets_a_hint(answer, words):
    assert words in hint_of(check_bce_loss, answer)


def test_the_stable_softplus_form_is_also_right():
    def softplus_form(scores, ys):
        return sum((1 + (-y * s).exp()).log() for s, y in zip(scores, ys)) * (1 / len(ys))

    assert check_bce_loss(softplus_form)
