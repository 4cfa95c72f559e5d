"""What the BE*-tree benchmark measures at each size: the figures' axes and values
(seed 002 Table III, Figures 6-9), the structures measured at which points, the event
counts.  The measuring is :mod:`.harness`'s."""

from __future__ import annotations

from cnsim.subscriptions.ranked.boolean import REGISTRY
from cnsim.subscriptions.ranked.boolean.workload import AUTHOR, MP_AUTHOR, MP_TITLE, TITLE

STRUCTURES = tuple(s for s in ("betree_star", "betree", "kindex", "scan") if s in REGISTRY)

#: the quick run's figure sweeps (``--quick``), at ``QUICK_N`` subscriptions
QUICK_N = 10_000
QUICK_EVENTS = 200
QUICK_AXES = {
    "fig8_size": ("n", [QUICK_N // 4, QUICK_N // 2, QUICK_N]),
    "fig6_cardinality": ("cardinality", [2_500, 250_000_000]),
    "fig7_clusters": ("clusters", [0, 2, 4]),
    "dims": ("dims", [50, 400]),
    "fig9_match_prob": ("match_prob", [0.001, 0.01]),
}
#: the quick run's BE*-tree builds: (sizes, largest one-by-one build)
QUICK_BUILDS = ([10_000, 100_000], 10_000)
#: the quick run's points of the figures of Table III's size column and DBLP workloads
QUICK_TABLE3 = {
    "table3_sub_event_size": (("sub_size", "event_size"), [(5, 13), (16, 26)], {"n": 2_000}),
    "fig8_author": ("n", [2_000], AUTHOR),
    "fig8_title": ("n", [1_000], TITLE),
    "fig9_author": ("match_prob", [0.01], {**MP_AUTHOR, "n": 2_000}),
}

#: the full run: every sweep of Table III / Figures 6-9 at 100,000 subscriptions (the
#: paper's size for Figs 6-7; it uses 1M for dimensions and match probability), the
#: size figure up to 1M.  The BE-tree runs at 100,000 at the points its claims need
#: (cardinality 2,500 and 250M, no / 2 / 4 clusters); the one-by-one BE* in the size
#: figure at 100,000 (the limits of the Python builds of that run; both builds are numba
#: now and :data:`FULL_1M_STRUCTURES` runs them at every point up to 1M); the scan
#: (O(n) per event, 30 events) in the size figure up to 300,000.
FULL_N = 100_000
FULL_EVENTS = 200
SCAN_EVENTS = 30  # the scan is O(n) per event
#: Table III's "Sub/Event Size" column (5-66 / 13-81, 100K): the sizes move together;
#: the paper gives only the range, the three pairs between its ends are our choice
SUB_EVENT_SIZES = [(5, 13), (8, 15), (16, 26), (33, 48), (66, 81)]
FULL_AXES = {
    "fig6_cardinality": ("cardinality", [2_500, 250_000, 250_000_000]),
    "fig7_clusters": ("clusters", [0, 2, 4, 26]),
    "fig6_dims": ("dims", [50, 400, 1400]),
    "fig7_cluster_size": ("cluster_size", [25, 100, 800]),
    "fig9_match_prob": ("match_prob", [0.0001, 0.001, 0.01, 0.09]),
    # a figure is (axis, values[, base]): a paired axis names its keys in a tuple and
    # moves them together; ``base`` overrides the defaults (a ``dist`` in it is the
    # figure's only distribution, its rows labelled "real": measured when ``run_full``'s
    # ``dists`` hold "real")
    "table3_sub_event_size": (("sub_size", "event_size"), SUB_EVENT_SIZES),
    "fig8_author": ("n", [100_000, 300_000, 760_000], AUTHOR),
    "fig8_title": ("n", [50_000, 150_000, 250_000], TITLE),
    "fig9_author": ("match_prob", [0.0001, 0.001, 0.01, 0.09], MP_AUTHOR),
    "fig9_title": ("match_prob", [0.0001, 0.001, 0.01, 0.09], MP_TITLE),
    "fig8_size": ("n", [100_000, 300_000, 1_000_000]),
}
#: label -> (structure, bulk, largest n, only in these figures or (figure, value)
#: points (None: all); a row shows every structure measured at its point)
FULL_STRUCTURES = {
    "BE*-B": ("betree_star", True, None, None),
    "BE*": ("betree_star", False, None, (("fig8_size", 100_000), "table3_sub_event_size",
                                          "fig8_author", "fig8_title")),
    "BE": (
        "betree",
        True,
        None,
        (("fig8_size", 100_000), ("fig6_cardinality", 2_500), ("fig7_clusters", 0),
         ("fig7_clusters", 2), "table3_sub_event_size", ("fig8_author", 100_000),
         ("fig8_author", 300_000), "fig8_title"),
    ),
    "k-ind": ("kindex", False, None, None),
    "SCAN": ("scan", False, 300_000, ("fig8_size",)),
}

#: the run at 1M (RESULTS "Full run, dynamic BE* and BE-tree at 1M"): Fig 8's sizes up
#: to 1M and Fig 9's match probabilities at 1M, the paper's sizes, every structure at
#: every point (the node tables and the k-index's build are columnar: the BE-tree at 1M
#: peaks at ~4.4 GB, the one-by-one BE* at ~2.7 GB).  Before the atomic-bucket rule the
#: one-by-one BE* skipped 9% (its build at 300,000 took 239-274 s; 71 s after)
FULL_1M_N = 1_000_000
FULL_1M_AXES = {
    "fig8_size": ("n", [100_000, 300_000, 1_000_000]),
    "fig9_match_prob": ("match_prob", [0.0001, 0.001, 0.01, 0.09]),
}
FULL_1M_STRUCTURES = {
    "BE*-B": ("betree_star", True, None, None),
    "BE*": ("betree_star", False, None, None),
    "BE": ("betree", True, None, None),
    "k-ind": ("kindex", False, None, None),
}

#: the figures of :func:`run_table3` (RESULTS "Table III's size sweep and DBLP-like
#: workloads"): the sub / event size sweep at 100,000 (both distributions), Fig 8's
#: author and title panels, the "Match Prob (Author / Title)" variants
TABLE3_FIGS = ("table3_sub_event_size", "fig8_author", "fig8_title", "fig9_author", "fig9_title")
#: figures measured otherwise than in :data:`FULL_AXES` (none now; a scaled-down
#: figure goes here, its reason beside it)
TABLE3_AXES: dict = {}
#: the structures of :func:`run_table3`: :data:`FULL_STRUCTURES`' but the scan, and in the
#: "Match Prob" figures also the one-by-one BE* and the BE-tree (the full run leaves both
#: out there, for time)
TABLE3_STRUCTURES = {k: v for k, v in FULL_STRUCTURES.items() if k != "SCAN"}
TABLE3_STRUCTURES["BE*"] = (*FULL_STRUCTURES["BE*"][:3],
                            (*FULL_STRUCTURES["BE*"][3], "fig9_author", "fig9_title"))  # fmt: skip
TABLE3_STRUCTURES["BE"] = (*FULL_STRUCTURES["BE"][:3],
                           (*FULL_STRUCTURES["BE"][3], "fig9_author", "fig9_title"))  # fmt: skip
