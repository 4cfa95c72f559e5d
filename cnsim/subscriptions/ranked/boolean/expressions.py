"""Boolean expressions over high-dimensional continuous attributes (seed 002 §III).

An expression is a conjunction of predicates ``attr op values : weight``; subscriptions
and events are both expressions.  Everything is columnar (CSR): expression ``i`` owns the
predicates ``indptr[i]:indptr[i + 1]``, predicate ``j`` owns the operand values
``values[vptr[j]:vptr[j + 1]]``.  Within an expression predicates are sorted by
attribute and an attribute occurs at most once (the paper's ``P_i.attr = P_j.attr iff
i = j``).

Each predicate also carries its Table I interval ``[lo, hi]``: ``< v`` is
``[-inf, prev(v)]`` and ``> v`` is ``[next(v), inf]`` with ``prev``/``next`` the
neighbouring float64 (the paper's "v - eps"), ``!=`` and ``not in`` are
``[-inf, inf]``, ``in`` is ``[min, max]`` of its set.  The indexes filter by these
intervals and confirm with the exact test (``_kernels.pred_meet``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.generators.checks import as_1d, check_int, short_repr

#: operator names, their position is the operator code stored in ``op``
OPS = ("<", "<=", "=", "!=", ">=", ">", "in", "not in", "between")
LT, LE, EQ, NE, GE, GT, IN, NOTIN, BETWEEN = range(9)
#: number of operand values each operator takes (-1: one or more)
ARITY = (1, 1, 1, 1, 1, 1, -1, -1, 2)
#: attributes are integers 0 <= attr < MAX_ATTR (dense per-event lookup tables)
MAX_ATTR = 2**24

_TOKEN = re.compile(
    r"\s*(?:(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op><=|>=|!=|==|<|>|=)"
    r"|(?P<punct>[(),:{}])"
    r"|(?P<bad>\S))"
)


def table1_interval(op: int, vals: np.ndarray) -> tuple[float, float]:
    """The paper's Table I: the 1-d bounding box of a predicate."""
    v = float(vals[0])
    if op == LT:
        return -math.inf, float(np.nextafter(v, -math.inf))
    if op == LE:
        return -math.inf, v
    if op == EQ:
        return v, v
    if op in (NE, NOTIN):
        return -math.inf, math.inf
    if op == GE:
        return v, math.inf
    if op == GT:
        return float(np.nextafter(v, math.inf)), math.inf
    if op == IN:
        return float(vals.min()), float(vals.max())
    return float(vals[0]), float(vals[1])  # BETWEEN


