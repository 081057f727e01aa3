# The two commands a fresh machine needs: `make lab` and `make test`.
# The course supports Python 3.11 to 3.13: `make test PYTHON=python3.13` uses another one
# (and remakes .venv with it); VENV=.venv313 keeps one environment per Python side by side.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Installs into one .venv, each on top of the one before: what a learner needs (make lab;
# requirements.txt), what the site needs (make html, make serve; requirements-site.txt), then the
# developer's tools (make test and the other developer targets; requirements-dev.txt).
# UV=path/to/uv installs with uv's pip instead of pip (the same pins, several times faster;
# CI uses it). Without it, pip.
PIP_INSTALL = $(if $(UV),$(UV) pip install --compile-bytecode --python $(BIN)/python,$(BIN)/python -m pip install)
LEARNER_SET := $(VENV)/.installed
SITE_SET := $(VENV)/.installed-site
MADE   := $(VENV)/.made-by-micrograd-lesson
READY  := $(VENV)/.installed-dev
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
SUPPORTED := 3.11 3.12 3.13

.PHONY: lab test lint unit notebooks execute bench clean check-dot check-npm venv test-browser html wheel test-wheel student grade serve export-otter export-nbgrader

# A .venv is remade from scratch when its Python no longer runs (the system Python it was
# made from went away), when an install into it stopped half way (no $(READY)), or when
# PYTHON=... names another version than the one that made it.
version = $(shell $(1) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
ifneq ($(wildcard $(VENV)),)
  VENV_VERSION := $(call version,$(BIN)/python)
  ifneq ($(origin PYTHON),default)
    ifneq ($(origin PYTHON),file)
      WANTED := $(call version,$(PYTHON))
    endif
  endif
  MISMATCH := $(if $(WANTED),$(if $(filter $(WANTED),$(VENV_VERSION)),,it was made by Python $(VENV_VERSION), not $(WANTED)))
  STALE := $(if $(VENV_VERSION),$(if $(wildcard $(LEARNER_SET)),$(MISMATCH),an install into it did not finish),its Python does not run)
endif

# Create .venv with pip and install the package and what a learner needs, at the pinned versions.
$(LEARNER_SET): pyproject.toml requirements.txt $(if $(STALE),remake-venv)
	@v=$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || { \
	  echo "$(PYTHON) does not run; make PYTHON=python3.11 (or 3.12, 3.13) names one that does"; exit 1; }; \
	case " $(SUPPORTED) " in *" $$v "*) ;; *) \
	  echo "$(PYTHON) is Python $$v; the course supports $(SUPPORTED): make ... PYTHON=python3.12 picks one"; \
	  test "$$(printf '%s\n' "$$v" 3.11 | sort -V | head -1)" = 3.11 || exit 1;; esac
	test -x $(BIN)/python || { $(PYTHON) -m venv $(VENV) && echo "made by micrograd-lesson's Makefile" > $(MADE); }
	@echo "Installing the course's packages into $(VENV) (NumPy, Matplotlib, JupyterLab...: about 430 MB,"
	@echo "a few minutes the first time; pip lists each package as it goes)"
	$(if $(UV),,$(BIN)/python -m pip install --quiet --upgrade pip)
	$(PIP_INSTALL) -r requirements.txt -e .
	touch $@

# What the course site needs on top (make html): MathJax, and setuptools to build the wheel it offers.
$(SITE_SET): $(LEARNER_SET) requirements-site.txt
	@echo "Installing what the course site needs into $(VENV) (MathJax, setuptools)"
	$(PIP_INSTALL) -r requirements-site.txt
	touch $@

# The developer's tools on top: tests, lint, the browser test, the wheel build.
$(READY): $(SITE_SET) requirements-dev.txt
	@echo "Installing the developer's tools into $(VENV) (pytest, ruff, Playwright, build...)"
	$(PIP_INSTALL) -r requirements-dev.txt
	touch $@

