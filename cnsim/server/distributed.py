"""The distributed object database of seed 003 appendix C ("Distributing the
database"): the server's objects split over ``s`` servers by x, with ``first_k`` and
``min_y`` answered by walking from server to neighbouring server (its Algorithms 1
and 2), and what each server does.

Notation (appendix C): objects are the points ``(x_i, y_i)``, on the diagonal of the
subscription space S; the diagonal — the x-axis — is cut into ``s`` zones, and
server ``j`` owns zone ``σ_j = [ℓ_j, r_j)`` (``j = 0 .. s-1`` west to east, ``ℓ_0 =
-inf``, ``r_{s-1} = +inf``, ``r_j = ℓ_{j+1}``) and every object whose x lies in it.
Each server knows its west and east neighbours (``j - 1``, ``j + 1``). An event
``Upd(x_i, y_old -> y_new)`` is routed to the server owning ``x_i``, which applies it
and generates its messages.

* ``first_k(x_i, z, dir)`` (Algorithm 1): the owner of ``x_i`` answers from its own
  index; if it found ``c < k`` objects it passes the query to its neighbour in
  direction ``dir`` for the remaining ``k - c``, and so on until ``k`` objects are
  found or the last zone in that direction has been searched. The neighbour's
  objects all lie beyond the owner's, so the concatenation is in the order met.
* ``min_y(σ, y0)`` (Algorithm 2): the owner of the event computes ``min_y(σ ∩ σ_j,
  y0)``; if ``ℓ < ℓ_j`` (``r > r_j``) the query walks west (east) over every zone that
  meets ``σ``, and the lowest answer wins. A query whose range does not hold the
  owner (never for the Paint algorithms: their ranges hold ``x_i``) is forwarded
  along the neighbours to the range first, and those servers count as traversed.

Both give exactly the single-server answer (including ties in y, broken by object id
as :class:`~cnsim.server.object_index.ObjectIndex` does: each server's index compares
global ids). The *traversal length* of a query is the number of neighbour servers it
walks to beyond the one it starts at (0 when the owner answers alone), the quantity
of appendix C's estimate ``2k·s/n`` and its Figure 20.

**Walk traffic.** Each server sits at a broker of the overlay (placed by the
network, e.g. :meth:`cnsim.brokers.meghdoot.MeghdootCN.place_servers`), and every
neighbour step of a walk is one *walk message* over the IP path between the two
servers' brokers: the query passed on with the answer it brings back (:data:`WALK_BYTES`).
A query walking ``h`` steps sends ``h`` walk messages, one over each neighbour link
between its first and last server (a ``min_y`` from inside its range walks west and
east, one link each, still ``last - first`` in all), so walk messages equal the
traversals counted; their IP hops weigh each link by its brokers' IP hop count.

**Zones** (:meth:`Zones.split`): with the ``n`` live objects' x-values sorted,
``x_(0) <= … <= x_(n-1)``, boundary ``ℓ_j`` (``j = 1 .. s-1``) is the midpoint
``(x_(a-1) + x_(a)) / 2`` with ``a = ⌊j·n/s⌋``, so server ``j`` starts with
``⌊(j+1)n/s⌋ - ⌊jn/s⌋`` objects (``⌊n/s⌋`` or ``⌈n/s⌉``; objects sharing an x fall
in one zone, the eastern). With fewer objects than servers (``a = 0``) the western
zones are empty (``ℓ_j = x_(0)``); with no objects the zones split ``[0, 1)``
evenly. Zones are fixed for the run: inserts go to the zone owning their x, and no
load is rebalanced.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cnsim.errors import InputError
from cnsim.server.object_index import (
    EAST,
    WEST,
    CallCounter,
    ObjectIndex,
    ObjectState,
    objects_xy,
)
from cnsim.subscriptions.churn import top_k_by_rounds

__all__ = [
    "WALK_BYTES",
    "DistributedCounter",
    "DistributedIndex",
    "ServerIndex",
    "Zones",
]

# Bytes of one walk message (a neighbour step of first_k / min_y), counted once per step:
# the query (its point or range: two values, y0, id0, the count still wanted) and the
# answer it brings back (one object: id and y), six 4-byte values like a CN message. A
# first_k step answering c > 1 objects is still counted as one message of this size
# (an under-count for walks of large k, which return many objects).
WALK_BYTES = 24


@dataclass(frozen=True, eq=False)
class Zones:
    """The ``s`` contiguous x-zones: server ``j`` owns ``[bounds[j-1], bounds[j])``
    (``-inf`` and ``+inf`` at the ends)."""

    bounds: np.ndarray  # (s - 1,) non-decreasing inner boundaries ℓ_1 .. ℓ_{s-1}

    @property
    def count(self) -> int:
        """Number of servers s."""
        return len(self.bounds) + 1

    @staticmethod
    def split(x: np.ndarray, y: np.ndarray, s: int) -> Zones:
        """Zones giving each server about n/s of the live objects (module docstring)."""
        assert s >= 1
        xs = np.sort(np.asarray(x, np.float64)[np.isfinite(y)])
        n = len(xs)
        if n == 0:
            return Zones(np.linspace(0.0, 1.0, s + 1)[1:-1])
        a = (np.arange(1, s, dtype=np.int64) * n) // s
        left = xs[np.maximum(a - 1, 0)]
        right = xs[np.minimum(a, n - 1)]
        bounds = np.where(a > 0, (left + right) / 2, xs[0])
        # The midpoint of two equal values is that value, so equal x-values stay in one
        # zone; rounding can put a midpoint below ``left`` only if they are equal.
        return Zones(np.maximum.accumulate(bounds))

    def owner(self, x: float | np.ndarray):
        """The server owning ``x`` (each of an array)."""
        return np.searchsorted(self.bounds, x, side="right")


@dataclass(eq=False)  # holds an array: compare counters by their as_dict()
class DistributedCounter(CallCounter):
    """The calls of :class:`~cnsim.server.object_index.CallCounter` plus, per
    distributed query, how far it walked, and what each server answered.

    ``first_k`` and ``min_y`` count queries as the single server does (one per
    query, whatever the number of servers), so index-call figures stay comparable.
    """

    servers: int = 1
    dist_first_k: int = 0  # distributed first_k queries (an approach may also count
    dist_min_y: int = 0  # local ones, e.g. Paint-Batch's T', in first_k / min_y)
    hops_first_k: int = 0  # neighbour servers walked to, summed over the queries
    hops_min_y: int = 0
    max_hops: int = 0  # the longest walk of any query so far
    answered: np.ndarray = field(default=None)  # per server: local queries answered
    walk_ip_hops: int = 0  # IP hops of the walk messages (0 until links are weighed)
    # walk messages over each neighbour link j <-> j + 1, as differences (cumsum: counts)
    _links: np.ndarray = field(default=None, repr=False)
    _cum: np.ndarray = field(default=None, repr=False)  # prefix sums of the links' IP hops

    def __post_init__(self) -> None:
        if self.answered is None:
            self.answered = np.zeros(self.servers, np.int64)
        self._links = np.zeros(self.servers, np.int64)
        self._cum = np.zeros(self.servers, np.int64)

    def weigh_links(self, link_ip_hops: np.ndarray) -> None:
        """Set the IP hops between neighbouring servers' brokers (``s - 1`` values: link
        ``j`` joins servers ``j`` and ``j + 1``); walk messages are weighed by them."""
        link_ip_hops = np.asarray(link_ip_hops, np.int64)
        assert link_ip_hops.shape == (self.servers - 1,)
        self._cum = np.concatenate([[0], np.cumsum(link_ip_hops)])

    def walk(self, first, last) -> None:
        """Count one walk message over every link between servers ``first`` and
        ``last`` (arrays: one walk each)."""
        first, last = np.asarray(first, np.int64), np.asarray(last, np.int64)
        np.add.at(self._links, first, 1)
        np.add.at(self._links, last, -1)
        self.walk_ip_hops += int((self._cum[last] - self._cum[first]).sum())

    def link_msgs(self) -> np.ndarray:
        """Walk messages over each neighbour link so far (``s - 1`` values)."""
        return np.cumsum(self._links)[:-1]

    def walks_handled(self) -> np.ndarray:
        """Walk messages each server sent or received (over its west and east links)."""
        links = self.link_msgs()
        return np.concatenate([[0], links]) + np.concatenate([links, [0]])

    def as_dict(self) -> dict[str, int]:
        """The counts under their metric column names (sums only: they difference
        per batch)."""
        return {
            **super().as_dict(),
            "dist_first_k": self.dist_first_k,
            "dist_min_y": self.dist_min_y,
            "hops_first_k": self.hops_first_k,
            "hops_min_y": self.hops_min_y,
            "walk_ip_hops": self.walk_ip_hops,
        }


class ServerIndex(ObjectIndex):
    """One server's object index: an :class:`ObjectIndex` over its own objects (local
    ids 0, 1, …) whose queries compare and return *global* object ids, so that ties in
    y break exactly as in the single index."""

    def __init__(self, x: np.ndarray, y: np.ndarray, ids: np.ndarray):
        self._glob = np.asarray(ids, np.int64).copy()  # local id -> global id
        super().__init__(x, y, CallCounter())

    def add(self, x: float, y: float, gid: int, local: int | None = None) -> int:
        """Insert global object ``gid`` at ``x`` (as a new local id, or reviving the
        absent ``local``); returns its local id."""
        if local is None:
            local = self.n_ids
            self._glob = np.append(self._glob, np.int64(gid))
        return self.insert(x, y, local)

    def _rebuild(self) -> None:
        super()._rebuild()
        glob = np.append(self._glob, np.int64(-1))  # pid -1 (a spare slot) -> -1
        self._qid = glob[self._pid]  # queries compare and return global ids

    def _place(self, i: int) -> None:
        super()._place(i)
        pos = self._pos_of[i]
        if pos >= 0:
            self._qid[pos] = self._glob[i]


class DistributedIndex(ObjectState):
    """The objects ``(x, y)`` (ids 0, 1, …) held by ``servers`` servers, one zone each,
    with the interface of :class:`~cnsim.server.object_index.ObjectIndex` (updates,
    ``first_k``, ``min_y``, ``min_y_many``, ``x``, ``y``, ``live``, ``counter``), so
    approaches use it unchanged. Answers equal the single index's."""

    def __init__(
        self,
        x: np.ndarray,
        y: np.ndarray,
        servers: int,
        counter: DistributedCounter | None = None,
        zones: Zones | None = None,
    ):
        x, y = objects_xy(x, y)
        self.zones = zones if zones is not None else Zones.split(x, y, servers)
        assert self.zones.count == servers
        self.counter = counter if counter is not None else DistributedCounter(servers=servers)
        self.n_ids = len(x)
        self._x, self._y = x.copy(), y.copy()
        self._owner = np.asarray(self.zones.owner(x), np.int64)  # server of each id
        self._local = np.empty(len(x), np.int64)  # its id on that server
        self.servers: list[ServerIndex] = []
        for j in range(servers):
            ids = np.flatnonzero(self._owner == j)
            self._local[ids] = np.arange(len(ids))
            self.servers.append(ServerIndex(x[ids], y[ids], ids))
        self.origin = -1  # the server of the event being processed (-1: none yet)

    # -- state (global, by object id: x, y, live from ObjectState) ------------------------
    def held(self) -> np.ndarray:
        """Objects present on each server."""
        return np.array([len(s.live()) for s in self.servers], np.int64)

    # -- updates: routed to the owner of the object's x ------------------------------------
    def update(self, i: int, y_new: float) -> None:
        """Set object ``i``'s y-value at the server owning it."""
        if not 0 <= i < self.n_ids or np.isnan(self._x[i]):
            raise InputError(f"object id {i} does not exist (ids are 0..{self.n_ids - 1})")
        j = int(self._owner[i])
        self.origin = j
        self.servers[j].update(int(self._local[i]), y_new)
        self._y[i] = y_new

    def insert(self, x: float, y: float, i: int | None = None) -> int:
        """Add an object at ``x`` on the server owning ``x``; returns its id (the next
        one, or ``i``: an absent id)."""
        i = self.n_ids if i is None else i
        if i < self.n_ids and np.isfinite(self._y[i]):
            raise InputError(f"object id {i} is present already")
        if i >= len(self._x):
            grow = max(16, len(self._x), i + 1 - len(self._x))
            self._x = np.concatenate([self._x, np.full(grow, np.nan)])
            self._y = np.concatenate([self._y, np.full(grow, np.inf)])
            self._owner = np.concatenate([self._owner, np.full(grow, -1, np.int64)])
            self._local = np.concatenate([self._local, np.full(grow, -1, np.int64)])
        if i >= self.n_ids:
            self._owner[self.n_ids : i + 1] = -1
        self.n_ids = max(self.n_ids, i + 1)
        j = int(self.zones.owner(x))
        # An absent id revived on the server that had it keeps its local id there; on
        # another server it gets a new one (its old slot stays dead).
        local = int(self._local[i]) if self._owner[i] == j else None
        self._local[i] = self.servers[j].add(x, y, i, local)
        self._owner[i] = j
        self._x[i], self._y[i] = x, y
        self.origin = j
        return i

    def delete(self, i: int) -> None:
        """Remove object ``i``."""
        self.update(i, np.inf)

    def apply(self, i: int, x: float, y_new: float) -> None:
        """Apply ``Upd(x, y_old -> y_new)`` to object ``i`` at its server; an id never
        seen before inserts a new object at ``x``."""
        if i >= self.n_ids or np.isnan(self._x[i]) or self._owner[i] < 0:
            self.insert(x, y_new, i)
        else:
            self.update(i, y_new)

    def route(self, x: float) -> int:
        """Make the server owning ``x`` the origin of the next queries (as an event at
        ``x`` arriving there does); returns it."""
        self.origin = int(self.zones.owner(x))
        return self.origin

    # -- queries -------------------------------------------------------------------------
    def first_k(self, x0: float, y0: float, direction: int, k: int, id0: int = -1) -> np.ndarray:
        """Algorithm 1: as :meth:`ObjectIndex.first_k`, from the owner of ``x0`` on,
        walking to the neighbour in ``direction`` while fewer than ``k`` are found."""
        c = self.counter
        c.first_k += 1
        c.dist_first_k += 1
        step = -1 if direction == WEST else 1
        assert direction in (WEST, EAST)
        j = int(self.zones.owner(x0))
        parts, need, hops = [], k, 0
        while True:
            c.answered[j] += 1
            got = self.servers[j].first_k(x0, y0, direction, need, id0)
            parts.append(got)
            need -= len(got)
            if need <= 0 or not 0 <= j + step < len(self.servers):
                break
            j += step
            hops += 1
        c.hops_first_k += hops
        c.max_hops = max(c.max_hops, hops)
        if hops:
            c.walk(min(j, j - step * hops), max(j, j - step * hops))
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _span(self, lo, hi):
        """Zones of ``lo`` and ``hi`` and the walk's ends (from the origin)."""
        a = np.asarray(self.zones.owner(lo), np.int64)
        b = np.asarray(self.zones.owner(hi), np.int64)
        start = self.origin if self.origin >= 0 else a
        return a, b, np.minimum(a, start), np.maximum(b, start)

    def min_y(self, lo: float, hi: float, y0: float, id0: int = 2**62) -> int:
        """Algorithm 2: as :meth:`ObjectIndex.min_y`, answered by every server whose
        zone meets ``[lo, hi]``, walking from the origin (the event's server)."""
        c = self.counter
        c.min_y += 1
        c.dist_min_y += 1
        if lo > hi:
            return -1
        a, b, first, last = (int(v) for v in self._span(lo, hi))
        hops = last - first
        c.hops_min_y += hops
        c.max_hops = max(c.max_hops, hops)
        if hops:
            c.walk(first, last)
        best, best_y = -1, np.inf
        for j in range(a, b + 1):
            c.answered[j] += 1
            h = self.servers[j].min_y(lo, hi, y0, id0)
            if h >= 0 and (self._y[h] < best_y or (self._y[h] == best_y and h < best)):
                best, best_y = h, self._y[h]
        return best

    def top_k_many(self, lo: np.ndarray, hi: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The top-k lists of ranges ``[lo[j], hi[j]]``: k rounds of :meth:`min_y_many`,
        not counted, as the single index's (a joining subscription's first list: the
        run counts its ``min_y`` calls as the join's, for every approach alike)."""
        lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
        with self.counter.uncounted():
            return top_k_by_rounds(
                lambda rows, y0, id0: self.min_y_many(lo[rows], hi[rows], y0, id0),
                self.y, len(lo), k,
            )  # fmt: skip

    def min_y_many(
        self, lo: np.ndarray, hi: np.ndarray, y0: np.ndarray, id0: np.ndarray
    ) -> np.ndarray:
        """:meth:`min_y` for every row (one call and one walk counted per row)."""
        c = self.counter
        n = len(lo)
        c.min_y += n
        c.dist_min_y += n
        out = np.full(n, -1, np.int64)
        if n == 0:
            return out
        lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
        a, b, first, last = self._span(lo, hi)
        empty = lo > hi
        hops = np.where(empty, 0, last - first)
        c.hops_min_y += int(hops.sum())
        c.max_hops = max(c.max_hops, int(hops.max()))
        walked = hops > 0
        c.walk(first[walked], last[walked])
        best_y = np.full(n, np.inf)
        y0, id0 = np.asarray(y0, np.float64), np.asarray(id0, np.int64)
        for j in range(int(a.min()), int(b.max()) + 1):
            rows = np.flatnonzero((a <= j) & (j <= b) & ~empty)
            if not len(rows):
                continue
            c.answered[j] += len(rows)
            h = self.servers[j].min_y_many(lo[rows], hi[rows], y0[rows], id0[rows])
            found = h >= 0
            rows, h = rows[found], h[found]
            y_h = self._y[h]
            better = (y_h < best_y[rows]) | ((y_h == best_y[rows]) & (h < out[rows]))
            out[rows[better]], best_y[rows[better]] = h[better], y_h[better]
        return out
