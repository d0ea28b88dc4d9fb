"""``qdv`` — Qui dit vrai ?: liar's-dice-style bidding over hidden fruit cards."""

from typing import Any

from bluffsim.games.qdv import observe, reference
from bluffsim.games.qdv.rules import Rules
from bluffsim.games.qdv.vec import QdvGame, QdvState
from bluffsim.games.spec import GameSpec

NAME = "Qui dit vrai ?"
SUMMARY = "liar's-dice-style bidding over hidden fruit cards, exact calls, token elimination"


def claim_false(rounds: Any) -> Any:
    """The round's final bid was above the true count (what ``menteur`` asserts)."""
    return rounds["true_count"] < rounds["bid_count"]


def max_game_length(rules: Rules) -> int:
    """Decisions of one game at most: per round a start choice, at most max_count + 1 bids,
    a call, the salad declarations and a reward, for at most ``max_rounds`` rounds."""
    return rules.max_rounds * (rules.max_count + rules.num_players + 5)


SPEC = GameSpec(
    game_id="qdv", name=NAME, summary=SUMMARY, rules=Rules, engine=QdvGame, reference=reference,
    observation=observe, display="bluffsim.games.qdv.display",
    seat_columns=("caller", "bidder", "loser", "gainer"), claim_seat="bidder",
    claim_false=claim_false,
    claim_columns=("true_count", "bid_count"), max_game_length=max_game_length,
    streams=("DEAL", "CHALLENGE_DECK", "EFFECT"),
    test_tables=((2, (), ""), (4, (), ""), (6, (), "")),
)

__all__ = ["NAME", "SPEC", "SUMMARY", "QdvGame", "QdvState", "Rules"]
