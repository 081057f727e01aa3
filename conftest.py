"""nbval settings for the course notebooks (notebooks/*.ipynb).

Graphviz lays out SVG slightly differently from one version to the next, so
stored SVG drawings are not compared; the DOT source behind them is tested for
determinism in tests/test_draw.py, and every text output is still compared.
"""


def pytest_collectstart(collector):
    if collector.fspath and collector.fspath.ext == ".ipynb":
        collector.skip_compare += ("image/svg+xml",)
