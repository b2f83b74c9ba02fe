"""``mjlog score``: value one winning hand under a variant's rules.

The command only builds a :class:`mjlog.scoring.WinContext` from the notation and
the flags and calls :func:`mjlog.scoring.score`, the function the engine and the
auditor use, so what it prints is what a log would record.

>>> ms = parse_melds("888m, c:5555p,a:1111z,2222s")
>>> [(m.kind.value, m.tile) for m in ms]
[('pon', 7), ('concealed', 13), ('added', 27), ('exposed', 19)]
>>> parse_melds("123m")
Traceback (most recent call last):
...
mjlog.errors.InputError: bad meld '123m' in --melds: a pon is three of one tile, a kong four
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import click

from mjlog.errors import InputError, quote
from mjlog.melds import Meld, MeldKind
from mjlog.rules import Rules, resolve
from mjlog.scoring import Breakdown, Method, Score, Term, WinContext, explain, score
from mjlog.scoring.base import Reason
from mjlog.scoring.breakdown import ONE_PAYER, Role, grouped
from mjlog.scoring.patterns import meld_counts
from mjlog.tiles import (
    NUM_KINDS,
    TileNotationError,
    fmt_tile,
    is_honor,
    parse,
    parse_tile,
    to_counts,
)

__all__ = [
    "score_command",
    "parse_melds",
    "build_context",
    "default_void",
    "REASON_TEXT",
    "score_json",
    "why_not",
    "pays",
]

_METHODS = {
    "self": Method.SELF_DRAW,
    "discard": Method.DISCARD,
    "robbed-kong": Method.ROBBED_KONG,
    "shilaotou": Method.SHILAOTOU,
}
_PREFIX = {"c:": MeldKind.CONCEALED_KONG, "a:": MeldKind.ADDED_KONG}

#: One line per :class:`Reason`, for the text output.
REASON_TEXT = {
    Reason.NOT_A_WIN: "the tiles form no winning hand",
    Reason.PLAIN_ON_DISCARD: "a plain hand (平胡 only) must be won by self-draw",
    Reason.BELOW_MIN_FAN: "fewer fan than min_fan",
    Reason.HOLDS_VOID: "the hand holds a tile of its void suit (花猪)",
    Reason.NO_KONG_FOR_AFTER_KONG: "--after-kong on a self-draw needs a kong in --melds",
}


def parse_melds(s: str) -> tuple[Meld, ...]:
    """Melds in the order made, comma-separated: three tiles a pon, four an exposed
    kong, ``c:`` a concealed kong, ``a:`` an added kong (``888m,c:5555p``)."""
    out = []
    for raw in s.split(","):
        part = raw.strip()
        if not part:
            continue
        kind = None
        body = part
        if part[:2] in _PREFIX:
            kind, body = _PREFIX[part[:2]], part[2:]
        try:
            tiles = parse(body)
        except TileNotationError as e:
            raise InputError(f"bad meld {quote(part)} in --melds: {e}") from None
        if len(tiles) not in (3, 4) or len(set(tiles)) != 1:
            raise InputError(
                f"bad meld {quote(part)} in --melds: a pon is three of one tile, a kong four"
            )
        if kind is not None and len(tiles) != 4:
            raise InputError(
                f"bad meld {quote(part)} in --melds: '{part[:2]}' marks a kong (four tiles)"
            )
        if kind is None:
            kind = MeldKind.PON if len(tiles) == 3 else MeldKind.EXPOSED_KONG
        out.append(Meld(kind, tiles[0]))
    if len(out) > 4:
        raise InputError(f"--melds: {len(out)} melds; a hand has at most 4")
    return tuple(out)


def default_void(counts: Sequence[int]) -> int:
    """xuezhan's void when ``--void`` is not given: the first suit (m, p, s) absent
    from the hand, or when all three are present the one with the fewest tiles
    (the hand is then a 花猪 whatever it chose).

    >>> from mjlog.tiles import parse_counts
    >>> default_void(parse_counts("123m456s")), default_void(parse_counts("1m22p333s"))
    (1, 0)
    """
    per_suit = [sum(counts[9 * s : 9 * s + 9]) for s in range(3)]
    return min(range(3), key=lambda s: (per_suit[s], s))


def _check_tile_set(rules, counts: Sequence[int]) -> None:
    honors = [t for t in range(27, NUM_KINDS) if counts[t]]
    if not honors:
        return
    bad = rules.spec.check_tile_set(rules, honors)
    if bad:
        shown = "".join(fmt_tile(t) for t in honors)
        raise InputError(f"honor tile(s) {shown}: {bad}")


def _check_flags(
    rules,
    method: Method,
    ms: Sequence[Meld],
    *,
    after_kong: bool,
    after_bonus: bool,
    last_tile: bool,
    first_turn: bool,
    bonus: int,
    void: str | None,
    kong_chain: int = 1,
    last_four: bool = False,
) -> None:
    """Refuse flags that no game can produce together (or in this variant), each
    with one line naming them."""
    spec, variant = rules.spec, rules.variant
    if bonus and spec.bonus_tile is None:
        raise InputError(f"--bonus {bonus}: {variant} has no bonus tiles to lay out")
    if after_bonus:
        _check_after_bonus(rules, method, bonus, after_kong)
    if void is not None and not spec.has_void:
        raise InputError(f"--void: {variant} has no void suit")
    if method is Method.SHILAOTOU and not spec.counts_honor_discards(rules):
        raise InputError(f"--by shilaotou: {variant} has no 十老头 (under these rules)")
    if after_kong:
        _check_after_kong(method, ms)
    if kong_chain != 1:
        _check_chain(ms, kong_chain, after_kong and method is Method.SELF_DRAW)
    if last_tile and method not in (Method.SELF_DRAW, Method.DISCARD):
        raise InputError(
            "--last-tile goes with --by self (the wall's last tile) or "
            "--by discard (the last discard)"
        )
    if last_four and spec.forced_tiles < 0:
        raise InputError(
            f"--last-four: {variant} has no 尾牌强制 (no forced wins in the last tiles)"
        )
    if first_turn:
        _check_first_turn(method, ms, last_tile=last_tile, last_four=last_four)


def _check_after_bonus(rules, method: Method, bonus: int, after_kong: bool) -> None:
    """``--after-bonus``: a self-draw on a laid-out 发's replacement (财上开花)."""
    if rules.spec.bonus_tile is None:
        raise InputError(f"--after-bonus: {rules.variant} has no bonus tiles")
    if not bonus:
        raise InputError(
            "--after-bonus: a win on a 发's replacement needs a 发 laid out (--bonus N, N ≥ 1)"
        )
    if method is not Method.SELF_DRAW:
        raise InputError(
            "--after-bonus goes with --by self: a 发's replacement is "
            "drawn by the winner (财上开花)"
        )
    if after_kong:
        raise InputError(
            "--after-kong and --after-bonus: a replacement chain counts by "
            "its first link; give the one it began with"
        )


