"""Evidence for the ``expert`` agent (issue 21): its speed, the duplicate ladder, and
which balance conclusions move when every seat plays it instead of ``strategic``.

- speed: hands/s of one ``expert`` seat and three ``strategic`` seats, one core,
  wall clock and CPU (the machine is shared: CPU time is the steadier figure);
- ab: the paired seat-swap A/B against strategic (:mod:`research.expert_ab`);
- ceiling: that A/B for expert and for its search given the other seats' real
  hands (:func:`research.expert_calibration.ceiling`): what right samples would gain;
- ready: the ceiling again, the twin knowing only the hands of the other seats
  that are ready (:class:`research.expert_calibration.ReadySeeing`);
- reading: that A/B for ``expert:reading=1`` (its samples tilted by the learned
  reading of :mod:`simulate.agents.reading`) beside expert's, on the same hands;
- calibration: the search's estimate against the truth on the real hidden tiles
  (:mod:`research.expert_calibration`);
- budget: what other search settings would have gained, priced on one
  calibration of many samples a decision (:func:`research.expert_calibration.budget`);
- ladder: ``mjlog ladder --agents expert,strategic,efficient,greedy`` per variant;
- null: the same ladder with strategic's exact twin in expert's seat, over many
  seeds: how far luck and seating alone set two equal players apart;
- seating: that twin ladder with cyclic seating at ten seeds of ``--hands``: what
  the agent listed first gains from always playing just before the second;
- conclusions: ``expert`` in every seat against the committed ``strategic`` sample
  (``data/<variant>``: seed 2026, 8 hands a match) on the same walls, paired by
  match (:func:`analysis.compare.paired_comparison`): dealer advantage, the draw
  rate, pattern shares; and the skill share (:func:`analysis.balance.skill_share`)
  of duplicate line-ups ``P,greedy,P,greedy`` with P = strategic, then expert
  (:func:`analysis.balance.skill_share_difference`). With ``--seed`` away from
  2026 (a finding checked on fresh walls) strategic's side is played at that seed
  on the same matches, and the tables are the seed's own.

    python research/expert_study.py [--quick]
        [--parts speed,ab,ceiling,ready,reading,calibration,budget,ladder,null,seating,
                 conclusions]
        [--hands N] [--ab-hands H] [--cal-hands C] [--cal-first F] [--budget-spec SPEC]
        [--seed S] [--matches M]
        [--workers W] [--seating balanced|cyclic] [--keep DIR]
        [variant ...]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simulate.agents.expert import DEFAULTS as EXPERT_DEFAULTS  # noqa: E402
from simulate.seating import DEFAULT_SEATING, SEATINGS  # noqa: E402  (after the path: run as a script)

VARIANTS = ("yuxi", "xuezhan", "huangmei")
EXPERT = "expert"
#: the defaults EXPERT stands for (the section names them), read off the agent
EXPERT_PARAMS = ";".join(
    f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in EXPERT_DEFAULTS.items()
)
#: the agents of the paired A/B, each against strategic
AB_AGENTS = (EXPERT,)
LINEUP = [EXPERT, "strategic", "efficient", "greedy"]
#: hands per variant a full ladder plays (`make bench`); the run here may be smaller
FULL_HANDS = 8000
SEED = 2026
#: the metrics of the paired comparison reported (pattern shares: every ``pattern:``)
METRICS = ("dealer_advantage", "draw_rate")


def speed(variant: str, hands: int) -> dict:
    """One expert seat (seat 0) and three strategic, ``hands`` hands in one process."""
    from mjlog.engine import play_hand
    from mjlog.rules import Rules
    from simulate.agents import make_agents

    rules = Rules(variant)
    agents = make_agents([EXPERT, "strategic", "strategic", "strategic"])
    searched = overruled = 0
    w0, c0 = time.perf_counter(), time.process_time()
    for h in range(hands):
        play_hand(rules, agents, seed=SEED, match=h, hand=0, dealer=h % rules.n)
        searched += agents[0].searched
        overruled += agents[0].overruled
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return {
        "hands": hands,
        "wall_s": wall,
        "cpu_s": cpu,
        "hands_per_s": hands / wall,
        "hands_per_cpu_s": hands / cpu,
        "searched_per_hand": searched / hands,
        "overruled_per_hand": overruled / hands,
    }


def ladder_part(
    variant: str,
    hands: int,
    workers: int,
    seed: int = SEED,
    seating: str = DEFAULT_SEATING,
    keep: Path | None = None,
) -> tuple[str, dict]:
    """The ladder, expert's lead over strategic paired by match, and the search's
    own worth there: expert against its twin (:data:`TWIN`) in the same seat of the
    same line-up on the same walls (:func:`analysis.ladder.lead_across`). With
    ``keep`` the two runs stay there, and a rerun resumes them."""
    from analysis.ladder import changed_hands, gaps, lead_across
    from analysis.studies.ladder import ladder_tables

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mjlog-ladder-") as tmp:
        root = Path(keep) if keep else Path(tmp)
        run, twin = root / "expert", root / "twin"
        # shards of 8 matches keep every worker busy on one seating's run
        t, _ = ladder_tables(
            variant,
            LINEUP,
            hands=hands,
            seed=seed,
            workers=workers,
            out=run,
            seating=seating,
            hands_per_shard=256,
        )
        dt = time.perf_counter() - t0
        # expert's lead over strategic, paired by match, whatever their ranks
        lead = gaps(run, [EXPERT, "strategic"]).iloc[0]
        ladder_tables(
            variant,
            TWIN_LINEUP,
            hands=hands,
            seed=seed,
            workers=workers,
            out=twin,
            seating=seating,
            hands_per_shard=256,
        )
        search = lead_across(run, EXPERT, twin)  # the twin is logged as expert too
        changed = changed_hands(run, EXPERT, twin)
    order = list(t["agent"])
    first = t.iloc[0]
    apart = len(t) > 1 and first["ci_low"] > t["ci_high"].iloc[1]
    verdict = (
        "met"
        if order[0] == EXPERT and apart
        else f"NOT met at {hands} hands (order {', '.join(order)}; intervals "
        f"{'apart' if apart else 'overlap'})"
    )
    rows = "\n".join(
        f"| {r.agent} | {r.hands} | {r.mean_points:.3f} | [{r.ci_low:.3f}, {r.ci_high:.3f}] "
        f"| {r.win_rate:.3f} | {r.deal_in_rate:.3f} | {r.mean_total_per_win:.2f} |"
        for r in t.itertuples()
    )
    text = (
        f"#### {variant}, seed {seed}, {seating} seating: {verdict}\n\n"
        f"`mjlog ladder --variant {variant} --agents {','.join(LINEUP)} --hands {hands} "
        f"--seed {seed} --seating {seating} --workers {workers}`: {dt:.0f} s wall "
        "clock\n\n"
        "| agent | seat-hands | mean points/hand | 95% CI | win rate | deal-in rate "
        "| total/win, all payers |\n|---|---|---|---|---|---|---|\n" + rows + "\n\n"
        f"expert's lead over strategic, paired by match ({lead.matches} matches): "
        f"{lead.difference:+.3f} [{lead.ci_low:+.3f}, {lead.ci_high:+.3f}] points per hand, "
        f"p = {lead.p:.2g}. The search's own worth at this table, expert against its "
        f"twin `{TWIN}` in the same seat of the same line-up and walls "
        f"(`analysis.ladder.lead_across`): {search['difference']:+.3f} "
        f"[{search['ci_low']:+.3f}, {search['ci_high']:+.3f}], p = {search['p']:.2g}. "
        f"The search changed the points of {changed['share']:.1%} "
        f"[{changed['share_low']:.1%}, {changed['share_high']:.1%}] of expert's seat-hands, "
        f"by {changed['per_changed']:+.2f} [{changed['per_changed_low']:+.2f}, "
        f"{changed['per_changed_high']:+.2f}] points per changed one "
        "(`analysis.ladder.changed_hands`)\n\n"
    )
    return text, {
        "table": t.to_dict("records"),
        "seconds": dt,
        "verdict": verdict,
        "lead": lead.to_dict(),
        "search": search,
        "changed": changed,
    }


#: strategic's exact twin: with no samples, expert plays strategic's own choices
TWIN = "expert:rollouts=0"
TWIN_LINEUP = [TWIN, *LINEUP[1:]]
#: the null ladders' seeds (apart from SEED and the fresh seeds tried on expert)
NULL_SEEDS = range(3000, 3040)


def twin_ladder(variant: str, hands: int, seed: int, workers: int = 1):
    """A cyclic ladder of :data:`TWIN_LINEUP`: its standings by agent, and the twin's
    gap to strategic paired by match (the twin is logged as expert). Cyclic: the
    seating whose luck the null and seating parts measure."""
    from analysis.ladder import gaps
    from analysis.studies.ladder import ladder_tables

    with tempfile.TemporaryDirectory(prefix="mjlog-twin-") as run:
        t, _ = ladder_tables(
            variant, TWIN_LINEUP, hands=hands, seed=seed, workers=workers, out=run, seating="cyclic"
        )
        return t.set_index("agent"), gaps(run, [EXPERT, "strategic"]).iloc[0]


def null_part(variant: str, hands: int, seeds=NULL_SEEDS, big: int = FULL_HANDS) -> str:
    """The ladder's own noise: ``mjlog ladder`` with strategic and its exact twin
    (:data:`TWIN`) in the line-up in place of expert, once per seed at ``hands``
    hands, then once at ``big`` hands. Two identical players differ only by luck
    and seating, so their gap shows how far apart luck alone sets them, and how
    often the paired 95 % interval covers 0 (it should, 95 times in 100)."""
    import numpy as np
    from scipy.stats import binomtest

    from analysis.stats import estimate

    def clear(a) -> float:
        """The lead that sets the twin's interval apart from strategic's: the sum
        of their two half-widths."""
        tw, st = a.loc[EXPERT], a.loc["strategic"]
        return (tw["ci_high"] - tw["ci_low"] + st["ci_high"] - st["ci_low"]) / 2

    t0 = time.process_time()
    diffs, covered, apart, halves = [], 0, 0, []
    for seed in seeds:
        a, g = twin_ladder(variant, hands, seed)
        tw, st = a.loc[EXPERT], a.loc["strategic"]
        diffs.append(g["difference"])
        covered += bool(g["ci_low"] <= 0 <= g["ci_high"])
        apart += bool(tw["ci_low"] > st["ci_high"] or st["ci_low"] > tw["ci_high"])
        halves.append(clear(a))
    k = len(diffs)
    d = estimate(np.array(diffs, float))
    ci = binomtest(covered, k).proportion_ci()
    a, g = twin_ladder(variant, big, SEED)
    need = clear(a)
    cpu = time.process_time() - t0
    return (
        f"| {variant} | {k} × {hands} | {d.value:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}] | "
        f"{np.std(diffs, ddof=1):.3f} | {max(abs(x) for x in diffs):.3f} | "
        f"{covered} of {k} [{ci.low:.2f}, {ci.high:.2f}] | {apart} of {k} | "
        f"{np.mean(halves):.3f} | {big}: {g['difference']:+.3f} "
        f"[{g['ci_low']:+.3f}, {g['ci_high']:+.3f}] | {need:.3f} | {cpu:.0f} |\n"
    )


#: the seeds of the seating comparison (fresh: no other part plays them)
SEATING_SEEDS = range(4000, 4010)


def seating_part(variant: str, hands: int, workers: int, seeds=SEATING_SEEDS) -> str:
    """What the cyclic seating alone is worth: strategic and its exact twin
    (:data:`TWIN`, listed first, so in cyclic seating it always plays just before
    strategic) in one ladder, once per seed. Equal players, so the twin's lead is
    the seating's: the mean over the seeds with its 95 % t interval. (Balanced
    seating plays every assignment of agents to seats, where the lead is exactly 0
    by construction: ``tests/agents/test_agents.py`` checks it.)"""
    import numpy as np

    from analysis.stats import estimate

    t0 = time.perf_counter()  # the workers play: wall clock, not this process's CPU
    lead, above = [], 0
    for seed in seeds:
        _, g = twin_ladder(variant, hands, seed, workers)
        lead.append(g["difference"])
        above += bool(g["ci_low"] > 0)
    c = np.array(lead, float)
    e = estimate(c)
    wall = time.perf_counter() - t0
    return (
        f"| {variant} | {len(c)} × {hands} | {e.value:+.3f} [{e.lo:+.3f}, {e.hi:+.3f}] | "
        f"{np.std(c, ddof=1):.3f} | {above} of {len(c)} | {wall:.0f} |\n"
    )


def expert_run(
    variant: str,
    matches: int,
    out: Path,
    workers: int,
    agents: list[str],
    duplicate: bool = False,
    seed: int = SEED,
) -> float:
    from simulate.runner import RunSpec, simulate

    spec = RunSpec.build(
        variant, seed=seed, matches=matches, hands_per_match=8, agents=agents, duplicate=duplicate
    )
    t0 = time.perf_counter()
    simulate(spec, out, workers=workers, progress=False)
    return time.perf_counter() - t0


def conclusions_part(
    variant: str, matches: int, base: Path, workers: int, seed: int = SEED, agent: str = EXPERT
) -> tuple[dict[str, str], float]:
    """``agent`` in every seat against strategic in every seat on the same walls
    (:func:`conclusions`), and the skill share of each in duplicate line-ups
    (:func:`skill`): the fragments' text by part (``conclusions``, ``skill``, each
    with the seed appended away from the committed one) and the agent run's wall
    seconds.

    At the committed seed strategic's side is the committed sample ``data/V``; at
    another seed (a fresh check of a finding) it is played here on the same
    ``matches`` into ``base``. Runs go to ``base`` under names that carry the seed
    when it is not the committed one, so a rerun resumes them."""
    tag = "" if seed == SEED else str(seed)
    e_dir = base / (f"{variant}-{tag}" if tag else variant)
    s_dir = ROOT / "data" / variant
    if tag:
        s_dir = base / f"strategic{tag}-{variant}"
        expert_run(variant, matches, s_dir, workers, ["strategic"], seed=seed)
    secs = expert_run(variant, matches, e_dir, workers, [agent], seed=seed)
    dup = {p: base / f"skill{tag}-{variant}-{p}" for p in ("strategic", "expert")}
    for p, d in dup.items():
        expert_run(
            variant,
            max(2, matches // 2),
            d,
            workers,
            [agent if p == "expert" else p, "greedy"] * 2,
            duplicate=True,
            seed=seed,
        )
    return {
        f"conclusions{tag}": "\n".join(conclusions(variant, s_dir, e_dir)) + "\n",
        f"skill{tag}": skill(variant, dup) + "\n",
    }, secs


def conclusions(variant: str, strategic: Path, expert: Path) -> list[str]:
    """Markdown rows: metric, strategic, expert, difference [95% CI], p, matches."""
    from analysis.compare import paired_comparison

    t = paired_comparison([strategic, expert])
    keep = t[t["metric"].isin(METRICS) | t["metric"].str.startswith("pattern")]
    return [
        f"| {variant} | {r.metric} | {r.unit} | {r.baseline:.4f} | {r.value:.4f} | "
        f"{r.diff:+.4f} [{r.lo:+.4f}, {r.hi:+.4f}] | {r.p:.3g} | {r.units} |"
        for r in keep.itertuples()
    ]


def skill(variant: str, runs: dict[str, Path]) -> str:
    from analysis.balance import skill_share, skill_share_difference

    s = {k: skill_share(p).iloc[0] for k, p in runs.items()}
    d = skill_share_difference(runs["strategic"], runs["expert"])
    return (
        f"| {variant} | {s['strategic'].skill_share:.3f} [{s['strategic'].skill_share_lo:.3f}, "
        f"{s['strategic'].skill_share_hi:.3f}] | {s['expert'].skill_share:.3f} "
        f"[{s['expert'].skill_share_lo:.3f}, {s['expert'].skill_share_hi:.3f}] | "
        f"{d['diff']:+.3f} [{d['lo']:+.3f}, {d['hi']:+.3f}] | {d['p']:.3g} | "
        f"{int(s['expert'].matches)} |"
    )


#: the specs the calibration sets against the truth, and its samples per decision
CALIBRATED = ("expert:tilt=0", EXPERT)
CAL_SAMPLES = 16


def calibration_part(variant: str, hands: int) -> str:
    """The search's estimate against the truth (:mod:`research.expert_calibration`):
    the fit per spec, then the decisions by kind (kinds seen at least 5 times)."""
    from research.expert_calibration import calibrate, summarize

    t0 = time.process_time()
    rows = calibrate(variant, hands=hands, samples=CAL_SAMPLES, specs=CALIBRATED, seed=SEED)
    cpu = time.process_time() - t0
    summ = summarize(rows)
    out = [
        f"| {variant} | `{s['spec']}` | {s['pairs']} | {s['slope']:+.2f} ± {s['slope_se']:.2f} "
        f"| {s['reliability']:.2f} | {s['corrected']:+.2f} | {s['r']:+.3f} | {hands} "
        f"| {cpu:.0f} |"
        for s in summ
    ]
    kinds = summ[0]["kinds"]
    lines = [
        f"| {variant} | {k} | {v['n']} | {v['truth']:+.2f} [{v['truth'] - v['half']:+.2f}, "
        f"{v['truth'] + v['half']:+.2f}] | "
        + " | ".join(f"{s['kinds'][k]['estimate']:+.2f}" for s in summ)
        + " |"
        for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]["n"])
        if v["n"] >= 5
    ]
    return "\n".join(out) + "\n", "\n".join(lines) + "\n"


#: the search settings (rollouts, most, z) priced offline, on one calibration of
#: BUDGET_SAMPLES samples a decision
BUDGETS = (
    (8, 8, 2.0),
    (16, 16, 2.0),
    (32, 32, 2.0),
    (64, 64, 2.0),
    (8, 32, 2.0),
    (16, 64, 2.0),
    (32, 32, 3.0),
)
BUDGET_SAMPLES = 64


def budget_part(variant: str, hands: int, first: int, spec: str = EXPERT) -> str:
    """Each budget's edge over strategic, priced on one calibration
    (:func:`research.expert_calibration.budget`) of ``spec``: its parameters
    other than the budget's choose the decisions searched and their candidates."""
    from research.expert_calibration import budget, calibrate

    t0 = time.process_time()
    rows = calibrate(
        variant, hands=hands, samples=BUDGET_SAMPLES, specs=(spec,), seed=SEED, first=first
    )
    cpu = time.process_time() - t0
    extra = spec.partition(":")[2] + ";" if ":" in spec else ""
    return "".join(
        f"| {variant} | {first}–{first + hands - 1} | "
        f"`{extra}rollouts={b['rollouts']};most={b['most']};z={b['z']:g}` | "
        f"{b['samples']:.1f} | {b['overrules']} of {b['decisions']} | "
        f"{b['first']:+.3f} [{b['first_lo']:+.3f}, {b['first_hi']:+.3f}] | "
        f"{b['total']:+.3f} [{b['total_lo']:+.3f}, {b['total_hi']:+.3f}] | {cpu:.0f} |\n"
        for b in budget(rows, range(first, first + hands), BUDGETS)
    )


