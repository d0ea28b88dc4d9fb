"""Run a whole experiment: prepare the dir, run missing shards, merge, summarise, plot."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from tqdm import tqdm

from bluffsim.analysis import plots, seats, stats
from bluffsim.tournament.config import Experiment
from bluffsim.tournament.executors import run_shards
from bluffsim.tournament.results import (
    done_shards,
    merge_shards,
    prepare_output,
    write_manifest,
    write_shard,
)
from bluffsim.tournament.runner import schedule_of

log = logging.getLogger("bluffsim.tournament")


def run_experiment(exp: Experiment, resume: bool = False, progress: bool = True) -> pd.DataFrame:
    """Play every missing shard, then merge and report; returns the summary table."""
    out = prepare_output(exp, resume)
    _log_to_file(out)
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
    games, rounds = merge_shards(out, sched.num_shards)
    total = time.perf_counter() - start
    write_manifest(out, exp, {"play_seconds": round(play_seconds, 3),
                              "total_seconds": round(total, 3),
                              "shards_run": len(todo), "shards_resumed": len(done),
                              "games": int(games["game"].nunique()), "rounds": len(rounds),
                              "rounds_per_second": round(len(rounds) / max(total, 1e-9), 1)})
    return build_report(out, games, rounds, plots_too=exp.plots)


def build_report(out: Path, games: pd.DataFrame | None = None,
                 rounds: pd.DataFrame | None = None, plots_too: bool = True) -> pd.DataFrame:
    """(Re)build summary CSVs and plots of a results dir; returns the summary table."""
    out = Path(out)
    games = pd.read_parquet(out / "games.parquet") if games is None else games
    rounds = pd.read_parquet(out / "rounds.parquet") if rounds is None else rounds
    tables = report_tables(games, rounds)
    for name, table in tables.items():
        if not table.empty and name != "convergence":
            table.to_csv(out / f"{name}.csv", index=name != "head_to_head_ci")
    if plots_too:
        write_plots(out, tables, run_title(out, games))
    return tables["summary"].join(tables["ratings"], how="left")


def report_tables(games: pd.DataFrame, rounds: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Every table of a results dir, by CSV name (``results.py`` lists them)."""
    return {"summary": stats.summary(games), "head_to_head": stats.head_to_head(games),
            "head_to_head_ci": seats.head_to_head_long(games), "ratings": stats.bradley_terry(games),
            "bluff": seats.bluff_table(rounds, games), "seats": seats.seat_table(games),
            "lengths": seats.length_table(games), "lineups": seats.lineup_table(games),
            "placements": stats.placement_distribution(games),
            "convergence": stats.convergence(games)}


def run_title(out: Path, games: pd.DataFrame) -> str:
    """"<name> · <game>, <P> players, <N> games" from the dir's config.json (plot titles)."""
    try:
        cfg = json.loads((Path(out) / "config.json").read_text())["config"]
        head = f"{cfg['name']} · {cfg['game']}, "
    except (OSError, ValueError, KeyError):
        head = ""
    players = int(games.groupby("game").size().max()) if len(games) else 0
    return f"{head}{players} players, {games['game'].nunique():,} games"


def write_plots(out: Path, tables: dict[str, pd.DataFrame], title: str) -> None:
    """Every PNG plot of a results dir, one agent order (summary order) throughout."""
    pdir = Path(out) / "plots"
    pdir.mkdir(exist_ok=True)
    summ = tables["summary"]
    order = seats.agent_order(summ)
    chance = float(tables["seats"]["chance"].iloc[0])
    figures = {
        "win_rates": plots.win_rates(summ, title, order, chance),
        "head_to_head": plots.head_to_head_heatmap(tables["head_to_head"], title, order,
                                                   tables["head_to_head_ci"]),
        "placements": plots.placement_bars(tables["placements"], title, order),
        "convergence": plots.convergence_lines(tables["convergence"], title, order, chance),
        "seats": plots.seat_advantage(tables["seats"], title),
    }
    bluff = tables["bluff"]
    if not bluff.empty and bluff["calls_right"].notna().any():
        figures["call_accuracy"] = plots.call_accuracy(bluff, title, order)
    for name, fig in figures.items():
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
