"""Subcommands of the ``mjlog`` CLI, one module each.

Each module defines one click command; add it to ``ALL`` here.
"""

ALL: list = []
ALL.append(__import__("mjlog.commands.score", fromlist=["x"]).score_command)  # mjlog score
