"""Meghdoot/CAN zones over the subscription space S, built by successive broker joins.

S is the box ``[lo, hi]^2`` of points ``(l, r)``; subscriptions only live in the half
``l <= r`` but the zones tile the whole box. A zone is the half-open box
``[zlo_l, zhi_l) x [zlo_r, zhi_r)``, closed on a side that lies on the box's upper
edge ``hi`` (so every point of the box has exactly one zone).

Joins. Broker 0 owns the whole box; broker ``j`` joins by splitting one zone in two
and taking one half, so zone ``j`` is owned by broker ``j``. A zone is always split
across its longer side (the ``l`` side on ties, which for zones halved from a square
is the CAN alternation l, r, l, ...).

- ``mode="random"`` (CAN/Meghdoot): the newcomer picks a uniform random point of the
  valid half ``l <= r`` (a point of the other half would only split zones that never
  hold a subscription), splits the zone holding it at the midpoint and takes the half
  holding the point.
- ``mode="load"``: the newcomer splits the zone holding most of the given subscription
  points (ties: the larger area inside ``l <= r``, then the lower id) at the median of
  its points, so both halves get half the load (with ties at the median, the cut goes
  just below or above the tied block, whichever is more even; if the longer side cannot
  separate the points the other side is used). A zone whose points all coincide cannot
  shed load: it then competes like an empty zone, and empty zones are cut at the
  midpoint of their longer side. The newcomer takes the upper half.

The split history is kept as a binary tree in arrays (node ``dim``/``val``/children);
point location walks it in numba. Neighbours (zones sharing a boundary segment of
positive length) are a CSR array.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.space import meets_zone

ZONE_MODES = ("random", "load")


@dataclass(frozen=True)
class Zones:
    """A tiling of S by broker zones: columnar boxes, owners, neighbours and split tree."""

    lo: float
    hi: float
    zlo_l: np.ndarray  # float64 (Z,)
    zhi_l: np.ndarray
    zlo_r: np.ndarray
    zhi_r: np.ndarray
    owner: np.ndarray  # int32 (Z,): broker owning each zone
    nbr_ptr: np.ndarray  # int64 (Z + 1,): neighbours of z are nbr_idx[nbr_ptr[z]:nbr_ptr[z+1]]
    nbr_idx: np.ndarray  # int32, sorted within each zone
    node_dim: np.ndarray  # int8 (T,): split dimension (0 = l, 1 = r), -1 at leaves
    node_val: np.ndarray  # float64 (T,): split value; coordinates >= val go right
    node_left: np.ndarray  # int32 (T,)
    node_right: np.ndarray  # int32 (T,)
    node_zone: np.ndarray  # int32 (T,): zone of a leaf, -1 for inner nodes
    server_zone: int  # zone covering the centre of S (its owner is the server)

    @property
    def n_zones(self) -> int:
        """Number of zones (= brokers)."""
        return len(self.zlo_l)

    @property
    def server(self) -> int:
        """Broker acting as the server (owner of the zone at the centre of S)."""
        return int(self.owner[self.server_zone])

    def zone_of(self, l: np.ndarray, r: np.ndarray) -> np.ndarray:
        """Zone (int32) holding each point ``(l[i], r[i])`` of the box."""
        l = np.ascontiguousarray(l, dtype=np.float64)
        r = np.ascontiguousarray(r, dtype=np.float64)
        _check_in_box(l, r, self.lo, self.hi)
        return _locate(
            l, r, self.node_dim, self.node_val, self.node_left, self.node_right, self.node_zone
        )

    def owner_of(self, l: np.ndarray, r: np.ndarray) -> np.ndarray:
        """Gateway broker (int32) of each subscription point ``(l[i], r[i])``."""
        return self.owner[self.zone_of(l, r)]

    def neighbours(self, zone: int) -> np.ndarray:
        """Zones sharing a boundary segment of positive length with ``zone``."""
        return self.nbr_idx[self.nbr_ptr[zone] : self.nbr_ptr[zone + 1]]

    def areas(self) -> np.ndarray:
        """Area of every zone."""
        return (self.zhi_l - self.zlo_l) * (self.zhi_r - self.zlo_r)

    def intersecting(self, lO: float, lI: float, rI: float, rO: float) -> np.ndarray:
        """Mask of zones meeting the message rectangle ``(lO, lI] x [rI, rO)``."""
        return _meeting(self.zlo_l, self.zhi_l, self.zlo_r, self.zhi_r, self.hi, lO, lI, rI, rO)


@numba.njit(cache=True)
def _meeting(zlo_l, zhi_l, zlo_r, zhi_r, box_hi, lO, lI, rI, rO):
    out = np.empty(len(zlo_l), np.bool_)
    for z in range(len(zlo_l)):
        out[z] = meets_zone(zlo_l[z], zhi_l[z], zlo_r[z], zhi_r[z], box_hi, lO, lI, rI, rO)
    return out


def build_zones(
    n_zones: int,
    mode: str = "random",
    seed: int | np.random.Generator = 0,
    points: tuple[np.ndarray, np.ndarray] | None = None,
    lo: float = 0.0,
    hi: float = 1.0,
) -> Zones:
    """Zones of ``n_zones`` brokers joining one after another (see the module docstring)."""
    _check_args(n_zones, mode, lo, hi)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    b = _Builder(n_zones, lo, hi)
    if mode == "random":
        _join_random(b, n_zones, rng)
    else:
        pl, pr = _load_points(points, lo, hi)
        _join_load(b, n_zones, pl, pr)
    return b.finish()


def _check_args(n_zones: int, mode: str, lo: float, hi: float) -> None:
    if mode not in ZONE_MODES:
        raise InputError(f"zones.mode = {mode!r}: must be one of {list(ZONE_MODES)}")
    if isinstance(n_zones, bool) or not isinstance(n_zones, int | np.integer) or n_zones < 1:
        raise InputError(f"zones.n_zones = {n_zones!r}: must be an integer >= 1")
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise InputError(f"zones.domain = ({lo!r}, {hi!r}): must be finite with lo < hi")


def _load_points(
    points: tuple[np.ndarray, np.ndarray] | None, lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray]:
    if points is None:
        return np.empty(0), np.empty(0)
    pl = np.ascontiguousarray(points[0], dtype=np.float64)
    pr = np.ascontiguousarray(points[1], dtype=np.float64)
    if pl.shape != pr.shape or pl.ndim != 1:
        raise InputError("zone load points: l and r must be 1-d arrays of equal length")
    _check_in_box(pl, pr, lo, hi)
    return pl, pr


def _check_in_box(l: np.ndarray, r: np.ndarray, lo: float, hi: float) -> None:
    bad = ~((l >= lo) & (l <= hi) & (r >= lo) & (r <= hi))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"point ({l[i]!r}, {r[i]!r}) lies outside S = [{lo}, {hi}]^2")


class _Builder:
    """Mutable zone and split-tree arrays while brokers join."""

    def __init__(self, n_zones: int, lo: float, hi: float) -> None:
        self.lo, self.hi, self.count = lo, hi, 1
        self.box = np.empty((n_zones, 4))  # zlo_l, zhi_l, zlo_r, zhi_r
        self.box[0] = (lo, hi, lo, hi)
        n_nodes = 2 * n_zones - 1
        self.dim = np.full(n_nodes, -1, np.int8)
        self.val = np.zeros(n_nodes)
        self.left = np.full(n_nodes, -1, np.int32)
        self.right = np.full(n_nodes, -1, np.int32)
        self.zone = np.full(n_nodes, -1, np.int32)
        self.zone[0] = 0
        self.leaf = np.zeros(n_zones, np.int32)  # tree leaf of each zone
        self.n_nodes = 1

    def longer_side(self, z: int) -> int:
        """0 (l) or 1 (r): the dimension to split zone ``z`` across."""
        bx = self.box[z]
        return 0 if bx[1] - bx[0] >= bx[3] - bx[2] else 1

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

    def finish(self) -> Zones:
        """Freeze into a Zones (neighbour table, server zone)."""
        box = self.box[: self.count]
        zlo_l, zhi_l, zlo_r, zhi_r = (np.ascontiguousarray(box[:, i]) for i in range(4))
        ptr, idx = _neighbour_table(zlo_l, zhi_l, zlo_r, zhi_r)
        centre = np.array([(self.lo + self.hi) / 2])
        t = slice(0, self.n_nodes)
        server = _locate(
            centre, centre, self.dim[t], self.val[t], self.left[t], self.right[t], self.zone[t]
        )
        owner = np.arange(self.count, dtype=np.int32)
        arrays = [zlo_l, zhi_l, zlo_r, zhi_r, owner, ptr, idx]
        arrays += [self.dim[t].copy(), self.val[t].copy(), self.left[t].copy()]
        arrays += [self.right[t].copy(), self.zone[t].copy()]
        for a in arrays:
            a.setflags(write=False)
        return Zones(self.lo, self.hi, *arrays, server_zone=int(server[0]))


def _join_random(b: _Builder, n_zones: int, rng: np.random.Generator) -> None:
    span = b.hi - b.lo
    u = b.lo + span * rng.random((n_zones - 1, 2))
    # min/max of two uniforms is uniform on the half l <= r
    pl, pr = u.min(axis=1), u.max(axis=1)
    for j in range(n_zones - 1):
        node = 0
        while b.dim[node] >= 0:
            coord = pl[j] if b.dim[node] == 0 else pr[j]
            node = b.right[node] if coord >= b.val[node] else b.left[node]
        z = int(b.zone[node])
        dim = b.longer_side(z)
        val = 0.5 * (b.box[z, 2 * dim] + b.box[z, 2 * dim + 1])
        if not b.box[z, 2 * dim] < val < b.box[z, 2 * dim + 1]:
            raise InputError(f"zones.n_zones = {n_zones}: zones became too thin to split")
        b.split(z, dim, val, newcomer_high=(pl[j], pr[j])[dim] >= val)


def _join_load(b: _Builder, n_zones: int, pl: np.ndarray, pr: np.ndarray) -> None:
    coords = (pl, pr)
    perm = np.arange(len(pl))  # points grouped by zone: zone z owns perm[start[z]:end[z]]
    start = np.zeros(n_zones, np.int64)
    end = np.zeros(n_zones, np.int64)
    end[0] = len(pl)
    # Zones whose points all coincide: no split lowers their load, so they compete by area.
    stuck = np.zeros(n_zones, np.bool_)
    while b.count < n_zones:
        k = b.count
        load = np.where(stuck[:k], 0, end[:k] - start[:k])
        valid = _valid_area(b.box[:k])
        z = int(np.lexsort((np.arange(k), -valid, -load))[0])
        seg = perm[start[z] : end[z]]
        cut = _load_split(b, z, coords, seg[:0] if stuck[z] else seg)
        if cut is None:
            stuck[z] = True
            continue
        dim, val = cut
        new = b.split(z, dim, val, newcomer_high=True)
        high = coords[dim][seg] >= val
        perm[start[z] : end[z]] = np.concatenate([seg[~high], seg[high]])
        mid = end[z] - int(high.sum())
        start[new], end[new] = mid, end[z]
        end[z] = mid
        stuck[new] = stuck[z]


def _load_split(
    b: _Builder, z: int, coords: tuple[np.ndarray, ...], seg: np.ndarray
) -> tuple[int, float] | None:
    """Dimension and value cutting zone ``z``'s points ``seg`` in half (None: inseparable);
    the midpoint of the longer side when ``seg`` is empty."""
    first = b.longer_side(z)
    if len(seg) == 0:
        val = 0.5 * (b.box[z, 2 * first] + b.box[z, 2 * first + 1])
        if not b.box[z, 2 * first] < val < b.box[z, 2 * first + 1]:
            raise InputError("zones: a zone became too thin to split (too many brokers)")
        return first, float(val)
    for dim in (first, 1 - first):
        val = _balanced_cut(coords[dim][seg], b.box[z, 2 * dim], b.box[z, 2 * dim + 1])
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


def _valid_area(box: np.ndarray) -> np.ndarray:
    """Area of each box ``[a,b] x [c,d]`` inside the half ``l <= r``."""
    a, b, c, d = box.T
    # l below c: the full height d - c; l in [max(a, c), min(b, d)]: height d - l.
    below = np.clip(np.minimum(b, c) - a, 0, None) * (d - c)
    l1, l2 = np.maximum(a, c), np.minimum(b, d)
    above = np.where(l2 > l1, d * (l2 - l1) - 0.5 * (l2**2 - l1**2), 0.0)
    return below + above


@numba.njit(cache=True)
def _locate(l, r, dim, val, left, right, zone):  # pragma: no cover - numba
    out = np.empty(len(l), np.int32)
    for i in range(len(l)):
        node = 0
        while dim[node] >= 0:
            coord = l[i] if dim[node] == 0 else r[i]
            node = right[node] if coord >= val[node] else left[node]
        out[i] = zone[node]
    return out


def _neighbour_table(
    zlo_l: np.ndarray, zhi_l: np.ndarray, zlo_r: np.ndarray, zhi_r: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """CSR neighbour lists: zones sharing a boundary segment of positive length."""
    lo = np.stack([zlo_l, zlo_r])
    hi = np.stack([zhi_l, zhi_r])
    pairs = [_touching(lo, hi, dim) for dim in (0, 1)]
    a = np.concatenate([p[0] for p in pairs] + [p[1] for p in pairs])
    b = np.concatenate([p[1] for p in pairs] + [p[0] for p in pairs])
    order = np.lexsort((b, a))
    ptr = np.zeros(len(zlo_l) + 1, np.int64)
    np.cumsum(np.bincount(a, minlength=len(zlo_l)), out=ptr[1:])
    return ptr, b[order].astype(np.int32)


def _touching(lo: np.ndarray, hi: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i, j) with zone j right across zone i's upper side in ``dim``."""
    other = 1 - dim
    # Sort by (lower edge in dim, lower edge in the other dim): the zones whose lower
    # edge sits on a given line are disjoint along it, so they come in order.
    order = np.lexsort((lo[other], lo[dim]))
    return _touching_kernel(lo[dim], hi[dim], lo[other], hi[other], order)


@numba.njit(cache=True)
def _touching_kernel(lo_d, hi_d, lo_o, hi_o, order):  # pragma: no cover - numba
    n = len(lo_d)
    sorted_lo = lo_d[order]
    sorted_hio = hi_o[order]
    out_a = np.empty(4 * n, np.int64)
    out_b = np.empty(4 * n, np.int64)
    k = 0
    for i in range(n):
        first = np.searchsorted(sorted_lo, hi_d[i], side="left")
        last = np.searchsorted(sorted_lo, hi_d[i], side="right")
        # within the block, upper edges in the other dim increase: skip those <= lo_o[i]
        p = first + np.searchsorted(sorted_hio[first:last], lo_o[i], side="right")
        while p < last:
            j = order[p]
            if lo_o[j] >= hi_o[i]:
                break
            if k == len(out_a):
                out_a = np.concatenate((out_a, np.empty(len(out_a), np.int64)))
                out_b = np.concatenate((out_b, np.empty(len(out_b), np.int64)))
            out_a[k] = i
            out_b[k] = j
            k += 1
            p += 1
    return out_a[:k], out_b[:k]
