"""Parameters of the IP network (topology, link latencies, node placement): the
``[network]`` table declared in the schema language of :mod:`cnsim.schema`, its rules
across keys, and :class:`NetworkParams`, the frozen dataclass built from a valid table."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cnsim.schema import Key, Rule, check_rules, check_table, config_error

GENERATORS = ("internet-as", "waxman", "barabasi-albert", "file", "topohub")
LATENCY_MODELS = ("constant", "uniform", "geometric", "attribute", "great-circle")
TOPOLOGY_SUFFIXES = (".graphml", ".xml", ".edges", ".edgelist", ".txt", ".csv", ".tsv")

NETWORK_SCHEMA: dict[str, Key] = {
    "ip_nodes": Key(
        int, 20000, low=2, doc="requested IP nodes (ignored for generators 'file', 'topohub')"
    ),
    "brokers": Key(int, 1000, low=1, doc="IP nodes picked as brokers, without replacement"),
    "generator": Key(str, "internet-as", GENERATORS, doc="how the IP topology is made"),
    "seed": Key(int, 0, low=0, high=2**63 - 1, doc="seed of topology, latencies, placement"),
    "latency": Key(
        str,
        None,
        LATENCY_MODELS,
        doc="how link latencies are drawn (default 'great-circle' for 'topohub', else 'uniform')",
    ),
    "latency_ms": Key(
        float, 5.0, low=0.0, doc="'constant': every link; 'geometric': ms per unit of distance"
    ),
    "latency_range_ms": Key(
        (list, tuple), (1.0, 10.0), items=float, length=2, low=0.0, doc="'uniform': [low, high)"
    ),
    "path": Key(str, None, doc="topology file for generator 'file' (.graphml or edge list)"),
    "waxman_alpha": Key(float, 0.1, low=0.0, low_open=True, doc="networkx waxman_graph alpha"),
    "waxman_beta": Key(
        float, 0.4, low=0.0, high=1.0, low_open=True, doc="networkx waxman_graph beta"
    ),
    "ba_m": Key(int, 2, low=1, doc="Barabasi-Albert edges per new node"),
    "map": Key(str, None, doc="generator 'topohub': a measured map, e.g. 'caida/2024-08/3356'"),
}


def _model_needs(model: str, generator: str, problem: str) -> Rule:
    """``network.latency = model`` is allowed with ``generator`` only."""
    return Rule(
        "latency",
        lambda p: p["latency"] != model or p["generator"] == generator,
        problem,
        f"{model!r} only with network.generator = {generator!r} (not {{generator!r}})",
    )


def _only_for(key: str, generator: str, wanted: str, given: str, example: str = ""):
    """``network.<key>`` is required by ``generator`` and refused by every other."""
    return (
        Rule(key, lambda p: p["generator"] != generator or bool(p[key]), "is missing",
             f"{wanted} when network.generator = {generator!r}{example}"),
        Rule(key, lambda p: p["generator"] == generator or not p[key], "is set",
             f"{given} only with network.generator = {generator!r} (not {{generator!r}})"),
    )  # fmt: skip


NETWORK_RULES: tuple[Rule, ...] = (
    Rule(
        "brokers",
        lambda p: p["generator"] in ("file", "topohub") or p["brokers"] <= p["ip_nodes"],
        "is more than there are IP nodes",
        "at most network.ip_nodes = {ip_nodes}",
    ),
    Rule(
        "ba_m",
        lambda p: p["ba_m"] < p["ip_nodes"],
        "is not below network.ip_nodes",
        "1 .. network.ip_nodes - 1 = {ip_nodes} - 1",
    ),
    Rule(
        "latency_range_ms",
        lambda p: p["latency_range_ms"][0] <= p["latency_range_ms"][1],
        "has low > high",
        "a pair [low, high] with 0 <= low <= high",
    ),
    _model_needs("geometric", "waxman", "needs node positions"),
    _model_needs("attribute", "file", "reads the edge attribute 'latency' of a topology file"),
    *_only_for("path", "file", "a GraphML or edge-list file", "a path"),
    Rule(
        "path",
        lambda p: not p["path"] or Path(p["path"]).suffix.lower() in TOPOLOGY_SUFFIXES,
        "has an unknown suffix",
        ".graphml/.xml (GraphML) or .edges/.edgelist/.txt/.csv/.tsv (edge list)",
    ),
    _model_needs("great-circle", "topohub", "needs geographic node positions"),
    *_only_for(
        "map", "topohub", "a measured map", "a map",
        example=", e.g. 'caida/2024-08/3356' (`cnsim topology list` names them all)",
    ),  # fmt: skip
)


def check_network(table: dict[str, Any], source: str = "") -> dict[str, Any]:
    """A ``[network]`` table checked (keys, values, rules) and completed with defaults."""
    values = check_table(NETWORK_SCHEMA, table, source, "network.", "[network]")
    if values["latency"] is None:  # the generator's own model
        values["latency"] = "great-circle" if values["generator"] == "topohub" else "uniform"
    check_rules(NETWORK_RULES, values, source, "network.")
    if values["generator"] == "topohub":
        _check_map(values, source)
    return values


def _check_map(values: dict[str, Any], source: str) -> None:
    """``network.map`` is a map topohub ships, with room for one broker per node."""
    from cnsim.network import measured  # reads topohub's files: only for this generator

    name = values["map"]
    problem = measured.map_problem(name)
    if problem is not None:
        raise config_error(source, "network.map", name, problem, measured.allowed_maps(name))
    nodes = measured.component_nodes(name)
    if values["brokers"] > nodes:
        raise config_error(
            source,
            "network.brokers",
            values["brokers"],
            f"is more than the {nodes} nodes of network.map = {name!r}",
            f"1 .. {nodes} (one broker per node), or a larger map (`cnsim topology list`)",
        )


def _default(key: str) -> Any:
    return NETWORK_SCHEMA[key].default


@dataclass(frozen=True)
class NetworkParams:
    """Everything that determines a world: topology, latencies, placement and the seed
    (keys and meaning: :data:`NETWORK_SCHEMA`; checked on construction)."""

    ip_nodes: int = _default("ip_nodes")
    brokers: int = _default("brokers")
    generator: str = _default("generator")
    seed: int = _default("seed")
    latency: str = _default("latency")
    latency_ms: float = _default("latency_ms")
    latency_range_ms: tuple[float, float] = _default("latency_range_ms")
    path: str | None = _default("path")
    waxman_alpha: float = _default("waxman_alpha")
    waxman_beta: float = _default("waxman_beta")
    ba_m: int = _default("ba_m")
    map: str | None = _default("map")

    def __post_init__(self) -> None:
        values = asdict(self)
        if isinstance(values["path"], Path):
            values["path"] = str(values["path"])
        for key, value in check_network(values).items():
            if key == "latency_range_ms":
                value = tuple(value)
            object.__setattr__(self, key, value)

    @classmethod
    def from_dict(cls, values: dict[str, Any], source: str = "") -> NetworkParams:
        """Build parameters from a ``[network]`` table (``source``: named in errors)."""
        return cls(**check_network(values, source))

    def to_dict(self) -> dict[str, Any]:
        """The parameters as plain JSON-able values."""
        out = asdict(self)
        out["latency_range_ms"] = list(self.latency_range_ms)
        return out
