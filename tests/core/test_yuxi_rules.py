"""yuxi flow and rule keys (RULES.md §1, §2), played through the engine.

Every scenario is a scripted hand (``tests/scripted.py``): a wall built so the
deal and the draws are the ones written here, agents that play the listed
choices and otherwise discard the tile they drew and pass every claim. Seat 0
deals unless a test says otherwise; with no calls, live draw k (0-based, after
the deal) is made by seat (dealer + 1 + k) mod n. The expectations (transfers as
(payer, payee, amount, reason), deltas) are worked out by hand from RULES.md.

Tail positions (``tail=``, counted from the wall's last tile): without kongs the
last live draws come from there; with 4 players and dealer 0, tail[0] is drawn
by seat 3 (the last tile), tail[1] by seat 2, tail[2] by seat 1, tail[3] by seat
0, tail[4] by seat 3, tail[5] by seat 2. tail[4] is the first tile drawn with 4
tiles or fewer left (尾牌强制 zone).
"""

from __future__ import annotations

import pytest

from mjlog.engine import deal, play_match
from mjlog.events import DEAL, DRAW, HORSE, KONG, WIN
from mjlog.hand import suit_keys, waits
from mjlog.melds import Meld, MeldKind
from mjlog.replay import Replay, ReplayError
from mjlog.rng import Stream, hand_seed
from mjlog.rules import keys, resolve
from mjlog.scoring import Method, WinContext, score
from mjlog.state import PASS
from mjlog.tiles import from_counts, parse, parse_counts, parse_tile
from mjlog.variants import break_position, side_start, wall_tiles
from simulate.agents import make_agents
from tests.core import test_dealer_compensation as compensation  # every variant's common key
from tests.scripted import build_wall, deal_positions, offered, pays, play_script

# Junk hands: never ready, never change (their owner discards what it draws).
# Together they hold each suited kind once except 2m 5m 8m, 1p 4p 7p, 3s 6s 9s.
JA, JB, JC = "147m258p1234567z", "369m147s1234567z", "258s369p1234567z"


def rules(*sets: str, players: int | None = None):
    sets = list(sets) + ([f"players={players}"] if players else [])
    return resolve("yuxi", sets=sets)


R = rules()


def wins(st):
    return [(w.seat, w.method, w.from_seat, w.patterns, w.points) for w in st.wins]


def test_junk_hands_are_not_ready():
    for h in (JA, JB, JC):
        assert waits(parse_counts(h), 0) == []


# ---------------------------------------------------------------- scenarios
# Each takes the rules and returns (state, agents); tests below check both ways.


def plain_self_draw(r=R):
    """Seat 1 holds a plain hand waiting on 9p: the dealer's 9p is no win for it,
    its own 9p is."""
    hands = {0: JA + "9p", 1: "123m234m456p789s9p", 2: JB, 3: JC}
    return play_script(r, hands, {1: ["win"]}, draws="9p")


def pengpeng_on_discard(r=R):
    """Seat 1 (碰碰胡, single wait on 1p) wins on the dealer's 1p."""
    hands = {0: JA + "1p", 1: "222m555m888m999s1p", 2: JB, 3: JC}
    return play_script(r, hands, {1: ["win"]})


def pengpeng_self_draw(r=R, dealer=0):
    """The seat after the dealer (碰碰胡 on 1p) draws its 1p."""
    n = r.n
    s = (dealer + 1) % n
    hands = {dealer: JA + "9p", s: "222m555m888m999s1p"}
    for k, j in zip(range(2, n), (JB, JC), strict=False):
        hands[(dealer + k) % n] = j
    return play_script(r, hands, {s: ["win"]}, draws="1p", dealer=dealer)


def qingyise_self_draw(r=R):
    """Seat 1: 111m 222m 333m 555m 4m draws 4m: 清一色 + 碰碰胡, 6 each."""
    hands = {0: JA + "9p", 1: "111m222m333m555m4m", 2: JB, 3: JC}
    return play_script(r, hands, {1: ["win"]}, draws="4m")


def qingyise_on_discard(r=R):
    """Seat 1 (九莲 shape, 清一色 only on 5m) wins on the dealer's 5m."""
    hands = {0: JC + "5m", 1: "1112345678999m", 2: JA, 3: JB}
    return play_script(r, hands, {1: ["win"]})


def qidui_on_discard(r=R, four=False):
    hand = "3333s11m55p77p99s2s" if four else "11m33m55p77p99s11s2s"
    hands = {0: JA + "2s", 1: hand, 2: JB, 3: JC}
    return play_script(r, hands, {1: ["win"]})


def exposed_kong_flower(r=R):
    """The dealer discards 5m, seat 1 konged it (明杠) and draws 9s from the tail:
    杠上花 after an exposed kong (点杠花)."""
    hands = {0: JA + "5m", 1: "555m123p456p789s9s", 2: JB, 3: JC}
    return play_script(r, hands, {1: ["kong 5m", "win"]}, tail="9s")


def concealed_kong_flower(r=R):
    """The dealer konged its four 5m (暗杠) and wins on the replacement 9s."""
    hands = {0: "5555m123p456p789s9s", 1: JA, 2: JB, 3: JC}
    return play_script(r, hands, {0: ["kong 5m", "win"]}, tail="9s")


def kong_then_discard(r=R):
    """The dealer konged 5555m, drew 9m from the tail and discards it; seat 1's
    plain hand waits on 9m: 杠上炮."""
    hands = {0: "5555m123p456p789s1s", 1: "78m234m234s567s99p", 2: JB, 3: JC}
    return play_script(r, hands, {0: ["kong 5m"], 1: ["win 9m"]}, tail="9m")


def added_kong_robbed(r=R):
    """Seat 1 pons the dealer's 5m, draws the fourth 5m and adds it; seat 2's
    plain hand (46m) robs it."""
    hands = {0: JA + "5m", 1: "55m123p456p789s19s", 2: "46m789p123s456s99s", 3: JC}
    return play_script(
        r, hands, {1: ["pon 5m", "discard 1s", "kong 5m"], 2: ["win 5m"]}, draws="? ? ? 5m"
    )


