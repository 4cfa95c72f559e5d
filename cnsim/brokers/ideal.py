"""The ideal CN: every message reaches exactly its subscriptions, in one step, over
one global index of S. No brokers, no traffic: the reference every overlay is
verified against.
"""

from __future__ import annotations

import numpy as np

from cnsim.algorithms.messages import Messages
from cnsim.brokers.base import Delivery, Network, Traffic
from cnsim.subscriptions.index import SubscriptionIndex


class IdealCN(Network):
    """Direct delivery of messages to the subscriptions inside their rectangles."""

    kind = "ideal"
    has_brokers = False
    churns = True  # it delivers from the run's index of S, which the run keeps live
    partitions = True  # a part of the subscriptions: it delivers from that part's index

    def __init__(self, subscriptions: SubscriptionIndex):
        self.subscriptions = subscriptions

    @classmethod
    def create(cls, setup, subscriptions) -> IdealCN:
        """The ideal CN over the run's subscriptions."""
        return cls(subscriptions)

    def deliver(self, approach, messages, update_events, servers=None):  # see Network.deliver
        """Deliveries of ``messages``, in send order; no traffic."""
        if approach.message == "targeted":
            return Delivery.targeted(messages), Traffic()
        return self.reach(messages), Traffic()

    def reach(self, messages: Messages) -> Delivery:
        """Deliveries of region messages: the subscriptions inside each rectangle (rows:
        their positions in the index, the layout)."""
        offsets, pos = self.subscriptions.report_positions(messages.rects)
        order = self.subscriptions.order
        # positions and ids as 4 bytes each where they fit: one batch of 50,000 events
        # (seed 003's Figure 16) delivers hundreds of millions of messages
        pos = pos.astype(np.int32) if len(order) < 2**31 else pos
        return Delivery.of(messages, offsets, order[pos].astype(pos.dtype), rows=pos)

    def set_alive(self, ids: np.ndarray, alive: bool) -> None:
        """Nothing of its own to change: the run's index of S it delivers from is
        updated by the run (:meth:`SubscriptionIndex.set_alive`)."""

    def layout(self) -> np.ndarray:
        """The index's order: the deliveries of a rectangle are runs of its leaves."""
        return self.subscriptions.order
