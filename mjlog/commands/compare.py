"""``mjlog compare``: every headline figure of runs against a baseline, paired by seed."""

from __future__ import annotations

import json
import math

import click


def _num(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


@click.command("compare")
@click.argument("baseline", type=click.Path(exists=True, file_okay=False))
@click.argument("others", nargs=-1, type=click.Path(exists=True, file_okay=False))
@click.option(
    "--margin",
    "margins",
    multiple=True,
    metavar="METRIC=M",
    help="Equivalence margin of a metric (mean_points[0]=0.2) or of a family "
    "(pattern_rate=0.005); repeatable. Defaults: docs/cli.md.",
)
@click.option(
    "--primary",
    multiple=True,
    metavar="METRIC",
    help="A metric (or family) the study is about; repeatable. Only these are "
    "adjusted for multiplicity and get verdicts, the others are "
    "exploratory.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def compare_command(baseline, others, margins, primary, fmt) -> None:
    """Compare OTHERS (run directories or sweep folders) with BASELINE, metric by metric.

    Metrics: mean points by seat position after the dealer (by agent where a line-up
    mixes agents), dealer advantage, draw rate, mean points per win, money moved per
    hand, each pattern's rate per win and the capped share. For each: baseline,
    value, difference with its 95% CI, p-value adjusted over every point x metric
    (or the --primary ones), the paired and the unpaired standard error, and a
    verdict: equivalent within the metric's margin (even when also shown to differ
    from 0, which it then says), differs, or inconclusive with about how many more
    hands would settle it (docs/cli.md gives the margins).
    Runs with the same seed start every match from the same walls, so matches are
    paired by (seed, match), also where a changed result later moved a dealer (the
    output says on how many hands the walls still agree, and on how many hands the
    outcome differs: winner, patterns, points or transfers); a figure the paired
    runs measure the same on every match is "identical", no test; runs of another seed,
    match size or tile set are compared unpaired (Welch), and the output says which
    of those holds. A sweep folder alone compares its points with its first; a
    numeric sweep key of three values or more gets a trend per unit of the key.

    Across variants only what both define is compared: a pattern one variant
    lacks is left out (the text names it), and points, counted by two scoring
    systems, are shown side by side as "different scales, not comparable", with
    no difference (JSON: "comparable": false, the "note", null difference).

    Example: mjlog compare runs/caps --primary money_moved_per_hand --margin draw_rate=0.005
    """
    import duckdb
    import pandas as pd

    from analysis.compare import study, verdict_text
    from analysis.decide import parse_margins, parse_primary
    from analysis.rates import RARE
    from mjlog.errors import MjlogError

    margins, primary = parse_margins(margins), parse_primary(primary)
    try:
        st = study([baseline, *others], margins, primary)
    except duckdb.Error as e:
        raise MjlogError(f"cannot read the runs: {str(e).splitlines()[0]}") from None
    df = st.rows
    if fmt == "json":
        trend = {
            t["metric"]: _plain({k: v for k, v in t.items() if k not in ("metric", "unit")})
            for t in st.trend.to_dict(orient="records")
        }
        rows = [
            {**_plain(r), "trend": trend.get(r["metric"])} for r in df.to_dict(orient="records")
        ]
        click.echo(json.dumps(rows, ensure_ascii=False, indent=1, allow_nan=False))
        return
    not_compared = df.attrs.get("not_compared", {})
    for (base, group), g in df.groupby(["baseline_group", "group"], sort=False):
        paired = bool(g["paired"].iloc[0])
        n = int(g["units"].iloc[0])
        note = g["pairing_note"].iloc[0]
        how = (
            f"{note}; {n} matches, both figures over those matches"
            if paired
            else f"UNPAIRED: {note}; Welch test, {n} matches on the smaller side"
        )
        click.echo(f"baseline {base}\n   other {group}\n{how}; 95% CI")
        if paired:
            click.echo(_differing_line(g.iloc[0]))
        ok = g[g["comparable"]]
        t = pd.DataFrame(
            {
                "metric": ok["metric"],
                "unit": ok["unit"],
                "baseline": ok["baseline"].map(lambda v: f"{v:.4f}"),
                "value": ok["value"].map(lambda v: f"{v:.4f}"),
                "diff [95% CI]": [
                    f"{d:+.4f} [{lo:+.4f}, {hi:+.4f}]" + (f" (n<{RARE})" if rare else "")
                    for d, lo, hi, rare in zip(
                        ok["diff"], ok["lo"], ok["hi"], ok["rare"], strict=True
                    )
                ],
                "p_adj": ok["p_adjusted"].map(lambda v: "-" if math.isnan(v) else f"{v:.3g}"),
                "paired_se": ok["paired_se"].map(lambda v: f"{v:.4f}"),
                "unpaired_se": ok["unpaired_se"].map(lambda v: f"{v:.4f}"),
                "verdict": [verdict_text(r) for r in ok.to_dict(orient="records")],
            }
        )
        click.echo(t.to_string(index=False))
        apart = g[~g["comparable"]]
        if len(apart):
            click.echo(
                f"{apart['note'].iloc[0]}; each figure in its own points, no difference taken:"
            )
            click.echo(
                pd.DataFrame(
                    {
                        "metric": apart["metric"],
                        "unit": apart["unit"],
                        "baseline": apart["baseline"].map(lambda v: f"{v:.4f}"),
                        "value": apart["value"].map(lambda v: f"{v:.4f}"),
                    }
                ).to_string(index=False)
            )
        left_out = not_compared.get((base, group))
        if left_out:
            click.echo(f"patterns only one side has, not compared: {', '.join(left_out)}")
        click.echo("")
    if st.key is not None:
        click.echo(_trend_table(st, df))
    elif len(df["group"].unique()) > 1:
        click.echo(st.trend_note + "\n")
    click.echo(_legend(df, primary))
    from analysis.caveats import warnings_for

    for w in warnings_for([baseline, *others]):
        click.echo(f"caveat: {w}")


def _differing_line(r) -> str:
    """How many paired hands end otherwise (winner, patterns, points or transfers),
    with the 95% upper bound of that share of hands."""
    n, hands, hi = int(r["hands_differing"]), int(r["hands"]), float(r["hands_differing_hi"])
    bound = f" (95% upper bound {hi:.1%} of hands)" if hi == hi else ""
    if n == 0:
        return (
            f"outcome alike on every one of {hands:,} hands: no winner, pattern, point "
            f"or transfer differs{bound}"
        )
    return f"outcome differs on {n:,} of {hands:,} hands (winner, patterns, points or transfers)"


def _plain(row: dict) -> dict:
    """A row as JSON takes it: numpy scalars as Python's, NaN and infinities as null."""
    out = {}
    for k, v in row.items():
        v = v.item() if hasattr(v, "item") else v
        out[k] = [_num(x) for x in v] if isinstance(v, list) else _num(v)
    return out


def _trend_table(st, df) -> str:
    """Each metric's figure at every point of the sweep, and its slope per unit of the
    key: the point-by-point table with the trend beside it."""
    import pandas as pd

    from analysis.rates import RARE

    t = st.trend
    points = [df["baseline_group"].iloc[0], *df["group"].unique()]
    names = [_point_name(g, st.key) for g in points]
    table = pd.DataFrame({"metric": t["metric"]})
    for i, name in enumerate(names):
        table[name] = [f"{v[i]:.4f}" for v in t["values"]]
    table[f"slope per {st.key} [95% CI]"] = [
        f"{b:+.4f} [{lo:+.4f}, {hi:+.4f}]" if lo == lo else f"{b:+.4f} (n<{RARE}: no interval)"
        for b, lo, hi in zip(t["slope"], t["lo"], t["hi"], strict=True)
    ]
    table["p_adj"] = t["p_adjusted"].map(lambda v: "-" if math.isnan(v) else f"{v:.3g}")
    return (
        f"{st.trend_note}; p_adj: Benjamini-Hochberg over these trends\n"
        f"{table.to_string(index=False)}\n"
    )


def _point_name(group: str, key: str) -> str:
    """``cap=4`` from a group label (``xuezhan cap=4 [strategic,…] runs/…``), with
    ``(default)`` when the label marks it so."""
    words = group.split()
    for i, word in enumerate(words):
        if word.startswith(f"{key}="):
            return f"{word} (default)" if words[i + 1 : i + 2] == ["(default)"] else word
    return group.split(" [")[0]


def _legend(df, primary) -> str:
    """What the verdicts and p_adj rest on (docs/cli.md gives the margins)."""
    over = (
        f"the primary metrics ({', '.join(primary)}) of every point"
        if primary
        else "every point × metric of this study"
    )
    from analysis.rates import RARE

    tests = int(df["p_adjusted"].notna().sum())
    fam = "the primary metrics" if primary else "the headline figures, or each other metric family"
    return (
        f"p_adj: Benjamini-Hochberg over {over} ({tests} tests); verdict at 5 %: "
        f"equivalent within ±margin (two one-sided tests, adjusted within their family: "
        f"{fam}; the text says "
        f"when it also differs from 0), else differs (p_adj), else inconclusive with "
        f"about how many more hands each run needs; identical: paired runs measure the "
        f"figure the same on every match (no test, not counted); (n<{RARE}): a rate "
        f"resting on fewer than {RARE} events on a side, never called certain"
        + ("; exploratory: not a primary metric, not tested" if primary else "")
    )
