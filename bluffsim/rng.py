"""Counter-based random streams: a value depends only on (seed, stream, major, minor).

Every random number in bluffsim is ``word(seed, stream, major, minor)``: a 64-bit
hash built from three rounds of the murmur3 64-bit finaliser, one per level of
the key (seed and stream, then ``major`` - e.g. the round, then ``minor`` - e.g.
the card position).  Nothing is carried from one draw to the next, so a game's
randomness never depends on batch size, batch position, worker or executor.

Two paths give bit-identical values:

* vectorised (``words``, ``below``, ``permutations``): numpy ``uint64`` arrays,
  broadcasting seeds against counters; the first two levels are hashed once per
  game, so a shuffle costs one finaliser per card;
* scalar (``word``, ``below_scalar``, ``permutation``): plain Python integers,
  used by the reference engines.

Shuffles sort ``n`` random words whose low ``index_bits(n)`` bits are replaced
by the item's position: one plain ``np.sort`` over a batch (faster than an
``argsort``), ties impossible, the permutation read back from the low bits.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MASK64 = (1 << 64) - 1
_M1 = 0xFF51AFD7ED558CCD
_M2 = 0xC4CEB9FE1A85EC53
_G_SEED = 0x9E3779B97F4A7C15
_G_STREAM = 0xD1B54A32D192ED03
_G_COUNTER = 0xBF58476D1CE4E5B9
_OFFSET = 0x94D049BB133111EB
_G_MINOR = 0x8CB92BA72F3D8DD7
_OFFSET2 = 0x2545F4914F6CDD1D


class Stream:
    """Every random-stream id of bluffsim, in one place (values are fixed: they key the results).

    Games draw from DEAL..RESHUFFLE, the tournament from SCHEDULE and POOL, agents
    from ``AGENT + seat``, learning from MIX, RESEED, ABR_EVAL and RESPONSE.  A new stream takes a new id.
    """

    DEAL = 1            # the deal (qdv: per round; legumes, veru: once)
    CHALLENGE_DECK = 2  # qdv: the challenge deck's shuffle, per round
    EFFECT = 3          # qdv: challenge effects' picks (reveal, discard)
    OPENER = 4          # legumes, veru: the first player drawn from the seed
    JOKER = 5           # veru: which non-ace cards become Jokers
    RESHUFFLE = 6       # legumes: the discard pile shuffled into a new draw pile
    SCHEDULE = 7        # tournament: game seed j = word(master, SCHEDULE, j)
    POOL = 8            # tournament pools: the lineups drawn from the pool
    AGENT = 1000        # agents use AGENT + seat
    MIX = 4242          # learn: the mixture member of each (game, seat)
    RESEED = 4343       # learn (PPO): the env's game seed at each reset
    ABR_EVAL = 4444     # learn (ABR): the master seed of the evaluation tournament
    RESPONSE = 4545     # learn (PPO): the seed of each best response to a snapshot


# ----------------------------------------------------------------- scalar path
def _fmix(x: int) -> int:
    """murmur3 64-bit finaliser on a Python int."""
    x ^= x >> 33
    x = (x * _M1) & MASK64
    x ^= x >> 33
    x = (x * _M2) & MASK64
    x ^= x >> 33
    return x


def word(seed: int, stream: int, major: int, minor: int = 0) -> int:
    """One 64-bit random word for (seed, stream, major, minor), as a Python int."""
    key = _fmix((seed * _G_SEED + stream * _G_STREAM) & MASK64)
    sub = _fmix(key ^ ((major * _G_COUNTER + _OFFSET) & MASK64))
    return _fmix(sub ^ ((minor * _G_MINOR + _OFFSET2) & MASK64))


def below_scalar(w: int, n: int) -> int:
    """Map a word to an integer uniform in ``[0, n)`` (n < 2048); identical to ``below``."""
    return ((w >> 11) * n) >> 53


def index_bits(n: int) -> int:
    """Low bits of a shuffle key that hold the item's position (n <= 65536)."""
    return max(1, (n - 1).bit_length())


def permutation(seed: int, stream: int, major: int, n: int, width: int | None = None) -> list[int]:
    """A uniform permutation of ``range(n)`` keyed by (seed, stream, major).

    ``width`` (>= n) fixes the index bits as for a shuffle of ``width`` items, so
    the result equals the first ``n`` entries of ``ragged_permutations`` rows.
    """
    bits = index_bits(width or n)
    keys = [(word(seed, stream, major, i) >> bits << bits) | i for i in range(n)]
    return [k & ((1 << bits) - 1) for k in sorted(keys)]


# ------------------------------------------------------------- vectorised path
_U = np.uint64


def _fmix_np(x: np.ndarray) -> np.ndarray:
    """murmur3 64-bit finaliser on a uint64 array (wrapping arithmetic)."""
    x = x ^ (x >> _U(33))
    x = x * _U(_M1)
    x ^= x >> _U(33)
    x *= _U(_M2)
    x ^= x >> _U(33)
    return x


