"""The playground tells the truth about its state, works from any keyboard and on any screen, and
says how code ended (issue 32, items 1, 2 and 4); called from run.py's playground part.

Each check is a case a stranger found on the playground: a slider's value leaking into later code,
sliders that did nothing, a stale graph after an error, a dead Python hanging the next Run, runs
sharing patches, code lost on reload, a second link changing nothing, focus dropped after Run,
a 695 px page on a phone, 6 px text on big graphs and no drawing or grads past 1,000 values,
unnamed MLP weights, and raw messages for sys.exit(), input(), nan, 1e308, printing a lot.
Run at 1280x800 in light and at 390x844 in dark, with axe (both schemes) on every state visited.
"""

import json
import time
import urllib.parse
import urllib.request

PASSES = [({"width": 1280, "height": 800}, "light"), ({"width": 390, "height": 844}, "dark")]
SLIDER_A = "#leaves input[type=range][aria-label='a (slider)']"
# a chain of 63 values: the stranger's graph whose text fell to 6 px
CHAIN = 'x = Value(0.5, label="x")\ny = x\nfor i in range(31):\n    y = y * 1.01\ny.backward()\n'
# 2,401 values: past what Graphviz lays out in time
HUGE = 'x = Value(0.5, label="x")\ny = x\nfor i in range(600):\n    y = y * 1.0001 + 0.0\ny.backward()\n'


class Checks:
    def __init__(self, page, base, run, shots):
        self.page, self.base, self.run, self.shots = page, base, run, shots
        self.check = run.check
        self.where = ""
        self.axe_table = {}

    def ok(self, condition, what):
        return self.check(condition, f"playground {self.where}: {what}")

    def done(self, timeout=60_000):
        """Wait for the run to end; False (not an exception) if it never does."""
        try:
            self.page.wait_for_function(
                "() => !document.getElementById('status').textContent.startsWith('Running')"
                " && (document.getElementById('status').textContent.startsWith('Done')"
                " || !document.getElementById('error').hidden)",
                timeout=timeout,
            )
            return True
        except Exception:
            return False

    def ready(self, timeout=180_000):
        self.page.wait_for_function(
            "() => document.getElementById('status').textContent.startsWith('Ready')", timeout=timeout
        )

    def run_code(self, code, timeout=60_000):
        """Type `code` (as a reader does: an input event), press Run: (finished, values, error)."""
        self.page.fill("#code", code)
        self.page.click("#run")
        finished = self.done(timeout)
        return finished, self.values(), self.error()

    def values(self):
        rows = self.page.locator("#values tbody tr[data-label]")
        out = {}
        for i in range(rows.count()):
            cells = rows.nth(i).locator("td")
            out[cells.nth(0).inner_text()] = (cells.nth(1).inner_text(), cells.nth(2).inner_text())
        return out

    def error(self):
        return self.page.inner_text("#error").strip() if self.page.locator("#error").is_visible() else ""

    def set_input(self, label, value):
        box = f"#leaves input[type=number][aria-label='{label}']"
        if not self.page.locator(box).count():
            return False
        self.page.fill(box, str(value))
        self.page.press(box, "Enter")
        return self.done()

    def axe(self, state):
        """axe, every rule, on the page as it is (in the pass's colour scheme); then the colour
        rules in the other scheme, so every state is checked light and dark at both sizes."""
        if not self.run.AXE.exists():
            return
        self.run.axe_check(self.page, f"playground {self.where} {state}", self.axe_table)
        other = "dark" if self.scheme == "light" else "light"
        self.page.emulate_media(color_scheme=other)
        try:
            where = f"playground {self.where.rsplit(' ', 1)[0]} {other} {state}"
            self.run.axe_check(self.page, where, self.axe_table, self.run.COLOUR_RULES)
        finally:
            self.page.emulate_media(color_scheme=self.scheme)

    def shot(self, name):
        self.page.screenshot(path=str(self.shots / f"playground_{name}_{self.where}.png"), full_page=True)

    def text_height(self):
        """The smallest node text of the drawing as shown, in CSS px."""
        return self.page.evaluate(
            "() => Math.min(...[...document.querySelectorAll('#picture svg text')]"
            ".filter(t => t.textContent.trim()).map(t => t.getBoundingClientRect().height))"
        )


