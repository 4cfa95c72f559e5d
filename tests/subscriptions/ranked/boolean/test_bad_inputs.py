"""Bad input to the Boolean-expression API (seed 002's BE*-tree and its baselines): the
text parser, ``Expressions.from_arrays``, every index's ``top_k`` / ``delete`` and the
workload generators refuse it with ``InputError`` and one line naming the argument and
its value, before allocating anything (harness: tests/refusals.py).  Good inputs next to
the bad ones (a whole-number float ``k``, a huge ``k``, a ``k`` above the live count)
keep their answers."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from refusals import Case, assert_refused, table

from cnsim.errors import ConfigError, InputError
from cnsim.subscriptions.generators import boxes, datasets_15d, readings
from cnsim.subscriptions.ranked.boolean import REGISTRY, Expressions, parse, parse_many
from cnsim.subscriptions.ranked.boolean import dblp_like as D
from cnsim.subscriptions.ranked.boolean import workload as W

NAMES = sorted(REGISTRY)
SUBS = ["a1 = 4", "a1 between 1 and 9 : 0.5", "a2 = 3", "a1 = 4, a2 = 3 : 2"]


def index(name: str):
    """A small index of ``name``: ids 0..3, id 2 deleted."""
    ix = REGISTRY[name](**({"domain": (0, 100)} if name == "kindex" else {}))
    ix.insert_many(SUBS)
    ix.delete(2)
    return ix


def raw_event(value: float = 4.0, weight: float = 1.0) -> Expressions:
    """``a1 = value : weight`` built around the validation of ``from_arrays`` (the only way
    a non-finite value reaches a query)."""
    return Expressions(
        np.array([0, 1]), np.array([1]), np.array([2], np.int8), np.array([weight]),
        np.array([value]), np.array([value]), np.array([0, 1]), np.array([value]),
    )  # fmt: skip


def esc(name: str, value) -> str:
    """The message part naming ``name`` and ``value``."""
    return re.escape(f"{name} = {value!r}")


def rng():
    return np.random.default_rng(0)


# -- the text parser
PARSER = [
    Case("parse_many-None", api=lambda d: parse_many(None), message=esc("texts", None)),
    Case("parse_many-str", api=lambda d: parse_many("a1 = 4"), message=esc("texts", "a1 = 4")),
    Case("parse_many-bytes", api=lambda d: parse_many(b"a1 = 4"), message=esc("texts", b"a1 = 4")),
    Case("parse_many-int", api=lambda d: parse_many(5), message=esc("texts", 5)),
    Case("parse_many-list-int", api=lambda d: parse_many([1]), message=esc("texts[0]", 1)),
    Case("parse_many-list-None", api=lambda d: parse_many(["a1 = 1", None]),
         message=esc("texts[1]", None)),  # fmt: skip
    Case("parse-None", api=lambda d: parse(None), message=esc("text", None)),
    Case("parse_many-attributes-negative", api=lambda d: parse_many(["x = 1"], {"x": -1}),
         message=esc("attributes['x']", -1) + ".*>= 0"),  # fmt: skip
]
for label, value in (("float", 1.5), ("str", "a"), ("None", None), ("bool", True),
                     ("too-large", 2**40), ("negative", -3)):  # fmt: skip
    PARSER.append(
        Case(f"parse-attributes-{label}", api=lambda d, v=value: parse("x = 1", {"x": v}),
             message=esc("attributes['x']", value) + ".*16777215")  # fmt: skip
    )
for label, value in (("list", [1]), ("int", 5), ("str", "x")):
    PARSER.append(
        Case(f"parse-attributes-not-mapping-{label}", api=lambda d, v=value: parse("x = 1", v),
             message=esc("attributes", value) + ".*mapping")  # fmt: skip
    )

# -- queries and deletes, on every structure through the shared base class
BAD_EVENTS = [
    ("None", lambda: None, esc("event", None)),
    ("int", lambda: 5, esc("event", 5)),
    ("bytes", lambda: b"a1 = 4", esc("event", b"a1 = 4")),
    ("array", lambda: np.array([1.0, 2.0]), r"event = array\(\[1\., 2\.\]\)"),
    ("two-expressions", lambda: parse_many(["a1 = 4", "a1 = 5"]), r"event holds 2 expressions"),
    ("nan-value", lambda: raw_event(math.nan), r"event holds the value nan"),
    ("inf-value", lambda: raw_event(math.inf), r"event holds the value inf"),
    ("nan-weight", lambda: raw_event(weight=math.nan), r"event holds the value nan"),
    ("text-nan", lambda: "a1 = nan", r"'nan' at position 5 in 'a1 = nan'"),
    ("text-overflow", lambda: "a1 = 1e999", r"'1e999' at position 5 in 'a1 = 1e999'"),
]
BAD_K = [("None", None), ("nan", math.nan), ("inf", math.inf), ("float", 2.5), ("bool", True),
         ("negative", -1), ("str", "3"), ("np-nan", np.float64("nan"))]  # fmt: skip
BAD_IDS = [("str", "1", esc("subscription id", "1")),
           ("float", 1.0, esc("subscription id", 1.0)),
           ("None", None, esc("subscription id", None)),
           ("np-float", np.float64(1), r"subscription id = np\.float64\(1\.0\)"),
           ("nan", math.nan, esc("subscription id", math.nan)),
           ("bool", True, esc("subscription id", True)),
           ("never-inserted", 99, r"no live subscription with id 99"),
           ("negative", -1, r"no live subscription with id -1"),
           ("deleted", 2, r"no live subscription with id 2"),
           ("huge", 10**30, r"no live subscription with id 10{30}")]  # fmt: skip
QUERIES = []
for name in NAMES:
    for label, ev, msg in BAD_EVENTS:
        QUERIES.append(Case(f"{name}-top_k-event-{label}",
                            api=lambda d, n=name, ev=ev: index(n).top_k(ev(), 2), message=msg,
                            raises=InputError))  # fmt: skip
    for label, k in BAD_K:
        QUERIES.append(Case(f"{name}-top_k-k-{label}",
                            api=lambda d, n=name, k=k: index(n).top_k("a1 = 4", k),
                            message=esc("k", k) + ".*>= 0", raises=InputError))  # fmt: skip
    QUERIES += [
        Case(f"{name}-top_k_batch-k-huge",
             api=lambda d, n=name: index(n).top_k_batch(["a1 = 4", "a2 = 3"], 10**18),
             message=r"k x events \(10{18} x 2, with 3 live subscriptions\).*at most",
             raises=InputError),
        Case(f"{name}-top_k_batch-k-nan",
             api=lambda d, n=name: index(n).top_k_batch(["a1 = 4"], math.nan),
             message=esc("k", math.nan), raises=InputError),
        Case(f"{name}-top_k_batch-events-None", api=lambda d, n=name: index(n).top_k_batch(None, 2),
             message=esc("events", None), raises=InputError),
        Case(f"{name}-count_batch-events-nan",
             api=lambda d, n=name: index(n).count_batch(raw_event(math.nan)),
             message=r"events holds the value nan", raises=InputError),
    ]  # fmt: skip
    for label, i, msg in BAD_IDS:
        QUERIES.append(Case(f"{name}-delete-{label}", api=lambda d, n=name, i=i: index(n).delete(i),
                            message=msg, raises=InputError))  # fmt: skip

# -- Expressions.from_arrays: indptr, attr, op, weight, value_indptr, values
GOOD_ARRAYS = dict(indptr=[0, 1], attr=[1], op=[2], weight=[1.0], value_indptr=[0, 1], values=[4.0])
BAD_ARRAYS = [
    ("indptr-2d", {"indptr": [[0, 1]]}, r"indptr = \[\[0, 1\]\] has shape \(1, 2\).*1-d"),
    ("indptr-None", {"indptr": None}, r"indptr = None has shape \(\).*1-d"),
    ("indptr-nan", {"indptr": [0, math.nan]}, r"indptr\[1\] = nan.*integers"),
    ("indptr-fraction", {"indptr": [0, 1.5]}, r"indptr\[1\] = 1\.5.*integers"),
    ("indptr-str", {"indptr": ["0", "x"]}, r"indptr has dtype <U1 \(\['0', 'x'\]\).*integers"),
    ("indptr-start-1", {"indptr": [1, 2]}, r"indptr = array\(\[1, 2\]\).*from 0"),
    ("indptr-empty", {"indptr": []}, r"indptr = array\(\[\].*from 0"),
    ("indptr-huge", {"indptr": [0, 10**30]}, r"indptr has dtype object \(\[0, 10{30}\]\)"),
    ("attr-fraction", {"attr": [1.5]}, r"attr\[0\] = 1\.5.*integers"),
    ("attr-nan", {"attr": [math.nan]}, r"attr\[0\] = nan.*integers"),
    ("attr-str", {"attr": ["x"]}, r"attr has dtype <U1.*'x'.*integers"),
    ("attr-2d", {"attr": [[1]]}, r"attr = \[\[1\]\] has shape \(1, 1\).*1-d"),
    ("attr-None", {"attr": [None]}, r"attr has dtype object \(array\(\[None\].*integers"),
    ("attr-negative", {"attr": [-1]}, r"attr\[0\] = -1 .*0\.\.2\*\*24-1"),
    ("attr-too-large", {"attr": [2**30]}, r"attr\[0\] = 1073741824 .*0\.\.2\*\*24-1"),
    ("attr-uint64", {"attr": np.array([2**63 + 5], np.uint64)},
     r"attr holds 9223372036854775813.*below 2\*\*63"),
    ("attr-bool", {"attr": [True]}, r"attr has dtype bool.*integers"),
    ("weight-nan", {"weight": [math.nan]}, r"weight\[0\] = nan.*finite"),
    ("weight-negative", {"weight": [-1.0]}, r"weight\[0\] = -1\.0.*>= 0"),
    ("weight-str", {"weight": ["x"]}, r"weight has dtype <U1 \(\['x'\]\).*numbers"),
    ("weight-length", {"weight": [1.0, 2.0]}, r"weight has 2 entries, indptr says 1"),
    ("weight-2d", {"weight": [[1.0]]}, r"weight = \[\[1\.0\]\] has shape.*1-d"),
    ("values-nan", {"values": [math.nan]}, r"values\[0\] = nan.*finite"),
    ("values-inf", {"values": [math.inf]}, r"values\[0\] = inf.*finite"),
    ("values-str", {"values": ["x"]}, r"values has dtype <U1 \(\['x'\]\).*numbers"),
    ("values-length", {"values": [4.0, 5.0]}, r"value_indptr ends at 1, values has 2"),
    ("values-2d", {"values": [[4.0]]}, r"values = \[\[4\.0\]\] has shape.*1-d"),
    ("op-code", {"op": [99]}, r"op\[0\] = 99.*0\.\.8"),
    ("op-fraction", {"op": [1.5]}, r"op\[0\] = 1\.5.*integers"),
    ("op-nan", {"op": [math.nan]}, r"op\[0\] = nan.*integers"),
    ("op-name", {"op": ["zz"]}, r"op\[0\] = 'zz'.*'between'"),
    ("op-None", {"op": [None]}, r"op has dtype object.*None"),
    ("op-length", {"op": [2, 2]}, r"op has 2 entries, indptr says 1"),
    ("value_indptr-nan", {"value_indptr": [0, math.nan]}, r"value_indptr\[1\] = nan.*integers"),
    ("value_indptr-start-1", {"value_indptr": [1, 1]}, r"value_indptr = array\(\[1, 1\]\).*from 0"),
    ("value_indptr-2d", {"value_indptr": [[0, 1]]}, r"value_indptr = \[\[0, 1\]\] has shape"),
]  # fmt: skip
ARRAYS = [
    Case(f"from_arrays-{label}",
         api=lambda d, kw=kw: Expressions.from_arrays(**{**GOOD_ARRAYS, **kw}), message=msg,
         raises=InputError)
    for label, kw, msg in BAD_ARRAYS
]  # fmt: skip

# -- workload generators: sizes that cannot be allocated are refused first
HUGE = 10**15
GENERATORS = [
    Case("workload-n-negative", api=lambda d: W.workload(0, 10, n=-1), message=r"n = -1; .*>= 1"),
    Case("workload-n-float", api=lambda d: W.workload(0, 10, n=1.5),
         message=r"n = 1\.5; .*integer"),
    Case("workload-n-huge", api=lambda d: W.workload(0, 10, n=HUGE), message=rf"n = {HUGE}; .*<= "),
    Case("workload-n_events-huge", api=lambda d: W.workload(0, HUGE, n=10),
         message=rf"n_events = {HUGE}; .*<= "),
    Case("workload-n_events-negative", api=lambda d: W.workload(0, -3, n=10),
         message=r"n_events = -3; .*>= 1"),
    Case("workload-dims-huge", api=lambda d: W.workload(0, 10, n=10, dims=HUGE),
         message=rf"dims = {HUGE}; .*<= "),
    Case("workload-clusters-huge", api=lambda d: W.workload(0, 10, n=10, clusters=HUGE),
         message=rf"clusters = {HUGE}; .*<= "),
    Case("workload-cardinality-huge", api=lambda d: W.workload(0, 10, n=10, cardinality=10**30),
         message=r"cardinality = 10{30}; .*<= 9007199254740992"),
    Case("workload-predicates-product",
         api=lambda d: W.workload(0, 10, n=2**28, dims=400, sub_size=16, event_size=16),
         message=r"n x sub_size \(268435456 x 16\) = 4294967296; allowed: at most"),
    Case("dblp-strings-count-negative", api=lambda d: D.strings("author", 0, -1),
         message=r"count = -1; .*>= 1"),
    Case("dblp-strings-count-float", api=lambda d: D.strings("author", 0, 1.5),
         message=r"count = 1\.5; .*integer"),
    Case("dblp-strings-count-huge", api=lambda d: D.strings("title", 0, HUGE),
         message=rf"count = {HUGE}; .*<= "),
    Case("dblp-strings-dataset", api=lambda d: D.strings("x", 0, 5),
         message=r"dataset = 'x'; allowed: 'author', 'title'"),
    Case("dblp-popularity-n-0", api=lambda d: D.popularity_ranks(0, 0, 5),
         message=r"n = 0; .*>= 1"),
    Case("dblp-popularity-size-huge", api=lambda d: D.popularity_ranks(0, 10, HUGE),
         message=rf"size = {HUGE}; .*<= "),
    Case("dblp-attribute_probs-dataset", api=lambda d: D.attribute_probs(None),
         message=r"dataset = None; allowed"),
    Case("boxes-d-negative", api=lambda d: boxes.workload(-1, 5, 5, 5), message=r"d = -1; .*>= 0"),
    Case("boxes-n-huge", api=lambda d: boxes.workload(2, HUGE, 5, 5), message=rf"n = {HUGE}; "),
    Case("boxes-m-float", api=lambda d: boxes.workload(2, 5, 1.5, 5), message=r"m = 1\.5; "),
    Case("boxes-events-negative", api=lambda d: boxes.workload(2, 5, 5, -1),
         message=r"events = -1; "),
    Case("boxes-events-huge", api=lambda d: boxes.workload(2, 5, 5, HUGE),
         message=rf"events = {HUGE}; "),
    Case("boxes-n-x-d", api=lambda d: boxes.workload(2**20, 2**20, 5, 5),
         message=r"n x d \(1048576 x 1048576\) = 1099511627776; allowed: at most"),
    Case("15d-objects-n-negative", api=lambda d: datasets_15d.objects(-1, rng()),
         message=r"n = -1; .*>= 0"),
    Case("15d-objects-n-huge", api=lambda d: datasets_15d.objects(HUGE, rng()),
         message=rf"n = {HUGE}; "),
    Case("15d-subscriptions-m-huge",
         api=lambda d: datasets_15d.subscriptions("DS#1", HUGE, np.zeros(3), rng()),
         message=rf"m = {HUGE}; "),
    Case("15d-events-count-negative", api=lambda d: datasets_15d.events(np.zeros(3), -1, rng()),
         message=r"count = -1; "),
    Case("15d-events-count-huge", api=lambda d: datasets_15d.events(np.zeros(3), HUGE, rng()),
         message=rf"count = {HUGE}; "),
    Case("15d-events-no-objects", api=lambda d: datasets_15d.events(np.zeros(0), 3, rng()),
         message=r"count = 3 events over y = array\(\[\].*at least one object"),
    Case("readings-m-negative", api=lambda d: readings.draw_subscriptions(rng(), -1, "length"),
         message=r"m = -1; "),
    Case("readings-m-huge", api=lambda d: readings.draw_subscriptions(rng(), HUGE, "left"),
         message=rf"m = {HUGE}; "),
]  # fmt: skip
for c in GENERATORS:
    c.raises = InputError

CASES = PARSER + QUERIES + ARRAYS + GENERATORS
for c in PARSER:
    c.raises = InputError


@table(CASES)
def test_bad_input_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)


def test_the_table_is_large():
    assert len(CASES) >= 40


def test_workload_errors_stay_config_errors():
    """The benchmark's configuration reads them as ``ConfigError``; the API as ``InputError``."""
    with pytest.raises(ConfigError, match="n = 0"):
        W.workload(0, 5, n=0)
    with pytest.raises(InputError, match="n = 0"):
        W.workload(0, 5, n=0)


