"""``bluffsim evaluate`` (issue 25): the README's custom agent end to end, one-line errors."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bluffsim import evaluate
from bluffsim.analysis.stats import rate_against
from bluffsim.cli import main
from tests.built_once import built_once
from tests.console import bluffsim_here, run_in_root

ROOT = Path(__file__).resolve().parents[1]
SKEPTIC = "experiments.my_agent:Skeptic"


def skeptic_args(tmp: Path) -> list[str]:
    """The evaluation of the README's custom agent, tiny budget: qdv (the only game it plays),
    2 and 3 players, its files under ``tmp``."""
    return ["evaluate", SKEPTIC, "--table-games", "60", "--players", "2", "--players", "3",
            "--out", str(tmp / "card"), "--leaderboard", str(tmp / "lb.csv"),
            "--reference-dir", str(tmp / "ref"), "--quiet"]


@pytest.fixture(scope="module")
def skeptic_run(tmp_path_factory):
    """``(directory, args, exit code)`` of ``skeptic_args``, run once per session (the tests
    only read its files)."""
    tmp, code = built_once(tmp_path_factory, "skeptic_run",
                           lambda tmp: run_in_root(skeptic_args(tmp)))
    return tmp, skeptic_args(tmp), code


def test_the_custom_agent_is_evaluated_end_to_end(skeptic_run):
    tmp, _, code = skeptic_run
    assert code == 0
    card = pd.read_csv(tmp / "card" / "scorecard.csv")
    subject = evaluate.parse_subject(SKEPTIC)
    expected = evaluate.battery(subject, "quick", players=[2, 3])
    names = {(t.game, t.players, t.name) for t in expected}
    assert names == {("qdv", 2, "random"), ("qdv", 2, "heuristic"), ("qdv", 2, "counting"),
                     ("qdv", 2, "learned"), ("qdv", 3, "random"), ("qdv", 3, "heuristic"),
                     ("qdv", 3, "counting"), ("qdv", 3, "mixed")}
    tables = card[card["table"] != "overall"]
    assert {(g, int(p), t) for g, p, t in zip(tables["game"], tables["players"], tables["table"],
                                              strict=True)} == names
    assert (tables["games"] == 60).all()
    overall = card[card["table"] == "overall"]
    assert len(overall) == 1 and int(overall["games"].iloc[0]) == 60 * len(names)
    for lo, rate, hi in (("ci_low", "win_rate", "ci_high"),
                         ("ws_ci_low", "win_or_shared", "ws_ci_high")):
        assert (card[lo] <= card[rate]).all() and (card[rate] <= card[hi]).all()
        assert ((card[lo] >= 0) & (card[hi] <= 1)).all()
    assert np.allclose(tables["fair_share"], 1 / tables["players"].astype(int))
    ratings = pd.read_csv(tmp / "card" / "ratings.csv")
    assert ratings["game"].tolist() == ["qdv"] and np.isfinite(ratings[["rating", "se"]]).all().all()
    assert (ratings["ci_low"] < ratings["rating"]).all() and (ratings["rating"] < ratings["ci_high"]).all()
    ref = pd.read_csv(tmp / "card" / "reference.csv", index_col="agent")
    assert ref.loc["random", "rating"] == 0 and ref.loc["counting", "rating"] > 0
    for f in ("scorecard.md", "plots/ratings.png", "plots/win_rates.png"):
        assert (tmp / "card" / f).is_file(), f
    md = (tmp / "card" / "scorecard.md").read_text()
    assert "Strongest table" in md and "| qdv | 3 | mixed |" in md
    board = pd.read_csv(tmp / "lb.csv", dtype={"hash": str})
    assert len(board) == 1 and board["agent"].iloc[0] == SKEPTIC
    assert board["budget"].iloc[0] == "quick" and "qdv_rating" in board
    assert (tmp / "lb.md").read_text().count(SKEPTIC) == 1


def test_a_second_evaluation_replaces_its_row_unless_append(skeptic_run, tmp_path, capsys):
    shared, _, _ = skeptic_run
    tmp = tmp_path / "run"
    shutil.copytree(shared, tmp)   # the shared run stays as the other tests read it
    again = [a if a != str(tmp / "card") else str(tmp / "card2") for a in skeptic_args(tmp)]
    assert run_in_root(again) == 0
    assert len(pd.read_csv(tmp / "lb.csv")) == 1
    assert run_in_root([*again[:-1], "--force", "--append", "--quiet"]) == 0
    assert len(pd.read_csv(tmp / "lb.csv")) == 2
    # the same games give the same rating (deterministic), and the reference was cached
    first = pd.read_csv(tmp / "card" / "ratings.csv")
    second = pd.read_csv(tmp / "card2" / "ratings.csv")
    pd.testing.assert_frame_equal(first, second)
    capsys.readouterr()
    assert main(["leaderboard", "--path", str(tmp / "lb.csv")]) == 0
    assert capsys.readouterr().out.count(SKEPTIC) == 2


@pytest.mark.parametrize("args, message", [
    (["nosuchagent"], "AGENT 'nosuchagent' is not a known agent; give a registered agent"),
    (["nosuchmodule_xyz:Cls"], "cannot import module 'nosuchmodule_xyz'"),
    (["experiments.my_agent:Nope"], "has no class 'Nope'"),
    (["heuristic:bluff"], "parameter 'bluff': write NAME=VALUE"),
    (["heuristic:bluff=7"], "AGENT 'heuristic:bluff=7' at"),
    (["experiments/my_agent.py"], "is a file, not a .npz weights file"),
    (["missing.npz"], "weights file not found"),
    (["counting", "--budget", "huge"], "--budget 'huge': allowed: quick | standard | full"),
    (["counting", "--table-games", "50"], "--table-games 50: allowed: a positive multiple of 60"),
    (["counting", "--game", "chess"],
     f"--game 'chess': allowed: {' | '.join(evaluate.battery_players())}"),
    ([SKEPTIC, "--game", "veru"], "has no table for --game veru; it plays qdv"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, args, message, capsys,
                                                         monkeypatch):
    out = tmp_path / "o"
    monkeypatch.chdir(ROOT)
    code, err = bluffsim_here(["evaluate", *args, "--out", str(out), "--leaderboard",
                               str(tmp_path / "lb.csv")], capsys)
    assert code == 2, err
    assert err.startswith("bluffsim: error: ") and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists() and not (tmp_path / "lb.csv").exists()


def test_bad_input_in_a_real_process_is_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "o"
    proc = subprocess.run([sys.executable, "-m", "bluffsim.cli", "evaluate", "nosuchagent",
                           "--out", str(out), "--leaderboard", str(tmp_path / "lb.csv")],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("bluffsim: error: ") and proc.stderr.count("\n") == 1
    assert "AGENT 'nosuchagent' is not a known agent" in proc.stderr
    assert not out.exists() and not (tmp_path / "lb.csv").exists()


def test_a_weights_file_is_an_agent_of_its_game_and_player_count():
    s = evaluate.parse_subject(str(ROOT / "agents" / "weights" / "veru_4p.npz"))
    assert s.agent == "learned" and s.plays == (("veru", (4,)),)
    assert {t.players for t in evaluate.battery(s, "quick")} == {4}
    path = str(ROOT / "agents" / "weights" / "veru_4p.npz")
    named = evaluate.parse_subject(f"learned:weights={path}")   # the agent-text form
    assert named.agent == "learned" and named.params == {"weights": path}


def test_rate_against_recovers_a_known_rating():
    """Pairs generated from fixed opponent ratings give back the newcomer's rating."""
    ratings = pd.Series({"a": 0.0, "b": 200.0, "c": -100.0})
    true = 120.0
    p = 1 / (1 + 10 ** ((ratings - true) / 400))
    n = pd.Series(1e6, index=ratings.index)
    r, se = rate_against(ratings, p * n, n)
    assert abs(r - true) < 1e-6 and 0 < se < 1


