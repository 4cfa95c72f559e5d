"""What one batch of events holds at once — every approach's deliveries of the batch —
in the memory estimate (``cnsim.simulations.sizes.batch_deliveries``): the estimate grows
with ``events.batch_size`` as its rule says, and a batch whose deliveries do not fit is
refused in one line before any work (harness: tests/refusals.py)."""

from __future__ import annotations

import pytest
from refusals import Case, assert_refused

import cnsim
from cnsim.errors import InputError
from cnsim.simulations import runner, sizes
from cnsim.simulations.sizes import (
    COSTS,
    DELIVERIES,
    PER_EVENT,
    PER_EVENT_SETTLING,
    estimate,
    quantities,
)

M, N, K, EVENTS = 100_000, 1_000, 10, 10_000


def scenario(batch: int, approaches=("paint-dense",), **sections) -> cnsim.Scenario:
    base = {
        "objects": {"count": N},
        "subscriptions": {"count": M, "k": K},
        "events": {"count": EVENTS, "batch_size": batch},
        "overlay": {"kind": "ideal"},
        "algorithm": {"approaches": list(approaches)},
    }
    for name, keys in sections.items():
        base[name] = {**base.get(name, {}), **keys}
    return cnsim.Scenario(**base)


def test_the_estimate_grows_with_the_batch_as_its_rule_says():
    """An exact approach: c m k / n deliveries an event (c = 3.2 while uniform y-values
    settle, 2.5 when they start at the update model's stationary law), held for two
    batches (one if the run has one)."""
    per_event = PER_EVENT_SETTLING * M * K / N
    parts = []
    for batch in (1, 100, 1_000, 5_000, 10_000, 20_000):
        est = estimate(scenario(batch))
        held = per_event * min(EVENTS, 2 * batch)
        assert quantities(scenario(batch))["delivery"] == pytest.approx(held)
        assert est.parts[DELIVERIES] == pytest.approx(COSTS["delivery"] * held)
        parts.append(est.parts[DELIVERIES])
    assert parts[:4] == sorted(parts[:4]) and len(set(parts[:4])) == 4
    # two batches of half the run hold as much as the run in one batch, or in a larger one
    assert parts[3] == parts[4] == parts[5]
    # 10,000 events in one batch: 32 million deliveries of 26 bytes
    assert estimate(scenario(EVENTS)).parts[DELIVERIES] == pytest.approx(3.2e7 * 26)
    settled = scenario(EVENTS, objects={"y_distribution": "stationary"})
    assert quantities(settled)["delivery"] == pytest.approx(PER_EVENT * M * K / N * EVENTS)


def test_each_approach_holds_its_own_deliveries_by_what_it_sends():
    q = quantities(scenario(EVENTS, ("paint-dense", "paint-sparse")))
    one = quantities(scenario(EVENTS))
    assert q["delivery"] == 2 * one["delivery"]  # each approach's, both held
    # Unicast: one message a changed list, its message held with the delivery
    uni = quantities(scenario(EVENTS, ("unicast",)))
    assert (
        uni["delivery_message"]
        == uni["delivery"]
        == pytest.approx((PER_EVENT_SETTLING - 1) * M * K / N * EVENTS)
    )
    assert one["delivery_message"] == 0
    # Paint-*(ε): regions of ⌈εk⌉ steps, √⌈εk⌉ times the exact approach's
    eps = quantities(scenario(EVENTS, ("paint-dense(0.5)",)))
    assert eps["delivery"] == pytest.approx(one["delivery"] * 5**0.5)
    # brokers hold 8-byte ids and rows
    over = quantities(scenario(EVENTS, overlay={"kind": "meghdoot"}))
    assert over["delivery_brokers"] == over["delivery"] == one["delivery"]
    assert one["delivery_brokers"] == 0


def test_coalescing_holds_at_most_one_update_per_object_a_batch():
    q = quantities(scenario(EVENTS, ("coalesce", "online")))
    online = quantities(scenario(EVENTS, ("online",)))["delivery"]
    assert q["delivery"] - online == pytest.approx(online * N / EVENTS)


def test_cn_relax_holds_every_subscription_holding_the_object():
    relax = ("cn-relax",)
    assert quantities(scenario(1, relax))["delivery"] == pytest.approx(0.5 * M * 2)
    moving = scenario(1, relax, events={"moves": 0.5})
    assert quantities(moving)["delivery"] == pytest.approx(0.5 * 1.5 * M * 2)
    clustered = scenario(1, relax, subscriptions={"distribution": "clustered"})
    assert quantities(clustered)["delivery"] == pytest.approx(M * 2)
    boxes = scenario(1, relax, subscriptions={"kind": "box", "dims": 2})
    assert quantities(boxes)["delivery"] == pytest.approx(0.25 * M * 2)


def test_the_dry_run_prints_the_batch_deliveries():
    text = estimate(scenario(EVENTS)).text()
    assert DELIVERIES in text
    assert DELIVERIES not in estimate(scenario(1, events={"count": 0})).text()


def _no_work(*args, **kwargs):
    raise AssertionError("work started before the memory check")


def test_a_batch_whose_deliveries_do_not_fit_is_refused_before_any_work(monkeypatch):
    monkeypatch.setattr(sizes, "available_memory", lambda: 1e9)
    monkeypatch.setattr(runner, "build_workload", _no_work)
    big = scenario(EVENTS)  # 40 million deliveries: ~2 GB
    with pytest.raises(InputError) as err:
        cnsim.run(big)
    text = str(err.value)
    assert "\n" not in text
    assert f"most for {DELIVERIES}" in text
    fits = int(text.split("events.batch_size = 10000: allowed at most ")[1].split()[0])
    assert sizes.check_fits(scenario(fits)).total <= 1e9  # the largest batch that fits
    with pytest.raises(InputError):
        sizes.check_fits(scenario(fits + 1))


def test_no_smaller_batch_is_offered_when_none_fits(monkeypatch):
    monkeypatch.setattr(sizes, "available_memory", lambda: 5e8)
    huge = scenario(EVENTS, ("cn-relax",), subscriptions={"count": 10**7})
    with pytest.raises(InputError) as err:
        sizes.check_fits(huge)
    assert "events.batch_size" not in str(err.value)


BATCH = "[objects]\ncount = 1000\n[subscriptions]\ncount = 100000\nk = 10\n"
BATCH += "[events]\ncount = 10000\nbatch_size = 10000\n"


@pytest.mark.parametrize("dry", [False, True], ids=["run", "dry-run"])
def test_the_command_refuses_a_batch_too_big_in_one_line(
    dry, bad_inputs, capsys, monkeypatch
) -> None:
    monkeypatch.setattr(sizes, "available_memory", lambda: 1e9)
    monkeypatch.setattr(runner, "build_workload", _no_work)
    argv = ["run", "@" + BATCH, "--out", "{d}/o", *(["--dry-run"] if dry else [])]
    case = Case(
        "run-batch-deliveries",
        argv,
        rf"needs about .* \(most for {DELIVERIES}: .*\).*"
        r"events\.batch_size = 10000: allowed at most \d+ here",
    )
    assert_refused(case, bad_inputs, capsys, monkeypatch)
