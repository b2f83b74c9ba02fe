"""xuezhan engine flow (RULES.md §1 and §3), hand by hand from scripted walls.

Every scenario lays out the deal (and the draws that matter) in notation, plays it
with :class:`tests.scripted.Scripted` agents and checks the exact transfers
(payer, payee, amount, reason), winners and next dealer. Unscripted seats discard
the tile they just drew and pass every claim, so their hands stay as dealt.
Tiles: ``1m..9m`` 0..8, ``1p..9p`` 9..17, ``1s..9s`` 18..26.
"""

from __future__ import annotations

from collections import Counter

import pytest

from mjlog.engine import deal, play_match
from mjlog.events import DISCARD, DRAW, KONG, PON, VOID, WIN, Event
from mjlog.melds import MeldKind
from mjlog.rng import Stream, hand_seed
from mjlog.rules import Rules
from mjlog.tiles import parse_tile, tile_set
from mjlog.variants import wall_tiles
from simulate.agents import make_agents
from tests.scripted import Scripted, build_wall, offered, pays, play_script

T = parse_tile


def XZ(**kw) -> Rules:
    """xuezhan rules; ``mult__gen=4`` stands for ``mult.gen=4``."""
    return Rules("xuezhan", {k.replace("__", "."): v for k, v in kw.items()})


def run(hands, scripts=None, voids="mmmm", rules=None, **kw):
    """play_script with every seat's 定缺 given (``voids[seat]``) before its script."""
    rules = rules or XZ()
    sc = {s: [f"void {voids[s]}"] + list((scripts or {}).get(s, ())) for s in range(rules.n)}
    return play_script(rules, hands, scripts=sc, **kw)


def after(st, ev_type, seat=None, tile=None):
    """The event right after the first event of this type (and seat/tile)."""
    for i, e in enumerate(st.events):
        if (
            e.type == ev_type
            and (seat is None or e.seat == seat)
            and (tile is None or e.tile == T(tile))
        ):
            return st.events[i + 1 :]
    raise AssertionError(f"no {ev_type} event")


def first_draw_after(st, ev_type, seat=None, tile=None):
    return next(e for e in after(st, ev_type, seat, tile) if e.type == DRAW)


def wins(st):
    return [
        (w.seat, w.from_seat, w.method, w.patterns, w.multiplier, w.points, w.win_order)
        for w in st.wins
    ]


# ---------------------------------------------------------------- tiles, dealer, 定缺


@pytest.mark.parametrize("players", [2, 3, 4])
def test_tile_set_is_108_suited_tiles(players):
    r = XZ(players=players)
    assert Counter(wall_tiles(r)) == Counter(tile_set(108))
    assert all(t < 27 for t in wall_tiles(r))
    st, _, _ = deal(r, 5, 0, 0, None)
    assert len(st.wall) == 108 and Counter(st.wall) == Counter(tile_set(108))


def test_first_dealer_seat0_and_random():
    for seed in range(10):
        st, _, rolls = deal(XZ(), seed, 0, 0, None)
        assert st.dealer == 0 and rolls is None
    seen = set()
    for seed in range(20):
        st, _, rolls = deal(XZ(first_dealer="random"), seed, 0, 0, None)
        # drawn from hand 0's stream right after the shuffle (engine.deal's order)
        s = Stream(hand_seed(seed, 0, 0))
        s.shuffle(list(wall_tiles(XZ())))
        assert st.dealer == s.below(4) and rolls is None
        seen.add(st.dealer)
    assert len(seen) > 1


def test_void_events_in_seat_order_from_the_dealer():
    st, _ = run({}, voids="spmm", dealer=2, stop=True)
    voids = [e for e in st.events if e.type == VOID]
    assert [(e.seat, e.kind) for e in voids] == [(2, "m"), (3, "m"), (0, "s"), (1, "p")]
    # right after the four deals, before the dealer's first action
    assert [e.type for e in st.events[:8]] == ["deal"] * 4 + ["void"] * 4
    assert st.void == [2, 1, 0, 0]


@pytest.mark.parametrize("void, allowed", [("p", False), ("s", True)])
def test_no_pon_or_kong_of_the_void_suit(void, allowed):
    # seat 1 holds 55p and 555p... one at a time: pon on 5p with a pair, kong with three
    hands = {0: "123m456m789m1234s 5p", 1: "55p 12345678s 9s 1m 2m"}
    st, ag = run(hands, voids="m" + void + "mm", stop=True, scripts={0: ["discard 5p"]})
    assert offered(ag[1], PON, "5p") == allowed
    hands = {0: "123m456m789m1234s 5p", 1: "555p 12345678s 9s 1m"}
    st, ag = run(hands, voids="m" + void + "mm", stop=True, scripts={0: ["discard 5p"]})
    assert offered(ag[1], KONG, "5p") == allowed
    assert offered(ag[1], PON, "5p") == allowed
    # a concealed kong of the void suit is refused too (dealer with four 5p)
    hands = {0: "5555p 123m456m789m 1s"}
    st, ag = run(hands, voids=void + "mmm", stop=True, scripts={0: ["discard 1s"]})
    assert offered(ag[0], KONG, "5p") == allowed


