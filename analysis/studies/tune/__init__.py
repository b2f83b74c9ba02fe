"""``mjlog tune``: propose the rule values that meet a designer's targets.

A designer states targets on the figures ``mjlog compare`` prints
(``pattern_rate[qidui]=0.05±0.01``, ``draw_rate<=0.02``) and the rule keys that may
move (``--vary fan.qidui=5:60``). The search:

1. **Explores** with Optuna's TPE sampler (a Bayesian optimiser for expensive,
   noisy objectives that handles integer, stepped and categorical keys alike,
   and starts from the rules as they are, so "before" is measured too); when
   every combination of the varied values fits in ``--trials``, it tries them
   all instead (a sweep: nothing to guess). Every
   candidate is played on the **same walls** (one seed for all: common random
   numbers), so two candidates differ by their rules, not their luck.
2. **Pools** what every explored trial says: each target fitted against the keys
   (an additive model of isotonic fits, :mod:`.fit`) with a bootstrap band, and
   **races** the points whose band overlaps the tolerances (by fitted loss, nearest
   the rulebook among equal fits), the rules as they are and the best with each
   changed key put back, on fresh shared walls (ranked on those alone), until the
   best is clearly best (in at least 95 % of paired bootstrap resamples of the
   matches its loss is the lowest) or the race's budget is spent.
3. **Confirms** the winner on a **fresh seed** (hands the search never saw): each
   target is tested there as an equivalence within its tolerance (its 90 %
   interval inside ``V ± T``: two one-sided tests at 5 % each, ``compare``'s test
   of equivalence, :mod:`mjlog.judgement`; a rate's interval is never zero-width,
   :mod:`analysis.rates`), or as a one-sided bound, and called ``met``, ``not
   met`` (the interval wholly outside) or ``inconclusive``; the figure is shown
   with its 95 % interval, as every figure.

The loss a candidate is ranked by is ``Σ wᵢ · (missᵢ / scaleᵢ)²`` over the
targets: for ``METRIC=V±T`` the miss is ``value − V`` and the scale ``T``; for
``METRIC<=V`` (``>=``) the miss is how far the value lies past ``V`` (0 inside)
and the scale ``T`` when given (``draw_rate<=0.02±0.005``), else ``|V|/10``.
``--weight METRIC=W`` trades targets off (default 1 each). Two targets that
cannot both hold show as a trade-off: the confirmation calls one ``not met``.

Deterministic and resumable: trial ``k``'s candidate depends only on the seed,
``k`` and the losses of the trials before its batch (a sampler seeded per trial;
after trial 0, batches of 4 played side by side, :data:`.search.BATCH`), every run
is an ordinary run directory (``DIR/trials/NNN``, resumed shard by shard), and
``DIR/tune.json`` is rewritten atomically after every trial, so a killed tune
rerun with the same command continues where it stopped and ends with the same
answer, whatever the number of workers or a Dask ``--scheduler``.

Varying keys (``--vary``):

- an integer key: ``KEY=LO:HI`` (every integer between), or ``KEY=LO:HI:STEP``;
- a power-of-two key (``cap``): ``KEY=LO:HI``, the powers of two between;
- a self-draw/discard pair (yuxi's ``points.*``): ``KEY=S1/D1:S2/D2``, the pairs on
  the straight line between, rounded (``t`` in 0…1 by steps of 1/10);
- any key: ``KEY=a|b|c``, one of the values given.

The parts: :mod:`.grammar` (``--vary``, ``--target``), :mod:`.measuring` (a run's
figures, the loss, a target judged), :mod:`.fit` (the pooled fit), :mod:`.journal`
(``tune.json`` as typed records, validated on load), :mod:`.study` (a directory of
runs and its journal), :mod:`.search` (explore, race, confirm), :mod:`.outputs`
(``rules.toml``, the summary, ``result.json``), and :mod:`.reading` and :mod:`.page`
(``mjlog report TUNE_DIR``: the directory read as untrusted input, drawn as a page).

>>> [v.values for v in parse_vary(["fan.qidui=5:60:5"], "huangmei")][0][:3]
(5, 10, 15)
>>> parse_target("draw_rate<=0.02")
Target(metric='draw_rate', op='<=', value=0.02, tol=None, weight=1.0)
"""

from analysis.studies.tune.grammar import (
    Target,
    Vary,
    check_targets,
    parse_target,
    parse_vary,
    parse_weights,
)
from analysis.studies.tune.journal import DamagedJournal, Made, TuneJournal
from analysis.studies.tune.measuring import Measured, judge, loss, measure
from analysis.studies.tune.outputs import rules_toml, summary, toml_value, write_outputs
from analysis.studies.tune.search import Plan, Tuner
from analysis.studies.tune.study import RULES_FILE, TUNE_FILE, RunAsked, Study, derived_seed

__all__ = [
    "RULES_FILE",
    "TUNE_FILE",
    "DamagedJournal",
    "Made",
    "Measured",
    "Plan",
    "RunAsked",
    "Study",
    "Target",
    "TuneJournal",
    "Tuner",
    "Vary",
    "check_targets",
    "derived_seed",
    "judge",
    "loss",
    "measure",
    "parse_target",
    "parse_vary",
    "parse_weights",
    "rules_toml",
    "summary",
    "toml_value",
    "write_outputs",
]
