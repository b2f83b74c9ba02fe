"""Sweeps: one run per point of a grid of rule values, under one parent directory.

Every point is an ordinary run directory named after the point
(``PARENT/cap=8__zimo_bonus=none``); ``PARENT/sweep.json`` lists the variant,
the grid, the shared arguments and, for every point, its directory and run id.
Rerunning the same sweep resumes it: complete runs are left as they are and an
interrupted one finishes from its complete shards.

>>> grid = parse_grid(["cap=8,16", "zimo_bonus=none,add_base"])
>>> grid
(('cap', ('8', '16')), ('zimo_bonus', ('none', 'add_base')))
>>> [point_name(p) for p in points(grid)][:3]
['cap=8__zimo_bonus=none', 'cap=8__zimo_bonus=add_base', 'cap=16__zimo_bonus=none']
>>> point_name({"extras": "menqing,duanyaojiu", "points.gangshangpao": "-/4"})
'extras=menqing,duanyaojiu__points.gangshangpao=-%2F4'
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from mjlog.errors import InputError
from mjlog.errors import quote as show
from mjlog.logio import LogError, canonical_json, read_manifest
from mjlog.rundir import SWEEP_MARKER, RunClaim, replace_file
from simulate.runner import RunSpec, simulate

SWEEP_FILE = "sweep.json"

Grid = tuple[tuple[str, tuple[str, ...]], ...]


def parse_grid(items: Iterable[str]) -> Grid:
    """``KEY=V1,V2,…`` items into (key, values) pairs, in the order given.

    Values are split on ``,``; where one holds a comma itself (a list rule such
    as ``extras``), separate the values with ``;`` instead:
    ``extras=menqing,duanyaojiu;menqing;`` (the last value is the empty list).
    """
    grid: list[tuple[str, tuple[str, ...]]] = []
    for item in items:
        key, eq, values = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise InputError(f"bad --grid {show(item)}; expected KEY=VALUE1,VALUE2,...")
        vals = tuple(v.strip() for v in values.split(";" if ";" in values else ","))
        if len(set(vals)) != len(vals):
            raise InputError(f"--grid {show(item)} repeats a value")
        if any(k == key for k, _ in grid):
            raise InputError(f"--grid names {show(key)} twice")
        grid.append((key, vals))
    if not grid:
        raise InputError("a sweep needs at least one --grid KEY=VALUES")
    return tuple(grid)


def points(grid: Grid) -> list[dict[str, str]]:
    """Every combination of the grid's values, the first key varying slowest."""
    keys = [k for k, _ in grid]
    return [
        dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(v for _, v in grid))
    ]


def point_name(point: dict[str, str]) -> str:
    """The run directory of a point: ``key=value`` joined by ``__``, path-safe."""
    return "__".join(f"{k}={quote(v, safe='=,.-_+')}" for k, v in point.items())


def plan(
    variant: str, grid: Grid, sets: Sequence[str] = (), **build: Any
) -> list[tuple[str, dict[str, str], RunSpec]]:
    """(directory name, point, run spec) of every point; every point's rules are
    checked before anything runs. ``build`` are :meth:`RunSpec.build` arguments."""
    fixed = {s.partition("=")[0].strip() for s in sets}
    both = sorted(fixed & {k for k, _ in grid})
    if both:
        raise InputError(f"{', '.join(both)} given by both --set and --grid")
    out = []
    for point in points(grid):
        point_sets = [*sets, *(f"{k}={v}" for k, v in point.items())]
        try:
            spec = RunSpec.build(variant, sets=point_sets, **build)
        except InputError as e:
            raise InputError(f"grid point {point_name(point)}: {e}") from None
        out.append((point_name(point), point, spec))
    return out


def sweep(
    variant: str,
    grid: Grid,
    out: str | os.PathLike,
    sets: Sequence[str] = (),
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    on_run: Callable[[str, dict], None] | None = None,
    **build: object,
) -> dict:
    """Run every point of ``grid`` into ``out/<point name>`` and write ``sweep.json``.

    ``build`` are the other :meth:`RunSpec.build` arguments (seed, matches,
    hands_per_match, agents, …), shared by every point. ``on_run(name, manifest)``
    is called as each run completes. Returns the sweep manifest.
    """
    runs = plan(variant, grid, sets, **build)
    parent = Path(out)
    first = runs[0][2]
    doc = {
        "variant": variant,
        "grid": {k: list(v) for k, v in grid},
        "sets": list(sets),
        "base": {
            k: (list(v) if isinstance(v, tuple | list) else v)
            for k, v in build.items()
            if k not in ("hands_per_shard", "events")
        },
        **first.layout(),
        "points": [
            {
                "point": point,
                "dir": name,
                "run_id": spec.run_id,
                "complete": _finished(parent / name, spec.run_id),
            }
            for name, point, spec in runs
        ],
    }
    doc["sweep_id"] = _sweep_id(doc)
    path = parent / SWEEP_FILE
    with RunClaim(
        parent,
        doc["sweep_id"],
        "sweep",
        marker=SWEEP_MARKER,
        manifest=SWEEP_FILE,
        id_key="sweep_id",
    ):
        _write(path, doc)
        for entry, (name, _point, spec) in zip(doc["points"], runs, strict=True):
            manifest = simulate(
                spec,
                parent / name,
                workers=workers,
                progress=progress,
                scheduler=scheduler,
                desc=name,
                inside=parent,
            )
            entry["complete"] = True
            _write(path, doc)
            if on_run is not None:
                on_run(name, manifest)
    return doc


def _finished(run: Path, rid: str) -> bool:
    """A run directory with this run's manifest (written last, so complete)."""
    try:
        return read_manifest(run).get("run_id") == rid
    except LogError:
        return False


def _sweep_id(doc: dict) -> str:
    """The sweep's identity: its grid, its runs and their layout (not paths or times)."""
    key = {k: doc[k] for k in ("variant", "grid", "hands_per_shard", "events")}
    key["runs"] = [[p["dir"], p["run_id"]] for p in doc["points"]]
    return hashlib.sha256(canonical_json(key).encode()).hexdigest()[:16]


def _write(path: Path, doc: dict) -> None:
    """The sweep's own file, atomically (no temporary left when the disk is full)."""
    replace_file(
        path, (json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()
    )
