"""Sizes nobody can run, refused by ``cnsim.simulations.sizes`` before any work with a
clear one-line answer naming the memory they would need (harness: tests/refusals.py)."""

from __future__ import annotations

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


def test_a_run_with_an_approach_apart_is_estimated_by_its_larger_task():
    from cnsim.simulations.sizes import estimate

    m = {"count": 10**7}
    both = cnsim.Scenario(subscriptions=m, run={"partitions": 8},
                          algorithm={"approaches": ["paint-dense", "ranked"]})  # fmt: skip
    task = estimate(both, spread=True)
    apart = estimate(cnsim.Scenario(subscriptions=m, algorithm={"approaches": ["ranked"]}))
    part = estimate(cnsim.Scenario(subscriptions=m, run={"partitions": 8}), spread=True)
    assert task.parts == max(apart, part, key=lambda e: e.total).parts == apart.parts
    assert task.partitions == 8 and "the apart task" in task.text()


@table(TOO_BIG)
def test_a_size_too_big_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)
