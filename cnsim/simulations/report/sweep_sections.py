"""The sections of a sweep's report (``cnsim sweep --out DIR``): the sweep's parameters
and failures, then seed 003 §V's trends against k and m (Fig. 11–14, Tables I–IV),
server traffic against ε (Fig. 12(b)), workloads (Fig. 15) and batch processing
(Fig. 16), and a trend of the main metrics against every other numeric parameter
swept. A parameter nothing could be drawn against is named under "Not shown".

Each figure varies one parameter and holds the others at one value (the paper's
default where swept, else the most common). A dataset may hold several sweeps: a
parameter one sweep does not vary is missing ("unset") in the other's rows, and
holding it unset selects the runs of the sweeps that leave it alone.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import NullLocator

from cnsim.errors import InputError
from cnsim.simulations.metrics import CATALOG, SummaryColumn
from cnsim.simulations.report.document import (
    PAPER,
    Document,
    axis_label,
    fmt,
    key,
    label,
    parquet_files,
    read_parquet,
    sort_key,
    spec_of,
)
from cnsim.simulations.report.plots import bars, color, figure, styles, value_ticks
from cnsim.simulations.report.plots import panels as grid
from cnsim.simulations.report.run_sections import call_metrics

# Sweep parameters the paper's trends are drawn against, with the paper's name for them.
TREND_AXES = {"subscriptions.k": "k", "subscriptions.count": "m (subscriptions)"}
# The paper's default workload: the value other parameters are held at when they vary.
PAPER_DEFAULTS = {
    "subscriptions.k": 10,
    "objects.distribution": "uniform",
    "subscriptions.distribution": "uniform",
    "events.update": "uniform",
    "events.batch_size": 1,
}
WORKLOAD_KEYS = (
    "objects.distribution",
    "subscriptions.distribution",
    "subscriptions.spread",
    "subscriptions.count",
)


@dataclass
class SweepData:
    """A sweep dataset split into successful rows, failures and parameter columns;
    ``drawn`` collects the parameters a figure or table was drawn against."""

    ok: pd.DataFrame
    failed: pd.DataFrame
    params: list[str]
    drawn: set[str] = field(default_factory=set)

    @property
    def approaches(self) -> list[str]:
        """Approaches in order of first appearance."""
        return list(dict.fromkeys(self.ok["approach"]))

    def varying(self) -> list[str]:
        """Parameters with more than one value (unset counts as one) among successful rows."""
        return [p for p in self.params if self.ok[p].nunique(dropna=False) > 1]

    def has(self, column: str) -> bool:
        """Whether ``column`` exists with at least one value."""
        return column in self.ok.columns and self.ok[column].notna().any()

    def first(self, *columns: str) -> str:
        """The first of ``columns`` the dataset has (the last one if none)."""
        return next((c for c in columns if self.has(c)), columns[-1])

    def subset(self, rows: pd.DataFrame) -> SweepData:
        """The same sweep restricted to ``rows`` (figures drawn from it count as drawn)."""
        return SweepData(rows, self.failed, self.params, self.drawn)


def load_sweep(src: Path) -> SweepData:
    """Read a sweep dataset (a directory of Parquet files, or one file)."""
    data = _read_sweep(src)
    if "approach" not in data.columns:
        raise InputError(f"{str(src)!r}: sweep dataset has no 'approach' column")
    error = data["error"] if "error" in data.columns else pd.Series(None, data.index, object)
    failed = error.notna() & (error.astype(str).str.strip() != "")  # "" also means success
    params = [c for c in data.columns if "." in c]
    ok = data[~failed].reset_index(drop=True)
    return SweepData(ok, data[failed].reset_index(drop=True), params)


def _read_sweep(src: Path) -> pd.DataFrame:
    """All rows of the dataset. File by file: a failed run's file lacks the metric
    columns, and a dataset reader would take its schema from whichever file comes first."""
    files = parquet_files(src) if src.is_dir() else [src]
    return pd.concat([read_parquet(f) for f in files], ignore_index=True)


def sweep_report(doc: Document, src: Path) -> Path:
    """Write the report of the sweep dataset ``src``; the path of its ``index.html``."""
    sweep = load_sweep(src)
    _overview(doc, sweep)
    if sweep.ok.empty:
        doc.skipped.append("Every run of the sweep failed: no figures.")
    else:
        sections = (_server, _broker, _received, _calls, _workloads, _batch, _faults, _churn,
                    _other_axes)  # fmt: skip
        for section in sections:
            section(doc, sweep)
    failed = len(_failed_runs(sweep)) if len(sweep.failed) else 0
    subtitle = html.escape(
        f"Sweep {src.resolve().name} — {_run_count(sweep.ok)} successful runs, {failed} failed, "
        f"{len(sweep.approaches)} approaches"
    )
    return doc.write("cnsim sweep report", subtitle)


def _run_count(frame: pd.DataFrame) -> int:
    run_key = next((c for c in ("run_id", "run") if c in frame.columns), None)
    if run_key is not None:
        return int(frame[run_key].nunique())
    params = [c for c in frame.columns if "." in c]
    return int(len(frame.drop_duplicates(params))) if params else len(frame)


def _overview(doc: Document, sweep: SweepData) -> None:
    rows = {
        p: ", ".join(fmt(v) for v in sorted(sweep.ok[p].dropna().unique(), key=sort_key))
        for p in sweep.varying()
    }
    items = []
    if rows:
        table = pd.DataFrame({"values": rows})
        table.index.name = "parameter"
        cap = "Parameters the sweep varies, and their values."
        items.append(doc.table(table, "parameters", cap, text=True))
    names = list(dict.fromkeys(sweep.ok["sweep"].dropna())) if sweep.has("sweep") else []
    if len(names) > 1:
        items.append(
            f'<p class="note">This dataset holds {len(names)} sweeps ('
            f"{html.escape(', '.join(map(str, names)))}). A parameter a sweep does not vary is "
            "unset in its rows; each figure holds the parameters it does not vary at one "
            "value, so it shows the runs of one sweep at a time.</p>"
        )
    data = pd.concat([sweep.ok, sweep.failed], ignore_index=True)
    data.to_csv(doc.out / "sweep.csv", index=False)
    items.append(
        f"<p>Approaches: {html.escape(', '.join(sweep.approaches))}. "
        '<a class="csv" href="sweep.csv">The whole dataset as CSV</a>.</p>'
    )
    if not sweep.failed.empty:
        items.append('<p class="note">Some runs failed; they are left out of every figure.</p>')
        cap = "Failed runs and their errors."
        items.append(doc.table(_failed_runs(sweep), "failed", cap, text=True))
    doc.section("Sweep", items)


def _failed_runs(sweep: SweepData) -> pd.DataFrame:
    """One row per failed run (a run fails for all its approaches at once)."""
    run_key = [c for c in ("run_id", "run") if c in sweep.failed.columns][:1]
    varying = [p for p in sweep.params if sweep.failed[p].nunique(dropna=False) > 1]
    cols = list(dict.fromkeys([*run_key, *varying, "error"]))
    failed = sweep.failed[cols].astype(str).drop_duplicates()
    return failed.set_index(run_key[0]) if run_key else failed.reset_index(drop=True)


# ---------------------------------------------------------------- seed 003 §V


def _server(doc: Document, sweep: SweepData) -> None:
    items = []
    for x in _axes(sweep):
        for metric, fig_ref, what in (
            (key("server_out_bytes", "mean"), "Fig. 11 / 12(a)", "Mean"),
            (key("server_out_bytes", "max"), "Fig. 13(a)", "Maximum"),
        ):
            what = f"{what} outgoing server traffic {_per(sweep)}"
            items += _trend(doc, sweep, x, metric, what, fig_ref)
    items += _eps_trend(doc, sweep)
    doc.section("Outgoing traffic from the server", items)


def _broker(doc: Document, sweep: SweepData) -> None:
    items = []
    for x in _axes(sweep):
        for name, what in (("overlay_bytes", "Overlay"), ("ip_bytes", "IP")):
            ref = CATALOG[name].paper
            items += _trend(doc, sweep, x, key(name), f"{what} traffic in the broker network", ref)
    doc.section("Traffic in the broker network", items)


def _received(doc: Document, sweep: SweepData) -> None:
    items = []
    for x in _axes(sweep):
        name = _axis_name(x)
        for metric, what in (
            ("delivered_msgs", f"Messages received {_per(sweep)}"),
            ("redundancy", "Redundancy in messages received (N/N_exact − 1)"),
        ):
            column = key(metric, "run" if metric == "redundancy" else "mean")
            if not sweep.has(column):
                continue
            rows, fixed = _hold_others(sweep, x)
            table = rows.groupby(["approach", x])[column].mean().unstack(x)
            table = table.reindex([a for a in sweep.approaches if a in table.index])
            table.columns = [f"{name}={fmt(c)}" for c in table.columns]
            table.index.name = "approach"
            cap = f"{what}; approaches × {name}. Mirrors {PAPER} {CATALOG[metric].paper}."
            cap += fixed + _mean_note(rows, ["approach", x])
            items.append(doc.table(table, f"{column}_by_{name}", cap))
            sweep.drawn.add(x)
    doc.section("Messages received by subscriptions", items)


def _calls(doc: Document, sweep: SweepData) -> None:
    calls = [key(m.name) for m in call_metrics() if sweep.has(key(m.name))]
    if not calls:
        doc.skipped.append("No mean_calls_* columns in the sweep: no server-cost tables.")
        return
    items = []
    for x, ref in (("subscriptions.k", "Table III"), ("subscriptions.count", "Table IV")):
        if x not in sweep.varying():
            continue
        rows, fixed = _hold_others(sweep, x)
        table = _by_axis(sweep, rows, x, calls, "call")
        table = table[(table != 0).any(axis=1)]  # calls an approach never makes
        cap = (
            f"Average number of calls {_per(sweep)} to the server's data structures, by approach "
            f"and call type, against {_axis_name(x)}. Mirrors {PAPER} {ref} (transposed)."
        )
        cap += fixed + _mean_note(rows, ["approach", x])
        items.append(doc.table(table, f"calls_by_{_axis_name(x)}", cap))
        sweep.drawn.add(x)
    doc.section("Server processing cost", items)


def _workloads(doc: Document, sweep: SweepData) -> None:
    items = []
    dists = [p for p in WORKLOAD_KEYS[:2] if p in sweep.varying()]
    metric = sweep.first(key("server_out_msgs"), key("server_out_bytes"))
    have = set(sweep.approaches)
    if dists and {"paint-dense", "paint-sparse"} <= have and sweep.has(metric):
        keys = [p for p in WORKLOAD_KEYS if p in sweep.varying()]
        items.append(_workload_ratio(doc, sweep, keys, metric))
    if "events.volatility" in sweep.varying():
        what = "Outgoing server traffic per event vs volatility c"
        column = key("server_out_bytes")
        items += _trend(doc, sweep, "events.volatility", column, what, "Fig. 15(b)")
    doc.section("Workloads", items)


def _workload_ratio(doc: Document, sweep: SweepData, keys: list[str], metric: str) -> str:
    """Bars of Paint-Sparse / Paint-Dense messages, one per workload (combination of
    distributions, spread and m) present in the sweep."""
    rows, fixed = _hold_others(sweep, *keys)
    keys = [k for k in keys if rows[k].nunique() > 1]  # label only what tells bars apart
    sweep.drawn.update(keys)
    means = rows.groupby([*keys, "approach"])[metric].mean().unstack("approach")
    ratio = (means["paint-sparse"] / means["paint-dense"]).dropna()
    tuples = [i if isinstance(i, tuple) else (i,) for i in ratio.index]
    labels = ["\n".join(fmt(v) for v in t) for t in tuples]  # one line per key: no clipping
    fig, ax = figure()
    ax.bar(range(len(ratio)), ratio.to_numpy(), color=color(1))
    ax.set_xticks(range(len(ratio)), labels, fontsize=8)
    ax.axhline(1, color="#888", lw=0.8, ls="--")
    ax.set_ylabel(f"{axis_label(metric)}: Paint-Sparse / Paint-Dense")
    ax.set_xlabel(" / ".join(keys))
    cap = (
        f"Ratio of messages generated by Paint-Sparse to Paint-Dense per workload ({metric}); "
        f"below 1 where knowing S lets Paint-Sparse skip empty regions. Mirrors {PAPER} "
        f"Fig. 15(a).{fixed}{_mean_note(rows, [*keys, 'approach'])}"
    )
    return doc.figure(fig, "workload_ratio", cap)


def _batch(doc: Document, sweep: SweepData) -> None:
    batch = [a for a in sweep.approaches if (s := spec_of(a)) and s.batch]
    if not batch:
        return
    x = "subscriptions.k" if "subscriptions.k" in sweep.varying() else None
    gen = sweep.first(key("server_out_msgs"))
    rec = sweep.first(key("delivered_msgs", "total"), key("delivered_msgs"))
    panels = [
        (c, t)
        for c, t in (
            (gen, "messages generated"),
            (rec, "messages received"),
            (key("calls_min_y"), "min_y calls per batch"),
        )
        if sweep.has(c)
    ]
    sub = sweep.subset(sweep.ok[sweep.ok["approach"].isin(batch)])
    fig, axes = grid(len(panels), height=3.2, legend=0.4)
    fixed = ""
    for ax, (metric, title) in zip(axes, panels, strict=True):
        if x is None:
            rows, fixed = _hold_others(sub)
            bars(ax, rows.groupby("approach", sort=False)[metric].mean(), log=False,
                 look=styles(sub.approaches))  # fmt: skip
        else:
            fixed = _lines(ax, sub, x, metric, log=False)[1]
            ax.set_xlabel("k")
        ax.set_title(title, fontsize=9)
        ax.set_ylabel(axis_label(metric), fontsize=9)
    if x is not None:  # one legend for the three panels
        handles, labels = fig.axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8)
        sweep.drawn.add(x)
    cap = (
        "Paint-Batch against Coalesce and Online: messages generated by the server, messages "
        f"received by subscriptions and min_y calls. Mirrors {PAPER} Fig. 16(a), (b), (c).{fixed}"
    )
    doc.section("Batch processing", [doc.figure(fig, "batch", cap)])


FAULT_RATE, REPLICATION, JOINS = "faults.rate", "faults.replication", "churn.joins"


def _faults(doc: Document, sweep: SweepData) -> None:
    """Notifications lost and repair traffic against the broker failure rate, per
    approach, a pair of panels per replication factor (``[faults]``)."""
    if FAULT_RATE not in sweep.varying() or not sweep.has(key("lost_msgs")):
        return
    by_r = REPLICATION in sweep.varying()
    rs = sorted(sweep.ok[REPLICATION].dropna().unique()) if by_r else [None]
    metrics = [
        (key("lost_msgs"), "notifications lost"),
        (key("repair_ip_bytes"), "repair IP bytes"),
    ]
    fig, axes = grid(len(metrics) * len(rs), per_row=len(metrics), height=2.8, legend=0.4)
    fixed, tables = "", []
    for i, r in enumerate(rs):
        sub = sweep if r is None else sweep.subset(sweep.ok[_is(sweep.ok[REPLICATION], r)])
        rows, _ = _hold_others(sub, FAULT_RATE)
        table = _by_axis(sub, rows, FAULT_RATE, [m for m, _ in metrics], "per event")
        if r is not None:
            table = pd.concat({int(r): table}, names=["replication"])
        tables.append(table)
        for j, (metric, title) in enumerate(metrics):
            ax = axes[i * len(metrics) + j]
            fixed = _lines(ax, sub, FAULT_RATE, metric, log=False)[1]
            ax.set_xlabel("broker failures per event")
            ax.set_ylabel(axis_label(metric), fontsize=9)
            ax.set_title(title if r is None else f"{title}, replication {int(r)}", fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=8)
    sweep.drawn.update({FAULT_RATE, REPLICATION} if by_r else {FAULT_RATE})
    cap = (
        "What broker failures cost each approach over the Meghdoot overlay: notifications "
        "lost (deliveries to subscriptions no broker up holds, until they re-subscribe) "
        "and repair traffic (zones handed back, re-subscriptions and their first lists), "
        f"per event, against the failure rate{', one row per replication factor' if by_r else ''}"
        f".{fixed}"
    )
    table = doc.table(pd.concat(tables), "faults", "The figure's values.")
    doc.section("Broker failures", [doc.figure(fig, "faults", cap), table])


def _churn(doc: Document, sweep: SweepData) -> None:
    """What a joining subscriber costs against the join rate, per approach
    (``[churn]``)."""
    if JOINS not in sweep.varying() or not sweep.has(key("join_ip_bytes", "total")):
        return
    ok = sweep.ok
    joined = ok[key("joins", "total")].where(ok[key("joins", "total")] > 0)
    per = {
        "join IP bytes per subscriber": ok[key("join_ip_bytes", "total")] / joined,
        "min_y calls per subscriber": ok[key("join_calls", "total")] / joined,
    }
    sub = sweep.subset(ok.assign(**per))
    fig, axes = grid(len(per), height=2.9, legend=0.4)
    fixed = ""
    for ax, metric in zip(axes, per, strict=True):
        fixed = _lines(ax, sub, JOINS, metric, log=False)[1]
        ax.set_xlabel("subscriptions joining per event")
        ax.set_ylabel(metric, fontsize=9)
        ax.set_title(f"{metric} joining", fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=8)
    sweep.drawn.add(JOINS)
    cap = (
        "What a joining subscriber costs each approach: the IP bytes of its first list (from "
        "the server through its gateway broker; CN-Relax: its whole range from the gateway) "
        f"and the server's min_y calls for it, against the join rate.{fixed}"
    )
    rows, _ = _hold_others(sub, JOINS)
    table = doc.table(_by_axis(sub, rows, JOINS, list(per), "per subscriber joining"), "joins",
                      "The figure's values.")  # fmt: skip
    doc.section("Subscribers joining", [doc.figure(fig, "joins", cap), table])


def _eps_trend(doc: Document, sweep: SweepData) -> list[str]:
    """Server traffic against ε per Paint family (seed 003 Fig. 12(b))."""
    specs = sweep.ok["approach"].map(spec_of)
    approximate = specs.map(lambda s: s is not None and s.batch is None and s.eps is not None)
    rows = sweep.ok[approximate].assign(
        family=specs[approximate].map(lambda s: s.family),
        eps=specs[approximate].map(lambda s: s.eps),
    )
    per_family = rows.groupby("family")["eps"].transform("nunique")
    rows = rows[per_family >= 2]  # a family with one ε has no trend to show
    if rows.empty:
        return []
    rows, fixed = _hold_others(sweep.subset(rows))
    fixed += _mean_note(rows, ["family", "eps"])
    metric = key("server_out_bytes")
    means = rows.groupby(["family", "eps"])[metric].mean()
    fig, ax = figure()
    families = list(means.index.get_level_values(0).unique())
    look = styles(families)  # a family's line in its exact approach's style
    for family in families:
        s = means.loc[family].sort_index()
        colour, mark = look[family]
        ax.plot(s.index, s.to_numpy(), marker=mark, color=colour, label=f"{family}(ε)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks = sorted(rows["eps"].unique())
    ax.set_xticks(ticks, [f"1/{round(1 / t)}" if t < 1 else "1" for t in ticks])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("ε")
    ax.set_ylabel(label(metric))
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    cap = (
        "Mean outgoing server traffic per event against ε for the approximate variants "
        f"(log-log). Mirrors {PAPER} Fig. 12(b).{fixed}"
    )
    return [doc.figure(fig, "server_traffic_vs_eps", cap)]


# ---------------------------------------------------------------- any other parameter


def headline_columns() -> list[SummaryColumn]:
    """One summary entry per main metric — those ``cnsim run`` shows and timed mode's,
    without wall-clock times: the mean where there is one, else the 95th percentile,
    else the metric's first aggregate."""
    columns = {c.key: c for c in CATALOG.summary_columns()}
    out = []
    for m in CATALOG:
        if m.level == "broker" or m.wall or not (m.cli or m.mode == "timed"):
            continue
        aggregate = next(a for a in ("mean", "p95", *m.aggregates) if a in m.aggregates)
        out.append(columns[m.name if m.level == "run" else m.key(aggregate)])
    return out


