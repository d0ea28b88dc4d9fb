"""Every valid option value works (issue 12 point 6): each game at each option's min and max.

Each case builds one game with one option at an extreme of its allowed range (the
other options at their defaults) and plays a small batch to the end with random
legal actions on both engines, checking they agree at every step (players, masks,
observations, results).  Integer overflows in the dtypes that hold an option (or a
count it bounds) show up here as an ``OverflowError``, a wrapped value or a
disagreement with the reference engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import bluffsim
from tests.games import Case, assert_same_game, play_random_both

QDV_EFFECTS = ("reveal", "discard", "draw", "skip", "reverse", "token")

# (game, num_players, option, value): min and max of every option of every game
EXTREMES: list[tuple[str, int, str, Any]] = [
    ("qdv", 2, "num_players", 2), ("qdv", 6, "num_players", 6),
    ("qdv", 4, "starting_tokens", 1), ("qdv", 4, "starting_tokens", 60),
    ("qdv", 4, "fruit_multipliers", (1,)), ("qdv", 4, "fruit_multipliers", (3,) * 12),
    ("qdv", 4, "salads", 0), ("qdv", 4, "salads", 8),
    ("qdv", 4, "challenge_deck", ()), ("qdv", 4, "challenge_deck", QDV_EFFECTS * 10),
    ("qdv", 4, "challenge_on_landing", False), ("qdv", 4, "challenge_on_landing", True),
    ("qdv", 4, "max_rounds", 1), ("qdv", 4, "max_rounds", 100_000),
    ("qdv", 4, "first_dealer", 0), ("qdv", 4, "first_dealer", 3),
    ("legumes", 2, "num_players", 2), ("legumes", 6, "num_players", 6),
    ("legumes", 4, "numbers", (0, 0, 1)), ("legumes", 4, "numbers", (8, 8, 8)),
    ("legumes", 4, "hand_size", 1), ("legumes", 2, "hand_size", 12),
    ("legumes", 4, "action_lie_penalty", 0), ("legumes", 4, "action_lie_penalty", 5),
    ("legumes", 4, "first_player", -1), ("legumes", 4, "first_player", 3),
    ("legumes", 4, "max_turns", 1), ("legumes", 4, "max_turns", 100_000),
    ("legumes", 4, "reverse_alone", False), ("legumes", 4, "reverse_alone", True),
    ("veru", 3, "num_players", 3), ("veru", 6, "num_players", 6),
    ("veru", 4, "jokers", 0), ("veru", 4, "jokers", 48),
    ("veru", 4, "endgame_limit", 1), ("veru", 4, "endgame_limit", 100_000),
    ("veru", 4, "max_turns", 1), ("veru", 4, "max_turns", 100_000),
    ("veru", 4, "joker_swaps", 0), ("veru", 4, "joker_swaps", 10),
    ("veru", 4, "joker_swap_seats", ()), ("veru", 6, "joker_swap_seats", tuple(range(6))),
    ("veru", 4, "check_seats", ()), ("veru", 6, "check_seats", tuple(range(6))),
    ("veru", 4, "ace_hint_seats", ()), ("veru", 6, "ace_hint_seats", tuple(range(6))),
    ("veru", 4, "first_opener", -1), ("veru", 4, "first_opener", 3),
    ("veru", 4, "turn_order", "clockwise"), ("veru", 4, "turn_order", "counterclockwise"),
]



def declared_extremes(game_id: str) -> list[tuple[str, int, str, Any]]:
    """The bounds each option declares (``Option.accepted``), at the default table: the rows a
    game without hand-picked ones above (a new game) is played at."""
    spec = bluffsim.spec(game_id)
    rules = spec.make_rules()
    return [(game_id, value if o.name == "num_players" else spec.players[2], o.name, value)
            for o in rules.OPTIONS for value in o.accepted(rules)]


EXTREMES += [row for gid in bluffsim.list_games() if gid not in {r[0] for r in EXTREMES}
             for row in declared_extremes(gid)]


def case_id(row: tuple[str, int, str, Any]) -> str:
    game, p, option, value = row
    text = repr(value) if not isinstance(value, tuple) or len(value) < 4 else f"{len(value)}-tuple"
    return f"{game}-{p}p-{option}={text}"


def options_for(game: str, option: str, value: Any) -> dict[str, Any]:
    """The option at its extreme plus what makes it bite (swaps need a seat that has them)."""
    opts = {} if option == "num_players" else {option: value}
    if game == "veru" and option == "joker_swaps":
        opts["joker_swap_seats"] = (0, 1, 2, 3)
    if game == "veru" and option == "joker_swap_seats":
        opts["joker_swaps"] = 10
    if game == "legumes" and option == "hand_size" and value == 12:
        opts["numbers"] = (8, 8, 8)
    if game == "legumes" and option == "numbers" and sum(value) < 2:
        opts["hand_size"] = 1  # the smallest deck deals one card each
    return opts


@pytest.mark.parametrize("row", EXTREMES, ids=[case_id(r) for r in EXTREMES])
def test_every_option_extreme_builds_and_plays_on_both_engines(row) -> None:
    """Min and max of each option: both engines play 3 games to the end and agree throughout."""
    game_id, p, option, value = row
    case = Case(game_id, p, tuple(options_for(game_id, option, value).items()))
    game = case.make()
    assert game.num_players == p
    if option != "num_players":
        assert getattr(game.rules, option) == value
    ref = case.reference.ReferenceGame(game.rules)
    def tensor_is_finite(st: object) -> None:
        assert np.isfinite(game.observation_tensor(st)).all()

    st, rstates = play_random_both(game, ref, np.arange(3) + 101, where=case_id(row), every=4,
                                   max_steps=20_000, each=tensor_is_finite)
    assert_same_game(game, ref, st, rstates, where=f"{case_id(row)} end")
    for row_places in st.placements:
        assert min(row_places) == 1 and max(row_places) <= p


def test_declared_extremes_name_every_option_twice() -> None:
    """The rows a new game would get from its declared bounds cover each option twice."""
    for game_id in bluffsim.list_games():
        described = {name for name, _, _ in type(bluffsim.make(game_id).rules).describe()}
        names = [opt for _, _, opt, _ in declared_extremes(game_id)]
        assert set(names) == described and all(names.count(n) == 2 for n in described), game_id


def test_the_extremes_cover_every_option_of_every_game() -> None:
    """Each option listed by ``bluffsim games`` has a min and a max case above."""
    for game_id in bluffsim.list_games():
        described = {name for name, _, _ in type(bluffsim.make(game_id).rules).describe()}
        covered = [opt for g, _, opt, _ in EXTREMES if g == game_id]
        assert described == set(covered), game_id
        assert all(covered.count(opt) == 2 for opt in described), game_id


def test_the_largest_endgame_limit_is_observed_exactly_on_both_engines() -> None:
    """veru ``endgame_limit=100000`` used to overflow an int16 (``OverflowError``): now exact."""
    from bluffsim.games.veru.reference import scenario
    from bluffsim.games.veru.vec import VeruGame

    ref, s = scenario([[], ["5", "6"], ["7", "8"]], opener=1, endgame_limit=100_000)
    assert s.endgame_count == 0
    assert int(ref.observe(s)["endgame_left"]) == 100_000
    vg = VeruGame(ref.rules)
    st = vg.from_reference([s])
    assert int(vg.observe(st)["endgame_left"][0]) == 100_000
    vg.step(st, np.array([vg.action_id("announce 5")]))
    assert int(vg.observe(st)["endgame_left"][0]) == 99_999


def test_counters_are_wide_enough_for_the_largest_options() -> None:
    """Counters bounded by an option's maximum fit their dtype (qdv: one gain per round)."""
    qdv = bluffsim.make("qdv", 2, starting_tokens=60, max_rounds=100_000)
    assert np.iinfo(qdv.init([0]).tokens.dtype).max >= 60 + 100_000
    veru = bluffsim.make("veru", 3, endgame_limit=100_000, max_turns=100_000)
    st = veru.init([0])
    for name in ("endgame_count", "taken", "seen_taken", "claims", "cards_claimed", "checks",
                 "claim_checks", "pickups", "timeouts", "num_decisions", "num_rounds"):
        assert np.iinfo(getattr(st, name).dtype).max >= 100_000 * 3, name
