"""``mjlog tune VARIANT --rescore [PATTERN…]``: a pattern table that tracks difficulty.

In the spirit of the Official International Mahjong study (Wang, Li, Lu, Li,
arXiv 2601.08211: AI self-play, then revised pattern scores), each pattern's value
follows how rarely strong play makes it, and play is allowed to answer.

**The rule** (:class:`TableRule`). Each pattern has a *level* in its variant's own
form: huangmei's ``fan.X`` is its fan; xuezhan's ``mult.X`` a power of two, its
level the exponent (its fan, log₂ of the multiplier); yuxi's ``points.X`` a
self-draw/discard pair, its level the larger of the two. From the wins of a run:

1. a pattern's rate per win, shrunk so that a pattern never seen is the rarest
   and not infinitely rare: ``r = (k + ½) / (W + 1)`` (``k`` wins of ``W`` carry
   it);
2. its level, linear in ``−log r``: the commonest pattern of the whole table gets
   the table's lowest level as it stands, the rarest its highest, the others in
   between ``lo + (hi − lo) · (log r_common − log r) / (log r_common − log r_rare)``;
3. rounded to a whole level (halves up) within the key's allowed range
   (:class:`~mjlog.rulekeys.RuleKey` minimum and maximum; a power of two at most
   2³⁰), and written in the key's form: the fan; 2^level; a pair with its current
   S:D ratio, each side rounded (a side that was at least 1 stays at least 1, a
   ``-`` stays ``-``);
4. **the order kept**: a pattern never pays less than one it contains (for a pair:
   its level, and each side both have). Containment is taken from the scorers'
   pattern families (``CONTAINS`` in :mod:`mjlog.scoring.yuxi`, ``.xuezhan``,
   ``.huangmei``, transitively: 清七对 contains 七对 and 清一色, 杠上开花 counts
   instead of 自摸…), *and* from the data: a pattern seen in at least
   :data:`OBSERVED_MIN` wins of a round, every one of them also carrying B,
   contains B there. A rescored pattern that pays less than one it contains is
   raised to the least value that pays no less; a rescored pattern contained in
   one that keeps its value is lowered to pay no more. Values that stand for
   several counts of a pattern (huangmei's ``fan.facai_all``, four 发财) are
   raised to at least that many times it (``STANDS_FOR``).

Only the patterns named (all of the table when none is) change; the others keep
their values, and the rule is the same for a pattern named alone as for the
whole table (its anchors are the whole table's).

**Play adapts** (:func:`fixed_point`). Round 0 plays the rules as they are on the
shared walls (``--seed``), the rule proposes a table; round 1 plays that table on
the same walls, and so on, until the proposal is the table just played (a fixed
point: ``converged``) or ``--rounds`` are played (``max_rounds``; the last
proposal is taken). A value moves only when the rule lands at least
:data:`HYSTERESIS` of a level from it, and half as far for every time its moves
have turned back (:func:`_step`): with plain rounding a pattern whose rate jumps
across a whole level when its value does would flip between two values for
ever. Half of ``--budget`` is spread over the rounds.

**Confirmed like any tune**: the old table and the new one each on a quarter of
the budget, on a fresh seed; each pattern's rate per win with its 95 % interval
(the match as the unit) under both, and ``fresh``: what the rule gives from the
fresh walls under the new table (where it equals the new value, the table
reproduces itself on hands the search never saw).

>>> from mjlog.rules import keys
>>> rk = keys("yuxi")["points.longqidui"]
>>> level(rk, (6, 7)), from_level(rk, 11, (6, 7))
(7, (9, 11))
>>> from_level(keys("xuezhan")["mult.qidui"], 5, 4)
32
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis import queries
from analysis.compensation import round_units
from analysis.stats import estimate
from analysis.studies.pattern_table import level, pays_at_least, value_key
from analysis.studies.tune import RULES_FILE, RunAsked, Study, derived_seed, toml_value
from analysis.studies.tune.journal import RescoreJournal, finite
from mjlog.errors import InputError, MjlogError, quote
from mjlog.rulekeys import INT32_MAX, RuleKey
from mjlog.rules import Rules, keys, resolve
from mjlog.rundir import write_atomic
from mjlog.variants import VARIANTS, get_variant

__all__ = [
    "HYSTERESIS",
    "OBSERVED_MIN",
    "RULE",
    "RescorePlan",
    "Rescorer",
    "TableRule",
    "fixed_point",
    "from_level",
    "level",
    "observed_containment",
    "parse_patterns",
    "pays_at_least",
    "rule_levels",
    "rules_toml",
    "summary",
    "value_key",
    "write_outputs",
]

RATE_FLOOR = 0.5
"""Wins added to a pattern's count (and twice to the wins) before its rate is taken:
a pattern never seen is rarer than any seen, not infinitely rare."""
OBSERVED_MIN = 20
"""A pattern seen in at least this many wins of a round, each also carrying B,
contains B (fewer could share B by chance)."""
HYSTERESIS = 0.75
"""A value played moves only when the rule lands at least this many levels from it
(above ½: a level near a half would otherwise flip, its own response pushing it
back)."""
RULE = (
    "level linear in -log(rate per win), (k+1/2)/(W+1): the commonest pattern at the "
    "table's lowest level, the rarest at its highest; whole levels in the key's form "
    "and range (a value moves when the rule is 3/4 level away, half as far per time it "
    "turned back); a pattern pays no less than one it contains"
)
"""The rule in one line, for the report and the rules file."""


# ------------------------------------------------------------------ a value's level
def _range(rk: RuleKey) -> tuple[int, int]:
    """The levels the key allows."""
    if rk.kind == "pow2":
        lo = 0 if rk.minimum is None else max(0, math.ceil(math.log2(max(rk.minimum, 1))))
        return lo, 30 if rk.maximum is None else int(math.log2(rk.maximum))
    if rk.kind == "pair":
        return 0, INT32_MAX
    return (
        0 if rk.minimum is None else rk.minimum,
        INT32_MAX if rk.maximum is None else rk.maximum,
    )


def from_level(rk: RuleKey, lv: int, old: Any) -> Any:
    """The value of level ``lv`` in the key's form; a pair keeps ``old``'s S:D ratio."""
    if rk.kind == "pow2":
        return 2**lv
    if rk.kind == "pair":
        was = level(rk, old)
        return tuple(
            None if o is None else lv if was == 0 else max(min(o, 1), round_units(o * lv / was))
            for o in old
        )
    return lv


def rule_levels(counts: Mapping[str, int], wins: int, lo: int, hi: int) -> dict[str, float]:
    """Each pattern's level before rounding: linear in −log of its shrunk rate
    ``(k + ½)/(W + 1)``, the commonest at ``lo``, the rarest at ``hi``.

    >>> x = rule_levels({"a": 900, "b": 90, "c": 0}, 1000, 1, 30)
    >>> {p: round(v, 2) for p, v in x.items()}
    {'a': 1.0, 'b': 9.89, 'c': 30.0}
    """
    s = {p: -math.log((k + RATE_FLOOR) / (wins + 2 * RATE_FLOOR)) for p, k in counts.items()}
    common, rare = min(s.values()), max(s.values())
    span = rare - common
    return {p: lo + (hi - lo) * ((v - common) / span if span > 0 else 0.0) for p, v in s.items()}


def _step(path: Sequence[int], x: float) -> tuple[float, int]:
    """Where a value moves from the last level of ``path`` (the levels it was played
    at, round by round) when the rule gives ``x``: nowhere within
    :data:`HYSTERESIS`; else toward ``x``, by half as far for each time its moves
    turned back (an overshoot: bisection, so a value whose rate jumps across a
    whole level settles instead of flipping). Returns (target, turns).

    >>> _step([15, 28], 27.6), _step([15, 28], 26.0), _step([15, 28, 27], 25.6)
    ((28, 0), (27.0, 1), (26.3, 1))
    """
    now = path[-1]
    d = x - now
    if abs(d) < HYSTERESIS:
        return now, 0
    moves = [b - a for a, b in zip(path[:-1], path[1:], strict=True) if b != a] + [d]
    turns = sum(a * b < 0 for a, b in zip(moves[:-1], moves[1:], strict=True))
    return now + d / 2**turns, turns


def _closure(direct: Mapping[str, Sequence[str]]) -> dict[str, set[str]]:
    """Containment made transitive."""
    out = {a: set(bs) for a, bs in direct.items()}
    changed = True
    while changed:
        changed = False
        for a, bs in out.items():
            more = set().union(*(out.get(b, set()) for b in bs)) - bs - {a}
            if more:
                bs |= more
                changed = True
    return out


# ------------------------------------------------------------------ the rule
@dataclass(frozen=True)
class TableRule:
    """The rule of the module docstring for one variant under some rules: rates in,
    a table (value key → value) out."""

    variant: str
    patterns: tuple[str, ...]  # the whole table, in the scorer's order
    rescored: tuple[str, ...]  # those that change
    original: dict[str, Any]  # value key → value as the rules have it
    contains: dict[str, tuple[str, ...]]  # the scorer's families, direct
    stands_for: dict[str, tuple[str, int]]  # value key stem → (pattern, count)

    @classmethod
    def of(cls, rules: Rules, rescored: Sequence[str]) -> TableRule:
        v = rules.variant
        spec = get_variant(v)
        pats = spec.patterns(rules)
        stands = {k: s for k, s in getattr(spec.scorer, "STANDS_FOR", {}).items() if s[0] in pats}
        original = {value_key(v, p): rules[value_key(v, p)] for p in pats}
        original |= {value_key(v, k): rules[value_key(v, k)] for k in stands}
        contains = {
            a: tuple(b for b in bs if b in pats)
            for a, bs in getattr(spec.scorer, "CONTAINS", {}).items()
            if a in pats
        }
        return cls(v, pats, tuple(rescored), original, contains, stands)

    def key(self, pattern: str) -> str:
        return value_key(self.variant, pattern)

    def __call__(
        self,
        counts: Mapping[str, int],
        wins: int,
        observed: Mapping[str, Sequence[str]] | None = None,
        history: Sequence[Mapping[str, Any]] = (),
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The table for these counts (wins carrying each pattern, of ``wins``), and
        for each rescored pattern why it has its value. ``observed``: containment
        seen in the data (pattern → patterns every win of it carried); ``history``:
        the tables played so far, the last one under which the counts were played
        (:meth:`_step`: how far a value moves from it)."""
        spec = keys(self.variant)
        rk = {p: spec[self.key(p)] for p in self.patterns}
        now = [level(rk[p], self.original[self.key(p)]) for p in self.patterns]
        x = rule_levels({p: counts.get(p, 0) for p in self.patterns}, wins, min(now), max(now))
        table, why = dict(self.original), {}
        for p in self.rescored:
            lo, hi = _range(rk[p])
            why[p] = f"the rule gives level {x[p]:.2f}"
            target = x[p]
            if history:
                path = [level(rk[p], t[self.key(p)]) for t in history]
                target, turns = _step(path, x[p])
                if turns:
                    why[p] += f", turned back {turns}×: moved to {target:.2f}"
            lv = min(max(round_units(target), lo), hi)
            table[self.key(p)] = from_level(rk[p], lv, self.original[self.key(p)])
        direct = {a: list(bs) for a, bs in self.contains.items()}
        for a, bs in (observed or {}).items():
            direct.setdefault(a, []).extend(b for b in bs if b in rk and b != a)
        closure = _closure(direct)
        order = {p: i for i, p in enumerate(self.patterns)}
        for b in self.rescored:  # one kept as it is caps what it contains
            for a in (a for a in self.patterns if a not in self.rescored):
                if b in closure.get(a, ()) and not pays_at_least(
                    rk[b], table[self.key(a)], table[self.key(b)]
                ):
                    table[self.key(b)] = self._move(
                        rk[b], table[self.key(b)], table[self.key(a)], -1
                    )
                    why[b] += f"; lowered to pay no more than {a}, which contains it"
        changed = True
        while changed:  # raise each rescored pattern to pay no less than what it contains
            changed = False
            for a in self.rescored:
                for b in sorted(closure.get(a, ()), key=order.__getitem__):
                    va, vb = table[self.key(a)], table[self.key(b)]
                    if not pays_at_least(rk[a], va, vb):
                        moved = self._move(rk[a], va, vb, +1)
                        if moved != va:
                            table[self.key(a)] = moved
                            why[a] += f"; raised to pay no less than {b}, which it contains"
                            changed = True
        for stem, (p, n) in self.stands_for.items():
            k = self.key(stem)
            if p in self.rescored and table[k] < n * table[self.key(p)]:
                table[k] = min(n * table[self.key(p)], _range(spec[k])[1])
                why[p] += f"; {k} raised to {n} × it"
        return table, why

    def _move(self, rk: RuleKey, value: Any, other: Any, way: int) -> Any:
        """``value`` moved up (``way`` +1) to the least level that pays no less than
        ``other``, or down (−1) to the greatest that pays no more, within the key's
        range (as far as it goes when no level does)."""
        lo, hi = _range(rk)
        if rk.kind != "pair":  # one number: the other's level
            return from_level(rk, min(max(level(rk, other), lo), hi), value)
        lv = level(rk, value)
        for _ in range(1000):  # a pair's sides move by its ratio: a few steps do
            if not lo <= lv + way <= hi:
                break
            lv += way
            cand = from_level(rk, lv, value)
            if pays_at_least(rk, cand, other) if way > 0 else pays_at_least(rk, other, cand):
                return cand
        return from_level(rk, lv, value)


