"""Batch simulation: a run split into shards of whole matches, written atomically.

Shard boundaries depend only on the run's arguments, never on the number of
workers, so 1 worker, N workers or a Dask cluster write the same bytes. A shard
whose files are complete is skipped on a rerun: an interrupted run resumes.

>>> import tempfile
>>> spec = RunSpec.build("yuxi", seed=1, matches=2, hands_per_match=2,
...                      agents=["greedy"] * 4)
>>> m = simulate(spec, tempfile.mkdtemp(), workers=1, progress=False)
>>> m["variant"], sum(f["rows"] for f in m["files"] if f["table"] == "hands")
('yuxi', 4)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from mjlog import __version__
from mjlog.engine import PlayedHand, play_match
from mjlog.errors import InputError, MjlogError
from mjlog.logio import (
    ShardWriter,
    build_manifest,
    read_manifest,
    run_id,
    shard_complete,
    write_manifest,
)
from mjlog.rng import RNG
from mjlog.rules import Rules, resolve
from simulate.agents import make_agents, parse_spec

HANDS_PER_SHARD = 2000  # target; a shard always holds whole matches


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's bytes."""

    rules: Rules
    seed: int
    matches: int
    hands_per_match: int
    agents: tuple[str, ...]
    duplicate: bool = False
    events: bool = True

    @classmethod
    def build(cls, variant: str, seed: int, matches: int, hands_per_match: int,
              agents: Sequence[str], players: int | None = None, sets: Iterable[str] = (),
              rules_file: str | None = None, duplicate: bool = False,
              events: bool = True) -> RunSpec:
        sets = list(sets)
        if players is not None:
            sets.append(f"players={players}")
        rules = resolve(variant, file=rules_file, sets=sets)
        agents = tuple(agents)
        if len(agents) == 1:
            agents = agents * rules.n
        if len(agents) != rules.n:
            raise InputError(f"{len(agents)} agents given for {rules.n} players; give one "
                             f"per seat or a single one for all")
        if matches < 1 or hands_per_match < 1:
            raise InputError("--matches and --hands-per-match must be at least 1")
        if seed < 0:
            raise InputError("--seed must be a non-negative integer")
        make_agents(agents)  # fail early on an unknown agent or parameter
        return cls(rules, seed, matches, hands_per_match, agents, duplicate, events)

    @property
    def variant(self) -> str:
        return self.rules.variant

    @property
    def rotations(self) -> int:
        return self.rules.n if self.duplicate else 1

    @property
    def total_hands(self) -> int:
        return self.matches * self.rotations * self.hands_per_match

    @property
    def matches_per_shard(self) -> int:
        return max(1, HANDS_PER_SHARD // (self.hands_per_match * self.rotations))

    def shards(self) -> list[tuple[int, int, int]]:
        """(shard, first match, end match) for every shard."""
        k = self.matches_per_shard
        return [(i, a, min(a + k, self.matches))
                for i, a in enumerate(range(0, self.matches, k))]

    def meta(self) -> dict:
        agents = []
        for a in self.agents:
            name, params = parse_spec(a)
            agents.append({"name": name, "params": params})
        return {
            "variant": self.variant, "rules": self.rules.to_json(), "seed": self.seed,
            "matches": self.matches, "hands_per_match": self.hands_per_match,
            "players": self.rules.n, "agents": agents, "duplicate": self.duplicate,
            "rng": RNG, "mjlog_version": __version__,
        }

    @property
    def run_id(self) -> str:
        return run_id(self.meta())


def hand_records(p: PlayedHand) -> tuple[dict, list, list, list]:
    """The four tables' rows of one played hand."""
    st = p.state
    wins = [{"seq": w.seq, "seat": w.seat, "from_seat": w.from_seat, "tile": w.tile,
             "method": w.method, "win_order": w.win_order, "patterns": list(w.patterns),
             "fan": w.fan, "multiplier": w.multiplier, "points": w.points,
             "total": w.total, "capped": w.capped} for w in st.wins]
    transfers = [{"seq": q, "payer": a, "payee": b, "amount": m, "reason": r}
                 for q, a, b, m, r in st.transfers]
    return p.hand_row(), st.events, wins, transfers


def play_shard(spec: RunSpec, out: str | os.PathLike, shard: int, first: int,
               end: int) -> tuple[list[dict], int]:
    """Play matches [first, end) and write them as one shard; returns its manifest
    entries and the number of hands."""
    n = spec.rules.n
    rid = spec.run_id
    hands = 0
    with ShardWriter(out, shard, rid, spec.variant, events=spec.events) as w:
        for m in range(first, end):
            for r in range(spec.rotations):
                lineup = [spec.agents[(s - r) % n] for s in range(n)]
                agents = make_agents(lineup)
                for p in play_match(spec.rules, agents, spec.seed, m,
                                    spec.hands_per_match, r, spec.duplicate):
                    w.add_hand(m, r, p.hand, *hand_records(p))
                    hands += 1
    return w.entries, hands


def simulate(spec: RunSpec, out: str | os.PathLike, workers: int | None = None,
             progress: bool | None = None, scheduler: str | None = None) -> dict:
    """Play the run into ``out``, skipping complete shards; write the manifest last."""
    out = Path(out)
    _check_same_run(spec, out)
    shards = spec.shards()
    todo = [s for s in shards if not shard_complete(out, s[0], events=spec.events)]
    per_shard = {s[0]: (s[2] - s[1]) * spec.rotations * spec.hands_per_match for s in shards}
    bar = _progress(spec.total_hands, progress)
    bar.update(spec.total_hands - sum(per_shard[s[0]] for s in todo))
    workers = workers or os.cpu_count() or 1
    try:
        if scheduler:
            from simulate.dask_runner import run_on_dask

            run_on_dask(scheduler, spec, out, todo, lambda k: bar.update(per_shard[k]))
        elif workers == 1 or len(todo) <= 1:
            for shard, a, b in todo:
                play_shard(spec, out, shard, a, b)
                bar.update(per_shard[shard])
        else:
            with ProcessPoolExecutor(min(workers, len(todo))) as pool:
                futs = {pool.submit(play_shard, spec, str(out), s, a, b): s
                        for s, a, b in todo}
                for f in as_completed(futs):
                    f.result()
                    bar.update(per_shard[futs[f]])
    finally:
        bar.close()
    entries = _entries(spec, out, shards)
    manifest = build_manifest(spec.meta(), entries)
    write_manifest(out, manifest)
    return manifest


def _entries(spec: RunSpec, out: Path, shards) -> list[dict]:
    """Manifest entries of every shard, recomputed from the files on disk."""
    import pyarrow.parquet as pq

    from mjlog.logio import _sha256, shard_path

    tables = ("hands", "events", "wins", "transfers") if spec.events else (
        "hands", "wins", "transfers")
    out_entries = []
    for shard, _a, _b in shards:
        for t in tables:
            p = out / shard_path(t, shard)
            out_entries.append({"table": t, "path": shard_path(t, shard),
                                "rows": pq.ParquetFile(p).metadata.num_rows,
                                "sha256": _sha256(p)})
    return out_entries


def _check_same_run(spec: RunSpec, out: Path) -> None:
    """Refuse to mix two different runs in one directory."""
    if (out / "manifest.json").exists():
        old = read_manifest(out)
        if old.get("run_id") != spec.run_id:
            raise MjlogError(f"{out} holds run {old.get('run_id')}, not {spec.run_id}: "
                             f"choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    marker = out / ".run_id"
    if marker.exists() and marker.read_text().strip() != spec.run_id:
        raise MjlogError(f"{out} holds shards of run {marker.read_text().strip()}, "
                         f"not {spec.run_id}: choose another --out")
    marker.write_text(spec.run_id + "\n")


def _progress(total: int, enabled: bool | None):
    import sys

    from tqdm import tqdm

    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(total=total, unit="hand", disable=not enabled, smoothing=0.1,
                dynamic_ncols=True)
