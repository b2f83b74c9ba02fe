"""Every side effect of a proposal: the proposal against the rules as they are, paired
on the confirmation's walls, on every figure ``mjlog compare`` has, through compare's
own decision (:func:`analysis.compare.paired_comparison`: one Benjamini–Hochberg
adjustment over all the figures, each ``equivalent`` within its margin, ``differs`` or
``inconclusive``). A target's margin is its tolerance (a proposal that moves a target
by less than the tolerance the designer gave cannot be told from the rulebook on it);
every other figure keeps compare's default margin.

And where a changed pattern value now stands in its table (:func:`standing`), and the
containment orders a point breaks (:func:`broken_order`): a pattern never pays less
than one it contains (the variant's families, as ``--rescore`` keeps them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from analysis.studies.pattern_table import containment, level, pays_at_least, value_key
from analysis.studies.tune.grammar import Target
from analysis.studies.tune.journal import finite
from mjlog.errors import InputError
from mjlog.judgement import Verdict
from mjlog.rules import keys
from mjlog.variants import get_variant

VERDICT_ORDER = {
    Verdict.DIFFERS: 0,
    Verdict.INCONCLUSIVE: 1,
    Verdict.EQUIVALENT: 2,
    Verdict.IDENTICAL: 3,
}
"""How the side effects are listed: those that differ first."""


def compared(before: str | Path, after: str | Path, targets: Sequence[Target]) -> list[dict]:
    """Each figure of compare, after − before, paired: ``{metric, unit, before, after,
    diff, lo, hi, verdict, margin}`` in compare's order."""
    from analysis import compare

    margins = {t.metric: t.tol for t in targets if t.tol is not None}
    try:
        df = compare.paired_comparison([before, after], margins=margins)
    except InputError:  # a target compare does not have under these names: its default
        df = compare.paired_comparison([before, after])
    out = []
    for r in df.to_dict("records"):
        if not r["comparable"]:
            continue
        out.append(
            {
                "metric": r["metric"],
                "unit": r["unit"],
                "before": _f(r["baseline"]),
                "after": _f(r["value"]),
                "diff": _f(r["diff"]),
                "lo": _f(r["lo"]),
                "hi": _f(r["hi"]),
                "verdict": r["verdict"],
                "margin": _f(r["margin"]),
            }
        )
    return out


def _f(v: Any) -> float | None:
    return None if v is None else finite(float(v))


def side_effects(rows: Sequence[Mapping[str, Any]], targets: Sequence[Target]) -> list[dict]:
    """The figures that are not targets, those that differ first (then inconclusive,
    then equivalent; compare's order within each)."""
    wanted = {t.metric for t in targets}
    rest = [dict(r) for r in rows if r["metric"] not in wanted]
    return sorted(rest, key=lambda r: VERDICT_ORDER.get(r["verdict"], 3))


# ------------------------------------------------------------------ the pattern table
def _table(rules: Any) -> dict[str, str]:
    """Each pattern value key of the rules' variant → its pattern."""
    pats = get_variant(rules.variant).patterns(rules)
    return {value_key(rules.variant, p): p for p in pats}


def standing(rules: Any, point: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Where each changed pattern value of ``point`` stands in its table (the other
    values as ``rules`` have them): the patterns it now pays more than that paid at
    least as much before (``passes``), and less than that paid no more
    (``falls_below``).

    >>> from mjlog.rules import resolve
    >>> s = standing(resolve("huangmei"), {"fan.qidui": 40})["fan.qidui"]
    >>> s["was"], s["value"], "quanqiuren (30)" in s["passes"]
    ('15', '40', True)
    """
    pats = _table(rules)
    table = keys(rules.variant)
    now = {k: point.get(k, rules[k]) for k in pats}
    out = {}
    for k, new in point.items():
        if k not in pats or new == rules[k]:
            continue
        rk = table[k]
        lv_new, lv_old = level(rk, new), level(rk, rules[k])
        passes, falls = [], []
        for other, p in pats.items():
            if other == k:
                continue
            lv, lv_was = level(table[other], now[other]), level(table[other], rules[other])
            shown = f"{p} ({table[other].show(now[other])})"
            if lv_new > lv and lv_old <= lv_was:
                passes.append(shown)
            elif lv_new < lv and lv_old >= lv_was:
                falls.append(shown)
        out[k] = {
            "pattern": pats[k],
            "value": rk.show(new),
            "was": rk.show(rules[k]),
            "passes": passes,
            "falls_below": falls,
        }
    return out


def broken_order(rules: Any, point: Mapping[str, Any]) -> list[str]:
    """The containments ``point`` (the other values as ``rules`` have them) breaks:
    ``"A (x) < B (y)"`` where pattern A contains B but would pay less.

    >>> from mjlog.rules import resolve
    >>> broken_order(resolve("huangmei"), {"fan.qidui": 15})
    []
    """
    pats = _table(rules)
    if not set(point) & set(pats):
        return []
    table = keys(rules.variant)
    now = {k: point.get(k, rules[k]) for k in pats}
    out = []
    for big, smalls in containment(rules).items():
        kb = value_key(rules.variant, big)
        for small in smalls:
            ks = value_key(rules.variant, small)
            if {kb, ks} & set(point) and not pays_at_least(table[kb], now[kb], now[ks]):
                out.append(
                    f"{big} ({table[kb].show(now[kb])}) < {small} ({table[ks].show(now[ks])})"
                )
    return out
