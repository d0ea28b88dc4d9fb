"""Run a whole experiment: prepare the dir, run missing shards, merge, summarise, plot."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from tqdm import tqdm

from bluffsim.analysis import plots, seats, stats
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


GAME_COLUMNS = ["game", "seat", "agent", "placement", "score", "decisions", "rounds", "truncated"]


def build_report(out: Path, games: pd.DataFrame | None = None,
                 rounds: pd.DataFrame | None = None, plots_too: bool = True) -> pd.DataFrame:
    """(Re)build summary CSVs and plots of a results dir; returns the summary table.

    The parquet files are read in chunks of whole games (only the columns the
    statistics use), so memory stays bounded whatever the number of games.
    Missing or corrupt files raise ``ResultsError`` naming the file.
    """
    out = Path(out)
    game_chunks = (iter_chunks(out / "games.parquet", GAME_COLUMNS) if games is None
                   else [games])
    round_chunks = (iter_chunks(out / "rounds.parquet", seats.BluffTotals.COLUMNS,
                                whole_games=False) if rounds is None else [rounds])
    tables = report_tables(game_chunks, round_chunks)
    try:
        for name, table in tables.items():
            if not table.empty and name != "convergence":
                table.to_csv(out / f"{name}.csv", index=name != "head_to_head_ci")
        if plots_too:
            write_plots(out, tables, run_title(out, tables))
    except OSError as e:
        raise OutputError(f"cannot write the report in {str(out)!r}: {e.strerror or e}") from None
    return tables["summary"].join(tables["ratings"], how="left")


def report_tables(games: pd.DataFrame | Iterable[pd.DataFrame],
                  rounds: pd.DataFrame | Iterable[pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Every table of a results dir by CSV name, from games (one DataFrame or chunks of
    whole games) and rounds (one DataFrame or chunks), in one pass over each."""
    totals, shape = stats.GameTotals(), seats.ShapeTotals()
    one = None
    for chunk in ([games] if isinstance(games, pd.DataFrame) else games):
        totals.add(chunk)
        shape.add(chunk)
        one = chunk if isinstance(games, pd.DataFrame) else None
    bluff = seats.bluff_table(rounds, one) if isinstance(rounds, pd.DataFrame) else \
        seats.BluffTotals.of(rounds).table()
    return {"summary": totals.summary(), "head_to_head": totals.head_to_head(),
            "head_to_head_ci": seats.head_to_head_ci(*totals.pair_arrays()),
            "ratings": totals.bradley_terry(), "bluff": bluff, "seats": shape.seat_table(),
            "lengths": shape.length_table(), "lineups": shape.lineup_table(),
            "placements": totals.placement_distribution(), "convergence": totals.convergence()}


def run_title(out: Path, tables: dict[str, pd.DataFrame] | pd.DataFrame) -> str:
    """"<name> · <game>, <P> players, <N> games" from the dir's config.json and the report
    tables (or the games DataFrame) (plot titles)."""
    try:
        cfg = json.loads((Path(out) / "config.json").read_text())["config"]
        head = f"{cfg['name']} · {cfg['game']}, "
    except (OSError, ValueError, KeyError, TypeError):
        head = ""
    seat = seats.seat_table(tables) if isinstance(tables, pd.DataFrame) else tables["seats"]
    players = len(seat)
    games = int(seat["games"].iloc[0]) if players else 0
    return f"{head}{players} players, {games:,} games"


def write_plots(out: Path, tables: dict[str, pd.DataFrame], title: str) -> None:
    """Every PNG plot of a results dir, one agent order (summary order) throughout."""
    pdir = Path(out) / "plots"
    pdir.mkdir(exist_ok=True)
    summ = tables["summary"]
    order = seats.agent_order(summ)
    chance = float(tables["seats"]["chance"].iloc[0])
    figures = {
        "win_rates": lambda: plots.win_rates(summ, title, order, chance),
        "head_to_head": lambda: plots.head_to_head_heatmap(tables["head_to_head"], title, order,
                                                           tables["head_to_head_ci"]),
        "placements": lambda: plots.placement_bars(tables["placements"], title, order),
        "convergence": lambda: plots.convergence_lines(tables["convergence"], title, order,
                                                       chance),
        "seats": lambda: plots.seat_advantage(tables["seats"], title),
    }
    bluff = tables["bluff"]
    if not bluff.empty and bluff["calls_right"].notna().any():
        figures["call_accuracy"] = lambda: plots.call_accuracy(bluff, title, order)
    for name, draw in figures.items():
        fig = draw()
        fig.savefig(pdir / f"{name}.png", dpi=110)
        plt.close(fig)


def _log_to_file(out: Path) -> None:
    logger = logging.getLogger("bluffsim")
    logger.setLevel(logging.INFO)
    path = str(out / "run.log")
    if not any(getattr(h, "baseFilename", None) == path for h in logger.handlers):
        h = logging.FileHandler(path)
        h.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
        logger.addHandler(h)
