"""``strategic``: ``efficient`` plus plans for value, weighed under the rules in force.

Every value comes from the active :class:`~mjlog.rules.Rules` through the scorer
(:mod:`simulate.agents.values`): what a plain hand, a one-suit hand (清一色; 混一色 where
the rules pay for honors in it), seven pairs and all triplets are worth, concealed
and open, by self-draw (every payer) and on a discard (or nothing, where the
rules forbid that win: yuxi's plain hand, a huangmei hand short of ``min_fan``),
with the cap and horses folded in. The agent knows no variant's values: it reads
each target's *worth ratio* to a plain hand (expected money per win, a third of
wins taken by self-draw... see :data:`P_SELF`) and turns it into how far it will
go for that target.

Plans, read off the hand, each with its *distance* (tiles still needed):

- ``pairs`` (七对): no melds and at least ``7 − allow`` pairs; distance: the
  pairs missing;
- ``flush`` (清一色): every meld in the suit and at most ``allow`` tiles off
  it; throws off-suit tiles first, pons only in the suit (a kong counts three);
- ``half`` (混一色): the same with honors counted toward the suit. When the
  rules pay it about as much as 清一色 it is the only one-suit plan; when they
  pay it less but more than a plain hand, both are weighed, so that a hand rich
  in honors may still play for the cheaper one while a pure one-suit hand
  throws its honors; when they pay 清一色 *less* than 混一色, a 混一色 hand keeps
  its last honors (thrown, they would leave a cheaper pure hand);
- ``triplets`` (碰碰胡): distance (:func:`triplets_distance`) at most ``4 +
  allow`` (rounded up from 0.6), melded sets counted as sets; pons freely;
- yuxi ``shilaotou`` (十老头): 7 or more honors, no melds, while it pays;
- ``plain``: acceptance, as ``efficient``; keeps the pairs of kinds whose pon
  pays by itself (huangmei's 中/白).

Each eligible plan, and the plain hand, is valued at its worth ratio × the chance
it wins in the draws the hand is likely to last, less a rival's win first (:func:`race`):
its distance in steps, each taken on a draw with a chance that falls as the
wanted tiles thin (the last one also off a discard where the rules let it win so),
within the agent's share of the wall left; where the first win ends the hand
(not a blood battle, read from the variant) every other seat races it, each
taken to be as far and fast as the agent's own plain hand. The best is played: a
far chase wins when time is long, not near the end of a short hand. ``allow``
grows with ``log2`` of the target's worth ratio, scaled by ``aggression``: a
one-suit hand worth four plain hands buys about four tiles off the suit (at most
five, however much it pays), seven pairs worth four plain hands about one
missing pair; a target worth no more than a plain hand buys nothing. A plan that
costs a step of shanten is followed only within ``allow − 1``.

A pon is weighed against the closed hand it gives up: in the plain plan it is
taken when it helps acceptance *and* the open hand keeps its worth (a huangmei
open plain hand may not win on a discard: it pons only when the step it gains
pays for that). Where the rules let a plain hand win only by self-draw and pay
七对 (which may win on a discard) more (yuxi), the first pon of a closed plain
hand must gain a step of shanten: a pon that only widens acceptance speeds a
self-draw and gives up the 七对 route. (Refusing such pons where a plain hand
wins on a discard too, or the first pon of a 碰碰胡 plan while seven pairs is
a route, cost strategic 0.15–0.2 points a hand in the duplicate ladder: no
agent here reads a closed hand, and speed pays.)

A kong is weighed: its money (the engine's table, who pays by
``bugang_payer`` and ``late_added_kong``; refunded at the end by a hand not
ready in xuezhan), what it adds to a win (a 根, a kong fan, a lost 门清: the
scorer's difference between the hand with the kong and without), the
replacement draw and its 杠上花 chance, against a shanten step it costs, the
chance it is robbed (抢杠胡, more with threats and late) and the 杠上炮 its next
discard risks. 查大叫 (a ready hand is paid at the end) makes a hand far from
ready late in the wall give up plans for speed.

In xuezhan the void is the suit whose loss costs the fewest connected tiles
(pairs, triplets, tiles within two of another), not only the shortest suit;
void tiles go first (a 花猪 pays the cap); every win is taken at once, since a
winner leaves the table and a passed win locks.

Defence, every variant: an opponent *threatens* when it shows two or more melds
of one suit, or when the wall runs low (under ``20 × defense`` tiles). Against a
threat, or with a hopeless hand (shanten ≥ ``fold``) late in the hand, it
prefers the safest discard: tiles every threatening player has let pass or
thrown, tiles with many copies already visible, and never the threatened suit.

Parameters (``--agents strategic:aggression=0.7;defense=0.5``):

- ``aggression`` (0..1, default 0.6): how readily it chases value;
- ``defense`` (0..1, default 0.5): how early it starts to fear the wall;
- ``fold`` (int, default 3): the shanten from which a threatened hand folds;
- ``rules`` (``in_force`` | ``default``): ``default`` values every choice as if
  the variant's default rules were in force, whatever they are (a rule-blind
  copy for the ladder); it is logged as ``strategic:rules=default``.

>>> from simulate.agents import make_agent
>>> a = make_agent("strategic:aggression=0.9")
>>> a.name, a.params["aggression"], a.params["fold"]
('strategic', 0.9, 3)
>>> make_agent("strategic:rules=default").name
'strategic:rules=default'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from itertools import compress
from typing import Any

from mjlog.agent import SeatView
from mjlog.compiled import mypyc_attr
from mjlog.events import DISCARD, KONG, PON, VOID, WIN, Event
from mjlog.rules import Rules
from mjlog.ukeire import accept, accept_after, after_discards, near_in
from simulate.agents.efficient import Accepted, EfficientCore, unseen_counts, without_void
from simulate.agents.params import parse_params
from simulate.agents.values import RuleValues, kong_money, values

WHITE, RED = 31, 33
DEFAULTS = {"aggression": 0.6, "defense": 0.5, "fold": 3, "rules": "in_force"}
RULES_CHOICES = ("in_force", "default")
ONE_SUIT = ("flush", "half")  # the one-suit plans: 清一色, 混一色
#: per count of a kind held (0..4): odd (a draw pairs it: 七对), one or two (a
#: draw brings it nearer a triplet: 碰碰胡)
ODD = (False, True, False, True, False)
ONE_OR_TWO = (False, True, True, False, False)
#: the same as ``bytes.translate`` tables (a count's byte to 1 or 0): a hand's
#: counts as bytes become its selectors in one call
_ODD_BYTES = bytes(ODD).ljust(256, b"\0")
_ONE_OR_TWO_BYTES = bytes(ONE_OR_TWO).ljust(256, b"\0")
#: share of wins taken by self-draw, for a target's expected money per win
P_SELF = 0.4


def _parse(params: dict) -> dict:
    return parse_params(
        "strategic",
        params,
        DEFAULTS,
        choices={"rules": RULES_CHOICES},
        check=lambda k, v: None if k == "fold" or 0.0 <= v <= 1.0 else "in 0..1",
    )


def triplets_distance(hand: Sequence[int], melds: int) -> int:
    """Tiles still needed for 碰碰胡 (four sets of three and a pair): each pair
    becomes a set with one tile, a single with two, and a pair must remain (or
    be made from a single). A set already held, concealed or melded, needs none.
    ``hand``: the 34 counts, as a list or as ``bytes`` (whose ``count`` is a scan
    of bytes, not a comparison of objects).

    >>> from mjlog.tiles import parse_counts
    >>> triplets_distance(parse_counts("111222m33p44p55s7z"), 0)  # two sets, three pairs
    2
    >>> triplets_distance(parse_counts("1122m3344p55s"), 0)       # five pairs, no set
    4
    >>> triplets_distance(parse_counts("11m23p"), 3)              # three pons, a pair
    2
    """
    sets = melds + hand.count(3) + hand.count(4)
    need = max(0, 4 - sets)
    pairs = hand.count(2)
    return need + max(0, need + 1 - pairs)


class Reading:
    """What the agent takes from one RuleValues: worth ratios and allowances.

    Kept per Rules object by the agent; nothing here is computed per decision.
    """

    __slots__ = (
        "V",
        "rules",
        "ratio",
        "allow",
        "one_suit",
        "open_ratio",
        "zhongbai",
        "keep_honors",
        "closed_route",
    )

    def __init__(self, V: RuleValues, rules: Rules, aggression: float):
        self.V, self.rules = V, rules
        payers = V.n - 1
        plain = V.win_money("plain", payers, P_SELF) or 1e-9
        plain_open = V.win_money("plain_open", payers, P_SELF)
        self.ratio = {k: V.win_money(k, payers, P_SELF) / plain for k in V.target}
        # 混一色: honors may stay in a one-suit hand when the rules pay for it
        half = self.ratio["half"] >= 0.8 * self.ratio["flush"] and self.ratio["half"] > 1
        #: the one-suit plans to weigh: 混一色 alone when it pays about as much as
        #: 清一色, else 清一色 and (when it pays more than a plain hand) 混一色
        self.one_suit = (
            ("half",) if half else ("flush", "half") if self.ratio["half"] > 1 else ("flush",)
        )
        #: a 混一色 hand that throws its last honors becomes a 清一色: worth keeping
        #: them when the rules pay 清一色 less
        self.keep_honors = self.ratio["flush"] < self.ratio["half"]
        scale = (0.5 + aggression) / 1.1

        def allow(key, per_doubling):
            r = self.ratio[key]
            a = per_doubling * scale * math.log2(r) if r > 1 else 0.0
            # however much it pays, no wall gives time to replace more (capped at 8, a
            # high 清一色 is chased so far that the rule-blind copy beats it)
            return min(a, 5.0)

        # per doubling of worth: two tiles off the suit, about one missing pair,
        # two thirds of a pair-or-triplet
        self.allow = {
            "flush": allow("flush", 2.0),
            "half": allow("half", 2.0),
            "pairs": allow("pairs", 0.9),
            "triplets": allow("triplets", 2 / 3),
            "triplets_open": allow("triplets_open", 2 / 3),
        }
        # what opening a plain hand keeps of its worth (huangmei: no discard win)
        self.open_ratio = plain_open / plain
        self.zhongbai = V.zhongbai_pon_bonus > 0
        #: a closed plain hand keeps a route worth keeping: the rules let a plain
        #: hand win only by self-draw and pay 七对 (which may win on a discard) more
        self.closed_route = (
            V.target["plain"][1] is None
            and self.ratio["pairs"] > 1
            and V.target["pairs"][1] is not None
        )


@mypyc_attr(allow_interpreted_subclasses=True)  # rollouts.Committed extends it
class StrategicAgent(EfficientCore):
    name = "strategic"

    def __init__(self, **params):
        self.params = _parse(params)
        self.aggression = self.params["aggression"]
        self.defense = self.params["defense"]
        self.fold = self.params["fold"]
        self.blind = self.params["rules"] == "default"
        if self.blind:
            self.name = "strategic:rules=default"
        self._for: Rules | None = None
        self._read: Reading | None = None

    def start_hand(self, seat, rng) -> None:
        self.seat, self.rng = seat, rng

    # ------------------------------------------------------------ values
    def reading(self, view: SeatView) -> Reading:
        """The rules this agent plays by, read once per Rules object."""
        r = view.rules
        if r is not self._for:
            rules = Rules(r.variant, {"players": r.n}) if self.blind else r
            key = (rules, self.aggression)
            self._read = _READINGS.get(key)
            if self._read is None:
                if len(_READINGS) > 64:
                    _READINGS.clear()
                self._read = _READINGS[key] = Reading(values(rules), rules, self.aggression)
            self._for = r
        assert self._read is not None  # read above for these rules
        return self._read

    # ------------------------------------------------------------ plan
    def plan(
        self,
        view: SeatView,
        R: Reading,
        plain_speed: tuple[int, float],
        unseen: list[int] | None = None,
    ) -> tuple[str, int | None, float]:
        """(plan, suit, slack): slack is how many tiles off the plan the hand is
        short of its allowance (a plan with slack ≥ 1 may cost a step of shanten).
        ``plain_speed``: (tiles a plain hand still needs, chance a draw helps it);
        ``unseen``: :func:`unseen_counts` of the view, when the caller has it.
        :meth:`choose_plan` of :meth:`plan_options`, but the plain hand is priced
        only when some plan is eligible (it is the bar they must clear)."""
        forced, price, cands = self._plans(view, R, plain_speed, unseen)
        plain_value = price.plain() if cands and price is not None else 0.0
        return self.choose_plan(forced, plain_value, cands)

    def choose_plan(
        self, forced: tuple[str, int | None, float] | None, plain_value: float, cands: list[tuple]
    ) -> tuple[str, int | None, float]:
        """The plan to play, of :meth:`plan_options`' answer: the best valued,
        unless the plain hand is worth as much. From :meth:`plan`,
        ``plain_value`` is 0.0 when no plan is eligible (``cands`` empty: nothing
        to weigh the plain hand against)."""
        if forced is not None:
            return forced
        if cands:
            best, _, p, su, slack = max(cands)
            if best > plain_value:
                return p, su, slack
        return "plain", None, 0.0

    def plan_options(
        self,
        view: SeatView,
        R: Reading,
        plain_speed: tuple[int, float],
        unseen: list[int] | None = None,
    ) -> tuple[tuple[str, int | None, float] | None, float, list[tuple]]:
        """What :meth:`plan` chooses from: (a plan the hand is held to, or None;
        the plain hand's value; the eligible plans as (value, tie order, plan,
        suit, slack)). ``unseen``: :func:`unseen_counts` of the view, when the
        caller has it."""
        forced, price, cands = self._plans(view, R, plain_speed, unseen)
        if forced is not None or price is None:
            return forced, 0.0, []
        return None, price.plain(), cands

    def _plans(
        self,
        view: SeatView,
        R: Reading,
        plain_speed: tuple[int, float],
        unseen: list[int] | None,
    ) -> tuple[tuple[str, int | None, float] | None, Pricing | None, list[tuple]]:
        """(a plan the hand is held to, or None; the decision's :class:`Pricing`;
        the eligible plans, valued)."""
        hand, seat, v = view.hand, self.seat, view.spec
        melds = view.melds[seat]
        # the counts as bytes: their count() and sums are scans of bytes, read
        # several times below (pairs, triplets, suits)
        hb = bytes(hand)
        honors = sum(hb[27:34])
        if (
            honors >= 7
            and not melds
            and v.counts_honor_discards(R.rules)
            and (R.rules["points.shilaotou"][0] or 0) > 0
        ):
            return ("shilaotou", None, 1.0), None, []
        wall_left = view.wall_left
        # late in the wall, 查大叫 pays a ready hand: a far one plays for speed
        if R.V.ready_owed and wall_left < 12 and len(melds) < 2:
            return ("plain", None, 0.0), None, []
        # tiles per suit, a meld counted three (a kong too)
        suits = [sum(hb[0:9]), sum(hb[9:18]), sum(hb[18:27])]
        honors_held = honors
        opened = False
        for m in melds:
            if m.tile < 27:
                suits[m.tile // 9] += 3
            else:
                honors_held += 3
            if m.exposed:
                opened = True
        # every eligible plan, and the plain hand, valued at its worth × the chance
        # it wins in the draws the hand is likely to last, less what a rival's win
        # first costs (see race)
        if unseen is None:
            unseen = unseen_counts(view)
        total = sum(unseen) or 1
        d_p = plain_speed[0]
        won = view.won
        still = won.count(False)  # seats still in (won holds bools)
        # the first win ends the hand: a plan races every other seat still in; in
        # a blood battle only the wall ends it
        price = Pricing(
            R,
            plain_speed,
            opened,
            wall_left // max(1, still),
            0 if v.blood_battle else still - (not won[seat]),
            view.n,
        )
        value = price.value
        ratio, allow_of = R.ratio, R.allow
        cands: list[tuple] = []
        if not melds:
            pairs = 34 - hb.count(0) - hb.count(1)  # kinds held twice or more
            if pairs >= 7 - int(allow_of["pairs"]):
                q = sum(compress(unseen, hb.translate(_ODD_BYTES))) / total  # 1 or 3
                cands.append(
                    (value(ratio["pairs"], 7 - min(7, pairs), q, "pairs"), 2, "pairs", None, 0.0)
                )
        # one suit: 混一色 (honors kept) alone when it pays about as much as 清一色,
        # else 清一色, and 混一色 beside it when it pays at all (many honors may make
        # the cheaper one-suit hand the nearer and better one)
        void = view.void[seat]
        for key in R.one_suit:
            half = key == "half"
            counts = [x + honors_held for x in suits] if half else suits
            c0, c1, c2 = counts
            # the fullest suit, the first of equals
            s = 0 if c0 >= c1 and c0 >= c2 else 1 if c1 >= c2 else 2
            off = 14 - counts[s]  # tiles short of a one-suit hand (a kong counts three)
            allow = -1.0 if void == s else allow_of[key]
            if off <= allow and all(m.tile // 9 == s or (half and m.tile >= 27) for m in melds):
                # a draw helps when it joins the suit's shapes (held or within two
                # of a held rank), or pairs an honor held
                q = sum(map(unseen.__getitem__, near_in(hb[9 * s : 9 * s + 9], 9 * s)))
                if half:
                    q += sum(compress(unseen[27:34], hand[27:34]))  # honors held
                cands.append(
                    (value(ratio[key], max(off, d_p), q / total, key), 1, key, s, allow - off)
                )
        tkey = "triplets_open" if opened else "triplets"
        d = triplets_distance(hb, len(melds))
        if d <= 4 + int(allow_of[tkey] + 0.4) - (self.aggression < 0.5):
            q = sum(compress(unseen, hb.translate(_ONE_OR_TWO_BYTES))) / total
            cands.append((value(ratio[tkey], max(1, d), q, tkey), 0, "triplets", None, 0.0))
        return None, price, cands

    def plain_speed(
        self, view: SeatView, unseen: list[int], ranked, now: Accepted | None = None
    ) -> tuple[int, float]:
        """(tiles the plain hand still needs to win, chance one draw lowers its
        shanten): from the best discard's rank when the hand holds a tile to
        throw, else from the hand as it stands (void tiles taken out; ``now``:
        its :func:`~mjlog.ukeire.accept`, when the caller has it)."""
        total = sum(unseen) or 1
        if ranked and ranked[0][1] != 0:
            return ranked[0][0] + 1, -ranked[0][1] / total
        h, _ = without_void(view.hand, view.void[self.seat])
        nm = len(view.melds[self.seat])
        if sum(h) + 3 * nm > 13:  # a tile to throw first: the best hand of 13 it keeps
            # (lowest shanten, then most accepted: every kind at that shanten read
            # at once, as rank_discards reads them)
            after = after_discards(h, nm)
            sh = min(after.values())
            n = max(accept_after(h, nm, unseen, [t for t, v in after.items() if v == sh]))
        else:
            sh, n = (now or accept(h, nm, unseen))[:2]
        return max(0, sh) + 1, n / total

    # ------------------------------------------------------------ danger
    def threats(self, view: SeatView) -> list[tuple[int, int | None]]:
        """(seat, suit or None) of every opponent that looks dangerous."""
        out: list[tuple[int, int | None]] = []
        low = view.wall_left < 20 * self.defense
        won, melds = view.won, view.melds
        for o in range(view.n):
            if o == self.seat or won[o]:
                continue
            ms = melds[o]
            if len(ms) < 2:  # no suit shown twice
                if low and ms:
                    out.append((o, None))
                continue
            suits = [m.tile // 9 for m in ms if m.tile < 27]
            flush = next((s for s in range(3) if suits.count(s) >= 2), None)
            if flush is not None:
                out.append((o, flush))
            elif low and ms:
                out.append((o, None))
        return out

    def danger(self, view: SeatView, t: int, threats, unseen) -> float:
        d = 0.0
        for o, suit in threats:
            if t in view.discards[o]:
                continue  # it threw this kind itself
            if suit is not None and t // 9 == suit:
                d += 3.0
            d += unseen[t] / 4 + (0.5 if t < 27 and 2 <= t % 9 + 1 <= 8 else 0.0)
        return d

    # ------------------------------------------------------------ choices
    def choose(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        first = options[0]
        if first is not None and first.type == WIN:
            return first
        if first is not None and first.type == VOID:
            return self.choose_void(view, [o for o in options if o is not None])
        R = self.reading(view)
        unseen = unseen_counts(view)
        if options[-1] is None:
            if not any(o is not None and o.type in (PON, KONG) for o in options):
                return None  # nothing to claim: no plan to weigh
            # the hand as it stands, read once for the window (the plan's speed,
            # every pon's and kong's weighing)
            h, _ = without_void(view.hand, view.void[self.seat])
            now = accept(h, len(view.melds[self.seat]), unseen)
            plan, suit, _ = self.plan(view, R, self.plain_speed(view, unseen, None, now), unseen)
            return self.claim(view, options, unseen, plan, suit, R, now)
        discards = [o for o in options if o is not None and o.type == DISCARD]
        kongs = [o for o in options if o is not None and o.type == KONG]
        if not kongs:
            # void tiles go first whatever the plan: no plan to weigh
            vd = self.void_discard(view, discards, unseen)
            if vd is not None:
                return vd
        ranked = self.rank_discards(view, discards, unseen)
        plan, suit, slack = self.plan(view, R, self.plain_speed(view, unseen, ranked), unseen)
        if plan != "pairs":
            for o in kongs:
                if self.kong_pays(view, o, unseen, ranked[0][0], plan, R):
                    return o
        return self.discard(view, discards, ranked, unseen, plan, suit, slack, R)

    def void_discard(self, view: SeatView, discards: Sequence[Any], unseen: list[int]) -> Any:
        """The void-suit tile to throw (the fewest unseen, then the lowest), None
        when the hand holds none."""
        void = view.void[self.seat]
        if void is not None:
            vd = [o for o in discards if o.tile // 9 == void]
            if vd:
                return min(vd, key=lambda o: (unseen[o.tile], o.tile))
        return None

    def choose_void(self, view: SeatView, options: list[Event]) -> Event:
        """Void the suit whose loss costs the fewest *connected* tiles (in a pair,
        a triplet, or within two of another tile of the suit): scattered tiles go,
        shapes that become melds stay; then the suit with fewest tiles."""
        h = view.hand

        def connected(v: int) -> int:
            c = h[9 * v : 9 * v + 9]
            return sum(
                c[r]
                for r in range(9)
                if c[r] >= 2 or any(0 <= r + d < 9 and c[r + d] for d in (-2, -1, 1, 2))
            )

        return min(
            options,
            key=lambda o: (
                connected("mps".index(str(o.kind))),
                sum(h[9 * "mps".index(str(o.kind)) :][:9]),
                "mps".index(str(o.kind)),
            ),
        )

    def claim(
        self, view, options, unseen, plan, suit, R: Reading, now: Accepted | None = None
    ) -> Event | None:
        """The pon or kong to make, if any (``now``: :func:`~mjlog.ukeire.accept`
        of the hand as it stands, void tiles taken out, when the caller has it)."""
        for o in options:
            if o is None or o.type not in (PON, KONG):
                continue
            if plan == "pairs":
                return None
            if self._takes(view, o, unseen, plan, suit, R, now):
                return o
        return None

    def _takes(self, view, o, unseen, plan, suit, R: Reading, now: Accepted | None) -> bool:
        """Whether this pon or kong is worth making under ``plan``."""
        t = o.tile
        in_suit = plan not in ONE_SUIT or t // 9 == suit or (plan == "half" and t >= 27)
        if o.type == KONG:
            h, _ = without_void(view.hand, view.void[self.seat])
            sh0 = (now or accept(h, len(view.melds[self.seat]), unseen))[0]
            return in_suit and self.kong_pays(view, o, unseen, sh0, plan, R)
        if R.zhongbai and t in (WHITE, RED):
            return True  # the pon itself pays
        if not in_suit:
            return False
        if plan == "triplets":
            return True
        if plan in ONE_SUIT:
            return self.claim_helps(view, o, unseen, now)
        if R.open_ratio < 1 and not any(m.exposed for m in view.melds[self.seat]):
            # opening costs worth: only a step nearer ready can pay for it (this
            # implies claim_helps, whose shanten it computes itself)
            return self.opening_pays(view, o, unseen, R, now=now)
        if R.closed_route and not view.melds[self.seat]:
            # a pon that only widens acceptance speeds a hand that may only
            # self-draw, and gives up the 七对 route that may win on a discard
            return self.opening_pays(view, o, unseen, R, strict=True, now=now)
        return self.claim_helps(view, o, unseen, now)

    def opening_pays(
        self, view, o, unseen, R: Reading, strict: bool = False, now: Accepted | None = None
    ) -> bool:
        """A pon that opens a plain hand: worth it when the step it gains covers
        what opening costs (``open_ratio``; 1 when the hand is open already);
        ``strict``: a step must be gained, whatever opening costs."""
        melds = view.melds[self.seat]
        if not strict and (any(m.exposed for m in melds) or R.open_ratio >= 1):
            return True
        if R.open_ratio <= 0:
            return False
        h, _ = without_void(view.hand, view.void[self.seat])
        nm = len(melds)
        sh0 = (now or accept(h, nm, unseen))[0]
        h[o.tile] -= 2
        after = after_discards(h, nm + 1)
        h[o.tile] += 2
        sh1 = min(after.values()) if after else 99
        if strict:
            return sh1 < sh0
        # a step nearer ready is worth about 1 / (0.25 + 0.3 × aggression) times more
        gain = (1 / (0.25 + 0.3 * self.aggression)) ** (sh0 - sh1)
        return R.open_ratio * gain > 1

    def kong_pays(self, view, o, unseen, best_sh: int, plan: str, R: Reading) -> bool:
        """Weigh a kong: money, what it adds to a win, the replacement draw, against
        a step of shanten, a robbed kong and a following 杠上炮 (see the module doc)."""
        V = R.V
        seat = self.seat
        melds = view.melds[seat]
        kind = o.kind if o.type == KONG and o.kind else "exposed"
        t = o.tile
        h, _ = without_void(view.hand, view.void[seat])
        nm = len(melds)
        if kind == "added":
            k, nm1 = 1, nm
        elif kind == "concealed":
            k, nm1 = 4, nm + 1
        else:
            k, nm1 = 3, nm + 1
        h[t] -= k
        sh1, n, _ = accept(h, nm1, unseen)
        h[t] += k
        others = view.n - 1 - sum(view.won[x] for x in range(view.n) if x != seat)
        late = kind == "added" and view.drawn != t
        money = float(kong_money(R.rules, kind, late, others))  # mypyc: a float from here
        if view.void[seat] is not None and sh1 > 0:
            money *= 0.7  # 退税: a hand not ready at the end hands it back
        # a win's worth now, roughly: the plan's money per win, a third of the time
        key = {"flush": "flush", "half": "half", "triplets": "triplets_open", "pairs": "pairs"}.get(
            plan, "plain_open" if any(m.exposed for m in melds) else "plain"
        )
        win = V.win_money(key, others, P_SELF) * 0.3
        ratio = V.kong_ratio[kind]
        if kind == "exposed" and not any(m.exposed for m in melds):
            ratio *= R.open_ratio  # the kong opens a concealed hand
        gain = money + (ratio - 1) * win
        # the replacement draw: a win on it (杠上花), else a chance to improve
        q = n / max(1, sum(unseen))
        gain += q * win * (V.gangshanghua_ratio if sh1 <= 0 else 0.5)
        # a step of shanten lost
        if sh1 > best_sh:
            gain -= (sh1 - best_sh) * win * 1.5
        # robbed (抢杠胡) or 杠上炮: worse with threats and late in the wall
        threats = len(self.threats(view))
        p = 0.01 * others + 0.04 * threats + (0.03 if view.wall_left < 30 else 0.0)
        if kind == "added" or (kind == "exposed" and R.rules["rob_exposed_kong"]):
            gain -= p * V.robbed
        if V.gangshangpao_ratio > 1:
            gain -= (
                p * (V.gangshangpao_ratio - 1) * (V.target["plain"][1] or V.target["plain"][0] or 1)
            )
        return gain > 0

    def discard(self, view, discards, ranked, unseen, plan, suit, slack, R) -> Event:
        hand = view.hand
        vd = self.void_discard(view, discards, unseen)
        if vd is not None:
            return vd
        # the threats are read where a choice turns on them (hopeless, a plan's
        # slack, ties), not before
        threats = None
        late = view.wall_left < 30 * self.defense
        if ranked[0][0] >= self.fold - (1 if late else 0) and (threats := self.threats(view)):
            return min(
                discards,
                key=lambda o: (self.danger(view, o.tile, threats, unseen), -unseen[o.tile], o.tile),
            )
        if plan == "pairs":
            singles = [o for o in discards if hand[o.tile] in (1, 3)]
            if singles:
                return min(singles, key=lambda o: (hand[o.tile] != 1, unseen[o.tile], o.tile))
        pool = self._plan_pool(hand, discards, plan, suit, R)
        if pool:
            wanted = {id(o) for o in pool}
            for r in ranked:  # the best ranked discard the plan wants gone
                if id(r[3]) in wanted:
                    return r[3]
            # none ranked: the plan would cost a step, worth it only with slack
            if plan == "shilaotou" or slack >= 1:
                if threats is None:
                    threats = self.threats(view)
                if threats:
                    return min(pool, key=lambda o: self.danger(view, o.tile, threats, unseen))
                return min(pool, key=lambda o: o.tile)
        if (
            plan == "half"
            and R.keep_honors
            and not any(m.tile >= 27 for m in view.melds[self.seat])
        ):
            # the honors are what the hand is paid for: the last two stay
            # when another discard keeps the same shanten
            kept = [r for r in ranked if r[3].tile < 27 or sum(hand[27:34]) > 2]
            ranked = kept or ranked
        top = [r for r in ranked if r[:3] == ranked[0][:3]]
        if len(top) > 1:
            if threats is None:
                threats = self.threats(view)
            if threats:
                return min(top, key=lambda r: self.danger(view, r[3].tile, threats, unseen))[3]
        return top[self.rng.below(len(top))][3]

    def _plan_pool(self, hand, discards, plan, suit, R):
        """The discards the plan wants gone (None: no plan's pool)."""
        if plan == "shilaotou":
            return [o for o in discards if o.tile >= 27]
        if plan in ONE_SUIT:
            return [
                o for o in discards if o.tile // 9 != suit and not (plan == "half" and o.tile >= 27)
            ]
        if plan == "triplets":
            return [o for o in discards if hand[o.tile] == 1]
        if plan != "pairs" and R.zhongbai:
            return [o for o in discards if not (o.tile in (WHITE, RED) and hand[o.tile] >= 2)]
        return None


class Pricing:
    """One decision's plan pricing (see :func:`race`): a plan's value is its worth
    × the chance it wins within ``horizon`` draws, less what a rival's win first
    costs. The rivals' table (each taken to be the agent's own plain hand: the
    chance none is done by each draw) is worked out when a value first needs it,
    once for every plan of the decision."""

    __slots__ = ("R", "d_p", "q_p", "opened", "horizon", "rivals", "n", "alive")

    def __init__(
        self,
        R: Reading,
        plain_speed: tuple[int, float],
        opened: bool,
        horizon: int,
        rivals: int,
        n: int,
    ) -> None:
        self.R = R
        self.d_p, self.q_p = plain_speed
        self.opened, self.horizon, self.rivals, self.n = opened, horizon, rivals, n
        self.alive: tuple[float, ...] | None = None

    def steps(self, d: int, q: float, key: str) -> list[float]:
        """Each step's chance on a draw: a draw helps less as the hand nears a win
        (fewer tiles still wanted: seven pairs' singles, a ready hand's wait); the
        last tile may also come off any discard where the rules let the target
        win on one."""
        d = max(1, d)  # seven pairs held but not won (a void tile, a passed win)
        # x if x < 0.95 else 0.95: min(0.95, x), without the call
        out = [x if (x := q * (d - j) / d) < 0.95 else 0.95 for j in range(d)]
        if self.R.V.target[key][1] is not None:
            out[-1] = x if (x := out[-1] * self.n) < 0.95 else 0.95
        return out

    def value(self, worth: float, d: int, q: float, key: str) -> float:
        """What a plan ``d`` steps away, a draw helping it with chance ``q``, is worth."""
        alive = self.alive
        if alive is None:  # the rivals' table, once a decision
            rival = self.steps(self.d_p, self.q_p, "plain") if self.rivals else []
            alive = self.alive = _none_finished(tuple(rival), self.horizon, self.rivals)
        win, lose = race_against(tuple(self.steps(d, q, key)), self.horizon, alive)
        n = self.n
        return worth * win - lose / (n - 1 if n > 1 else 1)

    def plain(self) -> float:
        """The plain hand's value: the bar every other plan must clear."""
        if self.opened:
            return self.value(self.R.open_ratio, self.d_p, self.q_p, "plain_open")
        return self.value(1.0, self.d_p, self.q_p, "plain")


def race(
    steps: list[float], draws: int, rivals: int, rival_steps: list[float]
) -> tuple[float, float]:
    """(chance this hand wins first, chance a rival does) within ``draws`` draws of
    its own: its remaining steps toward a win each succeed on a draw with the
    chance in ``steps``, in order; each of ``rivals`` other seats is taken to be
    as far and as fast as ``rival_steps`` (the agent's own plain hand: it cannot
    see theirs). With no rivals only the wall ends the hand.

    >>> [round(p, 3) for p in race([0.5, 0.5], 2, 0, [])]   # both draws must help
    [0.25, 0.0]
    >>> race([0.3] * 3, 10, 3, [0.3] * 3)[0] < race([0.3] * 3, 10, 0, [])[0]
    True
    >>> race([0.3] * 4, 3, 0, [])                            # too far for the wall left
    (0.0, 0.0)
    """
    # the rivals' table recurs within a decision (every plan races the same
    # rivals) and across decisions: it is cached, its floats unchanged
    return race_against(tuple(steps), draws, _none_finished(tuple(rival_steps), draws, rivals))


def race_against(
    steps: tuple[float, ...], draws: int, alive: tuple[float, ...]
) -> tuple[float, float]:
    """:func:`race` against the rivals' table ``alive`` (the chance no rival is
    done by each draw 0..draws: :func:`_none_finished`), this hand's chance of
    being done worked out draw by draw as it goes (:func:`_finished_by`'s
    products and sums, in the same order; unrolled for one to seven steps)
    instead of tabled first.

    >>> race_against((0.5, 0.5), 2, (1.0, 1.0, 1.0))
    (0.25, 0.0)
    """
    n = len(steps)
    if n == 1:
        return _race1(steps[0], draws, alive)
    if n == 2:
        return _race2(steps[0], steps[1], draws, alive)
    if n == 3:
        return _race3(steps[0], steps[1], steps[2], draws, alive)
    if n == 4:
        return _race4(steps[0], steps[1], steps[2], steps[3], draws, alive)
    if n == 5:
        return _race5(steps[0], steps[1], steps[2], steps[3], steps[4], draws, alive)
    if n == 6:
        return _race6(steps[0], steps[1], steps[2], steps[3], steps[4], steps[5], draws, alive)
    if n == 7:
        return _race7(
            steps[0], steps[1], steps[2], steps[3], steps[4], steps[5], steps[6], draws, alive
        )
    return _race_n(steps, draws, alive)


# Why unrolled (issue 48's review): _race_n alone for every length, the same
# products in the same order, cost more per strategic hand in callgrind (48 seeded
# hands a variant, every seat strategic): pure +4.8 % yuxi, +3.7 % xuezhan, +10.4 %
# huangmei; compiled (mypyc) +6.0 %, +4.1 %, +14.7 %. Its list of step chances
# boxes every float a step moves; the locals below stay unboxed when compiled.
# tests/agents/test_strategic_memo.py and test_strategic_once.py hold each loop to
# _race_plain bit for bit.
#
# The loops below are race's over draws k = 1..draws, with mine[k] (the chance
# every step is done by draw k) the last step's share after the draw's moves:
#   win += (mine[k] - mine[k-1]) * alive[k-1]
#   lose += (alive[k-1] - alive[k]) * (1 - mine[k])
# each step's move as _finished_by makes it, last step first. With no rivals
# every alive is 1.0: win adds mine[k] - mine[k-1] exactly, lose stays 0.0.
def _race1(s0: float, draws: int, alive: tuple[float, ...]) -> tuple[float, float]:
    a0, a1 = 1.0, 0.0
    win = lose = 0.0
    before = alive[0]
    for k in range(1, draws + 1):
        prev = a1
        m = a0 * s0
        a0 -= m
        a1 += m
        after = alive[k]
        win += (a1 - prev) * before
        lose += (before - after) * (1 - a1)
        before = after
    return win, lose


def _race2(s0: float, s1: float, draws: int, alive: tuple[float, ...]) -> tuple[float, float]:
    a0, a1, a2 = 1.0, 0.0, 0.0
    win = lose = 0.0
    before = alive[0]
    for k in range(1, draws + 1):
        prev = a2
        m = a1 * s1
        a1 -= m
        a2 += m
        m = a0 * s0
        a0 -= m
        a1 += m
        after = alive[k]
        win += (a2 - prev) * before
        lose += (before - after) * (1 - a2)
        before = after
    return win, lose


def _race3(
    s0: float, s1: float, s2: float, draws: int, alive: tuple[float, ...]
) -> tuple[float, float]:
    a0, a1, a2, a3 = 1.0, 0.0, 0.0, 0.0
    win = lose = 0.0
    before = alive[0]
    for k in range(1, draws + 1):
        prev = a3
        m = a2 * s2
        a2 -= m
        a3 += m
        m = a1 * s1
        a1 -= m
        a2 += m
        m = a0 * s0
        a0 -= m
        a1 += m
        after = alive[k]
        win += (a3 - prev) * before
        lose += (before - after) * (1 - a3)
        before = after
    return win, lose


def _race4(
    s0: float, s1: float, s2: float, s3: float, draws: int, alive: tuple[float, ...]
) -> tuple[float, float]:
    a0, a1, a2, a3, a4 = 1.0, 0.0, 0.0, 0.0, 0.0
    win = lose = 0.0
    before = alive[0]
    for k in range(1, draws + 1):
        prev = a4
        m = a3 * s3
        a3 -= m
        a4 += m
        m = a2 * s2
        a2 -= m
        a3 += m
        m = a1 * s1
        a1 -= m
        a2 += m
        m = a0 * s0
        a0 -= m
        a1 += m
        after = alive[k]
        win += (a4 - prev) * before
        lose += (before - after) * (1 - a4)
        before = after
    return win, lose


def _race5(
    s0: float, s1: float, s2: float, s3: float, s4: float, draws: int, alive: tuple[float, ...]
) -> tuple[float, float]:
    a0, a1, a2, a3, a4, a5 = 1.0, 0.0, 0.0, 0.0, 0.0, 0.0
    win = lose = 0.0
    before = alive[0]
    for k in range(1, draws + 1):
        prev = a5
        m = a4 * s4
        a4 -= m
        a5 += m
        m = a3 * s3
        a3 -= m
        a4 += m
        m = a2 * s2
        a2 -= m
        a3 += m
        m = a1 * s1
        a1 -= m
        a2 += m
        m = a0 * s0
        a0 -= m
        a1 += m
        after = alive[k]
        win += (a5 - prev) * before
        lose += (before - after) * (1 - a5)
        before = after
    return win, lose


def _race6(
    s0: float,
    s1: float,
    s2: float,
    s3: float,
    s4: float,
    s5: float,
    draws: int,
    alive: tuple[float, ...],
) -> tuple[float, float]:
    a0, a1, a2, a3, a4, a5, a6 = 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    win = lose = 0.0
    before = alive[0]
    for k in range(1, draws + 1):
        prev = a6
        m = a5 * s5
        a5 -= m
        a6 += m
        m = a4 * s4
        a4 -= m
        a5 += m
        m = a3 * s3
        a3 -= m
        a4 += m
        m = a2 * s2
        a2 -= m
        a3 += m
        m = a1 * s1
        a1 -= m
        a2 += m
        m = a0 * s0
        a0 -= m
        a1 += m
        after = alive[k]
        win += (a6 - prev) * before
        lose += (before - after) * (1 - a6)
        before = after
    return win, lose


def _race7(
    s0: float,
    s1: float,
    s2: float,
    s3: float,
    s4: float,
    s5: float,
    s6: float,
    draws: int,
    alive: tuple[float, ...],
) -> tuple[float, float]:
    a0, a1, a2, a3, a4, a5, a6, a7 = 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    win = lose = 0.0
    before = alive[0]
    for k in range(1, draws + 1):
        prev = a7
        m = a6 * s6
        a6 -= m
        a7 += m
        m = a5 * s5
        a5 -= m
        a6 += m
        m = a4 * s4
        a4 -= m
        a5 += m
        m = a3 * s3
        a3 -= m
        a4 += m
        m = a2 * s2
        a2 -= m
        a3 += m
        m = a1 * s1
        a1 -= m
        a2 += m
        m = a0 * s0
        a0 -= m
        a1 += m
        after = alive[k]
        win += (a7 - prev) * before
        lose += (before - after) * (1 - a7)
        before = after
    return win, lose


def _race_n(steps: tuple[float, ...], draws: int, alive: tuple[float, ...]) -> tuple[float, float]:
    n = len(steps)
    at = [1.0] + [0.0] * n  # chance of standing at each step
    win = lose = 0.0
    before = alive[0]
    for k in range(1, draws + 1):
        prev = at[n]
        for j in range(n - 1, -1, -1):
            m = at[j] * steps[j]
            at[j] -= m
            at[j + 1] += m
        done = at[n]
        after = alive[k]
        win += (done - prev) * before
        lose += (before - after) * (1 - done)
        before = after
    return win, lose


def _race_plain(
    steps: list[float], draws: int, rivals: int, rival_steps: list[float]
) -> tuple[float, float]:
    """:func:`race` as first written, the reference its loops are held to."""
    mine = _finished_by_plain(tuple(steps), draws)
    if rivals:
        alive = tuple((1 - p) ** rivals for p in _finished_by_plain(tuple(rival_steps), draws))
    else:
        alive = (1.0,) * (draws + 1)
    win = lose = 0.0
    for k in range(1, draws + 1):
        before, after = alive[k - 1], alive[k]
        win += (mine[k] - mine[k - 1]) * before
        lose += (before - after) * (1 - mine[k])
    return win, lose


def _finished_by_plain(steps: tuple[float, ...], draws: int) -> tuple[float, ...]:
    """Chance every step is done by each draw 0..draws (one step at most a draw):
    the reference :func:`_finished_by` unrolls."""
    at = [1.0] + [0.0] * len(steps)  # chance of standing at each step
    out = [at[-1]]
    for _ in range(draws):
        for j in range(len(steps) - 1, -1, -1):
            moved = at[j] * steps[j]
            at[j] -= moved
            at[j + 1] += moved
        out.append(at[-1])
    return tuple(out)


@lru_cache(maxsize=4096)
def _finished_by(steps: tuple[float, ...], draws: int) -> tuple[float, ...]:
    """:func:`_finished_by_plain`, its inner loop unrolled into locals for the
    usual one to five steps: the same products and sums, in the same order."""
    n = len(steps)
    out = [0.0]
    add = out.append
    a1 = a2 = a3 = a4 = a5 = 0.0
    if n == 1:
        (s0,) = steps
        a0 = 1.0
        for _ in range(draws):
            m = a0 * s0
            a0 -= m
            a1 += m
            add(a1)
    elif n == 2:
        s0, s1 = steps
        a0 = 1.0
        for _ in range(draws):
            m = a1 * s1
            a1 -= m
            a2 += m
            m = a0 * s0
            a0 -= m
            a1 += m
            add(a2)
    elif n == 3:
        s0, s1, s2 = steps
        a0 = 1.0
        for _ in range(draws):
            m = a2 * s2
            a2 -= m
            a3 += m
            m = a1 * s1
            a1 -= m
            a2 += m
            m = a0 * s0
            a0 -= m
            a1 += m
            add(a3)
    elif n == 4:
        s0, s1, s2, s3 = steps
        a0 = 1.0
        for _ in range(draws):
            m = a3 * s3
            a3 -= m
            a4 += m
            m = a2 * s2
            a2 -= m
            a3 += m
            m = a1 * s1
            a1 -= m
            a2 += m
            m = a0 * s0
            a0 -= m
            a1 += m
            add(a4)
    elif n == 5:
        s0, s1, s2, s3, s4 = steps
        a0 = 1.0
        for _ in range(draws):
            m = a4 * s4
            a4 -= m
            a5 += m
            m = a3 * s3
            a3 -= m
            a4 += m
            m = a2 * s2
            a2 -= m
            a3 += m
            m = a1 * s1
            a1 -= m
            a2 += m
            m = a0 * s0
            a0 -= m
            a1 += m
            add(a5)
    else:
        return _finished_by_plain(steps, draws)
    return tuple(out)


@lru_cache(maxsize=4096)
def _none_finished(steps: tuple[float, ...], draws: int, rivals: int) -> tuple[float, ...]:
    """Chance none of ``rivals`` seats, each as ``steps``, is done by each draw."""
    if not rivals:
        return (1.0,) * (draws + 1)
    return tuple([(1 - p) ** rivals for p in _finished_by(steps, draws)])


_READINGS: dict = {}
