"""``cnsim bench churn`` at a tiny size: the three runs step through one event stream,
and what each measures is the run it names."""

from cnsim.bench.churn import WAYS, measure


def test_the_three_runs_are_measured_side_by_side(tmp_path, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "worlds"))
    out = measure(20_000, 300, quick=True)
    assert set(out["cpu_s_per_event"]) == set(WAYS)
    assert all(v > 0 for v in out["cpu_s_per_event"].values())
    churn = out["churn"]
    assert churn["joins_per_event"] == 0.2
    assert 20_000 < churn["pool"] < 20_000 + 2 * 0.2 * 300  # about 60 joined
    assert abs(churn["live_at_end"] - 20_000) < 100
    for way in WAYS[1:]:
        b = out[way]["block_ratios"]
        assert 0 < b["min"] <= b["median"] <= b["max"] and out[way]["ratio"] > 0
