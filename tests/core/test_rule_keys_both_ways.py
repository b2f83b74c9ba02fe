"""The rulebook's newer rule keys, each both ways (issue #19).

yuxi ``kong_wins_big`` and ``chadajiao_value``; yuxi and xuezhan
``dian_gang_hua_link``; xuezhan ``void_first``; huangmei ``menqing_on_discard``
and ``ziyise_hunyise`` (and ``doubling_cap``, shown and parsed here; its play is
tests/core/test_doubling_cap.py). Each is played as a scripted hand (``tests/scripted.py``)
under its default and its switched value, where the key changes the outcome. A
legality key is also checked from the auditor's side: the events of the
default hand, replayed under the switched rules by the checked step, are refused
by the rule they break. Finally ``mjlog simulate`` under every switched value
writes runs that ``mjlog validate`` accepts, and ``mjlog rules`` shows each key.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mjlog.cli import main
from mjlog.events import DISCARD, WIN
from mjlog.replay import Check, run_checked
from mjlog.rules import RuleError, resolve
from mjlog.state import HandState
from tests.core import test_xuezhan_flow as xz
from tests.core import test_yuxi_rules as yx
from tests.scripted import offered, pays, play_script

JA, JB, JC = yx.JA, yx.JB, yx.JC


def replay_under(st, rules):
    """The checked step over ``st``'s events under other rules: (applied, discrepancy)."""
    return run_checked(HandState(rules, st.wall, st.dealer, st.dice, st.break_pos), st.events)


def win_seq(st, seat):
    return next(i for i, e in enumerate(st.events) if e.type == WIN and e.seat == seat)


# ---------------------------------------------------------------- yuxi kong_wins_big


def kong_then_discard(r, win: bool):
    """The dealer konges 5555m and discards its replacement 9m; seat 1's plain hand
    waits on 9m (杠上炮)."""
    hands = {0: "5555m123p456p789s1s", 1: "78m234m234s567s99p", 2: JB, 3: JC}
    scripts = {0: ["kong 5m", "discard 9m"]} | ({1: ["win 9m"]} if win else {})
    return play_script(r, hands, scripts, tail="9m", stop=not win)


def added_kong(r, rob: bool):
    """Seat 1 pons the dealer's 5m and adds the fourth; seat 2's plain hand (46m)
    may rob it (抢杠胡)."""
    hands = {0: JA + "5m", 1: "55m123p456p789s19s", 2: "46m789p123s456s99s", 3: JC}
    scripts = {1: ["pon 5m", "discard 1s", "kong 5m"]} | ({2: ["win 5m"]} if rob else {})
    return play_script(r, hands, scripts, draws="? ? ? 5m", stop=not rob)


def test_kong_wins_big_true_lets_a_plain_hand_win_on_gangshangpao_and_rob():
    st, ag = kong_then_discard(yx.R, win=True)
    assert yx.wins(st) == [(1, "discard", 0, ("gangshangpao",), 4)]
    st, ag = added_kong(yx.R, rob=True)
    assert offered(ag[2], WIN, "5m") == 1
    assert yx.wins(st) == [(2, "robbed_kong", 1, ("qiangganghu",), 4)]


def test_kong_wins_big_false_refuses_them():
    strict = yx.rules("kong_wins_big=false")
    st, ag = kong_then_discard(strict, win=False)
    assert offered(ag[1], WIN) == 0 and st.wins == []
    st, ag = added_kong(strict, rob=False)
    assert offered(ag[2], WIN) == 0 and st.wins == []
    # a big hand still wins on the discard after a kong, with 杠上炮 doubling it
    hands = {0: "5555m123p456p789s1s", 1: "222s333s555s66s99p", 2: JB, 3: JC}
    st, _ = play_script(strict, hands, {0: ["kong 5m", "discard 9p"], 1: ["win 9p"]}, tail="9p")
    assert yx.wins(st) == [(1, "discard", 0, ("pengpenghu", "gangshangpao"), 8)]


