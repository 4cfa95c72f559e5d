"""``cnsim bench timed``: timed mode (SimPy) against counting mode on one scenario
(target: timed at most 3× slower). Both runs share the world (cached) and the
workload; the figure compared is the time spent on events, set-up excluded.

The target is measured with the Paint approaches; a second measurement adds
Unicast and CN-Relax, whose thousands of messages per event make thousands of hop
callbacks (reported, not a target)."""

from __future__ import annotations

from cnsim.bench import provenance
from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import run

PAINT = ["paint-dense", "paint-sparse"]
BASELINES = ["unicast", "cn-relax"]


def _scenario(mode: str, m: int, events: int, network: dict, approaches: list[str]):
    return from_dict(
        {
            "seed": 1,
            "objects": {"count": 10_000},
            "subscriptions": {"count": m, "k": 10},
            "events": {"count": events},
            "network": network,
            "algorithm": {"approaches": approaches},
            "run": {"mode": mode, "progress": False},
        }
    )


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Event-processing time of both modes, and their ratio."""
    if quick:
        network, m, events = {"ip_nodes": 2_000, "brokers": 100}, 100_000, 200
    else:
        network, m, events = {"ip_nodes": 20_000, "brokers": 1_000}, 2_000_000, 500
    results = {}
    for label, approaches in (("paint", PAINT), ("with_baselines", PAINT + BASELINES)):
        seconds = {}
        for mode in ("counting", "timed", "counting"):  # counting twice: warm caches first
            _, summary = run(_scenario(mode, m, events, network, approaches))
            seconds[mode] = summary["total_time_s"] - summary["setup_time_s"]
        results[label] = {
            "approaches": approaches,
            "events_s": seconds,
            "timed_over_counting": seconds["timed"] / seconds["counting"],
        }
    return {
        **provenance("timed", quick, full),
        "subscriptions": m,
        "events": events,
        "network": network,
        **results,
        "timed_over_counting": results["paint"]["timed_over_counting"],
        "headline": results,
    }
