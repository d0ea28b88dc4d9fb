"""``bluffsim evaluate`` and the leaderboard as a user meets them: restricted runs keep their own
row, corrupt files are one-line errors found before any table is played, concurrent writers
keep every row, progress, the per-opponent table, Ctrl-C, and the plots' interval labels."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bluffsim import evaluate
from bluffsim.analysis import plots
from bluffsim.analysis.stats import bradley_terry
from bluffsim.cli import main
from tests.built_once import built_once
from tests.console import bluffsim_here, run_in_root

ROOT = Path(__file__).resolve().parents[1]
SKEPTIC = "experiments.my_agent:Skeptic"


def evaluate_twice(tmp: Path) -> str:
    """The wider evaluation (here 2 and 3 players of qdv at 60 games stand for it: every player
    count would be slow), then one restricted to 2 players, on one leaderboard under ``tmp``;
    returns the second run's stdout."""
    common = ["--table-games", "60", "--leaderboard", str(tmp / "lb.csv"),
              "--reference-dir", str(tmp / "ref")]
    assert run_in_root(["evaluate", SKEPTIC, "--players", "2", "--players", "3",
                        "--out", str(tmp / "wide"), "--quiet", *common]) == 0
    proc = subprocess.run([sys.executable, "-m", "bluffsim.cli", "evaluate", SKEPTIC,
                           "--players", "2", "--out", str(tmp / "narrow"), *common],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """``(directory, stdout of the second run)`` of ``evaluate_twice``, run once per session
    (the tests only read its files)."""
    return built_once(tmp_path_factory, "two_runs", evaluate_twice)


def test_a_restricted_evaluation_adds_its_own_row_and_keeps_the_wider_one(two_runs):
    tmp, _ = two_runs
    board = pd.read_csv(tmp / "lb.csv", dtype={"hash": str})
    assert len(board) == 2 and set(board["budget"]) == {"quick"}
    scopes = board.set_index("scope")
    assert set(scopes.index) == {"players:2p,3p;x60", "players:2p;x60"}
    wide = pd.read_csv(tmp / "wide" / "ratings.csv")
    assert scopes.loc["players:2p,3p;x60", "qdv_rating"] == round(float(wide["rating"].iloc[0]), 1)
    assert "| scope |" in (tmp / "lb.md").read_text()


def test_scopes_name_what_was_played():
    assert evaluate.scope_of(None, None, None, 240) == "full"
    assert evaluate.scope_of(None, None, 240, 240) == "full"
    assert evaluate.scope_of(["qdv"], [2], None, 240) == "qdv:2p"
    assert evaluate.scope_of(["veru", "qdv"], None, 60, 240) == "qdv;veru;x60"
    assert evaluate.plan("random", games=["qdv"], players=[2]).out.name.endswith("-quick-qdv_2p")


def test_evaluate_prints_a_line_per_table_and_defaults_to_the_cores(two_runs):
    _, out = two_runs
    lines = [ln for ln in out.splitlines() if ln.strip().startswith("table ")]
    assert len(lines) == 4 and lines[-1].strip().startswith("table 4/4 qdv_2p_")
    assert "60 games" in lines[0]
    p = evaluate.plan(SKEPTIC, players=[2])
    assert p.workers == min(os.cpu_count() or 1, len(p.tables))


def test_the_scorecard_has_a_table_per_opponent(two_runs):
    tmp, _ = two_runs
    versus = pd.read_csv(tmp / "wide" / "opponents.csv")
    assert set(versus["opponent"]) >= {"random", "heuristic", "counting"}
    assert ((versus["ahead_low"] <= versus["ahead"]) & (versus["ahead"] <= versus["ahead_high"])).all()
    assert (versus["pairs"] > 0).all()
    ref = pd.read_csv(tmp / "wide" / "reference.csv", index_col="agent")
    assert versus.set_index("opponent").loc["counting", "reference_rating"] == pytest.approx(
        ref.loc["counting", "rating"])
    assert "## Against each opponent" in (tmp / "wide" / "scorecard.md").read_text()


CORRUPT = {
    "other csv": "a,b\n1,2\n",
    "empty": "",
    "bytes": bytes(range(256)) * 4,
    "text rating": "agent,hash,date,budget,bluffsim,qdv_rating,qdv_se\nx,abc,2026-01-01,quick,0.1,high,3\n",
}


def check_corrupt_leaderboard(tmp_path: Path, kind: str,
                              run: Callable[[list[str]], tuple[int, str]]) -> None:
    """Check that ``bluffsim leaderboard`` and ``bluffsim evaluate`` (each through ``run(args) ->
    (exit status, stderr)``) on a ``CORRUPT[kind]`` leaderboard are one-line errors that play and
    write nothing."""
    lb = tmp_path / "leaderboard.csv"
    content = CORRUPT[kind]
    (lb.write_bytes if isinstance(content, bytes) else lb.write_text)(content)
    before = lb.read_bytes()
    shown = run(["leaderboard", "--path", str(lb)])
    ev = run(["evaluate", "random", "--game", "qdv", "--players", "2", "--leaderboard", str(lb),
              "--out", str(tmp_path / "o")])
    for code, stderr in (shown, ev):
        assert code == 2
        err = stderr.strip()
        assert "Traceback" not in err and len(err.splitlines()) == 1, err
        assert err.startswith("bluffsim: error: leaderboard") and str(lb) in err
    assert not (tmp_path / "o").exists()      # nothing played, nothing written
    assert lb.read_bytes() == before          # the user's file is left as it was


def test_a_corrupt_leaderboard_is_one_line_before_anything_is_played_from_a_process(tmp_path):
    """One kind as real processes (``tests.console``); the others in this process below."""

    def process(args: list[str]) -> tuple[int, str]:
        proc = subprocess.run([sys.executable, "-m", "bluffsim.cli", *args], capture_output=True,
                              text=True)
        return proc.returncode, proc.stderr

    check_corrupt_leaderboard(tmp_path, sorted(CORRUPT)[0], process)


@pytest.mark.parametrize("kind", sorted(CORRUPT)[1:])
def test_a_corrupt_leaderboard_is_one_line_before_anything_is_played(tmp_path, capsys, kind):
    check_corrupt_leaderboard(tmp_path, kind, lambda args: bluffsim_here(args, capsys))


def test_a_leaderboard_without_a_scope_column_reads_as_full_battery_rows(tmp_path):
    lb = tmp_path / "lb.csv"
    lb.write_text("agent,hash,date,budget,bluffsim,qdv_rating,qdv_se\nx,abc,2026-01-01,quick,0.1,5,3\n")
    table = evaluate.update_leaderboard(lb, {"agent": "x", "hash": "abc", "date": "d", "budget": "quick",
                                             "scope": "qdv:2p", "bluffsim": "0.1", "qdv_rating": 1.0,
                                             "qdv_se": 1.0})
    assert list(table["scope"]) == ["full", "qdv:2p"]


WRITER = """
import sys
from pathlib import Path
from bluffsim.evaluate import update_leaderboard
path, who, rows = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(rows):
    update_leaderboard(path, {"agent": f"{who}-{i}", "hash": "h", "date": "d", "budget": "quick",
                              "scope": "full", "bluffsim": "0", "qdv_rating": float(i), "qdv_se": 1.0})
"""


def test_concurrent_leaderboard_writers_keep_every_row(tmp_path):
    lb = tmp_path / "leaderboard.csv"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(lb), f"w{k}", "40"],
                              stderr=subprocess.PIPE, text=True) for k in range(3)]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    board = evaluate.read_leaderboard(lb)
    assert len(board) == 120 and board["agent"].is_unique
    assert (tmp_path / "leaderboard.md").read_text().count("| `w") == 120


