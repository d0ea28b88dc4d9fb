"""``veru`` — Верю — не верю: cheat with a Bank of unchecked claims, Jokers and closed ranks."""

from bluffsim.games.veru.rules import Rules
from bluffsim.games.veru.vec import VeruGame, VeruState, make_game

NAME = "Верю — не верю"
SUMMARY = "cheat with a Bank of unchecked claims, jokers, closed ranks; first out wins"

__all__ = ["NAME", "SUMMARY", "Rules", "VeruGame", "VeruState", "make_game"]
