"""Array-based k-d tree over D-dimensional points, shared by the object indexes (points
of the event space E) and the subscription indexes and gateways (points of the
subscription space S: D = 2 for 1-d ranges, 3 for 1.5-d ranges, 2d for d-dimensional
boxes, seed 003 §II-A, appendix D, §IV-C).

The tree is a complete binary tree in implicit layout (children of node ``v`` are
``2v + 1`` and ``2v + 2``) over a permutation of the points ``pts`` (n, D): node ``v``
owns the points at positions ``start[v]:end[v]`` of the permuted arrays. Splits cycle
through the first ``split`` coordinates (all D unless told) at the median. Every node
stores the bounding box of its *live* points, ``box[v, 2a] = min`` and ``box[v, 2a + 1]
= max`` of coordinate ``a``; queries prune on boxes only, so a point may change its
coordinates in place as long as the boxes on its leaf-to-root path are refitted
(:func:`refit`). With ``live = a``, points whose coordinate ``a`` is ``+inf`` are dead
and left out of the boxes (``live = -1``: every point counts).

The object indexes' queries (``first_k``, ``min_y``) are each one depth-first search of
a tree (:func:`traversal`) with four small numba functions saying what the query does
at a node: skip it (its box cannot help), take it whole (its box lies inside the
query), take a leaf point by point, and which child to search first. The box queries
of S here are such searches too, written out once each with D a constant of the
compiled code (:func:`box_kernels`): a *message box* ``q`` is ``2D`` values, a pair
``(lo, hi)`` per coordinate ``a``, reaching the points with ``lo < p_a <= hi`` where
``lower_open[a]`` and ``lo <= p_a < hi`` elsewhere (the CN rule ``lO < l <= lI``,
``rI <= r < rO`` of :mod:`cnsim.subscriptions.space`, read per coordinate, as the zones
of :mod:`cnsim.brokers.zones` read it): ``report_forest`` (which points a message
reaches, in any trees of a forest), ``snap`` (how many, and their smallest closed box)
and ``report_upto`` (the first few).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numba
import numpy as np

LEAF_SIZE = 16
STACK = 128  # deeper than any tree of < 2**60 points


@dataclass
class KdTree:
    """The node arrays of a k-d tree, the permutation it imposes on the points and the
    points in that order."""

    perm: np.ndarray  # perm[pos] = index of the point stored at tree position pos
    start: np.ndarray  # first position of each node
    end: np.ndarray  # one past the last position of each node
    box: np.ndarray  # (nodes, 2D) live bounding boxes: min, max of every coordinate
    leaf: np.ndarray  # True for leaves (and for unused slots, which are empty leaves)
    leaf_of: np.ndarray  # leaf node holding each tree position (empty for a static tree)
    pts: np.ndarray  # (n, D) the points in tree order: pts[pos] = points[perm[pos]]

    @property
    def n_nodes(self) -> int:
        """Number of node slots (some may be unused below shallow leaves)."""
        return len(self.start)


def build_forest(
    points: np.ndarray, group_ptr: np.ndarray, leaf_size: int = LEAF_SIZE, live: int = -1
) -> tuple[KdTree, np.ndarray]:
    """One k-d tree per group of consecutive points (group ``g`` holds positions
    ``group_ptr[g]:group_ptr[g + 1]``), stored in one set of node arrays: tree ``g``'s
    node ``v`` (implicit layout) is ``root[g] + v``. Returns the forest and ``root``."""
    group_ptr = np.asarray(group_ptr, np.int64)
    if len(group_ptr) < 2:
        return build(points[:0], leaf_size, live=live), np.zeros(0, np.int64)
    return _build_trees(points, group_ptr, leaf_size, None, live)


def build(
    points: np.ndarray, leaf_size: int = LEAF_SIZE, split: int | None = None, live: int = -1
) -> KdTree:
    """A k-d tree over the rows of ``points`` (n, D), split on the first ``split``
    coordinates; boxes are over all D coordinates of the live points."""
    return _build_trees(points, np.array([0, len(points)], np.int64), leaf_size, split, live)[0]


def _build_trees(points, group_ptr, leaf_size, split, live) -> tuple[KdTree, np.ndarray]:
    """The trees of every group, built together level by level. A node splits its
    positions at the median of its level's coordinate (one ``argpartition``); the nodes
    of one level, over all trees, are split together: one ``argpartition`` along the
    rows of a 2-d array per segment size, which selects row by row as one call per
    node would, so the trees are those of one call per node, without its overhead."""
    points = np.asarray(points, np.float64)
    coords = np.array(points.T[: points.shape[1] if split is None else split], order="C")
    split = len(coords)
    sizes = np.diff(group_ptr)
    leaves = np.maximum(1, -(-sizes // leaf_size))
    depth = np.where(leaves > 1, np.ceil(np.log2(np.maximum(leaves, 1))), 0).astype(np.int64)
    tree_nodes = 2 ** (depth + 1) - 1
    root = np.concatenate([[0], np.cumsum(tree_nodes)[:-1]]).astype(np.int64)
    start = np.repeat(group_ptr[:-1], tree_nodes)  # unused slots: empty, at the group
    end = start.copy()
    leaf = np.ones(len(start), np.bool_)
    n = int(group_ptr[-1])
    perm = np.arange(n, dtype=np.int64)
    end[root] = group_ptr[1:]
    nodes, local, tree = root, np.zeros(len(root), np.int64), np.arange(len(root))
    level = 0
    while len(nodes):
        s, e = start[nodes], end[nodes]
        split_here = (e - s > leaf_size) & (2 * local + 1 < tree_nodes[tree])
        nodes, local, tree = nodes[split_here], local[split_here], tree[split_here]
        if not len(nodes):
            break
        leaf[nodes] = False
        s, e = s[split_here], e[split_here]
        for size in np.unique(e - s):
            rows = s[e - s == size][:, None] + np.arange(size)
            order = np.argpartition(coords[level % split][perm[rows]], size // 2, axis=1)
            perm[rows] = np.take_along_axis(perm[rows], order, axis=1)
        mid = (s + e) // 2
        first = 2 * local + 1
        c1 = root[tree] + first
        start[c1], end[c1] = s, mid
        start[c1 + 1], end[c1 + 1] = mid, e
        nodes = np.concatenate([c1, c1 + 1])
        local = np.concatenate([first, first + 1])
        tree = np.concatenate([tree, tree])
        level += 1
    pts = np.ascontiguousarray(points[perm])
    box = np.empty((len(start), 2 * pts.shape[1]), np.float64)
    # only a tree whose points move (``live`` given: an object index) refits by position
    leaf_of = np.empty(n if live >= 0 else 0, np.int64)
    _fit_forest(start, end, leaf, pts, box, leaf_of, root, tree_nodes, live)
    return KdTree(perm, start, end, box, leaf, leaf_of, pts), root


@numba.njit(cache=True)
def _fit_forest(start, end, leaf, pts, box, leaf_of, root, tree_nodes, live):
    # Children have larger indices than parents, so a reverse sweep fits bottom-up.
    for g in range(len(root)):
        r0 = root[g]
        for local in range(tree_nodes[g] - 1, -1, -1):
            v = r0 + local
            if leaf[v]:
                _fit_leaf(start, end, pts, box, v, live)
                if len(leaf_of):
                    for p in range(start[v], end[v]):
                        leaf_of[p] = v
            else:
                _merge(box, v, r0 + 2 * local + 1)


@numba.njit(cache=True)
def _fit_leaf(start, end, pts, box, v, live):
    for c in range(2 * pts.shape[1]):  # a tree with dead points has one more column
        box[v, c] = np.inf if c % 2 == 0 else -np.inf
    for p in range(start[v], end[v]):
        if live < 0 or pts[p, live] < np.inf:
            for a in range(pts.shape[1]):
                box[v, 2 * a] = min(box[v, 2 * a], pts[p, a])
                box[v, 2 * a + 1] = max(box[v, 2 * a + 1], pts[p, a])


@numba.njit(cache=True, inline="always")
def _merge(box, v, c1):
    for a in range(box.shape[1] // 2):
        box[v, 2 * a] = min(box[c1, 2 * a], box[c1 + 1, 2 * a])
        box[v, 2 * a + 1] = max(box[c1, 2 * a + 1], box[c1 + 1, 2 * a + 1])


@numba.njit(cache=True)
def refit(start, end, pts, box, leaf_of, pos, live):
    """Refit the boxes on the path from the leaf holding ``pos`` to the root (a tree
    built with ``live``, whose ``leaf_of`` is filled)."""
    v = leaf_of[pos]
    _fit_leaf(start, end, pts, box, v, live)
    while v > 0:
        v = (v - 1) // 2
        _merge(box, v, 2 * v + 1)


class Tombstones:
    """Points of a static tree (or forest) that leave and come back, in place.

    A point is *dead* while its coordinate ``axis`` is ``+inf``, where ``axis`` is the
    first coordinate that is not lower-open: a message box reaches ``lo <= p < hi``
    there, which no ``+inf`` meets, so a search looking at points one by one passes the
    dead. The boxes are fitted over the live points only, and the box array gains a
    column, ``box[v, 2D]``: the dead points under node ``v``; a node taken whole (its
    live box inside the query) then reports its live points and counts ``end - start -
    box[v, 2D]`` (:func:`_report_tree`, :func:`_snap`, :func:`_report_upto`). The tree
    keeps its shape; a change refits one leaf-to-root path (O(leaf + depth)). Built on
    first use: 16 bytes a point (the own coordinate, the leaf) and 8 a node."""

    def __init__(self, tree: KdTree, roots: np.ndarray, axis: int):
        self.tree, self.axis = tree, axis
        self.own = tree.pts[:, axis].copy()  # every position's own coordinate
        n_nodes = tree.n_nodes
        sizes = np.diff(np.append(np.asarray(roots, np.int64), n_nodes))
        self.root_of = np.repeat(np.asarray(roots, np.int64), sizes)
        leaves = np.flatnonzero(tree.leaf & (tree.end > tree.start))
        self.leaf_of = np.empty(len(tree.pts), np.int64)
        self.leaf_of[_positions(tree.start[leaves], tree.end[leaves])] = np.repeat(
            leaves, tree.end[leaves] - tree.start[leaves]
        )
        box = np.zeros((n_nodes, tree.box.shape[1] + 1))
        box[:, :-1] = tree.box  # no point dead yet
        tree.box = box

    def set(self, pos: np.ndarray, alive: bool) -> None:
        """Make the points at tree positions ``pos`` alive or dead."""
        pos = np.asarray(pos, np.int64)
        values = self.own[pos] if alive else np.full(len(pos), np.inf)
        t = self.tree
        _move(t.start, t.end, t.pts, t.box, self.leaf_of, self.root_of, pos, self.axis, values)


def _positions(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, e) for s, e in zip(start, end)])``, vectorised."""
    sizes = end - start
    first = np.repeat(start - np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes)
    return first + np.arange(int(sizes.sum()))


