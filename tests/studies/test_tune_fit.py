"""The tune's choice pools what every explored value says (analysis.studies.tune.fit).

An emulated tune (the Tuner's ``_run``/``_measure`` seam, as a calibration study
uses it): a figure that rises with 七对's value, shared walls whose luck moves every
candidate together, and one explored trial whose figure reads on target by luck. A
search that races each trial's own figure races that trial; the pooled fit does not.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from analysis.studies.tune import (
    Measured,
    Plan,
    RunAsked,
    Tuner,
    parse_target,
    parse_vary,
)

METRIC = "money_moved_per_hand"
LUCKY = 10  # the value whose explored figure reads on target by luck


def truth(q: int) -> float:
    """The emulated figure's true level at 七对 = q: on target (0.05 ± 0.01) from 40."""
    return 0.001 * q


def _value(run: RunAsked, key: str) -> int:
    """The value ``run`` sets ``key`` to."""
    return int(next(s for s in run.sets if s.startswith(f"{key}=")).split("=")[1])


class Emulated(Tuner):
    """A tune whose runs are drawn, not played: per match, the truth, plus the walls'
    luck (the same for every candidate on one seed), plus the candidate's own."""

    made: dict[str, tuple[int, int, int]]  # run → (七对, seed, matches)

    def _run(self, run: RunAsked) -> Path:
        self.made[run.name] = (_value(run, "fan.qidui"), run.seed, run.matches)
        return self.out / run.name

    def _measure(self, name: str, metrics: Sequence[str]) -> Measured:
        q, seed, matches = self.made[name]
        walls = np.random.default_rng(seed).normal(0, 0.01, matches)
        own = np.random.default_rng([seed, q]).normal(0, 0.004, matches)
        y = truth(q) + walls + own
        if q == LUCKY and seed == self.plan.seed:  # lucky on the explored walls only
            y = y + 0.04
        return Measured({METRIC: (y, None)}, matches * self.plan.hands_per_match)


def _plan(seed: int = 3) -> Plan:
    return Plan(
        "huangmei",
        tuple(parse_vary(["fan.qidui=10:60:5"], "huangmei")),
        (parse_target(f"{METRIC}=0.05±0.01"),),
        ("greedy",),
        (),
        budget=7040,  # 40 matches of 8 hands for each of the 11 values
        trials=12,
        hands_per_match=8,
        seed=seed,
    )


def _tune(out: Path, made: dict) -> Emulated:
    t = Emulated(_plan(), out)
    t.made = made
    t.explore()
    t.race()
    return t


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    made: dict = {}
    return _tune(tmp_path_factory.mktemp("fit") / "t", made), made


def test_a_trial_lucky_on_the_explored_walls_is_not_raced(tuned):
    t, _ = tuned
    j = t.journal
    lucky = next(r for r in j.trials if r.point["fan.qidui"] == str(LUCKY))
    # its own figure is on target: ranked by it, it would be among the best three
    own = sorted((r for r in j.trials if r.same_as is None), key=lambda r: (r.loss, r.trial))
    assert lucky.trial in [r.trial for r in own[:3]]
    assert abs(lucky.values[METRIC] - 0.05) < 0.01
    # the pooled fit puts it with its neighbours, far below the tolerance
    assert j.choice is not None and j.choice.fit is not None
    row = next(r for r in j.choice.fit if r["trial"] == lucky.trial)
    assert row["hi"] < 0.04 and row["lo"] <= row["fit"] <= row["hi"]
    assert j.race and all(lucky.trial not in r.trials for r in j.race)
    # and the proposal is truly within the tolerance
    chosen = int(j.trials[j.choice.chosen].point["fan.qidui"])
    assert 0.04 <= truth(chosen) <= 0.06


def test_the_fit_is_monotone_and_its_band_holds_the_truth(tuned):
    t, _ = tuned
    j = t.journal
    assert j.choice is not None and j.choice.fit is not None
    by_q = {int(j.trials[r["trial"]].point["fan.qidui"]): r for r in j.choice.fit}
    qs = sorted(by_q)
    fits = [by_q[q]["fit"] for q in qs]
    assert fits == sorted(fits)  # the figure rises with 七对's value: so does the fit
    # away from the lucky trial's pool, the band covers the truth
    assert sum(by_q[q]["lo"] <= truth(q) <= by_q[q]["hi"] for q in qs if q >= 30) >= 6


