"""Compiled (numba) kernels of ``legumes``: the batch loops and the scalar rule functions.

Layout (the pattern of ``qdv/kernels.py``): a batch is two numpy record arrays,
``hot[B]`` of ``HOT_DTYPE`` (seed, counters, current player, phase, end flags and
the legal mask: the fields read at every decision) and ``data[B]`` of
``STATE_DTYPE`` (the rest of the game, contiguous per game).  Sizes are fixed
maxima, so one compiled version serves every option set; the public
``LegumesState`` fields are views of their columns (``vec.py``).  The rules are
one record of ``RULES_DTYPE`` (with scratch space for the reshuffle).  Kernels
loop over the games and hand each game's two records (``g``, ``h``) to plain
scalar rule functions that read like ``reference.py``.

Booleans are stored as ``uint8``; ``vec.py`` exposes them as ``bool`` views.
Every kernel is ``cache=True``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bluffsim import bits_nb as bn
from bluffsim import rng
from bluffsim import rng_nb as rn
from bluffsim.games import drivers as DR
from bluffsim.games import obscompile as OC
from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.reference import RESHUFFLE_STREAM

# maximum sizes over every valid option set (rules.py): seats, cards (vegetables + actions)
P_MAX = 6
W_MAX = R.NUM_VEG * 3 * 8 + 4 * P_MAX
T = R.NUM_TYPES
V = R.NUM_VEG
A = R.NUM_ACTIONS
BOMB, CHOICE, REVERSE, DOUBLE = R.BOMB, R.CHOICE, R.REVERSE, R.DOUBLE
OPEN0, PLAY0, ACCUSE, ACCUSE_DOUBLE, CHOICE0, REVERSE_ID = (R.OPEN0, R.PLAY0, R.ACCUSE,
                                                            R.ACCUSE_DOUBLE, R.CHOICE0,
                                                            R.REVERSE_ID)
ACCEPT, REVERSE_PLAY0 = R.ACCEPT, R.REVERSE_PLAY0
PH_OPEN, PH_PLAY, PH_OVER = R.PHASE_OPEN, R.PHASE_PLAY, R.PHASE_OVER
O_TRUE, O_LIE, O_BOMB = R.OUTCOME_TRUE, R.OUTCOME_LIE, R.OUTCOME_BOMB
DEAL, OPENER = rng.Stream.DEAL, rng.Stream.OPENER

I1, I2, I4, U1 = np.int8, np.int16, np.int32, np.uint8
HOT_DTYPE = DR.hot_dtype(A)
STATE_DTYPE = np.dtype([
    ("draw_ptr", I2), ("draw_len", I2), ("fd_count", I2),
    ("reshuffles", I1), ("last_owner", I1), ("last_card", I1), ("last_called", I1),
    ("called", I1), ("direction", I1), ("after_reverse", U1), ("pending", I1),
    ("placements", I1, (P_MAX,)), ("hand_sizes", I2, (P_MAX,)),
    ("hands", I1, (P_MAX, T)), ("discard", I1, (T,)), ("discard_revealed", I1, (T,)),
    ("face_up", I1, (T,)), ("fd_by_owner", I1, (P_MAX, T)), ("fd_claims", I2, (P_MAX, V)),
    ("last_reveal", I2, (6,)), ("revealed_total", I4, (T,)),
    ("my_discard", I1, (P_MAX, T)), ("reshuffled_known", I1, (P_MAX, T)),
    ("accused_tally", I4, (P_MAX, 3)), ("accuser_tally", I4, (P_MAX, 3)),
    ("shown_tally", I4, (P_MAX, 4)), ("drawn_tally", I4, (P_MAX,)), ("bomb_taken", I4, (P_MAX,)),
    ("taken_known", I4, (P_MAX, P_MAX, T)),
    ("draw", I1, (W_MAX,)),
], align=True)

# the rules of one game object, plus scratch space for the shuffles
RULES_DTYPE = np.dtype([
    ("num_players", np.int64), ("hand_size", np.int64), ("deck_size", np.int64),
    ("total_cards", np.int64), ("action_lie_penalty", np.int64), ("first_player", np.int64),
    ("max_turns", np.int64), ("reverse_alone", np.int64),
    ("deck", I1, (W_MAX,)), ("cards", I1, (W_MAX,)), ("perm", np.int64, (W_MAX,)),
    ("keys", np.uint64, (W_MAX,)), ("tmp", np.uint64, (W_MAX,)),
    ("counts", np.int64, (rn.BUCKETS + 1,)), ("score", np.int64, (P_MAX,)),
], align=True)

POINTS = np.asarray(R.CARD_POINTS, dtype=np.int64)
# the fused loop prefetches the next game's hot record and these bytes of its state record
# (the fields most decisions touch; the draw pile at the end)
PREFETCH_END = STATE_DTYPE.fields["taken_known"][1]
DRAW_AT = STATE_DTYPE.fields["draw"][1]
HOT_BYTES, STATE_BYTES = HOT_DTYPE.itemsize, STATE_DTYPE.itemsize


def rules_record(rules: R.Rules) -> np.ndarray:
    """A one-element ``RULES_DTYPE`` array holding ``rules`` (pass it to the kernels)."""
    if rules.total_cards > W_MAX or rules.num_players > P_MAX:
        raise ValueError("legumes rules exceed the compiled engine's maximum sizes")
    r = np.zeros(1, RULES_DTYPE)
    for name in ("num_players", "hand_size", "deck_size", "total_cards", "action_lie_penalty",
                 "first_player", "max_turns"):
        r[name] = getattr(rules, name)
    r["reverse_alone"] = int(rules.reverse_alone)
    r["deck"][0, :rules.deck_size] = rules.deck
    return r


def blank_record(rules: R.Rules) -> np.ndarray:
    """A 0-d ``STATE_DTYPE`` record of a new game before its deal (``empty_state`` values)."""
    g = np.zeros((), STATE_DTYPE)
    g["draw"][:] = -1
    g["last_owner"] = g["last_card"] = g["last_called"] = -1
    g["called"] = -1
    g["direction"] = 1
    g["pending"] = -1
    g["last_reveal"][:] = -1
    return g


# ===================================================================== set-up
@njit(cache=True)
def new_game(g, h, r):
    """Each player: 4 action cards and ``hand_size`` dealt vegetables; the rest is the pile."""
    p = r.num_players
    hs = r.hand_size
    d = r.deck_size
    perm = r.perm
    rn.permutation_into(h.seed, DEAL, 0, d, r.keys, r.tmp, r.counts, perm)
    for s in range(p):
        g.hands[s, BOMB] += 1
        g.hands[s, CHOICE] += 1
        g.hands[s, REVERSE] += 1
        g.hands[s, DOUBLE] += 1
        for i in range(hs):
            g.hands[s, r.deck[perm[s * hs + i]]] += 1
        g.hand_sizes[s] = hs + 4
    for i in range(d - p * hs):
        g.draw[i] = r.deck[perm[p * hs + i]]
    g.draw_len = d - p * hs
    if r.first_player >= 0:
        h.current_player = r.first_player
    else:
        h.current_player = rn.below(rn.word(h.seed, OPENER, 0, 0), p)


# ===================================================================== plays
@njit(cache=True)
def pass_turn(g, h, r):
    """The next player in the current direction decides."""
    nxt = np.int64(h.current_player) + g.direction  # direction is +1 or -1: no division
    p = r.num_players
    if nxt >= p:
        nxt -= p
    elif nxt < 0:
        nxt += p
    h.current_player = nxt


@njit(cache=True)
def play(g, h, r, card):
    """Put a card face down, claiming it is the called vegetable."""
    me = np.int64(h.current_player)
    g.hands[me, card] -= 1
    g.hand_sizes[me] -= 1
    g.fd_by_owner[me, card] += 1
    g.fd_count += 1
    g.last_owner = me
    g.last_card = card
    g.last_called = g.called
    g.fd_claims[me, np.int64(g.called)] += 1
    g.after_reverse = 0
    pass_turn(g, h, r)


@njit(cache=True)
def face_up_card(g, h, card):
    """An action card from the current hand goes face up among the round's cards (shown)."""
    me = np.int64(h.current_player)
    g.hands[me, card] -= 1
    g.hand_sizes[me] -= 1
    g.face_up[card] += 1
    g.shown_tally[me, card - BOMB] += 1


