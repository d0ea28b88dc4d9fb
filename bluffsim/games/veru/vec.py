"""The fast batched engine of ``veru``: compiled kernels (``kernels.py``) over numpy records.

A batch is two record arrays (``kernels.HOT_DTYPE``: the fields read at every
decision, one cache line per game; ``kernels.STATE_DTYPE``: the rest); the
public ``VeruState`` fields below are views of their columns, so numpy code
reads and writes them as before while the compiled kernels loop over the games
and apply the scalar rules of ``kernels.py`` (which read like ``reference.py``,
the oracle this engine is tested against bit for bit).  ``init``, ``step``
(legal mask included), ``reset_games``, ``observe`` and ``observation_tensor``
each run as one compiled kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bluffsim.api import State
from bluffsim.games.compiled import CompiledGame
from bluffsim.games.records import RecordState
from bluffsim.games.veru import kernels as KN
from bluffsim.games.veru import observe as O
from bluffsim.games.veru.reference import RefState
from bluffsim.games.veru.rules import Rules

# fields whose leading per-game axes are seats (cut to P)
_SEAT_AXES = {"placements": 1, "hands": 1, "hand_sizes": 1, "bank": 1, "out": 1, "place": 1,
              "swaps_used": 1, "swapped_round": 1, "taken": 1, "seen_taken": 2, "known": 2,
              "hidden_out": 1, "claims": 1, "cards_claimed": 1, "claim_checks": 1, "checks": 1,
              "pickups": 1, "timeouts": 1}


@dataclass
class VeruState(RecordState, State):
    """Batch of veru games.  Game-specific fields (B games, P seats, T = 14 card types):"""

    seed: np.ndarray            # uint64[B] game seed
    phase: np.ndarray           # int8[B] 0 announce, 1 put, 2 respond, 3 over
    hands: np.ndarray           # int8[B,P,T] cards in hand per type
    hand_sizes: np.ndarray      # int8[B,P] cards in hand per seat
    table: np.ndarray           # int8[B,3] the claim's cards (-1 empty slot)
    table_n: np.ndarray         # int8[B] cards in the claim
    claimant: np.ndarray        # int8[B] seat of the claim (-1 none)
    claim_rank: np.ndarray      # int8[B] announced rank (-1 none)
    bank: np.ndarray            # int8[B,P,T] Bank cards per owner and type
    closed: np.ndarray          # bool[B,12] closed ranks
    discard_seen: np.ndarray    # int8[B,T] out of the game face up
    discard_hidden: np.ndarray  # int8[B,T] out of the game unseen
    out: np.ndarray             # bool[B,P] seat finished
    in_bits: np.ndarray         # int8[B] seats still playing, as a bitmask (cache of ~out)
    place: np.ndarray           # int8[B,P] place of finished seats (0 while playing)
    opener: np.ndarray          # int8[B] this round's opener
    put_count: np.ndarray       # int8[B] cards put in the current turn
    acted: np.ndarray           # bool[B] the current player has acted this turn
    swaps_used: np.ndarray      # int8[B,P] Joker swaps used
    swapped_round: np.ndarray   # bool[B,P] swapped since the last check
    endgame_count: np.ndarray   # int32[B] decisions since two players were left (-1 before)
    taken: np.ndarray           # int32[B,P] cards picked up per seat
    seen_taken: np.ndarray      # int32[B,P,P,T] [observer, taker, type] cards seen going to taker
    known: np.ndarray           # int8[B,P,P,T] [observer, holder, type] cards known to be in hand
    hidden_out: np.ndarray      # int8[B,P,T] [owner, type] own cards gone out unseen by others
    claims: np.ndarray          # int32[B,P,2] rounds opened, claims added per seat
    cards_claimed: np.ndarray   # int32[B,P] cards put under a claim per seat
    claim_checks: np.ndarray    # int32[B,P,2] checked claims per claimant: false, true
    checks: np.ndarray          # int32[B,P,4] per checker: believe right/wrong, disbelieve right/wrong
    pickups: np.ndarray         # int32[B,P] times each seat took table + Bank
    timeouts: np.ndarray        # int32[B,P] timeouts per seat
    last_check: np.ndarray      # int8[B,5] checker, claimant, kind, truth, taker
    last_check_cards: np.ndarray  # int8[B,T] the last checked claim
    round_over: np.ndarray      # bool[B] a round (check or timeout) ended during the last step
    data: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    # ^ record[B] (kernels.STATE_DTYPE) that the fields above are views of (but those in hot)
    hot: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    # ^ record[B] (kernels.HOT_DTYPE): seed, counters, player, phase, end flags, legal mask
    rules: Rules | None = field(default=None, repr=False)

    BOOL_FIELDS = frozenset({"terminated", "truncated", "closed", "out", "acted", "swapped_round",
                             "round_over", "legal_action_mask"})

    @classmethod
    def cuts(cls, rules: Rules) -> dict[str, tuple[int, ...]]:
        """Per-game seat axes cut to the table's seats (``_SEAT_AXES``)."""
        p = rules.num_players
        out = {name: (p,) * axes for name, axes in _SEAT_AXES.items()}
        return out


