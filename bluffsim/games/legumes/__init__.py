"""``legumes`` — Menteur: a vegetable cheat with action cards; lowest score wins."""

from typing import Any

from bluffsim.games.legumes import observe, reference
from bluffsim.games.legumes.rules import Rules
from bluffsim.games.legumes.vec import LegumesGame, LegumesState
from bluffsim.games.spec import GameSpec

NAME = "Menteur (légumes)"
SUMMARY = "vegetable cheat with Bomb, Vegetable choice, Reverse and Double accusation cards"


def claim_false(rounds: Any) -> Any:
    """The accused card was a lie (an accusation is right exactly then)."""
    return rounds["call_right"].astype(bool)


SPEC = GameSpec(
    game_id="legumes", name=NAME, summary=SUMMARY, rules=Rules, engine=LegumesGame,
    reference=reference, observation=observe, display="bluffsim.games.legumes.display",
    seat_columns=("caller", "accused", "taker"), claim_seat="accused", claim_false=claim_false,
    claim_columns=("call_right",),
    max_game_length=lambda rules: rules.max_turns, streams=("DEAL", "OPENER", "RESHUFFLE"),
    test_tables=((2, (), ""), (4, (), ""), (6, (), ""),
                 (3, (("numbers", (2, 2, 1)), ("action_lie_penalty", 0), ("first_player", -1)),
                  "small")),
    play_seats="human,counting,heuristic", watch_seats="counting,heuristic,random",
)

__all__ = ["NAME", "SPEC", "SUMMARY", "LegumesGame", "LegumesState", "Rules"]
