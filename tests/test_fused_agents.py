"""Built-in agents inside the compiled loop (qdv): the ``heuristic`` policy on the record the
fused loop fills from the engine makes the decisions its ``act`` makes from ``observe``, the
runner's fused path (random, heuristic and counting seats) gives the stepped path's records,
and only lineups of built-in agents with compiled policies take it."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import bluffsim
from agents.fused import fused_lineup, fused_module
from agents.qdv import counting
from agents.qdv import heuristic as H
from bluffsim.tournament import parse_config, play_shard, runner
from tests.fused import (
    Extremist,
    compiled_equals_numpy,
    count_fused_calls,
    fused_and_stepped,
    policy_on_states,
    run_experiment_both_ways,
    runner_config,
    stepped,
)

DEFAULT: dict = {}
BOLD = {"call_margin": -1.0, "exact_window": 1.5, "bluff": 0.6, "switch_gain": 0.0,
        "salad_weight": 1.0}
EXTREMES = {
    "default": DEFAULT,
    "bold": BOLD,
    "always_bluff": {"call_margin": -3.0, "exact_window": 0.0, "bluff": 1.0,
                     "switch_gain": -2.0, "salad_weight": 0.0},
    "timid": {"call_margin": 6.0, "exact_window": 4.0, "bluff": 0.0, "switch_gain": 9.0,
              "salad_weight": 0.0},
    "odd_floats": {"call_margin": 0.1, "exact_window": 0.7, "bluff": 0.3, "switch_gain": 0.3,
                   "salad_weight": 0.37},
}


def compare_on_played_games(game, params: dict, n_games: int = 120,
                            seed0: int = 0) -> tuple[int, set]:
    """The qdv heuristic's policy as the fused loop runs it against its ``act`` on played games
    (``tests.fused.compiled_equals_numpy``); returns decisions compared and their phases."""
    heur = agents.make("heuristic", game, **params)
    compiled = policy_on_states(game, H.heuristic_policy, heur.params_row(),
                                H.contexts(game.rules))
    compared, phases, _ = compiled_equals_numpy(game, heur, compiled, n_games, seed0)
    return compared, phases


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("name", list(EXTREMES))
def test_compiled_heuristic_decides_as_the_numpy_agent(players, name):
    game = bluffsim.make("qdv", players)
    compared, phases = compare_on_played_games(game, EXTREMES[name], seed0=100 * players)
    assert compared > 1000
    assert phases == {0, 1, 2, 3}  # start choices, bids, salads and rewards all compared


@pytest.mark.parametrize("rules", [{"salads": 0}, {"salads": 8, "challenge_deck": ()},
                                   {"fruit_multipliers": (1, 3, 3), "salads": 2,
                                    "challenge_on_landing": False}])
def test_compiled_heuristic_under_other_rules(rules):
    game = bluffsim.make("qdv", 4, **rules)
    for params in (DEFAULT, BOLD):
        compare_on_played_games(game, params, n_games=60)


# ------------------------------------------------------------------ the runner
def config(seats, players=4, games=240, out="", game="qdv"):
    return runner_config(game, seats, players, games, 120, out)


LINEUP = [{"agent": "random", "label": "rand"}, {"agent": "heuristic", "label": "heur"},
          {"agent": "heuristic", "label": "bold", "params": BOLD},
          {"agent": "counting", "label": "count"}]



@pytest.mark.parametrize("players", [3, 4])
def test_fused_tournament_records_equal_the_stepped_path(players, monkeypatch):
    exp = config(LINEUP[:players], players)
    fused, old = fused_and_stepped(exp, 1, monkeypatch)
    assert len(fused[1]) > 100
    assert fused[0].equals(old[0]) and fused[1].equals(old[1])


def test_fused_pool_tournament_records_equal_the_stepped_path(monkeypatch):
    raw = {"experiment": {"name": "pool", "game": "qdv", "players": 3, "games": 240, "seed": 3},
           "pool": LINEUP, "run": {"batch": 50, "shard_games": 120, "plots": False,
                                   "lineups": "combinations"}}
    exp = parse_config(raw)
    fused, old = fused_and_stepped(exp, 1, monkeypatch)
    assert set(fused[0]["agent"]) == {"rand", "heur", "bold", "count"}
    assert fused[0].equals(old[0]) and fused[1].equals(old[1])


def test_counting_memo_tables_growing_mid_call_resume_the_same_games(monkeypatch):
    """Fresh (small) memo tables run full inside the fused loop: it stops, they grow, it
    resumes; the records equal the stepped path's and every round is recorded."""
    exp = config([{"agent": "counting", "label": "c"},
                  {"agent": "counting", "label": "c2", "params": {"spite": 0.8,
                                                                  "evidence": False}},
                  {"agent": "heuristic", "label": "h"}], players=3, games=240)
    monkeypatch.setattr(counting, "_TABLES", {})
    fused = play_shard(exp, 1)
    rules = bluffsim.make("qdv", 3).rules
    assert max(len(t.cdf) for t in counting.memo_tables(rules)) > 1024  # they grew
    stepped(monkeypatch)
    old = play_shard(exp, 1)
    assert fused[0].equals(old[0]) and fused[1].equals(old[1])
    assert len(fused[1]) == fused[0].groupby("game")["rounds"].first().sum()


