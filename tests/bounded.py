"""Hang checks that a busy machine cannot fail (issue 47).

A test that runs a child process bounds the child's **CPU time**, not the wall
clock: at load 20 on two cores a command that needs 3 s of CPU takes a minute of
wall time, which a 60 s timeout failed as "a hang". The child sets its own
``RLIMIT_CPU`` as it starts (:func:`python`; no ``preexec_fn``, which is unsafe
in a threaded parent such as an xdist worker), so a runaway loop is killed by
the kernel after that much CPU whatever the load. A child that waits forever
(a FIFO read, a dead peer) uses no CPU: :data:`WALL`, the wall-clock backstop,
is generous enough that only such a wait reaches it.

>>> import subprocess
>>> p = subprocess.run(python(5, "-c", "print(2 + 2)"), capture_output=True, text=True)
>>> p.stdout, over_cpu(p.returncode)
('4\\n', False)
"""

from __future__ import annotations

import signal
import sys

__all__ = ["WALL", "over_cpu", "python"]

#: Seconds of wall time after which a child is taken for stuck in a wait: far past
#: any CPU bound here even at load 20 on two cores.
WALL = 1800.0

_PRELUDE = (
    "import resource, runpy, sys\n"
    "cpu = int(sys.argv.pop(1))\n"
    "resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))\n"
    "how = sys.argv.pop(1)\n"
    "if how == '-m':\n"
    "    runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)\n"
    "else:\n"
    "    code = sys.argv.pop(1)\n"
    "    sys.argv[0] = '-c'\n"
    "    exec(compile(code, '<string>', 'exec'), {'__name__': '__main__'})\n"
)


def python(cpu_seconds: int, *args: str) -> list[str]:
    """The command line of ``python ARGS`` (``-m MODULE ...`` or ``-c CODE ...``)
    whose CPU time is bounded by ``cpu_seconds`` (its worker processes each get the
    same bound: the limit is inherited)."""
    if not args or args[0] not in ("-m", "-c"):
        raise ValueError("python(cpu, '-m', MODULE, ...) or python(cpu, '-c', CODE, ...)")
    return [sys.executable, "-c", _PRELUDE, str(int(cpu_seconds)), *args]


def over_cpu(returncode: int | None) -> bool:
    """Whether a child was stopped by its CPU bound (SIGXCPU, then SIGKILL)."""
    return returncode in (-signal.SIGXCPU, -signal.SIGKILL)
