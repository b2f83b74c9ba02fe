"""The interface agents are written against.

At every decision the engine hands an agent a :class:`SeatView` (what that seat
may know) and the list of its legal choices, each an :class:`~mjlog.events.Event`
ready to apply, plus ``None`` for *pass* in a claim window. The agent returns one
element of that list. It gets its own seeded :class:`~mjlog.rng.Stream` for every
hand, so its random choices are reproducible and independent of other seats.

A complete agent that always takes the first choice::

    >>> class First:
    ...     name = "first"
    ...     params = {}
    ...     def start_hand(self, seat, rng):
    ...         self.seat, self.rng = seat, rng
    ...     def choose(self, view, options):
    ...         return options[0]

To use it from the command line, in worker processes and on Dask, make it a
plugin (:mod:`simulate.agents.plugins`): name it ``--agents mypkg.mod:First``, or declare
an entry point in the ``mjlog.agents`` group of your package and name it
``--agents first``. (:func:`simulate.agents.register` reaches only the process
that calls it.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from mjlog.compiled import mypyc_attr
from mjlog.errors import InputError
from mjlog.events import DEAL, DISCARD, DRAW, KONG, PON, VOID, WIN, Event
from mjlog.hand import shanten
from mjlog.melds import Meld
from mjlog.phase import Phase
from mjlog.rng import Stream
from mjlog.ukeire import after_discards

if TYPE_CHECKING:  # the view reads a hand's state; the state never imports agents
    from mjlog.rules import Rules
    from mjlog.state import HandState
    from mjlog.variants.base import Variant


class Agent(Protocol):
    """What the engine and the runner ask of an agent: a ``name`` (what the logs
    record), its ``params`` (only those that differ from its defaults: the run id and
    the manifest record them), :meth:`start_hand` and :meth:`choose`.

    An agent may also declare a capability of :data:`CAPABILITIES`, an attribute the
    runner reads where present and takes at its default where not (:func:`capability`):

    - ``money_blind`` (a bool; default False): True says the agent's choices never
      read what a hand pays (the money-only rule keys: ``base``, ``cap``, the
      dealer's compensation; :attr:`mjlog.rulekeys.RuleKey.money_only`). A line-up
      of such agents plays, choice for choice, the same hand under any setting of
      those keys, so ``mjlog tune`` and :mod:`simulate.resettled` settle a run again
      from its log instead of playing it (:mod:`mjlog.resettle`, proved by
      ``tests/batch/test_resettle.py``). Declare it only when it holds: an agent that reads
      ``view.rules["cap"]`` or the deltas is not money-blind.

    :mod:`mjlog.conformance` holds an agent to this interface
    (:func:`mjlog.conformance.check_agent`).
    """

    name: str
    params: dict[str, Any]

    def start_hand(self, seat: int, rng: Stream) -> None:
        """Called before each hand with the agent's seat and its random stream."""

    def choose(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        """Return one element of ``options`` (``None`` = pass a claim)."""


CAPABILITIES: dict[str, tuple[type, Any, str]] = {
    "money_blind": (
        bool,
        False,
        "its choices never read what a hand pays: a run can be settled again under "
        "other money rules from its log (mjlog.resettle)",
    ),
}
"""The optional attributes the runner reads from an agent: name → (type, the value
taken when the agent does not declare it, what it says). :class:`Agent` documents
them."""


def capability(agent: object, name: str) -> Any:
    """The agent's declared ``name`` capability (:data:`CAPABILITIES`), else its default.

    >>> capability(GreedyAgent(), "money_blind"), capability(object(), "money_blind")
    (True, False)
    """
    return getattr(agent, name, CAPABILITIES[name][1])


class SeatView:
    """What one seat may see: its own concealed hand and everything public.

    The lists are the live state, shared for speed: read them, never change them.
    """

    __slots__ = ("_s", "_p", "seat")

    def __init__(self, state: HandState, seat: int):
        self._s = state
        self._p = state.pos  # the position: what an event rebinds (phase, turn …) is read here
        self.seat = seat

    @property
    def rules(self) -> Rules:
        return self._s.rules

    @property
    def variant(self) -> str:
        return self._s.variant

    @property
    def spec(self) -> Variant:
        """The variant's facts and hooks (:class:`mjlog.variants.Variant`)."""
        return self._s.spec

    @property
    def n(self) -> int:
        return self._s.n

    @property
    def hand(self) -> list[int]:
        """This seat's concealed tiles as 34 counts."""
        return self._s.hands[self.seat]

    @property
    def melds(self) -> list[list[Meld]]:
        """Every seat's melds (concealed kongs included: their tile is public here)."""
        return self._s.melds

    @property
    def discards(self) -> list[list[int]]:
        return self._s.discards

    @property
    def wall_left(self) -> int:
        return self._p.live

    @property
    def dealer(self) -> int:
        return self._s.dealer

    @property
    def void(self) -> list[int | None]:
        """Each seat's void suit (xuezhan; 0 m, 1 p, 2 s), None when not chosen."""
        return self._s.void

    @property
    def won(self) -> list[bool]:
        return self._s.won

    @property
    def phase(self) -> Phase:
        """What the hand waits for: ``VOID`` (xuezhan's void choice), ``ACT`` (the
        seat to act discards, kongs or wins), ``CLAIM`` or ``ROB`` (a window)."""
        return self._p.phase

    @property
    def drawn(self) -> int | None:
        """The tile this seat just drew (the dealer's fourteenth tile on its first
        turn), when it is acting after a draw; None otherwise, as in the void
        choice, which comes before any draw."""
        p = self._p
        return p.drawn if p.turn == self.seat and p.phase is Phase.ACT else None

    @property
    def bonus(self) -> list[int]:
        return self._s.bonus

    @property
    def scores(self) -> list[int]:
        """Each seat's points won (+) or paid (−) so far this hand."""
        return self._s.deltas

    @property
    def history(self) -> list[Event]:
        """The hand's events so far as this seat saw them: another seat's dealt
        tiles (``tiles``) and drawn tile (``tile``) are None; everything else is
        public (discards, melds, concealed kongs' tiles, bonus tiles, a winner's
        shown hand, payments). A new list on every call."""
        s = self.seat
        return [
            Event(DEAL, e.seat)
            if e.type == DEAL and e.seat != s
            else e._replace(tile=None)
            if e.type == DRAW and e.seat != s
            else e
            for e in self._s.events
        ]

    @property
    def window_tile(self) -> int | None:
        """The tile open to claims, in a claim window."""
        w = self._s.claims.window
        return w.tile if w is not None else None


# The reference agents: simple, rule-blind players that every layer may use
# (the core's doctests and tests play them without the agents package).


def obvious_choice(view: SeatView, options: Sequence[Event | None]) -> Event | None:
    """The choice a simple agent makes without thinking, or None: a win offered first
    is taken; xuezhan's void is the suit the hand holds fewest of (ties to m, then p,
    then s). The reference agents and ``efficient`` share it."""
    first = options[0]
    if first is not None and first.type == WIN:
        return first
    if first is not None and first.type == VOID:
        h = view.hand
        counts = [sum(h[9 * s : 9 * s + 9]) for s in range(3)]
        return options[counts.index(min(counts))]
    return None


@mypyc_attr(allow_interpreted_subclasses=True)  # so may its subclasses be
class _Base:
    name = "base"
    rng: Stream  # the hand's stream, from start_hand

    def __init__(self, **params: object):
        if params:
            raise InputError(f"agent {self.name!r} takes no parameters, got {sorted(params)}")
        self.params: dict[str, Any] = {}
        self.seat = 0

    def start_hand(self, seat: int, rng: Stream) -> None:
        self.seat, self.rng = seat, rng


@mypyc_attr(allow_interpreted_subclasses=True)  # users' agents extend it
class RandomAgent(_Base):
    """Uniform over the legal choices, from its own stream."""

    name = "random"
    money_blind = True  # reads no rule at all (mjlog.resettle)

    def choose(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        return options[self.rng.below(len(options))]


@mypyc_attr(allow_interpreted_subclasses=True)  # users' agents extend it
class GreedyAgent(_Base):
    """Wins when it can; otherwise keeps shanten as low as it can."""

    name = "greedy"
    money_blind = True  # tiles and shanten only, never what a hand pays (mjlog.resettle)

    def choose(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        if (plain := obvious_choice(view, options)) is not None:
            return plain
        hand = view.hand
        nm = len(view.melds[self.seat])
        void = view.void[self.seat]
        if options[-1] is None:  # a claim window: pon / kong / pass
            base = _shanten(hand, nm, void)
            t = view.window_tile
            assert t is not None  # a claim window is open on its tile
            for o in options:
                if o is None:
                    continue
                k = 2 if o.type == PON else 3
                hand[t] -= k
                after = _shanten(hand, nm + 1, void)
                hand[t] += k
                if after <= base:
                    return o
            return None
        # own turn: kongs that do not raise shanten, else the best discard
        now: int | None = None  # the shanten before a kong, once one is weighed
        discards: list[tuple[int, Event]] = []  # (its tile, the discard)
        for o in options:
            assert o is not None  # no pass on the seat's own turn
            ty, t = o.type, o.tile
            if ty == KONG:
                assert t is not None  # a kong names its tile
                if now is None:
                    now = _shanten(hand, nm, void)
                k = 4 if o.kind == "concealed" else 1
                hand[t] -= k
                after = _shanten(hand, nm + (k == 4), void)
                hand[t] += k
                if after <= now:
                    return o
            elif ty == DISCARD:
                assert t is not None  # a discard names its tile
                discards.append((t, o))
        if void is not None:
            vd = [o for t, o in discards if t // 9 == void]
            if vd:
                return vd[self.rng.below(len(vd))]
        # no void tile left: the shanten after each discard, all at once
        each = after_discards(hand, nm)
        best_s = min(each[t] for t, _ in discards)
        best = [o for t, o in discards if each[t] == best_s]
        return best[self.rng.below(len(best))]


def _shanten(hand: list[int], melds: int, void: int | None) -> int:
    if void is None:
        return shanten(hand, melds)
    h = hand[:]
    h[9 * void : 9 * void + 9] = [0] * 9
    # without its void tiles the hand is shorter; count them as tiles still to replace
    return shanten(h, melds) + sum(hand[9 * void : 9 * void + 9])
