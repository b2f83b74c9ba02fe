"""``mjlog score`` through the real CLI group (click's CliRunner)."""

from __future__ import annotations

import importlib.util
import json

import pytest
from click.testing import CliRunner

from mjlog.cli import main


def run(*args):
    return CliRunner().invoke(main, ["score", *args])


def js(*args, code=0):
    r = run(*args, "--format", "json")
    assert r.exit_code == code, r.output
    return json.loads(r.stdout)


# the seed's examples (docs/rules/yuxi.md, "Patterns") and xuezhan cases
@pytest.mark.parametrize(
    "args,patterns,fan,multiplier,points,feeder",
    [
        (
            ("yuxi", "1112223334445m", "--win", "5m", "--by", "self"),
            ["pengpenghu", "qingyise"],
            2,
            None,
            6,
            False,
        ),
        (
            ("yuxi", "1112223334445m", "--win", "5m", "--by", "discard"),
            ["pengpenghu", "qingyise"],
            2,
            None,
            8,
            False,
        ),
        (
            (
                "yuxi",
                "2223334445m",
                "--win",
                "5m",
                "--by",
                "self",
                "--melds",
                "c:1111m",
                "--after-kong",
            ),
            ["pengpenghu", "qingyise", "gangshanghua"],
            3,
            None,
            12,
            False,
        ),
        (
            (
                "yuxi",
                "2223334445m",
                "--win",
                "5m",
                "--by",
                "self",
                "--melds",
                "1111m",
                "--after-kong",
            ),
            ["pengpenghu", "qingyise", "gangshanghua"],
            3,
            None,
            16,
            True,
        ),
        (
            (
                "yuxi",
                "2223334445m",
                "--win",
                "5m",
                "--by",
                "self",
                "--melds",
                "1111m",
                "--after-kong",
                "--set",
                "dian_gang_hua=self_draw",
            ),
            ["pengpenghu", "qingyise", "gangshanghua"],
            3,
            None,
            12,
            False,
        ),
        (
            ("yuxi", "123m456p789s11z56m", "--win", "7m", "--by", "robbed-kong"),
            ["qiangganghu"],
            1,
            None,
            4,
            False,
        ),
        (
            ("yuxi", "123m456p789s11z56m", "--win", "7z", "--by", "shilaotou"),
            ["shilaotou"],
            1,
            None,
            3,
            False,
        ),
        (
            ("xuezhan", "1122334455667m", "--win", "7m", "--by", "self"),
            ["qingqidui"],
            4,
            16,
            16,
            False,
        ),
        (
            ("xuezhan", "1122334455666m", "--win", "6m", "--by", "discard"),
            ["qinglongqidui"],
            5,
            32,
            16,
            False,
        ),
        (
            ("xuezhan", "1111m2222p3355m7p", "--win", "7p", "--by", "discard"),
            ["shuanglongqidui"],
            4,
            16,
            16,
            False,
        ),
        (
            (
                "xuezhan",
                "5p",
                "--win",
                "5p",
                "--by",
                "discard",
                "--melds",
                "1111m,c:2222p,a:3333p,4444m",
            ),
            ["shibaluohan"],
            6,
            64,
            16,
            False,
        ),
        (
            (
                "xuezhan",
                "123m456p789p5p",
                "--win",
                "5p",
                "--by",
                "self",
                "--melds",
                "9999m",
                "--after-kong",
                "--set",
                "zimo_bonus=add_base",
            ),
            ["pinghu", "gen", "gangshanghua"],
            2,
            4,
            4,
            True,
        ),
        (
            (
                "xuezhan",
                "123m456p789p5p",
                "--win",
                "5p",
                "--by",
                "self",
                "--melds",
                "c:9999m",
                "--after-kong",
                "--set",
                "zimo_bonus=add_base",
            ),
            ["pinghu", "gen", "gangshanghua"],
            2,
            4,
            5,
            False,
        ),
        (
            (
                "xuezhan",
                "123m456m789p123p5p",
                "--win",
                "5p",
                "--by",
                "self",
                "--first-turn",
                "--dealer",
                "--set",
                "extras=tianhu,menqing",
                "--set",
                "extras_stack=multiply",
                "--set",
                "cap=64",
            ),
            ["pinghu", "tianhu"],
            5,
            32,
            32,
            False,
        ),
    ],
)
def test_json(args, patterns, fan, multiplier, points, feeder):
    out = js(*args)
    assert out["legal"] is True and out["reason"] is None
    assert out["patterns"] == patterns
    assert (out["fan"], out["multiplier"], out["points"], out["feeder_pays"]) == (
        fan,
        multiplier,
        points,
        feeder,
    )
    assert set(out) >= {
        "legal",
        "reason",
        "patterns",
        "fan",
        "multiplier",
        "points",
        "capped",
        "feeder_pays",
        "breakdown",
        "pays",
    }
    # the breakdown states the score: its terms are the patterns, its points the points
    b = out["breakdown"]
    assert [t["key"] for t in b["terms"] for _ in range(t["count"])] == patterns
    assert (b["points"], b["fan"], b["multiplier"], b["capped"]) == (
        points,
        fan,
        multiplier,
        out["capped"],
    )
    assert out["pays"]["amount"] == points and out["pays"]["who"] == out["payers"]


