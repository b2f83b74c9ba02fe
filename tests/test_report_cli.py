"""`mjlog report`: one self-contained HTML page comparing runs, naming the agents."""

from __future__ import annotations

import base64
import re

from click.testing import CliRunner

from analysis.sample import data_dir
from mjlog.cli import main


def test_report_of_the_samples_is_self_contained(tmp_path):
    runs = [str(data_dir() / v) for v in ("yuxi", "xuezhan", "huangmei")]
    res = CliRunner().invoke(main, ["report", *runs, str(data_dir() / "sweep" / "xuezhan-cap"),
                                    "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    path = tmp_path / "r" / "index.html"
    assert res.output.strip() == str(path)
    html = path.read_text(encoding="utf-8")
    # nothing fetched: every image is a data: URI, no scripts, no links out
    srcs = re.findall(r'src="([^"]*)"', html)
    assert len(srcs) >= 12 and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert "<script" not in html and "http://" not in html and "https://" not in html
    assert base64.b64decode(srcs[0].split(",", 1)[1])[:4] == b"\x89PNG"
    # names the agents, the variants, the sweep points and the patterns in Chinese
    assert "strategic,strategic,strategic,strategic" in html
    for word in ("yuxi", "xuezhan", "huangmei", "cap=1", "cap=16", "清一色", "查大叫", "退税"):
        assert word in html, word


def test_report_svg(tmp_path):
    res = CliRunner().invoke(main, ["report", str(data_dir() / "huangmei"), "--figures", "svg",
                                    "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert html.count("data:image/svg+xml;base64,") >= 12


def test_same_runs_same_figures():
    # no dates, no random ids: the same figure gives the same bytes, PNG and SVG
    from analysis import plots, queries

    fig = [plots.patterns_figure(queries.pattern_frequencies(data_dir() / "yuxi"))
           for _ in range(2)]
    assert plots.to_svg(fig[0]) == plots.to_svg(fig[1])
    assert plots.to_png(fig[0]) == plots.to_png(fig[1])


def test_report_of_a_folder_that_is_no_run_fails_in_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(main, ["report", str(tmp_path / "empty"), "--out",
                                    str(tmp_path / "r")])
    assert res.exit_code == 2
    assert "holds no runs" in res.output and "Traceback" not in res.output
