"""Long work announced (docs/cli.md, 'Long work'): before its first hand, a command
that plays says how many hands it will play and about how long that takes here
(a few of them played and timed, :func:`simulate.estimate.seconds_per_hand`).
Beyond :data:`LONG_SECONDS` it asks before it starts: at a terminal a question,
elsewhere a refusal unless ``--yes`` was given.

>>> duration(0.3), duration(42), duration(5400), duration(3 * 86400)
('under 1 s', 'about 42 s', 'about 1.5 h', 'about 3.0 days')
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import click

from mjlog.errors import InputError
from simulate.estimate import duration

__all__ = [
    "LONG_SECONDS",
    "Estimate",
    "announce",
    "duration",
    "estimate",
    "refuse_inside",
    "yes_option",
]

#: Estimated work above this many seconds needs a yes (the question, or ``--yes``).
LONG_SECONDS = 3600.0
_TIMED_HANDS, _TIMING_BUDGET = 4, 0.5  # the probe: a few hands, half a second at most


@dataclass(frozen=True)
class Estimate:
    """``hands`` to play at ``per_hand`` seconds each on ``workers`` processes."""

    hands: int
    per_hand: float
    workers: int

    @property
    def seconds(self) -> float:
        return self.hands * self.per_hand / self.workers


def estimate(specs: Sequence, workers: int | None, hands: int | None = None) -> Estimate:
    """The hands of ``specs`` (or ``hands``) and the time one hand of the first takes
    here; ``workers`` as the runner uses them (no more than a run's shards)."""
    from simulate.estimate import seconds_per_hand
    from simulate.runner import default_workers

    total = sum(s.total_hands for s in specs) if hands is None else hands
    per_hand, _timed = seconds_per_hand(specs[0], _TIMED_HANDS, _TIMING_BUDGET)
    shards = max(len(s.shards()) for s in specs)
    if hands is not None:  # runs built later (a tune's trials): their shards by size
        shards = max(shards, -(-hands // specs[0].hands_per_shard))
    return Estimate(total, per_hand, max(1, min(workers or default_workers(), shards)))


def announce(label: str, what: str, est: Estimate, quiet: bool, yes: bool) -> None:
    """Say what will be played (stderr, unless ``quiet``); past :data:`LONG_SECONDS`
    ask at a terminal, refuse elsewhere, unless ``yes``."""
    w = f"{est.workers} worker{'s' if est.workers > 1 else ''}"
    line = (
        f"{label}: {est.hands:,} hands ({what}), {duration(est.seconds)} on {w} "
        f"({est.per_hand * 1000:.3g} ms a hand, timed here)"
    )
    if not quiet:
        click.echo(line, err=True)
    if est.seconds <= LONG_SECONDS or yes:
        return
    if sys.stdin.isatty() and sys.stderr.isatty():
        if not click.confirm(f"{label}: {duration(est.seconds)}: start it?", err=True):
            raise InputError(f"{label}: not started")
        return
    raise InputError(
        f"{line if quiet else label}: longer than {LONG_SECONDS / 3600:.0f} h; "
        f"pass --yes to start it (or play fewer hands)"
    )


def refuse_inside(out, option: str = "--out") -> None:
    """Refuse, before the estimate, an ``out`` inside a run or sweep directory (the
    writer would, after it): a refusal stays one line. ``out`` itself may be a run
    or sweep, to resume."""
    import os
    from pathlib import Path

    from mjlog.rundir import check_output, data_dir_of

    if data_dir_of(Path(os.path.abspath(out)).parent) is not None:
        check_output(out, option)


def yes_option(f):
    """``--yes``: start work estimated past :data:`LONG_SECONDS` without asking."""
    return click.option(
        "--yes",
        is_flag=True,
        help=f"Start without asking when the estimate passes {LONG_SECONDS / 3600:.0f} hour "
        "(needed when not at a terminal).",
    )(f)
