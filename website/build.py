"""Build the course as a static web site in build/html/ (`make html`), with no network.

Every notebook in notebooks/ is rendered by nbconvert with its stored outputs, in
JupyterLab's look (nbconvert's "lab" template, extended in website/templates/course
with previous/next links). Formulas are typeset by a complete MathJax 3 (its
TeX input, CommonHTML output and TeX web fonts) taken from the django-static-mathjax
package on PyPI (pinned in requirements.txt) and copied into build/html/mathjax/:
nothing is fetched when a page is viewed. Pages follow the reader's light or dark
preference (JupyterLab's two themes, the dark one under prefers-color-scheme). The
index lists the chapters in order, each with the description from the chapter
table in README.md. Every picture says what it shows: the course gives each one as an
<img> with alt text (text/html, which nbconvert prefers); a picture stored without one
gets its output's plain text as alt, and a page that would show nbconvert's
"No description has been provided for this image" is not built.

    python website/build.py            # then open build/html/index.html

The playground (playground.html) runs the course's own engine in the browser: Python is
Pyodide and the drawings are Graphviz, both WebAssembly from the npm registry, pinned in
website/package-lock.json, installed by `npm ci` and copied here; the package's modules it
imports are copied beside them. Browsers load WebAssembly only from a web server, so it
works from `make serve`, not from file://.

Beside each chapter's text: search (Pagefind, npm, which indexes the built chapters here,
offline), the list of chapters and the page's outline; above it, links to download the
notebook and the wheel its first cell installs (built here with pip, no network). Every page
carries a Content-Security-Policy that allows only the site's own origin (see POLICY).
"""

import base64
import hashlib
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path

import jinja2
import mathjax  # the django-static-mathjax package: MathJax 3 as static files
import nbformat
from jupyter_core.paths import jupyter_path
from nbconvert import HTMLExporter

from notebooks.chapters import numbered

SITE = Path(__file__).resolve().parent
ROOT = SITE.parent
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "html"
TITLE = "micrograd-lesson"
TAGLINE = "Reverse-mode automatic differentiation from first principles, as a course in notebooks."
MATHJAX = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
PLAYGROUND = SITE / "playground"
NODE_MODULES = SITE / "node_modules"
PAGEFIND = NODE_MODULES / ".bin" / "pagefind"
# The notebooks' first cell installs the course's package from this wheel, beside the notebook.
WHEEL = "micrograd_lesson-0.1.0-py3-none-any.whl"
# The search box, on the index and beside every chapter (course.js starts Pagefind's UI in #search,
# or shows the note where search cannot work: a page opened as a file cannot read the index).
SEARCH = """<div class="course-search" role="search" aria-label="Search the course">
<div id="search"></div>
<p class="course-search-note" hidden>Search needs the site served: run <code>make serve</code> in the
course folder, then open <code>http://127.0.0.1:8000/</code> (a page opened as a file cannot read the
search index).</p>
</div>"""
PYODIDE_FILES = [
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
]


def descriptions(readme):
    """{chapter number: description} from README's table `| 3 | `03_*` | what you learn |`."""
    found = {}
    for line in readme.splitlines():
        row = re.match(r"\|\s*(\d+)\s*\|\s*`\d+_[^`]*`\s*\|\s*(.+?)\s*\|\s*$", line)
        if row:
            found[int(row.group(1))] = row.group(2)
    return found


def inline_code(text):
    """README's `code` spans as <code>, everything else escaped."""
    parts = text.split("`")
    return "".join(f"<code>{html.escape(p)}</code>" if i % 2 else html.escape(p) for i, p in enumerate(parts))


def plain(text):
    """A Markdown title as plain text (for <title>): its code marks dropped."""
    return text.replace("`", "")


def title_of(nb, name):
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            heading = re.search(r"^#\s+(.+)$", cell.source, flags=re.M)
            if heading:
                return heading.group(1).strip()
    sys.exit(f"{name}.ipynb has no '# title' heading in a Markdown cell")


