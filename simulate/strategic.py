"""``strategic``: ``efficient`` plus a plan for value and a sense of danger.

Each decision starts from a *plan* read off the hand (and the variant):

- ``pairs`` (七对): no melds and at least 5 pairs. Keeps pairs, throws the
  single with the fewest unseen copies, never pons.
- ``flush`` (清一色; huangmei 混一色): one suit holds most tiles (9 + 2×(1 −
  aggression) of hand and melds) and every meld. Throws other suits first (in
  huangmei honors stay), pons only in the suit.
- ``triplets`` (碰碰胡): pairs + triplets ≥ 4. Throws singles, pons freely.
- ``shilaotou`` (yuxi 十老头): 7 or more honors in hand. Throws honors.
- ``plain``: plays for acceptance as ``efficient`` does. In huangmei it keeps
  中/白 (their triplets are fan), pons only them, and keeps the hand concealed
  (门前清) otherwise, steering toward the 2-fan minimum.

In xuezhan the void is the suit whose loss costs the fewest connected tiles
(pairs, triplets, tiles within two of another), not only the shortest suit;
void tiles go first; every win is taken at once, since a
winner leaves the table and a passed win locks.

Defence, every variant: an opponent *threatens* when it shows two or more melds
of one suit, or when the wall runs low (under ``20 × defense`` tiles). Against a
threat, or with a hopeless hand (shanten ≥ ``fold``) late in the hand, it
prefers the safest discard: tiles every threatening player has let pass or
thrown, tiles with many copies already visible, and never the threatened suit.

Parameters (``--agents strategic:aggression=0.7;defense=0.5``):

- ``aggression`` (0..1, default 0.6): how readily it chases value;
- ``defense`` (0..1, default 0.5): how early it starts to fear the wall;
- ``fold`` (int, default 3): the shanten from which a threatened hand folds.

>>> from simulate.agents import make_agent
>>> a = make_agent("strategic:aggression=0.9")
>>> a.name, a.params["aggression"], a.params["fold"]
('strategic', 0.9, 3)
"""

from __future__ import annotations

from mjlog.agent import SeatView
from mjlog.errors import InputError
from mjlog.events import DISCARD, KONG, PON, VOID, WIN, Event
from simulate.efficient import EfficientCore, unseen_counts

WHITE, RED = 31, 33
DEFAULTS = {"aggression": 0.6, "defense": 0.5, "fold": 3}


def _parse(params: dict) -> dict:
    out = dict(DEFAULTS)
    for k, v in params.items():
        if k not in DEFAULTS:
            raise InputError(f"unknown strategic parameter {k!r}; valid: "
                             f"{', '.join(DEFAULTS)}")
        try:
            val = type(DEFAULTS[k])(v)
        except ValueError:
            raise InputError(f"bad value {v!r} for strategic parameter {k!r}") from None
        if k != "fold" and not 0.0 <= val <= 1.0:
            raise InputError(f"strategic parameter {k!r} must be in 0..1, got {v!r}")
        out[k] = val
    return out


