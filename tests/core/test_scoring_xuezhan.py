"""xuezhan scoring (docs/rules/xuezhan.md, "Patterns"): scripted hands in notation,
expectations by hand.

Each hand is the concealed tiles *including* the winning tile. Defaults: cap 16,
no extras, ``extras_stack = separate``, ``zimo_bonus = none``.
"""

from __future__ import annotations

import pytest

from mjlog.commands.score import parse_melds
from mjlog.rules import resolve
from mjlog.scoring import score
from mjlog.scoring.base import Method, Reason, WinContext
from mjlog.scoring.xuezhan import is_ready, ready_value
from mjlog.tiles import parse_counts, parse_tile

M = {
    "self": Method.SELF_DRAW,
    "discard": Method.DISCARD,
    "robbed": Method.ROBBED_KONG,
    "shilaotou": Method.SHILAOTOU,
}
R = resolve("xuezhan")


def win(hand, tile, method="discard", melds="", rules=R, **kw):
    c = WinContext(tuple(parse_counts(hand)), parse_melds(melds), parse_tile(tile), M[method], **kw)
    return score(c, rules)


def rules(**kw):
    return R.replace(**kw)


# (hand, tile, melds) -> (patterns, multiplier); on a discard, so points = min(mult, 16)
MAIN = [
    ("123m456m789m11p234p", "4p", "", ("pinghu",), 1),
    ("111m222m333p444p55p", "5p", "", ("pengpenghu",), 2),
    ("11123456788999m", "8m", "", ("qingyise",), 4),
    ("11335588m224466p", "6p", "", ("qidui",), 4),
    ("55m", "5m", "111m,222p,333p,444m", ("jingougou",), 4),
    # 碰碰胡 with the triplet reading beating 123m×3 + 444m (清一色 4)
    ("11122233344455m", "5m", "", ("qingpeng",), 8),
    ("1111m335577p99m22p", "2p", "", ("longqidui",), 8),
    # 清七对 is 16 (the standard readings are only 清一色)
    ("11223344556677m", "7m", "", ("qingqidui",), 16),
    ("55m", "5m", "111m,222m,333m,444m", ("qingjingougou",), 16),
    # 双龙七对 16, no 根 for its two fours
    ("1111m2222p3355m77p", "7p", "", ("shuanglongqidui",), 16),
    # 清龙七对 32, its four no 根
    ("11223344556666m", "6m", "", ("qinglongqidui",), 32),
    ("1111m2222m3333p55p", "5p", "", ("sanlongqidui",), 32),
    # 十八罗汉 absorbs its four kongs: 64, no 根
    ("55p", "5p", "1111m,c:2222p,a:3333p,4444m", ("shibaluohan",), 64),
    ("11112222335577m", "7m", "", ("qingshuanglongqidui",), 64),
    # the seven-pairs reading (128) beats 123m×4 + 55m with three 根 (4 × 8)
    ("11112222333355m", "5m", "", ("qingsanlongqidui",), 128),
    ("55m", "5m", "1111m,2222m,3333m,4444m", ("qingshibaluohan",), 256),
]


@pytest.mark.parametrize("hand,tile,melds,patterns,mult", MAIN)
def test_main_table(hand, tile, melds, patterns, mult):
    s = win(hand, tile, "discard", melds)
    assert s.legal and s.patterns == patterns
    assert s.multiplier == mult and s.fan == mult.bit_length() - 1
    assert (s.points, s.capped) == (min(mult, 16), mult > 16)
    assert not s.feeder_pays


