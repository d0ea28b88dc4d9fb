"""The fast batched engine of ``legumes``: compiled kernels (``kernels.py``) over numpy records.

A batch is two record arrays (``kernels.HOT_DTYPE``: the fields read at every
decision; ``kernels.STATE_DTYPE``: the rest); the public ``LegumesState`` fields
below are views of their columns, so numpy code reads and writes them as before
while the compiled kernels loop over the games and apply the scalar rules of
``kernels.py`` (which read like ``reference.py``, the oracle this engine is
tested against bit for bit).  ``init``, ``step`` (legal mask included),
``reset_games``, ``observe`` and ``observation_tensor`` each run as one compiled
kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bluffsim.api import State
from bluffsim.games.compiled import CompiledGame
from bluffsim.games.legumes import kernels as KN
from bluffsim.games.legumes import observe as O
from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.reference import RefState
from bluffsim.games.legumes.rules import Rules
from bluffsim.games.records import RecordState

POINTS = np.asarray(R.CARD_POINTS, dtype=np.int64)
# fields whose leading per-game axes are seats (cut to P), and the per-game width of `draw`
_SEAT_AXES = {"placements": 1, "hand_sizes": 1, "hands": 1, "fd_by_owner": 1, "fd_claims": 1,
              "my_discard": 1, "reshuffled_known": 1, "taken_known": 2, "accused_tally": 1,
              "accuser_tally": 1, "shown_tally": 1, "drawn_tally": 1, "bomb_taken": 1}


@dataclass
class LegumesState(RecordState, State):
    """Batch of legumes games.  Game-specific fields (B games, P seats, T = 22 types, W cards):"""

    seed: np.ndarray             # uint64[B] game seed
    phase: np.ndarray            # int8[B] 0 open, 1 play, 2 over
    hands: np.ndarray            # int8[B,P,T] cards in hand per type
    hand_sizes: np.ndarray       # int16[B,P] cards in hand per seat
    draw: np.ndarray             # int8[B,W] the draw pile in order (-1 padding)
    draw_ptr: np.ndarray         # int16[B] next card of `draw`
    draw_len: np.ndarray         # int16[B] cards in `draw`
    discard: np.ndarray          # int8[B,T] discard pile per type
    discard_revealed: np.ndarray  # int8[B,T] the part of it known to all
    reshuffles: np.ndarray       # int8[B] times the draw pile ran out
    fd_by_owner: np.ndarray      # int8[B,P,T] this round's face-down cards per owner
    fd_count: np.ndarray         # int16[B] face-down cards this round
    last_owner: np.ndarray       # int8[B] owner of the last face-down card (-1 none)
    last_card: np.ndarray        # int8[B] its type (-1 none)
    last_called: np.ndarray      # int8[B] vegetable called when it was played (-1 none)
    face_up: np.ndarray          # int8[B,T] face-up action cards this round
    called: np.ndarray           # int8[B] the called vegetable (-1 none)
    direction: np.ndarray        # int8[B] +1 / -1
    after_reverse: np.ndarray    # bool[B] the last move was a Reverse
    pending: np.ndarray          # int8[B] seat whose hand emptied at the last decision (-1)
    revealed_total: np.ndarray   # int32[B,T] cards revealed so far
    last_reveal: np.ndarray      # int16[B,6] accuser, accused, card, doubled, taker, cards taken
    round_over: np.ndarray       # bool[B] an accusation ended a round during the last step
    fd_claims: np.ndarray        # int16[B,P,V] this round's face-down cards per owner and call
    my_discard: np.ndarray       # int8[B,P,T] each seat's own unrevealed cards in the discard
    reshuffled_known: np.ndarray  # int8[B,P,T] discard cards each seat knew of at the reshuffle
    taken_known: np.ndarray      # int32[B,P,P,T] observer x holder: known cards a Bomb gave
    accused_tally: np.ndarray    # int32[B,P,3] accusations against a seat: true, lie, bomb
    accuser_tally: np.ndarray    # int32[B,P,3] accusations made by a seat, by revealed outcome
    shown_tally: np.ndarray      # int32[B,P,4] action cards a seat showed: bomb..double
    drawn_tally: np.ndarray      # int32[B,P] cards a seat drew from the draw pile
    bomb_taken: np.ndarray       # int32[B,P] cards a seat took with a Bomb
    data: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    # ^ record[B] (kernels.STATE_DTYPE) that the fields above are views of (but those in hot)
    hot: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    # ^ record[B] (kernels.HOT_DTYPE): seed, counters, player, phase, end flags, legal mask
    rules: Rules | None = field(default=None, repr=False)

    BOOL_FIELDS = frozenset({"terminated", "truncated", "after_reverse", "round_over", "legal_action_mask"})

    @classmethod
    def cuts(cls, rules: Rules) -> dict[str, tuple[int, ...]]:
        """Per-game seat axes cut to the table's seats (``_SEAT_AXES``) and ``draw`` to the deck."""
        p = rules.num_players
        out = {name: (p,) * axes for name, axes in _SEAT_AXES.items()}
        out["draw"] = (rules.total_cards,)
        return out


