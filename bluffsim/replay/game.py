"""One recorded game played again on the reference engine, and checked against its record.

The game is dealt from its recorded ``seed`` and stepped on the scalar reference engine
(``bluffsim.adapters.single.SingleGame``), every seat's agent rebuilt from the lineup and asked
exactly as the runner asked it: agents draw from streams keyed by (game seed, seat, decision),
so they choose again what they chose then.  A seat whose decisions cannot be computed again —
``human``, ``llm`` and every other text agent (``text:`` callables; ``text-counting`` too when
its transcript is there) — plays the actions of the game's ``transcripts/<game>.jsonl``
(decision by decision, each checked legal), and a seat that forfeited is placed last as the
runner placed it (``tournament.runner.forfeit_placements``).

**The check.**  At the end every seat's ``placement``, ``won``, ``score``, ``rounds``,
``decisions``, ``truncated`` (and ``forfeit``) must equal the game's rows of the results, and
every round's record (the engine's own ``round_record``, of a fast-engine copy of the reference
state) its row of ``rounds.parquet``; else ``ReplayError`` says the first difference and
whether the code changed since the run (``manifest.json``'s git hash against this checkout's).
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

import agents as agent_registry
import bluffsim
from bluffsim.adapters.single import SingleGame
from bluffsim.api import BluffsimError
from bluffsim.replay.record import CHECKED_COLUMNS, ReplayError, Source

HUMAN = "human"
COMPUTED, RECORDED = "computed", "recorded"   # how a seat's decisions are replayed


@dataclass
class Step:
    """One decision of the replayed game: who chose what, and the true states around it."""

    decision: int          # its index in the game (0 = the first decision)
    seat: int
    action: int
    name: str              # the engine's action name
    round: int             # the round under way (1 = the first)
    legal: list[int]       # the legal action ids the seat chose from
    before: Any            # the reference state before the decision (a copy)
    after: Any             # and after it
    text: dict[str, Any] | None = None   # a text seat's transcript line (prompt, answers, parse)


@dataclass
class Replayed:
    """A replayed game: its table, the steps from the deal to the end, and the check's verdict."""

    source: str            # the results table it came from (for headings)
    game: int              # the game id in the results
    game_id: str           # the game played (``qdv`` …)
    seed: int
    labels: list[str]      # each seat's agent label
    kinds: list[str]       # per seat: COMPUTED or RECORDED (from the transcript)
    single: SingleGame
    start: Any             # the reference state as dealt
    steps: list[Step]
    placements: list[int]  # after forfeits, as the results hold them
    forfeit: list[int]     # seats that forfeited
    rounds: int            # rounds played, the one that ended the game included
    checked: str = ""      # what the check compared (one line)
    version: dict[str, str] = field(default_factory=dict)

    @property
    def final(self) -> Any:
        """The reference state at the end."""
        return self.steps[-1].after if self.steps else self.start

    @property
    def players(self) -> int:
        """Seats at the table."""
        return len(self.labels)


# ---------------------------------------------------------------- seats
def seat_kind(agent: str, game_id: str, has_transcript: bool) -> str:
    """COMPUTED when the agent can choose again, RECORDED when its choices come from the
    transcript (module docstring); an agent that no longer imports is a ``ValueError``."""
    from agents.custom import import_class, is_spec, is_text_spec
    from agents.text import TextAgent, TextCounting

    if agent == HUMAN or is_text_spec(agent):
        return RECORDED
    agent_registry.check_name(agent)
    cls = import_class(agent) if is_spec(agent) else agent_registry.REGISTRY[agent].get(game_id)
    if isinstance(cls, type) and issubclass(cls, TextAgent):
        return COMPUTED if issubclass(cls, TextCounting) and not has_transcript else RECORDED
    return COMPUTED


def _agents(source: Source, single: SingleGame, labels: list[str], kinds: list[str],
            note: Callable[[str], None]) -> dict[str, Any]:
    """The computed seats' agents by label, built as the run built them."""
    from bluffsim.kernel_cache import COMPILING
    from bluffsim.play import agents_cold

    vec = single.vectorised()
    wanted = sorted({x for x, k in zip(labels, kinds, strict=True) if k == COMPUTED})
    names = [source.lineup.agents[x][0] for x in wanted]
    if names and agents_cold(vec, names):
        note(COMPILING)
    built = {}
    for label in wanted:
        name, params = source.lineup.agents[label]
        try:
            built[label] = agent_registry.make(name, vec, **params)
        except (ValueError, TypeError) as e:
            raise ReplayError(f"agent {label!r} ({name}) of {source.name} cannot be built again: "
                              f"{e}") from None
    return built


