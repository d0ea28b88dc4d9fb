"""Rules object of ``legumes`` (Menteur, vegetable cheat with action cards).

Options (keyword arguments of ``bluffsim.make("legumes", num_players, ...)``), declared
once in ``OPTIONS`` below (validation, ``bluffsim games`` and this table derive from it):

{options}

Card types (index / meaning): ``3*v + (n-1)`` is vegetable ``v`` printed ``n``
(``carrot-1`` … ``pea-3``); 18 ``bomb``, 19 ``choice`` (Vegetable choice), 20
``reverse``, 21 ``double`` (Double accusation).  Vegetables: carrot, tomato,
leek, cabbage, radish, pea.

Action ids (index / meaning):

| ids       | names                    | meaning                                             |
|-----------|--------------------------|-----------------------------------------------------|
| 0..131    | `open <card> <vegetable>`| opener: a card face down and the called vegetable    |
| 132..153  | `play <card>`            | put a card face down, claiming the called vegetable |
| 154       | `accuse`                 | "Menteur !": reveal the last face-down card         |
| 155       | `accuse double`          | accuse with the Double accusation card              |
| 156..161  | `choice <vegetable>`     | Vegetable choice face up: call a new vegetable      |
| 162       | `reverse`                | Reverse face up alone: only as my last card (or variant) |
| 163       | `accept`                 | accept a player's last face-down card: game over     |
| 164..185  | `reverse <card>`         | Reverse face up, ``<card>`` face down as the called vegetable |

``open_id(card, veg) = card * 6 + veg``; ``reverse <card>`` is ``164 + card``.

Decisions where the seed is silent (also in ``docs/rules.md#legumes``):
- after a reveal the round's cards go to the discard pile first, then the loser
  draws (so a reshuffle includes them);
- the draw pile "runs out" when a card must be drawn and it is empty: the
  first time the discard pile is shuffled into a new draw pile; the second time
  (or with an empty discard pile) the game ends at once;
- a Bomb revealed after an ``accuse double``: the Double card is one of the
  round's cards, so the accuser takes it back with the discard pile.

Reverse, accept and the end (``docs/rules.md#legumes``).  The seed says of
Vegetable choice "il ne joue pas d'autre carte" but not of Reverse, and bans an
accusation "directement après cette carte"; the game ends "quand un joueur
dépose sa dernière carte et qu'elle n'est pas mise en doute".
- ``reverse <card>``: the Reverse goes face up and ``<card>`` face down, claimed
  as the vegetable called at that moment (the one it is judged against); the
  order reverses and the turn passes in the new direction.  The ban is on the
  next player's accusation only (``accuse`` and ``accuse double``): they may
  play, call a vegetable or play their own Reverse.  If they call a vegetable
  (no new face-down card), the player after them may accuse the card that went
  down with the Reverse.  ``reverse reverse`` needs two Reverse cards (a Bomb
  can give a player several).  The opener never plays the Reverse: opening is a
  face-down card and a call.
- ``reverse`` alone is offered only when the Reverse is the player's only card
  (it then ends the game, below), or always with ``reverse_alone = True``,
  which offers no ``reverse <card>`` (the previous reading).
- A player's last card face down: the next player's only actions are
  ``accuse``, ``accuse double`` and ``accept`` (no play, no call, no Reverse).
  ``accept`` ends the game at once; the accepter plays no card.
- A player's last card going down face down *with the Reverse*: the next player
  may not accuse it, so it cannot be "mise en doute": ``accept`` is the next
  player's only action (the seed's end rule decides; it ends the game).
- After every decision, an empty hand ends the game at once, except the hand
  of the player whose last card just went face down (``pending``: the next
  player accuses or accepts it).  So a last card going down face up (Reverse
  alone, Vegetable choice, a Double accusation that costs nothing because the
  card was a lie) ends the game at once; so does an accused last card that
  shows the truth (the accuser draws first), that is a Bomb (the accuser takes
  the pile, the player still has no card), or an action card when
  ``action_lie_penalty = 0``.  A lie makes its player draw and open: the game
  goes on.

Observation memory (``observe.py``):
- ``my_discard`` holds a player's own face-down cards that reached the discard
  pile unrevealed (the revealed one is in ``discard_revealed``); when the
  discard pile becomes the draw pile both become ``reshuffled_known`` (draws
  from it are not tracked: the order is unknown); a Bomb take empties both
  piles' memories into ``taken_known``.
- ``taken_known`` (observer x holder) counts the cards an observer could name
  in each Bomb take: public ones (revealed or face-up discard cards, this
  round's face-up cards, the Bomb) and its own; the accuser counts all it took.
  It is cumulative: a card taken may have been played face down since.
- tallies are public and cumulative: accusations per accused and per accuser
  by what was revealed (the called vegetable, a lie, a Bomb); action cards
  shown per seat (played face up, or revealed face down); cards drawn from the
  draw pile per seat; cards taken with a Bomb per seat.
- counts that can pass 127 with the largest deck (``numbers = (8, 8, 8)``:
  hand sizes, pile sizes, a round's face-down cards, cards taken) are int16;
  cumulative tallies int32.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bluffsim.options import (
    Option,
    bool_option,
    declare_options,
    int_option,
    is_int,
    options_table,
    validate_options,
)

VEGETABLES = ("carrot", "tomato", "leek", "cabbage", "radish", "pea")
NUM_VEG = 6
BOMB, CHOICE, REVERSE, DOUBLE = 18, 19, 20, 21
NUM_TYPES = 22
ACTION_CARDS = (BOMB, CHOICE, REVERSE, DOUBLE)
CARD_NAMES = tuple(f"{v}-{n}" for v in VEGETABLES for n in (1, 2, 3)) + (
    "bomb", "choice", "reverse", "double")
CARD_POINTS = tuple([1, 2, 3] * NUM_VEG + [10, 10, 10, 10])

OPEN0, PLAY0, ACCUSE, ACCUSE_DOUBLE, CHOICE0, REVERSE_ID = 0, 132, 154, 155, 156, 162
ACCEPT, REVERSE_PLAY0 = 163, 164
NUM_ACTIONS = 186

# outcomes of an accusation in the per-seat tallies: the card was the called vegetable,
# another card (a lie), the Bomb
OUTCOME_TRUE, OUTCOME_LIE, OUTCOME_BOMB = 0, 1, 2

PHASE_OPEN, PHASE_PLAY, PHASE_OVER = 0, 1, 2


def _check_numbers(numbers: Any, rules: Any) -> str | None:
    ok = (isinstance(numbers, tuple) and len(numbers) == 3
          and all(is_int(x) and 0 <= x <= 8 for x in numbers))
    return None if ok else "three counts (of 1s, 2s, 3s), each 0..8"


def _check_hand_size(hand_size: Any, rules: Any) -> str | None:
    if not is_int(hand_size) or not 1 <= hand_size <= 12:
        return "1..12"
    p = rules.num_players
    if hand_size * p > rules.deck_size:
        return f"at most {rules.deck_size // p} with {p} players and this deck"
    return None


OPTIONS: tuple[Option, ...] = (
    int_option("num_players", 4, 2, 6, "players at the table"),
    Option("numbers", (5, 4, 3), "cards printed 1, 2, 3 per vegetable (each 0..8)",
           "1s, 2s, 3s per vegetable", _check_numbers,
           at=lambda r: ((0, 0, 1), (8, 8, 8)),
           past=lambda r: ((9, 0, 0), (0, 0, -1), (1, 1), (1, 1, 1, 1), [5, 4, 3], (5.0, 4, 3))),
    Option("hand_size", 8, "vegetable cards dealt to each player (1..12)",
           "1..12 vegetable cards dealt", _check_hand_size,
           at=lambda r: (1, min(12, r.deck_size // r.num_players)),
           past=lambda r: (0, 13, r.deck_size // r.num_players + 1, 8.0)),
    int_option("action_lie_penalty", 1, 0, 5, "cards drawn for an action card played face down"),
    int_option("first_player", 0, -1, lambda r: r.num_players - 1,
               "the first player: a seat, or -1 = drawn at random from the seed",
               allowed="-1 (random) or a seat",
               refusal=lambda r: f"-1 (random) or a seat 0..{r.num_players - 1}"),
    int_option("max_turns", 5000, 1, 100_000, "decisions before the game is truncated"),
    bool_option("reverse_alone", False, "true: the previous reading, Reverse replaces the play",
                allowed="true: Reverse replaces the play (previous reading)"),
)


@declare_options("legumes", OPTIONS)
@dataclass(frozen=True)
class Rules:
    """Validated options of one ``legumes`` game (``OPTIONS``)."""

    num_players: int = 4
    numbers: tuple[int, int, int] = (5, 4, 3)
    hand_size: int = 8
    action_lie_penalty: int = 1
    first_player: int = 0
    max_turns: int = 5000
    reverse_alone: bool = False

    __post_init__ = validate_options


    @property
    def deck(self) -> tuple[int, ...]:
        """The vegetable deck as card types, canonical order."""
        return tuple(v * 3 + n for v in range(NUM_VEG) for n in range(3)
                     for _ in range(self.numbers[n]))

    @property
    def deck_size(self) -> int:
        """Number of vegetable cards (72 by default)."""
        return NUM_VEG * sum(self.numbers)

    @property
    def total_cards(self) -> int:
        """Vegetable cards plus every player's four action cards."""
        return self.deck_size + 4 * self.num_players

    @property
    def action_names(self) -> tuple[str, ...]:
        """Action names, index = action id."""
        return (tuple(f"open {c} {v}" for c in CARD_NAMES for v in VEGETABLES)
                + tuple(f"play {c}" for c in CARD_NAMES) + ("accuse", "accuse double")
                + tuple(f"choice {v}" for v in VEGETABLES) + ("reverse", "accept")
                + tuple(f"reverse {c}" for c in CARD_NAMES))


__doc__ = __doc__.replace("{options}", options_table(OPTIONS))
