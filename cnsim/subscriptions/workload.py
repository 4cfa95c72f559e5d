"""Seeded workload generators of seed 003 §V: objects, subscriptions and events.

The x-domain and the y-domain are both ``[0, 1)``. Everything is columnar numpy;
each generator takes a ``numpy.random.Generator`` so a run is reproducible from
its seed alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

OBJECT_DISTRIBUTIONS = ("uniform", "clustered")
SUBSCRIPTION_DISTRIBUTIONS = ("uniform", "clustered", "correlated", "anti-correlated")
UPDATE_MODELS = ("uniform", "volatile")
N_CLUSTERS = 10
W = 1.0 / (N_CLUSTERS + 1)  # cluster centres split [0, 1) into 11 segments of length w


def object_cluster_centres() -> np.ndarray:
    """Centres of the 10 object clusters: w, 2w, …, 10w."""
    return W * np.arange(1, N_CLUSTERS + 1)


def generate_objects(
    rng: np.random.Generator, n: int, distribution: str
) -> tuple[np.ndarray, np.ndarray]:
    """x and y of ``n`` objects; x uniform, or in 10 clusters (10% each, sd w/8)."""
    if distribution == "uniform":
        x = rng.random(n)
    elif distribution == "clustered":
        centres = np.repeat(object_cluster_centres(), -(-n // N_CLUSTERS))[:n]
        x = np.clip(centres + rng.normal(0.0, W / 8, n), 0.0, np.nextafter(1.0, 0.0))
    else:
        raise ValueError(f"unknown object distribution {distribution!r}")
    return x, rng.random(n)


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
        a, b = rng.random(m), rng.random(m)
        return np.minimum(a, b), np.maximum(a, b)
    if distribution == "clustered":
        return _clustered(rng, m, spread / 4)
    if distribution in ("correlated", "anti-correlated"):
        centres = object_cluster_centres()
        if distribution == "anti-correlated":
            centres = (centres + W / 2)[:-1]
        c = centres[rng.integers(len(centres), size=m)]
        l = np.clip(c - np.abs(rng.normal(0, W / 8, m)), 0.0, 1.0)
        r = np.clip(c + np.abs(rng.normal(0, W / 8, m)), 0.0, 1.0)
        return l, r
    raise ValueError(f"unknown subscription distribution {distribution!r}")


def _clustered(rng: np.random.Generator, m: int, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    a, b = rng.random(N_CLUSTERS), rng.random(N_CLUSTERS)
    centres = np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)
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


@dataclass(frozen=True)
class Events:
    """A stream of y-update events ``Upd(x_obj, y_old -> y_new)``, columnar."""

    obj: np.ndarray  # int64 object ids
    y_old: np.ndarray  # float64
    y_new: np.ndarray  # float64

    def __len__(self) -> int:
        return len(self.obj)

    def kinds(self) -> np.ndarray:
        """``raise`` (rank-raising: y decreases), ``lower`` (rank-lowering: y increases),
        ``insert`` (from y = inf) or ``delete`` (to y = inf) for each event."""
        kinds = np.where(self.y_new < self.y_old, "raise", "lower").astype(object)
        kinds[np.isinf(self.y_old)] = "insert"
        kinds[np.isinf(self.y_new)] = "delete"
        return kinds


def generate_events(
    rng: np.random.Generator,
    y: np.ndarray,
    count: int,
    model: str = "uniform",
    volatility: float = 1.0,
    churn: float = 0.0,
) -> Events:
    """``count`` events over objects with current y-values ``y`` (not modified).

    Each event picks an object uniformly and raises or lowers its y with probability
    1/2; the new y is uniform on that side of the old value (``uniform``), or the old
    value plus a Gaussian change of sd ``volatility/8`` of the y-range, reflected into
    [0, 1) (``volatile``). With probability ``churn`` the event instead deletes the
    object (``y -> inf``); an event that picks a deleted object inserts it again with
    a uniform y (``inf -> y``), as in seed 003 §II-A footnote 4.
    """
    if model not in UPDATE_MODELS:
        raise ValueError(f"unknown update model {model!r}")
    obj = rng.integers(len(y), size=count)
    up = rng.random(count) < 0.5
    u = rng.random(count)
    g = np.abs(rng.normal(0.0, volatility / 8, count))
    delete = rng.random(count) < churn
    y_old, y_new = _walk(
        np.asarray(y, np.float64).copy(), obj, up, u, g, delete, model == "volatile"
    )
    return Events(obj.astype(np.int64), y_old, y_new)


@numba.njit(cache=True)
def _walk(y, obj, up, u, g, delete, volatile):
    y_old = np.empty(len(obj))
    y_new = np.empty(len(obj))
    for t in range(len(obj)):
        o = obj[t]
        old = y[o]
        if old == np.inf:
            new = u[t]  # insert a deleted object again
        elif delete[t]:
            new = np.inf
        elif volatile:
            new = old + g[t] if up[t] else old - g[t]
            new = abs(new) % 2.0  # reflect into [0, 2), then fold [1, 2) back onto (0, 1]
            if new >= 1.0:
                new = 2.0 - new
            new = min(new, np.nextafter(1.0, 0.0))
        else:
            new = old + u[t] * (1.0 - old) if up[t] else old * u[t]
        y_old[t], y_new[t] = old, new
        y[o] = new
    return y_old, y_new
