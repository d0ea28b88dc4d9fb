"""Where tables run: in-process, a local process pool, or a Dask cluster (the backends of
``tournament.tables.play_tables``, which every caller playing many tables goes through).

``map_pool`` and ``map_dask`` yield ``(i, fn(item i))`` as items finish; workers return
DataFrames instead of writing files, so a remote Dask cluster needs no shared filesystem.

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

from bluffsim.api import BluffsimError

log = logging.getLogger("bluffsim.tournament")


class ExecutorError(BluffsimError, RuntimeError):
    """The executor could not start (e.g. dask missing or the scheduler unreachable)."""


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


def map_pool(fn: Callable[[Any], tuple[int, Any]], items: list[Any], processes: int
             ) -> Iterator[tuple[int, Any]]:
    """``imap_in_pool`` with the workers' log records sent to this process's handlers (a run's
    ``run.log``)."""
    import multiprocessing_logging

    multiprocessing_logging.install_mp_handler()
    try:
        yield from imap_in_pool(fn, items, processes)
    finally:
        multiprocessing_logging.uninstall_mp_handler()


def map_dask(fn: Callable[[Any], Any], items: list[Any], workers: int, address: str = ""
             ) -> Iterator[tuple[int, Any]]:
    """``(i, fn(items[i]))`` on a Dask cluster as they finish: the scheduler at ``address``, or a
    ``LocalCluster`` of ``workers`` single-threaded processes, closed at the end."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ExecutorError("executor = \"dask\" needs dask.distributed: "
                            "pip install 'bluffsim[dask]'") from None
    cluster = None
    try:
        if address:
            client = Client(address, timeout="10s")
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
    except OSError as e:
        raise ExecutorError(f"cannot reach the dask scheduler at {address!r}: {e}") from None
    try:
        futures = client.map(fn, items, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        for fut in as_completed(futures):
            yield index[fut.key], fut.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
