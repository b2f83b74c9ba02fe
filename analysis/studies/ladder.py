"""The agent ladder played: duplicate matches, then per-agent figures with 95% intervals
(read by :mod:`analysis.ladder`).

Each match is played once per seat rotation on the same walls (docs/rules/README.md,
"Determinism"), so every agent meets the same tiles from every seat; and, by
default, once per order of the agents after the first (:mod:`simulate.seating`),
so that no agent always plays just before another. The unit of
the confidence interval is the match (its rotations averaged), which removes
most of the wall's luck from the comparison; the interval is the t interval of
:mod:`analysis.stats`, the same as every interval of :mod:`analysis.queries`.

>>> import tempfile
>>> t = ladder("yuxi", ["greedy", "random", "greedy", "random"], hands=32, seed=3,
...            workers=1, out=tempfile.mkdtemp())
>>> list(t.columns)
['agent', 'hands', 'mean_points', 'ci_low', 'ci_high', 'win_rate', 'deal_in_rate', \
'mean_points_per_win', 'mean_total_per_win']
>>> sorted(t["agent"])
['greedy', 'random']

Two agents' intervals may overlap while one is clearly ahead: both hold the
same matches' luck. :func:`gaps` pairs them by match, the sharper test of
"is this agent better than the next one down":

>>> _, g = ladder_tables("yuxi", ["greedy", "random", "greedy", "random"], hands=32,
...                      seed=3, hands_per_match=1, workers=1, out=tempfile.mkdtemp())
>>> list(g.columns)
['ahead', 'behind', 'matches', 'difference', 'ci_low', 'ci_high', 'p']
>>> g.loc[0, "ahead"], g.loc[0, "behind"], bool(g.loc[0, "ci_low"] > 0)
('greedy', 'random', True)
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from analysis.ladder import tables
from mjlog.errors import InputError
from simulate.runner import HANDS_PER_SHARD, RunSpec, simulate
from simulate.seating import DEFAULT_SEATING, seatings


def ladder_tables(
    variant: str,
    agents: Sequence[str],
    hands: int,
    seed: int = 0,
    hands_per_match: int = 8,
    sets: Sequence[str] = (),
    workers: int | None = None,
    out: str | Path | None = None,
    progress: bool | None = False,
    hands_per_shard: int = HANDS_PER_SHARD,
    seating: str = DEFAULT_SEATING,
    scheduler: str | None = None,
    on_plan: Callable[[list[RunSpec], int], None] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`ladder`'s standings and the paired :func:`gaps` down them.
    ``hands_per_shard`` sets the file layout only (smaller shards, more workers
    busy on a short ladder), never the hands or the standings. ``seating``
    (:func:`seatings`): ``balanced``, the default, plays every line-up order on the
    same walls, each a run of its own under ``out/seating-K``, pooled per match;
    ``cyclic`` plays the line-up's order only, in ``out`` itself. ``scheduler``
    sends the shards to that dask.distributed scheduler instead of local workers
    (:func:`~simulate.runner.simulate`); its workers write the run, so it needs an
    ``out`` they can see, never a temporary folder of this machine. ``on_plan(specs,
    hands)`` is told the runs before any is played (it may refuse by raising)."""
    if scheduler is not None and out is None:
        raise InputError(
            "a ladder on a --scheduler needs --out: the cluster's workers write the run there"
        )
    orders = seatings(agents, seating)
    probe = RunSpec.build(variant, seed, 1, hands_per_match, agents, sets=sets, duplicate=True)
    per_match = probe.rotations * hands_per_match * len(orders)
    # two matches at least: the match is the interval's unit, and one gives none
    matches = max(2, -(-hands // per_match))
    specs = [
        RunSpec.build(
            variant,
            seed,
            matches,
            hands_per_match,
            lineup,
            sets=sets,
            duplicate=True,
            events=False,
            hands_per_shard=hands_per_shard,
        )
        for lineup in orders
    ]
    if on_plan is not None:  # told the runs and their hands before the first is played
        on_plan(specs, sum(s.total_hands for s in specs))

    def play(root: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
        # one folder holds one kind of ladder: the tables read whichever it finds
        if len(specs) > 1 and ((root / "hands").exists() or (root / "manifest.json").exists()):
            raise InputError(
                f"{root}: holds a cyclic ladder's run; resume it with --seating "
                "cyclic, or give a balanced ladder another --out"
            )
        if len(specs) == 1 and any(root.glob("seating-*")):
            raise InputError(
                f"{root}: holds a balanced ladder (seating-*/); resume it with "
                "--seating balanced, or give a cyclic ladder another --out"
            )
        for k, spec in enumerate(specs):
            simulate(
                spec,
                root if len(specs) == 1 else root / f"seating-{k}",
                workers=workers,
                progress=progress,
                scheduler=scheduler,
            )
        return tables(root)

    if out is None:
        with tempfile.TemporaryDirectory(prefix="mjlog-ladder-") as d:
            return play(Path(d))
    return play(Path(out))


def ladder(
    variant: str,
    agents: Sequence[str],
    hands: int,
    seed: int = 0,
    hands_per_match: int = 8,
    sets: Sequence[str] = (),
    workers: int | None = None,
    out: str | Path | None = None,
    progress: bool | None = False,
    seating: str = DEFAULT_SEATING,
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Play at least ``hands`` duplicate hands with this line-up and rank the agents."""
    return ladder_tables(
        variant,
        agents,
        hands,
        seed,
        hands_per_match,
        sets,
        workers,
        out,
        progress,
        seating=seating,
        scheduler=scheduler,
    )[0]
