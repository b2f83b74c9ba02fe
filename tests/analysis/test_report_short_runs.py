"""`mjlog report` on what the wheel check gives it (.ci/wheel-check), which once
ended in a traceback: runs so short that some seat never wins, and a sweep alone (in
tests/analysis/test_report_shapes.py, which renders the sample sweep's report for its checks)."""

from __future__ import annotations

import math

from click.testing import CliRunner

from analysis.queries import Runs, seat_stats
from mjlog.cli import main


def test_a_group_without_wins_at_a_seat_leaves_the_other_groups_their_bars(tmp_path):
    runs = []
    for variant in ("yuxi", "huangmei"):
        out = tmp_path / variant
        res = CliRunner().invoke(
            main,
            [
                "simulate",
                "--variant",
                variant,
                "--hands-per-match",
                "2",
                "--seed",
                "7",
                "--agents",
                "strategic,efficient,greedy,random",
                "--workers",
                "1",
                "--quiet",
                "--out",
                str(out),
            ],
        )
        assert res.exit_code == 0, res.output
        runs.append(str(out))
    # the case itself: a seat of the first group with no win, so no self-draw share
    first = seat_stats(Runs([runs[0]]))
    assert any(math.isnan(v) for v in first["self_draw_share"]), first
    res = CliRunner().invoke(main, ["report", *runs, "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "r" / "index.html").stat().st_size > 100_000


def test_a_run_in_which_no_money_moved_is_reported(tmp_path):
    """One huangmei hand of random play, drawn: no transfer at all (it once exited 3 on
    a KeyError: 'share_of_transfers'). The page says the hand and that nothing moved."""
    out = tmp_path / "still"
    res = CliRunner().invoke(
        main,
        [
            "simulate",
            "--variant",
            "huangmei",
            "--agents",
            "random",
            "--matches",
            "1",
            "--hands-per-match",
            "1",
            "--seed",
            "1",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    assert Runs([out]).sql("SELECT count(*) AS n FROM read_parquet($transfers)")["n"][0] == 0
    res = CliRunner().invoke(main, ["report", str(out), "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert page.rstrip().endswith("</html>") and "No money moved in these runs" in page
