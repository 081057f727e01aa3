"""plot_losses and plot_decision_boundary, drawn with the Agg backend (see conftest.py)."""

import base64
import html
import re

import matplotlib
import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pytest
from colour_vision import VISIONS, lab_as_seen

from micrograd_lesson.engine import Value
from micrograd_lesson.show.plots import (
    PALETTE,
    describe_figure,
    figure_bundle,
    figure_text,
    plot_decision_boundary,
    plot_losses,
)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_the_backend_is_headless():
    assert matplotlib.get_backend().lower() == "agg"


def test_one_loss_curve():
    ax = plot_losses([2.5, 0.625, 0.15625])
    (line,) = ax.get_lines()
    assert list(line.get_xdata()) == [0, 1, 2]
    assert list(line.get_ydata()) == [2.5, 0.625, 0.15625]
    assert ax.get_yscale() == "linear"
    assert ax.get_legend() is None  # one unnamed curve needs no legend
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("Training loss", "step", "loss")


def test_values_are_plotted_by_their_data():
    ax = plot_losses([Value(1.0), Value(0.5)])
    assert list(ax.get_lines()[0].get_ydata()) == [1.0, 0.5]


def test_a_dict_of_runs_gives_one_labelled_line_each():
    runs = {"lr 0.01": [1.0, 0.9, 0.8], "lr 0.1": [1.0, 0.5], "lr 1.0": [1.0, 3.0, 9.0, 27.0]}
    ax = plot_losses(runs, title="Learning rates", xlabel="epoch")
    assert len(ax.get_lines()) == 3
    assert [line.get_label() for line in ax.get_lines()] == list(runs)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(runs)
    assert [len(line.get_ydata()) for line in ax.get_lines()] == [3, 2, 4]
    assert (ax.get_title(), ax.get_xlabel()) == ("Learning rates", "epoch")


def test_log_scale():
    ax = plot_losses([1.0, 0.1, 0.01], log=True)
    assert ax.get_yscale() == "log"
    assert ax.get_ylabel() == "loss (log scale)"


def test_drawing_on_a_given_axes():
    fig, (left, right) = plt.subplots(1, 2)
    assert plot_losses([1.0, 0.5], ax=right) is right
    assert len(right.get_lines()) == 1 and len(left.get_lines()) == 0


def test_a_nested_history_is_refused():
    with pytest.raises(ValueError, match="flat list of numbers"):
        plot_losses([[1.0, 2.0], [3.0, 4.0]])


def test_decision_boundary_shades_both_sides_and_shows_the_data():
    X = np.array([[-1.0, 0.0], [-0.5, 1.0], [1.0, 0.5], [0.8, -1.0]])
    y = np.array([-1, -1, 1, 1])
    calls = []

    def predict(points):
        calls.append(len(points))
        return [Value(float(x)) for x in points[:, 0]]  # positive right of x = 0

    ax = plot_decision_boundary(predict, X, y, steps=20, title="x > 0")
    assert calls == [400]  # one call with the whole steps x steps grid
    assert len(ax.collections) >= 3  # the shaded regions and two scatters
    labels = [c.get_label() for c in ax.collections if c.get_label() in ("class -1", "class +1")]
    assert labels == ["class -1", "class +1"]
    assert ax.get_title() == "x > 0"
    assert ax.get_xlim() == pytest.approx((-1.5, 1.5))
    assert ax.get_ylim() == pytest.approx((-1.5, 1.5))


def test_decision_boundary_needs_two_dimensional_points():
    with pytest.raises(ValueError, match=r"X of shape \(n, 2\); got \(3, 3\)"):
        plot_decision_boundary(lambda p: p[:, 0], np.zeros((3, 3)), [1, -1, 1])
    with pytest.raises(ValueError, match=r"got \(4,\)"):
        plot_decision_boundary(lambda p: p[:, 0], np.zeros(4), [1, -1, 1, 1])


def test_decision_boundary_needs_one_label_per_point():
    with pytest.raises(ValueError, match="X has 3 points but y has 2 labels"):
        plot_decision_boundary(lambda p: p[:, 0], np.zeros((3, 2)), [1, -1])


# ---- colours for every eye ----

MATPLOTLIB_DEFAULT = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]  # chapter 10's old five


def closest_pair(colours, vision):
    lab = lab_as_seen(colours, vision)
    return min(np.linalg.norm(lab[i] - lab[j]) for i in range(len(lab)) for j in range(i + 1, len(lab)))


@pytest.mark.parametrize("vision", VISIONS)
def test_every_two_colours_of_the_palette_stay_apart_for_every_colour_vision(vision):
    # Delta E (CIE 1976) of 15 is a difference seen at a glance (2.3 is just noticeable).
    assert closest_pair(PALETTE, vision) >= 15
    if vision in ("protanopia", "deuteranopia"):  # the test fails matplotlib's default colours
        assert closest_pair(MATPLOTLIB_DEFAULT, vision) < 10


