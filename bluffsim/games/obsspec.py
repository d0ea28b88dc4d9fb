"""Observations declared once (OpenSpiel's observer "pieces"): fields and tensor blocks.

A game's ``observe.py`` declares one ``ObservationSpec``:

* ``fields`` — every key of the structured observation (``game.observe``, the
  reference engine's ``observe``): name, dtype, shape in the game's named sizes
  (``P`` seats, ``K`` kinds, …) and meaning;
* ``blocks`` — the flat tensor, block after block: name, width in the same
  sizes, meaning, and the encoder that computes it from the structured
  observation.

From it derive the key order, the docstring table of the fields (``field_table``),
the tensor's index / meaning table (``tensor_layout``), its width and encoder
(``to_tensor``), the dtype / shape of every field for given rules (``shapes``,
checked against both engines by the conformance suite) and Gymnasium spaces
(``gym_space``).  The two engines keep their own builders of the structured
observation (the reference's is the oracle); the compiled tensor kernels are
tested equal to ``to_tensor``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bluffsim.games.encoding import Relative

Dims = tuple[str | int, ...]


def _size(dims: Dims, sizes: dict[str, int]) -> tuple[int, ...]:
    return tuple(d if isinstance(d, int) else sizes[d] for d in dims)


@dataclass(frozen=True)
class Field:
    """One key of the structured observation: numpy dtype name, shape in named sizes, meaning."""

    name: str
    dtype: str
    dims: Dims
    meaning: str

    def shape(self, sizes: dict[str, int]) -> tuple[int, ...]:
        """The per-game shape for these sizes (no batch axis)."""
        return _size(self.dims, sizes)

    def type_text(self) -> str:
        """``int8[P, K]``-style text of dtype and shape (the docstring table's column)."""
        return self.dtype + (f"[{', '.join(map(str, self.dims))}]" if self.dims else "")


@dataclass
class Context:
    """What a block's encoder gets: the batch of observations, the rules, the named sizes and
    the observer-relative re-indexing of per-seat data (index 0 = the observer)."""

    obs: dict[str, np.ndarray]
    rules: Any
    sizes: dict[str, int]
    rel: Relative

    def col(self, name: str) -> np.ndarray:
        """float32[B, 1]: a scalar field as one column."""
        return self.obs[name].astype(np.float32)[:, None]

    def seats(self, x: np.ndarray) -> np.ndarray:
        """float32[B, P * rest]: per-seat data ``x[B, P, ...]`` in relative seat order."""
        return self.rel.blocks(x)

    def seat(self, x: np.ndarray) -> np.ndarray:
        """float32[B, P]: one-hot relative position of an absolute seat (zeros for -1)."""
        return self.rel.seat_one_hot(x)


@dataclass(frozen=True)
class Block:
    """One block of the flat tensor: width in named sizes (their product), meaning, encoder."""

    name: str
    dims: Dims
    meaning: str
    encode: Callable[[Context], np.ndarray]

    def width(self, sizes: dict[str, int]) -> int:
        """Number of tensor columns for these sizes."""
        return int(np.prod(_size(self.dims, sizes), dtype=np.int64))


@dataclass(frozen=True)
class ObservationSpec:
    """A game's observation, declared once (module docstring)."""

    fields: tuple[Field, ...]
    blocks: tuple[Block, ...]
    sizes: Callable[[Any], dict[str, int]]   # rules -> named sizes ("P", "K", ...)

    @property
    def keys(self) -> tuple[str, ...]:
        """The structured observation's keys, in order."""
        return tuple(f.name for f in self.fields)

    def shapes(self, rules: Any) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
        """Per key: (dtype, per-game shape) for ``rules``."""
        sizes = self.sizes(rules)
        return {f.name: (np.dtype(f.dtype), f.shape(sizes)) for f in self.fields}

    def field_table(self) -> str:
        """The markdown table of the fields (key, dtype / shape, meaning) for docstrings."""
        rows = [(f"`{f.name}`", f.type_text(), f.meaning) for f in self.fields]
        w0 = max(len("key"), *(len(r[0]) for r in rows))
        w1 = max(len("dtype / shape"), *(len(r[1]) for r in rows))
        lines = [f"| {'key':<{w0}} | {'dtype / shape':<{w1}} | meaning |",
                 f"|{'-' * (w0 + 2)}|{'-' * (w1 + 2)}|---------|"]
        lines += [f"| {a:<{w0}} | {b:<{w1}} | {c} |" for a, b, c in rows]
        return "\n".join(lines)

    def tensor_layout(self, rules: Any) -> list[tuple[str, int, int, str]]:
        """Index / meaning table of the flat tensor: (name, first index, width, meaning)."""
        sizes, out, pos = self.sizes(rules), [], 0
        for b in self.blocks:
            w = b.width(sizes)
            out.append((b.name, pos, w, b.meaning))
            pos += w
        return out

    def tensor_size(self, rules: Any) -> int:
        """Width D of the flat tensor."""
        sizes = self.sizes(rules)
        return sum(b.width(sizes) for b in self.blocks)

    def to_tensor(self, rules: Any, obs: dict[str, np.ndarray]) -> np.ndarray:
        """float32[B, D]: a batch of structured observations encoded block by block; a block
        whose encoder returns another width than declared raises ``ValueError``."""
        sizes = self.sizes(rules)
        ctx = Context(obs, rules, sizes, Relative(obs["seat"], rules.num_players))
        parts = []
        for b in self.blocks:
            x = np.asarray(b.encode(ctx), dtype=np.float32)
            if x.ndim != 2 or x.shape[1] != b.width(sizes):
                raise ValueError(f"tensor block {b.name!r}: encoder gave shape {x.shape}, "
                                 f"declared width {b.width(sizes)}")
            parts.append(x)
        return np.concatenate(parts, axis=1)

    def problems(self, rules: Any, obs: dict[str, np.ndarray], batch: int | None) -> list[str]:
        """What in ``obs`` disagrees with the fields (keys, order, dtype, shape); ``batch`` is
        the leading batch size, or None for an unbatched (reference) observation."""
        out = []
        if tuple(obs) != self.keys:
            out.append(f"keys {tuple(obs)} != declared {self.keys}")
        lead = () if batch is None else (batch,)
        for name, (dtype, shape) in self.shapes(rules).items():
            if name not in obs:
                continue
            v = np.asarray(obs[name])
            if v.dtype != dtype or v.shape != lead + shape:
                out.append(f"{name}: {v.dtype}{list(v.shape)} != declared {dtype}{list(lead + shape)}")
        return out

    def gym_space(self, rules: Any) -> Any:
        """A ``gymnasium.spaces.Dict`` of the structured observation (one game): a ``Box`` per
        field with its dtype and shape, bounded by the dtype's range."""
        from gymnasium import spaces

        out = {}
        for name, (dtype, shape) in self.shapes(rules).items():
            lo, hi = (0, 1) if dtype == np.bool_ else (np.iinfo(dtype).min, np.iinfo(dtype).max)
            out[name] = spaces.Box(lo, hi, shape=shape, dtype=dtype)
        return spaces.Dict(out)

    def view(self, obs: dict[str, np.ndarray]) -> ObservationView:
        """Attribute access to a batch of observations (``view.hand`` is ``obs["hand"]``)."""
        return ObservationView(obs, self.keys)


class ObservationView:
    """Read-only attribute view of a structured observation; unknown names raise
    ``AttributeError`` listing the declared keys."""

    def __init__(self, obs: dict[str, np.ndarray], keys: tuple[str, ...]):
        self._obs, self._keys = obs, keys

    def __getattr__(self, name: str) -> np.ndarray:
        if name.startswith("_") or name not in self._keys:
            raise AttributeError(f"no observation field {name!r}; fields: {', '.join(self._keys)}")
        return self._obs[name]

    def __dir__(self) -> list[str]:
        return list(self._keys)
