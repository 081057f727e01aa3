"""step_through: a frame per backward rule, backward()'s own numbers, deterministic, and without Graphviz."""

import base64
import html
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from expressions import ValueBackend, evaluate, inputs, trees
from hypothesis import assume, given, settings

from micrograd_lesson.engine import Value
from micrograd_lesson.show import stepthrough
from micrograd_lesson.show.draw import INSTALL_HINT, fmt
from micrograd_lesson.show.notebook import FIT_HEIGHT_PX, FIT_WIDTH_PX, svg_size_px
from micrograd_lesson.show.stepthrough import BackwardSteps, step_through

REPO = Path(__file__).resolve().parent.parent
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def chapter_2_graph(V=Value):
    a, b, c, f = V(2.0, label="a"), V(-3.0, label="b"), V(10.0, label="c"), V(-2.0, label="f")
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    L = d * f
    L.label = "L"
    return dict(a=a, b=b, c=c, f=f, e=e, d=d, L=L)


def two_consumers(V=Value):
    """z = x*y + x: x feeds both the product and the sum."""
    x, y = V(3.0, label="x"), V(2.0, label="y")
    xy = x * y
    xy.label = "xy"
    z = xy + x
    z.label = "z"
    return x, y, z


class Closures:
    """A class as chapter 4 writes it: each operation sets a _backward function (no _local_grads)."""

    def __init__(self, data, _children=(), _op="", label="", assign=False):
        self.data, self.grad, self._prev, self._op, self.label = data, 0.0, tuple(_children), _op, label
        self.assign = assign  # True: the = bug of chapter 4
        self._backward = lambda: None

    def _pass(self, child, amount):
        child.grad = amount if self.assign else child.grad + amount

    def __add__(self, other):
        out = Closures(self.data + other.data, (self, other), "+", assign=self.assign)
        out._backward = lambda: (out._pass(self, out.grad), out._pass(other, out.grad))
        return out

    def __mul__(self, other):
        out = Closures(self.data * other.data, (self, other), "*", assign=self.assign)
        out._backward = lambda: (
            out._pass(self, other.data * out.grad),
            out._pass(other, self.data * out.grad),
        )
        return out


# ---- the frames and their numbers ----


def test_one_frame_for_the_seed_and_one_per_backward_rule():
    g = chapter_2_graph()
    steps = step_through(g["L"])
    assert len(steps) == 4  # seed, then L, d, e run their rules; leaves have none
    assert [node for node, _, _ in steps.steps] == [g["L"], g["d"], g["e"]]  # backward()'s order
    assert len(step_through(Value(1.0, label="alone"))) == 1


def test_chapter_2_numbers_frame_by_frame():
    g = chapter_2_graph()
    steps = step_through(g["L"])
    assert steps.caption(0).startswith("step 0 of 3: start at the output: L.grad = 1")
    assert "d 1 × (-2) = -2, f 1 × 4 = 4" in steps.caption(1)
    assert "a -2 × (-3) = 6, b -2 × 2 = -4" in steps.caption(3)
    wanted = {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0, "e": -2.0, "d": -2.0, "L": 1.0}
    assert {k: steps.grad(g[k]) for k in wanted} == wanted
    assert (
        steps.text().splitlines()[-1]
        == "final: a.grad = 6.0000, b.grad = -4.0000, c.grad = -2.0000, f.grad = 4.0000"
    )


def test_it_leaves_the_graph_as_it_was():
    g = chapter_2_graph()
    g["a"].grad = 0.25
    step_through(g["L"])
    assert g["a"].grad == 0.25 and g["d"].grad == 0.0


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(trees, inputs)
def test_the_pass_gives_exactly_what_backward_gives(tree, xs):
    leaves = [Value(x, label=f"x{i}") for i, x in enumerate(xs)]
    try:
        out = evaluate(tree, leaves, ValueBackend)
    except (ValueError, ZeroDivisionError, OverflowError):
        assume(False)
    assume(isinstance(out, Value) and len(out.topological_order()) <= 40)
    steps = step_through(out)
    out.backward()
    for node in out.topological_order():
        assert steps.grad(node) == node.grad  # the same arithmetic, in the same order: equal, not close
    # The last frame's text ends with every leaf's final grad, as backward() left it.
    final = steps.text().splitlines()[-1]
    for node in out.topological_order():
        if not node._prev:
            assert f"{steps.names[id(node)]}.grad = {fmt(node.grad)}" in final


