"""How colours look to readers with each common colour vision, for the figures' tests.

Machado, Oliveira & Fernandes (2009), severity 1.0, applied to linear RGB (as colorspacious does);
colours compared in CIELAB (D65), where a difference (Delta E, CIE 1976) of 15 is seen at a glance.
"""

import matplotlib as mpl
import numpy as np

MACHADO = {
    "protanopia": [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ],
    "deuteranopia": [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ],
    "tritanopia": [
        [1.255528, -0.076749, -0.178779],
        [-0.078411, 0.930809, 0.147602],
        [0.004733, 0.691367, 0.303900],
    ],
}
VISIONS = [None, *sorted(MACHADO)]  # None: typical colour vision


def linear_rgb(colours):
    """Linear RGB of any matplotlib colours (names or hex), one row each."""
    srgb = np.array([mpl.colors.to_rgb(c) for c in colours])
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def lab_as_seen(colours, vision=None):
    """CIELAB (D65) of `colours` as a reader with `vision` (None: typical) sees them, one row each."""
    linear = linear_rgb(colours)
    if vision:
        linear = np.clip(linear @ np.array(MACHADO[vision]).T, 0, 1)
    m = [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
    xyz = linear @ np.array(m).T / [0.95047, 1.0, 1.08883]
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def apart(a, b, vision=None):
    """Delta E (CIE 1976) between two colours as a reader with `vision` sees them."""
    seen = lab_as_seen([a, b], vision)
    return float(np.linalg.norm(seen[0] - seen[1]))


def contrast(a, b):
    """WCAG contrast ratio of two colours."""
    la, lb = linear_rgb([a, b]) @ np.array([0.2126, 0.7152, 0.0722])
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