@numba.njit(cache=True)
def _move(start, end, pts, box, leaf_of, root_of, pos, axis, values):
    """Set ``pts[pos[t], axis] = values[t]``, refit each one's leaf-to-root path over the
    live points and keep the dead counts ``box[:, 2D]`` of the path (node ``root +
    local`` of a forest has children ``root + 2 local + 1``, ``+ 2``)."""
    dead = box.shape[1] - 1
    for t in range(len(pos)):
        p = pos[t]
        was_dead = pts[p, axis] == np.inf
        pts[p, axis] = values[t]
        change = int(values[t] == np.inf) - int(was_dead)
        v = leaf_of[p]
        _fit_leaf(start, end, pts, box, v, axis)
        box[v, dead] += change
        root = root_of[v]
        while v > root:
            v = root + (v - root - 1) // 2
            _merge(box, v, root + 2 * (v - root) + 1)
            box[v, dead] += change


def traversal(skip, take_whole, take_leaf, swap):
    """A depth-first search of one tree of a forest (a plain tree is the forest of one
    tree, rooted at node 0) made of four numba functions saying what a query does at a
    node: ``skip(box, v, query, state)`` prunes node ``v``; ``take_whole(box, v, s, e,
    query, state)`` consumes positions ``s:e`` of a node at once and returns True if it
    did; ``take_leaf(s, e, query, state)`` scans a leaf; ``swap(box, c1, c2, query)``
    says to search child ``c2`` before ``c1``. The query's result is what the functions
    leave in ``state``. Returns ``search(start, end, leaf, box, root, query, state)``.

    (The functions are bound when the search is made rather than passed at each call:
    numba caches the compiled callers of a search, not of a function taking functions.)
    """

    @numba.njit(cache=True)
    def search(start, end, leaf, box, root, query, state):
        stack = np.empty(STACK, np.int64)  # local node numbers (implicit layout)
        stack[0] = 0
        sp = 1
        while sp > 0:
            sp -= 1
            local = stack[sp]
            v = root + local
            if skip(box, v, query, state):
                continue
            if take_whole(box, v, start[v], end[v], query, state):
                continue
            if leaf[v]:
                take_leaf(start[v], end[v], query, state)
                continue
            c1, c2 = 2 * local + 1, 2 * local + 2
            if swap(box, root + c1, root + c2, query):
                c1, c2 = c2, c1
            stack[sp] = c1  # searched second
            stack[sp + 1] = c2  # searched first
            sp += 2

    return search


