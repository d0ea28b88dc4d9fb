"""``learned``: a trained policy network, masked softmax over the legal actions, numpy/numba inference.

The network reads the game's flat observation tensor (``observe.tensor_layout``) ``x``:

    h0 = symlog(x) = sign(x) * log(1 + |x|)        # tallies grow over a game: compress them
    h_{k+1} = tanh(h_k @ W_k + b_k)                # hidden layers
    logits = h_L @ W_L + b_L                       # one per action id
    p = softmax(logits over the legal actions)     # illegal actions get probability 0

A weights file (``.npz``) holds ``w0, b0, ..., wL, bL`` (float32) and ``meta``, a JSON string with
``game``, ``num_players``, ``rules`` (options; the agent refuses a game with other rules),
``obs_size``, ``num_actions``, ``hidden`` and how the file was made
(``command``, ``config``).  ``agents.make("learned", game)`` loads the file shipped for the game
and player count, ``agents/weights/<game>_<P>p.npz``; ``weights=PATH`` loads another.  The agent
samples from ``p`` with its counter-based stream (``greedy=True``: the most probable action).
Training (PPO in JAX) lives in ``bluffsim.learn``; it writes files in this format.

Inference (``forward``) runs in float64 with every sum in a fixed order and ``bluffsim.fmath``'s
``log1p``/``tanh``/``exp``, so a decision is the same in any batch on any CPU
(docs/float_contract.md); JAX's float32 training network agrees to about 1e-4.
"""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np

from agents.base import Agent, Param, Traits, register_agent
from bluffsim import fmath as fm
from bluffsim.api import BluffsimError
from bluffsim.rng import AgentRNG

WEIGHTS_DIR = Path(__file__).parent / "weights"


def shipped_weights(game_id: str, num_players: int) -> Path:
    """Path of the weights file shipped for ``game_id`` at ``num_players`` (may not exist)."""
    return WEIGHTS_DIR / f"{game_id}_{num_players}p.npz"


def symlog(x: np.ndarray) -> np.ndarray:
    """float64: sign(x) * log(1 + |x|), the input transform of the network (``fmath.log1p``)."""
    x = np.asarray(x, dtype=np.float64)
    return np.sign(x) * fm.log1p_u(np.abs(x))


