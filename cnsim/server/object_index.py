"""The server's object index (seed 003 §II-B): objects as points (x, y) of the event
space E, with y-updates, inserts and deletes, and the two queries the Paint
algorithms are built on, ``first_k`` and ``min_y``, each counted per call.

An absent (deleted) object has ``y = +inf`` (§II-A footnote 4: an insert is
``Upd(x, inf -> y)``, a delete ``Upd(x, y -> inf)``). The index is the k-d tree of
:mod:`cnsim.kdtree`; a y-update moves the point in place and refits the boxes on
its leaf-to-root path, and the tree is rebuilt once enough updates have drifted
the points away from the split structure (amortised O(log n) per update).
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np

from cnsim import kdtree
from cnsim.errors import InputError

WEST = -1
EAST = +1


@dataclass
class CallCounter:
    """Number of index calls by type, as counted in seed 003 §V ("server processing cost").
    An index with other queries counts them in a subclass that declares them in ``more``."""

    first_k: int = 0
    min_y: int = 0
    snap: int = 0
    #: metric column name -> the count (attribute) it reports, between min_y and snap
    more: ClassVar[dict[str, str]] = {}

    @contextlib.contextmanager
    def uncounted(self) -> Iterator[None]:
        """Calls made inside are not counted: the counter (every count, and what a
        subclass keeps beside them) is as it was on entry."""
        kept = copy.deepcopy(self.__dict__)
        try:
            yield
        finally:
            self.__dict__.update(kept)

    def as_dict(self) -> dict[str, int]:
        """The counts under their metric column names."""
        more = {column: getattr(self, count) for column, count in self.more.items()}
        return {"calls_first_k": self.first_k, "calls_min_y": self.min_y, **more,
                "calls_snap": self.snap}  # fmt: skip


def objects_xy(x, y) -> tuple[np.ndarray, np.ndarray]:
    """The objects' ``x`` and ``y`` as float arrays, checked: 1-d, one length, no NaN."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise InputError(
            f"objects: x and y must be 1-d arrays of one length, got {x.shape}, {y.shape}"
        )
    if np.isnan(x).any() or np.isnan(y).any():
        raise InputError("objects: x and y must not contain NaN")
    return x, y


def check_update(n: int, i: int, y_new: float) -> None:
    """Raise unless ``i`` is one of the ``n`` object ids and ``y_new`` is not NaN."""
    if not 0 <= i < n:
        raise InputError(f"object id {i} does not exist (ids are 0..{n - 1})")
    if np.isnan(y_new):
        raise InputError(f"object {i}: y must not be NaN")


class ObjectState:
    """The objects by id, columnar: ``_x``, ``_y`` (capacity ≥ ``n_ids``; ``inf`` y: deleted).
    What one index and a distributed database of them both expose."""

    _x: np.ndarray
    _y: np.ndarray
    n_ids: int

    @property
    def x(self) -> np.ndarray:
        """x-value of every object id (a view; do not modify)."""
        return self._x[: self.n_ids]

    @property
    def y(self) -> np.ndarray:
        """y-value of every object id, ``inf`` for deleted ones (a view; do not modify)."""
        return self._y[: self.n_ids]

    def live(self) -> np.ndarray:
        """Ids of the objects present (finite y)."""
        return np.flatnonzero(np.isfinite(self.y))