# No "get news?" pop-up in JupyterLab: the environment's default settings say no news.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
$(LAB_SETTINGS): $(LEARNER_SET)
	@mkdir -p $(dir $@)
	@echo '{"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}}' > $@

# The Makefile removes an environment only if it made it: it writes $(MADE) when it creates one.
# Anything else at $(VENV) (your own environment, a folder of files) is left as it is, and make stops
# and says what it found.
.PHONY: remake-venv
remake-venv:
	@if test -f $(MADE); then \
	  echo "$(VENV) is stale ($(STALE)): making it again with $(PYTHON)"; rm -rf $(VENV); \
	else \
	  echo "$(VENV) is not an environment this Makefile made (it has no $(notdir $(MADE)) marker), and $(STALE)."; \
	  echo "Nothing was removed. Either:"; \
	  echo "  - name a new folder for the course's environment: make ... VENV=.venv-course"; \
	  echo "  - or install the course into this one yourself, after which make uses it as it is:"; \
	  echo "      $(BIN)/python -m pip install -r requirements.txt -r requirements-dev.txt -e ."; \
	  echo "      touch $(LEARNER_SET) $(SITE_SET) $(READY)"; \
	  exit 2; \
	fi

venv: $(READY)

check-dot:
	@command -v dot >/dev/null 2>&1 || { \
	  echo "Graphviz's 'dot' program is not on PATH; the course draws computation graphs with it."; \
	  echo "Install it, then run make again:"; \
	  echo "  Debian/Ubuntu: sudo apt-get install graphviz"; \
	  echo "  macOS:         brew install graphviz"; \
	  echo "  conda:         conda install -c conda-forge python-graphviz"; \
	  echo "  Windows:       winget install graphviz   (then reopen the terminal)"; \
	  exit 1; }

