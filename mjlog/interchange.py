"""One hand as human-readable JSON lines, and back to a run directory.

The format (``mjlog-hand/1``, documented in ``docs/jsonl-format.md``): the
first line is a header object — variant, rules, players (one name per seat),
match, rotation, hand, dealer, dice, break, the wall in order-keeping notation
(or null), the root seed and rng (or null) — then one object per event, in
play order, with tiles in notation (``"5m"``; a set of tiles ``"123m45p"``,
order kept). Null fields are left out.

Import writes a run directory through the ordinary writer (``SpilledShard``, a
``ShardWriter`` that waits for the run id; ``build_manifest``, ``write_manifest``),
reading each line once: the events as given, the transfers
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

import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeGuard

from mjlog import __version__
from mjlog.errors import InputError, MjlogError, quote
from mjlog.events import DEAL, HORSE, TRANSFER, WIN, Event
from mjlog.ledger import win_totals
from mjlog.logio import (
    LogError,
    SpilledShard,
    build_manifest,
    canonical_json,
    read_manifest,
    remove_temporaries,
    run_id,
    shard_path,
    verify_manifest,
    write_manifest,
)
from mjlog.logio.files import shard_tables
from mjlog.replay import Replay, apply_checked, fmt_ordered, load_hand, to_event, truncated
from mjlog.rng import RNG, hand_seed
from mjlog.rules import Rules
from mjlog.schema import EVENT_KINDS, EVENT_TYPES, int_max
from mjlog.tiles import TileNotationError, fmt, fmt_tile, parse, parse_tile
from mjlog.variants import wall_tiles

__all__ = [
    "FORMAT",
    "export_hand",
    "export_lines",
    "import_lines",
    "import_file",
    "import_files",
    "import_sources",
    "event_to_json",
    "event_from_json",
]

FORMAT = "mjlog-hand/1"
_ORDERED = (DEAL, HORSE)  # tiles whose order matters in the log (the deal, the horses)
_HEADER_FIELDS = (
    "format",
    "variant",
    "rules",
    "players",
    "match",
    "rotation",
    "hand",
    "dealer",
    "dice",
    "break",
    "dealer_rolls",
    "wall",
    "seed",
    "rng",
    "hand_seed",
    "source_run",
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_AMOUNT_MAX = int_max("transfers", "amount")
#: one tile's notation -> id: the hot path of event lines (anything else goes
#: through the parser, which names the error)
_ONE_TILE = {fmt_tile(t): t for t in range(34)}
_FIELDS = frozenset({"seq", "type", "seat", "tile", "from_seat", "kind", "tiles", "amount"})


def _int(
    d: Mapping[str, Any], k: str, where: str, low: int, high: int, default: int | None = None
) -> int | None:
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


# one decoder for every line (json.loads with hooks builds a new one per call)
_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant)


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
        d = _DECODER.decode(line)
    except RecursionError:
        raise InputError(f"{where}: not JSON: nested too deeply") from None
    except ValueError as e:  # JSONDecodeError, a repeated field, a 5,000-digit integer
        raise InputError(f"{where}: not JSON: {quote(str(e))[1:-1]}") from None
    if not isinstance(d, dict):
        raise InputError(f"{where}: expected a JSON object, not {type(d).__name__}")
    if "\\u" in line or _SURROGATE.search(line):  # else no string can hold a surrogate
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
    raise InputError(
        f'{where}: {what} must be tiles in notation ("123m" or ["1m", …]), not {quote(v)}'
    )


def event_to_json(seq: int, ev: Event) -> dict[str, Any]:
    """One event line.

    >>> event_to_json(7, Event("pon", 2, 13, 1))
    {'seq': 7, 'type': 'pon', 'seat': 2, 'tile': '5p', 'from_seat': 1}
    """
    d: dict[str, Any] = {"seq": seq}
    for k, v in zip(Event._fields, ev, strict=True):
        if v is not None:
            d[k] = v
    if ev.tile is not None:  # tiles in notation, in place
        d["tile"] = fmt_tile(ev.tile)
    if ev.tiles is not None:
        d["tiles"] = fmt_ordered(ev.tiles) if ev.type in _ORDERED else fmt(ev.tiles)
    return d


def event_from_json(d: Mapping[str, Any], where: str) -> Event:
    """Parse one event line (``where`` names it in errors).

    >>> event_from_json({"seq": 3, "type": "draw", "seat": 0, "tile": "9s", "kind": "live"}, "x")
    Event(type='draw', seat=0, tile=26, from_seat=None, kind='live', tiles=None, amount=None)
    """
    if not _FIELDS.issuperset(d):
        unknown = set(d) - _FIELDS
        raise InputError(f"{where}: unknown field(s) {quote(sorted(unknown))}")
    typ = d.get("type")
    if not isinstance(typ, str) or typ not in EVENT_TYPES:
        raise InputError(
            f"{where}: unknown event type {quote(typ)}; valid: {', '.join(EVENT_TYPES)}"
        )
    seat, from_seat = _int(d, "seat", where, 0, 3), _int(d, "from_seat", where, 0, 3)
    amount = _int(d, "amount", where, 1, _AMOUNT_MAX)
    kind = _str(d, "kind", where)
    if kind is not None and kind not in EVENT_KINDS:
        raise InputError(f"{where}: unknown kind {quote(kind)}")
    tile = d.get("tile")
    try:
        if tile is not None:
            tile = _ONE_TILE.get(tile) if isinstance(tile, str) else None
            if tile is None:
                tile = parse_tile(d["tile"])
    except TileNotationError as e:
        raise InputError(f"{where}: {e}") from None
    tiles = d.get("tiles")
    if tiles is not None:
        tiles = tuple(_tile_list(tiles, "tiles", where))
        if typ == WIN and tiles != tuple(sorted(tiles)):
            tiles = tuple(sorted(tiles))  # a win's tiles are a set
    return Event(typ, seat, tile, from_seat, kind, tiles, amount)


# ------------------------------------------------------------------ export


def _export_header(rules: Rules, m: Mapping[str, Any], h: Mapping[str, Any]) -> dict[str, Any]:
    source = m.get("source") if m.get("imported") else None
    src_run = source.get("run") if isinstance(source, dict) else None
    return {
        "format": FORMAT,
        "variant": rules.variant,
        "rules": rules.to_json(),
        "players": list(h.get("agents") or []),
        "match": h["match"],
        "rotation": h["rotation"],
        "hand": h["hand"],
        "dealer": h["dealer"],
        "dice": list(h["dice"]),
        "break": h["break"],
        "dealer_rolls": list(h["dealer_rolls"]) if h.get("dealer_rolls") else None,
        "wall": fmt_ordered(h["wall"]) if h.get("wall") else None,
        "seed": m.get("seed"),
        "rng": m.get("rng"),
        "hand_seed": h.get("hand_seed"),
        # an imported run names the run its hands came from, so that export → import
        # → export gives the same bytes
        "source_run": src_run if isinstance(src_run, str) else m.get("run_id"),
    }


def _hand_lines(
    rules: Rules, m: Mapping[str, Any], h: Mapping[str, Any], events: Iterable[Event]
) -> list[str]:
    lines = [json.dumps(_export_header(rules, m, h), ensure_ascii=False, allow_nan=False)]
    lines += [
        json.dumps(event_to_json(i, e), ensure_ascii=False, allow_nan=False)
        for i, e in enumerate(events)
    ]
    return lines


def export_hand(
    run_dir: str | os.PathLike[str], match: int, hand: int, rotation: int = 0
) -> list[str]:
    """The hand as JSON lines (header first), without trailing newlines."""
    rp = load_hand(run_dir, match, hand, rotation)
    m = read_manifest(run_dir)
    h = {**rp.hand, "match": match, "rotation": rotation, "hand": hand}
    return _hand_lines(rp.rules, m, h, rp.events)


def export_lines(
    run_dir: str | os.PathLike[str],
    hands: Sequence[tuple[int, int, int]] | None = None,
    matches: Sequence[int] | None = None,
) -> Iterator[str]:
    """Every hand of the run (or those of ``matches``, or the ``(match, rotation,
    hand)`` keys of ``hands``) as JSON lines, one header per hand, in the run's
    order; streamed shard by shard. A requested hand or match the run does not
    hold is refused (:class:`InputError`) before a line is given."""
    from mjlog.logio import RunFiles, iter_hands, read_table

    run = RunFiles(run_dir)
    m = run.manifest
    rules = run.rules()
    if not run.has_events:
        raise InputError(f"{run_dir}: written without events (--events none): nothing to export")
    want_hands = set(hands) if hands is not None else None
    want_matches = set(matches) if matches is not None else None
    if want_hands is not None or want_matches is not None:
        keys = read_table(run, "hands", columns=["match", "rotation", "hand"])
        have = set(
            zip(*(keys.column(c).to_pylist() for c in ("match", "rotation", "hand")), strict=True)
        )
        missing = sorted((want_hands or set()) - have)
        if missing:
            mm, r, k = missing[0]
            raise InputError(
                f"{run_dir}: no hand {mm}:{k}"
                + (f" (rotation {r})" if r else "")
                + f" in the run ({len(have)} hands)"
            )
        lost = sorted((want_matches or set()) - {k[0] for k in have})
        if lost:
            raise InputError(f"{run_dir}: no match {lost[0]} in the run")
        del keys, have
    for b in iter_hands(run, events=True):
        h = b.hand
        key = (h["match"], h["rotation"], h["hand"])
        if want_hands is not None and key not in want_hands:
            continue
        if want_matches is not None and key[0] not in want_matches:
            continue
        yield from _hand_lines(rules, m, h, (to_event(e) for e in b.events))


# ------------------------------------------------------------------ import


_RULES_CACHE: dict[str, Rules] = {}


def _rules(variant: str, given: dict[str, Any]) -> Rules:
    """``Rules(variant, given)``, resolved once per distinct text: a file of many
    hands repeats one ruleset."""
    key = json.dumps([variant, given], sort_keys=True)
    r = _RULES_CACHE.get(key)
    if r is None:
        r = Rules(variant, given)
        if len(_RULES_CACHE) > 64:
            _RULES_CACHE.clear()
        _RULES_CACHE[key] = r
    return r


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
        raise InputError(f"{where}: rules must be an object of rule keys, not {quote(d['rules'])}")
    try:
        rules = _rules(d["variant"], d.get("rules") or {})
    except InputError as e:
        raise InputError(f"{where}: {e}") from None
    n = rules.n
    players = d["players"]
    if isinstance(players, int) and not isinstance(players, bool) and players == n:
        players = [f"player{s}" for s in range(players)]
    if (
        not isinstance(players, list)
        or len(players) != n
        or not all(isinstance(p, str) for p in players)
    ):
        raise InputError(
            f"{where}: 'players' must name one player per seat "
            f"({n} under the rules), not {quote(players)}"
        )
    out: dict[str, Any] = {
        "match": _int(d, "match", where, 0, int_max("hands", "match"), 0),
        "rotation": _int(d, "rotation", where, 0, n - 1, 0),
        "hand": _int(d, "hand", where, 0, int_max("hands", "hand"), 0),
        "dealer": _int(d, "dealer", where, 0, n - 1),
        "break": _int(d, "break", where, 0, len(wall_tiles(rules)) - 1),
        "seed": _int(d, "seed", where, 0, int_max("hands", "hand_seed")),
        "hand_seed": _int(d, "hand_seed", where, 0, int_max("hands", "hand_seed")),
        "rng": _str(d, "rng", where),
        "source_run": _str(d, "source_run", where),
    }
    for k in ("dice", "dealer_rolls"):
        v = d.get(k)
        if v is None and k == "dealer_rolls":
            out[k] = None
            continue
        if (
            not isinstance(v, list)
            or not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 6 for x in v)
            or (k == "dice" and len(v) != 2)
            or len(v) > 64
        ):
            raise InputError(
                f"{where}: {k} must be a list of dice (integers 1..6)"
                f"{', two of them' if k == 'dice' else ''}, not {quote(v)}"
            )
        out[k] = list(v)
    wall = [] if d.get("wall") is None else _tile_list(d["wall"], "wall", where)
    if wall and len(wall) != len(wall_tiles(rules)):
        raise InputError(
            f"{where}: wall has {len(wall)} tiles; the rules play {len(wall_tiles(rules))}"
        )
    return rules, {**d, **out, "players": list(players), "wall": wall}


MAX_LINE = 1 << 24  # characters in one line: a hand's header is ~400, a whole run never one line
HANDS_PER_SHARD = 2000  # hands per imported shard (and per row group)
_NO_WARN_AFTER = 20  # warnings told one by one; past that, only counted


class _Hand:
    """One parsed hand of a JSONL source: its header, events and where it starts."""

    __slots__ = ("rules", "header", "events", "where")

    def __init__(self, rules: Rules, header: dict[str, Any], events: list[Event], where: str):
        self.rules, self.header, self.events, self.where = rules, header, events, where

    @property
    def key(self) -> tuple[int, int, int]:
        h = self.header
        return h["match"], h["rotation"], h["hand"]

    def canonical(self) -> str:
        """The hand's canonical lines: the header as export writes it (rules resolved,
        tiles re-formatted), then each event line, as canonical JSON. Equal hands give
        equal text however their files were spaced, ordered or spelled."""
        h = self.header
        head = {
            "format": FORMAT,
            "variant": self.rules.variant,
            "rules": self.rules.to_json(),
            **{k: h.get(k) for k in _HEADER_FIELDS[3:]},
            "wall": fmt_ordered(h["wall"]) if h["wall"] else None,
        }
        lines = [canonical_json(head)]
        lines += [canonical_json(event_to_json(i, e)) for i, e in enumerate(self.events)]
        return "\n".join(lines) + "\n"


def _read_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of a UTF-8 file, streamed; lines end at "\\n" only
    (JSON strings may hold U+2028 unescaped, at which str.splitlines would cut)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block, a directory fail
            raise InputError(f"{path}: cannot read: not a regular file")
        f = open(path, encoding="utf-8", newline="\n")  # noqa: SIM115 - closed below
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None
    i = 0
    with f:
        while True:
            try:
                line = f.readline(MAX_LINE + 1)
            except UnicodeDecodeError as e:
                raise InputError(
                    f"{path}:{i + 1}: cannot read: not UTF-8 (byte {e.start} of a block)"
                ) from None
            except OSError as e:
                raise InputError(f"{path}: cannot read: {e.strerror or e}") from None
            if not line:
                return
            i += 1
            if len(line) > MAX_LINE:
                raise InputError(f"{path}:{i}: a line longer than {MAX_LINE} characters")
            yield i, line


def _hands(lines: Iterable[tuple[int, str]], name: str) -> Iterator[_Hand]:
    """Parse a source's lines into hands: a header line (one holding ``format``)
    starts a hand, the event lines after it are its events."""
    cur: _Hand | None = None
    seen_any = False
    for i, line in lines:
        if not line.strip():
            continue
        where = f"{name}:{i}"
        d = _parse_line(line, where)
        seen_any = True
        if "format" in d or cur is None:
            if cur is not None:
                yield cur
            rules, header = _header(d, where)
            cur = _Hand(rules, header, [], where)
            continue
        events, rules = cur.events, cur.rules
        seq = d.get("seq", len(events))
        if not isinstance(seq, int) or isinstance(seq, bool) or seq != len(events):
            raise InputError(f"{where}: seq {quote(seq)} out of order (expected {len(events)})")
        ev = event_from_json(d, where)
        if (ev.seat is not None and ev.seat >= rules.n) or (
            ev.from_seat is not None and ev.from_seat >= rules.n
        ):
            raise InputError(f"{where}: a seat past the {rules.n} players")
        events.append(ev)
    if not seen_any:
        raise InputError(f"{name}: empty file")
    if cur is not None:
        yield cur


def _seeds_hands(seed: int | None, rng: str | None) -> TypeGuard[int]:
    """Whether a run's seed and rng give a hand without a ``hand_seed`` its seed."""
    return seed is not None and rng == RNG


