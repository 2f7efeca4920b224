"""Regex safety for REGEX text matches: a pattern is analysed once and refused when Python's
backtracking engine could take super-linear time on it.

REGEX safety. Python's ``re`` backtracks, so the pattern is parsed (with the interpreter's own
``re`` parser, so the analysed tree is exactly what runs) and rejected when:

1. it is longer than ``MAX_REGEX_LENGTH`` or does not compile;
2. it uses a backreference or a conditional group (unbounded, so refused);
3. a quantifier that can repeat (max > 1) wraps a group that can match empty;
4. a quantifier that can repeat wraps another variable quantifier or an optional alternative
   (``(a+)+``, ``(\\w+\\s?)*``, ``(.*a){12}``, ``^(a|aa)+$``) — unless each iteration starts or
   ends with a mandatory character none of the inner variable parts can consume
   (``(-[a-z]+)*``, ``(\\d+,)*``), which pins every iteration boundary;
5. a quantifier that can repeat wraps an alternation whose branches can start with the same
   character (``(ab|\\wc)*``);
6. an alternation has two or more branches that can match empty (``(a|a)*$`` after the parser
   factors the common prefix);
7. its estimated worst case ``choices * n ** degree`` is too large: degree above
   ``MAX_REGEX_DEGREE`` or choices above ``MAX_REGEX_CHOICES``. Variable quantifiers whose
   characters overlap chain (``.*a.*b`` chains two): a wide one (unbounded, or more than
   ``SMALL_REPEAT_WIDTH`` optional repeats) adds one to the degree, a small one (``\\s?``,
   ``\\d{1,3}``) multiplies the choices; a mandatory character a quantifier cannot consume
   closes it; a later element that can fail realizes the worst open chain; an unanchored search
   adds one. An accepted pattern reads at most ``regex_candidate_cap(degree, choices)``
   characters of a candidate (``REGEX_STEP_BUDGET`` steps: 4096 / 512 / 64 characters for
   degree 1 / 2 / 3); text beyond the cap is not searched.

Lookahead and (always fixed-width) lookbehind are allowed; their bodies are checked like the
rest. Character-class overlap is decided exactly for ranges and literals and by probing a fixed
sample alphabet for categories (``\\d``, ``\\w``, ``\\s``, negations, ``.``).
"""

from __future__ import annotations

import functools
import importlib
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

MAX_REGEX_LENGTH: Final = 256
REGEX_CANDIDATE_CAP: Final = 4096
REGEX_STEP_BUDGET: Final = 1 << 18
MAX_REGEX_DEGREE: Final = 3
MAX_REGEX_CHOICES: Final = 256
MAX_REPEAT_COUNT: Final = 1000
SMALL_REPEAT_WIDTH: Final = 16


@dataclass(frozen=True, slots=True)
class RegexRejected:
    pattern: str
    reason: str


@dataclass(frozen=True, slots=True)
class SafeRegex:
    """A pattern that passed ``check_regex``; ``candidate_cap`` bounds the text it reads."""

    compiled: re.Pattern[str]
    degree: int
    choices: int
    candidate_cap: int


# --------------------------------------------------------------------------- regex safety

_sre: Any = importlib.import_module("re._parser")

_PROBES: Final[str] = "".join(chr(c) for c in range(0x180)) + (
    "\u0300\u0391\u03b1\u0416\u0436\u05d0\u0627\u0660\u0663\u06f0\u0966\u0e01\u1100"
    "\u1680\u1e9e\u2000\u2003\u2028\u2029\u202f\u205f\u212a\u2160\u3000\u3042\u30a2\u4e2d"
    "\uac00\ufb01\uff10\uff21\uff41\U0001d7ce\U0001f600"
)


def _case_variants(ch: str) -> set[str]:
    out = {ch, ch.lower(), ch.upper(), ch.swapcase()}
    return {c for c in out if len(c) == 1}


_PROBE_BIT: Final = {ch: 1 << i for i, ch in enumerate(_PROBES)}


def _probes_folding_to() -> defaultdict[str, set[str]]:
    """Probe characters by each of their case variants (``_case_variants``)."""
    out: defaultdict[str, set[str]] = defaultdict(set)
    for probe in _PROBES:
        for v in _case_variants(probe):
            out[v].add(probe)
    return out