def _check_after_kong(method: Method, ms: Sequence[Meld]) -> None:
    """``--after-kong``: a win on a kong's replacement (杠上花) or on the discard
    after it (杠上炮)."""
    if method in (Method.ROBBED_KONG, Method.SHILAOTOU):
        raise InputError("--after-kong goes with --by self (杠上花) or --by discard (杠上炮)")
    if method is Method.SELF_DRAW and not any(m.is_kong for m in ms):
        raise InputError(
            "--after-kong --by self: a win on a kong's replacement needs a kong in --melds"
        )
    if method is Method.SELF_DRAW and not ms[-1].is_kong:
        raise InputError(
            "--after-kong --by self: nothing is melded between a kong and its "
            "replacement, so the last meld in --melds must be a kong"
        )


def _check_first_turn(
    method: Method, ms: Sequence[Meld], *, last_tile: bool, last_four: bool
) -> None:
    """``--first-turn`` (天胡/地胡): a self-draw before any meld or late tile."""
    if method is not Method.SELF_DRAW:
        raise InputError("--first-turn (天胡/地胡) is a win by self-draw: --by self")
    if ms:
        raise InputError("--first-turn (天胡/地胡) is a win before any pon or kong: no --melds")
    if last_tile:
        raise InputError("--first-turn and --last-tile: a first draw is never the wall's last tile")
    if last_four:
        raise InputError(
            "--first-turn and --last-four: a first draw is never in the wall's last four"
        )


