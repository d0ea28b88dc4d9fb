"""What one ``qdv`` seat may see: a structured information set and a flat float32 tensor.

Structured observation (``QdvGame.observe``; batch-first ``[B, ...]``; the
reference engine returns the same keys without the batch axis).  ``P`` seats,
``K = 19`` card kinds, ``F = 6`` fruits, ``E = 6`` challenge effects, ``H`` =
``rules.history_len``; ``L = 10``, ``BT = 5``, ``CT = 4``, ``TT = 5`` the columns of
``last_round``, ``bid_tally``, ``call_tally`` / ``called_tally`` and ``token_tally`` (below;
``sizes`` reads them from ``rules``).  Seats are absolute
(clockwise numbering).

{fields}

``last_round`` columns: caller, call, bidder, bid_count, bid_fruit, true_count
(declared salads included), loser (the seat due to lose tokens, or the punished
seat), amount (tokens due), gainer (the caller who took the `gain`),
centre_value (what the centre card added to the called fruit).

``bid_tally`` columns, summed over every showdown of the game so far: 0 bids
made (in rounds that reached a showdown), 1 of them above the fruit's *card
count*, 2 equal to it, 3 sum of (bid count − card count), 4 sum of the bidder's
own card value of the bid fruit at the showdown.  ``call_tally`` /
``called_tally`` columns: 0 vrai right (exact), 1 vrai wrong, 2 menteur right
(the bid was too high), 3 menteur wrong (the bid held); ``called_tally``
counts them for the seat whose bid was called.  ``token_tally`` columns: 0
tokens lost to `token` challenges, 1 lost at showdowns, 2 lost to `punish`,
3 gained (`gain`), 4 `punish` rewards given.

*Card count* (``bid_tally``): the value of a bid's fruit in the hands shown at the
showdown plus the centre card, multipliers included, salads left out (they are
declared only for the called fruit; ``declared`` has them).  The tallies are
updated when the showdown resolves, cover the whole game and are public: they
are what an opponent model reads (e.g. mean overbid = col 3 / col 0, bluff
share = col 1 / col 0, mean own support = col 4 / col 0).  The last showdown
is kept whole (``showdown_hands``, ``declared``, ``showdown_count``,
``last_round``, ``last_bid_history``) until the next one; earlier ones live on
in the tallies.  Tokens lost are the tokens actually lost (never below 0).

The flat tensor (``observation_tensor``) lists per-seat blocks in *relative*
order, index 0 = the observer, 1 = the next seat clockwise, and so on; its
index / meaning table is ``tensor_layout(rules)`` (printed by
``bluffsim games qdv``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bluffsim.games.obsspec import (
    SEAT,
    Block,
    Context,
    Copy,
    Custom,
    Field,
    ObservationSpec,
    OneHot,
    Seat,
    Seats,
)
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.rules import Rules

FIELDS = (
    SEAT,
    Field("phase", "int8", (),
          "0 start choice, 1 bidding, 2 salad declarations, 3 reward, 4 over",
          "hot.phase"),
    Field("hand", "int8", ("K",),
          "my cards in hand by kind (discarded cards excluded)",
          "data.hands[seat]"),
    Field("hand_sizes", "int8", ("P",), "cards in hand per seat", "data.hand_sizes"),
    Field("tokens", "int32", ("P",), "tokens per seat", "data.tokens"),
    Field("in_round", "bool", ("P",),
          "seat still plays this round (False once eliminated, at once)",
          "data.in_round"),
    Field("dealer", "int8", (), "dealer seat", "data.dealer"),
    Field("direction", "int8", (),
          "+1 clockwise, -1 after an odd number of `reverse` challenges",
          "data.direction"),
    Field("centre", "int8", (), "kind of the face-up centre card", "data.centre"),
    Field("start", "int8", (),
          "start fruit of the circle (-1 while the dealer chooses)",
          "data.start"),
    Field("bid_count", "int8", (),
          "count of the standing bid (the centre card's before any bid)",
          "data.bid_count"),
    Field("bid_fruit", "int8", (),
          "fruit of the standing bid = position marker (-1 while choosing)",
          "data.bid_fruit"),
    Field("bidder", "int8", (), "seat of the standing bid (-1: the initial bid)", "data.bidder"),
    Field("num_bids", "int8", (), "bids made this round", "data.num_bids"),
    Field("bid_history", "int8", ("H", 3),
          "this round's bids in order: (seat, count, fruit); -1 padding",
          "data.bid_history"),
    Field("revealed", "int8", ("P", "K"),
          "face-up cards still in hand (`reveal` challenges)",
          "data.revealed"),
    Field("discarded", "int8", ("P", "K"),
          "face-up discarded cards (`discard` challenges)",
          "data.discarded"),
    Field("drawn", "int8", ("P",),
          "cards drawn secretly this round (`draw` challenges)",
          "data.drawn"),
    Field("challenges", "int8", ("E",),
          "challenge cards turned this round, per effect",
          "data.challenges"),
    Field("challenge_left", "int8", (), "challenge cards left in the deck"),
    Field("undealt_left", "int8", (), "fruit cards left in the undealt deck"),
    Field("call", "int8", (), "this round's call: -1 none, 0 vrai, 1 menteur", "data.call"),
    Field("caller", "int8", (), "seat that called (-1 none)", "data.caller"),
    Field("showdown_hands", "int8", ("P", "K"),
          "hands shown at the most recent showdown (this round's if under way)",
          "data.showdown_hands"),
    Field("declared", "int8", ("P",),
          "salads declared at that showdown (-1 none)",
          "data.declared"),
    Field("showdown_count", "int8", (),
          "the called fruit's count so far at that showdown (-1 none)",
          "data.showdown_count"),
    Field("num_rounds", "int32", (), "rounds completed", "hot.num_rounds"),
    Field("last_round", "int16", ("L",),
          "the last showdown, in `rules.LAST_ROUND` order (below); -1 none",
          "data.last_round"),
    Field("last_bid_history", "int8", ("H", 3),
          "that showdown's round's bids (seat, count, fruit); -1 padding",
          "data.last_bid_history"),
    Field("bid_tally", "int32", ("P", "BT"),
          "per seat, bids of rounds that reached a showdown (below)",
          "data.bid_tally"),
    Field("call_tally", "int32", ("P", "CT"),
          "per seat, calls made: vrai right/wrong, menteur right/wrong",
          "data.call_tally"),
    Field("called_tally", "int32", ("P", "CT"),
          "per seat, calls against their bid, same columns",
          "data.called_tally"),
    Field("token_tally", "int32", ("P", "TT"),
          "per seat, tokens lost and gained, punish given (below)",
          "data.token_tally"),
)


def observation_fields(rules: Rules, s: Any, seat: int) -> dict[str, np.ndarray]:
    """Structured observation of ``seat`` in a reference state (``reference.RefState``, read by
    attribute: the observation does not import the reference engine; no batch axis); a key
    left out here is the state's attribute of that name (``ObservationSpec.arrays``)."""
    return SPEC.arrays(s, {
        "seat": seat,
        "hand": s.hand_counts[seat] if seat >= 0 else [0] * R.NUM_KINDS,
        "hand_sizes": [sum(h) for h in s.hand_counts],
        "num_bids": len(s.bid_history),
        "bid_history": bid_array(rules, s.bid_history),
        "challenge_left": len(s.chal_deck) - s.chal_ptr,
        "undealt_left": len(s.deck) - s.deck_ptr,
        "last_round": [s.last_round.get(k, -1) for k in R.LAST_ROUND],
        "last_bid_history": bid_array(rules, s.last_bid_history),
    })


