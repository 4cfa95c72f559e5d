"""Timed mode (SimPy) for seed 001's command stream over the content-based overlay:
subscription propagation delay, event latency and per-broker queues.

What is timed is the counting mode's traffic (as :mod:`cnsim.simulations.timed` does
for the other runs): the batch replay (:mod:`cnsim.brokers.batch_forwarding`) gives
every subscription message with the message whose processing sent it, and the counting
rows give every event's route; so the two modes agree on every count (tested), and
an event is routed by the tables of its place in the command stream even if a
subscription before it is still on its way.

Clock
-----
* Events are published at :func:`~cnsim.simulations.timed.publication_times`
  (``timing.arrivals``, ``timing.rate``); the commands between two events are issued
  evenly spaced between their publications (those before the first event between 0
  and it, those after the last at the mean event gap).
* A command leaves its subscriber and reaches its home broker after the IP latency of
  that last hop; a publisher's event reaches its broker likewise.
* Every broker is one FIFO queue taking ``timing.broker_service_s`` per message it
  handles — subscription messages and events alike; a broker sends what a message
  causes once it has served it.  A link adds the brokers' IP latency plus
  serialisation at ``timing.bandwidth_mbps``: a subscription message carries the
  subscription id and its ``2d`` edges, ``4 + 8d`` bytes; an event
  ``messages.event_bytes``.
* Subscription propagation delay of a command: from its issue to the last broker
  serving a message it caused (its home alone when it sends none).  Event latency:
  publication to the first and to the last subscriber notified (the home broker's
  service, then the last hop to the subscriber's node).

Columns added to the churn rows: ``latency_first_s``, ``latency_last_s`` (the
catalog's), ``sub_delay_mean_s`` and ``sub_delay_max_s`` over the commands since the
previous event; per broker: ``utilisation``, ``wait_mean_s``, ``wait_max_s``,
``messages_served``.  Every covering setting the batch replay runs (``none``, ``g1``,
``gk`` with k <= 64, ``full``, ``poset``; G's and the poset's withdrawals are messages
like the others).
"""

from __future__ import annotations

import time

import numpy as np
import simpy

from cnsim.simulations.churn import ChurnRun, churn_result, event_frame
from cnsim.simulations.config import Scenario
from cnsim.simulations.timed import publication_times


def command_times(event_times: np.ndarray, after: np.ndarray, n_commands: int) -> np.ndarray:
    """When each command is issued: those before event ``e`` (after event ``e - 1``)
    evenly between the two publications."""
    times = np.empty(n_commands)
    gap = float(np.mean(np.diff(event_times, prepend=0.0))) if len(event_times) else 1e-3
    bounds = np.concatenate(
        [[-1], np.maximum.accumulate(after) if len(after) else [], [n_commands - 1]]
    )
    starts = np.concatenate([[0.0], event_times])
    ends = np.concatenate([event_times, [(event_times[-1] if len(event_times) else 0.0) + gap]])
    for e in range(len(bounds) - 1):
        lo, hi = int(bounds[e]) + 1, int(bounds[e + 1]) + 1
        k = hi - lo
        if k > 0:
            times[lo:hi] = starts[e] + (ends[e] - starts[e]) * np.arange(1, k + 1) / (k + 1)
    return times


