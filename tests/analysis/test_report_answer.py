"""`mjlog report` leads with the designer's answer: a headline per comparison, each
finding once with the points it holds for, no section that adds nothing for the runs'
shape, the points per payer drawn with the cap, and a default rule value marked
"(default)" (in `compare` too). The runs: a seeded yuxi cap sweep the cap never
binds in (30 matches of 4 hands a point) and the sample xuezhan cap sweep."""

from __future__ import annotations

import html
import re

import pytest
from click.testing import CliRunner

from analysis import plots, queries
from analysis.studies.sample import data_dir
from mjlog.cli import main
from simulate.sweep import parse_grid, sweep

CAPS = data_dir() / "sweep" / "xuezhan-cap"


@pytest.fixture(scope="module")
def unbound(tmp_path_factory):
    """yuxi at cap 64 (its default), 16 and 128: no win of 120 hands pays 16 a payer."""
    out = tmp_path_factory.mktemp("unbound") / "s"
    sweep(
        "yuxi",
        parse_grid(["cap=64,16,128"]),
        out,
        workers=1,
        progress=False,
        seed=11,
        matches=30,
        hands_per_match=4,
        agents=["strategic"],
        events="none",
    )
    return out


@pytest.fixture(scope="module")
def page(unbound, tmp_path_factory):
    out = tmp_path_factory.mktemp("page")
    res = CliRunner().invoke(main, ["report", str(unbound), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return (out / "index.html").read_text(encoding="utf-8")


def _items(page: str, cls: str) -> list[str]:
    block = re.search(rf'<ul class="{cls}">(.*?)</ul>', page, re.S).group(1)
    return [html.unescape(re.sub(r"<[^>]+>", "", i)) for i in re.findall(r"<li>(.*?)</li>", block)]


def _sections(page: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r'<h2 id="s\d+">(.*?)</h2>', page)]


def test_the_answer_comes_first_and_says_the_points_do_not_differ(page):
    assert _sections(page)[:2] == ["Answer 答案", "Findings 结论"]
    answer = _items(page, "answer")
    assert answer[0].startswith("The cap never bound: no win was capped at any cap (64, 16, 128)")
    assert re.search(
        r"paid for a win was (\d+) under cap 64, \1 under cap 16, \1 under cap 128", answer[0]
    )
    # both comparisons have one answer, said once for both points
    (both,) = answer[1:]
    assert both.startswith("yuxi [strategic,strategic,strategic,strategic]: cap=16, cap=128 ")
    assert "against cap=64 (default): no hand's outcome differs (0 of 120" in both
    assert both.endswith("every figure is identical.")
    assert "inconclusive" not in " ".join(answer)


def test_each_finding_is_said_once_for_the_points_it_holds_for(page):
    found = _items(page, "findings")
    rests = [f.split(": ", 1)[1] for f in found]
    assert len(rests) == len(set(rests)) and found
    assert all(
        f.startswith("yuxi [") and " at cap=64 (default), cap=16, cap=128" in f for f in found
    )
    # a paired finding the answer already gives (identical) is not repeated
    assert not any(" vs " in f for f in found)


def test_sections_that_add_nothing_for_this_shape_are_left_out(page):
    sections = _sections(page)
    assert "Per seat 每个座位" in sections
    assert not any(s.startswith(("Per agent", "Per variant")) for s in sections)


def test_a_default_rule_value_is_marked_in_the_report_and_compare(page, unbound):
    runs = re.search(r"Runs 运行</h2>(.*?)</table>", page, re.S).group(1)
    assert "<td>cap=64 (default)</td>" in runs and "<td>cap=16</td>" in runs
    out = CliRunner().invoke(main, ["compare", str(unbound)]).stdout
    assert out.startswith("baseline yuxi cap=64 (default) [")
    assert "   other yuxi cap=16 [" in out
    assert re.search(r"metric +cap=64 \(default\) +cap=16 +cap=128", out)


def test_the_points_per_payer_are_drawn_with_each_cap():
    t = queries.tables(queries.Runs(CAPS))
    fig = plots.histogram_figure(t["hist_win_points"], "win_points", caps=t["caps"])
    dashed = {
        float(line.get_xdata()[0])
        for line in fig.axes[0].get_lines()
        if line.get_linestyle() == "--" and len(line.get_xdata())
    }
    assert dashed == {1.0, 2.0, 4.0, 16.0}
    assert "wins.points" in fig.axes[0].get_xlabel()
    assert any("cap" in s for s in plots.texts(fig))
    # a variant without a cap: nothing drawn
    h = queries.tables(queries.Runs(data_dir() / "huangmei"))
    fig = plots.histogram_figure(h["hist_win_points"], "win_points", caps=h["caps"])
    assert not [ln for ln in fig.axes[0].get_lines() if ln.get_linestyle() == "--"]
