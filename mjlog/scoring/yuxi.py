"""yuxi (星悦云南麻将) scoring: docs/rules/yuxi.md, "Patterns" and "Payments".

A win is worth the value of its highest pattern, doubled once for every *other*
pattern present (the seed's 基础分×2^叠加番数), capped at ``cap`` per payer.
Values are the rule keys ``points.<key>``, each a pair self-draw / discard.

The patterns are the rows of :data:`TABLE` (key, name, default value, 番, what
the hand holds, predicate): docs/rules/yuxi.md renders them (``make docs``).

``Score.patterns`` lists the keys in the order of that table. ``fan`` is the sum
of the rows' 番 (龙七对 2, every other pattern 1); ``multiplier`` is None;
``points`` = min(score, ``cap``) × ``base``; ``capped`` says the cap lowered it;
``Score.extra["units"]`` is the uncapped score.

Which column: a self-draw is valued at the self-draw column (each other player
pays); a discard or a robbed kong at the discard column (the discarder / the kong
player pays). 点杠花 (self-draw on the replacement of an ``EXPOSED_KONG``, the last
kong in ``ctx.melds``) with ``dian_gang_hua = discarder_pays`` is valued at the
discard column and sets ``feeder_pays``; with ``self_draw``, or after an added or
concealed kong, it is an ordinary self-draw.

Readings where the rulebook is silent (each documented, each tested):

- A ``-`` (None) in a pattern's column for the win's method: the pattern cannot
  be the *base* of the score but still doubles it when another pattern present
  has a value in that column. With the default table this only matters for
  ``--set`` overrides (``gangshangpao``/``qiangganghu`` never occur on a
  self-draw, ``shilaotou`` is scored alone). When no pattern present has a value
  in the column the win is illegal: ``Reason.PLAIN_ON_DISCARD`` on a discard or a
  robbed kong (a hand needs a pattern that may be won that way), and
  ``Reason.NOT_A_WIN`` with ``extra["why"]`` on a self-draw (only reachable by
  overriding a self-draw value with ``-``).
- A plain hand on a discard is illegal (``Reason.PLAIN_ON_DISCARD``, zero
  points), except in the last four tiles (``ctx.forced_zone``) under
  ``last4_plain_on_discard``, where it wins as 平胡 at ``points.pinghu``'s
  self-draw value (1), capped, × ``base``. Refused, that would-be money is in
  ``Score.extra["plain_points"]``. Where 平胡 has no self-draw value
  (``points.pinghu = -/…``) there is no plain win at all, in the last four or
  anywhere else (no win is ever worth 0; ``extra["why"]`` says so).
- 抢杠胡 and 杠上炮 are patterns, so a plain hand robbing a kong is legal and
  scores 4 (docs/rules/yuxi.md, a **[D]** reading). With ``kong_wins_big =
  false`` they are not enough: a hand with no shape pattern is
  ``Reason.PLAIN_ON_DISCARD`` on that discard or rob, ``extra["why"]`` naming the
  key; in the last four under ``last4_plain_on_discard`` it wins as a plain
  hand, 杠上炮 or 抢杠胡 adding nothing.
- 点杠花 in a chain of kongs (kong, replacement, kong, replacement, win): the
  last kong decides; with ``dian_gang_hua_link = first`` the chain's first
  (``ctx.chain_kongs`` counts the chain's kongs).
- 龙七对 counts once however many fours the seven pairs hold.
- 十老头 with ``honors = false`` does not exist: ``Reason.NOT_A_WIN``. Its value
  is ``points.shilaotou``'s self-draw column, else its discard column (each other
  player pays); with ``-/-`` it is ``Reason.NOT_A_WIN`` and the engine, which asks
  this scorer on a 10th honor discard, lets play go on.
- ``ctx.after_kong`` on a self-draw with no kong in ``ctx.melds`` is
  ``Reason.NO_KONG_FOR_AFTER_KONG``.
- Several decompositions: the one with the highest uncapped score wins, then the
  higher ``fan``, then the first one :func:`mjlog.hand.decompositions` returns.

>>> from mjlog.melds import Meld, MeldKind
>>> from mjlog.rules import resolve
>>> from mjlog.tiles import parse_counts, parse_tile
>>> r = resolve("yuxi")
>>> def win(hand, tile, method, melds=(), **kw):
...     return score(WinContext(tuple(parse_counts(hand)), tuple(melds), parse_tile(tile),
...                             method, **kw), r)
>>> s = win("11122233344455m", "5m", Method.SELF_DRAW)   # 清一色 + 碰碰胡
>>> s.patterns, s.fan, s.points
(('pengpenghu', 'qingyise'), 2, 6)
>>> win("11122233344455m", "5m", Method.DISCARD).points
8
>>> kong = (Meld(MeldKind.EXPOSED_KONG, 0, from_seat=2),)
>>> s = win("22233344455m", "5m", Method.SELF_DRAW, kong, after_kong=True)   # 点杠花
>>> s.patterns, s.points, s.feeder_pays
(('pengpenghu', 'qingyise', 'gangshanghua'), 16, True)
>>> s = win("123m456p789s11z234m", "4m", Method.DISCARD)
>>> s.legal, s.reason, s.extra["plain_points"]
(False, <Reason.PLAIN_ON_DISCARD: 'plain_hand_on_discard'>, 1)
>>> r = resolve("yuxi", sets=["last4_plain_on_discard=true"])   # in the last four
>>> s = win("123m456p789s11z234m", "4m", Method.DISCARD, forced_zone=True)
>>> s.legal, s.patterns, s.points
(True, ('pinghu',), 1)
>>> r = resolve("yuxi", sets=["last4_plain_on_discard=true", "points.pinghu=-/-"])
>>> win("123m456p789s11z234m", "4m", Method.DISCARD, forced_zone=True).legal
False
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mjlog.hand import Decomposition, decompositions, suit_misses, waits
from mjlog.melds import Meld, MeldKind
from mjlog.scoring.base import Method, Reason, Score, WinContext
from mjlog.scoring.breakdown import Breakdown, Role, Term, money, money_steps, who_pays
from mjlog.scoring.patterns import (
    concealed_fours,
    is_all_triplets,
    is_discard_after_kong,
    is_kong_replacement_win,
    is_one_suit,
    is_seven_pairs,
    last_kong,
    total_counts,
)
from mjlog.scoring.table import Finished, Pattern

if TYPE_CHECKING:
    from mjlog.rules import Rules

__all__ = [
    "ORDER",
    "FAN",
    "NAMES",
    "VALUE_NAMES",
    "CONTAINS",
    "TABLE",
    "score",
    "explain",
    "ready_value",
    "is_ready",
    "shape_patterns",
]

#: The yuxi patterns, one row each, in the order ``Score.patterns`` lists them; the
#: values are the defaults of ``points.<key>`` (self-draw, discard points per payer;
#: None: ``-``, not won that way), the 番 the seed's (龙七对 2).
TABLE: tuple[Pattern[Finished], ...] = (
    Pattern(
        "pinghu", "平胡", (1, None), "no other pattern holds (a plain hand)", kind="plain", fan=1
    ),
    Pattern(
        "pengpenghu",
        "碰碰胡",
        (3, 4),
        "four triplets (kongs and pons count) and a pair",
        lambda h: is_all_triplets(h.d),
        fan=1,
    ),
    Pattern(
        "qingyise",
        "清一色",
        (3, 4),
        "one suit, no honors, melds included",
        lambda h: is_one_suit(h.total),
        fan=1,
    ),
    Pattern(
        "qidui",
        "小七对",
        (3, 4),
        "seven pairs, no four of a kind",
        lambda h: is_seven_pairs(h.d) and not concealed_fours(h.ctx.concealed),
        fan=1,
    ),
    Pattern(
        "longqidui",
        "龙七对",
        (6, 7),
        "seven pairs holding a four (counted once however many)",
        lambda h: is_seven_pairs(h.d) and concealed_fours(h.ctx.concealed) > 0,
        fan=2,
        contains=("qidui",),
    ),
    Pattern(
        "gangshanghua",
        "杠上花",
        (3, 4),
        "self-draw on the last kong's replacement",
        lambda h: is_kong_replacement_win(h.ctx),
        kind="situation",
        fan=1,
    ),
    Pattern(
        "gangshangpao",
        "杠上炮",
        (None, 4),
        "won on the discard made right after the discarder's kong",
        lambda h: is_discard_after_kong(h.ctx),
        kind="situation",
        fan=1,
    ),
    Pattern(
        "qiangganghu",
        "抢杠胡",
        (None, 4),
        "robbing a kong",
        lambda h: h.ctx.method is Method.ROBBED_KONG,
        kind="situation",
        fan=1,
    ),
    Pattern(
        "shilaotou",
        "十老头",
        (3, None),
        "ten honor discards in a row, each passed by all (method `shilaotou`): alone, "
        "whatever the hand",
        kind="method",
        fan=1,
    ),
)
# (key, predicate) of the rows the scorer tests, read once: a win is valued often
_SHAPES = tuple((p.key, p.when) for p in TABLE if p.kind == "shape" and p.when)
_SITUATIONS = tuple((p.key, p.when) for p in TABLE if p.kind == "situation" and p.when)
_PLAIN = next(p.key for p in TABLE if p.kind == "plain")
_NO_READING = Decomposition("situation", None, (), ())  # what a situation row is given

#: Every yuxi pattern key, in the order ``Score.patterns`` lists them.
ORDER: tuple[str, ...] = tuple(p.key for p in TABLE)
#: The Chinese names (docs/rules/yuxi.md, "Patterns": 小七对, 杠上花).
NAMES: dict[str, str] = {p.key: p.name for p in TABLE}
#: No value key here names anything but a pattern row (:attr:`mjlog.scoring.base.Scorer.VALUE_NAMES`).
VALUE_NAMES: dict[str, str] = {}
#: The seed's 番 per pattern.
FAN: dict[str, int] = {p.key: p.fan or 0 for p in TABLE}
#: Pattern families: each pattern → those every hand of it also is (direct containment;
#: a table that tracks difficulty keeps a rarer pattern paying no less: analysis/studies/rescore.py).
CONTAINS: dict[str, tuple[str, ...]] = {p.key: p.contains for p in TABLE if p.contains}

SELF, DISCARD = 0, 1  # columns of a points.* pair


def shape_patterns(concealed: Sequence[int], melds: Sequence[Meld], d: Any) -> list[str]:
    """The hand-shape patterns of one decomposition (no 平胡, no situation).

    >>> from types import SimpleNamespace as D
    >>> from mjlog.tiles import parse_counts
    >>> shape_patterns(parse_counts("11223344556666p"), (),
    ...                D(kind="seven_pairs", pair=None, sets=(), pairs=()))
    ['qingyise', 'longqidui']
    """
    ctx = WinContext(tuple(concealed), tuple(melds), 0, Method.SELF_DRAW)
    hand = Finished(ctx, d, total_counts(concealed, melds))
    return [key for key, holds in _SHAPES if holds(hand)]


def _column(ctx: WinContext, rules: Rules) -> tuple[int, bool]:
    """(column, feeder_pays) for the win's method."""
    if ctx.method is Method.SELF_DRAW:
        k = ctx.deciding_kong(rules["dian_gang_hua_link"]) if ctx.after_kong else None
        if (
            k is not None
            and k.kind is MeldKind.EXPOSED_KONG
            and rules["dian_gang_hua"] == "discarder_pays"
        ):
            return DISCARD, True
        return SELF, False
    return DISCARD, False