# 根, bonuses, and how they multiply
GEN_AND_BONUS = [
    # a four in hand is one 根
    ("111123m456p789p55p", "1m", "discard", "", {}, ("pinghu", "gen"), 2),
    ("111123m444456p55p", "6p", "discard", "", {}, ("pinghu", "gen", "gen"), 4),
    # a kong is a 根
    ("111m222p333p44p", "4p", "discard", "5555m", {}, ("pengpenghu", "gen"), 4),
    # 金钩钩 with one kong: the kong is a 根 (金钩钩 contains no four)
    ("55m", "5m", "discard", "1111m,222p,333p,444m", {}, ("jingougou", "gen"), 8),
    # a pon plus the fourth tile in hand is a 根 too
    ("123m789p55p", "5p", "discard", "111m,c:2222p", {}, ("pinghu", "gen", "gen"), 4),
    # bonuses
    ("123m456m456p789p55p", "5m", "robbed", "", {}, ("pinghu", "qiangganghu"), 2),
    (
        "123m456p789p55p",
        "5p",
        "self",
        "c:9999m",
        {"after_kong": True},
        ("pinghu", "gen", "gangshanghua"),
        4,
    ),
    (
        "123m456m456p789p55p",
        "5m",
        "discard",
        "",
        {"after_kong": True},
        ("pinghu", "gangshangpao"),
        2,
    ),
    (
        "11223344556677m",
        "7m",
        "discard",
        "",
        {"after_kong": True},
        ("qingqidui", "gangshangpao"),
        32,
    ),
    # after_kong on a robbed kong means nothing
    ("123m456m456p789p55p", "5m", "robbed", "", {"after_kong": True}, ("pinghu", "qiangganghu"), 2),
    # no extras enabled: the situational flags change nothing
    (
        "123m456m456p789p55p",
        "5m",
        "self",
        "",
        {"last_tile": True, "first_turn": True, "dealer": True},
        ("pinghu",),
        1,
    ),
]


@pytest.mark.parametrize("hand,tile,method,melds,flags,patterns,mult", GEN_AND_BONUS)
def test_gen_and_bonuses(hand, tile, method, melds, flags, patterns, mult):
    s = win(hand, tile, method, melds, **flags)
    assert s.legal and (s.patterns, s.multiplier) == (patterns, mult)


def test_mult_overrides():
    r = resolve("xuezhan", sets=["mult.gen=4", "mult.qingqidui=32", "cap=1024"])
    assert win("111123m444456p55p", "6p", rules=r).multiplier == 16
    assert win("11223344556677m", "7m", rules=r).multiplier == 32