def fixed_point(
    start: dict[str, Any], step: Callable[[int, dict[str, Any]], dict[str, Any]], rounds: int
) -> tuple[dict[str, Any], str, int]:
    """Play ``step(r, table)`` (round ``r`` plays ``table`` and returns the rule's
    proposal) from ``start`` until the proposal is the table played (``converged``)
    or ``rounds`` are played (``max_rounds``, the last proposal taken): (the table,
    how it stopped, rounds played)."""
    table = start
    for r in range(rounds):
        new = step(r, table)
        if new == table:
            return table, "converged", r + 1
        table = new
    return table, "max_rounds", rounds


def observed_containment(run: str | Path, patterns: Sequence[str]) -> dict[str, list[str]]:
    """Containment seen in a run: pattern A (in at least :data:`OBSERVED_MIN` wins)
    → the other patterns every win carrying A carried too."""
    df = queries.Runs(run, verify_hashes=False).sql(
        "SELECT list_distinct(patterns) AS p FROM read_parquet($wins)"
    )
    wins = [set(p) for p in df["p"]]
    out = {}
    for a in patterns:
        with_a = [w for w in wins if a in w]
        if len(with_a) >= OBSERVED_MIN:
            always = set.intersection(*with_a) - {a}
            if always:
                out[a] = [b for b in patterns if b in always]
    return out


