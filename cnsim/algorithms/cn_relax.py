"""CN-Relax, the serverless baseline of seed 003 §V: every event enters the CN at its
publisher's broker as ``Msg(x_i, x_i, -inf, inf, x_i, y_new)``, which reaches every
subscription whose range holds ``x_i``. Each subscription treats its range top-k
query as a plain range subscription: it keeps *all* objects in its range and
computes its top k itself, so it never needs a replacement object, but it hears
about every change in its range.
"""

from __future__ import annotations

import numpy as np

from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.messages import Messages
from cnsim.server.object_index import CallCounter
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.workload import Updates


class CNRelax(Approach):
    """CN-Relax: one message per update, from the publisher, to every range holding x."""

    family = "cn-relax"
    entry = "publisher"  # no server: messages start at the publisher's broker
    stores = "range"  # a subscriber keeps every object of its range
    ordered = False  # no single sender; per object the latest update wins
    exact_family = False  # every range holding x hears every change

    def __init__(self, subscriptions: SubscriptionIndex):
        self.spec = ApproachSpec(self.family)
        self.subscriptions = subscriptions
        self.counter = CallCounter()  # no server, no index calls

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> CNRelax:
        """CN-Relax needs only the subscriptions (to size what subscribers store)."""
        return cls(view.subscriptions)

    def process(self, updates: Updates) -> Messages:
        """One message per update, in order."""
        n = len(updates)
        rects = np.stack([np.full(n, -np.inf), updates.x, updates.x, np.full(n, np.inf)], axis=1)
        return Messages(rects, updates.obj.copy(), updates.x.copy(), updates.y_new.copy())

    def memory_bytes(self, x: np.ndarray, y: np.ndarray, object_bytes: int) -> int:
        """Subscriber memory: every live object in every subscription's range."""
        xs = np.sort(x[np.isfinite(y)])
        lo = np.searchsorted(xs, self.subscriptions.l, side="left")
        hi = np.searchsorted(xs, self.subscriptions.r, side="right")
        return int((hi - lo).sum()) * object_bytes
