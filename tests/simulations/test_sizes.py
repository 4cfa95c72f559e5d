"""Sizes nobody can run, refused by ``cnsim.simulations.sizes`` before any work with a
clear one-line answer naming the memory they would need (harness: tests/refusals.py)."""

from __future__ import annotations

import pytest
from refusals import Case, assert_refused, table

import cnsim
from cnsim.errors import InputError

TOO_BIG: list[Case] = [
    Case(
        "run-objects-huge",
        ["run", "@[objects]\ncount = 1000000000000000\n", "--out", "{d}/o"],
        r"needs about .* memory.*objects",
    ),
    Case(
        "run-subscriptions-huge",
        ["run", "@[subscriptions]\ncount = 100000000000\n", "--out", "{d}/o"],
        r"needs about .* memory",
    ),
    Case(
        "run-events-huge",
        ["run", "{d}/good.toml", "--out", "{d}/o", "--events", "100000000000000"],
        r"needs about .* memory.*events",
    ),
    Case(
        "run-dry-run-huge",
        ["run", "@[objects]\ncount = 1000000000000000\n", "--out", "{d}/o", "--dry-run"],
        r"needs about",
    ),
    Case(
        "verify-huge",
        ["verify", "@[subscriptions]\ncount = 100000000000\n"],
        r"needs about .* memory",
    ),
    Case(
        "verify-events-huge",
        ["verify", "{d}/good.toml", "--events", "100000000000000"],
        r"needs about",
    ),
    Case(
        "api-run-huge",
        api=lambda d: cnsim.run(cnsim.Scenario(objects={"count": 10**15})),
        raises=InputError,
        message=r"needs about",
    ),
    Case(
        "api-verify-huge",
        api=lambda d: cnsim.verify(cnsim.Scenario(subscriptions={"count": 10**11})),
        raises=InputError,
        message=r"needs about",
    ),
    Case(
        "run-partitions-huge",
        ["run", "@[subscriptions]\ncount = 100000000000\n[run]\npartitions = 4\n",
         "--out", "{d}/o", "--dry-run"],
        r"needs about .* memory for each of 4 partitions' tasks.*raise run.partitions",
    ),
    Case(
        "verify-partitions-huge",
        ["verify", "@[subscriptions]\ncount = 100000000000\n[run]\npartitions = 4\n"],
        r"needs about .* memory for each of 4 partitions' tasks",
    ),
    Case(
        "run-master-bad",
        ["run", "{d}/good.toml", "--out", "{d}/o", "--master", "locall[2]"],
        r"--master 'locall\[2\]': not a Spark master URL",
    ),
    Case(
        "sweep-huge",
        [
            "sweep",
            "@base = 'good.toml'\n[sweep]\nname = 'h'\n"
            "grid = { 'objects.count' = [10, 1000000000000000] }\n",
            "--out",
            "{d}/o",
            "--serial",
        ],
        r"run .*needs about",
    ),
]


def test_a_partition_is_estimated_as_one_task_of_the_run():
    from cnsim.simulations.sizes import estimate

    one = estimate(cnsim.Scenario(subscriptions={"count": 10**7}))
    task = estimate(cnsim.Scenario(subscriptions={"count": 10**7}, run={"partitions": 4}),
                    spread=True)  # fmt: skip
    assert task.partitions == 4 and "each of 4 partitions' tasks" in task.text()
    assert task.parts["subscriber lists"] == one.parts["subscriber lists"] / 4
    assert task.parts["drawing every subscription"] == 10**7 * 64.0  # all drawn, then dropped
    assert task.total < one.total


def test_a_spread_run_is_estimated_by_its_tightest_task():
    """A partition's task, the apart task (ranked delivery over every subscription) or
    the server stage (Paint-Sparse's server, the content-based tables), whichever is
    tightest against its memory; a task over every subscription is refused in its own
    words (more partitions would not help)."""
    from cnsim.simulations.sizes import COSTS, _stage, estimate

    m = {"count": 10**7}
    both = cnsim.Scenario(subscriptions=m, run={"partitions": 8},
                          algorithm={"approaches": ["paint-dense", "ranked"]})  # fmt: skip
    task = estimate(both, spread=True)
    apart = estimate(cnsim.Scenario(subscriptions=m, algorithm={"approaches": ["ranked"]}))
    part = estimate(cnsim.Scenario(subscriptions=m, run={"partitions": 8}), spread=True)
    assert task.parts == apart.parts and apart.total > part.total
    assert task.partitions == 8 and task.task == "apart" and "the apart task" in task.text()
    # the server stage, before the partitions: Paint-Sparse's server over every
    # subscription, the content-based tables over every subscription; none without either
    sparse = cnsim.Scenario(subscriptions=m, run={"partitions": 8},
                            algorithm={"approaches": ["paint-sparse"]})  # fmt: skip
    server = _stage(sparse, None, COSTS)
    assert server.parts["server stage"] == 10**7 * COSTS["stage_server"]
    dense = cnsim.Scenario(subscriptions=m, run={"partitions": 8},
                           algorithm={"approaches": ["paint-dense", "unicast"]})  # fmt: skip
    assert _stage(dense, None, COSTS) is None
    tree = cnsim.Scenario(subscriptions=m, run={"partitions": 4}, overlay={"kind": "content-based"},
                          algorithm={"approaches": ["cn-relax"]})  # fmt: skip
    tables = _stage(tree, None, COSTS)
    assert tables.parts["server stage"] == 10**7 * COSTS["stage_tables"]
    stage = estimate(tree, spread=True)  # 4 GB of tables against all of the memory
    assert stage.task == "stage" and stage.parts == tables.parts
    assert "the server stage" in stage.text() and "a run over 4 partitions" in stage.text()


def test_a_task_over_every_subscription_that_does_not_fit_is_refused_in_its_words(
    monkeypatch,
):
    from cnsim.errors import InputError
    from cnsim.simulations import sizes

    monkeypatch.setattr(sizes, "available_memory", lambda: 8e9)
    tree = cnsim.Scenario(subscriptions={"count": 10**8}, run={"partitions": 64},
                          overlay={"kind": "content-based"},
                          algorithm={"approaches": ["cn-relax"]})  # fmt: skip
    with pytest.raises(InputError) as err:
        sizes.check_fits(tree, spread=True)
    text = str(err.value)
    assert "for the server stage (every subscription, before the partitions)" in text
    assert "use a machine with more memory" in text and "\n" not in text


@table(TOO_BIG)
def test_a_size_too_big_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)
