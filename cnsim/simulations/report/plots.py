"""Matplotlib helpers of the report: figures on the Agg canvas (``Figure`` objects, never
pyplot, so no global backend state is touched), panel grids sized for the page, the
style (colour and marker) of every approach, bars, CDFs and axis ticks.

Sizes: a figure is at most :data:`~.document.PAGE_PX` wide at :data:`~.document.DPI`,
so the page never shrinks it, and its smallest text (8 pt) is 12 px on screen.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from cnsim.simulations.report.document import DPI, PAD_IN, PAGE_PX, fmt, spec_of

PAGE_IN = PAGE_PX / DPI - 2 * PAD_IN  # the widest figure the page shows at its own size
PANELS_PER_ROW = 3

# The style of each approach of seed 003 §V, one (colour, marker) pair each, so that an
# approach looks the same in every figure: Paint-Dense and its ε variants in blues,
# Paint-Sparse's in reds (darker = exact, lighter = larger ε), and one marker per ε.
STYLES: dict[str, tuple[str, str]] = {
    "paint-dense": ("#08306b", "o"),
    "paint-dense(0.125)": ("#08519c", "s"),
    "paint-dense(0.25)": ("#2171b5", "D"),
    "paint-dense(0.5)": ("#4292c6", "^"),
    "paint-dense(1)": ("#6baed6", "v"),
    "paint-sparse": ("#67000d", "o"),
    "paint-sparse(0.125)": ("#a50f15", "s"),
    "paint-sparse(0.25)": ("#d7301f", "D"),
    "paint-sparse(0.5)": ("#ef6548", "^"),
    "paint-sparse(1)": ("#f4a261", "v"),
    "unicast": ("#000000", "X"),
    "unicast-lazy": ("#636363", "x"),
    "cn-relax": ("#238b45", "P"),
    "ranked": ("#6a3d9a", "*"),
    "paint-batch(paint-dense)": ("#1b9e77", "o"),
    "coalesce(paint-dense)": ("#d95f02", "s"),
    "online(paint-dense)": ("#7570b3", "^"),
}
MARKERS = "osD^vXP*<>ph"
# For names not declared: colour and marker both change from one to the next.
_SPARE = [(f"C{i % 10}", MARKERS[(i + i // 10) % len(MARKERS)]) for i in range(10 * len(MARKERS))]


def figure(width: float = PAGE_IN, height: float = 3.8) -> tuple[Figure, Axes]:
    """A figure with one set of axes."""
    fig = Figure(figsize=(min(width, PAGE_IN), height), layout="constrained")
    return fig, fig.subplots()


def panels(
    n: int, per_row: int = PANELS_PER_ROW, height: float = 2.9, legend: float = 0.0
) -> tuple[Figure, list[Axes]]:
    """A grid of ``n`` panels, at most ``per_row`` a row, as wide as the page (the
    panels beyond ``n`` hidden); ``legend`` inches of height are kept for a legend."""
    cols = min(n, per_row)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(PAGE_IN, height * rows + legend), layout="constrained")
    axes = list(fig.subplots(rows, cols, squeeze=False).ravel())
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes[:n]


def color(i: int) -> str:
    """The i-th colour of the default cycle."""
    return f"C{i % 10}"


def marker(i: int) -> str:
    """The i-th line marker."""
    return MARKERS[i % len(MARKERS)]


def style(name: object) -> tuple[str, str] | None:
    """The declared (colour, marker) of an approach name (a spelling the registry reads
    the same way counts), or None."""
    if name in STYLES:
        return STYLES[name]
    spec = spec_of(name)
    return STYLES.get(spec.name) if spec is not None else None


def styles(names) -> dict[str, tuple[str, str]]:
    """(colour, marker) of every name, distinct within ``names``: the declared style,
    else (or if another name already has it) the first spare pair no name uses."""
    out: dict[str, tuple[str, str]] = {}
    names = list(dict.fromkeys(names))
    taken = {style(n) for n in names} - {None}
    spare = (pair for pair in _SPARE if pair not in taken)
    for name in names:
        pair = style(name)
        if pair is None or pair in out.values():
            pair = next(spare)
        out[name] = pair
    return out


def bars(ax: Axes, values: pd.Series, log: bool, look: dict | None = None) -> None:
    """One bar per index entry, labelled with its value (coloured by ``look``, the
    entries' styles, if given)."""
    xs = np.arange(len(values))
    colours = [look[i][0] if look else color(j) for j, i in enumerate(values.index)]
    drawn = ax.bar(xs, values.to_numpy(float), color=colours)
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
    """Empirical CDF of ``column`` per approach, in each approach's colour."""
    look = styles(approaches)
    for name in approaches:
        v = np.sort(events.loc[events["approach"] == name, column].dropna().to_numpy(float))
        if len(v):
            ys = np.arange(1, len(v) + 1) / len(v)
            ax.step(v, ys, where="post", color=look[name][0], label=name)
    positive = events[column][events[column] > 0]
    if log and len(positive) and positive.max() / positive.min() >= 100:
        ax.set_xscale("symlog", linthresh=1)  # zeros are common (events that change nothing)
    ax.set_ylabel("fraction ≤ x")
    ax.set_ylim(0, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def compact(v: float) -> str:
    """A tick label short enough for a narrow panel: ``200k``, ``2M``, else :func:`fmt`."""
    a = abs(float(v))
    if a >= 1e6:
        return f"{v / 1e6:g}M"
    return f"{v / 1e3:g}k" if a >= 1e3 else fmt(v)


def value_ticks(ax: Axes, values: pd.Series) -> None:
    """Ticks at the swept values (a log axis when they span decades)."""
    if not pd.api.types.is_numeric_dtype(values) or values.empty:
        return
    ticks = sorted(values.unique())
    if values.min() > 0 and values.max() / values.min() >= 50:
        ax.set_xscale("log")
    if len(ticks) <= 12:
        ax.set_xticks(ticks, [compact(t) for t in ticks])
        ax.xaxis.set_minor_locator(NullLocator())  # y keeps its minor ticks (log labels)


def hidden_note(all_names, shown: list[str]) -> str:
    """Caption note naming the entries a log scale could not show."""
    hidden = [str(n) for n in all_names if n not in shown]
    return f" Not shown (zero on a log scale): {', '.join(hidden)}." if hidden else ""
