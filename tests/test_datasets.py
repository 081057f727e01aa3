"""The data sets: shapes, labels, reproducible seeds, and clear errors for bad input."""

import numpy as np
import pytest

from micrograd_lesson import four_examples, load_digits, make_moons, make_spiral, xor


def test_four_examples_are_the_lecture_examples():
    xs, ys = four_examples()
    assert len(xs) == 4 and all(len(x) == 3 for x in xs)
    assert ys == [1.0, -1.0, -1.0, 1.0]
    assert xs[0] == [2.0, 3.0, -1.0]


def test_four_examples_returns_fresh_lists():
    xs, ys = four_examples()
    xs[0][0] = 99.0
    ys.append(5.0)
    assert four_examples() == (
        [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]],
        [1.0, -1.0, -1.0, 1.0],
    )


def test_xor_labels_are_plus_one_when_exactly_one_input_is_one():
    X, y = xor()
    assert X.shape == (4, 2) and y.shape == (4,)
    for (a, b), label in zip(X, y):
        assert label == (1 if (a == 1) != (b == 1) else -1)


@pytest.mark.parametrize("n", [2, 3, 100, 101])
def test_moons_shapes_and_balanced_labels(n):
    X, y = make_moons(n, noise=0.1, seed=0)
    assert X.shape == (n, 2) and y.shape == (n,)
    assert X.dtype == float and np.all(np.isfinite(X))
    assert set(np.unique(y)) == {-1, 1}
    assert np.sum(y == -1) == n // 2 and np.sum(y == 1) == n - n // 2


def test_moons_without_noise_lie_on_the_two_arcs():
    X, y = make_moons(50, noise=0.0, seed=3)
    upper, lower = X[y == -1], X[y == 1]
    assert np.allclose(np.hypot(upper[:, 0], upper[:, 1]), 1.0)  # circle around (0, 0)
    assert np.allclose(np.hypot(lower[:, 0] - 1.0, lower[:, 1] - 0.5), 1.0)  # circle around (1, 0.5)
    assert np.all(upper[:, 1] >= -1e-12)  # the top half of its circle
    assert np.all(lower[:, 1] <= 0.5 + 1e-12)  # the bottom half of its circle


def test_moons_noise_moves_points_by_about_its_size():
    X0, y0 = make_moons(400, noise=0.0, seed=1)
    X1, y1 = make_moons(400, noise=0.1, seed=1)
    assert np.array_equal(y0, y1)  # the same seed shuffles the same way
    spread = np.std(X1 - X0)
    assert 0.08 < spread < 0.12


def test_moons_are_shuffled():
    _, y = make_moons(100, noise=0.1, seed=0)
    assert not (np.all(y[:50] == -1) and np.all(y[50:] == 1))


@pytest.mark.parametrize(
    "make", [lambda s: make_moons(60, noise=0.2, seed=s), lambda s: make_spiral(30, seed=s)]
)
def test_same_seed_same_data_different_seed_different_data(make):
    Xa, ya = make(7)
    Xb, yb = make(7)
    Xc, _ = make(8)
    assert np.array_equal(Xa, Xb) and np.array_equal(ya, yb)
    assert not np.allclose(Xa, Xc)


def test_seeded_moons_do_not_touch_numpys_global_random_state():
    np.random.seed(123)
    expected = np.random.rand()
    np.random.seed(123)
    make_moons(100, noise=0.1, seed=5)
    assert np.random.rand() == expected


def test_two_arm_spiral_uses_minus_one_and_plus_one():
    X, y = make_spiral(40, n_classes=2, seed=0)
    assert X.shape == (80, 2) and y.shape == (80,)
    assert set(np.unique(y)) == {-1, 1}
    assert np.sum(y == -1) == np.sum(y == 1) == 40


def test_three_arm_spiral_uses_class_numbers():
    X, y = make_spiral(25, n_classes=3, seed=0)
    assert X.shape == (75, 2)
    assert sorted(set(y.tolist())) == [0, 1, 2]
    assert np.all(np.hypot(*X.T) <= 1.0 + 5 * 0.2)  # radius at most 1 (noise moves only the angle)


def test_spiral_radius_grows_along_each_arm():
    X, y = make_spiral(50, n_classes=2, noise=0.0, seed=0)
    r = np.hypot(*X[y == -1].T)
    assert np.all(np.diff(r) > 0)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: make_moons(1), "n_samples"),
        (lambda: make_moons(0), "n_samples"),
        (lambda: make_moons(-5), "n_samples"),
        (lambda: make_moons(10.5), "n_samples"),
        (lambda: make_moons("100"), "n_samples"),
        (lambda: make_moons(True), "n_samples"),
        (lambda: make_spiral(0), "n_per_class"),
        (lambda: make_spiral(10, n_classes=1), "n_classes"),
        (lambda: make_spiral(10, n_classes=2.0), "n_classes"),
    ],
)
def test_bad_sizes_raise_a_clear_error(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_numpy_integers_are_accepted_as_sizes():
    X, _ = make_moons(np.int64(10), seed=0)
    assert X.shape == (10, 2)


def test_digits_are_the_1797_uci_images_with_balanced_labels():
    X, y = load_digits()
    assert X.shape == (1797, 64) and X.dtype == np.float64
    assert y.shape == (1797,) and set(y.tolist()) == set(range(10))
    assert X.min() == 0 and X.max() == 16 and np.all(X == np.round(X))  # counts of on-pixels, 0..16
    assert np.bincount(y).min() >= 170  # about 180 of each digit


def test_digits_look_like_digits():
    """A zero is a ring: its mean image is dark in the middle and bright around it."""
    X, y = load_digits()
    zero = X[y == 0].mean(axis=0).reshape(8, 8)
    assert zero[3:5, 3:5].mean() < 2  # the hole
    assert zero[3:5, 2].mean() > 8 and zero[3:5, 5].mean() > 8  # the left and right sides of the ring
    assert zero[0, 3:5].mean() > 8 and zero[7, 3:5].mean() > 8  # its top and bottom
