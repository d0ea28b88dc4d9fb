"""Which games are played: seeds from the master seed, seatings, and shards.

Game ``i`` (0-based, global) is played with

* ``deal(i) = i // P`` if duplicate deals are on (every deal replayed under all
  ``P`` rotations of the lineup), else ``i``;
* seed ``word(master, SCHEDULE, deal(i))`` (a 64-bit counter-based hash);
* rotation ``i % P`` if seat rotation is on, else 0: lineup entry ``j`` sits in
  seat ``(j + rotation) % P``, so over ``P`` consecutive games every agent sits
  in every seat once.

Shards are consecutive ranges of ``shard_games`` games; results never depend on
how shards are distributed over workers or executors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bluffsim import rng

SCHEDULE_STREAM = 7


@dataclass(frozen=True)
class Schedule:
    """Seeds and seatings of an experiment's games."""

    master_seed: int
    num_games: int
    num_players: int
    rotate: bool = True
    duplicate: bool = False
    shard_games: int = 5000

    @property
    def num_shards(self) -> int:
        """Number of shards."""
        return -(-self.num_games // self.shard_games)

    def shard_range(self, shard: int) -> range:
        """Global game indices of shard ``shard``."""
        lo = shard * self.shard_games
        return range(lo, min(lo + self.shard_games, self.num_games))

    def deals(self, games: np.ndarray) -> np.ndarray:
        """Deal index of each game (shared by the rotations of a duplicate deal)."""
        return games // self.num_players if self.duplicate else games

    def seeds(self, games: np.ndarray) -> np.ndarray:
        """uint64 game seeds."""
        return rng.words(np.uint64(self.master_seed), SCHEDULE_STREAM,
                         self.deals(np.asarray(games)).astype(np.uint64), 0)

    def rotations(self, games: np.ndarray) -> np.ndarray:
        """Rotation of the lineup in each game."""
        games = np.asarray(games)
        return games % self.num_players if self.rotate else np.zeros_like(games)

    def seat_lineup(self, games: np.ndarray) -> np.ndarray:
        """int8[G, P]: lineup index of the agent in each seat of each game."""
        p = self.num_players
        rot = self.rotations(games)
        return ((np.arange(p)[None, :] - rot[:, None]) % p).astype(np.int8)
