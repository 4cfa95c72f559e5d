"""The exact expectation of messages received over the next event, given the objects
(:func:`expected_next_event`): the noise-free value beside a run's heavy-tailed mean
(seed 003 §V, Tables I-III; ``cnsim bench fidelity`` tabulates it over seeds and times)."""

from __future__ import annotations

import numba
import numpy as np

from cnsim.subscriptions.generators.readings import READINGS, mass

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
        lo_d, hi_d, d_at, lo_c, _, c_at = every[:, code, :].T
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
