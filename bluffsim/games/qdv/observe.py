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

from bluffsim.games.obsspec import SEAT, Context, ObservationSpec, blocks, fields
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.rules import Rules

FIELDS = (SEAT, *fields("""
phase             int8         hot.phase              0 start choice, 1 bidding, 2 salad declarations, 3
                                                      reward, 4 over
hand              int8[K]      data.hands[seat]       my cards in hand by kind (discarded cards excluded)
hand_sizes        int8[P]      data.hand_sizes        cards in hand per seat
tokens            int32[P]     data.tokens            tokens per seat
in_round          bool[P]      data.in_round          seat still plays this round (False once eliminated, at
                                                      once)
dealer            int8         data.dealer            dealer seat
direction         int8         data.direction         +1 clockwise, -1 after an odd number of `reverse`
                                                      challenges
centre            int8         data.centre            kind of the face-up centre card
start             int8         data.start             start fruit of the circle (-1 while the dealer chooses)
bid_count         int8         data.bid_count         count of the standing bid (the centre card's before any
                                                      bid)
bid_fruit         int8         data.bid_fruit         fruit of the standing bid = position marker (-1 while
                                                      choosing)
bidder            int8         data.bidder            seat of the standing bid (-1: the initial bid)
num_bids          int8         data.num_bids          bids made this round
bid_history       int8[H,3]    data.bid_history       this round's bids in order: (seat, count, fruit); -1
                                                      padding
revealed          int8[P,K]    data.revealed          face-up cards still in hand (`reveal` challenges)
discarded         int8[P,K]    data.discarded         face-up discarded cards (`discard` challenges)
drawn             int8[P]      data.drawn             cards drawn secretly this round (`draw` challenges)
challenges        int8[E]      data.challenges        challenge cards turned this round, per effect
challenge_left    int8         -                      challenge cards left in the deck
undealt_left      int8         -                      fruit cards left in the undealt deck
call              int8         data.call              this round's call: -1 none, 0 vrai, 1 menteur
caller            int8         data.caller            seat that called (-1 none)
showdown_hands    int8[P,K]    data.showdown_hands    hands shown at the most recent showdown (this round's
                                                      if under way)
declared          int8[P]      data.declared          salads declared at that showdown (-1 none)
showdown_count    int8         data.showdown_count    the called fruit's count so far at that showdown (-1
                                                      none)
num_rounds        int32        hot.num_rounds         rounds completed
last_round        int16[L]     data.last_round        the last showdown, in `rules.LAST_ROUND` order (below);
                                                      -1 none
last_bid_history  int8[H,3]    data.last_bid_history  that showdown's round's bids (seat, count, fruit); -1
                                                      padding
bid_tally         int32[P,BT]  data.bid_tally         per seat, bids of rounds that reached a showdown
                                                      (below)
call_tally        int32[P,CT]  data.call_tally        per seat, calls made: vrai right/wrong, menteur
                                                      right/wrong
called_tally      int32[P,CT]  data.called_tally      per seat, calls against their bid, same columns
token_tally       int32[P,TT]  data.token_tally       per seat, tokens lost and gained, punish given (below)
"""))


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


BLOCKS = blocks("""
phase              5     onehot                                 one-hot phase: start, bid, salads, reward,
                                                                over
hand               K     copy                                   my cards per kind
hand_sizes         P     seats                                  cards in hand per relative seat
tokens             P     seats                                  tokens per relative seat
in_round           P     seats                                  1 if the relative seat plays this round
dealer             P     seat                                   one-hot relative seat of the dealer
direction          1     copy                                   +1 clockwise, -1 reversed
centre             K     onehot                                 one-hot kind of the centre card
start              F     onehot                                 one-hot start fruit (zeros while the dealer
                                                                chooses)
bid_count          1     copy                                   count of the standing bid
bid_fruit          F     onehot                                 one-hot fruit of the standing bid
bidder             P     seat                                   one-hot relative seat of the standing bid
                                                                (zeros: initial bid)
num_bids           1     copy                                   bids this round
bid_table          P,F   custom bid_table_block                 [seat][fruit] highest count that seat bid on
                                                                that fruit this round
revealed           P,K   seats                                  [seat][kind] face-up cards in hand
discarded          P,K   seats                                  [seat][kind] discarded face-up cards
drawn              P     seats                                  cards drawn secretly this round per relative
                                                                seat
challenges         E     copy                                   challenge cards turned this round per effect
challenge_left     1     copy                                   challenge cards left
undealt_left       1     copy                                   undealt fruit cards left
call               2     onehot                                 one-hot call of this round: vrai, menteur
caller             P     seat                                   one-hot relative seat of the caller
showdown_hands     P,K   seats                                  [seat][kind] hands at the most recent
                                                                showdown
declared           P     seats add=1                            salads declared at that showdown + 1 (0 =
                                                                none)
showdown_count     1     copy floor=0                           called fruit's count at that showdown (0 if
                                                                none)
num_rounds         1     copy                                   rounds completed
last_call          2     onehot last_round[call]                one-hot call at the last showdown: vrai,
                                                                menteur
last_caller        P     seat last_round[caller]                one-hot relative seat of its caller
last_bidder        P     seat last_round[bidder]                one-hot relative seat of its bidder (zeros:
                                                                the initial bid)
last_bid_count     1     copy last_round[bid_count] floor=0     its bid's count (0 if none)
last_bid_fruit     F     onehot last_round[bid_fruit]           one-hot fruit of its bid
last_true_count    1     copy last_round[true_count] floor=0    its count, declared salads included (0 if
                                                                none)
last_loser         P     seat last_round[loser]                 one-hot relative seat that lost tokens there
                                                                (or was punished)
last_amount        1     copy last_round[amount] floor=0        tokens due from that seat (0 if none)
last_gainer        P     seat last_round[gainer]                one-hot relative seat that gained a token
                                                                there
last_centre_value  1     copy last_round[centre_value] floor=0  what its centre card added to the called
                                                                fruit
last_bid_table     P,F   custom last_bid_table_block            [seat][fruit] highest count that seat bid on
                                                                that fruit in the last showdown's round
bid_tally          P,BT  seats                                  [seat][5] bids shown, above / equal to the
                                                                card count, sum(bid - card count), sum of own
                                                                card value
call_tally         P,CT  seats                                  [seat][4] calls made: vrai right, vrai wrong,
                                                                menteur right, menteur wrong
called_tally       P,CT  seats                                  [seat][4] calls against the seat's bid, same
                                                                columns
token_tally        P,TT  seats                                  [seat][5] tokens lost to challenges, at
                                                                showdowns, to punish; gained; punish rewards
                                                                given
""", custom={"bid_table_block": _bid_table_block, "last_bid_table_block": _last_bid_table_block},
    columns={"last_round": R.LAST_ROUND})

SPEC = ObservationSpec(FIELDS, BLOCKS, sizes)
# OBS_KEYS, tensor_layout(rules) (the index / meaning table), tensor_size(rules) (its width D),
# to_tensor(rules, obs) (float32[B, D]), and the field table in this docstring
SPEC.publish(globals())


def bid_table(history: np.ndarray, num_players: int) -> np.ndarray:
    """float32[B, P, F]: highest count each seat bid on each fruit in a bid history [B, H, 3]."""
    hist = history.astype(np.int64)
    table = np.zeros((hist.shape[0], num_players, R.NUM_FRUITS), dtype=np.float32)
    bi, hi = np.nonzero(hist[:, :, 0] >= 0)
    np.maximum.at(table, (bi, hist[bi, hi, 0], hist[bi, hi, 2]), hist[bi, hi, 1])
    return table
