"""The playground's train example in the browser (part of run.py's playground checks).

At 1280x800 and at 390x844: the train example runs in the worker while the page stays responsive
(the longest gap between two animation frames is measured), the loss falls, the decision boundary
is drawn over all 100 points with both classes, axe finds nothing serious (light and dark), and
Stop stops it: nothing in the training section changes for twice the time between two reports.
A short run ends with "Done", and the next ordinary run shows its graph again; reports of the
wrong shape, posted by the code itself, are ignored. Screenshots (light, dark, the whole page):
build/browser/playground_train_*.png.
"""

import json
import re
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = json.loads((ROOT / "website" / "playground" / "examples.json").read_text(encoding="utf-8"))
TRAIN = next(e for e in EXAMPLES if e.get("train"))
PHONE = {"width": 390, "height": 844}
READY = "() => !document.getElementById('run').disabled"  # Python is up and no run is going on
NUMBER = r"(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)"

# The longest wait between two animation frames over `ms`, measured on the page's main thread.
FRAME_GAP = """ms => new Promise(done => {
  const start = performance.now(); let last = start, gap = 0;
  const tick = now => { gap = Math.max(gap, now - last); last = now;
    if (now - start < ms) requestAnimationFrame(tick); else done(gap); };
  requestAnimationFrame(tick);
})"""
# Counts every change inside the training section from now on (window.trainingChanges).
WATCH = """() => { window.trainingChanges = 0;
  new MutationObserver(m => { window.trainingChanges += m.length; })
    .observe(document.getElementById('training'), {subtree: true, childList: true, attributes: true,
                                                   characterData: true}); }"""


# What the boundary picture holds: its cells, the points of each class, its line, its shades.
BOUNDARY = """() => {
  const b = document.getElementById('boundary');
  const cells = [...b.querySelectorAll('rect:not(.point)')];
  return { cells: cells.length, shades: new Set(cells.map(r => r.getAttribute('fill'))).size,
           plus: b.querySelectorAll('.class-plus').length, minus: b.querySelectorAll('.class-minus').length,
           line: b.querySelector('.boundary-line').getAttribute('d').length,
           label: b.getAttribute('aria-label') };
}"""
# Where the pictures end, where their column and the page end, and the axis text's size as shown.
FITS = """() => {
  const f = [...document.querySelectorAll('.training-figures svg')].map(s => s.getBoundingClientRect());
  const text = document.querySelector('#loss-curve text');
  return { right: Math.max(...f.map(r => r.right)),
           column: document.querySelector('.result').getBoundingClientRect().right,
           page: document.documentElement.scrollWidth,
           text: parseFloat(getComputedStyle(text).fontSize) * f[0].width / 360 };
}"""
DONE = "() => document.getElementById('status').textContent.startsWith('Done')"
# The reader's code can post reports itself: wrong shapes, huge grids, markup where numbers go.
HOSTILE = """import js
for report in ['{"step": "x"}', '{"step": 1, "grid": 100000, "cells": "1"}', '[1, 2]', 'null',
               '{"step": 1, "accuracy": 1, "losses": [], "box": [0, 1, 0, 1], "grid": 1, "cells": "<b>",'
               ' "points": []}']:
    js.playgroundProgress(report)
a = Value(2.0, label="a"); b = a * a; b.backward()
"""


def reports_at_least(n):
    """The page has drawn n reports: the boundary of the n-th (the 1st call, then every 5th)."""
    return f"() => Number(document.getElementById('boundary')?.dataset.step ?? -1) >= {5 * (n - 1)}"


def shortened(steps):
    lines = TRAIN["code"].splitlines()
    return "\n".join(f"STEPS = {steps}" if line.startswith("STEPS = ") else line for line in lines)