def chapters():
    described = descriptions((ROOT / "README.md").read_text(encoding="utf-8"))
    found = []
    for path in numbered(NOTEBOOKS, ".ipynb"):
        number = int(path.name[:2])
        if number not in described:
            sys.exit(f"README.md's chapter table has no row for chapter {number} ({path.name})")
        nb = nbformat.read(path, as_version=4)
        found.append(
            {
                "name": path.stem,
                "path": path,
                "nb": nb,
                "html": path.stem + ".html",
                "title": title_of(nb, path.stem),
                "description": inline_code(described[number]),
            }
        )
    return found


NO_DESCRIPTION = "No description has been provided for this image"
# The plain text Jupyter gives a picture by default: it says nothing about what it shows.
DEFAULT_TEXT = re.compile(r"^<(Figure size|IPython\.core\.display\.\w+ object|matplotlib\.)")


def with_alt_text(nb, name):
    """nb with every picture output given as an <img> with alt text (text/html), in place.

    An output that has text/html already (the course's drawings and plots) is kept; a PNG or
    SVG without it gets its plain text as alt, unless that is Jupyter's default, which says
    nothing: then the build stops and says which cell.
    """
    for number, cell in enumerate(nb.cells, 1):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            picture = next((m for m in ("image/svg+xml", "image/png") if m in data), None)
            if picture is None or "text/html" in data:
                continue
            text = " ".join(str(data.get("text/plain", "")).split())
            if not text or DEFAULT_TEXT.match(text):
                sys.exit(f"{name}, cell {number}: a picture with no description (plain text {text!r})")
            source = data[picture]
            if picture == "image/svg+xml":
                source = base64.b64encode(source.encode("utf-8")).decode("ascii")
            data["text/html"] = f'<img src="data:{picture};base64,{source}" alt="{html.escape(text)}">'
    return nb


HEADING = re.compile(r'<h([23]) id="([^"]+)"[^>]*>(.*?)</h\1>', flags=re.S)


def outline(body):
    """The page's h2 and h3 headings as a nested list of links (<ul>), h3 under the h2 before it."""
    items, open_sub = [], False
    for level, anchor, text in HEADING.findall(body):
        text = re.sub(r'<a class="anchor-link".*?</a>', "", text, flags=re.S)
        text = re.sub(r"<(?!/?code\b)[^>]+>", "", text).strip()  # keep <code>, drop other tags
        link = f'<a href="#{anchor}">{text}</a>'
        if level == "3" and items:
            items.append(("" if open_sub else "<ul>") + f"<li>{link}</li>")
            open_sub = True
            continue
        items.append(("</ul></li>" if open_sub else ("</li>" if items else "")) + f"<li>{link}")
        open_sub = False
    if not items:
        return ""
    return "<ul>" + "".join(items) + ("</ul></li>" if open_sub else "</li>") + "</ul>"


# Every page's Content-Security-Policy: everything from the site itself and nothing from anywhere
# else, so learner code in the playground cannot send anything out (connect-src 'self'). Each
# page's own inline scripts are allowed by their hashes; WebAssembly (Pyodide, Graphviz and
# Pagefind's search) needs 'wasm-unsafe-eval', which allows compiling WebAssembly, not JavaScript's
# eval. Styles may be inline (nbconvert's and MathJax's). The playground's worker is started from a
# blob: URL, so it keeps this policy (a worker loaded from a file would get only its server's).
POLICY = {
    "default-src": "'self'",
    "script-src": "'self' 'wasm-unsafe-eval'",
    "style-src": "'self' 'unsafe-inline'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "worker-src": "'self'",  # Pagefind searches in its own worker (pagefind/pagefind-worker.js)
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'none'",
}
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", flags=re.S)


