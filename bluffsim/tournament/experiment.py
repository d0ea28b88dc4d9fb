"""Run a whole experiment: prepare the dir, run missing shards, merge, summarise, plot."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from tqdm import tqdm

from bluffsim.analysis import plots, stats
from bluffsim.tournament.config import Experiment
from bluffsim.tournament.executors import run_shards
from bluffsim.tournament.results import (
    OutputError,
    done_shards,
    is_complete,
    iter_chunks,
    merge_shards,
    prepare_output,
    remove_shards,
    write_manifest,
    write_shard,
)
from bluffsim.tournament.runner import schedule_of

log = logging.getLogger("bluffsim.tournament")


def run_experiment(exp: Experiment, resume: bool = False, progress: bool = True,
                   force: bool = False, keep_shards: bool = False) -> pd.DataFrame:
    """Play every missing shard, then merge and report; returns the summary table.

    ``resume`` finishes a run in the same dir, ``force`` replaces a previous run;
    ``keep_shards`` keeps ``shards/`` after the merge (it is deleted by default: the
    merged tables hold the same rows).
    """
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


GAME_COLUMNS = ["game", "seat", "agent", "placement", "won", "score"]


def build_report(out: Path, games: pd.DataFrame | None = None,
                 rounds: pd.DataFrame | None = None, plots_too: bool = True) -> pd.DataFrame:
    """(Re)build summary CSVs and plots of a results dir; returns the summary table.

    The parquet files are read in chunks of whole games (only the columns the
    statistics use), so memory stays bounded whatever the number of games.
    Missing or corrupt files raise ``ResultsError`` naming the file.
    """
    out = Path(out)
    totals = stats.GameTotals.of(
        iter_chunks(out / "games.parquet", GAME_COLUMNS) if games is None else games)
    bluff = stats.RoundTotals()
    for chunk in (iter_chunks(out / "rounds.parquet", stats.RoundTotals.COLUMNS,
                              whole_games=False) if rounds is None else [rounds]):
        bluff.add(chunk)
    bluff = bluff.bluff_metrics()
    summ = totals.summary()
    h2h = totals.head_to_head()
    ratings = totals.bradley_terry()
    try:
        summ.to_csv(out / "summary.csv")
        h2h.to_csv(out / "head_to_head.csv")
        ratings.to_csv(out / "ratings.csv")
        if not bluff.empty:
            bluff.to_csv(out / "bluff.csv")
        if plots_too:
            pdir = out / "plots"
            pdir.mkdir(exist_ok=True)
            figures = {
                "win_rates": lambda: plots.win_rates(summ),
                "head_to_head": lambda: plots.head_to_head_heatmap(h2h),
                "placements": lambda: plots.placement_bars(totals.placement_distribution()),
                "convergence": lambda: plots.convergence_lines(totals.convergence()),
            }
            if not bluff.empty:
                figures["call_accuracy"] = lambda: plots.call_accuracy(bluff)
            for name, draw in figures.items():
                fig = draw()
                fig.savefig(pdir / f"{name}.png", dpi=110)
                plt.close(fig)
    except OSError as e:
        raise OutputError(f"cannot write the report in {str(out)!r}: {e.strerror or e}") from None
    return summ.join(ratings, how="left")


def _log_to_file(out: Path) -> None:
    logger = logging.getLogger("bluffsim")
    logger.setLevel(logging.INFO)
    path = str(out / "run.log")
    if not any(getattr(h, "baseFilename", None) == path for h in logger.handlers):
        h = logging.FileHandler(path)
        h.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
        logger.addHandler(h)
