"""Huangmei (黄梅麻将) scoring: an additive fan table, at least ``min_fan`` to win.

The rules are docs/rules/huangmei.md, "Patterns". Every row of the table is
one pattern: a key, a rule key ``fan.<key>`` giving its value, and a counter over a
finished hand (how many times the pattern counts, 0 when it does not hold). A win's
``fan`` is the sum of count × value over the table, on the decomposition of the hand
that gives the highest total; the win is legal when the shape wins and the total is
at least ``min_fan`` (the seed: "不满足两番的牌型是不允许胡的").

The patterns are the rows of :data:`TABLE` (key, name, default fan, what is counted,
its counter): docs/rules/huangmei.md renders them (``make docs``).

``Score.patterns`` lists the keys **in the order of this table**, each once per
time it counts (``facai`` once per 发, ``peng_zhongbai`` once per pon, ...).

Exclusions, as the rulebook states them:

- 七一对 has no 平胡, 门前清 or 单吊, and the honors inside it earn nothing of their
  own (a seven-pairs hand has no triplets and no melds, so no 暗刻 or kong fan can
  arise); the hand-wide fans (自摸, 发财, 清一色, 混一色, 抢杠, 财上开花,
  海底捞月) still count.
- 杠上开花, 财上开花 and 海底捞月 replace 自摸. 海底捞月 never counts together
  with 杠上开花 or 财上开花: the one with the higher ``fan.*`` value counts, and on
  equal values 杠上开花 / 财上开花 does.
- 全求人 replaces 碰碰胡 and 单吊. On a self-draw such a hand is no 全求人: it is
  scored as any other hand (碰碰胡, 自摸, and 单吊 when its wait was single).
- Winds (东南西北) earn nothing from pons, kongs or triplets; 发 is a bonus tile and
  never sits in a hand or a meld (a 发 in ``ctx.concealed`` is a dead tile: the
  hand cannot win, ``Reason.NOT_A_WIN``).

``menqing_on_discard = false``: 门前清 is not counted on a discard win, and
nothing else changes; robbing a kong is no discard, so it counts there. The seed's
"如果2条3条听胡1条4条别人出了不能胡" then follows from ``min_fan``: a concealed
two-sided hand with no 发 holds only 平胡 on a discard, while 卡档, a 发 or any
bigger pattern (清一色, 混一色, ...) still reaches 2 fan. There is no separate
two-sided ban.

Replacement chains. ``ctx.after_kong`` and ``ctx.after_bonus`` name the first link
of the chain of tail draws since the player's last front draw: a chain that
began with a kong is 杠上开花 even when a 发 came in between, one that began with
a 发 is 财上开花 even when a kong followed. The engine sets at most one of the two
flags; a context with both raises :class:`~mjlog.errors.InputError`. Both flags
only count on a self-draw (huangmei has no 杠上炮).

Payment (``payment``): ``linear`` gives ``points = fan × base``; ``doubling``
gives ``base × 2^min(fan − min_fan, doubling_cap)`` (封顶: the seed names no cap;
the rulebook's decision, default 10, so that money never overflows).
``multiplier`` is None; ``capped`` says ``doubling_cap`` lowered the points
(never under ``linear``). 杠上开花 is paid as a self-draw (every other player
pays), 抢杠 by the kong player as a discard: that is the engine's business, not
a flag of the score.

Example, the seed's own: a pon of 8m, waiting on 3p/6p. On a discard the hand
holds only 平胡 and cannot win; by self-draw it is 平胡 + 自摸.

>>> from mjlog.melds import Meld, MeldKind
>>> from mjlog.rules import resolve
>>> from mjlog.tiles import parse_counts, parse_tile
>>> rules = resolve("huangmei")
>>> hand, pon = parse_counts("123m45p3p456s77s"), (Meld(MeldKind.PON, parse_tile("8m"), 1),)
>>> s = score(WinContext(tuple(hand), pon, parse_tile("3p"), Method.DISCARD), rules)
>>> s.legal, s.reason, s.patterns, s.fan, s.points
(False, <Reason.BELOW_MIN_FAN: 'below_min_fan'>, ('pinghu',), 1, 0)
>>> s = score(WinContext(tuple(hand), pon, parse_tile("3p"), Method.SELF_DRAW), rules)
>>> s.legal, s.patterns, s.fan, s.points
(True, ('pinghu', 'zimo'), 2, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from mjlog.errors import InputError
from mjlog.hand import SEQ, TRIP, Decomposition, decompositions, waits
from mjlog.melds import Meld, MeldKind
from mjlog.rulekeys import INT32_MAX
from mjlog.scoring.base import Method, Reason, Score, WinContext
from mjlog.scoring.breakdown import Breakdown, Role, Term, grouped, who_pays
from mjlog.scoring.patterns import (
    is_all_triplets,
    is_half_flush,
    is_one_suit,
    total_counts,
)
from mjlog.scoring.table import Pattern
from mjlog.tiles import GREEN, NUM_KINDS, RED, WHITE, fmt_counts, fmt_tile

if TYPE_CHECKING:
    from mjlog.rules import Rules

__all__ = [
    "TABLE",
    "PATTERNS",
    "NAMES",
    "VALUE_NAMES",
    "CONTAINS",
    "STANDS_FOR",
    "score",
    "explain",
    "ready_value",
    "is_ready",
]

_ZHONGBAI = (WHITE, RED)
_EXPOSED_KONGS = (MeldKind.EXPOSED_KONG, MeldKind.ADDED_KONG)


# ---------------------------------------------------------------- one win, one decomposition


class _Win:
    """A win read through one decomposition of its concealed tiles. A plain class, not a
    dataclass: a compiled dataclass evaluates its field annotations when the module
    loads, and ``Rules`` is imported for the type checker alone (mjlog.rules imports
    the variants, which import this scorer)."""

    __slots__ = ("ctx", "rules", "d", "single_wait", "replacement")

    def __init__(
        self,
        ctx: WinContext,
        rules: Rules,
        d: Decomposition,
        single_wait: bool,
        replacement: str | None,  # "gangshanghua" | "caishangkaihua" | "haidilaoyue" | None
    ) -> None:
        self.ctx = ctx
        self.rules = rules
        self.d = d
        self.single_wait = single_wait
        self.replacement = replacement

    @property
    def seven_pairs(self) -> bool:
        return self.d.kind == "seven_pairs"

    @property
    def self_draw(self) -> bool:
        return self.ctx.method is Method.SELF_DRAW

    def melds_of(self, kinds: Sequence[MeldKind], honor: bool) -> int:
        """Melds of the given kinds, of 中/白 (``honor``) or of suited tiles."""
        return sum(
            1
            for m in self.ctx.melds
            if m.kind in kinds and (m.tile in _ZHONGBAI if honor else m.tile < 27)
        )

    @property
    def quanqiuren(self) -> bool:
        """Four exposed melds, the pair won from another player's tile."""
        return (
            len(self.ctx.melds) == 4
            and all(m.exposed for m in self.ctx.melds)
            and not self.self_draw
        )

    @property
    def wait_pattern(self) -> str | None:
        """The one of 卡档 / 边张 / 单吊 this win earns, or None.

        Every place the winning tile can take in the decomposition is a candidate;
        the highest ``fan.*`` value wins, ties in table order.
        """
        if not self.single_wait or self.seven_pairs:
            return None
        t = self.ctx.win_tile
        found = []
        if self.d.pair == t and not self.quanqiuren:
            found.append("dandiao")
        for kind, first in self.d.sets:
            if kind is not SEQ or not first <= t <= first + 2:
                continue
            offset, r = t - first, first % 9
            if offset == 1:
                found.append("kadang")
            elif (offset == 2 and r == 0) or (offset == 0 and r == 6):
                found.append("bianzhang")
        if not found:
            return None
        return max(found, key=lambda k: (self.rules[f"fan.{k}"], -_ORDER[k]))

    def total(self) -> list[int]:
        """Counts of the hand and the melds (laid-out 发 are not part of the hand)."""
        return total_counts(self.ctx.concealed, self.ctx.melds)