def parse_patterns(names: Sequence[str], rules: Rules) -> tuple[str, ...]:
    """The patterns ``--rescore`` names (all of the table when none), in table order;
    an unknown name, another variant's pattern or one the rules leave out refused."""
    v = get_variant(rules.variant)
    table = v.patterns(rules)
    for n in names:
        if n in table:
            continue
        if n in v.patterns():
            raise InputError(
                f"--rescore {quote(n)}: {rules.variant} has no pattern {quote(n)} "
                f"under these rules (a --set key leaves it out)"
            )
        elsewhere = [w for w, spec in VARIANTS.items() if n in spec.patterns()]
        where = f"; it is a pattern of {', '.join(elsewhere)}" if elsewhere else ""
        raise InputError(
            f"--rescore: {rules.variant} has no pattern {quote(n)}{where}; "
            f"its patterns: {', '.join(table)}"
        )
    if len(set(names)) != len(names):
        twice = next(n for n in names if list(names).count(n) > 1)
        raise InputError(f"--rescore names {quote(twice)} twice")
    for p in table:
        value_key(rules.variant, p)
    return tuple(p for p in table if p in names) if names else tuple(table)


# ------------------------------------------------------------------ the search
@dataclass(frozen=True)
class RescorePlan:
    """Everything that decides a rescore's answer (its id hashes it)."""

    variant: str
    patterns: tuple[str, ...]
    agents: tuple[str, ...]
    sets: tuple[str, ...]
    budget: int
    rounds: int
    hands_per_match: int
    seed: int

    @property
    def tune_id(self) -> str:
        doc = {
            "rescore": list(self.patterns),
            "variant": self.variant,
            "sets": list(self.sets),
            "agents": list(self.agents),
            "budget": self.budget,
            "rounds": self.rounds,
            "hands_per_match": self.hands_per_match,
            "seed": self.seed,
        }
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]

    def split(self) -> tuple[int, int]:
        """Matches per round and per confirmation run: half the hands for the rounds,
        a quarter for each table on the fresh seed."""
        hm = self.hands_per_match
        return (max(1, self.budget // 2 // self.rounds // hm), max(2, self.budget // 4 // hm))


class Rescorer(Study[RescorePlan, RescoreJournal]):
    """One rescore: the rounds to a fixed point, then the confirmation."""

    def __init__(
        self,
        plan: RescorePlan,
        out: str | Path,
        workers: int | None = None,
        scheduler: str | None = None,
        progress: Callable[[str], None] | None = None,
        settle: bool = True,
    ):
        super().__init__(plan, out, workers, scheduler, progress, settle)
        self.rules = resolve(plan.variant, sets=list(plan.sets))
        self.rule = TableRule.of(self.rules, plan.patterns)
        self.spec = keys(plan.variant)
        self.metrics = [f"pattern_rate[{p}]" for p in self.rule.patterns]

    def _fresh(self) -> RescoreJournal:
        return RescoreJournal(self.plan.tune_id, self.plan.variant)

    def _read(self, doc: Mapping[str, Any]) -> RescoreJournal:
        return RescoreJournal.from_json(doc)

    def _shown(self, table: Mapping[str, Any]) -> dict[str, str]:
        return {k: self.spec[k].show(v) for k, v in table.items()}

    def _parsed(self, shown: Mapping[str, str]) -> dict[str, Any]:
        return {k: self.spec[k].parse(v, self.plan.variant) for k, v in shown.items()}

    def _sets(self, table: Mapping[str, Any]) -> list[str]:
        return [
            *self.plan.sets,
            *(
                f"{k}={self.spec[k].show(v)}"
                for k, v in table.items()
                if v != self.rule.original[k]
            ),
        ]

    def _counts(self, m) -> tuple[dict[str, int], int]:
        counts = {p: int(m.arrays[f"pattern_rate[{p}]"][0].sum()) for p in self.rule.patterns}
        return counts, int(m.arrays[self.metrics[0]][1].sum())

    def search(self) -> tuple[dict[str, Any], str, int]:
        """The rounds on the shared walls until the table stops changing."""
        plan = self.plan
        per_round, _ = plan.split()
        played: list[dict[str, Any]] = []

        def step(r: int, table: dict[str, Any]) -> dict[str, Any]:
            played.append(table)
            if r < len(self.journal.rounds):  # journaled: the same walls, the same answer
                return self._parsed(self.journal.rounds[r]["proposed"])
            name = f"rounds/{r:02d}"
            run = self._run(RunAsked(name, self._sets(table), plan.seed, per_round))
            m = self._counted(name, self._measure(name, self.metrics))
            counts, wins = self._counts(m)
            if not wins:
                raise MjlogError(f"round {r}: no hand of {m.hands} was won; raise --budget")
            observed = observed_containment(run, self.rule.patterns)
            new, why = self.rule(counts, wins, observed, played)
            moved = sum(new[k] != table[k] for k in new)
            self.journal.rounds.append(
                {
                    "round": r,
                    "run": name,
                    "hands": m.played,
                    "wins": wins,
                    "table": self._shown(table),
                    "counts": counts,
                    "observed": observed,
                    "proposed": self._shown(new),
                    "why": why,
                    "changed": moved,
                }
            )
            self._save()
            self.say(
                f"tune --rescore: round {r + 1}/{plan.rounds}: {wins} wins, {moved} value(s) moved"
            )
            return new

        return fixed_point(dict(self.rule.original), step, plan.rounds)

    def confirm(self, table: dict[str, Any]) -> dict[str, Any]:
        """The old table and the new one on a fresh seed: each pattern's rate."""
        _, matches = self.plan.split()
        seed = derived_seed(self.plan, 4)
        old = self._counted(
            "confirm-before",
            self._measure(
                self._run(
                    RunAsked("confirm-before", self._sets(self.rule.original), seed, matches)
                ).name,
                self.metrics,
            ),
        )
        run = self.out / "confirm-before"
        new = old
        if table != self.rule.original:
            run = self._run(RunAsked("confirm", self._sets(table), seed, matches))
            new = self._counted("confirm", self._measure("confirm", self.metrics))
        counts, wins = self._counts(new)
        fresh = (
            self.rule(counts, wins, observed_containment(run, self.rule.patterns), [table])[0]
            if wins
            else table
        )

        def rates(m) -> dict[str, dict[str, float | None]]:
            out = {}
            for p in self.rule.patterns:
                e = estimate(*m.arrays[f"pattern_rate[{p}]"])
                out[p] = {
                    "value": finite(e.value),
                    "lo": finite(max(e.lo, 0.0)),
                    "hi": finite(min(e.hi, 1.0)),
                }
            return out

        self.journal.confirm = {
            "seed": seed,
            "proposal": self._shown(table),
            "hands": old.played + (new.played if new is not old else 0),
            "rate_old": rates(old),
            "rate_new": rates(new),
            "fresh": self._shown(fresh),
        }
        self._save()
        return self.journal.confirm

    def run(self) -> dict[str, Any]:
        table, stop, played = self.search()
        c = self.journal.confirm
        if not c or c.get("proposal") != self._shown(table):
            self.confirm(table)
        return self.result(table, stop, played)

    def result(self, table: dict[str, Any], stop: str, played: int) -> dict[str, Any]:
        c, rule, spec = self.journal.confirm, self.rule, self.spec
        assert c is not None
        last = self.journal.rounds[played - 1]  # every stop takes its proposal
        why = last["why"]
        rows = []
        for p in rule.patterns:
            k = rule.key(p)
            rows.append(
                {
                    "pattern": p,
                    "name": get_variant(rule.variant).pattern_name(p),
                    "key": k,
                    "old": spec[k].to_json(rule.original[k]),
                    "new": spec[k].to_json(table[k]),
                    "rescored": p in rule.rescored,
                    "rate_old": c["rate_old"][p],
                    "rate_new": c["rate_new"][p],
                    "fresh": spec[k].to_json(spec[k].parse(c["fresh"][k], rule.variant)),
                    "why": why.get(p),
                }
            )
        best = {
            k: spec[k].show(v)
            for k, v in table.items()
            if k in {rule.key(p) for p in rule.rescored} or v != rule.original[k]
        }
        rescored_keys = [rule.key(p) for p in rule.rescored]
        return {
            "tune_id": self.plan.tune_id,
            "variant": rule.variant,
            "mode": "rescore",
            "agents": list(self.plan.agents),
            "patterns": list(rule.rescored),
            "rule": RULE,
            "stop": stop,
            "rounds_played": played,
            "best": best,
            "before": {k: spec[k].show(rule.original[k]) for k in best},
            "reproduced": sum(c["fresh"][k] == spec[k].show(table[k]) for k in rescored_keys),
            "table": rows,
            "containment": sorted(
                [a, b]
                for a, bs in _closure({**{a: list(bs) for a, bs in rule.contains.items()}}).items()
                for b in bs
            ),
            "observed": last["observed"],
            "rounds": [
                {x: r[x] for x in ("round", "run", "hands", "wins", "changed", "proposed")}
                for r in self.journal.rounds
            ],
            "hands": sum(r["hands"] for r in self.journal.rounds) + c["hands"],
            "seed": self.plan.seed,
            "confirm_seed": c["seed"],
        }


# ------------------------------------------------------------------ what it writes
_STOP = {
    "converged": "a fixed point: the table stopped changing",
    "max_rounds": "still changing at the round limit: the last proposal is taken",
}


def _stopped(result: Mapping[str, Any]) -> str:
    return (
        f"{result['stop'].replace('_', ' ')} after {result['rounds_played']} round(s) "
        f"({_STOP[result['stop']]})"
    )


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.2f}"


def _rate(r: Mapping[str, float | None]) -> str:
    return f"{_pct(r['value'])} % [{_pct(r['lo'])}, {_pct(r['hi'])}]"


def _shown_json(v: Any) -> str:
    if isinstance(v, list):
        return "/".join("-" if x is None else str(x) for x in v)
    return str(v)


def summary(result: Mapping[str, Any]) -> str:
    """The old and new tables side by side, with each pattern's rate under both on
    the fresh walls, how the search stopped, and its rounds."""
    lines = [
        f"mjlog tune {result['variant']} --rescore (tune {result['tune_id']}, tuned "
        f"with {', '.join(result['agents'])}; {result['hands']} hands):",
        f"search: {_stopped(result)}",
        f"rule: {result['rule']}",
        "",
        f"tables on fresh walls (seed {result['confirm_seed']}); rates per win, 95 % "
        f"intervals; fresh: what the rule gives there under the new table:",
    ]
    head = ("pattern", "key", "old", "new", "fresh", "rate old", "rate new", "name")
    rows = [
        (
            r["pattern"] + ("" if r["rescored"] else " (kept)"),
            r["key"],
            _shown_json(r["old"]),
            _shown_json(r["new"]),
            _shown_json(r["fresh"]) if r["rescored"] else "",
            _rate(r["rate_old"]),
            _rate(r["rate_new"]),
            r["name"],
        )
        for r in result["table"]
    ]
    width = [max(len(str(x[i])) for x in (head, *rows)) for i in range(len(head))]
    for row in (head, *rows):
        lines.append(
            "  " + "  ".join(str(c).ljust(w) for c, w in zip(row, width, strict=True)).rstrip()
        )
    keys_in_rows = {r["key"] for r in result["table"]}
    for k, v in result["best"].items():
        if k not in keys_in_rows:
            lines.append(f"  also moved: {k} {result['before'][k]} → {v}")
    n = sum(r["rescored"] for r in result["table"])
    lines += [
        "",
        f"the new table reproduces {result['reproduced']} of its {n} rescored "
        f"values on the fresh walls",
        "",
        f"rounds (shared walls, seed {result['seed']}):",
    ]
    for r in result["rounds"]:
        lines.append(
            f"  {r['round']}: {r['hands']} hands, {r['wins']} wins, {r['changed']} value(s) moved"
        )
    return "\n".join(lines)


def rules_toml(result: Mapping[str, Any], plan: RescorePlan) -> str:
    """The new table as a rules file ``--rules`` reads: each value with its evidence
    in a comment above it, and the keys held by ``--set``."""
    import tomlkit

    spec = keys(plan.variant)
    doc = tomlkit.document()
    doc.add(
        tomlkit.comment(
            f"mjlog tune {plan.variant} --rescore, tune {result['tune_id']}: tuned with "
            f"{', '.join(plan.agents)}; {result['hands']} hands; {_stopped(result)}; "
            f"confirmed on seed {result['confirm_seed']}"
        )
    )
    doc.add(tomlkit.comment(f"rule: {RULE}"))
    doc.add("variant", plan.variant)
    for s in plan.sets:
        k, _, val = (x.strip() for x in s.partition("="))
        if k not in result["best"]:
            doc.add(tomlkit.comment(f"held at {s} during the tune"))
            doc.add(k, toml_value(spec[k], spec[k].parse(val, plan.variant)))
    rows = {r["key"]: r for r in result["table"]}
    tables: dict[str, Any] = {}
    for k, shown in result["best"].items():
        head, _, leaf = k.partition(".")
        if head not in tables:
            tables[head] = tomlkit.table()
            doc.add(head, tables[head])
        r = rows.get(k)
        note = (
            f"{r['pattern']} ({r['name']}): {_shown_json(r['old'])} -> {shown}; "
            f"{_rate(r['rate_new'])} of wins under the new table on fresh walls, "
            f"{_rate(r['rate_old'])} under the old; {r['why']}"
            if r
            else f"{result['before'][k]} -> {shown}: kept in order with what it stands for"
        )
        tables[head].add(tomlkit.comment(note))
        tables[head].add(leaf, toml_value(spec[k], spec[k].parse(shown, plan.variant)))
    return tomlkit.dumps(doc)


def write_outputs(result: Mapping[str, Any], plan: RescorePlan, out: str | Path) -> None:
    """``rules.toml`` (the new table with its evidence) and ``report.txt``."""
    write_atomic(Path(out) / RULES_FILE, rules_toml(result, plan), "--out")
    write_atomic(Path(out) / "report.txt", summary(result) + "\n", "--out")
