"""``mjlog tune VARIANT --rescore``: the table rule on synthetic rates (order, each
variant's form, ranges, the fixed point), and one small run end to end."""

from __future__ import annotations

import json
import math
import shutil
import tomllib

import pytest
from click.testing import CliRunner

from analysis.studies.rescore import TableRule, fixed_point, level, parse_patterns, value_key
from mjlog.cli import main
from mjlog.errors import InputError
from mjlog.rules import keys, resolve
from mjlog.variants import get_variant

WINS = 1000


def _counts(variant: str, given: dict[str, int], rest: int = 50) -> dict[str, int]:
    """A count of wins for every pattern of the variant: ``given``, the rest ``rest``."""
    return {p: given.get(p, rest) for p in get_variant(variant).patterns(resolve(variant))}


def _rule(variant: str, named=(), sets=()) -> TableRule:
    rules = resolve(variant, sets=list(sets))
    return TableRule.of(rules, parse_patterns(list(named), rules))


def _levels(rule: TableRule, table) -> dict[str, int]:
    spec = keys(rule.variant)
    return {
        p: level(spec[value_key(rule.variant, p)], table[value_key(rule.variant, p)])
        for p in rule.patterns
    }


# ------------------------------------------------------------------ the table rule
@pytest.mark.parametrize("variant", ["huangmei", "xuezhan", "yuxi"])
def test_rarer_pays_more_commonest_lowest_never_seen_highest(variant):
    rule = _rule(variant)
    pats = rule.patterns
    # a spread of rates: the first pattern commonest, the last never seen
    counts = {p: round(WINS * 0.9 ** (3 * i)) for i, p in enumerate(pats)}
    counts[pats[-1]] = 0
    table, _ = rule(counts, WINS)
    lv, before = _levels(rule, table), _levels(rule, rule.original)
    assert lv[pats[0]] == min(before.values())  # the commonest keeps the lowest
    assert lv[pats[-1]] == max(before.values())  # never seen: the top, not infinity
    for a in pats:  # rarer never pays less
        for b in pats:
            if counts[a] < counts[b]:
                assert lv[a] >= lv[b], (a, b)


@pytest.mark.parametrize("variant", ["huangmei", "xuezhan", "yuxi"])
def test_values_are_whole_in_the_variants_form_and_in_range(variant):
    rule = _rule(variant)
    counts = {p: (37 * i) % 400 for i, p in enumerate(rule.patterns)}
    table, _ = rule(counts, WINS)
    spec = keys(variant)
    for key, value in table.items():
        rk = spec[key]
        assert rk.parse(rk.show(value), variant) == value  # the key's own range and form
        if rk.kind == "int":
            assert isinstance(value, int)
        elif rk.kind == "pow2":
            assert value >= 1 and value & (value - 1) == 0
        else:  # a yuxi pair keeps where it has a value, and its S:D ratio, rounded
            old = rule.original[key]
            assert [v is None for v in value] == [v is None for v in old]
            top, was = max(v for v in value if v is not None), max(v for v in old if v is not None)
            for v, o in zip(value, old, strict=True):
                if o is not None:
                    assert abs(v - o * top / was) <= 0.5 or v == 1


@pytest.mark.parametrize(
    "variant, big, small",
    [
        ("xuezhan", "qingqidui", "qidui"),
        ("xuezhan", "qingqidui", "qingyise"),
        ("xuezhan", "qinglongqidui", "qingqidui"),
        ("yuxi", "longqidui", "qidui"),
        ("huangmei", "quanqiuren", "pengpenghu"),
        ("huangmei", "gangshanghua", "zimo"),
    ],
)
def test_a_pattern_never_pays_less_than_one_it_contains(variant, big, small):
    rule = _rule(variant)
    # the data say the containing pattern is the commoner (as a small sample may)
    counts = _counts(variant, {big: 300, small: 2}, rest=100)
    table, why = rule(counts, WINS)
    spec = keys(variant)
    kb, ks = value_key(variant, big), value_key(variant, small)
    assert level(spec[kb], table[kb]) >= level(spec[ks], table[ks])
    if spec[kb].kind == "pair":
        assert all(
            a >= b
            for a, b in zip(table[kb], table[ks], strict=True)
            if a is not None and b is not None
        )
    assert small in why[big]


