"""Meghdoot/CAN zones over the D-dimensional subscription space S, built by successive
broker joins (seed 003 §V "Network setup").

S is the cube ``[lo, hi]^D`` of the subscription kind's points
(:class:`cnsim.subscriptions.kinds.base.SubscriptionKind`): 2-d for 1-d ranges
``(l, r)``, 3-d for 1.5-d ranges ``(l1, r1, r2)``, 2d-dimensional for boxes over d
attributes ``(l_1, r_1, …, l_d, r_d)``. Subscriptions only live where every
``ordered`` pair (lower, upper) of dimensions has lower <= upper, but the zones tile
the whole cube. A zone is the half-open box ``[zlo_d, zhi_d)`` in every dimension,
closed on a side lying on S's upper face ``hi`` (so every point of S has exactly one
zone).

Messages. A message is a box given as D pairs ``(lo_d, hi_d)`` (a row of 2D values, in
the column order of the run's messages: 1-d ``(lO, lI, rI, rO)``, 1.5-d
``(lO, lI, rI, rO, vI, vO)``). Each dimension is of one of two kinds, fixed per space
by ``lower_open``:

* a *lower bound* of a subscription (l, l1, l_i): the message holds ``lo < p <= hi``
  (seed 003's ``lO < l <= lI``);
* an *upper bound* (r, r1, r2, r_i): the message holds ``lo <= p < hi``
  (``rI <= r < rO``; appendix D's ``vI <= r2 < vO``).

A zone meets a message in dimension d iff

* lower-bound dimension: ``lo < hi``, ``zlo <= hi`` and ``lo < zhi``;
* upper-bound dimension: ``lo < hi``, ``zlo < hi`` and ``lo < zhi`` (``lo <= zhi`` when
  ``zhi`` is S's upper face),

and meets the message iff it meets it in every dimension (:func:`meets`).

Joins. Broker 0 owns S; broker ``j`` joins by splitting one zone in two and taking one
half, so zone ``j`` is owned by broker ``j``. A zone is split across its longest side
(the lowest dimension on ties, so zones halved from a cube cycle through the
dimensions — CAN's split order: l, r, l, … in 2-d; l1, r1, r2, l1, … in 3-d).

- ``mode="random"`` (CAN/Meghdoot): the newcomer picks a uniform random point of the
  valid part of S (each ordered pair's lower coordinate at most its upper one, as the
  min and max of two uniforms; the others uniform: a point elsewhere would only split
  zones that never hold a subscription), splits the zone holding it at the midpoint
  and takes the half holding the point.
- ``mode="load"``: the newcomer splits the zone holding most of the given subscription
  points (ties: the larger volume inside the valid part, then the lower id) at the
  median of its points, so both halves get half the load (with ties at the median, the
  cut goes just below or above the tied block, whichever is more even; if the longest
  side cannot separate the points the other dimensions are tried in order). A zone
  whose points all coincide cannot shed load: it then competes like an empty zone, and
  empty zones are cut at the midpoint of their longest side. The newcomer takes the
  upper half.

The split history is kept as a binary tree in arrays (node ``dim``/``val``/children);
point location walks it in numba. Neighbours (zones sharing a face of positive
(D−1)-measure) are a CSR array.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from cnsim.errors import InputError

ZONE_MODES = ("random", "load")
RANGES = ((True, False), ((0, 1),))  # the S of 1-d ranges: (lower_open, ordered)


@dataclass(frozen=True)
class Zones:
    """A tiling of S = [lo, hi]^D by broker zones: columnar boxes, owners, neighbours
    and the split tree."""

    lo: float
    hi: float
    zlo: np.ndarray  # float64 (Z, D)
    zhi: np.ndarray  # float64 (Z, D)
    lower_open: np.ndarray  # bool (D,): messages hold (lo, hi] in this dimension
    owner: np.ndarray  # int32 (Z,): broker owning each zone
    nbr_ptr: np.ndarray  # int64 (Z + 1,): neighbours of z are nbr_idx[nbr_ptr[z]:nbr_ptr[z+1]]
    nbr_idx: np.ndarray  # int32, sorted within each zone
    node_dim: np.ndarray  # int8 (T,): split dimension, -1 at leaves
    node_val: np.ndarray  # float64 (T,): coordinates >= val go right
    node_left: np.ndarray  # int32 (T,)
    node_right: np.ndarray  # int32 (T,)
    node_zone: np.ndarray  # int32 (T,): zone of a leaf, -1 for inner nodes
    server_zone: int  # zone holding the centre of S (its owner is the server)

    @property
    def n_zones(self) -> int:
        """Number of zones (= brokers)."""
        return len(self.zlo)

    @property
    def dims(self) -> int:
        """D, the dimensions of S."""
        return self.zlo.shape[1]

    @property
    def server(self) -> int:
        """Broker acting as the server (owner of the zone at the centre of S)."""
        return int(self.owner[self.server_zone])

    def zone_of(self, points) -> np.ndarray:
        """Zone (int32) holding each point, a row of ``points`` (N, D) — or the D
        coordinate arrays of the points, ``(l, r)`` in 2-d."""
        p = _as_points(points, self.dims)
        _check_in_box(p, self.lo, self.hi)
        t = self
        return _locate(p, t.node_dim, t.node_val, t.node_left, t.node_right, t.node_zone)

    def neighbours(self, zone: int) -> np.ndarray:
        """Zones sharing a face of positive measure with ``zone``."""
        return self.nbr_idx[self.nbr_ptr[zone] : self.nbr_ptr[zone + 1]]

    def volumes(self) -> np.ndarray:
        """Volume of every zone."""
        return np.prod(self.zhi - self.zlo, axis=1)

    def meeting(self, box) -> np.ndarray:
        """Mask of the zones meeting message ``box`` (2D values)."""
        q = np.ascontiguousarray(box, np.float64)
        return _meeting(self.zlo, self.zhi, q, self.lower_open, self.hi)


def _as_points(points, d: int) -> np.ndarray:
    """(N, D) points from an (N, D) array or a tuple of D coordinate arrays."""
    if isinstance(points, tuple | list):
        points = np.column_stack([np.asarray(c, np.float64) for c in points])
    return np.ascontiguousarray(points, np.float64).reshape(-1, d)


def _check_in_box(p: np.ndarray, lo: float, hi: float) -> None:
    bad = ~((p >= lo) & (p <= hi)).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = f"[{lo}, {hi}]^{p.shape[1]}"
        raise InputError(f"point {tuple(float(v) for v in p[i])!r} lies outside S = {where}")


@numba.njit(cache=True, inline="always")
def meets(zlo, zhi, q, lower_open, box_hi) -> bool:
    """Whether the half-open zone ``[zlo, zhi)`` (closed on S's upper face ``box_hi``)
    shares a point with message box ``q`` (pairs ``(lo_d, hi_d)``, see the module
    docstring)."""
    for d in range(len(zlo)):
        lo, hi = q[2 * d], q[2 * d + 1]
        if not lo < hi:
            return False
        if lower_open[d]:
            if not (zlo[d] <= hi and lo < zhi[d]):
                return False
        elif not (zlo[d] < hi and (lo < zhi[d] or (zhi[d] == box_hi and lo <= zhi[d]))):
            return False
    return True


@numba.njit(cache=True)
def _meeting(zlo, zhi, q, lower_open, box_hi):  # pragma: no cover - numba
    out = np.empty(len(zlo), np.bool_)
    for z in range(len(zlo)):
        out[z] = meets(zlo[z], zhi[z], q, lower_open, box_hi)
    return out


def build_zones(
    n_zones: int,
    mode: str = "random",
    seed: int | np.random.Generator = 0,
    points=None,
    lo: float = 0.0,
    hi: float = 1.0,
    lower_open=RANGES[0],
    ordered: tuple[tuple[int, int], ...] = RANGES[1],
) -> Zones:
    """Zones of ``n_zones`` brokers joining one after another over ``[lo, hi]^D``,
    ``D = len(lower_open)`` (default: the S of 1-d ranges); ``ordered`` lists the
    (lower, upper) dimension pairs whose points satisfy lower <= upper; ``points``
    (N, D), or D coordinate arrays, are the subscriptions ``mode="load"`` balances
    (see the module docstring)."""
    lower_open = np.asarray(lower_open, np.bool_)
    _check_args(n_zones, mode, lo, hi)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    b = _Builder(n_zones, len(lower_open), lo, hi)
    if mode == "random":
        _join_random(b, n_zones, ordered, rng)
    else:
        p = np.empty((0, len(lower_open))) if points is None else _as_points(points, b.d)
        _check_in_box(p, lo, hi)
        _join_load(b, n_zones, ordered, p)
    return b.finish(lower_open)


def _check_args(n_zones: int, mode: str, lo: float, hi: float) -> None:
    if mode not in ZONE_MODES:
        raise InputError(f"zones.mode = {mode!r}: must be one of {list(ZONE_MODES)}")
    if isinstance(n_zones, bool) or not isinstance(n_zones, int | np.integer) or n_zones < 1:
        raise InputError(f"zones.n_zones = {n_zones!r}: must be an integer >= 1")
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise InputError(f"zones.domain = ({lo!r}, {hi!r}): must be finite with lo < hi")


class _Builder:
    """Mutable zone boxes and split-tree arrays while brokers join."""

    def __init__(self, n_zones: int, d: int, lo: float, hi: float) -> None:
        self.lo, self.hi, self.d, self.count = lo, hi, d, 1
        self.box = np.empty((n_zones, 2 * d))  # per dimension: zlo, zhi
        self.box[0, 0::2], self.box[0, 1::2] = lo, hi
        n_nodes = 2 * n_zones - 1
        self.dim = np.full(n_nodes, -1, np.int8)
        self.val = np.zeros(n_nodes)
        self.left = np.full(n_nodes, -1, np.int32)
        self.right = np.full(n_nodes, -1, np.int32)
        self.zone = np.full(n_nodes, -1, np.int32)
        self.zone[0] = 0
        self.leaf = np.zeros(n_zones, np.int32)  # tree leaf of each zone
        self.n_nodes = 1

    def longest_side(self, z: int) -> int:
        """The dimension to split zone ``z`` across (the lowest of the longest)."""
        return int(np.argmax(self.box[z, 1::2] - self.box[z, 0::2]))

    def split(self, z: int, dim: int, val: float, newcomer_high: bool) -> int:
        """Split zone ``z`` at ``val`` across ``dim``; the next zone id takes one half."""
        new = self.count
        self.count += 1
        low_zone, high_zone = (z, new) if newcomer_high else (new, z)
        low, high = self.box[z].copy(), self.box[z].copy()
        low[2 * dim + 1] = val
        high[2 * dim] = val
        self.box[low_zone], self.box[high_zone] = low, high
        node = self.leaf[z]
        kids = (self.n_nodes, self.n_nodes + 1)
        self.n_nodes += 2
        self.dim[node], self.val[node], self.zone[node] = dim, val, -1
        self.left[node], self.right[node] = kids
        for kid, zone in zip(kids, (low_zone, high_zone), strict=True):
            self.zone[kid] = zone
            self.leaf[zone] = kid
        return new

    def finish(self, lower_open: np.ndarray) -> Zones:
        """Freeze into a Zones (neighbour table, server zone)."""
        box = self.box[: self.count]
        zlo, zhi = np.ascontiguousarray(box[:, 0::2]), np.ascontiguousarray(box[:, 1::2])
        ptr, idx = _neighbour_table(zlo, zhi)
        t = slice(0, self.n_nodes)
        tree = [self.dim[t].copy(), self.val[t].copy(), self.left[t].copy(),
                self.right[t].copy(), self.zone[t].copy()]  # fmt: skip
        centre = np.full((1, self.d), (self.lo + self.hi) / 2)
        server = int(_locate(centre, *tree)[0])
        owner = np.arange(self.count, dtype=np.int32)
        arrays = [zlo, zhi, lower_open, owner, ptr, idx, *tree]
        for a in arrays:
            a.setflags(write=False)
        return Zones(self.lo, self.hi, *arrays, server_zone=server)


def _join_random(b: _Builder, n_zones: int, ordered, rng: np.random.Generator) -> None:
    u = b.lo + (b.hi - b.lo) * rng.random((n_zones - 1, b.d))
    for lower, upper in ordered:  # min/max of two uniforms is uniform on the half a <= b
        u[:, lower], u[:, upper] = np.minimum(u[:, lower], u[:, upper]), np.maximum(
            u[:, lower], u[:, upper]
        )
    for j in range(n_zones - 1):
        node = 0
        while b.dim[node] >= 0:
            node = b.right[node] if u[j, b.dim[node]] >= b.val[node] else b.left[node]
        z = int(b.zone[node])
        s = b.longest_side(z)
        cut = 0.5 * (b.box[z, 2 * s] + b.box[z, 2 * s + 1])
        if not b.box[z, 2 * s] < cut < b.box[z, 2 * s + 1]:
            raise InputError(f"zones.n_zones = {n_zones}: zones became too thin to split")
        b.split(z, s, cut, newcomer_high=u[j, s] >= cut)


def _join_load(b: _Builder, n_zones: int, ordered, p: np.ndarray) -> None:
    perm = np.arange(len(p))  # points grouped by zone: zone z owns perm[start[z]:end[z]]
    start = np.zeros(n_zones, np.int64)
    end = np.zeros(n_zones, np.int64)
    end[0] = len(p)
    # Zones whose points all coincide: no split lowers their load, so they compete by volume.
    stuck = np.zeros(n_zones, np.bool_)
    while b.count < n_zones:
        k = b.count
        load = np.where(stuck[:k], 0, end[:k] - start[:k])
        valid = _valid_volume(b.box[:k], ordered)
        z = int(np.lexsort((np.arange(k), -valid, -load))[0])
        seg = perm[start[z] : end[z]]
        cut = _load_split(b, z, p, seg[:0] if stuck[z] else seg)
        if cut is None:
            stuck[z] = True
            continue
        dim, val = cut
        new = b.split(z, dim, val, newcomer_high=True)
        high = p[seg, dim] >= val
        perm[start[z] : end[z]] = np.concatenate([seg[~high], seg[high]])
        mid = end[z] - int(high.sum())
        start[new], end[new] = mid, end[z]
        end[z] = mid
        stuck[new] = stuck[z]


def _load_split(b: _Builder, z: int, p: np.ndarray, seg: np.ndarray) -> tuple[int, float] | None:
    """Dimension and value cutting zone ``z``'s points ``seg`` in half (None: inseparable);
    the midpoint of the longest side when ``seg`` is empty."""
    first = b.longest_side(z)
    if len(seg) == 0:
        val = 0.5 * (b.box[z, 2 * first] + b.box[z, 2 * first + 1])
        if not b.box[z, 2 * first] < val < b.box[z, 2 * first + 1]:
            raise InputError("zones: a zone became too thin to split (too many brokers)")
        return first, float(val)
    for dim in (first, *(d for d in range(b.d) if d != first)):
        val = _balanced_cut(p[seg, dim], b.box[z, 2 * dim], b.box[z, 2 * dim + 1])
        if val is not None:
            return dim, val
    return None


def _balanced_cut(v: np.ndarray, lo: float, hi: float) -> float | None:
    """A value strictly inside (lo, hi) between two distinct values of ``v``, nearest the median
    (points ``>= value`` go to the upper half); None if all values are equal."""
    n = len(v)
    m = n // 2
    if n < 2:
        return None
    part = np.partition(v, [m - 1, m])
    cuts = []
    if part[m - 1] < part[m]:
        cuts.append((0, 0.5 * (part[m - 1] + part[m])))
    else:  # ties at the median: cut just below or just above the tied block
        med = part[m]
        below, above = v[v < med], v[v > med]
        if len(below):
            cuts.append((abs(len(below) - n / 2), 0.5 * (below.max() + med)))
        if len(above):
            cuts.append((abs(n - len(above) - n / 2), 0.5 * (med + above.min())))
    for _, val in sorted(cuts):
        if lo < val < hi:
            return float(val)
    return None


def _valid_volume(box: np.ndarray, ordered) -> np.ndarray:
    """Volume of each zone box (rows of (zlo, zhi) pairs) inside the valid part of S:
    per ordered pair the area of its 2-d projection inside lower <= upper, times the
    other sides."""
    out = np.ones(len(box))
    paired = set()
    for lower, upper in ordered:
        out *= _valid_area(box[:, [2 * lower, 2 * lower + 1, 2 * upper, 2 * upper + 1]])
        paired.update((lower, upper))
    for d in range(box.shape[1] // 2):
        if d not in paired:
            out *= box[:, 2 * d + 1] - box[:, 2 * d]
    return out


def _valid_area(box: np.ndarray) -> np.ndarray:
    """Area of each box ``[a,b] x [c,d]`` inside the half ``l <= r``."""
    a, b, c, d = box.T
    # l below c: the full height d - c; l in [max(a, c), min(b, d)]: height d - l.
    below = np.clip(np.minimum(b, c) - a, 0, None) * (d - c)
    l1, l2 = np.maximum(a, c), np.minimum(b, d)
    above = np.where(l2 > l1, d * (l2 - l1) - 0.5 * (l2**2 - l1**2), 0.0)
    return below + above


@numba.njit(cache=True)
def _locate(p, dim, val, left, right, zone):  # pragma: no cover - numba
    out = np.empty(len(p), np.int32)
    for i in range(len(p)):
        node = 0
        while dim[node] >= 0:
            node = right[node] if p[i, dim[node]] >= val[node] else left[node]
        out[i] = zone[node]
    return out


@numba.njit(cache=True)
def _neighbour_table(zlo, zhi):  # pragma: no cover - numba
    """CSR neighbour lists: zones touching in one dimension and overlapping with
    positive length in every other (sorted within each zone). O(Z² D): built once."""
    z, d = zlo.shape
    count = np.zeros(z + 1, np.int64)
    for pass_ in range(2):
        if pass_ == 1:
            for i in range(z):
                count[i + 1] += count[i]
            idx = np.empty(count[z], np.int32)
            fill = count[:z].copy()
        for i in range(z):
            for j in range(z):
                if i == j:
                    continue
                touch = 0
                ok = True
                for e in range(d):
                    if zhi[i, e] == zlo[j, e] or zhi[j, e] == zlo[i, e]:
                        touch += 1
                    elif not (zlo[i, e] < zhi[j, e] and zlo[j, e] < zhi[i, e]):
                        ok = False
                        break
                if ok and touch == 1:
                    if pass_ == 0:
                        count[i + 1] += 1
                    else:
                        idx[fill[i]] = j
                        fill[i] += 1
    return count, idx