# extras: (hand, tile, method, melds, flags, extras, stack) -> (patterns, multiplier)
YAOJIU = "11123777888999m"  # 123 789 789 789 11: 清一色 + 带幺九 (or 123 777 888 999 11)
EXTRAS = [
    # 带幺九 ×4: a candidate beating 平胡; multiplies in
    ("123m789m123p789p99p", "9p", "discard", "", {}, "daiyaojiu", "separate", ("daiyaojiu",), 4),
    (
        "123m789m123p789p99p",
        "9p",
        "discard",
        "",
        {},
        "daiyaojiu",
        "multiply",
        ("pinghu", "daiyaojiu"),
        4,
    ),
    # never with seven pairs, even when every pair holds a 1 or 9
    ("1111m99m1199p1199s", "9s", "discard", "", {}, "daiyaojiu", "separate", ("longqidui",), 8),
    # 带幺九 counts the melds: a pon of 5m spoils it
    ("123m789m789p99p", "9p", "discard", "555m", {}, "daiyaojiu", "separate", ("pinghu",), 1),
    ("123m789m789p99p", "9p", "discard", "111p", {}, "daiyaojiu", "separate", ("daiyaojiu",), 4),
    # 断幺九 ×2
    ("234m567m345p678p55p", "5p", "discard", "", {}, "duanyaojiu", "separate", ("duanyaojiu",), 2),
    (
        "234m567m345p678p55p",
        "5p",
        "discard",
        "",
        {},
        "duanyaojiu",
        "multiply",
        ("pinghu", "duanyaojiu"),
        2,
    ),
    (
        "22446688m224466p",
        "6p",
        "discard",
        "",
        {},
        "duanyaojiu",
        "multiply",
        ("qidui", "duanyaojiu"),
        8,
    ),
    # 清一色 + 带幺九: tie between the main table and 带幺九 → the main pattern
    (YAOJIU, "1m", "discard", "", {}, "daiyaojiu", "separate", ("qingyise",), 4),
    (YAOJIU, "1m", "discard", "", {}, "daiyaojiu", "multiply", ("qingyise", "daiyaojiu"), 16),
    # 清幺九 takes the place of both
    (YAOJIU, "1m", "discard", "", {}, "qingyaojiu", "separate", ("qingyaojiu",), 16),
    (YAOJIU, "1m", "discard", "", {}, "daiyaojiu,qingyaojiu", "multiply", ("qingyaojiu",), 16),
    (
        YAOJIU,
        "1m",
        "discard",
        "",
        {},
        "qingyaojiu,menqing",
        "multiply",
        ("qingyaojiu", "menqing"),
        32,
    ),
    # 将对 ×8 takes the place of 碰碰胡
    ("222m555m888m22p555p", "2p", "discard", "", {}, "jiangdui", "separate", ("jiangdui",), 8),
    ("222m555m888m22p555p", "2p", "discard", "", {}, "jiangdui", "multiply", ("jiangdui",), 8),
    (
        "222m555m888m22p555p",
        "2p",
        "discard",
        "",
        {},
        "jiangdui,menqing",
        "multiply",
        ("jiangdui", "menqing"),
        16,
    ),
    # 将金钩钩 ×16 takes the place of 金钩钩; a 金钩钩 is no 碰碰胡, so no 将对
    (
        "22p",
        "2p",
        "discard",
        "222m,555m,888m,555p",
        {},
        "jiangjingougou",
        "separate",
        ("jiangjingougou",),
        16,
    ),
    (
        "22p",
        "2p",
        "discard",
        "222m,555m,888m,555p",
        {},
        "jiangjingougou",
        "multiply",
        ("jiangjingougou",),
        16,
    ),
    ("22p", "2p", "discard", "222m,555m,888m,555p", {}, "jiangdui", "multiply", ("jingougou",), 4),
    (
        "22p",
        "2p",
        "discard",
        "2222m,555m,888m,555p",
        {},
        "jiangjingougou",
        "multiply",
        ("jiangjingougou", "gen"),
        32,
    ),
    # a 十八罗汉 is no 金钩钩: 将金钩钩 does not hold on it
    (
        "22p",
        "2p",
        "discard",
        "2222m,5555m,8888m,5555p",
        {},
        "jiangjingougou,jiangdui",
        "multiply",
        ("shibaluohan",),
        64,
    ),
    (
        "22p",
        "2p",
        "discard",
        "2222m,5555m,8888m,5555p",
        {},
        "jiangjingougou,jiangdui",
        "separate",
        ("shibaluohan",),
        64,
    ),
    # 门清 ×2: a concealed kong and a discard win keep it; a pon breaks it
    ("123m456m789p123p55p", "5p", "discard", "", {}, "menqing", "separate", ("menqing",), 2),
    (
        "123m456p789p55p",
        "5p",
        "discard",
        "c:9999m",
        {},
        "menqing",
        "separate",
        ("menqing", "gen"),
        4,
    ),
    (
        "123m456p789p55p",
        "5p",
        "discard",
        "c:9999m",
        {},
        "menqing",
        "multiply",
        ("pinghu", "menqing", "gen"),
        4,
    ),
    ("123m456p789p55p", "5p", "discard", "999m", {}, "menqing", "multiply", ("pinghu",), 1),
    (
        "123m456p789p55p",
        "5p",
        "discard",
        "a:9999m",
        {},
        "menqing",
        "multiply",
        ("pinghu", "gen"),
        2,
    ),
    # not with seven pairs
    ("11335588m224466p", "6p", "discard", "", {}, "menqing", "multiply", ("qidui",), 4),
    # 天胡 / 地胡 ×32, self-draw only; 门清 is not counted beside them
    (
        "123m456m789p123p55p",
        "5p",
        "self",
        "",
        {"first_turn": True, "dealer": True},
        "tianhu,menqing",
        "multiply",
        ("pinghu", "tianhu"),
        32,
    ),
    (
        "123m456m789p123p55p",
        "5p",
        "self",
        "",
        {"first_turn": True},
        "dihu,menqing",
        "multiply",
        ("pinghu", "dihu"),
        32,
    ),
    (
        "123m456m789p123p55p",
        "5p",
        "self",
        "",
        {"first_turn": True},
        "tianhu,menqing",
        "multiply",
        ("pinghu", "menqing"),
        2,
    ),
    (
        "123m456m789p123p55p",
        "5p",
        "discard",
        "",
        {"first_turn": True, "dealer": True},
        "tianhu,dihu",
        "multiply",
        ("pinghu",),
        1,
    ),
    # separate: 天胡 as a candidate; an extra contains no four, so the 龙's four is a 根
    (
        "1111m335577p99m22p",
        "2p",
        "self",
        "",
        {"first_turn": True, "dealer": True},
        "tianhu",
        "separate",
        ("tianhu", "gen"),
        64,
    ),
    (
        "1111m335577p99m22p",
        "2p",
        "self",
        "",
        {"first_turn": True, "dealer": True},
        "tianhu",
        "multiply",
        ("longqidui", "tianhu"),
        256,
    ),
    # 海底捞月 ×2 on the last tile by self-draw or on the last discard
    (
        "123m456m789p123p55p",
        "5p",
        "self",
        "",
        {"last_tile": True},
        "haidilaoyue",
        "multiply",
        ("pinghu", "haidilaoyue"),
        2,
    ),
    (
        "11223344556677m",
        "7m",
        "discard",
        "",
        {"last_tile": True},
        "haidilaoyue",
        "multiply",
        ("qingqidui", "haidilaoyue"),
        32,
    ),
    (
        "11223344556677m",
        "7m",
        "discard",
        "",
        {"last_tile": True},
        "haidilaoyue",
        "separate",
        ("qingqidui",),
        16,
    ),
    (
        "123m456m456p789p55p",
        "5m",
        "robbed",
        "",
        {"last_tile": True},
        "haidilaoyue",
        "multiply",
        ("pinghu", "qiangganghu"),
        2,
    ),
    # separate, two extras tie: the one named first in the rulebook's list
    (
        "234m567m345p678p55p",
        "5p",
        "discard",
        "",
        {},
        "menqing,duanyaojiu",
        "separate",
        ("duanyaojiu",),
        2,
    ),
    (
        "234m567m345p678p55p",
        "5p",
        "discard",
        "",
        {},
        "menqing,duanyaojiu",
        "multiply",
        ("pinghu", "duanyaojiu", "menqing"),
        4,
    ),
    # extras sit before 根 and the bonuses
    (
        "234m567m345p678p55p",
        "5p",
        "discard",
        "",
        {"after_kong": True},
        "duanyaojiu,menqing",
        "multiply",
        ("pinghu", "duanyaojiu", "menqing", "gangshangpao"),
        8,
    ),
]


