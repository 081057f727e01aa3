"""Draw a computation graph with Graphviz, inline in a notebook.

`draw_dot` works on any object with `data`, `_prev` and `_op` (and, when
present, `grad` and `label`), so it draws the small classes that early
chapters build on screen as well as the package's `Value`.
"""

import shutil
import subprocess

import graphviz

INSTALL_HINT = (
    "Graphviz's `dot` program was not found, so here is the graph as text. "
    "Install it: Debian/Ubuntu `sudo apt-get install graphviz`, macOS `brew install graphviz`, "
    "conda `conda install -c conda-forge python-graphviz`, Windows `winget install graphviz`."
)
MAX_NODES = 1000  # past this Graphviz's layout gets very slow


def _inputs(node):
    """A node's inputs in a fixed order (a set's order changes from run to run)."""
    prev = node._prev
    if isinstance(prev, (set, frozenset)):
        return sorted(prev, key=lambda v: (str(getattr(v, "label", "")), v.data, str(v._op)))
    return tuple(prev)


def _walk(root):
    """Every distinct node reachable from root, in depth-first pre-order."""
    seen, order, stack = set(), [], [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(reversed(_inputs(node)))
    return order


def _fmt(x):
    return f"{x:.4f}"


def _escape(text):
    """Record labels treat these characters as structure; escape them."""
    for ch in "\\{}|<>":
        text = text.replace(ch, "\\" + ch)
    return text


class Drawing:
    """A drawn graph: shows as SVG (with a PNG fallback) in Jupyter, as text elsewhere."""

    def __init__(self, graph, summary, text_tree):
        self.graph = graph  # the graphviz.Digraph, for .render() and friends
        self.summary = summary
        self.text_tree = text_tree

    @property
    def source(self):
        """The DOT text: identical on every run for the same graph."""
        return self.graph.source

    def pipe(self, format="svg"):
        """Rendered bytes, or None when Graphviz's `dot` is not installed."""
        if shutil.which("dot") is None:
            return None
        try:
            return self.graph.pipe(format=format)
        except (graphviz.ExecutableNotFound, subprocess.CalledProcessError):
            return None

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
            return {"text/plain": f"{INSTALL_HINT}\n{self.text_tree}"}
        return {
            "image/svg+xml": svg.decode("utf-8"),
            # Jupyter hides SVG in notebooks it does not trust; PNG always shows.
            "image/png": self.pipe("png"),
            "text/plain": self.summary,
        }

    def __repr__(self):
        return self.summary


def draw_dot(root, rankdir="LR", notes=None, show_grad=True, max_nodes=MAX_NODES):
    """Draw the graph that produced `root`.

    rankdir: "LR" (left to right, the default) or "TB" (top down).
    notes: optional {node: text} shown on those nodes, e.g. the order in
        which backward() visits them.
    show_grad: False hides the grad row (before any backward pass).
    """
    if rankdir not in ("LR", "TB"):
        raise ValueError(f"rankdir must be 'LR' or 'TB', got {rankdir!r}")
    for attr in ("data", "_prev", "_op"):
        if not hasattr(root, attr):
            raise TypeError(
                f"draw_dot needs an object with data, _prev and _op; {type(root).__name__} has no {attr!r}"
            )
    nodes = _walk(root)
    if len(nodes) > max_nodes:
        raise ValueError(
            f"this graph has {len(nodes)} values, more than max_nodes={max_nodes}; Graphviz "
            f"would take very long to lay it out. Draw a smaller piece, or pass a larger max_nodes."
        )
    notes = {id(k): v for k, v in (notes or {}).items()}
    names = {id(n): f"n{i}" for i, n in enumerate(nodes)}  # a counter, not id(): stable

    g = graphviz.Digraph(graph_attr={"rankdir": rankdir}, node_attr={"fontname": "Helvetica"})
    for node in nodes:
        name = names[id(node)]
        fields = [f"data {_fmt(node.data)}"]
        if show_grad and hasattr(node, "grad"):
            fields.append(f"grad {_fmt(node.grad)}")
        label = getattr(node, "label", "")
        if label:
            fields.insert(0, str(label))
        if id(node) in notes:
            fields.append(str(notes[id(node)]))
        fields = [_escape(f) for f in fields]
        # Braces flip a record's fields across the layout's direction: side by side
        # left to right, stacked top down, so a top-down drawing stays narrow.
        g.node(name, label="{ " + " | ".join(fields) + " }", shape="record")
        if node._op:
            g.node(name + "_op", label=str(node._op), shape="ellipse")
            g.edge(name + "_op", name)
        for child in _inputs(node):
            g.edge(names[id(child)], name + "_op" if node._op else name)

    n_ops = sum(1 for n in nodes if n._op)
    root_name = getattr(root, "label", "") or "output"
    summary = (
        f"<computation graph: {len(nodes)} values, {n_ops} operation{'s' * (n_ops != 1)}; "
        f"{root_name} = {_fmt(root.data)}>"
    )
    return Drawing(g, summary, _text_tree(root))


def _text_tree(root):
    """The graph as an indented tree; a node met again is shown once, then referred to."""
    lines, seen = [], set()
    stack = [(root, "", "")]
    while stack:
        node, prefix, branch = stack.pop()
        label = getattr(node, "label", "") or "value"
        grad = f", grad {_fmt(node.grad)}" if hasattr(node, "grad") else ""
        op = f" <- {node._op}" if node._op else ""
        again = id(node) in seen and node._prev
        seen_note = " (see above)" if again else ""
        lines.append(f"{prefix}{branch}{label} = {_fmt(node.data)}{grad}{op}{seen_note}")
        if again:
            continue
        seen.add(id(node))
        children = _inputs(node)
        child_prefix = prefix + ("" if not branch else ("|   " if branch == "|-- " else "    "))
        for i, child in reversed(list(enumerate(children))):
            stack.append((child, child_prefix, "`-- " if i == len(children) - 1 else "|-- "))
    return "\n".join(lines)