@pytest.mark.parametrize("void, allowed", [("p", False), ("m", True)])
def test_no_win_while_holding_the_void_suit(void, allowed):
    # seat 1 waits on 5p with a single 5p: a tile of its void suit if it chose p
    hands = {0: "123m456m789m1234s 5p", 1: "123s456s789s234s 5p"}
    st, ag = run(hands, voids="m" + void + "mm", stop=True, scripts={0: ["discard 5p"]})
    assert offered(ag[1], WIN, "5p") == allowed
    # nor by self-draw: seat 1 draws the 5p itself
    hands = {0: "123m456m789m1234s 4m", 1: "123s456s789s234s 5p"}
    st, ag = run(
        hands,
        voids="m" + void + "mm",
        stop=True,
        draws="5p",
        scripts={0: ["discard 4m"], 1: ["discard 9s"]},
    )
    assert offered(ag[1], WIN, "5p") == allowed


# ---------------------------------------------------------------- blood battle

# seat 2 and seat 3 both wait on 5p (tanki); seat 0 (dealer) discards its 14th, a 5p
TANKI_5P = {
    0: "345m678m456s789s1s 5p",
    1: "123m456m789m666p 9p",
    2: "123s456s789s777p 5p",
    3: "111p222p333p444p 5p",
}


def test_single_discard_win_then_the_winners_next_seat_draws():
    st, _ = run(TANKI_5P, voids="msmm", scripts={2: ["win 5p"]}, stop=True)
    assert wins(st) == [(2, 0, "discard", ("pinghu",), 1, 1, 1)]
    assert pays(st) == [(0, 2, 1, "win")]
    assert st.won == [False, False, True, False]
    # seat 3 could win too but passed: it is locked (过手胡), and it draws next
    assert first_draw_after(st, WIN).seat == 3


def test_several_winners_on_one_discard_then_the_discarder_may_draw():
    st, _ = run(TANKI_5P, voids="msmm", scripts={2: ["win 5p"], 3: ["win 5p"]})
    assert wins(st)[:2] == [
        (2, 0, "discard", ("pinghu",), 1, 1, 1),
        (3, 0, "discard", ("qingpeng",), 8, 8, 1),
    ]
    assert pays(st, "win") == [(0, 2, 1, "win"), (0, 3, 8, "win")]
    assert st.winners == [2, 3] and st.ledger.first_batch == [2, 3]
    # (w − d) mod 4 is largest for seat 3; the next active seat after it is the discarder
    assert first_draw_after(st, WIN, seat=3).seat == 0
    assert st.next_dealer == 0  # several winners on the first winning discard: the discarder


def test_winners_ordered_from_the_discarder_and_play_resumes_after_the_last():
    # seat 1 discards 5p (drawn): seats 3 and 0 win, in that order ((w − 1) mod 4 = 2, 3);
    # play resumes after seat 0, i.e. with the discarder seat 1 itself
    hands = {
        0: "123s456s789s777p 5p 9p",
        1: "123m456m789m666p 9p",
        2: "345m678m456s789s 1s",
        3: "111p222p333p444p 5p",
    }
    st, _ = run(hands, voids="mspm", draws="5p", scripts={3: ["win 5p"], 0: ["win 5p"]}, stop=True)
    assert [(w.seat, w.from_seat, w.win_order) for w in st.wins] == [(3, 1, 1), (0, 1, 1)]
    assert st.winners == [3, 0]
    assert first_draw_after(st, WIN, seat=0).seat == 1


def test_self_draw_paid_by_active_players_and_play_skips_winners():
    # seat 2 wins on the dealer's 5p; later seat 1 self-draws: 0 and 3 pay, seat 3 draws next
    hands = dict(TANKI_5P)
    hands[1] = "123m456m789m666p 8p"
    st, _ = run(
        hands,
        voids="msmm",
        draws="1m 1m 8p",
        scripts={2: ["win 5p"], 3: ["pass 5p"], 1: ["win 8p"]},
        stop=True,
    )
    assert [(w.seat, w.from_seat, w.method) for w in st.wins] == [
        (2, 0, "discard"),
        (1, None, "self_draw"),
    ]
    assert pays(st) == [(0, 2, 1, "win"), (0, 1, 1, "win"), (3, 1, 1, "win")]
    assert first_draw_after(st, WIN, seat=1).seat == 3


def test_one_player_left_ends_the_hand_and_keeps_its_kong_money():
    # the dealer kongs 9p (下雨: 2 from each), discards the tail 5p: all three others win
    # on it (杠上炮). One player is left: no 退税 / 查花猪 / 查大叫 although the dealer
    # holds its void suit and is not ready.
    hands = dict(TANKI_5P)
    hands[0] = "9999p345m678m456s 1s"
    hands[1] = "123m456m789m666p 5p"
    st, _ = run(
        hands,
        voids="ssmm",
        tail="5p",
        scripts={0: ["kong 9p"], 1: ["win 5p"], 2: ["win 5p"], 3: ["win 5p"]},
    )
    assert pays(st) == [
        (1, 0, 2, "kong_concealed"),
        (2, 0, 2, "kong_concealed"),
        (3, 0, 2, "kong_concealed"),
        (0, 1, 2, "win"),
        (0, 2, 2, "win"),
        (0, 3, 16, "win"),
    ]
    assert [w.patterns for w in st.wins] == [("pinghu", "gangshangpao")] * 2 + [
        ("qingpeng", "gangshangpao")
    ]
    assert st.winners == [1, 2, 3] and st.events[-1].type == "end"
    assert st.live > 0 and not st.exhausted
    assert st.deltas == [-14, 0, 0, 14]
    assert st.next_dealer == 0


# ---------------------------------------------------------------- robbing a kong


