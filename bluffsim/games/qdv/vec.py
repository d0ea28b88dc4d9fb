"""Batched numpy engine of ``qdv``: the fast path, bit-identical to ``reference.py``.

Every rule works on a whole batch with masks, fancy indexing and ``np.where``;
the only Python loops run over action kinds and seats, never over games.  A
step splits the batch by what each game's action does (bid, call, salad
declaration, reward, start choice), applies each rule to its sub-batch, then
ends rounds and deals again for the games whose round finished.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bluffsim import rng
from bluffsim.api import Game, State, check_seeds
from bluffsim.games.qdv import observe as O
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.reference import PLACE_SURVIVOR, RefState
from bluffsim.games.qdv.rules import Rules
from bluffsim.games.seating import direction_index, first_from_table, next_seat_table, to_bits

I8, I16, I32 = np.int8, np.int16, np.int32
KIND_FRUIT = np.asarray(R.KIND_FRUIT, dtype=np.int64)
KIND_MULT = np.asarray(R.KIND_MULT, dtype=np.int64)
# [K, F]: value of one card of each kind towards each fruit (salads: 0)
VALUE = np.zeros((R.NUM_KINDS, R.NUM_FRUITS), dtype=np.int64)
VALUE[np.arange(R.SALAD), KIND_FRUIT[:R.SALAD]] = KIND_MULT[:R.SALAD]


def crossing_table(on_landing: bool) -> np.ndarray:
    """bool[F, F, F]: moving the marker from fruit ``old`` to ``new`` reaches/passes ``start``."""
    f = np.arange(R.NUM_FRUITS)
    old, new, start = np.meshgrid(f, f, f, indexing="ij")
    steps = (new - old) % R.NUM_FRUITS
    dist = (start - old) % R.NUM_FRUITS
    last = steps if on_landing else steps - 1
    return (dist >= 1) & (dist <= last)


@dataclass
class QdvState(State):
    """Batch of qdv games.  Game-specific fields (B games, P seats, K kinds, D deck, C challenges):"""

    seed: np.ndarray            # uint64[B] game seed (all randomness derives from it)
    phase: np.ndarray           # int8[B] 0 start choice, 1 bid, 2 salads, 3 reward, 4 over
    tokens: np.ndarray          # int16[B,P] tokens per seat
    in_round: np.ndarray        # bool[B,P] seat still plays this round (False once eliminated)
    round_bits: np.ndarray      # int8[B] the same as a bitmask (cache for seat lookups)
    elim_round: np.ndarray      # int32[B,P] round in which the seat was eliminated, -1 if not
    zero_time: np.ndarray       # int32[B,P] decision at which the seat's tokens last hit 0, -1
    dealer: np.ndarray          # int8[B] dealer seat
    direction: np.ndarray       # int8[B] +1 clockwise, -1 reversed
    hands: np.ndarray           # int8[B,P,K] cards in hand per kind
    hand_sizes: np.ndarray      # int8[B,P] cards in hand per seat (= hands summed over kinds)
    revealed: np.ndarray        # int8[B,P,K] face-up cards still in hand
    discarded: np.ndarray       # int8[B,P,K] discarded face-up cards
    deck: np.ndarray            # int8[B,D] this round's shuffled fruit deck (kinds)
    deck_ptr: np.ndarray        # int16[B] next undealt card of `deck`
    centre: np.ndarray          # int8[B] centre card kind
    chal_deck: np.ndarray       # int8[B,C] this round's shuffled challenge deck (effects)
    chal_ptr: np.ndarray        # int16[B] next challenge card
    chal_ready: np.ndarray      # bool[B] chal_deck holds this round's shuffle (made at 1st draw)
    start: np.ndarray           # int8[B] start fruit (-1 while the dealer chooses)
    bid_count: np.ndarray       # int8[B] standing bid's count
    bid_fruit: np.ndarray       # int8[B] standing bid's fruit = position marker
    bidder: np.ndarray          # int8[B] seat of the standing bid (-1 = initial bid)
    num_bids: np.ndarray        # int8[B] bids this round
    bid_history: np.ndarray     # int8[B,H,3] (seat, count, fruit) per bid, -1 padding
    drawn: np.ndarray           # int8[B,P] cards drawn by `draw` challenges this round
    challenges: np.ndarray      # int8[B,E] challenge cards turned this round per effect
    call: np.ndarray            # int8[B] -1 none, 0 vrai, 1 menteur
    caller: np.ndarray          # int8[B] calling seat (-1 none)
    declared: np.ndarray        # int8[B,P] salads declared at the latest showdown (-1 none)
    showdown_hands: np.ndarray  # int8[B,P,K] hands shown at the latest showdown
    showdown_count: np.ndarray  # int8[B] called fruit's count at the latest showdown
    holder_bits: np.ndarray     # int8[B] seats holding salads at this showdown (bitmask)
    round_over: np.ndarray      # bool[B] a round ended during the last step
    last_round: np.ndarray      # int16[B,10] record of the last finished round, see LAST_ROUND
    last_bid_history: np.ndarray  # int8[B,H,3] bids of the last showdown's round
    bid_tally: np.ndarray       # int32[B,P,5] public tallies over the game (observe.py table)
    call_tally: np.ndarray      # int32[B,P,4] calls made: vrai right/wrong, menteur right/wrong
    called_tally: np.ndarray    # int32[B,P,4] calls against the seat's bid, same columns
    token_tally: np.ndarray     # int32[B,P,5] tokens lost (challenge, showdown, punish), gained,
    #                             punish rewards given


LAST_ROUND = R.LAST_ROUND
LR = {name: i for i, name in enumerate(LAST_ROUND)}


class QdvGame(Game):
    """Vectorised Qui dit vrai ? (see ``rules.py`` for options and action ids)."""

    game_id = "qdv"

    def __init__(self, rules: Rules):
        self.rules = rules
        self.action_names = rules.action_names
        self._deck = np.asarray(rules.deck, dtype=I8)
        self._chal = np.asarray(rules.challenge_ids, dtype=I8)
        self._gain = rules.gain_id
        self._punish0 = rules.punish0
        self.observation_size = O.tensor_size(rules)
        self._mask_table = self.build_mask_table()
        self._next = next_seat_table(rules.num_players)
        self._first_from = first_from_table(rules.num_players)
        self._cross = crossing_table(rules.challenge_on_landing)
        self._popcount = np.asarray([bin(b).count("1") for b in range(1 << rules.num_players)])

    # ================================================================ set-up
    def empty_state(self, seeds: np.ndarray) -> QdvState:
        """Zeroed arrays for ``len(seeds)`` games (before the first deal)."""
        r = self.rules
        b, p, k = len(seeds), r.num_players, R.NUM_KINDS
        z = np.zeros
        return QdvState(
            current_player=z(b, I8), legal_action_mask=z((b, self.num_actions), bool),
            terminated=z(b, bool), truncated=z(b, bool), placements=z((b, p), I8),
            num_decisions=z(b, I32), num_rounds=z(b, I32), seed=seeds.astype(np.uint64),
            phase=z(b, I8), tokens=np.full((b, p), r.starting_tokens, I16),
            in_round=np.ones((b, p), bool), round_bits=z(b, I8), elim_round=np.full((b, p), -1, I32),
            zero_time=np.full((b, p), -1, I32),
            dealer=np.full(b, r.first_dealer, I8), direction=np.ones(b, I8),
            hands=z((b, p, k), I8), hand_sizes=z((b, p), I8), revealed=z((b, p, k), I8),
            discarded=z((b, p, k), I8),
            deck=z((b, r.deck_size), I8), deck_ptr=z(b, I16), centre=z(b, I8),
            chal_deck=z((b, len(self._chal)), I8), chal_ptr=z(b, I16), chal_ready=z(b, bool),
            start=z(b, I8), bid_count=z(b, I8), bid_fruit=z(b, I8), bidder=z(b, I8),
            num_bids=z(b, I8), bid_history=np.full((b, r.history_len, 3), -1, I8),
            drawn=z((b, p), I8), challenges=z((b, R.NUM_EFFECTS), I8),
            call=np.full(b, -1, I8), caller=np.full(b, -1, I8),
            declared=np.full((b, p), -1, I8), showdown_hands=z((b, p, k), I8),
            showdown_count=np.full(b, -1, I8), holder_bits=z(b, I8), round_over=z(b, bool),
            last_round=np.full((b, len(LAST_ROUND)), -1, I16),
            last_bid_history=np.full((b, r.history_len, 3), -1, I8),
            bid_tally=z((b, p, R.BID_TALLY), I32), call_tally=z((b, p, R.CALL_TALLY), I32),
            called_tally=z((b, p, R.CALL_TALLY), I32), token_tally=z((b, p, R.TOKEN_TALLY), I32),
        )

    def init(self, seeds: Any) -> QdvState:
        """New games, one per seed: starting tokens and the first round dealt."""
        seeds = check_seeds(seeds)
        st = self.empty_state(seeds)
        self.reset_games(st, np.arange(st.batch_size), seeds)
        return st

    def reset_games(self, st: QdvState, idx: np.ndarray, seeds: Any) -> None:
        """Restart games ``idx`` in place as new games with ``seeds`` (autoreset)."""
        r = self.rules
        st.seed[idx] = check_seeds(seeds)
        st.terminated[idx] = st.truncated[idx] = False
        st.placements[idx] = 0
        st.num_decisions[idx] = st.num_rounds[idx] = 0
        st.tokens[idx] = r.starting_tokens
        st.elim_round[idx] = -1
        st.zero_time[idx] = -1
        st.dealer[idx] = r.first_dealer
        st.hands[idx] = 0
        st.declared[idx] = -1
        st.showdown_hands[idx] = 0
        st.showdown_count[idx] = -1
        st.last_round[idx] = -1
        st.last_bid_history[idx] = -1
        for tally in (st.bid_tally, st.call_tally, st.called_tally, st.token_tally):
            tally[idx] = 0
        self.start_round(st, idx)
        self.update_legal_mask(st, idx)

    def start_round(self, st: QdvState, idx: np.ndarray) -> None:
        """Shuffle, deal (capped), turn up the centre card, open the bidding, for games ``idx``."""
        if idx.size == 0:
            return
        r = self.rules
        st.deck[idx] = self._deck[rng.permutations(st.seed[idx], rng.Stream.DEAL,
                                                   st.num_rounds[idx], r.deck_size)]
        st.chal_ready[idx] = False  # shuffled when the round's first challenge is drawn
        self.reset_round_fields(st, idx)
        self.deal(st, idx)
        self.open_bidding(st, idx)

    def reset_round_fields(self, st: QdvState, idx: np.ndarray) -> None:
        """Clear the per-round fields of games ``idx`` (face-up cards only where a challenge hit)."""
        inr = st.tokens[idx] > 0
        st.in_round[idx] = inr
        st.round_bits[idx] = to_bits(inr)
        st.direction[idx] = 1
        touched = idx[st.chal_ptr[idx] > 0]
        if touched.size:
            st.revealed[touched] = 0
            st.discarded[touched] = 0
            st.drawn[touched] = 0
            st.challenges[touched] = 0
            st.chal_ptr[touched] = 0
        bid = idx[st.num_bids[idx] > 0]
        st.bid_history[bid] = -1
        st.num_bids[idx] = 0
        st.bidder[idx] = -1
        st.call[idx] = -1
        st.caller[idx] = -1

    def deal(self, st: QdvState, idx: np.ndarray) -> None:
        """Blocks of min(tokens, cap) cards per seat from the dealer's left; then the centre card."""
        r = self.rules
        n, p, k = idx.size, r.num_players, R.NUM_KINDS
        inr = st.in_round[idx]
        cap = (r.deck_size - 1) // inr.sum(axis=1)
        order = (st.dealer[idx].astype(np.int64)[:, None] + 1 + np.arange(p)) % p
        ncards = np.where(inr, np.minimum(st.tokens[idx], cap[:, None]), 0)
        ncards = np.take_along_axis(ncards, order, axis=1)  # in deal order
        dealt = ncards.sum(axis=1)
        # one entry per dealt card: its game, its position in the deck, its receiving seat
        game = np.repeat(np.arange(n), dealt)
        pos = np.arange(game.size) - np.repeat(np.cumsum(dealt) - dealt, dealt)
        seat = np.repeat(order.ravel(), ncards.ravel())
        deck = st.deck[idx]
        key = (game * p + seat) * k + deck[game, pos]
        st.hands[idx] = np.bincount(key, minlength=n * p * k).reshape(n, p, k)
        st.hand_sizes[idx[:, None], order] = ncards
        st.centre[idx] = deck[np.arange(n), dealt]
        st.deck_ptr[idx] = dealt + 1

    def open_bidding(self, st: QdvState, idx: np.ndarray) -> None:
        """The centre card is the initial bid; a centre salad hands the dealer the start choice."""
        centre = st.centre[idx].astype(np.int64)
        salad = centre == R.SALAD
        fruit = KIND_FRUIT[centre]
        st.start[idx] = fruit
        st.bid_fruit[idx] = fruit
        st.bid_count[idx] = KIND_MULT[centre]
        st.phase[idx] = np.where(salad, R.PHASE_START, R.PHASE_BID)
        dealer = st.dealer[idx]
        left = self._next[st.round_bits[idx], dealer, 0]
        st.current_player[idx] = np.where(salad, dealer, left)

    # ================================================================ step
    def step(self, st: QdvState, actions: Any) -> QdvState:
        """Apply one decision per game (in place); finished games ignore their action."""
        a = self.check_actions(st, actions)
        live = ~st.done
        st.round_over[:] = False
        st.num_decisions += live
        resolve: list[np.ndarray] = []
        end: list[np.ndarray] = []
        bids = np.flatnonzero(live & (a < 2 * R.NUM_FRUITS))
        if bids.size:
            self.bid(st, bids, a[bids])
        calls = np.flatnonzero(live & ((a == R.VRAI) | (a == R.MENTEUR)))
        if calls.size:
            resolve.append(self.call(st, calls, a[calls]))
        starts = np.flatnonzero(live & (a >= R.START0) & (a < R.SALADS0))
        if starts.size:
            self.set_start(st, starts, a[starts] - R.START0)
        decl = np.flatnonzero(live & (a >= R.SALADS0) & (a < self._gain))
        if decl.size:
            resolve.append(self.declare_salads(st, decl, a[decl] - R.SALADS0))
        if resolve:
            end.append(self.resolve(st, np.concatenate(resolve)))
        gains = np.flatnonzero(live & (a == self._gain))
        if gains.size:
            self.reward_gain(st, gains)
            end.append(gains)
        pun = np.flatnonzero(live & (a >= self._punish0))
        if pun.size:
            self.reward_punish(st, pun, a[pun] - self._punish0 + 1)
            end.append(pun)
        if end:
            self.end_round(st, np.concatenate(end))
        self.update_legal_mask(st)
        return st

    # ================================================================ bidding
    def set_start(self, st: QdvState, idx: np.ndarray, fruit: np.ndarray) -> None:
        """The dealer puts the markers on ``fruit`` (centre salad = 1 of it); bidding opens."""
        st.start[idx] = fruit
        st.bid_fruit[idx] = fruit
        st.bid_count[idx] = 1
        st.phase[idx] = R.PHASE_BID
        st.current_player[idx] = self._next[st.round_bits[idx], st.dealer[idx], 0]

    def bid(self, st: QdvState, idx: np.ndarray, a: np.ndarray) -> None:
        """Raise by 1 or 2 with a fruit; moving the marker onto/past start draws a challenge."""
        raise_by = a // R.NUM_FRUITS + 1
        fruit = a % R.NUM_FRUITS
        me = st.current_player[idx]
        crosses = self._cross[st.bid_fruit[idx], fruit, st.start[idx]]
        count = st.bid_count[idx] + raise_by
        st.bid_count[idx] = count
        st.bid_fruit[idx] = fruit
        st.bidder[idx] = me
        nb = st.num_bids[idx]
        st.bid_history[idx, nb] = np.stack([me, count, fruit], axis=1)
        st.num_bids[idx] = nb + 1
        skip = np.zeros(idx.size, dtype=bool)
        draw = crosses & (st.chal_ptr[idx] < self._chal.size)
        if draw.any():
            skip[draw] = self.draw_challenge(st, idx[draw], me[draw].astype(np.int64))
        bits = st.round_bits[idx]
        d_i = direction_index(st.direction[idx])
        nxt = self._next[bits, me, d_i]
        if skip.any():
            after = self._next[bits[skip], nxt[skip], d_i[skip]]
            # back to the bidder (two players in the round): they bid again, if they still can
            ok = (after != me[skip]) | (count[skip] < self.rules.max_count)
            nxt[skip] = np.where(ok, after, nxt[skip])
        st.current_player[idx] = nxt
        if draw.any():  # a `token` challenge may have left a single player with tokens
            ended = idx[self._popcount[to_bits(st.tokens[idx] > 0)] <= 1]
            self.finish(st, ended, truncated=False)

    def shuffle_challenges(self, st: QdvState, idx: np.ndarray) -> None:
        """This round's challenge deck, keyed by (seed, round) as in the reference engine.

        Made lazily: most rounds never turn a challenge card.
        """
        idx = idx[~st.chal_ready[idx]]
        if idx.size:
            st.chal_deck[idx] = self._chal[rng.permutations(
                st.seed[idx], rng.Stream.CHALLENGE_DECK, st.num_rounds[idx], self._chal.size)]
            st.chal_ready[idx] = True

    def draw_challenge(self, st: QdvState, idx: np.ndarray, me: np.ndarray) -> np.ndarray:
        """Turn the top challenge card for each game and apply it; returns the ``skip`` mask."""
        self.shuffle_challenges(st, idx)
        ptr = st.chal_ptr[idx].astype(np.int64)
        effect = st.chal_deck[idx, ptr].astype(np.int64)
        st.chal_ptr[idx] = ptr + 1
        st.challenges[idx, effect] += 1
        w = rng.words(st.seed[idx], rng.Stream.EFFECT, st.num_rounds[idx], ptr)
        e = R.EFFECTS
        for name, rule in (("reveal", self.effect_reveal), ("discard", self.effect_discard)):
            m = effect == e.index(name)
            if m.any():
                rule(st, idx[m], me[m], w[m])
        m = effect == e.index("draw")
        if m.any():
            self.effect_draw(st, idx[m], me[m])
        m = effect == e.index("reverse")
        if m.any():
            st.direction[idx[m]] *= -1
        m = effect == e.index("token")
        if m.any():
            self.take_tokens(st, idx[m], me[m], np.ones(m.sum(), np.int64), R.LOST_CHALLENGE)
            out = st.tokens[idx[m], me[m]] == 0
            self.eliminate_now(st, idx[m][out], me[m][out])
        return effect == e.index("skip")

    def eliminate_now(self, st: QdvState, idx: np.ndarray, seat: np.ndarray) -> None:
        """A `token` challenge took ``seat``'s last token: out of the round at once (their
        bid stands, their cards still count); ``bid`` then ends games left with one player."""
        st.in_round[idx, seat] = False
        st.round_bits[idx] = to_bits(st.in_round[idx])
        st.elim_round[idx, seat] = st.num_rounds[idx]

    def effect_reveal(self, st: QdvState, idx: np.ndarray, me: np.ndarray, w: np.ndarray) -> None:
        """A random face-down card of the bidder is turned face up."""
        hidden = st.hands[idx, me].astype(np.int64) - st.revealed[idx, me]
        n = hidden.sum(axis=1)
        ok = n > 0
        pick = rng.below(w, np.maximum(n, 1))
        kind = (np.cumsum(hidden, axis=1) > pick[:, None]).argmax(axis=1)
        st.revealed[idx[ok], me[ok], kind[ok]] += 1

    def effect_discard(self, st: QdvState, idx: np.ndarray, me: np.ndarray, w: np.ndarray) -> None:
        """A random card of the bidder is discarded face up (unrevealed copies first)."""
        hand = st.hands[idx, me].astype(np.int64)
        n = hand.sum(axis=1)
        ok = n > 0
        idx, me, hand, w, n = idx[ok], me[ok], hand[ok], w[ok], n[ok]
        pick = rng.below(w, n)
        cum = np.cumsum(hand, axis=1)
        kind = (cum > pick[:, None]).argmax(axis=1)
        rows = np.arange(idx.size)
        offset = pick - (cum[rows, kind] - hand[rows, kind])
        was_revealed = offset >= hand[rows, kind] - st.revealed[idx, me, kind]
        st.revealed[idx, me, kind] -= was_revealed.astype(I8)
        st.hands[idx, me, kind] -= 1
        st.hand_sizes[idx, me] -= 1
        st.discarded[idx, me, kind] += 1

    def effect_draw(self, st: QdvState, idx: np.ndarray, me: np.ndarray) -> None:
        """The bidder secretly draws the top undealt card, if any."""
        ok = st.deck_ptr[idx] < self.rules.deck_size
        idx, me = idx[ok], me[ok]
        ptr = st.deck_ptr[idx].astype(np.int64)
        st.hands[idx, me, st.deck[idx, ptr]] += 1
        st.hand_sizes[idx, me] += 1
        st.deck_ptr[idx] = ptr + 1
        st.drawn[idx, me] += 1

    # ================================================================ showdown
    def call(self, st: QdvState, idx: np.ndarray, a: np.ndarray) -> np.ndarray:
        """``vrai``/``menteur``: hands shown, salad holders queued; returns games to resolve now."""
        caller = st.current_player[idx]
        st.call[idx] = np.where(a == R.VRAI, R.CALL_VRAI, R.CALL_MENTEUR)
        st.caller[idx] = caller
        hands = st.hands[idx]
        st.showdown_hands[idx] = hands
        st.declared[idx] = -1
        st.showdown_count[idx] = self.count_called_fruit(st, idx, hands)
        bits = to_bits((hands[:, :, R.SALAD] > 0) & st.in_round[idx])
        st.holder_bits[idx] = bits
        holder = self._first_from[bits, caller, 0]
        has = holder >= 0
        st.phase[idx[has]] = R.PHASE_SALADS
        st.current_player[idx[has]] = holder[has]
        return idx[~has]

    def count_called_fruit(self, st: QdvState, idx: np.ndarray, hands: np.ndarray) -> np.ndarray:
        """Called fruit over all hands and the centre, with multipliers (salads not yet)."""
        f = st.bid_fruit[idx].astype(np.int64)
        rows = np.arange(idx.size)
        base = f * R.MAX_MULT
        total = np.zeros(idx.size, np.int64)
        for seat in range(self.rules.num_players):
            h = hands[:, seat]
            total += h[rows, base] + 2 * h[rows, base + 1] + 3 * h[rows, base + 2]
        return total + self.centre_value(st, idx)

    def centre_value(self, st: QdvState, idx: np.ndarray) -> np.ndarray:
        """What the centre card adds to the called fruit (a centre salad is the start fruit)."""
        f = st.bid_fruit[idx].astype(np.int64)
        centre = st.centre[idx].astype(np.int64)
        return np.where(centre == R.SALAD, st.start[idx] == f,
                        (KIND_FRUIT[centre] == f) * KIND_MULT[centre])

    def declare_salads(self, st: QdvState, idx: np.ndarray, k: np.ndarray) -> np.ndarray:
        """The current holder declares ``k`` salads; returns games whose declarations are done."""
        p = self.rules.num_players
        me = st.current_player[idx].astype(np.int64)
        st.declared[idx, me] = k
        st.showdown_count[idx] += k.astype(I8)
        caller = st.caller[idx]
        first = (me - caller) % p + 1
        holder = self._first_from[st.holder_bits[idx], caller, first]
        has = holder >= 0
        st.current_player[idx[has]] = holder[has]
        return idx[~has]

    def resolve(self, st: QdvState, idx: np.ndarray) -> np.ndarray:
        """Apply the token losses of the call; returns the games whose round ends now."""
        bid = st.bid_count[idx].astype(np.int64)
        count = st.showdown_count[idx].astype(np.int64)
        caller = st.caller[idx].astype(np.int64)
        vrai = st.call[idx] == R.CALL_VRAI
        rec = st.last_round
        rec[idx] = -1
        rec[idx, LR["caller"]] = caller
        rec[idx, LR["call"]] = st.call[idx]
        rec[idx, LR["bidder"]] = st.bidder[idx]
        rec[idx, LR["bid_count"]] = bid
        rec[idx, LR["bid_fruit"]] = st.bid_fruit[idx]
        rec[idx, LR["true_count"]] = count
        rec[idx, LR["amount"]] = 0
        rec[idx, LR["centre_value"]] = self.centre_value(st, idx)
        self.tally_showdown(st, idx, vrai, bid, count)
        exact = vrai & (count == bid)
        st.phase[idx[exact]] = R.PHASE_REWARD
        st.current_player[idx[exact]] = caller[exact]
        loser = np.where(vrai | (count >= bid), caller, st.bidder[idx])
        amount = np.abs(bid - count) + 1
        lose = ~exact
        self.lose(st, idx[lose], loser[lose], amount[lose])
        return idx[lose]

    def tally_showdown(self, st: QdvState, idx: np.ndarray, vrai: np.ndarray, bid: np.ndarray,
                       count: np.ndarray) -> None:
        """Add the showdowns of games ``idx`` to the public tallies: every bid of the round
        against its fruit's card count, the call's outcome for the caller and the bidder."""
        value = st.showdown_hands[idx].astype(np.int64) @ VALUE            # [n, P, F]
        f = np.arange(R.NUM_FRUITS)
        centre = st.centre[idx].astype(np.int64)[:, None]
        centre_val = np.where(centre == R.SALAD, st.start[idx][:, None] == f,
                              (KIND_FRUIT[centre] == f) * KIND_MULT[centre])
        cards = value.sum(axis=1) + centre_val                             # [n, F]
        hist = st.bid_history[idx].astype(np.int64)
        gi, hi = np.nonzero(hist[:, :, 0] >= 0)
        seat, bc, fruit = hist[gi, hi, 0], hist[gi, hi, 1], hist[gi, hi, 2]
        card = cards[gi, fruit]
        cols = np.stack([np.ones_like(bc), bc > card, bc == card, bc - card,
                         value[gi, seat, fruit]], axis=1)
        np.add.at(st.bid_tally, (idx[gi], seat), cols.astype(I32))
        st.last_bid_history[idx] = st.bid_history[idx]
        col = np.where(vrai, np.where(count == bid, R.VRAI_RIGHT, R.VRAI_WRONG),
                       np.where(count < bid, R.MENTEUR_RIGHT, R.MENTEUR_WRONG))
        st.call_tally[idx, st.caller[idx].astype(np.int64), col] += 1
        bidder = st.bidder[idx].astype(np.int64)
        has = bidder >= 0
        st.called_tally[idx[has], bidder[has], col[has]] += 1

    def take_tokens(self, st: QdvState, idx: np.ndarray, seat: np.ndarray,
                    amount: np.ndarray, cause: int) -> None:
        """``seat`` loses ``amount`` tokens, never below 0; the moment it hits 0 is noted and
        the tokens actually lost are tallied under ``cause`` (a ``token_tally`` column)."""
        before = st.tokens[idx, seat]
        hits = (before > 0) & (before <= amount)
        st.zero_time[idx[hits], seat[hits]] = st.num_decisions[idx[hits]]
        st.token_tally[idx, seat, cause] += np.minimum(before, amount).astype(I32)
        st.tokens[idx, seat] = np.maximum(before - amount, 0)

    def lose(self, st: QdvState, idx: np.ndarray, seat: np.ndarray, amount: np.ndarray,
             cause: int = R.LOST_SHOWDOWN) -> None:
        """``seat`` loses ``amount`` tokens at the showdown; recorded in ``last_round``."""
        self.take_tokens(st, idx, seat, amount, cause)
        st.last_round[idx, LR["loser"]] = seat
        st.last_round[idx, LR["amount"]] = amount

    def reward_gain(self, st: QdvState, idx: np.ndarray) -> None:
        """Exact call: the caller gains a token."""
        caller = st.caller[idx].astype(np.int64)
        st.tokens[idx, caller] += 1
        st.token_tally[idx, caller, R.GAINED] += 1
        st.last_round[idx, LR["gainer"]] = caller

    def reward_punish(self, st: QdvState, idx: np.ndarray, k: np.ndarray) -> None:
        """Exact call: the seat ``k`` clockwise from the caller loses a token."""
        caller = st.caller[idx].astype(np.int64)
        st.token_tally[idx, caller, R.PUNISHED_OTHER] += 1
        target = (caller + k) % self.rules.num_players
        self.lose(st, idx, target, np.ones(idx.size, np.int64), R.LOST_PUNISH)

    # ================================================================ round end
    def end_round(self, st: QdvState, idx: np.ndarray) -> None:
        """Eliminate, then finish the game, truncate it, or rotate the deal and deal again."""
        tokens = st.tokens[idx]
        out = st.in_round[idx] & (tokens == 0)
        st.elim_round[idx] = np.where(out, st.num_rounds[idx, None], st.elim_round[idx])
        st.num_rounds[idx] += 1
        st.round_over[idx] = True
        alive_bits = to_bits(tokens > 0)
        over = self._popcount[alive_bits] <= 1
        trunc = ~over & (st.num_rounds[idx] >= self.rules.max_rounds)
        if over.any():
            self.finish(st, idx[over], truncated=False)
        if trunc.any():
            self.finish(st, idx[trunc], truncated=True)
        go = ~over & ~trunc
        nxt = idx[go]
        st.dealer[nxt] = self._next[alive_bits[go], st.dealer[nxt], 0]
        self.start_round(st, nxt)

    def finish(self, st: QdvState, idx: np.ndarray, truncated: bool) -> None:
        """Game over (possibly mid-round): survivors by tokens, the eliminated by when."""
        if idx.size == 0:
            return
        st.terminated[idx] = not truncated
        st.truncated[idx] = truncated
        st.phase[idx] = R.PHASE_OVER
        st.current_player[idx] = -1
        tok = st.tokens[idx].astype(np.int64)
        # the eliminated rank by the decision that eliminated them (one event, one place)
        score = np.where(tok > 0, PLACE_SURVIVOR + tok, st.zero_time[idx].astype(np.int64))
        st.placements[idx] = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)

    # ================================================================ legality
    def build_mask_table(self) -> np.ndarray:
        """bool[codes, A]: every legal mask a game can have, indexed by ``mask_code``.

        Codes: 0 over; 1 start choice; 2 + 3*c + h bidding (c = how many of +1/+2 fit
        under the count ceiling; h = 0 initial bid, 1 another's bid, 2 my own bid: no
        call); 11 + k salads with k held; 12 + S + t reward with punish targets bitmask t.
        """
        r = self.rules
        nf, p, s = R.NUM_FRUITS, r.num_players, r.salads
        rows = []
        over = np.zeros(self.num_actions, bool)
        rows.append(over)
        start = over.copy()
        start[R.START0:R.SALADS0] = True
        rows.append(start)
        for fit in range(3):
            for bid_by in range(3):
                m = over.copy()
                m[:nf] = fit >= 1
                m[nf:2 * nf] = fit >= 2
                m[R.VRAI] = bid_by < 2
                m[R.MENTEUR] = bid_by == 1
                rows.append(m)
        for held in range(s + 1):
            m = over.copy()
            m[R.SALADS0:R.SALADS0 + held + 1] = True
            rows.append(m)
        for bits in range(1 << (p - 1)):
            m = over.copy()
            m[self._gain] = True
            for k in range(p - 1):
                m[self._punish0 + k] = bool(bits >> k & 1)
            rows.append(m)
        return np.asarray(rows)

    def mask_code(self, st: QdvState, idx: np.ndarray | None = None) -> np.ndarray:
        """Row of ``build_mask_table`` that is the legal mask of each game (of ``idx``)."""
        r = self.rules
        ph = st.phase if idx is None else st.phase[idx]
        count = st.bid_count if idx is None else st.bid_count[idx]
        bids = st.num_bids if idx is None else st.num_bids[idx]
        cur = st.current_player if idx is None else st.current_player[idx]
        bidder = st.bidder if idx is None else st.bidder[idx]
        fit = (count < r.max_count).astype(np.int64) + (count < r.max_count - 1)
        bid_by = (bids > 0).astype(np.int64) + (cur == bidder)
        code = np.where(ph == R.PHASE_BID, 2 + 3 * fit + bid_by, ph == R.PHASE_START)
        sel = np.flatnonzero(ph >= R.PHASE_SALADS)
        if sel.size:
            other = sel if idx is None else idx[sel]
            p = r.num_players
            ph_o = ph[sel]
            cp = np.maximum(st.current_player[other], 0).astype(np.int64)
            held = st.hands[other, cp, R.SALAD].astype(np.int64)
            bits = np.zeros(other.size, np.int64)
            for k in range(1, p):
                bits |= (st.tokens[other, (cp + k) % p] > 0).astype(np.int64) << (k - 1)
            code[sel] = np.where(ph_o == R.PHASE_SALADS, 11 + held,
                                 np.where(ph_o == R.PHASE_REWARD, 12 + r.salads + bits, 0))
        return code

    def update_legal_mask(self, st: QdvState, idx: np.ndarray | None = None) -> None:
        """Set the legal masks (of games ``idx``, default all) by one table lookup per game."""
        if idx is None:
            np.take(self._mask_table, self.mask_code(st), axis=0, out=st.legal_action_mask)
        else:
            st.legal_action_mask[idx] = self._mask_table[self.mask_code(st, idx)]

    # ================================================================ observation
    def observe(self, st: QdvState) -> dict[str, np.ndarray]:
        """The current player's information set, batch-first (table in ``observe.py``)."""
        b = st.batch_size
        rows = np.arange(b)
        seat = st.current_player
        cp = np.maximum(seat, 0).astype(np.int64)
        hand = np.where((seat >= 0)[:, None], st.hands[rows, cp], 0).astype(I8)
        return {
            "seat": seat.copy(), "phase": st.phase.copy(), "hand": hand,
            "hand_sizes": st.hand_sizes.copy(), "tokens": st.tokens.copy(),
            "in_round": st.in_round.copy(), "dealer": st.dealer.copy(),
            "direction": st.direction.copy(), "centre": st.centre.copy(),
            "start": st.start.copy(), "bid_count": st.bid_count.copy(),
            "bid_fruit": st.bid_fruit.copy(), "bidder": st.bidder.copy(),
            "num_bids": st.num_bids.copy(), "bid_history": st.bid_history.copy(),
            "revealed": st.revealed.copy(), "discarded": st.discarded.copy(),
            "drawn": st.drawn.copy(), "challenges": st.challenges.copy(),
            "challenge_left": (self._chal.size - st.chal_ptr).astype(I8),
            "undealt_left": (self.rules.deck_size - st.deck_ptr).astype(I8),
            "call": st.call.copy(), "caller": st.caller.copy(),
            "showdown_hands": st.showdown_hands.copy(), "declared": st.declared.copy(),
            "showdown_count": st.showdown_count.copy(), "num_rounds": st.num_rounds.copy(),
            "last_round": st.last_round.copy(), "last_bid_history": st.last_bid_history.copy(),
            "bid_tally": st.bid_tally.copy(), "call_tally": st.call_tally.copy(),
            "called_tally": st.called_tally.copy(), "token_tally": st.token_tally.copy(),
        }

    def observation_tensor(self, st: QdvState) -> np.ndarray:
        """float32[B, D] flat observation; layout in ``observe.tensor_layout``."""
        return O.to_tensor(self.rules, self.observe(st))

    # ================================================================ records
    def final_score(self, st: QdvState, idx: np.ndarray) -> np.ndarray:
        """Final tokens per seat of games ``idx`` (the results' ``score`` column)."""
        return st.tokens[idx]

    def round_record(self, st: QdvState, idx: np.ndarray) -> dict[str, np.ndarray]:
        """One results row per game of ``idx`` whose round just ended (``rounds.parquet``).

        ``bidder_own`` is the bidder's own evidence for the called fruit (their cards
        with multipliers, all their salads, and the centre card); ``call_right`` says
        whether the call was correct.
        """
        rec = {name: st.last_round[idx, i] for i, name in enumerate(LAST_ROUND)}
        out: dict[str, np.ndarray] = {"round": st.num_rounds[idx] - 1}
        out.update(rec)
        fruit = rec["bid_fruit"].astype(np.int64)
        bidder = rec["bidder"].astype(np.int64)
        hand = st.showdown_hands[idx, np.maximum(bidder, 0)].astype(np.int64)
        rows = np.arange(idx.size)
        base = fruit * R.MAX_MULT
        own = (hand[rows, base] + 2 * hand[rows, base + 1] + 3 * hand[rows, base + 2]
               + hand[:, R.SALAD] + rec["centre_value"])
        out["bidder_own"] = np.where(bidder >= 0, own, -1)
        count, bid = rec["true_count"], rec["bid_count"]
        out["call_right"] = np.where(rec["call"] == R.CALL_VRAI, count == bid, count < bid)
        out["call"] = np.asarray(["vrai", "menteur"], dtype=object)[rec["call"].astype(np.int64)]
        out["bid_fruit"] = np.asarray(R.FRUITS, dtype=object)[fruit]
        return out

    # ================================================================ bridges
    def from_reference(self, states: list[RefState]) -> QdvState:
        """A batch holding exact copies of reference states (scenarios, differential tests)."""
        r = self.rules
        st = self.empty_state(np.asarray([s.seed for s in states], dtype=np.uint64))
        for b, s in enumerate(states):
            self.copy_shared_fields(st, b, s)
            st.tokens[b], st.in_round[b], st.elim_round[b] = s.tokens, s.in_round, s.elim_round
            st.zero_time[b] = s.zero_time
            st.round_bits[b] = sum(1 << i for i, x in enumerate(s.in_round) if x)
            st.hand_sizes[b] = [sum(h) for h in s.hand_counts]
            st.holder_bits[b] = sum(1 << i for i, h in enumerate(s.showdown_hands)
                                    if h[R.SALAD] > 0 and s.in_round[i])
            st.dealer[b], st.direction[b] = s.dealer, s.direction
            st.hands[b], st.revealed[b], st.discarded[b] = s.hand_counts, s.revealed, s.discarded
            st.deck[b, : len(s.deck)] = s.deck
            st.deck_ptr[b], st.centre[b] = s.deck_ptr, s.centre
            if len(s.chal_deck) != len(self._chal):
                raise ValueError("reference challenge deck differs in size from the rules' deck")
            st.chal_deck[b] = s.chal_deck
            st.chal_ready[b] = True
            st.chal_ptr[b] = s.chal_ptr
            st.start[b], st.bid_count[b] = s.start, s.bid_count
            st.bid_fruit[b], st.bidder[b] = s.bid_fruit, s.bidder
            st.num_bids[b] = len(s.bid_history)
            for i, h in enumerate(s.bid_history):
                st.bid_history[b, i] = h
            st.drawn[b], st.challenges[b] = s.drawn, s.challenges
            st.call[b], st.caller[b] = s.call, s.caller
            st.declared[b], st.showdown_hands[b] = s.declared, s.showdown_hands
            st.showdown_count[b] = s.showdown_count
            for name, v in s.last_round.items():
                st.last_round[b, LR[name]] = v
            for i, h in enumerate(s.last_bid_history):
                st.last_bid_history[b, i] = h
            st.bid_tally[b], st.call_tally[b] = s.bid_tally, s.call_tally
            st.called_tally[b], st.token_tally[b] = s.called_tally, s.token_tally
        if len({len(s.deck) for s in states} | {r.deck_size}) != 1:
            raise ValueError("reference deck differs in size from the rules' deck")
        self.update_legal_mask(st)
        return st


def make_game(num_players: int = 4, **options: Any) -> QdvGame:
    """``bluffsim.make("qdv", ...)``: validated rules and the vectorised engine."""
    return QdvGame(Rules.from_options(num_players=num_players, **options))
