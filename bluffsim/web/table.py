"""One game in the browser: the human's seat against agents, on the reference engine.

A ``WebGame`` is ``bluffsim play``'s game (``bluffsim.play.TerminalGame``: the same agents, the
same display wording, the same information rules) driven by HTTP requests instead of a
terminal.  The agents move server-side as soon as it is their turn (``advance``), drawing from
the streams keyed by (game seed, seat, decision), so a game is a function of its seed and the
human's moves.

What leaves the server (``view``) is built only from the human seat's observation and from the
public part of the other seats' actions: the text protocol's view of the seat
(``bluffsim.text``), its legal actions in the protocol's notation with their menu wording, the
lines ``bluffsim play`` prints for each decision (``Record.lines``), and once the game is over
the final screen (every hand shown) and the game's seed.  The seed is withheld until then:
with it and bluffsim anyone could deal the hidden cards again.

Every human decision is kept as a transcript line in the format of the text agents
(docs/llm.md): the messages the text protocol renders for it, every answer (a button's notation
or the typed text), how each was read, the action, plus ``seconds``, the time from the page
offering the decision to the move.
"""

from __future__ import annotations

import io
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

import bluffsim
from bluffsim.api import BluffsimError
from bluffsim.play import HUMAN, TerminalGame
from bluffsim.text import OK, Parsed, protocol_for
from bluffsim.text.protocol import ANSWER_HELP