def test_the_fit_is_the_same_on_a_rerun_and_on_resume(tuned, tmp_path):
    t, made = tuned
    first = t.journal.to_json()
    again = _tune(tmp_path / "t", dict(made))
    assert again.journal.to_json() == first
    # resumed from the journal: the race and the choice are recomputed from the runs
    doc = json.loads((t.out / "tune.json").read_text(encoding="utf-8"))
    assert doc["choice"]["fit"] == first["choice"]["fit"]
    resumed = Emulated(_plan(), t.out)
    resumed.made = made
    resumed.explore()
    resumed.race()
    assert resumed.journal.to_json() == first


def test_the_race_ranks_on_its_own_walls_only(tuned):
    t, _ = tuned
    j = t.journal
    assert j.choice is not None and j.race
    last = j.race[-1]
    # the best is the lowest loss on the race's hands, whatever the explored said
    assert j.choice.best == last.trials[int(np.argmin(last.losses))]


def test_the_sampler_never_repeats_a_point_so_every_trial_plays_its_share(tmp_path):
    # 11 values, 8 trials: the sampler explores (no grid), and a point it proposes
    # again is replaced by the nearest untried one, not played as a repeat of 0 hands
    plan = dataclasses.replace(_plan(), trials=8)
    assert plan.grid() is None
    t = Emulated(plan, tmp_path / "t")
    t.made = {}
    t.explore()
    points = [r.point["fan.qidui"] for r in t.journal.trials]
    assert len(points) == 8 == len(set(points))
    assert all(r.same_as is None and r.hands > 0 for r in t.journal.trials)


def test_a_budget_too_small_to_race_chooses_by_the_fit(tmp_path):
    # two values, one match each: nothing is left for a race (a round needs a match
    # for each), so the fit chooses, never a trial's own figure alone
    plan = dataclasses.replace(
        _plan(), vary=tuple(parse_vary(["fan.qidui=15|45"], "huangmei")), budget=40
    )
    assert plan.split()[:2] == (1, 1)
    t = Emulated(plan, tmp_path / "t")
    t.made = {}
    t.explore()
    choice = t.race()
    assert t.journal.race == [] and choice.fit is not None
    fit = {r["trial"]: r["fit"] for r in choice.fit}
    assert sorted(fit) == [0, 1]
    assert choice.best == min(fit, key=lambda k: abs(fit[k] - 0.05))  # the fitted loss


class TwoKeys(Emulated):
    """The same truth, with 清一色 varied too: it moves nothing, but each of its values
    plays its own hands (its own noise), as real play under other rules would."""

    def _run(self, run):
        q, y = _value(run, "fan.qidui"), _value(run, "fan.qingyise")
        self.made[run.name] = (q, run.seed, run.matches, y)
        return self.out / run.name

    def _measure(self, name, metrics):
        q, seed, matches, y = self.made[name]
        walls = np.random.default_rng(seed).normal(0, 0.01, matches)
        own = np.random.default_rng([seed, q, y]).normal(0, 0.004, matches)
        return Measured({METRIC: (truth(q) + walls + own, None)}, matches * 8)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_key_no_target_responds_to_is_held_at_the_rulebooks_value(tmp_path, seed):
    vary = parse_vary(["fan.qidui=10:60:5", "fan.qingyise=5:40:5"], "huangmei")
    plan = dataclasses.replace(_plan(seed), vary=tuple(vary), trials=16, budget=20000)
    t = TwoKeys(plan, tmp_path / "t")
    t.made = {}
    t.explore()
    explored = {r.point["fan.qingyise"] for r in t.journal.trials}
    assert len(explored) > 3  # the sampler tried many of its values
    choice = t.race()
    assert choice.held == ["fan.qingyise"]  # its slope on money is indistinguishable from 0
    assert all(
        t.journal.trials[k].point["fan.qingyise"] == "15" for r in t.journal.race for k in r.trials
    )
    assert t.journal.trials[choice.chosen].point["fan.qingyise"] == "15"