def test_containment_seen_in_the_data_is_kept_too():
    rule = _rule("huangmei", ["kadang", "dandiao"])
    counts = _counts("huangmei", {"kadang": 400, "dandiao": 20})
    plain, _ = rule(counts, WINS)
    assert plain["fan.kadang"] < plain["fan.dandiao"]
    # every kadang win also had dandiao (as if): kadang must pay at least as much
    table, why = rule(counts, WINS, observed={"kadang": {"dandiao"}})
    assert table["fan.kadang"] >= table["fan.dandiao"] and "dandiao" in why["kadang"]


def test_four_facai_never_pay_less_than_four_single_ones():
    rule = _rule("huangmei", ["facai"])
    table, _ = rule(_counts("huangmei", {"pinghu": 990, "facai": 30}, rest=600), WINS)
    assert table["fan.facai"] > 2 and table["fan.facai_all"] >= 4 * table["fan.facai"]


def test_patterns_not_named_keep_their_values():
    whole, named = _rule("huangmei"), _rule("huangmei", ["qidui", "qingyise"])
    counts = {p: (53 * i) % 500 + 1 for i, p in enumerate(whole.patterns)}
    all_of_it, _ = whole(counts, WINS)
    table, _ = named(counts, WINS)
    for p in whole.patterns:
        k = value_key("huangmei", p)
        # a named pattern gets what the whole table's rule gives it; the others stay
        assert table[k] == (all_of_it[k] if p in ("qidui", "qingyise") else whole.original[k])


# ------------------------------------------------------------------ the fixed point
def _chasing(rule: TableRule, gain: float):
    """A synthetic response: agents chase value, so a pattern's rate grows with it;
    the step plays a table and proposes the next, as a round does."""
    spec = keys(rule.variant)
    base = {p: 0.6 * 0.7**i for i, p in enumerate(rule.patterns)}
    played = []

    def step(_r, table):
        played.append(table)
        counts = {
            p: round(
                WINS
                * min(
                    0.99,
                    base[p]
                    * (
                        1
                        + gain
                        * level(spec[value_key(rule.variant, p)], table[value_key(rule.variant, p)])
                    ),
                )
            )
            for p in rule.patterns
        }
        return rule(counts, WINS, history=played)[0]

    return step


@pytest.mark.parametrize(
    "variant, gain", [("xuezhan", 0.05), ("yuxi", 0.05), ("huangmei", 0.02), ("huangmei", 0.1)]
)
def test_the_fixed_point_is_reached_on_a_synthetic_response(variant, gain):
    # huangmei at 0.1: qidui's rate jumps across a whole level when its fan moves by
    # one, so plain rounding flips it between 26 and 27 for ever; the step settles it
    rule = _rule(variant)
    step = _chasing(rule, gain)
    table, status, played = fixed_point(rule.original, step, 12)
    assert status == "converged" and played >= 2
    assert step(played, table) == table  # the table reproduces itself


def test_the_round_limit_is_named():
    rule = _rule("huangmei", ["qidui"])
    assert fixed_point(rule.original, _chasing(rule, 0.05), 1)[1:] == ("max_rounds", 1)


# ------------------------------------------------------------------ names
def test_every_family_names_patterns_of_its_own_variant():
    for v in ("yuxi", "xuezhan", "huangmei"):
        pats = set(get_variant(v).patterns())
        for big, small in get_variant(v).scorer.CONTAINS.items():
            assert big in pats and set(small) <= pats, (v, big, small)


@pytest.mark.parametrize(
    "names, needle",
    [
        (["nothing"], "has no pattern 'nothing'"),
        (["gen"], "a pattern of xuezhan"),
        (["qidui", "qidui"], "twice"),
    ],
)
def test_bad_pattern_names_are_refused(names, needle):
    with pytest.raises(InputError, match=needle):
        parse_patterns(names, resolve("huangmei"))


