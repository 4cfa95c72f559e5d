"""Every covering index against brute force (seed 001 §IV): d = 1..8, duplicates,
identical boxes, boxes touching at an edge, long insert/delete/query sequences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.subscriptions.covering import ALL, INDEXES, box_points, brute_covering

# small bucket limits / coarse resolutions so that tiny inputs split, merge, share cells
PARAMS = {
    "naive": [{}],
    "kdtree": [{"overflow": 4, "underflow": 1}, {"overflow": 2, "underflow": 1}, {}],
    "zorder": [
        {"bits": 2, "low": 0, "high": 7, "block": 2},
        {"bits": 3, "low": 0, "high": 7, "scan_limit": 1, "block": 3},
        {"low": 0, "high": 7},
    ],
}
CASES = [(name, i) for name in sorted(INDEXES) for i in range(len(PARAMS.get(name, [{}])))]


def make(name, i, d):
    return INDEXES[name](d, **PARAMS.get(name, [{}])[i])


@st.composite
def programs(draw, max_ops=120):
    """A dimension, a grid size and a list of operations: ("ins", lo, hi), ("del", j)
    (j-th live, modulo), ("qlive", j, k, up), ("qnew", lo, hi, k, up)."""
    d = draw(st.integers(1, 8))
    g = draw(st.sampled_from([1, 2, 3, 7]))  # coordinates 0..g: ties everywhere
    edge = st.tuples(st.integers(0, g), st.integers(0, g)).map(sorted)
    box = st.lists(edge, min_size=d, max_size=d).map(
        lambda es: (np.array([e[0] for e in es], float), np.array([e[1] for e in es], float))
    )
    kk = st.sampled_from([1, 2, 3, ALL])
    op = st.one_of(
        st.tuples(st.just("ins"), box),
        st.tuples(st.just("dup"), st.integers(0, 10**6)),
        st.tuples(st.just("del"), st.integers(0, 10**6)),
        st.tuples(st.just("qlive"), st.integers(0, 10**6), kk, st.booleans()),
        st.tuples(st.just("qnew"), box, kk, st.booleans()),
    )
    return d, draw(st.lists(op, max_size=max_ops))


def check(ix, live, q, qseq, k, up):
    slots = list(live)
    P = np.array([live[s][0] for s in slots]).reshape(-1, ix.D)
    seq = np.array([live[s][1] for s in slots], np.int64)
    want = {slots[i] for i in brute_covering(P, seq, q, qseq, up)}
    got = (ix.covering if up else ix.covered)(q, qseq, k).tolist()
    assert len(got) == len(set(got)), "a slot reported twice"
    assert set(got) <= want, f"not covering: {set(got) - want}"
    assert len(got) == min(k, len(want)), (len(got), k, len(want))
    nv, pc = ix.last
    assert nv >= 0 and pc >= 0


def run_program(ix, prog):
    live: dict[int, tuple[np.ndarray, int]] = {}
    free: list[int] = []
    nxt, seq = 0, 0
    for op in prog:
        kind = op[0]
        if kind in ("ins", "dup"):
            if kind == "dup":
                if not live:
                    continue
                p = live[sorted(live)[op[1] % len(live)]][0]
            else:
                p = box_points(*op[1])[0]
            if free:
                slot = free.pop()
            else:
                slot, nxt = nxt, nxt + 1
            seq += 1
            ix.insert(slot, p, seq)
            live[slot] = (p, seq)
        elif kind == "del":
            if not live:
                continue
            slot = sorted(live)[op[1] % len(live)]
            ix.delete(slot)
            del live[slot]
            free.append(slot)
        elif kind == "qlive":
            if not live:
                continue
            slot = sorted(live)[op[1] % len(live)]
            check(ix, live, live[slot][0], live[slot][1], op[2], op[3])
        else:
            q = box_points(*op[1])[0]
            check(ix, live, q, seq + 1, op[2], op[3])
        assert len(ix) == len(live)
    # finally every live point against every other
    for p, s in live.values():
        check(ix, live, p, s, ALL, True)
        check(ix, live, p, s, 1, False)


@pytest.mark.parametrize("name,i", CASES)
@given(prog=programs())
def test_index_against_brute_force(name, i, prog):
    d, ops = prog
    run_program(make(name, i, d), ops)


@pytest.mark.parametrize(
    "name,i",
    # about 4 s each: every index's first parameter set in the quick run, all in the full
    [(n, i) if i == 0 else pytest.param(n, i, marks=pytest.mark.slow) for n, i in CASES],
)
def test_long_random_sequence(name, i):
    """Thousands of operations on a coarse grid: many splits, merges and equal keys."""
    rng = np.random.default_rng(7)
    for d in (1, 3, 8):
        ix = make(name, i, d)
        prog = []
        for _ in range(1500):
            u = rng.random()
            a = np.sort(rng.integers(0, 8, size=(d, 2)), axis=1).astype(float)
            box = (a[:, 0], a[:, 1])
            if u < 0.5:
                prog.append(("ins", box))
            elif u < 0.55:
                prog.append(("dup", int(rng.integers(10**6))))
            elif u < 0.8:
                prog.append(("del", int(rng.integers(10**6))))
            else:
                prog.append(("qnew", box, int(rng.choice([1, 3, ALL])), bool(rng.random() < 0.7)))
        run_program(ix, prog)


@pytest.mark.parametrize("name", sorted(INDEXES))
def test_touching_and_identical(name):
    """Boxes sharing an edge cover iff contained; identical boxes by arrival order."""
    ix = INDEXES[name](2, **PARAMS[name][0])
    a = box_points([0, 0], [4, 4])[0]
    b = box_points([4, 0], [7, 4])[0]  # touches a at x = 4
    c = box_points([0, 0], [4, 4])[0]  # identical to a
    ix.insert(0, a, 1)
    ix.insert(1, b, 2)
    assert ix.covering(b, 2).tolist() == []  # b alone: a touches it, does not cover
    assert ix.covering(c, 3).tolist() == [0]  # a newer copy is covered by the older
    ix.insert(2, c, 3)
    assert ix.covering(c, 3).tolist() == [0]
    assert ix.covering(a, 1).tolist() == []  # the older is not covered by the newer
    assert ix.covered(a, 1).tolist() == [2]


@pytest.mark.parametrize("name", sorted(INDEXES))
def test_errors(name):
    ix = INDEXES[name](2, **PARAMS[name][0])
    ix.insert(0, box_points([1, 1], [2, 2])[0], 1)
    with pytest.raises(InputError):
        ix.insert(0, box_points([1, 1], [2, 2])[0], 2)
    with pytest.raises(InputError):
        ix.delete(5)
    with pytest.raises(InputError):
        ix.covering(np.zeros(3), 1)
    with pytest.raises(InputError):
        INDEXES[name](9)


def test_zorder_keys_paper_example():
    """Seed 001 §IV-D: cell (3, 5) at 8 x 8 resolution is 011011 = 27; the key puts a
    leading 1 in front so that resolutions differ ("100" vs "10000")."""
    from cnsim.subscriptions.covering.zorder import cell_key, interleave

    assert interleave([3, 5], 3) == 0b011011 == 27
    assert cell_key([3, 5], 3) == 0b1011011
    assert cell_key([0], 2) == 0b100 and cell_key([0, 0], 2) == 0b10000
    ix = INDEXES["zorder"](1, bits=3, low=0, high=8)  # one attribute: points (-l, r)
    # -l = -5 -> cell 3 of [-8, 0], r = 5 -> cell 5 of [0, 8]
    assert ix.key(box_points([5], [5])[0]) == 0b1011011


def test_zorder_domain():
    ix = INDEXES["zorder"](1, bits=3, low=0, high=8)
    with pytest.raises(InputError):
        ix.insert(0, box_points([0], [9])[0], 1)
    ix.insert(0, box_points([0], [8])[0], 1)  # the domain's edges are inside
    assert ix.covering(box_points([8], [8])[0], 2).tolist() == [0]
    assert ix.covering(box_points([0], [9])[0], 2).tolist() == []
