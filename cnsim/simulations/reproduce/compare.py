"""Our results beside the paper's: the comparison of every printed value
(:func:`comparison`, written as ``comparison.csv``) and the verdict on every claim
(:func:`verdicts`, ``claims.csv``), plus the small helpers the claims are written with.

Ours is the mean over a sweep's repeats of the rows at the value's parameters, with its
90% confidence interval: each run's summary gives the half-width of its mean by batch
means (``ci90_…``, :func:`cnsim.simulations.metrics.interval`), and the mean of R
independent repeats has the half-width ``sqrt(sum of the squared half-widths) / R``.
A maximum has no interval from one run; with two or more repeats and no run interval,
Student's t over the repeats' values gives one. The status follows from these columns
alone (:func:`status`): with an interval, the paper's value inside it or within
``slack`` (6%) of its nearer end is "consistent"; without one, within ``tolerance``
(5%) of ours "agrees". A value whose parameters the sweep did not run (a ``--quick``
grid is smaller) is "not run"; in a ``--quick`` reproduction every row is marked
``scale = quick``: the sizes are not the paper's, so deviations say nothing about
fidelity, only that the pipeline works.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

from cnsim.simulations.metrics import CATALOG, INTERVAL, student_half_width
from cnsim.simulations.reproduce.catalog import PaperValue, Reproduction, Results, Verdict

COLUMNS = (
    "item", "approach", "metric", "parameters", "paper", "legible", "provenance", "reading",
    "chosen", "ours", "ci_low", "ci_high", "expected", "ratio", "deviation_pct", "status",
    "runs", "events", "scale", "why", "cause",
)  # fmt: skip


def rows_at(results: Results, sweep: str, where: dict[str, float]) -> pd.DataFrame:
    """The successful rows of ``sweep`` at parameters ``where`` (empty if the sweep did
    not run there, or is missing)."""
    frame = results.get(sweep)
    if frame is None or frame.empty:
        return pd.DataFrame()
    mask = np.ones(len(frame), dtype=bool)
    for column, value in where.items():
        if column not in frame.columns:
            return pd.DataFrame()
        mask &= np.isclose(pd.to_numeric(frame[column], errors="coerce"), value)
    return frame[mask]


def interval_key(metric: str) -> str | None:
    """The summary key of the interval of summary key ``metric`` (``mean_x`` ->
    ``ci90_x``; a whole-run value such as ``redundancy`` -> ``ci90_redundancy``), or None
    where it has none (a maximum, a total, a percentile)."""
    name = metric.removeprefix("mean_")
    whole_run = metric == name and name in CATALOG and "run" in CATALOG[name].aggregates
    if name in CATALOG and CATALOG[name].has_interval and (metric != name or whole_run):
        return CATALOG[name].key(INTERVAL)
    return None


def half_width(rows: pd.DataFrame, metric: str) -> float:
    """The 90% half-width of the mean of ``metric`` over ``rows`` (one per repeat; see
    the module docstring); NaN where there is none."""
    key = interval_key(metric)
    if key is not None and key in rows.columns and rows[key].notna().all() and len(rows):
        return float(np.sqrt((rows[key].astype(float) ** 2).sum()) / len(rows))
    if len(rows) >= 2:
        return student_half_width(rows[metric])
    return math.nan


def ours(results: Results, value: PaperValue) -> tuple[float, float, int, int]:
    """Our mean of ``value``'s metric at its parameters, its 90% half-width, how many
    runs it averages and how many events (batches) they hold in all."""
    rows = rows_at(results, value.sweep, dict(value.where))
    rows = rows[rows["approach"] == value.approach] if len(rows) else rows
    if rows.empty or value.metric not in rows.columns or rows[value.metric].isna().all():
        return math.nan, math.nan, 0, 0
    events = int(rows["batches"].sum()) if "batches" in rows.columns else 0
    return float(rows[value.metric].mean()), half_width(rows, value.metric), len(rows), events


def status(row: dict, reproduction: Reproduction, quick: bool) -> str:
    """A comparison row's status, from its own columns: ``runs``, ``legible``, ``paper``,
    ``ours``, ``ci_low``, ``ci_high`` (see the module docstring)."""
    paper, mean, low, high = row["paper"], row["ours"], row["ci_low"], row["ci_high"]
    if row["runs"] == 0:
        return "not run" + (" (--quick grid)" if quick else "")
    if not row["legible"]:
        return "paper's reading uncertain"
    if not math.isnan(low):
        if low <= paper <= high:
            return "consistent (inside the interval)"
        end = low if paper < low else high
        off = abs(paper - end) / abs(end) if end else math.inf
        if off <= reproduction.slack:
            return f"consistent (within {reproduction.slack:.0%} of the interval)"
        return f"differs by {mean / paper - 1:+.0%} (outside the interval)" if paper else (
            f"paper 0, ours {mean:.3g} (outside the interval)")  # fmt: skip
    if paper == 0:
        return "agrees (no interval)" if mean == 0 else f"paper 0, ours {mean:.3g} (no interval)"
    if abs(mean / paper - 1) <= reproduction.tolerance:
        return f"agrees within {reproduction.tolerance:.0%} (no interval)"
    return f"differs by {mean / paper - 1:+.0%} (no interval)"


def _expected(reproduction: Reproduction, value: PaperValue) -> float:
    """The value's noise-free expectation, NaN where the reproduction computes none."""
    found = reproduction.expected(value) if reproduction.expected else None
    return math.nan if found is None else float(found)


