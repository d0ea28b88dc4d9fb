"""The robustness ladder (issue 15, point 4): counting against many tables, every game.

For each game and each player count (qdv and legumes 2–6, veru 3–6) the ladder
plays these tables (``tables``), each ``--games`` games (default 2,400):

| table                | lineup (seat 0 is the subject)                          | seating  |
|----------------------|---------------------------------------------------------|----------|
| `random`             | counting + (P−1) × random                               | rotated  |
| `heuristic`          | counting + (P−1) × heuristic                            | rotated  |
| `<param>=<v>`        | counting + (P−1) × heuristic, one parameter at an extreme | rotated  |
| `mixed`              | counting, heuristic, random, then variants in turn      | permuted |
| `mixed-h`            | counting, random, then heuristics (default and variants) | permuted |
| `h/random`           | heuristic + (P−1) × random (no counting)                | rotated  |
| `h/<param>=<v>`      | that heuristic variant + (P−1) × random (no counting)   | rotated  |
| `learned`            | counting + (P−1) × learned                              | balanced |
| `l/random`           | learned + (P−1) × random                                | balanced |
| `l/heuristic`        | learned + (P−1) × heuristic                             | balanced |
| `l/counting`         | learned + (P−1) × counting                              | balanced |

Both extremes of every heuristic parameter are played (``heuristic_extremes``).  The three
``learned`` tables exist only at the player counts with a shipped ``learned`` weights file
(``agents/weights/<game>_<P>p.npz``).
``rotated`` cycles the P rotations of the lineup; ``permuted`` cycles all P!
seatings (so neighbour order is balanced too); ``balanced`` cycles the P(P−1)
neighbour-balanced seatings (every seat after every other equally often: in veru the
seat after a reckless player profits, so the learned agents are compared this way).
Every seat is reported on its own (a table of three identical heuristics has three rivals), and the subject
passes when its win rate's 95% Wilson lower bound is above 1/P and above every
other seat's win rate, and its mean placement is the best (``passes``).

    python experiments/ladders/run.py [--games 2400] [--game qdv] [--players 2 3]
        [--only heuristic] [--workers 1] --out results/ladders

writes ``ladder.csv`` (one row per table) and ``ladder.md`` (the same as a
markdown table) in ``--out``.  Tables are independent seeds (crc32 of the table
id), built programmatically with the tournament runner's ``Experiment`` and
played with ``bluffsim.tournament.tables.play_tables`` (``--workers`` local processes).

Known failures: veru's ``h/bluff=0.0`` tables (a never-lying heuristic against random
players) do not pass — even an honest player that checks with the truth of every claim
loses to the random seat after it (``honest_bound.py``, docs/strength.md).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.learned import shipped_weights  # noqa: E402
from bluffsim.analysis.stats import wilson_interval  # noqa: E402
from bluffsim.evaluate import battery_players, heuristic_extremes  # noqa: E402
from bluffsim.evaluate import unique_seats as _lineup  # noqa: E402
from bluffsim.tournament import Experiment  # noqa: E402
from bluffsim.tournament.config import Seat  # noqa: E402
from bluffsim.tournament.tables import Executor, TableResult, play_tables  # noqa: E402
from bluffsim.tournament.tables import Table as PlayedTable  # noqa: E402

PLAYERS = battery_players()   # every table size of every game (its spec)
GAMES = tuple(PLAYERS)
SEATING_NAMES = {"rotate": "rotated", "permute": "permuted", "balanced": "balanced"}

# both extremes of every heuristic parameter (the defaults sit inside these ranges)
# the heuristic parameter extremes are bluffsim evaluate's (declared once there)

COLUMNS = ["game", "players", "table", "seating", "subject", "games", "win_rate", "ci_low",
           "ci_high", "fair_share", "best_other", "best_other_win_rate", "mean_placement",
           "best_other_placement", "placements", "passes"]


@dataclass(frozen=True)
class Table:
    """One ladder table: a lineup (seat 0 is the subject) and its seating scheme."""

    game: str
    players: int
    name: str
    seats: tuple[Seat, ...]
    seating: str        # "rotate" | "permute" | "balanced" (the tournament's run.seating)

    @property
    def key(self) -> str:
        """Unique id: game/players/name."""
        return f"{self.game}/{self.players}p/{self.name}"

    @property
    def subject(self) -> str:
        """The label of the seat the table tests."""
        return self.seats[0].label


def variant_seats(game: str) -> list[tuple[str, dict[str, Any]]]:
    """(label, params) of every heuristic variant of ``game``, in a fixed order."""
    out = []
    for param, extremes in heuristic_extremes(game).items():
        for v in extremes:
            out.append((f"heuristic {param}={v}", {param: v}))
    return out


def tables(game: str, players: int) -> list[Table]:
    """Every table of ``game`` at ``players`` seats (module docstring)."""
    p = players
    cnt = ("counting", "counting", {})
    rnd = ("random", "random", {})
    heu = ("heuristic", "heuristic", {})
    variants = [("heuristic", label, params) for label, params in variant_seats(game)]
    out = [Table(game, p, "random", _lineup([cnt] + [rnd] * (p - 1)), "rotate"),
           Table(game, p, "heuristic", _lineup([cnt] + [heu] * (p - 1)), "rotate")]
    for _, label, params in variants:
        out.append(Table(game, p, label.split(" ", 1)[1], _lineup([cnt] + [("heuristic", label,
                                                                           params)] * (p - 1)),
                         "rotate"))
    if p >= 3:
        fill = itertools.cycle(variants)
        out.append(Table(game, p, "mixed", _lineup([cnt, heu, rnd] + [next(fill)
                                                                       for _ in range(p - 3)]),
                         "permute"))
        fill = itertools.cycle([heu] + variants[::-1])
        out.append(Table(game, p, "mixed-h", _lineup([cnt, rnd] + [next(fill)
                                                                    for _ in range(p - 2)]), "permute"))
    out.append(Table(game, p, "h/random", _lineup([heu] + [rnd] * (p - 1)), "rotate"))
    for _, label, params in variants:
        out.append(Table(game, p, "h/" + label.split(" ", 1)[1],
                         _lineup([("heuristic", label, params)] + [rnd] * (p - 1)), "rotate"))
    if shipped_weights(game, p).is_file():
        lrn = ("learned", "learned", {})
        for name, lineup in (("learned", [cnt] + [lrn] * (p - 1)), ("l/random", [lrn] + [rnd] * (p - 1)),
                             ("l/heuristic", [lrn] + [heu] * (p - 1)),
                             ("l/counting", [lrn] + [cnt] * (p - 1))):
            out.append(Table(game, p, name, _lineup(lineup), "balanced"))
    return out


def experiment(table: Table, games: int, batch: int = 1024) -> Experiment:
    """The tournament ``Experiment`` of a table (one shard, seed from the table id)."""
    return Experiment(name=table.key.replace("/", "_"), game=table.game, players=table.players,
                      games=games, seed=zlib.crc32(table.key.encode()), rules={},
                      seats=table.seats, batch=batch, workers=1, seating=table.seating,
                      duplicate=False, shard_games=games, plots=False)


def seat_stats(games: pd.DataFrame) -> pd.DataFrame:
    """Per label: games, wins, win_rate, ci_low, ci_high, mean_placement."""
    g = games.groupby("agent", sort=True)
    out = pd.DataFrame({"games": g.size(), "wins": g["won"].sum(),
                        "mean_placement": g["placement"].mean()})
    out["win_rate"] = out["wins"] / out["games"]
    out["ci_low"], out["ci_high"] = wilson_interval(out["wins"].to_numpy(),
                                                    out["games"].to_numpy())
    return out


def passes(subject_ci_low: float, fair_share: float, other_win_rates: np.ndarray,
           subject_placement: float, other_placements: np.ndarray) -> bool:
    """The criterion: lower bound above 1/P and above every other seat's win rate, and the
    strictly best mean placement."""
    return bool(subject_ci_low > fair_share and np.all(subject_ci_low > other_win_rates)
                and np.all(subject_placement < other_placements))


def table_row(table: Table, games: pd.DataFrame) -> dict[str, Any]:
    """The ladder row of a played table."""
    st = seat_stats(games)
    me = st.loc[table.subject]
    others = st.drop(index=table.subject)
    best = others["win_rate"].idxmax()
    fair = 1.0 / table.players
    placements = "; ".join(f"{lab} {st.loc[lab, 'mean_placement']:.2f}"
                           for lab in [s.label for s in table.seats])
    return {"game": table.game, "players": table.players, "table": table.name,
            "seating": SEATING_NAMES[table.seating], "subject": table.subject,
            "games": int(me["games"]), "win_rate": float(me["win_rate"]),
            "ci_low": float(me["ci_low"]), "ci_high": float(me["ci_high"]), "fair_share": fair,
            "best_other": best, "best_other_win_rate": float(others.loc[best, "win_rate"]),
            "mean_placement": float(me["mean_placement"]),
            "best_other_placement": float(others["mean_placement"].min()),
            "placements": placements,
            "passes": passes(float(me["ci_low"]), fair, others["win_rate"].to_numpy(),
                             float(me["mean_placement"]), others["mean_placement"].to_numpy())}


def play_table(args: tuple[Table, int, int]) -> dict[str, Any]:
    """Play one table here and return its row, with the wall time."""
    table, games, batch = args
    return play(([table], games, batch), 1)[0]


def play(tasks: tuple[list[Table], int, int], workers: int,
         done: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """The rows of ``tables`` (``games`` games each, in batches of ``batch``), played by
    ``bluffsim.tournament.tables.play_tables`` in ``workers`` local processes (its start-method
    safety; Ctrl-C stops them all), in the order given; ``done(row)`` as each finishes."""
    todo, games, batch = tasks
    by_key = {t.key: t for t in todo}

    def row_of(result: TableResult) -> dict[str, Any]:
        row = table_row(by_key[result.table.key], result.games)
        row["seconds"] = round(result.seconds, 1)
        return row

    played = play_tables([PlayedTable(experiment(t, games, batch), key=t.key) for t in todo],
                         Executor("local", workers),
                         done=None if done is None else (lambda r: done(row_of(r))))
    return [row_of(r) for r in played]


def markdown(df: pd.DataFrame) -> str:
    """The ladder as a markdown table."""
    lines = ["| game | P | table | seating | subject | win rate | 95% CI | 1/P | strongest other "
             "(win rate) | mean placement (best other) | pass |",
             "|---|---:|---|---|---|---:|---:|---:|---|---:|:---:|"]
    for r in df.itertuples():
        lines.append(f"| {r.game} | {r.players} | {r.table} | {r.seating} | {r.subject} | "
                     f"{r.win_rate:.3f} | {r.ci_low:.3f} – {r.ci_high:.3f} | {r.fair_share:.3f} | "
                     f"{r.best_other} ({r.best_other_win_rate:.3f}) | "
                     f"{r.mean_placement:.2f} ({r.best_other_placement:.2f}) | "
                     f"{'yes' if r.passes else '**no**'} |")
    n, ok = len(df), int(df["passes"].sum())
    lines.append(f"\n{ok} of {n} tables pass.")
    return "\n".join(lines) + "\n"


def run(games_per_table: int, game_ids: list[str], players: list[int] | None,
        only: list[str] | None, workers: int, out: Path, batch: int = 1024,
        verbose: bool = True) -> pd.DataFrame:
    """Play every selected table, write ``ladder.csv`` and ``ladder.md`` in ``out``."""
    todo = [t for g in game_ids for p in PLAYERS[g] if players is None or p in players
            for t in tables(g, p) if only is None or t.name in only]
    rows = play((todo, games_per_table, batch), workers, _print_row if verbose else None)
    df = pd.DataFrame(rows, columns=COLUMNS + ["seconds"])
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "ladder.csv", index=False)
    (out / "ladder.md").write_text(markdown(df), encoding="utf-8")
    return df


def _print_row(r: dict[str, Any]) -> None:
    print(f"{r['game']:8} {r['players']}p {r['table']:26} {r['subject']:10} "
          f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]  1/P {r['fair_share']:.3f}  "
          f"best other {r['best_other']} {r['best_other_win_rate']:.3f}  "
          f"place {r['mean_placement']:.2f}/{r['best_other_placement']:.2f}  "
          f"{'PASS' if r['passes'] else 'FAIL'}  {r['seconds']}s", flush=True)


def main(argv: list[str] | None = None) -> None:
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2400, help="games per table")
    ap.add_argument("--game", action="append", choices=GAMES, help="game(s); default all")
    ap.add_argument("--players", type=int, nargs="+", help="player counts; default all")
    ap.add_argument("--only", nargs="+", help="table names to play (e.g. heuristic mixed)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--out", default="results/ladders")
    a = ap.parse_args(argv)
    df = run(a.games, a.game or list(GAMES), a.players, a.only, a.workers, Path(a.out), a.batch)
    print(f"{int(df['passes'].sum())} of {len(df)} tables pass; written to {a.out}")


if __name__ == "__main__":
    main()
