"""The hostile-input suite, rules (issue #38): a win the rules refuse is said in
one line naming the rule, flags a variant does not have are refused, and a log
that breaks a rule is a finding that quotes what the rules say.

- ``mjlog score`` of a win the rules refuse: exit 1, one line on stdout
  (``legal: no (…)``) naming the rule key that refuses it, no traceback, nothing
  on stderr;
- ``mjlog score --last-four`` where there is no 尾牌强制: refused, one line;
- ``mjlog validate`` of a run whose win transfer was changed: the follow-up
  ``win_total`` finding quotes the total the rules recompute, not the log's sum;
- ``mjlog validate`` of a kong chain paid under the other ``dian_gang_hua_link``:
  a finding at the win.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile import refused, run

PLAIN = ["123m234m456p789s9p", "--win", "9p"]  # a yuxi plain hand on 9p
KONG_WINS = {
    "gangshangpao": ["score", "yuxi", *PLAIN, "--by", "discard", "--after-kong"],
    "qiangganghu": ["score", "yuxi", "123m67m456p789s99p", "--win", "5m", "--by",
                    "robbed-kong"],
}


def refused_win(args: list[str], cwd: Path, needle: str) -> str:
    """``mjlog score`` of no legal win: exit 1, one line naming ``needle``."""
    res = run(args, cwd, isolate=False)
    cmd = "mjlog " + " ".join(args)
    assert res.code == 1, f"{cmd}: exit {res.code}\n{res.stdout}{res.stderr}"
    assert "Traceback" not in res.stdout + res.stderr and not res.stderr.strip(), cmd
    lines = res.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("legal: no ("), f"{cmd}: {res.stdout!r}"
    assert needle in lines[0], f"{cmd}: {needle!r} not in {lines[0]!r}"
    return lines[0]


@pytest.mark.parametrize("win", sorted(KONG_WINS))
def test_a_kong_win_refused_under_kong_wins_big_false_names_the_key(win, tmp_path):
    refused_win([*KONG_WINS[win], "--set", "kong_wins_big=false"], tmp_path, "kong_wins_big")


def test_the_seeds_two_sided_example_is_refused_by_min_fan(tmp_path):
    # huangmei's "2条3条听胡1条4条别人出了不能胡": no two-sided ban, the 2-fan minimum
    line = refused_win(["score", "huangmei", "123m456m789p55s23s", "--win", "1s", "--by",
                        "discard", "--set", "menqing_on_discard=false"], tmp_path, "min_fan")
    assert "two" not in line


@pytest.mark.parametrize("variant, hand", [("xuezhan", "123m456m789p11p23m"),
                                           ("huangmei", "123m456m789p11z23m")])
def test_last_four_where_there_is_no_forced_zone(variant, hand, tmp_path):
    refused(["score", variant, hand, "--win", "4m", "--by", "discard", "--last-four"],
            tmp_path, needle=f"--last-four: {variant} has no 尾牌强制", isolate=False)


def test_a_kong_chain_paid_under_the_other_link_is_a_finding(tmp_path):
    # the engine's chain (tests/test_new_keys.py) played under dian_gang_hua_link =
    # first, logged with rules that say last: the win is no self-draw for every payer
    from tests.test_new_keys import logged, yuxi_chain
    from tests.test_yuxi_rules import rules

    st, _ = yuxi_chain(rules("dian_gang_hua_link=first"))
    r = logged(st, rules("dian_gang_hua_link=last"), tmp_path)
    res = refused(["validate", str(r), "--format", "json"], tmp_path, inputs=[r],
                  finding=True, isolate=False)
    problems = json.loads(res.stdout)["problems"]
    assert problems and min(p["seq"] for p in problems if p["seq"] is not None) == \
        st.wins[0].seq