def bid_array(rules: Rules, bids: list[tuple[int, int, int]]) -> np.ndarray:
    """int8[H, 3]: a round's bids (seat, count, fruit) in order, -1 padding."""
    hist = np.full((rules.history_len, 3), -1, dtype=np.int8)
    for i, bid in enumerate(bids):
        hist[i] = bid
    return hist


def sizes(rules: Rules) -> dict[str, int]:
    """The named sizes of the tables: P seats, K kinds, F fruits, E effects, H bid history, and
    the columns of ``last_round`` (L), ``bid_tally`` (BT), ``call_tally`` / ``called_tally`` (CT)
    and ``token_tally`` (TT)."""
    return {"P": rules.num_players, "K": R.NUM_KINDS, "F": R.NUM_FRUITS, "E": R.NUM_EFFECTS,
            "H": rules.history_len, "L": len(R.LAST_ROUND), "BT": R.BID_TALLY, "CT": R.CALL_TALLY,
            "TT": R.TOKEN_TALLY}


def _bid_table_block(c: Context) -> np.ndarray:
    """float32[B, P * F]: this round's ``bid_table`` in relative seat order."""
    return c.seats(bid_table(c.obs["bid_history"], c.sizes["P"]))


def _last_bid_table_block(c: Context) -> np.ndarray:
    """float32[B, P * F]: the last showdown's round's ``bid_table`` in relative seat order."""
    return c.seats(bid_table(c.obs["last_bid_history"], c.sizes["P"]))


