"""How play responds to the rules: small in-process runs, per-hand figures, paired CIs.

:func:`behaviour` plays ``hands`` single-hand matches (match ``m`` is the wall of
``(seed, m, 0)``, the first dealer drawn from it as in any run) with one line-up
under one set of rules and returns per-hand counts; two calls with the same seed
and different rules play the *same walls*, so their difference is paired hand by
hand. :func:`share_diff` gives the difference of a pattern family's share of wins
between two such runs with a 95 % interval (the ratio linearised per hand, the
usual delta method), which is what the response tests and ``bench/bench_behaviour.py``
report.

>>> a = behaviour("yuxi", ["strategic"], 4, seed=1)
>>> len(a["wins"]), sorted(a)[:4]
(4, ['deal_ins', 'draws', 'exhausted', 'families'])
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mjlog.engine import play_hand
from mjlog.rules import resolve
from simulate.agents import make_agents

#: Pattern families, by the keys a win lists (every variant's names).
FAMILIES: dict[str, frozenset[str]] = {
    "qingyise": frozenset(
        {
            "qingyise",
            "qingpeng",
            "qingqidui",
            "qingjingougou",
            "qinglongqidui",
            "qingshuanglongqidui",
            "qingsanlongqidui",
            "qingshibaluohan",
            "qingyaojiu",
        }
    ),
    "qidui": frozenset(
        {
            "qidui",
            "longqidui",
            "qingqidui",
            "shuanglongqidui",
            "qinglongqidui",
            "sanlongqidui",
            "qingshuanglongqidui",
            "qingsanlongqidui",
        }
    ),
    "pengpenghu": frozenset(
        {
            "pengpenghu",
            "qingpeng",
            "jingougou",
            "qingjingougou",
            "shibaluohan",
            "qingshibaluohan",
            "jiangdui",
            "quanqiuren",
        }
    ),
    "hunyise": frozenset({"hunyise"}),
    "pinghu_only": frozenset(),  # a win with no pattern but 平胡 (and 根, 自摸, ...)
}
_BIG = FAMILIES["qingyise"] | FAMILIES["qidui"] | FAMILIES["pengpenghu"] | {"hunyise"}


def behaviour(
    variant: str,
    agents: Sequence[str],
    hands: int,
    seed: int = 0,
    sets: Sequence[str] = (),
    seat: int | None = None,
) -> dict:
    """Per-hand figures of ``hands`` hands (lists, one entry per hand).

    ``agents``: one spec for every seat, or one per seat; ``seat``: count only that
    seat's pons, kongs, wins and deal-ins (None: every seat). ``patterns`` counts
    the wins listing each pattern key; ``mults`` lists each win's uncapped
    multiplier (huangmei: its fan).
    """
    rules = resolve(variant, sets=list(sets))
    specs = list(agents) * rules.n if len(agents) == 1 else list(agents)
    players = make_agents(specs)
    out: dict[str, list] = {
        k: []
        for k in (
            "pons",
            "kongs",
            "wins",
            "self_draws",
            "deal_ins",
            "exhausted",
            "draws",
            "mults",
            "points",
        )
    }
    out["families"] = {k: [] for k in FAMILIES}
    out["patterns"] = {}
    for m in range(hands):
        st = play_hand(rules, players, seed=seed, match=m, hand=0, dealer=None).state
        pons = kongs = draws = 0
        for e in st.events:
            if seat is not None and e.seat != seat:
                continue
            if e.type == "pon":
                pons += 1
            elif e.type == "kong":
                kongs += 1
            elif e.type == "draw":
                draws += 1
        wins = [w for w in st.wins if seat is None or w.seat == seat]
        fam = {k: 0 for k in FAMILIES}
        for w in wins:
            ps = set(w.patterns)
            for k, f in FAMILIES.items():
                if k == "pinghu_only":
                    fam[k] += not (ps & _BIG)
                elif ps & f:
                    fam[k] += 1
            for p in ps:
                out["patterns"][p] = out["patterns"].get(p, 0) + 1
        for k in FAMILIES:
            out["families"][k].append(fam[k])
        out["pons"].append(pons)
        out["kongs"].append(kongs)
        out["draws"].append(draws)
        out["wins"].append(len(wins))
        out["self_draws"].append(sum(w.method == "self_draw" for w in wins))
        out["deal_ins"].append(
            sum(
                1
                for w in st.wins
                if w.method in ("discard", "robbed_kong") and (seat is None or w.from_seat == seat)
            )
        )
        out["exhausted"].append(int(not st.wins))
        mult = [w.multiplier if w.multiplier is not None else w.fan for w in wins]
        out["mults"].append(mult)
        out["points"].append(st.deltas[seat] if seat is not None else 0)
    return out


def share(a: dict, family: str) -> float:
    w = sum(a["wins"])
    return sum(a["families"][family]) / w if w else float("nan")


def above_share(a: dict, threshold: int) -> tuple[list[int], list[int]]:
    """Per hand: (wins whose uncapped multiplier exceeds ``threshold``, wins)."""
    return [sum(1 for x in ms if x > threshold) for ms in a["mults"]], a["wins"]


def ratio_diff(
    num_a: Sequence[int], den_a: Sequence[int], num_b: Sequence[int], den_b: Sequence[int]
) -> tuple[float, float, float]:
    """(difference, low, high) of sum(num_b)/sum(den_b) − sum(num_a)/sum(den_a) with
    a 95 % interval, the hands paired (the same walls in a and b)."""
    n = len(num_a)
    ma, mb = sum(den_a) / n, sum(den_b) / n
    ra, rb = sum(num_a) / sum(den_a), sum(num_b) / sum(den_b)
    d = [
        (nb - rb * db) / mb - (na - ra * da) / ma
        for na, da, nb, db in zip(num_a, den_a, num_b, den_b, strict=True)
    ]
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    diff = rb - ra
    return diff, diff - half, diff + half


def share_diff(a: dict, b: dict, family: str) -> tuple[float, float, float]:
    """Share of wins in ``family``: b − a, with its paired 95 % interval."""
    return ratio_diff(a["families"][family], a["wins"], b["families"][family], b["wins"])


def rate_diff(a: dict, b: dict, key: str) -> tuple[float, float, float]:
    """Mean per hand of ``key``: b − a, with its paired 95 % interval."""
    d = [y - x for x, y in zip(a[key], b[key], strict=True)]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    return mean, mean - half, mean + half
