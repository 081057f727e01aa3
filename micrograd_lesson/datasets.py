"""Small classification data sets: generated in code (NumPy only, seeded), and one real one.

Binary labels are -1 and +1, the form the max-margin (hinge) loss wants;
`(y + 1) // 2` turns them into 0 and 1.
"""

from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data"


def four_examples():
    """Four 3-input examples and their targets [1, -1, -1, 1]."""
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    return xs, ys


def xor():
    """The four corners of the unit square; the label is +1 when exactly one coordinate is 1."""
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([-1, 1, 1, -1])
    return X, y


def make_moons(n_samples=100, noise=0.1, seed=0):
    """Two interleaved half circles, `n_samples` points in all, with Gaussian noise."""
    _check_positive("n_samples", n_samples, minimum=2)
    rng = np.random.default_rng(seed)
    n_top = n_samples // 2
    n_bottom = n_samples - n_top
    t_top = np.linspace(0, np.pi, n_top)
    t_bottom = np.linspace(0, np.pi, n_bottom)
    top = np.column_stack([np.cos(t_top), np.sin(t_top)])
    bottom = np.column_stack([1 - np.cos(t_bottom), 0.5 - np.sin(t_bottom)])
    X = np.vstack([top, bottom]) + rng.normal(scale=noise, size=(n_samples, 2))
    y = np.concatenate([-np.ones(n_top, dtype=int), np.ones(n_bottom, dtype=int)])
    order = rng.permutation(n_samples)
    return X[order], y[order]


def make_spiral(n_per_class=50, n_classes=2, noise=0.2, seed=0):
    """`n_classes` arms of a spiral; labels 0 .. n_classes-1 (or -1/+1 for two arms)."""
    _check_positive("n_per_class", n_per_class)
    _check_positive("n_classes", n_classes, minimum=2)
    rng = np.random.default_rng(seed)
    X, y = [], []
    for k in range(n_classes):
        r = np.linspace(0.05, 1.0, n_per_class)
        theta = np.linspace(0, 4, n_per_class) + 2 * np.pi * k / n_classes
        theta = theta + rng.normal(scale=noise, size=n_per_class)
        X.append(np.column_stack([r * np.sin(theta), r * np.cos(theta)]))
        y.append(np.full(n_per_class, k))
    X, y = np.vstack(X), np.concatenate(y)
    if n_classes == 2:
        y = 2 * y - 1
    return X, y


def load_digits():
    """1,797 handwritten digits shipped with the package (UCI, CC BY 4.0; see data/README.md).

    Returns X of shape (1797, 64), each row an 8 x 8 image read row by row with pixel
    values 0..16 (as floats), and y of shape (1797,), the digits 0..9 (ints).
    """
    with np.load(DATA / "digits.npz") as f:
        images, labels = f["images"], f["labels"]
    return images.reshape(len(images), 64).astype(np.float64), labels.astype(np.int64)


def _check_positive(name, value, minimum=1):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