def exposed_kong_robbed(r=R, script=("win 5m",)):
    """Seat 1 konges the dealer's 5m; seat 3's plain hand (46m) could not win on
    the discard but may rob the kong."""
    hands = {0: JA + "5m", 1: "555m123p456p789s9s", 2: JB, 3: "46m789p123s456s99s"}
    return play_script(r, hands, {1: ["kong 5m"], 3: list(script)}, stop=not script)


def shilaotou(r=R, reset=None, seat2=None, script2=()):
    """Seat 1 draws honors and discards them (each passed by all). ``reset``:
    'pon' (seat 2 pons its 3rd honor) or 'suited' (its 3rd discard is suited)."""
    first = ["1z", "2z"]
    if reset is None:
        mid = []
        after = ["3z", "4z", "5z", "6z", "7z", "1z", "2z", "3z"]
    else:
        mid = ["6z" if reset == "pon" else "9m"]
        after = ["1z", "2z", "3z", "4z", "5z", "7z", "1z", "2z", "3z", "4z"]
    draws = ["?"] * 64
    seq = first + mid + after
    # without calls seat 1 draws k = 0, 4, 8, ...; after seat 2's pon of its
    # 3rd discard (k = 8) the next seat to draw is seat 3, so seat 1 draws k = 11, 15, ...
    ks = [0, 4, 8] + (
        [11 + 4 * i for i in range(10)] if reset == "pon" else [12 + 4 * i for i in range(10)]
    )
    for k, t in zip(ks, seq, strict=False):
        draws[k] = t
    hands = {0: "147m258p369s147p25s", 2: "66z147m258p369s47s" if reset == "pon" else seat2}
    scripts = {2: ["pon 6z", "discard 7s"] if reset == "pon" else list(script2)}
    return play_script(r, hands, scripts, draws=" ".join(draws)), seq


def horses_win(r, tail, dealer=2):
    """Seat (dealer+1) self-draws 碰碰胡 (3 each); the horses come from the tail."""
    n = r.n
    s = (dealer + 1) % n
    hands = {dealer: JA + "9s", s: "222m555m888m999s1p"}
    for k, j in zip(range(2, n), (JB, JC), strict=False):
        hands[(dealer + k) % n] = j
    return play_script(r, hands, {s: ["win"]}, draws="1p", tail=tail, dealer=dealer)


# ---------------------------------------------------------------- deal and wall


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("dealer", [0, 1])
def test_deal_is_4_4_4_1_from_the_logged_wall(n, dealer):
    r = rules(players=n)
    st, _, _ = deal(r, 11, 0, 0, dealer)
    w = st.wall
    for i in range(n):
        ev = st.auto()
        assert ev.type == DEAL and ev.seat == (dealer + i) % n
        want = [w[4 * (rr * n + i) + k] for rr in range(3) for k in range(4)] + [w[12 * n + i]]
        if i == 0:
            want.append(w[13 * n])
        assert list(ev.tiles) == want
        st.apply(ev)
    assert [sum(st.hands[(dealer + i) % n]) for i in range(n)] == [14] + [13] * (n - 1)
    assert st.auto() is None and list(st.options()) == [dealer]  # the dealer acts first
    st.apply(next(o for o in st.options()[dealer] if o.type == "discard"))
    st.apply(PASS)
    ev = st.auto()
    assert ev == (DRAW, (dealer + 1) % n, w[13 * n + 1], None, "live", None, None)


def test_kong_replacement_comes_from_the_tail():
    st, _ = concealed_kong_flower()
    kong = next(i for i, e in enumerate(st.events) if e.type == KONG)
    assert st.events[kong + 1] == (DRAW, 0, st.wall[-1], None, "tail", None, None)


def test_build_wall_deals_what_it_is_told():
    hands = {1: "123m234m456p789s9p1z", 2: JB}
    w = build_wall(R, hands, dealer=1, draws="5m ? 6m", tail="7s 8s")
    assert sorted(w) == sorted(wall_tiles(R))
    assert sorted(w[p] for p in deal_positions(4, 0)) == sorted(parse(hands[1]))
    assert w[deal_positions(4, 0)[-1]] == parse_tile("1z")  # the dealer's 14th
    assert sorted(w[p] for p in deal_positions(4, 1)) == sorted(parse(JB))
    assert w[53] == parse_tile("5m") and w[55] == parse_tile("6m")
    assert w[-2:] == parse("8s7s")
    with pytest.raises(ValueError, match="more copies"):
        build_wall(R, {0: "11112345678999m"}, draws="1m")


@pytest.mark.parametrize(
    "dice,dealer,n,N,side",
    [
        ((3, 4), 0, 4, 136, 2),
        ((6, 6), 3, 4, 136, 2),
        ((1, 1), 1, 4, 136, 2),
        ((6, 6), 1, 3, 136, 0),
        ((1, 2), 0, 2, 136, 0),
        ((6, 6), 0, 4, 108, 3),
        ((2, 3), 2, 3, 108, 0),
    ],
)
def test_break_from_dice(dice, dealer, n, N, side):
    # the side of seat (dealer + sum − 1) mod n, b = its first position + 2 × sum
    s = sum(dice)
    assert (dealer + s - 1) % n == side
    assert break_position("yuxi", dice, dealer, n, N) == side_start(side, n, N) + 2 * s


def test_engine_breaks_the_shuffled_ring_at_the_dice():
    r = rules(players=3)
    st, hs, _ = deal(r, 5, 2, 3, dealer=1)
    stream = Stream(hand_seed(5, 2, 3))
    ring = list(wall_tiles(r))
    stream.shuffle(ring)
    dice = (stream.below(6) + 1, stream.below(6) + 1)
    b = break_position("yuxi", dice, 1, 3, len(ring))
    assert (st.dice, st.break_pos) == (dice, b)
    assert list(st.wall) == ring[b:] + ring[:b]


# ---------------------------------------------------------------- players, base, honors


