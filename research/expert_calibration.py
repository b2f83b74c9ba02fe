"""How well ``expert``'s search sees: its estimate of each alternative's lead over
strategic's pick, set against the truth.

Seat 0 plays strategic at a table of strategic players. At each decision where
``expert`` would search, every candidate is played out twice over:

- the *estimate*: the search's own playouts (:meth:`ExpertAgent.playouts`), on
  hidden tiles sampled from what the seat sees, with its rollout players; the
  alternative's mean points less the pick's, over ``samples`` samples;
- the *truth*: the candidate played on the real hidden tiles by the table's own
  agents (copies of them, their streams where they stand), seat 0 going on as
  strategic (or, for a plan of ``plans=1``, held to that plan). One world, so
  one draw of the value the search wants; unbiased over many decisions.

Regressing the truth on the estimate gives the estimate's calibration: a slope
near 1 is an estimate the search may trust; a slope near 0, noise; the means by
kind of decision show where the estimate is biased (e.g. passing a win looks
good when the other seats are sampled far from ready). The measuring tool uses
the real hidden tiles; the agent never does.

:func:`ceiling` asks the other question: what the search would gain if its
samples were right. :class:`Seeing` is the search given the other seats' real
concealed tiles (only the order of the wall still unknown to it); its edge over
strategic, beside the agent's own on the same hands, bounds what a better
reading of the other seats could add.

>>> rows = calibrate("yuxi", hands=1, samples=2, specs=("expert",), first=3)
>>> sorted(rows[0]) == sorted(ROW_KEYS)
True
>>> summarize(rows)[0]["spec"]
'expert'
"""

from __future__ import annotations

import copy
import math

from mjlog.engine import play, play_hand
from mjlog.hand import shanten
from mjlog.rng import derive
from mjlog.rules import Rules
from mjlog.sampling import Inconsistent, rebuild, sample_hidden, tilt_hidden
from simulate.agents import make_agent, make_agents, parse_spec
from simulate.agents.expert import ExpertAgent, _lead, decide
from simulate.agents.rollouts import Committed, _Then

ROW_KEYS = (
    "variant",
    "hand",
    "decision",
    "kind",
    "truth",
    "pick_points",
    "estimate",
    "estimate_se",
    "leads",
)
#: the stream tag of the calibration's samples
_CALIBRATE = 0xCA11B


class _Probe:
    """Seat 0: plays strategic (the first spec's base) and, at a decision the search
    would take, measures every spec's estimate and the truth."""

    name, params = "strategic", {}

    def __init__(self, specs, samples: int, table: list, out: list, variant: str, hand: int):
        self.experts = [make_agent(s) for s in specs]
        if not all(isinstance(e, ExpertAgent) for e in self.experts):
            raise ValueError("calibrate: every spec must be an expert agent")
        self.specs, self.samples, self.table, self.out = specs, samples, table, out
        self.variant, self.hand, self.k = variant, hand, 0

    def start_hand(self, seat, rng) -> None:
        for e in self.experts:
            e.start_hand(seat, copy.copy(rng))
        self.k = 0

    def choose(self, view, options):
        lead = self.experts[0]
        pick = lead.base.choose(view, options)
        for e in self.experts[1:]:  # their strategic streams kept in step
            e.base.choose(view, options)
        self.k += 1
        # (choice, how seat 0 goes on): its strategic, or a plan it is held to
        cands = [(c, None) for c in lead.candidates(view, options, pick)]
        cands += lead.other_plans(view, options, pick)
        if len(cands) < 2:
            return pick
        after = copy.deepcopy(lead.base)  # where the real seat 0 goes on from
        truth = [self._truth(view, after, c, then) for c, then in cands]
        est = [
            e.playouts(
                view,
                [(c, then or e.params["own"]) for c, then in cands],
                derive(_CALIBRATE, self.hand, self.k),
                0,
                self.samples,
            )
            for e in self.experts
        ]
        for j in range(1, len(cands)):
            c, then = cands[j]
            kind = f"{_name(pick)}→{then or _name(c)}"
            fit = {s: _lead_of(p[j], p[0]) for s, p in zip(self.specs, est, strict=True)}
            self.out.append(
                {
                    "variant": self.variant,
                    "hand": self.hand,
                    "decision": self.k,
                    "kind": kind,
                    "truth": truth[j] - truth[0],
                    "pick_points": truth[0],
                    "estimate": {s: f[0] for s, f in fit.items()},
                    "estimate_se": {s: f[1] for s, f in fit.items()},
                    "leads": {
                        s: [a - b for a, b in zip(p[j], p[0], strict=True)]
                        for s, p in zip(self.specs, est, strict=True)
                    },
                }
            )
        return pick

    def _truth(self, view, after, c, then: str | None = None) -> int:
        """Seat 0's points with ``c`` played on the real tiles, the table's agents on,
        seat 0 going on as strategic from ``after`` (its state past the real pick),
        or held to the plan ``then`` (``plan:…``,
        :class:`simulate.agents.rollouts.Committed`) from there."""
        st = copy.deepcopy(view._s)  # the real hidden tiles: the tool's, never the agent's
        agents = [copy.deepcopy(a) for a in self.table]
        on = copy.deepcopy(after)
        if then is not None:
            held = Committed(then.removeprefix("plan:"))
            held.start_hand(on.seat, on.rng)
            on = held
        agents[view.seat] = _Then(on, c)
        play(st, agents)
        return st.deltas[view.seat]


