"""A variant's pattern table as rule values: which key holds a pattern's value, a
value's level, and the containment order (a pattern never pays less than one it
contains). Shared by ``tune --rescore`` (:mod:`analysis.studies.rescore`) and the
tune's ``--keep-order`` (:mod:`analysis.studies.tune.effects`).

>>> value_key("huangmei", "qidui")
'fan.qidui'
>>> from mjlog.rules import resolve
>>> containment(resolve("huangmei"))["quanqiuren"]
('pengpenghu', 'dandiao')
"""

from __future__ import annotations

from typing import Any

from mjlog.errors import InputError, quote
from mjlog.rulekeys import RuleKey
from mjlog.rules import Rules, keys
from mjlog.variants import get_variant


def value_key(variant: str, pattern: str) -> str:
    """The rule key holding ``pattern``'s value (``fan.qidui``, ``mult.qidui``,
    ``points.qidui``)."""
    found = [k for k in keys(variant) if k.partition(".")[2] == pattern]
    if len(found) != 1:
        raise InputError(f"{variant} has no value key for pattern {quote(pattern)}")
    return found[0]


def level(rk: RuleKey, value: Any) -> int:
    """A pattern value's level: the fan, the exponent of a power of two, or the larger
    side of a self-draw/discard pair (0 when it has none)."""
    if rk.kind == "pow2":
        return int(value).bit_length() - 1
    if rk.kind == "pair":
        return max((v for v in value if v is not None), default=0)
    return int(value)


def pays_at_least(rk: RuleKey, a: Any, b: Any) -> bool:
    """``a`` pays no less than ``b`` (a pair: its level, and each side both have)."""
    if level(rk, a) < level(rk, b):
        return False
    return rk.kind != "pair" or all(
        x >= y for x, y in zip(a, b, strict=True) if x is not None and y is not None
    )


def containment(rules: Rules) -> dict[str, tuple[str, ...]]:
    """The variant's containment families under ``rules`` (pattern → the patterns it
    contains, directly), among the patterns a win can carry."""
    spec = get_variant(rules.variant)
    pats = spec.patterns(rules)
    return {
        a: tuple(b for b in bs if b in pats)
        for a, bs in getattr(spec.scorer, "CONTAINS", {}).items()
        if a in pats
    }


__all__ = ["containment", "level", "pays_at_least", "value_key"]
