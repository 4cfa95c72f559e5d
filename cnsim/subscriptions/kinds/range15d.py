"""1.5-d range subscriptions (seed 003 appendix D): ``[l1, r1] × (−∞, r2]`` over the
objects' (x1, x2), the point ``(l1, r1, r2)`` of a 3-d S; a message box
``(lO, lI, rI, rO, vI, vO)`` holds ``lO < l1 <= lI``, ``rI <= r1 < rO`` and
``vI <= r2 < vO``. The workload is :mod:`cnsim.subscriptions.workload_15d`'s.
"""

from __future__ import annotations

import numpy as np

from cnsim.subscriptions.index import SubscriptionIndex3D
from cnsim.subscriptions.kinds.base import DEFAULT, Restriction, SubscriptionKind
from cnsim.subscriptions.lists import TopKLists
from cnsim.subscriptions.workload_15d import (
    extend_x2,
    generate_subscriptions_15d,
    generate_x2,
    initial_lists_15d,
)

_WHEN = "when subscriptions.kind = 'range-1.5d'"


def attribute_boxes(l, r, v) -> tuple[np.ndarray, np.ndarray]:
    """Subscriptions ``(l1, r1, r2)`` as closed boxes ``[l1, r1] × [−inf, r2]`` over the
    objects' (x1, x2): ``(lo, hi)``, each (m, 2)."""
    lo = np.column_stack([np.asarray(l, np.float64), np.full(len(l), -np.inf)])
    return lo, np.column_stack([r, v]).astype(np.float64)


def attribute_points(x1, x2) -> np.ndarray:
    """The objects' (x1, x2), (n, 2)."""
    return np.column_stack([x1, x2]).astype(np.float64)


class Range15dKind(SubscriptionKind):
    """A 1.5-d range: S = {(l1, r1, r2)}, matching over (x1, x2)."""

    name = "range-1.5d"
    label = "1.5-d"
    owns = ("subscriptions.dataset", "subscriptions.cover", "messages.box_bytes")
    restrictions = (
        Restriction("overlay.kind", ("ideal", "meghdoot"),
                    "cannot carry 1.5-d range subscriptions", f"'ideal' or 'meghdoot' {_WHEN}"),
        Restriction("subscriptions.distribution", ("uniform",),
                    "does not apply to 1.5-d subscriptions (subscriptions.dataset draws them)",
                    f"'uniform' (the default) {_WHEN}"),
        Restriction("events.trace", (None,),
                    "cannot feed 1.5-d subscriptions (its rows have no x2)",
                    f"no events.trace {_WHEN}"),
        Restriction("server.count", (1,),
                    "must be 1 for 1.5-d subscriptions (one 2-d object index)", f"1 {_WHEN}"),
        Restriction("messages.cn_bytes", DEFAULT,
                    "applies to 1-d messages only (a 1.5-d message is messages.box_bytes long)",
                    f"the default {_WHEN}"),
    )  # fmt: skip
    one_message_per_object = True  # an object's boxes of one event are disjoint

    @property
    def lower_open(self) -> tuple[bool, ...]:
        return (True, False, False)

    @property
    def ordered(self) -> tuple[tuple[int, int], ...]:
        return ((0, 1),)

    def draw(self, streams, x, events):
        s = self.section
        x2_rng = streams.rng("objects_x2")  # x2 of the initial objects, then of new ids
        x2 = generate_x2(x2_rng, len(x))
        rng = streams.rng("subscriptions")
        l, r, v = generate_subscriptions_15d(rng, s["count"], s["dataset"], x, s["cover"])
        return {"l": l, "r": r, "v": v, "x2": extend_x2(x2_rng, x2, events.obj)}

    def index(self, w) -> SubscriptionIndex3D:
        return SubscriptionIndex3D(w.l, w.r, w.v)

    def initial_lists(self, w, layout, max_id) -> TopKLists:
        return initial_lists_15d(w.x, w.x2, w.y, w.l, w.r, w.v, w.k, layout, max_id)

    def bounds(self, w):
        return attribute_boxes(w.l, w.r, w.v)

    def object_points(self, w, x):
        return attribute_points(np.asarray(x, np.float64)[: len(w.x2)], w.x2)

    def region_bytes(self, w, sizes) -> int:
        return sizes["box_bytes"]

    def server_view(self, w, algorithm):
        return {"attributes": w.x2}
