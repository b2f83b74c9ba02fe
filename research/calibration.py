"""Calibration of mjlog's statistics on real play (issue 40, "Measure"): do its 95 %
intervals cover 95 % of the time, does a grid without any effect show a finding at
most 5 % of the time, does ``--until`` report figures that cover, and how often does
``balance`` call a line-up equivalent?

Every figure here comes from the project's own functions (:mod:`analysis.stats`,
:mod:`analysis.rates`, :mod:`analysis.decide`, :mod:`analysis.compare`,
:func:`simulate.until.stopping_rule`, :mod:`analysis.compensation`) applied to the
per-match sums of real engine play (:func:`analysis.compare.match_units`): nothing
statistical is re-implemented.

**The pools.** yuxi, ``greedy`` in every seat (fast, and it wins hands), 8 hands a
match, ``--events none``: pool P plays ``POOL`` matches on one seed; pool F the first
``FIXED`` of those matches on the same seed with ``dealer_rotation=fixed``. A match's
hands depend only on the seed and its index, so any stretch of consecutive matches of
P is a run of its own, independent of every other stretch (as a run on another seed
would be): the replicates of a study are disjoint stretches. The *truth* of a figure
is its value over all of P (its own standard error is that of one replicate times
√(replicate / pool), about 3 % of it for 30-match replicates); an A/A difference's
truth is 0 by construction (F differs from P only in who deals after a hand; with one
agent in every seat, playing no differently across hands, every hand's figures
relative to its dealer have the same distribution whoever deals).

**Monte-Carlo error.** A coverage from R replicates is given with
±1.96·√(p(1 − p)/R) at the nominal p (95 %; 5 % for the false-finding rate): a figure
inside its target by less than that is not shown to meet it.

The pools are kept in ``$MJLOG_BENCH_CACHE`` (default ``/tmp/mjlog-bench``), so a
rerun plays nothing.

    python research/calibration.py [--quick]
"""

from __future__ import annotations

import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

VARIANT, AGENT, HPM, SEED = "yuxi", "greedy", 8, 4040
NOMINAL, FALSE_FINDINGS = 0.95, 0.05
COVERAGE_TARGET = (0.93, 0.97)
UNTIL_TARGET = 0.94


@dataclass(frozen=True)
class Plan:
    """The sizes of one calibration run (matches of 8 hands unless said)."""

    pool: int  # matches of pool P
    fixed: int  # matches of pool F (same seed, dealer_rotation=fixed)
    sizes: tuple[int, ...]  # replicate sizes of the coverage and A/A studies
    grid: int  # matches per point of the 10-run A/A grid
    until: tuple[tuple[str, float], ...]  # (metric, target half-width) followed
    until_shard: int  # matches per --until shard
    until_max: int  # --max-hands
    until_reps: int
    balance: tuple[int, ...]  # hands per balance run
    bootstrap: int  # resampled balance studies per size


FULL = Plan(
    pool=40_000,
    fixed=10_000,
    sizes=(30, 250),
    grid=20,
    until=(
        ("draw_rate", 0.05),
        ("pattern_rate[qidui]", 0.025),
        ("pattern_rate[longqidui]", 0.006),
        ("dealer_advantage", 0.4),
    ),
    until_shard=2,
    until_max=4000,
    until_reps=400,
    balance=(2000, 20000, 80000),
    bootstrap=2000,
)
QUICK = Plan(
    pool=400,
    fixed=120,
    sizes=(10, 40),
    grid=4,
    until=(("draw_rate", 0.1),),
    until_shard=2,
    until_max=800,
    until_reps=10,
    balance=(160, 640, 1280),
    bootstrap=50,
)


