"""Ranked matching: top-k stabbing indexes over scored intervals (seeds 000, 004),
and multi-dimensional exact and relaxed matching on top of them."""

from __future__ import annotations

from cnsim.subscriptions.ranked.base import RankedIndex, brute_top_k
from cnsim.subscriptions.ranked.interval_forest import IntervalForest
from cnsim.subscriptions.ranked.interval_tree import IntervalTree, ScoredIntervalTree
from cnsim.subscriptions.ranked.rtree import IRTree, ScoredRTree, SOPTRTree
from cnsim.subscriptions.ranked.scan import SequentialScan
from cnsim.subscriptions.ranked.segment_tree import ScoredSegmentTree, SegmentTree
from cnsim.subscriptions.ranked.st_psa import STPSA

#: every top-k stabbing structure by name
REGISTRY: dict[str, type[RankedIndex]] = {
    cls.name: cls
    for cls in (
        SequentialScan,
        IntervalTree,
        SegmentTree,
        ScoredSegmentTree,
        ScoredIntervalTree,
        ScoredRTree,
        IRTree,
        SOPTRTree,
        IntervalForest,
        STPSA,
    )
}

__all__ = ["REGISTRY", "RankedIndex", "brute_top_k", *[c.__name__ for c in REGISTRY.values()]]
