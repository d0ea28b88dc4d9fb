"""Run a whole experiment: prepare the dir, run missing shards, merge, summarise, plot.

What a run says on stderr, and when:

* a plain run into a dir holding its own finished run: one line (``output.finished_rerun``),
  then the report is rebuilt and nothing is played;
* a game count that is not a whole number of seating cycles: one ``bluffsim: warning:`` line
  before playing (``Schedule.balance``; also in ``manifest.json`` under ``seating``);
* numba's first compile (cold cache, local executors): ``COMPILING``, then the kernels are
  compiled by playing the run's first two games on the side (their results are discarded;
  forked workers inherit the compiled code, others load it from the cache), then
  ``COMPILED`` with the time (``compile_seconds`` in the manifest's timing, apart from
  ``play_seconds``), then the progress bar;
* a failed write (full disk, quota, ``ulimit -f``): one line naming the cause, that the
  finished shards are kept and that ``--resume`` finishes (``bluffsim.results.write_failure``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
from tqdm import tqdm

import bluffsim

# the report lives in bluffsim.analysis.report; re-exported here for existing callers
from bluffsim.analysis.report import (  # noqa: F401
    GAME_COLUMNS,
    build_report,
    report_tables,
    run_title,
    write_plots,
)
from bluffsim.api import BluffsimError
from bluffsim.kernel_cache import COMPILING, kernels_cold
from bluffsim.results import (
    OutputError,
    done_shards,
    is_complete,
    merge_shards,
    output_lock,
    remove_shards,
    write_failure,
)
from bluffsim.tournament.config import Experiment
from bluffsim.tournament.output import (
    check_output,
    finished_rerun,
    finished_rerun_note,
    prepare_output,
    write_manifest,
)
from bluffsim.tournament.runner import llm_run_notes, play_shard, schedule_of
from bluffsim.tournament.schedule import Schedule
from bluffsim.tournament.tables import Executor, ShardDir, Table, iter_tables

COMPILED = "kernels compiled in {seconds:.0f} s; playing"
WARMUP_GAMES = 2   # two games in one slot: the second is a refill, so reset compiles too

log = logging.getLogger("bluffsim.tournament")


def run_experiment(exp: Experiment, resume: bool = False, progress: bool = True,
                   force: bool = False, keep_shards: bool = False) -> pd.DataFrame:
    """Play every missing shard, then merge and report; returns the summary table.

    ``resume`` finishes a run in the same dir, ``force`` replaces a previous run;
    ``keep_shards`` keeps ``shards/`` after the merge (it is deleted by default: the
    merged tables hold the same rows).  A dir holding this config's finished run only gets
    its report rebuilt (module docstring).  The run holds the output dir's lock throughout
    (``results.output_lock``): a second run on the same dir is refused before it touches it.
    """
    if finished_rerun(exp, resume, force):
        say(finished_rerun_note(exp))
        resume = True
    check_output(exp, resume, force)    # refuses (in use, foreign dir, ...) before writing
    with output_lock(exp.out_dir):
        return _run(exp, resume, progress, keep_shards, force)


def say(line: str) -> None:
    """Print one line on stderr (the runner's notes and warnings; stdout holds the results)."""
    print(f"bluffsim: {line}", file=sys.stderr, flush=True)


def _run(exp: Experiment, resume: bool, progress: bool, keep_shards: bool,
         force: bool) -> pd.DataFrame:
    out = prepare_output(exp, resume, force)
    _log_to_file(out)
    if resume and is_complete(out):
        log.info("%s: already complete; rebuilding the report", exp.name)
        if not keep_shards:
            remove_shards(out)
        return _report(out, exp)
    sched = schedule_of(exp)
    done = done_shards(out, sched.num_shards)
    todo = [s for s in range(sched.num_shards) if s not in done]
    log.info("%s: %d shards, %d already done", exp.name, sched.num_shards, len(done))
    balance = sched.balance()
    if todo and not balance.whole:
        log.warning("%s: %s", exp.name, balance.warning())
        say(f"warning: {balance.warning()}")
    for line in llm_run_notes(exp, out, sum(len(sched.shard_range(s)) for s in todo)):
        say(line)                     # llm seats: the expected calls, before the first one
    compiled = compile_first(exp) if progress and todo else 0.0   # before the bar
    start = time.perf_counter()
    _play(exp, out, sched, todo, len(done), progress)
    play_seconds = time.perf_counter() - start
    with _kept_on_failure(out, "merge the shards", sched.num_shards, "finish the merge"):
        game_rows, round_rows = merge_shards(out, sched.num_shards)
        merged = time.perf_counter() - start
        write_manifest(out, exp, {"compile_seconds": round(compiled, 3),
                                  "play_seconds": round(play_seconds, 3),
                                  "merge_seconds": round(merged - play_seconds, 3),
                                  "total_seconds": round(merged, 3),
                                  "shards_run": len(todo), "shards_resumed": len(done),
                                  "games": game_rows // exp.players, "rounds": round_rows,
                                  "rounds_per_second": round(round_rows / max(merged, 1e-9), 1)})
    if not keep_shards:
        remove_shards(out)
    return _report(out, exp)


def _play(exp: Experiment, out: Path, sched: Schedule, todo: list[int], resumed: int,
          progress: bool) -> None:
    """Run the shards ``todo`` as tables (``tables.iter_tables`` on the run's executor, the
    run's ``shards/`` as the store), each written as it finishes, under the progress bar."""
    games_done = sum(len(sched.shard_range(s)) for s in range(sched.num_shards) if s not in todo)
    bar = tqdm(total=exp.games, initial=games_done, unit="game", disable=not progress,
               desc=exp.name, smoothing=0.1)
    store = ShardDir(out, sched.num_shards)
    written = [resumed]
    try:
        with _kept_on_failure(out, lambda: store.writing and f"write shard {store.writing.shard}",
                              written, "play the rest"):
            for result in iter_tables([Table(exp, s) for s in todo], Executor.of(exp), store):
                written[0] += 1
                bar.update(len(sched.shard_range(result.table.shard)))
    finally:
        bar.close()


def _report(out: Path, exp: Experiment) -> pd.DataFrame:
    """Build the report; a failed write says the results are kept and how to rebuild it."""
    try:
        return build_report(out, plots_too=exp.plots)
    except OutputError as e:
        raise OutputError(f"{e}; the merged results are kept: free space and rerun with "
                          "--resume to rebuild the report") from None


@contextlib.contextmanager
def _kept_on_failure(out: Path, doing: str | Callable[[], str | None], kept: int | list[int],
                     finishes: str) -> Iterator[None]:
    """Turn a failed write (full disk, quota, file size limit, ...) into one ``OutputError`` line:
    the cause, that ``kept`` finished shards are kept, and that ``--resume`` ``finishes``
    (``doing`` and ``kept`` may be read when it fails: a callable, a one-item list; a callable
    ``doing`` returning None: the error was not a write, and passes unchanged)."""
    try:
        yield
    except OSError as e:
        if isinstance(e, BluffsimError):
            raise
        doing = doing() if callable(doing) else doing
        if doing is None:
            raise
        kept = kept[0] if isinstance(kept, list) else kept
        shards = ("no shard was finished" if kept == 0 else "the finished shard is kept"
                  if kept == 1 else f"the {kept:,} finished shards are kept")
        raise OutputError(f"cannot {doing} in {str(out)!r}: {write_failure(e)}; {shards}: make "
                          f"room (or lift the limit), then rerun with --resume to {finishes}") from None


def compile_first(exp: Experiment) -> float:
    """When numba must compile the run's kernels (cold cache) and they compile on this machine,
    say so, compile them by playing the run's first games on the side, and say how long it took;
    returns that time in seconds (0 when nothing compiled here)."""
    if exp.executor == "dask" and exp.address:   # remote workers compile from their own cache
        return 0.0
    if not kernels_cold(bluffsim.make(exp.game, exp.players, **exp.rules),
                        [s.agent for s in exp.seats]):
        return 0.0
    say(COMPILING)
    start = time.perf_counter()
    n = min(exp.games, WARMUP_GAMES)
    play_shard(dataclasses.replace(exp, games=n, shard_games=n, batch=1), 0)
    seconds = time.perf_counter() - start
    say(COMPILED.format(seconds=seconds))
    return seconds


def _log_to_file(out: Path) -> None:
    logger = logging.getLogger("bluffsim")
    logger.setLevel(logging.INFO)
    path = str(out / "run.log")
    if not any(getattr(h, "baseFilename", None) == path for h in logger.handlers):
        h = logging.FileHandler(path)
        h.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
        logger.addHandler(h)