def test_robbing_an_added_kong():
    # seat 1 pons 7s from seat 2 (the dealer, waiting on 4s/7s, passes it), later
    # draws the fourth 7s and adds it: the dealer robs it. No kong money; seat 1 keeps
    # its pon and pays; play resumes after the robber, i.e. with the kong player.
    hands = {0: "123p456p789p11p56s 9m", 1: "77s123m456m789m22s"}
    st, ag = run(
        hands,
        voids="mpmm",
        draws="9m 7s 1m 1m 9m 7s",
        scripts={1: ["pon 7s", "discard 2s", "kong 7s"], 0: ["pass 7s", "win 7s"]},
    )
    assert wins(st) == [(0, 1, "robbed_kong", ("pinghu", "qiangganghu"), 2, 2, 1)]
    assert pays(st, "win", "kong_added") == [(1, 0, 2, "win")]
    assert [(m.kind, m.tile) for m in st.melds[1]] == [(MeldKind.PON, T("7s"))]
    assert first_draw_after(st, WIN).seat == 1
    assert st.next_dealer == 0


# seat 1 waits on 1p/4p (1 each); seat 3 holds 444p; the dealer discards the drawn 4p
ROB_EXPOSED = {0: "55667789p66889s 3m", 1: "23p456s789s123s99s", 3: "444p123m456m789m5m"}


@pytest.mark.parametrize("rob", [False, True])
def test_rob_exposed_kong_by_a_player_locked_at_the_discard(rob):
    # seat 1 passes 1p from seat 2 (过手胡 at 1), so it cannot win on the dealer's 4p
    # (1 ≤ 1); seat 3 konged that 4p: robbing it is worth 2 > 1 and seat 1 is neither
    # the discarder nor a player that could have won on that discard.
    st, ag = run(
        ROB_EXPOSED,
        voids="mmms",
        draws="9p 1p 9p 4p",
        rules=XZ(rob_exposed_kong=rob),
        scripts={1: ["pass 1p"] + (["win 4p"] if rob else []), 3: ["kong 4p"]},
        stop=True,
    )
    assert offered(ag[1], WIN, "1p") == 1
    assert offered(ag[1], WIN, "4p") == (1 if rob else 0)
    if rob:
        assert wins(st) == [(1, 3, "robbed_kong", ("pinghu", "qiangganghu"), 2, 2, 1)]
        assert pays(st) == [(3, 1, 2, "win")]  # the kong player pays; the discarder nothing
        assert st.melds[3] == [] and st.hands[3][T("4p")] == 3
        assert first_draw_after(st, WIN).seat == 2
    else:
        assert st.wins == []
        assert pays(st) == [(0, 3, 2, "kong_exposed")]
        assert first_draw_after(st, KONG).kind == "tail"


def test_rob_exposed_kong_barred_for_the_discarder_and_who_passed_the_discard():
    # seat 1 could win on the dealer's 4p and passes; the dealer itself waits on 4p
    # (it drew it: passing the self-draw). Seat 3 kongs the 4p: nobody may rob it.
    hands = dict(ROB_EXPOSED)
    hands[0] = "23p111m222m333m99m 5m"
    hands[2] = "1155667788p567p"  # void p: never wins
    st, ag = run(
        hands,
        voids="smps",
        draws="9p 9p 9p 4p",
        rules=XZ(rob_exposed_kong=True),
        scripts={1: ["pass 4p"], 3: ["kong 4p"]},
        stop=True,
    )
    assert offered(ag[0], WIN, "4p") == 1  # the self-draw it passed
    assert offered(ag[1], WIN, "4p") == 1  # the discard it passed
    assert st.wins == [] and pays(st) == [(0, 3, 2, "kong_exposed")]


# ---------------------------------------------------------------- 过手胡 / 过手碰

# seat 2 waits on 1p (111p + 23p: 1 根, ×2) and 4p (×1)
LOCKED = {0: "55667789p 6688s 3m 4p", 2: "111p23p456s77s999s"}


@pytest.mark.parametrize("tile, offered_again", [("4p", False), ("1p", True)])
def test_passed_discard_win_locks_until_a_higher_multiplier(tile, offered_again):
    scripts = {1: [f"discard {tile}"], 2: ["pass 4p"] + ([f"win {tile}"] if offered_again else [])}
    st, ag = run(LOCKED, voids="mmmm", draws=tile, scripts=scripts, stop=True)
    assert st.events[10] == (DISCARD, 1, T(tile), None, None, None, None)
    assert offered(ag[2], WIN, "4p") == 1  # the dealer's, passed; seat 1's is not offered
    assert offered(ag[2], WIN, "1p") == (1 if offered_again else 0)
    if offered_again:
        assert wins(st) == [(2, 1, "discard", ("pinghu", "gen"), 2, 2, 1)]
    else:
        assert st.wins == []


def test_the_lock_ends_at_the_next_draw():
    st, ag = run(
        LOCKED, voids="mmmm", draws="4p 9m 4p", scripts={2: ["pass 4p", "win 4p"]}, stop=True
    )
    # passed from seat 0, not offered from seat 1 (locked), offered from seat 3 (drew since)
    assert offered(ag[2], WIN, "4p") == 2
    assert wins(st) == [(2, 3, "discard", ("pinghu",), 1, 1, 1)]


def test_passing_a_self_draw_locks_too():
    hands = dict(LOCKED)
    hands[0] = "55667789p 6688s 3m 9p"
    st, ag = run(
        hands, voids="mmmm", draws="9m 4p 4p 1p", scripts={2: ["discard 4p", "win 1p"]}, stop=True
    )
    assert offered(ag[2], WIN, "4p") == 1  # its own draw; seat 3's 4p is not offered
    assert wins(st) == [(2, 0, "discard", ("pinghu", "gen"), 2, 2, 1)]


