"""The BE*-tree (seed 002) and the original BE-tree (its rigid ancestor, seed 002 ref. [7]).

Three node kinds, all in flat tables (``array.array``: fast to update from Python,
read by the numba query kernel through zero-copy numpy views):

* **c-node** ``c``: an l-node (the ids it holds, ``_leaf`` slab), a p-directory
  (``_pdir`` slab of ``(attr, p-node)`` sorted by attr) and the l-node's weight summary
  (``_sum`` slab of ``(attr, max weight)``).  c-node 0 is the root.
* **p-node** ``p``: the partition attribute ``pn_attr[p]``, the root bucket of its
  c-directory ``pn_root[p]``, its expression count (its rank: the optimistic
  popularity ranking of §V-B) and the weight summary of its subtree.
* **bucket** ``b`` (a c-directory node): the bound of its whole subtree on the active
  dimension (``bk_lo``, ``bk_hi``: B^k), the bound of its own c-node's subtree
  (``bk_olo``, ``bk_ohi``: B_O), children ``bk_left`` / ``bk_right`` (B_L, B_R, never
  overlapping: descendant repelling) and its c-node ``bk_cnode``.

For deletion every bucket and c-node also keeps its box over all the partition
attributes of its path (the inactive dimensions of §IV-B): ``k`` rows of ``(lo, hi)`` in
one float pool from ``bk_bx[b]`` / ``cn_bx[c]``, ``k`` = the number of attributes of the
p-node's path (``pn_dlen[p]`` attributes in the pool ``pn_dims`` from ``pn_dstart[p]``);
the BE-tree's grid cells are the columns ``bk_clo`` / ``bk_chi``.  No table holds a
Python object per node: at 1M expressions the tree is millions of nodes.

The builds run in numba on these tables, each the same tree as the Python code kept
here as its reference: BE*-B and the BE-tree's bulk load (``_build.build_main``, on
several threads ``_bulk_threads.build_tables``; ``numba_bulk``) and one-by-one
insertion by ``insert_many`` (``_insert.insert_many``; ``numba_insert``).  Single
``insert`` calls, deletion and recycling run in Python.
"""

from __future__ import annotations

import bisect
import math
from array import array
from typing import ClassVar

import numba
import numpy as np
from numba.typed import List

from cnsim.errors import InputError
from cnsim.subscriptions.generators.checks import check_int
from cnsim.subscriptions.ranked.boolean import _build as B
from cnsim.subscriptions.ranked.boolean import _insert as _I
from cnsim.subscriptions.ranked.boolean import _kernels as K
from cnsim.subscriptions.ranked.boolean._bulk_threads import NAMES, build_tables
from cnsim.subscriptions.ranked.boolean.base import BooleanIndex

INF = math.inf

# ---------------------------------------------------------------------- slabs


def _grown(a: array, extra: bytes) -> array:
    """``a`` with ``extra`` bytes appended: in place, or into a copy if a numpy view of
    ``a`` (a query's kernel arguments) is still alive and forbids resizing it."""
    try:
        a.frombytes(extra)
        return a
    except BufferError:
        b = array(a.typecode, a.tobytes())
        b.frombytes(extra)
        return b


#: each column of ``_insert.insert_many``'s tables (table, column) -> its used-length
#: counter: the row tables' columns share their table's rows, pools count entries
_GROUP_OF = {
    **{(0, k): _I.LF_ROWS for k in range(3)}, (0, 3): _I.LF_POOL,
    **{(1, k): _I.PD_ROWS for k in range(3)}, (1, 3): _I.PD_POOL, (1, 4): _I.PD_POOL,
    **{(2, k): _I.SM_ROWS for k in range(3)}, (2, 3): _I.SM_POOL, (2, 4): _I.SM_POOL,
    **{(3, k): _I.CN_ROWS for k in range(4)},
    **{(4, k): _I.PN_ROWS for k in range(7)}, (4, 7): _I.PN_DIMS,
    **{(5, k): _I.BK_ROWS for k in range(7)},
    **{(6, k): _I.BK_ROWS for k in range(4)}, (6, 4): _I.BX_POOL,
}  # fmt: skip


def _capacities(tabs) -> np.ndarray:
    """Per counter of ``_insert`` (indexed like its ``U``), the size of that table's
    columns in ``tabs``."""
    cap = np.zeros(_I.N_COUNTERS, np.int64)
    for (t, k), g in _GROUP_OF.items():
        cap[g] = len(tabs[t][k])
    return cap


class Slab:
    """Many growable lists in shared pools (one pool per column); list ``l`` occupies
    ``start[l]:start[l] + length[l]``.  A list that outgrows its room moves to the end
    with twice the room (the old room is abandoned: at most ~2x the live size)."""

    def __init__(self, *typecodes: str):
        self.pools = [array(t) for t in typecodes]
        self.start, self.length, self.room = array("q"), array("q"), array("q")

    def new(self, room: int = 4) -> int:
        at = len(self.pools[0])
        self.start = _grown(self.start, array("q", [at]).tobytes())
        self.length = _grown(self.length, array("q", [0]).tobytes())
        self.room = _grown(self.room, array("q", [room]).tobytes())
        self.pools = [_grown(p, bytes(room * p.itemsize)) for p in self.pools]
        return len(self.start) - 1

    def _reserve(self, lst: int, need: int) -> None:
        if need <= self.room[lst]:
            return
        room = max(need, 2 * self.room[lst])
        s, n = self.start[lst], self.length[lst]
        new = len(self.pools[0])
        self.pools = [
            _grown(p, p[s : s + n].tobytes() + bytes((room - n) * p.itemsize))
            for p in self.pools
        ]
        self.start[lst], self.room[lst] = new, room

    def append(self, lst: int, *vals) -> None:
        n = self.length[lst]
        self._reserve(lst, n + 1)
        at = self.start[lst] + n
        for p, v in zip(self.pools, vals, strict=True):
            p[at] = v
        self.length[lst] = n + 1

    def insert(self, lst: int, pos: int, *vals) -> None:
        n = self.length[lst]
        self._reserve(lst, n + 1)
        s = self.start[lst]
        for p, v in zip(self.pools, vals, strict=True):
            p[s + pos + 1 : s + n + 1] = p[s + pos : s + n]
            p[s + pos] = v
        self.length[lst] = n + 1

    def pop(self, lst: int, pos: int) -> None:
        """Remove entry ``pos`` (order kept)."""
        s, n = self.start[lst], self.length[lst]
        for p in self.pools:
            p[s + pos : s + n - 1] = p[s + pos + 1 : s + n]
        self.length[lst] = n - 1

    def set(self, lst: int, *cols) -> None:
        """Replace the list's content by the columns ``cols``."""
        n = len(cols[0])
        self._reserve(lst, n)
        s = self.start[lst]
        for p, c in zip(self.pools, cols, strict=True):
            if isinstance(c, np.ndarray):  # from bytes: no per-item conversion
                c = c.astype(np.int64 if p.typecode == "q" else np.float64).tobytes()
            p[s : s + n] = array(p.typecode, c)
        self.length[lst] = n

    @classmethod
    def from_csr(cls, start, length, *pools) -> Slab:
        """Lists ``pools[k][start[l]:start[l] + length[l]]`` (numpy columns), each with
        exactly its room."""
        slab = cls(*("q" if np.asarray(p).dtype.kind in "iu" else "d" for p in pools))
        slab.pools = [array(q.typecode, np.ascontiguousarray(p).tobytes())
                      for q, p in zip(slab.pools, pools, strict=True)]  # fmt: skip
        slab.start = array("q", np.asarray(start, np.int64).tobytes())
        slab.length = array("q", np.asarray(length, np.int64).tobytes())
        slab.room = array("q", np.asarray(length, np.int64).tobytes())
        return slab

    @classmethod
    def from_arrays(cls, start, length, room, *pools) -> Slab:
        """A slab from its columns as they are (``views`` plus ``room``)."""
        slab = cls.from_csr(start, length, *pools)
        slab.room = array("q", np.asarray(room, np.int64).tobytes())
        return slab

    def columns(self) -> tuple[np.ndarray, ...]:
        """Copies of (start, length, room, *pools) as numpy arrays."""
        return tuple(np.array(a) for a in (self.start, self.length, self.room, *self.pools))

    def col(self, lst: int, k: int = 0):
        s = self.start[lst]
        return self.pools[k][s : s + self.length[lst]]

    def views(self) -> list[np.ndarray]:
        out = [np.frombuffer(self.start, np.int64), np.frombuffer(self.length, np.int64)]
        for p in self.pools:
            out.append(np.frombuffer(p, np.int64 if p.typecode == "q" else np.float64))
        return out

    def nbytes(self) -> int:
        return sum(p.itemsize * len(p) for p in (*self.pools, self.start, self.length, self.room))


