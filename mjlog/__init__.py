"""mjlog: play, log, replay, audit and analyse three Chinese mahjong variants.

The rulebook is ``RULES.md`` in the shared folder; the log contract is
``LOG_SCHEMA.md``. See the README for the two commands.
"""

__version__ = "0.1.0"
