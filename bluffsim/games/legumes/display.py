"""Terminal text of ``legumes`` (Menteur) for ``bluffsim play``: actions, table, rounds.

Built from the viewer's own observation and the public part of action names: an
opponent's face-down card (``open``, ``play``, ``reverse <card>``) is "a card
face down, claiming <vegetable>" until an accusation reveals it (to everyone,
by name).  Face-up action cards (Vegetable choice, Reverse, Double accusation)
are named; the cards a player draws are shown to that player alone, and a
Bomb's pile goes to the accuser's hand as a count for everyone else.  Also
words ``reverse <card>`` and ``accept`` (``docs/rules.md#legumes``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bluffsim.games.display import Event, GameDisplay
from bluffsim.games.display import as_int as _i
from bluffsim.games.legumes import rules as R

PHASES = ("open a round", "play or accuse", "over")


def _veg(v: int) -> str:
    return R.VEGETABLES[v] if 0 <= v < R.NUM_VEG else "?"


def card_name(t: int) -> str:
    """``carrot-2``, ``Bomb``, ``Vegetable choice``, ``Reverse``, ``Double accusation``."""
    return {R.BOMB: "Bomb", R.CHOICE: "Vegetable choice", R.REVERSE: "Reverse",
            R.DOUBLE: "Double accusation"}.get(t, R.CARD_NAMES[t])


class LegumesDisplay(GameDisplay):
    """Wording of ``legumes`` for the terminal (see the module docstring)."""

    card_names = tuple(card_name(t) for t in range(R.NUM_TYPES))

    @classmethod
    def card_types(cls, rules: Any) -> list[tuple[str, str]]:
        """Per type: engine name and worth (the number a revealed vegetable makes the loser
        draw, points left in hand at the end; the action cards' effects), with the copies."""
        actions = {
            R.BOMB: "played face down and revealed by an accusation, the accuser takes the "
                    "discard pile, the round's cards and the Bomb",
            R.CHOICE: "played face up (choice <vegetable>): calls a new vegetable",
            R.REVERSE: "played face up (reverse <card>): the turn order reverses, the next "
                       "player may not accuse",
            R.DOUBLE: "played face up with an accusation (accuse double): the loser draws twice "
                      "as many",
        }
        out = []
        for t, name in enumerate(R.CARD_NAMES):
            points = R.CARD_POINTS[t]
            if t in actions:
                lie = "" if t == R.BOMB else (f"; played face down and revealed, its player "
                                              f"draws {rules.action_lie_penalty}")
                worth = (f"action card, {points} points in hand at the end; {actions[t]}{lie} · "
                         "one per player at the deal")
            else:
                veg, n = R.VEGETABLES[t // 3], t % 3 + 1
                worth = (f"a {veg}: revealed by an accusation, the loser draws {n}; {points} "
                         f"point{'' if points == 1 else 's'} in hand at the end (fewest points "
                         f"win) · {rules.numbers[n - 1]} in the deck")
            out.append((name, worth))
        return out

    def public_action(self, name: str) -> str:
        """Face-down cards are dropped: ``play carrot-1`` -> ``play``, ``open pea-2 leek`` ->
        ``open leek``, ``reverse pea-2`` -> ``reverse card``."""
        words = name.split()
        if words[0] == "play":
            return "play"
        if words[0] == "open":
            return f"open {words[-1]}"
        if words[0] == "reverse" and len(words) > 1:
            return "reverse card"
        return name

    @staticmethod
    def named(text: str) -> str:
        """An engine card name in words (``bomb`` -> ``Bomb``)."""
        return card_name(R.CARD_NAMES.index(text)) if text in R.CARD_NAMES else text

    def action_label(self, name: str, obs: dict[str, np.ndarray]) -> str:
        """Menu wording of the human's own legal action."""
        words = name.split()
        called = _veg(_i(obs["called"]))
        last = _i(obs["last_owner"])
        if words[0] == "open":
            return f"open the round: {self.named(words[1])} face down, calling {words[2]}"
        if words[0] == "play":
            return f"play {self.named(words[1])} face down, claiming {called}"
        if name == "accuse":
            return f'accuse {self.seat_short(last)} ("Menteur !"): reveal their last card'
        if name == "accuse double":
            return (f"accuse {self.seat_short(last)} with the Double accusation "
                    "(the loser draws double)")
        if words[0] == "choice":
            return f"Vegetable choice face up: call {words[1]}"
        barred = self.seat_short(self.after_reverse(_i(obs["seat"]), -_i(obs["direction"])))
        if name == "reverse":
            return (f"Reverse face up (alone): turn order reverses; the next player ({barred}) "
                    "may not accuse")
        if words[0] == "reverse":
            return (f"Reverse face up with {self.named(words[1])} face down, claiming {called}: "
                    f"turn order reverses; the next player ({barred}) may not accuse it")
        if name == "accept":
            return f"accept {self.poss(last)} last card (the game ends)"
        return name

    def after_reverse(self, seat: int, direction: int) -> int:
        """Who plays after ``seat`` in turn order ``direction`` (+1 clockwise): after a Reverse,
        the one player who may not accuse (RULES.md §2)."""
        return (seat + direction) % self.rules.num_players

    # -------------------------------------------------------- the table
    def status(self, obs: dict[str, np.ndarray]) -> list[str]:
        """Round, called vegetable, the round's cards, piles, last reveal, then my cards."""
        p = self.rules.num_players
        phase = _i(obs["phase"])
        direction = "clockwise" if _i(obs["direction"]) > 0 else "counterclockwise"
        called = _i(obs["called"])
        lines = [f"round {_i(obs['num_rounds']) + 1} · phase: {PHASES[min(phase, 2)]} · turn "
                 f"order: {direction} · called vegetable: "
                 + (_veg(called) if called >= 0 else "none yet")]
        sizes = np.asarray(obs["hand_sizes"])
        lines.append("cards in hand: " + " · ".join(f"{self.seat_short(i)} {int(sizes[i])}"
                                                    for i in range(p)))
        n_down = _i(obs["face_down_count"])
        if n_down:
            last = _i(obs["last_owner"])
            lines.append(f"this round: {self.count(n_down, 'card')} face down; the last one "
                         f"by {self.seat_short(last)}, claimed as {_veg(_i(obs['last_called']))}")
        if n_down and "fd_claims" in obs:
            claims = np.asarray(obs["fd_claims"])
            by = [f"{self.seat_short(i)} " + ", ".join(f"{int(n)} as {_veg(v)}"
                                                       for v, n in enumerate(row) if n)
                  for i, row in enumerate(claims) if np.count_nonzero(row)]
            lines.append("face-down cards this round by player: " + " · ".join(by))
        if np.count_nonzero(obs["face_up"]):
            lines.append(f"face up this round: {self.cards(obs['face_up'])}")
        if np.count_nonzero(obs["my_face_down"]):
            lines.append(f"your face-down cards this round: {self.cards(obs['my_face_down'])}")
        if bool(np.asarray(obs["after_reverse"])):
            lines.append("no accusation now: the last move was a Reverse")
        known = np.asarray(obs["discard_revealed"])
        pile = f"discard pile: {self.count(_i(obs['discard_size']), 'card')}"
        if np.count_nonzero(known):
            pile += f" (known: {self.cards(known)})"
        reshuffles = _i(obs["reshuffles"])
        pile += f" · draw pile: {self.count(_i(obs['draw_size']), 'card')}"
        if reshuffles:
            pile += " (already rebuilt once: when it runs out again the game ends)"
        lines.append(pile)
        reveal = self.reveal_text(np.asarray(obs["last_reveal"]).tolist(), None)
        if reveal:
            lines.append(f"last reveal: {reveal}")
        if "accused_tally" in obs:
            acc = np.asarray(obs["accused_tally"])
            parts = [f"{self.seat_short(i)} {int(row.sum())}× (the truth {int(row[0])}, "
                     f"a lie {int(row[1])}, the Bomb {int(row[2])})"
                     for i, row in enumerate(acc) if np.count_nonzero(row)]
            if parts:
                lines.append("accused so far — " + " · ".join(parts))
        lines.append(f"your cards: {self.cards(obs['hand'])}")
        return lines

    def reveal_text(self, last: list[int], called: int | None) -> str:
        """``seat 2 accused seat 1: pea-3, a lie; seat 1 draws three cards`` (from
        ``last_reveal``); empty before the first accusation."""
        accuser, accused, card, doubled, taker, n = last[:6]
        if accuser < 0 or card < 0:
            return ""
        how = " with the Double accusation" if doubled else ""
        head = f"{self.seat_short(accuser)} accused {self.seat_short(accused)}{how}"
        if card == R.BOMB:
            return (f"{head}: the card was the Bomb; {self.does(taker, 'take')} the discard pile "
                    f"and the round's cards ({self.count(n, 'card')})")
        if card < R.BOMB:
            truth = (card // 3 == called) if called is not None else taker == accuser
            verdict = (f"the truth ({_veg(card // 3)} as claimed)" if truth
                       else "a lie" + (f" (claimed {_veg(called)})" if called is not None else ""))
        else:
            verdict = "a lie (an action card)"
        return (f"{head}: the card was {card_name(card)}, {verdict}; "
                f"{self.does(taker, 'draw')} {self.count(n, 'card')}")

    # -------------------------------------------------------- one decision
    def describe(self, ev: Event) -> list[str]:
        """The decision in words; an accusation's reveal and the round's end in one sentence."""
        b, a = ev.before, ev.after
        who = self.who(ev.actor)
        words = ev.name.split()
        called = _veg(_i(b["called"]))
        lines: list[str] = []
        if words[0] == "open":
            card = (f"{self.named(words[1])} face down" if len(words) == 3
                    else "a card face down")
            lines.append(f"{who}: opens round {_i(b['num_rounds']) + 1}: {card}, claiming {words[-1]}")
        elif words[0] == "play":
            card = f"{self.named(words[1])} face down" if len(words) > 1 else "a card face down"
            lines.append(f"{who}: plays {card}, claiming {called}")
        elif words[0] == "accuse":
            how = " with the Double accusation" if len(words) > 1 else ""
            lines.append(f'{who}: accuses {self.seat_short(_i(b["last_owner"]))}{how} ("Menteur !")')
            lines.append(f"round {_i(b['num_rounds']) + 1} over: "
                         + self.reveal_text(np.asarray(a["last_reveal"]).tolist(),
                                            _i(b["last_called"])) + ".")
            lines += self.drawn_lines(ev)
        elif words[0] == "choice":
            lines.append(f"{who}: plays Vegetable choice face up: the called vegetable is now "
                         f"{words[1]}")
        elif ev.name == "reverse":
            barred = self.seat_short(self.after_reverse(ev.actor, _i(a["direction"])))
            lines.append(f"{who}: plays Reverse face up, alone: turn order reverses; the next "
                         f"player ({barred}) may not accuse")
        elif words[0] == "reverse":
            card = "a card" if words[1] == "card" else self.named(words[1])
            barred = self.seat_short(self.after_reverse(ev.actor, _i(a["direction"])))
            lines.append(f"{who}: plays Reverse face up with {card} face down, claiming {called}: "
                         f"turn order reverses; the next player ({barred}) may not accuse it")
        elif ev.name == "accept":
            lines.append(f"{who}: accepts {self.poss(_i(b['last_owner']))} last card")
        else:
            lines.append(f"{who}: {ev.name}")
        sizes = np.asarray(a["hand_sizes"])
        if (words[0] in ("open", "play", "reverse", "choice") and sizes[ev.actor] == 0
                and _i(a["phase"]) != R.PHASE_OVER):
            lines.append(f"  that was {self.poss(ev.actor)} last card")
        if _i(a["phase"]) == R.PHASE_OVER:
            lines.append(self.end_reason(ev))
        return lines

    def drawn_lines(self, ev: Event) -> list[str]:
        """The cards the viewer received at a reveal (nobody else sees them)."""
        taker = _i(np.asarray(ev.after["last_reveal"])[4])
        got = ev.gained(taker) if taker >= 0 else None
        if got is None or not got.sum():
            return []
        return [f"  {self.does(taker, 'get')}: {self.cards(got)}"]

    def end_reason(self, ev: Event) -> str:
        """Why the game ended, in one sentence."""
        a = ev.after
        sizes = np.asarray(a["hand_sizes"])
        empty = [i for i in range(self.rules.num_players) if sizes[i] == 0]
        if ev.name == "accept":
            return (f"the game is over: {self.poss(_i(ev.before['last_owner']))} last card "
                    "was accepted")
        if empty:
            hands = " and ".join(self.poss(i) for i in empty)
            return (f"the game is over: {hands} hand is empty" if len(empty) == 1
                    else f"the game is over: {hands} hands are empty")
        if _i(a["draw_size"]) == 0:
            return "the game is over: the draw pile ran out a second time"
        return "the game is over"

    # -------------------------------------------------------- spectator and end
    def hands_parts(self, state: Any) -> list[tuple[str, str]]:
        """Every hand, and this round's face-down cards with their owners (spectator view)."""
        parts = [(f"seat {i}", self.cards(h)) for i, h in enumerate(state.hand_counts)]
        down = getattr(state, "face_down", [])
        if down:
            parts.append(("face down", ", ".join(f"{card_name(c)} (seat {o})" for o, c, *_ in down)))
        return parts

    def final(self, state: Any, rounds: int | None = None) -> list[str]:
        """Every seat: place, score, hand."""
        lines = [self.game_over(state.num_rounds if rounds is None else rounds,
                                " (cut by the safety cap)" if state.truncated else "")]
        scores = state.scores()
        order = sorted(range(state.num_players), key=lambda i: (state.placements[i], i))
        for i in order:
            lines.append(f"  {self.who(i)}: place {state.placements[i]} · score {scores[i]} · "
                         f"hand: {self.cards(state.hand_counts[i])}")
        return lines


DISPLAY = LegumesDisplay
