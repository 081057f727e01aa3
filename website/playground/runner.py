"""What the playground runs: a reader's few lines of Python with the course's own `Value`.

The page runs this file in the browser (Pyodide, in a Web Worker) with the package's own
modules beside it; the tests run the same file in CPython and compare. `run(code, overrides)`
executes the code, finds the Value it computed last, and returns what the page shows, as
plain data: the drawing's DOT source (draw_dot's), one frame per step of the backward pass
(step_through's), every labelled value with its data and grad, the labelled leaves (each
gets a slider), or one line that says what went wrong. `run_fresh` does the same with fresh
copies of the course's modules, so that what one run patches the next does not see.
"""

import ast
import builtins
import contextlib
import importlib
import math
import re
import sys
import traceback

import playground  # show_training(): a training loop drawn on the page while it runs

from micrograd_lesson.engine import Value
from micrograd_lesson.graph import inputs, reachable
from micrograd_lesson.show.draw import MAX_NODES, draw_dot, fmt
from micrograd_lesson.show.stepthrough import BackwardSteps

FILENAME = "<playground>"
MAX_STEPS_NODES = 40  # step_through's own limit: past it, the drawing alone
MAX_PRINTED_LINES = 200  # past this the output box says how many more lines there were
MAX_PRINTED_CHARS = 20_000
MAX_TRACKED = 1000  # Values made by the code that can get a slider: the first this many
MAX_SLIDERS = 20
MAX_ROWS = 2000  # rows of the values table
MADE = "_playground_made"  # what each `Value(...)` in the reader's code is wrapped in
FRESH = ("micrograd_lesson", "runner", "playground")  # the modules each run_fresh imports anew


class NoKeyboard(Exception):
    """input(): the playground has no keyboard to read from."""


def _no_input(prompt=""):
    raise NoKeyboard(
        "input() has no keyboard to read in the playground: write the value into the code, e.g. x = 2.0"
    )


def run(code, overrides=None):
    """Run `code`; {"error": one line} or {"root", "value", "dot", "frames", "values", "leaves", "summary"},
    each with "printed", what the code printed (capped), and "note" (how the code ended, if unusually).

    overrides: {"k": number} puts that number in place of the data of the k-th Value the code
    makes with `Value(...)` (counting from 0), without changing the code shown: the sliders.
    Each leaf in "leaves" carries its "key" k, whatever gave it its label (the call, its name,
    an f-string); a leaf made elsewhere (inside a library) gets no slider.
    """
    try:
        tree = ast.parse(code, FILENAME)
    except SyntaxError as e:
        return {"error": f"SyntaxError: {e.msg} (line {e.lineno})"}
    overrides = {int(k): float(v) for k, v in (overrides or {}).items()}
    made = []  # (Value, its data as made) for the first MAX_TRACKED Values the code made
    count = 0

    def track(value):
        nonlocal count
        if isinstance(value, Value):
            if count in overrides and not inputs(value):
                value.data = overrides[count]
            if count < MAX_TRACKED:
                made.append((value, value.data))
            count += 1
        return value

    namespace = {"__name__": "__main__", "Value": Value, MADE: track, "input": _no_input}
    printed = Printed()
    note = ""
    limit = sys.getrecursionlimit()
    playground.start()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(_tracked(tree), FILENAME, "exec"), namespace)
    except SystemExit as e:  # sys.exit(): the code ends there, and what it made is shown
        note = f"The code ended with sys.exit(){_where(e)}; what it computed until then is shown."
    except BaseException as e:  # the reader's code: any error is shown, in one line
        return {"error": _one_line(e), "printed": printed.text()}
    finally:
        sys.setrecursionlimit(limit)  # the reader's limit was for the reader's code
    if (trained := playground.finish()) is not None:  # a training loop: its picture, not its graph
        return {"training": trained, "printed": printed.text()}
    root = _last_value(tree, namespace)
    if root is None:
        return {"error": _nothing_to_draw(count), "printed": printed.text()}
    _name_parameters(namespace)
    keys = {id(v): (str(k), data) for k, (v, data) in enumerate(made)}
    try:
        shown = describe(root, keys)
    except Exception as e:  # the code patched what draws it (Value, describe): that run cannot be shown
        return {"error": f"the graph could not be drawn: {_one_line(e)}", "printed": printed.text()}
    return {**shown, "printed": printed.text(), "note": note}


