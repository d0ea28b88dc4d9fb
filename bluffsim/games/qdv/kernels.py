"""Compiled (numba) kernels of ``qdv``: the batch loops and the scalar rule functions.

Layout: a batch is two numpy record arrays, ``hot[B]`` of ``HOT_DTYPE`` (the
fields read at every decision, by the kernels and by numpy code such as the
runner and the agents: seed, counters, current player, phase, end flags and the
legal mask, one 64-byte cache line per game) and ``data[B]`` of ``STATE_DTYPE``
(the rest of the game, contiguous per game).  Sizes are fixed maxima, so one
compiled version serves every table size and option set; the public
``QdvState`` fields are views of their columns (``vec.py``).  The rules are one
record of ``RULES_DTYPE`` (with a scratch buffer for the shuffles).  Kernels
loop over the games and hand each game's two records (``g``, ``h``) to plain
scalar rule functions that read like ``reference.py``; a record is passed as a
pointer, so calling a rule costs nothing per array (no reference counting).

Booleans are stored as ``uint8`` (numba has no boolean sub-arrays in records);
``vec.py`` exposes them as ``bool`` views.  Every kernel is ``cache=True``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bluffsim import bits_nb as bn
from bluffsim import rng
from bluffsim import rng_nb as rn
from bluffsim.games import drivers as DR
from bluffsim.games import obscompile as OC
from bluffsim.games.qdv import rules as R

# maximum sizes over every valid option set (rules.py): seats, bid history, deck, challenge
# deck, actions
P_MAX = 6
H_MAX = 12 * R.MAX_MULT + 8
D_MAX = 12 * R.NUM_FRUITS + 8
C_MAX = 60
A_MAX = R.SALADS0 + 9 + 1 + (P_MAX - 1)
K = R.NUM_KINDS
F = R.NUM_FRUITS
E = R.NUM_EFFECTS
NLR = len(R.LAST_ROUND)
SALAD = R.SALAD
PLACE_SURVIVOR = 1 << 32

I1, I2, I4, U1 = np.int8, np.int16, np.int32, np.uint8
# one game, in two records: the fields read every decision by the kernels and by numpy
# (runner, agents) in one 64-byte cache line (`HOT_DTYPE`), the rest in `STATE_DTYPE`
HOT_DTYPE = DR.hot_dtype(A_MAX, spare=8)
STATE_DTYPE = np.dtype([
    ("chal_ready", U1), ("dealer", I1), ("direction", I1),
    ("round_bits", I1), ("centre", I1), ("start", I1), ("bid_count", I1),
    ("bid_fruit", I1), ("bidder", I1), ("num_bids", I1), ("call", I1),
    ("caller", I1), ("showdown_count", I1), ("holder_bits", I1),
    ("deck_ptr", I2), ("chal_ptr", I2), ("num_legal", U1), ("legal", U1, (A_MAX,)),
    ("tokens", I4, (P_MAX,)), ("in_round", U1, (P_MAX,)), ("placements", I1, (P_MAX,)),
    ("hand_sizes", I1, (P_MAX,)), ("drawn", I1, (P_MAX,)), ("declared", I1, (P_MAX,)),
    ("challenges", I1, (E,)),
    ("elim_round", I4, (P_MAX,)), ("zero_time", I4, (P_MAX,)),
    ("hands", I1, (P_MAX, K)), ("revealed", I1, (P_MAX, K)), ("discarded", I1, (P_MAX, K)),
    ("bid_history", I1, (H_MAX, 3)),
    ("deck", I1, (D_MAX,)), ("chal_deck", I1, (C_MAX,)),
    ("showdown_hands", I1, (P_MAX, K)),
    ("last_round", I2, (NLR,)), ("last_bid_history", I1, (H_MAX, 3)),
    ("bid_tally", I4, (P_MAX, R.BID_TALLY)), ("call_tally", I4, (P_MAX, R.CALL_TALLY)),
    ("called_tally", I4, (P_MAX, R.CALL_TALLY)), ("token_tally", I4, (P_MAX, R.TOKEN_TALLY)),
], align=True)

# the rules of one game object, plus scratch space for the shuffle keys
RULES_DTYPE = np.dtype([
    ("num_players", np.int64), ("deck_size", np.int64), ("chal_size", np.int64),
    ("max_count", np.int64), ("max_rounds", np.int64), ("starting_tokens", np.int64),
    ("first_dealer", np.int64), ("salads", np.int64), ("gain_id", np.int64),
    ("punish0", np.int64), ("on_landing", np.int64), ("num_actions", np.int64),
    ("history_len", np.int64),
    ("deck", I1, (D_MAX,)), ("chal", I1, (C_MAX,)), ("keys", np.uint64, (D_MAX,)),
    ("tmp", np.uint64, (D_MAX,)), ("counts", np.int64, (rn.BUCKETS + 1,)),
], align=True)

DEAL, CHALLENGE_DECK, EFFECT = rng.Stream.DEAL, rng.Stream.CHALLENGE_DECK, rng.Stream.EFFECT
PH_START, PH_BID, PH_SALADS, PH_REWARD, PH_OVER = (R.PHASE_START, R.PHASE_BID, R.PHASE_SALADS,
                                                   R.PHASE_REWARD, R.PHASE_OVER)
VRAI, MENTEUR, START0, SALADS0 = R.VRAI, R.MENTEUR, R.START0, R.SALADS0
CALL_VRAI = R.CALL_VRAI
REVEAL, DISCARD, DRAW, SKIP, REVERSE, TOKEN = range(6)
LR_CALLER, LR_CALL, LR_BIDDER, LR_COUNT, LR_FRUIT, LR_TRUE, LR_LOSER, LR_AMOUNT, LR_GAINER, \
    LR_CENTRE = range(NLR)


def rules_record(rules: R.Rules) -> np.ndarray:
    """A one-element ``RULES_DTYPE`` array holding ``rules`` (pass it to the kernels)."""
    if (rules.history_len > H_MAX or rules.deck_size > D_MAX
            or len(rules.challenge_ids) > C_MAX or len(rules.action_names) > A_MAX):
        raise ValueError("qdv rules exceed the compiled engine's maximum sizes")
    r = np.zeros(1, RULES_DTYPE)
    for name, value in (("num_players", rules.num_players), ("deck_size", rules.deck_size),
                        ("chal_size", len(rules.challenge_ids)), ("max_count", rules.max_count),
                        ("max_rounds", rules.max_rounds),
                        ("starting_tokens", rules.starting_tokens),
                        ("first_dealer", rules.first_dealer), ("salads", rules.salads),
                        ("gain_id", rules.gain_id), ("punish0", rules.punish0),
                        ("on_landing", int(rules.challenge_on_landing)),
                        ("num_actions", len(rules.action_names)),
                        ("history_len", rules.history_len)):
        r[name] = value
    r["deck"][0, :rules.deck_size] = rules.deck
    r["chal"][0, :len(rules.challenge_ids)] = rules.challenge_ids
    return r


def blank_record(rules: R.Rules) -> np.ndarray:
    """A 0-d ``STATE_DTYPE`` record of a new game before its first deal."""
    g = np.zeros((), STATE_DTYPE)
    p = rules.num_players
    g["tokens"][:p] = rules.starting_tokens
    g["in_round"][:p] = 1
    g["elim_round"][:] = -1
    g["zero_time"][:] = -1
    g["dealer"] = rules.first_dealer
    g["direction"] = 1
    g["bid_history"][:] = -1
    g["last_bid_history"][:] = -1
    g["call"] = g["caller"] = -1
    g["declared"][:] = -1
    g["showdown_count"] = -1
    g["last_round"][:] = -1
    return g


# ===================================================================== seating
@njit(cache=True)
def next_seat(g, h, r, seat, direction):
    """Next seat in ``direction`` (+1 clockwise) that is in the round (``seat`` if none)."""
    p = r.num_players
    cand = seat
    for _ in range(p):
        cand = bn.wrap_seat(cand + direction, p)
        if g.in_round[cand]:
            return cand
    return seat



@njit(cache=True)
def set_round_bits(g, h, r):
    """Cache ``in_round`` as a bitmask."""
    bits = 0
    for s in range(r.num_players):
        if g.in_round[s]:
            bits |= 1 << s
    g.round_bits = bits


@njit(cache=True)
def players_with_tokens(g, h, r):
    """How many seats still hold tokens."""
    n = 0
    for s in range(r.num_players):
        if g.tokens[s] > 0:
            n += 1
    return n


# ===================================================================== set-up
@njit(cache=True)
def start_round(g, h, r):
    """Shuffle, deal (capped), turn up the centre card and open the bidding."""
    rn.shuffled_into(h.seed, DEAL, h.num_rounds, r.deck_size, r.keys, r.tmp, r.counts, r.deck,
                     g.deck)
    g.chal_ready = 0  # the challenge deck is shuffled at the round's first draw
    reset_round_fields(g, h, r)
    deal(g, h, r)
    open_bidding(g, h, r)


@njit(cache=True)
def reset_round_fields(g, h, r):
    """Clear everything that lives for one round only."""
    p = r.num_players
    for s in range(p):
        g.in_round[s] = 1 if g.tokens[s] > 0 else 0
    set_round_bits(g, h, r)
    g.direction = 1
    if g.chal_ptr > 0:
        for s in range(p):
            for k in range(K):
                g.revealed[s, k] = 0
                g.discarded[s, k] = 0
            g.drawn[s] = 0
        for e in range(E):
            g.challenges[e] = 0
        g.chal_ptr = 0
    for i in range(g.num_bids):
        for j in range(3):
            g.bid_history[i, j] = -1
    g.num_bids = 0
    g.bidder = -1
    g.call = -1
    g.caller = -1


@njit(cache=True)
def deal(g, h, r):
    """Each player in, from the dealer's left, gets min(tokens, cap) cards; then the centre."""
    p = r.num_players
    inr = 0
    for s in range(p):
        inr += g.in_round[s]
        for k in range(K):
            g.hands[s, k] = 0
        g.hand_sizes[s] = 0
    cap = (r.deck_size - 1) // inr
    ptr = 0
    for j in range(p):
        s = bn.wrap_seat(g.dealer + 1 + j, p)
        if g.in_round[s]:
            n = min(np.int64(g.tokens[s]), cap)
            for _ in range(n):
                g.hands[s, g.deck[ptr]] += 1
                ptr += 1
            g.hand_sizes[s] = n
    g.centre = g.deck[ptr]
    g.deck_ptr = ptr + 1


