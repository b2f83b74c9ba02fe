"""The engine: deals a hand from its seed and plays it to the end with agents.

The engine only asks the agents which event happens next; every change of
state goes through :meth:`mjlog.state.HandState.apply`, the same transition the
replayer and the auditor use, and what a window's claims make happen is
:meth:`mjlog.claims.Claims.resolve`.

>>> from mjlog.rules import Rules
>>> from mjlog.agent import GreedyAgent
>>> r = Rules("yuxi")
>>> hand = play_hand(r, [GreedyAgent() for _ in range(4)], seed=7, match=0, hand=0, dealer=0)
>>> hand.state.over, sum(hand.state.deltas)
(True, 0)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, NoReturn

from mjlog.agent import Agent, SeatView
from mjlog.errors import MjlogError
from mjlog.events import WIN, Event
from mjlog.position import Position
from mjlog.rng import Stream, buffered, hand_seed, hand_seeds, seat_seeds, shuffle_many
from mjlog.rules import Rules
from mjlog.state import HandState, Phase

ACT, CLAIM, ROB = Phase.ACT, Phase.CLAIM, Phase.ROB


class AgentError(MjlogError):
    """An agent returned something that is not one of its legal choices."""


@dataclass(slots=True)
class PlayedHand:
    """A finished hand: its state (events, wins, transfers inside) and identity."""

    state: HandState
    match: int
    hand: int
    rotation: int
    hand_seed: int
    agents: tuple[str, ...]
    dealer_rolls: tuple[int, ...] | None = None

    def hand_row(self) -> dict[str, Any]:
        row = self.state.hand_row()
        row["hand_seed"] = self.hand_seed
        row["agents"] = list(self.agents)
        row["dealer_rolls"] = list(self.dealer_rolls) if self.dealer_rolls else None
        return row


def first_dealer(rules: Rules, stream: Stream) -> tuple[int, tuple[int, ...] | None]:
    """The first dealer of a match, drawn from hand 0's stream (after its wall), and
    the dice rolled for it, as the variant says (huangmei: every seat rolls two
    dice in seat order, the highest sum deals, ties re-roll among the tied)."""
    return rules.spec.first_dealer(rules, stream)


class Dealt(NamedTuple):
    """What the seed gives a hand before play: see :func:`deal_wall`."""

    wall: list[int]
    dealer: int
    dice: tuple[int, int]
    break_pos: int
    hand_seed: int
    rolls: tuple[int, ...] | None


def deal_wall(rules: Rules, root_seed: int, match: int, hand: int, dealer: int | None) -> Dealt:
    """Shuffle hand ``hand``'s wall, roll the dice, break the wall. ``dealer`` None
    means hand 0 of a match: the first dealer is drawn from this hand's stream.

    Stream order (fixed): the shuffle, then the first-dealer draws (hand 0 only),
    then the two dice. The auditor calls this to check a log against its seed.
    """
    hs = hand_seed(root_seed, match, hand)
    stream = Stream(hs)
    ring = list(rules.spec.wall_tiles(rules))
    stream.shuffle(ring)
    return _dealt(rules, hs, ring, stream, dealer)


def deal_walls(
    rules: Rules, root_seed: int, hands: Sequence[tuple[int, int, int | None]]
) -> list[Dealt]:
    """:func:`deal_wall` of every (match, hand, dealer) in ``hands``, the shuffles
    done together (:func:`mjlog.rng.shuffle_many`): the auditor's seed check of a
    batch of hands.

    >>> from mjlog.rules import resolve
    >>> r = resolve("xuezhan")
    >>> deal_walls(r, 9, [(0, 0, None), (0, 1, 2)]) == [deal_wall(r, 9, 0, 0, None),
    ...                                                  deal_wall(r, 9, 0, 1, 2)]
    True
    """
    seeds = [hand_seed(root_seed, m, k) for m, k, _d in hands]
    shuffled = shuffle_many(seeds, list(rules.spec.wall_tiles(rules)))
    return [
        _dealt(rules, hs, ring, stream, d)
        for hs, (ring, stream), (_m, _k, d) in zip(seeds, shuffled, hands, strict=True)
    ]


def _dealt(rules: Rules, hs: int, ring: list[int], stream: Stream, dealer: int | None) -> Dealt:
    """The rest of a deal once the wall ``ring`` is shuffled from ``stream``."""
    rolls = None
    if dealer is None:
        dealer, rolls = first_dealer(rules, stream)
    dice = (stream.below(6) + 1, stream.below(6) + 1)
    b = rules.spec.break_position(dice, dealer, rules.n, len(ring))
    return Dealt(ring[b:] + ring[:b], dealer, dice, b, hs, rolls)


def deal(
    rules: Rules, root_seed: int, match: int, hand: int, dealer: int | None
) -> tuple[HandState, int, tuple[int, ...] | None]:
    """:func:`deal_wall`, as a hand ready to play: (state, hand seed, dealer rolls)."""
    d = deal_wall(rules, root_seed, match, hand, dealer)
    return HandState(rules, d.wall, d.dealer, d.dice, d.break_pos), d.hand_seed, d.rolls


def play(
    state: HandState, agents: Sequence[Agent], observe: Callable[[HandState], None] | None = None
) -> HandState:
    """Play a dealt hand to its end. ``agents[s]`` decides for seat ``s``;
    ``observe(state)``, if given, runs after every change of state (tests use it)."""
    views = [SeatView(state, s) for s in range(state.n)]
    pos = state.pos  # the position, read straight (its phase and turn) in this loop
    choices = state.choices
    over = Phase.OVER
    # state.apply and the choices are called as methods, not bound once to locals:
    # compiled (build_compiled.py), such a call is a direct call
    while pos.phase is not over:
        ev = choices.auto()
        if ev is None:
            if pos.phase is not ACT:
                opts = choices.options()
                if pos.phase is CLAIM or pos.phase is ROB:
                    # claim priority is the state's
                    for ev in state.claims.resolve(_claims(opts, agents, views)):
                        state.apply(ev)
                        if observe is not None:
                            observe(state)
                        while state.pending and ev.type == WIN:  # a win's payments first
                            state.apply(state.pending[0])
                            if observe is not None:
                                observe(state)
                    continue
                ev = _one_choice(pos, opts, agents, views)
            else:  # the common case, without the per-seat dict
                s = pos.turn
                o = choices.act_options()  # the acting seat's options: no pass among them
                # the agent as Any: compiled, a call through the Agent protocol checks
                # the answer is an Event | None, and a plugin's stray one would fail
                # there (a TypeError) before reaching _refuse (one line)
                agent: Any = agents[s]
                pick: object = agent.choose(views[s], o)
                ev = _offered(pick, o)
                if ev is None:
                    _refuse(agent, s, pick, o)
        state.apply(ev)
        if observe is not None:
            observe(state)
    return state


def _offered(pick: object, options: list[Event]) -> Event | None:
    """The option ``pick`` is, or None: an agent returns one of the very objects
    offered, found by identity before the equality that ``in`` tries on each."""
    for o in options:
        if o is pick:
            return o
    for o in options:
        if o == pick:
            return o
    return None


def _claims(
    opts: dict[int, list[Event]], agents: Sequence[Agent], views: list[SeatView]
) -> dict[int, Event | None]:
    """Each seat's answer to an open window: a claim among its options, or None (pass)."""
    picks: dict[int, Event | None] = {}
    for s, evs in opts.items():
        picks[s] = _ask(agents[s], views[s], [*evs, None])  # None: pass
    return picks