def run_fresh(code, overrides=None):
    """run() with fresh copies of the course's modules and of this one, so that what a run patches
    (Value.__mul__, runner.describe, a builtin, the recursion limit) lasts for that run only."""
    kept = {n: m for n, m in sys.modules.items() if n.split(".")[0] in FRESH}
    saved_builtins, limit = dict(vars(builtins)), sys.getrecursionlimit()
    for name in kept:
        del sys.modules[name]
    try:
        return importlib.import_module("runner").run(code, overrides)
    finally:
        for name in [n for n in sys.modules if n.split(".")[0] in FRESH]:
            del sys.modules[name]
        sys.modules.update(kept)
        for name in set(vars(builtins)) - set(saved_builtins):
            delattr(builtins, name)
        for name, value in saved_builtins.items():
            if getattr(builtins, name, None) is not value:
                setattr(builtins, name, value)
        sys.setrecursionlimit(limit)


def describe(root, keys=None):
    """What the page shows of the graph that computed `root`; keys {id(leaf): (key, data as made)}
    says which leaves get a slider."""
    keys = keys or {}
    nodes = reachable(root)
    labelled = [n for n in nodes if n.label]
    values = [{"label": n.label, "data": fmt(n.data), "grad": fmt(n.grad)} for n in labelled[:MAX_ROWS]]
    leaves = [
        {
            "key": keys[id(n)][0],
            "label": n.label,
            "data": _number(keys[id(n)][1]),
            "shown": fmt(keys[id(n)][1]),
        }
        for n in labelled
        if id(n) in keys and not inputs(n)
    ][:MAX_SLIDERS]
    listing = "; ".join(f"{v['label']}: data {v['data']}, grad {v['grad']}" for v in values[:100])
    name = root.label or "the result"
    summary = f"Computation graph of {name} ({len(nodes)} values). {listing}"
    result = {"root": name, "value": _number(root.data), "dot": None, "frames": [], "values": values,
              "leaves": leaves, "summary": summary,
              "more_rows": max(0, len(labelled) - MAX_ROWS), "too_big": ""}  # fmt: skip
    if len(nodes) > MAX_NODES:
        result["too_big"] = (
            f"This graph has {len(nodes):,} values, too many to draw (the limit is {MAX_NODES:,}). "
            "The table below lists every labelled value with its data and grad. To see a drawing, "
            "assign a smaller piece last, e.g. one neuron's output or the loss of one data point."
        )
        return result
    drawing = draw_dot(root)
    if len(nodes) <= MAX_STEPS_NODES:
        steps = BackwardSteps(root, rankdir=drawing.graph.graph_attr["rankdir"])
        result["frames"] = [
            {"dot": _own_size(steps.source(k)), "caption": steps.caption(k)} for k in range(len(steps))
        ]
    result["dot"] = _own_size(drawing.source)
    return result


def _own_size(dot):
    """The DOT without the size a notebook fits it to: the page scales it (fit, zoom) itself."""
    return re.sub(r'\bsize="[^"]*"', "", dot, count=1)


class Printed:
    """Where print() writes: the first MAX_PRINTED_LINES lines are kept, the rest only counted."""

    def __init__(self):
        self.parts, self.kept, self.lines = [], 0, 0

    def write(self, text):
        if self.lines < MAX_PRINTED_LINES and self.kept < MAX_PRINTED_CHARS:
            self.parts.append(text)
            self.kept += len(text)
        self.lines += text.count("\n")
        return len(text)

    def flush(self):
        pass

    def text(self):
        lines = "".join(self.parts).splitlines(keepends=True)
        kept, chars = [], 0
        for line in lines[:MAX_PRINTED_LINES]:
            if chars + len(line) > MAX_PRINTED_CHARS:
                kept.append(line[: MAX_PRINTED_CHARS - chars] + " …\n")
                break
            kept.append(line)
            chars += len(line)
        total = self.lines + (0 if not self.parts or self.parts[-1].endswith("\n") else 1)
        more = total - len(kept)
        return "".join(kept) + (f"… {more:,} more lines\n" if more > 0 else "")


