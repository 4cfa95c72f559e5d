"""``scripts/spark_cluster.sh``: a bad argument is refused in one line naming it and
what is allowed, before any process is started or stopped."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "spark_cluster.sh"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["start", "0"], "WORKERS = '0': a count >= 1"),
        (["start", "2", "x"], "CORES = 'x': a count >= 1"),
        (["start", "2", "1", "4gb"], "MEMORY = '4gb': e.g. 4g or 512m"),
        (["restart"], "usage: bash scripts/spark_cluster.sh start"),
        ([], "usage: bash scripts/spark_cluster.sh start"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(tmp_path, args, needle):
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)}
    got = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env)
    assert got.returncode == 2
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], got.stderr
    assert not (tmp_path / "cnsim-spark-cluster").exists()  # nothing started or stopped
