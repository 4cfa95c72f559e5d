"""Ranked delivery over the Meghdoot zones: every published event reaches exactly the
k best-scoring subscriptions of the whole network that match it (issue 13, "Ranked
delivery across the broker network"; seed 000's scored-range model).

Notation
--------
* A subscription ``j`` is a scored closed range ``[l_j, r_j]`` with score ``s_j``;
  as in seed 003 it is the point ``(l_j, r_j)`` of S and is held by the gateway broker
  of the Meghdoot zone containing that point (:mod:`cnsim.brokers.zones`).
* An event is a point ``x``; ``j`` matches it when ``l_j <= x <= r_j``, so the
  matching subscriptions lie in the quadrant ``Q(x) = {l <= x} × {r >= x}`` of S, the
  rectangle ``(-inf, x] × [x, +inf)`` in the message convention of
  :mod:`cnsim.subscriptions.space`. The *candidate zones* of ``x`` are the zones
  meeting ``Q(x)``.
* Rank order: score descending, ties by the smaller subscription id. ``top_k(x)`` is
  the first ``k`` matching subscriptions in rank order, over all zones.
* ``B_z``, the *bound* of zone ``z``: the maximum score of its live subscriptions
  (``-inf`` when it holds none). Inserting raises it at once; deleting the maximum
  recomputes it from the zone's live subscriptions. The bound table is replicated at
  the brokers (every change of a bound is counted in ``bound_changes``: what a push of
  the new bound to the other brokers would cost).
* Each zone answers *local* top-k queries from its own structure of part 1, any entry
  of :data:`cnsim.subscriptions.ranked.REGISTRY` (default ``scored_rtree``, seed 000
  §2.2.3), built over the zone's subscriptions in id order (so local ids order as the
  global ids do, and local ties break as global ones); joins and leaves go through the
  structure's ``insert``/``delete``.

Two ways of answering an event entering at broker ``e`` (zone ``z_e``):

* **pruned** (threshold pruning): ``e`` visits the candidate zones with a finite bound
  in descending bound order (ties: lower zone id), one at a time. A query carries
  ``x``, ``k`` and the current k-th entry ``(s_k, id_k)``; the zone answers with those
  of its local top-k that beat it. ``e`` stops as soon as it holds ``k`` results and
  the next zone's bound is *below* ``s_k`` (a bound equal to ``s_k`` could still hide a
  tie with a smaller id, so that zone is visited). Query and answer travel straight
  between the brokers over IP, as targeted messages do in
  :class:`~cnsim.brokers.meghdoot.MeghdootCN`: one overlay hop of ``broker_hops`` IP
  hops each, none when the zone is ``e``'s own.
* **baseline**: the query is the region message ``Q(x)`` routed from ``z_e`` over the
  overlay (:func:`cnsim.brokers.routing.route`: greedy to the quadrant, then flooded to
  every zone meeting it); every zone reached answers its local top-k straight to
  ``e`` (an empty answer too: ``e`` cannot otherwise know the flood is over) and ``e``
  merges.

Costs per event (both modes): ``visited`` zones, ``messages`` (query messages + answers;
in the baseline one query message per overlay hop), ``overlay_hops``, ``ip_hops``,
``entries`` (subscriptions carried in answers), ``overlay_bytes`` and ``ip_bytes``
(message size × hops). Message sizes (4-byte values, as seed 003's CN messages):
a baseline query carries ``x``, ``k`` and ``e`` (12 bytes); a pruned query also the
threshold ``(s_k, id_k)`` (20 bytes); an answer a 4-byte count plus 8 bytes (id,
score) per entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cnsim.brokers.routing import route
from cnsim.brokers.zones import Zones, build_zones
from cnsim.errors import InputError
from cnsim.subscriptions.ranked import REGISTRY
from cnsim.subscriptions.ranked.base import RankedIndex, as_intervals

MODES = ("pruned", "baseline")
DEFAULT_INDEX = "scored_rtree"
QUERY_BYTES = {"baseline": 12, "pruned": 20}  # x, k, entry broker (+ s_k, id_k)
ANSWER_HEADER_BYTES = 4  # number of entries
ENTRY_BYTES = 8  # subscription id and score
COST_FIELDS = (
    "visited",
    "messages",
    "overlay_hops",
    "ip_hops",
    "entries",
    "overlay_bytes",
    "ip_bytes",
)


def check_k(k) -> int:
    """``k`` as an int, or InputError naming it and what is allowed."""
    if isinstance(k, bool | np.bool_) or not isinstance(k, int | np.integer) or k < 1:
        raise InputError(f"ranked delivery: k = {k!r} is not allowed; k must be an integer >= 1")
    return int(k)


def check_mode(mode: str) -> str:
    """``mode`` if it is one of :data:`MODES`, else InputError."""
    if mode not in MODES:
        raise InputError(f"ranked delivery: mode = {mode!r} is unknown; one of {list(MODES)}")
    return mode


def index_class(name: str) -> type[RankedIndex]:
    """The ranked-catalog structure called ``name``, else InputError."""
    if name not in REGISTRY:
        raise InputError(f"ranked delivery: index = {name!r} is unknown; one of {sorted(REGISTRY)}")
    return REGISTRY[name]


@dataclass
class RankedDelivery:
    """Recipients and costs of a batch of events: event ``i`` reached
    ``ids[offsets[i]:offsets[i + 1]]`` (rank order); ``cost[name][i]`` its cost."""

    offsets: np.ndarray
    ids: np.ndarray
    cost: dict[str, np.ndarray] = field(default_factory=dict)

    def recipients(self, i: int) -> np.ndarray:
        """Subscriptions event ``i`` reached, best first."""
        return self.ids[self.offsets[i] : self.offsets[i + 1]]

    def totals(self) -> dict[str, int]:
        """Every cost summed over the batch."""
        return {name: int(a.sum()) for name, a in self.cost.items()}


class RankedZones:
    """Scored range subscriptions held per Meghdoot zone, with the zone bounds, and the
    pruned and baseline ranked delivery of events (see the module docstring)."""

    def __init__(
        self,
        zones: Zones,
        broker_hops: np.ndarray,
        l,
        r,
        score,
        index: str = DEFAULT_INDEX,
        **index_params,
    ):
        cls = index_class(index)
        cls.check_params(index_params)
        self.index_name, self.index_params = index, dict(index_params)
        self._cls = cls
        self.zones = zones
        self.broker_hops = broker_hops
        l, r, score = as_intervals(l, r, score)
        n = len(l)
        cap = max(16, n)
        self._l, self._r, self._s = (np.empty(cap) for _ in range(3))
        self._zone = np.empty(cap, np.int64)
        self._alive = np.zeros(cap, bool)
        self._l[:n], self._r[:n], self._s[:n] = l, r, score
        self._zone[:n] = zones.zone_of(l, r)
        self._alive[:n] = True
        self._size = n
        self.bound_changes = 0
        nz = zones.n_zones
        order = np.argsort(self._zone[:n], kind="stable")  # by zone, ids ascending
        ptr = np.concatenate([[0], np.cumsum(np.bincount(self._zone[:n], minlength=nz))])
        self._gid: list[np.ndarray] = []  # local id -> global id, per zone
        self._count = np.zeros(nz, np.int64)  # local ids given per zone
        self._ix: list[RankedIndex] = []
        self.bound = np.full(nz, -np.inf)
        for z in range(nz):
            ids = order[ptr[z] : ptr[z + 1]].astype(np.int64)
            self._gid.append(ids.copy())
            self._count[z] = len(ids)
            self._ix.append(cls(l[ids], r[ids], score[ids], **index_params))
            if len(ids):
                self.bound[z] = score[ids].max()
        self._local = np.empty(cap, np.int64)  # global id -> local id in its zone
        self._local[order] = np.arange(n) - np.repeat(ptr[:-1], np.diff(ptr))

    @classmethod
    def build(
        cls,
        world,
        l,
        r,
        score,
        split: str = "random",
        seed: int | np.random.Generator = 0,
        index: str = DEFAULT_INDEX,
        **index_params,
    ) -> RankedZones:
        """Zones joined by ``world``'s brokers as :class:`MeghdootCN` builds them (``split``
        mode, the ``zones`` random stream ``seed``), holding the given subscriptions."""
        l, r, score = as_intervals(l, r, score)
        zones = build_zones(world.n_brokers, split, seed, points=(l, r))
        return cls(zones, np.asarray(world.broker_hops), l, r, score, index, **index_params)

    # ------------------------------------------------------------ state
    def __len__(self) -> int:
        """Number of live subscriptions."""
        return int(self._alive[: self._size].sum())

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(l, r, score, alive)`` of every id given so far (views)."""
        s = slice(0, self._size)
        return self._l[s], self._r[s], self._s[s], self._alive[s]

    def held(self) -> np.ndarray:
        """Live subscriptions per zone."""
        live = self._alive[: self._size]
        return np.bincount(self._zone[: self._size][live], minlength=self.zones.n_zones)

    def insert(self, l: float, r: float, score: float) -> int:
        """A subscription joins at the zone holding ``(l, r)``; returns its id."""
        l_, r_, s_ = as_intervals([l], [r], [score])
        z = int(self.zones.zone_of(l_, r_)[0])
        i = self._size
        if i == len(self._l):
            self._grow()
        self._l[i], self._r[i], self._s[i], self._zone[i] = l_[0], r_[0], s_[0], z
        self._alive[i] = True
        self._size += 1
        local = self._ix[z].insert(l_[0], r_[0], s_[0])
        assert local == self._count[z]  # local ids continue in id order
        if local == len(self._gid[z]):
            g = np.empty(max(16, 2 * len(self._gid[z])), np.int64)
            g[:local] = self._gid[z][:local]
            self._gid[z] = g
        self._gid[z][local] = i
        self._count[z] += 1
        self._local[i] = local
        if s_[0] > self.bound[z]:
            self.bound[z] = s_[0]
            self.bound_changes += 1
        return i

    def delete(self, i: int) -> None:
        """Subscription ``i`` leaves; its zone's bound is recomputed if it was the max."""
        if isinstance(i, bool) or not (0 <= i < self._size) or not self._alive[i]:
            raise InputError(f"ranked delivery: no live subscription with id {i!r}")
        self._alive[i] = False
        z = int(self._zone[i])
        self._ix[z].delete(int(self._local[i]))
        if self._s[i] == self.bound[z]:
            ids = self._gid[z][: self._count[z]]
            live = ids[self._alive[ids]]
            new = self._s[live].max() if len(live) else -np.inf
            if new != self.bound[z]:
                self.bound[z] = new
                self.bound_changes += 1

    def _grow(self) -> None:
        cap = 2 * len(self._l)
        for name in ("_l", "_r", "_s", "_zone", "_alive", "_local"):
            a = getattr(self, name)
            b = np.zeros(cap, a.dtype)
            b[: len(a)] = a
            setattr(self, name, b)

    # ------------------------------------------------------------ queries
    def candidates(self, x: float) -> np.ndarray:
        """Zones meeting the quadrant ``{l <= x} × {r >= x}`` (ascending)."""
        return np.flatnonzero(self.zones.intersecting(-np.inf, x, x, np.inf))

    def local_top_k(self, z: int, x: float, k: int) -> np.ndarray:
        """Zone ``z``'s k best subscriptions matching ``x`` (global ids, rank order)."""
        return self._gid[z][self._ix[z].top_k(x, k)]

    def brute_top_k(self, x: float, k: int) -> np.ndarray:
        """The global top-k by brute force over the live subscriptions (the oracle)."""
        l, r, s, alive = self.columns()
        hit = np.flatnonzero(alive & (l <= x) & (x <= r))
        return hit[np.lexsort((hit, -s[hit]))[:k]]

    def deliver(self, xs, k: int, entry_zones, mode: str = "pruned") -> RankedDelivery:
        """Recipients and costs of events ``xs`` entering at ``entry_zones``."""
        k, mode = check_k(k), check_mode(mode)
        xs = np.ascontiguousarray(xs, np.float64).reshape(-1)
        if np.isnan(xs).any():
            raise InputError("ranked delivery: an event point is NaN")
        entry = np.ascontiguousarray(np.broadcast_to(entry_zones, xs.shape), np.int64)
        if len(entry) and (entry.min() < 0 or entry.max() >= self.zones.n_zones):
            raise InputError(f"ranked delivery: entry zones must be in 0..{self.zones.n_zones - 1}")
        if mode == "pruned":
            return self._pruned(xs, k, entry)
        return self._baseline(xs, k, entry)

    def _pruned(self, xs: np.ndarray, k: int, entry: np.ndarray) -> RankedDelivery:
        n = len(xs)
        cost = {name: np.zeros(n, np.int64) for name in COST_FIELDS}
        owner = self.zones.owner
        hops = self.broker_hops
        bound, s = self.bound, self._s
        q_bytes = QUERY_BYTES["pruned"]
        out, offsets = [], np.zeros(n + 1, np.int64)
        for i in range(n):
            x = xs[i]
            cand = self.candidates(x)
            cand = cand[np.isfinite(bound[cand])]
            order = cand[np.lexsort((cand, -bound[cand]))]
            best = np.empty(0, np.int64)
            e = owner[entry[i]]
            visited = messages = ip = entries = ob = ib = 0
            for z in order:
                full = len(best) == k
                if full and bound[z] < s[best[-1]]:
                    break
                ans = self.local_top_k(z, x, k)
                if full:  # the zone returns only what beats the threshold (s_k, id_k)
                    sk, ik = s[best[-1]], best[-1]
                    ans = ans[(s[ans] > sk) | ((s[ans] == sk) & (ans < ik))]
                visited += 1
                entries += len(ans)
                if owner[z] != e:  # a query there and an answer back, straight over IP
                    h = int(hops[e, owner[z]])
                    size = q_bytes + ANSWER_HEADER_BYTES + ENTRY_BYTES * len(ans)
                    messages += 2
                    ip += 2 * h
                    ob += size
                    ib += size * h
                if len(ans):
                    both = np.concatenate([best, ans])
                    best = both[np.lexsort((both, -s[both]))[:k]]
            out.append(best)
            offsets[i + 1] = offsets[i] + len(best)
            values = (visited, messages, messages, ip, entries, ob, ib)
            for name, v in zip(COST_FIELDS, values, strict=True):
                cost[name][i] = v
        ids = np.concatenate(out) if out else np.empty(0, np.int64)
        return RankedDelivery(offsets, ids, cost)

    def _baseline(self, xs: np.ndarray, k: int, entry: np.ndarray) -> RankedDelivery:
        n = len(xs)
        cost = {name: np.zeros(n, np.int64) for name in COST_FIELDS}
        owner = self.zones.owner
        inf = np.full(n, np.inf)
        routes = route(self.zones, -inf, xs, xs, inf, entry)
        ev_hop = routes.message_of_hop()
        hop_ip = self.broker_hops[owner[routes.hop_from], owner[routes.hop_to]].astype(np.int64)
        q_hops = np.bincount(ev_hop, minlength=n)
        q_ip = np.bincount(ev_hop, weights=hop_ip, minlength=n).astype(np.int64)
        reach_ev = np.repeat(np.arange(n), routes.reach_counts())
        reach_z = routes.reach_zone.astype(np.int64)
        # every reached zone answers its local top-k: batched per zone
        ans_ev, ans_id, ans_n = [], [], np.zeros(len(reach_z), np.int64)
        by_zone = np.argsort(reach_z, kind="stable")
        zs, starts = np.unique(reach_z[by_zone], return_index=True)
        bounds = np.append(starts, len(by_zone))
        for j, z in enumerate(zs):
            rows = by_zone[bounds[j] : bounds[j + 1]]
            ev = reach_ev[rows]
            got = self._ix[z].top_k_batch(xs[ev], k)
            ok = got >= 0
            ans_n[rows] = ok.sum(axis=1)
            ans_ev.append(np.repeat(ev, ok.sum(axis=1)))
            ans_id.append(self._gid[z][got[ok]])
        a_ev = np.concatenate(ans_ev) if ans_ev else np.empty(0, np.int64)
        a_id = np.concatenate(ans_id) if ans_id else np.empty(0, np.int64)
        o = np.lexsort((a_id, -self._s[a_id], a_ev))
        a_ev, a_id = a_ev[o], a_id[o]
        first = np.searchsorted(a_ev, np.arange(n))
        rank = np.arange(len(a_ev)) - first[a_ev]
        keep = rank < k
        ids = a_id[keep]
        offsets = np.concatenate([[0], np.cumsum(np.bincount(a_ev[keep], minlength=n))])
        e_b, z_b = owner[entry[reach_ev]], owner[reach_z]
        remote = e_b != z_b
        a_ip = np.where(remote, self.broker_hops[z_b, e_b], 0).astype(np.int64)
        ans_msgs = np.bincount(reach_ev, weights=remote, minlength=n).astype(np.int64)
        ans_ip = np.bincount(reach_ev, weights=a_ip, minlength=n).astype(np.int64)
        ans_size = ANSWER_HEADER_BYTES + ENTRY_BYTES * ans_n
        ans_ob = np.bincount(reach_ev, weights=ans_size * remote, minlength=n)
        ans_ib = np.bincount(reach_ev, weights=ans_size * a_ip, minlength=n)
        q = QUERY_BYTES["baseline"]
        cost["visited"] = np.bincount(reach_ev, minlength=n).astype(np.int64)
        cost["messages"] = q_hops + ans_msgs
        cost["overlay_hops"] = q_hops + ans_msgs
        cost["ip_hops"] = q_ip + ans_ip
        cost["entries"] = np.bincount(reach_ev, weights=ans_n, minlength=n).astype(np.int64)
        cost["overlay_bytes"] = (q * q_hops + ans_ob).astype(np.int64)
        cost["ip_bytes"] = (q * q_ip + ans_ib).astype(np.int64)
        return RankedDelivery(offsets, ids, cost)

    def nbytes(self) -> int:
        """Bytes of the per-zone structures, id maps and columns."""
        cols = (self._l, self._r, self._s, self._zone, self._alive, self._local, self.bound)
        return int(
            sum(ix.nbytes() for ix in self._ix)
            + sum(g.nbytes for g in self._gid)
            + sum(a.nbytes for a in cols)
        )