def _other_axes(doc: Document, sweep: SweepData) -> None:
    """A trend of the main metrics against each parameter no section above drew."""
    items = []
    for x in sweep.varying():
        if x in sweep.drawn:
            continue
        values = sweep.ok[x].dropna()
        numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
        if not numeric:
            doc.skipped.append(
                f"{x} varies, but its values are not numbers: no trend figure against it "
                "(its rows are in sweep.csv)."
            )
            continue
        items += _headline_trend(doc, sweep, x)
    doc.section(
        "Other swept parameters",
        items,
        "The main metrics against each swept parameter the paper's figures do not use.",
    )


def _headline_trend(doc: Document, sweep: SweepData, x: str) -> list[str]:
    """Small multiples of the main metrics against ``x`` (one line per approach) and
    their table."""
    rows, fixed = _hold_others(sweep, x)
    columns = [c for c in headline_columns() if c.key in rows.columns]
    means = rows.groupby(["approach", x])[[c.key for c in columns]].mean()
    columns = [c for c in columns if (means[c.key].fillna(0) != 0).any()]
    xs = rows[x].dropna().unique()
    if len(xs) < 2 or not columns:
        why = (
            "one value of it is left once the other parameters are held"
            if len(xs) < 2
            else "no main metric has a nonzero value"
        )
        doc.skipped.append(f"{x} varies, but {why}: no trend figure against it.")
        return []
    fig, axes = grid(len(columns), height=2.7, legend=0.6)
    for ax, c in zip(axes, columns, strict=True):
        values = means[c.key].to_numpy(float)
        positive = values[values > 0]
        log = len(positive) > 0 and positive.max() / positive.min() >= 100
        _lines(ax, sweep, x, c.key, log=log, scale=c.scale)
        ax.set_title(c.label, fontsize=9)
        ax.set_ylabel(axis_label(c.key), fontsize=9)
        ax.set_xlabel(x, fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=8)
    refs = [f"{c.label}: {c.metric.paper}" for c in columns if c.metric.paper]
    mirrors = f" Panels mirror {PAPER} ({'; '.join(refs)}) at other axes." if refs else ""
    cap = (
        f"The main metrics {_per(sweep)} against {x}, one line per approach (a log scale "
        f"where values span two decades).{mirrors}{fixed}{_mean_note(rows, ['approach', x])}"
    )
    name = f"trend_by_{x.replace('.', '_')}"
    items = [doc.figure(fig, name, cap)]
    table = _by_axis(sweep, rows, x, [c.key for c in columns], "metric")
    cap = f"The values of the figure above: approaches and metrics × {x}."
    items.append(doc.table(table, name, cap))
    sweep.drawn.add(x)
    return items


