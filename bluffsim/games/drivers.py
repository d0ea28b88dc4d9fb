"""The compiled drivers every game's engine shares, written once: a game's ``kernels.py`` holds
its rules (``apply``, ``update_mask``, ``random_action``, ...) and makes each batch kernel a
cached one-line call of a loop here, passing its own rule functions (``tensor_row`` and its
kernel are generated from the game's observation spec: ``games.obscompile``).

| loop here | the game's kernel | what it does |
|---|---|---|
| ``step_loop`` | ``step_kernel`` | check every running game's action, then apply them |
| ``start_loop`` | ``start_kernel`` | deal fresh games and set their masks |
| ``mask_loop`` | ``mask_kernel`` | recompute every legal mask |
| ``tensor_loop`` | ``tensor_kernel`` | the flat observation tensor, row by row |
| ``play_random_loop`` | ``play_random_kernel`` | every seat ``random``, game-major |
| ``act_loop`` | an agent's ``act_kernel`` | a compiled policy's action in every game |

The loops are ``inline="always"``: numba compiles each into the game's cached kernel with the
game's functions called directly; the kernels themselves are ``KERNELS``, written into each
game's ``kernels_generated.py`` by ``bluffsim games --generate`` (a function passed to
a cached kernel as a value would make it uncacheable, and counting references on every call
made fused play 4x slower).  numba's cache keys a kernel on its own file only;
``bluffsim.numba_sources`` clears the cached kernels when a source they call changes.
``one_hot``/``rel_seat`` are the tensor encodings every game uses (the generated ``tensor_row``
calls them, ``games.obscompile``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bluffsim import rng_nb as rn


@njit(inline="always")
def step_loop(accepts, apply, data, hot, rules, actions):
    """One decision per game: returns the first running game whose action ``accepts(h, r, a)``
    refuses (nothing applied then), or -1 after applying every running game's action
    (``round_over`` cleared first).  Finished games ignore their action."""
    r = rules[0]
    n = data.shape[0]
    for b in range(n):
        h = hot[b]
        if h.terminated or h.truncated:
            continue
        if not accepts(h, r, actions[b]):
            return b
    for b in range(n):
        g = data[b]
        h = hot[b]
        h.round_over = 0
        if h.terminated or h.truncated:
            continue
        apply(g, h, r, actions[b])
    return -1


@njit(inline="always")
def start_loop(deal, update_mask, data, hot, rules, idx):
    """Deal games ``idx`` (fresh records holding their seeds) with ``deal`` and set their masks."""
    r = rules[0]
    for i in range(idx.shape[0]):
        g = data[idx[i]]
        h = hot[idx[i]]
        deal(g, h, r)
        update_mask(g, h, r)


@njit(inline="always")
def mask_loop(update_mask, data, hot, rules):
    """Recompute every game's legal mask (after writing a state from outside)."""
    r = rules[0]
    for b in range(data.shape[0]):
        update_mask(data[b], hot[b], r)


@njit(inline="always")
def observe_loop(observe_row, data, hot, rules, obs):
    """Every game's observation into its record ``obs[b]``: the game's ``observe_row``."""
    r = rules[0]
    for b in range(data.shape[0]):
        observe_row(data[b], hot[b], r, obs[b])


@njit(inline="always")
def tensor_loop(observe_row, tensor_row, data, hot, rules, obs, out):
    """The flat observation tensor of every game into ``out`` (zeroed float32[B, D]), row by
    row: the game's ``observe_row`` into the record ``obs[0]``, then its ``tensor_row``."""
    r = rules[0]
    o = obs[0]
    for b in range(data.shape[0]):
        observe_row(data[b], hot[b], r, o)
        tensor_row(o, r, out[b])


@njit(inline="always")
def play_random_loop(random_action, apply_rules, finish, prefetch, data, hot, rules, decisions,
                     counts):
    """Every seat ``random``, game-major: each running game advances up to ``decisions``
    decisions in a row (stopping when over), exactly as ``decisions`` calls of ``step`` with the
    random agent would: ``random_action(g, h, r, seat_key)`` then ``apply_rules``; ``finish(g,
    h, r)`` once after a game's last decision of the call (a game whose ``apply_rules`` leaves
    the mask stale writes it there); ``prefetch(data, hot, r, b)`` before game ``b - 1``'s
    turn.  ``counts`` gets (decisions made, rounds finished, games ended); ``round_over`` is
    left set on games whose last round ended during the call."""
    r = rules[0]
    p = r.num_players
    made = 0
    rounds = 0
    ended = 0
    keys = np.empty(p, np.uint64)  # each seat's agent stream key in the current game
    for b in range(data.shape[0]):
        g = data[b]
        h = hot[b]
        prefetch(data, hot, r, b + 1)
        h.round_over = 0
        if h.terminated or h.truncated:
            continue
        for s in range(p):
            keys[s] = rn.agent_key(h.seed, s)
        start_rounds = h.num_rounds
        for _ in range(decisions):
            apply_rules(g, h, r, random_action(g, h, r, keys[np.int64(h.current_player)]))
            made += 1
            if h.terminated or h.truncated:
                ended += 1
                break
        finish(g, h, r)
        rounds += h.num_rounds - start_rounds
    counts[0] = made
    counts[1] = rounds
    counts[2] = ended