@pytest.mark.parametrize("scenario", [kong_then_discard, added_kong])
def test_kong_wins_big_false_audit_refuses_the_default_win(scenario):
    st, _ = scenario(yx.R, True)
    k = win_seq(st, 1 if scenario is kong_then_discard else 2)
    assert replay_under(st, yx.R) == (len(st.events), None)
    applied, d = replay_under(st, yx.rules("kong_wins_big=false"))
    assert (applied, d.seq, d.check) == (k, k, Check.PLAIN_ON_DISCARD)
    assert "self-draw" in d.rules and "kong_wins_big" in d.rules  # the rule it breaks


def last_four_kong_discard(r):
    """Seat 3 draws its fourth 5m with 4 tiles left, konges it and discards the
    replacement 9p: seat 1's plain hand wins on it in the last four (杠上炮)."""
    hands = {0: JA + "7p", 1: "123m234m456p789s9p", 2: JB, 3: "555m258s36p12345z"}
    return play_script(r, hands, {3: ["kong 5m"]}, tail="9p 3s 3s 3s 5m")


def last_four_rob(r):
    """Seat 3 pons the dealer's 5m and adds the fourth, drawn with 4 tiles left:
    seat 1's plain hand (67m) robs it in the last four (抢杠胡)."""
    hands = {0: JA + "5m", 1: "123m67m456p789s99p", 2: JB, 3: "55m258s369p12345z"}
    return play_script(r, hands, {3: ["pon 5m", "kong 5m"]}, tail="3s 3s 3s 5m")


@pytest.mark.parametrize(
    "scenario, method, pattern",
    [
        (last_four_kong_discard, "discard", "gangshangpao"),
        (last_four_rob, "robbed_kong", "qiangganghu"),
    ],
)
@pytest.mark.parametrize(
    "sets, want",
    [
        # the kong pattern lets the plain hand win, at its 4
        ((), "kong"),
        # kong_wins_big = false: no win, the last-four reading not taken
        (("kong_wins_big=false",), None),
        # both (RULES.md, decided turn 3): a plain hand, 杠上炮/抢杠胡 adding nothing
        (("kong_wins_big=false", "last4_plain_on_discard=true"), "plain"),
    ],
)
def test_kong_wins_big_false_with_last4_plain_wins_as_a_plain_hand(
    scenario, method, pattern, sets, want
):
    r = yx.rules(*sets)
    st, _ = scenario(r)
    if want is None:
        assert st.wins == [] and st.exhausted
        return
    patterns, points = ((pattern,), 4) if want == "kong" else (("pinghu",), 1)
    assert yx.wins(st) == [(1, method, 3, patterns, points)]
    assert pays(st, "win") == [(3, 1, points, "win")]
    assert replay_under(st, r) == (len(st.events), None)  # the auditor's step agrees


# ---------------------------------------------------------------- yuxi chadajiao_value

# seat 1: 1112223334445m (5m: 清一色 碰碰胡 6 / 8; 3m 6m: 清一色 3 / 4);
# seat 2: a plain hand on 9m (self-draw 1, no discard win)
CHADAJIAO = {0: JA + "7p", 1: "1112223334445m", 2: "123p234p456s789s9m", 3: JC}


@pytest.mark.parametrize(
    "value, owed1, owed2", [("best_self_draw", 6, 1), ("best_discard", 8, 1), ("flat", 1, 1)]
)
def test_chadajiao_value(value, owed1, owed2):
    r = yx.rules(f"chadajiao_value={value}", "base=2")
    st, _ = play_script(r, CHADAJIAO, tail="3s 3s 3s 3s 6s")
    assert st.wins == [] and st.exhausted
    assert pays(st) == [
        (0, 1, 2 * owed1, "not_ready"),
        (0, 2, 2 * owed2, "not_ready"),
        (3, 1, 2 * owed1, "not_ready"),
        (3, 2, 2 * owed2, "not_ready"),
    ]
    # the auditor recomputes the settlement: a log made under other values is refused
    other = "flat" if value != "flat" else "best_discard"
    applied, d = replay_under(st, r.replace(chadajiao_value=other))
    assert d is not None and d.check == Check.TRANSFER


