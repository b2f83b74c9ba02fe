"""The learner of the hidden-tile reading (research/reading_fit.py): a fit that beats
the uniform reading on hands it did not see, and a command that writes only where it
is asked (its refusals: research/tests/test_hostile_research.py)."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from research import reading_fit as reading
from simulate.agents.reading import FEATURES
from tests import bounded


def test_learning_beats_the_uniform_reading_on_unseen_hands():
    train = reading.observe("huangmei", hands=30, seed=5)
    test = reading.observe("huangmei", hands=15, seed=5, first=30)
    beta = reading.learn(train)
    flat = np.zeros(len(FEATURES))
    n = reading.copies(test)
    got, uniform = reading.loss(beta, test)[0] / n, reading.loss(flat, test)[0] / n
    assert got < uniform - 0.01, (got, uniform)
    # the gradient is the loss's own: a finite difference agrees
    e = np.zeros_like(beta)
    e[1] = 1e-5
    g = reading.loss(beta, test[:20])[1][1]
    fd = (reading.loss(beta + e, test[:20])[0] - reading.loss(beta - e, test[:20])[0]) / 2e-5
    assert g == pytest.approx(fd, rel=1e-3, abs=1e-3)


def _learner(args, cwd):
    return subprocess.run(
        bounded.python(300, "-m", "research.reading_fit", *args),  # CPU, not wall time
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=bounded.WALL,
    )


def test_the_learner_prints_or_writes_its_reading(tmp_path):
    r = _learner(["--variant", "yuxi", "--hands", "5", "--seed", "3"], tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["features"] == list(FEATURES) and len(doc["beta"]) == len(doc["features"])
    assert not list(tmp_path.iterdir())  # asked for no file, wrote none
    out = tmp_path / "r.json"
    assert (
        _learner(
            ["--variant", "yuxi", "--hands", "5", "--seed", "3", "--out", str(out)], tmp_path
        ).returncode
        == 0
    )
    assert json.loads(out.read_text()) == doc  # the same hands, the same reading
