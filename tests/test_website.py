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
    assert len(navs) == 2 and all(names), navs
    assert len({name.group(1) for name in names}) == 2, "a screen reader tells the two apart by name"


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
