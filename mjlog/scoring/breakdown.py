"""A win explained: its patterns with their names and contributions, the formula
with numbers, and who pays how much.

Each scorer's ``explain(patterns, method, rules, feeder_pays=False)`` builds a
:class:`Breakdown` from what a ``wins`` row records (the patterns, the method
and whether the kong's feeder pays alone), with the very functions its ``score``
values a hand with: the breakdown's ``points`` *is* the score's, never a second
reckoning. ``mjlog score``, the replay viewer and the tests read it.

- yuxi: the highest valued pattern's points in the win's column, × 2 per other
  pattern: ``3 × 2 × 2 = 12``.
- xuezhan: the product of the multipliers: ``×4 ×2 (根) = ×8 → 8 points``.
- huangmei: the sum of the fan: ``平胡 1 + 门前清 1 + 卡档 1 = 3 fan``.

A step that changes the figure (the cap, ``zimo_bonus``, ``base``, huangmei's
``doubling`` payment) is appended after ``→``.

>>> from mjlog.rules import resolve
>>> from mjlog.scoring import Method, explain
>>> b = explain(("pengpenghu", "qingyise", "gangshanghua"), Method.SELF_DRAW, resolve("yuxi"))
>>> b.formula, b.points, b.payer_text
('3 × 2 × 2 = 12', 12, 'each other player pays')
>>> [(t.name, t.value, str(t.role)) for t in b.terms]
[('碰碰胡', 3, 'base'), ('清一色', 2, 'double'), ('杠上花', 2, 'double')]
>>> payer_seats(b, winner=1, from_seat=None, n=4)
[0, 2, 3]
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from itertools import groupby
from typing import Any

from mjlog.scoring.base import Method

__all__ = [
    "Role",
    "Payer",
    "Term",
    "Breakdown",
    "PAYERS",
    "ONE_PAYER",
    "who_pays",
    "payer_seats",
    "grouped",
    "money",
    "money_steps",
]


class Role(StrEnum):
    """What a pattern does to a win's value."""

    BASE = "base"  # yuxi: its points in the win's column are the base
    DOUBLE = "double"  # yuxi: doubles the score
    MAIN = "main"  # xuezhan: the main pattern (or the candidate taken), a factor
    EXTRA = "extra"  # xuezhan: an optional pattern that multiplies in
    GEN = "gen"  # xuezhan: 根, a factor per count
    BONUS = "bonus"  # xuezhan: 抢杠胡, 杠上开花, 杠上炮, a factor
    FAN = "fan"  # huangmei: adds its fan


class Payer(StrEnum):
    """Who pays a win's ``points``."""

    EACH_OTHER = "each_other"  # every other player (still playing, in a blood battle)
    DISCARDER = "discarder"
    KONG_PLAYER = "kong_player"  # a robbed kong
    KONG_FEEDER = "kong_feeder"  # 点杠花: the exposed kong's feeder alone


#: Who pays, in words (in a blood battle "each other active player").
PAYERS: dict[Payer, str] = {
    Payer.EACH_OTHER: "each other player",
    Payer.DISCARDER: "the discarder",
    Payer.KONG_PLAYER: "the kong player",
    Payer.KONG_FEEDER: "the kong's feeder alone (点杠花)",
}
#: Where one seat pays: the discarder, kong player or feeder.
ONE_PAYER = frozenset({Payer.DISCARDER, Payer.KONG_PLAYER, Payer.KONG_FEEDER})


@dataclass(frozen=True, slots=True)
class Term:
    """One pattern of a win and what it contributes.

    ``role``: yuxi ``base`` (``value`` is its points in the win's column) or
    ``double`` (``value`` 2); xuezhan ``main``, ``extra``, ``gen`` or ``bonus``
    (``value`` the multiplier per count); huangmei ``fan`` (``value`` the fan of
    all ``count`` times together).
    """

    key: str
    name: str
    count: int
    value: int | None
    role: Role

    def __reduce__(self) -> tuple[type[Term], tuple[Any, ...]]:
        """Copied and pickled through its constructor (a compiled frozen dataclass
        refuses a copy's ``__setstate__``)."""
        return (Term, (self.key, self.name, self.count, self.value, self.role))


