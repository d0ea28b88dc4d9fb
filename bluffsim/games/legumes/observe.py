"""What one ``legumes`` seat may see: a structured information set and a flat float32 tensor.

Structured observation (batch-first in ``LegumesGame.observe``; the reference
engine returns the same keys without the batch axis).  ``P`` seats, ``T = 22``
card types, ``V = 6`` vegetables.

{fields}

Memory: agents are stateless, so these fields hold all the observer knows of
the past.  ``taken_known`` counts, for each Bomb, the cards the observer could
name: the public ones (revealed and face-up cards still in the discard pile,
this round's face-up cards, the Bomb) plus its own face-down cards among them
(the accuser itself knows all it took); they entered that hand, they need not
still be there.  The tallies are public and cumulative; outcomes are those of
the revealed card (``true`` = the called vegetable, so the accuser was wrong).

The flat tensor uses relative seats (index 0 = me); ``tensor_layout(rules)``
gives its index / meaning table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.rules import Rules
from bluffsim.games.obsspec import SEAT, Block, Copy, Field, ObservationSpec, OneHot, Seat, Seats

FIELDS = (
    SEAT,
    Field("phase", "int8", (), "0 open a round, 1 play or accuse, 2 over", "hot.phase"),
    Field("hand", "int8", ("T",), "my cards by type", "data.hands[seat]"),
    Field("hand_sizes", "int16", ("P",), "cards in hand per seat", "data.hand_sizes"),
    Field("called", "int8", (), "the called vegetable (-1 before the opening)", "data.called"),
    Field("direction", "int8", (), "+1 clockwise, -1 reversed", "data.direction"),
    Field("face_down_count", "int16", (), "face-down cards this round", "data.fd_count"),
    Field("last_owner", "int8", (),
          "who played the last face-down card (-1 none)",
          "data.last_owner"),
    Field("last_called", "int8", (),
          "vegetable called when that card was played (-1 none)",
          "data.last_called"),
    Field("my_face_down", "int8", ("T",),
          "my face-down cards this round",
          "data.fd_by_owner[seat]"),
    Field("face_up", "int8", ("T",), "action cards played face up this round", "data.face_up"),
    Field("after_reverse", "bool", (),
          "the last move was a Reverse (no accusation now)",
          "data.after_reverse"),
    Field("discard_size", "int16", (), "cards in the discard pile"),
    Field("discard_revealed", "int8", ("T",),
          "discard cards known to all (revealed or face up)",
          "data.discard_revealed"),
    Field("draw_size", "int16", (), "cards left in the draw pile"),
    Field("reshuffles", "int8", (), "times the draw pile ran out", "data.reshuffles"),
    Field("revealed_total", "int32", ("T",),
          "every card revealed by an accusation so far",
          "data.revealed_total"),
    Field("last_reveal", "int16", (6,),
          "accuser, accused, card, doubled, taker, cards taken",
          "data.last_reveal"),
    Field("pending", "int8", (),
          "seat whose last card lies face down: accuse or accept (-1)",
          "data.pending"),
    Field("num_rounds", "int32", (), "accusations (rounds) so far", "hot.num_rounds"),
    Field("my_discard", "int8", ("T",),
          "my own face-down cards now in the discard pile (unrevealed)",
          "data.my_discard[seat]"),
    Field("reshuffled_known", "int8", ("T",),
          "discard cards I knew of when it became the draw pile",
          "data.reshuffled_known[seat]"),
    Field("fd_claims", "int16", ("P", "V"),
          "face-down cards this round per owner and called vegetable",
          "data.fd_claims"),
    Field("taken_known", "int32", ("P", "T"),
          "known cards a Bomb put in each seat's hand (cumulative)",
          "data.taken_known[seat]"),
    Field("accused_tally", "int32", ("P", 3),
          "accusations against each seat: true, lie, bomb",
          "data.accused_tally"),
    Field("accuser_tally", "int32", ("P", 3),
          "accusations made by each seat, by what was revealed",
          "data.accuser_tally"),
    Field("shown_tally", "int32", ("P", 4),
          "action cards each seat showed (face up or revealed), by kind",
          "data.shown_tally"),
    Field("drawn_tally", "int32", ("P",),
          "cards each seat drew from the draw pile",
          "data.drawn_tally"),
    Field("bomb_taken", "int32", ("P",), "cards each seat took with a Bomb", "data.bomb_taken"),
)


def observation_fields(rules: Rules, s: Any, seat: int) -> dict[str, np.ndarray]:
    """Structured observation of ``seat`` in a reference state (``reference.RefState``, read by
    attribute: the observation does not import the reference engine; no batch axis); a key
    left out here is the state's attribute of that name (``ObservationSpec.arrays``)."""
    mine = seat >= 0
    my_fd = [0] * R.NUM_TYPES
    for owner, card, _ in s.face_down:
        if owner == seat:
            my_fd[card] += 1
    last = s.face_down[-1] if s.face_down else (-1, -1, -1)
    claims = [[0] * R.NUM_VEG for _ in range(rules.num_players)]
    for owner, _, called in s.face_down:
        claims[owner][called] += 1
    return SPEC.arrays(s, {
        "seat": seat,
        "hand": s.hand_counts[seat] if mine else [0] * R.NUM_TYPES,
        "hand_sizes": [sum(h) for h in s.hand_counts],
        "face_down_count": len(s.face_down),
        "last_owner": last[0],
        "last_called": last[2],
        "my_face_down": my_fd,
        "discard_size": sum(s.discard),
        "draw_size": len(s.draw) - s.draw_ptr,
        "my_discard": s.my_discard[seat] if mine else [0] * R.NUM_TYPES,
        "reshuffled_known": s.reshuffled_known[seat] if mine else [0] * R.NUM_TYPES,
        "fd_claims": claims,
        "taken_known": s.taken_known[seat] if mine
                                  else [[0] * R.NUM_TYPES] * rules.num_players,
    })