def _one_choice(
    pos: Position, opts: dict[int, list[Event]], agents: Sequence[Agent], views: list[SeatView]
) -> Event:
    """The one seat's choice outside the acting turn and the claim windows (a void...)."""
    if not opts:
        raise MjlogError(f"no legal action for the seat to act in {pos.phase.name}")
    ((s, evs),) = opts.items()
    offered: list[Event | None] = list(evs)
    pick: Event | None = _ask(agents[s], views[s], offered)
    if pick is None:  # not among the options: no pass outside a claim window
        _refuse(agents[s], s, pick, offered)
    return pick


def _ask(agent: Agent, view: SeatView, options: list[Event | None]) -> Event | None:
    asked: Any = agent  # its answer unchecked until found among the options: see play()
    pick: object = asked.choose(view, options)
    if pick not in options:
        _refuse(agent, view.seat, pick, options)
    return pick


def _refuse(agent: Agent, seat: int, pick: object, options: Sequence[Event | None]) -> NoReturn:
    raise AgentError(
        f"agent {agent.name!r} in seat {seat} chose {pick!r}, "
        f"not one of its {len(options)} legal options"
    )


def play_hand(
    rules: Rules,
    agents: Sequence[Agent],
    seed: int,
    match: int,
    hand: int,
    dealer: int | None,
    rotation: int = 0,
    observe: Callable[[HandState], None] | None = None,
) -> PlayedHand:
    """Deal and play one hand; each agent gets its seeded stream for this hand.
    ``observe``: as for :func:`play` (``mjlog validate --reproduce`` compares the
    log with the play event by event)."""
    (seeded,) = _seeded(rules, seed, match, [hand], len(agents))
    return _play_seeded(rules, agents, seeded, match, hand, dealer, rotation, observe)


