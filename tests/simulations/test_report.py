"""HTML reports of a run directory (a real counting run and a real timed run) and of
(synthetic) sweep datasets."""

import itertools
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cnsim.errors import InputError
from cnsim.simulations.config import SCHEMA, from_dict, load
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.report import build_report, detect
from cnsim.simulations.runner import run

ROOT = Path(__file__).resolve().parents[2]
LABELS = CATALOG.column_labels()

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


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))
        yield


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


@pytest.fixture(scope="module")
def timed_dir(tmp_path_factory):
    """A real timed run (SimPy mode, 30 brokers, four approaches; about 3 s)."""
    out = tmp_path_factory.mktemp("timed")
    run(load(ROOT / "tests" / "golden" / "timed.toml"), out)
    return out


def percentiles(events: pd.DataFrame, column: str) -> pd.DataFrame:
    """p50/p95/p99/max of ``column`` per approach, straight from the rows with numpy."""
    out = {}
    for name, part in events.groupby("approach", sort=False):
        v = part[column].dropna().to_numpy()
        out[name] = {f"p{q}": np.percentile(v, q) for q in (50, 95, 99)} | {"max": v.max()}
    return pd.DataFrame(out).T


@pytest.mark.slow  # a timed run of its own (the module's timed_dir); test_run_report is quick
def test_timed_run_report_shows_the_latency_of_the_run(timed_dir, tmp_path):
    out = tmp_path / "report"
    text = build_report(timed_dir, out).read_text()
    assert ">Latency and queueing</h2>" in text and ">Per-broker load</h2>" in text
    check_links(out, text)
    events = pd.read_parquet(timed_dir / "events.parquet")
    summary = json.loads((timed_dir / "summary.json").read_text())["approaches"]
    latency = pd.read_csv(out / "latency.csv", index_col=0)
    assert list(latency.index) == list(summary)
    for column in ("latency_first_s", "latency_last_s", "server_wait_s"):
        expected = percentiles(events, column)
        assert expected.notna().all().all() and (expected["p99"] > 0).any(), column
        for stat in ("p50", "p95", "p99", "max"):
            got = latency[f"{column} | {stat}"]
            np.testing.assert_allclose(got, expected.loc[got.index, stat], rtol=1e-12)
        for name, s in summary.items():  # and the run's own summary agrees
            assert latency.loc[name, f"{column} | p95"] == pytest.approx(s[f"p95_{column}"])
    assert (latency["latency_first_s | p50"] <= latency["latency_last_s | p50"]).all()
    queue = pd.read_csv(out / "queue.csv", index_col=0)
    g = events.groupby("approach", sort=False)
    np.testing.assert_allclose(queue["server_queue_len | mean"], g["server_queue_len"].mean())
    np.testing.assert_array_equal(queue["server_queue_len | max"], g["server_queue_len"].max())
    np.testing.assert_array_equal(queue["reordered | total"], g["reordered"].sum())
    assert queue["server_queue_len | max"].max() > 0  # Unicast's server does queue here
    # The latency figure is captioned with what it plots, and the summary table shows it.
    assert "CDF) of the latency to the last notification" in text
    table = pd.read_csv(out / "summary.csv", index_col=0)
    assert table.loc[LABELS["p99_latency_last_s"]].to_dict() == pytest.approx(
        {name: s["p99_latency_last_s"] for name, s in summary.items()}
    )


@pytest.mark.slow  # the timed run again, and two reports of it
def test_report_without_summary_aggregates_the_rows_as_the_catalog_says(timed_dir, tmp_path):
    src = tmp_path / "events-only"
    src.mkdir()
    for name in ("events.parquet", "brokers.parquet"):
        (src / name).write_bytes((timed_dir / name).read_bytes())
    text = build_report(src, tmp_path / "report").read_text()
    assert "summary.json is missing" in text and ">Latency and queueing</h2>" in text
    check_links(tmp_path / "report", text)
    build_report(timed_dir, tmp_path / "full")
    mine = pd.read_csv(tmp_path / "report" / "summary.csv", index_col=0)
    full = pd.read_csv(tmp_path / "full" / "summary.csv", index_col=0)
    # Every per-batch aggregate is the run's own; the whole-run ratios (aggregate "run":
    # redundancy and redundancy_paper) are not.
    whole_run = {LABELS[m.name] for m in CATALOG if m.aggregates == ("run",)}
    assert {LABELS["redundancy"], LABELS["redundancy_paper"]} <= whole_run
    rows = [r for r in mine.index if r not in whole_run]
    assert len(rows) >= 20 and set(rows) <= set(full.index)
    pd.testing.assert_frame_equal(mine.loc[rows], full.loc[rows], check_exact=False, rtol=1e-12)


