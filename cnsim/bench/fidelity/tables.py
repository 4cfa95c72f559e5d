"""The Markdown tables of a fidelity run (RESULTS.md's are its output)."""

from __future__ import annotations

from cnsim.bench.fidelity.paper import KS
from cnsim.subscriptions.generators.readings import READINGS


def _f(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.2f}" if abs(v) >= 1 else f"{v:.3f}"


def markdown(result: dict) -> str:
    """The tables of benchmarks/RESULTS.md from a result of :func:`run_bench`."""
    ks, paper, out = result["ks"], result["paper"], []
    col = {k: KS.index(k) for k in ks}
    out.append(
        "| update / initial y | k | messages received: triangle / length / left"
        " (paper, Table I) | affected | Unicast candidates (paper, Table III)"
        " | CN-Relax received | CN-Relax redundancy (paper, Table II) |"
    )
    out.append("|---|---|---|---|---|---|---|")
    for combo, rows in result["expected"].items():
        for key, row in rows.items():
            k = int(key.split("/")[1])
            c, t = col[k], row["triangle"]
            recv = " / ".join(_f(row[r]["exact"]) for r in READINGS)
            seeds = ", ".join(_f(v) for v in t["per_seed"])
            out.append(
                f"| {combo} | {k} | **{recv}** [seeds: {seeds}]"
                f" ({_f(paper['messages_received'][c])})"
                f" | {_f(t['affected'])} | {_f(t['candidates'])} ({_f(paper['unicast_min_y'][c])})"
                f" | {_f(t['relax'])} | {_f(t['relax'] / t['exact'] - 1)}"
                f" ({_f(paper['redundancy_cn_relax'][c])}) |"
            )
    out.append("")
    out.append("| events since a uniform start | k | expected messages received (triangle) |")
    out.append("|---|---|---|")
    for rows in result["expected_by_time"].values():
        for key, row in rows.items():
            t, k = key.split("/")
            seeds = ", ".join(_f(v) for v in row["triangle"]["per_seed"])
            out.append(f"| {int(t):,} | {k} | {_f(row['triangle']['exact'])} [{seeds}] |")
    out.append("")
    read = result["readings"]
    out.append(
        "| update / initial y | k | Paint-Dense min_y (paper) | messages received: triangle"
        " / length / left (paper, Table I) | affected | Unicast candidates (paper) |"
        " CN-Relax redundancy (paper) | Paint-Dense(1) redundancy |"
    )
    out.append("|---|---|---|---|---|---|---|---|")
    for combo, rows in read.items():
        for k, row in rows.items():
            k = int(k)
            t = row["triangle"]
            recv = " / ".join(_f(row[r]["messages_received"]) for r in READINGS)
            out.append(
                f"| {combo} | {k} | {_f(row['dense_min_y'])}"
                f" ({_f(paper['paint_dense_min_y'][col[k]])})"
                f" | {recv} ({_f(paper['messages_received'][col[k]])})"
                f" | {_f(t['affected'])} | {_f(t['unicast_candidates'])}"
                f" ({_f(paper['unicast_min_y'][col[k]])})"
                f" | {_f(t['redundancy_cn_relax'])} ({_f(paper['redundancy_cn_relax'][col[k]])})"
                f" | {_f(t['redundancy_paint_dense_1'])} |"
            )
    out.append("")
    out.append(
        "| update / initial y | k | mean | per seed | median | p90 | p99 | p99.9 | max |"
        " top 1% share | mean of the first 100 / 1,000 / 10,000 events |"
    )
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for combo, rows in read.items():
        for k, row in rows.items():
            d = row["distribution_triangle"]
            seeds = ", ".join(_f(v) for v in row["triangle"]["per_seed"])
            by_n = " / ".join(_f(v) for v in row["mean_by_length_triangle"].values())
            out.append(
                f"| {combo} | {k} | {_f(d['mean'])} | {seeds} | {_f(d['median'])} | {_f(d['p90'])}"
                f" | {_f(d['p99'])} | {_f(d['p99.9'])} | {_f(d['max'])}"
                f" | {d['top1pct_share']:.0%} | {by_n} |"
            )
    for initial, table in result["sparse_calls"].items():
        out.append("")
        out.append(
            f"Initial y {initial}, m = {result['m_calls']:,}, seeds {result['calls_seeds']},"
            f" {result['events_calls']:,} events each:"
        )
        out.append("")
        out.append(
            "| k | Paint-Dense min_y (paper) | Paint-Sparse min_y: cnsim / paper's count (paper)"
            " | snap: cnsim / one per G^dense rectangle / footnote 7 (paper) | messages |"
            " received: counted / computed (Table I) | Paint-Sparse(1) redundancy (Table II) |"
        )
        out.append("|---|---|---|---|---|---|---|")
        for k, row in table.items():
            k, mean = int(k), row["mean"]
            c = col[k]
            spread = lambda key, rows=row["per_seed"]: "–".join(  # noqa: E731
                _f(f(r[key] for r in rows)) for f in (min, max)
            )
            out.append(
                f"| {k} | {_f(mean['dense_min_y'])} ({_f(paper['paint_dense_min_y'][c])})"
                f" | {_f(mean['min_y'])} / **{_f(mean['paper_min_y'])}** [{spread('paper_min_y')}]"
                f" ({_f(paper['paint_sparse_min_y'][c])})"
                f" | {_f(mean['snap'])} / **{_f(mean['paper_snap'])}** [{spread('paper_snap')}]"
                f" / {_f(mean['paper_snap_footnote7'])} ({_f(paper['paint_sparse_snap'][c])})"
                f" | {_f(mean['messages'])} | {_f(mean['received'])} [{spread('received')}]"
                f" / {_f(mean['received_expected'])} ({_f(paper['messages_received'][c])})"
                f" | {mean['redundancy_paint_sparse_1']:.3f}"
                f" ({paper['redundancy_paint_sparse_1'][c]}) |"
            )
    return "\n".join(out)
