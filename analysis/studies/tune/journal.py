"""A tune's journal, ``DIR/tune.json``, as typed records.

The journal is what makes a tune resumable and its answer reproducible: every trial,
race round, confirmation and recheck is written there as soon as it is known, and how
each run of the directory was made (:class:`Made`; ``settled_hands``: of a settled run,
the hands its manifest says were settled, a shard that fell back to play counted as
played). Each record turns into the JSON
the journal holds (``to_json``) and back (``from_json``); the JSON keys and their order
are the journal's format, so a journal written by one version reads the same in the
next.

A journal is **validated once, on load** (:meth:`TuneJournal.from_json`): a run is
named by a path inside the tune's directory (``trials/003``, ``confirm``; never
``../x`` or ``/abs``), every point lies inside ``--vary``, every number is finite and
every index points at a trial that exists. A journal that fails is refused in one
line (:class:`DamagedJournal`, exit 2), never raced or confirmed.

>>> t = Trial(0, {"base": "1"}, "trials/000", 64, 0.5, {"draw_rate": 0.1})
>>> Trial.from_json(t.to_json()) == t
True
>>> Made.of({"confirm-before": "confirm"}, ["confirm"], "confirm-before")
<Made.SETTLED: 'settled'>
>>> check_run_name("../elsewhere")
Traceback (most recent call last):
...
analysis.studies.tune.journal.DamagedJournal: run '../elsewhere' is not a run of this directory
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mjlog.errors import MjlogError, quote

RUN_NAME = re.compile(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*")
"""A run of a tune directory, by its name there (``trials/003``, ``confirm``): no
``..``, no absolute path, nothing a join could take outside the directory."""


class DamagedJournal(MjlogError):
    """A journal that does not hold what a tune writes (one line, exit 2)."""


class Made(enum.Enum):
    """How a run of the tune's directory was made."""

    PLAYED = "played"  # by the agents, hand by hand
    SETTLED = "settled"  # from another run's logged play (only money-only keys differ)

    @staticmethod
    def of(settled: Mapping[str, str], played: Sequence[str], name: str) -> Made | None:
        """How run ``name`` was made by the journal's ``settled`` and ``played``; None
        when it has not been made yet."""
        if name in settled:
            return Made.SETTLED
        return Made.PLAYED if name in played else None


# ------------------------------------------------------------------ checks
def finite(v: float) -> float | None:
    """``v``, or None for a NaN or an infinity (JSON has neither)."""
    return v if math.isfinite(v) else None


