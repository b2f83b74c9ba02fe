"""A study's directory: its runs and its journal, resumable run by run.

Shared by :class:`analysis.studies.tune.search.Tuner` and
:class:`analysis.studies.rescore.Rescorer`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from analysis.studies.tune.journal import DamagedJournal, Journal
from analysis.studies.tune.measuring import Measured, measure
from mjlog.errors import MjlogError
from mjlog.resettle import money_blind
from mjlog.rng import derive
from mjlog.rundir import write_atomic
from simulate.agents import make_agents
from simulate.resettled import donor_problem
from simulate.runner import RunJob, RunSpec, settled_hands, simulate_runs
from simulate.spec import study_shard_hands

TUNE_FILE = "tune.json"
RULES_FILE = "rules.toml"
SEED_SPACE = 2**31
"""Derived seeds are kept below this, so a run's seed reads as an ordinary number."""


class StudyPlan(Protocol):
    """What a study's directory needs of its plan (read-only: the plans are frozen)."""

    @property
    def tune_id(self) -> str: ...

    @property
    def variant(self) -> str: ...

    @property
    def agents(self) -> tuple[str, ...]: ...

    @property
    def hands_per_match(self) -> int: ...

    @property
    def seed(self) -> int: ...


def derived_seed(plan: StudyPlan, *parts: int) -> int:
    """The seed of a study's stage ``parts`` (1: the sampler, 2: a race round, 3: its
    bootstrap, 4: the confirmation, 5: least change's bootstrap, 6: the pooled fit's
    bootstrap), derived from the plan's seed.

    >>> from types import SimpleNamespace
    >>> derived_seed(SimpleNamespace(seed=0), 4) == derived_seed(SimpleNamespace(seed=0), 4)
    True
    """
    return derive(plan.seed, *parts) % SEED_SPACE


@dataclass(frozen=True)
class RunAsked:
    """A run a study asks for: its name (``DIR/name``), its ``--set``s, seed, matches
    and line-up (None: the plan's)."""

    name: str
    sets: Sequence[str]
    seed: int
    matches: int
    agents: Sequence[str] | None = None


J = TypeVar("J", bound=Journal)
P = TypeVar("P", bound=StudyPlan)


