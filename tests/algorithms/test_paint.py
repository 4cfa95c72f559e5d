"""The Paint algorithms on many random small scenarios, checked by `verify` after
every event against the brute-force oracle."""

import numpy as np
import pytest

from cnsim.algorithms import regions
from cnsim.simulations.config import from_dict
from cnsim.simulations.verify import verify

ALL = [
    "paint-dense",
    "paint-sparse",
    "paint-dense(1)",
    "paint-sparse(1)",
    "paint-dense(0.25)",
    "paint-sparse(0.125)",
]


def scenario(seed, k, objects, subscriptions, n=80, m=1500, events=120, churn=0.1):
    return from_dict(
        {
            "seed": seed,
            "objects": {"count": n, "distribution": objects},
            "subscriptions": {"count": m, "distribution": subscriptions, "k": k},
            "events": {"count": events, "inserts": churn, "deletes": churn, "moves": churn},
            "algorithm": {"approaches": ALL},
            "run": {"progress": False},
            "overlay": {"kind": "ideal"},
        }
    )


# (seed, k, objects, subscriptions)
CASES = [
    (0, 1, "uniform", "uniform"),
    (1, 2, "clustered", "uniform"),
    (2, 3, "uniform", "clustered"),
    (3, 5, "clustered", "correlated"),
    (4, 7, "clustered", "anti-correlated"),
    (6, 13, "clustered", "clustered"),
    (7, 16, "uniform", "correlated"),
    (8, 20, "clustered", "uniform"),
]


# Each pair of distributions once, k from 1 to 20. The quick run checks the first four
# (k = 1 to 5); larger k take up to 8 s each.
QUICK = 4


@pytest.mark.parametrize(
    ("seed", "k", "objects", "subscriptions"),
    [c if i < QUICK else pytest.param(*c, marks=pytest.mark.slow) for i, c in enumerate(CASES)],
)
def test_every_check_passes(seed, k, objects, subscriptions):
    report = verify(scenario(seed, k, objects, subscriptions))
    assert report.ok, report.text()
    assert report.events == 120


def test_sparse_subscriptions_make_paint_sparse_send_fewer_messages():
    from cnsim.simulations.runner import run

    frame, _ = run(scenario(3, 5, "uniform", "clustered", n=200, m=300, events=200, churn=0))
    msgs = frame.groupby("approach")["server_out_msgs"].sum()
    assert msgs["paint-sparse"] < msgs["paint-dense"]
    assert msgs["paint-dense(1)"] < msgs["paint-dense"]
    delivered = frame.groupby("approach")["delivered_msgs"].sum()
    assert delivered["paint-sparse"] == delivered["paint-dense"]


def test_verify_catches_a_wrong_algorithm(monkeypatch):
    # Drop the last rectangle of every gained region: replacements go missing.
    original = regions.gained_region
    monkeypatch.setattr(regions, "gained_region", lambda *a: original(*a)[:-1])
    report = verify(scenario(1, 4, "uniform", "uniform", events=60))
    assert not report.ok
    assert any(check == "lists" for _, check in report.failures)


def test_verify_catches_false_positives_of_an_exact_approach(monkeypatch):
    # Widen every influence region: unaffected subscriptions hear of the update.
    original = regions.influence_region

    def widened(x_i, L, R, k):
        return [(lo - 1, li, ri, np.inf) for lo, li, ri, _ in original(x_i, L, R, k)]

    monkeypatch.setattr(regions, "influence_region", widened)
    report = verify(scenario(2, 3, "uniform", "uniform", events=40))
    assert ("paint-dense", "exact-notifies-affected-only") in report.failures
