"""yuxi scoring (docs/rules/yuxi.md, "Patterns"): scripted hands in notation,
expectations computed by hand.

Each hand is the concealed tiles *including* the winning tile; melds use the
``mjlog score`` notation (three tiles a pon, four an exposed kong, ``c:``
concealed, ``a:`` added).
"""

from __future__ import annotations

import pytest

from mjlog.commands.score import parse_melds
from mjlog.rules import resolve
from mjlog.scoring import score
from mjlog.scoring.base import Method, Reason, WinContext
from mjlog.scoring.yuxi import ready_value
from mjlog.tiles import parse_counts, parse_tile

M = {
    "self": Method.SELF_DRAW,
    "discard": Method.DISCARD,
    "robbed": Method.ROBBED_KONG,
    "shilaotou": Method.SHILAOTOU,
}
R = resolve("yuxi")


def ctx(hand, tile, method="self", melds="", **kw):
    return WinContext(
        tuple(parse_counts(hand)), parse_melds(melds), parse_tile(tile), M[method], **kw
    )


def win(hand, tile, method="self", melds="", rules=R, **kw):
    return score(ctx(hand, tile, method, melds, **kw), rules)


# (hand with the winning tile, tile, method, melds, flags) -> (patterns, fan, points)
LEGAL = [
    # 平胡: self-draw only
    ("123m456p789s11z234m", "4m", "self", "", {}, ("pinghu",), 1, 1),
    # 碰碰胡 3 / 4 (honor triplets and pair are fine)
    ("111m222p333s444z55z", "5z", "self", "", {}, ("pengpenghu",), 1, 3),
    ("111m222p333s444z55z", "5z", "discard", "", {}, ("pengpenghu",), 1, 4),
    # 清一色 3 / 4
    ("11123456788999m", "8m", "self", "", {}, ("qingyise",), 1, 3),
    ("11123456788999m", "8m", "discard", "", {}, ("qingyise",), 1, 4),
    # seed example one: 清一色 + 碰碰胡 = 6 self / 8 discard (the triplet reading
    # beats 123m×3 + 444m, which is 清一色 alone)
    ("11122233344455m", "5m", "self", "", {}, ("pengpenghu", "qingyise"), 2, 6),
    ("11122233344455m", "5m", "discard", "", {}, ("pengpenghu", "qingyise"), 2, 8),
    # 小七对 3 / 4, and the seven-pairs reading beats the plain one
    ("1133557799m22p44s", "4s", "self", "", {}, ("qidui",), 1, 3),
    ("1133557799m22p44s", "4s", "discard", "", {}, ("qidui",), 1, 4),
    ("112233m445566p77s", "7s", "self", "", {}, ("qidui",), 1, 3),
    ("112233m445566p77s", "7s", "discard", "", {}, ("qidui",), 1, 4),
    # 龙七对 6 / 7, 2 番; replaces 小七对
    ("1111335577m99m22p", "2p", "self", "", {}, ("longqidui",), 2, 6),
    ("1111335577m99m22p", "2p", "discard", "", {}, ("longqidui",), 2, 7),
    # 清一色 + 小七对: 3×2 / 4×2
    ("11223344557799m", "9m", "self", "", {}, ("qingyise", "qidui"), 2, 6),
    ("11223344557799m", "9m", "discard", "", {}, ("qingyise", "qidui"), 2, 8),
    # 清一色 + 龙七对: 6×2 / 7×2, 3 番
    ("11112233445566m", "6m", "self", "", {}, ("qingyise", "longqidui"), 3, 12),
    ("11112233445566m", "6m", "discard", "", {}, ("qingyise", "longqidui"), 3, 14),
    # 杠上花 after a concealed or added kong: an ordinary self-draw, 3
    ("123m456p789s11z", "3m", "self", "c:5555m", {"after_kong": True}, ("gangshanghua",), 1, 3),
    ("123m456p789s11z", "3m", "self", "a:5555m", {"after_kong": True}, ("gangshanghua",), 1, 3),
    # seed example two: 清一色 + 碰碰胡 + 杠上花 = 12 self
    (
        "22233344455m",
        "5m",
        "self",
        "c:1111m",
        {"after_kong": True},
        ("pengpenghu", "qingyise", "gangshanghua"),
        3,
        12,
    ),
    # ... and 16 on the discard column: 点杠花, the feeder of the exposed kong pays
    (
        "22233344455m",
        "5m",
        "self",
        "1111m",
        {"after_kong": True},
        ("pengpenghu", "qingyise", "gangshanghua"),
        3,
        16,
    ),
    # the kong that counts is the last one made
    (
        "22233355m",
        "5m",
        "self",
        "1111m,c:9999p",
        {"after_kong": True},
        ("pengpenghu", "gangshanghua"),
        2,
        6,
    ),
    # 杠上炮: a discard right after the discarder's kong; 4, doubles the others
    ("123m456p789s11z234m", "4m", "discard", "", {"after_kong": True}, ("gangshangpao",), 1, 4),
    (
        "11123456788999m",
        "8m",
        "discard",
        "",
        {"after_kong": True},
        ("qingyise", "gangshangpao"),
        2,
        8,
    ),
    (
        "1111335577m99m22p",
        "2p",
        "discard",
        "",
        {"after_kong": True},
        ("longqidui", "gangshangpao"),
        3,
        14,
    ),
    # 抢杠胡 counts as a pattern: a plain hand robbing a kong wins 4
    ("123m456p789s11z567m", "6m", "robbed", "", {}, ("qiangganghu",), 1, 4),
    ("11234456678999m", "5m", "robbed", "", {}, ("qingyise", "qiangganghu"), 2, 8),
    # after_kong means nothing on a robbed kong
    ("123m456p789s11z567m", "6m", "robbed", "", {"after_kong": True}, ("qiangganghu",), 1, 4),
    # situational flags of other variants change nothing
    (
        "123m456p789s11z234m",
        "4m",
        "self",
        "",
        {"last_tile": True, "first_turn": True, "dealer": True},
        ("pinghu",),
        1,
        1,
    ),
    # 十老头: whatever the hand (13 tiles after the 10th discard), alone, 3
    ("1357m2468p13579s", "7z", "shilaotou", "", {}, ("shilaotou",), 1, 3),
    ("11122233344455m", "1z", "shilaotou", "", {}, ("shilaotou",), 1, 3),
]


