"""``bluffsim play``: play a game in the terminal against bluffsim agents.

Every seat is ``human`` or an agent name.  At a human's turn the screen shows
that seat's whole information set (its cards by name, then every other field of
its observation), then the numbered legal actions; answer with a number or an
action name.  Between turns it prints what each opponent did and what changed
in the human's view (revealed cards, showdowns, counts), so nothing the rules
show is missed and nothing hidden is shown.  Bad input re-prompts; end of input
(Ctrl-D) or ``q`` leaves the game.  The game runs on the reference engine and is
reproducible from ``--seed`` (printed at the start).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any, TextIO

import numpy as np

import agents as agent_registry
from bluffsim.adapters.single import SingleGame
from bluffsim.api import BluffsimError

HUMAN = "human"


def _id_names() -> dict[str, dict[str, tuple[str, ...]]]:
    """Per game, the observation fields that hold one id and the names of those ids."""
    from bluffsim.games.legumes import rules as legumes
    from bluffsim.games.qdv import rules as qdv
    from bluffsim.games.veru import rules as veru

    return {"qdv": {"centre": qdv.KIND_NAMES, "start": qdv.FRUITS, "bid_fruit": qdv.FRUITS},
            "veru": {"claim_rank": veru.RANKS},
            "legumes": {"called": legumes.VEGETABLES, "last_called": legumes.VEGETABLES}}


ID_NAMES = _id_names()


def parse_seats(text: str) -> list[str]:
    """Seat list from ``human,counting,heuristic``; unknown agents raise ``BluffsimError``."""
    seats = [s.strip() for s in text.split(",") if s.strip()]
    allowed = [HUMAN, *agent_registry.list_agents()]
    for s in seats:
        if s not in allowed:
            raise BluffsimError(f"--seats: unknown seat {s!r}; allowed: {', '.join(allowed)}")
    if HUMAN not in seats:
        raise BluffsimError("--seats: name at least one 'human' seat, e.g. human,counting")
    return seats


def card_names(state: Any, counts: np.ndarray) -> str:
    """Card counts by type as a readable list of names."""
    names = type(state).CARD_NAMES
    return " ".join(names[t] for t, n in enumerate(np.asarray(counts).tolist())
                    for _ in range(int(n))) or "-"


def show(state: Any, value: Any, names: tuple[str, ...] = ()) -> str:
    """A field as text: an id by its name (``names``; -1 is "-"), card-count arrays (last
    axis = card types) by card names, anything else as numbers."""
    arr = np.asarray(value)
    if names and arr.ndim == 0:
        return names[int(arr)] if 0 <= int(arr) < len(names) else "-"
    if arr.ndim >= 1 and arr.shape[-1] == len(type(state).CARD_NAMES) and arr.min(initial=0) >= 0:
        rows = arr.reshape(-1, arr.shape[-1])
        text = [card_names(state, r) for r in rows]
        return text[0] if arr.ndim == 1 else " | ".join(f"{i}: {t}" for i, t in enumerate(text))
    if arr.ndim == 2:  # a history padded with rows of -1: show the rows in use
        arr = arr[~(arr == -1).all(axis=1)]
    return str(arr.tolist())


def describe_view(obs: dict[str, np.ndarray], state: Any, game_id: str) -> list[str]:
    """One line per observation field; the hand first, ids and card arrays by name."""
    names = ID_NAMES.get(game_id, {})
    lines = [f"  your cards: {card_names(state, obs['hand'])}"]
    for key, value in obs.items():
        if key != "hand":
            lines.append(f"  {key}: {show(state, value, names.get(key, ()))}")
    return lines


def changed(state: Any, game_id: str, before: dict[str, np.ndarray],
            after: dict[str, np.ndarray]) -> list[str]:
    """Fields of a view that changed, as ``key: old -> new``."""
    names = ID_NAMES.get(game_id, {})
    return [f"    {k}: {show(state, before[k], names.get(k, ()))} -> "
            f"{show(state, v, names.get(k, ()))}"
            for k, v in after.items() if not np.array_equal(before[k], v)]


class TerminalGame:
    """One game between humans at this terminal and agents."""

    def __init__(self, game_id: str, seats: list[str], seed: int, options: dict[str, Any],
                 read: Callable[[str], str] = input, out: TextIO = sys.stdout):
        self.single = SingleGame(game_id, len(seats), **options)
        self.seats, self.seed = seats, seed
        vec = self.single.vectorised()
        self.agents = {i: agent_registry.make(name, vec) for i, name in enumerate(seats)
                       if name != HUMAN}
        self.read, self.out = read, out
        self.state = self.single.new_state(seed)

    def say(self, text: str = "") -> None:
        """Print a line."""
        print(text, file=self.out, flush=True)

    def play(self) -> bool:
        """Play to the end; False if a human quit."""
        s = self.state
        self.say(f"{self.single.game_id}, seed {self.seed}: "
                 + ", ".join(f"seat {i} {name}" for i, name in enumerate(self.seats)))
        humans = [i for i, n in enumerate(self.seats) if n == HUMAN]
        views = {i: self.single.observation(s, i) for i in humans}
        while not s.done:
            seat = s.current_player
            if seat in self.agents:
                action = self.single.agent_action(self.agents[seat], s, self.seed)
            else:
                action = self.ask(seat)
                if action is None:
                    self.say("left the game.")
                    return False
            self.say(f"seat {seat} ({self.seats[seat]}): {self.single.action_names[action]}")
            rounds = s.num_rounds
            self.single.apply(s, action)
            if s.num_rounds != rounds:
                self.say(f"--- round {rounds + 1} over ---")
            for i in humans:
                new = self.single.observation(s, i)
                diff = changed(s, self.single.game_id, views[i], new)
                if diff and len(humans) == 1:
                    self.say("  what you see changed:")
                    for line in diff:
                        self.say(line)
                views[i] = new
        self.result()
        return True

    def ask(self, seat: int) -> int | None:
        """Show ``seat``'s view and read a legal action (None when the human quits)."""
        s = self.state
        legal = self.single.legal_actions(s)
        self.say(f"\n=== seat {seat}, your turn ===")
        for line in describe_view(self.single.observation(s, seat), s, self.single.game_id):
            self.say(line)
        for n, a in enumerate(legal):
            self.say(f"  [{n}] {self.single.action_names[a]}")
        while True:
            try:
                answer = self.read(f"seat {seat}, your move (0-{len(legal) - 1}, name, q): ").strip()
            except EOFError:
                return None
            if answer == "q":
                return None
            if answer.isdigit() and int(answer) < len(legal):
                return legal[int(answer)]
            names = [self.single.action_names[a] for a in legal]
            if answer in names:
                return legal[names.index(answer)]
            self.say(f"  {answer!r} is not a legal choice: enter a number 0-{len(legal) - 1} "
                     f"or one of the action names listed")

    def result(self) -> None:
        """Final placements and rewards."""
        s = self.state
        self.say(f"\n=== game over after {s.num_rounds} rounds"
                 + (" (cut by the safety cap)" if s.truncated else "") + " ===")
        for i, (name, place, r) in enumerate(zip(self.seats, s.placements,
                                                 self.single.rewards(s), strict=True)):
            self.say(f"  seat {i} ({name}): place {place}, reward {r:+.2f}")


def play_in_terminal(game_id: str, seats_text: str, seed: int | None,
                     options: dict[str, Any]) -> int:
    """``bluffsim play`` body: exit status 0 when the game finished, 1 when a human left."""
    seats = parse_seats(seats_text)
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    return 0 if TerminalGame(game_id, seats, seed, options).play() else 1
