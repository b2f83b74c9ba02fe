"""``mjlog tune``: propose the rule values that meet a designer's targets.

A designer states targets on the figures ``mjlog compare`` prints
(``pattern_rate[qidui]=0.05±0.01``, ``draw_rate<=0.02``) and the rule keys that may
move (``--vary fan.qidui=5:60``). The search:

1. **Explores** with Optuna's TPE sampler (a Bayesian optimiser for expensive,
   noisy objectives that handles integer, stepped and categorical keys alike,
   and starts from the rules as they are, so "before" is measured too); when
   every combination of the varied values fits in ``--trials``, it tries them
   all instead (a sweep: nothing to guess). Every
   candidate is played on the **same walls** (one seed for all: common random
   numbers), so two candidates differ by their rules, not their luck.
2. **Races** the best few on more hands, again on shared walls, until the best is
   clearly best (in at least 95 % of paired bootstrap resamples of the matches
   its loss is the lowest) or the race's budget is spent.
3. **Confirms** the winner on a **fresh seed** (hands the search never saw): each
   target is tested there as an equivalence within its tolerance (its 95 %
   interval inside ``V ± T``: two one-sided tests at 2.5 % each; a rate's interval
   is never zero-width, :mod:`analysis.rates`), or as a one-sided bound, and
   called ``met``, ``not met`` (the interval wholly outside) or ``inconclusive``.

The loss a candidate is ranked by is ``Σ wᵢ · (missᵢ / scaleᵢ)²`` over the
targets: for ``METRIC=V±T`` the miss is ``value − V`` and the scale ``T``; for
``METRIC<=V`` (``>=``) the miss is how far the value lies past ``V`` (0 inside)
and the scale ``T`` when given (``draw_rate<=0.02±0.005``), else ``|V|/10``.
``--weight METRIC=W`` trades targets off (default 1 each). Two targets that
cannot both hold show as a trade-off: the confirmation calls one ``not met``.

Deterministic and resumable: trial ``k``'s candidate depends only on the seed,
``k`` and the losses of trials ``0 … k−1`` (a sampler seeded per trial), every run
is an ordinary run directory (``DIR/trials/NNN``, resumed shard by shard), and
``DIR/tune.json`` is rewritten atomically after every trial, so a killed tune
rerun with the same command continues where it stopped and ends with the same
answer, whatever the number of workers or a Dask ``--scheduler``.

Varying keys (``--vary``):

- an integer key: ``KEY=LO:HI`` (every integer between), or ``KEY=LO:HI:STEP``;
- a power-of-two key (``cap``): ``KEY=LO:HI``, the powers of two between;
- a self-draw/discard pair (yuxi's ``points.*``): ``KEY=S1/D1:S2/D2``, the pairs on
  the straight line between, rounded (``t`` in 0…1 by steps of 1/10);
- any key: ``KEY=a|b|c``, one of the values given.

>>> [v.values for v in parse_vary(["fan.qidui=5:60:5"], "huangmei")][0][:3]
(5, 10, 15)
>>> parse_target("pattern_rate[qidui]=0.05±0.01")
Target(metric='pattern_rate[qidui]', op='=', value=0.05, tol=0.01, weight=1.0)
>>> parse_target("draw_rate<=0.02")
Target(metric='draw_rate', op='<=', value=0.02, tol=None, weight=1.0)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analysis import compare, queries
from analysis.stats import estimate
from mjlog.errors import InputError, MjlogError, finite_float, quote
from mjlog.metrics import names, patterns_in
from mjlog.resettle import money_blind
from mjlog.rng import derive
from mjlog.rules import keys, resolve
from mjlog.rundir import write_atomic
from simulate.agents import make_agents
from simulate.resettled import donor_problem
from simulate.runner import RunSpec, simulate

TUNE_FILE = "tune.json"
RULES_FILE = "rules.toml"
SEED_SPACE = 2**31
"""Derived seeds are kept below this, so a run's seed reads as an ordinary number."""


# ------------------------------------------------------------------ what may vary
@dataclass(frozen=True)
class Vary:
    """One rule key the search may move, and the values it may take (in order)."""

    key: str
    values: tuple[Any, ...]
    numeric: bool  # ordered values: the sampler may interpolate between neighbours

    def show(self, value: Any) -> str:
        return _show(self.key, value)


