"""Seed 001's printed figures the covering benchmark is set against: Tables I and II
(k-d tree, thousands; §V-B) and the targets of §V-C, read from a run."""

from __future__ import annotations

KS = (1, 2, 3, 4, 5, 6)
#: per k, its row of Table I (p = 5%) and of Table II (p = 40%), side by side: nv, nvs,
#: nvu, pc, pcs, pcu in thousands
_ROWS = {
    1: ((813, 782, 31, 6147, 5993, 154), (556, 415, 141, 6192, 4684, 1508)),
    2: ((983, 974, 9, 9967, 9852, 115), (634, 529, 105, 8952, 7376, 1576)),
    3: ((1140, 1131, 9, 13111, 12973, 138), (714, 615, 99, 11026, 9365, 1661)),
    4: ((1275, 1266, 9, 15816, 15663, 153), (780, 683, 97, 12661, 10936, 1725)),
    5: ((1400, 1390, 10, 18274, 18111, 163), (839, 740, 99, 14050, 12260, 1790)),
    6: ((1508, 1498, 10, 20407, 20237, 170), (889, 789, 100, 15233, 13389, 1844)),
}
#: p -> k -> the row of its table
PAPER = {p: {k: rows[t] for k, rows in _ROWS.items()} for t, p in enumerate((0.05, 0.4))}


def table_row(r: dict) -> dict:
    """nv, nvs, nvu, pc, pcs, pcu in thousands (the layout of seed 001 Tables I, II)."""
    s, u = r["stats"]["subscribe"], r["stats"]["unsubscribe"]
    vals = (
        s["nodes_visited"] + u["nodes_visited"],
        s["nodes_visited"],
        u["nodes_visited"],
        s["point_comparisons"] + u["point_comparisons"],
        s["point_comparisons"],
        u["point_comparisons"],
    )
    names = ("nv", "nvs", "nvu", "pc", "pcs", "pcu")
    return dict(zip(names, (v / 1000 for v in vals), strict=True))


def targets(vb: dict, vc: dict, graphs: dict, dims, sizes) -> dict:
    D, n = max(dims), max(sizes)
    t = {i: vc.get(f"D={D}/n={n}/{i}", {}).get("time_s") for i in ("naive", "kdtree", "zorder")}
    out = {"dims": D, "commands": n, "time_s": t}
    if t["naive"] and t["kdtree"]:
        out["kdtree_vs_naive"] = t["naive"] / t["kdtree"]
        out["kdtree_vs_naive_met (>= 10)"] = out["kdtree_vs_naive"] >= 10
    if t["zorder"] and t["kdtree"]:
        out["kdtree_vs_zorder"] = t["zorder"] / t["kdtree"]
        out["kdtree_vs_zorder_met (>= 2)"] = out["kdtree_vs_zorder"] >= 2
    kd = vc.get(f"D={D}/n={n}/kdtree")
    if kd:
        out["kdtree_commands_per_s"] = kd["commands_per_s"]
        out["kdtree_rate_met (>= 100000)"] = kd["commands_per_s"] >= 100_000
    # G_1 the least total covering work among G_k, for every stream and both indexes
    least = {}
    for key in {k.rsplit("/k=", 1)[0] for k in vb}:
        work = {
            k: vb[f"{key}/k={k}"]["total_point_comparisons"] for k in KS if f"{key}/k={k}" in vb
        }
        least[key] = min(work, key=work.get) == 1
    for p in (0.05, 0.15, 0.4):
        work = {
            k: graphs[f"p={p}/G_{k}"]["total_point_comparisons"]
            for k in KS
            if f"p={p}/G_{k}" in graphs
        }
        if work:
            least[f"p={p}/graphs"] = min(work, key=work.get) == 1
    out["g1_least_work"] = least
    out["g1_least_work_met"] = all(least.values())
    return out
