"""The ``mjlog`` command line. Each subcommand lives in the module that owns its work;
this file only assembles them and turns user-facing errors into one line and exit 2.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, NoReturn

import click

from mjlog import __version__
from mjlog.errors import LIMIT, MjlogError, cut, quote


def _fail(message: str, code: int = 2) -> NoReturn:
    """Print ``mjlog: error: MESSAGE`` as one line (cut, control characters
    escaped) and exit with ``code``."""
    click.echo(f"mjlog: error: {cut(message, 500)}", err=True)
    sys.exit(code)


def os_error_text(e: OSError) -> str:
    """An OSError as ``PATH: what went wrong`` (both paths of a rename).

    >>> os_error_text(PermissionError(13, "Permission denied", "/ro/x"))
    '/ro/x: Permission denied'
    >>> os_error_text(FileNotFoundError(2, "No such file or directory", "no/.a.jsonl.tmp-7"))
    'no/a.jsonl: No such file or directory'
    """
    # A temporary file written next to its target (``.NAME.tmp-PID``) is named as NAME.
    paths = [
        re.sub(r"(^|/)\.([^/]+)\.tmp-[0-9]+$", r"\1\2", os.fsdecode(p))
        for p in (e.filename, e.filename2)
        if p is not None
    ]
    what = e.strerror or str(e)
    if not paths:
        return what
    return f"{' -> '.join(quote(p)[1:-1] for p in paths)}: {what}"


def _cut_quoted(message: str) -> str:
    """Click quotes a bad value in full: cut each long quoted value as
    :func:`mjlog.errors.quote` does.

    >>> _cut_quoted("Invalid value: '" + "9" * 300 + "' is not a valid integer.")[-47:]
    "9999'… (300 characters) is not a valid integer."
    """
    message = " ".join(message.split())  # click breaks some messages over lines
    return re.sub(f"'([^']{{{LIMIT + 1},}})'", lambda m: quote(m[1]), message)


BUG = 3
"""The exit status of an error in mjlog itself (a bug): not the user's input."""


def _debugging(ctx: click.Context) -> bool:
    """``mjlog --debug …`` or ``MJLOG_DEBUG=1``: show a bug's traceback."""
    return bool(ctx.params.get("debug")) or os.environ.get("MJLOG_DEBUG", "") not in ("", "0")


def _bug(ctx: click.Context, e: Exception) -> None:
    """An unexpected exception: one line saying it is a bug and how to see where it
    happened (with ``--debug`` the traceback comes first); exit :data:`BUG`."""
    if _debugging(ctx):
        import traceback

        traceback.print_exception(e, file=sys.stderr)
        hint = "the traceback is above"
    else:
        hint = "run again with mjlog --debug (or MJLOG_DEBUG=1) to see the traceback"
    _fail(
        f"an unexpected {type(e).__name__} in mjlog (a bug, not your input): "
        f"{cut(str(e), 200)}; {hint}",
        BUG,
    )


class _Group(click.Group):
    """A group whose commands report :class:`MjlogError`, a usage error (bad option
    value) and any :class:`OSError` (naming its path) as one line, exit status 2, and
    any other exception (a bug) as one line and how to see its traceback, exit 3."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:  # `mjlog --bogus`: the group's own usage errors, one line too
            return super().parse_args(ctx, args)
        except click.UsageError as e:
            if type(e).__name__ == "NoArgsIsHelpError":  # bare `mjlog`: the help, as ever
                raise
            _fail(_cut_quoted(e.format_message()), e.exit_code)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MjlogError as e:
            _fail(str(e))
        except click.ClickException as e:  # usage errors: one line, not usage + hint
            _fail(_cut_quoted(e.format_message()), e.exit_code)
        except BrokenPipeError:  # `mjlog ... | head`: the reader went away
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(1)
        except OSError as e:  # read-only or missing directory, full disk, no permission
            _fail(os_error_text(e))
        except (click.exceptions.Exit, click.Abort):  # ctx.exit(), a declined prompt
            raise
        except Exception as e:  # a bug: one line, never a bare traceback
            _bug(ctx, e)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mjlog")
@click.option(
    "--debug",
    is_flag=True,
    help="On an unexpected error (a bug), show its traceback (also MJLOG_DEBUG=1).",
)
def main(debug: bool) -> None:
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
