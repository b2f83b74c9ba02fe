"""``mjlog compare`` reads each run's Parquet files once: every hands, wins and
transfers file of every side is opened by one DuckDB query, the copy that then
serves the match sums and the join of walls and outcomes (issue 48). Counted by
DuckDB's own file-system log, every file a query opens. The one residue: where
first walls differ, those first hands' walls are read again for their tiles. A
damaged file is still refused in one line naming it, and a changed one by its
sha256 before DuckDB opens it."""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from analysis import compare
from analysis.studies.sample import data_dir
from mjlog.cli import main
from tests.sealed import damage

DATA = data_dir()
CAPS = DATA / "sweep" / "xuezhan-cap"
TABLES = ("hands", "wins", "transfers")


@pytest.fixture
def opened(monkeypatch):
    """Every DuckDB connection the code under test opens logs its file-system calls;
    the fixture gives a function: per Parquet file, the queries that opened it."""
    connections: list[duckdb.DuckDBPyConnection] = []
    connect = duckdb.connect

    def logged(*args, **kwargs):
        con = connect(*args, **kwargs)
        con.execute("CALL enable_logging('FileSystem')")
        connections.append(con)
        return con

    monkeypatch.setattr(duckdb, "connect", logged)

    def queries_per_file() -> dict[Path, int]:
        seen: dict[Path, set] = defaultdict(set)
        for con in connections:
            for conn, query, message in con.execute(
                "SELECT connection_id, query_id, message FROM duckdb_logs WHERE type = 'FileSystem'"
            ).fetchall():
                path = json.loads(message)["path"]
                if path.endswith(".parquet"):
                    seen[Path(path).resolve()].add((conn, query))
        return {p: len(q) for p, q in seen.items()}

    return queries_per_file


def _files(*runs: Path) -> dict[str, set[Path]]:
    return {t: {p.resolve() for r in runs for p in (r / t).glob("*.parquet")} for t in TABLES}


def _reads(counts: dict[Path, int], files: set[Path]) -> Counter:
    """How many files were opened by how many queries (0: never opened)."""
    return Counter(counts.get(f, 0) for f in files)


@pytest.mark.parametrize(
    "runs",
    [
        pytest.param([CAPS / "cap=16", CAPS / "cap=4"], id="paired"),
        pytest.param([CAPS], id="sweep of four: the baseline joined three times"),
        pytest.param(
            [DATA / "expert" / "skill-yuxi-expert", DATA / "expert" / "skill-yuxi-strategic"],
            id="mixed line-ups: seat sums too",
        ),
    ],
)
def test_every_file_of_every_side_is_read_by_one_query(opened, runs):
    rows = compare.paired_comparison(runs)
    assert rows["paired"].all() and len(rows)
    sides = [p for r in runs for p in ([r] if (r / "manifest.json").exists() else r.iterdir())]
    files = _files(*[p for p in sides if p.is_dir()])
    counts = opened()
    for t in TABLES:
        assert files[t]
        assert _reads(counts, files[t]) == {1: len(files[t])}, t


def test_first_walls_that_differ_are_read_again_for_their_tiles_alone(opened):
    """yuxi and xuezhan of one seed: every first wall differs (another tile set), so
    the first hands' walls are read once more; wins and transfers still once."""
    rows = compare.paired_comparison([DATA / "yuxi", DATA / "xuezhan"])
    assert not rows["paired"].any()
    assert rows["pairing_note"].iloc[0].startswith("another tile set")
    files, counts = _files(DATA / "yuxi", DATA / "xuezhan"), opened()
    assert _reads(counts, files["hands"]) == {2: len(files["hands"])}
    for t in ("wins", "transfers"):
        assert _reads(counts, files[t]) == {1: len(files[t])}, t


def _refused(tmp_path: Path, rehash: bool) -> tuple[str, Path]:
    run = tmp_path / "cap=4"
    shutil.copytree(CAPS / "cap=4", run)
    f = damage(run / "hands" / "part-00000.parquet", vouched_by=run if rehash else None)
    res = CliRunner().invoke(main, ["compare", str(CAPS / "cap=16"), str(run)])
    assert res.exit_code == 2, res.output
    (line,) = res.output.strip().splitlines()  # one line, no traceback
    return line, f


def test_a_damaged_hands_file_its_manifest_vouches_for_is_refused_in_one_line(tmp_path):
    line, f = _refused(tmp_path, rehash=True)
    assert str(f) in line


def test_a_changed_hands_file_is_refused_by_its_sha256_before_duckdb_opens_it(opened, tmp_path):
    line, f = _refused(tmp_path, rehash=False)
    assert "sha256" in line and "part-00000.parquet" in line
    assert f.resolve() not in opened()