_CATEGORY_PATTERNS: Final = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}
_FLAG_IGNORECASE: Final = re.IGNORECASE.value
_FLAG_DOTALL: Final = re.DOTALL.value
_FLAG_ASCII: Final = re.ASCII.value
_FLAG_MULTILINE: Final = re.MULTILINE.value


class _Reject(Exception):
    """Internal: the analysis refuses the pattern (turned into ``RegexRejected``)."""


class _CharSet:
    """A set of characters: exact predicate, plus a probe bitmap and witnesses for overlap."""

    __slots__ = ("mask", "preds", "witnesses")

    def __init__(
        self, preds: tuple[Callable[[str], bool], ...], witnesses: frozenset[str], mask: int
    ) -> None:
        self.preds = preds
        self.witnesses = witnesses
        self.mask = mask

    @classmethod
    def of(cls, pred: Callable[[str], bool], witnesses: Iterable[str]) -> _CharSet:
        mask = 0
        for i, ch in enumerate(_PROBES):
            if pred(ch):
                mask |= 1 << i
        return cls((pred,), frozenset(witnesses), mask)

    @classmethod
    def finite(cls, pred: Callable[[str], bool], chars: set[str], ignorecase: bool) -> _CharSet:
        """A set of a few known characters (its probe bitmap is computed without probing)."""
        mask = 0
        for ch in chars:
            for probe in _PROBES_FOLDING_TO[ch] if ignorecase else (ch,):
                mask |= _PROBE_BIT.get(probe, 0)
        return cls((pred,), frozenset(chars), mask)

    def contains(self, ch: str) -> bool:
        return any(p(ch) for p in self.preds)

    def union(self, other: _CharSet) -> _CharSet:
        return _CharSet(
            self.preds + other.preds, self.witnesses | other.witnesses, self.mask | other.mask
        )

    def overlaps(self, other: _CharSet) -> bool:
        if self.mask & other.mask:
            return True
        return any(other.contains(w) for w in self.witnesses) or any(
            self.contains(w) for w in other.witnesses
        )


_EMPTY_SET: Final = _CharSet((), frozenset(), 0)
_PROBES_FOLDING_TO: Final = _probes_folding_to()


@dataclass(frozen=True, slots=True)
class _Char:
    cs: _CharSet


@dataclass(frozen=True, slots=True)
class _Zero:
    anchor_start: bool


@dataclass(frozen=True, slots=True)
class _Look:
    body: _Node


@dataclass(frozen=True, slots=True)
class _Seq:
    items: tuple[_Node, ...]


@dataclass(frozen=True, slots=True)
class _Alt:
    branches: tuple[_Node, ...]


@dataclass(frozen=True, slots=True)
class _Rep:
    body: _Node
    lo: int
    hi: int | None  # None: unbounded


_Node = _Char | _Zero | _Look | _Seq | _Alt | _Rep


def _with_flags(pred: Callable[[str], bool], flags: int) -> Callable[[str], bool]:
    if flags & _FLAG_IGNORECASE:
        return lambda ch: any(pred(v) for v in _case_variants(ch))
    return pred


def _category_pred(name: str, flags: int) -> Callable[[str], bool]:
    source = _CATEGORY_PATTERNS.get(name)
    if source is None:
        raise _Reject(f"unsupported character category {name}")
    compiled = re.compile(source, re.ASCII if flags & _FLAG_ASCII else 0)
    return lambda ch: compiled.fullmatch(ch) is not None


def _equals(lit: str) -> Callable[[str], bool]:
    return lambda ch: ch == lit


def _between(lo: str, hi: str) -> Callable[[str], bool]:
    return lambda ch: lo <= ch <= hi


