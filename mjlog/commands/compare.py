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
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def compare_command(baseline, others, fmt) -> None:
    """Compare OTHERS (run directories or sweep folders) with BASELINE, metric by metric.

    Metrics: mean points by seat position after the dealer, dealer advantage, draw
    rate, mean points per win, money moved per hand, each pattern's rate per win and
    the capped share. For each: baseline, value, difference with its 95% CI and
    p-value, the paired and the unpaired standard error, and the number of units.
    Runs with the same seed play the same walls match by match, so matches are
    paired by (seed, match); runs that share none are compared unpaired (Welch),
    and the output says so. A sweep folder alone compares its points with its first.

    Across variants only what both define is compared: a pattern one variant
    lacks is left out (the text names it), and points, counted by two scoring
    systems, are shown side by side as "different scales, not comparable", with
    no difference (JSON: "comparable": false, the "note", null difference).

    Example: mjlog compare runs/caps/cap=8 runs/caps/cap=16 --format json
    """
    import duckdb
    import pandas as pd

    from analysis.queries import paired_comparison
    from mjlog.errors import MjlogError

    try:
        df = paired_comparison([baseline, *others])
    except duckdb.Error as e:
        raise MjlogError(f"cannot read the runs: {str(e).splitlines()[0]}") from None
    if fmt == "json":
        rows = [{k: _num(v.item() if hasattr(v, "item") else v) for k, v in r.items()}
                for r in df.to_dict(orient="records")]
        click.echo(json.dumps(rows, ensure_ascii=False, indent=1, allow_nan=False))
        return
    not_compared = df.attrs.get("not_compared", {})
    for (base, group), g in df.groupby(["baseline_group", "group"], sort=False):
        paired = bool(g["paired"].iloc[0])
        n = int(g["units"].iloc[0])
        how = (f"paired on {n} matches (same seed and match: same walls; both figures over "
               f"those matches)" if paired else
               f"UNPAIRED: these runs do not deal the same walls match by match (another "
               f"seed, tile set or match size; or, on one seed, play that moved a dealer "
               f"and with it the break); Welch test, {n} matches on the smaller side")
        click.echo(f"baseline {base}\n   other {group}\n{how}; 95% CI; p two-sided "
                   f"(p_adj: Benjamini-Hochberg over these metrics)")
        ok = g[g["comparable"]]
        t = pd.DataFrame({
            "metric": ok["metric"], "unit": ok["unit"],
            "baseline": ok["baseline"].map(lambda v: f"{v:.4f}"),
            "value": ok["value"].map(lambda v: f"{v:.4f}"),
            "diff [95% CI]": [f"{d:+.4f} [{lo:+.4f}, {hi:+.4f}]"
                              for d, lo, hi in zip(ok["diff"], ok["lo"], ok["hi"], strict=True)],
            "p": ok["p"].map(lambda v: f"{v:.3g}"),
            "p_adj": ok["p_adjusted"].map(lambda v: f"{v:.3g}"),
            "paired_se": ok["paired_se"].map(lambda v: f"{v:.4f}"),
            "unpaired_se": ok["unpaired_se"].map(lambda v: f"{v:.4f}"),
        })
        click.echo(t.to_string(index=False))
        apart = g[~g["comparable"]]
        if len(apart):
            click.echo(f"{apart['note'].iloc[0]}; each figure in its own points, no "
                       f"difference taken:")
            click.echo(pd.DataFrame({
                "metric": apart["metric"], "unit": apart["unit"],
                "baseline": apart["baseline"].map(lambda v: f"{v:.4f}"),
                "value": apart["value"].map(lambda v: f"{v:.4f}"),
            }).to_string(index=False))
        left_out = not_compared.get((base, group))
        if left_out:
            click.echo(f"patterns only one side has, not compared: {', '.join(left_out)}")
        click.echo("")
    from analysis.caveats import warnings_for

    for w in warnings_for([baseline, *others]):
        click.echo(f"caveat: {w}")
