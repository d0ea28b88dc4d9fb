"""``bluffsim.rng`` compiled with numba: scalar ``@njit`` functions, bit-identical to it.

The compiled engines draw every random number through these functions; they
return exactly what ``rng.word``, ``rng.below_scalar``, ``rng.permutation`` and
``AgentRNG`` return for the same (seed, stream, major, minor).  Every constant is
an ``np.uint64`` so that the arithmetic stays in wrapping unsigned 64-bit integers
(numba turns a mix of uint64 and int64 into float64).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bluffsim import rng

_U = np.uint64
M1 = _U(rng._M1)
M2 = _U(rng._M2)
G_SEED = _U(rng._G_SEED)
G_STREAM = _U(rng._G_STREAM)
G_COUNTER = _U(rng._G_COUNTER)
OFFSET = _U(rng._OFFSET)
G_MINOR = _U(rng._G_MINOR)
OFFSET2 = _U(rng._OFFSET2)
S33 = _U(33)
S11 = _U(11)
S53 = _U(53)
ONE = _U(1)
ALL = _U(rng.MASK64)
INV53 = 2.0 ** -53
AGENT = rng.Stream.AGENT
BUCKETS = 64  # shuffle keys are bucketed by their top 6 bits
BUCKET_SHIFT = _U(58)
RANK_MAX_N = 16  # shuffles of up to this many keys place each key by counting smaller ones
BYTE_BUCKETS_MAX_N = 255  # shuffles of up to this many keys bucket by their top 8 bits
BYTE_WORDS = 32  # 256 byte counters in the first 32 words of ``counts``
BYTE_SHIFT = _U(56)
BYTE_TOP = _U(56)
BYTE_ONES = _U(0x0101010101010101)


@njit(cache=True)
def fmix(x: np.uint64) -> np.uint64:
    """murmur3 64-bit finaliser (wrapping uint64 arithmetic)."""
    x = _U(x)
    x ^= x >> S33
    x *= M1
    x ^= x >> S33
    x *= M2
    x ^= x >> S33
    return x


@njit(cache=True)
def stream_key(seed: np.uint64, stream: int) -> np.uint64:
    """First level of the hash: (seed, stream), shared by all counters of a stream."""
    return fmix(_U(seed) * G_SEED + _U(stream) * G_STREAM)


@njit(cache=True)
def major_key(key: np.uint64, major: int) -> np.uint64:
    """Second level: ``stream_key`` and ``major`` (e.g. the round or the decision index)."""
    return fmix(key ^ (_U(major) * G_COUNTER + OFFSET))


@njit(cache=True)
def minor_word(sub: np.uint64, minor: int) -> np.uint64:
    """Third level: the word at ``minor`` of a ``major_key``."""
    return fmix(sub ^ (_U(minor) * G_MINOR + OFFSET2))


@njit(cache=True)
def word(seed: np.uint64, stream: int, major: int, minor: int) -> np.uint64:
    """One 64-bit random word for (seed, stream, major, minor); equals ``rng.word``."""
    return minor_word(major_key(stream_key(seed, stream), major), minor)


@njit(cache=True)
def below(w: np.uint64, n: int) -> int:
    """Integer uniform in ``[0, n)`` (n < 2048) from a word; equals ``rng.below_scalar``."""
    return np.int64(((_U(w) >> S11) * _U(n)) >> S53)


@njit(cache=True)
def uniform(w: np.uint64) -> float:
    """Float uniform in [0, 1) (53 bits) from a word; equals ``AgentRNG.uniform``."""
    return np.float64(_U(w) >> S11) * INV53


@njit(cache=True)
def index_bits(n: int) -> int:
    """Low bits of a shuffle key holding the item's position; equals ``rng.index_bits``."""
    bits = 0
    m = n - 1
    while m > 0:
        bits += 1
        m >>= 1
    return max(1, bits)


