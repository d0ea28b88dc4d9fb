"""Run a whole experiment: prepare the dir, run missing shards, merge, summarise, plot."""

from __future__ import annotations

import logging
import time
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
from bluffsim.kernel_cache import note_if_cold
from bluffsim.results import (
    done_shards,
    is_complete,
    merge_shards,
    output_lock,
    remove_shards,
    write_shard,
)
from bluffsim.tournament.config import Experiment
from bluffsim.tournament.executors import run_shards
from bluffsim.tournament.output import check_output, prepare_output, write_manifest
from bluffsim.tournament.runner import schedule_of

log = logging.getLogger("bluffsim.tournament")


def run_experiment(exp: Experiment, resume: bool = False, progress: bool = True,
                   force: bool = False, keep_shards: bool = False) -> pd.DataFrame:
    """Play every missing shard, then merge and report; returns the summary table.

    ``resume`` finishes a run in the same dir, ``force`` replaces a previous run;
    ``keep_shards`` keeps ``shards/`` after the merge (it is deleted by default: the
    merged tables hold the same rows).  The run holds the output dir's lock throughout
    (``results.output_lock``): a second run on the same dir is refused before it touches it.
    """
    check_output(exp, resume, force)    # refuses (in use, foreign dir, ...) before writing
    with output_lock(exp.out_dir):
        return _run(exp, resume, progress, keep_shards, force)


def _run(exp: Experiment, resume: bool, progress: bool, keep_shards: bool,
         force: bool) -> pd.DataFrame:
    out = prepare_output(exp, resume, force)
    _log_to_file(out)
    if resume and is_complete(out):
        log.info("%s: already complete; rebuilding the report", exp.name)
        if not keep_shards:
            remove_shards(out)
        return build_report(out, plots_too=exp.plots)
    sched = schedule_of(exp)
    done = done_shards(out, sched.num_shards)
    todo = [s for s in range(sched.num_shards) if s not in done]
    log.info("%s: %d shards, %d already done", exp.name, sched.num_shards, len(done))
    if progress and todo:  # before the bar, which sits at 0% while numba compiles
        note_if_cold(bluffsim.make(exp.game, exp.players, **exp.rules), [s.agent for s in exp.seats])
    start = time.perf_counter()
    games_done = sum(len(sched.shard_range(s)) for s in done)
    bar = tqdm(total=exp.games, initial=games_done, unit="game", disable=not progress,
               desc=exp.name, smoothing=0.1)
    try:
        for shard, games, rounds in run_shards(exp, todo):
            write_shard(out, shard, games, rounds)
            bar.update(len(sched.shard_range(shard)))
    finally:
        bar.close()
    play_seconds = time.perf_counter() - start
    game_rows, round_rows = merge_shards(out, sched.num_shards)
    merged = time.perf_counter() - start
    write_manifest(out, exp, {"play_seconds": round(play_seconds, 3),
                              "merge_seconds": round(merged - play_seconds, 3),
                              "total_seconds": round(merged, 3),
                              "shards_run": len(todo), "shards_resumed": len(done),
                              "games": game_rows // exp.players, "rounds": round_rows,
                              "rounds_per_second": round(round_rows / max(merged, 1e-9), 1)})
    if not keep_shards:
        remove_shards(out)
    return build_report(out, plots_too=exp.plots)


def _log_to_file(out: Path) -> None:
    logger = logging.getLogger("bluffsim")
    logger.setLevel(logging.INFO)
    path = str(out / "run.log")
    if not any(getattr(h, "baseFilename", None) == path for h in logger.handlers):
        h = logging.FileHandler(path)
        h.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
        logger.addHandler(h)