def _name(ev) -> str:
    return "pass" if ev is None else ev.type


def _lead_of(alt: list[int], pick: list[int]) -> tuple[float | None, float | None]:
    """The search's own mean and standard error of ``alt`` less ``pick``
    (:func:`simulate.agents.expert._lead`); None, None with fewer than two samples."""
    return _lead(alt, pick) if min(len(alt), len(pick)) >= 2 else (None, None)


def calibrate(
    variant: str,
    hands: int = 40,
    samples: int = 16,
    specs=("expert",),
    seed: int = 2026,
    first: int = 0,
    rules: dict | None = None,
) -> list[dict]:
    """One row per alternative at every searched decision of seat 0 in hands
    ``first`` … ``first + hands − 1`` (each its own match, as
    :func:`research.expert_ab.paired_edge`): ``kind`` (pick→alternative),
    ``truth`` (alternative less pick, points, on the real tiles), ``pick_points``
    (the pick's, which are the hand's own: the table goes on as it did) and ``estimate``
    (spec → the search's mean lead over ``samples`` samples, None if fewer than two
    replayed) with ``estimate_se`` (its standard error over the samples) and
    ``leads`` (spec → the lead on each sample, for :func:`budget`)."""
    r = Rules(variant, rules or {})
    out: list[dict] = []
    for h in range(first, first + hands):
        table = make_agents(["strategic"] * r.n)
        table[0] = _Probe(tuple(specs), samples, table, out, variant, h)
        play_hand(r, table, seed=seed, match=h, hand=0, dealer=h % r.n)
    return out


def summarize(rows: list[dict]) -> list[dict]:
    """Per spec: the slope of truth on estimate (with its standard error) and
    their correlation (:func:`scipy.stats.linregress`), over the rows with an
    estimate; the estimate's *reliability*, the share of its spread that is not
    sampling noise (1 − mean se² / variance of the estimates), and the slope
    divided by it (``corrected``): noise alone flattens the slope to the
    reliability, so a corrected slope near 1 is an unbiased estimate however
    noisy, one well below 1 a biased one; and per kind of decision, the mean
    truth with its 95 % interval (the hand as the unit: its decisions share the
    real tiles; :func:`analysis.stats.estimate`) beside the mean estimate. The
    slope's standard error is linregress's, which takes the rows as independent.

    >>> rows = [{"hand": h, "kind": "a→b", "truth": t, "estimate": {"e": x},
    ...          "estimate_se": {"e": 0.1}} for h, t, x in
    ...         [(0, 1, 0.5), (0, 1, 0.7), (1, -1, -0.2), (2, 0, 0.1)]]
    >>> k = summarize(rows)[0]["kinds"]["a→b"]
    >>> k["n"], k["hands"], k["truth"]
    (4, 3, 0.25)
    """
    from scipy import stats

    from analysis.stats import estimate

    specs = list(rows[0]["estimate"]) if rows else []
    out = []
    for s in specs:
        got = [
            (r["estimate"][s], r["truth"], r["kind"], r["estimate_se"][s], r["hand"])
            for r in rows
            if r["estimate"][s] is not None
        ]
        x = [g[0] for g in got]
        y = [g[1] for g in got]
        fit = stats.linregress(x, y) if len(set(x)) > 1 else None
        spread = stats.tvar(x) if len(set(x)) > 1 else math.nan
        reliability = 1 - sum(g[3] ** 2 for g in got) / len(got) / spread if got else math.nan
        kinds = {}
        for k in sorted({g[2] for g in got}):
            te = [g[0] for g in got if g[2] == k]
            # the decisions of one hand share its real tiles and its table: the
            # hand is the unit (the truths' sum and count per hand, as a ratio)
            per_hand: dict[int, list[int]] = {}
            for g in got:
                if g[2] == k:
                    per_hand.setdefault(g[4], []).append(g[1])
            e = estimate([sum(v) for v in per_hand.values()], [len(v) for v in per_hand.values()])
            kinds[k] = {
                "n": len(te),
                "hands": e.units,
                "truth": e.value,
                "half": (e.hi - e.lo) / 2,
                "estimate": sum(te) / len(te),
            }
        out.append(
            {
                "spec": s,
                "pairs": len(got),
                "slope": fit.slope if fit else math.nan,
                "slope_se": fit.stderr if fit else math.nan,
                "r": fit.rvalue if fit else math.nan,
                "reliability": reliability,
                "corrected": (fit.slope / reliability if fit and reliability > 0 else math.nan),
                "kinds": kinds,
            }
        )
    return out