class Expressions:
    """A columnar (CSR) collection of Boolean expressions.

    Columns: ``indptr`` (n + 1), per predicate ``attr`` (int64), ``op`` (int8, an index
    of ``OPS``), ``weight``, ``lo``, ``hi`` (Table I) and ``vptr`` (npred + 1) into
    ``values``.  Build with :meth:`from_arrays`, :func:`parse` or :func:`parse_many`.
    """

    __slots__ = ("indptr", "attr", "op", "weight", "lo", "hi", "vptr", "values")

    def __init__(self, indptr, attr, op, weight, lo, hi, vptr, values):
        self.indptr, self.attr, self.op, self.weight = indptr, attr, op, weight
        self.lo, self.hi, self.vptr, self.values = lo, hi, vptr, values

    # ------------------------------------------------------------ construction
    @classmethod
    def from_arrays(cls, indptr, attr, op, weight, value_indptr, values) -> Expressions:
        """Validate columnar input.  ``op`` holds codes (positions in ``OPS``) or names;
        predicate ``j`` takes ``values[value_indptr[j]:value_indptr[j + 1]]``: one value
        for the comparisons, two for ``between``, one or more for ``in`` / ``not in``.
        Predicates are reordered by attribute inside each expression."""
        indptr = np.ascontiguousarray(as_1d("indptr", indptr, "int"))
        attr = np.ascontiguousarray(as_1d("attr", attr, "any"))
        op = as_1d("op", op, "any")
        weight = np.ascontiguousarray(as_1d("weight", weight, "float"))
        vptr = np.ascontiguousarray(as_1d("value_indptr", value_indptr, "int"))
        values = np.ascontiguousarray(as_1d("values", values, "float"))
        if len(indptr) == 0 or indptr[0] != 0 or (np.diff(indptr) < 0).any():
            raise InputError(
                f"indptr = {short_repr(indptr)}; allowed: non-decreasing integers from 0"
            )
        m = int(indptr[-1])
        for name, a in (("attr", attr), ("op", op), ("weight", weight)):
            if len(a) != m:
                raise InputError(f"{name} has {len(a)} entries, indptr says {m} predicates")
        if op.dtype.kind in "US":
            codes = np.empty(m, np.int8)
            for j, o in enumerate(op):
                if o not in OPS:
                    raise InputError(f"op[{j}] = {str(o)!r}; allowed: a code 0..8 or one of {OPS}")
                codes[j] = OPS.index(o)
            op = codes
        else:
            op = as_1d("op", op, "int")
            bad = np.flatnonzero((op < 0) | (op >= len(OPS)))
            if bad.size:
                raise InputError(
                    f"op[{bad[0]}] = {op[bad[0]]}; allowed: an operator code 0..8 or name"
                )
            op = op.astype(np.int8)
        attr = as_1d("attr", attr, "int")
        bad = np.flatnonzero((attr < 0) | (attr >= MAX_ATTR))
        if bad.size:
            raise InputError(
                f"attr[{bad[0]}] = {attr[bad[0]]} (predicate {bad[0]}); allowed: 0..2**24-1"
            )
        if len(vptr) != m + 1 or (m + 1 and vptr[0] != 0) or (np.diff(vptr) < 0).any():
            raise InputError(
                f"value_indptr = {short_repr(vptr)}; allowed: {m + 1} non-decreasing integers "
                "from 0 (one per predicate plus one)"
            )
        if vptr[-1] != len(values):
            raise InputError(f"value_indptr ends at {vptr[-1]}, values has {len(values)}")
        bad = np.flatnonzero(~np.isfinite(weight) | (weight < 0))
        if bad.size:
            raise InputError(
                f"weight[{bad[0]}] = {weight[bad[0]]} (predicate {bad[0]}); allowed: a finite "
                "number >= 0"
            )
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise InputError(f"values[{bad[0]}] = {values[bad[0]]}; allowed: finite numbers")
        # reorder predicates by attribute inside each expression; check duplicates
        row = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        order = np.lexsort((attr, row))
        attr, op, weight = attr[order], op[order], weight[order]
        dup = np.flatnonzero((row[1:] == row[:-1]) & (attr[1:] == attr[:-1]))
        if dup.size:
            raise InputError(f"expression {row[dup[0]]} has two predicates on a{attr[dup[0]]}")
        counts = np.diff(vptr)[order]
        new_vptr = np.zeros(m + 1, np.int64)
        np.cumsum(counts, out=new_vptr[1:])
        new_values = np.empty(len(values), np.float64)
        if not ((op == IN) | (op == NOTIN)).any():  # no sets: vectorised
            return cls._from_sorted(indptr, attr, op, weight, row, counts, vptr[order], values)
        lo, hi = np.empty(m), np.empty(m)
        for j in range(m):
            o = int(op[j])
            v = values[vptr[order[j]] : vptr[order[j] + 1]]
            arity = ARITY[o]
            if (arity > 0 and len(v) != arity) or len(v) == 0:
                raise InputError(
                    f"expression {row[j]}, a{attr[j]} {OPS[o]}: takes "
                    f"{arity if arity > 0 else 'one or more'} value(s), got {len(v)}"
                )
            if o in (IN, NOTIN):
                v = np.unique(v)  # sorted, duplicates dropped
                counts[j] = len(v)
            elif o == BETWEEN and v[0] > v[1]:
                raise InputError(f"expression {row[j]}: a{attr[j]} between {v[0]} and {v[1]}")
            lo[j], hi[j] = table1_interval(o, v)
            new_vptr[j + 1] = new_vptr[j] + len(v)
            new_values[new_vptr[j] : new_vptr[j + 1]] = v
        new_values = new_values[: new_vptr[-1]]
        return cls(indptr, attr, op, weight, lo, hi, new_vptr, new_values)

    @classmethod
    def _from_sorted(cls, indptr, attr, op, weight, row, counts, starts, values) -> Expressions:
        """``from_arrays`` without set operators, vectorised (predicates already sorted;
        predicate j's values are ``values[starts[j]:starts[j] + counts[j]]``)."""
        arity = np.array(ARITY)[op]
        bad = np.flatnonzero(counts != arity)
        if bad.size:
            j = bad[0]
            raise InputError(
                f"expression {row[j]}, a{attr[j]} {OPS[op[j]]}: takes {arity[j]} value(s), "
                f"got {counts[j]}"
            )
        vptr = np.zeros(len(op) + 1, np.int64)
        np.cumsum(counts, out=vptr[1:])
        idx = np.repeat(starts - vptr[:-1], counts) + np.arange(vptr[-1])
        v0 = values[starts] if len(op) else np.empty(0)
        v1 = values[starts + (counts - 1)] if len(op) else np.empty(0)
        bad = np.flatnonzero((op == BETWEEN) & (v0 > v1))
        if bad.size:
            j = bad[0]
            raise InputError(f"expression {row[j]}: a{attr[j]} between {v0[j]} and {v1[j]}")
        inf = np.full(len(op), math.inf)
        lo = np.select([op == LT, op == LE, op == NE, op == GT],
                       [-inf, -inf, -inf, np.nextafter(v0, math.inf)], v0)  # fmt: skip
        hi = np.select([op == LT, op == LE, op == EQ, op == BETWEEN],
                       [np.nextafter(v0, -math.inf), v0, v0, v1], inf)  # fmt: skip
        return cls(indptr, attr, op, weight, lo, hi, vptr, values[idx].astype(np.float64))

    @classmethod
    def empty(cls) -> Expressions:
        return cls.from_arrays([0], [], np.empty(0, np.int8), [], [0], [])

    @classmethod
    def concat(cls, parts: Sequence[Expressions]) -> Expressions:
        """One collection holding the expressions of ``parts`` in order."""
        if not parts:
            return cls.empty()
        indptr, vptr = [np.zeros(1, np.int64)], [np.zeros(1, np.int64)]
        p0 = v0 = 0
        for e in parts:
            indptr.append(e.indptr[1:] + p0)
            vptr.append(e.vptr[1:] + v0)
            p0 += len(e.attr)
            v0 += len(e.values)
        cat = np.concatenate
        return cls(
            cat(indptr),
            cat([e.attr for e in parts]),
            cat([e.op for e in parts]),
            cat([e.weight for e in parts]),
            cat([e.lo for e in parts]),
            cat([e.hi for e in parts]),
            cat(vptr),
            cat([e.values for e in parts]),
        )

    # ---------------------------------------------------------------- access
    def __len__(self) -> int:
        return len(self.indptr) - 1

    def __getitem__(self, i: int) -> Expressions:
        """Expression ``i`` as a collection of one."""
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        a, b = int(self.indptr[i]), int(self.indptr[i + 1])
        va, vb = int(self.vptr[a]), int(self.vptr[b])
        return Expressions(
            np.array([0, b - a], np.int64),
            self.attr[a:b],
            self.op[a:b],
            self.weight[a:b],
            self.lo[a:b],
            self.hi[a:b],
            self.vptr[a : b + 1] - va,
            self.values[va:vb],
        )

    def predicates(self, i: int) -> list[tuple[int, str, tuple[float, ...], float]]:
        """Expression ``i`` as ``(attr, operator, values, weight)`` tuples."""
        out = []
        for j in range(int(self.indptr[i]), int(self.indptr[i + 1])):
            vals = tuple(float(x) for x in self.values[self.vptr[j] : self.vptr[j + 1]])
            out.append((int(self.attr[j]), OPS[self.op[j]], vals, float(self.weight[j])))
        return out

    def text(self, i: int = 0) -> str:
        """Expression ``i`` in the text form :func:`parse` reads."""
        parts = []
        for a, o, vals, w in self.predicates(i):
            f = [_fmt(v) for v in vals]
            if o in ("in", "not in"):
                rhs = "(" + ", ".join(f) + ")"
            elif o == "between":
                rhs = f"{f[0]} and {f[1]}"
            else:
                rhs = f[0]
            parts.append(f"a{a} {o} {rhs} : {_fmt(w)}")
        return ", ".join(parts)

    def __repr__(self) -> str:
        if len(self) == 1:
            return f"Expressions([{self.text(0)!r}])"
        return f"Expressions(n={len(self)}, predicates={len(self.attr)})"


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 2**53 else repr(float(x))


