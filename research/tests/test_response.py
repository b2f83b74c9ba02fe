"""strategic responds to the rules: change what a pattern pays and its win share moves.

Small seeded runs, strategic in every seat, the same walls at both rule values
(paired hand by hand; see :mod:`research.response`). Each test asserts a 95 %
interval that excludes 0, in the expected direction.
"""

import functools

import pytest

from research.response import above_share, behaviour, rate_diff, ratio_diff, share_diff

HANDS = 240
SEED = 18

# (variant, family, low rule values, high rule values, hands)
PATTERN_SWEEPS = [
    ("yuxi", "qingyise", ("points.qingyise=1/1",), ("points.qingyise=12/16",), HANDS),
    ("xuezhan", "qingyise", ("mult.qingyise=1",), ("mult.qingyise=16",), HANDS),
    # huangmei hands end at the first win, about ten draws each: a 清一色 comes only
    # from a deal already close to one suit, so its share moves by about two points
    # (a 混一色 hand keeps its honors at fan 1, a pure one throws them at fan 40),
    # which takes more hands to resolve; they are short ones
    ("huangmei", "qingyise", ("fan.qingyise=1",), ("fan.qingyise=40",), 600),
    (
        "yuxi",
        "qidui",
        ("points.qidui=1/1", "points.longqidui=1/1"),
        ("points.qidui=12/16", "points.longqidui=24/28"),
        HANDS,
    ),
    (
        "xuezhan",
        "qidui",
        ("mult.qidui=1", "mult.longqidui=1"),
        ("mult.qidui=16", "mult.longqidui=16"),
        HANDS,
    ),
    ("huangmei", "qidui", ("fan.qidui=1",), ("fan.qidui=40",), HANDS),
]


@functools.cache
def _run(variant: str, hands: int, sets: tuple = ()) -> dict:
    """strategic in every seat; kept, since two tests read the same runs."""
    return behaviour(variant, ["strategic"], hands, seed=SEED, sets=sets)


@pytest.mark.parametrize(
    "variant,family,low,high,hands",
    PATTERN_SWEEPS,
    ids=[
        "yuxi-qingyise",
        "xuezhan-qingyise",
        "huangmei-qingyise",
        "yuxi-qidui",
        "xuezhan-qidui",
        "huangmei-qidui",
    ],
)
def test_paying_more_for_a_pattern_raises_its_win_share(variant, family, low, high, hands):
    a, b = _run(variant, hands, low), _run(variant, hands, high)
    diff, lo, hi = share_diff(a, b, family)
    assert lo > 0, (variant, family, diff, lo, hi)


def test_a_closed_route_that_pays_lowers_the_pon_rate():
    # yuxi: a plain hand wins only by self-draw; when 七对 pays more than a plain
    # hand, a closed hand keeps that route: it plays for seven pairs more often, and
    # otherwise pons only for a step of shanten, not for acceptance alone
    ((_v, _f, low, high, hands),) = [s for s in PATTERN_SWEEPS if s[:2] == ("yuxi", "qidui")]
    diff, lo, hi = rate_diff(_run("yuxi", hands, low), _run("yuxi", hands, high), "pons")
    assert hi < 0, (diff, lo, hi)


def test_a_lower_cap_lowers_the_share_of_wins_above_it():
    low, high = _run("xuezhan", HANDS, ("cap=2",)), _run("xuezhan", HANDS, ("cap=16",))
    diff, lo, hi = ratio_diff(*above_share(high, 2), *above_share(low, 2))
    assert hi < 0, (diff, lo, hi)


KONGS_WORTHLESS = [
    "fan.minggang_shu=0",
    "fan.angang_shu=0",
    "fan.minggang_zhongbai=0",
    "fan.angang_zhongbai=0",
    "fan.gangshanghua=0",
]


def test_worthless_kongs_lower_the_kong_rate():
    a, b = _run("huangmei", HANDS), _run("huangmei", HANDS, tuple(KONGS_WORTHLESS))
    diff, lo, hi = rate_diff(a, b, "kongs")
    assert hi < 0, (diff, lo, hi)


def _same_play(a, b):
    return all(a[k] == b[k] for k in ("pons", "kongs", "draws", "wins", "self_draws"))


def test_rule_blind_copy_plays_as_if_the_defaults_were_in_force():
    # under default rules the rule-blind copy is the same player, hand for hand
    a = behaviour("yuxi", ["strategic"], 8, seed=SEED)
    assert _same_play(a, behaviour("yuxi", ["strategic:rules=default"], 8, seed=SEED))
    # under changed values it plays exactly as it would under the defaults,
    # while the rule-aware agent plays differently
    hi = ["mult.qingyise=16"]
    blind = behaviour("xuezhan", ["strategic:rules=default"], 12, seed=SEED, sets=hi)
    assert _same_play(blind, behaviour("xuezhan", ["strategic"], 12, seed=SEED))
    assert not _same_play(blind, behaviour("xuezhan", ["strategic"], 12, seed=SEED, sets=hi))
