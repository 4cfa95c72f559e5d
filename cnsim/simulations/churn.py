"""Seed 001's command stream: box subscriptions over the content-based overlay that
come and go, interleaved with published events (Shen, Aluru, Tirthapura, "Indexing for
Subscription Covering in Publish-Subscribe Systems", §V-A).

A scenario is this stream when its subscription kind is one its overlay declares it
runs so (``subscriptions.kind = "box"`` over ``overlay.kind = "content-based"``:
``ContentBasedCN.streams``; :attr:`cnsim.simulations.config.Scenario.commands`);
:func:`cnsim.simulations.runner.simulate` runs it here, or in
:mod:`cnsim.simulations.timed_churn` in timed mode. Its approach is CN-Relax (events
enter at the publisher, subscribers keep what matches).

Workload (:func:`cnsim.subscriptions.covering.workload.command_stream`):
``subscriptions.count`` commands on ``d = subscriptions.dims`` attributes, each a
subscribe of a random box (every edge a random segment of the integers ``0 .. 1023``)
with probability ``1 - p`` or an unsubscribe of a uniformly chosen live subscription
with probability ``p = subscriptions.churn``.  Command ``i`` is issued by a subscriber
on an IP node (stream ``subscriber_nodes``) attached to its nearest broker.
``events.count`` events, points uniform over the same integers (stream ``events``), are
published from uniformly drawn IP nodes (stream ``publishers``) at their nearest
broker, evenly spread over the stream: event ``e`` follows command
``floor((e + 1) * commands / events) - 1``.  The overlay (world, tree, endpoints,
homes) is the content-based network's own :class:`~cnsim.brokers.content_based.TreeOverlay`
and the brokers' pruning its :class:`~cnsim.brokers.forwarding.Covering`, read once.

Output, one row per event: the event, the last command before it and the live
subscriptions (:data:`ROW_COLUMNS`), then the catalog's ``mode="churn"`` metrics (the
counters are those of the commands since the previous event, the routing entries
those after them) and the event's own traffic under the counting metrics' names
(:data:`TRAFFIC`; an event is ``messages.event_bytes`` long).  With ``check=True``
every event's deliveries are compared with brute force over the live boxes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cnsim.brokers.batch_forwarding import EventRouter
from cnsim.brokers.content_based import TreeOverlay
from cnsim.brokers.forwarding import Covering
from cnsim.errors import InputError
from cnsim.simulations.config import Scenario
from cnsim.simulations.metrics import CATALOG, aggregate
from cnsim.simulations.result import Result
from cnsim.simulations.seeds import Seeds
from cnsim.subscriptions.covering.workload import SUBSCRIBE, CommandStream, command_stream

BITS = 10  # attribute domain 0 .. 2**BITS - 1 (seed 001 §V-A: [0, 2^c - 1])
DOMAIN = (0.0, float(2**BITS - 1))

#: what an event row holds besides metrics, with its type
ROW_COLUMNS = {"event": "int64", "command": "int64", "live": "int64"}
#: the counting metrics an event row holds: the event's own delivery and traffic
TRAFFIC = ("delivered_msgs", "overlay_bytes", "ip_bytes", "last_hop_ip_bytes", "publish_ip_bytes")
_CHURN = CATALOG.select("batch", "churn")
#: the counters of the commands since the previous event: the churn metrics that sum
COUNTERS = tuple(m.name for m in _CHURN if "total" in m.aggregates)


def event_columns() -> dict[str, str]:
    """The columns of an event row, in order, with their types (declared, so a run
    with no events still writes its whole, typed schema)."""
    metrics = [*_CHURN, *(CATALOG[name] for name in TRAFFIC)]
    return {**ROW_COLUMNS, **{m.name: "int64" if m.integer else "float64" for m in metrics}}


def event_frame(rows) -> pd.DataFrame:
    """The rows of :meth:`ChurnRun.rows` as a frame with :func:`event_columns`."""
    columns = event_columns()
    frame = pd.DataFrame(list(rows))
    assert frame.empty or list(frame.columns) == list(columns), list(frame.columns)
    return frame.reindex(columns=list(columns)).astype(columns)


@dataclass(frozen=True)
class ChurnWorkload:
    """Commands, where each is issued, and the interleaved events."""

    stream: CommandStream
    home: np.ndarray  # (commands,) broker of the subscriber of each command's subscription
    event_after: np.ndarray  # (E,) the command each event follows
    event_x: np.ndarray  # (E, d) points
    overlay: TreeOverlay

    @property
    def endpoints(self):
        return self.overlay.endpoints


def build_churn(scenario: Scenario, seeds: Seeds, events: int | None = None) -> ChurnWorkload:
    """The scenario's overlay, command stream and events, from its named random streams
    (``events`` overrides the configured event count)."""
    s = scenario["subscriptions"]
    n, d = s["count"], s["dims"]
    n_events = scenario["events"]["count"] if events is None else events
    seed = int(seeds.rng("subscriptions").integers(2**63))
    stream = command_stream(n, d, s["churn"], seed, BITS)
    degree = scenario["overlay"]["degree"]
    overlay = TreeOverlay.build(scenario.network, degree, n, n_events, seeds)
    after = (np.arange(1, n_events + 1) * n) // max(n_events, 1) - 1
    x = seeds.rng("events").integers(0, 2**BITS, size=(n_events, d)).astype(np.float64)
    return ChurnWorkload(stream, overlay.home, after.astype(np.int64), x, overlay)


ENGINES = ("auto", "batch", "reference")


class ChurnRun:
    """One command-stream scenario: the overlay, its workload, and the replay.

    ``engine``: ``"reference"`` runs the brokers message by message
    (:class:`~cnsim.brokers.forwarding.Forwarding`: per-link tables, events matched by
    every broker; what ``cnsim verify`` checks); ``"batch"`` replays the same protocol
    link by link (:mod:`cnsim.brokers.batch_forwarding`: the same counts, hops and
    deliveries; ``match_*`` count one global index of the live boxes instead of the
    brokers' tables); ``"auto"``: batch where it applies (:attr:`Covering.batched`)."""

    def __init__(self, scenario: Scenario, events: int | None = None, engine: str = "auto"):
        covering = Covering.of(scenario["overlay"])
        if engine not in ENGINES:  # before any work
            raise InputError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
        if engine == "batch" and not covering.batched:
            raise InputError(
                f"engine 'batch' replays covering none, g1, gk (k <= 64), full and poset, "
                f"not {covering.describe()}"
            )
        self.scenario = scenario
        self.covering = covering
        self.seeds = Seeds(scenario.seed)
        self.workload = build_churn(scenario, self.seeds, events)
        w = self.workload
        self.world, self.tree = w.overlay.world, w.overlay.tree
        self.batch = engine == "batch" or (engine == "auto" and covering.batched)
        self.forwarding = w.overlay.forwarding(w.stream.d, covering, DOMAIN, self.batch)
        ep = w.endpoints
        self.last_hop = w.overlay.last_hop
        self.publish_hops = self.world.last_hops(ep.nearest_broker, ep.publisher_node)
        self.live = np.zeros(len(w.stream), bool)
        self.handled = np.zeros(self.world.n_brokers, np.int64)
        self.mismatches: list[tuple[int, str]] = []
        self.broker_hops = np.asarray(self.world.broker_hops)  # in memory: read per event
        self.keep_paths = False  # timed mode: keep every event's route in ``paths``
        self.paths: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []

    def rows(self, check: bool = False):
        """Replay commands and events; yield one dict per event (see the module doc).
        With ``check``, every event whose deliveries differ from brute force is added
        to :attr:`mismatches` as ``(event, description)``."""
        if self.batch:
            yield from self._batch_rows(check)
            return
        w, f, live = self.workload, self.forwarding, self.live
        st, sizes = w.stream, self.scenario["messages"]
        event_bytes = sizes["event_bytes"]
        before = f.stats()
        cmd = 0
        for e in range(len(w.event_after)):
            while cmd <= w.event_after[e]:
                self._command(cmd)
                cmd += 1
            broker = int(w.endpoints.nearest_broker[e])
            subs, hop_from, hop_to = f.publish(broker, w.event_x[e])
            now = f.stats()
            held = f.entries
            row = {"event": e, "command": cmd - 1, "live": int(live.sum())}
            row.update({c: now[c] - before[c] for c in COUNTERS})
            row.update(routing_entries_mean=float(held.mean()),
                       routing_entries_max=int(held.max(initial=0)))  # fmt: skip
            self._event(row, e, broker, subs, hop_from, hop_to, check, event_bytes)
            before = now
            yield row
        while cmd < len(st):  # commands after the last event (or with no events)
            self._command(cmd)
            cmd += 1

    def _event(self, row, e, broker, subs, hop_from, hop_to, check, event_bytes) -> None:
        """The event columns of ``row``; with ``check``, brute force over the live boxes."""
        st, live, x = self.workload.stream, self.live, self.workload.event_x[e]
        if check:
            want = np.flatnonzero(live & (st.lo <= x).all(axis=1) & (x <= st.hi).all(axis=1))
            got = np.sort(subs)
            if not np.array_equal(got, want):
                self.mismatches.append((e, (
                    f"event {e} at {x.tolist()} after command {row['command']}: the overlay "
                    f"reached {len(got)} subscriptions ({len(np.unique(got))} distinct), "
                    f"brute force {len(want)}"
                )))  # fmt: skip
        np.add.at(self.handled, hop_to, 1)
        self.handled[broker] += 1
        if self.keep_paths:
            self.paths.append((broker, subs, hop_from, hop_to))
        ip_hops = int(self.broker_hops[hop_from, hop_to].sum(dtype=np.int64))
        row.update(
            delivered_msgs=len(subs),
            overlay_bytes=len(hop_from) * event_bytes,
            ip_bytes=ip_hops * event_bytes,
            last_hop_ip_bytes=int(self.last_hop[subs].sum()) * event_bytes,
            publish_ip_bytes=int(self.publish_hops[e]) * event_bytes,
        )

    def _batch_rows(self, check: bool):
        """:meth:`rows` with the batch engine: the whole command stream through the
        links first, then the events in order against the live boxes."""
        w, f, live, st = self.workload, self.forwarding, self.live, self.workload.stream
        event_bytes = self.scenario["messages"]["event_bytes"]
        f.replay(st.op, st.sid, w.home, st.lo, st.hi)
        after = w.event_after
        mean, mx = f.entries_after(after)
        # per-command counters, cumulated; column order as COUNTERS
        per_cmd = np.column_stack([f.sub_msgs, f.unsub_msgs, f.withdraw_msgs, f.cover])
        cum = np.vstack([np.zeros((1, per_cmd.shape[1]), np.int64), np.cumsum(per_cmd, axis=0)])
        router = EventRouter(
            self.tree, st.d, w.home, self.covering.index, DOMAIN, match_cost=f.match_cost
        )
        cmd, prev, before, n_live = 0, 0, f.match_cost.copy(), int(live.sum())
        for e in range(len(after)):
            while cmd <= after[e]:
                s = int(st.sid[cmd])
                if st.op[cmd] == SUBSCRIBE:
                    router.subscribe(s, st.lo[s], st.hi[s])
                    n_live += 1
                else:
                    router.unsubscribe(s)
                    n_live -= 1
                live[s] = st.op[cmd] == SUBSCRIBE
                cmd += 1
            broker = int(w.endpoints.nearest_broker[e])
            subs, hop_from, hop_to = router.publish(broker, w.event_x[e])
            row = {"event": e, "command": cmd - 1, "live": n_live}
            diff = cum[cmd] - cum[prev]
            now = f.match_cost.copy()
            counts = diff.tolist() + (now - before).tolist()
            row.update({c: int(v) for c, v in zip(COUNTERS, counts, strict=True)})
            row.update(routing_entries_mean=float(mean[e]), routing_entries_max=int(mx[e]))
            self._event(row, e, broker, subs, hop_from, hop_to, check, event_bytes)
            prev, before = cmd, now
            yield row
        while cmd < len(st):
            live[int(st.sid[cmd])] = st.op[cmd] == SUBSCRIBE
            cmd += 1

    def _command(self, i: int) -> None:
        """Issue command ``i`` of the stream at its subscriber's broker."""
        w, st = self.workload, self.workload.stream
        s = int(st.sid[i])
        if st.op[i] == SUBSCRIBE:
            self.forwarding.subscribe(s, w.home[s], st.lo[s], st.hi[s])
        else:
            self.forwarding.unsubscribe(s)
        self.live[s] = st.op[i] == SUBSCRIBE


def _aggregates(frame: pd.DataFrame) -> dict:
    """The catalog's summary entries of the columns a churn run has."""
    out: dict = {"batches": int(len(frame))}
    for m in CATALOG.select("batch"):
        if m.name in frame.columns:
            for agg in m.aggregates:
                if agg != "run":
                    out[m.key(agg)] = aggregate(frame[m.name], agg, m.integer)
    return out


def simulate_churn(scenario: Scenario, events: int | None = None, check: bool = False):
    """Run a command-stream scenario in counting mode, in memory: a
    :class:`cnsim.simulations.result.Result` with one row per event, per-broker load and
    a summary (``events`` overrides the event count; ``check`` compares every event with
    brute force and raises AssertionError on the first difference)."""
    started, cpu_started = time.perf_counter(), time.process_time()
    run = ChurnRun(scenario, events)
    setup_s = time.perf_counter() - started
    frame = event_frame(run.rows(check))
    assert not run.mismatches, run.mismatches[0][1]
    return churn_result(
        run, frame, started, cpu_started,
        engine="batch" if run.batch else "reference",  # what match_* counted
        setup_time_s=setup_s,
    )  # fmt: skip


def churn_result(run: ChurnRun, frame, started, cpu_started, brokers=None, **entries) -> Result:
    """A command-stream run's :class:`~cnsim.simulations.result.Result`: its event rows,
    the per-broker load (``brokers``: columns beyond the counting ones) and the summary
    (``entries`` beside what every such run records); ``started`` and ``cpu_started``
    are the run's wall and CPU clocks at its start."""
    f, scenario = run.forwarding, run.scenario
    frame.insert(0, "approach", "cn-relax")
    load = pd.DataFrame(
        {
            "approach": "cn-relax",
            "broker": np.arange(run.world.n_brokers),
            "subscriptions_held": f.routing_entries() + f.local_subscriptions(),
            "messages_handled": run.handled,
            **(brokers or {}),
        }
    )
    summary = {
        "scenario": scenario.as_dict(),
        "source": scenario.source,
        "overlay": "content-based",
        "commands": int(len(run.workload.stream)),
        "attributes": int(run.workload.stream.d),
        "events": int(len(frame)),
        "batch_size": 1,  # every event alone
        "forced_inserts": 0,  # no objects: events are points
        "tree_degree_max": int(run.tree.degree().max(initial=0)),
        "totals": f.stats(),  # every counter over the whole command stream
        "routing_entries_per_broker_mean": float(f.routing_entries().mean()),
        "routing_entries_per_broker_max": int(f.routing_entries().max(initial=0)),
        **entries,
        "approaches": {"cn-relax": _aggregates(frame)},
        "total_time_s": time.perf_counter() - started,
        "cpu_time_s": time.process_time() - cpu_started,
    }
    return Result(frame, load, summary)
