"""``cnsim bench covering``'s speed section: it runs at a small size, the
k-d tree and Z-order see the same stream, and the time split is consistent."""

from __future__ import annotations

from cnsim.bench.covering.speed import bench_speed
from cnsim.bench.covering.streams import BITS
from cnsim.subscriptions.covering.workload import UNSUBSCRIBE, command_stream


def test_bench_speed_small():
    n, D = 1500, 6
    r = bench_speed(n=n, D=D, log=lambda m: None, repeats=1, seed=3)
    subscribes = int((command_stream(n, D // 2, 0.15, seed=3, bits=BITS).op != UNSUBSCRIBE).sum())
    kd, zo = r["best"]["kdtree"], r["best"]["zorder"]
    # G_1 on the same stream: one query per subscribe, plus re-queries of orphans
    assert kd["queries"] >= subscribes and zo["queries"] >= subscribes
    assert kd["point_comparisons"] > 0 and zo["nodes_visited"] > 0
    w = r["where"]
    # the walk replays every subscribe point (its counts are asserted equal to
    # kd_query's inside bench_speed)
    assert w["walk"]["queries"] == subscribes
    assert w["ns_per_node"] > 0 and w["ns_per_comparison"] >= 0
    assert abs(w["comparisons_s"] + w["nodes_s"] + w["rest_s"] - kd["cpu_s"]) < 1e-9
    assert w["comparisons_per_command"] == kd["point_comparisons"] / n
