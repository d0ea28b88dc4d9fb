"""``bluffsim play --watch --seed S --seats ...`` replays a tournament game exactly: the seed and
seat order from ``games.parquet``, the seats' agents, parameters and the rules from
``config.json`` (``bluffsim.play.replay_command``) give the placements the run recorded."""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from bluffsim.api import BluffsimError
from bluffsim.cli import main
from bluffsim.play import TerminalGame, parse_seats, replay_command

ROOT = Path(__file__).resolve().parents[1]

CONFIG = """
[experiment]
name = "replayed"
game = "{game}"
players = 3
games = 6
seed = 41

[rules]
{rules}

[[seats]]
agent = "counting"

[[seats]]
agent = "heuristic"
label = "heuristic-bold"
params = {{ {bold} }}

[[seats]]
agent = "random"

[run]
batch = 6
workers = 1
shard_games = 6
plots = false
"""

TABLES = [("qdv", "starting_tokens = 2", "bluff = 0.3, call_margin = 2.0"),
          ("legumes", "hand_size = 3", "accuse_rate = 0.3"),
          ("veru", "jokers = 1", "bluff = 0.3, trust = 0.5")]


def tournament(tmp_path: Path, game: str, rules: str, bold: str) -> pd.DataFrame:
    """A 6-game rotated tournament (the runner's compiled fused loop) and its games.parquet."""
    conf = tmp_path / "c.toml"
    conf.write_text(CONFIG.format(game=game, rules=rules, bold=bold))
    assert main(["run", str(conf), "--out", str(tmp_path / "res"), "--quiet"]) == 0
    return pd.read_parquet(tmp_path / "res" / "games.parquet")


def replayed(command: str) -> tuple[dict[int, int], int]:
    """(placement per seat, decisions) of the game ``command`` plays, in this process."""
    words = shlex.split(command)
    seats = words[words.index("--seats") + 1]
    options = {}
    for i, w in enumerate(words):
        if w == "--rule":
            key, _, value = words[i + 1].partition("=")
            options[key] = __import__("tomllib").loads(f"v = {value}")["v"]
    game = TerminalGame(words[2], parse_seats(seats, watch=True),
                        int(words[words.index("--seed") + 1]), options, out=io.StringIO(),
                        watch=True)
    game.play()
    return dict(enumerate(int(p) for p in game.state.placements)), game.state.num_decisions


@pytest.mark.parametrize("game, rules, bold", TABLES)
def test_a_tournament_game_replays_with_the_placements_recorded(tmp_path, game, rules, bold):
    games = tournament(tmp_path, game, rules, bold)
    for g, rows in games.groupby("game"):
        placed, decisions = replayed(replay_command(tmp_path / "res", g))
        assert placed == dict(zip(rows["seat"].tolist(), rows["placement"].tolist(), strict=True)), g
        assert decisions == int(rows["decisions"].iloc[0]), g
    # and once through the command line exactly as printed: the final screen's places
    g = int(games["game"].max())
    command = replay_command(tmp_path / "res", g)
    assert command.startswith(f"bluffsim play {game} --watch --seed ")
    r = subprocess.run([sys.executable, "-m", "bluffsim.cli", *shlex.split(command)[1:]],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    shown = {int(s): int(p) for s, p in re.findall(r"^  seat (\d) \([^)]*\): place (\d)", r.stdout,
                                                   re.M)}
    rows = games[games["game"] == g]
    assert shown == dict(zip(rows["seat"].tolist(), rows["placement"].tolist(), strict=True))


def test_replay_command_reads_labels_params_and_rules(tmp_path):
    """The seats in seat order as agent:k=v (labels looked up in config.json), the rules as
    --rule; a game that is not there or a dir that is no results dir is a one-line error."""
    games = tournament(tmp_path, *TABLES[0])
    g1 = games[games["game"] == 1].sort_values("seat")
    spelled = {"counting": "counting", "random": "random",
               "heuristic-bold": "heuristic:bluff=0.3:call_margin=2.0"}
    command = replay_command(tmp_path / "res", 1)
    assert command == (f"bluffsim play qdv --watch --seed {int(g1['seed'].iloc[0])} --seats "
                       + ",".join(spelled[a] for a in g1["agent"]) + " --rule starting_tokens=2")
    with pytest.raises(BluffsimError, match="has no game 6: games are numbered from 0"):
        replay_command(tmp_path / "res", 6)
    with pytest.raises(BluffsimError, match="holds no games.parquet and config.json"):
        replay_command(tmp_path, 0)
