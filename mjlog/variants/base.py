"""What every variant has, and the defaults its module overrides.

A :class:`Variant` is data plus a few hooks (python-chess ``variant.py``): the
rule keys with their defaults, the tile set, the break, the dealers, and the
points where the flow differs (void suit, blood battle, bonus 发, locks, kong
money, horses, end-of-wall settlement) and the scorer. The state, the engine,
the CLI and the viewer ask the variant object; none of them compares a name.

>>> side_start(1, 4, 136)
34
>>> horse_seat_number(4), horse_seat_number(27), horse_seat_number(33)
(1, 1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mjlog.events import Event, TransferReason, transfer
from mjlog.rulekeys import RuleKey
from mjlog.tiles import GREEN, tile_set

if TYPE_CHECKING:
    from mjlog.rng import Stream
    from mjlog.rules import Rules
    from mjlog.scoring.base import Score, Scorer

__all__ = ["GREEN", "Variant", "side_start", "horse_seat_number"]


def side_start(seat: int, n: int, N: int) -> int:
    """First ring position of seat's side: twice its first stack ⌊s·N/(2n)⌋."""
    return 2 * ((seat * N) // (2 * n))


def horse_seat_number(tile: int) -> int:
    """买马: the seat number (1 = dealer, counting on) a horse tile points at."""
    if tile < 27:
        return (tile % 9) % 4 + 1  # rank r: 1/5/9 → 1, 2/6 → 2, 3/7 → 3, 4/8 → 4
    if tile < 31:
        return tile - 26  # 东南西北 → 1..4
    return {33: 1, 32: 2, 31: 3}[tile]  # 中 → 1, 发 → 2, 白 → 3


class Variant:
    """One ruleset: its rule keys and the hooks where its flow differs.

    Class attributes are the variant's fixed facts; methods take the resolved
    :class:`~mjlog.rules.Rules` where a rule key decides.
    """

    #: the registry name (``--variant``) and the game's name
    name: str = ""
    title: str = ""
    #: every rule key of the variant (docs/rules/<variant>.md), with its default
    rule_keys: tuple[RuleKey, ...] = ()
    #: the scorer module (``score``, ``ready_value``, ``is_ready``, ``NAMES``)
    scorer: Scorer
    #: 定缺: every seat chooses a void suit after the deal
    has_void: bool = False
    #: the bonus tile laid out and replaced from the tail (huangmei 发), or None
    bonus_tile: int | None = None
    #: 血战到底: winners leave and play goes on until one seat is left
    blood_battle: bool = False
    #: 尾牌强制: with this many tiles or fewer left every legal win is taken
    #: (-1: never)
    forced_tiles: int = -1
    #: passing a legal win may lock the seat (弃胡, 过手胡): see :meth:`lock_after_pass`
    pass_locks: bool = False
    #: 过手碰: a passed pon locks that kind until the seat's next draw, and a pon
    #: or kong of the seat's own ends its pass locks
    pon_lock: bool = False

    def __repr__(self) -> str:
        return f"<variant {self.name}>"

    def pattern_name(self, key: str) -> str:
        """The Chinese name of a pattern key as this variant's rulebook writes it
        (its scorer's ``NAMES``; a value key's, ``VALUE_NAMES``), or the key itself
        when unknown.

        >>> from mjlog.variants import VARIANTS
        >>> [v.pattern_name("gangshanghua") for v in VARIANTS.values()]
        ['杠上花', '杠上开花', '杠上开花']
        >>> [v.pattern_name("qidui") for v in VARIANTS.values()]
        ['小七对', '七对', '七一对']
        """
        names: dict[str, str] = self.scorer.NAMES
        return names.get(key) or self.scorer.VALUE_NAMES.get(key, key)

    def patterns(self, rules: Rules | None = None) -> tuple[str, ...]:
        """The pattern keys a win can carry under ``rules`` (None: under some rules),
        in its scorer's table order: what a comparison of pattern rates, or
        ``--until``, may ask of it.

        >>> from mjlog.variants import VARIANTS
        >>> VARIANTS["yuxi"].patterns()[:3]
        ('pinghu', 'pengpenghu', 'qingyise')
        >>> [("gen" in v.patterns(), "shilaotou" in v.patterns()) for v in VARIANTS.values()]
        [(False, True), (True, False), (False, False)]
        """
        return tuple(self.scorer.NAMES)

    def _without(self, rules: Rules | None, left_out: set[str]) -> tuple[str, ...]:
        return tuple(k for k in Variant.patterns(self, rules) if k not in left_out)

    @property
    def points_scale(self) -> str:
        """What its points count: the money of its own scoring system. Points of two
        variants are one scale only where this is equal (a yuxi point, the highest
        pattern doubled per other one, is not a xuezhan point, a product of
        multipliers), so a comparison sets them side by side without a difference."""
        return f"{self.name} points"

    # ------------------------------------------------------------ tiles and dealing
    def wall_tiles(self, rules: Rules) -> tuple[int, ...]:
        """The tile set a hand is played with."""
        return tile_set(136)

    def break_position(self, dice: tuple[int, int], dealer: int, n: int, N: int) -> int:
        """The break b on the ring, from the dealer's dice (docs/rules/yuxi.md, 'Flow')."""
        total = dice[0] + dice[1]
        side = (dealer + total - 1) % n
        return (side_start(side, n, N) + 2 * total) % N

    def first_dealer(self, rules: Rules, stream: Stream) -> tuple[int, tuple[int, ...] | None]:
        """A match's first dealer, drawn from hand 0's stream after its wall, and
        the dice rolled for it (None when none are)."""
        return stream.below(rules.n), None

    def next_dealer(
        self,
        rules: Rules,
        dealer: int,
        winners: Sequence[int],
        first_batch: Sequence[int],
        payer_of_first: int | None,
    ) -> int:
        """The next hand's dealer: under ``dealer_rotation = fixed`` the next seat,
        whatever happened (a study design: two settings of a rule keep their dealers,
        hence their breaks, hand by hand); else :meth:`dealer_after`. The engine and
        the auditor both ask this."""
        if rules["dealer_rotation"] == "fixed":
            return (dealer + 1) % rules.n
        return self.dealer_after(rules, dealer, winners, first_batch, payer_of_first)

    def dealer_after(
        self,
        rules: Rules,
        dealer: int,
        winners: Sequence[int],
        first_batch: Sequence[int],
        payer_of_first: int | None,
    ) -> int:
        """The next dealer as the variant's rules say, from the hand's result.
        ``first_batch``: the winners on the hand's first winning tile;
        ``payer_of_first``: its discarder or kong player (None for a self-draw or
        十老头)."""
        if not winners:
            return dealer
        if len(first_batch) == 1:
            return first_batch[0]
        assert payer_of_first is not None, "several winners on one tile: it has a payer"
        return payer_of_first

    def check_tile_set(self, rules: Rules, honors: Sequence[int]) -> str | None:
        """Why honor tiles ``honors`` cannot be in a hand (``mjlog score``), or None."""
        return None

    # ------------------------------------------------------------ claims and locks
    def counts_honor_discards(self, rules: Rules) -> bool:
        """十老头: consecutive honor discards are counted toward a win."""
        return False

    def lock_after_pass(self, rules: Rules, lock: Any, sc: Score) -> Any:
        """The seat's pass lock after it passed the legal win ``sc`` (None: none)."""
        return lock

    def lock_refuses(self, lock: Any, sc: Score, self_draw: bool, forced: bool) -> bool:
        """The pass lock ``lock`` (not None) refuses the win ``sc``; ``forced``:
        in the last tiles, where every legal win is taken."""
        return False

    def pass_lock_text(self, seat: int, lock: Any) -> str:
        return f"S{seat} passed a win since its last draw"

    def void_first(self, rules: Rules) -> bool:
        """打缺: while a seat holds a tile of its void suit it may discard only those."""
        return False

    def call_transfer(self, rules: Rules) -> bool:
        """呼叫转移: on 杠上炮 the kong player's kong money goes to the winner."""
        return False

    # ------------------------------------------------------------ money
    def kong_money(
        self, state: Any, s: int, kind: str, t: int, late: bool
    ) -> list[tuple[int, int, TransferReason]]:
        """(payer, amount, reason) of the kong money seat ``s`` earns for a kong of
        ``kind`` on ``t`` that stands (``late``: a late added kong; the state pays
        nothing for one under ``late_added_kong = no_pay`` without asking)."""
        return []

    def money_bound(self, rules: Rules) -> int | None:
        """An upper bound of the money one seat wins or loses in a hand (the log's
        int32 ``deltas``, ``amount`` and ``total`` columns), or None where the rules
        set none. Generous: every payer pays every win at the cap, every horse
        hits, every kong is paid."""
        return None

    def horses(self, rules: Rules) -> int:
        """买马: horses turned after the win(s)."""
        return 0

    def settle_exhaustion(self, state: Any) -> list[Event]:
        """The transfers of an exhaustive draw (before the end event)."""
        return []

    def compensation(self, state: Any) -> list[Event]:
        """Seat compensation (rule key ``dealer_compensation``, every variant): after
        every other payment of the hand, the dealer pays ``c`` units × ``base`` (under
        ``dealer_compensation_unit = money``: ``c`` of money) to each other seat, in
        turn order from its right (``c`` < 0: each of them pays the dealer as much);
        reason ``compensation``. "Each other player" is every other seat, those a
        blood battle has already seen win included: the payment corrects the seat,
        not the play, so it is the same whatever happened.

        >>> from mjlog.rules import Rules
        >>> from types import SimpleNamespace
        >>> hand = SimpleNamespace(rules=Rules("xuezhan", {"dealer_compensation": -2,
        ...                                                 "base": 3}), dealer=2, n=4)
        >>> [(e.from_seat, e.seat, e.amount) for e in hand.rules.spec.compensation(hand)]
        [(3, 2, 6), (0, 2, 6), (1, 2, 6)]
        >>> hand.rules = hand.rules.replace(dealer_compensation_unit="money")
        >>> [(e.from_seat, e.seat, e.amount) for e in hand.rules.spec.compensation(hand)]
        [(3, 2, 2), (0, 2, 2), (1, 2, 2)]
        """
        rules = state.rules
        c = rules["dealer_compensation"]
        if not c:
            return []
        d, n = state.dealer, state.n
        amount = self.compensation_money(rules)
        others = [(d + i) % n for i in range(1, n)]
        if c > 0:
            return [transfer(d, o, amount, TransferReason.COMPENSATION) for o in others]
        return [transfer(o, d, amount, TransferReason.COMPENSATION) for o in others]

    def compensation_money(self, rules: Rules) -> int:
        """The money the dealer pays each other seat per hand (or is paid, the key
        being negative): ``|dealer_compensation|`` in its unit."""
        per: int = rules["base"] if rules["dealer_compensation_unit"] == "base" else 1
        c: int = rules["dealer_compensation"]
        return abs(c) * per

    def compensation_bound(self, rules: Rules) -> int:
        """The most seat compensation moves for one seat in a hand (the dealer's)."""
        return (rules.n - 1) * self.compensation_money(rules)
