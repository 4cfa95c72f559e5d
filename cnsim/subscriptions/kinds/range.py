"""1-d range subscriptions (seed 003 §II-A): ``[l, r]`` over the objects' x, the point
``(l, r)`` of a 2-d S; a message ``(lO, lI, rI, rO)`` holds ``lO < l <= lI`` and
``rI <= r < rO``. The kind of seed 003's §V and of every 1-d figure.
"""

from __future__ import annotations

import numpy as np

from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.kinds.base import SubscriptionKind
from cnsim.subscriptions.workload import generate_subscriptions


class RangeKind(SubscriptionKind):
    """A range ``[l, r]``: S = {(l, r)}, matching over x."""

    name = "range"
    label = "1-d"

    @property
    def lower_open(self) -> tuple[bool, ...]:
        return (True, False)

    @property
    def ordered(self) -> tuple[tuple[int, int], ...]:
        return ((0, 1),)

    def draw(self, streams, x, events):
        s = self.section
        rng = streams.rng("subscriptions")
        l, r = generate_subscriptions(rng, s["count"], s["distribution"], s["spread"])
        return {"l": l, "r": r}

    def index(self, w) -> SubscriptionIndex:
        return SubscriptionIndex(w.l, w.r)

    def space_points(self, w) -> np.ndarray:
        return np.column_stack([w.l, w.r])

    def bounds(self, w):
        return w.l[:, None], w.r[:, None]

    def object_points(self, w, x):
        return np.asarray(x, np.float64)[:, None]

    def region_bytes(self, w, sizes) -> int:
        return sizes["cn_bytes"]
