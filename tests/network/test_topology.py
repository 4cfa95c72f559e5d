"""Topology generators, file import, placement and parameter validation; topology files
and export paths refused with a clear one-line answer (harness: tests/refusals.py)."""

from __future__ import annotations

import numpy as np
import pytest
from refusals import Case, assert_refused, table
from scipy.sparse import csgraph

from cnsim.errors import ConfigError, InputError
from cnsim.network import NetworkParams, build_topology, compute_world, export
from cnsim.network.placement import place_brokers


def _connected(topo) -> bool:
    return csgraph.connected_components(topo.adjacency(), directed=False)[0] == 1


def _check_csr(topo) -> None:
    """Symmetric, no self loops, no duplicate arcs, latency equal in both directions."""
    adj = topo.adjacency("latency")
    assert (adj != adj.T).nnz == 0
    assert not np.any(adj.diagonal())
    u, v, _ = topo.edges()
    assert len(set(zip(u.tolist(), v.tolist(), strict=True))) == topo.n_edges
    assert (topo.latency > 0).all()


@pytest.mark.parametrize("generator", ["internet-as", "barabasi-albert"])
@pytest.mark.parametrize("n", [30, 250])
def test_generators_connected_of_requested_size(generator: str, n: int) -> None:
    topo = build_topology(NetworkParams(ip_nodes=n, brokers=5, generator=generator, seed=3))
    assert topo.n_nodes == n
    assert _connected(topo)
    _check_csr(topo)


def test_waxman_keeps_largest_component_with_geometric_latency() -> None:
    sparse = NetworkParams(
        ip_nodes=200,
        brokers=5,
        generator="waxman",
        seed=1,
        waxman_beta=0.05,
        waxman_alpha=0.05,
        latency="geometric",
    )
    topo = build_topology(sparse)
    assert 2 <= topo.n_nodes < 200  # stragglers dropped
    assert _connected(topo) and topo.pos is not None and len(topo.pos) == topo.n_nodes
    u, v, lat = topo.edges()
    expected = sparse.latency_ms * np.hypot(*(topo.pos[u] - topo.pos[v]).T)
    np.testing.assert_allclose(lat, expected, rtol=1e-6)
    dense = build_topology(
        NetworkParams(ip_nodes=150, brokers=5, generator="waxman", seed=1, waxman_alpha=0.4)
    )
    assert dense.n_nodes == 150 and _connected(dense)


def test_seed_determinism_and_latency_models() -> None:
    p = NetworkParams(ip_nodes=120, brokers=10, seed=7)
    a, b = build_topology(p), build_topology(p)
    assert np.array_equal(a.indices, b.indices) and np.array_equal(a.latency, b.latency)
    low, high = p.latency_range_ms
    assert a.latency.min() >= low and a.latency.max() < high
    other = build_topology(NetworkParams(ip_nodes=120, brokers=10, seed=8))
    assert not (np.array_equal(a.indptr, other.indptr) and np.array_equal(a.indices, other.indices))
    const = build_topology(
        NetworkParams(ip_nodes=120, brokers=10, seed=7, latency="constant", latency_ms=2.5)
    )
    assert np.array_equal(const.indices, a.indices) and (const.latency == 2.5).all()


def test_placement_seeded_and_valid() -> None:
    rng = np.random.default_rng(0)
    brokers = place_brokers(100, 40, rng)
    assert len(np.unique(brokers)) == 40 and brokers.min() >= 0 and brokers.max() < 100
    assert np.array_equal(place_brokers(100, 40, np.random.default_rng(0)), brokers)
    with pytest.raises(AssertionError):  # a precondition: the config layer checked the count
        place_brokers(10, 11, rng)
    world = compute_world(NetworkParams(ip_nodes=80, brokers=20))
    assert len(np.unique(world.broker_nodes)) == 20


@pytest.mark.parametrize("suffix", [".graphml", ".edges", ".csv"])
def test_export_and_reimport_roundtrip(tmp_path, suffix: str) -> None:
    world = compute_world(NetworkParams(ip_nodes=60, brokers=8, generator="barabasi-albert"))
    path = tmp_path / f"topo{suffix}"
    export(world, path)
    again = build_topology(
        NetworkParams(brokers=8, generator="file", path=str(path), latency="attribute")
    )
    assert np.array_equal(again.indptr, world.topology.indptr)
    assert np.array_equal(again.indices, world.topology.indices)
    np.testing.assert_allclose(again.latency, world.topology.latency, rtol=1e-6)


