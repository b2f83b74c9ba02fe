"""The log tables, declared once: the Arrow schemas of docs/log-schema.md.

Every table starts with the same id columns (``run_id``, ``variant``, ``match``,
``rotation``, ``hand``); (``run_id``, ``match``, ``rotation``, ``hand``) names a
hand, so runs can be globbed together and joined. Types are chosen on purpose:
tiles and seats are int8, kinds and reasons are dictionary-encoded strings,
money is int32. A column is non-nullable unless the contract gives it a null.

The schema version is written into the key-value metadata of every Parquet file
(``mjlog.schema_version``), with the table name (``mjlog.table``).

>>> list(TABLES)
['hands', 'events', 'wins', 'transfers']
>>> HANDS.names[:6]
['run_id', 'variant', 'match', 'rotation', 'hand', 'hand_seed']
>>> str(EVENTS.field("type").type)
'dictionary<values=string, indices=int32, ordered=0>'
>>> EVENTS.field("tile").type, EVENTS.field("tile").nullable
(DataType(int8), True)
>>> schema_version(HANDS.metadata)
1
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from mjlog.events import EventType, TransferReason
from mjlog.melds import MeldKind
from mjlog.phase import LIVE, SUIT_LETTERS, TAIL
from mjlog.scoring.base import Method
from mjlog.tiles import NUM_KINDS

SCHEMA_VERSION = 1
"""Bumped on any change a reader must know about (a type, a meaning, a removal)."""

VERSION_KEY = b"mjlog.schema_version"
TABLE_KEY = b"mjlog.table"

EVENT_TYPES: tuple[str, ...] = tuple(t.value for t in EventType)
"""``events.type`` values, in the contract's order (:class:`mjlog.events.EventType`)."""

TRANSFER_REASONS: tuple[str, ...] = tuple(r.value for r in TransferReason)
"""``transfers.reason`` values (also the ``kind`` of a ``transfer`` event;
:class:`mjlog.events.TransferReason`). ``compensation`` (seat compensation, rule key
``dealer_compensation``) came after schema version 1's first logs: an added value,
which no earlier log holds, so the version stands.

>>> TRANSFER_REASONS[-1]
'compensation'
"""

WIN_METHODS: tuple[str, ...] = tuple(m.value for m in Method)
"""``wins.method`` values (also the ``kind`` of a ``win`` event;
:class:`mjlog.scoring.base.Method`)."""

OUTCOMES: tuple[str, ...] = ("win", "draw")
"""``hands.outcome`` values."""

KONG_KINDS: tuple[str, ...] = tuple(
    k.value for k in (MeldKind.EXPOSED_KONG, MeldKind.CONCEALED_KONG, MeldKind.ADDED_KONG)
)
"""A ``kong`` event's ``kind`` (:class:`mjlog.melds.MeldKind` less the pon)."""

EVENT_KINDS: tuple[str, ...] = (
    (LIVE, TAIL)  # draw
    + KONG_KINDS  # kong
    + WIN_METHODS  # win
    + tuple(SUIT_LETTERS)  # void suit
    + TRANSFER_REASONS  # transfer
)
"""Every ``events.kind`` the contract names (a reason may repeat a win method's name).

>>> EVENT_KINDS[:8]
('live', 'tail', 'exposed', 'concealed', 'added', 'self_draw', 'discard', 'robbed_kong')
"""

TILE = pa.int8()
SEAT = pa.int8()
MONEY = pa.int32()
STRING_DICT = pa.dictionary(pa.int32(), pa.string())
TILES = pa.list_(pa.int8())


def _f(name: str, typ: pa.DataType, nullable: bool = False) -> pa.Field:
    return pa.field(name, typ, nullable=nullable)


ID_FIELDS: tuple[pa.Field, ...] = (
    _f("run_id", STRING_DICT),
    _f("variant", STRING_DICT),
    _f("match", pa.int32()),
    _f("rotation", pa.int8()),
    _f("hand", pa.int16()),
)
ID_COLUMNS: tuple[str, ...] = tuple(f.name for f in ID_FIELDS)
HAND_KEY: tuple[str, ...] = ("match", "rotation", "hand")
"""Within one run, these columns name a hand; files are written in this order."""


def _table(name: str, fields: list[pa.Field]) -> pa.Schema:
    meta = {VERSION_KEY: str(SCHEMA_VERSION).encode(), TABLE_KEY: name.encode()}
    return pa.schema([*ID_FIELDS, *fields], metadata=meta)


HANDS = _table(
    "hands",
    [
        _f("hand_seed", pa.uint64()),
        _f("players", pa.int8()),
        _f("dealer", SEAT),
        _f("dice", TILES),
        _f("dealer_rolls", TILES, nullable=True),
        _f("break", pa.int16()),
        _f("wall", TILES),
        _f("agents", pa.list_(pa.string())),
        _f("outcome", STRING_DICT),
        _f("winners", pa.list_(SEAT)),
        _f("deltas", pa.list_(MONEY)),
        _f("n_events", pa.int32()),
        _f("wall_left", pa.int16()),
        _f("next_dealer", SEAT),
    ],
)

EVENTS = _table(
    "events",
    [
        _f("seq", pa.int32()),
        _f("type", STRING_DICT),
        _f("seat", SEAT, nullable=True),
        _f("tile", TILE, nullable=True),
        _f("from_seat", SEAT, nullable=True),
        _f("kind", STRING_DICT, nullable=True),
        _f("tiles", TILES, nullable=True),
        _f("amount", MONEY, nullable=True),
    ],
)

