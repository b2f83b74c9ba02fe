"""huangmei engine flow (RULES.md §1 and §4), hand by hand from scripted walls.

Every scenario lays out the deal (and the draws that matter) in notation, plays it
with :class:`tests.scripted.Scripted` agents and checks the exact events around the
发 (``6z``), the wins' patterns and fan, the transfers (payer, payee, amount,
reason) and the next dealer. Unscripted seats discard the tile they just drew and
pass every claim. ``tail`` lists the tail draws in the order they are taken.
"""

from __future__ import annotations

from collections import Counter

import pytest

from mjlog.engine import deal, play_match
from mjlog.events import BONUS, DISCARD, DRAW, KONG, WIN
from mjlog.melds import MeldKind
from mjlog.rules import Rules
from mjlog.tiles import parse_tile, tile_set
from mjlog.variants import break_position, side_start, wall_tiles
from simulate.agents import make_agents
from tests.scripted import offered, pays, play_script

T = parse_tile
FA = T("6z")


def HM(**kw) -> Rules:
    """huangmei rules; ``fan__facai=2`` stands for ``fan.facai=2``."""
    return Rules("huangmei", {k.replace("__", "."): v for k, v in kw.items()})


def run(hands, scripts=None, rules=None, **kw):
    return play_script(rules or HM(), hands, scripts=scripts, **kw)


def evs(st, seat=None, start=4):
    """(type, seat, tile, kind) of the events after the deal, optionally one seat's."""
    return [
        (e.type, e.seat, e.tile, e.kind)
        for e in st.events[start:]
        if e.type not in ("transfer", "end") and (seat is None or e.seat == seat)
    ]


def wins(st):
    return [(w.seat, w.from_seat, w.method, w.patterns, w.fan, w.points) for w in st.wins]


# ---------------------------------------------------------------- tile set, dealer, break


@pytest.mark.parametrize("winds, size", [(True, 136), (False, 120)])
def test_tile_set(winds, size):
    r = HM(winds=winds)
    assert Counter(wall_tiles(r)) == Counter(tile_set(size))
    assert all(27 <= t <= 30 for t in set(tile_set(136)) - set(wall_tiles(r)))
    st, _, _ = deal(r, 3, 0, 0, None)
    assert len(st.wall) == size and Counter(st.wall) == Counter(tile_set(size))
    assert st.wall.count(FA) == 4


def _replay_rolls(rolls, n):
    """The dealer the logged rolls give: highest sum, ties re-roll among the tied."""
    it = iter(rolls)
    tied = list(range(n))
    while True:
        sums = {s: next(it) + next(it) for s in tied}
        top = max(sums.values())
        tied = [s for s in tied if sums[s] == top]
        if len(tied) == 1:
            assert next(it, None) is None, "rolls left over"
            return tied[0]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_first_dealer_by_dice_rolls_with_ties_rerolled(players):
    r = HM(players=players)
    rerolled = 0
    for seed in range(40):
        st, _, rolls = deal(r, seed, 0, 0, None)
        assert all(1 <= d <= 6 for d in rolls) and len(rolls) >= 2 * players
        assert st.dealer == _replay_rolls(rolls, players)
        rerolled += len(rolls) > 2 * players
    assert rerolled  # some seed needed a re-roll
    # logged with hand 0 of the match only
    played = list(play_match(r, make_agents(["greedy"] * players), seed=3, match=0, hands=2))
    assert played[0].hand_row()["dealer_rolls"] == list(deal(r, 3, 0, 0, None)[2])
    assert played[1].hand_row()["dealer_rolls"] is None


