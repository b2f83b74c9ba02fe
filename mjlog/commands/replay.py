"""``mjlog replay RUN --hand M:H``: show a logged hand step by step in the terminal.

Every step is rebuilt through the one transition function (:mod:`mjlog.replay`),
so what is shown — hands, melds, discards, wall, scores and each seat's legal
options — is what the rules give at that point, not what the log claims.
"""

from __future__ import annotations

import json

import click

from mjlog.errors import InputError
from mjlog.viewer import parse_hands, write_hand_page, write_pages

__all__ = ["replay_command", "parse_hand_ref", "render"]


def parse_hand_ref(text: str) -> tuple[int, int]:
    """``"3:5"`` → (match 3, hand 5).

    >>> parse_hand_ref("3:5")
    (3, 5)
    >>> parse_hand_ref("3")
    Traceback (most recent call last):
    ...
    mjlog.errors.InputError: bad --hand '3': expected MATCH:HAND, e.g. 0:3
    """
    import re

    from mjlog.errors import quote
    from mjlog.schema import int_max

    parts = [p.strip() for p in text.split(":")]
    if len(parts) != 2 or not all(re.fullmatch(r"[0-9]{1,20}", p) for p in parts):
        raise InputError(f"bad --hand {quote(text)}: expected MATCH:HAND, e.g. 0:3")
    match, hand = int(parts[0]), int(parts[1])
    for name, v in (("match", match), ("hand", hand)):
        if v > int_max("hands", name):
            raise InputError(
                f"bad --hand {quote(text)}: {name} {v} is past the log's "
                f"largest ({int_max('hands', name)})"
            )
    return match, hand


def _tiles(ts, notation: bool, ordered: bool = False) -> str:
    from mjlog.replay import fmt_ordered
    from mjlog.tiles import fmt, glyph

    if not ts:
        return "-"
    if notation:
        return fmt_ordered(ts) if ordered else fmt(ts)
    return "".join(glyph(t) for t in (ts if ordered else sorted(ts)))


def _meld(kind: str, tile: int, src, notation: bool) -> str:
    size = 3 if kind == "pon" else 4
    mark = {"pon": "", "exposed": "明", "added": "补", "concealed": "暗"}[kind]
    frm = f"←S{src}" if src is not None else ""
    return f"{mark}{_tiles([tile] * size, notation)}{frm}"


def render(snap, notation: bool = False, color: bool = True) -> str:
    """The table after one event, as text (the current event highlighted)."""
    from mjlog.replay import describe, summarise

    def hi(text: str, **style) -> str:
        return click.style(text, **style) if color else text

    ev = snap.event
    head = f"seq {snap.seq:>3}  {describe(ev, notation)}"
    lines = [hi(head, bold=True, fg="yellow") + f"   wall {snap.live} · {snap.phase.lower()}"]
    for s in range(len(snap.hands)):
        acting = ev.seat == s and ev.type != "transfer"
        mark = "▶" if acting else " "
        tags = []
        if s == snap.dealer:
            tags.append("dealer")
        if snap.void[s] is not None:
            tags.append(f"void {'mps'[snap.void[s]]}")
        if snap.won[s]:
            tags.append("won")
        if snap.bonus[s]:
            tags.append(f"发×{snap.bonus[s]}")
        tag = f" ({', '.join(tags)})" if tags else ""
        melds = " ".join(_meld(k, t, f, notation) for k, t, f in snap.melds[s])
        row = f" {mark} S{s}{tag}  {snap.deltas[s]:+d}  {_tiles(snap.hands[s], notation)}" + (
            f"  | {melds}" if melds else ""
        )
        lines.append(hi(row, bold=True) if acting else row)
        lines.append(f"      discards {_tiles(snap.discards[s], notation, ordered=True)}")
    if snap.over:
        nd = f"; next dealer S{snap.next_dealer}" if snap.next_dealer is not None else ""
        lines.append(f"   over: winners {list(snap.winners) or 'none'}{nd}")
    elif snap.forced is not None:
        lines.append(f"   next (forced): {describe(snap.forced, notation)}")
    elif snap.options:
        for s, o in snap.options.items():
            lines.append(
                f"   S{s} may: {summarise(o, notation)}"
                + (" (or pass)" if snap.window is not None else "")
            )
    else:
        lines.append("   nobody may claim: the window closes")
    return "\n".join(lines)


