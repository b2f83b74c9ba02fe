"""The analytics in bounded memory: DuckDB under its limit with a spill folder of its
own, and the seat figures collapsed one key at a time agreeing to the last bit with
the whole table collapsed at once."""

from __future__ import annotations

import gc
import tempfile
from pathlib import Path

import pandas as pd
import pytest

from analysis import balance, queries
from analysis.studies.sample import data_dir

RUNS = [
    data_dir() / "yuxi",
    data_dir() / "xuezhan",
    data_dir() / "expert" / "skill-yuxi-expert",  # duplicate play, a mixed line-up
]


def _setting(runs: queries.Runs, name: str) -> str:
    return runs.con.execute("SELECT current_setting($n)", {"n": name}).fetchone()[0]


def test_duckdb_spills_to_a_folder_of_its_own_removed_with_the_runs():
    runs = queries.Runs(RUNS[0])
    spill = Path(_setting(runs, "temp_directory"))
    assert spill.is_dir() and spill.parent == Path(tempfile.gettempdir())
    assert spill.name.startswith("mjlog-duckdb-")  # never DuckDB's ./.tmp
    assert _setting(runs, "memory_limit") == "122.0 MiB"  # the default 128MB
    del runs
    gc.collect()
    assert not spill.exists()


@pytest.fixture(scope="module")
def runs():
    return queries.Runs(RUNS)


@pytest.mark.parametrize("by", ["seat", "agent", "variant", "position", "order"])
def test_seat_figures_one_key_at_a_time_are_those_of_the_whole_table(runs, by):
    keys = [*queries.GROUP, *queries._by_cols(by)]
    whole = queries._collapse(
        queries.seat_sums(runs, by),
        keys,
        queries._SEAT_COUNTS,
        queries._SEAT_RATES,
        {"mean_points": ("points", "hands")},
    )
    pd.testing.assert_frame_equal(
        queries.seat_stats(runs, by), queries.finished_table(runs, whole), check_exact=True
    )


def test_the_figures_are_the_same_under_a_tiny_memory_limit(monkeypatch):
    def figures(r):
        return [
            queries.seat_stats(r, "agent"),
            queries.dealer_advantage(r),
            queries.pattern_frequencies(r),
            queries.money_shares(r),
            balance.swing(r),
            balance.skill_share(r),
        ]

    default = figures(queries.Runs(RUNS))
    monkeypatch.setattr(queries, "MEMORY_LIMIT", "16MB")  # too small for some queries
    tiny = queries.Runs(RUNS)
    for a, b in zip(default, figures(tiny), strict=True):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    # what did not fit was run again under a larger limit, not refused
    assert tiny.raised > 0
    assert _setting(tiny, "memory_limit") == "15.2 MiB"  # and back under it after


def test_walls_compared_a_block_of_matches_at_a_time_count_as_one_join(monkeypatch):
    from analysis import compare

    pair = [
        data_dir() / "expert" / "skill-yuxi-expert",
        data_dir() / "expert" / "skill-yuxi-strategic",
    ]
    cols = ["pairing", "pairing_note", "hands_same_walls", "hands_shared", "diff", "p"]
    whole = compare.paired_comparison(pair)[cols]
    assert (whole["pairing"] == "match").all()
    monkeypatch.setattr(compare, "DEAL_BLOCK", 1)  # one match a join
    pd.testing.assert_frame_equal(compare.paired_comparison(pair)[cols], whole, check_exact=True)


def test_runs_of_one_group_each_are_summed_per_run_as_every_hand_joined_to_its_group(
    monkeypatch,
):
    """money_shares and the seat sums of runs whose hands are their run's group (every
    simulated run) skip the join of each transfer and seat to its hand's labels, and
    the seat sums are made a block of matches at a time: the same figures, to the bit,
    as the join of every row (the path of runs whose hands name their own seats)."""

    def figures(r):
        return [queries.money_shares(r, by) for by in ("reason", "category")] + [
            queries.seat_stats(r, by) for by in ("seat", "agent", "position", "order")
        ]

    per_run = queries.Runs(RUNS)
    assert queries.run_groups(per_run) is not None
    monkeypatch.setattr(queries, "SEAT_BLOCK", 7)  # blocks of 7 matches: many of them
    fast = figures(per_run)
    assert len(queries._match_blocks_of(per_run)) > 10
    monkeypatch.setattr(queries, "run_groups", lambda runs: None)
    for a, b in zip(fast, figures(queries.Runs(RUNS)), strict=True):
        pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_kept_tables_are_in_a_file_of_the_connection_s_own_in_its_spill_folder():
    runs = queries.Runs(RUNS[0])
    queries.seat_stats(runs, "position")
    spill = Path(_setting(runs, "temp_directory"))
    (path,) = runs.con.execute(
        "SELECT path FROM duckdb_databases() WHERE database_name = $d", {"d": runs.work}
    ).fetchone()
    assert Path(path).parent == spill
    kept = runs.con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = $d", {"d": runs.work}
    ).fetchall()
    assert ("seat_units_position",) in kept
    runs.release()
    assert not runs.con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = $d", {"d": runs.work}
    ).fetchall()


@pytest.mark.parametrize("figure", ["seat", "position", "outcomes"])
def test_a_key_s_matches_fetched_a_few_rows_at_a_time_give_the_same_figures(monkeypatch, figure):
    def table(runs: queries.Runs) -> pd.DataFrame:
        if figure == "position":  # derived per-match values (the match's points)
            return queries.position_advantage(runs)
        if figure == "outcomes":
            return queries.outcomes(runs)
        return queries.seat_stats(runs, "seat")

    whole = table(queries.Runs(RUNS))
    monkeypatch.setattr(queries, "KEY_BATCH", 3)  # every key in many batches
    pd.testing.assert_frame_equal(table(queries.Runs(RUNS)), whole, check_exact=True)


def test_hands_differing_a_match_a_block_is_every_match_s_count(monkeypatch):
    from analysis import compare

    caps = data_dir() / "sweep" / "xuezhan-cap"
    a, b = queries.Runs(caps / "cap=16"), queries.Runs(caps / "cap=1")
    whole = compare.hands_differing(a, b, range(50))
    assert len(whole) == 50 and 0 < whole["differing"].sum() < whole["hands"].sum()
    monkeypatch.setattr(compare, "DEAL_BLOCK", 1)  # one match a join
    pd.testing.assert_frame_equal(compare.hands_differing(a, b, range(50)), whole, check_exact=True)
