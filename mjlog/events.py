"""The event vocabulary of a hand, as logged (docs/log-schema.md, ``events``).

An :class:`Event` is an immutable record; ``repr`` pastes back. It is a
``NamedTuple`` rather than a dataclass on purpose: the engine creates millions of
them and tuples are several times cheaper to build, compare and write column-wise.

>>> Event(DISCARD, seat=1, tile=4)
Event(type='discard', seat=1, tile=4, from_seat=None, kind=None, tiles=None, amount=None)
>>> Event(DISCARD, seat=1, tile=4) == ("discard", 1, 4, None, None, None, None)
True
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class EventType(StrEnum):
    DEAL = "deal"
    VOID = "void"  # 定缺 (xuezhan)
    DRAW = "draw"  # kind live / tail
    BONUS = "bonus"  # 发 laid out (huangmei)
    DISCARD = "discard"
    PON = "pon"
    KONG = "kong"  # kind exposed / concealed / added
    WIN = "win"  # kind self_draw / discard / robbed_kong / shilaotou
    HORSE = "horse"  # 买马 (yuxi)
    TRANSFER = "transfer"  # seat = payee, from_seat = payer, kind = reason
    END = "end"


# Plain-str aliases of the enum values: events hold str, so their repr pastes back.
DEAL, VOID, DRAW, BONUS, DISCARD, PON, KONG, WIN, HORSE, TRANSFER, END = (
    e.value for e in EventType
)


class TransferReason(StrEnum):
    WIN = "win"
    KONG_EXPOSED = "kong_exposed"
    KONG_ADDED = "kong_added"
    KONG_CONCEALED = "kong_concealed"
    HORSE = "horse"
    CALL_TRANSFER = "call_transfer"  # 呼叫转移
    TAX_REFUND = "tax_refund"  # 退税
    FLOWER_PIG = "flower_pig"  # 查花猪
    NOT_READY = "not_ready"  # 查大叫
    COMPENSATION = "compensation"  # seat compensation (rule key dealer_compensation)


REASON_NAMES: dict[str, str] = {
    "win": "胡牌",
    "kong_exposed": "明杠",
    "kong_added": "补杠",
    "kong_concealed": "暗杠",
    "horse": "买马",
    "call_transfer": "呼叫转移",
    "tax_refund": "退税",
    "flower_pig": "查花猪",
    "not_ready": "查大叫",
    "compensation": "庄家补偿",
}
"""The Chinese name of every transfer reason (for reports and the viewer)."""


class Event(NamedTuple):
    """One logged event. ``seq`` is its position in the hand's list, not a field."""

    type: str
    seat: int | None = None
    tile: int | None = None
    from_seat: int | None = None
    kind: str | None = None
    tiles: tuple[int, ...] | None = None
    amount: int | None = None


def tile_of(ev: Event) -> int:
    """The tile of an event that names one (a discard, a claim, a kong, a win, a
    draw the seat sees), for code that reads it as an ``int``.

    >>> tile_of(Event(DISCARD, 0, 5))
    5
    """
    t = ev.tile
    assert t is not None, ev
    return t


def seat_of(ev: Event) -> int:
    """The seat of an event that has one (every event but a horse and the end).

    >>> seat_of(Event(DISCARD, 2, 5))
    2
    """
    s = ev.seat
    assert s is not None, ev
    return s


def transfer(payer: int, payee: int, amount: int, reason: str) -> Event:
    """A payment as an event.

    >>> transfer(0, 2, 4, TransferReason.WIN)
    Event(type='transfer', seat=2, tile=None, from_seat=0, kind='win', tiles=None, amount=4)
    """
    return Event(TRANSFER, payee, None, payer, str(reason), None, amount)


class IllegalEvent(Exception):
    """An event the rules do not allow at this point (replay/audit use)."""

    def __init__(self, check: str, message: str):
        super().__init__(message)
        self.check = check