WINS = _table(
    "wins",
    [
        _f("seq", pa.int32()),
        _f("seat", SEAT),
        _f("from_seat", SEAT, nullable=True),
        _f("tile", TILE),
        _f("method", STRING_DICT),
        _f("win_order", pa.int8()),
        _f("patterns", pa.list_(pa.string())),
        _f("fan", pa.int32()),
        _f("multiplier", pa.int32(), nullable=True),
        _f("points", MONEY),
        _f("total", MONEY),
        _f("capped", pa.bool_()),
    ],
)

TRANSFERS = _table(
    "transfers",
    [
        _f("seq", pa.int32()),
        _f("payer", SEAT),
        _f("payee", SEAT),
        _f("amount", MONEY),
        _f("reason", STRING_DICT),
    ],
)

TABLES: dict[str, pa.Schema] = {
    "hands": HANDS,
    "events": EVENTS,
    "wins": WINS,
    "transfers": TRANSFERS,
}
"""Table name -> schema, in the order a shard is written (hands is renamed last)."""

ALLOWED_VALUES: dict[tuple[str, str], frozenset[str]] = {
    ("hands", "outcome"): frozenset(OUTCOMES),
    ("events", "type"): frozenset(EVENT_TYPES),
    ("events", "kind"): frozenset(EVENT_KINDS),
    ("wins", "method"): frozenset(WIN_METHODS),
    ("transfers", "reason"): frozenset(TRANSFER_REASONS),
}
"""The closed vocabularies of the dictionary columns; the writer rejects others."""

_TILE = (0, NUM_KINDS - 1)
_SEAT = (0, 3)
_DIE = (1, 6)
VALUE_RANGES: dict[tuple[str, str], tuple[int, int]] = {
    ("hands", "players"): (2, 4),
    ("hands", "dealer"): _SEAT,
    ("hands", "dice"): _DIE,
    ("hands", "dealer_rolls"): _DIE,
    ("hands", "wall"): _TILE,
    ("hands", "winners"): _SEAT,
    ("hands", "next_dealer"): _SEAT,
    ("events", "seq"): (0, 2**31 - 1),
    ("events", "seat"): _SEAT,
    ("events", "tile"): _TILE,
    ("events", "from_seat"): _SEAT,
    ("events", "tiles"): _TILE,
    ("wins", "seat"): _SEAT,
    ("wins", "from_seat"): _SEAT,
    ("wins", "tile"): _TILE,
    ("wins", "win_order"): (1, 4),
    ("transfers", "payer"): _SEAT,
    ("transfers", "payee"): _SEAT,
    ("transfers", "amount"): (1, 2**31 - 1),
}
"""Inclusive bounds of integer columns (of the list items for list columns).

Tiles are kinds 0..33 (:mod:`mjlog.tiles`), seats 0..3, dice 1..6, a transfer
moves a positive amount. The writer rejects values outside them.
"""


def int_max(table: str, column: str) -> int:
    """The largest value an integer column (or a list column's items) can hold:
    what every numeric option that flows into it is checked against up front.

    >>> int_max("hands", "match"), int_max("hands", "hand"), int_max("hands", "hand_seed")
    (2147483647, 32767, 18446744073709551615)
    """
    t = TABLES[table].field(column).type
    if pa.types.is_list(t):
        t = t.value_type
    bits: int = t.bit_width
    if pa.types.is_signed_integer(t):
        return (1 << (bits - 1)) - 1
    return (1 << bits) - 1


def data_columns(table: str) -> tuple[str, ...]:
    """The columns of ``table`` after the id columns, in order.

    >>> data_columns("transfers")
    ('seq', 'payer', 'payee', 'amount', 'reason')
    """
    return tuple(TABLES[table].names[len(ID_FIELDS) :])


def schema_version(metadata: Mapping[bytes, bytes] | None) -> int | None:
    """The schema version stored in Parquet/Arrow key-value metadata, or None.

    >>> schema_version({b"mjlog.schema_version": b"7"}), schema_version(None)
    (7, None)
    """
    if not metadata or VERSION_KEY not in metadata:
        return None
    try:
        return int(metadata[VERSION_KEY])
    except ValueError:
        return None


def _plain(t: pa.DataType) -> pa.DataType:
    return t.value_type if pa.types.is_dictionary(t) else t


def check_schema(table: str, schema: pa.Schema) -> list[str]:
    """Problems with ``schema`` as the schema of ``table``; empty when it will do.

    Every declared column must be present with its declared type; a string
    column may be stored plain or dictionary-encoded (readers cast it back).
    Extra columns are welcome. Nullability is not compared.

    >>> check_schema("transfers", TRANSFERS)
    []
    >>> bad = TRANSFERS.remove(TRANSFERS.get_field_index("reason"))
    >>> bad = bad.set(bad.get_field_index("amount"), pa.field("amount", pa.float64()))
    >>> check_schema("transfers", bad)
    ['column amount has type double, expected int32', 'missing column reason']
    >>> check_schema("nope", TRANSFERS)
    ["unknown table 'nope'; valid tables: hands, events, wins, transfers"]
    """
    if table not in TABLES:
        return [f"unknown table {table!r}; valid tables: {', '.join(TABLES)}"]
    problems = []
    for want in TABLES[table]:
        i = schema.get_field_index(want.name)
        if i < 0:
            if want.name in schema.names:
                problems.append(f"column {want.name} appears more than once")
            else:
                problems.append(f"missing column {want.name}")
            continue
        got = schema.field(i).type
        if got != want.type and _plain(got) != _plain(want.type):
            problems.append(f"column {want.name} has type {got}, expected {want.type}")
    version = schema_version(schema.metadata)
    if version is not None and version > SCHEMA_VERSION:
        problems.append(
            f"schema version {version} is newer than this mjlog reads ({SCHEMA_VERSION})"
        )
    return problems