def test_a_corrupt_reference_cache_is_set_aside_and_replayed(tmp_path, monkeypatch):
    from bluffsim.tournament.config import Experiment

    tiny = evaluate.reference_pool("qdv")[:1]
    tiny = [Experiment(**{**e.__dict__, "games": 240, "shard_games": 240}) for e in tiny]
    monkeypatch.setattr(evaluate, "reference_pool", lambda game: tiny)
    cache = tmp_path / "ref"
    cache.mkdir()
    path = cache / f"qdv-{evaluate.reference_hash('qdv')}.csv"
    path.write_text("agent,rating\nrandom,zero\n")
    said: list[str] = []
    table = evaluate.reference_ratings("qdv", cache, log=said.append)
    assert table.loc["random", "rating"] == 0 and np.isfinite(table["rating"]).all()
    assert "unreadable" in said[0] and path.with_suffix(".corrupt").is_file()
    assert evaluate.read_reference_cache(path)[0] is not None   # the replayed cache is valid


def test_ctrl_c_with_two_workers_is_one_line_about_tables(tmp_path):
    # the full budget: far more than 2 s of tables on any machine, so the signal lands mid-way
    cmd = [sys.executable, "-m", "bluffsim.cli", "evaluate", "counting", "--game", "qdv",
           "--players", "4", "--budget", "full", "--workers", "2", "--out", str(tmp_path / "o"),
           "--leaderboard", str(tmp_path / "lb.csv"), "--reference-dir", str(tmp_path / "ref")]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    first = proc.stdout.readline()          # the plan line: tables are being played now
    assert "tables" in first, first
    # the signal lands once the first table is done (the kernels compiled, the pool playing);
    # a run that stalls is killed after 300 s, which ends the reading with a failure
    stall = threading.Timer(300, os.killpg, (proc.pid, signal.SIGKILL))
    stall.start()
    try:
        while not (line := proc.stdout.readline()).strip().startswith("table ") and line:
            pass
        assert line.strip().startswith("table 1/"), line
        os.killpg(proc.pid, signal.SIGINT)      # what Ctrl-C does: the whole process group
        _, err = proc.communicate(timeout=60)
    finally:
        stall.cancel()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "finished tables are kept" in lines[0] and "--resume" in lines[0]
    assert "shard" not in lines[0]


