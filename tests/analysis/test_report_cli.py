"""`mjlog report`: one self-contained HTML page comparing runs, naming the agents."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil

import pytest
from click.testing import CliRunner

from analysis.studies.sample import data_dir
from mjlog.cli import main

# a run directory and a title made of markup: they must show as text, never as markup
EVIL_DIR = '<img src=x onerror="alert(1)">'
EVIL_TITLE = "</title><script>alert(2)</script>"


@pytest.fixture(scope="module")
def samples_page(tmp_path_factory):
    """One report (a report takes seconds) that the page tests share: the samples, a
    copy of huangmei under a hostile name and the sweep, with a hostile title,
    asked for with --format json."""
    tmp = tmp_path_factory.mktemp("report")
    evil = tmp / EVIL_DIR
    shutil.copytree(data_dir() / "huangmei", evil)
    runs = [
        str(data_dir() / "yuxi"),
        str(data_dir() / "xuezhan"),
        str(evil),
        str(data_dir() / "sweep" / "xuezhan-cap"),
    ]
    res = CliRunner().invoke(
        main, ["report", *runs, "--title", EVIL_TITLE, "--format", "json", "--out", str(tmp / "r")]
    )
    assert res.exit_code == 0, res.output
    return tmp / "r" / "index.html", res.output


def test_report_json_names_the_page(samples_page):
    path, output = samples_page
    assert json.loads(output) == {"index": str(path)}


def test_report_of_the_samples_is_self_contained(samples_page):
    html = samples_page[0].read_text(encoding="utf-8")
    # nothing fetched: every image is a data: URI, one inline script, no links out
    srcs = re.findall(r'src="([^"]*)"', html)
    # one agent in every seat: no per-agent figure (it would be the seats pooled)
    assert len(srcs) >= 11 and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert html.count("<script") == 1 and "<script>" in html
    assert "http://" not in html and "https://" not in html
    assert base64.b64decode(srcs[0].split(",", 1)[1])[:4] == b"\x89PNG"
    _csp_allows_only_the_inline_blocks(html)
    # opens with contents and findings; findings carry intervals and significance
    assert html.index("Contents") < html.index("Findings") < html.index("Runs 运行")
    findings = re.search(r'<ul class="findings">(.*?)</ul>', html, re.S).group(1)
    items = re.findall(r"<li[^>]*>(.*?)</li>", findings)
    assert len(items) >= 9
    assert all("95%" in i for i in items)
    assert sum("significant" in i for i in items) >= 3
    assert 'class="dataframe sortable"' in html
    assert "share of points it adds" in html and "share of wins that carry it" in html
    # names the agents, the variants, the sweep points and the patterns in Chinese
    assert "strategic,strategic,strategic,strategic" in html
    for word in ("yuxi", "xuezhan", "huangmei", "cap=1", "cap=16", "清一色", "查大叫", "退税"):
        assert word in html, word
    # each variant's own pattern names (one key, several names: yuxi 杠上花 and 小七对,
    # xuezhan 杠上开花 and 七对, huangmei 门前清)
    for word in ("杠上花", "杠上开花", "小七对", "七对", "门前清"):
        assert f"<td>{word}</td>" in html, word


def _csp_allows_only_the_inline_blocks(html: str) -> None:
    csp = (
        re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
        .group(1)
        .replace("&#x27;", "'")
    )
    rules = dict(d.split(" ", 1) for d in csp.split("; "))
    assert rules["default-src"] == "'none'" and rules["img-src"] == "data:"
    for directive, tag in (("script-src", "script"), ("style-src", "style")):
        block = re.search(rf"<{tag}>(.*?)</{tag}>", html, re.S).group(1)
        digest = base64.b64encode(hashlib.sha256(block.encode()).digest()).decode()
        assert rules[directive] == f"'sha256-{digest}'", directive
    assert "unsafe" not in csp


def test_hostile_strings_reach_the_page_escaped(samples_page):
    page = samples_page[0].read_text(encoding="utf-8")
    assert "<img src=x" not in page and "alert(2)</script>" not in page
    assert "&lt;img src=x onerror=" in page  # shown as text (pandas escapes <>&)
    assert "&lt;/title&gt;&lt;script&gt;alert(2)" in page
    assert page.count("<script") == 1
    _csp_allows_only_the_inline_blocks(page)


def test_tables_sort_in_a_browser_under_the_csp(samples_page):
    from tests.browser import chromium

    with chromium() as page:
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(samples_page[0].as_uri())
        table = page.locator("h2:has-text('Patterns') ~ table").first
        col = [h.inner_text() for h in table.locator("thead th").all()].index("wins with it")
        table.locator("thead th").nth(col).click()
        table.locator("thead th").nth(col).click()  # descending
        vals = [int(r.locator("td").nth(col).inner_text()) for r in table.locator("tbody tr").all()]
        assert vals == sorted(vals, reverse=True) and len(vals) > 3
        assert not [e for e in errors if "Content Security Policy" in e], errors


def test_report_svg(tmp_path):
    res = CliRunner().invoke(
        main, ["report", str(data_dir() / "huangmei"), "--figures", "svg", "--out", str(tmp_path)]
    )
    assert res.exit_code == 0, res.output
    assert res.output.strip() == str(tmp_path / "index.html")  # text: the page's path
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    # one variant, one agent: no per-variant or per-agent figure
    assert html.count("data:image/svg+xml;base64,") >= 10


def test_same_runs_same_figures():
    # no dates, no random ids: the same figure gives the same bytes, PNG and SVG
    from analysis import plots, queries

    fig = [
        plots.patterns_figure(queries.pattern_frequencies(data_dir() / "yuxi")) for _ in range(2)
    ]
    assert plots.to_svg(fig[0]) == plots.to_svg(fig[1])
    assert plots.to_png(fig[0]) == plots.to_png(fig[1])


def test_report_of_a_folder_that_is_no_run_fails_in_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(
        main, ["report", str(tmp_path / "empty"), "--out", str(tmp_path / "r")]
    )
    assert res.exit_code == 2
    assert "holds no runs" in res.output and "Traceback" not in res.output
