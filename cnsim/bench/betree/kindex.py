"""``cnsim bench kindex``: the k-index (RESULTS.md, "k-index: build memory at 1M and
partitions by bound"): build time and peak memory of the two-pass numba build against
the first (materialise-and-lexsort) build, and top-1 / top-5 / full matching time with
the partitions visited by bound against by size.

Every row runs in a process of its own (a build's peak memory is that process's).  A
build row holds the peak RSS of generating the workload, of inserting it into the store
and of the build (the kernel's peak VmHWM reset before each phase), the build's time,
the index size, and the time and a digest of ``count_batch`` and ``top_k_batch(events,
5)`` on the 200 events (old and new must give the same digests).  An order row builds
one index and times ``top_k_batch(events, 1)``, ``top_k_batch(events, 5)`` and
``count_batch(events)`` with ``partition_order`` "bound" and "size" on the same lists,
interleaved, best of 11 passes each in CPU time (the process's, less disturbed by other
jobs on a shared machine than wall time), and checks that the answers are identical.
``mixed``: the workload has one subscription size (8), hence one partition; "mixed"
takes N/5 subscriptions (uniform attributes) of each size 2, 4, 6, 8, 10
(``workload(s, 40, n=N // 5, sub_size=s)``) and 40 events of each, so that there are
partitions to order (an event still meets one: its own group's); ``nested``: the uniform
workload with every subscription cut to its first s predicates, s uniform in 1..8, so
that an event's group spreads over partitions 1..8; ``nested-l1``: the same with every
subscription's weights scaled to sum 1 (so that a small partition's bound can exceed a
larger one's).
"""

from __future__ import annotations

import hashlib
import json
import resource
import subprocess
import sys
import time

import numpy as np

from cnsim.bench import provenance
from cnsim.subscriptions.ranked.boolean import Expressions, KIndex
from cnsim.subscriptions.ranked.boolean.kindex import _build_numpy
from cnsim.subscriptions.ranked.boolean.workload import workload

#: the rows: (build sizes and variants, order size) of the published run (``--full``,
#: also the default) and of ``--quick``
FULL_BUILDS = ((100_000, "new"), (100_000, "old"), (300_000, "new"), (300_000, "old"),
               (1_000_000, "new"))  # fmt: skip
FULL_ORDER_N = 100_000
QUICK_BUILDS = ((2_000, "new"), (2_000, "old"))
QUICK_ORDER_N = 2_000
ORDERS = ("uniform", "zipf", "mixed", "nested", "nested-l1")

#: one row in a process of its own: prints it as a JSON line
CHILD = """
import json, sys
from cnsim.bench.betree import kindex
mode, n, arg = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(json.dumps(kindex.build(n, arg) if mode == "build" else kindex.order(n, arg)))
"""

PASSES = 11  # query passes per order (best of), alternating


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 1e6


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3  # KiB on Linux


