"""The interface every approach shares, and the spec its name parses into.

An approach turns a batch of object updates into the messages it sends
(``process(updates) -> Messages``) and *declares* what it is, so that the runner,
the networks, timed mode, verify and the reports read declarations instead of
testing names:

* ``entry``: where events enter the network — at the ``server`` (every Paint
  approach, Unicast) or at the ``publisher``'s nearest broker (CN-Relax, which has
  no server);
* ``message``: ``region`` messages ``Msg(lI, rI, lO, rO, x, y)`` addressed to a
  rectangle of S, ``targeted`` messages addressed to one subscription (Unicast), or
  ``ranked`` events that reach the k best-scoring matching subscriptions of the
  whole network (ranked delivery, :mod:`cnsim.algorithms.ranked`);
* ``stores``: what a subscriber keeps — its ``top-k`` list, or every object of its
  ``range`` (CN-Relax computes its top k itself), or nothing but the
  ``notifications`` it is sent (ranked delivery);
* ``ordered``: whether a subscriber must apply its messages in the order they were
  sent (one sender, the server, whose messages replace list entries: seed 003
  footnote 5) — timed mode then holds back a message that overtook an earlier one;
  CN-Relax has no single sender and its subscribers keep whole ranges, where each
  object's latest update wins whatever order updates of different objects arrive
  in, so it needs no ordering;
* ``takes_eps`` and ``batchable``: whether the name may carry ε = 1/2^i, and
  whether batch processing (Paint-Batch, Coalesce, Online) may run over it;
* ``partition``: what its server needs of the subscriptions when a run's
  subscriptions are spread over Spark tasks (``run.partitions``,
  :mod:`cnsim.simulations.partitioned`) — nothing (``alike``: its messages depend on
  the objects alone, every partition computes the same ones: Paint-Dense, CN-Relax),
  each partition's own (``own``: it sends each subscription its own messages, so
  partitions send theirs and the counts add up; the calls it makes alike in every
  partition, Unicast's candidates, are counted by the first partition alone:
  :attr:`ServerView.counts_shared`), the whole set (``whole``: its messages are cut to every
  subscription of S, so one server over all of them computes them and the partitions
  deliver them: Paint-Sparse), or the whole network (``apart``: what it delivers depends
  on every zone at once, so it runs, delivery and all, in a task of its own over every
  subscription, and the partitions leave it out: ranked delivery, whose threshold search
  visits the zones of every partition in one bound order).

A written name (``paint-batch(paint-sparse(0.5))``) is parsed once, by
:func:`cnsim.algorithms.registry.parse`, into an :class:`ApproachSpec`; everything
downstream reads the spec.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np

if TYPE_CHECKING:
    from cnsim.algorithms.kind_servers import KindServer
    from cnsim.algorithms.messages import Messages
    from cnsim.server.distributed import DistributedIndex
    from cnsim.server.object_index import CallCounter, ObjectIndex
    from cnsim.server.object_index_2d import ObjectIndex2D
    from cnsim.server.object_index_d import ObjectIndexD
    from cnsim.subscriptions.index import SubscriptionIndex
    from cnsim.subscriptions.lists import TopKLists
    from cnsim.subscriptions.workload import Updates

Entry = Literal["server", "publisher"]
Partition = Literal["alike", "own", "whole", "apart"]
MessageKind = Literal["region", "targeted", "ranked"]
Stores = Literal["top-k", "range", "notifications"]


def eps_text(eps: float) -> str:
    """ε as written in names: short (0.25) where that is exact, else in full."""
    short = f"{eps:g}"
    return short if float(short) == eps else repr(eps)


#: the approach classes by (family, subscription kind): the registry's catalog
#: (:data:`cnsim.algorithms.registry.APPROACHES`), handed over by :func:`register` when
#: the package is imported, so that a spec finds its class without importing the
#: registry (which imports every approach, which imports this module)
_CATALOG: dict[tuple[str, str], type[Approach]] = {}


#: the server's side of every subscription kind, handed over likewise
#: (:data:`cnsim.algorithms.kind_servers.SERVERS`)
_SERVERS: dict[str, KindServer] = {}


def register(
    catalog: dict[tuple[str, str], type[Approach]], servers: dict[str, KindServer]
) -> None:
    """Make ``catalog`` the classes specs resolve to and ``servers`` the kinds' server
    sides views resolve to (the registry calls this)."""
    _CATALOG.clear()
    _CATALOG.update(catalog)
    _SERVERS.clear()
    _SERVERS.update(servers)


@dataclass(frozen=True)
class ApproachSpec:
    """A parsed approach name: the family, its ε (None: exact), and the batch strategy
    running over it (None: events one at a time), with the family's declarations."""

    family: str
    eps: float | None = None
    batch: str | None = None
    kind: str = "range"  # the subscription kind it runs for ([subscriptions] kind)

    @property
    def cls(self) -> type[Approach]:
        """The class implementing the family for the kind."""
        return _CATALOG[(self.family, self.kind)]

    @property
    def base(self) -> ApproachSpec:
        """The spec without its batch strategy (what the batch strategy runs over)."""
        return replace(self, batch=None)

    @property
    def name(self) -> str:
        """The canonical name results are reported under (``paint-batch(paint-dense)``)."""
        base = self.family if self.eps is None else f"{self.family}({eps_text(self.eps)})"
        return base if self.batch is None else f"{self.batch}({base})"

    @property
    def exact(self) -> bool:
        """Whether only affected subscriptions are notified (per event; per batch for
        Paint-Batch)."""
        return self.cls.exact_family and self.eps is None

    @property
    def entry(self) -> Entry:
        """Where events enter the network."""
        return self.cls.entry

    @property
    def message(self) -> MessageKind:
        """The kind of message sent."""
        return self.cls.message

    @property
    def stores(self) -> Stores:
        """What a subscriber keeps."""
        return self.cls.stores

    @property
    def ordered(self) -> bool:
        """Whether subscribers apply its messages in send order (timed mode)."""
        return self.cls.ordered

    @property
    def partition(self) -> Partition:
        """What its server needs of a partitioned run's subscriptions (module docstring)."""
        return self.cls.partition

    def with_family(self, family: str) -> ApproachSpec:
        """The same spec over another family (Paint-Dense for a Paint-Sparse)."""
        return replace(self, family=family)

    def with_batch(self, batch: str | None) -> ApproachSpec:
        """The same spec under another batch strategy (Coalesce for a Paint-Batch)."""
        return replace(self, batch=batch)