@dataclass(frozen=True, slots=True)
class Breakdown:
    """A legal win's value, term by term.

    ``figure`` is the value before money: yuxi's uncapped score, xuezhan's
    uncapped multiplier (``Score.multiplier``), huangmei's fan. ``points``,
    ``fan``, ``multiplier`` and ``capped`` are the :class:`~mjlog.scoring.Score`'s.
    """

    variant: str
    terms: tuple[Term, ...]
    formula: str
    figure: int
    points: int
    fan: int
    multiplier: int | None
    capped: bool
    payers: Payer
    payer_text: str  # who pays, in words: "each other player pays"

    def __reduce__(self) -> tuple[type[Breakdown], tuple[Any, ...]]:
        """Copied and pickled through its constructor (a compiled frozen dataclass
        refuses a copy's ``__setstate__``)."""
        return (
            Breakdown,
            (
                self.variant,
                self.terms,
                self.formula,
                self.figure,
                self.points,
                self.fan,
                self.multiplier,
                self.capped,
                self.payers,
                self.payer_text,
            ),
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the shape docs/cli.md documents): what ``json.loads``
        gives back of it, the terms a list."""
        d = asdict(self)
        d["terms"] = list(d["terms"])
        return d


def grouped(patterns: Sequence[str]) -> list[tuple[str, int]]:
    """(key, count) of a pattern list, repeats counted once (``gen``, ``facai``).

    >>> grouped(("pinghu", "gen", "gen", "gangshanghua"))
    [('pinghu', 1), ('gen', 2), ('gangshanghua', 1)]
    """
    return [(k, len(list(g))) for k, g in groupby(patterns)]


def who_pays(method: Method | str, feeder_pays: bool, blood_battle: bool) -> tuple[Payer, str]:
    """(:class:`Payer`, words) of who pays a win, the way the engine pays it
    (:mod:`mjlog.wins`): the discarder; the kong player for a robbed kong; the
    kong's feeder alone for 点杠花 (``feeder_pays``); else every other player
    (still playing, in a blood battle).

    >>> who_pays("discard", False, True), who_pays("self_draw", False, True)
    ((<Payer.DISCARDER: 'discarder'>, 'the discarder pays'), (<Payer.EACH_OTHER: 'each_other'>, \
'each other active player pays'))
    """
    method = Method(method)
    if method is Method.DISCARD:
        code = Payer.DISCARDER
    elif method is Method.ROBBED_KONG:
        code = Payer.KONG_PLAYER
    else:
        code = Payer.KONG_FEEDER if feeder_pays else Payer.EACH_OTHER
    who = "each other active player" if code is Payer.EACH_OTHER and blood_battle else PAYERS[code]
    return code, f"{who} pays"


def payer_seats(
    b: Breakdown, winner: int, from_seat: int | None, n: int, out: Collection[int] = ()
) -> list[int | None]:
    """The seats that pay ``b.points`` for a win of ``winner``: ``from_seat`` (the
    discarder, kong player or feeder), or every other seat not in ``out`` (the
    winners of earlier tiles of a blood battle); ``[None]`` for a one-payer win
    recorded without its payer."""
    if b.payers in ONE_PAYER:
        return [from_seat]
    return [s for s in range(n) if s != winner and s not in out]


def money(figure: int, cap: int | None, base: int, bonus: str = "none") -> tuple[int, bool]:
    """(money per payer, capped) of a figure in units: ``zimo_bonus`` ``double``
    before the cap, ``add_base`` after it, then × ``base``. The scorers pay with
    it and :func:`money_steps` shows it.

    >>> money(12, 64, 1), money(32, 16, 2, "add_base"), money(12, 16, 1, "double")
    ((12, False), (34, True), (16, True))
    """
    units = figure * 2 if bonus == "double" else figure
    capped = cap is not None and units > cap
    paid = (units if cap is None else min(units, cap)) + (1 if bonus == "add_base" else 0)
    return paid * base, capped


def money_steps(figure: int, cap: int | None, base: int, bonus: str = "none") -> list[str]:
    """The steps of :func:`money` that change the figure, as ``→`` texts.

    >>> money_steps(12, 64, 1)
    []
    >>> money_steps(32, 16, 2, "add_base")
    ['capped at 16', '+1 (zimo_bonus add_base) = 17', '× 2 (base) = 34']
    """
    steps = []
    units = figure
    if bonus == "double":
        units *= 2
        steps.append(f"×2 (zimo_bonus double) = {units}")
    if cap is not None and units > cap:
        units = cap
        steps.append(f"capped at {cap}")
    if bonus == "add_base":
        units += 1
        steps.append(f"+1 (zimo_bonus add_base) = {units}")
    if base != 1:
        steps.append(f"× {base} (base) = {units * base}")
    return steps
