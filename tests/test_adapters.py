"""Ecosystem adapters: PettingZoo's and OpenSpiel's own conformance tests, and exploitability."""

from __future__ import annotations

import math

import numpy as np
import pytest

import bluffsim
from bluffsim.adapters.single import SingleGame

# every game at its smallest table and one larger table of its conformance cases
CASES = [(g, p) for g in bluffsim.list_games()
         for p in sorted({bluffsim.spec(g).players[0], bluffsim.spec(g).test_tables[-1][0]})]


def test_single_game_rewards_are_zero_sum_placement_scores():
    g = SingleGame("legumes", 4)
    s = g.new_state(11)
    while not s.done:
        g.apply(s, g.legal_actions(s)[0])
    r = g.rewards(s)
    place = np.asarray(s.placements)
    assert r.sum() == pytest.approx(0.0)
    for i in range(4):
        want = sum(np.sign(place[j] - place[i]) for j in range(4)) / 3
        assert r[i] == pytest.approx(want)


# PettingZoo warns about every Dict observation (its own classic games included)
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably")
@pytest.mark.parametrize("game_id, players", CASES)
def test_pettingzoo_api_and_seed_tests_pass(game_id, players):
    pytest.importorskip("pettingzoo", reason="needs the 'adapters' extra")
    from pettingzoo.test import api_test, seed_test

    from bluffsim.adapters.pettingzoo import env

    api_test(env(game_id, players, render_mode="ansi"), num_cycles=200)
    seed_test(lambda: env(game_id, players), num_cycles=200)


def test_pettingzoo_reset_seed_deals_the_bluffsim_game_of_that_seed():
    pytest.importorskip("pettingzoo", reason="needs the 'adapters' extra")
    from bluffsim.adapters.pettingzoo import env

    e = env("qdv", 3, render_mode="ansi")
    e.reset(seed=5)
    want = SingleGame("qdv", 3).new_state(5)
    assert e.state.hands == want.hands
    assert "player_0" in e.render()
    with pytest.raises(ValueError, match="render_mode"):
        env("qdv", 3, render_mode="human")


@pytest.mark.parametrize("game_id, players", CASES)
def test_openspiel_random_sim_test_passes(game_id, players):
    pyspiel = pytest.importorskip("pyspiel", reason="needs the 'adapters' extra")
    import bluffsim.adapters.openspiel  # noqa: F401

    game = pyspiel.load_game(f"python_bluffsim_{game_id}", {"players": players, "deals": 4})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_openspiel_options_round_trip_and_reach_the_rules():
    pyspiel = pytest.importorskip("pyspiel", reason="needs the 'adapters' extra")
    from bluffsim.adapters.openspiel import format_options, parse_options

    opts = {"starting_tokens": 2, "fruit_multipliers": [1, 2], "challenge_deck": [],
            "challenge_on_landing": False}
    assert parse_options(format_options(opts)) == opts
    game = pyspiel.load_game(f"python_bluffsim_qdv(players=3,options={format_options(opts)})")
    assert game.single.rules.starting_tokens == 2
    assert game.num_players() == 3
    with pytest.raises(Exception, match="name:value"):
        pyspiel.load_game("python_bluffsim_qdv(options=starting_tokens)")


def test_openspiel_information_state_is_perfect_recall_and_private():
    pyspiel = pytest.importorskip("pyspiel", reason="needs the 'adapters' extra")
    import bluffsim.adapters.openspiel  # noqa: F401

    game = pyspiel.load_game("python_bluffsim_qdv", {"players": 2, "deals": 2})
    a, b = game.new_initial_state().child(0), game.new_initial_state().child(1)
    # the two deals differ, yet a seat's view depends only on its own cards
    assert a.information_state_string(0) != a.information_state_string(1)
    s = a.child(a.legal_actions()[0])
    assert s.information_state_string(0).startswith(a.information_state_string(0))
    assert len(s.observation_tensor(0)) == game.single.observation_size
    assert s.information_state_tensor(1) == s.observation_tensor(1)
    assert b.is_chance_node() is False


def test_cfr_exploitability_falls_and_agents_are_measured():
    pytest.importorskip("pyspiel", reason="needs the 'adapters' extra")
    from bluffsim.adapters.exploit import agent_nash_conv, cfr_curve, load_preset

    game = load_preset("qdv-tiny")
    curve = cfr_curve(game, [1, 4, 16])
    values = [v for _, v in curve]
    assert values[0] > values[1] > values[2] >= 0.0
    # one CFR iteration is the uniform policy, which is exactly what `random` plays
    assert agent_nash_conv(game, "random") == pytest.approx(values[0])
    for name in ("heuristic", "counting"):
        v = agent_nash_conv(game, name)
        assert math.isfinite(v) and v >= -1e-12
    with pytest.raises(ValueError, match="available"):
        load_preset("nope")


