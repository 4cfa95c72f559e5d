"""Measured maps shipped by topohub (generator 'topohub'): build, latency from great-circle
length, largest component, caching, validation, `cnsim topology list`, and a run."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import topohub
from scipy.sparse.csgraph import connected_components
from typer.testing import CliRunner

import cnsim
from cnsim.errors import ConfigError
from cnsim.network import NetworkParams, build_world, measured, world_key
from cnsim.network import topology as topology_module
from cnsim.network.cli import topology_app
from cnsim.network.measured import KM_PER_MS, great_circle_km

POLSKA = NetworkParams(generator="topohub", map="sndlib/polska", brokers=6, seed=2)


def test_small_map_builds_connected_with_great_circle_latencies() -> None:
    world = build_world(POLSKA, cache=False)
    topo = world.topology
    ref = nx.node_link_graph(topohub.get("sndlib/polska"), edges="edges")
    assert topo.n_nodes == ref.number_of_nodes() == 12
    assert topo.n_edges == ref.number_of_edges() == 18
    assert connected_components(topo.adjacency(), directed=False)[0] == 1
    # positions are the map's (longitude, latitude), nodes in the map's order
    expected_pos = np.array([ref.nodes[n]["pos"] for n in ref.nodes])
    np.testing.assert_array_equal(topo.pos, expected_pos)
    u, v, lat = topo.edges()
    np.testing.assert_allclose(lat, great_circle_km(topo.pos[u], topo.pos[v]) / KM_PER_MS, 1e-6)
    # and the great circle agrees with topohub's own link lengths (km), independently
    ids = list(ref.nodes)
    for a, b, latency in zip(u.tolist(), v.tolist(), lat.tolist(), strict=True):
        km = ref.edges[ids[a], ids[b]]["dist"]
        assert latency == pytest.approx(km / 200.0, rel=2e-3)
    assert len(set(world.broker_nodes.tolist())) == 6
    # brokers' latency: the least-latency route among the minimum-hop ones
    assert (world.broker_latency >= 0).all() and (np.diag(world.broker_hops) == 0).all()


def test_great_circle_km_known_distance() -> None:
    # a quarter of a meridian, and a point to itself
    quarter = great_circle_km(np.array([[0.0, 0.0]]), np.array([[0.0, 90.0]]))[0]
    assert quarter == pytest.approx(np.pi / 2 * measured.EARTH_RADIUS_KM)
    assert great_circle_km(np.array([[10.0, 50.0]]), np.array([[10.0, 50.0]]))[0] == 0.0


def test_largest_component_is_kept(monkeypatch) -> None:
    # every shipped measured map is connected; a disconnected one keeps its largest part
    pos = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [10.0, 10.0], [11.0, 10.0]])
    u, v = np.array([0, 1, 3]), np.array([1, 2, 4])
    monkeypatch.setattr(measured, "read_map", lambda name: (u, v, pos))
    topo = topology_module._measured(POLSKA)
    assert topo.n_nodes == 3 and topo.n_edges == 2
    np.testing.assert_array_equal(topo.pos, pos[:3])


def test_latency_models_on_a_map() -> None:
    const = build_world(
        NetworkParams(generator="topohub", map="sndlib/polska", brokers=3, latency="constant"),
        cache=False,
    )
    assert (const.topology.latency == 5.0).all()
    assert POLSKA.latency == "great-circle"
    assert NetworkParams().latency == "uniform"


def test_cache_roundtrip_and_key_per_map(tmp_path: Path) -> None:
    built = build_world(POLSKA, directory=tmp_path)
    assert built.key.startswith("topohub-sndlib-polska-b6-s2-")
    loaded = build_world(POLSKA, directory=tmp_path)
    np.testing.assert_array_equal(loaded.node_latency, built.node_latency)
    np.testing.assert_array_equal(loaded.topology.pos, built.topology.pos)
    meta = json.loads((tmp_path / built.key / "meta.json").read_text())
    assert meta["params"]["map"]["name"] == "sndlib/polska"
    assert len(meta["params"]["map"]["sha256"]) == 64
    other = NetworkParams(**{**POLSKA.to_dict(), "map": "topozoo/Abilene"})
    assert world_key(other) != world_key(POLSKA)
    # ip_nodes does not shape a measured world; the map key does not enter other worlds
    assert world_key(NetworkParams(**{**POLSKA.to_dict(), "ip_nodes": 77})) == world_key(POLSKA)
    assert "map" not in json.dumps(world_key(NetworkParams(ip_nodes=60, brokers=3)))


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            {"map": "caida/3356"},
            r"network\.map = 'caida/3356' is not a measured map.*nearest: "
            r"'caida/2024-08/3356'.*cnsim topology list",
        ),
        ({"map": "sndlib/ta2"}, r"network\.map = 'sndlib/ta2' .*drawing coordinates"),
        ({"map": "gabriel/25/0"}, r"network\.map = 'gabriel/25/0' is not a measured map"),
        ({"map": "../../x"}, r"network\.map = '\.\./\.\./x'"),
        ({"map": None}, r"network\.map = None is missing"),
        (
            {"map": "sndlib/polska", "brokers": 13},
            r"network\.brokers = 13 is more than the 12 nodes of network\.map = 'sndlib/polska'; "
            r"allowed: 1 \.\. 12",
        ),
    ],
)
def test_bad_map_is_refused(table, message) -> None:
    with pytest.raises(ConfigError, match=message):
        NetworkParams.from_dict({"generator": "topohub", "brokers": 4, **table}, "scenario.toml")


def test_map_and_great_circle_need_topohub() -> None:
    with pytest.raises(ConfigError, match=r"network\.map = 'sndlib/polska' is set"):
        NetworkParams.from_dict({"map": "sndlib/polska"})
    with pytest.raises(ConfigError, match=r"network\.latency = 'great-circle'"):
        NetworkParams.from_dict({"generator": "waxman", "latency": "great-circle"})


def test_topology_list_names_the_maps() -> None:
    result = CliRunner().invoke(topology_app, ["list", "--json"])
    assert result.exit_code == 0, result.output
    listing = json.loads(result.output)
    assert "topohub" in listing["generators"]
    rows = {r["map"]: r for r in listing["maps"]}
    assert set(rows) == set(measured.map_names())
    assert {"caida/2024-08/3356", "topozoo/Abilene", "sndlib/polska"} <= set(rows)
    assert "sndlib/ta2" not in rows and not any(m.startswith("gabriel/") for m in rows)
    assert rows["sndlib/polska"]["nodes"] == 12 and rows["sndlib/polska"]["links"] == 18
    text = CliRunner().invoke(topology_app, ["list"])
    assert text.exit_code == 0 and "caida/2024-08/3356" in text.output


def test_topology_build_with_map(tmp_path: Path) -> None:
    args = ["build", "--generator", "topohub", "--map", "topozoo/Abilene", "--brokers", "4"]
    result = CliRunner().invoke(topology_app, [*args, "--cache", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["map"] == "topozoo/Abilene" and summary["nodes"] == 11


def test_a_run_over_a_measured_map(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "cache"))
    scenario = cnsim.Scenario(
        seed=1,
        objects={"count": 60},
        subscriptions={"count": 400, "k": 3},
        events={"count": 20},
        network={"generator": "topohub", "map": "sndlib/polska", "brokers": 8},
        algorithm={"approaches": ["paint-dense", "unicast"]},
        run={"progress": False},
    )
    assert scenario["network"]["latency"] == "great-circle"
    result = cnsim.run(scenario, tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["scenario"]["network"]["map"] == "sndlib/polska"
    assert result is not None
    assert any((tmp_path / "cache").glob("topohub-sndlib-polska-b8-*"))
