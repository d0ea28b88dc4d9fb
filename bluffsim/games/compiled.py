"""The shared base of the compiled fast engines: one record-backed engine, written once.

A compiled game keeps each batch in two numpy record arrays (``kernels.HOT_DTYPE``:
the fields read at every decision; ``kernels.STATE_DTYPE``: the rest) and runs
numba kernels over the games of the batch.  ``CompiledGame`` implements the
``bluffsim.api.FastEngine`` contract on top of a game's ``kernels`` module, which
provides, with these exact names and signatures:

| kernels name                                 | what it does                                          |
|----------------------------------------------|-------------------------------------------------------|
| `STATE_DTYPE`, `HOT_DTYPE`                   | the record layouts                                    |
| `rules_record(rules)`                        | the rules as an int array the kernels read            |
| `blank_record(rules)`                        | one new game's state record before its deal           |
| `start_kernel(data, hot, rec, idx)`          | deal games ``idx`` (their ``hot["seed"]`` set)        |
| `step_kernel(data, hot, rec, actions)`       | the transition of ``Game.step``; first illegal index or -1 |
| `mask_kernel(data, hot, rec)`                | recompute every legal mask                            |
| `observe_row(g, h, r, obs)`                  | one game's observation into one record (generated)    |
| `tensor_kernel(data, hot, rec, obs, out)`    | the flat tensor, through ``observe_row`` (generated) |
| `observe_kernel(data, hot, rec, obs)`        | every game's ``observe_row`` into ``obs[b]`` (generated) |
| `OBS_SIZES`                                  | the spec's named sizes as the compiled code reads them |
| `OBS_BOUNDS`                                 | the largest value of each size that varies with the rules |
| `play_random_kernel(data, hot, rec, n, counts)` | the fused all-``random`` loop                      |

The kernels live in the game's committed ``kernels_generated.py``, written from
``observation.SPEC`` and the game's rule functions by ``bluffsim games --generate``.

A game's engine subclass sets ``kernels``, ``observation`` (its ``observe`` module) and
``state_type`` (its ``RecordState`` whose ``from_data`` builds the public field views), and
adds only ``final_score``, ``round_record`` and ``from_reference``.  ``observe`` returns the
fields of the records ``observe_row`` fills (cut to the table's own sizes), so the observation
a user, a numpy agent and a compiled policy see is built in one place.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from bluffsim.api import Game, SeedError, State, check_seeds
from bluffsim.games.obscompile import check_sizes
from bluffsim.games.records import kernel_records


class CompiledGame(Game):
    """A fast engine over a game's compiled ``kernels`` (module docstring)."""

    kernels: ClassVar[ModuleType]
    observation: ClassVar[ModuleType]

    def __init__(self, rules: Any):
        kn = self.kernels
        self.rules = rules
        self.action_names = rules.action_names
        self.observation_size = int(self.observation.tensor_size(rules))
        self._rec = kernel_records(kn.rules_record(rules))
        self._blank = kn.blank_record(rules)
        self._blank_hot = np.zeros((), kn.HOT_DTYPE)   # a new game's hot record (seed 0)
        spec = self.observation.SPEC
        bounds = getattr(kn, "OBS_BOUNDS", {})
        check_sizes(spec, kn.OBS_SIZES, bounds, rules, self._rec)
        self.observation_dtype = spec.record_dtype(rules, bounds)  # what policies read
        # the game's largest sizes (``A``: actions), every table's: a policy's scratch sized
        # to them keeps one compiled kernel for every table, as the observation record does
        self.bounds = {**bounds, "A": kn.HOT_DTYPE["mask"].shape[0]}
        self.observation_shapes = spec.shapes(rules)  # per field: (dtype, this table's shape)
        self._obs_fields = {name: (dtype, (slice(None), *(slice(0, n) for n in shape)))
                            for name, (dtype, shape) in self.observation_shapes.items()}

    # ================================================================ set-up
    def empty_state(self, seeds: np.ndarray) -> Any:
        """New-game records for ``len(seeds)`` games, before the deal."""
        data = np.full(len(seeds), self._blank, dtype=self.kernels.STATE_DTYPE)
        hot = np.full(len(seeds), self._blank_hot, dtype=self.kernels.HOT_DTYPE)
        hot["seed"] = seeds
        return self.state_type.from_data(data, hot, self.rules)

    def init(self, seeds: Any) -> Any:
        """New games, one per seed, dealt."""
        st = self.empty_state(check_seeds(seeds))
        self.kernels.start_kernel(st.data, st.hot, self._rec, np.arange(st.batch_size))
        return st

    def reset_games(self, st: Any, idx: np.ndarray, seeds: Any) -> None:
        """Restart games ``idx`` in place as new games with ``seeds`` (autoreset): the same
        records as ``init`` gives for those seeds."""
        idx = np.asarray(idx, dtype=np.int64)
        seeds = check_seeds(seeds)
        if idx.shape != seeds.shape:
            raise SeedError(f"reset_games: {idx.size} games to restart but {seeds.size} seeds; "
                            "give one seed per game")
        _fill_rows(st.data, idx, self._blank)
        _fill_rows(st.hot, idx, self._blank_hot)
        st.hot["seed"][idx] = seeds
        self.kernels.start_kernel(st.data, st.hot, self._rec, idx)

    # ================================================================ step
    def transition(self, st: State, actions: np.ndarray) -> int:
        """The compiled transition (``kernels.step_kernel``)."""
        return int(self.kernels.step_kernel(st.data, st.hot, self._rec, actions))

    def play_random(self, st: Any, decisions: int) -> tuple[int, int, int]:
        """Every seat ``random``, fused with the engine in one compiled loop: each running game
        plays up to ``decisions`` decisions in a row, the same game as ``decisions`` steps with
        the ``random`` agent.  Returns (decisions made, rounds finished, games ended)."""
        counts = np.zeros(3, np.int64)
        self.kernels.play_random_kernel(st.data, st.hot, self._rec, int(decisions), counts)
        return int(counts[0]), int(counts[1]), int(counts[2])

    def update_legal_mask(self, st: Any) -> None:
        """Recompute the legal masks (after fields were written from outside)."""
        self.kernels.mask_kernel(st.data, st.hot, self._rec)

    # ================================================================ observation
    def observe(self, st: Any) -> dict[str, np.ndarray]:
        """The current player's information set, batch-first (the game's ``observe.py`` table):
        the fields of one observation record per game (``observe_kernel``, i.e. ``observe_row``,
        the record compiled policies read) cut to the table's sizes, booleans viewed as ``bool``."""
        rec = kernel_records(np.zeros(st.batch_size, self.observation_dtype))
        self.kernels.observe_kernel(st.data, st.hot, self._rec, rec)
        return {name: rec[name][part].view(dtype)
                for name, (dtype, part) in self._obs_fields.items()}

    def observation_tensor(self, st: Any) -> np.ndarray:
        """float32[B, D] flat observation; layout in the game's ``observe.tensor_layout``."""
        out = np.zeros((st.batch_size, self.observation_size), np.float32)
        self.kernels.tensor_kernel(st.data, st.hot, self._rec, self.observation_record(), out)
        return out

    def observation_record(self) -> np.ndarray:
        """A one-element array of ``observation_dtype`` (a record ``observe_row`` fills)."""
        return kernel_records(np.zeros(1, self.observation_dtype))


def _fill_rows(records: np.ndarray, idx: np.ndarray, blank: np.ndarray) -> None:
    """``records[idx] = blank`` (a 0-d record), copied as raw bytes when ``records`` is contiguous:
    ten times faster than numpy's field-by-field copy of a structured dtype."""
    if records.flags.c_contiguous:
        rows = records.view(np.uint8).reshape(records.shape[0], records.dtype.itemsize)
        rows[idx] = np.frombuffer(blank.tobytes(), np.uint8)
    else:
        records[idx] = blank
