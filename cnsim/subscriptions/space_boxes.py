"""The run's index over d-dimensional box subscriptions (seed 003 §IV-C;
``[subscriptions] kind = "box"``): :class:`~cnsim.subscriptions.index_box.SubscriptionIndexBox`
with the interface a run's networks read (the ideal CN, Meghdoot over a D-dimensional
S), as :class:`~cnsim.subscriptions.index_3d.SubscriptionIndex3D` has it for 1.5-d.

S = R^{2d}: a subscription is the point ``(l_1, r_1, …, l_d, r_d)``. A message box is
``4d`` values, per attribute ``(lO, lI, rI, rO)``: read as 2d pairs in the points'
column order, ``(lO, lI)`` bounds the lower bound ``l_t`` (``lO < l_t <= lI``) and
``(rI, rO)`` the upper bound ``r_t`` (``rI <= r_t < rO``) — the per-dimension kinds
:mod:`cnsim.brokers.zones` takes as data (``lower_open``, declared by the box kind,
:mod:`cnsim.subscriptions.kinds.box`), with the ordered pairs ``l_t <= r_t`` where
joining brokers draw their points.
"""

from __future__ import annotations

import numpy as np

from cnsim.subscriptions.index_box import SubscriptionIndexBox


class BoxSubscriptions:
    """Box subscriptions ``[l, r]`` (each (m, d)) indexed in S = R^{2d}."""

    def __init__(self, l: np.ndarray, r: np.ndarray):
        self.index = SubscriptionIndexBox(l, r)  # validates shapes and l <= r
        self.d = self.index.d
        self.l = np.ascontiguousarray(np.asarray(l, np.float64).reshape(-1, self.d))
        self.r = np.ascontiguousarray(np.asarray(r, np.float64).reshape(-1, self.d))
        self._position = np.empty(len(self.l), np.int64)  # id -> position in ``order``
        self._position[self.index.perm] = np.arange(len(self.l))

    def __len__(self) -> int:
        return len(self.l)

    @property
    def dims(self) -> int:
        """Dimensions D = 2d of S."""
        return 2 * self.d

    @property
    def points(self) -> tuple[np.ndarray, ...]:
        """The subscription points' coordinates ``(l_1, r_1, …, l_d, r_d)``."""
        return tuple(self.index.points[:, a] for a in range(self.dims))

    @property
    def order(self) -> np.ndarray:
        """The subscription at every position of the index (leaf by leaf)."""
        return self.index.perm

    def report(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Subscriptions inside each box (shape (M, 4d)) as CSR ``(offsets, ids)``."""
        return self.index.report(boxes)

    def report_positions(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`report`, with index positions (``order[pos]`` are the ids)."""
        offsets, ids = self.index.report(boxes)
        return offsets, self._position[ids]

    def snap(self, box: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        """The index's ``snap`` (count, lows, highs); callers count their snaps."""
        return self.index.snap(box)

    def nbytes(self) -> int:
        """Bytes of the index (points, permutation, nodes) and the sides."""
        ix = self.index
        arrays = (ix.points, ix.perm, ix._pts, ix._start, ix._end, ix._leaf, ix._box,
                  self.l, self.r, self._position)  # fmt: skip
        return sum(a.nbytes for a in arrays)


def reach_boxes(xd: np.ndarray) -> np.ndarray:
    """Message boxes (M, 4d) reaching every subscription whose box holds the point
    ``xd[j]``: per attribute ``(−inf, x_t, x_t, inf)`` (``l_t <= x_t <= r_t``)."""
    xd = np.asarray(xd, np.float64).reshape(len(xd), -1)
    out = np.empty((len(xd), 4 * xd.shape[1]))
    out[:, 0::4], out[:, 1::4], out[:, 2::4], out[:, 3::4] = -np.inf, xd, xd, np.inf
    return out