def _anke_zhongbai(w: _Win) -> int:
    n = sum(1 for kind, t in w.d.sets if kind is TRIP and t in _ZHONGBAI)
    t = w.ctx.win_tile
    # 中/白 only form triplets or the pair, and five copies do not exist: a winning
    # 中/白 from another player in a triplet completed that triplet.
    if not w.self_draw and t in _ZHONGBAI and (TRIP, t) in w.d.sets:
        n -= 1
    return n


def _hunyise(total: Sequence[int], rules: Rules) -> bool:
    """混一色, and 字一色 (honors only) as 混一色 with ``ziyise_hunyise``."""
    return is_half_flush(total) or (rules["ziyise_hunyise"] and not any(total[:27]))


#: The huangmei patterns, one row each, in the rulebook's table order (the order
#: ``Score.patterns`` lists them); the values are the defaults of ``fan.<key>``, the
#: predicates count how many times a pattern counts on one reading of the hand.
TABLE: tuple[Pattern[_Win], ...] = (
    Pattern(
        "pinghu",
        "平胡",
        1,
        "any standard-shape win (never seven pairs)",
        lambda w: not w.seven_pairs,
    ),
    Pattern(
        "zimo",
        "自摸",
        1,
        "self-draw, unless 杠上开花, 财上开花 or 海底捞月",
        lambda w: w.self_draw and w.replacement is None,
        kind="situation",
    ),
    Pattern(
        "menqing",
        "门前清",
        1,
        "no pon, no kong of any kind; not seven pairs; on a discard only with "
        "`menqing_on_discard` (robbing a kong is no discard)",
        lambda w: (
            not w.ctx.melds
            and not w.seven_pairs
            and (w.ctx.method is not Method.DISCARD or w.rules["menqing_on_discard"])
        ),
    ),
    Pattern(
        "facai",
        "发财",
        1,
        "per laid-out 发 (`ctx.bonus`); all four: `fan.facai_all` instead of 4 × `fan.facai`",
        lambda w: w.ctx.bonus,
        kind="situation",
    ),
    Pattern(
        "kadang",
        "卡档",
        1,
        "the middle of a sequence, when the hand waited on that kind alone (at most one "
        "of 卡档, 边张, 单吊)",
        lambda w: w.wait_pattern == "kadang",
    ),
    Pattern(
        "bianzhang",
        "边张",
        1,
        "the 3 of 123 or the 7 of 789, when the hand waited on that kind alone",
        lambda w: w.wait_pattern == "bianzhang",
    ),
    Pattern(
        "dandiao",
        "单吊",
        1,
        "the pair's tile, when the hand waited on that kind alone",
        lambda w: w.wait_pattern == "dandiao",
    ),
    Pattern(
        "peng_zhongbai",
        "碰红中/白板",
        1,
        "per pon of 中 or 白",
        lambda w: w.melds_of((MeldKind.PON,), honor=True),
    ),
    Pattern(
        "minggang_shu",
        "明杠数牌",
        1,
        "per exposed or added kong of a suited tile",
        lambda w: w.melds_of(_EXPOSED_KONGS, honor=False),
    ),
    Pattern(
        "anke_zhongbai",
        "暗刻红中/白板",
        2,
        "per concealed triplet of 中 or 白 in the hand; one completed by a discard is "
        "not concealed",
        _anke_zhongbai,
    ),
    Pattern(
        "angang_shu",
        "暗杠数牌",
        2,
        "per concealed kong of a suited tile",
        lambda w: w.melds_of((MeldKind.CONCEALED_KONG,), honor=False),
    ),
    Pattern(
        "caishangkaihua",
        "财上开花",
        2,
        "self-draw on a 发's replacement",
        lambda w: w.replacement == "caishangkaihua",
        kind="situation",
        contains=("zimo",),  # self-draws counted
    ),
    Pattern(
        "minggang_zhongbai",
        "明杠红中/白板",
        3,
        "per exposed or added kong of 中 or 白",
        lambda w: w.melds_of(_EXPOSED_KONGS, honor=True),
        contains=("peng_zhongbai",),  # a kong of 中/白 is its triplet and one more
    ),
    Pattern(
        "angang_zhongbai",
        "暗杠红中/白板",
        4,
        "per concealed kong of 中 or 白",
        lambda w: w.melds_of((MeldKind.CONCEALED_KONG,), honor=True),
        contains=("anke_zhongbai",),
    ),
    Pattern(
        "gangshanghua",
        "杠上开花",
        5,
        "self-draw on a kong's replacement",
        lambda w: w.replacement == "gangshanghua",
        kind="situation",
        contains=("zimo",),
    ),
    Pattern(
        "qiangganghu",
        "抢杠",
        5,
        "robbing a kong",
        lambda w: w.ctx.method is Method.ROBBED_KONG,
        kind="situation",
    ),
    Pattern(
        "haidilaoyue",
        "海底捞月",
        5,
        "self-draw of the wall's last tile",
        lambda w: w.replacement == "haidilaoyue",
        kind="situation",
        contains=("zimo",),  # instead of 自摸
    ),
    Pattern("qidui", "七一对", 15, "seven pairs", lambda w: w.seven_pairs),
    Pattern(
        "pengpenghu",
        "碰碰胡",
        15,
        "four triplets (kongs count) and a pair",
        lambda w: is_all_triplets(w.d) and not w.quanqiuren,
        contains=("pinghu",),  # a standard shape
    ),
    Pattern("qingyise", "清一色", 15, "one suit, no honors", lambda w: is_one_suit(w.total())),
    Pattern(
        "hunyise",
        "混一色",
        15,
        "one suit plus honors (both present), or honors only with `ziyise_hunyise`",
        lambda w: _hunyise(w.total(), w.rules),
    ),
    Pattern(
        "quanqiuren",
        "全求人",
        30,
        "four exposed melds, won on the pair tile from a discard",
        lambda w: w.quanqiuren,
        contains=("pengpenghu", "dandiao"),  # counted instead of both
    ),
)
#: key → counter (how many times it counts), in the table's order.
PATTERNS: dict[str, Callable[[_Win], int]] = {p.key: p.when for p in TABLE if p.when}
_ORDER = {k: i for i, k in enumerate(PATTERNS)}
#: The Chinese names of the table (docs/rules/huangmei.md: 门前清, 抢杠, 七一对).
NAMES: dict[str, str] = {p.key: p.name for p in TABLE}
#: Pattern families: each pattern → those every hand of it also is, directly (a table
#: that tracks difficulty keeps a rarer pattern paying no less: analysis/studies/rescore.py).
CONTAINS: dict[str, tuple[str, ...]] = {p.key: p.contains for p in TABLE if p.contains}
#: Value keys that are what several counts of a pattern pay instead: four 发财 pay
#: ``fan.facai_all``, not 4 × ``fan.facai`` (kept no lower by analysis/studies/rescore.py).
STANDS_FOR: dict[str, tuple[str, int]] = {"facai_all": ("facai", 4)}
#: Their names (:attr:`mjlog.scoring.base.Scorer.VALUE_NAMES`).
VALUE_NAMES: dict[str, str] = {"facai_all": "四发财"}


