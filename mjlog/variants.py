"""Where the three variants' *flow* differs (RULES.md §2–§4): tile set, dice and
break, first and next dealer, kong money. Scoring lives in :mod:`mjlog.scoring`.

>>> break_position("yuxi", (3, 4), dealer=0, n=4, N=136)
82
>>> break_position("huangmei", (3, 4), dealer=0, n=4, N=136)
74
>>> horse_seat_number(4), horse_seat_number(27), horse_seat_number(33)
(1, 1, 1)
"""

from __future__ import annotations

from mjlog.rules import Rules
from mjlog.tiles import tile_set

GREEN = 32  # 发: huangmei's bonus tile


def wall_tiles(rules: Rules) -> tuple[int, ...]:
    """The tile set a hand is played with."""
    v = rules.variant
    if v == "yuxi":
        return tile_set(136 if rules["honors"] else 108)
    if v == "xuezhan":
        return tile_set(108)
    return tile_set(136 if rules["winds"] else 120)


def side_start(seat: int, n: int, N: int) -> int:
    """First ring position of seat's side: twice its first stack ⌊s·N/(2n)⌋."""
    return 2 * ((seat * N) // (2 * n))


_HUANGMEI_T4 = {2: 1, 6: 1, 10: 1, 4: 3, 8: 3, 12: 3}  # others → 2 (对家)
_HUANGMEI_T3 = {4: 2, 8: 2, 12: 2}                     # others → 1


def break_position(variant: str, dice: tuple[int, int], dealer: int, n: int, N: int) -> int:
    """The break b on the ring, from the dealer's dice (RULES.md §2 and §4)."""
    total = dice[0] + dice[1]
    if variant == "huangmei":
        if n == 4:
            t = _HUANGMEI_T4.get(total, 2)
        elif n == 3:
            t = _HUANGMEI_T3.get(total, 1)
        else:
            t = 1
        side = (dealer + t) % n
        return (side_start(side, n, N) + 2 * min(dice)) % N
    side = (dealer + total - 1) % n
    return (side_start(side, n, N) + 2 * total) % N


def horse_seat_number(tile: int) -> int:
    """买马: the seat number (1 = dealer, counting on) a horse tile points at."""
    if tile < 27:
        return (tile % 9) % 4 + 1  # rank r: 1/5/9 → 1, 2/6 → 2, 3/7 → 3, 4/8 → 4
    if tile < 31:
        return tile - 26           # 东南西北 → 1..4
    return {33: 1, 32: 2, 31: 3}[tile]  # 中 → 1, 发 → 2, 白 → 3


def next_dealer(rules: Rules, dealer: int, winners: list[int], first_batch: list[int],
                payer_of_first: int | None) -> int:
    """The next hand's dealer.

    ``first_batch``: the winners on the hand's first winning tile; ``payer_of_first``:
    its discarder or kong player (None for a self-draw or 十老头).
    """
    n = rules.n
    v = rules.variant
    if not winners:
        if v == "huangmei":
            return (dealer + 1) % n
        if v == "yuxi" and rules["dealer_on_draw"] == "next":
            return (dealer + 1) % n
        return dealer
    if len(first_batch) == 1:
        return first_batch[0]
    # several winners on one discard or robbed kong
    if v == "yuxi":
        return (payer_of_first + 1) % n
    return payer_of_first
