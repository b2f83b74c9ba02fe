"""Rulesets as data: defaults, TOML, --set, errors, `mjlog rules`."""

import json

import pytest
from click.testing import CliRunner

from mjlog.cli import main
from mjlog.rules import VARIANTS, RuleError, Rules, keys, resolve

# Every rule key the rulebook (docs/rules/) names, with its default.
EXPECTED_DEFAULTS = {
    "yuxi": {
        "players": 4,
        "base": 1,
        "honors": True,
        "late_added_kong": "pays",
        "rob_exposed_kong": True,
        "dealer_on_draw": "stay",
        "pass_hu_lock": "until_next_draw",
        "last4_plain_on_discard": False,
        "cap": 64,
        "dian_gang_hua": "discarder_pays",
        "bugang_payer": "pon_feeder",
        "horses": 0,
        "points.pinghu": (1, None),
        "points.longqidui": (6, 7),
        "points.gangshangpao": (None, 4),
        "points.shilaotou": (3, None),
        "kong_wins_big": True,
        "chadajiao_value": "best_self_draw",
        "dian_gang_hua_link": "last",
    },
    "xuezhan": {
        "players": 4,
        "first_dealer": "seat0",
        "cap": 16,
        "extras": (),
        "extras_stack": "separate",
        "zimo_bonus": "none",
        "dian_gang_hua": "discarder_pays",
        "call_transfer": False,
        "rob_exposed_kong": False,
        "late_added_kong": "pays",
        "mult.gen": 2,
        "mult.qingshibaluohan": 256,
        "mult.tianhu": 32,
        "dian_gang_hua_link": "last",
        "void_first": False,
    },
    "huangmei": {
        "players": 4,
        "winds": True,
        "min_fan": 2,
        "payment": "linear",
        "rob_exposed_kong": True,
        "fan.facai": 1,
        "fan.facai_all": 8,
        "fan.quanqiuren": 30,
        "fan.qidui": 15,
        "menqing_on_discard": True,
        "ziyise_hunyise": True,
        "doubling_cap": 10,
    },
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_defaults_match_the_rulebook(variant):
    r = Rules(variant)
    for k, v in EXPECTED_DEFAULTS[variant].items():
        assert r[k] == v, k


def test_set_overrides_and_types():
    r = resolve(
        "xuezhan",
        sets=["cap=32", "extras=menqing,daiyaojiu", "call_transfer=true", "mult.longqidui=16"],
    )
    assert r["cap"] == 32 and r["call_transfer"] is True and r["mult.longqidui"] == 16
    assert r["extras"] == ("daiyaojiu", "menqing")  # the rulebook's order
    assert resolve("xuezhan", sets=["extras="])["extras"] == ()
    assert resolve("yuxi", sets=["points.gangshangpao=-/5"])["points.gangshangpao"] == (None, 5)


@pytest.mark.parametrize(
    "variant,setting,needle",
    [
        ("yuxi", "capp=3", "unknown rule key 'capp'"),
        ("yuxi", "cap=abc", "expected an integer"),
        ("yuxi", "players=5", "<= 4"),
        ("yuxi", "honors=maybe", "valid values: true, false"),
        ("yuxi", "dealer_on_draw=left", "valid values: stay, next"),
        ("yuxi", "points.qidui=3", "expected S/D"),
        ("xuezhan", "extras=menqing,foo", "unknown item 'foo'"),
        ("xuezhan", "mult.gen=3", "power of two"),
        ("huangmei", "payment=quadratic", "valid values: linear, doubling"),
        ("yuxi", "nokey", "expected KEY=VALUE"),
    ],
)
def test_bad_settings_are_one_line_errors(variant, setting, needle):
    with pytest.raises(RuleError) as e:
        resolve(variant, sets=[setting])
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_unknown_key_lists_valid_keys():
    with pytest.raises(RuleError) as e:
        resolve("huangmei", sets=["cap=3"])
    assert "valid keys:" in str(e.value) and "min_fan" in str(e.value)


def test_unknown_variant():
    with pytest.raises(RuleError, match="valid variants: yuxi, xuezhan, huangmei"):
        Rules("sichuan")


def test_toml_file(tmp_path):
    f = tmp_path / "r.toml"
    f.write_text('variant = "yuxi"\ncap = 32\nhorses = 2\n[points]\nlongqidui = "8/9"\n')
    r = resolve("yuxi", file=f, sets=["cap=16"])
    assert (r["cap"], r["horses"], r["points.longqidui"]) == (16, 2, (8, 9))
    with pytest.raises(RuleError, match="not 'xuezhan'"):
        resolve("xuezhan", file=f)
    bad = tmp_path / "bad.toml"
    bad.write_text("cap = = 3\n")
    with pytest.raises(RuleError, match="not valid TOML"):
        resolve("yuxi", file=bad)
    with pytest.raises(RuleError, match="cannot read"):
        resolve("yuxi", file=tmp_path / "missing.toml")


@pytest.mark.parametrize("variant", VARIANTS)
def test_json_round_trip_is_identity(variant):
    r = resolve(variant, sets=["players=3"])
    again = Rules(variant, json.loads(json.dumps(r.to_json())))
    assert again == r and again.to_json() == r.to_json()
    assert set(r.to_json()) == set(keys(variant))


def test_rules_cli():
    res = CliRunner().invoke(main, ["rules", "yuxi", "--set", "cap=8"])
    assert res.exit_code == 0
    assert "cap = 8 # " in res.output and "(changed; default 64)" in res.output
    res = CliRunner().invoke(main, ["rules", "xuezhan", "--format", "json"])
    assert json.loads(res.output)["rules"]["cap"] == 16
    res = CliRunner().invoke(main, ["rules", "yuxi", "--set", "bogus=1"])
    assert res.exit_code == 2
    assert "unknown rule key 'bogus'" in res.output
    assert "Traceback" not in res.output


ROUND_TRIP_SETS = {
    "yuxi": [
        "cap=8",
        "points.shilaotou=-/5",
        "points.longqidui=6/7",
        "base=3",
        "kong_wins_big=false",
        "chadajiao_value=flat",
        "dian_gang_hua_link=first",
    ],
    "xuezhan": [
        "cap=32",
        "zimo_bonus=add_base",
        "extras=jiangdui,menqing",
        "mult.qingyise=16",
        "dian_gang_hua_link=first",
        "void_first=true",
    ],
    "huangmei": [
        "fan.qingyise=3",
        "players=3",
        "menqing_on_discard=false",
        "ziyise_hunyise=false",
        "payment=doubling",
        "doubling_cap=6",
    ],
}


@pytest.mark.parametrize("variant", sorted(ROUND_TRIP_SETS))
@pytest.mark.parametrize("changed", [False, True])
def test_rules_output_is_a_rules_file_that_reads_back(variant, changed, tmp_path):
    """`mjlog rules V > r.toml` then `--rules r.toml` gives the same rules, every key."""
    sets = ROUND_TRIP_SETS[variant] if changed else []
    res = CliRunner().invoke(main, ["rules", variant, *[a for s in sets for a in ("--set", s)]])
    assert res.exit_code == 0, res.output
    path = tmp_path / "r.toml"
    path.write_text(res.output)
    want = resolve(variant, sets=sets)
    assert resolve(variant, file=str(path)) == want
    assert resolve(variant, file=str(path)).to_json() == want.to_json()
    assert ("(changed; default" in res.output) == changed
    back = CliRunner().invoke(main, ["rules", variant, "--rules", str(path), "--format", "json"])
    assert json.loads(back.output)["rules"] == want.to_json()
