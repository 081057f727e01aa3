"""What the playground runs: a reader's few lines of Python with the course's own `Value`.

The page runs this file in the browser (Pyodide, in a Web Worker) with the package's own
modules beside it; the tests run the same file in CPython and compare. `run(code, overrides)`
executes the code, finds the Value it computed last, and returns what the page shows, as
plain data: the drawing's DOT source (draw_dot's), one frame per step of the backward pass
(step_through's), every labelled value with its data and grad, the labelled leaves (each
gets a slider), or one line that says what went wrong.
"""

import ast
import contextlib
import io
import sys
import traceback

import playground  # show_training(): a training loop drawn on the page while it runs

from micrograd_lesson.engine import Value
from micrograd_lesson.graph import inputs, reachable
from micrograd_lesson.show.draw import draw_dot, fmt
from micrograd_lesson.show.stepthrough import BackwardSteps

FILENAME = "<playground>"
MAX_STEPS_NODES = 40  # step_through's own limit: past it, the drawing alone


def run(code, overrides=None):
    """Run `code`; {"error": one line} or {"root", "dot", "frames", "values", "leaves", "summary"},
    each with "printed", what the code printed.

    overrides: {label: number} puts that number in place of the one written in
    `Value(number, label="...")` (the sliders), without changing the code shown.
    """
    try:
        tree = ast.parse(code, FILENAME)
    except SyntaxError as e:
        return {"error": f"SyntaxError: {e.msg} (line {e.lineno})"}
    tree = _with_overrides(tree, overrides or {})
    namespace = {"__name__": "__main__", "Value": Value}
    printed = io.StringIO()
    playground.start()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(tree, FILENAME, "exec"), namespace)
    except Exception as e:  # the reader's code: any error is shown, in one line
        return {"error": _one_line(e), "printed": printed.getvalue()}
    if (trained := playground.finish()) is not None:  # a training loop: its picture, not its graph
        return {"training": trained, "printed": printed.getvalue()}
    root = _last_value(tree, namespace)
    if root is None:
        return {"error": "no Value to draw: assign one to a name, e.g. L = a * b (the last one is drawn)"}
    return {**describe(root), "printed": printed.getvalue()}


def describe(root):
    """What the page shows of the graph that computed `root`."""
    drawing = draw_dot(root)
    rankdir = drawing.graph.graph_attr["rankdir"]
    nodes = reachable(root)
    frames = []
    if len(nodes) <= MAX_STEPS_NODES:
        steps = BackwardSteps(root, rankdir=rankdir)
        frames = [{"dot": steps.source(k), "caption": steps.caption(k)} for k in range(len(steps))]
    values = [
        {"label": n.label, "data": fmt(n.data), "grad": fmt(n.grad), "leaf": not inputs(n)}
        for n in nodes
        if n.label
    ]
    leaves = [{"label": n.label, "data": n.data} for n in nodes if n.label and not inputs(n)]
    listing = "; ".join(f"{v['label']}: data {v['data']}, grad {v['grad']}" for v in values)
    name = root.label or "the result"
    summary = f"Computation graph of {name} ({len(nodes)} values). {listing}"
    return {"root": name, "dot": drawing.source, "frames": frames, "values": values, "leaves": leaves,
            "summary": summary}  # fmt: skip


def _with_overrides(tree, overrides):
    """The tree with `Value(x, label="a")` reading overrides["a"] instead of x."""

    class Override(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            label = next((k.value for k in node.keywords if k.arg == "label"), None)
            if (
                isinstance(node.func, ast.Name)
                and node.func.id == "Value"
                and node.args
                and isinstance(label, ast.Constant)
                and label.value in overrides
            ):
                node.args[0] = ast.copy_location(ast.Constant(float(overrides[label.value])), node.args[0])
            return node

    return ast.fix_missing_locations(Override().visit(tree))


def _last_value(tree, namespace):
    """The Value bound to the name the code assigned last (at the top level), or None.

    On the way, a Value bound to a name but given no label takes the name as its label,
    so that the drawing and the listing call it what the code calls it.
    """
    names = []
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names += [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    for name in names:
        value = namespace.get(name)
        if isinstance(value, Value) and not value.label:
            value.label = name
    return next((namespace[n] for n in reversed(names) if isinstance(namespace.get(n), Value)), None)


def _one_line(error):
    """ "ValueError: log needs a positive input, got -1.0 (line 3)": the error and the reader's line."""
    lines = [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == FILENAME]
    where = f" (line {lines[-1]})" if lines else ""
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}{where}" if text else f"{type(error).__name__}{where}"


if __name__ == "__main__":  # python runner.py < code.py: what the page would show, as JSON
    import json

    print(json.dumps(run(sys.stdin.read()), indent=1))