def check_playground_state(page, base, run, shots):
    """Every pass: a fresh page at that size and scheme, the checks below, axe on each state."""
    try:
        for viewport, scheme in PASSES:
            page.set_viewport_size(viewport)
            page.emulate_media(color_scheme=scheme)
            c = Checks(page, base, run, shots)
            c.where, c.scheme = f"{viewport['width']}x{viewport['height']} {scheme}", scheme
            page.goto(base + "playground.html")
            page.evaluate("localStorage.clear()")
            start = time.monotonic()
            page.reload()
            c.ready()
            c.axe("before a run")
            page.click("#run")
            c.done()
            print(f"     playground {c.where}: first result {time.monotonic() - start:.1f} s after load")
            took = []
            for part in (sliders, fresh_runs, errors_clear, keyboard, screen, big_graphs, messages, code_kept,
                         dead_python):  # fmt: skip
                began = time.monotonic()
                try:
                    part(c)
                except Exception as e:  # a page that hangs fails its check; the next part starts afresh
                    c.ok(False, f"{part.__name__}: {str(e).splitlines()[0]}")
                    page.goto(base + "playground.html")
                    c.ready()
                took.append(f"{part.__name__} {time.monotonic() - began:.0f} s")
            print(f"     playground {c.where}: {', '.join(took)}")
            (shots / f"axe_playground_{viewport['width']}.json").write_text(json.dumps(c.axe_table, indent=1))
    finally:
        page.set_viewport_size(run.VIEWPORT)
        page.emulate_media(color_scheme="light")


def sliders(c):
    """Sliders belong to the code they were made for, and every labelled input's slider works."""
    c.run_code('a = Value(2.0, label="a")\nb = a * 3\nb.backward()\n')
    c.set_input("a", 5)
    c.ok(c.values().get("a", ("",))[0] == "5.0000", "a slider sets its input")
    _, values, _ = c.run_code(
        'a = Value(2.0, label="a")\nk = Value(3.0, label="k")\nL = a * k\nL.backward()\n'
    )
    c.ok(values.get("a", ("",))[0] == "2.0000", f"a slider's value does not leak into new code ({values})")
    c.set_input("a", 4)
    c.page.fill("#code", 'a = Value(5.0, label="a")\nk = Value(3.0, label="k")\nL = a * k\nL.backward()\n')
    c.ok(c.page.locator("#leaves input").count() == 0, "editing the code drops its sliders")
    c.page.click("#run")
    c.done()
    c.ok(
        c.values().get("a", ("",))[0] == "5.0000",
        f"the edited code's 5.0 is used, not the slider's 4 ({c.values()})",
    )
    # labelled by its name, and by an f-string: sliders that work
    _, values, _ = c.run_code("a = Value(2.0)\nb = Value(-3.0)\nc = a * b\nc.backward()\n")
    moved = c.set_input("a", 4)
    c.ok(moved and c.values().get("b", ("", ""))[1] == "4.0000",
         f"a value labelled by its name gets a working slider (b.grad {c.values().get('b')})")  # fmt: skip
    code = 'xs = [Value(float(i + 1), label=f"x{i}") for i in range(3)]\ny = xs[0] * xs[1] + xs[2]\n'
    code += "y.backward()\n"
    c.run_code(code)
    moved = c.set_input("x1", 5)
    c.ok(moved and c.values().get("x0", ("", ""))[1] == "5.0000",
         f"an f-string label gets a working slider (x0.grad {c.values().get('x0')})")  # fmt: skip
    c.shot("sliders")
    c.axe("with sliders")


def fresh_runs(c):
    """Each Run starts from a fresh engine: a patch lasts one run."""
    c.run_code("from micrograd_lesson.engine import Value as V\nV.__mul__ = lambda s, o: V(42.0)\n"
               "a = Value(2.0)\nb = a * a\n")  # fmt: skip
    _, values, _ = c.run_code("a = Value(2.0)\nb = a * a\nb.backward()\n")
    c.ok(values.get("b", ("",))[0] == "4.0000", f"patching Value.__mul__ lasts one run ({values})")
    c.run_code("import runner\nrunner.describe = lambda *args, **kwargs: 1 / 0\na = Value(1.0)\n")
    _, values, error = c.run_code("a = Value(2.0)\nb = a + a\nb.backward()\n")
    c.ok(
        not error and values.get("a", ("", ""))[1] == "2.0000",
        f"patching runner.describe lasts one run {error}",
    )


