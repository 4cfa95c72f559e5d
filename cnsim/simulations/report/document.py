"""The report document: the HTML page, its CSS, numbered tables and figures written
beside it, and the detection of what a result directory holds (a run or a sweep).

The page is :data:`PAGE_PX` wide: tables of words wrap within it (fixed column widths
where given) instead of scrolling, and a figure saved at :data:`DPI` fits it at its own
size. What each figure shows a reader (:class:`Drawn`) is kept beside the page.

Also the few helpers every section shares: number formatting, the catalog's keys and
labels (``cnsim.simulations.metrics.CATALOG``; the report lists no metrics of its own)
and approach specs (``cnsim.algorithms.registry.parse``; it parses no names itself).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from cnsim.algorithms.base import ApproachSpec
from cnsim.algorithms.registry import parse
from cnsim.errors import InputError
from cnsim.simulations.metrics import CATALOG, Metric

PAPER = "seed 003"
LABELS = CATALOG.column_labels()  # column or summary key -> label with its unit
PAGE_PX = 1040  # the page's text width (CSS pixels): body max-width less its padding
DPI = 110  # figures' resolution: a PAGE_PX-wide figure is PAGE_PX / DPI inches
PAD_IN = 0.05  # the margin a saved figure keeps around its drawing

CSS = (
    """
