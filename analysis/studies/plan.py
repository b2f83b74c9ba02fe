"""Planning a study before running it: how many hands a question needs, and how long.

A *question* is a metric of :data:`analysis.queries.COMPARE_METRICS` and either a
difference to detect (``detect``: the comparison should show it differs from 0
four times in five when the true difference is that large, a two-sided t test at
α = 5 %; its verdict *differs* unless that is within the margin)
or an equivalence margin (``margin``: the two one-sided tests should say
*equivalent* four times in five when the true difference is 0), or a *level*
(``within``: one run whose figure should be shown within ±``within`` of its true
value four times in five, the test of :func:`mjlog.judgement.met` that ``mjlog
tune`` confirms a target ``V ± T`` by: its 90 % interval inside the band). These are the
tests :mod:`analysis.decide` ends a comparison in, at its :data:`~analysis.decide.
ALPHA` and :data:`~analysis.decide.POWER`; the matches a side needs are the
fewest ``m`` with

    ``(t₁₋α/₂ + t_power) · sd / √m ≤ detect``     (differs: :func:`analysis.decide.mde`)
    ``(t₁₋α + t₁₋₍₁₋power₎/₂) · sd / √m ≤ margin`` (equivalent: TOST at 0)
    ``(t₁₋α + t₁₋₍₁₋power₎/₂) · sd / √m ≤ within`` (a level: TOST at its truth)

on ``m − 1`` degrees of freedom (paired) or ``2(m − 1)`` (unpaired), where ``sd``
is the spread of one unit's difference (for a level: of one unit's figure, one run,
no second side), measured on a *pilot*:

- **one pilot run** (a run directory or a sweep point): each side's per-match
  spread is the pilot's (the pseudo-values of :mod:`analysis.stats`; a rate's at
  least the binomial one), and a difference of two independent sides has ``√2``
  times it. Paired by match, the difference is narrower by the correlation of
  the two settings on the same walls, which one run cannot show: it is taken as
  0, so a paired plan from one run is an upper bound, and says so;
- **two pilot runs** (or a sweep folder: its first two points), the comparison
  :mod:`analysis.queries` makes of them gives the paired (or unpaired) standard
  error directly.

Time comes from timing a few hands of the pilot's variant, rules and agents here
(the manifest records no timing: it is byte-identical wherever it was played),
and is linear in shards: ``N`` workers play a side's shards ``N`` at a time.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path

from scipy import stats as st

from analysis import compare, queries
from analysis.decide import ALPHA, POWER
from analysis.rates import is_rate, metric_estimate
from mjlog.errors import InputError, MjlogError, quote
from mjlog.metrics import names, pattern_of, patterns_in
from simulate.estimate import seconds_per_hand

__all__ = ["Plan", "Spread", "matches_needed", "plan", "seconds_per_hand", "spread"]

MAX_MATCHES = 2**31
"""A plan past this many matches a side is not a plan (a match index is int32)."""


@dataclass(frozen=True)
class Spread:
    """The spread of one unit's difference (``sd``) the pilot shows, and how it was
    measured: ``paired`` (whether the plan pairs by match), ``measured`` (whether a
    pairing gain was measured, two runs on the same walls), ``how`` (one line)."""

    metric: str
    unit: str
    sd: float
    paired: bool
    measured: bool
    how: str


@dataclass(frozen=True)
class Plan:
    """The answer: ``matches`` (and ``hands``) a side, both sides ``total_hands``, the
    ``shards`` a side, and the time on ``workers`` (``seconds``) and on one; the
    times are None when no hand could be timed (``timing`` says why)."""

    metric: str
    unit: str
    question: str  # detect | equivalence | level
    effect: float  # the difference to detect, the margin, or the level's ±within
    paired: bool
    pairing_measured: bool  # False: one pilot run, no pairing gain assumed
    sd: float
    how: str
    matches: int
    hands: int
    total_hands: int
    shards: int
    seconds_per_hand: float | None
    seconds: float | None
    seconds_one_worker: float | None
    workers: int
    timing: str
    pilot: list[str]

    @property
    def compare_as(self) -> str:
        """How the comparison must be run for this size to hold: the metric as the
        study's one primary, so that its test is at α itself (a default compare adjusts
        over every metric, and its level is α / m: docs/cli.md, "mjlog compare").
        A level is one run's figure, judged as ``mjlog tune`` judges a target."""
        if self.question == "level":
            return f"mjlog tune ... --target '{self.metric}=V±{self.effect:g}'"
        return f"mjlog compare RUN_A RUN_B --primary {self.metric}"

    def as_dict(self) -> dict:
        return {**asdict(self), "alpha": ALPHA, "power": POWER, "compare_as": self.compare_as}


def _quantiles(equivalence: bool) -> tuple[float, float]:
    if equivalence:  # TOST at a true difference of 0: each one-sided test at α
        return 1 - ALPHA, 1 - (1 - POWER) / 2
    return 1 - ALPHA / 2, POWER


