"""Influence regions of d-dimensional box subscriptions as 2d-dimensional message
boxes of the subscription space S = R^{2d} (seed 003 §IV-C; design in
:mod:`cnsim.algorithms.boxes`).

The rank grid of object i. Fix ``x_i = (x_i1..x_id)`` and a set P of objects. On
dimension t the *west* values ``W_t`` (the distinct ``x_ot < x_it`` of P,
descending) and the *east* values ``E_t`` (distinct ``x_ot > x_it``, ascending) cut
the two axes ``l_t`` and ``r_t`` of S into cells:

* l-cell ``c`` is ``l_t ∈ (W_t[c], W_t[c-1]]`` (``W_t[-1] = x_it``, ``W_t[c] = -inf``
  past the end), ``0 <= c <= len(W_t)``;
* r-cell ``c`` is ``r_t ∈ [E_t[c-1], E_t[c])`` (``E_t[-1] = x_it``, ``+inf`` past
  the end), ``0 <= c <= len(E_t)``.

Axis ``2t`` is ``l_t``, axis ``2t+1`` is ``r_t``. Object o gets the rank vector
``ρ_o ∈ N^{2d}``: on axis 2t the 1-based position of ``x_ot`` in ``W_t`` (0 when
``x_ot >= x_it``), on axis 2t+1 its position in ``E_t`` (0 when ``x_ot <= x_it``).
Every subscription of a grid cell ``c`` (all inside the orthant θ_i, i.e. holding
x_i) holds object o iff ``ρ_o <= c`` componentwise — o lies in the cell's box iff
the box reaches o's minimal enclosing box with x_i, MEB(x_i, x_o). So the number of
objects of P a cell's subscriptions hold is the dominance count
``N(c) = #{o ∈ P : ρ_o <= c}``, constant over the cell.

A *cell set* is given by a predicate ``lo <= N(c) <= hi`` over the cells
``c >= s`` (``s``: a start corner). :func:`partition` splits it into boxes by slabs:
axis 0 is cut at the ranks of the points still counted, each slab's cross-section
is partitioned over the remaining axes the same way, and a sub-box repeated by the
next slab up extends its box instead of starting a new one (Algorithm 10's Merge,
generalised: ``MEB(Msg, Msg') = Msg ∪ Msg'``). On the last two axes (one dimension's
``l, r``) this is exactly the 1-d staircase of Lemma 2 (one strip per west cell,
the strips reaching ``r = +inf`` merged: Algorithm 4) and the diagonal chain of
Lemma 3, so for d = 1 the boxes are the 1-d Paint-Dense rectangles.

A box is ``4d`` floats, per dimension ``(lO, lI, rI, rO)``: it reaches
``lO < l_t <= lI`` and ``rI <= r_t < rO`` on every dimension t (the 1-d message
rectangle, once per dimension).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cnsim.algorithms.boxes._partition_nb import partition_nb, partition_sparse_nb
from cnsim.errors import InputError

INF = math.inf


class Grid:
    """The rank grid of ``x_i`` over the objects at ``xs`` (shape (m, d))."""

    def __init__(self, x_i: np.ndarray, xs: np.ndarray):
        x_i = np.asarray(x_i, np.float64)
        xs = np.asarray(xs, np.float64).reshape(-1, len(x_i))
        d = len(x_i)
        self.d = d
        self.x_i = x_i
        self.west: list[np.ndarray] = []
        self.east: list[np.ndarray] = []
        ranks = np.zeros((len(xs), 2 * d), np.int64)
        cap = np.zeros(2 * d, np.int64)
        for t in range(d):
            col = xs[:, t]
            w = np.unique(col[col < x_i[t]])[::-1]  # descending
            e = np.unique(col[col > x_i[t]])  # ascending
            self.west.append(w)
            self.east.append(e)
            wm, em = col < x_i[t], col > x_i[t]
            # position in the descending list: count of west values >= x, 1-based
            ranks[wm, 2 * t] = len(w) - np.searchsorted(w[::-1], col[wm], side="left")
            ranks[em, 2 * t + 1] = np.searchsorted(e, col[em], side="left") + 1
            cap[2 * t], cap[2 * t + 1] = len(w), len(e)
        self.ranks = ranks
        self.cap = cap

    def to_boxes(self, cells) -> np.ndarray:
        """Message boxes (M, 4d) of cell-range boxes: an ``(M, D, 2)`` array or a list
        of tuples of ``(c0, c1)`` per axis (inclusive)."""
        cells = np.asarray(cells, np.int64).reshape(-1, 2 * self.d, 2)
        out = np.empty((len(cells), 4 * self.d), np.float64)
        for t in range(self.d):
            x = float(self.x_i[t])
            # padded: index c gives the inner bound of cell c, c + 1 the outer one
            w = np.concatenate([[x], self.west[t], [-INF]])
            e = np.concatenate([[x], self.east[t], [INF]])
            out[:, 4 * t] = w[cells[:, 2 * t, 1] + 1]
            out[:, 4 * t + 1] = w[cells[:, 2 * t, 0]]
            out[:, 4 * t + 2] = e[cells[:, 2 * t + 1, 0]]
            out[:, 4 * t + 3] = e[cells[:, 2 * t + 1, 1] + 1]
        return out

    def table(self) -> np.ndarray:
        """``(2d, max cap + 2)``: on axis ``a`` the coordinate of every cell boundary —
        ``x_it`` then ``W_t`` then ``-inf`` on axis 2t, ``x_it``, ``E_t``, ``+inf`` on
        2t+1 — so that cell range ``(c0, c1)`` of axis 2t is ``(table[c1+1], table[c0]]``
        and of axis 2t+1 ``[table[c0], table[c1+1])`` (as :meth:`to_boxes`)."""
        D = 2 * self.d
        out = np.zeros((D, int(self.cap.max(initial=0)) + 2))
        for t in range(self.d):
            x = float(self.x_i[t])
            for a, inner, far in ((2 * t, self.west[t], -INF), (2 * t + 1, self.east[t], INF)):
                out[a, 0] = x
                out[a, 1 : 1 + len(inner)] = inner
                out[a, 1 + len(inner)] = far
        return out


class RegionTooLarge(Exception):
    """A partition needed more work than its budget (Paint-Dense in high d)."""


ENGINES = ("numba", "python")


@dataclass(frozen=True)
class Pruning:
    """Paint-Sparse's ``keep`` test for :func:`partition`: a sub-box is partitioned only
    if its message box (on ``grid``) reaches a subscription of ``subscriptions`` (a
    :class:`cnsim.subscriptions.space_boxes.BoxSubscriptions`). The numba engine asks
    the index inside the kernel and then hands every box it asked, with the answers,
    to ``asked(boxes, answers)``; the Python engine calls ``ask(box) -> bool`` once per
    sub-box (the caller counts and caches its snaps in both)."""

    grid: Grid
    subscriptions: object
    ask: Callable[[np.ndarray], bool]
    asked: Callable[[np.ndarray, np.ndarray], None]

    def __call__(self, cells: tuple) -> bool:
        return self.ask(self.grid.to_boxes([cells])[0])


def partition(*args, **kwargs) -> list[tuple]:
    """:func:`partition_work`'s cells (same arguments) as tuples: per box, ``(c0, c1)``
    per axis."""
    cells = partition_work(*args, **kwargs)[0]
    return [tuple((int(c0), int(c1)) for c0, c1 in box) for box in cells]


def partition_work(
    ranks: np.ndarray,
    cap: np.ndarray,
    lo: int,
    hi: int,
    start: np.ndarray | None = None,
    keep=None,
    budget: int | None = None,
    engine: str = "numba",
) -> tuple[np.ndarray, int]:
    """The cells ``c`` with ``start <= c <= cap`` and ``lo <= N(c) <= hi`` (``N``: the
    points of ``ranks`` dominated by c) as disjoint cell-range boxes, an ``(M, D, 2)``
    int64 array of ``(c0, c1)`` per axis (inclusive) in slab order, and the slabs visited.

    ``keep(ranges)``, given the ranges of the first axes (the rest spanning
    ``start..cap``), may say a sub-box is not worth partitioning (Paint-Sparse: it
    holds no subscription); its cells are then left out. ``budget`` bounds the slabs
    visited: past it :class:`RegionTooLarge` is raised. ``engine``: ``"numba"`` (the
    kernel of :mod:`._partition_nb`; with ``keep`` a :class:`Pruning`, asked inside the
    kernel — any other callable ``keep`` runs the reference) or ``"python"`` (the
    reference); both give the same boxes in the same order and visit the same slabs.
    """
    if engine not in ENGINES:
        raise InputError(f"partition engine must be one of {ENGINES}, got {engine!r}")
    cap = np.asarray(cap, np.int64)
    D = len(cap)
    s = np.zeros(D, np.int64) if start is None else np.asarray(start, np.int64)
    ranks = np.ascontiguousarray(np.asarray(ranks, np.int64).reshape(-1, D))
    if (s > cap).any():
        return np.empty((0, D, 2), np.int64), 0
    limit = -1 if budget is None else int(budget)
    if keep is None and engine == "numba" and D >= 1:
        cells, work, over = partition_nb(ranks, cap, s, int(lo), int(hi), limit)
        if over:
            raise RegionTooLarge(f"partition needed more than {budget} slabs")
        return cells, int(work)
    if isinstance(keep, Pruning) and engine == "numba" and D >= 1:
        cells, work, over, asked, answers = partition_sparse_nb(
            ranks, cap, s, int(lo), int(hi), limit, keep.grid.table(), *keep.subscriptions.tree()
        )
        keep.asked(asked, answers)
        if over:
            raise RegionTooLarge(f"partition needed more than {budget} slabs")
        return cells, int(work)
    part = _Partition(cap, s, lo, hi, keep, budget)
    ids = np.arange(len(ranks), dtype=np.int64).reshape(-1, 1)
    out = part.run(np.hstack([ranks, ids]), 0, ())
    return np.array(out, np.int64).reshape(-1, D, 2), part.work


def relevant(P: np.ndarray, hi: int) -> np.ndarray:
    """Mask of the rows of ``P`` dominated (``<=`` on every column; equal rows in row
    order) by at most ``hi`` other rows. Dropping the others changes no count
    ``N(c) <= hi`` and leaves every count above ``hi`` above it (each dropped row has
    ``hi + 1`` kept rows below it), so ``lo <= N(c) <= hi`` is unchanged."""
    m = len(P)
    if m <= hi + 1:
        return np.ones(m, bool)
    le = np.all(P[None, :, :] <= P[:, None, :], axis=2)  # le[i, j]: row j <= row i
    eq = np.all(P[None, :, :] == P[:, None, :], axis=2)
    before = np.tril(np.ones((m, m), bool), -1)  # j < i
    dom = le & (~eq | before)
    return dom.sum(axis=1) <= hi


class _Partition:
    def __init__(self, cap, s, lo, hi, keep, budget):
        self.cap, self.s, self.lo, self.hi = cap, s, lo, hi
        self.keep, self.budget, self.work = keep, budget, 0
        self.memo: dict[tuple, list] = {}

    def rest(self, a: int) -> tuple:
        return tuple((int(self.s[b]), int(self.cap[b])) for b in range(a, len(self.cap)))

    def run(self, Q: np.ndarray, a: int, prefix: tuple) -> list:
        cap, s, lo, hi = self.cap, self.s, self.lo, self.hi
        D = len(cap)  # Q: D rank columns and the points' ids
        if a == D:
            return [()] if lo <= len(Q) <= hi else []
        if len(Q) < lo:
            return []
        # every cell of the rest counts at most hi; at least lo everywhere iff at the corner
        if len(Q) <= hi and (lo <= 0 or int(np.all(Q[:, a:D] <= s[a:], axis=1).sum()) >= lo):
            return [self.rest(a)]
        col = Q[:, a]
        if a == D - 1:
            # the last axis: N is monotone in c, so its cells form one range
            self.work += 1
            srt = np.sort(col)
            c_lo = int(s[a]) if lo <= 0 else max(int(s[a]), int(srt[lo - 1]))
            c_hi = int(cap[a]) if hi >= len(srt) else min(int(cap[a]), int(srt[hi]) - 1)
            return [((c_lo, c_hi),)] if c_lo <= c_hi else []
        # the points counted whatever the later axes: a slab with more than hi of them
        # (and every slab after it) is empty
        sure = col[np.all(Q[:, a + 1 : D] <= s[a + 1 :], axis=1)]
        cuts = np.unique(col[(col > s[a]) & (col <= cap[a])])
        bounds = [int(s[a]), *cuts.tolist(), int(cap[a]) + 1]
        out: list[list] = []
        open_: dict[tuple, int] = {}
        for c0, nxt in zip(bounds, bounds[1:], strict=False):
            c1 = nxt - 1
            if int((sure <= c0).sum()) > hi:
                break
            self.work += 1
            if self.budget is not None and self.work > self.budget:
                raise RegionTooLarge(f"partition needed more than {self.budget} slabs")
            here = (*prefix, (c0, c1))
            if self.keep is not None:
                # Paint-Sparse: the sub-boxes depend on the prefix (what it holds), so
                # they are not memoised; the relevance filter changes no cell's set
                keep = self.keep(here + self.rest(a + 1))
                Qs = Q[col <= c0]
                sub = self.run(Qs[relevant(Qs[:, a + 1 : D], hi)], a + 1, here) if keep else []
            else:
                Qs = Q[col <= c0]
                Qs = Qs[relevant(Qs[:, a + 1 : D], hi)]
                key = (a + 1, Qs[:, D].tobytes())
                sub = self.memo.get(key)
                if sub is None:
                    sub = self.memo[key] = self.run(Qs, a + 1, here)
            new_open: dict[tuple, int] = {}
            for sb in sub:
                j = open_.get(sb)
                if j is None:
                    out.append([(c0, c1), sb])
                    j = len(out) - 1
                else:
                    out[j][0] = (out[j][0][0], c1)
                new_open[sb] = j
            open_ = new_open
        return [(rng, *sb) for rng, sb in out]
