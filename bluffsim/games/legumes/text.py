"""``legumes`` for the text protocol: short rules, the memory and tallies in words, French names.

The view is the display's status (round, called vegetable, this round's face-down and face-up
cards, piles, the last reveal, accusations so far, your cards) plus the pending last card,
every card revealed so far, your own cards gone to the discard pile or known in a rebuilt draw
pile, the known cards each Bomb put in a hand, and the public tallies.  Notation: the action
names (``open carrot-1 leek``, ``play bomb``, ``accuse``, ``accuse double``, ``choice pea``,
``reverse``, ``reverse tomato-3``, ``accept``); the parser also reads ``carrot 1`` / ``1
carrot``, ``Vegetable choice``, ``Double accusation``, ``calling`` / ``claiming`` between card
and vegetable, ``menteur`` for ``accuse``, and French names (carotte, tomate, poireau, chou,
radis, pois, bombe, choix, changement de direction, double accusation, accepter) and numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bluffsim.games.display import as_int as _i
from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.display import PHASES, card_name
from bluffsim.text.base import GameText, Obs

FRENCH = {"carotte": "carrot", "tomate": "tomato", "poireau": "leek", "chou": "cabbage",
          "choux": "cabbage", "radis": "radish", "pois": "pea", "bombe": "bomb", "choix": "choice",
          "legume": "vegetable", "accuser": "accuse", "menteur": "accuse", "menteuse": "accuse",
          "liar": "accuse", "accepter": "accept",
          "accepte": "accept", "jouer": "play", "joue": "play", "pose": "play", "poser": "play",
          "put": "play", "ouvrir": "open", "ouvre": "open", "inverser": "reverse"}
FILLERS = ("calling", "claiming", "call", "claim", "announcing", "announce", "face", "down",
           "up", "saying", "called", "annoncant", "annonce", "en", "petit", "petits", "from",
           "hand", "round", "this")
ACTION_CARD_WORDS = {R.BOMB: ("bomb",), R.CHOICE: ("choice", "vegetable choice", "legume au choix"),
                     R.REVERSE: ("reverse", "changement de direction"),
                     R.DOUBLE: ("double", "double accusation")}


def card_words(t: int) -> tuple[str, ...]:
    """Ways of naming card type ``t``: ``carrot-2`` / ``2 carrot``, ``Vegetable choice``, ..."""
    if t < R.BOMB:
        veg, n = R.VEGETABLES[t // 3], t % 3 + 1
        return (f"{veg}-{n}", f"{n} {veg}")
    return ACTION_CARD_WORDS[t]


def card_of(action: int) -> int | None:
    """The card type an action plays (face down, or Vegetable choice face up), or None."""
    if action < R.PLAY0:
        return (action - R.OPEN0) // R.NUM_VEG
    if action < R.ACCUSE:
        return action - R.PLAY0
    if R.CHOICE0 <= action < R.REVERSE_ID:
        return R.CHOICE
    if action >= R.REVERSE_PLAY0:
        return action - R.REVERSE_PLAY0
    return None


class LegumesText(GameText):
    """Wording of ``legumes`` (module docstring)."""

    languages = ("en", "fr")
    synonyms = FRENCH
    fillers = FILLERS
    label_phrases = False
    covered = ("phase", "hand", "hand_sizes", "called", "direction", "face_down_count",
               "last_owner", "last_called", "my_face_down", "face_up", "after_reverse",
               "discard_size", "discard_revealed", "draw_size", "reshuffles", "revealed_total",
               "last_reveal", "pending", "num_rounds", "my_discard", "reshuffled_known",
               "fd_claims", "taken_known", "accused_tally", "accuser_tally", "shown_tally",
               "drawn_tally", "bomb_taken")

    def context_key(self, obs: Obs) -> tuple[()]:
        """No position phrase depends on the position here (no menu wordings are read)."""
        return ()

    # ------------------------------------------------------------------ rules prompt
    def rules_summary(self) -> str:
        """The rules of legumes in short, with this table's numbers."""
        r = self.rules
        ones, twos, threes = r.numbers
        reverse = ("Reverse (face up, alone: the turn order reverses and the next player may not "
                   "accuse)" if r.reverse_alone else
                   "Reverse (face up together with one card face down claimed as the called "
                   "vegetable: the turn order reverses and the next player may not accuse; "
                   "played alone only as your last card)")
        return "\n".join([
            "Fewest points at the end wins: vegetable cards score their number, action cards 10.",
            f"Vegetables: {', '.join(R.VEGETABLES)}; each has cards printed 1, 2 and 3 "
            f"({ones}, {twos} and {threes} of them). Every player holds the four action cards "
            f"(Bomb, Vegetable choice, Reverse, Double accusation) and {r.hand_size} dealt "
            "vegetable cards; the rest is the draw pile.",
            "The opener puts any card face down and names a vegetable: the called vegetable of "
            "the round. In turn, each next player either plays any card face down, claiming it "
            "is the called vegetable, or accuses (\"Menteur !\") the player of the last face-down "
            "card: it is turned over.",
            "Revealed: the called vegetable (truth): the accuser draws its number of cards; "
            "another vegetable (a lie): its player draws its number; the Bomb: the accuser takes "
            "the whole discard pile and this round's cards into hand; another action card: its "
            f"player draws {r.action_lie_penalty}. The Double accusation, played with an "
            "accusation, doubles what the loser draws. The player who received cards opens the "
            "next round.",
            f"Face-up action cards: Vegetable choice (call a new vegetable, no other card); "
            f"{reverse}.",
            "The game ends when a player's last card goes face down and the next player accepts "
            "it (or it cannot be accused), when a hand is otherwise empty, or when the draw pile "
            "runs out for the second time (the first time, the discard pile is shuffled into a "
            "new draw pile).",
        ])

    def notation_intro(self) -> str:
        """The sentence before the notation lines."""
        return ("Cards are written carrot-1 … pea-3, bomb, choice, reverse, double. Write one "
                "of:")

    def notation_lines(self) -> list[str]:
        """The actions of legumes, with what each means."""
        return [
            "`open <card> <vegetable>`: open the round with that card face down, calling that "
            "vegetable (e.g. `open leek-2 carrot`)",
            "`play <card>`: put that card face down, claiming the called vegetable",
            "`accuse`: \"Menteur !\": reveal the last face-down card; `accuse double`: the same "
            "with your Double accusation (the loser draws double)",
            "`choice <vegetable>`: play Vegetable choice face up, calling that vegetable",
            "`reverse <card>`: play Reverse face up with that card face down (claimed as the "
            "called vegetable); `reverse`: Reverse face up alone",
            "`accept`: accept the last card of a player who has no other card (the game ends)",
        ]

    # ------------------------------------------------------------------ the view
    def view_lines(self, obs: Obs) -> list[str]:
        """The display's status, then the pending card, memory and tallies, then your cards."""
        d = self.display(self.me(obs))
        lines = list(d.status(dict(obs)))
        you = lines.pop()                          # "your cards: ..." goes last
        lines.append(f"phase: {PHASES[min(_i(obs['phase']), 2)]}")
        pending = _i(obs["pending"])
        if pending >= 0:
            lines.append(f"{d.poss(pending)} last card lies face down: accuse it or accept it")
        lines += self.memory_lines(obs, d)
        lines += self.tally_lines(obs, d)
        lines.append(you)
        return lines

    def memory_lines(self, obs: Obs, d: Any) -> list[str]:
        """Cards revealed so far, your cards in the piles, cards known to be in hands."""
        lines = []
        for key, text in (("revealed_total", "every card revealed by accusations so far"),
                          ("my_discard", "your face-down cards now in the discard pile, unrevealed"),
                          ("reshuffled_known", "cards you knew were in the discard pile when it "
                                               "became the draw pile")):
            cards = np.asarray(obs[key])
            if np.count_nonzero(cards):
                lines.append(f"{text}: {d.cards(cards)}")
        taken = np.asarray(obs["taken_known"])
        known = [f"{d.seat_short(i)}: {d.cards(row)}" for i, row in enumerate(taken) if np.count_nonzero(row)]
        if known:
            lines.append("known cards Bombs put into hands (so far): " + " · ".join(known))
        return lines

    def tally_lines(self, obs: Obs, d: Any) -> list[str]:
        """Every seat's public record: accusations made, action cards shown, cards drawn, taken."""
        accuser, shown = np.asarray(obs["accuser_tally"]), np.asarray(obs["shown_tally"])
        drawn, bomb = np.asarray(obs["drawn_tally"]), np.asarray(obs["bomb_taken"])
        lines = []
        for i in range(self.rules.num_players):
            parts = []
            if np.count_nonzero(accuser[i]):
                parts.append(f"accused others {accuser[i].sum()}× (revealed the truth "
                             f"{accuser[i, 0]}, a lie {accuser[i, 1]}, the Bomb {accuser[i, 2]})")
            if np.count_nonzero(shown[i]):
                parts.append("showed " + ", ".join(
                    f"{card_name(t)} {n}×" for t, n in zip(R.ACTION_CARDS, shown[i].tolist(),
                                                           strict=True) if n))
            if drawn[i]:
                parts.append(f"drew {d.count(drawn[i], 'card')}")
            if bomb[i]:
                parts.append(f"took {d.count(bomb[i], 'card')} with Bombs")
            if parts:
                lines.append(f"{d.poss(i)} record: " + "; ".join(parts))
        return lines

    # ------------------------------------------------------------------ actions
    def phrases(self, action: int) -> list[str]:
        """The name, with every way of naming its card and vegetable."""
        name = self.names[action]
        out = [name]
        if action < R.PLAY0:
            t, v = divmod(action - R.OPEN0, R.NUM_VEG)
            veg = R.VEGETABLES[v]
            out += [f"open {c} {veg}" for c in card_words(t)]
        elif action < R.ACCUSE:
            out += [f"play {c}" for c in card_words(action - R.PLAY0)]
        elif action == R.ACCUSE:
            out += ["menteur", "call menteur"]
        elif action == R.ACCUSE_DOUBLE:
            out += ["accuse double accusation", "double accusation", "accuse with double",
                    "menteur double", "accuse double"]
        elif action < R.REVERSE_ID:
            veg = R.VEGETABLES[action - R.CHOICE0]
            out += [f"vegetable choice {veg}", f"choice {veg}", f"legume au choix {veg}"]
        elif action == R.REVERSE_ID:
            out += ["reverse alone", "changement de direction", "changement de direction alone"]
        elif action >= R.REVERSE_PLAY0:
            for c in card_words(action - R.REVERSE_PLAY0):
                out += [f"reverse {c}", f"reverse and {c}", f"changement de direction {c}"]
        return out

    def why_illegal(self, action: int, obs: Obs | None, legal: np.ndarray) -> str:
        """Why a legumes action is not legal at this decision."""
        if obs is None:
            return "it is not one of your legal actions now"
        hand = np.asarray(obs["hand"])
        phase = _i(obs["phase"])
        if phase == R.PHASE_OPEN and action >= R.PLAY0:
            return "you open this round: write open <card> <vegetable>"
        if phase != R.PHASE_OPEN and action < R.PLAY0:
            return "the round is already open: play a card, accuse, or play an action card"
        if _i(obs["pending"]) >= 0 and action not in (R.ACCUSE, R.ACCUSE_DOUBLE, R.ACCEPT):
            return "a player's last card lies face down: accuse it or accept it"
        if action in (R.ACCUSE, R.ACCUSE_DOUBLE):
            if bool(np.asarray(obs["after_reverse"])):
                return "nobody may accuse directly after a Reverse"
            if _i(obs["face_down_count"]) == 0:
                return "there is no face-down card to accuse"
            if _i(obs["last_owner"]) == self.me(obs):
                return "the last face-down card is yours"
            if action == R.ACCUSE_DOUBLE and not hand[R.DOUBLE]:
                return "you do not hold the Double accusation"
        if action == R.ACCEPT:
            return "accept only answers a player's last face-down card"
        card = card_of(action)
        if card is not None and not hand[card]:
            return f"you hold no {card_name(card)}"
        if action >= R.REVERSE_PLAY0 and not hand[R.REVERSE]:
            return "you hold no Reverse"
        if action >= R.REVERSE_PLAY0 and card == R.REVERSE:
            return "reverse reverse needs two Reverse cards"
        if action == R.REVERSE_ID:
            return ("Reverse alone is played only as your last card; write reverse <card> to "
                    "play it with a card face down")
        return "it is not one of your legal actions now"


TEXT = LegumesText
