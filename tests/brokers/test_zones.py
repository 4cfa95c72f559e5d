"""Zones partition S exactly; neighbour tables are complete; joins follow their mode."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from zone_oracle import contains, neighbours_brute

from cnsim.brokers.zones import build_zones
from cnsim.errors import InputError

layouts = st.tuples(
    st.integers(1, 40),
    st.sampled_from(["random", "load"]),
    st.integers(0, 10**6),
    st.sampled_from([(0.0, 1.0), (-3.0, 5.0)]),
)


def _make(n: int, mode: str, seed: int, box: tuple[float, float]):
    lo, hi = box
    rng = np.random.default_rng(seed)
    # clustered points with duplicates exercise the median fallbacks
    pts = lo + (hi - lo) * rng.beta(0.5, 2.0, size=(int(rng.integers(0, 300)), 2))
    pts = np.round(pts, int(rng.integers(1, 4)))
    l, r = np.minimum(pts[:, 0], pts[:, 1]), np.maximum(pts[:, 0], pts[:, 1])
    return build_zones(n, mode, seed=seed, points=(l, r), lo=lo, hi=hi), (l, r)


@settings(max_examples=60, deadline=None)
@given(layouts)
def test_zones_partition_the_box(layout) -> None:
    zones, (l, r) = _make(*layout)
    lo, hi = zones.lo, zones.hi
    assert zones.n_zones == layout[0]
    assert (zones.zlo[:, 0] < zones.zhi[:, 0]).all() and (zones.zlo[:, 1] < zones.zhi[:, 1]).all()
    assert zones.zlo[:, 0].min() == lo and zones.zhi[:, 1].max() == hi
    assert zones.volumes().sum() == pytest.approx((hi - lo) ** 2, rel=1e-12)
    rng = np.random.default_rng(layout[2])
    # random points plus every corner/edge value of the layout (the hard cases)
    edges = np.unique(np.concatenate([zones.zlo.ravel(), zones.zhi.ravel()]))
    grid_l, grid_r = np.meshgrid(edges, edges)
    ql = np.concatenate([lo + (hi - lo) * rng.random(200), grid_l.ravel(), l])
    qr = np.concatenate([lo + (hi - lo) * rng.random(200), grid_r.ravel(), r])
    got = zones.zone_of((ql, qr))
    for i in range(len(ql)):
        assert contains(zones, ql[i], qr[i]) == [got[i]]
    centre = (lo + hi) / 2
    assert contains(zones, centre, centre) == [zones.server_zone]
    assert zones.server == zones.owner[zones.server_zone]


@settings(max_examples=60, deadline=None)
@given(layouts)
def test_neighbour_table_is_symmetric_and_complete(layout) -> None:
    zones, _ = _make(*layout)
    pairs = {(z, int(n)) for z in range(zones.n_zones) for n in zones.neighbours(z)}
    assert pairs == neighbours_brute(zones)
    assert all((b, a) in pairs for a, b in pairs)
    for z in range(zones.n_zones):
        nb = zones.neighbours(z)
        assert np.array_equal(nb, np.unique(nb))  # sorted, no duplicates


def test_random_mode_is_seeded() -> None:
    a = build_zones(50, "random", seed=3)
    b = build_zones(50, "random", seed=np.random.default_rng(3))
    c = build_zones(50, "random", seed=4)
    assert np.array_equal(a.zlo[:, 0], b.zlo[:, 0]) and np.array_equal(a.zhi[:, 1], b.zhi[:, 1])
    assert not np.array_equal(a.zlo[:, 0], c.zlo[:, 0])
    # joins land in the half l <= r, so the other half keeps a few large zones only
    many = build_zones(200, "random", seed=0)
    below = many.zlo[:, 0] >= many.zhi[:, 1]
    assert below.sum() <= 20 and many.volumes()[below].sum() > 0.35


def test_load_mode_balances_subscriptions() -> None:
    rng = np.random.default_rng(1)
    pts = rng.random((4000, 2)) ** 3  # skewed towards the corner (0, 0)
    l, r = pts.min(axis=1), pts.max(axis=1)
    zones = build_zones(16, "load", points=(l, r))
    load = np.bincount(zones.zone_of((l, r)), minlength=16)
    assert load.max() - load.min() <= 1
    assert build_zones(1, "load").n_zones == 1


def test_load_mode_without_points_splits_the_valid_half() -> None:
    zones = build_zones(8, "load")
    assert zones.volumes().sum() == pytest.approx(1.0)
    # zones entirely below the diagonal (l > r everywhere) are never split further
    below = zones.zlo[:, 0] >= zones.zhi[:, 1]
    assert below.sum() <= 1


def test_bad_arguments() -> None:
    with pytest.raises(InputError, match="zones.mode"):
        build_zones(4, "grid")
    with pytest.raises(InputError, match="zones.n_zones"):
        build_zones(0)
    with pytest.raises(InputError, match="zones.domain"):
        build_zones(3, lo=1.0, hi=1.0)
    with pytest.raises(InputError, match="outside"):
        build_zones(3, "load", points=(np.array([0.5]), np.array([1.5])))
    with pytest.raises(InputError, match="outside"):
        build_zones(3).zone_of((np.array([-0.1]), np.array([0.5])))


def test_load_mode_with_coinciding_points_still_partitions() -> None:
    same = np.full(500, 0.3), np.full(500, 0.6)
    zones = build_zones(40, "load", points=same)
    assert zones.volumes().sum() == pytest.approx(1.0)
    assert (np.bincount(zones.zone_of(same)) > 0).sum() == 1
    ties = np.repeat([0.1, 0.2, 0.2, 0.2, 0.7], 10), np.repeat([0.5, 0.5, 0.9, 0.9, 0.9], 10)
    zones = build_zones(12, "load", points=ties)
    # the four distinct points end up in four different zones
    assert len(np.unique(zones.zone_of(ties))) == 4
