"""Spark masters ``cnsim.simulations.sweep.executors`` refuses — malformed URLs and an
unreachable cluster — each with a clear one-line answer (harness: tests/refusals.py)."""

from __future__ import annotations

from refusals import Case, assert_refused, table

import cnsim
from cnsim.errors import InputError

BAD_MASTERS: list[Case] = [
    Case(
        "sweep-master-bogus",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--master", "bogus://x"],
        r"--master 'bogus://x'.*not a Spark master URL",
    ),
    Case(
        "sweep-master-local0",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--master", "local[0]"],
        r"local\[0\]",
    ),
    Case(
        "sweep-master-noport",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--master", "spark://host"],
        r"spark://host.*not a Spark master",
    ),
    Case(
        "sweep-master-empty",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--master", ""],
        r"--master ''",
    ),
    Case(
        "sweep-master-unreachable",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--master", "spark://127.0.0.1:9"],
        r"spark://127\.0\.0\.1:9.*cannot reach.*local\[\*\]",
    ),
    Case(
        "api-sweep-master-bogus",
        api=lambda d: cnsim.sweep(d / "sweep.toml", d / "o", master="yarn://x"),
        raises=InputError,
        message=r"yarn://x",
    ),
]


@table(BAD_MASTERS)
def test_a_bad_spark_master_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)
