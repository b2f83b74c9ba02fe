"""Seat fairness and its fix: measure every seat position's advantage, propose the
seat compensation that cancels the dealer's, and confirm it on fresh seeds
(``mjlog balance``).

**Measure.** A run with the rules as given (duplicate play for a mixed line-up:
every match once per seat rotation on the same walls and dealers,
:mod:`analysis.ladder`), read by :func:`analysis.queries.position_advantage`: each
seat position's advantage (its mean minus the other positions' mean) in points
per hand, money ÷ ``base`` (so a run at another base reads on the same scale),
with a 95% t interval over matches (the unit: :mod:`analysis.stats`). The
dealer advantage ``A`` is position 0.

**Decide.** Each position ends in a verdict of :mod:`analysis.decide`:
*equivalent* within ±``margin`` (two one-sided tests), else *differs* from 0, else
*inconclusive* (with the hands that would settle it). Its two p-values are adjusted
(Benjamini–Hochberg) across the n positions, a family of n tests. The rules are
*balanced within ±margin* when every position is equivalent: an
intersection–union test, at level α as it stands (its p-value is the largest
position's, which the adjustment leaves as it is). A position within the margin
counts as balanced even when a large run also shows it is not 0
(``differs_from_zero``): the margin is what the designer called negligible.

**Propose.** Every payment moves money between seats, so a hand's deltas sum to
0; a dealer that pays each of the ``n − 1`` others ``x`` points a hand lowers
``A`` by ``n·x`` (and raises every other position by ``n·x/(n − 1)``: the key
moves the dealer against the rest, never one other position against another).
Measured under a compensation ``x₀``, the dealer's expected net change is 0 at

    ``x* = x₀ + A / n``     points per other player per hand

(its interval is ``A``'s, divided the same way).

**The lever.** The log's money is integer (int32), and a table pays whole chips:
at ``base`` B the finest payment is one of money, 1/B of a point
(``dealer_compensation_unit = money``; raising ``base`` scales every other payment,
so the game is the same). A :class:`Lever` is the three keys; :func:`propose`
picks the base B·10^k with the smallest k whose step, ``n/(B·10^k)`` points a
hand, is at most half the margin (so the rounding leaves at most a quarter of it),
rounds ``x*`` half away from zero to that step, and writes the result in its
simplest form (whole units of the base as given when it is whole points). When
that rounds to the rules measured, no playable value beats them, and the study
says so.

**Confirm.** The proposed rules on fresh walls: the seed
``mjlog.rng.derive(seed, CONFIRM)``, recorded. On the measured seeds the
confirmation would add nothing: compensation is paid after play and changes none
of it, so those hands would give the measurement shifted by ``n·(x − x₀)``, and
would grade the proposal on the very data that chose it. When the proposal is the
rules measured there is no second run: those rules were given, not chosen from
the data, and the measurement's verdict on them stands.

>>> propose(0.1, 4, Lever(1, "base", 0), margin=0.1)
(0.025, Lever(base=100, unit='money', value=3), 0.04)
>>> propose(8.0, 4, Lever(1, "base", 0), margin=0.1)[1]
Lever(base=1, unit='base', value=2)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from analysis.decide import DEFAULT_MARGINS, adjust, decide, from_zero, tost
from analysis.queries import position_advantage
from analysis.stats import Estimate
from mjlog.judgement import Verdict
from mjlog.rulekeys import INT32_MAX

__all__ = [
    "CONFIRM",
    "COMPENSATION_UNIT",
    "UNIT",
    "Lever",
    "decide_positions",
    "position_name",
    "positions",
    "propose",
    "round_units",
    "scale_for",
    "study_verdict",
]

UNIT = "points per hand (money ÷ base; a position's mean minus the other positions' mean)"
"""The unit of every advantage figure; intervals are 95% t intervals over matches."""

COMPENSATION_UNIT = "points (money ÷ base) the dealer pays each other player per hand"

CONFIRM = 1
"""The confirmation plays seed ``mjlog.rng.derive(seed, CONFIRM)``: fresh walls."""

MARGIN = DEFAULT_MARGINS["dealer_advantage"]
"""The default equivalence margin, points per hand (docs/cli.md)."""


def round_units(x: float | Fraction) -> int:
    """``x`` to the nearest whole number, halves away from zero (not to even).

    >>> [round_units(v) for v in (0.5, 1.5, -0.5, 0.49, -2.6, Fraction(5, 2))]
    [1, 2, -1, 0, -3, 3]
    """
    size = -x if x < 0 else x  # abs(), typed
    return int(math.copysign(math.floor(size + Fraction(1, 2)), x))


@dataclass(frozen=True)
class Lever:
    """Seat compensation as the rules say it: ``base``, ``dealer_compensation_unit``
    (``unit``) and ``dealer_compensation`` (``value``)."""

    base: int
    unit: str  # base | money
    value: int

    @classmethod
    def of(cls, rules) -> Lever:
        return cls(rules["base"], rules["dealer_compensation_unit"], rules["dealer_compensation"])

    @property
    def exact(self) -> Fraction:
        """What the dealer pays each other player a hand, in points (money ÷ base)."""
        money = self.value * (self.base if self.unit == "base" else 1)
        return Fraction(money, self.base)

    @property
    def points(self) -> float:
        return float(self.exact)

    def sets(self) -> list[str]:
        """The ``--set`` values that play it."""
        return [
            f"base={self.base}",
            f"dealer_compensation_unit={self.unit}",
            f"dealer_compensation={self.value}",
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "dealer_compensation_unit": self.unit,
            "dealer_compensation": self.value,
            "points": self.points,
        }

    def text(self) -> str:
        return ", ".join(self.sets())


def scale_for(n: int, base: int, margin: float) -> int:
    """The smallest power of ten ``s`` whose step of money at ``base·s``, ``n/(base·s)``
    points a hand, is at most ``margin/2`` (the base kept within int32).

    >>> scale_for(4, 1, 0.1), scale_for(4, 100, 0.1), scale_for(4, 1, 10)
    (100, 1, 1)
    """
    s = 1
    while Fraction(n, base * s) > Fraction(margin) / 2 and base * s * 10 <= INT32_MAX:
        s *= 10
    return s


def _simplest(money: int, base: int, scale: int) -> Lever:
    """``money`` at ``base·scale`` in its simplest form: the smallest scale that holds
    it, and whole units of ``base`` when it is whole points."""
    while scale > 1 and money % 10 == 0:
        money, scale = money // 10, scale // 10
    if money % (base * scale) == 0:
        return Lever(base, "base", money // (base * scale))
    return Lever(base * scale, "money", money)


def propose(
    advantage: float, n: int, current: Lever, margin: float = MARGIN, scale: int | None = None
) -> tuple[float, Lever, float]:
    """(exact, playable, step): ``x* = x₀ + A/n`` points the dealer pays each other
    player a hand, for the dealer advantage ``advantage`` (A) measured under
    ``current`` (x₀); the :class:`Lever` nearest it at money of ``base·scale``
    (default :func:`scale_for`), ``current`` itself when it is that; and the step,
    what one of money there moves the dealer advantage by, points per hand."""
    scale = scale_for(n, current.base, margin) if scale is None else scale
    finest = current.base * scale
    exact = current.exact + Fraction(advantage) / n
    lever = _simplest(round_units(exact * finest), current.base, scale)
    if lever.exact == current.exact:
        lever = current
    return float(exact), lever, n / finest


def position_name(position: int, n: int) -> str:
    """A seat position (0 = the dealer) in words.

    >>> [position_name(p, 4) for p in range(4)]
    ['the dealer', 'the next seat', '2 seats on', 'the seat before']
    """
    if position == 0:
        return "the dealer"
    if position == 1:
        return "the next seat"
    if position == n - 1:
        return "the seat before"
    return f"{position} seats on"


def positions(run: str | Path | Sequence[str | Path]) -> list[dict[str, Any]]:
    """Each seat position's advantage in a run, or in runs of one variant, rules and
    line-up pooled match by match (0 = the dealer), points per hand (money ÷ the
    base): ``position``, ``value``, ``lo``, ``hi``, ``se`` (:data:`UNIT`),
    ``matches``, ``hands``."""
    from mjlog.logio import RunFiles

    runs = [run] if isinstance(run, str | Path) else list(run)
    base = RunFiles(runs[0]).rules()["base"]
    df = position_advantage(runs).sort_values("position")
    rows: Iterable[Any] = df.itertuples()  # (pandas-stubs types a row's cells loosely)
    return [
        {
            "position": int(r.position),
            "value": float(r.advantage) / base,
            "lo": float(r.advantage_lo) / base,
            "hi": float(r.advantage_hi) / base,
            "se": float(r.advantage_se) / base,
            "matches": int(r.matches),
            "hands": int(r.hands),
        }
        for r in rows
    ]


def decide_positions(rows: Sequence[dict], margin: float, hands: int) -> list[dict[str, Any]]:
    """:func:`positions`' rows, each with its verdict (:func:`analysis.decide.decide`):
    ``p`` (differs from 0, as measured), ``p_adjusted`` and ``p_equivalence`` (the
    two one-sided tests of ±``margin``), both adjusted across the positions,
    ``verdict``, ``differs_from_zero`` (``p_adjusted`` under α, the verdict
    ``equivalent`` or not), ``mde`` and ``hands_needed`` (``hands``: the run's)."""
    diffs = [from_zero(Estimate(r["value"], r["lo"], r["hi"], r["se"], r["matches"])) for r in rows]
    p_adj = adjust([d.p for d in diffs])
    q_adj = adjust([tost(d, margin) for d in diffs])
    out = []
    for r, d, p, q in zip(rows, diffs, p_adj, q_adj, strict=True):
        dec = decide(d, margin, hands, p=float(p), p_equivalence=float(q))
        out.append(
            {
                **r,
                "p": d.p,
                "p_adjusted": dec.p,
                "p_equivalence": dec.p_equivalence,
                "verdict": dec.verdict,
                "differs_from_zero": dec.differs_from_zero,
                "mde": dec.mde,
                "hands_needed": dec.hands_needed,
            }
        )
    return out


def study_verdict(rows: Sequence[dict]) -> tuple[Verdict, float]:
    """(verdict, hands_needed) of a set of rules from its positions' verdicts:
    ``differs`` when one position does, ``equivalent`` when every one is (some
    perhaps shown off 0, by less than the margin), else ``inconclusive`` with the most
    hands any of its positions needs."""
    verdicts = [r["verdict"] for r in rows]
    if Verdict.DIFFERS in verdicts:
        return Verdict.DIFFERS, math.nan
    if all(v == Verdict.EQUIVALENT for v in verdicts):
        return Verdict.EQUIVALENT, math.nan
    need = [
        r["hands_needed"]
        for r in rows
        if r["verdict"] == Verdict.INCONCLUSIVE and not math.isnan(r["hands_needed"])
    ]
    return Verdict.INCONCLUSIVE, (max(need) if need else math.nan)


def interval(p: dict[str, Any]) -> dict[str, float]:
    return {k: p[k] for k in ("value", "lo", "hi")}
