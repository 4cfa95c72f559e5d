"""HTML reports of a run directory and of a (synthetic) sweep dataset."""

import itertools
import re

import numpy as np
import pandas as pd
import pytest

from cnsim.errors import InputError
from cnsim.simulations.config import SCHEMA, from_dict
from cnsim.simulations.report import build_report, detect
from cnsim.simulations.runner import run

SMALL = {
    "seed": 7,
    "objects": {"count": 200},
    "subscriptions": {"count": 2000, "k": 5},
    "events": {"count": 100},
    "algorithm": {"approaches": ["paint-dense", "paint-sparse", "paint-sparse(1)"]},
    "run": {"progress": False},
}
if "kind" in SCHEMA.get("overlay", {}):
    SMALL["overlay"] = {"kind": "ideal"}  # no broker network: keeps the test fast

SWEEP = [
    "paint-dense",
    "paint-sparse",
    "paint-sparse(0.5)",
    "paint-sparse(1)",
    "unicast",
    "cn-relax",
    "paint-batch(paint-dense)",
    "coalesce(paint-dense)",
    "online(paint-dense)",
]


def images(index_html: str) -> list[str]:
    return re.findall(r'<img src="([^"]+)"', index_html)


def check_links(out, text):
    """Every figure and CSV the page refers to exists."""
    for name in images(text) + re.findall(r'href="([^"#]+\.csv)"', text):
        assert (out / name).is_file(), name


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    run(from_dict(SMALL), out)
    return out


def test_run_report(run_dir, tmp_path):
    index = build_report(run_dir, tmp_path / "report")
    assert index == tmp_path / "report" / "index.html"
    text = index.read_text()
    for section in (
        "Summary per approach",
        "Outgoing traffic from the server",
        "Messages received by subscriptions",
        "Server processing cost",
        "Traffic by event kind",
    ):
        assert f">{section}</h2>" in text
    assert text.count("<table") >= 5
    assert "paint-sparse(1)" in text and "Fig. 13(a)" in text and "Table II" in text
    assert len(images(text)) >= 3
    check_links(tmp_path / "report", text)
    summary = pd.read_csv(tmp_path / "report" / "summary.csv", index_col=0)
    assert list(summary.columns) == SMALL["algorithm"]["approaches"]
    # No timing columns in a counting-mode run: the report says what it left out.
    assert "Not shown" in text and "counting-mode" in text


def test_run_report_plots_broker_load_and_timing_when_present(run_dir, tmp_path):
    src = tmp_path / "timed"
    src.mkdir()
    events = pd.read_parquet(run_dir / "events.parquet")
    rng = np.random.default_rng(0)
    events["latency_first"] = rng.gamma(2.0, 0.01, len(events))
    events["latency_last"] = events["latency_first"] + 0.01
    events["server_queue_len"] = rng.poisson(2, len(events))
    events.to_parquet(src / "events.parquet")  # no summary.json: the report still works
    brokers = pd.DataFrame(
        {
            "approach": np.repeat(SMALL["algorithm"]["approaches"], 20),
            "broker": np.tile(np.arange(20), 3),
            "subscriptions_held": np.tile(np.arange(20), 3),
            "messages_handled": rng.integers(0, 50, 60),
        }
    )
    brokers.to_parquet(src / "brokers.parquet")
    text = build_report(src, tmp_path / "report").read_text()
    assert ">Per-broker load</h2>" in text and ">Latency and queueing</h2>" in text
    assert "p99" in text
    check_links(tmp_path / "report", text)
    latency = pd.read_csv(tmp_path / "report" / "latency.csv", index_col=0)
    assert len(latency) == 3 and "latency_last | p99" in latency.columns