# Open the course in JupyterLab at chapter 0. Trusting the notebooks lets stored graphs (SVG) show at once.
# The URL JupyterLab prints opens chapter 0 too (its default page), for a browser on another machine.
# jupyter-config/ holds the server's config: saving a notebook keeps its stored kernelspec and
# language_info, so opening a chapter on another Python leaves the file as it is.
FIRST := 00_python_you_need.ipynb
lab: $(LEARNER_SET) $(LAB_SETTINGS) check-dot
	@$(BIN)/jupyter trust notebooks/*.ipynb >/dev/null
	@echo "Starting JupyterLab on the course (chapter 0 first); Ctrl-C twice stops it"
	cd notebooks && JUPYTER_CONFIG_PATH="$(CURDIR)/jupyter-config$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	  ../$(BIN)/jupyter lab $(LAB_DEFAULTS) $(LAB_ARGS) --LabApp.default_url=/lab/tree/$(FIRST)

# Jupyter refuses to run as root (containers, some hosted machines) unless told it may.
# Kernels talk over local sockets (ipc) rather than TCP where the system has them: no
# "running over TCP without encryption" warning, and nothing listens on a port.
# LAB_ARGS adds your own options to these (make lab LAB_ARGS=--port=8899).
LAB_DEFAULTS := $(if $(filter 0,$(shell id -u)),--allow-root) $(if $(filter Windows_NT,$(OS)),,--KernelManager.transport=ipc)
LAB_ARGS ?=

# The tests run in parallel (pytest-xdist), JOBS processes: auto is one per core, JOBS=0 runs
# them serially in one process. Each test file and each notebook runs whole in one process
# (--dist loadfile): a notebook's cells share one kernel, a module's fixtures are built once.
# pytest's status 5 (no test selected, e.g. SLOW_CLAIMS=0 when no claims test is slow) is no failure.
JOBS ?= auto
PARALLEL = $(if $(filter 0,$(JOBS)),,-n $(JOBS) --dist loadfile)
PYTEST = $(BIN)/python -m pytest
NO_TESTS_IS_FINE = || test $$? -eq 5

# Everything CI checks: lint, every test (the slow ones too), strict nbval over every notebook.
# Two switches leave parts out:
#   NOTEBOOKS=0    leaves out the notebooks (CI, on 3.13, where make test-wheel checks them);
#   SLOW_CLAIMS=0  leaves out the slow claims re-runs (a quicker check on another Python).
test: $(READY) check-dot lint
	$(PYTEST) $(PARALLEL) tests $(if $(filter 0,$(NOTEBOOKS)),,notebooks/*.ipynb $(NBVAL)) \
	  $(if $(filter 0,$(SLOW_CLAIMS)),-m "not (slow and claim)") --durations=15 $(NO_TESTS_IS_FINE)

# The package as a wheel, in dist/ (what an instructor hosts for learners outside the repository).
wheel: $(READY)
	rm -rf dist
	$(BIN)/python -m build --wheel --outdir dist . >/dev/null
	@ls dist/*.whl

# The notebooks outside the repository: the wheel installed in a fresh environment, the
# notebooks copied to a temporary folder, strict nbval there (tests/outside/run.py).
test-wheel: wheel check-dot
	$(BIN)/python tests/outside/run.py dist/*.whl --jobs $(JOBS)

lint: $(READY)
	$(BIN)/ruff check micrograd_lesson tests notebooks website instructor jupyter-config
	$(BIN)/ruff format --check micrograd_lesson tests notebooks/src website instructor jupyter-config

# The loop to run after each edit: lint and every fast test (no test marked slow, none over
# about 2 s; no notebook). make test runs the slow ones and the notebooks too.
unit: $(READY) lint
	$(PYTEST) $(PARALLEL) tests -m "not slow" $(NO_TESTS_IS_FINE)

# Strict nbval on notebooks only (in parallel); NB=03 checks one chapter (in this process).
notebooks: $(READY) check-dot
	$(PYTEST) $(if $(NB),,$(PARALLEL)) notebooks/$(or $(NB),)*.ipynb $(NBVAL)

# Rebuild notebooks from notebooks/src, run them in place and normalise them; NB=03 for one.
execute: $(READY) check-dot
	$(BIN)/python notebooks/src/build.py $(NB)

# The course in a real browser: JupyterLab and Chromium (/usr/bin/chromium, or CHROMIUM=...),
# driven by Playwright; screenshots in build/browser/. Checks the site too, so it builds it first.
CHROMIUM ?= /usr/bin/chromium
test-browser: $(READY) check-dot html
	$(BIN)/python tests/browser/run.py --chromium $(CHROMIUM)

# The course as a static web site, build/html/index.html: every chapter with its stored outputs.
# Installs only what the site needs (no developer's tools), and needs npm (check-npm).
html: $(SITE_SET) check-npm
	$(BIN)/python website/build.py

# npm installs, at the versions website/package-lock.json pins, what the site copies in: the
# playground's Python (Pyodide) and Graphviz, and Pagefind, which builds the search index.
# Not needed again once website/node_modules is installed.
check-npm:
	@test -f website/node_modules/.package-lock.json || command -v npm >/dev/null 2>&1 || { \
	  echo "make html needs npm (Node.js): it installs the playground's Python (Pyodide) and Graphviz,"; \
	  echo "and Pagefind, which builds the site's search index, at the versions website/package-lock.json pins."; \
	  echo "Install it, then run make again:"; \
	  echo "  Debian/Ubuntu: sudo apt-get install npm"; \
	  echo "  macOS:         brew install node"; \
	  echo "  Windows:       winget install OpenJS.NodeJS.LTS   (then reopen the terminal)"; \
	  exit 1; }

# For instructors: the student edition (no worked solutions) in build/student/, and grading.
student: $(READY)
	$(BIN)/python instructor/student.py

# make grade SUBMISSIONS=folder: one sub-folder per learner; grades.csv and feedback/ in build/grades/
# (OUT=folder), [POINTS=points.toml] [LEARNER=ada] [CHAPTER=07] [CELL_TIMEOUT= NOTEBOOK_TIMEOUT= CHECK_TIMEOUT=]
# in seconds, [REVEAL_CASES=1], [JOBS=N] notebooks side by side (default: one per core), [UNSAFE=1] without
# the bwrap sandbox (instructor/README.md). Exit status 1: graded, but see the layout report; 2: nothing graded.
grade: $(READY)
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=<folder with one sub-folder per learner> [POINTS=points.toml] [LEARNER=name] [CHAPTER=NN] [OUT=folder]"; exit 2; }
	$(BIN)/python instructor/grade.py "$(SUBMISSIONS)" $(if $(OUT),--out "$(OUT)") $(if $(POINTS),--points "$(POINTS)") \
	  $(if $(LEARNER),--learner "$(LEARNER)") $(if $(CHAPTER),--chapter "$(CHAPTER)") \
	  $(if $(CELL_TIMEOUT),--cell-timeout $(CELL_TIMEOUT)) $(if $(NOTEBOOK_TIMEOUT),--notebook-timeout $(NOTEBOOK_TIMEOUT)) \
	  $(if $(CHECK_TIMEOUT),--check-timeout $(CHECK_TIMEOUT)) $(if $(REVEAL_CASES),--reveal-cases) \
	  $(if $(filter-out auto,$(JOBS)),--jobs $(JOBS)) $(if $(UNSAFE),--unsafe)

# For instructors who grade elsewhere: the exercises as an otter-grader assignment (Gradescope) or an
# nbgrader course (JupyterHub), in build/export/otter/ or build/export/nbgrader/ (OUT=folder,
# CHAPTER=NN, POINTS=points.toml; instructor/README.md). otter-grader, which makes autograder.zip,
# goes into a venv of its own, $(EXPORT_VENV) (requirements-export.txt), never into $(VENV).
EXPORT_VENV ?= build/export-venv
EXPORT_ARGS = $(if $(OUT),--out "$(OUT)") $(if $(CHAPTER),--chapter "$(CHAPTER)") $(if $(POINTS),--points "$(POINTS)")
$(EXPORT_VENV)/.ready: requirements.txt requirements-export.txt
	$(PYTHON) -m venv $(EXPORT_VENV)
	$(EXPORT_VENV)/bin/python -m pip install --quiet -r requirements.txt -r requirements-export.txt
	touch $@

export-otter: $(EXPORT_VENV)/.ready
	$(EXPORT_VENV)/bin/python instructor/export.py otter $(EXPORT_ARGS)

export-nbgrader: $(READY)
	$(BIN)/python instructor/export.py nbgrader $(EXPORT_ARGS)

bench: $(READY)
	$(BIN)/python -m pip install --quiet micrograd==0.1.0
	$(BIN)/python benchmarks/bench.py
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python benchmarks/bench_tensor.py
	$(BIN)/python benchmarks/bench_baseline.py  # the tensor engine against the commit before the one backward walk
	$(BIN)/python website/build.py  # the playground, for its training step in Chromium against CPython
	$(BIN)/python benchmarks/bench_playground.py --chromium $(CHROMIUM)

clean:
	@if test -f $(MADE) || ! test -e $(VENV); then rm -rf $(VENV); else echo "left $(VENV) as it is: this Makefile did not make it"; fi
	rm -rf build dist *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# The course site on http://127.0.0.1:8000/ (the playground's WebAssembly does not load from file://).
serve: html
	@echo "the course site: http://127.0.0.1:$(PORT)/  (playground: http://127.0.0.1:$(PORT)/playground.html); Ctrl-C stops it"
	$(BIN)/python -m http.server $(PORT) --bind 127.0.0.1 --directory build/html
PORT ?= 8000
