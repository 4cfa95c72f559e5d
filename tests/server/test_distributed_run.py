"""Runs over the distributed object database ([server] count > 1, seed 003 appendix C):
the oracle passes, every figure equals the single server's, the per-server outputs
exist only then, and bad counts are rejected."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from cnsim.algorithms.base import ServerView
from cnsim.algorithms.registry import make_approach
from cnsim.cli import app
from cnsim.errors import ConfigError
from cnsim.simulations.config import Scenario, from_dict
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.runner import Simulation, run, simulate
from cnsim.simulations.server_load import ServerLoad
from cnsim.simulations.verify import verify
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.workload import Updates

ROOT = Path(__file__).resolve().parents[2]

BATCH = {
    "seed": 3,
    "objects": {"count": 150, "distribution": "clustered"},
    "subscriptions": {"count": 1500, "k": 3},
    "events": {"count": 120, "batch_size": 6, "inserts": 0.1, "deletes": 0.1, "moves": 0.1},
    "algorithm": {"approaches": ["paint-batch", "coalesce", "paint-sparse", "unicast"]},
    "run": {"progress": False},
    "overlay": {"kind": "ideal"},
}


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


@pytest.mark.slow  # 120 events of the example (5 s); 4 servers are verified quickly
def test_verify_passes_with_8_servers_on_the_example():
    report = verify(Scenario.from_toml(ROOT / "examples" / "distributed.toml"), events=120)
    assert report.ok, report.text()


def test_verify_passes_with_batches_and_moves_across_zones():
    report = verify(from_dict({**BATCH, "server": {"count": 5}}))
    assert report.ok, report.text()


def test_figures_equal_one_servers_and_servers_parquet(tmp_path):
    one = simulate(from_dict(BATCH))
    many_events, summary = run(from_dict({**BATCH, "server": {"count": 7}}), tmp_path)
    same = [c for c in one.events.columns if not c.endswith("time_s")]
    pd.testing.assert_frame_equal(many_events[same], one.events[same])
    distributed = CATALOG.names("batch", "distributed")
    assert set(distributed) <= set(many_events.columns)
    assert not set(distributed) & set(one.events.columns)
    servers = pd.read_parquet(tmp_path / "servers.parquet")
    assert list(servers.columns) == ["approach", "server", *CATALOG.names("server")]
    server_approaches = ["paint-batch(paint-dense)", "coalesce(paint-dense)", "paint-sparse",
                         "unicast"]  # fmt: skip
    assert sorted(set(servers["approach"])) == sorted(server_approaches)
    workload = Simulation(from_dict(BATCH)).workload
    ev = workload.events
    y = dict(enumerate(workload.y.tolist()))
    y.update(zip(ev.obj.tolist(), ev.y_new.tolist(), strict=True))  # the last value wins
    live = sum(1 for v in y.values() if v != float("inf"))
    for name, part in servers.groupby("approach"):
        rows = many_events[many_events.approach == name]
        assert part["server_msgs"].sum() == rows["server_out_msgs"].sum()
        assert part["server_updates"].sum() == len(ev.obj)
        assert part["server_objects"].sum() == live
        assert (
            part["server_bytes"] == part["server_msgs"] * (16 if name == "unicast" else 24)
        ).all()
    paint = summary["approaches"]["paint-sparse"]
    keys = ["traversed_per_first_k", "traversed_per_min_y", "max_traversed"]
    keys += ["server_query_imbalance", "mean_traversed_first_k", "max_traversed_min_y"]
    assert all(key in paint for key in keys)
    assert "server" not in one.summary["scenario"]
    assert "traversed_per_first_k" not in one.summary["approaches"]["paint-sparse"]
    assert json.loads((tmp_path / "summary.json").read_text())["scenario"]["server"] == {"count": 7}


def test_bad_server_count_is_one_line_config_error():
    with pytest.raises(ConfigError, match=r"server.count = 0 is out of range; allowed"):
        from_dict({**BATCH, "server": {"count": 0}})
    with pytest.raises(ConfigError, match=r"server.count = 'many'"):
        from_dict({**BATCH, "server": {"count": "many"}})
    with pytest.raises(ConfigError, match=r"server.count = 4 must be 1 in timed mode"):
        from_dict({"run": {"mode": "timed"}, "server": {"count": 4}})


def test_cli_verify_on_the_example():
    result = CliRunner().invoke(
        app, ["verify", str(ROOT / "examples" / "distributed.toml"), "--events", "40"]
    )
    assert result.exit_code == 0, result.output
    assert "all checks passed" in result.output


def test_every_server_generates_the_messages_of_its_own_events():
    # Two updates in one batch at servers 0 and 3: Paint-Dense is handed each at its
    # owner, and the messages (the same as one server's) are charged to it.
    rng = np.random.default_rng(2)
    x, y = rng.random(200), rng.random(200)
    l, r = np.sort(rng.random((2, 2000)), axis=0)
    subs = SubscriptionIndex(l, r)
    one = make_approach("paint-dense", ServerView(x, y, subs, 4))
    many = make_approach("paint-dense", ServerView(x, y, subs, 4, servers=4))
    load = ServerLoad(many.objects.zones, [many])
    i, j = int(np.argmin(x)), int(np.argmax(x))
    updates = Updates(np.array([i, j]), x[[i, j]], y[[i, j]], np.array([0.001, 0.999]))
    got, want = load.process(many, updates), one.process(updates)
    assert np.array_equal(got.rects, want.rects) and np.array_equal(got.obj, want.obj)
    fresh = make_approach("paint-dense", ServerView(x, y, subs, 4))
    columns = (updates.obj, updates.x, updates.y_old, updates.y_new)
    first = len(fresh.process(Updates(*(a[:1] for a in columns))))
    assert load.messages["paint-dense"].tolist() == [first, 0, 0, len(want) - first]
    assert load.updates["paint-dense"].tolist() == [1, 0, 0, 1]


@pytest.mark.slow  # the whole quick benchmark through the CLI (8 s)
def test_bench_distributed_quick(tmp_path):
    out = tmp_path / "d.json"
    result = CliRunner().invoke(app, ["bench", "distributed", "--quick", "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["command"] == "cnsim bench distributed --quick"
    by_k = data["by_k"]
    assert list(by_k) == ["10", "100", "1000", "10000", "20000"]
    means = [by_k[k]["all"]["mean"] for k in by_k]
    assert means == sorted(means) and means[-1] <= data["servers"] - 1
    for r in by_k.values():  # the per-query y model explains the walks
        assert r["first_k"]["mean"] == pytest.approx(r["model_first_k"], rel=0.25)