@njit(cache=True)
def open_round(g, h, r, card, veg):
    """The opener puts a card face down and calls the round's vegetable."""
    g.called = veg
    h.phase = PH_PLAY
    play(g, h, r, card)


@njit(cache=True)
def vegetable_choice(g, h, r, veg):
    """Vegetable choice face up: a new called vegetable; no other card is played."""
    face_up_card(g, h, CHOICE)
    g.called = veg
    g.after_reverse = 0
    pass_turn(g, h, r)


@njit(cache=True)
def reverse(g, h, r):
    """Reverse face up alone: the order reverses and the next player may not accuse."""
    face_up_card(g, h, REVERSE)
    g.direction = -g.direction
    g.after_reverse = 1
    pass_turn(g, h, r)


@njit(cache=True)
def reverse_with_card(g, h, r, card):
    """Reverse face up with ``card`` face down: the order reverses and the next player,
    in the new direction, may not accuse that card."""
    face_up_card(g, h, REVERSE)
    g.direction = -g.direction
    play(g, h, r, card)
    g.after_reverse = 1


# ===================================================================== reveal
@njit(cache=True)
def clear_round(g, h, r):
    """No face-down or face-up cards on the table any more."""
    for s in range(r.num_players):
        for t in range(T):
            g.fd_by_owner[s, t] = 0
        for v in range(V):
            g.fd_claims[s, v] = 0
    for t in range(T):
        g.face_up[t] = 0
    g.fd_count = 0
    g.last_owner = -1
    g.last_card = -1
    g.last_called = -1


