"""The fast batched engine of ``qdv``: compiled kernels (``kernels.py``) over numpy records.

A batch is two record arrays (``kernels.HOT_DTYPE``: the fields read at every
decision, one cache line per game; ``kernels.STATE_DTYPE``: the rest); the
public ``QdvState`` fields below are views of their columns, so numpy code reads
and writes them as before while the compiled kernels loop over the games and
apply the scalar rules of ``kernels.py`` (which read like ``reference.py``, the
oracle this engine is tested against bit for bit).  ``init``, ``step`` (legal
mask and round deals included), ``reset_games``, ``observe`` and
``observation_tensor`` each run as one compiled kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bluffsim.api import State
from bluffsim.games.compiled import CompiledGame
from bluffsim.games.qdv import kernels as KN
from bluffsim.games.qdv import observe as O
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.reference import RefState
from bluffsim.games.qdv.rules import Rules
from bluffsim.games.records import RecordState


@dataclass
class QdvState(RecordState, State):
    """Batch of qdv games.  Game-specific fields (B games, P seats, K kinds, D deck, C challenges):"""

    seed: np.ndarray            # uint64[B] game seed (all randomness derives from it)
    phase: np.ndarray           # int8[B] 0 start choice, 1 bid, 2 salads, 3 reward, 4 over
    tokens: np.ndarray          # int32[B,P] tokens per seat (a gain per round: up to 60 + max_rounds)
    in_round: np.ndarray        # bool[B,P] seat still plays this round (False once eliminated)
    round_bits: np.ndarray      # int8[B] the same as a bitmask
    elim_round: np.ndarray      # int32[B,P] round in which the seat was eliminated, -1 if not
    zero_time: np.ndarray       # int32[B,P] decision at which the seat's tokens last hit 0, -1
    dealer: np.ndarray          # int8[B] dealer seat
    direction: np.ndarray       # int8[B] +1 clockwise, -1 reversed
    hands: np.ndarray           # int8[B,P,K] cards in hand per kind
    hand_sizes: np.ndarray      # int8[B,P] cards in hand per seat (= hands summed over kinds)
    revealed: np.ndarray        # int8[B,P,K] face-up cards still in hand
    discarded: np.ndarray       # int8[B,P,K] discarded face-up cards
    deck: np.ndarray            # int8[B,D] this round's shuffled fruit deck (kinds)
    deck_ptr: np.ndarray        # int16[B] next undealt card of `deck`
    centre: np.ndarray          # int8[B] centre card kind
    chal_deck: np.ndarray       # int8[B,C] this round's shuffled challenge deck (effects)
    chal_ptr: np.ndarray        # int16[B] next challenge card
    chal_ready: np.ndarray      # bool[B] chal_deck holds this round's shuffle (made at 1st draw)
    start: np.ndarray           # int8[B] start fruit (-1 while the dealer chooses)
    bid_count: np.ndarray       # int8[B] standing bid's count
    bid_fruit: np.ndarray       # int8[B] standing bid's fruit = position marker
    bidder: np.ndarray          # int8[B] seat of the standing bid (-1 = initial bid)
    num_bids: np.ndarray        # int8[B] bids this round
    bid_history: np.ndarray     # int8[B,H,3] (seat, count, fruit) per bid, -1 padding
    drawn: np.ndarray           # int8[B,P] cards drawn by `draw` challenges this round
    challenges: np.ndarray      # int8[B,E] challenge cards turned this round per effect
    call: np.ndarray            # int8[B] -1 none, 0 vrai, 1 menteur
    caller: np.ndarray          # int8[B] calling seat (-1 none)
    declared: np.ndarray        # int8[B,P] salads declared at the latest showdown (-1 none)
    showdown_hands: np.ndarray  # int8[B,P,K] hands shown at the latest showdown
    showdown_count: np.ndarray  # int8[B] called fruit's count at the latest showdown
    holder_bits: np.ndarray     # int8[B] seats holding salads at this showdown (bitmask)
    round_over: np.ndarray      # bool[B] a round ended during the last step
    last_round: np.ndarray      # int16[B,10] record of the last finished round, see LAST_ROUND
    last_bid_history: np.ndarray  # int8[B,H,3] bids of the last showdown's round
    bid_tally: np.ndarray       # int32[B,P,5] public tallies over the game (observe.py table)
    call_tally: np.ndarray      # int32[B,P,4] calls made: vrai right/wrong, menteur right/wrong
    called_tally: np.ndarray    # int32[B,P,4] calls against the seat's bid, same columns
    token_tally: np.ndarray     # int32[B,P,5] tokens lost (challenge, showdown, punish), gained,
    #                             punish rewards given
    data: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    # ^ record[B] (kernels.STATE_DTYPE) that the fields above are views of (but those in hot)
    hot: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    # ^ record[B] (kernels.HOT_DTYPE): seed, counters, player, phase, end flags, legal mask
    rules: Rules | None = field(default=None, repr=False)

    BOOL_FIELDS = frozenset({"terminated", "truncated", "in_round", "chal_ready", "round_over",
                             "legal_action_mask"})

    @classmethod
    def cuts(cls, rules: Rules) -> dict[str, tuple[int, ...]]:
        """Per-game axes cut to the table: seats, bid history, deck, challenge deck, actions."""
        p, h, a = rules.num_players, rules.history_len, len(rules.action_names)
        d, c = rules.deck_size, len(rules.challenge_ids)
        cut = {"placements": p, "tokens": p, "in_round": p, "elim_round": p, "zero_time": p,
               "hands": p, "hand_sizes": p, "revealed": p, "discarded": p, "deck": d,
               "chal_deck": c, "bid_history": h, "drawn": p, "declared": p,
               "showdown_hands": p, "last_bid_history": h, "bid_tally": p, "call_tally": p,
               "called_tally": p, "token_tally": p, "legal_action_mask": a}
        return {name: (n,) for name, n in cut.items()}


LAST_ROUND = R.LAST_ROUND
LR = {name: i for i, name in enumerate(LAST_ROUND)}


class QdvGame(CompiledGame):
    """Qui dit vrai ?, compiled (see ``rules.py`` for options and action ids)."""

    game_id = "qdv"
    kernels = KN
    state_type = QdvState
    observation = O

    # ================================================================ records
    def final_score(self, st: QdvState, idx: np.ndarray) -> np.ndarray:
        """Final tokens per seat of games ``idx`` (the results' ``score`` column)."""
        return st.tokens[idx]

    def round_record(self, st: QdvState, idx: np.ndarray) -> dict[str, np.ndarray]:
        """One results row per game of ``idx`` whose round just ended (``rounds.parquet``).

        ``bidder_own`` is the bidder's own evidence for the called fruit (their cards
        with multipliers, all their salads, and the centre card); ``call_right`` says
        whether the call was correct.
        """
        rec = {name: st.last_round[idx, i] for i, name in enumerate(LAST_ROUND)}
        out: dict[str, np.ndarray] = {"round": st.num_rounds[idx] - 1}
        out.update(rec)
        fruit = rec["bid_fruit"].astype(np.int64)
        bidder = rec["bidder"].astype(np.int64)
        hand = st.showdown_hands[idx, np.maximum(bidder, 0)].astype(np.int64)
        rows = np.arange(idx.size)
        base = fruit * R.MAX_MULT
        own = (hand[rows, base] + 2 * hand[rows, base + 1] + 3 * hand[rows, base + 2]
               + hand[:, R.SALAD] + rec["centre_value"])
        out["bidder_own"] = np.where(bidder >= 0, own, -1)
        count, bid = rec["true_count"], rec["bid_count"]
        out["call_right"] = np.where(rec["call"] == R.CALL_VRAI, count == bid, count < bid)
        out["call"] = np.asarray(["vrai", "menteur"], dtype=object)[rec["call"].astype(np.int64)]
        out["bid_fruit"] = np.asarray(R.FRUITS, dtype=object)[fruit]
        return out

    # ================================================================ bridges
    def from_reference(self, states: list[RefState]) -> QdvState:
        """A batch holding exact copies of reference states (scenarios, differential tests)."""
        r = self.rules
        st = self.empty_state(np.asarray([s.seed for s in states], dtype=np.uint64))
        for b, s in enumerate(states):
            self.copy_shared_fields(st, b, s)
            st.tokens[b], st.in_round[b], st.elim_round[b] = s.tokens, s.in_round, s.elim_round
            st.zero_time[b] = s.zero_time
            st.round_bits[b] = sum(1 << i for i, x in enumerate(s.in_round) if x)
            st.hand_sizes[b] = [sum(h) for h in s.hand_counts]
            st.holder_bits[b] = sum(1 << i for i, h in enumerate(s.showdown_hands)
                                    if h[R.SALAD] > 0 and s.in_round[i])
            st.dealer[b], st.direction[b] = s.dealer, s.direction
            st.hands[b], st.revealed[b], st.discarded[b] = s.hand_counts, s.revealed, s.discarded
            st.deck[b, : len(s.deck)] = s.deck
            st.deck_ptr[b], st.centre[b] = s.deck_ptr, s.centre
            if len(s.chal_deck) != len(r.challenge_ids):
                raise ValueError("reference challenge deck differs in size from the rules' deck")
            st.chal_deck[b] = s.chal_deck
            st.chal_ready[b] = True
            st.chal_ptr[b] = s.chal_ptr
            st.start[b], st.bid_count[b] = s.start, s.bid_count
            st.bid_fruit[b], st.bidder[b] = s.bid_fruit, s.bidder
            st.num_bids[b] = len(s.bid_history)
            for i, h in enumerate(s.bid_history):
                st.bid_history[b, i] = h
            st.drawn[b], st.challenges[b] = s.drawn, s.challenges
            st.call[b], st.caller[b] = s.call, s.caller
            st.declared[b], st.showdown_hands[b] = s.declared, s.showdown_hands
            st.showdown_count[b] = s.showdown_count
            for name, v in s.last_round.items():
                st.last_round[b, LR[name]] = v
            for i, h in enumerate(s.last_bid_history):
                st.last_bid_history[b, i] = h
            st.bid_tally[b], st.call_tally[b] = s.bid_tally, s.call_tally
            st.called_tally[b], st.token_tally[b] = s.called_tally, s.token_tally
        if len({len(s.deck) for s in states} | {r.deck_size}) != 1:
            raise ValueError("reference deck differs in size from the rules' deck")
        self.update_legal_mask(st)
        return st

