"""xuezhan (天天爱云南麻将, blood battle) scoring: docs/rules/xuezhan.md, "Patterns" and
"Payments".

A win's multiplier is its main pattern's ``mult.<key>`` × ``mult.gen`` per 根 ×
the bonuses (× the enabled extras, per ``extras_stack``). ``Score.multiplier`` is
that uncapped product (no ``zimo_bonus``), ``fan`` its base-2 logarithm and
``points`` the money each payer pays: min(multiplier, ``cap``) × ``base``, with
``zimo_bonus`` when every other active player pays.

Main patterns (one per win; the highest valued that holds, ties to the later row),
根, the bonuses and the extras are the rows of :data:`TABLE` (key, name, default
multiplier, what the hand holds, the fours it contains, its predicate):
docs/rules/xuezhan.md renders them (``make docs``).

- 根 (``gen``): one per kind held four times in hand + melds (kongs included),
  minus the fours the taken main pattern contains (its row's ``fours``). A robbed
  kong's four is no 根: the robbed kind is never counted for the robber (a
  consistent game cannot give the robber that four anyway: the kong player holds
  the other three; the kong player, who keeps a pon, no longer holds four).
- Bonuses, ×``mult.<key>`` each: ``qiangganghu`` (method ``ROBBED_KONG``),
  ``gangshanghua`` (self-draw with ``after_kong``, the replacement of the last
  kong in ``ctx.melds``), ``gangshangpao`` (discard with ``after_kong``).
- Extras (``rules["extras"]``): each its row's predicate, the conditions
  docs/rules/xuezhan.md states (带幺九 never seven pairs; 将对 a 碰碰胡, so never
  a 金钩钩; 门清 not beside an enabled 天胡 or 地胡).
- ``extras_stack = separate``: every enabled extra that holds is one more
  candidate main pattern; the highest value is taken; on a tie the main-table
  pattern, then the extra named first in ``XUEZHAN_EXTRAS``. 根 then counts
  against the taken candidate (an extra contains no four).
- ``extras_stack = multiply``: every enabled extra that holds multiplies in. An
  extra that takes the place of a pattern (``qingyaojiu`` of 清一色 and 带幺九,
  ``jiangdui`` of 碰碰胡, ``jiangjingougou`` of 金钩钩) stands in for the main
  pattern, whose value is then not counted; 带幺九 is not counted beside
  清幺九. (Such an extra only ever holds when the main pattern is the one it
  replaces, and at most one of the three holds.)

``Score.patterns`` order: the main pattern (or the candidate taken), then the
multiplying extras in ``XUEZHAN_EXTRAS`` order, then ``gen`` once per 根, then
the bonuses in the order ``qiangganghu``, ``gangshanghua``, ``gangshangpao``.

Payments: ``zimo_bonus`` (``double``: ×2 before the cap; ``add_base``: +1 unit
after it) applies on a self-draw that every other active player pays, i.e. not
on 点杠花 (self-draw on an ``EXPOSED_KONG``'s replacement; in a chain of kongs, the
last kong, or the first with ``dian_gang_hua_link = first``) under
``dian_gang_hua = discarder_pays``, which sets ``feeder_pays`` instead.
``capped`` says the cap lowered the value (for ``double``, 2 × multiplier >
``cap``). ``extra["units"]`` is the value before the cap (``double`` included).

Legality: no winning shape → ``Reason.NOT_A_WIN``; any tile of ``ctx.void`` in
hand or in a meld → ``Reason.HOLDS_VOID``; ``after_kong`` on a self-draw without
a kong → ``Reason.NO_KONG_FOR_AFTER_KONG``; method ``SHILAOTOU`` → ``NOT_A_WIN``.
Several decompositions: the highest multiplier, then the first one.

>>> from mjlog.melds import Meld, MeldKind
>>> from mjlog.rules import resolve
>>> from mjlog.tiles import parse_counts, parse_tile
>>> r = resolve("xuezhan")
>>> def win(hand, tile, method=Method.SELF_DRAW, melds=(), rules=r, **kw):
...     return score(WinContext(tuple(parse_counts(hand)), tuple(melds), parse_tile(tile),
...                             method, **kw), rules)
>>> s = win("11223344556677m", "7m", void=2)
>>> s.patterns, s.multiplier, s.fan, s.points
(('qingqidui',), 16, 4, 16)
>>> s = win("11223344556666m", "6m", Method.DISCARD)
>>> s.patterns, s.multiplier, s.points, s.capped
(('qinglongqidui',), 32, 16, True)
>>> s = win("111123m456p789p55p", "1m", Method.DISCARD)   # four 1m: one 根
>>> s.patterns, s.multiplier
(('pinghu', 'gen'), 2)
>>> win("11223344556677m", "7m", void=0).reason
<Reason.HOLDS_VOID: 'holds_void_suit'>
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from mjlog.compiled import mypyc_attr
from mjlog.hand import check_counts, decompositions, holds_void, is_standard_win, suit_misses, waits
from mjlog.hand import is_seven_pairs as is_seven_pairs_counts
from mjlog.melds import Meld, MeldKind
from mjlog.scoring.base import Method, Reason, Score, WinContext
from mjlog.scoring.breakdown import Breakdown, Role, Term, grouped, money, money_steps, who_pays
from mjlog.scoring.patterns import (
    every_group_has_terminal,
    has_exposed_meld,
    is_all_258,
    is_all_simples,
    is_all_triplets,
    is_discard_after_kong,
    is_kong_replacement_win,
    is_one_suit,
    is_seven_pairs,
    is_single_tile_left,
    kong_count,
    last_kong,
    total_counts,
)
from mjlog.scoring.table import Pattern

if TYPE_CHECKING:
    from mjlog.rules import Rules

__all__ = [
    "TABLE",
    "Row",
    "MAIN",
    "NAMES",
    "VALUE_NAMES",
    "CONTAINS",
    "XUEZHAN_EXTRAS",
    "CONTAINED_FOURS",
    "BONUSES",
    "PLACE_TAKERS",
    "SITUATIONAL_EXTRAS",
    "score",
    "explain",
    "ready_value",
    "is_ready",
    "holds_void",
]


@mypyc_attr(native_class=False)  # as its base, Pattern (mjlog/scoring/table.py)
@dataclass(frozen=True)
class Row(Pattern[Any]):
    """A xuezhan pattern's row: what the scorer reads of it beyond a row's own.

    Its predicate reads, by kind: a main row (``shape``) a :class:`_Main`, 根
    (``root``) a :class:`_Roots`, a bonus (``situation``) the
    :class:`~mjlog.scoring.base.WinContext`, an extra a :class:`_Reading`."""

    fours: int = 0  # the fours a main pattern contains (not counted as 根)
    one_suit_of: str | None = None  # 清X: the main pattern X it is in one suit
    stands_for: tuple[str, ...] = ()  # an extra that takes these patterns' place
    in_ready: bool = True  # an extra counted in 查大叫 (not 天胡, 地胡, 海底捞月)


class _Main(NamedTuple):
    """What a main row's predicate reads of one reading of a hand: its shape row
    (:func:`_shape`, the scorer's reading), whether the whole hand is in one suit,
    and whether the reading is standard (four sets and a pair: not seven pairs)."""

    shape: str
    qing: bool
    standard: bool


class _Roots(NamedTuple):
    """What 根's predicate reads: the candidate taken and the hand's own fours."""

    taken: str
    own_fours: int


def _main_row(key: str, name: str, mult: int, holds: str, **kw: Any) -> Row:
    """A main row; its predicate, unless given: the reading's shape is this row
    (the 清 rows: the hand is in one suit and the shape is the row it is 清 of)."""
    of = kw.get("one_suit_of")
    when = kw.pop("when", None) or (
        (lambda m: m.qing and m.shape == of) if of else (lambda m: m.shape == key)
    )
    return Row(key, name, mult, holds, when, kind="shape", **kw)


def _extra_row(key: str, name: str, mult: int, holds: str, when: Any, **kw: Any) -> Row:
    return Row(key, name, mult, holds, when, kind="extra", **kw)


#: The xuezhan patterns, one row each: the main table (lowest first; the main pattern
#: of a win is the highest valued that holds, ties to the later row; the shape its
#: predicate reads is the scorer's reading of the hand, :func:`_shape`), 根, the
#: bonuses (the win's situation), then the optional extras (key
#: ``extras``) in the rulebook's order, each with its predicate. The values are the
#: defaults of ``mult.<key>``; ``contains``: the patterns every hand of it also is.
TABLE: tuple[Row, ...] = (
    # 平胡: any standard reading (a 碰碰胡 is also one)
    _main_row("pinghu", "平胡", 1, "four sets and a pair", when=lambda m: m.standard),
    _main_row(
        "pengpenghu",
        "碰碰胡",
        2,
        "no sequence, fewer than four melds (金钩钩 不计碰碰胡)",
        contains=("pinghu",),
    ),
    _main_row(
        "qingyise",
        "清一色",
        4,
        "one suit (melds included)",
        when=lambda m: m.qing,  # whatever the shape: a 清七对 is also a 清一色
        one_suit_of="pinghu",
        contains=("pinghu",),
    ),
    _main_row("qidui", "七对", 4, "seven pairs, no four"),
    _main_row(
        "jingougou",
        "金钩钩",
        4,
        "four melds, the pair alone in hand, not four kongs",
        contains=("pengpenghu",),
    ),
    _main_row(
        "qingpeng",
        "清碰",
        8,
        "清一色 + 碰碰胡",
        one_suit_of="pengpenghu",
        contains=("pengpenghu", "qingyise"),
    ),
    _main_row(
        "longqidui",
        "龙七对",
        8,
        "seven pairs with one four (contains 1 根)",
        fours=1,
        contains=("qidui",),
    ),
    _main_row(
        "qingqidui",
        "清七对",
        16,
        "清一色 + 七对",
        one_suit_of="qidui",
        contains=("qidui", "qingyise"),
    ),
    _main_row(
        "qingjingougou",
        "清金钩钩",
        16,
        "清一色 + 金钩钩",
        one_suit_of="jingougou",
        contains=("jingougou", "qingyise", "qingpeng"),
    ),
    _main_row(
        "shuanglongqidui",
        "双龙七对",
        16,
        "seven pairs with two fours (contains 2 根)",
        fours=2,
        contains=("longqidui",),
    ),
    _main_row(
        "qinglongqidui",
        "清龙七对",
        32,
        "清一色 + 龙七对 (1 根)",
        fours=1,
        one_suit_of="longqidui",
        contains=("longqidui", "qingyise", "qingqidui"),
    ),
    _main_row(
        "sanlongqidui",
        "三龙七对",
        32,
        "seven pairs with three fours (3 根)",
        fours=3,
        contains=("shuanglongqidui",),
    ),
    _main_row(
        "shibaluohan",
        "十八罗汉",
        64,
        "金钩钩 with four kongs (4 根; 不计金钩钩, 碰碰胡)",
        fours=4,
        contains=("jingougou",),
    ),
    _main_row(
        "qingshuanglongqidui",
        "清双龙七对",
        64,
        "清一色 + 双龙七对 (2 根)",
        fours=2,
        one_suit_of="shuanglongqidui",
        contains=("shuanglongqidui", "qingyise", "qinglongqidui"),
    ),
    _main_row(
        "qingsanlongqidui",
        "清三龙七对",
        128,
        "清一色 + 三龙七对 (3 根)",
        fours=3,
        one_suit_of="sanlongqidui",
        contains=("sanlongqidui", "qingyise", "qingshuanglongqidui"),
    ),
    _main_row(
        "qingshibaluohan",
        "清十八罗汉",
        256,
        "清一色 + 十八罗汉 (4 根)",
        fours=4,
        one_suit_of="shibaluohan",
        contains=("shibaluohan", "qingyise", "qingjingougou"),
    ),
    Row(
        "gen",
        "根",
        2,
        "per kind held four times, kongs included, less the fours the main pattern "
        "contains (a robbed kong's four is none)",
        lambda g: max(0, g.own_fours - CONTAINED_FOURS.get(g.taken, 0)),
        kind="root",
    ),
    Row(
        "qiangganghu",
        "抢杠胡",
        2,
        "robbing a kong",
        lambda c: c.method is Method.ROBBED_KONG,
        kind="situation",
    ),
    Row(
        "gangshanghua",
        "杠上开花",
        2,
        "self-draw on the last kong's replacement",
        is_kong_replacement_win,
        kind="situation",
    ),
    Row(
        "gangshangpao",
        "杠上炮",
        2,
        "won on the discard made right after the discarder's kong",
        is_discard_after_kong,
        kind="situation",
    ),
    _extra_row(
        "daiyaojiu",
        "带幺九",
        4,
        "every set, melds included, and the pair hold a 1 or 9 (never seven pairs)",
        lambda r: every_group_has_terminal(r.d, r.ctx.melds),
    ),
    _extra_row("duanyaojiu", "断幺九", 2, "no 1 or 9", lambda r: r.hand.simples),
    _extra_row(
        "qingyaojiu",
        "清幺九",
        16,
        "清一色 + 带幺九",
        lambda r: r.hand.qing and every_group_has_terminal(r.d, r.ctx.melds),
        stands_for=("qingyise", "daiyaojiu"),
        contains=("qingyise", "daiyaojiu"),
    ),
    _extra_row(
        "jiangdui",
        "将对",
        8,
        "a 碰碰胡 (so never a 金钩钩) of 2, 5 and 8 only",
        lambda r: r.shape == "pengpenghu" and r.hand.all258,
        stands_for=("pengpenghu",),
        contains=("pengpenghu",),
    ),
    _extra_row(
        "jiangjingougou",
        "将金钩钩",
        16,
        "a 金钩钩 (so never a 十八罗汉) of 2, 5 and 8 only",
        lambda r: r.shape == "jingougou" and r.hand.all258,
        stands_for=("jingougou",),
        contains=("jingougou",),
    ),
    _extra_row(
        "menqing",
        "门清",
        2,
        "no pon, exposed or added kong; not seven pairs; not when an enabled 天胡 or 地胡 holds",
        lambda r: (
            not is_seven_pairs(r.d) and not has_exposed_meld(r.ctx.melds) and not _first_turn(r)
        ),
    ),
    _extra_row(
        "tianhu",
        "天胡",
        32,
        "the dealer's self-draw on its first turn",
        lambda r: r.hand.selfdraw and r.ctx.first_turn and r.ctx.dealer,
        in_ready=False,
    ),
    _extra_row(
        "dihu",
        "地胡",
        32,
        "a non-dealer's self-draw on its first draw, before any pon or kong",
        lambda r: r.hand.selfdraw and r.ctx.first_turn and not r.ctx.dealer,
        in_ready=False,
    ),
    _extra_row(
        "haidilaoyue",
        "海底捞月",
        2,
        "won on the wall's last tile, self-drawn or discarded",
        lambda r: r.ctx.last_tile and r.ctx.method in (Method.SELF_DRAW, Method.DISCARD),
        in_ready=False,
    ),
)

#: The optional patterns (key ``extras``), in the rulebook's order.
XUEZHAN_EXTRAS: tuple[str, ...] = tuple(p.key for p in TABLE if p.kind == "extra")
#: The main table, lowest first (ties go to the later row).
MAIN: tuple[str, ...] = tuple(p.key for p in TABLE if p.kind == "shape")
#: The fours a main pattern contains (not counted as 根).
CONTAINED_FOURS: dict[str, int] = {p.key: p.fours for p in TABLE if p.fours}
#: Bonuses, in the order ``patterns`` lists them.
BONUSES: tuple[str, ...] = tuple(p.key for p in TABLE if p.kind == "situation")
#: Extras that take the place of patterns (docs/rules/xuezhan.md, "Optional patterns").
PLACE_TAKERS: dict[str, tuple[str, ...]] = {p.key: p.stands_for for p in TABLE if p.stands_for}
#: Extras left out of 查大叫 (ready_value).
SITUATIONAL_EXTRAS: tuple[str, ...] = tuple(
    p.key for p in TABLE if p.kind == "extra" and not p.in_ready
)
#: The Chinese names of every pattern above (docs/rules/xuezhan.md: 七对, 杠上开花, 门清).
NAMES: dict[str, str] = {p.key: p.name for p in TABLE}
#: No value key here names anything but a pattern row (:attr:`mjlog.scoring.base.Scorer.VALUE_NAMES`).
VALUE_NAMES: dict[str, str] = {}
#: Pattern families: each pattern → those every hand of it also is, directly (清七对
#: contains 七对 and 清一色; a table that tracks difficulty keeps a rarer pattern
#: paying no less: analysis/studies/rescore.py).
CONTAINS: dict[str, tuple[str, ...]] = {p.key: p.contains for p in TABLE if p.contains}
# (key, predicate) of the extras, read once
_EXTRA_TESTS = tuple((p.key, p.when) for p in TABLE if p.kind == "extra" and p.when)
_MAIN_TESTS = tuple((p.key, p.when) for p in TABLE if p.kind == "shape" and p.when)
_BONUS_TESTS = tuple((p.key, p.when) for p in TABLE if p.kind == "situation" and p.when)
_ROOTS = next(p.when for p in TABLE if p.kind == "root" and p.when)

_SEVEN_PAIRS = ("qidui", "longqidui", "shuanglongqidui", "sanlongqidui")  # by fours held


class _Table:
    """What scoring reads of one Rules, read once per Rules (a win is valued many
    times under the same rules; ``Rules.__getitem__`` is a Python call)."""

    __slots__ = (
        "mult",
        "extras",
        "ready_extras",
        "separate",
        "cap",
        "base",
        "zimo_bonus",
        "discarder_pays",
        "link",
        "main_of",
        "plain",
    )

    def __init__(self, rules: Rules):
        self.mult: dict[str, int] = {k[5:]: v for k, v in rules.items() if k.startswith("mult.")}
        self.extras: tuple[str, ...] = tuple(rules["extras"])
        self.ready_extras = tuple(e for e in self.extras if e not in SITUATIONAL_EXTRAS)
        self.separate: bool = rules["extras_stack"] == "separate"
        self.cap: int = rules["cap"]
        self.base: int = rules["base"]
        self.zimo_bonus: str = rules["zimo_bonus"]
        self.discarder_pays: bool = rules["dian_gang_hua"] == "discarder_pays"
        self.link: str = rules["dian_gang_hua_link"]
        self.main_of: dict[tuple[str, bool, bool], str] = {}  # _main() by its arguments
        # _evaluate() with no extras enabled, by (shape, qing, standard, own fours,
        # bonuses): nothing else enters the value then
        self.plain: dict[
            tuple[str, bool, bool, int, tuple[str, ...]], tuple[int, tuple[str, ...]]
        ] = {}


@functools.lru_cache(maxsize=64)
def _table(rules: Rules) -> _Table:
    """The rule facts of these rules, read once per distinct Rules."""
    return _Table(rules)


_MAIN_RANK = {k: i for i, k in enumerate(MAIN)}


def _main(shape: str, qing: bool, standard: bool, t: _Table) -> str:
    """The main pattern: the highest valued of the main rows whose predicate holds
    (ties to the later row of the main table)."""
    key = (shape, qing, standard)
    got = t.main_of.get(key)
    if got is None:
        m = _Main(shape, qing, standard)
        cands = [k for k, holds in _MAIN_TESTS if holds(m)]
        mult = t.mult
        got = t.main_of[key] = max(cands, key=lambda k: (mult[k], _MAIN_RANK[k]))
    return got


class _Hand:
    """The facts of a winning hand that do not depend on how it is read."""

    __slots__ = (
        "qing",
        "simples",
        "all258",
        "own_fours",
        "selfdraw",
        "concealed_fours",
        "single_tile_left",
        "four_kongs",
    )

    def __init__(self, ctx: WinContext, extras: bool):
        total = total_counts(ctx.concealed, ctx.melds)
        self.qing = is_one_suit(total)
        if extras:  # only the optional extras look at these
            self.simples = is_all_simples(total)
            self.all258 = is_all_258(total)
        self.own_fours = total.count(4)
        if ctx.method is Method.ROBBED_KONG and total[ctx.win_tile] == 4:
            self.own_fours -= 1  # the robbed kong's fourth tile is no 根 of the winner
        self.selfdraw = ctx.method is Method.SELF_DRAW
        self.concealed_fours = ctx.concealed.count(4)
        self.single_tile_left = is_single_tile_left(ctx.concealed, ctx.melds)
        self.four_kongs = self.single_tile_left and kong_count(ctx.melds) == 4


def _shape(d: Any, hand: _Hand) -> str:
    """The shape row of one decomposition, before 清一色."""
    if is_seven_pairs(d):
        return _SEVEN_PAIRS[min(hand.concealed_fours, 3)]
    if hand.single_tile_left:
        return "shibaluohan" if hand.four_kongs else "jingougou"
    if is_all_triplets(d):
        return "pengpenghu"
    return "pinghu"


class _Reading(NamedTuple):
    """What an extra's predicate reads: the win, one reading of its tiles, that
    reading's shape row (:func:`_shape`), the hand's facts and the enabled extras."""

    ctx: WinContext
    d: Any
    shape: str
    hand: _Hand
    enabled: Sequence[str]


def _first_turn(r: _Reading) -> bool:
    """An enabled 天胡 or 地胡 holds (门清 is not counted beside it)."""
    return bool(
        r.hand.selfdraw and r.ctx.first_turn and ("tianhu" if r.ctx.dealer else "dihu") in r.enabled
    )


def _extras(ctx: WinContext, d: Any, shape: str, hand: _Hand, enabled: Sequence[str]) -> list[str]:
    """The enabled extras that hold, in ``XUEZHAN_EXTRAS`` order (their rows' predicates)."""
    r = _Reading(ctx, d, shape, hand, enabled)
    return [k for k, holds in _EXTRA_TESTS if k in enabled and holds(r)]


def _evaluate(
    ctx: WinContext,
    d: Any,
    t: _Table,
    enabled: Sequence[str],
    bonuses: tuple[str, ...],
    hand: _Hand,
) -> tuple[int, tuple[str, ...]]:
    """(uncapped multiplier, patterns) of one decomposition."""
    shape = _shape(d, hand)
    standard = not is_seven_pairs(d)
    if not enabled:
        return _plain(t, shape, hand.qing, standard, hand.own_fours, bonuses)
    main = _main(shape, hand.qing, standard, t)
    holding = _extras(ctx, d, shape, hand, enabled)
    own = hand.own_fours
    if t.separate:
        # max() keeps the first of equal values: the main pattern, then the rulebook order
        return _value(max([main, *holding], key=t.mult.__getitem__), [], own, bonuses, t.mult)
    takers = [e for e in holding if e in PLACE_TAKERS]
    dropped = {p for e in takers for p in PLACE_TAKERS[e]} | set(takers)
    return _value(
        takers[0] if takers else main,
        [e for e in holding if e not in dropped],
        own,
        bonuses,
        t.mult,
    )


def _plain(
    t: _Table, shape: str, qing: bool, standard: bool, own_fours: int, bonuses: tuple[str, ...]
) -> tuple[int, tuple[str, ...]]:
    """:func:`_evaluate` with no extra enabled: nothing but these arguments enter
    the value then, so it is kept per rules."""
    key = (shape, qing, standard, own_fours, bonuses)
    got = t.plain.get(key)
    if got is None:
        got = t.plain[key] = _value(_main(shape, qing, standard, t), [], own_fours, bonuses, t.mult)
    return got


def _value(
    taken: str, others: list[str], own_fours: int, bonuses: Sequence[str], mult: dict[str, int]
) -> tuple[int, tuple[str, ...]]:
    """(multiplier, patterns) of the taken candidate with the multiplying extras,
    根 (the hand's ``own_fours`` less those ``taken`` contains) and the bonuses."""
    gen = _ROOTS(_Roots(taken, own_fours))
    pats = (taken, *others, *("gen",) * gen, *bonuses)
    return _product(pats, mult), pats


def _product(pats: Sequence[str], mult: dict[str, int]) -> int:
    """The multiplier of a win's patterns: the product of their ``mult.*``."""
    value = 1
    for p in pats:
        value *= mult[p]
    return value


def _best(
    ctx: WinContext, t: _Table, enabled: Sequence[str], bonuses: tuple[str, ...]
) -> tuple[int, tuple[str, ...]] | None:
    """The best reading's (multiplier, patterns), None when the hand is no win:
    the highest multiplier, then the first reading (:func:`decompositions` order)."""
    if not enabled:
        got = _best_plain(ctx, t, bonuses)
        if got is not _EVERY_READING:
            return got
    best = None
    hand = None
    for d in decompositions(ctx.concealed, len(ctx.melds)):
        if hand is None:
            hand = _Hand(ctx, bool(enabled))
        v = _evaluate(ctx, d, t, enabled, bonuses, hand)
        if best is None or v[0] > best[0]:
            best = v
    return best


class _Every(Enum):
    """What :func:`_best_plain` returns when every reading must be valued."""

    READING = 0


_EVERY_READING = _Every.READING


def _best_plain(
    ctx: WinContext, t: _Table, bonuses: tuple[str, ...]
) -> tuple[int, tuple[str, ...]] | None | Literal[_Every.READING]:
    """:func:`_best` with no extra enabled, read off the counts (no decompositions;
    a win is valued on every discard a ready hand could take).

    Without extras a reading's value is its shape row's, and a hand's readings fall
    in three classes at most: the one with no sequence (碰碰胡; every kind held 0,
    2 or 3 times, one pair), those with one (平胡, valued alike), and seven pairs,
    which come last. 金钩钩 and 十八罗汉 have one reading. Returns _EVERY_READING
    when 碰碰胡 is not valued above 平胡 (custom multipliers): which reading comes
    first then decides, and :func:`_best` reads them all.
    """
    nm = len(ctx.melds)
    b = check_counts(ctx.concealed)
    standard = is_standard_win(b, nm)
    seven = is_seven_pairs_counts(b, nm)
    if not (standard or seven):
        return None
    hand = _Hand(ctx, False)
    qing, own = hand.qing, hand.own_fours
    best = None
    if standard:
        if hand.single_tile_left:
            shape = "shibaluohan" if hand.four_kongs else "jingougou"
            best = _plain(t, shape, qing, True, own, bonuses)
        else:
            best = _plain(t, "pinghu", qing, True, own, bonuses)
            if b.count(1) == 0 and b.count(4) == 0 and b.count(2) == 1:  # no sequence
                trip = _plain(t, "pengpenghu", qing, True, own, bonuses)
                if trip[0] <= best[0]:
                    return _EVERY_READING
                best = trip
    if seven:
        pairs = _plain(t, _SEVEN_PAIRS[min(hand.concealed_fours, 3)], qing, False, own, bonuses)
        if best is None or pairs[0] > best[0]:
            best = pairs
    return best


def score(ctx: WinContext, rules: Rules) -> Score:
    """Value a xuezhan win (see the module docstring)."""
    method = ctx.method
    if method is Method.SHILAOTOU:
        return Score(False, reason=Reason.NOT_A_WIN, extra={"why": "no 十老头 in xuezhan"})
    if method is Method.SELF_DRAW and ctx.after_kong and last_kong(ctx.melds) is None:
        return Score(False, reason=Reason.NO_KONG_FOR_AFTER_KONG)
    t = _table(rules)
    bonuses = tuple(k for k, holds in _BONUS_TESTS if holds(ctx))
    best = _best(ctx, t, t.extras, bonuses)
    if best is None:
        return Score(False, reason=Reason.NOT_A_WIN)
    if holds_void(ctx.concealed, ctx.melds, ctx.void):
        return Score(False, reason=Reason.HOLDS_VOID)
    multiplier, pats = best

    kong = (
        ctx.deciding_kong(t.link)
        if method is Method.SELF_DRAW and ctx.after_kong and t.discarder_pays
        else None
    )
    feeder_pays = kong is not None and kong.kind is MeldKind.EXPOSED_KONG
    bonus = _bonus(method, feeder_pays, t)
    units = multiplier * 2 if bonus == "double" else multiplier
    points, capped = money(multiplier, t.cap, t.base, bonus)
    return Score(
        legal=True,
        patterns=pats,
        fan=multiplier.bit_length() - 1,
        multiplier=multiplier,
        points=points,
        capped=capped,
        feeder_pays=feeder_pays,
        extra={"units": units, "zimo_bonus": bonus},
    )


def _bonus(method: Method, feeder_pays: bool, t: _Table) -> str:
    """The ``zimo_bonus`` a win gets: only a self-draw every other active player pays."""
    return t.zimo_bonus if method is Method.SELF_DRAW and not feeder_pays else "none"


def explain(
    patterns: Sequence[str], method: Method | str, rules: Rules, feeder_pays: bool = False
) -> Breakdown:
    """The breakdown of a legal xuezhan win with these patterns (``Score.patterns``),
    won by ``method``; ``feeder_pays``: 点杠花 paid by the kong's feeder alone.

    >>> from mjlog.rules import resolve
    >>> r = resolve("xuezhan")
    >>> b = explain(("qingyise", "gen"), Method.SELF_DRAW, r)
    >>> b.formula, b.points, b.payer_text
    ('×4 ×2 (根) = ×8 → 8 points', 8, 'each other active player pays')
    >>> explain(("qinglongqidui", "gangshangpao"), "discard", r).formula
    '×32 ×2 (杠上炮) = ×64 → capped at 16 → 16 points'
    """
    method = Method(method)
    patterns = tuple(patterns)
    if not patterns or method is Method.SHILAOTOU:
        raise ValueError(
            f"xuezhan: {' '.join(patterns) or 'no pattern'} is no legal win ({method})"
        )
    t = _table(rules)
    multiplier = _product(patterns, t.mult)
    bonus = _bonus(method, feeder_pays, t)
    points, capped = money(multiplier, t.cap, t.base, bonus)
    terms, factors = [], []
    for i, (p, n) in enumerate(grouped(patterns)):
        role = (
            Role.MAIN
            if i == 0
            else Role.GEN
            if p == "gen"
            else Role.BONUS
            if p in BONUSES
            else Role.EXTRA
        )
        terms.append(Term(p, NAMES.get(p, p), n, t.mult[p], role))
        factors += [f"×{t.mult[p]}" if i == 0 else f"×{t.mult[p]} ({NAMES.get(p, p)})"] * n
    formula = " → ".join(
        [
            f"{' '.join(factors)} = ×{multiplier}",
            *money_steps(multiplier, t.cap, t.base, bonus),
            f"{points} points",
        ]
    )
    return Breakdown(
        "xuezhan",
        tuple(terms),
        formula,
        multiplier,
        points,
        multiplier.bit_length() - 1,
        multiplier,
        capped,
        *who_pays(method, feeder_pays, True),
    )


def is_ready(
    concealed: Sequence[int],
    melds: Sequence[Meld],
    rules: Rules | None = None,
    void: int | None = None,
    **kw: Any,
) -> bool:
    """听牌: holds no tile of ``void`` and some kind outside it completes the hand
    (kinds held four times excluded). A 花猪 is never ready.

    >>> from mjlog.tiles import parse_counts
    >>> is_ready(parse_counts("1112345678999m"), (), void=1), is_ready(
    ...     parse_counts("1112345678999m"), (), void=0)
    (True, False)
    """
    if holds_void(concealed, melds, void) or suit_misses(concealed) == 15:
        return False  # a 花猪; or two suits fit no complete hand: no wait
    held = total_counts(concealed, melds)
    return any(
        void is None or w // 9 != void for w in waits(list(concealed), len(melds), held=held)
    )


def ready_value(
    concealed: Sequence[int],
    melds: Sequence[Meld],
    rules: Rules,
    void: int | None = None,
    **kw: Any,
) -> int:
    """查大叫: money per payer owed to a ready hand: the max over its waits of the
    multiplier as for a win (根, extras per ``extras_stack``) without 天胡, 地胡,
    海底捞月 and the bonuses, capped, × ``base``, no ``zimo_bonus``. 0 when not
    ready or when the hand holds a tile of ``void`` (a 花猪 is never ready).

    >>> from mjlog.rules import resolve
    >>> from mjlog.tiles import parse_counts
    >>> r = resolve("xuezhan")
    >>> ready_value(parse_counts("1122334455667m"), (), r, void=2)   # 7m: 清七对
    16
    >>> ready_value(parse_counts("1112345678999m"), (), r.replace(cap=2), void=2)
    2
    >>> ready_value(parse_counts("1112345678999m"), (), r, void=0)
    0
    """
    if holds_void(concealed, melds, void) or suit_misses(concealed) == 15:
        return 0  # a 花猪; or two suits fit no complete hand: no wait
    counts = list(concealed)
    melds = tuple(melds)
    held = total_counts(counts, melds)
    t = _table(rules)
    best = 0
    for w in waits(counts, len(melds), held=held):
        if void is not None and w // 9 == void:
            continue
        c = counts.copy()
        c[w] += 1
        v = _best(WinContext(tuple(c), melds, w, Method.DISCARD), t, t.ready_extras, ())
        if v is not None and v[0] > best:
            best = v[0]
    return min(best, t.cap) * t.base