@dataclass(frozen=True)
class ServerView:
    """What an approach is built from: the initial objects, the subscriptions (for the
    subscription-aware ones), the list length, optionally the subscribers' initial
    lists (Unicast keeps a copy), over how many servers the objects are spread, and
    what the subscription kind adds (:meth:`SubscriptionKind.server_view
    <cnsim.subscriptions.kinds.base.SubscriptionKind.server_view>`)."""

    x: np.ndarray
    y: np.ndarray
    subscriptions: SubscriptionIndex
    k: int
    lists: TopKLists | None = None
    servers: int = 1  # [server] count: > 1 spreads the objects by x (seed 003 appendix C)
    kind: str = "range"  # [subscriptions] kind; ``subscriptions`` is that kind's index
    # the attributes beyond x of every id the run uses: 1.5-d ranges (seed 003 appendix
    # D) every id's x2 (x is its x1); boxes (seed 003 §IV-C) every id's (ids, d)
    # attributes. None for 1-d ranges.
    attributes: np.ndarray | None = None
    budget: int | None = None  # boxes: the slabs one event's Paint partitions may visit
    # whether an ``own`` approach counts the calls it makes alike in every partition of a
    # spread run (Unicast's candidates: the influence interval's first_k); a spread run
    # counts them in its first partition only, so every count adds up over partitions
    counts_shared: bool = True

    def points(self, x: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Objects ``ids``, at x-values ``x``, as points over the attributes the
        subscriptions bound, (n, a): 1-d ``x``, 1.5-d ``(x1, x2)``, boxes ``(x_1..x_d)``."""
        x = np.asarray(x, np.float64)
        if self.attributes is None:
            return x[:, None]
        if self.attributes.ndim == 1:  # 1.5-d: x is x1, the attributes every id's x2
            return np.column_stack([x, self.attributes[ids]])
        return np.asarray(self.attributes, np.float64)[ids]

    @property
    def server(self) -> KindServer:
        """The server's side of the view's subscription kind: its object index, call
        counter and Unicast queries (:data:`cnsim.algorithms.kind_servers.SERVERS`)."""
        return _SERVERS[self.kind]

    def object_index(self) -> ObjectIndex | DistributedIndex | ObjectIndex2D | ObjectIndexD:
        """A new object index of the kind's over the initial objects, with its own call
        counter (:attr:`server`)."""
        return self.server.object_index(self)

    def apply(self, objects, i: int, x: float, y_new: float) -> None:
        """Apply ``Upd(i, y_old -> y_new)`` at x-value ``x`` to an index of
        :meth:`object_index`: over 1-d ranges an id never seen is inserted at ``x``;
        beyond, it is admitted absent (:meth:`admit`) and its update revives it."""
        if self.attributes is None:
            objects.apply(i, x, y_new)
        else:
            self.admit(objects, i, x)
            objects.update(i, y_new)

    def admit(self, objects, i: int, x: float) -> None:
        """Make id ``i`` (at x-value x) known to an index of :meth:`object_index` beyond
        1-d before its update: an id never seen (an insert, a move's new position)
        enters a 1.5-d index absent at ``(x, x2)``, and its update ``inf -> y`` revives
        it (§II-A footnote 4); the box index holds every id already."""
        if i >= len(objects):
            got = objects.insert(*self.points(np.array([x]), np.array([i]))[0], np.inf)
            assert got == i, (got, i)  # events create ids in order


class Approach(ABC):
    """Base class of every approach. A subclass declares the class attributes below
    and provides :meth:`create` and :meth:`process`."""

    family: ClassVar[str]  # the name it is registered under
    entry: ClassVar[Entry] = "server"
    message: ClassVar[MessageKind] = "region"
    stores: ClassVar[Stores] = "top-k"
    ordered: ClassVar[bool] = True  # subscribers apply messages in send order
    exact_family: ClassVar[bool] = True  # exact when run without ε
    takes_eps: ClassVar[bool] = False
    batchable: ClassVar[bool] = False
    partition: ClassVar[Partition] = "alike"
    # its server ran elsewhere and it hands back that server's messages (a spread run's
    # cnsim.algorithms.replayed.Replayed): nothing to charge to the servers here
    replayed: ClassVar[bool] = False

    spec: ApproachSpec
    counter: CallCounter

    @classmethod
    @abstractmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> Approach:
        """The approach of ``spec`` with its own server state built from ``view``."""

    @abstractmethod
    def process(self, updates: Updates) -> Messages:
        """Apply a batch of updates to the approach's state; the messages it sends."""

    def calls(self) -> dict[str, int]:
        """Index calls so far, under their metric column names: as cnsim makes them
        (``counter``) and, in ``calls_min_y_paper``, ``calls_snap_paper`` and
        ``calls_snap_footnote7``, as seed 003 §V may count them — the same numbers unless
        the approach counts otherwise (Paint-Sparse:
        :class:`cnsim.algorithms.paint_sparse.PaperCount`)."""
        calls = self.counter.as_dict()
        return {
            **calls,
            "calls_min_y_paper": calls["calls_min_y"],
            "calls_snap_paper": calls["calls_snap"],
            "calls_snap_footnote7": calls["calls_snap"],
        }

    def sent_from(self) -> np.ndarray | None:
        """With several servers, the server each message of the last batch left from,
        where a :attr:`replayed` approach's server recorded it; None otherwise (the
        servers here charge them, :class:`cnsim.simulations.server_load.ServerLoad`)."""
        return None

    def object_index(self):
        """The server's object index, which answers the first list of a subscription
        that joins (:func:`cnsim.subscriptions.churn.first_lists`); None: no server."""
        return None

    @property
    def name(self) -> str:
        """The canonical name."""
        return self.spec.name

    @property
    def exact(self) -> bool:
        """Whether only affected subscriptions are notified."""
        return self.spec.exact

    @property
    def eps(self) -> float | None:
        """ε of an approximate variant, None for an exact one."""
        return self.spec.eps
