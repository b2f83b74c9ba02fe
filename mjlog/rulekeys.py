"""A rule key: its name, default, type and allowed values (RULES.md), and the
error an unknown key or a bad value raises. Each variant module
(:mod:`mjlog.variants`) lists its keys; :mod:`mjlog.rules` resolves them.

>>> RuleKey("cap", 64, "int", minimum=1).parse("32", "yuxi")
32
>>> RuleKey("points.qidui", (3, 4), "pair").parse("-/5", "yuxi")
(None, 5)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mjlog.errors import InputError

__all__ = ["RuleError", "RuleKey", "int_key", "choice_key", "bool_key", "common_keys"]


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

    def parse(self, raw: Any, variant: str) -> Any:
        """Turn a TOML value or a command-line string into this key's value."""
        bad = f"bad value {raw!r} for {variant} rule key {self.name!r}"
        if self.kind in ("int", "pow2"):
            if isinstance(raw, bool):
                raise RuleError(f"{bad}; expected an integer")
            try:
                v = int(raw)
            except (TypeError, ValueError):
                raise RuleError(f"{bad}; expected an integer") from None
            if self.minimum is not None and v < self.minimum:
                raise RuleError(f"{bad}; expected an integer >= {self.minimum}")
            if self.maximum is not None and v > self.maximum:
                raise RuleError(f"{bad}; expected an integer <= {self.maximum}")
            if self.kind == "pow2" and (v < 1 or v & (v - 1)):
                raise RuleError(f"{bad}; expected a power of two (1, 2, 4, 8, ...)")
            return v
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            s = str(raw).strip().lower()
            if s in ("true", "1", "yes", "on"):
                return True
            if s in ("false", "0", "no", "off"):
                return False
            raise RuleError(f"{bad}; valid values: true, false")
        if self.kind == "choice":
            s = str(raw).strip()
            if s not in self.choices:
                raise RuleError(f"{bad}; valid values: {', '.join(self.choices)}")
            return s
        if self.kind == "list":
            items = raw if isinstance(raw, list) else [x for x in str(raw).split(",")]
            items = [str(x).strip() for x in items if str(x).strip()]
            for x in items:
                if x not in self.choices:
                    raise RuleError(
                        f"{bad}; unknown item {x!r}, valid items: {', '.join(self.choices)}"
                    )
            # canonical order: the order of the rulebook's list, each once
            return tuple(c for c in self.choices if c in items)
        if self.kind == "pair":
            parts = list(raw) if isinstance(raw, list | tuple) else str(raw).split("/")
            if len(parts) != 2:
                raise RuleError(f"{bad}; expected S/D, e.g. 3/4 or -/4")
            out = []
            for p in parts:
                p = str(p).strip() if p is not None else "-"
                if p in ("-", "", "None"):
                    out.append(None)
                    continue
                try:
                    v = int(p)
                except ValueError:
                    raise RuleError(f"{bad}; expected S/D, e.g. 3/4 or -/4") from None
                if v < 0:
                    raise RuleError(f"{bad}; points must be >= 0")
                out.append(v)
            return tuple(out)
        raise AssertionError(self.kind)

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


def int_key(name, default, doc, minimum=0, maximum=None):
    return RuleKey(name, default, "int", doc=doc, minimum=minimum, maximum=maximum)


def choice_key(name, default, choices, doc):
    return RuleKey(name, default, "choice", tuple(choices), doc)


def bool_key(name, default, doc):
    return RuleKey(name, default, "bool", doc=doc)


def common_keys(rob_default: bool) -> list[RuleKey]:
    return [
        int_key("players", 4, "number of players (2, 3 or 4)", 2, 4),
        int_key("base", 1, "底分: money per unit", 1),
        choice_key("late_added_kong", "pays", ("pays", "no_pay", "forbidden"),
                "an added kong whose fourth tile is not the tile just drawn"),
        bool_key("rob_exposed_kong", rob_default,
              "an exposed kong claimed from a discard may be robbed"),
    ]
