"""The adaptive bucket k-d tree of seed 001 §IV-C (after Bentley and Friedman).

Points live in leaf *buckets*; internal nodes hold only the discriminator (dimension,
split value; left ``<=``, right ``>``).  A bucket that grows past ``overflow`` points is
split at the median of the dimension ``depth mod D`` (cycling through the dimensions;
a dimension on which all the bucket's points are equal is skipped for the next one,
and a bucket of identical points is left whole).  A bucket that shrinks below
``underflow`` is merged with its sibling if the sibling is still a leaf and the merged
bucket stays below ``overflow`` (repeated up the tree).

Everything is arrays, no Python object per point or node: ``nodes[v] = (left, right,
parent, dim, bucket, depth)`` (``bucket >= 0`` marks a leaf), ``sval[v]`` the split
value, ``bkt[b, :bsize[b]]`` the slots in bucket ``b``, ``where[slot] = (bucket,
position)``, free node and bucket ids on two array stacks (``freen``, ``freeb``) and
the counters in ``meta``.  Insert (with its split), delete (with its merges) and query
all run in numba on ``kernel_state()``, a :class:`KDState` (``kd_room``,
``kd_insert``, ``kd_delete``, ``kd_query``: the index's declared kernels), the same
functions whether called one at a time through the index's Python API or from the
relation graphs' numba command loop (:mod:`cnsim.subscriptions.covering.engine`).
Arrays only grow between calls: an
insert first asks ``kd_room`` whether the leaf it lands in has room and whether a
split would find free node and bucket ids; if not, Python grows them.

Search (covering: points ``>= q``) is a depth-first search that visits the right child
before the left, so it starts at the rightmost leaf (the top-right region of the
universe, whose points are the likeliest to dominate) and backtracks; a left child
whose points are all ``<= x < q[dim]`` is pruned.  A bitmask records the dimensions in
which the path's lower bounds already exceed ``q``; in a subtree where all are
exceeded every point qualifies and is reported without comparison.  ``covered``
queries are the mirror image (left first).  Nodes visited counts every node popped,
point comparisons every point compared with ``q`` in a leaf.

Point copies (``point_copies``, default on): every bucket keeps a copy of its points,
``bpt[b, i, :] = P[bkt[b, i]]``, kept in step with ``bkt`` by insert, split, delete
and merge, so that a leaf scan reads one contiguous block (Bentley's buckets hold their
records).  With ``point_copies=False`` ``bpt`` is an empty 2-D array and a leaf scan
reads the slot's row of ``P``, as the Z-order index and the naive scan do: the layout
of §V-C's comparison made the same for both indexes.  The choice is made when numba
compiles, by the number of dimensions of ``bpt`` (``_leaf_test``, ``_keep_point``,
``_move_point``), not by a test per point; the tree, its nodes visited and its point
comparisons are the same either way.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba.core import types
from numba.extending import overload

from cnsim.errors import InputError
from cnsim.subscriptions.covering.base import CoveringIndex, Kernels, qualifies

LEFT, RIGHT, PARENT, DIM, BUCKET, DEPTH = range(6)
OVERFLOW = 32
UNDERFLOW = 8
# meta[...]: free node ids, free bucket ids, splits, merges, overflow, underflow
NFREE_NODES, NFREE_BUCKETS, SPLITS, MERGES, OVER, UNDER = range(6)
# kd_room's answers
ROOM, WIDEN, MORE_IDS = 0, 1, 2


@numba.njit(cache=True, inline="always")
def _qualifies_row(bpt, b, i, s, q, seq, qseq, up) -> bool:
    """:func:`qualifies` on the copy ``bpt[b, i]`` of slot ``s``'s point in its bucket
    (a leaf scan then reads one contiguous block instead of a row of ``P`` per point).
    Branch-free over the coordinates, as :func:`qualifies` (why and how: there)."""
    D = q.shape[0]
    lt = 0  # coordinates below q's
    gt = 0  # above
    same = 0  # equal
    for j in range(D):  # one loop for both directions (see qualifies)
        lt += bpt[b, i, j] < q[j]
        gt += bpt[b, i, j] > q[j]
        same += bpt[b, i, j] == q[j]
    if (lt if up else gt) != 0:
        return False
    if same < D:
        return True
    return seq[s] < qseq if up else seq[s] > qseq


def _leaf_test(bpt, P, b, i, s, q, seq, qseq, up):  # pragma: no cover - numba overload
    """Whether the point at position ``i`` of bucket ``b`` (slot ``s``) covers
    (``up``) or is covered by ``q``: from the bucket's copy (``bpt`` 3-D) or from
    ``P[s]`` (no copies)."""
    raise NotImplementedError


def _keep_point(bpt, b, i, P, s):  # pragma: no cover - numba overload
    """Copy ``P[s]`` to position ``i`` of bucket ``b`` (nothing without copies)."""
    raise NotImplementedError


def _move_point(bpt, b, i, b2, i2):  # pragma: no cover - numba overload
    """Move the copy at position ``i2`` of bucket ``b2`` to position ``i`` of bucket
    ``b`` (nothing without copies)."""
    raise NotImplementedError


def _copies(bpt) -> bool:
    """Whether the numba type of ``bpt`` is that of the point copies (3-D)."""
    return isinstance(bpt, types.Array) and bpt.ndim == 3


@overload(_leaf_test, inline="always")
def _leaf_test_ol(bpt, P, b, i, s, q, seq, qseq, up):
    if _copies(bpt):
        return lambda bpt, P, b, i, s, q, seq, qseq, up: _qualifies_row(
            bpt, b, i, s, q, seq, qseq, up
        )
    return lambda bpt, P, b, i, s, q, seq, qseq, up: qualifies(P, s, q, seq, qseq, up)


@overload(_keep_point, inline="always")
def _keep_point_ol(bpt, b, i, P, s):
    if _copies(bpt):

        def keep(bpt, b, i, P, s):
            bpt[b, i, :] = P[s, :]

        return keep
    return lambda bpt, b, i, P, s: None


@overload(_move_point, inline="always")
def _move_point_ol(bpt, b, i, b2, i2):
    if _copies(bpt):

        def move(bpt, b, i, b2, i2):
            bpt[b, i, :] = bpt[b2, i2, :]

        return move
    return lambda bpt, b, i, b2, i2: None


@numba.njit(cache=True)
def _leaf(nodes, sval, P, s):
    v = 0
    while nodes[v, BUCKET] < 0:
        v = nodes[v, LEFT] if P[s, nodes[v, DIM]] <= sval[v] else nodes[v, RIGHT]
    return v


@numba.njit(cache=True)
def kd_room(st, P, s):
    """Whether inserting slot ``s`` (point already at ``P[s]``) can proceed: ``ROOM``,
    ``WIDEN`` (its leaf's bucket row is full) or ``MORE_IDS`` (a split would lack ids)."""
    nodes, sval, bkt, bsize, meta = st[0], st[1], st[2], st[3], st[8]
    v = _leaf(nodes, sval, P, s)
    n = bsize[nodes[v, BUCKET]]
    if n == bkt.shape[1]:
        return WIDEN
    if n + 1 > meta[OVER] and (meta[NFREE_NODES] < 2 or meta[NFREE_BUCKETS] < 1):
        return MORE_IDS
    return ROOM


@numba.njit(cache=True)
def _split(st, P, v):
    nodes, sval, bkt, bsize, bnode, where, freen, freeb, meta = st[:9]
    bpt = st[11]
    b = nodes[v, BUCKET]
    n = bsize[b]
    pts = bkt[b, :n].copy()
    depth = nodes[v, DEPTH]
    D = P.shape[1]
    vals = np.empty(n)
    j = -1
    x = 0.0
    for t in range(D):
        jj = (depth + t) % D
        for i in range(n):
            vals[i] = P[pts[i], jj]
        srt = np.sort(vals)
        x = srt[(n - 1) // 2]
        if x == srt[n - 1]:  # median is the maximum: split below it
            i = n - 1
            while i >= 0 and srt[i] == x:
                i -= 1
            if i < 0:
                continue
            x = srt[i]
        j = jj
        break
    if j < 0:
        return  # identical points: the bucket stays whole
    meta[NFREE_NODES] -= 1
    L = freen[meta[NFREE_NODES]]
    meta[NFREE_NODES] -= 1
    R = freen[meta[NFREE_NODES]]
    meta[NFREE_BUCKETS] -= 1
    b2 = freeb[meta[NFREE_BUCKETS]]
    nodes[v, BUCKET] = -1
    nodes[v, DIM] = j
    sval[v] = x
    nodes[v, LEFT] = L
    nodes[v, RIGHT] = R
    for c, bb, side in ((L, b, True), (R, b2, False)):
        nodes[c, LEFT] = -1
        nodes[c, RIGHT] = -1
        nodes[c, PARENT] = v
        nodes[c, DIM] = -1
        nodes[c, BUCKET] = bb
        nodes[c, DEPTH] = depth + 1
        m = 0
        for i in range(n):  # stable partition: arrival order within a bucket is kept
            if (vals[i] <= x) == side:
                s = pts[i]
                bkt[bb, m] = s
                _keep_point(bpt, bb, m, P, s)
                where[s, 0] = bb
                where[s, 1] = m
                m += 1
        bsize[bb] = m
        bnode[bb] = c
    meta[SPLITS] += 1


@numba.njit(cache=True)
def kd_insert(st, P, s):
    """Index slot ``s``; ``kd_room`` must have answered ``ROOM``."""
    nodes, sval, bkt, bsize, where, meta = st[0], st[1], st[2], st[3], st[5], st[8]
    v = _leaf(nodes, sval, P, s)
    b = nodes[v, BUCKET]
    n = bsize[b]
    bkt[b, n] = s
    _keep_point(st[11], b, n, P, s)
    where[s, 0] = b
    where[s, 1] = n
    bsize[b] = n + 1
    if n + 1 > meta[OVER]:
        _split(st, P, v)  # the halves never exceed the limit again (see README)


@numba.njit(cache=True)
def kd_delete(st, P, s):
    """Unindex slot ``s``, merging underfull buckets upwards."""
    nodes, sval, bkt, bsize, bnode, where, freen, freeb, meta = st[:9]
    bpt = st[11]
    b = where[s, 0]
    i = where[s, 1]
    n = bsize[b] - 1
    last = bkt[b, n]
    bkt[b, i] = last
    _move_point(bpt, b, i, b, n)
    where[last, 1] = i
    bsize[b] = n
    where[s, 0] = -1
    if n >= meta[UNDER]:
        return
    v = bnode[b]
    while v != 0 and bsize[nodes[v, BUCKET]] < meta[UNDER]:
        p = nodes[v, PARENT]
        L = nodes[p, LEFT]
        R = nodes[p, RIGHT]
        bl = nodes[L, BUCKET]
        br = nodes[R, BUCKET]
        if bl < 0 or br < 0:  # the sibling has been split
            return
        nl = bsize[bl]
        nr = bsize[br]
        if nl + nr >= meta[OVER]:
            return
        for t in range(nr):
            u = bkt[br, t]
            bkt[bl, nl + t] = u
            _move_point(bpt, bl, nl + t, br, t)
            where[u, 0] = bl
            where[u, 1] = nl + t
        bsize[bl] = nl + nr
        bsize[br] = 0
        bnode[br] = -1
        freeb[meta[NFREE_BUCKETS]] = br
        meta[NFREE_BUCKETS] += 1
        nodes[p, BUCKET] = bl
        nodes[p, DIM] = -1
        nodes[p, LEFT] = -1
        nodes[p, RIGHT] = -1
        bnode[bl] = p
        for c in (L, R):
            for f in range(6):
                nodes[c, f] = -1
            freen[meta[NFREE_NODES]] = c
            meta[NFREE_NODES] += 1
        meta[MERGES] += 1
        v = p


@numba.njit(cache=True)
def kd_query(st, P, seq, q, qseq, k, up, out):
    """Up to ``k`` slots covering (``up``) or covered by ``q`` into ``out``;
    ``(found, nodes visited, point comparisons)``."""
    nodes, sval, bkt, bsize, stack, masks, bpt = st[0], st[1], st[2], st[3], st[9], st[10], st[11]
    D = q.shape[0]
    full = (1 << D) - 1
    top = 1
    stack[0] = 0
    masks[0] = 0
    found = 0
    nv = 0
    pc = 0
    while top > 0:
        top -= 1
        v = stack[top]
        m = masks[top]
        nv += 1
        b = nodes[v, BUCKET]
        if b >= 0:
            n = bsize[b]
            if m == full:  # the leaf's region lies inside the query region
                for i in range(n):
                    out[found] = bkt[b, i]
                    found += 1
                    if found == k:
                        return found, nv, pc
            else:
                for i in range(n):
                    s = bkt[b, i]
                    pc += 1
                    if _leaf_test(bpt, P, b, i, s, q, seq, qseq, up):
                        out[found] = s
                        found += 1
                        if found == k:
                            return found, nv, pc
            continue
        top = kd_descend(nodes, sval, stack, masks, top, v, m, q, up)
    return found, nv, pc


@numba.njit(cache=True, inline="always")
def kd_descend(nodes, sval, stack, masks, top, v, m, q, up):
    """Push the children of inner node ``v`` (reached with mask ``m``) that may hold
    points covering (``up``) or covered by ``q``; the new stack top.  Up, the right
    child (> x) always may, and holds only points > x: if x >= q[j], beyond q on
    dimension ``j`` (bit ``j`` set in its mask), and the left child (<= x) may too,
    visited after the right.  Down, the mirror image."""
    j = nodes[v, DIM]
    far, near = (nodes[v, RIGHT], nodes[v, LEFT]) if up else (nodes[v, LEFT], nodes[v, RIGHT])
    if (sval[v] >= q[j]) == up:
        stack[top] = near
        masks[top] = m
        top += 1
        masks[top] = m | (1 << j)
    else:
        masks[top] = m
    stack[top] = far
    return top + 1


class KDState(NamedTuple):
    """The k-d tree's arrays, as its kernels take them (see the module docstring)."""

    nodes: np.ndarray
    sval: np.ndarray
    bkt: np.ndarray
    bsize: np.ndarray
    bnode: np.ndarray
    where: np.ndarray
    freen: np.ndarray
    freeb: np.ndarray
    meta: np.ndarray
    stack: np.ndarray
    masks: np.ndarray
    bpt: np.ndarray  # (buckets, width, D) point copies, or (0, 0) without


class KDTreeIndex(CoveringIndex):
    """Adaptive bucket k-d tree; ``overflow`` and ``underflow`` are the bucket limits,
    ``point_copies`` whether the buckets keep copies of their points (see the module
    docstring)."""

    name = "kdtree"
    kernels = Kernels(KDState, kd_room, kd_insert, kd_delete, kd_query)

    def __init__(
        self,
        d: int,
        overflow: int = OVERFLOW,
        underflow: int = UNDERFLOW,
        point_copies: bool = True,
        **params,
    ):
        super().__init__(
            d, overflow=overflow, underflow=underflow, point_copies=point_copies, **params
        )
        if not (int(overflow) == overflow and overflow >= 2):
            raise InputError(f"overflow must be an integer >= 2, got {overflow!r}")
        if not (int(underflow) == underflow and 0 <= underflow < overflow):
            raise InputError(f"underflow must be an integer in [0, overflow), got {underflow!r}")
        if not isinstance(point_copies, bool | np.bool_):
            raise InputError(f"point_copies must be True or False, got {point_copies!r}")
        self.overflow, self.underflow = int(overflow), int(underflow)
        self.point_copies = bool(point_copies)
        self.nodes = np.full((64, 6), -1, np.int64)
        self.sval = np.zeros(64)
        self.bkt = np.full((32, self.overflow + 1), -1, np.int64)
        self.bpt = self._copies_array(32, self.overflow + 1)  # the buckets' points, copied
        self.bsize = np.zeros(32, np.int64)
        self.bnode = np.full(32, -1, np.int64)
        self.where = np.full((self.capacity, 2), -1, np.int64)
        self.freen = np.zeros(64, np.int64)
        self.freen[:63] = np.arange(63, 0, -1)
        self.freeb = np.zeros(32, np.int64)
        self.freeb[:31] = np.arange(31, 0, -1)
        self.meta = np.array([63, 31, 0, 0, self.overflow, self.underflow], np.int64)
        self.nodes[0, BUCKET] = 0
        self.nodes[0, DEPTH] = 0
        self.bnode[0] = 0
        self._stack = np.empty(66, np.int64)
        self._masks = np.empty(66, np.int64)
        self._state()

    def _copies_array(self, buckets: int, width: int) -> np.ndarray:
        """Room for the point copies of ``buckets`` buckets (an empty 2-D array without)."""
        if self.point_copies:
            return np.zeros((buckets, width, self.D))
        return np.zeros((0, 0))

    def _state(self) -> None:
        self.st = KDState(
            self.nodes,
            self.sval,
            self.bkt,
            self.bsize,
            self.bnode,
            self.where,
            self.freen,
            self.freeb,
            self.meta,
            self._stack,
            self._masks,
            self.bpt,
        )

    # ---- storage
    def _grow(self, capacity: int) -> None:
        where = np.full((capacity, 2), -1, np.int64)
        where[: len(self.where)] = self.where
        self.where = where
        self._state()

    def make_room(self, code: int) -> None:
        """Grow what ``kd_room`` found missing."""
        if code == WIDEN:
            w = self.bkt.shape[1]
            bkt = np.full((len(self.bkt), 2 * w), -1, np.int64)
            bkt[:, :w] = self.bkt
            self.bkt = bkt
            if self.point_copies:
                bpt = self._copies_array(len(self.bkt), 2 * w)
                bpt[:, :w] = self.bpt
                self.bpt = bpt
        elif code == MORE_IDS:
            if self.meta[NFREE_NODES] < 2:
                old = len(self.nodes)
                nodes = np.full((2 * old, 6), -1, np.int64)
                nodes[:old] = self.nodes
                sval = np.zeros(2 * old)
                sval[:old] = self.sval
                freen = np.zeros(2 * old, np.int64)
                c = self.meta[NFREE_NODES]
                freen[:old] = np.arange(2 * old - 1, old - 1, -1)
                freen[old : old + c] = self.freen[:c]
                self.nodes, self.sval, self.freen = nodes, sval, freen
                self.meta[NFREE_NODES] = old + c
                self._stack = np.empty(2 * old + 2, np.int64)
                self._masks = np.empty(2 * old + 2, np.int64)
            if self.meta[NFREE_BUCKETS] < 1:
                old = len(self.bsize)
                bkt = np.full((2 * old, self.bkt.shape[1]), -1, np.int64)
                bkt[:old] = self.bkt
                if self.point_copies:
                    bpt = self._copies_array(2 * old, self.bkt.shape[1])
                    bpt[:old] = self.bpt
                    self.bpt = bpt
                bsize = np.zeros(2 * old, np.int64)
                bsize[:old] = self.bsize
                bnode = np.full(2 * old, -1, np.int64)
                bnode[:old] = self.bnode
                freeb = np.zeros(2 * old, np.int64)
                c = self.meta[NFREE_BUCKETS]
                freeb[:old] = np.arange(2 * old - 1, old - 1, -1)
                freeb[old : old + c] = self.freeb[:c]
                self.bkt, self.bsize, self.bnode, self.freeb = bkt, bsize, bnode, freeb
                self.meta[NFREE_BUCKETS] = old + c
        else:
            raise ValueError(f"unknown k-d tree room code {code}")
        self._state()

    @property
    def depth(self) -> int:
        """The depth of the deepest leaf."""
        return int(self.nodes[self.nodes[:, BUCKET] >= 0, DEPTH].max())

    @property
    def leaves(self) -> int:
        return int((self.nodes[:, BUCKET] >= 0).sum())

    @property
    def splits(self) -> int:
        return int(self.meta[SPLITS])

    @property
    def merges(self) -> int:
        return int(self.meta[MERGES])
