"""d-dimensional box subscriptions (seed 003 §IV-C): ``[l_1, r_1] × … × [l_d, r_d]``
over the objects' attributes (x_1, …, x_d), the point ``(l_1, r_1, …, l_d, r_d)`` of
S = R^{2d}; a message box holds, per attribute, ``lO < l_t <= lI`` and
``rI <= r_t < rO``.

The workload: attributes are independent and uniform in [0, 1). x_1 is the 1-d
scenario's x (``[objects]``, uniform), so x_1 and y of a box run equal those of the 1-d
run of the same seed; x_2..x_d come from the stream of 1.5-d's x2, one row of d − 1
draws per id in id order (:func:`~cnsim.subscriptions.kinds.base.attributes`; for
d = 2, x_2 is the 1.5-d run's x2). Each side ``[l_t, r_t]`` is the smaller and larger
of two uniform draws, drawn as two (m, d) arrays from the ``subscriptions`` stream: for
d = 1 exactly the 1-d run's uniform ranges.

Over the content-based overlay (which declares it: ``ContentBasedCN.streams``) box
subscriptions are seed 001's (Shen, Aluru, Tirthapura, "Indexing for Subscription
Covering in Publish-Subscribe Systems", §V-A): a stream of subscribe and unsubscribe
commands (``churn``: the share unsubscribing) on boxes over ``d`` integer attributes,
interleaved with events published as points; every event reaches the live boxes
holding it (:class:`cnsim.simulations.runner.StreamSimulation`). There are no objects
and no top-k lists.
"""

from __future__ import annotations

import numpy as np

from cnsim.subscriptions.kinds.base import DEFAULT, Restriction, SubscriptionKind, attributes
from cnsim.subscriptions.space_boxes import BoxSubscriptions
from cnsim.subscriptions.workload import sorted_pairs

MAX_DIMS = 4  # [subscriptions] dims: 1 .. MAX_DIMS (Paint-Dense's regions grow like z^d)
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
        xd = attributes(streams.rng("objects_x2"), x, events, self.d - 1)
        l, r = sorted_pairs(streams.rng("subscriptions"), (self.section["count"], self.d))
        return {"l": l, "r": r, "xd": xd}

    def index(self, w) -> BoxSubscriptions:
        return BoxSubscriptions(w.l, w.r)

    def space_points(self, w) -> np.ndarray:
        """``(l_1, r_1, …, l_d, r_d)``: the box index's S."""
        return np.stack([w.l, w.r], axis=2).reshape(len(w.l), -1)

    def bounds(self, w):
        return w.l, w.r

    def object_points(self, w, x):
        return w.xd

    def region_bytes(self, w, sizes) -> int:
        return message_bytes(self.d)

    def server_view(self, w, algorithm):
        return {"attributes": w.xd, "budget": algorithm["box_budget"]}