# --------------------------------------------------------------------- text form


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:  # only trailing white space left
            break
        kind = m.lastgroup
        if kind == "bad":
            raise InputError(
                f"unexpected character {m.group(kind)!r} at position {m.start(kind)} in {text!r}"
            )
        out.append((kind, m.group(kind), m.start(kind)))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str, attributes: Mapping[str, int] | None):
        self.text, self.toks, self.i, self.attributes = text, _tokens(text), 0, attributes

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else ("end", "", len(self.text))

    def error(self, what: str):
        kind, tok, pos = self.peek()
        shown = "end of input" if kind == "end" else f"token {tok!r}"
        raise InputError(f"{what}: unexpected {shown} at position {pos} in {self.text!r}")

    def take(self, kind: str, value: str | None = None, what: str = "") -> str:
        k, tok, _ = self.peek()
        if k != kind or (value is not None and tok.lower() != value):
            self.error(what or f"expected {value or kind}")
        self.i += 1
        return tok

    def number(self, what: str) -> float:
        k, tok, _ = self.peek()
        if k != "num":
            self.error(f"expected a number ({what})")
        self.i += 1
        x = float(tok)
        if not math.isfinite(x):
            self.i -= 1
            self.error("number out of range")
        return x

    def attribute(self) -> int:
        k, tok, _ = self.peek()
        if k == "name" and self.attributes is not None and tok in self.attributes:
            self.i += 1
            a = check_int(f"attributes[{tok!r}]", self.attributes[tok], 0, MAX_ATTR - 1)
        elif k == "name" and re.fullmatch(r"a\d+", tok):
            self.i += 1
            a = int(tok[1:])
        else:
            self.error("expected an attribute (a<number> or a name of `attributes`)")
        if not 0 <= a < MAX_ATTR:
            self.i -= 1
            self.error(f"attribute number {a} not in 0..2**24-1")
        return a

    def predicate(self):
        a = self.attribute()
        k, tok, _ = self.peek()
        low = tok.lower()
        if k == "op":
            self.i += 1
            op = OPS.index("=" if tok == "==" else tok)
            vals = [self.number(f"right side of {tok}")]
        elif k == "name" and low in ("in", "not"):
            self.i += 1
            if low == "not":
                self.take("name", "in", "expected 'in' after 'not'")
            op = NOTIN if low == "not" else IN
            vals = self.value_set()
        elif k == "name" and low == "between":
            self.i += 1
            v1 = self.number("lower end of between")
            self.take("name", "and", "expected 'and' in 'between v1 and v2'")
            v2 = self.number("upper end of between")
            if v1 > v2:
                self.i -= 1
                self.error(f"between {_fmt(v1)} and {_fmt(v2)} has its lower end above the upper")
            op, vals = BETWEEN, [v1, v2]
        else:
            self.error("expected an operator (<, <=, =, !=, >=, >, in, not in, between)")
        w = 1.0
        if self.peek()[0] == "punct" and self.peek()[1] == ":":
            self.i += 1
            w = self.number("weight")
            if w < 0:
                self.i -= 1
                self.error("weights must be >= 0")
        return a, op, vals, w

    def value_set(self) -> list[float]:
        k, tok, _ = self.peek()
        if not (k == "punct" and tok in "({"):
            self.error("expected '(' opening a value set")
        close = ")" if tok == "(" else "}"
        self.i += 1
        vals = [self.number("set value")]
        while self.peek()[1] == ",":
            self.i += 1
            vals.append(self.number("set value"))
        self.take("punct", close, f"expected ',' or '{close}' in a value set")
        return vals

    def expression(self):
        preds, seen = [], {}
        if self.peek()[0] == "end":
            return preds
        while True:
            start = self.i
            p = self.predicate()
            if p[0] in seen:
                self.i = start
                self.error(f"attribute a{p[0]} appears twice")
            seen[p[0]] = True
            preds.append(p)
            k, tok, _ = self.peek()
            if k == "end":
                return preds
            if not (k == "punct" and tok == ","):
                self.error("expected ',' between predicates")
            self.i += 1