@njit(cache=True)
def bomb(g, h, r, accuser, owner):
    """The accuser takes the discard pile and every card of this round; returns the count.
    Each other seat knows the public cards among them, the Bomb and its own cards."""
    p = r.num_players
    for s in range(p):
        for t in range(T):
            if s == accuser:
                n = np.int64(g.discard[t]) + g.face_up[t]
                for o in range(p):
                    n += g.fd_by_owner[o, t]
            else:
                n = (np.int64(g.discard_revealed[t]) + g.face_up[t] + g.my_discard[s, t]
                     + g.fd_by_owner[s, t])
                if t == BOMB and s != owner:
                    n += 1
            g.taken_known[s, accuser, t] += n
    total = 0
    for t in range(T):
        n = np.int64(g.discard[t]) + g.face_up[t]
        for o in range(p):
            n += g.fd_by_owner[o, t]
        g.hands[accuser, t] += n
        total += n
        g.discard[t] = 0
        g.discard_revealed[t] = 0
    g.hand_sizes[accuser] += total
    g.bomb_taken[accuser] += total
    for s in range(p):
        for t in range(T):
            g.my_discard[s, t] = 0
    clear_round(g, h, r)
    return total


@njit(cache=True)
def round_to_discard(g, h, r, card):
    """This round's cards go on the discard pile; the revealed and face-up ones are known.
    (Only the non-zero counts are added, found as bitmasks: a round leaves few.)"""
    p = r.num_players
    for s in range(p):
        types = bn.nonzero_bits(g.fd_by_owner[s], T)
        while types:  # each type this seat put face down
            t = bn.trailing_zeros(types)
            types &= types - 1
            x = g.fd_by_owner[s, t]
            g.discard[t] += x
            g.my_discard[s, t] += x
    g.my_discard[np.int64(g.last_owner), card] -= 1
    g.discard_revealed[card] += 1
    types = bn.nonzero_bits(g.face_up, T)
    while types:
        t = bn.trailing_zeros(types)
        types &= types - 1
        x = g.face_up[t]
        g.discard[t] += x
        g.discard_revealed[t] += x
    clear_round(g, h, r)


@njit(cache=True)
def reshuffle(g, h, r):
    """The discard pile, shuffled, becomes the new draw pile."""
    n = 0
    for t in range(T):
        for _ in range(g.discard[t]):
            r.cards[n] = t
            n += 1
    w = r.total_cards
    rn.shuffle_keys(h.seed, RESHUFFLE_STREAM, 0, n, w, r.keys, r.tmp, r.counts)
    low = (rn.ONE << np.uint64(rn.index_bits(w))) - rn.ONE
    for i in range(n):
        g.draw[i] = r.cards[np.int64(r.keys[i] & low)]
    for i in range(n, w):
        g.draw[i] = -1
    g.draw_ptr = 0
    g.draw_len = n
    for s in range(r.num_players):
        for t in range(T):
            g.reshuffled_known[s, t] = g.discard_revealed[t] + g.my_discard[s, t]
            g.my_discard[s, t] = 0
    for t in range(T):
        g.discard[t] = 0
        g.discard_revealed[t] = 0
    g.reshuffles += 1