class TimedChurn:
    """The command stream's messages and the events' routes on one SimPy clock."""

    def __init__(self, run: ChurnRun, timing: dict, event_bytes: int):
        self.run, self.env = run, simpy.Environment()
        w, world = run.workload, run.world
        self.tree, f = run.tree, run.forwarding
        b = world.n_brokers
        bw = timing["bandwidth_mbps"] * 1e6
        self.sub_ser = (4 + 8 * w.stream.d) * 8 / bw
        self.event_ser = event_bytes * 8 / bw
        self.service = timing["broker_service_s"]
        self.lat = np.asarray(world.broker_latency, np.float64) / 1000.0
        nl = world.node_latency
        self.sub_last = np.asarray(nl[w.home, w.endpoints.subscriber_node], np.float64) / 1000.0
        ep = w.endpoints
        self.pub_entry = np.asarray(nl[ep.nearest_broker, ep.publisher_node], np.float64) / 1000.0
        self.busy_until = [0.0] * b
        self.busy = [0.0] * b
        self.served = [0] * b
        self.wait_sum = [0.0] * b
        self.wait_max = [0.0] * b
        self.flood = f.covering.floods
        st = w.stream
        self.home_of_cmd = w.home[st.sid].tolist()
        if not self.flood:
            m = f.messages
            self.dst = m["dst"].tolist()
            parent, cmd = m["parent"], m["cmd"]
            kids = np.flatnonzero(parent >= 0)
            kids = kids[np.argsort(parent[kids], kind="stable")]
            self.kid_ptr = np.searchsorted(parent[kids], np.arange(len(parent) + 1)).tolist()
            self.kids = kids.tolist()
            roots = np.flatnonzero(parent < 0)
            roots = roots[np.argsort(cmd[roots], kind="stable")]
            self.root_ptr = np.searchsorted(cmd[roots], np.arange(len(st) + 1)).tolist()
            self.roots = roots.tolist()
            self.pending = (np.bincount(cmd, minlength=len(st)) + 1).tolist()
        else:
            self.pending = [b] * len(st)
        self.issued = np.zeros(len(st))
        self.last_done = np.zeros(len(st))
        self.latency = np.full((len(w.event_after), 2), np.nan)

    # ---- the queues ------------------------------------------------------------------
    def _serve(self, b: int) -> float:
        now = self.env.now
        start = now if now > self.busy_until[b] else self.busy_until[b]
        wait = start - now
        self.wait_sum[b] += wait
        if wait > self.wait_max[b]:
            self.wait_max[b] = wait
        done = start + self.service
        self.busy_until[b] = done
        self.busy[b] += self.service
        self.served[b] += 1
        return done

    def _at(self, t: float, callback, *args) -> None:
        ev = self.env.timeout(max(t - self.env.now, 0.0))
        ev.callbacks.append(lambda _e: callback(*args))

    # ---- subscription messages -------------------------------------------------------
    def _command_done(self, c: int, done: float) -> None:
        if done > self.last_done[c]:
            self.last_done[c] = done
        self.pending[c] -= 1

    def _at_home(self, c: int) -> None:
        h = self.home_of_cmd[c]
        done = self._serve(h)
        self._command_done(c, done)
        if self.flood:
            self._flood_from(c, h, -1, done)
            return
        for i in range(self.root_ptr[c], self.root_ptr[c + 1]):
            k = self.roots[i]
            self._at(done + self.lat[h, self.dst[k]] + self.sub_ser, self._at_message, c, k)

    def _at_message(self, c: int, k: int) -> None:
        v = self.dst[k]
        done = self._serve(v)
        self._command_done(c, done)
        for i in range(self.kid_ptr[k], self.kid_ptr[k + 1]):
            j = self.kids[i]
            self._at(done + self.lat[v, self.dst[j]] + self.sub_ser, self._at_message, c, j)

    def _flood_from(self, c: int, b: int, frm: int, done: float) -> None:
        t = self.tree
        for j in range(t.ptr[b], t.ptr[b + 1]):
            v = int(t.nbr[j])
            if v != frm:
                self._at(done + self.lat[b, v] + self.sub_ser, self._at_flood, c, v, b)

    def _at_flood(self, c: int, v: int, frm: int) -> None:
        done = self._serve(v)
        self._command_done(c, done)
        self._flood_from(c, v, frm, done)

    # ---- events ------------------------------------------------------------------------
    def _at_publisher_broker(self, e: int) -> None:
        broker, subs, frm, to = self.run.paths[e]
        # per hop, the hop into its sender (-1: the publisher's broker itself)
        into = {broker: -1}
        parent = []
        for h in range(len(to)):
            parent.append(into[int(frm[h])])
            into[int(to[h])] = h
        kids: dict[int, list[int]] = {}
        for h, p in enumerate(parent):
            kids.setdefault(p, []).append(h)
        state = {"done": {}, "pending": len(to) + 1, "kids": kids, "to": to.tolist()}
        self._event_served(e, state, -1, broker)

    def _event_served(self, e: int, state: dict, h: int, b: int) -> None:
        done = self._serve(b)
        state["done"][b] = done
        for j in state["kids"].get(h, ()):
            v = state["to"][j]
            self._at(done + self.lat[b, v] + self.event_ser, self._event_served, e, state, j, v)
        state["pending"] -= 1
        if state["pending"] == 0:
            self._event_finished(e, state["done"])

    def _event_finished(self, e: int, done: dict) -> None:
        _, subs, _, _ = self.run.paths[e]
        if not len(subs):
            return
        home = self.run.workload.home[subs]
        at = np.array([done[int(b)] for b in home]) + self.sub_last[subs] + self.event_ser
        published = self.published[e]
        self.latency[e] = (at.min() - published, at.max() - published)

    # ---- the run ---------------------------------------------------------------------------
    def simulate(self, event_times: np.ndarray) -> None:
        """Issue every command and publish every event at its time; run to the end."""
        w = self.run.workload
        st = w.stream
        self.published = event_times
        self.issued = command_times(event_times, w.event_after, len(st))
        sid = st.sid
        for c in range(len(st)):
            self._at(self.issued[c] + self.sub_last[sid[c]], self._at_home, c)
        for e in range(len(event_times)):
            self._at(event_times[e] + self.pub_entry[e], self._at_publisher_broker, e)
        self.env.run()
        assert not any(self.pending), "a subscription message was never served"

    def delays(self) -> np.ndarray:
        """Per command: its subscription propagation delay (s)."""
        return self.last_done - self.issued


