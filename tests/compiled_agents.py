"""A user's compiled agent for the fourth game (``tests/extra_games/liarsdice``), written as
``docs/writing_an_agent.md`` says: one numba policy on the observation record."""

import numpy as np
from numba import njit

from agents import CompiledAgent
from agents.base import real
from agents.random import random_policy


@njit
def liar_caller_policy(obs, mask, key, r, params, ctx):
    """Call ``liar`` when the bid's quantity exceeds my dice of its face plus a sixth of the
    others' dice by more than ``margin``; else the lowest legal bid on my most frequent face;
    else a random legal action."""
    faces = obs.hand.shape[0]
    liar = mask.shape[0] - 1
    others = np.int64(0)
    for s in range(r.num_players):   # per-seat fields are sized to the game's largest table
        if s != obs.seat:
            others += obs.dice_left[s]
    if obs.bid_face >= 0 and mask[liar]:
        expect = obs.hand[obs.bid_face] + others / 6.0
        if obs.bid_quantity > expect + params[0]:
            return np.int64(liar)
    best = 0
    for f in range(1, faces):
        if obs.hand[f] > obs.hand[best]:
            best = f
    for a in range(best, liar, faces):  # bid q x best, q = 1, 2, ...
        if mask[a]:
            return np.int64(a)
    return random_policy(obs, mask, key, r, params, ctx)


class LiarCaller(CompiledAgent):
    name = "liar-caller"
    games = ("liarsdice",)
    params = {"margin": 0.5}
    spec = {"margin": real(doc="call when the bid exceeds my expectation by more than this")}
    policy = liar_caller_policy
