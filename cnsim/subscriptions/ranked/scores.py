"""Scores of range subscriptions for ranked delivery (seed 000's scored-range
model): the score ``s_j`` of subscription ``j = [l_j, r_j]`` under a named model.

* ``uniform``: ``s_j`` uniform in [0, 1), independent of the range (a bid);
* ``length``: ``s_j = 1 - (r_j - l_j)`` (seed 000 §4's per-dimension weight
  ``1 - len``), so the best subscriptions are the short ranges near the diagonal of S.
"""

from __future__ import annotations

import numpy as np

SCORE_MODELS = ("uniform", "length")


def generate_scores(
    rng: np.random.Generator, l: np.ndarray, r: np.ndarray, model: str
) -> np.ndarray:
    """The score of every subscription ``[l_j, r_j]`` under ``model`` (float64)."""
    assert model in SCORE_MODELS, model
    if model == "uniform":
        return rng.random(len(l))
    return 1.0 - (np.asarray(r, np.float64) - np.asarray(l, np.float64))
