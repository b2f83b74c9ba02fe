"""Scoring: one module per variant, all behind :func:`score`.

The engine, the auditor and ``mjlog score`` call the same function, so a win is
valued in exactly one place.
"""

from mjlog.scoring.base import Method, Score, WinContext

__all__ = ["Method", "Score", "WinContext", "score", "ready_value", "is_ready", "names"]


def score(ctx: WinContext, rules) -> Score:
    """Value a win under ``rules`` (a :class:`mjlog.rules.Rules`)."""
    return _module(rules.variant).score(ctx, rules)


def ready_value(concealed, melds, rules, **kw) -> int:
    """The per-payer value a ready hand is owed at an exhaustive draw (查大叫); 0 if not ready."""
    return _module(rules.variant).ready_value(concealed, melds, rules, **kw)


def is_ready(concealed, melds, rules, **kw) -> bool:
    """听牌: some tile would complete the hand (as the variant counts it); cheaper
    than :func:`ready_value`, which is positive exactly when this holds."""
    return _module(rules.variant).is_ready(concealed, melds, rules, **kw)


def names(variant: str) -> dict[str, str]:
    """The Chinese name of each pattern key, as the variant's rulebook writes it."""
    return _module(variant).NAMES


def _module(variant: str):
    m = _MODULES.get(variant)  # a dict read: scoring is called on every win
    if m is not None:
        return m
    if variant == "yuxi":
        from mjlog.scoring import yuxi as m
    elif variant == "xuezhan":
        from mjlog.scoring import xuezhan as m
    elif variant == "huangmei":
        from mjlog.scoring import huangmei as m
    else:
        from mjlog.rules import check_variant

        check_variant(variant)
        raise AssertionError(variant)
    _MODULES[variant] = m
    return m


_MODULES: dict = {}