@njit(cache=True)
def draw_cards(g, h, r, seat, n):
    """Draw ``n`` cards; a first exhaustion reshuffles the discard, a second ends the game.
    Returns True when the game ended."""
    for _ in range(n):
        if g.draw_ptr >= g.draw_len:
            size = 0
            for t in range(T):
                size += g.discard[t]
            if g.reshuffles == 0 and size > 0:
                reshuffle(g, h, r)
            else:
                g.reshuffles += 1
                finish(g, h, r, False)
                return True
        g.hands[seat, np.int64(g.draw[g.draw_ptr])] += 1
        g.hand_sizes[seat] += 1
        g.drawn_tally[seat] += 1
        g.draw_ptr += 1
    return False


@njit(cache=True)
def next_round(g, h, r, opener):
    """The player who received cards opens the next round."""
    g.called = -1
    h.phase = PH_OPEN
    g.after_reverse = 0
    h.current_player = opener


@njit(cache=True)
def set_reveal(lr, accuser, owner, card, double, taker, n):
    """``last_reveal``: accuser, accused, card, doubled, taker, cards taken."""
    lr[0] = accuser
    lr[1] = owner
    lr[2] = card
    lr[3] = double
    lr[4] = taker
    lr[5] = n


@njit(cache=True)
def accuse(g, h, r, double):
    """"Menteur !": reveal the last face-down card and settle who takes what."""
    accuser = np.int64(h.current_player)
    if double:
        face_up_card(g, h, DOUBLE)
    owner = np.int64(g.last_owner)
    card = np.int64(g.last_card)
    called = np.int64(g.last_called)
    g.revealed_total[card] += 1
    h.num_rounds += 1
    h.round_over = 1
    if card == BOMB:
        outcome = O_BOMB
    elif card < BOMB and card // 3 == called:
        outcome = O_TRUE
    else:
        outcome = O_LIE
    g.accused_tally[owner, outcome] += 1
    g.accuser_tally[accuser, outcome] += 1
    if card >= BOMB:
        g.shown_tally[owner, card - BOMB] += 1
    lr = g.last_reveal
    if card == BOMB:
        taken = bomb(g, h, r, accuser, owner)
        set_reveal(lr, accuser, owner, card, double, accuser, taken)
        next_round(g, h, r, accuser)
        return
    round_to_discard(g, h, r, card)
    if card < BOMB:
        loser = accuser if card // 3 == called else owner
        n = card % 3 + 1
    else:
        loser = owner
        n = r.action_lie_penalty
    if double:
        n *= 2
    set_reveal(lr, accuser, owner, card, double, loser, n)
    if not draw_cards(g, h, r, loser, n):
        next_round(g, h, r, loser)


# ===================================================================== end
@njit(cache=True)
def score(g, s):
    """Points in hand of seat ``s``: vegetables their number, action cards 10."""
    total = 0
    for t in range(T):
        total += np.int64(g.hands[s, t]) * POINTS[t]
    return total


@njit(cache=True)
def finish(g, h, r, truncated):
    """Game over: lowest score first, equal scores share a place."""
    DR.end_game(h, truncated, PH_OVER)
    p = r.num_players
    sc = r.score
    for s in range(p):
        sc[s] = score(g, s)
    for s in range(p):
        place = 1
        for o in range(p):
            if sc[o] < sc[s]:
                place += 1
        g.placements[s] = place


@njit(cache=True)
def check_empty_hands(g, h, r, face_down_by):
    """An empty hand ends the game at once, unless its only owner's last card just went
    face down: then the next player accuses or accepts it (``pending``)."""
    g.pending = -1
    if h.terminated or h.truncated:
        return
    n_empty = 0
    for s in range(r.num_players):
        if g.hand_sizes[s] == 0:
            n_empty += 1
    if n_empty == 1 and face_down_by >= 0 and g.hand_sizes[face_down_by] == 0:
        g.pending = face_down_by
    elif n_empty > 0:
        finish(g, h, r, False)