body { font: 15px/1.5 -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif;
       color: #222; max-width: PAGEpx; margin: 0 auto; padding: 1.5em 30px 4em; }
h1 { font-size: 1.7em; margin-bottom: 0.1em; }
h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 2px solid #d0d7de; padding-bottom: .2em; }
.sub { color: #57606a; margin-top: 0; }
nav ol { columns: 2; color: #57606a; } nav a { color: #0969da; text-decoration: none; }
table.data { border-collapse: collapse; margin: .6em 0 .3em; font-size: 13px;
             font-variant-numeric: tabular-nums; }
table.data th, table.data td { padding: 3px 10px; border-bottom: 1px solid #e5e7eb; }
table.data td { text-align: right; white-space: nowrap; }
table.data.text td, table.data.text tbody th { text-align: left; white-space: normal;
  overflow-wrap: anywhere; vertical-align: top; }
table.data.fixed { table-layout: fixed; width: 100%; }
table.data th { text-align: left; background: #f6f8fa; white-space: nowrap; }
table.data thead th { text-align: center; border-bottom: 2px solid #d0d7de; }
table.data tbody tr:nth-child(even) td { background: #fafbfc; }
.tablewrap { overflow-x: auto; margin-bottom: 1.2em; }
figure { margin: 1.2em 0 1.8em; }
figure img { max-width: 100%; border: 1px solid #eaecef; }
figcaption, .caption { color: #57606a; font-size: 13px; max-width: 900px; }
.caption { margin-bottom: .2em; }
.note { background: #fff8c5; border-left: 4px solid #d4a72c; padding: .4em .8em; font-size: 13px; }
details pre { background: #f6f8fa; padding: .8em; font-size: 12px; overflow-x: auto; }
ul.skipped { color: #57606a; font-size: 13px; }
a.csv { font-size: 12px; color: #0969da; }
"""
).replace("PAGE", str(PAGE_PX))


@dataclass(frozen=True)
class Drawn:
    """What a saved figure shows, as a reader sees it on the page: its width in pixels,
    its panel grid, every axis label with its height in CSS pixels at page width (the
    page shrinks a figure wider than :data:`PAGE_PX`), the smallest tick label's, and
    each line's legend label, colour and marker."""

    name: str
    width_px: int
    grid: tuple[int, int]  # rows, columns of panels
    labels: tuple[tuple[str, float], ...]
    tick_px: float
    series: tuple[tuple[str, str, str], ...]

    @classmethod
    def of(cls, fig: Figure, name: str, path: Path) -> Drawn:
        from matplotlib.colors import to_hex
        from PIL import Image

        with Image.open(path) as image:
            width = image.size[0]
        px = DPI / 72 * min(1.0, PAGE_PX / width)  # CSS pixels per point on the page
        axes = [ax for ax in fig.axes if ax.get_visible()]
        texts = [t for ax in axes for t in (ax.xaxis.label, ax.yaxis.label)]
        supers = (getattr(fig, "_supxlabel", None), getattr(fig, "_supylabel", None))
        texts += [t for t in supers if t is not None]  # a label shared by the panels
        labels = tuple((t.get_text(), t.get_fontsize() * px) for t in texts if t.get_text())
        ticks = [t for ax in axes for t in (*ax.get_xticklabels(), *ax.get_yticklabels())]
        tick_px = min((t.get_fontsize() * px for t in ticks if t.get_text()), default=math.inf)
        spans = [ax.get_subplotspec() for ax in axes if ax.get_subplotspec() is not None]
        grids = [s.get_gridspec() for s in spans]
        grid = (max((g.nrows for g in grids), default=1), max((g.ncols for g in grids), default=1))
        series = tuple(
            dict.fromkeys(
                (line.get_label(), to_hex(line.get_color()), str(line.get_marker()))
                for ax in axes
                for line in ax.get_lines()
                if not line.get_label().startswith("_")
            )
        )
        return cls(name, width, grid, labels, tick_px, series)


@dataclass
class Document:
    """Collects sections of HTML; writes figures and tables beside ``index.html``."""

    out: Path
    sections: list[tuple[str, str, list[str]]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    drawn: list[Drawn] = field(default_factory=list)
    n_figures: int = 0
    n_tables: int = 0

    def section(self, title: str, items: list[str], intro: str = "") -> None:
        """Add a section unless it has nothing to show."""
        if items:
            self.sections.append((title, intro, items))

    def figure(self, fig: Figure, name: str, caption: str) -> str:
        """Save ``fig`` as ``name.png`` and return its HTML with a numbered caption."""
        self.n_figures += 1
        path = self.out / f"{name}.png"
        fig.savefig(path, dpi=DPI, bbox_inches="tight", pad_inches=PAD_IN)
        self.drawn.append(Drawn.of(fig, name, path))
        panels = sum(ax.get_visible() for ax in fig.axes)  # read by the browser test
        return (
            f'<figure><img src="{name}.png" alt="{html.escape(caption)}" '
            f'data-panels="{panels}">'
            f"<figcaption><b>Figure {self.n_figures}.</b> {html.escape(caption)}"
            "</figcaption></figure>"
        )

    def table(
        self,
        frame: pd.DataFrame,
        name: str,
        caption: str,
        text: bool = False,
        widths: tuple[str, ...] = (),
    ) -> str:
        """Write ``frame`` as ``name.csv`` and return it as a captioned HTML table
        (``text``: cells are words, aligned left and wrapped, rather than numbers;
        ``widths``: the CSS width of each column, index first, for a table as wide as
        the page whose long cells wrap instead of scrolling)."""
        self.n_tables += 1
        csv = frame.copy()
        if isinstance(csv.columns, pd.MultiIndex):
            csv.columns = [" | ".join(str(p) for p in col) for col in csv.columns]
        csv.to_csv(self.out / f"{name}.csv")
        classes = ["data"] + ["text"] * text + ["fixed"] * bool(widths)
        body = corner_label(frame.map(fmt)).to_html(
            classes=" ".join(classes), border=0, na_rep="–", escape=True
        )
        if widths:
            cols = "".join(f'<col style="width: {w}">' for w in widths)
            body = body.replace(">", f"><colgroup>{cols}</colgroup>", 1)
        return (
            f'<p class="caption"><b>Table {self.n_tables}.</b> {html.escape(caption)} '
            f'<a class="csv" href="{name}.csv">CSV</a></p><div class="tablewrap">{body}</div>'
        )

    def write(self, title: str, subtitle: str) -> Path:
        """Write ``index.html`` and return its path."""
        nav = "".join(
            f'<li><a href="#s{i}">{html.escape(t)}</a></li>'
            for i, (t, _, _) in enumerate(self.sections)
        )
        parts = [
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>",
            f"<h1>{html.escape(title)}</h1><p class='sub'>{subtitle}</p>",
            f"<nav><ol>{nav}</ol></nav>",
        ]
        for i, (t, intro, items) in enumerate(self.sections):
            parts.append(f'<h2 id="s{i}">{html.escape(t)}</h2>')
            parts.append(f"<p>{intro}</p>" if intro else "")
            parts.extend(items)
        if self.skipped:
            items = "".join(f"<li>{html.escape(s)}</li>" for s in self.skipped)
            parts.append(f"<h2>Not shown</h2><ul class='skipped'>{items}</ul>")
        parts.append("</body></html>\n")
        index = self.out / "index.html"
        index.write_text("\n".join(parts), encoding="utf-8")
        return index


def detect(src: Path) -> str:
    """``"run"`` or ``"sweep"``: which kind of result directory ``src`` is."""
    src = Path(src)
    if not src.exists():
        raise InputError(f"{str(src)!r} does not exist (expected a run or sweep directory)")
    if src.is_file():
        if src.suffix == ".parquet":
            return "sweep"
        raise InputError(f"{str(src)!r} is a file; expected a run or sweep directory")
    if (src / "events.parquet").exists() or (src / "summary.json").exists():
        return "run"
    if parquet_files(src):
        return "sweep"
    raise InputError(
        f"{str(src)!r} is neither a run directory (events.parquet, summary.json from "
        "'cnsim run --out') nor a sweep dataset (Parquet files from 'cnsim sweep')"
    )


def parquet_files(src: Path) -> list[Path]:
    """The dataset's Parquet files, skipping what Spark and pyarrow skip (``_*``, ``.*``)."""
    return sorted(
        p
        for p in src.rglob("*.parquet")
        if not any(part.startswith(("_", ".")) for part in p.relative_to(src).parts)
    )


def read_parquet(path: Path) -> pd.DataFrame:
    """One Parquet file or dataset, or an InputError naming it."""
    try:
        return pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises many types for unreadable files
        raise InputError(f"cannot read {str(path)!r} as Parquet: {exc}") from None


# ---------------------------------------------------------------- catalog and specs


def metric(name: str) -> Metric:
    """The catalog's metric ``name`` (a KeyError here is a report out of step with it)."""
    return CATALOG[name]


def key(name: str, aggregate: str = "mean") -> str:
    """The summary key of one aggregate of metric ``name`` (``mean_ip_bytes``)."""
    m = CATALOG[name]
    assert aggregate in m.aggregates or m.level == "run", (name, aggregate)
    return m.name if m.level == "run" else m.key(aggregate)


def label(column: str) -> str:
    """The catalog's label of a column or summary key; the key itself if it has none."""
    return LABELS.get(column, column)


def axis_label(column: str, per: str = "") -> str:
    """An axis label for a metric column or summary key: the catalog's label (with its
    unit), ``per`` what it is counted if given (``server bytes per event``)."""
    return f"{LABELS[column]} per {per}" if per else LABELS[column]


@cache
def spec_of(name: object) -> ApproachSpec | None:
    """The spec of an approach name; None for a name cnsim does not know (or a missing one)."""
    try:
        return parse(name)
    except ValueError:
        return None


# ---------------------------------------------------------------- formatting


def corner_label(frame: pd.DataFrame) -> pd.DataFrame:
    """Move a one-level index's name into the header's corner cell: pandas otherwise
    spends a whole header row on it."""
    if isinstance(frame.index, pd.MultiIndex) or frame.index.name is None:
        return frame
    frame = frame.copy()
    if not isinstance(frame.columns, pd.MultiIndex) or frame.columns.names[-1] is None:
        names = list(frame.columns.names)
        names[-1] = frame.index.name
        frame.columns = frame.columns.set_names(names)
    frame.index.name = None
    return frame


def sort_key(v: object) -> tuple:
    """Order numbers before words, and missing values last."""
    if v is None or (isinstance(v, float | np.floating) and math.isnan(v)):
        return (2, 0, "")
    return (0, v, "") if isinstance(v, int | float | np.number) else (1, 0, str(v))


def fmt(v: object) -> str:
    """A number as a reader wants it in a table: thousands separators, 3 significant
    digits for small values, '–' for missing."""
    if v is None or (isinstance(v, float | np.floating) and math.isnan(v)):
        return "–"
    if isinstance(v, bool | np.bool_):
        return str(bool(v))
    if isinstance(v, int | np.integer):
        return f"{int(v):,}"
    if isinstance(v, float | np.floating):
        a = abs(float(v))
        if a == 0:
            return "0"
        if float(v).is_integer() and a < 1e15:
            return f"{int(v):,}"
        if a >= 1000:
            return f"{v:,.0f}"
        return f"{v:.2f}" if a >= 10 else f"{v:.3g}"
    return str(v)