@pytest.mark.parametrize("n", [2, 3, 4])
def test_players(n):
    r = rules(players=n)
    st, _ = pengpeng_self_draw(r)
    assert len(st.wall) == 136 and [sum(h) for h in st.hands][:1] == [13]
    assert wins(st) == [(1, "self_draw", None, ("pengpenghu",), 3)]
    assert pays(st) == [(p, 1, 3, "win") for p in range(n) if p != 1]
    assert st.deltas == [3 * (n - 1) if s == 1 else -3 for s in range(n)]
    assert st.next_dealer == 1


def test_base():
    st, _ = pengpeng_self_draw(rules("base=2"))
    assert pays(st) == [(p, 1, 6, "win") for p in (0, 2, 3)]
    assert st.wins[0].points == 6
    st, _ = exposed_kong_flower(rules("base=3"))
    assert pays(st) == [(0, 1, 6, "kong_exposed"), (0, 1, 12, "win")]


def test_honors():
    st, _, _ = deal(R, 3, 0, 0, 0)
    assert len(st.wall) == 136 and sum(t >= 27 for t in st.wall) == 28
    r = rules("honors=false")
    st, _, _ = deal(r, 3, 0, 0, 0)
    assert len(st.wall) == 108 and max(st.wall) < 27
    with pytest.raises(ValueError, match="more copies"):
        build_wall(r, {1: "111m222p333s444z5z"})


# ---------------------------------------------------------------- winning restrictions


def test_plain_hand_wins_by_self_draw_only():
    st, ag = plain_self_draw()
    assert offered(ag[1], WIN, "9p") == 1  # its own draw, not the dealer's discard
    assert wins(st) == [(1, "self_draw", None, ("pinghu",), 1)]
    assert pays(st) == [(0, 1, 1, "win"), (2, 1, 1, "win"), (3, 1, 1, "win")]
    assert st.deltas == [-1, 3, -1, -1]


def test_big_hand_wins_on_a_discard():
    st, _ = pengpeng_on_discard()
    assert wins(st) == [(1, "discard", 0, ("pengpenghu",), 4)]
    assert pays(st) == [(0, 1, 4, "win")] and st.deltas == [-4, 4, 0, 0]
    assert st.next_dealer == 1


def test_gangshangpao_makes_a_plain_hand_win_on_a_discard():
    st, _ = kong_then_discard()
    assert wins(st) == [(1, "discard", 0, ("gangshangpao",), 4)]
    assert pays(st) == [(0, 1, 4, "win")]  # a concealed kong earns no money


def test_qiangganghu_makes_a_plain_hand_rob_an_added_kong():
    st, ag = added_kong_robbed()
    assert offered(ag[2], WIN, "5m") == 1  # not on the dealer's 5m, only on the kong
    assert wins(st) == [(2, "robbed_kong", 1, ("qiangganghu",), 4)]
    # the kong player pays as the discarder; no kong money; its pon stays a pon
    assert pays(st) == [(1, 2, 4, "win")] and st.deltas == [0, -4, 4, 0]
    assert st.melds[1] == [Meld(MeldKind.PON, parse_tile("5m"), 0)]
    kong = next(e for e in st.events if e.type == KONG)
    assert (kong.seat, kong.kind) == (1, "added")
    assert st.events[st.events.index(kong) + 1].type == WIN


# ---------------------------------------------------------------- pass_hu_lock


def pass_then(r, *, pon: bool):
    """Seat 2 (碰碰胡 on 1p/4p) passes the dealer's 1p.

    Without ``pon``: seat 1 then discards 4p, seat 2 draws 7p, seat 3 discards 4p.
    With ``pon``: seat 2 pons seat 1's 4p (discarding 2m: now on 1p/2m), seat 3
    discards 1p; seat 2 draws 7p later, and seat 3 then discards 2m.
    """
    hands = {0: JA + "1p", 1: JB, 2: "222m555m888m11p44p", 3: JC}
    if pon:
        script = ["pass 1p", "pon 4p", "discard 2m", "win 2m"]
        draws = "4p 1p ? ? 7p 2m"
    else:
        script = ["pass 1p", "win 4p"]
        draws = "4p 7p 4p"
    return play_script(r, hands, {2: script}, draws=draws)


def test_pass_lock_until_next_draw():
    st, ag = pass_then(R, pon=False)
    assert offered(ag[2], WIN, "4p") == 1  # locked on seat 1's 4p, free after its draw
    assert wins(st) == [(2, "discard", 3, ("pengpenghu",), 4)]
    assert pays(st) == [(3, 2, 4, "win")]


def test_pass_lock_none():
    st, ag = pass_then(rules("pass_hu_lock=none"), pon=False)
    assert offered(ag[2], WIN, "4p") == 1
    assert wins(st) == [(2, "discard", 1, ("pengpenghu",), 4)]
    assert pays(st) == [(1, 2, 4, "win")]


def test_pass_lock_survives_a_pon():
    st, ag = pass_then(R, pon=True)
    assert offered(ag[2], WIN, "1p") == 1  # the dealer's; not seat 3's after the pon
    assert offered(ag[2], WIN, "2m") == 1
    assert wins(st) == [(2, "discard", 3, ("pengpenghu",), 4)]
    assert pays(st) == [(3, 2, 4, "win")]


@pytest.mark.parametrize("lock", ["until_next_draw", "none"])
def test_passing_a_self_draw_locks_too(lock):
    # seat 2 (碰碰胡 on 1p/4p) draws 4p and discards it; seat 3 then discards 1p,
    # and after seat 2's next draw (7p) another 1p
    hands = {0: JA + "3s", 1: JB, 2: "222m555m888m11p44p", 3: JC}
    st, ag = play_script(
        rules(f"pass_hu_lock={lock}"), hands, {2: ["win 1p"]}, draws="9p 4p 1p 9p 9p 7p 1p"
    )
    assert offered(ag[2], WIN, "4p") == 1 and offered(ag[2], WIN, "1p") == 1
    assert wins(st) == [(2, "discard", 3, ("pengpenghu",), 4)]
    assert sum(e.type == DRAW for e in st.events) == (7 if lock == "until_next_draw" else 3)


def test_pass_lock_none_with_a_pon():
    st, ag = pass_then(rules("pass_hu_lock=none"), pon=True)
    # seat 3's 1p is open to seat 2 now (and its script wants 2m: it passes)
    assert offered(ag[2], WIN, "1p") == 2
    assert wins(st) == [(2, "discard", 3, ("pengpenghu",), 4)]