def _base(patterns: Sequence[str], col: int, rules: Rules) -> tuple[str, int] | None:
    """The pattern whose points in column ``col`` are the base (the highest; the
    first of equal ones) and those points; None when none has a value there."""
    best = None
    for p in patterns:
        v = rules[f"points.{p}"][col]
        if v is not None and (best is None or v > best[1]):
            best = (p, v)
    return best


def _units(patterns: Sequence[str], col: int, rules: Rules) -> int | None:
    """Base of the highest valued pattern × 2 per other pattern; None: no base."""
    b = _base(patterns, col, rules)
    return None if b is None else _doubled(b[1], len(patterns))


def _doubled(base: int, n: int) -> int:
    """The score of ``n`` patterns on a base: doubled once per other pattern."""
    doubling: int = 2 ** (n - 1)
    return base * doubling


def _legal(
    patterns: Sequence[str], units: int, rules: Rules, feeder_pays: bool = False, col: int = SELF
) -> Score:
    points, capped = money(units, rules["cap"], rules["base"])
    return Score(
        legal=True,
        patterns=tuple(sorted(patterns, key=ORDER.index)),
        fan=sum(FAN[p] for p in patterns),
        multiplier=None,
        points=points,
        capped=capped,
        feeder_pays=feeder_pays,
        extra={"units": units, "column": "self_draw" if col == SELF else "discard"},
    )