def errors_clear(c):
    """After an error nothing on the page looks like this code's result."""
    c.run_code('a = Value(2.0, label="a")\nb = a * 3\nb.backward()\n')
    _, values, error = c.run_code('a = Value(2.0, label="a")\nb = a * undefined_name\n')
    shown = {
        "graph": c.page.locator("#picture svg").count(),
        "rows": c.page.locator("#values tbody tr").count(),
        "sliders": c.page.locator("#leaves input").count(),
    }
    c.ok(error.startswith("NameError") and not any(shown.values()),
         f"an error clears the graph, the table and the sliders ({shown})")  # fmt: skip
    c.shot("error")
    c.axe("after an error")


def keyboard(c):
    """Focus stays where the reader was; arrow keys move a slider again and again."""
    c.run_code('a = Value(2.0, label="a")\nb = a * a\nb.backward()\n')
    c.page.evaluate("""() => {  // count the runs started
      window.runs = 0;
      const status = document.getElementById('status');
      new MutationObserver(() => { if (status.textContent.startsWith('Running')) window.runs++; })
        .observe(status, {childList: true, characterData: true, subtree: true});
    }""")
    c.page.focus("#run")
    for _ in range(2):
        c.page.keyboard.press("Enter")
        c.page.wait_for_timeout(100)
        c.done()
    runs = c.page.evaluate("window.runs")
    c.page.keyboard.press("Tab")
    after = c.page.evaluate("document.activeElement.id")
    c.ok(runs == 2 and after == "share",
         f"the focus stays on Run: Enter runs twice ({runs}), Tab moves on ({after})")  # fmt: skip
    c.page.focus(SLIDER_A)
    seen = []
    for _ in range(3):
        c.page.keyboard.press("ArrowRight")
        c.page.wait_for_timeout(100)
        c.done()
        c.page.wait_for_timeout(300)
        seen.append(c.values().get("a", ("",))[0])
    on_slider = c.page.evaluate("document.activeElement.getAttribute('aria-label')") == "a (slider)"
    c.ok(on_slider and len(set(seen)) == 3 and float(seen[-1]) > float(seen[0]) > 2,
         f"the arrow keys move a slider three times, the focus staying on it ({seen})")  # fmt: skip


def screen(c):
    """One column below 700 px; the graph readable and scrollable."""
    width = c.page.evaluate("document.documentElement.scrollWidth")
    view = c.page.viewport_size["width"]
    c.ok(width <= view, f"the page is no wider than the screen ({width} px on {view} px)")
    c.run_code(CHAIN)
    height = c.text_height()
    c.ok(height >= 9, f"a 63-value graph's node text is readable ({height:.1f} px)")
    box = c.page.locator("#viewport").bounding_box()
    c.ok(box and box["x"] >= 0 and box["x"] + box["width"] <= view,
         f"the graph's box fits the screen ({box})")  # fmt: skip
    c.shot("big_graph")
    c.axe("a big graph")


