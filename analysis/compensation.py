"""Seat fairness and its fix: measure the dealer's advantage, propose the seat
compensation that cancels it, and confirm it on the same walls (``mjlog balance``).

**Measure.** A run of duplicate play (every match once per seat rotation on the
same walls and dealers, :mod:`analysis.ladder`), read by
:func:`analysis.queries.position_advantage`: each seat position's advantage, in
points per hand (its mean minus the other positions' mean), with a 95% t interval
over matches (the unit: :mod:`analysis.stats`). The dealer advantage ``A`` is
position 0.

**Propose.** Every payment moves money between seats, so a hand's deltas sum to 0
and the dealer's mean net change per dealer-hand is ``D = A·(n − 1)/n``. The rule
key ``dealer_compensation`` = ``c`` makes the dealer pay ``c × base`` to each of
the ``n − 1`` others after every hand: ``D`` falls by ``c·base·(n − 1)`` and
``A`` by ``c·base·n``. The dealer's expected net change is 0 when

    ``c* = A / (n · base) = D / ((n − 1) · base)``     units of ``base``

(its interval is ``A``'s, divided the same way). Runs measured under a
compensation ``c₀`` already propose ``c₀ + c*``.

**Round.** The key is a whole number of units of ``base``: the log's money is
integer (int32), and a table can pay only whole units. The proposal is ``c*``
rounded half away from zero; one unit moves the dealer advantage by ``n·base``
points per hand (``resolution``), so when ``|c*| < 0.5`` the nearest rule a
table can play is 0 and the advantage is below the key's resolution (the exact
``c*`` with its interval is reported beside it, so a designer sees how much is
left). Finer units would not help: raising ``base`` scales every payment, the
advantage with them, so ``c*`` in units does not change; a fraction of a unit
is money the log and the table cannot hold.

**Confirm.** The same run again with ``dealer_compensation = c`` (same seeds, so
the same walls and dealers): its dealer advantage with a 95% interval, and
whether that interval covers 0.

>>> propose(1.2, 4, 1), propose(-1.0, 4, 1), propose(0.2, 4, 1), propose(2.4, 4, 2, 1)
((0.3, 0), (-0.25, 0), (0.05, 0), (1.3, 1))
>>> propose(6.0, 3, 1)
(2.0, 2)
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from analysis.queries import position_advantage

__all__ = ["UNIT", "balance_study", "positions", "propose", "round_units"]

UNIT = "points per hand (a position's mean minus the other positions' mean)"
"""The unit of every advantage figure; intervals are 95% t intervals over matches."""

COMPENSATION_UNIT = "units of base the dealer pays each other player per hand"


def round_units(x: float) -> int:
    """``x`` to the nearest whole unit, halves away from zero (not to even).

    >>> [round_units(v) for v in (0.5, 1.5, -0.5, 0.49, -2.6)]
    [1, 2, -1, 0, -3]
    """
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def propose(advantage: float, n: int, base: int, current: int = 0) -> tuple[float, int]:
    """(exact, playable): the compensation ``current + A/(n·base)`` that brings the
    dealer advantage ``advantage`` (A, points per hand) measured under
    ``dealer_compensation = current`` to 0, and that rounded to whole units."""
    exact = current + advantage / (n * base)
    return exact, round_units(exact)


def positions(run: str | Path) -> list[dict[str, Any]]:
    """Each seat position's advantage in a run (0 = the dealer): ``position``,
    ``value``, ``lo``, ``hi`` (:data:`UNIT`), ``matches``, ``hands``."""
    df = position_advantage(run).sort_values("position")
    return [{"position": int(r.position), "value": float(r.advantage),
             "lo": float(r.advantage_lo), "hi": float(r.advantage_hi),
             "matches": int(r.matches), "hands": int(r.hands)} for r in df.itertuples()]


def _interval(p: dict[str, Any]) -> dict[str, float]:
    return {k: p[k] for k in ("value", "lo", "hi")}


def balance_study(variant: str, agents: Sequence[str], hands: int, seed: int = 0,
                  sets: Sequence[str] = (), hands_per_match: int = 8,
                  workers: int | None = None, out: str | Path | None = None,
                  progress: bool | None = False,
                  on_measured: Callable[[dict], None] | None = None) -> dict[str, Any]:
    """Measure, propose, confirm (the module docstring): at least ``hands`` hands
    of duplicate play per run, the runs written under ``out`` (``measure`` and
    ``confirm``) or in a temporary directory removed afterwards. ``on_measured``
    is told the measurement before the confirmation run starts. Returns the
    figures ``mjlog balance --format json`` prints (docs/cli.md)."""
    from simulate.runner import RunSpec, simulate

    probe = RunSpec.build(variant, seed, 1, hands_per_match, agents, sets=sets)
    # One agent in every seat: its rotations would replay the same hands (each seat's
    # choices come from that seat's seeded stream), so duplicate play only for a mix.
    duplicate = len(set(probe.agents)) > 1
    per_match = (probe.rules.n if duplicate else 1) * hands_per_match
    matches = max(2, -(-hands // per_match))  # two at least: an interval needs them

    def build(extra: Sequence[str] = ()) -> RunSpec:
        return RunSpec.build(variant, seed, matches, hands_per_match, agents,
                             sets=[*sets, *extra], duplicate=duplicate, events=False)

    spec = build()
    rules = spec.rules
    n, base, current = rules.n, rules["base"], rules["dealer_compensation"]
    with tempfile.TemporaryDirectory(prefix="mjlog-balance-") as scratch:
        root = Path(out) if out is not None else Path(scratch)
        measured_dir = root / "measure"
        simulate(spec, measured_dir, workers=workers, progress=progress, desc="measure")
        measured = positions(measured_dir)
        adv = measured[0]
        exact, c = propose(adv["value"], n, base, current)
        lo, hi = (propose(adv[k], n, base, current)[0] for k in ("lo", "hi"))
        result: dict[str, Any] = {
            "variant": variant, "agents": list(spec.agents), "seed": seed,
            "players": n, "base": base, "duplicate": duplicate,
            "hands": spec.total_hands, "matches": matches, "hands_per_match": hands_per_match,
            "unit": UNIT, "level": 0.95,
            "dealer_advantage": _interval(adv), "positions": measured,
            "measured_compensation": current,
            "compensation_exact": {"value": exact, "lo": lo, "hi": hi},
            "compensation": c, "compensation_unit": COMPENSATION_UNIT,
            "expected_residual": adv["value"] - (c - current) * base * n,
            # what one unit of the key moves the dealer advantage by: the finest fix
            "resolution": base * n,
        }
        if on_measured is not None:
            on_measured(result)
        if c == current:  # the measured rules are the proposal: nothing new to play
            confirm_dir = measured_dir
            confirmed = measured
        else:
            confirm_spec = build([f"dealer_compensation={c}"])
            confirm_dir = root / "confirm"
            simulate(confirm_spec, confirm_dir, workers=workers, progress=progress,
                     desc="confirm")
            confirmed = positions(confirm_dir)
        result.update({
            "confirmed": _interval(confirmed[0]), "confirmed_positions": confirmed,
            "covers_zero": bool(confirmed[0]["lo"] <= 0 <= confirmed[0]["hi"]),
            "runs": ({"measure": str(measured_dir), "confirm": str(confirm_dir)}
                     if out is not None else None),
        })
    return result