def policy(page, playground=False):
    """The Content-Security-Policy for `page` (its HTML): POLICY with its inline scripts' hashes."""
    rules = dict(POLICY)
    hashes = [base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode("ascii")
              for s in INLINE_SCRIPT.findall(page)]  # fmt: skip
    rules["script-src"] += "".join(f" 'sha256-{h}'" for h in dict.fromkeys(hashes))
    if playground:  # no search; its Python in a worker that keeps this policy (playground/sealed_worker.js)
        rules["worker-src"] = "blob:"
    return "; ".join(f"{k} {v}" for k, v in rules.items())


def with_policy(page, playground=False):
    """`page` with its Content-Security-Policy as the first thing after <meta charset>, before
    anything it governs. (An inline event handler, onclick="...", would be blocked by it: the
    browser test sees every violation.)"""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(page, playground)}">'
    charset = re.search(r"<meta charset=[^>]*>", page, flags=re.I)
    if charset is None:
        sys.exit("a page has no <meta charset>, after which its Content-Security-Policy goes")
    return page[: charset.end()] + "\n" + meta + page[charset.end() :]


def build():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    shutil.copytree(MATHJAX, OUT / "mathjax")
    for name in ("course.css", "course.js"):
        shutil.copy(SITE / name, OUT / name)
    (OUT / "notebooks").mkdir()
    build_wheel(OUT / "notebooks")
    # JupyterLab's dark theme, for readers whose system prefers dark (nbconvert inlines the light one)
    dark = next(Path(p) for p in jupyter_path("nbconvert", "templates", "lab", "static", "theme-dark.css")
                if Path(p).exists())  # fmt: skip
    shutil.copy(dark, OUT / "theme-dark.css")

    exporter = HTMLExporter(template_name="course", extra_template_basedirs=[str(SITE / "templates")])
    found = chapters()
    examples = {
        e["chapter"]: e for e in json.loads((PLAYGROUND / "examples.json").read_text(encoding="utf-8"))
    }
    links = [{"html": c["html"], "title": inline_code(c["title"])} for c in found]
    for i, chapter in enumerate(found):
        course = {
            "title": TITLE,
            "previous": links[i - 1] if i > 0 else None,
            "next": links[i + 1] if i + 1 < len(found) else None,
            "try_it": try_it(examples.get(int(chapter["name"][:2]))),
            "chapters": [{**link, "current": j == i} for j, link in enumerate(links)],
            "search": SEARCH,
            "notebook": f"notebooks/{chapter['path'].name}",
            "wheel": f"notebooks/{WHEEL}",
        }
        shutil.copy(chapter["path"], OUT / "notebooks" / chapter["path"].name)
        resources = {"metadata": {"name": plain(chapter["title"])}, "course": course}
        body, _ = exporter.from_notebook_node(
            with_alt_text(chapter["nb"], chapter["html"]), resources=resources
        )
        if NO_DESCRIPTION in body or re.search(r"<img(?![^>]*\balt=\"[^\"]+\")[^>]*>", body):
            sys.exit(f"{chapter['html']}: a picture without a description")
        if re.search(r"""<(script|link)[^>]+(src|href)=["']?(https?:)?//""", body):
            sys.exit(f"{chapter['html']} would load something from the network")
        body = body.replace("<!-- course-outline -->", outline(body))
        (OUT / chapter["html"]).write_text(with_policy(body), encoding="utf-8")

    template = jinja2.Environment(loader=jinja2.FileSystemLoader(SITE / "templates"), autoescape=False)
    index = template.get_template("chapters.html.j2").render(
        title=TITLE,
        tagline=html.escape(TAGLINE),
        chapters=[{**c, **link} for c, link in zip(found, links)],
        search=SEARCH,
    )
    (OUT / "index.html").write_text(with_policy(index), encoding="utf-8")
    build_playground()
    build_search()
    return found