def synthetic_sweep(path, failed_run: int = 0):
    """A sweep dataset in the schema of ``cnsim sweep``: one Parquet file per run with one
    row per approach, or a single error row without metric columns for a failed run (the
    first file here, so a reader must not take the dataset's schema from it)."""
    path.mkdir(parents=True)
    grid = itertools.product([1, 2, 5, 10], [1000, 4000], ["uniform", "clustered"])
    for run_id, (k, m, dist) in enumerate(grid):
        head = {
            "run_id": f"r{run_id:03d}",
            "seed": 100 + run_id,
            "objects.count": 200,
            "objects.distribution": "uniform",
            "subscriptions.count": m,
            "subscriptions.k": k,
            "subscriptions.distribution": dist,
            "events.update": "uniform",
            "events.batch_size": 1,
            "error": None,
        }
        if run_id == failed_run:
            rows = [{**head, "approach": None, "error": "ConfigError: synthetic failure"}]
        else:
            rows = [{**head, "approach": a, **metrics(a, j, k, m)} for j, a in enumerate(SWEEP)]
        pd.DataFrame(rows).to_parquet(path / f"run-r{run_id:03d}.parquet", index=False)
    (path / "_sweep.json").write_text("{}")  # manifest: not data
    return path


def metrics(approach: str, j: int, k: int, m: int) -> dict:
    """Made-up summary metrics with the trends the report must show."""
    msgs = {"unicast": m * k / 50, "cn-relax": 0.0}.get(approach, k * 5.0 / (1 + j % 3))
    eps = 0.5 if "(0.5)" in approach else 1.0 if "(1)" in approach else 0.0
    return {
        "mean_server_out_msgs": msgs,
        "mean_server_out_bytes": 24 * msgs,
        "max_server_out_bytes": 240 * msgs,
        "mean_overlay_bytes": 100.0 * k + j,
        "mean_ip_bytes": 400.0 * k + j,
        "mean_delivered_msgs": m * k / 100,
        "total_delivered_msgs": m * k,
        "redundancy": eps * k / 10 + (50 / k if approach == "cn-relax" else 0),
        "mean_calls_first_k": 2.0,
        "mean_calls_min_y": m * k / 100 if approach == "unicast" else 0.6 * k,
        "mean_calls_snap": 4.0 * k if "sparse" in approach else 0.0,
    }


def test_sweep_report(tmp_path):
    src = synthetic_sweep(tmp_path / "sweep")
    assert detect(src) == "sweep" and detect(run_dir_marker(tmp_path)) == "run"
    out = tmp_path / "report"
    text = build_report(src, out).read_text()
    for section in (
        "Sweep",
        "Outgoing traffic from the server",
        "Traffic in the broker network",
        "Messages received by subscriptions",
        "Server processing cost",
        "Workloads",
        "Batch processing",
    ):
        assert f">{section}</h2>" in text
    for ref in ("Fig. 11", "Fig. 12(b)", "Fig. 13(a)", "Fig. 14(a)", "Fig. 15(a)", "Fig. 16"):
        assert ref in text
    assert "synthetic failure" in text and "1 failed" in text
    check_links(out, text)
    redundancy = pd.read_csv(out / "redundancy_by_k.csv", index_col=0)
    assert list(redundancy.columns) == ["k=1", "k=2", "k=5", "k=10"]
    assert redundancy.loc["cn-relax", "k=1"] == pytest.approx(50.0)
    assert redundancy.loc["paint-dense"].eq(0).all()
    calls = pd.read_csv(out / "calls_by_m.csv", index_col=[0, 1])
    assert calls.loc[("unicast", "min_y"), "m=4,000"] == pytest.approx(400.0)  # k held at 10
    assert ("paint-dense", "snap") not in calls.index  # calls never made are left out


def run_dir_marker(tmp_path):
    path = tmp_path / "only-summary"
    path.mkdir()
    (path / "summary.json").write_text('{"approaches": {}}')
    return path


def test_bad_inputs_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        build_report(tmp_path / "missing", tmp_path / "out")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="neither a run directory"):
        build_report(tmp_path / "empty", tmp_path / "out")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "events.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="cannot read"):
        build_report(bad, tmp_path / "out")
    no_approach = tmp_path / "no-approach"
    no_approach.mkdir()
    pd.DataFrame({"x": [1]}).to_parquet(no_approach / "part-0.parquet")
    with pytest.raises(InputError, match="no 'approach' column"):
        build_report(no_approach, tmp_path / "out")


def test_report_command(run_dir, tmp_path):
    from typer.testing import CliRunner

    from cnsim.cli import app

    result = CliRunner().invoke(app, ["report", str(run_dir), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "r" / "index.html").exists()
    missing = CliRunner().invoke(app, ["report", str(tmp_path / "nope"), "--out", "x"])
    assert isinstance(missing.exception, InputError)