@numba.njit(cache=True, inline="always")
def never(box, v, s, e, query, state) -> bool:
    """A ``take_whole`` for queries that always look inside."""
    return False


# -- message boxes ------------------------------------------------------------------------
# A message box q = (lo_0, hi_0, …, lo_{D-1}, hi_{D-1}) reaches lo < p <= hi on the
# coordinates with lower_open and lo <= p < hi on the others. The kernels turn it once
# into the closed box c = [c_lo, c_hi] per coordinate reaching the same points
# (:func:`_closed`: ``lo < p`` is ``p >= nextafter(lo, inf)``, ``p < hi`` is
# ``p <= nextafter(hi, -inf)``), so every node and point test is branch-free.
#
# The searches take D and ``mask`` (bit a set: coordinate a is lower-open) as arguments
# and are inlined into their callers. :func:`box_kernels` makes the callers for one
# (D, lower_open) with both bound as constants, so the compiler unrolls every loop over
# the coordinates (the searches spend their time in those loops); numba caches each
# such set under its constants. The children of a node are searched right one first.


def lower_open_mask(lower_open) -> int:
    """``lower_open`` (one flag per coordinate) as a bit mask: bit ``a`` is coordinate
    ``a``'s flag."""
    return sum(1 << a for a, open_ in enumerate(lower_open) if open_)