def _illegal(reason: Reason, **extra: Any) -> Score:
    return Score(legal=False, reason=reason, extra=extra)


def _shilaotou_units(rules: Rules) -> int | None:
    """十老头's value: its self-draw points, else its discard points."""
    points: tuple[int | None, int | None] = rules["points.shilaotou"]
    s, d = points
    return s if s is not None else d


def _plain_units(rules: Rules) -> int | None:
    """What a plain win on a discard pays where the rules allow one: 平胡's self-draw
    value (the rulebook, §2: the last-four reading lifts only the self-draw-only
    limit); None when 平胡 has none (``-/…``): then there is no plain win."""
    s: int | None = rules["points.pinghu"][0]
    return s


def score(ctx: WinContext, rules: Rules) -> Score:
    """Value a yuxi win (see the module docstring)."""
    if ctx.method is Method.SHILAOTOU:
        if not rules["honors"]:
            return _illegal(Reason.NOT_A_WIN, why="十老头 needs honors (honors = false)")
        units = _shilaotou_units(rules)
        if units is None:
            return _illegal(Reason.NOT_A_WIN, why="points.shilaotou has no value")
        return _legal(["shilaotou"], units, rules)
    if ctx.method is Method.SELF_DRAW and ctx.after_kong and last_kong(ctx.melds) is None:
        return _illegal(Reason.NO_KONG_FOR_AFTER_KONG)

    col, feeder_pays = _column(ctx, rules)
    total = total_counts(ctx.concealed, ctx.melds)
    # the situation rows read how the hand was won, not how it is read: tested once
    won = Finished(ctx, _NO_READING, total)
    situation = [key for key, holds in _SITUATIONS if holds(won)]
    # kong_wins_big = false: 杠上炮 / 抢杠胡 alone do not let a plain hand win
    strict = not rules["kong_wins_big"] and ctx.method is not Method.SELF_DRAW
    best: tuple[int, int, list[str]] | None = None
    shaped = False
    for d in decompositions(list(ctx.concealed), len(ctx.melds)):
        shaped = True
        hand = Finished(ctx, d, total)
        shape = [key for key, holds in _SHAPES if holds(hand)]
        if strict and not shape:
            continue
        pats = shape + situation or [_PLAIN]
        units = _units(pats, col, rules)
        if units is None:
            continue
        key = (units, sum(FAN[p] for p in pats))
        if best is None or key > best[:2]:
            best = (*key, pats)
    if not shaped:
        return _illegal(Reason.NOT_A_WIN)
    if best is None:
        if col == SELF:
            return _illegal(Reason.NOT_A_WIN, why="no pattern present has a self-draw value")
        return _plain_on_discard(ctx, rules, situation if strict else [])
    return _legal(best[2], best[0], rules, feeder_pays, col)


