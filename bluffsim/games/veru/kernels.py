"""Compiled (numba) kernels of ``veru``: the batch loops and the scalar rule functions.

Layout (the pattern of ``qdv/kernels.py``): a batch is two numpy record arrays,
``hot[B]`` of ``HOT_DTYPE`` (seed, counters, current player, phase, end flags and
the legal mask: the fields read at every decision, one 64-byte cache line per
game) and ``data[B]`` of ``STATE_DTYPE`` (the rest of the game, contiguous per
game, the per-observer memory last).  Sizes are fixed maxima (``P_MAX`` seats),
so one compiled version serves every table size and option set; the public
``VeruState`` fields are views of their columns (``vec.py``).  The rules are one
record of ``RULES_DTYPE`` (with scratch space for the shuffles).  Kernels loop
over the games and hand each game's two records (``g``, ``h``) to plain scalar
rule functions that read like ``reference.py`` (the oracle, bit for bit); a
record is passed as a pointer, so calling a rule costs nothing per array.

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
from bluffsim.games.veru import rules as R

P_MAX = 6
T = R.NUM_TYPES
N = R.ANNOUNCEABLE
A = R.NUM_ACTIONS
ACE, JOKER = R.ACE, R.JOKER
ANNOUNCE0, PUT0, DONE, BELIEVE, DISBELIEVE, SWAP0, TIMEOUT = (R.ANNOUNCE0, R.PUT0, R.DONE,
                                                              R.BELIEVE, R.DISBELIEVE, R.SWAP0,
                                                              R.TIMEOUT)
PH_ANNOUNCE, PH_PUT, PH_RESPOND, PH_OVER = (R.PHASE_ANNOUNCE, R.PHASE_PUT, R.PHASE_RESPOND,
                                            R.PHASE_OVER)
DECK = 52
NON_ACE = 48  # the deck is sorted by rank, so the non-ace cards are its first 48
DEAL, OPENER, JOKER_STREAM = rng.Stream.DEAL, rng.Stream.OPENER, rng.Stream.JOKER
LC_CHECKER, LC_CLAIMANT, LC_KIND, LC_TRUTH, LC_TAKER = range(5)

I1, I4, U1 = np.int8, np.int32, np.uint8
# one game, in two records: the fields read every decision by the kernels and by numpy
# (runner, agents) in one 64-byte cache line (`HOT_DTYPE`), the rest in `STATE_DTYPE`
HOT_DTYPE = DR.hot_dtype(A)
STATE_DTYPE = np.dtype([
    ("endgame_count", I4),
    ("table_n", I1), ("claimant", I1), ("claim_rank", I1), ("in_bits", I1),
    ("opener", I1), ("put_count", I1), ("acted", U1),
    ("table", I1, (3,)), ("last_check", I1, (5,)),
    ("placements", I1, (P_MAX,)), ("hand_sizes", I1, (P_MAX,)), ("out", U1, (P_MAX,)),
    ("place", I1, (P_MAX,)), ("swaps_used", I1, (P_MAX,)), ("swapped_round", U1, (P_MAX,)),
    ("closed", U1, (N,)), ("discard_seen", I1, (T,)), ("discard_hidden", I1, (T,)),
    ("last_check_cards", I1, (T,)),
    ("hands", I1, (P_MAX, T)), ("bank", I1, (P_MAX, T)), ("hidden_out", I1, (P_MAX, T)),
    ("taken", I4, (P_MAX,)), ("cards_claimed", I4, (P_MAX,)), ("pickups", I4, (P_MAX,)),
    ("timeouts", I4, (P_MAX,)), ("claims", I4, (P_MAX, 2)), ("claim_checks", I4, (P_MAX, 2)),
    ("checks", I4, (P_MAX, 4)),
    ("known", I1, (P_MAX, P_MAX, T)), ("seen_taken", I4, (P_MAX, P_MAX, T)),
], align=True)

# the fused loop prefetches the next game's hot record, this many bytes of its state record
# (the fields before seen_taken) and the seen_taken rows of the seats at the table
PREFETCH_END = STATE_DTYPE.fields["seen_taken"][1]
HOT_BYTES = HOT_DTYPE.itemsize
SEEN_ROW = STATE_DTYPE.fields["seen_taken"][0].itemsize // P_MAX  # one observer's block

# the rules of one game object, plus scratch space for the deal
RULES_DTYPE = np.dtype([
    ("num_players", np.int64), ("step", np.int64), ("jokers", np.int64),
    ("endgame_limit", np.int64), ("max_turns", np.int64), ("joker_swaps", np.int64),
    ("first_opener", np.int64), ("any_swap", np.int64),
    ("swap_seat", U1, (P_MAX,)), ("check_seat", U1, (P_MAX,)), ("ace_seat", U1, (P_MAX,)),
    ("deck", I1, (DECK,)), ("perm", np.int64, (DECK,)), ("keys", np.uint64, (DECK,)),
    ("tmp", np.uint64, (DECK,)), ("counts", np.int64, (rn.BUCKETS + 1,)),
], align=True)


def rules_record(rules: R.Rules) -> np.ndarray:
    """A one-element ``RULES_DTYPE`` array holding ``rules`` (pass it to the kernels)."""
    if rules.num_players > P_MAX:
        raise ValueError("veru rules exceed the compiled engine's maximum sizes")
    r = np.zeros(1, RULES_DTYPE)
    for name in ("num_players", "step", "jokers", "endgame_limit", "max_turns", "joker_swaps",
                 "first_opener"):
        r[name] = getattr(rules, name)
    r["any_swap"] = int(bool(rules.joker_swap_seats))
    for fld, seats in (("swap_seat", rules.joker_swap_seats), ("check_seat", rules.check_seats),
                       ("ace_seat", rules.ace_hint_seats)):
        for s in seats:
            r[fld][0, s] = 1
    return r


def blank_record(rules: R.Rules) -> np.ndarray:
    """A 0-d ``STATE_DTYPE`` record of a new game before its deal (``reference.blank``)."""
    g = np.zeros((), STATE_DTYPE)
    g["table"][:] = -1
    g["claimant"] = g["claim_rank"] = -1
    g["in_bits"] = (1 << rules.num_players) - 1
    g["endgame_count"] = -1
    g["last_check"][:] = -1
    return g


# ===================================================================== seating
@njit(cache=True)
def next_in(g, r, seat, skip):
    """Next seat in turn order that is not out (nor ``skip``); ``seat`` if none."""
    p = r.num_players
    cand = seat
    for _ in range(p):
        cand = bn.wrap_seat(cand + r.step, p)
        if not g.out[cand] and cand != skip:
            return cand
    return seat



@njit(cache=True)
def set_in_bits(g, r):
    """Cache the seats still playing (``not out``) as a bitmask."""
    bits = 0
    for q in range(r.num_players):
        if not g.out[q]:
            bits |= 1 << q
    g.in_bits = bits


@njit(cache=True)
def num_out(g, r):
    """Seats that have finished."""
    n = 0
    for q in range(r.num_players):
        n += g.out[q]
    return n


@njit(cache=True)
def claim_count(g, t):
    """Cards of type ``t`` in the claim on the table."""
    n = 0
    for k in range(g.table_n):
        if g.table[k] == t:
            n += 1
    return n


@njit(cache=True)
def bank_count(g, r, t):
    """Cards of type ``t`` in the Bank (all owners)."""
    n = 0
    for q in range(r.num_players):
        n += g.bank[q, t]
    return n


# ===================================================================== set-up
@njit(cache=True)
def new_game(g, h, r):
    """Jokers in, shuffle, deal everything from the first opener, close quads, open."""
    build_deck(g, h, r)
    rn.permutation_into(h.seed, DEAL, 0, DECK, r.keys, r.tmp, r.counts, r.perm)
    deal(g, h, r, r.perm)


@njit(cache=True)
def build_deck(g, h, r):
    """``r.deck``: 52 cards (4 of each rank, sorted) with ``jokers`` random non-ace cards made
    Jokers (``r.perm`` is scratch)."""
    deck = r.deck
    for i in range(DECK):
        deck[i] = i // 4
    if r.jokers:
        perm = r.perm
        rn.permutation_into(h.seed, JOKER_STREAM, 0, NON_ACE, r.keys, r.tmp, r.counts, perm)
        for j in range(r.jokers):
            deck[perm[j]] = JOKER


@njit(cache=True)
def deal(g, h, r, order):
    """Card ``order[i]`` of ``r.deck`` to seat opener + i (in turn order), then ``start``."""
    p = r.num_players
    if r.first_opener >= 0:
        opener = r.first_opener
    else:
        opener = rn.below(rn.word(h.seed, OPENER, 0, 0), p)
    seat = opener
    for i in range(DECK):
        g.hands[seat, r.deck[order[i]]] += 1
        g.hand_sizes[seat] += 1
        seat = bn.wrap_seat(seat + r.step, p)
    start(g, h, r, opener)


@njit(cache=True)
def start(g, h, r, opener):
    """After the deal: close quads, a hand left empty is out at once (place 1), then open."""
    for seat in range(r.num_players):
        close_quads(g, r, seat)
        if g.hand_sizes[seat] == 0:
            g.out[seat] = 1
            g.place[seat] = 1
    set_in_bits(g, r)
    if check_finished(g, h, r):
        return
    open_round(g, h, r, opener, -1)
    check_all_closed(g, h, r)


@njit(cache=True)
def close_quads(g, r, seat):
    """Four natural cards of a rank (not aces) in one hand are discarded face up: closed."""
    for k in range(N):
        if g.hands[seat, k] == 4:
            g.hands[seat, k] = 0
            g.hand_sizes[seat] -= 4
            g.discard_seen[k] += 4
            g.closed[k] = 1
            for o in range(r.num_players):
                g.known[o, seat, k] = 0


@njit(cache=True)
def open_round(g, h, r, opener, skip):
    """``opener`` announces the next claim; if out, the next player still in other than
    ``skip`` (the player who was wrong or timed out never opens)."""
    if g.out[opener] or opener == skip:
        opener = next_in(g, r, opener, skip)
    g.opener = opener
    h.current_player = opener
    h.phase = PH_ANNOUNCE
    g.acted = 0
    g.put_count = 0


# ===================================================================== legality
@njit(cache=True)
def can_swap(g, r, seat):
    """Joker gadget: owned, uses left, not yet this round, not after acting, > 1 card."""
    return (r.swap_seat[seat] != 0 and not g.acted and g.swaps_used[seat] < r.joker_swaps
            and not g.swapped_round[seat] and g.hand_sizes[seat] > 1)


@njit(cache=True)
def update_mask(g, h, r):
    """The legal actions of the current player (``timeout`` never listed; none once over)."""
    if DR.clear_mask(h, PH_OVER):
        return
    me = np.int64(h.current_player)
    m = h.mask
    ph = h.phase
    if ph == PH_ANNOUNCE:
        for k in range(N):
            m[ANNOUNCE0 + k] = 0 if g.closed[k] else 1
    else:
        for t in range(T):
            m[PUT0 + t] = 1 if g.hands[me, t] > 0 else 0
        if ph == PH_PUT:
            if g.put_count >= 1:
                m[DONE] = 1
        else:
            m[BELIEVE] = 1
            m[DISBELIEVE] = 1
    if ph != PH_PUT and r.any_swap and can_swap(g, r, me):
        for k in range(N):
            if g.hands[me, k] > 0:
                m[SWAP0 + k] = 1


# ===================================================================== apply
@njit(cache=True)
def apply(g, h, r, a):
    """Apply one decision of the current player (the game is running, ``a`` is legal or
    ``timeout``), then the endgame clock, the safety cap and the next legal mask."""
    apply_rules(g, h, r, a)
    update_mask(g, h, r)


@njit(cache=True)
def apply_rules(g, h, r, a):
    """``apply`` without the legal mask (the fused loop sets it once, after its last decision)."""
    h.num_decisions += 1
    if a < PUT0:
        announce(g, h, a - ANNOUNCE0)
    elif a < DONE:
        put(g, h, r, a - PUT0)
    elif a == DONE:
        end_claim(g, h, r)
    elif a == BELIEVE or a == DISBELIEVE:
        check(g, h, r, a == BELIEVE)
    elif a < TIMEOUT:
        swap(g, h, r, a - SWAP0)
    else:
        timeout(g, h, r)
    count_endgame(g, h, r)
    if not (h.terminated or h.truncated) and h.num_decisions >= r.max_turns:
        rank_by_cards(g, r)
        finish(g, h, r, True)


@njit(cache=True)
def announce(g, h, rank):
    """The opener names the round's rank; their cards follow."""
    g.claim_rank = rank
    g.claimant = h.current_player
    h.phase = PH_PUT
    g.put_count = 0
    g.acted = 1


