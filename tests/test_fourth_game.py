"""The game contract proven by a fourth game (issue 27 item 5): Liar's Dice lives in the test
suite (``tests/extra_games/liarsdice``), joins through the public discovery
(``BLUFFSIM_GAMES_PATH``, set in ``tests/conftest.py``) and so runs every suite parametrised over
``bluffsim.list_games()`` — conformance, spec, compiled engine and fused random loop, adapters,
rules document.  This file adds what those suites do not reach for every game: discovery in a
fresh process, a tournament and its report from the command line, the terminal view, and the
fact that nothing outside its package had to name it (``docs/adding_a_game.md``)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bluffsim
from bluffsim.cli import main
from bluffsim.play import TerminalGame, parse_seats
from tests.test_game_ids import ROOT, game_mentions, outside_files

HERE = Path(__file__).parent / "extra_games"
GAME = "liarsdice"


def test_the_game_is_found_by_the_public_discovery_and_lives_outside_the_package() -> None:
    assert GAME in bluffsim.list_games()
    module = bluffsim.game_module(GAME)
    assert module.__name__ == f"bluffsim.games.{GAME}"
    assert Path(module.__file__).resolve().parent == (HERE / GAME).resolve()
    assert not (Path(bluffsim.__file__).parent / "games" / GAME).exists()


def test_a_fresh_process_finds_it_only_through_the_variable() -> None:
    code = "import bluffsim; print(','.join(bluffsim.list_games()))"
    env = dict(os.environ)
    with_var = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, check=True).stdout.split()[-1].split(",")
    env.pop("BLUFFSIM_GAMES_PATH")
    without = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout.split()[-1].split(",")
    assert with_var == bluffsim.list_games() and GAME not in without
    assert set(with_var) - set(without) == {GAME}


def test_nothing_outside_its_package_names_it() -> None:
    """A new game touches only its package: no module of bluffsim/ or agents/ names it."""
    games = bluffsim.list_games()
    named = {str(p.relative_to(ROOT)) for p in outside_files(games) if GAME in game_mentions(p, games)}
    assert named == set()


def test_a_tournament_and_its_report_from_the_command_line(tmp_path, capsys) -> None:
    """``bluffsim run`` (two workers, no plots) with random agents, then ``bluffsim report`` in a
    fresh process: results, per-seat round columns, the bluff table, the plots."""
    conf = tmp_path / "ld.toml"
    conf.write_text(f"""
[experiment]
name = "ld"
game = "{GAME}"
players = 3
games = 60
seed = 7
[[seats]]
agent = "random"
[[seats]]
agent = "random"
[[seats]]
agent = "random"
[run]
batch = 16
shard_games = 20
workers = 2
plots = false
""")
    out = tmp_path / "res"
    assert main(["run", str(conf), "--out", str(out), "--quiet"]) == 0
    assert "win rate" in capsys.readouterr().out
    games = pd.read_parquet(out / "games.parquet")
    rounds = pd.read_parquet(out / "rounds.parquet")
    assert games["game"].nunique() == 60 and (games.groupby("game")["placement"].min() == 1).all()
    for col in bluffsim.spec(GAME).seat_columns:
        assert (rounds[f"{col}_agent"] != "").all(), col
    # each round (call) costs one die of the 3 x 2 until one seat is left: the winner's dice
    assert len(rounds) == (6 - games.groupby("game")["score"].sum()).sum()
    assert rounds["call_right"].any() and not rounds["call_right"].all()
    rebuilt = [out / "summary.csv", out / "bluff.csv", out / "plots" / "call_accuracy.png",
               out / "plots" / "win_rates.png"]
    assert not any(f.is_file() for f in rebuilt[2:])  # the run drew no plots: the report does
    for f in rebuilt[:2]:
        f.unlink()
    proc = subprocess.run([sys.executable, "-m", "bluffsim.cli", "report", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert all(f.is_file() for f in rebuilt)
    bluff = pd.read_csv(out / "bluff.csv")
    assert bluff["claims_checked"].sum() == len(rounds) == bluff["calls"].sum()


def test_the_terminal_view_plays_a_full_game_and_hides_the_other_cups() -> None:
    out = io.StringIO()
    game = TerminalGame(GAME, parse_seats("human,random,random"), 4, {},
                        read=lambda _: "0", out=out)
    assert game.play()
    screen = out.getvalue()
    assert "round 1 over: " in screen and "=== game over" in screen
    for seat in range(3):
        assert re.search(rf"^  seat {seat} \([^)]*\): place \d ", screen, re.M), seat
    # the human's dice are shown as "your dice"; an opponent's cup never is
    assert "your dice: " in screen and "seat 1's dice" not in screen
    watch = io.StringIO()
    assert TerminalGame(GAME, parse_seats("random,random", watch=True), 5, {},
                        out=watch, watch=True).play()
    assert "=== game over" in watch.getvalue()


def test_the_fused_random_loop_is_what_bench_measures() -> None:
    game = bluffsim.make(GAME, 4, dice=3)
    st = game.init(np.arange(64))
    made, rounds, ended = game.play_random(st, 10_000)
    assert ended == 64 and made == int(st.num_decisions.sum())
    assert rounds == int(st.num_rounds.sum()) == 64 * 12 - int(st.dice_left.sum())


def test_the_gymnasium_envs_play_it() -> None:
    """Gymnasium's own checker on the single env; the vector env (record-backed autoreset) plays
    whole games against ``random`` with zero-sum placement rewards."""
    pytest.importorskip("gymnasium", reason="needs the 'adapters' extra")
    from gymnasium.utils.env_checker import check_env

    from bluffsim.adapters.gymnasium import env, vector_env

    check_env(env(GAME, num_players=3), skip_render_check=True)
    v = vector_env(GAME, 16, seat="rotate", num_players=3)
    obs, info = v.reset(seed=2)
    pick = np.random.default_rng(0)
    ended, total = 0, 0.0
    for _ in range(300):
        mask = info["action_mask"]
        a = np.array([pick.choice(np.flatnonzero(m)) for m in mask])
        obs, r, term, trunc, info = v.step(a)
        assert obs.shape == (16, v.obs_size) and np.isfinite(obs).all()
        ended += int((term | trunc).sum())
        total += float(r[term | trunc].sum())
    assert ended > 16 and abs(total) <= ended
