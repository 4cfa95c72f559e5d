"""The sections of a run's report (``cnsim run --out DIR``): the scenario, a summary per
approach, server and broker-network traffic, messages received and redundancy, server
calls, traffic by event kind, batch processing, churn and broker failures over time,
per-broker load and, for timed runs, latency and queueing. Columns are the catalog's
metrics; whatever is missing is skipped, and the report says so."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from pandas.core.groupby import SeriesGroupBy

from cnsim.errors import InputError
from cnsim.simulations.metrics import CATALOG, Metric, aggregate
from cnsim.simulations.report.document import (
    PAPER,
    Document,
    axis_label,
    fmt,
    key,
    metric,
    read_parquet,
    spec_of,
)
from cnsim.simulations.report.plots import (
    PAGE_IN,
    bars,
    cdfs,
    color,
    figure,
    grouped_bars,
    hidden_note,
    styles,
)


# How a catalog aggregate is taken over per-batch values. ``run`` is a whole-run value
# the driver computes; from the rows alone the per-batch mean is the best stand-in.
def _aggregated(groups: SeriesGroupBy, how: str) -> pd.Series:
    """The catalog's aggregate ``how`` of every group (a missing run-wide value, such
    as the whole-run redundancy, is shown as the mean of the batches)."""
    return groups.agg(lambda v: aggregate(v, how))


SCENARIO_FACTS = (
    "source",
    "objects",
    "subscriptions",
    "k",
    "events",
    "batch_size",
    "overlay",
    "redundancy_reference",
    "setup_time_s",
    "total_time_s",
    "cpu_time_s",
    "simulated_time_s",
)


@dataclass
class RunData:
    """What a run directory holds; any part may be missing."""

    events: pd.DataFrame | None
    summary: dict | None
    brokers: pd.DataFrame | None

    @property
    def approaches(self) -> list[str]:
        """Approaches in configured order."""
        if self.summary and self.summary.get("approaches"):
            return list(self.summary["approaches"])
        return list(dict.fromkeys(self.events["approach"])) if self.events is not None else []

    @property
    def per(self) -> str:
        """What one row stands for: ``event`` or ``batch of N events``."""
        size = (self.summary or {}).get("batch_size", 1)
        return "event" if size == 1 else f"batch of {size} events"

    @property
    def unit(self) -> str:
        """One row's unit in a short label: ``event`` or ``batch``."""
        return "event" if self.per == "event" else "batch"

    def has(self, column: str) -> bool:
        """Whether events.parquet has ``column`` with at least one value."""
        e = self.events
        return e is not None and column in e.columns and e[column].notna().any()


def load_run(src: Path) -> RunData:
    """Read the events, summary and broker load of a run directory (each may be missing)."""
    events = read_parquet(src / "events.parquet") if (src / "events.parquet").exists() else None
    summary = None
    if (src / "summary.json").exists():
        try:
            summary = json.loads((src / "summary.json").read_text())
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read {str(src / 'summary.json')!r}: {exc}") from None
    brokers = read_parquet(src / "brokers.parquet") if (src / "brokers.parquet").exists() else None
    if events is not None and "approach" not in events.columns:
        raise InputError(f"{str(src / 'events.parquet')!r} has no 'approach' column")
    return RunData(events, summary, brokers)


def run_report(doc: Document, src: Path) -> Path:
    """Write the report of the run directory ``src``; the path of its ``index.html``."""
    run = load_run(src)
    if run.events is None:
        doc.skipped.append("events.parquet is missing: only the summary is shown.")
    for section in (
        _scenario,
        _summary,
        _server_traffic,
        _broker_traffic,
        _received,
        _calls,
        _kinds,
        _batch,
        _dynamics,
        _brokers,
        _timing,
    ):
        section(doc, run)
    s = run.summary or {}
    facts = [f"{s[k]:,} {k}" for k in ("objects", "subscriptions", "events") if k in s]
    facts += [f"k = {s['k']}"] if "k" in s else []
    subtitle = html.escape(f"Run {src.resolve().name} — " + ", ".join(facts))
    return doc.write("cnsim run report", subtitle)


def summary_frame(run: RunData) -> pd.DataFrame:
    """Approaches × summary keys: summary.json's, or the catalog's aggregates of the rows."""
    if run.summary and run.summary.get("approaches"):
        frame = pd.DataFrame.from_dict(run.summary["approaches"], orient="index")
        return frame.apply(pd.to_numeric, errors="coerce")  # None (no value) -> NaN
    g = run.events.groupby("approach", sort=False)
    return pd.DataFrame(
        {
            m.key(a): _aggregated(g[m.name], a)
            for m in CATALOG.select("batch")
            if m.name in run.events.columns
            for a in m.aggregates
        }
    )