def _seats(source: Source, rows: pd.DataFrame, transcript: list[dict] | None
           ) -> tuple[list[str], list[str]]:
    """Each seat's label and kind; a label missing from the lineup or an agent that no longer
    imports is an error."""
    labels = [str(x) for x in rows["agent"]]
    kinds = []
    for seat, label in enumerate(labels):
        if label not in source.lineup.agents:
            raise ReplayError(f"seat {seat}'s agent label {label!r} of {source.games_path.name} "
                              f"is not in the lineup of {source.name}")
        name = source.lineup.agents[label][0]
        try:
            kinds.append(seat_kind(name, source.lineup.game, transcript is not None))
        except ValueError as e:
            raise ReplayError(f"seat {seat} ({label}): agent {name!r} cannot be built again "
                              f"({str(e).removeprefix(f'agent {name!r}: ')}); replaying its "
                              "games needs it importable as it was") from None
    if transcript is None and RECORDED in kinds:
        seat = kinds.index(RECORDED)
        raise ReplayError(f"seat {seat} ({labels[seat]}) plays from its recorded answers, but "
                          f"{source.name} has no transcript of this game (transcripts/ holds "
                          "them for `bluffsim run`; `bluffsim evaluate` keeps none)")
    return labels, kinds


# ---------------------------------------------------------------- the replay
def replay_game(source: Source, game: int, note: Callable[[str], None] | None = None) -> Replayed:
    """Play game ``game`` of ``source`` again and check it against its record (module
    docstring); ``note`` gets progress notes (e.g. that kernels compile first)."""
    note = note or (lambda text: print(text, file=sys.stderr, flush=True))
    rows = source.game_rows(game)
    lineup = source.lineup
    if len(rows) != lineup.players:
        raise ReplayError(f"game {game} of {source.name} has {len(rows)} seat rows; the lineup "
                          f"has {lineup.players} players")
    transcript = source.transcript(game)
    labels, kinds = _seats(source, rows, transcript)
    try:
        single = SingleGame(lineup.game, lineup.players, **lineup.rules)
    except BluffsimError as e:
        raise ReplayError(f"the rules of {source.name} no longer build the game: {e}") from None
    built = _agents(source, single, labels, kinds, note)
    recorded = _decisions(transcript)
    seed = int(rows["seed"].iloc[0])
    state = single.new_state(seed)
    start = copy.deepcopy(state)
    steps: list[Step] = []
    diverged = _divergence(source, game)
    round_records = []
    while not state.done:
        seat, d = int(state.current_player), int(state.num_decisions)
        legal = single.legal_actions(state)
        line = recorded.get(d) if kinds[seat] == RECORDED else None
        if kinds[seat] == RECORDED:
            action = _recorded_action(line, seat, d, diverged)
        else:
            action = _agent_action(single, built[labels[seat]], labels[seat], state, seed, game)
        if action not in legal:
            diverged(f"seat {seat} ({labels[seat]}) chose {single.action_names[action]!r} at "
                     f"decision {d}, which is illegal in the replayed game")
        before, rounds_before = copy.deepcopy(state), state.num_rounds
        single.apply(state, action)
        if state.num_rounds != rounds_before:
            round_records.append(_round_record(single, state))
        steps.append(Step(d, seat, action, single.action_names[action], rounds_before + 1, legal,
                          before, copy.deepcopy(state), line))
    forfeit = _forfeits(transcript)
    out = Replayed(source.name, int(game), lineup.game, seed, labels, kinds, single, start, steps,
                   _placements(state, forfeit), forfeit, _rounds_played(state, steps),
                   version=version_note(source))
    out.checked = check(out, rows, round_records, source.round_rows(game), diverged)
    return out


def _decisions(transcript: list[dict] | None) -> dict[int, dict[str, Any]]:
    """A transcript's decision lines by decision index."""
    return {int(x["decision"]): x for x in transcript or [] if x.get("type") == "decision"}


def _recorded_action(line: dict | None, seat: int, decision: int,
                     diverged: Callable[[str], None]) -> int:
    """The action the transcript recorded for ``seat`` at ``decision``."""
    if line is None:
        diverged(f"the transcript has no decision {decision} (seat {seat} is to move)")
    elif int(line.get("seat", -1)) != seat:
        diverged(f"the transcript's decision {decision} is seat {line.get('seat')}'s; the "
                 f"replayed game has seat {seat} to move")
    return int(line["action"]) if line is not None else -1


def _agent_action(single: SingleGame, agent: Any, label: str, state: Any, seed: int,
                  game: int) -> int:
    """The computed seat's choice, asked as the runner asks it."""
    try:
        return single.agent_action(agent, state, seed)
    except Exception as e:  # an agent's bug, named as such
        raise ReplayError(f"agent {label!r} raised {type(e).__name__} in the replay of game "
                          f"{game}: {e}") from None


def _round_record(single: SingleGame, state: Any) -> dict[str, Any]:
    """The round that just ended as the engine records it (``round_record`` of a fast-engine
    copy of the reference state), one plain value per column."""
    vec = single.vectorised()
    rec = vec.round_record(vec.from_reference([state]), np.array([0]))
    return {k: np.asarray(v)[0].item() if hasattr(np.asarray(v)[0], "item") else v[0]
            for k, v in rec.items()}


