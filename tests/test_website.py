"""The static site's index: every chapter has a description in README's chapter table."""

import importlib.util
import re
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

from notebooks.chapters import chapters

REPO = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("website_build", REPO / "website" / "build.py")
website = importlib.util.module_from_spec(spec)
spec.loader.exec_module(website)


def test_readme_describes_every_chapter_notebook():
    described = website.descriptions((REPO / "README.md").read_text(encoding="utf-8"))
    numbers = {int(name[:2]) for name in chapters()}
    assert numbers and numbers <= set(described), f"README has no row for {sorted(numbers - set(described))}"
    assert all(len(text) > 20 for text in described.values())


def test_descriptions_are_read_from_table_rows_only():
    readme = "| # | notebook | what |\n|---|---|---|\n| 3 | `03_*` | backprop by `hand` |\nprose | 4 |\n"
    assert website.descriptions(readme) == {3: "backprop by `hand`"}
    assert website.inline_code("by `a<b` & c") == "by <code>a&lt;b</code> &amp; c"


def test_a_chapter_page_names_each_navigation_landmark():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A chapter")])
    exporter = HTMLExporter(
        template_name="course", extra_template_basedirs=[str(REPO / "website" / "templates")]
    )
    link = {"html": "b.html", "title": "B"}
    course = {"title": "course", "previous": link, "next": link, "try_it": None}
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": "A"}, "course": course})
    navs = re.findall(r"<nav\b[^>]*>", body)
    names = [re.search(r'aria-label="([^"]+)"', nav) for nav in navs]
    # previous/next at the top and at the end, every chapter, this page's outline
    assert len(navs) == 4 and all(names), navs
    assert len({name.group(1) for name in names}) == 4, "a screen reader tells them apart by name"


def test_every_picture_reaches_the_site_with_a_description():
    import nbformat
    import pytest

    png = "iVBORw0KGgo="
    nb = nbformat.v4.new_notebook()
    described = {"image/png": png, "text/plain": "A line rises."}
    course = {"image/png": png, "text/html": '<img src="x" alt="Drawn by the course.">', "text/plain": "x"}
    nb.cells = [
        nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output("display_data", data=described)]),
        nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output("display_data", data=course)]),
    ]
    website.with_alt_text(nb, "test")
    assert (
        nb.cells[0].outputs[0].data["text/html"]
        == f'<img src="data:image/png;base64,{png}" alt="A line rises.">'
    )
    assert nb.cells[1].outputs[0].data["text/html"] == course["text/html"]  # the course's own is kept
    bare = {"image/png": png, "text/plain": "<Figure size 640x480 with 1 Axes>"}  # says nothing
    nb.cells = [nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output("display_data", data=bare)])]
    with pytest.raises(SystemExit, match="cell 1: a picture with no description"):
        website.with_alt_text(nb, "test")


def test_the_outline_nests_each_h3_under_the_h2_before_it():
    body = (
        '<h1 id="T">Title</h1><h2 id="A">First <code>x</code><a class="anchor-link" href="#A">¶</a></h2>'
        '<h3 id="A1">Inside <em>it</em></h3><h3 id="A2">Also</h3><h2 id="B">Second</h2>'
    )
    assert website.outline(body) == (
        '<ul><li><a href="#A">First <code>x</code></a><ul><li><a href="#A1">Inside it</a></li>'
        '<li><a href="#A2">Also</a></li></ul></li><li><a href="#B">Second</a></li></ul>'
    )
    assert website.outline("<h1 id='T'>Only a title</h1>") == ""


def test_every_page_gets_a_policy_that_lets_only_its_own_scripts_run():
    import base64
    import hashlib

    import pytest

    page = '<head><meta charset="utf-8"><script>let a = 1;</script></head><body><script src="x.js"></script>'
    protected = website.with_policy(page)
    meta = protected.index('http-equiv="Content-Security-Policy"')
    assert protected.index("<meta charset") < meta < protected.index("<script>")  # before what it governs
    rules = dict(r.strip().split(" ", 1) for r in website.policy(page).split(";"))
    digest = base64.b64encode(hashlib.sha256(b"let a = 1;").digest()).decode()
    assert rules["script-src"] == f"'self' 'wasm-unsafe-eval' 'sha256-{digest}'"  # the inline one, by hash
    assert rules["connect-src"] == "'self'" and rules["default-src"] == "'self'"
    assert rules["worker-src"] == "'self'"  # Pagefind's worker; the playground allows only blob: workers
    assert (
        dict(r.strip().split(" ", 1) for r in website.policy(page, playground=True).split(";"))["worker-src"]
        == "blob:"
    )
    with pytest.raises(SystemExit, match="no <meta charset>"):
        website.with_policy("<html><head><script>x</script>")