def _replayed(
    hand: _Hand, seed: int | None, rng: str | None
) -> tuple[dict, list, list, str | None]:
    """The hands row, wins and transfers of a hand, recomputed by replaying its events
    through the one transition function; plus a warning when the rules stop it."""
    rules, header, events = hand.rules, hand.header, hand.events
    match, k = header["match"], header["hand"]
    dealer, dice, brk = header["dealer"], list(header["dice"]), header["break"]
    rp = Replay(
        rules, {"dealer": dealer, "dice": dice, "break": brk, "wall": header["wall"]}, events
    )
    st = rp.new_state()
    stop = None
    for ev in events:
        stop = apply_checked(st, ev)
        if stop is not None:
            break
    if stop is None and not st.over:
        stop = truncated(st)
    warning = None
    if stop is not None:
        warning = (
            f"{hand.where}: event {stop.seq}: {stop.check}: {stop.log}; the rules say "
            f"{stop.rules} (written anyway; `mjlog validate` reports it)"
        )
    n = rules.n
    hs = header.get("hand_seed")
    if hs is None:
        hs = hand_seed(seed, match, k) if _seeds_hands(seed, rng) else 0
    transfers = [
        {"seq": i, "payer": e.from_seat, "payee": e.seat, "amount": e.amount, "reason": e.kind}
        for i, e in enumerate(events)
        if e.type == TRANSFER
    ]
    deltas = [0] * n
    for t in transfers:
        payer, payee, amount = t["payer"], t["payee"], t["amount"]
        if (
            isinstance(payer, int)
            and isinstance(payee, int)
            and isinstance(amount, int)
            and 0 <= payer < n
            and 0 <= payee < n
        ):
            deltas[payer] -= amount
            deltas[payee] += amount
    winners = [e.seat for e in events if e.type == WIN]
    hand_row = {
        "hand_seed": hs,
        "players": n,
        "dealer": dealer,
        "dice": dice,
        "dealer_rolls": header.get("dealer_rolls"),
        "break": brk,
        "wall": list(header["wall"]),
        "agents": header["players"],
        "outcome": "win" if winners else "draw",
        "winners": winners,
        "deltas": deltas,
        "n_events": len(events),
        "wall_left": st.live,
        "next_dealer": st.next_dealer if st.next_dealer is not None else dealer,
    }
    wins = [
        {
            "seq": w.seq,
            "seat": w.seat,
            "from_seat": w.from_seat,
            "tile": w.tile,
            "method": w.method,
            "win_order": w.win_order,
            "patterns": list(w.patterns),
            "fan": w.fan,
            "multiplier": w.multiplier,
            "points": w.points,
            "total": total,
            "capped": w.capped,
        }
        # the file's own totals (its transfers), also past an event the rules refuse
        for w, total in zip(
            st.wins,
            win_totals(
                [(w.seq, w.seat, w.win_order) for w in st.wins],
                _paid(events),
            ),
            strict=True,
        )
    ]
    return hand_row, wins, transfers, warning


