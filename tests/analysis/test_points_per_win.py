"""Points per win are two figures with two names: the rulebook's points, what each payer
pays (``wins.points``, what a cap limits), and the total over a win's payers
(``wins.total``). `compare`, `analysis.queries` and the report keep them apart; here
each is checked against the wins table read without DuckDB, on the sample cap sweep."""

from __future__ import annotations

import pytest

from analysis import compare, queries, report
from analysis.studies.sample import data_dir
from mjlog.logio import read_table

CAPS = data_dir() / "sweep" / "xuezhan-cap"


def _wins(point: str):
    return read_table(CAPS / point, "wins", columns=["points", "total"]).to_pandas()


def test_compare_names_the_points_per_payer_and_the_total_apart():
    rows = compare.paired_comparison([CAPS / "cap=1", CAPS / "cap=16"]).set_index("metric")
    for metric, col in (("mean_points_per_win", "points"), ("mean_total_per_win", "total")):
        for side, point in (("baseline", "cap=1"), ("value", "cap=16")):
            w = _wins(point)
            assert rows.loc[metric, side] == pytest.approx(w[col].sum() / len(w)), metric
    assert rows.loc["mean_points_per_win", "unit"] == "points per payer per win"
    assert rows.loc["mean_total_per_win", "unit"] == "points per win, all payers"
    # a cap of 1 holds every payer to 1 point: the per-payer figure is exactly 1
    assert rows.loc["mean_points_per_win", "baseline"] == 1.0
    assert rows.loc["mean_total_per_win", "baseline"] > 1.0


def test_queries_max_points_per_payer_is_what_the_cap_limits():
    c = queries.compare(CAPS).set_index("config")
    for point in ("cap=1", "cap=2", "cap=4", "cap=16"):
        w = _wins(point)
        cap = int(point.split("=")[1])
        assert c.loc[point, "max_win_points"] == w["points"].max() <= cap
        assert c.loc[point, "max_win_total"] == w["total"].max()
        assert c.loc[point, "mean_win_points"] == pytest.approx(w["points"].mean())
        assert c.loc[point, "mean_win_total"] == pytest.approx(w["total"].mean())
    # a self-draw is paid by several: the total exceeds the cap, the points never do
    assert c.loc["cap=1", "max_win_total"] > 1


def test_the_report_says_per_payer_and_total_in_words():
    t = queries.tables(queries.Runs(CAPS / "cap=1"))
    said = " ".join(report.findings(t))
    assert "1.00 points per payer on average" in said and "at most 1)" in said
    assert "in all over its payers" in said
    page = report.render(t, _no_figures(t))
    assert "max points per payer per win" in page and "max total per win (all payers)" in page
    assert "max points/win" not in page


def _no_figures(t):
    """A blank figure for every one the page shows: its words are what is checked."""
    from matplotlib.figure import Figure

    return {name: Figure() for name in FIGURES}


FIGURES = (
    "compare",
    "seats",
    "agents",
    "variants",
    "dealer",
    "patterns",
    "win_points",
    "hand_points",
    "hand_length",
    "outcomes",
    "money",
    "first_winner",
)


def test_the_ladder_names_the_points_per_payer_and_the_total_apart():
    from analysis import ladder

    for point in ("cap=1", "cap=16"):
        w = _wins(point)
        # one agent in every seat: its row holds every win of the run
        row = ladder.standings(CAPS / point).set_index("agent").loc["strategic"]
        assert row["mean_points_per_win"] == pytest.approx(w["points"].sum() / len(w)), point
        assert row["mean_total_per_win"] == pytest.approx(w["total"].sum() / len(w)), point
    # a cap of 1 holds every payer to 1 point; the total over the payers is more
    assert ladder.standings(CAPS / "cap=1").loc[0, "mean_points_per_win"] == 1.0
