"""mjlog: play, log, replay, audit and analyse three Chinese mahjong variants.

The rulebook is ``docs/rules/`` (one page per variant), the log contract
``docs/log-schema.md``. See the README for the two commands.
"""

__version__ = "0.1.0"
