"""What one ``legumes`` seat may see: a structured information set and a flat float32 tensor.

Structured observation (batch-first in ``LegumesGame.observe``; the reference
engine returns the same keys without the batch axis).  ``P`` seats, ``T = 22``
card types, ``V = 6`` vegetables.

| key                | dtype / shape | meaning                                                 |
|--------------------|---------------|---------------------------------------------------------|
| `seat`             | int8          | observing seat (current player; -1 once over)          |
| `phase`            | int8          | 0 open a round, 1 play or accuse, 2 over                |
| `hand`             | int8[T]       | my cards by type                                        |
| `hand_sizes`       | int16[P]      | cards in hand per seat                                  |
| `called`           | int8          | the called vegetable (-1 before the opening)            |
| `direction`        | int8          | +1 clockwise, -1 reversed                               |
| `face_down_count`  | int16         | face-down cards this round                              |
| `last_owner`       | int8          | who played the last face-down card (-1 none)            |
| `last_called`      | int8          | vegetable called when that card was played (-1 none)    |
| `my_face_down`     | int8[T]       | my face-down cards this round                           |
| `face_up`          | int8[T]       | action cards played face up this round                  |
| `after_reverse`    | bool          | the last move was a Reverse (no accusation now)         |
| `discard_size`     | int16         | cards in the discard pile                               |
| `discard_revealed` | int8[T]       | discard cards known to all (revealed or face up)        |
| `draw_size`        | int16         | cards left in the draw pile                             |
| `reshuffles`       | int8          | times the draw pile ran out                             |
| `revealed_total`   | int32[T]      | every card revealed by an accusation so far             |
| `last_reveal`      | int16[6]      | accuser, accused, card, doubled, taker, cards taken     |
| `pending`          | int8          | seat whose last card lies face down: accuse or accept (-1) |
| `num_rounds`       | int32         | accusations (rounds) so far                             |
| `my_discard`       | int8[T]       | my own face-down cards now in the discard pile (unrevealed) |
| `reshuffled_known` | int8[T]       | discard cards I knew of when it became the draw pile     |
| `fd_claims`        | int16[P,V]    | face-down cards this round per owner and called vegetable |
| `taken_known`      | int32[P,T]    | known cards a Bomb put in each seat's hand (cumulative)  |
| `accused_tally`    | int32[P,3]    | accusations against each seat: true, lie, bomb           |
| `accuser_tally`    | int32[P,3]    | accusations made by each seat, by what was revealed       |
| `shown_tally`      | int32[P,4]    | action cards each seat showed (face up or revealed), by kind |
| `drawn_tally`      | int32[P]      | cards each seat drew from the draw pile                   |
| `bomb_taken`       | int32[P]      | cards each seat took with a Bomb                          |

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

from typing import TYPE_CHECKING

import numpy as np

from bluffsim.games.encoding import Relative, layout, layout_size, one_hot
from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.rules import Rules

if TYPE_CHECKING:
    from bluffsim.games.legumes.reference import RefState


def observation_fields(rules: Rules, s: RefState, seat: int) -> dict[str, np.ndarray]:
    """Structured observation of ``seat`` in a reference state (no batch axis)."""
    i8, i16 = np.int8, np.int16
    mine = seat >= 0
    my_fd = [0] * R.NUM_TYPES
    for owner, card, _ in s.face_down:
        if owner == seat:
            my_fd[card] += 1
    last = s.face_down[-1] if s.face_down else (-1, -1, -1)
    claims = [[0] * R.NUM_VEG for _ in range(rules.num_players)]
    for owner, _, called in s.face_down:
        claims[owner][called] += 1
    i32 = np.int32
    return {
        "seat": np.asarray(seat, i8),
        "phase": np.asarray(s.phase, i8),
        "hand": np.asarray(s.hand_counts[seat] if mine else [0] * R.NUM_TYPES, i8),
        "hand_sizes": np.asarray([sum(h) for h in s.hand_counts], i16),
        "called": np.asarray(s.called, i8),
        "direction": np.asarray(s.direction, i8),
        "face_down_count": np.asarray(len(s.face_down), i16),
        "last_owner": np.asarray(last[0], i8),
        "last_called": np.asarray(last[2], i8),
        "my_face_down": np.asarray(my_fd, i8),
        "face_up": np.asarray(s.face_up, i8),
        "after_reverse": np.asarray(s.after_reverse, bool),
        "discard_size": np.asarray(sum(s.discard), i16),
        "discard_revealed": np.asarray(s.discard_revealed, i8),
        "draw_size": np.asarray(len(s.draw) - s.draw_ptr, i16),
        "reshuffles": np.asarray(s.reshuffles, i8),
        "revealed_total": np.asarray(s.revealed_total, i32),
        "last_reveal": np.asarray(s.last_reveal, i16),
        "pending": np.asarray(s.pending, i8),
        "num_rounds": np.asarray(s.num_rounds, np.int32),
        "my_discard": np.asarray(s.my_discard[seat] if mine else [0] * R.NUM_TYPES, i8),
        "reshuffled_known": np.asarray(s.reshuffled_known[seat] if mine else [0] * R.NUM_TYPES,
                                       i8),
        "fd_claims": np.asarray(claims, i16),
        "taken_known": np.asarray(s.taken_known[seat] if mine
                                  else [[0] * R.NUM_TYPES] * rules.num_players, i32),
        "accused_tally": np.asarray(s.accused_tally, i32),
        "accuser_tally": np.asarray(s.accuser_tally, i32),
        "shown_tally": np.asarray(s.shown_tally, i32),
        "drawn_tally": np.asarray(s.drawn_tally, i32),
        "bomb_taken": np.asarray(s.bomb_taken, i32),
    }


def tensor_layout(rules: Rules) -> list[tuple[str, int, int, str]]:
    """Index / meaning table of the flat tensor: (name, first index, width, meaning)."""
    p, t, v = rules.num_players, R.NUM_TYPES, R.NUM_VEG
    blocks = [
        ("phase", 3, "one-hot phase: open, play, over"),
        ("hand", t, "my cards per type"),
        ("hand_sizes", p, "cards in hand per relative seat"),
        ("called", v, "one-hot called vegetable"),
        ("direction", 1, "+1 clockwise, -1 reversed"),
        ("face_down_count", 1, "face-down cards this round"),
        ("last_owner", p, "one-hot relative seat of the last face-down card"),
        ("last_called", v, "one-hot vegetable called when it was played"),
        ("my_face_down", t, "my face-down cards this round"),
        ("face_up", t, "face-up action cards this round"),
        ("after_reverse", 1, "1 if no accusation is allowed now"),
        ("discard_size", 1, "cards in the discard pile"),
        ("discard_revealed", t, "known discard cards per type"),
        ("draw_size", 1, "cards in the draw pile"),
        ("reshuffles", 1, "times the draw pile ran out"),
        ("revealed_total", t, "cards revealed so far per type"),
        ("pending", p, "one-hot relative seat whose last card lies face down (accuse or accept)"),
        ("num_rounds", 1, "accusations so far"),
        ("my_discard", t, "my own unrevealed face-down cards in the discard pile per type"),
        ("reshuffled_known", t, "discard cards I knew of when it was reshuffled, per type"),
        ("fd_claims", p * v, "face-down cards this round: relative owner x called vegetable"),
        ("taken_known", p * t, "known cards a Bomb put in each hand: relative seat x type"),
        ("accused_tally", p * 3, "accusations suffered: relative seat x (true, lie, bomb)"),
        ("accuser_tally", p * 3, "accusations made: relative seat x (true, lie, bomb) revealed"),
        ("shown_tally", p * 4, "action cards shown: relative seat x (bomb, choice, reverse, double)"),
        ("drawn_tally", p, "cards drawn from the pile per relative seat"),
        ("bomb_taken", p, "cards taken with a Bomb per relative seat"),
    ]
    return layout(blocks)


def tensor_size(rules: Rules) -> int:
    """Width D of the flat observation tensor."""
    return layout_size(tensor_layout(rules))


def to_tensor(rules: Rules, obs: dict[str, np.ndarray]) -> np.ndarray:
    """Flatten a batch of structured observations to float32[B, D] (see ``tensor_layout``)."""
    rel_ = Relative(obs["seat"], rules.num_players)
    rel_seat = rel_.seat_one_hot

    def col(name: str) -> np.ndarray:
        return obs[name].astype(np.float32)[:, None]

    parts = [
        one_hot(obs["phase"].astype(np.int64), 3), obs["hand"].astype(np.float32),
        rel_.blocks(obs["hand_sizes"]),
        one_hot(obs["called"].astype(np.int64), R.NUM_VEG), col("direction"),
        col("face_down_count"), rel_seat(obs["last_owner"]),
        one_hot(obs["last_called"].astype(np.int64), R.NUM_VEG),
        obs["my_face_down"].astype(np.float32), obs["face_up"].astype(np.float32),
        col("after_reverse"), col("discard_size"), obs["discard_revealed"].astype(np.float32),
        col("draw_size"), col("reshuffles"), obs["revealed_total"].astype(np.float32),
        rel_seat(obs["pending"]), col("num_rounds"),
        obs["my_discard"].astype(np.float32), obs["reshuffled_known"].astype(np.float32),
        rel_.blocks(obs["fd_claims"]), rel_.blocks(obs["taken_known"]),
        rel_.blocks(obs["accused_tally"]), rel_.blocks(obs["accuser_tally"]),
        rel_.blocks(obs["shown_tally"]), rel_.blocks(obs["drawn_tally"]),
        rel_.blocks(obs["bomb_taken"]),
    ]
    return np.concatenate(parts, axis=1)