def clean(rows: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
    """Judged rows with every non-finite float as None."""
    if rows is None:
        return None
    return [{k: (finite(v) if isinstance(v, float) else v) for k, v in r.items()} for r in rows]


def check_run_name(name: Any) -> str:
    if not isinstance(name, str) or not RUN_NAME.fullmatch(name):
        raise DamagedJournal(f"run {quote(name)} is not a run of this directory")
    return name


def _int(v: Any, what: str, lo: int = 0) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise DamagedJournal(f"{what} is {quote(v)}, not a whole number of {lo} or more")
    return v


def _num(v: Any, what: str, none: bool = False) -> float | None:
    if v is None and none:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise DamagedJournal(f"{what} is {quote(v)}, not a finite number")
    return float(v) if isinstance(v, float) else v


def _dict(v: Any, what: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise DamagedJournal(f"{what} is {quote(v)}, not an object")
    return v


def _list(v: Any, what: str) -> list[Any]:
    if not isinstance(v, list):
        raise DamagedJournal(f"{what} is {quote(v)}, not a list")
    return v


def _texts(v: Any, what: str) -> list[str]:
    out = _list(v, what)
    if not all(isinstance(x, str) for x in out):
        raise DamagedJournal(f"{what} {quote(out)} holds a non-text entry")
    return out


def _rows(v: Any, what: str) -> list[dict[str, Any]] | None:
    """Judged target rows: objects whose numbers are finite (a figure that had none
    is null)."""
    if v is None:
        return None
    out = []
    for i, r in enumerate(_list(v, what)):
        r = _dict(r, f"{what}[{i}]")
        for k, x in r.items():
            if isinstance(x, float):
                _num(x, f"{what}[{i}].{k}")
        out.append(r)
    return out


def _key(doc: Mapping[str, Any], k: str, what: str) -> Any:
    if k not in doc:
        raise DamagedJournal(f"{what} has no {quote(k)}")
    return doc[k]


# ------------------------------------------------------------------ the records
@dataclass
class Trial:
    """One explored candidate on the shared walls: its point (each varied key as its
    rules-file text), the run it was played in, its hands played, loss and figures;
    ``settled_from`` the run whose play it was settled from (``settled`` the hands
    settled, as the runner's manifest says; ``hands`` counts the rest, played),
    ``same_as`` the earlier trial of the same point (not replayed, 0 hands)."""

    trial: int
    point: dict[str, str]
    run: str
    hands: int
    loss: float
    values: dict[str, float | None]
    settled_from: str | None = None
    settled: int | None = None
    same_as: int | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "trial": self.trial,
            "point": dict(self.point),
            "run": self.run,
            "hands": self.hands,
            "loss": self.loss,
            "values": dict(self.values),
        }
        if self.settled_from is not None:
            doc["settled_from"], doc["settled"] = self.settled_from, self.settled
        if self.same_as is not None:
            doc["same_as"] = self.same_as
        return doc

    @classmethod
    def from_json(cls, doc: Any, what: str = "a trial") -> Trial:
        d = _dict(doc, what)
        point = _dict(_key(d, "point", what), f"{what}'s point")
        if not all(isinstance(v, str) for v in point.values()):
            raise DamagedJournal(f"{what}'s point {quote(point)} holds a value that is not text")
        values = _dict(_key(d, "values", what), f"{what}'s values")
        return cls(
            trial=_int(_key(d, "trial", what), f"{what}'s number"),
            point=dict(point),
            run=check_run_name(_key(d, "run", what)),
            hands=_int(_key(d, "hands", what), f"{what}'s hands"),
            loss=float(_num(_key(d, "loss", what), f"{what}'s loss") or 0.0),
            values={k: _num(v, f"{what}'s {k}", none=True) for k, v in values.items()},
            settled_from=None
            if d.get("settled_from") is None
            else check_run_name(d["settled_from"]),
            settled=None if d.get("settled") is None else _int(d["settled"], f"{what}'s settled"),
            same_as=None if d.get("same_as") is None else _int(d["same_as"], f"{what}'s same_as"),
        )


@dataclass
class RaceRound:
    """One round of the race: the trials raced (best-first order of the field), the
    hands it played, each one's share of bootstrap resamples it was best in and its
    loss on the race's hands so far (its fresh walls only); ``tied``: their figures
    agree match for match."""

    round: int
    trials: list[int]
    hands: int
    share_best: list[float]
    losses: list[float]
    tied: bool = False

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "round": self.round,
            "trials": list(self.trials),
            "hands": self.hands,
            "share_best": list(self.share_best),
            "losses": list(self.losses),
        }
        if self.tied:
            doc["tied"] = True
        return doc

    @classmethod
    def from_json(cls, doc: Any, what: str = "a race round") -> RaceRound:
        d = _dict(doc, what)
        return cls(
            round=_int(_key(d, "round", what), f"{what}'s number"),
            trials=[_int(k, f"{what}'s trial") for k in _list(_key(d, "trials", what), what)],
            hands=_int(_key(d, "hands", what), f"{what}'s hands"),
            share_best=[
                float(_num(s, f"{what}'s share") or 0.0)
                for s in _list(_key(d, "share_best", what), what)
            ],
            losses=[
                float(_num(s, f"{what}'s loss") or 0.0)
                for s in _list(_key(d, "losses", what), what)
            ],
            tied=d.get("tied") is True,
        )


