"""The fused random loops' mask-free choice: a game's ``kernels.legal_count`` and
``kernels.nth_legal`` read the legal actions off the state in the order of the legal mask,
so ``random_action`` picks what ``rng_nb.random_legal`` picks from the mask.  Checked on
every game of a batch at every step of random play, for every table of the game's
conformance cases plus a few option extremes."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import bluffsim
from tests.games import random_actions

GAMES = ("legumes", "veru")
TABLES = [(g, p, dict(o)) for g in GAMES for p, o, _ in bluffsim.spec(g).test_tables]
TABLES += [("legumes", 4, {"reverse_alone": True}),
           ("legumes", 3, {"numbers": (1, 1, 1), "hand_size": 2, "max_turns": 80}),
           ("veru", 4, {"joker_swap_seats": (0, 1, 2, 3), "joker_swaps": 10, "jokers": 4}),
           ("veru", 3, {"endgame_limit": 15, "turn_order": "counterclockwise"})]


def listing_kernel(kernels):  # noqa: ANN001, ANN201
    """A compiled loop: per game, ``legal_count`` and the actions ``nth_legal`` gives for
    k = 0 .. count - 1 (-1 padded)."""
    legal_count, nth_legal = kernels.legal_count, kernels.nth_legal

    @njit
    def listing(data, hot, rules, out):  # noqa: ANN001, ANN202
        r = rules[0]
        counts = np.zeros(data.shape[0], np.int64)
        for b in range(data.shape[0]):
            n = legal_count(data[b], hot[b], r)
            counts[b] = n
            for k in range(n):
                out[b, k] = nth_legal(data[b], hot[b], r, k)
        return counts

    return listing


@pytest.mark.parametrize("game_id, players, options", TABLES,
                         ids=[f"{g}-{p}p-{i}" for i, (g, p, _) in enumerate(TABLES)])
def test_legal_listing_equals_the_mask(game_id: str, players: int, options: dict) -> None:
    game = bluffsim.make(game_id, players, **options)
    listing = listing_kernel(game.kernels)
    st = game.init(np.arange(400) + 3 * players)
    na = st.legal_action_mask.shape[1]
    checked, next_seed = 0, 10_000
    for _ in range(300):
        out = np.full((st.batch_size, na), -1, np.int64)
        counts = listing(st.data, st.hot, game._rec, out)
        mask = st.legal_action_mask
        np.testing.assert_array_equal(counts, mask.sum(axis=1))
        # each row: its legal actions in ascending order, then the -1s left unwritten
        listed = np.argsort(~mask, axis=1, kind="stable")
        np.testing.assert_array_equal(out, np.where(np.arange(na) < counts[:, None], listed, -1))
        checked += int(counts.sum())
        game.step(st, random_actions(game, st))
        done = np.flatnonzero(st.done)
        if done.size > 40:
            game.reset_games(st, done, np.arange(next_seed, next_seed + done.size))
            next_seed += done.size
    assert checked > 100_000


def test_bit_helpers_count_and_index_set_bits() -> None:
    from bluffsim import bits_nb as bn
    gen = np.random.default_rng(5)
    for x in [0, 1, 2**62, 2**63 - 1, *gen.integers(0, 2**62, 300).tolist()]:
        bits = [i for i in range(64) if x >> i & 1]
        assert bn.popcount(x) == len(bits)
        assert [bn.nth_set_bit(x, n) for n in range(len(bits))] == bits
        assert bn.nth_set_bit(x, len(bits)) == 64
        assert bn.trailing_zeros(x) == (bits[0] if bits else 64)
        assert [bn.take_bit(x, k) for k in range(len(bits) + 3)] == (
            [(b, 0) for b in bits] + [(-1, k) for k in range(3)])


def test_nonzero_bits_of_record_rows() -> None:
    from bluffsim import bits_nb as bn
    gen = np.random.default_rng(6)
    counts = gen.choice(np.array([0, 0, 0, 1, 2, 5, 127], np.int8), size=(500, 6, 22))
    for row in counts.reshape(-1, 22)[:-1]:  # (the last row has no bytes after it)
        for n in (14, 22):
            assert bn.nonzero_bits(row, n) == sum(1 << t for t in range(n) if row[t] > 0)


def test_agent_key_gives_the_agent_words() -> None:
    from bluffsim import rng
    from bluffsim import rng_nb as nb
    for seed, seat, decision in [(0, 0, 0), (5, 3, 17), (2**64 - 1, 5, 4999), (123, -1, 9)]:
        key = np.uint64(nb.agent_key(np.uint64(seed), seat))
        got = int(nb.minor_word(np.uint64(nb.major_key(key, decision)), 0))
        assert got == int(nb.agent_word(np.uint64(seed), seat, decision, 0))
        assert got == int(rng.AgentRNG(np.asarray([seed], np.uint64), np.asarray([seat]),
                                       np.asarray([decision])).words(1)[0, 0])
