"""``veru`` for the text protocol: short rules, the memory and tallies in words, Russian names.

The view is the display's status (round, hands, the claim on the table, the Bank, closed ranks,
the last check, cards known in others' hands, gadgets, your cards) plus the cards put this
turn, what each seat has picked up and what you saw go there, your own cards gone out unseen,
and every seat's public tallies (claims, checks split by believe / disbelieve, pick-ups,
timeouts, swaps).  Notation: ``announce 7``, ``put 7``, ``put joker``, ``done``, ``believe``,
``disbelieve``, ``swap 7``, face cards in words (``announce queen``, ``put ace``) so that no
letter is mistaken for an article; the parser also reads ``J``/``Q``/``K``/``A``, plurals
(``sevens``, ``7s``), ``I don't believe``, and Russian (верю, не верю, кладу, объявляю, the
rank names двойка … туз, джокер, in any case ending) and numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bluffsim.games.display import as_int as _i
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.display import PHASES, ranks
from bluffsim.text.base import GameText, Obs

RANK_WORDS = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}
RUSSIAN = {
    "двойк*": "2", "тройк*": "3", "четверк*": "4", "пятерк*": "5", "шестерк*": "6",
    "семерк*": "7", "восьмерк*": "8", "девятк*": "9", "десятк*": "10", "валет*": "jack",
    "вальт*": "jack", "дам*": "queen", "корол*": "king", "туз*": "ace", "джокер*": "joker",
    "верю": "believe", "поверю": "believe", "кладу": "put", "положу": "put", "добавляю": "put",
    "объявляю": "announce", "объявить": "announce", "хватит": "done", "готово": "done",
    "меняю": "swap", "заменяю": "swap", "обмен": "swap"}
ENGLISH = {"j": "jack", "q": "queen", "k": "king", "a": "ace", "jacks": "jack", "add": "put",
           "play": "put", "lay": "put", "stop": "done", "finish": "done", "end": "done",
           "doubt": "disbelieve", "trust": "believe", "liar": "disbelieve"}
FILLERS = ("face", "down", "more", "another", "one", "ещё", "еще", "карту", "карты", "как")


def card_word(name: str) -> str:
    """``7``, ``queen``, ``ace``, ``joker``: a card or rank name as the notation writes it."""
    return RANK_WORDS.get(name, name)


class VeruText(GameText):
    """Wording of ``veru`` (module docstring)."""

    languages = ("en", "ru")
    synonyms = {**ENGLISH, **RUSSIAN}
    fillers = FILLERS
    label_phrases = False
    covered = ("phase", "hand", "hand_sizes", "out", "place", "opener", "claimant", "claim_rank",
               "claim_count", "put_count", "my_table", "bank_sizes", "my_bank", "closed",
               "discard_seen", "discard_hidden", "taken", "seen_taken", "last_check",
               "last_check_cards", "swaps_left", "ace_where", "endgame_left", "num_rounds",
               "my_out", "known_in_hand", "claims", "cards_claimed", "claims_checked", "checks",
               "pickups", "timeouts", "swaps_made")

    def context_key(self, obs: Obs) -> tuple[()]:
        """No position phrase depends on the position here (no menu wordings are read)."""
        return ()

    # ------------------------------------------------------------------ rules prompt
    def rules_summary(self) -> str:
        """The rules of veru in short, with this table's numbers."""
        r = self.rules
        order = r.turn_order
        jokers = (f"{r.jokers} random non-ace cards are replaced by Jokers at the deal; a Joker "
                  "counts as any rank." if r.jokers else "There are no Jokers.")
        gadgets = []
        if r.joker_swap_seats:
            gadgets.append(f"seats {', '.join(map(str, r.joker_swap_seats))} have the Joker gadget "
                           f"(`swap <rank>`: a card of that rank, not an ace, becomes a Joker; once "
                           f"per round, {r.joker_swaps} per game, before your first action of a "
                           "turn, not with one card left)")
        if r.check_seats:
            gadgets.append(f"seats {', '.join(map(str, r.check_seats))} have the Check gadget "
                           "(they see the checked cards at every check)")
        if r.ace_hint_seats:
            gadgets.append(f"seats {', '.join(map(str, r.ace_hint_seats))} have the 4-Aces gadget "
                           "(they see where the aces are)")
        lines = [
            "Get rid of your cards first: players who go out first place best. A standard "
            f"52-card deck (suits do not matter) is dealt to all. {jokers} Four cards of one rank "
            "(not aces) in one hand are discarded at once and that rank is closed: it can no "
            "longer be announced.",
            "The opener announces a rank (never aces) and puts 1 to 3 cards face down, claiming "
            "they are all that rank. Play goes " + order + ". The next player either adds 1 to 3 "
            "cards face down (the previous claim goes into the Bank, never checked again, and "
            "the adder now claims their cards are the announced rank), or checks the claim on "
            "the table: \"Верю\" (believe) or \"Не верю\" (disbelieve).",
            "A claim is true when every card in it is the announced rank or a Joker. Believe and "
            "true: the table and the Bank go out of the game and the believer opens. Believe and "
            "false: the believer takes the table and the Bank; the claimant opens. Disbelieve "
            "and false: the claimant takes them; the doubter opens. Disbelieve and true: the "
            "doubter takes them; the claimant opens.",
            "You put ONE card per decision (`put <card>`), then decide again: put another or "
            "`done` (automatic after the third card or when your hand is empty).",
            "A player is out once they have no cards in hand or in the Bank; with an empty hand "
            f"you must believe or disbelieve. With two players left, both lose if the game lasts "
            f"{r.endgame_limit} more decisions.",
        ]
        if gadgets:
            lines.append(f"Gadgets: {'; '.join(gadgets)}.")
        return "\n".join(lines)

    def notation_intro(self) -> str:
        """The sentence before the notation lines."""
        return ("Ranks are written 2 … 10, jack, queen, king, ace; cards also joker. Write one "
                "of:")

    def notation_lines(self) -> list[str]:
        """The actions of veru, with what each means."""
        lines = [
            "`announce <rank>`: as opener, announce the round's rank (not ace, not a closed rank)",
            "`put <card>`: put one card of yours face down under the claim (e.g. `put 7`, "
            "`put ace`, `put joker`); when answering a claim this adds to it. One card per "
            "answer: `put two 7s` is read as `put 7`, and you are asked again",
            "`done`: end your claim after at least one card",
            "`believe`: \"Верю\": check the claim on the table, believing it",
            "`disbelieve`: \"Не верю\": check the claim on the table, doubting it",
        ]
        if self.rules.joker_swap_seats:
            lines.append("`swap <rank>`: Joker gadget: a card of that rank in your hand becomes a "
                         "Joker")
        return lines

    # ------------------------------------------------------------------ the view
    def view_lines(self, obs: Obs) -> list[str]:
        """The display's status, then this turn, pick-ups, memory and tallies, then your cards."""
        d = self.display(self.me(obs))
        lines = list(d.status(dict(obs)))
        you = lines.pop()                          # "your cards: ..." goes last
        lines = [ln for ln in lines if not ln.startswith("record so far")]   # restated below
        if _i(obs["put_count"]):
            lines.append(f"you have put {d.count(_i(obs['put_count']), 'card')} this turn "
                         "(up to three)")
        lines += self.memory_lines(obs, d)
        lines += self.tally_lines(obs, d)
        lines.append(f"phase: {PHASES[min(_i(obs['phase']), 3)]}")
        lines.append(you)
        return lines

    def memory_lines(self, obs: Obs, d: Any) -> list[str]:
        """Pick-ups, the cards you saw go into hands, your cards gone out unseen."""
        lines = []
        taken = np.asarray(obs["taken"])
        if np.count_nonzero(taken):
            lines.append("cards picked up so far: " + " · ".join(
                f"{d.seat_short(i)} {int(n)}" for i, n in enumerate(taken) if n))
        seen = np.asarray(obs["seen_taken"])
        saw = [f"{d.seat_short(i)}: {d.cards(row)}" for i, row in enumerate(seen) if np.count_nonzero(row)]
        if saw:
            lines.append("cards you saw go into hands (so far, yours included): " + " · ".join(saw))
        mine = np.asarray(obs["my_out"])
        if np.count_nonzero(mine):
            lines.append(f"your cards gone out of the game unseen: {d.cards(mine)}")
        return lines

    def tally_lines(self, obs: Obs, d: Any) -> list[str]:
        """Every seat's public record: claims, checks by kind and result, pick-ups, timeouts."""
        claims, cards = np.asarray(obs["claims"]), np.asarray(obs["cards_claimed"])
        checked, checks = np.asarray(obs["claims_checked"]), np.asarray(obs["checks"])
        pickups, timeouts = np.asarray(obs["pickups"]), np.asarray(obs["timeouts"])
        swaps = np.asarray(obs["swaps_made"])
        lines = []
        for i in range(self.rules.num_players):
            parts = []
            if np.count_nonzero(claims[i]):
                parts.append(f"opened {claims[i, 0]} rounds, added to {claims[i, 1]} claims, "
                             f"{cards[i]} cards claimed")
            if np.count_nonzero(checked[i]):
                parts.append(f"their checked claims: {checked[i, 0]} false, {checked[i, 1]} true")
            if np.count_nonzero(checks[i]):
                parts.append(f"believed {checks[i, 0]} right/{checks[i, 1]} wrong, disbelieved "
                             f"{checks[i, 2]} right/{checks[i, 3]} wrong")
            if pickups[i]:
                parts.append(f"took the table {pickups[i]}×")
            if timeouts[i]:
                parts.append(f"timeouts {timeouts[i]}")
            if swaps[i]:
                parts.append(f"Joker swaps {swaps[i]}")
            if parts:
                lines.append(f"{d.poss(i)} record: " + "; ".join(parts))
        return lines

    # ------------------------------------------------------------------ actions
    def action_text(self, action: int) -> str:
        """The action name with face cards in words (``put queen``)."""
        w = self.names[action].split()
        return " ".join([w[0], *(card_word(x) for x in w[1:])])

    def phrases(self, action: int) -> list[str]:
        """The notation and the name, and for checks ``не верю`` / ``don't believe`` forms."""
        text, name = self.action_text(action), self.names[action]
        out = [text, name]
        if name == "disbelieve":
            out += ["не верю", "don t believe", "do not believe", "not believe", "i don t believe"]
        elif name == "believe":
            out += ["i believe you", "i believe it"]
        elif name.startswith("put "):      # "put two 7s" is one card per decision: put 7
            card = text.split()[1]
            out += [f"add {card}"] + [f"put {n} {card}" for n in (1, 2, 3)]
        return out

    def impossible_phrases(self, obs: Obs) -> list[tuple[str, str]]:
        """``announce ace`` (no action id stands for it)."""
        return [("announce ace", "aces cannot be announced: slip them in under another rank")]

    def why_illegal(self, action: int, obs: Obs | None, legal: np.ndarray) -> str:
        """Why a veru action is not legal at this decision."""
        if obs is None:
            return "it is not one of your legal actions now"
        phase, name = _i(obs["phase"]), self.names[action]
        w = name.split()
        hand = np.asarray(obs["hand"])
        if name == "timeout":
            return "timeout is not a move"
        if w[0] == "announce":
            if phase != R.PHASE_ANNOUNCE:
                rank = _i(obs["claim_rank"])
                return ("the round's rank is already announced" +
                        (f": {ranks(rank)}" if rank >= 0 else ""))
            return f"{ranks(action - R.ANNOUNCE0)} are closed"
        if phase == R.PHASE_ANNOUNCE and w[0] in ("put", "done", "believe", "disbelieve"):
            return "you open this round: first announce a rank (announce <rank>), then put cards"
        if w[0] == "put":
            return f"you hold no {card_word(w[1])}"
        if name == "done":
            return ("put at least one card first" if phase == R.PHASE_PUT
                    else "there is no claim of yours to end")
        if name in ("believe", "disbelieve"):
            return "finish your claim first (put another card or done)"
        if self.me(obs) not in self.rules.joker_swap_seats:
            return "you do not have the Joker gadget"
        if _i(obs["swaps_left"]) <= 0:
            return "you have no Joker swaps left"
        if not hand[action - R.SWAP0]:
            return f"you hold no {card_word(w[1])}"
        return ("a swap is allowed once per round, before your first action of a turn, not with "
                "one card left")


TEXT = VeruText