def _value(key: str, count: int, rules: Rules) -> int:
    if key == "facai" and count == 4:
        fan: int = rules["fan.facai_all"]
        return fan
    per: int = rules[f"fan.{key}"]
    return count * per


def _evaluate(w: _Win) -> tuple[tuple[str, ...], int]:
    patterns: list[str] = []
    fan = 0
    for key, counter in PATTERNS.items():
        n = int(counter(w))
        if n:
            patterns += [key] * n
            fan += _value(key, n, w.rules)
    return tuple(patterns), fan


# ---------------------------------------------------------------- checks and situation


def _check(ctx: WinContext) -> None:
    c = ctx.concealed
    if len(c) != NUM_KINDS or any(type(x) is not int or not 0 <= x <= 4 for x in c):
        raise InputError(f"huangmei: concealed must be 34 counts 0..4, got {tuple(c)!r}")
    if type(ctx.win_tile) is not int or not 0 <= ctx.win_tile < NUM_KINDS:
        raise InputError(f"huangmei: bad winning tile {ctx.win_tile!r}")
    if not c[ctx.win_tile]:
        raise InputError(
            f"huangmei: winning tile {fmt_tile(ctx.win_tile)} not in the concealed "
            f"tiles {fmt_counts(c)!r}"
        )
    if not 0 <= ctx.bonus <= 4:
        raise InputError(f"huangmei: {ctx.bonus} 发 laid out (expected 0..4)")
    if ctx.after_kong and ctx.after_bonus:
        raise InputError(
            "huangmei: after_kong and after_bonus both set; a replacement chain "
            "counts by its first link only (docs/rules/huangmei.md, 'Patterns')"
        )


