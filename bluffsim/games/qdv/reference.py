"""Scalar reference engine of ``qdv`` (Qui dit vrai ?): readable, one rule per function.

This is the oracle the vectorised engine (``vec.py``) is tested against, bit for
bit: same action ids, same random draws (``bluffsim.rng``), same observations.
Rules: ``docs/rules.md#qdv``; decisions taken where it is silent are listed in
``rules.py``.

Seats are numbered clockwise.  Hands are kept as counts per card kind
(``rules.KIND_NAMES``); the ``hands`` property gives sorted card names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bluffsim import rng
from bluffsim.api import RulesError
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.rules import Rules
from bluffsim.games.refbase import ReferenceBase, RefStateBase

PLACE_SURVIVOR = 1 << 32  # placement score of a player who still holds tokens (> any decision)


@dataclass
class RefState(RefStateBase):
    """One qdv game, plain Python fields (see ``vec.QdvState`` for the meaning of each)."""

    CARD_NAMES = R.KIND_NAMES

    seed: int
    num_players: int
    tokens: list[int]
    in_round: list[bool]
    elim_round: list[int]
    dealer: int
    zero_time: list[int] = field(default_factory=list)
    direction: int = 1
    hand_counts: list[list[int]] = field(default_factory=list)
    revealed: list[list[int]] = field(default_factory=list)
    discarded: list[list[int]] = field(default_factory=list)
    deck: list[int] = field(default_factory=list)
    deck_ptr: int = 0
    centre: int = -1
    chal_deck: list[int] = field(default_factory=list)
    chal_ptr: int = 0
    phase: int = R.PHASE_BID
    start: int = -1
    bid_count: int = 0
    bid_fruit: int = -1
    bidder: int = -1
    bid_history: list[tuple[int, int, int]] = field(default_factory=list)
    drawn: list[int] = field(default_factory=list)
    challenges: list[int] = field(default_factory=lambda: [0] * R.NUM_EFFECTS)
    call: int = R.CALL_NONE
    caller: int = -1
    declared: list[int] = field(default_factory=list)
    showdown_hands: list[list[int]] = field(default_factory=list)
    showdown_count: int = -1
    current_player: int = 0
    terminated: bool = False
    truncated: bool = False
    placements: list[int] = field(default_factory=list)
    num_decisions: int = 0
    num_rounds: int = 0
    # record of the last finished round (for results): -1 where not applicable
    last_round: dict[str, int] = field(default_factory=dict)
    last_bid_history: list[tuple[int, int, int]] = field(default_factory=list)
    # per-seat public tallies over the whole game (``observe.py``: bid/call/called/token tallies)
    bid_tally: list[list[int]] = field(default_factory=list)
    call_tally: list[list[int]] = field(default_factory=list)
    called_tally: list[list[int]] = field(default_factory=list)
    token_tally: list[list[int]] = field(default_factory=list)

    def init_tallies(self) -> None:
        """Zero the game-long tallies (a new game or a scenario)."""
        p = self.num_players
        self.bid_tally = [[0] * R.BID_TALLY for _ in range(p)]
        self.call_tally = [[0] * R.CALL_TALLY for _ in range(p)]
        self.called_tally = [[0] * R.CALL_TALLY for _ in range(p)]
        self.token_tally = [[0] * R.TOKEN_TALLY for _ in range(p)]


class ReferenceGame(ReferenceBase):
    """Scalar qdv engine: ``new_game``, ``legal_actions``, ``apply``, ``observe``."""

    game_id = "qdv"

    # ------------------------------------------------------------ set-up
    def new_game(self, seed: int) -> RefState:
        """A fresh game: starting tokens, first dealer, first round dealt from ``seed``."""
        p = self.rules.num_players
        s = RefState(seed=int(seed), num_players=p, tokens=[self.rules.starting_tokens] * p,
                     in_round=[True] * p, elim_round=[-1] * p, dealer=self.rules.first_dealer,
                     placements=[0] * p, zero_time=[-1] * p)
        s.showdown_hands = [[0] * R.NUM_KINDS for _ in range(p)]
        s.declared = [-1] * p
        s.init_tallies()
        self.start_round(s)
        return s

    def start_round(self, s: RefState) -> None:
        """Shuffle, deal (capped), turn up the centre card and open the bidding."""
        r = self.rules
        s.deck = [r.deck[i] for i in rng.permutation(s.seed, rng.Stream.DEAL, s.num_rounds,
                                                     r.deck_size)]
        cids = r.challenge_ids
        s.chal_deck = [cids[i] for i in rng.permutation(s.seed, rng.Stream.CHALLENGE_DECK,
                                                        s.num_rounds, len(cids))]
        self.reset_round_fields(s)
        self.deal(s)
        s.centre = s.deck[s.deck_ptr]
        s.deck_ptr += 1
        self.open_bidding(s)

    def reset_round_fields(self, s: RefState) -> None:
        """Clear everything that lives for one round only."""
        p = s.num_players
        s.in_round = [t > 0 for t in s.tokens]
        s.direction = 1
        s.hand_counts = [[0] * R.NUM_KINDS for _ in range(p)]
        s.revealed = [[0] * R.NUM_KINDS for _ in range(p)]
        s.discarded = [[0] * R.NUM_KINDS for _ in range(p)]
        s.drawn = [0] * p
        s.challenges = [0] * R.NUM_EFFECTS
        s.chal_ptr = 0
        s.deck_ptr = 0
        s.bid_history = []
        s.bidder = -1
        s.call = R.CALL_NONE
        s.caller = -1

    def deal(self, s: RefState) -> None:
        """Each player, from the dealer's left, gets min(tokens, cap) cards in a block."""
        cap = self.rules.deal_cap(sum(s.in_round))
        seat = self.left_of(s, s.dealer)
        for _ in range(sum(s.in_round)):
            for _ in range(min(s.tokens[seat], cap)):
                s.hand_counts[seat][s.deck[s.deck_ptr]] += 1
                s.deck_ptr += 1
            seat = self.left_of(s, seat)

    def open_bidding(self, s: RefState) -> None:
        """The centre card is the initial bid; a centre salad lets the dealer pick the fruit."""
        if s.centre == R.SALAD:
            s.phase = R.PHASE_START
            s.start = s.bid_fruit = -1
            s.bid_count = 1
            s.current_player = s.dealer
        else:
            self.set_start(s, R.KIND_FRUIT[s.centre], R.KIND_MULT[s.centre])

    def set_start(self, s: RefState, fruit: int, count: int) -> None:
        """Put the start and position markers on ``fruit``; the player left of the dealer bids."""
        s.start = s.bid_fruit = fruit
        s.bid_count = count
        s.phase = R.PHASE_BID
        s.current_player = self.left_of(s, s.dealer)

    # ------------------------------------------------------------ seating
    def left_of(self, s: RefState, seat: int) -> int:
        """Next seat clockwise that is in the round."""
        return self.next_seat(s, seat, 1)

    def next_seat(self, s: RefState, seat: int, direction: int) -> int:
        """Next seat in ``direction`` (+1 clockwise) that is in the round."""
        p = s.num_players
        for step in range(1, p + 1):
            cand = (seat + direction * step) % p
            if s.in_round[cand]:
                return cand
        return seat

    # ------------------------------------------------------------ legality
    def legal_actions(self, s: RefState) -> list[int]:
        """Legal action ids of the current player (empty once the game is over)."""
        if s.done:
            return []
        r = self.rules
        me = s.current_player
        if s.phase == R.PHASE_START:
            return [R.START0 + f for f in range(R.NUM_FRUITS)]
        if s.phase == R.PHASE_SALADS:
            return [R.SALADS0 + k for k in range(s.hand_counts[me][R.SALAD] + 1)]
        if s.phase == R.PHASE_REWARD:
            p = s.num_players
            return [r.gain_id] + [r.punish0 + k - 1 for k in range(1, p)
                                  if s.tokens[(me + k) % p] > 0]
        acts = [d_i * R.NUM_FRUITS + f for d_i in range(2) for f in range(R.NUM_FRUITS)
                if s.bid_count + d_i + 1 <= r.max_count]
        if s.bidder != me:  # nobody calls on their own bid
            acts.append(R.VRAI)
            if s.bid_history:
                acts.append(R.MENTEUR)
        return sorted(acts)

    # ------------------------------------------------------------ apply
    def apply(self, s: RefState, action: int | str) -> RefState:
        """Apply one decision of the current player (in place); a finished game ignores it."""
        if s.done:
            return s
        a = self.checked_action(s, action)
        s.num_decisions += 1
        r = self.rules
        if a < 2 * R.NUM_FRUITS:
            self.bid(s, a // R.NUM_FRUITS + 1, a % R.NUM_FRUITS)
        elif a in (R.VRAI, R.MENTEUR):
            self.call(s, R.CALL_VRAI if a == R.VRAI else R.CALL_MENTEUR)
        elif a < R.SALADS0:
            self.set_start(s, a - R.START0, 1)
        elif a < r.gain_id:
            self.declare_salads(s, a - R.SALADS0)
        elif a == r.gain_id:
            self.reward_gain(s)
        else:
            self.reward_punish(s, a - r.punish0 + 1)
        return s

    # ------------------------------------------------------------ bidding
    def bid(self, s: RefState, raise_by: int, fruit: int) -> None:
        """Raise the count by 1 or 2 with ``fruit``; moving the marker past start draws a challenge."""
        me = s.current_player
        moved = fruit != s.bid_fruit
        crosses = moved and marker_crosses_start(s.bid_fruit, fruit, s.start,
                                                 self.rules.challenge_on_landing)
        s.bid_count += raise_by
        s.bid_fruit = fruit
        s.bidder = me
        s.bid_history.append((me, s.bid_count, fruit))
        skip = self.draw_challenge(s, me) if crosses else False
        if s.done:  # a `token` challenge left a single player with tokens
            return
        nxt = self.next_seat(s, me, s.direction)
        if skip:
            after = self.next_seat(s, nxt, s.direction)
            # back to the bidder (two players in the round): they bid again, if they still can
            if after != me or s.bid_count < self.rules.max_count:
                nxt = after
        s.current_player = nxt

    def draw_challenge(self, s: RefState, bidder: int) -> bool:
        """Turn the top challenge card and apply it; returns True for ``skip``."""
        if s.chal_ptr >= len(s.chal_deck):
            return False
        index = s.chal_ptr
        effect = s.chal_deck[index]
        s.chal_ptr += 1
        s.challenges[effect] += 1
        w = rng.word(s.seed, rng.Stream.EFFECT, s.num_rounds, index)
        name = R.EFFECTS[effect]
        if name == "reveal":
            self.effect_reveal(s, bidder, w)
        elif name == "discard":
            self.effect_discard(s, bidder, w)
        elif name == "draw":
            self.effect_draw(s, bidder)
        elif name == "reverse":
            s.direction = -s.direction
        elif name == "token":
            self.take_tokens(s, bidder, 1, R.LOST_CHALLENGE)
            if s.tokens[bidder] == 0:
                self.eliminate_now(s, bidder)
        return name == "skip"

    def eliminate_now(self, s: RefState, seat: int) -> None:
        """A `token` challenge took ``seat``'s last token: out at once, the game may be over.

        Their bid stands and their cards stay (they count at this round's showdown);
        they are skipped in turn order and never call, declare, gain or get punished.
        """
        s.in_round[seat] = False
        s.elim_round[seat] = s.num_rounds
        if sum(t > 0 for t in s.tokens) <= 1:
            self.finish(s, truncated=False)

    def effect_reveal(self, s: RefState, p: int, w: int) -> None:
        """A random face-down card of the bidder's hand is turned face up (it still counts)."""
        hidden = [h - v for h, v in zip(s.hand_counts[p], s.revealed[p], strict=True)]
        n = sum(hidden)
        if n:
            kind, _ = pick_card(hidden, rng.below_scalar(w, n))
            s.revealed[p][kind] += 1

    def effect_discard(self, s: RefState, p: int, w: int) -> None:
        """A random card of the bidder's hand is discarded face up (it no longer counts)."""
        n = sum(s.hand_counts[p])
        if n:
            kind, offset = pick_card(s.hand_counts[p], rng.below_scalar(w, n))
            if offset >= s.hand_counts[p][kind] - s.revealed[p][kind]:
                s.revealed[p][kind] -= 1
            s.hand_counts[p][kind] -= 1
            s.discarded[p][kind] += 1

    def effect_draw(self, s: RefState, p: int) -> None:
        """The bidder secretly draws the top undealt card, if any."""
        if s.deck_ptr < len(s.deck):
            s.hand_counts[p][s.deck[s.deck_ptr]] += 1
            s.deck_ptr += 1
            s.drawn[p] += 1

    # ------------------------------------------------------------ showdown
    def call(self, s: RefState, call: int) -> None:
        """``vrai`` or ``menteur``: all hands are shown, salad holders declare, then resolve."""
        s.call = call
        s.caller = s.current_player
        s.showdown_hands = [list(h) for h in s.hand_counts]
        s.declared = [-1] * s.num_players
        s.showdown_count = self.count_called_fruit(s)
        holder = self.next_salad_holder(s, after=None)
        if holder is None:
            self.resolve(s)
        else:
            s.phase = R.PHASE_SALADS
            s.current_player = holder

    def count_called_fruit(self, s: RefState) -> int:
        """The called fruit over all hands and the centre, with multipliers, salads excluded."""
        f = s.bid_fruit
        total = 0
        for h in s.hand_counts:
            total += sum(h[f * R.MAX_MULT + m] * (m + 1) for m in range(R.MAX_MULT))
        return total + self.centre_value(s)

    def centre_value(self, s: RefState) -> int:
        """What the centre card adds to the called fruit (a centre salad is the start fruit)."""
        return self.centre_value_of(s, s.bid_fruit)

    def centre_value_of(self, s: RefState, fruit: int) -> int:
        """What the centre card adds to ``fruit`` (a centre salad is the start fruit)."""
        if s.centre == R.SALAD:
            return 1 if s.start == fruit else 0
        return R.KIND_MULT[s.centre] if R.KIND_FRUIT[s.centre] == fruit else 0

    def next_salad_holder(self, s: RefState, after: int | None) -> int | None:
        """Next salad holder clockwise, starting with the caller; None when all have declared."""
        p = s.num_players
        first = 0 if after is None else (after - s.caller) % p + 1
        for off in range(first, p):
            seat = (s.caller + off) % p
            if s.in_round[seat] and s.hand_counts[seat][R.SALAD] > 0:
                return seat
        return None

    def declare_salads(self, s: RefState, k: int) -> None:
        """The current holder declares that ``k`` of their salads are the called fruit."""
        me = s.current_player
        s.declared[me] = k
        s.showdown_count += k
        holder = self.next_salad_holder(s, after=me)
        if holder is None:
            self.resolve(s)
        else:
            s.current_player = holder

    def resolve(self, s: RefState) -> None:
        """Compare the count with the bid and apply the token losses (or open the reward)."""
        bid, count = s.bid_count, s.showdown_count
        self.record_round(s)
        self.tally_showdown(s)
        if s.call == R.CALL_VRAI:
            if count == bid:
                s.phase = R.PHASE_REWARD
                s.current_player = s.caller
                return
            self.lose(s, s.caller, abs(bid - count) + 1)
        elif count < bid:
            self.lose(s, s.bidder, bid - count + 1)
        else:
            self.lose(s, s.caller, count - bid + 1)
        self.end_round(s)

    def tally_showdown(self, s: RefState) -> None:
        """Add this showdown to the public tallies: every bid of the round against the
        card count of its fruit, the call's outcome for the caller and for the bidder."""
        value = [[sum(h[f * R.MAX_MULT + m] * (m + 1) for m in range(R.MAX_MULT))
                  for f in range(R.NUM_FRUITS)] for h in s.showdown_hands]
        centre = [self.centre_value_of(s, f) for f in range(R.NUM_FRUITS)]
        for seat, count, fruit in s.bid_history:
            cards = sum(v[fruit] for v in value) + centre[fruit]
            row = s.bid_tally[seat]
            row[0] += 1
            row[1] += count > cards
            row[2] += count == cards
            row[3] += count - cards
            row[4] += value[seat][fruit]
        s.last_bid_history = list(s.bid_history)
        bid, count = s.bid_count, s.showdown_count
        if s.call == R.CALL_VRAI:
            col = R.VRAI_RIGHT if count == bid else R.VRAI_WRONG
        else:
            col = R.MENTEUR_RIGHT if count < bid else R.MENTEUR_WRONG
        s.call_tally[s.caller][col] += 1
        if s.bidder >= 0:  # the same outcome, seen from the bid that was called
            s.called_tally[s.bidder][col] += 1

    def record_round(self, s: RefState) -> None:
        """Remember the call of this round for the results tables."""
        s.last_round = dict(caller=s.caller, call=s.call, bidder=s.bidder,
                            bid_count=s.bid_count, bid_fruit=s.bid_fruit,
                            true_count=s.showdown_count, loser=-1, amount=0, gainer=-1,
                            centre_value=self.centre_value(s))

    def take_tokens(self, s: RefState, seat: int, amount: int, cause: int) -> None:
        """``seat`` loses ``amount`` tokens, never below 0; the moment it hits 0 is noted and
        the tokens actually lost are tallied under ``cause`` (a ``token_tally`` column)."""
        if s.tokens[seat] > 0 and s.tokens[seat] <= amount:
            s.zero_time[seat] = s.num_decisions
        s.token_tally[seat][cause] += min(amount, s.tokens[seat])
        s.tokens[seat] = max(0, s.tokens[seat] - amount)

    def lose(self, s: RefState, seat: int, amount: int, cause: int = R.LOST_SHOWDOWN) -> None:
        """``seat`` loses ``amount`` tokens at the showdown (recorded for the results)."""
        self.take_tokens(s, seat, amount, cause)
        s.last_round["loser"] = seat
        s.last_round["amount"] = amount

    def reward_gain(self, s: RefState) -> None:
        """Exact call: the caller gains 1 token."""
        s.tokens[s.caller] += 1
        s.token_tally[s.caller][R.GAINED] += 1
        s.last_round["gainer"] = s.caller
        self.end_round(s)

    def reward_punish(self, s: RefState, k: int) -> None:
        """Exact call: the player ``k`` seats clockwise from the caller loses 1 token."""
        s.token_tally[s.caller][R.PUNISHED_OTHER] += 1
        self.lose(s, (s.caller + k) % s.num_players, 1, R.LOST_PUNISH)
        self.end_round(s)

    # ------------------------------------------------------------ round end
    def end_round(self, s: RefState) -> None:
        """Eliminate empty players, end the game or pass the deal clockwise and deal again."""
        for seat in range(s.num_players):
            if s.in_round[seat] and s.tokens[seat] == 0:
                s.elim_round[seat] = s.num_rounds
        s.num_rounds += 1
        alive = [t > 0 for t in s.tokens]
        if sum(alive) <= 1:
            self.finish(s, truncated=False)
        elif s.num_rounds >= self.rules.max_rounds:
            self.finish(s, truncated=True)
        else:
            s.in_round = alive
            s.dealer = self.left_of(s, s.dealer)
            self.start_round(s)

    def finish(self, s: RefState, truncated: bool) -> None:
        """Game over (possibly mid-round): rank survivors by tokens, the eliminated by when."""
        s.terminated = not truncated
        s.truncated = truncated
        s.phase = R.PHASE_OVER
        s.current_player = -1
        s.placements = placements_from_scores(placement_scores(s.tokens, s.zero_time))

    # ------------------------------------------------------------ observation
    def observe(self, s: RefState, seat: int | None = None) -> dict[str, np.ndarray]:
        """The information set of ``seat`` (default: the current player), as numpy arrays."""
        from bluffsim.games.qdv.observe import observation_fields

        seat = s.current_player if seat is None else seat
        return observation_fields(self.rules, s, seat)


# ---------------------------------------------------------------- helpers
def marker_crosses_start(position: int, target: int, start: int, on_landing: bool) -> bool:
    """Moving clockwise from ``position`` to ``target`` reaches (or passes beyond) ``start``."""
    steps = (target - position) % R.NUM_FRUITS
    dist = (start - position) % R.NUM_FRUITS
    last = steps if on_landing else steps - 1
    return 1 <= dist <= last


def pick_card(counts: Sequence[int], index: int) -> tuple[int, int]:
    """The ``index``-th card in kind order: (kind, offset among the cards of that kind)."""
    for kind, n in enumerate(counts):
        if index < n:
            return kind, index
        index -= n
    raise IndexError("card index beyond hand")


def placement_scores(tokens: Sequence[int], zero_time: Sequence[int]) -> list[int]:
    """Higher is better: survivors by tokens above everyone eliminated, who rank by the
    decision that eliminated them (later is better; one event, one shared place)."""
    return [PLACE_SURVIVOR + t if t > 0 else z for t, z in zip(tokens, zero_time, strict=True)]


def placements_from_scores(scores: Sequence[int]) -> list[int]:
    """Competition ranking: 1 + number of players with a strictly better score."""
    return [1 + sum(o > sc for o in scores) for sc in scores]


# ---------------------------------------------------------------- scenarios
def scenario(hands: Sequence[Sequence[str]], centre: str, tokens: Sequence[int], dealer: int = 0,
             challenges: Sequence[str] = (), undealt: Sequence[str] = (), seed: int = 0,
             **options: Any) -> tuple[ReferenceGame, RefState]:
    """A state built from explicit cards: the round about to be bid (or started) by its players.

    ``hands`` are card names per seat, ``centre`` the face-up card, ``challenges`` the
    top of the challenge deck (the rest of the rules' deck follows in its own
    order), ``undealt`` the top of the undealt fruit deck (the other unused cards
    follow in kind order).  Later rounds are dealt from ``seed``.
    """
    rules = Rules.from_options(num_players=len(hands), **options)
    game = ReferenceGame(rules)
    p = rules.num_players
    if len(tokens) != p:
        raise RulesError(f"scenario: tokens has {len(tokens)} entries; expected one per seat ({p})")
    remaining = list(rules.deck)
    hand_kinds = [[_take_card(remaining, name) for name in h] for h in hands]
    centre_kind = _take_card(remaining, centre)
    top = [_take_card(remaining, name) for name in undealt]
    s = RefState(seed=seed, num_players=p, tokens=list(tokens), in_round=[t > 0 for t in tokens],
                 elim_round=[-1] * p, dealer=dealer, placements=[0] * p, zero_time=[-1] * p)
    s.showdown_hands = [[0] * R.NUM_KINDS for _ in range(p)]
    s.declared = [-1] * p
    s.init_tallies()
    game.reset_round_fields(s)
    for seat, kinds in enumerate(hand_kinds):
        for k in kinds:
            s.hand_counts[seat][k] += 1
    dealt = [k for kinds in hand_kinds for k in kinds]
    s.deck = dealt + [centre_kind] + top + sorted(remaining)
    s.deck_ptr = len(dealt) + 1
    s.centre = centre_kind
    chal = [R.EFFECTS.index(_check_effect(e)) for e in challenges]
    rest = list(rules.challenge_ids)
    for e in chal:
        if e in rest:
            rest.remove(e)
    s.chal_deck = chal + rest
    game.open_bidding(s)
    return game, s


def _take_card(remaining: list[int], name: str) -> int:
    if name not in R.KIND_INDEX:
        raise RulesError(f"scenario: unknown qdv card {name!r}; allowed: {', '.join(R.KIND_NAMES)}")
    kind = R.KIND_INDEX[name]
    if kind not in remaining:
        raise RulesError(f"scenario: no {name!r} card left in the deck")
    remaining.remove(kind)
    return kind


def _check_effect(name: str) -> str:
    if name not in R.EFFECTS:
        raise RulesError(f"scenario: unknown challenge {name!r}; allowed: {', '.join(R.EFFECTS)}")
    return name


def redeal_hidden(s: RefState, seat: int, seed: int, rules: Rules | None = None) -> RefState:
    """A copy of ``s`` with every card ``seat`` cannot see re-dealt at random.

    Hidden are: the other players' face-down cards (before a showdown shows all
    hands), the rest of the undealt fruit deck and the rest of the challenge
    deck.  Hand sizes, face-up cards and the public history stay as they are, so
    the result is consistent with everything ``seat`` has observed.
    """
    import copy
    import random

    out = copy.deepcopy(s)
    gen = random.Random(seed)
    showdown = s.phase in (R.PHASE_SALADS, R.PHASE_REWARD)
    others = [] if showdown else [q for q in range(s.num_players) if q != seat]
    pool = list(s.deck[s.deck_ptr:])
    hidden_sizes = {}
    for q in others:
        hidden = [h - v for h, v in zip(s.hand_counts[q], s.revealed[q], strict=True)]
        hidden_sizes[q] = sum(hidden)
        pool += [k for k, n in enumerate(hidden) for _ in range(n)]
    gen.shuffle(pool)
    for q in others:
        out.hand_counts[q] = list(s.revealed[q])
        for _ in range(hidden_sizes[q]):
            out.hand_counts[q][pool.pop()] += 1
    out.deck[s.deck_ptr:] = pool
    rest = out.chal_deck[s.chal_ptr:]
    gen.shuffle(rest)
    out.chal_deck[s.chal_ptr:] = rest
    return out
