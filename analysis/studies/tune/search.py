"""The search: explore, race, confirm (and recheck), journaled step by step."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analysis.studies.tune import effects, sizing
from analysis.studies.tune.choice import distance, same_everywhere
from analysis.studies.tune.fit import Fit, fitted, fitted_loss, fitted_values, moved
from analysis.studies.tune.grammar import Target, Vary
from analysis.studies.tune.journal import (
    Choice,
    Confirmation,
    RaceRound,
    Recheck,
    Trial,
    TuneJournal,
    clean,
    finite,
)
from analysis.studies.tune.measuring import Measured, boot_best, loss, same_figures
from analysis.studies.tune.study import RunAsked, Study, derived_seed
from mjlog.rules import keys, resolve
from simulate.estimate import duration


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
    #: A candidate may not break the containment order of the pattern table (a
    #: pattern never pays less than one it contains): --keep-order, on by default.
    keep_order: bool = True

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
            # named only when off, so that the tunes before it keep their ids
            **({} if self.keep_order else {"keep_order": False}),
        }
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]

    def rulebook(self) -> dict[str, Any]:
        """The varied keys as the rules (and ``--set``) have them."""
        rules = resolve(self.variant, sets=list(self.sets))
        return {v.key: rules[v.key] for v in self.vary}

    def grid(self) -> list[dict[str, Any]] | None:
        """Every point, the rules as they are first (searched or not), when they all
        fit in ``--trials``; else None (the sampler explores ``--trials`` points)."""
        if math.prod(len(v.values) for v in self.vary) > self.trials:
            return None
        now = self.rulebook()
        return [now] + [p for p in _grid(self.vary, now) if p != now]

    def explored(self) -> int:
        """How many trials explore: every point of a grid, else ``--trials``."""
        grid = self.grid()
        return self.trials if grid is None else len(grid)

    def split(self) -> tuple[int, int, int]:
        """Matches per explored trial, the race's budget and the confirmation's, in
        matches: half the hands explore (shared by the trials actually explored: a grid
        of fewer points than ``--trials`` gives each more), a quarter race, a quarter
        confirm."""
        hm = self.hands_per_match
        per_trial = max(1, self.budget // 2 // self.explored() // hm)
        return per_trial, max(0, self.budget // 4 // hm), max(2, self.budget // 4 // hm)

    def shown(self) -> dict[str, list[str]]:
        """Each varied key's values as the journal shows them."""
        return {v.key: [v.show(x) for x in v.values] for v in self.vary}


BATCH = 4
"""Explored trials asked of the search at once and played side by side, after the
rules as they are (played alone first): a trial's point depends on the losses of the
batches before its own. Fixed by the study, never by the workers, so that the answer
is the same whatever they are; a few, so that the search still learns as it goes."""

RACE_ROUNDS = 2
"""The race's rounds at most: its share of the budget split evenly between them (one
when a round would give a candidate fewer matches than an explored trial had)."""


