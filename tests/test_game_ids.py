"""Game knowledge lives in the game's package (issue 27 point 3): no module outside
``bluffsim/games/<id>/`` and ``agents/<id>/`` names a game.

A module names a game when a string constant is exactly a game id (``"qdv"``) or an
identifier (a name, attribute, function, class, argument or import alias) has a game id as
one of its ``_``-separated parts (``_qdv_settled``).  Docstrings, comments and prose inside
messages are not read: they may use a game as an example.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import bluffsim

ROOT = Path(__file__).resolve().parents[1]

# (file, game id, why it stays for now): what could not be moved yet; keep this list short
ALLOWED: set[tuple[str, str]] = set()


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _identifiers(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.alias):
        return [node.asname or node.name.split(".")[-1]]
    if isinstance(node, ast.keyword) and node.arg:
        return [node.arg]
    return []


def game_mentions(path: Path, games: list[str]) -> set[str]:
    """The game ids ``path`` names (see the module docstring)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if node.value in games:
                found.add(node.value)
        for name in _identifiers(node):
            found.update(g for g in games if g in re.split(r"_+", name.lower()))
    return found


def outside_files(games: list[str]) -> list[Path]:
    """Every .py file of bluffsim/ and agents/ outside the game packages."""
    own = [ROOT / "bluffsim" / "games" / g for g in games] + [ROOT / "agents" / g for g in games]
    return [p for pkg in ("bluffsim", "agents") for p in sorted((ROOT / pkg).rglob("*.py"))
            if not any(d in p.parents for d in own)]


def test_the_check_sees_a_game_id() -> None:
    """A literal id and an identifier part are both found (and a docstring is not read)."""
    games = bluffsim.list_games()
    g = games[0]
    assert game_mentions(ROOT / "bluffsim" / "games" / g / "__init__.py", games) >= {g}


def test_no_module_outside_a_game_package_names_a_game() -> None:
    games = bluffsim.list_games()
    named = {(str(p.relative_to(ROOT)), g) for p in outside_files(games)
             for g in game_mentions(p, games)}
    assert named - ALLOWED == set()
    assert ALLOWED - named == set(), "an allowed mention is gone: remove it from ALLOWED"