def cache() -> Path:
    return Path(os.environ.get("MJLOG_BENCH_CACHE", Path(tempfile.gettempdir()) / "mjlog-bench"))


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children."""
    s, c = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def pool_spec(matches: int, sets: tuple[str, ...] = ()):
    from simulate.runner import RunSpec

    return RunSpec.build(
        VARIANT,
        seed=SEED,
        matches=matches,
        hands_per_match=HPM,
        agents=[AGENT],
        sets=sets,
        events=False,
    )


def play_pool(matches: int, sets: tuple[str, ...] = ()) -> tuple[Path, dict]:
    """The pool run, played into the cache unless it is there, and what playing it
    took: ``cpu`` and ``wall`` seconds, ``cached`` (recorded beside the run when it
    was played; empty when the record is gone)."""
    import json

    from simulate.runner import simulate

    spec = pool_spec(matches, sets)
    out = cache() / f"calibration-{spec.run_id}"
    record = out.with_suffix(".json")
    if (out / "manifest.json").exists():
        simulate(spec, out, workers=None, progress=False)  # verified, not replayed
        took = json.loads(record.read_text()) if record.exists() else {}
        return out, {**took, "cached": True}
    c0, t0 = cpu_seconds(), time.perf_counter()
    simulate(spec, out, workers=None, progress=None, desc="calibration pool")
    took = {"cpu": cpu_seconds() - c0, "wall": time.perf_counter() - t0}
    record.write_text(json.dumps(took))
    return out, {**took, "cached": False}


# ------------------------------------------------------------------ the pool's arrays


@dataclass
class Pool:
    """Per match of a pool, in match order: every headline metric's (y, x, unit)
    (:func:`analysis.compare.metric_arrays`), and the points by position after the
    dealer (``pts``, matches × players) with ``hands``."""

    arrays: dict[str, tuple[np.ndarray, np.ndarray, str]]
    pts: np.ndarray
    hands: np.ndarray

    @property
    def matches(self) -> int:
        return len(self.hands)


def read_pool(run: Path, patterns: list[str]) -> Pool:
    from analysis.compare import match_units, metric_arrays
    from analysis.queries import Runs

    u, pats = match_units(Runs(run, verify_hashes=False))
    if not (u["match"].to_numpy() == np.arange(len(u))).all():
        raise RuntimeError(f"{run}: matches not in order 0..{len(u) - 1}")
    n = int(u["players"].max())
    return Pool(
        metric_arrays(u, pats, patterns),
        u[[f"pts{p}" for p in range(n)]].to_numpy(float),
        u["hands"].to_numpy(float),
    )


def _is_rate(unit: str) -> bool:
    from analysis.rates import is_rate

    return is_rate(unit)


def _truth(pool: Pool) -> dict[str, float]:
    from analysis.stats import estimate

    return {m: estimate(y, x).value for m, (y, x, _u) in pool.arrays.items()}


def stretches(total: int, size: int, start: int = 0) -> list[slice]:
    return [slice(a, a + size) for a in range(start, total - size + 1, size)]


def mc_error(reps: int, p: float = NOMINAL) -> float:
    """The Monte-Carlo error of a share near ``p`` from ``reps`` replicates (95 %)."""
    return 1.96 * math.sqrt(p * (1 - p) / reps) if reps else math.nan


def _share(hits: list[bool]) -> tuple[float, int]:
    return (float(np.mean(hits)) if hits else math.nan), len(hits)


def _pct(share: float, reps: int, p: float = NOMINAL) -> str:
    if not reps or math.isnan(share):
        return "—"
    if p == 1.0:  # a target of every replicate: the count itself
        return f"{100 * share:.1f} % ({round(share * reps)} of {reps})"
    return f"{100 * share:.1f} % ±{100 * mc_error(reps, p):.1f}"


# ------------------------------------------------------------------ 2. coverage


def coverage(pool: Pool, truth: dict[str, float], size: int) -> dict[str, dict]:
    """Per metric, over disjoint runs of ``size`` matches: the share of its interval
    (:func:`analysis.rates.metric_estimate`: a rate's never zero-width, a mean's t)
    that covers the truth; for a rate also the plain t interval's (what a rate had
    before), and the mean count of events a run saw."""
    from analysis.rates import metric_estimate
    from analysis.stats import estimate

    out = {}
    for m, (y, x, unit) in pool.arrays.items():
        hits, old, events, zero, undefined = [], [], [], [], 0
        for b in stretches(pool.matches, size):
            e = metric_estimate(y[b], x[b], unit)
            if math.isnan(e.lo):
                undefined += 1
                continue
            hits.append(e.lo <= truth[m] <= e.hi)
            if _is_rate(unit):
                t = estimate(y[b], x[b])
                old.append(t.lo <= truth[m] <= t.hi)
                events.append(y[b].sum())
                zero.append(y[b].sum() == 0)
        out[m] = {
            "share": _share(hits),
            "old": _share(old),
            "undefined": undefined,
            "events": float(np.mean(events)) if events else math.nan,
            "zero": float(np.mean(zero)) if zero else math.nan,
        }
    return out


# ------------------------------------------------------------------ 1. A/A


def _compared(metric: str, ya: np.ndarray, yb: np.ndarray) -> bool:
    """Whether compare has a row for ``metric`` between two runs: a pattern's rate only
    where either run saw the pattern."""
    return not metric.startswith("pattern_rate[") or bool(ya.sum() or yb.sum())


def aa_independent(pool: Pool, size: int) -> dict[str, dict]:
    """Pairs of disjoint runs of ``size`` matches (another seed, as far as the deal
    goes), compared as compare compares runs of two seeds (Welch): the share of each
    metric's difference interval that covers 0 (pairs compare has a row for)."""
    from analysis.stats import compare_units

    blocks = stretches(pool.matches, size)
    out = {}
    for m, (y, x, _u) in pool.arrays.items():
        hits = []
        for a, b in zip(blocks[0::2], blocks[1::2], strict=False):
            if not _compared(m, y[a], y[b]):
                continue
            d = compare_units(y[a], x[a], y[b], x[b], paired=False)
            if not math.isnan(d.lo):
                hits.append(d.lo <= 0 <= d.hi)
        out[m] = {"share": _share(hits)}
    return out


def aa_same_seed(rules: Pool, fixed: Pool, size: int) -> dict[str, dict]:
    """Run k of P against run k of F (same seed and matches, another dealer
    rotation: play diverges after the first hand a dealer keeps the deal), paired
    by match as compare pairs them: the share of intervals covering 0, and of
    paired standard errors not wider than the unpaired ones of the same pairs."""
    from analysis.stats import compare_units

    out = {}
    for m, (y, x, _u) in rules.arrays.items():
        yf, xf, _ = fixed.arrays[m]
        hits, narrower, ratio, floored = [], [], [], []
        for b in stretches(fixed.matches, size):
            if not _compared(m, y[b], yf[b]):
                continue
            d = compare_units(y[b], x[b], yf[b], xf[b], paired=True, shared_walls=True)
            if math.isnan(d.lo):
                continue
            hits.append(d.lo <= 0 <= d.hi)
            if d.unpaired_se > 0:
                narrower.append(d.paired_se <= d.unpaired_se)
                ratio.append(d.paired_se / d.unpaired_se)
                # a negative sample covariance, which compare_units takes as 0
                floored.append(d.paired_se == d.unpaired_se)
        out[m] = {
            "share": _share(hits),
            "narrower": _share(narrower),
            "ratio": float(np.median(ratio)) if ratio else math.nan,
            "floored": _share(floored),
        }
    return out


def pooled_rotation_difference(rules: Pool, fixed: Pool) -> dict[str, object]:
    """F against the same matches of P, every match paired: the A/A's truth of 0
    checked on the whole of F."""
    from analysis.stats import compare_units

    n = fixed.matches
    return {
        m: compare_units(y[:n], x[:n], *fixed.arrays[m][:2], paired=True, shared_walls=True)
        for m, (y, x, _u) in rules.arrays.items()
    }


# ------------------------------------------------------------------ 3. the grid