# ------------------------------------------------------------------ end to end
RUN = [
    "tune",
    "huangmei",
    "--rescore",
    "qidui",
    "pengpenghu",
    "qingyise",
    "hunyise",
    "--agents",
    "greedy",
    "--budget",
    "480",
    "--rounds",
    "3",
    "--quiet",
]


@pytest.fixture(scope="module")
def rescored(tmp_path_factory):
    d = tmp_path_factory.mktemp("rescore")
    r = CliRunner().invoke(
        main, [*RUN, "--workers", "1", "--format", "json", "--out", str(d / "r")]
    )
    assert r.exit_code == 0, r.output
    return d, json.loads(r.stdout)


def test_a_rescore_writes_its_table_files_and_json(rescored):
    d, res = rescored
    assert res["stop"] in ("converged", "max_rounds")
    assert 1 <= res["rounds_played"] <= 3 and res["hands"] > 0
    assert res["confirm_seed"] != res["seed"] and res["agents"] == ["greedy"]
    rows = {r["pattern"]: r for r in res["table"]}
    assert set(rows) == set(get_variant("huangmei").patterns(resolve("huangmei")))
    for p, row in rows.items():
        assert set(row) >= {"key", "old", "new", "rate_old", "rate_new", "rescored"}
        assert row["rescored"] == (p in ("qidui", "pengpenghu", "qingyise", "hunyise"))
        if not row["rescored"]:
            assert row["new"] == row["old"]
        for rate in (row["rate_old"], row["rate_new"]):
            assert rate["lo"] <= rate["value"] <= rate["hi"]
    text = (d / "r" / "rules.toml").read_text(encoding="utf-8")
    doc = tomllib.loads(text)
    # the proposal: every rescored pattern's key (and what the order moved), as in "best"
    assert {f"fan.{k}": str(v) for k, v in doc["fan"].items()} == res["best"]
    assert {r["key"]: str(r["new"]) for r in res["table"] if r["rescored"]}.items() <= res[
        "best"
    ].items()
    assert "qidui" in text and "of wins" in text  # each value's evidence, commented
    r = CliRunner().invoke(main, ["rules", "huangmei", "--rules", str(d / "r" / "rules.toml")])
    assert r.exit_code == 0 and f"qidui = {rows['qidui']['new']}" in r.stdout
    journal = json.loads((d / "r" / "tune.json").read_text(encoding="utf-8"))
    assert len(journal["rounds"]) == res["rounds_played"]


def test_a_rescore_rerun_is_the_same_answer_and_plays_nothing(rescored):
    d, res = rescored
    journal = (d / "r" / "tune.json").read_bytes()
    again = CliRunner().invoke(
        main, [*RUN, "--workers", "1", "--format", "json", "--out", str(d / "r")]
    )
    assert json.loads(again.stdout) == res and (d / "r" / "tune.json").read_bytes() == journal
    text = CliRunner().invoke(main, [*RUN, "--out", str(d / "r")]).stdout
    assert "old" in text and "new" in text and res["stop"].replace("_", " ") in text
    assert all(math.isfinite(r["rate_new"]["value"]) for r in res["table"])


def test_a_killed_rescore_resumes_to_the_same_answer_on_other_workers(rescored, tmp_path):
    d, res = rescored
    out = tmp_path / "r"
    shutil.copytree(d / "r", out)
    # as killed after round 0: the journal holds one round, no later run is whole
    doc = json.loads((out / "tune.json").read_text(encoding="utf-8"))
    doc["rounds"], doc["confirm"] = doc["rounds"][:1], None
    (out / "tune.json").write_text(json.dumps(doc), encoding="utf-8")
    for later in [*(out / "rounds").iterdir(), out / "confirm", out / "confirm-before"]:
        if later.exists() and later.name != "00":
            shutil.rmtree(later)
    for f in ("rules.toml", "report.txt"):
        (out / f).unlink()
    r = CliRunner().invoke(main, [*RUN, "--workers", "2", "--format", "json", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == res
    assert (out / "rules.toml").read_bytes() == (d / "r" / "rules.toml").read_bytes()