@njit(cache=True)
def put(g, h, r, card):
    """One card face down; a responder's first card sends the last claim to the Bank."""
    me = np.int64(h.current_player)
    if h.phase == PH_RESPOND:
        claim_to_bank(g)
        g.claimant = me
        h.phase = PH_PUT
        g.put_count = 0
        g.claims[me, 1] += 1
    elif g.put_count == 0:
        g.claims[me, 0] += 1
    g.cards_claimed[me] += 1
    forget_one_card(g, r, me, T)
    g.hands[me, card] -= 1
    g.hand_sizes[me] -= 1
    g.table[g.table_n] = card
    g.table_n += 1
    g.put_count += 1
    g.acted = 1
    if g.put_count == 3 or g.hand_sizes[me] == 0:
        end_claim(g, h, r)


@njit(cache=True)
def forget_one_card(g, r, holder, types):
    """``holder`` gave up one card of an unknown type among the first ``types``: every other
    player's lower bound of those types in that hand drops by one."""
    for o in range(r.num_players):
        if o != holder and bn.nonzero_bits(g.known[o, holder], types):  # most rows are 0
            for t in range(types):
                x = g.known[o, holder, t]
                if x != 0:
                    g.known[o, holder, t] = max(np.int64(x) - 1, 0)


@njit(cache=True)
def clear_table(g):
    """No claim on the table."""
    for k in range(3):
        g.table[k] = -1
    g.table_n = 0


