"""Influence regions in the subscription space S as lists of CN message rectangles
(seed 003 §II-C, Lemma 2, and §III-A).

Notation follows the paper. For object ``i`` at ``(x_i, z)``:
``L = first_k(x_i, z, west)`` gives ``ℓ_1 > ℓ_2 > … > ℓ_a`` and
``R = first_k(x_i, z, east)`` gives ``r_1 < r_2 < … < r_b``; both are padded with
``ℓ_0 = r_0 = x_i`` and ``ℓ_p = -inf`` (``p > a``), ``r_q = +inf`` (``q > b``).
A subscription ``(l, r)`` with ``l ∈ (ℓ_{p+1}, ℓ_p]`` and ``r ∈ [r_q, r_{q+1})``
holds ``p + q`` objects below ``z`` besides ``i``, so ``i`` is in its top-k iff
``p + q <= k - 1``.

A rectangle is ``(lO, lI, rI, rO)`` and reaches ``lO < l <= lI``, ``rI <= r < rO``.
Every list here is ordered west to east (by ``l``), the order Paint-Sparse's greedy
merging walks.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

INF = math.inf


def _west(x_i: float, L: np.ndarray, p: int) -> float:
    """ℓ_p: ``x_i`` for p = 0, the p-th x-value west of ``x_i``, or ``-inf``."""
    if p == 0:
        return x_i
    return float(L[p - 1]) if p <= len(L) else -INF


def _east(x_i: float, R: np.ndarray, q: int) -> float:
    """r_q: ``x_i`` for q = 0, the q-th x-value east of ``x_i``, or ``+inf``."""
    if q == 0:
        return x_i
    return float(R[q - 1]) if q <= len(R) else INF


def influence_interval(x_i: float, L: np.ndarray, R: np.ndarray, k: int) -> tuple[float, float]:
    """II(i) = (ℓ_k, r_k): the open x-range of the objects whose octants IR(i) can touch."""
    return _west(x_i, L, k), _east(x_i, R, k)


def influence_region(x_i: float, L: np.ndarray, R: np.ndarray, k: int) -> list[tuple]:
    """IR(i) tiled by south-north strips (Algorithm 4, Paint-Dense-IR).

    Strip ``p`` holds the subscriptions with ``p`` objects below ``i`` to the west:
    ``l ∈ (ℓ_{p+1}, ℓ_p]``, ``r ∈ [x_i, r_{k-p})``. The easternmost strips all reach
    ``r = +inf`` and are merged into one rectangle, as in the paper.
    """
    last = min(len(L), k - 1)  # strips beyond ℓ_a are empty
    merged_upto = min(k - len(R) - 1, last)  # strips p <= this reach r = +inf
    rects = []
    for p in range(last, merged_upto, -1):
        rects.append((_west(x_i, L, p + 1), _west(x_i, L, p), x_i, _east(x_i, R, k - p)))
    if merged_upto >= 0:
        rects.append((_west(x_i, L, merged_upto + 1), x_i, x_i, INF))
    return rects


def gained_region(x_i: float, L: np.ndarray, R: np.ndarray, x_h: float, k: int) -> list[tuple]:
    """IR_new(h) \\ IR_old(h): what exposed object ``h`` takes from IR*(i) when the
    sweep crosses it (Lemma 3, Algorithm 5, Paint-Dense-Exposed): a diagonal chain.

    ``L`` and ``R`` are the lists before ``h`` is added. Empty when ``x_h`` lies outside
    the influence interval or ``i`` is in no top-k list that ``h`` could enter.
    """
    if x_h < x_i:
        # Mirror x -> -x: S maps (l, r) -> (-r, -l), which turns the half-open
        # rectangle (A, B] x [C, D) into (-D, -C] x [-B, -A).
        chain = gained_region(-x_i, -np.asarray(R), -np.asarray(L), -x_h, k)
        return [(-d, -c, -b, -a) for (a, b, c, d) in reversed(chain)]
    q = int(np.searchsorted(R, x_h))  # objects of R between x_i and x_h
    if q >= k:
        return []
    rects = []
    for p in range(min(len(L), k - 1 - q), -1, -1):
        lo_l, hi_l = _west(x_i, L, p + 1), _west(x_i, L, p)
        if p == k - 1 - q:
            rects.append((lo_l, hi_l, x_h, _east(x_i, R, q + 1)))
        elif k - 1 - p <= len(R):
            rects.append((lo_l, hi_l, _east(x_i, R, k - 1 - p), _east(x_i, R, k - p)))
    return rects


def add_exposed(L: np.ndarray, R: np.ndarray, x_i: float, x_h: float, k: int):
    """The lists ``L``, ``R`` after exposed object ``h`` drops below the sweep."""
    if x_h < x_i:
        L = np.sort(np.append(L, x_h))[::-1][:k]
    else:
        R = np.sort(np.append(R, x_h))[:k]
    return L, R


def enclosing_box(boxes: list) -> tuple:
    """MEB: the smallest message box containing all of ``boxes``. A message box is a pair
    ``(lo, hi)`` per coordinate of S (1-d: ``(lO, lI, rI, rO)``; 1.5-d and d-dimensional
    boxes add pairs), so the MEB takes the smallest lo and the largest hi of each pair."""
    sides = zip(*boxes, strict=True)
    return tuple(min(c) if t % 2 == 0 else max(c) for t, c in enumerate(sides))


def greedy_merge(snapped: list[tuple], count: Callable[[tuple], int]) -> list[tuple]:
    """Paint-Sparse's merge (§III-B): grow the last output box over the next snapped one
    (in send order) whenever their enclosing box reaches only the subscriptions of the
    two. ``snapped``: ``(box, subscriptions reached)`` pairs, reaching disjoint sets, so
    the MEB adds no false positive iff ``count(MEB)`` (a snap) is the sum of the two."""
    merged: list[tuple] = []
    current, total = None, 0
    for box, c in snapped:
        if current is not None:
            meb = enclosing_box([current, box])
            if count(meb) == total + c:
                current, total = meb, total + c
                continue
            merged.append(current)
        current, total = box, c
    if current is not None:
        merged.append(current)
    return merged


def coarsen(rects: list[tuple], eps: float, k: int) -> list[tuple]:
    """Paint-*(ε) (§IV-B): cover each run of ⌈εk⌉ adjacent rectangles by its MEB,
    leaving at most 1/ε rectangles."""
    size = max(1, math.ceil(eps * k))
    return [enclosing_box(rects[s : s + size]) for s in range(0, len(rects), size)]


def merge_lists(
    first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray], k: int
) -> tuple[np.ndarray, np.ndarray]:
    """The first k of ``L ∪ L'`` (west, descending) and of ``R ∪ R'`` (east, ascending)."""
    L = np.sort(np.concatenate([first[0], second[0]]))[::-1][:k]
    R = np.sort(np.concatenate([first[1], second[1]]))[:k]
    return L, R


def union_region(x_i: float, staircases: list[tuple[np.ndarray, np.ndarray]], k: int) -> list:
    """The union of influence regions of one object with apex ``(x_i, x_i)``, each given
    by its ``(L, R)``, tiled by south-north strips west to east (Paint-Batch notifies
    IR_new(i) ∪ IR_pre(i), §IV-A).

    Within each strip between consecutive west breakpoints the union reaches the
    highest r-bound of its staircases; neighbouring strips with equal bounds merge.
    """
    # Strip boundaries: x_i and ℓ_1..ℓ_k of every staircase; below a staircase's ℓ_k
    # (p = k objects to the west) it reaches nothing.
    cuts = np.unique(np.concatenate([[x_i]] + [L[:k] for L, _ in staircases]))[::-1]
    strips = []  # east to west: (lo_l, hi_l, r_bound)
    for j, hi_l in enumerate(cuts):
        lo_l = cuts[j + 1] if j + 1 < len(cuts) else -INF
        bound = -INF
        for L, R in staircases:
            p = int(np.count_nonzero(hi_l <= L))
            if p <= k - 1:
                bound = max(bound, _east(x_i, R, k - p))
        if bound == -INF:
            break  # west of here no staircase reaches
        if strips and strips[-1][2] == bound:
            strips[-1] = (lo_l, strips[-1][1], bound)
        else:
            strips.append((lo_l, float(hi_l), bound))
    return [(lo_l, hi_l, x_i, bound) for lo_l, hi_l, bound in reversed(strips)]