def budget(rows: list[dict], hands, settings, spec: str | None = None) -> list[dict]:
    """What each search setting (``rollouts``, ``most``, ``z``) would have gained
    over strategic in the calibrated ``hands`` (their numbers; a hand without a
    searched decision gains 0), priced from one calibration's per-sample leads
    (:func:`calibrate` with ``samples`` ≥ every ``most``) by the agent's own rule
    (:func:`simulate.agents.expert.decide`).

    Per setting: ``overrules``, mean ``samples`` drawn per decision, and the
    edge in points per seat-hand with its 95 % t interval over the hands:
    ``first``, the truth of the hand's first overrule, is exactly what an agent
    that searches until it first overrules and then plays strategic would have
    gained on these walls (the truth is that alternative played out by the table);
    ``total`` adds the later overrules' truths, measured where strategic's pick
    had been played before them, so it only approximates the full agent.

    >>> rows = [{"hand": 0, "decision": 1, "truth": 3, "leads": {"e": [1, 2, 1, 2]}},
    ...         {"hand": 1, "decision": 1, "truth": -1, "leads": {"e": [-1, 2, 1, 2]}}]
    >>> b = budget(rows, hands=[0, 1], settings=[(4, 4, 2.0)], spec="e")[0]
    >>> b["overrules"], b["first"], b["samples"]
    (1, 1.5, 4.0)
    """
    from analysis.stats import estimate

    if spec is None and rows:
        spec = next(iter(rows[0]["leads"]))
    hands = list(hands)
    decisions: dict[tuple[int, int], list[dict]] = {}
    for r in rows:  # one row per alternative, in their order at the decision
        decisions.setdefault((r["hand"], r["decision"]), []).append(r)

    out = []
    for rollouts, most, z in settings:
        first: dict[int, int] = {}  # hand → the truth of its first overrule
        total = dict.fromkeys(hands, 0.0)
        overrules = drawn = 0
        for (h, _), alts in sorted(decisions.items()):
            leads = [[0] * len(alts[0]["leads"][spec])] + [a["leads"][spec] for a in alts]
            j, n = decide(leads, rollouts, most, z)
            drawn += n
            if not j:
                continue
            overrules += 1
            total[h] += alts[j - 1]["truth"]
            first.setdefault(h, alts[j - 1]["truth"])
        f = estimate([first.get(h, 0.0) for h in hands])
        t = estimate([total[h] for h in hands])
        out.append(
            {
                "rollouts": rollouts,
                "most": most,
                "z": z,
                "hands": len(hands),
                "decisions": len(decisions),
                "overrules": overrules,
                "samples": drawn / max(1, len(decisions)),
                "first": f.value,
                "first_lo": f.lo,
                "first_hi": f.hi,
                "total": t.value,
                "total_lo": t.lo,
                "total_hi": t.hi,
            }
        )
    return out


class Seeing(ExpertAgent):
    """``expert``'s search, its samples drawn with the other seats' real concealed
    tiles: only the undrawn wall is shuffled, so it knows every hand and which
    tiles are left, not their order. A measuring tool (:func:`ceiling`) that reads
    the true state, which no agent may: it is registered under no name."""

    def sample(self, view, history, rng):
        st = view._s  # the real hidden tiles: the tool's, never the agent's
        wall = list(st.wall)
        undrawn = wall[st.front : st.back + 1]
        rng.shuffle(undrawn)
        wall[st.front : st.back + 1] = undrawn
        return wall, rebuild(view, history, wall)


