"""IP topologies from networkx generators or a user's file, as undirected CSR arrays.

Nodes are renumbered ``0..n-1``; only the largest connected component is kept (the
generators other than internet-as may leave stragglers, and so may a user's file).
Every link is stored in both directions; ``latency[e]`` is the latency of arc ``e``
(milliseconds), the same in both directions.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from cnsim.errors import InputError
from cnsim.network.params import NetworkParams

# Independent random streams derived from the seed, so changing one model (e.g. the
# latency range) does not reshuffle another (e.g. the broker placement).
STREAM_TOPOLOGY, STREAM_LATENCY, STREAM_BROKERS = range(3)  # (3, 4 were endpoints: unused)


@dataclass(frozen=True)
class Topology:
    """An undirected connected IP graph in CSR form, with per-arc latencies (ms)."""

    indptr: np.ndarray  # int64 (n + 1,)
    indices: np.ndarray  # int32 (2 * edges,)
    latency: np.ndarray  # float32 (2 * edges,)
    pos: np.ndarray | None = None  # float64 (n, 2) node positions, when the generator has them

    @property
    def n_nodes(self) -> int:
        """Number of IP nodes."""
        return len(self.indptr) - 1

    @property
    def n_edges(self) -> int:
        """Number of undirected links."""
        return len(self.indices) // 2

    def adjacency(self, weight: str = "hops") -> sp.csr_array:
        """The graph as a scipy CSR array weighted by ``"hops"`` (1 per link) or ``"latency"``."""
        data = np.ones(len(self.indices)) if weight == "hops" else self.latency.astype(np.float64)
        n = self.n_nodes
        return sp.csr_array((data, self.indices, self.indptr), shape=(n, n))

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each undirected link once, as arrays ``(u, v, latency)`` with ``u < v``."""
        src = np.repeat(np.arange(self.n_nodes, dtype=np.int32), np.diff(self.indptr))
        keep = src < self.indices
        return src[keep], self.indices[keep], self.latency[keep]


def stream(seed: int, which: int) -> np.random.Generator:
    """The numpy Generator of one named random stream of a world's seed."""
    return np.random.default_rng(np.random.SeedSequence([seed, which]))


def stream_int(seed: int, which: int) -> int:
    """A 32-bit integer seed for libraries that want one (networkx), from a named stream."""
    return int(np.random.SeedSequence([seed, which]).generate_state(1)[0])


def build_topology(params: NetworkParams) -> Topology:
    """Generate (or read) the topology of ``params`` and assign link latencies."""
    if params.generator == "topohub":
        return _measured(params)
    graph = _generate(params)
    u, v, pos, attr_latency = _edge_arrays(graph, params)
    u, v, pos, attr_latency = _largest_component(u, v, pos, attr_latency, graph.number_of_nodes())
    latency = _latencies(params, u, v, pos, attr_latency)
    return from_edges(u, v, latency, pos)


def from_edges(
    u: np.ndarray, v: np.ndarray, latency: np.ndarray, pos: np.ndarray | None = None
) -> Topology:
    """A Topology from undirected links ``(u, v)`` (no duplicates or loops) and latencies."""
    n = int(max(u.max(initial=-1), v.max(initial=-1))) + 1 if pos is None else len(pos)
    src = np.concatenate([u, v]).astype(np.int64)
    dst = np.concatenate([v, u]).astype(np.int32)
    lat = np.concatenate([latency, latency]).astype(np.float32)
    order = np.lexsort((dst, src))
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return Topology(indptr, dst[order], lat[order], pos)


def _measured(params: NetworkParams) -> Topology:
    """A measured map shipped by topohub (:mod:`cnsim.network.measured`): its largest
    component, positions (longitude, latitude) kept, latency from great-circle length."""
    from cnsim.network.measured import KM_PER_MS, great_circle_km, read_map

    u, v, pos = read_map(str(params.map))
    u, v, pos, _ = _largest_component(u, v, pos, None, len(pos))
    assert pos is not None
    if params.latency == "great-circle":
        latency = great_circle_km(pos[u], pos[v]) / KM_PER_MS
    else:
        latency = _latencies(params, u, v, None, None)
    return from_edges(u, v, latency, pos.copy())


def _generate(params: NetworkParams) -> nx.Graph:
    seed = stream_int(params.seed, STREAM_TOPOLOGY)
    n = params.ip_nodes
    if params.generator == "internet-as":
        return nx.random_internet_as_graph(n, seed=seed)
    if params.generator == "waxman":
        # networkx's Waxman generator is quadratic in n: fine up to a few thousand nodes.
        return nx.waxman_graph(n, beta=params.waxman_beta, alpha=params.waxman_alpha, seed=seed)
    if params.generator == "barabasi-albert":
        return nx.barabasi_albert_graph(n, params.ba_m, seed=seed)
    return read_graph(Path(str(params.path)))