@pytest.mark.parametrize("hand,tile,method,melds,flags,extras,stack,patterns,mult", EXTRAS)
def test_extras(hand, tile, method, melds, flags, extras, stack, patterns, mult):
    r = resolve("xuezhan", sets=[f"extras={extras}", f"extras_stack={stack}", "cap=1024"])
    s = win(hand, tile, method, melds, r, **flags)
    assert s.legal and (s.patterns, s.multiplier) == (patterns, mult)


def test_disabled_extras_never_count():
    s = win(YAOJIU, "1m", "discard", rules=rules(extras_stack="multiply"))
    assert s.patterns == ("qingyise",)


# zimo_bonus: (method, melds, flags, bonus, dian_gang_hua) -> (points, capped, feeder)
PINGHU = "123m456m456p789p55p"
ZIMO = [
    (PINGHU, "5m", "self", "", {}, "none", 1, False),
    (PINGHU, "5m", "self", "", {}, "double", 2, False),
    (PINGHU, "5m", "self", "", {}, "add_base", 2, False),
    (PINGHU, "5m", "discard", "", {}, "double", 1, False),
    (PINGHU, "5m", "discard", "", {}, "add_base", 1, False),
    (PINGHU, "5m", "robbed", "", {}, "add_base", 2, False),  # 抢杠胡 ×2, no bonus
    ("11223344556677m", "7m", "self", "", {}, "none", 16, False),
    ("11223344556677m", "7m", "self", "", {}, "double", 16, True),  # 32 > 16
    ("11223344556677m", "7m", "self", "", {}, "add_base", 17, False),
    ("11223344556666m", "6m", "self", "", {}, "add_base", 17, True),  # 32 capped, +1
    ("1133557799m22p44p", "4p", "self", "", {}, "double", 8, False),  # 七对 4 × 2
]


