"""Pattern predicates shared by the scorers: pure functions of a finished hand.

A *finished hand* is the 34 counts of the concealed tiles (the winning tile
included), the melds (:class:`mjlog.melds.Meld`) and, where the shape matters, one
decomposition of the concealed tiles as :func:`mjlog.hand.decompositions` returns
it (``kind`` ``"standard"`` or ``"seven_pairs"``, ``pair``, ``sets`` of
``(SEQ, first)`` / ``(TRIP, kind)``). Nothing here knows a variant: each
predicate is the plain meaning of a pattern's name, and each scorer decides which
ones it counts and what they are worth.

>>> from mjlog.melds import Meld, MeldKind
>>> from mjlog.tiles import parse_counts
>>> melds = (Meld(MeldKind.PON, 4), Meld(MeldKind.CONCEALED_KONG, 13))
>>> total = total_counts(parse_counts("11122233m"), melds)
>>> total[4], total[13], sum(total)
(3, 4, 15)
>>> is_one_suit(total), fours(total), has_exposed_meld(melds)
(False, [13], True)

A pattern's Chinese name is its table row's (:mod:`mjlog.scoring.table`), as the
variant's rulebook spells it (yuxi 杠上花, huangmei 七一对):
:meth:`mjlog.variants.Variant.pattern_name`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mjlog.hand import SEQ, TRIP, Decomposition  # noqa: F401  (TRIP: doctests)
from mjlog.melds import Meld, MeldKind  # noqa: F401  (MeldKind: doctests)
from mjlog.scoring.base import Method, WinContext
from mjlog.tiles import NUM_KINDS, is_honor, is_terminal_or_honor

__all__ = [
    "meld_counts",
    "total_counts",
    "suits_of",
    "is_one_suit",
    "is_half_flush",
    "is_seven_pairs",
    "is_standard",
    "is_all_triplets",
    "groups",
    "every_group_has_terminal",
    "is_all_simples",
    "is_all_258",
    "fours",
    "concealed_fours",
    "has_exposed_meld",
    "kong_count",
    "last_kong",
    "is_single_tile_left",
    "kong_situation",
    "is_kong_replacement_win",
    "is_discard_after_kong",
]


def meld_counts(melds: Iterable[Meld]) -> list[int]:
    """34 counts of the tiles in the melds (3 for a pon, 4 for a kong).

    >>> c = meld_counts([Meld(MeldKind.PON, 0), Meld(MeldKind.ADDED_KONG, 9)])
    >>> c[0], c[9], sum(c)
    (3, 4, 7)
    """
    counts = [0] * NUM_KINDS
    for m in melds:
        counts[m.tile] += m.size
    return counts


def total_counts(concealed: Sequence[int], melds: Iterable[Meld]) -> list[int]:
    """34 counts of the whole hand: concealed tiles plus every meld's tiles."""
    if len(concealed) != NUM_KINDS:
        raise ValueError(f"expected {NUM_KINDS} counts, got {len(concealed)}")
    total = list(concealed)
    for m in melds:
        total[m.tile] += m.size
    return total