@njit(cache=True)
def claim_to_bank(g):
    """The previous claim's cards join the Bank under their owner, unchecked forever."""
    owner = np.int64(g.claimant)
    for k in range(g.table_n):
        g.bank[owner, g.table[k]] += 1
    clear_table(g)


@njit(cache=True)
def end_claim(g, h, r):
    """The claim stands; the next player in turn responds."""
    h.current_player = next_in(g, r, np.int64(h.current_player), -1)
    h.phase = PH_RESPOND
    g.put_count = 0
    g.acted = 0


@njit(cache=True)
def swap(g, h, r, rank):
    """Joker gadget: a card of ``rank`` leaves the game unseen, a Joker takes its place."""
    me = np.int64(h.current_player)
    forget_one_card(g, r, me, N)
    g.hands[me, rank] -= 1
    g.hands[me, JOKER] += 1
    g.discard_hidden[rank] += 1
    g.hidden_out[me, rank] += 1
    g.swaps_used[me] += 1
    g.swapped_round[me] = 1


# ===================================================================== checks
@njit(cache=True)
def check(g, h, r, believe):
    """Believe / disbelieve: the table in docs/rules.md#veru-checks decides who takes and who opens."""
    checker = np.int64(h.current_player)
    claimant = np.int64(g.claimant)
    rank = np.int64(g.claim_rank)
    truth = True
    for k in range(g.table_n):
        if g.table[k] != rank and g.table[k] != JOKER:
            truth = False
    if believe and truth:
        taker, opener = -1, checker
    elif truth or believe:  # the checker was wrong
        taker, opener = checker, claimant
    else:  # disbelieved a bluff
        taker, opener = claimant, checker
    lc = g.last_check
    lc[LC_CHECKER] = checker
    lc[LC_CLAIMANT] = claimant
    lc[LC_KIND] = 0 if believe else 1
    lc[LC_TRUTH] = 1 if truth else 0
    lc[LC_TAKER] = taker
    for t in range(T):
        g.last_check_cards[t] = 0
    for k in range(g.table_n):  # = claim_count(g, t) for every t
        g.last_check_cards[np.int64(g.table[k])] += 1
    g.claim_checks[claimant, 1 if truth else 0] += 1
    g.checks[checker, (0 if believe else 2) + (1 if taker == checker else 0)] += 1
    if taker < 0:
        p = r.num_players
        for t in range(T):
            g.discard_seen[t] += g.last_check_cards[t]
            in_bank = bank_count(g, r, t)
            if in_bank:  # (nothing to move otherwise)
                g.discard_hidden[t] += in_bank
                for o in range(p):
                    g.hidden_out[o, t] += g.bank[o, t]
                    g.bank[o, t] = 0
        clear_table(g)
    else:
        take_all(g, r, taker, True)
    end_round(g, h, r, opener, taker)


