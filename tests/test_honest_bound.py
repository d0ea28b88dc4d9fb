"""The veru honest-player bound (experiments/ladders/honest_bound.py): its truth oracle and policies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import agents
import bluffsim
from bluffsim.games.veru import rules as R
from bluffsim.rng import AgentRNG
from tests.games import random_actions
from tests.scripts import load_script

H = load_script("ladders/honest_bound.py")


def test_claim_truth_read_from_the_state_is_what_the_check_finds():
    """Before every believe / disbelieve of random play, ``claim_is_true`` equals the
    engine's verdict recorded by the check (``last_check[:, 3]``)."""
    game = bluffsim.make("veru", num_players=4)
    st = game.init(np.arange(64, dtype=np.uint64))
    checks = 0
    while not st.done.all():
        a = random_actions(game, st)
        truth = H.claim_is_true(st)
        checked = (~st.done) & ((a == R.BELIEVE) | (a == R.DISBELIEVE))
        game.step(st, a)
        assert np.array_equal(st.last_check[checked, 3] == 1, truth[checked])
        checks += int(checked.sum())
    assert checks > 500


def test_perfect_policies_check_right_and_keep_the_heuristics_other_choices():
    game = bluffsim.make("veru", num_players=4)
    heuristic = agents.make("heuristic", game, bluff=0.0)
    st = game.init(np.arange(256, dtype=np.uint64))
    for _ in range(12):   # move the games into varied positions
        game.step(st, random_actions(game, st))
    live = ~st.done
    obs = {k: v[live] for k, v in game.observe(st).items()}
    mask = st.legal_action_mask[live]
    rng = AgentRNG(st.seed[live], st.current_player[live], st.num_decisions[live])
    truth = H.claim_is_true(st)[live]
    shipped = H.honest_actions("shipped", heuristic, obs, mask, rng, truth)
    check = H.honest_actions("perfect-check", heuristic, obs, mask, rng, truth)
    only = H.honest_actions("perfect-only", heuristic, obs, mask, rng, truth)
    respond = obs["phase"] == R.PHASE_RESPOND
    right = np.where(truth, R.BELIEVE, R.DISBELIEVE)
    adds = (shipped >= R.PUT0) & (shipped < R.DONE)
    assert respond.sum() > 20 and (respond & adds).any() and (respond & ~adds).any()
    assert np.array_equal(only[respond], right[respond])
    assert np.array_equal(check[respond & ~adds], right[respond & ~adds])
    assert np.array_equal(check[respond & adds], shipped[respond & adds])
    assert np.array_equal(check[~respond], shipped[~respond])
    assert np.array_equal(only[~respond], shipped[~respond])
    assert mask[np.arange(mask.shape[0]), only].all() and mask[np.arange(mask.shape[0]), check].all()


def test_small_run_writes_the_table(tmp_path):
    H.main(["--games", "60", "--players", "3", "--out", str(tmp_path)])
    df = pd.read_csv(tmp_path / "honest_bound.csv")
    assert list(df["policy"]) == list(H.POLICIES)
    assert (df["games"] == 60).all()
    assert ((df["honest_win_rate"] >= df["ci_low"]) & (df["honest_win_rate"] <= df["ci_high"])).all()
    md = (tmp_path / "honest_bound.md").read_text()
    assert md.count("\n| 3 |") == 3 and "+1 " in md and "+2 " in md


@pytest.mark.parametrize("args, message", [
    (["--games", "0"], "--games must be at least 1, got 0"),
    (["--players", "4", "2"], "--players 2 is not a veru player count; allowed: 3-6"),
])
def test_bad_arguments_stop_with_one_line_and_write_nothing(tmp_path, capsys, args, message):
    with pytest.raises(SystemExit) as stop:
        H.main(args + ["--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith(message) and "Traceback" not in "\n".join(err)
    assert not (tmp_path / "out").exists()
