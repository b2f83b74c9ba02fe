"""One row per pattern per variant (``mjlog.scoring.table``): the scorer, the rule
keys, the names and the rulebook all read the variant's ``TABLE``."""

from __future__ import annotations

import pytest

from mjlog import docs
from mjlog.hand import decompositions
from mjlog.rules import resolve
from mjlog.scoring.base import Method, WinContext
from mjlog.scoring.table import Finished
from mjlog.tiles import parse_counts, parse_tile
from mjlog.variants import VARIANTS

TABLED = [name for name, v in VARIANTS.items() if hasattr(v.scorer, "TABLE")]
#: The kinds of row whose predicate each scorer asks (a ``plain`` row holds when no
#: other does, a ``method`` row when the win's method names it).
TESTED = {
    "yuxi": {"shape", "situation"},
    "huangmei": {"shape", "situation"},
    "xuezhan": {"shape", "root", "situation", "extra"},
}


def test_every_variant_has_a_table():
    assert set(TABLED) == set(VARIANTS) == set(TESTED)


@pytest.mark.parametrize("name", TABLED)
def test_the_table_is_the_variants_patterns_names_and_value_keys(name):
    v = VARIANTS[name]
    table = v.scorer.TABLE
    keys = [p.key for p in table]
    assert len(set(keys)) == len(keys)
    assert v.patterns() == tuple(keys)
    assert all(v.pattern_name(p.key) == p.name for p in table)
    values = {k.name.split(".", 1)[1]: k.default for k in v.rule_keys if "." in k.name}
    stands_for = set(getattr(v.scorer, "STANDS_FOR", {}))  # huangmei facai_all: no row
    assert {k: x for k, x in values.items() if k not in stands_for} == {
        p.key: p.value for p in table
    }
    for p in table:
        assert set(p.contains) <= set(keys), p.key
        assert (p.when is not None) == (p.kind in TESTED[name]), p.key


@pytest.mark.parametrize("name", TABLED)
def test_the_rulebook_shows_every_row(name):
    rendered = docs.pattern_table(name)
    for p in VARIANTS[name].scorer.TABLE:
        line = next(x for x in rendered.splitlines() if f"| `{p.key}`" in x)
        fan = "" if p.fan is None else f"| {p.fan} "
        assert line.startswith(f"| {p.name} |") and line.endswith(f"{fan}| {p.holds} |")


def _hand(text: str, tile: str, method: Method = Method.SELF_DRAW, **kw) -> Finished:
    """The win as its last decomposition reads it (seven pairs after the standard
    readings; all triplets after those with sequences)."""
    counts = tuple(parse_counts(text))
    ctx = WinContext(counts, (), parse_tile(tile), method, **kw)
    return Finished(ctx, decompositions(list(counts), 0)[-1], counts)


@pytest.mark.parametrize(
    ("key", "hand", "holds"),
    [
        ("qidui", _hand("1122m3344p5566s77z", "7z"), True),
        ("qidui", _hand("11223344556666p", "6p"), False),  # a four: 龙七对
        ("longqidui", _hand("11223344556666p", "6p"), True),
        ("pengpenghu", _hand("11122233344455m", "5m"), True),
        ("qingyise", _hand("123m456p789s11z234m", "4m"), False),
        ("gangshangpao", _hand("123m456p789s11z234m", "4m", Method.DISCARD, after_kong=True), True),
        (
            "gangshanghua",
            _hand("123m456p789s11z234m", "4m", Method.DISCARD, after_kong=True),
            False,
        ),
        ("qiangganghu", _hand("123m456p789s11z234m", "4m", Method.ROBBED_KONG), True),
    ],
)
def test_a_yuxi_rows_predicate(key, hand, holds):
    row = next(p for p in VARIANTS["yuxi"].scorer.TABLE if p.key == key)
    assert row.when is not None and row.when(hand) is holds


def test_the_scorer_counts_a_rows_fan_and_value():
    """A changed value or 番 in a row is what the scorer pays: 小七对's row (3/4, 1 番)
    and 龙七对's (6/7, 2 番) against the scores of their hands."""
    from mjlog.scoring import score

    table = {p.key: p for p in VARIANTS["yuxi"].scorer.TABLE}
    r = resolve("yuxi")
    for key, text, tile in [
        ("qidui", "1122m3344p5566s77z", "7z"),
        ("longqidui", "1122m3344p556666s", "6s"),
    ]:
        for method, col in ((Method.SELF_DRAW, 0), (Method.DISCARD, 1)):
            s = score(WinContext(tuple(parse_counts(text)), (), parse_tile(tile), method), r)
            assert s.patterns == (key,)
            assert (s.fan, s.points) == (table[key].fan, table[key].value[col])