@dataclass
class Choice:
    """How the proposal was chosen (:mod:`analysis.studies.tune.choice`): ``best`` the
    trial of the lowest loss on the race's own fit (without a race, the explored fit),
    ``close`` the candidates that fit cannot tell from it (the same fitted loss),
    ``chosen`` among them the rules as they are, else the race's own figure nearest
    the targets, then the least change;
    ``unmoved`` the targets no varied key moves (every candidate the same on every
    match); ``fit`` the pooled fit the race's candidates came from."""

    best: int
    close: list[int]
    chosen: int
    unmoved: list[str] = field(default_factory=list)
    #: Candidates left out because they would break a containment order (--keep-order).
    broken: list[int] = field(default_factory=list)
    #: The pooled fit the race's candidates were chosen from
    #: (:mod:`analysis.studies.tune.fit`): per trial and target its fitted figure and
    #: 95 % band; None in a journal of a tune before it.
    fit: list[dict[str, Any]] | None = None
    #: The keys no target responds to (:func:`analysis.studies.tune.fit.moved`), held
    #: at the rulebook's value in the race and the proposal.
    held: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "best": self.best,
            "close": list(self.close),
            "chosen": self.chosen,
            "unmoved": list(self.unmoved),
            **({"broken": list(self.broken)} if self.broken else {}),
            **({} if self.fit is None else {"fit": self.fit}),
            **({"held": list(self.held)} if self.held else {}),
        }

    @classmethod
    def from_json(cls, doc: Any, what: str = "the choice") -> Choice:
        d = _dict(doc, what)
        unmoved = _list(d.get("unmoved", []), f"{what}'s unmoved")
        if not all(isinstance(m, str) for m in unmoved):
            raise DamagedJournal(f"{what}'s unmoved {quote(unmoved)} holds a non-text metric")
        return cls(
            best=_int(_key(d, "best", what), f"{what}'s best"),
            close=[_int(k, f"{what}'s close") for k in _list(_key(d, "close", what), what)],
            chosen=_int(_key(d, "chosen", what), f"{what}'s chosen"),
            unmoved=unmoved,
            broken=[_int(k, f"{what}'s broken") for k in _list(d.get("broken", []), what)],
            fit=_rows(d.get("fit"), f"{what}'s fit"),
            held=_texts(d.get("held", []), f"{what}'s held"),
        )