def _paid(events: Sequence[Event]) -> list[tuple[int, int, int, str]]:
    """The transfer events as (seq, payee, amount, reason), well-formed ones only."""
    out = []
    for i, e in enumerate(events):
        seat, amount, kind = e.seat, e.amount, e.kind
        if e.type == TRANSFER and isinstance(seat, int) and isinstance(amount, int) and kind:
            out.append((i, seat, amount, kind))
    return out


class _Survey:
    """What reading the sources learns: the run's variant and rules, the hands'
    keys (each once), the common seed, rng and source run, and the hash of every
    hand's canonical lines, in order."""

    def __init__(self) -> None:
        self.rules: Rules | None = None
        self.rules_json = ""
        self.first = ""
        self.keys: set[int] = set()
        self.hands = 0
        self.digest = hashlib.sha256()
        self.seed: Any = ...
        self.rng: Any = ...
        self.source_run: Any = ...
        self.players: list[str] | None = None
        self.matches = self.hands_per_match = 0
        self.rotations = False

    def add(self, h: _Hand) -> None:
        rj = canonical_json(h.rules.to_json())
        if self.rules is None:
            self.rules, self.rules_json, self.first = h.rules, rj, h.where
        elif h.rules.variant != self.rules.variant or rj != self.rules_json:
            raise InputError(
                f"{h.where}: this hand's variant or rules differ from those of "
                f"the first hand ({self.first}); one run has one ruleset: import "
                f"them into separate runs"
            )
        m, r, k = h.key
        packed = (m << 24) | (r << 16) | k
        if packed in self.keys:
            raise InputError(
                f"{h.where}: hand {m}:{k} (rotation {r}) is given twice; a run "
                f"holds each (match, rotation, hand) once"
            )
        self.keys.add(packed)
        self.hands += 1
        self.digest.update(h.canonical().encode("utf-8"))
        for attr, v in (
            ("seed", h.header.get("seed")),
            ("rng", h.header.get("rng")),
            ("source_run", h.header.get("source_run")),
        ):
            have = getattr(self, attr)
            setattr(self, attr, v if have is ... or have == v else None)
        p = h.header["players"]
        self.players = (
            list(p)
            if self.players is None
            else [a if a == b else "(various)" for a, b in zip(self.players, p, strict=True)]
        )
        self.matches = max(self.matches, m + 1)
        self.hands_per_match = max(self.hands_per_match, k + 1)
        self.rotations = self.rotations or r > 0

    def meta(self) -> dict[str, Any]:
        assert self.rules is not None
        rules = self.rules
        seed = None if self.seed is ... else self.seed
        rng = None if self.rng is ... else self.rng
        return {
            "variant": rules.variant,
            "rules": rules.to_json(),
            "seed": seed,
            "matches": self.matches,
            "hands_per_match": self.hands_per_match,
            "players": rules.n,
            "agents": [{"name": a, "params": {}} for a in self.players or []],
            "duplicate": self.rotations,
            "rng": rng,
            "mjlog_version": __version__,
            "content": self.digest.hexdigest(),
        }


