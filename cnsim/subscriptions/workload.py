"""Seeded workload generators of seed 003 §V: objects, subscriptions and events.

The x-domain and the y-domain are both ``[0, 1)``. Everything is columnar numpy;
each generator takes a ``numpy.random.Generator`` so a run is reproducible from
its seed alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from cnsim.errors import InputError

OBJECT_DISTRIBUTIONS = ("uniform", "clustered")
SUBSCRIPTION_DISTRIBUTIONS = ("uniform", "clustered", "correlated", "anti-correlated")
UPDATE_MODELS = ("uniform", "volatile", "redraw")
# Initial y-values: uniform, or the stationary law of the update model (seed 003 §V's
# long runs see it): arcsine, Beta(1/2, 1/2), for ``uniform``; uniform for the others.
Y_DISTRIBUTIONS = ("uniform", "stationary")
N_CLUSTERS = 10
W = 1.0 / (N_CLUSTERS + 1)  # cluster centres split [0, 1) into 11 segments of length w
_BELOW_ONE = np.nextafter(1.0, 0.0)  # the domains are [0, 1)


def object_cluster_centres() -> np.ndarray:
    """Centres of the 10 object clusters: w, 2w, …, 10w."""
    return W * np.arange(1, N_CLUSTERS + 1)


def generate_objects(
    rng: np.random.Generator,
    n: int,
    distribution: str,
    y_distribution: str = "uniform",
    update: str = "uniform",
) -> tuple[np.ndarray, np.ndarray]:
    """x and y of ``n`` objects; x uniform, or in 10 clusters (10% each, sd w/8); y
    uniform, or the stationary law of the ``update`` model (the x-values are the same)."""
    x = object_x(rng, n, distribution, balanced=True)
    if y_distribution == "stationary" and update == "uniform":
        return x, rng.beta(0.5, 0.5, n)
    return x, rng.random(n)


def object_x(rng: np.random.Generator, n: int, distribution: str, balanced: bool) -> np.ndarray:
    """x-values of ``n`` objects. Clustered objects get 10% per cluster when
    ``balanced`` (the initial objects), else a uniformly drawn cluster each (inserts)."""
    if distribution == "uniform":
        return rng.random(n)
    if distribution != "clustered":
        raise InputError(f"object distribution = {distribution!r}; allowed: "
                         f"{', '.join(map(repr, OBJECT_DISTRIBUTIONS))}")
    if balanced:
        centres = np.repeat(object_cluster_centres(), -(-n // N_CLUSTERS))[:n]
    else:
        centres = object_cluster_centres()[rng.integers(N_CLUSTERS, size=n)]
    return np.clip(centres + rng.normal(0.0, W / 8, n), 0.0, _BELOW_ONE)


def generate_subscriptions(
    rng: np.random.Generator, m: int, distribution: str, spread: float = 0.1
) -> tuple[np.ndarray, np.ndarray]:
    """Endpoints ``l <= r`` of ``m`` subscription ranges.

    * uniform: points uniform over S (the half-square ``l <= r``);
    * clustered: a mixture of 10 Gaussians with centres uniform in S and standard
      deviation ``spread / 4`` (the paper's σ = (max − min)λ/4), points outside S
      redrawn;
    * correlated: around the object clusters, each endpoint at a half-normal
      distance (sd w/8) from its cluster centre;
    * anti-correlated: as correlated, with the centres shifted by w/2 and the last
      one dropped, so they fall midway between object clusters.
    """
    if distribution == "uniform":
        return sorted_pairs(rng, m)
    if distribution == "clustered":
        return _clustered(rng, m, spread / 4)
    if distribution in ("correlated", "anti-correlated"):
        centres = object_cluster_centres()
        if distribution == "anti-correlated":
            centres = (centres + W / 2)[:-1]
        c = centres[rng.integers(len(centres), size=m)]
        l = np.clip(c - np.abs(rng.normal(0, W / 8, m)), 0.0, _BELOW_ONE)
        r = np.clip(c + np.abs(rng.normal(0, W / 8, m)), 0.0, _BELOW_ONE)
        return l, r
    raise InputError(f"subscription distribution = {distribution!r}; allowed: "
                     f"{', '.join(map(repr, SUBSCRIPTION_DISTRIBUTIONS))}")


def sorted_pairs(rng: np.random.Generator, shape) -> tuple[np.ndarray, np.ndarray]:
    """The smaller and the larger of two uniform draws of ``shape`` each: uniform ranges
    ``l <= r`` (per attribute, for boxes)."""
    a, b = rng.random(shape), rng.random(shape)
    return np.minimum(a, b), np.maximum(a, b)


def _clustered(rng: np.random.Generator, m: int, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    centres = np.stack(sorted_pairs(rng, N_CLUSTERS), axis=1)
    l, r = np.empty(m), np.empty(m)
    filled = 0
    while filled < m:
        need = m - filled
        c = centres[rng.integers(N_CLUSTERS, size=2 * need + 16)]
        pts = c + rng.normal(0.0, sigma, c.shape)
        ok = (pts[:, 0] >= 0) & (pts[:, 1] < 1) & (pts[:, 0] <= pts[:, 1])
        pts = pts[ok][:need]
        l[filled : filled + len(pts)], r[filled : filled + len(pts)] = pts[:, 0], pts[:, 1]
        filled += len(pts)
    return l, r


EVENT_KINDS = ("raise", "lower", "insert", "delete", "move")


@dataclass(frozen=True)
class Updates:
    """y-updates ``Upd(x, y_old -> y_new)`` of objects, columnar, in order."""

    obj: np.ndarray
    x: np.ndarray
    y_old: np.ndarray
    y_new: np.ndarray

    def __len__(self) -> int:
        return len(self.obj)

    def __iter__(self):
        """``(obj, x, y_old, y_new)`` of each update as Python scalars."""
        return zip(
            self.obj.tolist(),
            self.x.tolist(),
            self.y_old.tolist(),
            self.y_new.tolist(),
            strict=True,
        )


@dataclass(frozen=True)
class Events:
    """A stream of events, each made of the y-updates ``Upd(x, y_old -> y_new)`` it
    means for the server (seed 003 §II-A footnote 4), columnar.

    Objects are identified by id; an id names one object *at one x*, as the paper
    identifies objects by x: an insert creates a new id, and an x-update ("move")
    is the delete of the object's id at the old x followed by the insert of a new
    id at the new x. Event ``e`` consists of the updates ``start[e]:start[e + 1]``.
    """

    kind: np.ndarray  # per event: index into EVENT_KINDS
    start: np.ndarray  # per event + 1: first update of each event
    obj: np.ndarray  # per update: object id
    x: np.ndarray  # per update: the object's x
    y_old: np.ndarray  # per update: inf for an insert
    y_new: np.ndarray  # per update: inf for a delete
    # events drawn as a delete, move or y-update that became inserts: no object was left
    forced_inserts: int = 0

    def __len__(self) -> int:
        return len(self.kind)

    def kinds(self) -> np.ndarray:
        """The kind of every event by name: ``raise`` (rank-raising: y decreases),
        ``lower`` (rank-lowering: y increases), ``insert``, ``delete`` or ``move``."""
        return np.array(EVENT_KINDS, dtype=object)[self.kind]

    def updates(self, first: int, stop: int) -> Updates:
        """The updates of events ``first .. stop - 1``, in order."""
        rows = slice(int(self.start[first]), int(self.start[stop]))
        return Updates(self.obj[rows], self.x[rows], self.y_old[rows], self.y_new[rows])


def generate_events(
    rng: np.random.Generator,
    y: np.ndarray,
    count: int,
    model: str = "uniform",
    volatility: float = 1.0,
    mix: tuple[float, float, float] = (0.0, 0.0, 0.0),
    x: np.ndarray | None = None,
    distribution: str = "uniform",
) -> Events:
    """``count`` events over objects ``(x, y)`` (not modified).

    A y-update picks a live object uniformly and raises or lowers its y with
    probability 1/2; the new y is uniform on that side of the old value
    (``uniform``), or the old value plus a Gaussian change of sd ``volatility/8`` of
    the y-range, reflected into [0, 1) (``volatile``), or — the other reading of seed
    003 §V — uniform over the whole y-range, whichever side of the old value it lands
    on (``redraw``; its stationary y-distribution is uniform). ``mix`` gives the shares of
    inserts (new object, x from ``distribution``, y uniform), deletes and moves (new
    x from ``distribution``, same y) among the events. When no object is left, an
    event drawn as anything else becomes an insert; ``Events.forced_inserts`` counts
    them (the run's summary reports it).
    """
    if model not in UPDATE_MODELS:
        raise InputError(f"update model = {model!r}; allowed: "
                         f"{', '.join(map(repr, UPDATE_MODELS))}")
    n = len(y)
    x = np.zeros(n) if x is None else np.asarray(x, np.float64)
    draws = (
        rng.random(count),  # event type
        rng.integers(0, 2**62, count),  # which live object
        rng.random(count) < 0.5,  # raise y or lower it
        rng.random(count),  # uniform new y
        np.abs(rng.normal(0.0, volatility / 8, count)),  # volatile change
        object_x(rng, count, distribution, balanced=False),  # x of inserts and moves
    )
    cuts = np.cumsum(mix)
    kind, start, obj, xs, y_old, y_new, forced = _walk(
        x, np.asarray(y, np.float64), cuts, *draws, UPDATE_MODELS.index(model)
    )
    return Events(kind, start, obj, xs, y_old, y_new, int(forced))


@numba.njit(cache=True)
def _walk(x0, y0, cuts, kind_u, pick, up, u, g, new_x, model):
    volatile, redraw = model == 1, model == 2
    n, count = len(y0), len(kind_u)
    cap = n + count  # every event creates at most one id
    xs, ys = np.empty(cap), np.full(cap, np.inf)
    xs[:n], ys[:n] = x0, y0
    live = np.empty(cap, np.int64)  # live ids, for uniform picks and O(1) removal
    where = np.full(cap, -1, np.int64)
    n_live = 0
    for o in range(n):
        if ys[o] < np.inf:
            live[n_live], where[o] = o, n_live
            n_live += 1
    next_id = n
    kind = np.empty(count, np.int64)
    start = np.zeros(count + 1, np.int64)
    obj = np.empty(2 * count, np.int64)
    ux, uo, un = np.empty(2 * count), np.empty(2 * count), np.empty(2 * count)
    rows = 0
    forced = 0
    for t in range(count):
        # 0 insert, 1 delete, 2 move, 3 y-update; insert when no object is left
        c = 0
        while c < 3 and kind_u[t] >= cuts[c]:
            c += 1
        if n_live == 0 and c != 0:
            c = 0
            forced += 1
        o = live[pick[t] % n_live] if n_live > 0 else -1
        if c == 3:
            old = ys[o]
            if volatile:
                new = old + g[t] if up[t] else old - g[t]
                new = abs(new) % 2.0  # reflect into [0, 2), then fold back onto [0, 1]
                if new >= 1.0:
                    new = 2.0 - new
                new = min(new, np.nextafter(1.0, 0.0))
            elif redraw:
                new = u[t]
            else:
                new = old + u[t] * (1.0 - old) if up[t] else old * u[t]
            kind[t] = 0 if new < old else 1
            obj[rows], ux[rows], uo[rows], un[rows] = o, xs[o], old, new
            ys[o] = new
            rows += 1
        if c == 1 or c == 2:  # delete o (a move deletes it at its old x first)
            kind[t] = 3 if c == 1 else 4
            obj[rows], ux[rows], uo[rows], un[rows] = o, xs[o], ys[o], np.inf
            rows += 1
            last = live[n_live - 1]
            live[where[o]], where[last] = last, where[o]
            n_live -= 1
        if c == 0 or c == 2:  # insert a new id
            if c == 0:
                kind[t] = 2
            y_ins = u[t] if c == 0 else ys[o]
            i = next_id
            next_id += 1
            xs[i], ys[i] = new_x[t], y_ins
            obj[rows], ux[rows], uo[rows], un[rows] = i, xs[i], np.inf, y_ins
            rows += 1
            live[n_live], where[i] = i, n_live
            n_live += 1
        if c == 1 or c == 2:
            ys[o] = np.inf
        start[t + 1] = rows
    out = obj[:rows].copy(), ux[:rows].copy(), uo[:rows].copy(), un[:rows].copy()
    return kind, start, out[0], out[1], out[2], out[3], forced