def _from_predicates(rows: Iterable[list]) -> Expressions:
    indptr, attr, op, w, vptr, values = [0], [], [], [], [0], []
    for preds in rows:
        for a, o, vals, wt in preds:
            attr.append(a)
            op.append(o)
            w.append(wt)
            values.extend(vals)
            vptr.append(len(values))
        indptr.append(len(attr))
    return Expressions.from_arrays(
        indptr, np.array(attr, np.int64), np.array(op, np.int8), w, vptr, values
    )


def parse(text: str, attributes: Mapping[str, int] | None = None) -> Expressions:
    """One expression from text, e.g. ``"a3 between 10 and 20 : 0.7, a9 in (3, 5) : 0.2"``.

    Predicates are separated by commas; ``: w`` gives the weight (default 1); attributes
    are ``a<number>`` or names of ``attributes`` (a name -> number map); keywords are
    case-insensitive.  The empty string is the empty expression."""
    if not isinstance(text, str):
        raise InputError(f"text = {short_repr(text)}; allowed: a string")
    _check_attributes(attributes)
    return _from_predicates([_Parser(text, attributes).expression()])


def parse_many(texts: Iterable[str], attributes: Mapping[str, int] | None = None) -> Expressions:
    """Many expressions from text, in order.  ``texts`` is an iterable of strings (a
    single string, bytes or anything else raise ``InputError``)."""
    if isinstance(texts, str | bytes) or not isinstance(texts, Iterable):
        raise InputError(
            f"texts = {short_repr(texts)}; allowed: an iterable of strings (a list of texts)"
        )
    texts = list(texts)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise InputError(f"texts[{i}] = {short_repr(t)}; allowed: a string")
    _check_attributes(attributes)
    return _from_predicates([_Parser(t, attributes).expression() for t in texts])


