"""A run's specification: everything that decides its hands and its files
(:class:`RunSpec`), the limits it must keep, and its shards of whole matches.

Its own module so that the runner and what the runner calls (settling from logged
play, :mod:`simulate.resettled`) read the one class.

>>> spec = RunSpec.build("yuxi", seed=1, matches=5, hands_per_match=2, agents=["greedy"])
>>> spec.matches * spec.hands_per_match, list(spec.shards())
(10, [(0, 0, 5)])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mjlog import __version__
from mjlog.errors import InputError
from mjlog.logio import run_id
from mjlog.rng import RNG
from mjlog.rules import Rules, resolve
from simulate.agents import agent_entry, make_agents

HANDS_PER_SHARD = 2000  # default target; a shard always holds whole matches

#: A study's runs (a tune's trials, a balance's measure) hold at least this many
#: shards: a trial of a few hundred matches is otherwise one shard, one busy core.
STUDY_SHARDS = 8


def study_shard_hands(matches: int, hands_per_match: int, rotations: int = 1) -> int:
    """Hands per shard for a study's run of ``matches``: the default at most, and few
    enough that the run has :data:`STUDY_SHARDS` shards or more (of whole matches; as
    many as its matches when it has fewer), so that every worker is busy. It depends on the run alone, never on the workers: the
    layout, and the answer, are the same whatever they are.

    >>> study_shard_hands(150, 8), study_shard_hands(10_000, 8), study_shard_hands(3, 8)
    (144, 2000, 8)
    """
    per_shard = max(1, matches // STUDY_SHARDS)
    return min(HANDS_PER_SHARD, per_shard * hands_per_match * rotations)


MAX_SHARDS = 2**20
"""Shards in one run at most: a file per shard and table in one directory, and
the run's plan held in memory (``--matches 10**12`` grew to 2.4 GB before this)."""


