"""Whether a tune's budget can decide: each target's expected half-width on the
confirmation (of the 90 % interval its verdict reads), whether ``met`` is reachable,
and the budget that would reach it.

A target ``V ± T`` is ``met`` when its 90 % interval lies inside ``V ± T`` (two
one-sided tests at α = 5 %, :mod:`mjlog.judgement`, whose level this module reads):
only possible when the half-width ``h`` is below ``T``, and four times in five (80 %
power, the true value at ``V``) when ``T ≥ (z₀.₉₅ + z₀.₉) · se``. The confirmation
plays a quarter of ``--budget``.

- **Before the first hand** a rate's half-width has a floor: a share of wins rests on
  ``W ≤ H`` wins (``H``: the confirmation's hands), so ``h ≥ 1.645 · √(V(1−V)/H)``; a
  target whose floor is already ``T`` or more cannot be met at this budget, whatever
  play does (:func:`floor`).
- **After trial 0** (the rules as they are, always played first) the pilot gives the
  wins per hand and every other figure's spread per match: a rate's standard error
  at ``V`` is ``√(V(1−V)/W)`` with ``W`` the confirmation's expected wins (or hands,
  for a share of hands); any other figure's scales from the pilot's by
  ``√(pilot matches / confirmation matches)``, and by ``|V| / |pilot value|`` when
  the target lies further from 0 (points and money spread in proportion to their
  level) (:func:`from_pilot`).

``hands_needed`` is the ``--budget`` at which the target is confirmable with 80 %
power. One-sided targets have no width to reach (their distance from the bound
decides): ``confirmable`` is None for them.

``hands_to_propose`` is the ``--budget`` at which a proposal anywhere in the central
half of the tolerance (``|truth − V| ≤ T/2``) is confirmed with 80 % power, not only
one at the centre: the values a tune can propose are its grid's, which rarely fall
on ``V``. The race plays as many hands as the confirmation, so at this budget each
raced candidate is also known to about ``±0.8 T`` (95 %). Measured on the tune
calibration (research/results/tune_calibration.md, ``pattern_rate[qidui]=0.05±0.01``,
the choice of this version): at the budget for the centre (~17,100 hands) proposals
were truly within the tolerance in 94 % of tunes and ``met`` in 50 % of those (100
replicates); at ``hands_to_propose`` (~49,500) in 99.2 % and 88.9 % (500).
``--budget auto`` takes the larger of the two.

>>> from analysis.studies.tune.grammar import parse_target
>>> t = parse_target("pattern_rate[qidui]=0.05±0.01")
>>> f = floor(t, budget=4000, hands_per_match=8)
>>> f["confirmable"], round(f["half_width"], 4), f["hands_needed"], f["hands_to_propose"]
(False, 0.0113, 16272, 46988)
>>> floor(t, budget=40000, hands_per_match=8)["confirmable"] is None  # not ruled out
True
"""

from __future__ import annotations

import math
from typing import Any

from analysis.studies.tune.grammar import Target
from analysis.studies.tune.measuring import Measured
from mjlog.judgement import Z

Z_POWER = Z + 1.2815515655446004  # + z₀.₉: both one-sided tests pass 80 % of the time
CONFIRM_SHARE = 4  # the confirmation plays 1/4 of --budget
Z_OFF_CENTRE = Z + 0.8416212335729143  # + z₀.₈: the one test that binds off the centre

RATE_OF = {"draw_rate": "hands", "pattern_rate": "wins", "capped_share": "wins"}
"""The rate families, and what they are a share of."""


def _family(metric: str) -> str:
    return metric.split("[", 1)[0]