# ---------------------------------------------------------------- last four tiles

# The dealer: 碰碰胡 on 1p/4p; every other seat holds junk.
FORCED_HANDS = {0: "222m555m888m11p44p7p", 1: JA, 2: JB, 3: JC}


def test_forced_win_on_a_discard_even_when_locked():
    # seat 1 discards the other 1p and 4p early (passed); seat 2 discards 1p with 5
    # tiles left (passed: locked), seat 3 discards 4p with 4 left: won for the dealer
    st, ag = play_script(R, FORCED_HANDS, draws="1p ? ? ? 4p", tail="? ? ? ? 4p 1p")
    assert offered(ag[0], WIN, "1p") == 2 and offered(ag[0], WIN, "4p") == 1
    assert st.hu_lock[0] is True  # still locked when the engine took the win
    assert wins(st) == [(0, "discard", 3, ("pengpenghu",), 4)]
    assert pays(st) == [(3, 0, 4, "win")]
    assert st.live == 4


def test_passing_outside_the_last_four_is_allowed():
    # the last 4p is discarded with 5 tiles left: offered, passed, the hand goes on
    # to the end, where the dealer is paid 查大叫 (碰碰胡 self-draw: 3)
    st, ag = play_script(R, FORCED_HANDS, draws="1p ? ? ? 1p ? ? ? 4p", tail="? ? ? ? ? 4p")
    assert offered(ag[0], WIN, "4p") == 2 and st.wins == []
    assert st.exhausted
    assert pays(st) == [(p, 0, 3, "not_ready") for p in (1, 2, 3)]


def test_forced_self_draw_rather_than_a_kong():
    hands = {0: "1112223355567m9p", 1: JA, 2: JB, 3: JC}
    st, ag = play_script(R, hands, tail="3s 3s 3s 5m 3s")
    assert offered(ag[0], WIN, "5m") == 0  # taken by the engine, not offered
    assert wins(st) == [(0, "self_draw", None, ("qingyise",), 3)]
    assert not [e for e in st.events if e.type == KONG]
    assert pays(st) == [(1, 0, 3, "win"), (2, 0, 3, "win"), (3, 0, 3, "win")]


def test_forced_discard_win_rather_than_a_kong():
    hands = {0: "1112223355567m9p", 1: JA, 2: JB, 3: JC}
    st, ag = play_script(R, hands, tail="3s 3s 3s 3s 5m")
    assert wins(st) == [(0, "discard", 3, ("qingyise",), 4)]
    assert not [e for e in st.events if e.type == KONG]
    assert pays(st) == [(3, 0, 4, "win")]


# Seat 1: a plain hand on 9p; seat 3 discards 9p with 4 tiles left.
PLAIN_HANDS = {0: JA + "7p", 1: "123m234m456p789s9p", 2: JB, 3: JC}
PLAIN_TAIL = "3s 3s 3s 3s 9p"


def test_last4_plain_on_discard_false():
    st, _ = play_script(R, PLAIN_HANDS, tail=PLAIN_TAIL)
    assert st.wins == [] and st.live == 0 and st.exhausted
    # 查大叫: seat 1 is ready (a plain self-draw: 1); the others are not
    assert pays(st) == [(0, 1, 1, "not_ready"), (2, 1, 1, "not_ready"), (3, 1, 1, "not_ready")]
    assert st.deltas == [-1, 3, -1, -1]


def test_last4_plain_on_discard_true():
    st, ag = play_script(rules("last4_plain_on_discard=true"), PLAIN_HANDS, tail=PLAIN_TAIL)
    assert offered(ag[1], WIN, "9p") == 0  # forced
    assert wins(st) == [(1, "discard", 3, ("pinghu",), 1)]
    assert pays(st) == [(3, 1, 1, "win")]


# ---------------------------------------------------------------- dealer_on_draw


def test_dealer_on_draw():
    st, _ = play_script(R, PLAIN_HANDS, tail=PLAIN_TAIL)
    assert st.hand_row()["outcome"] == "draw" and st.next_dealer == 0
    st, _ = play_script(rules("dealer_on_draw=next"), PLAIN_HANDS, tail=PLAIN_TAIL)
    assert st.next_dealer == 1
    # a won hand is not a draw: the winner deals under either setting
    st, _ = pengpeng_on_discard(rules("dealer_on_draw=next"))
    assert st.next_dealer == 1


# ---------------------------------------------------------------- 查大叫


def test_chadajiao_pays_each_ready_player_its_best_self_draw():
    hands = {0: JA + "7p", 1: "1112223334445m", 2: "123p234p456s789s9m", 3: JC}
    st, _ = play_script(R, hands, tail="3s 3s 3s 3s 6s")
    assert st.wins == [] and st.exhausted
    assert pays(st) == [
        (0, 1, 6, "not_ready"),
        (0, 2, 1, "not_ready"),
        (3, 1, 6, "not_ready"),
        (3, 2, 1, "not_ready"),
    ]
    assert st.deltas == [-7, 12, 2, -7]


def test_chadajiao_is_capped_and_in_money():
    hands = {0: JA + "7p", 1: "1112223334445m", 2: "123p234p456s789s9m", 3: JC}
    st, _ = play_script(rules("cap=4", "base=2"), hands, tail="3s 3s 3s 3s 6s")
    assert pays(st) == [
        (0, 1, 8, "not_ready"),
        (0, 2, 2, "not_ready"),
        (3, 1, 8, "not_ready"),
        (3, 2, 2, "not_ready"),
    ]


def test_chadajiao_with_nobody_ready_pays_nothing():
    hands = {0: JA + "7p", 1: JB, 2: JC, 3: "147m258p369s1s4s7s9s"}
    assert waits(parse_counts(hands[3]), 0) == []
    st, _ = play_script(R, hands, tail="9p 9p 9p 1p 1p")
    assert st.exhausted and pays(st) == [] and st.deltas == [0, 0, 0, 0]


# ---------------------------------------------------------------- kongs and their money


