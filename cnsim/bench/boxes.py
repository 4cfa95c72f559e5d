"""``cnsim bench boxes``: Paint-Dense and Paint-Sparse for d-dimensional box
subscriptions (seed 003 §IV-C, :mod:`cnsim.algorithms.boxes`) — messages per event
against k and d, beside Theorem 8's bound.

Workload: n objects with d independent uniform attributes x_1..x_d and a uniform y
(Theorem 8's assumption: i.i.d. objects with independent attributes); m box
subscriptions, each side ``[l_t, r_t]`` the smaller and larger of two uniform draws
(the 1-d DS#1 per dimension); the event stream of seed 003 §V (a uniformly chosen
object's y raised or lowered with probability 1/2, the new y uniform on that side;
:func:`cnsim.bench.multidim.events`), the same for every approach and k.

Theorem 8 (our OCR copy garbles the formula; read with its proof): under that
assumption Paint-Dense generates ``O((k ln^{d-1} n)^{d+1})`` expected messages per
update — the influence region is covered by ``z = Θ(k ln^{d-1} n / (d-1)!)``
orthants (the k-skyband), partitioned into ``O(z^d)`` boxes, once for the updated
object and once for each of at most z exposed objects. We report the measured
means beside ``(k ln^{d-1} n)^{d+1}`` and beside ``z^{d+1}`` with the (d-1)! kept,
and the measured skyband size |U(i)| beside z.

Paint-Dense's partitions grow like z^d (the partition is a numba kernel,
:mod:`cnsim.algorithms.boxes._partition_nb`, at a few µs per slab); an event whose
partitions need more than ``BUDGET`` slabs together is *censored* (``BUDGET``;
``BUDGET_QUICK`` with ``--quick``): the event is counted in ``censored`` and left out
of the means (which are then means over the events that finished — lower than the
true mean). Paint-Sparse runs the same events with the same budget (its pruned
partition is a numba kernel too, one snap per slab asked inside it); the
``*_on_common_events`` means are over the events both finished, for the ratio. Then
``sparse_wide`` runs Paint-Sparse alone on the d = 3, 4 workloads and events with a 10×
larger budget (``SPARSE_BUDGET``), which leaves (almost) none of its events censored;
``slabs_mean`` is each cell's partition work per finished event. For
d = 1 the figures are checked against the 1-d Paint-Dense on the same workload;
``engines`` times each numba partition against its Python reference on the same
events (identical messages and counts required).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable

import numpy as np

from cnsim.algorithms.boxes.paint import PaintDenseBoxes, PaintSparseBoxes
from cnsim.algorithms.boxes.regions import RegionTooLarge
from cnsim.bench import provenance
from cnsim.server.object_index_d import ObjectIndexD
from cnsim.subscriptions.generators.boxes import workload
from cnsim.subscriptions.kinds.box import message_bytes
from cnsim.subscriptions.space_boxes import BoxSubscriptions

KS = [1, 2, 5, 10]
DS = [1, 2, 3, 4]
# Slabs one event's partitions may visit before it is censored (both approaches). The
# full run fits ~20 minutes of one core (and ~15 more for ``sparse_wide``): at d = 3, 4
# Paint-Dense's events need 10^6 to 10^8 slabs at 3-6 µs each, so a larger budget or more
# events costs hours.
BUDGET = 1_000_000
BUDGET_QUICK = 200_000
EVENTS = {1: 400, 2: 400, 3: 30, 4: 15}  # events per d, for both approaches
EVENTS_QUICK = {1: 200, 2: 60, 3: 10, 4: 5}
N, M = 2_000, 20_000  # objects and subscriptions
# Paint-Sparse alone on the d = 3, 4 rows with a 10x larger budget (``sparse_wide``): its
# pruned partitions are cheap enough, and at BUDGET it censors some events too.
SPARSE_BUDGET = 10_000_000
SPARSE_BUDGET_QUICK = 2_000_000
SPARSE_WIDE_DS = [3, 4]


def one_d_messages(x: np.ndarray, y: np.ndarray, k: int, stream) -> list[int]:
    """Messages per event of the 1-d Paint-Dense (:mod:`cnsim.algorithms.paint_dense`)."""
    from cnsim.algorithms.paint_dense import PaintDense
    from cnsim.server.object_index import ObjectIndex
    from cnsim.subscriptions.workload import Updates

    dense = PaintDense(ObjectIndex(np.asarray(x, np.float64), np.asarray(y, np.float64)), k)
    out = []
    for i, y_new in stream:
        upd = Updates(np.array([i]), np.array([float(x[i])]), np.array([float(dense.objects.y[i])]),
                      np.array([y_new]))  # fmt: skip
        out.append(len(dense.process(upd)))
    return out


def bound(n: int, k: int, d: int) -> dict[str, float]:
    """Theorem 8's growth terms for n objects, k and d."""
    z = k * math.log(n) ** (d - 1) / math.factorial(d - 1)
    return {"theorem8": (k * math.log(n) ** (d - 1)) ** (d + 1), "z": z, "z_pow_d1": z ** (d + 1)}