@numba.njit(cache=True, inline="always")
def _mask_nb(lower_open):
    mask = 0
    for a in range(len(lower_open)):
        if lower_open[a]:
            mask |= 1 << a
    return mask


@numba.njit(cache=True, inline="always")
def reaches(c, pts, p, D) -> bool:
    """Whether closed box ``c`` (:func:`_closed`) holds point ``pts[p]``."""
    for a in range(D):  # noqa: SIM110 - a loop numba compiles
        if not (c[2 * a] <= pts[p, a] <= c[2 * a + 1]):
            return False
    return True


def reaches_np(q, pts: np.ndarray, lower_open) -> np.ndarray:
    """Which rows of ``pts`` message box ``q`` reaches (brute force, for checks)."""
    q = np.asarray(q, np.float64)
    ok = np.ones(len(pts), bool)
    for a, open_ in enumerate(lower_open):
        lo, hi, x = q[2 * a], q[2 * a + 1], pts[:, a]
        ok &= ((lo < x) & (x <= hi)) if open_ else ((lo <= x) & (x < hi))
    return ok


@numba.njit(cache=True, inline="always")
def _closed(q, D, mask):
    """The closed box reaching exactly the points message box ``q`` reaches (an empty
    one, ``[inf, -inf]``, on a coordinate where ``q`` reaches nothing at all)."""
    c = np.empty(2 * D)
    for a in range(D):
        lo, hi = q[2 * a], q[2 * a + 1]
        if (mask >> a) & 1:
            lo = np.nextafter(lo, np.inf) if lo < np.inf else np.inf
            hi = hi if q[2 * a] < np.inf else -np.inf
        else:
            hi = np.nextafter(hi, -np.inf) if hi > -np.inf else -np.inf
            lo = lo if q[2 * a + 1] > -np.inf else np.inf
        c[2 * a], c[2 * a + 1] = lo, hi
    return c


