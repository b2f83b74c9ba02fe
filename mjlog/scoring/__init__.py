"""Scoring: one module per variant, all behind :func:`score`.

The engine, the auditor and ``mjlog score`` call the same function, so a win is
valued in exactly one place.
"""

from mjlog.scoring.base import Method, Score, WinContext

__all__ = ["Method", "Score", "WinContext", "score", "ready_value", "is_ready"]


def score(ctx: WinContext, rules) -> Score:
    """Value a win under ``rules`` (a :class:`mjlog.rules.Rules`): its variant's scorer."""
    return rules.spec.scorer.score(ctx, rules)


def ready_value(concealed, melds, rules, **kw) -> int:
    """The per-payer value a ready hand is owed at an exhaustive draw (查大叫); 0 if not ready."""
    return rules.spec.scorer.ready_value(concealed, melds, rules, **kw)


def is_ready(concealed, melds, rules, **kw) -> bool:
    """听牌: some tile would complete the hand (as the variant counts it); cheaper
    than :func:`ready_value`, which is positive exactly when this holds."""
    return rules.spec.scorer.is_ready(concealed, melds, rules, **kw)