# ===================================================================== legality
@njit(cache=True)
def update_mask(g, h, r):
    """The legal actions of the current player (none once the game is over)."""
    if DR.clear_mask(h, PH_OVER):
        return
    cp = max(np.int64(h.current_player), 0)
    m = h.mask
    ph = h.phase
    hand = g.hands[cp]
    if ph == PH_OPEN:
        for t in range(T):
            if hand[t] > 0:
                for v in range(V):
                    m[OPEN0 + t * V + v] = 1
        return
    if ph != PH_PLAY:
        return
    facing = g.pending >= 0
    free = not facing
    if (g.fd_count > 0 and g.last_owner != h.current_player and not g.after_reverse):
        m[ACCUSE] = 1
        if hand[DOUBLE] > 0:
            m[ACCUSE_DOUBLE] = 1
    if facing:
        m[ACCEPT] = 1
        return
    if free:
        for t in range(T):
            if hand[t] > 0:
                m[PLAY0 + t] = 1
        if hand[CHOICE] > 0:
            for v in range(V):
                m[CHOICE0 + v] = 1
        if hand[REVERSE] > 0:
            if r.reverse_alone or g.hand_sizes[cp] == 1:
                m[REVERSE_ID] = 1
            if not r.reverse_alone:
                for t in range(T):
                    if (hand[t] >= 2) if t == REVERSE else (hand[t] > 0):
                        m[REVERSE_PLAY0 + t] = 1


# ===================================================================== apply
@njit(cache=True)
def apply(g, h, r, a):
    """Apply one decision of the current player (the game is running, ``a`` is legal), then
    set the next legal mask."""
    apply_rules(g, h, r, a)
    update_mask(g, h, r)