# (players, N, dealer, dice) → the break, from the seed's table and side starts
# 4 players: 下家 for 2/6/10, 对家 for 3/5/7/9/11, 上家 for 4/8/12; 3 players: t = 2 for
# 4/8/12, else 1; 2 players: t = 1. Sides: 34 positions each (136, 4 players), 44/46/46
# (136, 3 players: stacks 0, 22, 45), 68 (136, 2 players), 30 (120, 4 players).
@pytest.mark.parametrize(
    "n, N, dealer, dice, b",
    [
        (4, 136, 0, (3, 4), 74),  # 7 → 对家 (side 2 at 68) + 2 × 3
        (4, 136, 0, (1, 1), 36),  # 2 → 下家 (side 1 at 34) + 2
        (4, 136, 0, (2, 2), 106),  # 4 → 上家 (side 3 at 102) + 4
        (4, 136, 0, (6, 6), 114),  # 12 → 上家 + 12
        (4, 136, 0, (4, 1), 70),  # 5 (lands on the dealer) → 对家 + 2
        (4, 136, 2, (5, 5), 112),  # 10 → 下家 of seat 2 = side 3 + 10
        (4, 136, 3, (6, 3), 34 + 6),  # 9 → 对家 of seat 3 = side 1 + 6
        (3, 136, 0, (2, 2), 94),  # 4 → t = 2: side 2 at 90 + 4
        (3, 136, 0, (1, 2), 46),  # 3 → t = 1: side 1 at 44 + 2
        (3, 136, 1, (6, 6), 12),  # 12 → t = 2: side 0 + 12
        (2, 136, 0, (6, 5), 78),  # t = 1: side 1 at 68 + 10
        (2, 136, 1, (6, 5), 10),
        (4, 120, 0, (3, 4), 66),  # 120 tiles: side 2 at 60 + 6
    ],
)
def test_break_position_follows_the_seeds_table(n, N, dealer, dice, b):
    assert break_position("huangmei", dice, dealer, n, N) == b


def test_logged_wall_is_read_from_the_break():
    for players in (2, 3, 4):
        r = HM(players=players)
        st, _, _ = deal(r, 9, 0, 0, None)
        assert st.break_pos == break_position("huangmei", st.dice, st.dealer, players, 136)
        assert side_start(1, players, 136) in (34, 44, 68)


# ---------------------------------------------------------------- dealt 发


def test_dealer_lays_out_a_dealt_fa_before_its_first_action():
    st, _ = run({0: "6z123m456m789m123s 9p"}, stop=True, scripts={0: ["discard 9p"]})
    first = st.wall[-1]
    assert evs(st)[:3] == [
        (BONUS, 0, FA, None),
        (DRAW, 0, first, "tail"),
        (DISCARD, 0, T("9p"), None),
    ]
    assert st.bonus[0] == 1 and st.hands[0][FA] == 0


def test_non_dealer_lays_out_dealt_fa_before_its_first_front_draw():
    hands = {0: "123m456m789m1234s 9p", 1: "66z123p456p789p11s"}
    st, _ = run(hands, draws="5s", tail="2s 3s", scripts={1: ["discard 5s"]}, stop=True)
    assert evs(st, seat=1)[:5] == [
        (BONUS, 1, FA, None),
        (DRAW, 1, T("2s"), "tail"),
        (BONUS, 1, FA, None),
        (DRAW, 1, T("3s"), "tail"),
        (DRAW, 1, T("5s"), "live"),
    ]
    assert st.bonus[1] == 2


def test_dealt_fa_is_dead_but_may_pon_then_discards_another_tile():
    # seat 1's 发发 would be the pair of 123m456m789m111s: no win on the dealer's 1s;
    # it may pon the 1s and must then discard something other than 发
    hands = {
        0: "123p456p789p2345s 1s",
        1: "66z123m456m789m11s",
        2: "111z222z333z444z7z",
        3: "55z77z112233445p",
    }  # no other 发 comes out before seat 1's turn
    st, ag = run(
        hands,
        tail="2p 3p",
        draws="9m 9m 9m 4p",
        scripts={1: ["pon 1s", "discard 9m", "discard 4p"]},
        stop=True,
    )
    assert offered(ag[1], WIN) == 0
    after_pon = ag[1].offers[1]
    assert all(o.type == DISCARD and o.tile != FA for o in after_pon)
    assert evs(st, seat=1)[:7] == [
        ("pon", 1, T("1s"), None),
        (DISCARD, 1, T("9m"), None),
        (BONUS, 1, FA, None),
        (DRAW, 1, T("2p"), "tail"),
        (BONUS, 1, FA, None),
        (DRAW, 1, T("3p"), "tail"),
        (DRAW, 1, T("4p"), "live"),
    ]


