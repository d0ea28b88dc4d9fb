"""``legumes`` — Menteur: a vegetable cheat with action cards; lowest score wins."""

from bluffsim.games.legumes.rules import Rules
from bluffsim.games.legumes.vec import LegumesGame, LegumesState, make_game

NAME = "Menteur (légumes)"
SUMMARY = "vegetable cheat with Bomb, Vegetable choice, Reverse and Double accusation cards"

__all__ = ["NAME", "SUMMARY", "LegumesGame", "LegumesState", "Rules", "make_game"]
