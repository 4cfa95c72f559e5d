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


@table(TOO_BIG)
def test_a_size_too_big_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)