def ab_rows(variant: str, hands: int, agents=AB_AGENTS) -> list[str]:
    """Markdown rows of the paired seat-swap A/B (:func:`research.expert_ab.paired_edge`)."""
    from research.expert_ab import paired_edge

    rows = []
    for a in agents:
        r = paired_edge(variant, a, hands=hands, seed=SEED)
        rows.append(
            f"| {variant} | `{a}` | {r['hands']} | {r['diff']:+.3f} "
            f"[{r['lo']:+.3f}, {r['hi']:+.3f}] | {r['p']:.3g} | "
            f"{r['overruled']} of {r['searched']} | "
            f"{r['sampled'] / max(1, r['searched']):.1f} | {r['cpu_s']:.0f} |"
        )
    return rows


def ceiling_part(variant: str, hands: int, twin: str = "seeing") -> str:
    """A markdown row: expert's edge over strategic, its twin's (``seeing``: every
    other hand; ``ready``: the ready seats' only) and the gap between them, on the
    same hands (:func:`research.expert_calibration.ceiling`)."""
    from research.expert_calibration import ceiling

    t0 = time.process_time()
    r = ceiling(variant, hands=hands, seed=SEED, first=CEILING_FIRST, twin=twin)
    return _pair_row(
        variant,
        f"{CEILING_FIRST}–{CEILING_FIRST + hands - 1}",
        r["agent"],
        r["seeing"],
        r["gap"],
        time.process_time() - t0,
    )