@dataclass
class Confirmation:
    """The proposal (trial ``trial``) judged on a fresh seed: each target's row
    (:func:`analysis.studies.tune.measuring.judge`), and the rules as they were on the
    same walls (``before``; None when the proposal is the rules as they are)."""

    trial: int
    seed: int
    hands: int
    targets: list[dict[str, Any]]
    before: list[dict[str, Any]] | None
    #: Every figure of ``mjlog compare``, the proposal − the rulebook, paired on these
    #: walls (:func:`analysis.studies.tune.effects.compared`); None without a before.
    compared: list[dict[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        doc = {
            "trial": self.trial,
            "seed": self.seed,
            "hands": self.hands,
            "targets": self.targets,
            "before": self.before,
        }
        if self.compared is not None:
            doc["compared"] = self.compared
        return doc

    @classmethod
    def from_json(cls, doc: Any, what: str = "the confirmation") -> Confirmation:
        d = _dict(doc, what)
        return cls(
            trial=_int(_key(d, "trial", what), f"{what}'s trial"),
            seed=_int(_key(d, "seed", what), f"{what}'s seed"),
            hands=_int(_key(d, "hands", what), f"{what}'s hands"),
            targets=_rows(_key(d, "targets", what), f"{what}'s targets") or [],
            before=_rows(d.get("before"), f"{what}'s before"),
            compared=_rows(d.get("compared"), f"{what}'s compared"),
        )


@dataclass
class Recheck:
    """The proposal and the rules as they were under another line-up, on the
    confirmation's walls."""

    agents: str
    hands: int
    targets: list[dict[str, Any]]
    before: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "agents": self.agents,
            "hands": self.hands,
            "targets": self.targets,
            "before": self.before,
        }

    @classmethod
    def from_json(cls, doc: Any, what: str = "a recheck") -> Recheck:
        d = _dict(doc, what)
        agents = _key(d, "agents", what)
        if not isinstance(agents, str):
            raise DamagedJournal(f"{what}'s agents is {quote(agents)}, not text")
        return cls(
            agents=agents,
            hands=_int(_key(d, "hands", what), f"{what}'s hands"),
            targets=_rows(_key(d, "targets", what), f"{what}'s targets") or [],
            before=_rows(_key(d, "before", what), f"{what}'s before") or [],
        )


# ------------------------------------------------------------------ the journals
@dataclass
class Journal:
    """What every study's journal holds: whose it is, and how each run was made
    (``settled``: a run and the run it was settled from; ``played``: runs played)."""

    tune_id: str
    variant: str
    settled: dict[str, str] = field(default_factory=dict)
    played: list[str] = field(default_factory=list)
    #: Whether the journal lists its runs (a journal of an older tune may not, until
    #: it makes one): kept so that such a journal is rewritten as it was read.
    lists_runs: bool = True
    #: Of each settled run, the hands settled (as its manifest says: a shard that fell
    #: back to play is played); a journal before it has none, and its settled runs
    #: count as settled whole.
    settled_hands: dict[str, int] = field(default_factory=dict)

    def made(self, name: str) -> Made | None:
        return Made.of(self.settled, self.played, name)

    def hands_settled(self, name: str, hands: int) -> int:
        """Of run ``name``'s ``hands``, those settled rather than played."""
        if self.made(name) is not Made.SETTLED:
            return 0
        return min(self.settled_hands.get(name, hands), hands)

    def to_json(self) -> dict[str, Any]:
        """The journal as the JSON of ``DIR/tune.json`` (each kind of study its own)."""
        raise NotImplementedError

    def record(self, name: str, donor: str | None, settled: int | None = None) -> None:
        """Run ``name`` was just made: ``settled`` of its hands settled from ``donor``
        (the rest played), or played."""
        self.lists_runs = True
        if donor:
            self.settled[name] = donor
            if settled is not None:
                self.settled_hands[name] = settled
        elif self.made(name) is None:
            self.played.append(name)

    def _runs_json(self) -> dict[str, Any]:
        if not self.lists_runs:
            return {}
        doc: dict[str, Any] = {"settled": dict(self.settled), "played": list(self.played)}
        if self.settled_hands:  # named only when known, so older journals read as written
            doc["settled_hands"] = dict(self.settled_hands)
        return doc

    @staticmethod
    def _common(doc: Mapping[str, Any]) -> dict[str, Any]:
        """Every journal's own fields from its JSON: whose it is and how its runs were
        made (run names of this directory only)."""
        settled, played = Journal._runs_from(doc)
        counts = {
            k: _int(n, f"the settled hands of {quote(k)}")
            for k, n in _dict(doc.get("settled_hands", {}), "settled_hands").items()
        }
        # a count of a run not settled says nothing (its hands are played): dropped
        counts = {k: n for k, n in counts.items() if k in settled}
        return {
            "tune_id": str(doc.get("tune_id")),
            "variant": str(doc.get("variant")),
            "settled": settled,
            "played": played,
            "lists_runs": "settled" in doc or "played" in doc,
            "settled_hands": dict(counts),
        }

    @staticmethod
    def _runs_from(d: Mapping[str, Any]) -> tuple[dict[str, str], list[str]]:
        settled = _dict(d.get("settled", {}), "settled")
        return (
            {check_run_name(k): check_run_name(v) for k, v in settled.items()},
            [check_run_name(p) for p in _list(d.get("played", []), "played")],
        )


@dataclass
class TuneJournal(Journal):
    """A tune's journal: the trials, the race, the confirmation and the rechecks."""

    trials: list[Trial] = field(default_factory=list)
    race: list[RaceRound] = field(default_factory=list)
    confirm: Confirmation | None = None
    choice: Choice | None = None
    #: Per target, what the budget can confirm, sized on trial 0
    #: (:mod:`analysis.studies.tune.sizing`).
    sizing: list[dict[str, Any]] | None = None
    finished: bool = False
    recheck: dict[str, Recheck] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "tune_id": self.tune_id,
            "variant": self.variant,
            "trials": [t.to_json() for t in self.trials],
            "race": [r.to_json() for r in self.race],
            **({} if self.choice is None else {"choice": self.choice.to_json()}),
            **({} if self.sizing is None else {"sizing": self.sizing}),
            "confirm": None if self.confirm is None else self.confirm.to_json(),
            **self._runs_json(),
        }
        if self.finished:
            doc["finished"] = True
        if self.recheck:
            doc["recheck"] = {k: r.to_json() for k, r in self.recheck.items()}
        return doc

    @classmethod
    def from_json(
        cls, doc: Mapping[str, Any], vary: Mapping[str, Sequence[str]] | None = None
    ) -> TuneJournal:
        """The journal in ``doc``, validated; ``vary``: each varied key's values as the
        journal shows them (every trial's point must be one of them)."""
        trials = [
            Trial.from_json(t, f"trial {i}")
            for i, t in enumerate(_list(doc.get("trials", []), "trials"))
        ]
        for i, t in enumerate(trials):
            if t.trial != i:
                raise DamagedJournal(f"trial {i} is numbered {t.trial}")
            if t.same_as is not None and t.same_as >= i:
                raise DamagedJournal(f"trial {i} repeats trial {t.same_as}, which is not before it")
            if vary is not None:
                _inside(t.point, vary, f"trial {i}")
        race = [
            RaceRound.from_json(r, f"race round {i}")
            for i, r in enumerate(_list(doc.get("race", []), "race"))
        ]
        for r in race:
            if any(k >= len(trials) for k in r.trials):
                raise DamagedJournal(f"race round {r.round} races a trial the journal lacks")
        choice = None if doc.get("choice") is None else Choice.from_json(doc["choice"])
        if choice is not None and max(choice.close + [choice.best, choice.chosen]) >= len(trials):
            raise DamagedJournal("the choice names a trial the journal lacks")
        confirm = None if doc.get("confirm") is None else Confirmation.from_json(doc["confirm"])
        if confirm is not None and confirm.trial >= len(trials):
            raise DamagedJournal(f"the confirmation names trial {confirm.trial}, which is missing")
        rechecks = _dict(doc.get("recheck", {}), "recheck")
        return cls(
            **cls._common(doc),
            trials=trials,
            race=race,
            confirm=confirm,
            choice=choice,
            sizing=_rows(doc.get("sizing"), "sizing"),
            finished=doc.get("finished") is True,
            recheck={k: Recheck.from_json(r, f"recheck {quote(k)}") for k, r in rechecks.items()},
        )


