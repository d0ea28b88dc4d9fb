"""What one ``veru`` seat may see: a structured information set and a flat float32 tensor.

Structured observation (batch-first in ``VeruGame.observe``; the reference engine
returns the same keys without the batch axis).  ``P`` seats, ``T = 14`` card
types (2…A, Joker), ``N = 12`` announceable ranks, ``W = P + 3`` places of the aces
(each hand, the table, the Bank, out of the game).

{fields}

Memory.  Agents are stateless, so the observation holds everything the seat
legitimately knows: its own cards wherever they went (`my_table`, `my_bank`,
`my_out`, `seen_taken` for the ones a seat took, `discard_seen` for the ones
shown to all), the cards it saw go into a hand (`seen_taken`, and
`known_in_hand` for the ones still certainly there: each card a seat puts or
swaps away lowers every type's bound by one, a closed rank sets it to 0), the
last check with all its seats (`last_check`), and public per-seat tallies of
behaviour (`claims` … `swaps_made`) for per-opponent models.

In the flat tensor, per-seat blocks start with the observer (relative seats);
``tensor_layout(rules)`` is its index / meaning table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bluffsim.games.obsspec import SEAT, Context, ObservationSpec, blocks, fields
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.rules import Rules

FIELDS = (SEAT, *fields("""
phase             int8        hot.phase              0 announce, 1 putting cards, 2 respond, 3 over
hand              int8[T]     data.hands[seat]       my cards by type
hand_sizes        int8[P]     data.hand_sizes        cards in hand per seat
out               bool[P]     data.out               seat has finished
place             int8[P]     data.place             place of a finished seat (0 while playing)
opener            int8        data.opener            this round's opener
claimant          int8        data.claimant          seat whose claim is on the table (-1 none)
claim_rank        int8        data.claim_rank        announced rank of the round (-1 none)
claim_count       int8        data.table_n           cards in the claim on the table
put_count         int8        data.put_count         cards put so far in the current turn
my_table          int8[T]     -                      my cards in the claim on the table
bank_sizes        int8[P]     -                      cards in the Bank per owner
my_bank           int8[T]     data.bank[seat]        my cards in the Bank
closed            bool[N]     data.closed            closed ranks
discard_seen      int8[T]     data.discard_seen      cards out of the game face up (closed quads, believed
                                                     claims)
discard_hidden    int8        -                      cards out unseen (Bank after a true "believe", swapped
                                                     cards)
taken             int32[P]    data.taken             cards each seat has picked up so far
seen_taken        int32[P,T]  data.seen_taken[seat]  cards I saw go into each seat's hand, cumulative (incl.
                                                     mine)
last_check        int8[5]     data.last_check        checker, claimant, kind (believe, disbelieve, timeout),
                                                     truth, taker
last_check_cards  int8[T]     -                      the last checked claim, if I saw it (else zeros)
swaps_left        int8        -                      my Joker-gadget uses left (0 without the gadget)
ace_where         int8[W]     -                      4-Aces gadget: aces per hand, table, Bank, out; -1
                                                     without
endgame_left      int32       -                      decisions left before both last players lose (-1 before
                                                     two are left)
num_rounds        int32       hot.num_rounds         checks (rounds) so far
my_out            int8[T]     data.hidden_out[seat]  my cards gone out unseen by others (Bank, swaps)
known_in_hand     int8[P,T]   data.known[seat]       cards I know each other seat holds now (lower bound; my
                                                     row 0)
claims            int32[P,2]  data.claims            per seat: rounds opened, claims added to a running round
cards_claimed     int32[P]    data.cards_claimed     per seat: cards put face down under a claim
claims_checked    int32[P,2]  data.claim_checks      per claimant: checked claims found false, true
checks            int32[P,4]  data.checks            per checker: believe right / wrong, disbelieve right /
                                                     wrong
pickups           int32[P]    data.pickups           per seat: times they took the table and the Bank
timeouts          int32[P]    data.timeouts          per seat: timeouts
swaps_made        int32[P]    -                      per seat: Joker swaps made (public: who, never which
                                                     card)