@njit(cache=True)
def shuffle_keys(seed: np.uint64, stream: int, major: int, n: int, width: int, keys, tmp,
                 counts) -> None:
    """Sorted shuffle keys of (seed, stream, major) in ``keys[:n]``; ``keys[i] & low`` is the
    i-th entry of ``rng.permutation(seed, stream, major, n, width)`` (``low = 2**bits - 1``).

    ``tmp`` (uint64, >= n) and ``counts`` (int64, >= ``BUCKETS + 1``) are scratch.  The keys
    are bucketed by their top bits (one counting pass), then an insertion sort fixes the few
    inversions left inside buckets: the same order as a full sort, several times faster
    than an insertion sort alone for a deck of 52.  Up to ``BYTE_BUCKETS_MAX_N`` keys use
    256 buckets counted in bytes (the scratch ``counts`` viewed as uint8), their offsets
    summed eight buckets per 64-bit word: fewer inversions left for the insertion sort.
    Up to ``RANK_MAX_N`` keys are placed directly, each at the number of smaller keys.
    """
    bits = _U(index_bits(width))
    sub = major_key(stream_key(seed, stream), major)
    if n <= RANK_MAX_N:  # a few keys: each key's place is the number of smaller keys
        for i in range(n):
            tmp[i] = ((minor_word(sub, i) >> bits) << bits) | _U(i)
        for i in range(n):
            k = tmp[i]
            at = 0
            for j in range(n):
                at += tmp[j] < k
            keys[at] = k
        return
    if n <= BYTE_BUCKETS_MAX_N:
        c64 = counts
        c8 = counts.view(np.uint8)
        for j in range(BYTE_WORDS):
            c64[j] = 0
        for i in range(n):
            tmp[i] = ((minor_word(sub, i) >> bits) << bits) | _U(i)
        for i in range(n):
            c8[np.int64(tmp[i] >> BYTE_SHIFT)] += 1
        carry = _U(0)
        for j in range(BYTE_WORDS):  # exclusive prefix sums, bytewise (they stay below 256)
            v = _U(c64[j])
            incl = v * BYTE_ONES
            c64[j] = np.int64(incl - v + carry * BYTE_ONES)
            carry += incl >> BYTE_TOP
        for i in range(n):
            k = tmp[i]
            c = np.int64(k >> BYTE_SHIFT)
            at = c8[c]
            keys[at] = k
            c8[c] = at + 1
    else:
        for c in range(BUCKETS + 1):
            counts[c] = 0
        for i in range(n):
            k = ((minor_word(sub, i) >> bits) << bits) | _U(i)
            tmp[i] = k
            counts[np.int64(k >> BUCKET_SHIFT) + 1] += 1
        for c in range(BUCKETS):
            counts[c + 1] += counts[c]
        for i in range(n):
            k = tmp[i]
            c = np.int64(k >> BUCKET_SHIFT)
            keys[counts[c]] = k
            counts[c] += 1
    top = keys[0]  # the largest key so far: most keys are already in place
    for i in range(1, n):
        k = keys[i]
        if k < top:
            j = i
            while j > 0 and keys[j - 1] > k:
                keys[j] = keys[j - 1]
                j -= 1
            keys[j] = k
        else:
            top = k


@njit(cache=True)
def permutation_into(seed: np.uint64, stream: int, major: int, n: int, keys, tmp, counts,
                     out) -> None:
    """``out[:n]`` = ``rng.permutation(seed, stream, major, n)``; ``keys``, ``tmp`` (uint64)
    and ``counts`` (int64) are scratch (see ``shuffle_keys``)."""
    shuffle_keys(seed, stream, major, n, n, keys, tmp, counts)
    low = (ONE << _U(index_bits(n))) - ONE
    for i in range(n):
        out[i] = np.int64(keys[i] & low)


@njit(cache=True)
def shuffled_into(seed: np.uint64, stream: int, major: int, n: int, keys, tmp, counts, deck,
                  out) -> None:
    """``out[i] = deck[p[i]]`` for ``p`` = ``rng.permutation(seed, stream, major, n)``: a deck
    shuffled; ``keys``, ``tmp`` (uint64) and ``counts`` (int64) are scratch."""
    shuffle_keys(seed, stream, major, n, n, keys, tmp, counts)
    low = (ONE << _U(index_bits(n))) - ONE
    for i in range(n):
        out[i] = deck[np.int64(keys[i] & low)]


@njit(cache=True)
def agent_word(seed: np.uint64, seat: int, decision: int, i: int) -> np.uint64:
    """The ``i``-th word of an agent's decision; equals ``AgentRNG.words()[:, i]``
    (stream ``Stream.AGENT + max(seat, 0)``, major = the decision index)."""
    return word(seed, AGENT + max(seat, 0), decision, i)


@njit(cache=True)
def agent_key(seed: np.uint64, seat: int) -> np.uint64:
    """The ``stream_key`` of a seat's agent stream: ``agent_word(seed, seat, d, i)`` equals
    ``minor_word(major_key(agent_key(seed, seat), d), i)`` (a loop over one game's decisions
    hashes it once per seat)."""
    return stream_key(seed, AGENT + max(seat, 0))



@njit(cache=True)
def random_legal(mask: np.ndarray, seed: np.uint64, seat: int, decision: int) -> int:
    """The ``random`` agent's choice (``agents.random``) from a legal mask: the n-th set entry,
    n = below(the decision's first agent word, number of set entries); 0 if none is set."""
    count = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            count += 1
    k = below(agent_word(seed, seat, decision, 0), count)
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return 0