def _check_chain(ms: Sequence[Meld], n: int, on_replacement: bool) -> None:
    """``--kong-chain n``: a self-draw on the replacement of the last of ``n`` kongs,
    each made on the replacement of the one before (kong, replacement, kong, ...)."""
    if not on_replacement:
        raise InputError(
            f"--kong-chain {n} goes with --after-kong --by self: a win on the "
            "last replacement of a chain of kongs"
        )
    chain = ms[-n:]
    if len(chain) < n or not all(m.is_kong for m in chain):
        raise InputError(
            f"--kong-chain {n}: the last {n} melds in --melds must be kongs "
            "(nothing is melded between a kong and its replacement)"
        )
    if any(m.kind is MeldKind.EXPOSED_KONG for m in chain[1:]):
        raise InputError(
            f"--kong-chain {n}: only a chain's first kong can be exposed (claimed "
            "from a discard); a kong on a replacement is concealed (c:) or added "
            "(a:)"
        )


def build_context(
    variant: str,
    hand: str,
    win: str,
    by: str,
    melds: str = "",
    rules=None,
    after_kong: bool = False,
    last_tile: bool = False,
    first_turn: bool = False,
    dealer: bool = False,
    bonus: int = 0,
    after_bonus: bool = False,
    void: str | None = None,
    kong_chain: int = 1,
    last_four: bool = False,
) -> WinContext:
    """The WinContext for the command line's arguments, after checking them. The
    last tile is in the last four (``forced_zone``) where the variant has one.

    >>> from mjlog.rules import Rules, resolve
    >>> ctx = build_context("xuezhan", "1122334455667m", "7m", "self", rules=resolve("xuezhan"))
    >>> ctx.method, ctx.win_tile, sum(ctx.concealed), ctx.void
    (<Method.SELF_DRAW: 'self_draw'>, 6, 14, 1)
    """
    rules = rules if rules is not None else resolve(variant)
    method = _METHODS[by]
    tiles = parse(hand)
    tile = parse_tile(win)
    ms = parse_melds(melds)
    need = 13 - 3 * len(ms)
    if len(tiles) != need:
        raise InputError(
            f"HAND {quote(hand)} has {len(tiles)} tiles; with {len(ms)} meld(s) it needs {need} "
            "(the winning tile goes in --win)"
        )
    counts = to_counts(tiles)
    everything = [a + b for a, b in zip(counts, meld_counts(ms), strict=True)]
    everything[tile] += 1
    for t in range(NUM_KINDS):
        if everything[t] > 4:
            raise InputError(
                f"{everything[t]} copies of {fmt_tile(t)} in hand, melds and --win (there are 4)"
            )
    _check_tile_set(rules, everything)
    _check_flags(
        rules,
        method,
        ms,
        after_kong=after_kong,
        after_bonus=after_bonus,
        last_tile=last_tile,
        first_turn=first_turn,
        bonus=bonus,
        void=void,
        kong_chain=kong_chain,
        last_four=last_four,
    )
    if method is Method.ROBBED_KONG and everything[tile] > 1:
        raise InputError(
            f"--by robbed-kong: the kong player holds the other three {fmt_tile(tile)}, "
            "so hand and melds cannot hold one"
        )
    if method is Method.SHILAOTOU and not is_honor(tile):
        raise InputError("--by shilaotou: --win is the 10th honor discard (1z-7z)")
    if void is not None:
        void_suit: int | None = "mps".index(void)
    elif rules.spec.has_void:
        void_suit = default_void(everything)
    else:
        void_suit = None
    concealed = list(counts)
    if method is not Method.SHILAOTOU:
        concealed[tile] += 1  # 十老头: the 10th discard left the hand
    return WinContext(
        concealed=tuple(concealed),
        melds=ms,
        win_tile=tile,
        method=method,
        after_kong=after_kong,
        after_bonus=after_bonus,
        last_tile=last_tile,
        first_turn=first_turn,
        dealer=dealer,
        bonus=bonus,
        void=void_suit,
        chain_kongs=kong_chain,
        forced_zone=last_four or (last_tile and rules.spec.forced_tiles >= 0),
    )


def _jsonable(v):
    if isinstance(v, tuple | list):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if v is None or isinstance(v, bool | int | float | str):
        return v
    return str(v)


