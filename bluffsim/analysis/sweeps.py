"""Sweep tables from a sweep dir (``bluffsim.tournament.sweep``): one row per (point, agent)
and per (point, seat), a column per swept key named by the key.

``load_sweep(root)`` -> ``(table, seat_table)``; both carry ``attrs["keys"]`` (the swept
keys), which ``plots.sweep_lines`` uses to draw one line per agent (or seat) and per
combination of the other keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

COLUMNS = ["games", "wins", "shared_wins", "win_rate", "ci_low", "ci_high", "win_share",
           "mean_placement", "mean_decisions", "truncated_share"]


def _cells(values: list[Any]) -> list[Any]:
    """A swept key's values as table cells: numbers, strings or booleans as they are when all
    of one kind; otherwise (lists, tables, mixed kinds) as text, so parquet can store them."""
    for kind in ((bool,), (int, float), (str,)):
        if all(isinstance(v, kind) and (kind == (bool,) or not isinstance(v, bool)) for v in values):
            return list(values)
    return [v if isinstance(v, str) else json.dumps(v) for v in values]


def point_tables(point_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per agent, per seat) rows of one point, from its ``summary.csv`` and ``seats.csv``
    (written by the point's report, so a point of any size is read in a few rows)."""
    d = Path(point_dir)
    summ = pd.read_csv(d / "summary.csv")
    seat = pd.read_csv(d / "seats.csv")
    summ["chance"] = seat["chance"].iloc[0]
    return summ[["agent", *COLUMNS, "chance"]], seat


def read_meta(root: str | Path) -> dict[str, Any]:
    """``sweep.json`` of a sweep dir; a missing, corrupt or foreign file is a one-line
    ``ResultsError`` naming it."""
    from bluffsim.tournament.results import ResultsError

    path = Path(root) / "sweep.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ResultsError(f"cannot read {str(path)!r} ({type(e).__name__}: {e}); rerun the "
                           "sweep with --force") from None
    if not (isinstance(meta, dict) and isinstance(meta.get("points"), list)
            and isinstance(meta.get("keys"), list)):
        raise ResultsError(f"{str(path)!r} is not a bluffsim sweep.json (no points and keys); "
                           "rerun the sweep with --force")
    return meta


def load_sweep(root: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sweep table (point, keys..., agent, games, wins, shared_wins, win_rate, ci_low,
    ci_high, win_share, mean_placement, mean_decisions, truncated_share, chance = 1/P) and the seat table
    (point, keys..., seat, games, wins, ..., chance) of a sweep dir."""
    root = Path(root)
    meta = read_meta(root)
    keys = list(meta["keys"])
    agents, seat_rows = [], []
    cells = {k: _cells([pt["values"][k] for pt in meta["points"]]) for k in keys}
    for n, pt in enumerate(meta["points"]):
        a, s = point_tables(root / pt["dir"])
        for t in (a, s):
            for pos, k in enumerate(keys):
                t.insert(pos, k, [cells[k][n]] * len(t))
            t.insert(0, "point", pt["index"])
        agents.append(a)
        seat_rows.append(s)
    table = pd.concat(agents, ignore_index=True)
    seat_table = pd.concat(seat_rows, ignore_index=True)
    table.attrs["keys"] = seat_table.attrs["keys"] = keys
    return table, seat_table


def agent_order(table: pd.DataFrame) -> list[str]:
    """One agent order for every sweep plot: mean win rate over the points, best first."""
    mean = table.groupby("agent")["win_rate"].mean().reset_index()
    return mean.sort_values(["win_rate", "agent"], ascending=[False, True])["agent"].astype(
        str).tolist()


def sweep_title(root: str | Path) -> str:
    """"<name> · <game>, <P> players, <N> games per point" (sweep plot titles)."""
    root = Path(root)
    meta = read_meta(root)
    try:
        cfg = json.loads((root / meta["points"][0]["dir"] / "config.json").read_text())["config"]
        games = {json.loads((root / p["dir"] / "config.json").read_text())["config"]["games"]
                 for p in meta["points"]}
    except (OSError, ValueError, KeyError):
        return str(meta.get("name", ""))
    per = f"{games.pop():,} games per point" if len(games) == 1 else "games per point vary"
    return f"{cfg['name']} · {cfg['game']}, {cfg['players']} players, {per}"
