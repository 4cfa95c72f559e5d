"""numba port of :func:`cnsim.algorithms.boxes.regions.partition` (Paint-Dense: no
``keep`` callback), giving the same boxes in the same order and counting the same
slab work, so the same events are censored by a budget.

The Python reference builds every box as a tuple of ranges and compares sub-boxes by
content. Here a box over axes ``a..D-1`` is a *node* ``(a, c0, c1, child)`` — its
range on axis ``a`` and the node of the rest (``-1`` past the last axis) — and nodes
are hash-consed (one id per distinct content), so "the same sub-box as in the slab
below" is an integer comparison and a memoised sub-problem's boxes are shared, never
copied. Sub-problems are memoised by (axis, ids of the points left after the
relevance filter), as in the reference, through a 64-bit hash verified on every hit.
The top-level node ids are expanded into an ``(M, D, 2)`` array of cell ranges.

Paint-Sparse (:func:`partition_sparse_nb`): the same walk, with the reference's
``keep`` test (:class:`cnsim.algorithms.boxes.regions.Pruning`) asked inside the
kernel — before a slab of axis ``a < D - 1`` is partitioned further, its box (the
slabs of the enclosing frames on axes ``< a``, the slab on ``a``, ``start..cap``
after it) is turned into a message box through the grid's coordinate table and
looked up in the subscription k-d tree
(:func:`cnsim.subscriptions.space_boxes.any_in_box`); a box that reaches no
subscription is not split (its cells are left out). Sub-problems are not memoised
there (their boxes depend on the prefix, through the test). Every box asked is
returned with its answer, in order, so the caller counts its ``snap`` calls.

A slab's box is its frame's box narrowed on one axis, so once a box holds at most
``CANDIDATES`` subscriptions the kernel keeps their list and answers the tests of its
slabs by filtering that list on the slab's axis instead of walking the tree again
(most slabs are deep, in small boxes, and hold nothing: a tree walk costs ~17 µs
there at d = 3, a filter of a short list well under 1 µs). The answers are the
tree's; only how they are found changes. The region's whole box is listed once at
the start (Paint-Sparse has already snapped that box, :meth:`PaintSparseBoxes._worth`;
it is not returned among the boxes asked).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.typed import Dict

from cnsim.subscriptions.space_boxes import report_upto

CANDIDATES = 256  # a box holding at most this many subscriptions lists them for its slabs

_KEY = types.UniTuple(types.int64, 4)


@numba.njit(cache=True, inline="always")
def _dom(ranks, q, p, a):
    """Whether point q dominates p on the axes a..: ``<=`` on each, equal rows by id."""
    eq = True
    for b in range(a, ranks.shape[1]):
        if ranks[q, b] > ranks[p, b]:
            return False
        if ranks[q, b] != ranks[p, b]:
            eq = False
    return not eq or q < p


@numba.njit(cache=True)
def vals_of(ranks, Q, a):
    out = np.empty(len(Q), np.int64)
    for i in range(len(Q)):
        out[i] = ranks[Q[i], a]
    return out


@numba.njit(cache=True)
def _hash(a, ids):
    h = (np.uint64(14695981039346656037) ^ np.uint64(a + 1)) * np.uint64(1099511628211)
    for v in ids:
        h = (h ^ np.uint64(v + 1)) * np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))


@numba.njit(cache=True)
def _grow(arr, need):
    if need <= len(arr):
        return arr
    out = np.empty(max(need, 2 * len(arr)), arr.dtype)
    out[: len(arr)] = arr
    return out


@numba.njit(cache=True)
def _node(nodes, key, node_c0, node_c1, node_child, n_nodes):
    """The node of ``key`` = ``(axis, c0, c1, child)``, made on first use: its id, the
    node columns (grown when it is made) and the node count."""
    j = nodes.get(key, -1)
    if j >= 0:
        return j, node_c0, node_c1, node_child, n_nodes
    node_c0 = _grow(node_c0, n_nodes + 1)
    node_c1 = _grow(node_c1, n_nodes + 1)
    node_child = _grow(node_child, n_nodes + 1)
    node_c0[n_nodes], node_c1[n_nodes], node_child[n_nodes] = key[1], key[2], key[3]
    nodes[key] = n_nodes
    return n_nodes, node_c0, node_c1, node_child, n_nodes + 1


@numba.njit(cache=True)
def partition_nb(ranks, cap, s, lo, hi, budget):
    """``(cells (M, D, 2), work, overflow)``: the boxes of :func:`regions.partition`
    (``budget < 0``: none). The reference's recursion, run on an explicit stack of at
    most D frames (frame ``a`` partitions axes ``a..D-1``; numba cannot cache a
    recursive function)."""
    no_g = np.empty((len(cap), 1))
    no_i = np.zeros(1, np.int64)
    cells, work, over, _, _ = _partition(ranks, cap, s, lo, hi, budget, False, no_g, no_i,
                                         no_i, np.ones(1, np.bool_), np.empty((1, 2)),
                                         np.empty((0, 1)))  # fmt: skip
    return cells, work, over


@numba.njit(cache=True)
def partition_sparse_nb(ranks, cap, s, lo, hi, budget, table, t_start, t_end, t_leaf, t_box,
                        t_pts):  # fmt: skip
    """``(cells, work, overflow, asked (S, 4d), answers (S,))``: :func:`partition_nb`
    pruned where a slab's box reaches no subscription of the tree ``t_*``
    (:meth:`BoxSubscriptions.tree`). ``table[a, c]`` is the coordinate of axis
    ``a``'s cell boundary ``c`` (:meth:`regions.Grid.table`); ``asked`` are the message
    boxes looked up, in order, and ``answers`` whether each holds a subscription."""
    return _partition(ranks, cap, s, lo, hi, budget, True, table, t_start, t_end, t_leaf,
                      t_box, t_pts)  # fmt: skip


@numba.njit(cache=True)
def _partition(ranks, cap, s, lo, hi, budget, sparse, table, t_start, t_end, t_leaf, t_box,
               t_pts):  # fmt: skip
    D = len(cap)
    m_all = ranks.shape[0]
    nodes = Dict.empty(_KEY, types.int64)
    n_nodes = 0
    node_c0 = np.empty(64, np.int64)
    node_c1 = np.empty(64, np.int64)
    node_child = np.empty(64, np.int64)
    mark = np.full(64, -2, np.int64)  # the slab stamp a node was last seen as a sub-box in
    where = np.empty(64, np.int64)  # ... and its out entry then
    memo = Dict.empty(types.int64, types.int64)
    n_memo = 0
    memo_meta = np.empty((16, 5), np.int64)  # axis, ids start, len, result start, len
    memo_ids = np.empty(64, np.int64)
    n_mids = 0
    memo_res = np.empty(64, np.int64)
    n_mres = 0
    out_c0 = np.empty(64, np.int64)  # open out entries, a stack: frame a's from out_start[a]
    out_c1 = np.empty(64, np.int64)
    out_child = np.empty(64, np.int64)
    out_top = 0
    # per frame
    qbuf = np.empty((D + 1, m_all), np.int64)
    qn = np.zeros(D + 1, np.int64)
    sure = np.empty((D, m_all), np.int64)
    n_sure = np.zeros(D, np.int64)
    bounds = np.empty((D, m_all + 2), np.int64)
    nb = np.zeros(D, np.int64)
    sl = np.zeros(D, np.int64)
    p_sure = np.zeros(D, np.int64)
    prev_stamp = np.zeros(D, np.int64)
    out_start = np.zeros(D, np.int64)
    f_key = np.zeros(D, np.int64)
    f_e = np.zeros(D, np.int64)
    stamp = 0
    work = 0
    order = np.empty((D, m_all), np.int64)  # frame a's points by rank on axis a
    p_in = np.zeros(D, np.int64)  # ... of which the first p_in[a] are in the slab
    cbuf = np.empty((D + 1, m_all), np.int64)  # dominators of qbuf[a + 1]'s points
    new = np.empty(m_all, np.int64)
    new_cnt = np.empty(m_all, np.int64)
    mK = np.empty(m_all, np.int64)
    mC = np.empty(m_all, np.int64)
    ret = np.empty(0, np.int64)
    sub = np.empty(0, np.int64)
    qbox = np.empty(2 * D)  # Paint-Sparse: the message box of a slab, and every one asked
    asked = np.empty((16 if sparse else 0, 2 * D))
    answers = np.empty(16 if sparse else 0, np.bool_)
    n_asked = 0
    # cand[a, :ncand[a]]: the subscriptions (tree rows) in frame a's box; ncand -1: too many
    cand = np.empty((D + 1, CANDIDATES if sparse else 0), np.int64)
    ncand = np.full(D + 1, -1, np.int64)
    if sparse:
        for b in range(D):
            t = b // 2
            if b % 2 == 0:
                qbox[4 * t], qbox[4 * t + 1] = table[b, cap[b] + 1], table[b, s[b]]
            else:
                qbox[4 * t + 2], qbox[4 * t + 3] = table[b, s[b]], table[b, cap[b] + 1]
        n = report_upto(t_start, t_end, t_leaf, t_box, t_pts, qbox, CANDIDATES, cand[0])
        ncand[0] = n if n <= CANDIDATES else -1
    for i in range(m_all):
        qbuf[0, i] = i
    qn[0] = m_all
    ENTER, NEXT, RETURN, MERGE = 0, 1, 2, 3
    lvl = 0
    phase = ENTER
    while True:
        a = lvl
        if phase == ENTER:
            m = qn[a]
            Q = qbuf[a, :m]
            if m < lo:
                ret = np.empty(0, np.int64)
                phase = RETURN
                continue
            if m <= hi:
                under = 0
                if lo > 0:
                    for i in range(m):
                        ok = True
                        for b in range(a, D):
                            if ranks[Q[i], b] > s[b]:
                                ok = False
                                break
                        if ok:
                            under += 1
                if lo <= 0 or under >= lo:
                    child = -1  # the rest: s..cap on every axis from a
                    for b in range(D - 1, a - 1, -1):
                        child, node_c0, node_c1, node_child, n_nodes = _node(
                            nodes, (b, s[b], cap[b], child), node_c0, node_c1, node_child,
                            n_nodes)  # fmt: skip
                    ret = np.empty(1, np.int64)
                    ret[0] = child
                    phase = RETURN
                    continue
            if a == D - 1:
                work += 1
                srt = np.empty(m, np.int64)
                for i in range(m):
                    srt[i] = ranks[Q[i], a]
                srt.sort()
                c_lo = s[a] if lo <= 0 else max(s[a], srt[lo - 1])
                c_hi = cap[a] if hi >= m else min(cap[a], srt[hi] - 1)
                if c_lo > c_hi:
                    ret = np.empty(0, np.int64)
                else:
                    j, node_c0, node_c1, node_child, n_nodes = _node(
                        nodes, (a, c_lo, c_hi, -1), node_c0, node_c1, node_child, n_nodes)
                    ret = np.empty(1, np.int64)
                    ret[0] = j
                phase = RETURN
                continue
            # slabs along axis a: cut at the ranks of the points; the points counted
            # whatever the later axes ("sure") end the slabs once more than hi
            ns = 0
            for i in range(m):
                ok = True
                for b in range(a + 1, D):
                    if ranks[Q[i], b] > s[b]:
                        ok = False
                        break
                if ok:
                    sure[a, ns] = ranks[Q[i], a]
                    ns += 1
            sure[a, :ns].sort()
            n_sure[a] = ns
            vals = np.empty(m, np.int64)
            for i in range(m):
                vals[i] = ranks[Q[i], a]
            vals.sort()
            n_b = 0
            bounds[a, 0] = s[a]
            n_b = 1
            for i in range(m):
                v = vals[i]
                if s[a] < v <= cap[a] and (i == 0 or v != vals[i - 1]):
                    bounds[a, n_b] = v
                    n_b += 1
            bounds[a, n_b] = cap[a] + 1
            nb[a] = n_b + 1
            sl[a] = 0
            order[a, :m] = Q[np.argsort(vals_of(ranks, Q, a), kind="mergesort")]
            p_in[a] = 0
            qn[a + 1] = 0
            p_sure[a] = 0
            prev_stamp[a] = -1
            out_start[a] = out_top
            phase = NEXT
        if phase == NEXT:
            m = qn[a]
            Q = qbuf[a, :m]
            done = sl[a] >= nb[a] - 1
            if not done:
                c0 = bounds[a, sl[a]]
                while p_sure[a] < n_sure[a] and sure[a, p_sure[a]] <= c0:
                    p_sure[a] += 1
                done = p_sure[a] > hi
            if done:  # close the frame: its out entries become nodes
                n_out = out_top - out_start[a]
                ret = np.empty(n_out, np.int64)
                for t in range(n_out):
                    o = out_start[a] + t
                    ret[t], node_c0, node_c1, node_child, n_nodes = _node(
                        nodes, (a, out_c0[o], out_c1[o], out_child[o]), node_c0, node_c1,
                        node_child, n_nodes)  # fmt: skip
                out_top = out_start[a]
                phase = RETURN
                continue
            work += 1
            if budget >= 0 and work > budget:
                return (np.empty((0, D, 2), np.int64), work, True, asked[:n_asked].copy(),
                        answers[:n_asked].copy())  # fmt: skip
            # the points of the slab's cross-section less those dominated on the later
            # axes by more than hi others (:func:`regions.relevant`), kept incrementally:
            # the slab only adds points, so a dropped point stays dropped, and counting
            # dominators among the kept points and the new ones classifies every point
            # as counting among all of them would (the first hi + 1 dominators of a
            # point are kept; all dominators of a point with <= hi of them are kept)
            n_new = 0
            while p_in[a] < m and ranks[order[a, p_in[a]], a] <= c0:
                new[n_new] = order[a, p_in[a]]
                n_new += 1
                p_in[a] += 1
            if n_new:
                new[:n_new].sort()
                nK = qn[a + 1]
                K = qbuf[a + 1]
                cnt = cbuf[a + 1]
                for i in range(n_new):
                    p = new[i]
                    c = 0
                    for j in range(nK + n_new):
                        q = K[j] if j < nK else new[j - nK]
                        if q != p and _dom(ranks, q, p, a + 1):
                            c += 1
                            if c > hi:
                                break
                    new_cnt[i] = c
                for j in range(nK):
                    for i in range(n_new):
                        if _dom(ranks, new[i], K[j], a + 1):
                            cnt[j] += 1
                # the survivors, merged in id order
                nk2, j, i = 0, 0, 0
                while j < nK or i < n_new:
                    if i >= n_new or (j < nK and K[j] < new[i]):
                        if cnt[j] <= hi:
                            mK[nk2], mC[nk2] = K[j], cnt[j]
                            nk2 += 1
                        j += 1
                    else:
                        if new_cnt[i] <= hi:
                            mK[nk2], mC[nk2] = new[i], new_cnt[i]
                            nk2 += 1
                        i += 1
                K[:nk2] = mK[:nk2]
                cnt[:nk2] = mC[:nk2]
                qn[a + 1] = nk2
            if sparse:
                # the reference's keep: is there a subscription in the slab's box?
                c1 = bounds[a, sl[a] + 1] - 1
                for b in range(D):
                    if b < a:
                        r0, r1 = bounds[b, sl[b]], bounds[b, sl[b] + 1] - 1
                    elif b == a:
                        r0, r1 = c0, c1
                    else:
                        r0, r1 = s[b], cap[b]
                    t = b // 2
                    if b % 2 == 0:  # l_t: lO < l <= lI
                        qbox[4 * t], qbox[4 * t + 1] = table[b, r1 + 1], table[b, r0]
                    else:  # r_t: rI <= r < rO
                        qbox[4 * t + 2], qbox[4 * t + 3] = table[b, r0], table[b, r1 + 1]
                if ncand[a] >= 0:  # filter the frame's list on axis a
                    t = a // 2
                    n = 0
                    for j in range(ncand[a]):
                        p = cand[a, j]
                        v = t_pts[p, a]
                        if a % 2 == 0:
                            ok = qbox[4 * t] < v <= qbox[4 * t + 1]
                        else:
                            ok = qbox[4 * t + 2] <= v < qbox[4 * t + 3]
                        if ok:
                            cand[a + 1, n] = p
                            n += 1
                    ncand[a + 1] = n
                else:
                    n = report_upto(t_start, t_end, t_leaf, t_box, t_pts, qbox, CANDIDATES,
                                    cand[a + 1])  # fmt: skip
                    ncand[a + 1] = n if n <= CANDIDATES else -1
                hit = n > 0
                if n_asked == len(answers):
                    grown_q = np.empty((2 * n_asked, 2 * D))
                    grown_q[:n_asked] = asked
                    asked = grown_q
                    grown_a = np.empty(2 * n_asked, np.bool_)
                    grown_a[:n_asked] = answers
                    answers = grown_a
                asked[n_asked] = qbox
                answers[n_asked] = hit
                n_asked += 1
                if hit:
                    lvl = a + 1
                    phase = ENTER
                else:
                    sub = np.empty(0, np.int64)
                    phase = MERGE
                continue
            Qs = qbuf[a + 1, : qn[a + 1]]
            key = _hash(a + 1, Qs)
            e = memo[key] if key in memo else -1  # noqa: SIM401 (numba: .get is Optional)
            f_key[a], f_e[a] = key, e
            if e >= 0 and memo_meta[e, 0] == a + 1 and memo_meta[e, 2] == len(Qs):
                i0 = memo_meta[e, 1]
                same = True
                for t in range(len(Qs)):
                    if memo_ids[i0 + t] != Qs[t]:
                        same = False
                        break
                if same:
                    sub = memo_res[memo_meta[e, 3] : memo_meta[e, 3] + memo_meta[e, 4]].copy()
                    phase = MERGE
            if phase != MERGE:
                lvl = a + 1
                phase = ENTER
                continue
        if phase == RETURN:
            if a == 0:
                break
            # back in the parent frame: remember the sub-problem's answer, then merge
            a = a - 1
            lvl = a
            if not sparse and f_e[a] < 0:  # a colliding key keeps its first entry
                n_q = qn[a + 1]
                if n_memo == len(memo_meta):
                    grown = np.empty((2 * n_memo, 5), np.int64)
                    grown[:n_memo] = memo_meta
                    memo_meta = grown
                memo_ids = _grow(memo_ids, n_mids + n_q)
                memo_res = _grow(memo_res, n_mres + len(ret))
                memo_meta[n_memo, 0] = a + 1
                memo_meta[n_memo, 1] = n_mids
                memo_meta[n_memo, 2] = n_q
                memo_meta[n_memo, 3] = n_mres
                memo_meta[n_memo, 4] = len(ret)
                memo_ids[n_mids : n_mids + n_q] = qbuf[a + 1, :n_q]
                memo_res[n_mres : n_mres + len(ret)] = ret
                memo[f_key[a]] = n_memo
                n_memo += 1
                n_mids += n_q
                n_mres += len(ret)
            sub = ret
            phase = MERGE
        if phase == MERGE:
            # Algorithm 10's Merge: a sub-box also in the slab below extends that box
            c0 = bounds[a, sl[a]]
            c1 = bounds[a, sl[a] + 1] - 1
            stamp += 1
            if n_nodes > len(mark):
                grown = np.full(max(n_nodes, 2 * len(mark)), -2, np.int64)
                grown[: len(mark)] = mark
                mark = grown
            where = _grow(where, n_nodes)
            for sb in sub:
                if mark[sb] == prev_stamp[a]:
                    j = where[sb]
                    out_c1[j] = c1
                else:
                    out_c0 = _grow(out_c0, out_top + 1)
                    out_c1 = _grow(out_c1, out_top + 1)
                    out_child = _grow(out_child, out_top + 1)
                    out_c0[out_top], out_c1[out_top], out_child[out_top] = c0, c1, sb
                    j = out_top
                    out_top += 1
                mark[sb] = stamp
                where[sb] = j
            prev_stamp[a] = stamp
            sl[a] += 1
            phase = NEXT
    cells = np.empty((len(ret), D, 2), np.int64)
    for j in range(len(ret)):
        v = ret[j]
        for b in range(D):
            cells[j, b, 0] = node_c0[v]
            cells[j, b, 1] = node_c1[v]
            v = node_child[v]
    return cells, work, False, asked[:n_asked].copy(), answers[:n_asked].copy()
