"""analysis.stats worked in less memory gives the same numbers, to the last bit."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from analysis import stats


def _formula(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The pseudo-values as written in the module's docstring, one expression."""
    r = y.sum() / x.sum()
    return r + (y - r * x) / x.mean()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pseudo_values_are_the_formula_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = 10_001
    y = rng.integers(-400, 400, n).astype(float)  # points per match, say
    x = rng.integers(1, 12, n).astype(float)  # seat-hands per match
    y0, x0 = y.copy(), x.copy()
    got = stats.pseudo_values(y, x)
    assert np.array_equal(y, y0) and np.array_equal(x, x0)  # the inputs left as they were
    assert got.dtype == np.float64 and got.shape == y.shape
    assert np.array_equal(got.view(np.int64), _formula(y, x).view(np.int64))
    frac = rng.random(n) * 3  # non-integer values too
    assert np.array_equal(
        stats.pseudo_values(frac, x).view(np.int64), _formula(frac, x).view(np.int64)
    )


def test_estimates_are_estimate_of_each_column():
    rng = np.random.default_rng(7)
    units = pd.DataFrame(
        {
            "g": rng.integers(0, 3, 3_000),
            "points": rng.integers(-300, 300, 3_000),  # integer columns, as DuckDB gives
            "hands": rng.integers(1, 9, 3_000),
            "wins": rng.integers(0, 3, 3_000),
        }
    )
    got = stats.estimates(units, ["g"], {"mean": ("points", "hands"), "per": ("points", None)})
    for _, row in got.iterrows():
        g = units[units.g == row.g]
        e = stats.estimate(g.points.to_numpy(float), g.hands.to_numpy(float))
        assert (row["mean"], row.mean_lo, row.mean_hi, row.mean_se) == (e.value, e.lo, e.hi, e.se)
        e = stats.estimate(g.points.to_numpy(float))
        assert (row["per"], row.per_lo, row.per_hi, row.per_se) == (e.value, e.lo, e.hi, e.se)
        assert row.matches == len(g)


def test_slope_imports_only_the_statsmodels_it_uses():
    # statsmodels.api imports every model (~39 MB of a report's RSS); the slope needs OLS
    code = (
        "import sys\n"
        "from analysis.stats import slope\n"
        "s = slope([1.0, 2.5, 2.0, 4.5, 5.0, 7.0], [1, 1, 2, 2, 3, 3], [0, 1, 0, 1, 0, 1])\n"
        "assert s.slope == s.slope\n"
        "print('statsmodels.api' in sys.modules, 'statsmodels.regression.linear_model' in "
        "sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == ["False", "True"]


def test_quantiles_from_counts_are_duckdbs_quantile_cont_bit_for_bit():
    import duckdb

    con = duckdb.connect()
    rng = np.random.default_rng(3)
    qs = [0.0, 0.123, 0.25, 0.37, 0.5, 0.9, 0.99, 0.999, 1.0]
    for t in range(300):
        n = int(rng.integers(1, 12)) if t % 3 == 0 else int(rng.integers(12, 3_000))
        # points (wide, negative too) or hand lengths (few values, many ties)
        x = rng.integers(-500, 5_000, n) if t % 2 else rng.geometric(0.05, n) * 8
        want = con.execute(
            "SELECT quantile_cont(value, $qs) FROM (SELECT unnest($x::BIGINT[]) AS value)",
            {"qs": qs, "x": x.tolist()},
        ).fetchall()[0][0]
        values, counts = np.unique(x, return_counts=True)
        got = stats.quantiles_counted(values, counts, qs)
        assert [float(w).hex() for w in want] == [g.hex() for g in got], (t, x.tolist())
    assert all(np.isnan(stats.quantiles_counted([], [], [0.5, 0.9])))