def big_graphs(c):
    """Zoom and pan by buttons, keyboard, wheel and pinch; past 1,000 values, the table and grads."""
    c.run_code(CHAIN)
    before = c.text_height()
    c.page.click("#zoom-in")
    c.ok(c.text_height() > before * 1.2, "the + button zooms in")
    c.page.click("#zoom-out")
    c.page.click("#zoom-out")
    c.ok(c.text_height() < before, "the − button zooms out")
    c.page.click("#zoom-fit")
    c.page.focus("#viewport")
    c.page.keyboard.press("+")
    c.page.keyboard.press("+")
    zoomed = c.text_height()
    c.ok(zoomed > before * 1.5, "the + key zooms in (in the graph's box)")
    left = c.page.evaluate("document.getElementById('viewport').scrollLeft")
    c.page.keyboard.press("ArrowRight")
    c.page.keyboard.press("ArrowRight")
    c.page.wait_for_timeout(300)
    c.ok(c.page.evaluate("document.getElementById('viewport').scrollLeft") > left, "the arrow keys pan")
    c.page.keyboard.press("0")
    c.ok(abs(c.text_height() - before) < 0.5, "0 fits it again")
    box = c.page.locator("#viewport").bounding_box()
    c.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    c.page.keyboard.down("Control")
    c.page.mouse.wheel(0, -300)
    c.page.keyboard.up("Control")
    c.page.wait_for_timeout(300)
    c.ok(c.text_height() > before * 1.2, "Ctrl+wheel zooms in")
    c.page.click("#zoom-fit")
    pinched = c.page.evaluate("""() => {  // two fingers moving apart, as a phone sends them
      const box = document.getElementById('viewport'), r = box.getBoundingClientRect();
      const at = (id, x, kind) => box.dispatchEvent(new PointerEvent(kind, {pointerId: id,
        pointerType: 'touch',
        clientX: r.left + x, clientY: r.top + 40, bubbles: true, buttons: kind === 'pointerup' ? 0 : 1}));
      at(1, 100, 'pointerdown'); at(2, 140, 'pointerdown');
      for (let d = 0; d <= 80; d += 20) { at(1, 100 - d, 'pointermove'); at(2, 140 + d, 'pointermove'); }
      at(1, 20, 'pointerup'); at(2, 220, 'pointerup');
      return document.getElementById('zoom-level').textContent;
    }""")
    c.ok(c.text_height() > before * 1.5, f"pinching zooms in ({pinched})")
    c.shot("zoomed")
    c.page.click("#zoom-fit")
    finished, values, error = c.run_code(HUGE, timeout=120_000)
    note = c.page.inner_text("#too-big") if c.page.locator("#too-big").is_visible() else ""
    says = "2,401 values, too many to draw" in note and "assign a smaller piece" in note
    c.ok(finished and not error and says,
         f"past 1,000 values: no error, a line that says what to do ({error or note})")  # fmt: skip
    c.ok(values.get("x", ("", ""))[1] not in ("", "0.0000"),
         f"past 1,000 values the table still shows backward()'s grads (x: {values.get('x')})")  # fmt: skip
    c.shot("too_big")
    c.axe("past 1,000 values")
    files = json.loads(urllib.request.urlopen(c.base + "playground/python/files.json").read())
    if "micrograd_lesson/nn.py" in files:  # the course's own nn, once it is in the browser
        model = "from micrograd_lesson.nn import MLP\nimport random\nrandom.seed(0)\nmodel = MLP(2, [3, 1])\n"
    else:  # the same shape: layers of neurons with weights w and bias b
        model = (
            "class Neuron:\n    def __init__(self, n):\n        self.w = [Value(0.5) for _ in range(n)]\n"
            "        self.b = Value(0.0)\n    def __call__(self, x):\n"
            "        return sum((w * xi for w, xi in zip(self.w, x)), self.b).tanh()\n"
            "class Layer:\n    def __init__(self, n, m):\n"
            "        self.neurons = [Neuron(n) for _ in range(m)]\n"
            "    def __call__(self, x):\n        out = [n(x) for n in self.neurons]\n"
            "        return out[0] if len(out) == 1 else out\n"
            "class MLP:\n    def __init__(self, n, sizes):\n        sizes = [n] + sizes\n"
            "        self.layers = [Layer(sizes[i], sizes[i + 1]) for i in range(len(sizes) - 1)]\n"
            "    def __call__(self, x):\n        for layer in self.layers:\n            x = layer(x)\n"
            "        return x\nmodel = MLP(2, [3, 1])\n"
        )
    _, values, error = c.run_code(model + "out = model([1.0, -2.0])\nout.backward()\n")
    names = {"L0.N0.w0", "L0.N2.w1", "L0.N1.b", "L1.N0.w2", "L1.N0.b"}
    c.ok(
        names <= set(values),
        f"an MLP's parameters have a row each, named like L0.N1.w0 ({sorted(values)[:6]} {error})",
    )


