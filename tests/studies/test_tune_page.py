"""``mjlog report TUNE_DIR``: a tune as a page, through the CLI.

The tune is the smallest that has every part: two keys (a money-only one, base,
and 清一色's points) and two targets (money moved, a ``±`` target; 七对's share of
wins, a bound) under ``greedy``, which ignores the rules' values, so base moves money
exactly, 七对 moves with nothing, and the side effects are known.
"""

from __future__ import annotations

import base64
import json
import re
import shutil

import pytest
from click.testing import CliRunner

from analysis import fonts, plots
from analysis.studies.sample import data_dir
from analysis.studies.tune import page
from mjlog.cli import main
from tests.sealed import damage

TUNE = ["tune", "yuxi", "--vary", "base=1:10", "--vary", "points.qingyise=3/4:13/14"]
TUNE += ["--target", "money_moved_per_hand=30±1", "--target", "pattern_rate[qidui]<=0.5"]
TUNE += ["--budget", "256", "--trials", "4", "--agents", "greedy", "--workers", "1"]
TUNE += ["--quiet", "--format", "json"]


def _cli(*args: str):
    r = CliRunner().invoke(main, list(args))
    assert r.exit_code == 0, r.output
    return r


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """The tune's directory, its answer, and its page rendered by mjlog report."""
    d = tmp_path_factory.mktemp("page")
    res = json.loads(_cli(*TUNE, "--out", str(d / "t")).stdout)
    printed = _cli("report", str(d / "t"), "--out", str(d / "r")).stdout.strip()
    assert printed == str(d / "r" / "index.html")
    return d, res, (d / "r" / "index.html").read_text(encoding="utf-8")


def _section(html: str, heading: str) -> str:
    start = html.index(f">{heading}</h2>")
    end = html.find("<h2", start)
    return html[start:end]


def test_the_tune_writes_its_result_beside_its_journal(tuned):
    d, res, _ = tuned
    assert json.loads((d / "t" / "result.json").read_text(encoding="utf-8")) == res


def test_the_page_names_every_target_and_key(tuned):
    _, res, html = tuned
    assert html.startswith("<!doctype html>") and html.rstrip().endswith("</html>")
    assert f"mjlog tune yuxi · {res['tune_id']}" in html  # the default title
    for key in ("base", "points.qingyise 清一色"):
        assert key in _section(html, "Proposal 提案")
    targets = _section(html, "Targets 目标")
    assert "money_moved_per_hand=30±1" in targets and "pattern_rate[qidui]&lt;=0.5" in targets
    row = res["targets"][0]
    assert f"{row['value']:.4g} [{row['lo']:.4g}, {row['hi']:.4g}]" in targets
    assert row["verdict"].upper() in targets
    # the proposal's keys against the rulebook's, and why a key was kept
    assert res["kept"]["points.qingyise"] in html
    assert "No varied key moves pattern_rate[qidui]" in html


def test_the_side_effects_are_listed_those_that_differ_first(tuned):
    _, res, html = tuned
    effects = _section(html, "Side effects 副作用")
    verdicts = re.findall(r"<td>(differs|inconclusive|equivalent[^<]*|identical)</td>", effects)
    assert len(verdicts) == len(res["side_effects"]) > 0
    order = ["differs", "inconclusive", "equivalent", "identical"]
    ranks = [next(i for i, v in enumerate(order) if w.startswith(v)) for w in verdicts]
    assert ranks == sorted(ranks) and ranks[0] == 0  # base moves points per win
    differ = sum(e["verdict"] == "differs" for e in res["side_effects"])
    assert f"{differ} of {len(res['side_effects'])} other figures differ" in effects
    assert "money_moved_per_hand" not in effects  # a target, not a side effect


def test_what_the_budget_could_confirm(tuned):
    _, res, html = tuned
    budget = _section(html, "Budget 预算")
    row = res["targets"][0]
    assert row["confirmable"] is False  # 256 hands cannot pin money moved to ±1
    assert f"{row['hands_needed']:,}" in budget and "NO" in budget


