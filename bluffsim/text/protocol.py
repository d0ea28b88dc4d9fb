"""The text protocol: a game's rules, a seat's view and its actions as text, and answers read back.

``TextProtocol(game)`` renders, for any game, (1) ``rules_prompt()``: the rules in short, the
options in effect and the action notation; (2) ``view(obs, legal)``: one seat's view at a
decision, built from that seat's observation row only (so re-dealing what the seat cannot see
leaves it unchanged), with the legal actions listed when ``list_legal``; (3)
``action_text(a)``: the canonical notation; and reads answers with ``parse``.  The wording comes
from the game's ``GameText`` (``bluffsim.text.base``; refined by ``bluffsim/games/<id>/text.py``
when the game has one).

Parsing (``parse(answer, legal, obs=None)``): an answer that holds a JSON object with an
``"action"`` key is read from that value only (the last such object wins); otherwise the whole
answer.  It is tokenised tolerantly (``bluffsim.text.words``: case, accents, plurals, numbers in
words, the game's French / Russian names) and every phrase of every action is looked for; the
phrase that ends **last** wins (a longer phrase over a shorter one ending at the same word,
``accuse double`` over ``double``; then a legal action over an illegal one).  Given the
observation row, phrases that need the position are read too (qdv's ``bid 5 grape`` for
``+1 grape``).  The result is ``Parsed``: the action and ``"ok"``, or None and
``"unparseable"`` / ``"illegal"`` with the reason in words.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bluffsim.text.base import GameText, Obs
from bluffsim.text.words import Lexicon, Match, PhraseIndex, Token, words

OK, UNPARSEABLE, ILLEGAL = "ok", "unparseable", "illegal"

ANSWER_HELP = ("Answer with one action in the notation above. You may reason first: the last "
               "action you mention is the one played. JSON is accepted too: "
               '{"action": "<action>"}.')


@dataclass(frozen=True)
class Parsed:
    """An answer read back: the action id (or None), ``outcome`` ``"ok"`` / ``"unparseable"`` /
    ``"illegal"``, and ``reason`` ("" when ok, else why in words)."""

    action: int | None
    outcome: str
    reason: str

    @property
    def ok(self) -> bool:
        """The answer named a legal action."""
        return self.outcome == OK


def game_text(spec: Any, rules: Any) -> GameText:
    """The game's wording: ``TEXT`` of its ``text`` module (beside its display) if it has one,
    else the generic ``GameText``."""
    package = spec.display.rsplit(".", 1)[0]
    name = f"{package}.text"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        return GameText(spec, rules)
    return module.TEXT(spec, rules)


CONTEXT_INDEXES = 4096   # position phrase indexes a protocol remembers (then it starts again)


class TextProtocol:
    """Rules, view, notation and parser of one game's rules (module docstring)."""

    def __init__(self, game: Any, list_legal: bool = True) -> None:
        import bluffsim

        self.game = game
        self.list_legal = bool(list_legal)
        self.rules = game.rules
        self.spec = bluffsim.spec(game.game_id)
        self.text = game_text(self.spec, self.rules)
        self.num_actions = len(self.text.names)
        self._texts = tuple(self.text.action_text(a) for a in range(self.num_actions))
        phrases = {a: self.text.phrases(a) for a in range(self.num_actions)}
        vocab = {w for ps in phrases.values() for p in ps for w in words(p)}
        vocab |= {w for t in self.text.synonyms.values()
                  for x in ([t] if isinstance(t, str) else t) for w in words(x)}
        self.lexicon = Lexicon(vocab, self.text.synonyms, self.text.languages, self.text.fillers)
        self.index = PhraseIndex()
        for a, ps in phrases.items():
            for p in ps:
                self.index.add(self.lexicon.phrase(p), a)
        self._rules_prompt: str | None = None
        # the phrase index (and reasons) of each position met, by context_key (positions repeat)
        self._context_indexes: dict[Hashable, tuple[PhraseIndex, list[str]]] = {}

    # ------------------------------------------------------------------ prompts
    def rules_prompt(self) -> str:
        """The rules in short, the options in effect and the action notation."""
        if self._rules_prompt is None:
            t = self.text
            parts = [f"You are playing {t.title()}.", "", "Rules:", t.rules_summary()]
            options = t.option_lines()
            if options:
                parts += ["", "Options in effect:", *(f"- {o}" for o in options)]
            parts += ["", "Action notation:", t.notation_intro(),
                      *(f"- {n}" for n in t.notation_lines()), "", ANSWER_HELP]
            self._rules_prompt = "\n".join(parts)
        return self._rules_prompt

    def view(self, obs: Mapping[str, np.ndarray], legal: np.ndarray) -> str:
        """One seat's view at a decision (one observation row, no batch axis), with the legal
        actions listed when ``list_legal``."""
        lines = [f"You are seat {self.text.me(obs)}.", *self.text.view_lines(obs)]
        if self.list_legal:
            lines += ["", "Your legal actions:"]
            actions = np.flatnonzero(np.asarray(legal)).tolist()
            for a, gloss in zip(actions, self.text.glosses(actions, obs), strict=True):
                lines.append(f"- {self._texts[a]}" + (f": {gloss}" if gloss else ""))
        return "\n".join(lines)

    def messages(self, obs: Mapping[str, np.ndarray], legal: np.ndarray,
                 system_prompt: str | None = None) -> list[dict[str, str]]:
        """The chat messages of a decision: the rules (then ``system_prompt``) as the system
        message, the view and the request to move as the user message."""
        system = self.rules_prompt() + (f"\n\n{system_prompt}" if system_prompt else "")
        user = self.view(obs, legal) + "\n\nYour move: answer with one action."
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def rethink(self, parsed: Parsed) -> dict[str, str]:
        """The user message after an answer that could not be played."""
        where = " from the list of legal actions" if self.list_legal else ""
        return {"role": "user", "content": f"That answer cannot be played: {parsed.reason}. "
                                           f"Answer again with one legal action{where}."}

    # ------------------------------------------------------------------ notation
    def action_text(self, action: int) -> str:
        """The canonical notation of ``action``."""
        return self._texts[int(action)]

    def legal_texts(self, legal: np.ndarray) -> list[str]:
        """The notation of every legal action, in id order."""
        return [self._texts[a] for a in np.flatnonzero(np.asarray(legal))]

    # ------------------------------------------------------------------ parsing
    def parse(self, answer: str, legal: np.ndarray, obs: Obs | None = None) -> Parsed:
        """The action an answer names (the last one mentioned), or why there is none."""
        legal = np.asarray(legal, dtype=bool)
        if not isinstance(answer, str) or not answer.strip():
            return Parsed(None, UNPARSEABLE, "the answer is empty")
        text = json_action(answer)
        source = "the JSON action" if text is not None else "the answer"
        if text is None:
            text = answer
        tokens = self.lexicon.tokens(text)
        found = self.index.matches(tokens)
        impossible: list[str] = []
        if obs is not None:
            found += self._context_matches(tokens, obs, impossible, hints=False)
            if not found:   # loose wordings of impossible moves, for a better reason
                found = self._context_matches(tokens, obs, impossible, hints=True)
        if not found:
            return Parsed(None, UNPARSEABLE, f"no action found in {source} "
                                             f"({self._example(legal)})")
        return self._choose(found, tokens, legal, obs, impossible)

    def _context_matches(self, tokens: list[Token], obs: Obs, impossible: list[str],
                         hints: bool) -> list[Match]:
        """Matches of the phrases that need the position and of its (phrase, reason) pairs
        (``hints``: the loose wordings only), whose matches carry action ``-1 - k`` for the
        reason ``impossible[k]`` (appended here)."""
        index, reasons = self._context_index(obs, hints, len(impossible))
        impossible += reasons
        return index.matches(tokens)

    def _context_index(self, obs: Obs, hints: bool, offset: int) -> tuple[PhraseIndex, list[str]]:
        """The phrase index of a position's phrases (reasons numbered from ``offset``) and the
        reasons, remembered by the text's ``context_key`` (or, without one, by the phrases)."""
        position = self.text.context_key(obs)
        key = None if position is None else (position, hints, offset)
        if key in self._context_indexes:
            return self._context_indexes[key]
        pairs: list[tuple[str, int]] = []
        if not hints:
            for a in range(self.num_actions):
                pairs += [(p, a) for p in self.text.context_phrases(a, obs)]
        reasoned = self.text.hint_phrases(obs) if hints else self.text.impossible_phrases(obs)
        if key is None:
            key = (tuple(pairs), tuple(reasoned), hints, offset)
            if key in self._context_indexes:
                return self._context_indexes[key]
        index = PhraseIndex()
        for p, a in pairs:
            index.add(self.lexicon.phrase(p), a)
        for k, (p, _) in enumerate(reasoned):
            index.add(self.lexicon.phrase(p), -1 - offset - k)
        if len(self._context_indexes) >= CONTEXT_INDEXES:
            self._context_indexes.clear()
        self._context_indexes[key] = index, [why for _, why in reasoned]
        return self._context_indexes[key]

    def _choose(self, found: list[Match], tokens: list[Token], legal: np.ndarray,
                obs: Obs | None, impossible: list[str]) -> Parsed:
        """The match that ends last (then the longest, then a legal one) as a ``Parsed``."""
        end = max(m.end for m in found)
        last = [m for m in found if m.end == end]
        longest = max(m.length for m in last)
        best = [m for m in last if m.length == longest]
        said = " ".join(t.text for t in tokens[min(m.start for m in best):end])
        actions = sorted({m.action for m in best})
        playable = [a for a in actions if a >= 0 and legal[a]]
        if len(playable) == 1:
            return Parsed(playable[0], OK, "")
        if len(playable) > 1:
            options = " or ".join(f"'{self._texts[a]}'" for a in playable)
            return Parsed(None, UNPARSEABLE, f"'{said}' is ambiguous: it could be {options}")
        a = actions[0]
        if a < 0:
            return Parsed(None, ILLEGAL, f"'{said}' is illegal: {impossible[-1 - a]}")
        return Parsed(None, ILLEGAL, f"'{said}' is illegal: {self.text.why_illegal(a, obs, legal)}")

    def _example(self, legal: np.ndarray) -> str:
        """``e.g. 'menteur'``: a legal action's notation, or the notation's first action."""
        idx = np.flatnonzero(legal)
        return f"write an action such as '{self._texts[idx[0] if idx.size else 0]}'"


_JSON_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)


def json_action(answer: str) -> str | None:
    """The ``"action"`` value of the last JSON object in ``answer`` that has one, as text."""
    for chunk in reversed(_JSON_OBJECT.findall(answer)):
        try:
            obj = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(obj, dict):
            for key, value in obj.items():
                if str(key).casefold() == "action" and isinstance(value, str | int | float):
                    return str(value)
    return None


_CACHE: dict[tuple[Any, ...], TextProtocol] = {}


def protocol_for(game: Any, list_legal: bool = True) -> TextProtocol:
    """The ``TextProtocol`` of ``game``'s rules, built once per (game id, players, rules,
    list_legal)."""
    key = (game.game_id, game.rules.num_players, game.rules, bool(list_legal))
    found = _CACHE.get(key)
    if found is None:
        found = _CACHE[key] = TextProtocol(game, list_legal)
    return found