class ReadySeeing(ExpertAgent):
    """``expert``'s search, its samples holding the real concealed hands of the
    other seats that are ready (and so their waits), every other hidden tile
    drawn as ``expert`` draws it. A measuring tool that reads the true state:
    what a perfect reading of the ready seats alone would give the search."""

    def pinned(self, view):
        """The ready seats' real concealed hands (seat → its 34 counts), or None."""
        st = view._s  # the real hands: the tool's, never the agent's
        return {
            s: list(st.hands[s])
            for s in range(view.n)
            if s != view.seat and not view.won[s] and shanten(st.hands[s], len(view.melds[s])) == 0
        } or None

    def sample(self, view, history, rng):
        ready = self.pinned(view)
        for _ in range(self.params["tries"]):
            try:
                wall = pinned_wall(
                    view, history, rng, ready, self.params["tilt"], self.params["steps"], self.lean
                )
                return wall, rebuild(view, history, wall, self.read)
            except Inconsistent:
                continue
        return None


def pinned_wall(view, history, rng, pinned, tilt=0.0, steps=0, lean=None):
    """:func:`mjlog.sampling.sample_wall`, the seats of ``pinned`` (seat → the 34
    counts of its concealed hand) given exactly those tiles, by swaps with the
    other hidden positions, and left be by the tilt. The draws of the rng are
    :func:`~mjlog.sampling.sample_wall`'s: with nothing pinned, its wall."""
    hidden = sample_hidden(view, history, rng)
    if pinned:
        hidden.unknown = _pin(
            hidden.wall, hidden.held, hidden.unknown, pinned, view.rules.spec.bonus_tile
        )
        hidden.held = [[] if s in pinned else h for s, h in enumerate(hidden.held)]
    if (tilt > 0 or lean) and steps:
        tilt_hidden(view, hidden, rng, tilt, steps, lean)
    return hidden.wall


def _pin(
    wall: list[int],
    held: list[list[int]],
    unknown: list[int],
    pinned: dict[int, list[int]],
    bonus: int | None,
) -> list[int]:
    """Swap hidden tiles so that each pinned seat holds exactly its given counts;
    the hidden positions left free to move, in their order."""
    fixed: set[int] = set()
    for s in sorted(pinned):
        want = list(pinned[s])
        if bonus is not None:
            want[bonus] = 0  # an unseen bonus tile is placed where it may be, not moved
        have = [0] * 34
        for p in held[s]:
            have[wall[p]] += 1
        mine = set(held[s])
        free = [q for q in unknown if q not in fixed and q not in mine]
        for p in held[s]:
            a = wall[p]
            if a == bonus or have[a] <= want[a]:
                continue
            q = next((q for q in free if wall[q] != bonus and have[wall[q]] < want[wall[q]]), None)
            if q is None:
                raise Inconsistent(f"S{s}'s pinned hand is not among the hidden tiles")
            free.remove(q)
            b = wall[q]
            wall[p], wall[q] = b, a
            have[a] -= 1
            have[b] += 1
        if any(have[t] != want[t] for t in range(34) if t != bonus):
            raise Inconsistent(f"S{s}'s pinned hand does not fit its tiles")
        fixed |= mine
    return [q for q in unknown if q not in fixed]


#: the ceiling's twins: which of the hidden hands their samples know
TWINS = {"seeing": Seeing, "ready": ReadySeeing}


def ceiling(
    variant: str,
    hands: int = 100,
    seed: int = 2026,
    first: int = 0,
    spec: str = "expert",
    twin: str = "seeing",
) -> dict:
    """``spec``'s edge over strategic and its twin's (the same parameters; ``twin``
    names it in :data:`TWINS`: :class:`Seeing`, or :class:`ReadySeeing` that
    knows only the ready seats' hands), each the paired seat-swap A/B of
    :func:`research.expert_ab.paired_edge` on the same hands, and what the twin's
    knowledge adds: ``agent`` and ``seeing`` (the twin; paired_edge's results) and
    ``gap`` (``seeing`` less ``agent`` hand by hand, points per seat-hand:
    ``diff``, ``lo``, ``hi``, ``p``).

    >>> r = ceiling("xuezhan", hands=2, seed=1, spec="expert:rollouts=0")
    >>> r["agent"]["diff"], r["seeing"]["diff"], r["gap"]["diff"]
    (0.0, 0.0, 0.0)
    """
    from research.expert_ab import head_to_head

    if not isinstance(make_agent(spec), ExpertAgent):  # as calibrate's probe checks
        raise ValueError(f"ceiling: {spec!r} is not an expert agent")
    if twin not in TWINS:
        raise ValueError(f"ceiling: twin {twin!r} is none of {', '.join(TWINS)}")
    params, cls = parse_spec(spec)[1], TWINS[twin]
    r = head_to_head(
        variant,
        f"{twin} {spec}",
        spec,
        hands=hands,
        seed=seed,
        first=first,
        make=lambda: cls(**params),
    )
    return {"agent": r["other"], "seeing": r["agent"], "gap": r["gap"]}
