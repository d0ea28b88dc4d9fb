"""``liarsdice`` — Liar's Dice: the worked example of ``docs/adding_a_game.md``.

It lives in the test suite (``tests/extra_games/``, listed in ``BLUFFSIM_GAMES_PATH`` by
``tests/conftest.py``) and is found by the same discovery as the built-in games, so every
generic suite runs it: a new game touches only its package.
"""

from pathlib import Path
from typing import Any

from bluffsim.games.liarsdice import observe, reference
from bluffsim.games.liarsdice.rules import Rules
from bluffsim.games.liarsdice.vec import LiarsDiceGame, LiarsDiceState
from bluffsim.games.spec import GameSpec


def claim_false(rounds: Any) -> Any:
    """The bid was false: fewer dice showed its face (the call was right exactly then)."""
    return rounds["call_right"].astype(bool)


def max_game_length(rules: Rules) -> int:
    """Each round loses a die and has at most one bid per id plus the call."""
    return rules.total_dice * (rules.liar + 1)


SPEC = GameSpec(
    game_id="liarsdice", name="Liar's Dice", summary="bid on the dice under every cup; call liar",
    rules=Rules, engine=LiarsDiceGame, reference=reference, observation=observe,
    display="bluffsim.games.liarsdice.display",
    seat_columns=("caller", "bidder", "loser"), claim_seat="bidder", claim_false=claim_false,
    claim_columns=("call_right",), max_game_length=max_game_length, streams=("DEAL",),
    test_tables=((2, (), ""), (4, (("dice", 1),), "one-die")),
    rules_doc=str(Path(__file__).with_name("rules.md")),
)

__all__ = ["SPEC", "LiarsDiceGame", "LiarsDiceState", "Rules"]
