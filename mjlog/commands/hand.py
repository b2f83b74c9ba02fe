"""``mjlog analyse HAND``: read a hand in notation and show its shape.

Prints the hand (notation, glyphs, Chinese names), whether it is a win and its
decompositions, its shanten (standard, seven pairs, overall) and, for a hand of
``13 - 3*melds`` tiles, its waits.
"""

from __future__ import annotations

import click

from mjlog import hand as H
from mjlog import tiles as T
from mjlog.errors import InputError, quote


def _fmt_set(kind: H.Group, t: int) -> str:
    return T.fmt([t, t + 1, t + 2] if kind is H.SEQ else [t, t, t])


def _fmt_decomposition(d: H.Decomposition) -> str:
    if d.kind == "seven_pairs":
        return "seven pairs: " + " ".join(T.fmt([p, p]) for p in d.pairs)
    parts = [_fmt_set(k, t) for k, t in sorted(d.sets, key=lambda s: (s[1], s[0]))]
    pair = [] if d.pair is None else [d.pair, d.pair]  # (a standard hand has its pair)
    return f"pair {T.fmt(pair)}" + ("; " + " ".join(parts) if parts else "")


def analyse_lines(text: str, melds: int | None = None) -> list[str]:
    """The report's lines (what the command prints).

    >>> print("\\n".join(analyse_lines("11122233344455m")))
    hand:     11122233344455m  (14 tiles, 0 melds)
    glyphs:   🀇🀇🀇🀈🀈🀈🀉🀉🀉🀊🀊🀊🀋🀋
    names:    一万 一万 一万 二万 二万 二万 三万 三万 三万 四万 四万 四万 五万 五万
    win:      yes, 4 decompositions
              pair 22m; 111m 234m 345m 345m
              pair 55m; 123m 123m 123m 444m
              pair 55m; 111m 234m 234m 234m
              pair 55m; 111m 222m 333m 444m
    shanten:  -1  (standard -1, seven pairs 1)
    """
    counts = T.parse_counts(text)
    n = sum(counts)
    if melds is None:
        melds = max(0, (14 - n) // 3)
    if n not in (13 - 3 * melds, 14 - 3 * melds):
        raise InputError(
            f"a hand with {melds} melds has {13 - 3 * melds} or {14 - 3 * melds} tiles, "
            f"got {n} in {quote(text)}"
        )
    tiles = T.from_counts(counts)
    lines = [
        f"hand:     {T.fmt_counts(counts)}  ({n} tiles, {melds} melds)",
        f"glyphs:   {T.glyphs(tiles)}",
        f"names:    {' '.join(T.name(t) for t in tiles)}",
    ]
    if n == 14 - 3 * melds:
        decs = H.decompositions(counts, melds)
        if decs:
            lines.append(f"win:      yes, {len(decs)} decomposition{'s' if len(decs) > 1 else ''}")
            lines += [f"          {_fmt_decomposition(d)}" for d in decs]
        else:
            lines.append("win:      no")
    std = H.shanten_standard(counts, melds)
    sp = H.shanten_seven_pairs(counts, melds)
    sp_text = "n/a (melds)" if sp == H.IMPOSSIBLE else str(sp)
    lines.append(f"shanten:  {H.shanten(counts, melds)}  (standard {std}, seven pairs {sp_text})")
    if n == 13 - 3 * melds:
        w = H.waits(counts, melds)
        if w:
            names = " ".join(T.name(t) for t in w)
            kinds = f"{len(w)} kind" + ("s" if len(w) > 1 else "")
            lines.append(f"waits:    {T.fmt(w)}  {T.glyphs(w)}  {names}  ({kinds})")
        else:
            lines.append("waits:    none")
    return lines


@click.command("analyse")
@click.argument("hand")
@click.option(
    "--melds",
    type=click.IntRange(0, 4),
    default=None,
    help="Exposed melds besides HAND (default: from the tile count, (14 - tiles) // 3).",
)
def analyse(hand: str, melds: int | None) -> None:
    """Show a hand's shape: win and decompositions, shanten, waits.

    Example: `mjlog analyse 1112345678999m`. HAND, in notation, holds the
    concealed tiles: 13 - 3*melds, or 14 - 3*melds for a complete or
    just-drawn hand.
    """
    for line in analyse_lines(hand, melds):
        click.echo(line)
