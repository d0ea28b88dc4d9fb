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
from bluffsim.games.obsspec import SEAT, ObservationSpec, blocks, fields

FIELDS = (SEAT, *fields("""
phase         int8     hot.phase          0 bidding, 1 over
hand          int8[F]  data.hands[seat]   my dice per face
dice_left     int8[P]  data.dice_left     dice per seat (0: out)
bid_quantity  int8     data.bid_quantity  the current bid's quantity (-1 before the first bid)
bid_face      int8     data.bid_face      the current bid's face, 0-based (-1 before the first bid)
bidder        int8     data.bidder        who made the current bid (-1 none)
num_rounds    int32    hot.num_rounds     rounds (calls) so far
last_reveal   int8[6]  data.last_reveal   last call: caller, bidder, quantity, face, count, loser
"""))


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


BLOCKS = blocks("""
phase         2  onehot  one-hot phase: bidding, over
hand          F  copy    my dice per face
dice_left     P  seats   dice per relative seat
bid_quantity  1  copy    the current bid's quantity (-1 none)
bid_face      F  onehot  one-hot face of the current bid
bidder        P  seat    one-hot relative seat of the bidder
num_rounds    1  copy    rounds so far
""")

SPEC = ObservationSpec(FIELDS, BLOCKS, sizes)
SPEC.publish(globals())  # OBS_KEYS, to_tensor, ... (obsspec)
