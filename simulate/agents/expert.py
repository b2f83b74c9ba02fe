"""``expert``: strategic's play, searched where it matters.

At a decision that matters it *determinizes* and plays out: it samples the
hidden tiles (the other seats' concealed hands and the wall) among the
assignments that agree with everything its seat sees (:attr:`SeatView.history
<mjlog.agent.SeatView.history>`), uniformly, then tilted toward the other seats
holding the near-ready hands that play builds (``tilt``; :mod:`mjlog.sampling`),
rebuilds the hand from that sample with the engine's own transition
(:class:`mjlog.state.HandState`), then plays each candidate to the end of the
hand with a fast rollout policy in every seat (:func:`mjlog.engine.play`). The
engine scores, so the points are those of the rules in force. Every candidate
meets the same samples and the same rollout streams (common random numbers), so
their difference is measured with less noise than their values.

The decisions searched, and their candidates:

- a discard once strategic's best discard leaves the hand within ``shanten`` of
  ready: strategic's pick and the next ones of its acceptance ranking (same
  shanten), up to ``candidates`` in all;
- a kong on its own turn: strategic's pick, each kong, the best discard;
- a claim window (pon, kong, win or pass) and a self-draw win it may pass:
  every choice (a self-draw win against strategic's best other choice);
- with ``plans=1``, at any discard: each plan strategic weighs but does not
  choose, played out as a plan (:class:`simulate.agents.rollouts.Committed`);
- with ``fold=1``, at any discard where strategic reads an opponent as
  dangerous: the *fold plan* (:class:`simulate.agents.rollouts.Fold`) against
  building on.

Skipped: a single legal choice, forced wins (the engine applies them), the
xuezhan void choice and void-suit discards (strategic's rules). The pick is
strategic's unless another candidate's mean points beat it by more than ``z``
standard errors of the paired difference: a small budget should not make it
play worse than strategic by noise alone. The budget can go where the pick is
in doubt (``most`` > ``rollouts``): the alternatives that lead after
``rollouts`` samples, and the pick, meet ``most`` − ``rollouts`` fresh ones, on
which alone the margin is judged.

How strong it is, and what each setting was measured to gain or lose (ladders,
paired A/Bs, the ceiling of a search that sees the real hands), is in
``research/results/expert.md``; the measuring tools are in ``research/``.

Parameters (``--agents expert:rollouts=8;candidates=3``):

- ``rollouts`` (int ≥ 0, default 8): samples per decision, each candidate played
  out once per sample (0: no search, strategic's play exactly);
- ``most`` (int ≥ 0, default 8): samples in all where an alternative leads
  after the first ``rollouts`` (``most`` ≤ ``rollouts``: one stage);
- ``candidates`` (int ≥ 2, default 3): discards compared at most;
- ``shanten`` (int ≥ −1, default 1): discards are searched from this shanten down;
- ``policy`` (``quick`` | ``greedy`` | ``efficient`` | ``strategic``, default
  ``efficient``): the rollout policy of the other seats;
- ``own`` (the same choices, default ``strategic``): the rollout policy of its
  seat (so a candidate is valued as the agent will go on to play it);
- ``z`` (float ≥ 0, default 2.0): the margin, in standard errors, a candidate must
  beat strategic's pick by;
- ``fold`` (0 or 1, default 0): also weigh the fold plan;
- ``read`` (0 or 1, default 0): redraw a sample in which another seat could have
  won earlier but the hand went on (see :func:`mjlog.sampling.rebuild`), so
  the samples agree with the other seats' play, not only with the tile counts;
- ``plans`` (0 or 1, default 0): at every discard also weigh each plan strategic
  passes over there (the plain hand, 七对, one suit, 碰碰胡:
  :meth:`StrategicAgent.plan_options`);
- ``confirm`` (0 or 1, default 0): an overruling candidate must beat strategic's
  pick again, in total points, on as many fresh samples as it met;
- ``tilt`` (float ≥ 0, default 0.35): move the other seats' sampled concealed
  tiles toward the hands their play makes likely (:func:`mjlog.sampling._tilt`);
  a seat that has drawn ``d`` tiles is weighted ``exp(−tilt × d × shanten)``;
- ``reading`` (0 or 1, default 0): also tilt the samples by a reading learned
  from play (:mod:`simulate.agents.reading`);
- ``steps`` (int ≥ 0, default 300): the tilt's proposals per sample;
- ``tries`` (int ≥ 1, default 4): draws of a fresh sample when one cannot be
  replayed; past them that sample is dropped.

Its randomness is its hand stream's (seed, hand, seat): its strategic reads that
stream itself (so where it does not overrule, it plays exactly as ``strategic`` in
that seat), and sample ``i`` of a decision draws from a stream derived from a
copy of it.

>>> from simulate.agents import make_agent
>>> a = make_agent("expert:rollouts=4;policy=efficient")
>>> a.name, a.params["rollouts"], a.params["candidates"], a.params["policy"]
('expert', 4, 3, 'efficient')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from copy import copy
from typing import cast

from mjlog.agent import SeatView
from mjlog.engine import play
from mjlog.events import DISCARD, KONG, VOID, WIN, Event, tile_of
from mjlog.rng import Stream, derive
from mjlog.sampling import Inconsistent, rebuild, sample_wall
from mjlog.state import HandState
from simulate.agents.efficient import unseen_counts
from simulate.agents.params import parse_params
from simulate.agents.reading import coefficients, utilities
from simulate.agents.rollouts import Fold, rollout_agents
from simulate.agents.strategic import StrategicAgent

DEFAULTS = {
    "rollouts": 8,
    "most": 8,
    "candidates": 3,
    "shanten": 1,
    "policy": "efficient",
    "own": "strategic",
    "z": 2.0,
    "fold": 0,
    "read": 0,
    "tries": 4,
    "confirm": 0,
    "tilt": 0.35,
    "steps": 300,
    "plans": 0,
    "reading": 0,
}
POLICIES = ("quick", "greedy", "efficient", "strategic")
_MINIMUM = {
    "rollouts": 0,
    "most": 0,
    "candidates": 2,
    "shanten": -1,
    "z": 0.0,
    "tries": 1,
    "tilt": 0.0,
    "steps": 0,
}
#: the search stream's tag beside the hand stream's first draw
_SEARCH = 0x5EA7C4


def _check(k: str, v) -> str | None:
    if k in ("fold", "read", "confirm", "plans", "reading"):
        return None if v in (0, 1) else "0 or 1"
    # nan and inf never get here: parse_params refuses a non-finite float
    return None if v >= _MINIMUM[k] else f"at least {_MINIMUM[k]}"


def _parse(params: dict) -> dict:
    return parse_params(
        "expert", params, DEFAULTS, choices={"policy": POLICIES, "own": POLICIES}, check=_check
    )


def _lead(alt: list[int], pick: list[int]) -> tuple[float, float]:
    """Mean and standard error of ``alt`` less ``pick`` over the samples both met
    (the first ``len(alt)``); (0, 0) with fewer than two."""
    m = len(alt)
    if m < 2:
        return 0.0, 0.0
    d = [a - b for a, b in zip(alt, pick, strict=False)]
    mean = sum(d) / m
    var = sum((x - mean) ** 2 for x in d) / (m - 1)
    return mean, math.sqrt(var / m)


def _ahead(points: list[list[int]]) -> list[int]:
    """The alternatives (indices past 0, the pick) whose mean beats the pick's."""
    return [j for j in range(1, len(points)) if _lead(points[j], points[0])[0] > 0]


