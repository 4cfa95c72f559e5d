"""``delivered_updated_msgs`` and ``redundancy_paper`` (seed 003 Table II as
the paper counts): counted against the deliveries themselves."""

import numpy as np

from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import Simulation, run

SMALL = {
    "seed": 7,
    "objects": {"count": 400},
    "subscriptions": {"count": 6000, "k": 6},
    "events": {"count": 120},
    "algorithm": {
        "approaches": ["paint-sparse", "paint-sparse(0.5)", "paint-sparse(1)", "cn-relax"]
    },
    "run": {"progress": False},
    "overlay": {"kind": "ideal"},
}


def _holding(x, y, l, r, k, i) -> int:
    """Subscriptions whose true top-k holds object i (brute force)."""
    inside = (l[:, None] <= x[None, :]) & (x[None, :] <= r[:, None])
    ahead = (y < y[i]) | ((y == y[i]) & (np.arange(len(y)) < i))
    return int(np.count_nonzero(inside[:, i] & ((inside & ahead).sum(axis=1) < k)))


def test_an_exact_approach_sends_the_updated_object_to_the_lists_that_hold_it():
    """Rank-raising: i's new value reaches the lists holding i after the update;
    rank-lowering: those holding it before (seed 003 §III-A), and nobody else."""
    sim = Simulation(from_dict(SMALL))
    w, ev = sim.workload, sim.workload.events
    y = w.y.copy()
    for b, outcomes in sim.steps():
        (i,) = ev.obj[ev.start[b] : ev.start[b + 1]]
        before = _holding(w.x, y, w.l, w.r, w.k, i)
        y[i] = ev.y_new[b]
        after = _holding(w.x, y, w.l, w.r, w.k, i)
        o = outcomes["paint-sparse"]
        assert np.array_equal(o.updated, [i])
        want = after if ev.y_new[b] < ev.y_old[b] else before
        assert np.count_nonzero(o.delivery.obj == i) == want


def test_redundancy_paper_counts_the_updated_objects_extra_deliveries():
    frame, summary = run(from_dict(SMALL))
    by = {a: frame[frame.approach == a] for a in frame.approach.unique()}
    exact = by["paint-sparse"]
    total = exact["delivered_msgs"].sum()
    for name in ("paint-sparse(0.5)", "paint-sparse(1)"):
        rows = by[name]
        extra = rows["delivered_updated_msgs"].sum() - exact["delivered_updated_msgs"].sum()
        s = summary["approaches"][name]
        assert s["redundancy_paper"] == extra / total
        # The exposed objects' coarsened regions contain their exact ones: the paper's
        # count is the smaller part of the redundancy.
        assert 0 <= s["redundancy_paper"] <= s["redundancy"]
        assert (
            rows["delivered_updated_msgs"].to_numpy() >= exact["delivered_updated_msgs"].to_numpy()
        ).all()
    assert summary["approaches"]["paint-sparse"]["redundancy_paper"] == 0
    relax = by["cn-relax"]
    assert (relax["delivered_updated_msgs"] == relax["delivered_msgs"]).all()
