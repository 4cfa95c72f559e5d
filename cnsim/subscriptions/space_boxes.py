"""The index over d-dimensional box subscriptions in the subscription space S = R^{2d}
(seed 003 §IV-C; ``[subscriptions] kind = "box"``): the k-d tree of
:class:`~cnsim.subscriptions.index.SubscriptionIndex` with the boxes' sides.

A subscription ``[l_1, r_1] × … × [l_d, r_d]`` is the point ``(l_1, r_1, …, l_d, r_d)``
(column ``2t`` is ``l_t``, ``2t+1`` is ``r_t``). A message box is ``4d`` values, per
attribute ``(lO, lI, rI, rO)``: read as 2d pairs in the points' column order,
``(lO, lI)`` bounds the lower bound ``l_t`` (``lO < l_t <= lI``) and ``(rI, rO)`` the
upper bound ``r_t`` (``rI <= r_t < rO``) — the 1-d rule of
:mod:`cnsim.subscriptions.space` once per attribute, and the per-dimension kinds
:mod:`cnsim.brokers.zones` takes as data (``lower_open``, declared by the box kind,
:mod:`cnsim.subscriptions.kinds.box`), with the ordered pairs ``l_t <= r_t`` where
joining brokers draw their points. Besides reporting and ``snap`` (here ``(count,
lows, highs)``), the index answers ``snap_many`` (many boxes in one call) and
``holds_any`` (a snap that stops at the first subscription); ``tree`` hands its
columnar arrays to kernels that ask it from inside numba (:func:`any_in_box`,
:func:`report_upto`: the pruned partition of Paint-Sparse,
:mod:`cnsim.algorithms.boxes._partition_nb`).
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim import kdtree
from cnsim.errors import InputError
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.index import closed_box as _closed_box


class BoxSubscriptions(SubscriptionIndex):
    """Box subscriptions ``[l, r]`` (each (m, d)) indexed in S = R^{2d}."""

    def __init__(self, l: np.ndarray, r: np.ndarray):
        l = np.asarray(l, np.float64)
        r = np.asarray(r, np.float64)
        if l.ndim == 1:
            l, r = l.reshape(-1, 1), r.reshape(-1, 1)
        if l.shape != r.shape or l.ndim != 2:
            raise InputError(
                f"subscriptions: l and r must both be (m, d), got {l.shape}, {r.shape}"
            )
        if np.isnan(l).any() or np.isnan(r).any():
            raise InputError("subscriptions: l and r must not contain NaN")
        if (l > r).any():
            j, t = np.argwhere(l > r)[0]
            raise InputError(
                f"subscription {j}: l_{t + 1} = {l[j, t]} > r_{t + 1} = {r[j, t]}; "
                "each side must have l <= r"
            )
        self.d = l.shape[1]
        super().__init__(*(c for t in range(self.d) for c in (l[:, t], r[:, t])),
                         lower_open=_sides(2 * self.d))  # fmt: skip
        self.l, self.r = np.ascontiguousarray(l), np.ascontiguousarray(r)  # (m, d) each

    @property
    def index(self) -> BoxSubscriptions:
        """The index the box approaches ask (the subscriptions are their own index)."""
        return self

    def snap(self, box: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        """``(count, lows, highs)`` of the subscriptions inside ``box``: their number and
        the per-axis minima and maxima (count 0: the empty box)."""
        t = self._t
        acc = self._k.snap(t.start, t.end, t.leaf, t.box, t.pts,
                           np.ascontiguousarray(box, np.float64))  # fmt: skip
        return int(acc[0]), acc[1::2].copy(), acc[2::2].copy()

    def snap_many(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`snap` of each box (shape (M, 4d)): counts (M,), lows and highs (M, 2d)."""
        t = self._t
        boxes = np.ascontiguousarray(boxes, np.float64).reshape(-1, 2 * self.dims)
        acc = self._k.snap_many(t.start, t.end, t.leaf, t.box, t.pts, boxes)
        return acc[:, 0].astype(np.int64), acc[:, 1::2], acc[:, 2::2]

    def holds_any(self, box: np.ndarray) -> bool:
        """Whether ``box`` (4d,) reaches at least one subscription (``snap``'s count > 0)."""
        return bool(any_in_box(*self.tree(), np.ascontiguousarray(box, np.float64)))

    def tree(self) -> tuple[np.ndarray, ...]:
        """The k-d tree's columnar arrays ``(start, end, leaf, box, pts)``, in the argument
        order of :func:`any_in_box`."""
        t = self._t
        return t.start, t.end, t.leaf, t.box, t.pts

    def nbytes(self) -> int:
        """Bytes of the index (points, permutation, nodes) and the sides."""
        return super().nbytes() + self.l.nbytes + self.r.nbytes


def _sides(D: int) -> np.ndarray:
    return np.arange(D) % 2 == 0  # l_t: lower-open, r_t: closed


@numba.njit(cache=True)
def any_in_box(start, end, leaf, box, pts, q):
    """Whether message box ``q`` reaches a subscription of the tree ``(start, end,
    leaf, box, pts)`` (:meth:`BoxSubscriptions.tree`): :func:`report_upto` stopping
    at the first subscription found."""
    return report_upto(start, end, leaf, box, pts, q, 0, np.empty(1, np.int64)) > 0


# report_upto compiled for boxes over d = 1, 2, 3 attributes (D = 2d fixed); other d
# read D at run time
_upto_2 = kdtree.box_kernels(tuple(_sides(2))).report_upto
_upto_4 = kdtree.box_kernels(tuple(_sides(4))).report_upto
_upto_6 = kdtree.box_kernels(tuple(_sides(6))).report_upto


@numba.njit(cache=True)
def report_upto(start, end, leaf, box, pts, q, limit, out):
    """Positions (rows of ``pts``) of the subscriptions message box ``q`` reaches, written
    to ``out[:count]``, stopping once more than ``limit`` are found (then ``count`` is
    ``limit + 1`` and ``out`` holds some of them): :func:`cnsim.kdtree.report_upto`."""
    D = pts.shape[1]
    if D == 4:
        return _upto_4(start, end, leaf, box, pts, q, limit, out)
    if D == 2:
        return _upto_2(start, end, leaf, box, pts, q, limit, out)
    if D == 6:
        return _upto_6(start, end, leaf, box, pts, q, limit, out)
    sides = np.arange(D) % 2 == 0
    return kdtree.report_upto(start, end, leaf, box, pts, sides, q, limit, out)


def reaches_np(box: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Which subscription points ``pts`` (m, 2d) box ``box`` (4d,) reaches (brute force)."""
    return kdtree.reaches_np(box, pts, _sides(pts.shape[1]))


def closed_box(lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
    """The message box reaching exactly the points of the closed box ``[lows, highs]``
    of S (per axis ``2t``: l_t, ``2t+1``: r_t)."""
    return np.array(_closed_box(lows, highs, _sides(len(lows))))


def reach_boxes(xd: np.ndarray) -> np.ndarray:
    """Message boxes (M, 4d) reaching every subscription whose box holds the point
    ``xd[j]``: per attribute ``(−inf, x_t, x_t, inf)`` (``l_t <= x_t <= r_t``)."""
    xd = np.asarray(xd, np.float64).reshape(len(xd), -1)
    out = np.empty((len(xd), 4 * xd.shape[1]))
    out[:, 0::4], out[:, 1::4], out[:, 2::4], out[:, 3::4] = -np.inf, xd, xd, np.inf
    return out