def _scenario(doc: Document, run: RunData) -> None:
    s = run.summary
    if s is None:
        doc.skipped.append("summary.json is missing: no scenario facts.")
        return
    keys = [k for k in SCENARIO_FACTS if k in s]
    facts = pd.DataFrame({"value": [fmt(s[k]) for k in keys]}, keys)
    scenario = html.escape(json.dumps(s.get("scenario", {}), indent=2))
    items = [
        doc.table(facts, "scenario", "The run at a glance (from summary.json).", text=True),
        f"<details><summary>Full scenario</summary><pre>{scenario}</pre></details>",
    ]
    doc.section("Scenario", items)


def _summary(doc: Document, run: RunData) -> None:
    if run.summary is None and run.events is None:
        return
    raw = summary_frame(run)
    columns = [c for c in CATALOG.summary_columns() if c.key in raw.columns]
    table = pd.DataFrame({c.label: raw[c.key] * c.scale for c in columns}, index=raw.index)
    table = table.T  # approaches as columns: a dozen metrics fit down the page, not across
    table.index.name = "metric"
    ref = (run.summary or {}).get("redundancy_reference")
    note = f" Redundancy is measured against {ref}." if ref else ""
    whole = "over the whole run" if run.summary else "the mean per batch (no summary.json)"
    caption = (
        f"Per-approach values per {run.per}: means, unless a row names another aggregate "
        f"(max, total over the run, percentile); redundancy is {whole}.{note}"
    )
    doc.section("Summary per approach", [doc.table(table, "summary", caption)])


def _server_traffic(doc: Document, run: RunData) -> None:
    m = metric("server_out_bytes")
    if not run.has(m.name):
        doc.skipped.append(f"{m.name} missing: no server traffic figures.")
        return
    g = run.events.groupby("approach", sort=False)[m.name]
    stats = pd.DataFrame({"mean": g.mean(), "max": g.max()}).reindex(run.approaches)
    fig, ax = figure()
    shown = grouped_bars(ax, stats, log=True)
    ax.set_ylabel(axis_label(m.name, run.unit))
    ax.set_title("Outgoing traffic from the server")
    cap = (
        f"Mean and maximum bytes the server sends per {run.per}, per approach (log scale). "
        f"Mirrors {PAPER} Fig. 12(a) (mean) and Fig. 13(a) (max) at this run's k and m."
        + hidden_note(stats.index, shown)
    )
    items = [doc.figure(fig, "server_traffic", cap)]
    fig, ax = figure()
    cdfs(ax, run.events, m.name, shown)
    ax.set_xlabel(axis_label(m.name, run.unit))
    cap = (
        f"Distribution (CDF) of the outgoing server traffic over the {run.per}s of the run; "
        "the right tail is what Fig. 13(a)'s maximum summarises." + hidden_note(stats.index, shown)
    )
    items.append(doc.figure(fig, "server_traffic_cdf", cap))
    doc.section("Outgoing traffic from the server", items)


def _broker_traffic(doc: Document, run: RunData) -> None:
    ms = [m for m in (metric("overlay_bytes"), metric("ip_bytes")) if run.has(m.name)]
    if not ms:
        doc.skipped.append("overlay_bytes / ip_bytes missing: no broker-network traffic figure.")
        return
    g = run.events.groupby("approach", sort=False)
    means = g[[m.name for m in ms]].mean().reindex(run.approaches)
    if not (means.to_numpy() > 0).any():
        overlay = (run.summary or {}).get("overlay", "?")
        doc.skipped.append(
            f"Broker-network traffic is zero for every approach (overlay kind {overlay!r}: "
            "messages go straight to subscriptions); no Fig. 14 figure."
        )
        return
    fig, ax = figure()
    shown = grouped_bars(ax, means.rename(columns={m.name: m.label for m in ms}))
    ax.set_ylabel(" / ".join(axis_label(m.name) for m in ms) + f" per {run.unit}")
    ax.set_title("Traffic in the broker network")
    cap = (
        f"Mean overlay traffic (bytes over broker-to-broker overlay hops) and IP traffic "
        f"(bytes over the underlying IP hops) per {run.per}, excluding the last hop to "
        f"subscriptions (log scale). Mirrors {PAPER} Fig. 14(a) and 14(b)."
        + hidden_note(means.index, shown)
    )
    doc.section("Traffic in the broker network", [doc.figure(fig, "broker_traffic", cap)])


