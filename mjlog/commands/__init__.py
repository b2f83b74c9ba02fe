"""Subcommands of the ``mjlog`` CLI, one module each."""

from mjlog.commands.demo import demo
from mjlog.commands.hand import analyse

ALL = [demo, analyse]