@pytest.mark.parametrize("hand,tile,method,melds,flags,bonus,points,capped", ZIMO)
def test_zimo_bonus(hand, tile, method, melds, flags, bonus, points, capped):
    s = win(hand, tile, method, melds, rules(zimo_bonus=bonus), **flags)
    assert (s.points, s.capped) == (points, capped)


def test_zimo_bonus_with_base():
    s = win(PINGHU, "5m", "self", rules=rules(zimo_bonus="add_base", base=5))
    assert s.points == 10
    s = win("11223344556677m", "7m", "self", rules=rules(zimo_bonus="double", base=2))
    assert (s.points, s.multiplier, s.extra["units"]) == (32, 16, 32)


@pytest.mark.parametrize(
    "melds,rule,bonus,points,feeder",
    [
        # 点杠花 (exposed kong's replacement), the feeder pays alone: no zimo bonus
        ("9999m", "discarder_pays", "add_base", 4, True),
        ("9999m", "discarder_pays", "double", 4, True),
        # 点杠花 paid by every active player: the bonus applies
        ("9999m", "self_draw", "add_base", 5, False),
        ("9999m", "self_draw", "double", 8, False),
        # after a concealed or added kong: an ordinary self-draw
        ("c:9999m", "discarder_pays", "add_base", 5, False),
        ("a:9999m", "discarder_pays", "double", 8, False),
    ],
)
def test_dian_gang_hua(melds, rule, bonus, points, feeder):
    # 平胡 × 根 (the kong) × 杠上开花 = 4
    s = win(
        "123m456p789p55p",
        "5p",
        "self",
        melds,
        rules(dian_gang_hua=rule, zimo_bonus=bonus),
        after_kong=True,
    )
    assert (s.patterns, s.multiplier) == (("pinghu", "gen", "gangshanghua"), 4)
    assert (s.points, s.feeder_pays) == (points, feeder)


@pytest.mark.parametrize(
    "hand,tile,method,melds,flags,reason",
    [
        ("11223344556677m", "7m", "self", "", {"void": 0}, Reason.HOLDS_VOID),
        ("123m456m456p789p55p", "5m", "discard", "", {"void": 1}, Reason.HOLDS_VOID),
        ("123m456p789p55p", "5p", "discard", "999s", {"void": 2}, Reason.HOLDS_VOID),
        ("123m456m456p789p56p", "5m", "discard", "", {"void": 2}, Reason.NOT_A_WIN),
        ("123m456m456p789p56p", "5m", "discard", "", {"void": 0}, Reason.NOT_A_WIN),
        (
            "123m456m456p789p55p",
            "5m",
            "self",
            "",
            {"after_kong": True},
            Reason.NO_KONG_FOR_AFTER_KONG,
        ),
        ("123m456m456p789p55p", "5m", "shilaotou", "", {}, Reason.NOT_A_WIN),
    ],
)
def test_illegal(hand, tile, method, melds, flags, reason):
    s = win(hand, tile, method, melds, **flags)
    assert (s.legal, s.reason, s.points, s.patterns, s.multiplier) == (False, reason, 0, (), None)


