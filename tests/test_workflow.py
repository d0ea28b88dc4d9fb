"""Issue 13 defects of the researcher's workflow: each test reproduces a failure of the old code.

Zero-win crash (1), blank notebook (2), one-line CLI errors (3), agent parameter
validation (4), output dirs (5) and the streaming merge (6).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bluffsim
from bluffsim.analysis import plots, stats
from bluffsim.cli import main
from tests.console import bluffsim_here

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ 1. zero-win crash
def test_wilson_interval_stays_in_unit_interval_and_brackets_the_rate():
    n = np.arange(1, 2000)
    for wins in (np.zeros_like(n), n):
        lo, hi = stats.wilson_interval(wins, n)
        p = wins / n
        assert (lo >= 0).all() and (hi <= 1).all()
        assert (lo <= p).all() and (p <= hi).all()


def all_or_nothing_games(n: int = 7) -> pd.DataFrame:
    """``n`` two-seat games: 'always' wins every one, 'never' none."""
    rows = []
    for g in range(n):
        rows += [(g, 0, "always", 1), (g, 1, "never", 2)]
    df = pd.DataFrame(rows, columns=["game", "seat", "agent", "placement"])
    df["won"] = df["placement"] == 1
    df["score"] = 0
    return df


def test_every_plot_survives_zero_and_hundred_percent_rates():
    from matplotlib.figure import Figure

    games = all_or_nothing_games()
    summ = stats.summary(games)
    assert summ.loc["never", "win_rate"] == 0 and summ.loc["always", "win_rate"] == 1
    bluff = pd.DataFrame({"calls_right": [0.0, 1.0], "calls": [5, 9]},
                         index=pd.Index(["never", "always"], name="agent"))
    bluff["calls_right_ci_low"], bluff["calls_right_ci_high"] = stats.wilson_interval(
        np.array([0, 9]), np.array([5, 9]))
    figs = [plots.win_rates(summ), plots.head_to_head_heatmap(stats.head_to_head(games)),
            plots.placement_bars(stats.placement_distribution(games)),
            plots.convergence_lines(stats.convergence(games)), plots.call_accuracy(bluff)]
    for f in figs:
        assert isinstance(f, Figure)
        f.savefig(__import__("io").BytesIO(), format="png")


def test_quickstart_smoke_run_and_report_do_not_crash_on_a_winless_agent(tmp_path, capsys):
    out = tmp_path / "qs"
    assert main(["run", str(ROOT / "experiments" / "quickstart.toml"), "--games", "100",
                 "--workers", "1", "--out", str(out), "--quiet"]) == 0
    summ = pd.read_csv(out / "summary.csv", index_col="agent")
    assert summ["wins"].min() == 0          # the case that crashed: an agent without a win
    assert (summ["ci_low"] >= 0).all() and (summ["ci_high"] <= 1).all()
    assert (out / "plots" / "win_rates.png").is_file()
    assert main(["report", str(out)]) == 0


# ------------------------------------------------------------------ helpers
TOML = """
[experiment]
name = "wf"
game = "qdv"
players = 2
games = 30
seed = 1
{rules}
[[seats]]
agent = "random"
[[seats]]
agent = "heuristic"
params = {{ {params} }}
[run]
batch = 8
shard_games = 10
plots = false
"""


def toml(tmp_path, rules: str = "", params: str = "", name: str = "c.toml"):
    path = tmp_path / name
    path.write_text(TOML.format(rules=rules, params=params))
    return path


def cli(*argv: str, cwd=None):
    """Run the CLI in a subprocess: (exit status, stderr)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-m", "bluffsim.cli", *argv], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)
    return proc.returncode, proc.stderr


def assert_one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for n in needles:
        assert n in err, err


# ------------------------------------------------------------------ 3. one-line errors
def test_num_players_in_rules_is_refused_saying_where_it_belongs(tmp_path):
    conf = toml(tmp_path, rules="[rules]\nnum_players = 3\n")
    code, err = cli("run", str(conf), "--out", str(tmp_path / "o"))
    assert_one_line_error(code, err, "num_players", "experiment.players")
    assert not (tmp_path / "o").exists()


