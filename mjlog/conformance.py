"""Conformance checks: what every hand the engine plays must keep, and what an agent
must do to be played by mjlog. Importable by a plugin's own tests
(examples/plugin_template/tests).

- :func:`play_checked` plays one hand, checking after every event that the tiles
  are conserved, every hand holds the tiles it should, a seat asked to act has a
  legal action and the deltas sum to 0; at the end, that the transfers sum to the
  deltas and each win event agrees with its ``wins`` row.
- :func:`check_agent` holds an agent to the interface (:class:`mjlog.agent.Agent`):
  its ``name`` and ``params``, a ``money_blind`` that is a bool when it declares
  one, legal choices in whole hands of a variant (checked as above), and the same
  hand from the same seed (its randomness only from the stream it is given).

A broken invariant raises :class:`ConformanceError` (an ``AssertionError``, so a
test reports it as a failure) naming it.

>>> from mjlog.agent import GreedyAgent
>>> from mjlog.rules import Rules
>>> st = play_checked(Rules("yuxi"), [GreedyAgent() for _ in range(4)], seed=3)
>>> st.over, sum(st.deltas)
(True, 0)
>>> check_agent(GreedyAgent, "xuezhan", seeds=range(2))
>>> class Careless(GreedyAgent):
...     money_blind = "yes"
>>> check_agent(Careless, "yuxi", seeds=range(1))
Traceback (most recent call last):
...
mjlog.conformance.ConformanceError: agent 'greedy': money_blind must be a bool, not 'yes'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from mjlog.agent import CAPABILITIES, Agent, GreedyAgent, RandomAgent
from mjlog.engine import deal, play
from mjlog.errors import MjlogError
from mjlog.events import WIN
from mjlog.hand import is_win, suit_misses
from mjlog.phase import Phase
from mjlog.rng import Stream, agent_seed
from mjlog.rules import Rules, resolve
from mjlog.state import HandState
from mjlog.variants import wall_tiles

__all__ = ["ConformanceError", "check_agent", "check_state", "play_checked", "tiles_in_play"]

MAX_STEPS = 5000
"""No hand takes this many events: one that does never ends."""


class ConformanceError(AssertionError):
    """An invariant of the engine or of the agent interface that did not hold."""


def _require(ok: object, message: object) -> None:
    if not ok:
        raise ConformanceError(str(message))


def tiles_in_play(st: HandState) -> Counter[int]:
    """Every tile somewhere: hands, melds, discards, laid-out 发, won discards, wall."""
    c: Counter[int] = Counter()
    for s in range(st.n):
        for t, k in enumerate(st.hands[s]):
            if k:
                c[t] += k
        for m in st.melds[s]:
            c[m.tile] += m.size
        c.update(st.discards[s])
        bonus = st.spec.bonus_tile
        if st.bonus[s] and bonus is not None:
            c[bonus] += st.bonus[s]
    c.update(st.won_tiles)
    c.update(st.wall[st.front : st.back + 1])
    c.update(st.horses)
    return c


def check_state(st: HandState, full: Counter[int]) -> None:
    """The invariants of one state of a hand whose wall holds ``full``."""
    if st.phase is Phase.DEAL:  # the deal takes tiles out of order; checked once done
        return
    _require(tiles_in_play(st) == full, "tiles not conserved")
    for s in range(st.n):
        size = sum(st.hands[s]) + 3 * len(st.melds[s])
        acting = (st.turn == s and st.phase is Phase.ACT) or (
            st.phase is Phase.VOID and s == st.dealer
        )
        expected = 14 if acting else 13
        if st.turn == s and st.phase is Phase.DRAW and st.spec.bonus_tile is not None:
            expected = size if size in (12, 13) else 13  # between a 发 and its replacement
        if st.won[s] and st.wins:
            # a winner's frozen hand: 14 after a self-draw, 13 + the won discard otherwise
            _require(size in (13, 14), f"winner S{s} holds {size}")
        elif st.phase is not Phase.OVER and not (st.pending and st.pending[0].type == WIN):
            _require(size == expected, f"seat {s} holds {size}, expected {expected} in {st.phase}")
    _require(sum(st.deltas) == 0, f"the deltas {st.deltas} do not sum to 0")
    # the engine's shortcuts agree with a fresh look at the hands
    for s in range(st.n):
        miss = st.seats.misses[s]
        _require(miss is None or miss == suit_misses(st.hands[s]), f"stale suit_misses of S{s}")
    if st.phase is Phase.ACT and st.drawn is not None and not st.drawn_may_win:
        _require(not is_win(st.hands[st.turn], len(st.melds[st.turn])), "a self-draw win skipped")


def play_checked(
    rules: Rules, agents: Sequence[Agent], seed: int, match: int = 0, hand: int = 0
) -> HandState:
    """Play one hand with the engine, checking the invariants after every event."""
    st, _, _ = deal(rules, seed, match, hand, None)
    full = Counter(wall_tiles(rules))
    for s, a in enumerate(agents):
        a.start_hand(s, Stream(agent_seed(seed, match, hand, s)))
    steps = [0]

    def check(state: HandState) -> None:
        steps[0] += 1
        _require(steps[0] < MAX_STEPS, "hand does not end")
        if state.phase in (Phase.ACT, Phase.VOID) and not state.pending:
            if state.auto() is None:
                _require(any(state.options().values()), f"no legal action in {state.phase}")
        check_state(state, full)

    play(st, agents, observe=check)
    # transfers sum to the deltas, seat by seat
    d = [0] * st.n
    for _seq, payer, payee, amount, _why in st.transfers:
        _require(amount > 0, f"a transfer of {amount}")
        d[payer] -= amount
        d[payee] += amount
    _require(d == st.deltas, f"the transfers sum to {d}, the deltas are {st.deltas}")
    # the log contract: a win event's from_seat is its wins row's (docs/log-schema.md)
    for rec in st.wins:
        _require(st.events[rec.seq].from_seat == rec.from_seat, rec)
    return st


def check_agent(
    factory: Callable[[], Agent],
    variant: str = "yuxi",
    seeds: Iterable[int] = range(10),
    sets: Sequence[str] = (),
) -> None:
    """Hold the agents ``factory()`` makes to the interface: each hand of ``seeds``
    is played under ``variant`` (with the ``--set`` items ``sets``) by one in seat 0
    and greedy and random agents in the others, checked by :func:`play_checked`, and
    played again by fresh agents to the same events."""
    rules = resolve(variant, sets=list(sets))
    agent = factory()
    who = f"agent {getattr(agent, 'name', type(agent).__name__)!r}"
    _require(isinstance(getattr(agent, "name", None), str) and agent.name, f"{who}: no name")
    _require(isinstance(getattr(agent, "params", None), dict), f"{who}: params is not a dict")
    for method in ("start_hand", "choose"):
        _require(callable(getattr(agent, method, None)), f"{who}: no {method}()")
    for cap, (kind, _default, _doc) in CAPABILITIES.items():
        value = getattr(agent, cap, None)
        _require(
            value is None or type(value) is kind,
            f"{who}: {cap} must be a {kind.__name__}, not {value!r}",
        )

    def table() -> list[Any]:
        others = [GreedyAgent, RandomAgent]
        return [factory(), *(others[s % 2]() for s in range(1, rules.n))]

    for seed in seeds:
        try:
            first = play_checked(rules, table(), seed)
            again = play_checked(rules, table(), seed)
        except MjlogError as e:  # an illegal choice (AgentError), say
            raise ConformanceError(f"{who}, {variant} seed {seed}: {e}") from e
        _require(
            first.events == again.events,
            f"{who}: seed {seed} played twice gives two hands (randomness not from its stream?)",
        )
