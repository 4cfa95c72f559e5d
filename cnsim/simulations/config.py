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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cnsim.algorithms.registry import canonical_name
from cnsim.brokers import NETWORKS
from cnsim.brokers.zones import ZONE_MODES
from cnsim.errors import ConfigError
from cnsim.network.params import NETWORK_SCHEMA, NetworkParams
from cnsim.schema import Key, Rule, check_rules, check_table, config_error
from cnsim.subscriptions.workload import (
    OBJECT_DISTRIBUTIONS,
    SUBSCRIPTION_DISTRIBUTIONS,
    UPDATE_MODELS,
)

SCHEMA: dict[str, dict[str, Key]] = {
    "": {"seed": Key(int, 0, low=0, high=2**63 - 1, doc="seed of every random choice of the run")},
    "objects": {
        "count": Key(int, 10_000, low=1, doc="number of objects n"),
        "distribution": Key(str, "uniform", OBJECT_DISTRIBUTIONS, doc="x-values of the objects"),
    },
    "subscriptions": {
        "count": Key(int, 2_000_000, low=1, doc="number of subscriptions m"),
        "distribution": Key(str, "uniform", SUBSCRIPTION_DISTRIBUTIONS, doc="points in S"),
        "k": Key(int, 10, low=1, high=1000, doc="list length of every subscription"),
        "spread": Key(float, 0.1, low=1e-6, high=10.0, doc="λ of the clustered distribution"),
    },
    "events": {
        "count": Key(int, 1_000, low=0, doc="number of events"),
        "update": Key(str, "uniform", UPDATE_MODELS, doc="how a new y-value is drawn"),
        "volatility": Key(float, 1.0, low=1e-9, high=1e6, doc="c of the volatile model"),
        "inserts": Key(float, 0.0, low=0.0, high=1.0, doc="share of events inserting objects"),
        "deletes": Key(float, 0.0, low=0.0, high=1.0, doc="share of events deleting objects"),
        "moves": Key(float, 0.0, low=0.0, high=1.0, doc="share of events changing an x"),
        "batch_size": Key(int, 1, low=1, doc="events per batch (1: every event alone)"),
    },
    "algorithm": {
        "approaches": Key(
            list, ["paint-dense", "paint-sparse"], items=str, doc="approaches to run"
        ),
    },
    "overlay": {
        "kind": Key(str, "meghdoot", tuple(NETWORKS), doc="broker overlay or direct delivery"),
        "split": Key(str, "random", ZONE_MODES, doc="how joining brokers split zones"),
    },
    "messages": {
        "cn_bytes": Key(int, 24, low=1, doc="bytes of a CN message (six 4-byte values)"),
        "unicast_bytes": Key(int, 16, low=1, doc="bytes of a unicast message (four values)"),
        "event_bytes": Key(int, 16, low=1, doc="bytes of an event, publisher to server"),
        "object_bytes": Key(int, 8, low=1, doc="bytes a subscriber stores per object"),
    },
    "run": {
        "progress": Key(bool, True, doc="show a progress bar on long runs"),
        "mode": Key(str, "counting", ("counting", "timed"), doc="no clock, or SimPy time"),
    },
    "timing": {
        "arrivals": Key(str, "poisson", ("poisson", "trace"), doc="how events arrive"),
        "rate": Key(float, 100.0, low=1e-9, high=1e9, doc="Poisson events per second"),
        "trace": Key(str, "", doc="file of publication times (s), one per line"),
        "server_service_s": Key(float, 5e-5, low=0.0, high=1e3, doc="server s per message"),
        "broker_service_s": Key(float, 1e-5, low=0.0, high=1e3, doc="broker s per message"),
        "bandwidth_mbps": Key(float, 100.0, low=1e-6, high=1e9, doc="overlay link bandwidth"),
    },
}


def _mix(values: dict[str, dict[str, Any]]) -> float:
    return sum(values["events"][key] for key in ("inserts", "deletes", "moves"))


