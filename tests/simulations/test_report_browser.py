"""The reports as a reader's browser shows them: a run's report and the quick
reproduction's report, rendered by headless Chromium at 1,400 px (what the set-up
script installs where missing, as it does Java). In the page itself a script measures
what the reader would see: nothing wider than the window (no horizontal scroll bar),
every image loaded, and no figure of more than two panels shown narrower than half the
page. A screenshot of each page is kept under the test's tmp folder (a CI artefact).

The reproduction's report is drawn from the kept paper-scale sweeps
(``benchmarks/reproduce_seed003``) cut to the quick form's sizes: no sweep is run."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cnsim.simulations.config import from_dict
from cnsim.simulations.report import build_report
from cnsim.simulations.report.document import Document
from cnsim.simulations.report.sweep_sections import load_sweep as load_rows
from cnsim.simulations.reproduce import reproduction
from cnsim.simulations.reproduce.report import write_document
from cnsim.simulations.runner import run

pytestmark = pytest.mark.slow  # a browser, a run and two reports: ~2 min of CPU

ROOT = Path(__file__).resolve().parents[2]
KEPT = ROOT / "benchmarks" / "reproduce_seed003" / "sweeps"
WIDTH, HEIGHT = 1400, 1000
# Measured in the page once it has loaded; written into it for --dump-dom to read.
CHECK = """<script>
window.addEventListener("load", () => {
  const page = document.documentElement;
  const images = [...document.images];
  const out = {
    window: window.innerWidth,
    widest: page.scrollWidth,
    images: images.length,
    broken: images.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
    narrow: images.filter(i => Number(i.dataset.panels || 1) > 2
                               && i.getBoundingClientRect().width < page.clientWidth / 2)
                  .map(i => i.src),
  };
  const pre = document.createElement("pre");
  pre.id = "cnsim-check";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""
RUN = {
    "seed": 7,
    "objects": {"count": 200},
    "subscriptions": {"count": 2000, "k": 5},
    "events": {"count": 60},
    "network": {"ip_nodes": 400, "brokers": 30},
    "algorithm": {"approaches": ["paint-dense", "paint-sparse", "unicast", "cn-relax"]},
    "run": {"progress": False, "mode": "timed"},
}


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "chromium not found: bash scripts/setup.sh installs it (as root), or apt-get"
    return found


def shown(index: Path, shots: Path) -> dict:
    """What the browser shows of ``index``: the in-page measures, and a screenshot."""
    page = index.with_name("browser-check.html")
    page.write_text(index.read_text().replace("</body>", CHECK + "</body>"))
    flags = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--window-size={WIDTH},{HEIGHT}", "--virtual-time-budget=20000"]  # fmt: skip
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True,
                         text=True, timeout=300, check=True).stdout  # fmt: skip
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / f"{index.parent.name}.png"
    subprocess.run([*flags, f"--screenshot={shot}", index.as_uri()], capture_output=True,
                   timeout=300, check=True)  # fmt: skip
    assert shot.stat().st_size > 0
    found = re.search(r'<pre id="cnsim-check">([^<]*)</pre>', dom)
    assert found, dom[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"'))


def check(measured: dict) -> None:
    assert measured["window"] == WIDTH
    assert measured["widest"] <= WIDTH, "a horizontal scroll bar"
    assert measured["images"] > 0 and not measured["broken"], measured["broken"]
    assert not measured["narrow"], measured["narrow"]


def test_a_run_report_reads_in_a_browser(tmp_path):
    out = tmp_path / "run"
    run(from_dict(RUN), out)
    index = build_report(out, tmp_path / "run-report")
    check(shown(index, tmp_path / "screenshots"))


def test_the_quick_reproduction_report_reads_in_a_browser(tmp_path):
    repro = reproduction("seed003")
    results = {}
    for name in repro.sweeps:  # the quick form's sizes: k up to 10, m up to 1,000,000
        rows = load_rows(KEPT / name).ok
        keep = rows["subscriptions"] <= 1e6  # m of each run
        if "subscriptions.k" in rows:  # a sweep over k (else the scenario's)
            keep &= rows["subscriptions.k"] <= 10
        results[name] = rows[keep] if keep.any() else rows
    stage = tmp_path / "reproduction-report"
    stage.mkdir()
    index = write_document(Document(stage), repro, results, True, [], tmp_path / "none")
    check(shown(index, tmp_path / "screenshots"))