def test_file_import_labels_components_and_errors(tmp_path) -> None:
    path = tmp_path / "net.txt"
    path.write_text("# comment\na b\nb c\nc a\nx y\n")
    topo = build_topology(NetworkParams(brokers=1, generator="file", path=str(path)))
    assert topo.n_nodes == 3 and topo.n_edges == 3  # the pair x-y is dropped
    with pytest.raises(InputError, match="latency"):
        build_topology(
            NetworkParams(brokers=1, generator="file", path=str(path), latency="attribute")
        )
    with pytest.raises(InputError, match="does not exist"):
        build_topology(NetworkParams(brokers=1, generator="file", path=str(tmp_path / "no.txt")))
    with pytest.raises(InputError, match=r"network.brokers = 4: must be <= .* \(3\)"):
        compute_world(NetworkParams(brokers=4, generator="file", path=str(path)))


@pytest.mark.parametrize(
    ("values", "key"),
    [
        ({"generator": "inet"}, "network.generator"),
        ({"ip_nodes": 1}, "network.ip_nodes"),
        ({"ip_nodes": 10.5}, "network.ip_nodes"),
        ({"brokers": 0}, "network.brokers"),
        ({"ip_nodes": 10, "brokers": 11}, "network.brokers"),
        ({"seed": -1}, "network.seed"),
        ({"latency": "fast"}, "network.latency"),
        ({"latency_ms": -1.0}, "network.latency_ms"),
        ({"latency_range_ms": (5.0, 1.0)}, "network.latency_range_ms"),
        ({"latency_range_ms": (1.0,)}, "network.latency_range_ms"),
        ({"latency": "geometric"}, "network.latency"),
        ({"latency": "attribute"}, "network.latency"),
        ({"generator": "file"}, "network.path"),
        ({"path": "x.graphml"}, "network.path"),
        ({"generator": "file", "path": "x.bin"}, "network.path"),
        ({"waxman_beta": 2.0}, "network.waxman_beta"),
        ({"ba_m": 0}, "network.ba_m"),
        ({"ba_m": 30000}, "network.ba_m"),
        ({"brokers": True}, "network.brokers"),
    ],
)
def test_bad_params_raise_config_error(values: dict, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        NetworkParams(**values)
    message = str(info.value)
    assert message.startswith(f"{key} = ") and "; allowed: " in message, message


def test_from_dict_rejects_unknown_keys_and_coerces_numbers() -> None:
    p = NetworkParams.from_dict({"seed": 3, "latency_range_ms": [1, 2], "latency_ms": 2})
    assert p.seed == 3 and p.latency_range_ms == (1.0, 2.0) and p.latency_ms == 2.0
    assert isinstance(p.latency_ms, float) and p.to_dict()["latency_range_ms"] == [1.0, 2.0]
    with pytest.raises(ConfigError) as info:
        NetworkParams.from_dict({"nodes": 3}, "net.toml")
    assert str(info.value).startswith("net.toml: network.nodes = 3 is not a key of [network]")
    assert "ip_nodes, brokers" in str(info.value)


def _build(path: str, *more: str) -> list[str]:
    """``cnsim topology build`` of the topology file ``path``."""
    return [
        "topology",
        "build",
        "--generator",
        "file",
        "--path",
        path,
        *more,
        "--brokers",
        "2",
        "--cache",
        "{d}/cache",
    ]


# Topology files (through `topology build` and through a scenario's [network] section),
# and an export path that is a folder.
BAD_FILES: list[Case] = [
    *[
        Case(f"topology-{name}", _build(f"{{d}}/{name}"), message)
        for name, message in [
            ("empty.graphml", r"empty\.graphml.*not valid GraphML"),
            ("corrupt.graphml", r"corrupt\.graphml.*not valid GraphML"),
            ("four.txt", r"four\.txt.*line 2"),
            ("word.txt", r"word\.txt.*line 2"),
            ("lat.txt", r"lat\.txt.*line 1.*'fast'"),
            ("mixed.txt", r"mixed\.txt.*line 2.*columns"),
            ("binary.txt", r"binary\.txt.*UTF-8"),
            ("nothere.txt", r"nothere\.txt.*does not exist"),
        ]
    ],
    Case(
        "topology-latency-attr",
        _build("{d}/latency.graphml", "--latency", "attribute"),
        r"latency\.graphml.*latency",
    ),
    Case(
        "run-topology-four",
        [
            "run",
            "@[network]\ngenerator = 'file'\npath = 'four.txt'\nbrokers = 2\n"
            "[overlay]\nkind = 'meghdoot'\n",
            "--out",
            "{d}/o",
        ],
        r"four\.txt.*line 2",
    ),
    Case(
        "run-topology-corrupt",
        [
            "run",
            "@[network]\ngenerator = 'file'\npath = 'corrupt.graphml'\nbrokers = 2\n"
            "[overlay]\nkind = 'meghdoot'\n",
            "--out",
            "{d}/o",
        ],
        r"not valid GraphML",
    ),
    Case(
        "topology-export-dir",
        [
            "topology",
            "build",
            "--ip-nodes",
            "60",
            "--brokers",
            "3",
            "--cache",
            "{d}/cache",
            "--export",
            "{d}/foreign",
        ],
        r"foreign",
    ),
]


@table(BAD_FILES)
def test_bad_topology_file_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)
