"""HTML reports of a run directory (``cnsim run --out``) or a sweep dataset (``cnsim sweep``).

The report mirrors the evaluation of seed 003 §V where the data allows it: outgoing
server traffic (Fig. 11, 12, 13a), broker-network traffic (Fig. 14), messages received
and redundancy (Tables I, II), server calls (Tables III, IV), workloads (Fig. 15) and
batch processing (Fig. 16). A single run adds per-event distributions, traffic by event
kind, per-broker load and, for timed runs, latency and queueing. Every table is also
written as CSV beside ``index.html``; figures are PNGs drawn with matplotlib's Agg canvas
(``Figure`` objects, never pyplot, so no global backend state is touched).

Whatever columns or files are missing are skipped, and the report says what it skipped.
"""

from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from cnsim.algorithms.registry import parse_approach
from cnsim.errors import InputError

PAPER = "seed 003"
CALLS = ("calls_first_k", "calls_min_y", "calls_snap")
TIMED = ("latency_first", "latency_last", "server_queue_len", "server_wait_s")
# Summary keys of a run, in table order: (key, header, scale).
SUMMARY_COLUMNS = (
    ("mean_server_out_msgs", "server messages", 1),
    ("mean_server_out_bytes", "server bytes", 1),
    ("max_server_out_bytes", "max server bytes", 1),
    ("mean_overlay_bytes", "overlay bytes", 1),
    ("mean_ip_bytes", "IP bytes", 1),
    ("mean_last_hop_ip_bytes", "last-hop IP bytes", 1),
    ("mean_publish_ip_bytes", "publish IP bytes", 1),
    ("mean_delivered_msgs", "messages received", 1),
    ("total_delivered_msgs", "total received (run)", 1),
    ("redundancy", "redundancy", 1),
    ("mean_calls_first_k", "first_k calls", 1),
    ("mean_calls_min_y", "min_y calls", 1),
    ("mean_calls_snap", "snap calls", 1),
    ("mean_server_time_s", "server time (µs)", 1e6),
    ("mean_delivery_time_s", "delivery time (µs)", 1e6),
    ("subscriber_memory_bytes", "subscriber memory (bytes)", 1),
)
_KNOWN = {key for key, _, _ in SUMMARY_COLUMNS}
# Sweep parameters a trend is drawn against, with the paper's name for them.
TREND_AXES = {"subscriptions.k": "k", "subscriptions.count": "m (subscriptions)"}
# The paper's default workload: the value other parameters are held at when they vary.
PAPER_DEFAULTS = {
    "subscriptions.k": 10,
    "objects.distribution": "uniform",
    "subscriptions.distribution": "uniform",
    "events.update": "uniform",
    "events.batch_size": 1,
}
BATCH_PREFIXES = ("paint-batch", "coalesce", "online")
_EPS = re.compile(r"^(paint-dense|paint-sparse)\(([0-9.e/-]+)\)$")

CSS = """
body { font: 15px/1.5 -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif;
       color: #222; max-width: 1100px; margin: 0 auto; padding: 1.5em 2em 4em; }
h1 { font-size: 1.7em; margin-bottom: 0.1em; }
h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 2px solid #d0d7de; padding-bottom: .2em; }
.sub { color: #57606a; margin-top: 0; }
nav ol { columns: 2; color: #57606a; } nav a { color: #0969da; text-decoration: none; }
table.data { border-collapse: collapse; margin: .6em 0 .3em; font-size: 13px;
             font-variant-numeric: tabular-nums; }
table.data th, table.data td { padding: 3px 10px; border-bottom: 1px solid #e5e7eb; }
table.data td { text-align: right; white-space: nowrap; }
table.data.text td { text-align: left; white-space: normal; }
table.data th { text-align: left; background: #f6f8fa; white-space: nowrap; }
table.data thead th { text-align: center; border-bottom: 2px solid #d0d7de; }
table.data tbody tr:nth-child(even) td { background: #fafbfc; }
.tablewrap { overflow-x: auto; margin-bottom: 1.2em; }
figure { margin: 1.2em 0 1.8em; }
figure img { max-width: 100%; border: 1px solid #eaecef; }
figcaption, .caption { color: #57606a; font-size: 13px; max-width: 900px; }
.caption { margin-bottom: .2em; }
.note { background: #fff8c5; border-left: 4px solid #d4a72c; padding: .4em .8em; font-size: 13px; }
details pre { background: #f6f8fa; padding: .8em; font-size: 12px; overflow-x: auto; }
ul.skipped { color: #57606a; font-size: 13px; }
a.csv { font-size: 12px; color: #0969da; }
"""


