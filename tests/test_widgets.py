"""The progress bar fit shows in Jupyter, and frame_slider: live widgets, stable stored forms."""

import matplotlib.pyplot as plt
import pytest

import micrograd_lesson.show.widgets as widgets
from micrograd_lesson import ProgressBar, Value, fit, frame_slider

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def bowl():
    w1, w2 = Value(2.0), Value(3.0)
    return [w1, w2], lambda: ((w1 - 1) ** 2 + (w2 - 5) ** 2) * 0.5


class FakeHandle:
    """What IPython's display(..., display_id=True) returns: re-sends an output."""

    def __init__(self, shown, index):
        self.shown, self.index = shown, index

    def update(self, obj):
        self.shown[self.index] = obj._repr_mimebundle_()


@pytest.fixture
def fake_kernel(monkeypatch):
    """Pretend to run in Jupyter: keep each output's latest bundle, as the notebook stores it."""
    shown, widgets_shown = [], []

    def display(obj, display_id=False):
        shown.append(obj._repr_mimebundle_())
        widgets_shown.append(obj)
        return FakeHandle(shown, len(shown) - 1) if display_id else None

    monkeypatch.setattr(widgets, "in_jupyter_kernel", lambda: True)
    monkeypatch.setattr("IPython.display.display", display)
    return shown, widgets_shown


def test_outside_jupyter_fit_is_silent(capsys):
    (w1, w2), loss_fn = bowl()
    fit([w1, w2], loss_fn, steps=3, lr=0.5, progress=ProgressBar)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    assert not widgets.in_jupyter_kernel()
    assert not widgets.ProgressBar(3)


def test_the_stored_text_says_how_training_ended(fake_kernel):
    (w1, w2), loss_fn = bowl()
    fit([w1, w2], loss_fn, steps=5, lr=0.5, progress=ProgressBar)
    (bundle,), (widget,) = fake_kernel
    # nbval compares text/plain (no ids, no timings) and skips the widget-view data
    assert set(bundle) == {"text/plain", WIDGET_VIEW}
    assert bundle["text/plain"] == "training: step 5 of 5 · loss 0.0098"  # 2.5 / 4**4
    bar, label = widget.children
    assert bar.value == 5 and bar.max == 5 and bar.bar_style == "success"
    assert label.value == "step 5 of 5 · loss 0.0098"


def test_metrics_appear_in_the_stored_text(fake_kernel):
    shown, _ = fake_kernel
    (w1, w2), loss_fn = bowl()
    fit([w1, w2], lambda: (loss_fn(), {"accuracy": 0.75}), steps=2, lr=0.5, progress=ProgressBar)
    assert shown[0]["text/plain"] == "training: step 2 of 2 · loss 0.6250 · accuracy 0.7500"


def test_the_stored_text_is_the_same_on_every_run(fake_kernel):
    shown, _ = fake_kernel
    for _ in range(2):
        (w1, w2), loss_fn = bowl()
        fit([w1, w2], loss_fn, steps=200, lr=0.1, progress=ProgressBar)
    first, second = (bundle["text/plain"] for bundle in shown)
    assert first == second and first.startswith("training: step 200 of 200 · loss ")


def test_a_long_run_updates_the_bar_about_a_hundred_times(fake_kernel, monkeypatch):
    values = []
    monkeypatch.setattr(
        widgets.ProgressBar,
        "update",
        lambda self, done, text: values.append(done) if done % self.every == 0 else None,
    )
    (w1, w2), loss_fn = bowl()
    fit([w1, w2], loss_fn, steps=1000, lr=0.1, progress=ProgressBar)
    assert len(values) == 100 and values[-1] == 1000


def test_the_bar_moves_while_training_runs(fake_kernel):
    _, shown = fake_kernel
    seen = []
    (w1, w2), loss_fn = bowl()
    fit(
        [w1, w2],
        loss_fn,
        steps=4,
        lr=0.5,
        progress=ProgressBar,
        callback=lambda step, h: seen.append(shown[0].children[0].value),
    )
    assert seen == [1, 2, 3, 4]