def _plain_on_discard(ctx: WinContext, rules: Rules, unheeded: Sequence[str]) -> Score:
    """A hand with no pattern that may be won on this discard or rob: a plain win
    in the last four under ``last4_plain_on_discard`` (尾牌强制, "若有人点炮则自动胡牌"),
    else refused; ``unheeded``: the kong patterns ``kong_wins_big = false`` did not
    count."""
    plain = _plain_units(rules)
    if plain is None:  # no win is ever worth 0: no plain win at all (rulebook §2)
        return _illegal(
            Reason.PLAIN_ON_DISCARD,
            why="and 平胡 has no self-draw value (points.pinghu = -/…): no plain win "
            "at all, not even on a discard in the last four (no win is worth 0)",
        )
    if ctx.forced_zone and rules["last4_plain_on_discard"]:
        return _legal(["pinghu"], plain, rules, col=DISCARD)
    extra: dict[str, Any] = {"plain_points": money(plain, rules["cap"], rules["base"])[0]}
    if unheeded:
        extra["why"] = (
            f"{'/'.join(NAMES[p] for p in unheeded)} does not count for it (kong_wins_big = false)"
        )
    return _illegal(Reason.PLAIN_ON_DISCARD, **extra)


def explain(
    patterns: Sequence[str], method: Method | str, rules: Rules, feeder_pays: bool = False
) -> Breakdown:
    """The breakdown of a legal yuxi win with these patterns (``Score.patterns``),
    won by ``method``; ``feeder_pays``: 点杠花 valued at the discard column.

    >>> from mjlog.rules import resolve
    >>> b = explain(("pengpenghu", "qingyise"), Method.DISCARD, resolve("yuxi"))
    >>> b.formula, b.points, b.payer_text
    ('4 × 2 = 8', 8, 'the discarder pays')
    >>> explain(("pengpenghu", "qingyise", "gangshanghua"), "self_draw",
    ...         resolve("yuxi", sets=["cap=8", "base=2"])).formula
    '3 × 2 × 2 = 12 → capped at 8 → × 2 (base) = 16'
    """
    method = Method(method)
    patterns = tuple(patterns)
    col = SELF if method in (Method.SELF_DRAW, Method.SHILAOTOU) and not feeder_pays else DISCARD
    base: tuple[str, int | None] | None
    if method is Method.SHILAOTOU:
        base = ("shilaotou", _shilaotou_units(rules))
    else:
        base = _base(patterns, col, rules)
        if base is None and patterns == ("pinghu",) and col == DISCARD:
            base = ("pinghu", _plain_units(rules))  # a plain win in the last four
    if base is None or base[1] is None or not patterns:
        raise ValueError(f"yuxi: {' '.join(patterns) or 'no pattern'} is no legal win ({method})")
    units = _doubled(base[1], len(patterns))
    points, capped = money(units, rules["cap"], rules["base"])
    terms, factors = [], [str(base[1])]
    for p in patterns:
        if p == base[0]:
            terms.append(Term(p, NAMES.get(p, p), 1, base[1], Role.BASE))
        else:
            terms.append(Term(p, NAMES.get(p, p), 1, 2, Role.DOUBLE))
            factors.append("2")
    formula = " → ".join(
        [f"{' × '.join(factors)} = {units}", *money_steps(units, rules["cap"], rules["base"])]
    )
    return Breakdown(
        "yuxi",
        tuple(terms),
        formula,
        units,
        points,
        sum(FAN[p] for p in patterns),
        None,
        capped,
        *who_pays(method, feeder_pays, False),
    )


