"""Measuring: the studies of what the agents, the rules and the statistics do (each
answer a figure with its interval), outside the wheel. ``bench/`` times (speed,
memory, sizes); ``research/`` measures: ``expert_study`` (the expert agent's
evidence) and ``calibration`` (do the intervals and verdicts mean what they say),
the tools they use (``expert_ab``, ``expert_calibration``, ``reading_fit``,
``response``, ``wait_reading``), their sections in ``research/results/`` (rerun by
``python research/run.py``; ``bench/run.py`` puts them in ``BENCHMARKS.md`` after
the timings).

They import the product (``mjlog``, ``simulate``, ``analysis``); nothing of the
product imports them. ``make research`` runs their tests.
"""
