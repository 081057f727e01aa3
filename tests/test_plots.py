"""plot_losses and plot_decision_boundary, drawn with the Agg backend (see conftest.py)."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from micrograd_lesson.engine import Value
from micrograd_lesson.show.plots import plot_decision_boundary, plot_losses


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
