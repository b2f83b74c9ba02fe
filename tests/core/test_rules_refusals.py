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
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.hostile import refused, run

PLAIN = ["123m234m456p789s9p", "--win", "9p"]  # a yuxi plain hand on 9p
KONG_WINS = {
    "gangshangpao": ["score", "yuxi", *PLAIN, "--by", "discard", "--after-kong"],
    "qiangganghu": ["score", "yuxi", "123m67m456p789s99p", "--win", "5m", "--by", "robbed-kong"],
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
    line = refused_win(
        [
            "score",
            "huangmei",
            "123m456m789p55s23s",
            "--win",
            "1s",
            "--by",
            "discard",
            "--set",
            "menqing_on_discard=false",
        ],
        tmp_path,
        "min_fan",
    )
    assert "two" not in line


@pytest.mark.parametrize(
    "variant, hand", [("xuezhan", "123m456m789p11p23m"), ("huangmei", "123m456m789p11z23m")]
)
def test_last_four_where_there_is_no_forced_zone(variant, hand, tmp_path):
    refused(
        ["score", variant, hand, "--win", "4m", "--by", "discard", "--last-four"],
        tmp_path,
        needle=f"--last-four: {variant} has no 尾牌强制",
        isolate=False,
    )


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """A tiny yuxi run, written once; cases work on copies."""
    d = tmp_path_factory.mktemp("pristine") / "r"
    res = run(
        [
            "simulate",
            "--variant",
            "yuxi",
            "--matches",
            "1",
            "--hands-per-match",
            "3",
            "--agents",
            "greedy",
            "--seed",
            "1",
            "--quiet",
            "--out",
            str(d),
        ],
        d.parent,
        isolate=False,
    )
    assert res.code == 0, res.stderr
    return d


def _bump_first_win_transfer(run_dir: Path, by: int) -> tuple[dict, dict]:
    """Add ``by`` to the run's first win transfer; (that row, its win's row)."""
    path = run_dir / "transfers" / "part-00000.parquet"
    tab = pq.read_table(path)
    rows = tab.to_pylist()
    i = next(i for i, t in enumerate(rows) if t["reason"] == "win")
    tr = dict(rows[i])
    rows[i]["amount"] += by
    pq.write_table(pa.Table.from_pylist(rows, schema=tab.schema), path)
    same = ("match", "rotation", "hand")
    wins = pq.read_table(run_dir / "wins" / "part-00000.parquet").to_pylist()
    win = max(
        (
            w
            for w in wins
            if all(w[k] == tr[k] for k in same)
            and w["seat"] == tr["payee"]
            and w["seq"] < tr["seq"]
        ),
        key=lambda w: w["seq"],
    )
    return tr, win


def test_a_wrong_win_transfer_is_quoted_against_the_recomputed_total(pristine, tmp_path):
    r = tmp_path / "r"
    shutil.copytree(pristine, r)
    _, win = _bump_first_win_transfer(r, 5)
    res = refused(
        ["validate", str(r)],
        tmp_path,
        inputs=[r],
        finding=True,
        needle=f"win_total: the log says {win['total'] + 5}",
        isolate=False,
    )
    line = next(x for x in res.stdout.splitlines() if "win_total" in x)
    assert f"the rules say {win['total']} " in line


def test_a_kong_chain_paid_under_the_other_link_is_a_finding(tmp_path):
    # the engine's chain (tests/core/test_rule_keys_both_ways.py) played under dian_gang_hua_link =
    # first, logged with rules that say last: the win is no self-draw for every payer
    from tests.core.test_rule_keys_both_ways import logged, yuxi_chain
    from tests.core.test_yuxi_rules import rules

    st, _ = yuxi_chain(rules("dian_gang_hua_link=first"))
    r = logged(st, rules("dian_gang_hua_link=last"), tmp_path)
    res = refused(
        ["validate", str(r), "--format", "json"], tmp_path, inputs=[r], finding=True, isolate=False
    )
    problems = json.loads(res.stdout)["problems"]
    assert problems and min(p["seq"] for p in problems if p["seq"] is not None) == st.wins[0].seq
