"""The pictures of chapter 8 (training), drawn from the runs the chapter computes.

Each function takes the numbers, draws them and returns the figure; the chapter says in words
what the picture shows (`describe_figure`). What lives here is plotting set-up a learner need
not read: contour levels, annotations, log axes for numbers near the float limit.

Colours come from the course's palette (Okabe-Ito), and each series has its own line style
too. The three shaded phases of a loss curve differ in lightness as well as hue, and carry
their number: see PHASE_SHADES.
"""

import matplotlib.pyplot as plt
import numpy as np

from .show.plots import OKABE_ITO

__all__ = [
    "PHASE_SHADES",
    "log10_axis",
    "plot_bowl",
    "plot_engines",
    "plot_forgetting",
    "plot_phases",
    "plot_rates",
]

# The phases of a loss curve: 1 light orange, 2 unshaded, 3 light sky blue. Simulated with the
# Machado et al. (2009) matrices at full severity (colorspacious), every pair stays at least 14
# apart in CAM02-UCS under deuteranopia, protanopia and tritanopia (at least 17 with normal
# vision), and the blue loss line keeps a contrast of at least 3.7:1 on each (WCAG asks 3:1).
PHASE_SHADES = ("#f9d9a6", "#ffffff", "#bfe0f5")
BLUE, VERMILLION, ORANGE = OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["orange"]


def log10_axis(ax, axis="y"):
    """Label an axis that plots log10 of the numbers as powers of ten: 10^-3, 10^0, 10^3.

    For numbers close to the largest float (1e308), which matplotlib's log scale cannot draw."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(plt.FuncFormatter(lambda v, _: f"$10^{{{v:.0f}}}$"))
    return ax


def plot_bowl(path, losses, bottom=(1, 5), lr=0.5):
    """Gradient descent on the round bowl: its path over the contour lines, and its loss per step."""
    path = np.asarray(path, dtype=float)
    W1, W2 = np.meshgrid(np.linspace(-0.5, 2.5, 121), np.linspace(2.5, 5.5, 121))
    bowl = 0.5 * ((W1 - bottom[0]) ** 2 + (W2 - bottom[1]) ** 2)
    fig, (ax_path, ax_loss) = plt.subplots(1, 2, figsize=(10, 4.4), width_ratios=[1, 1.4])
    contours = ax_path.contour(W1, W2, bowl, levels=[0.01, 0.05, 0.2, 0.6, 1.2, 2.5], cmap="viridis")
    ax_path.clabel(contours, fontsize=8)
    ax_path.plot(*path.T, "o-", color=VERMILLION, markersize=4, label=f"gradient descent, lr {lr}")
    ax_path.plot(*bottom, "k*", markersize=12, label=f"bottom ({bottom[0]:g}, {bottom[1]:g})")
    ax_path.annotate(
        f"start ({path[0][0]:g}, {path[0][1]:g})", path[0], textcoords="offset points", xytext=(8, -4)
    )
    ax_path.set(xlabel="w1", ylabel="w2", title="Each step goes halfway to the bottom", aspect="equal")
    ax_path.legend(loc="lower left", fontsize=8)

    ax_loss.semilogy(range(len(losses)), losses, "o-", color=VERMILLION, label="loss")
    for k in range(3):
        ax_loss.annotate(f"{losses[k]:g}", (k, losses[k]), textcoords="offset points", xytext=(6, 4))
    ax_loss.set(xlabel="step", ylabel="loss (log scale)", title="The loss falls by 4x per step")
    ax_loss.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def plot_phases(losses, grad_lengths, end_rapid, start_flat, names, spots):
    """A loss curve with its three phases shaded and numbered: left on a linear axis, each phase
    named at `spots` (x, y), right on a log axis with the gradient's length beside the loss."""
    last = len(losses) - 1
    borders = [(0, end_rapid), (end_rapid, start_flat), (start_flat, last)]
    fig, (ax, ax_log) = plt.subplots(1, 2, figsize=(10, 3.8))
    for a in (ax, ax_log):
        for number, ((left, right), shade, name) in enumerate(zip(borders, PHASE_SHADES, names), 1):
            # only the left panel names the shades, so the figure's words list each phase once
            label = f"{name}: steps {left} to {right}" if a is ax else None
            a.axvspan(left, right, facecolor=shade, edgecolor="none", label=label)
            a.text((left + right) / 2, 0.97, str(number), transform=a.get_xaxis_transform(),
                   ha="center", va="top", fontsize=10, fontweight="bold")  # fmt: skip
        a.plot(losses, color=BLUE, linewidth=2, label="loss")
        a.set_xlabel("step")
        a.set_xlim(0, last)
        a.grid(True, alpha=0.3)
    for (left, right), name, spot in zip(borders, names, spots):
        middle = (left + right) / 2
        target = (middle, np.interp(middle, range(len(losses)), losses))
        ax.annotate(name, target, xytext=spot, arrowprops={"arrowstyle": "->"}, fontsize=9)
    ax.set(ylabel="loss", title="Loss of MLP(3, [4, 4, 1]) on four examples, lr 0.05")
    ax_log.plot(grad_lengths, color="black", linewidth=1.5, linestyle="--", label="gradient length")
    ax_log.set(yscale="log", ylabel="loss; gradient length (log scale)")
    ax_log.set_title("Log scale: the loss, and the gradient's length")
    ax_log.legend(handles=ax_log.lines, loc="upper right", bbox_to_anchor=(1, 0.9))  # under the "3"
    fig.tight_layout()
    return fig