# --------------------------------------------------------------------- kernel


@numba.njit(cache=True, inline="always")
def _meets(a, b, lo, hi):
    return a <= hi and lo <= b


@numba.njit(cache=True)
def _visit(T, E, k, R, kind, node, ws_s, ws_p, base, width):
    (lf_start, lf_len, lf_pool, pd_start, pd_len, pd_attr, pd_pn, sm_start, sm_len,
     sm_attr, sm_w, cn_sum, pn_attr, pn_root, pn_sum, bk_lo, bk_hi, bk_olo, bk_ohi,
     bk_left, bk_right, bk_cnode, bk_pnode, S, prune, bst, bsp) = T  # fmt: skip
    slot = E[0]
    e_attr = E[1]
    # (kinds as int64 values, not literals: one specialisation for the recursion)
    KC = node - node
    KB = KC + 1
    if kind == 1:  # SearchCDir (Algorithm 7) over the c-directory under bucket `node`
        # Depth first in the recursion's order (a bucket's c-node, then its left, then
        # its right sub-directory) on an explicit stack: a directory can be thousands of
        # buckets deep (a cluster split again and again on one attribute), deeper than
        # the C stack allows a recursion.  ``bst[bsp[0]:]`` is free; a nested search
        # (from a c-node below) pushes above this one's entries and pops back to them.
        t = slot[pn_attr[bk_pnode[node]]]  # every bucket of the directory: one p-node
        elo = E[3][t]
        ehi = E[4][t]
        floor = bsp[0]
        bst[floor] = node
        bsp[0] = floor + 1
        while bsp[0] > floor:
            bsp[0] -= 1
            b = bst[bsp[0]]
            if _meets(elo, ehi, bk_olo[b], bk_ohi[b]):
                _visit(T, E, k, R, KC, bk_cnode[b], ws_s, ws_p, base, width)
            ch = bk_right[b]
            if ch >= 0 and _meets(elo, ehi, bk_lo[ch], bk_hi[ch]):
                bst[bsp[0]] = ch
                bsp[0] += 1
            ch = bk_left[b]  # popped first: the left sub-directory before the right
            if ch >= 0 and _meets(elo, ehi, bk_lo[ch], bk_hi[ch]):
                bst[bsp[0]] = ch
                bsp[0] += 1
        return
    # MatchTopk (Algorithm 6) at c-node `node`
    c = node
    n = lf_len[c]
    if n > 0:
        scan = True
        if prune:
            s = cn_sum[c]
            ub = K.ub_sparse(sm_attr, sm_w, sm_start[s], sm_start[s] + sm_len[s], E)
            scan = not K.can_prune(R, k, ub)  # l-node pruning
        if scan:
            a0 = lf_start[c]
            for t in range(a0, a0 + n):
                i = lf_pool[t]
                sc = K.match_score(i, S, E)
                if sc >= 0.0:
                    K.offer(R, k, sc, i)
    m = pd_len[c]
    if m == 0:
        return
    # the p-nodes of the event's attributes -> local max-heap ws[base : base + h]
    h = 0
    p0 = pd_start[c]
    p1 = p0 + m
    for j in range(e_attr.size):
        a = e_attr[j]
        lo = K.find(pd_attr, p0, p1, a)
        if lo >= 0:
            p = pd_pn[lo]
            ub = 0.0
            if prune:
                s = pn_sum[p]
                ub = K.ub_sparse(sm_attr, sm_w, sm_start[s], sm_start[s] + sm_len[s], E)
                if K.can_prune(R, k, ub):  # p-node pruning before the heap
                    continue
            x = h  # sift up (max-heap on ub)
            while x > 0:
                y = (x - 1) >> 1
                if not ws_s[base + y] < ub:
                    break
                K.shift(ws_s, ws_p, base + y, base + x)
                x = y
            ws_s[base + x] = ub
            ws_p[base + x] = p
            h += 1
    child = base + width
    while h > 0:  # Algorithm 6 lines 13-19: loop on the p-node heap
        ub = ws_s[base]
        p = ws_p[base]
        if prune and K.can_prune(R, k, ub):
            break  # p-node pruning: matching under this c-node ends
        h -= 1  # pop the max
        ls = ws_s[base + h]
        lp = ws_p[base + h]
        x = 0
        while True:
            y = 2 * x + 1
            if y >= h:
                break
            if y + 1 < h and ws_s[base + y + 1] > ws_s[base + y]:
                y += 1
            if not ws_s[base + y] > ls:
                break
            K.shift(ws_s, ws_p, base + y, base + x)
            x = y
        ws_s[base + x] = ls
        ws_p[base + x] = lp
        _visit(T, E, k, R, KB, pn_root[p], ws_s, ws_p, child, width)


@numba.njit(cache=True)
def betree_kernel(T, E, k, R):
    width = E[1].size + 1
    ws_s = np.empty(width * (width + 1))
    ws_p = np.empty(width * (width + 1), np.int64)
    z = width - width  # int64, not a literal
    _visit(T, E, k, R, z, z, ws_s, ws_p, z, width)


# ------------------------------------------------------------------ the tree

#: at most this many threads build a tree (``build_threads``)
MAX_BUILD_THREADS = 256


def _length(lo: float, hi: float) -> float:
    return hi - lo if lo <= hi else 0.0


def _capacity_for(match_probability: float) -> int:
    """Seed 002 Table II(a): maximum leaf capacity A by match probability."""
    if match_probability < 0.01:
        return 5
    if match_probability < 0.10:
        return 20
    return 160


