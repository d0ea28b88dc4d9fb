"""Scalar reference engine of ``legumes`` (Menteur): readable, one rule per function.

The oracle of ``vec.py`` (bit-identical).  Rules: ``shared/RULES.md`` §2 and the
French seed; decisions where they are silent are listed in ``rules.py``.
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
from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.rules import Rules
from bluffsim.games.refbase import ReferenceBase, RefStateBase

RESHUFFLE_STREAM = 6


def _zeros() -> list[int]:
    return [0] * R.NUM_TYPES


@dataclass
class RefState(RefStateBase):
    """One legumes game, plain Python fields (meanings as in ``vec.LegumesState``)."""

    CARD_NAMES = R.CARD_NAMES

    seed: int
    num_players: int
    hand_counts: list[list[int]]
    draw: list[int] = field(default_factory=list)
    draw_ptr: int = 0
    discard: list[int] = field(default_factory=_zeros)
    discard_revealed: list[int] = field(default_factory=_zeros)
    reshuffles: int = 0
    face_down: list[tuple[int, int, int]] = field(default_factory=list)  # (owner, card, called)
    face_up: list[int] = field(default_factory=_zeros)
    called: int = -1
    direction: int = 1
    phase: int = R.PHASE_OPEN
    current_player: int = 0
    after_reverse: bool = False
    pending: int = -1
    revealed_total: list[int] = field(default_factory=_zeros)
    last_reveal: list[int] = field(default_factory=lambda: [-1] * 6)
    terminated: bool = False
    truncated: bool = False
    placements: list[int] = field(default_factory=list)
    num_decisions: int = 0
    num_rounds: int = 0

    def scores(self) -> list[int]:
        """Points in hand per seat: vegetables their number, action cards 10."""
        return [sum(n * pts for n, pts in zip(h, R.CARD_POINTS, strict=True))
                for h in self.hand_counts]


LAST_REVEAL = ("accuser", "accused", "card", "doubled", "taker", "cards_taken")


class ReferenceGame(ReferenceBase):
    """Scalar legumes engine: ``new_game``, ``legal_actions``, ``apply``, ``observe``."""

    game_id = "legumes"

    # ------------------------------------------------------------ set-up
    def new_game(self, seed: int) -> RefState:
        """Each player: 4 action cards and ``hand_size`` dealt vegetables; the rest is the pile."""
        r = self.rules
        p = r.num_players
        deck = [r.deck[i] for i in rng.permutation(seed, rng.Stream.DEAL, 0, r.deck_size)]
        hands = [_zeros() for _ in range(p)]
        for seat in range(p):
            for t in R.ACTION_CARDS:
                hands[seat][t] = 1
            for t in deck[seat * r.hand_size:(seat + 1) * r.hand_size]:
                hands[seat][t] += 1
        s = RefState(seed=int(seed), num_players=p, hand_counts=hands,
                     draw=deck[p * r.hand_size:], placements=[0] * p)
        s.current_player = self.first_player(s.seed)
        return s

    def first_player(self, seed: int) -> int:
        """Seat 0 (the seed's youngest player) or, with ``first_player=-1``, drawn from the seed."""
        if self.rules.first_player >= 0:
            return self.rules.first_player
        return rng.below_scalar(rng.word(seed, rng.Stream.OPENER, 0), self.rules.num_players)

    # ------------------------------------------------------------ legality
    def can_accuse(self, s: RefState) -> bool:
        """A face-down card to reveal, not my own, and the last move was not a Reverse."""
        return (bool(s.face_down) and s.face_down[-1][0] != s.current_player
                and not s.after_reverse)

    def legal_actions(self, s: RefState) -> list[int]:
        """Legal action ids of the current player."""
        if s.done:
            return []
        hand = s.hand_counts[s.current_player]
        held = [t for t in range(R.NUM_TYPES) if hand[t] > 0]
        if s.phase == R.PHASE_OPEN:
            return [R.OPEN0 + t * R.NUM_VEG + v for t in held for v in range(R.NUM_VEG)]
        acts = [R.PLAY0 + t for t in held]
        if self.can_accuse(s):
            acts.append(R.ACCUSE)
            if hand[R.DOUBLE]:
                acts.append(R.ACCUSE_DOUBLE)
        if hand[R.CHOICE]:
            acts += [R.CHOICE0 + v for v in range(R.NUM_VEG)]
        if hand[R.REVERSE]:
            acts.append(R.REVERSE_ID)
        return acts

    # ------------------------------------------------------------ apply
    def apply(self, s: RefState, action: int | str) -> RefState:
        """Apply one decision (in place); a finished game ignores it."""
        if s.done:
            return s
        a = self.checked_action(s, action)
        s.num_decisions += 1
        me = s.current_player
        if a < R.PLAY0:
            self.open(s, (a - R.OPEN0) // R.NUM_VEG, (a - R.OPEN0) % R.NUM_VEG)
        elif a < R.ACCUSE:
            self.play(s, a - R.PLAY0)
        elif a < R.CHOICE0:
            self.accuse(s, double=a == R.ACCUSE_DOUBLE)
        elif a < R.REVERSE_ID:
            self.vegetable_choice(s, a - R.CHOICE0)
        else:
            self.reverse(s)
        self.check_empty_hand(s, me)
        if not s.done and s.num_decisions >= self.rules.max_turns:
            self.finish(s, truncated=True)
        return s

    def pass_turn(self, s: RefState) -> None:
        """The next player in the current direction decides."""
        s.current_player = (s.current_player + s.direction) % s.num_players

    def open(self, s: RefState, card: int, veg: int) -> None:
        """The opener puts a card face down and calls the round's vegetable."""
        s.called = veg
        s.phase = R.PHASE_PLAY
        self.play(s, card)

    def play(self, s: RefState, card: int) -> None:
        """Put a card face down, claiming it is the called vegetable."""
        me = s.current_player
        s.hand_counts[me][card] -= 1
        s.face_down.append((me, card, s.called))
        s.after_reverse = False
        self.pass_turn(s)

    def vegetable_choice(self, s: RefState, veg: int) -> None:
        """Vegetable choice face up: a new called vegetable; no other card is played."""
        self.face_up_card(s, R.CHOICE)
        s.called = veg
        s.after_reverse = False
        self.pass_turn(s)

    def reverse(self, s: RefState) -> None:
        """Reverse face up: the turn order reverses and the next player may not accuse."""
        self.face_up_card(s, R.REVERSE)
        s.direction = -s.direction
        s.after_reverse = True
        self.pass_turn(s)

    def face_up_card(self, s: RefState, card: int) -> None:
        """An action card from the current hand goes face up among the round's cards."""
        s.hand_counts[s.current_player][card] -= 1
        s.face_up[card] += 1

    # ------------------------------------------------------------ reveal
    def accuse(self, s: RefState, double: bool) -> None:
        """"Menteur !": reveal the last face-down card and settle who takes what."""
        accuser = s.current_player
        if double:
            self.face_up_card(s, R.DOUBLE)
        owner, card, called = s.face_down[-1]
        s.revealed_total[card] += 1
        s.num_rounds += 1
        if card == R.BOMB:
            taken = self.bomb(s, accuser)
            s.last_reveal = [accuser, owner, card, int(double), accuser, taken]
            self.next_round(s, accuser)
            return
        self.round_to_discard(s)
        if card < R.BOMB:
            loser = accuser if card // 3 == called else owner
            n = card % 3 + 1
        else:
            loser, n = owner, self.rules.action_lie_penalty
        n *= 2 if double else 1
        s.last_reveal = [accuser, owner, card, int(double), loser, n]
        self.draw_cards(s, loser, n)
        if not s.done:
            self.next_round(s, loser)

    def bomb(self, s: RefState, accuser: int) -> int:
        """The accuser takes the discard pile and every card of this round (Bomb included)."""
        hand = s.hand_counts[accuser]
        taken = 0
        for t in range(R.NUM_TYPES):
            n = s.discard[t] + s.face_up[t] + sum(1 for _, c, _ in s.face_down if c == t)
            hand[t] += n
            taken += n
        s.discard, s.discard_revealed = _zeros(), _zeros()
        s.face_down, s.face_up = [], _zeros()
        return taken

    def round_to_discard(self, s: RefState) -> None:
        """This round's cards go on the discard pile; face-up and revealed ones are known."""
        for _, c, _ in s.face_down:
            s.discard[c] += 1
        s.discard_revealed[s.face_down[-1][1]] += 1
        for t in range(R.NUM_TYPES):
            s.discard[t] += s.face_up[t]
            s.discard_revealed[t] += s.face_up[t]
        s.face_down, s.face_up = [], _zeros()

    def draw_cards(self, s: RefState, seat: int, n: int) -> None:
        """Draw ``n`` cards; a first exhaustion reshuffles the discard, a second ends the game."""
        for _ in range(n):
            if s.draw_ptr >= len(s.draw):
                if s.reshuffles == 0 and sum(s.discard) > 0:
                    self.reshuffle(s)
                else:
                    s.reshuffles += 1
                    self.finish(s, truncated=False)
                    return
            s.hand_counts[seat][s.draw[s.draw_ptr]] += 1
            s.draw_ptr += 1

    def reshuffle(self, s: RefState) -> None:
        """The discard pile, shuffled, becomes the new draw pile."""
        cards = [t for t in range(R.NUM_TYPES) for _ in range(s.discard[t])]
        order = rng.permutation(s.seed, RESHUFFLE_STREAM, 0, len(cards), self.rules.total_cards)
        s.draw = [cards[i] for i in order]
        s.draw_ptr = 0
        s.discard, s.discard_revealed = _zeros(), _zeros()
        s.reshuffles += 1

    def next_round(self, s: RefState, opener: int) -> None:
        """The player who received cards opens; with an empty hand the game is over."""
        s.called = -1
        s.phase = R.PHASE_OPEN
        s.after_reverse = False
        s.current_player = opener
        if sum(s.hand_counts[opener]) == 0:
            self.finish(s, truncated=False)

    # ------------------------------------------------------------ end
    def check_empty_hand(self, s: RefState, me: int) -> None:
        """A hand emptied at the previous decision and still empty now ends the game."""
        if s.done:
            return
        if s.pending >= 0 and sum(s.hand_counts[s.pending]) == 0:
            self.finish(s, truncated=False)
            return
        s.pending = me if sum(s.hand_counts[me]) == 0 else -1

    def finish(self, s: RefState, truncated: bool) -> None:
        """Game over: lowest score first, equal scores share a place."""
        s.terminated = not truncated
        s.truncated = truncated
        s.phase = R.PHASE_OVER
        s.current_player = -1
        sc = s.scores()
        s.placements = [1 + sum(o < x for o in sc) for x in sc]

    # ------------------------------------------------------------ observation
    def observe(self, s: RefState, seat: int | None = None) -> dict[str, np.ndarray]:
        """The information set of ``seat`` (default: the current player)."""
        from bluffsim.games.legumes.observe import observation_fields

        return observation_fields(self.rules, s, s.current_player if seat is None else seat)


# ---------------------------------------------------------------- scenarios
def scenario(hands: Sequence[Sequence[str]], draw_pile: Sequence[str], discard: Sequence[str] = (),
             opener: int = 0, seed: int = 0, **options: Any) -> tuple[ReferenceGame, RefState]:
    """A game from explicit cards: hands (action cards included), the draw pile (top first),
    the discard pile; ``opener`` opens the first round."""
    rules = Rules.from_options(num_players=len(hands), **options)
    game = ReferenceGame(rules)

    def kind(name: str) -> int:
        if name not in R.CARD_NAMES:
            raise RulesError(f"scenario: unknown legumes card {name!r}; allowed: "
                             f"{', '.join(R.CARD_NAMES)}")
        return R.CARD_NAMES.index(name)

    hc = [_zeros() for _ in hands]
    for seat, cards in enumerate(hands):
        for name in cards:
            hc[seat][kind(name)] += 1
    s = RefState(seed=seed, num_players=rules.num_players, hand_counts=hc,
                 draw=[kind(n) for n in draw_pile], placements=[0] * rules.num_players)
    for name in discard:
        s.discard[kind(name)] += 1
    s.current_player = opener
    return game, s


def redeal_hidden(s: RefState, seat: int, seed: int, rules: Rules | None = None) -> RefState:
    """A copy of ``s`` with every card ``seat`` cannot see re-dealt at random.

    Hidden: other hands, the draw pile, the unrevealed part of the discard pile
    and the other players' face-down cards of this round except the last one's
    owner and called vegetable (which are public).  Sizes per place stay.
    """
    out = copy.deepcopy(s)
    gen = random.Random(seed)
    pool: list[int] = []
    for q in range(s.num_players):
        if q != seat:
            pool += [t for t in range(R.NUM_TYPES) for _ in range(s.hand_counts[q][t])]
    pool += s.draw[s.draw_ptr:]
    hidden_discard = [s.discard[t] - s.discard_revealed[t] for t in range(R.NUM_TYPES)]
    pool += [t for t in range(R.NUM_TYPES) for _ in range(hidden_discard[t])]
    others_fd = [i for i, (o, _, _) in enumerate(s.face_down) if o != seat]
    pool += [s.face_down[i][1] for i in others_fd]
    gen.shuffle(pool)
    for q in range(s.num_players):
        if q != seat:
            n = sum(s.hand_counts[q])
            out.hand_counts[q] = _zeros()
            for _ in range(n):
                out.hand_counts[q][pool.pop()] += 1
    out.draw = out.draw[: s.draw_ptr] + [pool.pop() for _ in range(len(s.draw) - s.draw_ptr)]
    out.discard = list(s.discard_revealed)
    for _ in range(sum(hidden_discard)):
        out.discard[pool.pop()] += 1
    for i in others_fd:
        o, _, called = s.face_down[i]
        out.face_down[i] = (o, pool.pop(), called)
    return out