@njit(cache=True)
def take_all(g, r, taker, check_seats_see):
    """``taker`` takes table + Bank into hand; each player notes the cards they know moved.

    The taker knows all of them; every other player knows their own Bank cards, and the
    claim's cards if they are the claimant or (``check_seats_see``) have the Check gadget.
    """
    p = r.num_players
    claimant = np.int64(g.claimant)
    moved = 0
    for t in range(T):
        claim = claim_count(g, t)
        total = claim + bank_count(g, r, t)
        if total == 0:  # nobody learns or takes anything of this type
            continue
        for o in range(p):
            if o == taker:
                g.seen_taken[o, taker, t] += total
            else:
                sees = o == claimant or (check_seats_see and r.check_seat[o] != 0)
                known = np.int64(g.bank[o, t]) + (claim if sees else 0)
                g.seen_taken[o, taker, t] += known
                g.known[o, taker, t] += known
        g.hands[taker, t] += total
        moved += total
    for o in range(p):
        for t in range(T):
            g.bank[o, t] = 0
    g.hand_sizes[taker] += moved
    g.taken[taker] += moved
    g.pickups[taker] += 1
    clear_table(g)
    close_quads(g, r, taker)


@njit(cache=True)
def timeout(g, h, r):
    """A player out of time is wrong: takes table + Bank; the next player opens."""
    me = np.int64(h.current_player)
    has_cards = g.table_n > 0
    for t in range(T):
        if bank_count(g, r, t) > 0:
            has_cards = True
    lc = g.last_check
    lc[LC_CHECKER] = -1
    lc[LC_CLAIMANT] = g.claimant
    lc[LC_KIND] = 2
    lc[LC_TRUTH] = -1
    lc[LC_TAKER] = me if has_cards else -1
    for t in range(T):
        g.last_check_cards[t] = 0
    g.timeouts[me] += 1
    if has_cards:
        take_all(g, r, me, False)
    end_round(g, h, r, me, me)


