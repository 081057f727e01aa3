"""Watch the backward pass happen: one drawing per step.

    from micrograd_lesson import step_through
    step_through(L)          # last line of a notebook cell

Frame 0 seeds the output's gradient with 1. Each later frame runs one node's
backward rule, in the order `backward()` runs them. In each frame the node
whose rule runs is orange; the edges it sends along carry "its gradient x the
local derivative"; and the inputs that receive something have their grad cell
in green, written as a sum when a node collects a second contribution (a value
used twice gets two). The numbers are the recorded pass of backward_pass.py
(backward()'s own arithmetic, on gradients kept apart from the graph's `.grad`);
this module draws them. In Jupyter with ipywidgets it is a slider with
previous/next buttons beside the picture, drawn at its natural size; a saved
notebook (which keeps no live widget), the course site and a notebook without
ipywidgets show every frame one under another, each at the size the slider shows
it (node text about 15 px, never under 11 px at 1280x800) under its caption in
words, its alt text saying the same (`frames_html`). Without Graphviz, the same
steps as text.
"""

import html

import graphviz

from ..graph import inputs
from .backward_pass import RecordedPass
from .draw import INSTALL_HINT, Drawing, fmt
from .notebook import (
    FIT_SIZE,
    FIT_WIDTH_PX,
    best_direction,
    img_tag,
    in_jupyter_kernel,
    ipywidgets_or_none,
    picture_bundle,
    svg_size_pt,
    svg_size_px,
)
from .widgets import described

__all__ = ["BackwardSteps", "step_through"]

FONT = 11  # points; with the widths below a 10-value graph fits a 1000-pixel notebook column
CHAR_WIDTH = 6.1  # points per character at FONT, generous, so that no text overflows its cell
ORANGE, GREEN, GREY = "#ffcc80", "#c8e6c9", "#555555"
SIDE_BY_SIDE = 0.5  # a picture narrower than this share of the notebook area gets its controls beside it
CONTROLS_PX = 330  # the controls' column beside a narrow picture


def step_through(root, rankdir="auto", start=None):
    """The backward pass of `root`, one frame per step; show it as a cell's last line.

    rankdir: "LR" (left to right), "TB" (top down), or "auto" (the default): the
        one that needs less shrinking to fit a laptop's notebook area.
    start: the frame shown first (default: the last, the finished pass).
    """
    return BackwardSteps(root, rankdir=rankdir, start=start)


