"""``qdv`` — Qui dit vrai ?: liar's-dice-style bidding over hidden fruit cards."""

from bluffsim.games.qdv.rules import Rules
from bluffsim.games.qdv.vec import QdvGame, QdvState, make_game

NAME = "Qui dit vrai ?"
SUMMARY = "liar's-dice-style bidding over hidden fruit cards, exact calls, token elimination"

__all__ = ["NAME", "SUMMARY", "QdvGame", "QdvState", "Rules", "make_game"]
