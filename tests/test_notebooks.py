"""Every notebook under notebooks/ runs top to bottom, and is stored without outputs."""

import subprocess
import sys
from pathlib import Path

import nbclient
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
KERNEL = "cnsim-test"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """A kernel spec for *this* interpreter (the venv), found through JUPYTER_PATH, so
    the notebooks never run in whatever "python3" kernel the machine has."""
    prefix = tmp_path_factory.mktemp("jupyter")
    subprocess.run(
        [sys.executable, "-m", "ipykernel", "install", "--prefix", str(prefix), "--name", KERNEL],
        check=True,
        capture_output=True,
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUPYTER_PATH", str(prefix / "share" / "jupyter"))
        mp.setenv("MPLBACKEND", "agg")  # no display; figures are still drawn
        yield KERNEL


def test_there_are_notebooks():
    names = {p.name for p in NOTEBOOKS}
    assert {"algorithm_comparison.ipynb", "sweep_analysis.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    book = nbformat.read(path, as_version=4)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
@pytest.mark.slow
def test_notebook_runs(path, kernel, tmp_path):
    book = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        book,
        kernel_name=kernel,
        timeout=120,
        resources={"metadata": {"path": str(tmp_path)}},  # run outside the repository
    )
    client.execute()  # raises CellExecutionError with the failing cell and traceback
    errors = [
        out
        for cell in book.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert not errors
