"""Compiled policies: each built-in agent is one numba function on one observation record.

A policy is ``policy(obs, mask, key, r, params, ctx) -> int64``:

| argument | what it is |
|----------|------------|
| `obs`    | the current player's observation as one record (``game.observation_dtype``: the |
|          | fields of ``game.observe``, booleans as uint8), filled by the generated ``observe_row`` |
|          | (sizes that vary with the rules at the game's bounds, zeros past the table's own) |
| `mask`   | the legal mask of the decision (uint8 ``[A]``, 1 where legal) |
| `key`    | the decision's agent key, ``rn.major_key(rn.agent_key(seed, seat), decision)``: its |
|          | words ``rn.minor_word(key, i)`` are ``AgentRNG.words()[:, i]`` |
| `r`      | the rules record (``game._rec[0]``: the options and constants every seat knows) |
| `params` | the agent's parameters as float64, in the order its class declares |
| `ctx`    | a tuple of arrays the policy reads besides (tables, scratch), made once per game |

It returns an action id, or ``MEMO_FULL`` when a table it fills as it goes ran full (nothing
decided: the caller grows the table and asks again).  The
agent's batched ``act`` runs the policy on the rows of an observation (``act_rows``), and the
fused loop (``agents.fused``) runs the very same function on the record it fills from the engine
for each decision, so "agents see observations only" holds by construction: a policy is given
nothing else.

numba caches a kernel that calls a policy by name, not one that receives it as a value, so each
built-in agent module writes a two-line cached ``act_kernel`` around ``act_loop`` with its
policy and sets it on its ``CompiledAgent`` class.

Your own compiled agent subclasses ``CompiledAgent`` and sets ``policy``: its ``act`` runs the
policy on every row, and the fused loop runs it beside the engine and the built-in policies
(``docs/writing_an_agent.md``).  Those kernels close over the policy, so numba compiles them
once per process (a few seconds), not from its cache.
"""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar

import numpy as np
from numba import njit

from agents.base import Agent
from bluffsim import rng_nb as rn
from bluffsim.games.records import kernel_records
from bluffsim.rng import AgentRNG

MEMO_FULL = -3  # a policy's answer when a table it fills ran full (module docstring)


def observation_records(game: Any, obs: dict[str, np.ndarray]) -> np.ndarray:
    """The rows of a batched observation as records of ``game.observation_dtype`` (what
    compiled policies read); a field of neither the table's shape nor the record's is a
    ``ValueError`` naming it (the record would otherwise pad it with zeros)."""
    dtype = game.observation_dtype
    for name, (_, shape) in game.observation_shapes.items():
        got = np.shape(obs[name])[1:] if name in obs else shape
        if got not in (shape, dtype[name].shape):
            raise ValueError(f"observation field {name!r}: shape {got} per game, want {shape}")
    return records_of(dtype, obs)


def records_of(dtype: np.dtype, obs: dict[str, np.ndarray]) -> np.ndarray:
    """The rows of a batched observation as records of an observation ``dtype``
    (``ObservationSpec.record_dtype``), field by field; a record's entries past the table's
    sizes stay zero."""
    out = np.zeros(len(obs["seat"]), dtype)
    for name in dtype.names:
        value = np.asarray(obs[name])
        out[name][(slice(None), *(slice(0, n) for n in value.shape[1:]))] = value
    return kernel_records(out)


@njit(cache=True)
def decision_keys_kernel(seeds, streams, decisions, out):
    """``out[b]``: the agent key of row ``b``'s decision (module docstring)."""
    for b in range(seeds.shape[0]):
        out[b] = rn.major_key(rn.stream_key(seeds[b], streams[b]), decisions[b])


def decision_keys(rng: AgentRNG) -> np.ndarray:
    """uint64[B]: each row's decision key of an ``AgentRNG`` (its streams' words are the keys')."""
    out = np.empty(rng.seeds.shape[0], np.uint64)
    decision_keys_kernel(rng.seeds, rng.streams.astype(np.int64, copy=False),
                         rng.decisions.astype(np.int64), out)
    return out


