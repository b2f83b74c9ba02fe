"""A run settled from another run's play, when only money rules differ.

A tune or a sweep over money-only keys (:attr:`mjlog.rulekeys.RuleKey.money_only`)
with a money-blind line-up (:func:`mjlog.resettle.money_blind`) plays the same
hands at every value: only the payments change. :func:`donor_problem` says
whether a finished run (the *donor*) may stand for the play of a new run, and
func:`resettled_hands` builds one shard of the new run from the donor's logged
hands (:func:`mjlog.resettle.resettle`), for the batch runner to write as it
writes played hands: the files are the same bytes as playing would write
(tests/batch/test_resettle.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from mjlog.engine import PlayedHand, deal_wall
from mjlog.errors import MjlogError
from mjlog.logio import LogError, RunFiles, iter_hands
from mjlog.replay import to_event
from mjlog.resettle import NotResettled, money_blind, money_keys, resettle
from simulate.agents import make_agents
from simulate.spec import RunSpec

__all__ = ["donor_problem", "resettled_hands"]

#: The manifest entries that must agree between a donor and the run it stands for
#: (the rules may differ in money-only keys; the version and ids follow the rules).
_SAME = (
    "variant",
    "seed",
    "matches",
    "hands_per_match",
    "players",
    "agents",
    "duplicate",
    "rng",
    "hands_per_shard",
    "events",
)


def donor_problem(spec: RunSpec, donor: str | Path) -> str | None:
    """Why the finished run ``donor`` cannot stand for the play of ``spec``, or None
    when it can: same seed, matches, line-up and file layout, rules that differ only
    in money-only keys, and a line-up that never reads money."""
    try:
        run = RunFiles(donor)
        manifest = run.manifest
        rules = run.rules()
    except (LogError, MjlogError) as e:
        return f"not a readable run ({e})"
    mine = {**spec.meta(), **spec.layout()}
    for k in _SAME:
        if manifest.get(k) != mine.get(k):
            return f"its {k} is {manifest.get(k)!r}, this run's {mine.get(k)!r}"
    if money_keys(rules, spec.rules) is None:
        return "its rules differ in a key that is not money-only"
    reads = [a for a in make_agents(spec.agents) if not money_blind([a])]
    if reads:
        return f"agent {reads[0].name!r} may read the money rules"
    return None


def resettled_hands(
    spec: RunSpec, donor: str | Path, shard: int, first: int, end: int
) -> Iterator[PlayedHand]:
    """The hands of matches [first, end) of ``spec``, one at a time, settled from shard
    ``shard`` of ``donor`` (checked with :func:`donor_problem`). Raises
    :class:`~mjlog.resettle.NotResettled` as soon as the donor's shard is unreadable,
    holds other hands, or a hand does not settle: the shard must then be played."""
    n = spec.rules.n
    want = [
        (m, r, k)
        for m in range(first, end)
        for r in range(spec.rotations)
        for k in range(spec.hands_per_match)
    ]
    names = {
        r: tuple(a.name for a in make_agents([spec.agents[(s - r) % n] for s in range(n)]))
        for r in range(spec.rotations)
    }
    done = 0
    try:
        for b in iter_hands(donor, events=True, shards=[shard]):
            h = b.hand
            key = (h["match"], h["rotation"], h["hand"])
            if done >= len(want) or key != want[done] or tuple(h["agents"]) != names[h["rotation"]]:
                raise NotResettled(f"{donor}: shard {shard} holds hand {key} out of place")
            rolls = tuple(h["dealer_rolls"]) if h["dealer_rolls"] else None
            why = _not_dealt(spec, h, rolls)
            if why:
                raise NotResettled(f"{donor}: shard {shard}: hand {key}: {why}")
            state = resettle(spec.rules, h, [to_event(e[1:]) for e in b.events])
            yield PlayedHand(
                state,
                h["match"],
                h["hand"],
                h["rotation"],
                h["hand_seed"],
                names[h["rotation"]],
                rolls,
            )
            done += 1
    except (LogError, KeyError, TypeError, ValueError) as e:
        raise NotResettled(f"{donor}: shard {shard}: {e}") from None
    if done != len(want):
        raise NotResettled(f"{donor}: shard {shard} holds {done} of {len(want)} hands")


def _not_dealt(spec: RunSpec, h: dict, rolls: tuple[int, ...] | None) -> str | None:
    """What of the donor's hand row ``h`` is not what ``spec``'s seed deals, or None.

    The manifests agreeing (:func:`donor_problem`) says the donor *claims* this run's
    seed; this checks each hand holds it (a donor edited or damaged on disk would
    otherwise lend its walls to the new run). A later hand's dealer follows the play,
    which a money-only key does not change, so it is taken from the row; hand 0's is
    drawn from the seed and checked."""
    dealt = deal_wall(
        spec.rules, spec.seed, h["match"], h["hand"], h["dealer"] if h["hand"] else None
    )
    logged = {
        "hand_seed": h["hand_seed"],
        "wall": list(h["wall"]),
        "dealer": h["dealer"],
        "dice": tuple(h["dice"]),
        "break": h["break"],
        "dealer_rolls": rolls,
    }
    seeded = {
        "hand_seed": dealt.hand_seed,
        "wall": dealt.wall,
        "dealer": dealt.dealer,
        "dice": dealt.dice,
        "break": dealt.break_pos,
        "dealer_rolls": dealt.rolls or None,
    }
    for k, v in seeded.items():
        if logged[k] != v:
            return f"its {k} is not what seed {spec.seed} deals"
    return None