@click.command("replay")
@click.argument("run", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--hand",
    "hand_ref",
    default=None,
    metavar="MATCH:HAND",
    help="The hand to replay, e.g. 0:3 (not needed with --html-dir).",
)
@click.option(
    "--rotation",
    type=click.IntRange(0, 3),
    default=0,
    show_default=True,
    help="Seat rotation (duplicate play).",
)
@click.option(
    "--at",
    "at",
    type=click.IntRange(min=0),
    default=None,
    metavar="SEQ",
    help="Show the table right after event SEQ.",
)
@click.option(
    "--step", is_flag=True, help="Show the table after every event (the whole hand, step by step)."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: one object with the steps shown (every step unless --at).",
)
@click.option("--json", "as_json", is_flag=True, hidden=True)  # before --format json
@click.option("--notation", is_flag=True, help="Tiles as 123m notation instead of glyphs.")
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="OUT.html",
    help="Write the hand as one self-contained page to step "
    "through in a browser (no network, no server); --at sets where it opens.",
)
@click.option(
    "--html-dir",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="Write a page per hand of --hands (default: all) plus index.html.",
)
@click.option(
    "--hands",
    "hands_spec",
    default=None,
    metavar="M:H,…|all",
    help="With --html-dir: the hands (MATCH:HAND or MATCH:ROTATION:HAND), or all.",
)
def replay_command(
    run,
    hand_ref,
    rotation,
    at,
    step,
    fmt,
    as_json,
    notation,
    html_out=None,
    html_dir=None,
    hands_spec=None,
) -> None:
    """Replay one hand of RUN through the rules: a summary of the hand (the deal, the
    wins with their patterns and points, the money, the final hands), or with
    --step every event's table (hands, melds, discards, the wall count, the scores
    so far and each seat's legal options), or with --at SEQ one moment of it.

    Example: mjlog replay runs/demo/yuxi --hand 0:3 --at 40 --notation

    In a browser: --html OUT.html (one hand), --html-dir DIR --hands 0:0,0:1 (or all).
    """
    from mjlog.replay import ReplayError, load_hand

    if html_out or html_dir or hands_spec:
        from mjlog.rundir import check_output

        if html_out:
            check_output(html_out, "--html")
        if html_dir:
            check_output(html_dir, "--html-dir")
        click.echo(html_command(run, hand_ref, rotation, html_out, html_dir, hands_spec, at))
        return
    if hand_ref is None:
        raise click.UsageError("--hand MATCH:HAND is required (or --html-dir DIR)")
    match, hand = parse_hand_ref(hand_ref)
    rp = load_hand(run, match, hand, rotation)
    if at is not None and at >= len(rp.events):
        raise InputError(f"--at {at}: this hand has events 0..{len(rp.events) - 1}")
    h = rp.hand
    head = {
        "run": run,
        "variant": rp.rules.variant,
        "match": match,
        "rotation": rotation,
        "hand": hand,
        "dealer": h["dealer"],
        "dice": list(h["dice"]),
        "break": h["break"],
        "agents": list(h.get("agents") or []),
        "wall_logged": rp.wall_logged,
        "n_events": len(rp.events),
    }
    if as_json or fmt == "json":
        snaps = [rp.state_at(at)] if at is not None else [s for _, _, s in rp.states(notation)]
        head["steps"] = [s.to_json(notation=notation) for s in snaps]
        click.echo(json.dumps(head, ensure_ascii=False, allow_nan=False))
        return
    color = True
    click.echo(
        click.style(
            f"{run}  {rp.rules.variant}  match {match} rotation {rotation} hand {hand}  "
            f"dealer S{h['dealer']}  dice {list(h['dice'])}  break {h['break']}  "
            f"agents {', '.join(head['agents'])}",
            bold=True,
        )
    )
    if at is not None:
        click.echo(render(rp.state_at(at), notation, color))
        return
    if not step:
        click.echo(summary(rp, notation))
        return
    try:
        for _, _, snap in rp.states(notation):
            click.echo(render(snap, notation, color))
    except ReplayError as e:
        click.echo(click.style(f"stop: {e}", fg="red", bold=True))
        raise


