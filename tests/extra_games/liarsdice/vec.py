"""The fast batched engine of ``liarsdice``: ``CompiledGame`` over ``kernels.py``; the public
state fields are views of the two record arrays (``bluffsim.games.records.RecordState``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bluffsim.api import State
from bluffsim.games.compiled import CompiledGame
from bluffsim.games.liarsdice import kernels as KN
from bluffsim.games.liarsdice import observe as O
from bluffsim.games.liarsdice.reference import RefState
from bluffsim.games.liarsdice.rules import FACE_NAMES, Rules
from bluffsim.games.records import RecordState


@dataclass
class LiarsDiceState(RecordState, State):
    """Batch of games.  A ``RecordState`` re-declares every public field it exposes (the shared
    ``seed``, ``phase`` and ``round_over`` included, after the game's own), then ``data``,
    ``hot`` and ``rules``.  B games, P seats, F = 6 faces:"""

    seed: np.ndarray          # uint64[B] game seed
    phase: np.ndarray         # int8[B] 0 bidding, 1 over
    hands: np.ndarray         # int8[B,P,F] dice per seat and face
    dice_left: np.ndarray     # int8[B,P] dice per seat
    bid_quantity: np.ndarray  # int8[B] current bid's quantity (-1 none)
    bid_face: np.ndarray      # int8[B] current bid's face, 0-based (-1 none)
    bidder: np.ndarray        # int8[B] who made it (-1 none)
    eliminated: np.ndarray    # int8[B] seats out so far
    last_reveal: np.ndarray   # int8[B,6] caller, bidder, quantity, face, count, loser
    round_over: np.ndarray    # bool[B] a call ended a round during the last step
    data: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    hot: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    rules: Rules | None = field(default=None, repr=False)

    BOOL_FIELDS = frozenset({"terminated", "truncated", "round_over", "legal_action_mask"})

    @classmethod
    def cuts(cls, rules: Rules) -> dict[str, tuple[int, ...]]:
        """Seat axes cut to the table, the mask to the rules' action space."""
        p = rules.num_players
        return {"placements": (p,), "hands": (p,), "dice_left": (p,),
                "legal_action_mask": (rules.liar + 1,)}


class LiarsDiceGame(CompiledGame):
    """Liar's Dice, compiled (see ``rules.py``)."""

    game_id = "liarsdice"
    kernels = KN
    state_type = LiarsDiceState
    observation = O

    def final_score(self, st: LiarsDiceState, idx: np.ndarray) -> np.ndarray:
        """Dice left per seat (the results' ``score`` column)."""
        return st.dice_left[idx].astype(np.int64)

    def round_record(self, st: LiarsDiceState, idx: np.ndarray) -> dict[str, np.ndarray]:
        """One results row per call of games ``idx``."""
        lr = st.last_reveal[idx].astype(np.int64)
        return {"round": st.num_rounds[idx] - 1, "caller": lr[:, 0], "bidder": lr[:, 1],
                "quantity": lr[:, 2], "face": np.asarray(FACE_NAMES, object)[lr[:, 3]],
                "count": lr[:, 4], "loser": lr[:, 5], "call_right": lr[:, 5] == lr[:, 1]}

    def from_reference(self, states: list[RefState]) -> LiarsDiceState:
        """A batch holding exact copies of reference states."""
        st = self.empty_state(np.asarray([s.seed for s in states], dtype=np.uint64))
        for b, s in enumerate(states):
            self.copy_shared_fields(st, b, s)
            st.hands[b], st.dice_left[b] = s.hand_counts, s.dice_left
            st.bid_quantity[b], st.bid_face[b], st.bidder[b] = s.bid_quantity, s.bid_face, s.bidder
            st.eliminated[b], st.last_reveal[b] = s.eliminated, s.last_reveal
        self.update_legal_mask(st)
        return st
