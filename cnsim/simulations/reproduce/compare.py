"""Our results beside the paper's: the comparison of every printed value
(:func:`comparison`, written as ``comparison.csv``) and the verdict on every claim
(:func:`verdicts`, ``claims.csv``), plus the small helpers the claims are written with.

Ours is the mean over a sweep's repeats of the rows at the value's parameters. A value
whose parameters the sweep did not run (a ``--quick`` grid is smaller) is "not run"; in
a ``--quick`` reproduction every row is marked ``scale = quick``: the sizes are not the
paper's, so deviations say nothing about fidelity, only that the pipeline works.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from cnsim.simulations.reproduce.catalog import PaperValue, Reproduction, Results, Verdict

COLUMNS = (
    "item", "approach", "metric", "parameters", "paper", "legible", "ours", "ratio",
    "deviation_pct", "status", "runs", "scale",
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


def ours(results: Results, value: PaperValue) -> tuple[float, int]:
    """Our mean of ``value``'s metric at its parameters, and how many runs it averages."""
    rows = rows_at(results, value.sweep, dict(value.where))
    rows = rows[rows["approach"] == value.approach] if len(rows) else rows
    if rows.empty or value.metric not in rows.columns:
        return math.nan, 0
    return float(rows[value.metric].mean()), len(rows)


def comparison(reproduction: Reproduction, results: Results, quick: bool) -> pd.DataFrame:
    """One row per printed value: the paper's, ours, their ratio and a status."""
    out = []
    for value in reproduction.values:
        mean, runs = ours(results, value)
        ratio = mean / value.value if value.value and not math.isnan(mean) else math.nan
        if runs == 0:
            status = "not run" + (" (--quick grid)" if quick else "")
        elif not value.legible:
            status = "paper's reading uncertain"
        elif value.value == 0:
            status = "agrees" if mean == 0 else f"paper 0, ours {mean:.3g}"
        elif abs(ratio - 1) <= reproduction.tolerance:
            status = f"agrees (within {reproduction.tolerance:.0%})"
        else:
            status = f"differs by {ratio - 1:+.0%}"
        out.append(
            {
                "item": value.item,
                "approach": value.approach,
                "metric": value.metric,
                "parameters": parameters(dict(value.where)),
                "paper": value.value,
                "legible": value.legible,
                "ours": mean,
                "ratio": ratio,
                "deviation_pct": 100 * (ratio - 1) if not math.isnan(ratio) else math.nan,
                "status": status,
                "runs": runs,
                "scale": "quick" if quick else "paper",
            }
        )
    return pd.DataFrame(out, columns=list(COLUMNS))


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
