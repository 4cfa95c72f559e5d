"""Index over the subscription points of the subscription space S, of every kind.

A subscription is a point of S = R^D (1-d ranges ``[l, r]``: ``(l, r)``, D = 2, seed
003 §II-A; 1.5-d ranges ``[l1, r1] × (−∞, r2]``: ``(l1, r1, r2)``, D = 3, appendix D;
d-dimensional boxes: ``(l_1, r_1, …, l_d, r_d)``, D = 2d, §IV-C, the subclass
:class:`cnsim.subscriptions.space_boxes.BoxSubscriptions`). A message box is a pair
``(lo, hi)`` per coordinate, reaching ``lo < p <= hi`` on the coordinates with
``lower_open`` and ``lo <= p < hi`` on the others — for 1-d the CN rectangle
``(lO, lI, rI, rO)``, ``lO < l <= lI`` and ``rI <= r < rO`` (:mod:`cnsim.subscriptions.space`);
for 1.5-d ``(lO, lI, rI, rO, vI, vO)`` adds ``vI <= r2 < vO`` (the paper's "extra side
ranging from x_min^(2) to x_max^(2)", Algorithm 8).

The index is a static k-d tree over the points (:func:`cnsim.kdtree.build`, splits
cycling through the D coordinates at the median) answering, with the kernels
:func:`cnsim.kdtree.box_kernels` compiles for its S, *box reporting* — which
subscriptions a message reaches — and ``snap`` — how many subscriptions a box holds and
the smallest closed box holding them (``snap = ∅`` when none), the questions the CN and
Paint-Sparse ask (§II-A, §II-B).
"""

from __future__ import annotations

import math

import numpy as np

from cnsim import kdtree

RANGE = (True, False)  # (l, r): lO < l <= lI, rI <= r < rO
RANGE_15D = (True, False, False)  # (l1, r1, r2): and vI <= r2 < vO


class SubscriptionIndex:
    """A static k-d tree over the subscription points, given as the D columns of S
    (callers count their snaps)."""

    def __init__(self, *columns: np.ndarray, lower_open=RANGE):
        self.points = tuple(np.ascontiguousarray(c, np.float64) for c in columns)
        self.lower_open = np.array(lower_open, np.bool_)
        # the tree keeps its own copy, leaf by leaf; the (m, D) stack is dropped after
        self._t = kdtree.build(np.stack(self.points, axis=1))
        self._k = kdtree.box_kernels(tuple(self.lower_open))  # compiled for this S
        self.l, self.r = self.points[:2]  # the range's ends (boxes: l_t and r_t, (m, d))
        self._dead: kdtree.Tombstones | None = None  # made by the first set_alive
        self._pos: np.ndarray | None = None  # the tree position of every subscription

    def __len__(self) -> int:
        return len(self.points[0])

    @property
    def pts(self) -> np.ndarray:
        """The points as one (m, D) array, made anew (for oracles; the index keeps the
        columns and the tree's copy)."""
        return np.stack(self.points, axis=1)

    @property
    def dims(self) -> int:
        """Dimensions D of S."""
        return len(self.lower_open)

    @property
    def order(self) -> np.ndarray:
        """The subscription at every position of the index (leaf by leaf)."""
        return self._t.perm

    perm = order

    def report(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Subscriptions inside each message box (shape (M, 2D)), as CSR ``(offsets,
        ids)``: message ``j`` reaches ``ids[offsets[j]:offsets[j + 1]]``."""
        offsets, pos = self.report_positions(boxes)
        return offsets, self._t.perm[pos]

    def report_positions(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`report`, with index positions (``order[pos]`` are the ids)."""
        t = self._t
        boxes = np.ascontiguousarray(boxes, np.float64).reshape(-1, 2 * self.dims)
        ptr = np.arange(len(boxes) + 1, dtype=np.int64)
        roots = np.zeros(len(boxes), np.int64)  # one tree, rooted at node 0, per message
        return self._k.report_forest(t.start, t.end, t.leaf, t.box, t.pts, boxes, ptr, roots)

    def set_alive(self, ids: np.ndarray, alive: bool) -> None:
        """Let subscriptions ``ids`` leave the index (``alive`` False) or come back:
        every query then reports and counts the live ones only (subscribers that come
        and go, :class:`cnsim.kdtree.Tombstones`)."""
        if self._dead is None:
            axis = int(np.flatnonzero(~self.lower_open)[0])  # an upper bound: rI <= r < rO
            self._dead = kdtree.Tombstones(self._t, np.zeros(1, np.int64), axis)
            self._pos = np.empty(len(self), np.int64)
            self._pos[self._t.perm] = np.arange(len(self))
        self._dead.set(self._pos[np.asarray(ids, np.int64)], alive)

    def snap(self, box) -> tuple:
        """``(count, min_0, max_0, …)`` of the subscriptions inside ``box`` (1-d:
        ``(count, l_min, l_max, r_min, r_max)``); count 0 means the empty box
        (seed 003's ``snap(G) = ∅``)."""
        t = self._t
        q = np.ascontiguousarray(box, np.float64)
        acc = self._k.snap(t.start, t.end, t.leaf, t.box, t.pts, q)
        return (int(acc[0]), *acc[1:].tolist())

    def nbytes(self) -> int:
        """Bytes of the index (points, permutation and nodes)."""
        t = self._t
        arrays = (*self.points, t.pts, t.perm, t.start, t.end, t.box, t.leaf, t.leaf_of)
        return sum(a.nbytes for a in arrays)


class SubscriptionIndex3D(SubscriptionIndex):
    """The index of 1.5-d range subscriptions, points ``(l1, r1, r2)`` (appendix D)."""

    def __init__(self, l: np.ndarray, r: np.ndarray, v: np.ndarray):
        super().__init__(l, r, v, lower_open=RANGE_15D)
        self.v = self.points[2]  # r2, the end of the half-open side


def closed_box(lows, highs, lower_open) -> tuple:
    """The message box reaching exactly the points of the closed box ``[lows, highs]``
    of S (per coordinate: ``(lo, hi)`` with ``lo < p <= hi`` where ``lower_open``,
    ``lo <= p < hi`` elsewhere)."""
    out = []
    for lo, hi, open_ in zip(lows, highs, lower_open, strict=True):
        if open_:
            out += [math.nextafter(float(lo), -math.inf), float(hi)]
        else:
            out += [float(lo), math.nextafter(float(hi), math.inf)]
    return tuple(out)


def closed_box_15d(l_min, l_max, r_min, r_max, v_min, v_max) -> tuple:
    """:func:`closed_box` of 1.5-d ranges, from :meth:`SubscriptionIndex.snap`'s bounds."""
    return closed_box((l_min, r_min, v_min), (l_max, r_max, v_max), RANGE_15D)
