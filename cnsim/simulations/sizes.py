"""What a scenario needs before it runs: an estimate of its peak memory from its sizes,
checked against the machine's, so that a size nobody can run is refused before any work
(not after set-up, in numpy's ``ArrayMemoryError``).

The estimate is a sum of per-item costs measured on this code (``benchmarks/RESULTS.md``,
"Memory estimate"): per subscription (workload, index, gateways) plus per subscription
and per approach that keeps lists (its ``m × k`` list of object ids and y-values), per
object per approach (each keeps its own object index), per event (the event stream and
one metrics row per approach), the broker matrices of the world, and a fixed base for the
interpreter and its libraries. It errs high; ``cnsim run --dry-run`` prints it.

It also counts what one batch of events holds at once (``[events] batch_size``): every
approach's deliveries of the batch — each message's reached subscriptions, with the
object and value each carries — and, while the next batch is processed, those of the one
before (:func:`batch_deliveries`). Nothing counts them before any work but the
scenario's sizes, so the estimate takes an approach's deliveries per event from them: a
message's region lies in the influence region of the update, whose subscriptions hold the
object before or after it, or are exposed to the object it uncovers; each list holds at
most k objects, so the lists holding an updated object number m k / n on average, and an
exact approach delivers on average 1.7-2 m k / n per event once the objects' y-values
have settled to the update model's stationary law (up to 3.14 before; more for
Paint-*(ε), whose regions cover ⌈εk⌉ steps at a time), estimated as 2.5 (3.2); CN-Relax
reaches every subscription whose range holds the object's old or new position. A batch
of one event is
within the fitted costs; a batch of 50,000 events (seed 003's Figure 16) holds hundreds
of millions of deliveries, the largest part of its peak.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace

from cnsim.algorithms.registry import BATCH, parse
from cnsim.brokers import NETWORKS
from cnsim.errors import InputError
from cnsim.simulations.config import Scenario, split_apart
from cnsim.subscriptions.kinds import kind_of

# Bytes per unit of each size, fitted to measured peaks (``cnsim bench memory``: peak RSS
# over sizes, non-negative least squares, then padded; benchmarks/RESULTS.md, "Memory
# estimate"). Each cost multiplies the quantity of the same name (:func:`quantities`).
COSTS: dict[str, float] = {
    "base": 350e6,  # interpreter, numpy, numba, pandas, pyarrow, compiled kernels
    "subscription": 45.0,  # l, r, ids, the ideal index
    "subscription_brokers": 150.0,  # gateways: zone order, per-zone k-d trees, their build
    "list_slot": 12.5,  # one (object id, y) of a list, per approach with lists
    "subscription_approach": 4.0,  # list lengths, dirty flags, per-approach scratch
    "object_approach": 96.0,  # x, y and the object index of one approach
    "event": 64.0,  # the event stream: kind, object, x, y, offsets
    "batch_approach": 400.0,  # one metrics row (~40 columns) per approach and batch
    "broker_pair": 24.0,  # broker hop and latency matrices
    "ip_node": 400.0,  # the IP graph while the world is built
    "oracle_subscription": 64.0,  # verify: the oracle's own lists and scratch
    "oracle_list_slot": 12.0,  # verify: one slot of the oracle's lists
    # ranked delivery: per-zone scored R-trees, id maps, columns (RankedZones.nbytes: 351 MB
    # for 2,000,000 subscriptions, benchmarks/RESULTS.md) and the scores, rounded up
    "subscription_ranked": 220.0,
    # [ranked] commands: a join holds one more subscription like the others
    # (subscription_ranked) and the schedule keeps ~5 int64 arrays a command; declared,
    # not fitted (no measured peak runs that many commands), so rounded up
    "ranked_command": 300.0,
    # a partitioned run (cnsim/simulations/partitioned.py): each task draws every
    # subscription as one process does, finds its own (their points and zones), then
    # frees the rest: l, r, the draw's two temporaries, the points, the zone and IP node
    # of each, about 64 bytes a 1-d subscription for a moment, before its own structures
    "draw_subscription": 64.0,
    # a partitioned run's server stage, one task over every subscription before the
    # partitions: Paint-Sparse's server (its index of S and the draw: 104 B a subscription
    # at 50M, benchmarks/RESULTS.md "cnsim bench partitions", rounded up), and the
    # content-based brokers built over every subscription to count their tables (0.74 GB
    # at 1M, ~360 B a subscription beyond the base and the world; one measured point,
    # rounded up)
    "stage_server": 110.0,
    "stage_tables": 400.0,
    # a batch's deliveries (batch_deliveries: the estimate of their number). Measured as peak
    # RSS over the set-up's, divided by the deliveries of one batch of 5,000 events (m =
    # 200,000, n = 1,000, k = 10; benchmarks/RESULTS.md, "Memory estimate", "A batch's
    # deliveries"): the ideal CN holds 24 B a delivery (4-byte subscription and row, 8-byte
    # object and y), rounded up; ...
    "delivery": 26.0,
    # ... a network with brokers 8 B more (Meghdoot: 8-byte subscription ids and rows;
    # the content-based tree: its per-message lists joined): 54 and 51 B a delivery at
    # the peak, against 45.6 B over the ideal CN (those peaks with the metrics' former
    # ~20 B scratch a delivery, now read in chunks: metrics._updated)
    "delivery_brokers": 8.0,
    # ... a targeted message (Unicast) is one message per delivery, held with it (target,
    # object, x, y, evicted object, their concatenation, over brokers its path): 107 B a
    # delivery at the peak over the ideal CN, 135-141 B over Meghdoot, rounded up
    "delivery_message": 90.0,
}
DELIVERIES = "deliveries of a batch"  # the part a smaller events.batch_size shrinks
# The estimate's parts as printed, each the sum of some costs × quantities.
PARTS: dict[str, tuple[str, ...]] = {
    "base (Python, libraries)": ("base",),
    "subscriptions": ("subscription", "subscription_brokers", "subscription_approach"),
    "subscriber lists": ("list_slot",),
    "objects": ("object_approach",),
    "events and metrics": ("event", "batch_approach"),
    "world": ("broker_pair", "ip_node"),
    "ranked delivery": ("subscription_ranked", "ranked_command"),
    "oracle": ("oracle_subscription", "oracle_list_slot"),
    "drawing every subscription": ("draw_subscription",),
    "server stage": ("stage_server", "stage_tables"),
    DELIVERIES: ("delivery", "delivery_brokers", "delivery_message"),
}


@dataclass(frozen=True)
class Estimate:
    """A scenario's estimated peak memory, by part (bytes), and the machine's memory."""

    parts: dict[str, float]
    available: float
    partitions: int = 0  # of a partitioned run: the estimate is one task's ...
    # ... the tightest against its memory (TASKS): a partition's, the apart task's or the
    # server stage's
    task: str = "partition"

    @property
    def total(self) -> float:
        return sum(self.parts.values())

    def text(self) -> str:
        rows = [f"  {name:<28}{_gb(b):>10}" for name, b in self.parts.items()]
        head, room = "estimated peak memory:", "available on this machine"
        if self.partitions:
            head = f"estimated peak memory of each of {self.partitions} partitions' tasks:"
            if self.task != "partition":
                head = (f"estimated peak memory of {TASKS[self.task]}, the tightest of the "
                        f"tasks of a run over {self.partitions} partitions:")  # fmt: skip
            room = "available to it here" if self.task == "stage" else "available to each task here"
        return "\n".join(
            [
                head,
                *rows,
                f"  {'total':<28}{_gb(self.total):>10}",
                f"  {room:<28}{_gb(self.available):>10}",
            ]
        )


def quantities(
    scenario: Scenario, events: int | None = None, oracle: bool = False, spread: bool = False
) -> dict:
    """The sizes the costs multiply, by cost name (``oracle``: run under verify;
    ``spread``: one of ``run.partitions`` tasks, holding m / P of the subscriptions after
    drawing them all)."""
    k = scenario["subscriptions"]["k"]
    n = scenario["objects"]["count"]
    n_events = scenario["events"]["count"] if events is None else events
    m = _pool(scenario, n_events)
    drawn = m * kind_of(scenario["subscriptions"]).space_dims / 2 if spread else 0
    if spread:
        m = -(-m // scenario["run"]["partitions"])
    specs = [parse(name) for name in scenario["algorithm"]["approaches"]]
    with_lists = sum(s.stores == "top-k" for s in specs)
    ranked = any(s.message == "ranked" for s in specs)
    a = len(specs)
    batches = -(-n_events // scenario["events"]["batch_size"])
    inserts = scenario["events"]["inserts"] * n_events  # objects grow with inserts
    net = scenario["network"]
    brokers = net["brokers"] if NETWORKS[scenario["overlay"]["kind"]].has_brokers else 0
    # the costs per subscription were fitted on 1-d ranges, points (l, r) of a 2-d S; a
    # subscription of another kind is a point of its D-dimensional S
    m_s = m * kind_of(scenario["subscriptions"]).space_dims / 2
    held = batch_deliveries(scenario, m, n_events, spread)
    return {
        "base": 1.0,
        "subscription": m_s,
        "subscription_brokers": m_s * (brokers > 0),
        "list_slot": m * k * with_lists,
        "subscription_approach": m * a,
        "object_approach": (n + inserts) * a,
        "event": n_events,
        "batch_approach": batches * a,
        "broker_pair": brokers * brokers,
        "ip_node": net.get("ip_nodes", 0) if brokers else 0,
        "oracle_subscription": m * oracle,
        "oracle_list_slot": m * k * oracle,
        "subscription_ranked": m * ranked,
        "ranked_command": scenario["ranked"]["commands"] * ranked,
        "draw_subscription": drawn,
        "stage_server": 0,  # the server stage's own task, estimated apart (_stage)
        "stage_tables": 0,
        "delivery": held.held,
        "delivery_brokers": held.held * (brokers > 0),
        "delivery_message": held.targeted,
    }


#: an exact approach's deliveries per event over m k / n (the lists holding an updated
#: object on average), above the means measured over a batch: with the objects' y-values
#: at the update model's stationary law (1.72-1.97) ...
PER_EVENT = 2.5
#: ... and while they settle to it from a uniform start (update = "uniform"; up to 3.14),
#: or for an event trace, whose law is unknown
PER_EVENT_SETTLING = 3.2


@dataclass(frozen=True)
class Deliveries:
    """What :func:`batch_deliveries` estimates: the deliveries every approach holds at
    once, and those of them that are targeted messages."""

    held: float
    targeted: float


def batch_deliveries(
    scenario: Scenario, m: float, n_events: int, spread: bool = False
) -> Deliveries:
    """An estimate of the deliveries held at once while ``n_events`` events are run in
    batches of ``events.batch_size`` over ``m`` subscriptions (``spread``: one task's of a
    partitioned run), above the measured means but in the cases said below. The run loop
    keeps every approach's deliveries of a batch until the next batch's are made, so two
    batches' are held (one if the run has one).

    Per approach and event, from the sizes alone (measured: benchmarks/RESULTS.md,
    "Memory estimate", "A batch's deliveries"; means over runs of 3,000 to 50,000 events):

    * an exact approach (Paint-Dense, Paint-Sparse, the batch strategies over them),
      ``c × m k / n``: its messages reach the influence region of the update, the
      lists holding the object before or after it and those it leaves, which the object it
      exposes enters; with at most k objects a list, an updated object is in m k / n lists
      on average, so ``c = 2.5`` (:data:`PER_EVENT`; measured 1.72-1.97 with the
      y-values at their stationary law, 1.97 for Figure 16's Online at k = 20; the
      other update models, counted as settled from the start, 2.46 for ``redraw`` and
      2.73 for ``volatile`` over 3,000 events), ``c = 3.2`` while they settle from a
      uniform start (:data:`PER_EVENT_SETTLING`; measured 1.3-3.14); n is the fewest
      objects the run can hold (deletes), k at most n;
    * Unicast ``(c − 1) × m k / n``: one message to each list that changes, carrying the
      object a list takes in place of the one it leaves (measured 1.3–1.9 settled, up to
      2.7 settling);
    * Paint-*(ε) ``c × √⌈εk⌉ × m k / n``: each message covers ⌈εk⌉ steps of the region
      (ε = 1 measured up to 8.0 m k / n at k = 10, against 12.6; 13.4 at k = 50, against
      28.3; 19.9 at k = 200, against 57);
    * Coalesce and Paint-Batch the same per update after coalescing, at most one update
      per object of the run in a batch (Figure 16's Coalesce: 2.93 m k / n per coalesced
      update, above c, but over 9,933 of its 10,000 objects: 116 million deliveries,
      against 100 million estimated; the batch's three approaches 569 million, against
      700 million);
    * CN-Relax every subscription holding the object's new position, and its old one if
      it moves: half of them at most for uniform ranges (2x(1 − x) of uniform ranges hold
      x; measured 1/3 on average), (1/2)^d for uniform boxes over d attributes, all for
      the other kinds and distributions and for a partition of S;
    * ranked delivery ``[ranked] k``.

    A batch's sum over many events concentrates at its mean, but the per-event counts are
    heavy-tailed: a single event can reach about m/2 subscriptions (an object that becomes
    the lowest of a wide neighbourhood), and the reproduction's means over 2,000 events at
    k <= 2 reach 3.4 m k / n (Paint) and 3.3 (Unicast). A small batch's estimate does not
    cover such an event: up to m/2 deliveries more, 13–17 bytes a subscription for region
    messages, about the padding of the per-subscription costs (a batch of one event is
    within the fitted costs: their measured peaks hold one)."""
    if not n_events:
        return Deliveries(0.0, 0.0)
    ev = scenario["events"]
    batch = min(ev["batch_size"], n_events)
    held_events = min(n_events, 2 * batch)
    held_batches = min(2, -(-n_events // batch))
    ids = scenario["objects"]["count"] + (ev["inserts"] + ev["moves"]) * n_events  # ever
    held = targeted = 0.0
    for name in scenario["algorithm"]["approaches"]:
        spec = parse(name)
        per_event = _per_event(scenario, spec, m, n_events, spread)
        events = held_events
        if spec.batch is not None and BATCH[spec.batch].coalesces:  # one per object a batch
            events = min(events, held_batches * ids)
        held += per_event * events
        targeted += per_event * events * (spec.message == "targeted")
    return Deliveries(held, targeted)


def _per_event(scenario: Scenario, spec, m: float, n_events: int, spread: bool) -> float:
    """The estimate of ``spec``'s deliveries per event (:func:`batch_deliveries`)."""
    ev, s = scenario["events"], scenario["subscriptions"]
    if spec.message == "ranked":
        return float(scenario["ranked"]["k"])
    if spec.stores == "range":  # CN-Relax: every subscription holding the object
        holding = 1.0
        if not spread and s["kind"] == "range" and s["distribution"] == "uniform":
            holding = 0.5
        elif not spread and s["kind"] == "box":
            holding = 0.5 ** s["dims"]
        return holding * m * (1 + ev["moves"])
    shrink = max(0.0, ev["deletes"] - ev["inserts"]) * n_events  # the fewest objects held
    n = max(1.0, scenario["objects"]["count"] - shrink)
    k = min(s["k"], n)
    settled = scenario["objects"]["y_distribution"] == "stationary" or ev["update"] != "uniform"
    c = PER_EVENT if settled and ev.get("trace") is None else PER_EVENT_SETTLING
    if spec.message == "targeted":  # the exposed object rides with the one it replaces
        c -= 1
    if spec.eps is not None:
        c *= math.sqrt(math.ceil(spec.eps * k))
    return c * m * k / n


