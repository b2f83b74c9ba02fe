"""Studies: code that *plays* runs in order to answer a question, above both the batch
runner (:mod:`simulate`) and the reading analysis (:mod:`analysis`), which never plays.

- :mod:`~analysis.studies.tune`: propose rule values that meet targets;
- :mod:`~analysis.studies.rescore`: a money-only tune, rescoring runs instead of playing;
- :mod:`~analysis.studies.plan`: size a comparison from pilot runs, timed by playing;
- :mod:`~analysis.studies.ladder`: the duplicate ladder of agents;
- :mod:`~analysis.studies.balance`: measure, compensate and confirm the dealer's edge;
- :mod:`~analysis.studies.sample`: the sample runs of ``data/``.
"""