def matches_needed(sd: float, effect: float, equivalence: bool = False, paired: bool = True) -> int:
    """The fewest matches a side for the question (module docstring): a difference
    ``effect`` detected, or equivalence within ±``effect``, at 80 % power.

    >>> matches_needed(1.0, 0.5)            # (1.96 + 0.84)² / 0.5² ≈ 31.4, t adds 2
    34
    >>> matches_needed(1.0, 0.5, equivalence=True)
    36
    """
    if not (sd > 0 and effect > 0):
        raise ValueError("sd and effect must be above 0")
    q1, q2 = _quantiles(equivalence)
    z = st.norm.ppf(q1) + st.norm.ppf(q2)
    ratio = float(z) * float(sd) / float(effect)  # Python floats: inf, not an overflow
    if not math.isfinite(ratio * ratio) or ratio * ratio >= MAX_MATCHES:
        return MAX_MATCHES  # beyond any run (--detect 1e-300): the caller says so
    m = max(2, math.ceil(ratio * ratio))

    def enough(m: int) -> bool:
        df = m - 1 if paired else 2 * (m - 1)
        return (st.t.ppf(q1, df) + st.t.ppf(q2, df)) * sd / math.sqrt(m) <= effect

    if m >= MAX_MATCHES:
        return m
    while not enough(m):  # the t quantiles exceed z's: a few matches more
        m += 1
    return m


def _sides(paths: list[str | Path]) -> list[Path]:
    sides = [p for given in paths for p, _ in queries.expand_paths(Path(given))]
    return list(dict.fromkeys(sides))


def spread(
    paths: list[str | Path], metric: str, paired: bool = True, level: bool = False
) -> Spread:
    """The spread of a unit's difference in ``metric`` from the pilot ``paths`` (one
    run, or two: module docstring); ``level``: of a unit's figure, from the first."""
    sides = _sides(paths)
    base = queries.Runs(sides[0])
    _check_metric(base, metric)
    if len(sides) == 1 or level:
        units, pats = compare.match_units(base)
        if len(units) < 2:
            raise InputError(
                f"{sides[0]}: {len(units)} match; a pilot needs two at least to show a spread"
            )
        y, x, unit = compare.metric_arrays(units, pats, patterns_in([metric]))[metric]
        e = metric_estimate(y, x, unit)
        se = e.se
        if is_rate(unit) and x.sum() > 0:  # a rate spreads at least as a binomial one
            se = math.sqrt(max(se**2, e.value * (1 - e.value) / x.sum()))
        # a difference of two independent sides spreads √2 times one side
        sd = (1.0 if level else math.sqrt(2)) * se * math.sqrt(len(units))
        if not sd > 0:
            raise MjlogError(
                f"{sides[0]}: {metric} does not vary in the pilot "
                f"({_seen(e, unit)}): nothing to size a study from; run a "
                f"longer pilot"
            )
        if level:
            how = f"one pilot run, {len(units)} matches: a match's spread is the pilot's"
            return Spread(metric, unit, sd, False, False, how)
        how = f"one pilot run, {len(units)} matches: a side's spread is the pilot's; " + (
            "paired, the pairing gain not measured (taken as none: an upper bound; "
            "a second run on the same seed measures it)"
            if paired
            else "unpaired"
        )
        return Spread(metric, unit, sd, paired, False, how)
    rows = compare.paired_comparison(sides[:2])
    rows = rows[rows.metric == metric]
    if rows.empty:
        raise InputError(f"{metric}: not a figure both pilot runs measure")
    r = rows.iloc[0]
    is_paired = bool(r.paired) and paired
    se = r.paired_se if is_paired else r.unpaired_se
    sd = float(se) * math.sqrt(int(r.units))
    if not sd > 0:
        raise MjlogError(
            f"{metric} does not differ from match to match in the pilot runs: "
            f"nothing to size a study from; run a longer pilot"
        )
    how = (
        f"two pilot runs, {int(r.units)} matches paired by their walls: the paired spread measured"
        if is_paired
        else f"two pilot runs compared unpaired ({int(r.units)} matches on the smaller side"
        + (
            "; they deal no shared walls, so the pairing gain cannot be measured)"
            if paired
            else ")"
        )
    )
    return Spread(metric, str(r.unit), sd, is_paired, is_paired, how)


def _seen(e, unit: str) -> str:
    if is_rate(unit):
        return f"{e.count} of {e.trials}, upper 95% bound {e.hi:.3g}"
    return f"{e.value:.4g} in every match"


def _check_metric(runs: queries.Runs, metric: str) -> None:
    """Refuse a metric the pilot cannot have, naming the valid ones."""
    run = runs.runs[0]
    rules = queries.rules_of_run(runs, run)
    if rules is None:
        raise InputError(f"{run.path}: its rules are not this mjlog's; cannot plan from it")
    valid = names(rules.n, rules.spec.patterns(rules))
    if metric not in valid:
        patterns = [m for m in valid if pattern_of(m) is not None]
        raise InputError(
            f"unknown --metric {quote(metric)} for {run.variant} with "
            f"{rules.n} players; valid: "
            f"{', '.join(m for m in valid if m not in patterns)}, "
            f"pattern_rate[KEY] (say {patterns[0]})"
        )