def _replacement(ctx: WinContext, rules: Rules) -> str | None:
    """The pattern that takes 自摸's place: 杠上开花, 财上开花, 海底捞月 or None."""
    if ctx.method is not Method.SELF_DRAW:
        return None
    chain = "gangshanghua" if ctx.after_kong else "caishangkaihua" if ctx.after_bonus else None
    if ctx.last_tile and (chain is None or rules["fan.haidilaoyue"] > rules[f"fan.{chain}"]):
        return "haidilaoyue"
    return chain


def _single_wait(ctx: WinContext) -> bool:
    if ctx.single_wait is not None:
        return ctx.single_wait
    before = list(ctx.concealed)
    before[ctx.win_tile] -= 1
    return len(_waits(before, ctx.melds)) == 1


def _waits(concealed: Sequence[int], melds: Sequence[Meld]) -> list[int]:
    # A 发 is never won (a drawn 发 is laid out at once) and never held in a wait.
    w = waits(list(concealed), melds=len(melds), held=total_counts(concealed, melds))
    return [t for t in w if t != GREEN]


def _not_a_win() -> Score:
    return Score(legal=False, reason=Reason.NOT_A_WIN)


# ---------------------------------------------------------------- the API


def score(ctx: WinContext, rules: Rules) -> Score:
    """Value a huangmei win: the best decomposition's fan, then ``min_fan``.

    A hand that is no winning shape (or holds a dead 发) gives
    ``Reason.NOT_A_WIN`` with no patterns; a shape that falls short of
    ``min_fan`` gives ``Reason.BELOW_MIN_FAN`` with its patterns and fan and
    0 points. Among decompositions with the same fan, the one whose pattern list,
    read as positions in the table, sorts first is taken, so the choice never
    depends on the order in which decompositions are found.

    >>> from mjlog.rules import resolve
    >>> from mjlog.tiles import parse_counts, parse_tile
    >>> # 7779m waits on 8m and 9m: no 单吊
    >>> ctx = WinContext(tuple(parse_counts("111m333m555m777m99m")), (), parse_tile("9m"),
    ...                  Method.SELF_DRAW, bonus=4)
    >>> s = score(ctx, resolve("huangmei"))
    >>> " ".join(s.patterns)
    'pinghu zimo menqing facai facai facai facai pengpenghu qingyise'
    >>> s.fan, s.points
    (41, 41)
    >>> s = score(ctx, resolve("huangmei", sets=["payment=doubling", "base=2"]))
    >>> s.points == 2 * 2**10, s.capped  # 2^(41 − 2), capped at doubling_cap 10
    (True, True)
    """
    _check(ctx)
    if ctx.concealed[GREEN] or any(m.tile == GREEN for m in ctx.melds):
        return _not_a_win()
    if sum(ctx.concealed) + 3 * len(ctx.melds) != 14:
        return _not_a_win()
    if ctx.method is Method.SELF_DRAW and ctx.after_kong and not any(m.is_kong for m in ctx.melds):
        return Score(legal=False, reason=Reason.NO_KONG_FOR_AFTER_KONG)
    decs = decompositions(list(ctx.concealed), melds=len(ctx.melds))
    if not decs:
        return _not_a_win()
    single = _single_wait(ctx)
    repl = _replacement(ctx, rules)
    best = min(
        (_evaluate(_Win(ctx, rules, d, single, repl)) for d in decs),
        key=lambda pf: (-pf[1], [_ORDER[k] for k in pf[0]]),
    )
    patterns, fan = best
    if fan < rules["min_fan"]:
        return Score(
            legal=False,
            patterns=patterns,
            fan=fan,
            reason=Reason.BELOW_MIN_FAN,
            extra={"single_wait": single},
        )
    points, capped = _points(fan, rules)
    return Score(
        legal=True,
        patterns=patterns,
        fan=fan,
        points=points,
        capped=capped,
        extra={"single_wait": single},
    )


