"""fit(): the four-line training loop and its History (the progress bar: test_widgets.py)."""

import math
import random
import re

import pytest

from micrograd_lesson import MLP, History, Value, fit, four_examples
from micrograd_lesson.optim import SGD, Adam


def bowl():
    w1, w2 = Value(2.0), Value(3.0)
    return [w1, w2], lambda: ((w1 - 1) ** 2 + (w2 - 5) ** 2) * 0.5


def test_the_bowl_at_rate_one_half_matches_chapter_8():
    (w1, w2), loss_fn = bowl()
    history = fit([w1, w2], loss_fn, steps=10, lr=0.5, progress=False)
    assert history.loss[:3] == [2.5, 0.625, 0.15625]
    assert history.loss == [2.5 / 4**k for k in range(10)]  # loss k is measured before update k
    assert w1.data == 1 + 2**-10 and w2.data == 5 - 2 * 2**-10  # after exactly 10 updates
    assert f"{w1.data:.4f} {w2.data:.4f}" == "1.0010 4.9980"
    assert history.lr == [0.5] * 10 and len(history) == 10 and history.stopped is None


def test_gradients_are_zeroed_every_step_not_accumulated():
    (w1, w2), loss_fn = bowl()
    fit([w1, w2], loss_fn, steps=3, lr=0.5, progress=False)
    # after 2 updates w1 - 1 = 0.25 was the last gradient; a running sum would be 1.75
    assert w1.grad == 0.25 and w2.grad == -0.5


def test_a_schedule_is_called_with_the_step_number():
    (w1, w2), loss_fn = bowl()
    history = fit([w1, w2], loss_fn, steps=5, lr=lambda k: 1.0 - 0.1 * k, progress=False)
    assert history.lr == pytest.approx([1.0, 0.9, 0.8, 0.7, 0.6])
    assert history.loss[1] == 0.0  # rate 1.0 lands on the bottom in one step


def test_a_module_trains_and_extra_metrics_are_recorded():
    xs, ys = four_examples()
    random.seed(8)
    model = MLP(3, [4, 4, 1], activation="tanh")

    def loss_fn():
        preds = [model(x) for x in xs]
        right = sum((p.data > 0) == (y > 0) for p, y in zip(preds, ys)) / len(ys)
        return sum((p - y) ** 2 for p, y in zip(preds, ys)), {"accuracy": right}

    history = fit(model, loss_fn, steps=60, lr=0.05, progress=False)
    assert f"{history.loss[0]:.4f}" == "6.2141"
    assert history.loss[-1] < 0.001
    assert history["accuracy"][-1] == 1.0 and len(history["accuracy"]) == 60
    assert history["loss"] is history.loss and history["lr"] is history.lr
    assert max(abs(model(x).data - y) for x, y in zip(xs, ys)) < 0.02
    assert repr(history).startswith("History(60 steps, loss 6.2141 -> 0.000")


def test_callback_sees_the_number_of_updates_made():
    (w1, w2), loss_fn = bowl()
    seen = []
    fit(
        [w1, w2],
        loss_fn,
        steps=4,
        lr=0.5,
        progress=False,
        callback=lambda step, h: seen.append((step, len(h))),
    )
    assert seen == [(1, 1), (2, 2), (3, 3), (4, 4)]


def test_zero_steps_changes_nothing():
    (w1, w2), loss_fn = bowl()
    history = fit([w1, w2], loss_fn, steps=0, lr=0.5, progress=False)
    assert len(history) == 0 and w1.data == 2.0 and repr(history) == "History(0 steps)"


def test_training_stops_when_the_loss_becomes_infinite():
    w = Value(1.0)
    losses = iter([1.0, 2.0, math.inf, 5.0])
    history = fit([w], lambda: w * 0 + next(losses), steps=4, lr=0.1, progress=False)
    assert history.loss == [1.0, 2.0] and history.stopped == "step 2: the loss is inf"


def test_training_stops_when_the_loss_is_nan():
    w = Value(1.0)
    history = fit([w], lambda: w * math.nan, steps=3, lr=0.1, progress=False)
    assert history.loss == [] and history.stopped == "step 0: the loss is nan"


def test_an_overflow_stops_training_instead_of_raising():
    w = Value(3.0)
    history = fit([w], lambda: w**2, steps=1000, lr=10.0, progress=False)  # w *= -19 every step
    assert history.stopped is not None and "OverflowError" in history.stopped
    assert 100 < len(history) < 1000
    assert "stopped: step" in repr(history)