# ===================================================================== round end
@njit(cache=True)
def end_round(g, h, r, opener, skip):
    """Players with nothing left go out (same moment, same place); end or reopen.

    ``opener`` guessed right; if they are out the opening passes on, skipping ``skip``
    (the taker: the wrong guesser, the caught bluffer or the timed-out player).
    """
    p = r.num_players
    g.claimant = -1
    g.claim_rank = -1
    h.num_rounds += 1
    h.round_over = 1
    place = num_out(g, r) + 1
    for q in range(p):
        g.swapped_round[q] = 0
        if not g.out[q] and g.hand_sizes[q] == 0:
            g.out[q] = 1
            g.place[q] = place
    set_in_bits(g, r)
    if check_finished(g, h, r):
        return
    if check_all_closed(g, h, r):
        return
    open_round(g, h, r, opener, skip)


@njit(cache=True)
def check_finished(g, h, r):
    """One player left holding cards: they take the last place (True: game over)."""
    p = r.num_players
    gone = num_out(g, r)
    remaining = p - gone
    if remaining > 1:
        if remaining == 2 and g.endgame_count < 0:
            g.endgame_count = 0
        return False
    for q in range(p):
        if not g.out[q]:
            g.place[q] = gone + 1
    finish(g, h, r, False)
    return True


