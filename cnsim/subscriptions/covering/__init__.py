"""Covering detection (seed 001): relation graphs over dynamic covering indexes.

Subscriptions are boxes on ``d`` numeric attributes; box ``s`` covers ``s'`` iff the
point ``(-l1, r1, ..., -ld, rd)`` of ``s`` dominates that of ``s'``.  See ``README.md``.
"""

from __future__ import annotations

from cnsim.subscriptions.covering.base import (
    ALL,
    CoveringIndex,
    box_points,
    brute_covering,
    strictly_covers,
)
from cnsim.subscriptions.covering.graph import (
    FullGraph,
    GkGraph,
    GStream,
    PosetGraph,
    ReferenceGkGraph,
    RelationGraph,
    make_graph,
)
from cnsim.subscriptions.covering.kdtree import KDTreeIndex
from cnsim.subscriptions.covering.naive import NaiveIndex
from cnsim.subscriptions.covering.zorder import ZOrderIndex

#: every covering index by name
INDEXES: dict[str, type[CoveringIndex]] = {
    cls.name: cls for cls in (NaiveIndex, KDTreeIndex, ZOrderIndex)
}

__all__ = [
    "ALL",
    "INDEXES",
    "CoveringIndex",
    "FullGraph",
    "GkGraph",
    "GStream",
    "KDTreeIndex",
    "NaiveIndex",
    "PosetGraph",
    "ReferenceGkGraph",
    "RelationGraph",
    "ZOrderIndex",
    "box_points",
    "brute_covering",
    "make_graph",
    "strictly_covers",
]
