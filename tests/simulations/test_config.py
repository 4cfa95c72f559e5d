"""Scenario validation: bad keys and values are rejected naming key, value, allowed."""

import pytest

from cnsim.errors import ConfigError
from cnsim.simulations.config import SCHEMA, from_dict, load


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
        ({"algorithm": {"approaches": ["coalesce(unicast)"]}}, ["paint-dense or"]),
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
