"""Draw a computation graph with Graphviz, inline in a notebook.

`draw_dot` works on any object with `data`, `_prev` and `_op` (and, when
present, `grad` and `label`), so it draws the small classes that early
chapters build on screen as well as the package's `Value`.
"""

import shutil
import subprocess

import graphviz

from ..graph import describe_graph, inputs, reachable, topological_order
from .notebook import FIT_SIZE, PNG_SCALE, best_direction, picture_bundle

INSTALL_HINT = (
    "Graphviz's `dot` program was not found, so here is the graph as text. "
    "Install it: Debian/Ubuntu `sudo apt-get install graphviz`, macOS `brew install graphviz`, "
    "conda `conda install -c conda-forge python-graphviz`, Windows `winget install graphviz`."
)
MAX_NODES = 1000  # past this Graphviz's layout gets very slow


def fmt(x):
    """A number as every drawing shows it: four decimals, or four significant decimals and a power
    of ten from a billion up (1e308 would be 309 digits)."""
    return f"{x:.4e}" if abs(x) >= 1e9 else f"{x:.4f}"


def _escape(text):
    """Record labels treat these characters as structure; escape them."""
    for ch in "\\{}|<>":
        text = text.replace(ch, "\\" + ch)
    return text


RANKSEP = {"LR": "0.5", "TB": "0.25"}  # inches between ranks


class Drawing:
    """A drawn graph: shows as SVG (with a PNG fallback) in Jupyter, as text elsewhere.

    Like the graphviz.Digraph that micrograd's draw_dot returns, it has
    .render(filename) and .pipe(); `format` is what those produce by default.
    """

    def __init__(self, graph, summary, text_tree, format="svg", alt=None):
        self.graph = graph  # the graphviz.Digraph
        self.summary = summary
        self.text_tree = text_tree
        self.format = format
        # In words, for a reader who cannot see it (the picture's alt text); by default the
        # summary and the text form.
        self.alt = alt or _default_alt(summary, text_tree)

    @property
    def source(self):
        """The DOT text: identical on every run for the same graph."""
        return self.graph.source

    def pipe(self, format=None):
        """Rendered bytes, or None when Graphviz's `dot` is not installed."""
        if shutil.which("dot") is None:
            return None
        try:
            return self.graph.pipe(format=format or self.format)
        except (graphviz.ExecutableNotFound, subprocess.CalledProcessError):
            return None

    def render(self, filename="graph", directory=None, format=None, **kwargs):
        """Write the DOT source to `filename` and the drawing beside it (e.g. graph.svg).

        Returns the drawing's path, as graphviz.Digraph.render does.
        """
        if shutil.which("dot") is None:
            raise RuntimeError(INSTALL_HINT)
        return self.graph.render(filename, directory=directory, format=format or self.format, **kwargs)

    def save(self, path):
        """Write an .svg, .png or .pdf file (chosen by the file's suffix)."""
        fmt = str(path).rsplit(".", 1)[-1].lower()
        data = self.pipe(fmt)
        if data is None:
            raise RuntimeError(INSTALL_HINT)
        with open(path, "wb") as f:
            f.write(data)

    def _repr_mimebundle_(self, include=None, exclude=None):
        svg = self.pipe("svg")
        if svg is None:
            return picture_bundle(f"{INSTALL_HINT}\n{self.text_tree}")
        png = self.graph.copy()  # drawn at PNG_SCALE times the size: 96 dots an inch is a CSS pixel
        png.graph_attr["dpi"] = str(96 * PNG_SCALE)
        return picture_bundle(self.summary, svg=svg, png=png.pipe(format="png"), alt=self.alt)

    def __repr__(self):
        return self.summary


