"""Scalar reference engine of ``veru`` (Верю — не верю): readable, one rule per function.

The oracle of ``vec.py`` (bit-identical: same action ids, random draws and
observations).  Rules: ``docs/rules.md#veru`` and the Russian seed; decisions
where they are silent are listed in ``rules.py``.  Hands are counts per card
type (``rules.CARD_NAMES``); the ``hands`` property gives sorted names.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bluffsim import rng
from bluffsim.api import RulesError
from bluffsim.games.refbase import ReferenceBase, RefStateBase
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.rules import Rules

JOKER_STREAM = rng.Stream.JOKER


def _zeros(p: int) -> list[list[int]]:
    return [[0] * R.NUM_TYPES for _ in range(p)]


@dataclass
class RefState(RefStateBase):
    """One veru game, plain Python fields (meanings as in ``vec.VeruState``)."""

    CARD_NAMES = R.CARD_NAMES

    seed: int
    num_players: int
    hand_counts: list[list[int]]
    table: list[int] = field(default_factory=list)
    claimant: int = -1
    claim_rank: int = -1
    bank: list[list[int]] = field(default_factory=list)
    closed: list[bool] = field(default_factory=lambda: [False] * R.ANNOUNCEABLE)
    discard_seen: list[int] = field(default_factory=lambda: [0] * R.NUM_TYPES)
    discard_hidden: list[int] = field(default_factory=lambda: [0] * R.NUM_TYPES)
    out: list[bool] = field(default_factory=list)
    place: list[int] = field(default_factory=list)
    phase: int = R.PHASE_ANNOUNCE
    current_player: int = 0
    opener: int = 0
    put_count: int = 0
    acted: bool = False
    swaps_used: list[int] = field(default_factory=list)
    swapped_round: list[bool] = field(default_factory=list)
    endgame_count: int = -1
    taken: list[int] = field(default_factory=list)
    seen_taken: list[list[list[int]]] = field(default_factory=list)  # [observer][taker][type]
    known: list[list[list[int]]] = field(default_factory=list)       # [observer][holder][type]
    hidden_out: list[list[int]] = field(default_factory=list)        # [owner][type]
    claims: list[list[int]] = field(default_factory=list)            # [seat][opened, added]
    cards_claimed: list[int] = field(default_factory=list)
    claim_checks: list[list[int]] = field(default_factory=list)      # [claimant][false, true]
    checks: list[list[int]] = field(default_factory=list)            # [checker][kind*2 + wrong]
    pickups: list[int] = field(default_factory=list)
    timeouts: list[int] = field(default_factory=list)
    last_check: list[int] = field(default_factory=lambda: [-1] * 5)
    last_check_cards: list[int] = field(default_factory=lambda: [0] * R.NUM_TYPES)
    terminated: bool = False
    truncated: bool = False
    placements: list[int] = field(default_factory=list)
    num_decisions: int = 0
    num_rounds: int = 0

    @property
    def bank_size(self) -> int:
        """Cards in the Bank."""
        return sum(map(sum, self.bank))

    @property
    def closed_ranks(self) -> list[str]:
        """Names of the closed ranks."""
        return [R.RANKS[r] for r in range(R.ANNOUNCEABLE) if self.closed[r]]


LAST_CHECK = ("checker", "claimant", "kind", "truth", "taker")


class ReferenceGame(ReferenceBase):
    """Scalar veru engine: ``new_game``, ``legal_actions``, ``apply``, ``observe``."""

    game_id = "veru"

    # ------------------------------------------------------------ set-up
    def blank(self, seed: int) -> RefState:
        """A state with empty hands (for the deal or a scenario)."""
        p = self.rules.num_players
        return RefState(seed=int(seed), num_players=p, hand_counts=_zeros(p), bank=_zeros(p),
                        out=[False] * p, place=[0] * p, swaps_used=[0] * p,
                        swapped_round=[False] * p, taken=[0] * p,
                        seen_taken=[_zeros(p) for _ in range(p)], placements=[0] * p,
                        known=[_zeros(p) for _ in range(p)], hidden_out=_zeros(p),
                        claims=[[0, 0] for _ in range(p)], cards_claimed=[0] * p,
                        claim_checks=[[0, 0] for _ in range(p)],
                        checks=[[0] * 4 for _ in range(p)], pickups=[0] * p, timeouts=[0] * p)

    def new_game(self, seed: int) -> RefState:
        """Jokers in, shuffle, deal everything from the first opener, close quads, open."""
        s = self.blank(seed)
        deck = self.deck_with_jokers(s.seed)
        order = rng.permutation(s.seed, rng.Stream.DEAL, 0, len(deck))
        s.opener = self.first_opener(s.seed)
        p = s.num_players
        for i, pos in enumerate(order):
            seat = (s.opener + self.rules.step * i) % p
            s.hand_counts[seat][deck[pos]] += 1
        self.start(s, s.opener)
        return s

    def start(self, s: RefState, opener: int) -> None:
        """After the deal: close quads, a hand left empty is out at once (place 1), then open.

        Shared by ``new_game`` and ``scenario`` so a dealt hand of closed ranks only is
        out at the deal in both.
        """
        for seat in range(s.num_players):
            self.close_quads(s, seat)
            if sum(s.hand_counts[seat]) == 0:
                s.out[seat] = True
                s.place[seat] = 1
        if self.check_finished(s):
            return
        self.open_round(s, opener)
        self.check_all_closed(s)

    def deck_with_jokers(self, seed: int) -> list[int]:
        """52 cards (4 of each rank) with ``jokers`` random non-ace cards made Jokers."""
        deck = [r for r in range(13) for _ in range(4)]
        non_ace = [i for i, r in enumerate(deck) if r != R.ACE]
        pick = rng.permutation(seed, JOKER_STREAM, 0, len(non_ace))
        for j in pick[: self.rules.jokers]:
            deck[non_ace[j]] = R.JOKER
        return deck

    def first_opener(self, seed: int) -> int:
        """Seat of the first opener: the option, or drawn from the seed."""
        if self.rules.first_opener >= 0:
            return self.rules.first_opener
        return rng.below_scalar(rng.word(seed, rng.Stream.OPENER, 0), self.rules.num_players)

    def close_quads(self, s: RefState, seat: int) -> None:
        """Four natural cards of a rank (not aces) in one hand are discarded face up: closed."""
        for r in range(R.ANNOUNCEABLE):
            if s.hand_counts[seat][r] == 4:
                s.hand_counts[seat][r] = 0
                s.discard_seen[r] += 4
                s.closed[r] = True
                for o in range(s.num_players):
                    s.known[o][seat][r] = 0

    def open_round(self, s: RefState, opener: int, skip: int = -1) -> None:
        """``opener`` announces the next claim; if out, the next player still in other
        than ``skip`` (the player who was wrong or timed out never opens)."""
        if s.out[opener] or opener == skip:
            opener = self.next_in(s, opener, skip)
        s.opener = s.current_player = opener
        s.phase = R.PHASE_ANNOUNCE
        s.acted = False
        s.put_count = 0

    # ------------------------------------------------------------ seating
    def next_in(self, s: RefState, seat: int, skip: int = -1) -> int:
        """Next seat in turn order that is not out (nor ``skip``); ``seat`` if none."""
        p = s.num_players
        for k in range(1, p + 1):
            cand = (seat + self.rules.step * k) % p
            if not s.out[cand] and cand != skip:
                return cand
        return seat

    # ------------------------------------------------------------ legality
    def can_swap(self, s: RefState, seat: int) -> bool:
        """Joker gadget: owned, uses left, not yet this round, not after acting, > 1 card."""
        return (seat in self.rules.joker_swap_seats and not s.acted
                and s.swaps_used[seat] < self.rules.joker_swaps and not s.swapped_round[seat]
                and sum(s.hand_counts[seat]) > 1)

    def legal_actions(self, s: RefState) -> list[int]:
        """Legal action ids of the current player (``timeout`` is never listed)."""
        if s.done:
            return []
        me = s.current_player
        hand = s.hand_counts[me]
        acts: list[int] = []
        if s.phase == R.PHASE_ANNOUNCE:
            acts = [R.ANNOUNCE0 + r for r in range(R.ANNOUNCEABLE) if not s.closed[r]]
        elif s.phase == R.PHASE_PUT:
            acts = [R.PUT0 + t for t in range(R.NUM_TYPES) if hand[t] > 0]
            if s.put_count >= 1:
                acts.append(R.DONE)
        elif s.phase == R.PHASE_RESPOND:
            acts = [R.PUT0 + t for t in range(R.NUM_TYPES) if hand[t] > 0]
            acts += [R.BELIEVE, R.DISBELIEVE]
        if s.phase != R.PHASE_PUT and self.can_swap(s, me):
            acts += [R.SWAP0 + r for r in range(R.ANNOUNCEABLE) if hand[r] > 0]
        return sorted(acts)

    # ------------------------------------------------------------ apply
    def apply(self, s: RefState, action: int | str) -> RefState:
        """Apply one decision (in place); a finished game ignores it."""
        if s.done:
            return s
        a = self.checked_action(s, action, always_allowed=(R.TIMEOUT,))
        s.num_decisions += 1
        if a < R.PUT0:
            self.announce(s, a - R.ANNOUNCE0)
        elif a < R.DONE:
            self.put(s, a - R.PUT0)
        elif a == R.DONE:
            self.end_claim(s)
        elif a in (R.BELIEVE, R.DISBELIEVE):
            self.check(s, believe=a == R.BELIEVE)
        elif a < R.TIMEOUT:
            self.swap(s, a - R.SWAP0)
        else:
            self.timeout(s)
        self.count_endgame(s)
        if not s.done and s.num_decisions >= self.rules.max_turns:
            self.rank_by_cards(s)
            self.finish(s, truncated=True)
        return s

    def announce(self, s: RefState, rank: int) -> None:
        """The opener names the round's rank; their cards follow."""
        s.claim_rank = rank
        s.claimant = s.current_player
        s.phase = R.PHASE_PUT
        s.put_count = 0
        s.acted = True

    def put(self, s: RefState, card: int) -> None:
        """One card face down; a responder's first card sends the last claim to the Bank."""
        me = s.current_player
        if s.phase == R.PHASE_RESPOND:
            self.claim_to_bank(s)
            s.claimant = me
            s.phase = R.PHASE_PUT
            s.put_count = 0
            s.claims[me][1] += 1
        elif s.put_count == 0:
            s.claims[me][0] += 1
        s.cards_claimed[me] += 1
        self.forget_one_card(s, me, range(R.NUM_TYPES))
        s.hand_counts[me][card] -= 1
        s.table.append(card)
        s.put_count += 1
        s.acted = True
        if s.put_count == 3 or sum(s.hand_counts[me]) == 0:
            self.end_claim(s)

    def forget_one_card(self, s: RefState, holder: int, types: range) -> None:
        """``holder`` gave up one card of an unknown type among ``types``: every other
        player's lower bound of those types in that hand drops by one."""
        for o in range(s.num_players):
            if o != holder:
                bounds = s.known[o][holder]
                for t in types:
                    if bounds[t] > 0:
                        bounds[t] -= 1

    def claim_to_bank(self, s: RefState) -> None:
        """The previous claim's cards join the Bank, unchecked forever."""
        for card in s.table:
            s.bank[s.claimant][card] += 1
        s.table = []

    def end_claim(self, s: RefState) -> None:
        """The claim stands; the next player in turn responds."""
        s.current_player = self.next_in(s, s.current_player)
        s.phase = R.PHASE_RESPOND
        s.put_count = 0
        s.acted = False

    def swap(self, s: RefState, rank: int) -> None:
        """Joker gadget: a card of ``rank`` leaves the game unseen, a Joker takes its place."""
        me = s.current_player
        self.forget_one_card(s, me, range(R.ANNOUNCEABLE))
        s.hand_counts[me][rank] -= 1
        s.hand_counts[me][R.JOKER] += 1
        s.discard_hidden[rank] += 1
        s.hidden_out[me][rank] += 1
        s.swaps_used[me] += 1
        s.swapped_round[me] = True

    # ------------------------------------------------------------ checks
    def claim_is_true(self, s: RefState) -> bool:
        """Every card of the claim is the announced rank or a Joker."""
        return all(c in (s.claim_rank, R.JOKER) for c in s.table)

    def check(self, s: RefState, believe: bool) -> None:
        """Believe / disbelieve: the table in docs/rules.md#veru-checks decides who takes and who opens."""
        checker, claimant = s.current_player, s.claimant
        truth = self.claim_is_true(s)
        claim = [0] * R.NUM_TYPES
        for c in s.table:
            claim[c] += 1
        if believe and truth:
            taker, opener = -1, checker
        elif truth or believe:  # checker was wrong
            taker, opener = checker, claimant
        else:  # disbelieved a bluff
            taker, opener = claimant, checker
        s.last_check = [checker, claimant, 0 if believe else 1, int(truth), taker]
        s.last_check_cards = claim
        s.claim_checks[claimant][int(truth)] += 1
        s.checks[checker][(0 if believe else 2) + int(taker == checker)] += 1
        if taker < 0:
            for t in range(R.NUM_TYPES):
                s.discard_seen[t] += claim[t]
                s.discard_hidden[t] += sum(s.bank[o][t] for o in range(s.num_players))
                for o in range(s.num_players):
                    s.hidden_out[o][t] += s.bank[o][t]
            s.table, s.bank = [], _zeros(s.num_players)
        else:
            self.take_all(s, taker, claim_seen_by=self.check_viewers(s, checker, taker))
        self.end_round(s, opener, skip=taker)

    def check_viewers(self, s: RefState, checker: int, taker: int) -> set[int]:
        """Who sees the checked cards going to ``taker``: the claimant, the taker, Check gadgets."""
        return {s.claimant, taker, *self.rules.check_seats}

    def take_all(self, s: RefState, taker: int, claim_seen_by: set[int]) -> None:
        """``taker`` takes table + Bank into hand; each player notes the cards they know moved.

        The taker knows all of them; every other player knows their own Bank cards,
        and the claim's cards if they are in ``claim_seen_by``.
        """
        p = s.num_players
        claim = [0] * R.NUM_TYPES
        for c in s.table:
            claim[c] += 1
        total = [claim[t] + sum(s.bank[o][t] for o in range(p)) for t in range(R.NUM_TYPES)]
        for o in range(p):
            for t in range(R.NUM_TYPES):
                if o == taker:
                    known = total[t]
                else:
                    known = s.bank[o][t] + (claim[t] if o in claim_seen_by else 0)
                s.seen_taken[o][taker][t] += known
                if o != taker:
                    s.known[o][taker][t] += known
        for t in range(R.NUM_TYPES):
            s.hand_counts[taker][t] += total[t]
        s.taken[taker] += sum(total)
        s.pickups[taker] += 1
        s.table, s.bank = [], _zeros(p)
        self.close_quads(s, taker)

    def timeout(self, s: RefState) -> None:
        """A player out of time is wrong: takes table + Bank; the next player opens."""
        me = s.current_player
        has_cards = bool(s.table) or s.bank_size > 0
        s.last_check = [-1, s.claimant, 2, -1, me if has_cards else -1]
        s.last_check_cards = [0] * R.NUM_TYPES
        s.timeouts[me] += 1
        if has_cards:
            self.take_all(s, me, claim_seen_by={s.claimant})
        self.end_round(s, me, skip=me)

    # ------------------------------------------------------------ round end
    def end_round(self, s: RefState, opener: int, skip: int = -1) -> None:
        """Players with nothing left go out (same moment, same place); end or reopen.

        ``opener`` guessed right; if they are out the opening passes on, skipping
        ``skip`` (the taker: the wrong guesser, the caught bluffer or the timed-out player).
        """
        s.claimant = s.claim_rank = -1
        s.num_rounds += 1
        s.swapped_round = [False] * s.num_players
        leaving = [q for q in range(s.num_players)
                   if not s.out[q] and sum(s.hand_counts[q]) == 0]
        place = sum(s.out) + 1
        for q in leaving:
            s.out[q] = True
            s.place[q] = place
        if self.check_finished(s):
            return
        if self.check_all_closed(s):
            return
        self.open_round(s, opener, skip)

    def check_finished(self, s: RefState) -> bool:
        """One player left holding cards: they take the last place."""
        remaining = [q for q in range(s.num_players) if not s.out[q]]
        if len(remaining) > 1:
            if len(remaining) == 2 and s.endgame_count < 0:
                s.endgame_count = 0
            return False
        for q in remaining:
            s.place[q] = sum(s.out) + 1
        self.finish(s)
        return True

    def check_all_closed(self, s: RefState) -> bool:
        """Every announceable rank closed: the rest rank by fewest cards."""
        if not all(s.closed):
            return False
        self.rank_by_cards(s)
        self.finish(s)
        return True

    def rank_by_cards(self, s: RefState) -> None:
        """The players still in take the next places by fewest cards in hand (ties share)."""
        remaining = [q for q in range(s.num_players) if not s.out[q]]
        base = sum(s.out) + 1
        for q in remaining:
            mine = sum(s.hand_counts[q])
            s.place[q] = base + sum(sum(s.hand_counts[o]) < mine for o in remaining)

    def count_endgame(self, s: RefState) -> None:
        """Two players left: after ``endgame_limit`` decisions both take the last place P."""
        if s.done or s.endgame_count < 0:
            return
        s.endgame_count += 1
        if s.endgame_count >= self.rules.endgame_limit:
            for q in range(s.num_players):
                if not s.out[q]:
                    s.place[q] = s.num_players
            self.finish(s)

    def finish(self, s: RefState, truncated: bool = False) -> None:
        """Game over: placements are the places."""
        s.terminated = not truncated
        s.truncated = truncated
        s.phase = R.PHASE_OVER
        s.current_player = -1
        s.placements = list(s.place)

    # ------------------------------------------------------------ observation
    def observe(self, s: RefState, seat: int | None = None) -> dict[str, np.ndarray]:
        """The information set of ``seat`` (default: the current player)."""
        from bluffsim.games.veru.observe import observation_fields

        return observation_fields(self.rules, s, s.current_player if seat is None else seat)


