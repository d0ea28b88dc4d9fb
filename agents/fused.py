"""Built-in agents inside the compiled loop: a lineup of compiled per-row policies played
by one numba loop over the games, engine and agents fused.

The game-independent part lives here, the loop included (``play_seats_loop``, written once
for every game).  Each game that has compiled policies ships a module ``agents.<game>.fused``
holding only ``play_seats_kernel(args)``: a cached kernel that calls ``play_seats_loop`` with
the policies of the game's registered ``heuristic`` and ``counting`` agents (kinds
``HEURISTIC`` and ``COUNTING``), ``kernels.observe_row``, ``kernels.tensor_row`` and
``kernels.apply``.  numba caches no kernel that takes functions as arguments, hence one per
game.  ``args`` is one tuple ``(data, hot, rules, obs, num_actions, decisions, counts,
seat_agent, kinds, params, round_stop, first_game, resume, pending, net, net_table, obs_size,
hctx, cctx, uctx)``.

Those agents are ``CompiledAgent`` classes (``Builtins``): each member's ``params_row()`` is
its row and ``context()`` its ``ctx`` (fetched at each call: memo tables grow), and ``grow()``
makes room when counting returned ``MEMO_FULL``; a kind the lineup lacks gets a default
agent's ``ctx``, which the kernel is typed on.  ``learned`` is compiled here for every game, on
the game's generated ``tensor_row`` of the observation record, and ``random`` is
``agents.random.random_policy``.

Before each decision of a compiled policy the loop fills the observation record ``obs[0]``
from the engine (``observe_row``); the policy gets that record, the legal mask and the
decision's agent key, nothing else, so what it decides cannot depend on what the seat may not
see.

The loop plays from game ``first_game`` on (``resume``: continuing a call that stopped
there, whose ``round_over`` stays), adding to ``counts``; it returns -1 when done, ``b >= 0``
when game ``b``'s policy chose an illegal action, ``-2 - b`` when a memo table ran full at
game ``b`` (nothing applied there: ``play`` grows the tables and resumes at ``b``).

``kinds[j]`` picks the policy of lineup member ``j`` and ``params[j]`` holds its parameters as
float64 (its ``params_row()``; ``learned``: first layer in the packed network, depth,
greedy); ``seat_agent[b, s]`` is the lineup member in seat ``s`` of game ``b`` (the runner's
``Schedule.seat_lineup``).  A member of kind ``EXTERNAL`` is an agent the loop cannot run (a
user's Python agent, the learner of a Gymnasium env): when it is to move in game ``b`` the loop
plays ``pending[b]`` if that is an action (and sets it to -1), else stops game ``b`` there and
goes on with the next; the caller asks the agent and sets ``pending``.  Each policy is the one
its agent's ``act`` runs (``tests/test_fused_agents.py`` checks the record the loop fills gives
the decisions ``act`` makes from ``observe``), so a tournament played here gives the same
``games``/``rounds`` records as the stepped runner.

An agent has a compiled policy when it is a ``RandomAgent`` or a ``LearnedAgent`` (exactly
those classes) or a ``CompiledAgent`` whose ``act`` is still ``CompiledAgent.act``; a replaced
``act`` or any other agent has none: ``fused_lineup`` then returns None, or, with
``external=True``, makes it an ``EXTERNAL`` member.

What the fused loop gains end to end, and its history: ``docs/bench.md`` ("Built-in agents in the
fused loops").
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from agents.base import REGISTRY
from agents.learned import (
    LearnedAgent,
    forward_row,
    forward_scratch,
    pack_layers,
    policy_action,
    policy_probs,
)
from agents.policy import MEMO_FULL, CompiledAgent
from agents.random import RandomAgent, random_policy
from bluffsim import rng_nb as rn

# policy kinds, shared by every game's fused loop
RANDOM, HEURISTIC, COUNTING, LEARNED, EXTERNAL, USER = 0, 1, 2, 3, 4, 5
RANDOM_ACT = RandomAgent.act  # the act whose policy is ``random_policy``


def fused_module(game_id: str) -> Any | None:
    """The game's ``agents.<game>.fused`` module (found by that name: a game opts in by shipping
    one), or None when it has no compiled policies."""
    if not game_id.isidentifier():
        return None
    name = f"agents.{game_id}.fused"
    try:
        return importlib.import_module(name) if importlib.util.find_spec(name) else None
    except ModuleNotFoundError:  # no agents.<game> package at all
        return None


@njit(inline="always")
def learned_action(obs, mask, key, r, tensor_row, prow, net, net_table, x, scratch, probs):
    """``LearnedAgent``'s choice on the observation record ``obs``: the game's tensor of it
    (``tensor_row``), the packed network's logits (``forward_row``), the masked softmax and the
    decision's first uniform (``key``, unless greedy) — the very functions ``LearnedAgent.act``
    runs."""
    x[:] = 0
    tensor_row(obs, r, x)
    work, nz, int_logs = scratch
    logits = forward_row(x, net, net_table, np.int64(prow[0]), np.int64(prow[1]), work, nz, int_logs)
    n = logits.shape[0]
    m = mask[:n]
    greedy = prow[2] != 0.0
    policy_probs(logits, m, probs[:n])
    u = 0.0 if greedy else rn.uniform(rn.minor_word(key, 0))
    return np.int64(policy_action(probs[:n], m, u, greedy))


@njit(inline="always")
def play_seats_loop(heuristic_policy, counting_policy, user_policy, observe_row, tensor_row,
                    apply, args):
    """Each running game from ``first_game`` on advances up to ``decisions`` decisions in a row
    (stopping when it is over, when a round ends if ``round_stop``, and where an ``EXTERNAL``
    member is to move without a ``pending`` action), each decision by the policy of ``kinds[j]``
    with ``params[j]``, ``j = seat_agent[b, current seat]``: the same game as that many ``step``
    calls with the agents' ``act``.  A policy gets the current player's observation record
    (``observe_row`` into ``obs[0]``), the legal mask and the decision's agent key, nothing
    else (``agents.policy``).  ``counts`` gets (decisions made, rounds finished, games ended)
    added; ``round_over`` is left set on games whose last round ended during the call.
    Returns -1; ``b`` when game ``b``'s policy chose an illegal action; ``-2 - b`` when the
    counting policy returned ``MEMO_FULL`` at game ``b`` (nothing applied there) — module doc.

    ``user_policy`` (with ``uctx``) is a user's ``CompiledAgent`` policy, of kind ``USER``.
    Each policy's arrays (``hctx``, ``cctx``, ``uctx``) reach it only in its own branch: numba counts
    references to every array passed to a call, and doing so on every decision for arrays
    only counting reads made random play 4x slower (measured).

    ``args``: the tuple ``FusedLineup.play`` passes (module docstring)."""
    (data, hot, rules, obs, num_actions, decisions, counts, seat_agent, kinds, params, round_stop,
     first_game, resume, pending, net, net_table, obs_size, hctx, cctx, uctx) = args
    r = rules[0]
    o = obs[0]
    p = seat_agent.shape[1]
    keys = np.empty(p, np.uint64)  # each seat's agent stream key in the current game
    width = obs_size
    for li in range(net_table.shape[0]):
        width = max(width, net_table[li, 1])
    x = np.zeros(obs_size, np.float32)
    scratch = forward_scratch(width)  # learned_action's
    probs = np.empty(width)
    made = 0
    rounds = 0
    ended = 0
    code = -1
    for b in range(first_game, data.shape[0]):
        g = data[b]
        h = hot[b]
        if not (resume and b == first_game):
            h.round_over = 0
        if h.terminated or h.truncated:
            continue
        for s in range(p):
            keys[s] = rn.agent_key(h.seed, s)
        start_rounds = h.num_rounds
        for _ in range(decisions):
            me = np.int64(h.current_player)
            j = seat_agent[b, me]
            kind = kinds[j]
            key = rn.major_key(keys[me], np.int64(h.num_decisions))
            mask = h.mask[:num_actions]  # the engine's mask is padded past the actions
            if kind == RANDOM:
                a = random_policy(None, mask, key, None, None, None)
            elif kind == HEURISTIC:
                observe_row(g, h, r, o)
                a = np.int64(heuristic_policy(o, mask, key, r, params[j], hctx))
            elif kind == COUNTING:
                observe_row(g, h, r, o)
                a = np.int64(counting_policy(o, mask, key, r, params[j], cctx))
                if a == MEMO_FULL:
                    code = -2 - b
                    break
            elif kind == USER:
                observe_row(g, h, r, o)
                a = np.int64(user_policy(o, mask, key, r, params[j], uctx))
            elif kind == LEARNED:
                observe_row(g, h, r, o)
                a = learned_action(o, mask, key, r, tensor_row, params[j], net, net_table, x,
                                   scratch, probs)
            elif kind == EXTERNAL:
                a = pending[b]
                if a < 0:
                    break  # its agent has not chosen yet: the caller asks it
                pending[b] = -1
            else:
                a = np.int64(-1)
            if a < 0 or a >= mask.shape[0] or not mask[a]:
                code = b
                break
            apply(g, h, r, a)
            made += 1
            if h.terminated or h.truncated:
                ended += 1
                break
            if round_stop and h.round_over:
                break
        rounds += h.num_rounds - start_rounds
        if code != -1:
            break
    counts[0] += made
    counts[1] += rounds
    counts[2] += ended
    return code


@njit(cache=True)
def no_policy(obs, mask, key, r, params, ctx):
    """The policy of a kind a kernel does not compile: an illegal action (the loop stops)."""
    return -1


@dataclass(frozen=True)
class Builtins:
    """What a game's fused kernel runs besides ``random`` and ``learned``: its ``agents.<game>.fused``
    module (None: the game ships none) and the classes of its kinds ``HEURISTIC`` and
    ``COUNTING`` (the registered ``heuristic`` and ``counting`` compiled agents)."""

    module: Any
    classes: dict[int, type]

    @classmethod
    def of(cls, game_id: str) -> Builtins:
        """The built-in compiled agents of ``game_id`` (none without a fused module)."""
        module = fused_module(game_id)
        classes: dict[int, type] = {}
        for kind, name in ((HEURISTIC, "heuristic"), (COUNTING, "counting")):
            agent_cls = REGISTRY.get(name, {}).get(game_id)
            if module is not None and agent_cls is not None and issubclass(agent_cls,
                                                                           CompiledAgent):
                classes[kind] = agent_cls
        return cls(module, classes)

    def kind(self, policy: Any) -> int | None:
        """The kind whose policy is ``policy``, or None."""
        return next((k for k, c in self.classes.items() if c.policy is policy), None)

    def policies(self) -> tuple[Any, Any]:
        """(heuristic policy, counting policy): ``no_policy`` for a kind the game lacks."""
        return tuple(self.classes[k].policy if k in self.classes else no_policy
                     for k in (HEURISTIC, COUNTING))


_USER_KERNELS: dict = {}


def user_kernel(game: Any, builtins: Builtins, policy: Any) -> Any:
    """The fused kernel of ``game`` whose ``USER`` kind is ``policy`` (a ``CompiledAgent``'s),
    beside the game's built-in policies: compiled once per process and policy (numba caches
    no kernel that closes over a function)."""
    heuristic, counting = builtins.policies()
    key = (type(game).kernels.__name__, heuristic, counting, policy)
    if key not in _USER_KERNELS:
        kn = game.kernels
        observe_row, tensor_row, apply = kn.observe_row, kn.tensor_row, kn.apply

        @njit
        def kernel(args):
            return play_seats_loop(heuristic, counting, policy, observe_row, tensor_row, apply,
                                   args)

        _USER_KERNELS[key] = kernel
    return _USER_KERNELS[key]


class FusedLineup:
    """A lineup whose members have compiled policies for the game (or are ``EXTERNAL``):
    ``play`` advances a batch with all of them in one compiled call."""

    def __init__(self, game: Any, builtins: Builtins, kinds: np.ndarray, params: np.ndarray,
                 net: np.ndarray, net_table: np.ndarray, members: dict[int, Any]):
        self.game, self.kinds, self.params = game, kinds, params
        self.net, self.net_table = net, net_table
        # an agent of each kind HEURISTIC, COUNTING, USER (the lineup's first, else a default
        # built-in one, so that every call passes contexts of the same types: one compiled
        # kernel): whose ``context()`` each call passes, whose ``grow()`` makes room
        self.members = {kind: cls(game) for kind, cls in builtins.classes.items()
                        if kind not in members}
        self.members.update(members)
        user = members.get(USER)
        self.kernel = (builtins.module.play_seats_kernel if user is None
                       else user_kernel(game, builtins, type(user).policy))
        self.external = kinds == EXTERNAL
        self.obs = game.observation_record()  # the record every policy reads
        self.obs_size = int(game.observation_size) if (kinds == LEARNED).any() else 1

    def play(self, st: Any, seat_agent: np.ndarray, decisions: int, round_stop: bool = True,
             pending: np.ndarray | None = None) -> tuple[int, int, int, int]:
        """Each running game of ``st`` plays up to ``decisions`` decisions in a row with the
        policy of the lineup member in the current seat (``seat_agent``: int[B, P]), stopping
        when it ends, with ``round_stop`` when a round ends (``round_over`` is then set, so
        the caller can record the round before the next one overwrites it), and where an
        ``EXTERNAL`` member is to move: it plays ``pending[b]`` (int64[B], set back to -1) when
        that is an action, else the game waits there.  Returns (decisions made, rounds
        finished, games ended, first game whose policy chose an illegal action or -1; the
        kernel stops there, that action not applied)."""
        counts = np.zeros(3, np.int64)
        seats = np.ascontiguousarray(seat_agent, dtype=np.int64)
        if pending is None:
            pending = np.full(seats.shape[0], -1, np.int64)
        first, resume = 0, False
        while True:
            code = self.kernel((
                st.data, st.hot, self.game._rec, self.obs, self.game.num_actions, int(decisions),
                counts, seats, self.kinds, self.params, bool(round_stop), first, resume, pending,
                self.net, self.net_table, self.obs_size, *self.contexts()))
            if code > -2:
                return int(counts[0]), int(counts[1]), int(counts[2]), int(code)
            first, resume = -2 - code, True  # a memo table ran full there: grow, resume
            self.members[COUNTING].grow()

    def contexts(self) -> tuple[tuple, tuple, tuple]:
        """``(hctx, cctx, uctx)``: the ``context()`` of the lineup's heuristic, counting and
        user members (``()`` for a kind it lacks), fetched anew at each call."""
        return tuple(self.members[k].context() if k in self.members else ()
                     for k in (HEURISTIC, COUNTING, USER))


def runs_its_policy(agent: Any) -> bool:
    """Whether ``agent`` is a ``CompiledAgent`` whose ``act`` is still the one that runs its
    ``policy`` (a replaced ``act`` makes it a Python agent)."""
    return (isinstance(agent, CompiledAgent) and type(agent).act is CompiledAgent.act
            and "act" not in vars(agent))


def policy_kind(builtins: Builtins, agent: Any, user: Any) -> int | None:
    """The kind of ``agent``'s compiled policy in the game's fused loop, or None when it has
    none (module docstring); a ``CompiledAgent`` that is not one of the game's built-in
    policies is ``USER`` when its policy is ``user``'s (one user policy per kernel)."""
    if type(agent) is RandomAgent and type(agent).act is RANDOM_ACT and "act" not in vars(agent):
        return RANDOM
    if type(agent) is LearnedAgent and "act" not in vars(agent):
        return LEARNED
    if not runs_its_policy(agent):
        return None
    policy = type(agent).policy
    kind = builtins.kind(policy)
    if kind is not None:
        return kind
    return USER if user is not None and policy is type(user).policy else None