def suits_of(counts: Sequence[int]) -> set[int]:
    """The suits present: 0 万, 1 筒, 2 条, 3 honors.

    >>> from mjlog.tiles import parse_counts
    >>> sorted(suits_of(parse_counts("19m5s77z")))
    [0, 2, 3]
    """
    return {t // 9 for t in range(NUM_KINDS) if counts[t]}


def is_one_suit(counts: Sequence[int]) -> bool:
    """清一色: every tile of one suit, no honors.

    >>> from mjlog.tiles import parse_counts
    >>> is_one_suit(parse_counts("123456789m")), is_one_suit(parse_counts("123m11z"))
    (True, False)
    """
    return not any(counts[27:]) and (any(counts[0:9]) + any(counts[9:18]) + any(counts[18:27])) == 1


def is_half_flush(counts: Sequence[int]) -> bool:
    """混一色: honors and the tiles of at most one suit, with at least one honor and
    at least one suited tile.

    >>> from mjlog.tiles import parse_counts
    >>> is_half_flush(parse_counts("123m11z")), is_half_flush(parse_counts("123m"))
    (True, False)
    """
    s = suits_of(counts)
    return 3 in s and len(s) == 2


def is_seven_pairs(d: Decomposition) -> bool:
    """The decomposition is seven pairs."""
    return d.kind == "seven_pairs"


def is_standard(d: Decomposition) -> bool:
    """The decomposition is four sets and a pair (melds counted as sets)."""
    return d.kind == "standard"


def is_all_triplets(d: Decomposition) -> bool:
    """碰碰胡 shape: a standard decomposition with no sequence (melds are triplets
    or kongs, so only the concealed sets matter). The sets are sorted, sequences
    first: the first set tells."""
    return d.kind == "standard" and (not d.sets or d.sets[0][0] is not SEQ)


def groups(d: Decomposition, melds: Iterable[Meld]) -> list[tuple[int, ...]]:
    """Every group of a standard hand as tile tuples: the concealed sets, then the
    melds (a kong as four tiles), then the pair.

    >>> from types import SimpleNamespace as D
    >>> groups(D(kind="standard", pair=8, sets=((SEQ, 0), (TRIP, 4))),
    ...        [Meld(MeldKind.PON, 17)])
    [(0, 1, 2), (4, 4, 4), (17, 17, 17), (8, 8)]
    """
    out: list[tuple[int, ...]] = []
    for k, t in d.sets:
        out.append((t, t + 1, t + 2) if k is SEQ else (t, t, t))
    for m in melds:
        out.append((m.tile,) * m.size)
    if d.pair is not None:
        out.append((d.pair, d.pair))
    return out


def every_group_has_terminal(d: Decomposition, melds: Iterable[Meld]) -> bool:
    """带幺九: a standard hand whose every set (melds included) and pair holds a 1,
    a 9 or an honor. Never true of seven pairs."""
    return is_standard(d) and all(any(is_terminal_or_honor(t) for t in g) for g in groups(d, melds))


def is_all_simples(counts: Sequence[int]) -> bool:
    """断幺九: no 1, no 9 and no honor anywhere.

    >>> from mjlog.tiles import parse_counts
    >>> is_all_simples(parse_counts("2345678m")), is_all_simples(parse_counts("2349m"))
    (True, False)
    """
    return not any(counts[t] and is_terminal_or_honor(t) for t in range(NUM_KINDS))


def is_all_258(counts: Sequence[int]) -> bool:
    """将: every tile a suited 2, 5 or 8.

    >>> from mjlog.tiles import parse_counts
    >>> is_all_258(parse_counts("258m258s")), is_all_258(parse_counts("25m3p"))
    (True, False)
    """
    return all(not counts[t] or (not is_honor(t) and t % 9 in (1, 4, 7)) for t in range(NUM_KINDS))


def fours(counts: Sequence[int]) -> list[int]:
    """Kinds held four times (pass :func:`total_counts` for hand + melds)."""
    return [t for t in range(NUM_KINDS) if counts[t] == 4]


def concealed_fours(concealed: Sequence[int]) -> int:
    """How many kinds the concealed tiles hold four times (a seven-pairs 龙)."""
    return sum(1 for c in concealed if c == 4)


def has_exposed_meld(melds: Iterable[Meld]) -> bool:
    """Any pon, exposed kong or added kong (what breaks 门清; a concealed kong does not)."""
    return any(m.exposed for m in melds)


def kong_count(melds: Iterable[Meld]) -> int:
    """Number of kongs of any kind."""
    return sum(1 for m in melds if m.is_kong)


def last_kong(melds: Sequence[Meld]) -> Meld | None:
    """The last kong made, or None.

    >>> last_kong([Meld(MeldKind.EXPOSED_KONG, 3), Meld(MeldKind.PON, 5)]).tile
    3
    >>> last_kong([Meld(MeldKind.PON, 5)]) is None
    True
    """
    for m in reversed(melds):
        if m.is_kong:
            return m
    return None


def is_single_tile_left(concealed: Sequence[int], melds: Sequence[Meld]) -> bool:
    """金钩钩 / 全求人 shape: four melds, so the concealed part is the pair alone
    (the tile left in hand and the winning tile that paired it).

    >>> from mjlog.tiles import parse_counts
    >>> ms = [Meld(MeldKind.PON, t) for t in (0, 9, 18, 27)]
    >>> pair = parse_counts("55m")
    >>> is_single_tile_left(pair, ms), is_single_tile_left(pair, ms[:3])
    (True, False)
    """
    return len(melds) == 4 and sum(concealed) == 2 and max(concealed) == 2


def kong_situation(ctx: WinContext) -> list[str]:
    """The kong-related pattern a win's situation gives (yuxi and xuezhan share them):
    抢杠胡 on a robbed kong, 杠上花 on a kong's replacement, 杠上炮 on the discard
    after the discarder's kong.

    >>> from mjlog.scoring.base import WinContext, Method
    >>> kong_situation(WinContext((0,) * 34, (), 0, Method.DISCARD, after_kong=True))
    ['gangshangpao']
    """
    if ctx.method is Method.ROBBED_KONG:
        return ["qiangganghu"]
    if is_kong_replacement_win(ctx):
        return ["gangshanghua"]
    if is_discard_after_kong(ctx):
        return ["gangshangpao"]
    return []


def is_kong_replacement_win(ctx: WinContext) -> bool:
    """杠上花 (杠上开花): a self-draw of a kong's replacement tile."""
    return ctx.after_kong and ctx.method is Method.SELF_DRAW


def is_discard_after_kong(ctx: WinContext) -> bool:
    """杠上炮: a win on the discard its discarder made right after a kong."""
    return ctx.after_kong and ctx.method is Method.DISCARD
