"""What the agents think a kong earns is what the engine pays for it.

:func:`simulate.agents.values.kong_money` asks :func:`mjlog.state.kong_payments`, the
function the engine pays kong money with. Here seeded hands are played and
every kong that stands is checked: the kong transfers logged right after it
sum to what ``kong_money`` says for its kind, lateness and the players still in.
"""

from __future__ import annotations

import pytest

from mjlog.engine import deal, play
from mjlog.events import KONG, TRANSFER
from mjlog.rng import Stream
from mjlog.rules import resolve
from simulate.agents import make_agents
from simulate.agents.values import kong_money


def kongs_paid(rules, seed: int, hands: int):
    """(kind, late, others, money logged) of every kong that stood in ``hands``
    seeded hands (random and greedy agents)."""
    agents = make_agents(["random", "greedy"] * (rules.n // 2))
    out = []
    for k in range(hands):
        st, _hs, _r = deal(rules, seed, 0, k, 0)
        for s, a in enumerate(agents):
            a.start_hand(s, Stream(seed * 1000 + 10 * k + s))
        at: dict = {}  # events logged -> (the tile drawn, the seats in play) then

        def observe(s, at=at):  # after each apply (PASS logs no event)
            at[len(s.events)] = (s.drawn, [not w for w in s.won])

        play(st, agents, observe=observe)
        evs = st.events
        for i, ev in enumerate(evs):
            if ev.type != KONG:
                continue
            drawn, playing = at[i]  # the state the kong was made in
            money, j = 0, i + 1
            while j < len(evs) and evs[j].type == TRANSFER:
                if evs[j].kind.startswith("kong_") and evs[j].seat == ev.seat:
                    money += evs[j].amount
                j += 1
            if j < len(evs) and evs[j].type != "draw":
                continue  # robbed: the kong did not stand
            late = ev.kind == "added" and ev.tile != drawn
            others = sum(playing[o] for o in range(rules.n) if o != ev.seat)
            out.append((ev.kind, late, others, money))
    return out


@pytest.mark.parametrize(
    "variant,sets",
    [
        ("yuxi", []),
        ("yuxi", ["bugang_payer=each_other", "late_added_kong=no_pay"]),
        ("xuezhan", []),
        ("huangmei", []),
    ],
)
def test_kong_money_is_what_the_engine_pays(variant, sets):
    rules = resolve(variant, sets=sets)
    paid = kongs_paid(rules, seed=11, hands=40)
    # the hands hold kongs of every kind, late added kongs among them
    assert {kind for kind, *_ in paid} == {"exposed", "added", "concealed"}
    assert any(late for _kind, late, *_ in paid)
    for kind, late, others, money in paid:
        assert kong_money(rules, kind, late, others) == money, (kind, late, others)