# ---------------------------------------------------------------- dian_gang_hua_link


def yuxi_chain(r):
    """Seat 1 konges the dealer's 5m (明杠), konges its 7p on the replacement (暗杠)
    and wins on the next replacement 9s: a chain that began with an exposed kong."""
    hands = {0: JA + "5m", 1: "555m777p123p456s9s", 2: JB, 3: JC}
    return play_script(r, hands, {1: ["kong 5m", "kong 7p", "win"]}, tail="7p 9s")


@pytest.mark.parametrize(
    "link, want",
    [
        # the last kong (concealed) decides: an ordinary 杠上花, 3 from each
        (
            "last",
            (
                [(1, "self_draw", None, ("gangshanghua",), 3)],
                [(0, 1, 2, "kong_exposed"), (0, 1, 3, "win"), (2, 1, 3, "win"), (3, 1, 3, "win")],
            ),
        ),
        # the first (exposed, fed by the dealer) decides: 点杠花, the dealer pays 4 alone
        (
            "first",
            (
                [(1, "self_draw", 0, ("gangshanghua",), 4)],
                [(0, 1, 2, "kong_exposed"), (0, 1, 4, "win")],
            ),
        ),
    ],
)
def test_dian_gang_hua_link_yuxi(link, want):
    r = yx.rules(f"dian_gang_hua_link={link}")
    st, _ = yuxi_chain(r)
    assert (yx.wins(st), pays(st)) == want
    assert st.events[st.wins[0].seq].from_seat == st.wins[0].from_seat
    other = r.replace(dian_gang_hua_link="first" if link == "last" else "last")
    assert replay_under(st, r) == (len(st.events), None)
    assert replay_under(st, other)[1] is not None


@pytest.mark.parametrize("link", ["last", "first"])
def test_a_chain_begins_at_the_last_front_draw(link):
    # seat 1 konges the dealer's 5m (明杠) and discards the replacement 1z; later it
    # draws its fourth 7p, konges it (暗杠) and wins on that replacement: the chain
    # holds only the concealed kong, an ordinary 杠上花 whatever the link
    hands = {0: JA + "5m", 1: "555m777p123p456s9s", 2: JB, 3: JC}
    st, _ = play_script(
        yx.rules(f"dian_gang_hua_link={link}"),
        hands,
        {1: ["kong 5m", "kong 7p", "win"]},
        draws="? ? ? 7p",
        tail="1z 9s",
    )
    assert yx.wins(st) == [(1, "self_draw", None, ("gangshanghua",), 3)]
    assert pays(st) == [
        (0, 1, 2, "kong_exposed"),
        (0, 1, 3, "win"),
        (2, 1, 3, "win"),
        (3, 1, 3, "win"),
    ]


XZ_CHAIN = {0: "123m456m789m2346s 5s", 1: "555s777p123p456p9p"}


@pytest.mark.parametrize("link, payers", [("last", [0, 2, 3]), ("first", [0])])
def test_dian_gang_hua_link_xuezhan(link, payers):
    st, _ = xz.run(
        XZ_CHAIN,
        voids="pmmm",
        tail="7p 9p",
        stop=True,
        rules=xz.XZ(dian_gang_hua_link=link),
        scripts={1: ["kong 5s", "kong 7p", "win 9p"]},
    )
    # 平胡 ×2 per 根 (two kongs) ×2 杠上开花 = 8
    assert xz.wins(st)[0][:6] == (
        1,
        0 if link == "first" else None,
        "self_draw",
        ("pinghu", "gen", "gen", "gangshanghua"),
        8,
        8,
    )
    assert pays(st, "win") == [(p, 1, 8, "win") for p in payers]
    assert pays(st, "kong_exposed", "kong_concealed") == [
        (0, 1, 2, "kong_exposed"),
        (0, 1, 2, "kong_concealed"),
        (2, 1, 2, "kong_concealed"),
        (3, 1, 2, "kong_concealed"),
    ]


