"""Batched numpy engine of ``veru``: the fast path, bit-identical to ``reference.py``.

A step splits the batch by what each game's action does (announce, put, done,
check, swap, timeout) and applies each rule to its sub-batch with fancy
indexing and masks; Python loops run over seats, card slots or action kinds,
never over games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bluffsim import rng
from bluffsim.api import Game, State, check_seeds
from bluffsim.games.seating import next_seat_table, to_bits
from bluffsim.games.veru import observe as O
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.reference import JOKER_STREAM, RefState
from bluffsim.games.veru.rules import Rules

I8, I16, I32 = np.int8, np.int16, np.int32
T, N = R.NUM_TYPES, R.ANNOUNCEABLE


@dataclass
class VeruState(State):
    """Batch of veru games.  Game-specific fields (B games, P seats, T = 14 card types):"""

    seed: np.ndarray            # uint64[B] game seed
    phase: np.ndarray           # int8[B] 0 announce, 1 put, 2 respond, 3 over
    hands: np.ndarray           # int8[B,P,T] cards in hand per type
    hand_sizes: np.ndarray      # int8[B,P] cards in hand per seat
    table: np.ndarray           # int8[B,3] the claim's cards (-1 empty slot)
    table_n: np.ndarray         # int8[B] cards in the claim
    claimant: np.ndarray        # int8[B] seat of the claim (-1 none)
    claim_rank: np.ndarray      # int8[B] announced rank (-1 none)
    bank: np.ndarray            # int8[B,P,T] Bank cards per owner and type
    closed: np.ndarray          # bool[B,12] closed ranks
    discard_seen: np.ndarray    # int8[B,T] out of the game face up
    discard_hidden: np.ndarray  # int8[B,T] out of the game unseen
    out: np.ndarray             # bool[B,P] seat finished
    in_bits: np.ndarray         # int8[B] seats still playing, as a bitmask (cache of ~out)
    place: np.ndarray           # int8[B,P] place of finished seats (0 while playing)
    opener: np.ndarray          # int8[B] this round's opener
    put_count: np.ndarray       # int8[B] cards put in the current turn
    acted: np.ndarray           # bool[B] the current player has acted this turn
    swaps_used: np.ndarray      # int8[B,P] Joker swaps used
    swapped_round: np.ndarray   # bool[B,P] swapped since the last check
    endgame_count: np.ndarray   # int32[B] decisions since two players were left (-1 before)
    taken: np.ndarray           # int32[B,P] cards picked up per seat
    seen_taken: np.ndarray      # int32[B,P,P,T] [observer, taker, type] cards seen going to taker
    known: np.ndarray           # int8[B,P,P,T] [observer, holder, type] cards known to be in hand
    hidden_out: np.ndarray      # int8[B,P,T] [owner, type] own cards gone out unseen by others
    claims: np.ndarray          # int32[B,P,2] rounds opened, claims added per seat
    cards_claimed: np.ndarray   # int32[B,P] cards put under a claim per seat
    claim_checks: np.ndarray    # int32[B,P,2] checked claims per claimant: false, true
    checks: np.ndarray          # int32[B,P,4] per checker: believe right/wrong, disbelieve right/wrong
    pickups: np.ndarray         # int32[B,P] times each seat took table + Bank
    timeouts: np.ndarray        # int32[B,P] timeouts per seat
    last_check: np.ndarray      # int8[B,5] checker, claimant, kind, truth, taker
    last_check_cards: np.ndarray  # int8[B,T] the last checked claim
    round_over: np.ndarray      # bool[B] a round (check or timeout) ended during the last step


class VeruGame(Game):
    """Vectorised Верю — не верю (see ``rules.py`` for options and action ids)."""

    game_id = "veru"

    def __init__(self, rules: Rules):
        self.rules = rules
        self.action_names = rules.action_names
        self.observation_size = O.tensor_size(rules)
        p = rules.num_players
        self._next = next_seat_table(p)[:, :, 0 if rules.step == 1 else 1]
        self._popcount = np.asarray([bin(b).count("1") for b in range(1 << p)])
        self._swap_seat = np.isin(np.arange(p), rules.joker_swap_seats)
        self._check_seat = np.isin(np.arange(p), rules.check_seats)
        self._ace_seat = np.isin(np.arange(p), rules.ace_hint_seats)
        deck = np.repeat(np.arange(13), 4)
        self._deck = deck.astype(I8)
        self._non_ace = np.flatnonzero(deck != R.ACE)

    # ================================================================ set-up
    def empty_state(self, seeds: np.ndarray) -> VeruState:
        """Zeroed arrays for ``len(seeds)`` games."""
        b, p = len(seeds), self.rules.num_players
        z = np.zeros
        return VeruState(
            current_player=z(b, I8), legal_action_mask=z((b, R.NUM_ACTIONS), bool),
            terminated=z(b, bool), truncated=z(b, bool), placements=z((b, p), I8),
            num_decisions=z(b, I32), num_rounds=z(b, I32), seed=seeds.astype(np.uint64),
            phase=z(b, I8), hands=z((b, p, T), I8), hand_sizes=z((b, p), I8),
            table=np.full((b, 3), -1, I8), table_n=z(b, I8), claimant=np.full(b, -1, I8),
            claim_rank=np.full(b, -1, I8), bank=z((b, p, T), I8), closed=z((b, N), bool),
            discard_seen=z((b, T), I8), discard_hidden=z((b, T), I8), out=z((b, p), bool),
            in_bits=np.full(b, (1 << p) - 1, np.int64).astype(I8), place=z((b, p), I8),
            opener=z(b, I8), put_count=z(b, I8), acted=z(b, bool), swaps_used=z((b, p), I8),
            swapped_round=z((b, p), bool), endgame_count=np.full(b, -1, I32),
            taken=z((b, p), I32), seen_taken=z((b, p, p, T), I32), known=z((b, p, p, T), I8),
            hidden_out=z((b, p, T), I8), claims=z((b, p, 2), I32), cards_claimed=z((b, p), I32),
            claim_checks=z((b, p, 2), I32), checks=z((b, p, 4), I32), pickups=z((b, p), I32),
            timeouts=z((b, p), I32),
            last_check=np.full((b, 5), -1, I8), last_check_cards=z((b, T), I8),
            round_over=z(b, bool))

    def init(self, seeds: Any) -> VeruState:
        """New games: Jokers in, shuffle, deal all cards from the first opener, close quads."""
        seeds = check_seeds(seeds)
        st = self.empty_state(seeds)
        b, p = st.batch_size, self.rules.num_players
        idx = np.arange(b)
        deck = np.broadcast_to(self._deck, (b, 52)).copy()
        if self.rules.jokers:
            pick = rng.permutations(seeds, JOKER_STREAM, 0, self._non_ace.size)
            deck[idx[:, None], self._non_ace[pick[:, : self.rules.jokers]]] = R.JOKER
        order = rng.permutations(seeds, rng.Stream.DEAL, 0, 52)
        cards = np.take_along_axis(deck, order, axis=1).astype(np.int64)
        opener = self.first_opener(seeds)
        seat = (opener[:, None] + self.rules.step * np.arange(52)) % p
        key = (idx[:, None] * p + seat) * T + cards
        st.hands[:] = np.bincount(key.ravel(), minlength=b * p * T).reshape(b, p, T)
        st.hand_sizes[:] = st.hands.sum(axis=2)
        self.start(st, idx, opener)
        self.update_legal_mask(st)
        return st

    def start(self, st: VeruState, idx: np.ndarray, opener: np.ndarray) -> None:
        """After the deal: close quads, an empty hand is out at once (place 1), then open."""
        p = self.rules.num_players
        for s in range(p):
            self.close_quads(st, idx, np.full(idx.size, s))
        empty = st.hand_sizes[idx] == 0
        st.out[idx] = empty
        st.place[idx] = np.where(empty, 1, 0)
        st.in_bits[idx] = to_bits(~empty)
        remaining = p - empty.sum(axis=1)
        fin = remaining <= 1
        if fin.any():
            j = idx[fin]
            last = empty.sum(axis=1)[fin] + 1
            st.place[j] = np.where(st.out[j], st.place[j], last[:, None])
            self.finish(st, j)
        st.endgame_count[idx[~fin & (remaining == 2)]] = 0
        go = ~fin
        self.open_round(st, idx[go], np.asarray(opener)[go])
        self.end_if_all_closed(st, idx[go])

    def reset_games(self, st: VeruState, idx: np.ndarray, seeds: Any) -> None:
        """Restart games ``idx`` in place as new games with ``seeds`` (autoreset)."""
        fresh = self.init(seeds)
        for name, value in vars(fresh).items():
            getattr(st, name)[idx] = value

    def first_opener(self, seeds: np.ndarray) -> np.ndarray:
        """First opener per game: the option, or drawn from the seed."""
        if self.rules.first_opener >= 0:
            return np.full(seeds.size, self.rules.first_opener, np.int64)
        return rng.below(rng.words(seeds, rng.Stream.OPENER, 0, 0), self.rules.num_players)

    def close_quads(self, st: VeruState, idx: np.ndarray, seat: np.ndarray) -> None:
        """Four naturals of a rank (not aces) in one hand go out face up; the rank closes."""
        h = st.hands[idx, seat, :N]
        quad = h == 4
        if not quad.any():
            return
        st.hands[idx, seat, :N] = np.where(quad, 0, h)
        st.discard_seen[idx, :N] += (4 * quad).astype(I8)
        st.closed[idx] |= quad
        st.hand_sizes[idx, seat] -= (4 * quad.sum(axis=1)).astype(I8)
        kn = st.known[idx, :, seat, :N]                                    # [n, P(observer), N]
        st.known[idx, :, seat, :N] = np.where(quad[:, None, :], 0, kn)

    def open_round(self, st: VeruState, idx: np.ndarray, opener: np.ndarray,
                   skip: np.ndarray | None = None) -> None:
        """``opener`` announces the next claim; if out, the next player still in other than
        ``skip`` (-1 none: the player who was wrong or timed out never opens)."""
        opener = np.asarray(opener, np.int64)
        bits = st.in_bits[idx].astype(np.int64)
        gone = st.out[idx, opener]
        if skip is not None:
            skip = np.asarray(skip, np.int64)
            bits = np.where(skip >= 0, bits & ~(1 << np.maximum(skip, 0)), bits)
            gone |= opener == skip
        opener = np.where(gone, self._next[bits, opener], opener)
        st.opener[idx] = opener
        st.current_player[idx] = opener
        st.phase[idx] = R.PHASE_ANNOUNCE
        st.acted[idx] = False
        st.put_count[idx] = 0

    # ================================================================ step
    def check_actions(self, st: VeruState, actions: Any) -> np.ndarray:
        """As ``Game.check_actions``, but ``timeout`` (runner only) is accepted while running."""
        a = np.asarray(actions)
        if a.shape == (st.batch_size,) and np.issubdtype(a.dtype, np.integer):
            timeout = (a == R.TIMEOUT) & ~st.done
            if timeout.any():
                masked = np.where(timeout, -1, a)
                probe = st.copy()
                probe.terminated = st.terminated | timeout
                super().check_actions(probe, masked)
                return a.astype(np.int64)
        return super().check_actions(st, actions)

    def step(self, st: VeruState, actions: Any) -> VeruState:
        """Apply one decision per game (in place); finished games ignore their action."""
        a = self.check_actions(st, actions)
        live = ~st.done
        st.num_decisions += live
        st.round_over[:] = False
        for lo, hi, rule in ((R.ANNOUNCE0, R.PUT0, self.announce), (R.PUT0, R.DONE, self.put),
                             (R.SWAP0, R.TIMEOUT, self.swap)):
            idx = np.flatnonzero(live & (a >= lo) & (a < hi))
            if idx.size:
                rule(st, idx, a[idx] - lo)
        idx = np.flatnonzero(live & (a == R.DONE))
        if idx.size:
            self.end_claim(st, idx)
        idx = np.flatnonzero(live & ((a == R.BELIEVE) | (a == R.DISBELIEVE)))
        if idx.size:
            self.check(st, idx, a[idx] == R.BELIEVE)
        idx = np.flatnonzero(live & (a == R.TIMEOUT))
        if idx.size:
            self.timeout(st, idx)
        self.count_endgame(st, np.flatnonzero(live & ~st.done & (st.endgame_count >= 0)))
        capped = np.flatnonzero(live & ~st.done & (st.num_decisions >= self.rules.max_turns))
        if capped.size:
            self.rank_by_cards(st, capped)
            self.finish(st, capped, truncated=True)
        self.update_legal_mask(st)
        return st

    def announce(self, st: VeruState, idx: np.ndarray, rank: np.ndarray) -> None:
        """The opener names the round's rank; their cards follow."""
        st.claim_rank[idx] = rank
        st.claimant[idx] = st.current_player[idx]
        st.phase[idx] = R.PHASE_PUT
        st.put_count[idx] = 0
        st.acted[idx] = True

    def put(self, st: VeruState, idx: np.ndarray, card: np.ndarray) -> None:
        """One card face down; a responder's first card sends the last claim to the Bank."""
        me = st.current_player[idx].astype(np.int64)
        adding = st.phase[idx] == R.PHASE_RESPOND
        opening = (st.phase[idx] == R.PHASE_PUT) & (st.put_count[idx] == 0)
        st.claims[idx, me, 0] += opening
        st.claims[idx, me, 1] += adding
        st.cards_claimed[idx, me] += 1
        if adding.any():
            j = idx[adding]
            self.claim_to_bank(st, j)
            st.claimant[j] = me[adding]
            st.phase[j] = R.PHASE_PUT
            st.put_count[j] = 0
        self.forget_one_card(st, idx, me, T)
        st.hands[idx, me, card] -= 1
        st.hand_sizes[idx, me] -= 1
        st.table[idx, st.table_n[idx]] = card
        st.table_n[idx] += 1
        st.put_count[idx] += 1
        st.acted[idx] = True
        auto = (st.put_count[idx] == 3) | (st.hand_sizes[idx, me] == 0)
        if auto.any():
            self.end_claim(st, idx[auto])

    def forget_one_card(self, st: VeruState, idx: np.ndarray, holder: np.ndarray, types: int) -> None:
        """``holder`` gave up one card of an unknown type among the first ``types``: every
        other player's lower bound of those types in that hand drops by one."""
        kn = st.known[idx, :, holder, :types]                              # [n, P(observer), types]
        st.known[idx, :, holder, :types] = np.maximum(kn - 1, 0)

    def claim_to_bank(self, st: VeruState, idx: np.ndarray) -> None:
        """The previous claim's cards join the Bank under their owner, unchecked forever."""
        owner = st.claimant[idx].astype(np.int64)
        for k in range(3):
            m = st.table_n[idx] > k
            st.bank[idx[m], owner[m], st.table[idx[m], k]] += 1
        st.table[idx] = -1
        st.table_n[idx] = 0

    def end_claim(self, st: VeruState, idx: np.ndarray) -> None:
        """The claim stands; the next player in turn responds."""
        st.current_player[idx] = self._next[st.in_bits[idx], st.current_player[idx]]
        st.phase[idx] = R.PHASE_RESPOND
        st.put_count[idx] = 0
        st.acted[idx] = False

    def swap(self, st: VeruState, idx: np.ndarray, rank: np.ndarray) -> None:
        """Joker gadget: a card of ``rank`` leaves unseen, a Joker takes its place."""
        me = st.current_player[idx].astype(np.int64)
        self.forget_one_card(st, idx, me, N)
        st.hands[idx, me, rank] -= 1
        st.hands[idx, me, R.JOKER] += 1
        st.discard_hidden[idx, rank] += 1
        st.hidden_out[idx, me, rank] += 1
        st.swaps_used[idx, me] += 1
        st.swapped_round[idx, me] = True

    # ================================================================ checks
    def claim_counts(self, st: VeruState, idx: np.ndarray) -> np.ndarray:
        """int64[n, T]: the claim's cards per type."""
        out = np.zeros((idx.size, T), np.int64)
        rows = np.arange(idx.size)
        for k in range(3):
            m = st.table_n[idx] > k
            out[rows[m], st.table[idx[m], k]] += 1
        return out

    def check(self, st: VeruState, idx: np.ndarray, believe: np.ndarray) -> None:
        """Believe / disbelieve: who takes table + Bank and who opens (RULES.md §3)."""
        checker = st.current_player[idx].astype(np.int64)
        claimant = st.claimant[idx].astype(np.int64)
        claim = self.claim_counts(st, idx)
        rows = np.arange(idx.size)
        truth = claim[rows, st.claim_rank[idx]] + claim[:, R.JOKER] == st.table_n[idx]
        wrong = truth | believe  # with believe&truth handled first below
        taker = np.where(believe & truth, -1, np.where(wrong, checker, claimant))
        opener = np.where(believe & truth, checker, np.where(wrong, claimant, checker))
        st.last_check[idx] = np.stack([checker, claimant, np.where(believe, 0, 1),
                                       truth.astype(np.int64), taker], axis=1)
        st.last_check_cards[idx] = claim
        st.claim_checks[idx, claimant, truth.astype(np.int64)] += 1
        st.checks[idx, checker, np.where(believe, 0, 2) + (taker == checker)] += 1
        gone = taker < 0
        if gone.any():
            j = idx[gone]
            st.discard_seen[j] += claim[gone].astype(I8)
            st.discard_hidden[j] += st.bank[j].sum(axis=1, dtype=I8)
            st.hidden_out[j] += st.bank[j]
            st.bank[j] = 0
            st.table[j] = -1
            st.table_n[j] = 0
        take = ~gone
        if take.any():
            j, t = idx[take], taker[take]
            viewers = self._check_seat[None, :] | (np.arange(self.rules.num_players)[None, :]
                                                   == claimant[take, None])
            self.take_all(st, j, t, claim[take], viewers)
        self.end_round(st, idx, opener, taker)

    def take_all(self, st: VeruState, idx: np.ndarray, taker: np.ndarray, claim: np.ndarray,
                 viewers: np.ndarray) -> None:
        """``taker`` takes table + Bank; each player notes the cards they know moved."""
        p = self.rules.num_players
        bank = st.bank[idx].astype(np.int64)                       # [n, P, T]
        total = claim + bank.sum(axis=1)                             # [n, T]
        known = bank + claim[:, None, :] * viewers[:, :, None]       # [n, P(observer), T]
        rows = np.arange(idx.size)
        known[rows, taker] = total
        observers = np.arange(p)[None, :]
        st.seen_taken[idx[:, None], observers, taker[:, None]] += known.astype(I32)
        known[rows, taker] = 0                                       # my own hand is ``hand``
        st.known[idx[:, None], observers, taker[:, None]] += known.astype(I8)
        st.hands[idx, taker] += total.astype(I8)
        moved = total.sum(axis=1)
        st.hand_sizes[idx, taker] += moved.astype(I8)
        st.taken[idx, taker] += moved.astype(I32)
        st.pickups[idx, taker] += 1
        st.bank[idx] = 0
        st.table[idx] = -1
        st.table_n[idx] = 0
        self.close_quads(st, idx, taker)

    def timeout(self, st: VeruState, idx: np.ndarray) -> None:
        """A player out of time is wrong: takes table + Bank; the next player opens."""
        me = st.current_player[idx].astype(np.int64)
        claimant = st.claimant[idx].astype(np.int64)
        has = st.table_n[idx] > 0
        st.last_check[idx] = np.stack([np.full(idx.size, -1), claimant, np.full(idx.size, 2),
                                       np.full(idx.size, -1), np.where(has, me, -1)], axis=1)
        st.last_check_cards[idx] = 0
        st.timeouts[idx, me] += 1
        if has.any():
            j = idx[has]
            viewers = np.arange(self.rules.num_players)[None, :] == claimant[has, None]
            self.take_all(st, j, me[has], self.claim_counts(st, j), viewers)
        self.end_round(st, idx, me, me)

    # ================================================================ round end
    def end_round(self, st: VeruState, idx: np.ndarray, opener: np.ndarray, skip: np.ndarray) -> None:
        """Players with nothing left go out together; then end the game or reopen.

        ``opener`` guessed right; if out, the opening passes on skipping ``skip`` (the taker).
        """
        st.claimant[idx] = -1
        st.claim_rank[idx] = -1
        st.num_rounds[idx] += 1
        st.round_over[idx] = True
        st.swapped_round[idx] = False
        out = st.out[idx]
        leaving = ~out & (st.hand_sizes[idx] == 0)
        base = out.sum(axis=1) + 1
        st.place[idx] = np.where(leaving, base[:, None], st.place[idx])
        out = out | leaving
        st.out[idx] = out
        st.in_bits[idx] = to_bits(~out)
        remaining = self.rules.num_players - out.sum(axis=1)
        fin = remaining <= 1
        if fin.any():
            j = idx[fin]
            last = out.sum(axis=1)[fin] + 1
            st.place[j] = np.where(st.out[j], st.place[j], last[:, None])
            self.finish(st, j)
        go = ~fin
        start = go & (remaining == 2) & (st.endgame_count[idx] < 0)
        st.endgame_count[idx[start]] = 0
        closed = go & st.closed[idx].all(axis=1)
        if closed.any():
            self.end_if_all_closed(st, idx[closed])
        go &= ~closed
        if go.any():
            self.open_round(st, idx[go], opener[go], skip[go])

    def end_if_all_closed(self, st: VeruState, idx: np.ndarray) -> None:
        """Every announceable rank closed: the rest rank by fewest cards."""
        idx = idx[st.closed[idx].all(axis=1)]
        if idx.size == 0:
            return
        self.rank_by_cards(st, idx)
        self.finish(st, idx)

    def rank_by_cards(self, st: VeruState, idx: np.ndarray) -> None:
        """The players still in take the next places by fewest cards in hand (ties share)."""
        out = st.out[idx]
        size = np.where(out, 1 << 10, st.hand_sizes[idx].astype(np.int64))
        fewer = (size[:, None, :] < size[:, :, None]).sum(axis=2)
        base = out.sum(axis=1, keepdims=True) + 1
        st.place[idx] = np.where(out, st.place[idx], base + fewer)

    def count_endgame(self, st: VeruState, idx: np.ndarray) -> None:
        """Two players left: after ``endgame_limit`` decisions both take the last place P."""
        if idx.size == 0:
            return
        st.endgame_count[idx] += 1
        over = idx[st.endgame_count[idx] >= self.rules.endgame_limit]
        if over.size:
            st.place[over] = np.where(st.out[over], st.place[over], self.rules.num_players)
            self.finish(st, over)

    def finish(self, st: VeruState, idx: np.ndarray, truncated: bool = False) -> None:
        """Game over: placements are the places."""
        st.terminated[idx] = not truncated
        st.truncated[idx] = truncated
        st.phase[idx] = R.PHASE_OVER
        st.current_player[idx] = -1
        st.placements[idx] = st.place[idx]

    # ================================================================ legality
    def update_legal_mask(self, st: VeruState) -> None:
        """Legal actions of every game's current player (``timeout`` never listed)."""
        m = st.legal_action_mask
        m[:] = False
        ph = st.phase
        b = st.batch_size
        rows = np.arange(b)
        cp = np.maximum(st.current_player, 0).astype(np.int64)
        has = st.hands[rows, cp] > 0                                 # [B, T]
        announce = ph == R.PHASE_ANNOUNCE
        putting = ph == R.PHASE_PUT
        respond = ph == R.PHASE_RESPOND
        m[:, R.ANNOUNCE0:R.PUT0] = announce[:, None] & ~st.closed
        m[:, R.PUT0:R.DONE] = (putting | respond)[:, None] & has
        m[:, R.DONE] = putting & (st.put_count >= 1)
        m[:, R.BELIEVE] = respond
        m[:, R.DISBELIEVE] = respond
        if not self._swap_seat.any():  # no seat has the Joker gadget: never legal
            return
        can_swap = ((announce | respond) & self._swap_seat[cp] & ~st.acted
                    & (st.swaps_used[rows, cp] < self.rules.joker_swaps)
                    & ~st.swapped_round[rows, cp] & (st.hand_sizes[rows, cp] > 1))
        m[:, R.SWAP0:R.TIMEOUT] = can_swap[:, None] & has[:, :N]

    # ================================================================ observation
    def observe(self, st: VeruState) -> dict[str, np.ndarray]:
        """The current player's information set, batch-first (table in ``observe.py``)."""
        b = st.batch_size
        rows = np.arange(b)
        seat = st.current_player.astype(np.int64)
        mine = seat >= 0
        cp = np.maximum(seat, 0)
        claim = self.claim_counts(st, rows)
        lc = st.last_check.astype(np.int64)
        saw = mine & (((lc[:, 2] == 0) & (lc[:, 3] == 1)) | (cp == lc[:, 4]) | (cp == lc[:, 1])
                      | (self._check_seat[cp] & (lc[:, 2] < 2)))
        ace = mine & self._ace_seat[cp]
        bank = st.bank.astype(np.int64)
        ace_where = np.concatenate([st.hands[:, :, R.ACE], claim[:, [R.ACE]],
                                    bank[:, :, R.ACE].sum(axis=1, keepdims=True),
                                    (st.discard_seen[:, [R.ACE]].astype(np.int64)
                                     + st.discard_hidden[:, [R.ACE]])], axis=1)
        keep = mine[:, None]
        return {
            "seat": st.current_player.copy(), "phase": st.phase.copy(),
            "hand": np.where(keep, st.hands[rows, cp], 0).astype(I8),
            "hand_sizes": st.hand_sizes.copy(), "out": st.out.copy(), "place": st.place.copy(),
            "opener": st.opener.copy(), "claimant": st.claimant.copy(),
            "claim_rank": st.claim_rank.copy(), "claim_count": st.table_n.copy(),
            "put_count": st.put_count.copy(),
            "my_table": np.where(keep & (st.claimant == seat)[:, None], claim, 0).astype(I8),
            "bank_sizes": bank.sum(axis=2).astype(I8),
            "my_bank": np.where(keep, st.bank[rows, cp], 0).astype(I8),
            "closed": st.closed.copy(), "discard_seen": st.discard_seen.copy(),
            "discard_hidden": st.discard_hidden.sum(axis=1, dtype=I8),
            "taken": st.taken.copy(),
            "seen_taken": np.where(keep[:, :, None], st.seen_taken[rows, cp], 0).astype(I32),
            "last_check": st.last_check.copy(),
            "last_check_cards": np.where(saw[:, None], st.last_check_cards, 0).astype(I8),
            "swaps_left": np.where(mine & self._swap_seat[cp],
                                   self.rules.joker_swaps - st.swaps_used[rows, cp], 0).astype(I8),
            "ace_where": np.where(ace[:, None], ace_where, -1).astype(I8),
            "endgame_left": np.where(st.endgame_count >= 0,
                                     self.rules.endgame_limit - st.endgame_count, -1).astype(I32),
            "num_rounds": st.num_rounds.copy(),
            "my_out": np.where(keep, st.hidden_out[rows, cp], 0).astype(I8),
            "known_in_hand": np.where(keep[:, :, None], st.known[rows, cp], 0).astype(I8),
            "claims": st.claims.copy(), "cards_claimed": st.cards_claimed.copy(),
            "claims_checked": st.claim_checks.copy(), "checks": st.checks.copy(),
            "pickups": st.pickups.copy(), "timeouts": st.timeouts.copy(),
            "swaps_made": st.swaps_used.astype(I32),
        }

    def observation_tensor(self, st: VeruState) -> np.ndarray:
        """float32[B, D] flat observation; layout in ``observe.tensor_layout``."""
        return O.to_tensor(self.rules, self.observe(st))

    # ================================================================ records
    def final_score(self, st: VeruState, idx: np.ndarray) -> np.ndarray:
        """Cards left in hand per seat (the results' ``score`` column)."""
        return st.hand_sizes[idx]

    def round_record(self, st: VeruState, idx: np.ndarray) -> dict[str, np.ndarray]:
        """One results row per finished round (check or timeout) of games ``idx``."""
        lc = st.last_check[idx].astype(np.int64)
        return {"round": st.num_rounds[idx] - 1, "caller": lc[:, 0], "claimant": lc[:, 1],
                "call": np.asarray(["believe", "disbelieve", "timeout"], object)[lc[:, 2]],
                "call_right": np.where(lc[:, 2] == 0, lc[:, 3] == 1, lc[:, 3] == 0),
                "taker": lc[:, 4]}

    # ================================================================ bridges
    def from_reference(self, states: list[RefState]) -> VeruState:
        """A batch holding exact copies of reference states."""
        st = self.empty_state(np.asarray([s.seed for s in states], dtype=np.uint64))
        for b, s in enumerate(states):
            self.copy_shared_fields(st, b, s)
            st.hands[b] = s.hand_counts
            st.hand_sizes[b] = [sum(h) for h in s.hand_counts]
            st.table[b] = -1
            st.table[b, : len(s.table)] = s.table
            st.table_n[b] = len(s.table)
            st.claimant[b], st.claim_rank[b] = s.claimant, s.claim_rank
            st.bank[b] = s.bank
            st.closed[b] = s.closed
            st.discard_seen[b], st.discard_hidden[b] = s.discard_seen, s.discard_hidden
            st.out[b], st.place[b] = s.out, s.place
            st.in_bits[b] = np.int64(sum(1 << q for q, o in enumerate(s.out) if not o)).astype(I8)
            st.opener[b], st.put_count[b], st.acted[b] = s.opener, s.put_count, s.acted
            st.swaps_used[b], st.swapped_round[b] = s.swaps_used, s.swapped_round
            st.endgame_count[b] = s.endgame_count
            st.taken[b], st.seen_taken[b] = s.taken, s.seen_taken
            st.known[b], st.hidden_out[b] = s.known, s.hidden_out
            st.claims[b], st.cards_claimed[b] = s.claims, s.cards_claimed
            st.claim_checks[b], st.checks[b] = s.claim_checks, s.checks
            st.pickups[b], st.timeouts[b] = s.pickups, s.timeouts
            st.last_check[b], st.last_check_cards[b] = s.last_check, s.last_check_cards
        self.update_legal_mask(st)
        return st


def make_game(num_players: int = 4, **options: Any) -> VeruGame:
    """``bluffsim.make("veru", ...)``: validated rules and the vectorised engine."""
    return VeruGame(Rules.from_options(num_players=num_players, **options))
