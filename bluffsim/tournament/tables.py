"""One way to play many tables: ``play_tables(tables, executor, store)``.

Every caller that plays more than one table goes through here: ``bluffsim run`` (a run's
shards, so pools and sweeps too, ``tournament.experiment``), ``bluffsim evaluate`` (the
battery's tables and the reference pools), the ABR evaluation (``bluffsim.abr``) and the
robustness ladders (``experiments/ladders/run.py``).

**A table** (``Table``) is a validated ``Experiment`` and one of its shards: the unit a worker
plays with ``runner.play_shard_records`` (an ``evaluate`` or ladder table is a one-shard
experiment; a run is the tables of its shards).  Its **identity** (``Table.identity``) is the
sha256 of what decides its games: the experiment's ``identity()`` (name, game, players, games,
seed, rules, seats, seating, duplicate, shard size, lineups: never batch, workers, executor or
output dir, which change no game), the shard, and a caller's ``context`` string for what the
config names but does not hold (``evaluate`` puts the subject's digest there: the content of a
weights file, the source of a custom class).  The same identity always plays the same games,
whatever the executor, workers or batch (tested in tests/test_determinism.py).

**The executor** (``Executor``: ``local`` or ``dask``, ``workers``, ``address``; ``Executor.of``
reads a run's ``[run]`` keys) says where tables play: in this process (``local`` with one
worker, or one table: no pickling, easiest to debug), a local process pool
(``executors.imap_in_pool``: the start method safe in this process, a fork server once JAX is
loaded; workers that ignore Ctrl-C so the parent alone stops and terminates the pool), or a
Dask cluster (a ``LocalCluster`` of ``workers`` processes, or the scheduler at ``address``;
workers return DataFrames, so a remote cluster needs no shared filesystem).

**The store** says which tables are finished and keeps each one as it finishes, atomically
(``results.write_table``: a temporary file renamed into place), so a killed caller keeps every
finished table and a rerun plays only the rest.  One rule: *a table is skipped when its store
holds a finished result of the same identity*.  ``TableDir`` (evaluate's ``tables/``) writes a
table's text records, then its games, then ``<key>.json`` holding the identity, which marks it
finished; a file without a matching identity is played again.  ``ShardDir`` (a run's
``shards/``) holds the shards of one experiment whose identity the run dir's ``config.json``
records (``tournament.output`` refuses to resume a dir of another identity before anything is
played), so a shard's file alone marks it finished.  Without a store nothing is written or
skipped (the ladders, the ABR evaluation).

``iter_tables`` yields each result as it finishes (a run: nothing held in memory beyond a
shard); ``play_tables`` returns every table's result in the order given (finished ones read back
from the store), so a caller's tables, concatenations and ratings do not depend on which worker
finished first.  Results are those of ``play_shard_records``: games, rounds, the text agents'
records (or None), and the seconds the table took in its worker.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from bluffsim.tournament.config import EXECUTORS, Experiment

log = logging.getLogger("bluffsim.tournament")


@dataclass(frozen=True)
class Table:
    """One table to play: shard ``shard`` of ``exp``; ``key`` names it in a store (default the
    experiment's name), ``context`` joins its identity (module docstring)."""

    exp: Experiment
    shard: int = 0
    key: str = ""
    context: str = ""

    @property
    def name(self) -> str:
        """Its file name in a ``TableDir``."""
        return self.key or self.exp.name

    @property
    def identity(self) -> str:
        """sha256 (hex) of what decides the table's games (module docstring)."""
        blob = json.dumps({"experiment": self.exp.identity(), "shard": self.shard,
                           "context": self.context}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()


@dataclass(frozen=True)
class TableResult:
    """A played table: games, rounds (None when read back from a ``TableDir``), the text agents'
    records (or None) and the seconds it took in its worker."""

    table: Table
    games: pd.DataFrame
    rounds: pd.DataFrame | None
    records: dict[str, Any] | None
    seconds: float = 0.0


@dataclass(frozen=True)
class Executor:
    """Where tables play: ``local`` (this process with one worker, else a process pool) or
    ``dask`` (a LocalCluster of ``workers`` processes, or the scheduler at ``address``)."""

    kind: str = "local"
    workers: int = 1
    address: str = ""

    def __post_init__(self) -> None:
        from bluffsim.tournament.executors import ExecutorError

        if self.kind not in EXECUTORS:
            raise ExecutorError(f"executor {self.kind!r}: allowed: {' | '.join(EXECUTORS)}")
        if not isinstance(self.workers, int) or not 1 <= self.workers <= 256:
            raise ExecutorError(f"workers {self.workers!r}: allowed: an integer 1..256")

    @classmethod
    def of(cls, exp: Experiment) -> Executor:
        """A run's executor (its ``[run]`` executor, workers and address)."""
        return cls(exp.executor, exp.workers, exp.address)

    def describe(self, tables: int) -> str:
        """``2 processes``, ``1 process``, ``dask (2 workers)``: what plays ``tables`` tables."""
        if self.kind == "dask":
            return f"dask ({self.address or f'{self.workers} local workers'})"
        n = min(self.workers, max(tables, 1))
        return f"{n} process{'es' if n > 1 else ''}"


class Store(Protocol):
    """Where finished tables are kept (module docstring)."""

    def finished(self, table: Table) -> bool:
        """Whether the store holds ``table``'s result, of its identity."""

    def save(self, result: TableResult) -> None:
        """Keep a result, atomically; its table then counts as finished."""

    def load(self, table: Table) -> TableResult:
        """A finished table's result."""


class TableDir:
    """Tables as ``<dir>/<key>.parquet`` (games) with ``<key>.json`` (identity; written last, it
    marks the table finished), text records as ``<dir>/<key>.llm_calls.parquet`` (with a
    ``table`` column) and ``<transcripts>/<key>/<game>.jsonl``."""

    def __init__(self, folder: Path, transcripts: Path | None = None):
        self.folder = Path(folder)
        self.transcripts = Path(transcripts) if transcripts else self.folder / "transcripts"

    def games_file(self, table: Table) -> Path:
        """The games table of ``table``."""
        return self.folder / f"{table.name}.parquet"

    def marker(self, table: Table) -> Path:
        """The identity file that marks ``table`` finished."""
        return self.folder / f"{table.name}.json"

    def calls_file(self, table: Table) -> Path:
        """The text seats' call table of ``table``."""
        return self.folder / f"{table.name}.llm_calls.parquet"

    def finished(self, table: Table) -> bool:
        try:
            saved = json.loads(self.marker(table).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return (isinstance(saved, dict) and saved.get("identity") == table.identity
                and self.games_file(table).is_file())

    def save(self, result: TableResult) -> None:
        from bluffsim.results import write_json, write_table, write_transcripts

        t = result.table
        self.folder.mkdir(parents=True, exist_ok=True)
        self.marker(t).unlink(missing_ok=True)
        if result.records is not None:    # text seats: the table's transcripts and calls first
            write_transcripts(self.transcripts / t.name, result.records["transcripts"])
            write_table(result.records["calls"].assign(table=t.name), self.calls_file(t))
        write_table(result.games, self.games_file(t))
        write_json(self.marker(t), {"identity": t.identity, "table": t.name,
                                    "seconds": round(result.seconds, 3)})

    def load(self, table: Table) -> TableResult:
        return TableResult(table, pd.read_parquet(self.games_file(table)), None, None)


class ShardDir:
    """A run's ``shards/`` (``results.write_shard``): the shards of one experiment, whose identity
    the run dir's ``config.json`` holds and ``tournament.output`` checks before a resume."""

    def __init__(self, out: Path, num_shards: int):
        from bluffsim.results import done_shards

        self.out = Path(out)
        self.done = done_shards(self.out, num_shards)
        self.writing: Table | None = None

    def finished(self, table: Table) -> bool:
        return table.shard in self.done

    def save(self, result: TableResult) -> None:
        from bluffsim.results import write_shard

        self.writing = result.table
        write_shard(self.out, result.table.shard, result.games, result.rounds, result.records)
        self.done.add(result.table.shard)
        self.writing = None

    def load(self, table: Table) -> TableResult:
        raise NotImplementedError("a run merges its shards from their files (results.merge_shards)")


def play_table(table: Table) -> TableResult:
    """Play one table here (the picklable unit of work every executor runs)."""
    from bluffsim.tournament.runner import play_shard_records

    start = time.perf_counter()
    games, rounds, records = play_shard_records(table.exp, table.shard)
    log.info("%s shard %d done: %d games, %d rounds", table.exp.name, table.shard,
             games["game"].nunique(), len(rounds))
    return TableResult(table, games, rounds, records, time.perf_counter() - start)


def _play_indexed(item: tuple[int, Table]) -> tuple[int, TableResult]:
    return item[0], play_table(item[1])


def execute(tables: Sequence[Table], executor: Executor) -> Iterator[tuple[int, TableResult]]:
    """``(i, result of tables[i])`` as tables finish, on ``executor`` (module docstring)."""
    from bluffsim.tournament import executors

    if not tables:
        return
    if executor.kind == "dask":
        yield from executors.map_dask(play_table, list(tables), executor.workers,
                                      executor.address)
    elif executor.workers == 1 or len(tables) == 1:
        for i, t in enumerate(tables):
            yield i, play_table(t)
    else:
        yield from executors.map_pool(_play_indexed, list(enumerate(tables)),
                                      min(executor.workers, len(tables)))


def iter_tables(tables: Sequence[Table], executor: Executor, store: Store | None = None
                ) -> Iterator[TableResult]:
    """Play the tables ``store`` does not hold, saving and yielding each as it finishes."""
    todo = [t for t in tables if store is None or not store.finished(t)]
    for _, result in execute(todo, executor):
        if store is not None:
            store.save(result)
        yield result


def play_tables(tables: Sequence[Table], executor: Executor, store: Store | None = None,
                done: Callable[[TableResult], None] | None = None) -> list[TableResult]:
    """Every table's result in the order given: the finished ones read from ``store``, the rest
    played on ``executor`` (each saved, then passed to ``done``, as it finishes)."""
    if len({t.identity for t in tables}) < len(tables) or (
            store is not None and len({t.name for t in tables}) < len(tables)):
        raise ValueError("play_tables: two tables share an identity or a name")
    results: dict[str, TableResult] = {}
    for result in iter_tables(tables, executor, store):
        results[result.table.identity] = result
        if done is not None:
            done(result)
    return [results[t.identity] if t.identity in results else store.load(t)  # type: ignore[union-attr]
            for t in tables]


__all__ = ["Executor", "ShardDir", "Store", "Table", "TableDir", "TableResult", "execute",
           "iter_tables", "play_table", "play_tables"]
