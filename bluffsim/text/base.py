"""A game's wording for the text protocol: ``GameText``, derived from the game's spec, display and
action names, and refined by an optional ``bluffsim/games/<id>/text.py``.

Without a text module a game gets (the fourth game in ``tests/extra_games`` works this way):

| part | derived from |
|---|---|
| rules | the game's section of its ``rules_doc`` (the rules module's docstring if there is none) |
| options in effect | ``rules.OPTIONS``: meaning and value of every option but ``num_players`` |
| notation | the action names (``rules.action_names``), grouped by their first word |
| view | the display's ``status(obs)`` lines, then every observation field by its declared meaning |
| phrases | each action name; without its first word too when no other action has that rest |

A text module defines ``TEXT``, a ``GameText`` subclass overriding any of these methods (nicer
rules, tallies in words, phrases in the seed's language, reasons for illegal moves).  Every
method reads the observation row only, so the text is exactly the player's information set.
This module sits in the game base tier: the games' text modules import it.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bluffsim.games.display import as_int as _i
from bluffsim.text.words import words

Obs = Mapping[str, np.ndarray]


def markdown_section(path: Path, game_id: str) -> str:
    """The body of the ``## `` section of ``path`` whose heading names ``game_id`` in backticks
    (up to the next ``## ``), or "" when there is none."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ""
    lines, body, inside = text.splitlines(), [], False
    for line in lines:
        if line.startswith("## "):
            if inside:
                break
            inside = f"`{game_id}`" in line
            continue
        if inside:
            body.append(line)
    return "\n".join(body).strip()


class GameText:
    """One game's wording for the text protocol (module docstring); subclass it in a game's
    ``text.py`` (as ``TEXT``) to refine any part."""

    languages: tuple[str, ...] = ("en",)          # number words the parser reads
    synonyms: Mapping[str, str | tuple[str, ...]] = {}  # word (or stem*) -> canonical word(s)
    fillers: tuple[str, ...] = ()                 # more words a phrase may run over
    label_phrases: bool = True                    # read the display's menu wording as a phrase
    covered: tuple[str, ...] | None = None        # observation keys ``view_lines`` states itself
    #                                               (None: the display's status, then every field)

    def __init__(self, spec: Any, rules: Any):
        self.spec = spec
        self.rules = rules
        self.game_id = spec.game_id
        self.names: tuple[str, ...] = tuple(rules.action_names)
        self._rest_unique = self._unique_rests()
        self._displays: dict[int, Any] = {}

    # ------------------------------------------------------------------ rules prompt
    def title(self) -> str:
        """``Liar's Dice (liarsdice), 3 players``."""
        return f"{self.spec.name} ({self.game_id}), {self.rules.num_players} players"

    def rules_summary(self) -> str:
        """The rules in short: the game's section of its rules document."""
        doc = Path(self.spec.rules_doc)
        if not doc.is_absolute():
            doc = Path(__file__).resolve().parents[2] / doc   # the repository root
        found = markdown_section(doc, self.game_id)
        if found:
            return found
        return (type(self.rules).__doc__ or self.spec.summary).strip()

    def option_lines(self) -> list[str]:
        """Every option in effect but the player count: ``meaning: value``."""
        out = []
        for opt in getattr(self.rules, "OPTIONS", ()):
            if opt.name == "num_players":
                continue
            value = getattr(self.rules, opt.name, None)
            if value is None and opt.derive is not None:
                value = opt.derive(self.rules)
            out.append(f"{opt.meaning} ({opt.name}): {self.option_value(value)}")
        return out

    @staticmethod
    def option_value(value: Any) -> str:
        """An option's value in words: ``true``, ``none``, ``1, 1, 2``."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, tuple | list):
            return ", ".join(map(str, value)) if value else "none"
        return str(value)

    def notation_lines(self) -> list[str]:
        """How actions are written: the action names grouped by first word, first and last shown."""
        groups: dict[str, list[str]] = {}
        for name in self.names:
            groups.setdefault(name.split()[0] if name.split() else name, []).append(name)
        out = []
        for members in groups.values():
            if len(members) == 1:
                out.append(f"`{members[0]}`")
            elif len(members) == 2:
                out.append(f"`{members[0]}`, `{members[1]}`")
            else:
                out.append(f"`{members[0]}` … `{members[-1]}` ({len(members)} actions of this form)")
        return out

    def notation_intro(self) -> str:
        """The sentence before the notation lines."""
        return "Write an action exactly as one of these (the action names of the game):"

    # ------------------------------------------------------------------ the view
    def display(self, viewer: int) -> Any:
        """The game's terminal display seen from ``viewer`` (seats named ``seat N``; made once per
        viewer)."""
        if viewer not in self._displays:
            labels = [f"seat {i}" for i in range(self.rules.num_players)]
            self._displays[viewer] = self.spec.display_module().DISPLAY(self.rules, labels, viewer)
        return self._displays[viewer]

    def me(self, obs: Obs) -> int:
        """The observing seat."""
        return _i(obs["seat"])

    def view_lines(self, obs: Obs) -> list[str]:
        """The table as this seat sees it: the display's status, then the fields it leaves out."""
        lines = list(self.display(self.me(obs)).status(dict(obs)))
        keys = [f.name for f in self.spec.observation_spec.fields
                if f.name != "seat" and (self.covered is None or f.name not in self.covered)
                and f.name in obs]
        if keys:
            if self.covered is None:
                lines.append("everything you observe (field: value):")
            lines += self.field_lines(obs, keys)
        return lines

    def field_lines(self, obs: Obs, keys: list[str]) -> list[str]:
        """Observation fields ``keys`` by their declared meaning: ``dice per seat: 2, 2, 1``."""
        meaning = {f.name: f.meaning for f in self.spec.observation_spec.fields}
        out = []
        for key in keys:
            value = np.asarray(obs[key])
            if value.ndim <= 1:
                out.append(f"- {meaning[key]}: {self.array_text(value)}")
            else:
                rows = "; ".join(f"seat {i}: {self.array_text(row)}" for i, row in enumerate(value))
                out.append(f"- {meaning[key]}: {rows}")
        return out

    @staticmethod
    def array_text(value: np.ndarray) -> str:
        """``3``, ``true``, ``2, 0, 1`` or ``[1, 2], [0, 0]``: a value without numpy's brackets."""
        if value.ndim == 0:
            v = value.item()
            return ("true" if v else "false") if isinstance(v, bool) else str(v)
        flat = [GameText.array_text(np.asarray(x)) for x in value]
        return ", ".join(f"[{x}]" if np.asarray(value[0]).ndim else x for x in flat)

    # ------------------------------------------------------------------ actions
    def action_text(self, action: int) -> str:
        """The canonical notation of ``action`` (the action name)."""
        return self.names[action]

    def gloss(self, action: int, obs: Obs) -> str:
        """What ``action`` means at this decision, for the list of legal actions: the display's
        menu wording (``action_label``) when it says more than the notation, else ""."""
        return self.glosses([action], obs)[0]

    def glosses(self, actions: list[int], obs: Obs) -> list[str]:
        """``gloss`` of each of ``actions`` at one decision."""
        display, view = self.display(self.me(obs)), dict(obs)
        out = []
        for a in actions:
            name = self.names[a]
            label = display.action_label(name, view)
            out.append("" if label in (name, self.action_text(a)) else label)
        return out

    def hint_phrases(self, obs: Obs) -> list[tuple[str, str]]:
        """(phrase, reason) pairs read only when an answer names no action at all: loose
        wordings of impossible moves (qdv's bare ``8 grapes``), for a better reason."""
        return []

    def phrases(self, action: int) -> list[str]:
        """Every way of writing ``action`` the parser accepts, independent of the position: its
        notation, and its name without the first word when that rest names no other action."""
        name = self.names[action]
        out = [self.action_text(action), name]
        rest = " ".join(words(name)[1:])
        if rest and self._rest_unique.get(rest) == action:
            out.append(rest)
        return out

    def context_phrases(self, action: int, obs: Obs) -> list[str]:
        """Ways of writing ``action`` that need the position (e.g. an absolute bid): the
        display's menu wording when ``label_phrases``."""
        if not self.label_phrases:
            return []
        return [self.display(self.me(obs)).action_label(self.names[action], dict(obs))]

    def impossible_phrases(self, obs: Obs) -> list[tuple[str, str]]:
        """(phrase, reason) pairs for moves no action id stands for at this position (qdv's
        ``bid 3 grape`` below the standing bid): read as illegal with that reason."""
        return []

    def context_key(self, obs: Obs) -> Hashable | None:
        """The part of the position that ``context_phrases``, ``impossible_phrases`` and
        ``hint_phrases`` read (equal keys, equal phrases), so the parser can reuse their index;
        None when not declared: the phrases are then built at every parse."""
        return None

    def why_illegal(self, action: int, obs: Obs | None, legal: np.ndarray) -> str:
        """Why ``action`` cannot be played now, in words."""
        return "it is not one of your legal actions now"

    def _unique_rests(self) -> dict[str, int]:
        """rest of name (without first word) -> action, for rests that name one action only and
        are not some action's full name."""
        seen: dict[str, list[int]] = {}
        full = {" ".join(words(n)) for n in self.names}
        for a, name in enumerate(self.names):
            rest = " ".join(words(name)[1:])
            if rest and rest not in full and not re.fullmatch(r"\d+", rest):
                seen.setdefault(rest, []).append(a)
        return {r: acts[0] for r, acts in seen.items() if len(acts) == 1}
