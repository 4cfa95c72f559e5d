"""The reproduction's report: ``index.html`` with, for every table and figure of the
paper, our curves with the paper's printed values drawn on them, the value-by-value
comparison and the verdicts on the paper's claims; ``comparison.csv``, ``claims.csv``,
``timings.csv``; and each sweep's own full report under ``sweeps/NAME/``.

An item's figure holds the parameters it does not draw at one value (the item's
choice, else the paper's default k = 10, where run; else the largest run), and its
heading states them as the runs record them (m, k, batch size), so a ``--quick`` grid
that stops at k = 10 says k = 10. A printed value is drawn where the run has its
parameters; the caption names the ones it could not draw. Seed 003 Fig. 15 (workloads)
is drawn as its two panels: the Paint-Sparse / Paint-Dense ratio per workload, and each
approach under volatile updates per c.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype

from cnsim.simulations.report.document import Document, axis_label, fmt
from cnsim.simulations.report.plots import panels, styles, value_ticks
from cnsim.simulations.report.sweep_sections import TREND_AXES
from cnsim.simulations.reproduce.catalog import Item, Reproduction
from cnsim.simulations.reproduce.compare import comparison, half_width, parameters, verdicts

K, M = "subscriptions.k", "subscriptions.count"
PAPER_DEFAULTS = {K: 10.0}  # where the paper holds a parameter not drawn
# A heading's parameters: (the rows' record of the run, the paper's symbol, the sweep
# parameter it is); the x-axis's own is left out.
SETTING = (("subscriptions", "m", M), ("k", "k", K))
# Seed 003 Fig. 15's workload parameters, and how a legend names them.
WORKLOAD = {
    "objects.distribution": "objects",
    "subscriptions.distribution": "subs.",
    "subscriptions.spread": "spread",
    M: "m =",
    "events.update": "updates",
    "events.volatility": "c =",
}
CLAIM_WIDTHS = ("42%", "4.5em", "auto")  # claim, holds, evidence


def write_document(
    doc: Document,
    repro: Reproduction,
    results: dict[str, pd.DataFrame],
    quick: bool,
    timings: list[dict],
    root: Path,
) -> Path:
    """Fill ``doc`` (in its folder ``doc.out``) and write it; the path of its index.html."""
    stage = doc.out
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
    others = int((~compared["chosen"]).sum())
    compared = compared[compared["chosen"]]  # the other readings are beside, not counted
    counted = compared[compared["runs"] > 0]
    legible = counted[counted["legible"]]
    with_ci = legible[legible["ci_low"].notna()]
    consistent = with_ci["status"].str.startswith("consistent").sum()
    agree = legible["status"].str.startswith("agrees").sum()
    inferred = (compared["provenance"] != "printed").sum()
    held = claims["holds"].value_counts()
    lines = [
        f"<p><b>{len(compared)}</b> numbers of the paper ({inferred} of them not printed "
        f"where the item stands but inferred, as <i>provenance</i> says): {len(counted)} "
        f"re-run ({len(legible)} legible in our copy). Of those, {len(with_ci)} have a 90% "
        f"interval, and the paper's value is <b>{consistent}</b> times inside it or within "
        f"{repro.slack:.0%} of its nearer end; of the {len(legible) - len(with_ci)} without "
        f"one, <b>{agree}</b> within {repro.tolerance:.0%} of ours. "
        f"{len(compared) - len(counted)} not run. Where the paper's counting is open, "
        f"the comparison shows the reading chosen (and why) and {others} rows of the other "
        f"readings beside it. <b>{len(claims)}</b> statements the "
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
    shown = frame
    workloads = [c for c in _workload_columns(item, frame) if not is_numeric_dtype(frame[c])]
    if workloads and item.metrics:
        parts.append(_workloads_figure(doc, item, frame))
    elif item.metrics:
        values = [v for v in repro.values if v.item == item.name]
        shown = _at(frame, held)
        parts.append(_figure(doc, item, shown, held, values))
    rows = compared[compared["item"] == item.name]
    if len(rows):
        parts.append(_comparison_table(doc, item, rows))
    said = claims[claims["item"] == item.name]
    if len(said):
        parts.append(
            doc.table(
                said.drop(columns=["item"]).set_index("claim"),
                f"claims_{item.sweep}",
                f"{item.name}: what the paper says, and whether it holds on our results.",
                text=True,
                widths=CLAIM_WIDTHS,
            )  # fmt: skip
        )
    if item.note:
        parts.append(f"<p class='note'>{html.escape(item.note)}</p>")
    parts.append(
        f'<p><a href="sweeps/{item.sweep}/index.html">The full report of sweep '
        f"{html.escape(item.sweep)}</a> (every metric, every parameter).</p>"
    )
    doc.section(f"{item.name} — {item.title}{setting(item, shown)}", parts)


#: the comparison's columns an item's table shows (comparison.csv has them all)
SHOWN = ("approach", "metric", "parameters", "reading", "paper", "ours", "ci_low", "ci_high",
         "expected", "status", "cause")  # fmt: skip


def _comparison_table(doc, item: Item, rows: pd.DataFrame) -> str:
    """The item's values beside ours: the shown columns (provenance where a value is not
    printed in the item, readings where the counting is open), the reasons below."""
    shown = [c for c in SHOWN if c != "reading" or rows["reading"].astype(bool).any()]
    if (rows["provenance"] != "printed").any():
        shown.insert(3, "provenance")
    table = rows[[c for c in shown if c in rows.columns]].set_index(["approach", "metric"])
    caption = (f"{item.name}: the paper's values beside ours, with our 90% interval "
               "(ci_low, ci_high) and the noise-free expectation where computed.")  # fmt: skip
    whys = [(f"{r.reading}: {r.why}", "Reading chosen" if r.chosen else "Beside it")
            for r in rows.drop_duplicates("why").itertuples() if r.why]  # fmt: skip
    notes = "".join(f"<p class='note'>{which} — {html.escape(w)}.</p>" for w, which in whys)
    return doc.table(table, f"compare_{item.sweep}", caption) + notes


def setting(item: Item, rows: pd.DataFrame) -> str:
    """The parameters the item's rows were run at, other than its x-axis, as the
    heading states them: `` (k = 10)``, `` (m = 2,000,000)``, the batch size if events
    are batched; read from the rows' own record of the run (the sweep may not vary
    them), several values joined by "or"."""
    parts = []
    for column, symbol, parameter in SETTING:
        if parameter == item.x or column not in rows.columns:
            continue
        found = sorted(pd.to_numeric(rows[column], errors="coerce").dropna().unique())
        if found:
            parts.append(f"{symbol} = {' or '.join(fmt(v) for v in found)}")
    if "batch_size" in rows.columns and (rows["batch_size"] > 1).any():
        sizes = " or ".join(fmt(v) for v in sorted(rows["batch_size"].unique()))
        whole = "events" in rows.columns and bool((rows["batch_size"] == rows["events"]).all())
        parts.append(f"one batch of {sizes} events" if whole else f"batches of {sizes} events")
    return f" ({', '.join(parts)})" if parts else ""


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


def _at(frame: pd.DataFrame, held: dict[str, float]) -> pd.DataFrame:
    """The rows at the ``held`` parameter values."""
    mask = np.ones(len(frame), dtype=bool)
    for column, value in held.items():
        mask &= np.isclose(pd.to_numeric(frame[column], errors="coerce"), value)
    return frame[mask]


def _figure(doc, item: Item, rows: pd.DataFrame, held: dict, values) -> str:
    """One panel per metric (a grid, at most three a row) of ours against the x-axis,
    one line per approach, with the paper's printed values where it gives them at the
    parameters drawn."""
    approaches = list(item.approaches) or list(dict.fromkeys(rows["approach"]))
    look = styles(approaches)
    metrics = [m for m in item.metrics if m in rows.columns]
    fig, axes = panels(len(metrics), legend=0.5)
    xs_run = set(pd.to_numeric(rows[item.x], errors="coerce").dropna())
    drawn = []
    for ax, metric in zip(axes, metrics, strict=True):
        curve = rows.pivot_table(index=item.x, columns="approach", values=metric)
        for approach in approaches:
            if approach not in curve.columns:
                continue
            colour, mark = look[approach]
            bars = _half_widths(rows[rows["approach"] == approach], item.x, metric)
            ax.errorbar(curve.index, curve[approach], yerr=bars.reindex(curve.index),
                        marker=mark, color=colour, label=approach, linewidth=1.3,
                        markersize=5, capsize=3, elinewidth=0.9)  # fmt: skip
            printed = [v for v in values if v.metric == metric and v.approach == approach
                       and _matches(v, item.x, held, xs_run)]  # fmt: skip
            if printed:
                drawn += printed
                xs = [dict(v.where)[item.x] for v in printed]
                ax.plot(xs, [v.value for v in printed], linestyle="--", marker=mark,
                        markerfacecolor="none", color=colour, linewidth=0.8,
                        markersize=9, label=f"{approach} (paper)")  # fmt: skip
        positive = (curve > 0).all().all() and len(curve)
        if positive and curve.max().max() / max(curve.min().min(), 1e-300) > 30:
            ax.set_yscale("log")
        value_ticks(ax, rows[item.x])
        ax.set_xlabel(TREND_AXES.get(item.x, item.x), fontsize=9)
        ax.set_ylabel(axis_label(metric), fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    _legend(fig, axes)
    at = f" at {parameters(held)}" if held else ""
    beside = " beside the paper's printed values (hollow markers, dashed)" if drawn else ""
    note = _paper_note(values, drawn, metrics)
    caption = (f"{item.name}: ours{at}, mean over repeats (filled markers) with its 90% "
               f"interval (bars, where the runs give one){beside}. {note}")  # fmt: skip
    return doc.figure(fig, f"fig_{item.sweep}", caption)


def _half_widths(rows: pd.DataFrame, x: str, metric: str) -> pd.Series:
    """Per value of ``x``: the 90% half-width of the mean of ``metric`` over the rows
    there (:func:`cnsim.simulations.reproduce.compare.half_width`; NaN: none)."""
    return rows.groupby(x).apply(lambda g: half_width(g, metric), include_groups=False)


def _legend(fig, axes, ncol: int = 4) -> None:
    """One legend below the panels with every panel's lines, once each (a panel may
    lack an approach)."""
    shown = {}
    for ax in axes:
        for handle, name in zip(*ax.get_legend_handles_labels(), strict=True):
            shown.setdefault(name, handle)
    ncol = min(ncol, len(shown)) or 1
    fig.legend(shown.values(), shown.keys(), fontsize=8, loc="outside lower center", ncol=ncol)


def _paper_note(values, drawn, metrics) -> str:
    """Which of the paper's printed values the figure draws, and why not the others."""
    wanted = [v for v in values if v.metric in metrics]
    if not wanted:
        return "The paper prints no values for this figure (its curves are drawn only)."
    if len(drawn) == len(wanted):
        return f"All {len(wanted)} printed values are drawn."
    missing = sorted((v for v in wanted if v not in drawn), key=lambda v: v.where)
    at = list(dict.fromkeys(parameters(dict(v.where)) for v in missing))
    shown = f"{len(drawn)} of {len(wanted)} printed values drawn; the" if drawn else "The"
    return (
        f"{shown} paper's values at {'; '.join(at)} are not drawn: this run has no runs at "
        "those parameters."
    )


