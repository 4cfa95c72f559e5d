"""Broker routing matrices against networkx shortest paths; world summary."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from cnsim.network import NetworkParams, compute_world, summarize
from cnsim.network.matrices import hop_matrix, route_matrices


def _nx_graph(topo) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(topo.n_nodes))
    u, v, lat = topo.edges()
    g.add_weighted_edges_from(
        zip(u.tolist(), v.tolist(), lat.astype(float).tolist(), strict=True), weight="latency"
    )
    return g


@pytest.mark.parametrize("generator", ["internet-as", "barabasi-albert", "waxman"])
def test_route_matrices_match_networkx(generator: str) -> None:
    params = NetworkParams(ip_nodes=70, brokers=12, generator=generator, seed=5)
    world = compute_world(params)
    topo = world.topology
    g = _nx_graph(topo)
    for i, b in enumerate(world.broker_nodes.tolist()):
        lengths = nx.single_source_shortest_path_length(g, b)
        for v in range(topo.n_nodes):
            assert world.node_hops[i, v] == lengths[v]
            # least latency among the minimum-hop paths
            best = min(nx.path_weight(g, p, "latency") for p in nx.all_shortest_paths(g, b, v))
            assert world.node_latency[i, v] == pytest.approx(best, rel=1e-5, abs=1e-4)
    bn = world.broker_nodes
    assert np.array_equal(world.broker_hops, world.node_hops[:, bn])
    assert np.array_equal(world.broker_hops, world.broker_hops.T)
    np.testing.assert_allclose(world.broker_latency, world.broker_latency.T, rtol=1e-5)
    assert world.broker_hops.dtype == np.int16 and world.broker_latency.dtype == np.float32
    assert np.array_equal(hop_matrix(topo, bn), world.node_hops)


def test_lookups_from_brokers_to_nodes() -> None:
    world = compute_world(NetworkParams(ip_nodes=50, brokers=6, seed=2))
    subs = np.random.default_rng(2).integers(world.topology.n_nodes, size=40)
    assert world.hops_from_brokers(subs).shape == (6, 40)
    gateways = np.arange(40) % 6
    np.testing.assert_array_equal(world.last_hops(gateways, subs), world.node_hops[gateways, subs])
    np.testing.assert_array_equal(
        world.latency_from_brokers(subs)[gateways, np.arange(40)],
        world.node_latency[gateways, subs],
    )
    hops, lat = route_matrices(world.topology, subs[:3])
    assert np.array_equal(hops[:, world.broker_nodes].T, world.node_hops[:, subs[:3]])


def test_summary_matches_networkx() -> None:
    world = compute_world(NetworkParams(ip_nodes=90, brokers=15, generator="barabasi-albert"))
    s = summarize(world)
    g = _nx_graph(world.topology)
    assert s["nodes"] == 90 and s["edges"] == g.number_of_edges()
    assert s["diameter"] == nx.diameter(g) and s["diameter_exact"]
    assert sum(s["broker_hop_histogram"]) == 15 * 14 // 2
    degrees = [d for _, d in g.degree()]
    assert s["degree_max"] == max(degrees) and s["degree_mean"] == pytest.approx(np.mean(degrees))