def _timed(values: dict[str, dict[str, Any]]) -> bool:
    return values["run"]["mode"] == "timed"


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
        "events.batch_size",
        lambda v: not _timed(v) or v["events"]["batch_size"] == 1,
        "must be 1 in timed mode (it times single events)",
        "1 when run.mode = 'timed'",
    ),
    Rule(
        "timing.trace",
        lambda v: not _timed(v) or v["timing"]["arrivals"] != "trace" or bool(v["timing"]["trace"]),
        "names no file",
        "a file of publication times when timing.arrivals = 'trace'",
    ),
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
    "json": Key(str, None, doc="file to write the full results to (JSON)"),
}

BENCH_RULES: tuple[Rule, ...] = (
    Rule(
        "json",
        lambda o: o["json"] is None or Path(o["json"]).parent.is_dir(),
        "is in a folder that does not exist",
        "a file in an existing folder",
    ),
    Rule(
        "json",
        lambda o: o["json"] is None or not Path(o["json"]).is_dir(),
        "is a folder",
        "a file in an existing folder",
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
        """A copy with ``section.key`` values replaced (validated as in a file)."""
        raw = {s: dict(v) for s, v in self.values.items()}
        for path, value in dotted.items():
            section, _, key = path.rpartition(".")
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
        out.update({s: dict(v) for s, v in self.values.items() if s})
        return out

    @property
    def network(self) -> NetworkParams:
        """The IP network's parameters."""
        return NetworkParams.from_dict(self.values["network"])


def read_toml(path: str | Path, what: str = "scenario file") -> dict[str, Any]:
    """The parsed TOML file at ``path`` (``what`` names it in errors)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {str(path)!r}: {exc.strerror}") from None
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
    top, tables = _split(data, source)
    values = {"": check_table(SCHEMA[""], top, source)}
    for section, keys in SCHEMA.items():
        if section:
            table = tables.get(section, {})
            values[section] = check_table(keys, table, source, f"{section}.", f"[{section}]")
    # The network's seed follows the run's unless [network] sets it.
    network = {"seed": values[""]["seed"], **tables.get("network", {})}
    values["network"] = NetworkParams.from_dict(network, source).to_dict()
    _check_approaches(source, values["algorithm"]["approaches"])
    check_rules(RULES, values, source)
    if _timed(values) and values["timing"]["arrivals"] == "trace":
        trace = values["timing"]["trace"]
        values["timing"]["trace"] = str(_check_trace(source, trace, values["events"]["count"]))
    return Scenario._validated(values, source)


def bench_options(values: dict[str, Any], source: str = "cnsim bench") -> dict[str, Any]:
    """The options of a ``cnsim bench`` command (:data:`BENCH_OPTIONS`), checked and
    completed with defaults before the benchmark runs."""
    options = check_table(BENCH_OPTIONS, values, source, "--")
    check_rules(BENCH_RULES, options, source, "--")
    return options


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
            raise config_error(source, name, value, "is not a key", everything)
    return top, tables


def _check_trace(source: str, trace: str, n_events: int) -> Path:
    """The trace file, resolved against the scenario file's folder, with at least
    ``n_events`` finite, non-negative, non-decreasing publication times."""
    path = Path(trace)
    if not path.is_absolute() and Path(source).is_file():
        path = Path(source).parent / path
    allowed = (
        f"a file of at least {n_events} finite, non-negative, non-decreasing publication "
        "times in seconds, one per line"
    )
    try:
        times = np.loadtxt(path, dtype=np.float64, ndmin=1, comments="#")
    except (OSError, ValueError) as exc:
        raise config_error(
            source, "timing.trace", trace, f"cannot be read ({exc})", allowed
        ) from None
    head = times[:n_events]
    if (
        len(times) < n_events
        or not np.isfinite(head).all()
        or (head < 0).any()
        or (np.diff(head) < 0).any()
    ):
        problem = f"does not hold such times (found {len(times)} values)"
        raise config_error(source, "timing.trace", trace, problem, allowed)
    return path.resolve()


def _check_approaches(source: str, approaches: list[str]) -> None:
    """Every approach name parses (the registry's message says what is allowed)."""
    for name in approaches:
        try:
            canonical_name(name)
        except ValueError as exc:
            raise config_error(
                source, "algorithm.approaches", name, f"is not allowed: {exc}"
            ) from None
