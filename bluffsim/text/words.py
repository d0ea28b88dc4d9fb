"""Words for the text protocol: normalising an answer into tokens and finding action phrases in it.

An answer is lower-cased, stripped of accents (NFKD, combining marks dropped: ``pastèque`` ->
``pasteque``, ``ещё`` -> ``еще``), cut into words and numbers (``3x5`` -> ``3 x 5``,
``carrot-1`` -> ``carrot 1``, ``+1`` -> ``+ 1``) and each word read as one or more *canonical
tokens*: number words (English; French and Russian for the games that use them) become digits,
plurals their singular, a game's synonyms (French, Russian names) its canonical word.  Words
such as articles are *skippable*: a phrase may run over them (``put a 7`` is ``put 7``), yet a
skippable word can still be a token (``a`` is also the ace in ``put a``).

A ``PhraseIndex`` holds every phrase of every action (tuples of canonical tokens) and finds
all their occurrences in a tokenised answer; the protocol keeps the one that ends last.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

Phrase = tuple[str, ...]

# ------------------------------------------------------------------ numbers in words
EN_NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60}
FR_NUMBERS = {"zero": 0, "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5,
              "six": 6, "sept": 7, "huit": 8, "neuf": 9, "dix": 10, "onze": 11, "douze": 12,
              "treize": 13, "quatorze": 14, "quinze": 15, "seize": 16, "vingt": 20,
              "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60}
FR_TENS = {"dix": 10, "vingt": 20, "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60}
# Russian: the forms a count takes in speech (nominative, accusative, genitive), accents stripped
RU_NUMBERS = {
    "ноль": 0, "нуль": 0, "один": 1, "одна": 1, "одно": 1, "одну": 1, "одного": 1, "одной": 1,
    "два": 2, "две": 2, "двух": 2, "три": 3, "трех": 3, "четыре": 4, "четырех": 4, "пять": 5,
    "пяти": 5, "шесть": 6, "шести": 6, "семь": 7, "семи": 7, "восемь": 8, "восьми": 8,
    "девять": 9, "девяти": 9, "десять": 10, "десяти": 10, "одиннадцать": 11, "двенадцать": 12,
    "тринадцать": 13, "четырнадцать": 14, "пятнадцать": 15, "шестнадцать": 16, "семнадцать": 17,
    "восемнадцать": 18, "девятнадцать": 19, "двадцать": 20, "тридцать": 30, "сорок": 40,
}
RU_TENS = {"двадцать": 20, "тридцать": 30, "сорок": 40}
NUMBER_WORDS = {"en": (EN_NUMBERS, EN_TENS), "fr": (FR_NUMBERS, FR_TENS), "ru": (RU_NUMBERS, RU_TENS)}

# words a phrase may run over (articles, fillers); French ``un``/``une`` stay numbers as well
SKIPPABLE = frozenset(
    "a an the my your of with as at i will ll to is it s d and then on now so card cards "
    "le la les l de des du d j je et un une en au aux".split()
    + "я и на а в мою мои свою свои карту карты".split())


def fold(text: str) -> str:
    """Lower case without accents: ``Pastèque`` -> ``pasteque``, ``Ещё`` -> ``еще``."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_WORD = re.compile(r"\d+|[^\W\d_]+|\+", re.UNICODE)


def words(text: str) -> list[str]:
    """The folded words, numbers and ``+`` signs of ``text`` in order (letters and digits split)."""
    return _WORD.findall(fold(text))


def plural_forms(word: str) -> set[str]:
    """English plurals of ``word`` (``cherry`` -> ``cherries``, ``radish`` -> ``radishes``,
    ``7`` -> ``7s``-style forms come from the split ``7 s``)."""
    forms = {word + "s", word + "es"}
    if word.endswith("y") and len(word) > 2:
        forms.add(word[:-1] + "ies")
    if word.endswith("f"):
        forms.add(word[:-1] + "ves")
    return forms


@dataclass(frozen=True)
class Token:
    """One word of an answer: the canonical tokens it can stand for, and whether a phrase may
    run over it."""

    text: str
    values: frozenset[str]
    skippable: bool


PHRASE_CACHE = 100_000   # phrases a Lexicon remembers (then it starts again)