def test_the_response_figure_is_embedded_and_its_chinese_renders(tuned):
    d, res, html = tuned
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(images) == 1 and base64.b64decode(images[0])[:4] == b"\x89PNG"
    tune = page.read(d / "t")
    fig = page.response_figure(tune)
    assert len(fig.axes) == 2 * 2  # one panel per target × key
    labels = " ".join(plots.texts(fig))
    assert "清一色" in labels and "小七对" in labels  # yuxi's 七对
    assert fonts.missing(labels) == ""  # every character has a glyph: no tofu
    # every trial's run is here: each has its interval, in the figure and the table
    assert set(tune.intervals) == {t["trial"] for t in res["trials"]}
    trials = _section(html, "Trials 试验")
    assert trials.count(" [") >= len(res["trials"])


def test_a_tune_whose_runs_are_gone_still_renders_from_its_journal(tuned, tmp_path):
    # the committed sample: a journal only, written before tunes wrote result.json
    src = data_dir() / "tune" / "huangmei-qidui"
    _cli("report", str(src), "--out", str(tmp_path / "r"), "--figures", "svg", "--title", "七对")
    html = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "<title>七对</title>" in html and "data:image/svg+xml;base64," in html
    assert "fan.qidui 七一对" in html and "pattern_rate[qidui]=0.05±0.01" in html
    assert "Not recorded" in _section(html, "Side effects 副作用")
    shutil.copytree(src, tmp_path / "copy")
    assert not page.read(tmp_path / "copy").intervals  # no runs: points, no intervals


def test_a_hostile_result_is_shown_escaped(tuned, tmp_path):
    d, res, _ = tuned
    shutil.copytree(d / "t", tmp_path / "t", ignore=shutil.ignore_patterns("trials", "confirm*"))
    doc = dict(res, kept={"points.qingyise": '<script>alert("x")</script>'})
    (tmp_path / "t" / "result.json").write_text(json.dumps(doc), encoding="utf-8")
    _cli("report", str(tmp_path / "t"), "--out", str(tmp_path / "r"))
    html = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html and "&lt;script&gt;alert(" in html


def test_a_changed_trial_run_is_named_not_drawn(tuned, tmp_path):
    # a trial's run is measured for its interval with its files verified
    d, _, _ = tuned
    shutil.copytree(d / "t", tmp_path / "t")
    f = damage(next((tmp_path / "t" / "trials" / "000").rglob("*.parquet")))
    r = CliRunner().invoke(main, ["report", str(tmp_path / "t"), "--out", str(tmp_path / "r")])
    assert r.exit_code == 2 and str(f) in r.output and len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


@pytest.fixture(scope="module")
def unchanged(tmp_path_factory):
    """A tune that proposes no change (greedy ignores 七对's value, so no candidate
    moves the target): its answer and its page."""
    d = tmp_path_factory.mktemp("unchanged")
    tune = ["tune", "huangmei", "--vary", "fan.qidui=5:60:5"]
    tune += ["--target", "pattern_rate[qidui]=0.05±0.01", "--agents", "greedy"]
    tune += ["--budget", "256", "--trials", "4", "--workers", "1", "--quiet", "--format", "json"]
    res = json.loads(_cli(*tune, "--out", str(d / "t")).stdout)
    _cli("report", str(d / "t"), "--out", str(d / "r"))
    text = (d / "t" / "report.txt").read_text(encoding="utf-8")
    return res, (d / "r" / "index.html").read_text(encoding="utf-8"), text


def test_no_change_because_no_key_moves_a_target_is_said_once(unchanged):
    # the page gives the reason for no change once, not again as a note of its own
    res, html, _ = unchanged
    assert "pattern_rate[qidui]" in res["no_change"]
    proposal = _section(html, "Proposal 提案")
    assert proposal.count("No change proposed") == 1
    assert proposal.count("moves pattern_rate[qidui]") == 1


def test_with_no_change_the_rules_as_they_are_show_their_confirmed_figures(unchanged):
    # the proposal is the rules as they are: the confirmation measured them, so their
    # column holds its figure and interval (and verdict), not a dash; nothing to pair;
    # the tune's own report.txt says so too (not "after")
    res, html, text = unchanged
    assert not res["changed"] and not res["targets_before"]
    row = res["targets"][0]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", _section(html, "Targets 目标"))
    target, rules, before, proposal, verdict, paired, matches = cells
    figure = f"{row['value']:.4g} [{row['lo']:.4g}, {row['hi']:.4g}]"
    assert rules == proposal == figure
    assert before == row["verdict"] and verdict == row["verdict"].upper()
    assert paired == "none: the same rules" and matches == str(row["matches"])
    assert f"0.05±0.01: the rules as they are {row['value']:.4g} [" in text
