"""What a reproduction is made of: the sweeps that re-run a paper's evaluation, the
numbers the paper prints (:class:`PaperValue`) and the statements it makes about its
figures (:class:`Claim`), each tied to the dataset column that measures it.

A paper's reproduction is one :class:`Reproduction` in :data:`REPRODUCTIONS` (one
catalog: ``cnsim reproduce NAME`` lists these names, nothing else does). The numbers are
the paper's as printed; where our copy of the paper is OCR text and a number is garbled
or only drawn in a plot, the value is marked ``legible=False`` or left out, and the
figure's trends are checked through its claims instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

SWEEPS_ROOT = Path(__file__).parent / "sweeps"  # package data: one folder per paper

# A sweep's successful rows by sweep name (the dataset of each sweep of the reproduction).
Results = Mapping[str, pd.DataFrame]


@dataclass(frozen=True)
class Reading:
    """One way of counting what a printed value counts, where the paper leaves it open:
    its name and the dataset column (a summary key) that measures it so — of another
    approach (``approach``) or in runs of another setting (``sweep``, the same grid)
    where the reading is one of the approach or the setting; ``why``: what it is."""

    name: str
    metric: str
    approach: str = ""  # "": the printed value's
    sweep: str = ""  # "": the printed value's
    why: str = ""


@dataclass(frozen=True)
class PaperValue:
    """One number the paper prints: ``metric`` (a dataset column, the metrics catalog's
    summary key) of ``approach`` in sweep ``sweep`` at the parameters ``where`` (dataset
    columns such as ``subscriptions.k``), as shown in ``item`` (e.g. "Table III")."""

    item: str
    sweep: str
    metric: str
    approach: str
    where: tuple[tuple[str, float], ...]
    value: float
    legible: bool = True  # False: our copy's OCR is garbled here; the reading is a guess
    # "printed" (where the item prints it), "inferred from …" (not printed in the item:
    # taken from another table of the paper, which the text names) or "digitised" (read
    # off a plot)
    provenance: str = "printed"
    # where the paper's counting is ambiguous: the name of the reading ``metric`` measures,
    # why it is the one chosen (from the paper's text, not from which matches), and the
    # other plausible readings, compared beside it
    reading: str = ""
    why: str = ""
    others: tuple[Reading, ...] = ()
    # why ours differs from it, where measured (a reading, a setting; beside the status)
    cause: str = ""


@dataclass(frozen=True)
class Verdict:
    """Whether a claim holds on our data (``None``: the data to test it are missing),
    with the figures that decide it."""

    holds: bool | None
    evidence: str


@dataclass(frozen=True)
class Claim:
    """A statement the paper makes about a figure or table, quoted, and the test of it
    on our results (a function of the sweeps' rows)."""

    item: str
    quote: str
    test: Callable[[Results], Verdict]
    sweeps: tuple[str, ...]


@dataclass(frozen=True)
class Item:
    """A figure or table of the paper: the sweep that re-runs it, what its axes are and
    which metrics it draws (for the report's side-by-side figure)."""

    name: str
    sweep: str
    title: str
    x: str  # the dataset column on the x-axis
    metrics: tuple[str, ...]
    approaches: tuple[str, ...] = ()  # drawn (all of the sweep's if empty)
    hold: tuple[tuple[str, float], ...] = ()  # other parameters held at (if run)
    note: str = ""  # why it differs, where known (benchmarks/RESULTS.md has the detail)


@dataclass(frozen=True)
class Reproduction:
    """A paper's evaluation: its sweep files (in ``SWEEPS_ROOT / name``, run in order),
    its items, printed values and claims."""

    name: str
    title: str
    sweeps: tuple[str, ...]
    items: tuple[Item, ...]
    values: tuple[PaperValue, ...]
    claims: tuple[Claim, ...]
    # the noise-free expectation of a printed value where one can be computed (else None)
    expected: Callable[[PaperValue], float | None] | None = None
    tolerance: float = 0.05  # |ours / paper − 1| within this: "agrees" (no interval)
    # with an interval: the paper's value inside it, or within this fraction of its
    # nearer end, is "consistent"
    slack: float = 0.06

    @property
    def folder(self) -> Path:
        return SWEEPS_ROOT / self.name

    def sweep_file(self, sweep: str) -> Path:
        return self.folder / f"{sweep}.toml"


def values(
    item: str,
    sweep: str,
    metric: str,
    approach: str,
    axis: str,
    points: dict,
    provenance: str = "printed",
    **fixed: float,
) -> tuple[PaperValue, ...]:
    """The paper's values of one row of a table: ``points`` maps the ``axis`` value to
    the printed number (``None``: printed but not legible, left out)."""
    return tuple(
        PaperValue(
            item, sweep, metric, approach, ((axis, x), *fixed.items()), float(v),
            provenance=provenance,
        )  # fmt: skip
        for x, v in points.items()
        if v is not None
    )
