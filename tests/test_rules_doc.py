"""The project's rules document ``docs/rules.md``: a section per game (in the document its spec's
``rules_doc`` names: ``docs/rules.md`` for the built-in games), every declared option named, and
nothing in the repository still pointing at the rules spec outside it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import bluffsim

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules.md"
OLD_SPEC = "shared/" + "RULES.md"  # split so this file does not match its own check


def doc_text(game_id: str | None = None) -> str:
    """The rules document (``game_id``: the one its spec names, relative to the repository)."""
    doc = DOC if game_id is None else ROOT / bluffsim.spec(game_id).rules_doc
    assert doc.is_file(), f"{doc} is missing"
    return doc.read_text(encoding="utf-8")


def game_sections(text: str) -> dict[str, str]:
    """Game id -> the text of its ``## `` section (the heading names the id in backticks)."""
    sections: dict[str, str] = {}
    parts = re.split(r"^(?=## )", text, flags=re.MULTILINE)
    for gid in bluffsim.list_games():
        for part in parts:
            if part.startswith("## ") and f"`{gid}`" in part.splitlines()[0]:
                sections[gid] = part
    return sections


def test_the_rules_document_exists() -> None:
    assert doc_text().strip()


@pytest.mark.parametrize("game_id", bluffsim.list_games())
def test_every_game_has_a_section(game_id: str) -> None:
    doc = bluffsim.spec(game_id).rules_doc
    assert game_id in game_sections(doc_text(game_id)), f"no '## ... `{game_id}` ...' section in {doc}"


@pytest.mark.parametrize("game_id", bluffsim.list_games())
def test_every_declared_option_is_in_the_games_section(game_id: str) -> None:
    section = game_sections(doc_text(game_id)).get(game_id, "")
    names = [o.name for o in bluffsim.spec(game_id).rules.OPTIONS]
    assert names, game_id
    missing = [n for n in names if f"`{n}`" not in section]
    assert not missing, f"{game_id} options missing from {bluffsim.spec(game_id).rules_doc}: {missing}"


def test_no_tracked_file_points_at_the_spec_outside_the_repository() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
                           ).stdout.decode().split("\0")
    me = Path(__file__).resolve()
    offenders = [f for f in files if f and (ROOT / f).is_file() and (ROOT / f).resolve() != me
                 and OLD_SPEC.encode() in (ROOT / f).read_bytes()]
    assert not offenders, f"{OLD_SPEC} still mentioned in: {offenders}"
