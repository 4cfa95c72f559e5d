"""The server's object index for 1.5-dimensional range subscriptions (seed 003
appendix D): objects as points ``(x1, x2, y)`` of the event space E = R³, with
y-updates (``inf`` deletes, a finite value revives) and the 2-d generalisations of
the queries the Paint algorithms are built on, each counted per call.

Notation (appendix D): object ``i`` is ``(x_i^(1), x_i^(2), y_i)``, written
``(a_i, b_i, y_i)`` in code; a subscription ``[l1, r1] × (−∞, r2]`` holds object i
iff ``l1 <= a_i <= r1`` and ``b_i <= r2``. "Below ``(y0, id0)``" is in the order of
(y, id), so ties in y — which the paper rules out — are broken by id, as in the
1-d index (:mod:`cnsim.server.object_index`).

Queries (the paper names them in Algorithms 7 and 11; it does not define them
formally, so they are fixed here):

* ``first_k(a0, b0, y0, id0, direction, k)``: the x1-values of the first k objects
  met going west (``WEST``, x1 <= a0 — objects at ``x1 == a0`` are met first, at
  distance 0) or east (``EAST``, x1 > a0) from a0 among the objects with
  ``x2 <= b0`` lying below ``(y0, id0)`` — the orthant of Algorithm 7 line 3.
* ``min_y(a_lo, a_hi, b_lo, b_hi, y0, id0)``: the object of the closed box
  ``[a_lo, a_hi] × [b_lo, b_hi]`` lowest above ``(y0, id0)`` (the next exposed
  object in one rectangle of the influence rectilinear polygon, Algorithm 11
  line 37).
* ``min_x2(a_lo, a_hi, b0, bid0, y0, id0)``: the object with ``a_lo <= x1 <= a_hi``
  below ``(y0, id0)`` that comes first after ``(b0, bid0)`` in the order of
  (x2, id) (the next active object the sweep plane meets, Algorithm 7 lines 4, 8).

The index is a k-d tree split on (x1, x2) (:func:`cnsim.kdtree.build`) whose
nodes keep 3-d boxes (x1, x2, y) of their live points; a y-update moves the point
in place and refits its leaf-to-root path. An insert takes the spare slot (a dead point
the last rebuild added, a quarter as many as the ids) nearest its position and refits
it, and the index rebuilds only when the spares run out: O(n log n) per n/4 inserts.
Queries prune by the fitted boxes only, so where a point sits never changes an answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np

from cnsim import kdtree
from cnsim.errors import InputError
from cnsim.server.object_index import (
    CallCounter,
    ObjectState,
    _first_k_swap,
    check_update,
    meet,
)

WEST = -1
EAST = +1
NO_ID = 2**62  # (inf, NO_ID): above every live object in the order of (y, id)


@dataclass
class CallCounter2D(CallCounter):
    """Index calls by type. Seed 003 Table VII counts "min queries": min_y and
    min_x2 together (see :attr:`calls_min`)."""

    min_x2: int = 0
    more: ClassVar[dict[str, str]] = {"calls_min_x2": "min_x2", "calls_min": "calls_min"}

    @property
    def calls_min(self) -> int:
        """min_y + min_x2: the paper's "number of min queries" (Table VII)."""
        return self.min_y + self.min_x2