def pack_layers(layers: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The MLP ``layers`` [(W, b), ...] as one flat float32 array and a layer table int64[L, 4]
    (per layer: inputs, outputs, offset of W (row-major) and offset of b in the flat array),
    the form the compiled forward pass reads."""
    table = np.zeros((len(layers), 4), np.int64)
    parts, off = [], 0
    for i, (w, b) in enumerate(layers):
        w, b = np.asarray(w, np.float32), np.asarray(b, np.float32)
        table[i] = (w.shape[0], w.shape[1], off, off + w.size)
        parts += [w.ravel(), b.ravel()]
        off += w.size + b.size
    return np.concatenate(parts).astype(np.float32), table


SMALL_INTS = 64  # symlog of the whole numbers below this is looked up (tallies and counts mostly are)


@nb.njit(cache=True)
def forward_scratch(width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The scratch ``forward_row`` needs for layers up to ``width`` wide: float64 ``[5, width]``
    (the layer values and ``fmath.tanh_inplace``'s work), int64 ``[width]`` (nonzero inputs) and
    ``fmath.log1p`` of ``0 .. SMALL_INTS - 1`` (the same bits as computing it each time)."""
    int_logs = np.empty(SMALL_INTS)
    for i in range(SMALL_INTS):
        int_logs[i] = fm.log1p(np.float64(i))
    return np.empty((5, width)), np.empty(width, np.int64), int_logs


@nb.njit(cache=True, inline="always")
def symlog_into(x: np.ndarray, int_logs: np.ndarray, h: np.ndarray) -> None:
    """``h[k] = sign(x[k]) log1p(|x[k]|)`` in float64 (``symlog``), whole numbers looked up in
    ``int_logs``; ``h[k] = +0.0`` for ``x[k] = ±0`` and a NaN kept as it is."""
    for k in range(x.shape[0]):
        v = np.float64(x[k])
        a = abs(v)
        if a < SMALL_INTS and a == math.floor(a):
            y = int_logs[np.int64(a)]
            h[k] = -y if v < 0.0 else y
        else:
            h[k] = -fm.log1p(-v) if v < 0.0 else fm.log1p(v)


@nb.njit(cache=True, inline="always")
def nonzero_inputs(h: np.ndarray, n: int, nz: np.ndarray) -> int:
    """Lists in ``nz`` the indices ``k < n`` with ``h[k] != 0`` in increasing order; returns how many."""
    m = 0
    for k in range(n):
        if h[k] != 0.0:
            nz[m] = k
            m += 1
    return m


@nb.njit(cache=True, inline="always")
def weighted_sums(h: np.ndarray, nz: np.ndarray, m: int, flat: np.ndarray, wo: int, n_out: int,
                  out: np.ndarray) -> None:
    """``out[j]`` = the sum over the ``m`` listed inputs ``k = nz[t]`` of ``h[k] * W[k, j]``
    (``W`` row-major at ``flat[wo:]``), added left to right from 0.0.  Four inputs per pass over
    ``out`` keep that order and load and store ``out`` a quarter as often; the loop over ``j``
    vectorises."""
    out[:n_out] = 0.0
    t = 0
    while t + 4 <= m:
        h0, h1, h2, h3 = h[nz[t]], h[nz[t + 1]], h[nz[t + 2]], h[nz[t + 3]]
        w0 = flat[wo + nz[t] * n_out:wo + nz[t] * n_out + n_out]
        w1 = flat[wo + nz[t + 1] * n_out:wo + nz[t + 1] * n_out + n_out]
        w2 = flat[wo + nz[t + 2] * n_out:wo + nz[t + 2] * n_out + n_out]
        w3 = flat[wo + nz[t + 3] * n_out:wo + nz[t + 3] * n_out + n_out]
        for j in range(n_out):
            s = out[j] + h0 * np.float64(w0[j])
            s = s + h1 * np.float64(w1[j])
            s = s + h2 * np.float64(w2[j])
            out[j] = s + h3 * np.float64(w3[j])
        t += 4
    for u in range(t, m):
        hk = h[nz[u]]
        w = flat[wo + nz[u] * n_out:wo + nz[u] * n_out + n_out]
        for j in range(n_out):
            out[j] += hk * np.float64(w[j])


@nb.njit(cache=True)
def forward_row(x: np.ndarray, flat: np.ndarray, table: np.ndarray, first: int, depth: int,
                work: np.ndarray, nz: np.ndarray, int_logs: np.ndarray) -> np.ndarray:
    """float64 logits of the packed MLP (layers ``first .. first+depth-1`` of ``table``) on one
    flat tensor ``x`` (module docstring); ``work``, ``nz``, ``int_logs`` from ``forward_scratch``
    (the result is a view of ``work``).  Each sum is added left to right over the inputs from
    0.0 (zero inputs skipped: they add nothing), then the bias; ``tanh`` is
    ``fmath.tanh_inplace``."""
    h, nxt = work[0], work[1]
    symlog_into(x, int_logs, h)
    for li in range(first, first + depth):
        n_in, n_out, wo, bo = table[li, 0], table[li, 1], table[li, 2], table[li, 3]
        weighted_sums(h, nz, nonzero_inputs(h, n_in, nz), flat, wo, n_out, nxt)
        for j in range(n_out):
            nxt[j] = nxt[j] + np.float64(flat[bo + j])
        if li < first + depth - 1:
            fm.tanh_inplace(nxt, n_out, work[2:])
        h, nxt = nxt, h
    return h[:table[first + depth - 1, 1]]


@nb.njit(cache=True)
def policy_probs(logits: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
    """``out`` = the softmax of ``logits`` over the legal actions of ``mask`` (0 elsewhere; all 0
    without a legal action): ``exp(z - max)`` with ``fmath.exp``, summed left to right."""
    top = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and logits[a] > top:
            top = logits[a]
    s = 0.0
    for a in range(mask.shape[0]):
        out[a] = fm.exp(logits[a] - top) if mask[a] else 0.0
        s += out[a]
    for a in range(mask.shape[0]):
        out[a] = out[a] / s if s > 0.0 else 0.0


@nb.njit(cache=True)
def policy_action(p: np.ndarray, mask: np.ndarray, u: float, greedy: bool) -> int:
    """The action a policy with probabilities ``p`` plays: the most probable legal one (first of
    equals) when ``greedy``, else the first whose cumulative probability exceeds ``u`` (rounding
    at the top of the sum: the last legal action); 0 without a legal action."""
    last = -1
    for a in range(mask.shape[0]):
        if mask[a]:
            last = a
    if last < 0:
        return 0
    if greedy:
        best = 0
        for a in range(p.shape[0]):
            if p[a] > p[best]:
                best = a
        return best
    c = 0.0
    for a in range(p.shape[0]):
        c += p[a]
        if c > u:
            return a if mask[a] else last
    return last


@nb.njit(cache=True)
def _forward_kernel(x, flat, table, out):
    """``out[i]`` = ``forward_row`` of row ``i`` of ``x`` (the whole packed network)."""
    work, nz, int_logs = forward_scratch(max(x.shape[1], np.max(table[:, 1])))
    for i in range(x.shape[0]):
        out[i] = forward_row(x[i], flat, table, 0, table.shape[0], work, nz, int_logs)


@nb.njit(cache=True)
def _probs_kernel(logits, mask, out):
    for i in range(logits.shape[0]):
        policy_probs(logits[i], mask[i], out[i])


@nb.njit(cache=True)
def _act_kernel(p, mask, u, greedy, out):
    for i in range(p.shape[0]):
        out[i] = policy_action(p[i], mask[i], u[i], greedy)


def forward(layers: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """float64[B, A] logits of the MLP ``layers`` [(W, b), ...] (float32 weights) on flat
    tensors ``x`` [B, D], row by row with ``forward_row``: float64, sums in a fixed order,
    ``fmath``'s ``log1p``/``tanh`` (never BLAS, whose order depends on the batch and the CPU,
    nor numpy's SIMD math), so a row's logits have the same bits in any batch on any machine
    and inside the fused loop (``agents.fused``)."""
    flat, table = pack_layers(layers)
    out = np.empty((x.shape[0], int(table[-1, 1])))
    _forward_kernel(np.ascontiguousarray(x, dtype=np.float32), flat, table, out)
    return out


def masked_probs(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """float64[B, A]: softmax of ``logits`` restricted to ``mask`` (rows without a legal action: 0)."""
    out = np.empty(logits.shape, np.float64)
    _probs_kernel(np.ascontiguousarray(logits, dtype=np.float64),
                  np.ascontiguousarray(mask, dtype=np.bool_), out)
    return out


def load_weights(path: str | Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, Any]]:
    """(layers, meta) of a weights file; ``BluffsimError`` naming the path and what is wrong for a
    file that is not one (not an .npz, no ``meta`` JSON, missing or misshapen layers)."""
    try:
        z = np.load(path, allow_pickle=False)
    except ValueError:    # neither .npy nor .npz: numpy's message is about allow_pickle
        raise _not_weights(path, "not an .npz archive") from None
    except (OSError, EOFError, zipfile.BadZipFile) as e:
        raise _not_weights(path, f"unreadable: {_first_line(e)}") from None
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise _not_weights(path, "a single .npy array, not an .npz archive")
    try:
        with z:
            if "meta" not in z.files:
                raise _not_weights(path, "it has no 'meta' entry")
            meta = json.loads(str(z["meta"]))
            if not isinstance(meta, dict):
                raise _not_weights(path, "its 'meta' is not a JSON object")
            n = sum(1 for k in z.files if k.startswith("w"))
            names = [name for i in range(n) for name in (f"w{i}", f"b{i}")]
            missing = [name for name in names if name not in z.files]
            if n == 0 or missing:
                raise _not_weights(path, f"layers missing: {', '.join(missing) or 'w0, b0'}")
            layers = [(z[f"w{i}"].astype(np.float32), z[f"b{i}"].astype(np.float32)) for i in range(n)]
    except BluffsimError:
        raise
    except ValueError as e:  # json.JSONDecodeError is one, as are unreadable or non-numeric arrays
        raise _not_weights(path, _first_line(e)) from None
    except (OSError, EOFError, KeyError, zipfile.BadZipFile) as e:
        raise _not_weights(path, f"unreadable archive: {_first_line(e)}") from None
    for i, (w, b) in enumerate(layers):
        if w.ndim != 2 or b.shape != (w.shape[1],) or (i and w.shape[0] != layers[i - 1][0].shape[1]):
            raise _not_weights(path, f"layer {i} has shapes w{list(w.shape)} b{list(b.shape)}, which "
                                     "do not chain")
    return layers, meta


def _first_line(e: Exception) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _not_weights(path: str | Path, why: str) -> BluffsimError:
    return BluffsimError(f"agent 'learned': {str(path)!r} is not a weights file ({why}); expected an "
                         ".npz written by `bluffsim train` (layers w0, b0, ... and a JSON meta)")


def save_weights(path: str | Path, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]) -> None:
    """Write ``layers`` and ``meta`` in the weights format (module docstring)."""
    arrays: dict[str, np.ndarray] = {}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"], arrays[f"b{i}"] = np.asarray(w, np.float32), np.asarray(b, np.float32)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)


@register_agent()
class LearnedAgent(Agent):
    """Samples from a trained masked-softmax MLP over the flat observation (module docstring)."""

    name = "learned"
    traits = Traits(stochastic=True, uses_history=True, learned=True)
    params = {"weights": None, "greedy": False}
    spec = {
        "weights": Param(str, doc="weights file (.npz); None: the shipped file for this game "
                                  "and player count", optional=True),
        "greedy": Param(bool, doc="play the most probable legal action instead of sampling"),
    }

    def __init__(self, game: Any, layers: list[tuple[np.ndarray, np.ndarray]] | None = None,
                 **params: Any):
        super().__init__(game, **params)
        import bluffsim

        self.observe = bluffsim.spec(game.game_id).observation
        obs_size = int(self.observe.tensor_size(game.rules))
        if layers is not None:
            self.layers, self.meta = layers, {"game": game.game_id, "num_players": game.num_players}
        else:
            path = self.config["weights"]
            if path is None:
                path = shipped_weights(game.game_id, game.num_players)
                if not path.is_file():
                    shipped = sorted(p.stem for p in WEIGHTS_DIR.glob("*.npz")) or ["none"]
                    raise BluffsimError(
                        f"agent 'learned': no shipped weights for {game.game_id} with "
                        f"{game.num_players} players (shipped: {', '.join(shipped)}); train one with "
                        "`bluffsim train CONFIG` and pass params = { weights = \"PATH\" }")
            elif not Path(path).is_file():
                raise BluffsimError(f"agent 'learned': weights file {str(path)!r} not found")
            self.layers, self.meta = load_weights(path)
            self.config["weights"] = str(path)
            if (self.meta.get("game"), self.meta.get("num_players")) != (game.game_id, game.num_players):
                raise BluffsimError(
                    f"agent 'learned': {path} was trained for {self.meta.get('game')} with "
                    f"{self.meta.get('num_players')} players, not {game.game_id} with "
                    f"{game.num_players}")
            trained = self.meta.get("rules")
            if trained is not None and bluffsim.spec(game.game_id).rules.from_options(
                    num_players=game.num_players, **trained) != game.rules:
                raise BluffsimError(
                    f"agent 'learned': {path} was trained with rules options {trained or 'default'}, "
                    "which differ from this game's; pass the weights trained for these rules")
        w_in, w_out = self.layers[0][0], self.layers[-1][0]
        if w_in.shape[0] != obs_size or w_out.shape[1] != game.num_actions:
            raise BluffsimError(
                f"agent 'learned': weights expect tensors of {w_in.shape[0]} and {w_out.shape[1]} "
                f"actions; this {game.game_id} game has {obs_size} and {game.num_actions} "
                "(different rules options?)")

    def probs(self, x: np.ndarray, legal_mask: np.ndarray) -> np.ndarray:
        """float64[B, A]: the policy's action probabilities on flat tensors ``x``."""
        return masked_probs(forward(self.layers, x), legal_mask)

    def act_tensor(self, x: np.ndarray, legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Actions from flat tensors (the callable form the Gymnasium env accepts as an opponent):
        ``policy_action`` on ``probs`` with the decision's first uniform."""
        p = self.probs(x, legal_mask)
        out = np.empty(p.shape[0], np.int64)
        u = np.zeros(p.shape[0]) if self.config["greedy"] else rng.uniform(1)[:, 0]
        _act_kernel(p, np.ascontiguousarray(legal_mask, dtype=np.bool_), u,
                    bool(self.config["greedy"]), out)
        return out

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """One legal action per game, sampled from the policy."""
        x = self.observe.to_tensor(self.game.rules, obs)
        return self.act_tensor(x, legal_mask, rng)