@functools.lru_cache(maxsize=1024)
def _class_set(items: tuple[tuple[Any, Any], ...], flags: int) -> _CharSet:
    negate = False
    preds: list[Callable[[str], bool]] = []
    witnesses: set[str] = set()
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            lit = chr(av)
            preds.append(_equals(lit))
            witnesses.add(lit)
        elif name in ("RANGE", "RANGE_UNI_IGNORE"):
            lo, hi = chr(av[0]), chr(av[1])
            preds.append(_between(lo, hi))
            witnesses.update((lo, hi, chr((av[0] + av[1]) // 2)))
        elif name == "CATEGORY":
            preds.append(_category_pred(str(av), flags))
        else:
            raise _Reject(f"unsupported class item {name}")

    def base(ch: str) -> bool:
        return any(p(ch) for p in preds) != negate

    pred = _with_flags(base, flags)
    if flags & _FLAG_IGNORECASE:
        witnesses = {v for w in witnesses for v in _case_variants(w)}
    if not negate and all(str(op) == "LITERAL" for op, _ in items):
        return _CharSet.finite(pred, witnesses, flags & _FLAG_IGNORECASE != 0)
    return _CharSet.of(pred, witnesses)


@functools.lru_cache(maxsize=2)
def _any_set(dotall: bool) -> _CharSet:
    return _CharSet.of((lambda ch: True) if dotall else (lambda ch: ch != "\n"), ())


def _convert(sub: Any, flags: int) -> _Node:
    items: list[_Node] = []
    for op, av in sub.data:
        items.append(_convert_item(str(op), av, flags))
    return items[0] if len(items) == 1 else _Seq(tuple(items))


def _convert_item(name: str, av: Any, flags: int) -> _Node:
    if name == "LITERAL":
        return _Char(_class_set(((_sre.LITERAL, av),), flags))
    if name == "NOT_LITERAL":
        return _Char(_class_set(((_sre.NEGATE, None), (_sre.LITERAL, av)), flags))
    if name == "ANY":
        return _Char(_any_set(bool(flags & _FLAG_DOTALL)))
    if name == "IN":
        return _Char(_class_set(tuple(av), flags))
    if name == "AT":
        code = str(av)
        start = code == "AT_BEGINNING_STRING" or (
            code == "AT_BEGINNING" and not flags & _FLAG_MULTILINE
        )
        return _Zero(anchor_start=start)
    if name == "BRANCH":
        return _Alt(tuple(_convert(b, flags) for b in av[1]))
    if name == "SUBPATTERN":
        _group, add_flags, del_flags, body = av
        return _convert(body, (flags | add_flags) & ~del_flags)
    if name == "ATOMIC_GROUP":
        return _convert(av, flags)
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        lo, hi, body = av
        if lo > MAX_REPEAT_COUNT or (hi != _sre.MAXREPEAT and hi > MAX_REPEAT_COUNT):
            raise _Reject(f"repeat count above {MAX_REPEAT_COUNT}")
        return _Rep(_convert(body, flags), lo, None if hi == _sre.MAXREPEAT else hi)
    if name in ("ASSERT", "ASSERT_NOT"):
        _direction, body = av
        return _Look(_convert(body, flags))
    if name in ("GROUPREF", "GROUPREF_EXISTS"):
        raise _Reject("backreferences and conditional groups are not allowed")
    raise _Reject(f"unsupported construct {name}")


# ---- node properties


def _nullable(n: _Node) -> bool:
    match n:
        case _Char():
            return False
        case _Zero() | _Look():
            return True
        case _Seq(items):
            return all(_nullable(i) for i in items)
        case _Alt(branches):
            return any(_nullable(b) for b in branches)
        case _Rep(body, lo, _):
            return lo == 0 or _nullable(body)


def _first(n: _Node) -> _CharSet:
    match n:
        case _Char(cs):
            return cs
        case _Zero() | _Look():
            return _EMPTY_SET
        case _Seq(items):
            out = _EMPTY_SET
            for item in items:
                out = out.union(_first(item))
                if not _nullable(item):
                    break
            return out
        case _Alt(branches):
            out = _EMPTY_SET
            for b in branches:
                out = out.union(_first(b))
            return out
        case _Rep(body, _, _):
            return _first(body)


def _chars(n: _Node) -> _CharSet:
    match n:
        case _Char(cs):
            return cs
        case _Zero():
            return _EMPTY_SET
        case _Look(body) | _Rep(body, _, _):
            return _chars(body)
        case _Seq(items) | _Alt(items):
            out = _EMPTY_SET
            for item in items:
                out = out.union(_chars(item))
            return out


def _is_optional_alt(alt: _Alt) -> bool:
    return any(_nullable(b) for b in alt.branches) and not all(_nullable(b) for b in alt.branches)


def _alt_overlaps(alt: _Alt) -> bool:
    firsts = [_first(b) for b in alt.branches]
    return any(
        firsts[i].overlaps(firsts[j]) for i in range(len(firsts)) for j in range(i + 1, len(firsts))
    )


def _variable_parts(n: _Node) -> list[_Node]:
    """Sub-nodes that can match a varying number of characters by choice."""
    match n:
        case _Char() | _Zero():
            return []
        case _Look(body):
            return _variable_parts(body)
        case _Seq(items):
            return [p for i in items for p in _variable_parts(i)]
        case _Alt(branches):
            own: list[_Node] = [n] if _is_optional_alt(n) else []
            return own + [p for b in branches for p in _variable_parts(b)]
        case _Rep(body, lo, hi):
            own = [n] if lo != hi else []
            return own + _variable_parts(body)


# ---- structural rules (3..6 of the module docstring)


def _validate(n: _Node, in_repeat: bool) -> None:
    match n:
        case _Char() | _Zero():
            return
        case _Look(body):
            _validate(body, in_repeat)
        case _Seq(items):
            for item in items:
                _validate(item, in_repeat)
        case _Alt(branches):
            if sum(_nullable(b) for b in branches) >= 2:
                raise _Reject("alternation with several branches that can match empty")
            if in_repeat and _alt_overlaps(n):
                raise _Reject("quantified alternation whose branches overlap")
            for b in branches:
                _validate(b, in_repeat)
        case _Rep(body, _, hi):
            repeats = hi is None or hi > 1
            if repeats:
                if _nullable(body):
                    raise _Reject("quantifier over a group that can match empty")
                _check_nested(body)
            _validate(body, in_repeat or repeats)


def _check_nested(body: _Node) -> None:
    """A repeated body may hold variable parts only when a mandatory character that none of
    them can consume starts or ends every iteration (it pins the iteration boundaries) and one
    iteration on its own backtracks at most linearly."""
    parts = _variable_parts(body)
    if not parts:
        return
    items = body.items if isinstance(body, _Seq) and body.items else (body,)
    for pin in (items[0], items[-1]):
        if isinstance(pin, _Char) and not any(pin.cs.overlaps(_chars(p)) for p in parts):
            if _scan(body, [])[0].deg <= 1:
                return
    raise _Reject("nested quantifier (a repeated group contains a variable quantifier)")


# ---- backtracking cost (rule 7)


@dataclass(frozen=True, slots=True, order=True)
class _Cost:
    """Worst-case backtracking of a chain: ``n ** deg * mult`` for a candidate of length n."""

    deg: int = 0
    mult: int = 1

    def then(self, other: _Cost) -> _Cost:
        return _Cost(self.deg + other.deg, self.mult * other.mult)


_FREE: Final = _Cost()
_Open = list[tuple[_CharSet, _Cost]]


def _dedupe(open_: _Open) -> _Open:
    """One entry per character-set object (branches share their inputs), keeping the worst."""
    best: dict[int, tuple[_CharSet, _Cost]] = {}
    for cs, cost in open_:
        seen = best.get(id(cs))
        if seen is None or seen[1] < cost:
            best[id(cs)] = (cs, cost)
    return list(best.values())


def _worst(open_: _Open, cs: _CharSet | None = None) -> _Cost:
    return max((c for s, c in open_ if cs is None or s.overlaps(cs)), default=_FREE)


def _choice_cost(n: _Node) -> _Cost:
    """What one variable element adds to a chain: a factor of n when wide, else a constant."""
    if isinstance(n, _Rep):
        if n.hi is None or n.hi - n.lo > SMALL_REPEAT_WIDTH:
            return _Cost(1, 1)
        return _Cost(0, n.hi - n.lo + 1)
    if isinstance(n, _Alt):
        return _Cost(0, len(n.branches))
    return _Cost(0, 2)


def _open_choice(open_: _Open, n: _Node, cs: _CharSet) -> tuple[_CharSet, _Cost]:
    return cs, _worst(open_, cs).then(_choice_cost(n))


def _scan(n: _Node, open_: _Open) -> tuple[_Cost, _Open]:
    """Realized backtracking cost of ``n`` given the variable elements still open before it
    (each with the cost of the chain it ends), and the elements still open after it.

    A variable element stays open until a mandatory character it cannot consume follows it;
    an element that can fail realizes the worst open chain (backtracking re-runs it once per
    choice of that chain)."""
    match n:
        case _Char(cs):
            return _worst(open_), [(s, c) for s, c in open_ if s.overlaps(cs)]
        case _Zero():
            return _worst(open_), open_
        case _Look(body):
            return _worst(open_).then(_scan(body, [])[0]), open_
        case _Seq(items):
            realized = _FREE
            for item in items:
                r, open_ = _scan(item, open_)
                realized = max(realized, r)
            return realized, open_
        case _Alt(branches):
            realized, merged = _FREE, []
            for b in branches:
                r, o = _scan(b, open_)
                realized = max(realized, r)
                merged.extend(o)
            if _is_optional_alt(n) or _alt_overlaps(n):
                merged.append(_open_choice(open_, n, _chars(n)))
            return realized, _dedupe(merged)
        case _Rep(body, lo, hi):
            if hi is not None and hi <= 1:
                r, o = _scan(body, open_)
                if lo == 0:
                    return r, _dedupe([*open_, *o, _open_choice(open_, n, _chars(body))])
                return r, o
            inner, inner_open = _scan(body, [])
            nullable = lo == 0 or _nullable(body)
            realized = _worst(open_).then(inner) if (not nullable or inner != _FREE) else _FREE
            after = open_
            if not nullable:
                first = _first(body)
                after = [(s, c) for s, c in open_ if s.overlaps(first)]
            if lo != hi or inner_open:
                after = [*after, _open_choice(open_, n, _chars(body))]
            return realized, after


def _anchored(n: _Node) -> bool:
    while isinstance(n, _Seq):
        if not n.items:
            return False
        n = n.items[0]
    return isinstance(n, _Zero) and n.anchor_start


def regex_degree(pattern: str) -> int | RegexRejected:
    """The backtracking degree ``check_regex`` assigns to ``pattern`` (for diagnostics)."""
    checked = check_regex(pattern)
    return checked if isinstance(checked, RegexRejected) else checked.degree


@functools.lru_cache(maxsize=512)
def check_regex(pattern: str) -> SafeRegex | RegexRejected:
    """Check and compile ``pattern`` once (cached); see the module docstring for the rules."""
    if len(pattern) > MAX_REGEX_LENGTH:
        return RegexRejected(pattern, f"pattern longer than {MAX_REGEX_LENGTH} characters")
    try:
        compiled = re.compile(pattern)
    except (re.error, OverflowError, RecursionError) as exc:
        return RegexRejected(pattern, f"invalid regular expression: {exc}")
    try:
        parsed = _sre.parse(pattern)
        flags = int(parsed.state.flags)
        tree = _convert(parsed, flags)
        if parsed.getwidth()[0] > REGEX_CANDIDATE_CAP:
            raise _Reject(f"pattern needs more than {REGEX_CANDIDATE_CAP} characters")
        _validate(tree, in_repeat=False)
        cost, _ = _scan(tree, [])
    except _Reject as exc:
        return RegexRejected(pattern, str(exc))
    except (re.error, RecursionError, AttributeError, TypeError, ValueError) as exc:
        # The parser is private API: anything unexpected fails closed.
        return RegexRejected(pattern, f"pattern could not be analysed: {exc!r}")
    degree = cost.deg + (0 if _anchored(tree) else 1)
    if degree > MAX_REGEX_DEGREE:
        return RegexRejected(
            pattern,
            f"too much backtracking (degree {degree} > {MAX_REGEX_DEGREE}): "
            "adjacent quantifiers over overlapping characters",
        )
    if cost.mult > MAX_REGEX_CHOICES:
        return RegexRejected(
            pattern,
            f"too much backtracking (more than {MAX_REGEX_CHOICES} combinations of optional "
            "parts over overlapping characters)",
        )
    cap = regex_candidate_cap(degree, cost.mult)
    return SafeRegex(compiled=compiled, degree=degree, choices=cost.mult, candidate_cap=cap)


def regex_candidate_cap(degree: int, choices: int = 1) -> int:
    """Characters of a candidate read by a pattern whose worst case is ``choices * n ** degree``
    steps: the largest n within ``REGEX_STEP_BUDGET``, at most ``REGEX_CANDIDATE_CAP`` (with
    one choice: 4096, 512, 64 for degrees 1, 2, 3)."""
    budget = REGEX_STEP_BUDGET // max(1, choices)
    if degree <= 0:
        return REGEX_CANDIDATE_CAP
    root = round(math.pow(budget, 1.0 / degree))
    while root > 1 and root**degree > budget:
        root -= 1
    return max(1, min(REGEX_CANDIDATE_CAP, root))