def _received(doc: Document, run: RunData) -> None:
    delivered, redundancy = metric("delivered_msgs"), metric("redundancy")
    if not run.has(delivered.name):
        doc.skipped.append(f"{delivered.name} missing: no redundancy table.")
        return
    raw = summary_frame(run).reindex(run.approaches)
    k = (run.summary or {}).get("k", "?")
    cols = {key(delivered.name): f"received per {run.unit}"}
    if key(redundancy.name, "run") in raw.columns:
        cols[key(redundancy.name, "run")] = f"redundancy (k={k})"
    table = raw[list(cols)].rename(columns=cols)
    table.index.name = "approach"
    cap = (
        f"Messages received by subscriptions per {run.per} and redundancy N/N_exact − 1 "
        f"(0 for exact approaches). Mirrors {PAPER} {delivered.paper} (received) and "
        f"{redundancy.paper} (redundancy) for this run's k."
    )
    if any((s := spec_of(a)) and s.message == "targeted" for a in table.index):
        cap += (
            " A targeted message (Unicast) also names the object it replaces, so Unicast can "
            "receive fewer messages than the exact CN approaches (negative redundancy)."
        )
    items = [doc.table(table, "redundancy", cap)]
    fig, ax = figure()
    cdfs(ax, run.events, delivered.name, run.approaches)
    ax.set_xlabel(axis_label(delivered.name, run.unit))
    cap = f"Distribution (CDF) of the messages received by subscriptions per {run.per}."
    items.append(doc.figure(fig, "delivered_cdf", cap))
    doc.section("Messages received by subscriptions", items)


def call_metrics() -> list[Metric]:
    """The server index calls the catalog declares (unit ``calls``)."""
    return [m for m in CATALOG.select("batch") if m.unit == "calls"]


def _calls(doc: Document, run: RunData) -> None:
    ms = [m for m in (*call_metrics(), metric("server_time_s")) if run.has(m.name)]
    if not ms:
        doc.skipped.append("calls_* columns missing: no server processing cost table.")
        return
    means = run.events.groupby("approach", sort=False)[[m.name for m in ms]].mean()
    table = pd.DataFrame({m.unit_label: means[m.name] * m.display_scale for m in ms})
    table = table.reindex(run.approaches)
    table.index.name = "approach"
    cap = (
        f"Average number of calls per {run.per} to the server's data structures, by type, "
        f"and server time in µs. Mirrors {PAPER} Table III / IV for this run's k and m."
    )
    doc.section("Server processing cost", [doc.table(table, "calls", cap)])


def _kinds(doc: Document, run: RunData) -> None:
    bytes_, delivered = metric("server_out_bytes").name, metric("delivered_msgs").name
    if not run.has("kind") or not run.has(bytes_):
        return
    e = run.events[run.events["kind"] != "batch"]
    if e.empty:
        doc.skipped.append("Events were batched: no traffic by event kind.")
        return
    cols = [c for c in (bytes_, delivered) if c in e.columns]
    table = e.pivot_table(index="approach", columns="kind", values=cols, aggfunc="mean")
    table = table.reindex(run.approaches).reindex(columns=cols, level=0)
    table.index.name = "approach"
    counts = e[e["approach"] == run.approaches[0]]["kind"].value_counts()
    count_text = ", ".join(f"{n} {k}" for k, n in counts.items())
    cap = (
        f"Mean server bytes and messages received per event, by event kind ({count_text}). "
        "Rank-lowering updates expose objects and cost more (seed 003 §III)."
    )
    items = [doc.table(table, "by_kind", cap)]
    fig, ax = figure()
    shown = grouped_bars(ax, table[bytes_])
    ax.set_ylabel(axis_label(bytes_, "event"))
    ax.set_title("Outgoing server traffic by event kind")
    cap = "Mean outgoing server traffic per event, by event kind (log scale)." + hidden_note(
        table.index, shown
    )
    items.append(doc.figure(fig, "by_kind", cap))
    doc.section("Traffic by event kind", items)