def test_the_win_rate_interval_is_taken_over_deals_not_games():
    """Games replaying one deal count once: when every deal is replayed identically (all won or
    all lost together), the deal-cluster interval is as wide as the deals alone allow, wider than
    Wilson over games; at 0% and 100% it keeps Wilson's width instead of collapsing."""
    from bluffsim.analysis.stats import cluster_bootstrap_interval, deal_interval, wilson_interval

    deals = np.repeat(np.arange(40), 6)
    won = np.repeat(np.arange(40) % 2 == 0, 6)           # 0.5, perfectly correlated per deal
    lo, hi = deal_interval(won, deals)
    wlo, whi = wilson_interval(np.array([won.sum()]), np.array([won.size]))
    dlo, dhi = wilson_interval(np.array([20]), np.array([40]))  # as if 40 independent games
    assert lo < wlo[0] and hi > whi[0]
    assert abs((hi - lo) - (dhi[0] - dlo[0])) < 0.06
    assert cluster_bootstrap_interval(won, deals) == cluster_bootstrap_interval(won, deals)
    for rate in (0.0, 1.0):
        all_same = np.full(240, rate == 1.0)
        lo, hi = deal_interval(all_same, deals)
        wlo, whi = wilson_interval(np.array([all_same.sum()]), np.array([240]))
        assert (lo, hi) == (float(wlo[0]), float(whi[0])) and hi - lo > 0.01


def test_the_reference_cache_key_follows_the_shipped_learned_weights(tmp_path, monkeypatch):
    """New shipped ``learned`` weights re-rate the reference pool: its cache key covers the files'
    content, not only their names."""
    import shutil

    import agents.learned as learned

    real = learned.shipped_weights
    for p in (2, 4):
        shutil.copy(real("qdv", p), tmp_path / f"qdv_{p}p.npz")
    monkeypatch.setattr(learned, "shipped_weights", lambda g, p: tmp_path / f"{g}_{p}p.npz")
    before = evaluate.reference_hash("qdv")
    shutil.copy(real("qdv", 4), tmp_path / "qdv_2p.npz")      # other bytes, same name
    assert evaluate.reference_hash("qdv") != before


def test_every_game_of_an_evaluate_table_replays_exactly(skeptic_run, monkeypatch):
    """``bluffsim replay --table``: the custom agent's games at every 3-player table (learned,
    mixed and the rest) are played again exactly from the evaluated agent's text."""
    from bluffsim.replay import open_source, replay_game

    tmp, _, code = skeptic_run
    assert code == 0
    monkeypatch.chdir(ROOT)
    card = tmp / "card"
    keys = [k for k in pd.read_json(card / "evaluation.json", typ="series")["identity"]["tables"]
            if k.startswith("qdv_3p_")]
    assert len(keys) >= 4
    for key in keys:
        source = open_source(card, key)
        assert SKEPTIC in {name for name, _ in source.lineup.agents.values()}
        for game in source.game_ids().tolist()[:6]:
            r = replay_game(source, game, note=lambda _: None)
            assert "every seat equal the results" in r.checked