class Study(Generic[P, J]):
    """A directory of runs with its journal ``DIR/tune.json``: the journal names its
    study by ``plan.tune_id`` (a directory of another study, or of other files, is
    refused), is validated once on load (a damaged one is refused in one line), is
    rewritten atomically after every step, and every run is an ordinary run directory
    resumed shard by shard. ``settle=False`` plays every run, none settled from
    another's play (the same answer: for checking)."""

    settle = True
    #: Entries the directory may hold before its journal (the tune's pilot).
    own: tuple[str, ...] = ()

    def __init__(
        self,
        plan: P,
        out: str | Path,
        workers: int | None = None,
        scheduler: str | None = None,
        progress: Callable[[str], None] | None = None,
        settle: bool = True,
    ):
        self.plan, self.out = plan, Path(out)
        self.workers, self.scheduler, self.settle = workers, scheduler, settle
        self.say = progress or (lambda _line: None)
        self.verbose = progress is not None
        #: Runs this process wrote (measured without re-hashing their files); a run
        #: found complete on disk, as a resumed study finds them, is verified.
        self.written: set[str] = set()
        self.journal: J = self._load()

    # what a subclass says about its journal
    def _fresh(self) -> J:
        raise NotImplementedError

    def _read(self, doc: Mapping[str, Any]) -> J:
        raise NotImplementedError

    def _load(self) -> J:
        """The journal in ``out`` (validated), or a fresh one when there is none yet."""
        path = self.out / TUNE_FILE
        if path.exists():
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise MjlogError(f"{path}: not a tune journal ({e})") from None
            if not isinstance(doc, dict) or doc.get("tune_id") != self.plan.tune_id:
                raise MjlogError(
                    f"{path} belongs to another tune (tune id "
                    f"{doc.get('tune_id') if isinstance(doc, dict) else '?'}, "
                    f"this one {self.plan.tune_id}): choose another --out"
                )
            try:
                return self._read(doc)
            except DamagedJournal as e:
                raise DamagedJournal(f"{path}: a damaged tune journal: {e}") from None
        if self.out.exists() and any(p.name not in self.own for p in self.out.iterdir()):
            raise MjlogError(
                f"{self.out} holds files but no {TUNE_FILE}: choose a new or empty --out"
            )
        return self._fresh()

    def _save(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        write_atomic(
            self.out / TUNE_FILE,
            json.dumps(self.journal.to_json(), indent=1, ensure_ascii=False, allow_nan=False)
            + "\n",
            "--out",
        )

    def _run(self, run: RunAsked) -> Path:
        """Play (or finish) ``run`` under the plan's rules and its ``sets``, by the
        plan's line-up unless it names another. When a run already played
        here differs from it only in money-only keys and the line-up never reads money,
        the run is settled from that one's logged play instead (the same bytes, at the
        cost of a replay: :mod:`simulate.resettled`); the journal records how each run
        was made (:class:`~analysis.studies.tune.journal.Made`), hands played and
        hands settled, as the runner's manifest says."""
        return self._runs([run])[0]

    def _runs(
        self, asked: Sequence[RunAsked], done: Callable[[str], None] | None = None
    ) -> list[Path]:
        """Play (or finish) several runs (each as :meth:`_run` takes one) side by
        side: every shard of every one to the same workers, so that none waits for
        the last shard of a run (issue 48). ``done(name)`` as each run is complete,
        while the others play (the study reads it meanwhile; the journal says how
        each was made once all are). A line-up that never
        reads money plays them one after another instead, each free to settle from
        those before it."""
        if type(self)._run is not Study._run:  # a study emulated run by run (its seam)
            for a in asked:
                self._run(a)
                if done is not None:
                    done(a.name)
            return [self.out / a.name for a in asked]
        specs = [self._spec(a) for a in asked]
        runs = [(a.name, spec) for a, spec in zip(asked, specs, strict=True)]
        if self.settle and any(money_blind(make_agents(s.agents)) for s in specs):
            for run in runs:
                self._simulate([run], done)
        else:
            self._simulate(runs, done)
        return [self.out / a.name for a in asked]

    def _spec(self, run: RunAsked) -> RunSpec:
        """The spec of ``run`` (its shards sized by the run alone)."""
        return RunSpec.build(
            self.plan.variant,
            run.seed,
            run.matches,
            self.plan.hands_per_match,
            list(run.agents or self.plan.agents),
            sets=list(run.sets),
            hands_per_shard=study_shard_hands(run.matches, self.plan.hands_per_match),
        )

    def _simulate(
        self, runs: Sequence[tuple[str, RunSpec]], done: Callable[[str], None] | None = None
    ) -> None:
        """Play ``runs`` (name, spec) together, each settled from a donor when it may
        be, and journal how each was made (``done(name)`` as each is complete)."""
        jobs, donors = [], []
        for name, spec in runs:
            run = self.out / name
            if not (run / "manifest.json").exists():  # a run read back is verified like any
                self.written.add(name)
            donor = self._donor(spec, name) if self.settle else None
            donors.append(donor)
            jobs.append(RunJob(spec, run, self.out / donor if donor else None))
        manifests = simulate_runs(
            jobs,
            workers=self.workers,
            scheduler=self.scheduler,
            on_run=None if done is None else lambda i, _manifest: done(runs[i][0]),
        )
        # journaled in the order asked, not as they finished: the same journal
        # whatever the workers
        for (name, _), donor, manifest in zip(runs, donors, manifests, strict=True):
            # as the runner made it: a shard that did not settle was played, and a run
            # none of whose shards settled is a played run (and may be a donor itself)
            settled = settled_hands(manifest)
            self.journal.record(name, donor if settled else None, settled)

    def _donor(self, spec: RunSpec, name: str) -> str | None:
        """The first run played here whose play ``spec`` may reuse, if any."""
        if not money_blind(make_agents(spec.agents)):
            return None  # the common case of a tune: its agents respond to the rules
        # run names were checked on load: each is a run of this directory
        return next(
            (
                p
                for p in self.journal.played
                if p != name and donor_problem(spec, self.out / p) is None
            ),
            None,
        )

    def _measure(self, name: str, metrics: Sequence[str]) -> Measured:
        """Run ``name``'s figures, its files verified unless this process wrote it."""
        return measure(self.out / name, metrics, verify=name not in self.written)

    def _counted(self, name: str, m: Measured) -> Measured:
        """``m``, measured on run ``name``, with its hands counted as played or settled
        (as the journal recorded the runner's word)."""
        m.played = m.hands - self.journal.hands_settled(name, m.hands)
        return m
