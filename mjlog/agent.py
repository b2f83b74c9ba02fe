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
plugin (:mod:`simulate.plugins`): name it ``--agents mypkg.mod:First``, or declare
an entry point in the ``mjlog.agents`` group of your package and name it
``--agents first``. (:func:`simulate.agents.register` reaches only the process
that calls it.)
"""

from __future__ import annotations

from typing import Protocol

from mjlog.events import DEAL, DRAW, Event
from mjlog.melds import Meld
from mjlog.phase import Phase
from mjlog.rng import Stream


class Agent(Protocol):
    name: str
    params: dict

    def start_hand(self, seat: int, rng: Stream) -> None:
        """Called before each hand with the agent's seat and its random stream."""

    def choose(self, view: SeatView, options: list[Event | None]) -> Event | None:
        """Return one element of ``options`` (``None`` = pass a claim)."""


class SeatView:
    """What one seat may see: its own concealed hand and everything public.

    The lists are the live state, shared for speed: read them, never change them.
    """

    __slots__ = ("_s", "seat")

    def __init__(self, state, seat: int):
        self._s = state
        self.seat = seat

    @property
    def rules(self):
        return self._s.rules

    @property
    def variant(self) -> str:
        return self._s.variant

    @property
    def spec(self):
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
        return self._s.live

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
        return self._s.phase

    @property
    def drawn(self) -> int | None:
        """The tile this seat just drew (the dealer's fourteenth tile on its first
        turn), when it is acting after a draw; None otherwise, as in the void
        choice, which comes before any draw."""
        s = self._s
        return s.drawn if s.turn == self.seat and s.phase is Phase.ACT else None

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
        return [Event(DEAL, e.seat) if e.type == DEAL and e.seat != s else
                e._replace(tile=None) if e.type == DRAW and e.seat != s else e
                for e in self._s.events]

    @property
    def window_tile(self) -> int | None:
        """The tile open to claims, in a claim window."""
        w = self._s.window
        return w.tile if w is not None else None
