"""The auditor's findings and how they are written out.

A :class:`Problem` names the run, match, rotation, hand, seq, the Parquet file it
was read from, the check, what the log says and what the rules say;
:func:`write_report` writes every problem, then every note, as JSON lines or CSV.

>>> Problem("runs/a", "hand_deltas", "[1, -1, 0, 0]", "[0, 0, 0, 0]", 0, 0, 3).line()
'runs/a, match 0, rotation 0, hand 3: hand_deltas: the log says [1, -1, 0, 0]; \
the rules say [0, 0, 0, 0]'
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mjlog.csvsafe import csv_text
from mjlog.rundir import write_atomic

__all__ = [
    "REPORT_COLUMNS",
    "AuditResult",
    "HandFindings",
    "Problem",
    "run_problem",
    "write_report",
]


@dataclass(slots=True)
class Problem:
    """One finding. ``level`` is ``problem`` (exit 1) or ``note`` (what was not
    checked, and why)."""

    run: str
    check: str
    log: str = ""
    rules: str = ""
    match: int | None = None
    rotation: int | None = None
    hand: int | None = None
    seq: int | None = None
    file: str | None = None
    run_id: str | None = None
    level: str = "problem"

    def line(self) -> str:
        """The finding as one line of text (what ``mjlog validate`` prints)."""
        where = [self.run]
        for k in ("match", "rotation", "hand", "seq"):
            v = getattr(self, k)
            if v is not None:
                where.append(f"{k} {v}")
        if self.file:
            where.append(self.file)
        text = f"{', '.join(where)}: {self.check}"
        if self.log:
            text += f": the log says {self.log}"
        if self.rules:
            # --reproduce sets the log against a play, not against the rules
            says = "the recorded agents play" if self.check == "reproduce" else "the rules say"
            text += f"; {says} {self.rules}" if self.log else f": {self.rules}"
        return text


@dataclass(slots=True)
class AuditResult:
    """What :func:`mjlog.audit.audit_runs` found, and how much it checked."""

    runs: int = 0
    hands: int = 0
    events: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


class HandFindings:
    """Collects a hand's problems (one per check and seq) and notes (one per check)."""

    def __init__(self, run: str, run_id: str | None, row: Mapping[str, Any]):
        self.run, self.run_id = run, run_id
        # the row's values as logged (ints in a hands table of the declared schema)
        self.key: tuple[Any, Any, Any] = (row.get("match"), row.get("rotation"), row.get("hand"))
        self.problems: list[Problem] = []
        self._seen: set[tuple[str, int | str | None]] = set()

    def add(self, check: str, log: Any, rules: Any, seq: int | None = None) -> None:
        if (check, seq) in self._seen:
            return
        self._seen.add((check, seq))
        m, r, h = self.key
        self.problems.append(
            Problem(self.run, check, str(log), str(rules), m, r, h, seq, run_id=self.run_id)
        )

    def note(self, check: str, text: str, seq: int | None = None) -> None:
        """A note of what was not checked; with a ``seq``, about this hand (kept per
        hand), else about every hand of the run (reported once per run)."""
        if (check, "note") in self._seen:
            return
        self._seen.add((check, "note"))
        m, r, h = self.key
        self.problems.append(
            Problem(self.run, check, "", text, m, r, h, seq, run_id=self.run_id, level="note")
        )


def run_problem(
    run: str,
    check: str,
    log: object = "",
    rules: str = "",
    file: str | None = None,
    rid: str | None = None,
    level: str = "problem",
) -> Problem:
    """A finding about a run as a whole (its manifest, its files, its set of hands);
    ``log``, what the run holds, as text (as :meth:`HandFindings.add` writes it)."""
    return Problem(run, check, str(log), rules, file=file, run_id=rid, level=level)


REPORT_COLUMNS = (
    "level",
    "run",
    "run_id",
    "match",
    "rotation",
    "hand",
    "seq",
    "check",
    "log",
    "rules",
    "file",
)


def write_report(path: str | os.PathLike[str], res: AuditResult) -> Path:
    """Every problem, then every note: JSON lines, or CSV when the name ends in .csv."""
    p = Path(path)
    rows = [asdict(x) for x in res.problems + res.notes]
    cols = list(REPORT_COLUMNS)
    if p.suffix == ".csv":  # text cells a spreadsheet would evaluate are quoted
        text = csv_text(rows, cols)
    else:
        text = "".join(
            json.dumps({c: r[c] for c in cols}, ensure_ascii=False, allow_nan=False) + "\n"
            for r in rows
        )
    return write_atomic(p, text, "--report")  # never into a run; whole or not at all
