"""``cnsim bench fidelity``: seed 003's Table I–III figures that cnsim did not reproduce,
measured against the readings of §V that could explain them.

Two parts:

* **Paint-Sparse's calls** (Table III): Paint-Sparse at m = 2,000,000 with both of its
  counters — cnsim's (``calls_min_y``, ``calls_snap``: every distinct index query) and
  the paper's reading (:class:`cnsim.algorithms.paint_sparse.PaperCount`) — beside the
  paper's numbers, over several seeds.
* **Messages received** (Tables I and II): the expected number of messages received per
  event is ``m`` times the probability mass, under the subscription distribution, of the
  rectangles an exact approach sends (Paint-Dense tiles every affected subscription's
  notifications exactly). For a given event stream this is computed without drawing any
  subscription, for several readings of "uniform in S" at once, so long streams (the
  statistic is heavy-tailed) are cheap; one real run at m = 2,000,000 checks it. The same
  masses give Unicast's candidates (Table III), the affected subscriptions, Paint-Dense(1)'s
  redundancy and CN-Relax's (Table II).

Readings of "the subscriptions are uniformly distributed in S" (S = {(l, r): l <= r}):

* ``triangle``: uniform over the half-square (the same as two uniform endpoints, sorted);
  density 2 — cnsim's ``uniform``;
* ``length``: a uniform length w, then l uniform in [0, 1 - w]; density 1 / (1 - (r - l));
* ``left``: l uniform, then r uniform in [l, 1]; density 1 / (1 - l).

Readings of the update rule ("increased or decreased, each with 0.5 probability. The new
y-value is then chosen uniformly random from the possible range of y-values"):

* ``uniform``: the side with probability 1/2, the new y uniform on that side (cnsim's);
  its stationary y-distribution is the arcsine law Beta(1/2, 1/2);
* ``redraw``: the new y uniform over the whole range (the side is where it lands);
  stationary distribution uniform;
* ``volatile``: a random walk (Gaussian steps of sd 1/8 of the range, reflected).

Initial y: ``uniform`` (cnsim's), or ``stationary`` (the update rule's stationary law).
"""

from __future__ import annotations

import time

from cnsim.bench import provenance
from cnsim.bench.fidelity.calls import sparse_calls
from cnsim.bench.fidelity.expected import expected_table
from cnsim.bench.fidelity.masses import readings_table
from cnsim.bench.fidelity.paper import KS, PAPER, M


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Both parts; ``quick`` shrinks m, the event counts and the seeds."""
    started = time.perf_counter()
    if quick:
        seeds, n_long, n_short, n_calls, m_calls, ks = [1], 1_000, 500, 200, 100_000, [1, 10]
        few, times = ks, (0, 5_000)
    else:
        seeds, n_long, n_short, n_calls, m_calls, ks = [1, 2], 10_000, 5_000, 1_500, M, KS
        few, times = [1, 10, 20], (0, 10_000, 30_000, 100_000)
    combos = [("uniform", "uniform"), ("uniform", "stationary"), ("redraw", "uniform")]
    expected = expected_table(seeds, ks, combos)
    by_time = expected_table(seeds, few, [("uniform", "uniform")], times)
    simulated = {}
    for update, initial, n, these in (
        ("uniform", "uniform", n_long, ks),
        ("uniform", "stationary", n_long, ks),
        ("volatile", "uniform", n_short, few),
    ):
        simulated.update(readings_table(seeds[:1], n, [(update, initial)], these))
    call_seeds = [1, 2, 3][: len(seeds) + 1]
    calls = {"stationary": sparse_calls(call_seeds, n_calls, m_calls, "stationary", ks)}
    return {
        **provenance("fidelity", quick, full),
        "ks": ks,
        "seeds": seeds,
        "events_simulated": {"long": n_long, "short": n_short},
        "calls_seeds": call_seeds,
        "events_calls": n_calls,
        "m_calls": m_calls,
        "paper": PAPER,
        "expected": expected,
        "expected_by_time": by_time,
        "readings": simulated,
        "sparse_calls": calls,
        "headline": {
            f"expected messages received ({combo})": {
                k: expected[combo][f"0/{k}"]["triangle"]["exact"] for k in ks
            }
            for combo in expected
        },
        "wall_s": time.perf_counter() - started,
    }
