"""The variants: one module each, and the registry.

Each module opens with the rules it implements (docs/rules/<variant>.md) and
holds what makes its variant: rule keys and defaults, tile set, dice and break, dealers,
void choice and locks, claims and forced wins, kong money, horses, end-of-wall
settlement, bonus tiles, its scorer and pattern names. Everything else asks the
:class:`~mjlog.variants.base.Variant` object; adding a variant means adding a
module and its line in :data:`VARIANTS`.

>>> get_variant("yuxi").forced_tiles, get_variant("xuezhan").has_void
(4, True)
>>> get_variant("mahjong")
Traceback (most recent call last):
...
mjlog.rulekeys.RuleError: unknown variant 'mahjong'; valid variants: yuxi, xuezhan, huangmei
>>> break_position("yuxi", (3, 4), dealer=0, n=4, N=136)
82
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mjlog.errors import quote
from mjlog.rulekeys import RuleError
from mjlog.variants.base import GREEN, Variant, horse_seat_number, side_start
from mjlog.variants.huangmei import HUANGMEI
from mjlog.variants.xuezhan import XUEZHAN
from mjlog.variants.yuxi import YUXI

if TYPE_CHECKING:
    from mjlog.rules import Rules

__all__ = [
    "GREEN",
    "VARIANTS",
    "Variant",
    "get_variant",
    "wall_tiles",
    "break_position",
    "next_dealer",
    "side_start",
    "horse_seat_number",
]

#: Every variant by name, in the rulebook's order.
VARIANTS: dict[str, Variant] = {v.name: v for v in (YUXI, XUEZHAN, HUANGMEI)}


def get_variant(name: str) -> Variant:
    """The variant called ``name``; an unknown name raises :class:`RuleError`
    listing the valid ones."""
    v = VARIANTS.get(name)
    if v is None:
        raise RuleError(f"unknown variant {quote(name)}; valid variants: {', '.join(VARIANTS)}")
    return v


def wall_tiles(rules: Rules) -> tuple[int, ...]:
    """The tile set a hand of ``rules`` is played with."""
    return get_variant(rules.variant).wall_tiles(rules)


def break_position(variant: str, dice: tuple[int, int], dealer: int, n: int, N: int) -> int:
    """The break b on the ring, from the dealer's dice."""
    return get_variant(variant).break_position(dice, dealer, n, N)


def next_dealer(
    rules: Rules,
    dealer: int,
    winners: Sequence[int],
    first_batch: Sequence[int],
    payer_of_first: int | None,
) -> int:
    """The next hand's dealer (see :meth:`Variant.next_dealer`)."""
    return get_variant(rules.variant).next_dealer(
        rules, dealer, winners, first_batch, payer_of_first
    )