class _Seeded(NamedTuple):
    """What a hand's seed gives before its dealer is known: the hand seed, the
    shuffled wall with the stream after the shuffle, and the seats' streams."""

    hand_seed: int
    ring: list[int]
    stream: Stream
    seats: list[Stream]


def _seeded(rules: Rules, seed: int, match: int, hands: list[int], n: int) -> list[_Seeded]:
    """:class:`_Seeded` of each of a match's ``hands``, their seeds, shuffles and
    seats' first draws computed together (:mod:`mjlog.rng`'s numpy routines, the
    same numbers as :func:`deal_wall` and ``Stream(agent_seed(...))``)."""
    seeds = hand_seeds(seed, match, hands)
    shuffled = shuffle_many(seeds, list(rules.spec.wall_tiles(rules)))
    streams = buffered([x for per_hand in seat_seeds(seeds, n) for x in per_hand])
    return [
        _Seeded(hs, ring, stream, streams[i * n : i * n + n])
        for i, (hs, (ring, stream)) in enumerate(zip(seeds, shuffled, strict=True))
    ]


def _play_seeded(
    rules: Rules,
    agents: Sequence[Agent],
    seeded: _Seeded,
    match: int,
    hand: int,
    dealer: int | None,
    rotation: int,
    observe: Callable[[HandState], None] | None = None,
) -> PlayedHand:
    """:func:`play_hand` of a hand whose seeds are drawn (:func:`_seeded`)."""
    d = _dealt(rules, seeded.hand_seed, seeded.ring, seeded.stream, dealer)
    state = HandState(rules, d.wall, d.dealer, d.dice, d.break_pos)
    for s, a in enumerate(agents):
        a.start_hand(s, seeded.seats[s])
    play(state, agents, observe)
    names = tuple(a.name for a in agents)
    return PlayedHand(state, match, hand, rotation, d.hand_seed, names, d.rolls)


#: How many hands of a match have their seeds drawn together (memory stays small).
_SEEDED_AT_ONCE = 16


def play_match(
    rules: Rules,
    agents: Sequence[Agent],
    seed: int,
    match: int,
    hands: int,
    rotation: int = 0,
    duplicate: bool = False,
) -> Iterator[PlayedHand]:
    """The hands of one match, the dealer passing as the variant says.

    In duplicate play (docs/rules/README.md, 'Determinism') hand k's dealer is the first
    dealer + k, whatever happened; ``agents`` are then already rotated.
    """
    dealer = None
    first = None
    n = rules.n
    if len(agents) != n:
        raise MjlogError(f"{len(agents)} agents for {n} players")
    seeded: list[_Seeded] = []
    for k in range(hands):
        if duplicate and first is not None:
            dealer = (first + k) % n
        if k % _SEEDED_AT_ONCE == 0:
            seeded = _seeded(rules, seed, match, list(range(k, min(hands, k + _SEEDED_AT_ONCE))), n)
        played = _play_seeded(
            rules, agents, seeded[k % _SEEDED_AT_ONCE], match, k, dealer, rotation
        )
        if first is None:
            first = played.state.dealer
        dealer = played.state.next_dealer
        yield played