def write_sweep(path, name, grid, metrics_of, failed_run=None, approaches=SWEEP):
    """A sweep dataset in the schema of ``cnsim sweep``: one Parquet file per run with one
    row per approach, or a single error row without metric columns for a failed run."""
    path.mkdir(parents=True, exist_ok=True)
    for i, values in enumerate(itertools.product(*grid.values())):
        params = dict(zip(grid, values, strict=True))
        run_id = f"{name}-r{i:03d}"
        head = {"run_id": run_id, "sweep": name, "seed": 100 + i, "status": "ok", "error": None}
        head |= {"objects": 200, "batch_size": 1, **params}
        if i == failed_run:
            rows = [{**head, "approach": None, "status": "error"}]
            rows[0]["error"] = "ConfigError: synthetic failure"
        else:
            rows = [
                {**head, "approach": a, **metrics_of(a, j, **params)}
                for j, a in enumerate(approaches)
            ]
        pd.DataFrame(rows).to_parquet(path / f"run-{run_id}.parquet", index=False)
    (path / "_sweep.json").write_text("{}")  # manifest: not data
    return path


PAPER_GRID = {
    "subscriptions.k": [1, 2, 5, 10],
    "subscriptions.count": [1000, 4000],
    "subscriptions.distribution": ["uniform", "clustered"],
}


def synthetic_sweep(path, failed_run: int = 0):
    """The paper's grid over k, m and the distribution; the first run failed (so a reader
    must not take the dataset's schema from the first file)."""

    def of(a, j, **p):
        return metrics(a, j, p["subscriptions.k"], p["subscriptions.count"])

    return write_sweep(path, "paper", PAPER_GRID, of, failed_run)


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
    min_y, snap = LABELS["mean_calls_min_y"], LABELS["mean_calls_snap"]
    assert calls.loc[("unicast", min_y), "m=4,000"] == pytest.approx(400.0)  # k held at 10
    assert ("paint-dense", snap) not in calls.index  # calls never made are left out
    assert "Other swept parameters" not in text  # every axis has its paper figure


RATES = [1.0, 10.0, 100.0]
TIMED_SWEEP = ["paint-dense", "unicast", "cn-relax"]


def timed_metrics(approach: str, j: int, **p) -> dict:
    """Made-up summary metrics of a timed sweep over the event rate."""
    rate = p.get("timing.rate", 1.0)
    return {
        "mean_server_out_msgs": 0.0 if approach == "cn-relax" else 10.0 * (j + 1),
        "mean_delivered_msgs": 50.0,
        "p95_latency_last_s": 0.01 * (j + 1) * rate,
        "mean_server_queue_len": 0.0 if approach == "cn-relax" else rate / 10,
        "redundancy": 0.0,
    }


def timed_sweep(path, name="rates"):
    grid = {"timing.rate": RATES}
    return write_sweep(path, name, grid, timed_metrics, approaches=TIMED_SWEEP)


def check_rate_trend(out, text):
    """The trend against timing.rate is drawn, and its table holds the dataset's values."""
    assert ">Other swept parameters</h2>" in text and "trend_by_timing_rate.png" in text
    trend = pd.read_csv(out / "trend_by_timing_rate.csv", index_col=[0, 1])
    assert list(trend.columns) == ["timing.rate=1", "timing.rate=10", "timing.rate=100"]
    latency, queue = LABELS["p95_latency_last_s"], LABELS["mean_server_queue_len"]
    for j, a in enumerate(TIMED_SWEEP):
        for rate in RATES:
            expected = timed_metrics(a, j, **{"timing.rate": rate})
            column = f"timing.rate={rate:g}"
            assert trend.loc[(a, latency), column] == pytest.approx(expected["p95_latency_last_s"])
    assert trend.loc[("unicast", queue), "timing.rate=100"] == pytest.approx(10.0)
    assert ("paint-dense", LABELS["redundancy"]) not in trend.index  # zero throughout