def _points(fan: int, rules: Rules) -> tuple[int, bool]:
    """(points a payer pays, capped) of a legal ``fan``. Doubling past the log's
    int32 points column raises :class:`~mjlog.errors.InputError` (a huge cap and fan
    table would otherwise build an integer of millions of digits)."""
    if rules["payment"] == "doubling":
        doublings, cap = fan - rules["min_fan"], rules["doubling_cap"]
        paid = min(doublings, cap)
        if paid > 31 or rules["base"] * 2**paid > INT32_MAX:
            raise InputError(
                f"huangmei: {fan} fan pays {rules['base']} × 2^{paid}, past the "
                f"log's int32 points ({INT32_MAX}): lower doubling_cap or base"
            )
        return rules["base"] * 2**paid, doublings > cap
    return fan * rules["base"], False


def explain(
    patterns: Sequence[str], method: Method | str, rules: Rules, feeder_pays: bool = False
) -> Breakdown:
    """The breakdown of a huangmei win with these patterns (``Score.patterns``, in
    table order, a key once per time it counts), won by ``method``. A total below
    ``min_fan`` is explained too, with 0 points.

    >>> from mjlog.rules import resolve
    >>> r = resolve("huangmei")
    >>> b = explain(("pinghu", "menqing", "kadang"), "discard", r)
    >>> b.formula, b.points, b.payer_text
    ('平胡 1 + 门前清 1 + 卡档 1 = 3 fan', 3, 'the discarder pays')
    >>> explain(("pinghu", "zimo", "facai", "facai"), "self_draw",
    ...         resolve("huangmei", sets=["payment=doubling"])).formula
    '平胡 1 + 自摸 1 + 发财×2 2 = 4 fan → 1 × 2^(4 − 2) = 4 points'
    >>> explain(("pinghu", "zimo", "facai", "facai"), "self_draw",
    ...         resolve("huangmei", sets=["payment=doubling", "doubling_cap=1"])).formula
    '平胡 1 + 自摸 1 + 发财×2 2 = 4 fan → 1 × 2^(4 − 2) → capped at 2^1 (doubling_cap) = 2 points'
    """
    method = Method(method)
    terms = []
    fan = 0
    for key, n in grouped(tuple(patterns)):
        value = _value(key, n, rules)
        terms.append(Term(key, NAMES.get(key, key), n, value, Role.FAN))
        fan += value
    if not terms:
        raise ValueError("huangmei: no pattern, no win")
    legal = fan >= rules["min_fan"]
    points, capped = _points(fan, rules) if legal else (0, False)
    shown = " + ".join(f"{t.name}{f'×{t.count}' if t.count > 1 else ''} {t.value}" for t in terms)
    steps = [f"{shown} = {fan} fan"]
    if not legal:
        steps.append(f"below min_fan {rules['min_fan']}: no win")
    elif rules["payment"] == "doubling":
        wanted = f"2^({fan} − {rules['min_fan']})"
        if capped:  # the doublings, not the money, are capped: show the cap in doublings
            wanted += f" → capped at 2^{rules['doubling_cap']} (doubling_cap)"
        steps.append(f"{rules['base']} × {wanted} = {points} points")
    elif rules["base"] != 1:
        steps.append(f"× {rules['base']} (base) = {points} points")
    return Breakdown(
        "huangmei",
        tuple(terms),
        " → ".join(steps),
        fan,
        points,
        fan,
        None,
        capped,
        *who_pays(method, feeder_pays, False),
    )


