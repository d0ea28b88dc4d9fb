"""The terminal display base: what a game's ``display.py`` builds on (below the games).

``bluffsim.play`` (the terminal front end) feeds a game's ``DISPLAY`` class
(a ``GameDisplay`` subclass in ``bluffsim/games/<id>/display.py``) with ``Event`` s;
the games import this module, never the front end.  ``agent_view_text`` is what
``bluffsim games GAME`` prints for an agent's author: the structured observation's
fields for given rules, the action mask, the card types with what each card is worth
(``GameDisplay.card_types``), then the flat tensor's layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Event", "GameDisplay", "agent_view_text"]


# ---------------------------------------------------------------- what a display gets
def as_int(x: Any) -> int:
    """One observation value (a numpy scalar or 0-d array, or an int) as an int."""
    return int(x)


@dataclass
class Event:
    """One decision as a viewer saw it: the input of ``GameDisplay.describe``.

    ``name`` is the full action name when the viewer may see it (their own action
    or a spectator), else only its public part.  ``before`` / ``after`` are the
    viewer's observations around the decision (the actor's for a spectator);
    ``state_before`` / ``state_after`` are given to spectators only.
    """

    actor: int
    name: str
    viewer: int
    before: dict[str, np.ndarray]
    after: dict[str, np.ndarray]
    omniscient: bool = False
    state_before: Any = None
    state_after: Any = None

    @property
    def own(self) -> bool:
        """The viewer made this decision (or watches everything)."""
        return self.omniscient or self.actor == self.viewer

    def hand(self, seat: int, after: bool = True) -> np.ndarray | None:
        """Cards of ``seat`` by type if the viewer may see them (own seat, or a spectator)."""
        if self.omniscient:
            s = self.state_after if after else self.state_before
            return np.asarray(s.hand_counts[seat])
        if seat == self.viewer:
            return np.asarray((self.after if after else self.before)["hand"])
        return None

    def gained(self, seat: int) -> np.ndarray | None:
        """Cards that went into ``seat``'s hand at this decision, if the viewer may see them."""
        a, b = self.hand(seat, True), self.hand(seat, False)
        if a is None or b is None:
            return None
        return np.maximum(a.astype(int) - b.astype(int), 0)