def _batch(doc: Document, run: RunData) -> None:
    batch = [a for a in run.approaches if (s := spec_of(a)) and s.batch]
    if not batch or run.events is None:
        return
    cols = {
        "server_out_msgs": "messages generated",
        "delivered_msgs": "messages received",
        "calls_min_y": "min_y calls",
    }
    cols = {metric(c).name: t for c, t in cols.items() if c in run.events.columns}
    totals = run.events.groupby("approach", sort=False)[list(cols)].sum().reindex(batch)
    fig = Figure(figsize=(3.2 * len(cols), 3.8), layout="constrained")
    for ax, (c, title) in zip(
        fig.subplots(1, len(cols), squeeze=False)[0], cols.items(), strict=True
    ):
        bars(ax, totals[c], log=False, look=styles(batch))
        ax.set_title(title)
        ax.set_ylabel(f"{axis_label(c)}, total")
    cap = (
        "Totals over the whole event sequence: messages generated by the server, received by "
        f"subscriptions, and min_y calls. Mirrors {PAPER} Fig. 16(a), (b), (c)."
    )
    items = [doc.figure(fig, "batch", cap)]
    totals.index.name = "approach"
    items.append(doc.table(totals.rename(columns=cols), "batch", "The totals of the figure above."))
    doc.section("Batch processing", items)


# What the run's churn and broker failures did over time: (column, panel title, summed
# up to each batch), shown where the run has the column.
DYNAMICS = (
    ("live_subs", "live subscriptions", False),
    ("join_ip_bytes", "IP bytes of joining subscribers' first lists", True),
    ("lost_subs", "subscriptions lost", False),
    ("lost_msgs", "notifications lost", True),
    ("repair_ip_bytes", "repair IP bytes", True),
)