def comparison(reproduction: Reproduction, results: Results, quick: bool) -> pd.DataFrame:
    """One row per printed value and reading (the chosen one first, ``chosen``; the
    other plausible readings after it): the paper's, ours with its interval, their
    ratio and a status."""
    out = []
    for printed in reproduction.values:
        for value, chosen in readings(printed):
            out.append(_compared(reproduction, results, quick, value, chosen))
    return pd.DataFrame(out, columns=list(COLUMNS))


def readings(value: PaperValue) -> list[tuple[PaperValue, bool]]:
    """The value as chosen, then as each other reading counts it (its metric, and where
    the reading says so its approach or sweep, replaced; the chosen reading's reason
    and cause are its own)."""
    return [(value, True)] + [
        (replace(value, metric=r.metric, approach=r.approach or value.approach,
                 sweep=r.sweep or value.sweep, reading=r.name, why=r.why, cause=""), False)
        for r in value.others
    ]  # fmt: skip


def _compared(reproduction, results, quick: bool, value: PaperValue, chosen: bool) -> dict:
    """One row of :func:`comparison`."""
    mean, hw, runs, events = ours(results, value)
    ratio = mean / value.value if value.value and not math.isnan(mean) else math.nan
    row = {
        "item": value.item,
        "approach": value.approach,
        "metric": value.metric,
        "parameters": parameters(dict(value.where)),
        "paper": value.value,
        "legible": value.legible,
        "provenance": value.provenance,
        "reading": value.reading,
        "chosen": chosen,
        "ours": mean,
        "ci_low": mean - hw,
        "ci_high": mean + hw,
        # (only for values run: a few seconds each)
        "expected": _expected(reproduction, value) if runs else math.nan,
        "ratio": ratio,
        "deviation_pct": 100 * (ratio - 1) if not math.isnan(ratio) else math.nan,
        "runs": runs,
        "events": events,
        "scale": "quick" if quick else "paper",
        "why": value.why,
    }
    row["status"] = status(row, reproduction, quick)
    row["cause"] = cause(row, value, reproduction)
    return row


def cause(row: dict, value: PaperValue, reproduction: Reproduction) -> str:
    """Why ours differs from the paper, where it does and a cause is known: the noise-free
    expectation differing from the paper too (so not this run's noise), else the value's
    declared cause."""
    if not row["status"].startswith("differs") and not row["status"].startswith("paper 0"):
        return ""
    expected, paper = row["expected"], row["paper"]
    if not math.isnan(expected) and paper and abs(expected / paper - 1) > reproduction.slack:
        off = (f"the noise-free expectation, {expected:,.4g}, is {expected / paper - 1:+.0%} "
               "from the paper too: not this run's noise")  # fmt: skip
        return "; ".join(filter(None, (off, value.cause)))
    return value.cause


def verdicts(reproduction: Reproduction, results: Results) -> pd.DataFrame:
    """One row per claim: the quote, whether it holds on our data, the evidence."""
    out = []
    for claim in reproduction.claims:
        try:
            verdict = claim.test(results)
        except (KeyError, ValueError, ZeroDivisionError) as exc:  # data too thin to test
            verdict = Verdict(None, f"not testable on these results ({exc})")
        holds = {True: "yes", False: "no", None: "untested"}[verdict.holds]
        out.append(
            {"item": claim.item, "claim": claim.quote, "holds": holds, "evidence": verdict.evidence}
        )
    return pd.DataFrame(out, columns=["item", "claim", "holds", "evidence"])


def parameters(where: dict[str, float]) -> str:
    """``{"subscriptions.k": 10, "subscriptions.count": 5e6}`` -> ``"k=10, m=5,000,000"``."""
    short = {"subscriptions.k": "k", "subscriptions.count": "m", "objects.count": "n"}
    return ", ".join(f"{short.get(c, c)}={v:,.0f}" for c, v in where.items())


# ------------------------------------------------------------ helpers for the claims


def curves(
    results: Results,
    sweep: str,
    metric: str,
    x: str,
    where: dict[str, float] | None = None,
    by: str = "approach",
) -> pd.DataFrame:
    """``metric`` against ``x`` (rows), one column per ``by`` value (mean over repeats),
    at parameters ``where``; raises KeyError when the sweep or a column is missing."""
    frame = rows_at(results, sweep, where or {}) if where else results[sweep]
    if frame.empty:
        raise KeyError(f"{sweep}: no runs at {parameters(where or {})}")
    for column in (metric, x, by):
        if column not in frame.columns:
            raise KeyError(f"{sweep}: no column {column!r}")
    return frame.pivot_table(index=x, columns=by, values=metric, aggfunc="mean").sort_index()


def spread(series: pd.Series) -> float:
    """max / min of a positive series (1 = constant)."""
    return float(series.max() / series.min())


def increasing(series: pd.Series, slack: float = 0.0) -> bool:
    """Every step up (each value at least ``1 − slack`` times the one before)."""
    values = series.to_numpy(dtype=float)
    return bool(np.all(values[1:] >= values[:-1] * (1 - slack)))


def listing(series: pd.Series, fmt: str = ".3g", name: str = "") -> str:
    """``"k=1: 1.02, k=5: 1.04"``-style text of a series."""
    label = f"{name}=" if name else ""
    return ", ".join(f"{label}{_x(i)}: {v:{fmt}}" for i, v in series.items())


def _x(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else str(value)
