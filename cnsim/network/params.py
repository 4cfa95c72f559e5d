"""Parameters of the IP network (topology, link latencies, node placement), validated once."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cnsim.errors import ConfigError

GENERATORS = ("internet-as", "waxman", "barabasi-albert", "file")
LATENCY_MODELS = ("constant", "uniform", "geometric", "attribute")


@dataclass(frozen=True)
class NetworkParams:
    """Everything that determines a world: topology, latencies, placement and the seed."""

    ip_nodes: int = 20000  # requested IP nodes (ignored for generator "file")
    brokers: int = 1000  # IP nodes picked as brokers, without replacement
    generator: str = "internet-as"  # one of GENERATORS
    seed: int = 0
    latency: str = "uniform"  # one of LATENCY_MODELS
    latency_ms: float = 5.0  # "constant": every link; "geometric": ms per unit of distance
    latency_range_ms: tuple[float, float] = (1.0, 10.0)  # "uniform": [low, high)
    path: str | None = None  # topology file for generator "file" (.graphml or edge list)
    publishers: int = 0  # publisher nodes, uniform over IP nodes with replacement
    subscribers: int = 0  # subscriber nodes, uniform over IP nodes with replacement
    waxman_alpha: float = 0.1  # networkx waxman_graph alpha (distance decay)
    waxman_beta: float = 0.4  # networkx waxman_graph beta (edge density)
    ba_m: int = 2  # Barabasi-Albert edges per new node

    def __post_init__(self) -> None:
        if isinstance(self.latency_range_ms, list):
            object.__setattr__(self, "latency_range_ms", tuple(self.latency_range_ms))
        if self.path is not None and not isinstance(self.path, str):
            object.__setattr__(self, "path", str(self.path))
        validate(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> NetworkParams:
        """Build parameters from a mapping (e.g. a TOML table); unknown keys are errors."""
        for key in values:
            if key not in _field_names():
                raise ConfigError(f"network.{key}: unknown parameter (allowed: {_field_names()})")
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The parameters as plain JSON-able values."""
        out = asdict(self)
        out["latency_range_ms"] = list(self.latency_range_ms)
        return out


def _field_names() -> list[str]:
    return list(NetworkParams.__dataclass_fields__)


def _int(name: str, value: Any, low: int, high: float = math.inf, what: str = "") -> None:
    ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
    if not ok:
        allowed = what or (f"an integer >= {low}" if high == math.inf else f"{low}..{high}")
        raise ConfigError(f"network.{name} = {value!r}: must be {allowed}")


def _real(name: str, value: Any, low: float, high: float = math.inf, low_open: bool = True) -> None:
    num = isinstance(value, int | float) and not isinstance(value, bool)
    ok = num and math.isfinite(value) and (value > low if low_open else value >= low)
    ok = ok and value <= high
    if not ok:
        rel = ">" if low_open else ">="
        bound = "" if high == math.inf else f" and <= {high}"
        raise ConfigError(f"network.{name} = {value!r}: must be a finite number {rel} {low}{bound}")


def validate(p: NetworkParams) -> None:
    """Raise ConfigError naming the first bad key, its value and what is allowed."""
    if p.generator not in GENERATORS:
        raise ConfigError(f"network.generator = {p.generator!r}: must be one of {list(GENERATORS)}")
    if p.latency not in LATENCY_MODELS:
        raise ConfigError(f"network.latency = {p.latency!r}: must be one of {list(LATENCY_MODELS)}")
    _int("ip_nodes", p.ip_nodes, 2)
    _int("brokers", p.brokers, 1)
    if p.generator != "file" and p.brokers > p.ip_nodes:
        raise ConfigError(
            f"network.brokers = {p.brokers}: must be <= network.ip_nodes ({p.ip_nodes})"
        )
    _int("seed", p.seed, 0, 2**63 - 1)
    _int("publishers", p.publishers, 0)
    _int("subscribers", p.subscribers, 0)
    _real("latency_ms", p.latency_ms, 0.0, low_open=False)
    rng = p.latency_range_ms
    if not (isinstance(rng, tuple) and len(rng) == 2):
        raise ConfigError(f"network.latency_range_ms = {rng!r}: must be a pair [low, high]")
    _real("latency_range_ms[0]", rng[0], 0.0, low_open=False)
    _real("latency_range_ms[1]", rng[1], rng[0], low_open=False)
    _real("waxman_alpha", p.waxman_alpha, 0.0)
    _real("waxman_beta", p.waxman_beta, 0.0, 1.0)
    _int("ba_m", p.ba_m, 1, p.ip_nodes - 1)
    _validate_combinations(p)


def _validate_combinations(p: NetworkParams) -> None:
    if p.latency == "geometric" and p.generator != "waxman":
        raise ConfigError(
            f"network.latency = 'geometric' needs node positions: allowed only with "
            f"generator 'waxman' (got {p.generator!r})"
        )
    if p.latency == "attribute" and p.generator != "file":
        raise ConfigError(
            f"network.latency = 'attribute' reads edge attribute 'latency' from a file: allowed "
            f"only with generator 'file' (got {p.generator!r})"
        )
    if p.generator == "file" and not p.path:
        raise ConfigError("network.path = None: generator 'file' needs a GraphML or edge-list path")
    if p.generator != "file" and p.path:
        raise ConfigError(f"network.path = {p.path!r}: allowed only with generator 'file'")
    if p.path:
        suffix = Path(p.path).suffix.lower()
        if suffix not in (".graphml", ".xml", ".edges", ".edgelist", ".txt", ".csv", ".tsv"):
            raise ConfigError(
                f"network.path = {p.path!r}: suffix must be .graphml/.xml (GraphML) or "
                f".edges/.edgelist/.txt/.csv/.tsv (edge list)"
            )