def test_exposed_kong_money_and_dian_gang_hua_discarder_pays():
    st, _ = exposed_kong_flower()
    kong = next(e for e in st.events if e.type == KONG)
    assert (kong.seat, kong.kind, kong.from_seat) == (1, "exposed", 0)
    # 点杠花: the feeder pays the discard price (杠上花 4) alone
    assert wins(st) == [(1, "self_draw", 0, ("gangshanghua",), 4)]
    assert pays(st) == [(0, 1, 2, "kong_exposed"), (0, 1, 4, "win")]
    assert st.deltas == [-6, 6, 0, 0]
    # the win event names the feeder too, as its wins row does (LOG_SCHEMA.md)
    win = st.events[st.wins[0].seq]
    assert (win.type, win.kind, win.from_seat) == ("win", "self_draw", 0)
    # and the log replays clean through the checked path
    Replay.from_parts(st.rules, st.hand_row(), st.events).final_state()


def test_dian_gang_hua_win_event_without_the_feeder_is_refused():
    st, _ = exposed_kong_flower()
    events = [e._replace(from_seat=None) if e.type == "win" else e for e in st.events]
    with pytest.raises(ReplayError, match="illegal_action"):
        Replay.from_parts(st.rules, st.hand_row(), events).final_state()


def test_dian_gang_hua_self_draw():
    st, _ = exposed_kong_flower(rules("dian_gang_hua=self_draw"))
    assert wins(st) == [(1, "self_draw", None, ("gangshanghua",), 3)]
    assert st.events[st.wins[0].seq].from_seat is None  # every other player pays
    assert pays(st) == [
        (0, 1, 2, "kong_exposed"),
        (0, 1, 3, "win"),
        (2, 1, 3, "win"),
        (3, 1, 3, "win"),
    ]
    assert st.deltas == [-5, 11, -3, -3]


@pytest.mark.parametrize("dgh", ["discarder_pays", "self_draw"])
def test_concealed_kong_earns_nothing_and_its_flower_is_a_self_draw(dgh):
    st, _ = concealed_kong_flower(rules(f"dian_gang_hua={dgh}"))
    kong = next(e for e in st.events if e.type == KONG)
    assert (kong.seat, kong.kind) == (0, "concealed")
    assert wins(st) == [(0, "self_draw", None, ("gangshanghua",), 3)]
    assert pays(st) == [(1, 0, 3, "win"), (2, 0, 3, "win"), (3, 0, 3, "win")]


def added_kong(r, late: bool):
    """Seat 1 pons the dealer's 5m and adds the fourth 5m on its next turn: drawn
    then (not late), or held since before the pon (late, drawing 9p instead)."""
    if late:
        hands = {0: JA + "5m", 1: "555m123p456p789s1s", 2: JB, 3: JC}
        draws = "? ? ? 9p"
    else:
        hands = {0: JA + "5m", 1: "55m123p456p789s19s", 2: JB, 3: JC}
        draws = "? ? ? 5m"
    return play_script(r, hands, {1: ["pon 5m", "discard 1s", "kong 5m"]}, draws=draws, stop=True)


def added_kong_offered(agent) -> bool:
    return any(
        o is not None and o.type == KONG and o.kind == "added"
        for opts in agent.offers
        for o in opts
    )


@pytest.mark.parametrize("late", [False, True])
def test_bugang_payer_pon_feeder(late):
    st, _ = added_kong(R, late)
    assert st.melds[1] == [Meld(MeldKind.ADDED_KONG, parse_tile("5m"), 0)]
    assert pays(st) == [(0, 1, 2, "kong_added")] and st.deltas == [-2, 2, 0, 0]
    assert st.events[-1].type == DRAW and st.events[-1].kind == "tail"


def test_bugang_payer_each_other():
    st, _ = added_kong(rules("bugang_payer=each_other"), late=False)
    assert pays(st) == [(0, 1, 1, "kong_added"), (2, 1, 1, "kong_added"), (3, 1, 1, "kong_added")]


def test_late_added_kong_no_pay():
    st, _ = added_kong(rules("late_added_kong=no_pay"), late=True)
    assert st.melds[1][0].kind is MeldKind.ADDED_KONG and pays(st) == []
    # a kong on the tile just drawn is not late: it pays as usual
    st, _ = added_kong(rules("late_added_kong=no_pay"), late=False)
    assert pays(st) == [(0, 1, 2, "kong_added")]


def test_late_added_kong_forbidden():
    # seat 1 pons the dealer's 5m keeping its third 5m, then draws 9p: no added kong
    hands = {0: JA + "5m", 1: "555m123p456p789s1s", 2: JB, 3: JC}
    script = {1: ["pon 5m", "discard 1s", "discard 9p"]}
    _, ag = play_script(
        rules("late_added_kong=forbidden"), hands, script, draws="? ? ? 9p", stop=True
    )
    assert not added_kong_offered(ag[1])
    _, ag = play_script(R, hands, script, draws="? ? ? 9p", stop=True)
    assert added_kong_offered(ag[1])
    # on the tile just drawn it is allowed
    st, ag = added_kong(rules("late_added_kong=forbidden"), late=False)
    assert added_kong_offered(ag[1]) and pays(st) == [(0, 1, 2, "kong_added")]


def test_late_added_kong_pays_by_default():
    _, ag = added_kong(R, late=True)
    assert added_kong_offered(ag[1])


# ---------------------------------------------------------------- rob_exposed_kong


def test_rob_exposed_kong_true():
    st, ag = exposed_kong_robbed()
    assert offered(ag[3], WIN, "5m") == 1  # the kong, not the discard (plain hand)
    assert wins(st) == [(3, "robbed_kong", 1, ("qiangganghu",), 4)]
    # no kong money; the robbed kong player pays as the discarder, the dealer nothing
    assert pays(st) == [(1, 3, 4, "win")] and st.deltas == [0, -4, 0, 4]
    assert st.melds[1] == [] and st.hands[1][parse_tile("5m")] == 3  # three stay concealed
    # and the seat's kept keys have them back (mjlog.seats: the misses read the keys)
    assert st.seats.keys[1] == suit_keys(st.hands[1]) and st.seats.fours[1] == 0
    assert st.next_dealer == 3


