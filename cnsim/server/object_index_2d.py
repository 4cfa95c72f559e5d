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

import numba
import numpy as np

from cnsim import kdtree
from cnsim.errors import InputError

WEST = -1
EAST = +1


@dataclass
class CallCounter2D:
    """Index calls by type. Seed 003 Table VII counts "min queries": min_y and
    min_x2 together (see :attr:`calls_min`)."""

    first_k: int = 0
    min_y: int = 0
    min_x2: int = 0
    snap: int = 0

    @property
    def calls_min(self) -> int:
        """min_y + min_x2: the paper's "number of min queries" (Table VII)."""
        return self.min_y + self.min_x2

    def as_dict(self) -> dict[str, int]:
        """The counts under metric-like column names."""
        return {
            "calls_first_k": self.first_k,
            "calls_min_y": self.min_y,
            "calls_min_x2": self.min_x2,
            "calls_min": self.calls_min,
            "calls_snap": self.snap,
        }


class ObjectIndex2D:
    """Objects ``(x1, x2, y)`` indexed for ``first_k``, ``min_y`` and ``min_x2``."""

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
        self._x1, self._x2, self._y = x1.copy(), x2.copy(), y.copy()
        self.n_ids = len(y)
        self._rebuild()

    def __len__(self) -> int:
        return self.n_ids

    @property
    def x1(self) -> np.ndarray:
        """x1 of every object id (a view; do not modify)."""
        return self._x1[: self.n_ids]

    @property
    def x2(self) -> np.ndarray:
        """x2 of every object id (a view; do not modify)."""
        return self._x2[: self.n_ids]

    @property
    def y(self) -> np.ndarray:
        """y of every object id, ``inf`` for absent ones (a view)."""
        return self._y[: self.n_ids]

    def _rebuild(self) -> None:
        # Every id (absent ones too) plus spare dead points at the positions of objects
        # spread over the ids, so an insert lands near points like it without a rebuild.
        n = self.n_ids
        n_spare = max(16, n // 4)
        src = np.linspace(0, n - 1, n_spare).astype(np.int64) if n else np.zeros(0, np.int64)
        sa = self.x1[src] if n else np.zeros(n_spare)
        sb = self.x2[src] if n else np.zeros(n_spare)
        a, b = np.concatenate([self.x1, sa]), np.concatenate([self.x2, sb])
        t = kdtree.build(a, b)
        self._t = t
        self._pa = a[t.perm]
        self._pb = b[t.perm]
        self._py = np.concatenate([self.y, np.full(n_spare, np.inf)])[t.perm]
        self._pid = np.concatenate([np.arange(n), np.full(n_spare, -1, np.int64)])[t.perm]
        self._pos_of = np.full(len(self._y), -1, np.int64)
        used = self._pid >= 0
        self._pos_of[self._pid[used]] = np.flatnonzero(used)
        self._free = np.flatnonzero(~used)
        self._box = np.empty((t.n_nodes, 6), np.float64)
        _fit_all3(t.start, t.end, t.leaf, self._pa, self._pb, self._py, self._box)

    # -- updates ----------------------------------------------------------------------------
    def update(self, i: int, y_new: float) -> None:
        """Set object ``i``'s y-value (``inf`` deletes it, a finite value revives it)."""
        if not 0 <= i < len(self.y):
            raise InputError(f"object id {i} does not exist (ids are 0..{len(self.y) - 1})")
        if np.isnan(y_new):
            raise InputError(f"object {i}: y must not be NaN")
        self.y[i] = y_new
        pos = self._pos_of[i]
        self._py[pos] = y_new
        t = self._t
        _refit3(t.start, t.end, self._pa, self._pb, self._py, self._box, t.leaf_of[pos])

    def insert(self, x1: float, x2: float, y: float) -> int:
        """Add an object at ``(x1, x2)`` and return its id (the next one)."""
        if not (np.isfinite(x1) and np.isfinite(x2)) or np.isnan(y):
            raise InputError(f"insert: x1, x2 must be finite and y not NaN, got {x1}, {x2}, {y}")
        i = self.n_ids
        if i == len(self._y):  # room for more ids: double
            grow = max(16, i)
            self._x1 = np.concatenate([self._x1, np.zeros(grow)])
            self._x2 = np.concatenate([self._x2, np.zeros(grow)])
            self._y = np.concatenate([self._y, np.full(grow, np.inf)])
            self._pos_of = np.concatenate([self._pos_of, np.full(grow, -1, np.int64)])
        self._x1[i], self._x2[i], self._y[i] = x1, x2, np.inf
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
        pos = _first_k3(t.start, t.end, t.leaf, self._box, self._pa, self._pb, self._py,
                        self._pid, s, a0, b0, y0, id0, k)  # fmt: skip
        return self._pa[pos]

    def min_y(self, a_lo: float, a_hi: float, b_lo: float, b_hi: float, y0: float, id0: int) -> int:
        """Id of the object in ``[a_lo, a_hi] × [b_lo, b_hi]`` lowest above ``(y0, id0)``
        in the order of (y, id), or -1."""
        self.counter.min_y += 1
        t = self._t
        pos = _min_y3(t.start, t.end, t.leaf, self._box, self._pa, self._pb, self._py,
                      self._pid, a_lo, a_hi, b_lo, b_hi, y0, id0)  # fmt: skip
        return int(self._pid[pos]) if pos >= 0 else -1

    def min_x2(self, a_lo: float, a_hi: float, b0: float, bid0: int, y0: float, id0: int) -> int:
        """Id of the object with ``a_lo <= x1 <= a_hi`` below ``(y0, id0)`` first after
        ``(b0, bid0)`` in the order of (x2, id), or -1."""
        self.counter.min_x2 += 1
        t = self._t
        pos = _min_x2(t.start, t.end, t.leaf, self._box, self._pa, self._pb, self._py,
                      self._pid, a_lo, a_hi, b0, bid0, y0, id0)  # fmt: skip
        return int(self._pid[pos]) if pos >= 0 else -1


# -- boxes: (min x1, max x1, min x2, max x2, min y, max y) over live points (y < inf) ------


@numba.njit(cache=True)
def _fit_leaf3(start, end, pa, pb, py, box, v):
    b = np.array([np.inf, -np.inf, np.inf, -np.inf, np.inf, -np.inf])
    for p in range(start[v], end[v]):
        if py[p] < np.inf:
            b[0] = min(b[0], pa[p])
            b[1] = max(b[1], pa[p])
            b[2] = min(b[2], pb[p])
            b[3] = max(b[3], pb[p])
            b[4] = min(b[4], py[p])
            b[5] = max(b[5], py[p])
    box[v, :] = b


@numba.njit(cache=True)
def _merge3(box, v):
    c1, c2 = 2 * v + 1, 2 * v + 2
    for d in range(3):
        box[v, 2 * d] = min(box[c1, 2 * d], box[c2, 2 * d])
        box[v, 2 * d + 1] = max(box[c1, 2 * d + 1], box[c2, 2 * d + 1])


@numba.njit(cache=True)
def _fit_all3(start, end, leaf, pa, pb, py, box):
    for v in range(len(start) - 1, -1, -1):
        if leaf[v]:
            _fit_leaf3(start, end, pa, pb, py, box, v)
        else:
            _merge3(box, v)


@numba.njit(cache=True)
def _refit3(start, end, pa, pb, py, box, v):
    _fit_leaf3(start, end, pa, pb, py, box, v)
    while v > 0:
        v = (v - 1) // 2
        _merge3(box, v)


@numba.njit(cache=True, inline="always")
def _lt(ya, ia, yb, ib):
    return ya < yb or (ya == yb and ia < ib)


# Plain stack searches: the queries are small and each has its own pruning rule.


@numba.njit(cache=True)
def _first_k3(start, end, leaf, box, pa, pb, py, pid, s, a0, b0, y0, id0, k):
    # u = s * x1: west (s = +1) wants the largest u <= u0, east (s = -1) the largest u < u0.
    u0 = s * a0
    best_u = np.empty(max(k, 1), np.float64)
    best_p = np.empty(max(k, 1), np.int64)
    n = 0
    if k <= 0:
        return best_p[:0].copy()
    stack = np.empty(kdtree.STACK, np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        if box[v, 4] > y0 or box[v, 2] > b0 or end[v] <= start[v]:
            continue
        u_lo = min(s * box[v, 0], s * box[v, 1])
        u_hi = max(s * box[v, 0], s * box[v, 1])
        if (s > 0 and u_lo > u0) or (s < 0 and u_lo >= u0):
            continue
        if n == k and u_hi <= best_u[k - 1]:
            continue
        if leaf[v]:
            for p in range(start[v], end[v]):
                u = s * pa[p]
                inside = u <= u0 if s > 0 else u < u0
                if not inside or pb[p] > b0 or py[p] == np.inf:
                    continue
                if not _lt(py[p], pid[p], y0, id0):
                    continue
                if n == k and u <= best_u[k - 1]:
                    continue
                j = n if n < k else k - 1
                while j > 0 and best_u[j - 1] < u:
                    best_u[j] = best_u[j - 1]
                    best_p[j] = best_p[j - 1]
                    j -= 1
                best_u[j] = u
                best_p[j] = p
                if n < k:
                    n += 1
            continue
        c1, c2 = 2 * v + 1, 2 * v + 2
        # search first the child reaching closer to u0
        if max(s * box[c1, 0], s * box[c1, 1]) > max(s * box[c2, 0], s * box[c2, 1]):
            c1, c2 = c2, c1
        stack[sp] = c1
        stack[sp + 1] = c2
        sp += 2
    return best_p[:n].copy()


@numba.njit(cache=True)
def _min_y3(start, end, leaf, box, pa, pb, py, pid, a_lo, a_hi, b_lo, b_hi, y0, id0):
    best_y = np.inf
    best_i = -1
    best_p = -1
    stack = np.empty(kdtree.STACK, np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        if end[v] <= start[v] or box[v, 1] < a_lo or box[v, 0] > a_hi:
            continue
        if box[v, 3] < b_lo or box[v, 2] > b_hi or box[v, 5] < y0 or box[v, 4] > best_y:
            continue
        if leaf[v]:
            for p in range(start[v], end[v]):
                yp = py[p]
                if yp == np.inf or not (a_lo <= pa[p] <= a_hi and b_lo <= pb[p] <= b_hi):
                    continue
                if _lt(y0, id0, yp, pid[p]) and (best_p < 0 or _lt(yp, pid[p], best_y, best_i)):
                    best_y, best_i, best_p = yp, pid[p], p
            continue
        c1, c2 = 2 * v + 1, 2 * v + 2
        if box[c1, 4] < box[c2, 4]:  # search first the child reaching lower
            c1, c2 = c2, c1
        stack[sp] = c1
        stack[sp + 1] = c2
        sp += 2
    return best_p


@numba.njit(cache=True)
def _min_x2(start, end, leaf, box, pa, pb, py, pid, a_lo, a_hi, b0, bid0, y0, id0):
    best_b = np.inf
    best_i = -1
    best_p = -1
    stack = np.empty(kdtree.STACK, np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        if end[v] <= start[v] or box[v, 1] < a_lo or box[v, 0] > a_hi:
            continue
        if box[v, 3] < b0 or box[v, 2] > best_b or box[v, 4] > y0:
            continue
        if leaf[v]:
            for p in range(start[v], end[v]):
                yp = py[p]
                if yp == np.inf or not (a_lo <= pa[p] <= a_hi):
                    continue
                if not _lt(yp, pid[p], y0, id0) or not _lt(b0, bid0, pb[p], pid[p]):
                    continue
                if best_p < 0 or _lt(pb[p], pid[p], best_b, best_i):
                    best_b, best_i, best_p = pb[p], pid[p], p
            continue
        c1, c2 = 2 * v + 1, 2 * v + 2
        if box[c1, 2] < box[c2, 2]:  # search first the child reaching lower in x2
            c1, c2 = c2, c1
        stack[sp] = c1
        stack[sp + 1] = c2
        sp += 2
    return best_p