@pytest.mark.parametrize(
    "claim, tile, then, mult", [("pon 7s", "7s", ["discard 9s"], 1), ("kong 9s", "9s", [], 2)]
)
def test_the_lock_ends_at_a_pon_or_kong(claim, tile, then, mult):
    st, ag = run(
        LOCKED,
        voids="mmmm",
        draws=f"{tile} 4p",
        tail="9m",
        scripts={2: ["pass 4p", claim, *then, "win 4p"]},
        stop=True,
    )
    # the 4p (×1; ×2 with the konged 9s as 根) is offered again from seat 3
    assert [(w.seat, w.from_seat, w.multiplier) for w in st.wins] == [(2, 3, mult)]


def test_a_kong_taken_instead_of_a_win_ends_the_lock_like_a_pon():
    # seat 2 could win on seat 1's 5s (×2: 根) and konged it instead; a pon instead
    # of the win ends the lock (the seat's own pon), and so does the kong, even when
    # it is robbed and no replacement draw follows. Seat 3 (locked at ×1 by passing
    # the dealer's 4s) may not win on the 5s but robs the kong (×2). Then seat 2,
    # before any draw of its own, wins on the dealer's 8s (×1 ≤ 2: a lock would
    # refuse it).
    hands = {0: "111s222s333s99s88p 4s", 2: "555s67s234p567p11p", 3: "123p456p789p4666s"}
    st, ag = run(
        hands,
        rules=XZ(rob_exposed_kong=True),
        draws="5s 8s",
        scripts={1: ["discard 5s"], 2: ["kong 5s", "win 8s"], 3: ["pass 4s", "win 5s"]},
        stop=True,
    )
    assert [(w.seat, w.from_seat, w.method, w.multiplier) for w in st.wins] == [
        (3, 2, "robbed_kong", 2),
        (2, 0, "discard", 1),
    ]
    assert offered(ag[2], WIN, "5s") == 1 and offered(ag[2], WIN, "8s") == 1
    assert not any(e.type == DRAW and e.seat == 2 for e in st.events)


# seat 2 holds 55s; the dealer discards 5s first
PONLOCK = {0: "55667789p 6688s 3m 5s", 2: "55s123p456p789p11s"}


@pytest.mark.parametrize("who, draws, again", [(1, "5s", False), (3, "9m 9m 5s", True)])
def test_passed_pon_locks_that_kind_until_the_next_draw(who, draws, again):
    st, ag = run(
        PONLOCK,
        voids="mmmm",
        draws=draws,
        scripts={who: ["discard 5s"], 2: ["pass 5s"] + (["pon 5s"] if again else [])},
        stop=True,
    )
    second = [e for e in st.events if e.type == DISCARD and e.tile == T("5s")][1]
    assert second.seat == who
    assert offered(ag[2], PON, "5s") == (2 if again else 1)


def test_a_discard_someone_won_locks_nobody():
    hands = dict(PONLOCK)
    hands[3] = "46s111m222m333m99m"
    st, ag = run(
        hands,
        voids="mmmp",
        draws="5s",
        scripts={3: ["win 5s"], 2: ["pass 5s", "pon 5s"]},
        stop=True,
    )
    assert [(w.seat, w.from_seat) for w in st.wins] == [(3, 0)]
    assert offered(ag[2], PON, "5s") == 2
    assert [(m.kind, m.tile, m.from_seat) for m in st.melds[2]] == [(MeldKind.PON, T("5s"), 0)]


def test_pon_lock_leaves_the_exposed_kong_allowed():
    # seat 2 passes the dealer's 5s (locked: 过手碰) and seat 1 draws the last 5s.
    # A third 5s in seat 2's hand is unreachable with four copies (a locked seat
    # cannot gain a tile without drawing), so it is put there; then seat 1's
    # discard of 5s, checked and applied, opens the window
    st, ag = run(PONLOCK, voids="mmmm", draws="5s", scripts={2: ["pass 5s"]}, stop=True)
    assert offered(ag[2], PON, "5s") == 1 and T("5s") in st.pon_lock[2]
    assert st.turn == 1 and st.drawn == T("5s")
    st.hands[2][T("5s")] = 3
    assert st.try_apply(Event(DISCARD, 1, T("5s")))
    assert st.window.kongs == [2] and st.window.pons == []
    assert st.options()[2] == [Event(KONG, 2, T("5s"), 1, "exposed")]


# ---------------------------------------------------------------- kong money


def test_kong_money_of_each_kind_to_and_from_active_players_only():
    # seat 2 wins first; then 刮风 (seat 3 kongs the dealer's 6s: the discarder pays 2),
    # 巴杠 (seat 1 adds 1m to its pon: each other active player 1) and 下雨 (seat 1's
    # concealed 9m: each other active player 2). The winner (seat 2) neither pays nor earns.
    hands = {
        0: "123p456p789p2345s 5p",
        1: "9999m11m234s678p1s",
        2: "234m567m888m234m 5p",
        3: "666s234p789s23m8p9p",
    }
    st, _ = run(
        hands,
        voids="mssm",
        draws="1m 7m 6s 7m 1m",
        tail="9s 9s 9s",
        scripts={2: ["win 5p"], 1: ["pon 1m", "discard 2s", "kong 1m", "kong 9m"], 3: ["kong 6s"]},
        stop=True,
    )
    assert pays(st) == [
        (0, 2, 1, "win"),
        (0, 3, 2, "kong_exposed"),
        (0, 1, 1, "kong_added"),
        (3, 1, 1, "kong_added"),
        (0, 1, 2, "kong_concealed"),
        (3, 1, 2, "kong_concealed"),
    ]
    assert [(m.kind, m.tile) for m in st.melds[1]] == [
        (MeldKind.ADDED_KONG, T("1m")),
        (MeldKind.CONCEALED_KONG, T("9m")),
    ]


