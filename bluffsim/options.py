"""Rules options declared once: one ``Option`` per option of a game.

A game's ``rules.py`` lists its options as a tuple of ``Option`` (name, default,
check, meaning); ``declare_options`` then derives from it the rules dataclass's
validation (``__post_init__``), ``describe()`` (the rows of ``bluffsim games``)
and ``options_table`` (the module docstring's table), and checks at import that
the dataclass fields are exactly the declared options with the declared defaults.
``Option.accepted`` / ``Option.refused`` give the values at and past each bound
(the option round-trip test in ``tests/test_option_metadata.py`` uses them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bluffsim.api import RulesError, rules_from_options

# a bound of an integer option: a number, or a function of the rules (e.g. the last seat)
Bound = int | Callable[[Any], int]
# a check: (value, rules) -> None when valid, else the "allowed" text of the error message
Check = Callable[[Any, Any], "str | None"]


def is_int(v: Any) -> bool:
    """True for an ``int`` that is not a ``bool``."""
    return isinstance(v, int) and not isinstance(v, bool)


def _bound(b: Bound, rules: Any) -> int:
    return b(rules) if callable(b) else b


@dataclass(frozen=True)
class Option:
    """One rules option: its default, its check, what it means and its bounds for the tests.

    ``allowed`` is the text of the "allowed" column of ``bluffsim games``;
    ``default_text`` its "default" column (``repr``-like of ``default`` if empty);
    ``derive`` computes the value when the given one is ``None`` (a default that
    depends on other options); ``at`` / ``past`` give (for the rules at hand) the
    values accepted at the bounds and values refused past them.
    """

    name: str
    default: Any
    meaning: str
    allowed: str
    check: Check
    at: Callable[[Any], tuple[Any, ...]]
    past: Callable[[Any], tuple[Any, ...]]
    default_text: str = ""
    derive: Callable[[Any], Any] | None = None

    def accepted(self, rules: Any) -> tuple[Any, ...]:
        """Values accepted at this option's bounds, given the other options of ``rules``."""
        return self.at(rules)

    def refused(self, rules: Any) -> tuple[Any, ...]:
        """Values just past this option's bounds (and of a wrong type), all refused."""
        return self.past(rules)

    @property
    def shown_default(self) -> str:
        """The default as ``bluffsim games`` prints it."""
        if self.default_text:
            return self.default_text
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        return str(self.default)


def int_option(name: str, default: Any, lo: Bound, hi: Bound, meaning: str, allowed: str = "",
               refusal: str | Callable[[Any], str] = "", **kw: Any) -> Option:
    """An integer option in ``lo..hi`` (bounds may depend on the rules, e.g. ``num_players``)."""

    def check(v: Any, r: Any) -> str | None:
        lo_, hi_ = _bound(lo, r), _bound(hi, r)
        if is_int(v) and lo_ <= v <= hi_:
            return None
        if refusal:
            return refusal(r) if callable(refusal) else refusal
        return f"{lo_}..{hi_}"

    return Option(name, default, meaning, allowed or f"{lo}..{hi}", check,
                  at=lambda r: (_bound(lo, r), _bound(hi, r)),
                  past=lambda r: (_bound(lo, r) - 1, _bound(hi, r) + 1, float(_bound(lo, r)), True),
                  **kw)


def bool_option(name: str, default: bool, meaning: str, allowed: str = "true/false") -> Option:
    """A true/false option."""
    return Option(name, default, meaning, allowed,
                  lambda v, r: None if isinstance(v, bool) else "true or false",
                  at=lambda r: (False, True), past=lambda r: (0, 1, "true"))


def choice_option(name: str, default: str, choices: tuple[str, ...], meaning: str,
                  allowed: str = "") -> Option:
    """An option among a few names."""
    text = " | ".join(choices)
    return Option(name, default, meaning, allowed or text,
                  lambda v, r: None if v in choices else text,
                  at=lambda r: choices, past=lambda r: ("", choices[0].upper(), 0))