def grid(pool: Pool, size: int, points: int = 9) -> dict[str, object]:
    """Studies of a baseline and ``points`` runs of ``size`` matches, all with the
    same rules on disjoint matches (independent seeds, compared unpaired), every
    metric compare would compare (the patterns either side saw), decided as compare
    decides a sweep (:func:`analysis.decide.decide_study`: Benjamini–Hochberg over
    every point × metric). A finding is a difference shown not to be 0
    (:attr:`~analysis.decide.Decision.differs_from_zero`: the verdict ``differs``, or
    ``equivalent`` by less than the margin); the share of studies with one is the
    false-finding rate. Also the rate adjusting per point (the old
    way) and unadjusted; and per metric, the share of studies whose trend along the
    run's index (a numeric key without effect) covers 0
    (:func:`analysis.stats.slope` on every point's pseudo-values, each match a
    cluster, as :func:`analysis.compare.trends` fits runs of other seeds)."""
    from analysis.decide import adjust, decide_study
    from analysis.stats import compare_units, pseudo_values, slope

    blocks = stretches(pool.matches, size)
    runs = points + 1
    whole, per_point, raw, tests = [], [], [], []
    trend: dict[str, list[bool]] = {m: [] for m in pool.arrays}
    for s in range(len(blocks) // runs):
        study = blocks[s * runs : (s + 1) * runs]
        for m, (y, x, _u) in pool.arrays.items():
            fit = slope(
                np.concatenate([pseudo_values(y[b], x[b]) for b in study]),
                np.repeat(np.arange(runs, dtype=float), size),
                range(study[0].start, study[-1].stop),
            )
            if not math.isnan(fit.lo):
                trend[m].append(fit.lo <= 0 <= fit.hi)
        base, *others = study
        diffs, metrics, hands, point_p = [], [], [], []
        for b in others:
            ps = []
            for m, (y, x, _u) in pool.arrays.items():
                if not _compared(m, y[base], y[b]):
                    continue
                d = compare_units(y[base], x[base], y[b], x[b], paired=False)
                diffs.append(d)
                metrics.append(m)
                hands.append(min(pool.hands[base].sum(), pool.hands[b].sum()))
                ps.append(d.p)
            point_p.append(ps)
        whole.append(any(d.differs_from_zero for d in decide_study(diffs, metrics, hands) if d))
        per_point.append(any((adjust(ps) < 0.05).any() for ps in point_p))
        raw.append(any(p < 0.05 for ps in point_p for p in ps))
        tests.append(len(diffs))
    return {
        "whole": _share(whole),
        "per_point": _share(per_point),
        "raw": _share(raw),
        "tests": float(np.mean(tests)) if tests else math.nan,
        "trend": {m: _share(h) for m, h in trend.items()},
    }


# ------------------------------------------------------------------ 4. --until


def until(
    pool: Pool,
    truth: dict[str, float],
    metric: str,
    target: float,
    shard: int,
    max_hands: int,
    reps: int,
) -> dict[str, object]:
    """``simulate --until METRIC=TARGET`` with shards of ``shard`` matches, through
    the real stopping rule and the interval --until reads (a rate's never zero-width):
    per replicate a stretch of P is the stopping pass, the next M matches the fresh
    run it writes. The coverage and relative bias of the fresh run's figure (what
    --until writes) and of the chosen hands' (what it wrote before)."""
    from analysis.rates import metric_estimate
    from simulate.until import stopping_rule

    y, x, unit = pool.arrays[metric]
    most = max_hands // HPM
    ends = list(range(shard, most + 1, shard))
    true = truth[metric]
    start, chosen, fresh, ms, unreached = 0, [], [], [], 0
    while len(ms) < reps:
        if start + 2 * most > pool.matches and start + 2 * ends[-1] > pool.matches:
            break

        def measure(es, s=start):
            return [metric_estimate(y[s : s + e], x[s : s + e], unit).half_width for e in es]

        m, _hw, reached = stopping_rule(ends, 1, lambda i, j: None, measure, target)
        if start + 2 * m > pool.matches:
            break
        unreached += not reached
        old = metric_estimate(y[start : start + m], x[start : start + m], unit)
        new = metric_estimate(y[start + m : start + 2 * m], x[start + m : start + 2 * m], unit)
        chosen.append(old)
        fresh.append(new)
        ms.append(m)
        start += 2 * m

    def summary(es) -> dict[str, float]:
        ok = [e for e in es if not math.isnan(e.lo)]
        dev = np.array([e.value - true for e in ok])
        return {
            "share": _share([e.lo <= true <= e.hi for e in ok]),
            "bias": float(dev.mean()) if len(dev) else math.nan,
            "bias_se": float(dev.std(ddof=1) / math.sqrt(len(dev))) if len(dev) > 1 else math.nan,
        }

    return {
        "metric": metric,
        "target": target,
        "truth": true,
        "reps": len(ms),
        "matches": float(np.mean(ms)) if ms else math.nan,
        "range": (min(ms), max(ms)) if ms else (0, 0),
        "unreached": unreached,
        "chosen": summary(chosen),
        "fresh": summary(fresh),
        "first": ms[0] if ms else None,
    }


def until_cli(metric: str, target: float, shard: int, max_hands: int) -> dict:
    """The real ``mjlog simulate --until`` on pool P's seed: its stopping pass plays
    P's first matches, so its M must be the emulation's first replicate's."""
    import json

    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run(
            [
                sys.executable,
                "-m",
                "mjlog",
                "simulate",
                "--variant",
                VARIANT,
                "--seed",
                str(SEED),
                "--agents",
                AGENT,
                "--hands-per-match",
                str(HPM),
                "--hands-per-shard",
                str(shard * HPM),
                "--events",
                "none",
                "--until",
                f"{metric}={target}",
                "--max-hands",
                str(max_hands),
                "--quiet",
                "--out",
                f"{d}/run",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if p.returncode != 0:
            raise RuntimeError(f"simulate --until failed: {p.stderr.strip()[-400:]}")
        return json.loads((Path(d) / "run" / "manifest.json").read_text())["until"]


# ------------------------------------------------------------------ 5. balance


def position_rows(pts: np.ndarray, hands: np.ndarray) -> list[dict]:
    """:func:`analysis.compensation.positions`' rows from per-match points by
    position (base 1): each position's mean minus the others', per match, its
    interval by :func:`analysis.stats.estimate` (as
    :func:`analysis.queries.position_advantage` computes it; checked against it on
    the whole pool)."""
    from analysis.stats import estimate

    n = pts.shape[1]
    tot = pts.sum(axis=1)
    rows = []
    for p in range(n):
        e = estimate(pts[:, p] - (tot - pts[:, p]) / (n - 1), hands)
        rows.append(
            {
                "position": p,
                "value": e.value,
                "lo": e.lo,
                "hi": e.hi,
                "se": e.se,
                "matches": e.units,
                "hands": int(hands.sum()),
            }
        )
    return rows


@dataclass(frozen=True)
class Verdict:
    """What one balance study decided: ``verdict``, the compensation ``x`` it proposed
    (points the dealer pays each other player a hand; 0 when it kept the rules,
    ``changed`` False), the ``dealer`` advantage and each position's verdict
    (``positions``) the verdict rests on, and which of them were also shown not to be 0
    (``nonzero``: an equivalent one by less than the margin)."""

    verdict: str
    x: float
    changed: bool
    dealer: float
    positions: tuple[str, ...]
    nonzero: tuple[bool, ...]


def _decided(rows: list[dict], x: float, changed: bool) -> Verdict:
    from analysis.compensation import study_verdict

    return Verdict(
        study_verdict(rows)[0],
        x,
        changed,
        rows[0]["value"],
        tuple(r["verdict"] for r in rows),
        tuple(r["differs_from_zero"] for r in rows),
    )


def balance_verdict(
    measure: tuple[np.ndarray, np.ndarray], confirm: tuple[np.ndarray, np.ndarray] | None
) -> Verdict | None:
    """What ``mjlog balance`` decides on these matches (its measure run and, when the
    proposal changes the rules, its confirmation run on other matches): the
    positions decided (:func:`analysis.compensation.decide_positions`), the lever
    proposed (:func:`analysis.compensation.propose`), its payments added to the
    confirmation's points (compensation is paid after play and changes none of it:
    the dealer pays each other player x a hand) and the study's verdict
    (:func:`analysis.compensation.study_verdict`). None when the proposal needs a
    confirmation and ``confirm`` is None."""
    from analysis.compensation import MARGIN, Lever, decide_positions, propose

    pts, hands = measure
    n = pts.shape[1]
    current = Lever(1, "base", 0)
    measured = decide_positions(position_rows(pts, hands), MARGIN, int(hands.sum()))
    _exact, lever, _step = propose(measured[0]["value"], n, current, MARGIN)
    if lever == current:
        return _decided(measured, 0.0, False)
    if confirm is None:
        return None
    cpts, chands = confirm
    x = lever.points - current.points
    paid = np.outer(chands, [-(n - 1) * x] + [x] * (n - 1))
    return _decided(
        decide_positions(position_rows(cpts + paid, chands), MARGIN, int(chands.sum())), x, True
    )


def balance(pool: Pool, hands: int, bootstrap: int, rng: np.random.Generator) -> dict:
    """balance's verdict at ``hands`` hands a run: on disjoint stretches of P (a
    confirmation, when needed, on the next stretch), and on ``bootstrap`` studies
    resampling P's matches (with replacement: P stands for the population, its
    advantages the truth)."""
    m = max(2, -(-hands // HPM))
    blocks = stretches(pool.matches, m)
    real: list[Verdict] = []
    i = 0
    while i < len(blocks):
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        b = blocks[i]
        v = balance_verdict(
            (pool.pts[b], pool.hands[b]), (pool.pts[nxt], pool.hands[nxt]) if nxt else None
        )
        if v is None:
            break
        real.append(v)
        i += 2 if v.changed else 1
    boot = []
    for _ in range(bootstrap):
        a, b = rng.integers(0, pool.matches, m), rng.integers(0, pool.matches, m)
        v = balance_verdict((pool.pts[a], pool.hands[a]), (pool.pts[b], pool.hands[b]))
        assert v is not None
        boot.append(v)
    return {"hands": m * HPM, "matches": m, "real": real, "boot": boot}


def balance_cli(pool: Pool, hands: int) -> dict:
    """``mjlog balance`` itself on pool P's seed: its measurement plays P's first
    matches; its confirmation, a derived seed, is played here again without the
    compensation, so the emulation decides on the very hands the command played.
    Returns both verdicts, proposals and dealer advantages."""
    import json

    from analysis.compensation import CONFIRM
    from mjlog.rng import derive
    from simulate.runner import RunSpec, simulate

    m = max(2, -(-hands // HPM))
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run(
            [
                sys.executable,
                "-m",
                "mjlog",
                "balance",
                VARIANT,
                "--agents",
                AGENT,
                "--hands",
                str(hands),
                "--seed",
                str(SEED),
                "--format",
                "json",
                "--quiet",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if p.returncode != 0:
            raise RuntimeError(f"mjlog balance failed: {p.stderr.strip()[-400:]}")
        r = json.loads(p.stdout)
        confirm = None
        if r["changes"]:
            spec = RunSpec.build(
                VARIANT,
                seed=derive(SEED, CONFIRM),
                matches=m,
                hands_per_match=HPM,
                agents=[AGENT],
                events=False,
            )
            simulate(spec, f"{d}/confirm", workers=None, progress=False)
            c = read_pool(Path(d) / "confirm", [])
            confirm = (c.pts, c.hands)
    ours = balance_verdict((pool.pts[:m], pool.hands[:m]), confirm)
    cli = Verdict(
        r["verdict"],
        r["compensation"]["points"] - r["measured_compensation"]["points"],
        r["changes"],
        r["confirmed"]["value"],
        tuple(p["verdict"] for p in r["confirmed_positions"]),
        tuple(p["differs_from_zero"] for p in r["confirmed_positions"]),
    )
    return {"cli": cli, "ours": ours}


def right_answer(truth_rows: list[dict]) -> tuple[str, list[float], float]:
    """The verdict a balance study should reach at the default margin if it knew the
    truth: the proposal at the true dealer advantage, and every position's true
    advantage after it; equivalent when all are within the margin."""
    from analysis.compensation import MARGIN, Lever, propose

    n = len(truth_rows)
    _e, lever, _s = propose(truth_rows[0]["value"], n, Lever(1, "base", 0), MARGIN)
    x = lever.points
    after = [r["value"] + (-n * x if r["position"] == 0 else n * x / (n - 1)) for r in truth_rows]
    return ("equivalent" if all(abs(a) < MARGIN for a in after) else "differs"), after, x


# ------------------------------------------------------------------ the section


def _metric_order(truth: dict[str, float], arrays) -> list[str]:
    plain = [m for m in arrays if not m.startswith("pattern_rate[")]
    pats = sorted((m for m in arrays if m.startswith("pattern_rate[")), key=lambda m: -truth[m])
    return plain + pats


def _fmt(rate: bool, digits: int):
    """A figure as the tables print it: a rate in per cent, a mean in points."""
    if rate:
        return lambda v: f"{100 * v:.{digits}f} %"
    return lambda v: f"{v:+.{digits + 1}f}"


def _bias(s: dict, fmt, truth: float | None = None) -> str:
    """Mean deviation from the truth ± 1.96 standard errors, and relative to the
    ``truth`` when given (a rate's)."""
    rel = f" ({100 * s['bias'] / abs(truth):+.1f} %)" if truth else ""
    return f"{fmt(s['bias'])} ±{fmt(1.96 * s['bias_se']).lstrip('+')}{rel}"


def _in_target(share: float, lo: float, hi: float) -> bool:
    return lo <= share <= hi


def _summary(checked: list[tuple[str, float, int, float, float, float]]) -> list[str]:
    """How many figures meet their targets; those outside, and whether by more than
    their Monte-Carlo error (the target widened by it still misses them)."""
    kinds = {
        "coverage": [c for c in checked if c[3] < 1 and c[3] > FALSE_FINDINGS],
        "paired SE not wider": [c for c in checked if c[3] == 1.0],
        "false-finding rate": [c for c in checked if c[3] == 0.0],
    }
    out = [
        f"- {len(checked)} figures checked; a figure whose true share meets its target "
        f"still falls outside target ± its Monte-Carlo error about 1 time in 20 or "
        f"less, so a few such misses among the coverages are expected by chance"
    ]
    for kind, cs in kinds.items():
        inside = sum(_in_target(s, lo, hi) for _w, s, _n, lo, hi, _e in cs)
        out.append(f"- {kind}: {inside} of {len(cs)} figures within the target")
        far = [c for c in cs if not _in_target(c[1], c[3] - c[5], c[4] + c[5])]
        near = [c for c in cs if not _in_target(c[1], c[3], c[4]) and c not in far]
        if near:
            out.append(f"  - outside but within their Monte-Carlo error: {len(near)}")
        for w, s, n, lo, hi, e in far:
            by = (lo - s) if s < lo else (s - hi)
            side = "below" if s < lo else "above"
            if lo == hi:  # every replicate: the count says it
                out.append(
                    f"  - {w}: {round(s * n)} of {n} ({100 * s:.1f} %), "
                    f"{100 * by:.1f} points {side} {100 * lo:.0f} %"
                )
                continue
            out.append(
                f"  - {w}: {100 * s:.1f} % ±{100 * e:.1f} (R = {n}), "
                f"{100 * by:.1f} points {side} {100 * lo:.0f}–{100 * hi:.0f} %"
            )
    return out


def _reading(order: list[str], pool: Pool, cov: dict, same: dict, sizes: tuple[int, ...]) -> str:
    """What the table says, in words, from its own figures."""
    s1, s2 = sizes
    means = [cov[m]["share"][0] for m in order if not _is_rate(pool.arrays[m][2])]
    rates = [m for m in order if _is_rate(pool.arrays[m][2])]
    common = [cov[m]["share"][0] for m in rates if cov[m]["events"] >= 3]
    rare = [m for m in rates if cov[m]["events"] < 1]
    text = (
        f"Reading. At {s1} matches the t interval of a mean covers "
        f"{100 * min(means):.1f}–{100 * max(means):.1f} %, and a rate's interval "
        f"{100 * min(common):.1f}–{100 * max(common):.1f} % where a run sees 3 events "
        f"or more on average: slightly above 95 % (analysis.rates floors the design "
        f"effect at 1 and spends the matches' degrees of freedom, both conservative)."
    )
    for m in rare:
        c = cov[m]
        over = c["share"][0] > COVERAGE_TARGET[1]
        text += (
            f" {m}: {c['events']:.2f} events a run, none in {100 * c['zero']:.0f} % "
            f"of runs; its interval, which must reach a rate above 0 from no event, "
            f"covers {100 * c['share'][0]:.1f} % (the t interval it replaced: "
            f"{100 * c['old'][0]:.1f} %)"
            + (
                f": over-coverage a count this small cannot avoid (at {c['events']:.2f} "
                f"events a run, seeing none or one never rejects the truth at 5 %, so any "
                f"such interval covers at least e^−λ(1 + λ) = "
                f"{100 * math.exp(-c['events']) * (1 + c['events']):.1f} %)"
                if over
                else ""
            )
            + "; an A/A difference of such a rate (two runs, mostly 0 or 1 event "
            "each) covers 0 nearly always."
        )
    ratio = [same[s1][m]["ratio"] for m in order if m not in rare]
    high = max(same[s1][m]["floored"][0] for m in order if m not in rare)
    r = float(np.median(ratio))
    text += (
        f" The same-seed pairs share the first hand of each match and little after "
        f"it: their paired SE is {r:.2f} of the unpaired one (median), a correlation "
        f"of about {1 - r * r:.2f}; on {s1} matches the sample covariance still comes "
        f"out negative in up to {100 * high:.0f} % of pairs, noise that compare takes "
        f"as 0 (analysis.stats.compare_units: the unpaired SE on the pairs' m − 1 "
        f"degrees of freedom), so the paired SE is never the wider, and the paired "
        f"interval still covers 0 as it should (the A/A same-seed columns)."
    )
    return text


def _neighbours(after: list[float]) -> str:
    """The positions the dealer compensation cannot move, in words."""
    from analysis.compensation import MARGIN

    p = max(range(1, len(after)), key=lambda i: abs(after[i]))
    if not MARGIN / 4 <= abs(after[p]) < MARGIN:  # near 0, or outside: nothing to add
        return ""
    return (
        f"The compensation moves the dealer against the rest, so the others keep "
        f"their spread: position {p} stays at {after[p]:+.3f}, within the margin "
        f"but not 0. balance's verdict ranks *equivalent* before *differs* (from 0), "
        f"so the more hands a run has, the more surely such a position is shown "
        f"within ±{MARGIN:g} and the verdict is *equivalent*, the text naming it as "
        f"differing from 0 by less than the margin (the rows below). "
    )


def _cli_text(v: Verdict) -> str:
    comp = f"compensation {v.x:+.3f} points" if v.changed else "no compensation proposed"
    return f"{v.verdict}, {comp}, dealer advantage {v.dealer:+.4f}"


def _same_cli(b: dict) -> bool:
    a, o = b["cli"], b["ours"]
    return (
        (a.verdict, a.changed, a.positions, a.nonzero)
        == (o.verdict, o.changed, o.positions, o.nonzero)
        and math.isclose(a.x, o.x, abs_tol=1e-12)
        and math.isclose(a.dealer, o.dealer, rel_tol=1e-9, abs_tol=1e-12)
    )


def _verdict_shares(vs: list[Verdict]) -> str:
    """Each verdict's share of the studies."""
    if not vs:
        return "—"
    return (
        ", ".join(
            f"{v} {100 * sum(x.verdict == v for x in vs) / len(vs):.0f} %"
            for v in ("equivalent", "differs", "inconclusive")
        )
        + f" (R = {len(vs)})"
    )


def _differs_by_position(vs: list[Verdict]) -> str:
    """The share of studies in which each position is shown to differ from 0, and of
    those whose verdict is ``equivalent`` though some position is (by less than the
    margin)."""
    if not vs:
        return "—"
    n = len(vs[0].positions)
    each = ", ".join(f"{p}: {100 * np.mean([v.nonzero[p] for v in vs]):.0f} %" for p in range(n))
    both = np.mean([v.verdict == "equivalent" and any(v.nonzero) for v in vs])
    return f"{each}; equivalent though a position differs from 0: {100 * both:.0f} %"


def run(quick: bool = False) -> dict:
    from analysis.compensation import MARGIN, positions
    from analysis.decide import adjust
    from analysis.stats import estimate
    from simulate.until import MIN_MATCHES

    plan = QUICK if quick else FULL
    t0, c0 = time.perf_counter(), cpu_seconds()
    rules = pool_spec(plan.pool).rules
    patterns = list(rules.spec.patterns(rules))
    p_dir, p_took = play_pool(plan.pool)
    f_dir, f_took = play_pool(plan.fixed, ("dealer_rotation=fixed",))
    cached = p_took["cached"] and f_took["cached"]
    play_cpu = sum(t.get("cpu", math.nan) for t in (p_took, f_took))
    play_s = sum(t.get("wall", math.nan) for t in (p_took, f_took))
    P, F = read_pool(p_dir, patterns), read_pool(f_dir, patterns)
    seen = {m for m, (y, _x, u) in P.arrays.items() if not _is_rate(u) or y.sum() > 0}
    never = [m for m in P.arrays if m not in seen]
    P.arrays = {m: P.arrays[m] for m in P.arrays if m in seen}
    F.arrays = {m: F.arrays[m] for m in P.arrays}
    truth = _truth(P)
    order = _metric_order(truth, P.arrays)
    pool_e = {m: estimate(y, x) for m, (y, x, _u) in P.arrays.items()}

    cov = {s: coverage(P, truth, s) for s in plan.sizes}
    ind = {s: aa_independent(P, s) for s in plan.sizes}
    same = {s: aa_same_seed(P, F, s) for s in plan.sizes}
    rotation = pooled_rotation_difference(P, F)
    g = grid(P, plan.grid)
    unt = [
        until(P, truth, m, t, plan.until_shard, plan.until_max, plan.until_reps)
        for m, t in plan.until
    ]
    cli = until_cli(plan.until[0][0], plan.until[0][1], plan.until_shard, plan.until_max)

    truth_rows = position_rows(P.pts, P.hands)
    real_rows = positions(p_dir)
    gap = max(
        abs(a[k] - b[k])
        for a, b in zip(truth_rows, real_rows, strict=True)
        for k in ("value", "lo", "hi")
    )
    if gap > 1e-9:
        raise RuntimeError(f"position_rows differs from analysis.compensation.positions by {gap}")
    answer, after, x_true = right_answer(truth_rows)
    rng = np.random.default_rng(SEED)
    bal = [balance(P, h, plan.bootstrap, rng) for h in plan.balance]
    bal_cli = balance_cli(P, plan.balance[0])
    seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0

    hands_p, hands_f = int(P.hands.sum()), int(F.hands.sum())
    checked: list[tuple[str, float, int, float, float, float]] = []

    def cell(
        share_n: tuple[float, int],
        what: str,
        lo=COVERAGE_TARGET[0],
        hi=COVERAGE_TARGET[1],
        p=NOMINAL,
    ) -> str:
        """A share with its Monte-Carlo error, bold outside [lo, hi]; every one is
        checked against its target in the summary."""
        share, n = share_n
        text = _pct(share, n, p)
        if n and not math.isnan(share):
            checked.append((what, share, n, lo, hi, mc_error(n, p)))
            if not _in_target(share, lo, hi):
                text = f"**{text}**"
        return text

    s1, s2 = plan.sizes
    lines = [
        "## Calibration: do the intervals and verdicts mean what they say? (issue 40)\n",
        f"`python research/calibration.py` (`research/calibration.py`). Real play: "
        f"{VARIANT}, `{AGENT}` in every seat, {HPM} hands a match, `--events none`. "
        f"Pool P: seed {SEED}, {P.matches:,} matches ({hands_p:,} hands); pool F: the "
        f"same seed's first {F.matches:,} matches ({hands_f:,} hands) with "
        f"`dealer_rotation=fixed`. A match depends only on the seed and its index, so "
        f"disjoint stretches of P are independent runs (as on other seeds): the "
        f"replicates of each study are disjoint stretches, and a figure's *truth* is "
        f"its value over all of P (its standard error √(run/pool) of a run's: "
        f"{100 * math.sqrt(s1 / P.matches):.0f} % of a {s1}-match run's). Every interval, "
        f"test and verdict is the project's own (analysis.stats, analysis.rates, "
        f"analysis.decide, analysis.compare, simulate.until.stopping_rule, "
        f"analysis.compensation) on the runs' per-match sums (analysis.compare."
        f"match_units). ± after a share is its Monte-Carlo error, 1.96·√(p(1 − p)/R) at "
        f"the nominal p (95 %; 5 % for the false-finding rate) for R replicates; a "
        f"**bold** figure is outside its target. Time: {seconds:.0f} s wall clock, "
        f"{cpu:.0f} CPU seconds"
        + (
            f", of which {play_cpu:.0f} CPU seconds ({play_s:.0f} s wall) playing the pools"
            if not cached
            else " with the pools cached from an earlier run"
            + (
                f" (playing them took {play_cpu:.0f} CPU seconds, {play_s:.0f} s wall)"
                if math.isfinite(play_cpu)
                else ""
            )
        )
        + f" on {os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f} at the end).\n",
        "### 1–2. One run's interval, and A/A differences\n",
        f"*Covers truth*: the share of runs of {s1} matches ({s1 * HPM} hands) and "
        f"{s2} matches ({s2 * HPM:,} hands) whose 95 % interval covers the pool's "
        f"figure (a mean: the t interval over matches; a rate: analysis.rates, never "
        f"zero-width; *t on a rate*: the plain t interval a rate had before, for "
        f"contrast). *A/A, other seeds*: pairs of runs with the same rules on disjoint "
        f"matches, compared unpaired (Welch) as compare compares runs of two seeds: the "
        f"share of difference intervals covering 0. *A/A, same seed*: run k of P "
        f"against the same matches of F, paired by match as compare pairs them (the "
        f"first hand of every match is the same, then play diverges as dealers "
        f"differ): the share covering 0, and the share of pairs whose paired standard "
        f"error is not wider than the unpaired one (target 100 %; the median ratio "
        f"paired/unpaired beside it). Runs whose interval is undefined (a per-win "
        f"figure without a win) are left out of R. Target: every coverage 93–97 %.\n",
        f"| metric | truth (pool) [95 % CI] | covers truth, {s1} m | covers truth, "
        f"{s2} m | t on a rate, {s1} m | events a run, {s1} m | A/A other seeds, {s1} m "
        f"| A/A other seeds, {s2} m | A/A same seed, {s1} m | A/A same seed, {s2} m | "
        f"paired SE ≤ unpaired, {s1} m | paired SE ≤ unpaired, {s2} m | paired/unpaired "
        f"SE, median, {s1} / {s2} m |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for m in order:
        e, rate_ = pool_e[m], _is_rate(P.arrays[m][2])
        fmt = _fmt(rate_, 3)
        c1, c2 = cov[s1][m], cov[s2][m]
        cells = [
            f"{fmt(e.value)} [{fmt(e.lo)}, {fmt(e.hi)}]",
            cell(c1["share"], f"{m}, interval, {s1} matches"),
            cell(c2["share"], f"{m}, interval, {s2} matches"),
            _pct(*c1["old"]) if rate_ else "—",
            f"{c1['events']:.2f}" if rate_ else "—",
            cell(ind[s1][m]["share"], f"{m}, A/A other seeds, {s1} matches"),
            cell(ind[s2][m]["share"], f"{m}, A/A other seeds, {s2} matches"),
            cell(same[s1][m]["share"], f"{m}, A/A same seed, {s1} matches"),
            cell(same[s2][m]["share"], f"{m}, A/A same seed, {s2} matches"),
            cell(same[s1][m]["narrower"], f"{m}, paired SE not wider, {s1} matches", 1.0, 1.0, 1.0),
            cell(same[s2][m]["narrower"], f"{m}, paired SE not wider, {s2} matches", 1.0, 1.0, 1.0),
            f"{same[s1][m]['ratio']:.2f} / {same[s2][m]['ratio']:.2f}",
        ]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    reps = {
        "cov": [cov[s][order[0]]["share"][1] for s in plan.sizes],
        "ind": [ind[s][order[0]]["share"][1] for s in plan.sizes],
        "same": [same[s][order[0]]["share"][1] for s in plan.sizes],
    }
    worst_rot = min(order, key=lambda m: rotation[m].p)
    wr = rotation[worst_rot]
    rot_adj = float(np.nanmin(adjust([rotation[m].p for m in order])))
    lines += [
        "",
        f"Replicates: {reps['cov'][0]} and {reps['cov'][1]} runs for *covers truth*; "
        f"{reps['ind'][0]} and {reps['ind'][1]} pairs of other seeds; {reps['same'][0]} "
        f"and {reps['same'][1]} same-seed pairs (fewer for per-win figures where a run "
        f"had no win). Rates without an event in all of P ({', '.join(never) or 'none'}) "
        f"have no truth above 0 to cover and are left out. The same-seed A/A's truth "
        f"of 0, checked on all of F against the same matches of P (paired): the "
        f"smallest p is {worst_rot}'s, {wr.diff:+.4g} [{wr.lo:+.4g}, {wr.hi:+.4g}], "
        f"p = {wr.p:.2g}; adjusted (Benjamini–Hochberg) over the {len(order)} metrics as "
        f"compare adjusts, the smallest p is {rot_adj:.2g}. With identical rules on the "
        f"same seed the two runs "
        f"are the same run, byte for byte: every difference is 0 [0, 0] with a paired "
        f"standard error of 0, by construction, not a calibration.\n",
        _reading(order, P, cov[s1], same, plan.sizes) + "\n",
        "### 3. The grid's false-finding rate under no effect\n",
        f"A study is a baseline and 9 points, ten runs of {plan.grid} matches "
        f"({plan.grid * HPM} hands) with the same rules on disjoint matches (so "
        f"compared unpaired), every metric compare compares (the patterns either side "
        f"saw; {g['tests']:.0f} tests a study on average), decided as compare decides "
        f"a sweep (analysis.decide.decide_study). A *finding* is any difference shown "
        f"not to be 0 (`differs_from_zero`: the verdict `differs`, or `equivalent` by "
        f"less than the margin). Target: at most 5 %.\n",
        "| adjustment | studies with a finding |",
        "|---|---|",
        f"| Benjamini–Hochberg over the whole study (compare's) | "
        f"{cell(g['whole'], 'grid false-finding rate, whole study', 0.0, FALSE_FINDINGS, 0.05)}"
        " |",
        f"| Benjamini–Hochberg within each point (before issue 40) | "
        f"{_pct(*g['per_point'], 0.05)} |",
        f"| none (any p < 0.05) | {_pct(*g['raw'], 0.05)} |",
        "",
        "The trend's interval (compare's slope per unit of a numeric key, clustered "
        "by match) on the same studies, the point's index 0–9 standing for a key "
        "without effect: the share of studies whose 95 % interval of the slope covers "
        "0, per metric (target 93–97 %): "
        + "; ".join(f"{m} {cell(g['trend'][m], f'{m}, trend covers 0')}" for m in order)
        + ".\n",
        "### 4. `--until` at small shard sizes\n",
        f"`simulate --until METRIC=HALF_WIDTH --max-hands {plan.until_max}` with "
        f"shards of {plan.until_shard} matches ({plan.until_shard * HPM} hands), "
        f"through simulate.until.stopping_rule and the interval it reads (at least "
        f"{MIN_MATCHES} matches): per replicate, a stretch of P is the stopping pass "
        f"and the next M matches the run --until writes (on a fresh seed, in the "
        f"command). *Chosen hands*: the figure of the M matches the rule stopped on, "
        f"what --until wrote before issue 40; *fresh hands*: what it writes now. Bias "
        f"is the mean of figure − truth ± 1.96 standard errors (a rate's relative to the "
        f"truth in brackets). Target: fresh-hands "
        f"coverage at least 94 % (and within 93–97 %). Check against the command: "
        f"`mjlog simulate --seed {SEED} --until {plan.until[0][0]}={plan.until[0][1]:g} "
        f"--hands-per-shard {plan.until_shard * HPM}` chose {cli['matches']} matches "
        f"(half-width {cli['achieved_half_width']:.4f}); the emulation's first "
        f"replicate, on the same matches of P, chose {unt[0]['first']}"
        f"{'' if cli['matches'] == unt[0]['first'] else ' (**they differ**)'}.\n",
        "| metric = target | truth | R | M matches, mean (range) | chosen hands: "
        "covers | chosen: bias | fresh hands: covers | fresh: bias |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for u in unt:
        rate_ = _is_rate(P.arrays[u["metric"]][2])
        fmt = _fmt(rate_, 2)
        lo_, hi_ = u["range"]
        nr = f", {u['unreached']} unreached" if u["unreached"] else ""
        what = f"--until {u['metric']}, fresh hands"
        cells = [
            fmt(u["truth"]),
            str(u["reps"]),
            f"{u['matches']:.0f} ({lo_}–{hi_}{nr})",
            _pct(*u["chosen"]["share"]),
            _bias(u["chosen"], fmt, u["truth"] if rate_ else None),
            cell(u["fresh"]["share"], what, UNTIL_TARGET, COVERAGE_TARGET[1]),
            _bias(u["fresh"], fmt, u["truth"] if rate_ else None),
        ]
        lines.append(f"| {u['metric']} = {u['target']:g} | " + " | ".join(cells) + " |")
    pos = ", ".join(
        f"{r['position']}: {r['value']:+.3f} [{r['lo']:+.3f}, {r['hi']:+.3f}]" for r in truth_rows
    )
    lines += [
        "",
        "### 5. `balance`: how often is the verdict *equivalent*?\n",
        f"The truth, from all of P ({hands_p:,} hands; points a hand, each position's "
        f"mean minus the others', positions after the dealer): {pos}. At the default "
        f"margin ±{MARGIN:g}, balance at the truth would propose a dealer compensation "
        f"of {x_true:+.3f} points to each other player a hand, after which the "
        f"positions stand at {', '.join(f'{a:+.3f}' for a in after)}: the right "
        f"verdict is **{answer}**. {_neighbours(after)}Each study below is what "
        f"`mjlog balance` decides "
        f"(analysis.compensation: decide_positions, propose, study_verdict) on one "
        f"run of H hands, and, when its proposal changes the rules, on a confirmation "
        f"run of H other hands with the proposed compensation paid (paid after play, "
        f"it changes none of it: the bench adds the payments to that run's points). "
        f"*Disjoint runs*: stretches of P; *resampled*: runs drawn from P's matches "
        f"with replacement, P standing for the population (its figures the truth), "
        f"for sizes P holds too few disjoint runs of. ({positions.__module__}."
        f"positions on all of P reproduces the truth's intervals to {gap:.0e}.) "
        f"Check against the command: `mjlog balance {VARIANT} --agents {AGENT} --hands "
        f"{plan.balance[0]} --seed {SEED}` ({_cli_text(bal_cli['cli'])}); the emulation "
        f"on the same hands (its measurement P's first matches, its confirmation the "
        f"command's seed played again without the compensation): "
        f"{_cli_text(bal_cli['ours'])}"
        f"{'' if _same_cli(bal_cli) else ' (**they differ**)'}.\n",
        "| hands a run | disjoint runs of P | resampled from P | positions that differ "
        "from 0 (resampled) | proposal changed the rules (resampled) |",
        "|---|---|---|---|---|",
    ]
    for b in bal:
        changed = np.mean([v.changed for v in b["boot"]]) if b["boot"] else math.nan
        lines.append(
            f"| {b['hands']:,} ({b['matches']:,} matches) | "
            f"{_verdict_shares(b['real'])} | {_verdict_shares(b['boot'])} | "
            f"{_differs_by_position(b['boot'])} | {100 * changed:.0f} % |"
        )
    lines += ["", "### Against the targets\n", *_summary(checked)]
    section = "\n".join(lines) + "\n"
    return {
        "section": section,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "checked": checked,
        "grid": g,
        "until": unt,
        "balance": bal,
        "answer": answer,
    }


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv)["section"])
