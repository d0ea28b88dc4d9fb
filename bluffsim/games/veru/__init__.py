"""``veru`` — Верю — не верю: cheat with a Bank of unchecked claims, Jokers and closed ranks."""

from typing import Any

import numpy as np

from bluffsim.games.spec import GameSpec
from bluffsim.games.veru import observe, reference
from bluffsim.games.veru.rules import Rules
from bluffsim.games.veru.vec import VeruGame, VeruState

NAME = "Верю — не верю"
SUMMARY = "cheat with a Bank of unchecked claims, jokers, closed ranks; first out wins"


def claim_false(rounds: Any) -> Any:
    """The checked card did not match the claim (``believe`` is right exactly when it did)."""
    return (rounds["call"].astype(str) == "believe") != rounds["call_right"].astype(bool)


def settled(st: Any, rows: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A seat that went out has its place; the seats still playing all place after it."""
    out = st.out[rows].astype(bool)
    score = np.where(out, -st.place[rows].astype(np.int64), -np.int64(st.place.shape[1] + 1))
    return out[np.arange(rows.size), seats], score


GADGETS = (("joker_swap_seats", (0, 2, 4)), ("check_seats", (1, 2)), ("ace_hint_seats", (0, 3)),
           ("endgame_limit", 30), ("turn_order", "counterclockwise"), ("jokers", 6))

SPEC = GameSpec(
    game_id="veru", name=NAME, summary=SUMMARY, rules=Rules, engine=VeruGame, reference=reference,
    observation=observe, display="bluffsim.games.veru.display",
    seat_columns=("caller", "claimant", "taker"), claim_seat="claimant", claim_false=claim_false,
    claim_columns=("call", "call_right"),
    max_game_length=lambda rules: rules.max_turns, streams=("DEAL", "OPENER", "JOKER"),
    test_tables=((3, (), ""), (4, (), ""), (6, (), ""), (5, GADGETS, "gadgets")),
    play_seats="human,counting,heuristic", watch_seats="counting,heuristic,random",
    settled=settled,
)

__all__ = ["NAME", "SPEC", "SUMMARY", "Rules", "VeruGame", "VeruState"]
