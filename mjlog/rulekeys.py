"""A rule key: its name, default, type and allowed values (docs/rules/), and the
error an unknown key or a bad value raises. Each variant module
(:mod:`mjlog.variants`) lists its keys; :mod:`mjlog.rules` resolves them.

>>> RuleKey("cap", 64, "int", minimum=1).parse("32", "yuxi")
32
>>> RuleKey("points.qidui", (3, 4), "pair").parse("-/5", "yuxi")
(None, 5)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mjlog.errors import InputError, quote

__all__ = ["INT32_MAX", "RuleError", "RuleKey", "int_key", "choice_key", "bool_key", "common_keys"]

INT32_MAX = 2**31 - 1
"""The largest value of an int32 log column (money, fan, multiplier, points:
mjlog/schema.py); every integer rule value that flows into one is at most this."""

_INTEGER = re.compile(r"[+-]?[0-9]{1,19}")


def _strict_int(raw: Any) -> int | None:
    """An int given as an int (not a bool, not a float) or as decimal ASCII digits;
    None for anything else. ``3.0``, ``True``, ``"1e3"`` and ``"٣"`` are not integers."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and _INTEGER.fullmatch(raw.strip()):
        return int(raw.strip())
    return None


class RuleError(InputError):
    """An unknown variant, an unknown rule key or a bad value."""


@dataclass(frozen=True, slots=True)
class RuleKey:
    """One switchable rule: its name, default, type and allowed values."""

    name: str
    default: Any
    kind: str  # "int" | "bool" | "choice" | "list" | "pair" | "pow2"
    choices: tuple[str, ...] = ()
    doc: str = ""
    minimum: int | None = None
    maximum: int | None = None
    #: The value a run recorded before this key existed was played under: a manifest
    #: without the key is read with it, so old runs still replay and validate. None:
    #: the key has always been recorded, and a manifest without it is incomplete.
    absent: Any = None
    #: The key only says what a hand pays (the base, a cap, a compensation): no legal
    #: choice and no event but the payments depends on it, whatever a money-blind agent
    #: chooses (a key a pass lock reads, as xuezhan's ``mult.*``, is not), so hands
    #: played under one value may be settled again under another (:mod:`mjlog.resettle`,
    #: proved for every such key by tests/batch/test_resettle.py).
    money_only: bool = False

    def parse(self, raw: Any, variant: str) -> Any:
        """Turn a TOML value or a command-line string into this key's value."""
        bad = f"bad value {quote(raw)} for {variant} rule key {self.name!r}"
        parse: dict[str, Callable[[Any, str], Any]] = {
            "int": self._parse_int,
            "pow2": self._parse_int,
            "bool": self._parse_bool,
            "choice": self._parse_choice,
            "list": self._parse_list,
            "pair": self._parse_pair,
        }
        return parse[self.kind](raw, bad)

    def _parse_int(self, raw: Any, bad: str) -> int:
        v = _strict_int(raw)
        if v is None:
            raise RuleError(f"{bad}; expected an integer")
        if self.minimum is not None and v < self.minimum:
            raise RuleError(f"{bad}; expected an integer >= {self.minimum}")
        top = (
            self.maximum
            if self.maximum is not None
            else (2**30 if self.kind == "pow2" else INT32_MAX)
        )
        if v > top:
            raise RuleError(f"{bad}; expected an integer <= {top} (the log's int32 columns)")
        if self.kind == "pow2" and (v < 1 or v & (v - 1)):
            raise RuleError(f"{bad}; expected a power of two (1, 2, 4, 8, ...)")
        return v

    def _parse_bool(self, raw: Any, bad: str) -> bool:
        if isinstance(raw, bool):
            return raw
        if not isinstance(raw, str):
            raise RuleError(f"{bad}; valid values: true, false")
        s = raw.strip().lower()
        if s in ("true", "1", "yes", "on"):
            return True
        if s in ("false", "0", "no", "off"):
            return False
        raise RuleError(f"{bad}; valid values: true, false")

    def _parse_choice(self, raw: Any, bad: str) -> str:
        choice = raw.strip() if isinstance(raw, str) else None
        if choice not in self.choices:
            raise RuleError(f"{bad}; valid values: {', '.join(self.choices)}")
        return choice

    def _parse_list(self, raw: Any, bad: str) -> tuple[str, ...]:
        items = raw if isinstance(raw, list) else (raw.split(",") if isinstance(raw, str) else None)
        if items is None or not all(isinstance(x, str) for x in items):
            raise RuleError(f"{bad}; expected a list of names, e.g. menqing,dihu")
        items = [x.strip() for x in items if x.strip()]
        for x in items:
            if x not in self.choices:
                raise RuleError(
                    f"{bad}; unknown item {quote(x)}, valid items: {', '.join(self.choices)}"
                )
        # canonical order: the order of the rulebook's list, each once
        return tuple(c for c in self.choices if c in items)

    def _parse_pair(self, raw: Any, bad: str) -> tuple[int | None, ...]:
        parts = (
            list(raw)
            if isinstance(raw, list | tuple)
            else (raw.split("/") if isinstance(raw, str) else [])
        )
        if len(parts) != 2:
            raise RuleError(f"{bad}; expected S/D, e.g. 3/4 or -/4")
        out: list[int | None] = []
        for p in parts:
            if p is None or (isinstance(p, str) and p.strip() in ("-", "", "None")):
                out.append(None)
                continue
            v = _strict_int(p)
            if v is None:
                raise RuleError(f"{bad}; expected S/D, e.g. 3/4 or -/4")
            if v < 0:
                raise RuleError(f"{bad}; points must be >= 0")
            if v > INT32_MAX:
                raise RuleError(f"{bad}; points must be <= {INT32_MAX} (an int32 column)")
            out.append(v)
        return tuple(out)

    def show(self, value: Any) -> str:
        """The value as written on the command line."""
        if self.kind == "bool":
            return "true" if value else "false"
        if self.kind == "list":
            return ",".join(value)
        if self.kind == "pair":
            return "/".join("-" if v is None else str(v) for v in value)
        return str(value)

    def to_json(self, value: Any) -> Any:
        if self.kind == "pair":
            return list(value)
        if self.kind == "list":
            return list(value)
        return value


