"""Where shards run: in-process, a local process pool, or a Dask cluster.

Every executor yields ``(shard, games, rounds, records)`` as shards finish (``records``: the
text agents' transcripts and calls, or None; ``runner.play_shard_records``); the caller
writes them.  Workers return DataFrames instead of writing files, so a remote
Dask cluster needs no shared filesystem.  ``local`` with one worker runs in the
calling process (no pickling; easiest to debug).

Ctrl-C reaches every process of the terminal's process group.  Pool workers ignore SIGINT
(``ignore_interrupts``, their initializer): the parent alone stops, terminates the pool and
prints the one "interrupted" line, instead of every worker printing its traceback.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import signal
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd

from bluffsim.api import BluffsimError
from bluffsim.tournament.config import Experiment
from bluffsim.tournament.runner import play_shard_records

log = logging.getLogger("bluffsim.tournament")

ShardResult = tuple[int, pd.DataFrame, pd.DataFrame, dict[str, Any] | None]


class ExecutorError(BluffsimError, RuntimeError):
    """The executor could not start (e.g. dask missing or the scheduler unreachable)."""


def run_shard_task(exp: Experiment, shard: int) -> ShardResult:
    """Picklable unit of work: play one shard."""
    games, rounds, records = play_shard_records(exp, shard)
    log.info("shard %d done: %d games, %d rounds", shard, games["game"].nunique(), len(rounds))
    return shard, games, rounds, records


def _task(args: tuple[Experiment, int]) -> ShardResult:
    return run_shard_task(*args)


def run_shards(exp: Experiment, shards: list[int]) -> Iterator[ShardResult]:
    """Run ``shards`` with the experiment's executor, yielding results as they finish."""
    if exp.executor == "dask":
        yield from _run_dask(exp, shards)
    elif exp.workers == 1 or len(shards) <= 1:
        for s in shards:
            yield run_shard_task(exp, s)
    else:
        yield from _run_pool(exp, shards)


# libraries whose threads make a fork of the process unsafe (a child may inherit a held lock)
FORK_UNSAFE_MODULES = ("jax",)


def pool_start_method() -> str | None:
    """``"forkserver"`` when a fork-unsafe multithreaded library (JAX) is loaded in this process
    (e.g. a notebook that trained an agent, then runs a tournament), else the platform default."""
    return "forkserver" if any(m in sys.modules for m in FORK_UNSAFE_MODULES) else None


def ignore_interrupts() -> None:
    """Pool worker initializer: ignore SIGINT (Ctrl-C); the parent ends the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def imap_in_pool(fn: Callable[[Any], Any], items: list[Any], processes: int) -> Iterator[Any]:
    """``fn(item)`` for every item in a process pool, yielded as they finish: the start method
    that is safe here (``pool_start_method``), workers that ignore Ctrl-C, and the pool
    terminated if the caller stops early or is interrupted."""
    ctx = mp.get_context(pool_start_method())
    pool = ctx.Pool(processes, initializer=ignore_interrupts)
    try:
        yield from pool.imap_unordered(fn, items)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _run_pool(exp: Experiment, shards: list[int]) -> Iterator[ShardResult]:
    import multiprocessing_logging

    multiprocessing_logging.install_mp_handler()
    try:
        yield from imap_in_pool(_task, [(exp, s) for s in shards], min(exp.workers, len(shards)))
    finally:
        multiprocessing_logging.uninstall_mp_handler()


def _run_dask(exp: Experiment, shards: list[int]) -> Iterator[ShardResult]:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ExecutorError("executor = \"dask\" needs dask.distributed: "
                            "pip install 'bluffsim[dask]'") from None
    cluster = None
    try:
        if exp.address:
            client = Client(exp.address, timeout="10s")
        else:
            cluster = LocalCluster(n_workers=exp.workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
    except OSError as e:
        raise ExecutorError(f"cannot reach the dask scheduler at {exp.address!r}: {e}") from None
    try:
        futures = client.map(run_shard_task, [exp] * len(shards), shards, pure=False)
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
