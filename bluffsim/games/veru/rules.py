"""Rules object of ``veru`` (Верю — не верю): options, validation, cards and action ids.

Options (keyword arguments of ``bluffsim.make("veru", num_players, ...)``):

| option            | default  | allowed                                                         |
|-------------------|----------|-----------------------------------------------------------------|
| `num_players`     | 4        | 3..6                                                            |
| `jokers`          | 2        | 0..48 non-ace cards replaced by Jokers at the deal (0 = classic)|
| `endgame_limit`   | 200      | 1..100000 decisions once two players are left                   |
| `max_turns`       | 5000     | 1..100000 decisions before the game is truncated (safety cap)   |
| `joker_swaps`     | 2        | 0..10 `swap` gadget uses per game                               |
| `joker_swap_seats`| ()       | seats with the Joker-swap gadget                                |
| `check_seats`     | ()       | seats with the Check gadget (see the checked cards at every check) |
| `ace_hint_seats`  | ()       | seats with the 4-Aces gadget (see where the aces are)           |
| `first_opener`    | -1       | a seat, or -1 = drawn at random from the seed                   |
| `turn_order`      | "clockwise" | "clockwise" or "counterclockwise"                            |

Card types (index / meaning): 0..12 = ranks 2, 3, …, 10, J, Q, K, A; 13 = Joker.
Announceable ranks are 0..11 (never the ace).

Action ids (index / meaning):

| ids    | names             | meaning                                                       |
|--------|-------------------|---------------------------------------------------------------|
| 0..11  | `announce <rank>` | the opener names the round's rank (open, not an ace)           |
| 12..25 | `put <card>`      | put one card of that type face down (1–3 per turn)             |
| 26     | `done`            | end my claim (automatic after the 3rd card or an empty hand)  |
| 27     | `believe`         | "Верю": check the last claim, believing it                    |
| 28     | `disbelieve`      | "Не верю": check the last claim, doubting it                  |
| 29..40 | `swap <rank>`     | Joker gadget: replace a card of that rank with a Joker        |
| 41     | `timeout`         | runner only (never in the legal mask): the player is wrong    |

Decisions where RULES.md and the seed are silent:
- the deal goes round-robin from the first opener, so the first seats of the
  deal hold one card more when 52 does not divide evenly;
- adding starts with the first ``put``: that moment the previous claim joins the Bank;
- after "believe" on a true claim the claim's cards are shown to all, but the
  Bank goes out unseen (the seed: Bank cards "are not checked"); RULES.md says
  "shown to all" — the seed wins here;
- a ``swap`` is allowed only before the first action of a turn (announce, put,
  believe or disbelieve); "once per round" = between two checks;
- ``timeout`` with nothing on the table passes the opening to the next player;
- a player who goes out mid-round (their last cards left with a check) is ranked
  at that moment; players leaving at the same moment share a place;
- a safety cap ``max_turns`` (not in the seed) truncates a game that has not
  ended: the players still in rank by fewest cards in hand (``truncated``).

Issue 12 (rules as the seed says them; observations as memory):
- **who opens.** The player who guessed right opens.  If they are out, the
  opening passes to the next player in turn still in, skipping the *taker* of
  the check — the player who guessed wrong (seed: the one who disbelieved the
  truth "теряет право открытия нового раунда"), or a caught bluffer.  (A caught
  bluffer sits just before the right guesser, so skipping them only matters when
  they are the last one left — and then the game is over anyway.)  After a
  ``timeout`` the player after the timed-out one, still in, opens — never the
  timed-out player (seed: "а также теряет право открытия раунда").  If the right
  guesser goes out and the wrong guesser is the only one left, the game is over:
  the wrong guesser takes the last place;
- **endgame limit.** When ``endgame_limit`` expires, both remaining players take
  the last place P (seed: "они оба будут проигравшими"), not the next free place,
  so running out the clock never pays (``terminated``);
- **out at the deal.** A dealt hand made only of closed ranks (only possible with
  6 players: an 8-card hand of two quads) is out at once with place 1, in
  ``new_game`` exactly as in ``scenario`` (one shared ``start``); the first
  opener is never such a hand (the opener's hand has 9 cards);
- **swaps are public as an event:** who used the Joker gadget is seen by all
  (``swaps_made``), never which card (the unseen count already showed the event);
- **the observation is the memory** (``observe.py``): my own cards gone out
  unseen (``my_out``: my Bank cards after a believed true claim, swapped cards),
  cards known to sit in another hand (``known_in_hand``: the cards I saw go
  there — my own Bank or claim cards a seat took, claims I saw with the Check
  gadget or as the taker — as a lower bound: every card that seat puts or swaps
  away lowers each type's bound by one, a closed rank sets it to 0), the last
  check's checker, claimant and taker in the tensor, and public per-seat tallies
  (claims opened / added, cards claimed, checked claims false / true per
  claimant, checks right / wrong per checker split by believe / disbelieve,
  pick-ups, timeouts, swaps).  A claim's truth is public at every check (who
  takes tells it), so the tallies are;
- **dtypes:** ``endgame_count`` / ``endgame_left`` (up to ``endgame_limit`` =
  100,000), ``taken``, ``seen_taken`` and the tallies (cumulative over up to
  ``max_turns`` = 100,000 decisions) are int32.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bluffsim.api import RulesError, rules_from_options

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
ACE = 12
JOKER = 13
NUM_TYPES = 14
CARD_NAMES = RANKS + ("joker",)
ANNOUNCEABLE = 12  # ranks 0..11

ANNOUNCE0, PUT0, DONE, BELIEVE, DISBELIEVE, SWAP0, TIMEOUT = 0, 12, 26, 27, 28, 29, 41
NUM_ACTIONS = 42

# phases
PHASE_ANNOUNCE, PHASE_PUT, PHASE_RESPOND, PHASE_OVER = 0, 1, 2, 3


def _fail(option: str, value: Any, allowed: str) -> RulesError:
    return RulesError(f"veru option {option}={value!r} is invalid; allowed: {allowed}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True)
class Rules:
    """Validated options of one ``veru`` game (module table)."""

    num_players: int = 4
    jokers: int = 2
    endgame_limit: int = 200
    max_turns: int = 5000
    joker_swaps: int = 2
    joker_swap_seats: tuple[int, ...] = ()
    check_seats: tuple[int, ...] = ()
    ace_hint_seats: tuple[int, ...] = ()
    first_opener: int = -1
    turn_order: str = "clockwise"

    def __post_init__(self) -> None:
        p = self.num_players
        if not _is_int(p) or not 3 <= p <= 6:
            raise _fail("num_players", p, "3..6")
        if not _is_int(self.jokers) or not 0 <= self.jokers <= 48:
            raise _fail("jokers", self.jokers, "0..48 (the non-ace cards)")
        if not _is_int(self.endgame_limit) or not 1 <= self.endgame_limit <= 100_000:
            raise _fail("endgame_limit", self.endgame_limit, "1..100000 decisions")
        if not _is_int(self.max_turns) or not 1 <= self.max_turns <= 100_000:
            raise _fail("max_turns", self.max_turns, "1..100000 decisions")
        if not _is_int(self.joker_swaps) or not 0 <= self.joker_swaps <= 10:
            raise _fail("joker_swaps", self.joker_swaps, "0..10")
        for name in ("joker_swap_seats", "check_seats", "ace_hint_seats"):
            seats = getattr(self, name)
            if (not isinstance(seats, tuple) or len(set(seats)) != len(seats)
                    or not all(_is_int(x) and 0 <= x < p for x in seats)):
                raise _fail(name, seats, f"distinct seats in 0..{p - 1}")
        if not _is_int(self.first_opener) or not -1 <= self.first_opener < p:
            raise _fail("first_opener", self.first_opener, f"-1 (random) or a seat 0..{p - 1}")
        if self.turn_order not in ("clockwise", "counterclockwise"):
            raise _fail("turn_order", self.turn_order, "clockwise | counterclockwise")

    @classmethod
    def from_options(cls, num_players: int = 4, **options: Any) -> Rules:
        """Build rules from keyword options; unknown names raise ``RulesError``."""
        return rules_from_options(cls, "veru", num_players, options)

    @property
    def step(self) -> int:
        """+1 for clockwise turn order, -1 for counterclockwise."""
        return 1 if self.turn_order == "clockwise" else -1

    @property
    def action_names(self) -> tuple[str, ...]:
        """Action names, index = action id."""
        return (tuple(f"announce {r}" for r in RANKS[:ANNOUNCEABLE])
                + tuple(f"put {c}" for c in CARD_NAMES) + ("done", "believe", "disbelieve")
                + tuple(f"swap {r}" for r in RANKS[:ANNOUNCEABLE]) + ("timeout",))

    @classmethod
    def describe(cls) -> list[tuple[str, str, str]]:
        """(option, default, allowed) rows for ``bluffsim games``."""
        return [("num_players", "4", "3..6"), ("jokers", "2", "0..48"),
                ("endgame_limit", "200", "decisions once 2 players are left"),
                ("max_turns", "5000", "decisions before truncation"),
                ("joker_swaps", "2", "0..10 per game"),
                ("joker_swap_seats", "()", "seats with the Joker gadget"),
                ("check_seats", "()", "seats with the Check gadget"),
                ("ace_hint_seats", "()", "seats with the 4-Aces gadget"),
                ("first_opener", "-1 (random)", "-1 or a seat"),
                ("turn_order", "clockwise", "clockwise | counterclockwise")]
