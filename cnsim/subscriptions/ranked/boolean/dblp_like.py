"""DBLP-like string workloads of the BE*-tree's evaluation (seed 002 §VII, Table III).

Seed 002 measures two "DBLP-driven" workloads made by BEGen [7] from DBLP author names
and paper titles: 677 dimensions, cardinality 26^3, average subscription / event size
8 / 8 (author, 100K-760K subscriptions) and 35 / 35 (title, 50K-250K), attributes
following "a real-data distribution" (Table III, "Workload Distribution").  The paper
does not say how BEGen turns a string into predicates, and the DBLP data cannot be
downloaded here, so this module is **our stand-in**; every assumption is named:

* **Strings to predicates** (our reading of 677 = 26^2 + 1 and 26^3): a string is
  lower-case letters (words joined, no separators); each window of q = 5 consecutive
  letters ``c0 c1 c2 c3 c4`` is a predicate on attribute ``26 c0 + c1`` (its first two
  letters, one of 26^2 = 676) with value ``26^2 c2 + 26 c3 + c4`` (its last three letters,
  one of 26^3).  An expression has at most one predicate per attribute (the paper's
  ``P_i.attr = P_j.attr iff i = j``), so a repeated two-letter prefix keeps its first
  window.  The 677th attribute (index :data:`LENGTH_ATTR` = 676) holds the string's
  length in letters, a predicate every expression has (our choice for the "+ 1": a
  whole-string feature, and a popular attribute of the kind §VII says real data has).
* **Text model** (instead of DBLP's text): letters are drawn independently from the
  English letter frequencies of :data:`LETTER_FREQ`; words are used with Zipf
  frequencies ``∝ 1 / rank`` (Zipf's law of word frequencies).  An **author** is a first
  and a last name from two vocabularies (20,000 and 200,000 names of ``3 + Poisson(2.5)``
  letters); a **title** is ``5 + Poisson(5)`` words of a 20,000-word vocabulary of
  ``3 + Poisson(5)`` letters sorted by length, so that its frequent (low-rank) words are
  its short ones (Zipf's law of abbreviation).  These parameters (:data:`MODELS`) were
  tuned so that the mean expression size is Table III's 8 (author: 7.9) and 35 (title:
  35.8).
* **Who subscribes, what is published**: the ``n`` subscriptions are ``n`` distinct
  strings (a string drawn again is dropped: DBLP lists an author once; 100K-760K authors
  is DBLP's own count, Table III), one subscription each ("notify me about this author /
  title"); an event is the point expression of one of them, drawn with Zipf popularity
  ``∝ 1 / rank`` over a random ranking (Lotka's law: few authors write most papers;
  our assumption for titles too).  So an event matches its own string's subscription,
  and any other that agrees with it on every window within the ranges below: about one
  match per event (Table III gives these workloads' match probability as "—").
* **Ranges**: a subscription predicate is ``between v - u and v + w`` with u, w uniform in
  ``0..DBLP_WIDTH`` (= 1: the last letter of a window may be off by one; §VII restricts
  ranges to a handful of values for the k-index); an event is a point (``=``) on every
  attribute of its string.

The "Match Prob (Author / Title)" workloads of Table III (4 clusters of 100, match
probability 0.01-9%) are the synthetic generator of :mod:`.workload` with its
attribute choice taken from these strings (``dist = "author" | "title"``:
:func:`attribute_probs`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.generators.checks import check_int

Q = 5  # letters per window: two for the attribute, three for the value
DIMS = 26**2 + 1  # 677
CARDINALITY = 26**3  # 17,576
LENGTH_ATTR = 26**2  # the 677th attribute: the string's length in letters
DBLP_WIDTH = 1  # a range is [v - u, v + w], u, w uniform in 0..DBLP_WIDTH

#: English letter frequencies, a..z, in percent (the usual table from large corpora)
LETTER_FREQ = np.array([
    8.167, 1.492, 2.782, 4.253, 12.702, 2.228, 2.015, 6.094, 6.966, 0.153, 0.772, 4.025,
    2.406, 6.749, 7.507, 1.929, 0.095, 5.987, 6.327, 9.056, 2.758, 0.978, 2.360, 0.150,
    1.974, 0.074,
])  # fmt: skip

#: the text model of each dataset: vocabularies (size, letters = base + Poisson(lam),
#: sorted by length or not), and for titles the words of a string (``base + Poisson(lam)``)
MODELS = {
    "author": {"vocabularies": ((20_000, 3, 2.5, False), (200_000, 3, 2.5, False))},
    "title": {"vocabularies": ((20_000, 3, 5.0, True),), "words": (5, 5.0)},
}
DATASETS = tuple(MODELS)


def _check_dataset(dataset) -> None:
    if not isinstance(dataset, str) or dataset not in MODELS:
        raise InputError(f"dataset = {dataset!r}; allowed: {', '.join(repr(d) for d in DATASETS)}")


def _zipf_cdf(m: int) -> np.ndarray:
    p = 1.0 / np.arange(1, m + 1)
    c = np.cumsum(p)
    return c / c[-1]


def _zipf(rng, m: int, size: int) -> np.ndarray:
    """``size`` ranks in 0..m-1 with probability ∝ 1 / (rank + 1)."""
    return np.minimum(np.searchsorted(_zipf_cdf(m), rng.random(size), side="right"), m - 1)


def _vocabulary(rng, size: int, base: int, lam: float, by_length: bool):
    """``size`` random words (CSR: pointers, letter codes 0..25); with ``by_length`` the
    shortest first (the most frequent under Zipf)."""
    lens = base + rng.poisson(lam, size)
    if by_length:
        lens = np.sort(lens)
    ptr = np.zeros(size + 1, np.int64)
    np.cumsum(lens, out=ptr[1:])
    letters = rng.choice(26, int(ptr[-1]), p=LETTER_FREQ / LETTER_FREQ.sum()).astype(np.int8)
    return ptr, letters


def gather(ptr: np.ndarray, data: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``rows`` of a CSR array, concatenated (new pointers, data)."""
    lens = ptr[rows + 1] - ptr[rows]
    out_ptr = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(lens, out=out_ptr[1:])
    idx = np.arange(int(out_ptr[-1])) - np.repeat(out_ptr[:-1] - ptr[rows], lens)
    return out_ptr, data[idx]


