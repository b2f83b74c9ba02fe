"""The hostile-input suite, ``mjlog compare``: comparisons that succeed on
degenerate samples. A compare that succeeds prints nothing on stderr, a SciPy
``RuntimeWarning`` on constant data included.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from analysis.sample import data_dir
from analysis.stats import compare_units, estimate
from simulate.runner import RunSpec, simulate
from tests.hostile import run

DATA = data_dir()


# ------------------------------------------------------------ nothing on stderr


@pytest.mark.parametrize("paths, fmt", [
    (["yuxi", "xuezhan", "huangmei"], "text"),  # across variants: every part of the text
    (["sweep/xuezhan-cap"], "json"),
    (["yuxi", "expert/yuxi"], "text"),  # paired on the same walls
], ids=lambda p: "+".join(p) if isinstance(p, list) else p)
def test_compare_on_the_sample_data_prints_nothing_on_stderr(paths, fmt, tmp_path):
    res = run(["compare", *(DATA / p for p in paths), "--format", fmt], tmp_path)
    assert res.code == 0 and res.stdout, res.stderr
    assert res.stderr == "", res.stderr


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict[str, Path]:
    """Runs of one or two hands a match: many matches of one sample hold the same
    figure (constant data)."""
    d = tmp_path_factory.mktemp("tiny")
    out = {}
    for name, matches, hpm in (("a", 2, 1), ("b", 3, 2)):
        spec = RunSpec.build("yuxi", seed=1, matches=matches, hands_per_match=hpm,
                             agents=["random", "greedy", "random", "greedy"], events=False)
        simulate(spec, d / name, workers=1, progress=False)
        out[name] = d / name
    return out


def test_compare_on_constant_samples_prints_nothing_on_stderr(tiny, tmp_path):
    res = run(["compare", tiny["a"], tiny["b"], "--format", "json"], tmp_path)
    assert res.code == 0, res.stderr
    assert res.stderr == "", res.stderr
    assert json.loads(res.stdout)


@pytest.mark.parametrize("base, other, paired", [
    (([1, 0], [1, 1]), ([1, 1, 1], [2, 2, 2]), False),        # one side constant
    (([1, 2, 3], [3, 6, 9]), ([1, 2, 3], [3, 6, 9]), False),  # both constant (1/3)
    (([1, 1, 1], [10, 10, 10]), ([2, 2, 2], [10, 10, 10]), True),  # a constant shift
])
def test_constant_samples_are_handled_without_a_warning(base, other, paired):
    arrays = [np.array(a, dtype=float) for a in (*base, *other)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = compare_units(*arrays, paired=paired)
    assert math.isclose(d.diff, d.value - d.baseline)
    assert d.lo <= d.diff <= d.hi and 0 <= d.p <= 1


def test_a_constant_shift_is_certain_and_no_shift_is_none():
    one = np.array([1.0, 1, 1])
    ten = np.array([10.0, 10, 10])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        shift = compare_units(one, ten, 2 * one, ten, paired=True)
        same = compare_units(one, ten, one, ten, paired=False)
        e = estimate(one, ten)
    assert shift.paired_se == 0 and shift.lo == shift.hi == shift.diff and shift.p == 0
    assert same.diff == 0 and same.unpaired_se == 0 and same.p == 1
    assert e.se == 0 and e.lo == e.hi == e.value