class BEStarTree(BooleanIndex):
    """BE*-tree: partitioning by attribute rank (Algorithm 4), non-rigid clustering with
    descendant-repelling, overlap-free splits (Algorithm 5; exhaustive or approximate)
    and bottom-up growth (Algorithm 2, beta), deletion with inactive dimensions and
    recycling, hierarchical top-k (Algorithms 6-7).

    ``leaf_capacity`` (A) defaults to Table II(a)'s value for ``match_probability``
    (5 below 1%, 20 below 10%, else 160); ``alpha`` is the minimum share of the
    overflowing bucket each of the left and right buckets must get for a data split;
    ``beta`` the bottom-up growth factor; ``split`` is ``"exhaustive"`` (the paper's
    choice) or ``"approximate"``; p-nodes whose subtree falls below
    ``recycle_below`` expressions (default A // 2) are dissolved and their expressions
    reinserted; ``merge`` applies §IV-C's merge rule after deletions (:meth:`_merge_up`;
    ``stats()["merged"]`` counts the merges); ``ranking`` is Algorithm 4's attribute
    rank (§V-B): ``"popularity"`` (the optimistic one the paper measures: loss = 0) or
    ``"selectivity"`` (loss from a histogram, :meth:`_rank`); ``build_threads`` is how
    many threads the bulk build (BE*-B) of a large batch may use (the same tree on any
    number: ``_bulk_threads``)."""

    name: ClassVar[str] = "betree_star"
    rigid: ClassVar[bool] = False  # BE-tree: grid cells instead of data clustering
    numba_bulk: ClassVar[bool] = True  # BE*-B in numba (False: the Python build)
    #: insert_many one by one in numba (``_insert.insert_many``; False: the Python
    #: ``_insert_at``, the reference, which single inserts and recycling always use)
    numba_insert: ClassVar[bool] = True
    prune: ClassVar[bool] = True  # top-k upper-bound pruning of l-nodes and p-nodes

    def __init__(
        self,
        subscriptions=None,
        *,
        leaf_capacity: int | None = None,
        match_probability: float = 0.001,
        alpha: float = 0.1,
        beta: float = 4.0,
        split: str = "exhaustive",
        recycle_below: int | None = None,
        bulk: bool = True,
        merge: bool = True,
        ranking: str = "popularity",
        build_threads: int = 1,
    ):
        if leaf_capacity is None:
            leaf_capacity = _capacity_for(match_probability)
        if int(leaf_capacity) != leaf_capacity or leaf_capacity < 1:
            raise InputError(f"leaf_capacity must be a positive integer, got {leaf_capacity!r}")
        if not 0 < alpha <= 0.5:
            raise InputError(f"alpha must be in (0, 0.5], got {alpha!r}")
        if not beta >= 1:
            raise InputError(f"beta must be >= 1, got {beta!r}")
        if split not in ("exhaustive", "approximate"):
            raise InputError(f"split must be 'exhaustive' or 'approximate', got {split!r}")
        if ranking not in ("popularity", "selectivity"):
            raise InputError(
                f"ranking must be 'popularity' or 'selectivity', got {ranking!r}"
            )
        self.build_threads = check_int("build_threads", build_threads, 1, MAX_BUILD_THREADS)
        self.A = int(leaf_capacity)
        self.alpha, self.beta, self.split = float(alpha), float(beta), split
        self.recycle_below = self.A // 2 if recycle_below is None else int(recycle_below)
        self.bulk, self.merge, self.ranking = bool(bulk), bool(merge), ranking
        self._selective = ranking == "selectivity"
        self.merged = 0  # merges of the merge rule so far
        self._init_tables()
        super().__init__(subscriptions)

    # ----------------------------------------------------------- tables
    def _init_tables(self) -> None:
        self._leaf = Slab("q")
        self._pdir = Slab("q", "q")
        self._sum = Slab("q", "d")
        self.cn_sum, self.cn_bucket, self.cn_cap = array("q"), array("q"), array("q")
        self.cn_bx = array("q")  # box offset in ``bx`` (-1: none, the root / rigid)
        self.pn_attr, self.pn_root, self.pn_cnode = array("q"), array("q"), array("q")
        self.pn_count, self.pn_sum = array("q"), array("q")
        # the attributes of a p-node's path, its own last (inactive ones, then active)
        self.pn_dstart, self.pn_dlen, self.pn_dims = array("q"), array("q"), array("q")
        self.bk_lo, self.bk_hi, self.bk_olo, self.bk_ohi = (array("d") for _ in range(4))
        self.bk_left, self.bk_right, self.bk_parent = array("q"), array("q"), array("q")
        self.bk_cnode, self.bk_pnode, self.bk_split = array("q"), array("q"), array("b")
        self.bk_bx = array("q")  # box offset in ``bx`` (-1: none, rigid)
        self.bk_clo, self.bk_chi = array("d"), array("d")  # rigid: the grid cell
        self.bx = np.empty(0)  # the box pool; ``bx[:bx_used]`` is in use
        self.bx_used = 0
        self.sub_cnode = array("q")  # c-node holding each subscription (-1: none)
        self._views = None
        self._new_cnode(-1)  # the root

    def _new_cnode(self, bucket: int) -> int:
        c = len(self.cn_bucket)
        self._leaf.new(self.A + 1)
        self._pdir.new(2)
        self.cn_sum.append(self._sum.new(4))
        self.cn_bucket.append(bucket)
        self.cn_cap.append(self.A)
        self.cn_bx.append(-1)
        return c

    def _new_box(self, k: int) -> int:
        """Room for a k-row box in the pool (empty: every row (inf, -inf))."""
        at, need = self.bx_used, self.bx_used + 2 * k
        if need > len(self.bx):  # views of the old pool are not kept across this
            self.bx = np.concatenate([self.bx[:at], np.empty(max(need, 2 * len(self.bx)) - at)])
        self.bx[at:need:2], self.bx[at + 1 : need : 2] = INF, -INF
        self.bx_used = need
        return at

    def _rows(self, at: int, k: int) -> np.ndarray | None:
        return None if at < 0 else self.bx[at : at + 2 * k].reshape(k, 2)

    # the read side of the tables (the tests' and the statistics' view of the nodes)
    def dims_of(self, p: int) -> tuple[int, ...]:
        """The attributes of p-node p's path, its own last."""
        s = self.pn_dstart[p]
        return tuple(self.pn_dims[s : s + self.pn_dlen[p]])

    def used_of(self, c: int) -> frozenset:
        """The attributes already partitioned on above c-node c (none at the root)."""
        return frozenset(self.dims_of(self.bk_pnode[self.cn_bucket[c]])) if c else frozenset()

    def bucket_box(self, b: int) -> np.ndarray | None:
        """Bucket b's box over its path's attributes (a view; None in the BE-tree)."""
        return self._rows(self.bk_bx[b], self.pn_dlen[self.bk_pnode[b]])

    def cnode_box(self, c: int) -> np.ndarray | None:
        """C-node c's own box (its l-node and p-nodes; a view; None at the root and in
        the BE-tree)."""
        return self._rows(self.cn_bx[c], self.pn_dlen[self.bk_pnode[self.cn_bucket[c]]] if c else 0)

    def cell(self, b: int) -> tuple[float, float]:
        """The BE-tree's grid cell of bucket b."""
        return self.bk_clo[b], self.bk_chi[b]

    def _new_pnode(self, attr: int, c: int) -> int:
        p = len(self.pn_attr)
        dims = (self.dims_of(self.bk_pnode[self.cn_bucket[c]]) if c else ()) + (attr,)
        self.pn_attr.append(attr)
        self.pn_cnode.append(c)
        self.pn_count.append(0)
        self.pn_sum.append(self._sum.new(4))
        self.pn_dstart.append(len(self.pn_dims))
        self.pn_dlen.append(len(dims))
        self.pn_dims.extend(dims)
        self.pn_root.append(-1)
        self.pn_root[p] = self._new_bucket(p, -1)
        if self.rigid:
            self._set_cell(self.pn_root[p], self.domain[0], self.domain[1])
        at = bisect.bisect_left(self._pdir.col(c, 0), attr)
        self._pdir.insert(c, at, attr, p)
        return p

    def _new_bucket(self, p: int, parent: int) -> int:
        b = len(self.bk_lo)
        for a, v in ((self.bk_lo, INF), (self.bk_hi, -INF), (self.bk_olo, INF),
                     (self.bk_ohi, -INF), (self.bk_left, -1), (self.bk_right, -1),
                     (self.bk_parent, parent), (self.bk_pnode, p), (self.bk_split, 0)):  # fmt: skip
            a.append(v)
        self.bk_cnode.append(-1)
        k = self.pn_dlen[p]
        self.bk_bx.append(-1 if self.rigid else self._new_box(k))
        self.bk_clo.append(0.0)
        self.bk_chi.append(0.0)
        c = self._new_cnode(b)
        self.bk_cnode[b] = c
        if not self.rigid:
            self.cn_bx[c] = self._new_box(k)
        return b

    # ------------------------------------------------------- expression access
    def _ival(self, i: int, attr: int) -> tuple[float, float]:
        st = self._store
        s, e = int(st.s_start[i]), int(st.s_end[i])
        j = s + int(np.searchsorted(st.p_attr[s:e], attr))
        return float(st.p_lo[j]), float(st.p_hi[j])

    def _attrs(self, i: int) -> np.ndarray:
        st = self._store
        return st.p_attr[st.s_start[i] : st.s_end[i]]

    def _box(self, i: int, dims: tuple[int, ...]) -> np.ndarray:
        st = self._store
        s, e = int(st.s_start[i]), int(st.s_end[i])
        j = s + np.searchsorted(st.p_attr[s:e], dims)
        return np.stack([st.p_lo[j], st.p_hi[j]], axis=1)

    def _sum_add(self, lst: int, i: int) -> None:
        """Fold subscription i into a weight summary (max weight per attribute)."""
        st = self._store
        sl = self._sum
        attrs, ws = sl.pools
        for j in range(int(st.s_start[i]), int(st.s_end[i])):
            a, w = int(st.p_attr[j]), float(st.p_w[j])
            s0 = sl.start[lst]
            s1 = s0 + sl.length[lst]
            at = bisect.bisect_left(attrs, a, s0, s1)
            if at < s1 and attrs[at] == a:
                if ws[at] < w:
                    ws[at] = w
            else:
                sl.insert(lst, at - s0, a, w)
                attrs, ws = sl.pools

    def _sum_rebuild(self, lst: int, ids) -> None:
        st = self._store
        best: dict[int, float] = {}
        for i in ids:
            for j in range(int(st.s_start[i]), int(st.s_end[i])):
                a, w = int(st.p_attr[j]), float(st.p_w[j])
                if best.get(a, -1.0) < w:
                    best[a] = w
        keys = sorted(best)
        self._sum.set(lst, keys, [best[a] for a in keys])

    # ----------------------------------------------------------- bounds
    def _sync(self, b: int) -> None:
        """Copy the active dimension of the boxes into the kernel's arrays."""
        box, own = self.bucket_box(b), self.cnode_box(self.bk_cnode[b])
        self.bk_lo[b], self.bk_hi[b] = box[-1, 0], box[-1, 1]
        self.bk_olo[b], self.bk_ohi[b] = own[-1, 0], own[-1, 1]

    def _set_cell(self, b: int, lo: float, hi: float) -> None:
        self.bk_clo[b], self.bk_chi[b] = lo, hi
        mlo = -INF if lo <= self.domain[0] else lo
        mhi = INF if hi >= self.domain[1] else hi
        self.bk_lo[b], self.bk_hi[b], self.bk_olo[b], self.bk_ohi[b] = mlo, mhi, mlo, mhi

    def _grow_total(self, b: int, box: np.ndarray) -> None:
        if self.rigid:
            return
        _union_into(self.bucket_box(b), box)
        self._sync(b)

    def _grow_own(self, b: int, box: np.ndarray) -> None:
        if self.rigid:
            return
        _union_into(self.cnode_box(self.bk_cnode[b]), box)
        _union_into(self.bucket_box(b), box)
        self._sync(b)

    # ------------------------------------------------------------ insert
    def _add(self, ids: np.ndarray) -> None:
        self._views = None
        need = self._store.n - len(self.sub_cnode)
        if need > 0:
            # _grown: a numpy view of the array may still be alive (BufferError)
            self.sub_cnode = _grown(self.sub_cnode, np.full(need, -1, np.int64).tobytes())
        if self.bulk and len(ids) > 1 and not len(self.pn_attr) and not self._leaf.length[0]:
            self._bulk(np.asarray(ids, np.int64))  # an empty tree: BE*-B
            return
        if self.numba_insert and not self.rigid and len(ids) > 1:
            self._insert_numba(np.asarray(ids, np.int64))
            return
        for i in ids:
            self._insert_at(int(i), 0)

    def _insert_numba(self, ids: np.ndarray) -> None:
        """Algorithms 1, 2, 4, 5 for each expression in turn, in numba
        (:func:`_insert.insert_many`): the tree ``_insert_at`` would build, node for
        node.  The tables go in as numpy columns with room to spare and come back
        grown; where the kernel finds a table short of room it stops at a task
        boundary, the table is grown here (doubled, or more if one step needs more)
        and the kernel resumes."""
        st = self._store
        S = (st.s_start, st.s_end, st.p_attr, st.p_lo, st.p_hi, st.p_w)
        E = int((st.s_end[: st.n] - st.s_start[: st.n]).max())
        prm = (self.A, self.alpha, self.beta, self.split == "exhaustive", self._selective,
               E, st.max_attr + 1)  # fmt: skip

        def q(a):
            return np.array(a, np.int64)

        def f(a):
            return np.array(a, np.float64)

        tabs = (
            list(self._leaf.columns()), list(self._pdir.columns()), list(self._sum.columns()),
            [q(self.cn_sum), q(self.cn_bucket), q(self.cn_cap), q(self.cn_bx)],
            [q(x) for x in (self.pn_attr, self.pn_root, self.pn_cnode, self.pn_count,
                            self.pn_sum, self.pn_dstart, self.pn_dlen, self.pn_dims)],
            [q(x) for x in (self.bk_left, self.bk_right, self.bk_parent, self.bk_cnode,
                            self.bk_pnode, self.bk_split, self.bk_bx)],
            [f(x) for x in (self.bk_lo, self.bk_hi, self.bk_olo, self.bk_ohi)]
            + [self.bx[: self.bx_used].copy()],
        )  # fmt: skip
        U = _capacities(tabs)  # every column is full at the start
        U[_I.MAX_LEAF] = np.max(tabs[0][1], initial=0)
        need = np.zeros(_I.N_COUNTERS, np.int64)
        self._room(tabs, U, need)
        st_kind = List.empty_list(numba.int64)  # the task stack, kept between calls
        st_node = List.empty_list(numba.int64)
        sub = q(self.sub_cnode)
        at = 0
        while True:
            at = _I.insert_many(S, *(tuple(x) for x in tabs), U, _capacities(tabs), sub, prm,
                                ids, at, st_kind, st_node, need)  # fmt: skip
            if at == len(ids) and not len(st_kind):
                break
            self._room(tabs, U, need)

        def a_q(x, g):
            return array("q", x[: U[g]].tobytes())

        LF, PD, SM = (
            [x[: U[_GROUP_OF[(t, k)]]] for k, x in enumerate(tabs[t])] for t in range(3)
        )
        self._leaf = Slab.from_arrays(*LF)
        self._pdir = Slab.from_arrays(*PD)
        self._sum = Slab.from_arrays(*SM)
        self.cn_sum, self.cn_bucket, self.cn_cap, self.cn_bx = (
            a_q(x, _I.CN_ROWS) for x in tabs[3]
        )
        (self.pn_attr, self.pn_root, self.pn_cnode, self.pn_count, self.pn_sum,
         self.pn_dstart, self.pn_dlen) = (a_q(x, _I.PN_ROWS) for x in tabs[4][:7])  # fmt: skip
        self.pn_dims = a_q(tabs[4][7], _I.PN_DIMS)
        (self.bk_left, self.bk_right, self.bk_parent, self.bk_cnode, self.bk_pnode, _,
         self.bk_bx) = (a_q(x, _I.BK_ROWS) for x in tabs[5])  # fmt: skip
        nb = U[_I.BK_ROWS]
        self.bk_split = array("b", tabs[5][5][:nb].astype(np.int8).tobytes())
        self.bk_lo, self.bk_hi, self.bk_olo, self.bk_ohi = (
            array("d", x[:nb].tobytes()) for x in tabs[6][:4]
        )
        self.bx, self.bx_used = tabs[6][4], int(U[_I.BX_POOL])  # (its room kept)
        grow = len(self.bk_bx) - len(self.bk_clo)  # (cells: rigid trees only, not built here)
        self.bk_clo.frombytes(bytes(8 * grow))
        self.bk_chi.frombytes(bytes(8 * grow))
        self.sub_cnode = array("q", sub.tobytes())

    @staticmethod
    def _room(tabs, U, need) -> None:
        """Grow every column whose table has less free room than ``need`` (the
        kernel's last request) to at least twice its size; at the start (``need``
        all zero) give every table a quarter of its size free (at least 64)."""
        for (t, k), g in _GROUP_OF.items():
            x = tabs[t][k]
            used = int(U[g])
            want = used + int(need[g]) + (0 if need.any() else max(64, used // 4))
            if want > len(x):
                cap = max(want, 2 * len(x)) if need.any() else want
                y = np.zeros(cap, x.dtype)
                y[:used] = x[:used]
                tabs[t][k] = y

    # ------------------------------------------------------- bulk (BE*-B)
    def _bulk(self, ids: np.ndarray) -> None:
        """BE*-B: build an empty tree top-down from a whole batch.  The same Algorithms
        4 and 5 as insertion, applied to the batch at once: the root l-node takes every
        expression, partitioning moves each ranked attribute's expressions into its
        p-node, clustering splits every overflowing bucket, the overlap bucket is
        partitioned, and so on down; bounds and boxes are computed bottom-up at the
        end.  (Insertion reaches a structure of the same kind, one expression at a
        time, so its ranks and splits see only the expressions inserted so far.)
        Both trees build in numba (:meth:`_load`, the same tree node for node as the
        Python build below, which ``numba_bulk = False`` keeps as the reference)."""
        if self.numba_bulk:
            self._load(ids)
            return
        self._bulk_partition(0, ids)
        if not self.rigid:
            for b in range(len(self.bk_lo) - 1, -1, -1):  # children before parents
                self._recompute_own(self.bk_cnode[b])
                self._recompute_total(b)

    def _load(self, ids: np.ndarray) -> None:
        """BE*-B in numba (:func:`_bulk_threads.build_tables` on ``build_threads``
        threads, :func:`_build.boxes`): the same tree as the Python build, node for node,
        loaded into the tables."""
        st = self._store
        dlo, dhi = self.domain if self.rigid else (0.0, 1.0)
        cols = (st.s_start, st.s_end, st.p_attr, st.p_lo, st.p_hi, st.p_w)
        t, n_sums = build_tables(
            cols, ids, self.A, self.alpha, self.split == "exhaustive", self.rigid, float(dlo),
            float(dhi), self._selective, self.build_threads,
        )  # fmt: skip
        (cn_bucket, cn_cap, cn_sum, leaf_start, leaf_len, leaf_pool, leaf_box, pn_attr, pn_cnode,
         pn_count, pn_root, pn_sum, pn_dstart, pn_dlen, dims_pool, pd_c, pd_attr, pd_p, bk_parent,
         bk_left, bk_right, bk_cnode, bk_pnode, sum_of, sum_start, sum_len, sum_attr, bk_clo,
         bk_chi, sum_w, lb_lo, lb_hi) = (t[name] for name in NAMES)  # fmt: skip
        nc = len(cn_bucket)
        order = np.lexsort((pd_attr, pd_c))
        pd_ptr = np.zeros(nc + 1, np.int64)
        np.cumsum(np.bincount(pd_c, minlength=nc), out=pd_ptr[1:])
        if not self.rigid:
            ptr, own, total = B.boxes(
                leaf_box, lb_lo, lb_hi, pd_ptr, pd_p[order], pn_root, pn_dlen, bk_left,
                bk_right, bk_cnode, bk_pnode,
            )  # fmt: skip
        self._leaf = Slab.from_csr(leaf_start, leaf_len, leaf_pool)
        self._pdir = Slab.from_csr(pd_ptr[:-1], np.diff(pd_ptr), pd_attr[order], pd_p[order])
        s_start, s_len = np.zeros(n_sums, np.int64), np.zeros(n_sums, np.int64)
        s_start[sum_of], s_len[sum_of] = sum_start, sum_len
        self._sum = Slab.from_csr(s_start, s_len, sum_attr, sum_w)

        def q(a):
            return array("q", np.asarray(a, np.int64).tobytes())

        self.cn_sum, self.cn_bucket, self.cn_cap = q(cn_sum), q(cn_bucket), q(cn_cap)
        self.pn_attr, self.pn_root, self.pn_cnode = q(pn_attr), q(pn_root), q(pn_cnode)
        self.pn_count, self.pn_sum = q(pn_count), q(pn_sum)
        self.pn_dstart, self.pn_dlen, self.pn_dims = q(pn_dstart), q(pn_dlen), q(dims_pool)
        nb = len(bk_parent)

        def d(a):
            return array("d", np.asarray(a, np.float64).tobytes())

        self.bk_clo, self.bk_chi = d(bk_clo), d(bk_chi)
        if self.rigid:  # bounded by the grid cells (the outermost reach +-inf)
            olo = np.where(bk_clo <= dlo, -INF, bk_clo)
            ohi = np.where(bk_chi >= dhi, INF, bk_chi)
            self.bk_lo, self.bk_hi, self.bk_olo, self.bk_ohi = d(olo), d(ohi), d(olo), d(ohi)
            self.bk_bx, self.cn_bx = q(np.full(nb, -1)), q(np.full(nc, -1))
            self.bx, self.bx_used = np.empty(0), 0
        else:
            last = ptr[1:] - 1
            self.bk_lo, self.bk_hi = d(total[last, 0]), d(total[last, 1])
            self.bk_olo, self.bk_ohi = d(own[last, 0]), d(own[last, 1])
            self.bx = np.concatenate([total.ravel(), own.ravel()])
            self.bx_used = len(self.bx)
            self.bk_bx = q(2 * ptr[:-1])
            self.cn_bx = q(np.concatenate([[-1], total.size + 2 * ptr[cn_bucket[1:]]]))
        self.bk_left, self.bk_right, self.bk_parent = q(bk_left), q(bk_right), q(bk_parent)
        self.bk_cnode, self.bk_pnode = q(bk_cnode), q(bk_pnode)
        self.bk_split = array("b", (bk_left >= 0).astype(np.int8).tobytes())
        sub = np.array(self.sub_cnode, np.int64)  # a copy: no view of the table outlives this
        owner, at = B.expand(leaf_start, leaf_len)
        sub[leaf_pool[at]] = owner
        self.sub_cnode = q(sub)

    def _bulk_leaf(self, c: int, ids: np.ndarray) -> None:
        self._leaf.set(c, ids)
        self._sum_set(self.cn_sum[c], ids)
        np.frombuffer(self.sub_cnode, np.int64)[ids] = c

    def _sum_set(self, lst: int, ids: np.ndarray) -> None:
        st = self._store
        self._sum.set(lst, *B.summary(st.s_start, st.s_end, st.p_attr, st.p_w, ids))

    def _bulk_partition(self, c: int, ids: np.ndarray) -> None:
        """Algorithm 4 on c-node c for the expressions ``ids`` (the plan in numba)."""
        if len(ids) > self.cn_cap[c]:
            st = self._store
            used = np.array(sorted(self.used_of(c) | set(self._pdir.col(c, 0))), np.int64)
            attrs, gptr, members, ids, capped = B.partition_plan(
                st.s_start, st.s_end, st.p_attr, st.p_lo, st.p_hi, ids, used, self.cn_cap[c],
                self._selective,
            )  # fmt: skip
            for g in range(len(attrs)):
                p = self._new_pnode(int(attrs[g]), c)
                mids = members[gptr[g] : gptr[g + 1]]
                self.pn_count[p] = len(mids)
                self._sum_set(self.pn_sum[p], mids)
                self._bulk_cluster(self.pn_root[p], mids)
            if capped:  # UpdateClusterCapacity: nothing left to partition on
                self.cn_cap[c] = max(self.A, 2 * len(ids))
        self._bulk_leaf(c, ids)

    def _bulk_cluster(self, b0: int, ids0: np.ndarray) -> None:
        """Algorithm 5 on bucket b0 for the expressions ``ids0`` and on the buckets its
        splits create."""
        st = self._store
        work = [(b0, ids0)]
        while work:
            b, ids = work.pop()
            c = self.bk_cnode[b]
            if len(ids) <= self.cn_cap[c]:
                self._bulk_leaf(c, ids)
                continue
            attr = self.pn_attr[self.bk_pnode[b]]
            lo = B.gather(st.s_start, st.s_end, st.p_attr, st.p_lo, ids, attr)
            hi = B.gather(st.s_start, st.s_end, st.p_attr, st.p_hi, ids, attr)
            side = self._sides(b, np.stack([lo, hi], axis=1))
            if side is None:
                self._bulk_partition(c, ids)
                continue
            L, R = self._split_bucket(b)
            self._bulk_partition(c, ids[side == 1])
            work.append((L, ids[side == 0]))
            work.append((R, ids[side == 2]))

    def _insert_at(self, i: int, c: int) -> None:
        """Algorithm 1 from c-node c (iterative: the recursion is a tail call)."""
        while True:
            best, rank = -1, -1
            used = self.used_of(c)
            pd_attrs = self._pdir.col(c, 0)
            if len(pd_attrs):
                for a in self._attrs(i):
                    a = int(a)
                    if a in used:
                        continue
                    at = bisect.bisect_left(pd_attrs, a)
                    if at < len(pd_attrs) and pd_attrs[at] == a:
                        p = self._pdir.pools[1][self._pdir.start[c] + at]
                        if self.pn_count[p] > rank:
                            best, rank = p, self.pn_count[p]
            if best < 0:  # no partition: into the l-node
                self._leaf_add(c, i)
                if c == 0:
                    self._partition(0)
                else:
                    self._cluster(self.cn_bucket[c])
                return
            b = self._insert_cdir(i, self.pn_root[best])
            self.pn_count[best] += 1
            self._sum_add(self.pn_sum[best], i)
            c = self.bk_cnode[b]

    def _leaf_add(self, c: int, i: int) -> None:
        self._leaf.append(c, i)
        self._sum_add(self.cn_sum[c], i)
        self.sub_cnode[i] = c

    def _insert_cdir(self, i: int, b: int) -> int:
        """Algorithm 2: the bucket whose c-node receives subscription i."""
        p = self.bk_pnode[b]
        attr = self.pn_attr[p]
        lo, hi = self._ival(i, attr)
        if self.rigid:
            while self.bk_split[b]:
                clo, chi = self.cell(b)
                mid = _mid(clo, chi)
                if hi < mid:
                    b = self.bk_left[b]
                elif lo >= mid:
                    b = self.bk_right[b]
                else:
                    break
            return b
        box = self._box(i, self.dims_of(p))
        while True:
            if not self.bk_split[b]:  # a leaf bucket takes it
                self._grow_own(b, box)
                return b
            tlo, thi = self.bk_lo[b], self.bk_hi[b]
            if tlo <= thi and _length(min(lo, tlo), max(hi, thi)) > self.beta * _length(tlo, thi):
                return self._grow_up(b, box, lo, hi)  # bottom-up expansion
            self._grow_total(b, box)
            L, R = self.bk_left[b], self.bk_right[b]
            hit_l = lo <= self.bk_hi[L] and self.bk_lo[L] <= hi
            hit_r = lo <= self.bk_hi[R] and self.bk_lo[R] <= hi
            if hit_l and hit_r:
                self._grow_own(b, box)
                return b
            if hit_l:
                b = L
            elif hit_r:
                b = R
            else:  # minimum expansion, never making L and R overlap
                el = _length(min(lo, self.bk_lo[L]), max(hi, self.bk_hi[L]))
                er = _length(min(lo, self.bk_lo[R]), max(hi, self.bk_hi[R]))
                first, other = (L, R) if el < er else (R, L)
                nlo, nhi = min(lo, self.bk_lo[first]), max(hi, self.bk_hi[first])
                if nlo <= self.bk_hi[other] and self.bk_lo[other] <= nhi:
                    self._grow_own(b, box)
                    return b
                b = first

    def _grow_up(self, b: int, box: np.ndarray, lo: float, hi: float) -> int:
        """A new parent bucket above b holding the subscription (Algorithm 2, 6-11)."""
        p, parent = self.bk_pnode[b], self.bk_parent[b]
        nb = self._new_bucket(p, parent)
        other = self._new_bucket(p, nb)
        if parent < 0:
            self.pn_root[p] = nb
        elif self.bk_left[parent] == b:
            self.bk_left[parent] = nb
        else:
            self.bk_right[parent] = nb
        self.bk_parent[b] = nb
        if (lo + hi) / 2 < (self.bk_lo[b] + self.bk_hi[b]) / 2:  # the old side of it
            self.bk_left[nb], self.bk_right[nb] = other, b
        else:
            self.bk_left[nb], self.bk_right[nb] = b, other
        self.bk_split[nb] = 1
        _union_into(self.bucket_box(nb), self.bucket_box(b))
        self._grow_own(nb, box)
        return nb

    # -------------------------------------------------------- clustering
    def _cluster(self, b0: int) -> None:
        """Algorithm 5 on bucket b0 and the buckets its splits create."""
        work = [b0]
        while work:
            b = work.pop()
            c = self.bk_cnode[b]
            if self._leaf.length[c] <= self.cn_cap[c]:
                continue
            if self.bk_split[b] or self._pdir.length[c]:
                self._partition(c)
                continue
            ids = list(self._leaf.col(c))
            attr = self.pn_attr[self.bk_pnode[b]]
            side = self._sides(b, np.array([self._ival(i, attr) for i in ids]))
            if side is None:
                self._partition(c)
                continue
            L, R = self._split_bucket(b)
            stay = []
            for i, s in zip(ids, side, strict=True):
                if s == 1:
                    stay.append(i)
                    continue
                ch = L if s == 0 else R
                self._leaf_add(self.bk_cnode[ch], i)
                if not self.rigid:
                    self._grow_own(ch, self._box(i, self.dims_of(self.bk_pnode[b])))
            self._leaf.set(c, stay)
            self._sum_rebuild(self.cn_sum[c], stay)
            if not self.rigid:
                self._recompute_own(c)
                self._sync(b)
            self._partition(c)
            work.append(L)
            work.append(R)

    def _sides(self, b: int, iv: np.ndarray) -> np.ndarray | None:
        """Where splitting bucket b sends each interval of ``iv`` (0 left, 1 stays, 2
        right): the halves of its grid cell (BE-tree) or :meth:`_split`; None when b
        cannot split (an atomic cell, or nothing to separate: §IV-C)."""
        if self.rigid:
            clo, chi = self.cell(b)
            if chi - clo <= 1:  # an atomic cell
                return None
            mid = _mid(clo, chi)
            return np.where(iv[:, 1] < mid, 0, np.where(iv[:, 0] >= mid, 2, 1))
        side = self._split(iv)
        return side if (side != 1).any() else None

    def _split_bucket(self, b: int) -> tuple[int, int]:
        """Two new children (L, R) under bucket b (the BE-tree's: the halves of its
        cell)."""
        p = self.bk_pnode[b]
        L = self._new_bucket(p, b)
        R = self._new_bucket(p, b)
        self.bk_left[b], self.bk_right[b], self.bk_split[b] = L, R, 1
        if self.rigid:
            clo, chi = self.cell(b)
            mid = _mid(clo, chi)
            self._set_cell(L, clo, mid)
            self._set_cell(R, mid, chi)
        return L, R

    def _split(self, iv: np.ndarray) -> np.ndarray:
        """Side of every interval: 0 left, 1 overlapping (stays), 2 right.  When every
        interval overlaps (e.g. all the same point) the bucket is **atomic** (§IV-C: "a
        single-valued bucket which cannot further be split") and is partitioned instead
        of split: two empty children would take every later insert into one of them,
        which overflows and splits alike, a chain one level per A inserts (measured: a
        directory 753 buckets deep on a 20-valued attribute)."""
        n = len(iv)
        alpha = max(1, math.ceil(self.alpha * n))
        side = None
        if n >= 2 * alpha:
            side = (self._exhaustive if self.split == "exhaustive" else self._approximate)(
                iv, alpha
            )
        if side is None:
            side = _space_split(iv)
        # the insertion rule: whatever a child's bound encloses goes to that child
        for s in (0, 2):
            m = side == s
            if m.any():
                blo, bhi = iv[m, 0].min(), iv[m, 1].max()
                side[(side == 1) & (iv[:, 0] >= blo) & (iv[:, 1] <= bhi)] = s
        return side

    def _exhaustive(self, iv: np.ndarray, alpha: int):
        """split_opt: every cut I in [alpha, n - alpha] of Omega_up (left takes the I
        smallest upper bounds) and of Omega_low (right takes the I largest lower
        bounds); minimum overlap, then minimum coverage (numba, O(n log n))."""
        side, ok = B.exhaustive(np.ascontiguousarray(iv[:, 0]), np.ascontiguousarray(iv[:, 1]),
                                alpha)  # fmt: skip
        return side if ok else None

    def _approximate(self, iv: np.ndarray, alpha: int):
        """split_apx: left takes intervals by ascending upper bound, right by descending
        lower bound, each only while it stays disjoint from the other; the rest
        overlaps."""
        n = len(iv)
        up = np.lexsort((iv[:, 0], iv[:, 1]))
        down = np.lexsort((-iv[:, 1], -iv[:, 0]))
        side = np.ones(n, np.int64)
        llo = rlo = INF
        lhi = rhi = -INF
        for t in range(n):
            x = up[t]
            if side[x] == 1:
                nlo, nhi = min(llo, iv[x, 0]), max(lhi, iv[x, 1])
                if nhi < rlo or nlo > rhi:
                    side[x], llo, lhi = 0, nlo, nhi
            y = down[t]
            if side[y] == 1:
                nlo, nhi = min(rlo, iv[y, 0]), max(rhi, iv[y, 1])
                if nhi < llo or nlo > lhi:
                    side[y], rlo, rhi = 2, nlo, nhi
        if (side == 0).sum() < alpha or (side == 2).sum() < alpha:
            return None
        return side

    # ------------------------------------------------------- partitioning
    def _partition(self, c: int) -> None:
        """Algorithm 4: while the l-node overflows, move every expression with the
        highest-ranked unused attribute into a new p-node and cluster it."""
        while self._leaf.length[c] > self.cn_cap[c]:
            ids = list(self._leaf.col(c))
            used = self.used_of(c) | set(self._pdir.col(c, 0))
            attr = self._rank(ids, used)
            if attr < 0:  # UpdateClusterCapacity: nothing left to partition on
                self.cn_cap[c] = max(self.A, 2 * len(ids))
                return
            p = self._new_pnode(attr, c)
            root = self.pn_root[p]
            rc = self.bk_cnode[root]
            stay = []
            for i in ids:
                st = self._store
                s, e = int(st.s_start[i]), int(st.s_end[i])
                j = s + int(np.searchsorted(st.p_attr[s:e], attr))
                if j < e and st.p_attr[j] == attr:
                    self._insert_cdir(i, root)  # a leaf root bucket: grows its bounds
                    self._leaf_add(rc, i)
                    self.pn_count[p] += 1
                    self._sum_add(self.pn_sum[p], i)
                else:
                    stay.append(i)
            self._leaf.set(c, stay)
            self._sum_rebuild(self.cn_sum[c], stay)
            if c and not self.rigid:
                self._recompute_own(c)
                b = self.cn_bucket[c]
                self._sync(b)
            self._cluster(root)

    def _rank(self, ids: list[int], used: set[int]) -> int:
        """Algorithm 4's choice: the unused attribute of highest rank (§V-B) among the
        expressions ``ids``, -1 if none.  ``ranking = "popularity"`` (the paper's
        optimistic choice): the number of expressions with the attribute, ties by the
        smaller; ``"selectivity"``: gain minus the histogram's loss
        (:func:`_build.rank_attribute`)."""
        if self._selective:
            st = self._store
            return int(B.rank_attribute(st.s_start, st.s_end, st.p_attr, st.p_lo, st.p_hi,
                                        np.array(ids, np.int64), np.array(sorted(used), np.int64),
                                        B.HIST_BUCKETS))  # fmt: skip
        counts: dict[int, int] = {}
        for i in ids:
            for a in self._attrs(i):
                a = int(a)
                if a not in used:
                    counts[a] = counts.get(a, 0) + 1
        return min(counts, key=lambda a: (-counts[a], a)) if counts else -1

    # ------------------------------------------------------------ delete
    def _remove(self, i: int) -> None:
        self._views = None
        c = self.sub_cnode[i]
        self.sub_cnode[i] = -1
        ids = self._leaf.col(c)
        self._leaf.pop(c, ids.index(i))
        self._sum_rebuild(self.cn_sum[c], self._leaf.col(c))
        if self.merge:
            c = self._merge_up(c)
        recycle = -1
        while c:  # up the path: counts, and boxes from the inactive dimensions
            if not self.rigid:
                self._recompute_own(c)
            b = self.cn_bucket[c]
            while True:
                if not self.rigid:
                    self._recompute_total(b)
                if self.bk_parent[b] < 0:
                    break
                b = self.bk_parent[b]
            p = self.bk_pnode[b]
            self.pn_count[p] -= 1
            if self.pn_count[p] < max(1, self.recycle_below):
                recycle = p
            c = self.pn_cnode[p]
        if recycle >= 0:
            self._recycle(recycle)

    def _merge_up(self, c: int) -> int:
        """The merge rule of §IV-C: an underflowing leaf bucket is merged with its parent
        only if the parent is an open bucket (not partitioned).  A c-directory is binary,
        so a leaf bucket merges together with its sibling: when both are open leaf
        buckets and the three l-nodes together fit the parent's capacity (our reading
        of "underflowing": the split that made them is no longer needed), their
        expressions move up into the parent's l-node and the parent becomes a leaf
        bucket again; repeated up the directory.  The two buckets and their c-nodes are
        left unreachable in the tables.  Returns the c-node now holding c's
        expressions (its boxes are recomputed by the caller, up the path)."""
        leaf, pdir = self._leaf, self._pdir
        while c:
            b = self.cn_bucket[c]
            pb = self.bk_parent[b]
            if pb < 0 or self.bk_split[b] or pdir.length[c]:
                return c
            pc = self.bk_cnode[pb]
            sib = self.bk_right[pb] if self.bk_left[pb] == b else self.bk_left[pb]
            sc = self.bk_cnode[sib]
            if pdir.length[pc] or self.bk_split[sib] or pdir.length[sc]:
                return c
            if leaf.length[pc] + leaf.length[c] + leaf.length[sc] > self.cn_cap[pc]:
                return c
            ids = [*leaf.col(pc), *leaf.col(c), *leaf.col(sc)]
            leaf.set(pc, ids)
            self._sum_rebuild(self.cn_sum[pc], ids)
            for x in (c, sc):
                leaf.set(x, [])
                self._sum.set(self.cn_sum[x], [], [])
            for i in ids:
                self.sub_cnode[i] = pc
            self.bk_left[pb] = self.bk_right[pb] = -1
            self.bk_split[pb] = 0
            self.merged += 1
            c = pc
        return c

    def _recompute_own(self, c: int) -> None:
        """The c-node's box: its l-node's expressions and its p-nodes' root buckets."""
        box = self.cnode_box(c)
        k = len(box)
        box[:, 0], box[:, 1] = INF, -INF
        dims = self.dims_of(self.bk_pnode[self.cn_bucket[c]])
        leaf = self._leaf.col(c)
        if len(leaf):
            st = self._store
            B.union_box(st.s_start, st.s_end, st.p_attr, st.p_lo, st.p_hi,
                        np.frombuffer(leaf, np.int64), np.array(dims, np.int64), box)  # fmt: skip
        for p in self._pdir.col(c, 1):
            _union_into(box, self.bucket_box(self.pn_root[p])[:k])

    def _recompute_total(self, b: int) -> None:
        box = self.bucket_box(b)
        box[:] = self.cnode_box(self.bk_cnode[b])
        for ch in (self.bk_left[b], self.bk_right[b]):
            if ch >= 0:
                _union_into(box, self.bucket_box(ch))
        self._sync(b)

    def _subtree_ids(self, p: int) -> list[int]:
        out, work = [], [self.pn_root[p]]
        while work:
            b = work.pop()
            c = self.bk_cnode[b]
            out.extend(self._leaf.col(c))
            work.extend(self.pn_root[q] for q in self._pdir.col(c, 1))
            work.extend(ch for ch in (self.bk_left[b], self.bk_right[b]) if ch >= 0)
        return out

    def _recycle(self, p: int) -> None:
        """Dissolve p-node p (its rank fell below the threshold): drop it from its
        c-node's p-directory and reinsert its expressions from that c-node (they stay
        in the c-node's subtree, so the ancestors' counts and boxes hold)."""
        c = self.pn_cnode[p]
        ids = self._subtree_ids(p)
        at = list(self._pdir.col(c, 1)).index(p)
        self._pdir.pop(c, at)
        for i in ids:
            self.sub_cnode[i] = -1
        for i in ids:
            self._insert_at(i, c)
        if c and not self.rigid:
            self._recompute_own(c)
            b = self.cn_bucket[c]
            while b >= 0:
                self._recompute_total(b)
                b = self.bk_parent[b]

    # ------------------------------------------------------------ queries
    def _kernel(self) -> tuple:
        if self._views is None:
            lf = self._leaf.views()
            pd = self._pdir.views()
            sm = self._sum.views()

            def v(a):
                return np.frombuffer(a, np.int64 if a.typecode == "q" else np.float64)

            self._views = (
                lf[0], lf[1], lf[2], pd[0], pd[1], pd[2], pd[3], sm[0], sm[1], sm[2], sm[3],
                v(self.cn_sum), v(self.pn_attr), v(self.pn_root), v(self.pn_sum),
                v(self.bk_lo), v(self.bk_hi), v(self.bk_olo), v(self.bk_ohi),
                v(self.bk_left), v(self.bk_right), v(self.bk_cnode), v(self.bk_pnode),
            )  # fmt: skip
        # the c-directory search's stack: a bucket is pushed at most once per event
        bst = np.empty(len(self.bk_left) + 1, np.int64)
        return betree_kernel, (*self._views, self._store.arrays(), self.prune, bst,
                               np.zeros(1, np.int64))  # fmt: skip

    def _nbytes(self) -> int:
        tabs = (self.cn_sum, self.cn_bucket, self.cn_cap, self.pn_attr, self.pn_root,
                self.pn_cnode, self.pn_count, self.pn_sum, self.bk_lo, self.bk_hi, self.bk_olo,
                self.bk_ohi, self.bk_left, self.bk_right, self.bk_parent, self.bk_cnode,
                self.bk_pnode, self.bk_split, self.sub_cnode, self.cn_bx, self.pn_dstart,
                self.pn_dlen, self.pn_dims, self.bk_bx, self.bk_clo, self.bk_chi)  # fmt: skip
        return (
            sum(t.itemsize * len(t) for t in tabs)
            + self._leaf.nbytes() + self._pdir.nbytes() + self._sum.nbytes() + self.bx.nbytes
        )  # fmt: skip

    def stats(self) -> dict:
        """Node counts and depth (for the benchmark)."""
        depth = max(self.pn_dlen, default=0)
        return {
            "c_nodes": len(self.cn_bucket),
            "p_nodes": len(self.pn_attr),
            "buckets": len(self.bk_lo),
            "max_partition_depth": depth,
            "root_leaf": int(self._leaf.length[0]),
            "merged": self.merged,
        }


class BETree(BEStarTree):
    """The original BE-tree as the paper compares against it: the same partitioning,
    but a rigid grid c-directory (every overflowing bucket is cut at the middle of
    its cell of ``domain``, down to unit cells), no bottom-up growth, buckets bounded
    by their cells (dead space included), and top-k by full matching (no pruning)."""

    name: ClassVar[str] = "betree"
    rigid: ClassVar[bool] = True
    prune: ClassVar[bool] = False

    def __init__(
        self,
        subscriptions=None,
        *,
        leaf_capacity: int | None = None,
        match_probability: float = 0.001,
        domain: tuple[float, float] = (0.0, 2.0**32),
        recycle_below: int | None = None,
        bulk: bool = True,
        merge: bool = True,
        ranking: str = "popularity",
        build_threads: int = 1,
    ):
        lo, hi = (float(x) for x in domain)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise InputError(f"domain must be finite with lo < hi, got {domain!r}")
        self.domain = (lo, hi)
        super().__init__(
            subscriptions,
            leaf_capacity=leaf_capacity,
            match_probability=match_probability,
            recycle_below=recycle_below,
            bulk=bulk,
            merge=merge,
            ranking=ranking,
            build_threads=build_threads,
        )


# ---------------------------------------------------------------- helpers


def _union_into(box: np.ndarray, other: np.ndarray) -> None:
    np.minimum(box[:, 0], other[:, 0], out=box[:, 0])
    np.maximum(box[:, 1], other[:, 1], out=box[:, 1])


def _mid(lo: float, hi: float) -> float:
    return math.floor((lo + hi) / 2) if hi - lo > 1 else (lo + hi) / 2


def _union_length(ivs) -> float:
    """Measure of a union of closed intervals (empty ones skipped)."""
    ivs = sorted((a, b) for a, b in ivs if a <= b)
    total, cur_a, cur_b = 0.0, None, None
    for a, b in ivs:
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                total += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        total += cur_b - cur_a
    return total


def _space_split(iv: np.ndarray) -> np.ndarray:
    """split_spaceClustering at the centre s of the bucket: left when the interval ends
    below s, right when it starts above, else overlapping.  With infinite ends the
    centre is taken over the finite endpoints."""
    lo, hi = iv[:, 0], iv[:, 1]
    fin = np.concatenate([lo[np.isfinite(lo)], hi[np.isfinite(hi)]])
    side = np.ones(len(iv), np.int64)
    if fin.size == 0:
        return side
    s = (fin.min() + fin.max()) / 2
    side[hi < s] = 0
    side[lo > s] = 2
    return side