def test_fused_run_experiment_equals_the_stepped_run(tmp_path, monkeypatch):
    run_experiment_both_ways(lambda out: config(LINEUP, out=out), tmp_path, monkeypatch)



def test_builtin_lineup_takes_the_fused_path(monkeypatch):
    calls = count_fused_calls(monkeypatch)
    games, _ = play_shard(config(LINEUP, games=60), 0)
    assert calls and len(games) == 60 * 4


SKEPTIC = {"agent": "experiments.my_agent:Skeptic", "label": "skeptic", "params": {"p_call": 0.4}}


def test_a_lineup_of_python_agents_keeps_the_stepped_path(monkeypatch):
    calls = count_fused_calls(monkeypatch)
    seats = [SKEPTIC, {**SKEPTIC, "label": "skeptic2", "params": {"p_call": 0.7}},
             {**SKEPTIC, "label": "skeptic3", "params": {"p_call": 0.1}}]
    games, rounds = play_shard(config(seats, players=3, games=60), 0)
    assert not calls and len(games) == 60 * 3 and len(rounds) > 0


@pytest.mark.parametrize("game_id", ["qdv", "legumes", "veru"])
def test_a_python_agent_among_builtins_acts_between_fused_calls(game_id, monkeypatch):
    """A mixed lineup takes the fused loop; the Python agent's ``act`` is asked for as many
    decisions as on the stepped path, the others are compiled, and the records are equal."""
    asked: list[tuple[int, int]] = []  # (game seed, decision) of every row asked
    act = Extremist.act

    def spy(self, obs, legal_mask, rng):  # noqa: ANN001, ANN202
        asked.extend(zip(rng.seeds.tolist(), rng.decisions.tolist(), strict=True))
        return act(self, obs, legal_mask, rng)

    monkeypatch.setattr(Extremist, "act", spy)
    seats = [{"agent": "heuristic", "label": "heur"},
             {"agent": "tests.fused:Extremist", "label": "extremist"},
             {"agent": "counting", "label": "count"}]
    exp = config(seats, players=3, games=120, game=game_id)
    calls = count_fused_calls(monkeypatch)
    fused = play_shard(exp, 0)
    asked_fused, asked[:] = list(asked), []
    stepped(monkeypatch)
    old = play_shard(exp, 0)
    assert calls and (fused[0]["agent"] == "extremist").sum() == 120
    seeds = set(fused[0]["seed"].tolist())  # (the custom-agent check probes other seeds)
    in_games = sorted(k for k in asked_fused if k[0] in seeds)
    assert in_games and in_games == sorted(k for k in asked if k[0] in seeds)
    assert fused[0].equals(old[0]) and fused[1].equals(old[1])
    decisions = fused[0].groupby("game")["decisions"].first().sum()
    assert decisions > 2 * len(in_games)  # the others' decisions were compiled