def test_dealt_fa_laid_out_before_an_exposed_kongs_tail_draw_and_gangshanghua():
    # seat 1 kongs the dealer's 5m before its first turn: its 发 goes out first, then
    # the kong's replacement completes the hand. The chain began with the kong.
    hands = {0: "123s456s789s1234m 5m", 1: "6z555m123p456p789p"}
    st, _ = run(
        hands, tail="1s 1s", rules=HM(rob_exposed_kong=False), scripts={1: ["kong 5m", "win 1s"]}
    )
    assert evs(st, seat=1)[:4] == [
        (KONG, 1, T("5m"), "exposed"),
        (BONUS, 1, FA, None),
        (DRAW, 1, T("1s"), "tail"),
        (DRAW, 1, T("1s"), "tail"),
    ]
    # 平胡 1 + 发财 1 + 单吊 1 + 明杠 1 + 杠上开花 5, paid as a self-draw
    assert wins(st) == [
        (1, None, "self_draw", ("pinghu", "facai", "dandiao", "minggang_shu", "gangshanghua"), 9, 9)
    ]
    assert pays(st) == [(0, 1, 9, "win"), (2, 1, 9, "win"), (3, 1, 9, "win")]
    assert st.next_dealer == 1


# ---------------------------------------------------------------- drawn 发, chains


TANKI_5P = {0: "123s456s789s1234m 9m", 1: "123m456m789m123p 5p"}


def test_drawn_fa_laid_out_at_once_and_caishangkaihua():
    st, _ = run(TANKI_5P, draws="6z", tail="5p", scripts={1: ["win 5p"]})
    assert evs(st, seat=1)[:3] == [
        (DRAW, 1, FA, "live"),
        (BONUS, 1, FA, None),
        (DRAW, 1, T("5p"), "tail"),
    ]
    assert wins(st) == [
        (1, None, "self_draw", ("pinghu", "menqing", "facai", "dandiao", "caishangkaihua"), 6, 6)
    ]
    assert pays(st) == [(0, 1, 6, "win"), (2, 1, 6, "win"), (3, 1, 6, "win")]


def test_replacement_fa_is_laid_out_again():
    st, _ = run(TANKI_5P, draws="6z", tail="6z 6z 5p", scripts={1: ["win 5p"]})
    assert evs(st, seat=1)[:7] == [
        (DRAW, 1, FA, "live"),
        (BONUS, 1, FA, None),
        (DRAW, 1, FA, "tail"),
        (BONUS, 1, FA, None),
        (DRAW, 1, FA, "tail"),
        (BONUS, 1, FA, None),
        (DRAW, 1, T("5p"), "tail"),
    ]
    assert st.wins[0].patterns.count("facai") == 3 and st.wins[0].fan == 8


def test_all_four_fa_count_eight():
    hands = {0: "123s456s789s1234m 9m", 1: "6z123m456m789m123p"}
    st, _ = run(hands, draws="6z", tail="5p 6z 6z 5p", scripts={1: ["win 5p"]})
    # the dealt 发 goes out before the first front draw (its replacement 5p is kept),
    # then the drawn 发 and two more, and the win on the last replacement: 财上开花
    assert st.bonus[1] == 4
    assert wins(st) == [
        (
            1,
            None,
            "self_draw",
            ("pinghu", "menqing", *["facai"] * 4, "dandiao", "caishangkaihua"),
            13,
            13,
        )
    ]
    # 平胡 1, 门前清 1, all four 发 8 (not 4), 单吊 1, 财上开花 2


