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
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.rules import Rules

FIELDS = (
    SEAT,
    Field("phase", "int8", (), "0 announce, 1 putting cards, 2 respond, 3 over", "hot.phase"),
    Field("hand", "int8", ("T",), "my cards by type", "data.hands[seat]"),
    Field("hand_sizes", "int8", ("P",), "cards in hand per seat", "data.hand_sizes"),
    Field("out", "bool", ("P",), "seat has finished", "data.out"),
    Field("place", "int8", ("P",), "place of a finished seat (0 while playing)", "data.place"),
    Field("opener", "int8", (), "this round's opener", "data.opener"),
    Field("claimant", "int8", (), "seat whose claim is on the table (-1 none)", "data.claimant"),
    Field("claim_rank", "int8", (), "announced rank of the round (-1 none)", "data.claim_rank"),
    Field("claim_count", "int8", (), "cards in the claim on the table", "data.table_n"),
    Field("put_count", "int8", (), "cards put so far in the current turn", "data.put_count"),
    Field("my_table", "int8", ("T",), "my cards in the claim on the table"),
    Field("bank_sizes", "int8", ("P",), "cards in the Bank per owner"),
    Field("my_bank", "int8", ("T",), "my cards in the Bank", "data.bank[seat]"),
    Field("closed", "bool", ("N",), "closed ranks", "data.closed"),
    Field("discard_seen", "int8", ("T",),
          "cards out of the game face up (closed quads, believed claims)",
          "data.discard_seen"),
    Field("discard_hidden", "int8", (),
          "cards out unseen (Bank after a true \"believe\", swapped cards)"),
    Field("taken", "int32", ("P",), "cards each seat has picked up so far", "data.taken"),
    Field("seen_taken", "int32", ("P", "T"),
          "cards I saw go into each seat's hand, cumulative (incl. mine)",
          "data.seen_taken[seat]"),
    Field("last_check", "int8", (5,),
          "checker, claimant, kind (believe, disbelieve, timeout), truth, taker",
          "data.last_check"),
    Field("last_check_cards", "int8", ("T",), "the last checked claim, if I saw it (else zeros)"),
    Field("swaps_left", "int8", (), "my Joker-gadget uses left (0 without the gadget)"),
    Field("ace_where", "int8", ("W",),
          "4-Aces gadget: aces per hand, table, Bank, out; -1 without"),
    Field("endgame_left", "int32", (),
          "decisions left before both last players lose (-1 before two are left)"),
    Field("num_rounds", "int32", (), "checks (rounds) so far", "hot.num_rounds"),
    Field("my_out", "int8", ("T",),
          "my cards gone out unseen by others (Bank, swaps)",
          "data.hidden_out[seat]"),
    Field("known_in_hand", "int8", ("P", "T"),
          "cards I know each other seat holds now (lower bound; my row 0)",
          "data.known[seat]"),
    Field("claims", "int32", ("P", 2),
          "per seat: rounds opened, claims added to a running round",
          "data.claims"),
    Field("cards_claimed", "int32", ("P",),
          "per seat: cards put face down under a claim",
          "data.cards_claimed"),
    Field("claims_checked", "int32", ("P", 2),
          "per claimant: checked claims found false, true",
          "data.claim_checks"),
    Field("checks", "int32", ("P", 4),
          "per checker: believe right / wrong, disbelieve right / wrong",
          "data.checks"),
    Field("pickups", "int32", ("P",),
          "per seat: times they took the table and the Bank",
          "data.pickups"),
    Field("timeouts", "int32", ("P",), "per seat: timeouts", "data.timeouts"),
    Field("swaps_made", "int32", ("P",),
          "per seat: Joker swaps made (public: who, never which card)"),
)


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