def _pool(scenario: Scenario, n_events: int) -> int:
    """The subscriptions every structure holds: with ``[churn]`` the pool, the initial and
    the joining ones."""
    return scenario["subscriptions"]["count"] + round(scenario["churn"]["joins"] * n_events)


#: a partitioned run's tasks, as the estimate names them
TASKS = {"partition": "a partition's task",
         "apart": "the apart task (ranked delivery over every subscription)",
         "stage": "the server stage (every subscription, before the partitions)"}  # fmt: skip


def estimate(
    scenario: Scenario,
    events: int | None = None,
    oracle: bool = False,
    costs: dict[str, float] = COSTS,
    spread: bool = False,
) -> Estimate:
    """The estimated peak memory of running ``scenario`` (``oracle``: under verify;
    ``costs``: other per-unit costs, as ``cnsim bench memory`` tries them; ``spread``:
    of the task of a partitioned run tightest against its memory — a partition's task
    or the apart task, against this machine's memory shared by the tasks that run at
    once on it, one a core; the server stage, which runs alone first, against all of
    it)."""
    if not spread:
        return _estimate(scenario, events, oracle, costs, available_memory())
    return max(spread_tasks(scenario, events, oracle, costs), key=lambda e: e.total / e.available)


def spread_tasks(
    scenario: Scenario, events: int | None = None, oracle: bool = False, costs: dict = COSTS
) -> list[Estimate]:
    """The estimate of every kind of task of a partitioned run, each against its memory:
    a partition's and the apart task's (if any) against this machine's memory shared by
    the tasks that run at once on it (one a core), the server stage's (if any), which
    runs alone before them, against all of it."""
    partitions = scenario["run"]["partitions"]
    rest, apart = split_apart(scenario)
    at_once = min(partitions + (apart is not None), os.cpu_count() or 1)
    share = available_memory() / at_once
    tasks = [_estimate(rest, events, oracle, costs, share, partitions)]
    if apart is not None:
        whole = _estimate(apart, events, oracle, costs, share)  # one process, beside them
        tasks.append(replace(whole, partitions=partitions, task="apart"))
    stage = _stage(scenario, events, costs)
    if stage is not None:
        tasks.append(stage)
    return tasks