def check_numbers(
    rules: Rules,
    seed,
    matches,
    hands_per_match,
    hands_per_shard,
    duplicate=False,
    max_hands: int | None = None,
) -> None:
    """Refuse, before anything is played or written, a number the log cannot hold:
    the bounds come from the schema's integer widths (match int32, hand int16,
    hand_seed uint64, money int32), and a run has at most :data:`MAX_SHARDS`.

    ``max_hands``: ``matches`` is what ``--max-hands`` allows (``simulate --until``),
    and the errors name that flag, in hands."""
    from mjlog.errors import quote
    from mjlog.schema import MONEY, int_max

    top_matches = int_max("hands", "match") + 1
    if max_hands is None:
        count = ("--matches", matches, 1, top_matches, "match is int32")
    else:  # the numbers of a RunSpec already built: hands_per_match is an int
        per = hands_per_match * (rules.n if duplicate else 1)
        count = (
            "--max-hands",
            max_hands,
            per,
            top_matches * per,
            f"{per} hands a match; match is int32",
        )
    for name, v, low, top, why in (
        ("--seed", seed, 0, int_max("hands", "hand_seed"), "seeds are 64-bit"),
        count,
        ("--hands-per-match", hands_per_match, 1, int_max("hands", "hand") + 1, "hand is int16"),
        ("--hands-per-shard", hands_per_shard, 1, None, ""),
    ):
        if not isinstance(v, int) or isinstance(v, bool):
            raise InputError(f"{name} must be an integer, not {quote(v)}")
        if v < low or (top is not None and v > top):
            raise InputError(
                f"{name} {quote(v)} is out of range {low}..{top} ({why} in the log)"
                if top is not None
                else f"{name} must be at least {low}"
            )
    per_shard = max(1, hands_per_shard // (hands_per_match * (rules.n if duplicate else 1)))
    shards = -(-matches // per_shard)
    if shards > MAX_SHARDS:
        given, fix = (
            (f"{matches} matches make", "")
            if max_hands is None
            else (f"--max-hands {max_hands} ({matches} matches) makes", " or lower --max-hands")
        )
        raise InputError(
            f"{given} {shards} shards of {per_shard} match(es); a run has at "
            f"most {MAX_SHARDS}: raise --hands-per-shard{fix}"
        )
    bound = rules.spec.money_bound(rules)
    if bound is not None:
        bound += rules.spec.compensation_bound(rules)
    money_max = 2 ** (MONEY.bit_width - 1) - 1
    if bound is not None and bound > money_max:
        raise InputError(
            f"base {rules['base']} with these rules can move up to {bound} in "
            f"one hand, past the log's int32 money columns ({money_max}): "
            f"lower base, cap or dealer_compensation"
        )


class Shards(Sequence[tuple[int, int, int]]):
    """A run's shards as (shard, first match, end match), each computed on demand.

    >>> list(Shards(5, 2)), len(Shards(10**9, 250)), Shards(10**9, 250)[-1]
    ([(0, 0, 2), (1, 2, 4), (2, 4, 5)], 4000000, (3999999, 999999750, 1000000000))
    """

    def __init__(self, matches: int, per_shard: int):
        self.matches, self.per_shard = matches, per_shard

    def __len__(self) -> int:
        return -(-self.matches // self.per_shard)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        a = i * self.per_shard
        return (i, a, min(a + self.per_shard, self.matches))


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's bytes.

    ``hands_per_shard`` and ``events`` set the file layout, not the hands: they are
    written into the manifest but not into the run id, so the rows (and their
    ``run_id`` column) are the same whatever the layout.
    """

    rules: Rules
    seed: int
    matches: int
    hands_per_match: int
    agents: tuple[str, ...]
    duplicate: bool = False
    events: bool = True
    hands_per_shard: int = HANDS_PER_SHARD

    @classmethod
    def build(
        cls,
        variant: str,
        seed: int,
        matches: int,
        hands_per_match: int,
        agents: Sequence[str],
        players: int | None = None,
        sets: Iterable[str] = (),
        rules_file: str | None = None,
        duplicate: bool = False,
        events: bool = True,
        hands_per_shard: int = HANDS_PER_SHARD,
    ) -> RunSpec:
        sets = list(sets)
        if players is not None:
            sets.append(f"players={players}")
        rules = resolve(variant, file=rules_file, sets=sets)
        agents = tuple(agents)
        if len(agents) == 1:
            agents = agents * rules.n
        if len(agents) != rules.n:
            raise InputError(
                f"{len(agents)} agents given for {rules.n} players; give one "
                f"per seat or a single one for all"
            )
        check_numbers(rules, seed, matches, hands_per_match, hands_per_shard, duplicate)
        make_agents(agents)  # fail early on an unknown agent or parameter
        return cls(
            rules, seed, matches, hands_per_match, agents, duplicate, events, hands_per_shard
        )

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
        return max(1, self.hands_per_shard // (self.hands_per_match * self.rotations))

    def shards(self) -> Shards:
        """(shard, first match, end match) for every shard, computed when asked (a
        run of 10^9 matches has millions of shards: nothing walks them all up front)."""
        return Shards(self.matches, self.matches_per_shard)

    def shard_hands(self, first: int, end: int) -> int:
        return (end - first) * self.rotations * self.hands_per_match

    def meta(self) -> dict:
        agents = [agent_entry(a) for a in self.agents]
        return {
            "variant": self.variant,
            "rules": self.rules.to_json(),
            "seed": self.seed,
            "matches": self.matches,
            "hands_per_match": self.hands_per_match,
            "players": self.rules.n,
            "agents": agents,
            "duplicate": self.duplicate,
            "rng": RNG,
            "mjlog_version": __version__,
        }

    def layout(self) -> dict:
        """The manifest keys that fix the files but not the rows."""
        return {"hands_per_shard": self.hands_per_shard, "events": "all" if self.events else "none"}

    @property
    def run_id(self) -> str:
        return run_id(self.meta())
