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

    python bench/bench_calibration.py [--quick]
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

    pool: int                 # matches of pool P
    fixed: int                # matches of pool F (same seed, dealer_rotation=fixed)
    sizes: tuple[int, ...]    # replicate sizes of the coverage and A/A studies
    grid: int                 # matches per point of the 10-run A/A grid
    until: tuple[tuple[str, float], ...]  # (metric, target half-width) followed
    until_shard: int          # matches per --until shard
    until_max: int            # --max-hands
    until_reps: int
    balance: tuple[int, ...]  # hands per balance run
    bootstrap: int            # resampled balance studies per size


FULL = Plan(pool=40_000, fixed=10_000, sizes=(30, 250), grid=20,
            until=(("draw_rate", 0.05), ("pattern_rate[qidui]", 0.04),
                   ("dealer_advantage", 1.0)),
            until_shard=2, until_max=4000, until_reps=200, balance=(2000, 20000),
            bootstrap=2000)
QUICK = Plan(pool=400, fixed=120, sizes=(10, 40), grid=4,
             until=(("draw_rate", 0.1),), until_shard=2, until_max=800, until_reps=10,
             balance=(160, 640), bootstrap=50)


def _cache() -> Path:
    return Path(os.environ.get("MJLOG_BENCH_CACHE",
                               Path(tempfile.gettempdir()) / "mjlog-bench"))


def _cpu() -> float:
    """CPU seconds of this process and its finished children."""
    s, c = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def _spec(matches: int, sets: tuple[str, ...] = ()):
    from simulate.runner import RunSpec

    return RunSpec.build(VARIANT, seed=SEED, matches=matches, hands_per_match=HPM,
                         agents=[AGENT], sets=sets, events=False)


def _pool(matches: int, sets: tuple[str, ...] = ()) -> tuple[Path, bool]:
    """The pool run (played into the cache unless it is there), and whether it was
    played now."""
    from simulate.runner import simulate

    spec = _spec(matches, sets)
    out = _cache() / f"calibration-{spec.run_id}"
    played = not (out / "manifest.json").exists()
    simulate(spec, out, workers=None, progress=None if played else False,
             desc="calibration pool")
    return out, played


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


def _read(run: Path, patterns: list[str]) -> Pool:
    from analysis.compare import match_units, metric_arrays
    from analysis.queries import Runs

    u, pats = match_units(Runs(run, verify_hashes=False))
    if not (u["match"].to_numpy() == np.arange(len(u))).all():
        raise RuntimeError(f"{run}: matches not in order 0..{len(u) - 1}")
    n = int(u["players"].max())
    return Pool(metric_arrays(u, pats, patterns),
                u[[f"pts{p}" for p in range(n)]].to_numpy(float),
                u["hands"].to_numpy(float))


def _is_rate(unit: str) -> bool:
    from analysis.rates import is_rate

    return is_rate(unit)


def _truth(pool: Pool) -> dict[str, float]:
    from analysis.stats import estimate

    return {m: estimate(y, x).value for m, (y, x, _u) in pool.arrays.items()}


def _blocks(total: int, size: int, start: int = 0) -> list[slice]:
    return [slice(a, a + size) for a in range(start, total - size + 1, size)]


def _pm(reps: int, p: float = NOMINAL) -> float:
    """The Monte-Carlo error of a share near ``p`` from ``reps`` replicates (95 %)."""
    return 1.96 * math.sqrt(p * (1 - p) / reps) if reps else math.nan


def _share(hits: list[bool]) -> tuple[float, int]:
    return (float(np.mean(hits)) if hits else math.nan), len(hits)


def _pct(share: float, reps: int, p: float = NOMINAL) -> str:
    if not reps or math.isnan(share):
        return "—"
    if p == 1.0:  # a target of every replicate: the count itself
        return f"{100 * share:.1f} % ({round(share * reps)} of {reps})"
    return f"{100 * share:.1f} % ±{100 * _pm(reps, p):.1f}"


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
        hits, old, events, undefined = [], [], [], 0
        for b in _blocks(pool.matches, size):
            e = metric_estimate(y[b], x[b], unit)
            if math.isnan(e.lo):
                undefined += 1
                continue
            hits.append(e.lo <= truth[m] <= e.hi)
            if _is_rate(unit):
                t = estimate(y[b], x[b])
                old.append(t.lo <= truth[m] <= t.hi)
                events.append(y[b].sum())
        out[m] = {"share": _share(hits), "old": _share(old), "undefined": undefined,
                  "events": float(np.mean(events)) if events else math.nan}
    return out


