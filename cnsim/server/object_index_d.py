"""The server's object index for d-dimensional box subscriptions (seed 003 §IV-C):
objects as points ``(x_1..x_d, y)`` of E = R^{d+1}, with y-updates (``inf`` deletes,
a finite value revives), and the d-dimensional generalisations of the two queries
the Paint algorithms are built on, each counted per call.

Notation (§IV-C and the proof of Theorem 8): object ``j`` *dominates* object ``o``
with respect to ``x_i`` when ``x_j`` lies in ``MEB(x_i, x_o)``, the smallest box
holding both (on every dimension t, ``x_jt`` between ``x_it`` and ``x_ot``
inclusive). A subscription box holding x_i and x_o holds every object dominating o.
"Below ``(y0, id0)``" is in the order of (y, id): ties in y (which the paper rules
out) are broken by id, as in the 1-d index.

* ``skyband(x0, y0, id0, k, skip)`` — the generalised ``first_k``: the *k-skyband*
  of the objects below ``(y0, id0)`` (``skip`` excluded) with respect to ``x0``: those
  dominated by fewer than k of them, ties of equal position broken by id (the proof
  of Theorem 8's ``U(i)``). For d = 1 it is first_k west ∪ first_k east. Whatever
  is outside it changes no influence region: every cell of S that holds k objects
  holds k of the skyband (:mod:`cnsim.algorithms.boxes`).
* ``first_exposed(order, start, x0, P, k)`` — the generalised ``min_y``: walking the
  objects of ``order`` (those above the sweep, by (y, id); from :meth:`sweep_order`)
  from position ``start``, the first whose MEB with ``x0`` holds fewer than k objects
  of ``P`` — the lowest object above the sweep in the *search region*
  ``{x : MEB(x0, x) ∈ IR}`` (the 1-d influence interval, generalised). Returns the
  position and how many objects it examined.
* ``min_y(lo, hi, y0, id0)`` — the lowest object above ``(y0, id0)`` in the closed box
  ``[lo, hi]`` of R^d (1-d ``min_y``; kept for callers and checked against brute force).

The search region is unbounded along the axes through x0 once d >= 2 (a box that
is narrow in one dimension may reach anywhere in another), so no bounding box
prunes it; the index is therefore columnar arrays scanned by numba kernels
(O(n) per call, O(|P|) per examined object), which is what the bench measures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np

from cnsim.errors import InputError
from cnsim.server.object_index import CallCounter, check_update


@dataclass
class CallCounterD(CallCounter):
    """Index calls by type: ``first_k`` (skyband), ``min_y`` (first_exposed),
    ``examined`` (objects the min_y walks tested), ``snap``."""

    examined: int = 0
    more: ClassVar[dict[str, str]] = {"examined": "examined"}


class ObjectIndexD:
    """Objects ``(x (n, d), y (n,))`` for ``skyband``, ``first_exposed`` and ``min_y``."""

    def __init__(self, x: np.ndarray, y: np.ndarray, counter: CallCounterD | None = None):
        x = np.asarray(x, np.float64)
        y = np.asarray(y, np.float64)
        if x.ndim == 1:
            x = x.reshape(-1, 1)
        if x.ndim != 2 or y.ndim != 1 or len(x) != len(y) or x.shape[1] < 1:
            raise InputError(
                f"objects: x must be (n, d) with d >= 1 and y (n,), got {x.shape} and {y.shape}"
            )
        if np.isnan(x).any() or np.isnan(y).any():
            raise InputError("objects: x and y must not contain NaN")
        if np.isinf(x).any():
            raise InputError("objects: x must be finite")
        self.x = np.ascontiguousarray(x)
        self.y = y.copy()
        self.d = x.shape[1]
        self.counter = counter if counter is not None else CallCounterD()

    def __len__(self) -> int:
        return len(self.y)

    def update(self, i: int, y_new: float) -> None:
        """Set object ``i``'s y-value (``inf`` deletes it, a finite value revives it)."""
        check_update(len(self.y), i, y_new)
        self.y[i] = y_new

    def skyband(self, x0: np.ndarray, y0: float, id0: int, k: int, skip: int = -1) -> np.ndarray:
        """Ids of the k-skyband w.r.t. ``x0`` of the live objects below ``(y0, id0)``
        other than ``skip`` (see the module docstring)."""
        self.counter.first_k += 1
        below = _below(self.y, y0, id0, skip)
        return _skyband(self.x, np.asarray(x0, np.float64), below, k)

    def reduce(self, x0: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
        """The k-skyband w.r.t. ``x0`` of the objects ``ids`` (not counted: no index call)."""
        return _skyband(self.x, np.asarray(x0, np.float64), np.asarray(ids, np.int64), k)

    def sweep_order(self, y0: float, id0: int, y1: float, id1: int) -> np.ndarray:
        """Ids of the live objects strictly between ``(y0, id0)`` and ``(y1, id1)``, by (y, id)."""
        ids = _between(self.y, y0, id0, y1, id1)
        return ids[np.lexsort((ids, self.y[ids]))]

    def first_exposed(
        self, order: np.ndarray, start: int, x0: np.ndarray, P: np.ndarray, k: int
    ) -> int:
        """Position in ``order`` (from ``start``) of the first object whose MEB with
        ``x0`` holds fewer than k objects of ``P``; ``len(order)`` if none."""
        self.counter.min_y += 1
        pos = _first_exposed(self.x, order, start, np.asarray(x0, np.float64),
                             np.asarray(P, np.int64), k)  # fmt: skip
        self.counter.examined += min(pos + 1, len(order)) - start
        return pos

    def min_y(self, lo: np.ndarray, hi: np.ndarray, y0: float, id0: int) -> int:
        """The live object of the closed box ``[lo, hi]`` lowest above ``(y0, id0)``, or -1."""
        self.counter.min_y += 1
        return _min_y(self.x, self.y, np.asarray(lo, np.float64), np.asarray(hi, np.float64),
                      y0, id0)  # fmt: skip


@numba.njit(cache=True)
def _below(y, y0, id0, skip):
    out = np.empty(len(y), np.int64)
    n = 0
    for o in range(len(y)):
        if o != skip and y[o] < np.inf and (y[o] < y0 or (y[o] == y0 and o < id0)):
            out[n] = o
            n += 1
    return out[:n]


@numba.njit(cache=True)
def _between(y, y0, id0, y1, id1):
    out = np.empty(len(y), np.int64)
    n = 0
    for o in range(len(y)):
        yo = y[o]
        if yo == np.inf:
            continue
        if (yo > y0 or (yo == y0 and o > id0)) and (yo < y1 or (yo == y1 and o < id1)):
            out[n] = o
            n += 1
    return out[:n]


@numba.njit(cache=True, inline="always")
def _dominates(x, j, o, x0):
    """Whether x_j lies in MEB(x0, x_o)."""
    for t in range(x.shape[1]):
        a, b = x0[t], x[o, t]
        lo, hi = (b, a) if b < a else (a, b)
        if x[j, t] < lo or x[j, t] > hi:
            return False
    return True


@numba.njit(cache=True)
def _skyband(x, x0, ids, k):
    # Dominators come first in the order of (sum of distances, id): the float sum is
    # monotone in each distance, and equal positions have equal sums.
    key = np.zeros(len(ids))
    for p in range(len(ids)):
        s = 0.0
        for t in range(x.shape[1]):
            s += abs(x[ids[p], t] - x0[t])
        key[p] = s
    order = np.argsort(ids)
    order = order[np.argsort(key[order], kind="mergesort")]
    sky = np.empty(len(ids), np.int64)
    n = 0
    for p in order:
        o = ids[p]
        c = 0
        for q in range(n):
            if _dominates(x, sky[q], o, x0):
                c += 1
                if c >= k:
                    break
        if c < k:
            sky[n] = o
            n += 1
    return np.sort(sky[:n])


@numba.njit(cache=True)
def _first_exposed(x, order, start, x0, P, k):
    for pos in range(start, len(order)):
        h = order[pos]
        c = 0
        for q in range(len(P)):
            if _dominates(x, P[q], h, x0):
                c += 1
                if c >= k:
                    break
        if c < k:
            return pos
    return len(order)


@numba.njit(cache=True)
def _min_y(x, y, lo, hi, y0, id0):
    best = -1
    for o in range(len(y)):
        yo = y[o]
        if yo == np.inf or not (yo > y0 or (yo == y0 and o > id0)):
            continue
        inside = True
        for t in range(x.shape[1]):
            if x[o, t] < lo[t] or x[o, t] > hi[t]:
                inside = False
                break
        if inside and (best < 0 or yo < y[best] or (yo == y[best] and o < best)):
            best = o
    return best
