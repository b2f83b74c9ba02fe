"""Scoring: one module per variant, all behind :func:`score`.

The engine, the auditor and ``mjlog score`` call the same function, so a win is
valued in exactly one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from mjlog.melds import Meld
from mjlog.scoring.base import Method, Score, Scorer, WinContext
from mjlog.scoring.breakdown import Breakdown, Term

if TYPE_CHECKING:
    from mjlog.rules import Rules

__all__ = [
    "Breakdown",
    "Method",
    "Score",
    "Scorer",
    "Term",
    "WinContext",
    "score",
    "explain",
    "explain_win",
    "ready_value",
    "is_ready",
]


class RecordedWin(Protocol):
    """What :func:`explain_win` reads of a recorded win."""

    @property
    def patterns(self) -> Sequence[str]: ...
    @property
    def method(self) -> Method | str: ...
    @property
    def from_seat(self) -> int | None: ...


def score(ctx: WinContext, rules: Rules) -> Score:
    """Value a win under ``rules`` (a :class:`mjlog.rules.Rules`): its variant's scorer."""
    return rules.spec.scorer.score(ctx, rules)


def explain(
    patterns: Sequence[str], method: Method | str, rules: Rules, feeder_pays: bool = False
) -> Breakdown:
    """The :class:`Breakdown` of a legal win with ``patterns`` (``Score.patterns``)
    won by ``method``, ``feeder_pays`` as the score says: its variant's scorer, by
    the functions that valued it (:mod:`mjlog.scoring.breakdown`)."""
    return rules.spec.scorer.explain(patterns, method, rules, feeder_pays)


def explain_win(win: RecordedWin, rules: Rules) -> Breakdown:
    """The :class:`Breakdown` of a recorded win (a :class:`mjlog.ledger.WinRecord` or
    anything with its ``patterns``, ``method`` and ``from_seat``): a self-draw with
    a payer is 点杠花, paid by the kong's feeder alone.

    >>> from mjlog.ledger import WinRecord
    >>> from mjlog.rules import resolve
    >>> rec = WinRecord(40, 2, 0, 4, "self_draw", 1, ("pengpenghu", "qingyise",
    ...                 "gangshanghua"), 3, None, 16, 16, False)
    >>> b = explain_win(rec, resolve("yuxi"))
    >>> b.formula, b.points, b.payers
    ('4 × 2 × 2 = 16', 16, <Payer.KONG_FEEDER: 'kong_feeder'>)
    """
    feeder_pays = win.method == Method.SELF_DRAW and win.from_seat is not None
    return explain(win.patterns, win.method, rules, feeder_pays)


def ready_value(concealed: Sequence[int], melds: Sequence[Meld], rules: Rules, **kw: Any) -> int:
    """The per-payer value a ready hand is owed at an exhaustive draw (查大叫); 0 if not ready."""
    return rules.spec.scorer.ready_value(concealed, melds, rules, **kw)


def is_ready(concealed: Sequence[int], melds: Sequence[Meld], rules: Rules, **kw: Any) -> bool:
    """听牌: some tile would complete the hand (as the variant counts it); cheaper
    than :func:`ready_value`, which is positive exactly when this holds."""
    return rules.spec.scorer.is_ready(concealed, melds, rules, **kw)
