"""The interface every network of a run shares: deliver a batch of messages from
their sources, return who received what and the traffic it took, and keep per-broker
load.

A network is built once per run (:meth:`Network.create`) from its own typed
parameters (:class:`NetworkSetup`: the IP network, the overlay's keys, the subscription
kind's space, ranked delivery's keys), never from the scenario, and then serves every
approach; it reads only the approach's declarations
(:class:`cnsim.algorithms.base.ApproachSpec`): where its events enter and what kind
of message it sends. What it offers is declared: the (entry, message) pairs it
carries (ranked delivery among them), whether it has brokers, and — for timed mode —
its :class:`TimedView`. A new network is one subclass and one line in
:data:`cnsim.brokers.NETWORKS`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numba
import numpy as np

if TYPE_CHECKING:
    from cnsim.algorithms.base import ApproachSpec
    from cnsim.algorithms.messages import Messages
    from cnsim.brokers.forwarding import Covering
    from cnsim.brokers.zones import Zones
    from cnsim.network.params import NetworkParams
    from cnsim.network.world import World
    from cnsim.subscriptions.covering.workload import CommandWorkload
    from cnsim.subscriptions.index import SubscriptionIndex
    from cnsim.subscriptions.kinds.base import Streams, SubscriptionKind


@dataclass(frozen=True)
class RankedSetup:
    """Ranked delivery's parameters (``[ranked]``, and the subscriptions' distribution
    that joining subscriptions are drawn from)."""

    k: int  # recipients per event
    scores: str  # score model
    pruning: str  # zone score bounds, or the flood baseline
    index: str  # each zone's (broker's) top-k index
    regions: int  # content-based: bound cells per dimension
    commands: int  # join/leave commands spread over the events
    churn: float  # share of those commands that leave
    distribution: str  # where joining subscriptions are drawn ([subscriptions])
    spread: float


@dataclass(frozen=True)
class Part:
    """The subscriptions one partition of a run holds: their ids among the ``total`` the
    scenario draws, and the zones of S planned once over all of them (None: a network
    without zones). Whatever is drawn per subscription (a subscriber's IP node) is drawn
    for all ``total`` and kept for ``ids``, so a partition sees what one process does."""

    ids: np.ndarray  # (m_p,) int64, increasing
    total: int
    zones: Zones | None = None


@dataclass(frozen=True)
class NetworkSetup:
    """What a network of one run is built from."""

    network: NetworkParams  # the IP network ([network])
    kind: SubscriptionKind  # S: its dimensions and open sides
    split: str  # Meghdoot: how joining brokers split zones
    degree: int  # content-based: the overlay tree's degree bound
    covering: Covering  # content-based: how forwarding is pruned
    n_events: int
    seeds: Streams  # the run's named random streams
    ranked: RankedSetup | None = None  # when a ranked approach runs
    # subscriptions that join and leave between the events (a network that declares
    # ``joins``), applied by Network.apply_commands
    commands: CommandWorkload | None = None
    # content-based: "batch" replays subscriptions link by link, "reference" message by
    # message, "auto" batch where it applies (Covering.batched)
    engine: str = "auto"
    timed: bool = False  # timed mode replays the subscription messages: keep them
    # brokers that fail and come back (the [faults] section), with a network that
    # declares ``fails``; None: none fail
    faults: Mapping[str, Any] | None = None
    subscription_bytes: int = 0  # bytes of one subscription handed between brokers
    # subscriptions that come and go ([churn]): the first ``present`` of the run's
    # subscriptions are there at the start, the others join later (None: all there)
    present: int | None = None
    # a partitioned run (cnsim/simulations/partitioned.py): the part of the run's
    # subscriptions this network holds (None: all of them)
    part: Part | None = None


@dataclass(frozen=True)
class TimedView:
    """What timed mode reads of a network with brokers: the broker of every zone
    (``owner``; a tree overlay's brokers are their own zones), each subscription's
    gateway zone and last-hop latency to its node, and the brokers' IP latencies."""

    owner: np.ndarray  # (Z,) broker of each zone
    gateway_zone: np.ndarray  # (m,) zone delivering to each subscription
    last_hop_latency_s: np.ndarray  # (m,) gateway broker to subscriber node
    world: World

    @property
    def n_zones(self) -> int:
        return len(self.owner)


@dataclass(frozen=True)
class Delivery:
    """Who received what: message ``j`` reached ``subs[offsets[j]:offsets[j + 1]]``."""

    offsets: np.ndarray
    subs: np.ndarray
    obj: np.ndarray  # object of each delivery
    y: np.ndarray  # y-value of each delivery
    evict: np.ndarray | None = None  # targeted: object each delivery replaces, or -1
    # rows of the deliveries in the network's layout (Network.layout), when it knows them
    rows: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.subs)

    def per_message(self) -> np.ndarray:
        """Number of subscriptions each message reached."""
        return np.diff(self.offsets)

    def notified(self) -> int:
        """Number of distinct subscriptions that received at least one message."""
        if len(self.offsets) <= 2 or not len(self.subs):  # one message: each at most once
            return len(self.subs)
        return _MARKS.distinct(self.subs)

    def pairs(self) -> np.ndarray:
        """``(message, subscription)`` of every delivery, sorted: what a delivery is,
        whatever order a network reports it in."""
        message = np.repeat(np.arange(len(self.offsets) - 1), self.per_message())
        out = np.stack([message, self.subs.astype(np.int64)], axis=1)
        return out[np.lexsort((out[:, 1], out[:, 0]))]

    @staticmethod
    def of(
        messages: Messages, offsets: np.ndarray, subs: np.ndarray, rows: np.ndarray | None = None
    ) -> Delivery:
        """The deliveries of region messages reaching ``subs`` (CSR over messages), at
        ``rows`` of the network's layout if given."""
        obj, y = _per_delivery(messages.obj, messages.y, offsets)
        return Delivery(offsets, subs, obj, y, rows=rows)

    @staticmethod
    def targeted(messages: Messages) -> Delivery:
        """The deliveries of targeted messages: each to its one subscription."""
        offsets = np.arange(len(messages) + 1)
        return Delivery(offsets, messages.target, messages.obj, messages.y, messages.evict)


class _Marks:
    """A mark per subscription id, all clear between calls: distinct ids in O(ids), not
    a sort (CN-Relax's batches reach a third of the subscriptions)."""

    def __init__(self) -> None:
        self.marks = np.zeros(0, np.uint8)

    def distinct(self, ids: np.ndarray) -> int:
        top = int(ids.max()) + 1
        if len(self.marks) < top:
            self.marks = np.zeros(max(top, 2 * len(self.marks)), np.uint8)
        return int(_count_distinct(ids, self.marks))


_MARKS = _Marks()


@numba.njit(cache=True)
def _count_distinct(ids, marks):  # pragma: no cover - numba
    n = 0
    for s in ids:
        if not marks[s]:
            marks[s] = 1
            n += 1
    for s in ids:
        marks[s] = 0
    return n


@numba.njit(cache=True)
def _per_delivery(obj, y, offsets):
    """Each message's object and value repeated for its deliveries (CSR ``offsets``):
    ``np.repeat`` of both in one pass, a few ns per delivery less."""
    out_obj = np.empty(offsets[-1], obj.dtype)
    out_y = np.empty(offsets[-1], y.dtype)
    for j in range(len(offsets) - 1):
        for t in range(offsets[j], offsets[j + 1]):
            out_obj[t] = obj[j]
            out_y[t] = y[j]
    return out_obj, out_y


@dataclass(frozen=True)
class Paths:
    """The overlay hops of each message, in causal order (CSR over messages), with the
    zone each message starts from; what the timed mode replays."""

    source: np.ndarray  # (M,) zone each message leaves from
    hop_ptr: np.ndarray  # (M + 1,)
    hop_from: np.ndarray  # zones
    hop_to: np.ndarray  # zones


@dataclass(frozen=True)
class Traffic:
    """Message-hops of one batch of messages in the broker network."""

    overlay_hops: int = 0
    ip_hops: int = 0
    last_hop_ip_hops: int = 0
    paths: Paths | None = None
    # further counts a network measures beyond message-hops, read by the metrics declared
    # for them (ranked delivery, cnsim.brokers.ranked: zones visited, exact bytes of its
    # messages of varying size, the flood baseline's costs beside)
    costs: dict[str, int] = field(default_factory=dict)


# Every (entry, message) pair an approach can declare (see ApproachSpec).
ALL_CARRIED: frozenset[tuple[str, str]] = frozenset(
    {("server", "region"), ("server", "targeted"), ("publisher", "region")}
)


class Network(ABC):
    """Base class of the networks of a run. A subclass declares ``kind``,
    ``has_brokers`` and ``carries`` and provides :meth:`create` and :meth:`deliver`;
    one with brokers also provides :meth:`broker_load` and :meth:`publish_ip_hops`."""

    kind: ClassVar[str]
    has_brokers: ClassVar[bool] = True  # False: no brokers, no traffic, no load
    # the (entry, message) pairs of the approaches it can deliver; the scenario rejects
    # the others before any work ((_, "ranked"): ranked delivery, built in ``ranked``)
    carries: ClassVar[frozenset[tuple[str, str]]] = ALL_CARRIED
    # the subscription kinds it runs as seed 001's command stream (subscriptions that
    # come and go, events as points, no objects and no top-k lists)
    streams: ClassVar[frozenset[str]] = frozenset()
    # subscriptions join and leave between events (NetworkSetup.commands): the run loop
    # calls apply_commands before each event
    joins: ClassVar[bool] = False
    # the subscriptions of a run with fixed kinds come and go ([churn]): the run loop
    # calls set_alive between batches and join_ip_hops for the joining ones' lists
    churns: ClassVar[bool] = False
    # brokers fail and come back ([faults]; cnsim/brokers/faults.py): the run loop calls
    # apply_faults between batches
    fails: ClassVar[bool] = False
    # a run's subscriptions may be spread over Spark tasks (run.partitions;
    # cnsim/simulations/partitioned.py): built over a part of them (NetworkSetup.part), it
    # delivers to that part alone, and routes every message as it would over them all ...
    partitions: ClassVar[bool] = False
    # ... or, routing by what its brokers hold, to that part's subscriptions alone: the
    # run's hops are then the union of the parts' (each message's Paths: its hops from
    # its source, each broker reached once, by one hop)
    routes_own: ClassVar[bool] = False
    # the ranked delivery of a run with a ranked approach (cnsim.brokers.ranked,
    # cnsim.brokers.ranked_content): built by a network that carries ranked messages
    ranked = None

    @classmethod
    @abstractmethod
    def create(cls, setup: NetworkSetup, subscriptions: SubscriptionIndex) -> Network:
        """The network of one run."""

    @classmethod
    def plan_zones(cls, setup: NetworkSetup, points: np.ndarray) -> Zones | None:
        """The zones a partitioned run splits the subscriptions (``points`` of S) by
        (:mod:`cnsim.simulations.partitioned`): its gateways' zones, planned once over
        all of them; None: no zones, the run is split by ids."""
        return None

    def timed_view(self) -> TimedView:
        """What timed mode replays the run's paths over (networks with brokers)."""
        raise NotImplementedError(f"the {self.kind!r} network has no brokers to time")

    @abstractmethod
    def deliver(
        self,
        approach: ApproachSpec,
        messages: Messages,
        update_events: np.ndarray,
        servers: np.ndarray | None = None,
    ) -> tuple[Delivery, Traffic]:
        """Deliver ``messages`` of ``approach``; ``update_events`` gives the event of
        each update of the batch (an approach whose events enter at the publisher sends
        one message per update, from the publisher's broker); ``servers``, with several
        servers (:meth:`place_servers`), the server each message leaves from."""

    def apply_commands(self, first: int, stop: int) -> dict[str, float]:
        """Apply commands ``first .. stop - 1`` of :attr:`NetworkSetup.commands` (a
        network that declares ``joins``); return what they cost, by metric name, and
        the state they leave (routing entries)."""
        raise NotImplementedError(f"the {self.kind!r} network takes no joins or leaves")

    def set_alive(self, ids: np.ndarray, alive: bool) -> None:
        """Subscriptions ``ids`` join (``alive``) or leave their gateways (a network that
        declares ``churns``); from then on deliveries reach the live ones only."""
        raise NotImplementedError(f"the {self.kind!r} network takes no joins or leaves")

    def apply_faults(self, first: int, stop: int):
        """Let the brokers due fail and come back before the batch of events ``first ..
        stop - 1`` (a network that declares ``fails``); a
        :class:`cnsim.brokers.faults.FaultStep`."""
        raise NotImplementedError(f"the {self.kind!r} network has no brokers that fail")

    def lost_mask(self) -> np.ndarray:
        """Which subscriptions are lost now: held by no broker up (``fails``)."""
        raise NotImplementedError(f"the {self.kind!r} network has no brokers that fail")

    def stale_subs(self, name: str) -> int:
        """Lost subscriptions that missed a notification under approach ``name``
        (``fails``)."""
        raise NotImplementedError(f"the {self.kind!r} network has no brokers that fail")

    def fault_totals(self, name: str) -> dict[str, int]:
        """The counts the run's summary entries of the losses under approach ``name``
        are made of (``fails``; :meth:`cnsim.brokers.faults.Losses.totals`)."""
        raise NotImplementedError(f"the {self.kind!r} network has no brokers that fail")

    def churn_messages(self) -> int:
        """Subscription and unsubscription messages between brokers that the joins and
        leaves since the last call sent (``churns``; none where a subscription goes to
        its gateway's store directly)."""
        return 0

    def join_ip_hops(self, ids: np.ndarray, entry: str) -> np.ndarray:
        """IP hops of the message carrying each joining subscription's first list: from
        the server (``entry`` "server") through its gateway broker to its node, or from
        its gateway broker alone (``entry`` "publisher": CN-Relax has no server)."""
        return np.zeros(len(ids), np.int64)

    @classmethod
    def server_links(cls, setup: NetworkSetup, zones, servers) -> np.ndarray | None:
        """What :meth:`place_servers` returns for ``servers`` (a
        :class:`cnsim.server.distributed.Zones`) over the zones :meth:`plan_zones` gives,
        without building the network (a spread run's server task); None: no brokers."""
        return None

    def place_servers(self, zones, events) -> np.ndarray | None:
        """Place the servers of the distributed object database (``zones``: a
        :class:`cnsim.server.distributed.Zones`; ``events``: the run's events) and
        return the IP hops between neighbouring servers' brokers, or None: no brokers."""
        return None

    def publish_ip_hops(self, approach: ApproachSpec, first: int, stop: int) -> int:
        """IP hops of events ``first .. stop - 1`` from their publishers to where they
        enter the network."""
        return 0

    def layout(self) -> np.ndarray | None:
        """The subscriptions in the order this network delivers from (the order the
        runner stores subscriber lists in), or None: no order of its own.
        A network that returns one sets :attr:`Delivery.rows` to positions in it."""
        return None

    def broker_load(self) -> dict[str, np.ndarray]:
        """Per broker: ``subscriptions_held``, and messages handled per approach name."""
        return {}