def seats_option(name: str, meaning: str, allowed: str) -> Option:
    """A tuple of distinct seats (default: none)."""

    def check(seats: Any, r: Any) -> str | None:
        p = r.num_players
        ok = (isinstance(seats, tuple) and len(set(seats)) == len(seats)
              and all(is_int(x) and 0 <= x < p for x in seats))
        return None if ok else f"distinct seats in 0..{p - 1}"

    return Option(name, (), meaning, allowed, check,
                  at=lambda r: ((), tuple(range(r.num_players))),
                  past=lambda r: ((-1,), (r.num_players,), (0, 0), [0], (True,)))


def options_table(options: tuple[Option, ...]) -> str:
    """The options as a markdown table (option, default, allowed, meaning) for a docstring."""
    rows = [("option", "default", "allowed", "meaning")]
    rows += [(f"`{o.name}`", o.shown_default, o.allowed, o.meaning) for o in options]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def validate_options(rules: Any) -> None:
    """Check (and derive) every declared option of a rules dataclass: its ``__post_init__``."""
    cls = type(rules)
    game_id, options, extra = cls.GAME_ID, cls.OPTIONS, cls.EXTRA_CHECK
    for o in options:
        value = getattr(rules, o.name)
        if value is None and o.derive is not None:
            object.__setattr__(rules, o.name, o.derive(rules))
            continue
        allowed = o.check(value, rules)
        if allowed is not None:
            raise RulesError(f"{game_id} option {o.name}={value!r} is invalid; allowed: {allowed}")
    problem = extra(rules) if extra is not None else None
    if problem is not None:
        name, value, allowed = problem
        raise RulesError(f"{game_id} option {name}={value!r} is invalid; allowed: {allowed}")


def declare_options(game_id: str, options: tuple[Option, ...],
                    extra: Callable[[Any], tuple[str, Any, str] | None] | None = None
                    ) -> Callable[[type], type]:
    """Class decorator (above ``@dataclass``): attach the options, derive ``describe``.

    The class sets ``__post_init__ = validate_options``; the decorator adds
    ``describe()`` and ``from_options(num_players, **options)``.  ``extra(rules)`` is a
    check across options run after all of them (``None`` = valid, else
    ``(option, value, allowed)`` of the error).  The dataclass fields must be the
    declared options, in order, with the declared defaults (checked here).
    """

    def wrap(cls: type) -> type:
        fields = dataclasses.fields(cls)
        names = tuple(f.name for f in fields)
        if names != tuple(o.name for o in options):
            raise TypeError(f"{game_id} Rules fields {names} differ from the declared options")
        for f, o in zip(fields, options, strict=True):
            if f.default != o.default:
                raise TypeError(f"{game_id} option {f.name}: field default {f.default!r} "
                                f"differs from the declared {o.default!r}")
        if cls.__dict__.get("__post_init__") is not validate_options:
            raise TypeError(f"{game_id} Rules must set __post_init__ = validate_options")

        def describe(klass: type) -> list[tuple[str, str, str]]:
            """(option, default, allowed) rows for ``bluffsim games``."""
            return [(o.name, o.shown_default, o.allowed) for o in options]

        cls.GAME_ID = game_id  # type: ignore[attr-defined]
        cls.OPTIONS = options  # type: ignore[attr-defined]
        cls.EXTRA_CHECK = staticmethod(extra) if extra else None  # type: ignore[attr-defined]
        cls.describe = classmethod(describe)  # type: ignore[attr-defined]

        def from_options(klass: type, num_players: int = 4, **kwargs: Any) -> Any:
            """Rules from keyword options (TOML lists become tuples); unknown names raise
            ``RulesError`` listing the allowed ones."""
            return rules_from_options(klass, game_id, num_players, kwargs)

        cls.from_options = classmethod(from_options)  # type: ignore[attr-defined]
        return cls

    return wrap
