"""What a designer must hear before trusting a figure: too few hands behind it, and the
line-up traps that make a rule look as if it changed play when it changed one seat's
penalty.

- :func:`too_few`: a figure over fewer than :data:`MIN_MATCHES` matches, or whose
  interval could not be computed, is not stated; the report and ``mjlog demo`` say
  "too few hands to say" (:data:`TOO_FEW`) instead.
- :func:`lineup_warnings`: a seat (or, in duplicate play, an agent) that never won,
  and a transfer reason other than a win that carries most of the money (with
  ``random`` agents in xuezhan, 查花猪 was 82% of all money moved: "raising the cap
  doubles the money" was one seat's penalty). The report's findings and
  ``mjlog compare``'s text print them; :func:`warnings_for` computes them for runs.

>>> too_few(4), too_few(50, -0.2, 0.3), too_few(50, float("nan"), 0.3)
(True, False, True)
"""

from __future__ import annotations

import math

import pandas as pd

__all__ = [
    "MIN_MATCHES",
    "MOST_OF_THE_MONEY",
    "TOO_FEW",
    "lineup_warnings",
    "too_few",
    "warnings_for",
]

MIN_MATCHES = 30
"""Below this many matches a figure is not stated. Every interval takes the match as
its unit (a cluster-robust t interval), and with fewer clusters its coverage falls
short of the 95% it claims; a rate seen 0 times in a handful of matches says nothing
about how rare it is."""

TOO_FEW = "too few hands to say"

MOST_OF_THE_MONEY = 0.5
"""A transfer reason other than a win above this share of all money transferred is
flagged: the money figures then measure that penalty, not the play."""


def too_few(matches, *bounds) -> bool:
    """Whether a figure over ``matches`` matches, with its interval ``bounds`` (if any),
    rests on too little to state: fewer than :data:`MIN_MATCHES` matches, or an
    interval that could not be computed (None or NaN)."""
    if matches is None or _missing(matches) or matches < MIN_MATCHES:
        return True
    return any(b is None or _missing(b) for b in bounds)


def _missing(v) -> bool:
    try:
        return bool(pd.isna(v)) or (isinstance(v, float) and math.isinf(v))
    except (TypeError, ValueError):
        return False


def _label(variant, config, lineup) -> str:
    cfg = "" if config == "default" else f" {config}"
    return f"{variant}{cfg} [{lineup}]"


def lineup_warnings(seats: pd.DataFrame, money: pd.DataFrame) -> list[str]:
    """Warnings about the line-ups of these tables: ``seats`` is
    :func:`analysis.queries.seat_stats` by seat, ``money``
    :func:`analysis.queries.money_shares` by reason. One sentence per trap, naming the
    group, in the tables' order."""
    from analysis.queries import GROUP, REASON_CATEGORY, REASON_NAMES

    out: list[str] = []
    groups = list(dict.fromkeys(map(tuple, seats[list(GROUP)].astype(str).to_numpy())))
    groups += [
        g
        for g in dict.fromkeys(map(tuple, money[list(GROUP)].astype(str).to_numpy()))
        if g not in groups
    ]
    for key in groups:
        label = _label(*key)
        s = seats[(seats[list(GROUP)].astype(str) == list(key)).all(axis=1)]
        if len(s):
            out += [
                f"{label}: {w}: its figures measure the other seats against one that "
                f"does not win, more than the rules; choose agents that play the rules "
                f"(say strategic)."
                for w in _never_won(s)
            ]
        m = money[(money[list(GROUP)].astype(str) == list(key)).all(axis=1)]
        for _, r in m.iterrows():
            if REASON_CATEGORY.get(r["reason"]) == "win" or not (
                r["share_of_transfers"] > MOST_OF_THE_MONEY
            ):
                continue
            out.append(
                f"{label}: {REASON_NAMES.get(r['reason'], r['reason'])} "
                f"{r['reason']} carries {r['share_of_transfers']:.0%} of all money "
                f"transferred, so a change in money measures that one transfer more "
                f"than play; check which seats pay it (a line-up trap: an agent "
                f"that ignores the rules pays it every hand)."
            )
    return out


def _never_won(s: pd.DataFrame) -> list[str]:
    """'seat 2 (random) never won in 12 hands' per seat without a win; an agent that
    sat in several seats (duplicate play, or twice in the line-up) and never won in any
    of them is named once."""
    wins = s.groupby("agent", sort=False)["wins"].sum()
    seats_of = s.groupby("agent", sort=False)["seat"].nunique()
    once = list(wins.index[(wins == 0) & (seats_of > 1)])
    out = [
        f"{agent} never won, in any of its seats "
        f"({int(s.loc[s.agent == agent, 'hands'].sum()):,} seat-hands)"
        for agent in once
    ]
    for _, r in s[(s.wins == 0) & ~s.agent.isin(once)].iterrows():
        out.append(f"seat {int(r.seat)} ({r.agent}) never won in {int(r.hands):,} hands")
    return out


def warnings_for(runs) -> list[str]:
    """:func:`lineup_warnings` of runs (paths, a sweep folder or
    :class:`analysis.queries.Runs`)."""
    from analysis import queries

    runs = queries.as_runs(runs)
    return lineup_warnings(queries.seat_stats(runs, by="seat"), queries.money_shares(runs))
