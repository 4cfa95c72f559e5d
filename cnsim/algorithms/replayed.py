"""An approach whose server ran elsewhere: the messages, calls and server times of
every batch, as one server over all of a run's subscriptions computed them, handed
back batch by batch.

A run spread over Spark tasks (:mod:`cnsim.simulations.partitioned`) holds each
partition's subscriptions apart, but an approach declared ``partition = "whole"``
(Paint-Sparse: every message snapped to the subscriptions of all of S, and its sweep
steered by those snaps) needs them all to compute its messages. One task runs its
server over every subscription and logs what it sent (:class:`ServerLog`); each
partition then delivers those messages to its own subscriptions through
:class:`Replayed`, as it delivers any approach's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.messages import Messages
from cnsim.subscriptions.workload import Updates


@dataclass
class ServerLog:
    """What one approach's server sent, batch by batch: the messages, its call counts
    after the batch (cumulative, :meth:`Approach.calls`), its time on the batch and,
    with several servers, the server each message left from."""

    messages: list[Messages] = field(default_factory=list)
    calls: list[dict[str, int]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    sent_from: list[np.ndarray | None] = field(default_factory=list)

    def record(self, approach: Approach, updates: Updates, servers=None) -> None:
        """Process one batch with ``approach`` and log it (``servers``: the
        :class:`cnsim.simulations.server_load.ServerLoad` of several servers, which
        processes each update at the server owning it)."""
        t0 = time.perf_counter()
        if servers is None:
            messages, sent_from = approach.process(updates), None
        else:
            messages, sent_from = servers.process_at(approach, updates)
        self.times.append(time.perf_counter() - t0)
        self.messages.append(messages)
        self.sent_from.append(sent_from)
        self.calls.append(approach.calls())

    def nbytes(self) -> int:
        """Bytes its messages take (what every partition reads of it)."""
        return sum(a.nbytes for m in self.messages for a in vars(m).values()
                   if isinstance(a, np.ndarray))  # fmt: skip


class Replayed(Approach):
    """The approach of ``spec`` as its :class:`ServerLog` says it ran: ``process``
    returns the next batch's messages (its server applied the updates), ``calls`` the
    counts after it, ``sent_from`` the servers they left from. It keeps the objects as
    its server has them (an object index over ``view``'s objects, the updates applied
    batch by batch), from which a subscription arriving in this partition gets its
    first list (``[churn]``, ``[faults]``), as from any approach's server."""

    replayed = True

    def __init__(self, spec: ApproachSpec, log: ServerLog, view: ServerView):
        self.spec = spec
        self.log = log
        self._view = view
        self.objects = view.object_index()
        self._batch = -1

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> Replayed:
        raise TypeError("a replayed approach is made from its server's log, not a view")

    def process(self, updates: Updates) -> Messages:
        for i, x_i, _, y_new in updates:
            self._view.apply(self.objects, i, x_i, y_new)
        self._batch += 1
        return self.log.messages[self._batch]

    def object_index(self):
        return self.objects

    def sent_from(self) -> np.ndarray | None:
        return self.log.sent_from[self._batch]

    def calls(self) -> dict[str, int]:
        if self._batch < 0:
            return dict.fromkeys(self.log.calls[0], 0) if self.log.calls else {}
        return self.log.calls[self._batch]