def _reset_peak() -> None:
    """Start a new peak (VmHWM) from the current RSS (Linux >= 4.0)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _hwm_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1e3
    raise RuntimeError("no VmHWM in /proc/self/status")


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def _best(f, passes: int) -> float:
    best = np.inf
    for _ in range(passes):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def build(n: int, variant: str) -> dict:
    """One build of ``n`` subscriptions by the two-pass numba build (``new``) or the first
    materialise-and-lexsort one (``old``): peak memory per phase, time, size, digests."""
    warm = KIndex(["a1 between 1 and 3, a2 = 4", "a1 != 3", ""])  # compile outside timing
    warm.count_batch(["a1 = 2, a2 = 4"])
    if variant == "old":
        _build_numpy(warm)
    subs, events, w = workload(0, 200, n=n)
    row = {"n": n, "variant": variant, "peak_workload_mb": _peak_mb()}
    _reset_peak()
    ix = KIndex(domain=(0, int(w["cardinality"]) - 1))
    ix.insert_many(subs)  # stores the subscriptions; the lists are built below
    row["peak_insert_mb"] = _hwm_mb()
    row["rss_before_build_mb"] = _rss_mb()
    _reset_peak()
    t = time.perf_counter()
    if variant == "new":
        ix._build()
    else:
        ix._built = _build_numpy(ix)
        ix._dirty = False
        ix._live_at_build = len(ix)
    row["build_s"] = time.perf_counter() - t
    row["peak_build_mb"] = _hwm_mb()  # store + the workload's subs alive + the build
    row["rss_after_build_mb"] = _rss_mb()
    row.update(ix.stats())
    row["index_mb"] = ix._nbytes() / 1e6
    counts = ix.count_batch(events)
    top5 = ix.top_k_batch(events, 5)
    row["count_s"] = _best(lambda: ix.count_batch(events), 2)
    row["top5_s"] = _best(lambda: ix.top_k_batch(events, 5), 2)
    row["count_digest"] = _digest(counts)
    row["top5_digest"] = _digest(top5)
    row["matches_per_event"] = float(counts.mean())
    return row


def _concat(es: list[Expressions]) -> Expressions:
    """One collection of several (ids in order)."""
    sizes = np.concatenate([np.diff(e.indptr) for e in es])
    vptr = [np.diff(e.vptr) for e in es]
    return Expressions.from_arrays(
        np.concatenate([[0], np.cumsum(sizes)]), np.concatenate([e.attr for e in es]),
        np.concatenate([e.op for e in es]), np.concatenate([e.weight for e in es]),
        np.concatenate([[0], np.cumsum(np.concatenate(vptr))]),
        np.concatenate([e.values for e in es]),
    )  # fmt: skip


def _truncate(e: Expressions, seed: int) -> Expressions:
    """Every expression cut to its first s predicates (attribute order), s uniform in
    1..its size."""
    rng = np.random.default_rng(seed)
    size = np.diff(e.indptr)
    keep_n = rng.integers(1, size + 1)
    pos = np.arange(len(e.attr)) - np.repeat(e.indptr[:-1], size)
    keep = pos < np.repeat(keep_n, size)
    nv = np.diff(e.vptr)[keep]
    vals = np.repeat(keep, np.diff(e.vptr))
    return Expressions.from_arrays(
        np.concatenate([[0], np.cumsum(keep_n)]), e.attr[keep], e.op[keep], e.weight[keep],
        np.concatenate([[0], np.cumsum(nv)]), e.values[vals],
    )  # fmt: skip


def order(n: int, dist: str) -> dict:
    """One index, its partitions visited by bound and by size: top-1, top-5 and matching
    CPU time of each (best of :data:`PASSES`, interleaved), the answers checked equal."""
    if dist == "mixed":
        parts = [workload(s, 40, n=n // 5, sub_size=s) for s in (2, 4, 6, 8, 10)]
        subs = _concat([p[0] for p in parts])
        events = _concat([p[1] for p in parts])
        w = parts[0][2]
    elif dist in ("nested", "nested-l1"):
        subs, events, w = workload(0, 200, n=n)
        subs = _truncate(subs, 1)
        if dist == "nested-l1":  # every subscription's weights scaled to sum 1
            size = np.diff(subs.indptr)
            subs.weight = subs.weight / np.repeat(
                np.add.reduceat(subs.weight, subs.indptr[:-1]), size
            )
    else:
        subs, events, w = workload(0, 200, n=n, dist=dist)
    dom = (0, int(w["cardinality"]) - 1)
    ix = {o: KIndex(domain=dom, partition_order=o) for o in ("bound", "size")}
    ix["bound"].insert_many(subs)
    ix["size"].insert_many(subs)
    ix["bound"]._build()
    ix["size"]._built = ix["bound"]._built  # the same lists; only the visiting order differs
    ix["size"]._dirty = False
    row = {"n": n, "dist": dist, **ix["bound"].stats()}
    jobs = {
        "top1": lambda x: x.top_k_batch(events, 1),
        "top5": lambda x: x.top_k_batch(events, 5),
        "match": lambda x: x.count_batch(events),
    }
    for name, f in jobs.items():
        assert np.array_equal(f(ix["bound"]), f(ix["size"])), name
    best = {(name, o): np.inf for name in jobs for o in ix}
    for _ in range(PASSES):  # interleaved so that every variant sees the same machine
        for name, f in jobs.items():
            for o in ("size", "bound"):
                t = time.process_time()
                f(ix[o])
                best[name, o] = min(best[name, o], time.process_time() - t)
    for (name, o), s in best.items():
        row[f"{name}_{o}_ms"] = 1e3 * s
    return row


def _row(mode: str, n: int, arg: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, mode, str(n), arg], check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    row = json.loads(out.strip().splitlines()[-1])
    print(json.dumps(row), flush=True)
    return row


def run_bench(quick: bool = False, full: bool = False, n: int | None = None) -> dict:
    """Every build row, then every order row (or, with ``n``, both variants' builds and
    the order rows at ``n``)."""
    builds = QUICK_BUILDS if quick else FULL_BUILDS
    order_n = QUICK_ORDER_N if quick else FULL_ORDER_N
    if n is not None:
        builds, order_n = ((n, "new"), (n, "old")), n
    rows = [_row("build", size, variant) for size, variant in builds]
    rows += [_row("order", order_n, dist) for dist in ORDERS]
    headline = {}
    for r in rows:
        if "variant" in r:
            headline[f"build {r['n']:,} {r['variant']}"] = (
                f"{r['build_s']:.1f} s, peak {r['peak_build_mb']:,.0f} MB"
            )
        else:
            headline[f"order {r['dist']}: top-1 ms size / bound"] = (
                f"{r['top1_size_ms']:.1f} / {r['top1_bound_ms']:.1f}"
            )
    return {**provenance("kindex", quick, full, {"n": n}), "rows": rows, "headline": headline}
