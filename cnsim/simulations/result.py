"""What one run produced, and where it is written: :class:`Result` (per-batch metrics,
per-broker load, the summary) and the run's output folder, written atomically into a
folder the run owns (:mod:`cnsim.outputs`). Every driver returns a Result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from cnsim.errors import API, CLI, Names
from cnsim.outputs import claim, marker, place, replacing

OUT_DIR = API.writing("out_dir")  # Result.write's argument names


@dataclass(frozen=True)
class Result:
    """What one run produced: per-batch metrics, per-broker load and the summary."""

    events: pd.DataFrame  # one row per (approach, batch): the batch metrics of the catalog
    brokers: pd.DataFrame | None  # one row per (approach, broker); None without brokers
    summary: dict  # sizes, times and per approach the catalog's summary entries
    servers: pd.DataFrame | None = None  # one row per (approach, server); None: one server

    def write(self, out_dir: str | Path, overwrite: bool = False, names: Names = OUT_DIR) -> Path:
        """Write ``events.parquet``, ``summary.json``, with brokers ``brokers.parquet``
        and with several servers ``servers.parquet`` as the whole contents of
        ``out_dir``: written into a staging folder, then swapped in atomically
        (:mod:`cnsim.outputs`), so the folder holds the earlier result or this one,
        never a mix; its marker lists every file written. ``out_dir`` must be new,
        empty or an earlier run's folder (``overwrite``: any folder cnsim wrote); a
        folder holding anything cnsim did not write is refused either way. ``names``:
        how messages name the arguments (the caller's: ``out_dir``, ``--out``)."""
        out = claim_out_dir(out_dir, overwrite, names)
        content = marker("run", self.summary.get("source"))
        with replacing(out, content, place(out_dir, names)) as stage:
            self.events.to_parquet(stage / "events.parquet", index=False)
            if self.brokers is not None:
                self.brokers.to_parquet(stage / "brokers.parquet", index=False)
            if self.servers is not None:
                self.servers.to_parquet(stage / "servers.parquet", index=False)
            (stage / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n")
        return out


def claim_out_dir(out_dir: str | Path, overwrite: bool = False, names: Names = CLI) -> Path:
    """The run's output folder, checked before any work (:func:`cnsim.outputs.claim`):
    new, empty, or holding nothing but what cnsim wrote there, as its marker lists;
    ``names``: the caller's names of the arguments (``--out`` or a keyword)."""
    return claim(out_dir, "run", overwrite=overwrite, names=names)