@pytest.mark.parametrize("hand,tile,method,melds,flags,patterns,fan,points", LEGAL)
def test_legal_wins(hand, tile, method, melds, flags, patterns, fan, points):
    s = win(hand, tile, method, melds, **flags)
    assert s.legal and s.reason is None
    assert s.patterns == patterns
    assert (s.fan, s.points, s.multiplier, s.capped) == (fan, points, None, False)


@pytest.mark.parametrize(
    "melds,rule,feeder,points",
    [
        ("1111m", "discarder_pays", True, 16),
        ("1111m", "self_draw", False, 12),
        ("a:1111m", "discarder_pays", False, 12),
        ("c:1111m", "discarder_pays", False, 12),
    ],
)
def test_dian_gang_hua(melds, rule, feeder, points):
    s = win("22233344455m", "5m", "self", melds, R.replace(dian_gang_hua=rule), after_kong=True)
    assert (s.feeder_pays, s.points) == (feeder, points)


def test_plain_hand_on_discard_is_illegal_with_its_would_be_value():
    s = win("123m456p789s11z234m", "4m", "discard")
    assert not s.legal and s.reason is Reason.PLAIN_ON_DISCARD
    assert (s.points, s.patterns, s.fan) == (0, (), 0)
    assert s.extra["plain_points"] == 1
    # base scales the would-be money
    s = win("123m456p789s11z234m", "4m", "discard", rules=R.replace(base=5))
    assert s.extra["plain_points"] == 5
    # a discard value for 平胡, if set, is the one used
    s = win(
        "123m456p789s11z234m", "4m", "discard", rules=resolve("yuxi", sets=["points.pinghu=1/2"])
    )
    assert s.legal and s.points == 2


def test_a_plain_hand_in_the_last_four_under_last4_plain_on_discard():
    last4 = R.replace(last4_plain_on_discard=True)
    c = ctx("123m456p789s11z234m", "4m", "discard")._replace(forced_zone=True)
    s = score(c, last4)
    assert s.legal and (s.patterns, s.fan, s.points) == (("pinghu",), 1, 1)
    # outside the last four, or without the key, no win
    assert score(c._replace(forced_zone=False), last4).reason is Reason.PLAIN_ON_DISCARD
    assert score(c, R).reason is Reason.PLAIN_ON_DISCARD
    # a win that is legal anyway is unchanged
    c = ctx("11122233344455m", "5m", "discard")
    assert score(c._replace(forced_zone=True), last4) == score(c, R)


