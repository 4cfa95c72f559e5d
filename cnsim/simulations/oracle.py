"""The brute-force oracle: every subscription's true top-k, computed from scratch.

Deliberately independent of the indexes it checks: a plain scan of all objects
per subscription (numba), O(m · n · a). One oracle serves every subscription kind: a
subscription is a closed box ``[lo, hi]`` over the objects' a attributes
(:meth:`cnsim.subscriptions.kinds.base.SubscriptionKind.bounds`: a 1-d range over x, a
1.5-d range over (x1, x2), a box over its d attributes), an object the point of its
attributes (:meth:`~cnsim.subscriptions.kinds.base.SubscriptionKind.object_points`).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def true_top_k(points, y, lo, hi, k):
    """Ids and y-values of each subscription's top k (sorted by (y, id), padded with
    ``(-1, inf)``), by scanning every object ``points[o]`` (live: finite ``y[o]``) for
    every subscription box ``[lo[j], hi[j]]``."""
    m, a = lo.shape
    out_i = np.full((m, k), -1, np.int64)
    out_y = np.full((m, k), np.inf)
    for j in range(m):
        for o in range(len(y)):
            yo = y[o]
            if yo == np.inf:
                continue
            inside = True
            for t in range(a):
                if not (lo[j, t] <= points[o, t] <= hi[j, t]):
                    inside = False
                    break
            if not inside:
                continue
            last_y, last_i = out_y[j, k - 1], out_i[j, k - 1]
            if last_i >= 0 and (yo > last_y or (yo == last_y and o > last_i)):
                continue
            c = k - 1
            while c > 0 and (
                out_i[j, c - 1] < 0
                or yo < out_y[j, c - 1]
                or (yo == out_y[j, c - 1] and o < out_i[j, c - 1])
            ):
                out_y[j, c] = out_y[j, c - 1]
                out_i[j, c] = out_i[j, c - 1]
                c -= 1
            out_y[j, c] = yo
            out_i[j, c] = o
    return out_i, out_y


def true_top_k_ranges(x, y, l, r, k):
    """:func:`true_top_k` for 1-d ranges ``[l, r]`` over objects at ``x``."""
    return true_top_k(_column(x), np.asarray(y, np.float64), _column(l), _column(r), k)


def _column(v) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(v, np.float64)[:, None])


def inside(points, lo, hi, obj) -> np.ndarray:
    """Mask of the subscriptions whose box holds object ``obj``'s point."""
    p = points[obj]
    return ((lo <= p) & (p <= hi)).all(axis=1)


@numba.njit(cache=True)
def ranks(x, y, l, r, subs, obj):
    """1-based rank of object ``obj[t]`` among the live objects of subscription
    ``subs[t]``'s range (objects with smaller y, ties by id, plus one)."""
    out = np.empty(len(subs), np.int64)
    for t in range(len(subs)):
        s, o = subs[t], obj[t]
        below = 0
        for p in range(len(x)):
            if p != o and l[s] <= x[p] <= r[s] and (y[p] < y[o] or (y[p] == y[o] and p < o)):
                below += 1
        out[t] = below + 1
    return out


class Truth:
    """The true state of every object id of a run's workload ``w``, advanced update by
    update from its event stream, and every subscription as a box over the objects'
    attributes (the kind's)."""

    def __init__(self, w):
        cap = len(w.x) + len(w.events.obj)
        self.x = np.full(cap, np.nan)
        self.y = np.full(cap, np.inf)
        self.x[: len(w.x)], self.y[: len(w.x)] = w.x, w.y
        self.l, self.r, self.k = w.l, w.r, w.k
        self.workload = w
        self.lo, self.hi = (np.ascontiguousarray(b, np.float64) for b in w.kind.bounds(w))

    def apply(self, updates) -> None:
        """Apply updates in order (an object may be updated twice in a batch)."""
        for i, x, _, y_new in updates:
            self.x[i], self.y[i] = x, y_new

    def points(self) -> np.ndarray:
        """Every object id's attributes, as the kind's boxes read them."""
        return np.ascontiguousarray(self.workload.kind.object_points(self.workload, self.x))

    def top_k(self, y: np.ndarray | None = None):
        """Every subscription's true top-k (ids, ys) for the current y (or ``y``)."""
        y = self.y if y is None else y
        points = self.points()
        return true_top_k(points, y[: len(points)], self.lo, self.hi, self.k)

    def inside(self, subs: np.ndarray) -> np.ndarray:
        """How many live objects each of subscriptions ``subs`` holds now."""
        points = self.points()
        return objects_inside(points, self.y[: len(points)], self.lo[subs], self.hi[subs])


@numba.njit(cache=True)
def objects_inside(points, y, lo, hi):
    """For each box ``[lo[j], hi[j]]``, how many live objects (finite ``y``) it holds."""
    out = np.zeros(lo.shape[0], np.int64)
    for j in range(lo.shape[0]):
        for o in range(len(y)):
            if y[o] == np.inf:
                continue
            inside = True
            for t in range(lo.shape[1]):
                if not (lo[j, t] <= points[o, t] <= hi[j, t]):
                    inside = False
                    break
            if inside:
                out[j] += 1
    return out
