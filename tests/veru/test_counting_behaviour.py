"""Scripted decisions of the veru ``counting`` agent: scenario + observation -> expected action.

Each scenario is a real position of the reference engine (``scenario`` + actions); the
public per-seat tallies it has not had time to build up are then set in the observation
(what a long game would have shown), and the agent's decision is checked.
"""

from __future__ import annotations

import numpy as np

import agents
from agents.veru.counting import claim_probability, doubt_probability, hand_pool, next_holds_fitting
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.reference import scenario
from bluffsim.games.veru.vec import VeruGame
from bluffsim.rng import AgentRNG

NINE = R.RANKS.index("9")
HANDS = [["9", "9", "K", "A", "3", "4", "6", "8"],
         ["2", "5", "7", "J", "Q", "10", "3", "4"],
         ["2", "5", "7", "J", "Q", "10", "6", "8"],
         ["2", "5", "7", "J", "Q", "10", "6", "8"]]


def position(actions: list[str], hands=HANDS, **options):
    """(agent, batched observation, legal mask) of the player to move after ``actions``."""
    ref, s = scenario(hands, opener=0, jokers=0, **options)
    for a in actions:
        ref.apply(s, a)
    obs = {k: np.asarray(v)[None] for k, v in ref.observe(s).items()}
    mask = np.zeros((1, R.NUM_ACTIONS), bool)
    mask[0, list(ref.legal_actions(s))] = True
    return agents.make("counting", VeruGame(ref.rules)), obs, mask


def decide(agent, obs, mask) -> str:
    rng = AgentRNG(np.zeros(1, np.uint64), obs["seat"].astype(np.int64), np.zeros(1, np.int64))
    return agent.game.rules.action_names[int(agent.act(obs, mask, rng)[0])]


def record(obs, seat: int, *, false=0, true=0, added=0, believed=0, doubted=0) -> None:
    """Give ``seat`` a public history: checked claims found false / true, answers that added,
    believed, disbelieved (split evenly between right and wrong)."""
    obs["claims_checked"][0, seat] = [false, true]
    obs["claims"][0, seat, 1] = added
    obs["checks"][0, seat] = [believed - believed // 2, believed // 2, doubted - doubted // 2,
                              doubted // 2]


def test_a_claimant_caught_lying_every_time_is_disbelieved():
    agent, obs, mask = position(["announce 9", "put K", "done"])
    record(obs, 0, false=12, true=0, added=20, believed=2, doubted=2)
    assert claim_probability(obs, agent.game.rules)[0] < 0.2
    assert decide(agent, obs, mask) == "disbelieve"


def test_the_same_claim_by_a_claimant_always_found_honest_is_believed():
    agent, obs, mask = position(["announce 9", "put K", "done"])
    record(obs, 0, false=0, true=12, added=6, believed=6, doubted=6)
    assert claim_probability(obs, agent.game.rules)[0] > 0.5
    assert decide(agent, obs, mask) == "believe"


def test_holding_a_true_card_against_an_honest_claimant_adds_it():
    hands = [HANDS[0], ["9", "5", "7", "J", "Q", "10", "3", "4"]] + HANDS[2:]
    hands[0] = ["2", "9", "K", "A", "3", "4", "6", "8"]
    agent, obs, mask = position(["announce 9", "put 9", "done"], hands=hands)
    record(obs, 0, false=0, true=10, added=6, believed=6, doubted=6)
    assert decide(agent, obs, mask) == "put 9"


def test_padding_with_a_lie_depends_on_the_next_player_and_the_stakes():
    """Seat 0 opened 9s with its two 9s and holds an ace: pad the claim with it?"""
    agent, obs, mask = position(["announce 9", "put 9", "put 9"])
    # a next player that adds or believes nearly always, small pot: the lie is cheap
    record(obs, 1, false=10, true=1, added=30, believed=6, doubted=1)
    cheap = decide(agent, obs, mask)
    assert cheap == "put A"
    # a next player that always disbelieves and never adds, a big Bank: the lie risks it all
    record(obs, 1, false=1, true=10, added=0, believed=0, doubted=30)
    obs["bank_sizes"][0, 2] = 12
    d = doubt_probability(obs, agent.game.rules, np.array([3]), agent.game.rules.step)[0]
    assert d > 0.5
    assert decide(agent, obs, mask) == "done"


def test_a_bluff_is_not_added_in_answer_when_the_pot_is_large_and_the_next_player_doubts():
    agent, obs, mask = position(["announce 9", "put K", "done"])
    record(obs, 0, false=0, true=12, added=6, believed=6, doubted=6)   # claimant honest
    record(obs, 2, false=0, true=12, added=0, believed=0, doubted=30)  # next one doubts all
    obs["bank_sizes"][0, 3] = 10
    assert decide(agent, obs, mask) == "believe"


def test_bank_cards_of_an_honest_owner_count_as_the_claimed_rank():
    """The issue's bias: Bank cards are claims of this round's rank, not a random slice of
    the pool; an honest owner's Bank makes the next player less likely to hold a fitting card."""
    agent, obs, _ = position(["announce 9", "put K", "done"])
    rules = agent.game.rules
    record(obs, 2, false=0, true=20)
    obs["bank_sizes"][0, 2] = 2
    _, good_honest = hand_pool(obs, rules)
    q_honest = next_holds_fitting(obs, rules, rules.step)[0]
    record(obs, 2, false=20, true=0)
    _, good_liar = hand_pool(obs, rules)
    q_liar = next_holds_fitting(obs, rules, rules.step)[0]
    assert good_honest[0] < good_liar[0] - 1.0
    assert q_honest < q_liar


def test_heuristic_doubts_a_claimant_with_a_bad_record_and_trust_one_without_record_rule():
    """The heuristic's record rule: ``trust`` for a claimant without a record; a claimant
    caught lying on every checked claim is doubted even by a fully trusting heuristic,
    unless ``record=0`` (then ``trust = 1`` believes every possible claim)."""
    _, obs, mask = position(["announce 9", "put K", "done"])
    ref_game = VeruGame(scenario(HANDS, opener=0, jokers=0)[0].rules)
    rng = AgentRNG(np.zeros(1, np.uint64), obs["seat"].astype(np.int64), np.zeros(1, np.int64))
    names = ref_game.rules.action_names
    fresh = agents.make("heuristic", ref_game, trust=1.0)
    assert names[int(fresh.act(obs, mask, rng)[0])] == "believe"
    record(obs, 0, false=6, true=0)
    assert names[int(fresh.act(obs, mask, rng)[0])] == "disbelieve"
    blind = agents.make("heuristic", ref_game, trust=1.0, record=0)
    assert names[int(blind.act(obs, mask, rng)[0])] == "believe"
