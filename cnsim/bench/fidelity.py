"""``cnsim bench fidelity``: seed 003's Table I–III figures that cnsim did not reproduce,
measured against the readings of §V that could explain them.

Two parts:

* **Paint-Sparse's calls** (Table III): Paint-Sparse at m = 2,000,000 with both of its
  counters — cnsim's (``calls_min_y``, ``calls_snap``: every distinct index query) and
  the paper's reading (:class:`cnsim.algorithms.paint_sparse.PaperCount`) — beside the
  paper's numbers, over several seeds.
* **Messages received** (Tables I and II): the expected number of messages received per
  event is ``m`` times the probability mass, under the subscription distribution, of the
  rectangles an exact approach sends (Paint-Dense tiles every affected subscription's
  notifications exactly). For a given event stream this is computed without drawing any
  subscription, for several readings of "uniform in S" at once, so long streams (the
  statistic is heavy-tailed) are cheap; one real run at m = 2,000,000 checks it. The same
  masses give Unicast's candidates (Table III), the affected subscriptions, Paint-Dense(1)'s
  redundancy and CN-Relax's (Table II).

Readings of "the subscriptions are uniformly distributed in S" (S = {(l, r): l <= r}):

* ``triangle``: uniform over the half-square (the same as two uniform endpoints, sorted);
  density 2 — cnsim's ``uniform``;
* ``length``: a uniform length w, then l uniform in [0, 1 - w]; density 1 / (1 - (r - l));
* ``left``: l uniform, then r uniform in [l, 1]; density 1 / (1 - l).

Readings of the update rule ("increased or decreased, each with 0.5 probability. The new
y-value is then chosen uniformly random from the possible range of y-values"):

* ``uniform``: the side with probability 1/2, the new y uniform on that side (cnsim's);
  its stationary y-distribution is the arcsine law Beta(1/2, 1/2);
* ``redraw``: the new y uniform over the whole range (the side is where it lands);
  stationary distribution uniform;
* ``volatile``: a random walk (Gaussian steps of sd 1/8 of the range, reflected).

Initial y: ``uniform`` (cnsim's), or ``stationary`` (the update rule's stationary law).
"""

from __future__ import annotations

import time

import numba
import numpy as np

from cnsim.algorithms import regions
from cnsim.algorithms.paint_dense import PaintDense
from cnsim.algorithms.paint_sparse import PaintSparse
from cnsim.bench import provenance
from cnsim.server.object_index import EAST, WEST, ObjectIndex
from cnsim.simulations.seeds import Seeds
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.workload import generate_events, generate_objects, generate_subscriptions

KS = [1, 2, 5, 10, 15, 20]
M = 2_000_000
N_OBJECTS = 10_000
READINGS = ("triangle", "length", "left")
# Seed 003, m = 2,000,000, k = 1, 2, 5, 10, 15, 20.
PAPER = {
    "messages_received": [444.141, 939.76, 2211.14, 4190.21, 6082.94, 7904.26],  # Table I
    "redundancy_paint_sparse_1": [0, 0.16, 0.29, 0.30, 0.32, 0.34],  # Table II
    "redundancy_cn_relax": [1440.2, 680.14, 288.49, 151.76, 104.23, 79.98],  # Table II
    "paint_dense_min_y": [1.12, 1.73, 3.57, 6.60, 9.63, 12.63],  # Table III
    "paint_sparse_min_y": [0.72744, 1.08988, 2.59596, 5.5568, 8.57692, 11.58048],
    "paint_sparse_snap": [1.2284, 2.95254, 12.06538, 40.69192, 84.65234, 143.20416],
    "unicast_min_y": [444.141, 1086.44, 2846.1, 5453.64, 8032.39, 10587.4],
}


# -- probability mass of message rectangles under each reading ------------------------------


def _h(t: np.ndarray) -> np.ndarray:
    # A second antiderivative of 1 / (1 - t) (the ``length`` density along r - l = t).
    s = np.clip(1.0 - t, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, s * np.log(np.where(s > 0, s, 1.0)), 0.0) + t