def read_graph(path: Path) -> nx.Graph:
    """Read a user's topology: GraphML by suffix, otherwise an edge list ``u v [latency]``."""
    if not path.is_file():
        raise InputError(f"topology file {str(path)!r} does not exist")
    try:
        if path.suffix.lower() in (".graphml", ".xml"):
            graph = nx.read_graphml(path)
        else:
            graph = _read_edgelist(path)
    except ElementTree.ParseError as exc:
        raise InputError(f"topology file {str(path)!r} is not valid GraphML (XML: {exc})") from None
    except UnicodeDecodeError:
        raise InputError(f"topology file {str(path)!r} is not UTF-8 text") from None
    except (OSError, ValueError, TypeError, KeyError, nx.NetworkXError) as exc:
        raise InputError(f"topology file {str(path)!r} cannot be read: {exc}") from None
    graph = nx.Graph(graph)  # undirected, parallel links merged
    graph.remove_edges_from(list(nx.selfloop_edges(graph)))
    if graph.number_of_edges() == 0:
        raise InputError(f"topology file {str(path)!r} has no links")
    return _renumber(graph)


def _renumber(graph: nx.Graph) -> nx.Graph:
    # Integer labels keep their numeric order (so an exported world reads back with the
    # same numbering); other labels are numbered in file order.
    labels = list(graph.nodes())
    if all(str(x).lstrip("-").isdigit() for x in labels):
        labels.sort(key=lambda x: int(x))
    return nx.relabel_nodes(graph, {x: i for i, x in enumerate(labels)}, copy=True)


def _read_edgelist(path: Path) -> nx.Graph:
    """An edge list: one link ``u v`` or ``u v latency`` per line (``,`` between them in
    a ``.csv``), ``#`` starts a comment; every line has the same number of columns."""
    delimiter = "," if path.suffix.lower() == ".csv" else None
    graph = nx.Graph()
    columns = 0
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            words = [w.strip() for w in line.split("#", 1)[0].split(delimiter)]
            if words == [""] or not any(words):
                continue
            where = f"line {number} ({line.strip()[:60]!r})"
            if len(words) not in (2, 3) or "" in words:
                raise ValueError(f"{where}: expected 'u v' or 'u v latency'")
            if columns and len(words) != columns:
                raise ValueError(f"{where}: has {len(words)} columns, the lines above {columns}")
            columns = len(words)
            if columns == 3:
                try:
                    latency = float(words[2])
                except ValueError:
                    raise ValueError(f"{where}: latency {words[2]!r} is not a number") from None
                graph.add_edge(words[0], words[1], latency=latency)
            else:
                graph.add_edge(words[0], words[1])
    return graph


def file_digest(path: str) -> str:
    """SHA-256 of a topology file's bytes (part of the cache key of file topologies)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except FileNotFoundError:
        raise InputError(f"topology file {path!r} does not exist") from None
    except OSError as exc:
        raise InputError(f"topology file {path!r} cannot be read: {exc.strerror}") from None
    return digest.hexdigest()


def _edge_arrays(
    graph: nx.Graph, params: NetworkParams
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    edges = np.array(list(graph.edges()), dtype=np.int64).reshape(-1, 2)
    u, v = edges.min(axis=1), edges.max(axis=1)
    pos = None
    if params.generator == "waxman":
        table = nx.get_node_attributes(graph, "pos")
        pos = np.array([table[i] for i in range(graph.number_of_nodes())], dtype=np.float64)
    attr = None
    if params.latency == "attribute":
        attr = np.array([_number(d.get("latency")) for _, _, d in graph.edges(data=True)])
        bad = ~(np.isfinite(attr) & (attr >= 0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"topology file {params.path!r}: link ({u[i]}, {v[i]}) needs a finite, "
                f"non-negative 'latency' attribute (latency = 'attribute')"
            )
    # A canonical link order makes latencies independent of networkx's iteration order.
    order = np.lexsort((v, u))
    return u[order], v[order], pos, None if attr is None else attr[order]


def _number(value: object) -> float:
    """A latency attribute as a float; NaN (reported as invalid) if absent or not a number."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return float("nan")


def _largest_component(
    u: np.ndarray, v: np.ndarray, pos: np.ndarray | None, attr: np.ndarray | None, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    graph = sp.coo_array((np.ones(len(u)), (u, v)), shape=(n, n)).tocsr()
    count, labels = csgraph.connected_components(graph, directed=False)
    if count == 1:
        return u, v, pos, attr
    sizes = np.bincount(labels)
    keep = labels == int(np.argmax(sizes))
    new_id = np.cumsum(keep) - 1
    on = keep[u]  # both ends share a component, so one end decides
    u2, v2 = new_id[u[on]], new_id[v[on]]
    return u2, v2, None if pos is None else pos[keep], None if attr is None else attr[on]


def _latencies(
    params: NetworkParams,
    u: np.ndarray,
    v: np.ndarray,
    pos: np.ndarray | None,
    attr: np.ndarray | None,
) -> np.ndarray:
    if params.latency == "constant":
        return np.full(len(u), params.latency_ms)
    if params.latency == "uniform":
        low, high = params.latency_range_ms
        return stream(params.seed, STREAM_LATENCY).uniform(low, high, len(u))
    if params.latency == "geometric":
        assert pos is not None
        return params.latency_ms * np.hypot(*(pos[u] - pos[v]).T)
    assert attr is not None
    return attr
