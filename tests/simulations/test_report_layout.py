"""How the reproduction's report reads on a page: claims tables that wrap, panel grids
at most three a row with labels readable at page width, one style per approach, every
axis labelled from the metrics catalog, headings that state the parameters the plot
was drawn at, and the paper's printed values drawn where the run has their parameters.

The input is the kept paper-scale reproduction (``benchmarks/reproduce_seed003``): no
run is made; a "quick-like" copy keeps only the small k and m of it."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd
import pytest

from cnsim.algorithms.registry import parse
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.report.document import CSS, PAGE_PX, Document
from cnsim.simulations.report.plots import STYLES, styles
from cnsim.simulations.report.sweep_sections import TREND_AXES
from cnsim.simulations.report.sweep_sections import load_sweep as load_rows
from cnsim.simulations.reproduce import reproduction
from cnsim.simulations.reproduce.compare import verdicts
from cnsim.simulations.reproduce.report import write_document
from cnsim.simulations.sweep import load_sweep

ROOT = Path(__file__).resolve().parents[2]
KEPT = ROOT / "benchmarks" / "reproduce_seed003" / "sweeps"
REPRO = reproduction("seed003")
LABELS = set(CATALOG.column_labels().values())
K, M = "subscriptions.k", "subscriptions.count"


def catalog_label(text: str) -> bool:
    """Whether an axis label is the catalog's label of a metric (or a parameter's name),
    possibly counted per event or as a Paint-Sparse / Paint-Dense ratio."""
    text = re.sub(r"( per (event|batch.*)|: Paint-Sparse / Paint-Dense)$", "", text)
    return text in LABELS or text in TREND_AXES.values()


def report(tmp_path: Path, results: dict[str, pd.DataFrame], quick: bool = False):
    """The reproduction's report of ``results`` (no sweep reports): its Document, its
    HTML and its sections by heading."""
    doc = Document(tmp_path)
    text = write_document(doc, REPRO, results, quick, [], tmp_path / "none").read_text()
    text = html.unescape(text)
    headings = re.findall(r'<h2 id="s\d+">([^<]*)</h2>', text)
    return doc, text, {h.split(" — ")[0]: h for h in headings}


def kept(*sweeps: str) -> dict[str, pd.DataFrame]:
    return {name: load_rows(KEPT / name).ok for name in sweeps}


def check_figures(doc: Document) -> None:
    """Every figure: at most three panels a row, every axis label the catalog's and at
    least 10 px high on the page (as the tick labels), one style per series."""
    for drawn in doc.drawn:
        assert drawn.grid[1] <= 3, drawn
        assert drawn.labels, drawn.name
        for text, px in drawn.labels:
            assert catalog_label(text), (drawn.name, text)
            assert px >= 10, (drawn.name, text, px)
        assert drawn.tick_px >= 10, drawn
        assert drawn.width_px <= PAGE_PX, drawn  # the page never shrinks it
        ours = [(c, m) for name, c, m in drawn.series if not name.endswith("(paper)")]
        assert len(set(ours)) == len(ours), (drawn.name, drawn.series)


def test_claims_tables_wrap_within_the_page(tmp_path) -> None:
    claims = verdicts(REPRO, {}).drop(columns=["item"]).set_index("claim")
    page = Document(tmp_path).table(claims, "claims", "c", text=True, widths=("42%", "4em", "auto"))
    assert '<table class="dataframe data text fixed"><colgroup><col style="width: 42%">' in page
    assert page.count("<col ") == 3 == 1 + len(claims.columns)  # index (the claim) first
    rule = re.search(r"table\.data\.text td, table\.data\.text tbody th \{([^}]*)\}", CSS)
    assert rule and "white-space: normal" in rule[1] and "overflow-wrap: anywhere" in rule[1]
    assert re.search(r"table\.data\.fixed \{ table-layout: fixed; width: 100%; \}", CSS)
    assert f"max-width: {PAGE_PX}px" in CSS


def test_every_approach_of_the_reproduction_has_its_own_style() -> None:
    pairs = list(STYLES.values())
    assert len(set(pairs)) == len(pairs)
    assert len({c for c, _ in pairs}) == len(pairs)  # no two declared colours alike
    for name in REPRO.sweeps:
        written = load_sweep(REPRO.sweep_file(name)).runs[0].scenario["algorithm"]["approaches"]
        names = [parse(a).name for a in written]
        look = styles(names)
        assert all(look[n] == STYLES[n] for n in names), name
        assert len(set(look.values())) == len(names), name
    made_up = [f"approach-{i}" for i in range(40)] + ["paint-dense", "paint-dense(0.5)"]
    look = styles(made_up)
    assert len(set(look.values())) == len(made_up)
    assert look["paint-dense"] == STYLES["paint-dense"]
    # A spelling of a declared name looks the same; both in one figure still differ.
    assert styles(["paint-sparse(1/2)"])["paint-sparse(1/2)"] == STYLES["paint-sparse(0.5)"]
    assert len(set(styles(["paint-batch", "paint-batch(paint-dense)"]).values())) == 2


def test_figures_at_the_papers_parameters_draw_its_values(tmp_path) -> None:
    results = kept("fig11", "table3")
    doc, text, headings = report(tmp_path, results)
    assert [d.name for d in doc.drawn] == ["fig_fig11", "fig_table3"]
    check_figures(doc)
    fig11, table3 = doc.drawn
    # Figure 11 is drawn at k = 20, where the paper's two numbers for it are.
    assert headings["Figure 11"].endswith("vs m (k = 20)")
    paper = {name for name, _, _ in fig11.series if name.endswith("(paper)")}
    assert paper == {"unicast (paper)", "paint-dense (paper)"}
    assert "All 2 printed values are drawn." in text
    # Table III: five panels, two rows of three; at the m its runs record.
    assert table3.grid == (2, 3) and len(table3.labels) == 10
    m = results["table3"]["subscriptions"].unique()
    assert len(m) == 1 and headings["Table III"].endswith(f"vs k (m = {int(m[0]):,})")
    paper = {name for name, _, _ in table3.series if name.endswith("(paper)")}
    assert paper == {"paint-dense (paper)", "paint-sparse (paper)", "unicast (paper)"}
    assert "All 30 printed values are drawn." in text
    assert text.count("<colgroup>") == 2  # both items' claims


def test_a_grid_without_the_papers_parameters_says_why_none_are_drawn(tmp_path) -> None:
    fig11 = kept("fig11")["fig11"]
    small = fig11[(fig11[K] <= 10) & (fig11[M] <= 1e6)]  # as --quick: k up to 10
    doc, text, headings = report(tmp_path, {"fig11": small}, quick=True)
    assert headings["Figure 11"].endswith("vs m (k = 10)")  # the k it could draw
    (drawn,) = doc.drawn
    assert not [name for name, _, _ in drawn.series if name.endswith("(paper)")]
    assert "paper's values at m=5,000,000, k=20 are not drawn: this run has no runs" in text


@pytest.mark.slow  # every item of the catalog: eleven figures (~25 s of CPU)
def test_every_item_of_the_catalog_is_drawn_readably(tmp_path) -> None:
    results = kept(*REPRO.sweeps)
    doc, text, headings = report(tmp_path, results)
    assert [d.name for d in doc.drawn] == [f"fig_{item.sweep}" for item in REPRO.items]
    check_figures(doc)
    for item in REPRO.items:  # the heading's k or m is the one of the rows drawn
        heading = headings[item.name]
        rows = results[item.sweep]
        if item.x == K:
            found = sorted(rows["subscriptions"].unique())
            m = " or ".join(f"{int(v):,}" for v in found)  # then what else it holds fixed
            assert re.search(rf"\(m = {m}(, [^)]*)?\)$", heading), heading
        else:
            k = dict(item.hold).get(K, 10)
            assert heading.endswith(f"(k = {k})"), heading
    fig15 = next(d for d in doc.drawn if d.name == "fig_fig15")
    assert fig15.grid == (1, 2)
    workloads = rows = results["fig15"]
    uniform = rows[rows["events.update"] == "uniform"]
    keys = ["objects.distribution", "subscriptions.distribution", "subscriptions.spread", M]
    volatile = workloads[workloads["events.update"] == "volatile"]
    n_lines = len(uniform[keys].drop_duplicates())
    n_lines += len(volatile[["approach", "events.volatility"]].drop_duplicates())
    assert len(fig15.series) == n_lines == 10