@njit(cache=True)
def apply_rules(g, h, r, a):
    """``apply`` without the legal mask (the fused loop sets it once, after its last decision)."""
    h.num_decisions += 1
    me = np.int64(h.current_player)
    face_down = a < ACCUSE or a >= REVERSE_PLAY0
    if a < PLAY0:
        open_round(g, h, r, (a - OPEN0) // V, (a - OPEN0) % V)
    elif a < ACCUSE:
        play(g, h, r, a - PLAY0)
    elif a < CHOICE0:
        accuse(g, h, r, 1 if a == ACCUSE_DOUBLE else 0)
    elif a < REVERSE_ID:
        vegetable_choice(g, h, r, a - CHOICE0)
    elif a == REVERSE_ID:
        reverse(g, h, r)
    elif a == ACCEPT:
        finish(g, h, r, False)
    else:
        reverse_with_card(g, h, r, a - REVERSE_PLAY0)
    check_empty_hands(g, h, r, me if face_down else -1)
    if not (h.terminated or h.truncated) and h.num_decisions >= r.max_turns:
        finish(g, h, r, True)


# ===================================================================== batch kernels
@njit(cache=True)
def accepts(h, r, a):
    """Whether action ``a`` is legal in the running game ``h``."""
    return 0 <= a < A and h.mask[a] != 0


# ===================================================================== observation
# the structured observation and the flat tensor are declared once, in ``observe.SPEC``: the
# fields name their record sources, and ``observe_row``, ``tensor_row`` and their batch loops
# are generated from it (``obscompile``, at the end of this module).  Here: the named sizes as
# the compiled code reads them and the computed fields (``obs_<name>(g, h, r, seat)``).
OBS_SIZES = {"P": "r.num_players", "T": T, "V": V}
# the largest value of each size above that varies with the rules: the observation record's
# size (every table of the game shares one record type, so one compiled kernel)
OBS_BOUNDS = {"P": P_MAX}


@njit(cache=True)
def obs_discard_size(g, h, r, seat):
    """Observation ``discard_size``: cards in the discard pile."""
    return DR.row_sum(g.discard, T)


@njit(cache=True)
def obs_draw_size(g, h, r, seat):
    """Observation ``draw_size``: cards left in the draw pile."""
    return g.draw_len - g.draw_ptr


# ===================================================================== fused random play
@njit(cache=True)
def legal_blocks(g, h, r):
    """The current player's legal actions as blocks in action-id order (what ``update_mask``
    writes, read off the state): (kind, held, n_acc, n_choice, n_rev, rev_play).  ``kind`` is
    0 none (over), 1 open (held types x V calls), 2 facing a ``pending`` empty hand (n_acc
    accusations, accept), 3 free (held plays, n_acc accusations, n_choice calls, n_rev lone
    Reverse, rev_play Reverse + card); ``held`` and ``rev_play`` are bitmasks of card types."""
    ph = h.phase
    if ph != PH_OPEN and ph != PH_PLAY:
        return 0, 0, 0, 0, 0, 0
    cp = max(np.int64(h.current_player), 0)
    hand = g.hands[cp]
    held = bn.nonzero_bits(hand, T)  # (the bytes after the row are the next field's)
    if ph == PH_OPEN:
        return 1, held, 0, 0, 0, 0
    n_acc = 0
    if g.fd_count > 0 and g.last_owner != h.current_player and not g.after_reverse:
        n_acc = 2 if hand[DOUBLE] > 0 else 1
    if g.pending >= 0:
        return 2, 0, n_acc, 0, 0, 0
    n_choice = V if hand[CHOICE] > 0 else 0
    n_rev = 0
    rev_play = 0
    if hand[REVERSE] > 0:
        if r.reverse_alone or g.hand_sizes[cp] == 1:
            n_rev = 1
        if not r.reverse_alone:
            rev_play = held & ~(1 << REVERSE) if hand[REVERSE] == 1 else held
    return 3, held, n_acc, n_choice, n_rev, rev_play


@njit(cache=True)
def blocks_count(kind, held, n_acc, n_choice, n_rev, rev_play):
    """The number of legal actions in ``legal_blocks``' blocks."""
    if kind == 0:
        return 0
    if kind == 1:
        return bn.popcount(held) * V
    if kind == 2:
        return n_acc + 1
    return bn.popcount(held) + n_acc + n_choice + n_rev + bn.popcount(rev_play)


@njit(cache=True)
def blocks_nth(kind, held, n_acc, n_choice, n_rev, rev_play, k):
    """The ``k``-th legal action (0 <= k < ``blocks_count``) of ``legal_blocks``' blocks."""
    if kind == 1:
        return OPEN0 + bn.nth_set_bit(held, k // V) * V + k % V
    if kind == 2:
        return ACCUSE + k if k < n_acc else ACCEPT
    b, k = bn.take_bit(held, k)
    if b >= 0:
        return PLAY0 + b
    if k < n_acc:
        return ACCUSE + k
    k -= n_acc
    if k < n_choice:
        return CHOICE0 + k
    k -= n_choice
    if k < n_rev:
        return REVERSE_ID
    return REVERSE_PLAY0 + bn.nth_set_bit(rev_play, k - n_rev)


@njit(cache=True)
def legal_count(g, h, r):
    """The number of legal actions of the current player (the set entries ``update_mask``
    would write), from the state."""
    kind, held, n_acc, n_choice, n_rev, rev_play = legal_blocks(g, h, r)
    return blocks_count(kind, held, n_acc, n_choice, n_rev, rev_play)


@njit(cache=True)
def nth_legal(g, h, r, k):
    """The ``k``-th legal action in id order (0 <= k < ``legal_count``): the ``k``-th set entry
    of the mask ``update_mask`` would write, from the state."""
    kind, held, n_acc, n_choice, n_rev, rev_play = legal_blocks(g, h, r)
    return blocks_nth(kind, held, n_acc, n_choice, n_rev, rev_play, k)


@njit(cache=True)
def random_action(g, h, r, seat_key):
    """The ``random`` agent's choice in game ``g`` (``agents.random``): the same action as
    ``rng_nb.random_legal`` on the legal mask (the n-th legal action, n = below(the decision's
    first agent word, the number of legal actions); 0 if none), without reading the mask.
    ``seat_key`` is the current player's agent stream key, ``rng_nb.agent_key``."""
    kind, held, n_acc, n_choice, n_rev, rev_play = legal_blocks(g, h, r)
    count = blocks_count(kind, held, n_acc, n_choice, n_rev, rev_play)
    if count == 0:
        return 0
    w = rn.minor_word(rn.major_key(seat_key, np.int64(h.num_decisions)), 0)
    return blocks_nth(kind, held, n_acc, n_choice, n_rev, rev_play, rn.below(w, count))


@njit(cache=True)
def prefetch(data, hot, r, b):
    """Ask the CPU for game ``b``'s hot record and the fields a decision reads
    (``play_random_kernel``)."""
    bn.prefetch_record(hot, b, 0, HOT_BYTES)
    bn.prefetch_record(data, b, 0, PREFETCH_END)
    bn.prefetch_record(data, b, DRAW_AT, STATE_BYTES)


# the rule functions the batch kernels call where they differ from drivers.DRIVER_DEFAULTS
DRIVERS = {"deal": "new_game", "finish": "update_mask", "prefetch": "prefetch"}


def __getattr__(name: str):  # noqa: ANN202
    """The generated kernels (``tensor_row``, ``step_kernel``, ...: ``kernels_generated.py``,
    written by ``bluffsim games --generate`` from ``observe.SPEC``, ``OBS_SIZES`` and
    ``DRIVERS``), imported on first use."""
    return OC.lazy_generated(__package__, name)
