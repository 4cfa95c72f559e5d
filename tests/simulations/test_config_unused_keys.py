"""Keys only some scenarios read are refused where nothing would read them (a key
accepted and ignored would let a run answer another question than the one asked), and
``Scenario.replace`` takes a section's table like a file does. The cases are generated
from ``UNUSED_RULES``, so a new rule is covered as soon as it is declared; the harness
is tests/refusals.py."""

from __future__ import annotations

import re
from typing import Any

import pytest
from refusals import Case, assert_refused, table, toml_value

import cnsim
from cnsim.errors import ConfigError
from cnsim.simulations.config import SCHEMA, UNUSED_RULES, from_dict

# Where each rule's key is read: the tables that make a scenario use it.
CN_RELAX = {"algorithm": {"approaches": ["cn-relax"]}}
USED = {
    "overlay.covering": {"overlay": {"kind": "content-based"}, **CN_RELAX},
    "overlay.covering_index": {"overlay": {"kind": "content-based"}, **CN_RELAX},
    "overlay.degree": {"overlay": {"kind": "content-based"}, **CN_RELAX},
    "overlay.covering_k": {"overlay": {"kind": "content-based", "covering": "gk"}, **CN_RELAX},
    "overlay.split": {"overlay": {"kind": "meghdoot"}},
    "ranked.k": {"algorithm": {"approaches": ["ranked"]}},
    "ranked.scores": {"algorithm": {"approaches": ["ranked"]}},
    "ranked.pruning": {"algorithm": {"approaches": ["ranked"]}},
    "ranked.index": {"algorithm": {"approaches": ["ranked"]}},
    "server.count": {"overlay": {"kind": "meghdoot"}, "algorithm": {"approaches": ["unicast"]}},
    "churn.mean_lifetime": {"churn": {"lifetime": "exponential"}},
    "churn.pareto_shape": {"churn": {"lifetime": "pareto"}},
    "faults.repair_time": {"faults": {"rate": 0.01}, "overlay": {"kind": "meghdoot"}},
    "faults.replication": {"faults": {"rate": 0.01}, "overlay": {"kind": "meghdoot"}},
    "faults.detection": {"faults": {"rate": 0.01}, "overlay": {"kind": "meghdoot"}},
}
# Where it is not: every other key at the default of the cases' scenario (ideal overlay).
UNUSED = {"server.count": CN_RELAX}
SMALL = {
    "objects": {"count": 50},
    "subscriptions": {"count": 200, "k": 3},
    "events": {"count": 5},
    "network": {"ip_nodes": 300, "brokers": 20},
    "run": {"progress": False},
}


def _other_value(path: str) -> Any:
    """A valid value of ``path`` that is not its default."""
    section, name = path.split(".")
    key = SCHEMA[section][name]
    if key.allowed is not None:
        return next(v for v in key.allowed if v != key.default)
    return key.default + 1


def _merged(*tables: dict) -> dict:
    out: dict = {}
    for t in tables:
        for section, values in t.items():
            out.setdefault(section, {}).update(values)
    return out


def _toml(tables: dict) -> str:
    return "".join(
        f"[{s}]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in values.items())
        for s, values in tables.items()
    )


def test_every_rule_says_where_its_key_is_read() -> None:
    assert {r.key for r in UNUSED_RULES} == set(USED)


def _cases() -> list[Case]:
    cases = []
    for path in USED:
        section, name = path.split(".")
        value = _other_value(path)
        spoilt = _merged(UNUSED.get(path, {}), {section: {name: value}})
        cases.append(Case(
            f"unused-{path}", ["run", f"@{_toml(spoilt)}", "--out", "{d}/earlier_run"],
            rf"{re.escape(path)} = {re.escape(repr(value))} is read only when",
        ))  # fmt: skip
    return cases


@table(_cases())
def test_a_key_nothing_reads_is_refused(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)


@pytest.mark.parametrize("path", list(USED))
def test_a_key_is_accepted_where_it_is_read(path: str) -> None:
    section, name = path.split(".")
    value = _other_value(path)
    scenario = from_dict(_merged(SMALL, USED[path], {section: {name: value}}))
    assert scenario[section][name] == value


def test_replace_takes_a_section_table_like_a_file() -> None:
    base = from_dict(SMALL)
    changed = base.replace(subscriptions={"count": 300}, network={"brokers": 25})
    assert changed["subscriptions"]["count"] == 300 and changed["subscriptions"]["k"] == 3
    assert changed["network"]["brokers"] == 25 and changed["network"]["ip_nodes"] == 300
    assert changed == base.replace(**{"subscriptions.count": 300, "network.brokers": 25})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"subscriptions": 5}, r"subscriptions = 5 must be a table"),
        ({"subscriptions": {"cont": 3}}, r"subscriptions.cont = 3 is not a key"),
        ({"network": {"brokers": 0}}, r"network.brokers = 0 is out of range"),
    ],
)
def test_replace_refuses_a_bad_section_table(change: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        cnsim.Scenario(**SMALL).replace(**change)