def _pair_row(variant: str, span: str, a: dict, b: dict, gap: dict, cpu: float) -> str:
    """Two agents' A/B on the same hands and their gap, as one markdown row."""

    def ci(d) -> str:
        return f"{d['diff']:+.3f} [{d['lo']:+.3f}, {d['hi']:+.3f}]"

    return (
        f"| {variant} | {span} | {ci(a)} | {ci(b)} | {ci(gap)} "
        f"| {a['overruled']} of {a['searched']} | {b['overruled']} of {b['searched']} "
        f"| {cpu:.0f} |\n"
    )


#: the ceiling's first hand: past the A/B's and the calibration's hands
CEILING_FIRST = 5000


def reading_part(variant: str, hands: int) -> str:
    """A markdown row: ``expert:reading=1``'s edge over strategic, expert's and the
    gap between them, on the same hands (:func:`research.expert_ab.head_to_head`;
    hands 0 … of seed READING_SEED, which no other part plays)."""
    from research.expert_ab import head_to_head

    t0 = time.process_time()
    r = head_to_head(variant, READ_SPEC, EXPERT, hands=hands, seed=READING_SEED)
    return _pair_row(
        variant, f"0–{hands - 1}", r["agent"], r["other"], r["gap"], time.process_time() - t0
    )


