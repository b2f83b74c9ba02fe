"""The harness of the hostile-input suite: run a command on bad input and hold it to
the project's standard.

A refused command must exit non-zero with exactly one line on stderr, print no
traceback, write nothing outside the output it was asked for, and leave every
input byte-for-byte as it was. :func:`refused` checks all of that in one call;
the tables of cases live in ``tests/test_hostile*.py``.

Commands run in a child process (``python -m mjlog``) with a bound on its CPU time
(:mod:`tests.bounded`: a busy machine cannot fail it) and a generous wall-clock
backstop, so a hang (a runaway loop; a FIFO read, a dead scheduler) fails the
case instead of the suite, and a traceback printed by any layer is seen.

Warnings are not hidden: one attributed to the project's own modules
(:data:`OWN_MODULES`) is an error, and any other one (a SciPy ``RuntimeWarning``
is attributed to SciPy's own frame, whoever fed it the data) is printed on stderr
as a user would see it, where the one-line check catches it. ``PYTHONWARNINGS``
cannot say this: its module field is matched literally and whole (``mjlog`` is
not ``mjlog.cli``, and ``python -m mjlog`` runs as ``__main__``), so the child
installs the filter itself (:data:`_BOOT`).
"""

from __future__ import annotations

import gc
import hashlib
import os
import stat
import subprocess
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests import bounded

TIMEOUT = 60.0  # CPU seconds a refused command may use (a hang fails the case)

OWN_MODULES = r"(mjlog|analysis|simulate)(\.|$)"
"""The modules whose warnings are errors (a regex matched at the start of the name
of the module a warning is attributed to)."""

_BOOT = (
    "import runpy, sys, warnings; "
    "warnings.filterwarnings('error', module=sys.argv.pop(1)); "
    "runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)"
)
"""``python -m MODULE`` with :data:`OWN_MODULES`'s warnings as errors: ``python -c
_BOOT REGEX MODULE ARGS...``."""


def snapshot(*roots: Path) -> dict[str, str]:
    """Every entry under ``roots``: path → sha256 of a file's bytes, or its kind.

    Symlinks are recorded as their target and not followed; FIFOs and other
    special files as their kind (never opened: a FIFO would block).
    """
    out: dict[str, str] = {}
    for root in roots:
        root = Path(root)
        if not os.path.lexists(root):
            out[str(root)] = "absent"
            continue
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            d = Path(dirpath)
            out[str(d)] = "dir"
            for name in dirnames + filenames:
                p = d / name
                st = p.lstat()
                if stat.S_ISLNK(st.st_mode):
                    out[str(p)] = f"link -> {os.readlink(p)}"
                elif stat.S_ISREG(st.st_mode):
                    out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
                elif not stat.S_ISDIR(st.st_mode):
                    out[str(p)] = f"special {stat.S_IFMT(st.st_mode):o}"
    return out


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


def run(
    args: Sequence[str],
    cwd: Path,
    timeout: float = TIMEOUT,
    env: dict[str, str] | None = None,
    isolate: bool = True,
    module: str = "mjlog",
) -> Result:
    """``python -m MODULE ARGS`` in ``cwd`` (``mjlog`` unless told); more than
    ``timeout`` seconds of CPU, or a wait past :data:`tests.bounded.WALL`, fails the
    test as a hang.

    ``isolate=False`` runs the command in this process (click's runner, ~20× faster
    than a child): for cases that cannot hang. An exception that escapes the
    command is rendered as the traceback a user would see.
    """
    if not isolate:
        assert module == "mjlog", "only mjlog's own commands run in this process"
        import traceback

        from click.testing import CliRunner

        from mjlog.cli import main

        old = os.getcwd()
        os.chdir(cwd)
        # Garbage that earlier tests of this process left (a notebook kernel's unclosed
        # sockets) is collected now, not inside the capture, where its ResourceWarning
        # would read as the command's own: a child process starts without it.
        gc.collect()
        gc.disable()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("default")  # shown once, as a child shows them
                warnings.filterwarnings("error", module=OWN_MODULES)
                r = CliRunner().invoke(main, [str(a) for a in args])
        finally:
            gc.enable()
            os.chdir(old)
        err = r.stderr + "".join(
            warnings.formatwarning(w.message, w.category, w.filename, w.lineno) for w in caught
        )
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            err += "".join(traceback.format_exception(r.exception))
        return Result(r.exit_code, r.stdout, err)
    full_env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    full_env.update(env or {})
    try:
        p = subprocess.run(
            bounded.python(int(timeout), "-c", _BOOT, OWN_MODULES, module, *map(str, args)),
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=bounded.WALL,
            stdin=subprocess.DEVNULL,
            env=full_env,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"mjlog {' '.join(map(str, args))}: still waiting after {bounded.WALL} s (a hang)"
        ) from None
    if bounded.over_cpu(p.returncode):
        raise AssertionError(
            f"mjlog {' '.join(map(str, args))}: more than {timeout} s of CPU (a hang)"
        )
    return Result(p.returncode, p.stdout, p.stderr)


def refused(
    args: Sequence[str],
    cwd: Path,
    inputs: Iterable[Path] = (),
    watch: Iterable[Path] = (),
    needle: str | None = None,
    timeout: float = TIMEOUT,
    finding: bool = False,
    isolate: bool = True,
    module: str = "mjlog",
) -> Result:
    """Run a command that must refuse, and check every promise of a refusal.

    ``inputs`` must be byte-for-byte unchanged; ``watch`` are places nothing may be
    written to (the working directory ``cwd`` is always watched). ``needle``, if
    given, must appear in the one line on stderr. ``finding`` is for
    ``mjlog validate``, whose refusal of a run is a finding: exit 1, the needle in a
    line of its report on stdout, nothing on stderr.
    """
    if finding:
        inputs = [Path(p) for p in inputs]
        watched = [Path(cwd), *[Path(p) for p in watch]]
        before = snapshot(*inputs, *watched)
        res = run(args, cwd, timeout, isolate=isolate, module=module)
        cmd = module + " " + " ".join(str(a) for a in args)
        assert res.code == 1, f"{cmd}: exit {res.code}, expected 1\n{res.stdout}{res.stderr}"
        assert "Traceback" not in res.stderr + res.stdout, f"{cmd}: traceback\n{res.stderr}"
        assert not res.stderr.strip(), f"{cmd}: stderr {res.stderr!r}"
        assert needle is None or needle in res.stdout, f"{cmd}: {needle!r} not in\n{res.stdout}"
        assert snapshot(*inputs, *watched) == before, f"{cmd}: changed or wrote files"
        return res
    inputs = [Path(p) for p in inputs]
    watched = [Path(cwd), *[Path(p) for p in watch]]
    before = snapshot(*inputs, *watched)
    res = run(args, cwd, timeout, isolate=isolate, module=module)
    cmd = module + " " + " ".join(str(a) for a in args)
    assert res.code != 0, f"{cmd}: exit 0, expected a refusal\n{res.stdout}{res.stderr}"
    assert "Traceback" not in res.stderr + res.stdout, f"{cmd}: traceback\n{res.stderr}"
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, f"{cmd}: expected one line on stderr, got {len(lines)}:\n{res.stderr}"
    assert len(lines[0]) < 600, f"{cmd}: a {len(lines[0])}-character error line"
    if needle is not None:
        assert needle in lines[0], f"{cmd}: {needle!r} not in {lines[0]!r}"
    after = snapshot(*inputs, *watched)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"{cmd}: changed or wrote {changed[:5]}"
    return res