@njit(cache=True)
def open_bidding(g, h, r):
    """The centre card is the initial bid; a centre salad lets the dealer pick the fruit."""
    c = g.centre
    if c == SALAD:
        h.phase = PH_START
        g.start = -1
        g.bid_fruit = -1
        g.bid_count = 1
        h.current_player = g.dealer
    else:
        set_start(g, h, r, c // 3, c % 3 + 1)


@njit(cache=True)
def set_start(g, h, r, fruit, count):
    """Markers on ``fruit`` with ``count``; the player left of the dealer bids."""
    g.start = fruit
    g.bid_fruit = fruit
    g.bid_count = count
    h.phase = PH_BID
    h.current_player = next_seat(g, h, r, g.dealer, 1)


# ===================================================================== bidding
@njit(cache=True)
def marker_crosses_start(position, target, start, on_landing):
    """Moving clockwise from ``position`` to ``target`` reaches (or passes beyond) ``start``."""
    steps = (target - position) % F
    dist = (start - position) % F
    last = steps if on_landing else steps - 1
    return 1 <= dist <= last


@njit(cache=True)
def bid(g, h, r, raise_by, fruit):
    """Raise the count with ``fruit``; moving the marker onto/past start draws a challenge."""
    me = np.int64(h.current_player)
    crosses = fruit != g.bid_fruit and marker_crosses_start(
        np.int64(g.bid_fruit), fruit, np.int64(g.start), r.on_landing != 0)
    count = g.bid_count + raise_by
    g.bid_count = count
    g.bid_fruit = fruit
    g.bidder = me
    nb = g.num_bids
    g.bid_history[nb, 0] = me
    g.bid_history[nb, 1] = count
    g.bid_history[nb, 2] = fruit
    g.num_bids = nb + 1
    skip = False
    if crosses and g.chal_ptr < r.chal_size:
        skip = draw_challenge(g, h, r, me)
        if h.terminated:  # a `token` challenge left a single player with tokens
            return
    d = np.int64(g.direction)
    nxt = next_seat(g, h, r, me, d)
    if skip:
        after = next_seat(g, h, r, nxt, d)
        # back to the bidder (two players in the round): they bid again, if they still can
        if after != me or count < r.max_count:
            nxt = after
    h.current_player = nxt


@njit(cache=True)
def draw_challenge(g, h, r, bidder):
    """Turn the top challenge card and apply it; returns True for ``skip``."""
    if not g.chal_ready:
        rn.shuffled_into(h.seed, CHALLENGE_DECK, h.num_rounds, r.chal_size, r.keys, r.tmp,
                         r.counts, r.chal, g.chal_deck)
        g.chal_ready = 1
    index = np.int64(g.chal_ptr)
    effect = np.int64(g.chal_deck[index])
    g.chal_ptr = index + 1
    g.challenges[effect] += 1
    w = rn.word(h.seed, EFFECT, h.num_rounds, index)
    if effect == REVEAL:
        effect_reveal(g, h, bidder, w)
    elif effect == DISCARD:
        effect_discard(g, h, bidder, w)
    elif effect == DRAW:
        effect_draw(g, h, r, bidder)
    elif effect == REVERSE:
        g.direction = -g.direction
    elif effect == TOKEN:
        take_tokens(g, h, bidder, 1, R.LOST_CHALLENGE)
        if g.tokens[bidder] == 0:
            eliminate_now(g, h, r, bidder)
    return effect == SKIP


@njit(cache=True)
def eliminate_now(g, h, r, seat):
    """A `token` challenge took ``seat``'s last token: out at once; the game may be over."""
    g.in_round[seat] = 0
    set_round_bits(g, h, r)
    g.elim_round[seat] = h.num_rounds
    if players_with_tokens(g, h, r) <= 1:
        finish(g, h, r, False)


@njit(cache=True)
def effect_reveal(g, h, p, w):
    """A random face-down card of the bidder's hand is turned face up (it still counts)."""
    n = 0
    for k in range(K):
        n += g.hands[p, k] - g.revealed[p, k]
    if n:
        pick = rn.below(w, n)
        for k in range(K):
            hidden = g.hands[p, k] - g.revealed[p, k]
            if pick < hidden:
                g.revealed[p, k] += 1
                return
            pick -= hidden


@njit(cache=True)
def effect_discard(g, h, p, w):
    """A random card of the bidder's hand is discarded face up (it no longer counts)."""
    n = 0
    for k in range(K):
        n += g.hands[p, k]
    if n:
        pick = rn.below(w, n)
        for k in range(K):
            held = np.int64(g.hands[p, k])
            if pick < held:
                if pick >= held - g.revealed[p, k]:
                    g.revealed[p, k] -= 1
                g.hands[p, k] -= 1
                g.hand_sizes[p] -= 1
                g.discarded[p, k] += 1
                return
            pick -= held


@njit(cache=True)
def effect_draw(g, h, r, p):
    """The bidder secretly draws the top undealt card, if any."""
    if g.deck_ptr < r.deck_size:
        g.hands[p, g.deck[g.deck_ptr]] += 1
        g.deck_ptr += 1
        g.drawn[p] += 1
        g.hand_sizes[p] += 1


# ===================================================================== showdown
@njit(cache=True)
def fruit_value(g, h, seat, fruit):
    """Value of ``fruit`` in ``seat``'s current hand, multipliers included."""
    b = fruit * 3
    return np.int64(g.hands[seat, b]) + 2 * g.hands[seat, b + 1] + 3 * g.hands[seat, b + 2]


@njit(cache=True)
def shown_value(g, h, seat, fruit):
    """Value of ``fruit`` in the hand ``seat`` showed at the latest showdown."""
    b = fruit * 3
    return (np.int64(g.showdown_hands[seat, b]) + 2 * g.showdown_hands[seat, b + 1]
            + 3 * g.showdown_hands[seat, b + 2])


@njit(cache=True)
def centre_value_of(g, h, fruit):
    """What the centre card adds to ``fruit`` (a centre salad is the start fruit)."""
    c = np.int64(g.centre)
    if c == SALAD:
        return 1 if g.start == fruit else 0
    return c % 3 + 1 if c // 3 == fruit else 0


@njit(cache=True)
def call(g, h, r, which):
    """``vrai`` or ``menteur``: all hands are shown, salad holders declare, then resolve."""
    p = r.num_players
    g.call = which
    g.caller = h.current_player
    fruit = np.int64(g.bid_fruit)
    total = centre_value_of(g, h, fruit)
    bits = 0
    for s in range(p):
        for k in range(K):
            g.showdown_hands[s, k] = g.hands[s, k]
        g.declared[s] = -1
        total += fruit_value(g, h, s, fruit)
        if g.hands[s, SALAD] > 0 and g.in_round[s]:
            bits |= 1 << s
    g.showdown_count = total
    g.holder_bits = bits
    holder = next_salad_holder(g, h, r, 0)
    if holder < 0:
        return resolve(g, h, r)
    h.phase = PH_SALADS
    h.current_player = holder
    return False


@njit(cache=True)
def next_salad_holder(g, h, r, first):
    """Next salad holder clockwise from the caller (offset >= ``first``); -1 when done."""
    p = r.num_players
    for off in range(first, p):
        s = bn.wrap_seat(g.caller + off, p)
        if g.in_round[s] and g.hands[s, SALAD] > 0:
            return s
    return -1


@njit(cache=True)
def declare_salads(g, h, r, k):
    """The current holder declares that ``k`` of their salads are the called fruit."""
    me = np.int64(h.current_player)
    g.declared[me] = k
    g.showdown_count += k
    holder = next_salad_holder(g, h, r, bn.wrap_seat(me - g.caller, r.num_players) + 1)
    if holder < 0:
        return resolve(g, h, r)
    h.current_player = holder
    return False


@njit(cache=True)
def resolve(g, h, r):
    """Compare the count with the bid; apply the losses (or open the reward).

    Returns True when the round ends now."""
    bid_ = np.int64(g.bid_count)
    count = np.int64(g.showdown_count)
    caller = np.int64(g.caller)
    for i in range(NLR):
        g.last_round[i] = -1
    g.last_round[LR_CALLER] = caller
    g.last_round[LR_CALL] = g.call
    g.last_round[LR_BIDDER] = g.bidder
    g.last_round[LR_COUNT] = bid_
    g.last_round[LR_FRUIT] = g.bid_fruit
    g.last_round[LR_TRUE] = count
    g.last_round[LR_AMOUNT] = 0
    g.last_round[LR_CENTRE] = centre_value_of(g, h, np.int64(g.bid_fruit))
    tally_showdown(g, h, r)
    vrai = g.call == CALL_VRAI
    if vrai and count == bid_:
        h.phase = PH_REWARD
        h.current_player = caller
        return False
    if vrai or count >= bid_:
        lose(g, h, caller, abs(bid_ - count) + 1, R.LOST_SHOWDOWN)
    else:
        lose(g, h, np.int64(g.bidder), bid_ - count + 1, R.LOST_SHOWDOWN)
    return True


@njit(cache=True)
def tally_showdown(g, h, r):
    """Add this showdown to the public tallies: each bid of the round against its fruit's
    card count; the call's outcome for the caller and for the called bidder."""
    p = r.num_players
    for i in range(g.num_bids):
        seat = np.int64(g.bid_history[i, 0])
        count = np.int64(g.bid_history[i, 1])
        fruit = np.int64(g.bid_history[i, 2])
        cards = centre_value_of(g, h, fruit)
        for s in range(p):
            cards += shown_value(g, h, s, fruit)
        g.bid_tally[seat, 0] += 1
        g.bid_tally[seat, 1] += 1 if count > cards else 0
        g.bid_tally[seat, 2] += 1 if count == cards else 0
        g.bid_tally[seat, 3] += count - cards
        g.bid_tally[seat, 4] += shown_value(g, h, seat, fruit)
    for i in range(r.history_len):
        for j in range(3):
            g.last_bid_history[i, j] = g.bid_history[i, j]
    bid_, count = g.bid_count, g.showdown_count
    if g.call == CALL_VRAI:
        col = R.VRAI_RIGHT if count == bid_ else R.VRAI_WRONG
    else:
        col = R.MENTEUR_RIGHT if count < bid_ else R.MENTEUR_WRONG
    g.call_tally[g.caller, col] += 1
    if g.bidder >= 0:
        g.called_tally[g.bidder, col] += 1


@njit(cache=True)
def take_tokens(g, h, seat, amount, cause):
    """``seat`` loses ``amount`` tokens, never below 0 (moment of hitting 0 and tally kept)."""
    t = np.int64(g.tokens[seat])
    if t > 0 and t <= amount:
        g.zero_time[seat] = h.num_decisions
    g.token_tally[seat, cause] += min(amount, t)
    g.tokens[seat] = max(0, t - amount)


@njit(cache=True)
def lose(g, h, seat, amount, cause):
    """``seat`` loses ``amount`` tokens at the showdown (recorded in ``last_round``)."""
    take_tokens(g, h, seat, amount, cause)
    g.last_round[LR_LOSER] = seat
    g.last_round[LR_AMOUNT] = amount


@njit(cache=True)
def reward_gain(g, h):
    """Exact call: the caller gains 1 token."""
    c = np.int64(g.caller)
    g.tokens[c] += 1
    g.token_tally[c, R.GAINED] += 1
    g.last_round[LR_GAINER] = c


@njit(cache=True)
def reward_punish(g, h, r, k):
    """Exact call: the player ``k`` seats clockwise from the caller loses 1 token."""
    c = np.int64(g.caller)
    g.token_tally[c, R.PUNISHED_OTHER] += 1
    lose(g, h, bn.wrap_seat(c + k, r.num_players), 1, R.LOST_PUNISH)


# ===================================================================== round end
@njit(cache=True)
def end_round(g, h, r):
    """Eliminate empty players, end the game or pass the deal clockwise and deal again."""
    p = r.num_players
    for s in range(p):
        if g.in_round[s] and g.tokens[s] == 0:
            g.elim_round[s] = h.num_rounds
    h.num_rounds += 1
    h.round_over = 1
    alive = players_with_tokens(g, h, r)
    if alive <= 1:
        finish(g, h, r, False)
    elif h.num_rounds >= r.max_rounds:
        finish(g, h, r, True)
    else:
        for s in range(p):
            g.in_round[s] = 1 if g.tokens[s] > 0 else 0
        g.dealer = next_seat(g, h, r, np.int64(g.dealer), 1)
        start_round(g, h, r)


@njit(cache=True)
def finish(g, h, r, truncated):
    """Game over (possibly mid-round): survivors by tokens, the eliminated by when."""
    p = r.num_players
    DR.end_game(h, truncated, PH_OVER)
    for s in range(p):
        sc = score(g, h, s)
        place = 1
        for o in range(p):
            if score(g, h, o) > sc:
                place += 1
        g.placements[s] = place


@njit(cache=True)
def score(g, h, s):
    """Placement score: survivors by tokens above the eliminated, who rank by when."""
    t = np.int64(g.tokens[s])
    return PLACE_SURVIVOR + t if t > 0 else np.int64(g.zero_time[s])


# ===================================================================== legality
@njit(cache=True)
def update_mask(g, h, r):
    """The legal actions of the current player (none once the game is over): the mask, and
    the same actions as a list in increasing order (``legal[:num_legal]``, for the agents)."""
    m = h.mask
    for a in range(A_MAX):
        m[a] = 0
    legal = g.legal
    n = 0
    ph = h.phase
    if ph == PH_BID:
        me = h.current_player
        if g.bid_count + 1 <= r.max_count:
            for f in range(F):
                m[f] = 1
                legal[n + f] = f
            n += F
        if g.bid_count + 2 <= r.max_count:
            for f in range(F):
                m[F + f] = 1
                legal[n + f] = F + f
            n += F
        if g.bidder != me:  # nobody calls on their own bid
            m[VRAI] = 1
            legal[n] = VRAI
            n += 1
            if g.num_bids > 0:
                m[MENTEUR] = 1
                legal[n] = MENTEUR
                n += 1
    elif ph == PH_START:
        for f in range(F):
            m[START0 + f] = 1
            legal[f] = START0 + f
        n = F
    elif ph == PH_SALADS:
        n = g.hands[h.current_player, SALAD] + 1
        for k in range(n):
            m[SALADS0 + k] = 1
            legal[k] = SALADS0 + k
    elif ph == PH_REWARD:
        p = r.num_players
        me = np.int64(h.current_player)
        m[r.gain_id] = 1
        legal[0] = r.gain_id
        n = 1
        for k in range(1, p):
            if g.tokens[bn.wrap_seat(me + k, p)] > 0:
                m[r.punish0 + k - 1] = 1
                legal[n] = r.punish0 + k - 1
                n += 1
    g.num_legal = n


# ===================================================================== apply
@njit(cache=True)
def apply(g, h, r, a):
    """Apply one decision of the current player (the game is running, ``a`` is legal)."""
    h.num_decisions += 1
    ends = False
    if a < 2 * F:
        bid(g, h, r, a // F + 1, a % F)
    elif a == VRAI or a == MENTEUR:
        ends = call(g, h, r, R.CALL_VRAI if a == VRAI else R.CALL_MENTEUR)
    elif a < SALADS0:
        set_start(g, h, r, a - START0, 1)
    elif a < r.gain_id:
        ends = declare_salads(g, h, r, a - SALADS0)
    elif a == r.gain_id:
        reward_gain(g, h)
        ends = True
    else:
        reward_punish(g, h, r, a - r.punish0 + 1)
        ends = True
    if ends:
        end_round(g, h, r)
    update_mask(g, h, r)


# ===================================================================== batch kernels
@njit(cache=True)
def accepts(h, r, a):
    """Whether action ``a`` is legal in the running game ``h``."""
    return 0 <= a < r.num_actions and h.mask[a] != 0


@njit(cache=True)
def random_choice(g, h, r, seat_key):
    """``random_action`` in the drivers' form (it finds the seat's stream itself)."""
    return random_action(g, h, r)


# ===================================================================== observation
# the structured observation and the flat tensor are declared once, in ``observe.SPEC``: the
# fields name their record sources, and ``observe_row``, ``tensor_row`` and their batch loops
# are generated from it (``obscompile``, at the end of this module).  Here: the named sizes as
# the compiled code reads them, the computed fields (``obs_<name>(g, h, r, seat)``) and the
# builders of the ``Custom`` blocks.
OBS_SIZES = {"P": "r.num_players", "K": K, "F": F, "E": E, "H": "r.history_len", "L": NLR,
             "BT": R.BID_TALLY, "CT": R.CALL_TALLY, "TT": R.TOKEN_TALLY}
# the largest value of each size above that varies with the rules: the observation record's
# size (every table of the game shares one record type, so one compiled kernel)
OBS_BOUNDS = {"P": P_MAX, "H": H_MAX}


@njit(cache=True)
def obs_challenge_left(g, h, r, seat):
    """Observation ``challenge_left``: challenge cards left in the deck."""
    return r.chal_size - g.chal_ptr


@njit(cache=True)
def obs_undealt_left(g, h, r, seat):
    """Observation ``undealt_left``: fruit cards left in the undealt deck."""
    return r.deck_size - g.deck_ptr


@njit(cache=True)
def _bid_table(x, o, hist, n_rows, me, p):
    """[relative seat][fruit] highest count bid in a history; returns the next offset."""
    for i in range(n_rows):
        s = np.int64(hist[i, 0])
        if s < 0:
            continue
        j = o + ((s - me) % p) * F + hist[i, 2]
        c = np.float32(hist[i, 1])
        if c > x[j]:
            x[j] = c
    return o + p * F


@njit(cache=True)
def bid_table_block(obs, r, x, o):
    """Tensor block ``bid_table`` (``observe.bid_table`` of this round's bids) at ``x[o:]``, from
    the observation record."""
    _bid_table(x, o, obs.bid_history, r.history_len, max(np.int64(obs.seat), 0), r.num_players)


@njit(cache=True)
def last_bid_table_block(obs, r, x, o):
    """Tensor block ``last_bid_table`` (the last showdown's round's bids) at ``x[o:]``, from the
    observation record."""
    _bid_table(x, o, obs.last_bid_history, r.history_len, max(np.int64(obs.seat), 0),
               r.num_players)


# ===================================================================== fused random play
@njit(cache=True, inline="always")
def random_action(g, h, r):
    """The ``random`` agent's choice in game ``g`` (``agents.random``): the same action as
    ``rng_nb.random_legal`` on its mask, read from the list of legal actions kept with it."""
    n = np.int64(g.num_legal)
    if n == 0:
        return 0
    w = rn.agent_word(h.seed, np.int64(h.current_player), np.int64(h.num_decisions), 0)
    return np.int64(g.legal[rn.below(w, n)])


# the rule functions the batch kernels call where they differ from drivers.DRIVER_DEFAULTS
DRIVERS = {"deal": "start_round", "random_action": "random_choice", "apply_rules": "apply"}


def __getattr__(name: str):  # noqa: ANN202
    """The generated kernels (``tensor_row``, ``step_kernel``, ...: ``kernels_generated.py``,
    written by ``bluffsim games --generate`` from ``observe.SPEC``, ``OBS_SIZES`` and
    ``DRIVERS``), imported on first use."""
    return OC.lazy_generated(__package__, name)