class LegumesGame(CompiledGame):
    """Menteur with vegetables and action cards, compiled (see ``rules.py``)."""

    game_id = "legumes"
    kernels = KN
    state_type = LegumesState
    observation = O

    # ================================================================ records
    def final_score(self, st: LegumesState, idx: np.ndarray) -> np.ndarray:
        """Points in hand per seat (the results' ``score`` column)."""
        return st.hands[idx].astype(np.int64) @ POINTS

    def round_record(self, st: LegumesState, idx: np.ndarray) -> dict[str, np.ndarray]:
        """One results row per accusation of games ``idx``."""
        lr = st.last_reveal[idx].astype(np.int64)
        card = lr[:, 2]
        return {"round": st.num_rounds[idx] - 1, "caller": lr[:, 0], "accused": lr[:, 1],
                "card": np.asarray(R.CARD_NAMES, object)[card], "doubled": lr[:, 3] == 1,
                "taker": lr[:, 4], "cards_taken": lr[:, 5], "call_right": lr[:, 4] != lr[:, 0]}

    # ================================================================ bridges
    def from_reference(self, states: list[RefState]) -> LegumesState:
        """A batch holding exact copies of reference states."""
        st = self.empty_state(np.asarray([s.seed for s in states], dtype=np.uint64))
        for b, s in enumerate(states):
            self.copy_shared_fields(st, b, s)
            st.hands[b] = s.hand_counts
            st.hand_sizes[b] = [sum(h) for h in s.hand_counts]
            st.draw[b, : len(s.draw)] = s.draw
            st.draw_ptr[b], st.draw_len[b] = s.draw_ptr, len(s.draw)
            st.discard[b], st.discard_revealed[b] = s.discard, s.discard_revealed
            st.reshuffles[b] = s.reshuffles
            for owner, card, called in s.face_down:
                st.fd_by_owner[b, owner, card] += 1
                st.fd_claims[b, owner, called] += 1
            st.fd_count[b] = len(s.face_down)
            last = s.face_down[-1] if s.face_down else (-1, -1, -1)
            st.last_owner[b], st.last_card[b], st.last_called[b] = last
            st.face_up[b], st.called[b], st.direction[b] = s.face_up, s.called, s.direction
            st.after_reverse[b], st.pending[b] = s.after_reverse, s.pending
            st.revealed_total[b], st.last_reveal[b] = s.revealed_total, s.last_reveal
            st.my_discard[b], st.reshuffled_known[b] = s.my_discard, s.reshuffled_known
            st.taken_known[b] = s.taken_known
            st.accused_tally[b], st.accuser_tally[b] = s.accused_tally, s.accuser_tally
            st.shown_tally[b], st.drawn_tally[b] = s.shown_tally, s.drawn_tally
            st.bomb_taken[b] = s.bomb_taken
        self.update_legal_mask(st)
        return st

