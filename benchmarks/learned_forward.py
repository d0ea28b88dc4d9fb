"""The shipped learned networks' forward pass against its arithmetic limit under the float contract.

For each weights file in ``agents/weights`` the script plays random games of its table, takes the
current player's flat observation tensor at every decision, and times ``agents.learned.forward``
(the very ``forward_row`` the fused loop runs) on them: microseconds per decision, median
(min – max) of ``--repeats`` runs.  Beside it, the work a decision does: multiply-adds (the
first layer's nonzero inputs × its outputs, zero inputs being skipped, and every later layer's
inputs × outputs, a ``tanh`` output being almost never exactly 0), ``tanh`` calls (the hidden
widths), and the time the multiply-adds alone need at the machine's peak under the contract:
a multiply and an add each (no FMA), two vector floating-point ports, ``V`` float64 lanes a
vector (4 with 256-bit vectors, the width numba's LLVM uses on this CPU; 8 with AVX-512), at
the clock ``/proc/cpuinfo`` reports (nominal: turbo makes the bound lower still)::

    python -m benchmarks.learned_forward --decisions 4000 --repeats 5
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path

import numpy as np

import agents
import bluffsim
from agents.learned import WEIGHTS_DIR, forward, load_weights
from benchmarks.engines import played_decisions


def clock_hz() -> float:
    """The CPU clock ``/proc/cpuinfo`` reports (Hz), or NaN where it does not."""
    try:
        mhz = re.search(r"cpu MHz\s*:\s*([\d.]+)", Path("/proc/cpuinfo").read_text())
    except OSError:
        return float("nan")
    return float(mhz.group(1)) * 1e6 if mhz else float("nan")


def observed_tensors(game_id: str, players: int, decisions: int) -> np.ndarray:
    """float32 ``[decisions, D]``: the mover's flat observation tensor at successive decisions
    of random games (``played_decisions``)."""
    game = bluffsim.make(game_id, players)
    layout = bluffsim.spec(game_id).observation
    rand = agents.make("random", game)
    rows, got = [], 0
    for st, obs in played_decisions(game, min(256, decisions),
                                    lambda obs, st, rng: rand.act(obs, st.legal_action_mask, rng)):
        if got >= decisions:
            break
        x = layout.to_tensor(game.rules, obs)[~st.done]
        rows.append(x)
        got += x.shape[0]
    return np.concatenate(rows)[:decisions].astype(np.float32)


def work_per_decision(layers: list, x: np.ndarray) -> tuple[float, int]:
    """(mean multiply-adds, tanh calls) of one forward pass on the rows of ``x``."""
    nnz_in = float(np.count_nonzero(x, axis=1).mean())
    macs = nnz_in * layers[0][0].shape[1] + sum(w.shape[0] * w.shape[1] for w, _ in layers[1:])
    return macs, sum(w.shape[1] for w, _ in layers[:-1])


def time_forward(layers: list, x: np.ndarray, repeats: int) -> list[float]:
    """Microseconds per row of ``forward`` on ``x``, one figure per repeat (after a warm call)."""
    forward(layers, x[:8])
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        forward(layers, x)
        out.append((time.perf_counter() - start) / x.shape[0] * 1e6)
    return out


def main() -> None:
    """Print one markdown row per shipped network."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=4000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    hz = clock_hz()
    print(f"clock {hz / 1e9:.2f} GHz (/proc/cpuinfo)\n")
    print("| network | inputs (nonzero) | multiply-adds | tanh | µs a decision | min – max "
          "| MAC bound V=4 µs | V=8 µs | × V=4 bound |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for path in sorted(WEIGHTS_DIR.glob("*.npz")):
        layers, meta = load_weights(path)
        x = observed_tensors(meta["game"], int(meta["num_players"]), args.decisions)
        macs, tanhs = work_per_decision(layers, x)
        us = time_forward(layers, x, args.repeats)
        bound4, bound8 = macs / (4 * hz) * 1e6, macs / (8 * hz) * 1e6
        med = statistics.median(us)
        print(f"| {path.stem} | {x.shape[1]} ({np.count_nonzero(x, axis=1).mean():.0f}) | "
              f"{macs:,.0f} | {tanhs} | {med:.2f} | {min(us):.2f} – {max(us):.2f} | "
              f"{bound4:.2f} | {bound8:.2f} | {med / bound4:.1f} |")


if __name__ == "__main__":
    main()
