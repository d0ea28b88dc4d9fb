"""What a results dir recorded about its games: the lineup, the rows of one game, its transcript.

A ``bluffsim run`` dir holds ``config.json`` (its ``identity``: game, players, rules and every
seat label's agent and parameters), ``games.parquet`` (one row per game and seat: ``seed``,
the seat's ``agent`` label, ``placement``, ``score``, ``rounds``, ``decisions`` …),
``rounds.parquet`` (one row per round), ``manifest.json`` (the bluffsim version and git hash
that played it) and, with a text agent, ``transcripts/<game>.jsonl``.  A ``bluffsim evaluate``
dir holds ``evaluation.json`` and one games table per battery table (``tables/<key>.parquet``);
each table's lineup is rebuilt from the evaluated agent's text, as ``evaluate`` built it.
Every problem is a one-line ``ReplayError`` naming the file and what would do.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from bluffsim.analysis.behaviour import ReplayError, Setup
from bluffsim.api import BluffsimError

GAMES_FILE, ROUNDS_FILE, CONFIG_FILE, MANIFEST_FILE = ("games.parquet", "rounds.parquet",
                                                       "config.json", "manifest.json")
EVALUATION_FILE, TABLES_DIR, TRANSCRIPTS_DIR = "evaluation.json", "tables", "transcripts"
# games.parquet columns that hold one value per game (the others are per seat)
GAME_COLUMNS = ("game", "seed", "rounds", "decisions", "truncated")
# games.parquet columns the replay reproduces and checks, per seat
CHECKED_COLUMNS = ("placement", "won", "score", "rounds", "decisions", "truncated", "forfeit")


Lineup = Setup   # a results dir's game, players, rules and each seat label's (agent, params)


@dataclass(frozen=True)
class Source:
    """One results table: where its games are, its lineup, and what played it."""

    root: Path
    games_path: Path
    lineup: Lineup
    table: str = ""                      # an evaluate table's key ("" for a run)
    rounds_path: Path | None = None      # rounds.parquet (runs only)
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The dir as given, with the table for an evaluate dir."""
        return f"{self.root} table {self.table}" if self.table else str(self.root)

    def game_ids(self) -> pd.Series:
        """The game ids the table holds (sorted, unique)."""
        ids = read_parquet(self.games_path, ["game"])["game"]
        return pd.Series(sorted(set(ids.tolist())), dtype="int64")

    def game_rows(self, game: int) -> pd.DataFrame:
        """The rows of game ``game`` in seat order; a game that is not there is an error naming
        the range of games the table holds."""
        rows = read_parquet(self.games_path, None, [("game", "==", int(game))])
        if rows.empty:
            ids = self.game_ids()
            held = f"games {ids.min()}..{ids.max()}" if len(ids) else "no games"
            raise ReplayError(f"--game {game}: {self.name} has no game {game}; it holds {held} "
                              f"(the `game` column of {self.games_path.name})")
        return rows.sort_values("seat").reset_index(drop=True)

    def round_rows(self, game: int) -> pd.DataFrame | None:
        """The game's rows of rounds.parquet in round order (None when the dir has none)."""
        if self.rounds_path is None or not self.rounds_path.is_file():
            return None
        rows = read_parquet(self.rounds_path, None, [("game", "==", int(game))])
        return rows.sort_values("round").reset_index(drop=True)

    def transcript(self, game: int) -> list[dict[str, Any]] | None:
        """The lines of ``transcripts/<game>.jsonl`` (None when the game has none)."""
        path = self.root / TRANSCRIPTS_DIR / f"{int(game):06d}.jsonl"
        if not path.is_file():
            return None
        try:
            return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                    if line.strip()]
        except (OSError, ValueError) as e:
            raise ReplayError(f"cannot read {str(path)!r} ({type(e).__name__}: "
                              f"{str(e).splitlines()[0] if str(e) else ''}); it is not a "
                              "transcript written by `bluffsim run`") from None


