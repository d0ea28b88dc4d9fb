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

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bluffsim.games.encoding import Relative, one_hot

Dims = tuple[str | int, ...]


def _size(dims: Dims, sizes: dict[str, int]) -> tuple[int, ...]:
    return tuple(d if isinstance(d, int) else sizes[d] for d in dims)


@dataclass(frozen=True)
class Field:
    """One key of the structured observation: numpy dtype name, shape in named sizes, meaning,
    and where the compiled engine reads it (``source``, module docstring): ``"data.<field>"`` /
    ``"hot.<field>"`` (the first bytes of that record field), ``"data.<field>[seat]"`` (the
    observer's row of a per-seat field, zeros once the game is over) or None (computed by the
    game's ``obs_<name>`` function in ``kernels.py``)."""

    name: str
    dtype: str
    dims: Dims
    meaning: str
    source: str | None = None

    def where(self) -> tuple[str, str, bool] | None:
        """(record ``"data"`` / ``"hot"``, record field, observer's row?) of ``source``, or None
        for a computed field."""
        if self.source is None:
            return None
        m = re.fullmatch(r"(data|hot)\.(\w+)(\[seat\])?", self.source)
        if m is None:
            raise ValueError(f"field {self.name!r}: source {self.source!r} is not "
                             "'data.<field>', 'hot.<field>' or 'data.<field>[seat]'")
        return m.group(1), m.group(2), m.group(3) is not None

    def copied(self) -> bool:
        """Whether the observation holds the first bytes of a record field (a plain copy)."""
        w = self.where()
        return w is not None and not w[2]

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


def _values(c: Context, field: str, col: int | None) -> np.ndarray:
    """A field of the batch, or column ``col`` of a 1-D field."""
    v = c.obs[field]
    return v if col is None else v[:, col]


class Encoding:
    """How a tensor block is made from the observation fields, declared as data: ``numpy``
    encodes a batch of structured observations (``to_tensor``), and ``bluffsim.games.obscompile``
    writes the compiled ``tensor_row`` from the same object (module docstring)."""

    def numpy(self, c: Context, width: int) -> np.ndarray:
        """float32[B, width]: the block of a batch of structured observations."""
        raise NotImplementedError


@dataclass(frozen=True)
class Copy(Encoding):
    """The values of a field, flattened (or its column ``col``: one value), each optionally
    raised to at least ``floor``, plus ``add``, or compared ``== equals`` (1 / 0)."""

    field: str
    col: int | None = None
    floor: int | None = None
    add: int = 0
    equals: int | None = None

    def numpy(self, c: Context, width: int) -> np.ndarray:
        """float32[B, width]: the (transformed) values, flattened."""
        v = _values(c, self.field, self.col)
        if self.floor is not None or self.add or self.equals is not None:
            v = v.astype(np.int64)
            if self.floor is not None:
                v = np.maximum(v, self.floor)
            v = v + self.add
            if self.equals is not None:
                v = v == self.equals
        return v.reshape(v.shape[0], -1).astype(np.float32)


@dataclass(frozen=True)
class OneHot(Encoding):
    """One-hot of a scalar field (or of column ``col`` of a 1-D field) over the block's width;
    all zeros for a value outside [0, width)."""

    field: str
    col: int | None = None

    def numpy(self, c: Context, width: int) -> np.ndarray:
        """float32[B, width]: the one-hot rows."""
        v = _values(c, self.field, self.col).astype(np.int64)
        return one_hot(np.where(v < width, v, -1), width)


@dataclass(frozen=True)
class Seats(Encoding):
    """A per-seat field (leading axis ``P``) in observer-relative seat order (index 0 = the
    observer), flattened, plus ``add``."""

    field: str
    add: int = 0

    def numpy(self, c: Context, width: int) -> np.ndarray:
        """float32[B, width]: the seats' rows in relative order."""
        v = c.obs[self.field]
        return c.seats(v.astype(np.int64) + self.add if self.add else v)


@dataclass(frozen=True)
class Seat(Encoding):
    """One-hot relative position of the absolute seat a field (or column ``col`` of a 1-D
    field) holds; zeros for -1."""

    field: str
    col: int | None = None

    def numpy(self, c: Context, width: int) -> np.ndarray:
        """float32[B, P]: the one-hot relative seats."""
        return c.seat(_values(c, self.field, self.col))


@dataclass(frozen=True)
class Custom(Encoding):
    """A game-specific block: ``encode`` (numpy, over a ``Context``) and the name of the game's
    compiled builder ``builder(g, h, r, x, o)`` in its ``kernels.py``, which writes the block's
    columns ``o ..`` of the zeroed row ``x`` (the compiled tensor is tested equal to ``encode``)."""

    encode: Callable[[Context], np.ndarray]
    builder: str

    def numpy(self, c: Context, width: int) -> np.ndarray:
        """float32[B, width]: ``encode``'s block."""
        return np.asarray(self.encode(c), dtype=np.float32)


@dataclass(frozen=True)
class Block:
    """One block of the flat tensor: width in named sizes (their product), meaning, encoding."""

    name: str
    dims: Dims
    meaning: str
    encode: Encoding

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

    @property
    def computed_keys(self) -> tuple[str, ...]:
        """The keys the compiled ``observe_kernel`` fills (every field that is not a plain copy
        of record bytes), in order: its array arguments."""
        return tuple(f.name for f in self.fields if not f.copied())

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
            x = np.asarray(b.encode.numpy(ctx, b.width(sizes)), dtype=np.float32)
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