@njit(cache=True)
def check_all_closed(g, h, r):
    """Every announceable rank closed: the rest rank by fewest cards (True: game over)."""
    for k in range(N):
        if not g.closed[k]:
            return False
    rank_by_cards(g, r)
    finish(g, h, r, False)
    return True


@njit(cache=True)
def rank_by_cards(g, r):
    """The players still in take the next places by fewest cards in hand (ties share)."""
    p = r.num_players
    base = num_out(g, r) + 1
    for q in range(p):
        if g.out[q]:
            continue
        mine = g.hand_sizes[q]
        fewer = 0
        for o in range(p):
            if not g.out[o] and g.hand_sizes[o] < mine:
                fewer += 1
        g.place[q] = base + fewer


@njit(cache=True)
def count_endgame(g, h, r):
    """Two players left: after ``endgame_limit`` decisions both take the last place P."""
    if h.terminated or h.truncated or g.endgame_count < 0:
        return
    g.endgame_count += 1
    if g.endgame_count >= r.endgame_limit:
        p = r.num_players
        for q in range(p):
            if not g.out[q]:
                g.place[q] = p
        finish(g, h, r, False)


@njit(cache=True)
def finish(g, h, r, truncated):
    """Game over: placements are the places."""
    DR.end_game(h, truncated, PH_OVER)
    for q in range(r.num_players):
        g.placements[q] = g.place[q]


# ===================================================================== batch kernels
@njit(cache=True)
def accepts(h, r, a):
    """Whether action ``a`` may be applied: legal, or ``timeout`` (runner only, never in the
    mask), which every running game accepts."""
    return 0 <= a < A and (a == TIMEOUT or h.mask[a] != 0)


@njit(cache=True)
def deal_kernel(data, hot, rules, idx, orders):
    """Scripted deals (tests): games ``idx`` (fresh records) dealt ``orders[i]`` (deck positions,
    in place of the seed's shuffle), then started as ``start_kernel`` does."""
    r = rules[0]
    for i in range(idx.shape[0]):
        g = data[idx[i]]
        h = hot[idx[i]]
        build_deck(g, h, r)
        deal(g, h, r, orders[i])
        update_mask(g, h, r)


# ===================================================================== observation
# the structured observation and the flat tensor are declared once, in ``observe.SPEC``: the
# fields name their record sources, and ``observe_row``, ``tensor_row`` and their batch loops
# are generated from it (``obscompile``, at the end of this module).  Here: the named sizes as
# the compiled code reads them, the computed fields (``obs_<name>(g, h, r, seat, ...)``) and
# the builder of the ``Custom`` block.
OBS_SIZES = {"P": "r.num_players", "T": T, "N": N, "W": "r.num_players + 3"}
# the largest value of each size above that varies with the rules: the observation record's
# size (every table of the game shares one record type, so one compiled kernel)
OBS_BOUNDS = {"P": P_MAX, "W": P_MAX + 3}


@njit(cache=True)
def saw_last_check(g, r, seat):
    """``seat`` saw the last checked claim: shown to all (a believed true claim), the taker,
    the claimant, or the Check gadget at a believe / disbelieve (never at a timeout)."""
    if seat < 0:
        return False
    lc = g.last_check
    return ((lc[LC_KIND] == 0 and lc[LC_TRUTH] == 1) or seat == lc[LC_TAKER]
            or seat == lc[LC_CLAIMANT] or (r.check_seat[seat] != 0 and lc[LC_KIND] < 2))


