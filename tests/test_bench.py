"""``bluffsim bench``: the two OpenSpiel anchors, each game's ratio to both, ``--cores``.

Tiny configurations (a few seconds each); nothing here asserts a speed.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd
import pytest

from bluffsim.cli import main

TINY = ["bench", "--games", "qdv", "--batches", "16", "--repeats", "1", "--seconds", "0.05",
        "--agents", "random"]
RATIOS = ["x_openspiel", "x_openspiel_cpp", "fused_x_openspiel", "fused_x_openspiel_cpp"]


def exact_liars_dice_decisions() -> float:
    """Mean player decisions of a uniform random liars_dice game (5 dice each, 2 players):
    after bid i of 60, the legal actions are the higher bids and the call."""
    after = [0.0] * 60
    for i in range(59, -1, -1):
        after[i] = 1 + sum(after[i + 1:]) / (59 - i + 1)
    return 1 + sum(after) / 60


def anchor_lines(printed: str) -> list[str]:
    return [line for line in printed.splitlines() if line.startswith("OpenSpiel anchor:")]


def test_bench_prints_both_anchors_and_each_games_ratio_to_both(capsys, tmp_path):
    pytest.importorskip("pyspiel")
    out = tmp_path / "b"
    assert main([*TINY, "--markdown", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    lines = anchor_lines(printed)
    assert len(lines) == 2
    assert "Python loop" in lines[0] and "player decisions/s" in lines[0]
    assert "RandomRolloutEvaluator under a one-simulation MCTSBot" in lines[1]
    assert "rollouts/s x" in lines[1] and "player decisions per game" in lines[1]
    assert "x OS py" in printed and "x OS C++" in printed
    assert "load average (1 min)" in printed
    table = pd.read_parquet(out / "bench.parquet")
    cpp = table[table["engine"] == "openspiel c++ rollouts"]
    py = table[table["engine"] == "openspiel python loop"]
    assert len(cpp) == 1 and len(py) == 1
    row = cpp.iloc[0]
    assert row["decisions_per_s"] == pytest.approx(row["games_per_s"] * row["decisions_per_game"])
    assert row["x_openspiel_cpp"] == pytest.approx(1.0)
    vec = table[(table["game"] == "qdv") & (table["engine"] == "vectorised")].iloc[0]
    for col in RATIOS:
        assert vec[col] > 0, col
    assert vec["x_openspiel_cpp"] == pytest.approx(vec["decisions_per_s"] / row["decisions_per_s"])
    assert vec["fused_x_openspiel_cpp"] == pytest.approx(vec["fused_decisions_per_s"]
                                                         / row["decisions_per_s"])
    assert (table["load1"] >= 0).all()
    assert "| qdv | vectorised | random | 16 |" in printed  # the --markdown table
    assert (out / "bench.png").stat().st_size > 10_000


def test_bench_without_open_spiel_says_so_in_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # `import pyspiel` raises ImportError
    out = tmp_path / "b"
    assert main([*TINY, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    lines = anchor_lines(captured.out)
    assert len(lines) == 1
    assert "skipped" in lines[0] and "open-spiel is not installed" in lines[0]
    assert "Traceback" not in captured.err
    table = pd.read_parquet(out / "bench.parquet")
    assert not table["engine"].str.startswith("openspiel").any()
    for col in RATIOS:
        assert col in table and table[col].isna().all(), col
    assert (table.loc[table["engine"] == "vectorised", "decisions_per_s"] > 0).all()


def test_decisions_per_game_of_the_cpp_anchor_is_measured_near_the_exact_mean():
    pytest.importorskip("pyspiel")
    from benchmarks.engines import openspiel_decisions_per_game

    exact = exact_liars_dice_decisions()
    assert exact == pytest.approx(4.7579, abs=1e-4)
    assert openspiel_decisions_per_game(games=4000) == pytest.approx(exact, rel=0.03)


def test_cpp_anchor_counts_rollouts_times_decisions_per_game():
    pytest.importorskip("pyspiel")
    from benchmarks.engines import CPP_ROLLOUTS_PER_STEP, openspiel_cpp_run

    run = openspiel_cpp_run(0.05, decisions_per_game=4.5)
    assert run.games > 0 and run.games % CPP_ROLLOUTS_PER_STEP == 0
    assert run.decisions == pytest.approx(4.5 * run.games)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2 if hasattr(os, "sched_getaffinity")
                    else (os.cpu_count() or 1) < 2, reason="needs two CPUs")
def test_bench_cores_two_reports_the_ratio_to_one_core(capsys, tmp_path):
    out = tmp_path / "b"
    assert main([*TINY, "--no-anchor", "--cores", "2", "--cores-batches", "32",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "2 cores (processes), fused:" in printed and "x one core" in printed
    table = pd.read_parquet(out / "bench.parquet")
    two = table[table["cores"] == 2]
    assert len(two) == 1
    row = two.iloc[0]
    assert row["batch"] == 32 and row["path"] == "fused"
    assert row["decisions_per_s"] > 0 and row["one_core_decisions_per_s"] > 0
    assert row["x_one_core_min"] <= row["x_one_core"] <= row["x_one_core_max"]
    assert (table.loc[table["cores"] == 1, "engine"].isin(["reference", "vectorised"])).all()


def test_bench_agents_fused_and_the_vector_env_rows(capsys, tmp_path):
    """Every agent with a compiled policy gets fused columns next to its stepwise ones; the
    vector env is timed against each opponent, fused and stepped (issue 24's rows)."""
    out = tmp_path / "b"
    argv = ["bench", "--games", "veru", "--batches", "16", "--repeats", "1", "--seconds",
            "0.05", "--agents", "heuristic,counting", "--no-anchor", "--env-players", "3",
            "--env-batch", "8", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    table = pd.read_parquet(out / "bench.parquet")
    vec = table[table["engine"] == "vectorised"]
    assert set(vec["agents"]) == {"heuristic", "counting"}
    assert (vec["fused_decisions_per_s"] > 0).all() and (vec["decisions_per_s"] > 0).all()
    env = table[table["engine"].str.startswith("vector env")]
    assert sorted(env["engine"]) == sorted(["vector env, 3 players, fused"] * 2
                                           + ["vector env, 3 players, stepwise"] * 2)
    assert (env["decisions_per_s"] > 0).all() and set(env["batch"]) == {8}
    assert "Gymnasium vector env, learner steps/s" in printed
    assert "heuristic  batch     16: stepwise" in printed


@pytest.mark.parametrize("argv, needle", [
    (["--env-players", "9"], "--env-players 9"),
    (["--env-players", "x"], "--env-players 'x'"),
    (["--env-batch", "0"], "--env-batch 0"),
    (["--cores", "0"], "--cores 0"),
    (["--cores", "999"], "--cores 999"),
    (["--cores", "2", "--cores-batches", "1"], "--cores-batches 1"),
    (["--cores-batches", "x"], "--cores-batches 'x'"),
])
def test_bench_bad_cores_options_are_one_line_errors(capsys, argv, needle):
    assert main([*TINY, *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_chunked_prange_plays_the_same_games_as_the_serial_fused_loop():
    """The threads alternative of ``--cores`` is the same computation, split in chunks."""
    import bluffsim
    from benchmarks.engines import ChunkedPrangeLoop

    serial = bluffsim.make("qdv", 4)
    st = serial.init(np.arange(64))
    chunked = ChunkedPrangeLoop("qdv", 4, 64, cores=2)
    made = [0, 0]
    for _ in range(5):
        made[0] += serial.play_random(st, 20)[0]
        made[1] += chunked.play(20)[0]
    assert made[0] == made[1] > 0
    assert np.array_equal(st.hot, chunked.st.hot) and np.array_equal(st.data, chunked.st.data)


def test_threads_need_a_compiled_play_random_kernel(capsys, monkeypatch):
    import benchmarks.engines as bench

    monkeypatch.setattr(bench, "has_chunked_prange", lambda game_id, players: game_id != "qdv")
    assert main([*TINY, "--cores", "2", "--cores-via", "threads"]) == 2
    err = capsys.readouterr().err
    assert "--cores-via threads" in err and "qdv has none" in err
    assert len(err.strip().splitlines()) == 1


def test_compiled_games_offer_the_threads_alternative():
    from benchmarks.engines import has_chunked_prange

    assert has_chunked_prange("qdv", 4) and has_chunked_prange("legumes", 4)


def test_bench_says_what_it_measures_row_by_row_on_stderr(capsys, tmp_path, monkeypatch):
    """A plan line, the compile note when numba's cache is cold, then one line per measured row
    on stderr as it goes; stdout (the table, --markdown) carries none of them."""
    import benchmarks.engines
    from bluffsim.kernel_cache import COMPILING

    monkeypatch.setattr(benchmarks.engines, "kernels_cold", lambda game, names: True)
    out = tmp_path / "b"
    assert main([*TINY, "--agents", "random,heuristic", "--batches", "8,16", "--no-anchor",
                 "--markdown", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert err[0].startswith("bench: 6 rows, each 1 timed run of at least 0.05 s: at least")
    assert err[1] == COMPILING
    rows = [line for line in err if line.startswith("bench ") and "/6: " in line]
    assert len(rows) == 6 and rows[0].startswith("bench 1/6: qdv reference random batch 1: ")
    assert rows[2].startswith("bench 3/6: qdv vectorised random batch 16: ")
    assert ", fused " in rows[2] and "decisions/s" in rows[5]
    assert "bench " not in captured.out and COMPILING not in captured.out
    assert len(pd.read_parquet(out / "bench.parquet")) == 6