def _how_unalike(a: queries.Run, b: queries.Run) -> str:
    """What two pilots are played with that differs: their variant, line-up, match
    length or duplicate play ('' when none)."""
    fields = ("variant", "agents", "hands_per_match", "duplicate")
    return ", ".join(f for f in fields if getattr(a, f) != getattr(b, f))


def _played_alike(a: queries.Run, b: queries.Run) -> bool:
    """Whether a hand of either pilot takes as long to play (the same variant,
    line-up, match length and duplicate play; rules may differ)."""
    return not _how_unalike(a, b)


def _spec(run: queries.Run, matches: int):
    """The pilot's run as a :class:`simulate.runner.RunSpec` of ``matches`` matches
    (its layout too), or an :class:`InputError` saying why it cannot be played."""
    from mjlog.logio import read_manifest
    from mjlog.rules import Rules
    from simulate.runner import RunSpec

    m = read_manifest(run.path)
    if run.seed is None or m.get("imported"):
        raise InputError("an imported run: its agents cannot be played here")
    rules = Rules.recorded(run.variant, m.get("rules") or {})
    from simulate.agents import make_agents

    make_agents(list(run.agents))
    return RunSpec(
        rules,
        run.seed,
        matches,
        run.hands_per_match,
        tuple(run.agents),
        run.duplicate,
        run.events,
        int(m.get("hands_per_shard") or 2000),
    )


def plan(
    paths: list[str | Path],
    metric: str,
    detect: float | None = None,
    margin: float | None = None,
    paired: bool = True,
    workers: int = 1,
    time_hands: int = 16,
    within: float | None = None,
) -> Plan:
    """The plan for one question on the pilot ``paths`` (module docstring): exactly
    one of ``detect``, ``margin`` and ``within``, each a finite number above 0;
    ``time_hands`` hands timed here (0: none)."""
    asked = {"--detect": detect, "--margin": margin, "--within": within}
    given = [(k, v) for k, v in asked.items() if v is not None]
    if len(given) != 1:
        raise InputError(
            "give one question: --detect DIFFERENCE, --margin MARGIN or --within TOLERANCE"
        )
    name, effect = given[0]
    if not (isinstance(effect, (int, float)) and math.isfinite(effect) and effect > 0):
        raise InputError(f"{name} must be a finite number above 0, got {quote(effect)}")
    if not workers >= 1:
        raise InputError(f"--workers must be at least 1, got {quote(workers)}")
    level = within is not None
    equivalence = margin is not None or level  # a level is TOST around its own truth
    s = spread(paths, metric, paired, level=level)
    m = matches_needed(s.sd, effect, equivalence, s.paired or level)
    if m >= MAX_MATCHES:
        raise MjlogError(
            f"{metric}: {'more than' if m == MAX_MATCHES else 'about'} {m:.3g} matches a "
            f"side; no run holds that many "
            f"(ask for a larger {name})"
        )
    pilots = [queries.Runs(p).runs[0] for p in _sides(paths)[: 1 if level else 2]]
    run = pilots[0]
    per_match = run.hands // max(run.matches, 1)  # rotations included (duplicate play)
    hands = m * per_match
    sides = 1 if level else 2
    timing = "not timed (--time-hands 0)"
    sph = secs = one = None
    # a side is played as its pilot was: two pilots of different variants, line-ups or
    # match lengths are timed each on its own, never the first for both
    alike = len(pilots) == 1 or _played_alike(pilots[0], pilots[1])
    try:
        specs = [_spec(r, m) for r in (pilots * 2 if alike else pilots)[:sides]]
        shards = len(specs[0].shards())
        if time_hands > 0:
            timed = [seconds_per_hand(sp, time_hands) for sp in (specs[:1] if alike else specs)]
            per_side = [t[0] for t in timed] * (sides if alike else 1)
            sph = sum(per_side) / sides  # a hand of either side, on average
            said = [
                f"{n} hands of {r.variant} [{','.join(r.agents)}] played here, {t:.3g} s a hand"
                for (t, n), r in zip(timed, pilots, strict=False)
            ]
            timing = (
                said[0]
                if alike
                else "the two sides timed apart (their pilots differ in "
                + _how_unalike(pilots[0], pilots[1])
                + "): "
                + "; ".join(said)
            ) + " (play only; writing adds a few %)"
            side_hands = [sp.total_hands for sp in specs]  # m matches of each pilot's
            one = sum(t * h for t, h in zip(per_side, side_hands, strict=True))
            # a side's shards N at a time, the sides one after the other
            secs = sum(
                math.ceil(len(sp.shards()) / workers) * (h / len(sp.shards())) * t
                for sp, t, h in zip(specs, per_side, side_hands, strict=True)
            )
    except InputError as e:
        shards = math.ceil(m / max(1, 2000 // per_match))
        timing = f"cannot time here: {e}"
    return Plan(
        metric,
        s.unit,
        "level" if level else "equivalence" if equivalence else "detect",
        float(effect),
        s.paired,
        s.measured,
        s.sd,
        s.how,
        m,
        hands,
        hands * sides,
        shards,
        sph,
        secs,
        one,
        workers,
        timing,
        [str(p) for p in _sides(paths)[:sides]],
    )
