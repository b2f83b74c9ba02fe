"""A variant's pattern table: one row per pattern, which its scorer loops over.

A row holds everything the house says about a pattern: its key, its Chinese name in
the variant's rulebook, the default of its value key, its 番 where that is not its
value, what a hand of it holds (one line: docs/rules/ renders it, ``make docs``),
which patterns every hand of it also is, and its predicate (how often it counts on a
hand: a bool, once or not; huangmei counts some per meld). Adding a pattern is a row
and, when no shared predicate of :mod:`mjlog.scoring.patterns` fits, its predicate.

A row's ``kind`` says how the scorer finds it: ``shape`` (one decomposition of the
hand), ``situation`` (how the hand was won: after a kong, robbing one; yuxi asks it
once per win), ``plain`` (holds when no other does), ``method`` (the win's method
names it, whatever the hand), ``root`` (xuezhan's 根, counted per four) or ``extra``
(xuezhan's optional patterns, key ``extras``). A row without a predicate is placed
by its kind alone: ``plain`` (yuxi's and huangmei's 平胡) and ``method`` (yuxi's 十老头).

>>> from mjlog.scoring.yuxi import TABLE
>>> row = by_key(TABLE)["longqidui"]
>>> row.name, row.value, row.fan, row.contains
('龙七对', (6, 7), 2, ('qidui',))
>>> [p.key for p in TABLE if p.kind == "situation"]
['gangshanghua', 'gangshangpao', 'qiangganghu']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, NamedTuple, TypeVar

from mjlog.compiled import mypyc_attr
from mjlog.hand import Decomposition
from mjlog.scoring.base import WinContext

__all__ = ["Finished", "H", "Kind", "Pattern", "by_key"]

Kind = Literal["plain", "shape", "situation", "method", "root", "extra"]


class Finished(NamedTuple):
    """What a predicate reads: the win, one decomposition of its concealed tiles
    (:func:`mjlog.hand.decompositions`) and the 34 counts of the whole hand (melds
    included). A tuple: one is made per decomposition of every win valued."""

    ctx: WinContext
    d: Decomposition
    total: Sequence[int]


H = TypeVar("H")


# Not a native class in the compiled build: mypyc cannot make a generic dataclass one
# (its class object refuses the generic alias's attributes); a row is read, not hot.
@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class Pattern(Generic[H]):
    """One row of a variant's pattern table; ``H`` is what its predicate reads (yuxi:
    :class:`Finished`)."""

    key: str
    name: str  # as the variant's rulebook writes it (小七对, 杠上花)
    value: Any  # the default of its value key: yuxi (self-draw, discard) points, huangmei fan
    holds: str  # what a hand of it holds, in a line
    when: Callable[[H], int] | None = None  # how often it counts (a bool: once or not)
    kind: Kind = "shape"
    fan: int | None = None  # the 番 the log records for it, where that is not its value
    contains: tuple[str, ...] = ()  # patterns every hand of it also is (direct)


def by_key(rows: Sequence[Pattern[H]]) -> dict[str, Pattern[H]]:
    """The rows by key."""
    return {p.key: p for p in rows}