def _inside(point: Mapping[str, str], vary: Mapping[str, Sequence[str]], what: str) -> None:
    if set(point) != set(vary):
        raise DamagedJournal(f"{what} varies {sorted(point)}, not --vary's {sorted(vary)}")
    for k, v in point.items():
        if v not in vary[k]:
            raise DamagedJournal(f"{what}'s {k}={quote(v)} lies outside --vary")


@dataclass
class RescoreJournal(Journal):
    """A ``--rescore``'s journal: its rounds (each a row
    :class:`analysis.studies.rescore.Rescorer` writes) and its confirmation."""

    rounds: list[dict[str, Any]] = field(default_factory=list)
    confirm: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "tune_id": self.tune_id,
            "variant": self.variant,
            "mode": "rescore",
            "rounds": self.rounds,
            "confirm": self.confirm,
            **self._runs_json(),
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> RescoreJournal:
        rounds = [
            _dict(r, f"round {i}") for i, r in enumerate(_list(doc.get("rounds", []), "rounds"))
        ]
        for i, r in enumerate(rounds):
            check_run_name(_key(r, "run", f"round {i}"))
            _int(_key(r, "hands", f"round {i}"), f"round {i}'s hands")
            _int(_key(r, "wins", f"round {i}"), f"round {i}'s wins")
            for k, n in _dict(_key(r, "counts", f"round {i}"), f"round {i}'s counts").items():
                _int(n, f"round {i}'s count of {k}")
        confirm = doc.get("confirm")
        if confirm is not None:
            c = _dict(confirm, "the confirmation")
            _int(_key(c, "seed", "the confirmation"), "the confirmation's seed")
            _int(_key(c, "hands", "the confirmation"), "the confirmation's hands")
            for side in ("rate_old", "rate_new"):
                for p, r in _dict(_key(c, side, "the confirmation"), side).items():
                    for k, v in _dict(r, f"{side} of {p}").items():
                        _num(v, f"{side} {p}.{k}", none=True)
        return cls(
            **cls._common(doc),
            rounds=rounds,
            confirm=confirm,
        )


__all__ = [
    "RUN_NAME",
    "Choice",
    "Confirmation",
    "DamagedJournal",
    "Journal",
    "Made",
    "RaceRound",
    "Recheck",
    "RescoreJournal",
    "Trial",
    "TuneJournal",
    "check_run_name",
    "clean",
    "finite",
]
