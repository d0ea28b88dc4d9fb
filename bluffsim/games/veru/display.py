"""Terminal text of ``veru`` (Верю — не верю) for ``bluffsim play``: actions, table, checks.

Built from the viewer's own observation and the public part of action names.
An opponent's claim is "puts two cards face down, claiming 7s" (printed when
the claim is complete); a Joker swap is "swaps a card for a Joker".  At a check
(the table in ``docs/rules.md#veru-checks``) the checked cards are named to everyone only after a true
"believe"; otherwise only to whom the rules show them (the taker sees what they
take, the claimant knows their own cards, a ``check`` gadget holder sees every
checked claim): the observation's ``last_check_cards`` and ``seen_taken`` say
exactly that.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bluffsim.games.display import Event, GameDisplay
from bluffsim.games.display import as_int as _i
from bluffsim.games.veru import rules as R

PHASES = ("announce", "putting cards", "believe, disbelieve or add", "over")
RANK_PLURAL = {"J": "jacks", "Q": "queens", "K": "kings", "A": "aces"}


def ranks(r: int) -> str:
    """A rank in the plural: ``7s``, ``jacks``."""
    name = R.RANKS[r] if 0 <= r < len(R.RANKS) else "?"
    return RANK_PLURAL.get(name, f"{name}s")


class VeruDisplay(GameDisplay):
    """Wording of ``veru`` for the terminal (see the module docstring)."""

    card_names = R.CARD_NAMES

    @classmethod
    def card_types(cls, rules: Any) -> list[tuple[str, str]]:
        """Per type: engine name and role (ranks have no points: a claim is true when every card
        is the announced rank or a Joker), with the copies in the deck."""
        jokers = (f"{rules.jokers} non-ace cards are replaced by Jokers at the deal"
                  if rules.jokers else "no Jokers with jokers = 0")
        out = [(name, "four in the deck, fewer where a Joker replaced one; four natural ones in "
                      "one hand close the rank (discarded, no longer announced)")
               for name in R.RANKS[:R.ANNOUNCEABLE]]
        out.append((R.RANKS[R.ACE], "four in the deck, never replaced by a Joker; never "
                                    "announced and never closed"))
        out.append(("joker", f"stands for any rank: a claimed card that is a Joker is true; "
                             f"{jokers}"))
        return out

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._bank_at_turn = 0  # Bank size when the current claim's first card went down

    def public_action(self, name: str) -> str:
        """``put 7`` -> ``put``, ``swap 7`` -> ``swap``; the rest is public."""
        word = name.split()[0]
        return word if word in ("put", "swap") else name

    def action_label(self, name: str, obs: dict[str, np.ndarray]) -> str:
        """Menu wording of the human's own legal action."""
        words = name.split()
        rank = _i(obs["claim_rank"])
        claimant = _i(obs["claimant"])
        if words[0] == "announce":
            return f"announce {ranks(R.RANKS.index(words[1]))} (then put one to three cards)"
        if words[0] == "put":
            if _i(obs["phase"]) == R.PHASE_RESPOND:
                return (f"add: put {words[1]} face down, claiming {ranks(rank)} "
                        f"({self.poss(claimant)} claim goes to the Bank)")
            return f"put {words[1]} face down, claiming {ranks(rank)}"
        if name == "done":
            return f"end your claim ({self.count(_i(obs['put_count']), 'card')})"
        if name in ("believe", "disbelieve"):
            word = '"Верю", believe' if name == "believe" else '"Не верю", disbelieve'
            return (f"{word} {self.poss(claimant)} claim ({self.count(_i(obs['claim_count']), 'card')}"
                    f" as {ranks(rank)})")
        if words[0] == "swap":
            return f"swap a {words[1]} of your hand for a Joker (Joker gadget)"
        return name

    # -------------------------------------------------------- the table
    def status(self, obs: dict[str, np.ndarray]) -> list[str]:
        """Round, claim, Bank, closed ranks, last check, gadgets, then my cards."""
        p = self.rules.num_players
        phase = _i(obs["phase"])
        lines = [f"round {_i(obs['num_rounds']) + 1} · phase: {PHASES[min(phase, 3)]} · "
                 f"opener: {self.seat_short(_i(obs['opener']))}"]
        sizes, out, place = obs["hand_sizes"], obs["out"], obs["place"]
        lines.append("cards in hand: " + " · ".join(
            f"{self.seat_short(i)} " + (f"out (place {int(place[i])})" if out[i] else str(int(sizes[i])))
            for i in range(p)))
        claimant, rank = _i(obs["claimant"]), _i(obs["claim_rank"])
        if claimant >= 0:
            lines.append(f"claim on the table: {self.count(_i(obs['claim_count']), 'card')} by "
                         f"{self.seat_short(claimant)}, claimed as {ranks(rank)}")
        bank = np.asarray(obs["bank_sizes"])
        if np.count_nonzero(bank):
            lines.append(f"Bank: {self.count(int(bank.sum()), 'card')} ("
                         + ", ".join(f"{self.seat_short(i)} {int(n)}" for i, n in enumerate(bank) if n)
                         + ")" + (f" · yours in it: {self.cards(obs['my_bank'])}"
                                  if np.count_nonzero(obs["my_bank"]) else ""))
        if np.count_nonzero(obs["my_table"]):
            lines.append(f"your cards on the table: {self.cards(obs['my_table'])}")
        closed = [ranks(r) for r, c in enumerate(np.asarray(obs["closed"]).tolist()) if c]
        lines.append(f"closed ranks: {', '.join(closed) or 'none'} · out of the game: "
                     f"{self.cards(obs['discard_seen'])} face up, "
                     f"{self.count(_i(obs['discard_hidden']), 'card')} unseen")
        check = self.check_text(obs)
        if check:
            lines.append(f"last check: {check}")
        if "known_in_hand" in obs:  # what I know each other seat holds now
            held = np.asarray(obs["known_in_hand"])
            known = [f"{self.seat_short(i)}: {self.cards(held[i])}" for i in range(p)
                     if i != _i(obs["seat"]) and np.count_nonzero(held[i])]
            if known:
                lines.append("cards you know others hold: " + " · ".join(known))
        else:
            seen = np.asarray(obs["seen_taken"])
            known = [f"{self.seat_short(i)}: {self.cards(seen[i])}" for i in range(p)
                     if i != _i(obs["seat"]) and np.count_nonzero(seen[i])]
            if known:
                lines.append("cards you saw go into others' hands (so far): " + " · ".join(known))
        lines += self.record_lines(obs)
        if self.rules.joker_swap_seats and _i(obs["seat"]) in self.rules.joker_swap_seats:
            lines.append(f"Joker swaps left: {_i(obs['swaps_left'])}")
        aces = np.asarray(obs["ace_where"])
        if aces.min() >= 0:
            where = [f"{self.seat_short(i)} {int(aces[i])}" for i in range(p) if aces[i]]
            where += [f"{w} {int(n)}" for w, n in zip(("table", "Bank", "out"), aces[p:], strict=True) if n]
            lines.append(f"aces (4-Aces gadget): {', '.join(where)}")
        left = _i(obs["endgame_left"])
        if left >= 0:
            lines.append(f"two players left: both lose in {self.count(left, 'decision')}")
        lines.append(f"your cards: {self.cards(obs['hand'])}")
        return lines

    def record_lines(self, obs: dict[str, np.ndarray]) -> list[str]:
        """Per-seat public record (the observation's tallies, when it has them)."""
        if "claims_checked" not in obs or "checks" not in obs:
            return []
        checked, checks = np.asarray(obs["claims_checked"]), np.asarray(obs["checks"])
        parts = []
        for i in range(self.rules.num_players):
            bits = []
            if np.count_nonzero(checked[i]):
                bits.append(f"claims found false {int(checked[i][0])}, true {int(checked[i][1])}")
            if np.count_nonzero(checks[i]):
                right, wrong = int(checks[i][0] + checks[i][2]), int(checks[i][1] + checks[i][3])
                bits.append(f"checks right {right}, wrong {wrong}")
            if bits:
                parts.append(f"{self.seat_short(i)}: {'; '.join(bits)}")
        return ["record so far — " + " · ".join(parts)] if parts else []

    def check_text(self, obs: dict[str, np.ndarray]) -> str:
        """The last check in words (from ``last_check``), the cards if this viewer saw them."""
        checker, claimant, kind, truth, taker = np.asarray(obs["last_check"]).tolist()[:5]
        if claimant < 0 and checker < 0:
            return ""
        if kind == 2:
            head = f"{self.seat_short(taker if taker >= 0 else claimant)} ran out of time"
        else:
            verb = "believed" if kind == 0 else "disbelieved"
            head = (f"{self.seat_short(checker)} {verb} {self.poss(claimant)} claim: it was "
                    + ("true" if truth == 1 else "false"))
        cards = np.asarray(obs["last_check_cards"])
        if np.count_nonzero(cards):
            head += f" ({self.cards(cards)})"
        if taker >= 0:
            head += f"; {self.does(taker, 'take')} the table and the Bank"
        elif kind < 2:
            head += "; the table and the Bank went out of the game"
        return head

    def opening(self, obs: dict[str, np.ndarray]) -> list[str]:
        """The deal: cards per seat, ranks closed at the deal, the first opener."""
        p = self.rules.num_players
        sizes = np.asarray(obs["hand_sizes"])
        closed = [ranks(r) for r, c in enumerate(np.asarray(obs["closed"]).tolist()) if c]
        text = ("--- the deal: " + " · ".join(f"{self.seat_short(i)} {int(sizes[i])}" for i in range(p))
                + " cards")
        if closed:
            text += f"; closed at the deal (four in one hand): {', '.join(closed)}"
        return [text + f"; {self.does(_i(obs['opener']), 'open')} ---"]

    # -------------------------------------------------------- one decision
    def describe(self, ev: Event) -> list[str]:
        """The decision in words; a completed claim in one line; a check's end in one sentence."""
        b, a = ev.before, ev.after
        who = self.who(ev.actor)
        words = ev.name.split()
        lines: list[str] = []
        if words[0] == "put" and _i(b["put_count"]) == 0:
            self._bank_at_turn = int(np.asarray(b["bank_sizes"]).sum())
        if words[0] == "announce":
            lines.append(f"{who}: opens round {_i(b['num_rounds']) + 1}, announcing "
                         f"{ranks(R.RANKS.index(words[1]))}")
        elif words[0] in ("put", "done"):
            claim_over = _i(a["phase"]) != R.PHASE_PUT
            if not claim_over:
                if ev.own and len(words) > 1:
                    lines.append(f"{who}: puts {words[1]} face down (up to three)")
            else:
                lines.append(self.claim_line(ev))
        elif words[0] in ("believe", "disbelieve"):
            word = '"Верю" (believes)' if words[0] == "believe" else '"Не верю" (disbelieves)'
            lines.append(f"{who}: {word} {self.poss(_i(b['claimant']))} claim")
            lines.append(self.round_end(ev))
        elif words[0] == "swap":
            card = f"a {words[1]}" if len(words) > 1 else "a card"
            lines.append(f"{who}: swaps {card} for a Joker ({card} leaves the game unseen)")
        elif ev.name == "timeout":
            lines.append(f"{who}: runs out of time (counts as wrong)")
            lines.append(self.round_end(ev))
        else:
            lines.append(f"{who}: {ev.name}")
        if _i(b["endgame_left"]) < 0 <= _i(a["endgame_left"]) and _i(a["phase"]) != R.PHASE_OVER:
            lines.append(f"two players left: if neither is out within "
                         f"{self.count(_i(a['endgame_left']), 'decision')}, both lose")
        if _i(a["phase"]) == R.PHASE_OVER:
            lines.append(self.end_reason(ev))
        return lines

    def claim_line(self, ev: Event) -> str:
        """``seat 1 (counting): puts two cards face down, claiming 7s`` (cards named to their owner)."""
        b, a = ev.before, ev.after
        who = self.who(ev.actor)
        rank = _i(b["claim_rank"])
        n = _i(a["claim_count"]) if _i(a["claimant"]) == ev.actor else _i(b["claim_count"])
        text = f"{who}: puts {self.count(n, 'card')} face down, claiming {ranks(rank)}"
        mine = None
        if ev.omniscient and ev.state_after is not None:
            counts = [0] * R.NUM_TYPES
            for c in ev.state_after.table:
                counts[c] += 1
            mine = counts
        elif ev.actor == ev.viewer:
            mine = a["my_table"]
        if mine is not None and np.asarray(mine).sum():
            text += f" ({self.cards(mine)})"
        bank = int(np.asarray(a["bank_sizes"]).sum())
        if bank > self._bank_at_turn:
            text += f"; the previous claim goes to the Bank ({self.count(bank, 'card')} in it)"
        if _i(a["hand_sizes"][ev.actor]) == 0:
            text += f"; {self.poss(ev.actor)} hand is empty"
        return text

    def round_end(self, ev: Event) -> str:
        """One sentence: who checked whose claim, true or false, what was shown, who took how
        many cards, closed ranks, who went out, who opens next."""
        b, a = ev.before, ev.after
        n = _i(b["num_rounds"]) + 1
        checker, claimant, kind, truth, taker = np.asarray(a["last_check"]).tolist()[:5]
        rank = ranks(_i(b["claim_rank"]))
        count = self.count(_i(b["claim_count"]), "card")
        if kind == 2:
            text = f"round {n} over: {self.seat_short(ev.actor)} ran out of time"
        else:
            verb = "believed" if kind == 0 else "disbelieved"
            right = (kind == 0) == (truth == 1)
            text = (f"round {n} over: {self.seat_short(checker)} {verb} {self.poss(claimant)} "
                    f"claim of {count} as {rank}: it was {'true' if truth == 1 else 'false'}, "
                    f"so {self.seat_short(checker)} guessed {'right' if right else 'wrong'}")
        shown = np.asarray(a["last_check_cards"])
        if ev.omniscient and ev.state_before is not None:
            counts = [0] * R.NUM_TYPES
            for c in ev.state_before.table:
                counts[c] += 1
            shown = np.asarray(counts)
        if kind == 0 and truth == 1:
            text += f"; the cards are shown to all: {self.cards(shown)}"
        elif shown.sum():
            whose = ("cards" if ev.omniscient else "your cards" if claimant == ev.viewer
                     else "cards you saw")
            text += f" ({whose}: {self.cards(shown)})"
        if taker >= 0:
            got = _i(a["taken"][taker]) - _i(b["taken"][taker])
            text += f"; {self.does(taker, 'take')} the table and the Bank ({self.count(got, 'card')})"
            seen = self.seen_moved(ev, taker)
            if seen is not None and seen.sum():
                whose = ("they are" if ev.omniscient else "into your hand" if taker == ev.viewer
                         else "of them you know")
                text += f" — {whose}: {self.cards(seen)}"
        elif kind < 2:
            text += "; the table and the Bank go out of the game (the Bank unseen)"
        closed = [ranks(r) for r in range(R.ANNOUNCEABLE)
                  if bool(a["closed"][r]) and not bool(b["closed"][r])]
        if closed:
            text += f"; {self.does(taker, 'close')} {', '.join(closed)} (four discarded face up)"
        gone = [i for i in range(self.rules.num_players) if bool(a["out"][i]) and not bool(b["out"][i])]
        for i in gone:
            text += f"; {self.seat_short(i)} {'are' if i == self.viewer and not self.omniscient else 'is'}" \
                    f" out (place {int(a['place'][i])})"
        if _i(a["phase"]) != R.PHASE_OVER:
            text += f"; {self.does(_i(a['opener']), 'open')} the next round"
        return text + "."

    def seen_moved(self, ev: Event, taker: int) -> np.ndarray | None:
        """Cards the viewer knows went to ``taker`` at this check (all of them for a spectator)."""
        if ev.omniscient and ev.state_before is not None:
            s = ev.state_before
            counts = np.zeros(R.NUM_TYPES, int)
            for c in s.table:
                counts[c] += 1
            for bank in s.bank:
                counts += np.asarray(bank)
            return counts
        diff = np.asarray(ev.after["seen_taken"])[taker].astype(int) - \
            np.asarray(ev.before["seen_taken"])[taker]
        return diff

    def end_reason(self, ev: Event) -> str:
        """Why the game ended."""
        a = ev.after
        if all(bool(c) for c in np.asarray(a["closed"])):
            return "the game is over: every rank is closed; the players still in rank by fewest cards"
        left = [i for i in range(self.rules.num_players) if not bool(a["out"][i])]
        if len(left) >= 2:
            return ("the game is over: the two-player limit ran out — "
                    f"{' and '.join(self.seat_short(i) for i in left)} both take the last place")
        if left:
            return f"the game is over: the last place for {self.seat_short(left[0])}, still holding cards"
        return "the game is over"

    # -------------------------------------------------------- spectator and end
    def hands_parts(self, state: Any) -> list[tuple[str, str]]:
        """Every hand, the claim on the table and the Bank (spectator view)."""
        parts = [(f"seat {i}", self.cards(h)) for i, h in enumerate(state.hand_counts)
                 if not state.out[i]]
        if state.table:
            counts = [0] * R.NUM_TYPES
            for c in state.table:
                counts[c] += 1
            parts.append(("table", self.cards(counts)))
        if any(map(sum, state.bank)):
            parts.append(("Bank", ", ".join(f"seat {i}: {self.cards(bk)}"
                                            for i, bk in enumerate(state.bank) if sum(bk))))
        return parts

    def final(self, state: Any, rounds: int | None = None) -> list[str]:
        """Every seat: place, cards left, hand."""
        lines = [self.game_over(state.num_rounds if rounds is None else rounds,
                                " (cut by the safety cap: the players still in ranked by fewest "
                                "cards)" if state.truncated else "")]
        order = sorted(range(state.num_players), key=lambda i: (state.placements[i], i))
        for i in order:
            n = sum(state.hand_counts[i])
            lines.append(f"  {self.who(i)}: place {state.placements[i]} · "
                         f"{self.count(n, 'card') if n else 'no cards'} left"
                         + (f" · hand: {self.cards(state.hand_counts[i])}" if n else ""))
        return lines


DISPLAY = VeruDisplay