def test_void_of_another_suit_is_fine():
    assert win("11223344556677m", "7m", "self", void=2).legal
    assert win("123m456m456p789p55p", "5m", "discard", void=2).legal


# 查大叫: (hand, melds, void, rule overrides) -> money per payer
READY = [
    ("1122334455667m", "", 2, {}, 16),  # 7m: 清七对
    ("1122334455667m", "", 2, {"cap": 8}, 8),
    ("1122334455667m", "", 2, {"base": 2}, 32),
    # 九莲: 1m or 9m make 清一色 with a 根 (8); other waits 清一色 (4)
    ("1112345678999m", "", 1, {}, 8),
    ("1112345678999m", "", 1, {"cap": 2}, 2),
    ("1112345678999m", "", None, {}, 8),
    # a 花猪 is never ready
    ("1112345678999m", "", 0, {}, 0),
    ("1112345678999m", "", 0, {"extras": "menqing"}, 0),
    # kong + 碰碰胡 on 4p (2 × 根 = 4) beats 123p×3 + 44p (平胡 × 根 = 2)
    ("111p222p333p4p", "5555m", 2, {}, 4),
    # extras count as for a win; separate: 门清 2 beats 平胡 1
    ("123m456m789p123p5p", "", 2, {"extras": "menqing"}, 2),
    ("123m456m789p123p5p", "", 2, {"extras": "menqing,duanyaojiu", "extras_stack": "multiply"}, 2),
    # 天胡, 地胡, 海底捞月 and the bonuses are left out
    (
        "123m456m789p123p5p",
        "",
        2,
        {"extras": "tianhu,dihu,haidilaoyue", "extras_stack": "multiply"},
        1,
    ),
    # no zimo_bonus
    ("123m456m789p123p5p", "", 2, {"zimo_bonus": "add_base"}, 1),
    ("123m456m789p123p5p", "", 2, {"zimo_bonus": "double"}, 1),
    # not ready
    ("1357m2468p13579m", "", 2, {}, 0),
    ("1111m234p567p789p", "", 2, {}, 0),
]


@pytest.mark.parametrize("hand,melds,void,overrides,value", READY)
def test_ready_value(hand, melds, void, overrides, value):
    r = resolve("xuezhan", sets=[f"{k}={v}" for k, v in overrides.items()])
    c, ms = parse_counts(hand), parse_melds(melds)
    assert ready_value(c, ms, r, void=void) == value
    from mjlog.scoring import ready_value as dispatched

    assert dispatched(c, ms, r, void=void) == value
    assert is_ready(c, ms, r, void=void) == (value > 0)


