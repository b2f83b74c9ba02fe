"""xuezhan — 天天爱云南麻将 (blood battle, 血战到底): docs/rules/xuezhan.md.

- The 108 suited tiles, whatever the number of players. First dealer: seat 0
  (key ``first_dealer``: or drawn from hand 0's stream). The break as in yuxi.
- 定缺: after the deal every seat chooses a void suit, in seat order from the
  dealer (``void`` events). No pon or kong of a void-suit tile; no win while
  holding one (花猪). Discarding the void suit first (打缺) is not required
  (key ``void_first``; true: while a seat holds a void-suit tile, each of its
  discards must be one).
- Blood battle: a winner leaves the hand, its hand frozen; play resumes after
  the last winner on the tile, and the hand ends when one seat is left or the
  wall is empty. Next dealer: the first winner; several on the first tile: the
  discarder (or kong player); none: the dealer stays.
- 过手胡: a seat that passes a legal win may, until its next draw or its own
  pon or kong, only win with a higher multiplier. 过手碰: a passed pon locks that
  kind until the same moment.
- Kong money at once, active players only: 刮风 (exposed) the discarder pays 2,
  补杠 each other active seat 1, 下雨 (concealed) each other active seat 2.
  呼叫转移 (key ``call_transfer``): on 杠上炮 that kong's money goes to the winner.
- 点杠花 (杠上开花 on an exposed kong's replacement): the feeder pays alone (key
  ``dian_gang_hua``); in a chain of kongs the last kong decides, or the first
  (key ``dian_gang_hua_link``).
- End of wall, with two or more seats still in: 退税 (a seat not ready repays
  its kong money), 查花猪 (a seat holding its void suit pays ``cap`` to every
  other non-花猪), 查大叫 (each non-ready seat pays each ready one its best win).
- Scoring: :mod:`mjlog.scoring.xuezhan` (``mult.<pattern>`` multipliers, 根 and
  bonuses double, ``extras``, ``cap``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mjlog.events import Event, TransferReason

if TYPE_CHECKING:
    from mjlog.rng import Stream
    from mjlog.rules import Rules
    from mjlog.scoring.base import Score

from mjlog.events import transfer
from mjlog.rulekeys import RuleKey, bool_key, choice_key, common_keys, int_key
from mjlog.scoring import xuezhan as scorer
from mjlog.scoring.xuezhan import XUEZHAN_EXTRAS
from mjlog.tiles import tile_set
from mjlog.variants.base import Variant

#: the multiplier of every pattern, the defaults of ``mult.<key>`` (the scorer's pattern
#: rows: :data:`mjlog.scoring.xuezhan.TABLE`)
MULT = {p.key: p.value for p in scorer.TABLE}


class Xuezhan(Variant):
    name = "xuezhan"
    title = "天天爱云南麻将 (血战到底)"
    scorer = scorer
    pass_locks = True
    has_void = True
    blood_battle = True
    pon_lock = True
    rule_keys = tuple(
        common_keys(False)
        + [
            choice_key("first_dealer", "seat0", ("seat0", "random"), "first dealer of a match"),
            int_key("cap", 16, "封顶: maximum multiplier per payer", 1, money_only=True),
            RuleKey("extras", (), "list", XUEZHAN_EXTRAS, "enabled optional patterns"),
            choice_key(
                "extras_stack",
                "separate",
                ("separate", "multiply"),
                "enabled extras are candidate main patterns, or multiply in",
            ),
            choice_key(
                "zimo_bonus",
                "none",
                ("none", "add_base", "double"),
                "self-draw bonus",
                money_only=True,
            ),
            choice_key(
                "dian_gang_hua",
                "discarder_pays",
                ("discarder_pays", "self_draw"),
                "点杠花: the feeder pays alone, or every active player pays",
            ),
            choice_key(
                "dian_gang_hua_link",
                "last",
                ("last", "first"),
                "in a chain of kongs, which kong decides 点杠花",
                absent="last",
            ),
            bool_key(
                "void_first",
                False,
                "打缺: while holding a void-suit tile, discard only void-suit tiles",
                absent=False,
            ),
            bool_key(
                "call_transfer",
                False,
                "呼叫转移: on 杠上炮 the kong money goes to the winner",
                money_only=True,
            ),
        ]
        # not money-only: the 过手胡 lock compares multipliers, so a seat that passed a
        # win may take a later one under some values and not others (issue 46)
        + [
            RuleKey(f"mult.{k}", v, "pow2", doc=f"multiplier of {k} (also decides 过手胡)")
            for k, v in MULT.items()
        ]
    )

    def money_bound(self, rules: Rules) -> int | None:
        cap: int = rules["cap"]
        base: int = rules["base"]
        return (12 * (cap + 1) + 64) * base

    def patterns(self, rules: Rules | None = None) -> tuple[str, ...]:
        """Its scorer's table less the optional patterns ``extras`` leaves off.

        >>> from mjlog.rules import Rules
        >>> "tianhu" in XUEZHAN.patterns(), "tianhu" in XUEZHAN.patterns(Rules("xuezhan"))
        (True, False)
        """
        if rules is None:
            return super().patterns(rules)
        return self._without(rules, set(XUEZHAN_EXTRAS) - set(rules["extras"]))

    def wall_tiles(self, rules: Rules) -> tuple[int, ...]:
        return tile_set(108)

    def first_dealer(self, rules: Rules, stream: Stream) -> tuple[int, tuple[int, ...] | None]:
        if rules["first_dealer"] == "seat0":
            return 0, None
        return super().first_dealer(rules, stream)

    def check_tile_set(self, rules: Rules, honors: Sequence[int]) -> str | None:
        return "xuezhan plays the 108 suited tiles, no honors"

    def lock_after_pass(self, rules: Rules, lock: Any, sc: Score) -> Any:
        return sc.multiplier if lock is None else max(lock, sc.multiplier)

    def lock_refuses(self, lock: Any, sc: Score, self_draw: bool, forced: bool) -> bool:
        return bool(sc.multiplier <= lock)  # the lock: the multiplier passed

    def pass_lock_text(self, seat: int, lock: Any) -> str:
        return (
            f"过手胡: S{seat} passed a win worth ×{lock} since its last draw; only a "
            f"bigger one may be taken"
        )

    def void_first(self, rules: Rules) -> bool:
        return bool(rules["void_first"])

    def call_transfer(self, rules: Rules) -> bool:
        return bool(rules["call_transfer"])

    def kong_money(
        self, state: Any, s: int, kind: str, t: int, late: bool
    ) -> list[tuple[int, int, TransferReason]]:
        rules = state.rules
        base = rules["base"]
        if kind == "exposed":
            feeder = state.melds[s][-1].from_seat
            if state.won[feeder]:
                return []
            return [(feeder, 2 * base, TransferReason.KONG_EXPOSED)]
        others = [o for o in range(state.n) if o != s and not state.won[o]]
        if kind == "added":
            return [(o, base, TransferReason.KONG_ADDED) for o in others]
        return [(o, 2 * base, TransferReason.KONG_CONCEALED) for o in others]

    def settle_exhaustion(self, state: Any) -> list[Event]:
        act = state.active_seats()
        if len(act) < 2:
            return []
        n, rules = state.n, state.rules
        out = []
        pig = {s: state.holds_void(s) for s in range(n)}
        ready = {
            s: not pig[s]
            and scorer.is_ready(
                tuple(state.hands[s]), tuple(state.melds[s]), rules, void=state.void[s]
            )
            for s in act
        }
        for s in act:  # 退税
            if not ready[s]:
                for payer, payee, amount, _t in state.ledger.kong_receipts:
                    if payee == s and amount > 0:
                        out.append(transfer(s, payer, amount, TransferReason.TAX_REFUND))
        cap = rules["cap"] * rules["base"]
        for s in act:  # 查花猪
            if pig[s]:
                for o in range(n):
                    if o != s and not pig[o]:
                        out.append(transfer(s, o, cap, TransferReason.FLOWER_PIG))
        payers = [s for s in act if not ready[s] and not pig[s]]
        if payers:  # 查大叫: only then is what a ready hand is owed needed
            value = {
                r: scorer.ready_value(
                    tuple(state.hands[r]), tuple(state.melds[r]), rules, void=state.void[r]
                )
                for r in act
                if ready[r]
            }  # positive exactly when ready
            for s in payers:
                for r in value:
                    out.append(transfer(s, r, value[r], TransferReason.NOT_READY))
        return out


XUEZHAN = Xuezhan()
