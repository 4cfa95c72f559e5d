"""The full run of ``cnsim bench betree`` (seed 002's Figures 6-9) at a toy size: every
structure answers the same events with the same match counts as the scan, points shared
by figures are measured once, a partial result is resumed without re-measuring, and
the headline and tables read the result."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import cnsim.bench.betree as BT
from cnsim.bench.betree import harness as H
from cnsim.bench.betree import plans as P
from cnsim.bench.betree import results as R
from cnsim.bench.betree import tables as T
from cnsim.cli import app
from cnsim.errors import CnsimError
from cnsim.subscriptions.ranked.boolean import workload as W

AXES = {"fig7_clusters": ("clusters", [0, 4]), "fig8_size": ("n", [300, 600])}
STRUCT = {
    "BE*-B": ("betree_star", True, None, None),
    "BE*": ("betree_star", False, 300, ("fig8_size",)),
    "k-ind": ("kindex", False, None, None),
    "SCAN": ("scan", False, None, None),
}


def _run(**kw):
    return H.run_full(dists=("uniform",), axes=AXES, n=300, n_events=12, structures=STRUCT, **kw)


def test_head_keeps_the_first_events():
    _, events, _ = W.workload(0, 7, n=50)
    h = H.head(events, 3)
    assert len(h) == 3
    for i in range(3):
        assert h.predicates(i) == events.predicates(i)
    assert len(H.head(events, 99)) == 7


def test_full_plan_runs_every_point_once_headline_first_largest_last():
    plan = H.full_plan(P.FULL_AXES)
    assert sorted(plan, key=str) == sorted(
        [(f, v) for f, spec in P.FULL_AXES.items() for v in spec[1]], key=str
    )
    assert plan[0][0] == "fig7_clusters" and plan[-1] == ("fig8_size", 1_000_000)


def test_run_full_counts_agree_shares_points_and_resumes(monkeypatch):
    calls = []
    real = H.measure

    def counting(name, subs, events, w, **kw):
        calls.append((name, len(subs), w["clusters"]))
        return real(name, subs, events, w, **kw)

    monkeypatch.setattr(H, "measure", counting)
    res = _run()
    figs = res["figures"]
    # the Table III point (n = 300, 4 clusters) is measured once for both figures
    assert calls.count(("kindex", 300, 4)) == 1
    assert ("betree_star", 600, 4) in calls
    cell = figs["fig8_size"]["uniform"]["300"]
    assert set(cell) == {"BE*-B", "BE*", "k-ind", "SCAN"}
    assert "BE*" not in figs["fig8_size"]["uniform"]["600"]  # above its largest n
    for fig in figs.values():
        for c in fig["uniform"].values():
            m = {lab: r["mean_matches"] for lab, r in c.items()}
            assert len(set(m.values())) == 1, m  # all agree with the scan
    # resuming from a partial result measures nothing again, and every partial result
    # of the resumed run holds the prior's points from the start
    part = json.loads(json.dumps(res, default=R.json_default))
    calls.clear()
    seen = []
    again = _run(prior=part, on_point=lambda r: seen.append(json.loads(json.dumps(r))))
    assert calls == []
    for snap in seen:
        for fig, per in part["figures"].items():
            assert snap["figures"][fig]["uniform"].keys() == per["uniform"].keys()
    assert again["figures"]["fig8_size"]["uniform"]["600"]["k-ind"]["match_us"] == pytest.approx(
        res["figures"]["fig8_size"]["uniform"]["600"]["k-ind"]["match_us"]
    )
    merged = H.merge_full([part])
    assert any("faster than k-ind" in k for k in merged["headline"])
    text = T.tables(merged)
    assert "| uniform | 600 |" in text and "**fig7_clusters**" in text
    assert np.isfinite(cell["BE*-B"]["top_us"][1])


def test_builds_are_warmed_before_they_are_timed(monkeypatch):
    """No measured build includes numba compilation: run_full builds every structure on
    a small workload before its first measured point."""
    order = []
    warm = H.warm_builds
    monkeypatch.setattr(H, "warm_builds", lambda s, seed=0: order.append(("warm", tuple(s))))
    real = H.measure
    monkeypatch.setattr(H, "measure", lambda *a, **k: order.append(a[0]) or real(*a, **k))
    _run()
    assert order[0] == ("warm", tuple(STRUCT)) and len(order) > 1
    warm({"BE*": ("betree_star", False, None, None), "k-ind": ("kindex", False, None, None)})


def test_build_speedup_compares_the_same_trees():
    res = H.build_speedup(n=400, dists=("uniform",))
    for row in res["uniform"].values():
        assert row["same_tree"] and row["numba_s"] > 0 and row["python_s"] > 0


def _bench_betree(*args):
    return CliRunner().invoke(app, ["bench", "betree", *args])


def test_the_long_forms_reject_bad_options_in_one_line(tmp_path):
    for args, words in (
        (["--full", "--quick"], "--full = True is given with --quick"),
        (["--full", "--json", str(tmp_path / "nowhere" / "x.json")], "does not exist"),
        (["--table", "4"], "--table = 4 is not one of the choices"),
        (["--figures", "fig8_author"], "--figures = ['fig8_author'] names an unknown figure"),
        (["--figures", "fig8_size", "--full"], "is given with --full or --resume"),
        (["--full", "--resume"], "--resume = True is given without --json"),
    ):
        result = _bench_betree(*args)
        assert isinstance(result.exception, CnsimError), (args, result.output)
        message = str(result.exception)
        assert message.startswith("cnsim bench betree: ") and words in message, message
        assert "\n" not in message


def test_tables_option_prints_a_results_tables(tmp_path):
    """``--tables FILE`` prints RESULTS' layout of a saved run; a file that is not one
    is refused in one line, before any output."""
    res = H.merge_full([_run()])
    f = tmp_path / "run.json"
    f.write_text(json.dumps(res, default=R.json_default))
    result = _bench_betree("--tables", str(f))
    assert result.exit_code == 0, result.output
    out = result.output
    assert out == T.tables(json.loads(f.read_text())) + "\n"
    row = next(r for r in out.splitlines() if r.startswith("| uniform | 600 |"))
    cells = row.strip("|").split("|")
    assert len(cells) == 3 + len(STRUCT) + 2  # dist, n, matches, structures, build, MB
    assert cells[3 + list(STRUCT).index("BE*")].strip() == "-"  # not measured above 300
    for bad, words in (({"figures": {}}, "holds no 'figures'"), (None, "is not a file"),
                       ("{", "cannot be read")):  # fmt: skip
        g = tmp_path / "bad.json"
        g.unlink(missing_ok=True)
        if bad is not None:
            g.write_text(bad if isinstance(bad, str) else json.dumps(bad))
        result = _bench_betree("--tables", str(g))
        assert isinstance(result.exception, CnsimError) and result.output == ""
        assert words in str(result.exception) and "\n" not in str(result.exception)


def test_run_full_1m_at_a_toy_size_measures_every_tree_at_every_point():
    seen = []
    res = H.run_full_1m(on_point=seen.append, speedup_n=0, n=300, n_events=8,
                        axes={"fig8_size": ("n", [300, 500]),
                              "fig9_match_prob": ("match_prob", [0.001, 0.01])})  # fmt: skip
    assert seen and seen[-1]["figures"].keys() == res["figures"].keys()
    for fig in res["figures"].values():
        for dist in ("uniform", "zipf"):
            for cell in fig[dist].values():
                assert set(cell) == set(P.FULL_1M_STRUCTURES)
                assert len({c["mean_matches"] for c in cell.values()}) == 1


def test_run_full_1m_resumes_without_measuring_again(monkeypatch):
    axes = {"fig8_size": ("n", [300, 500]), "fig9_match_prob": ("match_prob", [0.001, 0.01])}
    seen = []

    def snap(r):  # what the JSON file holds after each point
        seen.append(json.loads(json.dumps(r, default=R.json_default)))

    H.run_full_1m(on_point=snap, speedup_n=0, n=300, n_events=6, axes=axes)
    part = seen[2]  # 3 points in: uniform 300 and 500, zipf 300
    calls = []
    real = H.measure
    monkeypatch.setattr(H, "measure", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    res = H.run_full_1m(speedup_n=0, n=300, n_events=6, axes=axes, prior=part)
    # 3 distinct points per distribution (0.001 is the n = 300 point): 6, 3 kept
    assert len(calls) == 3 * len(P.FULL_1M_STRUCTURES)
    assert (
        res["figures"]["fig8_size"]["uniform"]["300"]
        == part["figures"]["fig8_size"]["uniform"]["300"]
    )
    # the resumed run adds its wall time and peak memory to the first one's
    assert len(part["runs"]) == 1 and len(res["runs"]) == 2
    assert res["wall_s"] == pytest.approx(part["wall_s"] + res["runs"][1]["wall_s"])
    assert res["max_rss_mb"] == max(r["max_rss_mb"] for r in res["runs"])
    # a run stopped in the second stage (Fig 9) keeps its Fig 9 points when resumed
    late = next(r for r in seen if "0.01" in r["figures"].get("fig9_match_prob", {}).get(
        "uniform", {}))  # fmt: skip
    assert "zipf" not in late["figures"]["fig9_match_prob"]
    calls.clear()
    again = H.run_full_1m(speedup_n=0, n=300, n_events=6, axes=axes, prior=late)
    assert len(calls) == len(P.FULL_1M_STRUCTURES)  # zipf 0.01 only
    for fig, per in late["figures"].items():
        for dist, rows in per.items():
            for val, cell in rows.items():
                assert again["figures"][fig][dist][val] == cell
    old = {k: v for k, v in part.items() if k != "runs"}  # a file written before ``runs``
    res = H.run_full_1m(speedup_n=0, n=300, n_events=6, axes=axes, prior=old)
    assert res["runs"][0] == {"wall_s": part["wall_s"], "max_rss_mb": part["max_rss_mb"]}


# ------------------------------ Table III's size column and the DBLP-like workloads


from cnsim.errors import ConfigError  # noqa: E402
from cnsim.subscriptions.ranked.boolean import REGISTRY  # noqa: E402
from cnsim.subscriptions.ranked.boolean import dblp_like as D  # noqa: E402


def _scan_counts(subs, events):
    ix = REGISTRY["scan"]()
    ix.insert_many(subs)
    return ix.count_batch(events)


def test_windows_map_to_two_letter_attributes_and_trigram_values():
    word = "abcdefg"  # windows abcde, bcdef, cdefg; then the length
    codes = np.array([ord(c) - 97 for c in word + "abab" + "abxab"], np.int8)
    ptr = np.array([0, 7, 11, 16])
    p, attr, val = D.predicates(ptr, codes)
    assert p.tolist() == [0, 4, 5, 7]
    tri = lambda s: (ord(s[0]) - 97) * 676 + (ord(s[1]) - 97) * 26 + ord(s[2]) - 97  # noqa: E731
    assert attr[:4].tolist() == [0 * 26 + 1, 1 * 26 + 2, 2 * 26 + 3, D.LENGTH_ATTR]
    assert val[:4].tolist() == [tri("cde"), tri("def"), tri("efg"), 7]
    assert attr[4] == D.LENGTH_ATTR and val[4] == 4  # "abab": no window of 5
    # "abxab": one window; a repeated prefix keeps its first window only
    codes2 = np.array([ord(c) - 97 for c in "ababzab"], np.int8)
    p2, attr2, val2 = D.predicates(np.array([0, 7]), codes2)
    assert attr2.tolist() == [1, 26 * 1 + 0, D.LENGTH_ATTR]  # "ab" (first: abab z), "ba"
    assert val2[0] == tri("abz")


@pytest.mark.parametrize(("dataset", "size"), [("author", 8), ("title", 35)])
def test_dblp_like_strings_sizes_validity_determinism_and_skew(dataset, size):
    ptr, letters = D.strings(dataset, 3, 4000)
    assert len(ptr) == 4001 and letters.min() >= 0 and letters.max() < 26
    h = D._row_hashes(ptr, letters)
    assert len(np.unique(h)) == 4000  # distinct strings (DBLP lists an author once)
    p, attr, val = D.predicates(ptr, letters)
    sizes = np.diff(p)
    assert abs(sizes.mean() - size) < 0.1 * size  # Table III's average size
    assert attr.min() >= 0 and attr.max() == D.LENGTH_ATTR and D.DIMS == 677
    assert val.min() >= 0 and val.max() < D.CARDINALITY == 26**3
    row = np.repeat(np.arange(4000), sizes)
    assert (np.diff(attr)[np.diff(row) == 0] > 0).all()  # ascending, one per attribute
    assert (attr[p[1:] - 1] == D.LENGTH_ATTR).all()  # every string has its length
    again = D.strings(dataset, 3, 4000)
    assert np.array_equal(again[0], ptr) and np.array_equal(again[1], letters)
    other = D.strings(dataset, 4, 4000)
    assert not (len(other[1]) == len(letters) and np.array_equal(other[1], letters))
    # real-data-like skew: the ten most frequent window attributes hold far more than
    # their uniform share (10 / 676), and some two-letter prefixes are (nearly) unused
    freq = np.bincount(attr[attr != D.LENGTH_ATTR], minlength=676) / (attr != 676).sum()
    top10 = np.sort(freq)[::-1][:10].sum()
    assert top10 > 5 * 10 / 676
    assert (freq < 0.1 / 676).sum() > 20
    probs = D.attribute_probs(dataset)
    assert probs.shape == (677,) and probs.sum() == pytest.approx(1.0)


def test_popularity_is_zipf_and_deterministic():
    q = D.popularity_ranks(0, 1000, 20_000)
    assert np.array_equal(q, D.popularity_ranks(0, 1000, 20_000))
    counts = np.sort(np.bincount(q, minlength=1000))[::-1]
    # Zipf (1 / rank): the most popular string is drawn ~ 1 / H(1000) = 13% of the time
    assert 0.10 < counts[0] / 20_000 < 0.16 and counts[1] < counts[0]


@pytest.mark.parametrize("dataset", ["author", "title"])
def test_string_workload_events_match_their_own_string(dataset):
    subs, events, w = W.workload(1, 40, n=600, dataset=dataset)
    assert len(subs) == 600 and len(events) == 40
    assert w["dims"] == 677 and w["cardinality"] == 26**3 and w["dist"] == "real"
    assert w["match_prob"] == pytest.approx(1 / 600)
    assert abs(w["mean_sub_size"] - W.STRING_DATASETS[dataset]["sub_size"]) < 4
    counts = _scan_counts(subs, events)
    assert counts.min() >= 1  # its own string's subscription
    again = W.workload(1, 40, n=600, dataset=dataset)
    for a, b in zip((subs, events), again[:2], strict=True):
        assert np.array_equal(a.attr, b.attr) and np.array_equal(a.lo, b.lo)
        assert np.array_equal(a.weight, b.weight)
    assert not np.array_equal(W.workload(2, 40, n=600, dataset=dataset)[0].lo, subs.lo)


@pytest.mark.parametrize(("ss", "es"), [(5, 13), (16, 26), (8, 8), (33, 48)])
def test_sub_event_sizes_keep_the_core_point_inside_every_event(ss, es):
    n = 1000
    subs, events, w = W.workload(0, 30, n=n, sub_size=ss, event_size=es, match_prob=0.01)
    assert (np.diff(subs.indptr) == ss).all() and (np.diff(events.indptr) == es).all()
    # every event holds a whole group's core point, so it matches the group's members
    assert _scan_counts(subs, events).min() >= round(0.01 * n)


def test_match_prob_variant_draws_attributes_like_the_strings():
    subs, events, w = W.workload(0, 20, **{**W.MP_AUTHOR, "n": 2000, "match_prob": 0.01})
    assert (np.diff(subs.indptr) == 8).all() and (np.diff(events.indptr) == 16).all()
    assert subs.attr.max() < 677 and _scan_counts(subs, events).min() >= 20
    # the length attribute (every string has it) is the most frequent one
    assert np.bincount(subs.attr, minlength=677).argmax() == D.LENGTH_ATTR


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"sub_size": 16, "event_size": 13}, ["event_size = 13", "sub_size = 16", "<="]),
        ({"sub_size": 0}, ["sub_size = 0", ">= 1"]),
        ({"sub_size": 500}, ["sub_size = 500", "dims = 400"]),
        ({"event_size": 401}, ["event_size = 401", "dims = 400"]),
        ({"subsize": 5}, ["unknown key 'subsize'", "sub_size"]),
        ({"dataset": "dblp"}, ["dataset = 'dblp'", "'author'"]),
        ({"dataset": "author", "dims": 400}, ["dims = 400", "677"]),
        ({"dataset": "title", "sub_size": 8}, ["sub_size = 8", "35"]),
        ({"dist": "real"}, ["dist = 'real'", "synthetic"]),
        ({"dist": "author"}, ["dims = 400", "677"]),
        ({"dist": "pareto"}, ["dist = 'pareto'", "'zipf'"]),
        ({**W.MP_TITLE, "event_size": 677}, ["event_size = 677", "at most"]),
        ({"n": 0}, ["n = 0", ">= 1"]),
        ({"match_prob": 0}, ["match_prob = 0", "(0, 1]"]),
        ({"clusters": -1}, ["clusters = -1", ">= 0"]),
        ({"n": 10.5}, ["n = 10.5", "integer"]),
    ],
)
def test_bad_workload_parameters_are_named(params, words):
    with pytest.raises(ConfigError) as e:
        W.workload(0, 5, **params)
    msg = str(e.value)
    assert "\n" not in msg
    for word in words:
        assert word in msg, msg


def test_run_full_paired_axis_and_dblp_figures_share_resume_and_report(monkeypatch):
    axes = {
        "table3_sub_event_size": (("sub_size", "event_size"), [(5, 13), (8, 15)]),
        "fig8_author": ("n", [300, 500], W.AUTHOR),
        "fig9_author": ("match_prob", [0.01], {**W.MP_AUTHOR, "n": 300}),
        "fig8_size": ("n", [300]),
    }
    calls = []
    real = H.measure
    monkeypatch.setattr(H, "measure", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    res = H.run_full(dists=("uniform", "zipf", "real"), axes=axes, n=300, n_events=8,
                     structures=STRUCT)  # fmt: skip
    figs = res["figures"]
    assert list(figs["table3_sub_event_size"]) == ["uniform", "zipf"]
    assert list(figs["table3_sub_event_size"]["uniform"]) == ["5/13", "8/15"]
    assert list(figs["fig8_author"]) == ["real"] and list(figs["fig9_author"]) == ["real"]
    assert list(figs["fig8_author"]["real"]) == ["300", "500"]
    # (8, 15) at 300 is the Table III point of fig8_size: measured once per distribution
    # (BE*-B, k-ind, SCAN at 5/13 and 8/15, BE* only in fig8_size), and the "real"
    # figures once (3 points, 3 structures)
    assert len(calls) == 2 * (3 + 3 + 1) + 3 * 3
    for fig in figs.values():
        for rows in fig.values():
            for cell in rows.values():
                assert len({c["mean_matches"] for c in cell.values()}) == 1
    u = figs["table3_sub_event_size"]["uniform"]["8/15"]
    assert u["k-ind"] == figs["fig8_size"]["uniform"]["300"]["k-ind"]
    assert figs["fig8_author"]["real"]["300"]["k-ind"]["mean_matches"] >= 1
    h = res["headline"] if "headline" in res else H.merge_full([res])["headline"]
    assert any(k.startswith("author: top-1 faster than matching, BE*-B") for k in h)
    assert any("sub/event size 5/13" in k for k in h)
    assert "| real | 500 |" in T.tables(H.merge_full([res]))
    # resuming measures nothing again (row keys of a paired axis included)
    part = json.loads(json.dumps(res, default=R.json_default))
    calls.clear()
    H.run_full(dists=("uniform", "zipf", "real"), axes=axes, n=300, n_events=8,
               structures=STRUCT, prior=part)  # fmt: skip
    assert calls == []
    # run_table3 keeps another run's figures and adds its wall time and peak memory
    t3 = H.run_table3(axes={"fig8_title": ("n", [200], W.TITLE)}, n_events=4,
                      structures={"k-ind": STRUCT["k-ind"]}, prior=part)  # fmt: skip
    assert set(t3["figures"]) == set(axes) | {"fig8_title"}
    assert t3["figures"]["fig8_title"]["real"]["200"]["k-ind"]["mean_matches"] >= 1
    assert len(t3["runs"]) == 1 and t3["max_rss_mb"] > 0


def test_quick_run_has_tiny_points_of_the_new_figures(monkeypatch):
    seen = {}

    def fake_sweep(axis, values, base, n_events, structures=P.STRUCTURES, seed=0,
                   dists=("uniform", "zipf")):  # fmt: skip
        cell = {s: {"match_us": 2.0, "top_us": {1: 1.0, 5: 1.0, 10: 1.0}} for s in structures}
        out = {d: {R.axis_label(v): cell for v in values} for d in dists}
        seen[R.axis_name(axis)] = (values, base, dists)
        return out

    monkeypatch.setattr(BT, "sweep", fake_sweep)
    monkeypatch.setattr(BT, "build_rates", lambda *a, **k: {})
    res = BT.run_bench(quick=True)
    for fig in P.QUICK_TABLE3:
        assert fig in res["figures"]
    assert list(res["figures"]["fig8_author"]) == ["real"]
    assert list(res["figures"]["table3_sub_event_size"]["zipf"]) == ["5/13", "16/26"]
    for fig, (axis, values, base) in P.QUICK_TABLE3.items():
        sizes = [v for v in values if axis == "n"] + [base.get("n", 0)]
        assert max(sizes) <= 2_000, fig  # tiny: the quick run stays fast
    # every quick point is a valid workload
    for axis, values, base in P.QUICK_TABLE3.values():
        for v in values:
            W.check_workload(1, {"dist": "uniform", **base, **R.axis_params(axis, v)})


def test_quick_points_of_the_new_figures_run_and_agree():
    for fig, (axis, values, base) in P.QUICK_TABLE3.items():
        b = {**base, "n": 300}
        res = H.sweep(axis, values[:1] if axis != "n" else [300], b, 6,
                      dists=("real",) if "dist" in base else ("zipf",))  # fmt: skip
        for rows in res.values():
            for cell in rows.values():
                assert len({c["mean_matches"] for c in cell.values()}) == 1, fig


def test_table3_rejects_unknown_figures():
    result = _bench_betree("--table", "3", "--figures", "fig8_size,fig8_nope")
    assert isinstance(result.exception, CnsimError)
    assert "--figures = ['fig8_size', 'fig8_nope'] names an unknown figure" in str(
        result.exception
    )


def test_drop_attribute_removes_only_that_attribute():
    subs, events, _ = W.workload(0, 20, n=300, dataset="author")
    for ex in (subs, events):
        out = D.drop_attribute(ex, D.LENGTH_ATTR)
        assert len(out) == len(ex) and (out.attr != D.LENGTH_ATTR).all()
        for i in (0, 7, len(ex) - 1):
            want = [p for p in ex.predicates(i) if p[0] != D.LENGTH_ATTR]
            assert out.predicates(i) == want
    # without the length every event still matches its own string
    assert _scan_counts(D.drop_attribute(subs, 676), D.drop_attribute(events, 676)).min() >= 1


# -- --tables (and --resume) FILE: well-formed JSON that is not a result of this bench --

_CELL = {"build_s": 1.0, "match_us": 2.0, "mean_matches": 3.0, "mb": 4.0,
         "top_us": {"1": 5.0, "5": 6.0}}  # fmt: skip
_GOOD = {"structures": ["BE*", "SCAN"],
         "figures": {"fig8_size": {"uniform": {"600": {"BE*": _CELL, "SCAN": _CELL}}},
                     "fig9_match_prob": {"zipf": {"0.01": {"SCAN": _CELL}}}}}  # fmt: skip


def _spoilt(path: tuple, value) -> dict:
    """:data:`_GOOD` with the entry at ``path`` (keys from the top) set to ``value``
    (``...``: removed)."""
    res = json.loads(json.dumps(_GOOD))
    node = res
    for key in path[:-1]:
        node = node[key]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return res


_AT = ("figures", "fig8_size", "uniform", "600")
_BAD_RESULTS = [
    ("a-list", [1, 2], r"holds no 'figures' and 'structures'"),
    ("a-number", 3, r"holds no 'figures' and 'structures'"),
    ("a-string", "figures", r"holds no 'figures' and 'structures'"),
    ("no-structures", _spoilt(("structures",), ...), r"holds no 'figures' and 'structures'"),
    ("no-figures", _spoilt(("figures",), ...), r"holds no 'figures' and 'structures'"),
    ("structures-number", _spoilt(("structures",), 4),
     r"'structures' = 4 is not a list of structure labels"),
    ("structures-numbers", _spoilt(("structures",), [1, 2]),
     r"'structures' = \[1, 2\] is not a list of structure labels"),
    ("figures-list", _spoilt(("figures",), ["fig8_size"]),
     r"'figures' = \['fig8_size'\] is not a dict of figures"),
    ("figure-list", _spoilt(("figures", "fig8_size"), [1]),
     r"figures\['fig8_size'\] = \[1\] is not a dict of row labels"),
    ("rows-number", _spoilt(("figures", "fig8_size", "uniform"), 7),
     r"figures\['fig8_size'\]\['uniform'\] = 7 is not a dict of axis values"),
    ("axis-value-text", _spoilt(("figures", "fig8_size", "uniform", "many"), {"SCAN": _CELL}),
     r"\['many'\]: the axis value 'many' is not a number of n"),
    ("axis-value-prob", _spoilt(("figures", "fig9_match_prob", "zipf", "1%"), {"SCAN": _CELL}),
     r"\['1%'\]: the axis value '1%' is not a number of match_prob"),
    ("cell-empty", _spoilt(_AT, {}), r"\['600'\] = \{\} is not a dict of structures"),
    ("cell-list", _spoilt(_AT, [_CELL]), r"\['600'\] = \[\{.* is not a dict of structures"),
    ("structure-number", _spoilt((*_AT, "BE*"), 2.0),
     r"\['600'\]\['BE\*'\] = 2\.0 is not a dict of measurements"),
    *[(f"no-{key}", _spoilt((*_AT, "BE*", key), ...),
       rf"\['BE\*'\] has '{key}' = None, not a number") for key in R.CELL_NUMBERS],
    *[(f"{key}-text", _spoilt((*_AT, "SCAN", key), "fast"),
       rf"\['SCAN'\] has '{key}' = 'fast', not a number") for key in R.CELL_NUMBERS],
    ("match_us-bool", _spoilt((*_AT, "SCAN", "match_us"), True),
     r"has 'match_us' = True, not a number"),
    ("top_us-list", _spoilt((*_AT, "SCAN", "top_us"), [5.0, 6.0]),
     r"has 'top_us' = \[5\.0, 6\.0\], not a dict of top-k times"),
    ("no-top-5", _spoilt((*_AT, "SCAN", "top_us", "5"), ...),
     r"has top_us\[5\] = None, not a number"),
    ("top-1-text", _spoilt((*_AT, "SCAN", "top_us", "1"), "x"),
     r"has top_us\[1\] = 'x', not a number"),
]  # fmt: skip


@pytest.mark.parametrize(("option", "label", "content", "message"), [
    *[("--tables", *bad) for bad in _BAD_RESULTS],
    *[("--resume", *bad) for bad in _BAD_RESULTS[5:9]],
])  # fmt: skip
def test_a_file_that_is_not_this_benchs_result_is_refused(
    option, label, content, message, bad_inputs, capsys, monkeypatch
):
    from refusals import Case, assert_refused

    (bad_inputs / "r.json").write_text(json.dumps(content))
    if option == "--tables":
        argv = ["bench", "betree", "--tables", "{d}/r.json"]
    else:  # the file --resume reads back and would write to
        argv = ["bench", "betree", "--table", "3", "--resume", "--json", "{d}/r.json"]
    where = "--json" if option == "--resume" else "--tables"
    said = rf"^error: cnsim bench betree: {where} = '[^']*r\.json'(: .*{message}.*; expected a "
    said += rf"result of cnsim bench betree|.*{message})"
    case = Case(label, argv, said)
    assert_refused(case, bad_inputs, capsys, monkeypatch)


def test_the_good_result_of_the_table_prints():
    assert R.shape_problem(_GOOD, P.FULL_AXES) is None
    text = T.tables(_GOOD)
    assert "| uniform | 600 | 3 |" in text and "| zipf | 1% |" in text


def test_interval_run_alternates_both_structures_and_gives_90_percent_intervals(monkeypatch):
    """``--figures`` without ``--table``: BE*-B against the k-index at every point of the
    figures, a shared point measured once, same match counts, a ratio per round and the
    Student's t half-widths of the means."""
    from cnsim.bench.betree import intervals as I

    monkeypatch.setattr(I, "FULL_AXES", {**P.FULL_AXES, "fig7_clusters": ("clusters", [0, 4])})
    figs = I.run(("fig7_clusters", "fig8_size"), n=400, n_events=10, rounds=4, log=lambda m: None)
    for dist in ("uniform", "zipf"):
        assert list(figs["fig8_size"][dist]) == ["40", "120", "400"]  # sizes scaled to n
        assert figs["fig8_size"][dist]["400"] is figs["fig7_clusters"][dist]["4"]  # once
        for rows in (figs["fig7_clusters"][dist], figs["fig8_size"][dist]):
            for c in rows.values():
                assert c["same_counts"] and len(c["rounds_ratio"]) == 4
                assert c["ratio"] == pytest.approx(np.mean(c["rounds_ratio"]))
                assert c["ratio_hw90"] > 0 and c["BE*-B"]["match_us_hw90"] >= 0
    h = I.summary(figs)
    assert "uniform: BE*-B faster than k-index, mean over 4 points" in h  # 2 + 3 - 1 shared