def messages(c):
    """A message for every way code ends."""
    finished, values, error = c.run_code('import sys\na = Value(2.0, label="a")\nsys.exit()\nb = a * 2\n')
    status = c.page.inner_text("#status")
    c.ok(finished and "sys.exit()" in status and "(line 3)" in status and "a" in values,
         f"sys.exit() ends the code where it stands, saying so ({status} {error})")  # fmt: skip
    _, _, error = c.run_code('x = float(input("x? "))\n')
    c.ok(error.startswith("input() has no keyboard") and "(line 1)" in error, f"input(): {error}")
    _, _, error = c.run_code("a = Value(1.0)\nraise KeyboardInterrupt\n")
    c.ok(error == "KeyboardInterrupt: the run was interrupted (line 2)", f"KeyboardInterrupt: {error}")
    finished, values, error = c.run_code(
        'a = Value(float("nan"), label="a")\nb = Value(1e308, label="b")\n'
        'c = Value(float("inf"), label="c")\ne = Value(3.0, label="e")\n'
        "d = a * b + c + e\nd.backward()\n"
    )
    bounds = c.page.evaluate(
        "() => [...document.querySelectorAll('#leaves input[type=range]')].map(s => [+s.min, +s.max])"
    )
    c.ok(finished and not error and values.get("a", ("",))[0] == "nan" and values.get("c", ("",))[0] == "inf",
         f"nan and inf are shown as nan and inf, not a JSON error ({values} {error})")  # fmt: skip
    c.ok(values.get("b", ("",))[0] == "1.0000e+308", f"1e308 is formatted ({values.get('b')})")
    boxes = c.page.evaluate(
        "[...document.querySelectorAll('#leaves input[type=number]')].map(b => b.ariaLabel)"
    )
    c.ok(bounds and all(abs(x) < 1e300 for pair in bounds for x in pair) and sorted(boxes) == ["b", "e"],
         f"every slider is bounded ({bounds}); nan, inf: none; 1e308: a box ({boxes})")  # fmt: skip
    c.shot("nan")
    c.axe("nan and inf")
    finished, values, error = c.run_code('for i in range(3):\n    x = Value(float(i), label="x")\n')
    c.ok(
        finished and not error and values.get("x", ("",))[0] == "2.0000",
        f"a Value made in a loop is drawn {error}",
    )
    _, _, error = c.run_code("def f():\n    a = Value(2.0)\n    return a * 3\nf()\n")
    c.ok(
        "outside any function" in error,
        f"a Value made only inside a function: the message says the rule ({error})",
    )
    c.run_code('for i in range(100000):\n    print(i)\na = Value(1.0, label="a")\n')
    printed = c.page.inner_text("#printed")
    box = c.page.locator("#printed").bounding_box()
    tall = c.page.evaluate("document.documentElement.scrollHeight")
    c.ok(printed.rstrip().endswith("… 99,800 more lines") and box["height"] < 400 and tall < 4000,
         f"printing 100,000 lines: a capped scrolling box ({box['height']:.0f} px, page {tall})")  # fmt: skip
    c.shot("printed")
    c.axe("printed a lot")


def code_kept(c):
    """The reader's code survives a reload; a link is kept on request; a new link loads."""
    mine = 'a = Value(7.0, label="a")\nb = a * 2\n'
    c.page.fill("#code", mine)
    c.page.reload()
    c.page.wait_for_function("() => document.getElementById('examples').options.length > 1")  # module ran
    c.ok(c.page.input_value("#code") == mine, "the reader's code survives a reload")
    c.ready()
    c.page.click("#share")
    c.ok("code=" in c.page.evaluate("location.hash"), "the link puts the code in the address")
    linked = 'a = Value(3.0, label="a")\nb = a * a\n'
    c.page.evaluate(f"location.hash = {json.dumps(urllib.parse.urlencode({'code': linked}))}")
    c.page.wait_for_timeout(300)
    c.ok(c.page.input_value("#code") == linked, "a second link opened in the same tab loads its code")
    gone = c.page.locator("#values tbody tr, #leaves input").count() == 0
    c.ok(gone, "and waits for Run, the old result and its sliders gone")


def dead_python(c):
    """A dead or wedged Python is restarted by itself, with one line saying so."""
    c.page.fill("#code", "import js\njs.close()\na = Value(1.0)\n")
    c.page.click("#run")
    c.done(20_000)
    print(f"     playground {c.where}: js.close(): {c.error()}")
    finished, values, error = c.run_code("a = Value(2.0)\nb = a * a\nb.backward()\n", timeout=60_000)
    c.ok(
        finished and values.get("b", ("",))[0] == "4.0000",
        f"after js.close() the next Run gives a result ({error})",
    )
    c.page.fill("#code", "import sys\nsys.setrecursionlimit(30000)\ndef f(n):\n    return f(n + 1)\nf(0)\n")
    c.page.click("#run")
    began = time.monotonic()
    c.done(60_000)
    print(f"     playground {c.where}: deep recursion ended in {time.monotonic() - began:.1f} s: {c.error()}")
    c.page.wait_for_timeout(1000)  # the ping after the run: is Python still usable?
    said = c.error()
    # Pyodide either dies (then the worker is restarted) or survives with a stack overflow
    restarted = "restarted" in said
    c.ok(restarted or said.startswith("RecursionError: the code called itself"),
         f"deep recursion: one line says so, and a dead Python is restarted ({said})")  # fmt: skip
    if restarted:
        c.ready()
    finished, values, error = c.run_code("a = Value(2.0)\nb = a * a\nb.backward()\n", timeout=60_000)
    c.ok(finished and values.get("b", ("",))[0] == "4.0000", f"and the next Run gives a result ({error})")