def build_wheel(folder):
    """The course's package as the wheel the notebooks install, into folder (pip, offline: the
    build backend, setuptools, is in requirements-site.txt)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                        "--wheel-dir", tmp, str(ROOT)], check=True)  # fmt: skip
        built = [p.name for p in Path(tmp).glob("*.whl")]
        if built != [WHEEL]:
            sys.exit(f"the package built as {built}, not {WHEEL}, the file the notebooks install")
        shutil.copy(Path(tmp) / WHEEL, folder / WHEEL)


def build_search():
    """Pagefind's index of every chapter's text (their <main>), in build/html/pagefind/, offline:
    Pagefind (npm, pinned in website/package-lock.json) reads the built pages and writes the index
    and its search UI beside them."""
    command = [str(PAGEFIND), "--site", str(OUT), "--quiet", "--exclude-selectors", ".anchor-link"]
    done = subprocess.run(command, capture_output=True, text=True)  # the headings' ¶ links: not text
    if done.returncode != 0 or not (OUT / "pagefind" / "pagefind-ui.js").exists():
        sys.exit(f"Pagefind could not index the site:\n{done.stdout}{done.stderr}")


def try_it(example):
    """The link that opens `example` in the playground (None for a chapter without one)."""
    if example is None:
        return None
    return {"href": "playground.html#" + urllib.parse.urlencode({"code": example["code"]}),
            "title": html.escape(example["title"].split(": ", 1)[-1])}  # fmt: skip


def build_playground():
    """playground.html and what it loads: Pyodide, Graphviz, the course's modules it imports."""
    lock = SITE / "package-lock.json"
    installed = NODE_MODULES / ".package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        if shutil.which("npm") is None:
            sys.exit("make html needs npm (Node.js) to install the playground's Pyodide and Graphviz: "
                     "Debian/Ubuntu `sudo apt-get install npm`, macOS `brew install node`")  # fmt: skip
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=SITE, check=True)
    (OUT / "pyodide").mkdir()
    for name in PYODIDE_FILES:
        shutil.copy(NODE_MODULES / "pyodide" / name, OUT / "pyodide" / name)
    (OUT / "graphviz").mkdir()
    shutil.copy(
        NODE_MODULES / "@hpcc-js" / "wasm-graphviz" / "dist" / "index.js", OUT / "graphviz" / "index.js"
    )
    page = (PLAYGROUND / "playground.html").read_text(encoding="utf-8")
    (OUT / "playground.html").write_text(with_policy(page, playground=True), encoding="utf-8")
    out = OUT / "playground"
    out.mkdir()
    for name in (
        "playground.js",
        "worker.js",
        "sealed_worker.js",
        "no_network.js",
        "playground.css",
        "examples.json",
        "train.js",
        "train.css",
    ):
        shutil.copy(PLAYGROUND / name, out / name)
    files = python_files()
    for relative, source in files.items():
        (out / "python" / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, out / "python" / relative)
    (out / "python" / "files.json").write_text(json.dumps(sorted(files)), encoding="utf-8")


def python_files():
    """{path in the playground: source file}: runner.py and every module it imports from the course
    package, from graphviz (the Python side of draw_dot, pure Python) and playground.py, found by
    importing it as the browser would: with no NumPy (Pyodide's is not in the site)."""
    code = (
        "import json, sys; sys.modules['numpy'] = None; sys.path.insert(0, sys.argv[1]); import runner;"
        "print(json.dumps({n: m.__file__ for n, m in list(sys.modules.items()) if n.split('.')[0]"
        " in ('micrograd_lesson', 'graphviz', 'playground') and getattr(m, '__file__', None)}))"
    )
    found = subprocess.run([sys.executable, "-c", code, str(PLAYGROUND)], capture_output=True, text=True)
    if found.returncode:
        why = found.stderr.strip().splitlines()[-1]
        sys.exit(f"the playground's Python (runner.py) does not import without NumPy: {why}")
    files = {"runner.py": PLAYGROUND / "runner.py"}
    for name, path in json.loads(found.stdout).items():
        path = Path(path)
        relative = name.replace(".", "/") + ("/__init__.py" if path.name == "__init__.py" else ".py")
        files[relative] = path  # packages are modules too: each one's __init__.py is here
    return files


if __name__ == "__main__":
    built = build()
    print(f"{OUT.relative_to(ROOT)}/index.html: {len(built)} chapters; open it in a browser")
