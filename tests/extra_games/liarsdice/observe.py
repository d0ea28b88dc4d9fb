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
from bluffsim.games.obsspec import SEAT, Block, Copy, Field, ObservationSpec, OneHot, Seat, Seats

FIELDS = (
    SEAT,
    Field("phase", "int8", (), "0 bidding, 1 over", "hot.phase"),
    Field("hand", "int8", ("F",), "my dice per face", "data.hands[seat]"),
    Field("dice_left", "int8", ("P",), "dice per seat (0: out)", "data.dice_left"),
    Field("bid_quantity", "int8", (),
          "the current bid's quantity (-1 before the first bid)",
          "data.bid_quantity"),
    Field("bid_face", "int8", (),
          "the current bid's face, 0-based (-1 before the first bid)",
          "data.bid_face"),
    Field("bidder", "int8", (), "who made the current bid (-1 none)", "data.bidder"),
    Field("num_rounds", "int32", (), "rounds (calls) so far", "hot.num_rounds"),
    Field("last_reveal", "int8", (6,),
          "last call: caller, bidder, quantity, face, count, loser",
          "data.last_reveal"),
)


def observation_fields(rules: Any, s: Any, seat: int) -> dict[str, np.ndarray]:
    """Structured observation of ``seat`` in a reference state (read by attribute; a key left
    out is the state's attribute of that name)."""
    return SPEC.arrays(s, {
        "seat": seat,
        "hand": s.hand_counts[seat] if seat >= 0 else [0] * R.FACES,
    })


def sizes(rules: Any) -> dict[str, int]:
    """The named sizes: P seats, F faces."""
    return {"P": rules.num_players, "F": R.FACES}


BLOCKS = (
    Block("phase", (2,), "one-hot phase: bidding, over", OneHot("phase")),
    Block("hand", ("F",), "my dice per face", Copy("hand")),
    Block("dice_left", ("P",), "dice per relative seat", Seats("dice_left")),
    Block("bid_quantity", (1,), "the current bid's quantity (-1 none)", Copy("bid_quantity")),
    Block("bid_face", ("F",), "one-hot face of the current bid", OneHot("bid_face")),
    Block("bidder", ("P",), "one-hot relative seat of the bidder", Seat("bidder")),
    Block("num_rounds", (1,), "rounds so far", Copy("num_rounds")),
)

SPEC = ObservationSpec(FIELDS, BLOCKS, sizes)
OBS_KEYS = SPEC.keys
tensor_layout = SPEC.tensor_layout    # rules -> the index / meaning table
tensor_size = SPEC.tensor_size        # rules -> the tensor's width D
to_tensor = SPEC.to_tensor            # (rules, obs) -> float32[B, D]
__doc__ = SPEC.document(__doc__)      # the field table in place of {fields}
