"""Golden decisions: every built-in agent's batched ``act``, pinned by hash on played positions.

For each game and table size a batch of games is played by a mixed lineup (counting, heuristic,
random by seat), and at every decision every pinned agent (random, counting, the heuristic at its
defaults and at both extremes of each parameter) is asked for its action on the same observation,
mask and stream.  The hash of all those answers is pinned in ``golden_decisions.json``; it was
written before the agents became one compiled implementation each and may only change with a
deliberate change of behaviour, said in the commit:

    python -m tests.test_agent_golden --update
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import agents
import bluffsim
from bluffsim.evaluate import heuristic_extremes
from bluffsim.rng import AgentRNG

PINNED = Path(__file__).with_name("golden_decisions.json")
TABLES = {"qdv": (2, 3, 4, 6), "legumes": (2, 3, 4, 6), "veru": (3, 4, 6)}
GAMES = 24        # games per table
MAX_STEPS = 400   # decisions per game at most (long veru games are cut there)


def pinned_agents(game: bluffsim.api.Game) -> dict[str, object]:
    """The agents whose answers are hashed, by label."""
    out = {"random": agents.make("random", game), "counting": agents.make("counting", game),
           "heuristic": agents.make("heuristic", game)}
    for param, ends in heuristic_extremes(game.game_id).items():
        for end in ends:
            out[f"heuristic {param}={end}"] = agents.make("heuristic", game, **{param: end})
    return out


def decisions_digest(game_id: str, players: int) -> str:
    """SHA-256 over every pinned agent's action at every decision of the table's games."""
    game = bluffsim.make(game_id, num_players=players)
    lineup = [agents.make(n, game) for n in ("counting", "heuristic", "random")]
    asked = pinned_agents(game)
    st = game.init(np.arange(1000, 1000 + GAMES, dtype=np.uint64))
    h = hashlib.sha256()
    for _ in range(MAX_STEPS):
        if st.done.all():
            break
        obs, mask = game.observe(st), st.legal_action_mask.copy()
        rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
        running = ~st.done
        answers = {label: np.where(running, a.act(obs, mask, rng), -1) for label, a in
                   asked.items()}
        for label in sorted(answers):
            h.update(label.encode())
            h.update(answers[label].astype(np.int64).tobytes())
        seat_kind = np.maximum(st.current_player, 0) % len(lineup)
        actions = np.where(seat_kind == 0, answers["counting"],
                           np.where(seat_kind == 1, answers["heuristic"], answers["random"]))
        game.step(st, np.where(running, actions, -1))
    return h.hexdigest()


def all_digests() -> dict[str, str]:
    """``{"<game> <players>p": digest}`` for every pinned table."""
    return {f"{g} {p}p": decisions_digest(g, p) for g, ps in TABLES.items() for p in ps}


@pytest.mark.parametrize("table", [f"{g} {p}p" for g, ps in TABLES.items() for p in ps])
def test_agents_make_their_pinned_decisions(table: str) -> None:
    pinned = json.loads(PINNED.read_text())
    game_id, players = table.split()
    assert decisions_digest(game_id, int(players[:-1])) == pinned[table], (
        f"{table}: a built-in agent's decisions changed (module docstring)")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python -m tests.test_agent_golden --update")
    PINNED.write_text(json.dumps(all_digests(), indent=1) + "\n")
