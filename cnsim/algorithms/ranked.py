"""Ranked delivery as an approach: every published event reaches exactly the k
best-scoring subscriptions of the whole network that match it (ties by the smaller
subscription id).

As in CN-Relax there is no server: every update ``Upd(x_i, ...)`` is published at its
publisher's broker as the point ``x_i``, and the subscriptions matching it are those
whose range holds ``x_i`` (the quadrant ``{l <= x_i} × {r >= x_i}`` of S). The approach
only says so — one ``ranked`` message per update, in order; which subscriptions it
reaches, and what finding them costs (threshold pruning over the zones' score bounds,
or the flood baseline), is the network's part (:mod:`cnsim.brokers.ranked`,
``[ranked]`` of the scenario). A subscriber keeps nothing but its notifications.
"""

from __future__ import annotations

import numpy as np

from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.messages import Messages
from cnsim.server.object_index import CallCounter
from cnsim.subscriptions.workload import Updates


class Ranked(Approach):
    """Ranked delivery: one event per update, from the publisher, to the global top-k."""

    family = "ranked"
    entry = "publisher"  # no server: the event enters at the publisher's broker
    message = "ranked"  # reaches the k best-scoring matching subscriptions
    stores = "notifications"  # a subscriber keeps no list the run tracks
    ordered = False  # no single sender; notifications of different events are independent
    # a spread run: the threshold search visits every partition's zones in one bound
    # order, so ranked delivery runs in a task of its own over every subscription
    partition = "apart"
    # ``exact`` means "notifies only subscriptions whose top-k list changed" (seed 003);
    # ranked delivery answers another question, checked by verify's ``ranked-top-k``
    exact_family = False

    def __init__(self) -> None:
        self.spec = ApproachSpec(self.family)
        self.counter = CallCounter()  # no server, no index calls

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> Ranked:
        """Ranked delivery needs no server state."""
        return cls()

    def process(self, updates: Updates) -> Messages:
        """One event per update, in order: the point ``x`` (as the quadrant
        ``(-inf, x] × [x, inf)`` of S), the object and its new y."""
        n = len(updates)
        rects = np.stack([np.full(n, -np.inf), updates.x, updates.x, np.full(n, np.inf)], axis=1)
        return Messages(rects, updates.obj.copy(), updates.x.copy(), updates.y_new.copy())
