"""Subcommands of the ``mjlog`` CLI, one module each.

Each module defines one click command; add it to ``ALL`` here.
"""

ALL: list = []
