"""``cnsim bench layout``: what storing subscriber lists in delivery order buys.

Paint-Dense on the paper's workload (seed 003 §V, m = 2,000,000, k = 10, ideal CN),
event by event; each event's messages are delivered twice, side by side in one
process (which goes first alternates), as ``cnsim bench paint`` counts delivery time
(routing to the subscriptions, then the subscribers' lists applying what they get):

* ``before``: the lists as they were — rows in subscription-id order, 64-bit object
  ids — reached through subscription ids (one random row per delivery);
* ``after``: the lists of the run — rows in the network's delivery order, compact
  ids — reached through the positions the network reports (runs of rows).

Both lists receive the same deliveries and are checked equal at the end. Also
measured, in CPU time per row: reading a list row and leaving it as it is, for
random rows of the ``before`` lists (that layout's floor) and for a run of adjacent
rows of the ``after`` lists (the best case of the new one).
"""

from __future__ import annotations

import time

import numpy as np

from cnsim.bench import provenance
from cnsim.bench.paint import _scenario
from cnsim.brokers.base import Delivery
from cnsim.simulations.runner import Simulation
from cnsim.subscriptions.lists import TopKLists, _apply


def _rmw_floor(lists: TopKLists, rows: np.ndarray, reps: int = 5) -> float:
    """CPU seconds per row of applying a no-op delivery (an object absent from every list
    with y = +inf: each row is read and left as it is) to ``rows``."""
    obj = np.full(len(rows), -2, np.int64)
    y = np.full(len(rows), np.inf)
    evict = np.empty(0, np.int64)
    best = np.inf
    for _ in range(reps):
        t0 = time.process_time()
        _apply(lists.row_ids, lists.row_ys, rows, obj, y, evict)
        best = min(best, time.process_time() - t0)
    return best / len(rows)


def measure(m: int, k: int, events: int) -> dict:
    """Mean per-event and per-delivery figures of the two layouts."""
    scenario = _scenario(m, k, events).replace(**{"algorithm.approaches": ["paint-dense"]})
    sim = Simulation(scenario)
    approach = sim.approaches[0]
    after = sim.lists[approach.name]
    before = TopKLists(after.ids.astype(np.int64), after.ys.copy())  # subscription order
    index, ev = sim.subscriptions, sim.workload.events
    spent = {"before": 0.0, "after": 0.0}  # wall seconds
    cpu = {"before": 0.0, "after": 0.0}  # this process's CPU seconds (a shared machine)
    delivered = 0

    def run_before(messages):
        t0, c0 = time.perf_counter(), time.process_time()
        offsets, subs = index.report(messages.rects)
        d = Delivery.of(messages, offsets, subs)
        before.apply(d.subs, d.obj, d.y)
        spent["before"] += time.perf_counter() - t0
        cpu["before"] += time.process_time() - c0
        return len(d)

    def run_after(messages, update_events):
        t0, c0 = time.perf_counter(), time.process_time()
        d, _ = sim.network.deliver(approach.spec, messages, update_events)
        after.apply(d.subs, d.obj, d.y, d.evict, d.rows)
        spent["after"] += time.perf_counter() - t0
        cpu["after"] += time.process_time() - c0
        return len(d)

    for e in range(len(ev)):
        messages = approach.process(ev.updates(e, e + 1))
        update_events = np.full(int(ev.start[e + 1] - ev.start[e]), e)
        if e % 2:
            n = run_before(messages)
            assert run_after(messages, update_events) == n
        else:
            n = run_after(messages, update_events)
            assert run_before(messages) == n
        delivered += n
    same = bool(np.array_equal(before.ids, after.ids) and np.array_equal(before.ys, after.ys))
    rng = np.random.default_rng(0)
    rows = min(m, 200_000)
    scattered = rng.choice(m, size=rows, replace=False)  # random rows: the old layout's
    adjacent = np.arange(rows)  # a run of adjacent rows: the new layout's best case
    return {
        "m": m,
        "k": k,
        "events": len(ev),
        "delivered_per_event": delivered / len(ev),
        "before_ns_per_delivery": spent["before"] / delivered * 1e9,
        "after_ns_per_delivery": spent["after"] / delivered * 1e9,
        "before_over_after": spent["before"] / spent["after"],
        "before_cpu_ns_per_delivery": cpu["before"] / delivered * 1e9,
        "after_cpu_ns_per_delivery": cpu["after"] / delivered * 1e9,
        "before_over_after_cpu": cpu["before"] / cpu["after"],
        "lists_equal": same,
        "before_list_bytes_per_subscription": before.nbytes() / m,
        "after_list_bytes_per_subscription": after.nbytes() / m,
        "random_row_rmw_cpu_ns_before_layout": _rmw_floor(before, scattered) * 1e9,
        "adjacent_row_rmw_cpu_ns_after_layout": _rmw_floor(after, adjacent) * 1e9,
    }


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """The measurement at m = 2,000,000 (``quick``: 200,000) and k = 10."""
    started = time.perf_counter()
    m, events = (200_000, 200) if quick else (2_000_000, 500)
    result = measure(m, 10, events)
    return {
        **provenance("layout", quick, full),
        **result,
        "headline": {
            "ns_per_delivery_before": result["before_ns_per_delivery"],
            "ns_per_delivery_after": result["after_ns_per_delivery"],
            "cpu_ns_per_delivery_before": result["before_cpu_ns_per_delivery"],
            "cpu_ns_per_delivery_after": result["after_cpu_ns_per_delivery"],
            "speed_up": result["before_over_after"],
            "target_ns": 60.0,
        },
        "wall_s": time.perf_counter() - started,
    }
