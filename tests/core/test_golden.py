"""Golden playthroughs: the same seeds must give the same hands, line for line.

After an intended change of play or scoring, run `make golden` and review the diff.
"""

import pytest

from tests.golden.regen import CASES, HERE, render


@pytest.mark.parametrize("variant,seed,agents,sets", CASES, ids=[c[0] for c in CASES])
def test_golden_playthrough(variant, seed, agents, sets):
    want = (HERE / f"{variant}.jsonl").read_text().splitlines()
    got = render(variant, seed, agents, sets).splitlines()
    for i, (a, b) in enumerate(zip(got, want, strict=False)):
        assert a == b, (
            f"{variant} line {i + 1} differs (run `make golden` if intended):\n"
            f"  now:    {a[:200]}\n  golden: {b[:200]}"
        )
    assert len(got) == len(want), f"{variant}: {len(got)} lines now, {len(want)} golden"
