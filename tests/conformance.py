"""Invariants every variant's engine must keep after every event (STYLE.md).

Used by ``tests/test_conformance.py``; importable so other tests can reuse it.
"""

from __future__ import annotations

from collections import Counter

from mjlog.agent import SeatView
from mjlog.engine import _ask, deal
from mjlog.events import WIN
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
    c.update(st.wall[st.front: st.back + 1])
    c.update(st.horses)
    return c


def check_state(st: HandState, full: Counter) -> None:
    if st.phase is Phase.DEAL:  # the deal takes tiles out of order; checked once done
        return
    assert tiles_in_play(st) == full, "tiles not conserved"
    for s in range(st.n):
        size = sum(st.hands[s]) + 3 * len(st.melds[s])
        acting = (st.turn == s and st.phase is Phase.ACT) or (
            st.phase is Phase.VOID and s == st.dealer)
        expected = 14 if acting else 13
        if st.turn == s and st.phase is Phase.DRAW and st.variant == "huangmei":
            expected = size if size in (12, 13) else 13  # between a 发 and its replacement
        if st.won[s] and st.wins:
            # a winner's frozen hand: 14 after a self-draw, 13 + the won discard otherwise
            assert size in (13, 14), (s, size)
        elif st.phase is not Phase.OVER and not (st.pending and st.pending[0].type == WIN):
            assert size == expected, f"seat {s} holds {size}, expected {expected} in {st.phase}"
    assert sum(st.deltas) == 0


def play_checked(rules: Rules, agents, seed: int, match: int = 0, hand: int = 0):
    """Play one hand like the engine does, checking the invariants after each event."""
    st, _, _ = deal(rules, seed, match, hand, None)
    full = Counter(wall_tiles(rules))
    from mjlog.rng import Stream, agent_seed

    for s, a in enumerate(agents):
        a.start_hand(s, Stream(agent_seed(seed, match, hand, s)))
    views = [SeatView(st, s) for s in range(st.n)]
    steps = 0
    while not st.over:
        steps += 1
        assert steps < 5000, "hand does not end"
        ev = st.auto()
        if ev is not None:
            st.apply(ev)
            check_state(st, full)
            continue
        opts = st.options()
        if st.phase in (Phase.CLAIM, Phase.ROB):
            if not opts:
                st.close_window()
                check_state(st, full)
                continue
            picks = {s: _ask(agents[s], views[s], o + [None]) for s, o in opts.items()}
            winners = [s for s, p in picks.items() if p is not None and p.type == WIN]
            if winners:
                for s in winners:
                    st.apply(picks[s])
                    while st.pending:
                        st.apply(st.pending[0])
                st.close_window()
            else:
                claim = next((p for p in picks.values() if p is not None), None)
                if claim is None:
                    st.close_window()
                else:
                    st.apply(claim)
            check_state(st, full)
            continue
        assert opts, f"no legal action in {st.phase}"
        ((s, o),) = opts.items()
        assert o, f"seat {s} has no legal action"
        st.apply(_ask(agents[s], views[s], o))
        check_state(st, full)
    # transfers sum to the deltas, seat by seat
    d = [0] * st.n
    for _seq, payer, payee, amount, _why in st.transfers:
        assert amount > 0
        d[payer] -= amount
        d[payee] += amount
    assert d == st.deltas
    return st
