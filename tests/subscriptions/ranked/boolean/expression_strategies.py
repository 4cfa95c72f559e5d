"""Hypothesis strategies for Boolean expressions in the text form of
:func:`cnsim.subscriptions.ranked.boolean.parse`, shared by the index tests: small
integer values (0..9) so predicates overlap, every operator, one predicate per
attribute."""

from __future__ import annotations

from hypothesis import strategies as st

OPS = ["<", "<=", "=", "!=", ">=", ">", "in", "not in", "between"]
WEIGHTS = st.sampled_from([0.0, 0.5, 1.0, 2.0])


@st.composite
def predicate(draw, n_attrs=8, ops=OPS, weights=WEIGHTS):
    """``(attribute, "aA OP RHS : W")``."""
    a = draw(st.integers(0, n_attrs - 1))
    op = draw(st.sampled_from(ops))
    v = draw(st.integers(0, 9))
    if op in ("in", "not in"):
        vals = draw(st.lists(st.integers(0, 9), min_size=1, max_size=4))
        rhs = "(" + ", ".join(map(str, vals)) + ")"
    elif op == "between":
        rhs = f"{v} and {v + draw(st.integers(0, 4))}"
    else:
        rhs = str(v)
    return a, f"a{a} {op} {rhs} : {draw(weights)!r}"


@st.composite
def expression(draw, max_size=5, ops=OPS, n_attrs=8, weights=WEIGHTS):
    """Up to ``max_size`` predicates on distinct attributes, joined by commas."""
    preds = draw(st.lists(predicate(n_attrs, ops, weights), max_size=max_size,
                          unique_by=lambda p: p[0]))  # fmt: skip
    return ", ".join(p[1] for p in preds)