def _judge(points: list[list[int]], ahead: list[int], z: float) -> int:
    """The index of the plan to play: of ``ahead``, the one with the largest mean
    lead over the pick among those leading it by ``z`` standard errors; else 0."""
    best, best_mean = 0, 0.0
    for j in ahead:
        mean, se = _lead(points[j], points[0])
        if mean > 0 and mean - z * se >= 0 and (best == 0 or mean > best_mean):
            best, best_mean = j, mean
    return best


def decide(points: list[list[int]], rollouts: int, most: int, z: float) -> tuple[int, int]:
    """What :meth:`ExpertAgent.search` would play (without ``confirm``) had its
    playouts given ``points`` (per plan, the pick's first, at least ``most``
    samples each, the same samples for every plan): the plan's index and the
    samples it would have drawn. Offline, one set of playouts prices many budgets
    (:func:`research.expert_calibration.budget`).

    >>> decide([[0, 0, 0, 0], [1, 2, 1, 2]], rollouts=2, most=4, z=2.0)
    (1, 4)
    >>> decide([[0, 0, 0, 0], [-1, 2, 1, 2]], rollouts=2, most=2, z=2.0)
    (0, 2)
    """
    first = [p[:rollouts] for p in points]
    ahead = _ahead(first)
    if not ahead or most <= rollouts:
        return _judge(first, ahead, z), rollouts
    fresh = [p[rollouts:most] if j == 0 or j in ahead else [] for j, p in enumerate(points)]
    return _judge(fresh, ahead, z), most