class BackwardSteps(RecordedPass):
    """The frames of one backward pass, drawn; see the module's docstring."""

    def __init__(self, root, rankdir="auto", start=None):
        if rankdir not in ("LR", "TB", "auto"):
            raise ValueError(f"rankdir must be 'LR', 'TB' or 'auto', got {rankdir!r}")
        super().__init__(root)
        self.rankdir = rankdir
        self.ids = {id(n): f"n{i}" for i, n in enumerate(self.nodes)}  # DOT names: a counter, stable
        last = len(self.steps)
        self.start = last if start is None else start
        if not (isinstance(self.start, int) and 0 <= self.start <= last):
            raise ValueError(f"start must be a frame number from 0 to {last}, got {start!r}")
        self._widths = self._cell_widths()
        self._size = None  # no size limit while measuring the natural layout
        if rankdir == "auto":
            self.rankdir = best_direction(self._natural_size)
        self._size = FIT_SIZE

    def _natural_size(self, rankdir):
        """(width, height) in points of the finished frame laid out in `rankdir`, unshrunk."""
        self.rankdir = rankdir
        svg = self.svg(len(self.steps))
        return (1.0, 1.0) if svg is None else svg_size_pt(svg)  # no Graphviz: any direction will do

    # ---- what frame k shows ----

    def drawing(self, k):
        """Frame k as a Drawing (SVG in Jupyter, `.source` for the DOT text)."""
        firing, sends, grads, counts = self.state(k)
        edges = {(id(s.child), id(node), s.position): s for node, _, ss in self.steps for s in ss}
        sent = {
            (id(s.child), id(node), s.position) for node, _, ss in self.steps[: max(k - 1, 0)] for s in ss
        }
        receiving = {id(s.child) for s in sends}
        g = graphviz.Digraph(
            # size (inches, 72 points each; a point is 4/3 CSS pixels) shrinks a frame that
            # would not fit the notebook area of a 1280x800 screen.
            graph_attr={"rankdir": self.rankdir, "nodesep": "0.25", "ranksep": "0.3"},
            node_attr={"fontname": "Helvetica", "fontsize": str(FONT)},
            edge_attr={"fontname": "Helvetica", "fontsize": str(FONT - 1), "arrowsize": "0.6"},
        )
        if self._size:
            g.graph_attr["size"] = self._size
        for node in self.nodes:
            name = self.ids[id(node)]
            lit = node is firing or (k == 0 and node is self.root)
            if lit and k == 0:
                grad, grad_fill = "grad 1.0000", GREEN
            elif id(node) in receiving:
                grad, grad_fill = "grad " + self.sum_text(node, sends, counts), GREEN
            else:  # its grad so far; 0 in grey while nothing has reached it
                grad, grad_fill = f"grad {fmt(grads.get(id(node), 0.0))}", None
            table = self._table(node, grad, ORANGE if lit else None, grad_fill, reached=id(node) in grads)
            g.node(name, label=table, shape="plain")
            if node._op:
                fill = {"style": "filled", "fillcolor": ORANGE} if node is firing else {}
                g.node(name + "_op", label=str(node._op), margin="0.02", width="0.4", height="0.3", **fill)
                g.edge(name + "_op", name, **({"color": "#e65100", "penwidth": "2"} if fill else {}))
            for position, child in enumerate(inputs(node)):
                key = (id(child), id(node), position)
                if node is firing:  # sending right now: bold, the arrow pointing back along the flow
                    attrs = {"color": "#c62828", "fontcolor": "#c62828", "penwidth": "2", "dir": "back"}
                elif key in sent:
                    attrs = {"fontcolor": GREY}
                else:  # not sent yet: the label is there, invisible, so every frame has the same layout
                    attrs = {"fontcolor": "transparent"}
                label = edges[key].label() if key in edges else ""
                g.edge(self.ids[id(child)], name + "_op" if node._op else name, label=label, **attrs)
        summary = f"<backward pass of {self.names[id(self.root)]}, step {k} of {len(self.steps)}>"
        return Drawing(g, summary, self.text(k))

    def _table(self, node, grad, fill, grad_fill, reached):
        """A node as an HTML-like table (name, data, grad) whose width never changes between frames."""
        grad = html.escape(grad) if reached else f'<FONT COLOR="{GREY}">{html.escape(grad)}</FONT>'
        rows = [
            ("<B>" + html.escape(self.names[id(node)]) + "</B>", fill),
            (f"data {fmt(node.data)}", fill),
            (grad, grad_fill or fill),
        ]
        width = self._widths[id(node)]
        cells = "".join(
            f'<TR><TD WIDTH="{width}"' + (f' BGCOLOR="{bg}"' if bg else "") + f">{text}</TD></TR>"
            for text, bg in rows
        )
        return f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="2">{cells}</TABLE>>'

    def _cell_widths(self):
        """The width each node needs for the longest text it shows in any frame."""
        longest = {id(n): max(len(self.names[id(n)]), len(f"data {fmt(n.data)}")) for n in self.nodes}
        for k in range(1, len(self)):
            _, sends, _, counts = self.state(k)
            for s in sends:
                text = "grad " + self.sum_text(s.child, sends, counts)
                longest[id(s.child)] = max(longest[id(s.child)], len(text))
        return {key: int(CHAR_WIDTH * chars + 10) for key, chars in longest.items()}

    def source(self, k):
        """The DOT text of frame k: the same on every run."""
        return self.drawing(k).source

    def svg(self, k):
        """Frame k as SVG bytes, or None without Graphviz."""
        return self.drawing(k).pipe("svg")

    # ---- showing it ----

    def __repr__(self):
        k = self.start
        now = self.text(k).splitlines()[0] if k < len(self.steps) else "done: " + self.leaf_grads(6)
        steps = "1 step" if len(self.steps) == 1 else f"{len(self.steps)} steps"
        return (
            f"<backward pass of {self.names[id(self.root)]}: {steps}, now at step {k}; "
            f"{now}. Move the slider (or the previous/next buttons) to replay it.>"
        )

    def widget(self):
        """A slider with previous/next buttons over the frames, drawn once up front.

        The picture keeps its natural size (every frame has the same one). A narrow
        picture has the controls and caption beside it, a wide one above it, so that
        pressing a button and seeing what changed happen in the same view.
        """
        widgets = ipywidgets_or_none()
        if widgets is None:
            raise ImportError("the interactive step-through needs ipywidgets: pip install ipywidgets")
        svgs = [self.svg(k) for k in range(len(self))]
        if svgs[0] is None:
            raise RuntimeError(INSTALL_HINT)
        last = len(self) - 1
        width, _ = svg_size_px(svgs[0])
        side = width <= SIDE_BY_SIDE * FIT_WIDTH_PX
        image = widgets.Image(
            value=svgs[self.start],
            format="svg+xml",
            layout={"width": f"{width:.0f}px", "height": "auto", "max_width": "100%", "flex": "none"},
        )
        caption = widgets.HTML(value=html.escape(self.caption(self.start)))
        slider = widgets.IntSlider(value=self.start, min=0, max=last, description="step")
        back, forward = widgets.Button(description="◀ previous"), widgets.Button(description="next ▶")
        back.on_click(lambda _: setattr(slider, "value", max(slider.value - 1, 0)))
        forward.on_click(lambda _: setattr(slider, "value", min(slider.value + 1, last)))

        def show(change):
            image.value = svgs[change["new"]]
            caption.value = html.escape(self.caption(change["new"]))

        slider.observe(show, names="value")
        buttons = widgets.HBox([back, forward])
        if side:
            column = {"width": f"{CONTROLS_PX}px", "flex": "none"}
            for control in (slider, caption):
                control.layout.width = f"{CONTROLS_PX - 10}px"
            controls = widgets.VBox([buttons, slider, caption], layout=column)
            return described(
                widgets.HBox, repr(self), [controls, image], layout={"align_items": "flex-start"}
            )
        caption.layout.width = f"{max(width, 400):.0f}px"
        controls = widgets.HBox([buttons, slider])
        return described(
            widgets.VBox, repr(self), [controls, caption, image], layout={"align_items": "flex-start"}
        )

    def _repr_mimebundle_(self, include=None, exclude=None):
        if self.svg(self.start) is None:
            return picture_bundle(f"{INSTALL_HINT}\n{self.text()}")
        if ipywidgets_or_none() is not None and in_jupyter_kernel():
            # A saved notebook drops the live widget; every frame with its caption stays.
            live = self.widget()._repr_mimebundle_()
            return picture_bundle(repr(self), data={**live, "text/html": self.frames_html()})
        return picture_bundle(self.text(), data={"text/html": self.frames_html()})

    def frames_html(self):
        """Every frame, one under another, at the size the slider shows it, each under its caption.

        Each frame fits the notebook area of a 1280x800 screen unshrunk or nearly (its node
        text stays at 11 px or more), and its alt text is its caption.
        """
        root = self.names[id(self.root)]
        parts = [
            f"<p>The backward pass of {html.escape(root)}, step by step ({len(self)} pictures; "
            "run the cell for a slider). Orange: the node whose rule runs; green: the grads it sets.</p>"
        ]
        for k in range(len(self)):
            caption = self.caption(k)
            step, what = caption.split(":", 1)
            parts.append(
                f"<p><b>{html.escape(step)}</b>:{html.escape(what)}</p>"
                + img_tag(f"Backward pass of {root}, {caption}", svg=self.svg(k))
            )
        return "\n".join(parts)
