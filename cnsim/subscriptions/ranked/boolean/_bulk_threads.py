"""BE*-B on several threads: the same tree as on one, row for row.

BE*-B (seed 002 §IV-V, Algorithms 4 and 5 applied top-down to a batch;
:func:`_build.build_main`) builds depth first from one work stack, numbering every
c-node, p-node, bucket, summary and pool entry in the order it creates them.  A task on
the stack is the root of a subtree whose build reads only its own expressions and the
nodes above it, and, depth first, that subtree takes a contiguous range of every
counter (:data:`_build.COUNTERS`): just after the rows made before the task ran.

So the root's partition runs first and defers every task it makes, noting each
counter as it stood; a thread pool builds each deferred subtree apart on a copy of the
tables that deferred it (:func:`_build.grow_subtree`, numba without the GIL), deferring
in turn its own tasks of ``grain`` expressions or more (smaller ones it builds in
place).  :func:`merge` then numbers every subtree
in, bottom-up: a row made before a deferral moves up by the rows of the subtrees
deferred before it, a subtree's rows start where its parent stood at its deferral plus
the subtrees deferred before it, and every value that numbers a row is renumbered by
the same rule (the catalog :data:`_build.TABLES` says which counter each column's rows
and values follow).  The tables are those of the one-thread build whatever the number
of threads or the grain (tested), so a run's results depend on neither.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from queue import SimpleQueue

import numpy as np

from cnsim.subscriptions.ranked.boolean import _build as B

#: below this many expressions the bulk build runs on one thread (starting threads and
#: the merge cost more than they save)
MIN_THREADED = 20_000

#: a task goes to the pool from n / (GRAINS threads) expressions: small enough that a
#: thread is never left waiting long for the other's share (a subtree's own work
#: before its tasks reach the pool is on one thread), large enough that the pool's
#: calls, the tables' copies and the merges stay a few percent of the build
GRAINS = 32

#: the start columns and their lengths: an empty list starts at 0 in every build
STARTS = {"leaf_start": "leaf_len", "sum_start": "sum_len", "pn_dstart": "pn_dlen"}

NAMES = tuple(name for name, _, _ in B.TABLES)
_AT = {name: k for k, name in enumerate(NAMES)}
_K = {name: k for k, name in enumerate(B.COUNTERS)}
#: per counter, a column whose rows it numbers (its length: the counter's value)
_ROWS = {rows: _AT[name] for name, rows, _ in reversed(B.TABLES)}


def grain_for(n: int, threads: int) -> int:
    """The size from which a task goes to the thread pool: with ``threads`` > 1 and at
    least :data:`MIN_THREADED` expressions, ``n / (GRAINS threads)``; else 0, nothing
    deferred and one thread."""
    return max(1, n // (GRAINS * threads)) if threads > 1 and n >= MIN_THREADED else 0


@dataclass
class _Subtree:
    """A subtree as built: its tables (those it was built on, grown, as arrays), the
    next summary id, the tasks it deferred and, once built, their subtrees."""

    tables: tuple
    n_sums: int
    deferred: tuple
    parts: list = field(default_factory=list)


def build_tables(cols, ids, A, alpha_share, exh, rigid=False, dlo=0.0, dhi=1.0,
                 selectivity=False, threads=1, grain=None):  # fmt: skip
    """BE*-B of ``ids`` over the predicate columns ``cols`` = (s_start, s_end, p_attr,
    p_lo, p_hi, p_w) on ``threads`` threads: each of the root's groups and, within
    them, every task of ``grain`` expressions or more a subtree of its own (default
    :func:`grain_for`; 0: one thread, nothing deferred).  Returns the
    tables by name (:data:`_build.TABLES`; ``leaf_pool`` in the caller's ids) and the
    number of summary ids."""
    if grain is None:
        grain = grain_for(ids.size, threads)
    prm = (A, alpha_share, exh, rigid, dlo, dhi, selectivity)
    # the root defers every task it makes (what it built in place would wait for it)
    main, n_sums, loc, back, deferred = B.build_main(*cols, ids, *prm, min(grain, 1))
    top = _Subtree(main, n_sums, deferred)
    if deferred[0]:
        finished: SimpleQueue = SimpleQueue()  # (subtree, task, future) as each ends
        with ThreadPoolExecutor(max(1, threads)) as pool:

            def spread(sub: _Subtree) -> int:  # its deferred tasks to the pool
                sub.parts = [None] * len(sub.deferred[0])
                for j in sorted(range(len(sub.parts)), key=lambda j: -sub.deferred[1][j].size):
                    task = (x[j] for x in sub.deferred)
                    f = pool.submit(B.grow_subtree, loc, sub.tables, sub.n_sums, *task, *prm, grain)
                    f.add_done_callback(lambda f, sub=sub, j=j: finished.put((sub, j, f)))
                return len(sub.parts)

            running = spread(top)
            while running:
                sub, j, f = finished.get()
                running -= 1
                sub.parts[j] = _Subtree(*f.result())
                if sub.parts[j].deferred[0]:
                    running += spread(sub.parts[j])
        main, n_sums = _numbered(top)
    tables = dict(zip(NAMES, main, strict=True))
    if back.size:  # (the build's numbering)
        tables["leaf_pool"] = back[tables["leaf_pool"]]
    return tables, n_sums


def _numbered(sub: _Subtree) -> tuple[tuple, int]:
    """A subtree's tables with every subtree it deferred numbered in (bottom-up)."""
    if not sub.deferred[0]:
        return sub.tables, sub.n_sums
    parts = [_numbered(p) for p in sub.parts]
    return merge(sub.tables, sub.n_sums, np.array(sub.deferred[0]), parts)


def _set_by(t, kind: int, node: int) -> tuple[int, int, int, int, int, int]:
    """The entries of a node above it that a deferred task sets in its tables ``t`` (by
    position, :data:`_build.TABLES`): its bucket's children (kind 2, -1 if it did not
    split) and its c-node's l-node start, length, capacity and box (kinds 0 and 2)."""
    left = right = start = length = cap = box = -1
    c = node
    if kind == 2:
        left, right = t[_AT["bk_left"]][node], t[_AT["bk_right"]][node]
        c = t[_AT["bk_cnode"]][node]
    if kind != 1:
        start, length, cap, box = (
            t[_AT[k]][c] for k in ("leaf_start", "leaf_len", "cn_cap", "leaf_box")
        )
    return left, right, start, length, cap, box


def merge(main: tuple, n_sums: int, tasks: np.ndarray, parts: list) -> tuple[tuple, int]:
    """The tables of the one-thread build from those that deferred ``tasks`` (``main``,
    ``n_sums``) and each task's subtree (``parts``: the tables it was built on, grown,
    and its next summary id, in the order deferred): every row at its depth-first
    place, every number of a row renumbered, and the entries of the nodes above that
    the subtrees set (a bucket's children, a c-node's l-node, capacity and box) written
    in."""
    nk = len(B.COUNTERS)
    marks = tasks[:, B.TASK_MARKS : B.TASK_MARKS + nk]

    def counts(tables, ids) -> np.ndarray:
        return np.array([tables[_ROWS[c]].size if c != "sum_id" else ids for c in B.COUNTERS])

    held = counts(main, n_sums)
    sizes = np.array([counts(t, ids) - held for t, ids in parts]).reshape(-1, nk)
    before = np.zeros((len(parts) + 1, nk), np.int64)  # rows of subtrees deferred before
    np.cumsum(sizes, axis=0, out=before[1:])
    base = marks + before[:-1]  # each subtree's first row, per counter

    def top(k: int, v):  # a row made before the deferrals' subtrees, renumbered
        return v + before[np.searchsorted(marks[:, k], v, side="right"), k]

    def renumber(k: int, v: np.ndarray, j: int | None) -> np.ndarray:
        """Values ``v`` that number rows of counter k (-1: none), in ``main`` (``j``
        None) or in subtree j's tables."""
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
        for j, (t, _) in enumerate(parts):
            new = t[_AT[name]][held[k] :]
            if refs is not None:
                new = renumber(_K[refs], new, j)
                if name in STARTS:
                    new = np.where(t[_AT[STARTS[name]]][held[k] :] == 0, 0, new)
            got[base[j, k] : base[j, k] + new.size] = new
        out.append(got)
    t = dict(zip(NAMES, out, strict=True))
    for j, (kind, node) in enumerate(tasks[:, [B.TASK_KIND, B.TASK_NODE]]):
        left, right, start, length, cap, box = _set_by(parts[j][0], kind, node)
        c = node
        if kind == 2:  # the bucket's children, if it split
            b = top(_K["bucket"], node)
            t["bk_left"][b] = renumber(_K["bucket"], np.array(left), j)
            t["bk_right"][b] = renumber(_K["bucket"], np.array(right), j)
            c = main[_AT["bk_cnode"]][node]
        if kind != 1:  # the c-node's l-node, capacity and box
            c = top(_K["cnode"], c)
            t["leaf_start"][c] = renumber(_K["leaf_pool"], np.array(start), j) if length else 0
            t["leaf_len"][c] = length
            t["cn_cap"][c] = cap
            t["leaf_box"][c] = renumber(_K["leaf_box"], np.array(box), j)
    return tuple(t[name] for name in NAMES), n_sums + int(before[-1, _K["sum_id"]])
