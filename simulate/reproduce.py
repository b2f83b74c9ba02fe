"""Provenance: does a run hold exactly what its recorded agents play from its seed?

The auditor (:mod:`mjlog.audit`) asks whether every event is *legal*; a changed
but legal decision passes it. :func:`reproduce_runs` (``mjlog validate
--reproduce``) asks the other question: it plays every hand of a run again with
the run's recorded agents, from the run's seed, through the engine's own play
(:func:`mjlog.engine.play_hand`: the same wall, dice and agent streams,
:mod:`mjlog.rng`, as the runner), and reports the first event of each hand where
the log differs from that play (check ``reproduce``). A run that cannot be
played again says why (check ``not_reproducible``): no seed, a random routine
this mjlog does not implement, an agent that is not installed, or a registered
agent whose default settings changed since the run was written.

Each hand is played on its own: its dealer is the logged one (hand 0's is drawn
from the seed, as the runner does), so a difference in one hand is not carried
into the next. A run logged without events is compared on its hands rows
(outcome, winners, deltas, next dealer, ...).

>>> import tempfile
>>> from simulate.runner import RunSpec, simulate
>>> run = tempfile.mkdtemp()
>>> _ = simulate(RunSpec.build("yuxi", 2, 1, 2, ["greedy", "random"] * 2), run,
...              workers=1, progress=False)
>>> res = reproduce_runs([run])
>>> res.hands, res.problems
(2, [])
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mjlog import __version__
from mjlog.agent import Agent
from mjlog.audit.report import Problem, run_problem
from mjlog.engine import AgentError, play_hand
from mjlog.errors import MjlogError
from mjlog.events import Event
from mjlog.logio import LogError, RunFiles, read_manifest
from mjlog.logio.readers import iter_hands
from mjlog.replay import Check, describe, to_event
from mjlog.rng import RNG
from mjlog.rules import Rules
from mjlog.state import HandState
from simulate.agents import agent_entry, make_agents

__all__ = ["ReproduceResult", "reproduce_runs"]

#: The hands row columns compared when a run logged no events.
ROW_COLUMNS = ("outcome", "winners", "deltas", "next_dealer", "wall_left", "n_events")


@dataclass(slots=True)
class ReproduceResult:
    """Hands played again, and the findings: a ``reproduce`` problem per hand that
    differs, a ``not_reproducible`` problem per run that cannot be played again."""

    hands: int = 0
    differ: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)


class _Differs(Exception):
    """The play left the log at ``seq``."""

    def __init__(self, seq: int, log: str, played: str):
        super().__init__(seq)
        self.seq, self.log, self.played = seq, log, played


def reproduce_runs(
    runs: Sequence[str | os.PathLike[str]], progress: Callable[[int], Any] | None = None
) -> ReproduceResult:
    """Play every hand of each run again with its recorded agents and seed; see the
    module docstring. ``progress(n)`` is told of each hand played."""
    res = ReproduceResult()
    for run in runs:
        _reproduce(Path(run), res, progress)
    return res


def _reproduce(run: Path, res: ReproduceResult, progress: Callable[[int], Any] | None) -> None:
    def cannot(why: str) -> None:
        res.problems.append(
            run_problem(str(run), Check.NOT_REPRODUCIBLE, "", f"not replayed: {why}", rid=rid)
        )

    rid = None
    try:
        m = read_manifest(run)
        rid = m.get("run_id")
        files = RunFiles(run)
        rules = Rules.recorded(m["variant"], m["rules"])
    except (LogError, MjlogError, KeyError, TypeError, ValueError) as e:
        return cannot(f"the run cannot be read ({e})")
    if m.get("seed") is None:
        return cannot("the run records no seed")
    if m.get("rng") != RNG:
        return cannot(f"its rng {m.get('rng')!r} is not the one this mjlog implements ({RNG})")
    try:
        lineup = _lineup(m, rules.n)
    except (MjlogError, TypeError, ValueError) as e:
        return cannot(str(e))
    if lineup is None:
        res.notes.append(
            run_problem(
                str(run),
                Check.NOT_REPRODUCIBLE,
                "",
                "an imported run: each hand's agents are played by the names its "
                "hands row gives, with their default settings",
                rid=rid,
                level="note",
            )
        )
    if m.get("mjlog_version") not in (None, __version__):
        res.notes.append(
            run_problem(
                str(run),
                Check.NOT_REPRODUCIBLE,
                "",
                f"written by mjlog {m.get('mjlog_version')}, played again by {__version__}: "
                "a difference may be the engine's, not the log's",
                rid=rid,
                level="note",
            )
        )
    seats: dict[tuple[Any, ...], list[Agent]] = {}
    try:
        for b in iter_hands(files):
            h = b.hand
            names = (
                tuple(lineup[(s - h["rotation"]) % rules.n] for s in range(rules.n))
                if (lineup is not None)
                else tuple(h["agents"])
            )
            agents = seats.get(names)
            if agents is None:
                agents = seats[names] = make_agents(list(names))
            found = _hand(rules, m["seed"], h, b.events if files.has_events else None, agents)
            res.hands += 1
            if progress is not None:
                progress(1)
            if found is not None:
                res.differ += 1
                seq, log, played = found
                res.problems.append(
                    Problem(
                        str(run),
                        Check.REPRODUCE,
                        log,
                        played,
                        h["match"],
                        h["rotation"],
                        h["hand"],
                        seq,
                        run_id=rid,
                    )
                )
    except (LogError, MjlogError) as e:
        cannot(str(e))


def _lineup(m: Mapping[str, Any], n: int) -> list[str] | None:
    """The agent specs seat by seat at rotation 0, from a simulated run's manifest
    (None for an imported run); refused when an agent cannot be played as recorded."""
    entries = m.get("agents")
    if m.get("imported"):
        return None
    if not isinstance(entries, list) or len(entries) != n:
        raise ValueError("its manifest records no agent per seat")
    specs = []
    for e in entries:
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            raise ValueError(f"its manifest's agent {e!r} is not one this mjlog can read")
        spec = e.get("spec") or _spec(e["name"], e.get("params") or {})
        try:
            make_agents([spec])  # installed, and takes its parameters
            now = agent_entry(spec)
        except MjlogError as err:
            raise ValueError(f"its agent {spec!r} cannot be made here: {err}") from None
        if "settings" in e and now.get("settings") != e["settings"]:
            raise ValueError(
                f"agent {spec!r} now has the settings {now.get('settings')}, "
                f"the run was played with {e['settings']}"
            )
        if "version" in e and now.get("version") != e["version"]:
            raise ValueError(
                f"agent {spec!r} is version {now.get('version')} here, "
                f"the run was played with {e['version']}"
            )
        specs.append(spec)
    return specs


def _spec(name: str, params: Mapping[str, Any]) -> str:
    if not params:
        return name
    return f"{name}:" + ";".join(f"{k}={v}" for k, v in sorted(params.items()))


def _hand(
    rules: Rules,
    seed: int,
    h: Mapping[str, Any],
    events: Sequence[Sequence[Any]] | None,
    agents: list[Agent],
) -> tuple[int | None, str, str] | None:
    """The first difference between a logged hand and its play: (seq, what the log
    says, what the agents play), or None when they agree."""
    logged = [to_event(e) for e in events] if events is not None else None
    dealer = None if h["hand"] == 0 else h["dealer"]
    observe = _comparer(logged) if logged is not None else None
    try:
        played = play_hand(
            rules, agents, seed, h["match"], h["hand"], dealer, h["rotation"], observe
        )
    except _Differs as d:
        return d.seq, d.log, d.played
    except AgentError as e:
        return None, "the hand as logged", f"an agent refuses: {e}"
    if logged is not None:
        n = len(played.state.events)
        if len(logged) > n:
            return n, describe(logged[n]), "the hand is over (no more events)"
        return None
    row = played.hand_row()
    for col in ROW_COLUMNS:
        got = list(h[col]) if isinstance(h[col], list | tuple) else h[col]
        if got != row[col]:
            return None, f"{col} {got}", f"{col} {row[col]} (events not logged: the hands row)"
    return None


def _comparer(logged: list[Event]) -> Callable[[HandState], None]:
    """An ``observe`` for :func:`play_hand` that stops the play at the first event
    that is not the log's."""

    def observe(state: HandState) -> None:
        i = len(state.events) - 1
        ev = state.events[i]
        if i >= len(logged):
            raise _Differs(i, "no more events (the log ends here)", describe(ev))
        if logged[i] != ev:
            raise _Differs(i, describe(logged[i]), describe(ev))

    return observe
