"""What each server does in a run with the objects spread over several servers (seed 003
appendix C; ``[server] count > 1``): the updates routed to each server and the messages
it generates, per approach, and the distributed database's run metrics. The driver
(:mod:`cnsim.simulations.runner`) hands every update to the server owning it here; the
database itself is :mod:`cnsim.server.distributed`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cnsim.algorithms.messages import Messages, concat_messages
from cnsim.server.distributed import DistributedIndex, Zones
from cnsim.subscriptions.workload import Updates


class ServerLoad:
    """What each server does in a run, per approach whose events enter at the server:
    the updates routed to it and the messages it generates — every server generates
    the messages of its own events (appendix C).

    An approach processing updates one at a time (no batch strategy) is handed each
    update at its owner, so every message is charged to the server whose event made
    it. A batch strategy (Paint-Batch, Coalesce, Online) reorders a batch across its
    events, so a message has no single generating event: a batch whose updates all
    belong to one server is charged to it, any other to the servers owning the objects
    the messages carry. The server a message is charged to is the one it leaves from:
    it enters the overlay at that server's broker (:meth:`process_at`).

    ``link_ip_hops`` (``s - 1`` values: IP hops between the brokers of servers ``j``
    and ``j + 1``, from the network; None: no network of brokers) weighs every walk
    message of the approaches' distributed indexes.
    """

    def __init__(self, zones: Zones, approaches: list, link_ip_hops: np.ndarray | None = None):
        self.zones = zones
        s = zones.count
        # (a replayed approach's server ran elsewhere and was charged there)
        names = [a.name for a in approaches if a.spec.entry == "server" and not a.replayed]
        self.updates = {name: np.zeros(s, np.int64) for name in names}
        self.messages = {name: np.zeros(s, np.int64) for name in names}
        if link_ip_hops is not None:
            for a in approaches:
                if a.name in self.updates:
                    a.counter.weigh_links(link_ip_hops)

    def process(self, approach, updates) -> Messages:
        """``approach.process(updates)``, run at the servers owning the updates."""
        return self.process_at(approach, updates)[0]

    def process_at(self, approach, updates) -> tuple[Messages, np.ndarray | None]:
        """``approach.process(updates)``, run at the servers owning the updates, and
        the server each message leaves from (None: an approach without a server)."""
        name = approach.name
        if name not in self.updates:  # no server (CN-Relax), or one that ran elsewhere
            return approach.process(updates), approach.sent_from()
        s = self.zones.count
        owner = np.asarray(self.zones.owner(updates.x), np.int64)
        self.updates[name] += np.bincount(owner, minlength=s)
        if len(updates) and (owner == owner[0]).all():
            messages = approach.process(updates)
            self.messages[name][owner[0]] += len(messages)
            return messages, np.full(len(messages), owner[0], np.int64)
        if approach.spec.batch is not None:
            messages = approach.process(updates)
            by_object = np.asarray(self.zones.owner(messages.x), np.int64)
            self.messages[name] += np.bincount(by_object, minlength=s)
            return messages, by_object
        parts, sent = [], []
        for u, j in enumerate(owner.tolist()):
            one = Updates(*(a[u : u + 1] for a in (updates.obj, updates.x, updates.y_old,
                                                    updates.y_new)))  # fmt: skip
            parts.append(approach.process(one))
            self.messages[name][j] += len(parts[-1])
            sent.append(np.full(len(parts[-1]), j, np.int64))
        return concat_messages(parts), np.concatenate(sent) if sent else np.empty(0, np.int64)

    def frame(self, approaches: list, message_bytes) -> pd.DataFrame | None:
        """One row per (approach, server): objects held at the end, local queries
        answered, updates routed to it, messages and bytes it generated, and walk
        messages it sent or received."""
        parts = []
        for a in approaches:
            if a.name not in self.updates:
                continue
            counter, index = a.counter, _index_of(a)
            msgs = self.messages[a.name]
            parts.append(
                pd.DataFrame(
                    {
                        "approach": a.name,
                        "server": np.arange(self.zones.count),
                        "server_objects": index.held(),
                        "server_queries": counter.answered.copy(),
                        "server_updates": self.updates[a.name].copy(),
                        "server_msgs": msgs.copy(),
                        "server_bytes": msgs * message_bytes(a.spec),
                        "server_walks_handled": counter.walks_handled(),
                    }
                )
            )
        return pd.concat(parts, ignore_index=True) if parts else None

    def summary(self, approach) -> dict:
        """The run metrics of the distributed database for one approach (empty for an
        approach without a server)."""
        if approach.name not in self.updates:
            return {}
        c = approach.counter
        return {
            "traversed_per_first_k": c.hops_first_k / c.dist_first_k if c.dist_first_k else None,
            "traversed_per_min_y": c.hops_min_y / c.dist_min_y if c.dist_min_y else None,
            "max_traversed": int(c.max_hops),
            "server_query_imbalance": _imbalance(c.answered),
            "server_msg_imbalance": _imbalance(self.messages[approach.name]),
        }


def _index_of(approach) -> DistributedIndex:
    """The distributed index an approach (or the approach under its batch strategy) owns."""
    return getattr(approach, "objects", None) or approach.base.objects


def _imbalance(load: np.ndarray) -> float | None:
    """Busiest server's load over the mean load (1: even; None: no load)."""
    mean = float(load.mean())
    return float(load.max()) / mean if mean > 0 else None