def _matches(value, x: str, held: dict, xs_run: set) -> bool:
    """Whether a printed value lies on the figure: at the held parameters it names, and
    at an x this run reached."""
    where = dict(value.where)
    if x not in where or not any(math.isclose(where[x], v) for v in xs_run):
        return False
    return all(math.isclose(where[c], v) for c, v in held.items() if c in where)


def _workload_columns(item: Item, frame: pd.DataFrame) -> list[str]:
    """The workload parameters (distributions, spread, m, update model) the item's sweep
    varies beside its x-axis — seed 003 Fig. 15 — in the order of WORKLOAD."""
    return [c for c in WORKLOAD if c in frame.columns and c != item.x
            and frame[c].nunique(dropna=False) > 1]  # fmt: skip


def _workloads_figure(doc, item: Item, frame: pd.DataFrame) -> str:
    """Seed 003 Fig. 15: (a) Paint-Sparse / Paint-Dense of the item's metric against the
    x-axis, one line per workload with uniform updates; (b) the metric of each approach
    against the x-axis, one line per volatility c of the volatile updates."""
    metric = item.metrics[0]
    keys = _workload_columns(item, frame)
    update = frame["events.update"] if "events.update" in frame.columns else None
    uniform = frame if update is None else frame[update != "volatile"]
    volatile = frame.iloc[:0] if update is None else frame[update == "volatile"]
    fig, axes = panels(2 if len(volatile) else 1, per_row=2, height=3.4, legend=0.9)
    varied = [c for c in keys if uniform[c].nunique(dropna=False) > 1]
    table = uniform.pivot_table(index=[*varied, item.x], columns="approach", values=metric)
    ratio = (table["paint-sparse"] / table["paint-dense"]).dropna()
    names = {w: _workload_name(varied, w) for w in ratio.index.droplevel(item.x).unique()}
    if len(volatile):
        table_b = volatile.pivot_table(index=item.x, columns=["approach", "events.volatility"],
                                       values=metric)  # fmt: skip
        names_b = {col: f"{col[0]}, c = {fmt(col[1])}" for col in table_b.columns}
    else:
        names_b = {}
    look = styles([*names.values(), *names_b.values()])  # distinct across both panels
    ax = axes[0]
    for w, name in names.items():
        s = ratio.xs(w if isinstance(w, tuple) else (w,), level=tuple(varied)).sort_index()
        colour, mark = look[name]
        ax.plot(s.index, s.to_numpy(), marker=mark, color=colour, label=name, markersize=5)
    ax.axhline(1, color="#888", lw=0.8, ls="--")
    ax.set_xlabel(TREND_AXES.get(item.x, item.x), fontsize=9)
    ax.set_ylabel(f"{axis_label(metric)}: Paint-Sparse / Paint-Dense", fontsize=9)
    ax.set_title("(a) workloads, uniform updates", fontsize=9)
    if len(volatile):
        ax = axes[1]
        for col, name in names_b.items():
            colour, mark = look[name]
            ax.plot(table_b.index, table_b[col], marker=mark, color=colour, label=name,
                    markersize=5)  # fmt: skip
        ax.set_xlabel(TREND_AXES.get(item.x, item.x), fontsize=9)
        ax.set_ylabel(axis_label(metric), fontsize=9)
        ax.set_title("(b) volatile updates (Gaussian change, σ = c/8 of the range)", fontsize=9)
    for ax in axes:
        value_ticks(ax, frame[item.x])
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    _legend(fig, axes, ncol=2)
    caption = (
        f"{item.name}: (a) the ratio of {axis_label(metric)} of Paint-Sparse to Paint-Dense "
        "per workload, below 1 where knowing S lets Paint-Sparse skip empty regions; (b) "
        "the same metric of each approach under volatile updates, per volatility c; mean "
        "over repeats. The paper prints no values for this figure (its curves are drawn "
        "only)."
    )
    return doc.figure(fig, f"fig_{item.sweep}", caption)


def _workload_name(keys: list[str], workload) -> str:
    values = workload if isinstance(workload, tuple) else (workload,)
    return ", ".join(f"{WORKLOAD[k]} {fmt(v)}" for k, v in zip(keys, values, strict=True))


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