@dataclass
class _Report:
    """Collects sections of HTML; writes figures and tables beside ``index.html``."""

    out: Path
    sections: list[tuple[str, str, list[str]]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    n_figures: int = 0
    n_tables: int = 0

    def section(self, title: str, items: list[str], intro: str = "") -> None:
        """Add a section unless it has nothing to show."""
        if items:
            self.sections.append((title, intro, items))

    def figure(self, fig: Figure, name: str, caption: str) -> str:
        """Save ``fig`` as ``name.png`` and return its HTML with a numbered caption."""
        self.n_figures += 1
        fig.savefig(self.out / f"{name}.png", dpi=110, bbox_inches="tight")
        return (
            f'<figure><img src="{name}.png" alt="{html.escape(caption)}">'
            f"<figcaption><b>Figure {self.n_figures}.</b> {html.escape(caption)}"
            "</figcaption></figure>"
        )

    def table(self, frame: pd.DataFrame, name: str, caption: str, text: bool = False) -> str:
        """Write ``frame`` as ``name.csv`` and return it as a captioned HTML table
        (``text``: cells are words, aligned left, rather than numbers)."""
        self.n_tables += 1
        csv = frame.copy()
        if isinstance(csv.columns, pd.MultiIndex):
            csv.columns = [" | ".join(str(p) for p in col) for col in csv.columns]
        csv.to_csv(self.out / f"{name}.csv")
        body = _corner_label(frame.map(_fmt)).to_html(
            classes="data text" if text else "data", border=0, na_rep="–", escape=True
        )
        return (
            f'<p class="caption"><b>Table {self.n_tables}.</b> {html.escape(caption)} '
            f'<a class="csv" href="{name}.csv">CSV</a></p><div class="tablewrap">{body}</div>'
        )

    def write(self, title: str, subtitle: str) -> Path:
        """Write ``index.html`` and return its path."""
        nav = "".join(
            f'<li><a href="#s{i}">{html.escape(t)}</a></li>'
            for i, (t, _, _) in enumerate(self.sections)
        )
        parts = [
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>",
            f"<h1>{html.escape(title)}</h1><p class='sub'>{subtitle}</p>",
            f"<nav><ol>{nav}</ol></nav>",
        ]
        for i, (t, intro, items) in enumerate(self.sections):
            parts.append(f'<h2 id="s{i}">{html.escape(t)}</h2>')
            parts.append(f"<p>{intro}</p>" if intro else "")
            parts.extend(items)
        if self.skipped:
            items = "".join(f"<li>{html.escape(s)}</li>" for s in self.skipped)
            parts.append(f"<h2>Not shown</h2><ul class='skipped'>{items}</ul>")
        parts.append("</body></html>\n")
        index = self.out / "index.html"
        index.write_text("\n".join(parts), encoding="utf-8")
        return index


# ---------------------------------------------------------------- entry points


def build_report(src: Path, out: Path) -> Path:
    """Turn a run directory or a sweep dataset into ``out/index.html`` with figures and CSVs."""
    src, out = Path(src), Path(out)
    kind = detect(src)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out {str(out)!r}: cannot create directory ({exc.strerror})") from None
    report = _Report(out)
    if kind == "run":
        return _run_report(report, src)
    return _sweep_report(report, src)


def detect(src: Path) -> str:
    """``"run"`` or ``"sweep"``: which kind of result directory ``src`` is."""
    if not src.exists():
        raise InputError(f"{str(src)!r} does not exist (expected a run or sweep directory)")
    if src.is_file():
        if src.suffix == ".parquet":
            return "sweep"
        raise InputError(f"{str(src)!r} is a file; expected a run or sweep directory")
    if (src / "events.parquet").exists() or (src / "summary.json").exists():
        return "run"
    if _parquet_files(src):
        return "sweep"
    raise InputError(
        f"{str(src)!r} is neither a run directory (events.parquet, summary.json from "
        "'cnsim run --out') nor a sweep dataset (Parquet files from 'cnsim sweep')"
    )


def _parquet_files(src: Path) -> list[Path]:
    # Spark and pyarrow skip files starting with "_" or "." (_SUCCESS, .crc), so do we.
    return sorted(
        p
        for p in src.rglob("*.parquet")
        if not any(part.startswith(("_", ".")) for part in p.relative_to(src).parts)
    )


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        return pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises many types for unreadable files
        raise InputError(f"cannot read {str(path)!r} as Parquet: {exc}") from None


# ---------------------------------------------------------------- run reports


@dataclass
class _Run:
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
        """What one row stands for: ``event`` or ``batch``."""
        size = (self.summary or {}).get("batch_size", 1)
        return "event" if size == 1 else f"batch of {size} events"

    def has(self, column: str) -> bool:
        """Whether events.parquet has ``column`` with at least one value."""
        e = self.events
        return e is not None and column in e.columns and e[column].notna().any()


def _load_run(src: Path) -> _Run:
    events = _read_parquet(src / "events.parquet") if (src / "events.parquet").exists() else None
    summary = None
    if (src / "summary.json").exists():
        try:
            summary = json.loads((src / "summary.json").read_text())
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read {str(src / 'summary.json')!r}: {exc}") from None
    brokers = _read_parquet(src / "brokers.parquet") if (src / "brokers.parquet").exists() else None
    if events is not None and "approach" not in events.columns:
        raise InputError(f"{str(src / 'events.parquet')!r} has no 'approach' column")
    return _Run(events, summary, brokers)


def _run_report(r: _Report, src: Path) -> Path:
    run = _load_run(src)
    if run.events is None:
        r.skipped.append("events.parquet is missing: only the summary is shown.")
    _run_scenario(r, run)
    _run_summary(r, run)
    _run_server_traffic(r, run)
    _run_broker_traffic(r, run)
    _run_received(r, run)
    _run_calls(r, run)
    _run_kinds(r, run)
    _run_batch(r, run)
    _run_brokers(r, run)
    _run_timing(r, run)
    s = run.summary or {}
    facts = [f"{s[k]:,} {k}" for k in ("objects", "subscriptions", "events") if k in s]
    facts += [f"k = {s['k']}"] if "k" in s else []
    subtitle = html.escape(f"Run {src.resolve().name} — " + ", ".join(facts))
    return r.write("cnsim run report", subtitle)


def _run_scenario(r: _Report, run: _Run) -> None:
    s = run.summary
    if s is None:
        r.skipped.append("summary.json is missing: no scenario facts.")
        return
    keys = (
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
    )
    facts = pd.DataFrame({"value": [s[k] for k in keys if k in s]}, [k for k in keys if k in s])
    facts["value"] = facts["value"].map(_fmt)
    scenario = html.escape(json.dumps(s.get("scenario", {}), indent=2))
    items = [
        r.table(facts, "scenario", "The run at a glance (from summary.json).", text=True),
        f"<details><summary>Full scenario</summary><pre>{scenario}</pre></details>",
    ]
    r.section("Scenario", items)


def _run_summary_frame(run: _Run) -> pd.DataFrame:
    if run.summary and run.summary.get("approaches"):
        return pd.DataFrame.from_dict(run.summary["approaches"], orient="index")
    e = run.events
    means = e.groupby("approach", sort=False).mean(numeric_only=True)
    frame = means.drop(columns=["batch", "event", "events", "redundancy"], errors="ignore")
    frame = frame.add_prefix("mean_")
    if "redundancy" in e.columns:
        frame["redundancy"] = means["redundancy"]  # per-batch mean: no summary to hold totals
    frame["max_server_out_bytes"] = e.groupby("approach", sort=False)["server_out_bytes"].max()
    frame["total_delivered_msgs"] = e.groupby("approach", sort=False)["delivered_msgs"].sum()
    return frame


def _run_summary(r: _Report, run: _Run) -> None:
    if run.summary is None and run.events is None:
        return
    raw = _run_summary_frame(run)
    known = [(k, h, s) for k, h, s in SUMMARY_COLUMNS if k in raw.columns]
    table = pd.DataFrame({h: raw[k] * s for k, h, s in known}, index=raw.index)
    extra = [c for c in raw.columns if c.startswith("mean_") and c not in _KNOWN]
    for c in extra:  # e.g. the timed driver's mean_latency_last
        table[c.removeprefix("mean_")] = raw[c]
    table = table.T  # approaches as columns: a dozen metrics fit down the page, not across
    table.index.name = "metric"
    ref = (run.summary or {}).get("redundancy_reference")
    note = f" Redundancy is measured against {ref}." if ref else ""
    caption = (
        f"Per-approach means per {run.per}, except the maximum server bytes, the run's total "
        f"of messages received by subscriptions and the subscribers' memory.{note}"
    )
    r.section("Summary per approach", [r.table(table, "summary", caption)])


def _run_server_traffic(r: _Report, run: _Run) -> None:
    if not run.has("server_out_bytes"):
        r.skipped.append("server_out_bytes missing: no server traffic figures.")
        return
    e = run.events
    g = e.groupby("approach", sort=False)["server_out_bytes"]
    stats = pd.DataFrame({"mean": g.mean(), "max": g.max()}).reindex(run.approaches)
    fig, ax = _figure()
    shown = _grouped_bars(ax, stats, log=True)
    ax.set_ylabel(f"bytes per {run.per.split(' ')[0]}")
    ax.set_title("Outgoing traffic from the server")
    cap = (
        f"Mean and maximum bytes the server sends per {run.per}, per approach (log scale). "
        f"Mirrors {PAPER} Fig. 12(a) (mean) and Fig. 13(a) (max) at this run's k and m."
        + _hidden_note(stats.index, shown)
    )
    items = [r.figure(fig, "server_traffic", cap)]
    fig, ax = _figure()
    _cdfs(ax, e, "server_out_bytes", shown)
    ax.set_xlabel(f"server_out_bytes per {run.per.split(' ')[0]}")
    cap = (
        f"Distribution (CDF) of the outgoing server traffic over the {run.per}s of the run; "
        "the right tail is what Fig. 13(a)'s maximum summarises." + _hidden_note(stats.index, shown)
    )
    items.append(r.figure(fig, "server_traffic_cdf", cap))
    r.section("Outgoing traffic from the server", items)


def _run_broker_traffic(r: _Report, run: _Run) -> None:
    cols = [c for c in ("overlay_bytes", "ip_bytes") if run.has(c)]
    if not cols:
        r.skipped.append("overlay_bytes / ip_bytes missing: no broker-network traffic figure.")
        return
    means = run.events.groupby("approach", sort=False)[cols].mean().reindex(run.approaches)
    if not (means.to_numpy() > 0).any():
        overlay = (run.summary or {}).get("overlay", "?")
        r.skipped.append(
            f"Broker-network traffic is zero for every approach (overlay kind {overlay!r}: "
            "messages go straight to subscriptions); no Fig. 14 figure."
        )
        return
    fig, ax = _figure()
    shown = _grouped_bars(ax, means.rename(columns={"overlay_bytes": "overlay", "ip_bytes": "IP"}))
    ax.set_ylabel(f"bytes per {run.per.split(' ')[0]}")
    ax.set_title("Traffic in the broker network")
    cap = (
        f"Mean overlay traffic (bytes over broker-to-broker overlay hops) and IP traffic "
        f"(bytes over the underlying IP hops) per {run.per}, excluding the last hop to "
        f"subscriptions (log scale). Mirrors {PAPER} Fig. 14(a) and 14(b)."
        + _hidden_note(means.index, shown)
    )
    r.section("Traffic in the broker network", [r.figure(fig, "broker_traffic", cap)])


def _run_received(r: _Report, run: _Run) -> None:
    if not run.has("delivered_msgs"):
        r.skipped.append("delivered_msgs missing: no redundancy table.")
        return
    raw = _run_summary_frame(run).reindex(run.approaches)
    k = (run.summary or {}).get("k", "?")
    cols = {"mean_delivered_msgs": f"received per {run.per.split(' ')[0]}"}
    cols |= {"redundancy": f"redundancy (k={k})"} if "redundancy" in raw.columns else {}
    table = raw[list(cols)].rename(columns=cols)
    table.index.name = "approach"
    cap = (
        f"Messages received by subscriptions per {run.per} and redundancy N/N_exact − 1 "
        f"(0 for exact approaches). Mirrors {PAPER} Table I (received) and Table II "
        "(redundancy) for this run's k."
    )
    if "unicast" in table.index:
        cap += (
            " A Unicast message also names the object it replaces, so Unicast can receive "
            "fewer messages than the exact CN approaches (negative redundancy)."
        )
    items = [r.table(table, "redundancy", cap)]
    fig, ax = _figure()
    _cdfs(ax, run.events, "delivered_msgs", run.approaches)
    ax.set_xlabel(f"messages received by subscriptions per {run.per.split(' ')[0]}")
    cap = f"Distribution (CDF) of the messages received by subscriptions per {run.per}."
    items.append(r.figure(fig, "delivered_cdf", cap))
    r.section("Messages received by subscriptions", items)


def _run_calls(r: _Report, run: _Run) -> None:
    cols = [c for c in (*CALLS, "server_time_s") if run.has(c)]
    if not cols:
        r.skipped.append("calls_* columns missing: no server processing cost table.")
        return
    table = run.events.groupby("approach", sort=False)[cols].mean().reindex(run.approaches)
    if "server_time_s" in table:
        table["server_time_s"] *= 1e6
    table = table.rename(columns=lambda c: c.removeprefix("calls_").replace("_time_s", " µs"))
    table.index.name = "approach"
    cap = (
        f"Average number of calls per {run.per} to the server's data structures, by type, "
        f"and server time in µs. Mirrors {PAPER} Table III / IV for this run's k and m."
    )
    r.section("Server processing cost", [r.table(table, "calls", cap)])


def _run_kinds(r: _Report, run: _Run) -> None:
    if not run.has("kind") or not run.has("server_out_bytes"):
        return
    e = run.events[run.events["kind"] != "batch"]
    if e.empty:
        r.skipped.append("Events were batched: no traffic by event kind.")
        return
    cols = [c for c in ("server_out_bytes", "delivered_msgs") if c in e.columns]
    table = e.pivot_table(index="approach", columns="kind", values=cols, aggfunc="mean")
    table = table.reindex(run.approaches).reindex(columns=cols, level=0)
    table.index.name = "approach"
    counts = e[e["approach"] == run.approaches[0]]["kind"].value_counts()
    count_text = ", ".join(f"{n} {k}" for k, n in counts.items())
    cap = (
        f"Mean server bytes and messages received per event, by event kind ({count_text}). "
        "Rank-lowering updates expose objects and cost more (seed 003 §III)."
    )
    items = [r.table(table, "by_kind", cap)]
    fig, ax = _figure()
    shown = _grouped_bars(ax, table["server_out_bytes"])
    ax.set_ylabel("server bytes per event")
    ax.set_title("Outgoing server traffic by event kind")
    cap = "Mean outgoing server traffic per event, by event kind (log scale)." + _hidden_note(
        table.index, shown
    )
    items.append(r.figure(fig, "by_kind", cap))
    r.section("Traffic by event kind", items)


def _run_batch(r: _Report, run: _Run) -> None:
    batch = [a for a in run.approaches if a.startswith(BATCH_PREFIXES)]
    if not batch or run.events is None:
        return
    cols = {"server_out_msgs": "messages generated", "delivered_msgs": "messages received"}
    cols |= {"calls_min_y": "min_y calls"}
    cols = {c: t for c, t in cols.items() if c in run.events.columns}
    totals = run.events.groupby("approach", sort=False)[list(cols)].sum().reindex(batch)
    fig = Figure(figsize=(3.2 * len(cols), 3.8), layout="constrained")
    for ax, (c, title) in zip(
        fig.subplots(1, len(cols), squeeze=False)[0], cols.items(), strict=True
    ):
        _bars(ax, totals[c], log=False)
        ax.set_title(title)
    cap = (
        "Totals over the whole event sequence: messages generated by the server, received by "
        f"subscriptions, and min_y calls. Mirrors {PAPER} Fig. 16(a), (b), (c)."
    )
    items = [r.figure(fig, "batch", cap)]
    totals.index.name = "approach"
    items.append(r.table(totals.rename(columns=cols), "batch", "The totals of the figure above."))
    r.section("Batch processing", items)


def _run_brokers(r: _Report, run: _Run) -> None:
    b = run.brokers
    if b is None:
        r.skipped.append("brokers.parquet missing (ideal overlay?): no per-broker load.")
        return
    if not {"approach", "messages_handled"} <= set(b.columns):
        r.skipped.append("brokers.parquet lacks approach/messages_handled: no broker load.")
        return
    g = b.groupby("approach", sort=False)["messages_handled"]
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
    items = [r.table(table, "broker_load", cap)]
    fig, ax = _figure()
    for i, (name, s) in enumerate(g):
        ranked = np.sort(s.to_numpy())[::-1]
        ax.plot(np.arange(1, len(ranked) + 1), np.maximum(ranked, 0.8), color=_color(i), label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("broker rank (busiest first)")
    ax.set_ylabel("messages handled")
    ax.legend(fontsize=8)
    cap = "Messages handled by each broker, brokers sorted busiest first (log-log)."
    items.append(r.figure(fig, "broker_load", cap))
    if "subscriptions_held" in b.columns:
        fig, ax = _figure()
        held = b[b["approach"] == b["approach"].iloc[0]]["subscriptions_held"]
        ax.hist(held, bins=40, color=_color(0))
        ax.set_xlabel("subscriptions held by a broker (gateway)")
        ax.set_ylabel("brokers")
        cap = "How many subscriptions each broker is the gateway of (zones of the overlay)."
        items.append(r.figure(fig, "subscriptions_held", cap))
    r.section("Per-broker load", items)


def _run_timing(r: _Report, run: _Run) -> None:
    present = [c for c in TIMED if run.has(c)]
    if not present:
        r.skipped.append("No latency or queue columns (counting-mode run): no timing section.")
        return
    items = []
    lat = [c for c in ("latency_first", "latency_last", "server_wait_s") if c in present]
    if lat:
        items.append(r.table(_percentiles(run, lat), "latency", _LATENCY_CAPTION))
        fig, ax = _figure()
        col = "latency_last" if "latency_last" in lat else lat[0]
        _cdfs(ax, run.events, col, run.approaches, log=False)
        ax.set_xlabel(f"{col} (s)")
        cap = f"Distribution (CDF) of {col}: publication to the last notification of an event."
        items.append(r.figure(fig, "latency_cdf", cap))
    if "server_queue_len" in present:
        items.append(r.figure(_queue_figure(run), "server_queue", _QUEUE_CAPTION))
    r.section("Latency and queueing", items)


_LATENCY_CAPTION = (
    "Percentiles of the latency from publication to the first and last notification of an "
    "event, and of the time it waited in the server's queue, in seconds (timed driver)."
)


_QUEUE_CAPTION = (
    "Length of the server's queue when each event arrives, one panel per approach "
    "(timed driver); a growing queue means the server cannot keep up with the event rate."
)


def _queue_figure(run: _Run) -> Figure:
    """Small multiples: overlaid queue traces of several approaches are unreadable."""
    n = len(run.approaches)
    fig = Figure(figsize=(8.5, 0.4 + 1.1 * n), layout="constrained")
    axes = fig.subplots(n, 1, sharex=True, sharey=True, squeeze=False)[:, 0]
    for i, (ax, name) in enumerate(zip(axes, run.approaches, strict=True)):
        part = run.events[run.events["approach"] == name]
        ax.plot(part["batch"], part["server_queue_len"], color=_color(i), lw=0.8)
        ax.set_ylabel(name, rotation=0, ha="right", va="center", fontsize=8)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel(run.per.split(" ")[0])
    return fig


def _percentiles(run: _Run, cols: list[str]) -> pd.DataFrame:
    """Approaches × (metric, percentile)."""
    e = run.events
    parts = {}
    for c in cols:
        g = e.groupby("approach", sort=False)[c]
        parts[c] = pd.DataFrame(
            {
                "p50": g.quantile(0.5),
                "p95": g.quantile(0.95),
                "p99": g.quantile(0.99),
                "max": g.max(),
            }
        )
    table = pd.concat(parts, axis=1).reindex(run.approaches)
    table.index.name = "approach"
    return table


# ---------------------------------------------------------------- sweep reports


@dataclass
class _Sweep:
    """A sweep dataset split into successful rows, failures and parameter columns."""

    ok: pd.DataFrame
    failed: pd.DataFrame
    params: list[str]

    @property
    def approaches(self) -> list[str]:
        """Approaches in order of first appearance."""
        return list(dict.fromkeys(self.ok["approach"]))

    def varying(self) -> list[str]:
        """Parameters with more than one value among successful rows."""
        return [p for p in self.params if self.ok[p].nunique(dropna=False) > 1]

    def has(self, column: str) -> bool:
        """Whether ``column`` exists with at least one value."""
        return column in self.ok.columns and self.ok[column].notna().any()


def _load_sweep(src: Path) -> _Sweep:
    data = _read_sweep(src)
    if "approach" not in data.columns:
        raise InputError(f"{str(src)!r}: sweep dataset has no 'approach' column")
    error = data["error"] if "error" in data.columns else pd.Series(None, data.index, object)
    failed = error.notna() & (error.astype(str).str.strip() != "")  # "" also means success
    params = [c for c in data.columns if "." in c]
    ok = data[~failed].reset_index(drop=True)
    return _Sweep(ok, data[failed].reset_index(drop=True), params)


def _read_sweep(src: Path) -> pd.DataFrame:
    """All rows of the dataset. File by file: a failed run's file lacks the metric
    columns, and a dataset reader would take its schema from whichever file comes first."""
    files = _parquet_files(src) if src.is_dir() else [src]
    return pd.concat([_read_parquet(f) for f in files], ignore_index=True)


def _sweep_report(r: _Report, src: Path) -> Path:
    sweep = _load_sweep(src)
    _sweep_overview(r, sweep, src)
    if sweep.ok.empty:
        r.skipped.append("Every run of the sweep failed: no figures.")
    else:
        _sweep_server(r, sweep)
        _sweep_broker(r, sweep)
        _sweep_received(r, sweep)
        _sweep_calls(r, sweep)
        _sweep_workloads(r, sweep)
        _sweep_batch(r, sweep)
    failed = len(_failed_runs(sweep)) if len(sweep.failed) else 0
    subtitle = html.escape(
        f"Sweep {src.resolve().name} — {_run_count(sweep.ok)} successful runs, {failed} failed, "
        f"{len(sweep.approaches)} approaches"
    )
    return r.write("cnsim sweep report", subtitle)


def _run_count(frame: pd.DataFrame) -> int:
    key = next((c for c in ("run_id", "run") if c in frame.columns), None)
    if key is not None:
        return int(frame[key].nunique())
    params = [c for c in frame.columns if "." in c]
    return int(len(frame.drop_duplicates(params))) if params else len(frame)


def _sweep_overview(r: _Report, sweep: _Sweep, src: Path) -> None:
    rows = {
        p: ", ".join(_fmt(v) for v in sorted(sweep.ok[p].dropna().unique(), key=_sort_key))
        for p in sweep.varying()
    }
    items = []
    if rows:
        table = pd.DataFrame({"values": rows})
        table.index.name = "parameter"
        cap = "Parameters the sweep varies, and their values."
        items.append(r.table(table, "parameters", cap, text=True))
    data = pd.concat([sweep.ok, sweep.failed], ignore_index=True)
    data.to_csv(r.out / "sweep.csv", index=False)
    items.append(
        f"<p>Approaches: {html.escape(', '.join(sweep.approaches))}. "
        '<a class="csv" href="sweep.csv">The whole dataset as CSV</a>.</p>'
    )
    if not sweep.failed.empty:
        items.append('<p class="note">Some runs failed; they are left out of every figure.</p>')
        items.append(r.table(_failed_runs(sweep), "failed", "Failed runs and their errors.", True))
    r.section("Sweep", items)


def _failed_runs(sweep: _Sweep) -> pd.DataFrame:
    """One row per failed run (a run fails for all its approaches at once)."""
    key = [c for c in ("run_id", "run") if c in sweep.failed.columns][:1]
    varying = [p for p in sweep.params if sweep.failed[p].nunique(dropna=False) > 1]
    cols = list(dict.fromkeys([*key, *varying, "error"]))
    failed = sweep.failed[cols].astype(str).drop_duplicates()
    return failed.set_index(key[0]) if key else failed.reset_index(drop=True)


def _sweep_server(r: _Report, sweep: _Sweep) -> None:
    items = []
    for x in _axes(sweep):
        for metric, fig_ref, what in (
            ("mean_server_out_bytes", "Fig. 11 / 12(a)", "Mean"),
            ("max_server_out_bytes", "Fig. 13(a)", "Maximum"),
        ):
            what = f"{what} outgoing server traffic {_per(sweep)}"
            items += _trend(r, sweep, x, metric, what, fig_ref)
    items += _eps_trend(r, sweep)
    r.section("Outgoing traffic from the server", items)


def _sweep_broker(r: _Report, sweep: _Sweep) -> None:
    items = []
    for x in _axes(sweep):
        for metric, ref, what in (
            ("mean_overlay_bytes", "Fig. 14(a)", "Overlay"),
            ("mean_ip_bytes", "Fig. 14(b)", "IP"),
        ):
            items += _trend(r, sweep, x, metric, f"{what} traffic in the broker network", ref)
    r.section("Traffic in the broker network", items)


def _sweep_received(r: _Report, sweep: _Sweep) -> None:
    items = []
    for x in _axes(sweep):
        name = TREND_AXES[x].split(" ")[0]
        for metric, ref, what in (
            ("mean_delivered_msgs", "Table I", f"Messages received {_per(sweep)}"),
            ("redundancy", "Table II", "Redundancy in messages received (N/N_exact − 1)"),
        ):
            if not sweep.has(metric):
                continue
            table, fixed = _pivot(sweep, x, metric)
            cap = f"{what}; approaches × {name}. Mirrors {PAPER} {ref}.{fixed}"
            items.append(r.table(table, f"{metric}_by_{name}", cap))
    r.section("Messages received by subscriptions", items)


def _sweep_calls(r: _Report, sweep: _Sweep) -> None:
    calls = [f"mean_{c}" for c in CALLS if sweep.has(f"mean_{c}")]
    if not calls:
        r.skipped.append("No mean_calls_* columns in the sweep: no server-cost tables.")
        return
    items = []
    for x, ref in (("subscriptions.k", "Table III"), ("subscriptions.count", "Table IV")):
        if x not in sweep.varying():
            continue
        rows, fixed = _hold_others(sweep, x)
        table = rows.groupby(["approach", x])[calls].mean().stack().unstack(x)
        table = table[(table != 0).any(axis=1)]  # calls an approach never makes
        order = {a: i for i, a in enumerate(sweep.approaches)}
        table = table.sort_index(level=0, key=lambda idx: idx.map(order), sort_remaining=False)
        table.index = table.index.set_names(["approach", "call"])
        table = table.rename(index=lambda c: c.removeprefix("mean_calls_"), level=1)
        axis = TREND_AXES[x].split(" ")[0]
        table.columns = [f"{axis}={_fmt(c)}" for c in table.columns]
        cap = (
            f"Average number of calls {_per(sweep)} to the server's data structures, by approach "
            f"and call type, against {axis}. Mirrors {PAPER} {ref} (transposed)."
        )
        cap += fixed + _mean_note(rows, ["approach", x])
        items.append(r.table(table, f"calls_by_{axis}", cap))
    r.section("Server processing cost", items)


WORKLOAD_KEYS = (
    "objects.distribution",
    "subscriptions.distribution",
    "subscriptions.spread",
    "subscriptions.count",
)


def _sweep_workloads(r: _Report, sweep: _Sweep) -> None:
    items = []
    dists = [p for p in WORKLOAD_KEYS[:2] if p in sweep.varying()]
    metric = "mean_server_out_msgs"
    if not sweep.has(metric):
        metric = "mean_server_out_bytes"
    have = set(sweep.approaches)
    if dists and {"paint-dense", "paint-sparse"} <= have and sweep.has(metric):
        keys = [p for p in WORKLOAD_KEYS if p in sweep.varying()]
        items.append(_workload_ratio(r, sweep, keys, metric))
    if "events.volatility" in sweep.varying():
        what = "Outgoing server traffic per event vs volatility c"
        items += _trend(r, sweep, "events.volatility", "mean_server_out_bytes", what, "Fig. 15(b)")
    r.section("Workloads", items)


def _workload_ratio(r: _Report, sweep: _Sweep, keys: list[str], metric: str) -> str:
    """Bars of Paint-Sparse / Paint-Dense messages, one per workload (combination of
    distributions, spread and m) present in the sweep."""
    rows, fixed = _hold_others(sweep, *keys)
    keys = [k for k in keys if rows[k].nunique() > 1]  # label only what tells bars apart
    means = rows.groupby([*keys, "approach"])[metric].mean().unstack("approach")
    ratio = (means["paint-sparse"] / means["paint-dense"]).dropna()
    tuples = [i if isinstance(i, tuple) else (i,) for i in ratio.index]
    labels = ["\n".join(_fmt(v) for v in t) for t in tuples]  # one line per key: no clipping
    fig, ax = _figure()
    ax.bar(range(len(ratio)), ratio.to_numpy(), color=_color(1))
    ax.set_xticks(range(len(ratio)), labels, fontsize=8)
    ax.axhline(1, color="#888", lw=0.8, ls="--")
    ax.set_ylabel("Paint-Sparse / Paint-Dense")
    ax.set_xlabel(" / ".join(keys))
    cap = (
        f"Ratio of messages generated by Paint-Sparse to Paint-Dense per workload ({metric}); "
        f"below 1 where knowing S lets Paint-Sparse skip empty regions. Mirrors {PAPER} "
        f"Fig. 15(a).{fixed}{_mean_note(rows, [*keys, 'approach'])}"
    )
    return r.figure(fig, "workload_ratio", cap)


def _sweep_batch(r: _Report, sweep: _Sweep) -> None:
    batch = [a for a in sweep.approaches if a.startswith(BATCH_PREFIXES)]
    if not batch:
        return
    x = "subscriptions.k" if "subscriptions.k" in sweep.varying() else None
    gen = "total_server_out_msgs" if sweep.has("total_server_out_msgs") else "mean_server_out_msgs"
    rec = "total_delivered_msgs" if sweep.has("total_delivered_msgs") else "mean_delivered_msgs"
    panels = [
        (c, t)
        for c, t in (
            (gen, "messages generated"),
            (rec, "messages received"),
            ("mean_calls_min_y", "min_y calls per batch"),
        )
        if sweep.has(c)
    ]
    sub = _Sweep(sweep.ok[sweep.ok["approach"].isin(batch)], sweep.failed, sweep.params)
    fig = Figure(figsize=(3.4 * len(panels), 3.8), layout="constrained")
    fixed = ""
    for ax, (metric, title) in zip(
        fig.subplots(1, len(panels), squeeze=False)[0], panels, strict=True
    ):
        if x is None:
            rows, fixed = _hold_others(sub)
            _bars(ax, rows.groupby("approach", sort=False)[metric].mean(), log=False)
        else:
            fixed = _lines(ax, sub, x, metric, log=False)[1]
            ax.set_xlabel("k")
        ax.set_title(f"{title}\n({metric})", fontsize=9)
    if x is not None:  # one legend for the three panels
        handles, labels = fig.axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8)
    cap = (
        "Paint-Batch against Coalesce and Online: messages generated by the server, messages "
        f"received by subscriptions and min_y calls. Mirrors {PAPER} Fig. 16(a), (b), (c).{fixed}"
    )
    r.section("Batch processing", [r.figure(fig, "batch", cap)])


# ---------------------------------------------------------------- sweep helpers


def _per(sweep: _Sweep) -> str:
    """What a sweep's means are taken over: ``per event``, or per batch when batched."""
    col = next((c for c in ("batch_size", "events.batch_size") if sweep.has(c)), None)
    sizes = sorted(sweep.ok[col].dropna().unique()) if col else [1]
    if sizes == [1]:
        return "per event"
    return "per batch" if len(sizes) > 1 else f"per batch of {_fmt(sizes[0])} events"


def _axes(sweep: _Sweep) -> list[str]:
    """The paper's x-axes (k, m) the sweep varies."""
    return [x for x in TREND_AXES if x in sweep.varying()]


def _hold_others(sweep: _Sweep, *xs: str) -> tuple[pd.DataFrame, str]:
    """Rows with every varying parameter except ``xs`` held at one value, and a caption
    note naming the values held."""
    rows = sweep.ok
    held = []
    for p in sweep.varying():
        if p in xs:
            continue
        value = _reference(rows, p, xs)
        rows = rows[rows[p] == value] if not pd.isna(value) else rows[rows[p].isna()]
        held.append(f"{p} = {_fmt(value)}")
    note = f" Other parameters held at {', '.join(held)}." if held else ""
    return rows, note


def _mean_note(rows: pd.DataFrame, keys: list[str]) -> str:
    """Caption note when a plotted value averages several runs (seeds, repeats)."""
    most = int(rows.groupby(keys).size().max()) if len(rows) else 0
    return f" Each value is the mean of up to {most} runs." if most > 1 else ""


def _reference(rows: pd.DataFrame, p: str, xs: tuple[str, ...]) -> object:
    """The value ``p`` is held at: the paper's default if swept, else the most common
    value (ties: the middle one) — but one that leaves ``xs`` varying, since zipped axes
    (e.g. events.update with events.volatility) only vary together."""
    values = rows[p]
    counts = values.value_counts()
    if counts.empty:
        return np.nan
    top = sorted((v for v, n in counts.items() if n == counts.max()), key=_sort_key)
    default, middle = PAPER_DEFAULTS.get(p), top[len(top) // 2]
    prefs = sorted(counts.index, key=lambda v: (v != default, v != middle, -counts[v]))
    if not xs:
        return prefs[0]
    need = min(2, len(rows[list(xs)].drop_duplicates()))
    keeps = [v for v in prefs if len(rows.loc[values == v, list(xs)].drop_duplicates()) >= need]
    return (keeps or prefs)[0]


def _pivot(sweep: _Sweep, x: str, metric: str) -> tuple[pd.DataFrame, str]:
    rows, fixed = _hold_others(sweep, x)
    table = rows.groupby(["approach", x])[metric].mean().unstack(x)
    table = table.reindex([a for a in sweep.approaches if a in table.index])
    table.columns = [f"{TREND_AXES.get(x, x).split(' ')[0]}={_fmt(c)}" for c in table.columns]
    table.index.name = "approach"
    return table, fixed + _mean_note(rows, ["approach", x])


def _trend(r: _Report, sweep: _Sweep, x: str, metric: str, what: str, ref: str) -> list[str]:
    """One line per approach of ``metric`` against parameter ``x`` (log y)."""
    if not sweep.has(metric):
        r.skipped.append(f"{metric} not in the sweep dataset: no {ref} figure against {x}.")
        return []
    fig, ax = _figure()
    hidden, fixed = _lines(ax, sweep, x, metric, log=True)
    if not ax.lines:
        r.skipped.append(
            f"{metric} is zero for every approach (an ideal overlay has no broker network; "
            f"CN-Relax has no server): no {ref} figure against {x}."
        )
        return []
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_xlabel(TREND_AXES.get(x, x))
    ax.set_ylabel(f"{metric} (bytes)" if metric.endswith("bytes") else metric)
    ax.set_title(what, fontsize=10)
    note = f" Not shown (zero throughout): {', '.join(hidden)}." if hidden else ""
    cap = f"{what} against {TREND_AXES.get(x, x)}, per approach (log scale). Mirrors {PAPER} "
    cap += f"{ref}.{fixed}{note}"
    name = f"{metric}_vs_{x.replace('.', '_')}"
    return [r.figure(fig, name, cap)]


def _lines(ax, sweep: _Sweep, x: str, metric: str, log: bool) -> tuple[list[str], str]:
    """Draw ``metric`` vs ``x`` per approach; return approaches left out and the caption note."""
    rows, fixed = _hold_others(sweep, x)
    means = rows.groupby(["approach", x])[metric].mean()
    hidden = []
    for i, name in enumerate(sweep.approaches):
        if name not in means.index.get_level_values(0):
            continue
        s = means.loc[name].sort_index()
        if log and not (s > 0).any():
            hidden.append(name)
            continue
        ax.plot(s.index, s.to_numpy(), marker=_marker(i), color=_color(i), label=name)
    if log and ax.lines:
        ax.set_yscale("log")
    _value_ticks(ax, rows[x].dropna())
    ax.grid(True, which="major", alpha=0.3)
    return hidden, fixed + _mean_note(rows, ["approach", x])


def _value_ticks(ax, values: pd.Series) -> None:
    """Ticks at the swept values (a log axis when they span decades)."""
    if not pd.api.types.is_numeric_dtype(values) or values.empty:
        return
    ticks = sorted(values.unique())
    if values.min() > 0 and values.max() / values.min() >= 50:
        ax.set_xscale("log")
    if len(ticks) <= 12:
        ax.set_xticks(ticks, [_fmt(t) for t in ticks])
        ax.xaxis.set_minor_locator(NullLocator())  # y keeps its minor ticks (log labels)


def _eps_trend(r: _Report, sweep: _Sweep) -> list[str]:
    """Server traffic against ε per Paint family (seed 003 Fig. 12(b))."""
    eps = sweep.ok["approach"].map(_parse_eps)
    rows = sweep.ok[eps.notna()].assign(
        family=lambda d: d["approach"].str.extract(_EPS)[0], eps=eps[eps.notna()]
    )
    per_family = rows.groupby("family")["eps"].transform("nunique")
    rows = rows[per_family >= 2]  # a family with one ε has no trend to show
    if rows.empty:
        return []
    rows, fixed = _hold_others(_Sweep(rows, sweep.failed, sweep.params))
    fixed += _mean_note(rows, ["family", "eps"])
    means = rows.groupby(["family", "eps"])["mean_server_out_bytes"].mean()
    fig, ax = _figure()
    for i, family in enumerate(means.index.get_level_values(0).unique()):
        s = means.loc[family].sort_index()
        ax.plot(s.index, s.to_numpy(), marker=_marker(i), color=_color(i), label=f"{family}(ε)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks = sorted(rows["eps"].unique())
    ax.set_xticks(ticks, [f"1/{round(1 / t)}" if t < 1 else "1" for t in ticks])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("ε")
    ax.set_ylabel("mean_server_out_bytes")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    cap = (
        "Mean outgoing server traffic per event against ε for the approximate variants "
        f"(log-log). Mirrors {PAPER} Fig. 12(b).{fixed}"
    )
    return [r.figure(fig, "server_traffic_vs_eps", cap)]


def _parse_eps(name: str) -> float:
    """ε of a Paint-Dense(ε) or Paint-Sparse(ε) name, else NaN."""
    if not _EPS.match(name):
        return np.nan
    try:
        eps = parse_approach(name)[2]
    except ValueError:
        return np.nan
    return np.nan if eps is None else eps


# ---------------------------------------------------------------- drawing helpers


def _figure(width: float = 8.5, height: float = 3.8):
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots()


def _color(i: int) -> str:
    return f"C{i % 10}"


def _marker(i: int) -> str:
    return "osD^v<>ph*"[i % 10]


def _bars(ax, values: pd.Series, log: bool) -> None:
    """One bar per index entry, labelled with its value."""
    xs = np.arange(len(values))
    bars = ax.bar(xs, values.to_numpy(float), color=[_color(i) for i in range(len(values))])
    ax.bar_label(bars, labels=[_fmt(v) for v in values], fontsize=7)
    ax.set_xticks(xs, [str(i) for i in values.index], rotation=25, ha="right", fontsize=8)
    if log and (values > 0).any():
        ax.set_yscale("log")
    ax.margins(y=0.15)


def _grouped_bars(ax, frame: pd.DataFrame, log: bool = True) -> list[str]:
    """Bars of each column grouped by index entry; rows all <= 0 are left out on a log
    scale. Returns the index entries shown."""
    if log:
        frame = frame[(frame > 0).any(axis=1)]
    xs = np.arange(len(frame))
    width = 0.8 / max(len(frame.columns), 1)
    for j, col in enumerate(frame.columns):
        values = frame[col].to_numpy(float)
        bars = ax.bar(
            xs + (j - (len(frame.columns) - 1) / 2) * width,
            values,
            width,
            label=str(col),
            color=_color(j),
        )
        ax.bar_label(bars, labels=[_fmt(v) for v in values], fontsize=6.5)
    ax.set_xticks(xs, [str(i) for i in frame.index], rotation=20, ha="right", fontsize=8)
    if log and len(frame):
        ax.set_yscale("log")
    ax.margins(y=0.15)
    ax.legend(fontsize=8)
    return list(frame.index)


def _cdfs(ax, events: pd.DataFrame, column: str, approaches: list[str], log: bool = True) -> None:
    """Empirical CDF of ``column`` per approach."""
    for i, name in enumerate(approaches):
        v = np.sort(events.loc[events["approach"] == name, column].dropna().to_numpy(float))
        if len(v):
            ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", color=_color(i), label=name)
    positive = events[column][events[column] > 0]
    if log and len(positive) and positive.max() / positive.min() >= 100:
        ax.set_xscale("symlog", linthresh=1)  # zeros are common (events that change nothing)
    ax.set_ylabel("fraction ≤ x")
    ax.set_ylim(0, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def _corner_label(frame: pd.DataFrame) -> pd.DataFrame:
    """Move a one-level index's name into the header's corner cell: pandas otherwise
    spends a whole header row on it."""
    if isinstance(frame.index, pd.MultiIndex) or frame.index.name is None:
        return frame
    frame = frame.copy()
    if not isinstance(frame.columns, pd.MultiIndex) or frame.columns.names[-1] is None:
        names = list(frame.columns.names)
        names[-1] = frame.index.name
        frame.columns = frame.columns.set_names(names)
    frame.index.name = None
    return frame


def _hidden_note(all_names, shown: list[str]) -> str:
    hidden = [str(n) for n in all_names if n not in shown]
    return f" Not shown (zero on a log scale): {', '.join(hidden)}." if hidden else ""


def _sort_key(v: object) -> tuple:
    return (0, v, "") if isinstance(v, int | float | np.number) else (1, 0, str(v))


def _fmt(v: object) -> str:
    """A number as a reader wants it in a table: thousands separators, 3 significant
    digits for small values, '–' for missing."""
    if v is None or (isinstance(v, float | np.floating) and math.isnan(v)):
        return "–"
    if isinstance(v, bool | np.bool_):
        return str(bool(v))
    if isinstance(v, int | np.integer):
        return f"{int(v):,}"
    if isinstance(v, float | np.floating):
        a = abs(float(v))
        if a == 0:
            return "0"
        if float(v).is_integer() and a < 1e15:
            return f"{int(v):,}"
        if a >= 1000:
            return f"{v:,.0f}"
        return f"{v:.2f}" if a >= 10 else f"{v:.3g}"
    return str(v)