# seat 1 pons the dealer's 1m; on its next turn it adds the kong
LATE = {0: "123p456p789p2345s 1m", 1: "111m234s567s789s9p"}
FRESH = {0: "123p456p789p2345s 1m", 1: "11m234s567s789s9p8p"}


@pytest.mark.parametrize(
    "late_rule, money",
    [
        ("pays", [(0, 1, 1, "kong_added"), (2, 1, 1, "kong_added"), (3, 1, 1, "kong_added")]),
        ("no_pay", []),
    ],
)
def test_late_added_kong_pays_or_not(late_rule, money):
    st, ag = run(
        LATE,
        voids="mpmm",
        draws="7m 7m 7m 7m",
        rules=XZ(late_added_kong=late_rule),
        scripts={1: ["pon 1m", "discard 9p", "kong 1m"]},
        stop=True,
    )
    assert [e.kind for e in st.events if e.type == KONG] == ["added"]
    assert pays(st) == money


def test_late_added_kong_forbidden_but_a_fresh_one_allowed():
    rules = XZ(late_added_kong="forbidden")
    st, ag = run(
        LATE,
        voids="mpmm",
        draws="7m 7m 7m 7m",
        rules=rules,
        scripts={1: ["pon 1m", "discard 9p", "discard 7m"]},
        stop=True,
    )
    own_turn = ag[1].offers[-1]
    assert own_turn[-1] is not None and not any(o.type == KONG for o in own_turn)
    st, ag = run(
        FRESH,
        voids="mpmm",
        draws="7m 7m 7m 1m",
        rules=rules,
        scripts={1: ["pon 1m", "discard 9p", "kong 1m"]},
        stop=True,
    )
    assert pays(st) == [(0, 1, 1, "kong_added"), (2, 1, 1, "kong_added"), (3, 1, 1, "kong_added")]


# ---------------------------------------------------------------- payments


# seat 1 kongs the dealer's 5s and wins on the replacement 1s: 点杠花
DGH = {0: "123m456m789m2346s 5s", 1: "555s123p456p789p1s"}


@pytest.mark.parametrize(
    "dgh, bonus, expected",
    [
        ("discarder_pays", "none", [(0, 1, 4, "win")]),
        ("discarder_pays", "double", [(0, 1, 4, "win")]),  # not every active player pays
        ("self_draw", "none", [(0, 1, 4, "win"), (2, 1, 4, "win"), (3, 1, 4, "win")]),
        ("self_draw", "double", [(0, 1, 8, "win"), (2, 1, 8, "win"), (3, 1, 8, "win")]),
    ],
)
def test_dian_gang_hua(dgh, bonus, expected):
    st, _ = run(
        DGH,
        voids="pmmm",
        tail="1s",
        rules=XZ(dian_gang_hua=dgh, zimo_bonus=bonus),
        scripts={1: ["kong 5s", "win 1s"]},
        stop=True,
    )
    assert pays(st) == [(0, 1, 2, "kong_exposed")] + expected
    assert wins(st)[0][:5] == (
        1,
        0 if dgh == "discarder_pays" else None,
        "self_draw",
        ("pinghu", "gen", "gangshanghua"),
        4,
    )
    # the win event's from_seat is the wins row's (LOG_SCHEMA.md)
    assert st.events[st.wins[0].seq].from_seat == st.wins[0].from_seat


@pytest.mark.parametrize(
    "bonus, cap, points",
    [
        ("none", 16, 1),
        ("add_base", 16, 2),
        ("double", 16, 2),
        ("double", 1, 1),  # doubled before the cap
        ("add_base", 1, 2),  # added after it
    ],
)
def test_zimo_bonus_on_a_self_draw_only(bonus, cap, points):
    # seat 2 wins on a discard (no bonus); seat 1 then self-draws 8p (平胡 ×1): the
    # active players 0 and 3 pay, with the bonus
    hands = dict(TANKI_5P)
    hands[1] = "123m456m789m666p 8p"
    st, _ = run(
        hands,
        voids="msmm",
        draws="1m 1m 8p",
        rules=XZ(zimo_bonus=bonus, cap=cap),
        scripts={2: ["win 5p"], 3: ["pass 5p"], 1: ["win 8p"]},
        stop=True,
    )
    assert pays(st) == [(0, 2, 1, "win"), (0, 1, points, "win"), (3, 1, points, "win")]
    assert st.wins[1].multiplier == 1


def test_cap_limits_each_payment_not_the_logged_multiplier():
    st, _ = run(
        TANKI_5P,
        voids="msmm",
        rules=XZ(cap=4, base=3),
        scripts={2: ["win 5p"], 3: ["win 5p"]},
        stop=True,
    )
    assert pays(st) == [(0, 2, 3, "win"), (0, 3, 12, "win")]
    assert [(w.multiplier, w.fan, w.capped) for w in st.wins] == [(1, 0, False), (8, 3, True)]


