"""The Markdown tables of a BE*-tree run, in RESULTS.md's layout."""

from __future__ import annotations

from cnsim.bench.betree.plans import FULL_AXES
from cnsim.bench.betree.results import axis_name
from cnsim.bench.betree.results import top_us as _top


def _value(fig: str, val: str) -> str:
    """An axis value as RESULTS prints it: counts with thousands, probabilities in %."""
    axis = FULL_AXES.get(fig, (fig,))[0]
    if axis == "n":
        return f"{int(val):,}"
    if axis == "match_prob":
        return f"{float(val) * 100:g}%"
    return val.replace("/", " / ")


def tables(res: dict) -> str:
    """Markdown tables of a run (the layout of RESULTS.md), one per figure: per point the
    mean matches, per structure matching µs/event (top-1 / top-5 µs), then every
    structure's build s and MB (``nbytes``); "-" where a structure was not measured."""
    out = []
    labs = list(res["structures"])

    def cell_us(c):
        return f"{c['match_us']:,.0f} ({_top(c, 1):,.0f} / {_top(c, 5):,.0f})"

    for fig, per in res["figures"].items():
        axis = axis_name(FULL_AXES.get(fig, (fig,))[0])
        out.append(f"**{fig}** ({axis}): matching µs/event (top-1 / top-5 µs); build s; MB\n")
        slash = " / ".join(labs)
        head_ = ["dist", axis, "matches", *labs, f"build s {slash}", f"MB {slash}"]
        out.append("| " + " | ".join(head_) + " |")
        out.append("|---|---:|---:|" + "---:|" * len(labs) + "---|---|")
        for dist, rows in per.items():
            for val, cell in rows.items():
                m = next(iter(cell.values()))["mean_matches"]
                r = [dist, _value(fig, val), f"{m:,.0f}"]
                r += ["-" if x not in cell else cell_us(cell[x]) for x in labs]
                for key, f in (("build_s", "{:.1f}"), ("mb", "{:.0f}")):
                    r.append(" / ".join("-" if x not in cell else f.format(cell[x][key])
                                        for x in labs))  # fmt: skip
                out.append("| " + " | ".join(r) + " |")
        out.append("")
    return "\n".join(out)