@njit(cache=True)
def obs_my_table(g, h, r, seat, t):
    """Observation ``my_table``: my cards of type ``t`` in the claim on the table."""
    return claim_count(g, t) if seat >= 0 and g.claimant == seat else 0


@njit(cache=True)
def obs_bank_sizes(g, h, r, seat, q):
    """Observation ``bank_sizes``: cards in the Bank owned by seat ``q``."""
    return DR.row_sum(g.bank[q], T)


@njit(cache=True)
def obs_discard_hidden(g, h, r, seat):
    """Observation ``discard_hidden``: cards out of the game unseen."""
    return DR.row_sum(g.discard_hidden, T)


@njit(cache=True)
def obs_last_check_cards(g, h, r, seat, t):
    """Observation ``last_check_cards``: the last checked claim's cards of type ``t``, if
    ``seat`` saw them."""
    return g.last_check_cards[t] if saw_last_check(g, r, seat) else 0


@njit(cache=True)
def obs_swaps_left(g, h, r, seat):
    """Observation ``swaps_left``: the seat's Joker swaps left (0 without the gadget)."""
    return r.joker_swaps - g.swaps_used[seat] if seat >= 0 and r.swap_seat[seat] else 0


@njit(cache=True)
def obs_ace_where(g, h, r, seat, i):
    """Observation ``ace_where``: aces in hand ``i`` (``i < P``), on the table (``P``), in the
    Bank (``P + 1``), out (``P + 2``); -1 unless the seat has the 4-Aces gadget."""
    p = r.num_players
    if seat < 0 or not r.ace_seat[seat]:
        return -1
    if i < p:
        return np.int64(g.hands[i, ACE])
    if i == p:
        return np.int64(claim_count(g, ACE))
    if i == p + 1:
        return np.int64(bank_count(g, r, ACE))
    return np.int64(g.discard_seen[ACE]) + g.discard_hidden[ACE]


@njit(cache=True)
def obs_endgame_left(g, h, r, seat):
    """Observation ``endgame_left``: decisions left in the two-player endgame (-1 before)."""
    return r.endgame_limit - g.endgame_count if g.endgame_count >= 0 else -1


@njit(cache=True)
def obs_swaps_made(g, h, r, seat, q):
    """Observation ``swaps_made``: Joker swaps seat ``q`` made."""
    return g.swaps_used[q]


@njit(cache=True)
def ace_where_block(obs, r, x, o):
    """Tensor block ``ace_where`` at ``x[o:]`` from the observation record: the hands' aces in
    relative seat order, then table, Bank, out (``observe._ace_where``)."""
    p = r.num_players
    me = max(np.int64(obs.seat), 0)
    for j in range(p):
        x[o + j] = obs.ace_where[(me + j) % p]
    for i in range(p, p + 3):
        x[o + i] = obs.ace_where[i]


# ===================================================================== fused random play
@njit(cache=True)
def legal_blocks(g, h, r):
    """The current player's legal actions as blocks in action-id order (what ``update_mask``
    writes, read off the state): (first0, first, n_mid, mid0, swaps).  ``first`` is a bitmask
    of the first block's offsets from ``first0`` (open ranks to announce, or the card types
    held to put), then ``n_mid`` consecutive actions from ``mid0`` (``done``, or ``believe``
    and ``disbelieve``), then ``swaps``, a bitmask of the ranks a Joker swap may give up."""
    ph = h.phase
    if ph == PH_OVER:
        return 0, 0, 0, 0, 0
    me = np.int64(h.current_player)
    held = 0
    if ph == PH_ANNOUNCE:
        first0 = ANNOUNCE0
        first = 0
        for k in range(N):
            first |= np.int64(g.closed[k] == 0) << k
        n_mid, mid0 = 0, DONE
    else:
        held = bn.nonzero_bits(g.hands[me], T)  # (the bytes after the row are the next field's)
        first0 = PUT0
        first = held
        if ph == PH_PUT:
            n_mid, mid0 = (1 if g.put_count >= 1 else 0), DONE
        else:
            n_mid, mid0 = 2, BELIEVE
    swaps = 0
    if ph != PH_PUT and r.any_swap and can_swap(g, r, me):
        if ph == PH_ANNOUNCE:
            held = bn.nonzero_bits(g.hands[me], T)
        swaps = held & ((1 << N) - 1)
    return first0, first, n_mid, mid0, swaps


