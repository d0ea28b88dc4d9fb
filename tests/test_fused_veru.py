"""Built-in agents inside the compiled loop, veru (issue 24): the ``heuristic`` policy on the
record the fused loop fills from the engine (``observe_row``) decides as the agent's ``act`` on
the batched observation, and the runner's fused path (random, heuristic and counting seats)
gives the stepped path's records."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import bluffsim
from agents.fused import fused_lineup
from agents.veru.heuristic import heuristic_policy
from bluffsim.games.veru import rules as R
from bluffsim.rng import AgentRNG
from bluffsim.tournament import parse_config
from tests.fused import (
    compiled_equals_numpy,
    fused_and_stepped,
    policy_on_states,
    run_experiment_both_ways,
    runner_config,
)

DEFAULT: dict = {}
BOLD = {"bluff": 0.9, "trust": 0.85, "joker_slack": 1, "record": 5}
EXTREMES = {
    "default": DEFAULT,
    "bold": BOLD,
    "honest_sceptic": {"bluff": 0.0, "trust": 0.0, "joker_slack": 0, "record": 0},
    "liar_believer": {"bluff": 1.0, "trust": 1.0, "joker_slack": 4, "record": 0},
    "long_memory": {"bluff": 0.25, "trust": 0.5, "joker_slack": 0, "record": 40},
    "odd_floats": {"bluff": 0.37, "trust": 0.7071, "joker_slack": 2, "record": 1},
}


def compare_on_played_games(game, params: dict, n_games: int = 80,
                            seed0: int = 0) -> tuple[int, set]:
    """The heuristic policy as the fused loop calls it against the agent's ``act`` on played
    games (``tests.fused.compiled_equals_numpy``); returns decisions compared and their phases."""
    heur = agents.make("heuristic", game, **params)
    compiled = policy_on_states(game, heuristic_policy, heur.params_row(), ())
    compared, phases, _ = compiled_equals_numpy(game, heur, compiled, n_games, seed0)
    return compared, phases


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("name", list(EXTREMES))
def test_fused_heuristic_decides_as_the_agent(players, name):
    game = bluffsim.make("veru", players)
    compared, phases = compare_on_played_games(game, EXTREMES[name], seed0=100 * players)
    assert compared > 1000
    assert phases == {0, 1, 2}  # announces, puts and responses all compared


@pytest.mark.parametrize("rules", [{"jokers": 0}, {"turn_order": "counterclockwise"},
                                   {"jokers": 0, "turn_order": "counterclockwise",
                                    "endgame_limit": 12},
                                   {"joker_swap_seats": (0, 1), "check_seats": (2,),
                                    "ace_hint_seats": (1,)}])
def test_compiled_heuristic_under_other_rules(rules):
    game = bluffsim.make("veru", 4, **rules)
    for params in (DEFAULT, BOLD, EXTREMES["honest_sceptic"]):
        compare_on_played_games(game, params, n_games=50)


def test_the_compared_games_reach_both_checks_and_done():
    """The comparisons reach the uniform and ``t ** count``: with ``record`` > 0 and
    ``bluff`` strictly between 0 and 1, believe, disbelieve and done all occur."""
    game = bluffsim.make("veru", 4)
    heur = agents.make("heuristic", game, **EXTREMES["odd_floats"])
    rand = agents.make("random", game)
    st = game.init(np.arange(60))
    seen = set()
    while not st.done.all():
        rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
        mine = heur.act(game.observe(st), st.legal_action_mask, rng)
        live = ~st.done
        seen |= {(int(p), int(a)) for p, a, lv in zip(st.phase, mine, live, strict=True) if lv}
        game.step(st, np.where(live & (st.current_player % 2 == 0), mine,
                               rand.act(None, st.legal_action_mask, rng)))
    assert {(R.PHASE_RESPOND, R.BELIEVE), (R.PHASE_RESPOND, R.DISBELIEVE),
            (R.PHASE_PUT, R.DONE)} <= seen


# ------------------------------------------------------------------ the runner
def config(seats, players=4, games=240, out="", rules=None):
    return runner_config("veru", seats, players, games, 120, out, rules)


LINEUP = [{"agent": "random", "label": "rand"}, {"agent": "heuristic", "label": "heur"},
          {"agent": "heuristic", "label": "bold", "params": BOLD},
          {"agent": "heuristic", "label": "sceptic", "params": EXTREMES["honest_sceptic"]}]
COUNTING = [{"agent": "counting", "label": "count"},
            {"agent": "counting", "label": "rash", "params": {"rival": 0.1, "lie_margin": -1.0,
                                                             "open_value": 2.5}}]




@pytest.mark.parametrize("players,rules", [(3, None), (4, None),
                                           (5, {"jokers": 0,
                                                "turn_order": "counterclockwise"})])
def test_fused_tournament_records_equal_the_stepped_path(players, rules, monkeypatch):
    seats = (LINEUP + [{"agent": "random", "label": "rand2"}])[:players]
    exp = config(seats, players, rules=rules)
    fused, old = fused_and_stepped(exp, 1, monkeypatch)
    assert len(fused[1]) > 100
    assert fused[0].equals(old[0]) and fused[1].equals(old[1])


def test_fused_pool_tournament_records_equal_the_stepped_path(monkeypatch):
    raw = {"experiment": {"name": "pool", "game": "veru", "players": 3, "games": 240,
                          "seed": 3},
           "pool": LINEUP, "run": {"batch": 50, "shard_games": 120, "plots": False,
                                   "lineups": "combinations"}}
    exp = parse_config(raw)
    fused, old = fused_and_stepped(exp, 1, monkeypatch)
    assert set(fused[0]["agent"]) == {"rand", "heur", "bold", "sceptic"}
    assert fused[0].equals(old[0]) and fused[1].equals(old[1])


def test_fused_run_experiment_equals_the_stepped_run(tmp_path, monkeypatch):
    run_experiment_both_ways(lambda out: config(LINEUP, out=out), tmp_path, monkeypatch)


@pytest.mark.parametrize("players,seats,rules", [
    (3, [LINEUP[0], LINEUP[1], COUNTING[0]], None),
    (4, [LINEUP[0], LINEUP[2], *COUNTING], {"jokers": 0}),
    (6, [*LINEUP, *COUNTING], {"turn_order": "counterclockwise"})])
def test_fused_counting_tournament_records_equal_the_stepped_path(players, seats, rules,
                                                                 monkeypatch):
    exp = config(seats, players, games=120, rules=rules)
    fused, old = fused_and_stepped(exp, 0, monkeypatch)
    assert len(fused[1]) > 100
    assert fused[0].equals(old[0]) and fused[1].equals(old[1])


def test_an_illegal_compiled_choice_stops_the_loop(monkeypatch):
    game = bluffsim.make("veru", 3)
    lineup = fused_lineup(game, [agents.make("heuristic", game)] * 3)
    st = game.init(np.arange(4))
    before = st.num_decisions.copy()
    lineup.kinds[:] = 99
    *_, bad = lineup.play(st, np.zeros((4, 3), np.int64), 10)
    assert bad == 0 and (st.num_decisions == before).all()
