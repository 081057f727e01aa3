"""What installs the course agrees with itself: the supported Pythons, conda and pip alike."""

import re
from pathlib import Path

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
