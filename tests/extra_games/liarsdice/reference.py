"""Scalar reference engine of ``liarsdice``: readable, one rule per function; the oracle the
compiled engine (``kernels.py``) is tested equal to, bit for bit."""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bluffsim import rng
from bluffsim.api import RulesError
from bluffsim.games.liarsdice import rules as R
from bluffsim.games.liarsdice.rules import Rules
from bluffsim.games.refbase import ReferenceBase, RefStateBase

D_MAX = 3  # the most dice a seat can hold (rules.py): the minor counter of a die's roll


@dataclass
class RefState(RefStateBase):
    """One game: ``hand_counts[seat][face]`` dice per face, ``dice_left[seat]``, the current bid
    (``bid_quantity``, ``bid_face`` 0-based; -1 before the round's first bid) and its bidder,
    ``last_reveal`` = caller, bidder, quantity, face, dice showing it, loser (-1 before)."""

    CARD_NAMES = R.FACE_NAMES

    seed: int
    num_players: int
    hand_counts: list[list[int]]
    dice_left: list[int]
    bid_quantity: int = -1
    bid_face: int = -1
    bidder: int = -1
    eliminated: int = 0
    phase: int = R.PHASE_BID
    current_player: int = 0
    terminated: bool = False
    truncated: bool = False
    placements: list[int] = field(default_factory=list)
    num_decisions: int = 0
    num_rounds: int = 0
    last_reveal: list[int] = field(default_factory=lambda: [-1] * 6)


def roll(seed: int, round_: int, seat: int, die: int) -> int:
    """The face (0-based) of die ``die`` of ``seat`` in round ``round_``: stream DEAL."""
    return rng.below_scalar(rng.word(seed, rng.Stream.DEAL, round_, seat * D_MAX + die), R.FACES)


class ReferenceGame(ReferenceBase):
    """Scalar Liar's Dice: ``new_game``, ``legal_actions``, ``apply``, ``observe``."""

    game_id = "liarsdice"

    def new_game(self, seed: int) -> RefState:
        """Every seat has ``dice`` dice; seat 0 opens; the first roll."""
        p = self.rules.num_players
        s = RefState(seed=int(seed), num_players=p, hand_counts=[[0] * R.FACES for _ in range(p)],
                     dice_left=[self.rules.dice] * p, placements=[0] * p)
        self.roll_all(s)
        return s

    def roll_all(self, s: RefState) -> None:
        """Every seat still in rolls its dice (the round's number keys the rolls)."""
        for seat in range(s.num_players):
            s.hand_counts[seat] = [0] * R.FACES
            for die in range(s.dice_left[seat]):
                s.hand_counts[seat][roll(s.seed, s.num_rounds, seat, die)] += 1

    def next_in(self, s: RefState, seat: int) -> int:
        """The first seat after ``seat`` (clockwise) that still has dice."""
        for k in range(1, s.num_players + 1):
            if s.dice_left[(seat + k) % s.num_players] > 0:
                return (seat + k) % s.num_players
        return seat

    def legal_actions(self, s: RefState) -> list[int]:
        """Bids above the current one naming at most the dice in play; ``liar`` after a bid."""
        if s.done:
            return []
        current = -1 if s.bid_quantity < 0 else (s.bid_quantity - 1) * R.FACES + s.bid_face
        bids = list(range(current + 1, sum(s.dice_left) * R.FACES))
        return bids + ([self.rules.liar] if current >= 0 else [])

    def apply(self, s: RefState, action: int | str) -> RefState:
        """Apply one decision (in place); a finished game ignores it."""
        if s.done:
            return s
        a = self.checked_action(s, action)
        s.num_decisions += 1
        if a == self.rules.liar:
            self.call(s)
        else:
            self.bid(s, a // R.FACES + 1, a % R.FACES)
        return s

    def bid(self, s: RefState, quantity: int, face: int) -> None:
        """A higher bid; the next seat in decides."""
        s.bid_quantity, s.bid_face, s.bidder = quantity, face, s.current_player
        s.current_player = self.next_in(s, s.current_player)

    def call(self, s: RefState) -> None:
        """``liar``: count the bid face on the table; the wrong side loses a die."""
        count = sum(h[s.bid_face] for h in s.hand_counts)
        loser = s.current_player if count >= s.bid_quantity else s.bidder
        s.last_reveal = [s.current_player, s.bidder, s.bid_quantity, s.bid_face, count, loser]
        s.num_rounds += 1
        s.dice_left[loser] -= 1
        if s.dice_left[loser] == 0:
            s.placements[loser] = s.num_players - s.eliminated
            s.eliminated += 1
        if s.eliminated == s.num_players - 1:
            self.finish(s)
            return
        s.bid_quantity = s.bid_face = s.bidder = -1
        s.current_player = loser if s.dice_left[loser] > 0 else self.next_in(s, loser)
        self.roll_all(s)

    def finish(self, s: RefState) -> None:
        """One seat has dice left: it places first."""
        winner = next(q for q in range(s.num_players) if s.dice_left[q] > 0)
        s.placements[winner] = 1
        s.terminated, s.phase, s.current_player = True, R.PHASE_OVER, -1

    def observe(self, s: RefState, seat: int | None = None) -> dict[str, np.ndarray]:
        """The information set of ``seat`` (default: the current player)."""
        from bluffsim.games.liarsdice.observe import observation_fields

        return observation_fields(self.rules, s, s.current_player if seat is None else seat)


def scenario(hands: Sequence[Sequence[int]], opener: int = 0, seed: int = 0,
             **options: Any) -> tuple[ReferenceGame, RefState]:
    """A game from explicit dice: ``hands[seat]`` the faces (1..6) it rolled; ``opener`` bids
    first.  The next rounds roll from ``seed``."""
    dice = max(len(h) for h in hands)
    rules = Rules.from_options(num_players=len(hands), dice=dice, **options)
    game = ReferenceGame(rules)
    counts = [[0] * R.FACES for _ in hands]
    for seat, faces in enumerate(hands):
        for f in faces:
            if not 1 <= f <= R.FACES:
                raise RulesError(f"scenario: a die shows 1..{R.FACES}, not {f!r}")
            counts[seat][f - 1] += 1
    s = RefState(seed=seed, num_players=rules.num_players, hand_counts=counts,
                 dice_left=[len(h) for h in hands], placements=[0] * rules.num_players,
                 current_player=opener)
    return game, s


def redeal_hidden(s: RefState, seat: int, seed: int, rules: Rules | None = None) -> RefState:
    """A copy of ``s`` with every other seat's dice re-rolled (their number stays)."""
    out = copy.deepcopy(s)
    gen = random.Random(seed)
    for q in range(s.num_players):
        if q != seat:
            out.hand_counts[q] = [0] * R.FACES
            for _ in range(s.dice_left[q]):
                out.hand_counts[q][gen.randrange(R.FACES)] += 1
    return out
