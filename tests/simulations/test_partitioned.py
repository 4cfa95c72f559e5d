"""A run spread over Spark tasks (``run.partitions``, cnsim/simulations/partitioned.py)
gives the one-process run's outputs — ``events.parquet``, ``brokers.parquet``,
``summary.json`` — but for wall times, for every kind, network and approach it spreads."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from cnsim.errors import ConfigError, InputError
from cnsim.simulations.config import Scenario
from cnsim.simulations.partitioned import Plan, simulate_partitioned
from cnsim.simulations.runner import simulate
from cnsim.simulations.seeds import Seeds
from cnsim.simulations.world import build_workload

WALL = ("setup_time_s", "total_time_s", "cpu_time_s", "execution")
EXACT = ["paint-dense", "paint-sparse", "unicast", "cn-relax"]


def scenario(partitions: int = 1, **sections) -> Scenario:
    base = {
        "seed": 5,
        "objects": {"count": 250},
        "subscriptions": {"count": 2500, "k": 3},
        "events": {"count": 40},
        "algorithm": {"approaches": EXACT},
        "network": {"ip_nodes": 300, "brokers": 30},
    }
    for name, keys in sections.items():
        base[name] = {**base.get(name, {}), **keys}
    base["run"] = {**base.get("run", {}), "progress": False, "partitions": partitions}
    return Scenario(**base)


def unwalled(summary: dict) -> dict:
    out = {k: v for k, v in summary.items() if k not in WALL}
    out["approaches"] = {
        name: {k: v for k, v in s.items() if not k.endswith("time_s")}
        for name, s in summary["approaches"].items()
    }
    return out


def assert_same(one, spread) -> None:
    wall = [c for c in one.events.columns if c.endswith("time_s")]
    pd.testing.assert_frame_equal(one.events.drop(columns=wall), spread.events.drop(columns=wall))
    for name in ("brokers", "servers"):
        if getattr(one, name) is None:
            assert getattr(spread, name) is None, name
        else:
            pd.testing.assert_frame_equal(getattr(one, name), getattr(spread, name))
    assert unwalled(one.summary) == unwalled(spread.summary)


@pytest.fixture(scope="module")
def spark():
    from cnsim.simulations.sweep import spark_session, stop_spark

    session = spark_session("local[2]", app_name="cnsim-test-partitions")
    yield session
    stop_spark(session)


CASES = {
    "1-d, Meghdoot, P=3": (3, {"algorithm": {"approaches": [*EXACT, "unicast-lazy",
                                                            "paint-sparse(0.5)"]}}),
    "1-d, ideal, P=2": (2, {"overlay": {"kind": "ideal"}}),
    "more partitions than zones, some empty": (40, {}),
    "1.5-d, P=2": (2, {"subscriptions": {"kind": "range-1.5d", "count": 1500}}),
    "box d=2, P=3": (3, {"subscriptions": {"kind": "box", "dims": 2, "count": 1500}}),
    "batches, load split, inserts and deletes, P=2": (2, {
        "events": {"batch_size": 4, "inserts": 0.1, "deletes": 0.1, "moves": 0.1},
        "overlay": {"split": "load"},
        "algorithm": {"approaches": ["paint-batch(paint-sparse)", "coalesce(paint-dense)",
                                     "online(paint-sparse(0.5))", "cn-relax"]},
    }),
    "subscribers joining and leaving, P=3": (3, {
        "churn": {"joins": 5.0, "lifetime": "exponential", "mean_lifetime": 20.0},
        "algorithm": {"approaches": [*EXACT, "unicast-lazy", "paint-sparse(0.5)"]},
    }),
    "churn over the ideal CN, P=2": (2, {
        "churn": {"joins": 4.0, "lifetime": "pareto", "mean_lifetime": 25.0},
        "overlay": {"kind": "ideal"},
    }),
    "brokers failing, subscriptions lost, P=3": (3, {
        "faults": {"rate": 0.1, "repair_time": 10.0, "detection": 3},
    }),
    "churn beside failures with replicas, batches, P=3": (3, {
        "churn": {"joins": 3.0, "lifetime": "pareto", "mean_lifetime": 30.0},
        "faults": {"rate": 0.1, "repair_time": 8.0, "detection": 2, "replication": 1},
        "events": {"batch_size": 3, "inserts": 0.1, "deletes": 0.1},
    }),
    "arrivals answered by a replayed server alone, P=3": (3, {
        "churn": {"joins": 6.0, "lifetime": "exponential", "mean_lifetime": 30.0},
        "overlay": {"split": "load"}, "events": {"inserts": 0.1},
        "faults": {"rate": 0.1, "repair_time": 5.0, "detection": 2},
        "algorithm": {"approaches": ["paint-sparse", "cn-relax", "paint-sparse(0.5)"]},
    }),
    "boxes, arrivals answered by a replayed server alone, P=2": (2, {
        "subscriptions": {"kind": "box", "dims": 2, "count": 1500},
        "churn": {"joins": 4.0, "lifetime": "exponential", "mean_lifetime": 20.0},
        "faults": {"rate": 0.1, "repair_time": 5.0, "detection": 2},
        "algorithm": {"approaches": ["paint-sparse", "cn-relax"]},
    }),
    "several servers, P=3": (3, {
        "server": {"count": 3},
        "algorithm": {"approaches": ["paint-dense", "paint-sparse", "cn-relax",
                                     "paint-sparse(0.5)"]},
    }),
    "several servers over the ideal CN, batches, P=2": (2, {
        "server": {"count": 4}, "overlay": {"kind": "ideal"}, "events": {"batch_size": 3},
        "algorithm": {"approaches": ["paint-batch(paint-sparse)", "coalesce(paint-dense)",
                                     "cn-relax"]},
    }),
    "several servers, Unicast's walks, subscribers joining and leaving, P=3": (3, {
        "server": {"count": 3},
        "churn": {"joins": 5.0, "lifetime": "exponential", "mean_lifetime": 20.0},
        "algorithm": {"approaches": [*EXACT, "unicast-lazy"]},
    }),
    "several servers over the ideal CN, Unicast first, inserts and deletes, P=2": (2, {
        "server": {"count": 4}, "events": {"inserts": 0.1, "deletes": 0.1},
        "churn": {"joins": 3.0, "lifetime": "pareto", "mean_lifetime": 30.0},
        "overlay": {"kind": "ideal"},
        "algorithm": {"approaches": ["unicast", "paint-sparse", "cn-relax"]},
    }),
    "content-based overlay, batch replay, P=3": (3, {
        "overlay": {"kind": "content-based"}, "algorithm": {"approaches": ["cn-relax"]},
        "events": {"inserts": 0.1, "deletes": 0.1},
    }),
    "content-based overlay, subscribers joining and leaving, P=3": (3, {
        "overlay": {"kind": "content-based", "covering": "poset"},
        "algorithm": {"approaches": ["cn-relax"]}, "subscriptions": {"count": 1200},
        "churn": {"joins": 6.0, "lifetime": "exponential", "mean_lifetime": 15.0},
        "events": {"batch_size": 2},
    }),
    "content-based overlay, brokers and links failing, batches, P=3": (3, {
        "overlay": {"kind": "content-based"}, "algorithm": {"approaches": ["cn-relax"]},
        "subscriptions": {"count": 1200}, "events": {"batch_size": 2},
        "faults": {"rate": 0.1, "repair_time": 8.0, "detection": 2, "link_rate": 0.05},
    }),
    "content-based overlay, G_k covering, ranked apart, batches, P=2": (2, {
        "overlay": {"kind": "content-based", "covering": "gk", "covering_k": 2},
        "algorithm": {"approaches": ["cn-relax", "ranked"]}, "events": {"batch_size": 3},
        "subscriptions": {"count": 1200},
    }),
    "ranked delivery apart, threshold pruning, joins and leaves, P=3": (3, {
        "algorithm": {"approaches": ["paint-dense", "ranked", "cn-relax"]},
        "ranked": {"k": 4, "commands": 12, "scores": "length"},
    }),
    "ranked delivery apart, the flood, several servers, P=2": (2, {
        "algorithm": {"approaches": ["ranked", "unicast", "paint-sparse"]},
        "ranked": {"pruning": "flood"}, "server": {"count": 2},
    }),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_partitioned_run_is_the_one_process_run(spark, case):
    partitions, sections = CASES[case]
    one = simulate(scenario(**sections))
    spread = simulate_partitioned(scenario(partitions, **sections), spark=spark)
    assert_same(one, spread)
    execution = spread.summary["execution"]
    assert execution["partitions"] == partitions
    held = sum(execution["subscriptions"])  # [churn]: the joining ones too
    assert held == one.summary["subscriptions"] + (
        one.summary["churn"]["joined"] if "churn" in sections else 0
    ) or "batch_size" in sections.get("events", {})  # (joining and leaving in one batch)
    for section, column in (("churn", "joins"), ("churn", "leaves"), ("faults", "repair_msgs")):
        assert section not in sections or one.events[column].sum() > 0  # it did happen


def test_one_partition_through_spark_is_the_one_process_run(spark):
    one = simulate(scenario())
    assert_same(one, simulate_partitioned(scenario(), spark=spark))


@pytest.mark.parametrize("overlay", ["meghdoot", "ideal"])
@pytest.mark.parametrize("partitions", [1, 2, 5, 16])
def test_plan_places_every_subscription_once(overlay, partitions):
    sc = scenario(partitions, overlay={"kind": overlay})
    w = build_workload(sc, Seeds(sc.seed))
    plan, zone = Plan.draw(sc, w)
    m = sc["subscriptions"]["count"]
    ids = [plan.ids(p, zone) for p in range(partitions)]
    assert [len(i) for i in ids] == list(plan.sizes)
    assert np.array_equal(np.sort(np.concatenate(ids)), np.arange(m))
    # balanced: no partition holds more than m / P and the largest zone beyond it
    largest = 0 if zone is None else int(np.bincount(zone).max())
    assert max(plan.sizes) <= -(-m // partitions) + largest
    assert (zone is None) == (overlay == "ideal")


@pytest.mark.parametrize(
    ("sections", "names"),
    [
        ({"run": {"mode": "timed"}}, "counting mode"),
        ({"overlay": {"kind": "content-based"}, "algorithm": {"approaches": ["cn-relax"]},
          "subscriptions": {"kind": "box", "dims": 2}}, "subscriptions.kind = 'box'"),
        ({"algorithm": {"approaches": ["ranked"]}}, "are all 'ranked'"),
        ({"subscriptions": {"count": 3}}, "subscriptions.count = 3"),
    ],
)  # fmt: skip
def test_what_cannot_be_spread_is_refused_in_one_line(sections, names):
    with pytest.raises(ConfigError) as err:
        scenario(4, **sections)
    text = str(err.value)
    assert "run.partitions = 4" in text and names in text and "\n" not in text


VERIFY_CASES = {
    "1-d, Meghdoot": {"algorithm": {"approaches": [*EXACT, "paint-sparse(0.5)"]}},
    "box d=2, ideal": {"subscriptions": {"kind": "box", "dims": 2, "count": 800},
                       "overlay": {"kind": "ideal"}},
    "batches": {"events": {"batch_size": 3},
                "algorithm": {"approaches": ["paint-batch(paint-sparse)", "cn-relax"]}},
    "content-based overlay, churn": {
        "overlay": {"kind": "content-based"}, "algorithm": {"approaches": ["cn-relax"]},
        "churn": {"joins": 3.0, "lifetime": "pareto", "mean_lifetime": 20.0}},
    "ranked delivery apart": {"algorithm": {"approaches": ["paint-sparse", "ranked"]},
                              "ranked": {"k": 3}},
    "churn and failures": {"churn": {"joins": 3.0, "lifetime": "pareto", "mean_lifetime": 30.0},
                           "faults": {"rate": 0.1, "repair_time": 8.0, "detection": 2},
                           "events": {"batch_size": 3, "inserts": 0.1, "deletes": 0.1}},
}  # fmt: skip


@pytest.mark.parametrize("case", list(VERIFY_CASES))
def test_verify_checks_each_partition_against_the_oracle(spark, case):
    from cnsim.simulations.partitioned import verify_partitioned
    from cnsim.simulations.verify import verify

    sections = {**VERIFY_CASES[case], "events": {"count": 15,
                                                 **VERIFY_CASES[case].get("events", {})}}
    whole = verify(scenario(**sections))
    spread = verify_partitioned(scenario(3, **sections), spark=spark)
    assert whole.ok and spread.ok, spread.text()
    assert spread.text() == whole.text()
    assert spread.minimum == whole.minimum and spread.claims == whole.claims


def test_cnsim_run_with_partitions_writes_the_one_process_outputs(spark, tmp_path):
    from typer.testing import CliRunner

    from cnsim.cli import app

    toml = tmp_path / "s.toml"
    toml.write_text(
        "seed = 2\n[objects]\ncount = 100\n[subscriptions]\ncount = 800\nk = 2\n"
        "[events]\ncount = 12\n[network]\nip_nodes = 200\nbrokers = 20\n"
        "[run]\nprogress = false\npartitions = 2\n"
    )
    got = CliRunner().invoke(app, ["run", str(toml), "--out", str(tmp_path / "o")])
    assert got.exit_code == 0, got.output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["execution"]["partitions"] == 2
    one = simulate(Scenario.from_toml(toml))
    events = pd.read_parquet(tmp_path / "o" / "events.parquet")
    wall = [c for c in events.columns if c.endswith("time_s")]
    pd.testing.assert_frame_equal(one.events.drop(columns=wall), events.drop(columns=wall))


def test_partitions_that_disagree_on_a_value_counted_once_stop_the_run():
    from cnsim.algorithms.registry import parse
    from cnsim.errors import CnsimError
    from cnsim.simulations.metrics import CATALOG
    from cnsim.simulations.partitioned import _combine

    values = np.array([[3, 4], [3, 5]])
    dense, unicast = parse("paint-dense"), parse("unicast")
    assert list(_combine(CATALOG["delivered_msgs"], dense, values)) == [6, 9]
    assert list(_combine(CATALOG["server_out_msgs"], unicast, values)) == [6, 9]  # own: added
    assert list(_combine(CATALOG["calls_min_y"], unicast, values)) == [6, 9]
    assert list(_combine(CATALOG["server_time_s"], dense, values)) == [3, 5]  # the slowest
    # own: its first_k calls, alike in every partition, are counted in the first alone
    assert list(_combine(CATALOG["calls_first_k"], unicast, np.array([[2, 2], [0, 0]]))) == [2, 2]
    assert list(_combine(CATALOG["calls_first_k"], dense, np.array([[2, 2], [2, 2]]))) == [2, 2]
    for metric, spec in (("server_out_msgs", dense), ("calls_first_k", dense),
                         ("publish_ip_bytes", unicast)):  # fmt: skip
        with pytest.raises(CnsimError, match=f"partitions disagree on {metric}"):
            _combine(CATALOG[metric], spec, values)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("4g", 4 * 2**30), ("512m", 512 * 2**20), ("2048", 2048 * 2**20), ("1.5G", 1.5 * 2**30),
     (None, None), ("lots", None)],
)  # fmt: skip
def test_spark_memory_settings_read_as_bytes(text, expected):
    from cnsim.simulations.partitioned import _bytes

    assert _bytes(text) == expected


def test_partitions_add_up_pairwise_and_a_disagreement_reaches_the_driver():
    """Spark reduces the partitions' results in a tree with ``_merged``: any grouping
    gives the run's columns, memory and broker counts; values that must agree and do
    not are kept as a message for the driver to raise, not lost in Spark's trace."""
    from cnsim.simulations.partitioned import _merged, _metrics

    sc = scenario(3, algorithm={"approaches": ["paint-dense", "unicast"]})
    merge, names = _merged(sc), [m.name for m in _metrics(sc)]
    out, delivered = names.index("server_out_msgs"), names.index("delivered_msgs")

    def part(index: int, sent: float) -> dict:
        columns = {a: np.ones((2, len(names))) for a in ("paint-dense", "unicast")}
        columns["paint-dense"][:, out] = sent
        return {"columns": columns, "held": np.array([1, 2]),
                "handled": {a: np.array([3, 3]) for a in columns},
                "memory": dict.fromkeys(columns, 10), "losses": None, "servers": None,
                "bound_setup": None, "routes": None, "disagree": [],
                "tasks": [{"index": index}]}  # fmt: skip

    apart = {"columns": {"ranked": np.full((2, len(names)), 7.0)}, "held": None,
             "handled": {"ranked": np.array([4, 4])}, "memory": {"ranked": 0},
             "losses": None, "servers": None, "bound_setup": {"bound_msgs": 9}, "routes": None,
             "disagree": [], "tasks": [{"index": -1}]}  # fmt: skip

    left = merge(merge(part(0, 5), part(1, 5)), part(2, 5))
    right = merge(part(0, 5), merge(part(1, 5), part(2, 5)))
    for run in (left, right):
        assert not run["disagree"] and [t["index"] for t in run["tasks"]] == [0, 1, 2]
        assert run["columns"]["paint-dense"][0, delivered] == 3  # deliveries add up
        assert run["columns"]["paint-dense"][0, out] == 5  # the server's: once
        assert run["columns"]["unicast"][0, out] == 3  # own: added
        assert list(run["held"]) == [3, 6] and run["memory"]["unicast"] == 30
        assert list(run["handled"]["paint-dense"]) == [3, 3]
        assert list(run["handled"]["unicast"]) == [9, 9]
    # an approach run apart (ranked delivery, every subscription in one task) as it is
    run = merge(part(0, 5), merge(apart, part(1, 5)))
    assert run["columns"]["ranked"][0, delivered] == 7 and list(run["held"]) == [2, 4]
    assert list(run["handled"]["ranked"]) == [4, 4] and run["bound_setup"]["bound_msgs"] == 9
    assert run["columns"]["paint-dense"][0, delivered] == 2 and not run["disagree"]
    bad = merge(part(0, 5), part(1, 6))
    assert bad["disagree"] and "server_out_msgs of paint-dense" in bad["disagree"][0]