def yuxi_added_chain(r):
    """Seat 1 pons the dealer's 7p, konges the dealer's 5m (明杠), adds its drawn 7p
    on the replacement (补杠: nobody robs) and wins on the next replacement 9s."""
    hands = {0: JA + "7p", 1: "77p555m123p456s9s1s", 2: JB, 3: JC}
    return play_script(
        r,
        hands,
        {1: ["pon 7p", "discard 1s", "kong 5m", "kong 7p", "win"]},
        draws="? ? 5m",
        tail="7p 9s",
    )


def xuezhan_chain(r):
    """XZ_CHAIN played to the end: 明杠 5s, 暗杠 7p on its replacement, win on 9p."""
    return xz.run(
        XZ_CHAIN, voids="pmmm", tail="7p 9p", rules=r, scripts={1: ["kong 5s", "kong 7p", "win 9p"]}
    )


CHAINS = {
    "yuxi": (yuxi_chain, yx.rules),
    "yuxi-added": (yuxi_added_chain, yx.rules),
    "xuezhan": (xuezhan_chain, lambda s: xz.XZ(dian_gang_hua_link=s.split("=")[1])),
}


def logged(st, r, tmp_path, name="run"):
    """The scripted hand as a run directory: exported as JSON lines, imported."""
    from mjlog.interchange import FORMAT, event_to_json, import_lines
    from mjlog.replay import fmt_ordered
    from mjlog.variants import break_position

    dice = (3, 4)
    head = {
        "format": FORMAT,
        "variant": r.variant,
        "rules": r.to_json(),
        "players": ["scripted"] * r.n,
        "dealer": st.dealer,
        "dice": list(dice),
        "break": break_position(r.variant, dice, st.dealer, r.n, len(st.wall)),
        "wall": fmt_ordered(st.wall),
    }
    lines = [json.dumps(head)] + [json.dumps(event_to_json(i, e)) for i, e in enumerate(st.events)]
    out = tmp_path / name
    import_lines(lines, out, warn=lambda msg: None)
    return out


@pytest.mark.parametrize("link", ["first", "last"])
@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_a_kong_chain_played_and_audited(chain, link, tmp_path):
    """A chain of kongs (exposed kong, another kong on its replacement, the win on
    the next replacement), played by the engine, logged and audited: the auditor
    accepts it, and the win is paid as dian_gang_hua_link says (RULES.md §2, §3:
    ``first`` makes the chain 点杠花, paid by the first kong's feeder alone)."""
    from mjlog.audit import audit_runs
    from mjlog.logio import read_table

    play, rules = CHAINS[chain]
    r = rules(f"dian_gang_hua_link={link}")
    st, _ = play(r)
    (w, *_) = st.wins
    kongs = [e for e in st.events[: w.seq] if e.type == "kong" and e.seat == w.seat]
    assert [k.kind for k in kongs][-2:][0] == "exposed" and len(kongs) >= 2
    run = logged(st, r, tmp_path)
    res = audit_runs([run], workers=1)
    assert res.problems == [] and res.hands == 1
    paid = [
        (t["payer"], t["amount"])
        for t in read_table(run, "transfers").to_pylist()
        if t["reason"] == "win" and t["payee"] == w.seat and t["seq"] < w.seq + r.n
    ]
    feeder = kongs[-2].from_seat
    if link == "first":  # 点杠花: the feeder of the chain's first kong pays alone
        assert paid == [(feeder, w.points)] and w.from_seat == feeder
    else:  # the last kong (concealed or added) decides: a self-draw
        assert sorted(p for p, _ in paid) == [s for s in range(r.n) if s != w.seat]
        assert w.from_seat is None
    # the same log under the other link is refused at the win (its payer differs)
    other = r.replace(dian_gang_hua_link="last" if link == "first" else "first")
    res = audit_runs([logged(st, other, tmp_path, "other")], workers=1)
    assert min(p.seq for p in res.problems if p.seq is not None) == w.seq