HELP = """Value one winning hand: legal or not (and why), each pattern with its name
and what it adds, the formula with numbers, and who pays how much.

\b
VARIANT  yuxi | xuezhan | huangmei
HAND     the concealed tiles WITHOUT the winning tile, in notation:
         digits then their suit, m 万, p 筒, s 条, z honors
         (1z-7z = 东南西北白发中): 1113335557779m, 123m456p78s11z
\b
--melds  melds in the order made, comma-separated: three tiles a pon,
         four an exposed kong (明杠), c: a concealed kong (暗杠),
         a: an added kong (补杠): 888m,c:5555p
\b
Exit status: 0 a legal win, 1 not a legal win (one line says why),
2 bad input, flags no game can produce together included
(--after-bonus without --bonus, --first-turn with --by discard, ...).
\b
Example (yuxi, 清一色 + 碰碰胡 + 杠上花 on an exposed kong, 点杠花):
  mjlog score yuxi 2223334445m --win 5m --by self --melds 1111m --after-kong
"""


@click.command("score", help=HELP)
@click.argument("variant")
@click.argument("hand")
@click.option(
    "--win",
    "win",
    required=True,
    metavar="TILE",
    help="The winning tile, e.g. 5m (for --by shilaotou: the 10th discard).",
)
@click.option(
    "--by",
    "by",
    required=True,
    type=click.Choice(list(_METHODS)),
    help="How the hand was won: self-draw, on a discard, robbing a kong, or yuxi 十老头.",
)
@click.option("--melds", default="", metavar="M,M,...", help="Melds, in the order made.")
@click.option(
    "--after-kong",
    is_flag=True,
    help="Self-draw on the last kong's replacement (杠上花), or a discard made "
    "right after the discarder's kong (杠上炮).",
)
@click.option(
    "--kong-chain",
    "kong_chain",
    type=click.IntRange(1, 4),
    default=1,
    show_default=True,
    metavar="N",
    help="With --after-kong --by self: the win is on the replacement of a chain "
    "of N kongs, the last N melds (kong, replacement, kong, ...); with "
    "dian_gang_hua_link=first the chain's first kong decides 点杠花.",
)
@click.option(
    "--last-tile",
    is_flag=True,
    help="Self-draw of the wall's last tile, or a win on the last discard.",
)
@click.option(
    "--last-four",
    is_flag=True,
    help="yuxi: the wall holds 4 tiles or fewer (尾牌强制), where "
    "last4_plain_on_discard lets a plain hand win on a discard or rob; "
    "implied by --last-tile.",
)
@click.option(
    "--first-turn",
    is_flag=True,
    help="The dealer's dealt 14 (天胡, with --dealer) or a non-dealer's first draw "
    "(地胡); a self-draw with no melds.",
)
@click.option("--dealer", is_flag=True, help="The winner is the dealer.")
@click.option(
    "--bonus",
    type=click.IntRange(0, 4),
    default=0,
    metavar="N",
    help="huangmei: 发 laid out by the winner.",
)
@click.option(
    "--after-bonus",
    is_flag=True,
    help="huangmei: self-draw on a 发's replacement (needs --bonus N).",
)
@click.option(
    "--void",
    type=click.Choice(["m", "p", "s"]),
    help="xuezhan: the void suit (default: a suit absent from the hand).",
)
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a rule key (repeatable), e.g. --set cap=32.",
)
@click.option(
    "--rules",
    "rules_file",
    default=None,
    metavar="FILE.toml",
    help="Read rule values from a TOML file (before --set).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output: text, or one JSON object (docs/cli.md).",
)
@click.option("--json", "as_json", is_flag=True, hidden=True)  # before --format json
def score_command(
    variant,
    hand,
    win,
    by,
    melds,
    after_kong,
    kong_chain,
    last_tile,
    last_four,
    first_turn,
    dealer,
    bonus,
    after_bonus,
    void,
    sets,
    rules_file,
    fmt,
    as_json,
):
    rules = resolve(variant, file=rules_file, sets=sets)
    ctx = build_context(
        variant,
        hand,
        win,
        by,
        melds,
        rules,
        after_kong=after_kong,
        last_tile=last_tile,
        first_turn=first_turn,
        dealer=dealer,
        bonus=bonus,
        after_bonus=after_bonus,
        void=void,
        kong_chain=kong_chain,
        last_four=last_four,
    )
    s = score(ctx, rules)
    b = (
        explain(s.patterns, ctx.method, rules, s.feeder_pays)
        if s.legal or (s.patterns and s.reason is Reason.BELOW_MIN_FAN)
        else None
    )
    if as_json or fmt == "json":
        click.echo(
            json.dumps(score_json(variant, ctx, s, b, rules), ensure_ascii=False, allow_nan=False)
        )
    else:
        click.echo(_text(ctx, s, b, rules))
    if not s.legal:
        sys.exit(1)


