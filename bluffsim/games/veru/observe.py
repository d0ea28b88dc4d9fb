"""What one ``veru`` seat may see: a structured information set and a flat float32 tensor.

Structured observation (batch-first in ``VeruGame.observe``; the reference engine
returns the same keys without the batch axis).  ``P`` seats, ``T = 14`` card
types (2…A, Joker), ``N = 12`` announceable ranks.

| key                | dtype / shape | meaning                                                   |
|--------------------|---------------|-----------------------------------------------------------|
| `seat`             | int8          | observing seat (current player; -1 once over)            |
| `phase`            | int8          | 0 announce, 1 putting cards, 2 respond, 3 over            |
| `hand`             | int8[T]       | my cards by type                                          |
| `hand_sizes`       | int8[P]       | cards in hand per seat                                    |
| `out`              | bool[P]       | seat has finished                                         |
| `place`            | int8[P]       | place of a finished seat (0 while playing)                |
| `opener`           | int8          | this round's opener                                       |
| `claimant`         | int8          | seat whose claim is on the table (-1 none)                |
| `claim_rank`       | int8          | announced rank of the round (-1 none)                     |
| `claim_count`      | int8          | cards in the claim on the table                           |
| `put_count`        | int8          | cards put so far in the current turn                      |
| `my_table`         | int8[T]       | my cards in the claim on the table                        |
| `bank_sizes`       | int8[P]       | cards in the Bank per owner                               |
| `my_bank`          | int8[T]       | my cards in the Bank                                      |
| `closed`           | bool[N]       | closed ranks                                              |
| `discard_seen`     | int8[T]       | cards out of the game face up (closed quads, believed claims) |
| `discard_hidden`   | int8          | cards out unseen (Bank after a true "believe", swapped cards)  |
| `taken`            | int32[P]      | cards each seat has picked up so far                      |
| `seen_taken`       | int32[P, T]   | cards I saw go into each seat's hand, cumulative (incl. mine) |
| `last_check`       | int8[5]       | checker, claimant, kind (believe, disbelieve, timeout), truth, taker |
| `last_check_cards` | int8[T]       | the last checked claim, if I saw it (else zeros)          |
| `swaps_left`       | int8          | my Joker-gadget uses left (0 without the gadget)          |
| `ace_where`        | int8[P + 3]   | 4-Aces gadget: aces per hand, table, Bank, out; -1 without   |
| `endgame_left`     | int32         | decisions left before both last players lose (-1 before two are left) |
| `num_rounds`       | int32         | checks (rounds) so far                                    |
| `my_out`           | int8[T]       | my cards gone out unseen by others (Bank, swaps) |
| `known_in_hand`    | int8[P, T]    | cards I know each other seat holds now (lower bound; my row 0) |
| `claims`           | int32[P, 2]   | per seat: rounds opened, claims added to a running round   |
| `cards_claimed`    | int32[P]      | per seat: cards put face down under a claim                |
| `claims_checked`   | int32[P, 2]   | per claimant: checked claims found false, true             |
| `checks`           | int32[P, 4]   | per checker: believe right / wrong, disbelieve right / wrong |
| `pickups`          | int32[P]      | per seat: times they took the table and the Bank           |
| `timeouts`         | int32[P]      | per seat: timeouts                                         |
| `swaps_made`       | int32[P]      | per seat: Joker swaps made (public: who, never which card) |

Memory.  Agents are stateless, so the observation holds everything the seat
legitimately knows: its own cards wherever they went (`my_table`, `my_bank`,
`my_out`, `seen_taken` for the ones a seat took, `discard_seen` for the ones
shown to all), the cards it saw go into a hand (`seen_taken`, and
`known_in_hand` for the ones still certainly there: each card a seat puts or
swaps away lowers every type's bound by one, a closed rank sets it to 0), the
last check with all its seats (`last_check`), and public per-seat tallies of
behaviour (`claims` … `swaps_made`) for per-opponent models.

The flat tensor uses relative seats (index 0 = me); ``tensor_layout(rules)``
gives its index / meaning table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bluffsim.games.encoding import Relative, layout, layout_size, one_hot
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.rules import Rules

if TYPE_CHECKING:
    from bluffsim.games.veru.reference import RefState


def observation_fields(rules: Rules, s: RefState, seat: int) -> dict[str, np.ndarray]:
    """Structured observation of ``seat`` in a reference state (no batch axis)."""
    i8, p = np.int8, s.num_players
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
    return {
        "seat": np.asarray(seat, i8),
        "phase": np.asarray(s.phase, i8),
        "hand": np.asarray(s.hand_counts[me] if mine else [0] * R.NUM_TYPES, i8),
        "hand_sizes": np.asarray([sum(h) for h in s.hand_counts], i8),
        "out": np.asarray(s.out, bool),
        "place": np.asarray(s.place, i8),
        "opener": np.asarray(s.opener, i8),
        "claimant": np.asarray(s.claimant, i8),
        "claim_rank": np.asarray(s.claim_rank, i8),
        "claim_count": np.asarray(len(s.table), i8),
        "put_count": np.asarray(s.put_count, i8),
        "my_table": np.asarray(table if mine and s.claimant == seat else [0] * R.NUM_TYPES, i8),
        "bank_sizes": np.asarray([sum(b) for b in s.bank], i8),
        "my_bank": np.asarray(s.bank[me] if mine else [0] * R.NUM_TYPES, i8),
        "closed": np.asarray(s.closed, bool),
        "discard_seen": np.asarray(s.discard_seen, i8),
        "discard_hidden": np.asarray(sum(s.discard_hidden), i8),
        "taken": np.asarray(s.taken, np.int32),
        "seen_taken": np.asarray(s.seen_taken[me] if mine else [[0] * R.NUM_TYPES] * p,
                                 np.int32),
        "last_check": np.asarray(s.last_check, i8),
        "last_check_cards": np.asarray(s.last_check_cards if saw_check else [0] * R.NUM_TYPES,
                                       i8),
        "swaps_left": np.asarray(swaps_left if mine else 0, i8),
        "ace_where": np.asarray(ace_where, i8),
        "endgame_left": np.asarray(rules.endgame_limit - s.endgame_count
                                   if s.endgame_count >= 0 else -1, np.int32),
        "num_rounds": np.asarray(s.num_rounds, np.int32),
        "my_out": np.asarray(s.hidden_out[me] if mine else [0] * R.NUM_TYPES, i8),
        "known_in_hand": np.asarray(s.known[me] if mine else [[0] * R.NUM_TYPES] * p, i8),
        "claims": np.asarray(s.claims, np.int32),
        "cards_claimed": np.asarray(s.cards_claimed, np.int32),
        "claims_checked": np.asarray(s.claim_checks, np.int32),
        "checks": np.asarray(s.checks, np.int32),
        "pickups": np.asarray(s.pickups, np.int32),
        "timeouts": np.asarray(s.timeouts, np.int32),
        "swaps_made": np.asarray(s.swaps_used, np.int32),
    }


def tensor_layout(rules: Rules) -> list[tuple[str, int, int, str]]:
    """Index / meaning table of the flat tensor: (name, first index, width, meaning)."""
    p, t, n = rules.num_players, R.NUM_TYPES, R.ANNOUNCEABLE
    blocks = [
        ("phase", 4, "one-hot phase: announce, put, respond, over"),
        ("hand", t, "my cards per type"),
        ("hand_sizes", p, "cards in hand per relative seat"),
        ("out", p, "1 if the relative seat has finished"),
        ("opener", p, "one-hot relative seat of the opener"),
        ("claimant", p, "one-hot relative seat of the claimant"),
        ("claim_rank", n, "one-hot announced rank"),
        ("claim_count", 1, "cards in the claim"),
        ("put_count", 1, "cards put this turn"),
        ("my_table", t, "my cards in the claim"),
        ("bank_sizes", p, "Bank cards per relative owner"),
        ("my_bank", t, "my Bank cards"),
        ("closed", n, "1 if the rank is closed"),
        ("discard_seen", t, "cards out face up per type"),
        ("discard_hidden", 1, "cards out unseen"),
        ("taken", p, "cards picked up per relative seat"),
        ("seen_taken", p * t, "[seat][type] cards I saw go into that seat's hand"),
        ("last_check_kind", 3, "one-hot kind of the last check: believe, disbelieve, timeout"),
        ("last_check_truth", 1, "1 if the last checked claim was true"),
        ("last_check_cards", t, "the last checked claim's cards, if I saw them"),
        ("swaps_left", 1, "Joker swaps left"),
        ("ace_where", p + 3, "aces per relative hand, table, Bank, out (4-Aces gadget; -1 without)"),
        ("endgame_left", 1, "decisions left in the two-player endgame (-1 before)"),
        ("num_rounds", 1, "checks so far"),
        ("last_checker", p, "one-hot relative seat of the last checker (zeros: none / timeout)"),
        ("last_claimant", p, "one-hot relative seat whose claim was last checked (or timed out on)"),
        ("last_taker", p, "one-hot relative seat that took at the last check (zeros: none)"),
        ("my_out", t, "my own cards gone out of the game unseen by the others"),
        ("known_in_hand", p * t, "[seat][type] cards I know that seat holds now (lower bound)"),
        ("claims", 2 * p, "[seat][opened, added] claims made per relative seat"),
        ("cards_claimed", p, "cards put under a claim per relative seat"),
        ("claims_checked", 2 * p, "[seat][false, true] checked claims per relative claimant"),
        ("checks", 4 * p, "[seat][believe right, believe wrong, disbelieve right, disbelieve wrong]"),
        ("pickups", p, "times each relative seat took table + Bank"),
        ("timeouts", p, "timeouts per relative seat"),
        ("swaps_made", p, "Joker swaps made per relative seat"),
    ]
    return layout(blocks)


def tensor_size(rules: Rules) -> int:
    """Width D of the flat observation tensor."""
    return layout_size(tensor_layout(rules))


def to_tensor(rules: Rules, obs: dict[str, np.ndarray]) -> np.ndarray:
    """Flatten a batch of structured observations to float32[B, D] (see ``tensor_layout``)."""
    p = rules.num_players
    rel_ = Relative(obs["seat"], p)
    rel, rel_seat = rel_.blocks, rel_.seat_one_hot
    ace = obs["ace_where"].astype(np.int64)
    ace_rel = np.concatenate([rel_.blocks(ace[:, :p]), ace[:, p:]], axis=1)
    lc = obs["last_check"].astype(np.int64)
    parts = [
        one_hot(obs["phase"].astype(np.int64), 4),
        obs["hand"].astype(np.float32),
        rel(obs["hand_sizes"]), rel(obs["out"]),
        rel_seat(obs["opener"]), rel_seat(obs["claimant"]),
        one_hot(obs["claim_rank"].astype(np.int64), R.ANNOUNCEABLE),
        obs["claim_count"].astype(np.float32)[:, None],
        obs["put_count"].astype(np.float32)[:, None],
        obs["my_table"].astype(np.float32),
        rel(obs["bank_sizes"]), obs["my_bank"].astype(np.float32),
        obs["closed"].astype(np.float32), obs["discard_seen"].astype(np.float32),
        obs["discard_hidden"].astype(np.float32)[:, None],
        rel(obs["taken"]), rel(obs["seen_taken"]),
        one_hot(lc[:, 2], 3), (lc[:, 3] == 1).astype(np.float32)[:, None],
        obs["last_check_cards"].astype(np.float32),
        obs["swaps_left"].astype(np.float32)[:, None],
        ace_rel.astype(np.float32),
        obs["endgame_left"].astype(np.float32)[:, None],
        obs["num_rounds"].astype(np.float32)[:, None],
        rel_seat(lc[:, 0]), rel_seat(lc[:, 1]), rel_seat(lc[:, 4]),
        obs["my_out"].astype(np.float32), rel(obs["known_in_hand"]),
        rel(obs["claims"]), rel(obs["cards_claimed"]), rel(obs["claims_checked"]),
        rel(obs["checks"]), rel(obs["pickups"]), rel(obs["timeouts"]), rel(obs["swaps_made"]),
    ]
    return np.concatenate(parts, axis=1)
