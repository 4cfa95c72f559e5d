"""BE*-B on several threads: the same tree as on one, row for row.

BE*-B (seed 002 §IV-V, Algorithms 4 and 5 applied top-down to a batch;
:func:`_build.build_main`) builds depth first from one work stack, numbering every
c-node, p-node, bucket, summary and pool entry in the order it creates them.  A task on
the stack is the root of a subtree whose build reads only its own expressions and the
nodes above it, and, depth first, that subtree takes a contiguous range of every
counter (:data:`_build.COUNTERS`): just after the rows made before the task ran.

So the build's top runs on one thread and defers every task of fewer than
``defer_below`` expressions, noting each counter as it stood; the deferred subtrees
are then built apart on a pool of threads, each on a copy of the top's tables
(:func:`_build.grow_subtree`, numba without the GIL), and :func:`merge` numbers them
in: a row the top made moves up by the rows of the subtrees deferred before it, a
subtree's rows start where the top stood at its deferral plus the subtrees deferred
before it, and every value that numbers a row is renumbered by the same rule (the
catalog :data:`_build.TABLES` says which counter each column's rows and values
follow).  The tables are those of the one-thread build whatever the number of threads
or the deferral size (tested), so a run's results do not depend on either.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from cnsim.subscriptions.ranked.boolean import _build as B

#: below this many expressions the bulk build runs on one thread (starting threads and
#: the merge cost more than they save)
MIN_THREADED = 20_000

#: the start columns and their lengths: an empty list starts at 0 in every build
STARTS = {"leaf_start": "leaf_len", "sum_start": "sum_len", "pn_dstart": "pn_dlen"}

NAMES = tuple(name for name, _, _ in B.TABLES)
_AT = {name: k for k, name in enumerate(NAMES)}
_K = {name: k for k, name in enumerate(B.COUNTERS)}


def defer_below(n: int, threads: int) -> int:
    """The size under which BE*-B defers a task to the threads: with ``threads`` > 1
    and at least :data:`MIN_THREADED` expressions, ``n / (2 threads)`` (the top then
    holds about a third of the work on the 1M-subscription benchmark workloads, and no
    deferred subtree more than a few times a thread's share of the rest); else 0,
    nothing deferred."""
    return n // (2 * threads) if threads > 1 and n >= MIN_THREADED else 0


def build_tables(cols, ids, A, alpha_share, exh, rigid=False, dlo=0.0, dhi=1.0,
                 selectivity=False, threads=1, defer=None):  # fmt: skip
    """BE*-B of ``ids`` over the predicate columns ``cols`` = (s_start, s_end, p_attr,
    p_lo, p_hi, p_w) on ``threads`` threads, deferring tasks below ``defer``
    expressions (default :func:`defer_below`).  Returns the tables by name
    (:data:`_build.TABLES`; ``leaf_pool`` in the caller's ids), the number of summary
    ids, and the predicate columns the build read last with its l-nodes' pool in their
    numbering (for :func:`_build.boxes`)."""
    if defer is None:
        defer = defer_below(ids.size, threads)
    main, n_sums, loc, back, (d_task, d_ids, d_iv, d_rk, d_ka, d_kw) = B.build_main(
        *cols, ids, A, alpha_share, exh, rigid, dlo, dhi, selectivity, defer
    )
    if d_task:
        prm = (A, alpha_share, exh, rigid, dlo, dhi, selectivity)

        def grow(j: int):
            return B.grow_subtree(loc, main, n_sums, d_task[j], d_ids[j], d_iv[j], d_rk[j],
                                  d_ka[j], d_kw[j], *prm)  # fmt: skip

        biggest_first = sorted(range(len(d_task)), key=lambda j: -d_ids[j].size)
        with ThreadPoolExecutor(max(1, threads)) as pool:
            done = dict(zip(biggest_first, pool.map(grow, biggest_first), strict=True))
        main, n_sums = merge(main, n_sums, np.array(d_task), [done[j] for j in range(len(d_task))])
    tables = dict(zip(NAMES, main, strict=True))
    lpool = tables["leaf_pool"]  # (the build's numbering)
    tables["leaf_pool"] = back[lpool] if back.size else lpool.copy()
    return tables, n_sums, (*loc[:5], lpool)


def merge(main: tuple, n_sums: int, tasks: np.ndarray, subtrees: list) -> tuple[tuple, int]:
    """The tables of the one-thread build from the top's (``main``, ``n_sums``) and the
    deferred ``tasks``' subtrees (rows of :func:`_build.grow_subtree`'s results, in
    the order deferred): every row at its depth-first place, every number of a row
    renumbered, and the entries of the top's nodes the subtrees set (a bucket's
    children, a c-node's l-node and capacity) written in."""
    nk = len(B.COUNTERS)
    marks = tasks[:, B.TASK_MARKS : B.TASK_MARKS + nk]
    first = {}  # a column numbered by each counter
    for name, rows, _ in B.TABLES:
        first.setdefault(rows, _AT[name])
    held = np.array([main[first[c]].size if c != "sum_id" else n_sums for c in B.COUNTERS])
    sizes = np.array([[sub[0][first[c]].size if c != "sum_id" else sub[1]
                       for c in B.COUNTERS] for sub in subtrees])  # fmt: skip
    before = np.zeros((len(subtrees) + 1, nk), np.int64)  # rows of subtrees deferred before
    np.cumsum(sizes, axis=0, out=before[1:])
    base = marks + before[:-1]  # each subtree's first row, per counter

    def top(k: int, v: np.ndarray) -> np.ndarray:  # a row of the top, renumbered
        return v + before[np.searchsorted(marks[:, k], v, side="right"), k]

    def renumber(k: int, v: np.ndarray, j: int | None) -> np.ndarray:
        """Values ``v`` that number rows of counter k (-1: none), in the top's tables
        (``j`` None) or in subtree j's."""
        new = np.where(v < 0, v, top(k, np.maximum(v, 0)))
        if j is not None:
            new = np.where(v >= held[k], base[j, k] + v - held[k], new)
        return new

    out = []
    for name, rows, refs in B.TABLES:
        k, col = _K[rows], main[_AT[name]]
        got = np.empty(held[k] + before[-1, k], col.dtype)
        val = col if refs is None else renumber(_K[refs], col, None)
        if name in STARTS:
            val = np.where(main[_AT[STARTS[name]]] == 0, 0, val)
        got[top(k, np.arange(held[k]))] = val
        for j, sub in enumerate(subtrees):
            t = sub[0][_AT[name]]
            if refs is not None:
                t = renumber(_K[refs], t, j)
                if name in STARTS:
                    t = np.where(sub[0][_AT[STARTS[name]]] == 0, 0, t)
            got[base[j, k] : base[j, k] + t.size] = t
        out.append(got)
    t = dict(zip(NAMES, out, strict=True))
    for j, (kind, node) in enumerate(tasks[:, [B.TASK_KIND, B.TASK_NODE]]):
        left, right, start, length, cap = subtrees[j][2]
        c = node
        if kind == 2:  # the bucket's children, if it split
            b = top(_K["bucket"], node)
            t["bk_left"][b] = renumber(_K["bucket"], np.array(left), j)
            t["bk_right"][b] = renumber(_K["bucket"], np.array(right), j)
            c = main[_AT["bk_cnode"]][node]
        if kind != 1:  # the c-node's l-node and capacity
            c = top(_K["cnode"], c)
            t["leaf_start"][c] = renumber(_K["leaf_pool"], np.array(start), j) if length else 0
            t["leaf_len"][c] = length
            t["cn_cap"][c] = cap
    return tuple(t[name] for name in NAMES), n_sums + int(before[-1, _K["sum_id"]])
