"""Rules object of ``veru`` (Верю — не верю): options, validation, cards and action ids.

Options (keyword arguments of ``bluffsim.make("veru", num_players, ...)``), declared once
in ``OPTIONS`` below (validation, ``bluffsim games`` and this table derive from it):

{options}

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

Decisions where the seed is silent (also in ``docs/rules.md#veru``):
- the deal goes round-robin from the first opener, so the first seats of the
  deal hold one card more when 52 does not divide evenly;
- adding starts with the first ``put``: that moment the previous claim joins the Bank;
- after "believe" on a true claim the claim's cards are shown to all, but the
  Bank goes out unseen (the seed: "карты в Банке проверке не подлежат"; ``docs/rules.md``
  says the same);
- a ``swap`` is allowed only before the first action of a turn (announce, put,
  believe or disbelieve); "once per round" = between two checks;
- ``timeout`` with nothing on the table passes the opening to the next player;
- a player who goes out mid-round (their last cards left with a check) is ranked
  at that moment; players leaving at the same moment share a place;
- a safety cap ``max_turns`` (not in the seed) truncates a game that has not
  ended: the players still in rank by fewest cards in hand (``truncated``).

Rules as the seed says them, and observations as memory:
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

from bluffsim.options import (
    Option,
    choice_option,
    declare_options,
    int_option,
    options_table,
    seats_option,
    validate_options,
)

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


OPTIONS: tuple[Option, ...] = (
    int_option("num_players", 4, 3, 6, "players at the table"),
    int_option("jokers", 2, 0, 48, "non-ace cards replaced by Jokers at the deal (0 = classic)",
               refusal="0..48 (the non-ace cards)"),
    int_option("endgame_limit", 200, 1, 100_000, "decisions once two players are left",
               allowed="decisions once 2 players are left", refusal="1..100000 decisions"),
    int_option("max_turns", 5000, 1, 100_000, "decisions before the game is truncated (safety cap)",
               allowed="decisions before truncation", refusal="1..100000 decisions"),
    int_option("joker_swaps", 2, 0, 10, "`swap` gadget uses per game", allowed="0..10 per game"),
    seats_option("joker_swap_seats", "seats with the Joker-swap gadget", "seats with the Joker gadget"),
    seats_option("check_seats", "seats with the Check gadget (see the checked cards at every check)",
                 "seats with the Check gadget"),
    seats_option("ace_hint_seats", "seats with the 4-Aces gadget (see where the aces are)",
                 "seats with the 4-Aces gadget"),
    int_option("first_opener", -1, -1, lambda r: r.num_players - 1,
               "the first opener: a seat, or -1 = drawn at random from the seed",
               allowed="-1 or a seat", default_text="-1 (random)",
               refusal=lambda r: f"-1 (random) or a seat 0..{r.num_players - 1}"),
    choice_option("turn_order", "clockwise", ("clockwise", "counterclockwise"), "the turn order"),
)


@declare_options("veru", OPTIONS)
@dataclass(frozen=True)
class Rules:
    """Validated options of one ``veru`` game (``OPTIONS``)."""

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

    __post_init__ = validate_options


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


__doc__ = __doc__.replace("{options}", options_table(OPTIONS))
