"""Rules object of ``qdv`` (Qui dit vrai ?): options, defaults, validation, deck and actions.

Options (all keyword arguments of ``bluffsim.make("qdv", num_players, ...)``), declared
once in ``OPTIONS`` below (validation, ``bluffsim games`` and this table derive from it):

{options}

Card kinds (index / meaning): ``3*f + (m-1)`` is fruit ``f`` with multiplier
``m`` (names ``strawberry``, ``strawberry x2``, ``strawberry x3``); 18 is
``salad``.  Fruits in circle order (clockwise): strawberry, grape, watermelon,
apricot, cherry, banana.

Action ids (index / meaning), ``S = salads``, ``P = num_players``:

| ids                  | names                 | meaning                                         |
|----------------------|-----------------------|-------------------------------------------------|
| 0..5                 | `+1 <fruit>`          | raise the count by 1, with that fruit           |
| 6..11                | `+2 <fruit>`          | raise the count by 2, with that fruit           |
| 12                   | `vrai`                | the last bid is exact                           |
| 13                   | `menteur`             | the last bid is too high                        |
| 14..19               | `start <fruit>`       | dealer picks the start fruit (centre salad)     |
| 20..20+S             | `salads <k>`          | k of my salads count as the called fruit        |
| 21+S                 | `gain`                | exact-call reward: gain 1 token                 |
| 22+S..20+S+P         | `punish <k>`          | exact-call reward: seat k clockwise loses 1     |

Decisions made here where the seed is silent (also in ``docs/rules.md#qdv``):
- an exhausted challenge deck draws nothing for the rest of the round;
- ``punish`` may only target a player who still has tokens;
- a ``reveal`` picks among the bidder's face-down cards, a ``discard`` among all
  their cards (unrevealed copies of a kind before revealed ones);
- seat ``first_dealer`` (0) deals the first round; seats are numbered clockwise;
- a truncated game (``max_rounds``) ranks survivors by tokens (ties share),
  above every eliminated player, and sets ``truncated`` (not ``terminated``).

Rules as the seed says them (``docs/rules.md#spec-vs-seed``; the seed settles the first three
points):
- **Elimination is immediate.** Seed: "Dès qu'un joueur perd tous ses jetons, il
  est éliminé".  A bidder whose `token` challenge takes their last token is out
  at once (``in_round`` turns False): skipped in turn order, they never bid,
  call, declare salads, gain or get punished again.  Their bid stands and the
  next player still in answers it; their cards stay in their hand and count at
  this round's showdown (the hands shown include theirs), but their salads count
  0 (they no longer declare).  Accused by a right "Menteur !", they lose nothing
  more (they hold nothing); the round record still names them as the loser with
  the amount due (an earlier version let such a player act until the round's end;
  ``docs/rules.md`` has the history).
- **The game ends the moment one player has tokens**, mid-round included (seed:
  "S'il ne reste plus qu'un seul joueur avec des jetons, il est le grand
  vainqueur et la partie est terminée").  A round interrupted so (a `token`
  challenge) has no showdown: it is not counted in ``num_rounds``, writes no
  round record and adds nothing to the bid tallies.
- **Placement by elimination event**: the eliminated rank by the decision that
  eliminated them (later is better); players eliminated by one event (one
  showdown, one `token` card) share a place.  A showdown costs tokens to one
  player and a `token` card to the bidder only, so nobody can any longer be
  taken to 0 together with the last opponent: the former tie-break "the last to
  reach 0 wins alone" is gone with it.
- **No call on one's own bid.** Seed: a call judges "l'annonce du joueur
  précédent".  Whenever the turn comes back to the standing bidder (a ``skip``
  with two players still in the round, eliminated players not counting), they
  must bid: ``vrai`` and ``menteur`` are not offered.  If the count is already at
  the ceiling (``max_count``, no bid left), such a ``skip`` is void: the next
  player answers the bid.
- **Public tallies** (the observation is the agents' memory, ``observe.py``):
  every bid of a round that reached a showdown is set against its fruit's *card
  count* (the value in the hands shown plus the centre card, salads left out,
  since they are declared for the called fruit only); calls are tallied per
  caller and per called bidder (vrai right/wrong, menteur right/wrong); tokens
  actually lost are tallied per cause (`token` card, showdown, punish), with
  gains and punishments given.  The tallies change when a showdown resolves
  (calls, bids) or tokens move, and cover the whole game.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
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

FRUITS = ("strawberry", "grape", "watermelon", "apricot", "cherry", "banana")
NUM_FRUITS = len(FRUITS)
MAX_MULT = 3
SALAD = NUM_FRUITS * MAX_MULT  # kind index of the Fruit salad joker
NUM_KINDS = SALAD + 1
EFFECTS = ("reveal", "discard", "draw", "skip", "reverse", "token")
NUM_EFFECTS = len(EFFECTS)
SEED_TOKENS = {2: 9, 3: 8, 4: 7, 5: 6, 6: 5}

# phases (int8)
PHASE_START, PHASE_BID, PHASE_SALADS, PHASE_REWARD, PHASE_OVER = 0, 1, 2, 3, 4
# calls (int8)
CALL_NONE, CALL_VRAI, CALL_MENTEUR = -1, 0, 1

# public tallies (observe.py): column counts and indices
BID_TALLY = 5       # bids shown, above the card count, equal to it, sum(bid - cards), own cards
CALL_TALLY = 4      # columns of call_tally / called_tally:
VRAI_RIGHT, VRAI_WRONG, MENTEUR_RIGHT, MENTEUR_WRONG = 0, 1, 2, 3
TOKEN_TALLY = 5     # columns of token_tally:
LOST_CHALLENGE, LOST_SHOWDOWN, LOST_PUNISH, GAINED, PUNISHED_OTHER = 0, 1, 2, 3, 4
# the record of the last finished round (results tables and the `last_round` observation)
LAST_ROUND = ("caller", "call", "bidder", "bid_count", "bid_fruit", "true_count", "loser",
              "amount", "gainer", "centre_value")

# fixed action ids
VRAI = 12
MENTEUR = 13
START0 = 14
SALADS0 = 20


def kind_name(kind: int) -> str:
    """Card name of a kind index, e.g. 4 -> 'grape x2', 18 -> 'salad'."""
    if kind == SALAD:
        return "salad"
    fruit, mult = divmod(kind, MAX_MULT)
    return FRUITS[fruit] if mult == 0 else f"{FRUITS[fruit]} x{mult + 1}"


KIND_NAMES = tuple(kind_name(k) for k in range(NUM_KINDS))
KIND_INDEX = {n: k for k, n in enumerate(KIND_NAMES)}
KIND_FRUIT = tuple(-1 if k == SALAD else k // MAX_MULT for k in range(NUM_KINDS))
KIND_MULT = tuple(1 if k == SALAD else k % MAX_MULT + 1 for k in range(NUM_KINDS))


def _default_challenges() -> tuple[str, ...]:
    return tuple(e for e in EFFECTS for _ in range(2))


def _check_multipliers(fm: Any, rules: Any) -> str | None:
    ok = (isinstance(fm, tuple) and 1 <= len(fm) <= 12
          and all(is_int(m) and 1 <= m <= MAX_MULT for m in fm))
    return None if ok else "a tuple of 1..12 multipliers, each 1..3"


def _check_challenges(cd: Any, rules: Any) -> str | None:
    ok = (isinstance(cd, tuple) and len(cd) <= 60
          and all(isinstance(e, str) and e in EFFECTS for e in cd))
    return None if ok else f"up to 60 names among {', '.join(EFFECTS)}"


OPTIONS: tuple[Option, ...] = (
    int_option("num_players", 4, 2, 6, "players at the table"),
    int_option("starting_tokens", None, 1, 60, "tokens each player starts with",
               refusal="1..60 (default: seed table)",
               default_text="seed table 2p:9 3p:8 4p:7 5p:6 6p:5",
               derive=lambda r: SEED_TOKENS[r.num_players]),
    Option("fruit_multipliers", (1, 1, 1, 1, 1, 2, 2, 3), "the cards of each fruit, by multiplier",
           "1..12 values in 1..3", _check_multipliers,
           at=lambda r: ((1,), (3,) * 12),
           past=lambda r: ((), (3,) * 13, (0,), (4,), [1], (1.0,))),
    int_option("salads", 4, 0, 8, "Fruit salad jokers in the deck"),
    Option("challenge_deck", _default_challenges(), "the challenge cards (empty = no challenges)",
           "up to 60 effect names", _check_challenges,
           default_text="2 x each of " + "/".join(EFFECTS),
           at=lambda r: ((), EFFECTS * 10),
           past=lambda r: (EFFECTS * 10 + ("token",), ("joker",), ["token"], (0,))),
    bool_option("challenge_on_landing", True,
                "a challenge on landing on its fruit; false = only passing beyond triggers"),
    int_option("max_rounds", 300, 1, 100_000, "rounds before the game is truncated"),
    int_option("first_dealer", 0, 0, lambda r: r.num_players - 1, "the seat dealing the first round",
               allowed="a seat", refusal=lambda r: f"a seat 0..{r.num_players - 1}"),
)


@declare_options("qdv", OPTIONS)
@dataclass(frozen=True)
class Rules:
    """Validated options of one ``qdv`` game; ``OPTIONS`` gives meaning and ranges."""

    num_players: int = 4
    starting_tokens: int | None = None
    fruit_multipliers: tuple[int, ...] = (1, 1, 1, 1, 1, 2, 2, 3)
    salads: int = 4
    challenge_deck: tuple[str, ...] = _default_challenges()
    challenge_on_landing: bool = True
    max_rounds: int = 300
    first_dealer: int = 0

    __post_init__ = validate_options


    # ------------------------------------------------------------ derived
    @cached_property
    def deck(self) -> tuple[int, ...]:
        """The fruit deck as card kinds in canonical order (fruit by fruit, then salads)."""
        cards = [f * MAX_MULT + m - 1 for f in range(NUM_FRUITS)
                 for m in sorted(self.fruit_multipliers)]
        return tuple(cards + [SALAD] * self.salads)

    @property
    def deck_size(self) -> int:
        """Number of fruit cards (52 by default)."""
        return len(self.deck)

    @cached_property
    def challenge_ids(self) -> tuple[int, ...]:
        """The challenge deck as effect ids, in option order."""
        return tuple(EFFECTS.index(e) for e in self.challenge_deck)

    @property
    def max_count(self) -> int:
        """Highest count a bid may reach: one fruit's total plus all salads (16 by default)."""
        return sum(self.fruit_multipliers) + self.salads

    @property
    def history_len(self) -> int:
        """Room for this many bids in a round's history (bids rise by at least 1)."""
        return self.max_count

    def deal_cap(self, players_in: int) -> int:
        """Most cards one player may be dealt: floor((deck size - 1) / players still in)."""
        return (self.deck_size - 1) // players_in

    @cached_property
    def action_names(self) -> tuple[str, ...]:
        """Action names, index = action id (see the module table)."""
        names = [f"+1 {f}" for f in FRUITS] + [f"+2 {f}" for f in FRUITS]
        names += ["vrai", "menteur"] + [f"start {f}" for f in FRUITS]
        names += [f"salads {k}" for k in range(self.salads + 1)]
        names += ["gain"] + [f"punish {k}" for k in range(1, self.num_players)]
        return tuple(names)

    @property
    def gain_id(self) -> int:
        """Action id of ``gain``."""
        return SALADS0 + self.salads + 1

    @property
    def punish0(self) -> int:
        """Action id of ``punish 1``."""
        return self.gain_id + 1


__doc__ = __doc__.replace("{options}", options_table(OPTIONS))
