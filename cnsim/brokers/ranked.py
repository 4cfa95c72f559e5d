"""Ranked delivery over the Meghdoot zones: every published event reaches exactly the
k best-scoring subscriptions of the whole network that match it (seed 000's
scored-range model).

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
  the brokers and kept current by *bound propagation*: the owner of a zone whose bound
  changes sends the new bound (zone id and score, :data:`BOUND_BYTES`) to its CAN
  neighbours, which pass it on to theirs, along the broadcast tree
  :func:`cnsim.brokers.routing.route` floods the whole of S with from that zone (every
  other broker receives it once: ``n_zones - 1`` overlay messages). Every change is
  counted in ``bound_changes``, its traffic in ``bound_msgs`` (overlay messages),
  ``bound_ip_hops`` and ``bound_ip_bytes``; the initial dissemination of every
  non-empty zone's bound is :meth:`RankedZones.setup_bound_traffic`.
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

from cnsim.brokers.ranked_churn import JoinsAndLeaves, RankedChurn
from cnsim.brokers.routing import route
from cnsim.brokers.zones import Zones, build_zones
from cnsim.errors import InputError
from cnsim.subscriptions.ranked import REGISTRY
from cnsim.subscriptions.ranked.base import RankedIndex, as_intervals

MODES = ("pruned", "baseline")
DEFAULT_INDEX = "scored_rtree"
QUERY_BYTES = {"baseline": 12, "pruned": 20}  # x, k, entry broker (+ s_k, id_k)
ANSWER_HEADER_BYTES = 4  # number of entries
BOUND_BYTES = 8  # a bound update: zone id and score
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


class TopKSearch:
    """One event's threshold search: the top-k so far (``best``, ``best_s``: by score
    descending, then id) and the search's costs (:data:`COST_FIELDS`)."""

    def __init__(self, k: int):
        self.k = k
        self.best = np.empty(0, np.int64)
        self.best_s = np.empty(0)
        self.visited = self.messages = self.ip = self.entries = self.ob = self.ib = 0

    def done(self, bound: float) -> bool:
        """Whether nothing under ``bound`` can enter the top-k any more."""
        return len(self.best) == self.k and bound < self.best_s[-1]

    def answer(self, ids: np.ndarray, sc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A visited broker's answer to the query: its local top-k ``ids`` (scores
        ``sc``), only what beats the threshold (s_k, id_k) once the top-k is full."""
        if len(self.best) == self.k:
            sk, ik = self.best_s[-1], self.best[-1]
            keep = (sc > sk) | ((sc == sk) & (ids < ik))
            ids, sc = ids[keep], sc[keep]
        self.visited += 1
        self.entries += len(ids)
        return ids, sc

    def remote(self, h: int, size: int) -> None:
        """A query of ``size`` bytes and its answer, straight over ``h`` IP hops."""
        self.messages += 2
        self.ip += 2 * h
        self.ob += size
        self.ib += size * h

    def merge(self, ids: np.ndarray, sc: np.ndarray) -> None:
        """The k best of the top-k so far and an answer."""
        if len(ids):
            both = np.concatenate([self.best, ids])
            both_s = np.concatenate([self.best_s, sc])
            o = np.lexsort((both, -both_s))[: self.k]
            self.best, self.best_s = both[o], both_s[o]

    def costs(self) -> tuple[int, ...]:
        """The costs, in the order of :data:`COST_FIELDS`."""
        return (self.visited, self.messages, self.messages, self.ip, self.entries, self.ob,
                self.ib)  # fmt: skip


def event_costs(d, flood, notify: dict, churned: dict) -> dict[str, int]:
    """A batch's costs as the ranked metrics read them (``Traffic.costs``): the search
    ``d`` (the threshold search, or the flood), the flood baseline ``flood`` beside it,
    and the notifications ``notify`` to the recipients (added to both), with the joins
    and leaves applied first (``churned``)."""
    return {
        "zones_visited": int(d.cost["visited"].sum()),
        "ranked_msgs": int(d.cost["messages"].sum()) + notify["msgs"],
        "answer_entries": int(d.cost["entries"].sum()),
        "overlay_bytes": int(d.cost["overlay_bytes"].sum()) + notify["overlay_bytes"],
        "ip_bytes": int(d.cost["ip_bytes"].sum()) + notify["ip_bytes"],
        "flood_zones_visited": int(flood.cost["visited"].sum()),
        "flood_msgs": int(flood.cost["messages"].sum()) + notify["msgs"],
        "flood_ip_bytes": int(flood.cost["ip_bytes"].sum()) + notify["ip_bytes"],
        **churned,
    }


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
    # pruned: the zones event i visited, in visit order, ``visit_zone[visit_ptr[i]:...]``
    visit_ptr: np.ndarray | None = None
    visit_zone: np.ndarray | None = None
    routes: object = None  # baseline: the query's overlay routes (cnsim.brokers.routing)

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
        self._zone[:n] = zones.zone_of((l, r))
        self._alive[:n] = True
        self._size = n
        self.bound_changes = 0
        self.bound_msgs = self.bound_ip_hops = self.bound_ip_bytes = 0
        self._broadcast: tuple[np.ndarray, np.ndarray] | None = None
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
        z = int(self.zones.zone_of((l_, r_))[0])
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
            self._bound_changed(z)
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
                self._bound_changed(z)

    def broadcast_cost(self) -> tuple[np.ndarray, np.ndarray]:
        """Per zone: overlay messages and IP hops of one bound update broadcast from it
        to every other broker (computed once: the zones do not change)."""
        if self._broadcast is None:
            nz = self.zones.n_zones
            inf = np.full(nz, np.inf)
            routes = route(self.zones, np.column_stack([-inf, inf, -inf, inf]), np.arange(nz))
            owner = self.zones.owner
            ip = self.broker_hops[owner[routes.hop_from], owner[routes.hop_to]]
            msgs = np.diff(routes.hop_ptr).astype(np.int64)
            ev = routes.message_of_hop()
            ips = np.bincount(ev, weights=ip, minlength=nz).astype(np.int64)
            self._broadcast = (msgs, ips)
        return self._broadcast

    def _bound_changed(self, z: int) -> None:
        """Zone ``z``'s bound changed: its broker broadcasts the new bound."""
        msgs, ips = self.broadcast_cost()
        self.bound_changes += 1
        self.bound_msgs += int(msgs[z])
        self.bound_ip_hops += int(ips[z])
        self.bound_ip_bytes += BOUND_BYTES * int(ips[z])

    def setup_bound_traffic(self) -> dict[str, int]:
        """Traffic of the initial dissemination: every zone holding a subscription
        broadcasts its bound once (``bound_msgs``, ``bound_ip_bytes``)."""
        msgs, ips = self.broadcast_cost()
        held = np.isfinite(self.bound)
        return {
            "bound_msgs": int(msgs[held].sum()),
            "bound_ip_bytes": BOUND_BYTES * int(ips[held].sum()),
        }

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
        return np.flatnonzero(self.zones.meeting((-np.inf, x, x, np.inf)))

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
        visits: list[int] = []
        visit_ptr = np.zeros(n + 1, np.int64)
        for i in range(n):
            x = xs[i]
            cand = self.candidates(x)
            cand = cand[np.isfinite(bound[cand])]
            order = cand[np.lexsort((cand, -bound[cand]))]
            search = TopKSearch(k)
            e = owner[entry[i]]
            for z in order:
                if search.done(bound[z]):
                    break
                ans = self.local_top_k(z, x, k)
                ans, sc = search.answer(ans, s[ans])
                visits.append(int(z))
                if owner[z] != e:  # a query there and an answer back, straight over IP
                    size = q_bytes + ANSWER_HEADER_BYTES + ENTRY_BYTES * len(ans)
                    search.remote(int(hops[e, owner[z]]), size)
                search.merge(ans, sc)
            out.append(search.best)
            offsets[i + 1] = offsets[i] + len(search.best)
            visit_ptr[i + 1] = len(visits)
            for name, v in zip(COST_FIELDS, search.costs(), strict=True):
                cost[name][i] = v
        ids = np.concatenate(out) if out else np.empty(0, np.int64)
        return RankedDelivery(offsets, ids, cost, visit_ptr, np.asarray(visits, np.int64))

    def _baseline(self, xs: np.ndarray, k: int, entry: np.ndarray) -> RankedDelivery:
        n = len(xs)
        cost = {name: np.zeros(n, np.int64) for name in COST_FIELDS}
        owner = self.zones.owner
        inf = np.full(n, np.inf)
        routes = route(self.zones, np.column_stack([-inf, xs, xs, inf]), entry)
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
        return RankedDelivery(offsets, ids, cost, routes=routes)

    def nbytes(self) -> int:
        """Bytes of the per-zone structures, id maps and columns."""
        cols = (self._l, self._r, self._s, self._zone, self._alive, self._local, self.bound)
        return int(
            sum(ix.nbytes() for ix in self._ix)
            + sum(g.nbytes for g in self._gid)
            + sum(a.nbytes for a in cols)
        )