def test_top_level_help_lists_every_subcommand_in_plain_text(capsys):
    """`bluffsim --help` describes the real subcommands (the parser's), without rst backticks."""
    import argparse

    from bluffsim.cli import build_parser

    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "``" not in out
    subs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    description = " ".join(out.split("positional arguments")[0].split("\n\n", 1)[1].split())
    assert set(subs.choices) == {"run", "report", "bench", "play", "exploit", "train", "evaluate",
                                  "leaderboard", "games", "serve", "replay"}
    for name in subs.choices:
        assert f" {name}" in description, description


def test_games_lists_num_players_with_where_it_is_set(capsys):
    assert main(["games"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "num_players" in ln)
    assert "experiment.players" in line and "not [rules]" in line


@pytest.mark.parametrize("game_id", bluffsim.list_games())
def test_games_prints_a_games_tensor_layout(capsys, game_id):
    spec = bluffsim.spec(game_id)
    players = spec.players[1]
    assert main(["games", game_id, "--players", str(players)]) == 0
    out = capsys.readouterr().out.split("\nflat tensor = ", 1)[1]   # after the fields, last
    rows = [ln.split(maxsplit=3) for ln in out.splitlines()[1:]]
    layout = spec.observation.SPEC.tensor_layout(spec.make_rules(players))
    assert [(r[0], int(r[1]), int(r[2]), r[3]) for r in rows] == layout
    assert sum(int(r[2]) for r in rows) == spec.observation.SPEC.tensor_size(spec.make_rules(players))
    assert main(["games", game_id, "--source"]) == 0
    assert "def tensor_row(" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "words"), [
    (("games", "nope"), ("unknown game 'nope'", "available:")),
    (("games", "qdv", "--players", "9"), ("num_players=9", "allowed: 2..6")),
    (("games", "--source"), ("need a GAME",)),
])
def test_games_bad_input_is_a_one_line_error(args, words):
    assert_one_line_error(*cli(*args), *words)


def test_bad_dask_address_is_a_one_line_error(tmp_path):
    code, err = cli("run", str(toml(tmp_path)), "--address", "not a url", "--out",
                    str(tmp_path / "o"))
    assert_one_line_error(code, err, "run.address = 'not a url'", "tcp://")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("target", ["file", "/dev/null"])
def test_out_pointing_at_a_file_is_a_one_line_error(tmp_path, target):
    out = tmp_path / "file" if target == "file" else target
    if target == "file":
        out.write_text("keep me")
    code, err = cli("run", str(toml(tmp_path)), "--out", str(out))
    assert_one_line_error(code, err, str(out), "not a directory")
    if target == "file":
        assert out.read_text() == "keep me"