"""))


def observation_fields(rules: Rules, s: Any, seat: int) -> dict[str, np.ndarray]:
    """Structured observation of ``seat`` in a reference state (``reference.RefState``, read by
    attribute: the observation does not import the reference engine; no batch axis); a key
    left out here is the state's attribute of that name (``ObservationSpec.arrays``)."""
    p = s.num_players
    me = max(seat, 0)
    mine = seat >= 0
    table = [0] * R.NUM_TYPES
    for c in s.table:
        table[c] += 1
    checker, claimant, kind, truth, taker = s.last_check
    saw_check = mine and (kind == 0 and truth == 1 or seat in (taker, claimant)
                          or (seat in rules.check_seats and kind < 2))
    if mine and seat in rules.ace_hint_seats:
        ace_where = [h[R.ACE] for h in s.hand_counts] + [
            table[R.ACE], sum(b[R.ACE] for b in s.bank),
            s.discard_seen[R.ACE] + s.discard_hidden[R.ACE]]
    else:
        ace_where = [-1] * (p + 3)
    swaps_left = (rules.joker_swaps - s.swaps_used[me]) if seat in rules.joker_swap_seats else 0
    return SPEC.arrays(s, {
        "seat": seat,
        "hand": s.hand_counts[me] if mine else [0] * R.NUM_TYPES,
        "hand_sizes": [sum(h) for h in s.hand_counts],
        "claim_count": len(s.table),
        "my_table": table if mine and s.claimant == seat else [0] * R.NUM_TYPES,
        "bank_sizes": [sum(b) for b in s.bank],
        "my_bank": s.bank[me] if mine else [0] * R.NUM_TYPES,
        "discard_hidden": sum(s.discard_hidden),
        "seen_taken": s.seen_taken[me] if mine else [[0] * R.NUM_TYPES] * p,
        "last_check_cards": s.last_check_cards if saw_check else [0] * R.NUM_TYPES,
        "swaps_left": swaps_left if mine else 0,
        "ace_where": ace_where,
        "endgame_left": rules.endgame_limit - s.endgame_count if s.endgame_count >= 0 else -1,
        "my_out": s.hidden_out[me] if mine else [0] * R.NUM_TYPES,
        "known_in_hand": s.known[me] if mine else [[0] * R.NUM_TYPES] * p,
        "claims_checked": s.claim_checks,
        "swaps_made": s.swaps_used,
    })


def sizes(rules: Rules) -> dict[str, int]:
    """The named sizes of the tables: P seats, T card types, N announceable ranks, W = P + 3
    places of the aces."""
    p = rules.num_players
    return {"P": p, "T": R.NUM_TYPES, "N": R.ANNOUNCEABLE, "W": p + 3}


def _ace_where(c: Context) -> np.ndarray:
    """float32[B, W]: ``ace_where`` with its hands in relative seat order, then table, Bank, out."""
    p = c.sizes["P"]
    ace = c.obs["ace_where"].astype(np.int64)
    return np.concatenate([c.seats(ace[:, :p]), ace[:, p:]], axis=1).astype(np.float32)


BLOCKS = blocks("""
phase             4    onehot                       one-hot phase: announce, put, respond, over
hand              T    copy                         my cards per type
hand_sizes        P    seats                        cards in hand per relative seat
out               P    seats                        1 if the relative seat has finished
opener            P    seat                         one-hot relative seat of the opener
claimant          P    seat                         one-hot relative seat of the claimant
claim_rank        N    onehot                       one-hot announced rank
claim_count       1    copy                         cards in the claim
put_count         1    copy                         cards put this turn
my_table          T    copy                         my cards in the claim
bank_sizes        P    seats                        Bank cards per relative owner
my_bank           T    copy                         my Bank cards
closed            N    copy                         1 if the rank is closed
discard_seen      T    copy                         cards out face up per type
discard_hidden    1    copy                         cards out unseen
taken             P    seats                        cards picked up per relative seat
seen_taken        P,T  seats                        [seat][type] cards I saw go into that seat's hand
last_check_kind   3    onehot last_check[2]         one-hot kind of the last check: believe, disbelieve,
                                                    timeout
last_check_truth  1    copy last_check[3] equals=1  1 if the last checked claim was true
last_check_cards  T    copy                         the last checked claim's cards, if I saw them
swaps_left        1    copy                         Joker swaps left
ace_where         W    custom ace_where_block       aces per relative hand, table, Bank, out (4-Aces gadget;
                                                    -1 without)
endgame_left      1    copy                         decisions left in the two-player endgame (-1 before)
num_rounds        1    copy                         checks so far
last_checker      P    seat last_check[0]           one-hot relative seat of the last checker (zeros: none /
                                                    timeout)
last_claimant     P    seat last_check[1]           one-hot relative seat whose claim was last checked (or
                                                    timed out on)
last_taker        P    seat last_check[4]           one-hot relative seat that took at the last check (zeros:
                                                    none)
my_out            T    copy                         my own cards gone out of the game unseen by the others
known_in_hand     P,T  seats                        [seat][type] cards I know that seat holds now (lower
                                                    bound)
claims            P,2  seats                        [seat][opened, added] claims made per relative seat
cards_claimed     P    seats                        cards put under a claim per relative seat
claims_checked    P,2  seats                        [seat][false, true] checked claims per relative claimant
checks            P,4  seats                        [seat][believe right, believe wrong, disbelieve right,
                                                    disbelieve wrong]
pickups           P    seats                        times each relative seat took table + Bank
timeouts          P    seats                        timeouts per relative seat
swaps_made        P    seats                        Joker swaps made per relative seat
""", custom={"ace_where_block": _ace_where})

SPEC = ObservationSpec(FIELDS, BLOCKS, sizes)
# OBS_KEYS, tensor_layout(rules) (the index / meaning table), tensor_size(rules) (its width D),
# to_tensor(rules, obs) (float32[B, D]), and the field table in this docstring
SPEC.publish(globals())
