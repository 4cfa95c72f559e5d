"""The full run of ``cnsim bench betree`` (seed 002's Figures 6-9) at a toy size: every
structure answers the same events with the same match counts as the scan, points shared
by figures are measured once, a partial result is resumed without re-measuring, and
the headline and tables read the result."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cnsim.bench import betree as B

AXES = {"fig7_clusters": ("clusters", [0, 4]), "fig8_size": ("n", [300, 600])}
STRUCT = {
    "BE*-B": ("betree_star", True, None, None),
    "BE*": ("betree_star", False, 300, ("fig8_size",)),
    "k-ind": ("kindex", False, None, None),
    "SCAN": ("scan", False, None, None),
}


def _run(**kw):
    return B.run_full(dists=("uniform",), axes=AXES, n=300, n_events=12, structures=STRUCT, **kw)


def test_head_keeps_the_first_events():
    _, events, _ = B.workload(0, 7, n=50)
    h = B.head(events, 3)
    assert len(h) == 3
    for i in range(3):
        assert h.predicates(i) == events.predicates(i)
    assert len(B.head(events, 99)) == 7


def test_full_plan_runs_every_point_once_headline_first_largest_last():
    plan = B.full_plan(B.FULL_AXES)
    assert sorted(plan, key=str) == sorted(
        [(f, v) for f, (_, vals) in B.FULL_AXES.items() for v in vals], key=str
    )
    assert plan[0][0] == "fig7_clusters" and plan[-1] == ("fig8_size", 1_000_000)


def test_run_full_counts_agree_shares_points_and_resumes(monkeypatch):
    calls = []
    real = B.measure

    def counting(name, subs, events, w, **kw):
        calls.append((name, len(subs), w["clusters"]))
        return real(name, subs, events, w, **kw)

    monkeypatch.setattr(B, "measure", counting)
    res = _run()
    figs = res["figures"]
    # the Table III point (n = 300, 4 clusters) is measured once for both figures
    assert calls.count(("kindex", 300, 4)) == 1
    assert ("betree_star", 600, 4) in calls
    cell = figs["fig8_size"]["uniform"]["300"]
    assert set(cell) == {"BE*-B", "BE*", "k-ind", "SCAN"}
    assert "BE*" not in figs["fig8_size"]["uniform"]["600"]  # above its largest n
    for fig in figs.values():
        for c in fig["uniform"].values():
            m = {lab: r["mean_matches"] for lab, r in c.items()}
            assert len(set(m.values())) == 1, m  # all agree with the scan
    # resuming from a partial result measures nothing again, and every partial result
    # of the resumed run holds the prior's points from the start
    part = json.loads(json.dumps(res, default=B.json_default))
    calls.clear()
    seen = []
    again = _run(prior=part, on_point=lambda r: seen.append(json.loads(json.dumps(r))))
    assert calls == []
    for snap in seen:
        for fig, per in part["figures"].items():
            assert snap["figures"][fig]["uniform"].keys() == per["uniform"].keys()
    assert again["figures"]["fig8_size"]["uniform"]["600"]["k-ind"]["match_us"] == pytest.approx(
        res["figures"]["fig8_size"]["uniform"]["600"]["k-ind"]["match_us"]
    )
    merged = B.merge_full([part])
    assert any("faster than k-ind" in k for k in merged["headline"])
    text = B.tables(merged)
    assert "| uniform | 600 |" in text and "**fig7_clusters**" in text
    assert np.isfinite(cell["BE*-B"]["top_us"][1])


def test_builds_are_warmed_before_they_are_timed(monkeypatch):
    """No measured build includes numba compilation: run_full builds every structure on
    a small workload before its first measured point."""
    order = []
    warm = B.warm_builds
    monkeypatch.setattr(B, "warm_builds", lambda s, seed=0: order.append(("warm", tuple(s))))
    real = B.measure
    monkeypatch.setattr(B, "measure", lambda *a, **k: order.append(a[0]) or real(*a, **k))
    _run()
    assert order[0] == ("warm", tuple(STRUCT)) and len(order) > 1
    warm({"BE*": ("betree_star", False, None, None), "k-ind": ("kindex", False, None, None)})


def test_build_speedup_compares_the_same_trees():
    res = B.build_speedup(n=400, dists=("uniform",))
    for row in res["uniform"].values():
        assert row["same_tree"] and row["numba_s"] > 0 and row["python_s"] > 0


def test_full_1m_entry_point_rejects_bad_arguments(tmp_path, capsys):
    with pytest.raises(SystemExit):
        B._main(["full-2m", "--json", str(tmp_path / "x.json")])
    assert "invalid choice: 'full-2m'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        B._main(["full-1m", "--json", str(tmp_path / "nowhere" / "x.json")])
    assert "does not exist" in capsys.readouterr().err


def test_run_full_1m_at_a_toy_size_measures_every_tree_at_every_point():
    seen = []
    res = B.run_full_1m(on_point=seen.append, speedup_n=0, n=300, n_events=8,
                        axes={"fig8_size": ("n", [300, 500]),
                              "fig9_match_prob": ("match_prob", [0.001, 0.01])})  # fmt: skip
    assert seen and seen[-1]["figures"].keys() == res["figures"].keys()
    for fig in res["figures"].values():
        for dist in ("uniform", "zipf"):
            for cell in fig[dist].values():
                assert set(cell) == set(B.FULL_1M_STRUCTURES)
                assert len({c["mean_matches"] for c in cell.values()}) == 1


def test_run_full_1m_resumes_without_measuring_again(monkeypatch):
    axes = {"fig8_size": ("n", [300, 500]), "fig9_match_prob": ("match_prob", [0.001, 0.01])}
    seen = []

    def snap(r):  # what the JSON file holds after each point
        seen.append(json.loads(json.dumps(r, default=B.json_default)))

    B.run_full_1m(on_point=snap, speedup_n=0, n=300, n_events=6, axes=axes)
    part = seen[2]  # 3 points in: uniform 300 and 500, zipf 300
    calls = []
    real = B.measure
    monkeypatch.setattr(B, "measure", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    res = B.run_full_1m(speedup_n=0, n=300, n_events=6, axes=axes, prior=part)
    # 3 distinct points per distribution (0.001 is the n = 300 point): 6, 3 kept
    assert len(calls) == 3 * len(B.FULL_1M_STRUCTURES)
    assert (
        res["figures"]["fig8_size"]["uniform"]["300"]
        == part["figures"]["fig8_size"]["uniform"]["300"]
    )
    # the resumed run adds its wall time and peak memory to the first one's
    assert len(part["runs"]) == 1 and len(res["runs"]) == 2
    assert res["wall_s"] == pytest.approx(part["wall_s"] + res["runs"][1]["wall_s"])
    assert res["max_rss_mb"] == max(r["max_rss_mb"] for r in res["runs"])
    # a run stopped in the second stage (Fig 9) keeps its Fig 9 points when resumed
    late = next(r for r in seen if "0.01" in r["figures"].get("fig9_match_prob", {}).get(
        "uniform", {}))  # fmt: skip
    assert "zipf" not in late["figures"]["fig9_match_prob"]
    calls.clear()
    again = B.run_full_1m(speedup_n=0, n=300, n_events=6, axes=axes, prior=late)
    assert len(calls) == len(B.FULL_1M_STRUCTURES)  # zipf 0.01 only
    for fig, per in late["figures"].items():
        for dist, rows in per.items():
            for val, cell in rows.items():
                assert again["figures"][fig][dist][val] == cell
    old = {k: v for k, v in part.items() if k != "runs"}  # a file written before ``runs``
    res = B.run_full_1m(speedup_n=0, n=300, n_events=6, axes=axes, prior=old)
    assert res["runs"][0] == {"wall_s": part["wall_s"], "max_rss_mb": part["max_rss_mb"]}
