"""draw_dot: deterministic DOT source, what the drawing shows, and life without Graphviz."""

import base64
import html
import os
import random
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from micrograd_lesson import MLP
from micrograd_lesson.engine import Value
from micrograd_lesson.show.draw import INSTALL_HINT, draw_dot
from micrograd_lesson.show.notebook import FIT_HEIGHT_PX, FIT_WIDTH_PX, PNG_SCALE

REPO = Path(__file__).resolve().parent.parent
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def small_graph():
    a, b, c = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    return a, b, c, e, d


class OnScreen:
    """A class as early chapters write it: data, _prev and _op only (no grad, no label)."""

    def __init__(self, data, _prev=(), _op=""):
        self.data, self._prev, self._op = data, _prev, _op

    def __mul__(self, other):
        return OnScreen(self.data * other.data, (self, other), "*")


class OnScreenWithSet:
    """Like micrograd 0.1.0: _prev is a set, whose order changes from run to run."""

    def __init__(self, data, children=(), _op="", label=""):
        self.data, self._prev, self._op, self.label, self.grad = data, set(children), _op, label, 0.0

    def __add__(self, other):
        return OnScreenWithSet(self.data + other.data, (self, other), "+")


# ---- determinism across processes ----

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {repo!r})
    from micrograd_lesson import Value, draw_dot

    class OnScreenWithSet:  # micrograd 0.1.0's way: _prev is a set
        def __init__(self, data, children=(), _op="", label=""):
            self.data, self._prev, self._op, self.label = data, set(children), _op, label

        def __add__(self, other):
            return OnScreenWithSet(self.data + other.data, (self, other), "+")

    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    out = (a * b + a).tanh()
    out.label = "out"
    out.backward()
    print(draw_dot(out, notes={{a: "leaf"}}).source)
    # A set-based class: its drawing must not depend on the set's order.
    xs = [OnScreenWithSet(float(i), label=f"x{{i}}") for i in range(6)]
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    pair = OnScreenWithSet(1.0, label="p") + OnScreenWithSet(1.0, label="q")
    print(draw_dot(total + pair, rankdir="TB").source)
    """
)


def run_script(tmp_path, hash_seed):
    script = tmp_path / "draw_once.py"
    script.write_text(SCRIPT.format(repo=str(REPO)))
    env = dict(os.environ, PYTHONHASHSEED=str(hash_seed))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, check=True)
    return done.stdout


@pytest.mark.slow
def test_dot_source_is_identical_across_processes(tmp_path):
    first = run_script(tmp_path, 1)
    assert "digraph" in first and "out | data" in first
    assert run_script(tmp_path, 1) == first
    assert run_script(tmp_path, 12345) == first  # a different string-hash seed changes set order


# ---- what the DOT source says ----


def test_nodes_are_named_by_a_counter_not_by_id():
    *_, d = small_graph()
    source = draw_dot(d).source
    names = set(re.findall(r"^\s*(\w+) \[", source, flags=re.M)) - {"graph", "node"}
    assert names == {"n0", "n0_op", "n1", "n1_op", "n2", "n3", "n4"}
    assert str(id(d)) not in source


def test_labels_show_label_data_and_grad():
    a, b, c, e, d = small_graph()
    d.backward()
    source = draw_dot(d).source
    assert '"{ d | data 4.0000 | grad 1.0000 }"' in source
    assert '"{ a | data 2.0000 | grad -3.0000 }"' in source
    assert '"{ b | data -3.0000 | grad 2.0000 }"' in source
    assert "grad" not in draw_dot(d, show_grad=False).source


def test_operations_are_their_own_nodes_with_edges_through_them():
    *_, d = small_graph()
    source = draw_dot(d).source
    assert 'n0_op [label="+" shape=ellipse]' in source
    assert 'n1_op [label="*" shape=ellipse]' in source
    for edge in ("n0_op -> n0", "n1 -> n0_op", "n1_op -> n1", "n2 -> n1_op", "n3 -> n1_op"):
        assert edge in source
    assert source.count("shape=ellipse") == 2


def test_a_value_used_twice_has_two_edges():
    a = Value(3.0, label="a")
    source = draw_dot(a + a).source
    assert source.count("n1 -> n0_op") == 2


@pytest.mark.parametrize("rankdir", ["LR", "TB"])
def test_rankdir(rankdir):
    *_, d = small_graph()
    source = draw_dot(d, rankdir=rankdir).source
    assert f"rankdir={rankdir}" in source
    # Braces in both: Graphviz puts the fields side by side left to right and stacks
    # them top down, so a top-down drawing stays narrow.
    assert '"{ d | data' in source


def test_unknown_rankdir_and_format_are_refused():
    with pytest.raises(ValueError, match="rankdir must be 'LR', 'TB' or 'auto', got 'RL'"):
        draw_dot(Value(1.0), rankdir="RL")
    with pytest.raises(ValueError, match="format must be one Graphviz writes.*got 'jpeg2'"):
        draw_dot(Value(1.0), format="jpeg2")


def chain(n):
    x = Value(0.5, label="x")
    for _ in range(n):
        x = (x * 1.5).tanh()
    return x


def test_auto_direction_keeps_small_graphs_left_to_right_and_stacks_long_chains():
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    assert "rankdir=LR" in draw_dot(a * b).source  # fits as it is: micrograd's direction
    assert "rankdir=TB" in draw_dot(chain(6)).source  # 12 operations in a row: far too wide
    # an explicit direction is kept, whatever the shape
    assert "rankdir=LR" in draw_dot(chain(6), rankdir="LR").source
    assert "rankdir=TB" in draw_dot(a * b, rankdir="TB").source


def test_the_layout_is_bounded_to_the_notebook_area():
    size = re.search(r'size="([\d.]+),([\d.]+)"', draw_dot(chain(2)).source)
    width_in, height_in = map(float, size.groups())
    # inches at 72 points, a point is 4/3 CSS pixels
    assert round(width_in * 96) == FIT_WIDTH_PX and round(height_in * 96) == FIT_HEIGHT_PX


def test_notes_appear_on_their_nodes():
    a, b, c, e, d = small_graph()
    source = draw_dot(d, notes={e: "fires 2nd", d: "fires 1st"}).source
    assert "{ e | data -6.0000 | grad 0.0000 | fires 2nd }" in source
    assert "{ d | data 4.0000 | grad 0.0000 | fires 1st }" in source


def test_record_characters_in_labels_are_escaped():
    v = Value(1.0, label="a|b{c}")
    assert r"a\|b\{c\}" in draw_dot(v).source


def test_duck_typed_class_with_data_prev_op_only():
    x, y = OnScreen(2.0), OnScreen(4.0)
    source = draw_dot(x * y).source
    assert '"{ data 8.0000 }"' in source and '"{ data 2.0000 }"' in source
    assert "grad" not in source
    assert 'n0_op [label="*"' in source


def test_duck_typed_class_whose_prev_is_a_set():
    p, q = OnScreenWithSet(1.0, label="p"), OnScreenWithSet(2.0, label="q")
    drawing = draw_dot(p + q)
    assert "{ p | data 1.0000 | grad 0.0000 }" in drawing.source
    assert drawing.source.index("{ p |") < drawing.source.index("{ q |")  # sorted, not set order


def test_object_without_the_needed_attributes_is_refused():
    with pytest.raises(TypeError, match="SimpleNamespace has no '_prev'"):
        draw_dot(SimpleNamespace(data=1.0, _op=""))
    with pytest.raises(TypeError, match="float has no 'data'"):
        draw_dot(3.0)


def test_graphs_over_max_nodes_are_refused_with_a_message():
    x = Value(1.0)
    for _ in range(30):
        x = x * 1.0
    with pytest.raises(ValueError, match="61 values, more than max_nodes=50"):
        draw_dot(x, max_nodes=50)
    assert "digraph" in draw_dot(x, max_nodes=61).source


def test_summary_repr_has_no_memory_address():
    *_, d = small_graph()
    assert repr(draw_dot(d)) == "<computation graph: 5 values, 2 operations; d = 4.0000>"


def test_text_tree():
    *_, d = small_graph()
    assert draw_dot(d).text_tree.splitlines() == [
        "d = 4.0000, grad 0.0000 <- +",
        "|-- e = -6.0000, grad 0.0000 <- *",
        "|   |-- a = 2.0000, grad 0.0000",
        "|   `-- b = -3.0000, grad 0.0000",
        "`-- c = 10.0000, grad 0.0000",
    ]


# ---- rendering ----


def svg_size_px(svg):
    width, height = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
    return float(width) * 4 / 3, float(height) * 4 / 3


def png_size(png):
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


@needs_dot
def test_mimebundle_has_svg_png_plain_text_and_an_img_with_alt_text():
    *_, d = small_graph()
    bundle, metadata = draw_dot(d)._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "image/png", "text/plain", "text/html"}
    # JupyterLab draws SVG and PNG with no alt: the text/html <img> is what it shows, with words
    img = re.fullmatch(
        r'<img src="data:image/svg\+xml;base64,([^"]+)" width="(\d+)" alt="([^"]+)">', bundle["text/html"]
    )
    assert img is not None
    assert base64.b64decode(img[1]).decode() == bundle["image/svg+xml"]
    assert abs(int(img[2]) - svg_size_px(bundle["image/svg+xml"])[0]) <= 1
    assert (
        html.unescape(img[3]) == "Computation graph of d = (a * b) + c: 5 values, 2 operations; d = 4.0000."
    )
    assert "<svg" in bundle["image/svg+xml"] and "data 4.0000" in bundle["image/svg+xml"]
    assert bundle["image/png"].startswith(b"\x89PNG\r\n\x1a\n")
    assert bundle["text/plain"].startswith("<computation graph")
    assert not re.search(r"0x[0-9a-f]{6,}", bundle["text/plain"])
    # the PNG has PNG_SCALE pixels per CSS pixel and is shown at the SVG's width
    svg_width, _ = svg_size_px(bundle["image/svg+xml"])
    png_width, _ = png_size(bundle["image/png"])
    assert metadata == {"image/png": {"width": png_width // PNG_SCALE}}
    assert abs(png_width / PNG_SCALE - svg_width) <= 2


@needs_dot
@pytest.mark.parametrize("rankdir", ["auto", "LR", "TB"])
def test_a_big_graph_is_shrunk_to_fit_the_notebook_area(rankdir):
    random.seed(0)
    out = MLP(3, [4, 4, 1])([1.0, -2.0, 3.0])  # 125 values: thousands of pixels at full size
    bundle, _ = draw_dot(out, rankdir=rankdir)._repr_mimebundle_()
    width, height = svg_size_px(bundle["image/svg+xml"])
    assert width <= FIT_WIDTH_PX + 1 and height <= FIT_HEIGHT_PX + 1
    assert max(width, height) >= min(FIT_WIDTH_PX, FIT_HEIGHT_PX) - 1  # shrunk to the box, no further


@needs_dot
def test_micrograd_style_format_and_render(tmp_path):
    # micrograd's trace_graph notebook: dot = draw_dot(root, format='svg', rankdir='LR'); dot.render('gout')
    *_, d = small_graph()
    dot = draw_dot(d, format="svg", rankdir="LR")
    path = dot.render(str(tmp_path / "gout"))
    assert path.endswith("gout.svg") and b"<svg" in (tmp_path / "gout.svg").read_bytes()
    assert (tmp_path / "gout").read_text() == dot.source  # the DOT source, as graphviz writes it
    png = draw_dot(d, "png")  # format is the second positional parameter, as in micrograd
    assert png.format == "png" and png.pipe().startswith(b"\x89PNG")


@needs_dot
def test_save_writes_the_format_its_suffix_names(tmp_path):
    *_, d = small_graph()
    draw_dot(d).save(tmp_path / "g.svg")
    draw_dot(d).save(tmp_path / "g.png")
    assert b"<svg" in (tmp_path / "g.svg").read_bytes()
    assert (tmp_path / "g.png").read_bytes().startswith(b"\x89PNG")


def test_without_dot_on_path_it_falls_back_to_text(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no dot anywhere
    assert shutil.which("dot") is None
    *_, d = small_graph()
    drawing = draw_dot(d)
    bundle = drawing._repr_mimebundle_()
    assert set(bundle) == {"text/plain"}
    assert bundle["text/plain"].startswith(INSTALL_HINT)
    assert "apt-get install graphviz" in bundle["text/plain"]
    assert "|-- e = -6.0000, grad 0.0000 <- *" in bundle["text/plain"]
    assert drawing.pipe("svg") is None
    with pytest.raises(RuntimeError, match="was not found"):
        drawing.save(tmp_path / "g.svg")
    with pytest.raises(RuntimeError, match="was not found"):
        drawing.render(str(tmp_path / "g"))


@needs_dot
def test_alt_text_says_the_leaves_gradients_once_backward_has_run():
    a, b, c, e, d = small_graph()
    d.backward()
    bundle, _ = draw_dot(d)._repr_mimebundle_()
    alt = html.unescape(re.search(r'alt="([^"]+)"', bundle["text/html"])[1])
    assert alt.endswith("After backward, the leaves' gradients: a -3.0000, b 2.0000, c 1.0000.")
    hidden, _ = draw_dot(d, show_grad=False)._repr_mimebundle_()  # no grads drawn, none said
    assert "gradients" not in hidden["text/html"]


@needs_dot
def test_alt_text_of_a_network_stays_within_a_few_hundred_characters():
    random.seed(0)
    net = MLP(3, [4, 4, 1])
    out = net([Value(1.0), Value(-2.0), Value(0.5)])
    out.backward()
    drawing = draw_dot(out)
    assert 80 < len(drawing.alt) <= 400
    assert f"{len(net.parameters()) + 3} unnamed leaves" in drawing.alt


@needs_dot
def test_alt_words_say_what_makes_a_drawing_different_before_the_graphs_description():
    a, b, c, e, d = small_graph()
    plain = draw_dot(d).alt
    noted = draw_dot(d, notes={a: "leaf"}, alt="Leaf a carries the note\n leaf.")
    assert noted.alt == f"Leaf a carries the note leaf. {plain}"
    bundle, _ = noted._repr_mimebundle_()
    assert html.unescape(re.search(r'alt="([^"]+)"', bundle["text/html"])[1]) == noted.alt
