"""Seeded runs of every variant for the replay, audit and mutation tests.

Made once per test process (``lru_cache``) in a temporary directory; each is a
real ``simulate`` run, so the tests check the logs the project actually writes.
The rule settings are chosen to reach more paths than the defaults: yuxi with
horses and random seats (passed wins, the pass lock, the last four tiles),
xuezhan with 呼叫转移 and robbing exposed kongs, huangmei with 3 and 4 players.
"""

from __future__ import annotations

import copy
import tempfile
from functools import cache
from pathlib import Path

from mjlog.audit import AuditResult, RunContext, audit_hand
from mjlog.audit.run_checks import check_manifest
from mjlog.logio import iter_hands
from mjlog.replay import Replay, check_step
from mjlog.rules import Rules
from simulate.runner import RunSpec, simulate

SPECS = {
    "yuxi": dict(
        variant="yuxi",
        seed=6,
        matches=8,
        hands_per_match=4,
        agents=["greedy", "random", "greedy", "random"],
        sets=["horses=4"],
    ),
    "xuezhan": dict(
        variant="xuezhan",
        seed=2,
        matches=4,
        hands_per_match=4,
        agents=["greedy", "random", "greedy", "greedy"],
        sets=["call_transfer=true", "rob_exposed_kong=true"],
    ),
    "huangmei": dict(variant="huangmei", seed=3, matches=4, hands_per_match=4, agents=["greedy"]),
    "huangmei3": dict(
        variant="huangmei", seed=4, matches=2, hands_per_match=3, agents=["greedy"], players=3
    ),
}
VARIANT_RUNS = tuple(SPECS)


@cache
def root() -> Path:
    return Path(tempfile.mkdtemp(prefix="mjlog-audit-tests-"))


@cache
def run(name: str, **extra) -> Path:
    """The run directory of ``SPECS[name]`` (extra: RunSpec.build overrides)."""
    spec = dict(SPECS[name], **extra)
    out = root() / (name + "".join(f"-{k}{v}" for k, v in sorted(extra.items())))
    simulate(RunSpec.build(**spec), out, workers=1, progress=False)
    return out


@cache
def context(name: str) -> RunContext:
    ctx, _ = check_manifest(run(name), AuditResult())
    assert ctx is not None
    return ctx


@cache
def _bundles(name: str) -> tuple:
    return tuple(iter_hands(run(name)))


def bundles(name: str) -> list:
    """Fresh, mutable copies of every hand of the run: (hand, events, wins, transfers)."""
    return [
        (
            dict(b.hand),
            [list(e) for e in b.events],
            [dict(w) for w in b.wins],
            [dict(t) for t in b.transfers],
        )
        for b in copy.deepcopy(_bundles(name))
    ]


def audit(name: str, hand, events, wins, transfers, events_logged: bool = True):
    """Problems (level "problem") of one hand, as (check, seq) pairs and the records."""
    r = audit_hand(context(name), hand, events if events_logged else None, wins, transfers)
    probs = [p for p in r.problems if p.level == "problem"]
    return [(p.check, p.seq) for p in probs], probs


def rules_of(name: str) -> Rules:
    c = context(name)
    return Rules(c.variant, c.rules)


def states_before(name: str, hand, events):
    """Yield (seq, state just before event seq is applied, window closed if the log
    moved past it) for every event of a logged hand."""
    rp = Replay.from_parts(rules_of(name), hand, events)
    st = rp.new_state()
    for i, ev in enumerate(rp.events):
        assert check_step(st, ev) is None
        yield i, st, ev
        st.apply(ev)
