"""What a scorer sees of a win, and what it returns.

A :class:`WinContext` describes one finished hand at the moment of winning: the
concealed tiles *including* the winning tile, the melds in the order they were
made, how the hand was won and the situational flags. A :class:`Score` is the
verdict, with the figures docs/log-schema.md defines for the ``wins`` table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from mjlog.melds import Meld

if TYPE_CHECKING:
    from mjlog.rules import Rules
    from mjlog.scoring.breakdown import Breakdown


class Reason(StrEnum):
    """Why a hand that is complete in shape may still not win."""

    NOT_A_WIN = "not_a_win"  # no winning shape
    PLAIN_ON_DISCARD = "plain_hand_on_discard"  # yuxi: 平胡 must self-draw
    BELOW_MIN_FAN = "below_min_fan"  # huangmei: fewer than min_fan
    HOLDS_VOID = "holds_void_suit"  # xuezhan: a void-suit tile in hand
    NO_KONG_FOR_AFTER_KONG = "after_kong_without_kong"


class Method(StrEnum):
    SELF_DRAW = "self_draw"
    DISCARD = "discard"
    ROBBED_KONG = "robbed_kong"
    SHILAOTOU = "shilaotou"


class WinContext(NamedTuple):
    """A finished hand to value.

    concealed: 34 counts of the concealed tiles, the winning tile included
      (for a robbed kong, the robbed tile).
    melds: exposed and concealed melds, in the order they were made.
    after_kong: self-draw: the winning tile is the replacement of the last kong in
      ``melds`` (杠上花; 点杠花 when that kong is ``EXPOSED_KONG``);
      discard: the discarder declared a kong just before this discard (杠上炮).
    after_bonus: huangmei: won on a 发's replacement (财上开花).
    last_tile: self-draw of the wall's last tile, or a win on the last discard.
    first_turn: the dealer's dealt 14 (天胡) or a non-dealer's first draw before
      any pon or kong by anyone (地胡); ``dealer`` says which.
    bonus: huangmei: 发 laid out by the winner.
    void: xuezhan: the winner's void suit (0 m, 1 p, 2 s), None when not chosen.
    single_wait: huangmei: the hand before the winning tile waited on exactly one
      kind (computed by the caller or by the scorer when None).
    chain_kongs: self-draw with ``after_kong``: how many kongs the replacement chain
      holds (the last ones in ``melds``); see :meth:`deciding_kong`.
    forced_zone: the wall holds the variant's ``forced_tiles`` or fewer at the
      decision (yuxi 尾牌强制, the last four tiles), where ``last4_plain_on_discard``
      lets a plain hand win on a discard or a robbed kong.
    """

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    win_tile: int
    method: Method
    after_kong: bool = False
    after_bonus: bool = False
    last_tile: bool = False
    first_turn: bool = False
    dealer: bool = False
    bonus: int = 0
    void: int | None = None
    single_wait: bool | None = None
    chain_kongs: int = 1
    forced_zone: bool = False

    def deciding_kong(self, link: str) -> Meld | None:
        """The kong whose kind makes a win on its replacement 点杠花: the chain's
        last kong (``dian_gang_hua_link = last``) or its first (``first``); None
        when ``melds`` holds no kong.

        >>> from mjlog.melds import MeldKind
        >>> ms = (Meld(MeldKind.EXPOSED_KONG, 3, 1), Meld(MeldKind.CONCEALED_KONG, 5))
        >>> ctx = WinContext((0,) * 34, ms, 0, Method.SELF_DRAW, after_kong=True, chain_kongs=2)
        >>> ctx.deciding_kong("last").kind, ctx.deciding_kong("first").kind
        (<MeldKind.CONCEALED_KONG: 'concealed'>, <MeldKind.EXPOSED_KONG: 'exposed'>)
        """
        kongs = [m for m in self.melds if m.is_kong]
        if not kongs:
            return None
        if link == "first":
            return kongs[-min(max(self.chain_kongs, 1), len(kongs))]
        return kongs[-1]


@dataclass(frozen=True, slots=True)
class Score:
    """A win's value. ``points`` is money per payer after the cap and ``zimo_bonus``,
    before horses; ``legal`` False carries a ``reason`` and zero points."""

    legal: bool
    patterns: tuple[str, ...] = ()
    fan: int = 0
    multiplier: int | None = None
    points: int = 0
    capped: bool = False
    reason: Reason | None = None
    feeder_pays: bool = False  # 点杠花 paid by the kong's feeder alone (as a discard)
    #: figures a scorer adds for its callers (``units``, ``why``, ...), by name
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __reduce__(self) -> tuple[type[Score], tuple[Any, ...]]:
        """Copied and pickled through its constructor (its ``extra`` copied too, in a
        deep copy): compiled, a frozen dataclass refuses the field-by-field
        ``__setstate__`` a copy would otherwise call.

        >>> import copy
        >>> s = Score(True, ("pinghu",), points=4, extra={"units": 2})
        >>> t = copy.deepcopy(s)
        >>> t == s and t.extra == s.extra and t.extra is not s.extra
        True
        """
        return (
            Score,
            (
                self.legal,
                self.patterns,
                self.fan,
                self.multiplier,
                self.points,
                self.capped,
                self.reason,
                self.feeder_pays,
                self.extra,
            ),
        )


class Scorer(Protocol):
    """What a variant's scorer module provides (:attr:`mjlog.variants.Variant.scorer`):
    :mod:`mjlog.scoring` calls it through these, and only these."""

    #: pattern key -> the Chinese name the variant's rulebook writes, in table order
    NAMES: dict[str, str]
    #: value keys that name no pattern row of their own (huangmei ``fan.facai_all``,
    #: 四发财: what four 发财 pay), key -> Chinese name
    VALUE_NAMES: dict[str, str]

    def score(self, ctx: WinContext, rules: Rules) -> Score: ...

    def explain(
        self, patterns: Sequence[str], method: Method | str, rules: Rules, feeder_pays: bool = False
    ) -> Breakdown: ...

    def is_ready(
        self, concealed: Sequence[int], melds: Sequence[Meld], rules: Rules | None = None, **kw: Any
    ) -> bool: ...

    def ready_value(
        self, concealed: Sequence[int], melds: Sequence[Meld], rules: Rules, **kw: Any
    ) -> int: ...