# ---------------------------------------------------------------- helpers


def _per(sweep: SweepData) -> str:
    """What a sweep's means are taken over: ``per event``, or per batch when batched."""
    col = next((c for c in ("batch_size", "events.batch_size") if sweep.has(c)), None)
    sizes = sorted(sweep.ok[col].dropna().unique()) if col else [1]
    if sizes == [1]:
        return "per event"
    return "per batch" if len(sizes) > 1 else f"per batch of {fmt(sizes[0])} events"


def _axes(sweep: SweepData) -> list[str]:
    """The paper's x-axes (k, m) the sweep varies."""
    return [x for x in TREND_AXES if x in sweep.varying()]


def _axis_name(x: str) -> str:
    """The paper's short name of a parameter (``k``, ``m``), else the parameter."""
    return TREND_AXES.get(x, x).split(" ")[0]


def _is(values: pd.Series, value: object) -> pd.Series:
    """Rows of ``values`` equal to ``value``, where an unset value equals unset."""
    return values.isna() if pd.isna(value) else values == value


def _hold_others(sweep: SweepData, *xs: str) -> tuple[pd.DataFrame, str]:
    """Rows with every varying parameter except ``xs`` held at one value, and a caption
    note naming the values held."""
    rows = sweep.ok
    held = []
    for p in sweep.varying():
        if p in xs:
            continue
        value = _reference(rows, p, xs)
        rows = rows[_is(rows[p], value)]
        held.append(f"{p} unset" if pd.isna(value) else f"{p} = {fmt(value)}")
    note = f" Other parameters held at {', '.join(held)}." if held else ""
    return rows, note


