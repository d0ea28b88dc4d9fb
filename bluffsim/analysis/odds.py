"""Exact odds of a standing claim from the deciding player's observation: the games' claim rules.

At a decision where the player may doubt the standing claim (qdv ``menteur``, legumes
``accuse`` / ``accuse double``, veru ``disbelieve``), a game's ``ClaimRules.odds(rules, obs)``
is the exact probability that the claim is true given only that player's observation row (its
own cards, the public table and history, the cards it knows have moved).  No behaviour model:
every deal of the cards the player cannot see that is consistent with what it saw is equally
likely.  The consistent deals are those the game's ``reference.redeal_hidden`` draws (the
game's own statement of what a seat cannot see: the hidden cards re-dealt over the hidden
places, sizes kept), so the probability is hypergeometric over the unseen cards
(``tests/test_odds.py`` checks every game's against a brute-force enumeration of those deals).

Each game declares what its claims are and when they are true in its package's ``odds``
module (``bluffsim/games/<id>/odds.py``; definitions and formulas: ``docs/behaviour.md``), as
``CLAIMS``: an object with the ``ClaimRules`` methods.  It reads the true reference state for
the claim a decision faces (``standing``: claimant, true, exact-call right or None) and for the
claim an action just made (``claim_made``), says what kind of answer each action is
(``responses``: ``doubt``, ``affirm``, ``exact`` or ``pass``; an action absent from it, such as
a veru Joker swap, is no answer), and gives the exact odds from the deciding seat's
observation row alone (``odds``: P(true), P(exact call right) or None, as ``Fraction``; None
where it has none).  It returns plain tuples, so a game's package imports nothing of the
analysis.  ``claims_for(game)`` finds it and wraps it (``Standing``, ``Odds``); a game without
one (such as a new game's first version) can be given claim rules from outside with
``register_claims``, and otherwise gets no behaviour metrics, with the reason stated
(``analysis.behaviour``).

Knowledge the consistent deals leave out (as ``redeal_hidden`` does, so the odds never use
more than the observation and stay exact for that definition): in legumes which seat still
holds which of its four action cards, and the cards a Bomb put into a hand; in veru that a
hidden hand never holds four naturals of an open rank (they would have closed), and which of
a seat's known cards it played when its lower bound dropped.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, NamedTuple, Protocol

import numpy as np

from bluffsim.games.claims import AFFIRM, DOUBT, EXACT, PASS

__all__ = ["AFFIRM", "CLAIMS", "DOUBT", "EXACT", "PASS", "ClaimRules", "Odds", "Standing",
           "claims_for", "register_claims"]


class Standing(NamedTuple):
    """The claim a decision faces, judged on the true state: its claimant seat, whether it is
    true, and (a game with an exact call) whether the decider's exact call would be right."""

    claimant: int
    true: bool
    exact: bool | None = None


class Odds(NamedTuple):
    """From the decider's observation: P(the standing claim is true) and, where the game has an
    exact call (qdv ``vrai``), P(that call is right)."""

    true: Fraction
    exact: Fraction | None = None


class ClaimRules(Protocol):
    """What the behaviour metrics need to know about one game's claims (module docstring)."""

    game_id: str

    def responses(self, rules: Any) -> Mapping[int, str]:
        """Action id -> answer kind at a decision facing a claim."""

    def standing(self, ref: Any, s: Any, seat: int) -> tuple[int, bool, bool | None] | None:
        """The claim by another seat that ``seat`` faces in reference state ``s`` (else None)."""

    def claim_made(self, ref: Any, s: Any, seat: int, action: int) -> bool | None:
        """Truth of the claim ``seat`` completed with ``action`` (``s`` is the state after it);
        None when the action completed no claim."""

    def odds(self, rules: Any, obs: Mapping[str, np.ndarray]) -> tuple[Fraction, Fraction | None] | None:
        """Exact odds from one observation row (no batch axis); None: not a claim decision."""


class Claims:
    """A game's claim rules with their answers as ``Standing`` and ``Odds``."""

    def __init__(self, rules: ClaimRules) -> None:
        self.rules = rules
        self.game_id = rules.game_id
        self.has_odds = getattr(rules, "has_odds", True)

    def responses(self, rules: Any) -> Mapping[int, str]:
        """Action id -> answer kind."""
        return self.rules.responses(rules)

    def standing(self, ref: Any, s: Any, seat: int) -> Standing | None:
        """The claim ``seat`` faces, or None."""
        st = self.rules.standing(ref, s, seat)
        return None if st is None else Standing(*st)

    def claim_made(self, ref: Any, s: Any, seat: int, action: int) -> bool | None:
        """Truth of the claim ``action`` completed, or None."""
        return self.rules.claim_made(ref, s, seat, action)

    def odds(self, rules: Any, obs: Mapping[str, np.ndarray]) -> Odds | None:
        """The exact odds, or None."""
        o = self.rules.odds(rules, obs)
        return None if o is None else Odds(*o)


# game id -> claim rules registered from outside the game's package (they win over its own)
CLAIMS: dict[str, ClaimRules] = {}


def register_claims(claims: ClaimRules) -> None:
    """Give the game ``claims.game_id`` these claim rules (replacing its own, if any)."""
    CLAIMS[claims.game_id] = claims


def claims_for(game_id: str) -> Claims | None:
    """The game's claim rules: registered ones, else its package's ``odds.CLAIMS``; None when
    it has none."""
    if game_id in CLAIMS:
        return Claims(CLAIMS[game_id])
    import bluffsim

    package = bluffsim.game_module(game_id).__name__
    try:
        module = importlib.import_module(f"{package}.odds")
    except ModuleNotFoundError as e:
        if e.name == f"{package}.odds":
            return None
        raise
    found = getattr(module, "CLAIMS", None)
    return None if found is None else Claims(found)