class Lexicon:
    """Reads words as canonical tokens: the canonical vocabulary and its plurals, a game's
    synonyms (exact words, or stems ending in ``*`` for inflected languages), number words."""

    def __init__(self, vocabulary: Iterable[str], synonyms: Mapping[str, str | Iterable[str]],
                 languages: Iterable[str] = ("en",), fillers: Iterable[str] = ()):
        self.skippable = SKIPPABLE | {fold(w) for w in fillers}
        self._phrases: dict[str, Phrase] = {}
        self.exact: dict[str, set[str]] = {}
        self.stems: list[tuple[str, set[str]]] = []
        self.numbers: dict[str, int] = {}
        self.tens: dict[str, int] = {}
        for lang in languages:
            ones, tens = NUMBER_WORDS[lang]
            self.numbers.update(ones)
            self.tens.update(tens)
        vocab = {fold(v) for v in vocabulary}
        for v in vocab:
            self._add(v, v)
            if not v.isdigit():
                for p in plural_forms(v):
                    self._add(p, v)
                if v.endswith("s") and len(v) > 3 and v[:-1] not in vocab:   # salads <- salad
                    self._add(v[:-1], v)
        for word, targets in synonyms.items():
            targets = [targets] if isinstance(targets, str) else list(targets)
            for target in targets:
                w = fold(word)
                if w.endswith("*"):
                    self.stems.append((w[:-1], {fold(target)}))
                else:
                    self._add(w, fold(target))
                    for p in plural_forms(w):
                        if p not in vocab:
                            self._add(p, fold(target))
        for w, n in self.numbers.items():
            self._add(w, str(n))
            for p in plural_forms(w):
                self._add(p, str(n))
        self.stems.sort(key=lambda s: -len(s[0]))

    def _add(self, word: str, value: str) -> None:
        self.exact.setdefault(word, set()).add(value)

    def values(self, word: str) -> set[str]:
        """The canonical tokens ``word`` can stand for (itself when it is nothing known)."""
        found = set(self.exact.get(word, ()))
        if not found:
            for stem, targets in self.stems:
                if word.startswith(stem):
                    found |= targets
                    break
        return found or {word}

    def tokens(self, text: str) -> list[Token]:
        """``text`` as tokens, compound numbers joined (``twenty one`` -> 21, ``dix-sept`` -> 17)."""
        raw = words(text)
        out: list[Token] = []
        i = 0
        while i < len(raw):
            w = raw[i]
            joined = self._compound(raw, i)
            if joined is not None:
                n, used = joined
                out.append(Token(" ".join(raw[i:i + used]), frozenset({str(n)}), False))
                i += used
                continue
            vals = self.values(w)
            out.append(Token(w, frozenset(vals), w in self.skippable))
            i += 1
        return out

    def _compound(self, raw: list[str], i: int) -> tuple[int, int] | None:
        """(value, words used) of a tens word followed by a unit word (``et``/``and`` between)."""
        tens = self.tens.get(raw[i])
        if tens is None:
            return None
        j = i + 1
        if j < len(raw) and raw[j] in ("et", "and", "и"):
            j += 1
        if j < len(raw):
            unit = self.numbers.get(raw[j])
            low = 7 if tens == 10 else 1     # dix-sept .. dix-neuf; vingt et un, twenty-one ..
            if unit is not None and low <= unit <= 9:
                return tens + unit, j + 1 - i
        return None

    def phrase(self, text: str) -> Phrase:
        """A canonical phrase from text written in canonical words (each word's own token);
        remembered per text (positions repeat the same phrases)."""
        cache = self._phrases
        found = cache.get(text)
        if found is None:
            if len(cache) >= PHRASE_CACHE:
                cache.clear()
            found = cache[text] = self._phrase(text)
        return found

    def _phrase(self, text: str) -> Phrase:
        out = []
        for w in words(text):
            vals = self.values(w)
            out.append(w if w in vals or len(vals) != 1 else next(iter(vals)))
        return tuple(out)


@dataclass(frozen=True)
class Match:
    """One occurrence of an action's phrase in an answer: token positions ``[start, end)``."""

    action: int
    start: int
    end: int
    length: int


class PhraseIndex:
    """Every phrase of a set of actions, indexed by its first token."""

    MAX_SKIP = 3   # skippable words a phrase may run over between two of its tokens

    def __init__(self) -> None:
        self.by_first: dict[str, list[tuple[Phrase, int]]] = {}

    def add(self, phrase: Phrase, action: int) -> None:
        """Let ``phrase`` name ``action``."""
        if phrase:
            entry = (phrase, action)
            bucket = self.by_first.setdefault(phrase[0], [])
            if entry not in bucket:
                bucket.append(entry)

    def matches(self, tokens: list[Token]) -> list[Match]:
        """Every occurrence of every phrase in ``tokens`` (a phrase starts on a non-skipped token)."""
        found = []
        for i, tok in enumerate(tokens):
            for value in tok.values:
                for phrase, action in self.by_first.get(value, ()):
                    end = self._match_from(tokens, i + 1, phrase)
                    if end is not None:
                        found.append(Match(action, i, end, len(phrase)))
        return found

    def _match_from(self, tokens: list[Token], j: int, phrase: Phrase) -> int | None:
        """End position of ``phrase[1:]`` matched from token ``j`` on, or None."""
        for want in phrase[1:]:
            skipped = 0
            while j < len(tokens) and want not in tokens[j].values:
                if not tokens[j].skippable or skipped >= self.MAX_SKIP:
                    return None
                j += 1
                skipped += 1
            if j >= len(tokens):
                return None
            j += 1
        return j
