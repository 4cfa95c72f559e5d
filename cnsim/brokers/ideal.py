"""The ideal CN: every message reaches exactly its subscriptions, in one step.

It is the seam the broker overlay plugs into: an overlay offers the same
``deliver`` and adds its traffic figures.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cnsim.algorithms.messages import Messages
from cnsim.subscriptions.index import SubscriptionIndex


@dataclass(frozen=True)
class Delivery:
    """Who received what: message ``j`` reached ``subs[offsets[j]:offsets[j + 1]]``."""

    offsets: np.ndarray
    subs: np.ndarray
    obj: np.ndarray  # object of each delivery
    y: np.ndarray  # y-value of each delivery
    evict: np.ndarray | None = None  # unicast: object each delivery replaces, or -1

    def __len__(self) -> int:
        return len(self.subs)

    def per_message(self) -> np.ndarray:
        """Number of subscriptions each message reached."""
        return np.diff(self.offsets)

    def restrict(self, keep: np.ndarray) -> Delivery:
        """Only the deliveries where ``keep`` is true."""
        kept = np.concatenate([[0], np.cumsum(keep)])
        evict = None if self.evict is None else self.evict[keep]
        return Delivery(kept[self.offsets], self.subs[keep], self.obj[keep], self.y[keep], evict)


class IdealCN:
    """Direct delivery of messages to the subscriptions inside their rectangles."""

    def __init__(self, subscriptions: SubscriptionIndex):
        self.subscriptions = subscriptions

    def deliver(self, messages: Messages) -> Delivery:
        """Deliveries of ``messages``, in send order."""
        if messages.target is not None:  # unicast: one subscription per message
            offsets = np.arange(len(messages) + 1)
            return Delivery(offsets, messages.target, messages.obj, messages.y, messages.evict)
        offsets, subs = self.subscriptions.report(messages.rects)
        counts = np.diff(offsets)
        return Delivery(
            offsets, subs, np.repeat(messages.obj, counts), np.repeat(messages.y, counts)
        )