class VeruGame(CompiledGame):
    """Верю — не верю, compiled (see ``rules.py`` for options and action ids).  ``timeout``
    (runner only, never in the legal mask) is accepted by ``step`` in running games."""

    game_id = "veru"
    kernels = KN
    state_type = VeruState
    observation = O

    # ================================================================ records
    def final_score(self, st: VeruState, idx: np.ndarray) -> np.ndarray:
        """Cards left in hand per seat (the results' ``score`` column)."""
        return st.hand_sizes[idx]

    def round_record(self, st: VeruState, idx: np.ndarray) -> dict[str, np.ndarray]:
        """One results row per finished round (check or timeout) of games ``idx``."""
        lc = st.last_check[idx].astype(np.int64)
        return {"round": st.num_rounds[idx] - 1, "caller": lc[:, 0], "claimant": lc[:, 1],
                "call": np.asarray(["believe", "disbelieve", "timeout"], object)[lc[:, 2]],
                "call_right": np.where(lc[:, 2] == 0, lc[:, 3] == 1, lc[:, 3] == 0),
                "taker": lc[:, 4]}

    # ================================================================ bridges
    def from_reference(self, states: list[RefState]) -> VeruState:
        """A batch holding exact copies of reference states."""
        st = self.empty_state(np.asarray([s.seed for s in states], dtype=np.uint64))
        for b, s in enumerate(states):
            self.copy_shared_fields(st, b, s)
            st.hands[b] = s.hand_counts
            st.hand_sizes[b] = [sum(h) for h in s.hand_counts]
            st.table[b] = -1
            st.table[b, : len(s.table)] = s.table
            st.table_n[b] = len(s.table)
            st.claimant[b], st.claim_rank[b] = s.claimant, s.claim_rank
            st.bank[b] = s.bank
            st.closed[b] = s.closed
            st.discard_seen[b], st.discard_hidden[b] = s.discard_seen, s.discard_hidden
            st.out[b], st.place[b] = s.out, s.place
            st.in_bits[b] = sum(1 << q for q, o in enumerate(s.out) if not o)
            st.opener[b], st.put_count[b], st.acted[b] = s.opener, s.put_count, s.acted
            st.swaps_used[b], st.swapped_round[b] = s.swaps_used, s.swapped_round
            st.endgame_count[b] = s.endgame_count
            st.taken[b], st.seen_taken[b] = s.taken, s.seen_taken
            st.known[b], st.hidden_out[b] = s.known, s.hidden_out
            st.claims[b], st.cards_claimed[b] = s.claims, s.cards_claimed
            st.claim_checks[b], st.checks[b] = s.claim_checks, s.checks
            st.pickups[b], st.timeouts[b] = s.pickups, s.timeouts
            st.last_check[b], st.last_check_cards[b] = s.last_check, s.last_check_cards
        self.update_legal_mask(st)
        return st

