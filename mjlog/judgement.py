"""One judgement: every verdict word of ``compare``, ``balance`` and ``tune``, the test
each word states, and the one level they are all at.

**One level.** Every test is at α = :data:`ALPHA` (5 %). Equivalence within a margin
and a target within a tolerance are the same question, asked by two one-sided tests
at α each (TOST), which is the same as the 1 − 2α = :data:`INTERVAL` (90 %) interval
lying inside the band; a one-sided target ``<= V`` (``>= V``) is the one-sided test
at α, that interval's upper (lower) bound on the right side of ``V``:

- a difference is ``equivalent`` when its TOST p-value (``analysis.decide.tost``,
  adjusted within its family of the study) is under α (:func:`of_difference`);
- a target ``V ± T`` is ``met`` when its 90 % interval lies inside ``[V − T, V + T]``
  (the same TOST, the tolerance as its margin), ``not met`` when that interval lies
  wholly outside (the one-sided test at α that the figure is on the far side of the
  band), else ``inconclusive`` (:func:`of_target`);
- a difference ``differs`` when the two-sided test of "no difference" is under α.

The intervals a reader is shown stay 95 % (``analysis.stats.LEVEL``: what a figure is
known to), a figure's uncertainty; a verdict reads the 90 % interval, since that is
what a test at 5 % on each side says. ``mjlog tune`` shows both: ``lo``/``hi`` at
95 %, ``judged_lo``/``judged_hi`` at 90 %, the pair its verdict reads.

**Why here, in the core.** The docs generator (:mod:`mjlog.docs`, which
``tests/house/test_docs.py`` checks) writes docs/cli.md's verdict table from
:data:`MEANINGS`, and may not import ``analysis``; as :mod:`mjlog.metrics` holds the
margins ``analysis.decide`` applies, this module holds the level, the words and the
rules that turn a test into a word. The tests' arithmetic (Student's t for TOST, a
rate's interval at a level) stays in ``analysis.decide`` and ``analysis.rates``,
which read :data:`ALPHA` and :data:`INTERVAL` from here, as ``mjlog tune``'s sizing
reads :data:`Z` (a target it calls confirmable is one this test can call ``met``).

Verdicts are a :class:`Verdict` (a ``str``): JSON writes the very strings it always
wrote, and a verdict read back from JSON is equal to its member.

>>> import json
>>> json.dumps({"verdict": Verdict.NOT_MET}), Verdict("not met") is Verdict.NOT_MET
('{"verdict": "not met"}', True)
>>> of_target(0.041, 0.059, "=", 0.05, 0.01), of_target(0.061, 0.07, "=", 0.05, 0.01)
(<Verdict.MET: 'met'>, <Verdict.NOT_MET: 'not met'>)
>>> of_difference(p=0.2, p_equivalence=0.01), of_difference(p=0.01, p_equivalence=0.3)
(<Verdict.EQUIVALENT: 'equivalent'>, <Verdict.DIFFERS: 'differs'>)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from statistics import NormalDist

__all__ = [
    "ALPHA",
    "INTERVAL",
    "MEANINGS",
    "Meaning",
    "Verdict",
    "Z",
    "met",
    "of_difference",
    "of_target",
    "table",
]

ALPHA = 0.05
"""The level of every test: ``differs`` (two-sided), each one-sided test of
``equivalent`` and of ``met``/``not met``."""

INTERVAL = round(1 - 2 * ALPHA, 12)
"""The interval a verdict reads (90 %): inside a band ⇔ both one-sided tests at α."""

Z = NormalDist().inv_cdf(1 - ALPHA)
"""z of one one-sided test at α (1.645): the half-width of the :data:`INTERVAL`
interval in standard errors, for a large sample."""


class Verdict(StrEnum):
    """Every verdict word, its value exactly the JSON string."""

    IDENTICAL = "identical"
    EQUIVALENT = "equivalent"
    DIFFERS = "differs"
    INCONCLUSIVE = "inconclusive"
    EXPLORATORY = "exploratory"
    MET = "met"
    NOT_MET = "not met"


@dataclass(frozen=True)
class Meaning:
    """What a verdict word states, for the docs table (:func:`table`)."""

    test: str  # the test it states
    level: str  # at what level
    text: str  # how the text output writes it
    commands: str  # which commands say it


_A, _I = f"{ALPHA * 100:g} %", f"{INTERVAL * 100:g} %"  # as the docs write them: 5 %
_ONE_SIDED = f"each one-sided test at {_A} (the {_I} interval)"

MEANINGS: dict[Verdict, Meaning] = {
    Verdict.IDENTICAL: Meaning(
        "paired runs (the same walls) measure the figure the same on every match: no "
        "hand of the sample tells the two apart",
        "none: a fact, not a test",
        "`identical: all N hands alike`, `identical on every one of N matches`",
        "`compare`, `tune` (side effects)",
    ),
    Verdict.EQUIVALENT: Meaning(
        "the difference lies within ±margin: two one-sided t tests (TOST), the "
        f"{_I} interval inside the margin, p adjusted within its family",
        _ONE_SIDED,
        "`equivalent ±M` (compare, tune), `equivalent (TOST p_adj P)` (balance); "
        "`(differs from 0, by less than the margin)` when it is",
        "`compare`, `balance`, `tune` (side effects, `vs_rulebook`)",
    ),
    Verdict.DIFFERS: Meaning(
        "not equivalent, and the difference is not 0: two-sided t test, p adjusted "
        "(Benjamini–Hochberg) over the study",
        f"{_A}, two-sided",
        "`differs` (`DIFFERS` in tune's text)",
        "`compare`, `balance`, `tune` (side effects, `vs_rulebook`)",
    ),
    Verdict.INCONCLUSIVE: Meaning(
        "no test decides: a difference neither `equivalent` nor `differs`, a target "
        "neither `met` nor `not met`; compare and balance add about how many hands "
        "would settle it",
        "that of the tests none of which passed",
        "`inconclusive: ~N more hands` (compare), `inconclusive (smallest detectable "
        "D…)` (balance), `INCONCLUSIVE` (a tune target)",
        "`compare`, `balance`, `tune`",
    ),
    Verdict.EXPLORATORY: Meaning(
        "a figure outside `--primary`: looked at, not tested",
        "none: no test",
        "`exploratory`",
        "`compare`",
    ),
    Verdict.MET: Meaning(
        f"a target `V ± T`: the {_I} interval inside `[V − T, V + T]` (TOST, "
        f"the tolerance as margin); `<= V`: its upper bound at most `V`; `>= V`: its "
        "lower bound at least `V`",
        _ONE_SIDED,
        "`MET`",
        "`tune`",
    ),
    Verdict.NOT_MET: Meaning(
        f"a target's {_I} interval wholly outside `[V − T, V + T]` (or on the "
        "wrong side of a one-sided `V`)",
        _ONE_SIDED,
        "`NOT MET`",
        "`tune`",
    ),
}


def of_difference(p: float, p_equivalence: float) -> Verdict:
    """The verdict of a difference from its (adjusted) p-values: ``equivalent`` when
    TOST's is under :data:`ALPHA` (the margin is the question: answered, shown off 0
    or not), else ``differs`` when the two-sided one is, else ``inconclusive``. A NaN
    p passes no test."""
    if p_equivalence < ALPHA:
        return Verdict.EQUIVALENT
    if p < ALPHA:
        return Verdict.DIFFERS
    return Verdict.INCONCLUSIVE


def of_target(lo: float, hi: float, op: str, value: float, tol: float | None) -> Verdict:
    """The verdict of a target ``op value (± tol)`` from the figure's :data:`INTERVAL`
    interval ``[lo, hi]``: ``met`` when it satisfies the target, ``not met`` when it
    lies wholly on the wrong side, else ``inconclusive`` (and without an interval).

    >>> of_target(0.03, 0.045, "<=", 0.05, None), of_target(0.03, 0.06, ">=", 0.05, None)
    (<Verdict.MET: 'met'>, <Verdict.INCONCLUSIVE: 'inconclusive'>)
    """
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return Verdict.INCONCLUSIVE
    if op == "=":
        band = (value - (tol or 0.0), value + (tol or 0.0))
        if band[0] <= lo and hi <= band[1]:
            return Verdict.MET
        outside = hi < band[0] or lo > band[1]
    elif op == "<=":
        if hi <= value:
            return Verdict.MET
        outside = lo > value
    else:
        if lo >= value:
            return Verdict.MET
        outside = hi < value
    return Verdict.NOT_MET if outside else Verdict.INCONCLUSIVE


def met(v: Verdict) -> bool | None:
    """A target's verdict as tune's JSON ``met``: true, false, or null (inconclusive)."""
    return {Verdict.MET: True, Verdict.NOT_MET: False}.get(v)


def table() -> str:
    """The verdict table of docs/cli.md (``make docs``)."""
    rows = [
        "| verdict | JSON | the test it states | level | text | said by |",
        "|---|---|---|---|---|---|",
    ]
    for v, m in MEANINGS.items():
        rows.append(
            f'| *{v.value}* | `"{v.value}"` | {m.test} | {m.level} | {m.text} | {m.commands} |'
        )
    return "\n".join(rows)
