"""Chapter 8 exercise checks: every right answer passes, wrong ones (hand-picked and generated) get a hint."""

import math

import pytest
from hints import failed_with, hint_of
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd_lesson import Value
from micrograd_lesson.exercises import (
    SOLUTIONS,
    check_clip_gradients,
    check_diagnosis,
    check_learning_rate,
    check_train_step,
)
from micrograd_lesson.exercises.ch08 import CAUSES, _broken_run, diagnosis, mystery_runs, plot_mystery_runs

_TRUTH = diagnosis()  # the worked solution: which broken loop drew which curve


def step_with(zero="before", scale=1.0, returns="total", how_many=None, keep=False):
    """A per-example train_step with one thing changed: where it zeroes, the update, what it returns,
    or (keep) that it keeps every example's graph in a list until the step ends."""

    def train_step(model, xs, ys, lr):
        if zero == "before":
            model.zero_grad()
        losses, kept = [], []
        for x, y in zip(xs, ys):
            if zero == "inside":
                model.zero_grad()
            loss = (model(x) - y) ** 2
            loss.backward()
            losses.append(loss.data)
            if keep:
                kept.append(loss)
        if zero == "after":
            model.zero_grad()
        for p in model.parameters()[:how_many]:
            p.data -= scale * lr * p.grad
        total = sum(losses)
        if returns == "after":
            return sum(((model(x) - y) ** 2).data for x, y in zip(xs, ys))
        return {"total": total, "value": Value(total), "last": losses[-1], "mean": total / 4}[returns]

    return train_step


def whole_batch(model, xs, ys, lr):
    """The chapter's loop: one graph for the whole loss. The same update, but not the exercise."""
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return loss.data


def running_value_sum(model, xs, ys, lr):
    """One example at a time, but the total is a Value: every example's graph stays alive in it."""
    model.zero_grad()
    total = 0.0
    for x, y in zip(xs, ys):
        loss = (model(x) - y) ** 2
        loss.backward()
        total = total + loss
    for p in model.parameters():
        p.data -= lr * p.grad
    return total.data


def two_calls_per_example(model, xs, ys, lr):
    """A right answer that calls the model twice per example (once to print, say): 2 graphs at a time."""
    model.zero_grad()
    total = 0.0
    for x, y in zip(xs, ys):
        prediction = model(x)
        loss = (model(x) - y) ** 2
        loss.backward()
        total += loss.data + 0.0 * prediction.data
    for p in model.parameters():
        p.data -= lr * p.grad
    return total


# ---- 1. train_step ----


@pytest.mark.parametrize("answer", [step_with(), step_with(returns="value"), two_calls_per_example])
def test_train_step_right_answers_pass(answer):
    assert check_train_step(answer)


@pytest.mark.parametrize("answer", [whole_batch, step_with(keep=True), running_value_sum])
def test_a_step_that_keeps_every_examples_graph_is_refused(answer):
    """The same numbers as the right step, but all four graphs alive together: the point is missed."""
    assert "graphs of 4 examples were alive at once" in hint_of(check_train_step, answer)


@pytest.mark.parametrize(
    "answer, words",
    [
        (step_with(zero="inside", returns="last"), "only the last example's gradient"),  # the notebook's stub
        (step_with(zero="inside"), "only the last example's gradient"),
        (step_with(returns="last"), "last example's loss"),
        (step_with(zero=None), "pile up"),
        (step_with(scale=-1.0), "uphill"),
        (step_with(zero="after"), "did not change"),
        (step_with(returns="mean"), "mean"),
        (step_with(returns="after"), "from before the update"),
        (step_with(scale=2.0), "does not match"),
        (step_with(how_many=10), "does not match"),
    ],
)
def test_train_step_names_the_mistake(answer, words):
    assert words in hint_of(check_train_step, answer)


def test_train_step_on_the_mean_loss_is_told_the_loss_is_a_sum():
    def mean_step(model, xs, ys, lr):
        loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys)) * (1 / len(xs))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        return loss.data

    assert "SUM of the squared errors" in hint_of(check_train_step, mean_step)


def test_train_step_that_raises_or_breaks_a_parameter_gets_a_hint():
    def broken(model, xs, ys, lr):
        raise RuntimeError("oops")

    def corrupts(model, xs, ys, lr):
        model.parameters()[0].data = "x"
        return 1.0

    assert "RuntimeError: oops" in hint_of(check_train_step, broken)
    assert "every p.data a number" in hint_of(check_train_step, corrupts)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.floats(min_value=-3, max_value=3).filter(lambda k: abs(k - 1) > 1e-6))
