"""Seeds and ids of sweep runs, from the canonical JSON of their parameters.

* A run's seed comes from ``numpy.random.SeedSequence`` over the sweep seed and the
  SHA-256 of the canonical JSON of its axis values and repeat index, so adding values
  to an axis never changes the seeds of the other runs.
* A run's id is the SHA-256 of its full validated scenario and repeat index.

``hash()`` is never used: seeds and ids are the same on every machine and Python.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np


def canonical(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, no NaN — the same text on every machine
    (``value`` is plain data, as the sweep file's validation ensures)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _digest(value: Any) -> bytes:
    return hashlib.sha256(canonical(value).encode()).digest()


def derive_seed(sweep_seed: int, params: dict[str, Any], repeat: int) -> int:
    """A run's seed (0 .. 2^63 − 1) from the sweep seed, its axis values and repeat index."""
    digest = _digest({"params": params, "repeat": repeat})
    entropy = [sweep_seed, *np.frombuffer(digest, dtype="<u4").tolist()]
    hi, lo = np.random.SeedSequence(entropy).generate_state(2, np.uint32).tolist()
    return ((hi << 32) | lo) >> 1  # 63 bits: fits Parquet int64 and NetworkParams.seed


def run_id_of(scenario: dict[str, Any], repeat: int) -> str:
    """A run's id: SHA-256 (16 hex digits) of its full validated scenario and repeat."""
    return _digest({"scenario": scenario, "repeat": repeat}).hex()[:16]


def describe(params: dict[str, Any]) -> str:
    """A run's axis values as ``path=value, …`` (``no axes`` when there are none)."""
    return ", ".join(f"{p}={canonical(v)}" for p, v in params.items()) or "no axes"