def _policy_row(kind: int, agent: Any, nets: list) -> list[float]:
    """The parameter row of ``agent``'s policy of ``kind``; a ``learned`` agent's layers are
    appended to ``nets`` (its row points at them)."""
    if kind == RANDOM:
        return []
    if kind == LEARNED:
        first = sum(len(layers) for layers in nets)
        nets.append(agent.layers)
        return [float(first), float(len(agent.layers)), float(agent.config["greedy"])]
    return list(agent.params_row())


def fused_lineup(game: Any, lineup: list[Any], external: bool = False) -> FusedLineup | None:
    """A ``FusedLineup`` for the agents of ``lineup`` (built for ``game``), or None when the
    game has no fused loop or some agent has no compiled policy for it (with ``external``,
    such agents become ``EXTERNAL`` members instead; None when none has one)."""
    if not hasattr(game, "_rec"):
        return None
    builtins = Builtins.of(getattr(game, "game_id", ""))
    user = next((a for a in lineup
                 if runs_its_policy(a) and builtins.kind(type(a).policy) is None), None)
    if builtins.module is None and user is None:  # fused only for a user's compiled agent
        return None
    kinds = np.zeros(len(lineup), np.int64)
    rows: list[list[float]] = []
    nets: list = []
    members: dict[int, Any] = {}
    for j, agent in enumerate(lineup):
        kind = policy_kind(builtins, agent, user)
        if kind is None and not external:
            return None
        kinds[j] = EXTERNAL if kind is None else kind
        rows.append([] if kind is None else _policy_row(kind, agent, nets))
        members.setdefault(int(kinds[j]), agent)
    if (kinds == EXTERNAL).all():
        return None
    params = np.zeros((len(lineup), max(1, max(len(r) for r in rows))), np.float64)
    for j, row in enumerate(rows):
        params[j, :len(row)] = row
    return FusedLineup(game, builtins, kinds, params, *_pack_nets(nets), members)


def _pack_nets(nets: list) -> tuple[np.ndarray, np.ndarray]:
    """Every learned member's layers in one packed network (``learned.pack_layers``)."""
    if not nets:
        return np.zeros(1, np.float32), np.zeros((0, 4), np.int64)
    return pack_layers([layer for layers in nets for layer in layers])