# ---------------------------------------------------------------- xuezhan void_first

# seat 1 (void m) holds 1m and draws 5p, then 9s; the dealer (void s) discards its 2s
VOID_HANDS = {0: "123m456m789m1234p 2s", 1: "1m123p456p789p11s2s"}


def void_hand(rules):
    return xz.run(
        VOID_HANDS, voids="smpp", draws="5p ? ? ? 9s", rules=rules, scripts={0: ["discard 2s"]}
    )


def seat1_first_discards(ag):
    first = next(o for o in ag[1].offers if o[-1] is not None and o[0].type != "void")
    return sorted(o.tile for o in first if o.type == DISCARD)


def test_void_first_false_lets_the_void_suit_wait():
    st, ag = void_hand(xz.XZ())
    assert len(seat1_first_discards(ag)) > 1
    d = next(e for e in st.events if e.type == DISCARD and e.seat == 1)
    assert d.tile == xz.T("5p")  # the drawn tile, not the void 1m
    # the auditor refuses the same log under void_first = true, naming the rule
    applied, disc = replay_under(st, xz.XZ(void_first=True))
    k = st.events.index(d)
    assert (applied, disc.seq, disc.check) == (k, k, Check.VOID_FIRST)
    assert "void_first" in disc.rules


def test_void_first_true_allows_only_void_tiles_while_one_is_held():
    st, ag = void_hand(xz.XZ(void_first=True))
    assert seat1_first_discards(ag) == [xz.T("1m")]
    d = [e for e in st.events if e.type == DISCARD and e.seat == 1]
    assert d[0].tile == xz.T("1m")
    # once the void suit is gone every held kind may go again
    later = [o for o in ag[1].offers if o[-1] is not None and o[0].type != "void"][1]
    assert len([o for o in later if o.type == DISCARD]) > 1
    assert replay_under(st, xz.XZ(void_first=True)) == (len(st.events), None)


# ---------------------------------------------------------------- huangmei menqing_on_discard

HM = {0: "111z222z333z777z2m 1s", 1: "123m456m789p55s23s"}  # seat 1 waits 1s/4s (两面)


def hm_rules(**kw):
    return resolve("huangmei", sets=[f"{k}={v}" for k, v in kw.items()])


def test_menqing_on_discard_true_counts_menqing_on_a_discard():
    st, _ = play_script(hm_rules(), HM, {1: ["win 1s"]})
    assert [(w.seat, w.method, w.patterns, w.fan) for w in st.wins] == [
        (1, "discard", ("pinghu", "menqing"), 2)
    ]


def test_menqing_on_discard_false_drops_menqing_so_the_plain_hand_is_below_min_fan():
    # the seed's "如果2条3条听胡1条4条别人出了不能胡" follows from the 2-fan minimum:
    # without 门前清 the concealed two-sided hand holds only 平胡 on a discard
    strict = hm_rules(menqing_on_discard="false")
    st, ag = play_script(strict, HM, {0: ["discard 1s"]}, stop=True)
    assert offered(ag[1], WIN) == 0 and st.wins == []
    ok, _ = play_script(hm_rules(), HM, {1: ["win 1s"]})
    applied, d = replay_under(ok, strict)
    k = win_seq(ok, 1)
    assert (applied, d.seq, d.check) == (k, k, Check.MIN_FAN)
    assert "min_fan" in d.rules


# seat 1: a concealed 清一色 waiting two-sided on 1m/4m (RULES.md, decided turn 3:
# no two-sided ban overrides a 清一色 or 混一色)
QINGYISE = {0: "111z222z333z777z2p 4m", 1: "123m456m789m55m23m"}


