"""Scenario configuration: a TOML file read into a frozen, validated :class:`Scenario`,
and the other tables a user writes: a sweep file's ``[sweep]`` table and the options of
``cnsim bench``.

Every bad key or value is rejected here, before any work, with one message shape
(``SOURCE: KEY = VALUE PROBLEM; allowed: WHAT``, see :mod:`cnsim.schema`); nothing
downstream re-validates. The keys, their defaults and meaning are declared in
:data:`SCHEMA` (``[network]``: :data:`cnsim.network.params.NETWORK_SCHEMA`),
:data:`SWEEP_SCHEMA` and :data:`BENCH_OPTIONS`; rules across keys in :data:`RULES`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

from cnsim.algorithms.registry import allowed as allowed_approaches
from cnsim.algorithms.registry import canonical_name, families, parse
from cnsim.brokers import NETWORKS
from cnsim.brokers.faults import faulty
from cnsim.brokers.forwarding import COVERINGS
from cnsim.brokers.ranked import PRUNING
from cnsim.brokers.zones import ZONE_MODES
from cnsim.errors import ConfigError
from cnsim.network.params import NETWORK_SCHEMA, NetworkParams
from cnsim.outputs import check_names
from cnsim.schema import (
    Key,
    Rule,
    allowed_text,
    check_rules,
    check_table,
    check_value,
    config_error,
)
from cnsim.subscriptions.churn import LIFETIMES
from cnsim.subscriptions.covering import INDEXES
from cnsim.subscriptions.covering.base import MAX_ATTRIBUTES
from cnsim.subscriptions.kinds import KINDS
from cnsim.subscriptions.kinds.base import DEFAULT
from cnsim.subscriptions.kinds.box import MAX_DIMS
from cnsim.subscriptions.kinds.range15d import DATASETS as DATASETS_15D
from cnsim.subscriptions.ranked import REGISTRY as RANKED_INDEXES
from cnsim.subscriptions.ranked.scores import SCORE_MODELS
from cnsim.subscriptions.trace import TABLE_SUFFIXES, describe_format, read_event_trace
from cnsim.subscriptions.workload import (
    OBJECT_DISTRIBUTIONS,
    SUBSCRIPTION_DISTRIBUTIONS,
    UPDATE_MODELS,
    Y_DISTRIBUTIONS,
)

DEFAULT_BOX_BUDGET = 2_000_000  # [algorithm] box_budget (docs/DESIGN_NOTES.md: d-dimensional boxes)

SCHEMA: dict[str, dict[str, Key]] = {
    "": {"seed": Key(int, 0, low=0, high=2**63 - 1, doc="seed of every random choice of the run")},
    "objects": {
        "count": Key(int, 10_000, low=1, doc="number of objects n"),
        "distribution": Key(str, "uniform", OBJECT_DISTRIBUTIONS, doc="x-values of the objects"),
        "y_distribution": Key(
            str, "uniform", Y_DISTRIBUTIONS, doc="initial y: uniform or the updates' stationary law"
        ),
    },
    "subscriptions": {
        "count": Key(int, 2_000_000, low=1, doc="number of subscriptions m"),
        "distribution": Key(str, "uniform", SUBSCRIPTION_DISTRIBUTIONS, doc="points in S"),
        "k": Key(int, 10, low=1, high=1000, doc="list length of every subscription"),
        "spread": Key(float, 0.1, low=1e-6, high=10.0, doc="λ of the clustered distribution"),
        # boxes over the content-based overlay: seed 001's command stream
        "churn": Key(
            float,
            0.0,
            low=0.0,
            high=0.95,
            doc="box, content-based: share of commands unsubscribing",
        ),
        # 1.5-d range subscriptions (seed 003 appendix D; cnsim/subscriptions/kinds/range15d.py)
        "kind": Key(
            str,
            "range",
            tuple(KINDS),
            doc="[l, r], or [l1, r1] x (-inf, r2] (1.5-d), or a d-dimensional box",
        ),  # fmt: skip
        "dataset": Key(str, "DS#1", DATASETS_15D, doc="range-1.5d: how [l1, r1] is drawn"),
        "cover": Key(int, None, low=1, doc="range-1.5d DS#2/DS#3: objects a range covers"),
        # d-dimensional box subscriptions (seed 003 §IV-C; cnsim/subscriptions/kinds/box.py)
        "dims": Key(
            int,
            None,
            low=1,
            high=MAX_ATTRIBUTES,
            doc="box: attributes d of every box (kind 'box' only)",
        ),
    },
    "events": {
        "count": Key(int, 1_000, low=0, doc="number of events"),
        "update": Key(str, "uniform", UPDATE_MODELS, doc="how a new y-value is drawn"),
        "volatility": Key(float, 1.0, low=1e-9, high=1e6, doc="c of the volatile model"),
        "inserts": Key(float, 0.0, low=0.0, high=1.0, doc="share of events inserting objects"),
        "deletes": Key(float, 0.0, low=0.0, high=1.0, doc="share of events deleting objects"),
        "moves": Key(float, 0.0, low=0.0, high=1.0, doc="share of events changing an x"),
        "batch_size": Key(int, 1, low=1, doc="events per batch (1: every event alone)"),
        # events read from a user's table instead of drawn (cnsim/subscriptions/trace.py)
        "trace": Key(str, None, doc="CSV or Parquet file of events: time, object, op, x, y"),
    },
    "algorithm": {
        "approaches": Key(
            list, ["paint-dense", "paint-sparse"], items=str, doc="approaches to run"
        ),
        # boxes: slabs one event's Paint partitions may visit (cnsim/algorithms/boxes)
        "box_budget": Key(
            int, DEFAULT_BOX_BUDGET, low=1, doc="box: Paint's slabs per event (more: run stops)"
        ),
    },
    "overlay": {
        "kind": Key(str, "meghdoot", tuple(NETWORKS), doc="broker overlay or direct delivery"),
        "split": Key(str, "random", ZONE_MODES, doc="how joining brokers split zones"),
        # content-based overlay (seed 001; cnsim/brokers/content_based.py)
        "covering": Key(str, "g1", COVERINGS, doc="content-based: relation graph pruning"),
        "covering_k": Key(int, 2, low=1, high=64, doc="content-based: k of covering 'gk'"),
        "covering_index": Key(str, "kdtree", tuple(INDEXES), doc="content-based: index"),
        "degree": Key(int, 4, low=2, high=1000, doc="content-based: tree degree bound"),
    },
    "messages": {
        "cn_bytes": Key(int, 24, low=1, doc="bytes of a CN message (six 4-byte values)"),
        "unicast_bytes": Key(int, 16, low=1, doc="bytes of a unicast message (four values)"),
        "event_bytes": Key(int, 16, low=1, doc="bytes of an event, publisher to server"),
        "object_bytes": Key(int, 8, low=1, doc="bytes a subscriber stores per object"),
        "box_bytes": Key(int, 36, low=1, doc="bytes of a 1.5-d CN message (nine values)"),
    },
    "run": {
        "progress": Key(bool, True, doc="show progress on long runs (a bar, or lines in a log)"),
        "mode": Key(str, "counting", ("counting", "timed"), doc="no clock, or SimPy time"),
        "partitions": Key(
            int, 1, low=1, high=4096,
            doc="Spark tasks the subscriptions are spread over (1: one process)",
        ),  # fmt: skip
    },
    "timing": {
        "arrivals": Key(str, "poisson", ("poisson", "trace"), doc="how events arrive"),
        "rate": Key(float, 100.0, low=1e-9, high=1e9, doc="Poisson events per second"),
        "trace": Key(str, "", doc="file of publication times (s), one per line"),
        "server_service_s": Key(float, 5e-5, low=0.0, high=1e3, doc="server s per message"),
        "broker_service_s": Key(float, 1e-5, low=0.0, high=1e3, doc="broker s per message"),
        "bandwidth_mbps": Key(float, 100.0, low=1e-6, high=1e9, doc="overlay link bandwidth"),
    },
    "server": {  # the distributed object database of seed 003 appendix C
        "count": Key(
            int, 1, low=1, high=10_000, doc="servers holding the objects, one x-zone each"
        ),
    },
    "churn": {  # subscribers that come and go (cnsim/subscriptions/churn.py)
        "joins": Key(float, 0.0, low=0.0, high=1e6, doc="subscriptions joining per event"),
        "lifetime": Key(str, "none", LIFETIMES, doc="how long a subscription stays ('none': ever)"),
        "mean_lifetime": Key(float, 1000.0, low=1e-9, high=1e15, doc="mean lifetime, in events"),
        "pareto_shape": Key(float, 2.0, low=1.01, high=1e3, doc="shape a of Pareto lifetimes"),
    },
    "faults": {  # brokers that fail and come back (cnsim/brokers/faults.py)
        "rate": Key(float, 0.0, low=0.0, high=1e3, doc="brokers failing per event (Poisson)"),
        "brokers": Key(list, [], items=int, low=0, doc="brokers that fail (beside faults.at)"),
        "at": Key(list, [], items=int, low=0, doc="the event before which each of them fails"),
        "link_rate": Key(
            float, 0.0, low=0.0, high=1e3, doc="content-based: tree links failing per event"
        ),
        "repair_time": Key(
            float, 0.0, low=0.0, high=1e15, doc="mean events until a broker is back (0: never)"
        ),
        "replication": Key(int, 0, low=0, high=64, doc="neighbours holding each zone's copy"),
        "detection": Key(int, 10, low=0, doc="events until a lost subscriber re-subscribes"),
    },
    "ranked": {  # ranked delivery, approach 'ranked' (cnsim/brokers/ranked.py)
        "k": Key(int, 10, low=1, high=1000, doc="recipients per event: the k best-scoring"),
        "scores": Key(str, "uniform", SCORE_MODELS, doc="subscription scores (a bid, 1 - length)"),
        "pruning": Key(
            str, "threshold", tuple(PRUNING), doc="zone score bounds, or the flood baseline"
        ),
        "index": Key(str, "scored_rtree", tuple(RANKED_INDEXES), doc="each zone's top-k index"),
        # joins and leaves while events flow (cnsim/brokers/ranked_churn.py)
        "commands": Key(int, 0, low=0, doc="join/leave commands spread over the events"),
        "churn": Key(float, 0.5, low=0.0, high=1.0, doc="share of those commands that leave"),
        # overlay.kind = 'content-based' (cnsim/brokers/ranked_content.py)
        "regions": Key(
            int, 1, low=1, high=64, doc="content-based: bound cells per dimension (1: max)"
        ),
    },
}

# Sections left out of Scenario.as_dict() (summary.json, sweep run ids) while every key
# has its default, so runs that do not use them are recorded exactly as before.
OMITTED_AT_DEFAULT = ("server", "ranked", "churn", "faults")
# Keys left out of Scenario.as_dict() while all of them are at their default, likewise
# (1.5-d range subscriptions).
OMITTED_KEYS_AT_DEFAULT = {
    "subscriptions": ("kind", "dataset", "cover"),
    "messages": ("box_bytes",),
}
# The box keys (d-dimensional box subscriptions), a group of their own: left
# out while all are at their default, so 1-d and 1.5-d records are unchanged.
OMITTED_BOX_KEYS_AT_DEFAULT = {"subscriptions": ("dims",), "algorithm": ("box_budget",)}


def _mix(values: dict[str, dict[str, Any]]) -> float:
    return sum(values["events"][key] for key in ("inserts", "deletes", "moves"))


def _timed(values: dict[str, dict[str, Any]]) -> bool:
    return values["run"]["mode"] == "timed"


def commands(values: dict[str, dict[str, Any]]) -> bool:
    """Whether the workload is seed 001's command stream (``StreamSimulation`` in
    cnsim/simulations/runner.py): a subscription kind the overlay declares it runs so
    (``Network.streams``)."""
    return values["subscriptions"]["kind"] in NETWORKS[values["overlay"]["kind"]].streams


# Keys that once were, with what replaces them (a file using one gets a one-line error).
RETIRED = {
    "subscriptions": {
        "attributes": "subscriptions.dims = d with subscriptions.kind = 'box' (over "
        "overlay.kind = 'content-based' box subscriptions are seed 001's command stream)",
    },
}


def _not_carried(values: dict[str, dict[str, Any]]) -> list[str]:
    """The approaches the overlay cannot carry (a network declares ``carries``, the
    (entry, message) pairs it routes)."""
    carries = NETWORKS[values["overlay"]["kind"]].carries
    specs = [parse(a) for a in values["algorithm"]["approaches"]]
    return [s.name for s in specs if (s.entry, s.message) not in carries]


def _ranked_not_carried(values: dict[str, dict[str, Any]]) -> list[str]:
    """The ranked approaches the overlay cannot carry (it declares ``carries``)."""
    return [a for a in _not_carried(values) if parse(a).message == "ranked"]


def _value(values: dict[str, dict[str, Any]], dotted: str) -> Any:
    section, _, key = dotted.partition(".")
    return values[section][key]


def _default(dotted: str) -> Any:
    section, _, key = dotted.partition(".")
    return SCHEMA[section][key].default


def _kind_rules() -> tuple[Rule, ...]:
    """What the subscription kinds declare (:mod:`cnsim.subscriptions.kinds`), as rules:
    a key one kind owns stays at its default for the others (it would change nothing);
    a key a kind restricts takes one of the values it allows; the approaches must have
    a version for the kind (the registry's (family, kind) lines)."""
    rules = []
    for kind in KINDS.values():
        for dotted in kind.owns:
            default = _default(dotted)
            shown = f"no {dotted}" if default is None else f"{default!r} (the default)"
            rules.append(Rule(
                dotted,
                lambda v, k=kind.name, d=dotted: v["subscriptions"]["kind"] == k
                or _value(v, d) == _default(d),
                f"applies only to {kind.label} subscriptions",
                f"{shown} unless subscriptions.kind = {kind.name!r}",
            ))  # fmt: skip
        for r in kind.restrictions:
            allowed = (_default(r.key),) if r.allowed is DEFAULT else r.allowed
            rules.append(Rule(
                r.key,
                lambda v, k=kind.name, r=r, allowed=allowed: v["subscriptions"]["kind"] != k
                or _value(v, r.key) in allowed,
                r.problem,
                f"{allowed[0]!r} ({r.shown})" if r.allowed is DEFAULT else r.shown,
            ))  # fmt: skip
        rules.append(Rule(
            "algorithm.approaches",
            lambda v, k=kind.name: v["subscriptions"]["kind"] != k or not _no_version(v),
            f"have no {kind.label} version",
            f"{allowed_approaches(kind.name)} when subscriptions.kind = {kind.name!r}",
            value=_no_version,
        ))  # fmt: skip
    return tuple(rules)


def _no_version(values: dict[str, dict[str, Any]]) -> list[str]:
    """The approaches without a version for the scenario's subscription kind."""
    kind = values["subscriptions"]["kind"]
    bad = []
    for name in values["algorithm"]["approaches"]:
        try:
            parse(name, kind)
        except ValueError:
            bad.append(name)
    return bad


KIND_RULES: tuple[Rule, ...] = (  # the keys of one kind that depend on each other
    Rule(
        "subscriptions.kind",
        lambda v: v["subscriptions"]["dims"] is not None or v["subscriptions"]["kind"] != "box",
        "needs subscriptions.dims, the number of attributes d of every box",
        f"'box' with subscriptions.dims = 1 .. {MAX_DIMS} set beside it",
    ),
    Rule(
        "subscriptions.dims",
        lambda v: (v["subscriptions"]["dims"] or 0) <= MAX_DIMS or commands(v),
        "is more attributes than Paint's box subscriptions take",
        f"1 .. {MAX_DIMS} (up to {MAX_ATTRIBUTES} for seed 001's command stream, over "
        "overlay.kind = 'content-based')",
    ),
    Rule(
        "subscriptions.cover",
        lambda v: v["subscriptions"]["cover"] is None or v["subscriptions"]["dataset"] != "DS#1",
        "applies only to 1.5-d subscriptions of dataset DS#2 or DS#3",
        "no subscriptions.cover unless subscriptions.kind = 'range-1.5d' and "
        "subscriptions.dataset is 'DS#2' or 'DS#3'",
    ),
    Rule(
        "subscriptions.cover",
        lambda v: (
            v["subscriptions"]["cover"] is None
            or v["subscriptions"]["cover"] <= v["objects"]["count"]
        ),
        "exceeds the objects a range can cover",
        "at most objects.count = {objects[count]}",
    ),
    *_kind_rules(),
)


def _read_only(keys: tuple[str, ...], used, when: str) -> tuple[Rule, ...]:
    """Rules refusing each of ``keys`` ("section.key") away from its default where
    ``used(values)`` is false: nothing would read it, and a key accepted but ignored
    would let a run silently answer another question than the one asked."""

    def rule(path: str) -> Rule:
        section, key = path.split(".")
        default = SCHEMA[section][key].default
        return Rule(
            path,
            lambda v: used(v) or v[section][key] == default,
            f"is read only when {when}",
            f"{default!r} (the default) unless {when}",
        )

    return tuple(rule(path) for path in keys)


def _faults(values: dict[str, dict[str, Any]]) -> bool:
    return faulty(values["faults"])


def _server_approach(values: dict[str, dict[str, Any]]) -> bool:
    return any(parse(a).entry == "server" for a in values["algorithm"]["approaches"])


# Keys that only some scenarios read, refused elsewhere unless at their default.
UNUSED_RULES: tuple[Rule, ...] = (
    *_read_only(
        ("overlay.covering", "overlay.covering_index", "overlay.degree"),
        lambda v: v["overlay"]["kind"] == "content-based",
        "overlay.kind = 'content-based'",
    ),
    *_read_only(
        ("overlay.covering_k",),
        lambda v: v["overlay"]["kind"] == "content-based" and v["overlay"]["covering"] == "gk",
        "overlay.covering = 'gk' over overlay.kind = 'content-based'",
    ),
    *_read_only(
        ("overlay.split",),
        lambda v: v["overlay"]["kind"] == "meghdoot",
        "overlay.kind = 'meghdoot'",
    ),
    *_read_only(
        ("ranked.k", "ranked.scores", "ranked.pruning", "ranked.index"),
        lambda v: any(parse(a).message == "ranked" for a in v["algorithm"]["approaches"]),
        "algorithm.approaches has 'ranked'",
    ),
    *_read_only(
        ("churn.mean_lifetime",),
        lambda v: v["churn"]["lifetime"] != "none",
        "churn.lifetime is 'exponential' or 'pareto'",
    ),
    *_read_only(
        ("churn.pareto_shape",),
        lambda v: v["churn"]["lifetime"] == "pareto",
        "churn.lifetime = 'pareto'",
    ),
    *_read_only(
        ("faults.repair_time", "faults.replication", "faults.detection"),
        _faults,
        "brokers or links fail (faults.rate > 0, faults.brokers or faults.link_rate > 0)",
    ),
    *_read_only(
        ("server.count",),
        _server_approach,
        "an approach with a server runs (paint-*, unicast, batch; not only cn-relax)",
    ),
)


def _churn_rules() -> tuple[Rule, ...]:
    """Where subscribers may come and go: each ``[churn]`` key that makes them, refused
    over an overlay that does not take them and beside ranked delivery."""
    overlays = " or ".join(repr(k) for k, n in NETWORKS.items() if n.churns)
    rules = []
    for key, off in (("joins", 0.0), ("lifetime", "none")):
        rules += [
            Rule(
                f"churn.{key}",
                lambda v, key=key, off=off: v["churn"][key] == off
                or NETWORKS[v["overlay"]["kind"]].churns,
                "needs an overlay whose brokers take joining and leaving subscriptions",
                f"{off!r} unless overlay.kind is {overlays} (not {{overlay[kind]!r}})",
            ),
            Rule(
                f"churn.{key}",
                lambda v, key=key, off=off: v["churn"][key] == off or not commands(v),
                "does not apply to seed 001's command stream (its commands subscribe and "
                "unsubscribe)",
                f"{off!r} when subscriptions.kind = 'box' and overlay.kind = 'content-based'",
            ),
            Rule(
                f"churn.{key}",
                lambda v, key=key, off=off: v["churn"][key] == off
                or not _faults(v)
                or v["overlay"]["kind"] != "content-based",
                "cannot run beside [faults] over the content-based overlay yet (its tree is "
                "built anew from the subscriptions held)",
                f"{off!r} when overlay.kind = 'content-based' and brokers fail",
            ),
            Rule(
                f"churn.{key}",
                lambda v, key=key, off=off: v["churn"][key] == off
                or not any(parse(a).message == "ranked" for a in v["algorithm"]["approaches"]),
                "does not apply to ranked delivery (its joins and leaves are ranked.commands)",
                f"{off!r} when algorithm.approaches has 'ranked'",
            ),
        ]
    return tuple(rules)


CHURN_RULES: tuple[Rule, ...] = _churn_rules()


def split_apart(scenario: Scenario) -> tuple[Scenario, Scenario | None]:
    """A spread run's two scenarios: the one its partitions run (the ``apart``
    approaches left out, and with them their section, ``[ranked]``) and the one its
    apart task runs (those alone, in one process, with one server if none of them has
    one; None: there are none)."""
    specs = [parse(name) for name in scenario.approaches]
    apart = [s for s in specs if s.partition == "apart"]
    if not apart:
        return scenario, None
    rest = [s.name for s in specs if s.partition != "apart"]
    ranked = {key: spec.default for key, spec in SCHEMA["ranked"].items()}
    keep = scenario.replace(**{"algorithm.approaches": rest, "ranked": ranked})
    servers = scenario["server"]["count"] if any(s.entry == "server" for s in apart) else 1
    return keep, scenario.replace(**{"algorithm.approaches": [s.name for s in apart],
                                     "run.partitions": 1, "server.count": servers})


def _apart_families() -> list[str]:
    """The approach families a spread run runs apart, in one task over every subscription
    (``partition = "apart"``)."""
    return [name for name, cls in families().items() if cls.partition == "apart"]


def _partition_rules() -> tuple[Rule, ...]:
    """Where a run may be spread over Spark tasks (``run.partitions`` > 1,
    cnsim/simulations/partitioned.py): a network that declares ``partitions`` (built over
    a part of the subscriptions), in counting mode."""
    overlays = " or ".join(repr(k) for k, n in NETWORKS.items() if n.partitions)
    own = " or ".join(repr(k) for k, n in NETWORKS.items() if n.routes_own)
    one = "1 (one process) when "

    def spread(v) -> bool:
        return v["run"]["partitions"] > 1

    def routes_own(v) -> bool:
        return NETWORKS[v["overlay"]["kind"]].routes_own

    return (
        Rule(
            "run.partitions",
            lambda v: not spread(v) or NETWORKS[v["overlay"]["kind"]].partitions,
            "needs an overlay that can be built over a part of the subscriptions",
            f"{one}overlay.kind is not {overlays} (it is {{overlay[kind]!r}})",
        ),
        Rule(
            "run.partitions",
            lambda v: not spread(v) or not routes_own(v) or not commands(v),
            "does not spread seed 001's command stream (box subscriptions over the "
            "content-based overlay: what it measures is every broker's covering work, "
            "which no part of the subscriptions can count)",
            f"{one}subscriptions.kind = 'box' and overlay.kind = {own}",
        ),
        Rule(
            "run.partitions",
            lambda v: not spread(v) or not _timed(v),
            "runs in counting mode only (timed mode runs on one machine)",
            f"{one}run.mode = 'timed'",
        ),
        Rule(
            "run.partitions",
            lambda v: not spread(v)
            or any(parse(a).partition != "apart" for a in v["algorithm"]["approaches"]),
            "spreads nothing when every approach runs apart (ranked delivery runs in one "
            "task over every subscription)",
            f"{one}algorithm.approaches are all {' or '.join(map(repr, _apart_families()))}",
        ),
        Rule(
            "run.partitions",
            lambda v: v["run"]["partitions"] <= v["subscriptions"]["count"],
            "is more than the subscriptions (a partition holds at least one)",
            "at most subscriptions.count = {subscriptions[count]}",
        ),
    )


PARTITION_RULES: tuple[Rule, ...] = _partition_rules()


def _listed_beyond(values: dict[str, dict[str, Any]]) -> list[int]:
    """The brokers ``faults.brokers`` names that the network does not have."""
    return [b for b in values["faults"]["brokers"] if b >= values["network"]["brokers"]]


def _fault_rules() -> tuple[Rule, ...]:
    """Where and how brokers (and links) may fail: each ``[faults]`` key that makes them
    fail, refused where its failures cannot run; and the failures listed, checked."""
    overlays = " or ".join(repr(k) for k, n in NETWORKS.items() if n.fails)
    rules = []
    for key, off in (("rate", 0.0), ("brokers", []), ("link_rate", 0.0)):
        def on(v, key=key, off=off):
            return v["faults"][key] != off

        rules += [
            Rule(
                f"faults.{key}",
                lambda v, on=on: not on(v) or NETWORKS[v["overlay"]["kind"]].fails,
                "needs an overlay of brokers that can fail (zones taken over, a tree built "
                "anew)",
                f"{off!r} unless overlay.kind is {overlays} (not {{overlay[kind]!r}})",
            ),
            Rule(
                f"faults.{key}",
                lambda v, on=on: not on(v) or not commands(v),
                "does not apply to seed 001's command stream (its subscriptions come and go)",
                f"{off!r} when subscriptions.kind = 'box' and overlay.kind = 'content-based'",
            ),
            Rule(
                f"faults.{key}",
                lambda v, on=on: not on(v)
                or not (_timed(v) and v["overlay"]["kind"] == "content-based"),
                "runs in counting mode over the content-based overlay (timed mode does not "
                "replay a tree built anew)",
                f"{off!r} when run.mode = 'timed' and overlay.kind = 'content-based'",
            ),
            Rule(
                f"faults.{key}",
                lambda v, on=on: not on(v) or v["server"]["count"] == 1,
                "needs one server (several servers' brokers would have to fail over too)",
                f"{off!r} when server.count > 1",
            ),
            Rule(
                f"faults.{key}",
                lambda v, on=on: not on(v)
                or not any(parse(a).message == "ranked" for a in v["algorithm"]["approaches"]),
                "does not apply to ranked delivery (its zones' score bounds are not taken over)",
                f"{off!r} when algorithm.approaches has 'ranked'",
            ),
        ]
    rules += [
        Rule(
            "faults.link_rate",
            lambda v: v["faults"]["link_rate"] == 0 or v["overlay"]["kind"] == "content-based",
            "applies to the content-based tree's links (Meghdoot's zones have no links to cut)",
            "0.0 unless overlay.kind = 'content-based'",
        ),
        Rule(
            "faults.replication",
            lambda v: v["faults"]["replication"] == 0
            or not _faults(v)  # then the key is read by nothing: refused as such
            or v["overlay"]["kind"] == "meghdoot",
            "applies to the Meghdoot zones (the content-based tree is built anew instead)",
            "0 (the default) unless overlay.kind = 'meghdoot'",
        ),
        Rule(
            "faults.rate",
            lambda v: v["faults"]["rate"] == 0 or not v["faults"]["brokers"],
            "is set beside faults.brokers (failures are drawn, or listed)",
            "0.0 when faults.brokers lists the failures",
        ),
        Rule(
            "faults.at",
            lambda v: len(v["faults"]["at"]) == len(v["faults"]["brokers"]),
            "does not give one event for each of faults.brokers",
            "as many events as faults.brokers has brokers ({faults[brokers]})",
        ),
        Rule(
            "faults.brokers",
            lambda v: not _listed_beyond(v),
            "names brokers the network does not have",
            "brokers 0 .. {network[brokers]} - 1 (network.brokers)",
            value=_listed_beyond,
        ),
        Rule(
            "faults.at",
            lambda v: all(t < v["events"]["count"] for t in v["faults"]["at"]),
            "names events the run does not have",
            "events 0 .. {events[count]} - 1 (events.count)",
        ),
    ]
    return tuple(rules)


FAULT_RULES: tuple[Rule, ...] = _fault_rules()


RULES: tuple[Rule, ...] = (  # rules across the scenario's keys, checked after SCHEMA
    Rule(
        "algorithm.approaches",
        lambda v: bool(v["algorithm"]["approaches"]),
        "names no approach",
        "at least one approach, e.g. ['paint-dense']",
    ),
    Rule(
        "algorithm.approaches",
        lambda v: (
            len(set(map(canonical_name, v["algorithm"]["approaches"])))
            == len(v["algorithm"]["approaches"])
        ),
        "names an approach twice",
        "every approach once (names are compared in canonical form)",
    ),
    Rule(
        "events.inserts + events.deletes + events.moves",
        lambda v: _mix(v) <= 1,
        "is more than 1",
        "at most 1 in total (the other events are y-updates)",
        value=lambda v: round(_mix(v), 12),
    ),
    Rule(
        "run.mode",
        lambda v: not _timed(v) or NETWORKS[v["overlay"]["kind"]].has_brokers,
        "needs an overlay of brokers, such as overlay.kind = 'meghdoot' (it times the hops)",
        "'timed' only with an overlay of brokers (not overlay.kind = {overlay[kind]!r})",
    ),
    Rule(
        "server.count",
        lambda v: (
            not NETWORKS[v["overlay"]["kind"]].has_brokers
            or v["server"]["count"] <= v["network"]["brokers"]
        ),
        "is more than the brokers of the network (each server sits at a broker of its own)",
        "at most network.brokers = {network[brokers]}",
    ),
    Rule(
        "server.count",
        lambda v: not _timed(v) or v["server"]["count"] == 1,
        "must be 1 in timed mode (it times one server's queue)",
        "1 when run.mode = 'timed'",
    ),
    Rule(
        "algorithm.approaches",
        lambda v: not _ranked_not_carried(v),
        "cannot run over this overlay (ranked delivery needs zones that keep score bounds)",
        "'ranked' only with overlay.kind = 'meghdoot' or 'content-based' (not {overlay[kind]!r})",
        value=_ranked_not_carried,
    ),
    Rule(
        "algorithm.approaches",
        lambda v: not _not_carried(v),
        "cannot run over this overlay (it routes events published as points at the "
        "publisher's broker, not messages from a server)",
        "with overlay.kind = {overlay[kind]!r} only approaches whose events enter at the "
        "publisher, e.g. ['cn-relax']",
        value=_not_carried,
    ),
    Rule(
        "subscriptions.churn",
        lambda v: v["subscriptions"]["churn"] == 0 or commands(v),
        "needs box subscriptions over the content-based overlay (seed 001's command stream)",
        "0.0 unless subscriptions.kind = 'box' and overlay.kind = 'content-based'",
    ),
    Rule(
        "events.batch_size",
        lambda v: not _timed(v) or v["events"]["batch_size"] == 1,
        "must be 1 in timed mode (it times single events)",
        "1 when run.mode = 'timed'",
    ),
    Rule(
        "timing.trace",
        lambda v: (
            not _timed(v)
            or v["timing"]["arrivals"] != "trace"
            or bool(v["timing"]["trace"] or v["events"]["trace"])
        ),
        "names no file",
        "a file of publication times when timing.arrivals = 'trace' (or events.trace)",
    ),
    Rule(
        "events.inserts + events.deletes + events.moves",
        lambda v: not v["events"]["trace"] or _mix(v) == 0,
        "is not 0 while events.trace names a file",
        "0 when events come from a file (its op column says which insert or delete)",
        value=lambda v: round(_mix(v), 12),
    ),
    Rule(
        "events.trace",
        lambda v: not v["events"]["trace"] or not commands(v),
        "cannot feed a command stream (box subscriptions over the content-based overlay)",
        "no events.trace when subscriptions.kind = 'box' and overlay.kind = 'content-based'",
    ),
    Rule(
        "ranked.commands",
        lambda v: not v["ranked"]["commands"] or (v["events"]["batch_size"] == 1 and not _timed(v)),
        "needs one event per batch in counting mode (joins and leaves fall between events)",
        "0 unless events.batch_size = 1 and run.mode = 'counting'",
    ),
    Rule(
        "ranked.commands",
        lambda v: (
            not v["ranked"]["commands"]
            or any(parse(a).message == "ranked" for a in v["algorithm"]["approaches"])
        ),
        "applies to ranked delivery only (no 'ranked' approach runs)",
        "0 unless algorithm.approaches has 'ranked'",
    ),
    Rule(
        "ranked.regions",
        lambda v: v["ranked"]["regions"] == 1 or v["overlay"]["kind"] == "content-based",
        "applies to the content-based overlay's per-neighbour bounds only",
        "1 (the default) unless overlay.kind = 'content-based'",
    ),
    Rule(  # a share of no commands would change nothing: refused rather than ignored
        "ranked.churn",
        lambda v: v["ranked"]["commands"] > 0 or v["ranked"]["churn"] == 0.5,
        "applies only to join/leave commands (ranked.commands = 0)",
        "0.5 (the default) unless ranked.commands > 0",
    ),
    *CHURN_RULES,
    *FAULT_RULES,
    *PARTITION_RULES,
    *KIND_RULES,
    *UNUSED_RULES,
)

SWEEP_SCHEMA: dict[str, Key] = {  # the [sweep] table of a sweep file (simulations/SWEEPS.md)
    "name": Key(str, None, doc="the sweep's name (default: the file name without .toml)"),
    "seed": Key(int, None, low=0, doc="the sweep seed (default: the scenario's seed)"),
    "repeat": Key(int, 1, low=1, doc="runs per combination of axis values"),
    "grid": Key(dict, {}, doc='axes crossed with each other: "section.key" = [values]'),
    "zip": Key(
        (dict, list), [], items=dict, doc="axes varied together: tables of equal-length arrays"
    ),
    "seed_ignore": Key(list, [], items=str, doc="axes left out of the runs' seeds"),
    "keep_events": Key(bool, False, doc="also keep each run's per-event frame in DIR/_events/"),
}

SWEEP_FILE: dict[str, Key] = {  # the keys of a sweep file besides the scenario's
    "base": Key(str, None, doc="scenario file the inline tables override (next to the file)"),
    "sweep": Key(dict, {}, doc="the [sweep] table (SWEEP_SCHEMA)"),
    "quick": Key(dict, None, doc="overrides laid over the whole file by --quick"),
}

BENCH_OPTIONS: dict[str, Key] = {  # the options of every `cnsim bench` command
    "quick": Key(bool, False, doc="small sizes, a fast look"),
    "full": Key(bool, False, doc="the long form the published figures came from"),
    "json": Key(str, None, doc="file to write the full results to (JSON)"),
}

#: the named options of single benchmarks, by bench name (``--KEY`` on the command line;
#: left unset, the size form's own value is used)
BENCH_NAMED: dict[str, dict[str, Key]] = {
    "betree": {
        "table": Key(
            int,
            None,
            allowed=(3,),
            doc="3: Table III's size column and DBLP-like "
            "workloads (seed 002) instead of the figure sweeps",
        ),  # fmt: skip
        "figures": Key(
            list,
            None,
            items=str,
            doc="figures, comma-separated: with --table 3 those of Table III to measure "
            "(default: all five); alone, BE*-B against the k-index with 90% intervals at "
            "the points of those of Figures 6-9",
        ),  # fmt: skip
        "resume": Key(
            bool,
            False,
            doc="keep what the --json file holds, measure only the rest (with --full or --table)",
        ),  # fmt: skip
        "tables": Key(
            str, None, doc="print the Markdown tables of this result file; run nothing"
        ),  # fmt: skip
    },
    "partitions": {
        "m": Key(list, None, items=int, low=1000, doc="subscription counts, comma-separated"),
        "partitions": Key(
            list, None, items=int, low=1, high=4096, doc="partition counts, comma-separated"
        ),  # fmt: skip
        "approaches": Key(list, None, items=str, doc="approaches, comma-separated"),
        "events": Key(int, None, low=1, doc="events of every run"),
        "master": Key(str, None, doc="Spark master URL of the partitioned runs (local[2])"),
        "overlay": Key(str, None, tuple(NETWORKS), doc="overlay.kind of every run (meghdoot)"),
    },
    "betree_insert": {
        "before": Key(str, None, doc="the earlier git revision to build with, side by side"),
        "n": Key(list, None, items=int, low=1000, doc="subscription counts, comma-separated"),
        "rounds": Key(int, None, low=1, doc="rounds of one build by each revision"),
    },
    "betree_build": {
        "before": Key(str, None, doc="the earlier git revision to build with, side by side"),
        "n": Key(list, None, items=int, low=1000, doc="subscription counts, comma-separated"),
        "rounds": Key(int, None, low=1, doc="rounds of one build by each revision"),
        "check": Key(int, None, low=1000, doc="subscriptions of the same-tree checks"),
        "threads": Key(int, None, low=1, high=256,
                       doc="threads of the working copy's builds (the earlier revision's: one)"),
    },
    "betree_ranking": {
        "n": Key(int, None, low=1000, doc="subscriptions of Table III's default workload"),
    },
    "kindex": {
        "n": Key(int, None, low=1000, doc="subscriptions of the build and order workloads"),
    },
    "covering_overlay": {
        "commands": Key(int, None, low=100, doc="commands of seed 001's stream (events: a tenth)"),
        "dims": Key(
            list, None, items=int, low=1, high=16, doc="attribute counts, comma-separated"
        ),  # fmt: skip
        "coverings": Key(
            list, None, items=str, doc="coverings, comma-separated: " + ", ".join(COVERINGS)
        ),  # fmt: skip
    },
    "covering_speed": {
        "n": Key(int, None, low=100, doc="commands of seed 001's stream"),
        "dims": Key(int, None, low=2, high=32, doc="attributes D (boxes over D / 2 dimensions)"),
        "indexes": Key(
            list, None, items=str, doc="indexes, comma-separated: " + ", ".join(INDEXES)
        ),  # fmt: skip
    },
    "run_loop": {
        "before": Key(str, None, doc="the earlier git revision"),
        "after": Key(str, None, doc="the later git revision (default HEAD)"),
        "rounds": Key(int, None, low=1, doc="rounds of one run by each revision"),
    },
}


def _all_in(name: str, allowed) -> Rule:
    """Every element of the list option ``name`` (if given) is one of ``allowed``."""
    return Rule(
        name,
        lambda o: o.get(name) is None or all(v in allowed for v in o[name]),
        "names an unknown value",
        "values among " + ", ".join(map(repr, allowed)),
    )


def _is_dir(path: str) -> bool:
    """Whether ``path`` names a folder (False for a name the file system refuses)."""
    try:
        return Path(path).is_dir()
    except OSError:
        return False


BENCH_RULES: tuple[Rule, ...] = (
    Rule("json", lambda o: o["json"] != "", "is an empty path", "a file in an existing folder"),
    Rule(
        "json",
        lambda o: o["json"] is None or _is_dir(str(Path(o["json"]).parent)),
        "is in a folder that does not exist",
        "a file in an existing folder",
    ),
    Rule(
        "json",
        lambda o: o["json"] is None or not _is_dir(o["json"]),
        "is a folder",
        "a file in an existing folder",
    ),
    Rule(
        "full",
        lambda o: not (o["quick"] and o["full"]),
        "is given with --quick",
        "one size: --quick, --full or neither",
    ),
    Rule(
        "before",
        lambda o: "before" not in o or o["before"] is not None,
        "is required",
        "a git revision of this repository",
    ),
    _all_in("coverings", COVERINGS),
    _all_in("indexes", INDEXES),
    Rule(
        "resume",
        lambda o: not o.get("resume") or o["json"] is not None,
        "is given without --json",
        "--resume with the --json file to resume",
    ),
    Rule(
        "tables",
        lambda o: o.get("tables") is None or Path(o["tables"]).is_file(),
        "is not a file",
        "a result file of cnsim bench betree",
    ),
)


@dataclass(frozen=True, init=False)
class Scenario:
    """A validated scenario: sections of key -> value (treat them as read-only; use
    :meth:`replace` for a changed copy).

    Made from keyword sections, validated exactly as a TOML file is:

    >>> sc = Scenario(seed=7, subscriptions={"count": 3000, "k": 5}, overlay={"kind": "ideal"})
    >>> sc["subscriptions"]["k"], sc["objects"]["count"]  # unset keys take their defaults
    (5, 10000)
    >>> Scenario.from_toml("examples/small.toml", events={"count": 50})["events"]["count"]
    50
    """

    values: dict[str, dict[str, Any]]
    source: str

    def __init__(self, **sections: Any):
        valid = from_dict(sections, "<keywords>")
        object.__setattr__(self, "values", valid.values)
        object.__setattr__(self, "source", valid.source)

    @classmethod
    def _validated(cls, values: dict[str, dict[str, Any]], source: str) -> Scenario:
        """A scenario of values :func:`from_dict` has checked."""
        scenario = object.__new__(cls)
        object.__setattr__(scenario, "values", values)
        object.__setattr__(scenario, "source", source)
        return scenario

    @classmethod
    def from_toml(cls, path: str | Path, **sections: Any) -> Scenario:
        """The scenario file at ``path``, with keyword sections overriding its keys
        (``events={"count": 50}`` replaces only ``events.count``)."""
        data = read_toml(path)
        for name, value in sections.items():
            if isinstance(value, dict) and isinstance(data.get(name), dict):
                data[name] = {**data[name], **value}
            else:
                data[name] = value
        return from_dict(data, str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<dict>") -> Scenario:
        """Nested data shaped like the TOML file (see :func:`from_dict`)."""
        return from_dict(data, source)

    def __getitem__(self, section: str) -> dict[str, Any]:
        return self.values[section]

    @property
    def seed(self) -> int:
        """The run's seed."""
        return self.values[""]["seed"]

    @property
    def approaches(self) -> list[str]:
        """The approaches, by canonical name (``paint-batch`` -> ``paint-batch(paint-dense)``)."""
        return [canonical_name(a) for a in self.values["algorithm"]["approaches"]]

    def replace(self, **dotted: Any) -> Scenario:
        """A copy with ``section.key`` values replaced (validated as in a file); a
        section's name with a table (``subscriptions={"count": 10}``) replaces the keys
        it names in that section, as a TOML table does."""
        raw = {s: dict(v) for s, v in self.values.items()}
        for path, value in dotted.items():
            section, _, key = path.rpartition(".")
            if not section and key in raw:  # a section: its keys (else refused as one)
                raw[key] = {**raw[key], **value} if isinstance(value, Mapping) else value
            else:
                raw.setdefault(section, {})[key] = value
        # A network seed that followed the run's seed keeps following it.
        follows = raw["network"].get("seed") == self.seed
        if "seed" in dotted and "network.seed" not in dotted and follows:
            del raw["network"]["seed"]
        top = raw.pop("")
        return from_dict({**top, **raw}, self.source)

    def as_dict(self) -> dict[str, Any]:
        """The scenario as nested plain data (for summaries and sweeps)."""
        out: dict[str, Any] = dict(self.values[""])
        out.update({s: dict(v) for s, v in self.values.items() if s and not _omitted(s, v)})
        for omitted in (OMITTED_KEYS_AT_DEFAULT, OMITTED_BOX_KEYS_AT_DEFAULT):
            group = [(s, k) for s, keys in omitted.items() for k in keys]
            if all(self.values[s][k] == SCHEMA[s][k].default for s, k in group):
                for section, key in group:
                    del out[section][key]
        if self.values["subscriptions"]["kind"] == "box":  # the 1.5-d keys, which boxes refuse
            for section, key in (("subscriptions", "dataset"), ("subscriptions", "cover"),
                                 ("messages", "box_bytes")):  # fmt: skip
                out.get(section, {}).pop(key, None)
        if "ranked" in out and not out["ranked"]["commands"]:  # no joins/leaves: as before
            del out["ranked"]["commands"], out["ranked"]["churn"]
        if "ranked" in out and out["ranked"].get("regions") == 1:  # the default: as before
            del out["ranked"]["regions"]
        # how a run is spread over Spark tasks, not what it computes: every P gives the
        # same results (cnsim/simulations/partitioned.py)
        del out["run"]["partitions"]
        return out

    def id_record(self) -> dict[str, Any]:
        """:meth:`as_dict` in the form sweep run ids hash, so that runs written before
        ``subscriptions.attributes`` was retired keep their ids (a dataset stays
        resumable): seed 001's boxes were recorded as ``attributes = d`` (no kind, dims
        or box budget), every other scenario with ``attributes = 1``."""
        out = self.as_dict()
        subs = out["subscriptions"]
        if self.commands:
            subs["attributes"] = subs.pop("dims")
            subs.pop("kind")
            out["algorithm"].pop("box_budget", None)
        else:
            subs["attributes"] = 1
        return out

    @property
    def commands(self) -> bool:
        """Whether the run is seed 001's command stream (box subscriptions over an
        overlay that declares it runs them so: ``Network.streams``), not top-k lists."""
        return commands(self.values)

    @property
    def network(self) -> NetworkParams:
        """The IP network's parameters."""
        return NetworkParams.from_dict(self.values["network"])


def _omitted(section: str, values: dict[str, Any]) -> bool:
    """Whether ``as_dict`` leaves the section out (:data:`OMITTED_AT_DEFAULT`)."""
    keys = SCHEMA[section] if section in OMITTED_AT_DEFAULT else {}
    return bool(keys) and all(values[key] == k.default for key, k in keys.items())


def read_toml(path: str | Path, what: str = "scenario file") -> dict[str, Any]:
    """The parsed TOML file at ``path`` (``what`` names it in errors)."""
    if not isinstance(path, str | PathLike):
        problem = f"is {_a(type(path).__name__)}, not a path"
        raise config_error("", what, path, problem, "a str or pathlib.Path")
    path = Path(path)
    check_names(path, what, f"{what} {str(path)!r}")  # a name too long, in one line
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{what} {str(path)!r} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at "
            f"offset {exc.start}); save it as a UTF-8 TOML file"
        ) from None
    if "\x00" in text:
        raise ConfigError(f"{what} {str(path)!r} is a binary file, not a TOML text file")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def load(path: str | Path) -> Scenario:
    """Read and validate a scenario TOML file."""
    return from_dict(read_toml(path), str(path))


SECTIONS = (*(s for s in SCHEMA if s), "network")  # the tables of a scenario


def from_dict(data: dict[str, Any], source: str = "<dict>") -> Scenario:
    """Validate nested data shaped like the TOML file; unknown keys are errors."""
    if not isinstance(data, Mapping):
        allowed = "a dict of top-level keys and section tables, shaped like the TOML file"
        raise config_error(source, "scenario", data, f"is {_a(type(data).__name__)}", allowed)
    top, tables = _split(data, source)
    values = {"": check_table(SCHEMA[""], top, source)}
    for section, keys in SCHEMA.items():
        if section:
            table = tables.get(section, {})
            values[section] = check_table(
                keys, table, source, f"{section}.", f"[{section}]", RETIRED.get(section)
            )
    # The network's seed follows the run's unless [network] sets it.
    network = {"seed": values[""]["seed"], **tables.get("network", {})}
    values["network"] = NetworkParams.from_dict(network, source).to_dict()
    _check_approaches(source, values["algorithm"]["approaches"])
    check_rules(RULES, values, source)
    events = values["events"]
    if events["trace"]:
        path = _check_trace(source, events["trace"], events["count"], "events.trace")
        events["trace"] = str(path)
    if _timed(values) and values["timing"]["arrivals"] == "trace":
        if not values["timing"]["trace"]:  # the event file's own times
            values["timing"]["trace"] = events["trace"]
        trace = values["timing"]["trace"]
        values["timing"]["trace"] = str(_check_trace(source, trace, events["count"]))
    return Scenario._validated(values, source)


def events_override(events: str | int | None, option: str = "--events") -> int | None:
    """An ``--events`` override (text from the command line), checked like
    ``events.count``."""
    if events is None:
        return None
    key = SCHEMA["events"]["count"]
    try:
        value = int(events)
    except ValueError:
        raise config_error("", option, events, "is not an integer", allowed_text(key)) from None
    return check_value(key, value, option)


def check_call(scenario: Any, events: Any = None) -> None:
    """The arguments of a run or a verification, checked before any work: a
    :class:`Scenario` and ``events`` None or a whole number like ``events.count``."""
    if not isinstance(scenario, Scenario):
        raise config_error(
            "", "scenario", scenario, f"is {_a(type(scenario).__name__)}, not a Scenario",
            "cnsim.Scenario.from_toml(path) or cnsim.Scenario(section={...}, ...)",
        )  # fmt: skip
    key = SCHEMA["events"]["count"]
    if events is not None and (isinstance(events, bool) or not isinstance(events, int)):
        problem = f"is {_a(type(events).__name__)}, not a whole number"
        raise config_error("", "events", events, problem, f"None or {allowed_text(key)}")
    if events is not None:
        check_value(key, events, "events")


def bench_options(
    values: dict[str, Any], source: str = "cnsim bench", bench: str | None = None
) -> dict[str, Any]:
    """The options of a ``cnsim bench`` command (:data:`BENCH_OPTIONS`, and the named
    options of ``bench`` in :data:`BENCH_NAMED`), checked and completed with defaults
    before the benchmark runs; a value given as command-line text is read as its key's
    type first (an integer, a number, a comma-separated list)."""
    schema = {**BENCH_OPTIONS, **BENCH_NAMED.get(bench or "", {})}
    values = {
        k: _bench_text(schema[k], v, source, k) if k in schema and isinstance(v, str) else v
        for k, v in values.items()
    }
    options = check_table(schema, values, source, "--")
    check_rules(BENCH_RULES, options, source, "--")
    return options


def _bench_text(key: Key, text: str, source: str, name: str) -> Any:
    """Command-line text as the value ``key`` declares (text that does not read stays
    text, for :func:`check_table` to reject in the one shape)."""
    kinds = key.kind if isinstance(key.kind, tuple) else (key.kind,)
    if str in kinds:
        return text
    if list in kinds:
        items = [t.strip() for t in text.split(",") if t.strip()]
        return [_bench_text(Key(key.items or str, None), t, source, name) for t in items]
    for kind in (int, float):
        if kind in kinds:
            try:
                return kind(text)
            except ValueError:
                raise config_error(source, "--" + name, text, f"is not {_an(kind)}",
                                   allowed_text(key)) from None  # fmt: skip
    return text


def _a(noun: str) -> str:
    """``noun`` with its article: ``a list``, ``an int``."""
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def _an(kind: type) -> str:
    return "an integer" if kind is int else "a number"


def _split(data: dict[str, Any], source: str) -> tuple[dict[str, Any], dict[str, dict]]:
    """The top-level keys and the tables of a scenario document, each where it belongs."""
    top: dict[str, Any] = {}
    tables: dict[str, dict] = {}
    everything = ", ".join([*SCHEMA[""], *(f"[{s}]" for s in SECTIONS)])
    for name, value in data.items():
        if name in SECTIONS:
            if not isinstance(value, dict):
                keys = SCHEMA.get(name) or NETWORK_SCHEMA
                allowed = f"a table [{name}] with keys {', '.join(keys)}"
                raise config_error(source, name, value, "must be a table", allowed)
            tables[name] = value
        elif name in SCHEMA[""]:
            top[name] = value
        elif isinstance(value, dict):
            raise config_error(source, f"[{name}]", problem="is not a section", allowed=everything)
        else:
            raise config_error(source, name or '""', value, "is not a key", everything)
    return top, tables


def _check_trace(source: str, trace: str, n_events: int, key: str = "timing.trace") -> Path:
    """The trace file, resolved against the scenario file's folder, with at least
    ``n_events`` finite, non-negative, non-decreasing publication times (a CSV/Parquet
    event file: ``n_events`` valid events, :mod:`cnsim.subscriptions.trace`)."""
    path = Path(trace)
    if not path.is_absolute() and Path(source).is_file():
        path = Path(source).parent / path
    allowed = (
        f"a file of at least {n_events} finite, non-negative, non-decreasing publication "
        "times in seconds, one per line"
    )
    if key == "events.trace" or path.suffix.lower() in TABLE_SUFFIXES:
        allowed = describe_format(n_events)
    if key == "events.trace" and path.suffix.lower() not in TABLE_SUFFIXES:
        problem = f"has suffix {path.suffix!r}, not .csv or .parquet"
        raise config_error(source, key, trace, problem, allowed)
    _, problem = read_trace(path, n_events)
    if problem is not None:
        raise config_error(source, key, trace, problem, allowed)
    return path.resolve()


def read_trace(path: str | Path, n_events: int) -> tuple[np.ndarray, str | None]:
    """The first ``n_events`` publication times of a trace file, or what is wrong with
    it, naming the line (checked at load; read again by timed mode). A ``.csv`` or
    ``.parquet`` file is an event file: the times of its first ``n_events`` events."""
    path = Path(path)
    if path.suffix.lower() in TABLE_SUFFIXES:
        trace, problem = read_event_trace(path, n_events)
        return (np.empty(0), problem) if trace is None else (trace.time, None)
    times: list[float] = []
    try:
        with path.open(encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                text = line.split("#", 1)[0].strip()
                if not text:
                    continue
                try:
                    t = float(text)
                except ValueError:
                    return np.empty(0), f"line {number}: {text[:40]!r} is not a number"
                if not np.isfinite(t) or t < 0:
                    return np.empty(0), f"line {number}: {text[:40]!r} is not finite and >= 0"
                if times and t < times[-1]:
                    return np.empty(0), f"line {number}: {t:g} is before the time above it"
                times.append(t)
                if len(times) == n_events:
                    break
    except OSError as exc:
        return np.empty(0), f"cannot be read ({exc.strerror or exc})"
    except UnicodeDecodeError:
        return np.empty(0), "is not a UTF-8 text file"
    if len(times) < n_events:
        return np.empty(0), f"holds {len(times)} times, fewer than events.count = {n_events}"
    return np.asarray(times[:n_events]), None


def _check_approaches(source: str, approaches: list[str]) -> None:
    """Every approach name parses (the registry's message says what is allowed)."""
    for name in approaches:
        try:
            canonical_name(name)
        except ValueError as exc:
            raise config_error(
                source, "algorithm.approaches", name, f"is not allowed: {exc}"
            ) from None
