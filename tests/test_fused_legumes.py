"""Built-in agents inside the compiled loop, legumes (issue 24): the ``heuristic`` policy on the
record the fused loop fills from the engine (``observe_row``) makes the agent's ``act``
decisions (the observation packed into records), and the runner's fused path (random,
heuristic and counting seats) gives the stepped path's records."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import bluffsim
from agents.fused import fused_lineup
from agents.legumes import heuristic as H
from bluffsim.games.legumes import rules as R
from bluffsim.tournament import parse_config
from bluffsim.tournament.config import load_raw
from tests.fused import (
    compiled_equals_numpy,
    count_fused_calls,
    fused_and_stepped,
    policy_on_states,
    run_experiment_both_ways,
    runner_config,
)

DEFAULT: dict = {}
ACCUSER = {"accuse_rate": 0.4}
EXTREMES = {
    "default": DEFAULT,
    "accuser": ACCUSER,
    "never": {"accuse_at": 99, "double_at": 99, "accuse_rate": 0.0},
    "always": {"accuse_at": 0, "double_at": 0, "accuse_rate": 1.0},
    "odd_floats": {"accuse_at": 2, "double_at": 3, "accuse_rate": 0.3713},
}


def compare_on_played_games(game, params: dict, n_games: int = 60, seed0: int = 0,
                            keep_margin: int | None = None) -> tuple[int, set]:
    """The legumes heuristic's policy as the fused loop runs it against the agent's ``act`` on
    played games (``tests.fused.compiled_equals_numpy``); returns decisions compared and the
    actions the heuristic chose."""
    heur = agents.make("heuristic", game, **params)
    heur.KEEP_MARGIN = keep_margin
    compiled = policy_on_states(game, H.heuristic_policy, H.params_row(heur), ())
    compared, _, chosen = compiled_equals_numpy(game, heur, compiled, n_games, seed0)
    return compared, chosen


def _kinds(chosen: set) -> set:
    names = set()
    for a in chosen:
        if a < R.PLAY0:
            names.add("open")
        elif a < R.ACCUSE:
            names.add("play")
        elif a in (R.ACCUSE, R.ACCUSE_DOUBLE, R.ACCEPT, R.REVERSE_ID):
            names.add(int(a))
        elif a < R.REVERSE_ID:
            names.add("choice")
        else:
            names.add("reverse_card")
    return names


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@pytest.mark.parametrize("name", list(EXTREMES))
def test_fused_heuristic_decides_as_the_agent(players, name):
    game = bluffsim.make("legumes", players)
    compared, chosen = compare_on_played_games(game, EXTREMES[name], seed0=100 * players)
    assert compared > 1000
    assert {"open", "play"} <= _kinds(chosen)


def test_the_compared_games_reach_every_kind_of_decision():
    """Opening, playing, choice, reverse with a card, accuse, accuse double and accept are
    all compared (pooled over tables and parameters)."""
    kinds = set()
    for players, params in ((2, DEFAULT), (3, ACCUSER), (4, EXTREMES["always"]),
                            (5, EXTREMES["odd_floats"])):
        kinds |= _kinds(compare_on_played_games(bluffsim.make("legumes", players), params,
                                                seed0=7 * players)[1])
    assert {"open", "play", "choice", "reverse_card", R.ACCUSE, R.ACCUSE_DOUBLE,
            R.ACCEPT} <= kinds


@pytest.mark.parametrize("rules", [{"reverse_alone": True},
                                   {"numbers": (2, 2, 1), "action_lie_penalty": 0,
                                    "first_player": -1}])
def test_compiled_heuristic_under_other_rules(rules):
    game = bluffsim.make("legumes", 3, **rules)
    for params in (DEFAULT, ACCUSER, EXTREMES["always"]):
        compare_on_played_games(game, params, n_games=40)


@pytest.mark.parametrize("players", [3, 5])
def test_compiled_heuristic_with_a_keep_margin(players):
    """``KEEP_MARGIN`` (None in the shipped class) set: the 3+-player race rule is compiled too."""
    game = bluffsim.make("legumes", players)
    for margin in (0, 2):
        compare_on_played_games(game, ACCUSER, n_games=40, keep_margin=margin)


# ------------------------------------------------------------------ the runner
def config(seats, players=4, games=120, out="", rules=None):
    return runner_config("legumes", seats, players, games, 60, out, rules)


LINEUP = [{"agent": "random", "label": "rand"}, {"agent": "heuristic", "label": "heur"},
          {"agent": "heuristic", "label": "accuser", "params": ACCUSER},
          {"agent": "counting", "label": "count"}]
COUNTING = [{"agent": "counting", "label": "count"},
            {"agent": "counting", "label": "rash",
             "params": {"margin": -1.0, "trap_rate": 0.5, "keep_margin": 0.0,
                        "double_below": 0.5, "accept_below": 0.3}}]


@pytest.mark.parametrize("players,seats,rules", [
    (2, [LINEUP[1], LINEUP[0]], None),
    (2, [LINEUP[2], COUNTING[0]], None),
    (2, COUNTING, {"action_lie_penalty": 0}),
    (4, LINEUP, None),
    (4, [LINEUP[0], LINEUP[2], *COUNTING], {"reverse_alone": True}),
    (6, [*LINEUP, COUNTING[1], {"agent": "random", "label": "rand2"}], None)])
def test_fused_tournament_records_equal_the_stepped_path(players, seats, rules, monkeypatch):
    exp = config(seats, players, rules=rules)
    fused, old = fused_and_stepped(exp, 1, monkeypatch)
    assert len(fused[1]) > 100
    assert fused[0].equals(old[0]) and fused[1].equals(old[1])


def test_fused_ladder_run_equals_the_stepped_run(tmp_path, monkeypatch):
    """``experiments/ladder_legumes.toml`` (permuted seatings, duplicate deals, reduced to
    two shards of 48 games) writes the same parquet both ways."""
    def exp(out):
        raw = load_raw("experiments/ladder_legumes.toml")
        raw["experiment"]["games"] = 96
        raw["run"].update(shard_games=48, workers=1, out=str(out), plots=False)
        return parse_config(raw)

    calls = count_fused_calls(monkeypatch)
    run_experiment_both_ways(exp, tmp_path, monkeypatch)
    assert calls, "the fused loop was not used"


def test_an_illegal_compiled_choice_stops_the_loop():
    game = bluffsim.make("legumes", 3)
    lineup = fused_lineup(game, [agents.make("heuristic", game)] * 3)
    st = game.init(np.arange(4))
    before = st.num_decisions.copy()
    lineup.kinds[:] = 99
    *_, bad = lineup.play(st, np.zeros((4, 3), np.int64), 10)
    assert bad == 0 and (st.num_decisions == before).all()