@njit(inline="always")
def act_loop(policy, data, hot, rules, params, out):
    """``out[b]``: ``policy(g, h, r, params)`` of every running game of the batch (-1 once
    over): a compiled agent policy on a whole batch (tests compare it with the numpy agent)."""
    r = rules[0]
    for b in range(data.shape[0]):
        h = hot[b]
        if h.terminated or h.truncated:
            out[b] = -1
        else:
            out[b] = policy(data[b], h, r, params)


# The batch kernels of a game, as numba source: ``obscompile.generated_source`` fills in the
# game's rule functions (``DRIVER_DEFAULTS`` and the game's ``kernels.DRIVERS``) and writes them
# to its ``kernels_generated.py`` (cached one-line calls of the loops above: numba caches a
# kernel that calls the game's functions directly, not one that receives them as values).
KERNELS = '''@njit(cache=True)
def step_kernel(data, hot, rules, actions):
    """One decision per game (``drivers.step_loop``): the first game whose action is illegal
    (nothing applied then), or -1.  Finished games ignore their action."""
    return DR.step_loop({accepts}, {apply}, data, hot, rules, actions)


@njit(cache=True)
def start_kernel(data, hot, rules, idx):
    """Deal games ``idx`` (fresh records holding their seeds) and set their masks."""
    DR.start_loop({deal}, {update_mask}, data, hot, rules, idx)


@njit(cache=True)
def mask_kernel(data, hot, rules):
    """Recompute every game's legal mask (after writing a state from outside)."""
    DR.mask_loop({update_mask}, data, hot, rules)


@njit(cache=True)
def play_random_kernel(data, hot, rules, decisions, counts):
    """Every seat ``random``, game-major (``drivers.play_random_loop``): each running game
    advances up to ``decisions`` decisions in a row (stopping when over), exactly as
    ``decisions`` calls of ``step`` with the random agent would.  ``counts`` gets (decisions
    made, rounds finished, games ended); ``round_over`` is left set on games whose last round
    ended during the call."""
    DR.play_random_loop({random_action}, {apply_rules}, {finish}, {prefetch}, data, hot, rules,
                        decisions, counts)
'''


DRIVER_DEFAULTS = {"accepts": "accepts", "apply": "apply", "update_mask": "update_mask",
                   "random_action": "random_action", "apply_rules": "apply_rules",
                   "finish": "DR.no_finish", "prefetch": "DR.no_prefetch"}
"""The rule function of each slot of ``KERNELS`` unless a game's ``kernels.DRIVERS`` names
another (``deal`` has no default)."""


def hot_dtype(num_actions: int, spare: int = 0) -> np.dtype:
    """The hot record every game's engine keeps per game (``HOT_DTYPE``): seed, counters, whose
    turn, phase, the end flags, ``round_over`` and the legal mask of ``num_actions`` bytes (then
    ``spare`` padding bytes)."""
    fields = [("seed", np.uint64), ("num_decisions", np.int32), ("num_rounds", np.int32),
              ("current_player", np.int8), ("phase", np.int8), ("terminated", np.uint8),
              ("truncated", np.uint8), ("round_over", np.uint8), ("mask", np.uint8, (num_actions,))]
    if spare:
        fields.append(("spare", np.uint8, (spare,)))
    return np.dtype(fields, align=True)


@njit(cache=True)
def end_game(h, truncated, over_phase):
    """Mark the game of hot record ``h`` over: terminated (or ``truncated``), in phase
    ``over_phase``, nobody's turn."""
    h.terminated = 0 if truncated else 1
    h.truncated = 1 if truncated else 0
    h.phase = over_phase
    h.current_player = -1


@njit(cache=True)
def clear_mask(h, over_phase):
    """Zero the legal mask of hot record ``h``; whether the game is over (phase
    ``over_phase``: nothing is legal then)."""
    m = h.mask
    for a in range(m.shape[0]):
        m[a] = 0
    return h.phase == over_phase


@njit(cache=True)
def row_sum(row, n):
    """The sum of ``row[:n]`` as an int64, left to right (a pile's or a hand's card count)."""
    total = 0
    for i in range(n):
        total += row[i]
    return total


@njit(cache=True)
def no_prefetch(data, hot, r, b):
    """A ``prefetch`` that does nothing."""


@njit(cache=True)
def no_finish(g, h, r):
    """A ``finish`` that does nothing (the game's ``apply_rules`` keeps its mask current)."""


@njit(cache=True)
def one_hot(x, o, value, n):
    """Set ``x[o + value]`` (when 0 <= value < n); returns the next offset."""
    if 0 <= value < n:
        x[o + value] = 1.0
    return o + n


@njit(cache=True)
def rel_seat(x, o, seat, me, p):
    """One-hot relative position of an absolute seat (zeros for -1); next offset."""
    if seat >= 0:
        x[o + (seat - me) % p] = 1.0
    return o + p
