"""What one ``legumes`` seat may see: a structured information set and a flat float32 tensor.

Structured observation (batch-first in ``LegumesGame.observe``; the reference
engine returns the same keys without the batch axis).  ``P`` seats, ``T = 22``
card types, ``V = 6`` vegetables.

{fields}

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

from typing import Any

import numpy as np

from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.rules import Rules
from bluffsim.games.obsspec import SEAT, ObservationSpec, blocks, fields

FIELDS = (SEAT, *fields("""
phase             int8        hot.phase                    0 open a round, 1 play or accuse, 2 over
hand              int8[T]     data.hands[seat]             my cards by type
hand_sizes        int16[P]    data.hand_sizes              cards in hand per seat
called            int8        data.called                  the called vegetable (-1 before the opening)
direction         int8        data.direction               +1 clockwise, -1 reversed
face_down_count   int16       data.fd_count                face-down cards this round
last_owner        int8        data.last_owner              who played the last face-down card (-1 none)
last_called       int8        data.last_called             vegetable called when that card was played (-1
                                                           none)
my_face_down      int8[T]     data.fd_by_owner[seat]       my face-down cards this round
face_up           int8[T]     data.face_up                 action cards played face up this round
after_reverse     bool        data.after_reverse           the last move was a Reverse (no accusation now)
discard_size      int16       -                            cards in the discard pile
discard_revealed  int8[T]     data.discard_revealed        discard cards known to all (revealed or face up)
draw_size         int16       -                            cards left in the draw pile
reshuffles        int8        data.reshuffles              times the draw pile ran out
revealed_total    int32[T]    data.revealed_total          every card revealed by an accusation so far
last_reveal       int16[6]    data.last_reveal             accuser, accused, card, doubled, taker, cards
                                                           taken
pending           int8        data.pending                 seat whose last card lies face down: accuse or
                                                           accept (-1)
num_rounds        int32       hot.num_rounds               accusations (rounds) so far
my_discard        int8[T]     data.my_discard[seat]        my own face-down cards now in the discard pile
                                                           (unrevealed)
reshuffled_known  int8[T]     data.reshuffled_known[seat]  discard cards I knew of when it became the draw
                                                           pile
fd_claims         int16[P,V]  data.fd_claims               face-down cards this round per owner and called
                                                           vegetable
taken_known       int32[P,T]  data.taken_known[seat]       known cards a Bomb put in each seat's hand
                                                           (cumulative)
accused_tally     int32[P,3]  data.accused_tally           accusations against each seat: true, lie, bomb
accuser_tally     int32[P,3]  data.accuser_tally           accusations made by each seat, by what was
                                                           revealed
shown_tally       int32[P,4]  data.shown_tally             action cards each seat showed (face up or
                                                           revealed), by kind
drawn_tally       int32[P]    data.drawn_tally             cards each seat drew from the draw pile
bomb_taken        int32[P]    data.bomb_taken              cards each seat took with a Bomb
"""))


def observation_fields(rules: Rules, s: Any, seat: int) -> dict[str, np.ndarray]:
    """Structured observation of ``seat`` in a reference state (``reference.RefState``, read by
    attribute: the observation does not import the reference engine; no batch axis); a key
    left out here is the state's attribute of that name (``ObservationSpec.arrays``)."""
    mine = seat >= 0
    my_fd = [0] * R.NUM_TYPES
    for owner, card, _ in s.face_down:
        if owner == seat:
            my_fd[card] += 1
    last = s.face_down[-1] if s.face_down else (-1, -1, -1)
    claims = [[0] * R.NUM_VEG for _ in range(rules.num_players)]
    for owner, _, called in s.face_down:
        claims[owner][called] += 1
    return SPEC.arrays(s, {
        "seat": seat,
        "hand": s.hand_counts[seat] if mine else [0] * R.NUM_TYPES,
        "hand_sizes": [sum(h) for h in s.hand_counts],
        "face_down_count": len(s.face_down),
        "last_owner": last[0],
        "last_called": last[2],
        "my_face_down": my_fd,
        "discard_size": sum(s.discard),
        "draw_size": len(s.draw) - s.draw_ptr,
        "my_discard": s.my_discard[seat] if mine else [0] * R.NUM_TYPES,
        "reshuffled_known": s.reshuffled_known[seat] if mine else [0] * R.NUM_TYPES,
        "fd_claims": claims,
        "taken_known": s.taken_known[seat] if mine
                                  else [[0] * R.NUM_TYPES] * rules.num_players,
    })


def sizes(rules: Rules) -> dict[str, int]:
    """The named sizes of the tables: P seats, T card types, V vegetables."""
    return {"P": rules.num_players, "T": R.NUM_TYPES, "V": R.NUM_VEG}


BLOCKS = blocks("""
phase             3    onehot  one-hot phase: open, play, over
hand              T    copy    my cards per type
hand_sizes        P    seats   cards in hand per relative seat
called            V    onehot  one-hot called vegetable
direction         1    copy    +1 clockwise, -1 reversed
face_down_count   1    copy    face-down cards this round
last_owner        P    seat    one-hot relative seat of the last face-down card
last_called       V    onehot  one-hot vegetable called when it was played
my_face_down      T    copy    my face-down cards this round
face_up           T    copy    face-up action cards this round
after_reverse     1    copy    1 if no accusation is allowed now
discard_size      1    copy    cards in the discard pile
discard_revealed  T    copy    known discard cards per type
draw_size         1    copy    cards in the draw pile
reshuffles        1    copy    times the draw pile ran out
revealed_total    T    copy    cards revealed so far per type
pending           P    seat    one-hot relative seat whose last card lies face down (accuse or accept)
num_rounds        1    copy    accusations so far
my_discard        T    copy    my own unrevealed face-down cards in the discard pile per type
reshuffled_known  T    copy    discard cards I knew of when it was reshuffled, per type
fd_claims         P,V  seats   face-down cards this round: relative owner x called vegetable
taken_known       P,T  seats   known cards a Bomb put in each hand: relative seat x type
accused_tally     P,3  seats   accusations suffered: relative seat x (true, lie, bomb)
accuser_tally     P,3  seats   accusations made: relative seat x (true, lie, bomb) revealed
shown_tally       P,4  seats   action cards shown: relative seat x (bomb, choice, reverse, double)
drawn_tally       P    seats   cards drawn from the pile per relative seat
bomb_taken        P    seats   cards taken with a Bomb per relative seat
""")

SPEC = ObservationSpec(FIELDS, BLOCKS, sizes)
# OBS_KEYS, tensor_layout(rules) (the index / meaning table), tensor_size(rules) (its width D),
# to_tensor(rules, obs) (float32[B, D]), and the field table in this docstring
SPEC.publish(globals())
