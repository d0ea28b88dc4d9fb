"""Scalar reference engine of ``legumes`` (Menteur): readable, one rule per function.

The oracle of ``vec.py`` (bit-identical).  Rules: ``docs/rules.md#legumes`` and the
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

RESHUFFLE_STREAM = rng.Stream.RESHUFFLE


def _zeros() -> list[int]:
    return [0] * R.NUM_TYPES


def _per_seat(p: int, width: int) -> list[list[int]]:
    return [[0] * width for _ in range(p)]


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
    # memory (observe.py): per observer, its own face-down cards now in the discard pile
    # (unrevealed), the discard cards it knew of when the pile was reshuffled into the draw
    # pile, and per observer and holder the known cards a Bomb put in that hand
    my_discard: list[list[int]] = field(default_factory=list)
    reshuffled_known: list[list[int]] = field(default_factory=list)
    taken_known: list[list[list[int]]] = field(default_factory=list)
    # public per-seat tallies: accusations suffered / made by outcome (true, lie, bomb),
    # action cards shown (bomb, choice, reverse, double), cards drawn, cards taken by a Bomb
    accused_tally: list[list[int]] = field(default_factory=list)
    accuser_tally: list[list[int]] = field(default_factory=list)
    shown_tally: list[list[int]] = field(default_factory=list)
    drawn_tally: list[int] = field(default_factory=list)
    bomb_taken: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        p = self.num_players
        for name, width in (("my_discard", R.NUM_TYPES), ("reshuffled_known", R.NUM_TYPES),
                            ("accused_tally", 3), ("accuser_tally", 3), ("shown_tally", 4)):
            if not getattr(self, name):
                setattr(self, name, _per_seat(p, width))
        if not self.taken_known:
            self.taken_known = [_per_seat(p, R.NUM_TYPES) for _ in range(p)]
        if not self.drawn_tally:
            self.drawn_tally = [0] * p
        if not self.bomb_taken:
            self.bomb_taken = [0] * p

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

    def reverse_alone_allowed(self, s: RefState) -> bool:
        """``reverse`` alone: the Reverse is my last card, or variant ``reverse_alone``."""
        hand = s.hand_counts[s.current_player]
        return hand[R.REVERSE] > 0 and (self.rules.reverse_alone or sum(hand) == 1)

    def legal_actions(self, s: RefState) -> list[int]:
        """Legal action ids of the current player."""
        if s.done:
            return []
        hand = s.hand_counts[s.current_player]
        held = [t for t in range(R.NUM_TYPES) if hand[t] > 0]
        if s.phase == R.PHASE_OPEN:
            return [R.OPEN0 + t * R.NUM_VEG + v for t in held for v in range(R.NUM_VEG)]
        accuse = []
        if self.can_accuse(s):
            accuse.append(R.ACCUSE)
            if hand[R.DOUBLE]:
                accuse.append(R.ACCUSE_DOUBLE)
        if s.pending >= 0:  # facing a player's last face-down card: accuse or accept
            return accuse + [R.ACCEPT]
        acts = [R.PLAY0 + t for t in held] + accuse
        if hand[R.CHOICE]:
            acts += [R.CHOICE0 + v for v in range(R.NUM_VEG)]
        if self.reverse_alone_allowed(s):
            acts.append(R.REVERSE_ID)
        if hand[R.REVERSE] and not self.rules.reverse_alone:
            acts += [R.REVERSE_PLAY0 + t for t in held if t != R.REVERSE or hand[t] >= 2]
        return acts

    # ------------------------------------------------------------ apply
    def apply(self, s: RefState, action: int | str) -> RefState:
        """Apply one decision (in place); a finished game ignores it."""
        if s.done:
            return s
        a = self.checked_action(s, action)
        s.num_decisions += 1
        me = s.current_player
        face_down = a < R.ACCUSE or a >= R.REVERSE_PLAY0
        if a < R.PLAY0:
            self.open(s, (a - R.OPEN0) // R.NUM_VEG, (a - R.OPEN0) % R.NUM_VEG)
        elif a < R.ACCUSE:
            self.play(s, a - R.PLAY0)
        elif a < R.CHOICE0:
            self.accuse(s, double=a == R.ACCUSE_DOUBLE)
        elif a < R.REVERSE_ID:
            self.vegetable_choice(s, a - R.CHOICE0)
        elif a == R.REVERSE_ID:
            self.reverse(s)
        elif a == R.ACCEPT:
            self.finish(s, truncated=False)
        else:
            self.reverse_with_card(s, a - R.REVERSE_PLAY0)
        self.check_empty_hands(s, me if face_down else -1)
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
        """Reverse face up alone: the turn order reverses and the next player may not accuse."""
        self.face_up_card(s, R.REVERSE)
        s.direction = -s.direction
        s.after_reverse = True
        self.pass_turn(s)

    def reverse_with_card(self, s: RefState, card: int) -> None:
        """Reverse face up with ``card`` face down (claimed as the called vegetable): the order
        reverses and the next player, in the new direction, may not accuse that card."""
        self.face_up_card(s, R.REVERSE)
        s.direction = -s.direction
        self.play(s, card)
        s.after_reverse = True

    def face_up_card(self, s: RefState, card: int) -> None:
        """An action card from the current hand goes face up among the round's cards (shown)."""
        s.hand_counts[s.current_player][card] -= 1
        s.face_up[card] += 1
        s.shown_tally[s.current_player][card - R.BOMB] += 1

    # ------------------------------------------------------------ reveal
    def accuse(self, s: RefState, double: bool) -> None:
        """"Menteur !": reveal the last face-down card and settle who takes what."""
        accuser = s.current_player
        if double:
            self.face_up_card(s, R.DOUBLE)
        owner, card, called = s.face_down[-1]
        s.revealed_total[card] += 1
        s.num_rounds += 1
        outcome = (R.OUTCOME_BOMB if card == R.BOMB else
                   R.OUTCOME_TRUE if card < R.BOMB and card // 3 == called else R.OUTCOME_LIE)
        s.accused_tally[owner][outcome] += 1
        s.accuser_tally[accuser][outcome] += 1
        if card >= R.BOMB:
            s.shown_tally[owner][card - R.BOMB] += 1
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
        for seat in range(s.num_players):
            known = s.taken_known[seat][accuser]
            for t in range(R.NUM_TYPES):
                if seat == accuser:  # the accuser sees what it takes
                    n = (s.discard[t] + s.face_up[t]
                         + sum(1 for _, c, _ in s.face_down if c == t))
                else:  # public cards, the Bomb, and my own cards among them
                    n = (s.discard_revealed[t] + s.face_up[t] + s.my_discard[seat][t]
                         + sum(1 for o, c, _ in s.face_down[:-1] if c == t and o == seat))
                known[t] += n
            known[R.BOMB] += seat != accuser
        s.bomb_taken[accuser] += taken
        s.discard, s.discard_revealed = _zeros(), _zeros()
        s.my_discard = _per_seat(s.num_players, R.NUM_TYPES)
        s.face_down, s.face_up = [], _zeros()
        return taken

    def round_to_discard(self, s: RefState) -> None:
        """This round's cards go on the discard pile; face-up and revealed ones are known."""
        for _, c, _ in s.face_down:
            s.discard[c] += 1
        for o, c, _ in s.face_down[:-1]:
            s.my_discard[o][c] += 1
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
            s.drawn_tally[seat] += 1

    def reshuffle(self, s: RefState) -> None:
        """The discard pile, shuffled, becomes the new draw pile."""
        cards = [t for t in range(R.NUM_TYPES) for _ in range(s.discard[t])]
        order = rng.permutation(s.seed, RESHUFFLE_STREAM, 0, len(cards), self.rules.total_cards)
        s.draw = [cards[i] for i in order]
        s.draw_ptr = 0
        s.reshuffled_known = [[r + m for r, m in zip(s.discard_revealed, mine, strict=True)]
                              for mine in s.my_discard]
        s.discard, s.discard_revealed = _zeros(), _zeros()
        s.my_discard = _per_seat(s.num_players, R.NUM_TYPES)
        s.reshuffles += 1

    def next_round(self, s: RefState, opener: int) -> None:
        """The player who received cards opens the next round."""
        s.called = -1
        s.phase = R.PHASE_OPEN
        s.after_reverse = False
        s.current_player = opener

    # ------------------------------------------------------------ end
    def check_empty_hands(self, s: RefState, face_down_by: int) -> None:
        """An empty hand ends the game at once, unless its last card just went face down:
        then the next player accuses or accepts it (``pending``)."""
        s.pending = -1
        if s.done:
            return
        empty = [q for q in range(s.num_players) if sum(s.hand_counts[q]) == 0]
        if empty == [face_down_by]:
            s.pending = face_down_by
        elif empty:
            self.finish(s, truncated=False)

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

    Hidden: other hands, the draw pile, the part of the discard pile neither
    revealed nor played by ``seat``, and the other players' face-down cards of
    this round except their owners and called vegetables (which are public).
    Sizes per place stay.
    """
    out = copy.deepcopy(s)
    gen = random.Random(seed)
    pool: list[int] = []
    for q in range(s.num_players):
        if q != seat:
            pool += [t for t in range(R.NUM_TYPES) for _ in range(s.hand_counts[q][t])]
    pool += s.draw[s.draw_ptr:]
    mine = s.my_discard[seat]  # my own face-down cards in the discard pile: known to me
    hidden_discard = [s.discard[t] - s.discard_revealed[t] - mine[t] for t in range(R.NUM_TYPES)]
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
    out.discard = [r + m for r, m in zip(s.discard_revealed, mine, strict=True)]
    for _ in range(sum(hidden_discard)):
        out.discard[pool.pop()] += 1
    for i in others_fd:
        o, _, called = s.face_down[i]
        out.face_down[i] = (o, pool.pop(), called)
    return out