@pytest.mark.parametrize(
    "first, draws, tail, pattern, fan",
    [
        # a kong, then a 发 replacement, then the win: 杠上开花 (平胡 1, 暗杠 2, 发 1, 单吊 1, 5)
        ("kong", "1s", "6z 1s", "gangshanghua", 10),
        # a 发, whose replacement makes a kong, then the win: 财上开花 (… 2)
        ("bonus", "6z", "9m 1s", "caishangkaihua", 7),
    ],
)
def test_replacement_chain_counts_by_its_first_link(first, draws, tail, pattern, fan):
    hands = {
        0: "123s456s789s1234p 9p",
        1: "9999m123p456p789p" if first == "kong" else "999m123p456p789p1s",
    }
    st, _ = run(hands, draws=draws, tail=tail, scripts={1: ["kong 9m", "win 1s"]})
    w = st.wins[0]
    assert (w.method, w.fan) == ("self_draw", fan)
    assert pattern in w.patterns
    assert not {"gangshanghua", "caishangkaihua", "zimo"} - {pattern} & set(w.patterns)
    assert pays(st) == [(o, 1, fan, "win") for o in (0, 2, 3)]


def test_unreplaceable_fa_ends_the_hand_as_a_draw_without_payments():
    # the dealer holds three 发 (three tail replacements); the fourth is the last live
    # tile: 136 − 53 − 3 = 80 live draws
    hands = {0: "666z123m456m789m 1s 2s"}
    st, _ = run(hands, draws="? " * 79 + "6z")
    assert st.events[-2].type == BONUS and st.events[-2].tile == FA
    assert st.events[-3].type == DRAW and st.events[-3].tile == FA
    assert st.live == 0 and st.exhausted and st.transfers == [] and st.winners == []
    assert st.next_dealer == 1  # no winner: the dealer's 下家


# ---------------------------------------------------------------- min_fan, payment


# seat 1 pons the dealer's 8m (discarding 1m) and waits on 3p/6p: the seed's example
EXAMPLE = {0: "111z222z333z777z2m 8m", 1: "88m45p123s456s99s1m"}
EXAMPLE_SCRIPT = ["pon 8m", "discard 1m"]


def test_seed_example_discard_win_refused_self_draw_allowed():
    st, ag = run(EXAMPLE, draws="3p 9m 9m 6p", scripts={1: EXAMPLE_SCRIPT + ["win 6p"]})
    assert offered(ag[1], WIN, "3p") == 0
    assert wins(st) == [(1, None, "self_draw", ("pinghu", "zimo"), 2, 2)]
    assert pays(st) == [(0, 1, 2, "win"), (2, 1, 2, "win"), (3, 1, 2, "win")]
    assert st.next_dealer == 1


def test_min_fan_one_allows_the_discard_win():
    st, ag = run(EXAMPLE, draws="3p", rules=HM(min_fan=1), scripts={1: EXAMPLE_SCRIPT + ["win 3p"]})
    assert wins(st) == [(1, 2, "discard", ("pinghu",), 1, 1)]
    assert pays(st) == [(2, 1, 1, "win")]


@pytest.mark.parametrize(
    "sets, points",
    [
        (dict(payment="linear", base=2), 4),
        (dict(payment="doubling"), 1),  # 2^(2 − 2)
        (dict(payment="doubling", base=3), 3),
        (dict(payment="doubling", min_fan=0), 4),  # 2^(2 − 0)
    ],
)
def test_payment_key_in_the_engine(sets, points):
    st, _ = run(
        EXAMPLE,
        draws="3p 9m 9m 6p",
        rules=HM(**sets),
        scripts={
            1: EXAMPLE_SCRIPT + (["pass 3p"] if sets.get("min_fan") == 0 else []) + ["win 6p"]
        },
    )
    assert pays(st) == [(o, 1, points, "win") for o in (0, 2, 3)]


# ---------------------------------------------------------------- kongs


