"""``[run] seating = "balanced"`` (issue 25): every agent in every seat equally often and
immediately after (and before) every other agent equally often, around the table."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from itertools import permutations

import numpy as np
import pandas as pd
import pytest

from bluffsim.cli import main
from bluffsim.tournament import ConfigError, parse_config
from bluffsim.tournament.runner import schedule_of
from bluffsim.tournament.schedule import Schedule, balanced_seatings

GAME_OF = {2: "qdv", 3: "veru", 4: "veru", 5: "veru", 6: "veru"}


def raw(players: int, games: int, **run) -> dict:
    return {"experiment": {"name": "s", "game": GAME_OF[players], "players": players,
                           "games": games, "seed": 3},
            "seats": [{"agent": "random", "label": f"a{j}"} for j in range(players)],
            "run": {"plots": False, **run}}


SIZE = {2: 2, 3: 6, 4: 12, 5: 60, 6: 60}   # design sizes (P! = 2, 6, 24, 120, 720)


def balance(lineup: np.ndarray) -> tuple[Counter, Counter, Counter]:
    """(agent, seat) counts, (agent, agent after it) and (agent, agent before it), around the
    circle: seat P-1 is followed by seat 0."""
    p = lineup.shape[1]
    seats = Counter((int(a), s) for row in lineup for s, a in enumerate(row))
    after = Counter(zip(lineup.ravel().tolist(), np.roll(lineup, -1, axis=1).ravel().tolist(),
                        strict=True))
    before = Counter(zip(lineup.ravel().tolist(), np.roll(lineup, 1, axis=1).ravel().tolist(),
                         strict=True))
    assert len(seats) == p * p
    return seats, after, before


def neighbourhoods(lineup: np.ndarray) -> Counter:
    """(previous, agent, next) counts around the circle."""
    return Counter(zip(np.roll(lineup, 1, axis=1).ravel().tolist(), lineup.ravel().tolist(),
                       np.roll(lineup, -1, axis=1).ravel().tolist(), strict=True))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("duplicate", [False, True])
def test_the_runners_schedule_balances_seats_and_neighbours(players, duplicate):
    """On the schedule the runner plays, over 3 design cycles: every agent in every seat equally
    often, and every ordered pair of agents adjacent equally often in both directions."""
    size = SIZE[players]
    exp = parse_config(raw(players, 3 * size, seating="balanced", duplicate=duplicate))
    sched = schedule_of(exp)
    assert len(sched.seatings) == size
    games = np.arange(exp.games)
    lineup = sched.seat_lineup(games)
    seats, after, before = balance(lineup)
    assert set(seats.values()) == {3 * size // players}
    pairs = players * (players - 1)
    assert len(after) == len(before) == pairs and all(a != b for a, b in after)
    assert set(after.values()) == set(before.values()) == {3 * size * players // pairs}
    if players >= 3:   # and every agent between every ordered pair of others equally often
        triples = neighbourhoods(lineup)
        assert len(triples) == players * (players - 1) * (players - 2)
        assert len(set(triples.values())) == 1
    deals = sched.deals(games)
    if duplicate:   # each deal replayed under every seating of the design, once
        assert np.array_equal(deals, games // size)
        for d in range(3):
            block = sched.rotations(games[deals == d])
            assert sorted(block.tolist()) == list(range(size))
    else:
        assert np.array_equal(deals, games)
    assert len(set(sched.seeds(games).tolist())) == (3 if duplicate else exp.games)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_design_is_pinned_and_its_rows_are_seatings(players):
    """The design is searched deterministically; its digest is pinned, since results depend on
    it (a change would silently change every balanced run's games)."""
    digests = {2: "d5e2d2ac07b741be", 3: "5203ab8c5cfd0dcb", 4: "ef7f130af79777ad",
               5: "a0a4ac8805fe1c8c", 6: "819bfeba946f2910"}
    design = balanced_seatings(players)
    assert design.shape == (SIZE[players], players)
    assert all(sorted(row) == list(range(players)) for row in design.tolist())
    assert hashlib.sha256(design.tobytes()).hexdigest()[:16] == digests[players]


def test_a_williams_square_alone_would_not_balance_the_circle():
    """Why the design is not the P rows of a Williams square: around the table the wrap-around
    pair doubles (4 players: agent 0 has agent 2 after it twice)."""
    square = np.array([[(x + r) % 4 for x in (0, 1, 3, 2)] for r in range(4)])
    _, after, _ = balance(square)
    assert set(after.values()) == {1, 2}


def test_old_keys_keep_their_schedules_and_identity():
    """Without ``seating`` the booleans decide exactly as before; the resume identity has no
    ``seating`` key; naming the old cycle gives the same schedule."""
    for run, legacy in [({}, dict(rotate=True)), ({"rotate": False}, dict(rotate=False)),
                        ({"permute": True}, dict(permute=True)),
                        ({"rotate": False, "permute": True}, dict(rotate=False, permute=True)),
                        ({"duplicate": True}, dict(rotate=True, duplicate=True))]:
        exp = parse_config(raw(4, 48, **run))
        old = Schedule(3, 48, 4, shard_games=5000, **legacy)
        new = schedule_of(exp)
        g = np.arange(48)
        assert np.array_equal(new.seat_lineup(g), old.seat_lineup(g))
        assert np.array_equal(new.seeds(g), old.seeds(g))
        assert "seating" not in exp.identity()
    four = list(permutations(range(4)))
    assert np.array_equal(schedule_of(parse_config(raw(4, 24, seating="permute"))).seatings, four)
    assert np.array_equal(schedule_of(parse_config(raw(4, 24, seating="rotate"))).seatings,
                          schedule_of(parse_config(raw(4, 24))).seatings)
    assert parse_config(raw(4, 24, seating="balanced")).identity()["seating"] == "balanced"


@pytest.mark.parametrize("run, message", [
    ({"seating": "balanced", "permute": True}, "run.seating = 'balanced' contradicts run.permute = true"),
    ({"seating": "rotate", "permute": True}, "run.seating = 'rotate' contradicts run.permute = true"),
    ({"seating": "balanced", "rotate": False}, "run.seating = 'balanced' contradicts run.rotate = false"),
    ({"seating": "williams"}, "run.seating = 'williams' is invalid; allowed: \"rotate\" | "
                              "\"permute\" | \"balanced\""),
])
def test_contradictions_and_bad_values_are_refused(run, message):
    with pytest.raises(ConfigError) as e:
        parse_config(raw(4, 24, **run))
    assert message in str(e.value) and "\n" not in str(e.value)
    assert parse_config(raw(4, 24, seating="permute", permute=True)).seating_mode == "permute"


TOML = """
[experiment]
name = "balanced"
game = "veru"
players = 4
games = 48
seed = 2
[[seats]]
agent = "counting"
[[seats]]
agent = "heuristic"
[[seats]]
agent = "random"
[[seats]]
agent = "random"
[run]
batch = 16
shard_games = 24
duplicate = true
seating = "balanced"
plots = false
"""


def test_bluffsim_run_plays_a_balanced_config_end_to_end(tmp_path, capsys):
    conf = tmp_path / "c.toml"
    conf.write_text(TOML)
    out = tmp_path / "res"
    assert main(["run", str(conf), "--out", str(out), "--quiet"]) == 0
    assert "win rate" in capsys.readouterr().out
    games = pd.read_parquet(out / "games.parquet")
    assert games["game"].nunique() == 48 and games["seed"].nunique() == 4
    lineup = {"counting": 0, "heuristic": 1, "random-2": 2, "random-3": 3}
    seated = (games.sort_values(["game", "seat"])["agent"].map(lineup)
              .to_numpy().reshape(48, 4))
    seats, after, _ = balance(seated)
    assert set(seats.values()) == {12} and set(after.values()) == {16}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seeds"]["seating"] == "balanced"


def test_a_bad_seating_is_one_line_and_exit_2(tmp_path):
    conf = tmp_path / "bad.toml"
    conf.write_text(TOML.replace('seating = "balanced"', 'seating = "balanced"\npermute = true'))
    out = tmp_path / "o"
    proc = subprocess.run([sys.executable, "-m", "bluffsim.cli", "run", str(conf), "--out",
                           str(out)], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("bluffsim: error: run.seating = 'balanced' contradicts")
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert not out.exists()


# ------------------------------------------------------------------ partial cycles
def spreads(lineup: np.ndarray) -> tuple[tuple[int, int], tuple[int, int]]:
    """(fewest, most) games of an agent in one seat, and of agent b right after agent a, counted
    on the games' lineups (every (agent, seat) and ordered pair, absent ones as 0)."""
    p = lineup.shape[1]
    seats = np.zeros((p, p), np.int64)
    after = np.zeros((p, p), np.int64)
    for s in range(p):
        np.add.at(seats, (lineup[:, s], s), 1)
        np.add.at(after, (lineup[:, s], lineup[:, (s + 1) % p]), 1)
    off = after[~np.eye(p, dtype=bool)]
    return (int(seats.min()), int(seats.max())), (int(off.min()), int(off.max()))


@pytest.mark.parametrize("players, games, run, words", [
    (6, 90, {"permute": True}, "an agent plays 0 to 90 games in one seat"),
    (5, 100, {"seating": "balanced"}, "one agent sits right after another in 15 to 30 games"),
    (6, 90, {"seating": "balanced", "duplicate": True}, "an agent plays 11 to 19 games in one seat"),
])
def test_a_partial_seating_cycle_is_named_with_the_counts_it_unbalances(players, games, run,
                                                                         words):
    """The issue's cases: a game count that is not a whole number of design cycles is flagged,
    with the cycle, the nearest whole counts and the spread the runner's schedule really plays;
    a whole number of cycles is not flagged and leaves every count equal."""
    exp = parse_config(raw(players, games, **run))
    sched = schedule_of(exp)
    b = sched.balance()
    cycle = len(sched.seatings)
    assert b.cycle == cycle and not b.whole and words in b.warning()
    assert (b.below, b.above) == (games // cycle * cycle, games // cycle * cycle + cycle)
    nearest = f"{b.below:,} or {b.above:,}" if b.below else f"{b.above:,}"
    assert f"one cycle is {cycle:,} games" in b.warning()
    assert f"play {nearest} games for an exact balance" in b.warning()
    assert (b.seat_games, b.after_games) == spreads(sched.seat_lineup(np.arange(games)))
    whole = schedule_of(parse_config(raw(players, 2 * cycle, **run)))
    w = whole.balance()
    assert w.whole and w.seat_games[0] == w.seat_games[1] and w.after_games[0] == w.after_games[1]
    assert (w.seat_games, w.after_games) == spreads(whole.seat_lineup(np.arange(2 * cycle)))


def test_rotation_and_fixed_seats_claim_only_what_they_balance():
    """Rotation balances seats (so a partial cycle is flagged) but not neighbours; fixed seats
    balance nothing, so any count is whole."""
    b = schedule_of(parse_config(raw(4, 30))).balance()
    assert not b.whole and b.cycle == 4 and b.after_games is None
    assert b.seat_games == spreads(schedule_of(parse_config(raw(4, 30))).seat_lineup(
        np.arange(30)))[0] == (7, 8)
    fixed = schedule_of(parse_config(raw(4, 30, rotate=False))).balance()
    assert fixed.whole and fixed.cycle == 1 and fixed.seat_games is None


def test_bluffsim_run_warns_of_a_partial_cycle_before_playing_and_records_it(tmp_path, capsys):
    """6 players, permute, 90 games: one warning line on stderr before the progress bar, the
    flag and the spread in manifest.json, and a note under the summary; a whole number of
    cycles gives none of them."""
    conf = tmp_path / "p.toml"
    conf.write_text(TOML.replace("players = 4", "players = 6").replace("games = 48", "games = 90")
                    .replace('agent = "random"', 'agent = "random"\n[[seats]]\nagent = "random"')
                    .replace('seating = "balanced"', 'seating = "permute"')
                    .replace("duplicate = true", "duplicate = false"))
    out = tmp_path / "res"
    assert main(["run", str(conf), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if "warning" in line]
    assert len(warnings) == 1, captured.err
    assert warnings[0].startswith("bluffsim: warning: 90 games is not a whole number of seating "
                                  "cycles, so the seatings are unbalanced (")
    assert "one cycle is 720 games (all 720 orders of 6 players)" in warnings[0]
    assert warnings[0].endswith("play 720 games for an exact balance")
    assert captured.err.index("warning") < captured.err.index("balanced:")   # before the bar
    seating = json.loads((out / "manifest.json").read_text())["seating"]
    assert seating["whole_cycles"] is False and seating["cycle_games"] == 720
    assert (seating["nearest_below"], seating["nearest_above"]) == (0, 720)
    games = pd.read_parquet(out / "games.parquet")
    assert seating["seat_games"] == [int(x) for x in games.groupby(["agent", "seat"]).size()
                                     .unstack(fill_value=0).stack().agg(["min", "max"])]
    assert 'note: seatings unbalanced: 90 games is not a whole number of 720-game cycles' \
        in captured.out
    whole = tmp_path / "whole"
    assert main(["run", str(conf), "--out", str(whole), "--games", "720", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "warning" not in captured.err and "unbalanced" not in captured.out
    assert json.loads((whole / "manifest.json").read_text())["seating"]["whole_cycles"] is True