def plot_forgetting(good, forgetful, big=0.12, small=(0.05, 0.01)):
    """Runs with and without zero_grad(): left the blow-up at rate `big` (with zeroing for
    comparison), right the runs at the `small` rates that stay finite but never settle."""
    fig, (ax_big, ax_small) = plt.subplots(1, 2, figsize=(10, 4))
    blowup = len(forgetful[big]) - 1  # the step whose loss is inf
    # log10 of the loss: matplotlib's log axis cannot draw numbers this close to the float limit.
    ax_big.plot(np.log10(good), color=BLUE, label="with model.zero_grad()")
    ax_big.plot(np.log10(forgetful[big][:blowup]), "--", color=VERMILLION, label="without")
    ax_big.axvline(blowup, color=VERMILLION, linestyle="--")
    ax_big.annotate(
        f"step {blowup}: inf", (blowup, 200), textcoords="offset points", xytext=(-70, 0), color=VERMILLION
    )
    ax_big.set_title(f"lr {big}: without zeroing it blows up")
    for rate, style, colour in zip(small, ("--", ":"), (VERMILLION, OKABE_ITO["sky blue"])):
        ax_small.plot(np.log10(forgetful[rate]), style, color=colour, label=f"without, lr {rate}")
    ax_small.set_ylim(-4, 1.5)
    ax_small.set_title(f"lr {' and '.join(map(str, small))}: finite, but never settles")
    for ax in (ax_big, ax_small):
        log10_axis(ax)
        ax.set(xlabel="step", ylabel="loss (log scale)")
        ax.legend(loc="upper left", fontsize=8)
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def plot_rates(sweep, verdicts):
    """Loss curves of one network at several rates ({rate: History}), each named by its verdict
    ({rate: "too small"}); a run that overflows leaves the top of the plot, with a note."""
    fig, ax = plt.subplots(figsize=(9, 4.5))
    looks = [(ORANGE, ":"), (BLUE, "-"), (VERMILLION, "--")]
    for (rate, history), (colour, style) in zip(sorted(sweep.items()), looks):
        label = f"lr {rate}: {verdicts[rate]}"
        ax.plot(np.log10(history.loss), style, color=colour, linewidth=2, label=label)
        if history.stopped:
            ax.annotate(
                f"lr {rate} goes on up to 1e308,\nthen overflows at step {len(history.loss)}",
                (next(k for k, v in enumerate(history.loss) if v > 1e3), 3),
                xytext=(40, 1.2),
                arrowprops={"arrowstyle": "->", "color": colour},
                color=colour,
            )
    ax.set_ylim(-9, 3)  # a diverging run leaves the top of the plot
    log10_axis(ax)
    ax.set(xlabel="step", ylabel="loss (log scale)", title="One network, three learning rates")
    ax.legend(loc="lower left")
    ax.grid(True, alpha=0.3)
    return fig


def plot_engines(runs, cosines):
    """Left: loss curves ({label: losses}) on a log scale. Right: the cosine between the buggy
    engine's gradient and the true one, at every step of the buggy run."""
    fig, (ax, ax_cos) = plt.subplots(1, 2, figsize=(10, 3.6))
    for (label, losses), colour, style in zip(runs.items(), (BLUE, VERMILLION), ("-", "--")):
        ax.semilogy(losses, style, color=colour, label=label)
    ax.set(xlabel="step", ylabel="loss (log scale)", title="Each engine at its own best rate")
    ax.legend(fontsize=8, loc="lower left")
    ax_cos.plot(cosines, "--", color=VERMILLION, label="cosine(buggy gradient, true gradient)")
    ax_cos.axhline(1, color="black", linewidth=1, label="1: the true direction")
    ax_cos.set(xlabel="step of the buggy run", ylabel="cosine", ylim=(0, 1.05))
    ax_cos.set_title("The buggy gradient: downhill, not the true direction")
    ax_cos.legend(fontsize=8, loc="lower left")
    for a in (ax, ax_cos):
        a.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig
