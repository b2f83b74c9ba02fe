"""Scripted hands: a chosen deal and chosen draws, played by scripted agents.

:func:`build_wall` lays out a logged wall (docs/rules/README.md, read from the break) so
the 4-4-4-1 deal gives each seat the tiles written for it, the next live draws
are the ones listed, and the tail (kong replacements, horses) holds the listed
tiles; every other position gets the remaining tiles in a fixed shuffled order.
:class:`Scripted` plays a list of choices in notation and otherwise discards the
tile it just drew and passes every claim. :func:`play_script` puts both together.

>>> from mjlog.rules import resolve
>>> st, _ = play_script(resolve("yuxi"),
...                  {0: "123456789m1234z 5z", 1: "111m222p333s444z 5z"},
...                  scripts={1: ["win"]}, draws="1z")
>>> [(w.seat, w.method, w.patterns, w.from_seat) for w in st.wins]
[(1, 'discard', ('pengpenghu',), 0)]
>>> pays(st)
[(0, 1, 4, 'win')]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from mjlog.engine import play
from mjlog.events import DISCARD, KONG, PON, VOID, WIN, Event
from mjlog.rng import Stream
from mjlog.rules import Rules
from mjlog.state import HandState
from mjlog.tiles import fmt_tile, parse, parse_tile
from mjlog.variants import wall_tiles

VERBS = ("discard", "pon", "kong", "win", "pass", "void")


def _tokens(s: str) -> list[int | None]:
    """``"5m ? 12z"`` → [4, None, 27, 28]: ``?`` is one tile left to the filler."""
    out: list[int | None] = []
    for tok in s.split():
        out.extend([None] if tok == "?" else parse(tok))
    return out


def deal_positions(n: int, i: int) -> list[int]:
    """Wall positions dealt to the i-th seat from the dealer (4-4-4-1, dealer +1)."""
    pos = [4 * (r * n + i) + k for r in range(3) for k in range(4)] + [12 * n + i]
    return pos + [13 * n] if i == 0 else pos


def build_wall(
    rules: Rules,
    hands: Mapping[int, str] | Sequence[str | None],
    dealer: int = 0,
    draws: str = "",
    tail: str = "",
    seed: int = 0,
) -> list[int]:
    """A logged wall (read from the break) for these hands and draws.

    ``hands[seat]`` is notation (13 tiles, the dealer's 14; the dealer's 14th is the
    last tile written, so it is the one it discards by default), or missing/None for
    filler. ``draws``: the live draws after the deal, in order; ``tail``: the tail
    from its last tile on (kong replacements, then horses). Both take ``?`` for a
    filler tile.
    """
    n = rules.n
    tiles = wall_tiles(rules)
    N = len(tiles)
    wall: list[int | None] = [None] * N
    if not isinstance(hands, Mapping):
        hands = dict(enumerate(hands))
    for i in range(n):
        seat = (dealer + i) % n
        pos = deal_positions(n, i)
        text = hands.get(seat)
        if text is None:
            continue
        got = parse(text)
        if len(got) != len(pos):
            raise ValueError(f"seat {seat} needs {len(pos)} tiles, got {len(got)} in {text!r}")
        for p, t in zip(pos, got, strict=True):
            wall[p] = t
    for k, t in enumerate(_tokens(draws)):
        wall[13 * n + 1 + k] = t
    for k, t in enumerate(_tokens(tail)):
        if wall[N - 1 - k] is not None:
            raise ValueError("draws and tail overlap")
        wall[N - 1 - k] = t
    left = Counter(tiles)
    left.subtract(t for t in wall if t is not None)
    over = [fmt_tile(t) for t, c in left.items() if c < 0]
    if over:
        raise ValueError(f"more copies than the tile set holds: {', '.join(sorted(over))}")
    filler = sorted(left.elements())
    Stream(seed).shuffle(filler)
    it = iter(filler)
    return [t if t is not None else next(it) for t in wall]


class Stop(Exception):
    """Raised by a :class:`Scripted` agent to stop a hand once every script is done."""


class Scripted:
    """Plays its script in order, each item at the first decision it fits.

    Items: ``discard 5m``, ``pon`` / ``pon 5m``, ``kong`` / ``kong 5m`` (any kind the
    options hold), ``win`` / ``win 5m`` (self-draw, discard or robbing), ``pass`` /
    ``pass 5m`` (a claim window, with or without a win on offer), ``void m``. With no
    item fitting it discards the tile it just drew (else its highest tile), passes
    claims and picks the first void suit. ``offers`` records every option list.
    """

    name = "scripted"
    params: dict = {}

    def __init__(self, script: Sequence[str] = ()):
        self.script = [self._parse(s) for s in script]
        self.offers: list[list[Event | None]] = []
        self.peers: list[Scripted] = [self]
        self.stop = False
        self.seat = 0

    @staticmethod
    def _parse(item: str) -> tuple[str, int | str | None]:
        verb, _, arg = item.strip().partition(" ")
        if verb not in VERBS:
            raise ValueError(f"unknown script item {item!r}; verbs: {', '.join(VERBS)}")
        if verb == "void":
            return verb, arg.strip()
        if verb == "discard" and not arg:
            raise ValueError(f"{item!r}: which tile?")
        return verb, parse_tile(arg.strip()) if arg.strip() else None

    def start_hand(self, seat: int, rng) -> None:
        self.seat = seat

    def choose(self, view, options: Sequence[Event | None]) -> Event | None:
        if self.stop and options[-1] is not None and all(not a.script for a in self.peers):
            raise Stop
        self.offers.append(list(options))
        if self.script:
            pick = self._fit(self.script[0], view, options)
            if pick is not False:
                self.script.pop(0)
                return pick
        if options[-1] is None:
            return None
        if options[0].type == VOID:
            return options[0]
        drawn = view.drawn
        discards = [o for o in options if o.type == DISCARD]
        return next((o for o in discards if o.tile == drawn), discards[-1])

    @staticmethod
    def _fit(item, view, options) -> Event | None | bool:
        verb, arg = item
        window = options[-1] is None
        if verb == "pass":
            ok = window and (arg is None or view.window_tile == arg)
            return None if ok else False
        want = {"discard": DISCARD, "pon": PON, "kong": KONG, "win": WIN, "void": VOID}[verb]
        for o in options:
            if o is None or o.type != want:
                continue
            if verb == "void" and o.kind == arg:
                return o
            if verb != "void" and (arg is None or o.tile == arg):
                return o
        return False


def play_script(
    rules: Rules,
    hands,
    scripts: Mapping[int, Sequence[str]] | None = None,
    draws: str = "",
    tail: str = "",
    dealer: int = 0,
    stop: bool = False,
    seed: int = 0,
) -> tuple[HandState, list[Scripted]]:
    """Build the wall, play the hand with :class:`Scripted` agents; return the state
    and the agents.

    ``stop``: end at the first own-turn decision after every script is played
    (claims met before it are passed; the state is then mid-hand, every forced event
    before that decision applied); otherwise play to the end and require every
    script item to have been used.
    """
    wall = build_wall(rules, hands, dealer, draws, tail, seed)
    st = HandState(rules, wall, dealer)
    scripts = scripts or {}
    agents = [Scripted(scripts.get(s, ())) for s in range(rules.n)]
    for s, a in enumerate(agents):
        a.start_hand(s, None)
        a.peers = agents
        a.stop = stop
    try:
        play(st, agents)
    except Stop:
        return st, agents
    left = {s: a.script for s, a in enumerate(agents) if a.script}
    assert not left, f"script items never used: {left}"
    return st, agents


def pays(st: HandState, *reasons: str) -> list[tuple[int, int, int, str]]:
    """The hand's transfers as (payer, payee, amount, reason), optionally filtered."""
    return [(a, b, m, r) for _q, a, b, m, r in st.transfers if not reasons or r in reasons]


def offered(agent: Scripted, type_: str, tile: str | None = None) -> int:
    """How many of the agent's decisions offered an option of this type (and tile)."""
    t = None if tile is None else parse_tile(tile)
    return sum(
        any(o is not None and o.type == type_ and (t is None or o.tile == t) for o in opts)
        for opts in agent.offers
    )