def _progress(total: int | None, desc: str, show: bool, unit: str = "hand"):
    """A tqdm bar (a widget in a notebook), or None; ``unit="B"`` counts bytes,
    scaled (kB, MB…)."""
    if not show:
        return None
    from tqdm.auto import tqdm

    scaled = {"unit_scale": True, "unit_divisor": 1024} if unit == "B" else {}
    return tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True, leave=False, **scaled)


Source = tuple[str, Callable[[], Iterable[tuple[int, str]]]]


class _Staged:
    """The hands' rows, written as they are read into shards that wait for the
    run id (:class:`~mjlog.logio.SpilledShard`, in ``spill``): a new shard every
    ``hands_per_shard`` hands and wherever the keys stop increasing. A hand the
    log cannot hold (a value past its column's type) stops the writing; the
    error is kept, so that the sources are still read and checked to the end."""

    def __init__(self, spill: Path, hands_per_shard: int) -> None:
        self.spill, self.per_shard = spill, hands_per_shard
        self.shards: list[SpilledShard] = []
        self.error: ValueError | None = None
        self._in_shard = 0
        self._last: tuple[int, int, int] | None = None
        #: per shard, the hands rows whose hand_seed came from the seed common so far
        self.seeded: list[list[int]] = []

    def add(self, h: _Hand, row: dict, wins: list, transfers: list, derived: bool) -> None:
        """Write the hand's rows; ``derived``: its hand_seed came from the seed
        common so far, which a later hand may show is not the run's."""
        if self.error is not None:
            return
        try:
            w = self.shards[-1] if self.shards else None
            if (
                w is None
                or self._last is None
                or self._in_shard >= self.per_shard
                or h.key <= self._last
            ):
                if w is not None:
                    w.close()
                w = SpilledShard(
                    self.spill,
                    len(self.shards),
                    h.rules.variant,
                    events=True,
                    row_group_hands=self.per_shard,
                )
                self.shards.append(w)
                self.seeded.append([])
                self._in_shard = 0
            w.add_hand(*h.key, row, h.events, wins, transfers)
        except ValueError as e:
            self.error = e
            return
        if derived:
            self.seeded[-1].append(self._in_shard)
        self._in_shard += 1
        self._last = h.key

    def close(self) -> None:
        if self.error is None and self.shards:
            try:
                self.shards[-1].close()
            except ValueError as e:
                self.error = e

    def publish(self, out: Path, rid: str, claim: Any, unseed: bool) -> list[dict[str, Any]]:
        """Write every shard into ``out`` under ``rid``, each journalled in
        ``claim``; with ``unseed``, the hand seeds derived from a seed that turned
        out not to be the run's are set to 0, as if the run's were known first.
        A shard that a killed import of this run put in place, as the journal
        recorded it, is kept; what that import left half-written is removed."""
        remove_temporaries(out)
        journal = claim.journal()
        entries: list[dict[str, Any]] = []
        for w, rows in zip(self.shards, self.seeded, strict=True):
            got = _in_place(out, w.shard, journal.get(w.shard))
            if got is not None:
                w.abort()  # its spill: the files in place hold these very rows
            else:
                amend = _zero_hand_seeds(rows) if unseed and rows else None
                got = w.publish(out, rid, amend)
                claim.record(w.shard, got)
            entries += got
        return entries


