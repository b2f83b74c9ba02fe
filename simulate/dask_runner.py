"""Run a simulation's shards on an existing dask.distributed cluster.

Each shard is one task: a worker plays its matches and writes the shard's files
itself, atomically, into the run directory, which every worker must see at the
same path (a shared filesystem). The client only waits, reports progress and,
back in :func:`simulate.runner.simulate`, writes the manifest.

A task that dies with its worker is rerun elsewhere by the scheduler; as shards
are deterministic and renamed into place whole, a rerun writes the same bytes.
Every worker must run the same mjlog as the client: a task checks that it
computes the client's run id (which covers the mjlog version and the rng) and
fails otherwise.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Callable, Sequence
from pathlib import Path

from mjlog.errors import InputError, MjlogError, quote
from mjlog.extras import require

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for the scheduler: a wrong address fails fast, not after 40 s."""

_INPROC = re.compile(r"inproc://[0-9A-Za-z.:\[\]]+/[0-9]+/[0-9]+")  # a cluster in this process
_ADDRESS = re.compile(
    r"(?:(?P<scheme>tcp|tls|ucx|ws|wss)://)?"
    r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,252}))"
    r"(?::(?P<port>[0-9]{1,5}))?"
)


def check_address(address: str, probe: bool = True) -> str:
    """Refuse a scheduler address that is not ``[tcp://]HOST[:PORT]`` (or tls, ucx,
    ws, wss; or the ``inproc://`` address of a cluster in this process), and
    (``probe``) one where nothing accepts a connection within
    :data:`CONNECT_TIMEOUT`; returns the address.

    >>> check_address("tcp://10.0.0.5:8786", probe=False)
    'tcp://10.0.0.5:8786'
    >>> check_address("not a url")
    Traceback (most recent call last):
    ...
    mjlog.errors.InputError: bad --scheduler 'not a url': expected tcp://HOST:PORT
    """
    if _INPROC.fullmatch(address):
        return address
    m = _ADDRESS.fullmatch(address.strip())
    if m is None or not 0 < int(m["port"] or 8786) < 65536:
        raise InputError(f"bad --scheduler {quote(address)}: expected tcp://HOST:PORT")
    if probe:
        host, port = m["host"].strip("[]"), int(m["port"] or 8786)
        try:
            socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
        except OSError as e:
            raise MjlogError(
                f"cannot reach the dask scheduler at {quote(address)}: {e.strerror or e}"
            ) from None
    return address


def _dask_shard(
    play: Callable[..., object], spec, out: str, shard: int, first: int, end: int, rid: str
) -> tuple[int, bool]:
    if spec.run_id != rid:
        raise MjlogError(
            f"a dask worker computes run id {spec.run_id}, the client {rid}: "
            f"install the same mjlog version on every worker"
        )
    made = play(spec, out, shard, first, end)
    # play_shard says as its third value whether the shard was settled, not played
    return shard, isinstance(made, tuple) and len(made) > 2 and made[2] is True


def run_on_dask(
    address: str,
    spec,
    out: str | os.PathLike,
    todo_shards: Sequence[tuple[int, int, int]],
    on_done: Callable[[int, bool], None],
    play: Callable[..., object],
) -> None:
    """Play ``todo_shards`` ((shard, first match, end match) each) on the cluster
    whose scheduler listens at ``address`` with ``play(spec, out, shard, first,
    end)`` (the batch runner's ``play_shard``, passed in so this module needs
    nothing above it); call ``on_done(shard, settled)`` as each finishes (``settled``:
    ``play`` said its hands were settled, not played).

    Ctrl-C cancels the tasks not yet started; running ones finish their shard.
    """
    run_many_on_dask(
        address,
        [(spec, out, todo_shards, play)],
        lambda _run, shard, settled: on_done(shard, settled),
    )


def run_many_on_dask(
    address: str,
    runs: Sequence[tuple[object, str | os.PathLike, Sequence[tuple[int, int, int]], Callable]],
    on_done: Callable[[int, int, bool], None],
) -> None:
    """Every shard of several runs ((spec, out, shards, play) each, as
    :func:`run_on_dask` takes one) submitted to the cluster at once, through one
    client: ``on_done(run, shard, settled)`` as each finishes (``run``: its index)."""
    if not any(todo for _spec, _out, todo, _play in runs):
        return
    require("distributed", "dask", "--scheduler")
    from distributed import Client, as_completed
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    try:
        client = Client(
            check_address(address), timeout=f"{CONNECT_TIMEOUT:g}s", set_as_default=False
        )
    except (OSError, TimeoutError) as e:
        raise MjlogError(f"cannot reach the dask scheduler at {address}: {e}") from None
    futures = []
    which = {}
    try:
        for i, (spec, out, todo, play) in enumerate(runs):
            rid = spec.run_id  # type: ignore[attr-defined]
            for s, a, b in todo:
                fut = client.submit(
                    _dask_shard,
                    play,
                    spec,
                    str(Path(out).resolve()),
                    s,
                    a,
                    b,
                    rid,
                    pure=False,
                    # one task per shard: two runs of one spec in one call kept apart
                    key=f"mjlog-{rid}-{spec.hands_per_shard}"  # type: ignore[attr-defined]
                    + (f"-run-{i}" if len(runs) > 1 else "")
                    + f"-shard-{s:05d}",
                )
                which[fut.key] = i
                futures.append(fut)
        for fut in as_completed(futures, loop=client.loop):
            try:
                shard, settled = fut.result()
            except KilledWorker as e:
                raise MjlogError(
                    f"dask workers died running a shard ({e}); complete shards "
                    f"are kept: rerun the same command to finish"
                ) from None
            except FutureCancelledError:
                raise MjlogError(
                    "a shard's task was cancelled on the dask cluster; rerun "
                    "the same command to finish"
                ) from None
            on_done(which[fut.key], shard, settled)
    except BaseException:
        client.cancel(futures)
        raise
    finally:
        client.close()
