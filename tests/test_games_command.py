"""``bluffsim games GAME`` shows an agent's author what ``act`` reads: every structured
observation field with the dtype and shape the engine really returns, the legal mask's width,
each card type with its worth and copies, then the flat tensor's layout."""

from __future__ import annotations

import re

import numpy as np
import pytest

import bluffsim
from bluffsim.cli import main


def printed(capsys, *args: str) -> str:
    assert main(["games", *args]) == 0
    return capsys.readouterr().out


def section(text: str, heading: str) -> list[str]:
    """The lines after the one starting with ``heading``, up to the next blank line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start + 1:end]


@pytest.mark.parametrize("game_id", bluffsim.list_games())
def test_every_observation_field_is_listed_with_the_engines_dtype_and_shape(capsys, game_id):
    spec = bluffsim.spec(game_id)
    players = spec.players[0] + 1
    out = printed(capsys, game_id, "--players", str(players))
    game = bluffsim.make(game_id, players)
    obs = game.observe(game.init(np.arange(3, dtype=np.uint64)))
    rows = {}
    for line in section(out, "obs = game.observe(state)")[1:]:
        m = re.match(r"  (\w+)\s+(\w+)\s+(\[[^\]]*\])(?: = (\[[^\]]*\]))?\s{2,}(\S.*)$", line)
        if m:
            rows[m.group(1)] = m.groups()[1:]
    assert list(rows) == list(obs)                       # every key, in the engine's order
    for key, value in obs.items():
        dtype, named, values, meaning = rows[key]
        assert dtype == str(value.dtype), key
        assert (values or named) == str(list(value.shape[1:])), key
        assert meaning
    assert f"legal_mask: bool[B, {game.num_actions}]" in out


@pytest.mark.parametrize("game_id", bluffsim.list_games())
def test_each_card_type_has_its_worth_and_copies(capsys, game_id):
    out = printed(capsys, game_id)
    rows = section(out, "card types:")[1:]
    game = bluffsim.make(game_id)
    kinds = game.observe(game.init(np.arange(1, dtype=np.uint64)))["hand"].shape[1]
    assert [int(r.split()[0]) for r in rows] == list(range(kinds))
    if game_id not in ("qdv", "legumes", "veru"):    # a game without card_types: names only
        return
    assert all(len(r.split(maxsplit=2)) == 3 for r in rows)     # index, name, worth
    if game_id == "qdv":
        rules = game.rules
        for k, name in ((1, "strawberry x2"), (5, "grape x3"), (18, "salad")):
            assert re.match(rf"  {k}\s+{name}\s", rows[k]), rows[k]
        assert "counts 2 strawberries" in rows[1] and f"· {rules.deck.count(1)} in the deck" in rows[1]
        assert "counts 3 grapes" in rows[5] and "· 1 in the deck" in rows[5]
        assert f"· {rules.salads} in the deck" in rows[18]
    if game_id == "legumes":
        assert "the loser draws 3; 3 points in hand at the end" in rows[2]
        assert "10 points in hand at the end" in rows[18]
    if game_id == "veru":
        assert "never announced" in rows[12] and "stands for any rank" in rows[13]


def test_the_tensor_layout_still_comes_last(capsys):
    out = printed(capsys, "qdv", "--players", "3")
    rules = bluffsim.spec("qdv").make_rules(3)
    layout = bluffsim.spec("qdv").observation.SPEC.layout_text(rules)
    assert out.rstrip("\n").endswith(layout)
    assert f"float32[B, {bluffsim.spec('qdv').observation.SPEC.tensor_size(rules)}]" in out
