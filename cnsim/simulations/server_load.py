"""What each server does in a run with the objects spread over several servers (seed 003
appendix C; ``[server] count > 1``): the updates routed to each server and the messages
it generates, per approach, and the distributed database's run metrics. The driver
(:mod:`cnsim.simulations.runner`) hands every update to the server owning it here; the
database itself is :mod:`cnsim.server.distributed`.
"""

from __future__ import annotations

from dataclasses import dataclass

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

    def tally(self, approach, message_bytes: int) -> ServerTally:
        """What ``approach``'s servers did so far (``message_bytes``: one of its
        messages' size)."""
        c = approach.counter
        return ServerTally(
            objects=_index_of(approach).held(),
            queries=c.answered.copy(),
            updates=self.updates[approach.name].copy(),
            msgs=self.messages[approach.name].copy(),
            walks=c.walks_handled(),
            message_bytes=message_bytes,
            walked={key: int(getattr(c, key)) for key in WALKED},
        )

    def frame(self, approaches: list, message_bytes) -> pd.DataFrame | None:
        """:meth:`ServerTally.frame` of every approach with a server here, one after
        the other (``message_bytes(spec)``: the size of one of its messages)."""
        parts = [self.tally(a, message_bytes(a.spec)).frame(a.name) for a in approaches
                 if a.name in self.updates]  # fmt: skip
        return pd.concat(parts, ignore_index=True) if parts else None

    def summary(self, approach) -> dict:
        """:meth:`ServerTally.summary` of one approach (empty for an approach without a
        server here)."""
        if approach.name not in self.updates:
            return {}
        return self.tally(approach, 0).summary()


#: the walk counts of :class:`~cnsim.server.distributed.DistributedCounter` a tally keeps
WALKED = ("dist_first_k", "hops_first_k", "dist_min_y", "hops_min_y", "max_hops")


@dataclass(frozen=True, eq=False)
class ServerTally:
    """What one approach's servers did over a run: per server (arrays of ``s``) the
    objects held at the end, local queries answered, updates routed to it, messages it
    generated and walk messages it sent or received; the message size; and its queries'
    walks (:data:`WALKED`). ``servers.parquet`` and the summary's entries are made from
    it, and a run spread over Spark tasks adds its partitions' up (:meth:`added`)."""

    objects: np.ndarray
    queries: np.ndarray
    updates: np.ndarray
    msgs: np.ndarray
    walks: np.ndarray
    message_bytes: int
    walked: dict[str, int]

    def frame(self, name: str) -> pd.DataFrame:
        """One row per server of approach ``name``: objects held at the end, local
        queries answered, updates routed to it, messages and bytes it generated, and walk
        messages it sent or received."""
        return pd.DataFrame(
            {
                "approach": name,
                "server": np.arange(len(self.objects)),
                "server_objects": self.objects,
                "server_queries": self.queries,
                "server_updates": self.updates,
                "server_msgs": self.msgs,
                "server_bytes": self.msgs * self.message_bytes,
                "server_walks_handled": self.walks,
            }
        )

    def summary(self) -> dict:
        """The run metrics of the distributed database."""
        w = self.walked
        return {
            "traversed_per_first_k": _per(w["hops_first_k"], w["dist_first_k"]),
            "traversed_per_min_y": _per(w["hops_min_y"], w["dist_min_y"]),
            "max_traversed": w["max_hops"],
            "server_query_imbalance": _imbalance(self.queries),
            "server_msg_imbalance": _imbalance(self.msgs),
        }

    def same(self, other: ServerTally) -> bool:
        """Whether two tallies are equal (the same servers doing the same)."""
        arrays = ("objects", "queries", "updates", "msgs", "walks")
        equal = all(np.array_equal(getattr(self, a), getattr(other, a)) for a in arrays)
        return equal and (self.message_bytes, self.walked) == (other.message_bytes, other.walked)

    def added(self, other: ServerTally) -> ServerTally | None:
        """Two partitions' tallies of an approach whose servers each partition charges
        for its own subscriptions (``partition = "own"``) as one: queries, messages,
        walks added up, the longest walk the longer; None where what both servers see
        alike (objects held, updates routed) differs."""
        if not (np.array_equal(self.objects, other.objects)
                and np.array_equal(self.updates, other.updates)
                and self.message_bytes == other.message_bytes):  # fmt: skip
            return None
        walked = {key: v + other.walked[key] for key, v in self.walked.items()}
        walked["max_hops"] = max(self.walked["max_hops"], other.walked["max_hops"])
        return ServerTally(self.objects, self.queries + other.queries, self.updates,
                           self.msgs + other.msgs, self.walks + other.walks,
                           self.message_bytes, walked)  # fmt: skip


def _index_of(approach) -> DistributedIndex:
    """The distributed index an approach (or the approach under its batch strategy) owns."""
    return getattr(approach, "objects", None) or approach.base.objects


def _per(hops: int, queries: int) -> float | None:
    """Neighbour servers walked to per query (None: no query)."""
    return hops / queries if queries else None


def _imbalance(load: np.ndarray) -> float | None:
    """Busiest server's load over the mean load (1: even; None: no load)."""
    mean = float(load.mean())
    return float(load.max()) / mean if mean > 0 else None
