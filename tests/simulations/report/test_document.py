"""Report sources ``cnsim.simulations.report.document`` refuses — missing, a file, a
folder of something else, corrupt or fake results — each with a clear one-line answer
(harness: tests/refusals.py)."""

from __future__ import annotations

from refusals import Case, assert_refused, table

import cnsim
from cnsim.errors import InputError

BAD_SOURCES: list[Case] = [
    Case(
        "report-src-missing",
        ["report", "{d}/nothing", "--out", "{d}/r"],
        r"nothing.*does not exist",
    ),
    Case("report-src-file", ["report", "{d}/a_file", "--out", "{d}/r"], r"a_file.*is a file"),
    Case(
        "report-src-foreign", ["report", "{d}/foreign", "--out", "{d}/r"], r"foreign.*neither a run"
    ),
    Case("report-src-corrupt", ["report", "{d}/bad_run", "--out", "{d}/r"], r"bad_run"),
    Case("report-src-fake-run", ["report", "{d}/earlier_run", "--out", "{d}/r"], r"earlier_run"),
    Case(
        "report-src-fake-sweep", ["report", "{d}/earlier_sweep", "--out", "{d}/r"], r"earlier_sweep"
    ),
    Case(
        "api-report-missing",
        api=lambda d: cnsim.report(d / "nothing", d / "r"),
        raises=InputError,
        message=r"nothing",
    ),
]


@table(BAD_SOURCES)
def test_a_bad_report_source_is_refused_clearly(
    case: Case, bad_inputs, capsys, monkeypatch
) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)