class GameDisplay:
    """Base of the per-game display classes: seat and card wording shared by all games.

    A subclass (in ``bluffsim/games/<id>/display.py``, exported as ``DISPLAY``) sets
    ``card_names`` and implements ``public_action``, ``action_label``, ``status``,
    ``describe``, ``hands_line`` and ``final``.
    """

    card_names: tuple[str, ...] = ()

    def __init__(self, rules: Any, labels: list[str], viewer: int, omniscient: bool = False):
        self.rules = rules
        self.labels = labels
        self.viewer = viewer
        self.omniscient = omniscient

    # -------------------------------------------------------- wording helpers
    def who(self, seat: int) -> str:
        """``seat 2 (counting)``, or ``seat 0 (you)`` for the viewer."""
        if not self.omniscient and seat == self.viewer:
            return f"seat {seat} (you)"
        return f"seat {seat} ({self.labels[seat]})"

    def seat_short(self, seat: int) -> str:
        """``seat 2``, or ``you`` for the viewer."""
        return "you" if not self.omniscient and seat == self.viewer else f"seat {seat}"

    def does(self, seat: int, verb: str) -> str:
        """Subject and verb: ``seat 2 loses`` / ``you lose`` (``verb`` in the plain form)."""
        who = self.seat_short(seat)
        if who == "you":
            return f"you {verb}"
        return f"{who} {verb}es" if verb.endswith(("s", "sh", "ch", "x")) else f"{who} {verb}s"

    def be(self, seat: int) -> str:
        """Subject and "to be": ``seat 2 is`` / ``you are``."""
        who = self.seat_short(seat)
        return "you are" if who == "you" else f"{who} is"

    def poss(self, seat: int) -> str:
        """Possessive: ``seat 2's`` / ``your``."""
        who = self.seat_short(seat)
        return "your" if who == "you" else f"{who}'s"

    def cards(self, counts: Any) -> str:
        """Card counts by type as names, e.g. ``7, 7, joker``; ``no cards`` when empty."""
        names = [self.card_names[t] for t, n in enumerate(np.asarray(counts).tolist())
                 for _ in range(int(n))]
        return ", ".join(names) if names else "no cards"

    @staticmethod
    def count(n: int, what: str) -> str:
        """``a card``, ``two cards``, ``12 cards``: small counts in words (so a count is
        never mistaken for a rank)."""
        words = {1: "a", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
        n = int(n)
        return f"{words.get(n, n)} {what}" + ("" if n == 1 else "s")

    # -------------------------------------------------------- for agents' authors
    @classmethod
    def card_types(cls, rules: Any) -> list[tuple[str, str]]:
        """Per card type (the index of every per-card axis of the observation, e.g. ``hand``):
        its engine name and what the card is worth or does under ``rules`` (and how many the
        deck holds); a game overrides it, the default gives names only."""
        return [(name, "") for name in cls.card_names]

    # -------------------------------------------------------- to implement per game
    def public_action(self, name: str) -> str:
        """The part of an action name every player sees (the whole name by default)."""
        return name

    def action_label(self, name: str, obs: dict[str, np.ndarray]) -> str:
        """How the human's own legal action ``name`` is offered in the menu."""
        return name

    def status(self, obs: dict[str, np.ndarray]) -> list[str]:
        """The table as the viewer sees it at their turn (public state, then their cards)."""
        raise NotImplementedError

    def opening(self, obs: dict[str, np.ndarray]) -> list[str]:
        """Lines printed once at the start (e.g. the first deal), from the viewer's observation."""
        return []

    def describe(self, ev: Event) -> list[str]:
        """Lines for one decision: the action in words, what it revealed, a round's end."""
        raise NotImplementedError

    def hands_parts(self, state: Any) -> list[tuple[str, str]]:
        """Spectator: (what, cards) of a reference state: ``("seat 2", "7, 7, joker")`` per hand
        in play, then the game's other hidden piles (e.g. ``("face down", ...)``)."""
        return [(f"seat {i}", self.cards(h)) for i, h in enumerate(state.hand_counts)]

    def hands_line(self, state: Any, parts: list[tuple[str, str]] | None = None) -> str:
        """Spectator: ``hands_parts`` (or ``parts``, e.g. only those that changed) in one line:
        ``seat 0: … | seat 1: … || face down: …``."""
        parts = self.hands_parts(state) if parts is None else parts
        seats = " | ".join(f"{k}: {v}" for k, v in parts if k.startswith("seat "))
        rest = [f"{k}: {v}" for k, v in parts if not k.startswith("seat ")]
        return " || ".join([seats, *rest] if seats else rest)

    @staticmethod
    def game_over(rounds: int, note: str = "") -> str:
        """``=== game over after 3 rounds<note> ===`` (the final screen's heading)."""
        return f"\n=== game over after {rounds} round{'' if rounds == 1 else 's'}{note} ==="

    def final(self, state: Any, rounds: int | None = None) -> list[str]:
        """The final screen: every seat's hand, score or tokens, and place.  ``rounds`` is the
        number of rounds played, the one that ended the game included (``state.num_rounds``
        counts finished rounds only: a game can end mid-round)."""
        raise NotImplementedError


# ---------------------------------------------------------------- bluffsim games GAME
def _aligned(rows: list[tuple[str, ...]], indent: str = "  ") -> list[str]:
    """Rows of cells as left-aligned columns (the last column unpadded)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [(indent + "  ".join([*(c.ljust(w) for c, w in zip(r, widths, strict=False)), r[-1]]))
            .rstrip() for r in rows]


def _shape_text(dims: tuple[str | int, ...], sizes: dict[str, int]) -> str:
    """``[P, K] = [4, 19]`` (named sizes and their values for these rules), ``[]`` for a scalar."""
    named = "[" + ", ".join(map(str, dims)) + "]"
    values = "[" + ", ".join(str(sizes.get(d, d)) if isinstance(d, str) else str(d)
                             for d in dims) + "]"
    return named if named == values else f"{named} = {values}"


def agent_view_text(game_id: str, rules: Any, obs_spec: Any, observe_module: str,
                    display: type[GameDisplay]) -> str:
    """What ``bluffsim games GAME`` prints: the observation an agent's ``act`` gets (key,
    dtype, shape in the game's named sizes and for ``rules``, meaning), its legal mask, the
    card types with their worth (``display.card_types``), and the flat tensor's layout."""
    sizes = obs_spec.sizes(rules)
    actions = len(rules.action_names)
    out = [f"{game_id}, {rules.num_players} players: what act(obs, legal_mask, rng) reads",
           "",
           "obs = game.observe(state): a dict of numpy arrays, batch first (obs[key] has shape "
           "[B, *shape]); agents read only this"]
    rows = [("key", "dtype", "shape", "meaning")]
    rows += [(f.name, f.dtype, _shape_text(tuple(f.dims), sizes), f.meaning)
             for f in obs_spec.fields]
    out += _aligned(rows)
    out.append("  sizes: " + ", ".join(f"{k} = {v}" for k, v in sizes.items())
               + f" (named, and every column explained, in {observe_module}'s docstring)")
    out += ["", f"legal_mask: bool[B, {actions}], a column per action id: game.action_names[i] "
                "is its name, game.action_id(name) its id"]
    cards = display.card_types(rules)
    out += ["", f"card types: the index of every axis of {len(cards)} cards (e.g. hand)"]
    out += _aligned([("index", "card", "worth or role")] + [(str(i), n, w) for i, (n, w) in enumerate(cards)])
    out += ["", f"flat tensor = game.observation_tensor(state): float32[B, "
                f"{obs_spec.tensor_size(rules)}] (learned agents, the Gymnasium env); block, first "
                "index, width, meaning:"]
    out.append(obs_spec.layout_text(rules))
    return "\n".join(out)
