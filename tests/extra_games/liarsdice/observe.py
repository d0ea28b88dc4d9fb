"""What one ``liarsdice`` seat may see: a structured information set and a flat float32 tensor.

Structured observation (batch-first in ``LiarsDiceGame.observe``; the reference engine returns
the same keys without the batch axis).  ``P`` seats, ``F = 6`` faces.

{fields}

The flat tensor uses relative seats (index 0 = me); ``tensor_layout(rules)`` gives its table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bluffsim.games.liarsdice import rules as R
from bluffsim.games.obsspec import SEAT, Block, Copy, Field, ObservationSpec, OneHot, Seat, Seats, hand_field

FIELDS = (
    SEAT,
    Field("phase", "int8", (), "0 bidding, 1 over", "hot.phase"),
    hand_field(("F",), "my dice per face"),
    Field("dice_left", "int8", ("P",), "dice per seat (0: out)", "data.dice_left"),
    Field("bid_quantity", "int8", (), "the current bid's quantity (-1 before the first bid)",
          "data.bid_quantity"),
    Field("bid_face", "int8", (), "the current bid's face, 0-based (-1 before the first bid)",
          "data.bid_face"),
    Field("bidder", "int8", (), "who made the current bid (-1 none)", "data.bidder"),
    Field("num_rounds", "int32", (), "rounds (calls) so far", "hot.num_rounds"),
    Field("last_reveal", "int8", (6,), "last call: caller, bidder, quantity, face, count, loser",
          "data.last_reveal"),
)


def observation_fields(rules: Any, s: Any, seat: int) -> dict[str, np.ndarray]:
    """Structured observation of ``seat`` in a reference state (read by attribute)."""
    i8 = np.int8
    return {
        "seat": np.asarray(seat, i8),
        "phase": np.asarray(s.phase, i8),
        "hand": np.asarray(s.hand_counts[seat] if seat >= 0 else [0] * R.FACES, i8),
        "dice_left": np.asarray(s.dice_left, i8),
        "bid_quantity": np.asarray(s.bid_quantity, i8),
        "bid_face": np.asarray(s.bid_face, i8),
        "bidder": np.asarray(s.bidder, i8),
        "num_rounds": np.asarray(s.num_rounds, np.int32),
        "last_reveal": np.asarray(s.last_reveal, i8),
    }


def sizes(rules: Any) -> dict[str, int]:
    """The named sizes: P seats, F faces."""
    return {"P": rules.num_players, "F": R.FACES}


BLOCKS = (  # each block's encoding: the numpy encoder and the compiled tensor both follow from it
    Block("phase", (2,), "one-hot phase: bidding, over", OneHot("phase")),
    Block("hand", ("F",), "my dice per face", Copy("hand")),
    Block("dice_left", ("P",), "dice per relative seat", Seats("dice_left")),
    Block("bid_quantity", (1,), "the current bid's quantity (-1 none)", Copy("bid_quantity")),
    Block("bid_face", ("F",), "one-hot face of the current bid", OneHot("bid_face")),
    Block("bidder", ("P",), "one-hot relative seat of the bidder", Seat("bidder")),
    Block("num_rounds", (1,), "rounds so far", Copy("num_rounds")),
)

ObservationSpec(FIELDS, BLOCKS, sizes).publish(globals())  # SPEC, to_tensor, ... (obsspec)
