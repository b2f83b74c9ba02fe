"""Huangmei scoring: scripted hands in notation, expected values computed by hand.

Each row: concealed tiles *including* the winning tile, melds (``kind:tile``, kind
a MeldKind value: pon, exposed, added, concealed), the winning tile, the method,
extra WinContext fields, then the expected patterns (in table order) and fan.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mjlog.errors import InputError
from mjlog.melds import Meld, MeldKind
from mjlog.rules import resolve
from mjlog.scoring import ready_value as dispatch_ready_value
from mjlog.scoring import score as dispatch_score
from mjlog.scoring.base import Method, Reason, WinContext
from mjlog.scoring.huangmei import PATTERNS, is_ready, ready_value, score
from mjlog.tiles import parse_counts, parse_tile

SD, DC, RK = Method.SELF_DRAW, Method.DISCARD, Method.ROBBED_KONG


def melds(spec: str) -> tuple[Meld, ...]:
    out = []
    for item in spec.split():
        kind, tile = item.split(":")
        k = MeldKind(kind)
        out.append(Meld(k, parse_tile(tile), None if k is MeldKind.CONCEALED_KONG else 1))
    return tuple(out)


def ctx(hand: str, meld_spec: str = "", win: str | None = None, method=DC, **kw) -> WinContext:
    counts = parse_counts(hand)
    return WinContext(tuple(counts), melds(meld_spec), parse_tile(win), method, **kw)


RULES = resolve("huangmei")

# The seed's worked example: a pon of 8m, waiting on 3p/6p (45p).
SEED = "123m345p456s77s"
# A kong of 8m, the same concealed tiles.
KONG = "exposed:8m"

ROWS = [
    # --- the seed's example and its note
    pytest.param(SEED, "pon:8m", "3p", DC, {}, ["pinghu"], 1, id="seed-discard-1fan"),
    pytest.param(SEED, "pon:8m", "3p", SD, {}, ["pinghu", "zimo"], 2, id="seed-selfdraw-2fan"),
    # 8889m waits 7m and 9m: neither 边张 nor 单吊
    pytest.param(
        "123p456p789s78889m", "", "7m", DC, {}, ["pinghu", "menqing"], 2, id="seed-note-8889-7m"
    ),
    pytest.param(
        "123p456p789s88899m", "", "9m", DC, {}, ["pinghu", "menqing"], 2, id="seed-note-8889-9m"
    ),
    # --- 卡档 / 边张 / 单吊, single wait only
    pytest.param(
        "123m456m789p123s55s", "", "8p", DC, {}, ["pinghu", "menqing", "kadang"], 3, id="kadang"
    ),
    pytest.param(
        "123m456m123p789s55s",
        "",
        "3p",
        DC,
        {},
        ["pinghu", "menqing", "bianzhang"],
        3,
        id="bianzhang-12-3",
    ),
    pytest.param(
        "123m456m789p789s55s",
        "",
        "7p",
        DC,
        {},
        ["pinghu", "menqing", "bianzhang"],
        3,
        id="bianzhang-89-7",
    ),
    pytest.param(
        "123m456m789p123s55s", "", "5s", DC, {}, ["pinghu", "menqing", "dandiao"], 3, id="dandiao"
    ),
    pytest.param(
        "123m456m456p789s55s", "", "6p", DC, {}, ["pinghu", "menqing"], 2, id="two-sided-no-fan"
    ),
    # 1233s waits only 3s: 边张 (12+3) or 单吊 (33); one counts, ties in table order
    pytest.param(
        "123m456m789p12333s",
        "",
        "3s",
        DC,
        {},
        ["pinghu", "menqing", "bianzhang"],
        3,
        id="bianzhang-or-dandiao",
    ),
    # a caller's single_wait is trusted
    pytest.param(
        "123p456p789s78889m",
        "",
        "7m",
        DC,
        {"single_wait": True},
        ["pinghu", "menqing", "bianzhang"],
        3,
        id="single-wait-given",
    ),
    pytest.param(
        "123m456m789p123s55s",
        "",
        "8p",
        DC,
        {"single_wait": False},
        ["pinghu", "menqing"],
        2,
        id="single-wait-given-false",
    ),
    # --- 碰碰胡 (with 门前清 and 单吊), two-way waits
    pytest.param(
        "111m222p333s444s11z",
        "",
        "1z",
        DC,
        {},
        ["pinghu", "menqing", "dandiao", "pengpenghu"],
        18,
        id="pengpenghu-dandiao",
    ),
    pytest.param(
        "111m222p999s33z444z",
        "",
        "4z",
        DC,
        {},
        ["pinghu", "menqing", "pengpenghu"],
        17,
        id="pengpenghu-shanpon",
    ),
    # --- 全求人: four exposed melds, pair from a discard
    pytest.param(
        "55p",
        "pon:1m pon:2p exposed:3s added:9s",
        "5p",
        DC,
        {},
        ["pinghu", "minggang_shu", "minggang_shu", "quanqiuren"],
        33,
        id="quanqiuren",
    ),
    pytest.param(
        "55p",
        "pon:1m pon:2p exposed:3s added:9s",
        "5p",
        SD,
        {},
        ["pinghu", "zimo", "dandiao", "minggang_shu", "minggang_shu", "pengpenghu"],
        20,
        id="quanqiuren-selfdraw-is-pengpenghu",
    ),
    pytest.param(
        "55p",
        "pon:1m pon:2p pon:4s concealed:9s",
        "5p",
        DC,
        {},
        ["pinghu", "dandiao", "angang_shu", "pengpenghu"],
        19,
        id="four-melds-one-concealed-not-quanqiuren",
    ),
    # --- 七一对
    pytest.param("1122m3344p5566s77z", "", "7z", DC, {}, ["qidui"], 15, id="qidui-discard"),
    pytest.param(
        "1122m3344p5566s77z", "", "7z", SD, {}, ["zimo", "qidui"], 16, id="qidui-selfdraw"
    ),
    # four 中 inside seven pairs: two pairs, no 暗刻/暗杠 fan
    pytest.param("1122m3344p55s7777z", "", "5s", DC, {}, ["qidui"], 15, id="qidui-four-zhong"),
    pytest.param(
        "1122335566m1155z", "", "1z", DC, {}, ["qidui", "hunyise"], 30, id="qidui-hunyise"
    ),
    pytest.param(
        "1122335566m1155z",
        "",
        "1z",
        SD,
        {"bonus": 2},
        ["zimo", "facai", "facai", "qidui", "hunyise"],
        33,
        id="qidui-zimo-facai",
    ),
    pytest.param(
        "1122m3344p5566s77z",
        "",
        "7z",
        SD,
        {"after_bonus": True, "bonus": 1},
        ["facai", "caishangkaihua", "qidui"],
        18,
        id="qidui-caishangkaihua",
    ),
    # seven pairs beat the standard readings (123 123 456 456 77 ...)
    pytest.param(
        "11223344556677m",
        "",
        "7m",
        SD,
        {},
        ["zimo", "qidui", "qingyise"],
        31,
        id="qidui-beats-standard",
    ),
    # --- 清一色 / 混一色 (laid-out 发 never spoil them)
    pytest.param(
        "111m345m678m999m55m",
        "",
        "4m",
        DC,
        {},
        ["pinghu", "menqing", "qingyise"],
        17,
        id="qingyise-multiwait",
    ),
    pytest.param(
        "111m345m678m999m55m",
        "",
        "4m",
        DC,
        {"bonus": 1},
        ["pinghu", "menqing", "facai", "qingyise"],
        18,
        id="qingyise-with-facai",
    ),
    pytest.param(
        "123m456m789m111z22z",
        "",
        "2z",
        DC,
        {},
        ["pinghu", "menqing", "dandiao", "hunyise"],
        18,
        id="hunyise",
    ),
    # all honors (字一色) counts as 混一色 (ziyise_hunyise, default true; false:
    # tests/core/test_rule_keys_both_ways.py)
    pytest.param(
        "111z222z333z444z55z",
        "",
        "5z",
        DC,
        {},
        ["pinghu", "menqing", "dandiao", "pengpenghu", "hunyise"],
        33,
        id="all-honors-hunyise",
    ),
    # --- 中/白 pons, kongs, concealed triplets; winds earn nothing
    pytest.param(
        "123m456p77s",
        "pon:5z pon:7z",
        "7s",
        DC,
        {},
        ["pinghu", "dandiao", "peng_zhongbai", "peng_zhongbai"],
        4,
        id="peng-zhongbai",
    ),
    pytest.param(
        "123m456p77s",
        "exposed:7z added:5z",
        "7s",
        DC,
        {},
        ["pinghu", "dandiao", "minggang_zhongbai", "minggang_zhongbai"],
        8,
        id="minggang-zhongbai",
    ),
    pytest.param(
        "123m456p77s",
        "concealed:7z concealed:5m",
        "7s",
        DC,
        {},
        ["pinghu", "dandiao", "angang_shu", "angang_zhongbai"],
        8,
        id="angang-no-menqing",
    ),
    pytest.param(
        "123p456p789p11s",
        "exposed:5m",
        "1s",
        DC,
        {},
        ["pinghu", "dandiao", "minggang_shu"],
        3,
        id="minggang-shu",
    ),
    pytest.param(
        "123p456p789p11s",
        "added:5m",
        "1s",
        DC,
        {},
        ["pinghu", "dandiao", "minggang_shu"],
        3,
        id="added-kong-shu",
    ),
    pytest.param(
        "123m456p789s11s777z",
        "",
        "1s",
        SD,
        {},
        ["pinghu", "zimo", "menqing", "dandiao", "anke_zhongbai"],
        6,
        id="anke-zhongbai-selfdraw",
    ),
    # 77z + 11s waits 7z and 1s: a discarded 中 completes an open triplet
    pytest.param(
        "123m456p789s11s777z",
        "",
        "7z",
        DC,
        {},
        ["pinghu", "menqing"],
        2,
        id="zhong-triplet-by-discard-not-concealed",
    ),
    pytest.param(
        "123m456p789s11s777z",
        "",
        "7z",
        SD,
        {},
        ["pinghu", "zimo", "menqing", "anke_zhongbai"],
        5,
        id="zhong-triplet-selfdrawn",
    ),
    # the discard completes the pair: the 中 triplet stays concealed
    pytest.param(
        "123m456p789s11s777z",
        "",
        "1s",
        DC,
        {},
        ["pinghu", "menqing", "dandiao", "anke_zhongbai"],
        5,
        id="anke-zhongbai-discard-on-pair",
    ),
    pytest.param(
        "123m55p",
        "pon:1z exposed:2z concealed:3z",
        "5p",
        DC,
        {},
        ["pinghu", "dandiao"],
        2,
        id="winds-earn-nothing",
    ),
    pytest.param(
        "123m456p789s111z55s",
        "",
        "5s",
        SD,
        {},
        ["pinghu", "zimo", "menqing", "dandiao"],
        4,
        id="wind-triplet-nothing",
    ),
    # --- 发财: 1 per 发, four = 8
    pytest.param(SEED, "pon:8m", "3p", DC, {"bonus": 1}, ["pinghu", "facai"], 2, id="facai-1"),
    pytest.param(
        SEED, "pon:8m", "3p", DC, {"bonus": 2}, ["pinghu"] + ["facai"] * 2, 3, id="facai-2"
    ),
    pytest.param(
        SEED, "pon:8m", "3p", DC, {"bonus": 3}, ["pinghu"] + ["facai"] * 3, 4, id="facai-3"
    ),
    pytest.param(
        SEED, "pon:8m", "3p", DC, {"bonus": 4}, ["pinghu"] + ["facai"] * 4, 9, id="facai-4-is-8"
    ),
    pytest.param(
        "123m456m456p789s55s",
        "",
        "6p",
        DC,
        {"bonus": 1},
        ["pinghu", "menqing", "facai"],
        3,
        id="facai-keeps-menqing",
    ),
    # --- replacement wins and the last tile: no 自摸 fan
    pytest.param(
        SEED,
        "pon:8m",
        "3p",
        SD,
        {"after_bonus": True, "bonus": 1},
        ["pinghu", "facai", "caishangkaihua"],
        4,
        id="caishangkaihua",
    ),
    pytest.param(
        SEED,
        KONG,
        "3p",
        SD,
        {"after_kong": True},
        ["pinghu", "minggang_shu", "gangshanghua"],
        7,
        id="gangshanghua",
    ),
    pytest.param(
        SEED,
        "pon:8m",
        "3p",
        SD,
        {"last_tile": True},
        ["pinghu", "haidilaoyue"],
        6,
        id="haidilaoyue",
    ),
    # 杠上开花 5 = 海底捞月 5: on equal fan 杠上开花 counts
    pytest.param(
        SEED,
        KONG,
        "3p",
        SD,
        {"after_kong": True, "last_tile": True},
        ["pinghu", "minggang_shu", "gangshanghua"],
        7,
        id="haidi-vs-gangshanghua",
    ),
    # 财上开花 2 < 海底捞月 5: 海底捞月 counts
    pytest.param(
        SEED,
        "pon:8m",
        "3p",
        SD,
        {"after_bonus": True, "last_tile": True, "bonus": 1},
        ["pinghu", "facai", "haidilaoyue"],
        7,
        id="haidi-beats-caishangkaihua",
    ),
    # flags that only count on a self-draw
    pytest.param(
        SEED, "pon:8m", "3p", DC, {"last_tile": True}, ["pinghu"], 1, id="last-discard-no-haidi"
    ),
    pytest.param(
        SEED,
        KONG,
        "3p",
        DC,
        {"after_kong": True},
        ["pinghu", "minggang_shu"],
        2,
        id="discard-after-kong-nothing",
    ),
    # --- 抢杠
    pytest.param(SEED, "pon:8m", "3p", RK, {}, ["pinghu", "qiangganghu"], 6, id="qiangganghu"),
    # --- best decomposition: 111222333m as triplets (碰碰胡) beats 123×3 (卡档)
    pytest.param(
        "111222333m999p77s",
        "",
        "2m",
        SD,
        {"single_wait": True},
        ["pinghu", "zimo", "menqing", "pengpenghu"],
        18,
        id="pengpenghu-beats-kadang",
    ),
    # --- a mixed hand: 中 pon, self-drawn 白 triplet, 2m kong, 混一色, 卡档, two 发
    pytest.param(
        "555z789m33m",
        "pon:7z exposed:2m",
        "8m",
        SD,
        {"bonus": 2},
        [
            "pinghu",
            "zimo",
            "facai",
            "facai",
            "kadang",
            "peng_zhongbai",
            "minggang_shu",
            "anke_zhongbai",
            "hunyise",
        ],
        1 + 1 + 2 + 1 + 1 + 1 + 2 + 15,
        id="mixed",
    ),
]


@pytest.mark.parametrize("hand,meld_spec,win,method,kw,patterns,fan", ROWS)
def test_table(hand, meld_spec, win, method, kw, patterns, fan):
    s = score(ctx(hand, meld_spec, win, method, **kw), RULES)
    assert list(s.patterns) == patterns
    assert s.fan == fan
    assert s.legal is (fan >= 2)
    assert s.points == (fan if fan >= 2 else 0)
    assert s.reason is (None if fan >= 2 else Reason.BELOW_MIN_FAN)
    assert s.multiplier is None and s.capped is False


def test_patterns_in_table_order():
    keys = list(PATTERNS)
    for row in ROWS:
        pats = row.values[5]
        assert pats == sorted(pats, key=keys.index)
    assert keys == [
        "pinghu",
        "zimo",
        "menqing",
        "facai",
        "kadang",
        "bianzhang",
        "dandiao",
        "peng_zhongbai",
        "minggang_shu",
        "anke_zhongbai",
        "angang_shu",
        "caishangkaihua",
        "minggang_zhongbai",
        "angang_zhongbai",
        "gangshanghua",
        "qiangganghu",
        "haidilaoyue",
        "qidui",
        "pengpenghu",
        "qingyise",
        "hunyise",
        "quanqiuren",
    ]
    # every fan.* key but facai_all has its pattern, and no pattern lacks a key
    fan_keys = {k[4:] for k in RULES if k.startswith("fan.")}
    assert fan_keys - {"facai_all"} == set(keys)


def test_seed_example_through_dispatch():
    refused = dispatch_score(ctx(SEED, "pon:8m", "3p", DC), RULES)
    assert (refused.legal, refused.reason, refused.fan, refused.points) == (
        False,
        Reason.BELOW_MIN_FAN,
        1,
        0,
    )
    allowed = dispatch_score(ctx("123m456p456s77s", "pon:8m", "6p", SD), RULES)
    assert (allowed.legal, allowed.patterns, allowed.fan, allowed.points) == (
        True,
        ("pinghu", "zimo"),
        2,
        2,
    )


# --- not a win


@pytest.mark.parametrize(
    "hand,meld_spec,win",
    [
        ("123m456p789s1357z", "", "1z"),  # no shape
        ("123m456p789s11z66z", "", "1z"),  # a dead 发 in the hand
        ("123m456p789s1z", "", "1z"),  # 13 tiles
        ("123m456p789s11z", "pon:6z", "1z"),  # a meld of 发
    ],
)
def test_not_a_win(hand, meld_spec, win):
    s = score(ctx(hand, meld_spec, win, SD), RULES)
    assert (s.legal, s.reason, s.fan, s.points, s.patterns) == (False, Reason.NOT_A_WIN, 0, 0, ())


def test_after_kong_without_kong():
    s = score(ctx(SEED, "pon:8m", "3p", SD, after_kong=True), RULES)
    assert (s.legal, s.reason) == (False, Reason.NO_KONG_FOR_AFTER_KONG)


@pytest.mark.parametrize(
    "kw,msg",
    [
        ({"after_kong": True, "after_bonus": True}, "first link"),
        ({"bonus": 5}, "5 发"),
    ],
)
def test_malformed_context_raises(kw, msg):
    with pytest.raises(InputError, match=msg):
        score(ctx(SEED, KONG, "3p", SD, **kw), RULES)


def test_winning_tile_must_be_in_hand():
    with pytest.raises(InputError, match="not in the concealed"):
        score(ctx(SEED, "pon:8m", "6p", SD), RULES)


def test_bad_counts_raise():
    c = WinContext(tuple([5] + [0] * 33), (), 0, SD)
    with pytest.raises(InputError, match="34 counts"):
        score(c, RULES)


# --- rule keys


@pytest.mark.parametrize(
    "sets,method,legal,fan,points",
    [
        (["min_fan=1"], DC, True, 1, 1),  # the refused discard is now allowed
        (["min_fan=3"], SD, False, 2, 0),  # and 平胡 + 自摸 is not enough
        (["min_fan=3"], DC, False, 1, 0),
        (["min_fan=0"], DC, True, 1, 1),
        (["base=5"], SD, True, 2, 10),  # linear: fan × base
        (["base=5"], DC, False, 1, 0),
        (["payment=doubling"], SD, True, 2, 1),  # base × 2^(fan − min_fan)
        (["payment=doubling", "base=3"], SD, True, 2, 3),
        (["payment=doubling", "min_fan=1"], DC, True, 1, 1),
        (["payment=doubling", "min_fan=1"], SD, True, 2, 2),
        (["fan.pinghu=2"], DC, True, 2, 2),
        (["fan.zimo=0"], SD, False, 1, 0),
    ],
)
def test_min_fan_and_payment(sets, method, legal, fan, points):
    rules = resolve("huangmei", sets=sets)
    s = score(ctx(SEED, "pon:8m", "3p", method), rules)
    assert (s.legal, s.fan, s.points) == (legal, fan, points)
    assert s.reason is (None if legal else Reason.BELOW_MIN_FAN)


def test_doubling_big_hand():
    # 碰碰胡 + 单吊 + 平胡 + 门前清 = 18 fan; doubling from min_fan 2: 2^16
    rules = resolve("huangmei", sets=["payment=doubling", "base=2", "doubling_cap=16"])
    s = score(ctx("111m222p333s444s11z", "", "1z", DC), rules)
    assert (s.fan, s.points, s.capped) == (18, 2 * 2**16, False)


@pytest.mark.parametrize(
    "sets,hand,meld_spec,win,method,kw,patterns,fan",
    [
        # the seed's second list: 七对 15, 碰碰胡 10, 清一色 16
        (
            ["fan.pengpenghu=10"],
            "111m222p333s444s11z",
            "",
            "1z",
            DC,
            {},
            ["pinghu", "menqing", "dandiao", "pengpenghu"],
            13,
        ),
        (
            ["fan.qingyise=16"],
            "111m345m678m999m55m",
            "",
            "4m",
            DC,
            {},
            ["pinghu", "menqing", "qingyise"],
            18,
        ),
        (
            ["fan.facai_all=10"],
            SEED,
            "pon:8m",
            "3p",
            DC,
            {"bonus": 4},
            ["pinghu"] + ["facai"] * 4,
            11,
        ),
        (["fan.facai=2"], SEED, "pon:8m", "3p", DC, {"bonus": 3}, ["pinghu"] + ["facai"] * 3, 7),
        (["fan.facai=2"], SEED, "pon:8m", "3p", DC, {"bonus": 4}, ["pinghu"] + ["facai"] * 4, 9),
        # a higher 单吊 is preferred to 边张 when the tile can be read either way
        (
            ["fan.dandiao=2"],
            "123m456m789p12333s",
            "",
            "3s",
            DC,
            {},
            ["pinghu", "menqing", "dandiao"],
            4,
        ),
        # 海底捞月 above 杠上开花: 海底捞月 counts instead
        (
            ["fan.haidilaoyue=6"],
            SEED,
            KONG,
            "3p",
            SD,
            {"after_kong": True, "last_tile": True},
            ["pinghu", "minggang_shu", "haidilaoyue"],
            8,
        ),
        # 财上开花 equal to 海底捞月: 财上开花 counts
        (
            ["fan.caishangkaihua=5"],
            SEED,
            "pon:8m",
            "3p",
            SD,
            {"after_bonus": True, "last_tile": True, "bonus": 1},
            ["pinghu", "facai", "caishangkaihua"],
            7,
        ),
        # a zero-valued pattern is still listed
        (["fan.menqing=0"], "123m456m456p789s55s", "", "6p", DC, {}, ["pinghu", "menqing"], 1),
        # 碰碰胡 cheaper than 卡档: the sequences 123×3 become the best decomposition
        (
            ["fan.pengpenghu=0", "fan.kadang=5"],
            "111222333m999p77s",
            "",
            "2m",
            SD,
            {"single_wait": True},
            ["pinghu", "zimo", "menqing", "kadang"],
            8,
        ),
        # equal fan (4 each): the pattern list earlier in table order is taken (卡档 < 碰碰胡)
        (
            ["fan.pengpenghu=1"],
            "111222333m999p77s",
            "",
            "2m",
            SD,
            {"single_wait": True},
            ["pinghu", "zimo", "menqing", "kadang"],
            4,
        ),
    ],
)
def test_fan_overrides(sets, hand, meld_spec, win, method, kw, patterns, fan):
    s = score(ctx(hand, meld_spec, win, method, **kw), resolve("huangmei", sets=sets))
    assert (list(s.patterns), s.fan) == (patterns, fan)


# --- ready


def test_ready_value_is_zero_and_is_ready():
    hand = parse_counts("123m45p456s77s")
    m = melds("pon:8m")
    assert is_ready(hand, m)
    assert ready_value(hand, m, RULES) == 0
    assert dispatch_ready_value(hand, m, RULES) == 0
    assert not is_ready(parse_counts("123m46p456s79s"), m)
    # a dealt 发 still in the hand is dead: not ready
    assert not is_ready(parse_counts("123m45p456s76z"), m)
    # 46m waits on 5m only, and all four 5m are in the kong: no wait
    assert not is_ready(parse_counts("46m123p456p11s"), melds("exposed:5m"))
    assert is_ready(parse_counts("46m123p456p11s"), melds("exposed:8m"))


# --- invariants over random complete hands

_KINDS = [t for t in range(34) if t != parse_tile("6z")]


@st.composite
def winning_contexts(draw):
    counts = [0] * 34
    ms = []
    n_melds = draw(st.integers(0, 4))
    seven = n_melds == 0 and draw(st.booleans())
    if seven:
        for t in draw(st.lists(st.sampled_from(_KINDS), min_size=7, max_size=7)):
            counts[t] += 2
    else:
        for _ in range(n_melds):
            t = draw(st.sampled_from(_KINDS))
            k = draw(st.sampled_from(list(MeldKind)))
            ms.append(Meld(k, t, None if k is MeldKind.CONCEALED_KONG else 1))
        for _ in range(4 - n_melds):
            if draw(st.booleans()):
                t = draw(st.sampled_from([t for t in range(27) if t % 9 <= 6]))
                for k in (t, t + 1, t + 2):
                    counts[k] += 1
            else:
                counts[draw(st.sampled_from(_KINDS))] += 3
        counts[draw(st.sampled_from(_KINDS))] += 2
    total = list(counts)
    for m in ms:
        total[m.tile] += m.size
    assume(max(total) <= 4)
    win = draw(st.sampled_from([t for t in range(34) if counts[t]]))
    method = draw(st.sampled_from([SD, DC, RK]))
    flag = draw(st.sampled_from(["", "after_kong", "after_bonus"]))
    if flag == "after_kong" and not any(m.is_kong for m in ms):
        flag = ""
    kw = {flag: True} if flag else {}
    return WinContext(
        tuple(counts),
        tuple(ms),
        win,
        method,
        last_tile=draw(st.booleans()),
        bonus=draw(st.integers(0, 4)),
        **kw,
    )


@settings(max_examples=400, deadline=None)
@given(winning_contexts(), st.integers(0, 4))
def test_invariants(c, min_fan):
    rules = RULES.replace(min_fan=min_fan)
    s = score(c, rules)
    assert s.reason is not Reason.NOT_A_WIN
    keys = list(PATTERNS)
    pats = list(s.patterns)
    assert pats == sorted(pats, key=keys.index)
    fan = sum(RULES[f"fan.{k}"] for k in pats if k != "facai")
    fan += RULES["fan.facai_all"] if c.bonus == 4 else c.bonus
    assert s.fan == fan and pats.count("facai") == c.bonus
    assert s.legal is (fan >= min_fan) and s.points == (fan if s.legal else 0)
    assert sum(pats.count(k) for k in ("kadang", "bianzhang", "dandiao")) <= 1
    assert sum(pats.count(k) for k in ("gangshanghua", "caishangkaihua", "haidilaoyue")) <= 1
    if set(pats) & {"gangshanghua", "caishangkaihua", "haidilaoyue"} or c.method is not SD:
        assert "zimo" not in pats
    if "qidui" in pats:
        assert not set(pats) & {"pinghu", "menqing", "dandiao", "anke_zhongbai"}
    assert ("pinghu" in pats) != ("qidui" in pats)
    if "quanqiuren" in pats:
        assert not set(pats) & {"pengpenghu", "dandiao"} and c.method is not SD
    assert not ({"qingyise", "hunyise"} <= set(pats))
    if c.melds:
        assert "menqing" not in pats
