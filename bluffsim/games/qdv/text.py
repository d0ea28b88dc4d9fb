"""``qdv`` for the text protocol: short rules, the public record in words, bids read as counts.

The view is the display's status (round, tokens, circle, this round's bids, challenges, face-up
cards, calls so far, your cards) plus the standing bid, the undealt deck, the last showdown
(call, count, hands shown, salads declared, its bids, who lost or gained) and every seat's
public tallies.  Notation: the action names (``+1 grape``, ``+2 cherry``, ``vrai``,
``menteur``, ``start banana``, ``salads 2``, ``gain``, ``punish 1``); at a decision the parser
also reads the bid itself (``bid 6 grapes``, ``6 raisins``) and ``punish seat 3``, and French
names (fraise, raisin, pastèque, abricot, cerise, banane, salade) and numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bluffsim.games.display import as_int as _i
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.display import CALLS, PHASES, fruits
from bluffsim.text.base import GameText, Obs

FRENCH = {"fraise": "strawberry", "raisin": "grape", "pasteque": "watermelon",
          "abricot": "apricot", "cerise": "cherry", "banane": "banana", "salade": "salads",
          "salad": "salads", "gagner": "gain", "gagne": "gain", "menteuse": "menteur",
          "liar": "menteur", "depart": "start", "debut": "start", "commencer": "start",
          "annonce": "bid", "annoncer": "bid", "mise": "bid", "raise": "bid", "jeton": "token",
          "aucune": "no", "aucun": "no"}


class QdvText(GameText):
    """Wording of ``qdv`` (module docstring)."""

    languages = ("en", "fr")
    synonyms = FRENCH
    label_phrases = False
    covered = ("phase", "hand", "hand_sizes", "tokens", "in_round", "dealer", "direction",
               "centre", "start", "bid_count", "bid_fruit", "bidder", "num_bids", "bid_history",
               "revealed", "discarded", "drawn", "challenges", "challenge_left", "undealt_left",
               "call", "caller", "showdown_hands", "declared", "showdown_count", "num_rounds",
               "last_round", "last_bid_history", "bid_tally", "call_tally", "called_tally",
               "token_tally")

    # ------------------------------------------------------------------ rules prompt
    def rules_summary(self) -> str:
        """The rules of qdv in short, with this table's numbers."""
        r = self.rules
        tokens = r.starting_tokens if r.starting_tokens is not None else R.SEED_TOKENS[r.num_players]
        per_fruit = sum(r.fruit_multipliers)
        chal = (f"Changing fruit moves the position marker clockwise round the circle; if it "
                f"passes{' or lands on' if r.challenge_on_landing else ''} the start fruit, the "
                "bidder turns a challenge card and it acts on them at once: reveal (a random card "
                "of theirs face up), discard (a random card of theirs discarded face up, it no "
                "longer counts), draw (they draw a card secretly), skip (the next player loses "
                "their turn), reverse (turn order reverses), token (they lose a token)."
                if r.challenge_deck else "There are no challenge cards.")
        return "\n".join([
            f"Each player starts with {tokens} tokens; the last player with tokens wins. Each "
            "round every player is dealt as many secret fruit cards as they have tokens.",
            f"Fruits, in circle order: {', '.join(R.FRUITS)}. Each fruit's cards are worth "
            f"{per_fruit} in all (multipliers x1, x2, x3 count that many); there are {r.salads} "
            "Fruit salad jokers.",
            "A card turned face up in the centre starts the round: its fruit is the start of the "
            "circle and the initial bid is its multiplier of that fruit (a centre salad: the "
            "dealer picks the fruit, initial bid 1).",
            "In turn (clockwise from the dealer's left), a player raises the count of the "
            "standing bid by 1 or 2, naming any fruit (a bid says: at least that many of that "
            "fruit in all hands plus the centre card), or calls: \"Vrai !\" (the standing bid "
            "is exact) or \"Menteur !\" (it is too high). Nobody calls on their own bid, and "
            "Menteur is not allowed on the initial bid.",
            chal,
            "At a call all hands are shown and the bid fruit is counted with multipliers, the "
            "centre card included; salad holders then declare how many of their salads count "
            "as that fruit.",
            "Vrai and exact: the caller gains a token or makes another player lose one. Vrai and "
            "not exact: the caller loses |bid - count| + 1. Menteur and the count is below the "
            "bid: the bidder loses bid - count + 1; else the caller loses count - bid + 1. "
            "A player with no tokens is out at once.",
        ])

    def notation_intro(self) -> str:
        """The sentence before the notation lines."""
        return "Write one of:"

    def notation_lines(self) -> list[str]:
        """The actions of qdv, with what each means."""
        return [
            f"`+1 <fruit>` or `+2 <fruit>`: raise the standing count by 1 or 2 with that fruit "
            f"({', '.join(R.FRUITS)}); e.g. with 4 x cherry standing, `+2 grape` bids 6 x grape "
            "(you may also write the bid itself: `bid 6 grape`)",
            "`vrai`: call \"Vrai !\": the standing bid is exactly right",
            "`menteur`: call \"Menteur !\": the standing bid is too high",
            "`start <fruit>`: as dealer with a salad in the centre, start the circle at that fruit",
            "`salads <k>`: at the showdown, declare k of your salads as the called fruit (0 .. all)",
            "`gain`: after your exact Vrai, gain a token",
            "`punish <k>`: after your exact Vrai, make the player k seats clockwise from you lose a "
            "token (or write `punish seat N`)",
        ]

    # ------------------------------------------------------------------ the view
    def view_lines(self, obs: Obs) -> list[str]:
        """The display's status, then the standing bid, the deck, the last showdown, tallies."""
        d = self.display(self.me(obs))
        lines = list(d.status(dict(obs)))
        you = lines.pop()                      # "your cards: ..." goes last
        phase = _i(obs["phase"])
        if phase == R.PHASE_BID:
            lines.append(f"standing bid: {d.standing_bid(obs)}")
        lines.append(f"fruit cards left undealt: {_i(obs['undealt_left'])}")
        lines += self.last_showdown_lines(obs, d)
        lines += self.tally_lines(obs, d)
        lines.append(you)
        return lines

    def last_showdown_lines(self, obs: Obs, d: Any) -> list[str]:
        """The most recent finished showdown: call, count, losses, hands, salads, bids."""
        last = dict(zip(R.LAST_ROUND, np.asarray(obs["last_round"]).tolist(), strict=True))
        if last["caller"] < 0:
            return []
        call = CALLS.get(last["call"], "?")
        bidder = last["bidder"]
        bid = d.bid(last["bid_count"], last["bid_fruit"])
        whose = "the initial bid" if bidder < 0 else f"{d.poss(bidder)} bid"
        fruit = R.FRUITS[last["bid_fruit"]] if last["bid_fruit"] >= 0 else "?"
        what = [f"last showdown: {d.seat_short(last['caller'])} called {call} on {whose} {bid}; "
                f"there were {fruits(last['true_count'], fruit)} (the centre card added "
                f"{last['centre_value']})"]
        if last["loser"] >= 0:
            what.append(f"{d.does(last['loser'], 'lose')} {d.count(last['amount'], 'token')}")
        if last["gainer"] >= 0:
            what.append(f"{d.does(last['gainer'], 'gain')} a token")
        lines = ["; ".join(what)]
        if _i(obs["phase"]) not in (R.PHASE_SALADS, R.PHASE_REWARD):   # else: this round's, above
            hands = np.asarray(obs["showdown_hands"])
            shown = [f"{d.seat_short(i)}: {d.cards(h)}" for i, h in enumerate(hands) if np.count_nonzero(h)]
            if shown:
                lines.append("  hands shown there: " + " · ".join(shown))
            declared = [f"{d.seat_short(i)} {k}" for i, k in
                        enumerate(np.asarray(obs["declared"]).tolist()) if k >= 0]
            if declared:
                lines.append("  salads declared there: " + ", ".join(declared))
        bids = [f"{d.seat_short(s)}: {d.bid(c, f)}" for s, c, f in
                np.asarray(obs["last_bid_history"]).tolist() if s >= 0]
        if bids:
            lines.append("  bids of that round: " + " · ".join(bids))
        return lines

    def tally_lines(self, obs: Obs, d: Any) -> list[str]:
        """Every seat's public record over the whole game (bids, calls against them, tokens)."""
        bids, called = np.asarray(obs["bid_tally"]), np.asarray(obs["called_tally"])
        tok = np.asarray(obs["token_tally"])
        lines = []
        for i in range(self.rules.num_players):
            parts = []
            if bids[i, 0]:
                parts.append(f"{bids[i, 0]} bids shown at showdowns ({bids[i, 1]} above the card "
                             f"count, {bids[i, 2]} equal; total bid minus card count "
                             f"{bids[i, 3]:+d}; own cards of the bid fruit {bids[i, 4]})")
            if np.count_nonzero(called[i]):
                parts.append(f"calls on their bids: Vrai {called[i, 0]} right/{called[i, 1]} "
                             f"wrong, Menteur {called[i, 2]} right/{called[i, 3]} wrong")
            if np.count_nonzero(tok[i]):
                parts.append(f"tokens lost to challenges {tok[i, 0]}, at showdowns {tok[i, 1]}, "
                             f"to punish {tok[i, 2]}; gained {tok[i, 3]}; punished others "
                             f"{tok[i, 4]}")
            if parts:
                lines.append(f"{d.poss(i)} record: " + "; ".join(parts))
        return lines

    # ------------------------------------------------------------------ actions
    def phrases(self, action: int) -> list[str]:
        """The name, plus ``declare k salads`` / ``no salads``, ``start the circle at f``."""
        name = self.names[action]
        out = [name]
        w = name.split()
        if w[0] == "salads":
            out += [f"{w[1]} salads", f"declare {w[1]} salads", f"declare {w[1]}"]
            if w[1] == "0":
                out += ["no salads", "declare no salads", "declare none"]
        elif w[0] == "start":
            out += [f"start circle {w[1]}", f"start at {w[1]}"]
        elif name == "gain":
            out += ["gain token", "gain 1 token"]
        elif name == "vrai":
            out += ["qui dit vrai", "call vrai"]
        elif name == "menteur":
            out += ["call menteur"]
        return out

    def context_phrases(self, action: int, obs: Obs) -> list[str]:
        """The bid a raise makes (``bid 6 grape``, ``6 grape``) and the seat a punish targets."""
        name = self.names[action]
        w = name.split()
        if w[0] in ("+1", "+2") and _i(obs["phase"]) == R.PHASE_BID:
            n = _i(obs["bid_count"]) + int(w[0][1])
            return [f"bid {n} {w[1]}", f"{n} {w[1]}", f"bid {n} x {w[1]}", f"{n} x {w[1]}"]
        if w[0] == "punish":
            target = (self.me(obs) + int(w[1])) % self.rules.num_players
            return [f"punish seat {target}", f"punish player {target}"]
        return []

    def context_key(self, obs: Obs) -> tuple[int, int, int, int]:
        """Phase, standing bid and seat: all the position phrases below read."""
        return _i(obs["phase"]), _i(obs["bid_count"]), _i(obs["bid_fruit"]), self.me(obs)

    def impossible_phrases(self, obs: Obs) -> list[tuple[str, str]]:
        """Bids no raise reaches from the standing count (too low, too high, above the cap)."""
        if _i(obs["phase"]) != R.PHASE_BID:
            return []
        cur, fruit = _i(obs["bid_count"]), _i(obs["bid_fruit"])
        top = self.rules.max_count
        standing = f"{cur} x {R.FRUITS[fruit]}" if fruit >= 0 else str(cur)
        out = []
        for n in range(0, top + 3):
            if n in (cur + 1, cur + 2) and n <= top:
                continue
            if n > top:
                why = f"no bid can go above {top}"
            elif n <= cur:
                why = f"the bid must exceed {standing}"
            else:
                why = f"a bid raises the count by 1 or 2 ({standing} stands: bid {cur + 1} or {cur + 2})"
            out += [(f"bid {n} {f}", why) for f in R.FRUITS]
        return out

    def hint_phrases(self, obs: Obs) -> list[tuple[str, str]]:
        """Bare counts of a fruit no raise reaches (``8 grapes``), read when nothing else is."""
        return [(p[len("bid "):], why) for p, why in self.impossible_phrases(obs)]

    def why_illegal(self, action: int, obs: Obs | None, legal: np.ndarray) -> str:
        """Why a qdv action is not legal at this decision."""
        if obs is None:
            return "it is not one of your legal actions now"
        name, phase, me = self.names[action], _i(obs["phase"]), self.me(obs)
        w = name.split()
        now = f"it is the {PHASES[phase]} phase"
        if w[0] in ("+1", "+2"):
            if phase != R.PHASE_BID:
                return f"{now}, not bidding"
            return f"the count cannot go above {self.rules.max_count}"
        if name in ("vrai", "menteur"):
            if phase != R.PHASE_BID:
                return f"{now}, not bidding"
            if _i(obs["bidder"]) == me:
                return "nobody calls on their own bid"
            return "Menteur is not allowed on the initial bid (the centre card)"
        if w[0] == "start":
            return "only the dealer picks the start fruit, when a salad is the centre card"
        if w[0] == "salads":
            if phase != R.PHASE_SALADS:
                return f"{now}, salads are declared at the showdown"
            held = int(np.asarray(obs["hand"])[R.SALAD])
            return f"you hold {held} salad{'' if held == 1 else 's'}"
        if phase != R.PHASE_REWARD:
            return f"{now}; gain and punish follow your exact Vrai only"
        target = (me + int(w[1])) % self.rules.num_players if w[0] == "punish" else me
        return f"seat {target} has no tokens left"


TEXT = QdvText