def test_each_series_differs_from_the_next_in_colour_and_line_style():
    _, ax = plt.subplots()
    lines = [ax.plot([0, 1, 2], [i, i, i])[0] for i in range(len(PALETTE))]
    assert [mpl.colors.to_hex(x.get_color()) for x in lines] == [c.lower() for c in PALETTE]
    styles = [str(props["linestyle"]) for props in mpl.rcParams["axes.prop_cycle"]]
    assert len(set(styles)) == len(PALETTE) and [x.get_linestyle() for x in lines[:4]] == [
        "-",
        "--",
        "-.",
        ":",
    ]
    assert all(x.get_marker() in ("None", None, "") for x in lines)  # markers only where asked for


def test_plot_losses_tells_curves_apart_without_colour():
    ax = plot_losses({"SGD": [1.0, 0.5], "Adam": [1.0, 0.2], "RMSProp": [1.0, 0.3]})
    assert len({line.get_linestyle() for line in ax.get_lines()}) == 3
    assert len({line.get_marker() for line in ax.get_lines()}) == 3


# ---- words for every figure ----


def test_a_figure_says_what_it_shows_its_axes_and_its_series():
    ax = plot_losses(
        {"SGD": [1.0, 0.5, 0.25], "Adam": [1.0, 0.1, 0.01]}, log=True, description="Adam falls faster."
    )
    text = figure_text(ax.figure)
    assert text.startswith("Adam falls faster. Training loss. x axis step (from ")
    assert "y axis loss (log scale) (from " in text
    assert text.endswith(
        "Series: SGD (blue solid line with circles); Adam (orange dashed line with squares)."
    )


def test_a_bar_chart_names_its_categories():
    fig, ax = plt.subplots()
    ax.bar(["add", "mul", "tanh"], [1e-12, 1e-10, 1e-9])
    ax.set_xlabel("operation")
    describe_figure(fig, "Every error is tiny.")
    assert figure_text(fig).startswith("Every error is tiny. x axis operation (3 categories: add, mul, tanh)")


def test_decision_boundary_says_how_much_of_the_plane_each_class_has():
    X = np.array([[-1.0, 0.0], [1.0, 0.0]])
    ax = plot_decision_boundary(lambda p: p[:, 0], X, np.array([-1, 1]), steps=20, description="Split at 0.")
    text = figure_text(ax.figure)
    assert text.startswith("Split at 0.")
    assert "Shaded blue where the model says class +1 (50% of the area)" in text
    assert "class -1 (vermillion); class +1 (blue)" in text


def test_in_jupyter_a_figure_is_an_img_whose_alt_is_its_words():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1], label="rise")
    ax.legend()
    describe_figure(ax, 'A line rises from "0" to 1 & stops.')
    bundle = figure_bundle(fig)
    assert set(bundle) == {"text/html", "image/png", "text/plain"}
    alt = re.search(r'alt="([^"]*)"', bundle["text/html"])[1]
    assert html.unescape(alt) == bundle["text/plain"] == figure_text(fig)
    src = re.search(r'src="data:image/png;base64,([^"]+)"', bundle["text/html"])[1]
    assert base64.b64decode(src) == bundle["image/png"]


def test_an_axis_with_its_own_number_format_is_read_in_that_format():
    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [-9.0, -3.0, 3.0], label="log10 of the loss")
    ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"$10^{{{v:.0f}}}$"))
    ax.set_ylim(-9, 3)
    assert "(from 10^-9 to 10^3)" in figure_text(fig)


def test_a_figure_whose_numbers_change_from_run_to_run_can_say_its_sentence_alone():
    fig, ax = plt.subplots()
    ax.barh(["__mul__", "__add__"], [7, 3])
    describe_figure(fig, "Most collections start in __mul__.", axes=False)
    assert figure_text(fig) == "Most collections start in __mul__."
    describe_figure(fig, "Most collections start in __mul__.")
    assert figure_text(fig).startswith("Most collections start in __mul__. x axis")


def test_a_drawn_graph_takes_the_sentence_that_makes_it_different_as_its_alt():
    from micrograd_lesson import draw_dot

    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    own = draw_dot(a * b).alt  # the graph's own words: what it computes, its output
    drawing = describe_figure(draw_dot(a * b), "Before backward: every grad reads 0.0000.")
    assert drawing.alt == f"Before backward: every grad reads 0.0000. {own}"
    alt = html.unescape(re.search(r'alt="([^"]+)"', drawing._repr_mimebundle_()[0]["text/html"])[1])
    assert alt == drawing.alt
    assert describe_figure(draw_dot(a * b), "Only this.", axes=False).alt == "Only this."