def mass(rects: np.ndarray, reading: str) -> np.ndarray:
    """Probability that a subscription drawn by ``reading`` lies in each rectangle
    ``(lO, lI, rI, rO)`` (shape (M, 4)) of S; the rectangles must have ``lI <= rI``
    (every Paint and CN-Relax message does: its ranges contain the object's x)."""
    rects = np.asarray(rects, np.float64).reshape(-1, 4)
    a = np.clip(rects[:, 0], 0.0, 1.0)
    b = np.clip(rects[:, 1], 0.0, 1.0)
    c = np.clip(rects[:, 2], 0.0, 1.0)
    d = np.clip(rects[:, 3], 0.0, 1.0)
    empty = (b <= a) | (d <= c)
    if reading == "triangle":
        out = 2.0 * (b - a) * (d - c)
    elif reading == "length":
        out = _h(d - a) - _h(c - a) - _h(d - b) + _h(c - b)
    elif reading == "left":
        with np.errstate(divide="ignore"):
            out = (d - c) * (np.log1p(-a) - np.log1p(-np.minimum(b, np.nextafter(1.0, 0))))
    else:
        raise ValueError(f"unknown reading {reading!r}; allowed: {', '.join(READINGS)}")
    return np.where(empty, 0.0, np.maximum(out, 0.0))


def draw_subscriptions(rng: np.random.Generator, m: int, reading: str):
    """``m`` subscriptions ``(l, r)`` drawn by ``reading`` (for checking :func:`mass`)."""
    if reading == "triangle":
        return generate_subscriptions(rng, m, "uniform")
    if reading == "length":
        w = rng.random(m)
        l = rng.random(m) * (1.0 - w)
        return l, l + w
    if reading == "left":
        l = rng.random(m)
        return l, l + rng.random(m) * (1.0 - l)
    raise ValueError(f"unknown reading {reading!r}")


# -- event streams ----------------------------------------------------------------------------


def workload(seed: int, n_events: int, update: str, initial: str):
    """Objects and an event stream of seed 003 §V under one reading (x uniform), as
    ``cnsim run`` draws them with ``objects.y_distribution = initial`` and
    ``events.update = update``."""
    seeds = Seeds(seed)
    x, y = generate_objects(seeds.rng("objects"), N_OBJECTS, "uniform", initial, update)
    ev = generate_events(seeds.rng("events"), y, n_events, update, 1.0, (0.0, 0.0, 0.0), x)
    return x, y, ev


def delivery_masses(k: int, x, y, ev) -> dict[str, np.ndarray]:
    """Per event and reading: the probability mass of Paint-Dense's messages (exact
    deliveries), of Paint-Dense(1)'s, of the affected subscriptions (one message each, as
    Unicast sends), of Unicast's candidate rectangle (ℓ, x_i] × [x_i, r) and of CN-Relax's
    message; plus Paint-Dense's min_y calls and messages."""
    dense, dense1 = PaintDense(ObjectIndex(x, y), k), PaintDense(ObjectIndex(x, y), k, 1.0)
    n = len(ev)
    parts: dict[str, list] = {"exact": [], "eps1": [], "affected": [], "candidates": []}
    owner: dict[str, list] = {key: [] for key in parts}
    min_y = np.zeros(n, np.int64)
    msgs = np.zeros(n, np.int64)
    for e in range(n):
        u = ev.updates(e, e + 1)
        before = dense.counter.min_y
        exact = dense.process(u)
        min_y[e] = dense.counter.min_y - before
        msgs[e] = len(exact)
        parts["exact"].append(exact.rects)
        parts["eps1"].append(dense1.process(u).rects)
        i, x_i, y_old, y_new = int(u.obj[0]), float(u.x[0]), float(u.y_old[0]), float(u.y_new[0])
        low = min(y_old, y_new)  # the larger influence region: the one at the lower y
        L = dense.objects.first_k(x_i, low, WEST, k, i)
        R = dense.objects.first_k(x_i, low, EAST, k, i)
        parts["affected"].append(np.array(regions.influence_region(x_i, L, R, k)).reshape(-1, 4))
        lo, hi = regions.influence_interval(x_i, L, R, k)
        parts["candidates"].append(np.array([[lo, x_i, x_i, hi]]))
    out: dict[str, np.ndarray] = {"dense_min_y": min_y, "dense_msgs": msgs}
    relax = np.stack([np.full(n, -np.inf), ev.x, ev.x, np.full(n, np.inf)], axis=1)
    for key, rects in parts.items():
        owner[key] = np.repeat(np.arange(n), [len(r) for r in rects])
        rects = np.concatenate(rects) if rects else np.empty((0, 4))
        for reading in READINGS:
            out[f"{key}_{reading}"] = np.bincount(owner[key], mass(rects, reading), n)
    for reading in READINGS:
        out[f"relax_{reading}"] = mass(relax, reading)
    return out


