"""Configuration validation: bad keys and values of the scenario, [network], [sweep] and
the benchmark options are rejected in one shape naming key, value and what is allowed."""

import re

import pytest
from typer.testing import CliRunner

from cnsim.cli import app
from cnsim.errors import ConfigError
from cnsim.network.params import NETWORK_SCHEMA, NetworkParams
from cnsim.simulations.config import (
    BENCH_OPTIONS,
    SCHEMA,
    SECTIONS,
    SWEEP_FILE,
    SWEEP_SCHEMA,
    bench_options,
    from_dict,
    load,
)
from cnsim.simulations.sweep import expand


def test_defaults_are_the_papers():
    s = from_dict({})
    assert (s.network.ip_nodes, s.network.brokers) == (20_000, 1_000)
    assert s["overlay"]["kind"] == "meghdoot"
    assert s.network.seed == s.seed  # the network's seed follows the run's
    assert s["objects"]["count"] == 10_000
    assert s["subscriptions"]["count"] == 2_000_000
    assert s["subscriptions"]["k"] == 10
    assert s.approaches == ["paint-dense", "paint-sparse"]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"objects": {"count": 0}}, ["objects.count", "0", "1"]),
        ({"objects": {"distribution": "zipf"}}, ["objects.distribution", "'zipf'", "'clustered'"]),
        ({"subscriptions": {"k": "ten"}}, ["subscriptions.k", "'ten'", "int"]),
        ({"subscriptions": {"kk": 3}}, ["subscriptions.kk", "count, distribution, k"]),
        ({"netwrk": {"brokers": 3}}, ["[netwrk]", "[objects]"]),
        ({"network": {"brokers": 0}}, ["network.brokers = 0"]),
        ({"network": {"ip_nodes": 10, "brokers": 20}}, ["network.brokers = 20", "10"]),
        ({"network": {"generater": "x"}}, ["network.generater", "generator"]),
        ({"overlay": {"kind": "chord"}}, ["overlay.kind", "'meghdoot'", "'ideal'"]),
        ({"algorithm": {"approaches": ["coalesce(unicast)"]}}, ["run over paint-dense"]),
        ({"algorithm": {"approaches": ["paint-magic"]}}, ["'paint-magic'", "paint-dense"]),
        ({"algorithm": {"approaches": ["paint-dense(0.3)"]}}, ["1/2^i", "0.3"]),
        ({"algorithm": {"approaches": []}}, ["algorithm.approaches"]),
        ({"events": {"deletes": 1.5}}, ["events.deletes", "1.5", "0.0 .. 1.0"]),
        ({"events": {"inserts": 0.6, "moves": 0.6}}, ["events.inserts + ", "1.2", "at most 1"]),
        ({"events": {"batch_size": 0}}, ["events.batch_size", "0"]),
        ({"algorithm": {"approaches": ["online", "online(paint-dense)"]}}, ["twice"]),
        ({"algorithm": {"approaches": ["paint-batch(coalesce)"]}}, ["run over paint-dense"]),
        ({"seed": True}, ["seed", "True", "int"]),
        ({"events": {"volatility": float("nan")}}, ["events.volatility", "nan", "finite"]),
        ({"network": 5}, ["network = 5", "table"]),
    ],
)
def test_bad_values_are_named(data, words):
    with pytest.raises(ConfigError) as err:
        from_dict(data, "x.toml")
    for word in words:
        assert word in str(err.value)


def test_approach_names_parse_to_canonical_names():
    names = ["paint-sparse(1/4)", "paint-dense(1)", "paint-batch", "coalesce(paint-sparse(.5))"]
    s = from_dict({"algorithm": {"approaches": names}})
    assert s.approaches == [
        "paint-sparse(0.25)",
        "paint-dense(1)",
        "paint-batch(paint-dense)",
        "coalesce(paint-sparse(0.5))",
    ]


def test_load_reports_missing_and_malformed_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("seed = = 1")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load(bad)


def test_replace_validates_and_every_key_is_documented():
    s = from_dict({}).replace(**{"subscriptions.k": 3})
    assert s["subscriptions"]["k"] == 3
    with pytest.raises(ConfigError):
        s.replace(**{"subscriptions.k": -1})
    assert all(spec.doc for keys in SCHEMA.values() for spec in keys.values())