def measure(approach, stream, sky=None) -> dict:
    """Per-event means of one approach over ``stream`` (censored events left out)."""
    msgs, censored, sizes, per_event, slabs = [], 0, [], [], []
    counter = approach.counter
    started = time.perf_counter()
    for i, y_new in stream:
        try:
            msgs.append(len(approach.process(np.array([i]), np.array([y_new]))))
            per_event.append(msgs[-1])
            slabs.append(approach._slabs)  # visited by the event's partitions
        except RegionTooLarge:
            per_event.append(None)
            censored += 1
            approach.objects.update(i, y_new)  # keep the index in step
        if sky is not None:
            sizes.append(sky(i))
    wall = time.perf_counter() - started
    a = np.array(msgs, np.float64)
    out = {
        "events": len(stream),
        "censored": censored,
        "msgs_mean": float(a.mean()) if len(a) else None,
        "msgs_sem": float(a.std(ddof=1) / np.sqrt(len(a))) if len(a) > 1 else None,
        "msgs_max": float(a.max()) if len(a) else None,
        "msgs_median": float(np.median(a)) if len(a) else None,
        "slabs_mean": _mean(slabs),  # partition work per finished event
        "slabs_max": int(max(slabs)) if slabs else None,
        **{k: v / len(stream) for k, v in counter.as_dict().items()},
        "server_time_s": wall / len(stream),
        "per_event": per_event,  # messages per event, None: censored
    }
    if sizes:
        out["skyband_mean"] = float(np.mean(sizes))
    return out


def compare_engines(d: int, k: int, events: int, n: int = 2_000) -> dict:
    """Paint-Dense with the numba partition and with the Python reference on the same
    events: seconds each and whether every message is identical."""
    x, y, _, _, stream = workload(d, n, 10, events)
    PaintDenseBoxes(ObjectIndexD(x, y), k).process(np.array([0]), np.array([0.5]))  # load
    out, sent = {}, {}
    for engine in ("numba", "python"):
        dense = PaintDenseBoxes(ObjectIndexD(x, y), k, engine=engine)
        started = time.perf_counter()
        sent[engine] = [dense.process(np.array([i]), np.array([v])) for i, v in stream]
        out[f"{engine}_s"] = time.perf_counter() - started
    same = all(np.array_equal(a.boxes, b.boxes) and np.array_equal(a.obj, b.obj)
               and np.array_equal(a.y, b.y)
               for a, b in zip(sent["numba"], sent["python"], strict=True))  # fmt: skip
    msgs = float(np.mean([len(m) for m in sent["numba"]]))
    return {"d": d, "k": k, "events": events, "msgs_mean": msgs, **out,
            "speedup": out["python_s"] / out["numba_s"], "identical": same}  # fmt: skip


