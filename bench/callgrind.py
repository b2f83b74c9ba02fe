"""Instruction counts under valgrind's callgrind, which the machine's load does not
change (CPU time on a shared machine varies by tens of percent).

A measured process runs its warm-up (imports, caches) first, then the part to
count as the one call of :func:`marked`; :func:`collected` runs it under
``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``, collecting only inside
that call.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence


def marked(body: Callable[[], object]) -> None:
    """Run ``body()`` as the one call of ``functools.reduce`` over two items:
    callgrind's ``--toggle-collect=functools_reduce`` (its C function) then counts
    the instructions of ``body`` and nothing else (start-up, imports, warm-up).
    A measured body must not call ``functools.reduce`` itself."""
    functools.reduce(lambda _a, _b: body(), (0, 1))


def collected(args: Sequence[str]) -> tuple[int, str]:
    """(instructions collected inside :func:`marked`, the process's stdout) of
    ``python ARGS`` run under callgrind."""
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--collect-atstart=no",
                "--toggle-collect=functools_reduce",
                f"--callgrind-out-file={d}/cg.out",
                sys.executable,
                *args,
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    m = re.search(r"Collected : (\d+)", p.stderr)
    if p.returncode or m is None:
        raise SystemExit(f"callgrind of {' '.join(args)} failed: {p.stderr[-500:]}")
    return int(m.group(1)), p.stdout