@pytest.mark.parametrize("rob", [True, False])
def test_rob_exposed_kong(rob):
    # seat 1 (the example hand) cannot win on the dealer's 3p (1 fan) but can rob seat
    # 3's kong of it (平胡 + 抢杠 = 6), paid by the kong player
    hands = dict(EXAMPLE)
    hands[3] = "333p444z555z123m7p"
    st, ag = run(
        hands,
        draws="9m 9m 3p",
        rules=HM(rob_exposed_kong=rob),
        stop=not rob,
        scripts={1: EXAMPLE_SCRIPT + (["win 3p"] if rob else []), 3: ["kong 3p"]},
    )
    if rob:
        assert wins(st) == [(1, 3, "robbed_kong", ("pinghu", "qiangganghu"), 6, 6)]
        assert pays(st) == [(3, 1, 6, "win")]
        assert st.melds[3] == [] and st.hands[3][T("3p")] == 3
        assert st.next_dealer == 1
    else:
        assert offered(ag[1], WIN) == 0 and st.wins == [] and pays(st) == []
        assert [(m.kind, m.tile) for m in st.melds[3]] == [(MeldKind.EXPOSED_KONG, T("3p"))]


def test_rob_exposed_kong_barred_for_who_passed_the_discard():
    # seat 2 could win on the dealer's 3p (平胡 + 门前清) and passes; seat 3 kongs it
    hands = {0: "111z222z333z777z2m 3p", 2: "45p123s456s99s789m", 3: "333p444z555z123m7p"}
    st, ag = run(hands, scripts={2: ["pass 3p"], 3: ["kong 3p"]}, stop=True)
    assert offered(ag[2], WIN, "3p") == 1 and st.wins == []


@pytest.mark.parametrize("late_rule", ["pays", "no_pay", "forbidden"])
def test_late_added_kong(late_rule):
    # seat 1 pons 1m holding the fourth; on its next turn it may add it (late) unless
    # forbidden. huangmei has no kong money either way.
    hands = {0: "123p456p789p2345s 1m", 1: "111m234s567s789s9p"}
    allowed = late_rule != "forbidden"
    st, ag = run(
        hands,
        draws="7m 7m 7m 7m",
        rules=HM(late_added_kong=late_rule),
        scripts={1: ["pon 1m", "discard 9p", "kong 1m" if allowed else "discard 7m"]},
        stop=True,
    )
    kinds = [o.kind for o in ag[1].offers[-1] if o is not None and o.type == KONG]
    assert kinds == (["added"] if allowed else [])
    assert pays(st) == []


# ---------------------------------------------------------------- dealer rotation


def test_several_winners_on_one_discard_next_dealer_is_the_discarder():
    # seat 1 discards the 5p it drew; seats 2 and 3 win (平胡 + 门前清 + 单吊 = 3 each)
    hands = {0: "123s456s789s1234m 9m", 2: "123m456m789m123p 5p", 3: "111s222s333s444s 5p"}
    st, _ = run(hands, draws="5p", scripts={2: ["win 5p"], 3: ["win 5p"]})
    assert [(w.seat, w.from_seat) for w in st.wins] == [(2, 1), (3, 1)]
    assert pays(st) == [(1, 2, 3, "win"), (1, 3, st.wins[1].points, "win")]
    assert st.events[-1].type == "end" and st.next_dealer == 1


def test_single_discard_winner_deals_next():
    hands = {0: "123s456s789s1234m 9m", 2: "123m456m789m123p 5p"}
    st, _ = run(hands, draws="5p", scripts={2: ["win 5p"]})
    assert pays(st) == [(1, 2, 3, "win")] and st.next_dealer == 2


def test_drawn_hand_no_payments_next_dealer_is_the_dealers_next_seat():
    st, _ = run({}, dealer=2)
    assert st.exhausted and st.winners == [] and st.transfers == []
    assert st.next_dealer == 3


def test_dealer_wins_on_its_dealt_fas_replacement_caishangkaihua():
    st, _ = run({0: "6z123m456m789m123p 5p"}, tail="5p", scripts={0: ["win 5p"]})
    assert evs(st)[:3] == [
        (BONUS, 0, FA, None),
        (DRAW, 0, T("5p"), "tail"),
        (WIN, 0, T("5p"), "self_draw"),
    ]
    assert wins(st) == [
        (0, None, "self_draw", ("pinghu", "menqing", "facai", "dandiao", "caishangkaihua"), 6, 6)
    ]
    assert pays(st) == [(1, 0, 6, "win"), (2, 0, 6, "win"), (3, 0, 6, "win")]
    assert st.next_dealer == 0