def test_a_run_that_stops_early_turns_the_bar_red(fake_kernel):
    w = Value(3.0)
    fit([w], lambda: w**2, steps=1000, lr=10.0, progress=ProgressBar)
    shown, (widget,) = fake_kernel
    bar, label = widget.children
    assert bar.bar_style == "danger" and bar.value < 1000 and "stopped" in label.value
    assert "e+" in label.value and len(label.value) < 120  # a huge loss in scientific notation
    stored = shown[0]["text/plain"]
    assert stored.startswith(f"training: step {bar.value} of 1000 · loss ")
    assert stored.endswith("OverflowError (past the largest float)")  # not cut short


def test_without_a_progress_factory_fit_shows_nothing_even_in_jupyter(fake_kernel):
    for progress in (None, False):
        (w1, w2), loss_fn = bowl()
        fit([w1, w2], loss_fn, steps=3, lr=0.5, progress=progress)
    (w1, w2), loss_fn = bowl()
    fit([w1, w2], loss_fn, steps=3, lr=0.5)  # silent by default: training imports no display
    assert fake_kernel == ([], [])


def png_width(png):
    return int.from_bytes(png[16:20], "big")


def test_frame_slider_flips_between_prerendered_sharp_pictures():
    frames = {}
    for step in (0, 10, 30):
        fig, ax = plt.subplots(figsize=(2, 2))
        ax.plot([0, 1], [0, step])
        frames[step] = fig
    widget = frame_slider(frames)
    # every figure was rendered once and closed (other tests' figures may still be open)
    assert not any(plt.fignum_exists(fig.number) for fig in frames.values())
    slider, image = widget.children
    assert list(slider.options) == [0, 10, 30] and bytes(image.value).startswith(b"\x89PNG")
    # a 2-inch figure drawn at twice the screen's 96 pixels an inch (give or take the
    # tight crop), shown at half its pixel width in CSS pixels
    width = png_width(bytes(image.value))
    assert 300 < width < 500 and image.layout.width == f"{width // 2}px"
    first = bytes(image.value)
    slider.value = 30
    assert bytes(image.value) != first
    slider.value = 0
    assert bytes(image.value) == first


def test_a_stored_slider_shows_its_first_picture_and_says_what_it_holds():
    pngs = {
        1: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x90one",
        2: b"\x89PNG\r\n\x1a\n" + bytes(8) + b"\x00" * 4,
    }
    widget = frame_slider(pngs, description="epoch")
    data, metadata = widget._repr_mimebundle_()
    assert data["text/plain"] == "2 pictures, epoch 1 to 2; showing epoch 1" == repr(widget)
    assert data["image/png"] == pngs[1] and WIDGET_VIEW in data
    assert metadata == {"image/png": {"width": 400 // 2}}  # 0x190 = 400 pixels wide


def test_frame_slider_refuses_what_it_cannot_show():
    with pytest.raises(ValueError, match="at least one frame"):
        frame_slider({})
    with pytest.raises(ValueError, match="matplotlib figures or PNG bytes"):
        frame_slider({1: b"GIF89a"})


def test_a_stored_slider_of_figures_has_the_first_figures_words_as_its_alt():
    import html
    import re

    import matplotlib.pyplot as plt

    from micrograd_lesson.show.plots import describe_figure

    frames = {}
    for step in (0, 10):
        fig, ax = plt.subplots(figsize=(2, 2))
        ax.plot([0, 1], [step, 0])
        describe_figure(fig, f"The line falls from {step}.")
        frames[step] = fig
    data, _ = frame_slider(frames)._repr_mimebundle_()
    alt = html.unescape(re.search(r'alt="([^"]*)"', data["text/html"])[1])
    assert alt.startswith("The first of 2 pictures (step 0). The line falls from 0. x axis")
    assert 'src="data:image/png;base64,' in data["text/html"]
