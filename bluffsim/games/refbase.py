"""What every scalar reference engine shares: action naming and the legality check."""

from __future__ import annotations

from typing import Any, ClassVar

from bluffsim.api import IllegalActionError


class RefStateBase:
    """Properties every reference state has; states set ``CARD_NAMES`` (card type -> name)."""

    CARD_NAMES: ClassVar[tuple[str, ...]] = ()
    hand_counts: list[list[int]]
    terminated: bool
    truncated: bool

    @property
    def hands(self) -> list[list[str]]:
        """Per seat, the sorted names of the cards in hand."""
        return [sorted(self.CARD_NAMES[t] for t, n in enumerate(h) for _ in range(n))
                for h in self.hand_counts]

    @property
    def done(self) -> bool:
        """The game is over (terminated or truncated)."""
        return self.terminated or self.truncated


class ReferenceBase:
    """Base of the ``ReferenceGame`` classes: ``action_id`` and ``checked_action``."""

    game_id = ""

    def __init__(self, rules: Any):
        self.rules = rules
        self.action_names: tuple[str, ...] = rules.action_names
        self._ids = {n: i for i, n in enumerate(self.action_names)}

    def legal_actions(self, s: Any) -> list[int]:
        """Legal action ids of the current player (each game implements it)."""
        raise NotImplementedError

    def action_id(self, action: int | str) -> int:
        """Accept an action id or name; an unknown name is an ``IllegalActionError``."""
        if isinstance(action, str):
            if action not in self._ids:
                raise IllegalActionError(f"unknown {self.game_id} action {action!r}")
            return self._ids[action]
        return int(action)

    def checked_action(self, s: Any, action: int | str, always_allowed: tuple[int, ...] = ()) -> int:
        """The action id, after checking it is legal for the current player."""
        a = self.action_id(action)
        if a not in always_allowed and a not in self.legal_actions(s):
            name = self.action_names[a] if 0 <= a < len(self.action_names) else "out of range"
            raise IllegalActionError(
                f"illegal {self.game_id} action {a} ({name}) for seat {s.current_player}")
        return a
