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


def make_complete_hands(n: int, seed: int) -> list[list[int]]:
    """``n`` random winning hands (4 sequences or triplets and a pair, no melds):
    the slow path of ``is_win``, which reads all four suits."""
    rng = random.Random(seed)
    hands = []
    while len(hands) < n:
        counts = [0] * 34
        for _ in range(4):
            t = rng.randrange(34)
            for x in [t, t + 1, t + 2] if t < 27 and t % 9 < 7 and rng.random() < 0.6 else [t] * 3:
                counts[x] += 1
        counts[rng.randrange(34)] += 2
        if max(counts) <= 4:
            hands.append(counts)
    return hands


def per_second(f, hands, repeat: int) -> tuple[float, float]:
    """Calls per second of ``f`` over ``hands``: best of ``repeat`` passes, by the
    wall clock and by this process's CPU time (steadier on a busy machine)."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        for c in hands:
            f(c)
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return len(hands) / wall, len(hands) / max(cpu, 1e-9)


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
    fig["is_win_per_s"], fig["is_win_per_cpu_s"] = per_second(is_win, h14, repeat)
    fig["wins_in_sample"] = sum(map(is_win, h14))
    wins = make_complete_hands(n, SEED + 2)
    assert all(map(is_win, wins))
    fig["is_win_complete_per_s"], fig["is_win_complete_per_cpu_s"] = per_second(
        is_win, wins, repeat
    )
    fig["waits_per_s"], fig["waits_per_cpu_s"] = per_second(waits, h13, repeat)
    fig["ready_in_sample"] = sum(1 for c in h13 if waits(c))
    fig["shanten_per_s"], fig["shanten_per_cpu_s"] = per_second(shanten, h13, repeat)
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
        # the peer follows the riichi convention for seven pairs (a four is one pair)
        mismatches = [c for c in h13 if shanten(c, fours_as_pairs=False) != peer(c)]
        fig["mahjong_shanten_per_s"], fig["mahjong_shanten_per_cpu_s"] = per_second(
            peer, h13, repeat
        )
        fig["shanten_ratio"] = fig["shanten_per_s"] / fig["mahjong_shanten_per_s"]
        fig["shanten_ratio_cpu"] = fig["shanten_per_cpu_s"] / fig["mahjong_shanten_per_cpu_s"]
        fig["shanten_mismatches"] = len(mismatches)

    def verdict(ok: bool) -> str:
        return "meets" if ok else "**misses**"

    def rate(key: str) -> str:
        return f"{fig[key + '_per_s']:,.0f} | {fig[key + '_per_cpu_s']:,.0f}"

    win_ok = fig["is_win_per_cpu_s"] >= TARGETS["is_win_per_s"]
    rows = [
        f"| `is_win`, 14-tile hands | {rate('is_win')} | target ≥ 1,000,000/s: {verdict(win_ok)} |",
        f"| `is_win`, winning 14-tile hands | {rate('is_win_complete')} | the slow path: "
        "all four suits read |",
        f"| `waits`, 13-tile hands | {rate('waits')} | |",
        f"| `shanten`, 13-tile hands | {rate('shanten')} | |",
    ]
    if peer is not None:
        ratio = fig["shanten_ratio_cpu"]
        rows.append(
            f"| `mahjong` shanten, same hands | {rate('mahjong_shanten')} | "
            f"ours is {ratio:.1f}× (wall clock {fig['shanten_ratio']:.1f}×; target ≥ 5×: "
            f"{verdict(ratio >= TARGETS['shanten_ratio'])}); results differ on "
            f"{fig['shanten_mismatches']} of {n} hands |"
        )
    section = (
        "## Hand analysis (`mjlog.hand`), pure Python, one core\n\n"
        f"{n:,} random hands from the 136-tile set (`random.Random({SEED})` for 14-tile "
        f"hands, `{SEED + 1}` for 13-tile), best of {repeat} passes "
        "(`python bench/bench_hand.py`). "
        f"{fig['wins_in_sample']} of the 14-tile hands are wins, "
        f"{fig['ready_in_sample']} of the 13-tile hands are ready.\n\n"
        "Targets are judged on CPU time, which a busy machine distorts less than "
        "the wall clock.\n\n"
        "| what | calls/s (wall) | calls/s (CPU) | note |\n|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n\n"
        f"Peer: {peer_note} Both sides take kokushi off; seven pairs follows the same "
        "convention (a four is one pair).\n\n"
        f"Tables (wall clock): the win tables take {win_build_s * 1000:.0f} ms at import of "
        "`mjlog.hand`; "
        f"the shanten tables {shanten_build_s * 1000:.0f} ms on first use "
        f"(the first call here took {first_shanten_s * 1000:.0f} ms, numpy import included).\n"
    )
    return {"section": section, "figures": fig}


if __name__ == "__main__":
    out = run(quick="--quick" in sys.argv[1:])
    print(out["section"])