class ExpertAgent:
    name = "expert"

    def __init__(self, **params):
        self.params = _parse(params)
        self.rollouts = self.params["rollouts"]
        self.most = max(self.rollouts, self.params["most"])
        self.k = self.params["candidates"]
        self.z = self.params["z"]
        self.read = bool(self.params["read"])
        self.lean: dict[int, list[float]] | None = None  # the reading at this decision
        self.base = StrategicAgent()
        self.seat = 0
        self.rng: Stream | None = None
        self.searched = 0  # decisions searched this hand (tests, the bench)
        self.overruled = 0  # of them, those where it did not play strategic's pick
        self.sampled = 0  # samples drawn over them (the search's cost)

    def start_hand(self, seat: int, rng: Stream) -> None:
        # strategic gets the hand stream itself, so it breaks ties exactly as a
        # plain strategic in this seat would; the search draws from a stream
        # derived from a copy of it (it must not move the one strategic reads)
        self.seat = seat
        self.rng = Stream(derive(copy(rng).next64(), _SEARCH))
        self.base.start_hand(seat, rng)
        self.searched = self.overruled = self.sampled = 0

    def choose(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        pick = self.base.choose(view, options)
        if not self.rollouts:
            return pick
        own = self.params["own"]
        plans = [(c, own) for c in self.candidates(view, options, pick)]
        plans += self.other_plans(view, options, pick)
        safe = self.safest(view, options, pick)
        if safe is not None:
            plans.append((safe, "fold"))
        if len(plans) < 2:
            return pick
        self.searched += 1
        out = self.search(view, plans)
        self.overruled += out != pick
        return out

    # ------------------------------------------------------------ what to compare
    def candidates(
        self, view: SeatView, options: Sequence[Event | None], pick: Event | None
    ) -> list[Event | None]:
        """The choices worth playing out, strategic's ``pick`` first."""
        if len(options) < 2 or (options[0] is not None and options[0].type == VOID):
            return [pick]
        if options[-1] is None:  # a claim window: every choice
            return [pick] + [o for o in options if o != pick]
        acts = cast("Sequence[Event]", options)  # the seat's own turn: no pass
        assert pick is not None  # strategic acts on its turn
        discards = [o for o in acts if o.type == DISCARD]
        void = view.void[self.seat]
        if pick.type == DISCARD and void is not None and tile_of(pick) // 9 == void:
            return [pick]
        unseen = unseen_counts(view)
        ranking = self.base.rank_discards(view, discards, unseen)
        ranked = [r[3] for r in ranking]
        if pick.type == DISCARD and ranking[0][0] > self.params["shanten"]:
            return [pick]  # far from ready: the rollouts cannot tell these apart
        if pick.type == WIN:  # pass a self-draw win? against strategic's best other play
            return [pick, ranked[0]]
        out: list[Event | None] = [pick]
        for o in acts:
            if o.type == KONG and o not in out:
                out.append(o)
        for o in ranked:
            if len(out) >= self.k and pick.type == DISCARD:
                break
            if o not in out:
                out.append(o)
                if pick.type != DISCARD:
                    break  # a kong decision: against the best discard
        return out

    def other_plans(
        self, view: SeatView, options: Sequence[Event | None], pick: Event | None
    ) -> list[tuple[Event, str]]:
        """With ``plans`` on, at a discard (not a void-suit one), at any shanten:
        each plan strategic weighs there but does not choose (the plain hand, 七对,
        one suit, 碰碰胡, as :meth:`StrategicAgent.plan_options` finds them
        eligible), as its first discard and then strategic held to that plan
        (:class:`simulate.agents.rollouts.Committed`) for the rest of the rollout; else
        none."""
        if not self.params["plans"] or pick is None or pick.type != DISCARD:
            return []
        void = view.void[self.seat]
        if void is not None and tile_of(pick) // 9 == void:
            return []
        b = self.base
        R, unseen = b.reading(view), unseen_counts(view)
        discards = [o for o in options if o is not None and o.type == DISCARD]
        ranked = b.rank_discards(view, discards, unseen)
        forced, plain_value, cands = b.plan_options(view, R, b.plain_speed(view, unseen, ranked))
        if forced is not None:
            return []
        chosen = b.choose_plan(None, plain_value, cands)[0]
        targets = [("plain", None, 0.0)] + [c[2:] for c in sorted(cands, reverse=True)]
        out, seen = [], {chosen}
        stream = b.rng
        try:  # strategic breaks ties from its stream: a copy keeps the real one unmoved
            for p, suit, slack in targets:
                if p in seen:
                    continue
                seen.add(p)
                b.rng = copy(stream)
                out.append(
                    (b.discard(view, discards, ranked, unseen, p, suit, slack, R), f"plan:{p}")
                )
        finally:
            b.rng = stream
        return out

    def safest(
        self, view: SeatView, options: Sequence[Event | None], pick: Event | None
    ) -> Event | None:
        """The first discard of the fold plan (:class:`Fold`), when ``fold`` is on,
        strategic's pick is a discard (not a void-suit one) and an opponent looks
        dangerous to strategic; else None."""
        if not self.params["fold"] or pick is None or pick.type != DISCARD:
            return None
        void = view.void[self.seat]
        if (void is not None and tile_of(pick) // 9 == void) or not self.base.threats(view):
            return None
        return Fold.discard(view, options)

    # ------------------------------------------------------------ search
    def search(self, view: SeatView, plans: list[tuple[Event | None, str]]) -> Event | None:
        """The first choice of the plan (a choice, then the rollout policy its seat
        goes on with) with the best mean points over the samples: strategic's,
        ``plans[0]``, unless another beats it by ``z`` standard errors (and, with
        ``confirm``, beats it again on as many fresh samples).

        Two stages when ``most`` > ``rollouts``: every plan meets ``rollouts``
        samples; the alternatives whose mean beats the pick's there (the others,
        behind or level, could overrule only by noise) and the pick then meet
        ``most`` − ``rollouts`` fresh samples, and the margin is judged on those
        alone (the samples that picked a leader out overrate it)."""
        assert self.rng is not None  # set by start_hand
        base = self.rng.next64()
        points = self.playouts(view, plans, base, 0, self.rollouts)
        drawn = self.rollouts
        ahead = _ahead(points)
        if ahead and self.most > drawn:
            live = [0, *ahead]
            got = self.playouts(view, [plans[j] for j in live], base, drawn, self.most - drawn)
            points = [[] for _ in plans]
            for j, pts in zip(live, got, strict=True):
                points[j] = pts
            drawn = self.most
        self.sampled += drawn
        best = _judge(points, ahead, self.z)
        if best and self.params["confirm"]:
            # the winner of several noisy comparisons looks better than it is: its
            # edge is measured again on samples that did not select it
            again = self.playouts(view, [plans[0], plans[best]], base, drawn, len(points[best]))
            if not again[0] or sum(again[1]) <= sum(again[0]):
                return plans[0][0]
        return plans[best][0]

    def playouts(
        self,
        view: SeatView,
        plans: list[tuple[Event | None, str]],
        base: int,
        first: int,
        count: int,
    ) -> list[list[int]]:
        """Points of each plan on samples ``first`` … ``first + count − 1`` of the
        decision's stream ``base``: every plan meets the same samples and the same
        rollout streams (a sample that cannot be drawn is left out of all), whichever
        plans are played with it."""
        history = view.history
        if self.params["reading"]:  # here, not in search: the calibration calls this alone
            self.lean = utilities(view, coefficients(view.variant))
        points: list[list[int]] = [[] for _ in plans]
        for i in range(first, first + count):
            found = self.sample(view, history, Stream(derive(base, i)))
            if found is None:
                continue
            wall, st = found
            for j, ((c, own), pts) in enumerate(zip(plans, points, strict=True)):
                if j:
                    st = rebuild(view, history, wall)  # the read was checked on the sample
                agents = rollout_agents(
                    self.params["policy"], own, view.n, self.seat, c, derive(base, i, 1)
                )
                play(st, agents)
                pts.append(st.deltas[self.seat])
        return points

    def sample(
        self, view: SeatView, history: list[Event], rng: Stream
    ) -> tuple[list[int], HandState] | None:
        """A wall (the hand's tiles in draw order) that agrees with ``history``
        and the hand rebuilt on it, or None after a few tries (a measuring tool's
        hook too: :class:`research.expert_calibration.ReadySeeing`)."""
        for _ in range(self.params["tries"]):
            try:
                wall = sample_wall(
                    view, history, rng, self.params["tilt"], self.params["steps"], self.lean
                )
                return wall, rebuild(view, history, wall, self.read)
            except Inconsistent:
                continue
        return None
