"""Top-k matching of Boolean expressions over high-dimensional continuous attributes:
the BE*-tree (seed 002) and its baselines (scan, k-index, BE-tree).  See README.md."""

from __future__ import annotations

from cnsim.subscriptions.ranked.boolean.base import BooleanIndex
from cnsim.subscriptions.ranked.boolean.betree import BEStarTree, BETree
from cnsim.subscriptions.ranked.boolean.expressions import (
    OPS,
    Expressions,
    brute_match,
    brute_scores,
    brute_top_k,
    parse,
    parse_many,
)
from cnsim.subscriptions.ranked.boolean.kindex import KIndex
from cnsim.subscriptions.ranked.boolean.scan import Scan

#: every index by name
REGISTRY: dict[str, type[BooleanIndex]] = {
    cls.name: cls for cls in (Scan, BEStarTree, BETree, KIndex)
}

__all__ = [
    "OPS",
    "REGISTRY",
    "BEStarTree",
    "BETree",
    "BooleanIndex",
    "Expressions",
    "KIndex",
    "Scan",
    "brute_match",
    "brute_scores",
    "brute_top_k",
    "parse",
    "parse_many",
]