@pytest.mark.parametrize("name", NAMES)
def test_good_inputs_keep_their_answers(name):
    """k above the live count is clamped (every match, best first), a whole-number float
    k is that integer, numpy ids delete, and batches keep their k columns."""
    ix = index(name)
    every = ix.top_k("a1 = 4, a2 = 3", 3)
    assert list(every) == [3, 0, 1]
    for k in (3, 4, 10**18, 10**30, np.int64(2**62)):
        assert list(ix.top_k("a1 = 4, a2 = 3", k)) == list(every)
    assert list(ix.top_k("a1 = 4, a2 = 3", 2.0)) == [3, 0]
    assert list(ix.top_k("a1 = 4, a2 = 3", np.int32(1))) == [3]
    assert len(ix.top_k("a1 = 4", 0)) == 0
    wide = ix.top_k_batch(["a1 = 4, a2 = 3", "a1 = 4"], 6)
    assert wide.shape == (2, 6)
    assert list(wide[0]) == [3, 0, 1, -1, -1, -1]
    assert list(wide[1]) == [0, 1, -1, -1, -1, -1]
    assert (ix.top_k_batch(["a1 = 4, a2 = 3"], 2) == [[3, 0]]).all()
    ix.delete(np.int64(3))
    assert not ix.is_alive(3) and len(ix) == 2
    empty = REGISTRY[name](**({"domain": (0, 100)} if name == "kindex" else {}))
    assert len(empty.top_k("a1 = 4", 10**18)) == 0


def test_good_arrays_keep_their_dtypes_and_values():
    """Integer arrays of any width, whole-number floats and empty lists are read as before."""
    a = Expressions.from_arrays(np.array([0, 1], np.int32), np.array([1], np.uint8),
                                np.array([2], np.int64), [1], [0.0, 1.0], [4])  # fmt: skip
    b = Expressions.from_arrays(**GOOD_ARRAYS)
    for col in Expressions.__slots__:
        x, y = getattr(a, col), getattr(b, col)
        assert x.dtype == y.dtype and (x == y).all() and x.flags.c_contiguous, col
    assert len(Expressions.empty()) == 0
    assert parse("x = 1", {"x": np.int64(7)}).attr[0] == 7