@pytest.mark.parametrize("target", ["file", "previous run"])
def test_a_refused_out_dir_prints_no_config_saying_it_was_saved(tmp_path, capsys, target):
    """(A previous run of the same config is not refused: see
    test_the_same_run_again_shows_its_results_and_force_replays_it.)"""
    out = tmp_path / "o"
    if target == "file":
        out.write_text("keep me")
    else:
        other = toml(tmp_path, params="bluff = 0.2", name="other.toml")
        assert main(["run", str(other), "--out", str(out), "--quiet"]) == 0
        capsys.readouterr()
    assert main(["run", str(toml(tmp_path)), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert "saved to" not in captured.out and captured.out.strip() == "", captured.out
    assert len(captured.err.strip().splitlines()) == 1


@pytest.mark.parametrize("damage", ["corrupt games", "missing rounds", "corrupt rounds"])
def test_report_on_a_damaged_results_dir_is_a_one_line_error(tmp_path, damage):
    out = tmp_path / "r"
    assert main(["run", str(toml(tmp_path)), "--out", str(out), "--quiet"]) == 0
    name = "games.parquet" if "games" in damage else "rounds.parquet"
    if damage.startswith("corrupt"):
        (out / name).write_bytes(b"PAR1 this is not parquet")
    else:
        (out / name).unlink()
    code, err = cli("report", str(out))
    assert_one_line_error(code, err, name)


def test_the_advice_for_a_missing_parquet_works(tmp_path):
    out = tmp_path / "r"
    assert main(["run", str(toml(tmp_path)), "--out", str(out), "--quiet"]) == 0
    (out / "rounds.parquet").unlink()
    code, err = cli("report", str(out))
    assert_one_line_error(code, err, "rounds.parquet", "--force")
    # --resume of a complete run (shards deleted) cannot rebuild it: the error must not send
    # the user there; --force does
    code, err = cli("run", str(toml(tmp_path)), "--out", str(out), "--resume", "--quiet")
    assert code == 2 and "--resume to" not in err
    assert main(["run", str(toml(tmp_path)), "--out", str(out), "--force", "--quiet"]) == 0
    assert (out / "rounds.parquet").is_file()


def test_bench_batches_are_capped_like_run_batch(tmp_path):
    code, err = cli("bench", "--games", "qdv", "--batches", "100000000", "--out",
                    str(tmp_path / "b"))
    assert_one_line_error(code, err, "--batches 100000000", "1048576")


def test_stepping_another_games_state_is_a_clear_error():
    import bluffsim
    from bluffsim.api import BluffsimError, StateMismatchError

    qdv4 = bluffsim.make("qdv", 4)
    for other in (bluffsim.make("veru", 3), bluffsim.make("qdv", 3), bluffsim.make("legumes", 4)):
        st = other.init(np.arange(3))
        with pytest.raises(StateMismatchError, match="not made by this game") as e:
            qdv4.step(st, st.legal_action_mask.argmax(axis=1))
        assert isinstance(e.value, BluffsimError)
    st = qdv4.init(np.arange(3))
    qdv4.step(st, st.legal_action_mask.argmax(axis=1))   # its own state still steps


# ------------------------------------------------------------------ 4. agent parameters
BAD_PARAMS = [
    ("bluff = 7", "bluff = 7"),
    ("call_margin = nan", "call_margin = nan"),
    ('bluff = "high"', "bluff = 'high'"),
    ("exact_window = -0.5", "exact_window = -0.5"),
    ("bluff = true", "bluff = True"),
]
"""Bad parameters of the heuristic seat, with how the one-line error shows them."""


def test_bad_agent_parameters_fail_at_load_before_anything_is_written_from_a_process(tmp_path):
    """One case as a real process (``tests.console``); the others in this process below."""
    params, needle = BAD_PARAMS[0]
    out = tmp_path / "o"
    code, err = cli("run", str(toml(tmp_path, params=params)), "--out", str(out))
    assert_one_line_error(code, err, "seats[1]", "heuristic", needle, "allowed:")
    assert not out.exists()


@pytest.mark.parametrize("params, needle", BAD_PARAMS[1:])
def test_bad_agent_parameters_fail_at_load_before_anything_is_written(tmp_path, capsys, params,
                                                                       needle):
    out = tmp_path / "o"
    code, err = bluffsim_here(["run", str(toml(tmp_path, params=params)), "--out", str(out)], capsys)
    assert_one_line_error(code, err, "seats[1]", "heuristic", needle, "allowed:")
    assert not out.exists()


def test_agents_make_validates_every_declared_parameter():
    import agents
    import bluffsim
    from agents.base import AgentParamError

    cases = {"qdv": ("counting", "elim_cost", -1), "veru": ("heuristic", "joker_slack", 0.5),
             "legumes": ("counting", "double_below", float("inf"))}
    for gid, (name, key, bad) in cases.items():
        game = bluffsim.make(gid, 3)
        with pytest.raises(AgentParamError, match=rf"parameter {key} = .* is invalid; allowed: "):
            agents.make(name, game, **{key: bad})
    game = bluffsim.make("qdv", 3)
    a = agents.make("counting", game, elim_cost=1, spite=0)    # integers are fine for reals
    assert a.config["elim_cost"] == 1.0 and isinstance(a.config["elim_cost"], float)
    with pytest.raises(AgentParamError, match="token_risk"):     # optional: None or in [0, 1]
        agents.make("counting", game, token_risk=2)
    assert agents.make("counting", game, token_risk=None).config["token_risk"] == 2 / 12
    # every parameter of every agent has a declared (or default-typed) spec its default passes
    for name, gid, defaults in agents.describe():
        cls = agents.REGISTRY[name][gid]
        for key, value in defaults.items():
            assert cls.param_spec(key).check(value) == value
        assert set(cls.spec) <= set(cls.params)


# ------------------------------------------------------------------ 5. output dirs
def test_a_failed_run_does_not_block_its_rerun(tmp_path, monkeypatch, capsys):
    from agents.random import RandomAgent

    out = tmp_path / "o"
    conf = toml(tmp_path)
    real_act = RandomAgent.act

    def boom(self, obs, mask, rng):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(RandomAgent, "act", boom)
    assert main(["run", str(conf), "--out", str(out), "--quiet"]) == 2
    assert "kaboom" in capsys.readouterr().err and out.is_dir()
    monkeypatch.setattr(RandomAgent, "act", real_act)
    # the same command again, and a corrected config with --resume, both just run
    assert main(["run", str(conf), "--out", str(out), "--quiet"]) == 0
    assert (out / "games.parquet").is_file()
    monkeypatch.setattr(RandomAgent, "act", boom)
    assert main(["run", str(conf), "--out", str(out), "--quiet", "--force"]) == 2
    monkeypatch.setattr(RandomAgent, "act", real_act)
    fixed = toml(tmp_path, params="bluff = 0.2", name="fixed.toml")
    assert main(["run", str(fixed), "--out", str(out), "--quiet", "--resume"]) == 0


def test_force_replaces_a_previous_run_and_nothing_else(tmp_path, capsys):
    out = tmp_path / "o"
    conf = toml(tmp_path)
    assert main(["run", str(conf), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    other = toml(tmp_path, params="bluff = 0.2", name="other.toml")
    assert main(["run", str(other), "--out", str(out), "--quiet"]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["run", str(other), "--out", str(out), "--quiet", "--resume"]) == 2
    assert "--force" in capsys.readouterr().err
    (out / "my_notes.txt").write_text("mine")
    assert main(["run", str(other), "--out", str(out), "--quiet", "--force"]) == 0
    saved = __import__("json").loads((out / "config.json").read_text())
    assert saved["config"]["seats"][1]["params"] == {"bluff": 0.2}
    assert (out / "my_notes.txt").read_text() == "mine"
    # a dir that is not a bluffsim run is never emptied
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "data.csv").write_text("precious")
    assert main(["run", str(conf), "--out", str(foreign), "--quiet", "--force"]) == 2
    assert "no bluffsim run" in capsys.readouterr().err
    assert (foreign / "data.csv").read_text() == "precious"
    assert main(["run", str(conf), "--out", str(out), "--resume", "--force"]) == 2


GATE_AGENT = """
import glob, os, time
import numpy as np

class Gate:
    \"\"\"Plays the first legal action.  In the run started with BLUFF_HOLD set: while no shard is
    written each act takes 50 ms (so play cannot outrun the first shard's write), then every act
    waits (up to a minute) while that file exists, so a test can act while the run holds.\"\"\"
    name = "gate"
    traits = {"stochastic": False}
    def __init__(self, game):
        pass
    def act(self, obs, mask, rng):
        hold = os.environ.get("BLUFF_HOLD")
        if hold and not glob.glob("res/shards/games-*.parquet"):
            time.sleep(0.05)
        elif hold:
            end = time.monotonic() + 60
            while os.path.exists(hold) and time.monotonic() < end:
                time.sleep(0.05)
        return np.argmax(mask, axis=1)
"""


def test_a_second_run_on_a_dir_in_use_is_refused_and_the_first_finishes(tmp_path):
    """Two `bluffsim run` on one output dir at once: while the first plays (one shard written),
    the second -- plain, --resume or --force -- stops with one line naming the dir and the other
    run, exit 2; the first then finishes with complete, valid results."""
    import json
    import os
    import subprocess
    import sys
    import time

    (tmp_path / "gate.py").write_text(GATE_AGENT)
    (tmp_path / "c.toml").write_text(TOML.format(rules="", params="").replace(
        'agent = "random"', 'agent = "gate:Gate"'))
    hold = tmp_path / "hold"
    hold.write_text("")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "BLUFF_HOLD": str(hold)}
    first = subprocess.Popen([sys.executable, "-m", "bluffsim.cli", "run", "c.toml", "--out", "res",
                              "--quiet", "--workers", "1"], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 120
        while not (tmp_path / "res" / "shards" / "games-00000.parquet").exists():
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < end, "the first run wrote no shard"
            time.sleep(0.05)
        for extra in ([], ["--resume"], ["--force"]):
            code, err = cli("run", "c.toml", "--out", "res", "--quiet", *extra, cwd=tmp_path)
            assert_one_line_error(code, err, "'res'", "another bluffsim run")
            assert (tmp_path / "res" / "shards" / "games-00000.parquet").is_file()
        assert first.poll() is None       # the first run was still playing all along
    finally:
        hold.unlink()
        out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    games = pd.read_parquet(tmp_path / "res" / "games.parquet")
    assert games["game"].nunique() == 30 and len(games) == 60
    manifest = json.loads((tmp_path / "res" / "manifest.json").read_text())
    assert manifest["timing"]["shards_run"] == 3
    assert not list((tmp_path / "res").rglob("*.lock"))   # the lock goes with the run


def test_the_same_run_again_shows_its_results_and_force_replays_it(tmp_path, capsys):
    """The README's command a second time: one line saying the dir holds this finished run (and
    that --force replays it), the summary of the results there, exit 0, nothing replayed; a
    non-identity key (--workers) does not matter; --force replays the same games; another config
    in that dir is still refused."""
    from bluffsim.results import results_digest

    out = tmp_path / "qs"
    args = ["run", str(ROOT / "experiments" / "quickstart.toml"), "--games", "200", "--out",
            str(out), "--no-plots"]
    assert main([*args, "--workers", "1"]) == 0
    capsys.readouterr()
    digest, manifest = results_digest(out), (out / "manifest.json").read_text()
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.err.strip() == (f"bluffsim: {str(out)!r} already holds this finished run "
                                    "(same config): its results are kept and its report rebuilt; "
                                    "pass --force to play the games again")
    assert "resolved config" not in captured.out and "win rate" in captured.out
    assert (out / "manifest.json").read_text() == manifest and results_digest(out) == digest
    assert main([*args, "--quiet"]) == 0                        # --quiet: the line all the same
    assert "already holds this finished run" in capsys.readouterr().err
    assert main([*args, "--force", "--workers", "1"]) == 0
    captured = capsys.readouterr()
    assert "already holds" not in captured.err and "resolved config" in captured.out
    assert (out / "manifest.json").read_text() != manifest and results_digest(out) == digest
    assert main([*args, "--seed", "7"]) == 2
    err = capsys.readouterr().err
    assert "not empty: it holds a previous run" in err and "--force" in err


def test_ctrl_c_with_two_workers_prints_one_line_and_resume_finishes(tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while two workers
    play: the one "interrupted" line, no worker traceback, exit 130; --resume then finishes."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "gate.py").write_text(GATE_AGENT)
    (tmp_path / "c.toml").write_text(TOML.format(rules="", params="").replace(
        'agent = "random"', 'agent = "gate:Gate"').replace("games = 30", "games = 80"))
    hold = tmp_path / "hold"
    hold.write_text("")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "BLUFF_HOLD": str(hold)}
    run = [sys.executable, "-m", "bluffsim.cli", "run", "c.toml", "--out", "res", "--quiet",
           "--workers", "2"]
    first = subprocess.Popen(run, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        end = time.monotonic() + 120
        while not list((tmp_path / "res" / "shards").glob("games-*.parquet")):
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < end, "the run wrote no shard"
            time.sleep(0.05)
        time.sleep(1.0)                  # both workers now wait in the gate agent's act
        assert first.poll() is None
        os.killpg(first.pid, signal.SIGINT)
        out, err = first.communicate(timeout=60)
    finally:
        hold.unlink()
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
    assert first.returncode == 130, err
    assert err.strip().splitlines() == ["bluffsim: interrupted; finished shards are kept: rerun "
                                        "with --resume"], err
    del env["BLUFF_HOLD"]
    done = subprocess.run([*run, "--resume"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert pd.read_parquet(tmp_path / "res" / "games.parquet")["game"].nunique() == 80
    assert json.loads((tmp_path / "res" / "manifest.json").read_text())["timing"][
        "shards_resumed"] >= 1


def test_a_full_disk_during_the_merge_is_one_line_and_resume_finishes_it(tmp_path):
    """The quickstart under a file size limit (a real ``ulimit -f``) that its shards fit but its
    merged rounds table does not: one line naming the cause, that the shards are kept and that
    --resume finishes the merge, exit 2, no pyarrow traceback; --resume without the limit then
    gives the same data as a run that never failed."""
    import shlex
    import subprocess
    import sys

    from bluffsim.results import results_digest

    args = ["run", str(ROOT / "experiments" / "quickstart.toml"), "--games", "2000", "--set",
            "run.shard_games=500", "--workers", "1", "--quiet", "--no-plots"]
    ref = tmp_path / "ref"
    assert main([*args, "--out", str(ref), "--keep-shards"]) == 0
    largest_shard = max(f.stat().st_size for f in (ref / "shards").iterdir())
    merged = (ref / "rounds.parquet").stat().st_size
    assert merged > 2 * largest_shard
    limit_kib = (largest_shard + merged) // 2 // 1024
    out = tmp_path / "full"
    command = shlex.join([sys.executable, "-m", "bluffsim.cli", *args, "--out", str(out)])
    proc = subprocess.run(["bash", "-c", f"ulimit -f {limit_kib}; exec {command}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert_one_line_error(proc.returncode, proc.stderr, "bluffsim: error: cannot merge the shards",
                          "file size limit", "the 4 finished shards are kept",
                          "rerun with --resume to finish the merge")
    assert not (out / "manifest.json").exists() and not (out / "games.parquet").exists()
    assert not list(out.rglob("*.tmp"))
    assert main([*args, "--out", str(out), "--resume"]) == 0
    assert results_digest(out) == results_digest(ref)


def test_results_files_respect_the_umask(tmp_path):
    import os
    import stat

    old = os.umask(0o022)
    try:
        out = tmp_path / "o"
        assert main(["run", str(toml(tmp_path)), "--out", str(out), "--quiet", "--no-plots"]) == 0
    finally:
        os.umask(old)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in out.rglob("*") if p.is_file()}
    assert {"games.parquet", "rounds.parquet", "config.json", "manifest.json",
            "summary.csv"} <= set(modes)
    assert all(m == 0o644 for m in modes.values()), modes


def test_shards_are_removed_after_the_merge_unless_kept(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["run", str(toml(tmp_path)), "--out", str(a), "--quiet"]) == 0
    assert not (a / "shards").exists()
    assert main(["run", str(toml(tmp_path)), "--out", str(b), "--quiet", "--keep-shards"]) == 0
    assert len(list((b / "shards").glob("games-*.parquet"))) == 3
    pd.testing.assert_frame_equal(pd.read_parquet(a / "games.parquet"),
                                  pd.read_parquet(b / "games.parquet"))
    # resuming a finished run only rebuilds the report
    assert main(["run", str(toml(tmp_path)), "--out", str(a), "--quiet", "--resume"]) == 0
    assert not (a / "shards").exists() and (a / "summary.csv").is_file()


def test_a_name_cannot_escape_results(tmp_path):
    work = tmp_path / "w" / "v"
    work.mkdir(parents=True)
    conf = work / "c.toml"
    conf.write_text(TOML.format(rules="", params="").replace('name = "wf"', 'name = "../../x"'))
    code, err = cli("run", str(conf), cwd=work)
    assert_one_line_error(code, err, "experiment.name = '../../x'", "results/<name>")
    assert not (tmp_path / "x").exists() and not (work / "results").exists()


def test_too_many_games_is_refused_with_the_cap_and_why(tmp_path):
    code, err = cli("run", str(toml(tmp_path)), "--games", str(10**12), "--out",
                    str(tmp_path / "o"))
    assert_one_line_error(code, err, "experiment.games = 1000000000000", "at most 1,000,000,000",
                          "hours")
    code, err = cli("run", str(toml(tmp_path)), "--games", str(10**9), "--out",
                    str(tmp_path / "o"))
    assert_one_line_error(code, err, "run.shard_games = 10", "at least 10,000")
    assert not (tmp_path / "o").exists()


def test_a_huge_run_shows_progress_at_once(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    conf = tmp_path / "big.toml"
    conf.write_text(TOML.format(rules="", params="").replace("shard_games = 10",
                                                             "shard_games = 100000"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "bluffsim.cli", "run", str(conf), "--games",
                             str(10**9), "--out", str(tmp_path / "o")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        seen = b""
        deadline = time.monotonic() + 60
        os.set_blocking(proc.stderr.fileno(), False)
        while b"/1000000000" not in seen and time.monotonic() < deadline:
            seen += proc.stderr.read() or b""
            time.sleep(0.2)
        assert b"0/1000000000" in seen, seen[-500:]
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


# ------------------------------------------------------------------ 6. streaming merge and report
def test_merge_streams_one_shard_at_a_time(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bluffsim import results

    out = tmp_path / "o"
    conf = toml(tmp_path)
    assert main(["run", str(conf), "--out", str(out), "--quiet", "--games", "400",
                 "--keep-shards", "--no-plots"]) == 0
    whole = pd.read_parquet(out / "games.parquet")
    whole_rounds = pd.read_parquet(out / "rounds.parquet")
    total = pq.read_table(out / "rounds.parquet").nbytes
    shard = max(pq.read_table(p).nbytes for p in (out / "shards").glob("*.parquet"))
    held = []
    real_write = pq.ParquetWriter.write_table

    def spy(self, table, *a, **k):
        held.append(pa.total_allocated_bytes())
        return real_write(self, table, *a, **k)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", spy)
    assert results.merge_shards(out, 40) == (len(whole), len(whole_rounds))
    assert len(held) == 80                    # one write per shard and table
    # arrow memory while writing shard k does not grow with k: one shard at a time
    assert total > 20 * shard
    for first, last in ((1, 39), (41, 79)):      # rounds, then games
        assert max(held[first:last + 1]) - held[first] < 2 * shard, held
    pd.testing.assert_frame_equal(pd.read_parquet(out / "games.parquet"), whole)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "rounds.parquet"), whole_rounds)


def test_report_reads_whole_games_in_bounded_chunks(tmp_path):
    from bluffsim.results import iter_chunks
    from bluffsim.tournament.experiment import build_report

    out = tmp_path / "o"
    assert main(["run", str(toml(tmp_path)), "--out", str(out), "--quiet", "--games", "200",
                 "--no-plots"]) == 0
    games = pd.read_parquet(out / "games.parquet")
    chunks = list(iter_chunks(out / "games.parquet", ["game", "agent", "won"], rows=25))
    assert len(chunks) > 10 and max(len(c) for c in chunks) <= 25 + 2
    ids = [set(c["game"]) for c in chunks]
    assert sum(len(i) for i in ids) == games["game"].nunique()       # no game split or lost
    # the streamed report equals the in-memory statistics
    summ = build_report(out, plots_too=False)
    pd.testing.assert_frame_equal(summ[stats.summary(games).columns], stats.summary(games))
    pd.testing.assert_frame_equal(pd.read_csv(out / "summary.csv", index_col="agent"),
                                  stats.summary(games), check_exact=False, check_dtype=False)