def _as_u64(a: np.ndarray | int | Sequence[int]) -> np.ndarray:
    """Integer data as a (at least 1-D) uint64 array; bits of non-negative values unchanged.

    At least 1-D because numpy warns on wrapping arithmetic of 0-d scalars only.
    """
    arr = np.atleast_1d(np.asarray(a))
    if arr.dtype != np.uint64:
        arr = arr.astype(np.uint64)
    return arr


def words(seeds: np.ndarray, stream: int | np.ndarray, major: np.ndarray | int,
          minor: np.ndarray | int = 0) -> np.ndarray:
    """Random words for arrays of seeds, streams, majors and minors (numpy broadcasting).

    Hash the first two levels on arrays shaped like the games (e.g. ``[B, 1]``)
    and pass a ``minor`` row such as ``np.arange(n)`` to get ``[B, n]`` cheaply.
    """
    # uint64 array arithmetic wraps modulo 2**64 silently (only numpy scalars warn)
    s = _as_u64(seeds)
    key = _fmix_np(s * _U(_G_SEED) + _as_u64(stream) * _U(_G_STREAM))
    sub = _fmix_np(key ^ (_as_u64(major) * _U(_G_COUNTER) + _U(_OFFSET)))
    return _fmix_np(sub ^ (_as_u64(minor) * _U(_G_MINOR) + _U(_OFFSET2)))


def below(w: np.ndarray, n: np.ndarray | int) -> np.ndarray:
    """Integers uniform in ``[0, n)`` from words (n < 2048), as int64; matches ``below_scalar``."""
    return ((_as_u64(w) >> _U(11)) * _as_u64(n) >> _U(53)).astype(np.int64)


def permutations(seeds: np.ndarray, stream: int, major: np.ndarray | int, n: int) -> np.ndarray:
    """One permutation of ``range(n)`` per seed, shape ``[B, n]``; row b equals ``permutation``."""
    seeds = np.asarray(seeds, dtype=np.uint64)
    major = np.broadcast_to(_as_u64(major), seeds.shape)
    minor = np.arange(n, dtype=np.uint64)
    bits = _U(index_bits(n))
    keys = words(seeds[:, None], stream, major[:, None], minor)
    keys >>= bits
    keys <<= bits
    keys |= minor
    keys.sort(axis=1)
    keys &= (_U(1) << bits) - _U(1)
    return keys.astype(np.int64)


def ragged_permutations(seeds: np.ndarray, stream: int, major: np.ndarray | int,
                        lengths: np.ndarray, width: int) -> np.ndarray:
    """Row b: a permutation of ``range(lengths[b])`` then -1 padding, shape ``[B, width]``.

    Equals ``permutation(seed, stream, major, lengths[b], width)`` row by row.
    """
    seeds = np.asarray(seeds, dtype=np.uint64)
    major = np.broadcast_to(_as_u64(major), seeds.shape)
    minor = np.arange(width, dtype=np.uint64)
    bits = _U(index_bits(width))
    keys = words(seeds[:, None], stream, major[:, None], minor)
    keys = ((keys >> bits) << bits) | minor
    keys[minor[None, :] >= np.asarray(lengths, dtype=np.uint64)[:, None]] = _U(MASK64)
    keys.sort(axis=1)
    out = (keys & ((_U(1) << bits) - _U(1))).astype(np.int64)
    out[np.arange(width)[None, :] >= np.asarray(lengths)[:, None]] = -1
    return out


class AgentRNG:
    """Per-decision random words for a batch of agents.

    Keyed by (game seed, ``Stream.AGENT + seat``, decision index), so an agent's
    draws do not depend on the batch it plays in.
    """

    def __init__(self, seeds: np.ndarray, seats: np.ndarray, decisions: np.ndarray):
        self.seeds = np.asarray(seeds, dtype=np.uint64)
        self.streams = Stream.AGENT + np.maximum(np.asarray(seats, dtype=np.int64), 0)
        self.decisions = np.asarray(decisions, dtype=np.uint64)

    def words(self, n: int = 1) -> np.ndarray:
        """``n`` independent words per game, shape ``[B, n]``."""
        return words(self.seeds[:, None], self.streams[:, None], self.decisions[:, None],
                     np.arange(n, dtype=np.uint64))

    def uniform(self, n: int = 1) -> np.ndarray:
        """Floats uniform in [0, 1), shape ``[B, n]`` (53 bits)."""
        return (self.words(n) >> _U(11)).astype(np.float64) * (2.0**-53)

    def below(self, n: np.ndarray | int) -> np.ndarray:
        """One integer uniform in ``[0, n)`` per game."""
        return below(self.words(1)[:, 0], n)