def test_rob_exposed_kong_false():
    st, ag = exposed_kong_robbed(rules("rob_exposed_kong=false"), script=())
    assert offered(ag[3], WIN) == 0
    assert st.melds[1] == [Meld(MeldKind.EXPOSED_KONG, parse_tile("5m"), 0)]
    assert pays(st) == [(0, 1, 2, "kong_exposed")]


@pytest.mark.parametrize("lock", ["until_next_draw", "none"])
def test_who_passed_the_discard_may_not_rob_its_kong(lock):
    # seat 3 (清一色 on 5m) passes the dealer's 5m; seat 1 konges it: no robbing
    hands = {0: JA + "5m", 1: "555m123p456p789s9s", 2: JC, 3: "123m46m789m999m11m"}
    st, ag = play_script(
        rules(f"pass_hu_lock={lock}"), hands, {1: ["kong 5m"], 3: ["pass 5m"]}, stop=True
    )
    assert offered(ag[3], WIN, "5m") == 1
    assert pays(st) == [(0, 1, 2, "kong_exposed")]


def test_the_discarder_may_not_rob_the_kong_of_its_discard():
    # the dealer's 14 tiles win (plain, passed); it discards 5m and waits on it
    hands = {0: "46m789p123s456s99s5m", 1: "555m123p456p789s9s", 2: JA, 3: JB}
    st, ag = play_script(rules("pass_hu_lock=none"), hands, {1: ["kong 5m"]}, stop=True)
    assert offered(ag[0], WIN, "5m") == 1  # its own dealt 14, not the kong
    assert pays(st) == [(0, 1, 2, "kong_exposed")]


# ---------------------------------------------------------------- 十老头


def test_shilaotou():
    (st, _), seq = shilaotou(R)
    ev = next(e for e in st.events if e.type == WIN)
    assert (ev.seat, ev.kind, ev.tile, ev.from_seat) == (1, "shilaotou", parse_tile(seq[-1]), None)
    assert list(ev.tiles) == from_counts(st.hands[1]) and len(ev.tiles) == 13
    assert st.discards[1] == [parse_tile(t) for t in seq]
    assert wins(st) == [(1, "shilaotou", None, ("shilaotou",), 3)]
    assert pays(st) == [(0, 1, 3, "win"), (2, 1, 3, "win"), (3, 1, 3, "win")]
    assert st.deltas == [-3, 9, -3, -3]


@pytest.mark.parametrize("reset", ["pon", "suited"])
def test_shilaotou_count_resets(reset):
    (st, _), seq = shilaotou(R, reset)
    # 2 honors, the reset, then 10 honors: the win comes on the 10th after the reset
    ev = next(e for e in st.events if e.type == WIN)
    assert (ev.seat, ev.kind, ev.tile) == (1, "shilaotou", parse_tile(seq[-1]))
    # its discards: the ponged 6z left them, the suited 9m stays
    kept = [t for t in seq if t != "6z"]
    assert st.discards[1] == [parse_tile(t) for t in kept]
    assert st.honor_run[1] == 10
    assert pays(st) == [(0, 1, 3, "win"), (2, 1, 3, "win"), (3, 1, 3, "win")]


def test_a_win_on_the_10th_honor_comes_first():
    # seat 2 (碰碰胡 on 3z) passes seat 1's first 3z and wins on its 10th honor, 3z
    (st, ag), seq = shilaotou(R, seat2="222m555m888m999s3z", script2=["pass 3z", "win 3z"])
    assert seq[-1] == "3z" and offered(ag[2], WIN, "3z") == 2
    assert wins(st) == [(2, "discard", 1, ("pengpenghu",), 4)]
    assert pays(st) == [(1, 2, 4, "win")]


def test_shilaotou_points():
    (st, _), _ = shilaotou(rules("points.shilaotou=5/-"))
    assert pays(st) == [(0, 1, 5, "win"), (2, 1, 5, "win"), (3, 1, 5, "win")]


@pytest.mark.parametrize("value, points", [("-/5", 5), ("2/5", 2), ("7/-", 6)])
def test_shilaotou_paid_as_the_scorer_values_it(value, points):
    # one scorer: the engine pays what `mjlog score --by shilaotou` says (cap 6)
    r = rules(f"points.shilaotou={value}", "cap=6")
    (st, _), seq = shilaotou(r)
    ev = next(e for e in st.events if e.type == WIN)
    sc = score(WinContext(tuple(st.hands[1]), (), ev.tile, Method.SHILAOTOU), r)
    assert sc.legal and sc.points == points
    assert wins(st) == [(1, "shilaotou", None, ("shilaotou",), points)]
    assert pays(st) == [(0, 1, points, "win"), (2, 1, points, "win"), (3, 1, points, "win")]


def test_shilaotou_without_a_value_is_no_win():
    # points.shilaotou = -/-: the scorer finds no 十老头 win, so the hand plays on
    (st, _), seq = shilaotou(rules("points.shilaotou=-/-"))
    assert not any(e.type == WIN and e.kind == "shilaotou" for e in st.events)
    assert all(w.method != "shilaotou" for w in st.wins)
    # its 10 honor discards were passed and stayed in its discards: play went on
    assert st.discards[1][: len(seq)] == [parse_tile(t) for t in seq] and st.over


# ---------------------------------------------------------------- horses


def test_horses_off_by_default():
    st, _ = horses_win(R, tail="2m 3m")
    assert not [e for e in st.events if e.type == HORSE]
    assert pays(st) == [(p, 3, 3, "win") for p in (0, 1, 2)]


def test_horses_hit_and_miss():
    # dealer 2: seat numbers 1..4 are seats 2, 3, 0, 1. 2m → 2 = seat 3 (the
    # winner): a hit; 3m → 3 = seat 0: a miss
    st, _ = horses_win(rules("horses=2"), tail="2m 3m")
    hv = [e for e in st.events if e.type == HORSE]
    assert len(hv) == 1 and hv[0].tiles == tuple(parse("2m3m"))
    assert pays(st) == [(p, 3, 3, "win") for p in (0, 1, 2)] + [
        (p, 3, 3, "horse") for p in (0, 1, 2)
    ]
    assert st.wins[0].total == 18 and st.deltas == [-6, -6, -6, 18]
    assert st.hand_row()["wall_left"] == 136 - 53 - 1 - 2