def _forfeits(transcript: list[dict] | None) -> list[int]:
    """The seats the transcript's end line says forfeited."""
    end = [x for x in transcript or [] if x.get("type") == "end"]
    return sorted(int(p) for p in end[-1].get("forfeit", [])) if end else []


def _placements(state: Any, forfeit: list[int]) -> list[int]:
    """Final placements with forfeited seats last, as the runner writes them."""
    from bluffsim.tournament.runner import forfeit_placements

    place = np.asarray([state.placements], dtype=np.int64)
    mask = np.zeros_like(place, dtype=bool)
    mask[0, forfeit] = True
    return forfeit_placements(place, mask)[0].tolist()


def _rounds_played(state: Any, steps: list[Step]) -> int:
    """Rounds played, the one under way when the game ended included (``bluffsim play``'s
    count: a game ending mid-round leaves ``num_rounds`` behind by one)."""
    ended_round = bool(steps) and steps[-1].before.num_rounds != state.num_rounds
    return int(state.num_rounds) + (not ended_round)


# ---------------------------------------------------------------- the check
def version_note(source: Source) -> dict[str, str]:
    """The run's bluffsim version and git hash (``manifest.json``) and this checkout's."""
    from bluffsim.results import git_hash

    m = source.manifest
    return {"run_version": str(m.get("bluffsim_version", "")), "run_git": str(m.get("git_hash", "")),
            "version": bluffsim.__version__, "git": git_hash()}


def _why(version: dict[str, str]) -> str:
    """Why a replay can differ, from the code versions."""
    run, now = version.get("run_git", ""), version.get("git", "")
    if not run and not version.get("run_version"):
        return "the run's code version is not recorded (no manifest.json)"
    if (run, version.get("run_version")) != (now, version.get("version")):
        return (f"the run was played by bluffsim {version.get('run_version')} at git "
                f"{run[:12] or '?'}, this is {version.get('version')} at git {now[:12] or '?'}: "
                f"replay it with the run's code (git checkout {run[:12] or '...'})")
    return (f"the code is the run's commit (git {run[:12]}), so an uncommitted change, an "
            "agent's source or an installed package changed since the run")


def _divergence(source: Source, game: int) -> Callable[[str], Any]:
    """A function that raises the one-line error of a replay that left its record."""
    version = version_note(source)

    def diverged(what: str) -> Any:
        raise ReplayError(f"game {game} of {source.name} does not replay as recorded: {what}; "
                          f"{_why(version)}")

    return diverged


def computed_rows(r: Replayed) -> dict[str, list[Any]]:
    """The replayed game's per-seat values of the checked columns."""
    s = r.final
    vec = r.single.vectorised()
    score = vec.final_score(vec.from_reference([s]), np.array([0]))[0]
    p = r.players
    return {"placement": list(r.placements), "won": [x == 1 for x in r.placements],
            "score": [int(x) for x in score], "rounds": [int(s.num_rounds)] * p,
            "decisions": [int(s.num_decisions)] * p, "truncated": [bool(s.truncated)] * p,
            "forfeit": [i in r.forfeit for i in range(p)]}


def check(r: Replayed, rows: pd.DataFrame, rounds: list[dict[str, Any]],
          recorded_rounds: pd.DataFrame | None, diverged: Callable[[str], Any]) -> str:
    """Compare the replay with its results rows (module docstring); returns what was compared."""
    mine = computed_rows(r)
    columns = [c for c in CHECKED_COLUMNS if c in rows.columns]
    for c in columns:
        theirs = [v.item() if hasattr(v, "item") else v for v in rows[c].tolist()]
        for seat, (a, b) in enumerate(zip(mine[c], theirs, strict=True)):
            if a != b:
                diverged(f"seat {seat}'s {c} is {a}, the results have {b}")
    said = f"{', '.join(columns)} of every seat equal the results"
    if recorded_rounds is None:
        return said
    if len(recorded_rounds) != len(rounds):
        diverged(f"{len(rounds)} rounds ended, rounds.parquet has {len(recorded_rounds)}")
    seat_columns = bluffsim.spec(r.game_id).seat_columns
    for k, (rec, (_, row)) in enumerate(zip(rounds, recorded_rounds.iterrows(), strict=True)):
        labelled = {f"{c}_agent": r.labels[int(rec[c])] if int(rec[c]) >= 0 else ""
                    for c in seat_columns if c in rec}
        for c, v in {**rec, **labelled}.items():
            if c in row.index and _differ(v, row[c]):
                diverged(f"round {k}'s {c} is {v}, rounds.parquet has {row[c]}")
    return f"{said}, and each of the {len(rounds)} rounds its row of rounds.parquet"


def _differ(a: Any, b: Any) -> bool:
    """Two recorded values differ (numbers by value, text as text)."""
    b = b.item() if hasattr(b, "item") else b
    if isinstance(a, str) or isinstance(b, str):
        return str(a) != str(b)
    return a != b
