"""Declared keyword arguments of the ranked indexes: every class takes exactly the
parameters it declares, with the declared bounds and defaults, and says what is allowed
when given anything else (seed 000 Table 1's fan-out b, seed 004 §3's group size, the
ST-PSA memory cap)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.subscriptions.ranked import REGISTRY, brute_top_k
from cnsim.subscriptions.ranked.base import Param, RankedIndex, UnknownParameterError
from cnsim.subscriptions.ranked.multidim import ExactMatcher

NAMES = sorted(REGISTRY)
L, R, S = np.array([0.0, 1.0, 2.0]), np.array([2.0, 3.0, 2.0]), np.array([1.0, 2.0, 2.0])

#: values each declared parameter must refuse
BAD = {
    "b": [1, 0, -3, 2.5, 50.0, "50", True, None, float("nan")],
    "group_size": [0, -1, 1.5, 16.0, "16", False],
    "max_bytes": [-1, 1.0, "1", True, None],
}


def test_every_parameter_has_bad_values_here():
    declared = {p.name for c in REGISTRY.values() for p in c.parameters}
    assert declared == set(BAD)


@pytest.mark.parametrize("name", NAMES)
def test_a_misspelt_keyword_names_itself_and_the_allowed_ones(name):
    cls = REGISTRY[name]
    for wrong in ("grup_size", "B", "max_byte"):
        with pytest.raises(UnknownParameterError) as err:
            cls(L, R, S, **{wrong: 4})
        msg = str(err.value)
        assert repr(wrong) in msg and cls.__name__ in msg
        for p in cls.parameters:
            assert p.name in msg
        if not cls.parameters:
            assert "none" in msg
        # it is both an InputError (cnsim's user errors) and a TypeError (as Python's own)
        assert isinstance(err.value, InputError) and isinstance(err.value, TypeError)


@pytest.mark.parametrize(
    "name,param",
    [(n, p.name) for n in NAMES for p in REGISTRY[n].parameters],
)
def test_a_bad_value_names_the_parameter_the_value_and_what_is_allowed(name, param):
    cls = REGISTRY[name]
    decl = next(p for p in cls.parameters if p.name == param)
    for value in BAD[param]:
        with pytest.raises(InputError) as err:
            cls(L, R, S, **{param: value})
        msg = str(err.value)
        assert f"{param}={value!r}" in msg or f"{param}=nan" in msg, msg
        assert decl.allowed() in msg and cls.__name__ in msg


@pytest.mark.parametrize("name", NAMES)
def test_signature_and_params_follow_the_declarations(name):
    cls = REGISTRY[name]
    sig = inspect.signature(cls)
    assert list(sig.parameters)[:3] == ["l", "r", "score"]
    kw = {n: p for n, p in sig.parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert list(kw) == [p.name for p in cls.parameters]
    for p in cls.parameters:
        assert kw[p.name].default == p.default
    ix = cls(L, R, S)
    assert ix.params == {p.name: p.default for p in cls.parameters}


@settings(max_examples=30, deadline=None)
@given(
    b=st.integers(2, 9),
    g=st.integers(1, 12),
    numpy_int=st.booleans(),
    seed=st.integers(0, 10**6),
)
def test_in_bounds_values_are_accepted_and_used(b, g, numpy_int, seed):
    """Any declared-valid value builds an index that still answers like brute force."""
    rng = np.random.default_rng(seed)
    n = 40
    l = rng.integers(0, 20, n).astype(float)
    r = l + rng.integers(0, 6, n)
    s = rng.integers(0, 4, n).astype(float)
    conv = np.int64 if numpy_int else int
    for name, kw in (
        ("sopt_rtree", {"b": conv(b)}),
        ("ir_tree", {"b": conv(b)}),
        ("scored_rtree", {"b": conv(b)}),
        ("interval_forest", {"group_size": conv(g)}),
        ("interval_forest", {"group_size": None}),
        ("st_psa", {"max_bytes": conv(10**6)}),
    ):
        ix = REGISTRY[name](l, r, s, **kw)
        for key, value in kw.items():
            assert ix.params[key] == value and type(ix.params[key]) in (int, type(None))
        for q in (0.0, 5.0, 10.5, 19.0):
            np.testing.assert_array_equal(ix.top_k(q, 5), brute_top_k(l, r, s, q, 5))


def test_interval_forest_group_size_sets_the_number_of_trees():
    n = 100
    l = np.arange(n, dtype=float)
    ix = REGISTRY["interval_forest"](l, l + 3, l, group_size=7)
    assert len(ix._f["roots"]) == -(-n // 7)
    default = REGISTRY["interval_forest"](l, l + 3, l)
    assert len(default._f["roots"]) == 1  # 16 * ceil(sqrt(100)) >= n


def test_matchers_pass_keywords_through_to_the_checked_index():
    lo = np.zeros((3, 2))
    with pytest.raises(UnknownParameterError, match="grup_size"):
        ExactMatcher(lo, lo + 1, np.ones(3), index="interval_forest", grup_size=4)
    with pytest.raises(InputError, match="b=1"):
        ExactMatcher(lo, lo + 1, np.ones(3), index="sopt_rtree", b=1)


def test_a_declaration_whose_default_breaks_its_bounds_is_refused():
    with pytest.raises(InputError, match="bad"):

        class Broken(RankedIndex):
            name = "broken"
            parameters = (Param("bad", int, 0, low=1),)


def test_updates_rebuild_with_the_given_parameters():
    rng = np.random.default_rng(1)
    l = rng.random(50)
    ix = REGISTRY["sopt_rtree"](l, l + 0.1, rng.random(50), b=3)
    for _ in range(100):  # past the insert buffer: the core is rebuilt
        a = rng.random()
        ix.insert(a, a + 0.1, rng.random())
    assert ix.params["b"] == 3 and ix._kargs[-1] == 3
