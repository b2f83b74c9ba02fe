"""Calibration of ``mjlog compare``'s verdicts on real play (issue 47): does an A/A
comparison call a figure *differs* at most 5 % of the time, is *equivalent*
reachable for the headline figures and does it hold its level, and is an effect of
the MDE printed found four times in five in the comparison as run?

The seeded studies of ``tests/analysis/test_decide.py`` show these claims on
synthetic differences; here every comparison is of real engine play, decided as
``mjlog compare`` decides it: each metric's difference from
:func:`analysis.stats.compare_units` (paired by match on the same walls, Welch
otherwise), a rate's widened by :func:`analysis.rates.rate_difference`, a figure the
same on every paired match ``identical``, and the verdicts of
:func:`analysis.decide.decide_study` over them all (no ``--primary``, the default
margins unless a study says), as :func:`analysis.compare.paired_comparison` calls it.
The emulation is checked against ``paired_comparison`` on the pools themselves:
every verdict, p-value and MDE the same.

**The pools** (:mod:`research.calibration`'s machinery and cache): yuxi, ``greedy``
in every seat, 8 hands a match, ``--events none``. Pool A plays the default rules;
pool B the same seed's first matches with one rule changed, :data:`CHANGE` (七对
pays each payer one point more). greedy does not read the points, so B plays every
hand as A does and only the money differs: the draw rate and every pattern rate are
*identical* hand for hand, and the points figures carry a real, random effect whose
*truth* is the paired difference over all of B. Disjoint stretches of A compared
with each other (unpaired, as runs of two seeds) are the A/A comparisons; stretch k
of A against the same matches of pool F (:data:`ROTATION`, paired) the A/A of one
seed; stretch k of A against the same matches of B (paired) the known-effect ones.

    python research/verdict_calibration.py [--quick]
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from research.calibration import (  # noqa: E402
    AGENT,
    HPM,
    SEED,
    VARIANT,
    Pool,
    cpu_seconds,
    mc_error,
    play_pool,
    pool_spec,
    read_pool,
    stretches,
)

CHANGE = ("points.qidui=4/5",)
"""The rule change with a known effect (yuxi's default is 3/4: on a discard, self-drawn)."""

ROTATION = ("dealer_rotation=fixed",)
"""A rule change that cannot matter to the figures, yet changes play (the paired A/A):
the dealer keeps the deal, where yuxi passes it to the winner. With one agent in every
seat every hand's figures relative to its dealer have one distribution whoever
deals; on the same seed the first hand of every match is the same, then play
diverges (research/calibration.py, its pool F, measured its truth at 0)."""

FALSE_DIFFERS = 0.05  # A/A: a figure, or any figure, called differs at most this often
POWER = 0.8  # an effect of the printed MDE: shown off 0 this often
NEAR = (0.8, 1.25)
"""|truth| / the MDE printed counted as "about the MDE"."""


@dataclass(frozen=True)
class Plan:
    """Matches of pool A and of pool B (the first matches of A's seed, changed), and
    the two replicate sizes (matches a side)."""

    base: int
    changed: int
    fixed: int  # matches of pool F (dealer_rotation=fixed: the paired A/A)
    sizes: tuple[int, int]
    mde_sizes: tuple[int, ...]  # the sizes of the MDE study (one where the effect is near it)


FULL = Plan(base=16_000, changed=9_600, fixed=10_000, sizes=(40, 160), mde_sizes=(20, 40, 160))
QUICK = Plan(base=160, changed=80, fixed=80, sizes=(10, 20), mde_sizes=(10, 20))


# ------------------------------------------------------------------ compare, emulated


@dataclass(frozen=True)
class Row:
    """One metric of one comparison: the difference and compare's decision on it."""

    diff: float
    verdict: str
    differs_from_zero: bool
    mde: float
    p: float
    tests: int  # the tests adjusted together (the study's primary rows)


def compared(
    a: Pool,
    sa: slice,
    b: Pool,
    sb: slice,
    paired: bool,
    margins: Mapping[str, float] | None = None,
    base: float = 1.0,
    seen: set[str] | None = None,
    primary: tuple[str, ...] | None = None,
) -> dict[str, Row]:
    """What ``mjlog compare`` says of stretch ``sb`` of ``b`` against stretch ``sa``
    of ``a`` (the baseline): per metric both define (a pattern's rate where either
    stretch saw it, as compare lists the patterns the runs logged; or those of
    ``seen``), the row of ``analysis.compare`` and its verdict
    (:func:`analysis.decide.decide_study`; ``primary`` as ``--primary``)."""
    from analysis.decide import decide_study
    from analysis.rates import is_rate, rate_difference
    from analysis.stats import compare_units

    metrics, diffs, same = [], [], []
    for m, (y, x, unit) in a.arrays.items():
        yb, xb = y[sa], x[sa]
        yo, xo = b.arrays[m][0][sb], b.arrays[m][1][sb]
        logged = bool(yb.sum() or yo.sum()) if seen is None else m in seen
        if m.startswith("pattern_rate[") and not logged:
            continue
        identical = paired and np.array_equal(yb, yo) and np.array_equal(xb, xo)
        d = compare_units(yb, xb, yo, xo, paired, shared_walls=paired)
        if is_rate(unit) and not identical:
            d = rate_difference(d, yb, xb, yo, xo)
        metrics.append(m)
        diffs.append(d)
        same.append(bool(identical))
    hands = float(min(a.hands[sa].sum(), b.hands[sb].sum()))
    n = len(metrics)
    decided = decide_study(
        diffs, metrics, [hands] * n, margins, primary, identical=same, bases=[base] * n
    )
    tests = sum(
        1 for dec in decided if dec is not None and dec.verdict not in ("identical", "exploratory")
    )
    return {
        m: Row(d.diff, dec.verdict, dec.differs_from_zero, dec.mde, dec.p, tests)
        for m, d, dec in zip(metrics, diffs, decided, strict=True)
        if dec is not None
    }


def check_against_compare(a_dir: Path, b_dir: Path, a: Pool, b: Pool, base: float) -> float:
    """The emulation against ``analysis.compare.paired_comparison`` of the two pools
    (paired over B's matches): the largest gap in p, MDE or difference; a verdict
    that differs raises."""
    from analysis.compare import paired_comparison

    real = paired_comparison([a_dir, b_dir]).set_index("metric")
    # compare lists the patterns either run logged, in any match, paired or not
    seen = {m for p in (a, b) for m, (y, _x, _u) in p.arrays.items() if y.sum()}
    ours = compared(a, slice(0, b.matches), b, slice(0, b.matches), True, base=base, seen=seen)
    if set(real.index) != set(ours):
        raise RuntimeError(f"metrics differ from compare's: {sorted(real.index)} vs {sorted(ours)}")
    gap = 0.0
    for m, r in ours.items():
        row = real.loc[m]
        if row["verdict"] != r.verdict:
            raise RuntimeError(f"{m}: compare says {row['verdict']}, the emulation {r.verdict}")
        for got, want in ((r.p, row["p_adjusted"]), (r.mde, row["mde"]), (r.diff, row["diff"])):
            if not (math.isnan(got) and math.isnan(want)):
                gap = max(gap, abs(got - want))
    if gap > 1e-9:
        raise RuntimeError(f"the emulation differs from compare by {gap}")
    return gap


# ------------------------------------------------------------------ the studies


def aa(pool: Pool, size: int, base: float) -> list[dict[str, Row]]:
    """Pairs of disjoint stretches of ``size`` matches, compared unpaired (as runs of
    two seeds): the rows of every comparison."""
    s = stretches(pool.matches, size)
    return [
        compared(pool, x, pool, y, False, base=base) for x, y in zip(s[0::2], s[1::2], strict=False)
    ]


def known(
    a: Pool, b: Pool, size: int, base: float, margins: Mapping[str, float] | None = None
) -> list[dict[str, Row]]:
    """Stretch k of ``a`` against the same matches of ``b``, paired: every comparison's
    rows (at ``margins`` when given)."""
    return [compared(a, s, b, s, True, margins, base) for s in stretches(b.matches, size)]


def known_alone(a: Pool, b: Pool, size: int, base: float, metrics) -> list[dict[str, Row]]:
    """As :func:`known`, each of ``metrics`` decided as ``--primary METRIC`` alone
    (one test: its MDE at α, no adjustment): that metric's row of each comparison."""
    return [
        {m: compared(a, s, b, s, True, base=base, primary=(m,))[m] for m in metrics}
        for s in stretches(b.matches, size)
    ]


def truths(a: Pool, b: Pool) -> dict[str, object]:
    """Each metric's difference over all of ``b`` and the same matches of ``a``,
    paired (:func:`analysis.stats.compare_units`): the truth of the known effect."""
    from analysis.stats import compare_units

    n = b.matches
    return {
        m: compare_units(y[:n], x[:n], *b.arrays[m][:2], paired=True, shared_walls=True)
        for m, (y, x, _u) in a.arrays.items()
    }


def rotation_note(whole: Mapping[str, Row], matches: int) -> str:
    """What compare says of F against A over all their ``matches`` paired matches: the
    paired A/A's truth of 0, checked."""
    differ = [m for m, r in whole.items() if r.verdict == "differs"]
    p = min((r.p for r in whole.values() if math.isfinite(r.p)), default=math.nan)
    return (
        f"over all {matches:,} paired matches compare calls "
        + (f"{', '.join(differ)} *differs*" if differ else "no figure *differs*")
        + f" (smallest adjusted p {p:.2f}). "
    )


def expected_power(ratio: float, tests: int, units: int) -> float:
    """The chance a lone test at α / ``tests`` (the level the printed MDE is stated
    at) finds a true effect of ``ratio`` × that MDE, its standard error known:
    the noncentral t on ``units − 1`` degrees of freedom."""
    from scipy import stats as st

    from analysis.decide import ALPHA

    df = max(units - 1, 1)
    c = float(st.t.ppf(1 - ALPHA / max(tests, 1) / 2, df))
    delta = ratio * (c + float(st.t.ppf(POWER, df)))
    p = float(st.nct.sf(c, df, delta) + st.nct.cdf(-c, df, delta))
    if math.isfinite(p):
        return p
    # far past the MDE scipy's noncentral t gives up: the normal is exact enough there
    return float(st.norm.sf(c - delta) + st.norm.cdf(-c - delta))


def at_mde(
    reps: Mapping[int, list[dict[str, Row]]], effects: Mapping[str, float]
) -> list[dict[str, object]]:
    """Per size and figure with an effect: |truth| over the median MDE the comparisons
    printed (the MDE a designer sees at that size), the share shown off 0 in the
    truth's direction, and the power a lone test at the printed level would have
    (:func:`expected_power`). The median, not each comparison's own MDE: a
    comparison's MDE rests on its estimated standard error, which, for a difference
    as skewed as this one (a rare pattern's extra point, never negative), runs high
    with the difference itself, so ratios to their own MDE favour the found."""
    out: list[dict[str, object]] = []
    for size, comparisons in reps.items():
        for m, truth in effects.items():
            rows = [c[m] for c in comparisons if m in c and c[m].mde > 0]
            if not rows:
                continue
            printed = float(np.median([r.mde for r in rows]))
            tests = int(np.median([r.tests for r in rows]))
            ratio = abs(truth) / printed
            hits = [r.differs_from_zero and r.diff * truth > 0 for r in rows]
            out.append(
                {
                    "size": size,
                    "metric": m,
                    "mde": printed,
                    "ratio": ratio,
                    "n": len(rows),
                    "found": float(np.mean(hits)),
                    "expected": expected_power(ratio, tests, size),
                }
            )
    return out


def share(comparisons: list[dict[str, Row]], metric: str, what) -> tuple[float, int]:
    """The share of ``comparisons`` with a row for ``metric`` where ``what(row)``."""
    hits = [bool(what(rows[metric])) for rows in comparisons if metric in rows]
    return (float(np.mean(hits)) if hits else math.nan), len(hits)


def any_share(comparisons: list[dict[str, Row]], what) -> tuple[float, int]:
    """The share of ``comparisons`` where ``what`` holds for some row."""
    hits = [any(what(r) for r in rows.values()) for rows in comparisons]
    return (float(np.mean(hits)) if hits else math.nan), len(hits)


# ------------------------------------------------------------------ the section


def _pct(share_n: tuple[float, int], p: float) -> str:
    s, n = share_n
    if not n or math.isnan(s):
        return "—"
    return f"{100 * s:.1f} % ±{100 * mc_error(n, p):.1f}"


def _differs(r: Row) -> bool:
    return r.verdict == "differs"


def _off_zero(r: Row) -> bool:
    return r.differs_from_zero


def _equivalent(r: Row) -> bool:
    return r.verdict == "equivalent"


def identical_rows(runs: Mapping[int, list[dict[str, Row]]], pool: Pool) -> list[str]:
    """The metrics that every comparison of ``runs`` (of any size) with a row for them
    calls *identical*."""
    return [
        m
        for m in pool.arrays
        if (rows := [c[m] for reps in runs.values() for c in reps if m in c])
        and all(r.verdict == "identical" for r in rows)
    ]


def _at_most(checked: list, share_n: tuple[float, int], what: str, target: float) -> str:
    """A share with its Monte-Carlo error, bold past ``target``; noted in ``checked``."""
    text = _pct(share_n, target)
    if share_n[1] and not math.isnan(share_n[0]):
        checked.append((what, share_n[0], share_n[1], target))
        if share_n[0] > target:
            text = f"**{text}**"
    return text


def _fmt(A: Pool, m: str, v: float) -> str:
    """A figure as the tables print it: a rate in per cent, a difference in points."""
    from analysis.rates import is_rate

    return f"{100 * v:+.3f} %" if is_rate(A.arrays[m][2]) else f"{v:+.4f}"


def _intro_lines(r: dict, checked: list) -> list[str]:
    A, B, s1, s2, gap = r["A"], r["B"], r["s1"], r["s2"], r["gap"]
    fixed = r["fixed_matches"]
    seconds, cpu, play_cpu, cached = r["seconds"], r["cpu"], r["play_cpu"], r["cached"]
    lines = [
        "## Verdicts on real play: A/A, a known effect, and the MDE as printed (issue 47)\n",
        f"`python research/verdict_calibration.py` (`research/verdict_calibration.py`). "
        f"Real play: {VARIANT}, `{AGENT}` in every seat, {HPM} hands a match, "
        f"`--events none`, seed {SEED}. Pool A: {A.matches:,} matches "
        f"({int(A.hands.sum()):,} hands), default rules; pool B: the same seed's first "
        f"{B.matches:,} matches with `{' '.join(CHANGE)}` (七对 pays each payer one point "
        f"more; default 3/4). greedy does not read the points, so B plays every hand as A "
        f"does: its draw and pattern rates are *identical* hand for hand, and its points "
        f"figures carry a real effect, random from hand to hand, whose *truth* is the "
        f"paired difference over all of B. Pool F: the same seed's first {fixed:,} "
        f"matches with `{' '.join(ROTATION)}`, for an A/A on the same walls. Every comparison is decided as `mjlog compare` "
        f"decides it (analysis.stats.compare_units, analysis.rates.rate_difference, "
        f"*identical* rows, analysis.decide.decide_study over the rest, no `--primary`); "
        f"the emulation gives `analysis.compare.paired_comparison`'s verdict, adjusted "
        f"p-value and MDE on A against B to {gap:.0e}. Sizes: {s1} and {s2} matches a "
        f"side ({s1 * HPM} and {s2 * HPM:,} hands). ± after a share is its Monte-Carlo "
        f"error at the target (1.96·√(p(1 − p)/R), R replicates); **bold** is past its "
        f"target. Time: {seconds:.0f} s wall clock, {cpu:.0f} CPU seconds"
        + (
            f" with the pools cached (playing them took {play_cpu:.0f} CPU seconds)"
            if cached
            else f", of which {play_cpu:.0f} playing the pools"
        )
        + f", on {os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f} at the end).\n",
    ]
    return lines


def _aa_lines(r: dict, checked: list, key: str = "aa_runs") -> list[str]:
    from analysis.decide import equivalence_family

    plan, A, s1, s2, aa_runs = r["plan"], r["A"], r["s1"], r["s2"], r[key]
    headline = [m for m in A.arrays if equivalence_family(m) == "headline"]
    shown = [m for m in A.arrays if any(m in rows for rows in aa_runs[s1])]
    paired = key == "paired_aa"
    kind = "paired" if paired else "unpaired"
    lines = [
        "### A/A, the same seed: a rule change that cannot matter, paired\n"
        if paired
        else "### A/A: two runs of the same rules, other seeds\n",
        (
            f"Stretch k of A against the same matches of F (`{' '.join(ROTATION)}`: the "
            f"dealer keeps the deal; the first hand of every match is the same, then play "
            f"diverges), paired by match as `compare` pairs runs of one seed "
            f"({len(aa_runs[s1])} and {len(aa_runs[s2])} comparisons); " + r["rotation_truth"]
            if paired
            else f"Disjoint stretches of A compared unpaired, as `compare` compares runs of "
            f"two seeds ({len(aa_runs[s1])} and {len(aa_runs[s2])} comparisons). "
        )
        + f"*differs*: the "
        f"verdict; *off 0*: shown to differ from 0 (the verdict *differs*, or "
        f"*equivalent* by less than the margin); *equivalent*: the verdict, for the "
        f"headline family (`equivalence_family`: {', '.join(headline)}), whose right "
        f"answer here it is. Target: *differs* and *off 0* at most "
        f"{100 * FALSE_DIFFERS:.0f} % for each figure and for any figure of a comparison.\n",
        f"| metric | differs, {s1} m | off 0, {s1} m | equivalent, {s1} m "
        f"| differs, {s2} m | off 0, {s2} m | equivalent, {s2} m |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in shown:
        cells = []
        for s in plan.sizes:
            reps = aa_runs[s]
            cells += [
                _at_most(
                    checked,
                    share(reps, m, _differs),
                    f"A/A {kind} {m} differs, {s} m",
                    FALSE_DIFFERS,
                ),
                _at_most(
                    checked,
                    share(reps, m, _off_zero),
                    f"A/A {kind} {m} off 0, {s} m",
                    FALSE_DIFFERS,
                ),
                _pct(share(reps, m, _equivalent), FALSE_DIFFERS) if m in headline else "",
            ]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    cells = []
    for s in plan.sizes:
        reps = aa_runs[s]
        cells += [
            _at_most(
                checked,
                any_share(reps, _differs),
                f"A/A {kind} any figure differs, {s} m",
                FALSE_DIFFERS,
            ),
            _at_most(
                checked,
                any_share(reps, _off_zero),
                f"A/A {kind} any figure off 0, {s} m",
                FALSE_DIFFERS,
            ),
            "",
        ]
    lines.append("| **any figure** | " + " | ".join(cells) + " |")
    tests = {s: np.mean([next(iter(r.values())).tests for r in aa_runs[s]]) for s in plan.sizes}
    lines.append(
        f"\nTests adjusted together a comparison (Benjamini–Hochberg, every figure with "
        f"a row but an *identical* one): {tests[s1]:.1f} at {s1} matches, "
        f"{tests[s2]:.1f} at {s2}.\n"
    )

    return lines


def _known_lines(r: dict, checked: list) -> list[str]:
    plan, A, B, s1, s2, truth, effects, nulls, known_runs = (
        r["plan"],
        r["A"],
        r["B"],
        r["s1"],
        r["s2"],
        r["truth"],
        r["effects"],
        r["nulls"],
        r["known_runs"],
    )
    lines: list[str] = []
    lines += [
        f"### A known effect: `{' '.join(CHANGE)}`, paired\n",
        f"Stretch k of A against the same matches of B ({len(known_runs[s1])} and "
        f"{len(known_runs[s2])} comparisons), at the default margins. *Truth*: the paired "
        f"difference over all {B.matches:,} matches of B [95 % CI]; figures whose truth "
        f"excludes 0 carry the effect. *MDE*: the median of what the comparisons printed "
        f"(at the level the adjustment leaves, α / m); *off 0*: shown off 0 in the "
        f"truth's direction (verdict *differs*, or *equivalent* by less than the margin: "
        f"these effects are far inside the default margins, so the verdict is mostly "
        f"*equivalent*, rightly). Figures the change leaves the same on every match are "
        f"*identical* in every comparison and not listed.\n",
        f"| metric | truth [95 % CI] | MDE, {s1} m | off 0, {s1} m | equivalent, {s1} m "
        f"| MDE, {s2} m | off 0, {s2} m | equivalent, {s2} m |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in effects:
        d = truth[m]
        cells = []
        for s in plan.sizes:
            reps = known_runs[s]
            mdes = [rows[m].mde for rows in reps if m in rows]
            right = share(reps, m, lambda r, v=d.diff: r.differs_from_zero and r.diff * v > 0)
            cells += [
                _fmt(A, m, float(np.median(mdes))).lstrip("+") if mdes else "—",
                _pct(right, POWER),
                _pct(share(reps, m, _equivalent), POWER),
            ]
        lines.append(
            f"| {m} | {_fmt(A, m, d.diff)} [{_fmt(A, m, d.lo)}, {_fmt(A, m, d.hi)}] | "
            + " | ".join(cells)
            + " |"
        )
    if nulls:
        lines.append(
            "\nFigures the change moves on some hands but whose truth covers 0 ("
            + ", ".join(nulls)
            + "): called *differs* in "
            + "; ".join(
                f"{s} m: "
                + ", ".join(
                    f"{m} {_pct(share(known_runs[s], m, _differs), FALSE_DIFFERS)}" for m in nulls
                )
                for s in plan.sizes
            )
            + "."
        )
    identical = identical_rows(known_runs, A)
    lines.append(
        f"\n*identical* in every comparison, as they should be (B plays A's hands): "
        f"{', '.join(identical) or 'none'}.\n"
    )

    return lines


def _mde_lines(r: dict, checked: list) -> list[str]:
    as_run, alone = r["mde_as_run"], r["mde_alone"]
    lines = [
        "### The MDE as printed: an effect of that size is found four times in five\n",
        "Per size and figure with an effect: the truth over the median MDE the "
        "comparisons printed (*ratio*), the share shown off 0 in the truth's direction "
        "(*found*), and the power a lone test at the printed level would have "
        "(*expected*, the noncentral t). *As run*: every figure tested, the MDE at "
        "α / m; *`--primary` alone*: the same comparisons with `--primary METRIC` for "
        "each figure in turn (one test, the MDE at α). Target: where the ratio is "
        f"{NEAR[0]:g}–{NEAR[1]:g}, found at least as often as expected (which is "
        f"{100 * POWER:.0f} % at a ratio of 1): the MDE printed is not optimistic.\n",
        "| metric | matches a side | as run: MDE | ratio | found | expected "
        "| `--primary` alone: MDE | ratio | found | expected |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for x, y in zip(as_run, alone, strict=True):
        cells = [x["metric"], str(x["size"])]
        for z, how in ((x, "as run"), (y, "--primary alone")):
            cells += [
                f"{z['mde']:.4f}",
                f"{z['ratio']:.2f}",
                _pct((z["found"], z["n"]), POWER),
                f"{100 * z['expected']:.1f} %",
            ]
            if NEAR[0] <= z["ratio"] < NEAR[1]:
                what = f"found at the MDE, {z['metric']}, {z['size']} m, {how}"
                checked.append((what, z["found"], z["n"], -z["expected"]))
        lines.append("| " + " | ".join(cells) + " |")
    above = sorted(
        {
            x["size"]
            for x in as_run
            if x["ratio"] >= 0.5 and x["found"] > x["expected"] + mc_error(x["n"], POWER)
        }
    )
    if above:
        lines.append(
            f"\nAs run at {' and '.join(map(str, above))} matches the effect is found more "
            "often than a lone test would: the points figures carry one effect together "
            "(七对's extra point moves the points per payer, the total and the money moved "
            "on the same hands), and once one of them is found Benjamini–Hochberg tests "
            "the next at 2α / m, then 3α / m; the MDE is stated for a lone finding "
            "(α / m), the least the comparison promises.\n"
        )
    return lines


def _edge_lines(r: dict, checked: list) -> list[str]:
    plan, A, s1, s2 = r["plan"], r["A"], r["s1"], r["s2"]
    at_truth, edge_runs = r["at_truth"], r["edge_runs"]
    lines: list[str] = []
    lines += [
        "\n### *equivalent* holds its level: a margin equal to the truth\n",
        "The same paired comparisons with `--margin METRIC=|truth|` for each figure "
        "with an effect: the truth lies on the margin, so *equivalent* is a false "
        f"claim; target: at most {100 * FALSE_DIFFERS:.0f} % (the level of the one-sided "
        "tests).\n",
        f"| metric | margin | equivalent, {s1} m | equivalent, {s2} m |",
        "|---|---|---|---|",
    ]
    for m, v in at_truth.items():
        cells = [
            _at_most(
                checked,
                share(edge_runs[s], m, _equivalent),
                f"equivalent at the margin {m}, {s} m",
                FALSE_DIFFERS,
            )
            for s in plan.sizes
        ]
        lines.append(f"| {m} | {_fmt(A, m, v).lstrip('+')} | " + " | ".join(cells) + " |")

    return lines


def run(quick: bool = False) -> dict:
    plan = QUICK if quick else FULL
    t0, c0 = time.perf_counter(), cpu_seconds()
    rules = pool_spec(plan.base).rules
    base = float(rules["base"])
    patterns = list(rules.spec.patterns(rules))
    a_dir, a_took = play_pool(plan.base)
    b_dir, b_took = play_pool(plan.changed, CHANGE)
    f_dir, f_took = play_pool(plan.fixed, ROTATION)
    A, B, F = (read_pool(d, patterns) for d in (a_dir, b_dir, f_dir))
    gap = check_against_compare(a_dir, b_dir, A, B, base)
    s1, s2 = plan.sizes

    truth = truths(A, B)
    effects = {m: d.diff for m, d in truth.items() if d.lo > 0 or d.hi < 0}
    nulls = [m for m, d in truth.items() if not (d.lo > 0 or d.hi < 0) and d.paired_se > 0]
    at_truth = {m: abs(v) for m, v in effects.items()}

    aa_runs = {s: aa(A, s, base) for s in plan.sizes}
    paired_aa = {s: known(A, F, s, base) for s in plan.sizes}
    whole = compared(A, slice(0, F.matches), F, slice(0, F.matches), True, base=base)
    rotation_truth = rotation_note(whole, F.matches)
    known_runs = {s: known(A, B, s, base) for s in plan.sizes}
    edge_runs = {s: known(A, B, s, base, at_truth) for s in plan.sizes}
    mde_runs = {s: known_runs.get(s) or known(A, B, s, base) for s in plan.mde_sizes}
    mde_as_run = at_mde(mde_runs, effects)
    mde_alone = at_mde({s: known_alone(A, B, s, base, effects) for s in plan.mde_sizes}, effects)
    seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    play_cpu = sum(t.get("cpu", math.nan) for t in (a_took, b_took, f_took))
    cached = a_took["cached"] and b_took["cached"] and f_took["cached"]

    r = dict(
        plan=plan,
        A=A,
        B=B,
        s1=s1,
        s2=s2,
        truth=truth,
        effects=effects,
        nulls=nulls,
        at_truth=at_truth,
        aa_runs=aa_runs,
        paired_aa=paired_aa,
        fixed_matches=F.matches,
        rotation_truth=rotation_truth,
        known_runs=known_runs,
        edge_runs=edge_runs,
        mde_as_run=mde_as_run,
        mde_alone=mde_alone,
        gap=gap,
        seconds=seconds,
        cpu=cpu,
        play_cpu=play_cpu,
        cached=cached,
    )
    checked: list[tuple[str, float, int, float]] = []  # (what, share, reps, target)
    lines = [
        *_intro_lines(r, checked),
        *_aa_lines(r, checked),
        *_aa_lines(r, checked, "paired_aa"),
        *_known_lines(r, checked),
        *_mde_lines(r, checked),
        *_edge_lines(r, checked),
    ]
    lines += ["\n### Against the targets\n"]
    lines += _summary(checked)
    return {
        "section": "\n".join(lines) + "\n",
        "aa": aa_runs,
        "paired_aa": paired_aa,
        "rotation": whole,
        "known": known_runs,
        "edge": edge_runs,
        "mde_as_run": mde_as_run,
        "mde_alone": mde_alone,
        "effects": effects,
        "identical": identical_rows(known_runs, A),
        "checked": checked,
        "gap": gap,
    }


def _summary(checked: list[tuple[str, float, int, float]]) -> list[str]:
    """Each target met or not; a miss within its Monte-Carlo error said so. A
    negative target is a floor (at least), a positive one a ceiling."""
    met, out = 0, []
    for what, s, n, target in checked:
        floor = target < 0
        t = abs(target)
        ok = s >= t if floor else s <= t
        if ok:
            met += 1
            continue
        near = abs(s - t) <= mc_error(n, t)
        out.append(
            f"  - {what}: {100 * s:.1f} % (R = {n}), target {'at least' if floor else 'at most'}"
            f" {100 * t:.1f} %" + (", within its Monte-Carlo error" if near else "")
        )
    return [f"- {met} of {len(checked)} figures meet their target", *out]


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv)["section"])
