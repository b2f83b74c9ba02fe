"""Benchmark of :mod:`mjlog.hand`: is_win, waits and shanten per second, and the
``mahjong`` package's shanten on the same hands (results checked equal).

    python bench/bench_hand.py [--quick]

``run(quick)`` returns ``{"section": markdown, "figures": {...}}`` for
``bench/run.py``. Hands are drawn from the 136-tile set with ``random.Random``
and a fixed seed (bench inputs only; the game itself never uses ``random``).
Each figure is the best of several timed passes over the same hands, since
shared machines are noisy; one pass is one call per hand in a plain loop.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SEED = 20240611
TARGETS = {"is_win_per_s": 1_000_000, "shanten_ratio": 5.0}


def make_hands(n: int, size: int, seed: int) -> list[list[int]]:
    """``n`` hands of ``size`` tiles drawn from the 136-tile set, as 34 counts."""
    rng = random.Random(seed)
    wall = [t for t in range(34) for _ in range(4)]
    hands = []
    for _ in range(n):
        counts = [0] * 34
        for t in rng.sample(wall, size):
            counts[t] += 1
        hands.append(counts)
    return hands


def per_second(f, hands, repeat: int) -> float:
    """Best-of-``repeat`` calls per second of ``f`` over ``hands``."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for c in hands:
            f(c)
        best = min(best, time.perf_counter() - t0)
    return len(hands) / best


def run(quick: bool = False) -> dict:
    t0 = time.perf_counter()
    import mjlog.hand as H
    from mjlog._hand_tables import shanten_tables, win_table

    import_s = time.perf_counter() - t0  # 0 if already imported by the caller
    t0 = time.perf_counter()
    win_table(9, True)
    win_table(7, False)
    win_build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    H.shanten([0] * 34)  # first use builds the shanten tables (and imports numpy)
    first_shanten_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    shanten_tables()
    shanten_build_s = time.perf_counter() - t0

    n = 2_000 if quick else 20_000
    repeat = 2 if quick else 5
    h14 = make_hands(n, 14, SEED)
    h13 = make_hands(n, 13, SEED + 1)

    is_win, waits, shanten = H.is_win, H.waits, H.shanten
    fig: dict = {"hands": n, "seed": SEED, "repeat": repeat}
    fig["is_win_per_s"] = per_second(is_win, h14, repeat)
    fig["wins_in_sample"] = sum(map(is_win, h14))
    fig["waits_per_s"] = per_second(waits, h13, repeat)
    fig["ready_in_sample"] = sum(1 for c in h13 if waits(c))
    fig["shanten_per_s"] = per_second(shanten, h13, repeat)
    fig["win_tables_build_s"] = win_build_s
    fig["shanten_tables_build_s"] = shanten_build_s
    fig["first_shanten_call_s"] = first_shanten_s
    fig["import_s"] = import_s

    try:
        from mahjong.shanten import Shanten
    except ImportError as e:
        peer = None
        peer_note = f"The `mahjong` package is not importable ({e}); install the `bench` extra."
    else:
        import importlib.metadata

        calc = Shanten.calculate_shanten

        def peer(c):
            return calc(c, use_chiitoitsu=True, use_kokushi=False)

        version = importlib.metadata.version("mahjong")
        peer_note = (
            f"`mahjong` {version}: `Shanten.calculate_shanten(tiles_34, "
            "use_chiitoitsu=True, use_kokushi=False)`."
        )
    if peer is not None:
        mismatches = [c for c in h13 if shanten(c) != peer(c)]
        fig["mahjong_shanten_per_s"] = per_second(peer, h13, repeat)
        fig["shanten_ratio"] = fig["shanten_per_s"] / fig["mahjong_shanten_per_s"]
        fig["shanten_mismatches"] = len(mismatches)

    def verdict(ok: bool) -> str:
        return "meets" if ok else "**misses**"

    rows = [
        f"| `is_win`, 14-tile hands | {fig['is_win_per_s']:,.0f} | target ≥ 1,000,000: "
        f"{verdict(fig['is_win_per_s'] >= TARGETS['is_win_per_s'])} |",
        f"| `waits`, 13-tile hands | {fig['waits_per_s']:,.0f} | |",
        f"| `shanten`, 13-tile hands | {fig['shanten_per_s']:,.0f} | |",
    ]
    if peer is not None:
        ratio = fig["shanten_ratio"]
        rows.append(
            f"| `mahjong` shanten, same hands | {fig['mahjong_shanten_per_s']:,.0f} | "
            f"ours is {ratio:.1f}× (target ≥ 5×: {verdict(ratio >= TARGETS['shanten_ratio'])}); "
            f"results differ on {fig['shanten_mismatches']} of {n} hands |"
        )
    section = (
        "## Hand analysis (`mjlog.hand`), pure Python, one core\n\n"
        f"{n:,} random hands from the 136-tile set (`random.Random({SEED})` for 14-tile "
        f"hands, `{SEED + 1}` for 13-tile), best of {repeat} passes "
        "(`python bench/bench_hand.py`). "
        f"{fig['wins_in_sample']} of the 14-tile hands are wins, "
        f"{fig['ready_in_sample']} of the 13-tile hands are ready.\n\n"
        "| what | calls/s | note |\n|---|---|---|\n" + "\n".join(rows) + "\n\n"
        f"Peer: {peer_note} Both sides take kokushi off; seven pairs follows the same "
        "convention (a four is one pair).\n\n"
        f"Tables: the win tables take {win_build_s * 1000:.0f} ms at import of `mjlog.hand`; "
        f"the shanten tables {shanten_build_s * 1000:.0f} ms on first use "
        f"(the first call here took {first_shanten_s * 1000:.0f} ms, numpy import included).\n"
    )
    return {"section": section, "figures": fig}


if __name__ == "__main__":
    out = run(quick="--quick" in sys.argv[1:])
    print(out["section"])
