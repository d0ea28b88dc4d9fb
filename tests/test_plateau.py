"""Best responses run to a plateau (``bluffsim.plateau``, ``bluffsim exploit --budget plateau``):
the schedule and its stopping rule, the one-line errors, and a small run end to end from the
command line — marks, the stop, the fresh re-evaluation, the seat gains, the behaviour, the
files, the reuse — with the response at a mark equal to one trained straight to it."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

pytest.importorskip("jax")

from bluffsim import abr, cli, plateau  # noqa: E402
from bluffsim.analysis.plots import plateau_curves  # noqa: E402

TINY = "plateau:start=10,cap=80,gain=0.99,seeds=2"   # stops at 40: no rate gains 0.99


def test_the_marks_double_up_to_the_cap() -> None:
    assert plateau.Schedule().marks() == [40, 80, 160, 320, 640, 1280]
    assert plateau.Schedule(start=30, cap=100).marks() == [30, 60, 100]
    assert plateau.Schedule(start=40, cap=40).marks() == [40]


def test_a_plateau_needs_three_marks_a_small_gain_and_the_fair_share() -> None:
    assert not plateau.plateaued([0.30, 0.30], 0.01, 0.25)
    assert not plateau.plateaued([0.10, 0.20, 0.205], 0.01, 0.1)   # gained 0.105 in 2 doublings
    assert plateau.plateaued([0.30, 0.305, 0.309], 0.01, 0.25)
    assert plateau.plateaued([0.50, 0.40, 0.45], 0.01, 0.25)         # fell: no gain
    assert not plateau.plateaued([0.10, 0.30, 0.305, 0.32], 0.01, 0.25)   # 0.02 in the last two
    assert not plateau.plateaued([0.036, 0.032, 0.041], 0.01, 1 / 3)   # flat, below 1/P
    assert plateau.plateaued([0.036, 0.032, 0.041], 0.01, 0.04)


def test_schedules_parse_and_label_their_directories() -> None:
    assert plateau.parse_schedule("plateau") == plateau.Schedule()
    s = plateau.parse_schedule("plateau:cap=320,seeds=5,gain=0.02")
    assert s == plateau.Schedule(start=40, cap=320, gain=0.02, seeds=5)
    assert plateau.label(plateau.Schedule()) == "plateau"
    assert plateau.label(s) == "plateau_start40_cap320_gain0.02_seeds5"
    assert plateau.budget_plan("plateau:cap=320,seeds=5,gain=0.02") == (plateau.label(s), 320, s)
    assert plateau.budget_plan("full") == ("full", abr.BUDGETS["full"], None)
    assert abr.split_pieces("small,plateau:cap=80,seeds=2,7") == ["small", "plateau:cap=80,seeds=2",
                                                                  "7"]


@pytest.mark.parametrize(("budget", "message"), [
    ("plateau:cap=45", "--budget plateau: start (40) and cap (45) must be multiples of 10 PPO "
                       "iterations (the checkpoint interval), at least 10"),
    ("plateau:start=0", "--budget plateau: start (0) and cap (1280) must be multiples of 10 PPO "
                        "iterations (the checkpoint interval), at least 10"),
    ("plateau:start=80,cap=40", "--budget plateau: cap (40) is below start (80)"),
    ("plateau:seeds=0", "--budget plateau: seeds (0) must be >= 1 and gain (0.01) between 0 and 1"),
    ("plateau:depth=3", "--budget 'plateau:depth=3': 'depth=3' is not one of start=, cap=, gain=, "
                        "seeds="),
    ("plateau:cap=many", "--budget 'plateau:cap=many': cap takes an integer, got 'many'"),
    ("plateau:seeds=2.5", "--budget 'plateau:seeds=2.5': seeds takes an integer, got '2.5'"),
    ("plateau:gain=lots", "--budget 'plateau:gain=lots': gain takes a number, got 'lots'"),
    ("plateau:cap=80,cap=160", "--budget 'plateau:cap=80,cap=160': cap is given twice"),
    ("plateau :cap=45", "--budget plateau: start (40) and cap (45) must be multiples of 10 PPO "
                        "iterations (the checkpoint interval), at least 10"),
])
def test_a_bad_plateau_budget_is_one_line_and_writes_nothing(tmp_path, capsys, budget, message
                                                             ) -> None:
    out = tmp_path / "ex"
    assert cli.main(["exploit", "--agent", "random", "--game", "qdv", "--budget", budget,
                     "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"bluffsim: error: {message}", err
    assert not out.exists()


def test_seeds_past_the_last_training_seed_are_refused_before_anything_runs(tmp_path, capsys
                                                                          ) -> None:
    out = tmp_path / "ex"
    assert cli.main(["exploit", "--agent", "random", "--game", "qdv", "--seed", str(abr.SEED_MAX),
                     "--budget", "small,plateau:seeds=2", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"bluffsim: error: --seed {abr.SEED_MAX} with --budget plateau seeds=2: its "
                   f"seeds run to {abr.SEED_MAX + 1}, above {abr.SEED_MAX}; give a smaller "
                   "--seed"), err
    assert not out.exists()


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_the_plateau_figure_is_a_figure_at_0_and_100_percent(rate) -> None:
    curves = pd.DataFrame({"seed": [1, 1, 2, 2], "decisions": [4096, 8192, 4096, 8192],
                           "win_share": [rate, rate, np.nan, rate]})
    marks = pd.DataFrame({"seed": [1, 2], "decisions": [8192, 8192], "win_rate": [rate, rate],
                          "ci_low": [max(rate - 0.01, 0), rate], "ci_high": [rate, rate]})
    fresh = {"sampling": {"win_rate": rate, "ci_low": rate, "ci_high": rate},
             "greedy": {"win_rate": rate, "ci_low": rate, "ci_high": rate}}
    fig = plateau_curves(curves, marks, fresh, 2, "fresh deals", "t")
    assert isinstance(fig, Figure)
    assert fig.axes[0].get_xscale() == "log"
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert [lab for lab in labels if lab.startswith("seed")] == ["seed 1: evaluations",
                                                                  "seed 2: evaluations"]


def test_a_small_plateau_run_from_the_command_line(tmp_path, capsys) -> None:
    """Against ``random`` in qdv 2p, two seeds evaluated at 10, 20 and 40 iterations stop there
    (the gain asked for, 0.99, is never reached), never train the cap's 80; the best seed's last
    response is evaluated again on fresh deals, beats random at both seats, and the second run
    of the command reuses the cell."""
    root = tmp_path / "ex"
    argv = ["exploit", "--agent", "random", "--game", "qdv", "--budget", TINY, "--eval-games",
            "300", "--out", str(root), "--markdown"]
    assert cli.main(argv) == 0
    printed = capsys.readouterr()
    schedule = plateau.parse_schedule(TINY)
    cell = abr.cell_dir(root, "qdv", 2, abr.parse_target("random"), plateau.label(schedule), None)
    rec = json.loads((cell / "abr.json").read_text())
    assert [r["seed"] for r in rec["runs"]] == [1, 2]
    assert rec["decisions"] == 2 * 40 * abr.DECISIONS_PER_ITERATION   # both seeds' training
    for run in rec["runs"]:
        assert 0.3 < run["floor"] < 0.7   # random against itself, on the marks' deals
        assert [m["iterations"] for m in run["marks"]] == [10, 20, 40]
        assert run["plateau"] and run["iterations"] == 40
        assert [p.name for p in sorted((cell / f"seed{run['seed']}").glob("weights_*.npz"))] == [
            "weights_10.npz", "weights_20.npz", "weights_40.npz"]
        assert all(m["games"] == 300 for m in run["marks"])
    last = {r["seed"]: r["marks"][-1]["win_rate"] for r in rec["runs"]}
    assert rec["best_seed"] == max(last, key=last.get)
    assert rec["plateau"] and rec["budget"] == plateau.label(schedule)
    assert rec["weights"] == f"seed{rec['best_seed']}/weights_40.npz"
    # the fresh evaluation: its own deals, both policies, a clear win over random
    assert rec["eval_seed"] == abr.eval_seed(1, 1) != abr.eval_seed(1, 0)
    s = rec["sampling"]
    assert s["games"] == rec["greedy"]["games"] == 300
    assert s["ci_low"] > 0.6, s
    gains = rec["seat_gains"]
    assert [g["seat"] for g in gains] == [0, 1] and sum(g["games"] for g in gains) == 300
    for g in gains:
        assert g["gain"] == pytest.approx(g["response_win_rate"] - g["agent_win_rate"])
        assert g["ci_low"] > 0.1, g
    assert rec["gain_sum"]["gain"] == pytest.approx(sum(g["gain"] for g in gains))
    beh = rec["behaviour"]
    assert beh["response"]["claims"] > 0 and beh["agent"]["claims"] > 0
    assert 0 <= beh["response"]["call_rate"] <= 1 and 0 <= beh["agent"]["bluff_rate"] <= 1
    assert rec["picture"].startswith("bluffs in ") and "(random: " in rec["picture"]
    assert (cell / "curve.png").is_file()
    assert "| seeds: iterations (plateau?) |" in printed.out and "| 1: 40, 2: 40 |" in printed.out
    assert "training ..." in printed.err and "seed 2, 40 iterations: win rate" in printed.err
    # the same command again reuses the cell
    assert cli.main(argv) == 0
    again = capsys.readouterr()
    assert "reused" in again.err and "training" not in again.err
    assert json.loads((cell / "abr.json").read_text()) == rec
    # the response at a mark is the one a single run of the schedule trains straight to it
    straight = tmp_path / "straight"
    cfg = abr.response_config("qdv", 2, {}, abr.parse_target("random"), 1, 20, straight / "train",
                              straight / "weights.npz", anneal_iterations=schedule.cap,
                              anneal_restarts=(10, 20, 40))
    from bluffsim.learn.ppo import train

    train(cfg, progress=False, opponent_agents=[abr.check_target("qdv", 2, {},
                                                                 abr.parse_target("random"))])
    with np.load(straight / "weights.npz") as a, np.load(cell / "seed1" / "weights_20.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        arrays = [k for k in a.files if k != "meta"]   # meta: the command and its seconds
        assert len(arrays) >= 6
        for k in arrays:
            assert np.array_equal(a[k], b[k]), k


def test_warm_restarts_decay_to_zero_at_each_mark_and_start_again() -> None:
    from bluffsim.learn import ConfigError, TrainConfig
    from bluffsim.learn.ppo import learning_rate

    cfg = TrainConfig(game="qdv", iterations=40, anneal_iterations=80, anneal_restarts=(10, 20, 40),
                      lr=1e-3, epochs=2, minibatches=2)
    cfg.validate()
    per = cfg.epochs * cfg.minibatches
    lr = learning_rate(cfg, 80 * per)
    for start, end in ((0, 10), (10, 20), (20, 40), (40, 80)):
        assert float(lr(start * per)) == pytest.approx(1e-3)
        assert float(lr(end * per - 1)) < 1e-3 * 2 / ((end - start) * per)
        assert float(lr((start + end) / 2 * per)) == pytest.approx(5e-4, rel=1e-3)
    assert float(lr(80 * per)) == 0.0
    plain = learning_rate(TrainConfig(game="qdv", iterations=80), 80 * per)
    assert float(plain(40 * per)) == pytest.approx(1.5e-4)   # the default lr, halfway
    with pytest.raises(ConfigError, match=r"train.anneal_restarts = \[10, 80\] is invalid"):
        TrainConfig(game="qdv", iterations=40, anneal_iterations=80,
                    anneal_restarts=(10, 80)).validate()


def test_on_the_qdv_small_preset_the_plateau_reaches_the_exact_best_response(tmp_path, capsys
                                                                           ) -> None:
    """On the preset's 8 deals the response trains on those deals and is scored exactly
    (OpenSpiel's policy value); against heuristic and counting it comes within 0.02 of the exact
    best response's win share (measured: 0.572 vs 0.572 and 0.562 vs 0.562 after 40 iterations,
    docs/exploit.md)."""
    pytest.importorskip("pyspiel")
    root = tmp_path / "ex"
    assert cli.main(["exploit", "--agent", "heuristic,counting", "--preset", "qdv-small",
                     "--budget", "plateau:start=10,cap=40,seeds=1", "--out", str(root)]) == 0
    capsys.readouterr()
    schedule = plateau.parse_schedule("plateau:start=10,cap=40,seeds=1")
    for name in ("heuristic", "counting"):
        cell = abr.cell_dir(root, "qdv", 2, abr.parse_target(name), plateau.label(schedule),
                            "qdv-small")
        rec = json.loads((cell / "abr.json").read_text())
        s, best = rec["sampling"], rec["best_response"]
        assert s["exact"] and s["games"] == 0 and s["ci_low"] == s["win_rate"] == s["ci_high"]
        assert abs(best["win_rate"] - s["win_rate"]) <= 0.02, (name, s, best)
        assert s["win_rate"] <= best["win_rate"] + 1e-9   # nothing beats a best response
        assert [g["seat"] for g in rec["seat_gains"]] == [0, 1]
        assert rec["runs"][0]["marks"][0]["games"] == 0


def test_the_env_plays_only_the_deals_asked_with_opponents_drawing_per_game() -> None:
    """``deals=1``: every game is deal 0, yet ``random`` opponents move differently from game to
    game (their draws are keyed by each game's own stream, as OpenSpiel's agents draw
    independently of the deal), while the learner's moves are the same everywhere."""
    from bluffsim.adapters.exploit import PRESETS
    from bluffsim.adapters.gymnasium import vector_env

    env = vector_env("qdv", 128, seat=1, opponents="random", num_players=2, deals=1,
                     **PRESETS["qdv-small"]["options"])
    x, info = env.reset(seed=3)
    rows = set()
    for _ in range(3):
        assert set(info["game_seed"].tolist()) == {0}
        rows |= {tuple(r) for r in np.asarray(x)}
        first_legal = np.asarray(info["action_mask"]).argmax(axis=1)
        x, _, _, _, info = env.step(first_legal)
    assert len(rows) > 3, len(rows)
    with pytest.raises(ValueError, match="deals -1: give 0"):
        vector_env("qdv", 2, deals=-1)