def _check_attributes(attributes) -> None:
    """``attributes`` is None or a mapping (its numbers are checked as they are used)."""
    if attributes is not None and not isinstance(attributes, Mapping):
        raise InputError(
            f"attributes = {short_repr(attributes)}; allowed: None or a mapping of names to "
            "attribute numbers 0..2**24-1"
        )


def as_expression(e, what: str = "expression") -> Expressions:
    """A single expression from text or a one-expression collection."""
    if isinstance(e, str):
        return parse(e)
    if isinstance(e, Expressions):
        if len(e) != 1:
            raise InputError(f"{what} holds {len(e)} expressions; allowed: exactly one")
        return e
    raise InputError(
        f"{what} = {short_repr(e)}; allowed: a text or an Expressions of one expression"
    )


# ----------------------------------------------------------------- brute force


def _meet(o1, v1, lo1, hi1, o2, v2, lo2, hi2) -> bool:
    """Exact: some float64 satisfies both predicates (pure Python, for the oracle)."""
    if lo1 > hi2 or lo2 > hi1:
        return False
    comp = (NE, NOTIN)
    k1 = 1 if o1 == IN else 2 if o1 in comp else 0
    k2 = 1 if o2 == IN else 2 if o2 in comp else 0
    if k1 > k2:
        o1, v1, lo1, hi1, o2, v2, lo2, hi2 = o2, v2, lo2, hi2, o1, v1, lo1, hi1
        k1, k2 = k2, k1
    s2 = set(v2)
    if k1 == 0 and k2 == 0:
        return True
    if k1 == 2:  # both complements of finite sets
        return True
    if k1 == 0 and k2 == 1:
        return any(lo1 <= x <= hi1 for x in v2)
    if k1 == 1:
        s1 = set(v1)
        return bool(s1 & s2) if k2 == 1 else bool(s1 - s2)
    # interval against a complement: a float of [lo1, hi1] outside the set
    x = lo1
    for _ in range(len(s2) + 1):
        if x > hi1:
            return False
        if x not in s2:
            return True
        x = math.nextafter(x, math.inf)
    return False


def brute_scores(subs: Expressions, event: Expressions, alive=None) -> np.ndarray:
    """Score of every subscription for ``event`` (-1 where it does not match): the
    oracle.  A subscription matches when every one of its predicates shares a value
    with the event's predicate on the same attribute (an attribute absent from the
    event fails); the score is the sum over its predicates of weight x event weight,
    added in attribute order."""
    ev = {}
    for j in range(len(event.attr)):
        vals = tuple(event.values[event.vptr[j] : event.vptr[j + 1]])
        ev[int(event.attr[j])] = (int(event.op[j]), vals, event.lo[j], event.hi[j], event.weight[j])
    out = np.full(len(subs), -1.0)
    for i in range(len(subs)):
        if alive is not None and not alive[i]:
            continue
        score = 0.0
        for j in range(int(subs.indptr[i]), int(subs.indptr[i + 1])):
            e = ev.get(int(subs.attr[j]))
            vals = tuple(subs.values[subs.vptr[j] : subs.vptr[j + 1]])
            if e is None or not _meet(
                int(subs.op[j]), vals, subs.lo[j], subs.hi[j], e[0], e[1], e[2], e[3]
            ):
                break
            score += float(subs.weight[j]) * float(e[4])
        else:
            out[i] = score
    return out


def brute_match(subs: Expressions, event: Expressions, alive=None) -> np.ndarray:
    """Ids of the matching subscriptions, ascending."""
    return np.flatnonzero(brute_scores(subs, event, alive) >= 0).astype(np.int64)


def brute_top_k(subs: Expressions, event: Expressions, k: int, alive=None) -> np.ndarray:
    """The k best matching ids: score descending, ties by smaller id."""
    s = brute_scores(subs, event, alive)
    hit = np.flatnonzero(s >= 0)
    o = np.lexsort((hit, -s[hit]))
    return hit[o[:k]].astype(np.int64)