@njit(inline="always")
def act_loop(policy, records, mask, keys, rules, params, ctx, out):
    """``out[b]``: ``policy`` on row ``b`` (-1 for a row without a legal action: a game over)."""
    r = rules[0]
    for b in range(records.shape[0]):
        m = mask[b]
        live = False
        for a in range(m.shape[0]):
            if m[a]:
                live = True
                break
        out[b] = policy(records[b], m, keys[b], r, params, ctx) if live else -1


def act_rows(kernel: Any, game: Any, obs: dict[str, np.ndarray], legal_mask: np.ndarray,
             rng: AgentRNG | None, params: np.ndarray, ctx: tuple) -> np.ndarray:
    """int64[B]: an agent's ``act_kernel`` (``act_loop`` with its policy) on every row (``rng``
    None: a deterministic agent's keys are zeros)."""
    records = observation_records(game, obs)
    out = np.empty(records.shape[0], np.int64)
    keys = np.zeros(out.size, np.uint64) if rng is None else decision_keys(rng)
    kernel(records, mask_bytes(legal_mask), keys, game._rec, np.asarray(params, np.float64),
           ctx, out)
    return out


def mask_bytes(legal_mask: np.ndarray) -> np.ndarray:
    """``legal_mask`` as contiguous uint8 (a bool mask viewed, not copied): one mask type for
    every caller, so each policy compiles once per record type, not once more per mask dtype."""
    mask = np.ascontiguousarray(legal_mask)
    return mask.view(np.uint8) if mask.dtype == np.bool_ else mask.astype(np.uint8, copy=False)


@cache
def act_kernel_for(policy: Any) -> Any:
    """A compiled ``act_loop`` over ``policy`` (a ``CompiledAgent``'s), made once per policy."""

    @njit
    def act_kernel(records, mask, keys, rules, params, ctx, out):
        act_loop(policy, records, mask, keys, rules, params, ctx, out)

    return act_kernel


class CompiledAgent(Agent):
    """An agent that is one compiled policy (module docstring): set ``policy`` to an ``@njit``
    function ``policy(obs, mask, key, r, params, ctx)``; ``params`` (all numbers or bools, in the
    order declared) are its ``params`` row and ``context()`` its ``ctx``.  It plays in the fused
    loop at engine speed, and through ``act`` anywhere else.  The built-in heuristic and
    counting agents are compiled agents too, each with a cached ``act_kernel``."""

    policy: ClassVar[Any] = None
    # a cached ``act_loop`` over ``policy`` (built-in agents); None: compiled in this process
    act_kernel: ClassVar[Any] = None

    def params_row(self) -> list[float]:
        """The parameters as float64, in the order ``params`` declares them."""
        return [float(self.config[name]) for name in self.params]

    def context(self) -> tuple:
        """The arrays the policy reads besides its row (``ctx``); none by default."""
        return ()

    def observation(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The observation the policy's records are made of (``obs`` itself by default)."""
        return obs

    def grow(self) -> None:
        """Make room in the tables the policy fills when it returned ``MEMO_FULL``."""
        raise RuntimeError(f"{type(self).__name__}'s policy returned MEMO_FULL but it has no "
                           "tables to grow")

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """One action per game: ``policy`` on every row (the rows it answered ``MEMO_FULL``
        asked again after ``grow``)."""
        kernel = type(self).act_kernel or act_kernel_for(type(self).policy)
        obs = self.observation(obs)
        params = self.params_row()
        out = act_rows(kernel, self.game, obs, legal_mask, rng, params, self.context())
        rows = np.flatnonzero(out == MEMO_FULL)
        while rows.size:
            self.grow()
            sub = {k: v[rows] for k, v in obs.items()}
            sub_rng = None if rng is None else AgentRNG(rng.seeds[rows], sub["seat"],
                                                        rng.decisions[rows])
            out[rows] = act_rows(kernel, self.game, sub, legal_mask[rows], sub_rng, params,
                                 self.context())
            rows = rows[out[rows] == MEMO_FULL]
        return out
