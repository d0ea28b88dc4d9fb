"""Which games are played: seeds from the master seed, seatings, and shards.

Game ``i`` (0-based, global) is played with

* ``deal(i) = i // P`` if duplicate deals are on (every deal replayed under all
  ``P`` rotations of the lineup), else ``i``;
* seed ``word(master, SCHEDULE, deal(i))`` (a 64-bit counter-based hash);
* rotation ``i % P`` if seat rotation is on, else 0: lineup entry ``j`` sits in
  seat ``(j + rotation) % P``, so over ``P`` consecutive games every agent sits
  in every seat once;
* with ``permute`` instead, seating ``i % P!`` of all ``P!`` orders
  (``itertools.permutations``): lineup entry ``j`` sits in seat ``perm[j]``, so
  every agent also meets every other in every relative position — needed where
  the neighbour order matters (in veru the player after a reckless one profits).
  Duplicate deals then replay each deal under all ``P!`` seatings.

With a **pool** (``lineups`` set: more agents than seats, ``bluffsim.tournament.pool``)
the games run in blocks of one seating cycle: block ``c = i // S`` (``S`` seatings)
plays lineup ``c % L`` of the ``L`` lineups, seated by seating ``i % S``; so
every lineup plays every seating equally once ``games`` is a multiple of ``L·S``,
and duplicate deals replay a deal under the ``S`` seatings of one lineup.
``seat_lineup`` then gives pool indices.

Shards are consecutive ranges of ``shard_games`` games; results never depend on
how shards are distributed over workers or executors.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from bluffsim import rng

SCHEDULE_STREAM = rng.Stream.SCHEDULE


@dataclass(frozen=True)
class Schedule:
    """Seeds and seatings of an experiment's games."""

    master_seed: int
    num_games: int
    num_players: int
    rotate: bool = True
    duplicate: bool = False
    shard_games: int = 5000
    permute: bool = False
    lineups: tuple[tuple[int, ...], ...] | None = None   # pool lineups (pool indices), or None

    @property
    def seatings(self) -> np.ndarray:
        """int8[S, P]: seat of each lineup entry in each seating of the cycle."""
        p = self.num_players
        if self.permute:
            return np.asarray(list(itertools.permutations(range(p))), dtype=np.int8)
        if self.rotate:
            return ((np.arange(p)[None, :] + np.arange(p)[:, None]) % p).astype(np.int8)
        return np.arange(p, dtype=np.int8)[None, :]

    @property
    def num_shards(self) -> int:
        """Number of shards."""
        return -(-self.num_games // self.shard_games)

    def shard_range(self, shard: int) -> range:
        """Global game indices of shard ``shard``."""
        lo = shard * self.shard_games
        return range(lo, min(lo + self.shard_games, self.num_games))

    def deals(self, games: np.ndarray) -> np.ndarray:
        """Deal index of each game (shared by the seatings of a duplicate deal)."""
        return games // len(self.seatings) if self.duplicate else games

    def seeds(self, games: np.ndarray) -> np.ndarray:
        """uint64 game seeds."""
        return rng.words(np.uint64(self.master_seed), SCHEDULE_STREAM,
                         self.deals(np.asarray(games)).astype(np.uint64), 0)

    def rotations(self, games: np.ndarray) -> np.ndarray:
        """Index of each game's seating in the cycle (``seatings``)."""
        return np.asarray(games) % len(self.seatings)

    def lineup_index(self, games: np.ndarray) -> np.ndarray:
        """Index of each game's pool lineup in ``lineups`` (0 without a pool)."""
        if self.lineups is None:
            return np.zeros(np.asarray(games).shape, np.int64)
        return (np.asarray(games) // len(self.seatings)) % len(self.lineups)

    def seat_lineup(self, games: np.ndarray) -> np.ndarray:
        """int[G, P]: lineup index (pool index with a pool) of the agent in each seat of each game."""
        seats = self.seatings[self.rotations(games)]          # [G, P]: lineup j -> seat
        rows = np.arange(seats.shape[0])[:, None]
        if self.lineups is None:
            out = np.empty_like(seats)
            out[rows, seats] = np.arange(self.num_players, dtype=np.int8)[None, :]
            return out
        members = np.asarray(self.lineups, dtype=np.int16)[self.lineup_index(games)]  # [G, P]
        out = np.empty(seats.shape, np.int16)
        out[rows, seats] = members
        return out