def read_parquet(path: Path, columns: list[str] | None, filters: list[Any] | None = None
                 ) -> pd.DataFrame:
    """A results table (``columns`` only, rows matching ``filters``); unreadable is one line."""
    try:
        return pd.read_parquet(path, columns=columns, filters=filters)
    except Exception as e:  # pyarrow raises many kinds for a corrupt file
        first = str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
        raise ReplayError(f"cannot read {str(path)!r} ({first}): the file is corrupt or not "
                          "parquet") from None


def read_json(path: Path) -> dict[str, Any]:
    """A JSON file of a results dir, or a one-line error naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ReplayError(f"cannot read {str(path)!r} ({type(e).__name__}); it is not a "
                          "bluffsim results file") from None
    if not isinstance(data, dict):
        raise ReplayError(f"{str(path)!r} holds no JSON object; it is not a bluffsim results file")
    return data


def open_source(path: str | Path, table: str = "") -> Source:
    """The results table of a run dir, or of an evaluate dir's ``table``."""
    root = Path(path)
    if not root.exists():
        raise ReplayError(f"RESULTS_DIR {str(root)!r} does not exist; give a dir written by "
                          "`bluffsim run` or `bluffsim evaluate`")
    if not root.is_dir():
        raise ReplayError(f"RESULTS_DIR {str(root)!r} is a file, not a dir; give a dir written "
                          "by `bluffsim run` or `bluffsim evaluate`")
    if (root / EVALUATION_FILE).is_file():
        return _evaluate_source(root, table)
    if table:
        raise ReplayError(f"--table {table}: {str(root)!r} is a run dir (config.json), not an "
                          "evaluate dir; --table picks a table of `bluffsim evaluate`'s output")
    if not (root / CONFIG_FILE).is_file():
        raise ReplayError(f"{str(root)!r} holds no config.json (nor evaluation.json): give a "
                          "results dir written by `bluffsim run` or `bluffsim evaluate`")
    if not (root / GAMES_FILE).is_file():
        raise ReplayError(f"{str(root)!r} holds no games.parquet: the run is not finished "
                          "(`bluffsim run CONFIG --resume` finishes it)")
    identity = read_json(root / CONFIG_FILE).get("identity")
    lineup = _lineup(identity, root / CONFIG_FILE)
    manifest = read_json(root / MANIFEST_FILE) if (root / MANIFEST_FILE).is_file() else {}
    return Source(root, root / GAMES_FILE, lineup, rounds_path=root / ROUNDS_FILE,
                  manifest=manifest)


def _lineup(identity: Any, where: Path) -> Lineup:
    """A ``Lineup`` from a config's ``identity`` dict."""
    try:
        return Setup.of(identity)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ReplayError(f"{str(where)!r} has no readable identity (game, players, rules, "
                          "seats): not a bluffsim config, or a corrupt one") from None


def _evaluate_source(root: Path, table: str) -> Source:
    """An evaluate dir's table, its lineup rebuilt from the evaluated agent (``evaluate``)."""
    from bluffsim import evaluate as E

    identity = read_json(root / EVALUATION_FILE).get("identity") or {}
    keys = [str(k) for k in identity.get("tables", [])]
    if not table:
        raise ReplayError(f"{str(root)!r} is an evaluate dir: name one of its tables with "
                          f"--table ({', '.join(keys) or 'it lists none'})")
    if table not in keys:
        raise ReplayError(f"--table {table}: {str(root)!r} has no such table; its tables: "
                          f"{', '.join(keys)}")
    games_path = root / TABLES_DIR / f"{table}.parquet"
    if not games_path.is_file():
        raise ReplayError(f"--table {table}: {str(games_path)!r} is missing: the evaluation is "
                          "not finished (`bluffsim evaluate ... --resume` plays it)")
    try:
        subject = E.parse_subject(str(identity.get("agent", "")))
        found = [t for t in E.battery(subject, str(identity.get("budget", "")))
                 if t.key == table]
    except BluffsimError as e:
        raise ReplayError(f"cannot rebuild the evaluated agent of {str(root)!r}: {e}") from None
    if not found:
        raise ReplayError(f"--table {table}: the battery of {identity.get('agent')!r} no longer "
                          "has this table (bluffsim changed since the evaluation)")
    exp = E.table_experiment(found[0], int(identity.get("games", 0)))
    return Source(root, games_path, Setup.of(exp), table=table)
