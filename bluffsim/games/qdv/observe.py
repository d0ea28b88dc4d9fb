"""What one ``qdv`` seat may see: a structured information set and a flat float32 tensor.

Structured observation (``QdvGame.observe``; batch-first ``[B, ...]``; the
reference engine returns the same keys without the batch axis).  ``P`` seats,
``K = 19`` card kinds, ``F = 6`` fruits, ``E = 6`` challenge effects, ``H`` =
``rules.history_len``.  Seats are absolute (clockwise numbering).

| key               | dtype / shape | meaning                                                         |
|-------------------|---------------|-----------------------------------------------------------------|
| `seat`            | int8          | the observing seat (the current player; -1 once over)          |
| `phase`           | int8          | 0 start choice, 1 bidding, 2 salad declarations, 3 reward, 4 over |
| `hand`            | int8[K]       | my cards in hand by kind (discarded cards excluded)             |
| `hand_sizes`      | int8[P]       | cards in hand per seat                                          |
| `tokens`          | int32[P]      | tokens per seat                                                 |
| `in_round`        | bool[P]       | seat still plays this round (False once eliminated, at once)    |
| `dealer`          | int8          | dealer seat                                                     |
| `direction`       | int8          | +1 clockwise, -1 after an odd number of `reverse` challenges     |
| `centre`          | int8          | kind of the face-up centre card                                 |
| `start`           | int8          | start fruit of the circle (-1 while the dealer chooses)         |
| `bid_count`       | int8          | count of the standing bid (the centre card's before any bid)    |
| `bid_fruit`       | int8          | fruit of the standing bid = position marker (-1 while choosing) |
| `bidder`          | int8          | seat of the standing bid (-1: the initial bid)                  |
| `num_bids`        | int8          | bids made this round                                            |
| `bid_history`     | int8[H, 3]    | this round's bids in order: (seat, count, fruit); -1 padding    |
| `revealed`        | int8[P, K]    | face-up cards still in hand (`reveal` challenges)               |
| `discarded`       | int8[P, K]    | face-up discarded cards (`discard` challenges)                  |
| `drawn`           | int8[P]       | cards drawn secretly this round (`draw` challenges)             |
| `challenges`      | int8[E]       | challenge cards turned this round, per effect                   |
| `challenge_left`  | int8          | challenge cards left in the deck                                |
| `undealt_left`    | int8          | fruit cards left in the undealt deck                            |
| `call`            | int8          | this round's call: -1 none, 0 vrai, 1 menteur                   |
| `caller`          | int8          | seat that called (-1 none)                                      |
| `showdown_hands`  | int8[P, K]    | hands shown at the most recent showdown (this round's if under way) |
| `declared`        | int8[P]       | salads declared at that showdown (-1 none)                      |
| `showdown_count`  | int8          | the called fruit's count so far at that showdown (-1 none)      |
| `num_rounds`      | int32         | rounds completed                                                |
| `last_round`      | int16[10]     | the last showdown, in `rules.LAST_ROUND` order (below); -1 none |
| `last_bid_history`| int8[H, 3]    | that showdown's round's bids (seat, count, fruit); -1 padding   |
| `bid_tally`       | int32[P, 5]   | per seat, bids of rounds that reached a showdown (below)        |
| `call_tally`      | int32[P, 4]   | per seat, calls made: vrai right/wrong, menteur right/wrong     |
| `called_tally`    | int32[P, 4]   | per seat, calls against their bid, same columns                 |
| `token_tally`     | int32[P, 5]   | per seat, tokens lost and gained, punish given (below)          |

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
``python -m bluffsim.games.qdv.observe``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bluffsim.games.encoding import Relative, layout, layout_size, one_hot
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.rules import Rules

if TYPE_CHECKING:
    from bluffsim.games.qdv.reference import RefState

OBS_KEYS = (
    "seat", "phase", "hand", "hand_sizes", "tokens", "in_round", "dealer", "direction",
    "centre", "start", "bid_count", "bid_fruit", "bidder", "num_bids", "bid_history",
    "revealed", "discarded", "drawn", "challenges", "challenge_left", "undealt_left",
    "call", "caller", "showdown_hands", "declared", "showdown_count", "num_rounds",
    "last_round", "last_bid_history", "bid_tally", "call_tally", "called_tally", "token_tally",
)


def observation_fields(rules: Rules, s: RefState, seat: int) -> dict[str, np.ndarray]:
    """Structured observation of ``seat`` in a reference state (no batch axis)."""
    i8 = np.int8
    hist = bid_array(rules, s.bid_history)
    hand = (np.asarray(s.hand_counts[seat], dtype=i8) if seat >= 0
            else np.zeros(R.NUM_KINDS, dtype=i8))
    return {
        "seat": np.asarray(seat, dtype=i8),
        "phase": np.asarray(s.phase, dtype=i8),
        "hand": hand,
        "hand_sizes": np.asarray([sum(h) for h in s.hand_counts], dtype=i8),
        "tokens": np.asarray(s.tokens, dtype=np.int32),
        "in_round": np.asarray(s.in_round, dtype=bool),
        "dealer": np.asarray(s.dealer, dtype=i8),
        "direction": np.asarray(s.direction, dtype=i8),
        "centre": np.asarray(s.centre, dtype=i8),
        "start": np.asarray(s.start, dtype=i8),
        "bid_count": np.asarray(s.bid_count, dtype=i8),
        "bid_fruit": np.asarray(s.bid_fruit, dtype=i8),
        "bidder": np.asarray(s.bidder, dtype=i8),
        "num_bids": np.asarray(len(s.bid_history), dtype=i8),
        "bid_history": hist,
        "revealed": np.asarray(s.revealed, dtype=i8),
        "discarded": np.asarray(s.discarded, dtype=i8),
        "drawn": np.asarray(s.drawn, dtype=i8),
        "challenges": np.asarray(s.challenges, dtype=i8),
        "challenge_left": np.asarray(len(s.chal_deck) - s.chal_ptr, dtype=i8),
        "undealt_left": np.asarray(len(s.deck) - s.deck_ptr, dtype=i8),
        "call": np.asarray(s.call, dtype=i8),
        "caller": np.asarray(s.caller, dtype=i8),
        "showdown_hands": np.asarray(s.showdown_hands, dtype=i8),
        "declared": np.asarray(s.declared, dtype=i8),
        "showdown_count": np.asarray(s.showdown_count, dtype=i8),
        "num_rounds": np.asarray(s.num_rounds, dtype=np.int32),
        "last_round": np.asarray([s.last_round.get(k, -1) for k in R.LAST_ROUND], dtype=np.int16),
        "last_bid_history": bid_array(rules, s.last_bid_history),
        "bid_tally": np.asarray(s.bid_tally, dtype=np.int32),
        "call_tally": np.asarray(s.call_tally, dtype=np.int32),
        "called_tally": np.asarray(s.called_tally, dtype=np.int32),
        "token_tally": np.asarray(s.token_tally, dtype=np.int32),
    }


def bid_array(rules: Rules, bids: list[tuple[int, int, int]]) -> np.ndarray:
    """int8[H, 3]: a round's bids (seat, count, fruit) in order, -1 padding."""
    hist = np.full((rules.history_len, 3), -1, dtype=np.int8)
    for i, bid in enumerate(bids):
        hist[i] = bid
    return hist


