"""Exposed and concealed melds (pon and the three kongs).

>>> m = Meld(MeldKind.PON, 7, from_seat=2)
>>> m.size, m.exposed, m.is_kong
(3, True, False)
>>> Meld(MeldKind.CONCEALED_KONG, 31).exposed
False
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class MeldKind(StrEnum):
    PON = "pon"
    EXPOSED_KONG = "exposed"  # 明杠 from a discard
    ADDED_KONG = "added"  # 补杠 / 转弯杠 / 巴杠 on an own pon
    CONCEALED_KONG = "concealed"  # 暗杠


@dataclass(frozen=True, slots=True)
class Meld:
    """A pon or kong of one tile kind. ``from_seat`` is who fed it (None for 暗杠)."""

    kind: MeldKind
    tile: int
    from_seat: int | None = None

    @property
    def is_kong(self) -> bool:
        return self.kind is not MeldKind.PON

    @property
    def size(self) -> int:
        return 3 if self.kind is MeldKind.PON else 4

    @property
    def exposed(self) -> bool:
        """Pon, exposed or added kong: what breaks 门清."""
        return self.kind is not MeldKind.CONCEALED_KONG

    def __reduce__(self) -> tuple[type[Meld], tuple[MeldKind, int, int | None]]:
        """Copied and pickled through its constructor: compiled, a frozen dataclass
        refuses the field-by-field ``__setstate__`` a copy would otherwise call.

        >>> import copy
        >>> m = Meld(MeldKind.EXPOSED_KONG, 3, from_seat=1)
        >>> copy.deepcopy(m) == m and copy.copy(m) == m
        True
        """
        return (Meld, (self.kind, self.tile, self.from_seat))