# ------------------------------------------------------------------ 1. A/A


def aa_independent(pool: Pool, size: int) -> dict[str, dict]:
    """Pairs of disjoint runs of ``size`` matches (another seed, as far as the deal
    goes), compared as compare compares runs of two seeds (Welch): the share of each
    metric's difference interval that covers 0."""
    from analysis.stats import compare_units

    blocks = _blocks(pool.matches, size)
    out = {}
    for m, (y, x, _u) in pool.arrays.items():
        hits = []
        for a, b in zip(blocks[0::2], blocks[1::2], strict=False):
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
        hits, narrower, ratio = [], [], []
        for b in _blocks(fixed.matches, size):
            d = compare_units(y[b], x[b], yf[b], xf[b], paired=True)
            if math.isnan(d.lo):
                continue
            hits.append(d.lo <= 0 <= d.hi)
            if d.unpaired_se > 0:
                narrower.append(d.paired_se <= d.unpaired_se)
                ratio.append(d.paired_se / d.unpaired_se)
        out[m] = {"share": _share(hits), "narrower": _share(narrower),
                  "ratio": float(np.median(ratio)) if ratio else math.nan}
    return out


def pooled_rotation_difference(rules: Pool, fixed: Pool) -> dict[str, object]:
    """F against the same matches of P, every match paired: the A/A's truth of 0
    checked on the whole of F."""
    from analysis.stats import compare_units

    n = fixed.matches
    return {m: compare_units(y[:n], x[:n], *fixed.arrays[m][:2], paired=True)
            for m, (y, x, _u) in rules.arrays.items()}


# ------------------------------------------------------------------ 3. the grid


