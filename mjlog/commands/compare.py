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
    for (base, group), g in df.groupby(["baseline_group", "group"], sort=False):
        paired = bool(g["paired"].iloc[0])
        n = int(g["units"].iloc[0])
        how = (f"paired on {n} matches (same seed and match: same walls; both figures over "
               f"those matches)" if paired else
               f"UNPAIRED: no match of these runs was dealt the same walls (another seed, "
               f"tile set or match size); Welch test, {n} matches "
               f"on the smaller side")
        click.echo(f"baseline {base}\n   other {group}\n{how}; 95% CI; p two-sided "
                   f"(p_adj: Benjamini-Hochberg over these metrics)")
        t = pd.DataFrame({
            "metric": g["metric"], "unit": g["unit"],
            "baseline": g["baseline"].map(lambda v: f"{v:.4f}"),
            "value": g["value"].map(lambda v: f"{v:.4f}"),
            "diff [95% CI]": [f"{d:+.4f} [{lo:+.4f}, {hi:+.4f}]"
                              for d, lo, hi in zip(g["diff"], g["lo"], g["hi"], strict=True)],
            "p": g["p"].map(lambda v: f"{v:.3g}"),
            "p_adj": g["p_adjusted"].map(lambda v: f"{v:.3g}"),
            "paired_se": g["paired_se"].map(lambda v: f"{v:.4f}"),
            "unpaired_se": g["unpaired_se"].map(lambda v: f"{v:.4f}"),
        })
        click.echo(t.to_string(index=False))
        click.echo("")
