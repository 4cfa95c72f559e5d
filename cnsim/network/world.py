"""The IP world of a run: topology, placement and routing matrices, built once and cached."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
from scipy.sparse import csgraph

from cnsim.errors import InputError
from cnsim.network.matrices import broker_matrices, pair_lookup, route_matrices
from cnsim.network.params import NetworkParams
from cnsim.network.placement import place_brokers
from cnsim.network.topology import (
    STREAM_BROKERS,
    Topology,
    build_topology,
    stream,
)

EXACT_DIAMETER_MAX_NODES = 3000  # all-pairs BFS above this size costs too much memory


@dataclass(frozen=True)
class World:
    """A built network: topology, node placement and broker routing matrices (read-only)."""

    params: NetworkParams
    key: str  # cache key (see cnsim.network.cache.world_key)
    topology: Topology
    broker_nodes: np.ndarray  # int32 (B,): IP node of broker i
    node_hops: np.ndarray  # int16 (B, N): IP hops of the route broker i -> node v
    node_latency: np.ndarray  # float32 (B, N): latency (ms) of that route
    broker_hops: np.ndarray  # int16 (B, B): IP hops between brokers
    broker_latency: np.ndarray  # float32 (B, B): latency (ms) between brokers

    @property
    def n_brokers(self) -> int:
        """Number of brokers."""
        return len(self.broker_nodes)

    def hops_from_brokers(self, nodes: np.ndarray) -> np.ndarray:
        """IP hops (B, len(nodes)) from every broker to each of the given IP nodes."""
        return self.node_hops[:, np.asarray(nodes)]

    def latency_from_brokers(self, nodes: np.ndarray) -> np.ndarray:
        """Route latency in ms (B, len(nodes)) from every broker to each of the given nodes."""
        return self.node_latency[:, np.asarray(nodes)]

    def last_hops(self, brokers: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """IP hops from ``brokers[i]`` to IP node ``nodes[i]``, element-wise (gateway last hop)."""
        return pair_lookup(self.node_hops, brokers, nodes)


def compute_world(params: NetworkParams, key: str = "") -> World:
    """Build a world from scratch (no cache): generate, place, compute matrices."""
    topo = build_topology(params)
    n = topo.n_nodes
    if params.brokers > n:
        raise InputError(
            f"network.brokers = {params.brokers}: must be <= the number of IP nodes "
            f"in the topology of {params.path or params.generator!r} ({n})"
        )
    brokers = place_brokers(n, params.brokers, stream(params.seed, STREAM_BROKERS))
    node_hops, node_latency = route_matrices(topo, brokers)
    bh, bl = broker_matrices(node_hops, node_latency, brokers)
    arrays = [topo.indptr, topo.indices, topo.latency, brokers]
    arrays += [node_hops, node_latency, bh, bl]
    for a in arrays + ([topo.pos] if topo.pos is not None else []):
        a.setflags(write=False)  # a world is shared by every component of a run
    return World(params, key, topo, brokers, node_hops, node_latency, bh, bl)


def summarize(world: World) -> dict[str, Any]:
    """Plain-dict summary: size, degrees, diameter, broker hop histogram, latencies."""
    topo = world.topology
    degree = np.diff(topo.indptr)
    diameter, exact = _diameter(world)
    iu = np.triu_indices(world.n_brokers, k=1)
    pair_hops = world.broker_hops[iu]
    pair_lat = world.broker_latency[iu]
    return {
        "key": world.key,
        "generator": world.params.generator,
        **({"map": world.params.map} if world.params.generator == "topohub" else {}),
        "seed": world.params.seed,
        "nodes": topo.n_nodes,
        "edges": topo.n_edges,
        "brokers": world.n_brokers,
        "degree_min": int(degree.min()),
        "degree_mean": float(degree.mean()),
        "degree_median": float(np.median(degree)),
        "degree_max": int(degree.max()),
        "diameter": diameter,
        "diameter_exact": exact,
        "link_latency_ms_mean": float(topo.latency.mean()) if topo.n_edges else 0.0,
        "broker_hops_mean": float(pair_hops.mean()) if len(pair_hops) else 0.0,
        "broker_hops_max": int(pair_hops.max(initial=0)),
        "broker_latency_ms_mean": float(pair_lat.mean()) if len(pair_lat) else 0.0,
        # pairs of distinct brokers (unordered) at each IP hop count 0, 1, 2, ...
        "broker_hop_histogram": np.bincount(pair_hops.astype(np.int64)).tolist(),
    }


def _diameter(world: World) -> tuple[int, bool]:
    topo = world.topology
    graph = topo.adjacency("hops")
    if topo.n_nodes <= EXACT_DIAMETER_MAX_NODES:
        dist = csgraph.shortest_path(graph, directed=True, unweighted=True)
        return int(dist.max()), True
    # Double sweep: the farthest node from any broker, then the eccentricity of that node;
    # a lower bound that is usually exact on Internet-like graphs.
    b, v = np.unravel_index(int(np.argmax(world.node_hops)), world.node_hops.shape)
    far = csgraph.shortest_path(graph, directed=True, unweighted=True, indices=[int(v)])
    return int(max(far.max(), world.node_hops[b, v])), False


def export(world: World, path: str | Path) -> None:
    """Write the topology as GraphML (``.graphml``) or an edge list ``u v latency``."""
    path = Path(path)
    u, v, lat = world.topology.edges()
    try:
        if path.suffix.lower() in (".graphml", ".xml"):
            nx.write_graphml(_to_networkx(world, u, v, lat), path)
        else:
            delimiter = "," if path.suffix.lower() == ".csv" else " "
            table = np.column_stack([u, v, lat]).astype(object)
            header = f"cnsim topology {world.key}: u v latency_ms"
            np.savetxt(path, table, fmt=["%d", "%d", "%.9g"], delimiter=delimiter, header=header)
    except OSError as exc:
        raise InputError(f"cannot write topology to {str(path)!r}: {exc}") from exc


def _to_networkx(world: World, u: np.ndarray, v: np.ndarray, lat: np.ndarray) -> nx.Graph:
    graph = nx.Graph()
    broker_of = np.full(world.topology.n_nodes, -1, np.int64)
    broker_of[world.broker_nodes] = np.arange(world.n_brokers)
    pos = world.topology.pos
    for node in range(world.topology.n_nodes):
        attrs: dict[str, Any] = {"broker": int(broker_of[node])}
        if pos is not None:
            attrs["x"], attrs["y"] = float(pos[node, 0]), float(pos[node, 1])
        graph.add_node(node, **attrs)
    graph.add_edges_from(
        (int(a), int(b), {"latency": float(c)}) for a, b, c in zip(u, v, lat, strict=True)
    )
    return graph
