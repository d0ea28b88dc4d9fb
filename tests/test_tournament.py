"""Tournament runner: config validation, schedule, determinism, resume, statistics, CLI."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bluffsim
from bluffsim.analysis import stats
from bluffsim.cli import main
from bluffsim.tournament import ConfigError, parse_config, play_shard, run_experiment
from bluffsim.tournament.schedule import Schedule

BASE = {
    "experiment": {"name": "t", "game": "qdv", "players": 3, "games": 60, "seed": 5},
    "seats": [{"agent": "random", "label": "a"}, {"agent": "random", "label": "b"},
              {"agent": "random", "label": "c"}],
    "run": {"batch": 16, "shard_games": 25, "plots": False},
}


def cfg(**changes):
    raw = json.loads(json.dumps(BASE))
    for dotted, value in changes.items():
        section, key = dotted.split("__")
        raw[section][key] = value
    return raw


# ------------------------------------------------------------------ config validation
@pytest.mark.parametrize("changes, message", [
    ({"experiment__game": "poker"},
     r"experiment.game = 'poker' is invalid; allowed: " + r" \| ".join(bluffsim.list_games())),
    ({"experiment__games": 0}, r"experiment.games = 0 is invalid"),
    ({"experiment__colour": 1}, r"unknown key in \[experiment\] 'colour'"),
    ({"run__executor": "slurm"}, r"run.executor = 'slurm' is invalid; allowed: local \| dask"),
    ({"run__batch": -1}, r"run.batch = -1 is invalid"),
    ({"run__speed": 2}, r"unknown key in \[run\] 'speed'"),
    ({"experiment__players": 4}, r"lineup has 3 \[\[seats\]\] but players = 4"),
])
def test_config_errors_name_the_key_and_what_is_allowed(changes, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(cfg(**changes))


def test_config_rejects_bad_rules_and_agents():
    raw = cfg()
    raw["rules"] = {"max_rounds": 0}
    with pytest.raises(ConfigError, match="max_rounds=0"):
        parse_config(raw)
    raw = cfg()
    raw["seats"][0]["agent"] = "oracle"
    with pytest.raises(ConfigError, match="unknown agent 'oracle'"):
        parse_config(raw)
    raw = cfg()
    raw["seats"][1]["params"] = {"temperature": 2}
    with pytest.raises(ConfigError, match="unknown parameter"):
        parse_config(raw)


def test_duplicate_agents_get_unique_labels():
    raw = cfg()
    for s in raw["seats"]:
        s.pop("label")
    assert parse_config(raw).labels == ("random-0", "random-1", "random-2")


# ------------------------------------------------------------------ schedule
def test_rotation_seats_every_agent_in_every_seat_equally():
    sch = Schedule(1, 12, 4, rotate=True)
    lineup = sch.seat_lineup(np.arange(12))
    for agent in range(4):
        seats = np.argwhere(lineup == agent)[:, 1]
        assert np.bincount(seats, minlength=4).tolist() == [3, 3, 3, 3]


def test_permuted_seatings_balance_seats_and_neighbours():
    sch = Schedule(1, 24, 4, permute=True)
    lineup = sch.seat_lineup(np.arange(24))
    for agent in range(4):
        assert np.bincount(np.argwhere(lineup == agent)[:, 1], minlength=4).tolist() == [6] * 4
    # every ordered pair (a, b) has b right after a equally often
    nxt = Counter(zip(lineup.ravel().tolist(), np.roll(lineup, -1, axis=1).ravel().tolist(),
                      strict=True))
    assert set(nxt.values()) == {8} and len(nxt) == 12


def test_duplicate_deals_replay_each_seed_under_every_rotation():
    sch = Schedule(1, 8, 4, rotate=True, duplicate=True)
    seeds = sch.seeds(np.arange(8))
    assert len(set(seeds[:4].tolist())) == 1 and seeds[0] != seeds[4]
    assert sorted(sch.rotations(np.arange(4)).tolist()) == [0, 1, 2, 3]


# ------------------------------------------------------------------ determinism
def test_results_do_not_depend_on_batch_size():
    a = play_shard(parse_config(cfg(run__batch=5)), 1)
    b = play_shard(parse_config(cfg(run__batch=25)), 1)
    pd.testing.assert_frame_equal(a[0], b[0])
    pd.testing.assert_frame_equal(a[1], b[1])


def run_dir(tmp_path, name, **changes):
    raw = cfg(**changes)
    raw["run"]["out"] = str(tmp_path / name)
    exp = parse_config(raw)
    run_experiment(exp, progress=False)
    return pd.read_parquet(tmp_path / name / "games.parquet")


def test_results_do_not_depend_on_workers_or_executor(tmp_path):
    one = run_dir(tmp_path, "w1", run__workers=1)
    two = run_dir(tmp_path, "w2", run__workers=2)
    pd.testing.assert_frame_equal(one, two)
    dask = run_dir(tmp_path, "dask", run__workers=2, run__executor="dask")
    pd.testing.assert_frame_equal(one, dask)


def test_resume_after_a_killed_run_equals_an_uninterrupted_run(tmp_path):
    whole = run_dir(tmp_path, "whole")
    out = tmp_path / "killed"
    raw = cfg()
    raw["run"]["out"] = str(out)
    exp = parse_config(raw)
    run_experiment(exp, progress=False, keep_shards=True)
    # simulate a kill: drop the merged tables, the manifest and two finished shards
    for f in ["games.parquet", "rounds.parquet", "manifest.json", "shards/games-00001.parquet",
              "shards/games-00002.parquet"]:
        (out / f).unlink()
    (out / "shards" / ".games-00002.parquet.tmp").write_bytes(b"partial")
    (out / ".games.parquet.x1y2.tmp").write_bytes(b"partial")
    with pytest.raises(Exception, match="not empty"):
        run_experiment(exp, progress=False)
    run_experiment(exp, resume=True, progress=False)
    resumed = pd.read_parquet(out / "games.parquet")
    pd.testing.assert_frame_equal(whole, resumed)
    assert json.loads((out / "manifest.json").read_text())["timing"]["shards_resumed"] == 1
    assert not list(out.rglob("*.tmp"))       # no temporaries left behind by the kill


def test_resume_refuses_a_dir_made_by_another_config(tmp_path):
    run_dir(tmp_path, "r")
    raw = cfg(experiment__seed=6)
    raw["run"]["out"] = str(tmp_path / "r")
    with pytest.raises(Exception, match="different config"):
        run_experiment(parse_config(raw), resume=True, progress=False)


def test_a_refused_resume_names_the_fields_that_differ(tmp_path):
    """--resume on a dir made by another config lists what differs, in config key form with both
    values (and not the keys that agree)."""
    run_dir(tmp_path, "r")
    raw = cfg(experiment__seed=6, run__rotate=False)
    raw["rules"] = {"max_rounds": 40}
    raw["seats"][1]["params"] = {}
    raw["seats"][2]["agent"] = "heuristic"
    raw["run"]["out"] = str(tmp_path / "r")
    with pytest.raises(Exception, match="different config") as info:
        run_experiment(parse_config(raw), resume=True, progress=False)
    msg = str(info.value)
    for part in ("experiment.seed (5 there, 6 now)", "run.rotate (true there, false now)",
                 "rules.max_rounds (default there, 40 now)",
                 'seats[2].agent ("random" there, "heuristic" now)'):
        assert part in msg, msg
    assert "experiment.game" not in msg and "seats[1]" not in msg and len(msg.splitlines()) == 1


@pytest.mark.parametrize("content", ["{not json", "[]", "{}", '{"identity": 3}'])
def test_resume_with_a_corrupt_config_json_says_it_is_corrupt(tmp_path, capsys, content):
    conf = write_toml(tmp_path / "c.toml", GOOD_TOML)
    out = tmp_path / "r"
    assert main(["run", str(conf), "--out", str(out), "--quiet", "--keep-shards"]) == 0
    (out / "manifest.json").unlink()           # an unfinished run
    (out / "config.json").write_text(content)
    capsys.readouterr()
    assert main(["run", str(conf), "--out", str(out), "--quiet", "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(out / "config.json") in err and "corrupt" in err, err
    assert "different config" not in err and "--force" in err
    assert (out / "config.json").read_text() == content     # left as it was


def test_a_failing_agent_names_agent_game_and_seed(monkeypatch):
    from agents.random import RandomAgent

    def boom(self, obs, mask, rng):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(RandomAgent, "act", boom)
    with pytest.raises(Exception, match=r"agent 'a' raised RuntimeError: kaboom \(qdv, game \d+, seed \d+\)"):
        play_shard(parse_config(cfg()), 0)


# ------------------------------------------------------------------ statistics
def test_wilson_interval_matches_hand_computation():
    lo, hi = stats.wilson_interval(np.array([30]), np.array([100]))
    # p = 0.3, n = 100, z = 1.96: centre 0.3076, half-width 0.0889 (hand computed)
    assert math.isclose(lo[0], 0.2189, abs_tol=5e-4) and math.isclose(hi[0], 0.3958, abs_tol=5e-4)


def toy_games():
    # 3 games, 2 seats: a beats b twice, ties once
    rows = [(0, "a", 1), (0, "b", 2), (1, "a", 1), (1, "b", 2), (2, "a", 1), (2, "b", 1)]
    df = pd.DataFrame(rows, columns=["game", "agent", "placement"])
    df["won"] = df["placement"] == 1
    df["score"] = 0
    return df


def test_summary_head_to_head_and_ratings_on_a_toy_table():
    g = toy_games()
    s = stats.summary(g)
    # issue 13 #11: a shared first place is not a plain win (it was counted as one for both);
    # win_rate counts outright wins, shared ones are counted apart and split in win_share
    assert math.isclose(s.loc["a", "win_rate"], 2 / 3) and s.loc["b", "win_rate"] == 0.0
    assert s.loc["a", "shared_wins"] == 1 and s.loc["b", "shared_wins"] == 1
    assert math.isclose(s.loc["a", "win_share"], 2.5 / 3) and math.isclose(s.loc["b", "win_share"], 0.5 / 3)
    assert s.loc["a", "mean_placement"] == 1.0
    h = stats.head_to_head(g)
    assert math.isclose(h.loc["a", "b"], (1 + 1 + 0.5) / 3)
    assert math.isclose(h.loc["b", "a"], 0.5 / 3)
    r = stats.bradley_terry(g)
    # MM fixed point: pi_a / (pi_a + pi_b) = 2.5 / 3  ->  rating gap 400 log10(5)
    assert math.isclose(r.loc["a", "rating"] - r.loc["b", "rating"], 400 * math.log10(5),
                        rel_tol=1e-6)


def test_plots_return_figures(tmp_path):
    from matplotlib.figure import Figure

    from bluffsim.analysis import plots, seats

    games = run_dir(tmp_path, "p")
    rounds = pd.read_parquet(tmp_path / "p" / "rounds.parquet")
    figs = [plots.win_rates(stats.summary(games)),
            plots.head_to_head_heatmap(stats.head_to_head(games)),
            plots.placement_bars(stats.placement_distribution(games)),
            plots.convergence_lines(stats.convergence(games)),
            plots.call_accuracy(seats.bluff_table(rounds, game="qdv"))]
    assert all(isinstance(f, Figure) for f in figs)


# ------------------------------------------------------------------ CLI
def write_toml(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


GOOD_TOML = """
[experiment]
name = "cli"
game = "qdv"
players = 2
games = 30
seed = 1
[[seats]]
agent = "random"
[[seats]]
agent = "random"
[run]
batch = 8
shard_games = 10
"""


def test_cli_run_prints_a_table_and_writes_results(tmp_path, capsys):
    conf = write_toml(tmp_path / "c.toml", GOOD_TOML)
    out = tmp_path / "res"
    assert main(["run", str(conf), "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "win rate" in printed and "random-0" in printed
    assert (out / "games.parquet").is_file() and (out / "plots" / "win_rates.png").is_file()
    assert main(["report", str(out)]) == 0


@pytest.mark.parametrize("text, message", [
    ("[experiment\n", "malformed TOML"),
    (GOOD_TOML.replace('"qdv"', '"chess"'), "experiment.game = 'chess'"),
    (GOOD_TOML.replace('agent = "random"\n[[seats]]', 'agent = "random"\n[[seats]]\nfoo = 1'),
     "unknown key in seats"),
])
def test_cli_user_errors_are_one_line_and_exit_2(tmp_path, text, message):
    conf = write_toml(tmp_path / "bad.toml", text)
    proc = subprocess.run([sys.executable, "-m", "bluffsim.cli", "run", str(conf), "--out",
                           str(tmp_path / "o")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_cli_unwritable_output_dir_is_a_clear_error(tmp_path, capsys):
    conf = write_toml(tmp_path / "c.toml", GOOD_TOML)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["run", str(conf), "--out", str(blocker / "sub"), "--quiet"]) == 2
    assert "cannot write to output dir" in capsys.readouterr().err


def test_cli_games_lists_options_and_defaults(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "qdv: Qui dit vrai ?" in out and "challenge_on_landing" in out and "max_rounds" in out


def test_the_notebook_executes_on_a_tiny_run_and_shows_its_figures(tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    run_dir(tmp_path, "nb")
    monkeypatch.setenv("BLUFFSIM_RESULTS", str(tmp_path / "nb"))
    monkeypatch.delenv("MPLBACKEND", raising=False)   # the kernel's own (inline) backend
    root = Path(__file__).resolve().parents[1]
    nb = nbformat.read(root / "notebooks" / "win_rates.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(root / "notebooks")}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("games," in "".join(o.get("text", "")) for o in outputs)
    # figures are displayed: win rates, head to head, placements, convergence, call accuracy
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 5
    # the default results path the text promises is the one the code reads
    text = "".join(nb.cells[0].source)
    assert "default `results/quickstart`" in text
    assert '"BLUFFSIM_RESULTS", "results/quickstart"' in "".join(nb.cells[1].source)


def test_the_notebooks_extra_can_execute_a_notebook_from_the_command_line():
    """`pip install -e '.[notebooks]'` brings nbconvert (jupyter nbconvert --execute), and the
    README shows that command."""
    import re
    import tomllib

    root = Path(__file__).resolve().parents[1]
    extra = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {re.split(r"[<>=!~\[ ;]", req, maxsplit=1)[0].lower() for req in extra["notebooks"]}
    assert "nbconvert" in names, extra["notebooks"]
    readme = " ".join((root / "README.md").read_text().split())
    assert "jupyter nbconvert --to notebook --execute notebooks/" in readme


def test_cli_bench_writes_table_and_plot(capsys, tmp_path):
    out = tmp_path / "bench"
    assert main(["bench", "--games", "qdv", "--batches", "8,32", "--repeats", "2", "--seconds",
                 "0.05", "--agents", "random,counting", "--out", str(out)]) == 0
    table = pd.read_parquet(out / "bench.parquet")
    ours = table[table["game"] == "qdv"]
    assert set(ours["engine"]) == {"reference", "vectorised"}
    assert set(ours["agents"]) == {"random", "counting"}
    rates = ["decisions_per_s", "rounds_per_s", "games_per_s"]
    assert (ours[rates[0]] > 0).all() and (ours[rates[1]] > 0).all()
    assert (ours["min"] <= ours["decisions_per_s"]).all()
    assert (ours["decisions_per_s"] <= ours["max"]).all()
    vec = ours[ours["engine"] == "vectorised"]
    assert (vec["state_bytes"] > 0).all() and (vec["peak_mib"] > 0).all()
    assert (out / "bench.png").stat().st_size > 10_000
    printed = capsys.readouterr().out
    assert "OpenSpiel anchor:" in printed
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        assert "skipped" in printed
    else:
        anchor = table[table["engine"] == "openspiel python loop"]
        assert len(anchor) == 1 and anchor["decisions_per_s"].iloc[0] > 0
        assert ours["x_openspiel"].notna().all()
    assert main(["bench", "--agents", "oracle"]) == 2
    assert main(["bench", "--batches", "0"]) == 2




def test_cli_run_on_a_directory_says_it_is_a_directory(tmp_path, capsys):
    assert main(["run", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "is a directory; give an experiment TOML file" in err and len(err.splitlines()) == 1
