"""``bluffsim replay --find``: the games of a results table that match conditions on its columns.

A condition is ``KEY=VALUE`` (or ``!=``, ``>=``, ``<=``, ``>``, ``<``; quote those in a shell).
KEY is a column of the results:

* a per-game column of ``games.parquet`` (``seed``, ``rounds``, ``decisions``, ``truncated``):
  the game's value; VALUE may be ``max`` or ``min`` (``decisions=max``: the longest game);
* a per-seat column (``seat``, ``agent``, ``placement``, ``won``, ``score``, ``forfeit``): some
  seat's row, and all per-seat conditions hold on the **same** seat (``agent=counting
  placement=4``: counting came last);
* ``winner`` / ``winner_agent``: a seat placed first (its seat number / agent label);
* a column of ``rounds.parquet`` (``call``, ``call_right``, ``loser_agent`` …): some round's
  row, all round conditions on the same round (``call=menteur call_right=false``: a wrong
  call of a bluff).

A game matches when every condition holds.  Values are read as the column's type: numbers,
``true`` / ``false``, or text compared exactly.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from bluffsim.replay.record import GAME_COLUMNS, ReplayError, Source, read_parquet

OPS: dict[str, Callable[[Any, Any], Any]] = {
    "!=": operator.ne, ">=": operator.ge, "<=": operator.le, "=": operator.eq,
    ">": operator.gt, "<": operator.lt}
CONDITION = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(!=|>=|<=|=|>|<)\s*(.*?)\s*$")
WINNER = {"winner": "seat", "winner_agent": "agent"}   # derived key -> per-seat column
TRUE, FALSE = ("true", "yes", "1"), ("false", "no", "0")
SHOWN = 20   # matching games listed


@dataclass(frozen=True)
class Condition:
    """One ``KEY OP VALUE`` condition."""

    key: str
    op: str
    value: str

    @property
    def text(self) -> str:
        """As written."""
        return f"{self.key}{self.op}{self.value}"


def parse_condition(text: str) -> Condition:
    """``agent=counting`` -> ``Condition``; a malformed one is a one-line error."""
    m = CONDITION.match(text)
    if not m or not m.group(3):
        raise ReplayError(f"--find {text!r}: write KEY=VALUE (or KEY!=, >=, <=, >, < VALUE), e.g. "
                          "winner=2, agent=counting placement=4 or decisions=max")
    return Condition(m.group(1), m.group(2), m.group(3))


def _columns(source: Source) -> tuple[list[str], list[str], list[str]]:
    """(per-game, per-seat, per-round) columns the table has."""
    names = pq.read_schema(source.games_path).names
    game = [c for c in names if c in GAME_COLUMNS]
    seat = [c for c in names if c not in GAME_COLUMNS]
    rounds: list[str] = []
    if source.rounds_path is not None and source.rounds_path.is_file():
        rounds = [c for c in pq.read_schema(source.rounds_path).names if c != "game"]
    return game, seat, rounds


def _value(cond: Condition, column: pd.Series) -> Any:
    """The condition's value as the column's type."""
    v = cond.value
    try:
        if pd.api.types.is_bool_dtype(column.dtype):
            if v.lower() not in TRUE + FALSE:
                raise ValueError
            return v.lower() in TRUE
        if pd.api.types.is_integer_dtype(column.dtype):
            return int(v)
        if pd.api.types.is_float_dtype(column.dtype):
            return float(v)
    except ValueError:
        kind = "true or false" if pd.api.types.is_bool_dtype(column.dtype) else "a number"
        raise ReplayError(f"--find {cond.text}: {cond.key} is {kind}, not {v!r}") from None
    return v


def _mask(frame: pd.DataFrame, conds: list[Condition], column_of: dict[str, str]) -> pd.Series:
    """Rows of ``frame`` where every condition holds (``column_of`` maps a key to its column)."""
    mask = pd.Series(True, index=frame.index)
    for c in conds:
        col = frame[column_of.get(c.key, c.key)]
        if c.value in ("max", "min") and c.op == "=":
            if not pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
                raise ReplayError(f"--find {c.text}: max and min apply to numbers; {c.key} is not one")
            mask &= col == (col.max() if c.value == "max" else col.min())
        else:
            mask &= OPS[c.op](col, _value(c, col))
    return mask


def _group(key: str, game: list[str], seat: list[str], rounds: list[str]) -> str:
    """Which rows a key's condition is tested on: the game's, a seat's, a winner's or a round's."""
    if key in game:
        return "game"
    if key in seat:
        return "seat"
    return "winner" if key in WINNER else "round"


def find_games(source: Source, texts: list[str]) -> tuple[pd.DataFrame, int]:
    """(one row per matching game: game, seed, rounds, decisions, winner; the table's game
    count) for the conditions ``texts`` (module docstring)."""
    conds = [parse_condition(t) for t in texts]
    game_cols, seat_cols, round_cols = _columns(source)
    known = [*game_cols, *seat_cols, *WINNER, *round_cols]
    for c in conds:
        if c.key not in known:
            raise ReplayError(f"--find {c.text}: no column {c.key!r}; the results have "
                              f"{', '.join(dict.fromkeys(known))}")
    group = {c.key: _group(c.key, game_cols, seat_cols, round_cols) for c in conds}
    of = {g: [c for c in conds if group[c.key] == g] for g in ("game", "seat", "winner", "round")}
    rows = read_parquet(source.games_path, None)
    games = rows.drop_duplicates("game").set_index("game")[[c for c in game_cols if c != "game"]]
    keep = pd.Series(True, index=games.index)
    if of["game"]:
        keep &= _mask(games.reset_index(), of["game"], {}).set_axis(games.index)
    if of["seat"]:
        keep &= games.index.isin(rows.loc[_mask(rows, of["seat"], {}), "game"])
    if of["winner"]:
        first = rows[rows["placement"] == 1]
        keep &= games.index.isin(first.loc[_mask(first, of["winner"], WINNER), "game"])
    if of["round"] and source.rounds_path is not None:
        rounds = read_parquet(source.rounds_path, ["game", *{c.key for c in of["round"]}])
        keep &= games.index.isin(rounds.loc[_mask(rounds, of["round"], {}), "game"])
    winners = (rows[rows["placement"] == 1].groupby("game")
               .apply(lambda g: ", ".join(f"seat {s} {a}" for s, a in zip(g["seat"], g["agent"],
                                                                          strict=True)),
                      include_groups=False))
    out = games[keep].assign(winner=winners.reindex(games.index[keep])).reset_index()
    return out, len(games)


def find_lines(source: Source, texts: list[str], command: str) -> list[str]:
    """What ``--find`` prints: how many games match, the first ``SHOWN``, how to replay one."""
    found, total = find_games(source, texts)
    said = " ".join(texts)
    if found.empty:
        return [f"no game of {source.name} matches {said} (of {total:,} games)"]
    lines = [f"{len(found):,} of {total:,} games of {source.name} match {said}:"]
    cols = [c for c in ("game", "seed", "rounds", "decisions", "truncated", "winner") if c in found]
    table = found[cols].head(SHOWN).to_string(index=False).splitlines()
    lines += [f"  {x}" for x in table]
    if len(found) > SHOWN:
        lines.append(f"  … and {len(found) - SHOWN:,} more")
    lines.append(f"replay one: {command} --game {int(found['game'].iloc[0])}")
    return lines
