"""Subcommands of the ``mjlog`` CLI, one module each.

Each module defines one click command; add it to ``ALL`` here.
"""

from mjlog.commands.demo import demo
from mjlog.commands.ladder import ladder_command
from mjlog.commands.rules import rules_command
from mjlog.commands.simulate import simulate_command

ALL: list = [demo, ladder_command, rules_command, simulate_command]
ALL.append(__import__("mjlog.commands.score", fromlist=["x"]).score_command)  # mjlog score
ALL.append(__import__("mjlog.commands.validate", fromlist=["x"]).validate_command)  # validate
ALL.append(__import__("mjlog.commands.replay", fromlist=["x"]).replay_command)  # replay
ALL.append(__import__("mjlog.commands.hand", fromlist=["x"]).analyse)  # mjlog analyse
ALL.append(__import__("mjlog.commands.interchange", fromlist=["x"]).export_command)  # export
ALL.append(__import__("mjlog.commands.interchange", fromlist=["x"]).import_command)  # import
ALL.append(__import__("mjlog.commands.sweep", fromlist=["x"]).sweep_command)  # mjlog sweep
ALL.append(__import__("mjlog.commands.report", fromlist=["x"]).report_command)  # mjlog report
