"""Print the messages of one decision as a text agent receives them (docs/text_protocol.md).

``python -m bluffsim.text GAME [--players N] [--seed S] [--steps K] [--no-legal]`` plays ``K``
decisions of game seed ``S`` with uniform legal actions (the ``random`` agent's choices: the first
word of each seat's stream), then prints the system and user messages of the next decision.
"""

from __future__ import annotations

import argparse

import numpy as np

import bluffsim
from bluffsim.rng import AgentRNG
from bluffsim.text.protocol import protocol_for


def uniform_actions(st: object) -> np.ndarray:
    """The ``random`` agent's action of each game (the n-th legal action, n uniform)."""
    mask = st.legal_action_mask
    rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
    n = rng.below(np.maximum(mask.sum(axis=1), 1))
    return np.array([np.flatnonzero(row)[k] if row.any() else 0 for row, k in zip(mask, n,
                                                                                 strict=True)])


def example(game_id: str, players: int | None, seed: int, steps: int, list_legal: bool) -> str:
    """The messages of the decision after ``steps`` uniform decisions of game ``seed``."""
    game = bluffsim.make(game_id, players)
    st = game.init(np.array([seed]))
    for _ in range(steps):
        if st.done[0]:
            break
        game.step(st, uniform_actions(st))
    if st.done[0]:
        raise SystemExit(f"bluffsim: error: game {seed} ends within {steps} decisions; give "
                         "fewer --steps")
    obs = {k: v[0] for k, v in game.observe(st).items()}
    msgs = protocol_for(game, list_legal).messages(obs, st.legal_action_mask[0])
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in msgs)


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and print the example."""
    ap = argparse.ArgumentParser(prog="python -m bluffsim.text", description=__doc__.split("\n")[0])
    ap.add_argument("game", choices=bluffsim.list_games())
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--no-legal", action="store_true", help="do not list the legal actions")
    a = ap.parse_args(argv)
    try:
        print(example(a.game, a.players, a.seed, a.steps, not a.no_legal))
    except bluffsim.BluffsimError as e:
        raise SystemExit(f"bluffsim: error: {e}") from None


if __name__ == "__main__":
    main()
