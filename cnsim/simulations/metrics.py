"""The metrics catalog: every figure a run records, declared once (in the spirit of
Mesa's ``DataCollector``).

A :class:`Metric` names a column and says what it measures: its unit, its level
(``batch``: one value per approach and batch, a column of ``events.parquet``;
``broker``: one value per approach and broker, a column of ``brokers.parquet``;
``run``: one value per approach, in ``summary.json``; ``server``: one value per
approach and server of the distributed object database, a column of
``servers.parquet``), how the summary aggregates
it, the label tables and plots use, and the figure or table of seed 003 §V it
mirrors. Rows, ``summary.json``, the CLI table, the report and the notebooks all
read this catalog; nothing else lists metrics.

A batch metric's summary entries are named ``{aggregate}_{name}`` (``mean_ip_bytes``,
``max_server_out_bytes``, ``p95_latency_last_s``); a run metric, and the whole-run
value of a batch metric (aggregate ``run``, e.g. ``redundancy`` over the run), is
stored under the metric's own name. Beside its mean (or whole-run value) a batch metric
gives ``ci90_{name}``, the half-width of a 90% confidence interval by batch means
(:func:`interval`): per-event statistics here are heavy-tailed (a rare update to a very
small y reaches a large share of the subscriptions), so a mean without its interval
says little. Timed mode's metrics are declared here too
(``mode="timed"``): they exist only in timed runs; so are the distributed object
database's (``mode="distributed"``, seed 003 appendix C): they exist only in runs with
``[server] count`` > 1, whose outputs otherwise stay as they were.

Message sizes (seed 003 §V; ``[messages]`` of the scenario): a CN message carries six
4-byte values (24 bytes), a unicast message four (16 bytes), an event travelling from
its publisher to where it enters 16 bytes. Traffic metrics are message-hops weighted
by those sizes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cnsim.server.distributed import WALK_BYTES

LEVELS = ("batch", "broker", "run", "server")
AGGREGATES = ("mean", "max", "total", "p50", "p95", "p99", "run")
#: the confidence of the interval every mean and whole-run value carries, and the number
#: of consecutive blocks of batches its batch means are taken over
CONFIDENCE, BLOCKS = 0.90, 20
INTERVAL = "ci90"  # its summary entries: ci90_{name}
#: how the partitions of a run spread over Spark tasks make a batch's value: ``sum``
#: (deliveries: each partition's subscriptions'), ``server`` (the server's messages and
#: calls: the same in every partition, unless the approach sends each partition's
#: subscriptions their own, ``partition = "own"``: then summed, the calls it makes alike
#: counted in one partition), ``routes`` (messages' hops through the overlay: as
#: ``server``, unless the network routes each partition's messages to its own
#: subscriptions, ``Network.routes_own``: then made from the union of the partitions'
#: hops), ``tables`` (what keeping the brokers' tables costs: summed; over a network
#: that routes by what its brokers hold, whose partitions count none of it, one task
#: counts it over every subscription and adds it), ``once`` (the same in every
#: partition: an event's way from its publisher, the brokers failing and coming back),
#: ``slowest`` (wall time: the slowest partition's)
PARTITIONS = ("sum", "server", "routes", "tables", "once", "slowest")
MODES = ("counting", "timed", "distributed", "churn", "churn-timed", "joins", "faults", "ranked")


@dataclass(frozen=True)
class Metric:
    """One recorded quantity (see the module docstring for the fields' meaning)."""

    name: str
    unit: str
    label: str
    level: str = "batch"
    aggregates: tuple[str, ...] = ("mean",)
    paper: str = ""  # the figure or table of seed 003 §V it mirrors
    integer: bool = True  # stored as int64 (else float64)
    mode: str = "counting"  # "timed" / "distributed": only by timed / multi-server runs
    wall: bool = False  # wall-clock time: differs between runs of one seed
    display_scale: float = 1.0  # tables show value × display_scale (1e6: s -> µs)
    cli: str = ""  # header in ``cnsim run``'s table (empty: not shown)
    cli_format: str = ".2f"
    collect: Callable[..., Any] | None = None  # batch metrics: value from an Outcome
    # a column of a command stream's event rows too (seed 001: every event's traffic and
    # latencies beside the "churn" metrics)
    stream: bool = False
    # a run spread over Spark tasks (cnsim/simulations/partitioned.py): how the partitions'
    # values of one batch make the run's (PARTITIONS)
    partitions: str = "sum"

    def __post_init__(self) -> None:
        assert self.level in LEVELS and self.mode in MODES, self
        assert self.partitions in PARTITIONS, self
        assert all(a in AGGREGATES for a in self.aggregates), self

    def key(self, aggregate: str) -> str:
        """The summary key of one aggregate (``mean_ip_bytes``; a whole-run value the
        driver computes, aggregate ``run``, goes under the metric's own name)."""
        return self.name if aggregate == "run" else f"{aggregate}_{self.name}"

    @property
    def has_interval(self) -> bool:
        """Whether its summary gives ``ci90_{name}``: a batch metric with a mean or a
        whole-run value."""
        return self.level == "batch" and bool({"mean", "run"} & set(self.aggregates))

    def summary_keys(self) -> list[str]:
        """Its entries in a run's per-approach summary: a batch metric's aggregates and
        interval, a run metric's own name; none for a broker or server metric (their
        values are rows of ``brokers.parquet`` / ``servers.parquet``)."""
        if self.level == "run":
            return [self.name]
        if self.level != "batch":
            return []
        keys = [self.key(a) for a in self.aggregates]
        return keys + [self.key(INTERVAL)] if self.has_interval else keys

    @property
    def unit_label(self) -> str:
        """The label with its display unit (``server time (µs)``)."""
        unit = "µs" if self.display_scale == 1e6 and self.unit == "s" else self.unit
        return f"{self.label} ({unit})" if unit and unit not in self.label.split() else self.label


@dataclass(frozen=True)
class SummaryColumn:
    """One entry of a per-approach summary: its key, label, display scale and metric."""

    key: str
    label: str
    scale: float
    metric: Metric


class Catalog:
    """An ordered set of metrics with the views the outputs need."""

    def __init__(self, metrics: list[Metric]):
        names = [m.name for m in metrics]
        assert len(set(names)) == len(names), "metric names must be unique"
        self._metrics = {m.name: m for m in metrics}

    def __iter__(self) -> Iterator[Metric]:
        return iter(self._metrics.values())

    def __getitem__(self, name: str) -> Metric:
        return self._metrics[name]

    def __contains__(self, name: object) -> bool:
        return name in self._metrics

    def select(self, level: str, mode: str | None = None, wall: bool | None = None) -> list[Metric]:
        """The metrics of one level (and one mode, with or without wall times), in order."""
        return [
            m
            for m in self
            if m.level == level
            and (mode is None or m.mode == mode)
            and (wall is None or m.wall == wall)
        ]

    def names(self, level: str, mode: str | None = None, wall: bool | None = None) -> list[str]:
        """Column names of :meth:`select`."""
        return [m.name for m in self.select(level, mode, wall)]

    def summary_columns(self) -> list[SummaryColumn]:
        """Every per-approach summary entry, in table order: the batch metrics' aggregates,
        then the run metrics."""
        out = []
        for m in self:
            if m.level == "batch":
                for a in m.aggregates:
                    label = m.unit_label if a in ("mean", "run") else f"{a} {m.unit_label}"
                    out.append(SummaryColumn(m.key(a), label, m.display_scale, m))
            elif m.level == "run":
                out.append(SummaryColumn(m.name, m.unit_label, m.display_scale, m))
        return out

    def cli_columns(self) -> list[tuple[str, str, float, str]]:
        """``(header, summary key, scale, format)`` of ``cnsim run``'s table."""
        out = []
        for m in self:
            if m.cli:
                key = m.name if m.level == "run" else m.key(m.aggregates[0])
                out.append((m.cli, key, m.display_scale, m.cli_format))
        return out

    def column_labels(self) -> dict[str, str]:
        """Label of every column and summary key (for tables and plot axes)."""
        labels = {m.name: m.unit_label for m in self}
        labels.update({c.key: c.label for c in self.summary_columns()})
        return labels


def aggregate(values: pd.Series, how: str, integer: bool = False):
    """One summary entry of a batch metric's values: ``mean``, ``max``, ``total``, a
    percentile ``p50`` / ``p95`` / ``p99`` of the values present, or ``ci90`` the
    interval of the mean (:func:`interval`) (None where there is nothing to aggregate;
    ``max`` of nothing is 0)."""
    number = int if integer else float
    if how == "total":
        return number(values.sum())
    if how == "max":
        return number(values.max()) if len(values) else 0
    if how in ("mean", "run"):
        return float(values.mean()) if len(values) else None
    if how == INTERVAL:
        return interval(values)
    present = values.dropna().to_numpy()
    return float(np.percentile(present, int(how[1:]))) if len(present) else None


def interval(values, blocks: int = BLOCKS) -> float | None:
    """Half-width of the 90% confidence interval of the mean of ``values``, a run's
    per-batch series in batch order, by batch means: the series cut into ``blocks``
    consecutive blocks of (nearly) equal length, Student's t over the blocks' means
    (blocks of many events are close to independent even where events are not). None
    with fewer than two values per block or a value missing."""
    v = np.asarray(values, dtype=float)
    if np.isnan(v).any():
        return None
    return ratio_interval(v, np.ones_like(v), blocks)  # a block's mean: its sum / length


def ratio_interval(num, den, blocks: int = BLOCKS) -> float | None:
    """As :func:`interval`, for a whole-run ratio ``sum(num) / sum(den)`` of two per-batch
    series: Student's t over the blocks' ratios. None as there, or where a block's
    denominator is 0."""
    n, d = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if len(n) < 2 * blocks:
        return None
    sums = [(a.sum(), b.sum()) for a, b in zip(np.array_split(n, blocks),
                                               np.array_split(d, blocks), strict=True)]  # fmt: skip
    if any(b == 0 for _, b in sums):
        return None
    return student_half_width(np.array([a / b for a, b in sums]))


def student_half_width(values) -> float:
    """Half-width of the 90% confidence interval of the mean of independent ``values``
    (Student's t, ``len(values) - 1`` degrees of freedom)."""
    from scipy.stats import t  # importing scipy.stats takes ~0.8 s: only when needed

    v = np.asarray(values, dtype=float)
    q = float(t.ppf(0.5 + CONFIDENCE / 2, len(v) - 1))
    return q * float(v.std(ddof=1)) / math.sqrt(len(v))


def _command(name: str):
    """The collect function of what the commands before an event cost
    (:meth:`cnsim.brokers.base.Network.apply_commands`)."""
    return lambda o: o.commands[name]


def _cost(name: str):
    """The collect function of a count the network measured for a batch
    (:attr:`cnsim.brokers.base.Traffic.costs`)."""
    return lambda o: o.traffic.costs[name]


def _churn_metrics() -> list[Metric]:
    """The command stream's columns (mode "churn"): what the commands since the previous
    event cost (message and covering counters, in the rows' order), the routing entries
    after them; and, in timed runs, the commands' propagation delays (mode
    "churn-timed")."""
    sums = ("mean", "total")
    out = [
        Metric(
            "sub_msgs",
            "messages",
            "subscription messages",
            aggregates=sums,
            mode="churn",
            paper="seed 001 §I (covering prunes forwarding)",
            collect=_command("sub_msgs"),
        ),
        Metric(
            "unsub_msgs",
            "messages",
            "unsubscription messages",
            aggregates=sums,
            mode="churn",
            collect=_command("unsub_msgs"),
        ),
        Metric(
            "withdrawals",
            "messages",
            "covered subscriptions withdrawn",
            aggregates=sums,
            mode="churn",
            collect=_command("withdrawals"),
        ),
    ]
    for op, word in (("sub", "subscribe"), ("unsub", "unsubscribe")):
        for key, label in (
            ("queries", "covering queries"),
            ("nodes_visited", "covering nodes visited"),
            ("point_comparisons", "covering point comparisons"),
        ):
            out.append(Metric(
                f"covering_{op}_{key}", key.split("_")[-1], f"{label} ({word})",
                aggregates=sums, mode="churn", paper="seed 001 Tables I, II, Fig. 9",
                collect=_command(f"covering_{op}_{key}"),
            ))  # fmt: skip
    for key, label in (
        ("queries", "matching queries"),
        ("nodes_visited", "matching nodes visited"),
        ("point_comparisons", "matching point comparisons"),
    ):
        out.append(Metric(f"match_{key}", key.split("_")[-1], label, aggregates=sums,
                          mode="churn", collect=_cost(f"match_{key}")))  # fmt: skip
    out += [
        Metric(
            "routing_entries_mean",
            "entries",
            "routing entries per broker",
            aggregates=("mean", "max"),
            integer=False,
            mode="churn",
            collect=_cost("routing_entries_mean"),
        ),
        Metric(
            "routing_entries_max",
            "entries",
            "routing entries of the fullest broker",
            aggregates=("mean", "max"),
            mode="churn",
            collect=_cost("routing_entries_max"),
        ),
    ]
    for what in ("mean", "max"):  # the summary holds the delays of every command
        out.append(Metric(
            f"sub_delay_{what}_s", "s", f"subscription propagation delay ({what} of the "
            "commands since the previous event)", aggregates=(), integer=False,
            mode="churn-timed",
        ))  # fmt: skip
    return out


def _join(name: str):
    """The collect function of what the subscribers joining and leaving before a batch
    cost (:class:`cnsim.simulations.runner.Simulation`, ``[churn]``)."""
    return lambda o: o.joins[name]


def _join_metrics() -> list[Metric]:
    """Subscribers that come and go during a run (``[churn]``, mode "joins"): how many
    joined and left before the batch, how many are live, and what the joining ones'
    first lists cost (the server's ``min_y`` calls, and one message each from the
    server through the gateway broker — CN-Relax: every object of its range, from the
    gateway broker)."""
    sums = ("mean", "total")
    return [
        Metric("joins", "subscriptions", "subscriptions joining", aggregates=sums,
               mode="joins", collect=_join("joins")),
        Metric("leaves", "subscriptions", "subscriptions leaving", aggregates=sums,
               mode="joins", collect=_join("leaves")),
        Metric("live_subs", "subscriptions", "live subscriptions", aggregates=("mean", "max"),
               mode="joins", collect=_join("live_subs")),
        Metric("join_forward_msgs", "messages", "(un)subscription messages between brokers",
               aggregates=sums, mode="joins", partitions="tables",
               collect=_join("join_forward_msgs")),
        Metric("join_calls", "calls", "min_y calls for joining subscriptions' lists",
               aggregates=sums, mode="joins", collect=_join("join_calls")),
        Metric("join_msgs", "messages", "first-list messages to joining subscriptions",
               aggregates=sums, mode="joins", collect=_join("join_msgs")),
        Metric("join_bytes", "bytes", "bytes of the joining subscriptions' first lists",
               aggregates=sums, mode="joins", collect=_join("join_bytes")),
        Metric("join_ip_bytes", "bytes", "IP bytes of the joining subscriptions' first lists",
               aggregates=sums, mode="joins", collect=_join("join_ip_bytes")),
    ]  # fmt: skip


def _fault(name: str):
    """The collect function of what broker failures and repairs cost a batch
    (:class:`cnsim.brokers.faults.FaultState`, ``[faults]``)."""
    return lambda o: o.faults[name]


def _fault_metrics() -> list[Metric]:
    """Brokers that fail and come back over the Meghdoot overlay (``[faults]``, mode
    "faults"): failures and repairs before the batch; the subscriptions lost (held by a
    failed broker with no replica up) and the deliveries to them dropped; those that
    missed a notification (their lists may be wrong until they re-subscribe); and the
    repair: zones handed back to repaired brokers, re-subscriptions with their first
    lists."""
    sums = ("mean", "total")
    return [
        Metric("failures", "brokers", "brokers failing", aggregates=sums, mode="faults",
               partitions="once", collect=_fault("failures")),
        Metric("repairs", "brokers", "brokers back", aggregates=sums, mode="faults",
               partitions="once", collect=_fault("repairs")),
        Metric("link_failures", "links", "tree links failing (content-based)", aggregates=sums,
               mode="faults", partitions="once", collect=_fault("link_failures")),
        Metric("lost_subs", "subscriptions", "subscriptions lost", aggregates=("mean", "max"),
               mode="faults", collect=_fault("lost_subs")),
        Metric("lost_msgs", "messages", "notifications lost", aggregates=sums, mode="faults",
               collect=_fault("lost_msgs")),
        Metric("stale_subs", "subscriptions", "lost subscriptions that missed a notification",
               aggregates=("mean", "max"), mode="faults", collect=_fault("stale_subs")),
        Metric("resubscriptions", "subscriptions", "lost subscriptions re-subscribing",
               aggregates=sums, mode="faults", collect=_fault("resubscriptions")),
        Metric("repair_calls", "calls", "min_y calls for re-subscribing lists",
               aggregates=sums, mode="faults", collect=_fault("repair_calls")),
        Metric("repair_msgs", "messages", "repair messages (hand-backs, re-subscriptions)",
               aggregates=sums, mode="faults", partitions="tables",
               collect=_fault("repair_msgs")),
        Metric("repair_bytes", "bytes", "repair bytes", aggregates=sums, mode="faults",
               partitions="tables", collect=_fault("repair_bytes")),
        Metric("repair_ip_bytes", "bytes", "repair IP bytes", aggregates=sums, mode="faults",
               partitions="tables", collect=_fault("repair_ip_bytes")),
    ]  # fmt: skip


def _server(o) -> int:
    return 0 if o.spec.entry == "publisher" else len(o.messages)


#: deliveries :func:`_updated` reads at a time: a batch of 50,000 events delivers hundreds
#: of millions of messages, and a mask or lookup over all of them at once cost ~20 bytes
#: each beside the deliveries themselves
_CHUNK = 1 << 22


def _updated(o) -> int:
    """Deliveries carrying one of the batch's updated objects (its new value, or its
    removal), not an exposed object that replaces it."""
    obj, upd = o.delivery.obj, o.updated
    n = 0
    for s in range(0, len(obj), _CHUNK):
        part = obj[s : s + _CHUNK]
        # a lookup table over the object ids, not a sort
        hit = part == upd[0] if len(upd) == 1 else np.isin(part, upd, kind="table")
        n += int(np.count_nonzero(hit))
    return n


def _bytes(o, name: str, hops: int) -> int:
    """Bytes of a batch's traffic: hops × the message size, unless the network measured
    them exactly (ranked delivery's messages vary in size)."""
    return o.traffic.costs.get(name, hops * o.message_bytes)


def _traffic_bytes(name: str, layer: str, paper: str, hops: Callable) -> Metric:
    """The stream metric of a batch's traffic in bytes over one ``layer`` (overlay, IP):
    ``hops(o.traffic)`` message-hops, weighted by :func:`_bytes`."""
    return Metric(name, "bytes", f"{layer} bytes", stream=True, paper=paper, cli=f"{layer} B",
                  cli_format=".0f", partitions="routes",
                  collect=lambda o: _bytes(o, name, hops(o.traffic)))  # fmt: skip


def _calls(name: str, label: str, paper: str, cli: str = "", missing: int | None = None):
    """The metric of one of the server's call counters (``Approach.calls``): a counter an
    approach does not keep is an error, unless it reads as ``missing``."""
    if missing is None:
        return Metric(name, "calls", label, paper=paper, cli=cli, partitions="server",
                      collect=lambda o: o.calls[name])  # fmt: skip
    get = lambda o: o.calls.get(name, missing)  # noqa: E731
    return Metric(name, "calls", label, paper=paper, cli=cli, partitions="server", collect=get)


def _timed_metrics() -> list[Metric]:
    """Timed runs' per-batch columns (mode "timed"): notification latencies, the server's
    queue and wait, deliveries reordered."""
    pct = ("p50", "p95", "p99")
    out = [
        Metric(f"latency_{which}_s", "s", f"latency to the {which} notification", stream=True,
               mode="timed", aggregates=pct, integer=False)
        for which in ("first", "last")
    ]  # fmt: skip
    out += [
        Metric("server_queue_len", "events", "server queue length", mode="timed"),
        Metric("server_wait_s", "s", "wait at the server", mode="timed", aggregates=pct,
               integer=False),
        Metric("reordered", "deliveries", "deliveries reordered", mode="timed",
               aggregates=("total",)),
    ]  # fmt: skip
    return out


def _distributed_metrics() -> list[Metric]:
    """The distributed object database's columns (mode "distributed": runs with
    ``[server] count`` > 1; seed 003 appendix C).  A query's traversal: the neighbour
    servers it walks to beyond the one it starts at (0: its first server answers alone),
    as in appendix C's 2k·s/n and Fig. 20, summed per batch over its first_k / min_y
    queries.  Every neighbour step of a walk is one walk message between the two
    servers' brokers (a query and its answer, ``WALK_BYTES`` = 24 bytes,
    cnsim/server/distributed.py), over the IP path between them (0 bytes over an overlay
    without brokers)."""
    queries, fig20, sums = ("first_k", "min_y"), "App. C, Fig. 20", ("mean", "total")

    def hops(*keys: str):
        return lambda o: sum(o.calls.get(key, 0) for key in keys)  # 0: no server

    out = [
        Metric(f"traversed_{q}", "servers", f"servers traversed by {q}", aggregates=("mean", "max"),
               paper=fig20, mode="distributed", partitions="server", collect=hops(f"hops_{q}"))
        for q in queries
    ]  # fmt: skip
    out += [
        Metric("server_walk_msgs", "messages", "walk messages between servers", aggregates=sums,
               paper="App. C", mode="distributed", partitions="server",
               collect=hops("hops_first_k", "hops_min_y")),
        Metric("server_walk_ip_bytes", "bytes", "IP bytes of walk messages between servers",
               aggregates=sums, paper="App. C", mode="distributed", partitions="server",
               collect=lambda o: o.calls.get("walk_ip_hops", 0) * WALK_BYTES),
    ]  # fmt: skip
    out += [
        Metric(f"traversed_per_{q}", "servers", f"servers traversed per {q}", level="run",
               mode="distributed", integer=False, paper=fig20)
        for q in queries
    ]  # fmt: skip
    out.append(Metric("max_traversed", "servers", "longest traversal of a query", level="run",
                      mode="distributed"))  # fmt: skip
    for what, label in (("query", "queries"), ("msg", "messages")):
        out.append(Metric(f"server_{what}_imbalance", "", f"busiest server's {label} / mean",
                          level="run", mode="distributed", integer=False))  # fmt: skip
    for name, unit, label in (
        ("server_objects", "objects", "objects held"),
        ("server_queries", "queries", "local queries answered"),
        ("server_updates", "updates", "updates routed"),
        ("server_msgs", "messages", "messages generated"),
        ("server_bytes", "bytes", "bytes generated"),
        ("server_walks_handled", "messages", "walk messages sent or received"),
    ):
        out.append(Metric(name, unit, label, level="server", mode="distributed"))
    return out


def _ranked_metrics() -> list[Metric]:
    """Ranked delivery's columns (mode "ranked"; cnsim/brokers/ranked.py): what
    answering the batch's events cost, and beside it the flood baseline's cost.  Over the
    content-based overlay (cnsim/brokers/ranked_content.py) every broker is its own zone:
    ``zones_visited`` counts brokers, bounds are per tree neighbour."""
    sums = ("mean", "total")

    def cost(name: str):
        return lambda o: o.traffic.costs.get(name, 0)

    out = [
        Metric("zones_visited", "zones", "zones visited", aggregates=sums, mode="ranked",
               collect=cost("zones_visited")),
        Metric("ranked_msgs", "messages", "ranked messages (queries, answers, notifications)",
               aggregates=sums, mode="ranked", collect=cost("ranked_msgs")),
        Metric("answer_entries", "entries", "entries in answers", aggregates=sums,
               mode="ranked", collect=cost("answer_entries")),
        Metric("flood_zones_visited", "zones", "zones visited by the flood baseline",
               aggregates=sums, mode="ranked", collect=cost("flood_zones_visited")),
        Metric("flood_msgs", "messages", "messages of the flood baseline", aggregates=sums,
               mode="ranked", collect=cost("flood_msgs")),
        Metric("flood_ip_bytes", "bytes", "IP bytes of the flood baseline", aggregates=sums,
               mode="ranked", collect=cost("flood_ip_bytes")),
        # [ranked] commands > 0: joins and leaves applied before the batch's event, and
        # the bound updates they caused (cnsim/brokers/ranked_churn.py)
        Metric("churn_joins", "subscriptions", "subscriptions joining", aggregates=sums,
               mode="ranked", collect=cost("churn_joins")),
        Metric("churn_leaves", "subscriptions", "subscriptions leaving", aggregates=sums,
               mode="ranked", collect=cost("churn_leaves")),
        Metric("churn_bound_changes", "changes", "zone bounds changed by joins and leaves",
               aggregates=sums, mode="ranked", collect=cost("churn_bound_changes")),
        Metric("churn_bound_msgs", "messages", "bound propagation messages of joins/leaves",
               aggregates=sums, mode="ranked", collect=cost("churn_bound_msgs")),
        Metric("churn_bound_ip_bytes", "bytes", "bound propagation IP bytes of joins/leaves",
               aggregates=sums, mode="ranked", collect=cost("churn_bound_ip_bytes")),
    ]  # fmt: skip
    for what, label in (("zones", "zones visited"), ("msgs", "messages"), ("ip_bytes", "IP bytes")):
        out.append(Metric(
            f"pruning_ratio_{what}", "", f"pruning ratio of {label} (threshold / flood)",
            level="run", mode="ranked", integer=False,
        ))  # fmt: skip
    out += [
        Metric("bound_msgs", "messages", "bound propagation messages", level="run",
               mode="ranked"),
        Metric("bound_ip_bytes", "bytes", "bound propagation IP bytes", level="run",
               mode="ranked"),
    ]  # fmt: skip
    return out


CATALOG = Catalog(
    [
        # -- per batch, every run (seed 003 §V) ----------------------------------------------
        Metric(
            "server_out_msgs",
            "messages",
            "server messages",
            paper="Fig. 11, Table III",
            cli="msgs",
            partitions="server",
            collect=_server,
        ),
        Metric(
            "server_out_bytes",
            "bytes",
            "server bytes",
            aggregates=("mean", "max"),
            paper="Fig. 11, 12(a), 13(a), 13(b)",
            cli="server B",
            cli_format=".0f",
            partitions="server",
            collect=lambda o: _server(o) * o.message_bytes,
        ),
        Metric(
            "delivered_msgs",
            "messages",
            "messages received",
            stream=True,
            aggregates=("mean", "total"),
            paper="Table I",
            cli="delivered",
            cli_format=".1f",
            collect=lambda o: len(o.delivery),
        ),
        Metric(
            "notified_subs",
            "subscriptions",
            "subscriptions notified",
            aggregates=("mean", "total"),
            paper="Table I, per subscription",
            collect=lambda o: o.delivery.notified(),
        ),  # distinct subscriptions reached: an exact approach's are those whose list changes
        Metric(
            "delivered_updated_msgs",
            "messages",
            "messages received carrying an updated object (not an exposed one)",
            aggregates=("mean", "total"),
            paper="Table II, as the paper counts",
            collect=lambda o: _updated(o),
        ),
        _traffic_bytes("overlay_bytes", "overlay", "Fig. 14(a)", lambda t: t.overlay_hops),
        _traffic_bytes("ip_bytes", "IP", "Fig. 14(b)", lambda t: t.ip_hops),
        Metric(
            "last_hop_ip_bytes",
            "bytes",
            "last-hop IP bytes",
            stream=True,
            collect=lambda o: o.traffic.last_hop_ip_hops * o.message_bytes,
        ),
        Metric(
            "publish_ip_bytes",
            "bytes",
            "publish IP bytes",
            stream=True,
            partitions="once",
            collect=lambda o: o.publish_ip_hops * o.event_bytes,
        ),
        _calls("calls_first_k", "first_k calls", "Table III, IV"),
        _calls("calls_min_y", "min_y calls", "Table III, IV", cli="min_y"),
        _calls("calls_snap", "snap calls", "Table III", cli="snap"),
        _calls("calls_min_y_paper", "min_y calls (paper's count)", "Table III, IV"),
        _calls("calls_snap_paper", "snap calls (paper's count)", "Table III, IV"),
        # the other reading of Paint-Sparse's snaps: footnote 7's (<= 3 per merge test,
        # one per strip of IR^z(i) per sweep step)
        _calls("calls_snap_footnote7", "snap calls (footnote 7's count)", "Table III, IV"),
        # 1.5-d polygon sweeps (Algorithm 7); Table VII counts min_y + min_x2. 1-d
        # approaches make none (their counters have no min_x2).
        _calls("calls_min_x2", "min_x2 calls", "Table VII", missing=0),
        Metric(
            "server_time_s",
            "s",
            "server time",
            integer=False,
            wall=True,
            display_scale=1e6,
            cli="server µs",
            cli_format=".0f",
            partitions="slowest",
            collect=lambda o: o.server_time_s,
        ),
        Metric(
            "delivery_time_s",
            "s",
            "delivery time",
            integer=False,
            wall=True,
            display_scale=1e6,
            partitions="slowest",
            collect=lambda o: o.delivery_time_s,
        ),
        Metric(
            "redundancy",
            "",
            "redundancy",
            aggregates=("run",),
            integer=False,
            paper="Table II",
            cli="redund.",
            cli_format=".3f",
        ),  # delivered / delivered by the exact reference − 1: per batch, and over the run
        Metric(
            "redundancy_paper",
            "",
            "redundancy counted on the updated objects' deliveries",
            aggregates=("run",),
            integer=False,
            paper="Table II, as the paper counts",
        ),  # the updated objects' extra deliveries / delivered by the exact reference
        # -- per batch, timed runs -------------------------------------------------------------
        *_timed_metrics(),
        # -- per approach and broker ---------------------------------------------------------
        Metric("subscriptions_held", "subscriptions", "subscriptions held", level="broker"),
        Metric("messages_handled", "messages", "messages handled", level="broker",
               partitions="routes"),
        Metric("utilisation", "", "utilisation", level="broker", mode="timed", integer=False),
        # -- per approach, whole run -----------------------------------------------------------
        # k objects per subscription; CN-Relax keeps every object of its range
        Metric("subscriber_memory_bytes", "bytes", "subscriber memory", level="run"),
        # [faults]: how long a lost subscription stayed lost, on average (the detection
        # delay, by the model, unless the run ended first)
        Metric("repair_events", "events", "events a lost subscription stayed lost (mean)",
               level="run", mode="faults", integer=False),
        # notifications dropped for a lost subscription that re-subscribed later: what
        # they said arrives with its first list, late by this many events on average
        Metric("late_msgs", "messages", "late notifications", level="run", mode="faults"),
        Metric("late_delay_events", "events", "delay of a late notification (mean)",
               level="run", mode="faults", integer=False),
        # [faults] in timed mode: lost subscriptions that missed a notification, times the
        # time until the next event, summed (subscriber-seconds a list may be wrong)
        Metric("stale_subscriber_s", "subscriber-s", "stale subscriber-seconds", level="run",
               mode="timed", integer=False),
        Metric(
            "max_broker_utilisation",
            "",
            "busiest broker's utilisation",
            level="run",
            mode="timed",
            integer=False,
        ),
        # -- the distributed object database ([server] count > 1; seed 003 appendix C) -------
        *_distributed_metrics(),
        # -- per event of seed 001's command stream over the content-based overlay
        # (cnsim/simulations/runner.py, StreamSimulation): what the commands since the
        # previous event cost; the event's own traffic is the counting metrics declared
        # ``stream``
        *_churn_metrics(),
        # -- subscribers that come and go during a run ([churn]): per batch, who joined
        # and left before it and what the joining ones' first lists cost
        *_join_metrics(),
        # -- brokers that fail and come back ([faults], Meghdoot): per batch, what was
        # lost and what the repair cost
        *_fault_metrics(),
        # -- ranked delivery (approach 'ranked'): per batch the cost of finding
        # and notifying the global top-k of its events, and the flood baseline's beside;
        # per approach the pruning ratios (threshold / flood, over the run) and the bound
        # propagation of the run's setup (cnsim/brokers/ranked.py)
        *_ranked_metrics(),
    ]
)