@pytest.mark.parametrize("call", [False, True])
def test_call_transfer_on_gangshangpao(call):
    # the dealer's 下雨 (2 from each), then its discard is won by seats 1, 2 and 3: with
    # 呼叫转移 the kong money goes to the first winner from the kong player (seat 1)
    hands = dict(TANKI_5P)
    hands[0] = "9999p345m678m456s 1s"
    hands[1] = "123m456m789m666p 5p"
    st, _ = run(
        hands,
        voids="ssmm",
        tail="5p",
        rules=XZ(call_transfer=call),
        scripts={0: ["kong 9p"], 1: ["win 5p"], 2: ["win 5p"], 3: ["win 5p"]},
    )
    moved = [(0, 1, 2, "call_transfer")] * 3 if call else []
    assert pays(st) == [
        (1, 0, 2, "kong_concealed"),
        (2, 0, 2, "kong_concealed"),
        (3, 0, 2, "kong_concealed"),
        (0, 1, 2, "win"),
        *moved,
        (0, 2, 2, "win"),
        (0, 3, 16, "win"),
    ]
    assert st.deltas == ([-20, 6, 0, 14] if call else [-14, 0, 0, 14])


# ---------------------------------------------------------------- end of the wall


def test_end_of_wall_tax_refund_flower_pig_and_not_ready_in_order():
    # seat 0 (void p, keeps 5p: 花猪) kongs 5m (下雨, 2 from each) and discards the tail
    # 9s; seat 1 kongs it (刮风, 2 from seat 0); seat 3 self-draws 8s (清碰 ×8) and
    # leaves. Everyone else discards what it draws until the wall is empty. Then:
    # 退税: seat 0 (花猪, never ready) repays 1, 2 and 3 (3 has won since);
    #       seat 1 (not ready) repays seat 0;
    # 查花猪: seat 0 pays the cap (16) to 1, 2 and the winner 3;
    # 查大叫: seat 1 pays seat 2 (ready: 1112345678999p, best 1p/9p = 清一色 × 根 = 8).
    hands = {
        0: "5555m123m789m5p4s8s 6m",
        1: "999s147s258s36p47p",
        2: "1112345678999p",
        3: "222s333s666s777s8s",
    }
    st, _ = run(
        hands,
        voids="pmmm",
        draws="1m 8s",
        tail="9s 1m",
        scripts={0: ["kong 5m"], 1: ["kong 9s"], 3: ["win 8s"]},
    )
    assert st.exhausted and st.live == 0 and st.winners == [3]
    assert pays(st) == [
        (1, 0, 2, "kong_concealed"),
        (2, 0, 2, "kong_concealed"),
        (3, 0, 2, "kong_concealed"),
        (0, 1, 2, "kong_exposed"),
        (0, 3, 8, "win"),
        (1, 3, 8, "win"),
        (2, 3, 8, "win"),
        (0, 1, 2, "tax_refund"),
        (0, 2, 2, "tax_refund"),
        (0, 3, 2, "tax_refund"),
        (1, 0, 2, "tax_refund"),
        (0, 1, 16, "flower_pig"),
        (0, 2, 16, "flower_pig"),
        (0, 3, 16, "flower_pig"),
        (1, 2, 8, "not_ready"),
    ]
    assert st.deltas == [-56, 0, 16, 40]
    assert st.next_dealer == 3


# seat 1 self-draws at once and leaves; seat 3 kongs 9m at its first turn; the draws then
# go 2, 3, 0, ... so seat 3 draws the last tile (54 live draws + 1 tail): a 5s that both
# seat 0 and seat 2 can win. Seat 3 is a 花猪 and is not ready.
LAST = {
    0: "111m222m333m444m5s 9p",
    1: "234s678s999s11s44p",
    2: "123p456p789p55s22s",
    3: "9999m5m6m7m8m2p3p7s8s1s",
}
LAST_DRAWS = "4p " + "? " * 51 + "1p 5s"


def test_last_discard_won_leaving_one_player_ends_without_end_of_wall_checks():
    st, ag = run(
        LAST,
        voids="pmmp",
        draws=LAST_DRAWS,
        scripts={1: ["win 4p"], 3: ["kong 9m"], 0: ["win 5s"], 2: ["win 5s"]},
    )
    last_draw = [e for e in st.events if e.type == DRAW][-1]
    assert (last_draw.seat, last_draw.tile, st.live) == (3, T("5s"), 0)
    assert pays(st) == [
        (0, 1, 1, "win"),
        (2, 1, 1, "win"),
        (3, 1, 1, "win"),
        (0, 3, 2, "kong_concealed"),
        (2, 3, 2, "kong_concealed"),
        (3, 0, 2, "win"),
        (3, 2, 1, "win"),
    ]
    assert st.winners == [1, 0, 2] and [w.win_order for w in st.wins] == [1, 2, 2]
    assert st.deltas == [-1, 3, -2, 0]  # seat 3 keeps its kong money
    assert st.next_dealer == 1


def test_last_discard_never_ponged_and_end_of_wall_checks_with_two_left():
    st, ag = run(
        LAST,
        voids="pmmp",
        draws=LAST_DRAWS,
        scripts={1: ["win 4p"], 3: ["kong 9m"], 0: ["win 5s"], 2: ["pass 5s"]},
    )
    last_window = ag[2].offers[-1]
    assert [o and o.type for o in last_window] == [WIN, None]  # no pon of the last discard
    assert st.winners == [1, 0] and st.exhausted
    assert pays(st)[5:] == [
        (3, 0, 2, "win"),
        (3, 0, 2, "tax_refund"),
        (3, 2, 2, "tax_refund"),  # repaid to a winner too
        (3, 0, 16, "flower_pig"),
        (3, 1, 16, "flower_pig"),
        (3, 2, 16, "flower_pig"),
    ]  # 查大叫: seat 2 is ready but the only non-ready player is a 花猪


