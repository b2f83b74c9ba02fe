"""A command's queries read each table's Parquet files once (at most twice): a table's
second query copies it into the work database and later queries read the copy, with
the figures of the files to the last bit; a query that binds the files itself or
needs the wall still reads the files; a damaged file is refused in one line naming it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from analysis import balance, queries
from analysis.studies.sample import data_dir
from mjlog.logio import LogError
from tests.sealed import damage

RUNS = [
    data_dir() / "yuxi",
    data_dir() / "xuezhan",
    data_dir() / "expert" / "skill-yuxi-expert",  # duplicate play: skill's own path
]


def _copy_run(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


def _hide(run: Path, table: str) -> Path:
    """Move ``table``'s files out of the run: a query that reads them now fails."""
    away = run.parent / f"{run.name}-{table}-away"
    (run / table).rename(away)
    return away


def test_the_figures_from_the_copies_are_those_from_the_files(monkeypatch):
    def figures() -> list[pd.DataFrame]:
        runs = queries.Runs(RUNS)
        t = queries.tables(runs)
        return [*t.values(), balance.swing(runs), balance.skill_share(runs)]

    copied = figures()
    monkeypatch.setattr(queries, "COPIED", ())  # every query reads the files
    for got, want in zip(figures(), copied, strict=True):
        pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_a_table_s_files_are_read_twice_at_most(tmp_path):
    run = _copy_run(data_dir() / "yuxi", tmp_path)
    want = queries.seat_stats(queries.Runs(run), by="seat")
    runs = queries.Runs(run)
    query = "SELECT count(*) AS n FROM read_parquet($hands)"
    assert runs.sql(query).n.iloc[0] == runs.sql(query).n.iloc[0] == 3000  # the 2nd copies
    _hide(run, "hands")
    assert runs.sql(query).n.iloc[0] == 3000  # from the copy, not the (gone) files
    pd.testing.assert_frame_equal(queries.seat_stats(runs, by="seat"), want, check_exact=True)


def test_a_query_that_binds_the_files_or_needs_the_wall_reads_the_files(tmp_path):
    run = _copy_run(data_dir() / "yuxi", tmp_path)
    runs = queries.Runs(run)
    runs.copy("hands")
    first = runs.files("hands")[:1]
    got = runs.sql("SELECT count(*) AS n FROM read_parquet($hands)", hands=first).n.iloc[0]
    assert 0 < got < 3000  # the one file given, not the copy of them all
    walls = "SELECT count(*) AS n FROM read_parquet($hands) WHERE wall IS NOT NULL"
    assert runs.sql(walls).n.iloc[0] == 3000  # the copy has no wall: the files
    _hide(run, "hands")
    with pytest.raises(LogError):
        runs.sql(walls)


def test_release_drops_the_copies_and_a_later_query_reads_the_files_again(tmp_path):
    run = _copy_run(data_dir() / "yuxi", tmp_path)
    runs = queries.Runs(run)
    runs.copy("wins")
    query = "SELECT count(*) AS n FROM read_parquet($wins)"
    n = runs.sql(query).n.iloc[0]
    runs.release()
    away = _hide(run, "wins")
    with pytest.raises(LogError):
        runs.sql(query)
    away.rename(run / "wins")
    assert runs.sql(query).n.iloc[0] == n


def test_a_damaged_file_its_manifest_vouches_for_is_refused_in_one_line_naming_it(tmp_path):
    run = _copy_run(data_dir() / "yuxi", tmp_path)
    f = damage(run / "wins" / "part-00000.parquet", vouched_by=run)
    with pytest.raises(LogError) as e:
        queries.Runs(run).copy("wins")
    assert str(f) in str(e.value) and "\n" not in str(e.value)


def test_a_changed_file_is_refused_by_its_hash_before_it_is_copied(tmp_path):
    run = _copy_run(data_dir() / "yuxi", tmp_path)
    damage(run / "hands" / "part-00000.parquet")
    with pytest.raises(LogError, match="sha256"):
        queries.Runs(run).copy("hands")


def test_only_the_run_tables_are_copied():
    with pytest.raises(ValueError, match="events"):
        queries.Runs(RUNS[0]).copy("events")


def test_a_copy_made_a_file_at_a_time_holds_the_rows_in_the_files_order(monkeypatch):
    whole = queries.Runs(RUNS)
    want = [queries.seat_stats(whole, by="position"), queries.outcomes(whole)]
    monkeypatch.setattr(queries, "COPY_ROWS", 1)  # one file an insert
    runs = queries.Runs(RUNS)
    for t in queries.COPIED:
        runs.copy(t)
    order = "SELECT match, rotation, hand FROM read_parquet($hands)"
    pd.testing.assert_frame_equal(runs.sql(order), whole.sql(order), check_exact=True)
    got = [queries.seat_stats(runs, by="position"), queries.outcomes(runs)]
    for g, w in zip(got, want, strict=True):
        pd.testing.assert_frame_equal(g, w, check_exact=True)


def test_a_copy_keeps_the_columns_it_is_given_and_a_query_of_another_reads_the_files(tmp_path):
    run = _copy_run(data_dir() / "yuxi", tmp_path)
    runs = queries.Runs(run)
    kept = queries.CopyColumns(("wall", "agents"), (("wall_tiles", "len(wall)"),), ordered=False)
    runs.copy("hands", kept)
    assert runs.copy_columns("hands") == kept and runs.copy("hands", kept) == runs.copy("hands")
    with pytest.raises(ValueError, match="other columns"):
        runs.copy("hands", queries.CopyColumns(("wall",)))
    _hide(run, "hands")
    tiles = "SELECT sum(wall_tiles) AS n FROM read_parquet($hands)"
    assert runs.sql(tiles).n.iloc[0] == 3000 * 136  # computed in the copy's one read
    with pytest.raises(LogError):  # agents were left out: the (gone) files
        runs.sql("SELECT count(agents) AS n FROM read_parquet($hands)")