@pytest.mark.parametrize(
    ("hand", "tile", "method"),
    [
        ("123m45p3p456s77s888m", "3p", Method.SELF_DRAW),  # 平胡 自摸 (8m as a triplet)
        ("1122m3344p5566s77z", "7z", Method.DISCARD),  # 七一对
        ("11122233344455m", "5m", Method.SELF_DRAW),  # 碰碰胡 清一色 自摸 门前清
        ("123m456m789m11z123p", "2p", Method.DISCARD),  # 卡档
    ],
)
def test_a_huangmei_wins_fan_is_the_sum_of_its_rows_values(hand, tile, method):
    from mjlog.scoring import score

    table = {p.key: p for p in VARIANTS["huangmei"].scorer.TABLE}
    s = score(
        WinContext(tuple(parse_counts(hand)), (), parse_tile(tile), method), resolve("huangmei")
    )
    assert s.patterns and s.fan == sum(table[p].value for p in s.patterns)


@pytest.mark.parametrize(
    ("hand", "tile", "method", "kw", "has"),
    [
        ("234m345m456p678p55s", "5s", Method.SELF_DRAW, {}, {"duanyaojiu", "menqing"}),
        ("123m789m123p99p789p", "9p", Method.DISCARD, {}, {"daiyaojiu", "menqing"}),
        (
            "11223344556677m",
            "7m",
            Method.SELF_DRAW,
            {"first_turn": True, "dealer": True},
            {"tianhu"},
        ),
        ("222555888m22p555p", "5p", Method.DISCARD, {"last_tile": True}, {"jiangdui"}),
    ],
)
def test_a_xuezhan_extra_is_its_rows_predicate_and_value(hand, tile, method, kw, has):
    """With every extra enabled and multiplying, a win carries the extras whose row
    holds, and its multiplier is the product of its rows' values."""
    from mjlog.scoring import score

    table = {p.key: p for p in VARIANTS["xuezhan"].scorer.TABLE}
    r = resolve(
        "xuezhan",
        sets=[
            f"extras={','.join(VARIANTS['xuezhan'].scorer.XUEZHAN_EXTRAS)}",
            "extras_stack=multiply",
        ],
    )
    s = score(WinContext(tuple(parse_counts(hand)), (), parse_tile(tile), method, **kw), r)
    assert s.legal and has <= set(s.patterns), s
    product = 1
    for p in s.patterns:
        product *= table[p].value
    assert s.multiplier == product


@pytest.mark.parametrize(
    ("hand", "tile", "method", "sets", "main"),
    [
        # 清七对 by default; 清一色's predicate holds whatever the shape, so valued
        # above it, 清一色 is the main pattern
        ("11223344556677m", "7m", Method.SELF_DRAW, [], "qingqidui"),
        ("11223344556677m", "7m", Method.SELF_DRAW, ["mult.qingyise=32"], "qingyise"),
        # a 碰碰胡 is also a standard reading: 平胡 valued above it takes it
        ("111m222p333s444s55m", "5m", Method.DISCARD, [], "pengpenghu"),
        ("111m222p333s444s55m", "5m", Method.DISCARD, ["mult.pinghu=4"], "pinghu"),
    ],
)
def test_a_xuezhan_main_pattern_is_the_best_row_whose_predicate_holds(
    hand, tile, method, sets, main
):
    from mjlog.scoring import score

    r = resolve("xuezhan", sets=sets)
    s = score(WinContext(tuple(parse_counts(hand)), (), parse_tile(tile), method), r)
    assert s.legal and s.patterns[0] == main, s


@pytest.mark.parametrize(
    ("method", "bonus"),
    [
        (Method.ROBBED_KONG, "qiangganghu"),
        (Method.SELF_DRAW, "gangshanghua"),
        (Method.DISCARD, "gangshangpao"),
    ],
)
def test_a_xuezhan_bonus_is_its_rows_predicate(method, bonus):
    """The win's situation, read by the bonus rows' predicates: one bonus a win."""
    from mjlog.melds import Meld, MeldKind
    from mjlog.scoring import score

    table = {p.key: p for p in VARIANTS["xuezhan"].scorer.TABLE}
    after = method is not Method.ROBBED_KONG
    melds = (Meld(MeldKind.CONCEALED_KONG, parse_tile("9s")),) if after else ()
    hand = "123m456m789m55p" if after else "123m456m789m11s456p"
    ctx = WinContext(tuple(parse_counts(hand)), melds, parse_tile("5p"), method, after_kong=after)
    s = score(ctx, resolve("xuezhan"))
    assert s.legal and [p for p in s.patterns if table[p].kind == "situation"] == [bonus], s