def summary(rp, notation: bool = False) -> str:
    """The hand in a few lines: how it ended, each win (patterns by their Chinese
    names, points and total), the money per seat, the final hands, and how to see
    more. Every figure is the replayed state's, not the log's claim."""
    st = rp.final_state()
    last = None
    for _, _, snap in rp.states(notation):
        last = snap
    n = len(st.deltas)
    lines = [
        f"{len(rp.events)} events; "
        + (
            f"won by {', '.join(f'S{s}' for s in st.winners)}"
            if st.winners
            else "drawn (no winner)"
        )
        + (f"; next dealer S{st.next_dealer}" if st.next_dealer is not None else "")
    ]
    for w in st.wins:
        frm = f" from S{w.from_seat}" if w.from_seat is not None else ""
        names = " ".join(rp.rules.spec.pattern_name(p) for p in w.patterns) or "-"
        lines.append(
            f"  win at seq {w.seq}: S{w.seat} {w.method}{frm} on "
            f"{_tiles([w.tile], notation)}: {names}; {w.points} points, "
            f"total {w.total}" + (" (capped)" if w.capped else "")
        )
    lines.append("  money: " + "  ".join(f"S{s} {st.deltas[s]:+d}" for s in range(n)))
    if last is not None:
        for s in range(n):
            melds = " ".join(_meld(k, t, f, notation) for k, t, f in last.melds[s])
            lines.append(
                f"  S{s}  {_tiles(last.hands[s], notation)}" + (f"  | {melds}" if melds else "")
            )
    lines.append(
        "  (--step: the table after every event; --at SEQ: one moment; --html FILE: in a browser)"
    )
    return "\n".join(lines)


def html_command(
    run: str,
    hand_ref: str | None,
    rotation: int,
    html_out: str | None,
    html_dir: str | None,
    hands_spec: str | None,
    at: int | None = None,
) -> str:
    """What ``mjlog replay RUN --html OUT`` / ``--html-dir DIR [--hands …]`` do;
    returns the line to print. ``--at SEQ`` makes a single page open at SEQ."""
    if html_out and html_dir:
        raise InputError("give --html OUT.html (one hand) or --html-dir DIR (many), not both")
    if html_out:
        if hand_ref is None:
            raise InputError(
                "--html needs --hand MATCH:HAND (for many hands: --html-dir DIR --hands …)"
            )
        if hands_spec is not None:
            raise InputError("--hands goes with --html-dir, not --html")
        match, hand = parse_hand_ref(hand_ref)
        path = write_hand_page(run, match, hand, html_out, rotation, start=at)
        return f"wrote {path} (open it in a browser; #seq=N opens at event N)"
    if not html_dir:
        raise InputError("--hands goes with --html-dir DIR")
    if at is not None:
        raise InputError("--at goes with --html (one page), not --html-dir")
    if hands_spec is not None:
        keys = parse_hands(hands_spec)
    elif hand_ref is not None:
        match, hand = parse_hand_ref(hand_ref)
        keys = [(match, rotation, hand)]
    else:
        keys = None
    index, n = write_pages(run, html_dir, keys)
    return f"wrote {n} hand page(s) and {index}"
