"""Chapter 8's pictures (micrograd_lesson.training_plots): what each draws, and the phase shades'
colours, which every common colour vision tells apart."""

import itertools

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pytest
from colour_vision import VISIONS, apart, contrast

from micrograd_lesson import History
from micrograd_lesson.show.plots import OKABE_ITO, figure_text
from micrograd_lesson.training_plots import (
    PHASE_SHADES,
    log10_axis,
    plot_bowl,
    plot_engines,
    plot_forgetting,
    plot_phases,
    plot_rates,
)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.mark.parametrize("vision", VISIONS)
def test_the_three_phase_shades_stay_apart_with_every_common_colour_vision(vision):
    for a, b in itertools.combinations(PHASE_SHADES, 2):
        gap = apart(a, b, vision)
        assert gap >= 15, f"{a} and {b} are only {gap:.1f} apart (CIE76) with {vision or 'typical vision'}"


def test_the_simulation_sees_the_old_beige_shades_merge():
    # the shades chapter 8 used before: phases 1 and 3 turned the same beige with protanopia
    gap = apart("#fde2c8", "#d5f0d5", "protanopia")
    assert gap < 5


def test_the_lines_read_on_every_phase_shade():
    for shade in PHASE_SHADES:
        assert contrast(OKABE_ITO["blue"], shade) >= 3.0, shade  # the loss: WCAG's 3:1 for graphics
        assert contrast("black", shade) >= 3.0, shade  # the gradient length


def phases_figure():
    losses = 6 * 0.7 ** np.arange(60)
    lengths = 10 * 0.8 ** np.arange(60)
    names = ["1. rapid descent", "2. diminishing returns", "3. convergence"]
    return plot_phases(losses, lengths, 6, 13, names, [(12, 5.0), (22, 2.8), (36, 1.2)])


def test_the_phases_are_shaded_numbered_and_named():
    fig = phases_figure()
    ax, ax_log = fig.axes
    for a in (ax, ax_log):
        spans = [p for p in a.patches if isinstance(p, mpl.patches.Polygon | mpl.patches.Rectangle)]
        assert [mpl.colors.to_hex(p.get_facecolor()) for p in spans] == list(PHASE_SHADES)
        assert [t.get_text() for t in a.texts if t.get_text() in "123"] == ["1", "2", "3"]
    assert [t.get_text() for t in ax.texts if "." in t.get_text()] == [
        "1. rapid descent",
        "2. diminishing returns",
        "3. convergence",
    ]


def test_the_figure_words_name_both_panels_loss_and_each_phase_once():
    text = figure_text(phases_figure())
    left, right = text.split("Log scale:")
    assert "loss (blue solid line)" in left and "loss (blue solid line)" in right
    assert "gradient length (black dashed line)" in right
    for name, steps in (("1. rapid descent", "0 to 6"), ("2. diminishing returns", "6 to 13")):
        assert text.count(f"{name}: steps {steps}") == 1, text
    assert text.count("3. convergence: steps 13 to 59") == 1


def test_the_bowl_draws_the_path_and_the_loss():
    path = [(2.0, 3.0), (1.5, 4.0), (1.25, 4.5)]
    fig = plot_bowl(path, [2.5, 0.625, 0.15625])
    ax_path, ax_loss = fig.axes
    assert [list(v) for v in ax_path.lines[0].get_xydata()] == [list(p) for p in path]
    assert ax_loss.get_yscale() == "log"
    assert "start (2, 3)" in [t.get_text() for t in ax_path.texts]


def test_forgetting_draws_the_blow_up_up_to_the_step_before_inf():
    good = [1.0, 0.1, 0.01]
    forgetful = {0.12: [1.0, 10.0, 1e100, float("inf")], 0.05: [1.0, 0.5, 0.9], 0.01: [1.0, 0.8, 0.7]}
    fig = plot_forgetting(good, forgetful)
    ax_big, ax_small = fig.axes
    assert list(ax_big.lines[1].get_ydata()) == [0.0, 1.0, 100.0]  # log10, without the inf
    assert ax_big.lines[2].get_xdata()[0] == 3  # the line at the step that is inf
    assert [line.get_label() for line in ax_small.lines] == ["without, lr 0.05", "without, lr 0.01"]


def test_rates_are_labelled_with_their_verdict_and_an_overflow_is_noted():
    histories = {}
    for rate, losses, stopped in ((0.005, [6, 3, 1], None), (0.2, [6, 1e4, 1e308], "OverflowError")):
        histories[rate] = History()
        histories[rate].loss, histories[rate].stopped = losses, stopped
    fig = plot_rates(histories, {0.005: "too small", 0.2: "too large"})
    (ax,) = fig.axes
    assert [line.get_label() for line in ax.lines] == ["lr 0.005: too small", "lr 0.2: too large"]
    assert any("overflows at step 3" in t.get_text() for t in ax.texts)


def test_engines_show_losses_and_the_cosine():
    fig = plot_engines({"right": [1.0, 0.1], "buggy": [1.0, 0.2]}, [0.9, 0.8])
    ax, ax_cos = fig.axes
    assert [line.get_label() for line in ax.lines] == ["right", "buggy"]
    assert list(ax_cos.lines[0].get_ydata()) == [0.9, 0.8]
    assert "cosine(buggy gradient, true gradient)" in figure_text(fig)


def test_a_log10_axis_is_labelled_in_powers_of_ten():
    _, ax = plt.subplots()
    log10_axis(ax)
    assert ax.yaxis.get_major_formatter()(-3, None) == "$10^{-3}$"