def test_menqing_on_discard_false_lets_a_concealed_qingyise_win_two_sided():
    strict = hm_rules(menqing_on_discard="false")
    st, _ = play_script(strict, QINGYISE, {1: ["win 4m"]})
    assert [(w.seat, w.method, w.patterns, w.fan) for w in st.wins] == [
        (1, "discard", ("pinghu", "qingyise"), 16)
    ]
    assert replay_under(st, strict) == (len(st.events), None)


# seat 2 pons the dealer's 1s and adds the fourth it draws; seat 1 (two-sided on
# 1s/4s, concealed) may not win on the discard (平胡 alone) but robs the kong
ROB = {
    0: "111z222z333z777z2m 1s",
    1: "123m456m789p55s23s",
    2: "11s258m369p44557z",
    3: "147m258p369s1234z",
}


@pytest.mark.parametrize(
    "flag, patterns, fan",
    [
        ("true", ("pinghu", "menqing", "qiangganghu"), 7),
        # robbing a kong is no discard: 门前清 still counts (RULES.md, decided turn 3)
        ("false", ("pinghu", "menqing", "qiangganghu"), 7),
    ],
)
def test_menqing_counts_when_robbing_a_kong(flag, patterns, fan):
    r = hm_rules(menqing_on_discard=flag)
    # by default seat 1 could win on the dealer's 1s (平胡 + 门前清): it passes
    passes = ["pass 1s"] if flag == "true" else []
    script = {1: [*passes, "win 1s"], 2: ["pon 1s", "kong 1s"]}
    st, _ = play_script(r, ROB, script, draws="9s 9s 9s 1s")
    assert [(w.seat, w.method, w.from_seat, w.patterns, w.fan) for w in st.wins] == [
        (1, "robbed_kong", 2, patterns, fan)
    ]
    assert pays(st) == [(2, 1, fan, "win")]
    assert replay_under(st, r) == (len(st.events), None)


@pytest.mark.parametrize(
    "how, bonus, sets, patterns",
    [
        # 门前清 only on a self-draw
        ("self", 0, {}, ["pinghu", "zimo", "menqing"]),
        # a single wait (卡档) on a discard: allowed, but without 门前清
        ("discard", 0, {"--win": "2s", "--hand": "123m456m789p55s13s"}, ["pinghu", "kadang"]),
        # a laid-out 发 reaches 2 fan
        ("discard", 1, {}, ["pinghu", "facai"]),
        # a concealed 清一色 on a two-sided wait
        ("discard", 0, {"--win": "4m", "--hand": "123m456m789m55m23m"}, ["pinghu", "qingyise"]),
        # and a 混一色
        ("discard", 0, {"--win": "4m", "--hand": "123m456m789m11z23m"}, ["pinghu", "hunyise"]),
        # robbing a kong is no discard: 门前清 counts (平胡 1 + 门前清 1 + 抢杠 5 = 7)
        ("robbed-kong", 0, {}, ["pinghu", "menqing", "qiangganghu"]),
    ],
)
def test_menqing_on_discard_false_in_the_scorer(how, bonus, sets, patterns):
    hand = sets.get("--hand", "123m456m789p55s23s")
    args = [
        "score",
        "huangmei",
        hand,
        "--win",
        sets.get("--win", "1s"),
        "--by",
        how,
        "--bonus",
        str(bonus),
        "--set",
        "menqing_on_discard=false",
        "--json",
    ]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["patterns"] == patterns


def test_menqing_on_discard_false_refuses_the_seeds_example_by_min_fan():
    args = [
        "score",
        "huangmei",
        "123m456m789p55s23s",
        "--win",
        "1s",
        "--by",
        "discard",
        "--set",
        "menqing_on_discard=false",
        "--json",
    ]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 1
    out = json.loads(res.output)
    assert (out["reason"], out["patterns"], out["fan"]) == ("below_min_fan", ["pinghu"], 1)