def test_ready_value_is_positive_exactly_when_ready_on_random_hands():
    # The exhaustive-draw settlement asks is_ready() first and ready_value() only
    # when someone pays 查大叫: the two must agree. Hands one tile from four sets
    # and a pair (suited only, so voids bite), drawn from a seeded stream.
    from mjlog.rng import Stream

    s = Stream(20261129)
    seen_ready = seen_not = 0
    for _ in range(1500):
        counts = [0] * 34
        groups = [("pair", s.below(27))] + [
            ("seq" if s.below(2) else "trip", s.below(27)) for _ in range(4)
        ]
        for kind, t in groups:
            if kind == "seq":
                t = 9 * (t // 9) + t % 9 % 7
                for k in (t, t + 1, t + 2):
                    counts[k] += 1
            else:
                counts[t] += 2 if kind == "pair" else 3
        if max(counts) > 4:
            continue
        held = [k for k in range(34) for _ in range(counts[k])]
        counts[held[s.below(len(held))]] -= 1
        void = s.below(4)
        void = None if void == 3 else void
        value = ready_value(counts, (), R, void=void)
        assert is_ready(counts, (), R, void=void) == (value > 0), (counts, void)
        seen_ready += value > 0
        seen_not += value == 0
    assert seen_ready > 100 and seen_not > 100


def _sets_and_a_pair(s, pick, kinds):
    """A hand of sets and a pair with 0-4 melds (sometimes 111222333-style, with
    several readings): its concealed counts and its melds."""
    from mjlog.melds import Meld

    counts = [0] * 34
    melds = []
    n_melds = s.below(5)
    for _ in range(n_melds):
        t = pick()
        melds.append(Meld(kinds[s.below(4)], t, 1))
    counts[pick()] += 2
    for _ in range(4 - n_melds):
        t = pick()
        if t < 27 and t % 9 < 7 and s.below(3):
            for k in (t, t + 1, t + 2):
                counts[k] += 1
        else:
            counts[t] += 3
    if s.below(8) == 0 and not melds:  # 111222333-style: several readings
        counts = [0] * 34
        a = 9 * s.below(3) + s.below(7)
        for k in (a, a + 1, a + 2):
            counts[k] += 3
        counts[pick()] += 3
        counts[pick()] += 2
    return counts, melds


def _random_wins(n: int, seed: int):
    """Seeded winning hands of every shape: sets and a pair with 0-4 melds (pons
    and kongs), seven pairs (some with fours), and hands with several readings."""
    from mjlog.melds import MeldKind
    from mjlog.rng import Stream

    s = Stream(seed)
    kinds = [MeldKind.PON, MeldKind.EXPOSED_KONG, MeldKind.ADDED_KONG, MeldKind.CONCEALED_KONG]
    out = []
    while len(out) < n:
        counts = [0] * 34
        melds = []
        suits = (0, 9, 18) if s.below(3) == 0 else (0, 9, 18, 27)[: 1 + s.below(4)]

        def pick(suits=suits):
            base = suits[s.below(len(suits))]
            return base + s.below(7 if base == 27 else 9)

        if s.below(6) == 0:  # seven pairs
            for _ in range(7):
                counts[pick() if s.below(4) else 4 * s.below(2)] += 2
        elif s.below(10) == 0:  # seven pairs that also read as sets: 112233 twice + a pair
            for _ in range(2):
                a = 9 * s.below(3) + s.below(7)
                for k in (a, a + 1, a + 2):
                    counts[k] += 2
            counts[pick()] += 2
        else:
            counts, melds = _sets_and_a_pair(s, pick, kinds)
        total = list(counts)
        for m in melds:
            total[m.tile] += m.size
        if max(total) > 4 or max(counts) > 4:
            continue
        held = [t for t in range(34) for _ in range(counts[t])]
        method = (Method.SELF_DRAW, Method.DISCARD, Method.ROBBED_KONG)[s.below(3)]
        out.append(
            WinContext(
                tuple(counts),
                tuple(melds),
                held[s.below(len(held))],
                method,
                after_kong=method is not Method.ROBBED_KONG and s.below(4) == 0,
            )
        )
    return out


@pytest.mark.parametrize(
    "sets",
    [
        [],
        ["mult.pengpenghu=1"],
        ["mult.pinghu=4", "mult.qidui=2"],
        ["mult.pinghu=4"],  # 七对 = 平胡: the sets reading comes first
        ["mult.qingyise=32", "mult.gen=4", "cap=256"],
    ],
)
def test_extras_free_scoring_matches_the_reading_by_reading_path(sets):
    # With no extra enabled a win is valued from its counts alone; with an extra
    # that never holds here (天胡: not a first turn), every reading is valued. The
    # two must agree on every figure, ties between readings included.
    plain = resolve("xuezhan", sets=sets)
    every = resolve("xuezhan", sets=[*sets, "extras=tianhu"])
    wins = _random_wins(3000, 7 + len(sets))
    assert sum(score(c, plain).legal for c in wins) > 2000
    for c in wins:
        a, b = score(c, plain), score(c, every)
        assert (a.legal, a.reason, a.patterns, a.multiplier, a.points, a.capped) == (
            b.legal,
            b.reason,
            b.patterns,
            b.multiplier,
            b.points,
            b.capped,
        ), c
