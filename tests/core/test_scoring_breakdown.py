"""The breakdown is the score (mjlog.scoring.breakdown).

For every win of the three sample runs (thousands, played by the engine) and of
small seeded runs under changed rules (a low cap, zimo_bonus, base, horses,
doubling payment, extras that multiply, 点杠花 paid by all), the breakdown that
:func:`mjlog.scoring.explain_win` gives from the win's record states the
score's points, fan, multiplier and cap; the arithmetic of its formula holds;
and the seats it says pay are exactly the seats the engine made pay, each the
stated amount.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

from mjlog.engine import play_hand
from mjlog.logio import read_manifest, read_table
from mjlog.rules import Rules, resolve
from mjlog.scoring import Breakdown, explain_win
from mjlog.scoring.breakdown import payer_seats
from simulate.agents import make_agents

DATA = Path(__file__).resolve().parents[2] / "data"
VARIANTS = ("yuxi", "xuezhan", "huangmei")


def check_formula(b: Breakdown) -> None:
    """The numbers of the formula: its first part adds up to the figure (yuxi a
    product, xuezhan a product of ×k, huangmei a sum of fan), and its last number
    is the points."""
    first = b.formula.split(" → ")[0]
    lhs, rhs = first.split(" = ")
    if b.variant == "yuxi":
        assert math.prod(int(x) for x in lhs.split(" × ")) == int(rhs) == b.figure, b
    elif b.variant == "xuezhan":
        factors = [int(x) for x in re.findall(r"×(\d+)", lhs)]
        assert math.prod(factors) == int(rhs.lstrip("×")) == b.figure == b.multiplier, b
        assert factors == [t.value for t in b.terms for _ in range(t.count)], b
    else:
        fans = [int(x) for x in re.findall(r" (\d+)(?: \+|$)", lhs)]
        assert sum(fans) == int(rhs.removesuffix(" fan")) == b.figure == b.fan, b
        assert fans == [t.value for t in b.terms], b
    assert int(re.findall(r"\d+", b.formula)[-1]) == b.points, b


def check_win(
    b: Breakdown, rec, rules: Rules, paid: list[tuple[int, int]], earlier: set[int]
) -> None:
    """``rec``: the win's record (points, fan, multiplier, capped as scored);
    ``paid``: (payer, amount) of the engine's ``win`` transfers to the winner."""
    assert (b.points, b.fan, b.multiplier, b.capped) == (
        rec.points,
        rec.fan,
        rec.multiplier,
        rec.capped,
    ), (rec, b)
    assert [t.key for t in b.terms for _ in range(t.count)] == list(rec.patterns)
    assert all(t.name == rules.spec.pattern_name(t.key) for t in b.terms)
    check_formula(b)
    want = payer_seats(b, rec.seat, rec.from_seat, rules.n, earlier)
    assert sorted(paid) == sorted((s, b.points) for s in want if b.points), (rec, b, paid)


def _batches(wins, transfers) -> list[tuple[object, list[tuple[int, int]], set[int]]]:
    """Each win with its ``win`` payments (after it, before the next tile's first
    win, to its seat) and the seats that won on earlier tiles of the hand."""
    out = []
    for w in wins:
        end = min((o.seq for o in wins if o.win_order > w.win_order), default=math.inf)
        paid = [
            (t[1], t[3])
            for t in transfers
            if w.seq < t[0] < end and t[2] == w.seat and t[4] == "win"
        ]
        earlier = {o.seat for o in wins if o.win_order < w.win_order}
        out.append((w, paid, earlier))
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_sample_win(variant):
    """The sample runs: thousands of wins logged by the engine (wins and transfers
    tables), each explained from its row."""
    run = DATA / variant
    m = read_manifest(run)
    rules = Rules(m["variant"], m["rules"])
    key = ("match", "rotation", "hand")
    wins, trs = defaultdict(list), defaultdict(list)
    for r in read_table(run, "wins").to_pylist():
        r["patterns"] = tuple(r["patterns"])
        wins[tuple(r[k] for k in key)].append(SimpleNamespace(**r))
    for r in read_table(run, "transfers").to_pylist():
        trs[tuple(r[k] for k in key)].append(
            (r["seq"], r["payer"], r["payee"], r["amount"], r["reason"])
        )
    n = 0
    for hand, ws in wins.items():
        for w, paid, earlier in _batches(ws, trs[hand]):
            check_win(explain_win(w, rules), w, rules, paid, earlier)
            n += 1
    assert n >= 2000


# changed rules that reach every branch of the money: cap, bonuses, base, payment
CONFIGS = [
    ("yuxi", ["cap=2", "base=2", "horses=2"]),
    ("yuxi", ["dian_gang_hua=self_draw", "last4_plain_on_discard=true"]),
    ("xuezhan", ["cap=2", "zimo_bonus=add_base", "call_transfer=true"]),
    ("xuezhan", ["zimo_bonus=double", "base=3", "dian_gang_hua=self_draw"]),
    (
        "xuezhan",
        ["extras=daiyaojiu,duanyaojiu,menqing,haidilaoyue", "extras_stack=multiply", "cap=64"],
    ),
    ("huangmei", ["payment=doubling", "base=2"]),
    ("huangmei", ["min_fan=0", "base=3"]),
]


@pytest.mark.parametrize("variant, sets", CONFIGS, ids=[" ".join(s) for _, s in CONFIGS])
def test_seeded_wins_under_changed_rules(variant, sets):
    rules = resolve(variant, sets=sets)
    wins = 0
    for h in range(40):
        st = play_hand(
            rules, make_agents(["greedy"] * rules.n), seed=19, match=0, hand=h, dealer=None
        ).state
        for w, paid, earlier in _batches(st.ledger.wins, st.ledger.transfers):
            check_win(explain_win(w, rules), w, rules, paid, earlier)
            wins += 1
        # a horse makes each payer of the win pay its points once more
        for t in st.ledger.transfers:
            if t[4] == "horse":
                assert t[3] in {w.points for w in st.ledger.wins if w.seat == t[2]}
    assert wins >= 25
