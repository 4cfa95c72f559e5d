"""``cnsim bench batch``'s minimum column against verify's per-batch minimum."""

import pytest

from cnsim.bench.batch import _fewest_received
from cnsim.simulations.config import from_dict
from cnsim.simulations.verify import verify


@pytest.mark.parametrize("mix", [0.0, 0.1])
def test_fewest_received_is_verifys_minimum(mix):
    scenario = from_dict(
        {
            "seed": 3,
            "objects": {"count": 300},
            "subscriptions": {"count": 3000, "k": 4},
            "events": {
                "count": 200,
                "batch_size": 200,
                "inserts": mix,
                "deletes": mix,
                "moves": mix,
            },
            "overlay": {"kind": "ideal"},
            "algorithm": {"approaches": ["paint-batch"]},
            "run": {"progress": False},
        }
    )
    report = verify(scenario)
    assert report.ok, report.text()
    minimum = report.minimum[("paint-batch(paint-dense)", "minimum")]
    assert minimum > 0
    assert _fewest_received(scenario) == minimum
