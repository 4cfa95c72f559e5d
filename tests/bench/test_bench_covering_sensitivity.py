"""``cnsim bench covering``'s ``table_sensitivity`` and ``layout`` sections (seed 001
§V-B Tables I-II, §V-C) on tiny streams: the declared keys, distances to the paper,
the same counts for the k-d tree with and without point copies, and bad input."""

from __future__ import annotations

import math

import pytest

from cnsim.bench.covering.paper import PAPER
from cnsim.bench.covering.streams import (
    COLUMNS,
    DEV_FLOOR,
    bench_layout,
    bench_table_sensitivity,
    index_params,
    sensitivity_nearest,
    vs_paper,
)
from cnsim.errors import InputError

TINY = {
    "ks": (1, 2),
    "overflows": (4, 8),
    "bits": (3,),
    "underflows": (0.0,),
    "zorder_bits": (2,),
}


def test_table_sensitivity_declared_keys():
    r = bench_table_sensitivity(300, log=lambda m: None, **TINY)
    assert {"commands", "ks", "seed", "paper_commands", "comparable_to_paper", "grid",
            "distance", "rows", "nearest", "cpu_s"} <= set(r)  # fmt: skip
    assert r["commands"] == 300 and r["ks"] == [1, 2] and not r["comparable_to_paper"]
    # stage 2 and 3 domains: the default 10 bits and stage 1's nearest (3 bits)
    assert r["grid"]["domains_of_stages_2_3"] == [3, 10]
    kd = {k for k, v in r["rows"].items() if v["index"] == "kdtree"}
    zo = {k for k, v in r["rows"].items() if v["index"] == "zorder"}
    # stage 1: 2 loads x 2 overflows (underflow overflow // 4); stage 2: underflow 0 in
    # both domains; stage 3: one resolution in both domains
    assert "kdtree/p=0.05/overflow=8/underflow=2/bits=3" in kd
    assert "kdtree/p=0.4/overflow=4/underflow=0/bits=10" in kd
    assert len(kd) == 2 * 2 + 2 * 2 * 2 and len(zo) == 2 * 2
    assert "zorder/p=0.4/zbits=2/bits=3" in zo
    for row in r["rows"].values():
        assert set(row["k"]) == {"1", "2"}
        for cells in row["k"].values():
            assert set(COLUMNS) <= set(cells)
            assert math.isclose(cells["nv"], cells["nvs"] + cells["nvu"])
        assert set(row["vs_paper"]) == {"cells", "gm_dev", "factor", "ratio_min", "ratio_max"}
        assert row["vs_paper"]["cells"] == 12 and row["vs_paper"]["factor"] >= 1
    for p in ("0.05", "0.4"):
        for index in ("kdtree", "zorder"):
            near = r["nearest"][p][index]
            assert near["key"] in r["rows"] and near["key_by_gm_dev"] in r["rows"]
            assert near["factor"] == min(
                v["vs_paper"]["factor"]
                for v in r["rows"].values()
                if v["index"] == index and str(v["p"]) == p
            )
    both = r["nearest"]["both"]
    assert {"bits", "overflow", "underflow", "factor", "gm_dev", "per_table"} <= set(both)
    assert sensitivity_nearest(r["rows"]) == r["nearest"]


def test_vs_paper_on_the_paper_itself():
    rows = {str(k): dict(zip(COLUMNS, v, strict=True)) for k, v in PAPER[0.4].items()}
    v = vs_paper(rows, 0.4)
    assert v["cells"] == 36 and v["factor"] == 1 and v["ratio_min"] == v["ratio_max"] == 1
    assert math.isclose(v["gm_dev"], DEV_FLOOR)
    doubled = {k: {c: 2 * x for c, x in row.items()} for k, row in rows.items()}
    assert math.isclose(vs_paper(doubled, 0.4)["factor"], 2)
    with pytest.raises(InputError, match="p must"):
        vs_paper(rows, 0.15)


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"n": 0}, "n"),
        ({"ks": (7,)}, "ks"),
        ({"ks": ()}, "ks"),
        ({"overflows": (1,)}, "overflows"),
        ({"bits": (60,)}, "bits"),
        ({"zorder_bits": (7,)}, "zorder_bits"),
        ({"underflows": (1.0,)}, "underflows"),
        ({"bits": ()}, "domains"),
    ],
)
def test_table_sensitivity_bad_input(kwargs, word):
    args = {"n": 50, **TINY, **kwargs}
    with pytest.raises(InputError, match=word):
        bench_table_sensitivity(log=lambda m: None, **args)


def test_layout_section():
    r = bench_layout((400,), (4, 6), log=lambda m: None, repeats=2)
    assert set(r["runs"]) == {"D=4/n=400", "D=6/n=400"}
    for row in r["runs"].values():
        kd, kn, zo = row["kdtree_copies"], row["kdtree_no_copies"], row["zorder"]
        for v in (kd, kn, zo):
            assert len(v["cpu_s_runs"]) == 2 and v["cpu_s"] == min(v["cpu_s_runs"])
            assert v["us_per_command"] == v["cpu_s"] * 1e6 / 400
        # the same tree either way: the same counted work
        for f in ("queries", "nodes_visited", "point_comparisons"):
            assert kd[f] == kn[f] > 0
        assert zo["queries"] > 0
        assert row["zorder_over_kdtree_copies"] == zo["cpu_s"] / kd["cpu_s"]
    with pytest.raises(InputError, match="dims"):
        bench_layout((100,), (5,), log=lambda m: None)
    with pytest.raises(InputError, match="repeats"):
        bench_layout((100,), (4,), log=lambda m: None, repeats=0)


def test_index_params_knobs():
    assert index_params("kdtree") == {"overflow": 32, "underflow": 8}
    assert index_params("kdtree", overflow=16, underflow=0, point_copies=False) == {
        "overflow": 16,
        "underflow": 0,
        "point_copies": False,
    }
    assert index_params("zorder", bits=3, zorder_bits=2) == {"low": 0.0, "high": 7.0, "bits": 2}
