"""Subscribers that come and go while a run's events flow (``[churn]``), for every
subscription kind and every approach with a top-k list or a range store.

Model, in units of events (event ``e`` happens at time ``e``):

* **joins**: before event ``e`` a Poisson number of subscriptions joins, mean
  ``churn.joins`` per event; each is drawn by the kind's own generator (the
  ``[subscriptions]`` distribution), from a stream of its own (``churn_subscriptions``),
  so the run's initial subscriptions are those of the run without churn.
* **lifetimes** (``churn.lifetime``): ``none`` (nobody leaves), ``exponential`` or
  ``pareto`` (shape ``churn.pareto_shape`` > 1, scale set so that the mean is
  ``churn.mean_lifetime``), as OverSim's lifetime churn offers. Every subscription
  draws one, the initial ones too (from time 0: the exponential's residual life is the
  same law; the Pareto's is not, and is not corrected for). A subscription that joins
  before event ``e`` with lifetime ``L`` leaves before event ``max(e + 1, ⌈e + L⌉)``.

The schedule is drawn once, before any event, from the stream ``churn``. Ids: the
``m`` initial subscriptions are ``0 .. m - 1``, the joining ones ``m .. m + J - 1`` in
the order they join; every structure of the run is built over all ``m + J`` (the
*pool*), the joining ones absent until they join (:meth:`cnsim.subscriptions.index.
SubscriptionIndex.set_alive`). With batches of several events, what falls due inside a
batch happens at its start; a subscription that would join and leave between two
batch starts never appears.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from cnsim.subscriptions.kinds import kind_of

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cnsim.subscriptions.kinds.base import Streams

LIFETIMES = ("none", "exponential", "pareto")


def churns(section: Mapping[str, Any]) -> bool:
    """Whether a ``[churn]`` section makes subscriptions come or go."""
    return section["joins"] > 0 or section["lifetime"] != "none"


@dataclass(frozen=True)
class Churn:
    """When every subscription of the pool joins and leaves."""

    initial: int  # m: ids below it are there from the start
    join_at: np.ndarray  # (J,) event before which subscription m + j joins (non-decreasing)
    leave_at: np.ndarray  # (m + J,) event before which each leaves; n_events: stays
    _by_leave: np.ndarray  # ids by leave_at (stable)
    _leave_sorted: np.ndarray  # leave_at[_by_leave]

    @classmethod
    def draw(cls, section: Mapping[str, Any], m: int, n_events: int, rng) -> Churn:
        """The schedule of ``m`` initial subscriptions over ``n_events`` events."""
        counts = rng.poisson(section["joins"], n_events) if section["joins"] > 0 else None
        join_at = np.zeros(0, np.int64) if counts is None else np.repeat(
            np.arange(n_events, dtype=np.int64), counts
        )
        born = np.concatenate([np.zeros(m, np.int64), join_at])
        life = lifetimes(section, len(born), rng)
        leave = np.maximum(born + 1, np.ceil(born + life))
        return cls.of(m, join_at, np.minimum(leave, n_events).astype(np.int64))

    @classmethod
    def of(cls, initial: int, join_at: np.ndarray, leave_at: np.ndarray) -> Churn:
        """The schedule of ``initial`` subscriptions there from the start, the joining
        ones' ``join_at`` and everyone's ``leave_at``."""
        by_leave = np.argsort(leave_at, kind="stable")
        return cls(initial, join_at, leave_at, by_leave, leave_at[by_leave])

    def restricted(self, ids: np.ndarray) -> Churn:
        """The schedule of the pool's subscriptions ``ids`` (increasing) alone, renumbered
        ``0 .. len(ids) - 1`` in that order: a partition of a run spread over Spark tasks
        (its initial ones first, then its joining ones in the order they join, as in
        the pool), whose :meth:`due` gives the pool's, restricted."""
        initial = int(np.searchsorted(ids, self.initial))
        return Churn.of(initial, self.join_at[ids[initial:] - self.initial], self.leave_at[ids])

    @property
    def pool(self) -> int:
        """Subscriptions the run ever holds: the initial ones and every joining one."""
        return self.initial + len(self.join_at)

    def due(self, first: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """``(joining, leaving)``: the ids joining and leaving at the start of the batch
        of events ``first .. stop - 1`` (whatever falls due from ``first`` to ``stop -
        1``), leaving out those doing both."""
        a, b = self.join_at.searchsorted(first), self.join_at.searchsorted(stop)
        joining = np.arange(self.initial + a, self.initial + b, dtype=np.int64)
        c, d = self._leave_sorted.searchsorted(first), self._leave_sorted.searchsorted(stop)
        leaving = self._by_leave[c:d]
        if stop - first > 1 and len(joining) and len(leaving):  # both within one batch
            joining = joining[self.leave_at[joining] >= stop]
            new = leaving >= self.initial
            new[new] = self.join_at[leaving[new] - self.initial] >= first
            leaving = leaving[~new]
        return joining, np.sort(leaving)


def lifetimes(section: Mapping[str, Any], n: int, rng) -> np.ndarray:
    """``n`` lifetimes in events (``inf`` for ``lifetime = "none"``)."""
    law, mean = section["lifetime"], section["mean_lifetime"]
    if law == "none":
        return np.full(n, np.inf)
    if law == "exponential":
        return rng.exponential(mean, n)
    a = section["pareto_shape"]  # classical Pareto: scale x_m, mean a x_m / (a - 1)
    return mean * (a - 1) / a * (1.0 + rng.pareto(a, n))


class _Renamed:
    """The run's streams, with the subscriptions' stream replaced by the joining
    subscriptions' own."""

    def __init__(self, seeds: Streams):
        self.seeds = seeds

    def rng(self, name: str) -> np.random.Generator:
        return self.seeds.rng("churn_subscriptions" if name == "subscriptions" else name)


def with_joiners(w, churn: Churn, seeds: Streams):
    """Workload ``w`` with the joining subscriptions after its own (the pool), drawn by
    its kind from the stream ``churn_subscriptions``."""
    joining = len(churn.join_at)
    if not joining:
        return w
    kind = kind_of({**w.kind.section, "count": joining})
    drawn = kind.draw(_Renamed(seeds), w.x, w.events)
    fields = {f: np.concatenate([getattr(w, f), drawn[f]]) for f in w.kind.subscription_fields}
    return replace(w, **fields)


def pooled(section: Mapping[str, Any], w, seeds: Streams):
    """``(churn, pool)``: the schedule ``[churn]`` (``section``) draws for workload
    ``w``'s subscriptions, and ``w`` with the joining ones after its own; ``(None, w)``
    when nobody comes or goes."""
    if not churns(section):
        return None, w
    churn = Churn.draw(section, len(w.l), len(w.events), seeds.rng("churn"))
    return churn, with_joiners(w, churn, seeds)


def top_k_by_rounds(min_y, y: np.ndarray, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The top-k lists of ``n`` boxes as a server answers them with ``min_y`` alone: k
    rounds, each asking ``min_y(rows, y0, id0)`` (the lowest object above ``(y0, id0)``
    in the boxes ``rows``; -1: none) for the lists not yet ended; ``y``: every object's
    y. Returns ids and y-values (n, k), padded with ``(-1, inf)``."""
    ids = np.full((n, k), -1, np.int64)
    ys = np.full((n, k), np.inf)
    rows = np.arange(n)
    y0, id0 = np.full(n, -np.inf), np.full(n, -1, np.int64)
    for c in range(k):
        h = np.asarray(min_y(rows, y0, id0))
        found = h >= 0
        found[found] = y[h[found]] < np.inf  # an absent object ends a list
        rows, h, y0 = rows[found], h[found], y[h[found]]
        if not len(rows):
            break
        ids[rows, c], ys[rows, c] = h, y0
        id0 = h
    return ids, ys


def min_y_calls(ids: np.ndarray) -> int:
    """The ``min_y`` calls :func:`top_k_by_rounds` makes for lists ``ids``: one per entry,
    and one more that finds the range exhausted where a list holds fewer than k."""
    k = ids.shape[1]
    return int(np.minimum((ids >= 0).sum(axis=1) + 1, k).sum())