#: the reading part's agent and its hands' seed (the reading was learned at 9001)
READ_SPEC, READING_SEED = "expert:reading=1", 3300

#: the parts, in the section's order; each variant's text of a part is kept in
#: FRAGMENTS so that parts and variants can be run apart (one at a time on a shared
#: machine) and the section assembled from them
PARTS = (
    "speed",
    "ab",
    "ceiling",
    "ready",
    "reading",
    "calibration",
    "budget",
    "ladder",
    "null",
    "seating",
    "conclusions",
)
FRAGMENTS = ROOT / "build" / "expert_study"


def budget_fragment(first: int, spec: str) -> str:
    """The budget part's fragment name: ``budget{first}``, and the spec's parameters
    (letters, digits, ``=`` and ``.``) when it is not plain ``expert``.

    >>> budget_fragment(1000, "expert"), budget_fragment(1000, "expert:shanten=2")
    ('budget1000', 'budget1000_shanten=2')
    """
    if spec == EXPERT:
        return f"budget{first}"
    return f"budget{first}_" + re.sub(r"[^A-Za-z0-9=.]+", "_", spec.partition(":")[2])


def _search_parts(
    v: str,
    parts,
    put,
    figures: dict,
    speed_hands: int,
    ab_hands: int,
    cal_hands: int,
    cal_first: int,
    budget_spec: str,
) -> None:
    """The parts of :func:`run` that price expert's search (speed to budget)."""
    if "speed" in parts:
        sp = speed(v, speed_hands)
        figures[f"speed/{v}"] = sp
        put(
            "speed",
            v,
            f"| {v} | {sp['hands']} | {sp['hands_per_s']:.2f} | "
            f"{sp['hands_per_cpu_s']:.2f} | {sp['searched_per_hand']:.1f} | "
            f"{sp['overruled_per_hand']:.2f} |\n",
        )
    if "ab" in parts:
        put("ab", v, "\n".join(ab_rows(v, ab_hands)) + "\n")
    if "ceiling" in parts:
        put("ceiling", v, ceiling_part(v, ab_hands))
    if "ready" in parts:
        put("ready", v, ceiling_part(v, ab_hands, twin="ready"))
    if "reading" in parts:
        put("reading", v, reading_part(v, ab_hands))
    if "calibration" in parts:
        fit, kinds = calibration_part(v, cal_hands)
        put("calfit", v, fit)
        put("calkinds", v, kinds)
    if "budget" in parts:
        put(
            budget_fragment(cal_first, budget_spec),
            v,
            budget_part(v, cal_hands, cal_first, budget_spec),
        )


