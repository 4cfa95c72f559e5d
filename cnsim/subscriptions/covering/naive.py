"""The naive covering index: a linear scan of the live points (seed 001 §V-C's baseline).

The live slots are kept densely in ``order`` (swap-remove on delete), in arrival
order until deletes permute it; the scan stops at the ``k``-th hit.  Every point
looked at is one point comparison; the scan visits one "node" (the whole list).
Insert, delete and scan are numba functions on ``kernel_state()``, a
:class:`NaiveState` ``(order, pos, meta)`` (``meta[0]`` the number of live points),
declared as the index's :class:`~cnsim.subscriptions.covering.base.Kernels` for the
relation graphs' command loop (:mod:`cnsim.subscriptions.covering.engine`).

numba's on-disk cache (``cache=True``) keys a compiled function on its own file only:
after a change to a function it calls from another module (``qualifies`` in
``base.py``, ``kd_query`` in ``kdtree.py``), this file must change too (or
``__pycache__`` be cleared), else the old machine code is loaded.  Last done for the
branch-free ``qualifies``.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from cnsim.subscriptions.covering.base import CoveringIndex, Kernels, qualifies


class NaiveState(NamedTuple):
    """The naive index's arrays, as its kernels take them."""

    order: np.ndarray  # the live slots, densely
    pos: np.ndarray  # each slot's position in order (-1: not live)
    meta: np.ndarray  # [live points]


@numba.njit(cache=True)
def naive_room(st, P, s):
    """The scan never needs room."""
    return 0


@numba.njit(cache=True)
def naive_insert(st, P, s):
    order, pos, meta = st
    i = meta[0]
    order[i] = s
    pos[s] = i
    meta[0] = i + 1


@numba.njit(cache=True)
def naive_delete(st, P, s):
    order, pos, meta = st
    i = pos[s]
    n = meta[0] - 1
    last = order[n]
    order[i] = last
    pos[last] = i
    pos[s] = -1
    meta[0] = n


@numba.njit(cache=True)
def naive_query(st, P, seq, q, qseq, k, up, out):
    order, meta = st[0], st[2]
    found = 0
    pc = 0
    for t in range(meta[0]):
        s = order[t]
        pc += 1
        if qualifies(P, s, q, seq, qseq, up):
            out[found] = s
            found += 1
            if found == k:
                break
    return found, 1, pc


class NaiveIndex(CoveringIndex):
    """Linear scan; ``nodes_visited`` is 1 per query."""

    name = "naive"
    kernels = Kernels(NaiveState, naive_room, naive_insert, naive_delete, naive_query)

    def __init__(self, d: int, **params):
        super().__init__(d, **params)
        self._order = np.empty(self.capacity, np.int64)
        self._pos = np.full(self.capacity, -1, np.int64)
        self._meta = np.zeros(1, np.int64)
        self.st = NaiveState(self._order, self._pos, self._meta)

    def _grow(self, capacity: int) -> None:
        order = np.empty(capacity, np.int64)
        order[: len(self._order)] = self._order
        pos = np.full(capacity, -1, np.int64)
        pos[: len(self._pos)] = self._pos
        self._order, self._pos = order, pos
        self.st = NaiveState(self._order, self._pos, self._meta)
