"""d-dimensional box subscriptions (seed 003 §IV-C): ``[l_1, r_1] × … × [l_d, r_d]``
over the objects' attributes (x_1, …, x_d), the point ``(l_1, r_1, …, l_d, r_d)`` of
S = R^{2d}; a message box holds, per attribute, ``lO < l_t <= lI`` and
``rI <= r_t < rO``. The workload is :mod:`cnsim.subscriptions.workload_boxes`'s.

Over the content-based overlay (which declares it: ``ContentBasedCN.streams``) box
subscriptions are seed 001's (Shen, Aluru, Tirthapura, "Indexing for Subscription
Covering in Publish-Subscribe Systems", §V-A): a stream of subscribe and unsubscribe
commands (``churn``: the share unsubscribing) on boxes over ``d`` integer attributes,
interleaved with events published as points; every event reaches the live boxes
holding it (:mod:`cnsim.simulations.churn`). There are no objects and no top-k lists.
"""

from __future__ import annotations

from cnsim.subscriptions.kinds.base import DEFAULT, Restriction, SubscriptionKind
from cnsim.subscriptions.lists import TopKLists
from cnsim.subscriptions.space_boxes import BoxSubscriptions
from cnsim.subscriptions.workload_boxes import (
    extend_attributes,
    generate_attributes,
    generate_boxes,
    initial_lists_boxes,
)

_WHEN = "when subscriptions.kind = 'box'"


def message_bytes(d: int) -> int:
    """Bytes of one CN message over d attributes: a 2d-dimensional box (4d values) and
    the object's ``(x_1..x_d, y)``, 4 bytes each (24 bytes for d = 1, as in 1-d)."""
    return 4 * (4 * d + d + 1)


class BoxKind(SubscriptionKind):
    """A box over ``d = [subscriptions] dims`` attributes: S = R^{2d}."""

    name = "box"
    label = "box"
    # subscriptions.churn: box subscriptions over the content-based overlay only (a rule
    # of the scenario's, since it needs both keys)
    owns = ("subscriptions.dims", "algorithm.box_budget")
    restrictions = (
        Restriction("objects.distribution", ("uniform",),
                    "does not apply to box subscriptions (their d attributes are independent "
                    "uniforms)", f"'uniform' (the default) {_WHEN}"),
        Restriction("subscriptions.distribution", ("uniform",),
                    "does not apply to box subscriptions (each side is two sorted uniform "
                    "draws)", f"'uniform' (the default) {_WHEN}"),
        Restriction("events.trace", (None,),
                    "cannot feed box subscriptions (its rows have one x)",
                    f"no events.trace {_WHEN}"),
        Restriction("server.count", (1,),
                    "must be 1 for box subscriptions (one d-dimensional object index)",
                    f"1 {_WHEN}"),
        Restriction("messages.cn_bytes", DEFAULT,
                    "applies to 1-d messages only (a box message is 4(5d + 1) bytes)",
                    f"the default {_WHEN}"),
    )  # fmt: skip
    one_message_per_object = True  # an object's boxes of one event are disjoint

    @property
    def d(self) -> int:
        """Attributes of every box."""
        return self.section["dims"]

    @property
    def lower_open(self) -> tuple[bool, ...]:
        return (True, False) * self.d

    @property
    def ordered(self) -> tuple[tuple[int, int], ...]:
        return tuple((2 * t, 2 * t + 1) for t in range(self.d))

    def draw(self, streams, x, events):
        xd_rng = streams.rng("objects_x2")  # attributes 2..d: 1.5-d's x2 stream
        xd = generate_attributes(xd_rng, x, self.d)
        l, r = generate_boxes(streams.rng("subscriptions"), self.section["count"], self.d)
        return {"l": l, "r": r, "xd": extend_attributes(xd_rng, xd, events.obj, events.x)}

    def index(self, w) -> BoxSubscriptions:
        return BoxSubscriptions(w.l, w.r)

    def initial_lists(self, w, layout, max_id) -> TopKLists:
        return initial_lists_boxes(w.xd, w.y, w.l, w.r, w.k, layout, max_id)

    def bounds(self, w):
        return w.l, w.r

    def object_points(self, w, x):
        return w.xd

    def region_bytes(self, w, sizes) -> int:
        return message_bytes(self.d)

    def server_view(self, w, algorithm):
        return {"attributes": w.xd, "budget": algorithm["box_budget"]}
