"""Build the course as a static web site in build/html/ (`make html`), with no network.

Every notebook in notebooks/ is rendered by nbconvert with its stored outputs, in
JupyterLab's look (nbconvert's "lab" template, extended in website/templates/course
with previous/next links). Formulas are typeset by a complete MathJax 3 (its
TeX input, CommonHTML output and TeX web fonts) taken from the django-static-mathjax
package on PyPI (pinned in requirements.txt) and copied into build/html/mathjax/:
nothing is fetched when a page is viewed. Pages follow the reader's light or dark
preference (JupyterLab's two themes, the dark one under prefers-color-scheme). The
index lists the chapters in order, each with the description from the chapter
table in README.md.

    python website/build.py            # then open build/html/index.html
"""

import html
import re
import shutil
import sys
from pathlib import Path

import jinja2
import mathjax  # the django-static-mathjax package: MathJax 3 as static files
import nbformat
from jupyter_core.paths import jupyter_path
from nbconvert import HTMLExporter

SITE = Path(__file__).resolve().parent
ROOT = SITE.parent
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "html"
TITLE = "micrograd-lesson"
TAGLINE = "Reverse-mode automatic differentiation from first principles, as a course in notebooks."
MATHJAX = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"


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
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
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


def build():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    shutil.copytree(MATHJAX, OUT / "mathjax")
    shutil.copy(SITE / "course.css", OUT / "course.css")
    # JupyterLab's dark theme, for readers whose system prefers dark (nbconvert inlines the light one)
    dark = next(Path(p) for p in jupyter_path("nbconvert", "templates", "lab", "static", "theme-dark.css")
                if Path(p).exists())  # fmt: skip
    shutil.copy(dark, OUT / "theme-dark.css")

    exporter = HTMLExporter(template_name="course", extra_template_basedirs=[str(SITE / "templates")])
    found = chapters()
    links = [{"html": c["html"], "title": inline_code(c["title"])} for c in found]
    for i, chapter in enumerate(found):
        course = {
            "title": TITLE,
            "previous": links[i - 1] if i > 0 else None,
            "next": links[i + 1] if i + 1 < len(found) else None,
        }
        resources = {"metadata": {"name": plain(chapter["title"])}, "course": course}
        body, _ = exporter.from_notebook_node(chapter["nb"], resources=resources)
        if re.search(r"""<(script|link)[^>]+(src|href)=["']?(https?:)?//""", body):
            sys.exit(f"{chapter['html']} would load something from the network")
        (OUT / chapter["html"]).write_text(body, encoding="utf-8")

    template = jinja2.Environment(loader=jinja2.FileSystemLoader(SITE / "templates"), autoescape=False)
    index = template.get_template("chapters.html.j2").render(
        title=TITLE, tagline=html.escape(TAGLINE), chapters=[{**c, **link} for c, link in zip(found, links)]
    )
    (OUT / "index.html").write_text(index, encoding="utf-8")
    return found


if __name__ == "__main__":
    built = build()
    print(f"{OUT.relative_to(ROOT)}/index.html: {len(built)} chapters; open it in a browser")
