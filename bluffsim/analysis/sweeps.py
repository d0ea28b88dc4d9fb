"""Sweep tables from a sweep dir (``bluffsim.tournament.sweep``): one row per (point, agent)
and per (point, seat), a column per swept key named by the key.

``load_sweep(root)`` -> ``(table, seat_table)``; both carry ``attrs["keys"]`` (the swept
keys), which ``plots.sweep_lines`` uses to draw one line per agent (or seat) and per
combination of the other keys.
"""

from __future__ import annotations

import json
import re
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
    from bluffsim.results import ResultsError

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


def build_sweep_report(root: str | Path, plots_too: bool = True,
                       rebuild_points: bool = False) -> pd.DataFrame:
    """(Re)build ``sweep.parquet``, ``sweep.csv``, ``sweep_seats.csv`` and the sweep plots
    from the point dirs (with ``rebuild_points`` each point's own report too)."""
    from bluffsim.analysis.report import build_report
    from bluffsim.results import OutputError

    root = Path(root)
    meta = read_meta(root)
    for pt in meta["points"]:
        if not (root / pt["dir"] / "games.parquet").is_file():
            raise OutputError(f"{str(root / pt['dir'])!r} holds no games.parquet: the sweep is "
                              "unfinished; rerun it with --resume")
        if rebuild_points or not (root / pt["dir"] / "seats.csv").is_file():
            build_report(root / pt["dir"], plots_too=plots_too)
    table, seat_table = load_sweep(root)
    table.to_parquet(root / "sweep.parquet", index=False)
    table.to_csv(root / "sweep.csv", index=False)
    seat_table.to_csv(root / "sweep_seats.csv", index=False)
    if plots_too:
        import matplotlib.pyplot as plt

        from bluffsim.analysis import plots

        pdir = root / "plots"
        pdir.mkdir(exist_ok=True)
        title = sweep_title(root)
        order = agent_order(table)
        for key in table.attrs["keys"]:
            safe = re.sub(r"[^A-Za-z0-9._-]", "_", key)
            for fig, name in ((plots.sweep_lines(table, key, "win_rate", title, order), "sweep"),
                              (plots.sweep_lines(seat_table, key, "win_rate", title, by="seat"),
                               "sweep_seats")):
                fig.savefig(pdir / f"{name}_{safe}.png", dpi=110)
                plt.close(fig)
    return table