def test_sweep_over_another_axis_draws_the_main_metrics_against_it(tmp_path):
    src = timed_sweep(tmp_path / "sweep")
    out = tmp_path / "report"
    text = build_report(src, out).read_text()
    check_rate_trend(out, text)
    check_links(out, text)


def test_a_parameter_nothing_is_drawn_against_is_named(tmp_path):
    grid = {"timing.rate": RATES, "overlay.kind": ["ideal", "meghdoot"], "events.count": [50]}
    src = write_sweep(tmp_path / "sweep", "mixed", grid, timed_metrics, approaches=TIMED_SWEEP)
    text = build_report(src, tmp_path / "report").read_text()
    assert "overlay.kind varies, but its values are not numbers" in text
    assert "trend_by_timing_rate.png" in text and "events.count varies" not in text
    # A one-value axis in a dataset of two sweeps varies only against "unset": the report
    # says why it draws nothing against it.
    write_sweep(
        tmp_path / "sweep",
        "single",
        {"timing.server_service_s": [0.001]},
        timed_metrics,
        approaches=TIMED_SWEEP,
    )
    text = build_report(src, tmp_path / "report-2").read_text()
    assert "timing.server_service_s varies, but one value of it is left" in text


@pytest.mark.parametrize(  # its files read last, or first (20 s each: the latter in the full run)
    "name", ["rates", pytest.param("a-rates", marks=pytest.mark.slow)]
)
def test_a_dataset_of_two_sweeps(tmp_path, name):
    """Two sweeps in one dataset: each parameter is unset in the other sweep's rows."""
    src = synthetic_sweep(tmp_path / "both")
    timed_sweep(src, name)
    out = tmp_path / "report"
    text = build_report(src, out).read_text()
    names = sorted(["paper", name], key=lambda n: f"run-{n}")  # first appearance: file order
    assert f"This dataset holds 2 sweeps ({names[0]}, {names[1]})" in text
    check_rate_trend(out, text)  # from the rate sweep's rows only
    redundancy = pd.read_csv(out / "redundancy_by_k.csv", index_col=0)  # the paper sweep's
    assert list(redundancy.columns) == ["k=1", "k=2", "k=5", "k=10"]
    assert redundancy.loc["cn-relax", "k=1"] == pytest.approx(50.0)
    assert "timing.rate unset" in text
    check_links(out, text)


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


def test_run_report_axes_are_labelled_from_the_catalog(run_dir, tmp_path):
    """Every axis naming a metric carries the catalog's label (with what it is counted
    per), never a raw column name; the rest name what they count in words."""
    from cnsim.simulations.report.document import Document
    from cnsim.simulations.report.run_sections import run_report

    doc = Document(tmp_path)
    run_report(doc, run_dir)
    columns = set(pd.read_parquet(run_dir / "events.parquet").columns)
    words = {"fraction ≤ x", "broker rank (busiest first)", "brokers"}
    labels = {text for drawn in doc.drawn for text, _ in drawn.labels}
    assert labels and not any(c in text for text in labels for c in columns if "_" in c)
    for text in labels:
        parts = re.sub(r" per (event|batch)$", "", text).split(" / ")
        assert all(p in LABELS.values() for p in parts) or text in words, text
    assert f"{LABELS['server_out_bytes']} per event" in labels
    for drawn in doc.drawn:
        pairs = [(c, m) for _, c, m in drawn.series]
        assert len(set(pairs)) == len(pairs), drawn


