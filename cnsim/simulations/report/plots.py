"""Matplotlib helpers of the report: figures on the Agg canvas (``Figure`` objects, never
pyplot, so no global backend state is touched), bars, CDFs and axis ticks."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from cnsim.simulations.report.document import fmt


def figure(width: float = 8.5, height: float = 3.8) -> tuple[Figure, Axes]:
    """A figure with one set of axes."""
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots()


def color(i: int) -> str:
    """The i-th colour of the default cycle."""
    return f"C{i % 10}"


def marker(i: int) -> str:
    """The i-th line marker."""
    return "osD^v<>ph*"[i % 10]


def bars(ax: Axes, values: pd.Series, log: bool) -> None:
    """One bar per index entry, labelled with its value."""
    xs = np.arange(len(values))
    drawn = ax.bar(xs, values.to_numpy(float), color=[color(i) for i in range(len(values))])
    ax.bar_label(drawn, labels=[fmt(v) for v in values], fontsize=7)
    ax.set_xticks(xs, [str(i) for i in values.index], rotation=25, ha="right", fontsize=8)
    if log and (values > 0).any():
        ax.set_yscale("log")
    ax.margins(y=0.15)


def grouped_bars(ax: Axes, frame: pd.DataFrame, log: bool = True) -> list[str]:
    """Bars of each column grouped by index entry; rows all <= 0 are left out on a log
    scale. Returns the index entries shown."""
    if log:
        frame = frame[(frame > 0).any(axis=1)]
    xs = np.arange(len(frame))
    width = 0.8 / max(len(frame.columns), 1)
    for j, col in enumerate(frame.columns):
        values = frame[col].to_numpy(float)
        drawn = ax.bar(
            xs + (j - (len(frame.columns) - 1) / 2) * width,
            values,
            width,
            label=str(col),
            color=color(j),
        )
        ax.bar_label(drawn, labels=[fmt(v) for v in values], fontsize=6.5)
    ax.set_xticks(xs, [str(i) for i in frame.index], rotation=20, ha="right", fontsize=8)
    if log and len(frame):
        ax.set_yscale("log")
    ax.margins(y=0.15)
    ax.legend(fontsize=8)
    return list(frame.index)


def cdfs(ax: Axes, events: pd.DataFrame, column: str, approaches: list[str], log: bool = True):
    """Empirical CDF of ``column`` per approach."""
    for i, name in enumerate(approaches):
        v = np.sort(events.loc[events["approach"] == name, column].dropna().to_numpy(float))
        if len(v):
            ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", color=color(i), label=name)
    positive = events[column][events[column] > 0]
    if log and len(positive) and positive.max() / positive.min() >= 100:
        ax.set_xscale("symlog", linthresh=1)  # zeros are common (events that change nothing)
    ax.set_ylabel("fraction ≤ x")
    ax.set_ylim(0, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def value_ticks(ax: Axes, values: pd.Series) -> None:
    """Ticks at the swept values (a log axis when they span decades)."""
    if not pd.api.types.is_numeric_dtype(values) or values.empty:
        return
    ticks = sorted(values.unique())
    if values.min() > 0 and values.max() / values.min() >= 50:
        ax.set_xscale("log")
    if len(ticks) <= 12:
        ax.set_xticks(ticks, [fmt(t) for t in ticks])
        ax.xaxis.set_minor_locator(NullLocator())  # y keeps its minor ticks (log labels)


def hidden_note(all_names, shown: list[str]) -> str:
    """Caption note naming the entries a log scale could not show."""
    hidden = [str(n) for n in all_names if n not in shown]
    return f" Not shown (zero on a log scale): {', '.join(hidden)}." if hidden else ""
