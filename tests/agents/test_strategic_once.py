"""strategic does its work once per decision (issue 48): the plain hand priced
only when some plan is eligible, no plan weighed where none is read (a void
tile to throw, a claim window without a pon or kong), the plan's discard the
first ranked one it wants gone, the race run draw by draw against the rivals'
table. Each is held here to the plain version it replaces,
over seeded hands of every variant: the same plan at every decision, the same
events in every hand, the same race figures bit for bit."""

import random

import pytest

from mjlog.engine import play_hand
from mjlog.events import DISCARD, KONG, VOID, WIN
from mjlog.rules import Rules
from simulate.agents.strategic import (
    StrategicAgent,
    _none_finished,
    _race_plain,
    race_against,
)
from tests.agents.races import random_steps

VARIANTS = ("yuxi", "xuezhan", "huangmei")


class Checked(StrategicAgent):
    """strategic, every plan it makes checked against the full pricing."""

    plans = 0

    def plan(self, view, R, plain_speed, unseen=None):
        got = super().plan(view, R, plain_speed, unseen)
        full = StrategicAgent.choose_plan(self, *self.plan_options(view, R, plain_speed, unseen))
        assert got == full
        Checked.plans += 1
        return got


class Reference(StrategicAgent):
    """strategic's choice as first written: every decision weighs the plans
    (the plain hand always priced), whatever of them the choice reads, and its
    discard reads the plan's pool through every ranked discard's place."""

    def choose(self, view, options):
        first = options[0]
        if first is not None and first.type == WIN:
            return first
        if first is not None and first.type == VOID:
            return self.choose_void(view, [o for o in options if o is not None])
        R = self.reading(view)
        from simulate.agents.efficient import unseen_counts

        unseen = unseen_counts(view)
        if options[-1] is None:
            speed = self.plain_speed(view, unseen, None)
            plan, suit, _ = self.choose_plan(*self.plan_options(view, R, speed, unseen))
            return self.claim(view, options, unseen, plan, suit, R)
        discards = [o for o in options if o is not None and o.type == DISCARD]
        ranked = self.rank_discards(view, discards, unseen)
        speed = self.plain_speed(view, unseen, ranked)
        plan, suit, slack = self.choose_plan(*self.plan_options(view, R, speed, unseen))
        for o in options:
            if (
                o is not None
                and o.type == KONG
                and plan != "pairs"
                and self.kong_pays(view, o, unseen, ranked[0][0], plan, R)
            ):
                return o
        return self.discard_plain(view, discards, ranked, unseen, plan, suit, slack, R)

    def discard_plain(self, view, discards, ranked, unseen, plan, suit, slack, R):
        """strategic's discard as first written: the plan's pool ordered by rank
        through a table of every ranked discard's place."""
        hand = view.hand
        void = view.void[self.seat]
        if void is not None:
            vd = [o for o in discards if o.tile // 9 == void]
            if vd:
                return min(vd, key=lambda o: (unseen[o.tile], o.tile))
        threats = self.threats(view)
        late = view.wall_left < 30 * self.defense
        if threats and (ranked[0][0] >= self.fold - (1 if late else 0)):
            return min(
                discards,
                key=lambda o: (self.danger(view, o.tile, threats, unseen), -unseen[o.tile], o.tile),
            )
        if plan == "pairs":
            singles = [o for o in discards if hand[o.tile] in (1, 3)]
            if singles:
                return min(singles, key=lambda o: (hand[o.tile] != 1, unseen[o.tile], o.tile))
        pool = self._plan_pool(hand, discards, plan, suit, R)
        order = {}
        if pool:
            order = {id(r[3]): i for i, r in enumerate(ranked)}
            inrank = [o for o in pool if id(o) in order]
            if inrank:
                pool = inrank
            elif not (plan == "shilaotou" or slack >= 1):
                pool = None
        if pool:
            if threats:
                return min(
                    pool,
                    key=lambda o: (
                        order.get(id(o), 99),
                        self.danger(view, o.tile, threats, unseen),
                    ),
                )
            return min(pool, key=lambda o: (order.get(id(o), 99), o.tile))
        if (
            plan == "half"
            and R.keep_honors
            and not any(m.tile >= 27 for m in view.melds[self.seat])
        ):
            kept = [r for r in ranked if r[3].tile < 27 or sum(hand[27:34]) > 2]
            ranked = kept or ranked
        top = [r for r in ranked if r[:3] == ranked[0][:3]]
        if threats and len(top) > 1:
            return min(top, key=lambda r: self.danger(view, r[3].tile, threats, unseen))[3]
        return top[self.rng.below(len(top))][3]


def _events(variant, agents, seed, hands):
    rules = Rules(variant)
    out = []
    for k in range(hands):
        played = play_hand(rules, agents, seed, 0, k, None)
        out.append([repr(e) for e in played.state.events])
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_plan_is_the_full_pricing_choice(variant):
    Checked.plans = 0
    _events(variant, [Checked() for _ in range(4)], 7, 6)
    assert Checked.plans > 100  # the check ran on many decisions


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_hand_plays_as_the_reference_choice(variant):
    fast = _events(variant, [StrategicAgent() for _ in range(4)], 11, 6)
    ref = _events(variant, [Reference() for _ in range(4)], 11, 6)
    assert fast == ref
    assert sum(len(h) for h in fast) > 300


@pytest.mark.parametrize("n", range(1, 9))
def test_race_against_the_rivals_table_is_the_plain_race(n):
    rng = random.Random(100 + n)
    for _ in range(500):
        steps = random_steps(rng, n)
        rival = random_steps(rng, rng.randint(1, 6))
        draws, rivals = rng.randint(0, 40), rng.choice([0, 0, 1, 2, 3])
        alive = _none_finished(tuple(rival), draws, rivals)
        assert race_against(tuple(steps), draws, alive) == _race_plain(steps, draws, rivals, rival)