BLOCKS = (
    Block("phase", (5,), "one-hot phase: start, bid, salads, reward, over", OneHot("phase")),
    Block("hand", ("K",), "my cards per kind", Copy("hand")),
    Block("hand_sizes", ("P",), "cards in hand per relative seat", Seats("hand_sizes")),
    Block("tokens", ("P",), "tokens per relative seat", Seats("tokens")),
    Block("in_round", ("P",), "1 if the relative seat plays this round", Seats("in_round")),
    Block("dealer", ("P",), "one-hot relative seat of the dealer", Seat("dealer")),
    Block("direction", (1,), "+1 clockwise, -1 reversed", Copy("direction")),
    Block("centre", ("K",), "one-hot kind of the centre card", OneHot("centre")),
    Block("start", ("F",), "one-hot start fruit (zeros while the dealer chooses)", OneHot("start")),
    Block("bid_count", (1,), "count of the standing bid", Copy("bid_count")),
    Block("bid_fruit", ("F",), "one-hot fruit of the standing bid", OneHot("bid_fruit")),
    Block("bidder", ("P",),
          "one-hot relative seat of the standing bid (zeros: initial bid)",
          Seat("bidder")),
    Block("num_bids", (1,), "bids this round", Copy("num_bids")),
    Block("bid_table", ("P", "F"),
          "[seat][fruit] highest count that seat bid on that fruit this round",
          Custom(_bid_table_block, "bid_table_block")),
    Block("revealed", ("P", "K"), "[seat][kind] face-up cards in hand", Seats("revealed")),
    Block("discarded", ("P", "K"), "[seat][kind] discarded face-up cards", Seats("discarded")),
    Block("drawn", ("P",), "cards drawn secretly this round per relative seat", Seats("drawn")),
    Block("challenges", ("E",), "challenge cards turned this round per effect", Copy("challenges")),
    Block("challenge_left", (1,), "challenge cards left", Copy("challenge_left")),
    Block("undealt_left", (1,), "undealt fruit cards left", Copy("undealt_left")),
    Block("call", (2,), "one-hot call of this round: vrai, menteur", OneHot("call")),
    Block("caller", ("P",), "one-hot relative seat of the caller", Seat("caller")),
    Block("showdown_hands", ("P", "K"),
          "[seat][kind] hands at the most recent showdown",
          Seats("showdown_hands")),
    Block("declared", ("P",),
          "salads declared at that showdown + 1 (0 = none)",
          Seats("declared", add=1)),
    Block("showdown_count", (1,),
          "called fruit's count at that showdown (0 if none)",
          Copy("showdown_count", floor=0)),
    Block("num_rounds", (1,), "rounds completed", Copy("num_rounds")),
    Block("last_call", (2,),
          "one-hot call at the last showdown: vrai, menteur",
          OneHot("last_round", col=R.LAST_ROUND.index("call"))),
    Block("last_caller", ("P",),
          "one-hot relative seat of its caller",
          Seat("last_round", col=R.LAST_ROUND.index("caller"))),
    Block("last_bidder", ("P",),
          "one-hot relative seat of its bidder (zeros: the initial bid)",
          Seat("last_round", col=R.LAST_ROUND.index("bidder"))),
    Block("last_bid_count", (1,),
          "its bid's count (0 if none)",
          Copy("last_round", col=R.LAST_ROUND.index("bid_count"), floor=0)),
    Block("last_bid_fruit", ("F",),
          "one-hot fruit of its bid",
          OneHot("last_round", col=R.LAST_ROUND.index("bid_fruit"))),
    Block("last_true_count", (1,),
          "its count, declared salads included (0 if none)",
          Copy("last_round", col=R.LAST_ROUND.index("true_count"), floor=0)),
    Block("last_loser", ("P",),
          "one-hot relative seat that lost tokens there (or was punished)",
          Seat("last_round", col=R.LAST_ROUND.index("loser"))),
    Block("last_amount", (1,),
          "tokens due from that seat (0 if none)",
          Copy("last_round", col=R.LAST_ROUND.index("amount"), floor=0)),
    Block("last_gainer", ("P",),
          "one-hot relative seat that gained a token there",
          Seat("last_round", col=R.LAST_ROUND.index("gainer"))),
    Block("last_centre_value", (1,),
          "what its centre card added to the called fruit",
          Copy("last_round", col=R.LAST_ROUND.index("centre_value"), floor=0)),
    Block("last_bid_table", ("P", "F"),
          "[seat][fruit] highest count that seat bid on that fruit in the last showdown's round",
          Custom(_last_bid_table_block, "last_bid_table_block")),
    Block("bid_tally", ("P", "BT"),
          "[seat][5] bids shown, above / equal to the card count, sum(bid - card count), sum of "
          "own card value",
          Seats("bid_tally")),
    Block("call_tally", ("P", "CT"),
          "[seat][4] calls made: vrai right, vrai wrong, menteur right, menteur wrong",
          Seats("call_tally")),
    Block("called_tally", ("P", "CT"),
          "[seat][4] calls against the seat's bid, same columns",
          Seats("called_tally")),
    Block("token_tally", ("P", "TT"),
          "[seat][5] tokens lost to challenges, at showdowns, to punish; gained; punish rewards "
          "given",
          Seats("token_tally")),
)

SPEC = ObservationSpec(FIELDS, BLOCKS, sizes)
OBS_KEYS = SPEC.keys
tensor_layout = SPEC.tensor_layout    # rules -> the index / meaning table
tensor_size = SPEC.tensor_size        # rules -> the tensor's width D
to_tensor = SPEC.to_tensor            # (rules, obs) -> float32[B, D]
__doc__ = SPEC.document(__doc__)      # the field table in place of {fields}


def bid_table(history: np.ndarray, num_players: int) -> np.ndarray:
    """float32[B, P, F]: highest count each seat bid on each fruit in a bid history [B, H, 3]."""
    hist = history.astype(np.int64)
    table = np.zeros((hist.shape[0], num_players, R.NUM_FRUITS), dtype=np.float32)
    bi, hi = np.nonzero(hist[:, :, 0] >= 0)
    np.maximum.at(table, (bi, hist[bi, hi, 0], hist[bi, hi, 2]), hist[bi, hi, 1])
    return table