@pytest.mark.parametrize("approaches", [["paint-dense"], ["paint-sparse"]])
def test_an_error_a_task_meets_is_the_one_process_error(spark, approaches):
    """What a run finds it cannot do (here: a box budget too small for an event), in a
    partition's task or in the server task, stops the spread run with the error one
    process raises, in its words — not Spark's trace."""
    sections = {"subscriptions": {"kind": "box", "dims": 3, "count": 1500, "k": 5},
                "algorithm": {"approaches": approaches, "box_budget": 20}}  # fmt: skip
    with pytest.raises(ConfigError) as one:
        simulate(scenario(**sections))
    with pytest.raises(ConfigError) as spread:
        simulate_partitioned(scenario(2, **sections), spark=spark)
    assert str(spread.value) == str(one.value) and "box_budget" in str(one.value)


@pytest.mark.parametrize(
    ("sections", "says"),
    [
        ({"algorithm": {"approaches": ["paint-dense"]}},
         "each of 4 partitions needs about .* raise run.partitions or that memory"),
        ({"overlay": {"kind": "content-based"}, "algorithm": {"approaches": ["cn-relax"]}},
         r"the server stage \(every subscription, before the partitions\) needs about .* "
         "raise that memory or lower subscriptions.count"),
    ],
)  # fmt: skip
def test_a_task_beyond_the_executors_python_memory_is_refused_before_any(sections, says):
    """``spark.executor.pyspark.memory`` below the largest task's estimate: refused in one
    line naming that task, and whether more partitions would help."""
    from cnsim.simulations.partitioned import _check_executor_memory
    from cnsim.simulations.sizes import spread_tasks

    class Conf:  # what the check reads of a SparkContext
        def getConf(self):
            return self

        def get(self, key):
            return {"spark.executor.pyspark.memory": "100m"}.get(key)

    sc = scenario(4, subscriptions={"count": 400_000}, **sections)
    largest = max(spread_tasks(sc), key=lambda e: e.total)
    with pytest.raises(InputError) as err:
        _check_executor_memory(sc, Conf(), largest)
    assert re.search(says, str(err.value)) and "\n" not in str(err.value)
