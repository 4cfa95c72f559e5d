"""Numba kernels shared by the ranked structures: heaps, the heap merge of rank-sorted
lists along a root-to-leaf path (seed 000 §2.2.1-2.2.2, §3.1), the centred interval
tree, elementary cells, and the packed R-tree with its resumable left-first cursor.

Everything works in *rank space*: position ``p`` is the ``p``-th best interval in
the total order (score descending, id ascending), so "better" is "smaller rank" and
every tie is already broken.

Kernels that allocate nothing and run inside query loops (heaps, tree walks, cursors)
are compiled with ``_nrt=False``: without reference counting, passing or unpacking
arrays costs nothing and LLVM inlines them into their callers.  With reference
counting, the same helpers ran 1.3-8x slower in query loops, depending on which
function happened to compile them first (measured; see README).
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

#: longest root-to-leaf path of any tree (centred trees are balanced: depth ~ log2 n)
MAX_DEPTH = 128

# ---------------------------------------------------------------- binary min-heap


@numba.njit(cache=True, _nrt=False)
def heap_push(keys, vals, size, key, val):
    """Push ``(key, val)`` onto the min-heap stored in ``keys/vals[:size]``; new size."""
    i = size
    keys[i] = key
    vals[i] = val
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= keys[i]:
            break
        keys[parent], keys[i] = keys[i], keys[parent]
        vals[parent], vals[i] = vals[i], vals[parent]
        i = parent
    return size + 1


@numba.njit(cache=True, _nrt=False)
def heap_sift_down(keys, vals, size):
    """Restore the heap after the root key was replaced (the decreaseKey of seed 000)."""
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and keys[c + 1] < keys[c]:
            c += 1
        if keys[i] <= keys[c]:
            break
        keys[c], keys[i] = keys[i], keys[c]
        vals[c], vals[i] = vals[i], vals[c]
        i = c


@numba.njit(cache=True, _nrt=False)
def heap_pop(keys, vals, size):
    """Drop the root of the min-heap; new size."""
    size -= 1
    keys[0] = keys[size]
    vals[0] = vals[size]
    heap_sift_down(keys, vals, size)
    return size


@numba.njit(cache=True, _nrt=False)
def kheap_offer(keys, vals, size, k, rank):
    """Keep the ``k`` smallest ranks seen (max-heap on ``-rank``); new size."""
    if size < k:
        return heap_push(keys, vals, size, -rank, rank)
    if rank < -keys[0]:
        keys[0] = -rank
        vals[0] = rank
        heap_sift_down(keys, vals, size)
    return size


@numba.njit(cache=True)
def kheap_sorted(vals, size):
    """The ranks held by a k-heap, best first."""
    return np.sort(vals[:size])


# ------------------------------------------------------- path heap merge


def make_path_merge(path: Callable, cursor: Callable) -> Callable:
    """A numba kernel ``top_k(tree, lists, q, k)``: the k best ranks stabbed by ``q`` in
    the rank-sorted lists of the nodes on ``q``'s root-to-leaf path, best first, by a
    heap holding each node's next candidate (the merge of seed 000's scored segment tree
    §2.2.1, scored interval tree §2.2.2 and IR-tree §3.1; replacing the root is its
    decreaseKey).

    Both arguments are numba functions: ``path(tree, q, out) -> m`` writes the path's
    nodes into ``out`` (at most ``MAX_DEPTH``); ``cursor(lists, v, last, q) ->
    (state, rank)`` gives the entry of node ``v``'s list after the one with state
    ``last`` (``-1``: from the start) that ``q`` stabs, as an opaque int state and its
    rank, or ``(-1, -1)`` when none is left.  A rank must occur at most once on a path
    (true of every tree here).  The factory binds both at compile time, so each tree
    gets its own specialised and cached kernel.

    The cursor must be compiled with ``_nrt=False`` (it only reads arrays), so that the
    merge runs as fast as a hand-written one; a reference-counted cursor cost 1.3-2x in
    query time.  Call the merge from a module-level ``@numba.njit(cache=True)`` kernel,
    never from Python: numba keys a closure's cache entry on its cell contents, which
    pickle with a per-process id, so a closure called directly is compiled again in every
    process, while a module-level caller is cached with the merge inside it.
    """
    assert cursor.targetoptions.get("_nrt") is False, "compile the cursor with _nrt=False"

    @numba.njit(cache=True)
    def top_k(tree, lists, q, k):
        nodes = np.empty(MAX_DEPTH, np.int64)
        m = path(tree, q, nodes)
        keys = np.empty(m, np.int64)
        slot = np.empty(m, np.int64)
        state = np.empty(m, np.int64)
        size = 0
        for i in range(m):
            p, rank = cursor(lists, nodes[i], -1, q)
            if p >= 0:
                state[i] = p
                size = heap_push(keys, slot, size, rank, i)
        out = np.empty(k, np.int64)
        cnt = 0
        while cnt < k and size > 0:
            out[cnt] = keys[0]
            cnt += 1
            i = slot[0]
            p, rank = cursor(lists, nodes[i], state[i], q)
            if p >= 0:
                state[i] = p
                keys[0] = rank
                heap_sift_down(keys, slot, size)
            else:
                size = heap_pop(keys, slot, size)
        return out[:cnt]

    return top_k


# ------------------------------------------------------- centred interval tree


@numba.njit(cache=True)
def build_centered(L, R):
    """Centred interval tree (Edelsbrunner) over rank-ordered ``L, R``.

    Returns ``center, left, right, start, end, items``: node ``v`` holds the ranks
    ``items[start[v]:end[v]]`` (those containing ``center[v]``), rank-sorted because
    the partition is stable over a rank-sorted list.  Root is node 0 (none if n = 0).
    """
    n = L.shape[0]
    idx = np.arange(n)
    tmp = np.empty(n, np.int64)
    center = np.empty(max(n, 1), np.float64)
    left = np.full(max(n, 1), -1, np.int64)
    right = np.full(max(n, 1), -1, np.int64)
    start = np.zeros(max(n, 1), np.int64)
    end = np.zeros(max(n, 1), np.int64)
    items = np.empty(n, np.int64)
    if n == 0:
        return center[:0], left[:0], right[:0], start[:0], end[:0], items
    st_lo = np.empty(n, np.int64)
    st_hi = np.empty(n, np.int64)
    st_node = np.empty(n, np.int64)
    sp = 1
    st_lo[0], st_hi[0], st_node[0] = 0, n, 0
    n_nodes = 1
    ip = 0
    ends = np.empty(2 * n, np.float64)
    while sp > 0:
        sp -= 1
        lo, hi, v = st_lo[sp], st_hi[sp], st_node[sp]
        m = hi - lo
        for t in range(m):
            ends[2 * t] = L[idx[lo + t]]
            ends[2 * t + 1] = R[idx[lo + t]]
        # the lower median endpoint is an endpoint, so it stabs >= 1 interval: progress
        c = np.partition(ends[: 2 * m], m - 1)[m - 1]
        center[v] = c
        nl = 0
        for t in range(lo, hi):
            if R[idx[t]] < c:
                tmp[nl] = idx[t]
                nl += 1
        nr = nl
        for t in range(lo, hi):
            if L[idx[t]] > c:
                tmp[nr] = idx[t]
                nr += 1
        start[v] = ip
        for t in range(lo, hi):
            if L[idx[t]] <= c <= R[idx[t]]:
                items[ip] = idx[t]
                ip += 1
        end[v] = ip
        for t in range(nr):
            idx[lo + t] = tmp[t]
        if nl > 0:
            left[v] = n_nodes
            st_lo[sp], st_hi[sp], st_node[sp] = lo, lo + nl, n_nodes
            sp += 1
            n_nodes += 1
        if nr > nl:
            right[v] = n_nodes
            st_lo[sp], st_hi[sp], st_node[sp] = lo + nl, lo + nr, n_nodes
            sp += 1
            n_nodes += 1
    return (
        center[:n_nodes].copy(),
        left[:n_nodes].copy(),
        right[:n_nodes].copy(),
        start[:n_nodes].copy(),
        end[:n_nodes].copy(),
        items,
    )


@numba.njit(cache=True, _nrt=False)
def centered_path(tree, q, out):
    """Nodes of a centred interval tree ``(center, left, right)`` visited by a stab at
    ``q`` into ``out``; their count."""
    center, left, right = tree
    v = 0 if center.shape[0] > 0 else -1
    m = 0
    while v >= 0:
        out[m] = v
        m += 1
        if q < center[v]:
            v = left[v]
        elif q > center[v]:
            v = right[v]
        else:
            break
    return m


# --------------------------------------------------------------- elementary cells


def cell_ranges(xs: np.ndarray, L: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last elementary cell of each closed interval.

    With distinct sorted endpoints ``xs`` (m of them) the line splits into 2m + 1
    cells: even cell 2j is the open gap before ``xs[j]``, odd cell 2j + 1 is the
    point ``xs[j]``; closedness and zero-length intervals are then exact.
    """
    a = np.searchsorted(xs, L)
    b = np.searchsorted(xs, R)
    return 2 * a + 1, 2 * b + 1


