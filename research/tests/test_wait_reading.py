"""How much of a ready seat's waits the table shows (research.wait_reading): the
observations, the shares' arithmetic, a learned reading that beats the uniform
one on hands it did not see, and the command's table (its refusals:
tests/cli/test_bad_input_refusals.py)."""

from __future__ import annotations

import subprocess
from dataclasses import replace

import numpy as np
import pytest

from research import wait_reading
from simulate.agents import reading
from tests import bounded

F = len(reading.FEATURES)


@pytest.fixture(scope="module")
def yuxi():
    return wait_reading.observe("yuxi", hands=12, seed=9100)


def test_observations_are_ready_seats_with_a_live_wait(yuxi):
    assert len(yuxi) > 20
    assert {o.hand for o in yuxi} <= set(range(12))
    for o in yuxi:
        assert o.X.shape == (34, F)
        assert o.waits.any() and not (o.waits & ~o.live).any()
        assert o.waits.sum() <= 9  # a ready hand waits on at most a suit's nine kinds


def test_uniform_share_is_the_waits_among_the_live_kinds(yuxi):
    got = wait_reading.shares(np.zeros(F), yuxi)
    want = [o.waits.sum() / o.live.sum() for o in yuxi]
    assert got == pytest.approx(want)
    # a reading sure of one wait gives it all: the share is then 1
    t = int(np.flatnonzero(yuxi[0].waits)[0])
    o = replace(yuxi[0], X=yuxi[0].X.copy())  # the fixture's own stays as it was
    o.X[:, 0] = 0
    o.X[t, 0] = 1  # the "held" column as an indicator of t
    beta = np.zeros(F)
    beta[0] = 50
    assert wait_reading.shares(beta, [o])[0] == pytest.approx(1)


def test_the_gradient_is_the_loss_s_own(yuxi):
    X, W, L = wait_reading._stack(yuxi)
    beta = np.linspace(-0.3, 0.3, F)
    g = wait_reading._nll(beta, X, W, L, 1e-3)[1]
    for i in (1, 8, 15):
        e = np.zeros(F)
        e[i] = 1e-6
        fd = (
            wait_reading._nll(beta + e, X, W, L, 1e-3)[0]
            - wait_reading._nll(beta - e, X, W, L, 1e-3)[0]
        ) / 2e-6
        assert g[i] == pytest.approx(fd, rel=1e-4, abs=1e-4)


def test_a_learned_wait_reading_beats_uniform_on_hands_it_did_not_see():
    rows = {r["reading"]: r for r in wait_reading.table("huangmei", hands=100, seed=9100)}
    assert set(rows) == {"uniform", "tile reading", "wait reading", "strategic's danger rule"}
    w = rows["wait reading"]
    assert w["learned_on"] == 80 and w["hands"] <= 20
    share, lo, hi = w["share"]
    assert w["gain"][1] > 0 and lo <= share <= hi
    assert hi < 0.5  # but it names the waits far less surely than the hand does (share 1)
    assert rows["uniform"]["gain"][0] == 0 and rows["uniform"]["auc"][0] == 0.5
    for r in rows.values():
        a, lo, hi = r["auc"]
        assert lo <= a <= hi
    assert rows["wait reading"]["auc"][1] > 0.5  # it ranks waits above chance
    assert rows["strategic's danger rule"]["auc"][1] > 0.5  # and so does strategic's rule
    assert np.isnan(rows["strategic's danger rule"]["share"][0])


def test_auc_counts_the_pairs(yuxi):
    o = yuxi[0]
    live_other = o.live & ~o.waits
    perfect = np.where(o.waits, 1.0, 0.0)[None, :]
    assert wait_reading.ranks(perfect, [o])[0] == 1
    assert wait_reading.ranks(-perfect, [o])[0] == 0
    assert wait_reading.ranks(np.zeros((1, 34)), [o])[0] == 0.5
    # one other live kind ranked above the waits: that share of the pairs lost
    one = perfect.copy()
    one[0, int(np.flatnonzero(live_other)[0])] = 2.0
    assert wait_reading.ranks(one, [o])[0] == pytest.approx(1 - 1 / live_other.sum())


def test_the_command_prints_the_table(tmp_path):
    r = subprocess.run(
        bounded.python(  # CPU, not wall time (tests/bounded.py)
            300,
            "-m",
            "research.wait_reading",
            "--variant",
            "xuezhan",
            "--hands",
            "20",
            "--seed",
            "4",
        ),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=bounded.WALL,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("xuezhan, seed 4: learned on hands 0–15")
    assert [ln.split(" | ")[0] for ln in lines[3:]] == [
        "| uniform",
        "| tile reading",
        "| wait reading",
        "| strategic's danger rule",
        "| the true hand",
    ]
    assert not list(tmp_path.iterdir())  # it writes nothing