def test_every_sum_shown_adds_up_and_ends_at_the_final_grad():
    x, y, z = two_consumers()
    steps = step_through(z)
    shown = []
    for k in range(len(steps)):
        for line in steps.text(k).splitlines()[1:]:
            name, sum_text = line.strip().split(".grad: ")
            *terms, total = re.split(r" \+ | = ", sum_text)
            terms = [float(t.strip("()")) for t in terms] or [float(total)]
            assert math.isclose(sum(terms), float(total), abs_tol=1e-4)
            shown.append((name, float(total)))
    last = {}
    for name, total in shown:
        last[name] = total
    z.backward()
    assert last == {"xy": xy_grad(z), "x": x.grad, "y": y.grad}


def xy_grad(z):
    return next(n for n in z._prev if n.label == "xy").grad


def test_a_node_with_two_consumers_visibly_sums_two_contributions():
    x, y, z = two_consumers()
    steps = step_through(z)
    assert steps.text(1).splitlines()[2] == "    x.grad: 1.0000"  # from the sum: 1 x 1
    assert steps.text(2).splitlines()[1] == "    x.grad: 1.0000 + 2.0000 = 3.0000"  # then from the product
    source = steps.source(2)
    assert "grad 1.0000 + 2.0000 = 3.0000" in source
    # b = a + a: one rule sends along two edges to the same input, and both land.
    a = Value(3.0, label="a")
    b = a + a
    b.label = "b"
    assert steps_of(b).text(1).splitlines()[1:] == ["    a.grad: 1.0000 + 1.0000 = 2.0000"]


def steps_of(root):
    return BackwardSteps(root)


def test_frames_show_the_firing_node_and_what_its_edges_carry():
    g = chapter_2_graph()
    steps = step_through(g["L"])
    source = steps.source(2)  # d = e + c runs its rule
    firing = [line for line in source.splitlines() if "#ffcc80" in line]
    assert any("<B>d</B>" in line for line in firing) and any('label="+"' in line for line in firing)
    red = [line for line in source.splitlines() if "dir=back" in line]
    assert len(red) == 2 and all('label="-2 × 1 = -2"' in line for line in red)
    assert "grad -2.0000" in source


def test_every_frame_has_the_same_layout_text_so_the_picture_does_not_jump():
    g = chapter_2_graph()
    steps = step_through(g["L"])

    def layout(source):  # edge labels and node widths: what Graphviz sizes the layout by
        return re.findall(r'label="[^"]*"|WIDTH="\d+"', source)

    first = layout(steps.source(0))
    assert all(layout(steps.source(k)) == first for k in range(len(steps)))


