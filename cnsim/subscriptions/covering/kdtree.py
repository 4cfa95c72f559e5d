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
position)``.  Insert, delete and query run in numba; splits and merges (rare) in numpy.

Search (covering: points ``>= q``) is a depth-first search that visits the right child
before the left, so it starts at the rightmost leaf (the top-right region of the
universe, whose points are the likeliest to dominate) and backtracks; a left child
whose points are all ``<= x < q[dim]`` is pruned.  A bitmask records the dimensions in
which the path's lower bounds already exceed ``q``; in a subtree where all are
exceeded every point qualifies and is reported without comparison.  ``covered``
queries are the mirror image (left first).  Nodes visited counts every node popped,
point comparisons every point compared with ``q`` in a leaf.
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.covering.base import CoveringIndex, qualifies

LEFT, RIGHT, PARENT, DIM, BUCKET, DEPTH = range(6)
OVERFLOW = 32
UNDERFLOW = 8


@numba.njit(cache=True)
def _insert(nodes, sval, bkt, bsize, where, P, s):
    v = 0
    while nodes[v, BUCKET] < 0:
        v = nodes[v, LEFT] if P[s, nodes[v, DIM]] <= sval[v] else nodes[v, RIGHT]
    b = nodes[v, BUCKET]
    n = bsize[b]
    if n == bkt.shape[1]:
        return -1 - v
    bkt[b, n] = s
    where[s, 0] = b
    where[s, 1] = n
    bsize[b] = n + 1
    return v


@numba.njit(cache=True)
def _delete(bkt, bsize, where, s):
    b = where[s, 0]
    i = where[s, 1]
    n = bsize[b] - 1
    last = bkt[b, n]
    bkt[b, i] = last
    where[last, 1] = i
    bsize[b] = n
    where[s, 0] = -1
    return b


@numba.njit(cache=True)
def _query(nodes, sval, bkt, bsize, P, seq, q, qseq, k, up, stack, masks, out):
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
                    if qualifies(P, s, q, seq, qseq, up):
                        out[found] = s
                        found += 1
                        if found == k:
                            return found, nv, pc
            continue
        j = nodes[v, DIM]
        x = sval[v]
        if up:
            if x >= q[j]:  # left (<= x) may hold points >= q[j]; visited after the right
                stack[top] = nodes[v, LEFT]
                masks[top] = m
                top += 1
                masks[top] = m | (1 << j)  # right: every point > x >= q[j]
            else:
                masks[top] = m
            stack[top] = nodes[v, RIGHT]
            top += 1
        else:
            if x < q[j]:  # right (> x) may hold points <= q[j]; visited after the left
                stack[top] = nodes[v, RIGHT]
                masks[top] = m
                top += 1
                masks[top] = m | (1 << j)  # left: every point <= x < q[j]
            else:
                masks[top] = m
            stack[top] = nodes[v, LEFT]
            top += 1
    return found, nv, pc