def _in_place(
    out: Path, shard: int, recorded: list[dict[str, Any]] | None
) -> list[dict[str, Any]] | None:
    """The journalled entries of ``shard`` when its files in ``out`` are each a
    regular file of the recorded size and sha256 (what its writer wrote); None
    when the shard is to be written again."""
    from mjlog.rundir import sha256_file

    want = {shard_path(t, shard) for t in shard_tables(True)}
    if (
        not recorded
        or not all(isinstance(f, dict) for f in recorded)
        or {f.get("path") for f in recorded} != want
    ):
        return None
    for f in recorded:
        p = out / f["path"]
        if (
            p.is_symlink()
            or not p.is_file()
            or p.stat().st_size != f.get("bytes")
            or sha256_file(p) != f.get("sha256")
        ):
            return None
    return recorded


def _zero_hand_seeds(rows: list[int]):
    """An ``amend`` for :meth:`SpilledShard.publish`: hand_seed 0 on those hands rows."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    def amend(table: str, t: pa.Table, first: int) -> pa.Table:
        if table != "hands":
            return t
        mask = np.zeros(t.num_rows, dtype=bool)
        idx = np.asarray(rows, dtype=np.int64) - first
        mask[idx[(idx >= 0) & (idx < t.num_rows)]] = True
        i = t.schema.get_field_index("hand_seed")
        col = pc.if_else(pa.array(mask), pa.scalar(0, t.schema.field(i).type), t.column(i))
        return t.set_column(i, t.schema.field(i), col)

    return amend


def import_sources(
    sources: Sequence[Source],
    out: str | os.PathLike[str],
    warn=None,
    progress: bool = False,
    hands_per_shard: int = HANDS_PER_SHARD,
    size: int | None = None,
) -> dict[str, Any]:
    """Write every hand of ``sources`` (name, a function giving its numbered lines)
    as one run directory ``out``; returns the manifest.

    One streamed pass reads each line once: it checks every line, refuses a
    repeated hand key or a second ruleset, hashes each hand's canonical lines
    into the run id, replays the hand and writes its rows, in the order given
    (a new shard every ``hands_per_shard`` hands and wherever the keys stop
    increasing). Since every row carries the run id, known only after the last
    hand, the rows wait in a spill (Arrow IPC, :class:`~mjlog.logio.SpilledShard`)
    in a temporary directory beside ``out``; then each shard is written into
    ``out`` as Parquet. Nothing reaches ``out`` before every line is read and
    checked; on a failure a new ``out`` is left as it was found, and the spill is
    always removed (a killed import's, by the next import to the same ``out``).
    Memory holds one hand and one row group, whatever the number of hands.

    ``out`` must be new, empty, or this import's run (the same hands: the same
    run id), as for ``simulate``: a rerun finishes an import killed while it wrote
    the shards (those in place as its journal recorded them are kept, the rest
    written again: the bytes of an uninterrupted import) and leaves a finished one
    as it is, byte for byte. It reads the sources again either way: the run id
    comes from them. Another run is refused (:class:`~mjlog.rundir.RunClaim`); a
    directory inside a run, or holding files but no run, before a line is read.

    ``warn`` gets one line per hand whose events break the rules (the run is still
    written, so that the auditor reports it in full); past 20, only their count.
    With ``progress``, a bar counts the hands, or, given the sources' ``size`` in
    bytes, what has been read of it (so that it shows the time left).
    """
    from mjlog.rundir import MANIFEST, MARKER, check_claimable, removing_new_dirs

    out = Path(out)
    check_claimable(out, "--out")  # the spill goes beside it: never inside a run
    fresh = not (os.path.lexists(out / MARKER) or os.path.lexists(out / MANIFEST))
    names = ", ".join(n for n, _ in sources)
    try:
        with removing_new_dirs(out):  # a failure leaves no folder the import made
            out.parent.mkdir(parents=True, exist_ok=True)
            _sweep_spills(out)
            with _spill(out) as spill:
                survey, staged, warnings = _stage(sources, spill, hands_per_shard, progress, size)
                source = {
                    "files": [Path(n).name for n, _ in sources],
                    "run": survey.source_run if survey.source_run is not ... else None,
                }
                manifest = _write_run(out, survey.meta(), staged, source, hands_per_shard, fresh)
    except ValueError as e:
        if isinstance(e, MjlogError):
            raise
        raise InputError(f"{names}: cannot be written as a run: {e}") from None  # the writer's
    if warn is not None:
        for s in warnings[:_NO_WARN_AFTER]:
            warn(s)
        if len(warnings) > _NO_WARN_AFTER:
            warn(
                f"{len(warnings) - _NO_WARN_AFTER} more hands break the rules "
                f"(`mjlog validate` reports them all)"
            )
    return manifest


def _stage(
    sources: Sequence[Source], spill: Path, hands_per_shard: int, progress: bool, size: int | None
) -> tuple[_Survey, _Staged, list[str]]:
    """Read, check and replay every hand of ``sources``, its rows staged in
    ``spill``; the survey (the run's arguments), the staged shards and the
    warnings. Raises on the first bad line, or, all read, on a row the log
    cannot hold."""
    survey, staged = _Survey(), _Staged(spill, hands_per_shard)
    warnings: list[str] = []
    bar = _progress(size, "importing", progress, "B" if size is not None else "hand")
    read, shown = [0], 0  # characters read (bytes, for ASCII lines), shown

    def counted(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
        for i, line in lines:
            read[0] += len(line)
            yield i, line

    try:
        for name, lines in sources:
            for h in _hands(lines() if size is None else counted(lines()), name):
                survey.add(h)
                seed, rng = survey.seed, survey.rng  # the common ones so far
                row, wins, transfers, warning = _replayed(h, seed, rng)
                derived = h.header.get("hand_seed") is None and _seeds_hands(seed, rng)
                staged.add(h, row, wins, transfers, derived)
                if warning is not None:
                    warnings.append(warning)
                if bar is not None:
                    bar.update(1 if size is None else read[0] - shown)
                    shown = read[0]
    finally:
        if bar is not None:
            bar.close()
    if survey.rules is None:
        raise InputError(f"{', '.join(n for n, _ in sources)}: no hands")
    staged.close()
    if staged.error is not None:
        raise staged.error
    return survey, staged, warnings


def _write_run(
    out: Path,
    meta: dict[str, Any],
    staged: _Staged,
    source: dict[str, Any],
    hands_per_shard: int,
    fresh: bool,
) -> dict[str, Any]:
    """Claim ``out`` for the run and write it: its shards, then its manifest;
    nothing when it is there finished. A failure removes what was written, unless
    ``out`` held the run already (``fresh`` False: a rerun keeps what was whole)."""
    from mjlog.rundir import RunClaim

    rid = run_id(meta)
    with RunClaim(out, rid, f"hands_per_shard={hands_per_shard}") as claim:
        try:
            manifest = _finished(out, rid, hands_per_shard, len(staged.shards))
            if manifest is None:
                unseed = not _seeds_hands(meta["seed"], meta["rng"])
                entries = staged.publish(out, rid, claim, unseed)
                manifest = build_manifest(
                    meta,
                    entries,
                    imported=True,
                    source=source,
                    hands_per_shard=hands_per_shard,
                    events="all",
                )
                write_manifest(out, manifest)
        except BaseException:
            if fresh:  # ours alone while claimed
                _undo(out)
            raise
    return manifest


def _finished(out: Path, rid: str, hands_per_shard: int, shards: int) -> dict[str, Any] | None:
    """The manifest, when ``out`` holds run ``rid`` (the claim checked the id)
    finished, every file as the manifest says: nothing is rewritten then. None
    when work is left; refused when the run was written with another layout."""
    if not os.path.lexists(out / "manifest.json"):
        return None
    try:
        m = read_manifest(out)
    except LogError:
        return None  # damaged: the shards are checked one by one, the manifest rewritten
    if m.get("hands_per_shard") != hands_per_shard:
        raise LogError(
            f"--out {out} holds run {rid} written with hands_per_shard="
            f"{quote(str(m.get('hands_per_shard')))[1:-1]}, not {hands_per_shard}: "
            f"choose another --out"
        )
    want = {shard_path(t, s) for s in range(shards) for t in shard_tables(True)}
    if verify_manifest(out) or {f["path"] for f in m["files"]} != want:
        return None
    return m


#: the lock file in a spill: held while its import runs
_SPILL_LOCK = ".lock"


def _spill_prefix(out: Path) -> str:
    return f".{out.name[:64]}.import-"


@contextmanager
def _spill(out: Path) -> Iterator[Path]:
    """A spill directory beside ``out``, locked (:func:`_hold`) while the block
    runs, removed after it."""
    import tempfile

    spill = Path(tempfile.mkdtemp(prefix=_spill_prefix(out), dir=out.parent))
    held = _hold(spill)
    try:
        yield spill
    finally:
        shutil.rmtree(spill, ignore_errors=True)
        os.close(held)


def _hold(spill: Path) -> int:
    """Lock ``spill`` for this import: while the lock is held no other import sweeps
    it (:func:`_sweep_spills`); the kernel drops it when the process dies."""
    fd = os.open(spill / _SPILL_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _sweep_spills(out: Path) -> None:
    """Remove the spills that killed imports to ``out`` left beside it: a spill
    directory whose lock no process holds. A spill being written keeps its lock;
    one without a lock file (being made this instant) is left alone."""
    for d in out.parent.glob(glob.escape(_spill_prefix(out)) + "*"):  # "[" in a name is no set
        if d.is_symlink() or not d.is_dir():
            continue
        try:
            fd = os.open(d / _SPILL_LOCK, os.O_RDWR | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # its import is running
        try:
            shutil.rmtree(d, ignore_errors=True)
        finally:
            os.close(fd)


def import_lines(
    lines: Iterable[str],
    out: str | os.PathLike[str],
    name: str = "<jsonl>",
    warn=None,
    progress: bool = False,
) -> dict[str, Any]:
    """:func:`import_sources` over lines held in memory (one source named ``name``)."""
    lines = list(lines)
    return import_sources([(name, lambda: enumerate(lines, 1))], out, warn=warn, progress=progress)


def import_files(
    paths: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    warn=None,
    progress: bool = False,
) -> dict[str, Any]:
    """:func:`import_sources` over files, each streamed once, never held whole."""
    sources = [(str(p), lambda p=Path(p): _read_lines(p)) for p in paths]
    try:
        size = sum(os.stat(p).st_size for p in paths) if progress else None
    except OSError:  # reading it will say what is wrong
        size = None
    return import_sources(sources, out, warn=warn, progress=progress, size=size)


def import_file(
    path: str | os.PathLike[str], out: str | os.PathLike[str], warn=None
) -> dict[str, Any]:
    """:func:`import_files` of one file."""
    return import_files([path], out, warn=warn)


def _undo(out: Path) -> None:
    """After a failed import: remove what it wrote inside ``out``."""
    if out.is_dir():
        for p in out.iterdir():
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)


def write_lines(lines: Sequence[str], path: str | os.PathLike[str], option: str = "--out") -> None:
    """Write the lines atomically, never inside a run (:func:`mjlog.rundir.write_atomic`)."""
    from mjlog.rundir import write_atomic

    write_atomic(path, "\n".join(lines) + "\n", option)
