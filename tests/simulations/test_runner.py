"""The runner: outputs, determinism, and agreement of the exact approaches."""

import json

import pandas as pd

from cnsim.simulations.config import from_dict
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.runner import run

METRICS = CATALOG.names("batch", "counting")

SMALL = {
    "seed": 5,
    "objects": {"count": 500},
    "subscriptions": {"count": 5000, "k": 5},
    "events": {"count": 150},
    "algorithm": {"approaches": ["paint-dense", "paint-sparse", "paint-sparse(0.5)"]},
    "run": {"progress": False},
    "overlay": {"kind": "ideal"},
}


def test_run_writes_events_and_summary(tmp_path):
    frame, summary = run(from_dict(SMALL), tmp_path)
    on_disk = pd.read_parquet(tmp_path / "events.parquet")
    columns = ["approach", "batch", "event", "events", "kind", *METRICS]
    assert list(on_disk.columns) == columns
    assert len(on_disk) == 3 * 150
    assert set(on_disk["kind"]) <= {"raise", "lower", "insert", "delete", "move"}
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["approaches"]["paint-dense"]["batches"] == 150
    assert saved == json.loads(json.dumps(summary))
    dense = frame[frame.approach == "paint-dense"]
    assert (
        saved["approaches"]["paint-dense"]["mean_server_out_msgs"]
        == dense["server_out_msgs"].mean()
    )
    assert (dense["server_out_bytes"] == 24 * dense["server_out_msgs"]).all()
    # The paper's call pattern: two first_k calls per event, snap only for Paint-Sparse.
    assert (dense["calls_first_k"] == 2).all()
    assert (dense["calls_snap"] == 0).all()


def test_same_seed_same_results_and_events_override():
    counts = CATALOG.names("batch", "counting", wall=False)
    a, _ = run(from_dict(SMALL), events=60)
    b, _ = run(from_dict(SMALL), events=60)
    assert len(a) == 3 * 60
    pd.testing.assert_frame_equal(
        a.drop(columns=["server_time_s", "delivery_time_s"]),
        b.drop(columns=["server_time_s", "delivery_time_s"]),
    )
    other, _ = run(from_dict({**SMALL, "seed": 6}), events=60)
    assert not other[counts].equals(a[counts])


def test_batches_have_one_row_each():
    batched = {**SMALL, "events": {"count": 95, "batch_size": 10, "moves": 0.2}}
    frame, summary = run(from_dict(batched))
    dense = frame[frame.approach == "paint-dense"]
    assert dense["batch"].tolist() == list(range(10))
    assert dense["event"].tolist() == list(range(0, 95, 10))
    assert dense["events"].sum() == 95 and (dense["kind"] == "batch").all()
    assert summary["batch_size"] == 10
