"""Scenario configuration: a TOML file read into a frozen, validated :class:`Scenario`.

Every bad key or value is rejected here, before any work, with a message naming
the key, the value and what is allowed; nothing downstream re-validates. The keys,
their defaults and meaning are listed in :data:`SCHEMA` (and in the README).
"""

from __future__ import annotations

import copy
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cnsim.algorithms.registry import canonical_name
from cnsim.errors import ConfigError
from cnsim.network.params import NetworkParams
from cnsim.subscriptions.workload import (
    OBJECT_DISTRIBUTIONS,
    SUBSCRIPTION_DISTRIBUTIONS,
    UPDATE_MODELS,
)


@dataclass(frozen=True)
class Key:
    """One configuration key: its type, default, and an optional check of the value."""

    kind: type | tuple[type, ...]
    default: Any
    allowed: tuple | None = None  # the allowed values, if a closed set
    low: float | None = None  # inclusive lower bound for numbers
    high: float | None = None  # inclusive upper bound for numbers
    doc: str = ""


SCHEMA: dict[str, dict[str, Key]] = {
    "": {"seed": Key(int, 0, low=0, doc="seed of every random choice of the run")},
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
        "approaches": Key(list, ["paint-dense", "paint-sparse"], doc="approaches to run"),
    },
    "overlay": {
        "kind": Key(
            str, "meghdoot", ("meghdoot", "ideal"), doc="broker overlay or direct delivery"
        ),
        "split": Key(str, "random", ("random", "load"), doc="how joining brokers split zones"),
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


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: sections of key -> value (treat them as read-only; use
    :meth:`replace` for a changed copy)."""

    values: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str = "<defaults>"

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


def load(path: str | Path) -> Scenario:
    """Read and validate a scenario TOML file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read scenario file {str(path)!r}: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return from_dict(data, str(path))


def from_dict(data: dict[str, Any], source: str = "<dict>") -> Scenario:
    """Validate nested data shaped like the TOML file; unknown keys are errors."""
    values: dict[str, dict[str, Any]] = {s: {} for s in SCHEMA}
    network = data.get("network", {})
    if not isinstance(network, dict):
        raise ConfigError(f"{source}: network = {network!r} must be a table ([network])")
    network = dict(network)
    for name, value in data.items():
        if name == "network" and isinstance(value, dict):
            continue  # validated as a whole by NetworkParams below
        if isinstance(value, dict):
            if name not in SCHEMA or not name:
                raise ConfigError(
                    f"{source}: unknown section [{name}]; allowed: "
                    + ", ".join(f"[{s}]" for s in SCHEMA if s)
                )
            for key, item in value.items():
                values[name][key] = _check(source, name, key, item)
        else:
            values[""][name] = _check(source, "", name, value)
    for section, keys in SCHEMA.items():
        for key, spec in keys.items():
            values[section].setdefault(key, copy.deepcopy(spec.default))
    values["network"] = _check_network(source, network, values[""]["seed"])
    _check_approaches(source, values["algorithm"]["approaches"])
    _check_timed(source, values)
    mix = [values["events"][key] for key in ("inserts", "deletes", "moves")]
    if sum(mix) > 1:
        raise ConfigError(
            f"{source}: events.inserts + events.deletes + events.moves = {sum(mix):g} "
            "must be at most 1 (the rest are y-updates)"
        )
    return Scenario(values, source)


def _check(source: str, section: str, key: str, value: Any) -> Any:
    where = f"{section}.{key}" if section else key
    spec = SCHEMA[section].get(key)
    if spec is None:
        allowed = ", ".join(SCHEMA[section]) or "none"
        raise ConfigError(f"{source}: unknown key {where!r}; allowed in this section: {allowed}")
    if spec.kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, spec.kind) or (spec.kind is int and isinstance(value, bool)):
        kind = spec.kind.__name__ if isinstance(spec.kind, type) else str(spec.kind)
        raise ConfigError(f"{source}: {where} = {value!r} must be of type {kind}")
    if spec.kind is float and not math.isfinite(value):
        raise ConfigError(f"{source}: {where} = {value!r} must be a finite number")
    if spec.allowed is not None and value not in spec.allowed:
        choices = ", ".join(repr(a) for a in spec.allowed)
        raise ConfigError(f"{source}: {where} = {value!r} is not allowed; choose one of {choices}")
    if (spec.low is not None and value < spec.low) or (spec.high is not None and value > spec.high):
        raise ConfigError(
            f"{source}: {where} = {value!r} is out of range; allowed: {spec.low} .. {spec.high}"
        )
    return value


def _check_timed(source: str, values: dict[str, dict[str, Any]]) -> None:
    """Timed mode replays the overlay's paths per event."""
    if values["run"]["mode"] != "timed":
        return
    if values["overlay"]["kind"] != "meghdoot":
        raise ConfigError(
            f"{source}: run.mode = 'timed' needs overlay.kind = 'meghdoot' (it times the "
            f"overlay's hops), not {values['overlay']['kind']!r}"
        )
    if values["events"]["batch_size"] != 1:
        raise ConfigError(
            f"{source}: run.mode = 'timed' times single events; events.batch_size = "
            f"{values['events']['batch_size']} must be 1"
        )
    timing = values["timing"]
    if timing["arrivals"] == "trace":
        timing["trace"] = str(_check_trace(source, timing["trace"], values["events"]["count"]))


def _check_trace(source: str, trace: str, n_events: int) -> Path:
    """The trace file, resolved against the scenario file's folder, with at least
    ``n_events`` finite, non-negative, non-decreasing publication times."""
    if not trace:
        raise ConfigError(f"{source}: timing.arrivals = 'trace' needs timing.trace = a file")
    path = Path(trace)
    if not path.is_absolute() and Path(source).is_file():
        path = Path(source).parent / path
    try:
        times = np.loadtxt(path, dtype=np.float64, ndmin=1, comments="#")
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"{source}: timing.trace = {trace!r}: cannot read times ({exc})"
        ) from None
    head = times[:n_events]
    if (
        len(times) < n_events
        or not np.isfinite(head).all()
        or (head < 0).any()
        or (np.diff(head) < 0).any()
    ):
        raise ConfigError(
            f"{source}: timing.trace = {trace!r} needs at least {n_events} finite, "
            f"non-negative, non-decreasing publication times in seconds, one per line "
            f"(found {len(times)} values)"
        )
    return path.resolve()


def _check_network(source: str, table: dict[str, Any], seed: int) -> dict[str, Any]:
    """The [network] table, validated by NetworkParams; its seed defaults to the run's."""
    table.setdefault("seed", seed)
    try:
        return NetworkParams.from_dict(table).to_dict()
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    except TypeError as exc:
        raise ConfigError(f"{source}: [network]: {exc}") from None


def _check_approaches(source: str, approaches: list) -> None:
    if not approaches:
        raise ConfigError(f"{source}: algorithm.approaches = [] must name at least one approach")
    names = []
    for name in approaches:
        try:
            names.append(canonical_name(name))
        except ValueError as exc:
            raise ConfigError(f"{source}: algorithm.approaches: {exc}") from None
    if len(set(names)) != len(names):
        raise ConfigError(
            f"{source}: algorithm.approaches = {approaches!r} names an approach twice"
        )