@pytest.mark.parametrize("value, legal, points", [("-/5", True, 5), ("-/-", False, 0)])
def test_shilaotou_values(value, legal, points):
    # the engine asks the same scorer (tests/core/test_yuxi_rules.py): -/- is no win
    out = js(
        "yuxi",
        "123m456p789s11z56m",
        "--win",
        "7z",
        "--by",
        "shilaotou",
        "--set",
        f"points.shilaotou={value}",
        code=0 if legal else 1,
    )
    assert (out["legal"], out["points"]) == (legal, points)


@pytest.mark.parametrize(
    "args, names",
    [
        # each variant's rulebook spelling (docs/rules/): yuxi 杠上花 and 小七对
        (
            (
                "yuxi",
                "2223334445m",
                "--win",
                "5m",
                "--by",
                "self",
                "--melds",
                "1111m",
                "--after-kong",
            ),
            ["碰碰胡", "清一色", "杠上花"],
        ),
        (("yuxi", "1133557799m113p", "--win", "3p", "--by", "self"), ["小七对"]),
        (
            (
                "xuezhan",
                "123p456p789p5p",
                "--win",
                "5p",
                "--by",
                "self",
                "--melds",
                "9999m",
                "--after-kong",
            ),
            ["平胡", "根", "杠上开花"],
        ),
        (("xuezhan", "1133557799m113p", "--win", "3p", "--by", "self", "--void", "s"), ["七对"]),
        (("huangmei", "1133557799m113p", "--win", "3p", "--by", "self"), ["自摸", "七一对"]),
    ],
)
def test_pattern_names_per_variant(args, names):
    assert js(*args)["pattern_names"] == names


def test_json_capped_and_names():
    out = js("xuezhan", "1122334455666m", "--win", "6m", "--by", "discard")
    assert out["capped"] is True and out["pattern_names"] == ["清龙七对"]
    assert out["void"] == "p"


