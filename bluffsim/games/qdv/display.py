"""Terminal text of ``qdv`` (Qui dit vrai ?) for ``bluffsim play``: actions, table, rounds.

Everything a human reads is built from their own observation (``observe.py``)
and from public action names; in ``qdv`` every decision is public (bids,
calls, the dealer's start fruit, salad declarations — the count is announced —
and the exact-call reward).  What stays hidden is the hands: they are shown
only at a showdown ("all hands are shown"), except cards turned face up by a
``reveal`` or ``discard`` challenge, and a card drawn by a ``draw`` challenge
is shown to the bidder alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bluffsim.games.display import Event, GameDisplay
from bluffsim.games.display import as_int as _i
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.reference import marker_crosses_start

PHASES = ("start-fruit choice", "bidding", "salad declarations", "exact-call reward", "over")
CALLS = {R.CALL_VRAI: '"Vrai !"', R.CALL_MENTEUR: '"Menteur !"'}
EFFECT_TEXT = {
    "reveal": "a card of the bidder's hand is turned face up",
    "discard": "a card of the bidder's hand is discarded face up",
    "draw": "the bidder draws a card secretly",
    "skip": "the next player loses their turn",
    "reverse": "turn order reverses",
    "token": "the bidder loses a token",
}


def card_label(kind: int) -> str:
    """How a card is named on screen: ``grape``, ``grape (worth 2)`` for the card that counts as
    two grapes (the engine's ``grape x2`` reads like two cards), ``salad``."""
    mult = R.KIND_MULT[kind]
    return R.KIND_NAMES[kind] if kind == R.SALAD or mult == 1 else \
        f"{R.FRUITS[R.KIND_FRUIT[kind]]} (worth {mult})"


def fruits(n: int, fruit: str) -> str:
    """``1 cherry``, ``11 cherries``, ``0 grapes``: a count of a fruit."""
    if n == 1:
        return f"1 {fruit}"
    return f"{n} {fruit[:-1]}ies" if fruit.endswith("y") else f"{n} {fruit}s"


class QdvDisplay(GameDisplay):
    """Wording of ``qdv`` for the terminal (see the module docstring)."""

    card_names = tuple(card_label(k) for k in range(R.NUM_KINDS))

    @classmethod
    def card_types(cls, rules: Any) -> list[tuple[str, str]]:
        """Per kind: engine name and worth (a fruit card counts its multiplier of its fruit, a
        declared salad one of the called fruit), with the copies in ``rules``' deck."""
        out = []
        for k, name in enumerate(R.KIND_NAMES):
            copies = rules.deck.count(k)
            if k == R.SALAD:
                worth = ("Fruit salad joker: each salad its holder declares at a showdown counts "
                         "one of the called fruit; as the centre card, the dealer picks the start "
                         "fruit and it counts one of it")
            else:
                fruit, mult = R.FRUITS[R.KIND_FRUIT[k]], R.KIND_MULT[k]
                worth = f"one card that counts {fruits(mult, fruit)}" + (
                    f" (shown as {card_label(k)!r} in play)" if mult > 1 else "")
            out.append((name, f"{worth} · {copies} in the deck"))
        return out

    # -------------------------------------------------------- small pieces
    @staticmethod
    def bid(count: int, fruit: int) -> str:
        """``5 × grape``."""
        return f"{count} × {R.FRUITS[fruit]}" if fruit >= 0 else f"{count} × ?"

    def standing_bid(self, obs: dict[str, np.ndarray]) -> str:
        """``seat 2's 5 × grape`` or ``the initial bid 2 × grape``."""
        b = self.bid(_i(obs["bid_count"]), _i(obs["bid_fruit"]))
        bidder = _i(obs["bidder"])
        return f"the initial bid {b}" if bidder < 0 else f"{self.poss(bidder)} bid {b}"

    def circle(self, obs: dict[str, np.ndarray]) -> str:
        """The fruit circle clockwise with the start and position markers."""
        start, pos = _i(obs["start"]), _i(obs["bid_fruit"])
        parts = []
        for f, name in enumerate(R.FRUITS):
            marks = [m for m, on in (("start", f == start), ("marker", f == pos)) if on]
            parts.append(f"[{name}: {' + '.join(marks)}]" if marks else name)
        return " → ".join(parts) + " → (back to strawberry)"

    def public_action(self, name: str) -> str:
        """Every ``qdv`` decision is public."""
        return name

    def action_label(self, name: str, obs: dict[str, np.ndarray]) -> str:
        """Menu wording: bids with their count, calls against the standing bid, targets by seat."""
        words = name.split()
        me = _i(obs["seat"])
        if words[0] in ("+1", "+2"):
            count = _i(obs["bid_count"]) + int(words[0][1])
            fruit = R.FRUITS.index(words[1])
            text = f"bid {self.bid(count, fruit)}"
            pos, start = _i(obs["bid_fruit"]), _i(obs["start"])
            if (fruit != pos and _i(obs["challenge_left"]) > 0 and marker_crosses_start(
                    pos, fruit, start, self.rules.challenge_on_landing)):
                text += " (the marker reaches the start: you draw a challenge card)"
            return text
        if name == "vrai":
            return f'call "Vrai !": {self.standing_bid(obs)} is exactly right'
        if name == "menteur":
            return f'call "Menteur !": {self.standing_bid(obs)} is too high'
        if words[0] == "start":
            return f"start the circle at {words[1]}"
        if words[0] == "salads":
            return (f"declare {words[1]} of your salads as "
                    f"{R.FRUITS[_i(obs['bid_fruit'])]}")
        if name == "gain":
            return "gain a token"
        if words[0] == "punish":
            target = (me + int(words[1])) % self.rules.num_players
            return f"make {self.who(target)} lose a token"
        return name

    # -------------------------------------------------------- the table
    def status(self, obs: dict[str, np.ndarray]) -> list[str]:
        """Round, phase, tokens, circle, bids, challenges, face-up cards, then my cards."""
        p = self.rules.num_players
        phase = _i(obs["phase"])
        direction = "clockwise" if _i(obs["direction"]) > 0 else "counterclockwise"
        lines = [f"round {_i(obs['num_rounds']) + 1} · phase: {PHASES[phase]} · dealer: "
                 f"{self.seat_short(_i(obs['dealer']))} · turn order: {direction}"]
        tokens, sizes, in_round = obs["tokens"], obs["hand_sizes"], obs["in_round"]
        lines.append("tokens: " + " · ".join(
            f"{self.seat_short(i)} {int(tokens[i])}" + ("" if in_round[i] else " (out)")
            for i in range(p)))
        lines.append("cards in hand: " + " · ".join(
            f"{self.seat_short(i)} {int(sizes[i])}" for i in range(p) if in_round[i] or sizes[i]))
        lines.append(f"centre card: {self.card_names[_i(obs['centre'])]}")
        lines.append(f"circle (clockwise): {self.circle(obs)}")
        start = _i(obs["start"])
        if start >= 0:
            bids = [f"initial {self.initial_bid(obs)}"]
            for seat, count, fruit in np.asarray(obs["bid_history"]).tolist():
                if seat >= 0:
                    bids.append(f"{self.seat_short(seat)}: {self.bid(count, fruit)}")
            lines.append("bids this round: " + " · ".join(bids))
        turned = [R.EFFECTS[e] for e, n in enumerate(np.asarray(obs["challenges"]).tolist())
                  for _ in range(n)]
        lines.append(f"challenge cards turned this round: {', '.join(turned) or 'none'} · "
                     f"{_i(obs['challenge_left'])} left in the deck")
        face_up = []
        for i in range(p):
            if np.count_nonzero(np.asarray(obs["revealed"])[i]):
                face_up.append(f"{self.does(i, 'show')} {self.cards(obs['revealed'][i])}")
            if np.count_nonzero(np.asarray(obs["discarded"])[i]):
                face_up.append(f"{self.seat_short(i)} discarded {self.cards(obs['discarded'][i])}")
        if face_up:
            lines.append("face-up cards: " + " · ".join(face_up))
        drawn = [f"{self.seat_short(i)} {self.count(n, 'card')}"
                 for i, n in enumerate(np.asarray(obs["drawn"]).tolist()) if n]
        if drawn:
            lines.append("drawn secretly this round: " + " · ".join(drawn))
        if "call_tally" in obs:
            calls = np.asarray(obs["call_tally"])
            parts = [f"{self.seat_short(i)} Vrai {int(r[0])} right/{int(r[1])} wrong, Menteur "
                     f"{int(r[2])} right/{int(r[3])} wrong"
                     for i, r in enumerate(calls) if np.count_nonzero(r)]
            if parts:
                lines.append("calls so far — " + " · ".join(parts))
        if phase in (R.PHASE_SALADS, R.PHASE_REWARD):
            lines += self.showdown_lines(obs)
        if phase == R.PHASE_REWARD:
            lines.append('your "Vrai !" was exact: gain a token, or make another player lose one')
        lines.append(f"your cards: {self.cards(obs['hand'])}")
        return lines

    def initial_bid(self, obs: dict[str, np.ndarray]) -> str:
        """The centre card's bid: its fruit (the start) with its multiplier (1 for a salad)."""
        centre = _i(obs["centre"])
        return self.bid(R.KIND_MULT[centre], _i(obs["start"]))

    def showdown_lines(self, obs: dict[str, np.ndarray]) -> list[str]:
        """The hands shown at the showdown, the declarations and the count so far."""
        p = self.rules.num_players
        fruit = R.FRUITS[_i(obs["bid_fruit"])]
        lines = [f"showdown: {self.seat_short(_i(obs['caller']))} called "
                 f"{CALLS.get(_i(obs['call']), '?')} on {self.standing_bid(obs)}"]
        hands = np.asarray(obs["showdown_hands"])
        lines += [f"  hand shown by {self.seat_short(i)}: {self.cards(hands[i])}"
                  for i in range(p) if np.count_nonzero(hands[i])]
        declared = [f"{self.seat_short(i)} {k}" for i, k in enumerate(np.asarray(obs["declared"]))
                    if k >= 0]
        lines.append(f"  {fruit} counted so far: {_i(obs['showdown_count'])}"
                     + (f" (salads declared: {', '.join(declared)})" if declared else ""))
        return lines

    # -------------------------------------------------------- one decision
    def describe(self, ev: Event) -> list[str]:
        """The decision in words, challenge effects by name, showdowns and the round's end."""
        b, a = ev.before, ev.after
        who = self.who(ev.actor)
        words = ev.name.split()
        lines: list[str] = []
        round_over = _i(a["num_rounds"]) != _i(b["num_rounds"]) or _i(a["phase"]) == R.PHASE_OVER
        if words[0] in ("+1", "+2"):
            count = _i(b["bid_count"]) + int(words[0][1])
            fruit = R.FRUITS.index(words[1])
            moved = "" if fruit == _i(b["bid_fruit"]) else f" (the marker moves to {words[1]})"
            lines.append(f"{who}: bids {self.bid(count, fruit)}{moved}")
            lines += self.challenge_lines(ev)
        elif ev.name in ("vrai", "menteur"):
            call = R.CALL_VRAI if ev.name == "vrai" else R.CALL_MENTEUR
            lines.append(f"{who}: calls {CALLS[call]} on {self.standing_bid(b)} — all hands "
                         "are shown")
            lines += self.shown_hands(b, a)
        elif words[0] == "start":
            lines.append(f"{who}: as dealer, starts the circle at {words[1]} (the centre "
                         f"salad counts as one {words[1]}; initial bid 1 × {words[1]})")
        elif words[0] == "salads":
            k = int(words[1])
            fruit = R.FRUITS[_i(b["bid_fruit"])]
            lines.append(f"{who}: declares {self.count(k, 'salad')} as {fruit}"
                         if k else f"{who}: declares no salad as {fruit}")
        elif ev.name == "gain":
            lines.append(f"{who}: takes the exact-call reward: gains a token")
        elif words[0] == "punish":
            target = (ev.actor + int(words[1])) % self.rules.num_players
            lines.append(f"{who}: takes the exact-call reward: {self.does(target, 'lose')} "
                         "a token")
        else:
            lines.append(f"{who}: {ev.name}")
        if round_over:
            lines.append(self.round_end(ev))
            if _i(a["phase"]) != R.PHASE_OVER:
                lines.append(self.new_round(a))
        return lines

    def shown_hands(self, b: dict[str, np.ndarray], a: dict[str, np.ndarray]) -> list[str]:
        """The hands and the count of the called fruit before salads (a call's showdown)."""
        hands = np.asarray(a["showdown_hands"])
        p = self.rules.num_players
        fruit = R.FRUITS[_i(b["bid_fruit"])]
        lines = [f"  hand shown by {self.seat_short(i)}: {self.cards(hands[i])}"
                 for i in range(p) if np.count_nonzero(hands[i])]
        # the declaring order: clockwise from the caller, players still in the round only (one
        # knocked out by a `token` challenge this round shows a hand but never declares)
        caller = _i(a["caller"])
        order = [(caller + k) % p for k in range(p)]
        salads = [i for i in order if hands[i][R.SALAD] and a["in_round"][i]]
        note = (f"; salad holders declare next, in this order: "
                f"{', '.join(self.seat_short(i) for i in salads)}" if salads else "")
        base = _i(a["showdown_count"]) - sum(max(int(k), 0) for k in np.asarray(a["declared"]))
        lines.append(f"  {fruit} counted (centre card included, salads apart): {base}{note}")
        return lines

    def challenge_lines(self, ev: Event) -> list[str]:
        """The challenge card a bid drew, by name, and what it did."""
        b, a = ev.before, ev.after
        diff = np.asarray(a["challenges"]).astype(int) - np.asarray(b["challenges"]).astype(int)
        if _i(a["num_rounds"]) != _i(b["num_rounds"]) or diff.sum() != 1:
            return []
        effect = R.EFFECTS[int(np.argmax(diff))]
        me = ev.actor
        head = f"  challenge card drawn: {effect} — {EFFECT_TEXT[effect]}"
        if effect == "reveal":
            new = np.asarray(a["revealed"])[me].astype(int) - np.asarray(b["revealed"])[me]
            return [head + (f": {self.cards(new)}" if new.sum() else " (no face-down card: no effect)")]
        if effect == "discard":
            new = np.asarray(a["discarded"])[me].astype(int) - np.asarray(b["discarded"])[me]
            return [head + (f": {self.cards(new)} (it no longer counts)" if new.sum()
                            else " (empty hand: no effect)")]
        if effect == "draw":
            if _i(a["drawn"][me]) == _i(b["drawn"][me]):
                return [head + " (the undealt deck is empty: no effect)"]
            got = ev.gained(me)
            return [head + (f": {self.seat_short(me)} drew {self.cards(got)}"
                            if got is not None and got.sum() else "")]
        if effect == "token":
            left = _i(a["tokens"][me])
            return [head + f" ({left} left" + (": out of the game)" if left == 0 else ")")]
        if effect == "reverse":
            d = "clockwise" if _i(a["direction"]) > 0 else "counterclockwise"
            return [head + f" (now {d})"]
        if effect == "skip":
            skipped = self.next_in(a, me)
            if skipped == me:
                return [head]
            if self.next_in(a, skipped) == me:
                return [head + f": {self.be(skipped)} skipped and "
                        f"{self.seat_short(me)} must bid again"]
            return [head + f": {self.be(skipped)} skipped"]
        return [head]

    def next_in(self, obs: dict[str, np.ndarray], seat: int) -> int:
        """Next seat in turn order that is in the round."""
        p, d = self.rules.num_players, _i(obs["direction"])
        for step in range(1, p + 1):
            cand = (seat + d * step) % p
            if obs["in_round"][cand] and obs["tokens"][cand] > 0:
                return cand
        return seat

    def round_end(self, ev: Event) -> str:
        """One sentence: who called what on which bid, the count, who lost or gained how much."""
        b, a = ev.before, ev.after
        n = _i(b["num_rounds"]) + 1
        changes = self.token_changes(b, a)
        call = _i(b["call"])
        if call == R.CALL_NONE and ev.name.split()[0] not in ("vrai", "menteur"):
            alive = [i for i, t in enumerate(np.asarray(a["tokens"]).tolist()) if t > 0]
            last = (f"; only {self.does(alive[0], 'hold')} tokens now" if len(alive) == 1 else "")
            return f"round {n} ends the game, no call: {changes}{last}."
        caller = ev.actor if call == R.CALL_NONE else _i(b["caller"])
        if call == R.CALL_NONE:
            call = R.CALL_VRAI if ev.name == "vrai" else R.CALL_MENTEUR
        fruit = R.FRUITS[_i(b["bid_fruit"])]
        count = _i(a["showdown_count"]) if ev.name.split()[0] in ("vrai", "menteur", "salads") \
            else _i(b["showdown_count"])
        declared = [int(k) for k in np.asarray(a["declared"]) if k > 0]
        salads = f" ({sum(declared)} from declared salads)" if declared else ""
        were = "was" if count == 1 else "were"
        return (f"round {n} over: {self.seat_short(caller)} called {CALLS[call]} on "
                f"{self.standing_bid(b)}; there {were} {fruits(count, fruit)}{salads}; {changes}.")

    def token_changes(self, b: dict[str, np.ndarray], a: dict[str, np.ndarray]) -> str:
        """``seat 2 loses 2 tokens (1 left)``, joined; eliminations said."""
        parts = []
        for i, (t0, t1) in enumerate(zip(np.asarray(b["tokens"]).tolist(),
                                         np.asarray(a["tokens"]).tolist(), strict=True)):
            if t1 < t0:
                parts.append(f"{self.does(i, 'lose')} {self.count(t0 - t1, 'token')} ({t1} left"
                             + (": out of the game)" if t1 == 0 else ")"))
            elif t1 > t0:
                parts.append(f"{self.does(i, 'gain')} {self.count(t1 - t0, 'token')} ({t1} now)")
        return "; ".join(parts) if parts else "nobody loses a token"

    def opening(self, obs: dict[str, np.ndarray]) -> list[str]:
        """What a card is worth (once, when some fruit card counts more than one), then the first
        deal: dealer, centre card, start and initial bid."""
        legend = ('cards: "grape (worth 2)" is one card that counts as two grapes, and so on; '
                  "a plain fruit card counts one; each salad its holder declares at a showdown "
                  "counts one of the called fruit")
        worth = any(m > 1 for m in self.rules.fruit_multipliers)
        return ([legend] if worth else []) + [self.new_round(obs)]

    def new_round(self, a: dict[str, np.ndarray]) -> str:
        """The next deal: dealer, centre card, start and initial bid."""
        centre = _i(a["centre"])
        head = (f"--- round {_i(a['num_rounds']) + 1}: {self.does(_i(a['dealer']), 'deal')}; centre card "
                f"{self.card_names[centre]}")
        if centre == R.SALAD:
            return head + ": the dealer picks the start fruit ---"
        return head + f": the circle starts at {R.FRUITS[_i(a['start'])]}, initial bid " \
                      f"{self.initial_bid(a)} ---"

    # -------------------------------------------------------- spectator and end
    def hands_parts(self, state: Any) -> list[tuple[str, str]]:
        """Every hand in play (spectator view)."""
        return [(f"seat {i}", self.cards(h)) for i, h in enumerate(state.hand_counts)
                if state.in_round[i]]

    def final(self, state: Any, rounds: int | None = None) -> list[str]:
        """Every seat: place, tokens, last hand."""
        lines = [self.game_over(state.num_rounds if rounds is None else rounds,
                                " (cut by the safety cap: ranked by tokens)" if state.truncated
                                else "")]
        order = sorted(range(state.num_players), key=lambda i: (state.placements[i], i))
        for i in order:
            lines.append(f"  {self.who(i)}: place {state.placements[i]} · "
                         f"{self.count(state.tokens[i], 'token')} · hand at the end: "
                         f"{self.cards(state.hand_counts[i])}")
        return lines


DISPLAY = QdvDisplay