def why_not(s: Score, b: Breakdown | None, rules: Rules) -> str:
    """One line: why a hand is no legal win.

    >>> from mjlog.rules import Rules, resolve
    >>> from mjlog.scoring.base import Reason
    >>> why_not(Score(False, reason=Reason.NOT_A_WIN), None, resolve("yuxi"))
    'not_a_win: the tiles form no winning hand'
    """
    assert s.reason is not None, "an illegal score carries its reason"
    why = f"{s.reason.value}: {REASON_TEXT.get(s.reason, str(s.reason))}"
    if "why" in s.extra:
        why += f": {s.extra['why']}"
    if b is not None and s.reason is Reason.BELOW_MIN_FAN:
        why += f" ({b.formula})"
    if "plain_points" in s.extra:
        why += (
            f"; as 平胡 where a plain hand may win on a discard (last4_plain_on_discard): "
            f"{s.extra['plain_points']}"
        )
    return why


def pays(b: Breakdown, rules: Rules) -> dict[str, Any]:
    """Who pays a legal win and how much: ``who`` (a code of
    :data:`mjlog.scoring.breakdown.PAYERS`), ``amount`` per payer, ``payers`` (how
    many seats pay: at most that many in a blood battle), ``total``, ``horses``."""
    n = 1 if b.payers in ONE_PAYER else rules.n - 1
    return {
        "who": b.payers,
        "text": b.payer_text,
        "amount": b.points,
        "payers": n,
        "total": n * b.points,
        "horses": rules.spec.horses(rules),
    }


def score_json(
    variant: str, ctx: WinContext, s: Score, b: Breakdown | None, rules: Rules
) -> dict[str, Any]:
    """What ``--format json`` prints (docs/cli.md, "mjlog score")."""
    return {
        "variant": variant,
        "legal": s.legal,
        "reason": s.reason.value if s.reason else None,
        "why": None if s.legal else why_not(s, b, rules),
        "patterns": list(s.patterns),
        "pattern_names": [rules.spec.pattern_name(p) for p in s.patterns],
        "fan": s.fan,
        "multiplier": s.multiplier,
        "points": s.points,
        "capped": s.capped,
        "feeder_pays": s.feeder_pays,
        "payers": b.payers if s.legal and b is not None else None,
        "breakdown": b.to_json() if b is not None else None,
        "pays": pays(b, rules) if s.legal and b is not None else None,
        "void": "mps"[ctx.void] if ctx.void is not None else None,
        "extra": _jsonable(s.extra),
    }


def _term_text(t: Term) -> str:
    n = f" ×{t.count}" if t.count > 1 else ""
    if t.role is Role.BASE:
        what = f"{t.value} (base)"
    elif t.role is Role.FAN:
        what = f"{t.value} fan"
    else:  # a factor, once per count
        what = " ".join([f"×{t.value}"] * t.count)
    return f"  {t.name} {t.key}{n}: {what}"


def _pays_text(b: Breakdown, rules: Rules) -> str:
    p = pays(b, rules)
    line = f"pays: {p['text']} {p['amount']}"  # "each other player pays 12"
    if p["payers"] > 1:
        most = "up to " if rules.spec.blood_battle else ""
        line += f" ({most}{p['payers']} payers, {p['total']} in all)"
    if p["horses"]:
        line += (
            f"; 买马: for each of the {p['horses']} horses that points at the winner, "
            f"each payer pays {p['amount']} more"
        )
    return line


def _text(ctx: WinContext, s: Score, b: Breakdown | None, rules: Rules) -> str:
    if not s.legal:
        return f"legal: no ({why_not(s, b, rules)})"
    assert b is not None, "a legal win has its breakdown"
    lines = ["legal: yes"]
    shown = [
        f"{k} {rules.spec.pattern_name(k)}" + (f" ×{n}" if n > 1 else "")
        for k, n in grouped(s.patterns)
    ]
    lines.append("patterns: " + ", ".join(shown))
    lines += [_term_text(t) for t in b.terms]
    lines.append(f"formula: {b.formula}")
    lines.append(f"fan: {s.fan}")
    lines.append(f"multiplier: {s.multiplier if s.multiplier is not None else '-'}")
    lines.append(f"points: {s.points} per payer")
    lines.append(_pays_text(b, rules))
    if rules.spec.has_void and ctx.void is not None:
        lines.append(f"void: {'mps'[ctx.void]}")
    return "\n".join(lines)