BLOCKS = (
    Block("phase", (4,), "one-hot phase: announce, put, respond, over", OneHot("phase")),
    Block("hand", ("T",), "my cards per type", Copy("hand")),
    Block("hand_sizes", ("P",), "cards in hand per relative seat", Seats("hand_sizes")),
    Block("out", ("P",), "1 if the relative seat has finished", Seats("out")),
    Block("opener", ("P",), "one-hot relative seat of the opener", Seat("opener")),
    Block("claimant", ("P",), "one-hot relative seat of the claimant", Seat("claimant")),
    Block("claim_rank", ("N",), "one-hot announced rank", OneHot("claim_rank")),
    Block("claim_count", (1,), "cards in the claim", Copy("claim_count")),
    Block("put_count", (1,), "cards put this turn", Copy("put_count")),
    Block("my_table", ("T",), "my cards in the claim", Copy("my_table")),
    Block("bank_sizes", ("P",), "Bank cards per relative owner", Seats("bank_sizes")),
    Block("my_bank", ("T",), "my Bank cards", Copy("my_bank")),
    Block("closed", ("N",), "1 if the rank is closed", Copy("closed")),
    Block("discard_seen", ("T",), "cards out face up per type", Copy("discard_seen")),
    Block("discard_hidden", (1,), "cards out unseen", Copy("discard_hidden")),
    Block("taken", ("P",), "cards picked up per relative seat", Seats("taken")),
    Block("seen_taken", ("P", "T"),
          "[seat][type] cards I saw go into that seat's hand",
          Seats("seen_taken")),
    Block("last_check_kind", (3,),
          "one-hot kind of the last check: believe, disbelieve, timeout",
          OneHot("last_check", col=2)),
    Block("last_check_truth", (1,),
          "1 if the last checked claim was true",
          Copy("last_check", col=3, equals=1)),
    Block("last_check_cards", ("T",),
          "the last checked claim's cards, if I saw them",
          Copy("last_check_cards")),
    Block("swaps_left", (1,), "Joker swaps left", Copy("swaps_left")),
    Block("ace_where", ("W",),
          "aces per relative hand, table, Bank, out (4-Aces gadget; -1 without)",
          Custom(_ace_where, "ace_where_block")),
    Block("endgame_left", (1,),
          "decisions left in the two-player endgame (-1 before)",
          Copy("endgame_left")),
    Block("num_rounds", (1,), "checks so far", Copy("num_rounds")),
    Block("last_checker", ("P",),
          "one-hot relative seat of the last checker (zeros: none / timeout)",
          Seat("last_check", col=0)),
    Block("last_claimant", ("P",),
          "one-hot relative seat whose claim was last checked (or timed out on)",
          Seat("last_check", col=1)),
    Block("last_taker", ("P",),
          "one-hot relative seat that took at the last check (zeros: none)",
          Seat("last_check", col=4)),
    Block("my_out", ("T",),
          "my own cards gone out of the game unseen by the others",
          Copy("my_out")),
    Block("known_in_hand", ("P", "T"),
          "[seat][type] cards I know that seat holds now (lower bound)",
          Seats("known_in_hand")),
    Block("claims", ("P", 2),
          "[seat][opened, added] claims made per relative seat",
          Seats("claims")),
    Block("cards_claimed", ("P",),
          "cards put under a claim per relative seat",
          Seats("cards_claimed")),
    Block("claims_checked", ("P", 2),
          "[seat][false, true] checked claims per relative claimant",
          Seats("claims_checked")),
    Block("checks", ("P", 4),
          "[seat][believe right, believe wrong, disbelieve right, disbelieve wrong]",
          Seats("checks")),
    Block("pickups", ("P",), "times each relative seat took table + Bank", Seats("pickups")),
    Block("timeouts", ("P",), "timeouts per relative seat", Seats("timeouts")),
    Block("swaps_made", ("P",), "Joker swaps made per relative seat", Seats("swaps_made")),
)

SPEC = ObservationSpec(FIELDS, BLOCKS, sizes)
OBS_KEYS = SPEC.keys
tensor_layout = SPEC.tensor_layout    # rules -> the index / meaning table
tensor_size = SPEC.tensor_size        # rules -> the tensor's width D
to_tensor = SPEC.to_tensor            # (rules, obs) -> float32[B, D]
__doc__ = SPEC.document(__doc__)      # the field table in place of {fields}
