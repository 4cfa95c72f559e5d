"""CN-Relax, the serverless baseline of seed 003 §V, for every subscription kind: every
event enters the CN at its publisher's broker as the message reaching every
subscription that holds the object — in 1-d ``Msg(x_i, x_i, -inf, inf, x_i, y_new)``,
the subscriptions whose range holds ``x_i``. Each subscription treats its range top-k
query as a plain range subscription: it keeps *all* objects in its range and computes
its top k itself, so it never needs a replacement object, but it hears about every
change in its range.

The message is the kind's geometry alone. A subscription is a point of S whose every
coordinate bounds one attribute of the objects, from below (``lower_open``: a message
reaches ``lO < l <= lI``) or from above (``rI <= r < rO``); it holds object o iff every
lower bound is at most o's attribute and every upper bound at least it. So the message
reaching the subscriptions holding o is ``(−inf, a]`` on each lower coordinate and
``[a, inf)`` on each upper one, ``a`` the attribute it bounds: 1-d ranges ``(l, r)``
bound x twice; 1.5-d ranges ``(l1, r1, r2)`` (appendix D) x1 twice and x2 from above;
d-dimensional boxes (§IV-C) each attribute twice (:func:`~cnsim.algorithms.messages.reach`).
"""

from __future__ import annotations

import numpy as np

from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.messages import Messages, reach
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.workload import Updates


class CNRelax(Approach):
    """CN-Relax: one message per update, from the publisher, to every subscription
    holding the object."""

    family = "cn-relax"
    entry = "publisher"  # no server: messages start at the publisher's broker
    stores = "range"  # a subscriber keeps every object of its range
    ordered = False  # no single sender; per object the latest update wins
    exact_family = False  # every range holding x hears every change

    def __init__(self, view: ServerView):
        self.spec = ApproachSpec(self.family)
        self.view = view  # the objects' attributes (:meth:`ServerView.points`)
        self.subscriptions: SubscriptionIndex = view.subscriptions
        # no server, no index calls: the kind's counter columns, at zero
        self.counter = view.server.counter()

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> CNRelax:
        """CN-Relax needs the objects' attributes and the subscriptions (memory)."""
        return cls(view)

    def process(self, updates: Updates) -> Messages:
        """One message per update, in order."""
        rects = reach(self.view.points(updates.x, updates.obj), self.subscriptions.lower_open)
        return Messages(rects, updates.obj.copy(), updates.x.copy(), updates.y_new.copy())

    def memory_bytes(self, x: np.ndarray, y: np.ndarray, object_bytes: int) -> int:
        """Subscriber memory: every live object in every subscription's range."""
        live = np.flatnonzero(np.isfinite(y))
        points = self.view.points(np.asarray(x, np.float64)[live], live)
        subs = self.subscriptions
        if points.shape[1] == 1 and subs.dims == 2:  # ranges [l, r]: two binary searches
            xs = np.sort(points[:, 0])
            lo = np.searchsorted(xs, subs.points[0], side="left")
            hi = np.searchsorted(xs, subs.points[1], side="right")
            return int((hi - lo).sum()) * object_bytes
        # one snap per object, never listing the pairs
        boxes = reach(points, subs.lower_open)
        return sum(subs.snap(b)[0] for b in boxes) * object_bytes
