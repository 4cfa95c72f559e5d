"""Numba kernels shared by the ranked structures: heaps, the centred interval tree,
elementary cells, and the packed R-tree with its resumable left-first cursor.

Everything works in *rank space*: position ``p`` is the ``p``-th best interval in
the total order (score descending, id ascending), so "better" is "smaller rank" and
every tie is already broken.
"""

from __future__ import annotations

import numba
import numpy as np

# ---------------------------------------------------------------- binary min-heap


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def heap_pop(keys, vals, size):
    """Drop the root of the min-heap; new size."""
    size -= 1
    keys[0] = keys[size]
    vals[0] = vals[size]
    heap_sift_down(keys, vals, size)
    return size


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def centered_path(center, left, right, q, out):
    """Nodes of a centred interval tree visited by a stab at ``q``; their count."""
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _rt_advance(j, h, H, lvl_count, s, b):
    """Step to the next sibling, climbing while the current group is finished."""
    j += 1
    while h < H - 1 and (j % b == 0 or j >= lvl_count[s, h]):
        j = (j - 1) // b + 1
        h += 1
    return j, h