# ---------------------------------------------------------------- ranked delivery in a run
PRUNING = {"threshold": "pruned", "flood": "baseline"}  # [ranked] pruning -> mode
NOTIFY_HEADER_BYTES = 8  # x and the number of recipients
NOTIFY_ID_BYTES = 4  # one recipient's subscription id


def notifications(d: RankedDelivery, entry: np.ndarray, holder, owner, hops) -> dict:
    """Notifications from each event's entry to the holders (zones, or brokers) of its
    winners, remote ones only: per event the holders in order of their best winner, one
    message each straight over IP.  ``entry[i]`` is event i's entry holder,
    ``holder[s]`` subscription s's and ``owner[h]`` holder h's broker."""
    zones, msgs, ob, ib = [], 0, 0, 0
    for i in range(len(entry)):
        ids = d.recipients(i)
        zs, first, counts = np.unique(holder[ids], return_index=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        zs, counts = zs[order], counts[order]
        e = owner[entry[i]]
        remote = owner[zs] != e
        zs, counts = zs[remote], counts[remote]
        h = hops[e, owner[zs]].astype(np.int64)
        size = NOTIFY_HEADER_BYTES + NOTIFY_ID_BYTES * counts
        zones.append(zs.astype(np.int64))
        msgs += len(zs)
        ob += int(size.sum())
        ib += int((size * h).sum())
    return {"zones": zones, "msgs": msgs, "overlay_bytes": ob, "ip_bytes": ib}


class RankedOverlay(JoinsAndLeaves):
    """Ranked delivery of a run (approach ``ranked``) over the Meghdoot zones of
    :class:`~cnsim.brokers.meghdoot.MeghdootCN`: the run's subscriptions, scored, held by
    the zones that hold them for the other approaches, answered in the ``[ranked]``
    pruning mode.

    After the query phase (threshold pruning or the flood, as in :class:`RankedZones`)
    the entry broker ``e`` *notifies* each zone holding a winner — one message straight
    over IP carrying ``x`` and the winners' ids (:data:`NOTIFY_HEADER_BYTES` +
    :data:`NOTIFY_ID_BYTES` each), none for ``e``'s own zone — and the zone's gateway
    sends each winner its notification over the last IP hop. With threshold pruning the
    flood baseline is also computed for the same events (its zones visited, messages and
    IP bytes, notifications included) for the pruning ratios.

    Paths for timed mode (:class:`~cnsim.brokers.base.Paths`, one message per event,
    hops in causal order): pruned, the chain of round trips ``e -> z -> e`` in visit
    order, then the notifications from ``e``; flood, the query's overlay hops, each
    reached zone's answer to ``e``, then the notifications, which leave after the answer
    listed last — answers are listed by their arrival estimated from the IP latencies
    along the query tree (queueing can reorder them; the estimate stands in for "after
    the last answer", which a hop tree cannot express).
    """

    def __init__(
        self,
        net: RankedZones,
        k: int,
        pruning: str,
        broker_latency: np.ndarray,
        churn=None,
        world=None,
    ):
        self.net = net
        self.k = k
        self.mode = PRUNING[pruning]
        self.latency = np.asarray(broker_latency, np.float64)
        # joins and leaves while events flow (cnsim.brokers.ranked_churn.RankedChurn)
        self.churn = churn
        self.world = world
        self.applied = 0  # commands of ``churn`` applied so far
        self._last_hop: np.ndarray | None = None  # the run's, then the joins' last hops

    @classmethod
    def create(cls, ranked, l, r, zones: Zones, world, seeds, n_events: int = 0):
        """The run's scored subscriptions (``ranked``: a
        :class:`cnsim.brokers.base.RankedSetup`; scores from the ``scores`` stream) in
        per-zone ``ranked.index`` structures over ``zones``; with ``ranked.commands``
        > 0, the joins and leaves over ``n_events`` events (stream ``ranked_churn``)."""
        from cnsim.subscriptions.ranked.scores import generate_scores

        score = generate_scores(seeds.rng("scores"), l, r, ranked.scores)
        net = RankedZones(zones, np.asarray(world.broker_hops), l, r, score, ranked.index)
        churn = RankedChurn.of_setup(ranked, seeds, len(l), n_events, world.topology.n_nodes)
        return cls(net, ranked.k, ranked.pruning, world.broker_latency, churn, world)

    def _join(self, j: int) -> tuple[int, int]:
        """The ``j``-th join inserted at its zone (every bound change broadcast, counted
        by :class:`RankedZones`); its id and its zone's gateway."""
        ch, net = self.churn, self.net
        i = net.insert(float(ch.l[j]), float(ch.r[j]), float(ch.score[j]))
        return i, int(net.zones.owner[net._zone[i]])

    @property
    def scores(self) -> np.ndarray:
        """Every subscription's score."""
        return self.net.columns()[2]

    def deliver(
        self, messages, entry_zone: np.ndarray, last_hop: np.ndarray, handled, update_events=None
    ):
        """``(Delivery, Traffic)`` of the events ``messages`` (one per update) entering at
        ``entry_zone``; ``last_hop`` gives each subscription's gateway-to-subscriber IP
        hops, ``handled`` is the approach's per-broker message count (updated).  With
        joins and leaves, those scheduled before the batch's event (``update_events``,
        one event per batch) are applied first."""
        from cnsim.brokers.base import Delivery, Traffic

        net, k = self.net, self.k
        churned, last_hop = self._churn_before(update_events, last_hop)
        xs, entry = messages.x, np.asarray(entry_zone, np.int64)
        d = net.deliver(xs, k, entry, self.mode)
        n = len(xs)
        owner = net.zones.owner
        notify = self._notify(d, entry)
        flood = d if self.mode == "baseline" else net.deliver(xs, k, entry, "baseline")
        costs = event_costs(d, flood, notify, churned)
        paths = self._paths(d, entry, notify["zones"])
        hop_from, hop_to = owner[paths.hop_from], owner[paths.hop_to]
        np.add.at(handled, hop_to, 1)
        np.add.at(handled, owner[paths.source], 1)
        delivery = Delivery.of(messages, d.offsets, d.ids)
        traffic = Traffic(
            overlay_hops=len(paths.hop_to),
            ip_hops=int(net.broker_hops[hop_from, hop_to].sum(dtype=np.int64)),
            last_hop_ip_hops=int(last_hop[d.ids].sum()),
            paths=paths,
            costs=costs,
        )
        assert traffic.overlay_hops == costs["ranked_msgs"] and n == len(paths.source)
        return delivery, traffic

    def _notify(self, d: RankedDelivery, entry: np.ndarray) -> dict:
        return notifications(d, entry, self.net._zone, self.net.zones.owner, self.net.broker_hops)

    def _paths(self, d: RankedDelivery, entry: np.ndarray, notify: list):
        """The overlay hops of every event in causal order (see the class docstring)."""
        from cnsim.brokers.base import Paths

        owner = self.net.zones.owner
        frm: list = []
        to: list = []
        ptr = [0]
        for i in range(len(entry)):
            ez = int(entry[i])
            e = owner[ez]
            if self.mode == "pruned":
                for z in d.visit_zone[d.visit_ptr[i] : d.visit_ptr[i + 1]]:
                    if owner[z] != e:
                        frm += [ez, int(z)]
                        to += [int(z), ez]
            else:
                q_from, q_to = d.routes.hops(i)
                frm += q_from.tolist()
                to += q_to.tolist()
                answers = self._answers(ez, q_from, q_to, d.routes.reached(i))
                frm += answers
                to += [ez] * len(answers)
            frm += [ez] * len(notify[i])
            to += notify[i].tolist()
            ptr.append(len(to))
        return Paths(
            np.asarray(entry, np.int64),
            np.asarray(ptr, np.int64),
            np.asarray(frm, np.int64),
            np.asarray(to, np.int64),
        )

    def _answers(self, ez: int, q_from, q_to, reached) -> list[int]:
        """The zones answering a flood query (remote from ``ez``), ordered by estimated
        arrival of their answers at ``ez``."""
        owner, lat = self.net.zones.owner, self.latency
        e = owner[ez]
        t = {ez: 0.0}
        for a, b in zip(q_from.tolist(), q_to.tolist(), strict=True):
            t[b] = t.get(a, 0.0) + lat[owner[a], owner[b]]
        remote = [int(z) for z in reached if owner[z] != e]
        return sorted(remote, key=lambda z: (t.get(z, 0.0) + lat[owner[z], e], z))
