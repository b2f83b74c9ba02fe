"""Settle a logged hand again under other money rules, without playing it again.

Some rule keys only say what a hand *pays*: the base, a cap, the dealer's
compensation (:attr:`mjlog.rulekeys.RuleKey.money_only`). They change no legal
choice and no event the engine plays by itself except the payments. When no
agent of the line-up reads money either (:func:`money_blind`), a hand played
under one setting of those keys is, choice for choice, the hand played under
another: only its transfers differ. :func:`resettle` rebuilds it under the new
rules from its logged choices, through the one transition function
(:meth:`HandState.try_apply`), the payments coming from the new rules; it costs
a replay, not a game.

The claim is proved, not assumed: ``tests/batch/test_resettle.py`` plays every
money-only key of every variant both ways, for every money-blind agent, and
holds the two runs byte-identical.

>>> from mjlog.agent import GreedyAgent
>>> from mjlog.engine import play_hand
>>> from mjlog.rules import Rules
>>> agents = [GreedyAgent() for _ in range(4)]
>>> one = play_hand(Rules("yuxi"), agents, seed=7, match=0, hand=0, dealer=None).state
>>> five = Rules("yuxi", {"base": 5})
>>> again = resettle(five, one.hand_row(), one.events)
>>> again.deltas == [5 * d for d in one.deltas]
True
>>> again.deltas == play_hand(five, agents, seed=7, match=0, hand=0, dealer=None).state.deltas
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mjlog.agent import capability
from mjlog.errors import MjlogError
from mjlog.events import TRANSFER, Event
from mjlog.rules import Rules, keys
from mjlog.state import HandState

__all__ = ["NotResettled", "money_blind", "money_keys", "resettle"]


class NotResettled(MjlogError):
    """A logged hand whose choices the new rules do not allow, in the same order."""


def money_keys(a: Rules, b: Rules) -> list[str] | None:
    """The keys ``a`` and ``b`` differ in, when every one of them is money-only (and
    the variant the same); None when any is not."""
    if a.variant != b.variant:
        return None
    table = keys(a.variant)
    changed = sorted(k for k in a if a[k] != b[k])
    return changed if all(table[k].money_only for k in changed) else None


def money_blind(agents: Iterable[Any]) -> bool:
    """Whether no agent's choices read the money rules: each says so with a true
    ``money_blind`` attribute (:class:`mjlog.agent.Agent`; an agent that does not say
    is assumed to read them)."""
    return all(capability(a, "money_blind") is True for a in agents)


def resettle(rules: Rules, hand: Mapping[str, Any], events: Sequence[Event]) -> HandState:
    """The hand of ``hand`` (its logged wall, dealer, dice and break) and ``events``,
    rebuilt under ``rules``: every logged event but the transfers is applied in order
    (checked), and the transfers are those ``rules`` give. Raises
    :class:`NotResettled` when a logged event is not allowed under ``rules`` or the
    hand does not end with the log."""
    st = HandState(rules, list(hand["wall"]), hand["dealer"], tuple(hand["dice"]), hand["break"])
    try_apply = st.try_apply
    for seq, ev in enumerate(events):
        if ev.type == TRANSFER:
            continue
        _pay(st)
        if not try_apply(ev):
            # a refusal may have closed a claim window the log had left (everyone
            # passed), which can make payments due first: the dealer's compensation
            # after the hand's last win, say
            _pay(st)
            if try_apply(ev):
                continue
            raise NotResettled(f"logged event {seq} ({ev.type}) is not allowed under the new rules")
    _pay(st)
    if not st.over:
        raise NotResettled("the hand does not end where its log does")
    return st


def _pay(st: HandState) -> None:
    """Apply the payments due now under the state's rules (the state queues every
    transfer it makes as a pending event)."""
    pending = st.pending
    while pending and pending[0].type == TRANSFER:
        st.apply(pending[0])
