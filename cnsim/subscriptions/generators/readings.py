"""Readings of seed 003's "the subscriptions are uniformly distributed in S" (S = {(l, r):
l <= r}) and the probability mass, under each, of a message rectangle of S:

* ``triangle``: uniform over the half-square (the same as two uniform endpoints, sorted);
  density 2 — cnsim's ``uniform``;
* ``length``: a uniform length w, then l uniform in [0, 1 - w]; density 1 / (1 - (r - l));
* ``left``: l uniform, then r uniform in [l, 1]; density 1 / (1 - l).
"""

from __future__ import annotations

import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.generators.checks import check_choice, check_int, check_rng, short_repr
from cnsim.subscriptions.workload import generate_subscriptions

READINGS = ("triangle", "length", "left")


def _h(t: np.ndarray) -> np.ndarray:
    # A second antiderivative of 1 / (1 - t) (the ``length`` density along r - l = t).
    s = np.clip(1.0 - t, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, s * np.log(np.where(s > 0, s, 1.0)), 0.0) + t


def mass(rects: np.ndarray, reading: str) -> np.ndarray:
    """Probability that a subscription drawn by ``reading`` lies in each rectangle
    ``(lO, lI, rI, rO)`` (shape (M, 4)) of S; the rectangles must have ``lI <= rI``
    (every Paint and CN-Relax message does: its ranges contain the object's x).
    ``reading``: one of :data:`READINGS`, else ``InputError``."""
    check_choice("reading", reading, READINGS)
    try:
        rects = np.asarray(rects, np.float64).reshape(-1, 4)
    except (TypeError, ValueError) as e:
        raise InputError(f"rects = {short_repr(rects)}; allowed: numbers of shape (M, 4) "
                         f"({e})") from None  # fmt: skip
    a = np.clip(rects[:, 0], 0.0, 1.0)
    b = np.clip(rects[:, 1], 0.0, 1.0)
    c = np.clip(rects[:, 2], 0.0, 1.0)
    d = np.clip(rects[:, 3], 0.0, 1.0)
    empty = (b <= a) | (d <= c)
    if reading == "triangle":
        out = 2.0 * (b - a) * (d - c)
    elif reading == "length":
        out = _h(d - a) - _h(c - a) - _h(d - b) + _h(c - b)
    else:  # "left"
        with np.errstate(divide="ignore"):
            out = (d - c) * (np.log1p(-a) - np.log1p(-np.minimum(b, np.nextafter(1.0, 0))))
    return np.where(empty, 0.0, np.maximum(out, 0.0))


def draw_subscriptions(rng: np.random.Generator, m: int, reading: str):
    """``m`` subscriptions ``(l, r)`` drawn by ``reading`` (for checking :func:`mass`);
    ``m``: an integer in 0..``MAX_COUNT``; ``rng``: a ``numpy.random.Generator``;
    ``reading``: one of :data:`READINGS`."""
    check_rng("rng", rng)
    m = check_int("m", m)
    check_choice("reading", reading, READINGS)
    if reading == "triangle":
        return generate_subscriptions(rng, m, "uniform")
    if reading == "length":
        w = rng.random(m)
        l = rng.random(m) * (1.0 - w)
        return l, l + w
    l = rng.random(m)  # "left"
    return l, l + rng.random(m) * (1.0 - l)
