"""Batched numpy engine of ``legumes``: the fast path, bit-identical to ``reference.py``.

A step splits the batch by action kind (open, play, accuse, vegetable choice,
reverse, accept, reverse with a card) and applies each rule to its sub-batch; Python loops run over card
slots, seats or cards to draw, never over games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bluffsim import rng
from bluffsim.api import Game, State, check_seeds
from bluffsim.games.legumes import observe as O
from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.reference import RESHUFFLE_STREAM, RefState
from bluffsim.games.legumes.rules import Rules

I8, I16, I32 = np.int8, np.int16, np.int32
T = R.NUM_TYPES
POINTS = np.asarray(R.CARD_POINTS, dtype=np.int64)


@dataclass
class LegumesState(State):
    """Batch of legumes games.  Game-specific fields (B games, P seats, T = 22 types, W cards):"""

    seed: np.ndarray             # uint64[B] game seed
    phase: np.ndarray            # int8[B] 0 open, 1 play, 2 over
    hands: np.ndarray            # int8[B,P,T] cards in hand per type
    hand_sizes: np.ndarray       # int16[B,P] cards in hand per seat
    draw: np.ndarray             # int8[B,W] the draw pile in order (-1 padding)
    draw_ptr: np.ndarray         # int16[B] next card of `draw`
    draw_len: np.ndarray         # int16[B] cards in `draw`
    discard: np.ndarray          # int8[B,T] discard pile per type
    discard_revealed: np.ndarray  # int8[B,T] the part of it known to all
    reshuffles: np.ndarray       # int8[B] times the draw pile ran out
    fd_by_owner: np.ndarray      # int8[B,P,T] this round's face-down cards per owner
    fd_count: np.ndarray         # int16[B] face-down cards this round
    last_owner: np.ndarray       # int8[B] owner of the last face-down card (-1 none)
    last_card: np.ndarray        # int8[B] its type (-1 none)
    last_called: np.ndarray      # int8[B] vegetable called when it was played (-1 none)
    face_up: np.ndarray          # int8[B,T] face-up action cards this round
    called: np.ndarray           # int8[B] the called vegetable (-1 none)
    direction: np.ndarray        # int8[B] +1 / -1
    after_reverse: np.ndarray    # bool[B] the last move was a Reverse
    pending: np.ndarray          # int8[B] seat whose hand emptied at the last decision (-1)
    revealed_total: np.ndarray   # int32[B,T] cards revealed so far
    last_reveal: np.ndarray      # int16[B,6] accuser, accused, card, doubled, taker, cards taken
    round_over: np.ndarray       # bool[B] an accusation ended a round during the last step
    fd_claims: np.ndarray        # int16[B,P,V] this round's face-down cards per owner and call
    my_discard: np.ndarray       # int8[B,P,T] each seat's own unrevealed cards in the discard
    reshuffled_known: np.ndarray  # int8[B,P,T] discard cards each seat knew of at the reshuffle
    taken_known: np.ndarray      # int32[B,P,P,T] observer x holder: known cards a Bomb gave
    accused_tally: np.ndarray    # int32[B,P,3] accusations against a seat: true, lie, bomb
    accuser_tally: np.ndarray    # int32[B,P,3] accusations made by a seat, by revealed outcome
    shown_tally: np.ndarray      # int32[B,P,4] action cards a seat showed: bomb..double
    drawn_tally: np.ndarray      # int32[B,P] cards a seat drew from the draw pile
    bomb_taken: np.ndarray       # int32[B,P] cards a seat took with a Bomb


class LegumesGame(Game):
    """Vectorised Menteur with vegetables and action cards (see ``rules.py``)."""

    game_id = "legumes"

    def __init__(self, rules: Rules):
        self.rules = rules
        self.action_names = rules.action_names
        self.observation_size = O.tensor_size(rules)
        self._deck = np.asarray(rules.deck, dtype=I8)
        self._width = rules.total_cards

    # ================================================================ set-up
    def empty_state(self, seeds: np.ndarray) -> LegumesState:
        """Zeroed arrays for ``len(seeds)`` games."""
        b, p, w = len(seeds), self.rules.num_players, self._width
        z = np.zeros
        return LegumesState(
            current_player=z(b, I8), legal_action_mask=z((b, R.NUM_ACTIONS), bool),
            terminated=z(b, bool), truncated=z(b, bool), placements=z((b, p), I8),
            num_decisions=z(b, I32), num_rounds=z(b, I32), seed=seeds.astype(np.uint64),
            phase=z(b, I8), hands=z((b, p, T), I8), hand_sizes=z((b, p), I16),
            draw=np.full((b, w), -1, I8), draw_ptr=z(b, I16), draw_len=z(b, I16),
            discard=z((b, T), I8), discard_revealed=z((b, T), I8), reshuffles=z(b, I8),
            fd_by_owner=z((b, p, T), I8), fd_count=z(b, I16), last_owner=np.full(b, -1, I8),
            last_card=np.full(b, -1, I8), last_called=np.full(b, -1, I8), face_up=z((b, T), I8),
            called=np.full(b, -1, I8), direction=np.ones(b, I8), after_reverse=z(b, bool),
            pending=np.full(b, -1, I8), revealed_total=z((b, T), I32),
            last_reveal=np.full((b, 6), -1, I16), round_over=z(b, bool),
            fd_claims=z((b, p, R.NUM_VEG), I16), my_discard=z((b, p, T), I8),
            reshuffled_known=z((b, p, T), I8), taken_known=z((b, p, p, T), I32),
            accused_tally=z((b, p, 3), I32), accuser_tally=z((b, p, 3), I32),
            shown_tally=z((b, p, 4), I32), drawn_tally=z((b, p), I32), bomb_taken=z((b, p), I32))

    def init(self, seeds: Any) -> LegumesState:
        """New games: action cards, dealt vegetables, the rest as the draw pile."""
        seeds = check_seeds(seeds)
        st = self.empty_state(seeds)
        r = self.rules
        b, p, hs, d = st.batch_size, r.num_players, r.hand_size, r.deck_size
        deck = self._deck[rng.permutations(seeds, rng.Stream.DEAL, 0, d)].astype(np.int64)
        dealt = deck[:, : p * hs].reshape(b, p, hs)
        key = (np.arange(b)[:, None, None] * p + np.arange(p)[None, :, None]) * T + dealt
        st.hands[:] = np.bincount(key.ravel(), minlength=b * p * T).reshape(b, p, T)
        st.hands[:, :, list(R.ACTION_CARDS)] += 1
        st.hand_sizes[:] = hs + 4
        st.draw[:, : d - p * hs] = deck[:, p * hs:]
        st.draw_len[:] = d - p * hs
        if r.first_player >= 0:
            st.current_player[:] = r.first_player
        else:
            st.current_player[:] = rng.below(rng.words(seeds, rng.Stream.OPENER, 0, 0), p)
        self.update_legal_mask(st)
        return st

    def reset_games(self, st: LegumesState, idx: np.ndarray, seeds: Any) -> None:
        """Restart games ``idx`` in place as new games with ``seeds`` (autoreset)."""
        fresh = self.init(seeds)
        for name, value in vars(fresh).items():
            getattr(st, name)[idx] = value

    # ================================================================ step
    def step(self, st: LegumesState, actions: Any) -> LegumesState:
        """Apply one decision per game (in place); finished games ignore their action."""
        a = self.check_actions(st, actions)
        live = ~st.done
        actor = st.current_player.astype(np.int64)
        st.num_decisions += live
        st.round_over[:] = False
        idx = np.flatnonzero(live & (a < R.PLAY0))
        if idx.size:
            self.open(st, idx, (a[idx] - R.OPEN0) // R.NUM_VEG, (a[idx] - R.OPEN0) % R.NUM_VEG)
        idx = np.flatnonzero(live & (a >= R.PLAY0) & (a < R.ACCUSE))
        if idx.size:
            self.play(st, idx, a[idx] - R.PLAY0)
        idx = np.flatnonzero(live & ((a == R.ACCUSE) | (a == R.ACCUSE_DOUBLE)))
        if idx.size:
            self.accuse(st, idx, a[idx] == R.ACCUSE_DOUBLE)
        idx = np.flatnonzero(live & (a >= R.CHOICE0) & (a < R.REVERSE_ID))
        if idx.size:
            self.vegetable_choice(st, idx, a[idx] - R.CHOICE0)
        idx = np.flatnonzero(live & (a == R.REVERSE_ID))
        if idx.size:
            self.reverse(st, idx)
        idx = np.flatnonzero(live & (a == R.ACCEPT))
        if idx.size:
            self.finish(st, idx, truncated=False)
        idx = np.flatnonzero(live & (a >= R.REVERSE_PLAY0))
        if idx.size:
            self.reverse_with_card(st, idx, a[idx] - R.REVERSE_PLAY0)
        face_down = (a < R.ACCUSE) | (a >= R.REVERSE_PLAY0)
        self.check_empty_hands(st, np.flatnonzero(live), np.where(face_down, actor, -1)[live])
        over = np.flatnonzero(live & ~st.done & (st.num_decisions >= self.rules.max_turns))
        if over.size:
            self.finish(st, over, truncated=True)
        self.update_legal_mask(st)
        return st

    def pass_turn(self, st: LegumesState, idx: np.ndarray) -> None:
        """The next player in the current direction decides."""
        st.current_player[idx] = (st.current_player[idx].astype(np.int64)
                                  + st.direction[idx]) % self.rules.num_players

    def open(self, st: LegumesState, idx: np.ndarray, card: np.ndarray, veg: np.ndarray) -> None:
        """The opener puts a card face down and calls the round's vegetable."""
        st.called[idx] = veg
        st.phase[idx] = R.PHASE_PLAY
        self.play(st, idx, card)

    def play(self, st: LegumesState, idx: np.ndarray, card: np.ndarray) -> None:
        """Put a card face down, claiming it is the called vegetable."""
        me = st.current_player[idx].astype(np.int64)
        st.hands[idx, me, card] -= 1
        st.hand_sizes[idx, me] -= 1
        st.fd_by_owner[idx, me, card] += 1
        st.fd_count[idx] += 1
        st.last_owner[idx] = me
        st.last_card[idx] = card
        st.last_called[idx] = st.called[idx]
        st.fd_claims[idx, me, st.called[idx].astype(np.int64)] += 1
        st.after_reverse[idx] = False
        self.pass_turn(st, idx)

    def face_up_card(self, st: LegumesState, idx: np.ndarray, card: int) -> None:
        """An action card from the current hand goes face up among the round's cards."""
        me = st.current_player[idx].astype(np.int64)
        st.hands[idx, me, card] -= 1
        st.hand_sizes[idx, me] -= 1
        st.face_up[idx, card] += 1
        st.shown_tally[idx, me, card - R.BOMB] += 1

    def vegetable_choice(self, st: LegumesState, idx: np.ndarray, veg: np.ndarray) -> None:
        """Vegetable choice face up: a new called vegetable."""
        self.face_up_card(st, idx, R.CHOICE)
        st.called[idx] = veg
        st.after_reverse[idx] = False
        self.pass_turn(st, idx)

    def reverse(self, st: LegumesState, idx: np.ndarray) -> None:
        """Reverse face up alone: the order reverses and the next player may not accuse."""
        self.face_up_card(st, idx, R.REVERSE)
        st.direction[idx] *= -1
        st.after_reverse[idx] = True
        self.pass_turn(st, idx)

    def reverse_with_card(self, st: LegumesState, idx: np.ndarray, card: np.ndarray) -> None:
        """Reverse face up with ``card`` face down: the order reverses and the next player,
        in the new direction, may not accuse that card."""
        self.face_up_card(st, idx, R.REVERSE)
        st.direction[idx] *= -1
        self.play(st, idx, card)
        st.after_reverse[idx] = True

    # ================================================================ reveal
    def accuse(self, st: LegumesState, idx: np.ndarray, double: np.ndarray) -> None:
        """Reveal the last face-down card and settle who takes what."""
        accuser = st.current_player[idx].astype(np.int64)
        if double.any():
            self.face_up_card(st, idx[double], R.DOUBLE)
        owner = st.last_owner[idx].astype(np.int64)
        card = st.last_card[idx].astype(np.int64)
        called = st.last_called[idx].astype(np.int64)
        st.revealed_total[idx, card] += 1
        st.num_rounds[idx] += 1
        st.round_over[idx] = True
        bomb = card == R.BOMB
        outcome = np.where(bomb, R.OUTCOME_BOMB,
                           np.where((card < R.BOMB) & (card // 3 == called), R.OUTCOME_TRUE,
                                    R.OUTCOME_LIE))
        st.accused_tally[idx, owner, outcome] += 1
        st.accuser_tally[idx, accuser, outcome] += 1
        act = card >= R.BOMB
        st.shown_tally[idx[act], owner[act], card[act] - R.BOMB] += 1
        if bomb.any():
            j = idx[bomb]
            taken = self.bomb(st, j, accuser[bomb], owner[bomb])
            st.last_reveal[j] = np.stack([accuser[bomb], owner[bomb], card[bomb],
                                          double[bomb].astype(np.int64), accuser[bomb], taken],
                                         axis=1)
            self.next_round(st, j, accuser[bomb])
        rest = ~bomb
        if not rest.any():
            return
        j, accuser, owner, card, called, double = (idx[rest], accuser[rest], owner[rest],
                                                   card[rest], called[rest], double[rest])
        self.round_to_discard(st, j, card)
        veg = card < R.BOMB
        loser = np.where(veg & (card // 3 == called), accuser, owner)
        n = np.where(veg, card % 3 + 1, self.rules.action_lie_penalty) * np.where(double, 2, 1)
        st.last_reveal[j] = np.stack([accuser, owner, card, double.astype(np.int64), loser, n],
                                     axis=1)
        ended = self.draw_cards(st, j, loser, n)
        self.next_round(st, j[~ended], loser[~ended])

    def bomb(self, st: LegumesState, idx: np.ndarray, accuser: np.ndarray,
             owner: np.ndarray) -> np.ndarray:
        """The accuser takes the discard pile and every card of this round; returns the count.

        Each other seat knows the public cards among them, the Bomb and its own cards."""
        taken = (st.discard[idx].astype(np.int64) + st.face_up[idx]
                 + st.fd_by_owner[idx].sum(axis=1))
        p = self.rules.num_players
        seats = np.arange(p)[None, :]
        known = (st.discard_revealed[idx].astype(np.int64) + st.face_up[idx])[:, None, :] \
            + st.my_discard[idx] + st.fd_by_owner[idx]                          # [n, P, T]
        known[:, :, R.BOMB] += seats != owner[:, None]
        is_accuser = seats == accuser[:, None]
        known = np.where(is_accuser[:, :, None], taken[:, None, :], known)
        st.taken_known[idx[:, None], seats, accuser[:, None]] += known.astype(I32)
        st.hands[idx, accuser] += taken.astype(I8)
        total = taken.sum(axis=1)
        st.hand_sizes[idx, accuser] += total.astype(I16)
        st.bomb_taken[idx, accuser] += total.astype(I32)
        st.discard[idx] = 0
        st.discard_revealed[idx] = 0
        st.my_discard[idx] = 0
        self.clear_round(st, idx)
        return total

    def round_to_discard(self, st: LegumesState, idx: np.ndarray, card: np.ndarray) -> None:
        """This round's cards go on the discard pile; the revealed and face-up ones are known."""
        st.discard[idx] += (st.fd_by_owner[idx].sum(axis=1) + st.face_up[idx]).astype(I8)
        st.my_discard[idx] += st.fd_by_owner[idx]
        st.my_discard[idx, st.last_owner[idx].astype(np.int64), card] -= 1
        st.discard_revealed[idx, card] += 1
        st.discard_revealed[idx] += st.face_up[idx]
        self.clear_round(st, idx)

    def clear_round(self, st: LegumesState, idx: np.ndarray) -> None:
        """No face-down or face-up cards on the table any more."""
        st.fd_by_owner[idx] = 0
        st.fd_claims[idx] = 0
        st.fd_count[idx] = 0
        st.face_up[idx] = 0
        st.last_owner[idx] = -1
        st.last_card[idx] = -1
        st.last_called[idx] = -1

    def draw_cards(self, st: LegumesState, idx: np.ndarray, seat: np.ndarray,
                   n: np.ndarray) -> np.ndarray:
        """Draw ``n`` cards each; returns the games that ended on a second exhaustion.

        Games whose draw pile holds all ``n`` cards take them in one gather; the
        others draw card by card, reshuffling or ending the game when the pile runs out.
        """
        ended = np.zeros(idx.size, bool)
        fits = st.draw_ptr[idx].astype(np.int64) + n <= st.draw_len[idx]
        if fits.any():
            self.draw_from_pile(st, idx[fits], seat[fits], n[fits])
        idx, seat, n = idx[~fits], seat[~fits], n[~fits]
        if idx.size == 0:
            return ended
        ended_slow = self.draw_one_by_one(st, idx, seat, n)
        ended[~fits] = ended_slow
        return ended

    def draw_from_pile(self, st: LegumesState, idx: np.ndarray, seat: np.ndarray,
                       n: np.ndarray) -> None:
        """Draw ``n`` cards each from piles known to hold them (one gather, one bincount)."""
        ptr = st.draw_ptr[idx].astype(np.int64)
        k = np.arange(int(n.max(initial=0)))
        take = k[None, :] < n[:, None]                                   # [m, K]
        cards = st.draw[idx[:, None], np.minimum(ptr[:, None] + k, self._width - 1)]
        rows = np.broadcast_to(np.arange(idx.size)[:, None], take.shape)
        counts = np.bincount((rows * R.NUM_TYPES + cards)[take],
                             minlength=idx.size * R.NUM_TYPES).reshape(idx.size, R.NUM_TYPES)
        st.hands[idx, seat] += counts.astype(I8)
        st.hand_sizes[idx, seat] += n.astype(I16)
        st.drawn_tally[idx, seat] += n.astype(I32)
        st.draw_ptr[idx] = ptr + n

    def draw_one_by_one(self, st: LegumesState, idx: np.ndarray, seat: np.ndarray,
                        n: np.ndarray) -> np.ndarray:
        """Card-by-card drawing for games whose pile runs out (reshuffle or end)."""
        ended = np.zeros(idx.size, bool)
        for k in range(int(n.max(initial=0))):
            want = (n > k) & ~ended
            empty = want & (st.draw_ptr[idx] >= st.draw_len[idx])
            if empty.any():
                can = empty & (st.reshuffles[idx] == 0) & (st.discard[idx].sum(axis=1) > 0)
                if can.any():
                    self.reshuffle(st, idx[can])
                stop = empty & ~can
                if stop.any():
                    st.reshuffles[idx[stop]] += 1
                    self.finish(st, idx[stop], truncated=False)
                    ended |= stop
                want &= ~stop
            j, s = idx[want], seat[want]
            ptr = st.draw_ptr[j].astype(np.int64)
            card = st.draw[j, ptr].astype(np.int64)
            st.hands[j, s, card] += 1
            st.hand_sizes[j, s] += 1
            st.drawn_tally[j, s] += 1
            st.draw_ptr[j] = ptr + 1
        return ended

    def reshuffle(self, st: LegumesState, idx: np.ndarray) -> None:
        """The discard pile, shuffled, becomes the new draw pile."""
        w = self._width
        counts = st.discard[idx].astype(np.int64)
        length = counts.sum(axis=1)
        cum = np.cumsum(counts, axis=1)
        sorted_cards = (np.arange(w)[None, None, :] >= cum[:, :, None]).sum(axis=1)  # [n, W]
        perm = rng.ragged_permutations(st.seed[idx], RESHUFFLE_STREAM, 0, length, w)
        rows = np.arange(idx.size)[:, None]
        st.draw[idx] = np.where(perm >= 0, sorted_cards[rows, np.maximum(perm, 0)], -1)
        st.draw_ptr[idx] = 0
        st.draw_len[idx] = length
        st.reshuffled_known[idx] = st.discard_revealed[idx][:, None, :] + st.my_discard[idx]
        st.discard[idx] = 0
        st.discard_revealed[idx] = 0
        st.my_discard[idx] = 0
        st.reshuffles[idx] += 1

    def next_round(self, st: LegumesState, idx: np.ndarray, opener: np.ndarray) -> None:
        """The player who received cards opens the next round."""
        st.called[idx] = -1
        st.phase[idx] = R.PHASE_OPEN
        st.after_reverse[idx] = False
        st.current_player[idx] = opener

    # ================================================================ end
    def check_empty_hands(self, st: LegumesState, idx: np.ndarray, face_down_by: np.ndarray) -> None:
        """An empty hand ends the game at once, unless its only owner's last card just went
        face down (``face_down_by``): then the next player accuses or accepts it (``pending``)."""
        st.pending[idx] = -1
        go = ~st.done[idx]
        idx, face_down_by = idx[go], face_down_by[go]
        if idx.size == 0:
            return
        empty = st.hand_sizes[idx] == 0                                     # [n, P]
        n_empty = empty.sum(axis=1)
        facing = (n_empty == 1) & (face_down_by >= 0) & empty[np.arange(idx.size),
                                                             np.maximum(face_down_by, 0)]
        st.pending[idx[facing]] = face_down_by[facing]
        end = (n_empty > 0) & ~facing
        if end.any():
            self.finish(st, idx[end], truncated=False)

    def finish(self, st: LegumesState, idx: np.ndarray, truncated: bool) -> None:
        """Game over: lowest score first, equal scores share a place."""
        st.terminated[idx] = not truncated
        st.truncated[idx] = truncated
        st.phase[idx] = R.PHASE_OVER
        st.current_player[idx] = -1
        score = st.hands[idx].astype(np.int64) @ POINTS
        st.placements[idx] = 1 + (score[:, None, :] < score[:, :, None]).sum(axis=2)

    def final_score(self, st: LegumesState, idx: np.ndarray) -> np.ndarray:
        """Points in hand per seat (the results' ``score`` column)."""
        return st.hands[idx].astype(np.int64) @ POINTS

    def round_record(self, st: LegumesState, idx: np.ndarray) -> dict[str, np.ndarray]:
        """One results row per accusation of games ``idx``."""
        lr = st.last_reveal[idx].astype(np.int64)
        card = lr[:, 2]
        return {"round": st.num_rounds[idx] - 1, "caller": lr[:, 0], "accused": lr[:, 1],
                "card": np.asarray(R.CARD_NAMES, object)[card], "doubled": lr[:, 3] == 1,
                "taker": lr[:, 4], "cards_taken": lr[:, 5], "call_right": lr[:, 4] != lr[:, 0]}

    # ================================================================ legality
    def update_legal_mask(self, st: LegumesState) -> None:
        """Legal actions of every game's current player."""
        m = st.legal_action_mask
        m[:] = False
        b = st.batch_size
        rows = np.arange(b)
        cp = np.maximum(st.current_player, 0).astype(np.int64)
        has = st.hands[rows, cp] > 0
        opening = st.phase == R.PHASE_OPEN
        playing = st.phase == R.PHASE_PLAY
        m[:, R.OPEN0:R.PLAY0] = (opening[:, None, None] & has[:, :, None]).repeat(
            R.NUM_VEG, axis=2).reshape(b, -1)
        facing = playing & (st.pending >= 0)          # a player's last face-down card
        free = playing & ~facing
        m[:, R.PLAY0:R.ACCUSE] = free[:, None] & has
        accuse = (playing & (st.fd_count > 0) & (st.last_owner != st.current_player)
                  & ~st.after_reverse)
        m[:, R.ACCUSE] = accuse
        m[:, R.ACCUSE_DOUBLE] = accuse & has[:, R.DOUBLE]
        m[:, R.ACCEPT] = facing
        m[:, R.CHOICE0:R.REVERSE_ID] = (free & has[:, R.CHOICE])[:, None]
        rev = free & has[:, R.REVERSE]
        m[:, R.REVERSE_ID] = rev & (self.rules.reverse_alone | (st.hand_sizes[rows, cp] == 1))
        if not self.rules.reverse_alone:
            with_card = has.copy()
            with_card[:, R.REVERSE] = st.hands[rows, cp, R.REVERSE] >= 2
            m[:, R.REVERSE_PLAY0:] = rev[:, None] & with_card

    # ================================================================ observation
    def observe(self, st: LegumesState) -> dict[str, np.ndarray]:
        """The current player's information set, batch-first (table in ``observe.py``)."""
        rows = np.arange(st.batch_size)
        seat = st.current_player.astype(np.int64)
        keep = (seat >= 0)[:, None]
        cp = np.maximum(seat, 0)
        return {
            "seat": st.current_player.copy(), "phase": st.phase.copy(),
            "hand": np.where(keep, st.hands[rows, cp], 0).astype(I8),
            "hand_sizes": st.hand_sizes.copy(), "called": st.called.copy(),
            "direction": st.direction.copy(), "face_down_count": st.fd_count.copy(),
            "last_owner": st.last_owner.copy(), "last_called": st.last_called.copy(),
            "my_face_down": np.where(keep, st.fd_by_owner[rows, cp], 0).astype(I8),
            "face_up": st.face_up.copy(), "after_reverse": st.after_reverse.copy(),
            "discard_size": st.discard.sum(axis=1, dtype=I16),
            "discard_revealed": st.discard_revealed.copy(),
            "draw_size": (st.draw_len - st.draw_ptr).astype(I16),
            "reshuffles": st.reshuffles.copy(), "revealed_total": st.revealed_total.copy(),
            "last_reveal": st.last_reveal.copy(), "pending": st.pending.copy(),
            "num_rounds": st.num_rounds.copy(),
            "my_discard": np.where(keep, st.my_discard[rows, cp], 0).astype(I8),
            "reshuffled_known": np.where(keep, st.reshuffled_known[rows, cp], 0).astype(I8),
            "fd_claims": st.fd_claims.copy(),
            "taken_known": np.where(keep[:, :, None], st.taken_known[rows, cp], 0).astype(I32),
            "accused_tally": st.accused_tally.copy(), "accuser_tally": st.accuser_tally.copy(),
            "shown_tally": st.shown_tally.copy(), "drawn_tally": st.drawn_tally.copy(),
            "bomb_taken": st.bomb_taken.copy(),
        }

    def observation_tensor(self, st: LegumesState) -> np.ndarray:
        """float32[B, D] flat observation; layout in ``observe.tensor_layout``."""
        return O.to_tensor(self.rules, self.observe(st))

    # ================================================================ bridges
    def from_reference(self, states: list[RefState]) -> LegumesState:
        """A batch holding exact copies of reference states."""
        st = self.empty_state(np.asarray([s.seed for s in states], dtype=np.uint64))
        for b, s in enumerate(states):
            self.copy_shared_fields(st, b, s)
            st.hands[b] = s.hand_counts
            st.hand_sizes[b] = [sum(h) for h in s.hand_counts]
            st.draw[b] = -1
            st.draw[b, : len(s.draw)] = s.draw
            st.draw_ptr[b], st.draw_len[b] = s.draw_ptr, len(s.draw)
            st.discard[b], st.discard_revealed[b] = s.discard, s.discard_revealed
            st.reshuffles[b] = s.reshuffles
            for owner, card, called in s.face_down:
                st.fd_by_owner[b, owner, card] += 1
                st.fd_claims[b, owner, called] += 1
            st.fd_count[b] = len(s.face_down)
            last = s.face_down[-1] if s.face_down else (-1, -1, -1)
            st.last_owner[b], st.last_card[b], st.last_called[b] = last
            st.face_up[b], st.called[b], st.direction[b] = s.face_up, s.called, s.direction
            st.after_reverse[b], st.pending[b] = s.after_reverse, s.pending
            st.revealed_total[b], st.last_reveal[b] = s.revealed_total, s.last_reveal
            st.my_discard[b], st.reshuffled_known[b] = s.my_discard, s.reshuffled_known
            st.taken_known[b] = s.taken_known
            st.accused_tally[b], st.accuser_tally[b] = s.accused_tally, s.accuser_tally
            st.shown_tally[b], st.drawn_tally[b] = s.shown_tally, s.drawn_tally
            st.bomb_taken[b] = s.bomb_taken
        self.update_legal_mask(st)
        return st


def make_game(num_players: int = 4, **options: Any) -> LegumesGame:
    """``bluffsim.make("legumes", ...)``: validated rules and the vectorised engine."""
    return LegumesGame(Rules.from_options(num_players=num_players, **options))