def draw_dot(
    root, format="svg", rankdir="auto", *, notes=None, show_grad=True, max_nodes=MAX_NODES, alt=None
):
    """Draw the graph that produced `root`; it shows in Jupyter, fitted to the notebook's width.

    format: what .render() and .pipe() produce ("svg", "png", "pdf", ...).
    rankdir: "LR" (left to right), "TB" (top down), or "auto" (the default):
        left to right, unless top down needs clearly less shrinking to fit
        the notebook (long chains, deep networks).
    notes: optional {node: text} shown on those nodes, e.g. the order in
        which backward() visits them.
    show_grad: False hides the grad row (before any backward pass).
    alt: words that say what makes this drawing different from others of the same graph
        (its notes, its rows); the picture's alt text puts them before the graph's description.

    The first two parameters are micrograd's, so draw_dot(root, format="svg",
    rankdir="LR").render("gout") works as it does there.
    """
    if rankdir not in ("LR", "TB", "auto"):
        raise ValueError(f"rankdir must be 'LR', 'TB' or 'auto', got {rankdir!r}")
    if format not in graphviz.FORMATS:
        raise ValueError(f"format must be one Graphviz writes, such as 'svg', 'png' or 'pdf'; got {format!r}")
    for attr in ("data", "_prev", "_op"):
        if not hasattr(root, attr):
            raise TypeError(
                f"draw_dot needs an object with data, _prev and _op; {type(root).__name__} has no {attr!r}"
            )
    nodes = reachable(root)
    if len(nodes) > max_nodes:
        raise ValueError(
            f"this graph has {len(nodes)} values, more than max_nodes={max_nodes}; Graphviz "
            f"would take very long to lay it out. Draw a smaller piece, or pass a larger max_nodes."
        )
    notes = {id(k): v for k, v in (notes or {}).items()}
    names = {id(n): f"n{i}" for i, n in enumerate(nodes)}  # a counter, not id(): stable
    labels = {id(n): _fields(n, show_grad, notes.get(id(n))) for n in nodes}
    if rankdir == "auto":
        # top down must fit clearly (1.25x) better: the sizes are estimated, not laid out
        rankdir = best_direction(lambda direction: _estimated_size(nodes, labels, direction), margin=1.25)

    # Tighter than Graphviz's defaults (ranks 0.5 in apart, nodes 0.5 in tall), so that
    # a drawing shrunk to fit the notebook keeps its text as large as it can; left to
    # right, arrows keep their length so that they stay visible between wide boxes.
    g = graphviz.Digraph(
        format=format,
        graph_attr={"rankdir": rankdir, "size": FIT_SIZE, "ranksep": RANKSEP[rankdir], "nodesep": "0.15"},
        node_attr={"fontname": "Helvetica", "height": "0.3", "margin": "0.05,0.02"},
    )
    for node in nodes:
        name = names[id(node)]
        # Braces flip a record's fields across the layout's direction: side by side
        # left to right, stacked top down, so a top-down drawing stays narrow.
        fields = [_escape(f) for f in labels[id(node)]]
        g.node(name, label="{ " + " | ".join(fields) + " }", shape="record")
        if node._op:
            g.node(name + "_op", label=str(node._op), shape="ellipse")
            g.edge(name + "_op", name)
        for child in inputs(node):
            g.edge(names[id(child)], name + "_op" if node._op else name)

    n_ops = sum(1 for n in nodes if n._op)
    root_name = getattr(root, "label", "") or "output"
    summary = (
        f"<computation graph: {len(nodes)} value{'s' * (len(nodes) != 1)}, "
        f"{n_ops} operation{'s' * (n_ops != 1)}; "
        f"{root_name} = {fmt(root.data)}>"
    )
    described = describe_graph(root, number=fmt, grads=show_grad and hasattr(root, "grad"))
    alt = f"{' '.join(str(alt).split())} {described}" if alt else described
    return Drawing(g, summary, _text_tree(root), format, alt=alt)


def _default_alt(summary, text, limit=600):
    """A drawing's summary and its text form on one line, cut at about `limit` characters."""
    words = (
        summary.strip("<>")
        + ". "
        + "; ".join(line.strip(" |`-") for line in text.splitlines() if line.strip())
    )
    return words if len(words) <= limit else words[: limit - 3].rsplit(" ", 1)[0] + " ..."


def _fields(node, show_grad, note):
    """The rows of a node's box: label, data, grad, note."""
    fields = [f"data {fmt(node.data)}"]
    if show_grad and hasattr(node, "grad"):
        fields.append(f"grad {fmt(node.grad)}")
    label = getattr(node, "label", "")
    if label:
        fields.insert(0, str(label))
    if note is not None:
        fields.append(str(note))
    return fields


def _estimated_size(nodes, labels, direction):
    """(width, height) in points that Graphviz's layout will about have, laid out in `direction`.

    An estimate from the graph's shape, not a layout: nodes sit in layers (an
    operation one layer after its inputs, its result one after that, a leaf just
    before the operation that uses it first); a layer's size along the flow is its
    largest node, across the flow the sum of its nodes. Sizes are in points, for 14 pt
    Helvetica (about 7.5 points a character) and the spacing draw_dot sets.
    """
    layer = {}
    for node in topological_order(nodes[0]):
        below = max((layer[id(c)] for c in inputs(node)), default=-1)
        layer[id(node)] = below + 2 if node._op else below + 1
    first_use = {}  # like dot, a leaf sits just before the operation that first uses it
    for node in nodes:
        for child in inputs(node):
            if not inputs(child):
                use = layer[id(node)] - 1 if node._op else layer[id(node)]
                first_use[id(child)] = min(first_use.get(id(child), use), use)
    layer.update({key: use - 1 for key, use in first_use.items()})
    boxes = {}  # layer -> [(along, across)]
    for node in nodes:
        widths = [7.5 * len(f) + 8 for f in labels[id(node)]]
        box = (sum(widths), 22) if direction == "LR" else (max(22, 18 * len(widths)), max(widths))
        boxes.setdefault(layer[id(node)], []).append(box)
        if node._op:
            boxes.setdefault(layer[id(node)] - 1, []).append((54, 22) if direction == "LR" else (22, 54))
    gap = 72 * float(RANKSEP[direction])
    along = sum(max(a for a, _ in b) for b in boxes.values()) + gap * (len(boxes) - 1)
    across = max(sum(c for _, c in b) + 11 * (len(b) - 1) for b in boxes.values())
    return (along, across) if direction == "LR" else (across, along)


def _text_tree(root):
    """The graph as an indented tree; a node met again is shown once, then referred to."""
    lines, seen = [], set()
    stack = [(root, "", "")]
    while stack:
        node, prefix, branch = stack.pop()
        label = getattr(node, "label", "") or "value"
        grad = f", grad {fmt(node.grad)}" if hasattr(node, "grad") else ""
        op = f" <- {node._op}" if node._op else ""
        again = id(node) in seen and node._prev
        seen_note = " (see above)" if again else ""
        lines.append(f"{prefix}{branch}{label} = {fmt(node.data)}{grad}{op}{seen_note}")
        if again:
            continue
        seen.add(id(node))
        children = inputs(node)
        child_prefix = prefix + ("" if not branch else ("|   " if branch == "|-- " else "    "))
        for i, child in reversed(list(enumerate(children))):
            stack.append((child, child_prefix, "`-- " if i == len(children) - 1 else "|-- "))
    return "\n".join(lines)