def test_small_eps_names_round_trip():
    s = from_dict({"algorithm": {"approaches": ["paint-dense(1/512)", "paint-sparse(1/4)"]}})
    assert s.approaches == ["paint-dense(0.001953125)", "paint-sparse(0.25)"]
    assert from_dict({"algorithm": {"approaches": s.approaches}}).approaches == s.approaches


def test_network_seed_follows_the_run_seed_on_replace():
    s = from_dict({"seed": 4})
    assert s.replace(seed=9).network.seed == 9
    pinned = from_dict({"seed": 4, "network": {"seed": 1}})
    assert pinned.replace(seed=9).network.seed == 1


def test_top_level_seed_out_of_range_is_named_seed():
    with pytest.raises(ConfigError) as err:
        from_dict({"seed": 2**64}, "x.toml")
    message = str(err.value)
    assert message.startswith(f"x.toml: seed = {2**64} is out of range")
    assert "network" not in message and "0 .. 9223372036854775807" in message


@pytest.mark.parametrize("section", ["objects", "network"])
def test_a_section_given_as_a_value_must_be_a_table(section):
    with pytest.raises(ConfigError) as err:
        from_dict({section: 5}, "x.toml")
    message = str(err.value)
    assert message.startswith(
        f"x.toml: {section} = 5 must be a table; allowed: a table [{section}]"
    )
    assert "unknown" not in message and "is not a key" not in message
    assert ("brokers" if section == "network" else "count, distribution") in message


@pytest.mark.parametrize("data", [{"netwrk": {"brokers": 3}}, {"nework": 3}])
def test_unknown_names_list_every_section_including_network(data):
    with pytest.raises(ConfigError) as err:
        from_dict(data, "x.toml")
    allowed = str(err.value).split("; allowed: ")[1]
    assert allowed.split(", ") == ["seed"] + [f"[{s}]" for s in SECTIONS]
    assert "[network]" in allowed and "[objects]" in allowed


SHAPE = re.compile(
    r"^(?P<src>[^:]+): (?P<key>\S+) = (?P<value>.+?) (?P<problem>[^;]+); allowed: .+$"
)


@pytest.mark.parametrize(
    ("check", "key", "value"),
    [
        (lambda: from_dict({"subscriptions": {"k": 0}}, "src"), "subscriptions.k", "0"),
        (lambda: from_dict({"objects": {"count": "many"}}, "src"), "objects.count", "'many'"),
        (lambda: from_dict({"network": {"brokers": -2}}, "src"), "network.brokers", "-2"),
        (lambda: from_dict({"network": {"latency": "geometric"}}, "src"), "network.latency", None),
        (
            lambda: from_dict({"network": {"ip_nodes": 5, "brokers": 9}}, "src"),
            "network.brokers",
            "9",
        ),
        (
            lambda: NetworkParams.from_dict({"waxman_beta": 1.5}, "src"),
            "network.waxman_beta",
            "1.5",
        ),
        (lambda: expand({"sweep": {"repeat": 0}}, "src"), "sweep.repeat", "0"),
        (lambda: expand({"sweep": {"name": 4}}, "src"), "sweep.name", "4"),
        (lambda: bench_options({"quick": 1}, "src"), "--quick", "1"),
        (lambda: bench_options({"json": "/no/such/dir/x.json"}, "src"), "--json", None),
    ],
)
def test_every_table_reports_key_value_and_allowed_in_one_shape(check, key, value):
    with pytest.raises(ConfigError) as err:
        check()
    message = str(err.value)
    match = SHAPE.match(message)
    assert match and "\n" not in message, message
    assert (match["src"], match["key"]) == ("src", key)
    assert value is None or match["value"] == value


def test_bench_options_are_checked_before_the_benchmark_runs(tmp_path):
    missing = tmp_path / "no" / "bench.json"
    result = CliRunner().invoke(app, ["bench", "paint", "--quick", "--json", str(missing)])
    assert isinstance(result.exception, ConfigError)
    assert str(result.exception) == (
        f"cnsim bench paint: --json = {str(missing)!r} is in a folder that does not exist; "
        "allowed: a file in an existing folder"
    )
    assert bench_options({}) == {"quick": False, "full": False, "json": None}


def test_every_declared_key_is_documented():
    tables = [*SCHEMA.values(), NETWORK_SCHEMA, SWEEP_SCHEMA, SWEEP_FILE, BENCH_OPTIONS]
    assert all(spec.doc for keys in tables for spec in keys.values())
    assert list(NetworkParams.__dataclass_fields__) == list(NETWORK_SCHEMA)
    assert NetworkParams() == NetworkParams.from_dict({})