def compare_sparse_engines(d: int, k: int, events: int, n: int = 2_000, m: int = 20_000) -> dict:
    """Paint-Sparse with the numba pruned partition and with the Python reference on the
    same events: seconds each, and whether every message and every call count agrees."""
    x, y, l, r, stream = workload(d, n, m, events)
    subs = BoxSubscriptions(l, r)
    PaintSparseBoxes(ObjectIndexD(x, y), subs, k).process(np.array([0]), np.array([0.5]))
    out, sent, calls = {}, {}, {}
    for engine in ("numba", "python"):
        sparse = PaintSparseBoxes(ObjectIndexD(x, y), subs, k, engine=engine)
        started = time.perf_counter()
        sent[engine] = [sparse.process(np.array([i]), np.array([v])) for i, v in stream]
        out[f"{engine}_s"] = time.perf_counter() - started
        calls[engine] = sparse.counter.as_dict()
    same = all(np.array_equal(a.boxes, b.boxes) and np.array_equal(a.obj, b.obj)
               and np.array_equal(a.y, b.y)
               for a, b in zip(sent["numba"], sent["python"], strict=True))  # fmt: skip
    msgs = float(np.mean([len(m) for m in sent["numba"]]))
    return {"d": d, "k": k, "events": events, "msgs_mean": msgs, **out,
            "speedup": out["python_s"] / out["numba_s"], "identical": same,
            "same_calls": calls["numba"] == calls["python"],
            "snaps_per_event": calls["numba"]["calls_snap"] / events}  # fmt: skip


def sparse_wide(quick: bool = False, log: Callable[[str], None] | None = None) -> dict:
    """Paint-Sparse alone on the workloads and events of the d = 3, 4 rows with the
    larger budget ``SPARSE_BUDGET``: its messages per event with fewer events censored."""
    budget = SPARSE_BUDGET_QUICK if quick else SPARSE_BUDGET
    results: dict[int, dict[int, dict]] = {}
    for d in SPARSE_WIDE_DS:
        x, y, l, r, stream = workload(d, N, M, (EVENTS_QUICK if quick else EVENTS)[d])
        subs = BoxSubscriptions(l, r)
        results[d] = {}
        for k in KS:
            row = measure(PaintSparseBoxes(ObjectIndexD(x, y), subs, k, budget=budget), stream)
            results[d][k] = row
            if log is not None:
                log(f"sparse, budget {budget:,}: d={d} k={k}: {row['msgs_mean']} "
                    f"({row['censored']} censored, {row['server_time_s']:.3f}s/event)")  # fmt: skip
    return {"budget_slabs": budget, "results": results}


def dense_wide(d: int, ks: list[int], budget: int,
               log: Callable[[str], None] | None = None) -> dict:  # fmt: skip
    """Paint-Dense alone on the workload and events of row d with a larger ``budget``
    (not part of ``run_bench``: at d = 3 it takes tens of seconds per event); the same
    per-event figures as the main table, plus the skyband sizes."""
    x, y, _, _, stream = workload(d, N, M, EVENTS[d])
    results = {}
    for k in ks:
        dense = PaintDenseBoxes(ObjectIndexD(x, y), k, budget=budget)
        results[k] = row = measure(dense, stream)
        if log is not None:
            log(f"dense, budget {budget:,}: d={d} k={k}: {row['msgs_mean']} "
                f"({row['censored']} censored, {row['server_time_s']:.3f}s/event)")  # fmt: skip
    return {"d": d, "budget_slabs": budget, "results": results}


def _logger(started: float) -> Callable[[str], None]:
    """Progress lines on stderr (stdout carries the headline JSON), with elapsed time."""

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f}s] {msg}", file=sys.stderr, flush=True)

    return log


