"""Pools (issue 13 #9): more agents than seats, every lineup or N seeded lineups, ratings over
the whole pool, determinism across workers, one-line errors."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from bluffsim.tournament import ConfigError, parse_config, run_experiment
from bluffsim.tournament.runner import schedule_of

ROOT = Path(__file__).resolve().parents[1]


def pool_cfg(k=5, players=3, lineups="combinations", games=120, **run):
    return {"experiment": {"name": "pool", "game": "qdv", "players": players, "games": games,
                           "seed": 9},
            "pool": [{"agent": "random", "label": f"r{i}"} if i % 2 else
                     {"agent": "heuristic", "label": f"h{i}"} for i in range(k)],
            "run": {"lineups": lineups, "batch": 16, "shard_games": 40, "plots": False, **run}}


def lineups_played(games: pd.DataFrame) -> pd.Series:
    return games.groupby("game")["agent"].apply(lambda s: tuple(sorted(s)))


def test_combinations_play_every_subset_equally_in_every_rotation(tmp_path):
    raw = pool_cfg(games=300)                   # C(5, 3) = 10 lineups x 3 rotations x 10
    raw["run"]["out"] = str(tmp_path / "p")
    run_experiment(parse_config(raw), progress=False)
    games = pd.read_parquet(tmp_path / "p" / "games.parquet")
    played = lineups_played(games)
    labels = [e["label"] for e in raw["pool"]]
    assert set(played) == {tuple(sorted(c)) for c in itertools.combinations(labels, 3)}
    assert set(played.value_counts()) == {30}
    # within each lineup every agent sat in every seat equally often
    per = games.assign(lineup=games["game"].map(played)).groupby(["lineup", "agent", "seat"]).size()
    assert set(per) == {10}
    summary = pd.read_csv(tmp_path / "p" / "summary.csv", index_col="agent")
    ratings = pd.read_csv(tmp_path / "p" / "ratings.csv", index_col="agent")
    h2h = pd.read_csv(tmp_path / "p" / "head_to_head.csv", index_col="agent")
    assert set(summary.index) == set(ratings.index) == set(h2h.index) == set(labels)
    assert (summary["games"] == 180).all()      # each agent is in 6 of the 10 lineups
    lineups = pd.read_csv(tmp_path / "p" / "lineups.csv")
    assert lineups["lineup"].nunique() == 10 and (lineups["games"] == 30).all()


def test_sampled_lineups_are_seeded_and_independent_of_workers(tmp_path):
    exp = parse_config(pool_cfg(k=6, lineups=4, games=96))
    sched = schedule_of(exp)
    assert len(sched.lineups) == 4 and all(len(set(lu)) == 3 for lu in sched.lineups)
    assert schedule_of(parse_config(pool_cfg(k=6, lineups=4))).lineups == sched.lineups
    other = pool_cfg(k=6, lineups=4)
    other["experiment"]["seed"] = 10
    assert schedule_of(parse_config(other)).lineups != sched.lineups
    frames = []
    for workers in (1, 2):
        raw = pool_cfg(k=6, lineups=4, games=96, workers=workers)
        raw["run"]["out"] = str(tmp_path / f"w{workers}")
        run_experiment(parse_config(raw), progress=False)
        frames.append(pd.read_parquet(tmp_path / f"w{workers}" / "games.parquet"))
    pd.testing.assert_frame_equal(frames[0], frames[1])
    assert lineups_played(frames[0]).nunique() <= 4


@pytest.mark.parametrize("change, message", [
    (lambda r: r["run"].update(lineups=0), r"run.lineups = 0 is invalid"),
    (lambda r: r["run"].update(lineups="all"), r"run.lineups = 'all' is invalid"),
    (lambda r: r.update(pool=r["pool"][:2]), r"the \[\[pool\]\] has 2 agents for players = 3"),
    (lambda r: r.update(seats=r["pool"]), r"either \[\[seats\]\] .* or \[\[pool\]\]"),
    (lambda r: r.update(seats=r.pop("pool")[:3]), r"run.lineups needs a \[\[pool\]\]"),
])
def test_pool_config_errors(change, message):
    raw = pool_cfg()
    change(raw)
    with pytest.raises(ConfigError, match=message):
        parse_config(raw)


def test_too_many_combinations_ask_for_sampled_lineups():
    raw = pool_cfg(k=30, players=5)
    with pytest.raises(ConfigError, match=r"C\(30, 5\) = 142,506 lineups \(at most 100,000\); give a "
                                          "number of sampled lineups"):
        parse_config(raw)
    raw["run"]["lineups"] = 50
    assert len(schedule_of(parse_config(raw)).lineups) == 50


def test_the_example_pool_config_runs_from_the_cli_and_report_rebuilds_it(tmp_path):
    out = tmp_path / "pool"
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "bluffsim.cli", "run", "experiments/pool_qdv.toml",
                           "--games", "120", "--workers", "2", "--out", str(out), "--quiet"],
                          capture_output=True, text=True, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    summary = pd.read_csv(out / "summary.csv", index_col="agent")
    assert len(summary) == 6 and (out / "plots" / "win_rates.png").is_file()
    saved = json.loads((out / "config.json").read_text())["config"]
    assert saved["lineups"] == "combinations" and len(saved["seats"]) == 6
    (out / "ratings.csv").unlink()
    (out / "lineups.csv").unlink()
    proc = subprocess.run([sys.executable, "-m", "bluffsim.cli", "report", str(out)],
                          capture_output=True, text=True, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    assert len(pd.read_csv(out / "ratings.csv")) == 6
    assert pd.read_csv(out / "lineups.csv")["lineup"].nunique() == 20


def test_a_bad_pool_is_a_one_line_cli_error(tmp_path):
    conf = tmp_path / "p.toml"
    conf.write_text((ROOT / "experiments" / "pool_qdv.toml").read_text()
                    .replace('lineups = "combinations"', "lineups = -3"))
    proc = subprocess.run([sys.executable, "-m", "bluffsim.cli", "run", str(conf), "--out",
                           str(tmp_path / "o")], capture_output=True, text=True,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and "run.lineups = -3 is invalid" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_pool_with_a_partial_cycle_is_flagged_with_the_games_each_agent_plays():
    """The example pool with balanced seatings and --games 100: not a whole number of the
    20 lineups x 6 seatings, so agents play 42 to 60 games each (counted on the runner's
    schedule); 120 games play every lineup in every seating once, 60 games each."""
    from bluffsim.tournament.sweep import load_plan

    exp = load_plan(ROOT / "experiments" / "pool_qdv.toml", ['run.seating="balanced"'])
    for games, spread, whole in ((100, (42, 60), False), (120, (60, 60), True)):
        sched = schedule_of(exp.with_overrides(games=games))
        b = sched.balance()
        played = pd.Series(sched.seat_lineup(range(games)).ravel()).value_counts()
        assert (int(played.min()), int(played.max())) == b.agent_games == spread
        assert b.whole is whole and b.cycle == 120
    warning = schedule_of(exp.with_overrides(games=100)).balance().warning()
    assert "agents play 42 to 60 games each" in warning
    assert "one cycle is 120 games (20 lineups x the 6 balanced seatings of 3 players)" in warning
    assert warning.endswith("play 120 games for an exact balance")
