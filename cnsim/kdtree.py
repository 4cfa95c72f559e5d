"""Array-based 2-d k-d tree shared by the object index (points (x, y) in the event
space E) and the subscription index (points (l, r) in the subscription space S).

The tree is a complete binary tree in implicit layout (children of node ``v`` are
``2v + 1`` and ``2v + 2``) over a permutation of the points: node ``v`` owns the
points at positions ``start[v]:end[v]`` of the permuted arrays. Splits alternate
between the two coordinates at the median. Every node stores the bounding box
of its *live* points (``box[v] = (min_a, max_a, min_b, max_b)``); queries prune
on boxes only, so a point may change its coordinates in place as long as the
boxes on its leaf-to-root path are refitted (:func:`refit`). Dead points (``b``
equal to ``+inf``) are left out of the boxes.

Every query is one depth-first search of a tree (:func:`traversal`) with four small numba
functions saying what the query does at a node: skip it (its box cannot help), take
it whole (its box lies inside the query), take a leaf point by point, and which
child to search first. The object index (``first_k``, ``min_y``) and the
subscription index (rectangle reporting, ``snap``) are such queries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

LEAF_SIZE = 16
STACK = 128  # deeper than any tree of < 2**60 points


@dataclass
class KdTree:
    """The node arrays of a k-d tree and the permutation it imposes on the points."""

    perm: np.ndarray  # perm[pos] = index of the point stored at tree position pos
    start: np.ndarray  # first position of each node
    end: np.ndarray  # one past the last position of each node
    box: np.ndarray  # (nodes, 4) live bounding boxes: min_a, max_a, min_b, max_b
    leaf: np.ndarray  # True for leaves (and for unused slots, which are empty leaves)
    leaf_of: np.ndarray  # leaf node holding each tree position

    @property
    def n_nodes(self) -> int:
        """Number of node slots (some may be unused below shallow leaves)."""
        return len(self.start)


def build_forest(
    a: np.ndarray, b: np.ndarray, group_ptr: np.ndarray, leaf_size: int = LEAF_SIZE
) -> tuple[KdTree, np.ndarray]:
    """One k-d tree per group of consecutive points (group ``g`` holds positions
    ``group_ptr[g]:group_ptr[g + 1]``), stored in one set of node arrays: tree ``g``'s
    node ``v`` (implicit layout) is ``root[g] + v``. Returns the forest and ``root``."""
    group_ptr = np.asarray(group_ptr, np.int64)
    if len(group_ptr) < 2:
        return build(a[:0], b[:0], leaf_size), np.zeros(0, np.int64)
    return _build_trees(a, b, group_ptr, leaf_size)


def build(a: np.ndarray, b: np.ndarray, leaf_size: int = LEAF_SIZE) -> KdTree:
    """Build a k-d tree over the points ``(a[i], b[i])``; boxes are over live points."""
    return _build_trees(a, b, np.array([0, len(a)], np.int64), leaf_size)[0]


def _build_trees(a, b, group_ptr, leaf_size) -> tuple[KdTree, np.ndarray]:
    """The trees of every group, built together level by level. A node splits its
    positions at the median of its level's coordinate (one ``argpartition``); the nodes
    of one level, over all trees, are split together: one ``argpartition`` along the
    rows of a 2-d array per segment size, which selects row by row as one call per
    node would, so the trees are those of one call per node, without its overhead."""
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
    coords = (np.array(a, np.float64), np.array(b, np.float64))  # kept in perm's order
    end[root] = group_ptr[1:]
    nodes, local, tree = root, np.zeros(len(root), np.int64), np.arange(len(root))
    level = 0
    while len(nodes):
        s, e = start[nodes], end[nodes]
        split = (e - s > leaf_size) & (2 * local + 1 < tree_nodes[tree])
        nodes, local, tree = nodes[split], local[split], tree[split]
        if not len(nodes):
            break
        leaf[nodes] = False
        s, e = s[split], e[split]
        for size in np.unique(e - s):
            rows = s[e - s == size][:, None] + np.arange(size)
            order = np.argpartition(coords[level % 2][rows], size // 2, axis=1)
            for arr in (perm, *coords):
                arr[rows] = np.take_along_axis(arr[rows], order, axis=1)
        mid = (s + e) // 2
        first = 2 * local + 1
        c1 = root[tree] + first
        start[c1], end[c1] = s, mid
        start[c1 + 1], end[c1 + 1] = mid, e
        nodes = np.concatenate([c1, c1 + 1])
        local = np.concatenate([first, first + 1])
        tree = np.concatenate([tree, tree])
        level += 1
    box = np.empty((len(start), 4), np.float64)
    leaf_of = np.empty(n, np.int64)
    _fit_forest(start, end, leaf, coords[0], coords[1], box, leaf_of, root, tree_nodes)
    return KdTree(perm, start, end, box, leaf, leaf_of), root


@numba.njit(cache=True)
def _fit_forest(start, end, leaf, pa, pb, box, leaf_of, root, tree_nodes):
    # Children have larger indices than parents, so a reverse sweep fits bottom-up.
    for g in range(len(root)):
        r0 = root[g]
        for local in range(tree_nodes[g] - 1, -1, -1):
            v = r0 + local
            if leaf[v]:
                _fit_leaf(start, end, pa, pb, box, v)
                for p in range(start[v], end[v]):
                    leaf_of[p] = v
            else:
                c1, c2 = r0 + 2 * local + 1, r0 + 2 * local + 2
                box[v, 0] = min(box[c1, 0], box[c2, 0])
                box[v, 1] = max(box[c1, 1], box[c2, 1])
                box[v, 2] = min(box[c1, 2], box[c2, 2])
                box[v, 3] = max(box[c1, 3], box[c2, 3])


@numba.njit(cache=True)
def _fit_leaf(start, end, pa, pb, box, v):
    lo_a, hi_a, lo_b, hi_b = np.inf, -np.inf, np.inf, -np.inf
    for p in range(start[v], end[v]):
        if pb[p] < np.inf:
            lo_a = min(lo_a, pa[p])
            hi_a = max(hi_a, pa[p])
            lo_b = min(lo_b, pb[p])
            hi_b = max(hi_b, pb[p])
    box[v, 0], box[v, 1], box[v, 2], box[v, 3] = lo_a, hi_a, lo_b, hi_b


@numba.njit(cache=True)
def _merge_children(box, v):
    c1, c2 = 2 * v + 1, 2 * v + 2
    box[v, 0] = min(box[c1, 0], box[c2, 0])
    box[v, 1] = max(box[c1, 1], box[c2, 1])
    box[v, 2] = min(box[c1, 2], box[c2, 2])
    box[v, 3] = max(box[c1, 3], box[c2, 3])


@numba.njit(cache=True)
def refit(start, end, pa, pb, box, leaf_of, pos):
    """Refit the boxes on the path from the leaf holding ``pos`` to the root."""
    v = leaf_of[pos]
    _fit_leaf(start, end, pa, pb, box, v)
    while v > 0:
        v = (v - 1) // 2
        _merge_children(box, v)


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


@numba.njit(cache=True, inline="always")
def keep_order(box, c1, c2, query) -> bool:
    """A ``swap`` for queries indifferent to the order of children."""
    return False