@njit(cache=True)
def blocks_count(first0, first, n_mid, mid0, swaps):
    """The number of legal actions in ``legal_blocks``' blocks."""
    return bn.popcount(first) + n_mid + bn.popcount(swaps)


@njit(cache=True)
def blocks_nth(first0, first, n_mid, mid0, swaps, k):
    """The ``k``-th legal action (0 <= k < ``blocks_count``) of ``legal_blocks``' blocks."""
    b, k = bn.take_bit(first, k)
    if b >= 0:
        return first0 + b
    if k < n_mid:
        return mid0 + k
    return SWAP0 + bn.nth_set_bit(swaps, k - n_mid)


@njit(cache=True)
def legal_count(g, h, r):
    """The number of legal actions of the current player (the set entries ``update_mask``
    would write), from the state."""
    first0, first, n_mid, mid0, swaps = legal_blocks(g, h, r)
    return blocks_count(first0, first, n_mid, mid0, swaps)


@njit(cache=True)
def nth_legal(g, h, r, k):
    """The ``k``-th legal action in id order (0 <= k < ``legal_count``): the ``k``-th set entry
    of the mask ``update_mask`` would write, from the state."""
    first0, first, n_mid, mid0, swaps = legal_blocks(g, h, r)
    return blocks_nth(first0, first, n_mid, mid0, swaps, k)


@njit(cache=True)
def random_action(g, h, r, seat_key):
    """The ``random`` agent's choice in game ``g`` (``agents.random``): the same action as
    ``rng_nb.random_legal`` on the legal mask (the n-th legal action, n = below(the decision's
    first agent word, the number of legal actions); 0 if none), without reading the mask.
    ``seat_key`` is the current player's agent stream key, ``rng_nb.agent_key``."""
    first0, first, n_mid, mid0, swaps = legal_blocks(g, h, r)
    count = blocks_count(first0, first, n_mid, mid0, swaps)
    if count == 0:
        return 0
    w = rn.minor_word(rn.major_key(seat_key, np.int64(h.num_decisions)), 0)
    return blocks_nth(first0, first, n_mid, mid0, swaps, rn.below(w, count))


@njit(cache=True)
def prefetch(data, hot, r, b):
    """Ask the CPU for game ``b``'s hot record, the fields a decision reads first and the
    ``seen_taken`` rows of the seats at the table (``play_random_kernel``)."""
    bn.prefetch_record(hot, b, 0, HOT_BYTES)
    bn.prefetch_record(data, b, 0, PREFETCH_END)
    for o in range(r.num_players):
        at = PREFETCH_END + o * SEEN_ROW
        bn.prefetch_record(data, b, at, at + r.num_players * SEEN_ROW // P_MAX)


# the rule functions the batch kernels call where they differ from drivers.DRIVER_DEFAULTS
DRIVERS = {"deal": "new_game", "finish": "update_mask", "prefetch": "prefetch"}


def __getattr__(name: str):  # noqa: ANN202
    """The generated kernels (``tensor_row``, ``step_kernel``, ...: ``kernels_generated.py``,
    written by ``bluffsim games --generate`` from ``observe.SPEC``, ``OBS_SIZES`` and
    ``DRIVERS``), imported on first use."""
    return OC.lazy_generated(__package__, name)