def simulate_churn_timed(scenario: Scenario, events: int | None = None, check: bool = False):
    """A churn scenario in timed mode: the counting rows plus the timed columns (see
    the module doc), per-broker queues, and a summary with the delays (``check``: every
    event compared with brute force, an AssertionError on the first difference)."""
    started, cpu_started = time.perf_counter(), time.process_time()
    run = ChurnRun(scenario, events, engine="batch")
    run.keep_paths = True
    run.forwarding.keep_messages = True
    frame = event_frame(run.rows(check))
    assert not run.mismatches, run.mismatches[0][1]
    timing = scenario["timing"]
    times = publication_times(timing, len(run.workload.event_after), run.seeds)
    timer = TimedChurn(run, timing, scenario["messages"]["event_bytes"])
    timer.simulate(times)
    delay = timer.delays()
    after = run.workload.event_after
    ptr = np.concatenate([[0], np.maximum.accumulate(after) + 1 if len(after) else []]).astype(int)
    mean = [delay[a:b].mean() if b > a else np.nan for a, b in zip(ptr[:-1], ptr[1:], strict=True)]
    mx = [delay[a:b].max() if b > a else np.nan for a, b in zip(ptr[:-1], ptr[1:], strict=True)]
    if len(frame):
        frame["latency_first_s"] = timer.latency[:, 0]
        frame["latency_last_s"] = timer.latency[:, 1]
        frame["sub_delay_mean_s"] = mean
        frame["sub_delay_max_s"] = mx
    makespan, n_b = timer.env.now, run.world.n_brokers
    served = np.array(timer.served)
    queues = {
        "messages_served": served,
        "utilisation": np.array(timer.busy) / makespan if makespan > 0 else np.zeros(n_b),
        "wait_mean_s": np.array(timer.wait_sum) / np.maximum(served, 1),
        "wait_max_s": np.array(timer.wait_max),
    }
    delays = {
        "mean": float(delay.mean()) if len(delay) else 0.0,
        "p95": float(np.percentile(delay, 95)) if len(delay) else 0.0,
        "max": float(delay.max(initial=0.0)),
    }
    return churn_result(
        run, frame, started, cpu_started, queues,
        mode="timed", subscription_delay_s=delays, makespan_s=makespan,
    )  # fmt: skip
