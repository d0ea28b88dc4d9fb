"""veru ``heuristic``: tell the truth when you can, dump aces and odd cards in claims, doubt the impossible.

- announce: the open rank I hold most naturals of;
- putting: matching cards first (naturals, then Jokers); then, with
  probability ``bluff`` per card, fill the claim (up to three) with a lie: an
  ace if I have one (aces can only ever leave inside a lie), else a card of my
  *thinnest* other rank (a single card costs a whole opening to shed
  truthfully, a pair or triple sheds in one); a claim with nothing true starts
  with the same card;
- responding: ``disbelieve`` when the claim count exceeds the fitting cards
  that can still be out there: four (plus ``joker_slack``) minus those I know
  are elsewhere — in my hand, in my Bank, gone out (face up, or mine unseen),
  or known to sit in a hand (``known_in_hand``); otherwise add true cards if I
  have any; otherwise estimate the chance the claim is true as
  ``t ** claim_count`` (``fmath.pow``: the same bits on every CPU) and believe above one half,
  doubt below.

The chance ``t`` that a claimed card is genuine:
- ``trust`` a priori (before anybody's claim has been checked);
- the table's record: every other seat's checked claims (public: ``claims_checked``)
  update it, ``t0 = (trust * record + true) / (record + checked)`` — a newcomer is
  judged by how the table has played;
- the claimant's own record updates that again,
  ``t = (t0 * record + true) / (record + checked)`` (``record`` = 0 ignores both
  records: ``t = trust`` before the round's cap);
- the round caps it: the running round's claims by the others (their Bank cards
  and the claim on the table, all claiming the rank) cannot all be genuine when
  they outnumber the fitting cards that can still be out there (as above), so
  ``t`` is at most that number over the claimed cards.

Why (the robustness ladder, ``experiments/ladders/veru_ladder.md``, against
random players): a trusting heuristic believed a random claimant's lies until that
claimant had a record of its own — nearly all its wrong believes came in the first
round, on three-card claims into a Bank already full of claimed cards; the table's record and the
round cap fix that (``trust=1``: 4p win rate 0.261 -> 0.511, 6p 0.069 -> 0.271); the
thin lie card sheds a hand's singles first (without it, 1,000 games: 4p 0.49, 6p 0.29
instead of 0.52, 0.33); the default went from 6p 0.243 to 0.288.  ``bluff=0`` still
never puts a lie into a claim that has a true card, so it sheds only true cards (about
1.4 a claim) and cannot shed an ace until its hand is aces only: against reckless
random players that is too slow to finish first (docs/strength.md, robustness ladders).
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, Traits, integer, probability, register_agent
from bluffsim import fmath as fm
from bluffsim.games.veru import rules as R
from bluffsim.rng import AgentRNG


@register_agent("veru")
class VeruHeuristic(Agent):
    """Rule-of-thumb veru player (see the module docstring)."""

    # both extremes of every parameter worth varying: the variants ``bluffsim evaluate`` and
    # the robustness ladders seat (``bluffsim.evaluate.heuristic_extremes``)
    EXTREMES = {"bluff": (0.0, 1.0), "trust": (0.0, 1.0), "joker_slack": (0, 2)}
    name = "heuristic"
    traits = Traits(stochastic=True, uses_history=True)
    params = {"bluff": 0.5, "trust": 0.6, "joker_slack": 0, "record": 2}
    spec = {
        "bluff": probability("chance per card of filling a claim with a lie"),
        "trust": probability("chance a claimed card is genuine (a priori)"),
        "joker_slack": integer(0, doc="extra cards a claim may exceed four by before I doubt"),
        "record": integer(0, doc="checked claims after which a record (the table's, then the "
                                 "claimant's) weighs as much as trust (0 = ignore records)"),
    }

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """One action per game, by phase."""
        c = self.config
        b = legal_mask.shape[0]
        rows = np.arange(b)
        u = rng.uniform(1)
        hand = obs["hand"].astype(np.int64)
        phase = obs["phase"]
        rank = np.maximum(obs["claim_rank"].astype(np.int64), 0)
        # announce: open rank held most
        held = np.where(obs["closed"], -1, hand[:, :R.ANNOUNCEABLE])
        announce = R.ANNOUNCE0 + held.argmax(axis=1)
        # putting: truth first, then maybe a lie (an ace, else my thinnest rank), else done
        match = hand[rows, rank] > 0
        joker = hand[:, R.JOKER] > 0
        started = obs["put_count"] > 0
        put_true = np.where(match, R.PUT0 + rank, R.PUT0 + R.JOKER)
        first_lie = R.PUT0 + lie_card(hand, rank)
        slip = started & (u[:, 0] < c["bluff"])
        putting = np.where(match | joker, put_true,
                           np.where(started, np.where(slip, first_lie, R.DONE), first_lie))
        # responding
        count = obs["claim_count"].astype(np.int64)
        left = fitting_left(obs, rank, c["joker_slack"])
        impossible = count > left
        t = genuine_chance(obs, c["trust"], c["record"])
        others = (obs["bank_sizes"].astype(np.int64).sum(axis=1)
                  - obs["my_bank"].astype(np.int64).sum(axis=1) + count)
        t = np.minimum(t, np.clip(left / np.maximum(others, 1), 0.0, 1.0))
        p_true = fm.pow_u(t, np.maximum(count, 1))
        check = np.where(p_true > 0.5, R.BELIEVE, R.DISBELIEVE)
        respond = np.where(impossible, R.DISBELIEVE,
                           np.where(match | joker, put_true, check))
        out = np.select([phase == R.PHASE_ANNOUNCE, phase == R.PHASE_PUT,
                         phase == R.PHASE_RESPOND], [announce, putting, respond], 0)
        return out


def lie_card(hand: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """int64[B]: the card type to lie with: an ace if held, else a card of my thinnest rank
    other than ``rank`` (lowest type on ties), else my most plentiful card."""
    rows = np.arange(hand.shape[0])
    copies = np.where(hand > 0, hand, 99)
    copies[:, R.JOKER] = 99
    copies[rows, rank] = 99
    thin = copies.argmin(axis=1)
    thin = np.where(copies[rows, thin] == 99, hand.argmax(axis=1), thin)
    return np.where(hand[:, R.ACE] > 0, R.ACE, thin)


def fitting_left(obs: dict[str, np.ndarray], rank: np.ndarray, slack: int) -> np.ndarray:
    """int64[B]: fitting cards of ``rank`` the others' claims could hold: four plus ``slack``
    minus the naturals I know are elsewhere (my hand, my Bank, out face up, mine out unseen,
    known to sit in a hand — the last two from the memory fields, none without them)."""
    rows = np.arange(rank.size)
    known = (obs["hand"][rows, rank].astype(np.int64) + obs["my_bank"][rows, rank]
             + obs["discard_seen"][rows, rank])
    if "my_out" in obs:   # memory fields; an observation without them knows none
        known = known + obs["my_out"][rows, rank] + obs["known_in_hand"][rows, :, rank].sum(axis=1)
    return 4 + slack - known


def genuine_chance(obs: dict[str, np.ndarray], trust: float, record: int) -> np.ndarray:
    """float64[B]: the chance a card of the claim on the table is genuine: ``trust``, updated
    by the others' checked claims, then by the claimant's (module docstring)."""
    b = obs["hand"].shape[0]
    if record <= 0 or "claims_checked" not in obs:
        return np.full(b, float(trust))
    rows = np.arange(b)
    checked = obs["claims_checked"].astype(np.float64).copy()   # [B, P, (false, true)]
    checked[rows, np.maximum(obs["seat"].astype(np.int64), 0)] = 0.0   # not my own claims
    own = checked[rows, np.maximum(obs["claimant"].astype(np.int64), 0)]
    table = checked.sum(axis=1)
    t0 = (trust * record + table[:, 1]) / (record + table.sum(axis=1))
    return (t0 * record + own[:, 1]) / (record + own.sum(axis=1))