class StrategicAgent(EfficientCore):
    name = "strategic"

    def __init__(self, **params):
        self.params = _parse(params)
        self.aggression = self.params["aggression"]
        self.defense = self.params["defense"]
        self.fold = self.params["fold"]

    def start_hand(self, seat, rng) -> None:
        self.seat, self.rng = seat, rng

    # ------------------------------------------------------------ plan
    def plan(self, view: SeatView) -> tuple[str, int | None]:
        hand, seat, v = view.hand, self.seat, view.spec
        melds = view.melds[seat]
        held = list(hand)
        for m in melds:
            held[m.tile] += 3
        suits = [sum(held[9 * s: 9 * s + 9]) for s in range(3)]
        honors = sum(hand[27:34])
        pairs = sum(1 for x in hand if x >= 2)
        if v.counts_honor_discards(view.rules) and honors >= 7 and not melds:
            return "shilaotou", None
        # seven pairs is slow: in the blood battle, where speed pays, wait for a 6th pair
        if not melds and pairs >= (6 if v.blood_battle else 5):
            return "pairs", None
        if "hunyise" in v.scorer.NAMES:  # 混一色 keeps honors: they count toward the suit
            suits = [x + sum(held[27:34]) for x in suits]
        s = max(range(3), key=lambda i: (suits[i], -i))
        need = 9 + round(2 * (1 - self.aggression))
        if v.has_void and view.void[seat] == s:
            need = 99
        if suits[s] >= need and all(m.tile // 9 == s or (
                "hunyise" in v.scorer.NAMES and m.tile >= 27) for m in melds):
            return "flush", s
        trips = sum(1 for x in hand if x >= 3) + len(melds)
        if pairs + trips >= 5 + (self.aggression < 0.5):
            return "triplets", None
        return "plain", None

    def kong_slack(self, view: SeatView, best_sh: int) -> int:
        """Kong money is paid at once in xuezhan (and a kong is a 根): a far-off hand
        may give up a step of shanten for it."""
        return 1 if view.spec.blood_battle and best_sh >= 2 else 0

    def committed(self, view: SeatView, plan: str, suit: int | None) -> bool:
        """Whether the plan is close enough to pay a step of shanten for it."""
        hand = view.hand
        if plan == "flush":
            held = sum(hand[9 * suit: 9 * suit + 9]) + sum(
                m.size for m in view.melds[self.seat] if m.tile // 9 == suit)
            if "hunyise" in view.spec.scorer.NAMES:
                held += sum(hand[27:34]) + sum(
                    m.size for m in view.melds[self.seat] if m.tile >= 27)
            return held >= 12 - round(2 * self.aggression)
        if plan == "shilaotou":
            return True
        return False

    # ------------------------------------------------------------ danger
    def threats(self, view: SeatView) -> list[tuple[int, int | None]]:
        """(seat, suit or None) of every opponent that looks dangerous."""
        out = []
        low = view.wall_left < 20 * self.defense
        for o in range(view.n):
            if o == self.seat or view.won[o]:
                continue
            ms = view.melds[o]
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
    def choose(self, view: SeatView, options: list[Event | None]) -> Event | None:
        first = options[0]
        if first is not None and first.type == WIN:
            return first
        if first is not None and first.type == VOID:
            return self.choose_void(view, options)
        unseen = unseen_counts(view)
        plan, suit = self.plan(view)
        if options[-1] is None:
            return self.claim(view, options, unseen, plan, suit)
        discards = [o for o in options if o.type == DISCARD]
        ranked = self.rank_discards(view, discards, unseen)
        for o in options:
            if o.type == KONG and plan != "pairs" and self.own_kong_helps(
                    view, o, ranked[0][0], unseen, self.kong_slack(view, ranked[0][0])):
                return o
        return self.discard(view, discards, ranked, unseen, plan, suit)

    def choose_void(self, view: SeatView, options: list[Event]) -> Event:
        """Void the suit whose loss costs the fewest *connected* tiles (in a pair,
        a triplet, or within two of another tile of the suit): scattered tiles go,
        shapes that become melds stay; then the suit with fewest tiles."""
        h = view.hand

        def connected(v: int) -> int:
            c = h[9 * v: 9 * v + 9]
            return sum(c[r] for r in range(9) if c[r] >= 2 or any(
                0 <= r + d < 9 and c[r + d] for d in (-2, -1, 1, 2)))

        return min(options, key=lambda o: (connected("mps".index(o.kind)),
                                           sum(h[9 * "mps".index(o.kind):][:9]),
                                           "mps".index(o.kind)))

    def claim(self, view, options, unseen, plan, suit) -> Event | None:
        for o in options:
            if o is None or o.type not in (PON, KONG):
                continue
            t = o.tile
            if plan == "pairs":
                return None
            if "peng_zhongbai" in view.spec.scorer.NAMES and t in (WHITE, RED):
                return o
            if plan == "flush" and not (t // 9 == suit or ("hunyise" in view.spec.scorer.NAMES
                                                           and t >= 27)):
                continue
            if plan == "triplets" or self.claim_helps(view, o, unseen):
                return o
            if o.type == KONG and view.spec.blood_battle:
                return o  # 刮风: the discarder pays at once, and the four is a 根
        return None

    def discard(self, view, discards, ranked, unseen, plan, suit) -> Event:
        hand = view.hand
        void = view.void[self.seat]
        if void is not None:
            vd = [o for o in discards if o.tile // 9 == void]
            if vd:
                return min(vd, key=lambda o: (unseen[o.tile], o.tile))
        threats = self.threats(view)
        best_sh = ranked[0][0]
        late = view.wall_left < 30 * self.defense
        if threats and (best_sh >= self.fold - (1 if late else 0)):
            return min(discards, key=lambda o: (self.danger(view, o.tile, threats, unseen),
                                                 -unseen[o.tile], o.tile))
        pool = None
        if plan == "pairs":
            singles = [o for o in discards if hand[o.tile] in (1, 3)]
            if singles:
                return min(singles, key=lambda o: (hand[o.tile] != 1, unseen[o.tile], o.tile))
        elif plan == "shilaotou":
            pool = [o for o in discards if o.tile >= 27]
        elif plan == "flush":
            keep_honors = "hunyise" in view.spec.scorer.NAMES
            pool = [o for o in discards
                    if o.tile // 9 != suit and not (keep_honors and o.tile >= 27)]
        elif plan == "triplets":
            pool = [o for o in discards if hand[o.tile] == 1]
        elif "anke_zhongbai" in view.spec.scorer.NAMES:
            pool = [o for o in discards if not (o.tile in (WHITE, RED) and hand[o.tile] >= 2)]
        if pool:
            order = {id(r[3]): i for i, r in enumerate(ranked)}
            inrank = [o for o in pool if id(o) in order]
            if inrank:
                pool = inrank
            elif not self.committed(view, plan, suit):
                pool = None  # the plan would cost a step: not worth it yet
        if pool:
            if threats:
                return min(pool, key=lambda o: (order.get(id(o), 99),
                                                self.danger(view, o.tile, threats, unseen)))
            return min(pool, key=lambda o: (order.get(id(o), 99), o.tile))
        top = [r for r in ranked if r[:3] == ranked[0][:3]]
        if threats and len(top) > 1:
            return min(top, key=lambda r: self.danger(view, r[3].tile, threats, unseen))[3]
        return top[self.rng.below(len(top))][3]