def test_queue_panels_share_a_labelled_y_axis():
    from cnsim.simulations.report.run_sections import RunData, _queue_figure

    names = ["paint-dense", "unicast", "cn-relax"]
    events = pd.DataFrame(
        {
            "approach": np.repeat(names, 5),
            "batch": np.tile(np.arange(5), 3),
            "server_queue_len": np.arange(15) % 4,
        }
    )
    fig = _queue_figure(RunData(events, None, None), CATALOG["server_queue_len"])
    assert fig.get_supylabel() == LABELS["server_queue_len"] == "server queue length (events)"
    assert [ax.get_title(loc="left") for ax in fig.axes] == names
    for ax, name in zip(fig.axes, names, strict=True):  # each panel its approach's trace
        (line,) = ax.get_lines()
        np.testing.assert_array_equal(line.get_ydata(), events.loc[events["approach"] == name,
                                      "server_queue_len"])  # fmt: skip


def dynamics_metrics(approach: str, j: int, **p) -> dict:
    """Made-up summary metrics of sweeps over broker failures and joins."""
    rate, r = p.get("faults.rate", 0.0), p.get("faults.replication", 0)
    joins = p.get("churn.joins", 0.0)
    return {
        "mean_server_out_msgs": 1.0,
        "mean_delivered_msgs": 5.0,
        "mean_lost_msgs": 0.0 if r else 100.0 * rate * (j + 1),
        "mean_repair_ip_bytes": 1000.0 * rate / (1 + r),
        "total_joins": 1000.0 * joins,
        "total_join_ip_bytes": 80_000.0 * joins * (j + 1),
        "total_join_calls": 5000.0 * joins,
    }


def test_sweeps_over_failures_and_joins_draw_loss_repair_and_join_cost(tmp_path):
    grid = {"faults.rate": [0.01, 0.02], "faults.replication": [0, 1]}
    src = write_sweep(tmp_path / "f", "faults", grid, dynamics_metrics, approaches=TIMED_SWEEP)
    out = tmp_path / "rf"
    text = build_report(src, out).read_text()
    assert ">Broker failures</h2>" in text and "faults.png" in text
    assert "Other swept parameters" not in text  # both axes drawn
    table = pd.read_csv(out / "faults.csv", index_col=[0, 1, 2])
    lost = LABELS["mean_lost_msgs"]
    assert table.loc[(0, "unicast", lost), "faults.rate=0.02"] == pytest.approx(4.0)
    assert table.loc[(1, "unicast", lost)].eq(0).all()
    grid = {"churn.joins": [1.0, 4.0]}
    src = write_sweep(tmp_path / "c", "churn", grid, dynamics_metrics, approaches=TIMED_SWEEP)
    out = tmp_path / "rc"
    text = build_report(src, out).read_text()
    assert ">Subscribers joining</h2>" in text
    table = pd.read_csv(out / "joins.csv", index_col=[0, 1])
    bytes_per = table.loc[("cn-relax", "join IP bytes per subscriber")]
    assert bytes_per.tolist() == pytest.approx([240.0, 240.0])  # 80 x (j + 1), j = 2
    assert table.loc[("paint-dense", "min_y calls per subscriber")].tolist() == [5.0, 5.0]


def test_a_run_with_churn_and_failures_is_drawn_over_time(tmp_path, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "worlds"))
    s = from_dict({
        "seed": 2, "objects": {"count": 100}, "subscriptions": {"count": 300, "k": 3},
        "events": {"count": 60}, "network": {"ip_nodes": 200, "brokers": 16},
        "algorithm": {"approaches": ["paint-dense", "cn-relax"]}, "run": {"progress": False},
        "churn": {"joins": 2.0, "lifetime": "exponential", "mean_lifetime": 30.0},
        "faults": {"brokers": [3], "at": [20], "detection": 5},
    })  # fmt: skip
    run(s, tmp_path / "run")
    out = tmp_path / "report"
    text = build_report(tmp_path / "run", out).read_text()
    assert ">Churn and failures over time</h2>" in text and "dynamics.png" in text
    assert "the 1 batches before which brokers failed" in text
    check_links(out, text)


def test_the_example_sweeps_of_churn_and_failures_are_valid():
    from cnsim.simulations.sweep import load_sweep

    root = Path(__file__).resolve().parents[2] / "examples" / "sweeps_dynamics"
    for path in sorted(root.glob("*.toml")):
        full, quick = load_sweep(path), load_sweep(path, quick=True)
        assert 1 <= len(quick.runs) < len(full.runs), path