@pytest.mark.parametrize("locked", [False, True])
def test_robbing_an_added_kong_is_limited_by_the_lock(locked):
    # seat 2 (1p ×2 with its 根, 4p ×1) passes the dealer's 4p, which seat 1 pons; after
    # seat 2's next draw, seat 3 discards 1p (passed: locked at 2) or not. Seat 1 then
    # adds the fourth 4p: robbing it is worth 1 × 2 (抢杠胡) = 2, not above a lock of 2.
    hands = dict(LOCKED)
    hands[1] = "44p456m789m11m22m3m"
    draws = "7m 1p 7m 4p" if locked else "7m 7m 7m 4p"
    st, ag = run(
        hands,
        voids="msmm",
        draws=draws,
        scripts={
            1: ["pon 4p", "discard 3m", "kong 4p"],
            2: ["pass 4p"] + (["pass 1p"] if locked else ["win 4p"]),
        },
        stop=True,
    )
    if locked:
        assert offered(ag[2], WIN, "4p") == 1 and st.wins == []
        assert pays(st) == [
            (0, 1, 1, "kong_added"),
            (2, 1, 1, "kong_added"),
            (3, 1, 1, "kong_added"),
        ]
    else:
        assert wins(st) == [(2, 1, "robbed_kong", ("pinghu", "qiangganghu"), 2, 2, 1)]
        assert pays(st) == [(1, 2, 2, "win")]


# ---------------------------------------------------------------- 2 and 3 players


def test_three_players_resume_and_end():
    r = XZ(players=3)
    hands = {0: "345m678m456s789s1s 5p", 1: "123m456m789m666p 5p", 2: "123s456s789s777p 5p"}
    st, _ = run(hands, voids="msm", rules=r, scripts={2: ["win 5p"], 1: ["pass 5p"]}, stop=True)
    assert len(st.wall) == 108 and st.winners == [2]
    assert first_draw_after(st, WIN).seat == 0  # (2 − 0) mod 3: the discarder draws
    st, _ = run(hands, voids="msm", rules=r, scripts={1: ["win 5p"], 2: ["win 5p"]})
    assert st.winners == [1, 2] and st.events[-1].type == "end" and not st.exhausted
    assert pays(st) == [(0, 1, 1, "win"), (0, 2, 1, "win")]
    assert st.next_dealer == 0


def test_two_players_first_win_leaves_one_player():
    r = XZ(players=2)
    hands = {0: "345m678m456s789s1s 5p", 1: "123s456s789s777p 5p"}
    st, _ = run(hands, voids="mm", rules=r, scripts={1: ["win 5p"]})
    assert len(st.wall) == 108
    assert pays(st) == [(0, 1, 1, "win")] and st.events[-1].type == "end"
    assert st.next_dealer == 1


# ---------------------------------------------------------------- dealer rotation


class PerHand:
    """A Scripted agent with one script per hand of a match."""

    name = "per_hand"
    params: dict = {}

    def __init__(self, scripts):
        self.scripts = list(scripts)
        self.inner = None

    def start_hand(self, seat, rng):
        self.inner = Scripted(self.scripts.pop(0) if self.scripts else ())
        self.inner.start_hand(seat, rng)

    def choose(self, view, options):
        return self.inner.choose(view, options)


def test_dealer_rotation_across_a_match():
    # scripted hands played in turn, each dealt by the hand before's next dealer (how
    # play_match hands the dealer on is the real-play test below)
    from mjlog.engine import play
    from mjlog.state import HandState

    # hand 0 (dealer 0): seat 2 wins first, seat 1 later → seat 2 deals
    # hand 1 (dealer 2): seat 3's discard is won by seats 0 and 1 → seat 3 deals
    # hand 2 (dealer 3): nobody wins → seat 3 deals again
    h0 = dict(TANKI_5P)
    h0[1] = "123m456m789m666p 8p"
    layouts = [
        (h0, "1m 1m 8p"),
        ({2: "345m678m456s789s1s 9p", 0: "123s456s789s777p 5p", 1: "111p222p333p444p 5p"}, "5p"),
        ({}, ""),
        ({}, ""),
    ]
    scripts = {
        0: [["void m"], ["win 5p"]],
        1: [["void s", "win 8p"], ["win 5p"]],
        2: [["void m", "win 5p"]],
        3: [["void m", "pass 5p"]],
    }

    agents = [PerHand(scripts[s]) for s in range(4)]
    r = XZ()
    dealer, played = 0, []
    for hands, draws in layouts:
        for s, a in enumerate(agents):
            a.start_hand(s, Stream(0))
        st = play(HandState(r, build_wall(r, hands, dealer, draws), dealer), agents)
        played.append(st)
        dealer = st.next_dealer
    assert [st.dealer for st in played] == [0, 2, 3, 3]
    assert [st.winners[:2] for st in played[:2]] == [[2, 1], [0, 1]]
    assert played[2].winners == [] and played[2].next_dealer == 3


def test_dealer_rotation_follows_the_first_winning_batch_in_real_play():
    r = XZ()
    prev = None
    for p in play_match(r, make_agents(["greedy"] * 4), seed=11, match=0, hands=12):
        st = p.state
        if prev is not None:
            assert st.dealer == prev
        batch = [w.seat for w in st.wins if w.win_order == 1]
        if not batch:
            expected = st.dealer
        elif len(batch) == 1:
            expected = batch[0]
        else:
            expected = st.wins[0].from_seat
        assert st.next_dealer == expected
        prev = st.next_dealer


