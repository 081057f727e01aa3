"""What installs the course agrees with itself: the supported Pythons, conda and pip alike."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def requirements():
    lines = (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return [re.split(r"[=<>]", line)[0].strip().lower() for line in lines if line[:1].isalnum()]


def test_environment_yml_lists_every_requirement():
    listed = (REPO / "environment.yml").read_text(encoding="utf-8").lower()
    conda_names = {"build": "python-build"}  # conda-forge's name for the same package
    missing = [
        name for name in requirements() if not re.search(rf"\b{conda_names.get(name, name)}\b", listed)
    ]
    assert not missing, f"environment.yml lacks {missing}, which requirements.txt installs"


def test_supported_pythons_agree():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    supported = re.search(r"^SUPPORTED := (.+)$", makefile, flags=re.M).group(1).split()
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert f'requires-python = ">={supported[0]}"' in pyproject
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"Python {supported[0]} to {supported[-1]}" in readme


def test_make_lab_prints_an_address_that_opens_chapter_0():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    first = re.search(r"^FIRST := (\S+)$", makefile, flags=re.M).group(1)
    assert (REPO / "notebooks" / first).exists()
    lab = re.search(r"^lab:.*\n((?:\t.*\n)+)", makefile, flags=re.M).group(1)
    assert "--LabApp.default_url=/lab/tree/$(FIRST)" in lab  # the address JupyterLab prints
    browser_test = (REPO / "tests" / "browser" / "run.py").read_text(encoding="utf-8")
    assert f'FIRST = "{first}"' in browser_test  # which checks that the address opens it


def package_imports():
    """{module: the package's modules it imports}, read from the source (nothing is imported)."""
    package = REPO / "micrograd_lesson"
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    edges = {}
    for name, path in modules.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = ".".join(here[: len(here) - node.level + 1] + [node.module or ""]).strip(".")
                base = base if node.level else node.module or ""
                found |= {m for m in [base, *(f"{base}.{a.name}" for a in node.names)] if m in modules}
        edges[name] = found - {name}
    return edges


def test_the_package_imports_have_no_cycle():
    """No module of the package imports, directly or through others, a module that imports it."""
    edges = package_imports()

    def cycle_from(start, path):
        for nxt in edges[path[-1]]:
            if nxt == start:
                return [*path, start]
            if nxt not in path and (found := cycle_from(start, [*path, nxt])):
                return found
        return None

    cycles = [c for name in edges if (c := cycle_from(name, [name]))]
    assert not cycles, f"import cycles: {cycles[0]}"


def test_imports_go_one_way_maths_then_display_then_course_plumbing():
    def layer(module):
        if module.startswith(("micrograd_lesson.train", "micrograd_lesson.exercises")):
            return 2  # course plumbing: training loops, exercise checks
        return 1 if module.startswith("micrograd_lesson.show") else 0  # display, or the maths

    upward = {
        (module, imported)
        for module, found in package_imports().items()
        for imported in found
        if module != "micrograd_lesson" and layer(imported) > layer(module)
    }
    assert not upward, f"a lower layer imports a higher one: {sorted(upward)}"


def test_training_imports_nothing_from_show():
    """train (fit) is handed its progress display (fit(..., progress=ProgressBar)); it imports no
    display module, so training runs where no widget or plotting library can load."""
    shown = {m for m in package_imports()["micrograd_lesson.train"] if m.startswith("micrograd_lesson.show")}
    assert not shown, f"micrograd_lesson.train imports {sorted(shown)}"


def test_the_scalar_network_and_its_optimisers_need_no_tensor_engine():
    """nn (the scalar MLP) imports no tensor module and so no NumPy: zero_grad clears any other
    parameter without knowing its class."""
    edges = package_imports()
    assert "micrograd_lesson.tensor" not in edges["micrograd_lesson.nn"], edges["micrograd_lesson.nn"]
    lines = ["import sys, micrograd_lesson.nn as nn", "nn.MLP(2, [4, 1]).zero_grad()"]
    code = "\n".join([*lines, "print('numpy' in sys.modules)"])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_engine_imports_without_numpy_matplotlib_or_graphviz():
    """What the playground runs in the browser: the scalar engine, its graph walker and grad()."""
    code = (
        "import sys, micrograd_lesson.engine, micrograd_lesson.autograd, micrograd_lesson.graph;"
        "a = micrograd_lesson.engine.Value(2.0); b = micrograd_lesson.engine.Value(-3.0);"
        "c = a * b + a; c.backward(); assert (a.grad, b.grad) == (-2.0, 2.0);"
        "print(sorted(m for m in ('numpy', 'matplotlib', 'graphviz', 'IPython') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_public_name_and_module_is_reachable_from_the_package():
    import micrograd_lesson

    for name in micrograd_lesson.__all__:
        assert getattr(micrograd_lesson, name) is not None, name
    assert micrograd_lesson.tensor.Tensor is micrograd_lesson.Tensor  # a module, imported on first use
    from micrograd_lesson.gradcheck import gradcheck  # a module with a function of its own name

    assert micrograd_lesson.gradcheck is gradcheck
    with pytest.raises(AttributeError, match="has no attribute 'Valeu'"):
        micrograd_lesson.Valeu  # noqa: B018


def test_the_student_edition_builds_without_the_course_installed(tmp_path):
    """make student runs instructor/student.py; it needs nothing installed (python -S: no
    site-packages, so no editable install of the course either), from any working folder."""
    done = subprocess.run(
        [sys.executable, "-S", str(REPO / "instructor" / "student.py"), str(tmp_path / "edition")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "edition" / "notebooks").glob("*.ipynb"))