def check_training(page, base, check, axe_check, shots):
    """The train example, as a reader runs it, at 1280x800 then 390x844; check and axe_check are run.py's."""
    viewport = page.viewport_size
    table = {}
    for size, name in ((viewport, "1280x800"), (PHONE, "390x844")):
        page.set_viewport_size(size)
        page.wait_for_function(READY, timeout=180_000)
        page.fill("#code", TRAIN["code"])
        page.click("#run")
        page.wait_for_function(reports_at_least(2), timeout=300_000)
        second = time.monotonic()
        page.wait_for_function(reports_at_least(3), timeout=300_000)
        interval = time.monotonic() - second  # between two reports: how long Stop is watched
        gap = page.evaluate(FRAME_GAP, 1500)
        # training on the page's own thread would freeze it for seconds; a busy machine costs ~250 ms
        check(gap < 1000, f"playground train {name}: the page stays responsive while it trains "
              f"(longest frame gap {gap:.0f} ms)")  # fmt: skip
        curve = page.get_attribute("#loss-curve", "aria-label")
        found = re.match(rf"Loss curve: {NUMBER} at step 0, {NUMBER} at step (\d+)", curve or "")
        check(found and float(found[2]) < float(found[1]) and int(found[3]) >= 5,
              f"playground train {name}: the loss falls ({curve})")  # fmt: skip
        drawn = page.evaluate(BOUNDARY)
        both = drawn["plus"] == 50 and drawn["minus"] == 50
        check(drawn["cells"] >= 100 and drawn["shades"] == 2 and drawn["line"] > 0 and both
              and "points are on their own side" in drawn["label"],
              f"playground train {name}: the boundary is drawn over the 100 points, both classes, "
              f"with its line ({drawn})")  # fmt: skip
        summary = page.inner_text("#training-summary")
        check(re.match(r"Step \d+: loss \d", summary) is not None and
              page.get_attribute("#training-summary", "aria-live") == "polite",
              f"playground train {name}: a summary in words, read out as it changes ({summary})")  # fmt: skip
        fits = page.evaluate(FITS)
        room = size["width"] if fits["page"] <= size["width"] else fits["column"]
        check(fits["right"] <= room + 1 and fits["text"] >= 9,
              f"playground train {name}: the pictures fit (right edge {fits['right']:.0f} px of {room} px;"
              f" axis text {fits['text']:.1f} px)")  # fmt: skip
        if fits["page"] > size["width"]:
            print(f"     playground train {name}: the page is {fits['page']} px wide (the layout)")
        page.locator("#training").screenshot(path=str(shots / f"playground_train_{name}.png"))
        page.screenshot(path=str(shots / f"playground_train_{name}_page.png"))
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            axe_check(page, f"playground.html training {name} {scheme}", table,
                      None if scheme == "light" else ["color-contrast", "link-in-text-block"])  # fmt: skip
        page.locator("#training").screenshot(path=str(shots / f"playground_train_{name}_dark.png"))
        page.emulate_media(color_scheme="light")
        page.click("#stop")
        page.evaluate(WATCH)
        step = page.get_attribute("#boundary", "data-step")
        watched = max(3.0, 2 * interval)
        page.wait_for_timeout(watched * 1000)
        changes = page.evaluate("window.trainingChanges")
        summary = page.inner_text("#training-summary")
        check(changes == 0 and summary.startswith(f"Stopped at step {step}")
              and f"Stopped at step {step}" in page.inner_text("#error"),
              f"playground train {name}: Stop stops it, {changes} changes in {watched:.0f} s ({summary})",
              )  # fmt: skip
    page.set_viewport_size(viewport)
    page.wait_for_function(READY, timeout=180_000)
    page.fill("#code", shortened(6))
    page.click("#run")
    page.wait_for_function(DONE, timeout=300_000)
    summary = page.inner_text("#training-summary")
    check(summary.startswith("Done: 6 steps") and not page.locator("#picture").is_visible(),
          f"playground train: a short run ends Done, in place of the graph ({summary})")  # fmt: skip
    page.fill("#code", 'a = Value(2.0, label="a"); b = a * a; b.backward()')
    page.click("#run")
    page.wait_for_function(DONE, timeout=60_000)
    check(page.locator("#picture svg").is_visible() and not page.locator("#training").is_visible(),
          "playground train: the next ordinary run shows its graph, and no training")  # fmt: skip
    errors = []

    def page_error(error):
        errors.append(str(error))

    page.on("pageerror", page_error)
    page.fill("#code", HOSTILE)
    page.click("#run")
    page.wait_for_function(DONE, timeout=60_000)
    page.remove_listener("pageerror", page_error)
    drawn = page.locator("#picture svg").is_visible()
    check(not errors and page.locator("#training").count() == 0 and drawn,
          f"playground train: wrong-shaped reports posted by the code are ignored {errors}")  # fmt: skip