def _estimate(
    scenario: Scenario, events, oracle: bool, costs: dict, available: float, partitions: int = 0
) -> Estimate:
    """One process's estimate (``partitions``: of one partition's task of a run spread
    over that many)."""
    q = quantities(scenario, events, oracle, spread=partitions > 0)
    parts = {part: sum(costs[c] * q[c] for c in names) for part, names in PARTS.items()}
    kept = {p: b for p, b in parts.items() if b or p in PARTS_ALWAYS}
    return Estimate(kept, available, partitions)


def _stage(scenario: Scenario, events, costs: dict) -> Estimate | None:
    """A partitioned run's server stage (None: it has none): Paint-Sparse's server, and
    over a network whose brokers route by what they hold the brokers over every
    subscription, with the base, the world and the events."""
    whole = any(parse(a).partition == "whole" for a in scenario.approaches)
    tables = NETWORKS[scenario["overlay"]["kind"]].routes_own
    if not (whole or tables):
        return None
    q = quantities(scenario, events)
    per_subscription = costs["stage_server"] * whole + costs["stage_tables"] * tables
    parts = {
        "base (Python, libraries)": costs["base"],
        "world": sum(costs[c] * q[c] for c in PARTS["world"]),
        "events and metrics": costs["event"] * q["event"],  # no batch columns there
        "server stage": _pool(scenario, q["event"]) * per_subscription,
    }
    return Estimate(parts, available_memory(), scenario["run"]["partitions"], task="stage")