def confirm_hands(budget: int, hands_per_match: int) -> int:
    """The confirmation's hands at ``budget`` (as :meth:`Plan.split` gives them)."""
    return max(2, budget // CONFIRM_SHARE // hands_per_match) * hands_per_match


def _budget_for(units: float, per_unit_hands: float) -> int:
    """The --budget whose confirmation holds ``units`` (wins or hands)."""
    return int(math.ceil(units * per_unit_hands * CONFIRM_SHARE))


def _propose_for(spread: float, tol: float, per_unit_hands: float) -> int:
    """The --budget confirming with 80 % power a truth ``tol/2`` from the target's
    centre (``spread``: the variance of one unit, a win, a hand or a match)."""
    return _budget_for(spread * (Z_OFF_CENTRE / (tol / 2)) ** 2, per_unit_hands)


def floor(t: Target, budget: int, hands_per_match: int) -> dict[str, Any]:
    """What is known before the first hand: for a rate target ``V ± T``, the floor of
    its half-width (every hand counted, as if every hand were a win) and, when that
    floor is ``T`` or more, ``confirmable`` False and the least budget that could."""
    out: dict[str, Any] = {
        "metric": t.metric,
        "half_width": None,
        "confirmable": None,
        "hands_needed": None,
        "hands_to_propose": None,
        "basis": "before play",
    }
    if t.op != "=" or t.tol is None or _family(t.metric) not in RATE_OF:
        return out
    v = min(max(t.value, 0.0), 1.0)
    spread = v * (1 - v)
    h = confirm_hands(budget, hands_per_match)
    hw = Z * math.sqrt(spread / h) if spread else 0.0
    out["half_width"] = hw
    out["hands_needed"] = _budget_for(spread * (Z_POWER / t.tol) ** 2, 1.0)
    out["hands_to_propose"] = _propose_for(spread, t.tol, 1.0)
    if hw >= t.tol:
        out["confirmable"] = False
    return out


def from_pilot(t: Target, pilot: Measured, budget: int, hands_per_match: int) -> dict[str, Any]:
    """The expected half-width on the confirmation and the budget for 80 % power,
    from the pilot's figures (trial 0)."""
    out = floor(t, budget, hands_per_match)
    out["basis"] = "trial 0"
    if t.op != "=" or t.tol is None:
        return out
    y, x = pilot.arrays[t.metric]
    n0 = len(y)
    h = confirm_hands(budget, hands_per_match)
    if _family(t.metric) in RATE_OF:
        v = min(max(t.value, 0.0), 1.0)
        per_hand = 1.0 if x is None or not pilot.hands else float(x.sum()) / pilot.hands
        if RATE_OF[_family(t.metric)] == "hands":
            per_hand = 1.0
        if per_hand <= 0:  # no win in the pilot: nothing to size from
            return out
        se = math.sqrt(v * (1 - v) / (h * per_hand)) if 0 < v < 1 else 0.0
        need = _budget_for(v * (1 - v) * (Z_POWER / t.tol) ** 2, 1 / per_hand)
        propose = _propose_for(v * (1 - v), t.tol, 1 / per_hand)
    else:
        from analysis.stats import estimate

        e = estimate(y, x)
        if not math.isfinite(e.se) or n0 < 2:
            return out
        # points and money spread in proportion to their level (a base ×N scales both):
        # a target N times the pilot's value is sized on N times its spread
        level = abs(t.value) / abs(e.value) if e.value and math.isfinite(e.value) else 1.0
        sd = e.se * math.sqrt(n0) * max(1.0, level)
        m = h / hands_per_match
        se = sd / math.sqrt(m)
        need = _budget_for((sd * Z_POWER / t.tol) ** 2, hands_per_match)
        propose = _propose_for(sd**2, t.tol, hands_per_match)
    out.update(
        half_width=Z * se,
        confirmable=bool(Z * se < t.tol),
        hands_needed=need,
        hands_to_propose=propose,
    )
    return out


def said(row: dict[str, Any], t: Target, budget: int) -> str | None:
    """The one line for a target the budget cannot confirm (None when it can, or
    when nothing says yet)."""
    if row["confirmable"] is not False:
        return None
    return (
        f"tune: {t.show()} cannot be met at --budget {budget}: the confirmation's 90 % "
        f"interval is about ±{row['half_width']:.3g} wide ({row['basis']}), not under "
        f"±{t.tol:g}; --budget {row['hands_needed']:,} would confirm it 80 % of the time"
    )


# ------------------------------------------------------------------ --budget auto
PILOT_HANDS = 512
"""The hands of ``--budget auto``'s pilot: the rules as they are, on their own seed."""
PILOT = "pilot"
"""The pilot's run, in the tune's directory."""
FALLBACK = 20000
"""The budget ``--budget auto`` takes when no target has a width to reach (one-sided
targets only): the default ``--budget``."""


def auto_budget(
    targets: tuple[Target, ...],
    pilot: Measured,
    hands_per_match: int,
    max_hands: int,
    least: int = 64,
) -> tuple[int, list[dict[str, Any]]]:
    """``--budget auto``: the budget at which every target ``V ± T`` is confirmable
    with 80 % power at its centre and anywhere in the central half of its tolerance
    (``hands_needed`` and ``hands_to_propose``, the larger), sized on the pilot (:func:`from_pilot`),
    between ``least`` and ``max_hands``; returns it with each target's sizing.

    >>> import numpy as np
    >>> from analysis.studies.tune.grammar import parse_target
    >>> y, x = np.array([1.0, 0.0] * 32), np.full(64, 8.0)  # one 七对 in 16 wins
    >>> pilot = Measured({"pattern_rate[qidui]": (y, x)}, 512)
    >>> auto_budget((parse_target("pattern_rate[qidui]=0.05±0.01"),), pilot, 8, 10**6)[0]
    46988
    >>> auto_budget((parse_target("pattern_rate[qidui]=0.05±0.01"),), pilot, 8, 8000)[0]
    8000
    """
    rows = [from_pilot(t, pilot, max_hands, hands_per_match) for t in targets]
    needed = [
        max(r["hands_needed"], r["hands_to_propose"]) for r in rows if r["hands_needed"] is not None
    ]
    budget = max(needed) if needed else FALLBACK
    return int(min(max(budget, least), max_hands)), rows