def test_haidilaoyue_on_the_last_live_tile():
    # seat 3 holds all four 发 (four tail draws at its first turn): 79 live draws, the
    # last one (k = 78) is seat 3's; it completes the hand (the other 5p stay with the
    # dealer, so no earlier 5p is offered)
    st, _ = run(
        {0: "55p111s222s333s44s 9s", 3: "6666z123m456m789m"},
        tail="1p 2p 3p 5p",
        draws="? " * 78 + "5p",
        scripts={3: ["win 5p"]},
    )
    assert st.live == 0
    assert wins(st) == [
        (
            3,
            None,
            "self_draw",
            ("pinghu", "menqing", *["facai"] * 4, "dandiao", "haidilaoyue"),
            16,
            16,
        )
    ]
    assert pays(st) == [(0, 3, 16, "win"), (1, 3, 16, "win"), (2, 3, 16, "win")]


def test_robbing_an_added_kong():
    # seat 3 pons seat 2's 3p and later adds the fourth; seat 1 (the example hand, which
    # may not win on a discarded 3p) robs it: 平胡 1 + 抢杠 5, paid by the kong player
    hands = dict(EXAMPLE)
    hands[3] = "33p444z555z123m77p"
    st, ag = run(
        hands,
        draws="3p 9m 9m 9m 3p",
        scripts={1: EXAMPLE_SCRIPT + ["win 3p"], 3: ["pon 3p", "discard 7p", "kong 3p"]},
    )
    assert offered(ag[1], WIN) == 1
    assert wins(st) == [(1, 3, "robbed_kong", ("pinghu", "qiangganghu"), 6, 6)]
    assert pays(st) == [(3, 1, 6, "win")]
    assert [(m.kind, m.tile) for m in st.melds[3]] == [(MeldKind.PON, T("3p"))]
    assert st.next_dealer == 1


def test_winds_false_hand_plays_on_120_tiles():
    r = HM(winds=False)
    st, _ = run(
        {0: "123s456s789s1234m 9m", 1: "123m456m789m123p 5p"},
        rules=r,
        draws="5p",
        scripts={1: ["win 5p"]},
    )
    assert len(st.wall) == 120 and not any(27 <= t <= 30 for t in st.wall)
    assert wins(st) == [(1, None, "self_draw", ("pinghu", "zimo", "menqing", "dandiao"), 4, 4)]


def test_a_discard_ends_a_chain_an_exposed_kong_starts_a_new_one():
    # reading: seat 1's drawn 发 and its replacement end with its discard; the exposed
    # kong it claims later starts a new chain, so its win on that replacement is
    # 杠上开花 (平胡 1, 发 1, 单吊 1, 明杠 1, 5), paid as a self-draw
    hands = {
        0: "123s456s789s1234m 9m",
        1: "555m123p456p789p9s",
        2: "111z222z333z444z7z",
        3: "55z77z112233m678m",
    }
    st, _ = run(
        hands,
        draws="6z 5m",
        tail="9m 9s",
        rules=HM(rob_exposed_kong=False),
        scripts={1: ["discard 9m", "kong 5m", "win 9s"]},
    )
    assert wins(st) == [
        (1, None, "self_draw", ("pinghu", "facai", "dandiao", "minggang_shu", "gangshanghua"), 9, 9)
    ]
    assert pays(st) == [(0, 1, 9, "win"), (2, 1, 9, "win"), (3, 1, 9, "win")]


def test_dealer_rotation_in_real_play():
    r = HM()
    prev = None
    for p in play_match(r, make_agents(["greedy"] * 4), seed=5, match=0, hands=12):
        st = p.state
        if prev is None:
            assert st.dealer == _replay_rolls(p.dealer_rolls, 4)
        else:
            assert st.dealer == prev and p.dealer_rolls is None
        batch = [w for w in st.wins if w.win_order == 1]
        expected = (
            (st.dealer + 1) % 4
            if not batch
            else batch[0].seat
            if len(batch) == 1
            else batch[0].from_seat
        )
        assert st.next_dealer == expected
        prev = st.next_dealer
