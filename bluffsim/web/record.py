"""The results dir of ``bluffsim serve``: every finished game as ``bluffsim run`` writes games.

Layout (``bluffsim.results``): ``config.json`` (the table's experiment, ``bluffsim.web.setup``;
``games`` counts the games started, rewritten when one starts), per finished game ``k`` the
shard ``shards/games-<k>.parquet`` / ``rounds-<k>.parquet`` and ``transcripts/<k>.jsonl`` (the
human's decisions, then the ``end`` line of the text agents' format), ``games.parquet`` and
``rounds.parquet`` merged from every finished shard, ``manifest.json`` and the report's tables
(``bluffsim report DIR`` draws the plots).  The shards stay: each new game's rows are merged
with them again.  A game that was started and never finished leaves its number unused.

The rows come from the fast engine replaying the game's actions from its seed, as the runner
records them, so they are the rows ``bluffsim run`` would write for those decisions; the
replay also checks that the reference engine the game was played on ended it the same way.
"""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import bluffsim
from bluffsim.api import BluffsimError
from bluffsim.play import display_for
from bluffsim.results import (
    SHARD_RE,
    _atomic_write,
    _jsonable,
    _stream_concat,
    shard_paths,
    write_json,
    write_shard,
)
from bluffsim.tournament.config import Experiment
from bluffsim.tournament.output import write_manifest
from bluffsim.tournament.runner import _frame, _game_records


class RecordError(BluffsimError):
    """A finished game could not be written (the message says why); the server goes on."""


class ResultsDir:
    """Numbers games and writes the finished ones (module docstring); thread-safe."""

    def __init__(self, setup: Any):
        self.setup = setup
        self.out: Path = setup.out
        self.started = setup.first_game
        self.lock = threading.Lock()
        self.opened = datetime.now(UTC).isoformat(timespec="seconds")
        self.written = 0      # games this server wrote

    def experiment(self) -> Experiment:
        """The dir's experiment with the games started so far."""
        return self.setup.experiment(self.started)

    def new_game(self) -> int:
        """The next game number; ``config.json`` then counts it."""
        with self.lock:
            number = self.started
            self.started += 1
            exp = self.experiment()
            (self.out / "shards").mkdir(parents=True, exist_ok=True)
            write_json(self.out / "config.json", {"identity": _jsonable(exp.identity()),
                                                  "config": exp.to_dict()})
            return number

    def write(self, number: int, seed: int, actions: list[int], decisions: list[dict[str, Any]],
              placements: list[int], seconds: float) -> str:
        """Write finished game ``number`` (seed, every action, the human's transcript lines, its
        placements on the reference engine); returns what was written, in words."""
        with self.lock:
            exp = self.experiment()
            games, rounds, end = game_tables(exp, number, seed, actions, decisions)
            if end["placements"] != placements:
                raise RecordError(f"game {number} replayed from its seed ends with placements "
                                  f"{end['placements']}, not {placements}: not recorded")
            write_shard(self.out, number, games, rounds)
            text = "".join(json.dumps(line, ensure_ascii=False, default=str) + "\n"
                           for line in [*decisions, end])
            (self.out / "transcripts").mkdir(exist_ok=True)
            _atomic_write(self.out / "transcripts" / f"{number:06d}.jsonl", text.encode())
            finished = self.merge()
            write_manifest(self.out, exp, {"opened": self.opened, "games_finished": finished,
                                           "last_game_seconds": round(seconds, 3),
                                           "written": datetime.now(UTC).isoformat(
                                               timespec="seconds")})
            self.report()
            self.written += 1
            return (f"game {number} is saved in {self.out}: games.parquet, rounds.parquet, "
                    f"transcripts/{number:06d}.jsonl")

    def merge(self) -> int:
        """``games.parquet`` and ``rounds.parquet`` from every finished game's shard; returns the
        number of finished games."""
        numbers = sorted(int(m.group(1)) for p in (self.out / "shards").iterdir()
                         if (m := SHARD_RE.fullmatch(p.name)))
        for kind, name in ((1, "rounds.parquet"), (0, "games.parquet")):
            _stream_concat([shard_paths(self.out, k)[kind] for k in numbers], self.out / name)
        return len(numbers)

    def report(self) -> None:
        """The report's tables (no plots: ``bluffsim report DIR`` draws them)."""
        from bluffsim.analysis.report import build_report

        build_report(self.out, plots_too=False)


def game_tables(exp: Experiment, number: int, seed: int, actions: list[int],
                decisions: list[dict[str, Any]]) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """(games rows, rounds rows, transcript ``end`` line) of one game, from the fast engine
    replaying ``actions`` from ``seed`` as the runner records a game (module docstring)."""
    game = bluffsim.make(exp.game, exp.players, **exp.rules)
    seat_columns = bluffsim.spec(exp.game).seat_columns
    labels = np.asarray([*exp.labels, ""], dtype=object)
    display = display_for(exp.game, game.rules, list(exp.labels), 0, omniscient=True)
    asked = {int(d["decision"]) for d in decisions}
    st = game.init(np.array([seed], np.uint64))
    round_rows, hidden = [], []
    for action in actions:
        if int(st.num_decisions[0]) in asked and hasattr(st, "hands"):
            hidden.append({"decision": int(st.num_decisions[0]), "seat": int(st.current_player[0]),
                           "hands": [display.cards(h) for h in np.asarray(st.hands[0])]})
        game.step(st, np.array([action], np.int64))
        if st.round_over[0]:
            rec = game.round_record(st, np.array([0]))
            rec["game"] = np.array([number], np.int64)
            for key in seat_columns:
                if key in rec:
                    s = rec[key].astype(np.int64)
                    rec[f"{key}_agent"] = labels[np.where(s >= 0, s, len(exp.labels))]
            round_rows.append(rec)
    if not st.done[0]:
        raise RecordError(f"game {number} replayed from its seed is not over after its "
                          f"{len(actions)} actions: not recorded")
    done = np.array([0])
    lineup = np.arange(exp.players)[None, :]
    rows = _game_records(exp, game, st, done, np.array([number], np.int64),
                         np.array([seed], np.uint64), lineup)
    end = {"type": "end", "game": number, "seed": seed, "agents": list(exp.labels),
           "placements": [int(p) for p in st.placements[0]], "forfeit": [],
           "rounds": int(st.num_rounds[0]), "truncated": bool(st.truncated[0]), "hidden": hidden,
           "final_hands": [display.cards(h) for h in np.asarray(st.hands[0])]
           if hasattr(st, "hands") else []}
    return _frame([rows], ["game", "seat"]), _frame(round_rows, ["game", "round"]), end