def test_two_horse_hits():
    # 6m → 2 and 南 (2z) → 2: two hits
    st, _ = horses_win(rules("horses=3"), tail="6m 2z 1z")
    assert pays(st, "horse") == [(p, 3, 3, "horse") for p in (0, 1, 2)] * 2
    assert st.wins[0].total == 27


def test_horse_beyond_the_players_misses():
    # 3 players, dealer 0, winner seat 1 (number 2): 4m → 4 > 3, 5m → 1 = dealer
    st, _ = horses_win(rules("horses=2", players=3), tail="4m 5m", dealer=0)
    assert [e.tiles for e in st.events if e.type == HORSE] == [tuple(parse("4m5m"))]
    assert pays(st) == [(0, 1, 3, "win"), (2, 1, 3, "win")]


# ---------------------------------------------------------------- several winners


def test_multi_win_on_one_discard():
    # seat 2 discards 1p: the dealer (碰碰胡 on 1p/4p) and seat 1 (碰碰胡 on 1p) win
    hands = {0: "222m555m888m11p44p9s", 1: "333s666s999s888p1p", 2: JB, 3: JC}
    st, _ = play_script(R, hands, {0: ["win 1p"], 1: ["win 1p"]}, draws="9p 1p")
    assert wins(st) == [
        (0, "discard", 2, ("pengpenghu",), 4),
        (1, "discard", 2, ("pengpenghu",), 4),
    ]
    assert [w.win_order for w in st.wins] == [1, 1]
    assert st.winners == [0, 1]  # (w − d) mod 4: 2, 3
    assert pays(st) == [(2, 0, 4, "win"), (2, 1, 4, "win")] and st.deltas == [4, 4, -8, 0]
    assert st.next_dealer == 3  # the discarder's 下家
    assert len([e for e in st.events if e.type == WIN]) == 2


def test_multi_win_order_wraps_from_the_discarder():
    # seat 3 discards 1p (the 3rd draw); seat 1 and the dealer win: order 0, 1
    hands = {0: "222m555m888m11p44p9s", 1: "333s666s999s888p1p", 2: JB, 3: JC}
    st, _ = play_script(R, hands, {0: ["win 1p"], 1: ["win 1p"]}, draws="9p 9p 1p")
    assert st.winners == [0, 1] and st.next_dealer == 0
    assert pays(st) == [(3, 0, 4, "win"), (3, 1, 4, "win")]


# ---------------------------------------------------------------- cap and points.*


def test_cap():
    st, _ = qingyise_self_draw()
    assert wins(st) == [(1, "self_draw", None, ("pengpenghu", "qingyise"), 6)]
    assert not st.wins[0].capped
    st, _ = qingyise_self_draw(rules("cap=4"))
    assert st.wins[0].points == 4 and st.wins[0].capped
    assert pays(st) == [(p, 1, 4, "win") for p in (0, 2, 3)]


POINTS = [
    # key, scenario, default (patterns, points), switched value, switched points
    ("pinghu", plain_self_draw, ("pinghu",), 1, "2/-", 2),
    ("pengpenghu", pengpeng_on_discard, ("pengpenghu",), 4, "3/6", 6),
    ("qingyise", qingyise_on_discard, ("qingyise",), 4, "3/5", 5),
    ("qidui", qidui_on_discard, ("qidui",), 4, "3/9", 9),
    ("longqidui", lambda r: qidui_on_discard(r, four=True), ("longqidui",), 7, "6/10", 10),
    ("gangshanghua", concealed_kong_flower, ("gangshanghua",), 3, "5/4", 5),
    ("gangshangpao", kong_then_discard, ("gangshangpao",), 4, "-/8", 8),
    ("qiangganghu", added_kong_robbed, ("qiangganghu",), 4, "-/6", 6),
]


@pytest.mark.parametrize(
    "key,scenario,patterns,default,value,switched", POINTS, ids=[p[0] for p in POINTS]
)
def test_points(key, scenario, patterns, default, value, switched):
    st, _ = scenario(R)
    assert st.wins[0].patterns == patterns and st.wins[0].points == default
    st, _ = scenario(rules(f"points.{key}={value}"))
    assert st.wins[0].patterns == patterns and st.wins[0].points == switched
    assert all(amount == switched for _p, _q, amount, why in pays(st) if why == "win")


def test_points_pair_values_per_column():
    # 碰碰胡 by self-draw uses the first value, on a discard the second
    r = rules("points.pengpenghu=5/6")
    assert pengpeng_self_draw(r)[0].wins[0].points == 5
    assert pengpeng_on_discard(r)[0].wins[0].points == 6


# ---------------------------------------------------------------- a match


@pytest.mark.parametrize("sets", [(), ("dealer_on_draw=next",)])
def test_dealer_rotation_across_a_match(sets):
    r = rules(*sets)
    seen = set()
    for seed in (1, 2):
        hands = list(play_match(r, make_agents(["greedy"] * 4), seed, 0, 10))
        for a, b in zip(hands, hands[1:], strict=False):
            assert b.state.dealer == a.state.next_dealer
        for p in hands:
            st = p.state
            first = [w for w in st.wins if w.win_order == 1]
            if not first:
                want = st.dealer if "dealer_on_draw=next" not in sets else (st.dealer + 1) % 4
                seen.add("draw")
            elif len(first) == 1:
                want = first[0].seat
                seen.add("single")
            else:
                want = (first[0].from_seat + 1) % 4
                seen.add("multi")
            assert st.next_dealer == want
    assert {"draw", "single"} <= seen


def test_duplicate_play_rotates_the_dealer_whatever_happens():
    hands = list(play_match(R, make_agents(["greedy"] * 4), 3, 0, 6, duplicate=True))
    first = hands[0].state.dealer
    assert [p.state.dealer for p in hands] == [(first + k) % 4 for k in range(6)]


# ---------------------------------------------------------------- every key is tested