def _dynamics(doc: Document, run: RunData) -> None:
    """Subscribers joining and leaving (``[churn]``) and brokers failing
    (``[faults]``) over the run: one line per approach, cumulative where it adds up."""
    panels = [(c, t, total) for c, t, total in DYNAMICS if run.has(c)]
    if not panels:
        return
    fig = Figure(figsize=(PAGE_IN, 2.9 * -(-len(panels) // 2)), layout="constrained")
    axes = fig.subplots(-(-len(panels) // 2), 2, squeeze=False).ravel()
    look = styles(run.approaches)
    x = "event" if "event" in run.events.columns else "batch"
    for ax, (column, title, total) in zip(axes, panels, strict=False):
        for name, part in run.events.groupby("approach", sort=False):
            values = part[column].cumsum() if total else part[column]
            colour, _ = look[name]
            ax.plot(part[x], values, color=colour, label=name, lw=1.2)
        ax.set_title(title + (" (cumulative)" if total else ""), fontsize=9)
        ax.set_xlabel(x)
        ax.grid(True, alpha=0.3)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    axes[0].legend(fontsize=8)
    failures = run.events["failures"] if run.has("failures") else None
    marks = ""
    if failures is not None:
        first = run.events[run.events.approach == run.approaches[0]]
        at = first.loc[first["failures"] > 0, x].tolist()
        for ax in axes[: len(panels)]:
            for t in at:
                ax.axvline(t, color="grey", lw=0.6, ls=":")
        marks = f" Dotted lines: the {len(at)} batches before which brokers failed."
    cap = (
        "Subscribers that come and go and brokers that fail, over the run, per approach: "
        "what joins cost, what was lost (notifications dropped for subscriptions no broker "
        f"up holds, until they re-subscribe) and what the repair sent.{marks}"
    )
    doc.section("Churn and failures over time", [doc.figure(fig, "dynamics", cap)])


def _brokers(doc: Document, run: RunData) -> None:
    b = run.brokers
    handled, held = metric("messages_handled").name, metric("subscriptions_held").name
    if b is None:
        doc.skipped.append("brokers.parquet missing (ideal overlay?): no per-broker load.")
        return
    if not {"approach", handled} <= set(b.columns):
        doc.skipped.append(f"brokers.parquet lacks approach/{handled}: no broker load.")
        return
    g = b.groupby("approach", sort=False)[handled]
    table = pd.DataFrame(
        {
            "brokers": g.size(),
            "busy brokers": g.apply(lambda s: int((s > 0).sum())),
            "mean": g.mean(),
            "median": g.median(),
            "p99": g.quantile(0.99),
            "max": g.max(),
            "max / mean": g.max() / g.mean().replace(0, np.nan),
        }
    )
    table.index.name = "approach"
    cap = "Messages handled per broker over the run: spread of the load across brokers."
    items = [doc.table(table, "broker_load", cap)]
    fig, ax = figure()
    look = styles(g.groups)
    for name, s in g:
        ranked = np.sort(s.to_numpy())[::-1]
        xs = np.arange(1, len(ranked) + 1)
        ax.plot(xs, np.maximum(ranked, 0.8), color=look[name][0], label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("broker rank (busiest first)")
    ax.set_ylabel(axis_label(handled))
    ax.legend(fontsize=8)
    cap = "Messages handled by each broker, brokers sorted busiest first (log-log)."
    items.append(doc.figure(fig, "broker_load", cap))
    if held in b.columns:
        fig, ax = figure()
        ax.hist(b[b["approach"] == b["approach"].iloc[0]][held], bins=40, color=color(0))
        ax.set_xlabel(f"{axis_label(held)} by a broker (its gateway zone)")
        ax.set_ylabel("brokers")
        cap = "How many subscriptions each broker is the gateway of (zones of the overlay)."
        items.append(doc.figure(fig, "subscriptions_held", cap))
    doc.section("Per-broker load", items)


def _spread(m: Metric) -> tuple[str, ...]:
    """The statistics a timing table shows of ``m``: its catalog aggregates, plus the
    95th percentile and the maximum unless it is a count over the run."""
    if "total" in m.aggregates:
        return m.aggregates
    return m.aggregates + tuple(a for a in ("p95", "max") if a not in m.aggregates)


def stats_table(run: RunData, metrics: list[Metric]) -> pd.DataFrame:
    """Approaches × (metric, statistic) over the run's rows that have a value."""
    g = run.events.groupby("approach", sort=False)
    parts = {
        m.name: pd.DataFrame({a: _aggregated(g[m.name], a) for a in _spread(m)}) for m in metrics
    }
    table = pd.concat(parts, axis=1).reindex(run.approaches)
    table.index.name = "approach"
    return table


def _timing(doc: Document, run: RunData) -> None:
    timed = [m for m in CATALOG.select("batch", "timed") if run.has(m.name)]
    if not timed:
        doc.skipped.append("No latency or queue columns (counting-mode run): no timing section.")
        return
    durations = [m for m in timed if m.unit == "s"]
    counts = [m for m in timed if m.unit != "s"]
    items = []
    if durations:
        what = "; ".join(m.label for m in durations)
        cap = (
            f"Per approach, in seconds ({run.per}s with a value; timed driver): {what}. "
            "Latency runs from an event's publication to its first and to its last "
            "notification."
        )
        items.append(doc.table(stats_table(run, durations), "latency", cap))
        last = metric("latency_last_s")
        shown = last if last in durations else durations[0]
        fig, ax = figure()
        cdfs(ax, run.events, shown.name, run.approaches, log=False)
        ax.set_xlabel(axis_label(shown.name))
        cap = f"Distribution (CDF) of the {shown.label}, in seconds, over the {run.per}s."
        items.append(doc.figure(fig, "latency_cdf", cap))
    if counts:
        what = "; ".join(f"{m.label} ({m.unit})" for m in counts)
        cap = f"Per approach, over the {run.per}s of the run (timed driver): {what}."
        items.append(doc.table(stats_table(run, counts), "queue", cap))
    queue = metric("server_queue_len")
    if queue in counts:
        items.append(doc.figure(_queue_figure(run, queue), "server_queue", _QUEUE_CAPTION))
    doc.section("Latency and queueing", items)


_QUEUE_CAPTION = (
    "Length of the server's queue when each event arrives, one panel per approach "
    "(timed driver); a growing queue means the server cannot keep up with the event rate."
)


def _queue_figure(run: RunData, queue: Metric) -> Figure:
    """Small multiples: overlaid queue traces of several approaches are unreadable."""
    n = len(run.approaches)
    fig = Figure(figsize=(PAGE_IN, 0.6 + 1.2 * n), layout="constrained")
    axes = fig.subplots(n, 1, sharex=True, sharey=True, squeeze=False)[:, 0]
    look = styles(run.approaches)
    for ax, name in zip(axes, run.approaches, strict=True):
        part = run.events[run.events["approach"] == name]
        ax.plot(part["batch"], part[queue.name], color=look[name][0], lw=0.8, label=name)
        ax.set_title(name, fontsize=9, loc="left")
        ax.grid(True, alpha=0.3)
    fig.supylabel(axis_label(queue.name), fontsize=10)
    axes[-1].set_xlabel(f"{run.unit}, in order of publication")
    return fig