def test_illegal_json_exits_1():
    out = js("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "discard", code=1)
    assert (out["legal"], out["reason"], out["points"]) == (False, "plain_hand_on_discard", 0)
    assert out["extra"]["plain_points"] == 1
    assert out["pays"] is None and out["breakdown"] is None and "self-draw" in out["why"]
    # xuezhan: the default void of a hand holding all three suits is the smallest suit
    # (3 tiles of m, 3 of s: the first, m)
    out = js("xuezhan", "123m456p789p55p12s", "--win", "3s", "--by", "self", code=1)
    assert (out["legal"], out["reason"], out["void"]) == (False, "holds_void_suit", "m")
    out = js("xuezhan", "123m456p789p555p1s", "--win", "1s", "--by", "self", code=1)
    assert out["void"] == "s"
    out = js("xuezhan", "123m456p789p55p12s", "--win", "3s", "--by", "self", "--void", "m", code=1)
    assert out["reason"] == "holds_void_suit"


def test_format_json_and_the_old_json_flag_agree():
    args = ("xuezhan", "111123m456p789p5p", "--win", "5p", "--by", "discard")
    assert run(*args, "--json").stdout == run(*args, "--format", "json").stdout


# the formulas of issue 19, with numbers, and who pays
@pytest.mark.parametrize(
    "args, formula, pays",
    [
        (
            (
                "yuxi",
                "2223334445m",
                "--win",
                "5m",
                "--by",
                "self",
                "--melds",
                "c:1111m",
                "--after-kong",
            ),
            "3 × 2 × 2 = 12",
            "each other player pays 12 (3 payers, 36 in all)",
        ),
        (
            (
                "yuxi",
                "2223334445m",
                "--win",
                "5m",
                "--by",
                "self",
                "--melds",
                "1111m",
                "--after-kong",
            ),
            "4 × 2 × 2 = 16",
            "the kong's feeder alone (点杠花) pays 16",
        ),
        (
            (
                "yuxi",
                "1112223334445m",
                "--win",
                "5m",
                "--by",
                "discard",
                "--set",
                "cap=4",
                "--set",
                "base=2",
            ),
            "4 × 2 = 8 → capped at 4 → × 2 (base) = 8",
            "the discarder pays 8",
        ),
        (
            ("yuxi", "123m456p789s11z56m", "--win", "7m", "--by", "robbed-kong"),
            "4 = 4",
            "the kong player pays 4",
        ),
        (
            ("xuezhan", "1111234567899m", "--win", "9m", "--by", "self"),
            "×4 ×2 (根) = ×8 → 8 points",
            "each other active player pays 8 (up to 3 payers, 24 in all)",
        ),
        (
            ("xuezhan", "1122334455666m", "--win", "6m", "--by", "discard"),
            "×32 = ×32 → capped at 16 → 16 points",
            "the discarder pays 16",
        ),
        (
            (
                "xuezhan",
                "111123m444456p5p",
                "--win",
                "5p",
                "--by",
                "self",
                "--set",
                "zimo_bonus=double",
            ),
            "×1 ×2 (根) ×2 (根) = ×4 → ×2 (zimo_bonus double) = 8 → 8 points",
            "each other active player pays 8",
        ),
        (
            ("huangmei", "123m46p789s456s99s", "--win", "5p", "--by", "discard"),
            "平胡 1 + 门前清 1 + 卡档 1 = 3 fan",
            "the discarder pays 3",
        ),
        (
            (
                "huangmei",
                "123m46p789s456s99s",
                "--win",
                "5p",
                "--by",
                "self",
                "--bonus",
                "2",
                "--set",
                "payment=doubling",
            ),
            "平胡 1 + 自摸 1 + 门前清 1 + 发财×2 2 + 卡档 1 = 6 fan → 1 × 2^(6 − 2) = 16 points",
            "each other player pays 16 (3 payers, 48 in all)",
        ),
    ],
)
def test_breakdown_text_and_json(args, formula, pays):
    r = run(*args)
    assert r.exit_code == 0, r.output
    assert f"formula: {formula}\n" in r.output
    assert f"pays: {pays}" in r.output
    out = js(*args)
    assert out["breakdown"]["formula"] == formula
    assert out["points"] == out["breakdown"]["points"] == out["pays"]["amount"]


def test_text_lists_each_term_with_its_contribution():
    r = run("xuezhan", "111123m444456p5p", "--win", "5p", "--by", "self")
    assert "  平胡 pinghu: ×1\n  根 gen ×2: ×2 ×2\n" in r.output
    r = run(
        "yuxi", "2223334445m", "--win", "5m", "--by", "self", "--melds", "c:1111m", "--after-kong"
    )
    assert (
        "  碰碰胡 pengpenghu: 3 (base)\n  清一色 qingyise: ×2\n  杠上花 gangshanghua: ×2"
        in r.output
    )
    r = run("huangmei", "123m46p789s456s99s", "--win", "5p", "--by", "self", "--bonus", "4")
    assert "  发财 facai ×4: 8 fan" in r.output  # all four 发: fan.facai_all
    r = run("yuxi", "1112223334445m", "--win", "5m", "--by", "self", "--set", "horses=2")
    assert "买马" in r.output and "pays 6 more" in r.output


@pytest.mark.parametrize(
    "args, reason",
    [
        (
            ("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "discard"),
            "plain_hand_on_discard: a plain hand (平胡 only) must be won by self-draw; as 平胡",
        ),
        (("yuxi", "1357m2468p1357s9s", "--win", "1z", "--by", "self"), "not_a_win"),
        (("xuezhan", "123m456p789p55p12s", "--win", "3s", "--by", "self"), "holds_void_suit"),
        (
            ("huangmei", "45p123s456s11z", "--win", "3p", "--melds", "888m", "--by", "discard"),
            "below_min_fan: fewer fan than min_fan (平胡 1 = 1 fan → below min_fan 2: no win)",
        ),
    ],
)
def test_not_a_legal_win_is_one_line_exit_1(args, reason):
    r = run(*args)
    assert r.exit_code == 1
    assert r.stdout.count("\n") == 1 and r.stdout.startswith("legal: no (")
    assert reason in r.stdout and r.stderr == ""


def test_text_output():
    r = run(
        "yuxi", "2223334445m", "--win", "5m", "--by", "self", "--melds", "1111m", "--after-kong"
    )
    assert r.exit_code == 0
    assert "legal: yes" in r.output
    assert "pengpenghu 碰碰胡, qingyise 清一色, gangshanghua 杠上花" in r.output  # yuxi
    assert "fan: 3" in r.output and "multiplier: -" in r.output
    assert "points: 16 per payer" in r.output and "点杠花" in r.output
    r = run(
        "xuezhan",
        "123m456p789p5p",
        "--win",
        "5p",
        "--by",
        "discard",
        "--melds",
        "2222s",
        "--void",
        "s",
    )
    assert "holds_void_suit" in r.output and r.exit_code == 1
    r = run("xuezhan", "111123m444456p5p", "--win", "5p", "--by", "discard")
    assert "gen 根 ×2" in r.output and "multiplier: 4" in r.output
    r = run(
        "xuezhan", "111123m444456p5p", "--win", "5p", "--by", "self", "--set", "zimo_bonus=add_base"
    )
    assert "points: 5 per payer" in r.output and "+1 (zimo_bonus add_base) = 5" in r.output
    assert "pays: each other active player pays 5" in r.output
    r = run("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "discard")
    assert "legal: no (plain_hand_on_discard" in r.output
    assert "last4_plain_on_discard" in r.output


def test_rules_file_then_set(tmp_path):
    f = tmp_path / "r.toml"
    f.write_text('variant = "xuezhan"\ncap = 8\n')
    assert (
        js("xuezhan", "1122334455667m", "--win", "7m", "--by", "self", "--rules", str(f))["points"]
        == 8
    )
    assert (
        js(
            "xuezhan",
            "1122334455667m",
            "--win",
            "7m",
            "--by",
            "self",
            "--rules",
            str(f),
            "--set",
            "cap=4",
        )["points"]
        == 4
    )


H = ("123m456p789s11z23m", "--win", "4m")  # a yuxi hand, 4m wins it
HM = ("123m46p789s456s99s", "--win", "5p")  # a huangmei hand, 5p wins it


@pytest.mark.parametrize("link", ["last", "first"])
def test_kong_chain_values_a_chain_as_the_engine_plays_it(link):
    # the engine's chain of tests/core/test_rule_keys_both_ways.py: seat 1 konges the dealer's 5m
    # (明杠), konges its 7p on the replacement (暗杠), wins on the next one (9s)
    from tests.core.test_rule_keys_both_ways import yuxi_chain
    from tests.core.test_yuxi_rules import rules

    st, _ = yuxi_chain(rules(f"dian_gang_hua_link={link}"))
    (w,) = st.wins
    chain = (
        "yuxi",
        "123p456s9s",
        "--win",
        "9s",
        "--by",
        "self",
        "--melds",
        "5555m,c:7777p",
        "--after-kong",
        "--set",
        f"dian_gang_hua_link={link}",
    )
    out = js(*chain, "--kong-chain", "2")
    assert (out["points"], out["feeder_pays"]) == (w.points, w.from_seat is not None)
    assert out["pays"]["who"] == ("kong_feeder" if link == "first" else "each_other")
    # one kong long (the default), the concealed kong alone decides: no 点杠花
    assert not js(*chain)["feeder_pays"]


PLAIN = ("yuxi", "123m234m456p789s9p", "--win", "9p")  # a plain hand: a pair wait on 9p


@pytest.mark.parametrize("where", [["--last-tile"], ["--last-four"]])
def test_a_plain_hand_in_the_last_four_scores_as_the_engine_plays_it(where):
    # the engine's last-four plain win (tests/core/test_yuxi_rules.py, PLAIN_HANDS): seat 1's
    # plain hand wins on 9p with 4 tiles left, 平胡 at 1; the last discard is in the zone
    from tests.core.test_yuxi_rules import PLAIN_HANDS, PLAIN_TAIL, rules
    from tests.scripted import play_script

    st, _ = play_script(rules("last4_plain_on_discard=true"), PLAIN_HANDS, tail=PLAIN_TAIL)
    (w,) = st.wins
    out = js(*PLAIN, "--by", "discard", *where, "--set", "last4_plain_on_discard=true")
    assert (out["patterns"], out["points"]) == (list(w.patterns), w.points)
    # outside the last four, or without the key, the plain hand may not win on a discard
    assert (
        js(*PLAIN, "--by", "discard", "--set", "last4_plain_on_discard=true", code=1)["reason"]
        == "plain_hand_on_discard"
    )
    assert js(*PLAIN, "--by", "discard", *where, code=1)["reason"] == "plain_hand_on_discard"


KONG_PLAIN = {  # the plain hands the engine wins with in tests/core/test_rule_keys_both_ways.py
    "discard": ("yuxi", "123m234m456p789s9p", "--win", "9p", "--by", "discard", "--after-kong"),
    "robbed-kong": ("yuxi", "123m67m456p789s99p", "--win", "5m", "--by", "robbed-kong"),
}


@pytest.mark.parametrize("how", sorted(KONG_PLAIN))
def test_kong_wins_big_false_with_last4_plain_scores_a_plain_hand(how):
    args = KONG_PLAIN[how]
    both = ("--set", "kong_wins_big=false", "--set", "last4_plain_on_discard=true")
    out = js(*args, "--last-four", *both)
    assert (out["patterns"], out["points"], out["pays"]["who"]) == (
        ["pinghu"],
        1,
        "discarder" if how == "discard" else "kong_player",
    )
    # outside the last four the plain hand may not win that way
    assert js(*args, *both, code=1)["reason"] == "plain_hand_on_discard"
    # with kong_wins_big = true the kong pattern is its own: 4
    assert js(*args, "--last-four", "--set", "last4_plain_on_discard=true")["points"] == 4


@pytest.mark.parametrize("how", sorted(KONG_PLAIN))
def test_a_refusal_under_kong_wins_big_false_names_the_key(how):
    out = js(*KONG_PLAIN[how], "--set", "kong_wins_big=false", code=1)
    assert out["reason"] == "plain_hand_on_discard" and "kong_wins_big" in out["why"]
    r = run(*KONG_PLAIN[how], "--set", "kong_wins_big=false")
    assert r.exit_code == 1 and r.stdout.count("\n") == 1 and "kong_wins_big" in r.stdout
    # a plain hand refused on a plain discard has nothing to do with the key
    assert "kong_wins_big" not in js(*PLAIN, "--by", "discard", code=1)["why"]


# flags no game produces together, or not in this variant: exit 2, one line
@pytest.mark.parametrize(
    "args, message",
    [
        (
            ("huangmei", *HM, "--by", "self", "--after-bonus"),
            "--after-bonus: a win on a 发's replacement needs a 发 laid out",
        ),
        (
            ("huangmei", *HM, "--by", "discard", "--bonus", "1", "--after-bonus"),
            "--after-bonus goes with --by self",
        ),
        (
            (
                "huangmei",
                "123m46p456s99m",
                "--win",
                "5p",
                "--by",
                "self",
                "--bonus",
                "1",
                "--melds",
                "c:9999s",
                "--after-kong",
                "--after-bonus",
            ),
            "--after-kong and --after-bonus",
        ),
        (("yuxi", *H, "--by", "self", "--bonus", "1"), "--bonus 1: yuxi has no bonus tiles"),
        (
            ("xuezhan", "123m456m789p11p23m", "--win", "4m", "--by", "self", "--after-bonus"),
            "--after-bonus: xuezhan has no bonus tiles",
        ),
        (("yuxi", *H, "--by", "self", "--void", "s"), "--void: yuxi has no void suit"),
        (("huangmei", *HM, "--by", "self", "--void", "s"), "--void: huangmei has no void suit"),
        (
            ("huangmei", "123m456p789s11z23m", "--win", "5z", "--by", "shilaotou"),
            "--by shilaotou: huangmei has no 十老头",
        ),
        (("yuxi", *H, "--by", "robbed-kong", "--last-tile"), "--last-tile goes with"),
        (("yuxi", *H, "--by", "shilaotou", "--last-tile"), "--last-tile goes with"),
        (
            ("yuxi", *H, "--by", "discard", "--first-turn"),
            "--first-turn (天胡/地胡) is a win by self-draw",
        ),
        (
            ("yuxi", "123m456p789s11z56m", "--win", "7z", "--by", "shilaotou", "--first-turn"),
            "--first-turn (天胡/地胡) is a win by self-draw",
        ),
        (
            (
                "xuezhan",
                "123m456m789p11p23m",
                "--win",
                "4m",
                "--by",
                "self",
                "--first-turn",
                "--last-tile",
            ),
            "--first-turn and --last-tile",
        ),
        (
            (
                "yuxi",
                "123m11z23m",
                "--win",
                "4m",
                "--by",
                "self",
                "--melds",
                "c:9999s,777p",
                "--after-kong",
            ),
            "the last meld in --melds must be a kong",
        ),
        (("yuxi", *H, "--by", "robbed-kong", "--after-kong"), "--after-kong goes with"),
        (
            (
                "yuxi",
                "123p456s9s",
                "--win",
                "9s",
                "--by",
                "discard",
                "--melds",
                "5555m,c:7777p",
                "--after-kong",
                "--kong-chain",
                "2",
            ),
            "--kong-chain 2 goes with --after-kong --by self",
        ),
        (
            (
                "yuxi",
                "123p456s9s",
                "--win",
                "9s",
                "--by",
                "self",
                "--melds",
                "555m,c:7777p",
                "--after-kong",
                "--kong-chain",
                "2",
            ),
            "the last 2 melds in --melds must be kongs",
        ),
        (
            (
                "yuxi",
                "123p456s9s",
                "--win",
                "9s",
                "--by",
                "self",
                "--melds",
                "c:7777p,5555m",
                "--after-kong",
                "--kong-chain",
                "2",
            ),
            "only a chain's first kong can be exposed",
        ),
        (
            ("xuezhan", "123m456m789p11p23m", "--win", "4m", "--by", "discard", "--last-four"),
            "--last-four: xuezhan has no 尾牌强制",
        ),
        (
            ("huangmei", *HM, "--by", "discard", "--last-four"),
            "--last-four: huangmei has no 尾牌强制",
        ),
        (
            ("yuxi", *H, "--by", "self", "--first-turn", "--last-four"),
            "--first-turn and --last-four",
        ),
    ],
)
def test_impossible_flags_exit_2(args, message):
    r = run(*args)
    assert r.exit_code == 2, r.output
    err = r.stderr.strip()
    assert err.startswith("mjlog: error: ") and "\n" not in err and r.stdout == ""
    assert message in err


def test_possible_flag_combinations_are_accepted():
    # 杠上炮 on the last discard, a dealer's 天胡, 财上开花 and 杠上开花 on the last tile,
    # an added kong (made after a pon, listed last) won on its replacement
    for args in [
        ("yuxi", "1112223334445m", "--win", "5m", "--by", "discard", "--after-kong", "--last-tile"),
        (
            "xuezhan",
            "123m456m789p11p23m",
            "--win",
            "4m",
            "--by",
            "self",
            "--first-turn",
            "--dealer",
            "--void",
            "s",
        ),
        ("huangmei", *HM, "--by", "self", "--bonus", "1", "--after-bonus", "--last-tile"),
        (
            "huangmei",
            "123m46p456s99m",
            "--win",
            "5p",
            "--by",
            "self",
            "--melds",
            "c:9999s",
            "--after-kong",
            "--last-tile",
        ),
        (
            "yuxi",
            "123m11z23m",
            "--win",
            "4m",
            "--by",
            "self",
            "--melds",
            "777p,a:9999s",
            "--after-kong",
        ),
    ]:
        out = js(*args)
        assert out["legal"], args


@pytest.mark.parametrize(
    "args,message",
    [
        (("yuxi", "123m456p789s11z0m", "--win", "4m", "--by", "self"), "unknown tile '0m'"),
        (("yuxi", "123m456p789s11z23m", "--win", "44m", "--by", "self"), "exactly one tile"),
        (("yuxi", "11111m456p789s11z", "--win", "4m", "--by", "self"), "5 copies of 1m"),
        (("yuxi", "1111m456p789s11z2m", "--win", "1m", "--by", "self"), "5 copies of 1m"),
        (
            ("yuxi", "1113m", "--win", "1m", "--by", "self", "--melds", "111p,222p,11z"),
            "bad meld '11z'",
        ),
        (
            ("yuxi", "5m", "--win", "5m", "--by", "self", "--melds", "123m,222p,333p,444p"),
            "bad meld '123m'",
        ),
        (
            ("yuxi", "5m", "--win", "5m", "--by", "self", "--melds", "c:111m,222p,333p,444p"),
            "marks a kong",
        ),
        (("yuxi", "123m456p789s11z", "--win", "4m", "--by", "self"), "needs 13"),
        (("yuxi", "123m456p789s11z", "--win", "4m", "--by", "self", "--melds", "999p"), "needs 10"),
        (
            ("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "self", "--after-kong"),
            "needs a kong in --melds",
        ),
        (
            (
                "yuxi",
                "123m456p78s11z",
                "--win",
                "9s",
                "--by",
                "self",
                "--melds",
                "999p",
                "--after-kong",
            ),
            "needs a kong in --melds",
        ),
        (
            ("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "robbed-kong", "--after-kong"),
            "--after-kong goes with",
        ),
        (
            ("yuxi", "123m456p789s11z24m", "--win", "4m", "--by", "robbed-kong"),
            "kong player holds the other three 4m",
        ),
        (("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "shilaotou"), "10th honor"),
        (
            (
                "yuxi",
                "123m456p78s11z",
                "--win",
                "9s",
                "--by",
                "self",
                "--melds",
                "999p",
                "--first-turn",
            ),
            "no --melds",
        ),
        (("xuezhan", "123m456p789s11z23m", "--win", "4m", "--by", "self"), "no honors"),
        (
            ("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "self", "--set", "honors=false"),
            "honors = false",
        ),
        (("mahjong", "123m456p789s11z23m", "--win", "4m", "--by", "self"), "unknown variant"),
        (
            ("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "self", "--set", "capp=3"),
            "unknown rule key 'capp'",
        ),
        (
            ("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "self", "--set", "cap"),
            "expected KEY=VALUE",
        ),
        (
            (
                "yuxi",
                "123m456p789s11z23m",
                "--win",
                "4m",
                "--by",
                "self",
                "--rules",
                "/nonexistent/r.toml",
            ),
            "cannot read rules file",
        ),
    ],
)
def test_errors_are_one_line_exit_2(args, message):
    r = run(*args)
    assert r.exit_code == 2
    err = r.stderr.strip()
    assert err.startswith("mjlog: error: ") and "\n" not in err
    assert message in err
    assert r.stdout == ""


def test_click_usage_errors_exit_2():
    assert run("yuxi", "123m456p789s11z23m", "--by", "self").exit_code == 2  # no --win
    assert run("yuxi", "123m456p789s11z23m", "--win", "4m", "--by", "tsumo").exit_code == 2


def test_help_explains_notation():
    r = run("--help")
    assert r.exit_code == 0
    for s in (
        "notation",
        "c: a concealed kong",
        "a: an added kong",
        "--after-kong",
        "mjlog score yuxi",
    ):
        assert s in r.output


HUANGMEI = importlib.util.find_spec("mjlog.scoring.huangmei") is not None


@pytest.mark.skipif(not HUANGMEI, reason="mjlog.scoring.huangmei not written yet")
def test_huangmei_seed_example():
    # a pon of 8m waiting on 3p/6p: 平胡 + 自摸 = 2 fan by self-draw; 1 fan on a discard
    args = ("huangmei", "45p123s456s11z", "--win", "3p", "--melds", "888m")
    out = js(*args, "--by", "self")
    assert out["legal"] and out["fan"] == 2 and "zimo" in out["patterns"]
    out = js(*args, "--by", "discard", code=1)
    assert (out["legal"], out["reason"]) == (False, "below_min_fan")
    r = run("huangmei", "45p123s456s66z", "--win", "3p", "--melds", "888m", "--by", "self")
    assert r.exit_code == 2 and "--bonus" in r.stderr


def test_the_example_in_docs_cli_md_is_what_the_command_prints():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text("utf-8")
    block = doc.split("## `mjlog score`", 1)[1].split("```\n", 2)[1]
    cmd, _, printed = block.partition("\n")
    assert cmd.startswith("$ mjlog score ")
    r = run(*cmd.split()[3:])
    assert r.exit_code == 0 and r.output == printed