def int_key(
    name: str,
    default: int,
    doc: str,
    minimum: int = 0,
    maximum: int | None = None,
    absent: int | None = None,
    money_only: bool = False,
) -> RuleKey:
    return RuleKey(
        name,
        default,
        "int",
        doc=doc,
        minimum=minimum,
        maximum=maximum,
        absent=absent,
        money_only=money_only,
    )


def choice_key(
    name: str,
    default: str,
    choices: Iterable[str],
    doc: str,
    absent: str | None = None,
    money_only: bool = False,
) -> RuleKey:
    return RuleKey(
        name, default, "choice", tuple(choices), doc, absent=absent, money_only=money_only
    )


def bool_key(
    name: str, default: bool, doc: str, absent: bool | None = None, money_only: bool = False
) -> RuleKey:
    return RuleKey(name, default, "bool", doc=doc, absent=absent, money_only=money_only)


def common_keys(rob_default: bool) -> list[RuleKey]:
    return [
        int_key("players", 4, "number of players (2, 3 or 4)", 2, 4),
        int_key("base", 1, "底分: money per unit", 1, money_only=True),
        choice_key(
            "late_added_kong",
            "pays",
            ("pays", "no_pay", "forbidden"),
            "an added kong whose fourth tile is not the tile just drawn",
        ),
        bool_key(
            "rob_exposed_kong", rob_default, "an exposed kong claimed from a discard may be robbed"
        ),
        RuleKey(
            "dealer_compensation",
            0,
            "int",
            minimum=-INT32_MAX,
            absent=0,
            money_only=True,
            doc="seat compensation: after every hand the dealer pays this many units "
            "x base (or of money: dealer_compensation_unit) to each other player "
            "(negative: they pay the dealer)",
        ),
        # money: with a larger base, the dealer pays a fraction of a point (mjlog balance)
        choice_key(
            "dealer_compensation_unit",
            "base",
            ("base", "money"),
            "what one dealer_compensation counts: a unit x base, or one of money "
            "(with base B: 1/B of a point)",
            absent="base",
            money_only=True,
        ),
        choice_key(
            "dealer_rotation",
            "rules",
            ("rules", "fixed"),
            "who deals next: as the variant's rules say (from the hand's result), or "
            "fixed: the next seat every hand, whatever happened",
            absent="rules",
        ),
    ]
