"""Invariants every variant's engine must keep after every event (STYLE.md).

Used by ``tests/agents/test_conformance.py``; importable so other tests can reuse it.
"""

from __future__ import annotations

from collections import Counter

from mjlog.engine import deal, play
from mjlog.events import WIN
from mjlog.hand import is_win, suit_misses
from mjlog.rng import Stream, agent_seed
from mjlog.rules import Rules
from mjlog.state import HandState, Phase
from mjlog.variants import wall_tiles


def tiles_in_play(st: HandState) -> Counter:
    """Every tile somewhere: hands, melds, discards, laid-out 发, won discards, wall."""
    c: Counter = Counter()
    for s in range(st.n):
        for t, k in enumerate(st.hands[s]):
            if k:
                c[t] += k
        for m in st.melds[s]:
            c[m.tile] += m.size
        c.update(st.discards[s])
        if st.bonus[s]:
            c[32] += st.bonus[s]
    c.update(st.won_tiles)
    c.update(st.wall[st.front : st.back + 1])
    c.update(st.horses)
    return c


def check_state(st: HandState, full: Counter) -> None:
    if st.phase is Phase.DEAL:  # the deal takes tiles out of order; checked once done
        return
    assert tiles_in_play(st) == full, "tiles not conserved"
    for s in range(st.n):
        size = sum(st.hands[s]) + 3 * len(st.melds[s])
        acting = (st.turn == s and st.phase is Phase.ACT) or (
            st.phase is Phase.VOID and s == st.dealer
        )
        expected = 14 if acting else 13
        if st.turn == s and st.phase is Phase.DRAW and st.variant == "huangmei":
            expected = size if size in (12, 13) else 13  # between a 发 and its replacement
        if st.won[s] and st.wins:
            # a winner's frozen hand: 14 after a self-draw, 13 + the won discard otherwise
            assert size in (13, 14), (s, size)
        elif st.phase is not Phase.OVER and not (st.pending and st.pending[0].type == WIN):
            assert size == expected, f"seat {s} holds {size}, expected {expected} in {st.phase}"
    assert sum(st.deltas) == 0
    # the engine's shortcuts agree with a fresh look at the hands
    for s in range(st.n):
        miss = st.seats.misses[s]
        assert miss is None or miss == suit_misses(st.hands[s]), f"stale suit_misses of S{s}"
    if st.phase is Phase.ACT and st.drawn is not None and not st.drawn_may_win:
        assert not is_win(st.hands[st.turn], len(st.melds[st.turn])), "a self-draw win skipped"


def play_checked(rules: Rules, agents, seed: int, match: int = 0, hand: int = 0):
    """Play one hand with the engine, checking the invariants after every event."""
    st, _, _ = deal(rules, seed, match, hand, None)
    full = Counter(wall_tiles(rules))
    for s, a in enumerate(agents):
        a.start_hand(s, Stream(agent_seed(seed, match, hand, s)))
    steps = [0]

    def check(state):
        steps[0] += 1
        assert steps[0] < 5000, "hand does not end"
        if state.phase in (Phase.ACT, Phase.VOID) and not state.pending:
            if state.auto() is None:
                assert any(state.options().values()), f"no legal action in {state.phase}"
        check_state(state, full)

    play(st, agents, observe=check)
    # transfers sum to the deltas, seat by seat
    d = [0] * st.n
    for _seq, payer, payee, amount, _why in st.transfers:
        assert amount > 0
        d[payer] -= amount
        d[payee] += amount
    assert d == st.deltas
    # the log contract: a win event's from_seat is its wins row's (docs/log-schema.md)
    for rec in st.wins:
        assert st.events[rec.seq].from_seat == rec.from_seat, rec
    return st