TESTED = {
    "players": test_players,
    "base": test_base,
    "honors": test_honors,
    "late_added_kong": test_late_added_kong_no_pay,
    "rob_exposed_kong": test_rob_exposed_kong_false,
    "dealer_on_draw": test_dealer_on_draw,
    "pass_hu_lock": test_pass_lock_none,
    "last4_plain_on_discard": test_last4_plain_on_discard_true,
    "cap": test_cap,
    "dian_gang_hua": test_dian_gang_hua_self_draw,
    "bugang_payer": test_bugang_payer_each_other,
    "horses": test_horses_hit_and_miss,
    "points.shilaotou": test_shilaotou_points,
    "dealer_compensation": compensation.test_compensation_is_the_only_difference,
    **{f"points.{p[0]}": test_points for p in POINTS},
}


def test_every_yuxi_rule_key_has_a_test():
    from tests.core import test_dealer_rotation as rotation
    from tests.core import (
        test_rule_keys_both_ways as new_keys,
    )  # imported here: it imports this module

    newer = {  # the newer keys, tested in tests/core/test_rule_keys_both_ways.py and beside their kin
        "kong_wins_big": new_keys.test_kong_wins_big_false_refuses_them,
        "chadajiao_value": new_keys.test_chadajiao_value,
        "dian_gang_hua_link": new_keys.test_dian_gang_hua_link_yuxi,
        "dealer_compensation_unit": compensation.test_in_money_the_compensation_is_not_scaled_by_base,
        "dealer_rotation": rotation.test_fixed_rotation_passes_the_deal_each_hand_and_validates,
    }
    assert set(keys("yuxi")) == set(TESTED) | set(newer)


def test_flower_on_an_added_kong_after_an_exposed_one_is_a_self_draw():
    # seat 1 pons the dealer's 5m, konges seat 2's 3s (明杠), later adds the fourth
    # 5m and wins on its replacement: an ordinary self-draw, not 点杠花 of the 3s
    hands = {0: JA + "5m", 1: "55m333s123p456p19s", 2: JB, 3: JC}
    st, _ = play_script(
        R,
        hands,
        {1: ["pon 5m", "discard 1s", "kong 3s", "kong 5m", "win"]},
        draws="3s ? ? ? 5m",
        tail="1p 9s",
    )
    assert wins(st) == [(1, "self_draw", None, ("gangshanghua",), 3)]
    assert pays(st) == [
        (2, 1, 2, "kong_exposed"),
        (0, 1, 2, "kong_added"),
        (0, 1, 3, "win"),
        (2, 1, 3, "win"),
        (3, 1, 3, "win"),
    ]


@pytest.mark.parametrize("horses", [0, 2])
def test_multi_win_robbing_an_added_kong(horses):
    # seat 1 pons seat 2's 5m (the dealer passes it), then adds the fourth 5m: seat 3
    # (plain, 46m) and the dealer (清一色 on 5m/6m) both rob it. Horses: 北 → 4 = seat
    # 3, 东 → 1 = seat 0: a hit each
    hands = {0: "123m46m789m999m11m3s", 1: "55m123p456p789s19s", 2: JC, 3: "46m789p123s456s99s"}
    scripts = {0: ["pass 5m", "win 5m"], 1: ["pon 5m", "discard 1s", "kong 5m"], 3: ["win 5m"]}
    st, _ = play_script(
        rules(f"horses={horses}"), hands, scripts, draws="7p 5m 7p 1p 1p 5m", tail="4z 1z"
    )
    assert wins(st) == [
        (3, "robbed_kong", 1, ("qiangganghu",), 4),
        (0, "robbed_kong", 1, ("qingyise", "qiangganghu"), 8),
    ]
    assert st.winners == [3, 0] and st.next_dealer == 2  # the kong player's 下家
    want = [(1, 3, 4, "win"), (1, 0, 8, "win")]
    if horses:
        want += [(1, 3, 4, "horse"), (1, 0, 8, "horse")]
    assert pays(st) == want
    assert [w.total for w in st.wins] == ([8, 16] if horses else [4, 8])
    assert st.melds[1] == [Meld(MeldKind.PON, parse_tile("5m"), 2)]


def test_no_horse_when_the_wall_is_empty():
    # seat 3's last discard (the wall's last tile) is won: no tile left for horses
    st, _ = play_script(
        rules("horses=2", "last4_plain_on_discard=true"), PLAIN_HANDS, tail="9p 3s 3s 3s 3s"
    )
    assert wins(st) == [(1, "discard", 3, ("pinghu",), 1)]
    assert st.live == 0 and not [e for e in st.events if e.type == HORSE]
    assert pays(st) == [(3, 1, 1, "win")]


def test_last4_plain_on_discard_without_a_plain_self_draw_value_is_no_win():
    """Rulebook §2 (decided turn 4): with ``points.pinghu = -/…`` there is no plain
    win at all, in the last four too: no win is ever worth 0; the wall plays on."""
    r = rules("last4_plain_on_discard=true", "points.pinghu=-/-")
    st, ag = play_script(r, PLAIN_HANDS, tail=PLAIN_TAIL)
    assert offered(ag[1], WIN, "9p") == 0
    assert st.wins == [] and st.live == 0 and st.exhausted


def test_no_simulated_win_is_worth_0_without_a_plain_self_draw_value(tmp_path):
    """Through the CLI: a seeded yuxi run with ``points.pinghu=-/-`` and
    ``last4_plain_on_discard=true`` (before the fix: 平胡 wins paying 0) has no win
    worth 0 and audits clean."""
    from click.testing import CliRunner

    from mjlog.cli import main
    from mjlog.logio import read_table

    out = tmp_path / "run"
    args = ["simulate", "--variant", "yuxi", "--matches", "1", "--hands-per-match", "6"]
    args += ["--seed", "5", "--workers", "1", "--out", str(out)]
    args += ["--set", "points.pinghu=-/-", "--set", "last4_plain_on_discard=true"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    wins_ = read_table(out, "wins").to_pylist()
    assert wins_ and all(w["points"] > 0 and w["patterns"] != ["pinghu"] for w in wins_)
    r = CliRunner().invoke(main, ["validate", str(out), "--workers", "1"])
    assert r.exit_code == 0, r.output
