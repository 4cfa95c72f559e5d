"""Multi-dimensional ranked matching on per-dimension scored interval indexes
(seed 000 §1, §4): a subscription is a box ``[lows[i], highs[i]]`` in d dimensions,
an event is a point.

* Exact matching: the box must contain the point; the score is the subscription's
  score, so every dimension's index is built on the same scores and their
  iterators run in the same rank order; the answer is their intersection.
* Relaxed matching: a subscription matches if at least one dimension does; its
  score is the sum of its weights in the matching dimensions; the answer is merged
  from the d iterators by Fagin's Threshold Algorithm (TA).

Iterators are consumed in growing batches (sorted access is ``top_k`` with a batch
size multiplied by 4 each round), which keeps the per-item work in numba/numpy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.ranked.base import RankedIndex, check_query, rank_order


def _as_boxes(lows, highs, name: str, values) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lows = np.ascontiguousarray(lows, np.float64)
    highs = np.ascontiguousarray(highs, np.float64)
    values = np.ascontiguousarray(values, np.float64)
    if lows.ndim != 2 or lows.shape != highs.shape:
        raise InputError(
            f"lows and highs must be (n, d) arrays of one shape, got {lows.shape} and {highs.shape}"
        )
    if values.shape[0] != lows.shape[0]:
        raise InputError(f"{name} has {values.shape[0]} rows for {lows.shape[0]} boxes")
    return lows, highs, values


def _index_class(index: str | type[RankedIndex]) -> type[RankedIndex]:
    from cnsim.subscriptions.ranked import REGISTRY

    if isinstance(index, str):
        if index not in REGISTRY:
            raise InputError(f"unknown ranked index {index!r}; known: {sorted(REGISTRY)}")
        return REGISTRY[index]
    return index


def _check_point(point, d: int) -> np.ndarray:
    p = np.asarray(point, np.float64).reshape(-1)
    if p.shape[0] != d:
        raise InputError(f"point has {p.shape[0]} coordinates, boxes have {d}")
    return p


def brute_exact_top_k(lows, highs, score, point, k: int) -> np.ndarray:
    """Exact matching by brute force."""
    hit = np.flatnonzero(((lows <= point) & (point <= highs)).all(axis=1))
    o = np.lexsort((hit, -score[hit]))
    return hit[o[:k]].astype(np.int64)


def relaxed_scores(lows, highs, weights, point, dims: Sequence[int], ids=None) -> np.ndarray:
    """Relaxed score (sum of weights of matching dimensions, in ``dims`` order)."""
    sel = slice(None) if ids is None else ids
    total = np.zeros(lows.shape[0] if ids is None else len(ids))
    for j in dims:
        hit = (lows[sel, j] <= point[j]) & (point[j] <= highs[sel, j])
        total = total + np.where(hit, weights[sel, j], 0.0)
    return total


def brute_relaxed_top_k(lows, highs, weights, point, k: int, dims=None) -> np.ndarray:
    """Relaxed matching by brute force; subscriptions matching no dimension are out."""
    dims = range(lows.shape[1]) if dims is None else dims
    s = relaxed_scores(lows, highs, weights, point, dims)
    hit = np.zeros(len(s), bool)
    for j in dims:
        hit |= (lows[:, j] <= point[j]) & (point[j] <= highs[:, j])
    ids = np.flatnonzero(hit)
    o = np.lexsort((ids, -s[ids]))
    return ids[o[:k]].astype(np.int64)


class ExactMatcher:
    """Top-k exact matching by intersecting per-dimension score-ordered iterators."""

    def __init__(self, lows, highs, score, index: str | type[RankedIndex] = "sopt_rtree", **params):
        self.lows, self.highs, self.score = _as_boxes(lows, highs, "score", score)
        cls = _index_class(index)
        self.indexes = [
            cls(self.lows[:, j], self.highs[:, j], self.score, **params)
            for j in range(self.lows.shape[1])
        ]
        self._rank = np.empty(len(self.score), np.int64)
        self._rank[rank_order(self.score)] = np.arange(len(self.score))

    def top_k(self, point, k: int) -> np.ndarray:
        """Ids of the k best boxes containing ``point``, best first."""
        p = _check_point(point, len(self.indexes))
        _, k = check_query(0.0, k)
        if k == 0 or not self.indexes:
            return brute_exact_top_k(self.lows, self.highs, self.score, p, k)
        batch = max(16, k)
        while True:
            lists = [ix.top_k(p[j], batch) for j, ix in enumerate(self.indexes)]
            done = [j for j, a in enumerate(lists) if len(a) < batch]
            if done:
                # a finished iterator is the whole stabbed set of its dimension:
                # intersect it with the others by random access
                cand = min((lists[j] for j in done), key=len)
                ok = ((self.lows[cand] <= p) & (p <= self.highs[cand])).all(axis=1)
                return cand[ok][:k]
            # every list is a rank-order prefix; below the smallest last rank the
            # intersection of the prefixes is exact
            common = lists[0]
            for a in lists[1:]:
                common = np.intersect1d(common, a, assume_unique=True)
            bound = min(self._rank[a[-1]] for a in lists)
            common = common[self._rank[common] <= bound]
            if len(common) >= k:
                return common[np.argsort(self._rank[common])][:k]
            batch *= 4

    def nbytes(self) -> int:
        """Bytes of the per-dimension indexes."""
        return sum(ix.nbytes() for ix in self.indexes) + self._rank.nbytes


class RelaxedMatcher:
    """Top-k relaxed matching by the Threshold Algorithm over per-dimension indexes."""

    def __init__(
        self, lows, highs, weights, index: str | type[RankedIndex] = "sopt_rtree", **params
    ):
        self.lows, self.highs, self.weights = _as_boxes(lows, highs, "weights", weights)
        if self.weights.shape != self.lows.shape:
            raise InputError(f"weights must have shape {self.lows.shape}, got {self.weights.shape}")
        if not (self.weights > 0).all() or not np.isfinite(self.weights).all():
            raise InputError(
                "relaxed matching needs finite weights > 0 (TA needs a "
                "monotone score and a matched dimension must count)"
            )
        cls = _index_class(index)
        self.indexes = [
            cls(self.lows[:, j], self.highs[:, j], self.weights[:, j], **params)
            for j in range(self.lows.shape[1])
        ]
        self.sorted_accesses = 0

    def top_k(self, point, k: int, dims: Sequence[int] | None = None) -> np.ndarray:
        """Ids of the k best-scoring boxes matching ``point`` in at least one of ``dims``."""
        p = _check_point(point, len(self.indexes))
        _, k = check_query(0.0, k)
        dims = list(range(len(self.indexes)) if dims is None else dims)
        if k == 0 or not dims:
            return np.empty(0, np.int64)
        batch = max(16, k)
        seen = np.empty(0, np.int64)
        while True:
            lists = [self.indexes[j].top_k(p[j], batch) for j in dims]
            self.sorted_accesses += sum(len(a) for a in lists)
            seen = np.union1d(seen, np.concatenate(lists))
            s = relaxed_scores(self.lows, self.highs, self.weights, p, dims, seen)
            o = np.lexsort((seen, -s))[:k]
            # TA threshold: the best score an unseen box can still have
            live = [(j, a) for j, a in zip(dims, lists, strict=True) if len(a) == batch]
            if not live:
                return seen[o]
            threshold = 0.0
            for j, a in live:
                threshold = threshold + self.weights[a[-1], j]
            # strict: an unseen box may tie the k-th score with a smaller id
            if len(o) == k and s[o[-1]] > threshold:
                return seen[o]
            batch *= 4

    def nbytes(self) -> int:
        """Bytes of the per-dimension indexes."""
        return sum(ix.nbytes() for ix in self.indexes)