@pytest.mark.parametrize(
    "hand,tile,method,melds,flags,reason",
    [
        ("123m456p789s12z34m", "4m", "self", "", {}, Reason.NOT_A_WIN),
        ("123m456p789s11z2m", "2m", "self", "", {}, Reason.NOT_A_WIN),  # 13 tiles
        (
            "123m456p789s11z234m",
            "4m",
            "self",
            "",
            {"after_kong": True},
            Reason.NO_KONG_FOR_AFTER_KONG,
        ),
        (
            "123m456p789s11z",
            "3m",
            "self",
            "888p",
            {"after_kong": True},
            Reason.NO_KONG_FOR_AFTER_KONG,
        ),
    ],
)
def test_illegal(hand, tile, method, melds, flags, reason):
    s = win(hand, tile, method, melds, **flags)
    assert (s.legal, s.reason, s.points, s.patterns) == (False, reason, 0, ())


def test_cap_and_base():
    # 清一色 + 龙七对 + 杠上炮 on a discard: 7 × 2 × 2 = 28
    args = ("11112233445566m", "6m", "discard")
    s = win(*args, after_kong=True)
    assert (s.points, s.capped, s.extra["units"]) == (28, False, 28)
    s = win(*args, rules=R.replace(cap=16), after_kong=True)
    assert (s.points, s.capped, s.extra["units"], s.fan) == (16, True, 28, 4)
    s = win(*args, rules=R.replace(cap=16, base=3), after_kong=True)
    assert (s.points, s.capped) == (48, True)
    s = win(*args, rules=R.replace(base=2), after_kong=True)
    assert (s.points, s.capped) == (56, False)
    # exactly at the cap is not capped
    s = win(*args, rules=R.replace(cap=28), after_kong=True)
    assert (s.points, s.capped) == (28, False)


def test_points_overrides():
    r = resolve("yuxi", sets=["points.longqidui=8/9", "points.qingyise=5/6"])
    assert win("11112233445566m", "6m", "self", rules=r).points == 16  # 8 × 2
    assert win("11123456788999m", "8m", "discard", rules=r).points == 6


def test_dash_column_doubles_but_is_never_the_base():
    r = resolve("yuxi", sets=["points.qingyise=-/4"])
    # 清一色 + 碰碰胡 by self-draw: the base is 碰碰胡's 3, 清一色 doubles it
    s = win("11122233344455m", "5m", "self", rules=r)
    assert (s.patterns, s.points) == (("pengpenghu", "qingyise"), 6)
    # 清一色 alone by self-draw has no self-draw value: no win
    s = win("11123456788999m", "8m", "self", rules=r)
    assert (s.legal, s.reason) == (False, Reason.NOT_A_WIN) and "why" in s.extra
    # a '-' on the discard column: a discard win needs a pattern valued there
    r = resolve("yuxi", sets=["points.qingyise=3/-"])
    s = win("11123456788999m", "8m", "discard", rules=r)
    assert (s.legal, s.reason, s.extra["plain_points"]) == (False, Reason.PLAIN_ON_DISCARD, 1)
    s = win("11123456788999m", "8m", "discard", rules=r, after_kong=True)  # + 杠上炮
    assert (s.patterns, s.points) == (("qingyise", "gangshangpao"), 8)


def test_shilaotou_needs_honors():
    s = win("1357m2468p13579s", "7z", "shilaotou", rules=R.replace(honors=False))
    assert (s.legal, s.reason) == (False, Reason.NOT_A_WIN)
    s = win(
        "1357m2468p13579s",
        "7z",
        "shilaotou",
        rules=resolve("yuxi", sets=["points.shilaotou=5/-", "cap=4"]),
    )
    assert (s.points, s.capped) == (4, True)


@pytest.mark.parametrize(
    "hand,melds,rules,value",
    [
        # waits 3m/6m (清一色 3) and 5m (清一色 + 碰碰胡 6): the best
        ("1112223334445m", "", {}, 6),
        ("1112223334445m", "", {"cap": 4}, 4),
        ("1112223334445m", "", {"base": 3}, 18),
        # a single plain wait on 1z
        ("123m456p789s1z234m", "", {}, 1),
        # seven pairs waiting on 4s: 小七对 3
        ("1133557799m22p4s", "", {}, 3),
        # a pon: 碰碰胡 on 5p
        ("222333444m5p", "111p", {}, 3),
        # the only wait is a fifth 1m: not ready
        ("1111m234p567p789p", "", {}, 0),
        ("1357m2468p13579s", "", {}, 0),
    ],
)
def test_ready_value(hand, melds, rules, value):
    r = R.replace(**rules)
    assert ready_value(parse_counts(hand), parse_melds(melds), r) == value
    # the dispatcher gives the same
    from mjlog.scoring import ready_value as dispatched

    assert dispatched(parse_counts(hand), parse_melds(melds), r) == value
