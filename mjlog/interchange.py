"""One hand as human-readable JSON lines, and back to a run directory.

The format (``mjlog-hand/1``, documented in ``docs/jsonl-format.md``): the
first line is a header object — variant, rules, players (one name per seat),
match, rotation, hand, dealer, dice, break, the wall in order-keeping notation
(or null), the root seed and rng (or null) — then one object per event, in
play order, with tiles in notation (``"5m"``; a set of tiles ``"123m45p"``,
order kept). Null fields are left out.

Import writes a run directory through the ordinary writer (``ShardWriter``,
``build_manifest``, ``write_manifest``): the events as given, the transfers
table from the transfer events, and the wins and hands rows recomputed by
replaying the events through :class:`~mjlog.state.HandState`. The auditor
(``mjlog validate``) then checks it like any run; a file without a wall is
replayed on a wall rebuilt from its draws, and the wall and seed checks are
reported as not applicable.

>>> import tempfile, os
>>> from simulate.runner import RunSpec, simulate
>>> run = tempfile.mkdtemp()
>>> _ = simulate(RunSpec.build("huangmei", 5, 1, 2, ["greedy"]), run, workers=1,
...              progress=False)
>>> lines = export_hand(run, 0, 1)
>>> json.loads(lines[0])["format"], json.loads(lines[1])["type"]
('mjlog-hand/1', 'deal')
>>> out = os.path.join(tempfile.mkdtemp(), "imported")
>>> m = import_lines(lines, out)
>>> m["imported"], sum(f["rows"] for f in m["files"] if f["table"] == "hands")
(True, 1)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mjlog import __version__
from mjlog.errors import InputError, quote
from mjlog.events import DEAL, HORSE, TRANSFER, WIN, Event
from mjlog.logio import ShardWriter, build_manifest, read_manifest, run_id, write_manifest
from mjlog.replay import Replay, apply_checked, fmt_ordered, load_hand, truncated
from mjlog.rng import RNG, hand_seed
from mjlog.rules import Rules
from mjlog.schema import EVENT_KINDS, EVENT_TYPES, int_max
from mjlog.tiles import TileNotationError, fmt, fmt_tile, parse, parse_tile
from mjlog.variants import wall_tiles

__all__ = ["FORMAT", "export_hand", "import_lines", "import_file", "event_to_json",
           "event_from_json"]

FORMAT = "mjlog-hand/1"
_ORDERED = (DEAL, HORSE)  # tiles whose order matters in the log (the deal, the horses)
_HEADER_FIELDS = ("format", "variant", "rules", "players", "match", "rotation", "hand",
                  "dealer", "dice", "break", "dealer_rolls", "wall", "seed", "rng",
                  "hand_seed", "source_run")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _int(d: Mapping[str, Any], k: str, where: str, low: int, high: int,
         default: int | None = None) -> int | None:
    """``d[k]`` as an int in low..high: a JSON integer, never a float or a bool
    (``1.5`` is refused, not stored as 1); a missing or null field is ``default``."""
    v = d.get(k)
    if v is None:
        return default
    if not isinstance(v, int) or isinstance(v, bool):
        raise InputError(f"{where}: {k} must be an integer, not {quote(v)}")
    if not low <= v <= high:
        raise InputError(f"{where}: {k} {quote(v)} is out of range {low}..{high}")
    return v


def _str(d: Mapping[str, Any], k: str, where: str) -> str | None:
    v = d.get(k)
    if v is not None and not isinstance(v, str):
        raise InputError(f"{where}: {k} must be a string, not {quote(v)}")
    return v


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        dup = next(k for i, (k, _) in enumerate(pairs) if k in dict(pairs[:i]))
        raise ValueError(f"field {quote(dup)} given twice")
    return d


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _check_strings(value: Any, where: str) -> None:
    """Refuse strings holding a lone surrogate (``"\\ud800"``): no UTF-8 encodes it."""
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, str):
            if _SURROGATE.search(v):
                raise InputError(f"{where}: a string holds a lone surrogate: {quote(v)}")
        elif isinstance(v, dict):
            todo += list(v.keys()) + list(v.values())
        elif isinstance(v, list):
            todo += v


def _parse_line(line: str, where: str) -> dict[str, Any]:
    """One line as a JSON object: strict JSON (no NaN, no repeated field, no
    integer of thousands of digits, no lone surrogate), nested at most ~1000 deep."""
    try:
        d = json.loads(line, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except RecursionError:
        raise InputError(f"{where}: not JSON: nested too deeply") from None
    except ValueError as e:  # JSONDecodeError, a repeated field, a 5,000-digit integer
        raise InputError(f"{where}: not JSON: {quote(str(e))[1:-1]}") from None
    if not isinstance(d, dict):
        raise InputError(f"{where}: expected a JSON object, not {type(d).__name__}")
    _check_strings(d, where)
    return d


def _tile_list(v: Any, what: str, where: str) -> list[int]:
    """Tiles in notation: a string (order kept) or a list of single-tile strings."""
    try:
        if isinstance(v, str):
            return parse(v)
        if isinstance(v, list) and all(isinstance(t, str) for t in v):
            return [parse_tile(t) for t in v]
    except TileNotationError as e:
        raise InputError(f"{where}: {what}: {e}") from None
    raise InputError(f"{where}: {what} must be tiles in notation (\"123m\" or [\"1m\", …]), "
                     f"not {quote(v)}")


def event_to_json(seq: int, ev: Event) -> dict[str, Any]:
    """One event line.

    >>> event_to_json(7, Event("pon", 2, 13, 1))
    {'seq': 7, 'type': 'pon', 'seat': 2, 'tile': '5p', 'from_seat': 1}
    """
    d: dict[str, Any] = {"seq": seq}
    for k, v in ev._asdict().items():
        if v is None:
            continue
        if k == "tile":
            v = fmt_tile(v)
        elif k == "tiles":
            v = fmt_ordered(v) if ev.type in _ORDERED else fmt(v)
        d[k] = v
    return d


def event_from_json(d: Mapping[str, Any], where: str) -> Event:
    """Parse one event line (``where`` names it in errors).

    >>> event_from_json({"seq": 3, "type": "draw", "seat": 0, "tile": "9s", "kind": "live"}, "x")
    Event(type='draw', seat=0, tile=26, from_seat=None, kind='live', tiles=None, amount=None)
    """
    unknown = set(d) - {"seq", "type", "seat", "tile", "from_seat", "kind", "tiles", "amount"}
    if unknown:
        raise InputError(f"{where}: unknown field(s) {quote(sorted(unknown))}")
    typ = d.get("type")
    if not isinstance(typ, str) or typ not in EVENT_TYPES:
        raise InputError(f"{where}: unknown event type {quote(typ)}; valid: "
                         f"{', '.join(EVENT_TYPES)}")
    seat, from_seat = (_int(d, k, where, 0, 3) for k in ("seat", "from_seat"))
    amount = _int(d, "amount", where, 1, int_max("transfers", "amount"))
    kind = _str(d, "kind", where)
    if kind is not None and kind not in EVENT_KINDS:
        raise InputError(f"{where}: unknown kind {quote(kind)}")
    try:
        tile = parse_tile(d["tile"]) if d.get("tile") is not None else None
    except TileNotationError as e:
        raise InputError(f"{where}: {e}") from None
    tiles = d.get("tiles")
    if tiles is not None:
        tiles = tuple(_tile_list(tiles, "tiles", where))
        if typ == WIN and tiles != tuple(sorted(tiles)):
            tiles = tuple(sorted(tiles))  # a win's tiles are a set
    return Event(typ, seat, tile, from_seat, kind, tiles, amount)


# ------------------------------------------------------------------ export


def export_hand(run_dir: str | os.PathLike, match: int, hand: int,
                rotation: int = 0) -> list[str]:
    """The hand as JSON lines (header first), without trailing newlines."""
    rp = load_hand(run_dir, match, hand, rotation)
    m = read_manifest(run_dir)
    h = rp.hand
    header = {
        "format": FORMAT,
        "variant": rp.rules.variant,
        "rules": rp.rules.to_json(),
        "players": list(h.get("agents") or []),
        "match": match, "rotation": rotation, "hand": hand,
        "dealer": h["dealer"], "dice": list(h["dice"]), "break": h["break"],
        "dealer_rolls": list(h["dealer_rolls"]) if h.get("dealer_rolls") else None,
        "wall": fmt_ordered(h["wall"]) if h.get("wall") else None,
        "seed": m.get("seed"), "rng": m.get("rng"), "hand_seed": h.get("hand_seed"),
        "source_run": m.get("run_id"),
    }
    lines = [json.dumps(header, ensure_ascii=False)]
    lines += [json.dumps(event_to_json(i, e), ensure_ascii=False)
              for i, e in enumerate(rp.events)]
    return lines


# ------------------------------------------------------------------ import


def _header(d: Mapping[str, Any], where: str) -> tuple[Rules, dict[str, Any]]:
    if d.get("format") != FORMAT:
        raise InputError(f"{where}: not an {FORMAT} header (format {quote(d.get('format'))})")
    unknown = set(d) - set(_HEADER_FIELDS)
    if unknown:
        raise InputError(f"{where}: unknown header field(s) {quote(sorted(unknown))}")
    for k in ("variant", "players", "dealer", "dice", "break"):
        if k not in d:
            raise InputError(f"{where}: the header needs {k!r}")
    if not isinstance(d["variant"], str):
        raise InputError(f"{where}: variant must be a string, not {quote(d['variant'])}")
    if d.get("rules") is not None and not isinstance(d["rules"], dict):
        raise InputError(f"{where}: rules must be an object of rule keys, not "
                         f"{quote(d['rules'])}")
    try:
        rules = Rules(d["variant"], d.get("rules") or {})
    except InputError as e:
        raise InputError(f"{where}: {e}") from None
    n = rules.n
    players = d["players"]
    if isinstance(players, int) and not isinstance(players, bool) and players == n:
        players = [f"player{s}" for s in range(players)]
    if not isinstance(players, list) or len(players) != n or not all(
            isinstance(p, str) for p in players):
        raise InputError(f"{where}: 'players' must name one player per seat "
                         f"({n} under the rules), not {quote(players)}")
    out = {"match": _int(d, "match", where, 0, int_max("hands", "match"), 0),
           "rotation": _int(d, "rotation", where, 0, n - 1, 0),
           "hand": _int(d, "hand", where, 0, int_max("hands", "hand"), 0),
           "dealer": _int(d, "dealer", where, 0, n - 1),
           "break": _int(d, "break", where, 0, len(wall_tiles(rules)) - 1),
           "seed": _int(d, "seed", where, 0, int_max("hands", "hand_seed")),
           "hand_seed": _int(d, "hand_seed", where, 0, int_max("hands", "hand_seed")),
           "rng": _str(d, "rng", where), "source_run": _str(d, "source_run", where)}
    for k in ("dice", "dealer_rolls"):
        v = d.get(k)
        if v is None and k == "dealer_rolls":
            out[k] = None
            continue
        if not isinstance(v, list) or not all(
                isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 6 for x in v) or (
                k == "dice" and len(v) != 2) or len(v) > 64:
            raise InputError(f"{where}: {k} must be a list of dice (integers 1..6)"
                             f"{', two of them' if k == 'dice' else ''}, not {quote(v)}")
        out[k] = list(v)
    wall = [] if d.get("wall") is None else _tile_list(d["wall"], "wall", where)
    if wall and len(wall) != len(wall_tiles(rules)):
        raise InputError(f"{where}: wall has {len(wall)} tiles; the rules play "
                         f"{len(wall_tiles(rules))}")
    return rules, {**d, **out, "players": list(players), "wall": wall}


def import_lines(lines: Iterable[str], out: str | os.PathLike, name: str = "<jsonl>",
                 warn=None) -> dict[str, Any]:
    """Write the hand of ``lines`` as a run directory ``out``; returns the manifest.

    ``warn`` gets one line when the events break the rules (the run is still
    written, so that the auditor reports it in full).
    """
    out = Path(out)
    if (out / "manifest.json").exists() or (out.exists() and any(out.iterdir())):
        raise InputError(f"{out}: exists and is not empty; a run is never overwritten")
    header = None
    events: list[Event] = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{name}:{i}"
        d = _parse_line(line, where)
        if header is None:
            rules, header = _header(d, where)
            continue
        seq = d.get("seq", len(events))
        if not isinstance(seq, int) or isinstance(seq, bool) or seq != len(events):
            raise InputError(f"{where}: seq {quote(seq)} out of order (expected {len(events)})")
        ev = event_from_json(d, where)
        if any(s is not None and s >= rules.n for s in (ev.seat, ev.from_seat)):
            raise InputError(f"{where}: a seat past the {rules.n} players")
        events.append(ev)
    if header is None:
        raise InputError(f"{name}: empty file")
    match, rotation, k = (header[x] for x in ("match", "rotation", "hand"))
    dealer, dice, brk = header["dealer"], list(header["dice"]), header["break"]
    rp = Replay(rules, {"dealer": dealer, "dice": dice, "break": brk, "wall": header["wall"]},
                events)
    st = rp.new_state()
    stop = None
    for ev in events:
        stop = apply_checked(st, ev)
        if stop is not None:
            break
    if stop is None and not st.over:
        stop = truncated(st)
    warning = None  # told only once the run is written: a refusal stays one line
    if stop is not None:
        warning = (f"{name}: event {stop.seq}: {stop.check}: {stop.log}; the rules say "
                   f"{stop.rules} (written anyway; `mjlog validate` reports it)")
    n = rules.n
    seed, rng = header.get("seed"), header.get("rng")
    hs = header.get("hand_seed")
    if hs is None:
        hs = hand_seed(seed, match, k) if seed is not None and rng == RNG else 0
    transfers = [{"seq": i, "payer": e.from_seat, "payee": e.seat, "amount": e.amount,
                  "reason": e.kind} for i, e in enumerate(events) if e.type == TRANSFER]
    deltas = [0] * n
    for t in transfers:
        if all(isinstance(t[c], int) for c in ("payer", "payee", "amount")) and (
                0 <= t["payer"] < n and 0 <= t["payee"] < n):
            deltas[t["payer"]] -= t["amount"]
            deltas[t["payee"]] += t["amount"]
    winners = [e.seat for e in events if e.type == WIN]
    hand_row = {
        "hand_seed": hs, "players": n, "dealer": dealer, "dice": dice,
        "dealer_rolls": header.get("dealer_rolls"), "break": brk,
        "wall": list(header["wall"]), "agents": header["players"],
        "outcome": "win" if winners else "draw", "winners": winners, "deltas": deltas,
        "n_events": len(events), "wall_left": st.live,
        "next_dealer": st.next_dealer if st.next_dealer is not None else dealer,
    }
    wins = [{"seq": w.seq, "seat": w.seat, "from_seat": w.from_seat, "tile": w.tile,
             "method": w.method, "win_order": w.win_order, "patterns": list(w.patterns),
             "fan": w.fan, "multiplier": w.multiplier, "points": w.points, "total": w.total,
             "capped": w.capped} for w in st.wins]
    meta = {
        "variant": rules.variant, "rules": rules.to_json(), "seed": seed,
        "matches": 1, "hands_per_match": 1, "players": n,
        "agents": [{"name": p, "params": {}} for p in header["players"]],
        "duplicate": False, "rng": rng, "mjlog_version": __version__,
    }
    rid = run_id(meta)
    created = _first_missing(out)  # on failure `out` is left as it was found
    try:
        out.mkdir(parents=True, exist_ok=True)
        with ShardWriter(out, 0, rid, rules.variant, events=True) as w:
            w.add_hand(match, rotation, k, hand_row, events, wins, transfers)
        manifest = build_manifest(meta, w.entries, imported=True,
                                  source={"file": Path(name).name,
                                          "run": header.get("source_run")})
        write_manifest(out, manifest)
    except BaseException as e:
        _undo(out, created)
        if isinstance(e, ValueError):
            raise InputError(f"{name}: cannot be written as a run: {e}") from None
        raise
    if warning is not None and warn is not None:
        warn(warning)
    return manifest


def _first_missing(out: Path) -> Path | None:
    """The outermost directory of ``out`` (itself included) that does not exist yet."""
    first = None
    for p in (out, *out.parents):
        if os.path.lexists(p):
            break
        first = p
    return first


def _undo(out: Path, created: Path | None) -> None:
    """After a failed import: remove the directories it created, or, when ``out``
    existed (empty), what it wrote inside."""
    if created is not None:
        shutil.rmtree(created, ignore_errors=True)
        return
    if out.is_dir():
        for p in out.iterdir():
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)


def import_file(path: str | os.PathLike, out: str | os.PathLike, warn=None) -> dict[str, Any]:
    """:func:`import_lines` over a file."""
    p = Path(path)
    try:
        if not stat.S_ISREG(os.stat(p).st_mode):  # a FIFO would block, a directory fail
            raise InputError(f"{p}: cannot read: not a regular file")
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"{p}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{p}: cannot read: not UTF-8 (byte {e.start})") from None
    # Lines end at "\n" only: str.splitlines would also cut at U+2028, which JSON
    # strings may hold unescaped.
    return import_lines(text.split("\n"), out, name=str(p), warn=warn)


def write_lines(lines: Sequence[str], path: str | os.PathLike, option: str = "--out") -> None:
    """Write the lines atomically, never inside a run (:func:`mjlog.rundir.write_atomic`)."""
    from mjlog.rundir import write_atomic

    write_atomic(path, "\n".join(lines) + "\n", option)
