"""``mjlog score`` through the real CLI group (click's CliRunner)."""

from __future__ import annotations

import importlib.util
import json

import pytest
from click.testing import CliRunner

from mjlog.cli import main


def run(*args):
    return CliRunner().invoke(main, ["score", *args])


def js(*args):
    r = run(*args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


# the seed's examples (RULES.md §2) and the xuezhan cases of the brief
@pytest.mark.parametrize("args,patterns,fan,multiplier,points,feeder", [
    (("yuxi", "1112223334445m", "--win", "5m", "--by", "self"),
     ["pengpenghu", "qingyise"], 2, None, 6, False),
    (("yuxi", "1112223334445m", "--win", "5m", "--by", "discard"),
     ["pengpenghu", "qingyise"], 2, None, 8, False),
    (("yuxi", "2223334445m", "--win", "5m", "--by", "self", "--melds", "c:1111m",
      "--after-kong"), ["pengpenghu", "qingyise", "gangshanghua"], 3, None, 12, False),
    (("yuxi", "2223334445m", "--win", "5m", "--by", "self", "--melds", "1111m",
      "--after-kong"), ["pengpenghu", "qingyise", "gangshanghua"], 3, None, 16, True),
    (("yuxi", "2223334445m", "--win", "5m", "--by", "self", "--melds", "1111m",
      "--after-kong", "--set", "dian_gang_hua=self_draw"),
     ["pengpenghu", "qingyise", "gangshanghua"], 3, None, 12, False),
    (("yuxi", "123m456p789s11z56m", "--win", "7m", "--by", "robbed-kong"),
     ["qiangganghu"], 1, None, 4, False),
    (("yuxi", "123m456p789s11z56m", "--win", "7z", "--by", "shilaotou"),
     ["shilaotou"], 1, None, 3, False),
    (("xuezhan", "1122334455667m", "--win", "7m", "--by", "self"),
     ["qingqidui"], 4, 16, 16, False),
    (("xuezhan", "1122334455666m", "--win", "6m", "--by", "discard"),
     ["qinglongqidui"], 5, 32, 16, False),
    (("xuezhan", "1111m2222p3355m7p", "--win", "7p", "--by", "discard"),
     ["shuanglongqidui"], 4, 16, 16, False),
    (("xuezhan", "5p", "--win", "5p", "--by", "discard", "--melds",
      "1111m,c:2222p,a:3333p,4444m"), ["shibaluohan"], 6, 64, 16, False),
    (("xuezhan", "123m456p789p5p", "--win", "5p", "--by", "self", "--melds", "9999m",
      "--after-kong", "--set", "zimo_bonus=add_base"),
     ["pinghu", "gen", "gangshanghua"], 2, 4, 4, True),
    (("xuezhan", "123m456p789p5p", "--win", "5p", "--by", "self", "--melds", "c:9999m",
      "--after-kong", "--set", "zimo_bonus=add_base"),
     ["pinghu", "gen", "gangshanghua"], 2, 4, 5, False),
    (("xuezhan", "123m456m789p123p5p", "--win", "5p", "--by", "self", "--first-turn",
      "--dealer", "--set", "extras=tianhu,menqing", "--set", "extras_stack=multiply",
      "--set", "cap=64"), ["pinghu", "tianhu"], 5, 32, 32, False),
])
def test_json(args, patterns, fan, multiplier, points, feeder):
    out = js(*args)
    assert out["legal"] is True and out["reason"] is None
    assert out["patterns"] == patterns
    assert (out["fan"], out["multiplier"], out["points"], out["feeder_pays"]) == (
        fan, multiplier, points, feeder)
    assert set(out) >= {"legal", "reason", "patterns", "fan", "multiplier", "points",
                        "capped", "feeder_pays"}


@pytest.mark.parametrize("value, legal, points", [("-/5", True, 5), ("-/-", False, 0)])
def test_shilaotou_values(value, legal, points):
    # the engine asks the same scorer (tests/test_yuxi_rules.py): -/- is no win
    out = js("yuxi", "123m456p789s11z56m", "--win", "7z", "--by", "shilaotou",
             "--set", f"points.shilaotou={value}")
    assert (out["legal"], out["points"]) == (legal, points)


@pytest.mark.parametrize("args, names", [
    # each variant's rulebook spelling (RULES.md): yuxi 杠上花 and 小七对
    (("yuxi", "2223334445m", "--win", "5m", "--by", "self", "--melds", "1111m",
      "--after-kong"), ["碰碰胡", "清一色", "杠上花"]),
    (("yuxi", "1133557799m113p", "--win", "3p", "--by", "self"), ["小七对"]),
    (("xuezhan", "123p456p789p5p", "--win", "5p", "--by", "self", "--melds", "9999m",
      "--after-kong"), ["平胡", "根", "杠上开花"]),
    (("xuezhan", "1133557799m113p", "--win", "3p", "--by", "self", "--void", "s"),
     ["七对"]),
    (("huangmei", "1133557799m113p", "--win", "3p", "--by", "self"),
     ["自摸", "七一对"]),
])
def test_pattern_names_per_variant(args, names):
    assert js(*args)["pattern_names"] == names


def test_json_capped_and_names():
    out = js("xuezhan", "1122334455666m", "--win", "6m", "--by", "discard")
    assert out["capped"] is True and out["pattern_names"] == ["清龙七对"]
    assert out["void"] == "p"


def test_illegal_json():
    out = js("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "discard")
    assert (out["legal"], out["reason"], out["points"]) == (
        False, "plain_hand_on_discard", 0)
    assert out["extra"]["plain_points"] == 1
    # xuezhan: the default void of a hand holding all three suits is the smallest suit
    # (3 tiles of m, 3 of s: the first, m)
    out = js("xuezhan", "123m456p789p55p12s", "--win", "3s", "--by", "self")
    assert (out["legal"], out["reason"], out["void"]) == (False, "holds_void_suit", "m")
    out = js("xuezhan", "123m456p789p555p1s", "--win", "1s", "--by", "self")
    assert out["void"] == "s"
    out = js("xuezhan", "123m456p789p55p12s", "--win", "3s", "--by", "self", "--void", "m")
    assert out["reason"] == "holds_void_suit"


def test_text_output():
    r = run("yuxi", "2223334445m", "--win", "5m", "--by", "self", "--melds", "1111m",
            "--after-kong")
    assert r.exit_code == 0
    assert "legal: yes" in r.output
    assert "pengpenghu 碰碰胡, qingyise 清一色, gangshanghua 杠上花" in r.output  # yuxi
    assert "fan: 3" in r.output and "multiplier: -" in r.output
    assert "points: 16" in r.output and "点杠花" in r.output
    r = run("xuezhan", "123m456p789p5p", "--win", "5p", "--by", "discard",
            "--melds", "2222s", "--void", "s")
    assert "holds_void_suit" in r.output and r.exit_code == 0
    r = run("xuezhan", "111123m444456p5p", "--win", "5p", "--by", "discard")
    assert "gen 根 ×2" in r.output and "multiplier: 4" in r.output
    r = run("xuezhan", "111123m444456p5p", "--win", "5p", "--by", "self",
            "--set", "zimo_bonus=add_base")
    assert "points: 5 (each other active player pays, zimo_bonus add_base)" in r.output
    r = run("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "discard")
    assert "legal: no (plain_hand_on_discard" in r.output
    assert "last4_plain_on_discard" in r.output


def test_rules_file_then_set(tmp_path):
    f = tmp_path / "r.toml"
    f.write_text('variant = "xuezhan"\ncap = 8\n')
    assert js("xuezhan", "1122334455667m", "--win", "7m", "--by", "self",
              "--rules", str(f))["points"] == 8
    assert js("xuezhan", "1122334455667m", "--win", "7m", "--by", "self",
              "--rules", str(f), "--set", "cap=4")["points"] == 4


def test_every_variant_accepts_every_flag():
    flags = ["--last-tile", "--first-turn", "--dealer", "--bonus", "0", "--after-bonus",
             "--void", "s"]
    for variant in ("yuxi", "xuezhan"):
        out = js(variant, "1122334455667m", "--win", "7m", "--by", "self", *flags)
        assert out["legal"]


@pytest.mark.parametrize("args,message", [
    (("yuxi", "123m456p789s11z0m", "--win", "4m", "--by", "self"), "unknown tile '0m'"),
    (("yuxi", "123m456p789s11z23m", "--win", "44m", "--by", "self"), "exactly one tile"),
    (("yuxi", "11111m456p789s11z", "--win", "4m", "--by", "self"), "5 copies of 1m"),
    (("yuxi", "1111m456p789s11z2m", "--win", "1m", "--by", "self"), "5 copies of 1m"),
    (("yuxi", "1113m", "--win", "1m", "--by", "self", "--melds", "111p,222p,11z"),
     "bad meld '11z'"),
    (("yuxi", "5m", "--win", "5m", "--by", "self", "--melds", "123m,222p,333p,444p"),
     "bad meld '123m'"),
    (("yuxi", "5m", "--win", "5m", "--by", "self", "--melds", "c:111m,222p,333p,444p"),
     "marks a kong"),
    (("yuxi", "123m456p789s11z", "--win", "4m", "--by", "self"), "needs 13"),
    (("yuxi", "123m456p789s11z", "--win", "4m", "--by", "self", "--melds", "999p"),
     "needs 10"),
    (("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "self", "--after-kong"),
     "needs a kong in --melds"),
    (("yuxi", "123m456p78s11z", "--win", "9s", "--by", "self", "--melds", "999p",
      "--after-kong"), "needs a kong in --melds"),
    (("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "robbed-kong", "--after-kong"),
     "--after-kong goes with"),
    (("yuxi", "123m456p789s11z24m", "--win", "4m", "--by", "robbed-kong"),
     "kong player holds the other three 4m"),
    (("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "shilaotou"), "10th honor"),
    (("yuxi", "123m456p78s11z", "--win", "9s", "--by", "self", "--melds", "999p",
      "--first-turn"), "no --melds"),
    (("xuezhan", "123m456p789s11z23m", "--win", "4m", "--by", "self"), "no honors"),
    (("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "self", "--set",
      "honors=false"), "honors = false"),
    (("mahjong", "123m456p789s11z23m", "--win", "4m", "--by", "self"), "unknown variant"),
    (("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "self", "--set", "capp=3"),
     "unknown rule key 'capp'"),
    (("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "self", "--set", "cap"),
     "expected KEY=VALUE"),
    (("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "self", "--rules",
      "/nonexistent/r.toml"), "cannot read rules file"),
])
def test_errors_are_one_line_exit_2(args, message):
    r = run(*args)
    assert r.exit_code == 2
    err = r.stderr.strip()
    assert err.startswith("mjlog: error: ") and "\n" not in err
    assert message in err
    assert r.stdout == ""


def test_click_usage_errors_exit_2():
    assert run("yuxi", "123m456p789s11z23m", "--by", "self").exit_code == 2   # no --win
    assert run("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "tsumo").exit_code == 2


def test_help_explains_notation():
    r = run("--help")
    assert r.exit_code == 0
    for s in ("notation", "c: a concealed kong", "a: an added kong", "--after-kong",
              "mjlog score yuxi"):
        assert s in r.output


HUANGMEI = importlib.util.find_spec("mjlog.scoring.huangmei") is not None


@pytest.mark.skipif(not HUANGMEI, reason="mjlog.scoring.huangmei not written yet")
def test_huangmei_seed_example():
    # a pon of 8m waiting on 3p/6p: 平胡 + 自摸 = 2 fan by self-draw; 1 fan on a discard
    args = ("huangmei", "45p123s456s11z", "--win", "3p", "--melds", "888m")
    out = js(*args, "--by", "self")
    assert out["legal"] and out["fan"] == 2 and "zimo" in out["patterns"]
    out = js(*args, "--by", "discard")
    assert (out["legal"], out["reason"]) == (False, "below_min_fan")
    r = run("huangmei", "45p123s456s66z", "--win", "3p", "--melds", "888m", "--by", "self")
    assert r.exit_code == 2 and "--bonus" in r.stderr
