"""Bad sweep files and options ``cnsim.simulations.sweep.spec`` refuses — axes that are
empty, hold NaN or bad values, or name no key; zips of unequal lengths; unknown keys —
each with a clear one-line answer (harness: tests/refusals.py)."""

from __future__ import annotations

from refusals import Case, assert_refused, table


def _sweep(body: str) -> list[str]:
    """``cnsim sweep`` of an inline sweep file over good.toml whose [sweep] is ``body``."""
    return ["sweep", f"@base = 'good.toml'\n[sweep]\n{body}\n", "--out", "{d}/o", "--serial"]


BAD_SWEEPS: list[Case] = [
    Case(
        "sweep-repeat-0",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--repeat", "0", "--serial"],
        r"--repeat = 0",
    ),
    Case(
        "sweep-quick-missing",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--quick", "--serial"],
        r"--quick",
    ),
    Case("sweep-axis-nan", ["sweep", "{d}/sweep_nan.toml", "--out", "{d}/o", "--serial"], r"nan"),
    Case("sweep-axis-unknown", _sweep("grid = { 'objects.cnt' = [1, 2] }"), r"objects\.cnt"),
    Case(
        "sweep-axis-bad-value",
        _sweep("grid = { 'subscriptions.k' = [1, 0] }"),
        r"subscriptions\.k = 0",
    ),
    Case("sweep-axis-empty", _sweep("grid = { 'subscriptions.k' = [] }"), r"subscriptions\.k"),
    Case(
        "sweep-zip-lengths",
        _sweep("zip = { 'subscriptions.k' = [1, 2], 'objects.count' = [10] }"),
        r"zip",
    ),
    Case("sweep-unknown-key", _sweep("nmae = 'x'"), r"sweep\.nmae"),
]


@table(BAD_SWEEPS)
def test_a_bad_sweep_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)