def _show(key: str, value: Any) -> str:
    if isinstance(value, tuple):
        return "/".join("-" if v is None else str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_vary(items: Sequence[str], variant: str) -> list[Vary]:
    """``--vary`` items into :class:`Vary`; each value checked against its rule key."""
    table = keys(variant)
    out: list[Vary] = []
    for item in items:
        key, eq, spec = item.partition("=")
        key, spec = key.strip(), spec.strip()
        if not eq or not key or not spec:
            raise InputError(f"bad --vary {quote(item)}; expected KEY=LO:HI or KEY=a|b|c")
        if key not in table:
            raise InputError(
                f"--vary {quote(item)}: {variant} has no rule key {quote(key)} "
                f"(mjlog rules {variant} lists them)"
            )
        if any(v.key == key for v in out):
            raise InputError(f"--vary names {quote(key)} twice")
        rk = table[key]
        if "|" in spec:
            raw = [s.strip() for s in spec.split("|")]
            vals = tuple(rk.parse(s, variant) for s in raw)
            if len(set(vals)) != len(vals):
                raise InputError(f"--vary {quote(item)} repeats a value")
            out.append(Vary(key, vals, numeric=False))
            continue
        parts = spec.split(":")
        if rk.kind == "pair" and len(parts) == 2:
            a, b = (rk.parse(p, variant) for p in parts)
            if None in a + b:
                raise InputError(
                    f"--vary {quote(item)}: a pair with '-' varies only as "
                    f"a list of values (KEY=a|b)"
                )
            line = [
                tuple(round(x + t / 10 * (y - x)) for x, y in zip(a, b, strict=True))
                for t in range(11)
            ]
            out.append(Vary(key, tuple(dict.fromkeys(line)), numeric=True))
            continue
        if rk.kind not in ("int", "pow2") or len(parts) not in (2, 3):
            raise InputError(
                f"--vary {quote(item)}: {quote(key)} is a {rk.kind} key; give "
                f"its values as KEY=a|b|c"
                if rk.kind not in ("int", "pow2")
                else f"bad --vary {quote(item)}; expected KEY=LO:HI[:STEP]"
            )
        lo, hi = (rk.parse(p, variant) for p in parts[:2])
        step = rk.parse(parts[2], variant) if len(parts) == 3 else 1
        if hi <= lo or step < 1:
            raise InputError(f"--vary {quote(item)}: expected LO < HI and a STEP of 1 or more")
        vals = (
            tuple(2**k for k in range(31) if lo <= 2**k <= hi)
            if rk.kind == "pow2"
            else tuple(range(lo, hi + 1, step))
        )
        if len(vals) < 2:
            raise InputError(f"--vary {quote(item)}: fewer than two values between {lo} and {hi}")
        out.append(Vary(key, vals, numeric=True))
    if not out:
        raise InputError("tune needs at least one --vary KEY=...")
    return out


# ------------------------------------------------------------------ what is wanted
@dataclass(frozen=True)
class Target:
    """``metric op value`` within ``tol`` (``=``), or at most / least ``value``."""

    metric: str
    op: str  # "=", "<=" or ">="
    value: float
    tol: float | None
    weight: float = 1.0

    @property
    def scale(self) -> float:
        if self.tol is not None:
            return self.tol
        return abs(self.value) / 10 if self.value else 0.01

    def miss(self, value: float) -> float:
        """How far ``value`` is from the target, in its scale (0: on target)."""
        if self.op == "=":
            d = value - self.value
        elif self.op == "<=":
            d = max(0.0, value - self.value)
        else:
            d = max(0.0, self.value - value)
        return d / self.scale

    def show(self) -> str:
        tol = f"±{self.tol:g}" if self.tol is not None else ""
        return f"{self.metric}{self.op}{self.value:g}{tol}"


_TARGET = re.compile(
    r"^\s*([a-z_]+(?:\[[a-z0-9_]+\])?)\s*(<=|>=|=)\s*([^±+]+?)\s*"
    r"(?:(?:±|\+-)\s*(\S+))?\s*$"
)


def parse_target(text: str, weights: Mapping[str, float] | None = None) -> Target:
    m = _TARGET.match(text)
    if not m:
        raise InputError(
            f"bad --target {quote(text)}; expected METRIC=VALUE±TOL (or +-), "
            f"METRIC<=VALUE or METRIC>=VALUE, say 'draw_rate<=0.02'"
        )
    metric, op, value, tol = m.groups()
    v = finite_float(value, f"the value of --target {quote(text)}")
    t = None if tol is None else finite_float(tol, f"the tolerance of --target {quote(text)}")
    if op == "=" and t is None:
        raise InputError(
            f"--target {quote(text)}: an equality target needs a tolerance (METRIC=VALUE±TOL)"
        )
    if t is not None and not t > 0:
        raise InputError(f"--target {quote(text)}: the tolerance must be above 0")
    return Target(metric, op, v, t, float((weights or {}).get(metric, 1.0)))


def parse_weights(items: Sequence[str]) -> dict[str, float]:
    out = {}
    for item in items:
        metric, eq, value = item.partition("=")
        if not eq or not metric.strip():
            raise InputError(f"bad --weight {quote(item)}; expected METRIC=W")
        w = finite_float(value.strip(), f"the weight of {quote(metric.strip())}")
        if not w > 0:
            raise InputError(f"the weight of {quote(metric.strip())} must be above 0")
        out[metric.strip()] = w
    return out


def check_targets(targets: Sequence[Target], rules) -> None:
    """Refuse, before any hand is played, a metric the runs cannot have."""
    known = names(rules.n, rules.spec.patterns(rules))
    for t in targets:
        if t.metric not in known:
            raise InputError(
                f"--target {quote(t.show())}: no metric {quote(t.metric)} for "
                f"{rules.variant}; valid: {', '.join(known[:6])}, …, "
                f"pattern_rate[KEY] for its patterns"
            )
    if len({t.metric for t in targets}) != len(targets):
        raise InputError("--target names a metric twice")


# ------------------------------------------------------------------ measuring a run
@dataclass
class Measured:
    """One candidate's figures: per metric the per-match (y, x) arrays (the unit of
    every interval and of the paired bootstrap) and the estimate."""

    arrays: dict[str, tuple[np.ndarray, np.ndarray | None]]
    hands: int
    units: dict[str, str] = dataclasses.field(default_factory=dict)  # metric → its unit
    #: Of ``hands``, those played (the rest settled from logged play: Study._run).
    played: int = -1

    def __post_init__(self) -> None:
        if self.played < 0:
            self.played = self.hands

    def value(self, metric: str) -> float:
        y, x = self.arrays[metric]
        return (
            float(y.sum() / x.sum())
            if x is not None and x.sum()
            else (float(y.mean()) if x is None and len(y) else math.nan)
        )

    def merged(self, other: Measured) -> Measured:
        def cat(a, b):
            return None if a is None else np.concatenate([a, b])

        return Measured(
            {
                m: (np.concatenate([y, other.arrays[m][0]]), cat(x, other.arrays[m][1]))
                for m, (y, x) in self.arrays.items()
            },
            self.hands + other.hands,
            self.units,
            self.played + other.played,
        )

    def judge(self, t: Target) -> dict[str, Any]:
        """``t`` judged on these matches (:func:`judge`)."""
        return judge(t, *self.arrays[t.metric], self.units.get(t.metric, ""))


def measure(run: str | Path, metrics: Sequence[str]) -> Measured:
    """The figures ``metrics`` of one run, per match (a pattern that never occurred
    is a rate of 0 on every match, not a missing figure)."""
    runs = queries.Runs(run, verify_hashes=False)
    units, pats = compare.match_units(runs)
    units = units.sort_values("match").reset_index(drop=True)
    patterns = patterns_in(metrics)
    arrays = compare.metric_arrays(units, pats, patterns)
    out: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
    unit_of = {}
    for m in metrics:
        y, x, unit = arrays[m]
        out[m] = (np.asarray(y, float), None if x is None else np.asarray(x, float))
        unit_of[m] = unit
    return Measured(out, int(units["hands"].sum()), unit_of)


def loss(targets: Sequence[Target], m: Measured) -> float:
    return float(sum(t.weight * t.miss(m.value(t.metric)) ** 2 for t in targets))


def _boot_best(
    targets: Sequence[Target], cands: Sequence[Measured], seed: int, draws: int = 400
) -> np.ndarray:
    """How often each candidate has the lowest loss over paired bootstrap resamples of
    the matches (the candidates share their walls, so a resample takes the same
    matches for all). Candidates tied for the lowest share that resample: two that
    the targets cannot tell apart are never "clearly best"."""
    n = min(len(c.arrays[targets[0].metric][0]) for c in cands)
    rng = np.random.default_rng(seed)
    wins = np.zeros(len(cands))
    for _ in range(draws):
        idx = rng.integers(0, n, n)
        ls = []
        for c in cands:
            total = 0.0
            for t in targets:
                y, x = c.arrays[t.metric]
                v = (y[idx].sum() / x[idx].sum()) if x is not None else y[idx].mean()
                total += t.weight * t.miss(float(v)) ** 2 if np.isfinite(v) else math.inf
            ls.append(total)
        best = np.flatnonzero(np.asarray(ls) == min(ls))
        wins[best] += 1 / len(best)
    return wins / draws


def _same_figures(a: Measured, b: Measured) -> bool:
    """Whether two candidates' figures agree on every match, for every target."""
    return all(
        np.array_equal(ya, yb) and (xa is None or (xb is not None and np.array_equal(xa, xb)))
        for (ya, xa), (yb, xb) in zip(a.arrays.values(), b.arrays.values(), strict=True)
    )


# ------------------------------------------------------------------ judging a target
def judge(t: Target, y: np.ndarray, x: np.ndarray | None, unit: str = "") -> dict[str, Any]:
    """A target tested on the confirmation's matches: its value with its 95 % interval
    (a rate's never zero-width, :func:`analysis.rates.metric_estimate`), and ``met``:
    ``true`` when the interval lies inside the tolerance (``V ± T``: two one-sided
    tests, 2.5 % each; ``<= V``: its upper bound at most ``V``), ``false`` when it lies
    wholly outside, else ``null`` (inconclusive)."""
    from analysis.rates import metric_estimate

    e = metric_estimate(y, x, unit) if x is not None else estimate(y, x)
    row = {
        "metric": t.metric,
        "op": t.op,
        "target": t.value,
        "tol": t.tol,
        "value": e.value,
        "lo": e.lo,
        "hi": e.hi,
        "matches": e.units,
    }
    if not (math.isfinite(e.lo) and math.isfinite(e.hi)):
        return {**row, "met": None, "verdict": "inconclusive"}
    if t.op == "=":
        band = (t.value - (t.tol or 0.0), t.value + (t.tol or 0.0))
        met = (
            True
            if band[0] <= e.lo and e.hi <= band[1]
            else False
            if e.hi < band[0] or e.lo > band[1]
            else None
        )
    elif t.op == "<=":
        met = True if e.hi <= t.value else False if e.lo > t.value else None
    else:
        met = True if e.lo >= t.value else False if e.hi < t.value else None
    verdict = {True: "met", False: "not met", None: "inconclusive"}[met]
    return {**row, "met": met, "verdict": verdict}


# ------------------------------------------------------------------ the search
@dataclass(frozen=True)
class Plan:
    """Everything that decides a tune's answer (its id hashes it)."""

    variant: str
    vary: tuple[Vary, ...]
    targets: tuple[Target, ...]
    agents: tuple[str, ...]
    sets: tuple[str, ...]
    budget: int
    trials: int
    hands_per_match: int
    seed: int

    @property
    def tune_id(self) -> str:
        doc = {
            "variant": self.variant,
            "sets": list(self.sets),
            "agents": list(self.agents),
            "vary": [[v.key, [v.show(x) for x in v.values]] for v in self.vary],
            "targets": [dataclasses.asdict(t) for t in self.targets],
            "budget": self.budget,
            "trials": self.trials,
            "hands_per_match": self.hands_per_match,
            "seed": self.seed,
        }
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]

    def split(self) -> tuple[int, int, int]:
        """Matches per explored trial, the race's budget and the confirmation's, in
        matches: half the hands explore, a quarter race, a quarter confirm."""
        hm = self.hands_per_match
        per_trial = max(1, self.budget // 2 // self.trials // hm)
        return per_trial, max(0, self.budget // 4 // hm), max(2, self.budget // 4 // hm)


def _grid(vary: Sequence[Vary], now: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every point of the varied keys, the rules as they are first when among them."""
    import itertools

    points = [
        dict(zip([v.key for v in vary], combo, strict=True))
        for combo in itertools.product(*(v.values for v in vary))
    ]
    first = [p for p in points if all(p[k] == now[k] for k in p)]
    return first + [p for p in points if p not in first]


_RUN_NAME = re.compile(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*")
"""A run of a tune directory, by its name there (``trials/003``, ``confirm``)."""


def _seed(plan: Plan, *parts: int) -> int:
    return derive(plan.seed, *parts) % SEED_SPACE


def _sets(plan: Plan, point: Mapping[str, Any]) -> list[str]:
    return [*plan.sets, *(f"{v.key}={v.show(point[v.key])}" for v in plan.vary)]


class Study:
    """A directory of runs with its journal ``DIR/tune.json``, shared by :class:`Tuner`
    and :class:`analysis.studies.rescore.Rescorer`: the journal names its study by
    ``plan.tune_id`` (a directory of another study, or of other files, is refused),
    is rewritten atomically after every step, and every run is an ordinary run
    directory resumed shard by shard. ``plan`` needs ``tune_id``, ``variant``,
    ``agents``, ``hands_per_match`` and ``seed``. ``settle=False`` plays every run,
    none settled from another's play (the same answer: for checking)."""

    settle = True

    def __init__(
        self,
        plan,
        out: str | Path,
        fresh: Mapping[str, Any],
        workers: int | None = None,
        scheduler: str | None = None,
        progress: Callable[[str], None] | None = None,
        settle: bool = True,
    ):
        self.plan, self.out = plan, Path(out)
        self.workers, self.scheduler, self.settle = workers, scheduler, settle
        self.say = progress or (lambda _line: None)
        self.doc = self._load(fresh)

    def _load(self, fresh: Mapping[str, Any]) -> dict[str, Any]:
        """The journal in ``out``, or ``fresh`` (the tune id and variant added) when
        there is none yet."""
        path = self.out / TUNE_FILE
        if path.exists():
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise MjlogError(f"{path}: not a tune journal ({e})") from None
            if not isinstance(doc, dict) or doc.get("tune_id") != self.plan.tune_id:
                raise MjlogError(
                    f"{path} belongs to another tune (tune id "
                    f"{doc.get('tune_id') if isinstance(doc, dict) else '?'}, "
                    f"this one {self.plan.tune_id}): choose another --out"
                )
            return doc
        if self.out.exists() and any(self.out.iterdir()):
            raise MjlogError(
                f"{self.out} holds files but no {TUNE_FILE}: choose a new or empty --out"
            )
        return {"tune_id": self.plan.tune_id, "variant": self.plan.variant, **fresh}

    def _save(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        write_atomic(
            self.out / TUNE_FILE,
            json.dumps(self.doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n",
            "--out",
        )

    def _run(
        self,
        name: str,
        sets: Sequence[str],
        seed: int,
        matches: int,
        agents: Sequence[str] | None = None,
    ) -> Path:
        """Play (or finish) the run ``DIR/name`` under the plan's rules and ``sets``, by
        the plan's line-up unless ``agents`` names another. When a run already played
        here differs from it only in money-only keys and the line-up never reads money,
        the run is settled from that one's logged play instead (the same bytes, at the
        cost of a replay: :mod:`simulate.resettled`); the journal's ``settled`` names
        the run it came from, ``played`` the runs that were played."""
        spec = RunSpec.build(
            self.plan.variant,
            seed,
            matches,
            self.plan.hands_per_match,
            list(agents or self.plan.agents),
            sets=list(sets),
        )
        run = self.out / name
        settled = self.doc.setdefault("settled", {})
        played = self.doc.setdefault("played", [])
        donor = self._donor(spec, name) if self.settle else None
        simulate(
            spec,
            run,
            workers=self.workers,
            scheduler=self.scheduler,
            progress=False,
            settle_from=self.out / donor if donor else None,
        )
        if donor:
            settled[name] = donor
        elif name not in played and name not in settled:
            played.append(name)
        return run

    def _donor(self, spec: RunSpec, name: str) -> str | None:
        """The first run played here whose play ``spec`` may reuse, if any."""
        if not money_blind(make_agents(spec.agents)):
            return None  # the common case of a tune: its agents respond to the rules
        # the journal is read back from disk: only a run name of this directory counts
        return next(
            (
                p
                for p in self.doc.get("played", ())
                if isinstance(p, str)
                and _RUN_NAME.fullmatch(p)
                and p != name
                and donor_problem(spec, self.out / p) is None
            ),
            None,
        )

    def _counted(self, name: str, m: Measured) -> Measured:
        """``m``, measured on run ``name``, with its hands counted as played or not."""
        if name in self.doc.get("settled", {}):
            m.played = 0
        return m


class Tuner(Study):
    """One tune: its plan, its directory, its journal."""

    def __init__(
        self,
        plan: Plan,
        out: str | Path,
        workers: int | None = None,
        scheduler: str | None = None,
        progress: Callable[[str], None] | None = None,
        settle: bool = True,
    ):
        super().__init__(
            plan,
            out,
            {"trials": [], "race": [], "confirm": None},
            workers,
            scheduler,
            progress,
            settle,
        )
        self.metrics = [t.metric for t in plan.targets]
        self.base_rules = resolve(plan.variant, sets=list(plan.sets))

    def _play(
        self,
        name: str,
        point: Mapping[str, Any],
        seed: int,
        matches: int,
        agents: Sequence[str] | None = None,
    ) -> Measured:
        return self._counted(
            name,
            measure(self._run(name, _sets(self.plan, point), seed, matches, agents), self.metrics),
        )

    def _point(self, trial: dict) -> dict[str, Any]:
        table = keys(self.plan.variant)
        return {
            v.key: table[v.key].parse(trial["point"][v.key], self.plan.variant)
            for v in self.plan.vary
        }

    # -- the three stages
    def explore(self) -> None:
        """``plan.trials`` candidates on the shared walls, the rules as they are first."""
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        plan = self.plan
        per_trial, _, _ = plan.split()
        dist: dict[str, optuna.distributions.BaseDistribution] = {
            v.key: optuna.distributions.IntDistribution(0, len(v.values) - 1)
            if v.numeric
            else optuna.distributions.CategoricalDistribution(list(range(len(v.values))))
            for v in plan.vary
        }

        def told(point: Mapping[str, Any], value: float):
            return optuna.trial.create_trial(
                params={v.key: v.values.index(point[v.key]) for v in plan.vary},
                distributions=dist,
                value=value,
            )

        study = optuna.create_study(direction="minimize")
        for t in self.doc["trials"]:
            study.add_trial(told(self._point(t), t["loss"]))
        now = {v.key: self.base_rules[v.key] for v in plan.vary}
        grid = (
            _grid(plan.vary, now)
            if math.prod(len(v.values) for v in plan.vary) <= plan.trials
            else None
        )
        for k in range(len(self.doc["trials"]), len(grid) if grid else plan.trials):
            if grid:  # every point fits the trials: try them all, as a sweep would
                point = grid[k]
            elif k == 0 and all(now[v.key] in v.values for v in plan.vary):
                point = now  # the rules as they are: "before"
            else:
                # a sampler seeded per trial: trial k depends on the seed, k and the
                # losses before it only, so a resumed tune proposes what it would have
                study.sampler = optuna.samplers.TPESampler(
                    seed=_seed(plan, 1, k), n_startup_trials=5
                )
                proposed = study.ask(dist)
                point = {v.key: v.values[proposed.params[v.key]] for v in plan.vary}
                study.tell(proposed, state=optuna.trial.TrialState.PRUNED)
            shown = {v.key: v.show(point[v.key]) for v in plan.vary}
            again = next((t for t in self.doc["trials"] if t["point"] == shown), None)
            if again is not None:  # the same rules on the same walls: the same figures
                row = {**again, "trial": k, "hands": 0, "same_as": again["trial"]}
            else:
                m = self._play(f"trials/{k:03d}", point, plan.seed, per_trial)
                row = {
                    "trial": k,
                    "point": shown,
                    "run": f"trials/{k:03d}",
                    "hands": m.played,
                    "loss": loss(plan.targets, m),
                    "values": {x: _finite(m.value(x)) for x in self.metrics},
                }
                if m.played < m.hands:
                    row["settled_from"] = self.doc["settled"][row["run"]]
                    row["settled"] = m.hands
            self.doc["trials"].append(row)
            study.add_trial(told(point, row["loss"]))
            self._save()
            self.say(
                f"tune: trial {k + 1}/{len(grid) if grid else plan.trials} {shown}: "
                f"loss {row['loss']:.3g}"
            )

    def race(self, top: int = 3) -> list[int]:
        """The best few distinct trials, played again on fresh shared walls, round after
        round, until one is clearly best (the lowest loss in 95 % of paired bootstrap
        resamples); returns them best first by their loss on all their hands."""
        plan = self.plan
        per_trial, race_matches, _ = plan.split()
        field: list[int] = []
        for t in sorted(self.doc["trials"], key=lambda t: (t["loss"], t["trial"])):
            if "same_as" not in t and len(field) < top:
                field.append(t["trial"])
        rounds = race_matches // (max(len(field), 1) * per_trial)
        if len(field) < 2 or rounds == 0:
            self.doc["race"] = []
            return field
        by_trial = {t["trial"]: t for t in self.doc["trials"]}
        data = {k: measure(self.out / by_trial[k]["run"], self.metrics) for k in field}
        self.doc["race"] = []
        share = np.zeros(len(field))
        for r in range(rounds):  # a resumed race replays nothing: its runs are complete
            hands = 0
            for k in field:
                extra = self._play(
                    f"race/{r:02d}/{k:03d}", self._point(by_trial[k]), _seed(plan, 2, r), per_trial
                )
                data[k] = data[k].merged(extra)
                hands += extra.played
            share = _boot_best(plan.targets, [data[k] for k in field], _seed(plan, 3, r))
            # candidates whose figures agree match for match: no round can part them
            tied = all(_same_figures(data[field[0]], data[k]) for k in field[1:])
            self.doc["race"].append(
                {
                    "round": r,
                    "trials": field,
                    "hands": hands,
                    "share_best": share.round(4).tolist(),
                    "losses": [loss(plan.targets, data[k]) for k in field],
                    **({"tied": True} if tied else {}),
                }
            )
            self._save()
            self.say(
                f"tune: race round {r + 1}/{rounds}: "
                + (
                    f"trials {field} tied: the targets cannot tell them apart"
                    if tied
                    else f"trial {field[int(share.argmax())]} best in {share.max():.0%} of resamples"
                )
            )
            if share.max() >= 0.95 or tied:
                break
        # best first by the loss on all its hands (the shared walls and every round)
        pooled = [loss(plan.targets, data[k]) for k in field]
        return [field[i] for i in np.argsort(pooled, kind="stable")]

    def confirm(self, best: int) -> dict[str, Any]:
        """The winner, and the rules as they were, on a fresh seed: each target judged."""
        plan = self.plan
        _, _, matches = plan.split()
        seed = _seed(plan, 4)
        m = self._play("confirm", self._point(self.doc["trials"][best]), seed, matches)
        rows = [m.judge(t) for t in plan.targets]
        first = self.doc["trials"][0]
        before, hands = None, m.played
        if best != 0 and all(
            first["point"][v.key] == v.show(self.base_rules[v.key]) for v in plan.vary
        ):
            b = self._play("confirm-before", self._point(first), seed, matches)
            before, hands = [b.judge(t) for t in plan.targets], hands + b.played
        self.doc["confirm"] = {
            "trial": best,
            "seed": seed,
            "hands": hands,
            "targets": _clean(rows),
            "before": _clean(before),
        }
        self._save()
        return self.doc["confirm"]

    def recheck(self, agents: Sequence[str]) -> dict[str, Any]:
        """The proposal and the rules as they were, under another line-up, on the
        confirmation's fresh walls: each target judged again (a proposal holds for the
        play it was tuned under; this says whether it holds for stronger play)."""
        plan, c = self.plan, self.doc["confirm"]
        _, _, matches = plan.split()
        label = ",".join(agents)
        tag = hashlib.sha256(label.encode()).hexdigest()[:8]
        m = self._play(
            f"recheck-{tag}",
            self._point(self.doc["trials"][c["trial"]]),
            c["seed"],
            matches,
            agents,
        )
        b = self._play(
            f"recheck-{tag}-before", self._point(self.doc["trials"][0]), c["seed"], matches, agents
        )
        entry = {
            "agents": label,
            "hands": m.played + b.played,
            "targets": _clean([m.judge(t) for t in plan.targets]),
            "before": _clean([b.judge(t) for t in plan.targets]),
        }
        self.doc.setdefault("recheck", {})[label] = entry
        self._save()
        return entry

    def run(self, recheck: Sequence[Sequence[str]] = ()) -> dict[str, Any]:
        """Explore, race, confirm; then recheck the proposal under each other line-up. A
        finished tune answers from its journal alone (its runs may be gone)."""
        if not self.doc.get("finished"):
            self.explore()
            order = self.race()
            confirm = self.doc.get("confirm")
            if not confirm or confirm.get("trial") != order[0]:
                self.confirm(order[0])
            self.doc["finished"] = True
            self._save()
        for agents in recheck:
            if ",".join(agents) not in self.doc.get("recheck", {}):
                self.recheck(agents)
        return self.result()

    def result(self) -> dict[str, Any]:
        c = self.doc["confirm"]
        best = self.doc["trials"][c["trial"]]
        rechecks = list(self.doc.get("recheck", {}).values())
        hands = (
            sum(t["hands"] for t in self.doc["trials"])
            + sum(r["hands"] for r in self.doc["race"])
            + c["hands"]
            + sum(r["hands"] for r in rechecks)
        )
        return {
            "tune_id": self.plan.tune_id,
            "variant": self.plan.variant,
            "agents": list(self.plan.agents),
            "best": best["point"],
            "before": {v.key: v.show(self.base_rules[v.key]) for v in self.plan.vary},
            "targets": c["targets"],
            "targets_before": c.get("before"),
            "trials": self.doc["trials"],
            "race": self.doc["race"],
            "hands": hands,
            "settled": dict(self.doc.get("settled", {})),
            "seed": self.plan.seed,
            "confirm_seed": c["seed"],
            "recheck": rechecks,
        }


def _finite(v: float) -> float | None:
    return v if math.isfinite(v) else None


def _clean(rows):
    if rows is None:
        return None
    return [{k: (_finite(v) if isinstance(v, float) else v) for k, v in r.items()} for r in rows]


# ------------------------------------------------------------------ what it writes
def rules_toml(result: Mapping[str, Any], plan: Plan) -> str:
    """The proposal as a rules file ``--rules`` reads: each changed key with the
    evidence in a comment above it."""
    import tomlkit

    doc = tomlkit.document()
    doc.add(
        tomlkit.comment(
            f"mjlog tune {plan.variant}, tune {result['tune_id']}: tuned "
            f"with {', '.join(plan.agents)}; {result['hands']} hands; "
            f"confirmed on seed {result['confirm_seed']}"
        )
    )
    for t in result["targets"]:
        doc.add(tomlkit.comment(_evidence(t)))
    table = keys(plan.variant)
    for v in plan.vary:
        value = table[v.key].parse(result["best"][v.key], plan.variant)
        doc.add(
            tomlkit.comment(
                f"{v.key}: {result['before'][v.key]} before, searched "
                f"{v.show(v.values[0])} to {v.show(v.values[-1])}"
            )
        )
        doc.add(v.key, toml_value(table[v.key], value))
    for s in plan.sets:
        k, _, val = s.partition("=")
        doc.add(tomlkit.comment(f"held at {s} during the tune"))
        doc.add(k.strip(), toml_value(table[k.strip()], table[k.strip()].parse(val, plan.variant)))
    return tomlkit.dumps(doc)


def toml_value(rk, value: Any) -> Any:
    """A rule value as a rules file holds it: a self-draw/discard pair as its ``S/D``
    text (TOML has no null for ``-``), anything else as its JSON value."""
    return rk.show(value) if rk.kind == "pair" else rk.to_json(value)


def _evidence(t: Mapping[str, Any]) -> str:
    want = f"{t['metric']}{t['op']}{t['target']:g}" + (f"±{t['tol']:g}" if t["tol"] else "")

    def fmt(v: float | None) -> str:
        return "nan" if v is None else f"{v:.4g}"

    return (
        f"{want}: {fmt(t['value'])} [{fmt(t['lo'])}, {fmt(t['hi'])}] over "
        f"{t['matches']} matches: {t['verdict']}"
    )


def _num(v: float | None, digits: int = 4) -> str:
    return "—" if v is None else f"{v:.{digits}g}"


def summary(result: Mapping[str, Any]) -> str:
    """The tune as text: the proposal, each target before and after (the confirmation's
    fresh walls) with its verdict, how each target responded to each key over the
    trials, and the trial history."""
    lines = [
        f"mjlog tune {result['variant']} (tune {result['tune_id']}, tuned with "
        f"{', '.join(result['agents'])}; {result['hands']} hands played):"
    ]
    if result.get("settled"):
        lines.append(
            f"  {len(result['settled'])} runs settled from logged play instead: only "
            f"money-only keys differ and no agent reads money (the same hands)"
        )
    lines.append("")
    lines.append(
        "proposal: "
        + ", ".join(f"{k}={v} (was {result['before'][k]})" for k, v in result["best"].items())
    )
    lines += ["", f"targets on fresh walls (seed {result['confirm_seed']}), 95 % intervals:"]
    before = {r["metric"]: r for r in result.get("targets_before") or []}
    for r in result["targets"]:
        want = f"{r['metric']}{r['op']}{r['target']:g}" + (f"±{r['tol']:g}" if r["tol"] else "")
        was = before.get(r["metric"])
        was_text = (
            (
                f"before {_num(was['value'])} [{_num(was['lo'])}, {_num(was['hi'])}] "
                f"({was['verdict']}); "
            )
            if was
            else ""
        )
        lines.append(
            f"  {want}: {was_text}after {_num(r['value'])} [{_num(r['lo'])}, "
            f"{_num(r['hi'])}]: {r['verdict'].upper()}"
        )
    unmet = [r["metric"] for r in result["targets"] if r["met"] is False]
    if unmet and len(result["targets"]) > 1:
        lines.append(
            f"  trade-off: {', '.join(unmet)} not met at the best compromise of the "
            f"weights; see how each target responds below"
        )
    for rc in result.get("recheck") or []:
        lines.append(f"  rechecked under {rc['agents']} (the same fresh walls):")
        was = {r["metric"]: r for r in rc["before"]}
        for r in rc["targets"]:
            w = was[r["metric"]]
            lines.append(
                f"    {r['metric']}: before {_num(w['value'])} [{_num(w['lo'])}, "
                f"{_num(w['hi'])}]; after {_num(r['value'])} [{_num(r['lo'])}, "
                f"{_num(r['hi'])}]: {r['verdict'].upper()}"
            )
    lines += ["", "response of each target to each key (trials on the shared walls):"]
    trials = [t for t in result["trials"] if "same_as" not in t]
    for key in result["best"]:
        for metric in (r["metric"] for r in result["targets"]):
            pts = sorted(
                {(t["point"][key], t["values"].get(metric)) for t in trials},
                key=lambda p: _order(p[0]),
            )
            lines.append(f"  {metric} by {key}: " + ", ".join(f"{k}→{_num(v, 3)}" for k, v in pts))
    lines += ["", "trials:"]
    for t in result["trials"]:
        pt = ", ".join(f"{k}={v}" for k, v in t["point"].items())
        same = (
            f" (as trial {t['same_as']}, not replayed)"
            if "same_as" in t
            else f" (settled from {t['settled_from']})"
            if "settled_from" in t
            else ""
        )
        lines.append(f"  {t['trial']:3d} {pt}: loss {t['loss']:.3g}{same}")
    for r in result["race"]:
        lines.append(
            f"  race round {r['round']}: trials {r['trials']} "
            + (
                "tied: the same figures on every match (the first is proposed)"
                if r.get("tied")
                else f"best in {', '.join(f'{s:.0%}' for s in r['share_best'])} of resamples"
            )
        )
    return "\n".join(lines)


def _order(shown: str) -> tuple:
    try:
        return (0, float(shown.split("/")[0]))
    except ValueError:
        return (1, shown)


def write_outputs(result: Mapping[str, Any], plan: Plan, out: str | Path) -> None:
    """``rules.toml`` (the proposal with its evidence) and ``report.txt`` (the summary)."""
    write_atomic(Path(out) / RULES_FILE, rules_toml(result, plan), "--out")
    write_atomic(Path(out) / "report.txt", summary(result) + "\n", "--out")


__all__ = [
    "Measured",
    "Plan",
    "Study",
    "Target",
    "Tuner",
    "Vary",
    "judge",
    "loss",
    "measure",
    "parse_target",
    "parse_vary",
    "parse_weights",
    "rules_toml",
    "summary",
    "toml_value",
    "write_outputs",
]
