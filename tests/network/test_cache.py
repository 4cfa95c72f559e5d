"""World cache: round trip, keying, location, atomic entries; the topology CLI; cache
places and unbuilt worlds refused with a clear one-line answer (harness:
tests/refusals.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from refusals import Case, assert_refused, table
from typer.testing import CliRunner

from cnsim.network import NetworkParams, build_world, cache_dir, world_key
from cnsim.network.cache import ARRAYS, _arrays
from cnsim.network.cli import topology_app

SMALL = NetworkParams(ip_nodes=60, brokers=10, seed=4)


def test_roundtrip_identical(tmp_path: Path) -> None:
    built = build_world(SMALL, directory=tmp_path)
    entry = tmp_path / built.key
    assert (entry / "meta.json").is_file()
    loaded = build_world(SMALL, directory=tmp_path)
    assert loaded.key == built.key
    for name, array in _arrays(built).items():
        other = _arrays(loaded)[name]
        if array is None:
            assert other is None
            continue
        assert other.dtype == array.dtype and np.array_equal(other, array), name
        assert not other.flags.writeable
    assert {p.stem for p in entry.glob("*.npy")} <= set(ARRAYS)
    assert not list(tmp_path.glob(".tmp-*"))  # no leftover temporary directories
    # a second save of the same key (lost race) leaves the entry intact
    from cnsim.network.cache import save_world

    save_world(built, tmp_path)
    assert np.array_equal(build_world(SMALL, directory=tmp_path).node_hops, built.node_hops)


def test_pos_survives_roundtrip(tmp_path: Path) -> None:
    p = NetworkParams(ip_nodes=40, brokers=4, generator="waxman", latency="geometric")
    built = build_world(p, directory=tmp_path)
    loaded = build_world(p, directory=tmp_path)
    assert loaded.topology.pos is not None
    assert np.array_equal(loaded.topology.pos, built.topology.pos)


def test_key_is_stable_and_discriminating() -> None:
    key = world_key(SMALL)
    assert key == world_key(NetworkParams(**SMALL.to_dict()))
    assert key.startswith("internet-as-n60-b10-s4-")
    changed = [
        NetworkParams(**{**SMALL.to_dict(), "seed": 5}),
        NetworkParams(**{**SMALL.to_dict(), "brokers": 11}),
        NetworkParams(**{**SMALL.to_dict(), "latency_range_ms": (1.0, 11.0)}),
        NetworkParams(**{**SMALL.to_dict(), "latency": "constant"}),
        NetworkParams(**{**SMALL.to_dict(), "generator": "barabasi-albert"}),
    ]
    assert len({key, *map(world_key, changed)}) == 1 + len(changed)
    # parameters that do not shape this world do not change its key
    assert world_key(NetworkParams(**{**SMALL.to_dict(), "waxman_beta": 0.2, "ba_m": 3})) == key
    # the key is a pure function of the parameters (no hash(), no process state)
    assert key == "internet-as-n60-b10-s4-" + key.rsplit("-", 1)[1]


def test_file_topology_keyed_by_content(tmp_path: Path) -> None:
    path = tmp_path / "net.edges"
    path.write_text("0 1\n1 2\n2 0\n")
    p = NetworkParams(brokers=2, generator="file", path=str(path))
    first = world_key(p)
    copy = tmp_path / "copy.edges"
    copy.write_text(path.read_text())
    assert world_key(NetworkParams(brokers=2, generator="file", path=str(copy))) == first
    path.write_text("0 1\n1 2\n")
    assert world_key(p) != first


def test_cache_dir_env_and_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CNSIM_CACHE", raising=False)
    monkeypatch.chdir(tmp_path)
    assert cache_dir() == tmp_path / ".cnsim-cache"
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "env"))
    assert cache_dir() == tmp_path / "env"
    assert cache_dir(tmp_path / "x") == tmp_path / "x"
    world = build_world(SMALL)
    assert (tmp_path / "env" / world.key / "meta.json").is_file()


def test_no_cache_builds_without_writing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "env"))
    build_world(SMALL, cache=False)
    assert not (tmp_path / "env").exists()


def test_cli_build_show(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["--ip-nodes", "50", "--brokers", "5", "--cache", str(tmp_path)]
    missing = runner.invoke(topology_app, ["show", *args])
    assert missing.exit_code == 2
    out = tmp_path / "t.graphml"
    built = runner.invoke(topology_app, ["build", *args, "--json", "--export", str(out)])
    assert built.exit_code == 0, built.output
    assert json.loads(built.output)["nodes"] == 50 and out.is_file()
    shown = runner.invoke(topology_app, ["show", *args, "--export", str(tmp_path / "t.edges")])
    assert shown.exit_code == 0 and "broker_hop_histogram" in shown.output
    assert (tmp_path / "t.edges").is_file() and "seconds" not in shown.output
    bad = runner.invoke(topology_app, ["build", *args, "--generator", "inet"])
    assert bad.exit_code == 2 and "network.generator = 'inet' is not one of" in bad.output


BAD_CACHE: list[Case] = [
    Case(
        "topology-show-unbuilt",
        ["topology", "show", "--ip-nodes", "60", "--brokers", "3", "--cache", "{d}/cache"],
        r"no cached world",
    ),
    Case(
        "topology-cache-file",
        ["topology", "build", "--ip-nodes", "60", "--brokers", "3", "--cache", "{d}/a_file"],
        r"--cache.*a_file.*is a file",
    ),
    Case(
        "topology-cache-under-file",
        ["topology", "build", "--ip-nodes", "60", "--brokers", "3", "--cache", "{d}/a_file/sub"],
        r"--cache.*is a file",
    ),
    Case(
        "run-cache-env-file",
        [
            "run",
            "@[overlay]\nkind = 'meghdoot'\n[network]\nip_nodes = 60\nbrokers = 3\n",
            "--out",
            "{d}/o",
        ],
        r"CNSIM_CACHE.*a_file.*is a file",
        env={"CNSIM_CACHE": "{d}/a_file"},
    ),
]
# The path rules of every output (cnsim.outputs.check_names) hold for the cache too: a
# name or a path longer than the file system allows is refused naming where it came
# from; an --export file is a new file (or one cnsim stamped), never a user's.
LONG, DEEP = "a" * 300, "b/" * 3000
TOPO = ["--ip-nodes", "60", "--brokers", "3"]
MEGHDOOT = "@[overlay]\nkind = 'meghdoot'\n[network]\nip_nodes = 60\nbrokers = 3\n"
NAME_300 = r"'[^']*\.\.\.: a name of 300 bytes; allowed: names of at most 255 bytes$"
BAD_CACHE += [
    *[
        Case(f"topology-{cmd}-cache-long-name", ["topology", cmd, *TOPO, "--cache", "{d}/" + LONG],
             r"^error: --cache " + NAME_300)
        for cmd in ("build", "show")
    ],
    Case("topology-cache-long-name-above", ["topology", "build", *TOPO, "--cache",
         "{d}/" + LONG + "/c"], r"^error: --cache " + NAME_300),
    Case("topology-cache-long-path", ["topology", "build", *TOPO, "--cache", "{d}/" + DEEP],
         r"^error: --cache: a path of \d+ bytes; allowed: under 4096$"),
    Case("run-cache-env-long-name", ["run", MEGHDOOT, "--out", "{d}/o"],
         r"^error: \$CNSIM_CACHE " + NAME_300, env={"CNSIM_CACHE": "{d}/" + LONG}),
    Case("run-cache-env-long-path", ["run", MEGHDOOT, "--out", "{d}/o"],
         r"^error: \$CNSIM_CACHE: a path of \d+ bytes", env={"CNSIM_CACHE": "{d}/" + DEEP}),
    Case("run-cache-env-under-file", ["run", MEGHDOOT, "--out", "{d}/o"],
         r"^error: \$CNSIM_CACHE '[^']*a_file/w': '[^']*a_file' is a file, not a folder",
         env={"CNSIM_CACHE": "{d}/a_file/w"}),
    Case("verify-cache-env-long-name", ["verify", MEGHDOOT],
         r"^error: \$CNSIM_CACHE " + NAME_300, env={"CNSIM_CACHE": "{d}/" + LONG}),
    Case("topology-export-user-file", ["topology", "build", *TOPO, "--cache", "{d}/cache",
         "--export", "{d}/four.txt"], r"^error: --export '[^']*four\.txt': a file cnsim did "
         r"not write .*give a new file name$"),
    Case("topology-export-folder", ["topology", "build", *TOPO, "--cache", "{d}/cache",
         "--export", "{d}/foreign"], r"^error: --export '[^']*foreign': is a folder"),
    Case("topology-export-no-folder", ["topology", "show", *TOPO, "--cache", "{d}/cache",
         "--export", "{d}/nowhere/t.graphml"],
         r"^error: --export '[^']*t\.graphml': its folder '[^']*nowhere' does not exist"),
    Case("topology-export-long-name", ["topology", "build", *TOPO, "--cache", "{d}/cache",
         "--export", "{d}/" + LONG + ".graphml"], r"^error: --export '[^']*\.\.\.: a name of "
         r"308 bytes"),
]  # fmt: skip


@table(BAD_CACHE)
def test_bad_cache_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)
