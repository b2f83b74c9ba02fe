"""Subcommands of the ``mjlog`` CLI, one module each; ``ALL`` lists them.

Command modules import their heavy dependencies inside the command, so
``mjlog --help`` stays fast.
"""

from mjlog.commands.balance import balance_command
from mjlog.commands.compare import compare_command
from mjlog.commands.demo import demo
from mjlog.commands.hand import analyse
from mjlog.commands.interchange import export_command, import_command
from mjlog.commands.ladder import ladder_command
from mjlog.commands.plan import plan_command
from mjlog.commands.replay import replay_command
from mjlog.commands.report import report_command
from mjlog.commands.rules import rules_command
from mjlog.commands.score import score_command
from mjlog.commands.simulate import simulate_command
from mjlog.commands.sweep import sweep_command
from mjlog.commands.tune import tune_command
from mjlog.commands.validate import validate_command

ALL: list = [
    analyse,
    score_command,
    rules_command,  # hands and rules
    simulate_command,
    sweep_command,
    ladder_command,  # playing
    replay_command,
    validate_command,  # replaying and auditing
    export_command,
    import_command,  # interchange
    report_command,
    compare_command,
    demo,  # analysis and the tour
    balance_command,
    tune_command,  # seat fairness, tuning the rules
    plan_command,  # planning a study
]
