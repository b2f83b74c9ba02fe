"""yuxi — 星悦云南麻将 (Yuxi folk rules): docs/rules/yuxi.md.

- 136 tiles (key ``honors``; false: the 108 suited tiles, and no 十老头). No chi.
  First dealer drawn from hand 0's stream; the dice give the break
  (side of seat dealer + sum − 1, that side's first position + 2 × sum).
- The first win ends the hand; several winners on one discard all win. Next
  dealer: the single winner; several: the discarder's 下家; a drawn hand: the
  dealer stays (key ``dealer_on_draw``).
- A plain hand (平胡 only) must be won by self-draw; 杠上炮 and 抢杠胡 count as
  patterns, so a plain hand may win on the discard after its discarder's kong or
  by robbing a kong (key ``kong_wins_big``; false reads "普通平胡严禁点炮"
  strictly: such a hand may not win there). 弃胡: passing a legal win
  locks a seat out of discard and rob wins until its next draw; a pon does not
  end it (key ``pass_hu_lock``).
- 尾牌强制: with 4 tiles or fewer left every legal win is taken by the engine,
  over the pass lock and rather than a kong; a plain hand still may not win on a
  discard there unless ``last4_plain_on_discard``.
- 十老头: ten consecutive honor discards, each passed by all, win at once
  (``points.shilaotou``, valued by the scorer: ``-/-`` means no win).
- Kong money: an exposed kong's discarder pays 2; an added kong's pon feeder
  pays 2 (key ``bugang_payer``: or each other player 1); a concealed kong earns
  nothing. 点杠花 (a win on an exposed kong's replacement): key ``dian_gang_hua``;
  in a chain of kongs the last kong decides whether it is 点杠花, or the first
  (key ``dian_gang_hua_link``), whose feeder then pays.
- 买马 (key ``horses``): after the win(s), that many tiles turned from the tail;
  each pointing at a winner makes each of its payers pay its points once more.
- Exhaustive draw (查大叫): every player that is not ready pays each ready
  player what its hand is owed (key ``chadajiao_value``): its best self-draw
  value over its waits (``best_self_draw``), its best discard value over the
  waits it may win on a discard, else its self-draw value (``best_discard``),
  or 1 (``flat``).
- Scoring: :mod:`mjlog.scoring.yuxi` (``points.<pattern>``, self-draw/discard
  pairs; the highest, doubled per other pattern; ``cap``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mjlog.events import Event, TransferReason

if TYPE_CHECKING:
    from mjlog.rules import Rules
    from mjlog.scoring.base import Score


from mjlog.events import transfer
from mjlog.rulekeys import RuleKey, bool_key, choice_key, common_keys, int_key
from mjlog.scoring import yuxi as scorer
from mjlog.tiles import tile_set
from mjlog.variants.base import Variant

#: pattern: (self-draw, discard) points per payer, the defaults of ``points.<key>``
#: (the scorer's pattern rows: :data:`mjlog.scoring.yuxi.PATTERNS`)
POINTS = {p.key: p.value for p in scorer.TABLE}


class Yuxi(Variant):
    name = "yuxi"
    title = "星悦云南麻将"
    scorer = scorer
    pass_locks = True
    forced_tiles = 4
    rule_keys = tuple(
        common_keys(True)
        + [
            bool_key("honors", True, "136 tiles with honors; false = 108 (disables 十老头)"),
            choice_key("dealer_on_draw", "stay", ("stay", "next"), "dealer after a drawn hand"),
            choice_key(
                "pass_hu_lock",
                "until_next_draw",
                ("until_next_draw", "none"),
                "弃胡: passing a win locks discard wins until the next draw",
            ),
            bool_key(
                "last4_plain_on_discard",
                False,
                "in the last four tiles a plain hand may win on a discard",
            ),
            int_key("cap", 64, "maximum points per payer", 1, money_only=True),
            choice_key(
                "dian_gang_hua",
                "discarder_pays",
                ("discarder_pays", "self_draw"),
                "点杠花: who pays a win on an exposed kong's replacement",
            ),
            choice_key(
                "dian_gang_hua_link",
                "last",
                ("last", "first"),
                "in a chain of kongs, which kong decides 点杠花",
                absent="last",
            ),
            choice_key(
                "bugang_payer",
                "pon_feeder",
                ("pon_feeder", "each_other"),
                "转弯杠 money: the pon's feeder pays 2, or each other player pays 1",
                money_only=True,
            ),
            bool_key(
                "kong_wins_big",
                True,
                "杠上炮 and 抢杠胡 let a plain hand win on that discard or rob",
                absent=True,
            ),
            choice_key(
                "chadajiao_value",
                "best_self_draw",
                ("best_self_draw", "best_discard", "flat"),
                "查大叫: what a ready hand is owed at an exhaustive draw",
                absent="best_self_draw",
                money_only=True,
            ),
            int_key("horses", 0, "买马: horses turned after a win (0 = off)", 0, 20),
        ]
        + [
            RuleKey(f"points.{k}", v, "pair", doc=f"points per payer for {k}: self-draw/discard")
            for k, v in POINTS.items()
        ]
    )

    def patterns(self, rules: Rules | None = None) -> tuple[str, ...]:
        """Its scorer's table; without honors, no 十老头."""
        return self._without(rules, set() if rules is None or rules["honors"] else {"shilaotou"})

    def wall_tiles(self, rules: Rules) -> tuple[int, ...]:
        return tile_set(136 if rules["honors"] else 108)

    def dealer_after(
        self,
        rules: Rules,
        dealer: int,
        winners: Sequence[int],
        first_batch: Sequence[int],
        payer_of_first: int | None,
    ) -> int:
        if not winners:
            return (dealer + 1) % rules.n if rules["dealer_on_draw"] == "next" else dealer
        if len(first_batch) == 1:
            return first_batch[0]
        assert payer_of_first is not None, "several winners on one tile: it has a payer"
        return (payer_of_first + 1) % rules.n  # several winners: the discarder's 下家

    def check_tile_set(self, rules: Rules, honors: Sequence[int]) -> str | None:
        if not rules["honors"]:
            return "yuxi with honors = false plays 108 tiles, no honors"
        return None

    def money_bound(self, rules: Rules) -> int | None:
        cap: int = rules["cap"]
        base: int = rules["base"]
        return (3 * cap * (2 + self.horses(rules)) + 32) * base

    def counts_honor_discards(self, rules: Rules) -> bool:
        return bool(rules["honors"])

    def lock_after_pass(self, rules: Rules, lock: Any, sc: Score) -> Any:
        return True if rules["pass_hu_lock"] == "until_next_draw" else lock

    def lock_refuses(self, lock: Any, sc: Score, self_draw: bool, forced: bool) -> bool:
        return not self_draw and not forced

    def pass_lock_text(self, seat: int, lock: Any) -> str:
        return f"弃胡: S{seat} passed a win since its last draw; discard wins wait for its draw"

    def kong_money(
        self, state: Any, s: int, kind: str, t: int, late: bool
    ) -> list[tuple[int, int, TransferReason]]:
        rules = state.rules
        base = rules["base"]
        if kind == "exposed":
            return [(state.melds[s][-1].from_seat, 2 * base, TransferReason.KONG_EXPOSED)]
        if kind == "added":
            if rules["bugang_payer"] == "pon_feeder":
                m = next(m for m in state.melds[s] if m.tile == t and m.is_kong)
                return [(m.from_seat, 2 * base, TransferReason.KONG_ADDED)]
            return [(o, base, TransferReason.KONG_ADDED) for o in range(state.n) if o != s]
        return []

    def horses(self, rules: Rules) -> int:
        return int(rules["horses"])

    def settle_exhaustion(self, state: Any) -> list[Event]:
        n, rules = state.n, state.rules
        value = [
            scorer.ready_value(tuple(state.hands[s]), tuple(state.melds[s]), rules)
            for s in range(n)
        ]
        return [
            transfer(p, r, value[r], TransferReason.NOT_READY)
            for p in range(n)
            if not value[p]
            for r in range(n)
            if value[r]
        ]


YUXI = Yuxi()