def _grid(vary: Sequence[Vary], now: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every point of the varied keys, the rules as they are first when among them."""
    points = [
        dict(zip([v.key for v in vary], combo, strict=True))
        for combo in itertools.product(*(v.values for v in vary))
    ]
    first = [p for p in points if all(p[k] == now[k] for k in p)]
    return first + [p for p in points if p not in first]


def _untried(
    plan: Plan, rulebook: Mapping[str, Any], tried: Sequence[Mapping[str, str]], point: dict
) -> dict[str, Any]:
    """``point``, or when it was ``tried`` already the untried point nearest it (in
    steps along each key's values; the first in grid order among equals): a repeat
    would leave its share of the exploration's hands unplayed. A space too large to
    list (over 100,000 points) keeps the repeat."""

    def shown(p: Mapping[str, Any]) -> dict[str, str]:
        return {v.key: v.show(p[v.key]) for v in plan.vary}

    if shown(point) not in tried or math.prod(len(v.values) for v in plan.vary) > 100_000:
        return point

    def steps(p: Mapping[str, Any]) -> int:
        return sum(
            abs(v.values.index(p[v.key]) - v.values.index(point[v.key]))
            if v.numeric
            else int(p[v.key] != point[v.key])
            for v in plan.vary
        )

    fresh = (p for p in _grid(plan.vary, rulebook) if shown(p) not in tried)
    return min(fresh, key=steps, default=point)


def _sets(plan: Plan, point: Mapping[str, Any]) -> list[str]:
    return [*plan.sets, *(f"{v.key}={v.show(point[v.key])}" for v in plan.vary)]


class Tuner(Study[Plan, TuneJournal]):
    """One tune: its plan, its directory, its journal."""

    plan: Plan
    own = ("pilot",)  # --budget auto's pilot, played before the plan is known
    #: When the progress clock started, and the hands played then (the ETA's base).
    _clock: tuple[float, int] | None = None

    def __init__(
        self,
        plan: Plan,
        out: str | Path,
        workers: int | None = None,
        scheduler: str | None = None,
        progress: Callable[[str], None] | None = None,
        settle: bool = True,
    ):
        self.base_rules = resolve(plan.variant, sets=list(plan.sets))
        #: The rules as they are, on the varied keys: always measured (trial 0).
        self.rulebook = {v.key: self.base_rules[v.key] for v in plan.vary}
        super().__init__(plan, out, workers, scheduler, progress, settle)
        self.metrics = [t.metric for t in plan.targets]
        self.explored = plan.trials  # the trials explore() plays (fewer on a grid)
        #: Each explored run's figures, read once (:meth:`fit` reads them all).
        self._figures: dict[str, Measured] = {}

    def _fresh(self) -> TuneJournal:
        return TuneJournal(self.plan.tune_id, self.plan.variant)

    def _read(self, doc: Mapping[str, Any]) -> TuneJournal:
        allowed = {
            v.key: [*shown, v.show(self.rulebook[v.key])]
            for v, shown in zip(self.plan.vary, self.plan.shown().values(), strict=True)
        }
        return TuneJournal.from_json(doc, allowed)

    def _play_all(
        self, asked: Sequence[tuple[str, Mapping[str, Any], int, int, Sequence[str] | None]]
    ) -> list[Measured]:
        """Several runs (name, point, seed, matches, line-up) played side by side
        (:meth:`Study._runs`), each measured as soon as it is complete, while the
        others play (the study's reading overlaps the workers' playing)."""
        got: dict[str, Measured] = {}

        def read(name: str) -> None:
            got[name] = self._measure(name, self.metrics)

        self._runs(
            [RunAsked(n, _sets(self.plan, p), seed, m, a) for n, p, seed, m, a in asked], read
        )
        return [self._counted(n, got[n]) for n, *_ in asked]

    def _point(self, trial: Trial) -> dict[str, Any]:
        table = keys(self.plan.variant)
        return {
            v.key: table[v.key].parse(trial.point[v.key], self.plan.variant) for v in self.plan.vary
        }

    # -- the three stages
    def explore(self) -> None:
        """``plan.trials`` candidates on the shared walls, the rules as they are first."""
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        plan, trials = self.plan, self.journal.trials
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

        # the rules as they are come first, searched or not: "before", and the
        # candidate of no change
        grid = plan.grid()
        self.explored = len(grid) if grid else plan.trials
        start = 0
        while start < self.explored:
            # a batch of trials asked at once and played side by side: trial 0 alone
            # (the sizing reads it, and money-only tunes settle from it), then
            # BATCH at a time; its size is the study's, never the workers'
            end = min(self.explored, 1 if start == 0 else start + BATCH)
            if len(trials) < end:
                points = grid[start:end] if grid else self._asked(start, end, dist, told)
                for row in self._trials(points[len(trials) - start :]):
                    self.say(
                        f"tune: trial {row.trial + 1}/{self.explored} {row.point}: "
                        f"loss {row.loss:.3g}{self._eta()}"
                    )
                if start == 0:
                    self._size()
            start = end

    def _asked(self, start: int, end: int, dist: dict[str, Any], told) -> list[dict]:
        """The points of trials ``start … end − 1``, asked of the sampler at once: trial
        ``k``'s depends on the seed, ``k`` and the losses of the trials before
        ``start`` only (a study rebuilt from the journal for each batch, a sampler
        seeded per trial), so a resumed tune, or one on other workers, asks the same."""
        import optuna

        plan, trials = self.plan, self.journal.trials
        study = optuna.create_study(direction="minimize")
        for t in trials[:start]:
            if all(self._point(t)[v.key] in v.values for v in plan.vary):
                study.add_trial(told(self._point(t), t.loss))  # the rulebook may lie outside
        tried = [t.point for t in trials[:start]]
        points: list[dict] = []
        for k in range(start, end):
            if k == 0:
                point = dict(self.rulebook)
            else:
                study.sampler = optuna.samplers.TPESampler(
                    seed=derived_seed(plan, 1, k), n_startup_trials=5
                )
                proposed = study.ask(dist)
                point = _untried(
                    plan,
                    self.rulebook,
                    tried,
                    {v.key: v.values[proposed.params[v.key]] for v in plan.vary},
                )
                study.tell(proposed, state=optuna.trial.TrialState.PRUNED)
            tried.append({v.key: v.show(point[v.key]) for v in plan.vary})
            points.append(point)
        return points

    def _size(self) -> None:
        """What the budget can confirm, per target, sized on trial 0 (the rules as
        they are: the first hands played); one line for each it cannot."""
        j, plan = self.journal, self.plan
        if j.sizing is not None or not j.trials:
            return
        pilot = self._measure(j.trials[0].run, self.metrics)
        j.sizing = [
            sizing.from_pilot(t, pilot, plan.budget, plan.hands_per_match) for t in plan.targets
        ]
        self._save()
        for t, row in zip(plan.targets, j.sizing, strict=True):
            if line := sizing.said(row, t, plan.budget):
                self.say(line)

    def planned_hands(self) -> int:
        """The hands the tune plays (or settles) in all: the trials, the race and the
        confirmation with the rules as they are beside it."""
        per_trial, race, confirm = self.plan.split()
        hm = self.plan.hands_per_match
        return (self.plan.explored() * per_trial + race + 2 * confirm) * hm

    def _timed(self) -> str:
        """``, about T on N workers`` as ``mjlog plan`` times it (a few hands of the rules as
        they are, played here), or nothing when no progress is shown."""
        if not self.verbose:
            return ""
        import os

        from analysis.studies.plan import seconds_per_hand
        from simulate.runner import RunSpec

        plan = self.plan
        spec = RunSpec.build(
            plan.variant,
            plan.seed,
            2,
            plan.hands_per_match,
            list(plan.agents),
            sets=_sets(plan, self.rulebook),
        )
        sec, n = seconds_per_hand(spec, hands=16, budget=3.0)
        workers = self.workers or os.cpu_count() or 1
        if not n:
            return ""
        return (
            f", {duration(sec * self.planned_hands() / workers)} on {workers} worker(s) "
            f"(timed on {n} hands here, more than the first estimate's)"
        )

    def _eta(self) -> str:
        """``; N of ~M hands, ETA …`` for a progress line: the hands made so far in
        this process against the wall time they took."""
        import time

        hands = sum(
            t.hands + (t.settled or 0) for t in self.journal.trials if t.same_as is None
        ) + sum(r.hands for r in self.journal.race)
        now = time.monotonic()
        start = self._clock
        if start is None:
            self._clock = (now, hands)
            return f"; {hands:,} of ~{self.planned_hands():,} hands"
        t0, h0 = start
        rate = (hands - h0) / (now - t0) if now > t0 and hands > h0 else 0.0
        left = max(self.planned_hands() - hands, 0)
        eta = f", ETA {duration(left / rate)}" if rate > 0 else ""
        return f"; {hands:,} of ~{self.planned_hands():,} hands{eta}"

    def _trial(self, point: Mapping[str, Any]) -> Trial:
        """The next trial: ``point`` on the shared walls, journaled (:meth:`_trials`)."""
        return self._trials([point])[0]

    def _trials(self, points: Sequence[Mapping[str, Any]]) -> list[Trial]:
        """The next trials: ``points`` on the shared walls, played side by side (a point
        already tried is not replayed: the same rules on the same walls give the same
        figures), journaled in order."""
        plan, trials = self.plan, self.journal.trials
        shown = [{v.key: v.show(p[v.key]) for v in plan.vary} for p in points]
        fresh: dict[int, str] = {}  # the points to play, by their place in ``points``
        for i, sh in enumerate(shown):
            if not any(t.point == sh for t in trials) and sh not in shown[:i]:
                fresh[i] = f"trials/{len(trials) + i:03d}"
        matches = plan.split()[0]
        played = self._play_all(
            [(fresh[i], points[i], plan.seed, matches, None) for i in sorted(fresh)]
        )
        measured = dict(zip(sorted(fresh), played, strict=True))
        rows = []
        for i, sh in enumerate(shown):
            k = len(trials)
            again = next((t for t in trials if t.point == sh), None)
            if again is not None:
                row = dataclasses.replace(again, trial=k, hands=0, same_as=again.trial)
            else:
                name, m = fresh[i], measured[i]
                row = Trial(
                    trial=k,
                    point=sh,
                    run=name,
                    hands=m.played,
                    loss=loss(plan.targets, m),
                    values={x: finite(m.value(x)) for x in self.metrics},
                )
                if m.played < m.hands:  # hands: those played; settled: the rest
                    row.settled_from, row.settled = self.journal.settled[name], m.hands - m.played
            trials.append(row)
            rows.append(row)
        self._save()
        return rows

    def _explored_figures(self, k: int) -> Measured:
        """Trial ``k``'s figures on the shared walls, read once per tune process."""
        run = self.journal.trials[k].run
        if run not in self._figures:
            self._figures[run] = self._measure(run, self.metrics)
        return self._figures[run]

    def fit(self, upto: int | None = None) -> tuple[list[int], Fit]:
        """What every explored value says, pooled: each target fitted against the
        keys over every distinct trial (the first ``upto`` only, when given), with its
        band (:mod:`analysis.studies.tune.fit`); the trials fitted, in order."""
        plan, j = self.plan, self.journal
        ks = [t.trial for t in j.trials[:upto] if t.same_as is None]
        f = fitted(
            plan.vary,
            [self._point(j.trials[k]) for k in ks],
            [self._explored_figures(k) for k in ks],
            self.metrics,
            derived_seed(plan, 6),
        )
        return ks, f

    def _nearer_points(self, point: Mapping[str, Any]) -> list[dict[str, Any]]:
        """``point`` with each changed key put back at the rulebook's value, one key at a
        time: the candidates that say whether the targets need that key moved at all."""
        out = []
        for v in self.plan.vary:
            if point[v.key] != self.rulebook[v.key]:
                out.append({**point, v.key: self.rulebook[v.key]})
        return out

    def _trials_of(self, points: Sequence[Mapping[str, Any]], whys: Sequence[str]) -> list[int]:
        """The trial of each of ``points`` (the first of that point), those not tried
        yet played on the shared walls side by side (``whys[i]`` says why point ``i``
        is tried, in its progress line)."""
        j, vary = self.journal, self.plan.vary

        def shown(p: Mapping[str, Any]) -> dict[str, str]:
            return {v.key: v.show(p[v.key]) for v in vary}

        def found(p: Mapping[str, Any]) -> int | None:
            sh = shown(p)
            return next((t.trial for t in j.trials if t.point == sh and t.same_as is None), None)

        new: list[int] = []  # the places in ``points`` of those to play
        for i, p in enumerate(points):
            if found(p) is None and all(shown(p) != shown(points[n]) for n in new):
                new.append(i)
        for i, row in zip(new, self._trials([points[i] for i in new]), strict=True):
            self.say(f"tune: trial {row.trial + 1} {row.point} ({whys[i]})")
        got = [found(p) for p in points]
        assert all(t is not None for t in got)
        return [t for t in got if t is not None]

    def _field(self, ks: Sequence[int], f: Fit) -> list[int]:
        """The race's candidates from the pooled fit, in order: the points whose fitted
        band overlaps every target's tolerance, by fitted loss and among equals (the
        fit pools neighbours into steps) nearest the rulebook; then the others by
        fitted loss. :meth:`race` takes the first few. The rules as they are race anyway.

        By fitted loss, not nearest the rulebook first: on emulated tunes (as
        tests/studies/test_tune_fit.py emulates them, 40 seeds) nearest-first
        raced values at the tolerance's edge that the race could not tell from the
        best, and least change then proposed them (31 of 40 proposals truly within
        tolerance, against 35 of 40 by fitted loss; the final choice stays nearest
        the rulebook among those the race cannot tell apart)."""
        plan, j = self.plan, self.journal
        fl = {k: f.loss(plan.targets, i) for i, k in enumerate(ks)}

        def order(k: int) -> tuple[float, tuple[int, float], int]:
            return fl[k], distance(plan.vary, self._point(j.trials[k]), self.rulebook), k

        near = sorted((ks[i] for i in f.plausible(plan.targets) if ks[i] != 0), key=order)
        return list(dict.fromkeys([*near, *sorted(ks, key=order)]))

    def _breaks(self, trial: Trial) -> list[str]:
        """The containment orders ``trial`` breaks, when --keep-order holds them."""
        if not self.plan.keep_order or trial.trial == 0:  # the rulebook is as it is
            return []
        return effects.broken_order(self.base_rules, self._point(trial))

    def race(self, top: int = 3) -> Choice:
        """The candidates the pooled fit of every explored trial points to
        (:meth:`fit`, :meth:`_field`: never a trial's own noisy figure), each with the
        keys no target responds to put back at the rulebook's value (:meth:`held`),
        the rules as they are and the best one nearer them (:meth:`_nearer_points`), played
        again on fresh shared walls: the race's whole quarter of the budget, in one
        round or two (the second skipped when one candidate has the lowest loss in
        95 % of paired bootstrap resamples). Ranked on the race's own hands only (the
        explored ones chose the field: pooling them would favour the luckiest, a
        winner's curse), by its own pooled fit; least change breaks ties only
        (:meth:`_chosen`). A budget too small to race leaves the choice to the
        explored fit."""
        plan, j = self.plan, self.journal
        _, race_matches, _ = plan.split()
        ks, f = self.fit(self.explored)
        held = self.held(ks)
        order = self._field(ks, f)
        # the best fitted, each with the keys no target moves put back; then the rules
        # as they are and the best nearer them: those not tried yet played together
        shown: list[dict[str, str]] = []
        points: list[dict[str, Any]] = []
        for k in order:
            p = self._projected(k, held)
            sh = {v.key: v.show(p[v.key]) for v in plan.vary}
            if sh not in shown:
                shown.append(sh)
                points.append(p)
            if len(points) == top:
                break
        nearer = self._nearer_points(points[0])  # (trial 0 is always among ``order``)
        whys = ["the keys no target moves kept"] * len(points)
        got = self._trials_of([*points, *nearer], whys + ["nearer the rulebook"] * len(nearer))
        field = list(dict.fromkeys(got[: len(points)]))
        extra = [0, *got[len(points) :]]
        field += [k for k in dict.fromkeys(extra) if k not in field]
        ks, f = self.fit()  # every distinct trial, the nearer ones too: the journal's
        # the race plays its whole share (a round of a trial's share each left a third
        # of it unplayed): in RACE_ROUNDS rounds when each still gives a candidate at
        # least an explored trial's matches (a candidate clearly best after the first
        # ends it early), else in one
        per_trial = plan.split()[0]
        rounds = RACE_ROUNDS if race_matches // (RACE_ROUNDS * len(field)) >= per_trial else 1
        rounds = rounds if race_matches >= len(field) else 0
        per_round = race_matches // (len(field) * rounds) if rounds else 0
        raced: dict[int, Measured] = {}
        j.race = []
        share = np.zeros(len(field))
        for r in range(rounds if len(field) >= 2 else 0):
            # a resumed race replays nothing: its runs are complete
            hands = 0
            # the round's candidates side by side
            played = self._play_all(
                [
                    (
                        f"race/{r:02d}/{k:03d}",
                        self._point(j.trials[k]),
                        derived_seed(plan, 2, r),
                        per_round,
                        None,
                    )
                    for k in field
                ]
            )
            for k, more in zip(field, played, strict=True):
                raced[k] = raced[k].merged(more) if k in raced else more
                hands += more.played
            share = boot_best(plan.targets, [raced[k] for k in field], derived_seed(plan, 3, r))
            # candidates whose figures agree match for match: no round can part them
            tied = all(same_figures(raced[field[0]], raced[k]) for k in field[1:])
            j.race.append(
                RaceRound(
                    round=r,
                    trials=field,
                    hands=hands,
                    share_best=share.round(4).tolist(),
                    losses=[loss(plan.targets, raced[k]) for k in field],
                    tied=tied,
                )
            )
            self._save()
            self.say(
                f"tune: race round {r + 1}/{rounds}: "
                + (
                    f"trials {field} tied: the targets cannot tell them apart"
                    if tied
                    else f"trial {field[int(share.argmax())]} best in {share.max():.0%} of resamples"
                )
                + self._eta()
            )
            if share.max() >= 0.95 or tied:
                break
        j.choice = self._chosen(field, raced, ks, f)
        j.choice.held = [v.key for v in plan.vary if v.key in held]
        self._save()
        return j.choice

    def held(self, ks: Sequence[int]) -> list[str]:
        """The varied keys no target is shown to respond to over the trials ``ks``
        (:func:`analysis.studies.tune.fit.moved`): the proposal keeps their rulebook
        values."""
        j = self.journal
        response = moved(
            self.plan.vary,
            [self._point(j.trials[k]) for k in ks],
            [self._explored_figures(k) for k in ks],
            self.metrics,
            derived_seed(self.plan, 7),
        )
        return [k for k, yes in response.items() if not yes]

    def _projected(self, k: int, held: Sequence[str]) -> dict[str, Any]:
        """Trial ``k``'s point with the ``held`` keys at the rulebook's value."""
        return {**self._point(self.journal.trials[k]), **{key: self.rulebook[key] for key in held}}

    def _chosen(
        self, field: list[int], raced: Mapping[int, Measured], ks: Sequence[int], f: Fit
    ) -> Choice:
        """The choice among the raced ``field``: the lowest loss of the race's own fit
        (the pooled monotone fit of :mod:`analysis.studies.tune.fit`, on the race's
        hands only), or without a race of the explored fit ``f`` of the trials ``ks``.
        Least change breaks ties only: among the candidates the fit cannot tell
        apart (the same fitted loss: pooled into one step), the nearest the rulebook.
        A candidate the fit places further from the target is not chosen for being
        nearer the rulebook: the proposal is where the evidence puts the target."""
        plan, j = self.plan, self.journal
        own = {k: loss(plan.targets, raced[k]) for k in raced}  # the race's raw figures
        if raced:
            value = fitted_values(
                plan.vary,
                [self._point(j.trials[k]) for k in field],
                [raced[k] for k in field],
                self.metrics,
            )
            ranked = {k: fitted_loss(plan.targets, value, i) for i, k in enumerate(field)}
        else:
            ranked = {k: f.loss(plan.targets, ks.index(k)) for k in field}
        best = min(field, key=lambda k: (ranked[k], field.index(k)))
        broken = [k for k in field if self._breaks(j.trials[k])]

        def tied(k: int) -> bool:
            return math.isclose(ranked[k], ranked[best], rel_tol=1e-9, abs_tol=1e-300)

        close = [k for k in field if k not in broken and tied(k)]
        if not close:  # the best breaks the order and so do the ones tied with it
            close = [min((k for k in field if k not in broken), key=lambda k: ranked[k])]
        # no change when the rules as they are are tied with the best; else among the
        # tied, the race's own figure nearest the targets, then the least change
        chosen = min(
            close,
            key=lambda k: (
                distance(plan.vary, self._point(j.trials[k]), self.rulebook) != (0, 0.0),
                own.get(k, 0.0),
                distance(plan.vary, self._point(j.trials[k]), self.rulebook),
                field.index(k),
            ),
        )
        data = raced or {k: self._explored_figures(k) for k in field}
        unmoved = [
            t.metric
            for t in plan.targets
            if len({tr.values.get(t.metric) for tr in j.trials}) == 1
            and same_everywhere([data[k] for k in field], t.metric)
        ]
        return Choice(best, close, chosen, unmoved, broken, f.rows(ks))

    def confirm(self, best: int) -> Confirmation:
        """The winner, and the rules as they were, on a fresh seed: each target judged."""
        plan, j = self.plan, self.journal
        _, _, matches = plan.split()
        seed = derived_seed(plan, 4)
        first = j.trials[0]
        asked = [("confirm", self._point(j.trials[best]), seed, matches, None)]
        if best != 0 and all(
            first.point[v.key] == v.show(self.base_rules[v.key]) for v in plan.vary
        ):  # the rules as they are beside it, side by side
            asked.append(("confirm-before", self._point(first), seed, matches, None))
        m, *other = self._play_all(asked)
        rows = [m.judge(t) for t in plan.targets]
        before, hands, compared = None, m.played, None
        if other:
            b = other[0]
            before, hands = [b.judge(t) for t in plan.targets], hands + b.played
            self.say("tune: comparing the proposal with the rules as they are")
            compared = effects.compared(
                self.out / "confirm-before", self.out / "confirm", plan.targets
            )
        j.confirm = Confirmation(
            best, seed, hands, clean(rows) or [], clean(before), compared if before else None
        )
        self._save()
        return j.confirm

    def recheck(self, agents: Sequence[str]) -> Recheck:
        """The proposal and the rules as they were, under another line-up, on the
        confirmation's fresh walls: each target judged again (a proposal holds for the
        play it was tuned under; this says whether it holds for stronger play)."""
        plan, j = self.plan, self.journal
        assert j.confirm is not None
        c = j.confirm
        _, _, matches = plan.split()
        label = ",".join(agents)
        tag = hashlib.sha256(label.encode()).hexdigest()[:8]
        m, b = self._play_all(
            [
                (f"recheck-{tag}", self._point(j.trials[c.trial]), c.seed, matches, agents),
                (f"recheck-{tag}-before", self._point(j.trials[0]), c.seed, matches, agents),
            ]
        )
        entry = Recheck(
            label,
            m.played + b.played,
            clean([m.judge(t) for t in plan.targets]) or [],
            clean([b.judge(t) for t in plan.targets]) or [],
        )
        j.recheck[label] = entry
        self._save()
        return entry

    def run(self, recheck: Sequence[Sequence[str]] = ()) -> dict[str, Any]:
        """Explore, race, confirm; then recheck the proposal under each other line-up. A
        finished tune answers from its journal alone (its runs may be gone)."""
        j = self.journal
        if not j.finished:
            if not j.trials:  # before the first hand: what this budget cannot confirm
                self._clock = None
                for t in self.plan.targets:
                    row = sizing.floor(t, self.plan.budget, self.plan.hands_per_match)
                    if line := sizing.said(row, t, self.plan.budget):
                        self.say(line)
                self.say(
                    f"tune: about {self.planned_hands():,} hands to play or settle with the "
                    f"race and the confirmation's two runs{self._timed()}"
                )
            self.explore()
            chosen = self.race().chosen
            if j.confirm is None or j.confirm.trial != chosen:
                self.confirm(chosen)
            j.finished = True
            self._save()
        for agents in recheck:
            if ",".join(agents) not in j.recheck:
                self.recheck(agents)
        return self.result()

    def _least_change(self, chosen: Trial, before: Mapping[str, str]) -> dict[str, Any]:
        """Why each key the proposal leaves alone keeps its rulebook value, and why no
        change is proposed when none is."""
        j, ch = self.journal, self.journal.choice
        if ch is None:  # a journal of a tune before least change
            return {"kept": {}, "no_change": None, "choice": None}
        top = j.trials[ch.best]
        kept = {}
        for k, v in chosen.point.items():
            if v != before[k]:
                continue
            # a candidate as good as the best that moved this key, if any was raced
            other = next((j.trials[c] for c in ch.close if j.trials[c].point[k] != v), None)
            kept[k] = (
                f"kept at {v} (the rulebook's): no target responds to it (over the explored "
                f"trials each target's slope on it is indistinguishable from 0)"
                if k in ch.held
                else f"kept at {v} (the rulebook's): {top.point[k]} (trial {top.trial}, the "
                f"lowest loss) breaks the containment order (--keep-order)"
                if top.point[k] != v and top.trial in ch.broken
                else f"kept at {v} (the rulebook's): the targets cannot tell it from "
                f"{top.point[k]} (trial {top.trial}, the lowest loss)"
                if top.point[k] != v
                else f"kept at {v} (the rulebook's): the targets cannot tell it from "
                f"{other.point[k]} (trial {other.trial})"
                if other is not None
                else f"kept at {v} (the rulebook's): the lowest loss has it there"
            )
        no_change = None
        if chosen.trial == 0:
            targets = [t.metric for t in self.plan.targets]
            no_change = (
                f"no varied key moves {', '.join(ch.unmoved)}: every candidate reads the "
                f"same on every match"
                if ch.unmoved and set(ch.unmoved) == set(targets)
                else "the rules as they are have the lowest loss"
                if ch.best == 0
                else f"the lowest loss (trial {ch.best}) breaks the containment order "
                f"(--keep-order), and no candidate that keeps it is told from the rules "
                f"as they are"
                if ch.best in ch.broken
                else f"the evidence cannot tell the rules as they are from the lowest "
                f"loss (trial {ch.best}) on the targets"
            )
        return {"kept": kept, "no_change": no_change, "choice": ch.to_json()}

    def result(self) -> dict[str, Any]:
        j = self.journal
        c = j.confirm
        assert c is not None
        best = j.trials[c.trial]
        rechecks = [r.to_json() for r in j.recheck.values()]
        hands = (
            sum(t.hands for t in j.trials)
            + sum(r.hands for r in j.race)
            + c.hands
            + sum(r["hands"] for r in rechecks)
        )
        before = {v.key: v.show(self.rulebook[v.key]) for v in self.plan.vary}
        changed = [k for k, v in best.point.items() if v != before[k]]
        vs = {
            r["metric"]: {x: r[x] for x in ("diff", "lo", "hi", "verdict", "margin")}
            for r in c.compared or []
        }
        size = j.sizing or [
            sizing.floor(t, self.plan.budget, self.plan.hands_per_match) for t in self.plan.targets
        ]
        return {
            "tune_id": self.plan.tune_id,
            "variant": self.plan.variant,
            "agents": list(self.plan.agents),
            "best": best.point,
            "before": before,
            "changed": changed,
            **self._least_change(best, before),
            "targets": [
                {
                    **r,
                    **({"vs_rulebook": vs.get(r["metric"])} if c.compared is not None else {}),
                    **{k: size[i][k] for k in ("half_width", "confirmable", "hands_needed")},
                    "hands_to_propose": size[i].get("hands_to_propose"),
                }
                for i, r in enumerate(c.targets)
            ],
            "targets_before": c.before,
            "side_effects": effects.side_effects(c.compared or [], self.plan.targets),
            "standing": effects.standing(self.base_rules, self._point(best)),
            "order": {
                "kept": self.plan.keep_order,
                "left_out": {
                    str(k): self._breaks(j.trials[k]) for k in (j.choice.broken if j.choice else [])
                },
                "broken": effects.broken_order(self.base_rules, self._point(best)),
            },
            "trials": [t.to_json() for t in j.trials],
            "race": [r.to_json() for r in j.race],
            "hands": hands,
            "budget": self.plan.budget,
            "settled": dict(j.settled),
            "seed": self.plan.seed,
            "confirm_seed": c.seed,
            "recheck": rechecks,
        }
