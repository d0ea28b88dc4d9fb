"""``bluffsim play``: a full game driven through a pseudo-terminal, and its input errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROMPT = r"your move \(0-\d+, name, q\): "


@pytest.mark.parametrize("game_id, seats, rules", [
    ("qdv", "human,random", ["--rule", "starting_tokens=2"]),
    ("legumes", "human,counting", ["--rule", "hand_size=3"]),
    ("veru", "human,heuristic,counting", []),
])
def test_a_person_plays_a_full_game_in_a_terminal(game_id, seats, rules):
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "bluffsim.cli", "play", game_id, "--seats", seats,
                                           "--seed", "4", *rules],
                          encoding="utf-8", timeout=60, maxread=100_000)
    child.expect(f"{game_id}, seed 4: seat 0 human")
    turns = 0
    while True:
        i = child.expect([PROMPT, "=== game over"])
        if i == 1:
            break
        if turns == 0:  # a typo re-prompts and loses nothing
            child.sendline("not-an-action")
            child.expect("is not a legal choice")
            child.expect(PROMPT)
        child.sendline("0")
        child.expect(r"seat 0 \(human\): ")
        turns += 1
    child.expect(r"seat 0 \(human\): place \d+, reward [+-]\d\.\d\d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert turns > 0


def test_the_human_view_shows_own_cards_and_numbered_actions():
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "bluffsim.cli", "play", "legumes", "--seats",
                                           "human,random", "--seed", "1"],
                          encoding="utf-8", timeout=60)
    child.expect("your cards: ")
    child.expect(r"\[0\] ")
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("left the game")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1


@pytest.mark.parametrize("args, message", [
    (["play", "qdv", "--seats", "human,wizard"], "unknown seat 'wizard'"),
    (["play", "qdv", "--seats", "random,random"], "name at least one 'human' seat"),
    (["play", "chess"], "unknown game 'chess'"),
    (["play", "qdv", "--rule", "starting_tokens"], "write NAME=VALUE"),
    (["play", "qdv", "--seats", "human,random", "--rule", "starting_tokens=0"], "starting_tokens"),
])
def test_bad_play_arguments_are_one_line_errors(args, message):
    r = subprocess.run([sys.executable, "-m", "bluffsim.cli", *args], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