@numba.njit(cache=True, inline="always")
def _misses(box, v, c, D):
    """Whether closed box ``c`` misses every point of node ``v``."""
    for a in range(D):
        if not (box[v, 2 * a + 1] >= c[2 * a] and box[v, 2 * a] <= c[2 * a + 1]):
            return True
    return False


@numba.njit(cache=True, inline="always")
def _holds(box, v, c, D):
    """Whether closed box ``c`` holds every point of node ``v``."""
    for a in range(D):  # noqa: SIM110 - a loop numba compiles
        if not (box[v, 2 * a] >= c[2 * a] and box[v, 2 * a + 1] <= c[2 * a + 1]):
            return False
    return True


@numba.njit(cache=True, inline="always")
def _dead_axis(D, mask):
    """The coordinate a dead point has at ``+inf`` (:class:`Tombstones`): the first
    that is not lower-open."""
    for a in range(D):
        if not (mask >> a) & 1:
            return a
    return 0


@numba.njit(cache=True, inline="always")
def _dead_under(box, v, D):
    """Dead points under node ``v`` (0 for a tree without :class:`Tombstones`)."""
    return box[v, 2 * D] if box.shape[1] > 2 * D else 0.0


@numba.njit(cache=True, inline="always")
def _report_tree(start, end, leaf, box, pts, root, c, D, out, n, A):
    """Append to ``out[n:]`` the positions of the live points of the tree rooted at
    ``root`` that closed box ``c`` holds (``out`` has room for all of them; ``A``: the
    dead axis); the new count."""
    stack = np.empty(STACK, np.int64)  # local node numbers (implicit layout)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        local = stack[sp]
        v = root + local
        if _misses(box, v, c, D):
            continue
        s, e = start[v], end[v]
        if e <= s:
            continue
        if _holds(box, v, c, D):
            if _dead_under(box, v, D) > 0:  # the live ones
                for p in range(s, e):
                    if pts[p, A] < np.inf:
                        out[n] = p
                        n += 1
            else:
                for p in range(s, e):
                    out[n] = p
                    n += 1
            continue
        if leaf[v]:
            for p in range(s, e):
                if reaches(c, pts, p, D):
                    out[n] = p
                    n += 1
            continue
        stack[sp] = 2 * local + 1
        stack[sp + 1] = 2 * local + 2
        sp += 2
    return n


@numba.njit(cache=True, inline="always")
def _report_forest(start, end, leaf, box, pts, qs, ptr, roots, D, mask):
    m = qs.shape[0]
    A = _dead_axis(D, mask)
    offsets = np.zeros(m + 1, np.int64)
    out = np.empty(64, np.int64)
    n = 0
    for j in range(m):
        c = _closed(qs[j], D, mask)
        for t in range(ptr[j], ptr[j + 1]):
            root = roots[t]
            need = n + end[root] - start[root]  # at most every point of the tree
            if need > len(out):
                grown = np.empty(max(need, 2 * len(out)), np.int64)
                grown[:n] = out[:n]
                out = grown
            n = _report_tree(start, end, leaf, box, pts, root, c, D, out, n, A)
        offsets[j + 1] = n
    return offsets, out[:n].copy()