@pytest.mark.slow
def test_dot_source_is_identical_across_runs_and_processes():
    g = chapter_2_graph()
    steps = step_through(g["L"])
    again = step_through(chapter_2_graph()["L"])
    assert [steps.source(k) for k in range(4)] == [again.source(k) for k in range(4)]
    code = (
        "import sys; sys.path.insert(0, 'tests');"
        "from test_stepthrough import chapter_2_graph;"
        "from micrograd_lesson import step_through;"
        "s = step_through(chapter_2_graph()['L']); print(s.source(2), end='')"
    )
    for seed in ("0", "12345"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            cwd=REPO,
            env={"PYTHONHASHSEED": seed, "PATH": os.environ["PATH"], "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            check=True,
        )
        assert out.stdout == steps.source(2)


# ---- other classes ----


def test_chapter_4_closures_are_replayed():
    mine = chapter_2_graph(Closures)
    ours = chapter_2_graph()
    steps = step_through(mine["L"])
    ours["L"].backward()
    assert all(steps.grad(mine[k]) == ours[k].grad for k in ours)
    assert "adds -2" in steps.caption(2)  # a closure's local derivative is not visible, only what it adds
    assert mine["a"].grad == 0.0  # replayed, then put back


def test_the_assignment_bug_shows_as_it_happens():
    x, y, z = two_consumers(lambda data, label: Closures(data, label=label, assign=True))
    steps = step_through(z)
    assert steps.grad(x) == 2.0  # the product's 2 overwrote the sum's 1
    assert steps.text(2).splitlines()[1] == "    x.grad: 1.0000 + 1.0000 = 2.0000"


def test_micrograd_itself():
    micrograd = pytest.importorskip("micrograd.engine")
    x, y = micrograd.Value(3.0), micrograd.Value(2.0)
    z = x * y + x
    steps = step_through(z)
    z.backward()
    assert (steps.grad(x), steps.grad(y)) == (x.grad, y.grad) == (3.0, 3.0)


def test_clear_errors():
    class Bare:
        def __init__(self, data, _prev=(), _op=""):
            self.data, self.grad, self._prev, self._op = data, 0.0, _prev, _op

    with pytest.raises(TypeError, match="neither _local_grads nor a _backward"):
        step_through(Bare(1.0, (Bare(2.0),), "neg"))
    with pytest.raises(TypeError, match="float has no 'data'"):
        step_through(3.0)
    with pytest.raises(TypeError, match="has no 'grad'"):  # chapter 2's class: no grad yet
        step_through(SimpleNamespace(data=1.0, _prev=(), _op=""))
    with pytest.raises(ValueError, match="rankdir"):
        step_through(Value(1.0), rankdir="RL")
    with pytest.raises(ValueError, match="start must be"):
        step_through(Value(1.0) * 2, start=5)
    total = Value(0.0)
    for i in range(30):
        total = total + i
    with pytest.raises(ValueError, match="small graphs"):
        step_through(total)

    def broken():
        raise ArithmeticError("oops")

    node = Closures(1.0, (Closures(2.0),), "neg")
    node._backward = broken
    with pytest.raises(RuntimeError, match="raised ArithmeticError: oops"):
        step_through(node)


# ---- showing it ----


def test_repr_says_what_is_shown():
    g = chapter_2_graph()
    assert repr(step_through(g["L"])).startswith(
        "<backward pass of L: 3 steps, now at step 3; done: a.grad = 6.0000, b.grad = -4.0000"
    )
    assert "now at step 0; step 0 of 3: start at the output" in repr(step_through(g["L"], start=0))
    a = Value(3.0, label="a")
    square = a * a
    square.label = "s"
    assert repr(step_through(square)).startswith("<backward pass of s: 1 step, now at step 1; done: a.grad")


@needs_dot
def test_widget_buttons_move_the_slider_and_the_picture():
    pytest.importorskip("ipywidgets")
    steps = step_through(chapter_2_graph()["L"], start=0)
    box = steps.widget()
    controls, image = box.children  # a narrow picture: the controls beside it
    buttons, slider, caption = controls.children
    back, forward = buttons.children
    assert image.layout.width == f"{svg_size_px(steps.svg(0))[0]:.0f}px"  # its natural size, not stretched
    assert (slider.min, slider.max, slider.value) == (0, 3, 0)
    assert image.value == steps.svg(0)
    forward.click()
    forward.click()
    assert slider.value == 2 and image.value == steps.svg(2) and caption.value.startswith("step 2 of 3")
    back.click()
    back.click()
    back.click()  # past the start: stays at 0
    assert slider.value == 0
    assert repr(box) == repr(steps)


@needs_dot
def test_outside_jupyter_it_shows_every_frame():
    steps = step_through(chapter_2_graph()["L"])
    bundle = steps._repr_mimebundle_()
    assert bundle["text/html"] == steps.frames_html()
    assert bundle["text/plain"] == steps.text()


def test_without_dot_on_path_it_falls_back_to_text(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no dot anywhere
    assert shutil.which("dot") is None
    steps = step_through(chapter_2_graph()["L"])
    bundle = steps._repr_mimebundle_()
    assert set(bundle) == {"text/plain"}
    text = bundle["text/plain"]
    assert text.startswith(INSTALL_HINT) and "apt-get install graphviz" in text
    assert "step 3 of 3: e (*) runs its backward rule with e.grad = -2.0000" in text
    assert steps.svg(0) is None
    with pytest.raises(RuntimeError, match="was not found"):
        steps.widget()


@needs_dot
def test_in_jupyter_it_is_a_widget_and_a_stored_picture(monkeypatch):
    pytest.importorskip("ipywidgets")
    import micrograd_lesson.show.stepthrough as stepthrough

    monkeypatch.setattr(stepthrough, "in_jupyter_kernel", lambda: True)
    steps = step_through(chapter_2_graph()["L"])
    bundle = steps._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # live: the slider
    assert bundle["text/html"] == steps.frames_html()  # saved: every frame, with its caption
    assert bundle["text/plain"] == repr(steps) and len(repr(steps)) > 110  # not cut short


@needs_dot
def test_every_node_sits_in_the_same_place_in_every_frame():
    def positions(steps, k):  # Graphviz's "plain" output: node name, x, y, width, height, ...
        lines = steps.drawing(k).pipe("plain").decode().splitlines()
        return [line.split()[:6] for line in lines if line.startswith("node ")]

    for root in (chapter_2_graph()["L"], two_consumers()[2]):
        steps = step_through(root)
        assert all(positions(steps, k) == positions(steps, 0) for k in range(1, len(steps)))


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_auto_direction_fits_every_frame_in_a_laptop_notebook_area():
    from micrograd_lesson.show.notebook import FIT_HEIGHT_PX, FIT_WIDTH_PX

    steps = step_through(chapter_2_graph()["L"])
    # Left to right this graph is wider than the notebook area; top down it fits unshrunk.
    assert steps.rankdir == "TB"
    for k in range(len(steps)):
        size = re.search(rb'width="([\d.]+)pt" height="([\d.]+)pt"', steps.svg(k))
        assert float(size[1]) * 4 / 3 <= FIT_WIDTH_PX + 1 and float(size[2]) * 4 / 3 <= FIT_HEIGHT_PX + 1


@needs_dot
@pytest.mark.parametrize("make", [lambda: chapter_2_graph()["L"], lambda: two_consumers()[2]])
def test_the_stored_frames_are_legible_at_1280x800_and_each_says_what_it_shows(make):
    steps = step_through(make())
    frames = re.findall(
        r'<img src="data:image/svg\+xml;base64,([^"]+)" width="(\d+)" alt="([^"]+)">', steps.frames_html()
    )
    assert len(frames) == len(steps)
    for k, (data, width, alt) in enumerate(frames):
        svg = base64.b64decode(data)
        assert svg == steps.svg(k)
        shown_w, shown_h = svg_size_px(svg)
        assert abs(int(width) - shown_w) <= 1 and shown_w <= FIT_WIDTH_PX + 1 and shown_h <= FIT_HEIGHT_PX + 1
        # Graphviz shrinks a layout to fit by the ratio of the shown width to the viewBox's
        view_w = float(re.search(rb'viewBox="[\d.-]+ [\d.-]+ ([\d.]+)', svg)[1])
        node_text_px = stepthrough.FONT * 4 / 3 * (shown_w * 3 / 4) / view_w
        assert node_text_px >= 11
        assert html.unescape(alt).endswith(steps.caption(k))
        assert f"<b>step {k} of {len(steps) - 1}</b>" in steps.frames_html()


@needs_dot
def test_running_chapter_4_and_saving_it_in_jupyterlab_leaves_the_file_as_stored(tmp_path, monkeypatch):
    """Run All and Ctrl+S in JupyterLab as `make lab` runs it (jupyter-config/) change no byte of
    chapter 4. The only output a re-run changes is the step-through's: JupyterLab saves the live
    slider's view, a random model id beside the stored frames (seen in a browser), and the
    stored notebook keeps no widget state to show it with."""
    pytest.importorskip("ipywidgets")
    from jupyter_server.services.contents.filemanager import FileContentsManager
    from traitlets.config import Config

    config, source = Config(), REPO / "jupyter-config" / "jupyter_server_config.py"
    exec(compile(source.read_text(encoding="utf-8"), str(source), "exec"), {"get_config": lambda: config})
    stored = next((REPO / "notebooks").glob("04_*.ipynb"))
    shutil.copy(stored, tmp_path / stored.name)
    manager = FileContentsManager(root_dir=str(tmp_path), config=config)
    monkeypatch.setattr(stepthrough, "in_jupyter_kernel", lambda: True)
    live = step_through(chapter_2_graph()["L"])._repr_mimebundle_()  # what a running kernel sends
    view = "application/vnd.jupyter.widget-view+json"
    model = manager.get(stored.name)
    outputs = [
        out
        for cell in model["content"]["cells"]
        if "step_through(" in cell["source"]
        for out in cell.get("outputs", [])
        if out["output_type"] == "execute_result"
    ]
    assert outputs, "chapter 4 shows a step-through"
    for out in outputs:
        out["data"][view] = live[view]  # the one change a run and save in JupyterLab makes
    manager.save(model, stored.name)
    assert (tmp_path / stored.name).read_bytes() == stored.read_bytes()
