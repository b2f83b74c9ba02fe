"""``mjlog demo``: a short tour — analyse a hand, score the seed's examples, play
and log a short run of each variant, and summarise it with DuckDB."""

from __future__ import annotations

from pathlib import Path

import click


def _section(title: str) -> None:
    click.echo("")
    click.secho(f"== {title}", bold=True)


def _won(won: int, hands: int, matches: int) -> str:
    """How many hands had a winner; their share only when enough matches back it."""
    from analysis.caveats import MIN_MATCHES, TOO_FEW, too_few

    if too_few(matches):
        return (
            f"{won} with a winner (what share of hands: {TOO_FEW}, {matches} matches; "
            f"a finding needs at least {MIN_MATCHES})"
        )
    return f"{won / hands:.0%} with a winner"


@click.command("demo")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="runs/demo",
    show_default=True,
    help="Parent directory of the demo runs.",
)
@click.option("--matches", type=click.IntRange(min=1), default=4, show_default=True)
@click.option("--hands-per-match", type=click.IntRange(min=1), default=8, show_default=True)
def demo(out: str, matches: int, hands_per_match: int) -> None:
    """Show what mjlog does, end to end, in a few seconds."""
    import duckdb

    from mjlog import hand, tiles
    from mjlog.rules import Rules
    from mjlog.scoring import Method, WinContext, score
    from simulate.runner import RunSpec, simulate

    _section("Hand analysis: 九莲宝灯 1112345678999m")
    counts = tiles.parse_counts("1112345678999m")
    click.echo(
        f"  {tiles.glyphs(tiles.from_counts(counts))}   shanten {hand.shanten(counts)}"
        f"   waits {tiles.fmt(hand.waits(counts))}"
    )
    c2 = tiles.parse_counts("13m569p2378s1267z")
    click.echo(f"  13m569p2378s1267z: shanten {hand.shanten(c2)}")

    _section("The yuxi seed's worked examples (清一色 + 碰碰胡, then + 杠上花)")
    r = Rules("yuxi")
    c = tiles.parse_counts("11122233344455m")
    for method in (Method.SELF_DRAW, Method.DISCARD):
        s = score(WinContext(tuple(c), (), 4, method), r)
        click.echo(f"  {method:<9} patterns {','.join(s.patterns):<22} points {s.points}")

    parent = Path(out)
    # every seat plays `strategic`, the most realistic agent (see `mjlog ladder`)
    for variant, agents in (
        ("yuxi", "strategic"),
        ("xuezhan", "strategic"),
        ("huangmei", "strategic"),
    ):
        _section(
            f"Simulate {variant}: {matches} matches × {hands_per_match} hands, "
            f"agents: {agents} in every seat"
        )
        spec = RunSpec.build(
            variant,
            seed=2026,
            matches=matches,
            hands_per_match=hands_per_match,
            agents=agents.split(","),
        )
        run = parent / variant
        m = simulate(spec, run, progress=False)
        q = duckdb.execute(
            "SELECT count(*) AS hands, sum((outcome = 'win')::INT) AS won, "
            "avg(n_events) AS events_per_hand FROM read_parquet(?)",
            [str(run / "hands" / "*.parquet")],
        ).fetchone()
        assert q is not None  # an aggregate gives one row
        click.echo(
            f"  run {m['run_id']} in {run}: {q[0]} hands, {_won(q[1], q[0], matches)}, "
            f"{q[2]:.0f} events per hand"
        )
        pats = duckdb.execute(
            "SELECT p, count(*) AS n FROM (SELECT unnest(patterns) AS p FROM "
            "read_parquet(?)) GROUP BY p ORDER BY n DESC, p LIMIT 6",
            [str(run / "wins" / "*.parquet")],
        ).fetchall()
        click.echo("  patterns: " + ", ".join(f"{p} {n}" for p, n in pats))
    click.echo("")
    click.echo(
        f"Runs are in {parent}/ — query them with DuckDB, e.g. "
        f"SELECT * FROM read_parquet('{parent}/yuxi/wins/*.parquet')"
    )

    from analysis.report import write_report  # the report of the three runs, last

    _section("Report: the three runs compared (analysis.report)")
    page = write_report(
        [parent / v for v in ("yuxi", "xuezhan", "huangmei")],
        parent / "report",
        title="mjlog demo: yuxi, xuezhan and huangmei compared (strategic agents in every seat)",
    )
    click.echo(f"  open {page}")