def tensor_layout(rules: Rules) -> list[tuple[str, int, int, str]]:
    """Index / meaning table of the flat tensor: (name, first index, width, meaning)."""
    p, k, f, e = rules.num_players, R.NUM_KINDS, R.NUM_FRUITS, R.NUM_EFFECTS
    blocks = [
        ("phase", 5, "one-hot phase: start, bid, salads, reward, over"),
        ("hand", k, "my cards per kind"),
        ("hand_sizes", p, "cards in hand per relative seat"),
        ("tokens", p, "tokens per relative seat"),
        ("in_round", p, "1 if the relative seat plays this round"),
        ("dealer", p, "one-hot relative seat of the dealer"),
        ("direction", 1, "+1 clockwise, -1 reversed"),
        ("centre", k, "one-hot kind of the centre card"),
        ("start", f, "one-hot start fruit (zeros while the dealer chooses)"),
        ("bid_count", 1, "count of the standing bid"),
        ("bid_fruit", f, "one-hot fruit of the standing bid"),
        ("bidder", p, "one-hot relative seat of the standing bid (zeros: initial bid)"),
        ("num_bids", 1, "bids this round"),
        ("bid_table", p * f, "[seat][fruit] highest count that seat bid on that fruit this round"),
        ("revealed", p * k, "[seat][kind] face-up cards in hand"),
        ("discarded", p * k, "[seat][kind] discarded face-up cards"),
        ("drawn", p, "cards drawn secretly this round per relative seat"),
        ("challenges", e, "challenge cards turned this round per effect"),
        ("challenge_left", 1, "challenge cards left"),
        ("undealt_left", 1, "undealt fruit cards left"),
        ("call", 2, "one-hot call of this round: vrai, menteur"),
        ("caller", p, "one-hot relative seat of the caller"),
        ("showdown_hands", p * k, "[seat][kind] hands at the most recent showdown"),
        ("declared", p, "salads declared at that showdown + 1 (0 = none)"),
        ("showdown_count", 1, "called fruit's count at that showdown (0 if none)"),
        ("num_rounds", 1, "rounds completed"),
        ("last_call", 2, "one-hot call at the last showdown: vrai, menteur"),
        ("last_caller", p, "one-hot relative seat of its caller"),
        ("last_bidder", p, "one-hot relative seat of its bidder (zeros: the initial bid)"),
        ("last_bid_count", 1, "its bid's count (0 if none)"),
        ("last_bid_fruit", f, "one-hot fruit of its bid"),
        ("last_true_count", 1, "its count, declared salads included (0 if none)"),
        ("last_loser", p, "one-hot relative seat that lost tokens there (or was punished)"),
        ("last_amount", 1, "tokens due from that seat (0 if none)"),
        ("last_gainer", p, "one-hot relative seat that gained a token there"),
        ("last_centre_value", 1, "what its centre card added to the called fruit"),
        ("last_bid_table", p * f, "[seat][fruit] highest count that seat bid on that fruit in the "
                                  "last showdown's round"),
        ("bid_tally", p * R.BID_TALLY, "[seat][5] bids shown, above / equal to the card count, "
                                       "sum(bid - card count), sum of own card value"),
        ("call_tally", p * R.CALL_TALLY, "[seat][4] calls made: vrai right, vrai wrong, menteur "
                                         "right, menteur wrong"),
        ("called_tally", p * R.CALL_TALLY, "[seat][4] calls against the seat's bid, same columns"),
        ("token_tally", p * R.TOKEN_TALLY, "[seat][5] tokens lost to challenges, at showdowns, to "
                                           "punish; gained; punish rewards given"),
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
    table = bid_table(obs["bid_history"], p)
    last = obs["last_round"].astype(np.int64)
    col = {name: last[:, i] for i, name in enumerate(R.LAST_ROUND)}
    call = obs["call"].astype(np.int64)
    parts = [
        one_hot(obs["phase"].astype(np.int64), 5),
        obs["hand"].astype(np.float32),
        rel(obs["hand_sizes"]),
        rel(obs["tokens"]),
        rel(obs["in_round"]),
        rel_seat(obs["dealer"]),
        obs["direction"].astype(np.float32)[:, None],
        one_hot(obs["centre"].astype(np.int64), R.NUM_KINDS),
        one_hot(obs["start"].astype(np.int64), R.NUM_FRUITS),
        obs["bid_count"].astype(np.float32)[:, None],
        one_hot(obs["bid_fruit"].astype(np.int64), R.NUM_FRUITS),
        rel_seat(obs["bidder"]),
        obs["num_bids"].astype(np.float32)[:, None],
        rel(table),
        rel(obs["revealed"]),
        rel(obs["discarded"]),
        rel(obs["drawn"]),
        obs["challenges"].astype(np.float32),
        obs["challenge_left"].astype(np.float32)[:, None],
        obs["undealt_left"].astype(np.float32)[:, None],
        one_hot(call, 2),
        rel_seat(obs["caller"]),
        rel(obs["showdown_hands"]),
        rel(obs["declared"].astype(np.int64) + 1),
        np.maximum(obs["showdown_count"], 0).astype(np.float32)[:, None],
        obs["num_rounds"].astype(np.float32)[:, None],
        one_hot(col["call"], 2),
        rel_seat(col["caller"]),
        rel_seat(col["bidder"]),
        np.maximum(col["bid_count"], 0).astype(np.float32)[:, None],
        one_hot(col["bid_fruit"], R.NUM_FRUITS),
        np.maximum(col["true_count"], 0).astype(np.float32)[:, None],
        rel_seat(col["loser"]),
        np.maximum(col["amount"], 0).astype(np.float32)[:, None],
        rel_seat(col["gainer"]),
        np.maximum(col["centre_value"], 0).astype(np.float32)[:, None],
        rel(bid_table(obs["last_bid_history"], p)),
        rel(obs["bid_tally"]),
        rel(obs["call_tally"]),
        rel(obs["called_tally"]),
        rel(obs["token_tally"]),
    ]
    return np.concatenate(parts, axis=1)


def bid_table(history: np.ndarray, num_players: int) -> np.ndarray:
    """float32[B, P, F]: highest count each seat bid on each fruit in a bid history [B, H, 3]."""
    hist = history.astype(np.int64)
    table = np.zeros((hist.shape[0], num_players, R.NUM_FRUITS), dtype=np.float32)
    bi, hi = np.nonzero(hist[:, :, 0] >= 0)
    np.maximum.at(table, (bi, hist[bi, hi, 0], hist[bi, hi, 2]), hist[bi, hi, 1])
    return table


if __name__ == "__main__":  # pragma: no cover - documentation helper
    for row in tensor_layout(Rules()):
        print(f"{row[0]:<16} {row[1]:>5} {row[2]:>4}  {row[3]}")
