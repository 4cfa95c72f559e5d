"""What a scenario needs before it runs: an estimate of its peak memory from its sizes,
checked against the machine's, so that a size nobody can run is refused before any work
(not after set-up, in numpy's ``ArrayMemoryError``).

The estimate is a sum of per-item costs measured on this code (``benchmarks/RESULTS.md``,
"Memory estimate"): per subscription (workload, index, gateways) plus per subscription
and per approach that keeps lists (its ``m × k`` list of object ids and y-values), per
object per approach (each keeps its own object index), per event (the event stream and
one metrics row per approach), the broker matrices of the world, and a fixed base for the
interpreter and its libraries. It errs high; ``cnsim run --dry-run`` prints it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from cnsim.algorithms.registry import parse
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
}
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
    }


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
        raise InputError(
            f"{scenario.source}: needs about {_gb(est.total)} of memory{who} (most for "
            f"{biggest}: {_gb(est.parts[biggest])}), this machine has {_gb(est.available)} "
            f"available{each}; {more}or reduce "
            "subscriptions.count, objects.count, events.count or the approaches "
            "(cnsim run --dry-run prints the estimate)"
        )
    return est


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