def _same(a: object, b: object) -> bool:
    """Whether two parameter values are equal, where unset equals unset."""
    if pd.isna(a) or pd.isna(b):
        return bool(pd.isna(a) and pd.isna(b))
    return bool(a == b)


def _mean_note(rows: pd.DataFrame, keys: list[str]) -> str:
    """Caption note when a plotted value averages several runs (seeds, repeats)."""
    sizes = rows.groupby(keys, dropna=False).size()
    most = int(sizes.max()) if len(sizes) else 0
    return f" Each value is the mean of up to {most} runs." if most > 1 else ""


def _reference(rows: pd.DataFrame, p: str, xs: tuple[str, ...]) -> object:
    """The value ``p`` is held at: the paper's default if swept, else the most common
    value (ties: the middle one; unset counts as a value) — but one that leaves ``xs``
    varying, since zipped axes (e.g. events.update with events.volatility) only vary
    together, and in a dataset of several sweeps only one sweep's rows vary ``xs``."""
    values = rows[p]
    counts = list(values.value_counts(dropna=False).items())
    if not counts:
        return np.nan
    most = max(n for _, n in counts)
    top = sorted((v for v, n in counts if n == most), key=sort_key)
    middle = top[len(top) // 2]

    def rank(entry: tuple[object, int]) -> tuple[bool, bool, int]:
        v, n = entry
        is_default = p in PAPER_DEFAULTS and _same(v, PAPER_DEFAULTS[p])
        return (not is_default, not _same(v, middle), -n)

    prefs = [v for v, _ in sorted(counts, key=rank)]
    if not xs:
        return prefs[0]

    def spread(mask: pd.Series | slice) -> int:
        return len(rows.loc[mask, list(xs)].dropna(how="all").drop_duplicates())

    need = min(2, spread(slice(None)))
    keeps = [v for v in prefs if spread(_is(values, v)) >= need]
    return (keeps or prefs)[0]


def _by_axis(
    sweep: SweepData, rows: pd.DataFrame, x: str, columns: list[str], what: str
) -> pd.DataFrame:
    """(approach, ``what``) × values of ``x``: the mean of each column, labelled by the
    catalog, approaches in the sweep's order."""
    table = rows.groupby(["approach", x])[columns].mean().stack().unstack(x)
    order = {a: i for i, a in enumerate(sweep.approaches)}
    table = table.sort_index(level=0, key=lambda idx: idx.map(order), sort_remaining=False)
    table.index = table.index.set_names(["approach", what])
    table = table.rename(index=label, level=1)
    table.columns = [f"{_axis_name(x)}={fmt(c)}" for c in table.columns]
    return table


def _trend(doc: Document, sweep: SweepData, x: str, metric: str, what: str, ref: str) -> list[str]:
    """One line per approach of ``metric`` against parameter ``x`` (log y)."""
    if not sweep.has(metric):
        doc.skipped.append(f"{metric} not in the sweep dataset: no {ref} figure against {x}.")
        return []
    fig, ax = figure()
    hidden, fixed = _lines(ax, sweep, x, metric, log=True)
    if not ax.lines:
        doc.skipped.append(
            f"{metric} is zero for every approach (an ideal overlay has no broker network; "
            f"CN-Relax has no server): no {ref} figure against {x}."
        )
        return []
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_xlabel(TREND_AXES.get(x, x))
    ax.set_ylabel(label(metric))
    ax.set_title(what, fontsize=10)
    note = f" Not shown (zero throughout): {', '.join(hidden)}." if hidden else ""
    cap = f"{what} against {TREND_AXES.get(x, x)}, per approach (log scale). Mirrors {PAPER} "
    cap += f"{ref}.{fixed}{note}"
    sweep.drawn.add(x)
    return [doc.figure(fig, f"{metric}_vs_{x.replace('.', '_')}", cap)]


def _lines(
    ax: Axes, sweep: SweepData, x: str, metric: str, log: bool, scale: float = 1.0
) -> tuple[list[str], str]:
    """Draw ``metric`` (× ``scale``) vs ``x`` per approach; return the approaches left
    out (nothing to show on a log scale) and the caption note."""
    rows, fixed = _hold_others(sweep, x)
    means = rows.groupby(["approach", x])[metric].mean()
    hidden = []
    look = styles(sweep.approaches)
    for name in sweep.approaches:
        if name not in means.index.get_level_values(0):
            continue
        s = means.loc[name].sort_index()
        if log and not (s > 0).any():
            hidden.append(name)
            continue
        colour, mark = look[name]
        ax.plot(s.index, s.to_numpy() * scale, marker=mark, color=colour, label=name)
    if log and ax.lines:
        ax.set_yscale("log")
    value_ticks(ax, rows[x].dropna())
    ax.grid(True, which="major", alpha=0.3)
    return hidden, fixed + _mean_note(rows, ["approach", x])