class KDTreeIndex(CoveringIndex):
    """Adaptive bucket k-d tree; ``overflow`` and ``underflow`` are the bucket limits."""

    name = "kdtree"

    def __init__(self, d: int, overflow: int = OVERFLOW, underflow: int = UNDERFLOW, **params):
        super().__init__(d, overflow=overflow, underflow=underflow, **params)
        if not (int(overflow) == overflow and overflow >= 2):
            raise InputError(f"overflow must be an integer >= 2, got {overflow!r}")
        if not (int(underflow) == underflow and 0 <= underflow < overflow):
            raise InputError(f"underflow must be an integer in [0, overflow), got {underflow!r}")
        self.overflow, self.underflow = int(overflow), int(underflow)
        self.nodes = np.full((64, 6), -1, np.int64)
        self.sval = np.zeros(64)
        self.bkt = np.full((32, self.overflow + 1), -1, np.int64)
        self.bsize = np.zeros(32, np.int64)
        self.bnode = np.full(32, -1, np.int64)
        self.where = np.full((self.capacity, 2), -1, np.int64)
        self._free_nodes = list(range(63, 0, -1))
        self._free_buckets = list(range(31, 0, -1))
        self.nodes[0, BUCKET] = 0
        self.nodes[0, DEPTH] = 0
        self.bnode[0] = 0
        self._stack = np.empty(66, np.int64)
        self._masks = np.empty(66, np.int64)
        self._out = np.empty(self.capacity + 1, np.int64)
        self.splits = 0
        self.merges = 0

    # ---- storage
    def _grow(self, capacity: int) -> None:
        where = np.full((capacity, 2), -1, np.int64)
        where[: len(self.where)] = self.where
        self.where = where
        self._out = np.empty(capacity + 1, np.int64)

    def _node(self) -> int:
        if not self._free_nodes:
            old = len(self.nodes)
            nodes = np.full((2 * old, 6), -1, np.int64)
            nodes[:old] = self.nodes
            sval = np.zeros(2 * old)
            sval[:old] = self.sval
            self.nodes, self.sval = nodes, sval
            self._free_nodes = list(range(2 * old - 1, old - 1, -1))
        return self._free_nodes.pop()

    def _bucket(self) -> int:
        if not self._free_buckets:
            old = len(self.bsize)
            bkt = np.full((2 * old, self.bkt.shape[1]), -1, np.int64)
            bkt[:old] = self.bkt
            bsize = np.zeros(2 * old, np.int64)
            bsize[:old] = self.bsize
            bnode = np.full(2 * old, -1, np.int64)
            bnode[:old] = self.bnode
            self.bkt, self.bsize, self.bnode = bkt, bsize, bnode
            self._free_buckets = list(range(2 * old - 1, old - 1, -1))
        return self._free_buckets.pop()

    def _widen(self) -> None:
        w = self.bkt.shape[1]
        bkt = np.full((len(self.bkt), 2 * w), -1, np.int64)
        bkt[:, :w] = self.bkt
        self.bkt = bkt

    @property
    def depth(self) -> int:
        """The depth of the deepest leaf."""
        used = self.nodes[:, BUCKET] >= 0
        used[self._free_nodes] = False
        return int(self.nodes[used, DEPTH].max())

    @property
    def leaves(self) -> int:
        return len(self.bsize) - len(self._free_buckets)

    # ---- hooks
    def _insert(self, slot: int) -> None:
        v = _insert(self.nodes, self.sval, self.bkt, self.bsize, self.where, self.P, slot)
        while v < 0:
            self._widen()
            v = _insert(self.nodes, self.sval, self.bkt, self.bsize, self.where, self.P, slot)
        if self.bsize[self.nodes[v, BUCKET]] > self.overflow:
            todo = [v]
            while todo:
                kids = self._split(todo.pop())
                todo.extend(c for c in kids if self.bsize[self.nodes[c, BUCKET]] > self.overflow)

    def _split(self, v: int) -> tuple[int, ...]:
        nodes = self.nodes
        b = nodes[v, BUCKET]
        n = self.bsize[b]
        pts = self.bkt[b, :n].copy()
        depth = nodes[v, DEPTH]
        for t in range(self.D):
            j = (depth + t) % self.D
            vals = self.P[pts, j]
            srt = np.sort(vals)
            x = srt[(n - 1) // 2]
            if x == srt[-1]:  # median is the maximum: split below it
                below = srt[srt < x]
                if below.size == 0:
                    continue
                x = below[-1]
            break
        else:
            return ()  # identical points: the bucket stays whole
        left = vals <= x
        L, R = self._node(), self._node()
        b2 = self._bucket()
        nodes = self.nodes  # may have been reallocated
        nodes[v, BUCKET] = -1
        nodes[v, DIM] = j
        self.sval[v] = x
        nodes[v, LEFT], nodes[v, RIGHT] = L, R
        for c, bb, part in ((L, b, pts[left]), (R, b2, pts[~left])):
            nodes[c] = (-1, -1, v, -1, bb, depth + 1)
            self.bkt[bb, : len(part)] = part
            self.bsize[bb] = len(part)
            self.bnode[bb] = c
            self.where[part, 0] = bb
            self.where[part, 1] = np.arange(len(part))
        self.splits += 1
        return (L, R)

    def _delete(self, slot: int) -> None:
        b = _delete(self.bkt, self.bsize, self.where, slot)
        if self.bsize[b] < self.underflow:
            self._merge_up(self.bnode[b])

    def _merge_up(self, v: int) -> None:
        nodes = self.nodes
        while v != 0 and self.bsize[nodes[v, BUCKET]] < self.underflow:
            p = nodes[v, PARENT]
            L, R = nodes[p, LEFT], nodes[p, RIGHT]
            bl, br = nodes[L, BUCKET], nodes[R, BUCKET]
            if bl < 0 or br < 0:  # the sibling has been split
                return
            nl, nr = self.bsize[bl], self.bsize[br]
            if nl + nr >= self.overflow:
                return
            moved = self.bkt[br, :nr]
            self.bkt[bl, nl : nl + nr] = moved
            self.where[moved, 0] = bl
            self.where[moved, 1] = np.arange(nl, nl + nr)
            self.bsize[bl] = nl + nr
            self.bsize[br] = 0
            self.bnode[br] = -1
            self._free_buckets.append(int(br))
            nodes[p, BUCKET] = bl
            nodes[p, DIM] = -1
            nodes[p, LEFT] = nodes[p, RIGHT] = -1
            self.bnode[bl] = p
            nodes[L] = -1
            nodes[R] = -1
            self._free_nodes += [int(L), int(R)]
            self.merges += 1
            v = p

    def _query(self, q, qseq, k, up):
        if len(self._stack) < len(self.nodes) + 2:
            self._stack = np.empty(len(self.nodes) + 2, np.int64)
            self._masks = np.empty(len(self.nodes) + 2, np.int64)
        found, nv, pc = _query(
            self.nodes,
            self.sval,
            self.bkt,
            self.bsize,
            self.P,
            self.seq,
            q,
            qseq,
            k,
            up,
            self._stack,
            self._masks,
            self._out,
        )
        return self._out[:found].copy(), int(nv), int(pc)
