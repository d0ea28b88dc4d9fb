"""The game spec: everything outside a game's package needs to know about the game, declared once.

Each game package ``bluffsim/games/<id>/__init__.py`` defines ``SPEC = GameSpec(...)``;
``bluffsim.list_games()`` finds the packages that do (no list of games anywhere
else), and the registry, the tournament runner, terminal play, the adapters,
the analysis and the test suites read the spec instead of naming game
specifics.  Adding a game means writing its package and its ``SPEC``: see
docs/adding_a_game.md.

| field             | meaning                                                                   |
|-------------------|---------------------------------------------------------------------------|
| `game_id`         | short id used everywhere (`bluffsim.make(game_id)`, configs, results)      |
| `name`, `summary` | display name and one-line description (`bluffsim games`)                   |
| `rules`           | the frozen rules dataclass (`OPTIONS`, `from_options`, `action_names`)    |
| `engine`          | the fast batched engine class (satisfies `bluffsim.api.FastEngine`)       |
| `reference`       | the reference module: `ReferenceGame`, `scenario`, `redeal_hidden`         |
| `observation`     | the observation module: field table, `tensor_layout`, `to_tensor`          |
| `display`         | module path of the terminal display (`DISPLAY` class), imported on use     |
| `seat_columns`    | round-record columns holding a seat (each gets an `<column>_agent` column); a
|                   | round record also has `caller` (the checking seat) and `call_right`, and a
|                   | `call` of "timeout" marks a round that ended without a check             |
| `claim_seat`      | the round-record column of the seat whose claim a check tested             |
| `claim_false`     | rounds DataFrame -> bool Series: that claim was false (bluff statistics)  |
| `claim_columns`   | the round-record columns `claim_false` reads                              |
| `max_game_length` | rules -> an upper bound on the decisions of one game (its safety caps)    |
| `streams`         | the `bluffsim.rng.Stream` names the game draws from                       |
| `test_tables`     | (players, options, tag) the conformance suite runs the game at            |
| `round_metrics`   | extra per-agent rates of the report's bluff table (`RoundMetric`s)        |
| `play_seats`,     | `bluffsim play`'s default seats, and with `--watch` (default: a human, or |
| `watch_seats`     | an agent, then `random` seats up to the default player count)             |
| `settled`         | (state, rows, seats) -> (settled bool[n], score int[n, P]): whether a     |
|                   | seat's final place is fixed while the game goes on, and a score per seat  |
|                   | that orders every seat as the final placements will (higher = better);    |
|                   | the Gymnasium env's `end_when_out` (None: the game has none)              |
| `potential`       | (state, rows, seats) -> float32[n], the Gymnasium env's `shaping`         |
|                   | potential (None: the game has none)                                       |
| `rules_doc`       | the markdown file holding the game's rules: a `## ` section whose heading |
|                   | names the id in backticks and names every option (`tests/test_rules_doc.py`); |
|                   | relative to the repository root (default `docs/rules.md`) or absolute      |
| `exploit_presets` | (name, preset) pairs for `bluffsim exploit`: rules small enough for CFR   |
|                   | (`players`, `deals`, `options`, optional `learned` weights file and       |
|                   | `default` for the CLI's default preset)                                   |
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

# one conformance-suite table: players, rules options as (name, value) pairs, a tag for its id
TestTable = tuple[int, tuple[tuple[str, Any], ...], str]


@dataclass(frozen=True)
class RoundMetric:
    """An extra per-agent rate of the report's bluff table: rounds whose ``seat`` column holds a
    seat (>= 0) count for that seat's agent in ``count``; ``share`` is the share where
    ``flag(rounds)`` holds.  ``columns`` are the round-record columns ``flag`` reads."""

    count: str
    share: str
    seat: str
    flag: Callable[[Any], Any]
    columns: tuple[str, ...]


@dataclass(frozen=True)
class GameSpec:
    """One game's declaration (module table): read by every part of bluffsim outside the game."""

    game_id: str
    name: str
    summary: str
    rules: type
    engine: type
    reference: ModuleType
    observation: ModuleType
    display: str
    seat_columns: tuple[str, ...]
    claim_seat: str
    claim_false: Callable[[Any], Any]
    claim_columns: tuple[str, ...]
    max_game_length: Callable[[Any], int]
    streams: tuple[str, ...]
    test_tables: tuple[TestTable, ...]
    round_metrics: tuple[RoundMetric, ...] = ()
    play_seats: str = ""
    watch_seats: str = ""
    settled: Callable[..., Any] | None = None
    potential: Callable[..., Any] | None = None
    rules_doc: str = "docs/rules.md"
    exploit_presets: tuple[tuple[str, dict[str, Any]], ...] = field(default=(), hash=False)

    def terminal_seats(self, watch: bool = False) -> str:
        """``bluffsim play``'s default ``--seats`` (``watch``: for ``--watch``)."""
        declared = self.watch_seats if watch else self.play_seats
        if declared:
            return declared
        first = "random" if watch else "human"
        return ",".join([first] + ["random"] * (self.players[2] - 1))

    @property
    def players(self) -> tuple[int, int, int]:
        """(fewest, most, default) players, from the rules' ``num_players`` option."""
        option = next(o for o in self.rules.OPTIONS if o.name == "num_players")
        lo, hi = option.accepted(None)
        return int(lo), int(hi), int(option.default)

    def make_rules(self, num_players: int | None = None, **options: Any) -> Any:
        """Validated rules (``RulesError`` names a bad option and what is allowed)."""
        n = self.players[2] if num_players is None else num_players
        return self.rules.from_options(num_players=n, **options)

    def make(self, num_players: int | None = None, **options: Any) -> Any:
        """The fast engine for these rules (what ``bluffsim.make`` returns)."""
        return self.engine(self.make_rules(num_players, **options))

    def make_reference(self, rules: Any) -> Any:
        """The scalar reference engine for ``rules``."""
        return self.reference.ReferenceGame(rules)

    @property
    def scenario(self) -> Callable[..., Any]:
        """The reference module's ``scenario(...)``: a state built from explicit cards."""
        return self.reference.scenario

    @property
    def redeal_hidden(self) -> Callable[..., Any]:
        """The reference module's ``redeal_hidden(state, seat, seed, rules)``: the cards ``seat``
        cannot see dealt anew, consistent with everything ``seat`` knows."""
        return self.reference.redeal_hidden

    @property
    def observation_spec(self) -> Any:
        """The observation declared once (``observation.SPEC``, a ``games.obsspec.ObservationSpec``)."""
        return self.observation.SPEC

    def display_module(self) -> ModuleType:
        """The terminal display module (imported on first use; terminal play only)."""
        return importlib.import_module(self.display)
