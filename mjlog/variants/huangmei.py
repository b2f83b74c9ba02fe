"""huangmei — 黄梅麻将 (Huangmei, Hubei): docs/rules/huangmei.md.

- 136 tiles (key ``winds``; false drops 东南西北: 120). The four 发 are bonus
  tiles: a dealt 发 is dead (no win for its holder) until laid out at the start
  of its holder's first turn; any other 发 is laid out at once. Each 发 laid out
  is one ``bonus`` event and one tail draw; a 发 that cannot be replaced ends the
  hand as an exhaustive draw. A 发 is never discarded or claimed.
- First dealer: every seat rolls two dice from hand 0's stream in seat order,
  the highest sum deals, ties re-roll among the tied (``hands.dealer_rolls``).
  Next dealer: the single winner; several on one tile: the discarder (or kong
  player); no winner: the dealer's 下家.
- Dice: the break is on the side of seat dealer + t (t from the dice sum, by
  the seed's table), at that side's first position + 2 × the smaller die.
- The first win ends the hand. No pass locks, no kong money, no horses, and no
  payments at an exhaustive draw.
- Scoring: :mod:`mjlog.scoring.huangmei` (additive fan ``fan.<pattern>``, at
  least ``min_fan`` to win; ``payment`` linear or doubling, the doublings
  capped at ``doubling_cap``).
- 门前清 counts on a discard win too (key ``menqing_on_discard``; false: not on
  a discard win, and nothing else changes; robbing a kong is no discard. The
  seed's "如果2条3条听胡1条4条别人出了不能胡" then follows from ``min_fan``).
- A hand of honors only (字一色) counts as 混一色 (key ``ziyise_hunyise``;
  false: it earns neither 混一色 nor 清一色).

>>> from mjlog.rules import Rules
>>> HUANGMEI.break_position((3, 4), dealer=0, n=4, N=136)
74
>>> len(HUANGMEI.wall_tiles(Rules("huangmei", {"winds": False})))
120
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mjlog.rng import Stream
    from mjlog.rules import Rules

from mjlog.rulekeys import bool_key, choice_key, common_keys, int_key
from mjlog.scoring import huangmei as scorer
from mjlog.tiles import GREEN, tile_set
from mjlog.variants.base import Variant, side_start

FACAI_ALL = 8
"""四发财: the fan of all four 发 laid out, instead of 4 × ``fan.facai``."""


def _fans() -> dict[str, int]:
    """The fan of every pattern, the defaults of ``fan.<key>``: the scorer's pattern
    rows (:data:`mjlog.scoring.huangmei.TABLE`), and 四发财's after 发财's."""
    out: dict[str, int] = {}
    for p in scorer.TABLE:
        out[p.key] = p.value
        if p.key == "facai":
            out["facai_all"] = FACAI_ALL
    return out


FAN = _fans()

_T4 = {2: 1, 6: 1, 10: 1, 4: 3, 8: 3, 12: 3}  # dice sum → t with 4 players; others 2 (对家)
_T3 = {4: 2, 8: 2, 12: 2}  # with 3 players; others 1


class Huangmei(Variant):
    name = "huangmei"
    title = "黄梅麻将"
    scorer = scorer
    bonus_tile = GREEN
    rule_keys = tuple(
        common_keys(True)
        + [
            bool_key("winds", True, "东南西北 in play; false = 120 tiles"),
            int_key("min_fan", 2, "minimum fan to win", 0),
            choice_key(
                "payment",
                "linear",
                ("linear", "doubling"),
                "fan × base, or base × 2^min(fan − min_fan, doubling_cap)",
                money_only=True,
            ),
            # A run from before the key under doubling paid base × 2^(fan − min_fan) and
            # was only written when that fit the int32 money columns: fan − min_fan ≤ 30.
            # Read without the key at 30, every such run replays exactly as it was paid.
            int_key(
                "doubling_cap",
                10,
                "payment = doubling: the most doublings a win pays "
                "(封顶 at base × 2^doubling_cap a payer)",
                0,
                absent=30,
                money_only=True,
            ),
            bool_key(
                "menqing_on_discard",
                True,
                "门前清 counts on a discard win; false: not on a discard win (robbing a "
                "kong still counts)",
                absent=True,
            ),
            bool_key(
                "ziyise_hunyise", True, "an all-honor hand (字一色) counts as 混一色", absent=False
            ),  # before the key, an all-honor hand earned neither
        ]
        + [int_key(f"fan.{k}", v, f"fan of {k}") for k, v in FAN.items()]
    )

    def money_bound(self, rules: Rules) -> int | None:
        # a win's most fan
        fans: int = 4 * sum(v for k, v in rules.items() if k.startswith("fan."))
        base: int = rules["base"]
        if rules["payment"] == "linear":
            return 6 * fans * base
        doublings: int = min(rules["doubling_cap"], max(0, fans - rules["min_fan"]))
        # past 2^64 the bound only needs to be past every column: no huge integer
        return 6 * (1 << min(doublings, 64)) * base

    def wall_tiles(self, rules: Rules) -> tuple[int, ...]:
        return tile_set(136 if rules["winds"] else 120)

    def break_position(self, dice: tuple[int, int], dealer: int, n: int, N: int) -> int:
        total = dice[0] + dice[1]
        t = _T4.get(total, 2) if n == 4 else _T3.get(total, 1) if n == 3 else 1
        side = (dealer + t) % n
        return (side_start(side, n, N) + 2 * min(dice)) % N

    def first_dealer(self, rules: Rules, stream: Stream) -> tuple[int, tuple[int, ...] | None]:
        rolls: list[int] = []
        tied = list(range(rules.n))
        while True:
            sums = {}
            for s in tied:
                a, b = stream.below(6) + 1, stream.below(6) + 1
                rolls += [a, b]
                sums[s] = a + b
            top = max(sums.values())
            tied = [s for s in tied if sums[s] == top]
            if len(tied) == 1:
                return tied[0], tuple(rolls)

    def dealer_after(
        self,
        rules: Rules,
        dealer: int,
        winners: Sequence[int],
        first_batch: Sequence[int],
        payer_of_first: int | None,
    ) -> int:
        if not winners:
            return (dealer + 1) % rules.n
        return super().dealer_after(rules, dealer, winners, first_batch, payer_of_first)

    def check_tile_set(self, rules: Rules, honors: Sequence[int]) -> str | None:
        if GREEN in honors:
            return "in huangmei 发 are bonus tiles, laid out at once: give them with --bonus N"
        if not rules["winds"] and any(t < 31 for t in honors):
            return "huangmei with winds = false has no 东南西北"
        return None


HUANGMEI = Huangmei()
