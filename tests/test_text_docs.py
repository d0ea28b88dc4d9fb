"""docs/text_protocol.md's example prompts are what ``python -m bluffsim.text`` prints today."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bluffsim.text.__main__ import example

DOC = Path(__file__).resolve().parents[1] / "docs" / "text_protocol.md"
# game -> (players, seed, steps): the commands on the page's Command line
EXAMPLES = {"qdv": (3, 7, 9), "legumes": (3, 7, 9), "veru": (3, 7, 9), "liarsdice": (None, 7, 4)}


def example_block(game_id: str) -> str:
    """The fenced text between ``<!-- example GAME -->`` and ``<!-- end -->``."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"<!-- example {game_id} -->\n```text\n(.*?)\n```\n<!-- end -->", text, re.S)
    assert m, f"no example block for {game_id}"
    return m.group(1)


@pytest.mark.parametrize("game_id", sorted(EXAMPLES))
def test_the_documented_example_prompt_is_current(game_id) -> None:
    players, seed, steps = EXAMPLES[game_id]
    assert example_block(game_id) == example(game_id, players, seed, steps, True)