# the games whose heuristic and counting agents both have compiled policies
COMPILED_BUILTINS = [g for g in bluffsim.list_games() if fused_module(g) is not None
                     and all(g in agents.REGISTRY.get(n, {}) for n in ("heuristic", "counting"))]


@pytest.mark.parametrize("game_id", COMPILED_BUILTINS)
def test_only_exact_builtin_agents_have_compiled_policies(game_id, monkeypatch):
    """A subclass or an agent whose ``act`` was replaced keeps the stepped path: the compiled
    policy equals the built-in class's own ``act`` only."""
    game = bluffsim.make(game_id, 3)
    heur, rand = agents.make("heuristic", game), agents.make("random", game)
    assert fused_lineup(game, [heur, rand, heur]) is not None
    assert fused_lineup(game, [heur, rand, agents.make("counting", game)]) is not None

    class Tweaked(type(heur)):
        def act(self, obs, legal_mask, rng):
            return super().act(obs, legal_mask, rng)

    assert fused_lineup(game, [heur, Tweaked(game)]) is None
    assert fused_module("no_such_game") is None and fused_module("not-an-id") is None
    for name in ("heuristic", "counting"):
        patched = agents.make(name, game)
        patched.act = lambda obs, mask, rng: heur.act(obs, mask, rng)
        assert fused_lineup(game, [heur, patched]) is None
    monkeypatch.setattr(type(heur), "act", lambda self, obs, mask, rng: None)
    assert fused_lineup(game, [heur]) is None


def test_an_illegal_compiled_choice_stops_the_loop_and_names_the_agent(monkeypatch):
    """A policy kind the kernel does not know chooses no legal action: the loop stops at
    that game, nothing applied, and the runner raises ``AgentFailure`` naming the seat."""
    game = bluffsim.make("qdv", 3)
    lineup = fused_lineup(game, [agents.make("heuristic", game)] * 3)
    st = game.init(np.arange(4))
    before = st.num_decisions.copy()
    lineup.kinds[:] = 99
    *_, bad = lineup.play(st, np.zeros((4, 3), np.int64), 10)
    assert bad == 0 and (st.num_decisions == before).all()

    real = fused_lineup

    def broken(game, agents_, external=False):
        out = real(game, agents_, external)
        out.kinds[1] = 99
        return out

    monkeypatch.setattr(runner, "fused_lineup", broken)
    with pytest.raises(runner.AgentFailure, match=r"agent 'heur' chose an illegal action "
                                                  r"\(qdv, game \d+, seed \d+\)"):
        play_shard(config(LINEUP[:3], players=3, games=60), 0)


@pytest.mark.parametrize("game_id,players", [("qdv", 2), ("qdv", 4), ("legumes", 2), ("veru", 4)])
def test_learned_seats_play_inside_the_fused_loop(game_id, players, monkeypatch):
    """The shipped ``learned`` agents (sampling and greedy) have a compiled policy: the
    lineup takes the fused loop with no Python seat, and the records equal the stepped path's."""
    seats = [{"agent": "learned", "label": "learned"},
             {"agent": "learned", "label": "greedy", "params": {"greedy": True}},
             {"agent": "heuristic", "label": "heur"}, {"agent": "random", "label": "rand"}]
    exp = config(seats[:players], players=players, games=60, game=game_id)
    game = bluffsim.make(game_id, players)
    lineup = fused_lineup(game, [agents.make(s["agent"], game, **s.get("params", {}))
                                 for s in seats[:players]])
    assert lineup is not None and not lineup.external.any()
    fused, old = fused_and_stepped(exp, 0, monkeypatch)
    assert len(fused[1]) > 60
    assert fused[0].equals(old[0]) and fused[1].equals(old[1])