@numba.njit(cache=True, _nrt=False)
def cell_of(xs, q):
    """The elementary cell holding the point ``q``."""
    j = np.searchsorted(xs, q)
    if j < xs.shape[0] and xs[j] == q:
        return 2 * j + 1
    return 2 * j


# ------------------------------------------------------------- packed R-trees


def pack_levels(
    lo0: np.ndarray, hi0: np.ndarray, seg_start: np.ndarray, seg_len: np.ndarray, b: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Upper levels of one packed b-way R-tree per segment of an arrangement.

    Level 0 of segment ``s`` is ``lo0/hi0[seg_start[s]:+seg_len[s]]`` (the intervals
    themselves); level h > 0 groups b consecutive entries of level h - 1 under their
    bounding interval.  Returns ``ulo, uhi, lvl_start (S, H), lvl_count (S, H), height``.
    """
    n_seg = seg_len.shape[0]
    max_len = int(seg_len.max()) if n_seg else 0
    H = 1
    c = max_len
    while c > 1:
        c = -(-c // b)
        H += 1
    return _pack_levels(lo0, hi0, seg_start, seg_len, b, H)


@numba.njit(cache=True)
def _pack_levels(lo0, hi0, seg_start, seg_len, b, H):
    n_seg = seg_len.shape[0]
    lvl_start = np.zeros((n_seg, H), np.int64)
    lvl_count = np.zeros((n_seg, H), np.int64)
    height = np.zeros(n_seg, np.int64)
    total = 0
    for s in range(n_seg):
        c = seg_len[s]
        lvl_start[s, 0] = seg_start[s]
        lvl_count[s, 0] = c
        h = 1 if c > 0 else 0
        while c > 1:
            c = (c + b - 1) // b
            lvl_start[s, h] = total
            lvl_count[s, h] = c
            total += c
            h += 1
        height[s] = h
    ulo = np.empty(total, np.float64)
    uhi = np.empty(total, np.float64)
    for s in range(n_seg):
        for h in range(1, height[s]):
            for j in range(lvl_count[s, h]):
                c0 = j * b
                c1 = min(c0 + b, lvl_count[s, h - 1])
                mn = np.inf
                mx = -np.inf
                for c in range(c0, c1):
                    p = lvl_start[s, h - 1] + c
                    a = lo0[p] if h == 1 else ulo[p]
                    z = hi0[p] if h == 1 else uhi[p]
                    mn = min(mn, a)
                    mx = max(mx, z)
                ulo[lvl_start[s, h] + j] = mn
                uhi[lvl_start[s, h] + j] = mx
    return ulo, uhi, lvl_start, lvl_count, height


@numba.njit(cache=True, _nrt=False)
def rt_next(q, last, s, lo0, hi0, ulo, uhi, lvl_start, lvl_count, height, b):
    """Next entry of segment ``s`` after local position ``last`` (-1: from the start)
    stabbed by ``q``, in [left-first] depth-first order; -1 when there is none.

    This is seed 000's getnext on an R-tree, resumable with one integer of state:
    after the last entry of a group the search climbs to the group's next sibling.
    """
    H = height[s]
    if H == 0:
        return -1
    if last < 0:
        h, j = H - 1, 0
    else:
        h, j = 0, last
        j, h = _rt_advance(j, h, H, lvl_count, s, b)
    while True:
        if j < lvl_count[s, h]:
            p = lvl_start[s, h] + j
            if h == 0:
                if lo0[p] <= q <= hi0[p]:
                    return j
            elif ulo[p] <= q <= uhi[p]:
                h -= 1
                j *= b
                continue
        else:
            return -1
        j, h = _rt_advance(j, h, H, lvl_count, s, b)


@numba.njit(cache=True, _nrt=False)
def _rt_advance(j, h, H, lvl_count, s, b):
    """Step to the next sibling, climbing while the current group is finished."""
    j += 1
    while h < H - 1 and (j % b == 0 or j >= lvl_count[s, h]):
        j = (j - 1) // b + 1
        h += 1
    return j, h
