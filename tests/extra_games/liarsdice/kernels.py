"""Compiled (numba) kernels of ``liarsdice``: the ``CompiledGame`` contract
(``bluffsim/games/compiled.py``) in its smallest form.

``hot[B]`` (``HOT_DTYPE``) holds what every decision reads: the seed (required: ``init`` writes
it there), counters, current player, phase, end flags, ``round_over`` and the legal mask (a
column named ``mask``, sized for the largest action space); ``data[B]`` (``STATE_DTYPE``) the
rest, every per-seat array seat axis first and sized for the largest table (``P_MAX``).
Rule functions take one game's records (``g``, ``h``) and the rules record ``r`` and read like
``reference.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bluffsim import rng
from bluffsim import rng_nb as rn
from bluffsim.games import drivers as DR
from bluffsim.games import obscompile as OC
from bluffsim.games.liarsdice import rules as R
from bluffsim.games.liarsdice.reference import D_MAX

P_MAX = 4
F = R.FACES
A_MAX = P_MAX * D_MAX * F + 1
PH_BID, PH_OVER = R.PHASE_BID, R.PHASE_OVER
DEAL = rng.Stream.DEAL

I1, U1 = np.int8, np.uint8
HOT_DTYPE = DR.hot_dtype(A_MAX)
STATE_DTYPE = np.dtype([
    ("placements", I1, (P_MAX,)), ("hands", I1, (P_MAX, F)), ("dice_left", I1, (P_MAX,)),
    ("bid_quantity", I1), ("bid_face", I1), ("bidder", I1), ("eliminated", I1),
    ("last_reveal", I1, (6,)),
], align=True)
RULES_DTYPE = np.dtype([("num_players", np.int64), ("dice", np.int64), ("liar", np.int64)])


def rules_record(rules: R.Rules) -> np.ndarray:
    """A one-element ``RULES_DTYPE`` array holding ``rules``."""
    r = np.zeros(1, RULES_DTYPE)
    r["num_players"], r["dice"], r["liar"] = rules.num_players, rules.dice, rules.liar
    return r


def blank_record(rules: R.Rules) -> np.ndarray:
    """A 0-d ``STATE_DTYPE`` record of a new game before its roll."""
    g = np.zeros((), STATE_DTYPE)
    g["dice_left"][:rules.num_players] = rules.dice
    g["bid_quantity"] = g["bid_face"] = g["bidder"] = -1
    g["last_reveal"][:] = -1
    return g


# ===================================================================== rules
@njit(cache=True)
def roll_all(g, h, r):
    """Every seat still in rolls its dice (``reference.roll``)."""
    for s in range(r.num_players):
        for f in range(F):
            g.hands[s, f] = 0
        for die in range(g.dice_left[s]):
            g.hands[s, rn.below(rn.word(h.seed, DEAL, h.num_rounds, s * D_MAX + die), F)] += 1


@njit(cache=True)
def next_in(g, r, seat):
    """The first seat after ``seat`` that still has dice."""
    p = r.num_players
    for k in range(1, p + 1):
        if g.dice_left[(seat + k) % p] > 0:
            return (seat + k) % p
    return seat


@njit(cache=True)
def bid(g, h, r, a):
    """A higher bid; the next seat in decides."""
    g.bid_quantity = a // F + 1
    g.bid_face = a % F
    g.bidder = h.current_player
    h.current_player = next_in(g, r, np.int64(h.current_player))


@njit(cache=True)
def call(g, h, r):
    """``liar``: count the bid face on the table; the wrong side loses a die."""
    me = np.int64(h.current_player)
    face = np.int64(g.bid_face)
    count = 0
    for s in range(r.num_players):
        count += g.hands[s, face]
    loser = me if count >= g.bid_quantity else np.int64(g.bidder)
    lr = g.last_reveal
    lr[0], lr[1], lr[2], lr[3], lr[4], lr[5] = me, g.bidder, g.bid_quantity, face, count, loser
    h.num_rounds += 1
    h.round_over = 1
    g.dice_left[loser] -= 1
    if g.dice_left[loser] == 0:
        g.placements[loser] = r.num_players - g.eliminated
        g.eliminated += 1
    if g.eliminated == r.num_players - 1:
        for s in range(r.num_players):
            if g.dice_left[s] > 0:
                g.placements[s] = 1
        h.terminated = 1
        h.phase = PH_OVER
        h.current_player = -1
        return
    g.bid_quantity = g.bid_face = g.bidder = -1
    h.current_player = loser if g.dice_left[loser] > 0 else next_in(g, r, loser)
    roll_all(g, h, r)


@njit(cache=True)
def apply_rules(g, h, r, a):
    """One legal decision of the current player, without the legal mask."""
    h.num_decisions += 1
    if a == r.liar:
        call(g, h, r)
    else:
        bid(g, h, r, a)


# ===================================================================== legality
@njit(cache=True)
def legal_range(g, h):
    """(first, end, liar_ok): the legal bids are ids first..end-1, then ``liar`` if liar_ok."""
    if h.phase == PH_OVER:
        return 0, 0, False
    first = 0 if g.bid_quantity < 0 else (g.bid_quantity - 1) * F + g.bid_face + 1
    in_play = 0
    for s in range(g.dice_left.shape[0]):
        in_play += g.dice_left[s]
    return first, max(first, in_play * F), g.bid_quantity >= 0


@njit(cache=True)
def update_mask(g, h, r):
    """The legal actions of the current player (none once over)."""
    m = h.mask
    for a in range(A_MAX):
        m[a] = 0
    first, end, liar_ok = legal_range(g, h)
    for a in range(first, end):
        m[a] = 1
    if liar_ok:
        m[r.liar] = 1


@njit(cache=True)
def random_action(g, h, r, seat_key):
    """The ``random`` agent's choice (``agents.random``): the n-th legal action in id order,
    n = below(the decision's first agent word, the number of legal actions)."""
    first, end, liar_ok = legal_range(g, h)
    count = end - first + (1 if liar_ok else 0)
    if count == 0:
        return 0
    k = rn.below(rn.minor_word(rn.major_key(seat_key, np.int64(h.num_decisions)), 0), count)
    return first + k if k < end - first else r.liar


# ===================================================================== batch kernels
# the loops are bluffsim.games.drivers'; a game passes its rule functions
@njit(cache=True)
def apply(g, h, r, a):
    """Apply one legal decision, then set the next legal mask."""
    apply_rules(g, h, r, a)
    update_mask(g, h, r)


@njit(cache=True)
def accepts(h, r, a):
    """Whether action ``a`` is legal in the running game ``h``."""
    return 0 <= a <= r.liar and h.mask[a] != 0


# ===================================================================== observation
# declared once in ``observe.SPEC``: each field names its record source (``"data.dice_left"``,
# ``"hot.num_rounds"``, ``"data.hands[seat]"`` = the observer's row), each tensor block its
# encoding; ``observe_row``, ``tensor_row`` and their batch loops are generated from it.
# The compiled code reads the spec's named sizes as given here (an int, or an expression of the
# rules record ``r``); a computed field (source None) would add ``obs_<name>(g, h, r, seat, ...)``.
OBS_SIZES = {"P": "r.num_players", "F": F}
# the largest value of each size above that varies with the rules: the observation record's
# size (every table of the game shares one record type, so one compiled kernel)
OBS_BOUNDS = {"P": P_MAX}
# the rule functions the batch kernels call where they differ from drivers.DRIVER_DEFAULTS
DRIVERS = {"deal": "roll_all", "finish": "update_mask"}


def __getattr__(name: str):  # noqa: ANN202
    """The generated kernels (``tensor_row``, ``step_kernel``, ...: ``kernels_generated.py``,
    written by ``bluffsim games --generate`` from ``observe.SPEC``, ``OBS_SIZES`` and
    ``DRIVERS``), imported on first use."""
    return OC.lazy_generated(__package__, name)