def is_ready(
    concealed: Sequence[int], melds: Sequence[Meld], rules: Rules | None = None, **kw: Any
) -> bool:
    """听牌: at least one kind completes the hand (kinds held four times excluded).

    >>> from mjlog.tiles import parse_counts
    >>> is_ready(parse_counts("1112345678999m"), ()), is_ready(parse_counts("1357m2468p13579s"), ())
    (True, False)
    """
    held = total_counts(concealed, melds)
    return bool(waits(list(concealed), len(melds), held=held))


def ready_value(concealed: Sequence[int], melds: Sequence[Meld], rules: Rules, **kw: Any) -> int:
    """查大叫: money per payer owed to a ready hand at an exhaustive draw; 0 when not
    ready. ``chadajiao_value``: ``best_self_draw`` (the max over its waits of the
    capped per-payer self-draw score with no situational pattern), ``best_discard``
    (the max over its waits that may win on a discard of the capped discard score;
    where none may, the self-draw value) or ``flat`` (1 unit). Extra keywords
    (``void=``...) are ignored.

    >>> from mjlog.rules import resolve
    >>> from mjlog.tiles import parse_counts
    >>> r = resolve("yuxi")
    >>> ready_value(parse_counts("1112223334445m"), (), r)   # 5m: 清一色 碰碰胡; 3m 6m: 清一色
    6
    >>> ready_value(parse_counts("1112223334445m"), (), r.replace(chadajiao_value="best_discard"))
    8
    >>> ready_value(parse_counts("1112223334445m"), (), r.replace(chadajiao_value="flat"))
    1
    >>> ready_value(parse_counts("123m456p789s1z234m"), (), r)   # 1z: plain
    1
    >>> ready_value(parse_counts("1357m2468p13579s"), (), r)
    0
    """
    if suit_misses(concealed) == 15:
        return 0  # two suits fit no complete hand: no wait (the common case, cheaply)
    counts = list(concealed)
    melds = tuple(melds)
    held = total_counts(counts, melds)
    how = rules["chadajiao_value"]
    best = best_discard = 0
    ready = False
    for w in waits(counts, len(melds), held=held):
        ready = True
        if how == "flat":
            break
        c = counts.copy()
        c[w] += 1
        s = score(WinContext(tuple(c), melds, w, Method.SELF_DRAW), rules)
        best = max(best, s.points)
        if how == "best_discard":
            d = score(WinContext(tuple(c), melds, w, Method.DISCARD), rules)
            best_discard = max(best_discard, d.points)  # 0 when it may not
    if how == "flat":
        return rules["base"] if ready else 0
    return best_discard or best
