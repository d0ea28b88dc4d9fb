"""Option metadata round-trips (issue 14 point 4): generated from each game's ``OPTIONS``.

Every option that ``bluffsim games`` lists is accepted at its declared bounds and
refused (``RulesError`` naming the option) past them and with a wrong type; the
declarations, the rules dataclass fields and ``describe()`` name the same options.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import bluffsim
from tests.test_option_extremes import EXTREMES, options_for

GAMES = tuple(bluffsim.list_games())


def rules_class(game_id: str) -> Any:
    return type(bluffsim.make(game_id).rules)


def cases(kind: str) -> list[tuple[str, str, Any]]:
    """(game, option, value) for every declared option at (``accepted``) or past (``refused``) a bound."""
    out = []
    for game_id in GAMES:
        cls = rules_class(game_id)
        base = cls()
        for opt in cls.OPTIONS:
            values = opt.accepted(base) if kind == "accepted" else opt.refused(base)
            out += [(game_id, opt.name, v) for v in values]
    return out


def build(game_id: str, option: str, value: Any) -> Any:
    cls = rules_class(game_id)
    if option == "num_players":
        return cls(num_players=value)
    return cls(**{**options_for(game_id, option, value), option: value})


@pytest.mark.parametrize("game_id,option,value", cases("accepted"))
def test_every_option_is_accepted_at_its_declared_bounds(game_id: str, option: str, value: Any) -> None:
    """The declared bound builds rules holding exactly that value."""
    assert getattr(build(game_id, option, value), option) == value


@pytest.mark.parametrize("game_id,option,value", cases("refused"))
def test_every_option_is_refused_past_its_declared_bounds(game_id: str, option: str, value: Any) -> None:
    """One past a bound (or a wrong type) raises ``RulesError`` naming the option and the value."""
    with pytest.raises(bluffsim.RulesError, match=rf"^{game_id} option {option}=.* is invalid; allowed: "):
        build(game_id, option, value)


def test_declarations_fields_and_describe_name_the_same_options() -> None:
    """``OPTIONS`` = the dataclass fields (same defaults) = the rows of ``bluffsim games``."""
    for game_id in GAMES:
        cls = rules_class(game_id)
        names = [o.name for o in cls.OPTIONS]
        assert names == [f.name for f in dataclasses.fields(cls)], game_id
        assert names == [row[0] for row in cls.describe()], game_id
        assert [o.default for o in cls.OPTIONS] == [f.default for f in dataclasses.fields(cls)]
        assert all(o.meaning and o.allowed for o in cls.OPTIONS), game_id
        assert f"`{names[-1]}`" in bluffsim.game_module(game_id).rules.__doc__, game_id


def test_declared_bounds_match_the_played_extremes() -> None:
    """The bounds the play test exercises (test_option_extremes) are the declared ones at 4 players."""
    for game_id in GAMES:
        cls = rules_class(game_id)
        base = cls()
        for opt in cls.OPTIONS:
            played = [v for g, p, o, v in EXTREMES if g == game_id and o == opt.name and p == 4]
            if opt.name == "num_players" or len(played) < 2:
                continue  # p-dependent rows are played at other table sizes
            assert tuple(played) == tuple(opt.accepted(base)), (game_id, opt.name)