def test_an_update_of_the_wrong_size_never_passes(scale):
    assert failed_with(check_train_step(step_with(scale=scale)))


# ---- 2. learning_rate ----


@pytest.mark.parametrize("lr", [1.0, 1, 1 + 1e-12, lambda: 1.0])
def test_the_best_rate_passes(lr):
    assert check_learning_rate(lr)


@settings(max_examples=80, deadline=None)
@given(st.floats(min_value=-1e300, max_value=1e300).filter(lambda lr: abs(1 - lr) > 1e-9))
def test_every_other_rate_fails_without_raising(lr):
    # the loss after 5 updates, 2.5 * (1 - lr)**10, is lowest (0) at lr = 1 alone
    assert failed_with(check_learning_rate(lr))


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=0.78, max_value=0.9999))
def test_a_rate_that_empties_the_bowl_but_is_not_the_best_is_refused(lr):
    """Below 1e-6 after 5 updates (|1 - lr| < 0.229) is not the title's question: the best rate is."""
    assert "another rate leaves less" in hint_of(check_learning_rate, lr)


@pytest.mark.parametrize(
    "lr, words",
    [
        (0.5, "too cautious"),
        (0.05, "too cautious"),
        (1.5, "overshooting"),
        (1.1, "overshooting"),
        (0.9, "another rate leaves less"),
        (2.0, "1 - lr = -1: it never shrinks"),
        (3.0, "never shrinks"),
        (1e200, "never shrinks"),
        (0.0, "positive number"),
        (-1.0, "positive number"),
        ("1", "positive number"),
        (float("nan"), "positive number"),
        (True, "positive number"),
    ],
)
def test_wrong_rates_get_a_hint(lr, words):
    assert words in hint_of(check_learning_rate, lr)


@pytest.mark.parametrize("lr", [0.05, 0.5, 0.9, 1.0, 1.1, 1.5, 2.0, 3.0])
def test_the_bowls_loss_in_closed_form_is_what_five_updates_give(lr):
    """The check computes the loss after 5 updates as 2.5 * |1 - lr|**10; the engine agrees."""
    w1, w2 = Value(2.0), Value(3.0)
    for _ in range(5):
        w1.grad = w2.grad = 0.0
        (((w1 - 1) ** 2 + (w2 - 5) ** 2) * 0.5).backward()
        w1.data -= lr * w1.grad
        w2.data -= lr * w2.grad
    loss = (((w1 - 1) ** 2 + (w2 - 5) ** 2) * 0.5).data
    assert math.isclose(loss, 2.5 * abs(1 - lr) ** 10, rel_tol=1e-9, abs_tol=1e-300)
    assert bool(check_learning_rate(lr)) == (loss == 0.0)  # only the best rate empties it exactly


def test_the_stored_hint_does_not_give_the_answer_away():
    assert "1 - lr = 0" not in hint_of(check_learning_rate, 0.5)


# ---- 3. diagnosis ----


def test_the_curves_show_what_the_hints_say():
    runs = mystery_runs()
    by_cause = {cause: runs[letter] for letter, cause in _TRUTH.items()}
    assert set(by_cause) == set(CAUSES)
    stale = by_cause["stale graph"]
    assert len(set(stale)) == 1  # flat
    small = by_cause["rate too small"]
    assert all(b < a for a, b in zip(small, small[1:])) and small[-1] > 0.3 * small[0]  # smooth and slow
    assert max(by_cause["rate too large"]) > 1e100  # explodes
    bouncing = by_cause["forgot zero_grad"]
    rises = sum(b > a for a, b in zip(bouncing, bouncing[1:]))
    assert max(bouncing) <= bouncing[0] and rises > 20  # finite, and keeps going back up
    assert _broken_run("forgot zero_grad") == bouncing  # reproducible


def test_the_curves_are_drawn_side_by_side_with_a_readable_log_axis():
    import matplotlib.pyplot as plt

    fig = plot_mystery_runs(mystery_runs())
    assert [ax.get_title() for ax in fig.axes] == ["curve A", "curve B", "curve C", "curve D"]
    assert all(ax.get_yscale() == "log" and ax.get_ylabel() == "loss (log scale)" for ax in fig.axes)
    exploding = fig.axes[sorted(_TRUTH).index(next(k for k, v in _TRUTH.items() if v == "rate too large"))]
    ticks = [t for t in exploding.get_yticks() if exploding.get_ylim()[0] <= t <= exploding.get_ylim()[1]]
    assert 2 <= len(ticks) <= 6, ticks  # a tick every few powers of ten, not dozens
    plt.close(fig)


def test_the_answer_may_be_written_loosely():
    answer = {letter.lower(): cause.upper().replace(" ", "_") for letter, cause in _TRUTH.items()}
    assert check_diagnosis(answer)


