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

    def __len__(self) -> int:
        return len(self.subs)

    def per_message(self) -> np.ndarray:
        """Number of subscriptions each message reached."""
        return np.diff(self.offsets)


class IdealCN:
    """Direct delivery of messages to the subscriptions inside their rectangles."""

    def __init__(self, subscriptions: SubscriptionIndex):
        self.subscriptions = subscriptions

    def deliver(self, messages: Messages) -> Delivery:
        """Deliveries of ``messages``, in send order."""
        offsets, subs = self.subscriptions.report(messages.rects)
        counts = np.diff(offsets)
        return Delivery(
            offsets, subs, np.repeat(messages.obj, counts), np.repeat(messages.y, counts)
        )
