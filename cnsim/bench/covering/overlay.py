"""The covering benchmark over the content-based overlay: seed 001's command stream
with churn through the brokers, covering off and on (:func:`bench_overlay`), and the
batch churn replay against the reference brokers (:func:`bench_engines`)."""

from __future__ import annotations

import time


def bench_overlay(quick: bool, log, **sizes) -> dict:
    """The content-based overlay: seed 001's command stream on box
    subscriptions with churn, interleaved with events, covering off and on:
    subscription messages, routing-table entries and covering work; then CN-Relax's
    per-event traffic over the content-based overlay against Meghdoot (seed 003 ranges)."""
    from cnsim.simulations.config import from_dict
    from cnsim.simulations.runner import simulate

    if quick:
        net, commands, events, dims, m = {"ip_nodes": 2000, "brokers": 100}, 3000, 500, (2, 4), 5000
        coverings = ("none", "g1", "poset", "full")
    else:  # the paper's world, 100,000 boxes with churn, 10,000 events
        net, commands, events, dims = {"ip_nodes": 20000, "brokers": 1000}, 100_000, 10_000, (2, 3)
        m = 100_000
        coverings = ("none", "g1", "gk", "full", "poset")  # all in the batch replay
    # explicit sizes (the paper-scale run in RESULTS.md): any of these keys
    net = sizes.get("net", net)
    commands = sizes.get("commands", commands)
    events = sizes.get("events", events)
    dims = sizes.get("dims", dims)
    m = sizes.get("m", m)
    coverings = sizes.get("coverings", coverings)
    relax_covering = sizes.get("relax_covering", "g1")  # event traffic: the same for all
    covering_k = sizes.get("covering_k", 3)  # G_k's k when "gk" is among the coverings
    res: dict = {"network": net, "commands": commands, "events": events, "churn": 0.15}
    if sizes.get("engines", True):
        res["engines"] = bench_engines(net, log, **sizes.get("engine_sizes", {}))
    # worlds come from (and go to) the user's cache (CNSIM_CACHE)
    for d in dims:
        for covering in coverings:
            sc = from_dict(
                {
                    "seed": 1,
                    "subscriptions": {"count": commands, "churn": 0.15, "kind": "box", "dims": d},
                    "events": {"count": events},
                    "network": net,
                    "overlay": {
                        "kind": "content-based",
                        "covering": covering,
                        **({"covering_k": covering_k} if covering == "gk" else {}),
                    },
                    "algorithm": {"approaches": ["cn-relax"]},
                    "run": {"progress": False},
                }
            )
            t, cpu = time.perf_counter(), time.process_time()
            r = simulate(sc)
            tot, ev = r.summary["totals"], r.events
            row = {
                **{k: tot[k] for k in ("sub_msgs", "unsub_msgs", "withdrawals")},
                "routing_entries_mean": r.summary["routing_entries_per_broker_mean"],
                "routing_entries_max": tot["routing_entries_max"],
                "covering_queries": tot["covering_sub_queries"] + tot["covering_unsub_queries"],
                "covering_point_comparisons": tot["covering_sub_point_comparisons"]
                + tot["covering_unsub_point_comparisons"],
                "event_overlay_bytes_mean": float(ev["overlay_bytes"].mean()),
                "delivered_mean": float(ev["delivered_msgs"].mean()),
                "time_s": time.perf_counter() - t,
                "cpu_s": time.process_time() - cpu,
            }
            res[f"d={d}/{covering}"] = row
            log(
                f"overlay d={d} {covering}: sub={row['sub_msgs']} unsub={row['unsub_msgs']} "
                f"entries mean={row['routing_entries_mean']:.1f} "
                f"max={row['routing_entries_max']} {row['time_s']:.1f}s"
            )
    for kind in ("content-based", "meghdoot") if sizes.get("relax", True) else ():
        sc = from_dict(
            {
                "seed": 1,
                "objects": {"count": 10_000},
                "subscriptions": {"count": m, "k": 10},
                "events": {"count": events},
                "network": net,
                "overlay": {"kind": kind, "covering": relax_covering},
                "algorithm": {"approaches": ["cn-relax"]},
                "run": {"progress": False},
            }
        )
        t = time.perf_counter()
        frame = simulate(sc).events
        cols = ("delivered_msgs", "overlay_bytes", "ip_bytes", "last_hop_ip_bytes")
        row = {c: float(frame[c].mean()) for c in cols}
        row["time_s"] = time.perf_counter() - t
        res[f"cn-relax/{kind}"] = row
        log(f"cn-relax over {kind}: {row}")
    return res


def bench_engines(
    net: dict, log, commands: int = 2000, events: int = 200, d: int = 2, covering: str = "g1"
) -> dict:
    """Churn replay by the reference brokers (one message at a time) and by the batch
    replay, side by side on one scenario (G_1, k-d tree): seconds each, their ratio,
    and whether every row (``match_*`` aside) is the same."""
    from cnsim.simulations.config import from_dict

    sc = from_dict(
        {
            "seed": 1,
            "subscriptions": {"count": commands, "churn": 0.15, "kind": "box", "dims": d},
            "events": {"count": events},
            "network": net,
            "overlay": {"kind": "content-based", "covering": covering},
            "algorithm": {"approaches": ["cn-relax"]},
            "run": {"progress": False},
        }
    )
    _rows(churn_warmup(net), "batch")  # load the world, compile
    out: dict = {"commands": commands, "events": events, "d": d, "covering": covering}
    rows = {}
    for engine in ("batch", "reference", "batch"):
        t = time.perf_counter()
        rows[engine] = _rows(sc, engine)
        out[f"{engine}_s"] = time.perf_counter() - t  # the second batch run counts
    out["speedup"] = out["reference_s"] / out["batch_s"]
    out["rows_equal"] = rows["batch"] == rows["reference"]
    log(f"engines: reference {out['reference_s']:.1f}s batch {out['batch_s']:.2f}s "
        f"({out['speedup']:.0f}x), rows equal: {out['rows_equal']}")  # fmt: skip
    return out


def _rows(scenario, engine: str) -> list[list]:
    """Every event's metrics (``match_*`` aside) of a command stream replayed by
    ``engine``."""
    from cnsim.simulations.runner import StreamSimulation

    sim = StreamSimulation(scenario, engine=engine)
    metrics = [m for m in sim.metrics() if not m.name.startswith("match_")]
    return [[m.collect(o) for m in metrics] for _, out in sim.steps() for o in out.values()]


def churn_warmup(net: dict):
    """A tiny churn scenario on ``net`` (compiles the kernels, loads the world)."""
    from cnsim.simulations.config import from_dict

    return from_dict(
        {
            "seed": 1,
            "subscriptions": {"count": 50, "churn": 0.2, "kind": "box", "dims": 2},
            "events": {"count": 5},
            "network": net,
            "overlay": {"kind": "content-based", "covering": "g1"},
            "algorithm": {"approaches": ["cn-relax"]},
            "run": {"progress": False},
        }
    )