# ---------------------------------------------------------------- huangmei ziyise_hunyise

ZIYISE = {0: "123m456p789s11s23m 5z", 1: "111z222z333z444z5z"}


@pytest.mark.parametrize(
    "flag, patterns, fan",
    [
        ("true", ("pinghu", "menqing", "dandiao", "pengpenghu", "hunyise"), 33),
        ("false", ("pinghu", "menqing", "dandiao", "pengpenghu"), 18),
    ],
)
def test_ziyise_hunyise(flag, patterns, fan):
    st, _ = play_script(hm_rules(ziyise_hunyise=flag), ZIYISE, {1: ["win 5z"]})
    assert [(w.seat, w.method, w.patterns, w.fan, w.points) for w in st.wins] == [
        (1, "discard", patterns, fan, fan)
    ]
    assert replay_under(st, hm_rules(ziyise_hunyise=flag)) == (len(st.events), None)
    other = hm_rules(ziyise_hunyise="false" if flag == "true" else "true")
    assert replay_under(st, other)[1].check == Check.TRANSFER  # the win's payment


# ---------------------------------------------------------------- keys, CLI, runs

NEW_KEYS = {
    "yuxi": {
        "kong_wins_big": (True, "false", "maybe"),
        "chadajiao_value": ("best_self_draw", "best_discard", "best"),
        "dian_gang_hua_link": ("last", "first", "middle"),
    },
    "xuezhan": {
        "dian_gang_hua_link": ("last", "first", "1"),
        "void_first": (False, "true", "first"),
    },
    "huangmei": {
        "menqing_on_discard": (True, "false", "2"),
        "ziyise_hunyise": (True, "false", "yes please"),
        "doubling_cap": (10, "3", "-1"),
    },
}
CASES = [(v, k, *vals) for v, ks in NEW_KEYS.items() for k, vals in ks.items()]


@pytest.mark.parametrize("variant, key, default, switched, bad", CASES)
def test_key_shown_round_tripped_and_strictly_parsed(
    variant, key, default, switched, bad, tmp_path
):
    assert resolve(variant)[key] == default
    res = CliRunner().invoke(main, ["rules", variant, "--set", f"{key}={switched}"])
    assert res.exit_code == 0, res.output
    line = next(x for x in res.output.splitlines() if x.startswith(f"{key} = "))
    assert "(changed; default" in line
    path = tmp_path / "r.toml"
    path.write_text(res.output)
    assert resolve(variant, file=str(path)) == resolve(variant, sets=[f"{key}={switched}"])
    with pytest.raises(RuleError) as e:
        resolve(variant, sets=[f"{key}={bad}"])
    assert key in str(e.value) and "\n" not in str(e.value)
    res = CliRunner().invoke(main, ["rules", variant, "--set", f"{key}={bad}"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert len([x for x in res.output.splitlines() if x.strip()]) == 1


SWITCHED = {
    "yuxi": ["kong_wins_big=false", "chadajiao_value=best_discard", "dian_gang_hua_link=first"],
    "yuxi-flat": ["chadajiao_value=flat", "dian_gang_hua_link=first"],
    "xuezhan": ["void_first=true", "dian_gang_hua_link=first"],
    "huangmei": ["menqing_on_discard=false", "ziyise_hunyise=false"],
}


@pytest.mark.parametrize("name", sorted(SWITCHED))
def test_runs_under_the_switched_keys_validate(name, tmp_path):
    variant = name.split("-")[0]
    sets = [a for s in SWITCHED[name] for a in ("--set", s)]
    out = tmp_path / "run"
    res = CliRunner().invoke(
        main,
        [
            "simulate",
            "--variant",
            variant,
            *sets,
            "--matches",
            "2",
            "--hands-per-match",
            "4",
            "--agents",
            "strategic,efficient,greedy,random",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["validate", str(out), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "problems 0" in res.output
