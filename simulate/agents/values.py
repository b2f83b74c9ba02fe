"""What the rules in force pay for the targets an agent can aim at.

:func:`values` asks the variant's scorer (:func:`mjlog.scoring.score`) what a
small set of *prototype* winning hands is worth under a :class:`~mjlog.rules.Rules`:
a plain hand, a one-suit hand, a one-suit hand with honors, seven pairs, all
triplets, and their one-suit forms, each concealed and (where it exists) with
exposed melds, by self-draw and on a discard. Nothing here knows a variant's
values: change ``points.qingyise``, ``mult.qingyise``, ``fan.qingyise``, ``cap``
or ``min_fan`` and the figures move with them, because the scorer moves. A
target that may not be won on a discard (yuxi's plain hand, a huangmei hand
under ``min_fan``) has no discard value.

The same goes for kongs: what a kong adds to a win (a 根, a kong fan, the loss
of 门清) is the difference the scorer sees between the prototype with a kong
and with a pon (or nothing); what a win on its replacement adds (杠上花) and
what a robbed kong costs (抢杠胡) likewise. Kong *money* is not a scorer value
but the variant's table (docs/rules/<variant>.md, 'Payments'): :func:`kong_money`
asks the function the engine pays it with (:func:`mjlog.state.kong_payments`).

Values are worked out once per :class:`Rules` and kept (a few dozen scorer
calls), so an agent pays for them once per run, not per decision.

>>> from mjlog.rules import resolve
>>> v = values(resolve("yuxi"))
>>> v.target["plain"], v.target["flush"]        # (self-draw, discard) per payer
((1, None), (3, 4))
>>> values(resolve("yuxi", sets=["points.qingyise=12/16"])).target["flush"]
(12, 16)
>>> values(resolve("xuezhan", sets=["cap=2"])).target["pairs_flush"]
(2, 2)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from mjlog.melds import Meld, MeldKind
from mjlog.rules import Rules
from mjlog.scoring import Method, WinContext, score

M, P, S, Z = 0, 9, 18, 27  # first id of 万, 筒, 条, honors
EAST, WHITE, RED = 27, 31, 33

# Prototype winning hands: (concealed tiles as ids, melds as (kind, tile), win tile).
# Each is the plainest hand of its kind: no 1/9-only or 2/5/8-only shape, no four,
# no 中/白, a two-sided last wait, so that only the named pattern can hold.
_C, _PON = MeldKind.CONCEALED_KONG, MeldKind.PON
_PROTO = {
    # 123m 456p 678p 234m 55p, won on 4m (23m waited on 1m/4m); two suits, so that
    # a xuezhan hand voiding 条 may hold it too
    "plain": ([0, 1, 2, 12, 13, 14, 14, 15, 16, 1, 2, 3, 13, 13], [], 3),
    "plain_open": ([0, 1, 2, 12, 13, 14, 1, 2, 3, 13, 13], [(_PON, 16)], 3),
    # 123m 345m 678m 234m 55m
    "flush": ([0, 1, 2, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 4], [], 3),
    "flush_open": ([0, 1, 2, 2, 3, 4, 1, 2, 3, 4, 4], [(_PON, 7)], 3),
    # 123m 345m 234m 111z(东) 55m
    "half": ([0, 1, 2, 2, 3, 4, 1, 2, 3, 27, 27, 27, 4, 4], [], 3),
    "half_open": ([0, 1, 2, 2, 3, 4, 1, 2, 3, 4, 4], [(_PON, 27)], 3),
    # 22m 44m 55m 77m 33p 66p 88p
    "pairs": ([1, 1, 3, 3, 4, 4, 6, 6, 11, 11, 14, 14, 16, 16], [], 16),
    "pairs_flush": ([1, 1, 2, 2, 3, 3, 5, 5, 6, 6, 7, 7, 4, 4], [], 4),
    # 333m 666p 444m 777p 22p, won on the 2p pair; and with those triplets ponged
    "triplets": ([2, 2, 2, 14, 14, 14, 3, 3, 3, 15, 15, 15, 10, 10], [], 10),
    "triplets_open": ([15, 15, 15, 10, 10], [(_PON, 2), (_PON, 14), (_PON, 3)], 10),
    "triplets_flush": ([1, 1, 1, 3, 3, 3, 5, 5, 5, 7, 7, 7, 0, 0], [], 0),
    "triplets_flush_open": ([7, 7, 7, 0, 0], [(_PON, 1), (_PON, 3), (_PON, 5)], 0),
}
TARGETS = tuple(_PROTO)


def _counts(tiles):
    c = [0] * 34
    for t in tiles:
        c[t] += 1
    return tuple(c)


def _value(rules: Rules, tiles, melds, win: int, method: Method, **kw) -> int | None:
    ms = tuple(Meld(k, t, None if k is _C else 1) for k, t in melds)
    ctx = WinContext(_counts(tiles), ms, win, method, void=2 if rules.spec.has_void else None, **kw)
    s = score(ctx, rules)
    return s.points if s.legal else None


@dataclass(frozen=True, slots=True)
class RuleValues:
    """Money per payer of each target, and what kongs are worth, under one Rules."""

    variant: str
    n: int
    base: int
    #: target -> (self-draw per payer, discard) money; None: may not be won that way
    target: dict
    #: a win's money with a kong in place of a pon (exposed / concealed), as a
    #: ratio to the same win with the pon (a 根, a kong fan, a lost 门清)
    kong_ratio: dict
    #: extra self-draw money per payer a pon of 中/白 brings to a plain open hand
    zhongbai_pon_bonus: int
    #: self-draw money of a win on a kong's replacement, as a ratio to a plain self-draw
    gangshanghua_ratio: float
    #: money the kong player pays when its kong is robbed (a plain hand robbing it)
    robbed: int
    #: money the discarder pays on a discard won right after its kong (杠上炮),
    #: as a ratio to the same win without the kong
    gangshangpao_ratio: float
    #: expected extra payments per win from 买马 (horses)
    horse_factor: float
    #: per-payer value a plain ready hand is owed at an exhaustive draw (查大叫)
    ready_owed: int
    #: what a 花猪 pays each other player at the end (xuezhan: cap)
    huazhu: int

    def win_money(self, key: str, payers: int, p_self: float) -> float:
        """Expected money from one win of this target: a self-draw with probability
        ``p_self`` (every payer pays), else a discard (one payer), or nothing when
        the target may not be won that way."""
        sd, d = self.target[key]
        got = 0.0
        if sd is not None:
            got += p_self * sd * payers
        if d is not None:
            got += (1 - p_self) * d
        return got * self.horse_factor


@functools.lru_cache(maxsize=64)
def values(rules: Rules) -> RuleValues:
    """The :class:`RuleValues` of these rules (computed once per distinct Rules)."""
    return _compute(rules)


def _compute(rules: Rules) -> RuleValues:
    target = {}
    for key, (tiles, melds, win) in _PROTO.items():
        sd = _value(rules, tiles, melds, win, Method.SELF_DRAW)
        d = _value(rules, tiles, melds, win, Method.DISCARD)
        target[key] = (sd, d)
    plain_sd = target["plain_open"][0] or target["plain"][0] or 1
    # kongs: the open plain hand with its pon made a kong of each kind
    tiles, melds, win = _PROTO["plain_open"]
    base_sd = _value(rules, tiles, melds, win, Method.SELF_DRAW)
    kong_ratio = {}
    for kind, mk in (("exposed", MeldKind.EXPOSED_KONG), ("added", MeldKind.ADDED_KONG)):
        v = _value(rules, tiles, [(mk, melds[0][1])], win, Method.SELF_DRAW)
        kong_ratio[kind] = _ratio(v, base_sd)
    # a concealed kong against the same tiles kept concealed (a 门清 it may keep or lose)
    ct, _, cw = _PROTO["plain"]
    closed = _value(rules, ct, [], cw, Method.SELF_DRAW)
    rest = list(ct)
    for t in (14, 15, 16):  # the 678p sequence becomes a concealed kong of 8p
        rest.remove(t)
    v = _value(rules, rest, [(_C, 16)], cw, Method.SELF_DRAW)
    kong_ratio["concealed"] = _ratio(v, closed)
    gsh = _value(
        rules, tiles, [(MeldKind.EXPOSED_KONG, melds[0][1])], win, Method.SELF_DRAW, after_kong=True
    )
    gsh_plain = _value(rules, tiles, [(MeldKind.EXPOSED_KONG, melds[0][1])], win, Method.SELF_DRAW)
    zb = _value(rules, tiles, [(_PON, RED)], win, Method.SELF_DRAW) or 0
    robbed = _value(rules, tiles, melds, win, Method.ROBBED_KONG) or 0
    pao = _value(
        rules, tiles, [(MeldKind.EXPOSED_KONG, melds[0][1])], win, Method.DISCARD, after_kong=True
    )
    nopao = target["plain_open"][1] or target["plain"][1] or plain_sd
    horses = rules.get("horses", 0) or 0
    from mjlog.scoring import ready_value

    tiles13 = list(_counts(_PROTO["plain"][0]))
    tiles13[_PROTO["plain"][2]] -= 1
    owed = ready_value(tiles13, (), rules, void=2 if rules.spec.has_void else None)
    return RuleValues(
        variant=rules.variant,
        n=rules.n,
        base=rules["base"],
        target=target,
        kong_ratio=kong_ratio,
        zhongbai_pon_bonus=zb - (base_sd or 0),
        gangshanghua_ratio=_ratio(gsh, gsh_plain),
        robbed=robbed,
        gangshangpao_ratio=_ratio(pao, nopao),
        horse_factor=1.0 + horses / rules.n,
        ready_owed=owed,
        huazhu=rules["cap"] * rules["base"] if rules.spec.has_void else 0,  # 查花猪
    )


def _ratio(a: int | None, b: int | None) -> float:
    if not a:
        return 0.0 if b else 1.0
    return a / b if b else 2.0


@dataclass(slots=True)
class _KongSpot:
    """What the variant's kong money reads of a hand: seat 0 has just made the
    kong, on a tile seat 1 fed; the seats after ``1 + others`` have won."""

    rules: Rules
    spec: Any  # not `object`: a compiled (mypyc) dataclass reads its annotations by name
    n: int
    melds: list
    won: list


def kong_money(rules: Rules, kind: str, late: bool, others: int) -> int:
    """Money a kong of ``kind`` earns at once with ``others`` other players still
    in play (``late``: an added kong of a tile not just drawn), as the engine pays
    it (:func:`mjlog.state.kong_payments`: the variant's table and
    ``late_added_kong``).

    >>> from mjlog.rules import resolve
    >>> kong_money(resolve("xuezhan"), "concealed", False, 3), kong_money(resolve("yuxi"),
    ...     "concealed", False, 3)
    (6, 0)
    >>> late = resolve("yuxi", sets=["late_added_kong=no_pay"])
    >>> kong_money(late, "added", True, 3), kong_money(late, "added", False, 3)
    (0, 2)
    """
    from mjlog.state import kong_payments  # the engine's own: a heavy import, needed late

    n, t = rules.n, 4
    mk = {"exposed": MeldKind.EXPOSED_KONG, "added": MeldKind.ADDED_KONG}.get(
        kind, MeldKind.CONCEALED_KONG
    )
    melds = [[Meld(mk, t, None if mk is MeldKind.CONCEALED_KONG else 1)]] + [[]] * (n - 1)
    won = [False] * (1 + others) + [True] * (n - 1 - others)
    spot = _KongSpot(rules, rules.spec, n, melds, won)
    late = late and kind == "added"  # only an added kong can be late
    return sum(amount for _p, amount, _r in kong_payments(spot, 0, kind, t, late))