# ---------------------------------------------------------------- scenarios
def scenario(hands: Sequence[Sequence[str]], opener: int = 0, seed: int = 0,
             **options: Any) -> tuple[ReferenceGame, RefState]:
    """A game whose hands are given by card names (``"2"`` … ``"A"``, ``"joker"``).

    Cards not in any hand are out of the game unseen; four naturals of a rank in a
    hand are closed at once, as after the deal.  ``opener`` announces first.
    """
    rules = Rules.from_options(num_players=len(hands), **options)
    game = ReferenceGame(rules)
    s = game.blank(seed)
    remaining = [4] * 13 + [rules.jokers]
    for seat, cards in enumerate(hands):
        for name in cards:
            if name not in R.CARD_NAMES:
                raise RulesError(f"scenario: unknown veru card {name!r}; allowed: "
                                 f"{', '.join(R.CARD_NAMES)}")
            t = R.CARD_NAMES.index(name)
            if remaining[t] == 0:
                raise RulesError(f"scenario: no {name!r} card left (4 per rank, "
                                 f"{rules.jokers} jokers)")
            remaining[t] -= 1
            s.hand_counts[seat][t] += 1
    s.discard_hidden = remaining
    game.start(s, opener)
    return game, s


def redeal_hidden(s: RefState, seat: int, seed: int, rules: Rules) -> RefState:
    """A copy of ``s`` with every card ``seat`` cannot see re-dealt at random.

    Hidden: the other hands, the claim on the table (unless ``seat`` made it), the
    other owners' Bank cards and the cards out of the game unseen — except the aces
    when ``seat`` has the 4-Aces gadget, the cards ``seat`` knows sit in a hand
    (``known``) and ``seat``'s own cards that went out unseen (``hidden_out``).
    Sizes per location stay as they are.
    """
    out = copy.deepcopy(s)
    gen = random.Random(seed)
    keep_aces = seat in rules.ace_hint_seats
    pool: list[int] = []
    slots: list[tuple[str, int]] = []

    def collect(counts: list[int], where: tuple[str, int], keep: Sequence[int] | None = None) -> None:
        for t in range(R.NUM_TYPES):
            if keep_aces and t == R.ACE:
                continue
            n = counts[t] - (min(keep[t], counts[t]) if keep is not None else 0)
            pool.extend([t] * n)
            slots.extend([where] * n)
            counts[t] -= n

    for q in range(s.num_players):
        if q != seat:
            collect(out.hand_counts[q], ("hand", q), keep=s.known[seat][q])
            collect(out.bank[q], ("bank", q))
    if s.claimant != seat:
        table = [0] * R.NUM_TYPES
        for c in out.table:
            table[c] += 1
        aces = [R.ACE] * table[R.ACE] if keep_aces else []
        collect(table, ("table", 0))
        out.table = aces
    collect(out.discard_hidden, ("hidden", 0), keep=s.hidden_out[seat])
    gen.shuffle(pool)
    for card, (where, q) in zip(pool, slots, strict=True):
        if where == "hand":
            out.hand_counts[q][card] += 1
        elif where == "bank":
            out.bank[q][card] += 1
        elif where == "table":
            out.table.append(card)
        else:
            out.discard_hidden[card] += 1
    return out
