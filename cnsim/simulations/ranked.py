"""Ranked delivery in a run (approach ``ranked``, :mod:`cnsim.brokers.ranked`):
what the runner adds to its summary and what ``cnsim verify`` checks.

Notation as in :mod:`cnsim.brokers.ranked`: subscription ``j`` is the scored range
``[l_j, r_j]`` with score ``s_j``; an event is a point ``x``; its recipients must be
``top_k(x)``, the first ``k`` subscriptions with ``l_j <= x <= r_j`` in rank order
(score descending, ties by the smaller id) over the whole network.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cnsim.simulations.metrics import CATALOG


def global_top_k(
    l: np.ndarray, r: np.ndarray, score: np.ndarray, x: float, k: int, alive=None
) -> np.ndarray:
    """The oracle: ``top_k(x)`` by brute force over every subscription (``alive``: only
    those live)."""
    hit = (l <= x) & (x <= r)
    hit = np.flatnonzero(hit if alive is None else hit & alive)
    return hit[np.lexsort((hit, -score[hit]))[:k]]


def ranked_summary(part: pd.DataFrame, setup: dict[str, int]) -> dict:
    """A ranked approach's run-level entries: the pruning ratios (threshold over flood,
    summed over the run; None where the flood cost nothing) and the bound propagation
    of the run's setup (``setup``: :meth:`RankedZones.setup_bound_traffic
    <cnsim.brokers.ranked.RankedZones.setup_bound_traffic>`)."""
    out: dict = {}
    for what, mine, flood in (
        ("zones", "zones_visited", "flood_zones_visited"),
        ("msgs", "ranked_msgs", "flood_msgs"),
        ("ip_bytes", "ip_bytes", "flood_ip_bytes"),
    ):
        base = int(part[flood].sum())
        out[f"pruning_ratio_{what}"] = int(part[mine].sum()) / base if base else None
    out.update(setup)
    assert all(CATALOG[key].mode == "ranked" for key in out)
    return out


def check_ranked(report, sim, name: str, batch: int, outcome) -> None:
    """``ranked-top-k``: every event of the batch reached exactly ``top_k(x)``, in rank
    order, against the brute-force oracle."""
    ranked = sim.network.ranked
    w, k, scores = sim.workload, ranked.k, ranked.scores
    d, xs = outcome.delivery, outcome.messages.x
    l, r, alive = w.l, w.r, None
    if ranked.churn is not None:  # joins and leaves: the subscriptions live at the event
        ch = ranked.churn  # one event per batch (the config's rule): event = batch
        m = ch.m
        l, r = np.concatenate([w.l, ch.l]), np.concatenate([w.r, ch.r])
        scores = np.concatenate([scores[:m], ch.score])
        alive = ch.live_before(batch)
    for i, x in enumerate(xs):
        got = d.subs[d.offsets[i] : d.offsets[i + 1]]
        want = global_top_k(l, r, scores, x, k, alive)
        if not np.array_equal(got, want):
            report.fail(
                name,
                "ranked-top-k",
                batch,
                f"event at x = {x:.6g} reached {got[:10].tolist()}, the top-{k} is "
                f"{want[:10].tolist()}",
            )