def _mean(values: list) -> float | None:
    return float(np.mean(values)) if values else None


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Paint-Dense and Paint-Sparse for every d and k on one workload per d."""
    n, m = N, M
    started = time.perf_counter()
    log = _logger(started)
    results: dict[int, dict[int, dict]] = {}
    checks = {}
    for d in DS:  # load the kernels before anything is timed
        x, y, l, r, _ = workload(d, 50, 50, 0)
        for approach in (
            PaintDenseBoxes(ObjectIndexD(x, y), 2),
            PaintSparseBoxes(ObjectIndexD(x, y), BoxSubscriptions(l, r), 2),
        ):
            approach.process(np.arange(4), np.array([0.9, 0.1, 0.5, np.inf]))  # fmt: skip
    for d in DS:
        n_events = (EVENTS_QUICK if quick else EVENTS)[d]
        budget = BUDGET_QUICK if quick else BUDGET
        x, y, l, r, stream = workload(d, n, m, n_events)
        subs = BoxSubscriptions(l, r)
        results[d] = {}
        for k in KS:
            dense = PaintDenseBoxes(ObjectIndexD(x, y), k, budget=budget)
            probe = ObjectIndexD(x, y)

            def sky(i, probe=probe, dense=dense, k=k):  # |U(i)| at the object's new value
                probe.y[:] = dense.objects.y
                return len(probe.skyband(probe.x[i], probe.y[i], i, k, skip=i))

            row = {"paint-dense": measure(dense, stream, sky)}
            row["paint-sparse"] = measure(
                PaintSparseBoxes(ObjectIndexD(x, y), subs, k, budget=budget), stream
            )
            both = [(a, b) for a, b in zip(row["paint-dense"]["per_event"],
                                           row["paint-sparse"]["per_event"], strict=True)
                    if a is not None and b is not None]  # fmt: skip
            row["common_events"] = len(both)
            row["dense_msgs_mean_on_common_events"] = _mean([a for a, _ in both])
            row["sparse_msgs_mean_on_common_events"] = _mean([b for _, b in both])
            b = bound(n, k, d)
            row["bound"] = b
            mean = row["paint-dense"]["msgs_mean"]
            row["dense_over_theorem8"] = None if mean is None else mean / b["theorem8"]
            row["dense_over_z_pow_d1"] = None if mean is None else mean / b["z_pow_d1"]
            results[d][k] = row
            dense_row, sparse_row = row["paint-dense"], row["paint-sparse"]
            log(f"d={d} k={k}: dense {dense_row['msgs_mean']} ({dense_row['censored']} "
                f"censored, {dense_row['server_time_s']:.3f}s/event), sparse "
                f"{sparse_row['msgs_mean']} ({sparse_row['censored']} censored, "
                f"{sparse_row['server_time_s']:.3f}s/event)")  # fmt: skip
            if d == 1:
                one = one_d_messages(x[:, 0], y, k, stream)
                mean_1d = float(np.mean(one))
                checks[k] = {"one_d_msgs_mean": mean_1d,
                             "equal": mean_1d == row["paint-dense"]["msgs_mean"]}  # fmt: skip
    engines = [compare_engines(1, 10, 60), compare_engines(2, 2, 20 if quick else 40)]
    log(f"engines (Paint-Dense): {[(e['d'], e['k'], round(e['speedup'], 1)) for e in engines]}")
    sparse_engines = [compare_sparse_engines(2, 2, 5 if quick else 20),
                      compare_sparse_engines(3, 1, 2 if quick else 5)]  # fmt: skip
    log("engines (Paint-Sparse): "
        f"{[(e['d'], e['k'], round(e['speedup'], 1)) for e in sparse_engines]}")  # fmt: skip
    wide = sparse_wide(quick, log)
    return {
        **provenance("boxes", quick, full),
        "objects": n,
        "subscriptions": m,
        "budget_slabs": BUDGET_QUICK if quick else BUDGET,
        "events": EVENTS_QUICK if quick else EVENTS,
        "engines": engines,
        "sparse_engines": sparse_engines,
        "message_bytes": {d: message_bytes(d) for d in DS},
        "results": results,
        "sparse_wide": wide,
        "d1_vs_1d_paint_dense": checks,
        "headline": {
            f"d={d}": {
                f"k={k}": {
                    "dense": None
                    if row["paint-dense"]["msgs_mean"] is None
                    else round(row["paint-dense"]["msgs_mean"], 1),
                    "censored": row["paint-dense"]["censored"],
                    "sparse": None
                    if row["paint-sparse"]["msgs_mean"] is None
                    else round(row["paint-sparse"]["msgs_mean"], 1),
                    "sparse_censored": row["paint-sparse"]["censored"],
                    "common_events": row["common_events"],
                    "dense_on_common_events": None
                    if row["dense_msgs_mean_on_common_events"] is None
                    else round(row["dense_msgs_mean_on_common_events"], 1),
                    "sparse_on_common_events": None
                    if row["sparse_msgs_mean_on_common_events"] is None
                    else round(row["sparse_msgs_mean_on_common_events"], 1),
                    "theorem8": f"{row['bound']['theorem8']:.3g}",
                }
                for k, row in by_k.items()
            }
            for d, by_k in results.items()
        },
        "wall_s": time.perf_counter() - started,
    }