class ObjectIndex2D(ObjectState):
    """Objects ``(x1, x2, y)`` indexed for ``first_k``, ``min_y`` and ``min_x2`` (``x`` and
    ``x1`` are the same: an object's x1)."""

    def __init__(
        self, x1: np.ndarray, x2: np.ndarray, y: np.ndarray, counter: CallCounter2D | None = None
    ):
        x1, x2, y = (np.asarray(v, np.float64) for v in (x1, x2, y))
        if not (x1.shape == x2.shape == y.shape) or x1.ndim != 1:
            raise InputError(
                f"objects: x1, x2 and y must be 1-d arrays of one length, "
                f"got {x1.shape}, {x2.shape}, {y.shape}"
            )
        if np.isnan(x1).any() or np.isnan(x2).any() or np.isnan(y).any():
            raise InputError("objects: x1, x2 and y must not contain NaN")
        if np.isinf(x1).any() or np.isinf(x2).any():
            raise InputError("objects: x1 and x2 must be finite")
        self.counter = counter if counter is not None else CallCounter2D()
        # by id, with room to grow (inserts); x1, x2, y are the views of the ids in use
        self._x, self._x2, self._y = x1.copy(), x2.copy(), y.copy()
        self.n_ids = len(y)
        self._rebuild()

    def __len__(self) -> int:
        return self.n_ids

    x1 = ObjectState.x

    @property
    def x2(self) -> np.ndarray:
        """x2 of every object id (a view; do not modify)."""
        return self._x2[: self.n_ids]

    def _rebuild(self) -> None:
        # Every id (absent ones too) plus spare dead points at the positions of objects
        # spread over the ids, so an insert lands near points like it without a rebuild.
        n = self.n_ids
        n_spare = max(16, n // 4)
        src = np.linspace(0, n - 1, n_spare).astype(np.int64) if n else np.zeros(0, np.int64)
        sa = self.x1[src] if n else np.zeros(n_spare)
        sb = self.x2[src] if n else np.zeros(n_spare)
        a, b = np.concatenate([self.x1, sa]), np.concatenate([self.x2, sb])
        y = np.concatenate([self.y, np.full(n_spare, np.inf)])
        t = kdtree.build(np.stack([a, b, y], axis=1), split=2, live=2)  # dead: y = inf
        self._t, self._box = t, t.box
        self._pts = np.asfortranarray(t.pts)  # pa, pb, py: its contiguous columns
        self._pa, self._pb, self._py = self._pts[:, 0], self._pts[:, 1], self._pts[:, 2]
        self._pid = np.concatenate([np.arange(n), np.full(n_spare, -1, np.int64)])[t.perm]
        self._pos_of = np.full(len(self._y), -1, np.int64)
        used = self._pid >= 0
        self._pos_of[self._pid[used]] = np.flatnonzero(used)
        self._free = np.flatnonzero(~used)

    # -- updates ----------------------------------------------------------------------------
    def update(self, i: int, y_new: float) -> None:
        """Set object ``i``'s y-value (``inf`` deletes it, a finite value revives it)."""
        check_update(len(self.y), i, y_new)
        self.y[i] = y_new
        pos = self._pos_of[i]
        self._py[pos] = y_new
        t = self._t
        kdtree.refit(t.start, t.end, self._pts, self._box, t.leaf_of, pos, 2)

    def insert(self, x1: float, x2: float, y: float) -> int:
        """Add an object at ``(x1, x2)`` and return its id (the next one)."""
        if not (np.isfinite(x1) and np.isfinite(x2)) or np.isnan(y):
            raise InputError(f"insert: x1, x2 must be finite and y not NaN, got {x1}, {x2}, {y}")
        i = self.n_ids
        if i == len(self._y):  # room for more ids: double
            grow = max(16, i)
            self._x = np.concatenate([self._x, np.zeros(grow)])
            self._x2 = np.concatenate([self._x2, np.zeros(grow)])
            self._y = np.concatenate([self._y, np.full(grow, np.inf)])
            self._pos_of = np.concatenate([self._pos_of, np.full(grow, -1, np.int64)])
        self._x[i], self._x2[i], self._y[i] = x1, x2, np.inf
        self.n_ids = i + 1
        if len(self._free):
            # the spare nearest (x1, x2): its leaf holds points like it, so the boxes the
            # new point widens stay tight
            free = self._free
            j = int(np.argmin((self._pa[free] - x1) ** 2 + (self._pb[free] - x2) ** 2))
            pos = int(free[j])
            self._free = np.delete(free, j)
            self._pa[pos], self._pb[pos], self._py[pos], self._pid[pos] = x1, x2, np.inf, i
            self._pos_of[i] = pos
        else:
            self._rebuild()
        self.update(i, y)
        return i

    # -- queries ----------------------------------------------------------------------------
    def first_k(
        self, a0: float, b0: float, y0: float, id0: int, direction: int, k: int
    ) -> np.ndarray:
        """x1-values of the first ``k`` objects with ``x2 <= b0`` below ``(y0, id0)``
        going west (x1 <= a0, nearest first) or east (x1 > a0), in the order met."""
        self.counter.first_k += 1
        t = self._t
        s = 1.0 if direction == WEST else -1.0
        pos = _first_k(t.start, t.end, t.leaf, self._box, self._pts, self._pid,
                       s, a0, b0, y0, id0, k)  # fmt: skip
        return self._pa[pos]

    def min_y(self, a_lo: float, a_hi: float, b_lo: float, b_hi: float, y0: float, id0: int) -> int:
        """Id of the object in ``[a_lo, a_hi] × [b_lo, b_hi]`` lowest above ``(y0, id0)``
        in the order of (y, id), or -1."""
        self.counter.min_y += 1
        return self._lowest(2, (a_lo, a_hi, b_lo, b_hi, np.inf, NO_ID, y0, id0))

    def min_x2(self, a_lo: float, a_hi: float, b0: float, bid0: int, y0: float, id0: int) -> int:
        """Id of the object with ``a_lo <= x1 <= a_hi`` below ``(y0, id0)`` first after
        ``(b0, bid0)`` in the order of (x2, id), or -1."""
        self.counter.min_x2 += 1
        return self._lowest(1, (a_lo, a_hi, -np.inf, np.inf, y0, id0, b0, bid0))

    def _lowest(self, c: int, query: tuple) -> int:
        t = self._t
        pos = _lowest(t.start, t.end, t.leaf, self._box, self._pts, self._pid, c, *query)
        return int(self._pid[pos]) if pos >= 0 else -1


@numba.njit(cache=True, inline="always")
def _lt(ya, ia, yb, ib):
    return ya < yb or (ya == yb and ia < ib)


# -- first_k: query = (s, u0, b0, y0, id0, k), state = (best_u, best_p, n, pts, pid) -------
# u = s * x1: west (s = +1) wants the largest u <= u0, east (s = -1) the largest u < u0.


@numba.njit(cache=True, inline="always")
def _first_k_skip(box, v, q, state):
    s, u0, b0, y0, k = q[0], q[1], q[2], q[3], q[5]
    u_lo = min(s * box[v, 0], s * box[v, 1])
    u_hi = max(s * box[v, 0], s * box[v, 1])
    past = u_lo > u0 if s > 0 else u_lo >= u0
    full = state[2][0] == k and u_hi <= state[0][k - 1]
    return box[v, 4] > y0 or box[v, 2] > b0 or past or full


@numba.njit(cache=True, inline="always")
def _first_k_leaf(start, end, q, state):
    s, u0, b0, y0, id0, k = q
    best_u, best_p, n, pts, pid = state
    for p in range(start, end):
        u = s * pts[p, 0]
        inside = u <= u0 if s > 0 else u < u0
        if not inside or pts[p, 1] > b0 or pts[p, 2] == np.inf:
            continue
        if _lt(pts[p, 2], pid[p], y0, id0):
            meet(best_u, best_p, n, k, u, p)


_first_k_search = kdtree.traversal(_first_k_skip, kdtree.never, _first_k_leaf, _first_k_swap)


@numba.njit(cache=True)
def _first_k(start, end, leaf, box, pts, pid, s, a0, b0, y0, id0, k):
    best_u = np.empty(max(k, 1), np.float64)
    best_p = np.empty(max(k, 1), np.int64)
    n = np.zeros(1, np.int64)
    if k > 0:
        query, state = (s, s * a0, b0, y0, id0, k), (best_u, best_p, n, pts, pid)
        _first_k_search(start, end, leaf, box, 0, query, state)
    return best_p[: n[0]].copy()


# -- min_y and min_x2: the object lowest in the order of (key, id), key = x2 (c = 1) or
# y (c = 2), after (key0, kid0), with x1 in [a_lo, a_hi], x2 in [b_lo, b_hi] and (y, id)
# below (y1, id1). query = (c, a_lo, a_hi, b_lo, b_hi, y1, id1, key0, kid0),
# state = (best, at, pts, pid): best key, [its id, its position].


@numba.njit(cache=True, inline="always")
def _lowest_skip(box, v, q, state):
    c, a_lo, a_hi, b_lo, b_hi, y1 = q[0], q[1], q[2], q[3], q[4], q[5]
    key0, best = q[7], state[0][0]
    if box[v, 1] < a_lo or box[v, 0] > a_hi or box[v, 3] < b_lo or box[v, 2] > b_hi:
        return True
    return box[v, 4] > y1 or box[v, 2 * c + 1] < key0 or box[v, 2 * c] > best


@numba.njit(cache=True, inline="always")
def _lowest_leaf(start, end, q, state):
    c, a_lo, a_hi, b_lo, b_hi, y1, id1, key0, kid0 = q
    best, at, pts, pid = state
    for p in range(start, end):
        if pts[p, 2] == np.inf or not (a_lo <= pts[p, 0] <= a_hi and b_lo <= pts[p, 1] <= b_hi):
            continue
        key = pts[p, c]
        if not _lt(pts[p, 2], pid[p], y1, id1) or not _lt(key0, kid0, key, pid[p]):
            continue
        if at[1] < 0 or _lt(key, pid[p], best[0], at[0]):
            best[0], at[0], at[1] = key, pid[p], p


@numba.njit(cache=True, inline="always")
def _lowest_swap(box, c1, c2, q):
    c = q[0]
    return box[c1, 2 * c] < box[c2, 2 * c]  # search first the child reaching lower


_lowest_search = kdtree.traversal(_lowest_skip, kdtree.never, _lowest_leaf, _lowest_swap)


@numba.njit(cache=True)
def _lowest(start, end, leaf, box, pts, pid, c, a_lo, a_hi, b_lo, b_hi, y1, id1, key0, kid0):
    best, at = np.array([np.inf]), np.array([-1, -1], np.int64)
    query = (c, a_lo, a_hi, b_lo, b_hi, y1, id1, key0, kid0)
    _lowest_search(start, end, leaf, box, 0, query, (best, at, pts, pid))
    return at[1]