@pytest.mark.parametrize("call", [False, True])
def test_kong_money_moved_by_call_transfer_is_not_refunded(call):
    # the dealer (花猪, never ready) kongs 9p, its tail 5p is won by seat 2 (杠上炮);
    # seats 1 and 3 are ready and play on to the end of the wall. 退税 repays only
    # kong money the dealer still holds.
    hands = {
        0: "9999p345m678m456s 1s",
        1: "123m456m789m666p 8p",
        2: "123s456s789s777p 5p",
        3: "111p222p333p444p 5p",
    }
    st, _ = run(
        hands,
        voids="ssmm",
        tail="5p",
        rules=XZ(call_transfer=call),
        scripts={0: ["kong 9p"], 2: ["win 5p"], 3: ["pass 5p"]},
    )
    assert st.exhausted and st.winners == [2]
    kong = [(1, 0, 2, "kong_concealed"), (2, 0, 2, "kong_concealed"), (3, 0, 2, "kong_concealed")]
    if call:
        middle = [(0, 2, 2, "win")] + [(0, 2, 2, "call_transfer")] * 3
    else:
        middle = [
            (0, 2, 2, "win"),
            (0, 1, 2, "tax_refund"),
            (0, 2, 2, "tax_refund"),
            (0, 3, 2, "tax_refund"),
        ]
    pig = [(0, 1, 16, "flower_pig"), (0, 2, 16, "flower_pig"), (0, 3, 16, "flower_pig")]
    assert pays(st) == kong + middle + pig


def test_pon_lock_ends_at_a_pon():
    # seat 2 passes the dealer's 5s (locked), pons seat 1's 1s, then may pon seat 3's 5s
    st, ag = run(
        PONLOCK,
        voids="mmmm",
        draws="1s 5s",
        scripts={2: ["pass 5s", "pon 1s", "discard 9p", "pon 5s"]},
        stop=True,
    )
    assert [(m.tile, m.from_seat) for m in st.melds[2]] == [(T("1s"), 1), (T("5s"), 3)]


def test_three_players_end_of_wall():
    # seat 1 kongs 8s (2 from 0 and 2) and is not ready; seat 0 is a 花猪; seat 2 ready
    hands = {0: "123m456m789m5p123s 9s", 1: "8888s147s258m369m", 2: "1112345678999p"}
    st, _ = run(hands, voids="ppm", rules=XZ(players=3), scripts={1: ["kong 8s"]})
    assert st.exhausted and st.winners == []
    assert pays(st) == [
        (0, 1, 2, "kong_concealed"),
        (2, 1, 2, "kong_concealed"),
        (1, 0, 2, "tax_refund"),
        (1, 2, 2, "tax_refund"),
        (0, 1, 16, "flower_pig"),
        (0, 2, 16, "flower_pig"),
        (1, 2, 8, "not_ready"),
    ]
    assert st.next_dealer == 0  # no winner: the dealer stays


def test_greedy_void_is_the_suit_it_holds_fewest_of():
    for seed in range(6):
        p = next(play_match(XZ(), make_agents(["greedy"] * 4), seed=seed, match=0, hands=1))
        st = p.state
        dealt = {e.seat: e.tiles for e in st.events if e.type == "deal"}
        for e in st.events:
            if e.type == VOID:
                counts = [sum(1 for t in dealt[e.seat] if t // 9 == k) for k in range(3)]
                assert e.kind == "mps"[counts.index(min(counts))]


def test_two_players_rob_one_added_kong():
    # as above, and seat 3 (68s) also robs: winners in (w − 1) mod 4 order, both paid by
    # the kong player, who deals next and draws next
    hands = {0: "123p456p789p11p56s 9m", 1: "77s123m456m789m22s", 3: "68s234m567m888m33m"}
    st, _ = run(
        hands,
        voids="mpmp",
        draws="9m 7s 1m 1m 9m 7s",
        scripts={
            1: ["pon 7s", "discard 2s", "kong 7s"],
            0: ["pass 7s", "win 7s"],
            3: ["pass 7s", "win 7s"],
        },
    )
    assert [(w.seat, w.from_seat, w.method, w.win_order) for w in st.wins[:2]] == [
        (3, 1, "robbed_kong", 1),
        (0, 1, "robbed_kong", 1),
    ]
    assert pays(st, "win")[:2] == [(1, 3, 2, "win"), (1, 0, 2, "win")]
    assert [(m.kind, m.tile) for m in st.melds[1]] == [(MeldKind.PON, T("7s"))]
    assert first_draw_after(st, WIN, seat=0).seat == 1
    assert st.next_dealer == 1


def test_win_has_priority_over_a_pon_claim():
    # seat 2 claims pon on the dealer's 5s while seat 3 wins on it: the win is taken,
    # no pon happens and nobody is pon-locked
    hands = dict(PONLOCK)
    hands[3] = "46s111m222m333m99m"
    st, ag = run(
        hands, voids="mmmp", draws="5s", scripts={3: ["win 5s"], 2: ["pon 5s", "pon 5s"]}, stop=True
    )
    assert [(w.seat, w.from_seat) for w in st.wins] == [(3, 0)]
    pons = [e for e in st.events if e.type == PON]
    assert [(e.seat, e.from_seat) for e in pons] == [(2, 0)]  # the second 5s, from seat 0
    assert offered(ag[2], PON, "5s") == 2
