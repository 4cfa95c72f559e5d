"""The reproduction's report: ``index.html`` with, for every table and figure of the
paper, our curves with the paper's printed values drawn on them, the value-by-value
comparison and the verdicts on the paper's claims; ``comparison.csv``, ``claims.csv``,
``timings.csv``; and each sweep's own full report under ``sweeps/NAME/``.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np
import pandas as pd

from cnsim.simulations.report.document import Document, label
from cnsim.simulations.report.plots import color, marker
from cnsim.simulations.report.sweep_sections import TREND_AXES
from cnsim.simulations.reproduce.catalog import Item, Reproduction
from cnsim.simulations.reproduce.compare import comparison, parameters, verdicts

PAPER_DEFAULTS = {"subscriptions.k": 10.0}  # where the paper holds a parameter not drawn


def reproduction_report(
    stage: Path,
    repro: Reproduction,
    results: dict[str, pd.DataFrame],
    quick: bool,
    timings: list[dict],
    root: Path,
) -> Path:
    """Write the report into ``stage``; the path of its ``index.html``."""
    doc = Document(stage)
    compared = comparison(repro, results, quick)
    claims = verdicts(repro, results)
    compared.to_csv(stage / "comparison.csv", index=False)
    claims.to_csv(stage / "claims.csv", index=False)
    times = _timings(repro, results, timings)
    times.to_csv(stage / "timings.csv", index=False)
    _overview(doc, repro, compared, claims, times, quick)
    for item in repro.items:
        _item(doc, item, repro, results, compared, claims)
    _sweep_reports(doc, repro, root, stage)
    mode = "--quick sizes (not the paper's)" if quick else "the paper's parameters"
    subtitle = html.escape(f"{repro.title} — re-run at {mode}")
    return doc.write(f"cnsim reproduce {repro.name}", subtitle)


def _overview(doc, repro, compared, claims, times, quick) -> None:
    counted = compared[compared["runs"] > 0]
    legible = counted[counted["legible"]]
    agree = legible["status"].str.startswith("agrees").sum()
    held = claims["holds"].value_counts()
    lines = [
        f"<p><b>{len(compared)}</b> numbers printed in the paper: {len(counted)} re-run "
        f"({len(legible)} legible in our copy), of which <b>{agree}</b> agree within "
        f"{repro.tolerance:.0%} and {len(legible) - agree} differ; "
        f"{len(compared) - len(counted)} not run. <b>{len(claims)}</b> statements the "
        f"paper makes about its figures: {held.get('yes', 0)} hold on our results, "
        f"{held.get('no', 0)} do not, {held.get('untested', 0)} untested.</p>",
        '<p>Files: <a class="csv" href="comparison.csv">comparison.csv</a> (every printed '
        'value beside ours), <a class="csv" href="claims.csv">claims.csv</a>, '
        '<a class="csv" href="timings.csv">timings.csv</a>.</p>',
    ]
    if quick:
        lines.insert(
            0,
            "<p class='note'>This is the <b>--quick</b> reproduction: every sweep at its "
            "[quick] sizes (a few thousand subscriptions instead of millions). It shows that "
            "the pipeline works; its deviations from the paper say nothing about fidelity. "
            "Run without --quick for the paper's parameters.</p>",
        )
    lines.append(doc.table(times.set_index("sweep"), "timings", "Runs and wall time by sweep."))
    doc.section("Overview", lines)


def _item(doc, item: Item, repro, results, compared, claims) -> None:
    parts = []
    frame = results.get(item.sweep)
    if frame is None or frame.empty:
        doc.skipped.append(f"{item.name}: sweep {item.sweep} has no successful runs")
        return
    held = _held(item, frame)
    if item.metrics:
        values = [v for v in repro.values if v.item == item.name]
        parts.append(_figure(doc, item, frame, held, values))
    rows = compared[compared["item"] == item.name]
    if len(rows):
        table = rows.drop(columns=["item", "scale"]).set_index(["approach", "metric"])
        parts.append(
            doc.table(
                table,
                f"compare_{item.sweep}",
                f"{item.name}: the paper's printed values beside ours (ratio = ours / paper).",
            )  # fmt: skip
        )
    said = claims[claims["item"] == item.name]
    if len(said):
        parts.append(
            doc.table(
                said.drop(columns=["item"]).set_index("claim"),
                f"claims_{item.sweep}",
                f"{item.name}: what the paper says, and whether it holds on our results.",
                text=True,
            )  # fmt: skip
        )
    if item.note:
        parts.append(f"<p class='note'>{html.escape(item.note)}</p>")
    parts.append(
        f'<p><a href="sweeps/{item.sweep}/index.html">The full report of sweep '
        f"{html.escape(item.sweep)}</a> (every metric, every parameter).</p>"
    )
    doc.section(f"{item.name} — {item.title}", parts)


def _held(item: Item, frame: pd.DataFrame) -> dict[str, float]:
    """The values of the swept parameters other than the x-axis that the figure holds:
    the item's choice or the paper's default where run, else the largest run."""
    held = {}
    grid = [c for c in frame.columns if "." in c and c != item.x]
    wanted = {**PAPER_DEFAULTS, **dict(item.hold)}
    for column in grid:
        numeric = pd.to_numeric(frame[column], errors="coerce")
        if numeric.isna().any() or numeric.nunique() < 2:
            continue
        want = wanted.get(column)
        run = want is not None and bool((numeric == want).any())
        held[column] = float(want if run else numeric.max())
    return held


def _figure(doc, item: Item, frame: pd.DataFrame, held: dict, values) -> str:
    from matplotlib.figure import Figure

    mask = np.ones(len(frame), dtype=bool)
    for column, value in held.items():
        mask &= np.isclose(pd.to_numeric(frame[column], errors="coerce"), value)
    rows = frame[mask]
    approaches = list(item.approaches) or list(dict.fromkeys(rows["approach"]))
    metrics = [m for m in item.metrics if m in rows.columns]
    fig = Figure(figsize=(4.2 * len(metrics) + 1.5, 3.6), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(metrics)))
    for ax, metric in zip(axes, metrics, strict=True):
        curve = rows.pivot_table(index=item.x, columns="approach", values=metric)
        for i, approach in enumerate(approaches):  # one colour per approach in every panel
            if approach not in curve.columns:
                continue
            ax.plot(curve.index, curve[approach], marker=marker(i), color=color(i),
                    label=approach, linewidth=1.3, markersize=4)  # fmt: skip
            printed = [v for v in values if v.metric == metric and v.approach == approach
                       and _matches(v, item.x, held)]  # fmt: skip
            if printed:
                xs = [dict(v.where)[item.x] for v in printed]
                ax.plot(xs, [v.value for v in printed], linestyle="--", marker=marker(i),
                        markerfacecolor="none", color=color(i), linewidth=0.8,
                        markersize=7, label=f"{approach} (paper)")  # fmt: skip
        positive = (curve > 0).all().all() and len(curve)
        if positive and curve.max().max() / max(curve.min().min(), 1e-300) > 30:
            ax.set_yscale("log")
        if item.x == "subscriptions.count":
            ax.set_xscale("log")
        ax.set_xlabel(TREND_AXES.get(item.x, item.x))
        ax.set_ylabel(label(metric), fontsize=8)
        ax.grid(alpha=0.3)
    shown = {}  # every panel's lines, once each (a panel may lack an approach)
    for ax in axes:
        for handle, name in zip(*ax.get_legend_handles_labels(), strict=True):
            shown.setdefault(name, handle)
    fig.legend(shown.values(), shown.keys(), fontsize=7, loc="outside right center")
    at = f" at {parameters(held)}" if held else ""
    caption = (
        f"{item.name}: ours (filled markers) and the paper's printed values (hollow markers, "
        f"dashed){at}; mean over repeats."
    )
    return doc.figure(fig, f"fig_{item.sweep}", caption)


def _matches(value, x: str, held: dict) -> bool:
    where = dict(value.where)
    return x in where and all(math.isclose(where[c], v) for c, v in held.items() if c in where)


def _timings(repro: Reproduction, results: dict[str, pd.DataFrame], timings: list[dict]):
    """Per sweep: runs, what this invocation did, its wall time, and the summed run time
    and CPU time of every successful run in the dataset (its cost from scratch, serially;
    on a machine shared with other work the CPU time is the fairer measure)."""
    rows = []
    done = {t["sweep"]: t for t in timings}
    for name in repro.sweeps:
        data = results.get(name, pd.DataFrame())
        run_time, cpu_time = (_summed(data, column) for column in ("total_time_s", "cpu_time_s"))
        t = done.get(name, {})
        rows.append(
            {
                "sweep": name,
                "runs": t.get("runs", data["run_id"].nunique() if len(data) else 0),
                "run_now": t.get("run_now", 0),
                "failed": t.get("failed", 0),
                "wall_s": t.get("wall_s", math.nan),
                "run_time_s": run_time,
                "cpu_time_s": cpu_time,
            }
        )
    frame = pd.DataFrame(rows)
    total = {
        "sweep": "total", "runs": frame["runs"].sum(), "run_now": frame["run_now"].sum(),
        "failed": frame["failed"].sum(), "wall_s": frame["wall_s"].sum(min_count=1),
        "run_time_s": frame["run_time_s"].sum(min_count=1),
        "cpu_time_s": frame["cpu_time_s"].sum(min_count=1),
    }  # fmt: skip
    return pd.concat([frame, pd.DataFrame([total])], ignore_index=True)


def _summed(data: pd.DataFrame, column: str) -> float:
    """A per-run quantity summed over the dataset's runs (NaN where not recorded)."""
    if column not in data.columns:
        return math.nan
    return float(data.groupby("run_id")[column].max().sum(min_count=1))


def _sweep_reports(doc, repro: Reproduction, root: Path, stage: Path) -> None:
    """Each sweep's own report (``cnsim report`` of its dataset) under ``sweeps/NAME``."""
    from cnsim.simulations.report.sweep_sections import sweep_report

    for name in repro.sweeps:
        folder = root / "sweeps" / name
        if not any(folder.glob("run-*.parquet")):
            continue
        target = stage / "sweeps" / name
        target.mkdir(parents=True)
        sweep_report(Document(target), folder)
