"""Scripted decisions of the veru ``heuristic``: scenario + observation -> expected action.

Each scenario is a real position of the reference engine (``scenario`` + actions); what a
longer game would have shown (checked claims, Bank cards, cards remembered) is then set in
the observation, and the heuristic's decision is checked — one test per rule of thumb
issue 15 added (module docstring of ``agents/veru/heuristic.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.reference import scenario
from bluffsim.games.veru.vec import VeruGame
from bluffsim.rng import AgentRNG

NINE = R.RANKS.index("9")
HANDS = [["9", "9", "K", "A", "3", "4", "6", "8"],
         ["2", "5", "7", "J", "Q", "10", "3", "4"],
         ["2", "5", "7", "J", "Q", "10", "6", "8"],
         ["2", "5", "7", "J", "Q", "10", "6", "8"]]


def position(actions: list[str], hands=HANDS):
    """(reference game, batched observation, legal mask) of the player to move after ``actions``."""
    ref, s = scenario(hands, opener=0, jokers=0)
    for a in actions:
        ref.apply(s, a)
    obs = {k: np.asarray(v)[None] for k, v in ref.observe(s).items()}
    mask = np.zeros((1, R.NUM_ACTIONS), bool)
    mask[0, list(ref.legal_actions(s))] = True
    return ref, obs, mask


def decide(ref, obs, mask, **params) -> str:
    """The heuristic's action name (``params`` its parameters)."""
    agent = agents.make("heuristic", VeruGame(ref.rules), **params)
    rng = AgentRNG(np.zeros(1, np.uint64), obs["seat"].astype(np.int64), np.zeros(1, np.int64))
    action = int(agent.act(obs, mask, rng)[0])
    assert mask[0, action]
    return ref.rules.action_names[action]


def test_a_padding_lie_is_an_ace_first_then_my_thinnest_rank():
    """Out of 9s after two, ``bluff=1`` pads: with the ace; without it, with a single card
    (the 8, lowest of the singles K and 8), not with the pairs (3s, 4s) — a pair sheds in
    one opening, a single costs one each."""
    ref, obs, mask = position(["announce 9", "put 9", "put 9"])
    assert decide(ref, obs, mask, bluff=1.0) == "put A"
    hands = [["9", "9", "K", "3", "3", "4", "4", "8"]] + HANDS[1:]
    ref, obs, mask = position(["announce 9", "put 9", "put 9"], hands=hands)
    assert decide(ref, obs, mask, bluff=1.0) == "put 8"
    assert decide(ref, obs, mask, bluff=0.0) == "done"


@pytest.mark.parametrize("where", ["my_bank", "my_out", "discard_seen", "known_in_hand"])
def test_a_claim_is_impossible_once_the_rank_is_known_to_be_elsewhere(where):
    """Seat 1 answers a lone 9 with no 9 in hand: a fully trusting heuristic believes it —
    unless it knows where all four 9s are (its Bank, its own cards gone out unseen, out face
    up, or remembered in seat 2's hand), then the claim is impossible."""
    ref, obs, mask = position(["announce 9", "put K", "done"])
    assert decide(ref, obs, mask, trust=1.0) == "believe"
    if where == "known_in_hand":
        obs[where][0, 2, NINE] = 4
    else:
        obs[where][0, NINE] = 4
        if where == "my_bank":
            obs["bank_sizes"][0, 1] = 4
    assert decide(ref, obs, mask, trust=1.0) == "disbelieve"


def test_a_newcomer_is_judged_by_the_table_record():
    """The claimant (seat 0) has no record.  A trusting heuristic believes its lone 9 at a
    fresh table; once the other seats' checked claims were all lies it doubts it (``t0`` =
    (1 * 2 + 0) / (2 + 4) = 1/3); my own record does not count; ``record=0`` ignores it."""
    ref, obs, mask = position(["announce 9", "put K", "done"])
    obs["claims_checked"][0, 1] = [10, 0]           # my own lies: not evidence about the table
    assert decide(ref, obs, mask, trust=1.0) == "believe"
    obs["claims_checked"][0, 2] = [2, 0]
    obs["claims_checked"][0, 3] = [2, 0]
    assert decide(ref, obs, mask, trust=1.0) == "disbelieve"
    assert decide(ref, obs, mask, trust=1.0, record=0) == "believe"
    obs["claims_checked"][0, 2] = [0, 2]             # a table found honest: (2 + 2) / 6
    obs["claims_checked"][0, 3] = [2, 0]
    assert decide(ref, obs, mask, trust=1.0) == "believe"


def test_the_claimant_record_updates_the_table_record():
    """A table of liars, but the claimant itself always found honest: believed again
    (the table record counts its claims too: t0 = (2 + 6) / (2 + 14) = 1/2, then its own
    t = (1/2 * 2 + 6) / (2 + 6) = 7/8)."""
    ref, obs, mask = position(["announce 9", "put K", "done"])
    obs["claims_checked"][0, 2] = [8, 0]
    assert decide(ref, obs, mask, trust=1.0) == "disbelieve"
    obs["claims_checked"][0, 0] = [0, 6]
    assert decide(ref, obs, mask, trust=1.0) == "believe"


def test_a_round_claiming_more_of_a_rank_than_exist_caps_trust():
    """The round's claims by the others (their Bank cards and the claim on the table) cannot
    all be genuine when they outnumber the four 9s: with eight more claimed 9s in seats 2
    and 3's Bank, a trusting heuristic doubts the lone 9 (t <= 4 / 9); my own Bank cards
    are not the others' claims."""
    ref, obs, mask = position(["announce 9", "put K", "done"])
    obs["bank_sizes"][0, 2] = 4
    obs["bank_sizes"][0, 3] = 4
    assert decide(ref, obs, mask, trust=1.0) == "disbelieve"
    obs["bank_sizes"][0, 2] = 1
    obs["bank_sizes"][0, 3] = 1                      # 3 claimed 9s of 4: 4 / 3 caps nothing
    assert decide(ref, obs, mask, trust=1.0) == "believe"
    obs["bank_sizes"][0, 1] = 8                      # my Bank: lies of mine, not the others'
    obs["my_bank"][0, [0, 1, 2, 3, 4, 5, 6, 8]] = 1   # one each of 2…8 and 10, no 9
    assert decide(ref, obs, mask, trust=1.0) == "believe"