@numba.njit(cache=True, inline="always")
def _snap(start, end, leaf, box, pts, q, D, mask):
    acc = np.empty(1 + 2 * D)  # [count, min_0, max_0, …]
    acc[0] = 0.0
    for a in range(D):
        acc[1 + 2 * a] = np.inf
        acc[2 + 2 * a] = -np.inf
    c = _closed(q, D, mask)
    stack = np.empty(STACK, np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        if _misses(box, v, c, D):
            continue
        s, e = start[v], end[v]
        if e <= s:
            continue
        if _holds(box, v, c, D):
            acc[0] += e - s - _dead_under(box, v, D)
            for a in range(D):
                acc[1 + 2 * a] = min(acc[1 + 2 * a], box[v, 2 * a])
                acc[2 + 2 * a] = max(acc[2 + 2 * a], box[v, 2 * a + 1])
            continue
        if leaf[v]:
            for p in range(s, e):
                if reaches(c, pts, p, D):
                    acc[0] += 1
                    for a in range(D):
                        acc[1 + 2 * a] = min(acc[1 + 2 * a], pts[p, a])
                        acc[2 + 2 * a] = max(acc[2 + 2 * a], pts[p, a])
            continue
        stack[sp] = 2 * v + 1
        stack[sp + 1] = 2 * v + 2
        sp += 2
    return acc


@numba.njit(cache=True, inline="always")
def _snap_many(start, end, leaf, box, pts, qs, D, mask):
    out = np.empty((qs.shape[0], 1 + 2 * D))
    for j in range(qs.shape[0]):
        out[j] = _snap(start, end, leaf, box, pts, qs[j], D, mask)
    return out


@numba.njit(cache=True, inline="always")
def _report_upto(start, end, leaf, box, pts, q, limit, out, D, mask):
    c = _closed(q, D, mask)
    A = _dead_axis(D, mask)
    n = 0
    stack = np.empty(STACK, np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0 and n <= limit:
        sp -= 1
        v = stack[sp]
        if _misses(box, v, c, D):
            continue
        s, e = start[v], end[v]
        if e <= s:
            continue
        whole = _holds(box, v, c, D)
        if whole or leaf[v]:
            for p in range(s, e):
                if (whole and pts[p, A] < np.inf) or (not whole and reaches(c, pts, p, D)):
                    if n == limit:
                        return limit + 1
                    out[n] = p
                    n += 1
            continue
        stack[sp] = 2 * v + 1
        stack[sp + 1] = 2 * v + 2
        sp += 2
    return n


@numba.njit(cache=True)
def report_upto(start, end, leaf, box, pts, lower_open, q, limit, out):
    """Positions of the points message box ``q`` reaches, written to ``out[:count]``,
    stopping once more than ``limit`` are found (then ``count`` is ``limit + 1`` and
    ``out`` holds ``limit`` of them, the first found); D and ``lower_open`` read at run
    time (:func:`box_kernels` has it for one D and ``lower_open`` fixed)."""
    D = pts.shape[1]
    return _report_upto(start, end, leaf, box, pts, q, limit, out, D, _mask_nb(lower_open))


@dataclass(frozen=True)
class BoxKernels:
    """The message-box queries of trees over points of one S (D, ``lower_open``):

    * ``report_forest(start, end, leaf, box, pts, qs, ptr, roots)``: for each message box
      ``qs[j]``, the positions of the points it reaches in the trees rooted at
      ``roots[ptr[j]:ptr[j + 1]]``, as CSR ``(offsets, positions)``;
    * ``snap(start, end, leaf, box, pts, q)``: ``[count, min_0, max_0, …, min_{D-1},
      max_{D-1}]`` of the points ``q`` reaches, their number and smallest closed box
      (count 0: ``snap = ∅``); ``snap_many(…, qs)`` one such row per message box;
    * ``report_upto(start, end, leaf, box, pts, q, limit, out)``: as :func:`report_upto`.
    """

    report_forest: object
    snap: object
    snap_many: object
    report_upto: object


@functools.cache
def box_kernels(lower_open: tuple) -> BoxKernels:
    """The :class:`BoxKernels` of S with ``D = len(lower_open)`` coordinates (``D < 63``),
    compiled with D and ``lower_open`` as constants; made once per ``lower_open``."""
    lower_open = tuple(bool(x) for x in lower_open)
    D, mask = len(lower_open), lower_open_mask(lower_open)
    assert 0 < D < 63, D

    @numba.njit(cache=True)
    def report_forest(start, end, leaf, box, pts, qs, ptr, roots):
        return _report_forest(start, end, leaf, box, pts, qs, ptr, roots, D, mask)

    @numba.njit(cache=True)
    def snap(start, end, leaf, box, pts, q):
        return _snap(start, end, leaf, box, pts, q, D, mask)

    @numba.njit(cache=True)
    def snap_many(start, end, leaf, box, pts, qs):
        return _snap_many(start, end, leaf, box, pts, qs, D, mask)

    @numba.njit(cache=True)
    def report_upto(start, end, leaf, box, pts, q, limit, out):
        return _report_upto(start, end, leaf, box, pts, q, limit, out, D, mask)

    return BoxKernels(report_forest, snap, snap_many, report_upto)
