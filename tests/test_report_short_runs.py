"""`mjlog report` on what the wheel check gives it (.ci/wheel-check), which once
ended in a traceback: runs so short that some seat never wins, and a sweep alone."""

from __future__ import annotations

import math
import re

from click.testing import CliRunner

from analysis.queries import Runs, seat_stats
from analysis.sample import data_dir
from mjlog.cli import main


def test_a_group_without_wins_at_a_seat_leaves_the_other_groups_their_bars(tmp_path):
    runs = []
    for variant in ("yuxi", "huangmei"):
        out = tmp_path / variant
        res = CliRunner().invoke(main, [
            "simulate", "--variant", variant, "--hands-per-match", "2", "--seed", "7",
            "--agents", "strategic,efficient,greedy,random", "--workers", "1", "--quiet",
            "--out", str(out)])
        assert res.exit_code == 0, res.output
        runs.append(str(out))
    # the case itself: a seat of the first group with no win, so no self-draw share
    first = seat_stats(Runs([runs[0]]))
    assert any(math.isnan(v) for v in first["self_draw_share"]), first
    res = CliRunner().invoke(main, ["report", *runs, "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "r" / "index.html").stat().st_size > 100_000


def test_a_sweep_alone_gets_its_paired_findings(tmp_path):
    """One sweep, one variant and line-up: the report pairs each point with the first
    by walls and says each difference (a row's `diff`, not pandas' Series.diff)."""
    res = CliRunner().invoke(main, ["report", str(data_dir() / "sweep" / "xuezhan-cap"),
                                    "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "r" / "index.html").read_text()
    found = re.findall(r" vs [^:<]+: dealer_advantage ([+-]\d+\.\d{3}) ", page)
    assert len(found) == 3, found  # cap=2, 4 and 16 against cap=1