def _play_parts(
    v: str,
    parts,
    put,
    figures: dict,
    quick: bool,
    hands: int,
    matches: int,
    workers: int,
    seed: int,
    seating: str,
    keep: Path | None,
    base: Path,
) -> None:
    """The parts of :func:`run` that play ladders and runs (ladder to conclusions)."""
    if "ladder" in parts:
        text, fig = ladder_part(
            v, hands, workers, seed, seating, keep and base / f"ladder{seed}-{seating}-{v}"
        )
        figures[f"ladder/{v}"] = fig
        put(f"ladder{seed}{'' if seating == 'cyclic' else 'b'}", v, text)
    if "null" in parts:
        put(
            "null",
            v,
            null_part(
                v,
                hands,
                NULL_SEEDS[:2] if quick else NULL_SEEDS,
                hands if quick else FULL_HANDS,
            ),
        )
    if "seating" in parts:
        put(
            "seatbias",
            v,
            seating_part(v, hands, workers, SEATING_SEEDS[:2] if quick else SEATING_SEEDS),
        )
    if "conclusions" in parts:
        frags, figures[f"run/{v}"] = conclusions_part(v, matches, base, workers, seed)
        for part, text in frags.items():
            put(part, v, text)


def run(
    quick: bool = False,
    variants=VARIANTS,
    hands: int | None = None,
    matches: int | None = None,
    workers: int = 1,
    speed_hands: int | None = None,
    keep: Path | None = None,
    parts=PARTS,
    ab_hands: int | None = None,
    cal_hands: int | None = None,
    cal_first: int = 0,
    seed: int = SEED,
    seating: str = DEFAULT_SEATING,
    budget_spec: str = EXPERT,
) -> dict:
    hands = hands or (32 if quick else FULL_HANDS)
    matches = matches or (1 if quick else 25)
    speed_hands = speed_hands or (3 if quick else 20)
    ab_hands = ab_hands or (2 if quick else 200)
    cal_hands = cal_hands or (1 if quick else 200)
    figures: dict = {}
    FRAGMENTS.mkdir(parents=True, exist_ok=True)

    def put(part: str, v: str, text: str) -> None:
        if not quick:
            (FRAGMENTS / f"{part}-{v}.md").write_text(text)
        got.setdefault(part, {})[v] = text

    got: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(keep) if keep else Path(tmp)
        for v in variants:
            _search_parts(
                v, parts, put, figures, speed_hands, ab_hands, cal_hands, cal_first, budget_spec
            )
            _play_parts(
                v, parts, put, figures, quick, hands, matches, workers, seed, seating, keep, base
            )
    if not quick:  # the section from every variant's latest fragment of each part
        for f in sorted(FRAGMENTS.glob("*.md")):
            part, v = f.stem.split("-", 1)
            got.setdefault(part, {}).setdefault(v, f.read_text())

    def joined(part: str) -> str:
        texts = got.get(part, {})
        return "".join(texts[v] for v in VARIANTS if v in texts) or "(not run)\n"

    section = (
        "## Expert agent: search over strategic (issue 21)\n\n"
        "`expert` = strategic's pick, replaced by another candidate when determinized "
        "rollouts (hidden tiles sampled from what the seat sees, the hand rebuilt with the "
        "engine's transition and played out) show it better by `z` standard errors of the "
        f"paired difference; the budget here `{EXPERT}` ({EXPERT_PARAMS}). "
        "`python research/expert_study.py [--parts ...] [variant ...]`, each part and variant "
        "run apart on the shared machine and assembled.\n\n"
        "### Speed: one expert seat, three strategic, one core\n\n"
        "| variant | hands | hands/s (wall) | hands/s (CPU) | searched decisions/hand "
        "| overruled/hand |\n|---|---|---|---|---|---|\n" + joined("speed") + "\n"
        "### Paired A/B: expert in one seat against strategic in that seat\n\n"
        "`research.expert_ab.paired_edge`: each hand (its own match, seed "
        f"{SEED}) played with strategic in every seat and once more per seat with the agent "
        "in that seat, the other three strategic: the same walls and streams, so a hand "
        "where the agent plays as strategic adds exactly 0. Edge = the agent's points less "
        "strategic's in the same seat, points per seat-hand, 95 % t interval with the hand "
        "(all seats rotated) as the unit.\n\n"
        "| variant | agent | hands | edge, points/seat-hand [95% CI] | p | overruled of "
        "searched decisions | samples/searched decision | CPU s |\n"
        "|---|---|---|---|---|---|---|---|\n" + joined("ab") + "\n"
        "### The ceiling: the search given the real hands\n\n"
        "`research.expert_calibration.ceiling`: the same A/B (hands from "
        f"{CEILING_FIRST} on, `--ab-hands` of them) for `{EXPERT}` and for its seeing twin, "
        "the same search whose samples hold the other seats' real concealed tiles (only the "
        "undrawn wall's order is unknown to it: a measuring tool, no agent); the gap is the "
        "twin's edge less the agent's, hand by hand. It bounds what a better reading of the "
        "other seats could add to this search, rollouts and candidates unchanged.\n\n"
        "| variant | hands | expert's edge [95% CI] | seeing twin's edge [95% CI] "
        "| gap [95% CI] | expert overruled of searched | twin overruled of searched "
        "| CPU s |\n|---|---|---|---|---|---|---|---|\n" + joined("ceiling") + "\n"
        "### The ceiling, the ready seats only\n\n"
        "The ceiling's A/B again, its twin knowing only the real concealed hands of the "
        "other seats that are ready (`research.expert_calibration.ReadySeeing`: pinned in "
        "every sample, the other hidden tiles drawn and tilted as expert draws them; a "
        "measuring tool).\n\n"
        "| variant | hands | expert's edge [95% CI] | ready twin's edge [95% CI] "
        "| gap [95% CI] | expert overruled of searched | twin overruled of searched "
        "| CPU s |\n|---|---|---|---|---|---|---|---|\n" + joined("ready") + "\n"
        "### A learned reading of the hidden hands\n\n"
        f"`research.expert_ab.head_to_head`: the same A/B for `{READ_SPEC}` (samples tilted "
        "by the reading `simulate.agents.reading` learned from all-strategic hands: the odds that "
        "each hidden copy of a tile lies in a given seat's hand) and for "
        f"`{EXPERT}`, on the same hands (seed {READING_SEED}, `--ab-hands` of them); the gap "
        "is the reading's edge less expert's, hand by hand.\n\n"
        "| variant | hands | reading's edge [95% CI] | expert's edge [95% CI] | gap [95% CI] "
        "| reading overruled of searched | expert overruled of searched | CPU s |\n"
        "|---|---|---|---|---|---|---|---|\n" + joined("reading") + "\n"
        "### Calibration: the search's estimate against the truth\n\n"
        "`research.expert_calibration.calibrate`: seat 0 plays strategic at a strategic table "
        f"(hands 0 … H−1, each its own match, seed {SEED}); at every decision the search would "
        "take, each alternative's lead over strategic's pick is estimated by the search "
        f"({CAL_SAMPLES} samples) and measured on the real hidden tiles with the table's own "
        "agents playing on (the truth: one world per decision, unbiased over many). The slope "
        "of truth on estimate (`scipy.stats.linregress`, ± its standard error): 1 is an "
        "estimate to trust, 0 is noise. Noise alone flattens it to the estimate's reliability "
        "(the share of the estimates' spread that is not sampling noise, 1 − mean se² / "
        "variance): the slope over the reliability (corrected) near 1 is an unbiased estimate, "
        "however noisy; well below 1, a biased one.\n\n"
        "| variant | spec | alternatives | slope | reliability | corrected slope | r | hands "
        "| CPU s |\n|---|---|---|---|---|---|---|---|---|\n" + joined("calfit") + "\n"
        "By kind of decision (pick→alternative), points of the alternative less the pick: the "
        "truth's mean with its 95 % interval (the hand as the unit, since one hand's decisions "
        "share its real tiles), and each spec's mean estimate (in the order above). The "
        "slopes' ± take the decisions as independent, so they are too narrow:\n\n"
        "| variant | kind | n | truth [95% CI] | "
        + " | ".join(f"`{c}`" for c in CALIBRATED)
        + " |\n|---|---|---|---|"
        + "---|" * len(CALIBRATED)
        + "\n"
        + joined("calkinds")
        + "\n"
        "### Budget: what more samples would gain, priced offline\n\n"
        "`research.expert_calibration.budget`: one calibration with "
        f"{BUDGET_SAMPLES} samples a decision (`--parts budget`, hands `--cal-first` … on), "
        "each setting's choice made from its share of the samples by the agent's own rule "
        "(`simulate.agents.expert.decide`; held to the agent's search by a test). Edge over "
        "strategic in points per seat-hand, 95 % t interval with the hand as the unit: "
        "*first overrule* is exactly what a search that stops at its first overrule would "
        "have gained on these walls; *all overrules* adds the later ones' truths, an "
        "approximation.\n\n"
        "| variant | hands | setting | samples/decision | overrules of decisions "
        "| edge, first overrule [95% CI] | edge, all overrules [95% CI] | CPU s |\n"
        "|---|---|---|---|---|---|---|---|\n"
        + "".join(joined(p) for p in sorted(got) if p.startswith("budget"))
        + "\n"
        "### Duplicate ladder\n\n"
        + "".join(joined(p) for p in sorted(got) if p.startswith("ladder"))
        + "\n"
        f"The full run: `mjlog ladder --variant V --agents {','.join(LINEUP)} --hands "
        f"{FULL_HANDS} --seed {SEED} --seating {DEFAULT_SEATING}` for each variant.\n\n"
        "#### The ladder's own noise: strategic against its twin\n\n"
        f"`--parts null`: the ladder with `{TWIN}` (expert with no samples plays "
        "strategic's choices exactly) in expert's seat, "
        f"`mjlog ladder --variant V --agents {','.join(TWIN_LINEUP)} --hands N --seed S "
        "--seating cyclic`, "
        f"at seeds {NULL_SEEDS.start} … {NULL_SEEDS.stop - 1}, then once at {FULL_HANDS} hands "
        f"(seed {SEED}). The twin's lead over strategic, points per hand: what luck and "
        "seating alone give two equal players. The mean over the seeds with its 95 % t "
        "interval, their spread (SD) and the largest; how many paired 95 % intervals cover "
        "0 (Clopper–Pearson interval); how many ladders set the two agents' own "
        "intervals apart; the mean of their two half-widths, the lead a player must "
        "show for its interval to clear the other's. The last columns: the one big "
        "ladder's gap and the lead it would take there.\n\n"
        "| variant | ladders × hands | twin − strategic, mean [95% CI] | SD | largest "
        "| paired intervals covering 0 | own intervals apart | lead to clear | "
        "big ladder: hands, twin − strategic [95% CI] | lead to clear there | CPU s |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n" + joined("null") + "\n"
        "#### What the cyclic seating is worth\n\n"
        f"`--parts seating`: `mjlog ladder --agents {','.join(TWIN_LINEUP)} --seating "
        f"cyclic`, once per seed ({SEATING_SEEDS.start} … {SEATING_SEEDS.stop - 1}). The "
        "twin always plays just before strategic, and plays as strategic does, so its lead "
        "(points per hand, paired by match) is the seating's: the mean over the seeds with "
        "its 95 % t interval, their SD, and how many ladders' paired intervals lie above 0. "
        "Balanced seating plays every assignment of the agents to the seats, so there two "
        "agents that play alike finish exactly level (`tests/agents/test_agents.py`).\n\n"
        "| variant | ladders × hands | twin − strategic [95% CI] | SD | "
        "paired intervals above 0 | wall s |\n"
        "|---|---|---|---|---|---|\n" + joined("seatbias") + "\n"
        "### Conclusions under stronger play\n\n"
        f"`expert` in every seat (`mjlog simulate --variant V --agents {EXPERT} --matches "
        f"M --hands-per-match 8 --seed {SEED}`, M = `--matches`; the last column counts "
        "them) against `strategic` in every seat "
        "on the same walls (`data/V`, the committed sample of 375 matches; matches paired "
        "by seed), "
        "`mjlog compare data/V EXPERT_RUN`: difference expert − strategic with its 95% CI "
        "(match pairs as the unit).\n\n"
        "| variant | metric | unit | strategic | expert | difference [95% CI] | p | matches |\n"
        "|---|---|---|---|---|---|---|---|\n" + joined("conclusions") + "\n"
        "Skill share (ω², the share of a seat's match-total variance the agent explains) of "
        "duplicate line-ups `P,greedy,P,greedy` in matches of 8 hands (the share grows with "
        "match length), P = strategic against P = expert (bootstrap "
        "95% CIs over matches; the difference's resamples a match with its twin on the "
        "same walls):\n\n"
        "| variant | strategic | expert | difference [95% CI] | p | matches |\n"
        "|---|---|---|---|---|---|\n"
        + joined("skill")
        + "".join(
            f"\nAt seed {s} (`--parts conclusions --seed {s}`), strategic played in "
            "every seat on the same walls here, not the committed sample:\n\n"
            "| variant | metric | unit | strategic | expert | difference [95% CI] | p | matches |\n"
            "|---|---|---|---|---|---|---|---|\n" + joined(f"conclusions{s}") + "\n"
            "| variant | strategic | expert | difference [95% CI] | p | matches |\n"
            "|---|---|---|---|---|---|\n" + joined(f"skill{s}")
            for s in sorted(
                p.removeprefix("conclusions") for p in got if re.fullmatch(r"conclusions\d+", p)
            )
        )
    )
    return {"section": section, "figures": figures}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("variants", nargs="*", default=list(VARIANTS))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--hands", type=int, default=None)
    ap.add_argument("--matches", type=int, default=None)
    ap.add_argument("--speed-hands", type=int, default=None)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--keep", type=Path, default=None, help="keep the runs under this folder")
    ap.add_argument(
        "--parts",
        default=",".join(PARTS),
        help=f"comma-separated parts to run ({', '.join(PARTS)}); the others are "
        "taken from earlier runs' fragments (build/expert_study/)",
    )
    ap.add_argument("--ab-hands", type=int, default=None)
    ap.add_argument(
        "--cal-hands",
        type=int,
        default=None,
        help="hands of the calibration and the budget per variant (default 200)",
    )
    ap.add_argument(
        "--seed",
        type=int,
        default=SEED,
        help="the ladder's and the conclusions' seed (a fresh one checks a finding; "
        "away from the committed seed the conclusions play strategic's side "
        "themselves)",
    )
    ap.add_argument(
        "--seating",
        choices=SEATINGS,
        default=DEFAULT_SEATING,
        help="the ladder's seating (simulate.seating.seatings)",
    )
    ap.add_argument(
        "--cal-first",
        type=int,
        default=0,
        help="the budget's first hand (a fresh range checks a setting it picked)",
    )
    ap.add_argument(
        "--budget-spec",
        default=EXPERT,
        help="the expert whose searched decisions the budget prices, e.g. "
        "expert:shanten=2 (default: expert)",
    )
    a = ap.parse_args()
    from simulate.agents import make_agent
    from simulate.agents.expert import ExpertAgent

    try:
        if not isinstance(make_agent(a.budget_spec), ExpertAgent):
            ap.error(f"--budget-spec {a.budget_spec!r}: not an expert agent")
    except ValueError as e:
        ap.error(f"--budget-spec: {e}")
    print(
        run(
            a.quick,
            a.variants,
            a.hands,
            a.matches,
            a.workers,
            a.speed_hands,
            a.keep,
            [p for p in a.parts.split(",") if p],
            a.ab_hands,
            a.cal_hands,
            a.cal_first,
            a.seed,
            a.seating,
            a.budget_spec,
        )["section"]
    )