class Noisy(Emulated):
    """Each candidate's own play far noisier than the walls' luck: a few hundred
    hands cannot tell neighbouring values apart."""

    def _measure(self, name, metrics):
        q, seed, matches = self.made[name]
        own = np.random.default_rng([seed, q]).normal(0, 0.03, matches)
        return Measured({METRIC: (truth(q) + own, None)}, matches * 8)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_least_change_breaks_ties_only(tmp_path, seed):
    # the race's own fit (its hands only) ranks the candidates; a candidate nearer the
    # rulebook is proposed only when that fit cannot tell it from the best (pooled into
    # one step), never for being "not told apart" on a few hundred noisy hands
    t = Noisy(_plan(seed), tmp_path / "t")
    t.made = {}
    t.explore()
    choice = t.race()
    if choice.chosen != choice.best:
        assert choice.chosen in choice.close and choice.best in choice.close
        fit = _race_fit(t)
        assert len({round(fit[k], 12) for k in choice.close}) == 1


def _race_fit(t: Emulated) -> dict[int, float]:
    """Each raced trial's figure on the race's own monotone fit (one key: the weighted
    isotonic regression of its figures on all its race matches, rising or falling,
    whichever fits better), recomputed from the runs."""
    from analysis.studies.tune.fit import isotonic

    j = t.journal
    field = sorted(j.race[0].trials, key=lambda k: int(j.trials[k].point["fan.qidui"]))
    ys, ws = [], []
    for k in field:
        y = np.concatenate(
            [t._measure(f"race/{r.round:02d}/{k:03d}", [METRIC]).arrays[METRIC][0] for r in j.race]
        )
        ys.append(y.mean())
        ws.append(float(len(y)))
    y, w = np.array(ys), np.array(ws)
    fits = [s * isotonic(s * y, w) for s in (1, -1)]
    best = min(fits, key=lambda f: float(np.sum(w * (y - f) ** 2)))
    return dict(zip(field, best.tolist(), strict=True))


def test_the_race_plays_its_whole_share(tuned):
    # one round of the whole quarter, or two halves when each still gives a candidate
    # an explored trial's matches; never a trial's share a round with the rest unplayed
    t, _ = tuned
    j = t.journal
    per_trial, race_matches, _ = t.plan.split()
    field = j.race[0].trials
    per = j.race[0].hands // (len(field) * 8)
    assert all(r.hands == per * len(field) * 8 for r in j.race)
    planned = 1 if per == race_matches // len(field) else 2
    assert planned == 1 or per == race_matches // (2 * len(field)) >= per_trial
    if len(j.race) == planned:  # not stopped early: all but the rounding played
        assert sum(r.hands for r in j.race) > (race_matches - planned * len(field)) * 8


def test_a_key_that_moves_nothing_is_called_moved_about_once_in_a_hundred():
    # 清一色 must keep its value in 95 % of tunes or more: a slope's 95 % interval
    # calls a key that moves nothing "moved" one time in twenty, a 99 % one once in
    # a hundred (fit.MOVED), while a key that moves the figure is still seen
    from analysis.studies.tune.fit import moved

    vary = parse_vary(["fan.qidui=10:40:10", "fan.qingyise=5:20:5"], "huangmei")
    points = [
        {"fan.qidui": q, "fan.qingyise": y} for q in (10, 20, 30, 40) for y in (5, 10, 15, 20)
    ]
    calls = []
    for seed in range(300):
        rng = np.random.default_rng(seed)
        walls = rng.normal(0, 0.01, 60)
        runs = [
            Measured({METRIC: (truth(p["fan.qidui"]) + walls + rng.normal(0, 0.01, 60), None)}, 480)
            for p in points
        ]
        calls.append(moved(vary, points, runs, [METRIC], seed))
    assert all(c["fan.qidui"] for c in calls)
    assert sum(c["fan.qingyise"] for c in calls) / len(calls) <= 0.025