def test_an_optimizer_does_the_zeroing_and_the_update():
    (a1, a2), loss_a = bowl()
    (b1, b2), loss_b = bowl()
    plain = fit([a1, a2], loss_a, steps=10, lr=0.5, progress=False)
    with_sgd = fit([b1, b2], loss_b, steps=10, optimizer=SGD([b1, b2], lr=0.5), progress=False)
    assert plain.loss == with_sgd.loss and (a1.data, a2.data) == (b1.data, b2.data)
    assert with_sgd.lr == [0.5] * 10


def test_a_schedule_sets_the_optimizers_rate():
    (w1, w2), loss_fn = bowl()
    opt = Adam([w1, w2], lr=0.1)
    history = fit([w1, w2], loss_fn, steps=3, lr=lambda k: 0.1 / (k + 1), optimizer=opt, progress=False)
    assert history.lr == pytest.approx([0.1, 0.05, 0.1 / 3]) and opt.lr == pytest.approx(0.1 / 3)
    assert history.loss[-1] < history.loss[0]


@pytest.mark.parametrize("rate", [-0.1, 0.0, math.inf, math.nan, "0.1"])
@pytest.mark.parametrize("with_optimizer", [False, True])
def test_a_schedules_bad_rate_is_refused_at_its_step_as_the_optimizer_refuses_it(rate, with_optimizer):
    """fit(lr=lambda k: 0.1 if k == 0 else -0.1) once let the loss climb; SGD(lr=-0.1) was refused."""
    (w1, w2), loss_fn = bowl()
    with pytest.raises(ValueError) as constructor:
        SGD([w1, w2], lr=rate)
    opt = SGD([w1, w2], lr=0.1) if with_optimizer else None
    with pytest.raises(ValueError) as schedule:
        fit([w1, w2], loss_fn, steps=5, lr=lambda k: 0.1 if k < 2 else rate, optimizer=opt, progress=False)
    assert str(schedule.value) == str(constructor.value)  # the same words
    assert "step k = 2" in "".join(schedule.value.__notes__)  # and where the schedule gave it
    assert (w1.data, w2.data) != (2.0, 3.0), "the two good steps were taken"
    with pytest.raises(ValueError, match=re.escape(str(constructor.value))):
        SGD([w1, w2], lr=0.1).lr = rate  # set by hand: checked the same way


def test_bad_arguments_are_refused_clearly():
    (w1, w2), loss_fn = bowl()
    with pytest.raises(ValueError, match="learning rate"):
        fit([w1, w2], loss_fn, steps=3)
    for steps in (-1, 2.5, True):
        with pytest.raises(ValueError, match="steps"):
            fit([w1, w2], loss_fn, steps=steps, lr=0.1)


def test_the_progress_display_is_handed_in_and_told_every_step_and_the_end():
    """fit builds no display of its own: a factory progress(steps) gets each step's status."""
    calls = []

    class Recorder:
        def __init__(self, total):
            calls.append(("made", total))

        def update(self, done, text):
            calls.append(("update", done, text))

        def finish(self, done, text):
            calls.append(("finish", done, text))

    (w1, w2), loss_fn = bowl()
    fit([w1, w2], loss_fn, steps=2, lr=0.5, progress=Recorder)
    assert calls == [
        ("made", 2),
        ("update", 1, "step 1 · loss 2.5000"),
        ("update", 2, "step 2 · loss 0.6250"),
        ("finish", 2, "step 2 of 2 · loss 0.6250"),
    ]


def test_progress_true_is_refused_with_what_to_pass_instead():
    (w1, w2), loss_fn = bowl()
    with pytest.raises(ValueError, match="progress=ProgressBar"):
        fit([w1, w2], loss_fn, steps=2, lr=0.5, progress=True)
    with pytest.raises(TypeError, match="factory"):
        fit([w1, w2], loss_fn, steps=2, lr=0.5, progress="bar")
    assert (w1.data, w2.data) == (2.0, 3.0), "nothing trained before the refusal"


def test_without_an_optimizer_each_update_is_plain_gradient_descent():
    (w1, w2), loss_fn = bowl()
    fit([w1, w2], loss_fn, steps=1, lr=0.25, progress=False)
    # gradients at (2, 3) are (1, -2): one step of p -= 0.25 * grad, no momentum
    assert (w1.data, w2.data) == (2.0 - 0.25 * 1.0, 3.0 + 0.25 * 2.0)


def test_history_starts_empty():
    history = History()
    assert history.loss == [] and history.lr == [] and history.metrics == {} and history.stopped is None
    with pytest.raises(KeyError):
        history["accuracy"]