def test_cli_exploit_prints_the_table(capsys):
    pytest.importorskip("pyspiel", reason="needs the 'adapters' extra")
    from bluffsim.cli import main

    assert main(["exploit", "--preset", "qdv-tiny", "--iterations", "4", "--checkpoints", "1"]) == 0
    out = capsys.readouterr().out
    for policy in ("random", "heuristic", "counting", "cfr 1 iteration", "cfr 4 iterations"):
        assert policy in out
    assert main(["exploit", "--preset", "nope"]) == 2


def test_cli_exploit_reports_each_row_on_stderr_as_it_goes(capsys):
    """A plan line, then one line per measured row (policy, NashConv, seconds) on stderr; the
    table on stdout as before."""
    pytest.importorskip("pyspiel", reason="needs the 'adapters' extra")
    from bluffsim.cli import main

    assert main(["exploit", "--preset", "qdv-tiny", "--iterations", "4", "--checkpoints", "1"]) == 0
    captured = capsys.readouterr()
    err = [line for line in captured.err.splitlines() if line.startswith("exploit")]
    assert err[0].startswith("exploit: 5 rows: NashConv of 3 policies")
    assert [line.split(": NashConv")[0] for line in err[1:]] == [
        "exploit 1/5: random", "exploit 2/5: heuristic", "exploit 3/5: counting",
        "exploit 4/5: cfr 1 iteration", "exploit 5/5: cfr 4 iterations"]
    assert all(line.endswith(" s)") for line in err[1:])
    assert "exploit" not in captured.out and "cfr 4 iterations" in captured.out


def test_cli_exploit_lists_learned_with_weights_for_the_preset(tmp_path, capsys):
    """`bluffsim exploit --weights` adds `learned` (sampling and greedy) to the table; qdv-small
    lists its shipped file by default."""
    pytest.importorskip("pyspiel", reason="needs the 'adapters' extra")
    import bluffsim
    from agents.learned import save_weights
    from bluffsim.adapters.exploit import PRESETS, preset_weights
    from bluffsim.cli import main

    opts = PRESETS["qdv-tiny"]["options"]
    game = bluffsim.make("qdv", 2, **opts)
    d = game.observation_tensor(game.init(np.zeros(1, np.uint64))).shape[1]
    r = np.random.default_rng(0)
    layers = [(r.normal(size=(d, 16)).astype(np.float32), np.zeros(16, np.float32)),
              (r.normal(size=(16, game.num_actions)).astype(np.float32),
               np.zeros(game.num_actions, np.float32))]
    path = tmp_path / "tiny.npz"
    save_weights(path, layers, {"game": "qdv", "num_players": 2, "rules": opts})
    assert main(["exploit", "--preset", "qdv-tiny", "--iterations", "1", "--checkpoints", "1",
                 "--weights", str(path)]) == 0
    out = capsys.readouterr().out
    rows = {line.rsplit(None, 1)[0].strip() for line in out.splitlines()[1:] if line.strip()}
    assert {"learned", "learned (greedy)"} <= rows
    assert preset_weights("qdv-tiny") is None
    assert preset_weights("qdv-small").endswith("qdv_small_2p.npz")


@pytest.mark.parametrize("argv, needle", [
    (["--iterations", "-5"], "--iterations -5"), (["--iterations", "0"], "--iterations 0"),
    (["--checkpoints", "0,10"], "--checkpoints 0,10"),
    (["--iterations", "5", "--checkpoints", "1,10"], "--checkpoints 1,10"),
])
def test_cli_exploit_refuses_iteration_counts_it_cannot_run(capsys, argv, needle):
    """--iterations must be positive and --checkpoints within 1..--iterations: one line, exit 2,
    before any work."""
    pytest.importorskip("pyspiel", reason="needs the 'adapters' extra")
    from bluffsim.cli import main

    assert main(["exploit", "--preset", "qdv-tiny", *argv]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and needle in err, err
    assert captured.out == ""


def test_cli_exploit_prints_only_the_cfr_rows_asked_for(capsys):
    """--iterations 5 with the default checkpoints (1, 10, 100) reports CFR at 1 and 5 iterations,
    not at 10 and 100 (which it would have to run further for)."""
    pytest.importorskip("pyspiel", reason="needs the 'adapters' extra")
    from bluffsim.cli import main

    assert main(["exploit", "--preset", "qdv-tiny", "--iterations", "5"]) == 0
    cfr = [line.split("iteration")[0].strip() for line in capsys.readouterr().out.splitlines()
           if line.strip().startswith("cfr")]
    assert cfr == ["cfr 1", "cfr 5"]