def distribution(values: np.ndarray) -> dict:
    """Mean, quantiles and the share of the mean from the top 1% of events."""
    v = np.sort(np.asarray(values, np.float64))
    total = v.sum()
    top = v[len(v) - max(1, len(v) // 100) :].sum()
    q = np.quantile(v, [0.5, 0.9, 0.99, 0.999]) if len(v) else [0.0] * 4
    return {
        "mean": float(v.mean()) if len(v) else 0.0,
        "median": float(q[0]),
        "p90": float(q[1]),
        "p99": float(q[2]),
        "p99.9": float(q[3]),
        "max": float(v[-1]) if len(v) else 0.0,
        "top1pct_share": float(top / total) if total else 0.0,
    }


def readings_table(seeds: list[int], n_events: int, combos, ks=KS) -> dict:
    """For each update rule and initial y: per k and subscription reading, the expected
    messages received per event (× M) and the other figures, per seed and pooled."""
    out = {}
    for update, initial in combos:
        rows = {}
        for k in ks:
            per_seed = []
            for seed in seeds:
                x, y, ev = workload(seed, n_events, update, initial)
                per_seed.append(delivery_masses(k, x, y, ev))
            pooled = {key: np.concatenate([s[key] for s in per_seed]) for key in per_seed[0]}
            row: dict = {
                "dense_min_y": float(pooled["dense_min_y"].mean()),
                "dense_msgs": float(pooled["dense_msgs"].mean()),
            }
            for reading in READINGS:
                exact = pooled[f"exact_{reading}"]
                row[reading] = {
                    "messages_received": M * float(exact.mean()),
                    "per_seed": [M * float(s[f"exact_{reading}"].mean()) for s in per_seed],
                    "affected": M * float(pooled[f"affected_{reading}"].mean()),
                    "unicast_candidates": M * float(pooled[f"candidates_{reading}"].mean()),
                    "redundancy_paint_dense_1": float(
                        pooled[f"eps1_{reading}"].sum() / exact.sum() - 1
                    ),
                    "redundancy_cn_relax": float(
                        pooled[f"relax_{reading}"].sum() / exact.sum() - 1
                    ),
                    "cn_relax_received": M * float(pooled[f"relax_{reading}"].mean()),
                }
            tri = M * pooled["exact_triangle"]
            row["distribution_triangle"] = distribution(tri)
            # How the mean depends on the run length: the mean over the first N events.
            row["mean_by_length_triangle"] = {
                int(n): float(np.mean([M * s["exact_triangle"][:n].mean() for s in per_seed]))
                for n in (100, 1_000, 10_000, 100_000, n_events)
                if n <= n_events
            }
            rows[k] = row
        out[f"{update}/{initial}"] = rows
    return out


# -- the exact expectation over the next event, given the objects --------------------------
# The heavy tail of messages received comes from the new y of a rank-raising update: the
# lower it lands, the more ranges it tops. Given the objects, the expectation over the next
# event (which object, which side, which new y) is an integral over the new y of a step
# function, computed exactly here: for object i at height t, D(i, t) is the mass of its
# influence region IR(i) (its first k objects below t on each side) and C(i, t) that of
# Unicast's candidate rectangle (ℓ_k, x_i] × [x_i, r_k). Sweeping t upwards over the other
# objects' y-values changes IR(i) only when an object enters the first k of its side.


@numba.njit(cache=True)
def _mass1(reading, a, b, c, d):
    a, b, c, d = max(a, 0.0), min(b, 1.0), max(c, 0.0), min(d, 1.0)
    if b <= a or d <= c:
        return 0.0
    if reading == 0:
        return 2.0 * (b - a) * (d - c)
    if reading == 1:
        return max(_h1(d - a) - _h1(c - a) - _h1(d - b) + _h1(c - b), 0.0)
    return (d - c) * (np.log1p(-a) - np.log1p(-min(b, 1.0 - 1e-16)))


@numba.njit(cache=True)
def _h1(t):
    s = min(max(1.0 - t, 0.0), 1.0)
    return (s * np.log(s) if s > 0 else 0.0) + t


@numba.njit(cache=True)
def _region(reading, x_i, west, cw, east, ce, k):
    # D: the strips of IR(i) (regions.influence_region); C: (ℓ_k, x_i] × [x_i, r_k).
    d = 0.0
    for p in range(min(cw, k - 1) + 1):
        hi = x_i if p == 0 else x_i - west[p - 1]
        lo = x_i - west[p] if p < cw else -np.inf
        q = k - p
        r = x_i + east[q - 1] if q <= ce else np.inf
        d += _mass1(reading, lo, hi, x_i, r)
    lo = x_i - west[k - 1] if cw >= k else -np.inf
    r = x_i + east[k - 1] if ce >= k else np.inf
    return d, _mass1(reading, lo, x_i, x_i, r)


@numba.njit(cache=True)
def _insert(dist, count, k, v):
    if count == k and v >= dist[k - 1]:
        return count, False
    j = count if count < k else k - 1
    while j > 0 and dist[j - 1] > v:
        dist[j] = dist[j - 1]
        j -= 1
    dist[j] = v
    return min(count + 1, k), True


@numba.njit(cache=True)
def _regions(x_i, west, cw, east, ce, k, d, c):
    for reading in range(3):
        d[reading], c[reading] = _region(reading, x_i, west, cw, east, ce, k)


@numba.njit(cache=True)
def _expected(x, y, k):
    """Per object i and reading: ∫_0^{y_i} D dt, ∫_{y_i}^1 D dt, D(i, y_i), and the same
    for C."""
    n = len(x)
    order = np.argsort(y)
    out = np.zeros((n, 3, 6))
    west, east = np.empty(k), np.empty(k)
    d, c = np.empty(3), np.empty(3)
    for i in range(n):
        x_i, y_i = x[i], y[i]
        cw = ce = 0
        _regions(x_i, west, cw, east, ce, k, d, c)
        t_prev = 0.0
        for jj in range(n + 1):
            t = y[order[jj]] if jj < n else 1.0
            j = order[jj] if jj < n else -1
            if j == i:
                continue
            # [t_prev, t): D and C are constant; split the piece at y_i
            cut = min(max(y_i, t_prev), t)
            at = t_prev <= y_i < t or (jj == n and y_i >= t_prev)
            for g in range(3):
                out[i, g, 0] += d[g] * (cut - t_prev)
                out[i, g, 1] += d[g] * (t - cut)
                out[i, g, 3] += c[g] * (cut - t_prev)
                out[i, g, 4] += c[g] * (t - cut)
                if at:
                    out[i, g, 2], out[i, g, 5] = d[g], c[g]
            t_prev = t
            if j < 0:
                break
            if x[j] < x_i:
                cw, changed = _insert(west, cw, k, x_i - x[j])
            elif x[j] > x_i:
                ce, changed = _insert(east, ce, k, x[j] - x_i)
            else:
                changed = False
            if changed:
                _regions(x_i, west, cw, east, ce, k, d, c)
    return out


def expected_next_event(x, y, k: int, update: str = "uniform") -> dict:
    """Given the objects ``(x, y)``, the expected messages received by the next event per
    subscription (× m for a count), exactly, for each reading of "uniform in S": exact
    deliveries (IR_new on a raise; IR_old and IR_old minus IR_new on a lowering), affected
    subscriptions, Unicast's candidates and CN-Relax's deliveries. ``update`` is the rule
    drawing the new y (``uniform``: side with probability 1/2, uniform on it; ``redraw``)."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    res = {}
    every = _expected(x, y, k)
    for code, reading in enumerate(READINGS):
        lo_d, hi_d, d_at, lo_c, hi_c, c_at = every[:, code, :].T
        if update == "uniform":  # raise: y_new = y u; lower: y_new = y + u (1 - y)
            with np.errstate(divide="ignore", invalid="ignore"):
                raise_d = np.where(y > 0, lo_d / y, d_at)
                raise_c = np.where(y > 0, lo_c / y, c_at)
                lower_d = np.where(y < 1, hi_d / (1 - y), d_at)
            exact = 0.5 * raise_d + 0.5 * (2 * d_at - lower_d)
            affected = 0.5 * raise_d + 0.5 * d_at
            candidates = 0.5 * raise_c + 0.5 * c_at
        elif update == "redraw":  # y_new uniform on [0, 1)
            exact = lo_d + (1 - y) * 2 * d_at - hi_d
            affected = lo_d + (1 - y) * d_at
            candidates = lo_c + (1 - y) * c_at
        else:
            raise ValueError(f"no exact expectation for update rule {update!r}")
        relax = mass(
            np.stack([np.full(len(x), -np.inf), x, x, np.full(len(x), np.inf)], 1), reading
        )
        res[reading] = {
            "exact": float(exact.mean()),
            "affected": float(affected.mean()),
            "candidates": float(candidates.mean()),
            "relax": float(relax.mean()),
        }
    return res


def expected_table(seeds: list[int], ks, combos, times=(0,)) -> dict:
    """:func:`expected_next_event` × M on the objects of each seed after ``t`` events of
    the stream (t in ``times``), for each update rule and initial y."""
    out = {}
    for update, initial in combos:
        rows = {}
        for t in times:
            for k in ks:
                per_seed = []
                for seed in seeds:
                    x, y, ev = workload(seed, t, update, initial)
                    y = y.copy()
                    for o, v in zip(ev.obj.tolist(), ev.y_new.tolist(), strict=True):
                        y[o] = v  # the objects after the first t events
                    per_seed.append(expected_next_event(x, y, k, update))
                rows[f"{t}/{k}"] = {
                    reading: {
                        key: M * float(np.mean([s[reading][key] for s in per_seed]))
                        for key in per_seed[0][reading]
                    }
                    | {"per_seed": [M * s[reading]["exact"] for s in per_seed]}
                    for reading in READINGS
                }
        out[f"{update}/{initial}"] = rows
    return out


# -- Paint-Sparse's calls, and real deliveries ------------------------------------------------


def sparse_calls(seeds: list[int], n_events: int, m: int, initial: str, ks=KS) -> dict:
    """Per k, per seed: Paint-Sparse's calls per event by both of its counts, Paint-Dense's
    min_y, and messages received — counted by reporting Paint-Sparse's and
    Paint-Sparse(1)'s messages against ``m`` drawn subscriptions, beside ``m`` × the
    mass of Paint-Dense's messages (the computed figure of :func:`readings_table`)."""
    out = {}
    for k in ks:
        rows = []
        for seed in seeds:
            x, y, ev = workload(seed, n_events, "uniform", initial)
            l, r = generate_subscriptions(Seeds(seed).rng("subscriptions"), m, "uniform")
            index = SubscriptionIndex(l, r)
            sparse = PaintSparse(ObjectIndex(x, y), index, k)
            sparse1 = PaintSparse(ObjectIndex(x, y), index, k, 1.0)
            dense = PaintDense(ObjectIndex(x, y), k)
            msgs = received = received1 = 0
            expected = 0.0
            for e in range(len(ev)):
                u = ev.updates(e, e + 1)
                exact, eps1 = sparse.process(u), sparse1.process(u)
                msgs += len(exact)
                received += int(index.report(exact.rects)[0][-1]) if len(exact) else 0
                received1 += int(index.report(eps1.rects)[0][-1]) if len(eps1) else 0
                expected += float(mass(dense.process(u).rects, "triangle").sum())
            n = len(ev)
            rows.append(
                {
                    "seed": seed,
                    "dense_min_y": dense.counter.min_y / n,
                    "min_y": sparse.counter.min_y / n,
                    "snap": sparse.counter.snap / n,
                    **{f"paper_{key}": v / n for key, v in sparse.paper.as_dict().items()},
                    "lowering_share": float(np.mean(ev.kind == 1)),
                    "messages": msgs / n,
                    "received": received / n,
                    "received_expected": m * expected / n,
                    "redundancy_paint_sparse_1": received1 / received - 1 if received else 0.0,
                }
            )
        mean = {key: float(np.mean([r[key] for r in rows])) for key in rows[0] if key != "seed"}
        total = sum(r["received"] for r in rows)
        mean["redundancy_paint_sparse_1"] = (
            sum(r["received"] * (1 + r["redundancy_paint_sparse_1"]) for r in rows) / total - 1
            if total
            else 0.0
        )
        out[k] = {"per_seed": rows, "mean": mean}
    return out


def run_bench(quick: bool = False) -> dict:
    """Both parts; ``quick`` shrinks m, the event counts and the seeds."""
    started = time.perf_counter()
    if quick:
        seeds, n_long, n_short, n_calls, m_calls, ks = [1], 1_000, 500, 200, 100_000, [1, 10]
        few, times = ks, (0, 5_000)
    else:
        seeds, n_long, n_short, n_calls, m_calls, ks = [1, 2], 10_000, 5_000, 1_500, M, KS
        few, times = [1, 10, 20], (0, 10_000, 30_000, 100_000)
    combos = [("uniform", "uniform"), ("uniform", "stationary"), ("redraw", "uniform")]
    expected = expected_table(seeds, ks, combos)
    by_time = expected_table(seeds, few, [("uniform", "uniform")], times)
    simulated = {}
    for update, initial, n, these in (
        ("uniform", "uniform", n_long, ks),
        ("uniform", "stationary", n_long, ks),
        ("volatile", "uniform", n_short, few),
    ):
        simulated.update(readings_table(seeds[:1], n, [(update, initial)], these))
    call_seeds = [1, 2, 3][: len(seeds) + 1]
    calls = {"stationary": sparse_calls(call_seeds, n_calls, m_calls, "stationary", ks)}
    return {
        **provenance("fidelity", quick),
        "ks": ks,
        "seeds": seeds,
        "events_simulated": {"long": n_long, "short": n_short},
        "calls_seeds": call_seeds,
        "events_calls": n_calls,
        "m_calls": m_calls,
        "paper": PAPER,
        "expected": expected,
        "expected_by_time": by_time,
        "readings": simulated,
        "sparse_calls": calls,
        "headline": {
            f"expected messages received ({combo})": {
                k: expected[combo][f"0/{k}"]["triangle"]["exact"] for k in ks
            }
            for combo in expected
        },
        "wall_s": time.perf_counter() - started,
    }


def _f(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.2f}" if abs(v) >= 1 else f"{v:.3f}"


def markdown(result: dict) -> str:
    """The tables of benchmarks/RESULTS.md from a result of :func:`run_bench`."""
    ks, paper, out = result["ks"], result["paper"], []
    col = {k: KS.index(k) for k in ks}
    out.append(
        "| update / initial y | k | messages received: triangle / length / left"
        " (paper, Table I) | affected | Unicast candidates (paper, Table III)"
        " | CN-Relax received | CN-Relax redundancy (paper, Table II) |"
    )
    out.append("|---|---|---|---|---|---|---|")
    for combo, rows in result["expected"].items():
        for key, row in rows.items():
            k = int(key.split("/")[1])
            c, t = col[k], row["triangle"]
            recv = " / ".join(_f(row[r]["exact"]) for r in READINGS)
            seeds = ", ".join(_f(v) for v in t["per_seed"])
            out.append(
                f"| {combo} | {k} | **{recv}** [seeds: {seeds}]"
                f" ({_f(paper['messages_received'][c])})"
                f" | {_f(t['affected'])} | {_f(t['candidates'])} ({_f(paper['unicast_min_y'][c])})"
                f" | {_f(t['relax'])} | {_f(t['relax'] / t['exact'] - 1)}"
                f" ({_f(paper['redundancy_cn_relax'][c])}) |"
            )
    out.append("")
    out.append("| events since a uniform start | k | expected messages received (triangle) |")
    out.append("|---|---|---|")
    for rows in result["expected_by_time"].values():
        for key, row in rows.items():
            t, k = key.split("/")
            seeds = ", ".join(_f(v) for v in row["triangle"]["per_seed"])
            out.append(f"| {int(t):,} | {k} | {_f(row['triangle']['exact'])} [{seeds}] |")
    out.append("")
    read = result["readings"]
    out.append(
        "| update / initial y | k | Paint-Dense min_y (paper) | messages received: triangle"
        " / length / left (paper, Table I) | affected | Unicast candidates (paper) |"
        " CN-Relax redundancy (paper) | Paint-Dense(1) redundancy |"
    )
    out.append("|---|---|---|---|---|---|---|---|")
    for combo, rows in read.items():
        for k, row in rows.items():
            k = int(k)
            t = row["triangle"]
            recv = " / ".join(_f(row[r]["messages_received"]) for r in READINGS)
            out.append(
                f"| {combo} | {k} | {_f(row['dense_min_y'])}"
                f" ({_f(paper['paint_dense_min_y'][col[k]])})"
                f" | {recv} ({_f(paper['messages_received'][col[k]])})"
                f" | {_f(t['affected'])} | {_f(t['unicast_candidates'])}"
                f" ({_f(paper['unicast_min_y'][col[k]])})"
                f" | {_f(t['redundancy_cn_relax'])} ({_f(paper['redundancy_cn_relax'][col[k]])})"
                f" | {_f(t['redundancy_paint_dense_1'])} |"
            )
    out.append("")
    out.append(
        "| update / initial y | k | mean | per seed | median | p90 | p99 | p99.9 | max |"
        " top 1% share | mean of the first 100 / 1,000 / 10,000 events |"
    )
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for combo, rows in read.items():
        for k, row in rows.items():
            d = row["distribution_triangle"]
            seeds = ", ".join(_f(v) for v in row["triangle"]["per_seed"])
            by_n = " / ".join(_f(v) for v in row["mean_by_length_triangle"].values())
            out.append(
                f"| {combo} | {k} | {_f(d['mean'])} | {seeds} | {_f(d['median'])} | {_f(d['p90'])}"
                f" | {_f(d['p99'])} | {_f(d['p99.9'])} | {_f(d['max'])}"
                f" | {d['top1pct_share']:.0%} | {by_n} |"
            )
    for initial, table in result["sparse_calls"].items():
        out.append("")
        out.append(
            f"Initial y {initial}, m = {result['m_calls']:,}, seeds {result['calls_seeds']},"
            f" {result['events_calls']:,} events each:"
        )
        out.append("")
        out.append(
            "| k | Paint-Dense min_y (paper) | Paint-Sparse min_y: cnsim / paper's count (paper)"
            " | snap: cnsim / one per G^dense rectangle / footnote 7 (paper) | messages |"
            " received: counted / computed (Table I) | Paint-Sparse(1) redundancy (Table II) |"
        )
        out.append("|---|---|---|---|---|---|---|")
        for k, row in table.items():
            k, mean = int(k), row["mean"]
            c = col[k]
            spread = lambda key, rows=row["per_seed"]: "–".join(  # noqa: E731
                _f(f(r[key] for r in rows)) for f in (min, max)
            )
            out.append(
                f"| {k} | {_f(mean['dense_min_y'])} ({_f(paper['paint_dense_min_y'][c])})"
                f" | {_f(mean['min_y'])} / **{_f(mean['paper_min_y'])}** [{spread('paper_min_y')}]"
                f" ({_f(paper['paint_sparse_min_y'][c])})"
                f" | {_f(mean['snap'])} / **{_f(mean['paper_snap'])}** [{spread('paper_snap')}]"
                f" / {_f(mean['paper_snap_footnote7'])} ({_f(paper['paint_sparse_snap'][c])})"
                f" | {_f(mean['messages'])} | {_f(mean['received'])} [{spread('received')}]"
                f" / {_f(mean['received_expected'])} ({_f(paper['messages_received'][c])})"
                f" | {mean['redundancy_paint_sparse_1']:.3f}"
                f" ({paper['redundancy_paint_sparse_1'][c]}) |"
            )
    return "\n".join(out)
