"""The per-match sums kept in DuckDB (analysis.match_sums) are match_units' columns,
fetched one at a time; runs read for one comparison share one DuckDB database."""

import numpy as np
import pandas as pd
import pytest

from analysis import compare, queries
from analysis.match_sums import SUMS, MatchSums
from analysis.studies.sample import data_dir

SWEEP = data_dir() / "sweep" / "xuezhan-cap"


@pytest.fixture(scope="module")
def runs():
    return queries.Runs([data_dir() / "yuxi", data_dir() / "xuezhan"])


def test_each_column_is_the_frame_column_in_its_order(runs):
    sums = MatchSums(runs)
    units, pats = compare.match_units(queries.Runs([data_dir() / "yuxi", data_dir() / "xuezhan"]))
    assert len(sums) == len(units) > 0
    for c in SUMS:
        np.testing.assert_array_equal(sums.column(c), units[c].to_numpy(float))
    rows = np.arange(len(units))[::3]
    np.testing.assert_array_equal(sums.column("pts0", rows), units["pts0"].to_numpy(float)[rows])
    eager = compare.metric_arrays(units, pats, sorted(set(pats.pattern)))
    for pattern in sorted(set(pats.pattern)):
        y, _x, _unit = eager[f"pattern_rate[{pattern}]"]
        np.testing.assert_array_equal(sums.pattern(pattern), y)
    assert sums.patterns == sorted(set(pats.pattern))


def test_a_sum_not_kept_is_refused(runs):
    with pytest.raises(KeyError):
        MatchSums.of(runs).column("seed; DROP TABLE match_sums")


def test_pairs_found_as_arrays_are_those_a_merge_finds():
    a, b = queries.Runs(SWEEP / "cap=1"), queries.Runs(SWEEP / "cap=16")
    ua, ub = compare.match_units(a)[0], compare.match_units(b)[0]
    ub = ub.iloc[5:].sample(frac=1, random_state=3).reset_index(drop=True)  # some left out
    merged = (
        ua[compare.PAIR_KEY]
        .assign(_a=np.arange(len(ua)))
        .merge(ub[compare.PAIR_KEY].assign(_b=np.arange(len(ub))), on=compare.PAIR_KEY)
    )
    pair = compare.pairing(a, b, ua, ub)
    assert pair.paired
    np.testing.assert_array_equal(pair.base_rows, merged["_a"].to_numpy())
    np.testing.assert_array_equal(pair.other_rows, merged["_b"].to_numpy())
    # and the hands told apart are those of the paired matches only
    assert set(pair.differing["match"]) == set(merged["match"])


def test_shared_runs_have_one_memory_limit_and_their_own_tables():
    a = queries.Runs(data_dir() / "yuxi")
    b = queries.Runs(data_dir() / "xuezhan", share=a)
    a.con.execute("SET memory_limit = '200MB'")

    def limit(r):
        return r.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]

    assert limit(a) == limit(b)
    MatchSums.of(a), MatchSums.of(b)
    got = [
        pd.DataFrame(r.con.execute("SELECT DISTINCT run FROM match_sums").fetchall())
        for r in (a, b)
    ]
    assert len(got[0]) == len(got[1]) == 1  # each its own run's sums
    assert MatchSums.of(a).column("hands").sum() == a.runs[0].hands
    assert MatchSums.of(b).column("hands").sum() == b.runs[0].hands


@pytest.mark.parametrize(
    "paths",
    [
        (SWEEP / "cap=1", SWEEP / "cap=16"),  # one seed: every match paired
        (data_dir() / "yuxi", data_dir() / "xuezhan"),  # another seed
        (data_dir() / "expert" / "skill-yuxi-expert", data_dir() / "yuxi"),  # duplicate vs not
    ],
)
def test_pairs_of_one_run_sides_from_arrays_are_those_of_their_key_frames(paths):
    base, other = compare._load(list(paths))
    got = compare._sides_pair_rows(base, other)
    want = compare._pair_rows(base.keys(), other.keys())
    for g, w in zip(got[:3], want[:3], strict=True):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype
    assert got[3] == want[3]