@settings(max_examples=60, deadline=None)
@given(st.permutations(sorted(CAUSES)))
def test_every_other_assignment_fails_and_names_a_wrong_curve(order):
    answer = dict(zip(sorted(_TRUTH), order))
    result = check_diagnosis(answer)
    if answer == _TRUTH:
        assert result
    else:
        wrong = min(letter for letter in _TRUTH if answer[letter] != _TRUTH[letter])
        assert failed_with(result, f"curve {wrong} is not '{answer[wrong]}'")


@pytest.mark.parametrize(
    "answer, words",
    [
        ({"A": "forgot zero_grad"}, "missing"),
        ({**_TRUTH, "B": "bad luck"}, "not one of the causes"),
        (list(_TRUTH.items()), "dict"),
        (dict.fromkeys(_TRUTH, "stale graph"), "curve A"),
    ],
)
def test_diagnosis_names_the_mistake(answer, words):
    assert words in hint_of(check_diagnosis, answer)


def test_the_solution_uses_every_cause_once():
    answer = SOLUTIONS["ch08.diagnosis"][0]()
    assert answer == _TRUTH and sorted(answer.values()) == sorted(CAUSES)


# ---- 4. clip_gradients ----


def clip(each=False, always=False, to_unit=False, returns_new=False, the_data=False):
    def clip_gradients(params, max_norm):
        norm = sum(p.grad**2 for p in params) ** 0.5
        if each:
            for p in params:
                p.grad = max(-max_norm, min(max_norm, p.grad))
        elif norm > max_norm or always:
            for p in params:
                if the_data:
                    p.data *= max_norm / norm
                elif to_unit:
                    p.grad /= norm
                else:
                    p.grad *= max_norm / norm
        return min(norm, max_norm) if returns_new else norm

    return clip_gradients


@pytest.mark.parametrize(
    "answer, words",
    [
        (clip(each=True), "on its own"),
        (clip(always=True), "left alone"),
        (clip(to_unit=True), "new length is max_norm"),
        (clip(returns_new=True), "before clipping"),
        (clip(the_data=True), "only p.grad"),
    ],
)
def test_plausible_wrong_clipping_gets_a_hint(answer, words):
    assert words in hint_of(check_clip_gradients, answer)


def test_right_clipping_passes():
    assert check_clip_gradients(clip())


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=0.01, max_value=0.99) | st.floats(min_value=1.01, max_value=100))
def test_clipping_to_the_wrong_length_never_passes(factor):
    def wrong_length(params, max_norm):
        norm = sum(p.grad**2 for p in params) ** 0.5
        if norm > max_norm:
            for p in params:
                p.grad *= factor * max_norm / norm
        return norm

    assert failed_with(check_clip_gradients(wrong_length))


def test_train_step_refuses_a_fixed_rate():
    def train_step(model, xs, ys, lr):
        model.zero_grad()
        total = 0.0
        for x, y in zip(xs, ys):
            loss = (model(x) - y) ** 2
            loss.backward()
            total += loss.data
        for p in model.parameters():
            p.data -= 0.05 * p.grad  # the check's first rate, not lr
        return total

    verdict = check_train_step(train_step)
    assert not verdict and "lr = 0.02" in verdict.hint and "use the lr argument" in verdict.hint


def test_clip_gradients_refuses_dividing_by_a_zero_length():
    def clip_gradients(params, max_norm):
        norm = sum(p.grad**2 for p in params) ** 0.5
        for p in params:
            p.grad *= min(1.0, max_norm / norm)  # 0 / 0 when every gradient is zero
        return norm

    verdict = check_clip_gradients(clip_gradients)
    assert not verdict and "every gradient 0" in verdict.hint and "ZeroDivisionError" in verdict.hint


def test_clipping_with_pytorchs_eps_passes():
    """torch.nn.utils.clip_grad_norm_ scales by min(1, max_norm / (length + 1e-6)): a right answer."""

    def clip(params, max_norm):
        length = math.sqrt(sum(p.grad**2 for p in params))
        for p in params:
            p.grad *= min(1.0, max_norm / (length + 1e-6))
        return length

    assert check_clip_gradients(clip)


def test_a_half_in_front_of_the_squared_error_is_named():
    def half(model, xs, ys, lr):
        model.zero_grad()
        total = 0.0
        for x, y in zip(xs, ys):
            loss = 0.5 * (model(x) - y) ** 2
            loss.backward()
            total += loss.data
        for p in model.parameters():
            p.data -= lr * p.grad
        return total

    assert "no factor 1/2" in hint_of(check_train_step, half)