PARTS_ALWAYS = ("base (Python, libraries)", "subscriptions", "subscriber lists", "objects",
                "events and metrics", "world")  # fmt: skip


def check_fits(
    scenario: Scenario, events: int | None = None, oracle: bool = False, spread: bool = False
) -> Estimate:
    """The estimate, or an InputError before any work if it exceeds the machine's memory
    (``spread``: the tightest of a partitioned run's tasks, against its share of this
    machine's)."""
    est = estimate(scenario, events, oracle, spread=spread)
    if est.total > est.available:
        biggest = max(est.parts, key=est.parts.__getitem__)
        who, more, each = "", "spread it over Spark tasks (run.partitions) ", ""
        if spread and est.task == "partition":
            who = f" for each of {est.partitions} partitions' tasks"
            more = "raise run.partitions (or use a cluster with more memory) "
            each = " to each"
        elif spread:  # a task over every subscription: more partitions do not help
            who = f" for {TASKS[est.task]}"
            more = "use a machine with more memory "
        batch = scenario["events"]["batch_size"]
        fits = _largest_batch(scenario, events, oracle, spread) if biggest == DELIVERIES else 0
        if fits:  # the batch's deliveries: a smaller batch fits
            more = f"events.batch_size = {batch}: allowed at most {fits} here; or {more}"
        raise InputError(
            f"{scenario.source}: needs about {_gb(est.total)} of memory{who} (most for "
            f"{biggest}: {_gb(est.parts[biggest])}), this machine has {_gb(est.available)} "
            f"available{each}; {more}or reduce "
            "subscriptions.count, objects.count, events.count or the approaches "
            "(cnsim run --dry-run prints the estimate)"
        )
    return est


def _largest_batch(scenario: Scenario, events, oracle: bool, spread: bool) -> int:
    """The largest ``events.batch_size`` below the scenario's whose estimate fits (0:
    none does)."""

    def fits(b: int) -> bool:
        est = estimate(scenario.replace(**{"events.batch_size": b}), events, oracle, spread=spread)
        return est.total <= est.available

    if not fits(1):
        return 0
    lo, hi = 1, scenario["events"]["batch_size"]  # fits(lo), not fits(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def available_memory() -> float:
    """Bytes of memory available to this process: the cgroup limit if lower than the
    machine's available memory (``MemAvailable``)."""
    available = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    available = float(line.split()[1]) * 1024
    except OSError:
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path, encoding="ascii") as fh:
                text = fh.read().strip()
        except OSError:
            continue
        if text.isdigit():
            available = min(available, float(text))
    return available


def _gb(b: float) -> str:
    return f"{b / 1e9:.2f} GB" if b >= 1e8 else f"{b / 1e6:.0f} MB"
