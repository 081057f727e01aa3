"""How operations route a gradient back, one small panel per pattern (chapter 4's picture).

    panels = {"add copies": {"a + b": a + b}, "fan-out sums": {"4a": a * 4.0, "a + 1": a + 1.0}}
    for picture in routing_pictures(panels, grad=2.0):
        display(picture)

Each output is given the gradient `grad` and runs its backward rule once; each panel shows the
outputs, their inputs (with data and grad after that one step) and, on every edge, "incoming
gradient × local derivative = what arrives". Panels are drawn two to a picture, so that their
labels stay readable in a notebook. It reads the package `Value`'s stored local derivatives
(`_local_grads`); a constant without a label is drawn as "const".
"""

import graphviz

from .draw import Drawing

__all__ = ["routing_pictures"]

PER_PICTURE = 2  # panels side by side in one picture


def _number(x):
    return f"{x:g}"


def _factor(x):
    """A local derivative as a factor: 2 × (-1), not 2 × -1."""
    return f"({_number(x)})" if x < 0 else _number(x)


def routing_pictures(panels, grad=2.0):
    """[Drawing, ...] for {title: {label: output}}: every output gets `grad` and fires its rule once.

    The outputs' labels are set from the keys; their inputs keep theirs ("const" if they have none).
    """
    for outputs in panels.values():
        for label, out in outputs.items():
            if not hasattr(out, "_local_grads"):
                raise TypeError(
                    f"routing_pictures reads each operation's stored local derivatives: {label!r} is a "
                    f"{type(out).__name__} without _local_grads (use the package's Value)"
                )
            out.label, out.grad = label, grad
            out._backward()
    titles = list(panels)
    return [_picture(panels, titles[i : i + PER_PICTURE], i) for i in range(0, len(titles), PER_PICTURE)]


def _picture(panels, titles, first):
    picture, lines = graphviz.Digraph(graph_attr={"rankdir": "TB"}), []
    for k, title in enumerate(titles, start=first):
        names = {}  # each node's name in the drawing: a counter, so a stored drawing is the same every run

        def name(node, k=k, names=names):
            return names.setdefault(id(node), f"p{k}n{len(names)}")

        with picture.subgraph(name=f"cluster_{k}") as panel:
            panel.attr(label=title, fontname="Helvetica", fontsize="16", style="rounded", color="gray60")
            for label, out in panels[title].items():
                panel.node(name(out), f"{label}\ngrad {_number(out.grad)}", shape="box", fontname="Helvetica")
                for child, local in zip(out._prev, out._local_grads):
                    child_label = getattr(child, "label", "") or "const"
                    panel.node(
                        name(child),
                        f"{child_label} = {_number(child.data)}\ngrad {_number(child.grad)}",
                        shape="box",
                        fontname="Helvetica",
                    )
                    lines.append(f"{title}: {label} -> {child_label}: {_number(out.grad)} × {_factor(local)}")
                    panel.edge(
                        name(out),
                        name(child),
                        label=f" {_number(out.grad)} × {_factor(local)} = {_number(out.grad * local)}",
                        color="firebrick",
                        fontcolor="firebrick",
                        fontname="Helvetica",
                    )
    return Drawing(picture, f"<{' and '.join(titles)}>", "\n".join(lines))
