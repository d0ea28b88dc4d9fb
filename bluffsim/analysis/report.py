"""Reports of a results dir: the summary CSVs and the PNG plots (``bluffsim run``, ``bluffsim report``).

Built here, in ``analysis``, so that playing (``bluffsim.tournament``) never imports
plotting: matplotlib is imported only when plots are drawn (``write_plots``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from bluffsim.analysis import alpharank, seats, stats
from bluffsim.analysis.ratings import FinishOrders

GAME_COLUMNS = ["game", "seed", "seat", "agent", "placement", "score", "decisions", "rounds",
                "truncated"]


def build_report(out: Path, games: pd.DataFrame | None = None,
                 rounds: pd.DataFrame | None = None, plots_too: bool = True) -> pd.DataFrame:
    """(Re)build summary CSVs and plots of a results dir; returns the summary table.

    The behaviour tables (``behaviour.csv``, ``calibration.csv``, ``plots/calibration.png``)
    come from a replay of a sample of the games (``analysis.behaviour.write_behaviour``).

    The parquet files are read in chunks of whole games (only the columns the
    statistics use), so memory stays bounded whatever the number of games.
    Missing or corrupt files raise ``ResultsError`` naming the file.
    """
    from bluffsim.analysis.behaviour import write_behaviour
    from bluffsim.results import OutputError, iter_chunks, run_game

    out = Path(out)
    game = run_game(out)
    game_chunks = (iter_chunks(out / "games.parquet", GAME_COLUMNS) if games is None
                   else [games])
    round_chunks = (iter_chunks(out / "rounds.parquet", seats.BluffTotals.columns(game),
                                whole_games=False) if rounds is None else [rounds])
    tables = report_tables(game_chunks, round_chunks, game)
    try:
        for name, table in tables.items():
            if not table.empty and name != "convergence":
                table.to_csv(out / f"{name}.csv", index=name != "head_to_head_ci")
        if plots_too:
            write_plots(out, tables, run_title(out, tables))
        write_behaviour(out, plots_too, games=games, order=seats.agent_order(tables["summary"])
                        if not tables["summary"].empty else None)
    except OSError as e:
        raise OutputError(f"cannot write the report in {str(out)!r}: {e.strerror or e}") from None
    return tables["summary"].join(tables["ratings"], how="left")


def report_tables(games: pd.DataFrame | Iterable[pd.DataFrame],
                  rounds: pd.DataFrame | Iterable[pd.DataFrame], game: str
                  ) -> dict[str, pd.DataFrame]:
    """Every table of a results dir by CSV name, from games (one DataFrame or chunks of
    whole games) and rounds (one DataFrame or chunks) of game ``game`` (its id, from the
    results: ``bluffsim.results.run_game``), in one pass over each."""
    totals, shape, orders = stats.GameTotals(), seats.ShapeTotals(), FinishOrders()
    one = None
    for chunk in ([games] if isinstance(games, pd.DataFrame) else games):
        totals.add(chunk)
        shape.add(chunk)
        if "seed" in chunk:
            orders.add(chunk)
        one = chunk if isinstance(games, pd.DataFrame) else None
    bluff = seats.bluff_table(rounds, one, game=game) if isinstance(rounds, pd.DataFrame) else \
        seats.BluffTotals.of(rounds, game).table()
    ratings = totals.bradley_terry().join(orders.ratings(), how="left")
    return {"summary": totals.summary(), "head_to_head": totals.head_to_head(),
            "head_to_head_ci": seats.head_to_head_ci(*totals.pair_arrays()),
            "ratings": ratings, **evolutionary_tables(orders, ratings["rating"]),
            "bluff": bluff, "seats": shape.seat_table(),
            "lengths": shape.length_table(), "lineups": shape.lineup_table(),
            "placements": totals.placement_distribution(), "convergence": totals.convergence()}


def evolutionary_tables(orders: FinishOrders, bt: pd.Series) -> dict[str, pd.DataFrame]:
    """``alpharank`` (agent, mass: α-Rank's stationary distribution over the run's agents, on
    their head-to-head rates) and ``cycles`` (the cycles of the "beats" graph, each as
    ``A > B > C > A``): ``bluffsim.analysis.alpharank``; empty with fewer than two agents."""
    h2h = orders.head_to_head()
    if h2h.empty:
        return {"alpharank": pd.DataFrame(), "cycles": pd.DataFrame()}
    mass = alpharank.ranking(alpharank.meta_game(h2h, ratings=bt)).to_frame()
    found = [alpharank.cycle_text(c) for c in alpharank.cycles(alpharank.beats(h2h))]
    return {"alpharank": mass, "cycles": pd.DataFrame({"cycle": found}).set_index("cycle")}


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
    import matplotlib.pyplot as plt

    from bluffsim.analysis import plots

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
    if not tables["alpharank"].empty:
        masses = tables["alpharank"].reset_index().assign(game="", population="run")
        figures["alpharank"] = lambda: plots.alpharank(masses, title)
    bluff = tables["bluff"]
    if not bluff.empty and bluff["calls_right"].notna().any():
        figures["call_accuracy"] = lambda: plots.call_accuracy(bluff, title, order)
    for name, draw in figures.items():
        fig = draw()
        fig.savefig(pdir / f"{name}.png", dpi=110)
        plt.close(fig)