def grid(pool: Pool, size: int, points: int = 9) -> dict[str, object]:
    """Studies of a baseline and ``points`` runs of ``size`` matches, all with the
    same rules on disjoint matches (independent seeds, compared unpaired), every
    metric compare would compare (the patterns either side saw), decided as compare
    decides a sweep (:func:`analysis.decide.decide_study`: Benjamini–Hochberg over
    every point × metric). A finding is a verdict ``differs``; the share of studies
    with one is the false-finding rate. Also the rate adjusting per point (the old
    way) and unadjusted."""
    from analysis.decide import adjust, decide_study
    from analysis.stats import compare_units

    blocks = _blocks(pool.matches, size)
    runs = points + 1
    whole, per_point, raw, tests = [], [], [], []
    for s in range(len(blocks) // runs):
        base, *others = blocks[s * runs:(s + 1) * runs]
        diffs, metrics, hands, point_p = [], [], [], []
        for b in others:
            ps = []
            for m, (y, x, _u) in pool.arrays.items():
                if m.startswith("pattern_rate[") and not (y[base].sum() or y[b].sum()):
                    continue  # a pattern neither side saw: compare has no row for it
                d = compare_units(y[base], x[base], y[b], x[b], paired=False)
                diffs.append(d)
                metrics.append(m)
                hands.append(min(pool.hands[base].sum(), pool.hands[b].sum()))
                ps.append(d.p)
            point_p.append(ps)
        verdicts = [d.verdict for d in decide_study(diffs, metrics, hands) if d]
        whole.append("differs" in verdicts)
        per_point.append(any((adjust(ps) < 0.05).any() for ps in point_p))
        raw.append(any(p < 0.05 for ps in point_p for p in ps))
        tests.append(len(diffs))
    return {"whole": _share(whole), "per_point": _share(per_point), "raw": _share(raw),
            "tests": float(np.mean(tests)) if tests else math.nan}


# ------------------------------------------------------------------ 4. --until


def until(pool: Pool, truth: dict[str, float], metric: str, target: float, shard: int,
          max_hands: int, reps: int) -> dict[str, object]:
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
            return [metric_estimate(y[s:s + e], x[s:s + e], unit).half_width for e in es]

        m, _hw, reached = stopping_rule(ends, 1, lambda i, j: None, measure, target)
        if start + 2 * m > pool.matches:
            break
        unreached += not reached
        old = metric_estimate(y[start:start + m], x[start:start + m], unit)
        new = metric_estimate(y[start + m:start + 2 * m], x[start + m:start + 2 * m], unit)
        chosen.append(old)
        fresh.append(new)
        ms.append(m)
        start += 2 * m

    def summary(es) -> dict[str, float]:
        ok = [e for e in es if not math.isnan(e.lo)]
        dev = np.array([e.value - true for e in ok])
        return {"share": _share([e.lo <= true <= e.hi for e in ok]),
                "bias": float(dev.mean()) if len(dev) else math.nan,
                "bias_se": float(dev.std(ddof=1) / math.sqrt(len(dev))) if len(dev) > 1
                else math.nan}

    return {"metric": metric, "target": target, "truth": true, "reps": len(ms),
            "matches": float(np.mean(ms)) if ms else math.nan,
            "range": (min(ms), max(ms)) if ms else (0, 0), "unreached": unreached,
            "chosen": summary(chosen), "fresh": summary(fresh),
            "first": ms[0] if ms else None}


def until_cli(metric: str, target: float, shard: int, max_hands: int) -> dict:
    """The real ``mjlog simulate --until`` on pool P's seed: its stopping pass plays
    P's first matches, so its M must be the emulation's first replicate's."""
    import json

    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run(
            [sys.executable, "-m", "mjlog", "simulate", "--variant", VARIANT, "--seed",
             str(SEED), "--agents", AGENT, "--hands-per-match", str(HPM),
             "--hands-per-shard", str(shard * HPM), "--events", "none", "--until",
             f"{metric}={target}", "--max-hands", str(max_hands), "--quiet",
             "--out", f"{d}/run"], capture_output=True, text=True, check=False)
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
        rows.append({"position": p, "value": e.value, "lo": e.lo, "hi": e.hi, "se": e.se,
                     "matches": e.units, "hands": int(hands.sum())})
    return rows


def balance_verdict(measure: tuple[np.ndarray, np.ndarray],
                    confirm: tuple[np.ndarray | None, np.ndarray | None]
                    ) -> tuple[str, float, bool, float]:
    """What ``mjlog balance`` decides on these matches (its measure run and, when the
    proposal changes the rules, its confirmation run on other matches): the
    positions decided (:func:`analysis.compensation.decide_positions`), the lever
    proposed (:func:`analysis.compensation.propose`), its payments added to the
    confirmation's points (compensation is paid after play and changes none of it:
    the dealer pays each other player x a hand) and the study's verdict
    (:func:`analysis.compensation.study_verdict`). Returns (verdict, x, changed, the
    dealer advantage the verdict rests on)."""
    from analysis.compensation import (
        MARGIN,
        Lever,
        decide_positions,
        propose,
        study_verdict,
    )

    pts, hands = measure
    n = pts.shape[1]
    current = Lever(1, "base", 0)
    measured = decide_positions(position_rows(pts, hands), MARGIN, int(hands.sum()))
    _exact, lever, _step = propose(measured[0]["value"], n, current, MARGIN)
    if lever == current:
        return study_verdict(measured)[0], 0.0, False, measured[0]["value"]
    cpts, chands = confirm
    x = lever.points - current.points
    if cpts is None:  # no matches left to confirm on
        return "unconfirmed", x, True, math.nan
    paid = np.outer(chands, [-(n - 1) * x] + [x] * (n - 1))
    confirmed = decide_positions(position_rows(cpts + paid, chands), MARGIN,
                                 int(chands.sum()))
    return study_verdict(confirmed)[0], x, True, confirmed[0]["value"]


def balance(pool: Pool, hands: int, bootstrap: int, rng: np.random.Generator) -> dict:
    """balance's verdict at ``hands`` hands a run: on disjoint stretches of P (a
    confirmation, when needed, on the next stretch), and on ``bootstrap`` studies
    resampling P's matches (with replacement: P stands for the population, its
    advantages the truth)."""
    m = max(2, -(-hands // HPM))
    blocks = _blocks(pool.matches, m)
    real: list[tuple[str, float, bool, float]] = []
    i = 0
    while i < len(blocks):
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        b = blocks[i]
        v = balance_verdict((pool.pts[b], pool.hands[b]),
                            (pool.pts[nxt], pool.hands[nxt]) if nxt else (None, None))
        if v[2] and nxt is None:
            break
        real.append(v)
        i += 2 if v[2] else 1
    boot = []
    for _ in range(bootstrap):
        a, b = rng.integers(0, pool.matches, m), rng.integers(0, pool.matches, m)
        boot.append(balance_verdict((pool.pts[a], pool.hands[a]), (pool.pts[b], pool.hands[b])))
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
            [sys.executable, "-m", "mjlog", "balance", VARIANT, "--agents", AGENT,
             "--hands", str(hands), "--seed", str(SEED), "--format", "json", "--quiet"],
            capture_output=True, text=True, check=False)
        if p.returncode != 0:
            raise RuntimeError(f"mjlog balance failed: {p.stderr.strip()[-400:]}")
        r = json.loads(p.stdout)
        confirm = (None, None)
        if r["changes"]:
            spec = RunSpec.build(VARIANT, seed=derive(SEED, CONFIRM), matches=m,
                                 hands_per_match=HPM, agents=[AGENT], events=False)
            simulate(spec, f"{d}/confirm", workers=None, progress=False)
            c = _read(Path(d) / "confirm", [])
            confirm = (c.pts, c.hands)
    ours = balance_verdict((pool.pts[:m], pool.hands[:m]), confirm)
    return {"cli": (r["verdict"], r["compensation"]["points"] - r["measured_compensation"]
                    ["points"], r["changes"], r["confirmed"]["value"]), "ours": ours}


def right_answer(truth_rows: list[dict]) -> tuple[str, list[float], float]:
    """The verdict a balance study should reach at the default margin if it knew the
    truth: the proposal at the true dealer advantage, and every position's true
    advantage after it; equivalent when all are within the margin."""
    from analysis.compensation import MARGIN, Lever, propose

    n = len(truth_rows)
    _e, lever, _s = propose(truth_rows[0]["value"], n, Lever(1, "base", 0), MARGIN)
    x = lever.points
    after = [r["value"] + (-n * x if r["position"] == 0 else n * x / (n - 1))
             for r in truth_rows]
    return ("equivalent" if all(abs(a) < MARGIN for a in after) else "differs"), after, x


# ------------------------------------------------------------------ the section


def _metric_order(truth: dict[str, float], arrays) -> list[str]:
    plain = [m for m in arrays if not m.startswith("pattern_rate[")]
    pats = sorted((m for m in arrays if m.startswith("pattern_rate[")),
                  key=lambda m: -truth[m])
    return plain + pats


def _fmt(rate: bool, digits: int):
    """A figure as the tables print it: a rate in per cent, a mean in points."""
    if rate:
        return lambda v: f"{100 * v:.{digits}f} %"
    return lambda v: f"{v:+.{digits + 1}f}"


def _bias(s: dict, fmt) -> str:
    """Mean deviation from the truth ± 1.96 standard errors."""
    return f"{fmt(s['bias'])} ±{fmt(1.96 * s['bias_se']).lstrip('+')}"


def _in_target(share: float, lo: float, hi: float) -> bool:
    return lo <= share <= hi


def _summary(checked: list[tuple[str, float, int, float, float, float]]) -> list[str]:
    """How many figures meet their targets; those outside, and whether by more than
    their Monte-Carlo error (the target widened by it still misses them)."""
    kinds = {"coverage": [c for c in checked if c[3] < 1 and c[3] > FALSE_FINDINGS],
             "paired SE not wider": [c for c in checked if c[3] == 1.0],
             "false-finding rate": [c for c in checked if c[3] == 0.0]}
    out = []
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
            target = f"{100 * lo:.0f} %" if lo == hi else f"{100 * lo:.0f}–{100 * hi:.0f} %"
            out.append(f"  - {w}: {100 * s:.1f} % ±{100 * e:.1f} (R = {n}), "
                       f"{100 * by:.1f} points {side} {target}")
    return out


def _cli_text(v: tuple[str, float, bool, float]) -> str:
    verdict, x, changed, adv = v
    comp = f"compensation {x:+.3f} points" if changed else "no compensation proposed"
    return f"{verdict}, {comp}, dealer advantage {adv:+.4f}"


def _same_cli(b: dict) -> bool:
    (v1, x1, c1, a1), (v2, x2, c2, a2) = b["cli"], b["ours"]
    return v1 == v2 and c1 == c2 and math.isclose(x1, x2, abs_tol=1e-12) and \
        math.isclose(a1, a2, rel_tol=1e-9, abs_tol=1e-12)


def _verdict_shares(vs: list[tuple[str, float, bool, float]]) -> str:
    if not vs:
        return "—"
    r = len(vs)
    parts = []
    for v in ("equivalent", "differs", "inconclusive"):
        k = sum(x[0] == v for x in vs)
        parts.append(f"{v} {100 * k / r:.0f} %")
    return ", ".join(parts) + f" (R = {r})"


def run(quick: bool = False) -> dict:
    from analysis.compensation import MARGIN, positions
    from analysis.stats import estimate
    from simulate.until import MIN_MATCHES

    plan = QUICK if quick else FULL
    t0, c0 = time.perf_counter(), _cpu()
    rules = _spec(plan.pool).rules
    patterns = list(rules.spec.patterns(rules))
    p_dir, p_played = _pool(plan.pool)
    f_dir, f_played = _pool(plan.fixed, ("dealer_rotation=fixed",))
    play_cpu, play_s = _cpu() - c0, time.perf_counter() - t0
    P, F = _read(p_dir, patterns), _read(f_dir, patterns)
    seen = {m for m, (y, _x, _u) in P.arrays.items()
            if not m.startswith("pattern_rate[") or y.sum() > 0}
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
    unt = [until(P, truth, m, t, plan.until_shard, plan.until_max, plan.until_reps)
           for m, t in plan.until]
    cli = until_cli(plan.until[0][0], plan.until[0][1], plan.until_shard, plan.until_max)

    truth_rows = position_rows(P.pts, P.hands)
    real_rows = positions(p_dir)
    gap = max(abs(a[k] - b[k]) for a, b in zip(truth_rows, real_rows, strict=True)
              for k in ("value", "lo", "hi"))
    if gap > 1e-9:
        raise RuntimeError(f"position_rows differs from analysis.compensation.positions "
                           f"by {gap}")
    answer, after, x_true = right_answer(truth_rows)
    rng = np.random.default_rng(SEED)
    bal = [balance(P, h, plan.bootstrap, rng) for h in plan.balance]
    bal_cli = balance_cli(P, plan.balance[0])
    seconds, cpu = time.perf_counter() - t0, _cpu() - c0

    hands_p, hands_f = int(P.hands.sum()), int(F.hands.sum())
    checked: list[tuple[str, float, int, float, float, float]] = []

    def cell(share_n: tuple[float, int], what: str, lo=COVERAGE_TARGET[0],
             hi=COVERAGE_TARGET[1], p=NOMINAL) -> str:
        """A share with its Monte-Carlo error, bold outside [lo, hi]; every one is
        checked against its target in the summary."""
        share, n = share_n
        text = _pct(share, n, p)
        if n and not math.isnan(share):
            checked.append((what, share, n, lo, hi, _pm(n, p)))
            if not _in_target(share, lo, hi):
                text = f"**{text}**"
        return text

    s1, s2 = plan.sizes
    lines = [
        "## Calibration: do the intervals and verdicts mean what they say? (issue 40)\n",
        f"`python bench/bench_calibration.py` (`bench/bench_calibration.py`). Real play: "
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
        + (f" ({play_cpu:.0f} of them playing the pools, {play_s:.0f} s wall)"
           if p_played or f_played else
           " (the pools cached from an earlier run: playing them takes about 15 CPU "
           "minutes)")
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
            cell(same[s1][m]["narrower"], f"{m}, paired SE not wider, {s1} matches",
                 1.0, 1.0, 1.0),
            cell(same[s2][m]["narrower"], f"{m}, paired SE not wider, {s2} matches",
                 1.0, 1.0, 1.0),
            f"{same[s1][m]['ratio']:.2f} / {same[s2][m]['ratio']:.2f}",
        ]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    reps = {
        "cov": [cov[s][order[0]]["share"][1] for s in plan.sizes],
        "ind": [ind[s][order[0]]["share"][1] for s in plan.sizes],
        "same": [same[s][order[0]]["share"][1] for s in plan.sizes],
    }
    worst_rot = max(order, key=lambda m: abs(rotation[m].diff) / rotation[m].paired_se
                    if rotation[m].paired_se > 0 else 0)
    wr = rotation[worst_rot]
    lines += [
        "",
        f"Replicates: {reps['cov'][0]} and {reps['cov'][1]} runs for *covers truth*; "
        f"{reps['ind'][0]} and {reps['ind'][1]} pairs of other seeds; {reps['same'][0]} "
        f"and {reps['same'][1]} same-seed pairs (fewer for per-win figures where a run "
        f"had no win). Patterns no win carried in all of P ({', '.join(never) or 'none'}) "
        f"have no truth above 0 to cover and are left out. The same-seed A/A's truth "
        f"of 0, checked on all of F against the same matches of P (paired): the "
        f"largest |difference|/SE is {worst_rot}'s, {wr.diff:+.4g} [{wr.lo:+.4g}, "
        f"{wr.hi:+.4g}], p = {wr.p:.2f} (before any adjustment over the "
        f"{len(order)} metrics). With identical rules on the same seed the two runs "
        f"are the same run, byte for byte: every difference is 0 [0, 0] with a paired "
        f"standard error of 0, by construction, not a calibration.\n",
        "### 3. The grid's false-finding rate under no effect\n",
        f"A study is a baseline and 9 points, ten runs of {plan.grid} matches "
        f"({plan.grid * HPM} hands) with the same rules on disjoint matches (so "
        f"compared unpaired), every metric compare compares (the patterns either side "
        f"saw; {g['tests']:.0f} tests a study on average), decided as compare decides "
        f"a sweep (analysis.decide.decide_study). A *finding* is any verdict "
        f"`differs`. Target: at most 5 %.\n",
        "| adjustment | studies with a finding |",
        "|---|---|",
        f"| Benjamini–Hochberg over the whole study (compare's) | "
        f"{cell(g['whole'], 'grid false-finding rate, whole study', 0.0, FALSE_FINDINGS, 0.05)}"
        " |",
        f"| Benjamini–Hochberg within each point (before issue 40) | "
        f"{_pct(*g['per_point'], 0.05)} |",
        f"| none (any p < 0.05) | {_pct(*g['raw'], 0.05)} |",
        "",
        "### 4. `--until` at small shard sizes\n",
        f"`simulate --until METRIC=HALF_WIDTH --max-hands {plan.until_max}` with "
        f"shards of {plan.until_shard} matches ({plan.until_shard * HPM} hands), "
        f"through simulate.until.stopping_rule and the interval it reads (at least "
        f"{MIN_MATCHES} matches): per replicate, a stretch of P is the stopping pass "
        f"and the next M matches the run --until writes (on a fresh seed, in the "
        f"command). *Chosen hands*: the figure of the M matches the rule stopped on, "
        f"what --until wrote before issue 40; *fresh hands*: what it writes now. Bias "
        f"is the mean of figure − truth with its standard error. Target: fresh-hands "
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
            fmt(u["truth"]), str(u["reps"]), f"{u['matches']:.0f} ({lo_}–{hi_}{nr})",
            _pct(*u["chosen"]["share"]), _bias(u["chosen"], fmt),
            cell(u["fresh"]["share"], what, UNTIL_TARGET, COVERAGE_TARGET[1]),
            _bias(u["fresh"], fmt),
        ]
        lines.append(f"| {u['metric']} = {u['target']:g} | " + " | ".join(cells) + " |")
    pos = ", ".join(f"{r['position']}: {r['value']:+.3f} [{r['lo']:+.3f}, {r['hi']:+.3f}]"
                    for r in truth_rows)
    lines += [
        "",
        "### 5. `balance`: how often is the verdict *equivalent*?\n",
        f"The truth, from all of P ({hands_p:,} hands; points a hand, each position's "
        f"mean minus the others', positions after the dealer): {pos}. At the default "
        f"margin ±{MARGIN:g}, balance at the truth would propose a dealer compensation "
        f"of {x_true:+.3f} points to each other player a hand, after which the "
        f"positions stand at {', '.join(f'{a:+.3f}' for a in after)}: the right "
        f"verdict is **{answer}**. Each study below is what `mjlog balance` decides "
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
        "| hands a run | disjoint runs of P | resampled from P | proposal changed the "
        "rules (resampled) |",
        "|---|---|---|---|",
    ]
    for b in bal:
        changed = np.mean([v[2] for v in b["boot"]]) if b["boot"] else math.nan
        lines.append(f"| {b['hands']:,} ({b['matches']} matches) | "
                     f"{_verdict_shares(b['real'])} | {_verdict_shares(b['boot'])} | "
                     f"{100 * changed:.0f} % |")
    lines += ["", "### Against the targets\n", *_summary(checked)]
    section = "\n".join(lines) + "\n"
    return {"section": section, "seconds": seconds, "cpu_seconds": cpu, "checked": checked,
            "grid": g, "until": unt, "balance": bal, "answer": answer}


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv)["section"])