def _concat_rows(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Row i of the result is row i of every part, joined (all parts have as many rows)."""
    lens = sum(np.diff(p) for p, _ in parts)
    ptr = np.zeros(len(lens) + 1, np.int64)
    np.cumsum(lens, out=ptr[1:])
    out = np.empty(int(ptr[-1]), parts[0][1].dtype)
    at = ptr[:-1].copy()
    for p, d in parts:
        ln = np.diff(p)
        idx = np.repeat(at - p[:-1], ln) + np.arange(len(d))
        out[idx] = d
        at += ln
    return ptr, out


def _draw_strings(dataset: str, rng, vocabs, count: int) -> tuple[np.ndarray, np.ndarray]:
    m = MODELS[dataset]
    if dataset == "author":
        parts = [gather(ptr, let, _zipf(rng, len(ptr) - 1, count)) for ptr, let in vocabs]
        return _concat_rows(parts)
    ptr, let = vocabs[0]
    base, lam = m["words"]
    wptr = np.zeros(count + 1, np.int64)
    np.cumsum(base + rng.poisson(lam, count), out=wptr[1:])
    lptr, letters = gather(ptr, let, _zipf(rng, len(ptr) - 1, int(wptr[-1])))  # per word
    return lptr[wptr], letters  # the words of a string are consecutive


def _row_hashes(ptr: np.ndarray, letters: np.ndarray) -> np.ndarray:
    """A 64-bit polynomial hash of every row (to drop repeated strings)."""
    lens = np.diff(ptr)
    pos = np.arange(len(letters)) - np.repeat(ptr[:-1], lens)
    mult = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        h = (letters.astype(np.uint64) + np.uint64(1)) * (mult ** (pos.astype(np.uint64) + 1))
        out = np.add.reduceat(h, ptr[:-1]) if len(letters) else np.zeros(len(lens), np.uint64)
        out[lens == 0] = 0
        return out ^ lens.astype(np.uint64) * np.uint64(0xBF58476D1CE4E5B9)


def strings(dataset: str, seed: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` distinct strings of ``dataset`` (CSR of letter codes 0..25), in the
    order they were drawn (a repeated string is drawn again: DBLP lists an author once).
    ``count``: an integer in 1..``MAX_COUNT`` (else ``InputError``)."""
    _check_dataset(dataset)
    count = check_int("count", count, 1)
    rng = np.random.default_rng([seed, DIMS])
    vocabs = [_vocabulary(rng, *v) for v in MODELS[dataset]["vocabularies"]]
    got_ptr, got_let, seen = [np.zeros(1, np.int64)], [], np.zeros(0, np.uint64)
    have = 0
    while have < count:
        ptr, let = _draw_strings(dataset, rng, vocabs, max(1000, (count - have) * 5 // 4))
        h = _row_hashes(ptr, let)
        _, first = np.unique(h, return_index=True)
        keep = np.zeros(len(h), bool)
        keep[first] = True
        keep &= ~np.isin(h, seen, kind="sort")
        rows = np.flatnonzero(keep)[: count - have]
        seen = np.concatenate([seen, h[rows]])
        p, lt = gather(ptr, let, rows)
        got_ptr.append(p[1:] + sum(len(x) for x in got_let))
        got_let.append(lt)
        have += len(rows)
    return np.concatenate(got_ptr), np.concatenate(got_let)


def predicates(ptr: np.ndarray, letters: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every string's predicates (CSR pointers, attributes, values), attributes ascending:
    one per distinct two-letter prefix of its 5-letter windows (the first such window)
    and its length on :data:`LENGTH_ATTR`."""
    m = len(ptr) - 1
    lens = np.diff(ptr)
    c = letters.astype(np.int64)
    row = np.repeat(np.arange(m), lens)
    start = np.arange(len(c))
    ok = start + Q <= np.repeat(ptr[1:], lens)  # the window stays inside its string
    s = start[ok]
    attr = c[s] * 26 + c[s + 1]
    val = c[s + 2] * 676 + c[s + 3] * 26 + c[s + 4]
    r = row[ok]
    order = np.lexsort((s, attr, r))  # by string, attribute, then position
    r, attr, val = r[order], attr[order], val[order]
    first = np.ones(len(r), bool)
    first[1:] = (r[1:] != r[:-1]) | (attr[1:] != attr[:-1])
    r, attr, val = r[first], attr[first], val[first]
    # append the length predicate (the largest attribute, so order is kept)
    r = np.concatenate([r, np.arange(m)])
    attr = np.concatenate([attr, np.full(m, LENGTH_ATTR)])
    val = np.concatenate([val, lens])
    order = np.argsort(r, kind="stable")
    r, attr, val = r[order], attr[order], val[order]
    out = np.zeros(m + 1, np.int64)
    np.cumsum(np.bincount(r, minlength=m), out=out[1:])
    return out, attr, val


def popularity_ranks(seed: int, n: int, size: int) -> np.ndarray:
    """``size`` draws of strings 0..n-1 by Zipf popularity (∝ 1 / rank) over a random
    ranking of the strings (Lotka's law: few authors write most papers).  ``n`` >= 1 and
    ``size`` >= 0, integers up to ``MAX_COUNT`` (else ``InputError``)."""
    n = check_int("n", n, 1)
    size = check_int("size", size, 0)
    rng = np.random.default_rng([seed, DIMS, 1])
    return rng.permutation(n)[_zipf(rng, n, size)]


@lru_cache(maxsize=2)
def _sample_population(dataset: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return predicates(*strings(dataset, 0, 100_000))


def attribute_probs(dataset: str) -> np.ndarray:
    """How often each of the 677 attributes occurs in the expressions of 100,000 strings
    (seed 0): the "Match Prob (Author / Title)" workloads' attribute choice."""
    _check_dataset(dataset)
    _, attr, _ = _sample_population(dataset)
    p = np.bincount(attr, minlength=DIMS).astype(float)
    return p / p.sum()


def drop_attribute(ex, a: int):
    """``ex`` (an ``Expressions`` of ``between`` or ``=`` predicates, as the workloads
    make) without its predicates on attribute ``a``: the length ablation of RESULTS
    ("Table III's size sweep and DBLP-like workloads")."""
    from cnsim.subscriptions.ranked.boolean import Expressions
    from cnsim.subscriptions.ranked.boolean.expressions import BETWEEN, EQ

    keep = ex.attr != a
    ops = np.unique(ex.op[keep])
    assert set(ops.tolist()) <= {BETWEEN, EQ}, "between / = predicates only"
    row = np.repeat(np.arange(len(ex)), np.diff(ex.indptr))[keep]
    ptr = np.zeros(len(ex) + 1, np.int64)
    np.cumsum(np.bincount(row, minlength=len(ex)), out=ptr[1:])
    op = ex.op[keep]
    nv = np.where(op == BETWEEN, 2, 1)
    vptr = np.zeros(len(op) + 1, np.int64)
    np.cumsum(nv, out=vptr[1:])
    vals = np.empty(int(vptr[-1]))
    vals[vptr[:-1]] = ex.lo[keep]
    two = np.flatnonzero(op == BETWEEN)
    vals[vptr[two] + 1] = ex.hi[keep][two]
    return Expressions.from_arrays(ptr, ex.attr[keep], op, ex.weight[keep], vptr, vals)
