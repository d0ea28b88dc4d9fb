"""Compiled policies see only what a player sees: re-dealing the cards the current player cannot
see leaves the observation record the fused loop fills (``observe_row``) byte for byte the same,
and so every built-in policy's decision, at every table size; and no compiled agent module
reads the engine's records."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import agents
import bluffsim
from agents.fused import COUNTING, HEURISTIC, Builtins
from agents.random import random_policy
from tests.fused import policy_on_states
from tests.games import random_actions

AGENTS_DIR = Path(agents.__file__).parent
TABLES = [("qdv", 2), ("qdv", 4), ("legumes", 3), ("legumes", 5), ("veru", 3), ("veru", 6)]


def record_bytes(game, st) -> bytes:
    """The observation record ``observe_row`` fills for game 0 of ``st``, as bytes."""
    rec = game.observation_record()
    game.kernels.observe_row(st.data[0], st.hot[0], game._rec[0], rec[0])
    return rec.tobytes()


def policies(game) -> list[tuple[str, object, list[float], tuple]]:
    """(name, policy, parameter row, ctx) of every compiled built-in policy of ``game``."""
    builtins = Builtins.of(game.game_id)
    out = [("random", random_policy, [], ())]
    for name, kind in (("heuristic", HEURISTIC), ("counting", COUNTING)):
        agent = agents.make(name, game)
        assert builtins.classes[kind] is type(agent)
        out.append((name, type(agent).policy, agent.params_row(), agent.context()))
    return out


@pytest.mark.parametrize(("game_id", "players"), TABLES)
def test_redealing_hidden_cards_changes_no_record_and_no_decision(game_id, players) -> None:
    game = bluffsim.make(game_id, players)
    ref_module = type(game).__module__.rsplit(".", 1)[0] + ".reference"
    reference = __import__(ref_module, fromlist=["redeal_hidden"])
    ref = reference.ReferenceGame(game.rules)
    checked = 0
    for seed in range(60):
        s, st = ref.new_game(seed), game.init([seed])
        for _ in range(seed % 6 * 5):  # positions at several depths
            if s.done:
                break
            a = random_actions(game, st)
            ref.apply(s, int(a[0]))
            game.step(st, a)
        if s.done:
            continue
        other = reference.redeal_hidden(s, s.current_player, 1000 + seed, game.rules)
        a_st, b_st = game.from_reference([s]), game.from_reference([other])
        assert record_bytes(game, a_st) == record_bytes(game, b_st), f"seed {seed}"
        for name, policy, row, ctx in policies(game):
            got_a = policy_on_states(game, policy, row, ctx)(a_st)
            got_b = policy_on_states(game, policy, row, ctx)(b_st)
            assert got_a[0] == got_b[0], f"{name}, seed {seed}"
        checked += 1
    assert checked >= 30


RECORDS = {"data", "hot"}   # a batch's records, as the engine's code names them
ONE_GAME = {"g", "h"}       # one game's records (``g``, ``h`` together, as in every rule function)


def test_no_compiled_agent_reads_the_engine_records() -> None:
    """Outside the fused loops (which fill the record: ``agents/fused.py`` and each game's
    ``fused.py``) no agent function takes a game's state records, and no agent module imports a
    game's engine kernels: policies read ``obs``, ``mask``, ``key``, ``r``, ``params``, ``ctx``."""
    offenders = []
    for path in sorted(AGENTS_DIR.rglob("*.py")):
        if path.name == "fused.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.Lambda):
                args = {a.arg for a in node.args.args}
                taken = args & RECORDS | (ONE_GAME if ONE_GAME <= args else set())
                if taken:
                    offenders.append(f"{path.name}:{node.lineno} takes {sorted(taken)}")
            if isinstance(node, ast.ImportFrom) and re.fullmatch(
                    r"bluffsim\.games\.\w+(\.kernels\w*)?", node.module or ""):
                names = {a.name for a in node.names}
                engine = names if "kernels" in node.module else names & {"kernels"}
                # the rules record and the observation's bounds are what every seat knows
                if engine - {"rules_record", "OBS_BOUNDS"}:
                    offenders.append(f"{path.name}:{node.lineno} imports {node.module} {engine}")
    assert not offenders, "\n".join(offenders)