def _tracked(tree):
    """The tree with each `Value(...)` (or `something.Value(...)`) call wrapped in MADE(...)."""

    class Track(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            func = node.func
            if (isinstance(func, ast.Name) and func.id == "Value") or (
                isinstance(func, ast.Attribute) and func.attr == "Value"
            ):
                return ast.copy_location(ast.Call(ast.Name(MADE, ast.Load()), [node], []), node)
            return node

    return ast.fix_missing_locations(Track().visit(tree))


def _assigned_names(statements):
    """The names the code assigns outside any function or class, in the order written: at the top
    level and inside loops, ifs, withs and trys (a loop's own variable does not count)."""
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        targets = []
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
            targets = [statement.target]
        for target in targets:
            for node in [target] if isinstance(target, ast.Name) else getattr(target, "elts", []):
                if isinstance(node, ast.Name):
                    yield node.id
        for field in ("body", "orelse", "finalbody"):
            yield from _assigned_names(getattr(statement, field, []))
        for handler in getattr(statement, "handlers", []):
            yield from _assigned_names(handler.body)


def _last_value(tree, namespace):
    """The Value bound to the name the code assigned last (outside functions), or None.

    On the way, a Value bound to a name but given no label takes the name as its label,
    so that the drawing and the listing call it what the code calls it.
    """
    names = list(_assigned_names(tree.body))
    for name in names:
        value = namespace.get(name)
        if isinstance(value, Value) and not value.label:
            value.label = name
    return next((namespace[n] for n in reversed(names) if isinstance(namespace.get(n), Value)), None)


def _nothing_to_draw(made):
    rule = "the last Value assigned to a name outside any function is drawn"
    if made:
        return (f"no Value to draw: {rule}, and this code made its Values only inside a function "
                "or kept them unnamed; assign the one to draw to a name, e.g. L = f(a)")  # fmt: skip
    return f"no Value to draw: {rule}, e.g. L = a * b"


def _name_parameters(namespace):
    """Label an nn model's unlabelled parameters by where they sit: L0.N1.w0 is layer 0, neuron 1,
    weight 0 (an MLP); N1.w0 in a Layer; w0 and b in a Neuron."""

    def neuron(n, prefix):
        for k, w in enumerate(getattr(n, "w", [])):
            if isinstance(w, Value) and not w.label:
                w.label = f"{prefix}w{k}"
        if isinstance(getattr(n, "b", None), Value) and not n.b.label:
            n.b.label = f"{prefix}b"

    def layer(m, prefix):
        for j, n in enumerate(getattr(m, "neurons", [])):
            neuron(n, f"{prefix}N{j}.")

    for thing in list(namespace.values()):
        if isinstance(getattr(thing, "layers", None), list):
            for i, m in enumerate(thing.layers):
                layer(m, f"L{i}.")
        elif isinstance(getattr(thing, "neurons", None), list):
            layer(thing, "")
        elif isinstance(getattr(thing, "w", None), list):
            neuron(thing, "")


def _number(x):
    """x for JSON: None when it is nan or infinite (the page shows the text instead)."""
    return x if math.isfinite(x) else None


def _where(error):
    lines = [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == FILENAME]
    return f" (line {lines[-1]})" if lines else ""


def _one_line(error):
    """ "ValueError: log needs a positive input, got -1.0 (line 3)": the error and the reader's line."""
    where = _where(error)
    text = str(error).splitlines()[0] if str(error) else ""
    if isinstance(error, NoKeyboard):
        return f"{text}{where}"
    if isinstance(error, KeyboardInterrupt):
        return f"KeyboardInterrupt: the run was interrupted{where}"
    return f"{type(error).__name__}: {text}{where}" if text else f"{type(error).__name__}{where}"


if __name__ == "__main__":  # python runner.py < code.py: what the page would show, as JSON
    import json

    print(json.dumps(run(sys.stdin.read()), indent=1))