def test_the_battery_win_rate_plot_names_its_intervals_for_what_they_are():
    card = pd.DataFrame({"game": ["qdv"], "players": [2], "table": ["random"], "win_rate": [0.6],
                         "ci_low": [0.5], "ci_high": [0.7], "fair_share": [0.5]})
    label = plots.table_win_rates(card).axes[0].get_xlabel()
    assert "over deals" in label and "bootstrap" in label and "Wilson CI" not in label


def test_a_single_game_has_no_ratings_and_the_run_says_so(tmp_path, capsys):
    games = pd.DataFrame({"game": [0] * 4, "seat": range(4), "agent": list("abcd"),
                          "placement": [1, 2, 3, 4], "score": [0] * 4})
    assert bradley_terry(games)["rating"].isna().all()
    assert main(["run", str(ROOT / "experiments" / "quickstart.toml"), "--games", "1",
                 "--out", str(tmp_path / "one"), "--quiet", "--no-plots"]) == 0
    out = capsys.readouterr().out
    assert "ratings not estimable" in out and "1371" not in out.replace(",", "")


def test_an_empty_restriction_names_the_flags_not_python_values(tmp_path):
    with pytest.raises(evaluate.EvaluateError) as e:
        evaluate.plan(SKEPTIC, games=["veru"])
    text = str(e.value)
    assert "--game veru" in text and "None" not in text and "[" not in text.split(";")[0]


def test_the_evaluation_measures_how_the_agent_bluffs_and_calls(two_runs):
    tmp, _ = two_runs
    beh = pd.read_csv(tmp / "wide" / "behaviour.csv")
    mine = beh[(beh["agent"] == "subject") & (beh["game"] == "qdv")]
    assert len(mine) == 1 and int(mine["games"].iloc[0]) > 0
    assert 0 <= float(mine["call_rate"].iloc[0]) <= 1 and np.isfinite(mine["brier"]).all()
    assert {"counting", "heuristic", "random"} <= set(beh["agent"])
    assert (tmp / "wide" / "plots" / "calibration_qdv.png").is_file()
    md = (tmp / "wide" / "scorecard.md").read_text()
    assert "## How it bluffs and calls" in md and "| qdv | " in md.split("## How it bluffs")[1]


def test_leaderboard_on_a_directory_says_it_is_a_directory(tmp_path, capsys):
    assert main(["leaderboard", "--path", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "is a directory; give the leaderboard CSV" in err and len(err.splitlines()) == 1