def sizes(rules: Rules) -> dict[str, int]:
    """The named sizes of the tables: P seats, T card types, V vegetables."""
    return {"P": rules.num_players, "T": R.NUM_TYPES, "V": R.NUM_VEG}


BLOCKS = (
    Block("phase", (3,), "one-hot phase: open, play, over", OneHot("phase")),
    Block("hand", ("T",), "my cards per type", Copy("hand")),
    Block("hand_sizes", ("P",), "cards in hand per relative seat", Seats("hand_sizes")),
    Block("called", ("V",), "one-hot called vegetable", OneHot("called")),
    Block("direction", (1,), "+1 clockwise, -1 reversed", Copy("direction")),
    Block("face_down_count", (1,), "face-down cards this round", Copy("face_down_count")),
    Block("last_owner", ("P",),
          "one-hot relative seat of the last face-down card",
          Seat("last_owner")),
    Block("last_called", ("V",),
          "one-hot vegetable called when it was played",
          OneHot("last_called")),
    Block("my_face_down", ("T",), "my face-down cards this round", Copy("my_face_down")),
    Block("face_up", ("T",), "face-up action cards this round", Copy("face_up")),
    Block("after_reverse", (1,), "1 if no accusation is allowed now", Copy("after_reverse")),
    Block("discard_size", (1,), "cards in the discard pile", Copy("discard_size")),
    Block("discard_revealed", ("T",), "known discard cards per type", Copy("discard_revealed")),
    Block("draw_size", (1,), "cards in the draw pile", Copy("draw_size")),
    Block("reshuffles", (1,), "times the draw pile ran out", Copy("reshuffles")),
    Block("revealed_total", ("T",), "cards revealed so far per type", Copy("revealed_total")),
    Block("pending", ("P",),
          "one-hot relative seat whose last card lies face down (accuse or accept)",
          Seat("pending")),
    Block("num_rounds", (1,), "accusations so far", Copy("num_rounds")),
    Block("my_discard", ("T",),
          "my own unrevealed face-down cards in the discard pile per type",
          Copy("my_discard")),
    Block("reshuffled_known", ("T",),
          "discard cards I knew of when it was reshuffled, per type",
          Copy("reshuffled_known")),
    Block("fd_claims", ("P", "V"),
          "face-down cards this round: relative owner x called vegetable",
          Seats("fd_claims")),
    Block("taken_known", ("P", "T"),
          "known cards a Bomb put in each hand: relative seat x type",
          Seats("taken_known")),
    Block("accused_tally", ("P", 3),
          "accusations suffered: relative seat x (true, lie, bomb)",
          Seats("accused_tally")),
    Block("accuser_tally", ("P", 3),
          "accusations made: relative seat x (true, lie, bomb) revealed",
          Seats("accuser_tally")),
    Block("shown_tally", ("P", 4),
          "action cards shown: relative seat x (bomb, choice, reverse, double)",
          Seats("shown_tally")),
    Block("drawn_tally", ("P",),
          "cards drawn from the pile per relative seat",
          Seats("drawn_tally")),
    Block("bomb_taken", ("P",), "cards taken with a Bomb per relative seat", Seats("bomb_taken")),
)

SPEC = ObservationSpec(FIELDS, BLOCKS, sizes)
OBS_KEYS = SPEC.keys
tensor_layout = SPEC.tensor_layout    # rules -> the index / meaning table
tensor_size = SPEC.tensor_size        # rules -> the tensor's width D
to_tensor = SPEC.to_tensor            # (rules, obs) -> float32[B, D]
__doc__ = SPEC.document(__doc__)      # the field table in place of {fields}