class MoveError(BluffsimError):
    """A request the game cannot take (out of turn, illegal, another tab's game); ``status`` is
    the HTTP status it answers with, the message is shown on the page."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _no_input(prompt: str) -> str:
    raise EOFError    # the browser answers through ``WebGame.move``, never a terminal


@dataclass
class Attempt:
    """One answer of the human at the decision under way, as the parser read it."""

    answer: str
    parsed: Parsed


class WebGame:
    """One browser game (module docstring).  ``state`` replaces the deal of ``seed`` (a scripted
    deal); such a game is not reproducible from its seed, so it is never recorded."""

    def __init__(self, setup: Any, number: int, gid: str, seed: int, state: Any = None):
        self.setup, self.number, self.gid, self.seed = setup, number, gid, seed
        self.seat = setup.seat
        self.terminal = TerminalGame(setup.game, setup.seats, seed, setup.rules, read=_no_input,
                                     out=io.StringIO())
        self.recorded = state is None
        if state is not None:
            self.terminal.state = self.terminal.single.clone(state)
        vec = self.terminal.single.vectorised()
        self.protocol = protocol_for(vec, list_legal=False)     # the page lists the moves itself
        self.prompts = protocol_for(vec)                        # the transcripts' messages
        self.lock = threading.Lock()
        self.owner: str | None = None
        self.actions: list[int] = []
        self.decisions: list[dict[str, Any]] = []
        self.attempts: list[Attempt] = []
        self.offered_at: float | None = None
        self.started_at = time.monotonic()
        self.saved = ""          # what the results dir holds of the game once it is over
        single = self.terminal.single
        opening = self.terminal.display.opening(single.observation(self.state, self.seat))
        self.history: list[dict[str, Any]] = [{"seat": None, "lines": list(opening)}] \
            if opening else []
        self.advance()

    @property
    def state(self) -> Any:
        """The reference state of the game."""
        return self.terminal.state

    @property
    def over(self) -> bool:
        """The game has ended."""
        return bool(self.state.done)

    @property
    def my_turn(self) -> bool:
        """The human seat is to move."""
        return not self.over and self.state.current_player == self.seat

    # ------------------------------------------------------------------ playing
    def advance(self) -> None:
        """Let the agents move until it is the human's turn or the game is over."""
        s, single = self.state, self.terminal.single
        while not s.done and s.current_player != self.seat:
            seat = s.current_player
            self.step(seat, single.agent_action(self.terminal.agents[seat], s, self.seed))
        if self.my_turn:
            self.offered_at = time.monotonic()

    def step(self, seat: int, action: int) -> None:
        """Apply one decision and keep the lines the human reads of it."""
        self.actions.append(int(action))
        self.terminal.step(seat, int(action))
        lines = self.terminal.log[-1].lines
        if lines:
            self.history.append({"seat": seat, "lines": list(lines)})

    def seconds(self) -> float:
        """Seconds since the game was dealt."""
        return time.monotonic() - self.started_at

    def claim(self, tab: str) -> None:
        """Give the game to browser tab ``tab`` (the tab that opened it last plays it)."""
        self.owner = tab

    def check_request(self, tab: str, decision: int | None) -> None:
        """Refuse a move from a tab that does not hold the game, after the end, out of turn, or
        made on a page that shows an earlier decision."""
        if self.owner is not None and tab != self.owner:
            raise MoveError(409, "this game is open in another tab, which plays it now; reload "
                                 "this page to play it here instead")
        if self.over:
            raise MoveError(409, "the game is over; start a new game")
        if not self.my_turn:
            raise MoveError(409, "it is not your turn")
        now = int(self.state.num_decisions)
        if decision is not None and decision != now:
            raise MoveError(409, f"this page shows decision {decision} but the game is at decision "
                                 f"{now} (it moved on in another tab or request); reload the page")

    def legal_mask(self) -> np.ndarray:
        """bool[A]: the human's legal actions now."""
        mask = np.zeros(self.terminal.single.num_actions, bool)
        mask[self.terminal.single.legal_actions(self.state)] = True
        return mask

    def move(self, tab: str, decision: int | None, action: int | None = None,
             answer: str | None = None) -> None:
        """Play the human's move, given as an action id (a button) or as text read by the text
        protocol's parser, then the agents' moves up to the human's next turn; ``MoveError``
        when it cannot be played (a text answer that cannot is kept for the transcript)."""
        self.check_request(tab, decision)
        mask = self.legal_mask()
        if action is not None:
            if not (0 <= action < mask.size and mask[action]):
                legal = ", ".join(self.protocol.legal_texts(mask))
                raise MoveError(409, f"action {action} is not a legal move now; legal: {legal}")
            attempt = Attempt(self.protocol.action_text(action), Parsed(action, OK, ""))
        elif isinstance(answer, str):
            obs = self.terminal.single.observation(self.state, self.seat)
            attempt = Attempt(answer, self.protocol.parse(answer, mask, obs))
        else:
            raise MoveError(400, "send a move: {\"action\": <id>} or {\"answer\": \"<text>\"}")
        self.attempts.append(attempt)
        if not attempt.parsed.ok:
            raise MoveError(422, f"{answer!r} cannot be played: {attempt.parsed.reason}")
        self.decisions.append(self.decision_line(mask))
        self.attempts = []
        self.step(self.seat, int(attempt.parsed.action))
        self.advance()

    def decision_line(self, mask: np.ndarray) -> dict[str, Any]:
        """The transcript line of the decision under way (the text agents' format)."""
        s = self.state
        obs = self.terminal.single.observation(s, self.seat)
        messages = self.prompts.messages(obs, mask)
        for a in self.attempts[:-1]:
            messages += [{"role": "assistant", "content": a.answer},
                         self.prompts.rethink(a.parsed)]
        final = self.attempts[-1].parsed
        seconds = time.monotonic() - self.offered_at if self.offered_at is not None else 0.0
        return {"type": "decision", "game": self.number, "seed": self.seed, "seat": self.seat,
                "agent": HUMAN, "decision": int(s.num_decisions), "messages": messages,
                "answers": [a.answer for a in self.attempts],
                "read": [{"outcome": a.parsed.outcome, "reason": a.parsed.reason,
                          "action": None if a.parsed.action is None
                          else self.protocol.action_text(a.parsed.action)} for a in self.attempts],
                "action": int(final.action), "action_text": self.protocol.action_text(final.action),
                "outcome": "ok" if len(self.attempts) == 1 else "rethought",
                "rethinks": len(self.attempts) - 1, "seconds": round(seconds, 3)}

    # ------------------------------------------------------------------ what the page gets
    def view(self) -> dict[str, Any]:
        """Everything the human's page shows now, as JSON-ready data (module docstring)."""
        labels = [s.label for s in self.setup.seats]
        out: dict[str, Any] = {
            "id": self.gid, "number": self.number, "game": self.setup.game,
            "title": f"{bluffsim.spec(self.setup.game).name} ({self.setup.game})",
            "seat": self.seat,
            "players": [{"seat": i, "name": "you" if i == self.seat else labels[i]}
                        for i in range(len(labels))],
            "decision": int(self.state.num_decisions), "turn": self.my_turn, "over": self.over,
            "history": self.history,
        }
        if self.my_turn:
            obs = self.terminal.single.observation(self.state, self.seat)
            mask = self.legal_mask()
            out["view"] = self.protocol.view(obs, mask)
            out["actions"] = [{"id": int(a), "text": self.protocol.action_text(a),
                               "gloss": self.protocol.text.gloss(int(a), obs)}
                              for a in np.flatnonzero(mask)]
        if self.over:
            out.update(self.result())
        return out

    def result(self) -> dict[str, Any]:
        """The end of the game: the final screen (every hand shown), the places, the seed."""
        s = self.state
        place = [int(p) for p in s.placements]
        mine = place[self.seat]
        tied = place.count(mine) > 1
        return {"final": self.terminal.display.final(s, self.terminal.rounds), "placements": place,
                "result": f"you placed {ordinal(mine)}{' (shared)' if tied else ''} of "
                          f"{len(place)}", "won": mine == 1, "seed": str(self.seed),
                "saved": self.saved}


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``."""
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def rules_text(protocol: Any) -> str:
    """The rules, the options in effect and the action notation (the text protocol's rules
    prompt without its advice to language models on how to answer)."""
    return protocol.rules_prompt().replace(ANSWER_HELP, "").strip()