def is_ready(
    concealed: Sequence[int], melds: Sequence[Meld] = (), rules: Rules | None = None, **kw: Any
) -> bool:
    """听牌 in shape (docs/rules/README.md, "Winning hands"): some kind, not all four
    of it held, completes the hand. A hand holding a 发 (dealt, not yet laid out: a
    dead tile) is not ready. ``min_fan`` is not considered; ``rules`` and ``kw`` are
    accepted for the common signature.

    >>> from mjlog.tiles import parse_counts
    >>> is_ready(parse_counts("1112345678999m"))
    True
    >>> is_ready(parse_counts("147m258p369s1234z")), is_ready(parse_counts("111234567899m6z"))
    (False, False)
    """
    if concealed[GREEN] or any(m.tile == GREEN for m in melds):
        return False
    return bool(_waits(concealed, melds))


def ready_value(concealed: Sequence[int], melds: Sequence[Meld], rules: Rules, **kw: Any) -> int:
    """Always 0: huangmei pays nothing at an exhaustive draw (docs/rules/huangmei.md,
    "End of the wall"); there is no 查大叫, a ready hand is owed nothing. Use
    :func:`is_ready` to know whether the hand is ready.

    >>> from mjlog.rules import resolve
    >>> from mjlog.tiles import parse_counts
    >>> ready_value(parse_counts("1112345678999m"), (), resolve("huangmei"))
    0
    """
    return 0
