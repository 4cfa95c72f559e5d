"""Hop-count and latency matrices from brokers to IP nodes (scipy csgraph, broker sources only).

One route per pair, so that IP hops and latency describe the same path: IP routing
takes a minimum-hop path and, among those, the one of least latency. Both numbers
come out of a single Dijkstra run with link weight ``1 + latency / scale`` where
``scale`` exceeds the latency of any simple path: the integer part of a distance is
the hop count and the fraction is the latency divided by ``scale``.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csgraph

from cnsim.network.topology import Topology

SOURCE_CHUNK = 128  # Dijkstra sources per call: bounds the float64 scratch to chunk x n


def route_matrices(topology: Topology, sources: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hops (int16) and latency in ms (float32) of the route from each source to every node."""
    sources = np.asarray(sources, dtype=np.int64)
    n = topology.n_nodes
    scale = _latency_scale(topology)
    graph = topology.adjacency("hops")
    graph.data = 1.0 + topology.latency.astype(np.float64) / scale
    hops = np.empty((len(sources), n), np.int16)
    latency = np.empty((len(sources), n), np.float32)
    for start in range(0, len(sources), SOURCE_CHUNK):
        chunk = sources[start : start + SOURCE_CHUNK]
        dist = csgraph.dijkstra(graph, directed=True, indices=chunk)
        if not np.isfinite(dist).all():
            raise ValueError("topology is not connected")  # build_topology keeps one component
        whole = np.floor(dist)
        if whole.max(initial=0) > np.iinfo(np.int16).max:
            raise ValueError("hop count exceeds int16")
        hops[start : start + len(chunk)] = whole
        latency[start : start + len(chunk)] = (dist - whole) * scale
    return hops, latency


def hop_matrix(topology: Topology, sources: np.ndarray) -> np.ndarray:
    """Minimum hop counts (int16) from each source to every node, by breadth-first search."""
    dist = csgraph.shortest_path(
        topology.adjacency("hops"), directed=True, unweighted=True, indices=sources
    )
    return dist.astype(np.int16)


def broker_matrices(
    node_hops: np.ndarray, node_latency: np.ndarray, broker_nodes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Broker-to-broker hop and latency matrices, the broker columns of broker-to-node ones."""
    return (
        np.ascontiguousarray(node_hops[:, broker_nodes]),
        np.ascontiguousarray(node_latency[:, broker_nodes]),
    )


def pair_lookup(matrix: np.ndarray, brokers: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Element-wise ``matrix[brokers[i], nodes[i]]`` (e.g. last hop gateway -> subscriber)."""
    return matrix[np.asarray(brokers), np.asarray(nodes)]


def _latency_scale(topology: Topology) -> float:
    # Any simple path has at most n - 1 links, so its latency stays below n * max latency
    # and the fraction never carries into the hop count.
    top = float(topology.latency.max(initial=0.0))
    return topology.n_nodes * top if top > 0 else 1.0