class ObjectIndex(ObjectState):
    """Objects ``(x, y)`` indexed for ``first_k`` and ``min_y`` (ids are 0, 1, 2, …)."""

    def __init__(self, x: np.ndarray, y: np.ndarray, counter: CallCounter | None = None):
        x, y = objects_xy(x, y)
        self.counter = counter if counter is not None else CallCounter()
        self._x = x.copy()
        self._y = y.copy()
        self.n_ids = len(x)
        self._rebuild()

    # -- updates ----------------------------------------------------------------------------
    def update(self, i: int, y_new: float) -> None:
        """Set object ``i``'s y-value (``inf`` deletes it, a finite value revives it)."""
        if not 0 <= i < self.n_ids:
            raise InputError(f"object id {i} does not exist (ids are 0..{self.n_ids - 1})")
        self._y[i] = y_new
        pos = self._pos_of[i]
        if pos < 0:
            if np.isfinite(y_new):
                self._place(i)
            return
        self._py[pos] = y_new
        t = self._tree
        kdtree.refit(t.start, t.end, self._pts, t.box, t.leaf_of, pos, 1)
        if not np.isfinite(y_new):
            self._free.append(pos)
        self._add_drift(1)

    def insert(self, x: float, y: float, i: int | None = None) -> int:
        """Add an object at ``x`` and return its id: the next one, or ``i`` if given
        (an absent id; ids skipped on the way stay absent)."""
        i = self.n_ids if i is None else i
        if i < self.n_ids:
            if np.isfinite(self._y[i]):
                raise InputError(f"object id {i} is present already")
            self._pos_of[i] = -1  # its dead slot, if any, stays free for reuse
        elif i >= len(self._x):
            grow = max(16, len(self._x), i + 1 - len(self._x))
            self._x = np.concatenate([self._x, np.full(grow, np.nan)])
            self._y = np.concatenate([self._y, np.full(grow, np.inf)])
            self._pos_of = np.concatenate([self._pos_of, np.full(grow, -1, np.int64)])
        self.n_ids = max(self.n_ids, i + 1)
        self._x[i] = x
        self.update(i, y)
        return i

    def delete(self, i: int) -> None:
        """Remove object ``i`` (its y becomes ``inf``; a finite y later revives it)."""
        self.update(i, np.inf)

    def apply(self, i: int, x: float, y_new: float) -> None:
        """Apply ``Upd(x, y_old -> y_new)`` to object ``i``; an id never seen before
        (beyond the last one, or skipped) inserts a new object at ``x``."""
        if i >= self.n_ids or np.isnan(self._x[i]):
            self.insert(x, y_new, i)
        else:
            self.update(i, y_new)

    def _place(self, i: int) -> None:
        # Reuse a spare slot or the slot of a dead object; the boxes grow to cover the new
        # point, which costs query time until the next rebuild, so rebuild after a few.
        while self._free:
            pos = self._free.pop()
            old = self._pid[pos]
            if np.isfinite(self._py[pos]):
                continue  # revived in place since it was freed
            if old >= 0 and self._pos_of[old] == pos:
                self._pos_of[old] = -1
            self._pid[pos], self._pos_of[i] = i, pos
            self._px[pos], self._py[pos] = self._x[i], self._y[i]
            t = self._tree
            kdtree.refit(t.start, t.end, self._pts, t.box, t.leaf_of, pos, 1)
            self._add_drift(max(1, len(self._pid) // 64))
            return
        self._rebuild()

    def _add_drift(self, amount: int) -> None:
        # Moved and placed points loosen the boxes; rebuild once they add up to 2n.
        self._drift += amount
        if self._drift > max(1024, 2 * self.n_ids):
            self._rebuild()

    def _rebuild(self) -> None:
        # Spare dead slots (a quarter more, spread over the x-range of the live objects)
        # let inserts land in the tree without a rebuild each: O(log n) amortised.
        ids = self.live()
        n_spare = max(16, len(ids) // 4)
        xs = np.sort(self.x[ids]) if len(ids) else np.zeros(1)
        spare_x = xs[np.linspace(0, len(xs) - 1, n_spare).astype(np.int64)]
        all_ids = np.concatenate([ids, np.full(n_spare, -1, np.int64)])
        a = np.concatenate([self.x[ids], spare_x])
        b = np.concatenate([self.y[ids], np.full(n_spare, np.inf)])
        self._tree = kdtree.build(np.stack([a, b], axis=1), live=1)  # dead: y = inf
        self._pid = all_ids[self._tree.perm]
        self._pts = np.asfortranarray(self._tree.pts)  # px, py: its contiguous columns
        self._px, self._py = self._pts[:, 0], self._pts[:, 1]
        if not hasattr(self, "_pos_of") or len(self._pos_of) < len(self._x):
            self._pos_of = np.full(len(self._x), -1, np.int64)
        self._pos_of[:] = -1
        live = self._pid >= 0
        self._pos_of[self._pid[live]] = np.flatnonzero(live)
        self._free: list[int] = np.flatnonzero(~live).tolist()
        self._drift = 0
        self._qid = self._pid  # the ids queries compare and return, by position

    # -- queries ----------------------------------------------------------------------------
    def first_k(self, x0: float, y0: float, direction: int, k: int, id0: int = -1) -> np.ndarray:
        """x-values of the first ``k`` objects met going west (``WEST``) or east (``EAST``)
        from ``x0`` among those below ``y0``, in the order met (fewer if fewer exist).

        "Below" is in the order of (y, id), so that ties in y, which the paper rules
        out, are broken by id (``id0`` is the id at the apex; -1 counts no tie as below).
        """
        self.counter.first_k += 1
        return self._px[_first_k(*self._searched(), x0, y0, id0, direction, k)]

    def min_y(self, lo: float, hi: float, y0: float, id0: int = 2**62) -> int:
        """Id of the object with ``lo <= x <= hi`` lowest above ``y0`` in the order of
        (y, id) (above ``(y0, id0)``; by default no tie counts as above), or -1."""
        self.counter.min_y += 1
        pos = _min_y(*self._searched(), lo, hi, y0, id0)
        return int(self._qid[pos]) if pos >= 0 else -1

    def min_y_many(
        self, lo: np.ndarray, hi: np.ndarray, y0: np.ndarray, id0: np.ndarray
    ) -> np.ndarray:
        """:meth:`min_y` for every row of the four arrays (one call counted per row)."""
        self.counter.min_y += len(lo)
        pos = _min_y_many(*self._searched(), lo, hi, y0, id0)
        return np.where(pos >= 0, self._qid[pos], -1)

    def top_k_many(self, lo: np.ndarray, hi: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` objects lowest in (y, id) with ``lo[j] <= x <= hi[j]``, for every j:
        ids and y-values (J, k), padded with ``(-1, inf)`` — what ``k`` rounds of
        :meth:`min_y` find, in one search per row (not counted: the caller counts the
        ``min_y`` calls a server would make)."""
        pos = _top_k_many(*self._searched(), np.asarray(lo, np.float64),
                          np.asarray(hi, np.float64), k)  # fmt: skip
        ids = np.where(pos >= 0, self._qid[np.maximum(pos, 0)], -1)
        return ids, np.where(pos >= 0, self._py[np.maximum(pos, 0)], np.inf)

    def _searched(self) -> tuple:
        """What the kernels search: the tree, the points' columns and, by position, the
        ids they compare and return (``_qid``)."""
        t = self._tree
        return t.start, t.end, t.leaf, t.box, self._px, self._py, self._qid


@numba.njit(cache=True)
def _min_y_many(start, end, leaf, box, px, py, pid, lo, hi, y0, id0):
    out = np.empty(len(lo), np.int64)
    for j in range(len(lo)):
        out[j] = _min_y(start, end, leaf, box, px, py, pid, lo[j], hi[j], y0[j], id0[j])
    return out


@numba.njit(cache=True, inline="always")
def _lower_first(box, c1, c2, q):
    return box[c1, 2] < box[c2, 2]  # search first the child reaching lower


# -- top_k: query = (lo, hi, k), state = (best_y, best_p, count, px, py, pid) ---------------


@numba.njit(cache=True, inline="always")
def _top_k_skip(box, v, q, state):
    lo, hi, k = q
    best_y, count = state[0], state[2][0]
    return box[v, 1] < lo or box[v, 0] > hi or (count == k and box[v, 2] > best_y[k - 1])


@numba.njit(cache=True, inline="always")
def _top_k_leaf(start, end, q, state):
    lo, hi, k = q
    best_y, best_p, n, px, py, pid = state
    for p in range(start, end):
        yp = py[p]
        if yp == np.inf or not lo <= px[p] <= hi:
            continue
        count = n[0]
        last = best_p[k - 1] if count == k else -1
        if last >= 0 and (yp > best_y[k - 1] or (yp == best_y[k - 1] and pid[p] > pid[last])):
            continue
        j = count if count < k else k - 1
        while j > 0 and (
            yp < best_y[j - 1] or (yp == best_y[j - 1] and pid[p] < pid[best_p[j - 1]])
        ):
            best_y[j] = best_y[j - 1]
            best_p[j] = best_p[j - 1]
            j -= 1
        best_y[j] = yp
        best_p[j] = p
        if count < k:
            n[0] += 1


_top_k_search = kdtree.traversal(_top_k_skip, kdtree.never, _top_k_leaf, _lower_first)


@numba.njit(cache=True)
def _top_k_many(start, end, leaf, box, px, py, pid, lo, hi, k):
    out = np.full((len(lo), k), -1, np.int64)
    best_y = np.empty(k, np.float64)
    count = np.zeros(1, np.int64)
    for j in range(len(lo)):
        count[0] = 0
        best_p = out[j]
        _top_k_search(start, end, leaf, box, 0, (lo[j], hi[j], k),
                      (best_y, best_p, count, px, py, pid))  # fmt: skip
        best_p[count[0] :] = -1
    return out


# -- first_k: query = (s, u0, y0, id0, k), state = (best_u, best_p, count, px, py, pid) --------
# Work on u = x (west, s = +1) or u = -x (east, s = -1): the objects met first are those
# with the largest u < u0, so this is a k-nearest search along one axis with a y filter.


@numba.njit(cache=True, inline="always")
def _first_k_skip(box, v, q, state):
    s, u0, y0, k = q[0], q[1], q[2], q[4]
    best_u, count = state[0], state[2][0]
    u_lo = min(s * box[v, 0], s * box[v, 1])
    u_hi = max(s * box[v, 0], s * box[v, 1])
    return box[v, 2] > y0 or u_lo >= u0 or (count == k and u_hi <= best_u[k - 1])


@numba.njit(cache=True, inline="always")
def _first_k_leaf(start, end, q, state):
    s, u0, y0, id0, k = q
    best_u, best_p, n, px, py, pid = state
    for p in range(start, end):
        u = s * px[p]
        below = py[p] < y0 or (py[p] == y0 < np.inf and pid[p] < id0)
        if below and u < u0:
            meet(best_u, best_p, n, k, u, p)


@numba.njit(cache=True, inline="always")
def meet(best_u, best_p, n, k, u, p):
    """Keep position ``p`` at ``u`` if it is among the ``k`` largest u met so far
    (``best_u[:n[0]]``, largest first, and their positions ``best_p``)."""
    count = n[0]
    if count == k and u <= best_u[k - 1]:
        return
    j = count if count < k else k - 1
    while j > 0 and best_u[j - 1] < u:
        best_u[j] = best_u[j - 1]
        best_p[j] = best_p[j - 1]
        j -= 1
    best_u[j] = u
    best_p[j] = p
    if count < k:
        n[0] += 1


@numba.njit(cache=True, inline="always")
def _first_k_swap(box, c1, c2, q):
    # Search first the child reaching closer to u0.
    s = q[0]
    return max(s * box[c1, 0], s * box[c1, 1]) > max(s * box[c2, 0], s * box[c2, 1])


_first_k_search = kdtree.traversal(_first_k_skip, kdtree.never, _first_k_leaf, _first_k_swap)


@numba.njit(cache=True)
def _first_k(start, end, leaf, box, px, py, pid, x0, y0, id0, direction, k):
    s = -1.0 if direction > 0 else 1.0
    best_u = np.empty(max(k, 1), np.float64)
    best_p = np.empty(max(k, 1), np.int64)
    count = np.zeros(1, np.int64)
    if k > 0:
        query, state = (s, s * x0, y0, id0, k), (best_u, best_p, count, px, py, pid)
        _first_k_search(start, end, leaf, box, 0, query, state)
    return best_p[: count[0]].copy()


# -- min_y: query = (lo, hi, y0, id0), state = (best, px, py, pid), best = [y, position] ---


@numba.njit(cache=True, inline="always")
def _min_y_skip(box, v, q, state):
    lo, hi, y0 = q[0], q[1], q[2]
    return box[v, 1] < lo or box[v, 0] > hi or box[v, 3] < y0 or box[v, 2] > state[0][0]


@numba.njit(cache=True, inline="always")
def _min_y_leaf(start, end, q, state):
    lo, hi, y0, id0 = q
    best, px, py, pid = state
    for p in range(start, end):
        yp = py[p]
        best_p = int(best[1])
        above = yp > y0 or (yp == y0 and pid[p] > id0)
        better = yp < best[0] or (yp == best[0] and pid[p] < pid[best_p])
        if above and yp < np.inf and better and lo <= px[p] <= hi:
            best[0] = yp
            best[1] = p


_min_y_search = kdtree.traversal(_min_y_skip, kdtree.never, _min_y_leaf, _lower_first)


@numba.njit(cache=True)
def _min_y(start, end, leaf, box, px, py, pid, lo, hi, y0, id0):
    best = np.array([np.inf, -1.0])
    _min_y_search(start, end, leaf, box, 0, (lo, hi, y0, id0), (best, px, py, pid))
    return int(best[1])
