"""The ``mjlog`` command line. Each subcommand lives in the module that owns its work;
this file only assembles them and turns user-facing errors into one line and exit 2.
"""

from __future__ import annotations

import sys

import click

from mjlog import __version__
from mjlog.errors import MjlogError


class _Group(click.Group):
    """A group whose commands report :class:`MjlogError` as one line, exit status 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except MjlogError as e:
            click.echo(f"mjlog: error: {e}", err=True)
            sys.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mjlog")
def main() -> None:
    """Play, log, replay, audit and analyse Chinese mahjong.

    Variants: yuxi (星悦云南麻将), xuezhan (天天爱云南麻将, blood battle),
    huangmei (黄梅麻将). Run `mjlog COMMAND --help` for each command.
    """


def _register() -> None:
    # Imported here so `mjlog --version` stays fast and a broken optional module
    # cannot hide the others.
    from mjlog import commands

    for cmd in commands.ALL:
        main.add_command(cmd)


_register()
